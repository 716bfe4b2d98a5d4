#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the hostile-user-ID fixtures of tests/keyrings/hostile/.

The key is an INSECURE Ed25519 test key made from a fixed seed, with every
signature dated 2024-01-01, so reruns are byte-identical (Ed25519 signatures
are deterministic).  Needs python3-cryptography; nothing else, no GnuPG.

  uids.pgp / uids.asc  one key, every user ID properly self-signed (0x13):
      0 "Hostile INSECURE <hostile@example.org>"           (primary)
      1 terminal escapes: OSC title, clear screen, colours, BEL, backspace
      2 RTL override U+202E and isolates U+2066..U+2069, zero-width space
      3 a NUL byte inside
      4 invalid UTF-8: 0xFF 0xFE, truncated 0xC3, surrogate ED A0 80,
        overlong C0 AF, and a C1 control C2 9B (CSI)
      5 65536 bytes: 'A' * 65511 + " INSECURE <long@example.org>"
  badsig.pgp  the same key with one more user ID whose self-signature
      does not verify (its last signature byte flipped)
  short.pgp   uids.pgp without the 64 KB user ID (GnuPG refuses user ID
      packets over 2 KB; this is the one `ksp party add` takes)

Usage: tests/keyrings/hostile/make-hostile.py [OUTDIR]  (default: its dir)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from pgpcraft import Key, armor, packet  # noqa: E402  (tests/tools/pgpcraft.py)

SEED = b"ksp hostile fixture INSECURE 01!"  # 32 bytes: the key is public knowledge
UIDS = [
    b"Hostile INSECURE <hostile@example.org>",
    b"Esc \x1b]0;pwned\x07\x1b[2J\x1b[31mRED\x1b[0m\x08\x08 INSECURE <esc@example.org>",
    "Rtl \u202egro.elpmaxe@live\u202c \u2066iso\u2069 zw\u200bsp INSECURE <rtl@example.org>".encode(),
    b"Nul \x00byte INSECURE <nul@example.org>",
    b"Bad \xff\xfe \xc3( \xed\xa0\x80 \xc0\xaf \xc2\x9b31m INSECURE <bad@example.org>",
]
LONG_TAIL = b" INSECURE <long@example.org>"
LONG_UID = b"A" * (65536 - len(LONG_TAIL)) + LONG_TAIL
BADSIG_UID = b"Badsig INSECURE <badsig@example.org>"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    k = Key(SEED)
    short = k.with_uids(UIDS, features=True)
    full = short + packet(13, LONG_UID) + k.certify(LONG_UID, False, features=True)
    badsig = short + packet(13, BADSIG_UID) + k.certify(BADSIG_UID, False, features=True, corrupt=True)

    for name, data in (("uids.pgp", full), ("uids.asc", armor(full)), ("short.pgp", short),
                       ("badsig.pgp", badsig)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("fingerprint", k.fpr.hex().upper())


if __name__ == "__main__":
    main()
