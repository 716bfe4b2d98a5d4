#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-trust-fixtures.sh - regenerate the keyrings of tests/keyrings/trust/
# (ksp trust: tests/cli/T500-trust.sh; GnuPG's model: T520-gnupg-model.sh).
#
# All keys are INSECURE throw-away test keys (Ed25519, no passphrase; every
# user ID says INSECURE).  Everything happens in a private temporary GnuPG
# home that is removed on exit; ~/.gnupg is never touched.  Requires GnuPG
# 2.2 (made with Debian's gpg 2.2.40).
#
# Time is frozen for every operation (--faked-system-time 'T!'): day N
# means 2024-01-01 + N days, plus a running number of seconds so that no two
# signatures of a key share a second.  Key material is random, so reruns
# change every fingerprint; keys.tsv (NAME TAB FINGERPRINT) is rewritten
# with them and the tests read it.  The committed files are the fixtures:
# rerun only on purpose.
#
# Usage: tests/keyrings/trust/make-trust-fixtures.sh [OUTDIR]
#
# Files (all binary OpenPGP, exported with gpg --export):
#   genuine.gpg   fc certifies ft.
#   forged.gpg    the same, with one bit of fc's certification on ft flipped
#                 (tests/tools/pgp-tamper.py).
#   revoked.gpg   rc1 and rc2 certify rt on day 1; rc1 is revoked (key
#                 revocation, reason 0 "no reason") on day 10.
#   expiry.gpg    es: created day 0 without expiry; certifies et on day 20;
#                 a self-signature of day 5 makes it expire on day 10; one of
#                 day 30 removes the expiry again.  All three self-signatures
#                 are kept (merged from exports of each stage), so the
#                 certification of day 20 is dated inside es's expired window.
#                 ep: created day 9, certifies et2 with a signature dated
#                 day 4, before ep existed (gpg --ignore-time-conflict).
#                 ex: expires day 10 (for good); certifies etx on day 1.
#   chain.gpg     h0 -> h1 -> h2 -> h3 -> h4 -> h5 -> h6 (6 certifications).
#   disjoint.gpg  d1 -> dm, d2 -> dm, dm -> dt (two paths through one key);
#                 d1 -> da -> dt2, d2 -> db -> dt2 (two disjoint paths);
#                 diamond: g1 -> gx -> gt, g1 -> gy -> gz -> gt, g2 -> gx.
#   certrev.gpg   vc certifies vt on day 1, revokes that certification (0x30)
#                 on day 10, certifies vt again on day 20.
#   gnupg.gpg     GnuPG's classic model (ownertrust in gnupg.ownertrust):
#                 u (ultimate) certifies m1 m2 m3 f1 a1 nv rx ex2 cr on day 1,
#                 trust-signs t1 (level 120, depth 1), makes a 0x11 (persona,
#                 level 1) certification of p, certifies only the second
#                 user ID of k2 (revoked on day 3); a1 -> a2 -> a3 -> a4 and
#                 a1 -> m4; m1 m2 -> x2; m1 m2 m3 -> x3; m1 m2 m4 -> z;
#                 f1 -> y; nv -> q1; x3 -> q2; t1 -> w; rx is revoked on
#                 day 3; ex2 expires on day 30; u revokes its certification of
#                 cr on day 3.
#   gnupg.ownertrust  u:6 (ultimate), m1..m4:4 (marginal), f1 a1 a2 a3:5
#                 (full), nv:3 (never), in gpg --export-ownertrust format.
#   keys.tsv      name, fingerprint.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
OUT=${1:-$here}
mkdir -p "$OUT"

# shell helpers: fixture_homes, day, g, key, sign, revoke_key
. "$here/../fixture-lib.sh"
fixture_homes g m

# export FILE NAME...
export_keys() {
	local f=$1 fprs=()
	shift
	for x; do fprs+=("${F[$x]}"); done
	gpg --homedir "$GH/g" --batch --export "${fprs[@]}" >"$GH/$f"
}
# tsign DAY SIGNER TARGET LEVEL DEPTH: a trust signature (LEVEL 1 marginal
# = 60, 2 full = 120), no regular expression
tsign() {
	day "$1"
	printf 'tsign\n%s\n%s\n\ny\nsave\n' "$4" "$5" |
		gpg --homedir "$GH/g" --batch --no-tty --pinentry-mode loopback --passphrase '' --command-fd 0 \
			--no-auto-check-trustdb --faked-system-time "$TS" -u "${F[$2]}" \
			--edit-key "${F[$3]}" >/dev/null 2>&1
}

# --- forged / genuine ------------------------------------------------------
key fc 0
key ft 0
sign 1 fc ft
export_keys genuine.gpg fc ft
export_keys ft-only.gpg ft
python3 "$top/tests/tools/pgp-tamper.py" "$GH/ft-only.gpg" "$GH/ft-forged.gpg" "${F[fc]:24:16}" >/dev/null
export_keys fc-only.gpg fc
cat "$GH/fc-only.gpg" "$GH/ft-forged.gpg" >"$GH/forged.gpg"

# --- revoked core key ------------------------------------------------------
key rc1 0
key rc2 0
key rt 0
sign 1 rc1 rt
sign 1 rc2 rt
revoke_key 10 rc1
export_keys revoked.gpg rc1 rc2 rt

