#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-revocation-fixtures.sh - regenerate tests/keyrings/trust/revocations.gpg
# and revocations.tsv: key revocations of each kind, for every trust model
# (tests/cli/T540-revocations.sh).  Same conventions as
# make-trust-fixtures.sh: INSECURE throw-away Ed25519 keys, a private
# temporary GnuPG home removed on exit, time frozen (day N = 2024-01-01 + N
# days, plus a running number of seconds).
#
#   ro certifies hc, sc, ss and ot on day 1 (ro is the root);
#   hc certifies th, sc certifies ts, ss certifies tu, ot certifies to, all
#   on day 1;
#   hc is revoked on day 10, reason 1 "key has been compromised" (hard);
#   sc is revoked on day 10, reason 3 "key is no longer used" (soft);
#   ss is revoked on day 10, reason 2 "key is superseded" (soft);
#   ot is revoked on day 10 with no reason (0: hard);
#   sc certifies tl on day 20, after its revocation (made in a second home
#   that never saw the revocation, then merged).
#
# Usage: tests/keyrings/trust/make-revocation-fixtures.sh [OUTDIR]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$here}
mkdir -p "$OUT"
# shell helpers: fixture_homes, day, g, key, sign, revoke_key
. "$here/../fixture-lib.sh"
fixture_homes g r

# gr DAY ARGS...: gpg at that day in the second home, $GH/r
gr() {
	day "$1"
	shift
	gpg --homedir "$GH/r" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--no-auto-check-trustdb --faked-system-time "$TS" "$@"
}
for n in ro hc sc ss ot th ts tu to tl; do key "$n" 0; done
sign 1 ro hc sc ss ot
sign 1 hc th
sign 1 sc ts
sign 1 ss tu
sign 1 ot to
# sc's certification of tl on day 20, from a home without the revocation
gpg --homedir "$GH/g" --batch --pinentry-mode loopback --passphrase '' --export-secret-keys "${F[sc]}" >"$GH/sc-sec.gpg"
gpg --homedir "$GH/g" --batch --export "${F[tl]}" >"$GH/tl.gpg"
gr 0 --import "$GH/sc-sec.gpg" "$GH/tl.gpg" >/dev/null 2>&1
revoke_key 10 hc 1
revoke_key 10 sc 3
revoke_key 10 ss 2
revoke_key 10 ot 0
gr 20 -u "${F[sc]}" --quick-sign-key "${F[tl]}" >/dev/null 2>&1
gpg --homedir "$GH/r" --batch --export "${F[tl]}" >"$GH/tl-r.gpg"
g 20 --import "$GH/tl-r.gpg" >/dev/null 2>&1
fprs=()
for n in ro hc sc ss ot th ts tu to tl; do fprs+=("${F[$n]}"); done
gpg --homedir "$GH/g" --batch --export "${fprs[@]}" >"$OUT/revocations.gpg"
cp "$GH/keys.tsv" "$OUT/revocations.tsv"
echo "wrote $OUT/revocations.gpg: $(wc -l <"$OUT/revocations.tsv") keys"
