#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make bench: ksp beside its peers on the same input, in one run; each
# part prints its times and the ratios.  KSP_BENCH_QUICK=1 skips the large
# synthetic keyrings.  Benchmarks are never part of make check.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
status=0
for part in party sheet wot graph trust health git sigcheck; do
	[ -x "$dir/$part.sh" ] || [ -f "$dir/$part.sh" ] || continue
	echo "== $part =="
	bash "$dir/$part.sh" || { echo "bench: $part.sh failed" >&2; status=1; }
	echo
done
exit $status
