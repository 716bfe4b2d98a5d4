#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Make docs/images/sheet.png and docs/images/slips.png: page 1 of the PDF
# verification sheet and of the PDF slips (with QR codes) of the fixture
# party (alice, bob, carol, dave from tests/keyrings), at 60 dpi.
# Usage: tests/keyrings/sheet/make-pictures.sh   (after make)
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
fx="$top/tests/keyrings"
ksp="$top/ksp"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
export GNUPGHOME="$w/gnupg-unused" TMPDIR="$w" KSP_DB="$w/p.db"
"$ksp" party init --name "Kernel KSP" --date 2027-01-15 --location "Room 1" >/dev/null
"$ksp" party add "$fx/alice-rsa.asc" "$fx/bob-ed25519.asc" "$fx/carol-nonlatin.asc" "$fx/dave-escape.asc" >/dev/null 2>&1
"$ksp" party close >/dev/null 2>&1
"$ksp" party sheet -o "$w/sheet.pdf" 2>/dev/null
"$ksp" party slips --qr --for 1 -o "$w/slips.pdf" 2>/dev/null
mkdir -p "$top/docs/images"
for k in sheet slips; do
	pdftoppm -png -r 60 -f 1 -l 1 -singlefile "$w/$k.pdf" "$top/docs/images/$k"
	echo "docs/images/$k.png"
done
