#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Benchmark: verification sheet and fingerprint slips of a party of N real
# Debian keys (default 300), in every format.  The goal is "well under a
# second" for each; the script prints the times and says if one is not.
# Usage: bench/sheet.sh   (KSP_BENCH_KEYS=N to change the size)
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
mkdir -m 700 "$w/g"
export GNUPGHOME="$w/g"
gpg --no-default-keyring --keyring "$ring" --with-colons --list-keys 2>/dev/null |
	awk -F: '$1=="pub"{p=1; ok=($2!="e" && $2!="r"); next} $1=="fpr" && p {if(ok && c++ < n) print $10; p=0}' n="$n" > "$w/fprs"
gpg --no-default-keyring --keyring "$ring" --export $(cat "$w/fprs") > "$w/keys.gpg" 2>/dev/null
db="$w/b.db"
"$ksp" -d "$db" party init --name "Sheet bench" --date 2030-01-01 --location "Hall 1" >/dev/null
"$ksp" -d "$db" party add --allow-weak --allow-expiring "$w/keys.gpg" >/dev/null 2>&1 || true
"$ksp" -d "$db" party close >/dev/null 2>&1
k=$(sqlite3 "$db" 'SELECT count(*) FROM participants')
uids=$(sqlite3 "$db" 'SELECT count(*) FROM uids u JOIN participants p ON p.key_id = u.key_id WHERE u.is_attr = 0 AND u.revoked = 0')

best() { # best of 3 wall-clock runs, in seconds
	local b="" s e d
	for _ in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		d=$(echo "$e - $s" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$d < $b" | bc -l)" = 1 ]; then b=$d; fi
	done
	echo "$b"
}
slow=0
row() { # LABEL OUTFILE CMD...
	local label=$1 out=$2; shift 2
	local t; t=$(best "$@")
	local extra=""
	case $out in *.pdf) extra=" ($(pdfinfo "$out" 2>/dev/null | sed -n 's/^Pages: *//p') pages)" ;; esac
	printf '%-40s %8.3f s %s\n' "$label" "$t" "$extra"
	case $label in ksp*) [ "$(echo "$t < 1.0" | bc -l)" = 1 ] || slow=1 ;; esac
}
echo "party of $k Debian keys, $uids user IDs"
row "ksp party sheet --format txt" "$w/s.txt" "$ksp" -d "$db" party sheet -o "$w/s.txt"
row "ksp party sheet --format html" "$w/s.html" "$ksp" -d "$db" party sheet -o "$w/s.html"
row "ksp party sheet --format pdf" "$w/s.pdf" "$ksp" -d "$db" party sheet -o "$w/s.pdf"
row "ksp party sheet --format pdf --for 1" "$w/s1.pdf" "$ksp" -d "$db" party sheet --for 1 -o "$w/s1.pdf"
row "ksp party slips --format txt --qr" "$w/l.txt" "$ksp" -d "$db" party slips --qr -o "$w/l.txt"
row "ksp party slips --format html --qr" "$w/l.html" "$ksp" -d "$db" party slips --qr -o "$w/l.html"
row "ksp party slips --format pdf --qr" "$w/l.pdf" "$ksp" -d "$db" party slips --qr -o "$w/l.pdf"
if command -v gpgparticipants >/dev/null; then
	row "gpgparticipants (text list, for scale)" "$w/gp.txt" gpgparticipants "$w/fprs" "$w/gp.txt" 20300101 bench bench
fi
if [ "$slow" = 1 ]; then
	echo "sheet bench: a ksp rendering took a second or more"
else
	echo "sheet bench: every ksp rendering under a second"
fi
