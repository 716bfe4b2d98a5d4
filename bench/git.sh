#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/git.sh: git log --show-signature over signed commits, with
# gpg.program = gpg (a one-key keyring: gpg at its fastest) and with
# gpg.program = ksp-gpg (a store of a synthetic web of trust, 10^5 keys by
# default, and a trust policy); prints both times and the ratio, and writes
# the table to bench/results-git.md.
#
# The signer is an Ed25519 key made here with gpg, certified by a core key
# made here; both are loaded into the store beside the synthetic keys
# (tests/tools/gen-wot, cached in bench/cache/ as bench/wot.sh does), and
# the policy's core is that key.  The signed repository is cached too.
#
# Environment: KSP_BENCH_GIT_COMMITS (default 1000), KSP_BENCH_GIT_KEYS
# (default 100000), KSP_BENCH_CACHE=DIR, KSP_BENCH_RESULTS=FILE (- = none);
# KSP_BENCH_QUICK=1: 100 commits, 10^4 keys.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
machine_start=$(bench_machine)
ksp="$top/ksp"
kspgpg="$top/ksp-gpg"
kspgpg_shared="$top/src/gpg/ksp-gpg-shared" # make bench builds it; a row when present
gen="$top/tests/tools/gen-wot"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
cache=${KSP_BENCH_CACHE:-$top/bench/cache}
results=${KSP_BENCH_RESULTS:-$top/bench/results-git.md}
if [ "${KSP_BENCH_QUICK:-0}" = 1 ]; then
	commits=${KSP_BENCH_GIT_COMMITS:-100} keys=${KSP_BENCH_GIT_KEYS:-10000}
else
	commits=${KSP_BENCH_GIT_COMMITS:-1000} keys=${KSP_BENCH_GIT_KEYS:-100000}
fi
seed=bench
degree=10

for t in "$ksp" "$kspgpg" "$gen"; do
	[ -x "$t" ] || { echo "bench/git.sh: $t is not built; run make" >&2; exit 2; }
done
for t in git gpg; do
	command -v $t >/dev/null || { echo "bench/git.sh: $t is not installed" >&2; exit 2; }
