#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp party sheet / slips: every format for the fixture party.  The text
# sheet is the announced list byte for byte; HTML parses as XML and escapes
# the hostile UID; PDF is read back with pdftotext / pdfinfo; QR codes are
# decoded with zbarimg; templates in templates/ equal the built-in ones.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings"
KSP="${KSP:-$top/ksp}"
# fontconfig's own leak (it parses its configuration in a thread pango
# starts) is suppressed for valgrind and LeakSanitizer; see the .supp files.
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=$top/tests/keyrings/sheet/valgrind.supp $KSP"
export LSAN_OPTIONS="suppressions=$top/tests/keyrings/sheet/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T300-sheet
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
export KSP_DB="$w/p.db"
export LC_ALL=C.UTF-8
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2; shift 2
	"$@" >"$w/out" 2>"$w/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$msg: exit $got, want $want"; sed 's/^/  | /' "$w/err" | head -20 >&2; fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else bad "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -20 >&2; fi
}
expect_nogrep() {
	if grep -qE -- "$2" "$1"; then bad "$3: /$2/ found in $1"; else ok; fi
}
expect_eq() { # ACTUAL EXPECTED MSG
	if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}
fpr_of() { gpg --homedir "$w/show" --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
# no raw control bytes (other than LF; pdftotext ends pages with FF) and no
# raw bidi overrides
raw_free() { # FILE MSG
	if tr -d '\f' < "$1" | LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]' || grep -q $'\xe2\x80\xae' "$1"; then
		bad "$2: raw control or bidi bytes in $1"
	else ok; fi
}
pdftext() { pdftotext -enc UTF-8 "$1" - 2>/dev/null; }
squash() { tr -d ' \n\f'; }
zbar() { zbarimg -q --raw "$@" 2>/dev/null; }
have_zbar=0; command -v zbarimg >/dev/null && have_zbar=1
have_ja=0; [ -n "$(fc-list :lang=ja 2>/dev/null)" ] && have_ja=1
mkdir -m 700 "$w/show"

keys="alice-rsa bob-ed25519 carol-nonlatin dave-escape heidi-noemail"
declare -A F
for k in $keys; do F[$k]=$(fpr_of "$fx/$k.asc"); done
F[p2]=$(fpr_of "$fx/party/p2-public.asc")

expect_code 0 "init" $KSP party init --name 'Test <b>party</b> & co' --date 2027-01-15 --location 'Room "1" <main>'
expect_code 0 "add" $KSP party add --allow-no-email "$fx/alice-rsa.asc" "$fx/bob-ed25519.asc" "$fx/carol-nonlatin.asc" \
	"$fx/dave-escape.asc" "$fx/heidi-noemail.asc" "$fx/party/p2-public.asc"
n_parts=6

# --- built-in templates equal the files in templates/ (no store needed) ---
for k in sheet slips; do
	for f in txt html; do
		$KSP -d "$w/none.db" party $k --print-template $f > "$w/tmpl" 2>"$w/err"
		cmp -s "$w/tmpl" "$top/templates/$k.$f" && ok || bad "--print-template $f of $k differs from templates/$k.$f"
	done
	expect_code 2 "$k --print-template pdf" $KSP party $k --print-template pdf
	expect_grep "$w/err" "drawn by ksp" "$k: pdf has no template"
done
[ ! -e "$w/none.db" ] && ok || bad "--print-template created a store"

