#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-health-fixtures.sh - regenerate the keyring of tests/keyrings/health/
# (ksp health: tests/cli/T550-health.sh), a web of trust whose health is
# known by hand.
#
# All keys are INSECURE throw-away test keys (Ed25519 but w, RSA 2048, no
# passphrase; every user ID says INSECURE), made in a private temporary
# GnuPG home removed on exit; ~/.gnupg is never touched.  Time is frozen
# for every operation (--faked-system-time): day N means 2024-01-01 + N
# days.  The tests look at 2024-06-01 (day 152).  Key material is random:
# keys.tsv (NAME TAB FINGERPRINT) is rewritten with the fingerprints and
# edges.tsv (SIGNER TAB SIGNEE TAB HASH) lists the certifications made.
#
#   c               the core.
#   expiring        c -> x -> t; x expires on 2024-06-21 (20 days after the
#                   reference day): t has exactly one path, through x.
#   bridge          c -> b -> k1, k2, k3; k1 -> k2 -> k3 -> k1: b is the
#                   cluster's only link to the core.  c -> m1, m2 -> n: two
#                   paths, no single point of failure.
#   sha1            c -> w (RSA) -> s1 -> s2; w certifies s1 with SHA-1.
#   party           p1..p6 are the participants (party.gpg): c -> p1 -> p2,
#                   p3 -> p4, p5 -> q1, p5 -> q2, p6 -> q3.
#
# Usage: tests/keyrings/health/make-health-fixtures.sh [OUTDIR]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$here}
mkdir -p "$OUT"
# shell helpers: fixture_homes, day, g, key, revoke_key (sign is its own, below)
. "$here/../fixture-lib.sh"
fixture_homes g
: >"$GH/edges.tsv"
# sign SIGNER TARGET [HASH]: on day 1, recorded in edges.tsv (in place of
# fixture-lib.sh's sign)
sign() {
	if [ -n "${3:-}" ]; then
		# gpg 2.2 makes SHA-1 certifications only when told twice
		g 1 --allow-weak-key-signatures --allow-weak-digest-algos --cert-digest-algo "$3" \
			-u "${F[$1]}" --quick-sign-key "${F[$2]}" >/dev/null 2>&1
	else
		g 1 -u "${F[$1]}" --quick-sign-key "${F[$2]}" >/dev/null 2>&1
	fi
	printf '%s\t%s\t%s\n' "$1" "$2" "${3:-default}" >>"$GH/edges.tsv"
}

for k in c t b k1 k2 k3 m1 m2 n s1 s2 p1 p2 p3 p4 p5 p6 q1 q2 q3; do key $k 0; done
key x 0 2024-06-21
key w 0 0 rsa2048
sign c x; sign x t
sign c b; sign b k1; sign b k2; sign b k3; sign k1 k2; sign k2 k3; sign k3 k1
sign c m1; sign c m2; sign m1 n; sign m2 n
sign c w; sign w s1 SHA1; sign s1 s2
sign c p1; sign p1 p2; sign p3 p4; sign p5 q1; sign p5 q2; sign p6 q3

gpg --homedir "$GH/g" --batch --export >"$OUT/health.gpg"
parts=()
for p in p1 p2 p3 p4 p5 p6; do parts+=("${F[$p]}"); done
gpg --homedir "$GH/g" --batch --export "${parts[@]}" >"$OUT/party.gpg"
cp "$GH/keys.tsv" "$GH/edges.tsv" "$OUT/"
echo "wrote $OUT/health.gpg, party.gpg, keys.tsv, edges.tsv"
