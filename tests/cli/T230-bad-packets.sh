#!/usr/bin/env bash
# wot load on hostile packet streams: truncated and oversized packets,
# length overflows, unknown versions, 10^5 user IDs on one key.  Each gives
# a warning with the file and offset, the bad key is skipped and counted,
# the rest loads; nothing crashes.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T230-bad-packets
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
gpg --homedir "$w" --batch --quiet --dearmor < "$fx/alice-rsa.asc" > "$w/alice.gpg" 2>/dev/null
gpg --homedir "$w" --batch --quiet --dearmor < "$fx/bob-ed25519.asc" > "$w/bob.gpg" 2>/dev/null
[ -s "$w/alice.gpg" ] && [ -s "$w/bob.gpg" ] && ok || bad "fixtures"

n_uids=100000
[ "${KSP_VALGRIND:-0}" = 1 ] && n_uids=5000
python3 - "$w" "$n_uids" <<'PY'
import sys, struct
w, n_uids = sys.argv[1], int(sys.argv[2])
def pkt(tag, body):  # new-format header
    n = len(body)
    if n < 192: h = bytes([n])
    elif n < 8384: n2 = n - 192; h = bytes([192 + (n2 >> 8), n2 & 0xff])
    else: h = b"\xff" + struct.pack(">I", n)
    return bytes([0xc0 | tag]) + h + body
alice = open(w + "/alice.gpg", "rb").read()
bob = open(w + "/bob.gpg", "rb").read()
cases = {
    # a key packet of version 7, then a good key
    "unknown-version": pkt(6, b"\x07" + b"\x00" * 40) + pkt(13, b"x <x@example.org>") + bob,
    # a packet whose length runs past the end of the file, after a good key
    "oversized": bob + b"\xc6\xff\x7f\xff\xff\xff" + b"\x04" * 100,
    # a four-octet length of 2^32 - 1 in a key (that key is lost), then a good key
    "length-overflow": bob + b"\xc2\xff\xff\xff\xff\xff" + b"\x00" * 8 + alice,
    # old-format header with a length longer than the rest, ending a key
    "truncated-sig": bob + alice + bytes([0x88, 0xf0]) + b"\x04\x10",
    # 10^5 user IDs (unsigned) on one key, then a good key
    "many-uids": bob[: bob.index(b"\xcd") if b"\xcd" in bob[:200] else len(bob)] +
                 b"".join(pkt(13, b"user %d <u%d@example.org>" % (i, i)) for i in range(n_uids)) + alice,
    # zero-length and one-byte packets everywhere
    "tiny": pkt(6, b"") + pkt(2, b"\x04") + pkt(13, b"") + alice,
}
for name, data in cases.items():
    open("%s/%s.gpg" % (w, name), "wb").write(data)
PY
load() { # NAME -> exit status in $rc, stdout/err in files
	$KSP -d "$w/$1.db" wot load "$w/$1.gpg" >"$w/$1.out" 2>"$w/$1.err"; rc=$?
}
for c in unknown-version oversized length-overflow truncated-sig tiny; do
	load "$c"
	[ "$rc" = 0 ] && ok || bad "$c: exit $rc: $(cat "$w/$c.err")"
	grep -q "malformed key.* skipped\|0 malformed" "$w/$c.out" && ok || bad "$c: no summary: $(cat "$w/$c.out")"
	keys=$(sqlite3 "$w/$c.db" "SELECT count(*) FROM keys" 2>/dev/null)
	[ "${keys:-0}" -ge 1 ] && ok || bad "$c: the good key did not load"
	[ "$(sqlite3 "$w/$c.db" "PRAGMA integrity_check")" = ok ] && ok || bad "$c: store damaged"
done
for c in unknown-version truncated-sig; do
	grep -q "offset [0-9]" "$w/$c.err" && ok || bad "$c: no offset in the warning: $(cat "$w/$c.err")"
	[ "$(wc -l < "$w/$c.err")" = 1 ] && ok || bad "$c: not one warning line: $(cat "$w/$c.err")"
done
# with -v every problem is listed with its offset
$KSP -d "$w/v.db" -v wot load "$w/unknown-version.gpg" >/dev/null 2>"$w/v.err"
grep -q "offset 0" "$w/v.err" && ok || bad "-v: no per-problem offset: $(cat "$w/v.err")"
# 10^5 user IDs on one key: all stored, in one piece
load many-uids
[ "$rc" = 0 ] && ok || bad "many-uids: exit $rc: $(cat "$w/many-uids.err")"
got=$(sqlite3 "$w/many-uids.db" "SELECT max(c) FROM (SELECT count(*) AS c FROM uids GROUP BY key_id)")
[ "${got:-0}" -ge "$n_uids" ] && ok || bad "many-uids: $got user IDs on the biggest key, want $n_uids"
[ "$(sqlite3 "$w/many-uids.db" "SELECT count(*) FROM keys")" = 2 ] && ok || bad "many-uids: not 2 keys"
# --strict refuses each malformed file, storing nothing
for c in unknown-version truncated-sig; do
	$KSP -d "$w/s-$c.db" wot load --strict "$w/$c.gpg" >/dev/null 2>"$w/err"; rc=$?
	[ "$rc" = 2 ] && ok || bad "--strict $c: exit $rc"
	n=$(sqlite3 "$w/s-$c.db" "SELECT count(*) FROM keys" 2>/dev/null || echo 0)
	[ "${n:-0}" = 0 ] && ok || bad "--strict $c: $n keys stored"
done
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
