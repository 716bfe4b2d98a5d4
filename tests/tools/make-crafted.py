#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write the crafted inputs of tests/cli/T710-reliability2.sh into OUTDIR.

Made at test time (nothing committed): INSECURE Ed25519 test keys from
fixed seeds, every signature dated 2024-01-01.  Needs python3-cryptography.

  begin-2500.asc     2,500 lines "-----BEGIN PGP PUBLIC KEY BLOCK-----" (92 KB):
                     gpg gives up with far more than a pipe buffer unread
  unterminated.asc   100,000 unterminated BEGIN lines (3.7 MB): quadratic
                     armor scanning took 109 s on it
  unterminated-hdr.asc  the same with a "Key: value" look (header scanning)
  many-uids.asc      one key with 257 self-signed user IDs (limit 256)
  many-sigs.pgp      one key whose user ID carries 20,001 signatures (limit 20,000)
  invisible.pgp      one key with user IDs holding U+2028, U+2029, a soft
                     hyphen, a word joiner, tag characters, and 300
                     combining acute accents on one letter
  secret-subkey.pgp  a public key with a secret subkey packet (tag 7) inside
  secret-subkey.asc  the same, armored as a PUBLIC KEY BLOCK
  many-keys.pgp      400 keys, one user ID each (slow enough for gpg to be
                     killed in the middle)

Usage: tests/tools/make-crafted.py OUTDIR
"""
import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgpcraft  # noqa: E402  (tests/tools/pgpcraft.py)
from pgpcraft import armor, mpi, packet  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat  # noqa: E402


def Key(seed):
    """A key whose private key is the SHA-256 of @seed."""
    return pgpcraft.Key(hashlib.sha256(seed).digest())


def main():
    out = sys.argv[1]
    files = {}
    files["begin-2500.asc"] = b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n" * 2500
    files["unterminated.asc"] = b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n" * 100000
    files["unterminated-hdr.asc"] = b"-----BEGIN PGP PUBLIC KEY: BLOCK-----\n" * 100000

    k = Key(b"ksp crafted many uids INSECURE")
    files["many-uids.asc"] = armor(k.with_uids(
        [b"Many %d INSECURE <many%d@example.org>" % (i, i) for i in range(257)]))

    k = Key(b"ksp crafted many sigs INSECURE")
    uid = b"Sigs INSECURE <sigs@example.org>"
    files["many-sigs.pgp"] = packet(6, k.body) + packet(13, uid) + k.certify(uid, True) * 20001

    k = Key(b"ksp crafted invisible INSECURE")
    files["invisible.pgp"] = k.with_uids([
        "Invisible INSECURE <inv@example.org>".encode(),
        "Line\u2028Para\u2029 INSECURE <sep@example.org>".encode(),
        "Soft\u00adhy Word\u2060joiner INSECURE <soft@example.org>".encode(),
        ("Tag " + "".join(chr(0xE0000 + ord(c)) for c in "EVIL") + "\U000E007F INSECURE <tag@example.org>").encode(),
        ("Zalgo Z" + "\u0301" * 300 + " INSECURE <zalgo@example.org>").encode(),
    ])

    k = Key(b"ksp crafted secret subkey INSECURE")
    sub = Key(b"ksp crafted secret subkey part INSECURE")
    # private_bytes_raw() is newer than Debian 12's python3-cryptography (38)
    secret = sub.sk.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    sec_mpi = mpi(secret)
    secbody = sub.body + b"\x00" + sec_mpi + struct.pack(">H", sum(sec_mpi) & 0xFFFF)
    data = k.with_uids([b"Secret sub INSECURE <secsub@example.org>"]) + packet(7, secbody)
    files["secret-subkey.pgp"] = data
    files["secret-subkey.asc"] = armor(data)

    files["many-keys.pgp"] = b"".join(
        Key(b"ksp crafted key %d INSECURE" % i).with_uids([b"Key %d INSECURE <k%d@example.org>" % (i, i)])
        for i in range(400))

    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
