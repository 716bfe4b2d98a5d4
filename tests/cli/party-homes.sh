# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by bash tests after test-lib.sh (which /bin/sh tests source too,
# so it holds no bash arrays).
# ---- GnuPG homes in a short folder (the party tests) ----------------------
# party_homes: the test's GnuPG homes and ksp's private ones (TMPDIR) in a
# short folder of their own, $GH: gpg-agent's socket path must fit a Unix
# socket address (108 bytes), which a home under a deep checkout
# (check-asan's build-asan/ in a CI clone in a temporary folder) does not.
# Each home made goes into homes[], each server started into pids[]: on
# every exit the servers are stopped by pid, the homes' agents killed and
# $GH removed.
party_homes() {
	GH=$(mktemp -d /tmp/ksp-gh.XXXXXX) || exit 2
	export TMPDIR="$GH/tmp"
	mkdir -p "$TMPDIR"
	homes=()
	pids=()
	trap _party_homes_cleanup EXIT
	trap '_party_homes_cleanup; exit 130' INT TERM
}
_party_homes_cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	for h in "${homes[@]}"; do
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
	done
	rm -rf "$GH"
	_test_cleanup
}
# party_gen N: participant N's home $GH/hN with "PN <pN@example.org>", an
# Ed25519 key with a Curve25519 encryption subkey, exported to
# $TEST_TMP/pN.asc; its fingerprint in $FN
party_gen() {
	local h="$GH/h$1" f
	mkdir -m 700 "$h"
	homes+=("$h")
	gpg --homedir "$h" --batch --passphrase "" --quick-gen-key "P$1 <p$1@example.org>" ed25519 cert never >/dev/null 2>&1
	f=$(gpg --homedir "$h" --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
	gpg --homedir "$h" --batch --passphrase '' --quick-add-key "$f" cv25519 encr never >/dev/null 2>&1
	gpg --homedir "$h" --batch --armor --export "$f" > "$TEST_TMP/p$1.asc" 2>/dev/null
	eval "F$1=$f"
}
