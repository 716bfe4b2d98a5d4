#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# --json through one library (jansson, src/cli/json-out.c): the CLI links
# it, no CLI file writes JSON keys by hand, and hostile user IDs come out
# as the escaping policy says (docs/design.md, "JSON"): invalid UTF-8
# bytes as U+FFFD, controls, C1 and bidi characters as \u escapes, never
# raw, while a parser reads the user ID's own characters back.  The
# --json error object is merged into a command's report.
. "$(dirname "$0")/test-lib.sh"

test_begin T037-json-library
PY=/usr/bin/python3
fx=$TOP/tests/keyrings

# ---- the library -------------------------------------------------------------
if ldd "$KSP_BIN" | grep -q 'libjansson\.so'; then
	_test_pass "ksp links libjansson"
else
	_test_fail "ksp does not link libjansson (libjansson-dev; see DEB_PKGS)"
fi
# ksp-gpg prints no JSON: with --as-needed it must not pull jansson in
if ldd "$TOP/ksp-gpg" | grep -q 'libjansson\.so'; then
	_test_fail "ksp-gpg links libjansson though it prints no JSON"
else
	_test_pass "ksp-gpg does not link libjansson"
fi
n=$(grep -lE '\\"[a-z_]+\\":' "$TOP"/src/cli/*.c | wc -l)
if [ "$n" -le 2 ]; then
	_test_pass "CLI files with hand-written JSON keys: $n (at most 2)"
else
	_test_fail "CLI files with hand-written JSON keys: $n: $(grep -lE '\\"[a-z_]+\\":' "$TOP"/src/cli/*.c | tr '\n' ' ')"
fi

# ---- hostile user IDs ------------------------------------------------------
db=$TEST_TMP/h.db
expect_code 0 $KSP -d "$db" wot load "$fx/hostile/uids.pgp" "$fx/dave-escape.asc"
H=5E6D07A8E8D6CFB6B7E45A03DE04756E8E5AE129 # hostile/uids.pgp
D=270CE743F37F7ECE262C2BBB28E8604DF26C4311 # dave-escape.asc
bad=$'Bad \xff\xfe \xc3( \xed\xa0\x80 \xc0\xaf \xc2\x9b31m INSECURE <bad@example.org>'
# check FILE EXPR WANT MSG: the report parses and eval(EXPR) on it (d) is WANT;
# the text is valid UTF-8 with no raw control, C1, bidi or invisible character
check() {
	if msg=$($PY - "$@" 2>&1 <<'PY'
import json, sys
path, expr, want = sys.argv[1], sys.argv[2], sys.argv[3]
b = open(path, "rb").read()
t = b.decode("utf-8")
bad = set(range(0x20)) - {0x0a} | set(range(0x7f, 0xa0)) | {0xad, 0x061c, 0x200b, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff} \
    | set(range(0x202a, 0x202f)) | set(range(0x2060, 0x2065)) | set(range(0x2066, 0x206a)) | set(range(0xfff9, 0xfffc))
for i, c in enumerate(t):
    if ord(c) in bad:
        sys.exit(f"raw U+{ord(c):04X} at character {i}")
if t.count("\n") != 1 or not t.endswith("\n"):
    sys.exit("not one line")
d = json.loads(t)
got = eval(expr)
if got != json.loads(want):
    sys.exit(f"{expr} is {got!r}, not {want}")
PY
	); then _test_pass "$4"; else _test_fail "$4: $msg"; fi
}
expect_code 0 $KSP -d "$db" --json trust --model sequoia --core-fpr $H --email esc@example.org
check "$OUT" 'd["results"][0]["uid"]' '"Esc \u001b]0;pwned\u0007\u001b[2J\u001b[31mRED\u001b[0m\u0008\u0008 INSECURE <esc@example.org>"' \
	"sequoia --email: terminal escapes round-trip, none raw"
expect_code 0 $KSP -d "$db" --json trust --model sequoia --core-fpr $H --email rtl@example.org
check "$OUT" 'd["results"][0]["uid"]' '"Rtl \u202egro.elpmaxe@live\u202c \u2066iso\u2069 zw\u200bsp INSECURE <rtl@example.org>"' \
	"sequoia --email: bidi and invisible characters round-trip, none raw"
expect_code 0 $KSP -d "$db" --json trust --core-fpr $D --email dave@example.org
check "$OUT" '[d["keys"], d["trusted"], d["results"][0]["uid"]]' '[1, 1, "Dave \u001b[31mRED\u001b[0m \u202e INSECURE <dave@example.org>"]' \
	"paths --email: dave-escape's user ID round-trips"
expect_code 1 $KSP -d "$db" --json trust --model sequoia --core-fpr $H --uid "$bad" $H
check "$OUT" 'd["uid"]' '"Bad \ufffd\ufffd \ufffd( \ufffd\ufffd\ufffd \ufffd\ufffd \u009b31m INSECURE <bad@example.org>"' \
	"sequoia --uid: each invalid UTF-8 byte is U+FFFD, U+009B escaped"
# the text itself: the escapes as ksp writes them (lower-case digits)
if grep -qF '"uid":"Bad \ufffd\ufffd \ufffd( \ufffd\ufffd\ufffd \ufffd\ufffd \u009b31m INSECURE <bad@example.org>"' "$OUT"; then
	_test_pass "invalid bytes written as \\ufffd, C1 as \\u009b"
else
	_test_fail "the bad user ID is not written as expected: $(grep -o '"uid":"[^"]*"' "$OUT" | head -1)"
fi
expect_code 0 $KSP -d "$db" --json trust --core-fpr $D --model sequoia $D
if grep -qF '"uid":"Dave \u001b[31mRED\u001b[0m \u202e INSECURE <dave@example.org>"' "$OUT"; then
	_test_pass "controls and bidi written as \\u escapes"
else
	_test_fail "dave's user ID is not written as expected: $(grep -o '"uid":"[^"]*"' "$OUT" | head -1)"
fi

# ---- the error object, merged into the report --------------------------------
expect_code 2 $KSP -d "$db" --json wot load $'/nonexistent/\xff\e[31m.asc'
check "$OUT" '[d["format_version"], d["files"], d["exit"], d["error"].startswith("/nonexistent/\\xFF\\x1B[31m.asc: cannot read")]' \
	'[1, [], 2, true]' "wot load: the error object inside the report, its file name escaped"
printf '%s\n' $H 'not-a-fingerprint' >"$TEST_TMP/batch"
expect_code 2 $KSP -d "$db" --json trust --core-fpr $H --batch "$TEST_TMP/batch"
check "$OUT" '[d["keys"], len(d["results"]), d["exit"], "not a full fingerprint" in d["error"]]' '[1, 1, 2, true]' \
	"trust --batch: the verdicts so far and the error, one object"
expect_code 2 $KSP -d "$db" --json trust --core-fpr $H 'not-a-fingerprint'
check "$OUT" '[list(d), d["exit"]]' '[["error", "file", "exit"], 2]' "trust: an error alone is one object, keys in order"

test_done
