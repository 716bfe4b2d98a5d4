#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A reload of a keyring of 1,500 keys (issue 38): past its
# first 1,024 blocks the loader reads the store's block digests into memory
# at once (wot-blocks.c) instead of one lookup each.  The keys stored
# already, byte for byte, are skipped just as before (the count -v prints),
# the changed ones loaded, the snapshot what a fresh load of the keyring
# gives; a key checked without verification is not taken for one checked;
# a reload under another name moves the keys' source.
. "$(dirname "$0")/test-lib.sh"

T="$TEST_TMP"
dump="$TOP/tests/tools/wsnap-dump"
gen="$TOP/tests/tools/gen-wot"
for t in "$dump" "$gen"; do
	[ -x "$t" ] || { _test_fail "$t is not built: make tests"; test_done; }
done
command -v sqlite3 >/dev/null || { _test_fail "sqlite3 is missing: apt-get install sqlite3"; test_done; }

test_begin reload-blocks
"$gen" --keys 1500 --seed reload --mean-degree 6 -o "$T/new.gpg" >/dev/null 2>&1 ||
	{ _test_fail "gen-wot"; test_done; }
n=$(python3 "$TOP/tests/tools/keyring-vary.py" "$T/new.gpg" "$T/old.gpg" 2)
expect_eq "$n" 30 "30 of the 1,500 keys changed (2%)"

mkdir -p "$T/d"
cp "$T/old.gpg" "$T/d/ring.gpg"
(cd "$T/d" && $KSP -d "$T/re.db" wot load ring.gpg >/dev/null 2>&1)
cp "$T/new.gpg" "$T/d/ring.gpg"
(cd "$T/d" && expect_code 0 $KSP -v -d "$T/re.db" wot load ring.gpg)
expect_match "$ERR" ': 1470 key\(s\) stored already, byte for byte'
expect_match "$OUT" '1500 keys, [1-9][0-9]* new certifications'
expect_code 0 $KSP -d "$T/fresh.db" wot load "$T/new.gpg"
"$dump" "$T/re.db" | sort >"$T/re.dump" || _test_fail "wsnap-dump re.db"
"$dump" "$T/fresh.db" | sort >"$T/fresh.dump" || _test_fail "wsnap-dump fresh.db"
expect_eq "$(grep -c '^key ' "$T/re.dump")" 1500 "1500 keys in the reloaded snapshot"
cmp -s "$T/re.dump" "$T/fresh.dump" && _test_pass "the reload's snapshot is the fresh load's" ||
	_test_fail "the reload's snapshot differs from the fresh load's: diff $T/re.dump $T/fresh.dump"

# unchanged, under the same name: every key skipped
(cd "$T/d" && expect_code 0 $KSP -v -d "$T/re.db" wot load ring.gpg)
expect_match "$ERR" ': 1500 key\(s\) stored already, byte for byte'

# under another name: every key skipped, and every key's source moves
cp "$T/new.gpg" "$T/d/other.gpg"
(cd "$T/d" && expect_code 0 $KSP -v -d "$T/re.db" wot load other.gpg)
expect_match "$ERR" ': 1500 key\(s\) stored already, byte for byte'
expect_eq "$(sqlite3 -readonly "$T/re.db" "SELECT count(*) FROM keys WHERE source = 'other.gpg'")" 1500 \
	"every key's source is the new name"
expect_eq "$(sqlite3 -readonly "$T/re.db" "SELECT count(*) FROM key_blocks WHERE source = 'other.gpg'")" 1500 \
	"and every key block's"

# blocks stored without verification are no blocks checked: a verified
# load reads and checks them all
expect_code 0 $KSP -d "$T/nv.db" wot load --no-verify "$T/new.gpg"
expect_code 0 $KSP -v -d "$T/nv.db" wot load "$T/new.gpg"
if printf '%s' "$ERR" | grep -q 'stored already, byte for byte'; then
	_test_fail "a block stored unchecked was skipped by a verified load"
else
	_test_pass "a block stored unchecked is read again by a verified load"
fi
expect_match "$ERR" 'signatures checked'
"$dump" "$T/nv.db" | sort >"$T/nv.dump" || _test_fail "wsnap-dump nv.db"
cmp -s "$T/nv.dump" "$T/fresh.dump" && _test_pass "and then it is the fresh verified load's" ||
	_test_fail "the verified reload of an unverified store differs from a fresh load: diff $T/nv.dump $T/fresh.dump"
test_done
