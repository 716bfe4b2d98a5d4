#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/health-compare.sh: an earlier build of ksp against this one on the
# same stores: the full `ksp health` report (--json, and the table for
# people with --all) compared byte for byte, and both timed (wall clock,
# CPU = user + sys), run one after the other.
#
# Usage: bench/health-compare.sh OLD-KSP OLD-LIBDIR
#   OLD-KSP: the earlier ksp binary; OLD-LIBDIR: the directory of its
#   libksp.so.1 (e.g. a copy of an earlier checkout's src/lib).
# Keyrings: the kernel.org sample, the Debian keyring (debian-keyring
# package), the Arch Linux keyring (tests/data), the gen-wot 10^4 keyring
# (cached in bench/cache/, as bench/health.sh caches it); K = 1 and 2, and
# at K = 1 also --no-sha1 and --per-uid --max-depth 3.  KSP_BENCH_N5=1 adds
# the 10^5 keyring at K = 1 (minutes).  Prints a markdown table; exit 1
# when any output differs.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?usage: bench/health-compare.sh OLD-KSP OLD-LIBDIR}
oldlib=${2:?usage: bench/health-compare.sh OLD-KSP OLD-LIBDIR}
new="$top/ksp"
newlib="$top/src/lib"
gen="$top/tests/tools/gen-wot"
cache=${KSP_BENCH_CACHE:-$top/bench/cache}
export LC_ALL=C
for t in "$old" "$new" "$gen" sqlite3 /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench/health-compare.sh: $t missing (make; apt-get install sqlite3)" >&2; exit 2; }
done
[ -r "$oldlib/libksp.so.1" ] || { echo "bench/health-compare.sh: $oldlib/libksp.so.1 missing: give the earlier build's library directory" >&2; exit 2; }
w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-health-compare.XXXXXX")
trap 'rm -rf "$w"' EXIT
trap 'rm -rf "$w"; exit 130' INT TERM
mkdir -p "$cache"
differ=0

echo "| keyring | options | old: wall, CPU | new: wall, CPU | --json | table |"
echo "|---|---|---:|---:|---|---|"
# one NAME DB AT CORE OPTIONS...: both builds, both outputs
one() {
	local name=$1 db=$2 at=$3 core=$4 tag
	shift 4
	local cells=""
	for side in old new; do
		local bin=$new lib=$newlib
		[ $side = old ] && { bin=$old; lib=$oldlib; }
		LD_LIBRARY_PATH="$lib" /usr/bin/time -f "%e %U %S" -o "$w/$side.time" \
			"$bin" -d "$db" --json health --core "$core" --at "$at" "$@" >"$w/$side.json" 2>"$w/$side.err"
		[ $? -gt 1 ] && { echo "bench/health-compare.sh: $side $name $*: $(cat "$w/$side.err")" >&2; exit 2; }
		LD_LIBRARY_PATH="$lib" "$bin" -d "$db" health --all --core "$core" --at "$at" "$@" >"$w/$side.txt" 2>&1
		cells="$cells | $(tail -1 "$w/$side.time" | awk '{ printf "%.2f s, %.2f s", $1, $2 + $3 }')"
	done
	tag="identical"
	cmp -s "$w/old.json" "$w/new.json" || { tag="**differs**"; differ=1; }
	cells="$cells | $tag"
	tag="identical"
	cmp -s "$w/old.txt" "$w/new.txt" || { tag="**differs**"; differ=1; }
	echo "| $name | $* $cells | $tag |"
}
# all NAME DB AT CORE: the option sets
all() {
	one "$@" --min-paths 1
	one "$@" --min-paths 2
	one "$@" --min-paths 1 --no-sha1
	one "$@" --min-paths 1 --per-uid --max-depth 3
}

export LD_LIBRARY_PATH="$newlib"
"$new" -q -d "$w/k.db" wot load "$top/tests/data/kernel-sample/kernel-sample.gpg" >/dev/null || exit 2
sqlite3 "$w/k.db" "SELECT fpr FROM keys WHERE fpr LIKE '%79BE3E4300411886'" >"$w/k.core"
"$new" -q -d "$w/k.db" trust --core "$w/k.core" "$(cat "$w/k.core")" >/dev/null 2>&1
all "kernel sample" "$w/k.db" 2026-12-01 "$w/k.core"

"$new" -q -d "$w/a.db" wot load "$top/tests/data/archlinux/archlinux.gpg" >/dev/null || exit 2
cut -d: -f1 "$top/tests/data/archlinux/archlinux-trusted" >"$w/a.core"
"$new" -q -d "$w/a.db" trust --core "$w/a.core" "$(head -1 "$w/a.core")" >/dev/null 2>&1
all "Arch Linux keyring" "$w/a.db" 2026-12-01 "$w/a.core"

deb=/usr/share/keyrings/debian-keyring.gpg
if [ -r "$deb" ]; then
	"$new" -q -d "$w/d.db" wot load "$deb" >/dev/null || exit 2
	sqlite3 "$w/d.db" "SELECT c.issuer_fpr FROM certs c WHERE c.issuer_fpr IN (SELECT fpr FROM keys)
		GROUP BY c.issuer_fpr ORDER BY count(*) DESC, c.issuer_fpr LIMIT 12" >"$w/d.core"
	"$new" -q -d "$w/d.db" trust --core "$w/d.core" "$(head -1 "$w/d.core")" >/dev/null 2>&1
	all "Debian keyring" "$w/d.db" 2023-01-01 "$w/d.core"
else
	echo "bench/health-compare.sh: $deb missing (apt-get install debian-keyring): skipped" >&2
fi

# gen-wot stores as bench/health.sh and bench/trust.sh make them
synth() {
	local n=$1 ring="$cache/wot-n$1-sbench-d10.gpg" db="$cache/wot-n$1-sbench-d10.db"
	if [ ! -s "$db" ]; then
		[ -s "$ring" ] || "$gen" --keys "$n" --seed bench --mean-degree 10 --quiet -o "$ring" || exit 2
		"$new" -q -d "$db" wot load "$ring" >/dev/null || exit 2
	fi
	sqlite3 "$db" "SELECT k.fpr FROM keys k JOIN (SELECT u.key_id AS id, count(*) AS n FROM uids u
		JOIN certs c ON c.uid_id = u.id WHERE u.key_id <= 20000 GROUP BY u.key_id ORDER BY n DESC, u.key_id
		LIMIT 12) t ON t.id = k.id" >"$w/n$n.core"
	"$new" -q -d "$db" trust --core "$w/n$n.core" "$(head -1 "$w/n$n.core")" >/dev/null 2>&1
}
synth 10000
all "gen-wot 10^4" "$cache/wot-n10000-sbench-d10.db" 2026-12-01 "$w/n10000.core"
if [ "${KSP_BENCH_N5:-0}" = 1 ]; then
	synth 100000
	one "gen-wot 10^5" "$cache/wot-n100000-sbench-d10.db" 2026-12-01 "$w/n100000.core" --min-paths 1
fi
exit $differ
