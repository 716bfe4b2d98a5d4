#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run unit test binaries and sum their "N passed, N failed" lines.
# Usage: tests/unit/run.sh TEST...     (KSP_VALGRIND=1: under valgrind)
# The tests run KSP_UNIT_JOBS at a time (default: the number of CPUs; each
# test makes its own temporary directory); results are reported in the
# order given.
set -u

if [ $# -eq 0 ]; then
	echo "usage: $0 TEST..." >&2
	exit 2
fi

jobs_max=${KSP_UNIT_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs_max" -ge 1 ] 2>/dev/null || jobs_max=1
dir=$(mktemp -d "${TMPDIR:-/tmp}/ksp-unit.XXXXXX") || exit 2
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

run_one() {
	local i=$1 bin=$2 rc
	if [ "${KSP_VALGRIND:-0}" = 1 ]; then
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
			--error-exitcode=99 "$bin" >"$dir/$i.out" 2>&1
	else
		"$bin" >"$dir/$i.out" 2>&1
	fi
	rc=$?
	echo "$rc" >"$dir/$i.rc"
}

i=0
for t in "$@"; do
	i=$((i + 1))
	case $t in
	*/*) bin=$t ;;
	*) bin=./$t ;;
	esac
	[ -x "$bin" ] || continue
	run_one "$i" "$bin" &
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n
	done
done
wait

total_pass=0
total_fail=0
i=0
for t in "$@"; do
	i=$((i + 1))
	out=$dir/$i.out
	if [ ! -f "$dir/$i.rc" ]; then
		echo "unit: $t: not found or not executable" >&2
		total_fail=$((total_fail + 1))
		continue
	fi
	rc=$(cat "$dir/$i.rc")
	# show failures (and their messages) in full, passes in brief
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	if [ -z "$summary" ]; then
		cat "$out"
		echo "unit: $t: exit status $rc, no summary line" >&2
		total_fail=$((total_fail + 1))
		continue
	fi
	p=${summary%% passed,*}
	f=${summary#*passed, }
	f=${f%% failed}
	if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
		grep -av '^PASS ' "$out"
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		# e.g. a valgrind error in the harness itself
		echo "unit: $t: exit status $rc although no test failed" >&2
		f=1
	fi
	echo "$t: $p passed, $f failed"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
done

echo "unit: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
