#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/reload.sh: reloads against the first load, measured in one run
# (issue 38), by bench/wot.sh's method (incremental_rows): the first
# verified load of KEYRING into an empty store; a store that holds an
# older copy of 1% of its keys (tests/tools/keyring-vary.py, each one
# certification short) gets KEYRING under the same file name; then the same
# again (unchanged).  Then the graph snapshot built alone from that store
# (tests/tools/wsnap-dump --build --time: in memory, nothing written), and
# from STORE6 when given (a store of 10^6 keys, opened immutable: nothing
# is written beside it, so a shared store can be measured).  CPU = user +
# sys from /usr/bin/time; max resident memory; the machine's load.
#
#   bench/reload.sh [KEYRING [STORE6]]    (default KEYRING: the cached
#                                          10^5-key gen-wot keyring)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
dump="$top/tests/tools/wsnap-dump"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
cache=${KSP_BENCH_CACHE:-$top/bench/cache}
ring=${1:-$cache/wot-n100000-sbench-d10.gpg}
store6=${2:-}
for t in "$ksp" "$dump" /usr/bin/time; do
	[ -x "$t" ] || { echo "bench/reload.sh: $t missing (make all tests; apt-get install time)" >&2; exit 2; }
done
[ -r "$ring" ] || { echo "bench/reload.sh: $ring: no keyring (bench/wot.sh makes it, or give one)" >&2; exit 2; }
w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-reload.XXXXXX") || exit 2
trap 'rm -rf "$w"' EXIT

# run NAME CMD...: times in $w/NAME.time as "wall cpu maxrss_kb"
run() {
	local name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$w/$name.t" "$@" >"$w/$name.out" 2>"$w/$name.err" ||
		{ echo "bench/reload.sh: $name failed:" >&2; tail -3 "$w/$name.err" >&2; exit 1; }
	read -r e u s m <"$w/$name.t"
	echo "$e $(echo "$u + $s" | bc -l) $m" >"$w/$name.time"
}
get() { cut -d' ' -f"$2" "$w/$1.time"; }

echo "load at start: $(cat /proc/loadavg)"
run first "$ksp" -v -d "$w/first.db" wot load "$ring"
rm -f "$w/first.db"*
mkdir -p "$w/cur"
n=$(python3 "$top/tests/tools/keyring-vary.py" "$ring" "$w/cur/keyring.gpg" 1)
(cd "$w" && run old "$ksp" -d "$w/re.db" wot load cur/keyring.gpg)
cp "$ring" "$w/cur/keyring.gpg"
(cd "$w" && run reload1 "$ksp" -v -d "$w/re.db" wot load cur/keyring.gpg)
(cd "$w" && run reload0 "$ksp" -v -d "$w/re.db" wot load cur/keyring.gpg)
run snap "$dump" --build --time "$w/re.db"
f=$(get first 2)
printf '| %s | %s s | %s CPU-s | %s MB | %s |\n' "first verified load" "$(get first 1)" "$f" $(($(get first 3) / 1024)) "100%"
for t in "reload1:reload, $n keys (1%) changed" "reload0:reload, unchanged"; do
	k=${t%%:*}
	printf '| %s | %s s | %s CPU-s | %s MB | %.1f%% |\n' "${t#*:}" "$(get "$k" 1)" "$(get "$k" 2)" \
		$(($(get "$k" 3) / 1024)) "$(echo "100 * $(get "$k" 2) / $f" | bc -l)"
done
printf '| %s | %s s | %s CPU-s | %s MB | %.1f%% |\n' "snapshot build alone" "$(get snap 1)" "$(get snap 2)" \
	$(($(get snap 3) / 1024)) "$(echo "100 * $(get snap 2) / $f" | bc -l)"
if [ -n "$store6" ]; then
	run snap6 "$dump" --build --time "$store6"
	printf '| %s | %s s | %s CPU-s | %s MB | |\n' "snapshot build alone, $store6" "$(get snap6 1)" "$(get snap6 2)" \
		$(($(get snap6 3) / 1024))
fi
echo "load at end: $(cat /proc/loadavg)"
