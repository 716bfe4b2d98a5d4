#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes docs/images/party-graph.png and docs/images/trust-path.png with
# 'ksp graph' from the public Arch Linux keyring (tests/data/
# archlinux, 2023-03-20), at its reference time 2023-03-21T00:00:00Z.
#
#  party-graph.png  a party of the twelve keys of lowest MSD in the Arch
#                   strong set (those 'ksp party add' accepts: keys that have
#                   expired since are refused, so a later run may draw
#                   fewer), with every certification of the keyring loaded;
#                   --missing draws the certifications still to be made.
#  trust-path.png   the verdict of 'ksp trust' for Pierre Schmitz's key
#                   with the five Arch main keys as the core, at least five
#                   vertex-disjoint paths of at most two certifications.
#
# Usage: tests/keyrings/make-graph-pictures.sh [OUTDIR]   (default docs/images)
# Needs a built ksp (make); private temporary store and GnuPG home.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ksp="$top/ksp"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
arch="$top/tests/data/archlinux"
out="${1:-$top/docs/images}"
at=@1679356800 # reference.json: reference_time_unix
[ -f "$arch/archlinux.gpg" ] || { echo "$arch/archlinux.gpg not found" >&2; exit 2; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -m 700 "$w/gnupg"
export GNUPGHOME="$w/gnupg"

# the whole keyring, for the strong set, MSD ranks and the trust picture
"$ksp" -d "$w/arch.db" wot load "$arch/archlinux.gpg" >/dev/null
"$ksp" -d "$w/arch.db" --json wot stats --at "$at" --top 12 |
	python3 -c 'import json,sys; [print(t["fingerprint"]) for t in json.load(sys.stdin)["top"]]' >"$w/fprs"

# the party: those keys as participants, then the keyring's certifications
gpg -q --no-default-keyring --keyring "$arch/archlinux.gpg" --export $(cat "$w/fprs") >"$w/keys.gpg"
"$ksp" -d "$w/party.db" party init --name "Arch Linux packagers (illustration)" --date 2023-03-20 >/dev/null
"$ksp" -d "$w/party.db" party add --allow-weak --allow-expiring "$w/keys.gpg" || true
"$ksp" -d "$w/party.db" wot load "$arch/archlinux.gpg" >/dev/null
"$ksp" -d "$w/party.db" graph --party --missing --at "$at" -o "$out/party-graph.png"

# the trust verdict and its paths
"$ksp" -d "$w/arch.db" graph --trust 4AA4767BBC9C4B1D18AE28B77F2D434B9741E8AC --core "$arch/archlinux-trusted" \
	--max-depth 2 --min-paths 5 --at "$at" -o "$out/trust-path.png"
