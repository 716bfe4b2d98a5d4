#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Benchmark: the picture of the Debian keyring's web of trust.
#   ksp:  ksp graph --strong-set -T svg --layout sfdp (in-process graphviz),
#         the strong set at the reference time of tests/data
#         (2023-01-01: 791 keys), every certification inside it
#   peer: gpg --list-sigs | sig2dot | sfdp -Tsvg, as signing-party's
#         sig2dot(1) documents it (every key with a signature; sig2dot asks
#         for splines=true), and the same with straight edges (splines=false,
#         as ksp draws them), which is what the layout itself costs
# Prints the times, the sizes of both pictures and the ratios peer / ksp.
# KSP_BENCH_TIMEOUT (default 900 s) bounds each peer run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ring=/usr/share/keyrings/debian-keyring.gpg
limit=${KSP_BENCH_TIMEOUT:-900}
at=@1672531200 # tests/data/debian-keyring/reference.json
if [ ! -r "$ring" ]; then
	echo "bench: $ring missing; apt-get install debian-keyring" >&2
	exit 2
fi
for t in sig2dot sfdp gpg bc; do
	command -v $t >/dev/null || { echo "bench: $t missing (apt-get install signing-party graphviz gnupg bc)" >&2; exit 2; }
done
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -m 700 "$w/g"
export GNUPGHOME="$w/g"

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
count() { grep -c "class=\"$2\"" "$1" || true; }

"$ksp" -d "$w/d.db" wot load "$ring" >/dev/null
best=""
for _ in 1 2 3; do
	s=$(now)
	"$ksp" -d "$w/d.db" graph --strong-set --at "$at" -T svg --layout sfdp -o "$w/ksp.svg" >/dev/null
	e=$(now)
	d=$(secs "$s" "$e")
	if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
done
t_ksp=$best

# the peer: list, convert, lay out and render (the listing is part of it)
s=$(now)
gpg --no-default-keyring --keyring "$ring" --keyid-format long --list-options no-show-uid-validity \
	--list-sigs >"$w/sigs.txt" 2>/dev/null
m=$(now)
sig2dot -q <"$w/sigs.txt" >"$w/sigs.dot" 2>/dev/null
m2=$(now)
t_list=$(secs "$s" "$m")
t_conv=$(secs "$m" "$m2")
peer() { # OUT DOT -> prints seconds or "timeout"
	local s e
	s=$(now)
	if timeout "$limit" sfdp -Tsvg "$2" >"$1" 2>/dev/null; then
		e=$(now)
		secs "$s" "$e"
	else
		echo timeout
	fi
}
t_sfdp=$(peer "$w/peer.svg" "$w/sigs.dot")
sed 's/^splines=true$/splines=false/' "$w/sigs.dot" >"$w/lines.dot"
t_lines=$(peer "$w/lines.svg" "$w/lines.dot")

printf 'Debian keyring, strong set at 2023-01-01\n'
printf '%-52s %9.2f s  (%s keys, %s edges)\n' "ksp graph --strong-set -T svg --layout sfdp" "$t_ksp" \
	"$(count "$w/ksp.svg" node)" "$(count "$w/ksp.svg" edge)"
ratio() { # PEER_SFDP_SECONDS LABEL
	if [ "$1" = timeout ]; then
		printf '%-52s %9s    (killed after %s s)\n' "$2" "> $limit s" "$limit"
		printf '  ratio peer / ksp: more than %.0fx\n' "$(echo "($t_list + $t_conv + $limit) / $t_ksp" | bc -l)"
	else
		local total
		total=$(echo "$t_list + $t_conv + $1" | bc -l)
		printf '%-52s %9.2f s  (%s keys, %s edges)\n' "$2" "$total" "$(count "$3" node)" "$(count "$3" edge)"
		printf '  ratio peer / ksp: %.1fx\n' "$(echo "$total / $t_ksp" | bc -l)"
	fi
}
ratio "$t_sfdp" "gpg --list-sigs | sig2dot | sfdp -Tsvg" "$w/peer.svg"
ratio "$t_lines" "the same with splines=false (straight edges)" "$w/lines.svg"
printf '  (peer: gpg --list-sigs %.2f s, sig2dot %.2f s of it; sig2dot draws every key\n' "$t_list" "$t_conv"
printf '   with a signature and counts unverified signatures; ksp the verified strong set)\n'
