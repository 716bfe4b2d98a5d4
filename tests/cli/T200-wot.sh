#!/usr/bin/env bash
# ksp wot load + wot stats/path reproduce every reference number of
# tests/data (structural, design, design_no_sha1 variants; Arch Linux
# keyring; Debian keyring when installed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T200-wot
data="$top/tests/data"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# compare: ksp's JSON against every variant of reference.json at its time
check_variant() { # NAME DB REFERENCE VARIANT FLAGS...
	local name=$1 db=$2 ref=$3 variant=$4; shift 4
	local at
	at=$(python3 -c 'import json,sys; print("@%d" % json.load(open(sys.argv[1]))["reference_time_unix"])' "$ref")
	if ! $KSP -d "$db" --json wot stats --at "$at" "$@" --top 100000 >"$w/$name.json" 2>"$w/err"; then
		bad "$name $variant: wot stats failed"; cat "$w/err" >&2; return
	fi
	ok
	python3 - "$w/$name.json" "$ref" "$variant" <<'PY' >"$w/cmp" 2>&1
import json, sys, hashlib
got = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["variants"][sys.argv[3]]
c = ref["counts"]
want = {
    "vertices": c["vertices"],
    "edges": ref["edges_distinct_signer_to_signee"],
    "scc_count": ref["scc_count"],
    "strong_set_size": ref["strong_set_size"],
    "strong_set_edges": ref["strong_set_edges"],
    "strong_set_distance_sum": ref["strong_set_distance_sum"],
}
bad = 0
for k, v in want.items():
    if got[k] != v:
        print(f"{k}: got {got[k]}, want {v}"); bad += 1
if got["scc_sizes_top"][:5] != ref["scc_sizes_top5"]:
    print("scc sizes", got["scc_sizes_top"][:5], ref["scc_sizes_top5"]); bad += 1
if abs(got["strong_set_msd"] - ref["strong_set_msd"]) > 1e-6:
    print("msd", got["strong_set_msd"], ref["strong_set_msd"]); bad += 1
for g, r in zip(got["top"], ref["top10_lowest_msd"]):
    rf = r.get("fingerprint") or r.get("fpr")
    if g["fingerprint"] != rf or g["distance_sum"] != r["distance_sum"]:
        print("top:", g, r); bad += 1
# every strong-set key's MSD, and the strong set itself
msd = {t["fingerprint"]: t["msd"] for t in got["top"]}
if set(msd) != set(ref["msd_all"]):
    print("strong set members differ"); bad += 1
else:
    for f, m in ref["msd_all"].items():
        if abs(msd[f] - m) > 1e-6:
            print("msd of", f, msd[f], m); bad += 1
h = hashlib.sha256("\n".join(sorted(msd)).encode()).hexdigest()
if h != ref["strong_set_fprs_sha256"]:
    print("strong set sha256", h); bad += 1
if "certifications" in got and sys.argv[3] != "structural":
    if got["certifications"]["bad"] != 0:
        print("bad certifications", got["certifications"]); bad += 1
print("mismatches:", bad)
# the pairs to check with wot path
with open(sys.argv[1] + ".pairs", "w") as f:
    for p in ref.get("pairs", []):
        f.write("%s %s %s\n" % (p["from"], p["to"], p["distance"] if p["distance"] is not None else "none"))
sys.exit(1 if bad else 0)
PY
	if [ $? = 0 ]; then ok; else bad "$name $variant: numbers differ from $ref"; cat "$w/cmp" >&2; fi
	while read -r from to dist; do
		$KSP -d "$db" --json wot path --at "$at" "$@" "$from" "$to" >"$w/path.json" 2>"$w/err"
		got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["length"] if d["length"] is not None else "none")' "$w/path.json" 2>/dev/null)
		[ "$got" = "$dist" ] && ok || bad "$name $variant: path $from -> $to: $got hops, want $dist"
	done < "$w/$name.json.pairs"
}