done
w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-bench-git.XXXXXX")
cleanup() {
	for h in "$w/sign" "$w/one"; do
		[ -d "$h" ] && gpgconf --homedir "$h" --kill all >/dev/null 2>&1
	done
	rm -rf "$w"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
say() { echo "bench/git.sh: $*" >&2; }
mkdir -p "$cache"

# ---- the synthetic keyring (shared with bench/wot.sh) -----------------------------
ring="$cache/wot-n$keys-s$seed-d$degree.gpg"
if [ ! -s "$ring" ]; then
	say "generating $keys keys into $ring (once)"
	"$gen" --keys "$keys" --seed "$seed" --mean-degree "$degree" -o "$ring.part" 2>"$w/gen.log" &&
		mv "$ring.part" "$ring" || { say "gen-wot failed: $(cat "$w/gen.log")"; exit 2; }
fi

# ---- the signed repository, its signer and core (cached) ----------------------------
repo="$cache/git-c$commits"
if [ ! -s "$repo/keys.gpg" ] || [ ! -d "$repo/r/.git" ]; then
	say "making $commits signed commits in $repo (once)"
	rm -rf "$repo"
	mkdir -p "$repo"
	mkdir -m 700 "$w/sign"
	G() { gpg --homedir "$w/sign" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
	G --quick-gen-key 'Bench Core <core@example.org>' ed25519 cert,sign never 2>/dev/null
	G --quick-gen-key 'Bench Signer <signer@example.org>' ed25519 cert,sign never 2>/dev/null
	core=$(G --with-colons -k core@ | awk -F: '$1=="fpr"{print $10; exit}')
	signer=$(G --with-colons -k signer@ | awk -F: '$1=="fpr"{print $10; exit}')
	G -u "$core" --quick-sign-key "$signer" >/dev/null 2>&1
	G --export "$core" "$signer" >"$repo/keys.gpg"
	G --export "$signer" >"$repo/signer.gpg"
	printf 'core = %s\n' "$core" >"$repo/policy"
	git init -q -b main "$repo/r"
	git -C "$repo/r" config user.name Bench
	git -C "$repo/r" config user.email bench@example.org
	for i in $(seq 1 "$commits"); do
		echo "$i" >"$repo/r/f"
		git -C "$repo/r" add f
		GNUPGHOME="$w/sign" git -C "$repo/r" -c user.signingkey="$signer" commit -q -S -m "commit $i" ||
			{ say "git commit -S failed"; rm -rf "$repo"; exit 2; }
	done
fi

# ---- the store: the synthetic keys, the core and the signer ------------------------------
say "loading $ring and the signer into a store"
start=$(date +%s.%N)
"$ksp" -d "$w/s.db" wot load "$ring" "$repo/keys.gpg" >"$w/load.out" 2>&1 || { say "wot load failed: $(cat "$w/load.out")"; exit 2; }
load_s=$(echo "$(date +%s.%N) - $start" | bc)
nkeys=$(sqlite3 "$w/s.db" 'SELECT count(*) FROM keys' 2>/dev/null || echo "?")
# gpg: the signer's key alone
mkdir -m 700 "$w/one"
gpg --homedir "$w/one" --batch --quiet --import "$repo/signer.gpg" 2>/dev/null

run() { # LABEL: seconds of git log --show-signature over the whole history;
	# the CPU seconds it and what it started took (user + system) into $w/LABEL.cpu:
	# on a machine others load, the wall time has their share in it too
	local TIMEFORMAT='%R %U %S' t
	t=$( { time git -C "$repo/r" log --show-signature --format=%H >"$w/$1.out" 2>&1; } 2>&1) ||
		{ say "git log failed ($1)"; exit 2; }
	set -- "$1" $t
	echo "$3 + $4" | bc >"$w/$1.cpu"
	echo "$2"
}
cpu() { cat "$w/$1.cpu"; }
say "git log --show-signature, gpg.program = gpg (one-key keyring)"
git -C "$repo/r" config gpg.program gpg
t_gpg=$(GNUPGHOME="$w/one" run gpg)
say "git log --show-signature, gpg.program = ksp-gpg ($nkeys keys)"
git -C "$repo/r" config gpg.program "$kspgpg"
t_ksp=$(KSP_DB="$w/s.db" KSP_POLICY="$repo/policy" run ksp)
t_shared=
if [ -x "$kspgpg_shared" ]; then
	say "git log --show-signature, gpg.program = ksp-gpg linked against libksp.so.1 ($nkeys keys)"
	git -C "$repo/r" config gpg.program "$kspgpg_shared"
	t_shared=$(KSP_DB="$w/s.db" KSP_POLICY="$repo/policy" run shared)
	good_shared=$(grep -c '^ksp-gpg: TRUST_FULLY' "$w/shared.out")
	ratio_shared=$(printf %.2f "$(echo "scale=3; $t_shared / $t_gpg" | bc)")
	ratio_shared_cpu=$(printf %.2f "$(echo "scale=3; $(cpu shared) / $(cpu gpg)" | bc)")
fi
git -C "$repo/r" config --unset gpg.program
good_gpg=$(grep -c '^gpg: Good signature' "$w/gpg.out")
good_ksp=$(grep -c '^ksp-gpg: TRUST_FULLY' "$w/ksp.out")
[ "$good_gpg" = "$commits" ] || say "gpg: $good_gpg good signatures of $commits"
[ "$good_ksp" = "$commits" ] || say "ksp-gpg: $good_ksp trusted signatures of $commits"
ratio=$(printf %.2f "$(echo "scale=3; $t_ksp / $t_gpg" | bc)")
ratio_cpu=$(printf %.2f "$(echo "scale=3; $(cpu ksp) / $(cpu gpg)" | bc)")
ms() { echo "scale=1; 1000 * $1 / $commits" | bc; }
nlibs() { ldd "$1" 2>/dev/null | grep -c '=> /'; } # the shared libraries the loader maps

table() {
	echo "| what | time | per commit | CPU (user + system, git's too) | per commit | result |"
	echo "|---|---|---|---|---|---|"
	printf '| git log --show-signature, gpg.program = gpg, one-key keyring | %.2f s | %s ms | %.2f s | %s ms | %s good signatures |\n' "$t_gpg" "$(ms "$t_gpg")" "$(cpu gpg)" "$(ms "$(cpu gpg)")" "$good_gpg"
	printf '| git log --show-signature, gpg.program = ksp-gpg, %s-key store | %.2f s | %s ms | %.2f s | %s ms | %s good, trusted by the core |\n' "$nkeys" "$t_ksp" "$(ms "$t_ksp")" "$(cpu ksp)" "$(ms "$(cpu ksp)")" "$good_ksp"
	printf '| ratio ksp-gpg / gpg | %s | | %s | | |\n' "$ratio" "$ratio_cpu"
	if [ -n "$t_shared" ]; then
		printf '| for comparison: ksp-gpg linked against libksp.so.1 (src/gpg/ksp-gpg-shared: %s shared libraries, not %s) | %.2f s | %s ms | %.2f s | %s ms | %s good, trusted by the core |\n' "$(nlibs "$kspgpg_shared")" "$(nlibs "$kspgpg")" "$t_shared" "$(ms "$t_shared")" "$(cpu shared)" "$(ms "$(cpu shared)")" "$good_shared"
		printf '| ratio ksp-gpg (libksp.so.1) / gpg | %s | | %s | | |\n' "$ratio_shared" "$ratio_shared_cpu"
	fi
	printf '| (store: ksp wot load of the %s keys, once) | %.1f s | | | | |\n' "$nkeys" "$load_s"
}
machine_end=$(bench_machine)
echo "git log --show-signature over $commits signed commits (Ed25519)"
echo "machine at the start: $machine_start"
echo "machine at the end: $machine_end"
table
if [ "$results" != - ]; then
	# the notes below the table (how the time was found and cut) are kept
	notes=
	[ -f "$results" ] && notes=$(sed -n '/^## /,$p' "$results")
	{
		echo "# git log --show-signature: gpg.program = gpg and = ksp-gpg"
		echo
		echo "Made by bench/git.sh on $(date -u +%Y-%m-%d) at $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'),"
		echo "$(git --version), $(gpg --version | head -n 1)."
		echo "Machine at the start: $machine_start;"
		echo "at the end: $machine_end (bench/lib.sh)."
		echo
		echo "$commits commits signed by one Ed25519 key.  gpg verifies against a keyring"
		echo "holding that key alone; ksp-gpg against a store of $nkeys keys"
		echo "(tests/tools/gen-wot --keys $keys --seed $seed --mean-degree $degree, plus the"
		echo "signer and the core key that certified it) and judges the signer's trust"
		echo "twice per commit (now and when signed: policy core = that key)."
		echo
		table
		[ -n "$notes" ] && printf '\n%s\n' "$notes"
	} >"$results"
	say "table written to $results"
fi
