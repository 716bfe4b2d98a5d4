#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run the libFuzzer targets of fuzz/targets, each for a bounded time:
# min(FUZZ_TIME, FUZZ_BUDGET / number of targets) seconds (defaults 60 and
# 180, so a CI run stays within 3 minutes).  Before fuzzing, each target
# replays fuzz/crashes/NAME/* (inputs that once crashed it: regression
# tests).  The seed corpus is built here from the fixtures named in
# fuzz/targets; the growing corpus stays in fuzz/tmp/corpus/NAME between
# local runs and is never committed.
#
# Usage: fuzz/run.sh [TARGET...]
# Results: fuzz/tmp/fuzz.tsv (read by tests/fault/report.sh); a crash is
# saved in fuzz/tmp/artifacts/NAME/ and fails the run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$top" || exit 2
SK=$top/tests/data
FUZZ_TIME=${FUZZ_TIME:-60}
FUZZ_BUDGET=${FUZZ_BUDGET:-180}
T=$top/fuzz/tmp
mkdir -p "$T" || exit 2
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

names=() seeds=() opts=()
while read -r name rest; do
	case $name in '' | '#'*) continue ;; esac
	if [[ $rest == *' -- '* ]]; then
		seeds+=("${rest%% -- *}") opts+=("${rest#* -- }")
	else
		seeds+=("$rest") opts+=("")
	fi
	names+=("$name")
done <"$top/fuzz/targets"
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${names[@]}")
n=${#want[@]}
per=$FUZZ_TIME
[ $((FUZZ_BUDGET / n)) -lt "$per" ] && per=$((FUZZ_BUDGET / n))
[ "$per" -ge 1 ] || per=1

# seed_corpus DIR SPEC: copy the seed files (and "lines:FILE" entries, one
# seed per line, printf %b escapes) into DIR, named by content
seed_corpus() {
	local dir=$1 spec=$2 f line h
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in $(eval "echo $spec"); do
		if [[ $f == lines:* ]]; then
			while IFS= read -r line; do
				printf '%b' "$line" >"$dir/tmp"
				h=$(sha1sum <"$dir/tmp" | cut -c1-16)
				mv "$dir/tmp" "$dir/$h"
			done <"${f#lines:}"
		elif [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ]; then
			h=$(sha1sum <"$f" | cut -c1-16)
			cp "$f" "$dir/$h"
		fi
	done
}

status=0
: >"$T/fuzz.tsv.new"
printf '# target\tseconds\texecutions\tcorpus\tseeds\tregressions\tcrashes\n' >>"$T/fuzz.tsv.new"
for name in "${want[@]}"; do
	idx=-1
	for i in "${!names[@]}"; do [ "${names[$i]}" = "$name" ] && idx=$i; done
	bin=$top/fuzz/fuzz-$name
	if [ "$idx" -lt 0 ] || [ ! -x "$bin" ]; then
		echo "fuzz: no target $name (fuzz/targets line and fuzz/fuzz-$name, built by make fuzz)" >&2
		status=1
		continue
	fi
	seed_corpus "$T/seeds/$name" "${seeds[$idx]}"
	mkdir -p "$T/corpus/$name" "$T/artifacts/$name"
	dict=()
	[ -f "$top/fuzz/$name.dict" ] && dict=(-dict="$top/fuzz/$name.dict")
	# regression inputs first: each must run clean
	nreg=0
	if [ -d "$top/fuzz/crashes/$name" ] && [ -n "$(ls -A "$top/fuzz/crashes/$name")" ]; then
		nreg=$(ls -A "$top/fuzz/crashes/$name" | wc -l)
		if ! "$bin" "$top/fuzz/crashes/$name"/* >"$T/$name.regress.log" 2>&1; then
			echo "fuzz: $name: a regression input in fuzz/crashes/$name crashes again; see $T/$name.regress.log" >&2
			status=1
		fi
	fi
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$T/artifacts/$name/" "${dict[@]}" ${opts[$idx]} \
		"$T/corpus/$name" "$T/seeds/$name" >"$T/$name.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$name.log" | tail -n 1)
	corpus=$(ls -A "$T/corpus/$name" | wc -l)
	nseeds=$(ls -A "$T/seeds/$name" | wc -l)
	crashes=$(ls -A "$T/artifacts/$name" | wc -l)
	if [ "$rc" != 0 ] || [ "$crashes" != 0 ]; then
		echo "fuzz: $name: exit $rc, $crashes input(s) in $T/artifacts/$name; log: $T/$name.log" >&2
		grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$T/$name.log" >&2
		status=1
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$per" "${execs:-0}" "$corpus" "$nseeds" "$nreg" "$crashes" >>"$T/fuzz.tsv.new"
	printf '  FUZZ    %-12s %4s s %10s executions, corpus %s (from %s seeds), %s crash(es)\n' \
		"$name" "$per" "${execs:-0}" "$corpus" "$nseeds" "$crashes"
done
mv "$T/fuzz.tsv.new" "$T/fuzz.tsv"
exit $status