# --- an open list: the sheet refuses, or renders marked DRAFT ---
expect_code 2 "sheet of an open list" $KSP party sheet
expect_grep "$w/err" "list is open \(not frozen\).*ksp party close.*--draft" "open list message"
[ "$(wc -l < "$w/err")" = 1 ] && ok || bad "one-line message for the open list"
expect_code 0 "draft txt" $KSP party sheet --draft
[ "$(head -1 "$w/out")" = "DRAFT - NOT FROZEN: do not use this list to verify anything." ] && ok || bad "draft txt heading: $(head -1 "$w/out")"
expect_grep "$w/out" "^List version: 1 \(DRAFT, not frozen\)$" "draft version line"
expect_code 0 "draft pdf" $KSP party sheet --draft -o "$w/draft.pdf"
pdftext "$w/draft.pdf" > "$w/draft.txt"
expect_grep "$w/draft.txt" "DRAFT — NOT FROZEN" "draft pdf marked"
expect_grep "$w/draft.txt" "No digests: the list is not frozen" "draft pdf has no digests"
expect_code 0 "draft html" $KSP party sheet --draft --format html
expect_grep "$w/out" 'class="draft"' "draft html marked"
expect_nogrep "$w/out" 'id="sha256"' "draft html has no digest"

# --- close; the text sheet IS the announced list ---
expect_code 0 "close" $KSP party close -o "$w/list.txt"
sha=$(sed -n 's/^SHA256: *//p' "$w/out")
rmd=$(sed -n 's/^RIPEMD160: *//p' "$w/out")
[ ${#sha} = 64 ] && [ ${#rmd} = 40 ] && ok || bad "digests printed by close: '$sha' '$rmd'"
expect_code 0 "sheet txt to stdout" $KSP party sheet
expect_eq "$(sha256sum < "$w/out" | cut -d' ' -f1)" "$sha" "ksp party sheet | sha256sum = announced SHA-256"
expect_eq "$(openssl dgst -ripemd160 -r < "$w/out" | cut -d' ' -f1)" "$rmd" "ksp party sheet | ripemd160 = announced"
cmp -s "$w/out" "$w/list.txt" && ok || bad "sheet txt differs from close -o"
expect_code 0 "sheet -o sheet.txt" $KSP party sheet -o "$w/sheet.txt"
cmp -s "$w/sheet.txt" "$w/list.txt" && ok || bad "sheet -o .txt differs from close -o"
expect_code 0 "digest -o" $KSP party digest -o "$w/digest.txt"
cmp -s "$w/sheet.txt" "$w/digest.txt" && ok || bad "sheet differs from digest -o"
# the text template, rendered from the store's keys, gives the same bytes
expect_code 0 "sheet with templates/sheet.txt" $KSP party sheet --template "$top/templates/sheet.txt"
cmp -s "$w/out" "$w/list.txt" && ok || bad "templates/sheet.txt does not reproduce the canonical list"
raw_free "$w/list.txt" "canonical txt"

# personal text copy: marked, and it says it is not the announced list
expect_code 0 "txt --for dave" $KSP party sheet --for "${F[dave-escape]}"
expect_grep "$w/out" "^Personal copy for participant #4\." "personal txt heading"
[ "$(grep -c 'this is you' "$w/out")" = 1 ] && ok || bad "txt --for: one 'this is you'"
grep -A1 'this is you' "$w/out" | tail -1 | grep -q "^  4  " && ok || bad "txt --for: the mark is on #4"
expect_grep "$w/err" "not the announced list" "personal txt warning"
[ "$(sha256sum < "$w/out" | cut -d' ' -f1)" != "$sha" ] && ok || bad "personal copy has the announced digest"
raw_free "$w/out" "personal txt"

# --- HTML sheet ---
expect_code 0 "html sheet" $KSP party sheet -o "$w/sheet.html"
expect_grep "$w/err" "sheet.html: written" "html written message"
xmllint --noout "$w/sheet.html" 2>"$w/xml.err" && ok || { bad "sheet.html is not well-formed"; head "$w/xml.err" >&2; }
raw_free "$w/sheet.html" "html sheet"
expect_nogrep "$w/sheet.html" "<script" "no live script element"
expect_nogrep "$w/sheet.html" "<b>party" "no live markup from the party name"
expect_grep "$w/sheet.html" "&lt;script&gt;alert\(1\)&lt;/script&gt; INSECURE &lt;dave2@example.org&gt;" "script UID as entities"
expect_grep "$w/sheet.html" "<title>Test &lt;b&gt;party&lt;/b&gt; &amp; co: verification sheet</title>" "party name escaped"
expect_grep "$w/sheet.html" "Room &quot;1&quot; &lt;main&gt;" "location escaped"
expect_grep "$w/sheet.html" "size: A4;" "A4 print CSS"
python3 - "$w/sheet.html" "$sha" "$rmd" "${F[alice-rsa]} ${F[bob-ed25519]} ${F[carol-nonlatin]} ${F[dave-escape]} ${F[heidi-noemail]} ${F[p2]}" <<'EOF' && ok || bad "html content (parsed as XML)"
import sys, xml.etree.ElementTree as ET
path, sha, rmd, fprs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
root = ET.parse(path).getroot()
def text(e): return "".join(e.itertext())
def cls(c): return [e for e in root.iter() if c in (e.get("class") or "").split()]
assert text(root.find(".//*[@id='sha256']")).replace(" ", "") == sha
assert text(root.find(".//*[@id='ripemd160']")).replace(" ", "") == rmd
parts = cls("participant")
assert len(parts) == len(fprs), len(parts)
got = [text(e).replace(" ", "") for e in cls("fpr") if e.tag == "span"]
assert got == fprs, got
uids = [text(e) for e in cls("uid")]
assert "Dave [U+001B][31mRED[U+001B][0m [U+202E] INSECURE <dave@example.org>" in uids, uids
assert "<script>alert(1)</script> INSECURE <dave2@example.org>" in uids
assert "Кэрол Тест INSECURE <carol@example.org>" in uids and "キャロル INSECURE <carol@example.jp>" in uids
assert "Heidi No Email INSECURE" in uids
assert len(uids) == 10, len(uids)
assert not cls("you")
# boxes: one per key, two per user ID, two for the digests
assert len(cls("box")) == len(fprs) + 2 * len(uids) + 2, len(cls("box"))
EOF
expect_code 0 "html --for 3 --paper letter" $KSP party sheet --format html --for 3 --paper letter
expect_grep "$w/out" 'class="participant you" id="p3"' "html: #3 marked"
[ "$(grep -c 'participant you' "$w/out")" = 1 ] && ok || bad "html --for: one entry marked"
expect_grep "$w/out" "this is you: check it is read out correctly" "html: this is you"
expect_grep "$w/out" "size: letter;" "letter print CSS"

# --- PDF sheet ---
expect_code 0 "pdf sheet" $KSP party sheet -o "$w/sheet.pdf"
expect_grep "$w/err" "sheet.pdf: 1 page$" "pdf page count message"
expect_eq "$(pdfinfo "$w/sheet.pdf" | sed -n 's/^Pages: *//p')" 1 "pdfinfo pages"
expect_grep <(pdfinfo "$w/sheet.pdf") "^Page size: +595.276 x 841.89 pts \(A4\)" "A4 page"
pdftext "$w/sheet.pdf" > "$w/sheet.pdf.txt"
sq=$(squash < "$w/sheet.pdf.txt")
for k in $keys p2; do
	case $sq in *"${F[$k]}"*) ok ;; *) bad "pdf: fingerprint of $k missing" ;; esac
