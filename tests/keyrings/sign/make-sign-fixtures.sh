#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-sign-fixtures.sh - regenerate tests/keyrings/sign/, the keys of the
# 'ksp party sign' tests (tests/cli/T400-sign.sh) that must be skipped.
#
# All keys are INSECURE test keys (unprotected secret keys, "INSECURE" in
# every UID).  Everything happens in a private temporary GNUPGHOME, removed
# on exit; ~/.gnupg is never touched.  GnuPG 2.2 (tested with 2.2.40).
# Times are frozen as in ../make-fixtures.sh; key material is random, so a
# rerun changes the fingerprints (the tests read them from the files).
#
# Usage: tests/keyrings/sign/make-sign-fixtures.sh [OUTDIR]  (default: script dir)
set -euo pipefail

OUT=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$OUT"
GH=$(mktemp -d)
cleanup() {
    gpgconf --homedir "$GH" --kill all >/dev/null 2>&1 || true
    rm -rf "$GH"
}
trap cleanup EXIT
chmod 700 "$GH"

T_DEFAULT=20240101T000000
T_UPDATE=20240101T000100

g() {
    local t=$1; shift
    gpg --homedir "$GH" --batch --quiet --no-tty \
        --pinentry-mode loopback --passphrase '' \
        --faked-system-time "${t}!" --no-auto-check-trustdb "$@"
}

newest_fpr() {
    gpg --homedir "$GH" --batch --with-colons --list-keys \
        | awk -F: '$1=="pub"{want=1} $1=="fpr"&&want{f=$10; want=0} END{print f}'
}

# ivan: Ed25519 [SC] and no subkey at all: nothing to encrypt to.
g "$T_DEFAULT" --quick-gen-key -- "Ivan NoEnc INSECURE <ivan@example.org>" ed25519 cert,sign never
IVAN=$(newest_fpr)
g "$T_DEFAULT" --armor --export "$IVAN" > "$OUT/ivan-noenc.asc"

# judy: Ed25519 + cv25519, one UID with an address (primary), one without.
g "$T_DEFAULT" --quick-gen-key -- "Judy INSECURE <judy@example.org>" ed25519 cert,sign never
JUDY=$(newest_fpr)
g "$T_DEFAULT" --quick-add-key "$JUDY" cv25519 encr never
g "$T_DEFAULT" --quick-add-uid "$JUDY" "Judy No Address INSECURE"
g "$T_UPDATE" --quick-set-primary-uid "$JUDY" "Judy INSECURE <judy@example.org>"
g "$T_DEFAULT" --armor --export "$JUDY" > "$OUT/judy-mixed.asc"

echo "fixtures written to $OUT" >&2
