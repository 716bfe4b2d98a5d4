# SPDX-License-Identifier: LGPL-2.1-or-later
# Source from a CLI test that uses the Debian keyring (package debian-keyring,
# which make's dependency step installs).
#
#   DEBIAN_RING            the keyring file
#   debian_ring_missing    prints why the keyring cannot be used (naming the
#                          missing package or file), nothing when it can
#   debian_ring_missing --exact
#                          the same, and the file must be the version that
#                          tests/data/debian-keyring's reference numbers are
#                          for (2022.12.24, sha256 below)
DEBIAN_RING=/usr/share/keyrings/debian-keyring.gpg
DEBIAN_RING_SHA256=115140a66a82e8aff366b5f322e1b2ff0aea610b88b02474e1a27dcd600aabe5
debian_ring_missing() {
	if [ ! -e "$DEBIAN_RING" ]; then
		echo "package debian-keyring is not installed ($DEBIAN_RING missing; make deps installs it)"
	elif [ ! -r "$DEBIAN_RING" ]; then
		echo "$DEBIAN_RING is not readable"
	elif [ "${1:-}" = --exact ] &&
		[ "$(sha256sum <"$DEBIAN_RING" | cut -d' ' -f1)" != "$DEBIAN_RING_SHA256" ]; then
		echo "$DEBIAN_RING is not version 2022.12.24 (sha256 differs), which tests/data/debian-keyring's numbers are for"
	fi
}