done
case $sq in *"$sha"*) ok ;; *) bad "pdf: SHA-256 missing" ;; esac
case $sq in *"$rmd"*) ok ;; *) bad "pdf: RIPEMD-160 missing" ;; esac
expect_grep "$w/sheet.pdf.txt" 'Dave \\x1B\[31mRED\\x1B\[0m \\u\{202E\} INSECURE <dave@example.org>' "pdf: hostile UID shown escaped"
expect_grep "$w/sheet.pdf.txt" '<script>alert\(1\)</script> INSECURE' "pdf: script UID as text"
expect_grep "$w/sheet.pdf.txt" 'Кэрол Тест INSECURE <carol@example.org>' "pdf: Cyrillic UID"
if [ $have_ja = 1 ]; then
	expect_grep "$w/sheet.pdf.txt" 'キャロル INSECURE <carol@example.jp>' "pdf: Japanese UID"
else
	echo "$name: no Japanese font (fonts-ipafont-gothic); Japanese PDF check skipped" >&2
fi
expect_grep "$w/sheet.pdf.txt" 'Test <b>party</b> & co' "pdf: party name as text"
expect_grep "$w/sheet.pdf.txt" 'page 1 of 1' "pdf footer"
expect_eq "$(grep -c 'fingerprint OK' "$w/sheet.pdf.txt")" "$((n_parts + 1))" "pdf: a 'fingerprint OK' box per key (+ help text)"
expect_eq "$(grep -c 'ID checked' "$w/sheet.pdf.txt")" 11 "pdf: an 'ID checked' box per user ID (+ help text)"
raw_free "$w/sheet.pdf.txt" "pdf text"
expect_code 0 "pdf --for 5 --paper letter" $KSP party sheet --format pdf --for 5 --paper letter -o "$w/sheet5.pdf"
expect_grep <(pdfinfo "$w/sheet5.pdf") "^Page size: +612 x 792 pts \(letter\)" "letter page"
pdftext "$w/sheet5.pdf" > "$w/sheet5.txt"
expect_eq "$(grep -c 'this is you: check it is read out correctly' "$w/sheet5.txt")" 1 "pdf --for: one 'this is you'"
expect_grep "$w/sheet5.txt" "Personal copy of participant #5" "pdf --for heading"
# to standard output when it is not a terminal
expect_code 0 "pdf to stdout" $KSP party sheet --format pdf
expect_eq "$(head -c 5 "$w/out")" "%PDF-" "pdf on stdout"
# the same store gives the same PDF (its date is the party's)
expect_code 0 "pdf again" env TZ=Pacific/Kiritimati $KSP party sheet -o "$w/again.pdf"
cmp -s "$w/sheet.pdf" "$w/again.pdf" && ok || bad "pdf not reproducible"

