#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp health: a web of trust whose health is known by hand
# (tests/keyrings/health: a key whose only path goes through a key expiring
# in 20 days, a bridge key, a SHA-1 certification on the only path, a party
# of six whose best pair a brute force finds), and on the kernel sample and
# the Debian keyring every horizon's "below K" compared with 'ksp trust
# --batch --at' for every key.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings/health"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T550-health
data="$top/tests/data"
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2
	shift 2
	"$@" >"$w/out" 2>"$w/err"
	local got=$?
	if [ "$got" = "$want" ]; then ok; else
		bad "$msg: exit $got, want $want"
		sed 's/^/  | /' "$w/out" "$w/err" | head -20 >&2
	fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else
		bad "$3: /$2/ not in $(basename "$1")"
		sed 's/^/  | /' "$1" | head -20 >&2
	fi
}
f() { awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$fx/keys.tsv"; }
# py FILE EXPR: evaluate a Python expression on the JSON document d; names
# maps the fixture's fingerprints to their names, n(fpr) too
py() {
	python3 - "$1" "$2" "$fx/keys.tsv" <<'EOF' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
names = dict(reversed(l.rstrip('\n').split('\t')) for l in open(sys.argv[3]))
n = lambda x: names.get(x, x)
print(eval(sys.argv[2]))
EOF
}
# same_below DB JSON TRUSTARGS...: every horizon's below set is exactly
# what 'ksp trust --batch --at' that time calls not trusted
same_below() {
	local db=$1 json=$2 label at extra
	shift 2
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for h in d["horizons"]: print(h["label"], h["time"])' "$json" >"$w/hz"
	sqlite3 "$db" "SELECT fpr FROM keys" >"$w/all"
	while read -r label at; do
		extra=
		[ "$label" = no-sha1 ] && extra=--no-sha1
		$KSP -d "$db" --json trust "$@" $extra --at "@$at" --batch "$w/all" >"$w/batch.json" 2>"$w/err"
		python3 - "$json" "$w/batch.json" "$label" "$@" <<'EOF' >"$w/cmp" 2>&1
import json, sys
h = json.load(open(sys.argv[1]))
hz = [x for x in h["horizons"] if x["label"] == sys.argv[3]][0]
core = set(a for i, a in enumerate(sys.argv[4:]) if i > 0 and sys.argv[4 + i - 1] == "--core-fpr")
t = json.load(open(sys.argv[2]))["results"]
nt = set(r["fingerprint"] for r in t if not r["trusted"] and r["fingerprint"] not in core)
below = set(hz["below"])
if nt != below:
    print("differ: trust says not trusted only", sorted(nt - below)[:5], "health only", sorted(below - nt)[:5])
else:
    print("same", len(nt))
EOF
		if grep -q '^same' "$w/cmp"; then ok; else bad "$(basename "$db") $label: $(cat "$w/cmp")"; fi
	done <"$w/hz"
}

for k in keys.tsv edges.tsv health.gpg party.gpg; do
	[ -r "$fx/$k" ] && ok || bad "fixture $k missing (tests/keyrings/health/make-health-fixtures.sh)"
done
db="$w/h.db"
expect_code 0 "party init" $KSP -d "$db" party init --name Health --date 2024-06-10
expect_code 0 "party add" $KSP -d "$db" party add "$fx/party.gpg"
expect_code 0 "wot load" $KSP -d "$db" wot load "$fx/health.gpg"
# w certified s1 with SHA-1 in 2024: that counts only with --sha1 yes (the
# default is gpg 2.2's rule, before-2019), which the scenario needs
core="--core-fpr $(f c) --sha1 yes"
at=2024-06-01

# --- the report, as JSON ------------------------------------------------------
expect_code 1 "health: keys fall by +30d" $KSP -d "$db" --json health $core --at $at --repair-at +30d --party \
	--weak --signer "$(f w)"
cp "$w/out" "$w/h.json"
[ "$(py "$w/h.json" '[h["label"] for h in d["horizons"]]')" = "['now', '+30d', '+90d', '+365d', 'no-sha1']" ] &&
	ok || bad "horizon labels: $(py "$w/h.json" '[h["label"] for h in d["horizons"]]')"
[ "$(py "$w/h.json" '[h["at"] for h in d["horizons"]]')" = "['2024-06-01', '2024-07-01', '2024-08-30', '2025-06-01', '2024-06-01']" ] &&
	ok || bad "horizon dates: $(py "$w/h.json" '[h["at"] for h in d["horizons"]]')"
below() { py "$w/h.json" "' '.join(sorted(n(x) for x in [h for h in d['horizons'] if h['label'] == '$1'][0]['below']))"; }
party_below="p3 p4 p5 p6 q1 q2 q3"
[ "$(below now)" = "$party_below" ] && ok || bad "below now: $(below now)"
# x expires on 2024-06-21: x and t (its only path goes through x) fall by +30d
[ "$(below +30d)" = "$party_below t x" ] && ok || bad "below at +30d: $(below +30d)"
[ "$(below +365d)" = "$party_below t x" ] && ok || bad "below at +365d: $(below +365d)"
# w certified s1 with SHA-1: s1 and s2 fall without SHA-1
[ "$(below no-sha1)" = "$party_below s1 s2" ] && ok || bad "below without SHA-1: $(below no-sha1)"
# the reasons: on t's path, x expires; on s2's, w's certification of s1 is weak
why() { py "$w/h.json" "[(b['kind'], n(b['signer']), n(b['signee']), b['date'], b['path']) for h in d['horizons'] if h['label'] == '$1' for k in h['details'] if n(k['fingerprint']) == '$2' for b in k['breaks']]"; }
[ "$(why +30d t)" = "[('key-expires', 'x', 'x', '2024-06-21', 1)]" ] && ok || bad "why t falls: $(why +30d t)"
[ "$(why no-sha1 s2)" = "[('certification-weak-hash', 'w', 's1', '2024-01-02', 1)]" ] && ok ||
	bad "why s2 falls without SHA-1: $(why no-sha1 s2)"
# the repair: one certification, by the core, of t; x's owner extends
[ "$(py "$w/h.json" '[(n(r["signer"]), n(r["target"]), r["repairs"]) for r in d["repair"]]')" = "[('c', 't', 1)]" ] &&
	ok || bad "repair plan: $(py "$w/h.json" 'd["repair"]')"
[ "$(py "$w/h.json" '[(n(r["fingerprint"]), r["expires"], r["repairs"]) for r in d["extend"]]')" = "[('x', '2024-06-21', 2)]" ] &&
	ok || bad "extensions: $(py "$w/h.json" 'd["extend"]')"
# the bridge b is the top single point of failure: 3 keys behind it
[ "$(py "$w/h.json" '(n(d["spof"][0]["fingerprint"]), d["spof"][0]["cuts"], d["spof_exact"])')" = "('b', 3, True)" ] &&
	ok || bad "top single point of failure: $(py "$w/h.json" 'd["spof"][:3]')"
[ "$(py "$w/h.json" '[(n(s["fingerprint"]), s["cuts"]) for s in d["spof"] if s["cuts"]][:2]')" = "[('b', 3), ('w', 2)]" ] &&
	ok || bad "single points of failure: $(py "$w/h.json" 'd["spof"]')"
[ "$(py "$w/h.json" 'n(d["carriers"][0]["fingerprint"]), d["carriers"][0]["paths"]')" = "('b', 3)" ] &&
	ok || bad "top carrier: $(py "$w/h.json" 'd["carriers"][:3]')"
# the signer's weak certifications: w -> s1 (SHA-1) carries s1's and s2's paths
[ "$(py "$w/h.json" '[(n(x["target"]), x["hash"], x["carries"]) for x in d["weak"]]')" = "[('s1', 'SHA-1', 2)]" ] &&
	ok || bad "weak certifications of w: $(py "$w/h.json" 'd["weak"]')"

# --- the party's best pair, by brute force on the certifications made --------
# (edges.tsv, independent of ksp): each pair certifies each other; count the
# keys below K now that a breadth-first search of at most 5 hops from c
# reaches (K = 1; nothing of the party part expires)
python3 - "$fx/keys.tsv" "$fx/edges.tsv" "$w/h.json" <<'EOF' >"$w/brute" 2>&1
import json, sys, itertools
names = dict(reversed(l.rstrip('\n').split('\t')) for l in open(sys.argv[1]))
edges = [l.split('\t')[:2] for l in open(sys.argv[2]).read().splitlines()]
d = json.load(open(sys.argv[3]))
below = set(names[x] for x in d["horizons"][0]["below"])
def reach(extra):
    adj = {}
    for a, b in edges + extra:
        adj.setdefault(a, []).append(b)
    dist, fr = {"c": 0}, ["c"]
    while fr:
        nx = []
        for u in fr:
            for v in adj.get(u, []):
                if v not in dist and dist[u] < 5:
                    dist[v] = dist[u] + 1
                    nx.append(v)
        fr = nx
    return set(dist)
parts = ["p1", "p2", "p3", "p4", "p5", "p6"]
brute = {}
for a, b in itertools.combinations(parts, 2):
    brute[frozenset((a, b))] = len(below & reach([(a, b), (b, a)]))
ksp = {frozenset((names[p["a"]], names[p["b"]])): p["keys"] for p in d["pairs"]}
best = max(brute.values())
top = d["pairs"][0]
print("best", best, "ksp-top", top["keys"], frozenset((names[top["a"]], names[top["b"]])) in
      [k for k, v in brute.items() if v == best], "all-equal", ksp == brute)
EOF
[ "$(cat "$w/brute")" = "best 3 ksp-top 3 True all-equal True" ] && ok || bad "party pairs against the brute force: $(cat "$w/brute")"
# by distance: the fewest certifications from c (6 = L + 1 when farther),
# summed over the keys but c, with and without each pair, by brute force
python3 - "$fx/keys.tsv" "$fx/edges.tsv" "$w/h.json" <<'EOF' >"$w/brute" 2>&1
import json, sys, itertools
names = dict(reversed(l.rstrip('\n').split('\t')) for l in open(sys.argv[1]))
keys = [k for k in names.values() if k != "c"]
edges = [l.split('\t')[:2] for l in open(sys.argv[2]).read().splitlines()]
d = json.load(open(sys.argv[3]))
def dist(extra):
    adj = {}
    for a, b in edges + extra:
        adj.setdefault(a, []).append(b)
    dist, fr = {"c": 0}, ["c"]
    while fr:
        nx = []
        for u in fr:
            for v in adj.get(u, []):
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nx.append(v)
        fr = nx
    return {k: min(dist.get(k, 6), 6) for k in keys}
base = dist([])
brute = {}
for a, b in itertools.combinations(["p1", "p2", "p3", "p4", "p5", "p6"], 2):
    nd = dist([(a, b), (b, a)])
    brute[frozenset((a, b))] = (sum(base[k] - nd[k] for k in keys), sum(nd[k] < base[k] for k in keys))
ksp = [(frozenset((names[p["a"]], names[p["b"]])), (p["hops"], p["keys"])) for p in d["pairs_by_distance"]]
order = [v for k, v in ksp]
print("top", ksp[0][1], "best", max(brute.values()), "sorted", order == sorted(order, reverse=True),
      "all-equal", dict(ksp) == brute, "some", len([v for v in brute.values() if v[0] > 0]))
EOF
[ "$(cat "$w/brute")" = "top (10, 3) best (10, 3) sorted True all-equal True some 8" ] && ok ||
	bad "party pairs by distance against the brute force: $(cat "$w/brute")"

# --- every horizon against ksp trust --batch --at ----------------------------
same_below "$db" "$w/h.json" $core
# K = 2 (c is the only core key: nobody has two paths)
expect_code 0 "health K=2" $KSP -d "$db" --json health $core --at $at --min-paths 2 --no-spof --no-repair
cp "$w/out" "$w/h2.json"
same_below "$db" "$w/h2.json" $core --min-paths 2

# --- the table ------------------------------------------------------------------
expect_code 1 "health table" $KSP -d "$db" health $core --at $at --repair-at +30d --party
sed "$(awk -F'\t' '{printf "s/%s/%s/g;", $2, $1}' "$fx/keys.tsv")" "$w/out" >"$w/table"
expect_grep "$w/table" "^  \+30d +2024-07-01 +9$" "table: below at +30d"
expect_grep "$w/table" "path 1: key x expires on 2024-06-21" "table: the reason"
expect_grep "$w/table" "^  c certifies t: brings 1 key back to K" "table: the repair"
expect_grep "$w/table" "^  x \(expires 2024-06-21\): extending it keeps 2 keys at K" "table: the extension"
expect_grep "$w/table" "^  b cuts 3 " "table: the single point of failure"
expect_grep "$w/table" "^  p[12] <-> p5: 3 keys" "table: the best pair"
expect_grep "$w/table" "^  p1 <-> p5: 10 hops, 3 keys" "table: the best pair by distance"
# nothing falls by +30d with x extended... but not without: exit 0 only when
# no key falls; with SHA-1 the no-sha1 horizon decides
expect_code 1 "repair at no-sha1: s1 and s2 fall" $KSP -d "$db" --json health $core --at $at --repair-at no-sha1
[ "$(py "$w/out" '[(n(r["signer"]), n(r["target"]), r["repairs"]) for r in d["repair"]]')" = "[('w', 's1', 2)]" ] &&
	ok || bad "no-sha1 repair: w certifies s1 again: $(py "$w/out" 'd["repair"]')"
# with x and t in the core, nothing falls by +30d (s1 and s2 only without SHA-1)
expect_code 0 "nothing falls by +30d: exit 0" $KSP -d "$db" health --core-fpr "$(f c)" \
	--core-fpr "$(f x)" --core-fpr "$(f t)" --at $at --repair-at +30d --sha1 yes
# by default (gpg 2.2's SHA-1 rule) w's SHA-1 certification of 2024 never
# counted: s1 and s2 are below K now already, beside those below with it
nowbelow() { py "$w/out" 'sorted(n(x) for x in [h for h in d["horizons"] if h["label"] == "now"][0]["below"])'; }
expect_code 1 "with SHA-1" $KSP -d "$db" --json health $core --at $at --no-spof --no-repair
with=$(nowbelow)
expect_code 1 "default SHA-1 rule" $KSP -d "$db" --json health --core-fpr "$(f c)" --at $at --no-spof --no-repair
without=$(nowbelow)
[ "$(python3 -c 'import sys; print(sorted(set(eval(sys.argv[2])) - set(eval(sys.argv[1]))))' "$with" "$without")" = "['s1', 's2']" ] &&
	ok || bad "default SHA-1 rule: below now $without, with --sha1 yes $with"

# --- party sheet --plan, party status --------------------------------------------
expect_code 0 "party sheet --plan" $KSP -d "$db" party sheet --plan $core --at $at
sed "$(awk -F'\t' '{printf "s/%s/%s/g;", $2, $1}' "$fx/keys.tsv")" "$w/out" >"$w/plan"
[ "$(grep -A1 '^p1 ' "$w/plan" | tail -1)" = "  check p5: 3 keys to K" ] && ok || bad "plan: p1's best check: $(cat "$w/plan")"
[ "$(grep -A1 '^p4 ' "$w/plan" | tail -1)" = "  check p1: 1 key to K" ] && ok || bad "plan: p4's best check: $(cat "$w/plan")"
expect_code 2 "party slips --plan" $KSP -d "$db" party slips --plan
expect_code 2 "party sheet: trust options without --plan" $KSP -d "$db" party sheet $core
# a party on day 0, before every certification (made on day 1): the 14
# keys trusted now all reached K since; only p2's path (c -> p1 -> p2) uses
# a certification between two participants
expect_code 0 "party init (day 0)" $KSP -d "$w/p0.db" party init --name Day0 --date 2024-01-01
expect_code 0 "party add (day 0)" $KSP -d "$w/p0.db" party add "$fx/party.gpg"
expect_code 0 "wot load (day 0)" $KSP -d "$w/p0.db" wot load "$fx/health.gpg"
expect_code 0 "party status with a core" $KSP -d "$w/p0.db" party status --core-fpr "$(f c)" --sha1 yes --at $at
expect_grep "$w/out" "^Trust: 14 keys reached K = 1 path from the core since 2024-01-01, 1 of them through the party's" \
	"party status: keys that reached K"
expect_code 0 "party status with a core, after the party" $KSP -d "$db" party status $core --at $at
expect_grep "$w/out" "^Trust: 0 keys reached K" "party status: nothing since the later party"

# --- errors -------------------------------------------------------------------------
expect_code 2 "no core" $KSP -d "$db" health --at $at
expect_grep "$w/err" "no core keys given" "no core: the message"
expect_code 2 "--weak without --signer" $KSP -d "$db" health $core --weak
expect_code 2 "bad --repair-at" $KSP -d "$db" health $core --repair-at +7d
expect_code 2 "unknown signer" $KSP -d "$db" health $core --weak --signer 0000000000000000000000000000000000000000
expect_grep "$w/err" "not a key of the store" "unknown signer: the message"
expect_code 2 "no store" $KSP -d "$w/none.db" health $core

# --- real keyrings: the kernel sample, the Debian keyring ----------------------------
ks="$data/kernel-sample/kernel-sample.gpg"
if [ -r "$ks" ]; then
	expect_code 0 "kernel sample load" $KSP -q -d "$w/k.db" wot load "$ks"
	linus=$(sqlite3 "$w/k.db" "SELECT fpr FROM keys WHERE fpr LIKE '%79BE3E4300411886'")
	"$KSP" -d "$w/k.db" --json health --core-fpr "$linus" --at 2026-12-01 >"$w/k.json" 2>"$w/err"
	[ $? -le 1 ] && ok || bad "kernel sample health: $(cat "$w/err")"
	same_below "$w/k.db" "$w/k.json" --core-fpr "$linus"
else
	bad "$ks missing (tests/data/kernel-sample)"
fi
. "$top/tests/cli/debian-ring.sh"
why=$(debian_ring_missing)
if [ -z "$why" ]; then
	expect_code 0 "Debian keyring load" $KSP -q -d "$w/d.db" wot load "$DEBIAN_RING"
	# the core: the 12 keys that certify most
	sqlite3 "$w/d.db" "SELECT c.issuer_fpr FROM certs c WHERE c.issuer_fpr IN (SELECT fpr FROM keys)
		GROUP BY c.issuer_fpr ORDER BY count(*) DESC, c.issuer_fpr LIMIT 12" | sed 's/^/--core-fpr /' >"$w/dcore"
	"$KSP" -d "$w/d.db" --json health $(cat "$w/dcore") --at 2023-01-01 >"$w/d.json" 2>"$w/err"
	[ $? -le 1 ] && ok || bad "Debian health: $(cat "$w/err")"
	same_below "$w/d.db" "$w/d.json" $(cat "$w/dcore")
	[ "$(py "$w/d.json" 'len(d["horizons"][3]["below"]) > len(d["horizons"][0]["below"]) > 0')" = True ] && ok ||
		bad "Debian: more keys below K in a year than now"
	# K = 2: the exact search stops at the max-flow's bound (it took
	# minutes, and called keys with one path "undecided")
	"$KSP" -d "$w/d.db" --json health $(cat "$w/dcore") --at 2023-01-01 --min-paths 2 --no-spof --no-repair \
		>"$w/d2.json" 2>"$w/err"
	[ $? -le 1 ] && ok || bad "Debian health K=2: $(cat "$w/err")"
	same_below "$w/d.db" "$w/d2.json" $(cat "$w/dcore") --min-paths 2
	[ "$(py "$w/batch.json" '"undecided" not in set(r["reason"] for r in d["results"])')" = True ] &&
		ok || bad "Debian K=2: every verdict decided: $(py "$w/batch.json" 'sorted(set(r["reason"] for r in d["results"]))')"
else
	echo "$name: Debian part skipped: $why" >&2
fi

[ "$(find "$w/tmp" -mindepth 1 | wc -l)" = 0 ] && ok || bad "temporary files left in TMPDIR"
[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was used"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
