#!/usr/bin/env bash
# make demo: a whole party preparation on the bundled fixture keys, then
# the frozen list checked independently.  Everything goes to demo-out/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
out="$top/demo-out"
fx="$top/tests/keyrings"
rm -rf "$out"
mkdir -p "$out"
export KSP_DB="$out/party.db"
GNUPGHOME=$(mktemp -d)
export GNUPGHOME
trap 'rm -rf "$GNUPGHOME"' EXIT

step() { printf '\n\033[1m$ %s\033[0m\n' "$*" | sed "s|$top/||g"; }
run() { step "ksp $*"; "$ksp" "$@"; }

run party init --name "ksp demo party" --date 2027-01-15 --location "Room 1"
step "ksp party add (good keys, then the ones ksp must refuse)"
"$ksp" party add "$fx"/alice-rsa.asc "$fx"/bob-ed25519.asc "$fx"/carol-nonlatin.asc \
	"$fx"/dave-escape.asc || true
"$ksp" party add "$fx"/erin-expired.asc "$fx"/frank-revoked.asc "$fx"/grace-dsa1024.asc \
	"$fx"/heidi-noemail.asc || echo "(exit $? - refusals are a negative verdict)"
"$ksp" party add "$fx"/alice-secret.asc || echo "(exit $? - secret keys are never stored)"
run party list
run party close -o "$out/list.txt"
step "sha256sum list.txt; openssl dgst -ripemd160 list.txt  (independent check)"
(cd "$out" && sha256sum list.txt && openssl dgst -ripemd160 list.txt)
run party verify-list "$out/list.txt"
run party reopen --reason "a latecomer"
run party add "$fx"/party/p1-public.asc
run party close
run party list --json > "$out/list.json"
echo
echo "demo-out/ holds:"
echo "  party.db    the store (sqlite3 demo-out/party.db .tables)"
echo "  list.txt    the frozen participant list, version 1"
echo "  list.json   the participants as JSON"