# --- slips ---
expect_code 0 "slips pdf, all participants" $KSP party slips -o "$w/slips.pdf"
expect_eq "$(pdfinfo "$w/slips.pdf" | sed -n 's/^Pages: *//p')" "$n_parts" "slips: one page per participant"
expect_grep "$w/err" "slips.pdf: $n_parts pages" "slips page count message"
pdftext "$w/slips.pdf" > "$w/slips.txt"
for k in $keys p2; do
	[ "$(squash < "$w/slips.txt" | grep -o "${F[$k]}" | wc -l)" -ge 5 ] && ok || bad "slips: fewer than 5 slips of $k"
done
expect_code 0 "slips --for --qr" $KSP party slips --qr --for "$(echo "${F[dave-escape]}" | sed 's/..../& /g')" -o "$w/dave.pdf"
expect_eq "$(pdfinfo "$w/dave.pdf" | sed -n 's/^Pages: *//p')" 1 "slips --for: one page"
pdftext "$w/dave.pdf" > "$w/dave.txt"
n_slips=$(squash < "$w/dave.txt" | grep -o "${F[dave-escape]}" | wc -l)
[ "$n_slips" -ge 6 ] && ok || bad "slips --for: only $n_slips slips on the page"
[ -z "$(squash < "$w/dave.txt" | grep -o "${F[alice-rsa]}")" ] && ok || bad "slips --for: other keys on the page"
expect_grep "$w/dave.txt" 'uid +Dave \\x1B\[31mRED\\x1B\[0m \\u\{202E\}' "slips: hostile UID escaped"
raw_free "$w/dave.txt" "slips pdf text"
if [ $have_zbar = 1 ]; then
	pdftoppm -png -r 150 -f 1 -l 1 "$w/dave.pdf" "$w/dave"
	zbar "$w"/dave*.png > "$w/qr.txt"
	expect_eq "$(sort -u "$w/qr.txt")" "OPENPGP4FPR:${F[dave-escape]}" "pdf QR decodes to OPENPGP4FPR:fpr"
	expect_eq "$(wc -l < "$w/qr.txt")" "$n_slips" "a QR code on every slip"
else
	bad "zbarimg is not installed (Debian package zbar-tools; make deps installs it): QR codes not decoded"
