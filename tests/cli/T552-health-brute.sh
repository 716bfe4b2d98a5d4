#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp health's repair plan against an independent brute force
# (tests/tools/health-brute.py: its own generator of small random webs of
# trust, 8-11 Ed25519 keys, K = 1 or 2, L = 3 or 4, certifications and keys
# expiring before the +90d horizon; its own enumerator of every simple
# path, reading the keyring back through gpg --with-colons):
#  - every key below K now and at +90d is the brute force's;
#  - every repair line's "brings N keys back", read in order, is exact;
#    every extension's "keeps N keys at K" is exact;
#  - no certification of the plan is redundant, the plan repairs every
#    falling key whose own key stays valid;
#  - the plan has at most 1.25 x the fewest certifications (exact search
#    over every signer), "minimal" only when it is the fewest, and the
#    lower bound never above it;
#  - the plan made (the certifications crafted, the keyring loaded again):
#    no key falls but those whose own key expires.
. "$(dirname "$0")/test-lib.sh"
test_begin T552-health-brute
PY=/usr/bin/python3
tool="$TOP/tests/tools/health-brute.py"
command -v gpg >/dev/null || _test_fail "gpg is missing (Debian package gnupg)"
$PY -c 'import cryptography' 2>/dev/null || _test_fail "python3-cryptography is missing (Debian package python3-cryptography)"
plans=0
for seed in $(seq 1 30); do
	d="$TEST_TMP/s$seed"
	$PY "$tool" gen "$seed" "$d" || { _test_fail "seed $seed: the generator failed"; continue; }
	args=$($PY -c 'import json, sys; m = json.load(open(sys.argv[1]))
print(" ".join("--core-fpr " + c for c in m["core"]), "--min-paths", m["K"], "--max-depth", m["L"])' "$d/meta.json")
	$KSP -d "$d/db" wot load "$d/web.gpg" >/dev/null 2>"$d/err" || { _test_fail "seed $seed: wot load: $(cat "$d/err")"; continue; }
	# shellcheck disable=SC2086 # $args: several options
	$KSP -d "$d/db" --json health $args --at 2024-06-01 --repair-at +90d --no-spof >"$d/h.json" 2>"$d/err"
	[ $? -le 1 ] || { _test_fail "seed $seed: health: $(cat "$d/err")"; continue; }
	if $PY "$tool" check "$d" "$d/h.json" >"$d/check" 2>&1; then _test_pass "seed $seed: plan checked"; else
		_test_fail "seed $seed: $(cat "$d/check")"
		continue
	fi
	grep -q ' plan 0 ' "$d/check" || plans=$((plans + 1))
	$KSP -d "$d/db2" wot load "$d/fixed.gpg" >/dev/null 2>"$d/err" || { _test_fail "seed $seed: load the plan: $(cat "$d/err")"; continue; }
	# shellcheck disable=SC2086
	$KSP -d "$d/db2" --json health $args --at 2024-06-01 --repair-at +90d --no-spof --no-repair >"$d/h2.json" 2>"$d/err"
	if $PY "$tool" restored "$d" "$d/h2.json" >"$d/restored" 2>&1; then _test_pass "seed $seed: restored"; else
		_test_fail "seed $seed: $(cat "$d/restored")"
	fi
done
# the generator makes enough falling keys for the check to mean something
[ "$plans" -ge 15 ] && _test_pass "plans checked: $plans" || _test_fail "only $plans webs with a plan"
test_done
