#!/usr/bin/env bash
# ksp trust against a brute force: on the Debian keyring's verified graph
# (tests/data/debian-keyring/edges.design.tsv, at 2023-01-01), for
# random cores, targets, depths L and path counts K, every simple path of at
# most L edges is enumerated in Python and the largest set of paths that
# share no key but the target (each core key starting at most one) is found
# by exhaustive packing.  ksp's verdict and path count must equal it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T505-trust-brute
data="$top/tests/data"
. "$top/tests/cli/debian-ring.sh"
ring=$DEBIAN_RING
edges="$data/debian-keyring/edges.design.tsv"
why=$(debian_ring_missing --exact)
[ -r "$edges" ] || why="$edges missing (part of the repository: git checkout tests/data)"
[ "${KSP_VALGRIND:-0}" = 1 ] && why="too slow under valgrind"
if [ -n "$why" ]; then
	echo "$name: skipped: $why"
	echo "$name: 0 passed, 0 failed"
	exit 0
fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

$KSP -d "$w/d.db" wot load "$ring" >/dev/null 2>"$w/err" && ok || { bad "load: $(cat "$w/err")"; }
python3 - "$edges" "$w/queries" <<'PY'
import sys, random
from collections import defaultdict
edges = defaultdict(set)
for l in open(sys.argv[1]):
    p = l.split()
    if len(p) >= 2 and len(p[0]) == 40:
        edges[p[0]].add(p[1])
nodes = sorted(set(edges) | {v for s in edges.values() for v in s})
rnd = random.Random(20261203)
def paths(core, t, L):
    out = []
    def dfs(path):
        u = path[-1]
        if u == t:
            out.append(tuple(path)); return
        if len(path) - 1 == L:
            return
        for v in edges[u]:
            if v not in path and (v == t or v not in core):
                dfs(path + [v])
    for c in core:
        dfs([c])
    return out
def pack(ps, K):
    ps = sorted(ps, key=len)
    best = [0]
    def rec(i, used, k):
        best[0] = max(best[0], k)
        if k >= K:
            return True
        for j in range(i, len(ps)):
            inner = set(ps[j][:-1])
            if not inner & used and rec(j + 1, used | inner, k + 1):
                return True
        return False
    rec(0, set(), 0)
    return best[0]
with open(sys.argv[2], "w") as f:
    for _ in range(150):
        core = rnd.sample(nodes, rnd.choice([1, 3, 5]))
        t = rnd.choice(nodes)
        if t in core:
            continue
        L = rnd.choice([1, 2, 3]); K = rnd.choice([1, 2, 3])
        found = min(pack(paths(set(core), t, L), K), K)
        f.write("%s %d %d %d %s\n" % (t, L, K, found, ",".join(core)))
PY
[ -s "$w/queries" ] && ok || bad "no queries"
yes=0
while read -r t L K found core; do
	args=()
	for c in ${core//,/ }; do args+=(--core-fpr "$c"); done
	$KSP -d "$w/d.db" --json trust --at 2023-01-01 --max-depth "$L" --min-paths "$K" "${args[@]}" "$t" >"$w/r.json" 2>"$w/err"
	rc=$?
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(min(d["paths_found"], int(sys.argv[2])))' "$w/r.json" "$K" 2>/dev/null)
	want_rc=1; [ "$found" -ge "$K" ] && want_rc=0
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$found" ]; then ok; else bad "trust $t L=$L K=$K core=$core: exit $rc, $got paths; brute force: $found"; fi
	[ "$want_rc" = 0 ] && yes=$((yes + 1))
done < "$w/queries"
# not vacuous: both verdicts occur
[ "$yes" -ge 10 ] && [ "$yes" -le $(( $(wc -l < "$w/queries") - 10 )) ] && ok || bad "only $yes trusted verdicts"
echo "$name: $yes of $(wc -l < "$w/queries") queries trusted"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
