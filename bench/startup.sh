#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/startup.sh: what starting a ksp process costs, and what libksp's
# modules (src/lib/module.h) save.  Each command runs KSP_BENCH_STARTUP_RUNS
# times (default 200) in a loop; the CPU time per run (user + system, the
# loop's own share included) is given beside the same for /bin/true, and
# "over true" is the difference: what the program itself costs.  The
# reference, measured in the same run: the same ksp with the modules'
# libraries loaded at start (LD_PRELOAD of ksp-render.so and ksp-smtp.so:
# graphviz, cairo, pango, libqrencode, libcurl and what they need, as
# libksp.so.1 linked them before the split).  Writes the table to bench/results-startup.md (the notes
# below its "## " headings are kept).
#
# Environment: KSP_BENCH_STARTUP_RUNS, KSP_BENCH_RESULTS=FILE (- = none).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
machine_start=$(bench_machine)
ksp="$top/ksp"
kspgpg="$top/ksp-gpg"
module="$top/src/lib/ksp/ksp-render.so:$top/src/lib/ksp/ksp-smtp.so"
gen="$top/tests/tools/gen-wot"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
runs=${KSP_BENCH_STARTUP_RUNS:-200}
results=${KSP_BENCH_RESULTS:-$top/bench/results-startup.md}
for t in "$ksp" "$kspgpg" "$top/src/lib/ksp/ksp-render.so" "$top/src/lib/ksp/ksp-smtp.so" "$gen"; do
	[ -e "$t" ] || { echo "bench/startup.sh: $t is not built; run make" >&2; exit 2; }
done
command -v sqlite3 >/dev/null || { echo "bench/startup.sh: sqlite3 is not installed (apt-get install sqlite3)" >&2; exit 2; }
w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-bench-startup.XXXXXX")
trap 'rm -rf "$w"' EXIT
say() { echo "bench/startup.sh: $*" >&2; }

# a small store for the trust query: 1,000 synthetic keys
"$gen" --keys 1000 --seed bench --mean-degree 10 -o "$w/ring.gpg" 2>"$w/gen.log" ||
	{ say "gen-wot failed: $(cat "$w/gen.log")"; exit 2; }
"$ksp" -d "$w/s.db" wot load "$w/ring.gpg" >"$w/load.out" 2>&1 || { say "wot load failed: $(cat "$w/load.out")"; exit 2; }
core=$(sqlite3 "$w/s.db" 'SELECT fpr FROM keys ORDER BY id LIMIT 1')
target=$(sqlite3 "$w/s.db" 'SELECT fpr FROM keys ORDER BY id LIMIT 1 OFFSET 500')

# LABEL PRELOAD CMD...: "wall-ms cpu-ms" per run, over $runs runs
measure() {
	local label=$1 pre=$2 TIMEFORMAT='%R %U %S' t i
	shift 2
	LD_PRELOAD=$pre "$@" >/dev/null 2>&1
	t=$( { time for ((i = 0; i < runs; i++)); do LD_PRELOAD=$pre "$@" >/dev/null 2>&1; done; } 2>&1)
	set -- $t
	printf '%s %.2f %.2f\n' "$label" "$(echo "scale=3; 1000 * $1 / $runs" | bc)" \
		"$(echo "scale=3; 1000 * ($2 + $3) / $runs" | bc)" >>"$w/rows"
}
nlibs() { LD_PRELOAD=$1 ldd "$2" 2>/dev/null | grep -c '=> /'; }
say "$runs runs of each command"
measure true "" /bin/true
measure gpg "" "$kspgpg" --ksp-gpg-version
measure version "" "$ksp" --version
measure version-pre "$module" "$ksp" --version
measure trust "" "$ksp" -d "$w/s.db" trust --core-fpr "$core" "$target"
measure trust-pre "$module" "$ksp" -d "$w/s.db" trust --core-fpr "$core" "$target"
machine_end=$(bench_machine)
col() { awk -v l="$1" -v c="$2" '$1 == l { print $c }' "$w/rows"; }
over() { printf %.2f "$(echo "scale=2; $(col "$1" 3) - $(col true 3)" | bc)"; }
ratio() { printf %.2f "$(echo "scale=4; $(over "$1") / $(over "$2")" | bc)"; }

table() {
	echo "| command | shared libraries | wall per run | CPU per run | CPU over /bin/true |"
	echo "|---|---|---|---|---|"
	row() { # LABEL TEXT LIBS
		printf '| %s | %s | %s ms | %s ms | %s ms |\n' "$2" "$3" "$(col "$1" 2)" "$(col "$1" 3)" "$(over "$1")"
	}
	row true '/bin/true' "$(nlibs "" /bin/true)"
	row gpg 'ksp-gpg --ksp-gpg-version (libksp linked in)' "$(nlibs "" "$kspgpg")"
	row version 'ksp --version' "$(nlibs "" "$ksp")"
	row version-pre 'ksp --version, modules preloaded (as before the split)' "$(nlibs "$module" "$ksp")"
	row trust 'ksp trust (1,000-key store)' "$(nlibs "" "$ksp")"
	row trust-pre 'ksp trust, modules preloaded (as before the split)' "$(nlibs "$module" "$ksp")"
	printf '| ratio ksp --version / preloaded | | | | %s |\n' "$(ratio version version-pre)"
	printf '| ratio ksp trust / preloaded | | | | %s |\n' "$(ratio trust trust-pre)"
}
echo "start-up of ksp, $runs runs each"
echo "machine at the start: $machine_start"
echo "machine at the end: $machine_end"
table
if [ "$results" != - ]; then
	notes=
	[ -f "$results" ] && notes=$(sed -n '/^## /,$p' "$results")
	{
		echo "# Start-up: what a ksp process pays before it works"
		echo
		echo "Made by bench/startup.sh on $(date -u +%Y-%m-%d) at $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'),"
		echo "$runs runs of each command.  Machine at the start: $machine_start;"
		echo "at the end: $machine_end (bench/lib.sh)."
		echo
		table
		[ -n "$notes" ] && printf '\n%s\n' "$notes"
	} >"$results"
	say "table written to $results"
fi
