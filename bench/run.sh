#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make bench: ksp beside its peers on the same input, in one run; each
# part prints its times and the ratios, between two lines saying how busy
# the machine was (bench/lib.sh: CPUs online, load average).  KSP_BENCH_QUICK=1 skips the large
# synthetic keyrings.  Benchmarks are never part of make check.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"
status=0
for part in party sheet wot reload graph trust health git sigcheck startup; do
	[ -x "$dir/$part.sh" ] || [ -f "$dir/$part.sh" ] || continue
	echo "== $part =="
	echo "machine before $part: $(bench_machine)"
	bash "$dir/$part.sh" || { echo "bench: $part.sh failed" >&2; status=1; }
	echo "machine after $part: $(bench_machine)"
	echo
done
exit $status
