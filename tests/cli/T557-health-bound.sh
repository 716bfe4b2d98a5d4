#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp health at K >= 2 against the trust engine asked directly (issue 38):
# the report answers a key with one signer within reach (or one usable core
# key) without the engine (src/lib/health/health-bound.c), and a later
# horizon on the same graph with now's answers.  On a synthetic web
# (tests/tools/gen-wot) and the kernel.org sample, at K = 2 and 3, every
# key's count of paths and message at every horizon must be what
# 'ksp trust --batch --at' that time says; the web must have keys with
# one path, or the test means nothing.
. "$(dirname "$0")/test-lib.sh"
test_begin T557-health-bound
PY=/usr/bin/python3
gen="$TOP/tests/tools/gen-wot"
[ -x "$gen" ] || _test_fail "tests/tools/gen-wot is not built (make tests)"
command -v sqlite3 >/dev/null || _test_fail "sqlite3 is missing (Debian package sqlite3)"

# check DB CORE-FILE K L: the report against the engine, every horizon
check() {
	local db=$1 core=$2 K=$3 L=$4 label at extra
	$KSP -d "$db" --json health --core "$core" --min-paths "$K" --max-depth "$L" --at 2026-12-01 \
		--no-repair >"$TEST_TMP/h.json" 2>"$TEST_TMP/err"
	[ $? -le 1 ] && _test_pass "health K=$K L=$L" || { _test_fail "health K=$K L=$L: $(cat "$TEST_TMP/err")"; return; }
	sqlite3 "$db" "SELECT fpr FROM keys" >"$TEST_TMP/all"
	$PY -c 'import json,sys
for h in json.load(open(sys.argv[1]))["horizons"]: print(h["label"], h["time"])' "$TEST_TMP/h.json" >"$TEST_TMP/hz"
	while read -r label at; do
		extra=
		[ "$label" = no-sha1 ] && extra=--no-sha1
		$KSP -d "$db" --json trust --core "$core" --min-paths "$K" --max-depth "$L" $extra --at "@$at" \
			--batch "$TEST_TMP/all" >"$TEST_TMP/t.json" 2>"$TEST_TMP/err"
		$PY - "$TEST_TMP/h.json" "$TEST_TMP/t.json" "$label" "$K" "$core" >"$TEST_TMP/cmp" 2>&1 <<'EOF'
import json, sys
h = json.load(open(sys.argv[1]))
hz = [x for x in h["horizons"] if x["label"] == sys.argv[3]][0]
K = int(sys.argv[4])
core = set(l.strip() for l in open(sys.argv[5]) if l.strip())
t = {r["fingerprint"]: r for r in json.load(open(sys.argv[2]))["results"] if r["fingerprint"] not in core}
det = {d["fingerprint"]: d for d in hz["details"]}
bad = []
for f, r in t.items():
    if r["trusted"]:
        if f in det:
            bad.append("%s: health below, trust trusted" % f)
        continue
    d = det.get(f)
    if d is None:
        bad.append("%s: trust not trusted, health not below" % f)
    elif d["message"] != r["message"] or d["paths"] != min(r["paths_found"], K):
        bad.append("%s: health %d %r, trust %d %r" % (f, d["paths"], d["message"], r["paths_found"], r["message"]))
one = sum(1 for d in det.values() if d["paths"] == 1)
print("differ" if bad else "same", len(det), "below,", one, "with one path;", "; ".join(bad[:3]))
EOF
		if grep -q '^same' "$TEST_TMP/cmp"; then _test_pass "K=$K L=$L $label: $(cat "$TEST_TMP/cmp")"; else
			_test_fail "K=$K L=$L $label: $(cat "$TEST_TMP/cmp")"
		fi
	done <"$TEST_TMP/hz"
}

# a synthetic web: 1,500 keys, 4 certifications each on average
$gen --keys 1500 --seed t557 --mean-degree 4 --quiet -o "$TEST_TMP/web.gpg" || _test_fail "gen-wot failed"
expect_code 0 $KSP -q -d "$TEST_TMP/w.db" wot load "$TEST_TMP/web.gpg"
sqlite3 "$TEST_TMP/w.db" "SELECT k.fpr FROM keys k JOIN (SELECT u.key_id AS id, count(*) AS n FROM uids u
	JOIN certs c ON c.uid_id = u.id GROUP BY u.key_id ORDER BY n DESC, u.key_id LIMIT 8) t ON t.id = k.id" \
	>"$TEST_TMP/w.core"
check "$TEST_TMP/w.db" "$TEST_TMP/w.core" 2 5
check "$TEST_TMP/w.db" "$TEST_TMP/w.core" 3 4
# enough keys with one path that the report answered (now)
n1=$($PY -c 'import json,sys
print(sum(1 for d in json.load(open(sys.argv[1]))["horizons"][0]["details"] if d["paths"] == 1))' "$TEST_TMP/h.json")
[ "${n1:-0}" -ge 50 ] && _test_pass "$n1 keys with one path" || _test_fail "only ${n1:-0} keys with one path: the web is too dense"
# one usable core key: every key at most one path
head -1 "$TEST_TMP/w.core" >"$TEST_TMP/w1.core"
check "$TEST_TMP/w.db" "$TEST_TMP/w1.core" 2 4

# the kernel.org sample (expiring keys: the later horizons differ from now)
expect_code 0 $KSP -q -d "$TEST_TMP/k.db" wot load "$TOP/tests/data/kernel-sample/kernel-sample.gpg"
sqlite3 "$TEST_TMP/k.db" "SELECT c.issuer_fpr FROM certs c WHERE c.issuer_fpr IN (SELECT fpr FROM keys)
	GROUP BY c.issuer_fpr ORDER BY count(*) DESC, c.issuer_fpr LIMIT 3" >"$TEST_TMP/k.core"
check "$TEST_TMP/k.db" "$TEST_TMP/k.core" 2 5
test_done
