#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/trust.sh: ksp trust on large synthetic webs of trust (tests/tools/
# gen-wot, 10^5 and 10^6 keys, stores cached in bench/cache/), beside
# sq-wot on the same keyring; prints a table and writes it to
# bench/results-trust.md.
#
#   per size    the store load (verified), the graph snapshot build, one
#               query per process (cold process, warm page cache) with 12
#               core keys (the most certified), K=1 L=5 and K=3 L=5, and
#               1000 queries in one process (--batch)
#   sequoia     --model sequoia beside the paths model (K=1 L=5) on the
#               same 20 targets, CPU time (user + system) of the 20
#               processes in total: the plain model (the generated certifications are
#               plain: only direct ones from the roots count) and the
#               certification-network mode (every certification an
#               introducer: the backward search reaches the whole graph);
#               the issue's target is within 2x of the paths query
#   peer        sq-wot authenticate (one trust root, plain certifications:
#               sq-wot follows only direct ones, so ksp runs --max-depth 1
#               for the same question) on the 10^4-key keyring
#
# Targets (issue 5): a query on a 10^6-key store < 100 ms, 1000 queries in
# one process < 10 s.
# Environment: KSP_BENCH_QUICK=1 only 10^4 and 10^5 keys;
# KSP_BENCH_TRUST_SIZES="..." to choose; KSP_BENCH_CACHE=DIR;
# KSP_BENCH_TRUST_RESULTS=FILE for the table (- = none).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
gen="$top/tests/tools/gen-wot"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
cache=${KSP_BENCH_CACHE:-$top/bench/cache}
results=${KSP_BENCH_TRUST_RESULTS:-$top/bench/results-trust.md}
if [ -n "${KSP_BENCH_TRUST_SIZES:-}" ]; then
	sizes=$KSP_BENCH_TRUST_SIZES
elif [ "${KSP_BENCH_QUICK:-0}" = 1 ]; then
	sizes="10000 100000"
else
	sizes="10000 100000 1000000"
fi
seed=bench
degree=10
for t in "$ksp" "$gen" sqlite3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench/trust.sh: $t missing (make; apt-get install sqlite3 time)" >&2; exit 2; }
done
have_sq=1
command -v sq-wot >/dev/null || { have_sq=0; echo "bench/trust.sh: sq-wot not installed; its column stays empty" >&2; }
w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-bench-trust.XXXXXX")
trap 'rm -rf "$w"' EXIT
trap 'rm -rf "$w"; exit 130' INT TERM
mkdir -p "$cache"

now() { date +%s.%N; }
# ms START END
ms() { echo "$1 $2" | awk '{ printf "%.1f", ($2 - $1) * 1000 }'; }
# cpu_all TARGETS CMD...: the CPU time (user + system, ms) of CMD TARGET for
# every line of TARGETS, one process each, in total (time(1) counts in 10 ms
# steps: the total of 20 is exact enough, a single query is not)
cpu_all() {
	local f=$1
	shift
	/usr/bin/time -f "%U %S" -o "$w/cpu.time" bash -c 'f=$1; shift; while read -r t; do "$@" "$t" >/dev/null 2>&1; done <"$f"; exit 0' _ "$f" "$@"
	tail -1 "$w/cpu.time" | awk '{ printf "%.0f", ($1 + $2) * 1000 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'; }

