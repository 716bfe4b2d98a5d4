#!/usr/bin/env bash
# make-ecdsa.sh - regenerate the ECDSA fixtures of tests/keyrings/ecdsa/:
# keys made by gpg with "cert-digest-algo SHA512" (a common hardening
# setting), so that every self-signature, certification and revocation
# below is made with a hash longer than the curve (but for P-521), which
# the verifier must cut to the leftmost bits of the group order.
#
#   keys.asc            ECDSA keys over nistp256, nistp384, brainpoolP256r1
#                       and nistp521 (SHA-512 self-signatures), and an
#                       Ed25519 target; p384 certifies p256; each ECDSA key
#                       certifies the target (SHA-512)
#   p256-revocation.asc the key revocation of p256 (SHA-512), made by
#                       gpg --gen-revoke two months later
#   p256-revoked.asc    p256 as gpg exports it once that is imported
#
# INSECURE test keys (unprotected, "INSECURE" in every user ID), made in a
# private temporary GnuPG home removed on exit; ~/.gnupg is never touched.
# Key material is random: reruns are not byte-identical (fingerprints
# change); the committed files are the fixtures.  Tested with gpg 2.2.40.
#
# Usage: tests/keyrings/ecdsa/make-ecdsa.sh [OUTDIR]   (default: its directory)
set -euo pipefail

OUT=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$OUT"
GH=$(mktemp -d)
trap 'gpgconf --homedir "$GH" --kill all >/dev/null 2>&1 || true; rm -rf "$GH"' EXIT
chmod 700 "$GH"

T0=20240101T000000
T1=20240102T000000
TREV=20240301T000000
g() {
	local t=$1
	shift
	gpg --homedir "$GH" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--faked-system-time "${t}!" --no-auto-check-trustdb \
		--cert-digest-algo SHA512 --digest-algo SHA512 "$@"
}
fpr_of() { gpg --homedir "$GH" --batch --with-colons --list-keys -- "$1" | awk -F: '$1=="fpr"{print $10; exit}'; }

ecdsa_key() { # NAME CURVE
	g "$T0" --gen-key <<KEY
%no-protection
Key-Type: ECDSA
Key-Curve: $2
Key-Usage: sign,cert
Name-Real: $1 INSECURE
Name-Email: $1@example.org
Expire-Date: 0
%commit
KEY
}
for k in p256:nistp256 p384:nistp384 bp256:brainpoolP256r1 p521:nistp521; do
	ecdsa_key "${k%%:*}" "${k#*:}" 2>/dev/null
done
g "$T0" --quick-gen-key -- "target INSECURE <target@example.org>" ed25519 cert,sign never
P256=$(fpr_of p256@) P384=$(fpr_of p384@) BP256=$(fpr_of bp256@) P521=$(fpr_of p521@) TGT=$(fpr_of target@)

g "$T1" -u "$P384!" --quick-sign-key "$P256" >/dev/null 2>&1
for s in "$P256" "$P384" "$BP256" "$P521"; do
	g "$T1" -u "$s!" --quick-sign-key "$TGT" >/dev/null 2>&1
done
g "$T1" --armor --export "$P256" "$P384" "$BP256" "$P521" "$TGT" >"$OUT/keys.asc"

# the revocation certificate, with the answers gpg --gen-revoke asks for
# (create it? reason 0, no description, is this okay?)
printf 'y\n0\n\ny\n' | gpg --homedir "$GH" --no-tty --command-fd 0 --pinentry-mode loopback --passphrase '' \
	--faked-system-time "${TREV}!" --cert-digest-algo SHA512 --digest-algo SHA512 \
	--armor --gen-revoke "$P256" >"$OUT/p256-revocation.asc" 2>/dev/null
grep -q 'BEGIN PGP PUBLIC KEY BLOCK' "$OUT/p256-revocation.asc"
g "$TREV" --import "$OUT/p256-revocation.asc" 2>/dev/null
g "$TREV" --armor --export "$P256" >"$OUT/p256-revoked.asc"
# every signature made with SHA-512 (digest algo 10)
for f in keys.asc p256-revocation.asc p256-revoked.asc; do
	if gpg --list-packets <"$OUT/$f" | grep 'digest algo' | grep -qv 'digest algo 10,'; then
		echo "make-ecdsa.sh: $f has a signature not made with SHA-512" >&2
		exit 1
	fi
done
printf '%s\n' "p256 $P256" "p384 $P384" "bp256 $BP256" "p521 $P521" "target $TGT" >"$OUT/fingerprints"
