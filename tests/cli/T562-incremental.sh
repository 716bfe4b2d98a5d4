#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Incremental loading (issue 24): keys stored already byte for byte are
# not checked again, and the store is the same as with every key loaded
# in full (--full): an unchanged reload, a reload after an older copy of
# some keys, a reload after a --no-verify load, a reload of the same keys
# from a key tree.
. "$(dirname "$0")/test-lib.sh"

ks="$TOP/tests/data/kernel-sample"
T="$TEST_TMP"

dump() {
	sqlite3 "$1" "SELECT fpr, keyid, version, algo, bits, coalesce(curve, ''), created, expires, revoked,
		coalesce(revoked_reason, ''), selfsig_ok, coalesce(selfsig_hash, ''), hex(keydata), source FROM keys ORDER BY fpr"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), u.is_attr, u.selfsig, u.revoked, u.primary_uid FROM uids u
		JOIN keys k ON k.id = u.key_id ORDER BY 1, 2"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), coalesce(c.issuer_fpr, ''), c.issuer_keyid, c.sig_type, c.hash_algo,
		c.created, c.expires, c.exportable, c.verified, c.digest FROM certs c JOIN uids u ON u.id = c.uid_id
		JOIN keys k ON k.id = u.key_id ORDER BY 1, 2, 11"
	sqlite3 "$1" "SELECT gen > 0 FROM graph_state"
}
same() { # A B MSG
	dump "$T/$1.db" >"$T/$1.dump"
	dump "$T/$2.db" >"$T/$2.dump"
	if cmp -s "$T/$1.dump" "$T/$2.dump"; then _test_pass "$3"; else
		_test_fail "$3"; diff "$T/$1.dump" "$T/$2.dump" | head -5 | cut -c1-200; fi
}

test_begin incremental
python3 "$TOP/tests/tools/keyring-vary.py" "$ks/kernel-sample.gpg" "$T/old.gpg" 10 >/dev/null
ring="$T/ring.gpg"
cp "$ks/kernel-sample.gpg" "$ring"

# an unchanged reload
expect_code 0 $KSP -d "$T/a.db" wot load "$ring"
expect_code 0 $KSP -v -d "$T/a.db" wot load "$ring"
expect_match "$ERR" '60 key\(s\) stored already, byte for byte: not checked again'
expect_match "$ERR" ' 0 signatures checked'
expect_code 0 $KSP -d "$T/b.db" wot load "$ring"
expect_code 0 $KSP -d "$T/b.db" wot load --full "$ring"
same a b "unchanged reload = reload in full"

# an older copy of 6 keys first, then the keyring: only they are checked
expect_code 0 $KSP -d "$T/c.db" wot load "$T/old.gpg"
expect_code 0 $KSP -v -d "$T/c.db" wot load "$ring"
expect_match "$ERR" '54 key\(s\) stored already'
if grep -q ' 0 signatures checked' "$ERR"; then _test_fail "the changed keys were checked"; else _test_pass "the changed keys were checked"; fi
expect_code 0 $KSP -d "$T/d.db" wot load "$T/old.gpg"
expect_code 0 $KSP -d "$T/d.db" wot load --full "$ring"
same c d "a reload with 10% of the keys changed = in full"

# a --no-verify load, then a checking one: everything is checked
expect_code 0 $KSP -d "$T/e.db" wot load --no-verify "$ring"
expect_code 0 $KSP -v -d "$T/e.db" wot load "$ring"
if grep -q 'stored already' "$ERR"; then _test_fail "unchecked keys skipped"; else _test_pass "unchecked keys loaded again"; fi
expect_eq "$(sqlite3 "$T/e.db" 'SELECT count(*) FROM certs WHERE verified = 1')" \
	"$(sqlite3 "$T/a.db" 'SELECT count(*) FROM certs WHERE verified = 1')" "every certification checked"

# the same keys from a key tree: skipped too (the source is the tree's)
mkdir -p "$T/tree/keys"
cp "$ks"/keys/*.asc "$T/tree/keys/"
expect_code 0 $KSP -d "$T/f.db" wot load "$T/tree"
expect_code 0 $KSP -v -d "$T/f.db" wot load "$T/tree"
expect_match "$ERR" '60 key\(s\) stored already'
expect_code 0 $KSP -d "$T/g.db" wot load "$T/tree"
expect_code 0 $KSP -d "$T/g.db" wot load --full "$T/tree"
same f g "a tree reloaded = in full"

test_done