declare -A R
rows=()
for n in $sizes; do
	ring="$cache/wot-n$n-s$seed-d$degree.gpg"
	db="$cache/wot-n$n-s$seed-d$degree.db"
	if [ ! -s "$ring" ]; then
		echo "generating $ring ..." >&2
		"$gen" --keys "$n" --seed "$seed" --mean-degree "$degree" --quiet -o "$ring" || exit 2
	fi
	# the store, loaded with verification once and kept (loaded again when
	# the keyring is newer or the store does not open; KSP_BENCH_TRUST_DB_N
	# names an existing store for N keys)
	eval "given=\${KSP_BENCH_TRUST_DB_$n:-}"
	[ -n "$given" ] && db=$given
	if [ ! -s "$db" ] || [ "$ring" -nt "$db" ] ||
		! "$ksp" -q -d "$db" wot key "$(sqlite3 "$db" 'SELECT fpr FROM keys LIMIT 1' 2>/dev/null)" >/dev/null 2>&1; then
		rm -f "$db" "$db"-*
		echo "loading $ring into $db (verified; 10^6 keys take a while) ..." >&2
		/usr/bin/time -f "%e %M" -o "$w/load.time" "$ksp" -q -d "$db" wot load "$ring" >/dev/null || exit 2
		R[$n,load]=$(awk '{ printf "%.0f s, %.0f MB", $1, $2 / 1024 }' "$w/load.time")
	else
		R[$n,load]="(cached)"
	fi
	# 12 core keys: the most certified of the first 20000; 1000 targets
	# spread over the store
	sqlite3 "$db" "SELECT k.fpr FROM keys k JOIN (SELECT u.key_id AS id, count(*) AS n FROM uids u
		JOIN certs c ON c.uid_id = u.id WHERE u.key_id <= 20000 GROUP BY u.key_id ORDER BY n DESC, u.key_id
		LIMIT 12) t ON t.id = k.id" >"$w/core"
	sqlite3 "$db" "SELECT fpr FROM keys ORDER BY (id * 2654435761) % 4294967291 LIMIT 1000" >"$w/targets"
	# the snapshot build, on its own
	rm -f "$db-wot"
	t0=$(now)
	"$ksp" -q -d "$db" trust --core "$w/core" "$(head -1 "$w/targets")" >/dev/null 2>&1
	t1=$(now)
	R[$n,snap]=$(ms "$t0" "$t1")
	R[$n,size]=$(du -m "$db-wot" | cut -f1)
	for pol in "1 5" "3 5"; do
		set -- $pol
		: >"$w/t"
		head -20 "$w/targets" | while read -r fpr; do
			t0=$(now)
			"$ksp" -q -d "$db" trust --core "$w/core" --min-paths "$1" --max-depth "$2" "$fpr" >/dev/null 2>&1
			t1=$(now)
			ms "$t0" "$t1" >>"$w/t"
			echo >>"$w/t"
		done
		R[$n,q$1]=$(median <"$w/t")
		R[$n,qmax$1]=$(sort -g "$w/t" | tail -1)
		t0=$(now)
		"$ksp" -q -d "$db" trust --core "$w/core" --min-paths "$1" --max-depth "$2" --batch "$w/targets" >"$w/batch.out" 2>&1
		t1=$(now)
		R[$n,b$1]=$(ms "$t0" "$t1")
		R[$n,tr$1]=$(grep -c ": trusted" "$w/batch.out")
	done
	# the Sequoia model beside the paths model, side by side per target,
	# CPU time (the machine is shared)
	head -20 "$w/targets" >"$w/t20"
	R[$n,cp]=$(cpu_all "$w/t20" "$ksp" -q -d "$db" trust --core "$w/core" --min-paths 1 --max-depth 5)
	R[$n,cs]=$(cpu_all "$w/t20" "$ksp" -q -d "$db" trust --model sequoia --core "$w/core")
	R[$n,cn]=$(cpu_all "$w/t20" "$ksp" -q -d "$db" trust --model sequoia --certification-network --core "$w/core")
	# the peer, where it can run (it reads the whole keyring per query)
	if [ "$have_sq" = 1 ] && [ "$n" -le 10000 ]; then
		: >"$w/t"
		: >"$w/k"
		root=$(head -1 "$w/core")
		sqlite3 "$db" "SELECT k.fpr, u.uid FROM keys k JOIN uids u ON u.key_id = k.id
			ORDER BY (k.id * 2654435761) % 4294967291 LIMIT 10" | while IFS='|' read -r fpr uid; do
			t0=$(now)
			sq-wot -k "$ring" -r "$root" authenticate "$uid" "$fpr" >/dev/null 2>&1
			t1=$(now)
			ms "$t0" "$t1" >>"$w/t"
			echo >>"$w/t"
			t0=$(now)
			"$ksp" -q -d "$db" trust --core-fpr "$root" --max-depth 1 "$fpr" >/dev/null 2>&1
			t1=$(now)
			ms "$t0" "$t1" >>"$w/k"
			echo >>"$w/k"
		done
		R[$n,sq]=$(median <"$w/t")
		R[$n,ksq]=$(median <"$w/k")
	fi
	rows+=("$n")
done

{
	echo "# ksp trust: benchmark"
	echo
	echo "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
	echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg). Synthetic keyrings from tests/tools/gen-wot"
	echo "(seed $seed, mean degree $degree); 12 core keys (the most certified of the first 20000); wall clock,"
	echo "one process per query (median and worst of 20), page cache warm."
	echo
	echo "| keys | store load | snapshot build (first query) | snapshot MB | query K=1 L=5 median / max ms | query K=3 L=5 median / max ms | 1000 queries --batch K=1 / K=3 ms | trusted of 1000 (K=1 / K=3) |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|"
	for n in "${rows[@]}"; do
		echo "| $n | ${R[$n,load]} | ${R[$n,snap]} | ${R[$n,size]} | ${R[$n,q1]} / ${R[$n,qmax1]} | ${R[$n,q3]} / ${R[$n,qmax3]} | ${R[$n,b1]} / ${R[$n,b3]} | ${R[$n,tr1]} / ${R[$n,tr3]} |"
	done
	echo
	echo "--model sequoia beside the paths model (K=1 L=5), same 20 targets, one process each, CPU ms in total (user + system):"
	echo
	echo "| keys | paths | sequoia | ratio | sequoia --certification-network | ratio |"
	echo "|---:|---:|---:|---:|---:|---:|"
	for n in "${rows[@]}"; do
		echo "| $n | ${R[$n,cp]} | ${R[$n,cs]} | $(echo "${R[$n,cs]} ${R[$n,cp]}" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')x |" \
			"${R[$n,cn]} | $(echo "${R[$n,cn]} ${R[$n,cp]}" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')x |"
	done
	for n in "${rows[@]}"; do
		[ -n "${R[$n,sq]:-}" ] || continue
		echo
		echo "Peer, $n keys, one direct certification from one root (median of 10 queries, ms):"
		echo "sq-wot authenticate ${R[$n,sq]}, ksp trust --max-depth 1 ${R[$n,ksq]}:" \
			"ratio $(echo "${R[$n,sq]} ${R[$n,ksq]}" | awk '{ printf "%.1f", $1 / $2 }')x."
	done
} >"$w/table"
cat "$w/table"
[ "$results" = - ] || cp "$w/table" "$results"
