#!/usr/bin/env bash
# make-fixtures.sh - regenerate the OpenPGP test fixtures in tests/keyrings/.
#
# All keys are INSECURE test keys: unprotected secret keys, every UID carries
# the word "INSECURE".  Nothing here touches ~/.gnupg: everything is generated
# in a private temporary GNUPGHOME that is removed on exit.
#
# Requires GnuPG 2.2 (tested with Debian's gpg 2.2.40).
#
# Times are frozen with --faked-system-time 'YYYYMMDDTHHMMSS!' so that key
# creation dates, expiry dates and signature dates are stable across reruns.
# Key material is random, so reruns are NOT byte-identical and fingerprints
# change: the committed files are the fixtures; rerun only on purpose.
#
# Usage: tests/keyrings/make-fixtures.sh [OUTDIR]   (default: script dir)

set -euo pipefail

OUT=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$OUT" "$OUT/party"

GH=$(mktemp -d)
cleanup() {
    gpgconf --homedir "$GH" --kill all >/dev/null 2>&1 || true
    rm -rf "$GH"
}
trap cleanup EXIT
chmod 700 "$GH"

T_DEFAULT=20240101T000000   # creation time for all normal keys
T_UPDATE=20240101T000100    # primary-UID flag update (must be newer than T_DEFAULT)
T_EXPIRED=20200101T000000   # erin: created 2020-01-01, expires after 1y

# g TIME ARGS... : run gpg in the private home with frozen time, no passphrase
g() {
    local t=$1; shift
    gpg --homedir "$GH" --batch --quiet --no-tty \
        --pinentry-mode loopback --passphrase '' \
        --faked-system-time "${t}!" --no-auto-check-trustdb \
        "$@"
}

# fpr_of UID-SUBSTRING : fingerprint of the (only) key whose UID matches
fpr_of() {
    gpg --homedir "$GH" --batch --with-colons --list-keys -- "$1" \
        | awk -F: '$1=="fpr"{print $10; exit}'
}

# ed_key TIME EXPIRE UID : Ed25519 primary (cert,sign) + cv25519 encr subkey.
# Prints the primary fingerprint.
ed_key() {
    local t=$1 exp=$2 uid=$3 fpr
    g "$t" --quick-gen-key -- "$uid" ed25519 cert,sign "$exp"
    # The newest key is the last one listed; look it up by exact UID bytes.
    fpr=$(gpg --homedir "$GH" --batch --with-colons --list-keys \
          | awk -F: '$1=="pub"{want=1} $1=="fpr"&&want{f=$10; want=0} END{print f}')
    g "$t" --quick-add-key "$fpr" cv25519 encr "$exp"
    echo "$fpr"
}

# add_uid FPR PRIMARY-UID NEW-UID : add a second UID, keep the first primary.
# Without a primary flag gpg treats the UID with the newest self-signature as
# primary, and with frozen time both tie, so set the flag explicitly.  The
# flag is a replacement self-signature, which gpg requires to be strictly newer
# ("Time conflict" otherwise), hence T_UPDATE.
add_uid() {
    g "$T_DEFAULT" --quick-add-uid "$1" "$3"
    g "$T_UPDATE" --quick-set-primary-uid "$1" "$2"
}

export_pub() { g "$T_DEFAULT" --armor --export "$1" > "$2"; }
export_sec() { g "$T_DEFAULT" --armor --export-secret-keys "$1" > "$2"; }

# --- alice: RSA 3072 + RSA 3072 encryption subkey, two UIDs ------------------
make_alice() {
    g "$T_DEFAULT" --quick-gen-key -- "Alice INSECURE <alice@example.org>" \
        rsa3072 cert,sign never
    ALICE=$(fpr_of "alice@example.org")
    g "$T_DEFAULT" --quick-add-key "$ALICE" rsa3072 encr never
    add_uid "$ALICE" "Alice INSECURE <alice@example.org>" \
        "Alice Work INSECURE <alice@work.example>"
    export_pub "$ALICE" "$OUT/alice-rsa.asc"
    export_sec "$ALICE" "$OUT/alice-secret.asc"
}

# --- bob: Ed25519 + cv25519 ---------------------------------------------------
make_bob() {
    BOB=$(ed_key "$T_DEFAULT" never "Bob INSECURE <bob@example.org>")
    export_pub "$BOB" "$OUT/bob-ed25519.asc"
}

