#!/usr/bin/env bash
# Benchmark: party preparation.
# Now: party preparation of N real Debian keys (ksp party add + close)
# against a plain 'gpg --import' of the same keys into an empty home, and
# gpgparticipants (signing-party) writing its list, when installed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ring=/usr/share/keyrings/debian-keyring.gpg
n=${KSP_BENCH_KEYS:-300}
if [ ! -r "$ring" ]; then
	echo "bench: $ring missing; apt-get install debian-keyring" >&2
	exit 2
fi
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -m 700 "$w/g" "$w/g2"
gpg --homedir "$w/g" --no-default-keyring --keyring "$ring" --with-colons --list-keys 2>/dev/null |
	awk -F: '$1=="pub"{p=1; ok=($2!="e" && $2!="r"); next} $1=="fpr" && p {if(ok && c++ < n) print $10; p=0}' n="$n" > "$w/fprs"
gpg --homedir "$w/g" --no-default-keyring --keyring "$ring" --export $(cat "$w/fprs") > "$w/keys.gpg" 2>/dev/null
k=$(wc -l < "$w/fprs")

t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc -l; }

ksp_t=$(t bash -c "'$ksp' -d '$w/b.db' party init --name bench --date 2030-01-01 &&
	'$ksp' -d '$w/b.db' party add --allow-weak '$w/keys.gpg'; '$ksp' -d '$w/b.db' party close")
gpg_t=$(t gpg --homedir "$w/g2" --batch --import "$w/keys.gpg")
printf '%-44s %8s s\n' "ksp party init+add+close ($k Debian keys)" "$(printf %.3f "$ksp_t")"
printf '%-44s %8s s\n' "gpg --import of the same keys" "$(printf %.3f "$gpg_t")"
printf 'ratio gpg/ksp: %.2f (ksp also checks every key and stores it)\n' "$(echo "$gpg_t / $ksp_t" | bc -l)"
if command -v gpgparticipants >/dev/null; then
	gp_t=$(t env GNUPGHOME="$w/g2" gpgparticipants "$w/fprs" "$w/gp.txt" 20300101 bench bench)
	printf '%-44s %8s s\n' "gpgparticipants (list of $k keys)" "$(printf %.3f "$gp_t")"
fi
