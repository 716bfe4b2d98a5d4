#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp trust --model sequoia against sq-wot (sequoia-wot 0.2.0) LIVE, side
# by side, on every binding (key, user ID) of:
#  - the Arch Linux keyring (roots: the 5 keys of archlinux-trusted, amount
#    360, under faketime at 2023-03-21, and at 2023-01-15): every amount
#    equal;
#  - the kernel sample (root Linus Torvalds, amount 120, now): every amount
#    equal;
#  - a slice of the Debian keyring (the 3 most prolific certifiers, what
#    they certified and what that certified, 60 keys; amount 240, at
#    2023-03-01, after Sequoia's SHA-1 cut-off for self-signatures);
#  - a generated keyring (tests/tools/sqwot-gen.py: SHA-1 bindings,
#    re-dated self-signatures, trust signatures with depths, amounts and a
#    regex, certification, key and user ID revocations, expiries, lapsed
#    and renewed keys, a non-UTF-8 user ID...; two roots), asked either side
#    of that cut-off (2023-01-15, 2023-03-21): every amount equal.
# Fails on any binding where ksp's amount is more than sq-wot's, listing
# each (tests/tools/sqwot-compare.py), and prints the equal / less counts.
# sq-wot, faketime, sqlite3, python3-cryptography and debian-keyring are
# Debian packages (make deps); a missing one fails the test, named.
. "$(dirname "$0")/test-lib.sh"
test_begin T517-sequoia-live

PY=/usr/bin/python3
tools="$TOP/tests/tools"
missing=""
command -v sq-wot >/dev/null 2>&1 || missing="$missing sq-wot"
command -v faketime >/dev/null 2>&1 || missing="$missing faketime"
command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
[ -x "$PY" ] && "$PY" -c 'import cryptography' 2>/dev/null || missing="$missing python3-cryptography"
debring=/usr/share/keyrings/debian-keyring.gpg
[ -r "$debring" ] || missing="$missing debian-keyring"
if [ -n "$missing" ]; then
	_test_fail "missing Debian package(s):$missing (apt-get install$missing, or make deps)"
	test_done
fi
# faketime must really move sq-wot's clock (a preload that does not take
# would compare at today's date)
expect_eq "$(TZ=UTC faketime '2023-03-21 00:00:00' date -u +%F)" 2023-03-21 "faketime sets the date"

# compare LABEL KEYRING AMOUNT DATE ALL_EQUAL ROOT...: load, compare, check
compare() {
	local label=$1 ring=$2 amount=$3 at=$4 all_equal=$5 db="$TEST_TMP/$1.db"
	shift 5
	local args=()
	for r in "$@"; do args+=(--root "$r"); done
	if [ ! -f "$db" ] && ! $KSP -d "$db" wot load "$ring" >"$TEST_TMP/load.out" 2>&1; then
		_test_fail "$label: wot load $ring"
		sed 's/^/    /' "$TEST_TMP/load.out" | head -5
		return
	fi
	"$PY" "$tools/sqwot-compare.py" --ksp "$KSP_BIN" --db "$db" --keyring "$ring" "${args[@]}" \
		--amount "$amount" --at "$at" --label "$label" >"$TEST_TMP/cmp.out" 2>&1
	local rc=$?
	head -1 "$TEST_TMP/cmp.out"
	if [ $rc -eq 0 ]; then
		_test_pass "$label: ksp never more than sq-wot"
	else
		_test_fail "$label: ksp more trusting than sq-wot (or a tool failed, exit $rc)"
		sed -n '2,40p' "$TEST_TMP/cmp.out"
	fi
	# the comparison is not empty, and where asked every amount is equal
	local line n eq
	line=$(head -1 "$TEST_TMP/cmp.out")
	n=$(sed -n 's/.* of \([0-9]*\) bindings$/\1/p' <<<"$line")
	eq=$(sed -n 's/^[^:]*: \([0-9]*\) equal,.*/\1/p' <<<"$line")
	if [ -n "$n" ] && [ "$n" -gt 0 ]; then _test_pass "$label: $n bindings"; else _test_fail "$label: no bindings compared"; fi
	if [ "$all_equal" = yes ]; then
		expect_eq "$eq" "$n" "$label: every amount equal to sq-wot's"
	fi
}

