#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Re-signing weak certifications (issue 26): Alice (RSA) certified P1 and
# one of P2's two user IDs with SHA-1; P3 is the core and certifies Alice.
# 'ksp health --weak --signer ALICE' lists the two, the no-sha1 horizon
# loses P1 and P2; 'ksp party sign --resign-weak' (a campaign in the store,
# no frozen list) certifies exactly those user IDs again, per user ID,
# encrypted, in the delivery ledger; gpg sees SHA-256 in them; loaded back,
# health keeps P1 and P2 at no-sha1.  Private temporary GnuPG homes only.
. "$(dirname "$0")/test-lib.sh"
test_begin T555-resign-weak

fx="$TOP/tests/keyrings"
W=$TEST_TMP
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"
homes=()
cleanup() {
	for h in "${homes[@]}"; do
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
	done
	_test_cleanup
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# mkhome NAME FILE...: a GnuPG home holding these keys
mkhome() {
	local h="$W/$1"
	shift
	mkdir -m 700 "$h"
	homes+=("$h")
	echo allow-loopback-pinentry >"$h/gpg-agent.conf"
	for f in "$@"; do
		gpg --homedir "$h" --batch --pinentry-mode loopback --import "$f" >/dev/null 2>&1
	done
}
fpr_of() { gpg --homedir "$W/world" --batch --with-colons --list-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
# hashes of the certifications by key id $2 in the packets of file $1
cert_hashes() {
	gpg --homedir "$W/world" --batch --list-packets "$1" 2>/dev/null |
		awk -v k="$2" '/^:signature packet:/ { want = index($0, k) > 0 } want && /digest algo/ { sub(/.*digest algo /, ""); sub(/,.*/, ""); print; want = 0 }' |
		sort | tr '\n' ' '
}

# ---- the world: P3 certifies Alice (SHA-256), Alice certifies P1 and P2's
# first user ID with SHA-1 ------------------------------------------------
mkhome world "$fx/alice-secret.asc" "$fx/party/p3-secret.asc" "$fx/party/p1-public.asc" "$fx/party/p2-public.asc"
FA=$(fpr_of alice@example.org)
F1=$(fpr_of p1@example.org)
F2=$(fpr_of p2@example.org)
F3=$(fpr_of p3@example.org)
expect_eq "${#FA}${#F1}${#F2}${#F3}" 40404040 "fixture fingerprints"
g() { gpg --homedir "$W/world" --batch --yes --pinentry-mode loopback --passphrase '' "$@" >/dev/null 2>"$W/gpg.err"; }
g -u "$F3" --quick-sign-key "$FA" || echo "gpg: $(cat "$W/gpg.err")" >&2
g -u "$FA" --allow-weak-key-signatures --cert-digest-algo SHA1 --quick-sign-key "$F1" || echo "gpg: $(cat "$W/gpg.err")" >&2
g -u "$FA" --allow-weak-key-signatures --cert-digest-algo SHA1 --quick-sign-key "$F2" "P2 INSECURE <p2@example.org>" || echo "gpg: $(cat "$W/gpg.err")" >&2
gpg --homedir "$W/world" --batch --allow-weak-key-signatures --export "$FA" "$F1" "$F2" "$F3" >"$W/ring.gpg"
gpg --homedir "$W/world" --batch --allow-weak-key-signatures --export "$F1" "$F2" >"$W/p12.gpg"
expect_eq "$(cert_hashes "$W/p12.gpg" "${FA:24}")" "2 2 " "Alice's fixture certifications are SHA-1"

DB="$W/store.db"
expect_code 0 $KSP -d "$DB" party init --name "SHA-1 campaign" --date 2026-01-01
expect_code 0 $KSP -q -d "$DB" wot load "$W/ring.gpg"

# ---- health: the two weak certifications, and what they carry -------------
# (made now, after 2019-01-19: they count only with --sha1 yes, the policy of
# a web that has not moved to gpg 2.2's before-2019 rule yet)
expect_code 1 $KSP -d "$DB" --json health --core-fpr "$F3" --sha1 yes --repair-at no-sha1 --weak --signer "$FA"
cp "$OUT" "$W/before.json"
pyj() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
expect_eq "$(pyj "$W/before.json" 'sorted((w["target"], w["hash"], w["carries"]) for w in d["weak"])')" \
	"$(python3 -c 'import sys; print(sorted([(sys.argv[1], "SHA-1", 1), (sys.argv[2], "SHA-1", 1)]))' "$F1" "$F2")" \
	"health lists Alice's SHA-1 certifications of P1 and P2, each carrying a path"
expect_eq "$(pyj "$W/before.json" '[sorted(h["below"]) for h in d["horizons"] if h["label"] in ("now", "no-sha1")]')" \
	"$(python3 -c 'import sys; print([[], sorted(sys.argv[1:])])' "$F1" "$F2")" \
	"P1 and P2 trusted now, below K without SHA-1"
# the table (repair at +90d: nothing falls by then) names the campaign
expect_code 0 $KSP -d "$DB" health --core-fpr "$F3" --sha1 yes --weak --signer "$FA"
expect_match "$OUT" "ksp party sign --as $FA --resign-weak"

# ---- refusals ---------------------------------------------------------------
mkhome alice "$fx/alice-secret.asc"
expect_code 2 env GNUPGHOME="$W/alice" $KSP -d "$DB" party sign --as "$FA" --resign-weak --all-checked
expect_match "$ERR" "not --all-checked"
expect_code 1 env GNUPGHOME="$W/alice" $KSP -d "$DB" party sign --as "$FA" --resign-weak --outbox "$W/out0" "$F3"
expect_match "$OUT" "no MD5/SHA-1/RIPEMD-160 certification of yours"
expect_code 2 env GNUPGHOME="$W/alice" $KSP -d "$DB" party sign --as "$FA" --resign-weak 1
expect_match "$ERR" "not a full fingerprint"

# ---- the campaign: every weak certification, made again ---------------------
expect_code 0 env GNUPGHOME="$W/alice" $KSP -d "$DB" --json party sign --as "$FA" --resign-weak --outbox "$W/outbox"
cp "$OUT" "$W/sign.json"
expect_eq "$(pyj "$W/sign.json" 'sorted((r["fingerprint"], r["uid"], r["status"]) for r in d["results"])')" \
	"$(python3 -c 'import sys; print(sorted([(sys.argv[1], "P1 INSECURE <p1@example.org>", "signed"), (sys.argv[2], "P2 INSECURE <p2@example.org>", "signed")]))' "$F1" "$F2")" \
	"exactly the two weakly certified user IDs signed (not P2's second)"
expect_eq "$(sqlite3 "$DB" "SELECT count(*) FROM deliveries d JOIN signed s ON s.id = d.signed_id WHERE s.signer_fpr = '$FA' AND d.state = 'written'")" 2 \
	"both in the delivery ledger"
expect_eq "$(sqlite3 "$DB" "SELECT count(*) FROM events WHERE what = 'resign'")" 1 "the campaign's event"
expect_eq "$(ls "$W/outbox" | grep -c '\.eml$')" 2 "two messages in the outbox"
# nothing left behind, Alice's home unchanged
expect_eq "$(ls -A "$TMPDIR")" "" "no temporary GnuPG home left"
expect_eq "$(gpg --homedir "$W/alice" --batch --with-colons --list-keys 2>/dev/null | grep -c '^pub')" 1 "Alice's home holds only her key"

# a second run: made already
expect_code 0 env GNUPGHOME="$W/alice" $KSP -d "$DB" --json party sign --as "$FA" --resign-weak --outbox "$W/outbox"
expect_eq "$(pyj "$OUT" '[r["status"] for r in d["results"]]')" "['already', 'already']" "a second run signs nothing again"

# ---- the owners decrypt and publish; gpg sees SHA-256 ----------------------
mkhome p1 "$fx/party/p1-secret.asc"
mkhome p2 "$fx/party/p2-secret.asc"
: >"$W/back.gpg"
for f in "$W"/outbox/*.asc; do
	case $f in *"$F1"*) h=p1 ;; *) h=p2 ;; esac
	gpg --homedir "$W/$h" --batch --pinentry-mode loopback --passphrase '' --decrypt "$f" 2>/dev/null |
		gpg --homedir "$W/world" --batch --dearmor >>"$W/back.gpg" 2>/dev/null
done
expect_eq "$(cert_hashes "$W/back.gpg" "${FA:24}")" "8 8 " "the new certifications are SHA-256 (gpg --list-packets)"
expect_code 0 $KSP -q -d "$DB" wot load "$W/back.gpg"
expect_code 0 $KSP -d "$DB" --json health --core-fpr "$F3" --sha1 yes --repair-at no-sha1 --weak --signer "$FA"
cp "$OUT" "$W/after.json"
expect_eq "$(pyj "$W/after.json" '[len(h["below"]) for h in d["horizons"]]')" "[0, 0, 0, 0, 0]" \
	"P1 and P2 keep their paths without SHA-1"
expect_eq "$(pyj "$W/after.json" 'd["weak"]')" "[]" "no weak certification left to make again (SHA-256 ones beside them)"
# and the campaign has nothing left to do
expect_code 0 env GNUPGHOME="$W/alice" $KSP -d "$DB" --json party sign --as "$FA" --resign-weak --outbox "$W/outbox"
expect_eq "$(pyj "$OUT" 'd["results"]')" "[]" "nothing left to certify again"

test_done