fi
expect_code 0 "slips --count 12 (two pages)" $KSP party slips --for 1 --count 12 --format pdf -o "$w/c12.pdf"
expect_eq "$(squash < <(pdftext "$w/c12.pdf") | grep -o "${F[alice-rsa]}" | wc -l)" 12 "12 slips"
[ "$(pdfinfo "$w/c12.pdf" | sed -n 's/^Pages: *//p')" -ge 2 ] && ok || bad "12 slips take two pages"

expect_code 0 "slips txt --qr" $KSP party slips --format txt --qr --for 2 --count 3 -o "$w/slips2.txt"
expect_eq "$(squash < "$w/slips2.txt" | grep -o "${F[bob-ed25519]}" | wc -l)" 3 "txt: 3 slips"
expect_eq "$(grep -c ' 8< ---$' "$w/slips2.txt")" 4 "txt: cut lines"
raw_free "$w/slips2.txt" "txt slips"
expect_code 0 "slips txt of dave" $KSP party slips --format txt --for 4 --count 1
expect_grep "$w/out" '^uid  Dave \\x1B\[31mRED\\x1B\[0m \\u\{202E\} INSECURE <dave@example.org>$' "txt slips: UID escaped"
raw_free "$w/out" "txt slips of dave"
expect_code 0 "slips html --qr" $KSP party slips --qr --count 2 -o "$w/slips.html"
xmllint --noout "$w/slips.html" 2>/dev/null && ok || bad "slips.html is not well-formed"
raw_free "$w/slips.html" "html slips"
expect_nogrep "$w/slips.html" "<script" "slips html: no live script"
expect_eq "$(grep -c '<svg class="qr"' "$w/slips.html")" $((2 * n_parts)) "html: a QR per slip"
expect_eq "$(grep -c 'class="key"' "$w/slips.html")" "$n_parts" "html: a block per participant"
if [ $have_zbar = 1 ]; then
	n=$(python3 "$fx/sheet/qr2pgm.py" txt "$w/slips2.txt" "$w/qt")
	expect_eq "$(zbar "$w"/qt-*.pgm | sort | uniq -c | sed 's/^ *//')" "3 OPENPGP4FPR:${F[bob-ed25519]}" "txt QR codes decode ($n)"
	python3 "$fx/sheet/qr2pgm.py" html "$w/slips.html" "$w/qh" >/dev/null
	want=$(for k in alice-rsa bob-ed25519 carol-nonlatin dave-escape heidi-noemail p2; do echo "OPENPGP4FPR:${F[$k]}"; echo "OPENPGP4FPR:${F[$k]}"; done | sort)
	expect_eq "$(zbar "$w"/qh-*.pgm | sort)" "$want" "html SVG QR codes decode"
else
	bad "zbarimg is not installed (Debian package zbar-tools; make deps installs it): txt and html QR codes not decoded"
fi
expect_code 0 "slips on an open list are fine" $KSP -d "$w/p.db" party slips --format txt --for 1 --count 1
expect_code 2 "slips --draft is not an option" $KSP party slips --draft

