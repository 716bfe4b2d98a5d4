#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The next party from ksp health's repair plan (issue 37): a web made with
# gpg at test time (INSECURE throw-away keys, time frozen: day N =
# 2024-01-01 + N days; the report looks at 2024-06-01, repairs for +90d):
#   c           the core;
#   c -> a -> t a's certification of t expires on day 170 (a renewal);
#   c -> x -> u c's certification of x expires on day 170 (x and u fall).
# t's user ID is hostile (HTML, a bidi override).  'health --plan-csv'
# writes the list, 'party init' and 'party add --csv' make the party and
# keep the plan; the sheet (txt, html, pdf) marks beside each signer
# exactly the plan's targets, and the user IDs stay escaped.
. "$(dirname "$0")/test-lib.sh"
test_begin T556-health-party
# pango's and fontconfig's caches (the PDF sheet) are not leaks of ksp
export LSAN_OPTIONS="suppressions=$TOP/tests/keyrings/sheet/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
command -v gpg >/dev/null || { _test_fail "gpg is missing (Debian package gnupg)"; test_done; }
command -v pdftotext >/dev/null || { _test_fail "pdftotext is missing (Debian package poppler-utils)"; test_done; }
PY=/usr/bin/python3
home="$TEST_TMP/g"
mkdir -m 700 "$home"
secs=0
ts() { secs=$((secs + 1)); date -u -d "2024-01-01 00:00:00 UTC + $1 days + $secs seconds" +%Y%m%dT%H%M%S!; }
G() { # G DAY ARGS...
	local t
	t=$(ts "$1")
	shift
	command gpg --homedir "$home" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--no-auto-check-trustdb --faked-system-time "$t" "$@"
}
declare -A F
key() { # key NAME [USER-ID]
	G 0 --utf8-strings --quick-gen-key "${2:-$1 INSECURE <$1@example.org>}" ed25519 sign 0 >/dev/null 2>&1
	F[$1]=$(command gpg --homedir "$home" --batch --with-colons --list-keys "$1@example.org" 2>/dev/null |
		awk -F: '$1=="fpr"{print $10; exit}' 2>/dev/null)
	[ -n "${F[$1]}" ] || { _test_fail "gpg made no key $1"; test_done; }
}
sign() { # sign SIGNER TARGET [CERT-EXPIRE]
	G 1 ${3:+--default-cert-expire "$3"} -u "${F[$1]}" --quick-sign-key "${F[$2]}" >/dev/null 2>&1 ||
		_test_fail "gpg: $1 certifies $2"
}
hostile=$(printf 't <script>alert(1)</script> \xe2\x80\xae INSECURE <t@example.org>')
for k in c a x u; do key $k; done
key t "$hostile"
sign c a; sign a t 169d; sign c x 169d; sign x u
G 1 --export >"$TEST_TMP/web.gpg" 2>/dev/null
command gpgconf --homedir "$home" --kill all >/dev/null 2>&1
db="$TEST_TMP/h.db"
expect_code 0 $KSP -d "$db" wot load "$TEST_TMP/web.gpg"
expect_code 1 $KSP -d "$db" health --core-fpr "${F[c]}" --at 2024-06-01 --repair-at +90d --no-spof \
	--plan-csv "$TEST_TMP/next.csv"
# the plan's pairs as health wrote them: "SIGNER TARGET r|-"
sed -n 's/^# certify: \([0-9A-F]*\) certifies \([0-9A-F]*\)\(.*\)$/\1 \2 \3/p' "$TEST_TMP/next.csv" |
	awk '{print $1, $2, ($3 ~ /renewal/ ? "r" : "-")}' | sort >"$TEST_TMP/want"
n=$(wc -l <"$TEST_TMP/want")
[ "$n" -ge 2 ] && _test_pass "plan: $n certifications" || _test_fail "plan: $n certifications, want 2 or more"
grep -q "^${F[a]} ${F[t]} r\$" "$TEST_TMP/want" && _test_pass "a renews t" || _test_fail "a -> t not in the plan"

pdb="$TEST_TMP/party.db"
expect_code 0 $KSP -d "$pdb" party init --name "Repair party" --date 2024-07-01
# a dry run keeps no plan
expect_code 0 $KSP -d "$pdb" party add --dry-run --csv "$TEST_TMP/next.csv" "$TEST_TMP/web.gpg"
expect_eq "$(sqlite3 "$pdb" 'SELECT count(*) FROM repair_plan')" 0 "a dry run keeps no plan"
expect_code 0 $KSP -d "$pdb" party add --csv "$TEST_TMP/next.csv" "$TEST_TMP/web.gpg"
expect_match "$ERR" "^the repair plan: $n certification\\(s\\) to make at the party"
expect_code 0 $KSP -d "$pdb" party close