# sq-wot authenticates something in each (else equal would say little)
authenticated() { # LABEL KEYRING AMOUNT DATE MIN ROOT...
	local label=$1 ring=$2 amount=$3 at=$4 min=$5
	shift 5
	local args=()
	for r in "$@"; do args+=(-r "$r"); done
	local n
	n=$(TZ=UTC faketime "$at 00:00:00" sq-wot -k "$ring" "${args[@]}" list -a "$amount" 2>/dev/null | grep -c '^\[')
	if [ "$n" -ge "$min" ]; then _test_pass "$label: sq-wot lists $n"; else _test_fail "$label: sq-wot lists only $n bindings (want >= $min)"; fi
}

# --- the Arch Linux keyring ----------------------------------------------------
arch="$TOP/tests/data/archlinux"
mapfile -t aroots < <(cut -d: -f1 "$arch/archlinux-trusted")
compare arch "$arch/archlinux.gpg" 360 2023-03-21 yes "${aroots[@]}"
authenticated arch "$arch/archlinux.gpg" 360 2023-03-21 90 "${aroots[@]}"
# before the SHA-1 cut-off: SHA-1 bindings, direct-key self-signatures and
# DSA-1024 keys (refused by Sequoia's policy since 2014) decide
compare arch "$arch/archlinux.gpg" 360 2023-01-15 yes "${aroots[@]}"

# --- the kernel sample, now ------------------------------------------------------
compare kernel "$TOP/tests/data/kernel-sample/kernel-sample.gpg" 120 now yes ABAF11C65A2970B130ABE3C479BE3E4300411886

# --- a slice of the Debian keyring ------------------------------------------------
if mapfile -t droots < <("$PY" "$tools/sqwot-slice.py" "$debring" "$TEST_TMP/debian-slice.gpg" 3 60) &&
	[ "${#droots[@]}" = 3 ]; then
	_test_pass "debian slice made"
	compare debian-slice "$TEST_TMP/debian-slice.gpg" 240 2023-03-01 no "${droots[@]}"
	authenticated debian-slice "$TEST_TMP/debian-slice.gpg" 240 2023-03-01 50 "${droots[@]}"
else
	_test_fail "debian slice: sqwot-slice.py failed on $debring"
fi

# --- a generated keyring, either side of 2023-02-01 ---------------------------------
if mapfile -t groots < <("$PY" "$tools/sqwot-gen.py" "$TEST_TMP/gen.pgp") && [ "${#groots[@]}" = 2 ]; then
	_test_pass "generated keyring made"
	for at in 2023-01-15 2023-03-21; do
		compare generated "$TEST_TMP/gen.pgp" 120 $at yes "${groots[@]}"
		# what the cases are for, as sq-wot says (a check of the test)
		authenticated "generated $at" "$TEST_TMP/gen.pgp" 1 $at 10 "${groots[@]}"
	done
	# the SHA-1 binding is authenticated before the cut-off, not after
	for at in 2023-01-15 2023-03-21; do
		n=$(TZ=UTC faketime "$at 00:00:00" sq-wot -k "$TEST_TMP/gen.pgp" -r "${groots[0]}" list -a 1 2>/dev/null | grep '^\[' | grep -c 'sha1bind@')
		expect_eq "$n" "$([ $at = 2023-01-15 ] && echo 1 || echo 0)" "generated: sq-wot on the SHA-1 binding at $at"
	done
else
	_test_fail "generated keyring: sqwot-gen.py failed"
fi

test_done
