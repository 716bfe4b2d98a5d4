#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run every tests/cli/T*.sh and sum their "NAME: N passed, N failed" lines.
# The scripts are independent (each works in tests/cli/tmp/SCRIPT and its
# own GnuPG home), so KSP_TEST_JOBS of them (default: the number of CPUs,
# at most 4) run at a time; each one's output is printed whole as soon as
# it ends, followed by one line: name, seconds, counts, skipped parts.  KSP_VALGRIND=1 runs ksp under valgrind;
# KSP_TEST_VERBOSE=1 shows every check; KSP_SKIP="T510-sequoia ..." skips
# those tests in this pass (make check-valgrind skips the long comparison
# tests; ASan runs them).
set -u

dir=$(cd "$(dirname "$0")" && pwd) || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/ksp-cli.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
trap 'rm -rf "$work"; exit 130' INT TERM

jobs=${KSP_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]*) jobs=1 ;; esac
[ "$jobs" -ge 1 ] || jobs=1
[ "$jobs" -le 4 ] || jobs=4

# The tests run Debian's own python3 (/usr/bin/python3, with the python3-*
# packages make deps installs), as a fresh Debian machine has it, even where
# another python3 comes first on PATH (pyenv, a virtualenv): a module only
# that one has must not make a test pass here and fail there.
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$work/bin" && ln -s /usr/bin/python3 "$work/bin/python3" && PATH="$work/bin:$PATH"
	export PATH
fi

tests=()
for t in $(cd "$dir" && ls T*.sh 2>/dev/null | LC_ALL=C sort); do
	case " ${KSP_SKIP:-} " in *" ${t%.sh} "*) echo "${t%.sh}: skipped in this pass (KSP_SKIP)"; continue ;; esac
	tests+=("$t")
done
if [ "${#tests[@]}" -eq 0 ]; then
	echo "FAIL: no tests in $dir"
	exit 1
fi

# one test: its output in $work/T.out, exit status in $work/T.rc, seconds in $work/T.s
run_one() {
	local t=$1 start=$SECONDS rc
	# by its #! line when executable (a test may need bash), else with sh
	if [ -x "$dir/$t" ]; then
		"$dir/$t" >"$work/$t.out" 2>&1 </dev/null
	else
		sh "$dir/$t" >"$work/$t.out" 2>&1 </dev/null
	fi
	rc=$?
	echo $((SECONDS - start)) >"$work/$t.s"
	echo "$rc" >"$work/$t.rc"
}

# the longest tests first (by name: those known to be long, longest first as
# CI's per-test times show them), so that a long one does not end up last on
# one CPU while the other idles
order=()
for t in T210-verify.sh T510-sequoia.sh T505-trust-brute.sh T520-gnupg-model.sh T600-graph.sh T550-health.sh T552-health-brute.sh \
	 T200-wot.sh T410-join.sh T205-wot-scan.sh T710-reliability2.sh T700-reliability.sh T400-sign.sh; do
	for u in "${tests[@]}"; do [ "$u" = "$t" ] && order+=("$t"); done
done
for u in "${tests[@]}"; do
	case " ${order[*]} " in *" $u "*) ;; *) order+=("$u") ;; esac
done

# report one test: its output whole, then one status line (name, seconds,
# counts, and why parts were skipped), as soon as it ends
total_pass=0
total_fail=0
report() {
	local t=$1 rc summary counts p f skips
	cat "$work/$t.out"
	rc=$(cat "$work/$t.rc" 2>/dev/null || echo 99)
	summary=$(grep -aE ': [0-9]+ passed, [0-9]+ failed$' "$work/$t.out" | tail -n 1)
	skips=$(grep -acE '(: |^)(SKIP|skipped|.* skipped: )' "$work/$t.out")
	if [ -z "$summary" ]; then
		echo "FAIL $t: exit status $rc, no summary line"
		printf '%-22s %4s s  FAILED (no summary line)\n' "${t%.sh}" "$(cat "$work/$t.s" 2>/dev/null || echo '?')"
		total_fail=$((total_fail + 1))
		return
	fi
	counts=${summary##*: }
	p=${counts%% passed,*}
	f=${counts#*passed, }
	f=${f%% failed}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $t: exit status $rc although no check failed"
		f=1
	fi
	printf '%-22s %4s s  %s passed, %s failed%s\n' "${t%.sh}" "$(cat "$work/$t.s" 2>/dev/null || echo '?')" "$p" "$f" \
		"$([ "$skips" -gt 0 ] && echo ", $skips part(s) skipped (reason above)")"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
}

echo "cli: ${#tests[@]} tests, $jobs at a time; each reports as it ends"
declare -A pid_of_test=()
running=0
for t in "${order[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done_pid
		report "${pid_of_test[$done_pid]}"
		running=$((running - 1))
	fi
	run_one "$t" &
	pid_of_test[$!]=$t
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n -p done_pid
	report "${pid_of_test[$done_pid]}"
	running=$((running - 1))
done

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