# number -> fingerprint, from the frozen list
expect_code 0 $KSP -d "$pdb" party digest -o "$TEST_TMP/list.txt"
grep -c 'certify for the repair' "$TEST_TMP/list.txt" >/dev/null && _test_fail "the plan is in the announced list" ||
	_test_pass "the announced list holds no plan"
# marks SHEET FORMAT: the pairs the sheet marks, "SIGNER TARGET r|-"
marks() {
	$PY - "$1" "$2" "$TEST_TMP/list.txt" <<'PYEOF'
import re, sys, html
path, fmt, listf = sys.argv[1:]
num = {}
for m in re.finditer(r'^ *(\d+)  ([0-9A-F ]{40,})$', open(listf, encoding='utf-8').read(), re.M):
    num[m.group(1)] = m.group(2).replace(' ', '')
text = open(path, encoding='utf-8', errors='replace').read()
if fmt == 'html':
    blocks = re.findall(r'<div class="participant[^"]*" id="p(\d+)">(.*?)</ul>', text, re.S)
    blocks = [(n, html.unescape(re.sub(r'<[^>]*>', ' ', b))) for n, b in blocks]
else:
    # txt and pdftotext: a block starts at "N  FPR" (txt) or "#N FPR" (pdf)
    pat = r'^ *#?(\d+) +((?:[0-9A-F]{4} +){9}[0-9A-F]{4})'
    starts = [(m.start(), m.group(1)) for m in re.finditer(pat, text, re.M)]
    blocks = [(n, text[s:(starts[i + 1][0] if i + 1 < len(starts) else len(text))]) for i, (s, n) in enumerate(starts)]
for n, b in blocks:
    m = re.search(r'certify for the repair: ([^\n]*)', b)
    if not m:
        continue
    for item in m.group(1).split(', '):
        t = re.match(r'#(\d+)( \(renewal\))?', item.strip())
        print(num[n], num[t.group(1)], 'r' if t.group(2) else '-')
PYEOF
}
expect_code 0 $KSP -d "$pdb" party sheet --format txt -o "$TEST_TMP/sheet.txt"
expect_eq "$(marks "$TEST_TMP/sheet.txt" txt | sort)" "$(cat "$TEST_TMP/want")" "txt sheet: the plan's pairs"
expect_match "$TEST_TMP/sheet.txt" "^Repair party: beside a participant"
cmp -s "$TEST_TMP/sheet.txt" "$TEST_TMP/list.txt" && _test_fail "the marked sheet passes for the list" ||
	_test_pass "the marked sheet is not the list"
expect_code 0 $KSP -d "$pdb" party sheet --format html -o "$TEST_TMP/sheet.html"
expect_eq "$(marks "$TEST_TMP/sheet.html" html | sort)" "$(cat "$TEST_TMP/want")" "html sheet: the plan's pairs"
expect_code 0 $KSP -d "$pdb" party sheet --format pdf -o "$TEST_TMP/sheet.pdf"
pdftotext -layout -enc UTF-8 "$TEST_TMP/sheet.pdf" "$TEST_TMP/sheet-pdf.txt"
expect_eq "$(marks "$TEST_TMP/sheet-pdf.txt" pdf | sort)" "$(cat "$TEST_TMP/want")" "pdf sheet: the plan's pairs"
# the hostile user ID: escaped in every format
for f in sheet.txt sheet.html list.txt; do
	grep -q "$(printf '\xe2\x80\xae')" "$TEST_TMP/$f" && _test_fail "$f: a raw bidi override" || _test_pass "$f: no raw bidi"
done
grep -q '<script>' "$TEST_TMP/sheet.html" && _test_fail "sheet.html: a raw <script>" || _test_pass "sheet.html: escaped"
expect_match "$TEST_TMP/sheet.html" '&lt;script&gt;alert\(1\)&lt;/script&gt;'
expect_match "$TEST_TMP/sheet.txt" 'uid  t <script>alert\(1\)</script> \\u\{202E\} INSECURE'
# a participant's personal copy marks the plan too
num_a=$(tr -d ' ' <"$TEST_TMP/list.txt" | sed -n "s/^\([0-9]*\)${F[a]}\$/\1/p")
expect_code 0 $KSP -d "$pdb" party sheet --format txt --for "$num_a" -o "$TEST_TMP/for-a.txt"
expect_eq "$(marks "$TEST_TMP/for-a.txt" txt | sort)" "$(cat "$TEST_TMP/want")" "personal copy: the plan's pairs"
test_done
