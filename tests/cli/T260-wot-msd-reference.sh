#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# wot stats against a plain reference (tests/tools/msd-reference.py: the
# keyring's packets read in Python, Tarjan, one BFS per strong-set member):
# every key's distance sum, its rank, the MSD, the histogram, the components,
# on synthetic webs of trust with isolated keys, leaves and several
# components (empty rows), strong sets of one and of two 512-source batches.
# Both ways in: the store (its graph from the load's snapshot) and
# --keyring --structural (no store).  A wrong relabelling of the vertices in
# the MSD (wot-msd.c) shows here as wrong per-key sums.
. "$(dirname "$0")/test-lib.sh"
test_begin T260-wot-msd-reference

GEN="$TOP/tests/tools/gen-wot"
REF="$TOP/tests/tools/msd-reference.py"
PY=/usr/bin/python3
if [ ! -x "$GEN" ]; then
	echo "FAIL T260-wot-msd-reference: tests/tools/gen-wot is not built (run make)"
	echo "T260-wot-msd-reference: 0 passed, 1 failed"
	exit 1
fi
if [ ! -x "$PY" ]; then
	echo "FAIL T260-wot-msd-reference: /usr/bin/python3 is missing (apt-get install python3)"
	echo "T260-wot-msd-reference: 0 passed, 1 failed"
	exit 1
fi
AT=2026-01-01

# keys, mean degree: 300 keys give a strong set of one partial batch; 1300
# keys at mean degree 4 one of two batches (512 + the rest), with many
# components and isolated keys; 700 at degree 2, a sparse one with long paths
for spec in "300 6" "1300 4" "700 2"; do
	set -- $spec
	n=$1 d=$2
	ring="$TEST_TMP/k$n.gpg"
	expect_code 0 "$GEN" --keys "$n" --seed "T260-$n" --mean-degree "$d" --quiet -o "$ring"
	expect_code 0 $KSP -d "$TEST_TMP/k$n.db" wot load "$ring"
	expect_code 0 $KSP -d "$TEST_TMP/k$n.db" --json wot stats --at "$AT" --top 100000
	cp "$OUT" "$TEST_TMP/store$n.json"
	expect_code 0 "$PY" "$REF" "$ring" "$TEST_TMP/store$n.json"
	expect_match "$OUT" "^msd-reference: $n keys, .*: all equal$"
	expect_code 0 $KSP --json wot stats --structural --keyring "$ring" --at "$AT" --top 100000
	cp "$OUT" "$TEST_TMP/scan$n.json"
	expect_code 0 "$PY" "$REF" "$ring" "$TEST_TMP/scan$n.json"
	expect_match "$OUT" "^msd-reference: $n keys, .*: all equal$"
done

# the reference itself can fail: one distance sum changed
"$PY" - "$TEST_TMP/store300.json" >"$TEST_TMP/bad.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["top"][-1]["distance_sum"] += 1
json.dump(d, sys.stdout)
PYEOF
expect_code 1 "$PY" "$REF" "$TEST_TMP/k300.gpg" "$TEST_TMP/bad.json"
expect_match "$OUT" "distance sum ksp"

test_done