# --- user templates ---
printf 'n={{participants.count}} v={{list.version}} name={{party.name}}\n{{#participants}}{{number:-3}}|{{fingerprint.hex}}|{{uids.count}}\n{{#uids}}\n  {{uid.number}}{{#primary}}*{{/primary}} {{uid}}\n{{/uids}}\n{{/participants}}' > "$w/my.txt"
expect_code 0 "own txt template" $KSP party sheet --template "$w/my.txt"
expect_eq "$(head -1 "$w/out")" "n=6 v=1 name=Test <b>party</b> & co" "own template: top values"
expect_grep "$w/out" "^4  \|${F[dave-escape]}\|2$" "own template: width, hex, count"
expect_grep "$w/out" '^  1\* Dave \\x1B\[31mRED' "own template: escaped UID, primary"
raw_free "$w/out" "own txt template"
printf '<p>{{#participants}}<i>{{uid}}</i>{{/participants}}</p>\n' > "$w/bad1.html"
expect_code 2 "template: name outside its block" $KSP party sheet --format html --template "$w/bad1.html"
expect_grep "$w/err" "bad1.html:1: '\{\{uid\}\}' is only known inside \{\{#uids\}\}" "outside-block message"
printf 'a\n{{#participants}}\nb\n' > "$w/bad2.txt"
expect_code 2 "template: unclosed block" $KSP party sheet --template "$w/bad2.txt"
expect_grep "$w/err" "bad2.txt:2: '\{\{#participants\}\}' is never closed" "unclosed message"
printf '{{{party.name}}}\n' > "$w/bad3.txt"
expect_code 2 "template: unescaped output" $KSP party sheet --template "$w/bad3.txt"
expect_grep "$w/err" "not supported: every value is escaped" "unescaped message"
printf 'x\n\n{{nosuch}}\n' > "$w/bad4.txt"
expect_code 2 "template: unknown name" $KSP party sheet --template "$w/bad4.txt"
expect_grep "$w/err" "bad4.txt:3: unknown name '\{\{nosuch\}\}'" "unknown name message"
expect_code 2 "template: qr.code in a sheet" $KSP party sheet --template <(printf '{{#participants}}{{qr.code}}{{/participants}}')
expect_code 2 "template: missing file" $KSP party sheet --template "$w/nope.txt"
expect_grep "$w/err" "nope.txt: cannot read the template" "missing template message"
expect_code 2 "template with pdf" $KSP party sheet --format pdf --template "$w/my.txt" -o "$w/x.pdf"
printf '<ul>{{#participants}}{{#uids}}<li>{{uid}}</li>{{/uids}}{{/participants}}</ul>\n' > "$w/my.html"
expect_code 0 "own html template" $KSP party sheet --format html --template "$w/my.html"
expect_grep "$w/out" "<li>&lt;script&gt;alert\(1\)&lt;/script&gt; INSECURE &lt;dave2@example.org&gt;</li>" "own html template escapes"
raw_free "$w/out" "own html template"

# --- failures leave nothing behind and do not clobber ---
echo keep > "$w/keep.html"
expect_code 2 "bad template does not clobber -o" $KSP party sheet --format html --template "$w/bad2.txt" -o "$w/keep.html"
expect_eq "$(cat "$w/keep.html")" keep "existing output kept"
expect_code 2 "unwritable output" $KSP party sheet -o "$w/no/such/dir/s.pdf"
expect_grep "$w/err" "no/such/dir/s.pdf: cannot write" "unwritable output message"
expect_code 2 "--for unknown fingerprint" $KSP party sheet --for 0000000000000000000000000000000000000000
expect_grep "$w/err" "no participant with fingerprint 0{40} on the list" "unknown --for message"
expect_code 2 "--for number not on the list" $KSP party slips --for 9 -o "$w/x.pdf"
expect_code 2 "--for garbage" $KSP party sheet --for 12ab
expect_grep "$w/err" "neither a full fingerprint" "bad --for message"
expect_code 2 "bad format" $KSP party sheet --format docx
expect_code 2 "bad paper" $KSP party sheet --paper a3
[ -z "$(ls "$w" | grep '\.tmp\.')" ] && ok || bad "temporary output files left: $(ls "$w" | grep '\.tmp\.')"

