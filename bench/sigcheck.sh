#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sigcheck.sh: every certification of the Debian keyring checked by
# ksp (tests/tools/pgp-sigcheck, the loader's verifier) and by gpg
# --check-sigs (reading the keyring in place, no import), in one run: the
# two verdicts compared signature by signature (tests/tools/
# compare-gpg-sigs.py; any disagreement fails the bench) and the CPU times
# (user + system) side by side.  make check compares a fixed sample of the
# same keyring (tests/cli/T210-verify.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
. "$top/tests/cli/debian-ring.sh"
why=$(debian_ring_missing)
[ -z "$why" ] || { echo "sigcheck: $why" >&2; exit 1; }
w=$(mktemp -d)
trap 'gpgconf --homedir "$w/h" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
mkdir -m 700 "$w/h"
cp "$DEBIAN_RING" "$w/h/ring.gpg"
cpu() { # FILE written by /usr/bin/time -f '%U %S'
	awk 'END { printf "%.2f", $1 + $2 }' "$1"
}
machine_start=$(bench_machine)
/usr/bin/time -f '%U %S' -o "$w/ksp.time" "$top/tests/tools/pgp-sigcheck" --sha1 yes "$DEBIAN_RING" >"$w/ksp.tsv" ||
	{ echo "sigcheck: pgp-sigcheck failed" >&2; exit 1; }
/usr/bin/time -f '%U %S' -o "$w/gpg.time" gpg --homedir "$w/h" --no-default-keyring --keyring "$w/h/ring.gpg" \
	--batch --faked-system-time 20230101T000000 --allow-weak-key-signatures --with-colons --fixed-list-mode \
	--check-sigs >"$w/gpg.colons" 2>/dev/null
if python3 "$top/tests/tools/compare-gpg-sigs.py" "$w/ksp.tsv" "$w/gpg.colons" >"$w/cmp"; then
	echo "sigcheck: Debian keyring, all $(cut -f1 "$w/ksp.tsv" | sort -u | wc -l) keys: $(head -1 "$w/cmp")"
else
	echo "sigcheck: ksp and gpg --check-sigs disagree on the Debian keyring:" >&2
	head -20 "$w/cmp" >&2
	exit 1
fi
k=$(cpu "$w/ksp.time"); g=$(cpu "$w/gpg.time")
printf 'sigcheck: CPU seconds: ksp %s, gpg --check-sigs %s (ksp %.1fx less)\n' "$k" "$g" \
	"$(echo "$g / ($k + 0.001)" | bc -l)"
echo "sigcheck: machine at the start: $machine_start"
echo "sigcheck: machine at the end: $(bench_machine)"