check_ref() { # NAME KEYRING REFERENCE
	local db="$w/$1.db"
	if ! $KSP -d "$db" wot load "$2" >"$w/load.out" 2>"$w/err"; then
		bad "$1: wot load failed"; cat "$w/err" >&2; return
	fi
	ok
	check_variant "$1" "$db" "$3" structural --structural
	check_variant "$1" "$db" "$3" design
	check_variant "$1" "$db" "$3" design_no_sha1 --no-sha1
	# loading the same keyring again adds nothing
	$KSP -d "$db" wot load "$2" >"$w/again.out" 2>&1
	grep -q " 0 new certifications" "$w/again.out" && ok || bad "$1: reload added certifications: $(cat "$w/again.out")"
	# --no-verify: nothing counts but --structural, and stats says why
	$KSP -d "$w/$1-nv.db" wot load --no-verify "$2" >/dev/null 2>&1
	$KSP -d "$w/$1-nv.db" --json wot stats >"$w/nv.json" 2>"$w/nv.err"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["edges"] == 0 and d["certifications"]["unchecked"] == d["certifications"]["total"] > 0 else 1)' "$w/nv.json" &&
		grep -q "no-verify" "$w/nv.err" && ok || bad "$1: --no-verify store: $(cat "$w/nv.json" "$w/nv.err")"
}

if [ -r "$data/archlinux/archlinux.gpg" ]; then
	check_ref arch "$data/archlinux/archlinux.gpg" "$data/archlinux/reference.json"
else
	bad "$data/archlinux/archlinux.gpg missing (part of the repository: git checkout tests/data)"
fi
. "$top/tests/cli/debian-ring.sh"
ring=$DEBIAN_RING
why=$(debian_ring_missing --exact)
[ "${KSP_VALGRIND:-0}" = 1 ] && why="too slow under valgrind"
if [ -z "$why" ]; then
	check_ref debian "$ring" "$data/debian-keyring/reference.json"
else
	echo "$name: Debian part skipped: $why" >&2
fi

# bad input: a clear one-line error, exit 2, the store unchanged
$KSP -d "$w/b.db" wot load "$top/tests/keyrings/bob-ed25519.asc" >/dev/null 2>&1
before=$(sqlite3 "$w/b.db" "SELECT (SELECT count(*) FROM keys)||' '||(SELECT count(*) FROM certs)")
for f in "$top/tests/keyrings/not-a-key.txt" "$top/tests/keyrings/empty.asc" "$w/missing"; do
	$KSP -d "$w/b.db" wot load "$top/tests/keyrings/alice-rsa.asc" "$f" >/dev/null 2>"$w/err"
	[ $? = 2 ] && ok || bad "bad input $(basename "$f"): not exit 2"
	[ "$(wc -l < "$w/err")" = 1 ] && grep -q "$(basename "$f")" "$w/err" && ok || bad "message for $(basename "$f"): $(cat "$w/err")"
done
[ "$(sqlite3 "$w/b.db" "SELECT (SELECT count(*) FROM keys)||' '||(SELECT count(*) FROM certs)")" = "$before" ] && ok ||
	bad "store changed by bad input"
# a truncated key is skipped and counted, the rest loads; --strict refuses
cat "$top/tests/keyrings/several.gpg" "$top/tests/keyrings/truncated.gpg" > "$w/mixed.gpg"
$KSP -d "$w/m.db" wot load "$w/mixed.gpg" >"$w/out" 2>"$w/err"
[ $? = 0 ] && grep -q "2 keys, .* 1 malformed" "$w/out" && ok || bad "truncated key not skipped: $(cat "$w/out" "$w/err")"
$KSP -d "$w/s.db" wot load --strict "$w/mixed.gpg" >/dev/null 2>"$w/err"
[ $? = 2 ] && ok || bad "--strict did not refuse"
# secret key material never reaches the store
$KSP -d "$w/x.db" wot load "$top/tests/keyrings/alice-secret.asc" >/dev/null 2>&1
sqlite3 "$w/x.db" "SELECT count(*) FROM keys" | grep -qx 1 && ok || bad "secret keyring: public key not loaded"
[ "$(sqlite3 "$w/x.db" "SELECT count(*) FROM keys WHERE keydata IS NOT NULL")" = 0 ] && ok || bad "key data stored"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
