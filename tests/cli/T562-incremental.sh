#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Incremental loading (issue 24): key blocks stored already (their SHA-256
# in key_blocks) are neither read nor checked again, and the store after a
# reload is the one a fresh load of the same keyring gives (table dumps,
# the digests included): an unchanged reload, a reload after an older copy
# of 10% of the keys (each one certification short), a key removed
# (--prune), a --no-verify load then a checking one, a key tree.
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
	sqlite3 "$1" "SELECT k.fpr, hex(b.digest), b.checked, b.source FROM key_blocks b JOIN keys k ON k.id = b.key_id ORDER BY 1"
	sqlite3 "$1" "SELECT gen > 0 FROM graph_state"
}
same() { # A B MSG
	dump "$T/$1.db" >"$T/$1.dump"
	dump "$T/$2.db" >"$T/$2.dump"
	if cmp -s "$T/$1.dump" "$T/$2.dump"; then _test_pass "$3"; else
		_test_fail "$3"; diff "$T/$1.dump" "$T/$2.dump" | head -5 | cut -c1-200; fi
}
# load DB FILE [OPTIONS]: FILE's content loaded as $ring (one source name)
ring="$T/ring.gpg"
load() {
	local db=$1 f=$2
	shift 2
	cp "$f" "$ring"
	expect_code 0 $KSP -v -d "$T/$db.db" wot load "$@" "$ring"
}

test_begin incremental
python3 "$TOP/tests/tools/keyring-vary.py" "$ks/kernel-sample.gpg" "$T/old.gpg" 10 >/dev/null
python3 "$TOP/tests/tools/keyring-vary.py" "$ks/kernel-sample.gpg" "$T/less.gpg" 3 x --drop >/dev/null
new="$ks/kernel-sample.gpg"
load fresh "$new"
load fresh-less "$T/less.gpg"

# an unchanged reload: nothing read, checked or written again
load a "$new"
load a "$new"
expect_match "$ERR" '60 key\(s\) stored already, byte for byte: not read nor checked again'
expect_match "$ERR" ' 0 signatures checked'
same a fresh "unchanged reload = fresh load"

# an older copy of 6 keys (a certification short each) first: only they
# are read and checked again
load c "$T/old.gpg"
load c "$new"
expect_match "$ERR" '54 key\(s\) stored already'
if grep -q ' 0 signatures checked' "$ERR"; then _test_fail "the changed keys were checked"; else _test_pass "the changed keys were checked"; fi
same c fresh "10% of the keys with a new certification = fresh load"

# 2 keys removed from the keyring: kept without --prune, removed with it
load r "$new"
load r "$T/less.gpg"
expect_eq "$(sqlite3 "$T/r.db" 'SELECT count(*) FROM keys')" 60 "without --prune, keys are kept"
load r "$T/less.gpg" --prune
expect_match "$ERR" '2 key\(s\) no longer in it removed'
if [ "$(sqlite3 "$T/fresh-less.db" 'SELECT count(*) FROM certs WHERE verified = 4')" -gt \
	"$(sqlite3 "$T/fresh.db" 'SELECT count(*) FROM certs WHERE verified = 4')" ]; then
	_test_pass "the removed keys made certifications"; else _test_fail "the removed keys made no certification"; fi
same r fresh-less "keys removed (--prune) = fresh load"
# and back: the removed keys come again, the certifications they made are good
load r "$new" --prune
same r fresh "keys back = fresh load"

# every key twice (the older copies after): as a fresh load of the same
cat "$new" "$T/old.gpg" >"$T/twice.gpg"
load twice-fresh "$T/twice.gpg"
load twice "$new"
load twice "$T/twice.gpg"
same twice twice-fresh "keys twice in the input = fresh load"

# a --no-verify load, then a checking one: everything is checked
expect_code 0 $KSP -d "$T/e.db" wot load --no-verify "$ring"
expect_code 0 $KSP -v -d "$T/e.db" wot load "$ring"
if grep -q 'stored already' "$ERR"; then _test_fail "unchecked keys skipped"; else _test_pass "unchecked keys loaded again"; fi
expect_eq "$(sqlite3 "$T/e.db" 'SELECT count(*) FROM certs WHERE verified = 1')" \
	"$(sqlite3 "$T/fresh.db" 'SELECT count(*) FROM certs WHERE verified = 1')" "every certification checked"

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