# --- expiry ----------------------------------------------------------------
key es 0
key et 0
export_keys es-0.gpg es
sign 20 es et
g 5 --quick-set-expire "${F[es]}" 5d 2>/dev/null   # day 5 + 5d = day 10
export_keys es-1.gpg es
g 30 --quick-set-expire "${F[es]}" 0 2>/dev/null
export_keys es-2.gpg es
key et2 0
key ep 9
g 4 --ignore-time-conflict -u "${F[ep]}" --quick-sign-key "${F[et2]}" 2>/dev/null
key ex 0 10d
key etx 0
sign 1 ex etx
export_keys expiry-rest.gpg et et2 ep ex etx
# merge the three stages of es (gpg keeps every self-signature on import)
gpg --homedir "$GH/m" --batch --quiet --import "$GH/es-0.gpg" "$GH/es-1.gpg" "$GH/es-2.gpg" 2>/dev/null
gpg --homedir "$GH/m" --batch --export "${F[es]}" >"$GH/es-all.gpg"
cat "$GH/es-all.gpg" "$GH/expiry-rest.gpg" >"$GH/expiry.gpg"

# --- a chain of 6 certifications -------------------------------------------
for i in 0 1 2 3 4 5 6; do key "h$i" 0; done
for i in 0 1 2 3 4 5; do sign 1 "h$i" "h$((i + 1))"; done
export_keys chain.gpg h0 h1 h2 h3 h4 h5 h6

# --- disjointness ----------------------------------------------------------
for n in d1 d2 dm dt da db dt2 g1 g2 gx gy gz gt; do key "$n" 0; done
sign 1 d1 dm da
sign 1 d2 dm db
sign 1 dm dt
sign 1 da dt2
sign 1 db dt2
sign 1 g1 gx gy
sign 1 g2 gx
sign 1 gx gt
sign 1 gy gz
sign 1 gz gt
export_keys disjoint.gpg d1 d2 dm dt da db dt2 g1 g2 gx gy gz gt

# --- certification revocation ----------------------------------------------
key vc 0
key vt 0
gpg --homedir "$GH/g" --batch --pinentry-mode loopback --passphrase '' --export-secret-keys "${F[vc]}" >"$GH/vc-sec.gpg"
export_keys vt-0.gpg vt
sign 1 vc vt
g 10 -u "${F[vc]}" --quick-revoke-sig "${F[vt]}" "${F[vc]}" >/dev/null 2>&1
# gpg will not certify a user ID again once it holds a (revoked)
# certification by the same key: certify in a second home that never saw
# the first one, and merge the new certification in
mkdir -m 700 "$GH/r"
gr() {
	gpg --homedir "$GH/r" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--no-auto-check-trustdb "$@"
}
gr --import "$GH/vc-sec.gpg" "$GH/vt-0.gpg" 2>/dev/null
day 20
gr --faked-system-time "$TS" -u "${F[vc]}" --quick-sign-key "${F[vt]}" 2>/dev/null
gr --export "${F[vt]}" >"$GH/vt-r.gpg"
gpgconf --homedir "$GH/r" --kill all >/dev/null 2>&1 || true
g 20 --import "$GH/vt-r.gpg" 2>/dev/null
export_keys certrev.gpg vc vt

# --- GnuPG's classic model -------------------------------------------------
for n in u m1 m2 m3 m4 f1 a1 a2 a3 a4 x2 x3 z y nv q1 q2 t1 w rx cr p k2; do key "$n" 0; done
key ex2 0 30d
g 0 --quick-add-uid "${F[k2]}" "k2 second INSECURE <k2b@example.org>" >/dev/null 2>&1
sign 1 u m1 m2 m3 f1 a1 nv rx ex2 cr
tsign 1 u t1 2 1
g 1 -u "${F[u]}" --default-cert-level 1 --quick-sign-key "${F[p]}" 2>/dev/null
g 1 -u "${F[u]}" --quick-sign-key "${F[k2]}" "k2 second INSECURE <k2b@example.org>" 2>/dev/null
sign 2 a1 a2 m4
sign 2 a2 a3
sign 2 a3 a4
sign 2 m1 x2 x3 z
sign 2 m2 x2 x3 z
sign 2 m3 x3
sign 2 m4 z
sign 2 f1 y
sign 2 nv q1
sign 2 x3 q2
sign 2 t1 w
revoke_key 3 rx
g 3 -u "${F[u]}" --quick-revoke-sig "${F[cr]}" "${F[u]}" >/dev/null 2>&1
g 3 --quick-revoke-uid "${F[k2]}" "k2 second INSECURE <k2b@example.org>" >/dev/null 2>&1
export_keys gnupg.gpg u m1 m2 m3 m4 f1 a1 a2 a3 a4 x2 x3 z y nv q1 q2 t1 w rx cr p k2 ex2
{
	echo "# ownertrust for gnupg.gpg (gpg --import-ownertrust format)"
	echo "${F[u]}:6:"
	for n in m1 m2 m3 m4; do echo "${F[$n]}:4:"; done
	for n in f1 a1 a2 a3; do echo "${F[$n]}:5:"; done
	echo "${F[nv]}:3:"
} >"$GH/gnupg.ownertrust"

for f in genuine forged revoked expiry chain disjoint certrev gnupg; do
	cp "$GH/$f.gpg" "$OUT/$f.gpg"
done
cp "$GH/gnupg.ownertrust" "$OUT/gnupg.ownertrust"
cp "$GH/keys.tsv" "$OUT/keys.tsv"
echo "wrote $OUT: $(wc -l <"$OUT/keys.tsv") keys"
