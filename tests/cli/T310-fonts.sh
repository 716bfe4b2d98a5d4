#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The PDF sheet and slips draw every script people write their names in
# (Chinese, Arabic, Hindi, Greek, Thai, Amharic...) with the fonts make's
# dependency step installs: no character without a glyph, no warning.  A
# script no installed font has (Khitan Small Script) gets one warning line
# naming the participant, the script and what to install; --strict makes
# it an error and writes nothing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=$top/tests/keyrings/sheet/valgrind.supp $KSP"
export LSAN_OPTIONS="suppressions=$top/tests/keyrings/sheet/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T310-fonts
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg"
mkdir -m 700 "$GNUPGHOME"
trap 'gpgconf --homedir "$GNUPGHOME" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export KSP_DB="$w/p.db" LC_ALL=C.UTF-8
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

missing_pkgs=""
for p in fonts-noto-core fonts-noto-cjk; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing_pkgs="$missing_pkgs $p"
done
if [ -n "$missing_pkgs" ]; then
	# make deps installs them; a machine without them cannot pass this test
	bad "font packages not installed:$missing_pkgs (run make deps as root, or apt-get install$missing_pkgs)"
	echo "$name: $pass passed, $fail failed"
	exit 1
fi

# one key, one user ID per script (the test keys are made here)
uids=(
	"王秀英 INSECURE <zh@example.org>"
	"فاطمة الزهراء INSECURE <ar@example.org>"
	"अनुष्का शर्मा INSECURE <hi@example.org>"
	"Ελένη Παπαδοπούλου INSECURE <el@example.org>"
	"สมชาย ใจดี INSECURE <th@example.org>"
	"አበበ በቀለ INSECURE <am@example.org>"
	"李（小龙） INSECURE <zh2@example.org>"
	"王·秀英 INSECURE <zh3@example.org>"
	"山田たろう INSECURE <ja@example.org>"
	"鄭 다은 INSECURE <ko@example.org>"
)
# CJK names whose characters one font alone should draw (issue 36: a
# character of them, its punctuation or its kana came from another font)
cjk=("王秀英" "李（小龙）" "王·秀英" "山田たろう" "鄭 다은")
gpg --batch --quiet --passphrase '' --quick-gen-key "${uids[0]}" ed25519 sign,cert never 2>/dev/null
fpr=$(gpg --with-colons --list-keys 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
for u in "${uids[@]:1}"; do gpg --batch --quiet --passphrase '' --quick-add-uid "$fpr" "$u" 2>/dev/null; done
gpg --batch --quiet --passphrase '' --quick-gen-key "𘬀𘬁𘬂 INSECURE <kits@example.org>" ed25519 sign,cert never 2>/dev/null
fpr2=$(gpg --with-colons --list-keys kits@example.org 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
gpg --armor --export "$fpr" >"$w/scripts.asc"
gpg --armor --export "$fpr2" >"$w/khitan.asc"
[ -n "$fpr" ] && [ -n "$fpr2" ] && ok || bad "test keys not made"

$KSP party init --name "Scripts" --date 2030-01-01 >/dev/null 2>&1
$KSP party add --allow-no-email "$w/scripts.asc" >"$w/out" 2>&1 && ok || bad "party add: $(cat "$w/out")"
$KSP party close >/dev/null 2>&1 && ok || bad "party close"
for kind in sheet slips; do
	$KSP party $kind --strict -o "$w/$kind.pdf" >"$w/out" 2>"$w/err" && ok || bad "$kind --strict: $(cat "$w/err")"
	grep -q 'no font' "$w/err" && bad "$kind: glyph warning: $(cat "$w/err")" || ok
	pdftotext -enc UTF-8 "$w/$kind.pdf" - 2>/dev/null | tr -d '\n\f' >"$w/$kind.txt"
	for u in "${uids[@]}"; do
		# pdftotext gives the text of drawn glyphs; compare the name's letters
		# without spaces (pdftotext may break or reorder runs)
		n=${u%% INSECURE*}
		n=${n// /}
		tr -d ' ' <"$w/$kind.txt" | grep -qF -- "$n" && ok || bad "$kind: '$n' not in the PDF text"
	done
	# and the PDF embeds a font for each script (not one fallback font)
	pdffonts "$w/$kind.pdf" 2>/dev/null | grep -qi 'cjk\|ipa' && ok || bad "$kind: no CJK font embedded: $(pdffonts "$w/$kind.pdf")"
	pdffonts "$w/$kind.pdf" 2>/dev/null | grep -qi 'ethiopic' && ok || bad "$kind: no Ethiopic font embedded"
	pdffonts "$w/$kind.pdf" 2>/dev/null | grep -qi 'devanagari' && ok || bad "$kind: no Devanagari font embedded"
	# each CJK name from one font: pdftohtml (poppler-utils, as pdffonts)
	# gives a text element per run of one font, so the whole name is in one
	command -v pdftohtml >/dev/null || bad "pdftohtml is missing (Debian package poppler-utils)"
	pdftohtml -xml -i -stdout -q "$w/$kind.pdf" >"$w/$kind.xml" 2>/dev/null
	for n in "${cjk[@]}"; do
		el=$(grep -F -- "$n" "$w/$kind.xml" | head -1)
		[ -n "$el" ] && ok || bad "$kind: '$n' is drawn from more than one font: $(grep -F -- "${n:0:1}" "$w/$kind.xml" | head -3)"
		# and that font is a CJK one
		fid=$(printf '%s' "$el" | sed -n 's/.* font="\([0-9]*\)".*/\1/p')
		grep -E "<fontspec id=\"$fid\" .*family=\"[A-Z]+\+(NotoSansCJK|SourceHanSans|IPA|DroidSansFallback)" "$w/$kind.xml" >/dev/null &&
			ok || bad "$kind: '$n' not drawn from a CJK font: $(grep "<fontspec id=\"$fid\" " "$w/$kind.xml")"
	done
done

# a script without a font: a warning naming the participant and the script
$KSP party reopen --reason "late key" >/dev/null 2>&1
$KSP party add "$w/khitan.asc" >/dev/null 2>&1 && ok || bad "party add khitan"
$KSP party close >/dev/null 2>&1
$KSP party sheet -o "$w/k.pdf" >"$w/out" 2>"$w/err"
[ $? = 0 ] && [ -s "$w/k.pdf" ] && ok || bad "sheet with a Khitan user ID: $(cat "$w/err")"
[ "$(grep -c 'no font' "$w/err")" = 1 ] && ok || bad "one warning line: $(cat "$w/err")"
grep -q "^ksp: warning: .*k.pdf: #2 $fpr2: 3 Kits character(s) of a user ID have no font; .*apt-get install" "$w/err" && ok ||
	bad "warning names participant, script and package: $(cat "$w/err")"
$KSP party slips -o "$w/ks.pdf" >"$w/out" 2>"$w/err"
grep -q "#2 $fpr2: 3 Kits" "$w/err" && ok || bad "slips warn too: $(cat "$w/err")"
$KSP -q party sheet -o "$w/kq.pdf" >"$w/out" 2>"$w/err"
# (LeakSanitizer may add its summary of suppressed fontconfig leaks)
! grep -q 'no font' "$w/err" && ok || bad "-q: no warning: $(cat "$w/err")"
$KSP party sheet --strict -o "$w/k2.pdf" >"$w/out" 2>"$w/err"
[ $? = 2 ] && ok || bad "--strict: exit 2"
[ ! -e "$w/k2.pdf" ] && ok || bad "--strict: nothing written"
grep -q '^ksp: .*k2.pdf: not written: 3 character(s) have no font (--strict)' "$w/err" && ok || bad "--strict message: $(cat "$w/err")"
# text and HTML are not drawn by ksp: no check, no warning
$KSP party sheet --format html -o "$w/k.html" >/dev/null 2>"$w/err" && [ ! -s "$w/err" ] || [ "$(cat "$w/err")" = "$w/k.html: written" ] && ok || bad "html: $(cat "$w/err")"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
