#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The graph snapshot after a reload (issue 38) says what the snapshot of a
# fresh load of the same keyring says: every key, user ID, certification,
# edge and out of the two, by fingerprint and text (tests/tools/wsnap-dump,
# sorted: the stores' row ids differ), and every trust answer.  The keyring
# is made LIVE with gpg, then changed: certifications added, one revoked,
# a new key, a key removed (--prune), a user ID added and one revoked, a
# key's expiry set, a key revoked.  A reload adds certifications behind
# those already stored (their ids come last), which the snapshot builder
# must put back with their user IDs.  The snapshot the reload wrote is
# also compared with one built again from the same store.
. "$(dirname "$0")/test-lib.sh"

T="$TEST_TMP"
dump="$TOP/tests/tools/wsnap-dump"
command -v gpg >/dev/null || { _test_fail "gpg is missing: apt-get install gnupg"; test_done; }
[ -x "$dump" ] || { _test_fail "$dump is not built: make tests"; test_done; }

g() { gpg --batch --yes --quiet --pinentry-mode loopback --passphrase '' "$@" 2>>"$T/gpg.log"; }
fpr() { gpg --with-colons -k "$1" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }
sign() { g --default-key "$1" --quick-sign-key "$2"; } # SIGNER KEY
export_all() { gpg --export >"$1"; }

test_begin snap-reload
for k in a b c d e; do
	g --quick-gen-key "User $k <$k@example.org>" ed25519 sign never
done
A=$(fpr a@example.org) B=$(fpr b@example.org) C=$(fpr c@example.org) D=$(fpr d@example.org) E=$(fpr e@example.org)
sign "$A" "$B"
sign "$B" "$C"
sign "$C" "$D"
sign "$D" "$A"
sign "$B" "$E"
export_all "$T/ring1.gpg"
# (a store keeps every self-signature it was given, and gpg drops A's
# when its expiry is set: the fresh load is given A's older copy too)
gpg --export "$A" >"$T/a-old.gpg"

# the changes
sign "$D" "$E"
sign "$A" "$D"
sign "$E" "$C"
g --quick-revoke-sig "$B" "$A"
g --quick-gen-key "User f <f@example.org>" ed25519 sign never
F=$(fpr f@example.org)
sign "$E" "$F"
sign "$F" "$B"
g --quick-add-uid "$B" "User b2 <b2@example.org>"
sign "$A" "$B"
g --quick-add-uid "$D" "User d2 <d2@example.org>"
g --quick-revoke-uid "$D" "User d <d@example.org>"
g --quick-set-expire "$A" 3y
sed 's/^:-----/-----/' "$GNUPGHOME/openpgp-revocs.d/$E.rev" >"$T/e-rev.asc"
g --import "$T/e-rev.asc"
g --delete-secret-and-public-key "$C"
export_all "$T/ring2.gpg"
expect_eq "$(gpg --with-colons -k | grep -c '^pub')" 5 "gpg made the second keyring (5 keys)"

# a store that had ring 1 gets ring 2 under the same name; another gets
# ring 2 in one load (after A's older copy), its certifications in user
# ID order
cp "$T/ring1.gpg" "$T/ring.gpg"
expect_code 0 $KSP -d "$T/re.db" wot load "$T/ring.gpg"
cp "$T/ring2.gpg" "$T/ring.gpg"
expect_code 0 $KSP -v -d "$T/re.db" wot load --prune "$T/ring.gpg"
expect_match "$ERR" '1 key\(s\) no longer in it removed'
cat "$T/a-old.gpg" "$T/ring2.gpg" >"$T/both.gpg"
expect_code 0 $KSP -d "$T/fresh.db" wot load "$T/both.gpg"
[ -s "$T/re.db-wot" ] && _test_pass "the reload wrote its snapshot" || _test_fail "the reload wrote no snapshot"

"$dump" "$T/re.db" | sort >"$T/re.dump" || _test_fail "wsnap-dump re.db"
"$dump" "$T/fresh.db" | sort >"$T/fresh.dump" || _test_fail "wsnap-dump fresh.db"
"$dump" --build "$T/re.db" | sort >"$T/re-build.dump" || _test_fail "wsnap-dump --build re.db"
# the changes are in it (so that the comparisons below can fail)
expect_eq "$(grep -c '^key ' "$T/re.dump")" 5 "5 keys in the reloaded snapshot"
expect_eq "$(grep -c "^bind $B " "$T/re.dump")" 2 "B's new user ID is there"
if grep -q "^edge $E " "$T/re.dump"; then _test_fail "the revoked key E still certifies"; else _test_pass "the revoked key E certifies nothing"; fi
if grep -q "^edge $D $E" "$T/fresh.dump" || grep -q "^cert $E [0-9a-f]* by $D " "$T/fresh.dump"; then
	_test_pass "D's new certification of E is stored"; else _test_fail "D's new certification of E is missing"; fi
if cmp -s "$T/re.dump" "$T/fresh.dump"; then _test_pass "reloaded snapshot = fresh load's"; else
	_test_fail "reloaded snapshot = fresh load's"; diff "$T/re.dump" "$T/fresh.dump" | head -8 | cut -c1-220; fi
if cmp -s "$T/re.dump" "$T/re-build.dump"; then _test_pass "the reload's snapshot file = one built again"; else
	_test_fail "the reload's snapshot file = one built again"; diff "$T/re.dump" "$T/re-build.dump" | head -8 | cut -c1-220; fi

# every trust answer, each key from each, with every model
same=0 total=0
for core in "$A" "$B" "$D" "$E" "$F"; do
	for k in "$A" "$B" "$D" "$E" "$F"; do
		for model in "" "--model sequoia" "--model gnupg"; do
			$KSP -d "$T/re.db" trust $model --core-fpr "$core" "$k" >"$T/t1" 2>&1
			c1=$?
			$KSP -d "$T/fresh.db" trust $model --core-fpr "$core" "$k" >"$T/t2" 2>&1
			c2=$?
			total=$((total + 1))
			[ $c1 = $c2 ] && cmp -s "$T/t1" "$T/t2" && same=$((same + 1))
		done
	done
done
expect_eq "$same" "$total" "every trust answer of the reloaded store = the fresh load's ($total queries)"
# one reference time for both (the JSON says it; "now" in two processes
# may be two seconds apart on a slow run, as under ASan)
at=$(date -u -d tomorrow +%Y-%m-%d)
$KSP -d "$T/re.db" --json wot stats --at "$at" >"$T/s1" 2>&1
$KSP -d "$T/fresh.db" --json wot stats --at "$at" >"$T/s2" 2>&1
grep -q '"edges":[1-9]' "$T/s1" && _test_pass "wot stats at $at: the web has edges" || _test_fail "wot stats at $at: no edges ($(head -c 300 "$T/s1"))"
if cmp -s "$T/s1" "$T/s2"; then _test_pass "wot stats: reloaded = fresh"; else _test_fail "wot stats: reloaded = fresh"; fi

gpgconf --kill all >/dev/null 2>&1
test_done
