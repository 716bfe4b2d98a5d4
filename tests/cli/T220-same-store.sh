#!/usr/bin/env bash
# The gpgme import path (ksp party add) and the bulk path (ksp wot load)
# give the same store for the same keyring: keys, user IDs and
# certifications with their verification verdicts.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T220-same-store
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'gpgconf --homedir "$w/g" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
mkdir -m 700 "$w/g"
g() { gpg --homedir "$w/g" --batch --quiet --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { gpg --homedir "$w/g" --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }

# four participants; p1 and p3 certify p2, p2 certifies p4
for i in 1 2 3 4; do p[$i]=$(fpr_of "$fx/party/p$i-public.asc"); done
g --import "$fx/party/p1-secret.asc" "$fx/party/p3-secret.asc" "$fx/party/p2-secret.asc" "$fx/party/p4-public.asc" 2>/dev/null
g -u "${p[1]}" --quick-sign-key "${p[2]}" >/dev/null 2>&1
g -u "${p[3]}" --quick-sign-key "${p[2]}" >/dev/null 2>&1
g -u "${p[2]}" --quick-sign-key "${p[4]}" >/dev/null 2>&1
g --export "${p[1]}" "${p[2]}" "${p[3]}" "${p[4]}" > "$w/ring.gpg"
[ -s "$w/ring.gpg" ] && ok || bad "no keyring"

$KSP -d "$w/party.db" party init --name Same --date 2030-01-01 >/dev/null 2>&1
$KSP -d "$w/party.db" party add "$w/ring.gpg" >"$w/out" 2>&1 && ok || bad "party add: $(cat "$w/out")"
$KSP -d "$w/wot.db" wot load "$w/ring.gpg" >"$w/out" 2>&1 && ok || bad "wot load: $(cat "$w/out")"

dump() {
	sqlite3 "$1" "SELECT fpr, keyid, version, algo, bits, coalesce(curve, ''), created, expires, revoked,
		selfsig_ok, coalesce(selfsig_hash, '') FROM keys ORDER BY fpr" > "$2.keys"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), u.is_attr, u.selfsig, u.revoked FROM uids u JOIN keys k ON k.id = u.key_id
		ORDER BY 1, 2" > "$2.uids"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), coalesce(c.issuer_fpr, ''), c.issuer_keyid, c.sig_type, c.hash_algo,
		c.created, c.expires, c.exportable, c.verified, c.digest FROM certs c JOIN uids u ON u.id = c.uid_id
		JOIN keys k ON k.id = u.key_id ORDER BY 1, 2, 11" > "$2.certs"
}
dump "$w/party.db" "$w/a"
dump "$w/wot.db" "$w/b"
for t in keys uids certs; do
	if cmp -s "$w/a.$t" "$w/b.$t"; then ok; else bad "$t differ between party add and wot load"; diff "$w/a.$t" "$w/b.$t" | head -10 >&2; fi
done
[ "$(wc -l < "$w/a.keys")" = 4 ] && ok || bad "not 4 keys"
n=$(wc -l < "$w/a.certs")
[ "$n" -ge 3 ] && ok || bad "only $n certifications"
[ "$(awk -F'|' '$10 != 1' "$w/a.certs" | wc -l)" = 0 ] && ok || bad "a certification is not verified good"
# and the addresses only gpg extracts are there too
[ "$(sqlite3 "$w/party.db" "SELECT count(*) FROM uids WHERE email IS NOT NULL")" -ge 4 ] && ok || bad "no addresses stored"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