# --- carol: non-Latin UIDs (Cyrillic, Japanese) -------------------------------
make_carol() {
    local uid1="Кэрол Тест INSECURE <carol@example.org>"
    CAROL=$(ed_key "$T_DEFAULT" never "$uid1")
    add_uid "$CAROL" "$uid1" "キャロル INSECURE <carol@example.jp>"
    export_pub "$CAROL" "$OUT/carol-nonlatin.asc"
}

# --- dave: hostile UIDs (ANSI escape + U+202E RTL override; HTML) ------------
# gpg 2.2 accepts the control bytes as-is with --quick-gen-key --batch
# (no --allow-freeform-uid needed).
make_dave() {
    local uid1 uid2
    uid1=$(printf 'Dave \033[31mRED\033[0m \342\200\256 INSECURE <dave@example.org>')
    uid2='<script>alert(1)</script> INSECURE <dave2@example.org>'
    DAVE=$(ed_key "$T_DEFAULT" never "$uid1")
    add_uid "$DAVE" "$uid1" "$uid2"
    export_pub "$DAVE" "$OUT/dave-escape.asc"
}

# --- erin: expired (created 2020-01-01, 1y expiry) ---------------------------
make_erin() {
    ERIN=$(ed_key "$T_EXPIRED" 1y "Erin Expired INSECURE <erin@example.org>")
    export_pub "$ERIN" "$OUT/erin-expired.asc"
}

# --- frank: revoked (auto-generated revocation cert imported) ----------------
make_frank() {
    FRANK=$(ed_key "$T_DEFAULT" never "Frank Revoked INSECURE <frank@example.org>")
    # gpg writes a revocation certificate to openpgp-revocs.d/ at key
    # generation; its armor header is prefixed with ':' to stop accidental
    # import.  Strip that and import it.
    sed 's/^:-----BEGIN/-----BEGIN/' "$GH/openpgp-revocs.d/$FRANK.rev" \
        | g "$T_DEFAULT" --import
    export_pub "$FRANK" "$OUT/frank-revoked.asc"
}

# --- grace: DSA 1024 + ElGamal 1024 (legacy/weak) ----------------------------
make_grace() {
    g "$T_DEFAULT" --expert --gen-key <<'EOF'
%no-protection
Key-Type: DSA
Key-Length: 1024
Key-Usage: sign,cert
Subkey-Type: ELG-E
Subkey-Length: 1024
Subkey-Usage: encrypt
Name-Real: Grace DSA INSECURE
Name-Email: grace@example.org
Expire-Date: 0
%commit
EOF
    GRACE=$(fpr_of "grace@example.org")
    export_pub "$GRACE" "$OUT/grace-dsa1024.asc"
}

# --- heidi: UID without an e-mail address ------------------------------------
make_heidi() {
    HEIDI=$(ed_key "$T_DEFAULT" never "Heidi No Email INSECURE")
    export_pub "$HEIDI" "$OUT/heidi-noemail.asc"
}

# --- malformed / multi-key inputs --------------------------------------------
make_misc() {
    g "$T_DEFAULT" --armor --export "$ALICE" "$BOB" > "$OUT/several.asc"
    g "$T_DEFAULT" --export "$ALICE" "$BOB" > "$OUT/several.gpg"
    local tmp="$GH/bob.gpg" n
    g "$T_DEFAULT" --export "$BOB" > "$tmp"
    n=$(( $(wc -c < "$tmp") / 2 ))
    head -c "$n" "$tmp" > "$OUT/truncated.gpg"
    printf 'this is not an OpenPGP key\n' > "$OUT/not-a-key.txt"
    : > "$OUT/empty.asc"
}

# --- party: p1..p4 for after-party signing tests -----------------------------
make_party() {
    local i fpr
    for i in 1 2 3 4; do
        fpr=$(ed_key "$T_DEFAULT" never "P$i INSECURE <p$i@example.org>")
        if [ "$i" = 2 ]; then
            add_uid "$fpr" "P2 INSECURE <p2@example.org>" \
                "P2 Second INSECURE <p2b@example.org>"
        fi
        export_pub "$fpr" "$OUT/party/p$i-public.asc"
        export_sec "$fpr" "$OUT/party/p$i-secret.asc"
    done
}

make_alice
make_bob
make_carol
make_dave
make_erin
make_frank
make_grace
make_heidi
make_misc
make_party

echo "fixtures written to $OUT" >&2
