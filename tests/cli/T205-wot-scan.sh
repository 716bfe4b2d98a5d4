#!/usr/bin/env bash
# ksp wot stats/key --structural --keyring FILE: keyrings read without the
# store give the same structural graph, counts, MSD ranks and user IDs as
# 'wot load --no-verify' into a new store then 'wot stats --structural'
# (Arch, Sequoia test keyrings, a synthetic keyring, Debian when installed),
# the reference numbers, duplicates counted once, and clear errors.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T205-wot-scan
data="$top/tests/data"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# same JSON from the store and from the files (the time of the run aside)
same() { # NAME FILE...
	local n=$1; shift
	local args=() f
	for f in "$@"; do args+=(--keyring "$f"); done
	rm -f "$w/$n.db"*
	if ! $KSP -d "$w/$n.db" wot load --no-verify "$@" >/dev/null 2>"$w/err"; then
		bad "$n: wot load --no-verify failed: $(cat "$w/err")"; return
	fi
	$KSP -d "$w/$n.db" --json wot stats --structural --top 100000 >"$w/$n.store.json" 2>"$w/err" ||
		{ bad "$n: stats from the store failed: $(cat "$w/err")"; return; }
	$KSP -d "$w/none.db" --json wot stats --structural --top 100000 "${args[@]}" >"$w/$n.scan.json" 2>"$w/err" ||
		{ bad "$n: stats --keyring failed: $(cat "$w/err")"; return; }
	[ ! -e "$w/none.db" ] && ok || bad "$n: --keyring made a store"
	python3 - "$w/$n.store.json" "$w/$n.scan.json" <<'PY' >"$w/cmp" 2>&1 && ok || { bad "$n: store and --keyring differ"; cat "$w/cmp" >&2; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("at"); b.pop("at")
diff = [k for k in a if a[k] != b.get(k)]
if diff or set(a) != set(b):
    for k in diff[:5]:
        print(k, str(a[k])[:300], "|", str(b.get(k))[:300])
    sys.exit(1)
if a["keys"] == 0:
    print("empty graph"); sys.exit(1)
PY
}

if [ -r "$data/archlinux/archlinux.gpg" ]; then
	arch=$data/archlinux/archlinux.gpg
	same arch "$arch"
	# the reference numbers of the structural variant
	python3 - "$w/arch.scan.json" "$data/archlinux/reference.json" <<'PY' && ok || bad "arch: --keyring differs from reference.json"
import json, sys
got = json.load(open(sys.argv[1])); ref = json.load(open(sys.argv[2]))["variants"]["structural"]
ok = (got["vertices"] == ref["counts"]["vertices"] and got["edges"] == ref["edges_distinct_signer_to_signee"]
      and got["strong_set_size"] == ref["strong_set_size"]
      and got["strong_set_distance_sum"] == ref["strong_set_distance_sum"])
if not ok:
    print({k: got[k] for k in ("vertices", "edges", "strong_set_size", "strong_set_distance_sum")}, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
	# the same keyring twice, binary and armored: every key and certification once
	gpg --homedir "$w" --enarmor <"$arch" >"$w/arch.asc" 2>/dev/null ||
		python3 -c 'import base64,sys; d=open(sys.argv[1],"rb").read(); print("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"+base64.encodebytes(d).decode()+"-----END PGP PUBLIC KEY BLOCK-----")' "$arch" >"$w/arch.asc"
	$KSP --json wot stats --structural --top 100000 --keyring "$arch" --keyring "$w/arch.asc" >"$w/twice.json" 2>"$w/err"
	python3 - "$w/arch.scan.json" "$w/twice.json" <<'PY' && ok || bad "arch twice: counted twice"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("at"); b.pop("at")
sys.exit(0 if a == b else 1)
PY
	# wot key from the files: the same as from the store
	fpr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top"][0]["fingerprint"])' "$w/arch.scan.json")
	$KSP -d "$w/arch.db" --json wot key --structural "$fpr" >"$w/k1.json" 2>&1
	$KSP --json wot key --structural --keyring "$arch" "$fpr" >"$w/k2.json" 2>&1
	cmp -s "$w/k1.json" "$w/k2.json" && grep -q '"msd_rank":1' "$w/k2.json" && ok ||
		bad "wot key --keyring: $(cat "$w/k1.json" "$w/k2.json")"
	$KSP wot key --structural --keyring "$arch" "$fpr" | grep -q "^User ID: " && ok || bad "wot key --keyring: no user ID"
	$KSP wot key --structural --keyring "$arch" 0000000000000000000000000000000000000000 >/dev/null 2>"$w/err"
	[ $? = 1 ] && [ "$(wc -l <"$w/err")" = 1 ] && grep -q "archlinux.gpg" "$w/err" && ok ||
		bad "wot key --keyring, unknown key: $(cat "$w/err")"
else
	bad "$data/archlinux/archlinux.gpg missing (part of the repository: git checkout tests/data)"
fi

n=0
for f in "$data"/sequoia-wot/*.pgp; do
	[ -r "$f" ] || continue
	b=$(basename "$f" .pgp)
	same "sq-$b" "$f"
	n=$((n + 1))
done
[ "$n" -gt 10 ] && ok || bad "only $n Sequoia keyrings compared"

# synthetic: heavy-tailed, Ed25519, issuer fingerprints
if "$top/tests/tools/gen-wot" --keys 1500 --seed t205 --quiet -o "$w/syn.gpg" >/dev/null 2>"$w/err"; then
	same synthetic "$w/syn.gpg"
else
	bad "gen-wot failed: $(cat "$w/err")"
fi

. "$top/tests/cli/debian-ring.sh"
ring=$DEBIAN_RING
why=$(debian_ring_missing)
[ "${KSP_VALGRIND:-0}" = 1 ] && why="too slow under valgrind"
if [ -z "$why" ]; then
	same debian "$ring" # 34,888 of its certifications name their issuer by key ID only
else
	echo "$name: Debian part skipped: $why" >&2
fi

# errors: one line naming the file, exit 2; usage errors
for f in "$top/tests/keyrings/not-a-key.txt" "$top/tests/keyrings/empty.asc" "$w/missing"; do
	$KSP wot stats --structural --keyring "$top/tests/keyrings/alice-rsa.asc" --keyring "$f" >"$w/out" 2>"$w/err"
	[ $? = 2 ] && [ ! -s "$w/out" ] && ok || bad "bad keyring $(basename "$f"): not exit 2, or output"
	[ "$(wc -l <"$w/err")" = 1 ] && grep -q "$(basename "$f")" "$w/err" && ok ||
		bad "message for $(basename "$f"): $(cat "$w/err")"
done
$KSP wot stats --keyring "$top/tests/keyrings/alice-rsa.asc" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q -- "--structural" "$w/err" && ok || bad "--keyring without --structural: $(cat "$w/err")"
$KSP wot path --structural --keyring "$top/tests/keyrings/alice-rsa.asc" \
	0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "store" "$w/err" && ok || bad "wot path --keyring: $(cat "$w/err")"
# a malformed key is skipped with a warning, the rest counts
cat "$top/tests/keyrings/several.gpg" "$top/tests/keyrings/truncated.gpg" >"$w/mixed.gpg"
$KSP --json wot stats --structural --keyring "$w/mixed.gpg" >"$w/out" 2>"$w/err"
[ $? = 0 ] && grep -q '"keys":2,' "$w/out" && grep -q "malformed" "$w/err" && ok ||
	bad "truncated key: $(cat "$w/out" "$w/err")"
# hostile user IDs are escaped in the top list
$KSP wot stats --structural --keyring "$top/tests/keyrings/dave-escape.asc" >"$w/out" 2>&1
LC_ALL=C grep -q $'\x1b' "$w/out" && bad "escape sequence reached the terminal" || ok

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