# --- the store changed after closing: HTML/PDF refuse, the text is the frozen one ---
cp "$KSP_DB" "$w/stale.db"
sqlite3 "$w/stale.db" "UPDATE uids SET uid = CAST('Mallory <m@example.org>' AS BLOB) WHERE uid = CAST('Bob INSECURE <bob@example.org>' AS BLOB)"
expect_code 2 "stale store: html" $KSP -d "$w/stale.db" party sheet --format html
expect_grep "$w/err" "no longer match frozen list version 1" "stale message"
expect_code 2 "stale store: pdf" $KSP -d "$w/stale.db" party sheet -o "$w/stale.pdf"
[ ! -e "$w/stale.pdf" ] && ok || bad "stale pdf written"
expect_code 0 "stale store: txt is still the frozen text" $KSP -d "$w/stale.db" party sheet
cmp -s "$w/out" "$w/list.txt" && ok || bad "stale store txt differs from the frozen list"
# reopened: a sheet needs --draft again
cp "$KSP_DB" "$w/re.db"
expect_code 0 "reopen" $KSP -d "$w/re.db" party reopen --reason latecomer
expect_code 2 "sheet of a reopened list" $KSP -d "$w/re.db" party sheet --format pdf -o "$w/re.pdf"
expect_code 0 "draft of a reopened list" $KSP -d "$w/re.db" party sheet --draft
expect_grep "$w/out" "^List version: 2 \(DRAFT, not frozen\)$" "draft of version 2"

# --- more than a page: 24 Debian keys ---
. "$top/tests/cli/debian-ring.sh"
ring=$DEBIAN_RING
why=$(debian_ring_missing)
if [ -z "$why" ]; then
	mkdir -m 700 "$w/deb"
	gpg --homedir "$w/deb" --no-default-keyring --keyring "$ring" --with-colons --list-keys 2>/dev/null |
		awk -F: '$1=="pub"{p=1; ok=($2!="e" && $2!="r" && $7==""); next} $1=="fpr" && p {if(ok && c++ < 24) print $10; p=0}' > "$w/deb.fprs"
	gpg --homedir "$w/deb" --no-default-keyring --keyring "$ring" --export $(cat "$w/deb.fprs") > "$w/deb.gpg" 2>/dev/null
	export KSP_DB="$w/deb.db"
	$KSP party init --name "Debian 24" --date 2030-01-01 >/dev/null
	$KSP party add --allow-weak --allow-expiring "$w/deb.gpg" >/dev/null 2>&1
	$KSP party close >/dev/null 2>&1
	nd=$(sqlite3 "$KSP_DB" 'SELECT count(*) FROM participants')
	[ "$nd" -ge 20 ] && ok || bad "Debian keys added: $nd"
	expect_code 0 "debian pdf sheet" $KSP party sheet -o "$w/deb.pdf"
	pages=$(pdfinfo "$w/deb.pdf" | sed -n 's/^Pages: *//p')
	[ "$pages" -ge 2 ] && ok || bad "Debian sheet on $pages page(s)"
	expect_grep "$w/err" "deb.pdf: $pages pages" "reported page count = pdfinfo"
	pdftext "$w/deb.pdf" > "$w/deb.txt"
	expect_eq "$(grep -c "^page [0-9]* of $pages$" "$w/deb.txt")" "$pages" "every page says 'page i of $pages'"
	sq=$(squash < "$w/deb.txt")
	miss=0
	for f in $(sqlite3 "$KSP_DB" 'SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id'); do
		case $sq in *"$f"*) ;; *) miss=$((miss + 1)) ;; esac
	done
	expect_eq "$miss" 0 "every Debian fingerprint in the PDF"
	expect_code 0 "debian html sheet" $KSP party sheet -o "$w/deb.html"
	xmllint --noout "$w/deb.html" 2>/dev/null && ok || bad "Debian sheet.html is not well-formed"
	raw_free "$w/deb.html" "Debian html"
	expect_code 0 "debian slips" $KSP party slips --qr -o "$w/debs.pdf"
	expect_eq "$(pdfinfo "$w/debs.pdf" | sed -n 's/^Pages: *//p')" "$nd" "Debian slips: a page per key"
	expect_code 0 "debian txt sheet" $KSP party sheet
	expect_eq "$(sha256sum < "$w/out" | cut -d' ' -f1)" "$(sqlite3 "$KSP_DB" 'SELECT sha256 FROM list_versions WHERE version = 1')" "Debian txt sheet digest"
else
	echo "$name: multi-page part skipped: $why" >&2
fi

[ -z "$(ls "$TMPDIR")" ] && ok || bad "left in TMPDIR: $(ls "$TMPDIR")"
[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was touched"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
