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
import base64
import hashlib
import os
import struct
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

SEED = b"ksp hostile fixture INSECURE 01!"  # 32 bytes: the key is public knowledge
CREATED = 1704067200  # 2024-01-01T00:00:00Z
ED25519_OID = bytes.fromhex("2B06010401DA470F01")

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


def mpi(b):
    b = b.lstrip(b"\0")
    bits = (len(b) - 1) * 8 + b[0].bit_length() if b else 0
    return struct.pack(">H", bits) + b


def packet(tag, body):
    n = len(body)
    if n < 192:
        hdr = bytes([n])
    elif n < 8384:
        n -= 192
        hdr = bytes([(n >> 8) + 192, n & 0xFF])
    else:
        hdr = b"\xff" + struct.pack(">I", n)
    return bytes([0xC0 | tag]) + hdr + body


def subpacket(typ, data):
    assert len(data) + 1 < 192
    return bytes([len(data) + 1, typ]) + data


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    sk = Ed25519PrivateKey.from_private_bytes(SEED)
    pub = sk.public_key().public_bytes_raw()
    keybody = (b"\x04" + struct.pack(">I", CREATED) + bytes([22, len(ED25519_OID)]) + ED25519_OID
               + mpi(b"\x40" + pub))
    fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(keybody)) + keybody).digest()
    keyid = fpr[12:]

    def certify(uid, primary, corrupt=False):
        hashed = (subpacket(2, struct.pack(">I", CREATED)) + subpacket(27, b"\x03")
                  + subpacket(33, b"\x04" + fpr) + subpacket(21, b"\x08\x0a")
                  + subpacket(30, b"\x01") + (subpacket(25, b"\x01") if primary else b""))
        head = b"\x04\x13" + bytes([22, 8]) + struct.pack(">H", len(hashed)) + hashed
        h = hashlib.sha256()
        h.update(b"\x99" + struct.pack(">H", len(keybody)) + keybody)
        h.update(b"\xb4" + struct.pack(">I", len(uid)) + uid)
        h.update(head)
        h.update(b"\x04\xff" + struct.pack(">I", len(head)))
        digest = h.digest()
        sig = bytearray(sk.sign(digest))
        if corrupt:
            sig[-1] ^= 0x01
        unhashed = subpacket(16, keyid)
        body = (head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                + mpi(bytes(sig[:32])) + mpi(bytes(sig[32:])))
        return packet(2, body)

    key = packet(6, keybody)
    short = key
    for i, u in enumerate(UIDS):
        short += packet(13, u) + certify(u, i == 0)
    full = short + packet(13, LONG_UID) + certify(LONG_UID, False)
    badsig = short + packet(13, BADSIG_UID) + certify(BADSIG_UID, False, corrupt=True)

    def armor(data):
        crc = 0xB704CE
        for byte in data:
            crc ^= byte << 16
            for _ in range(8):
                crc <<= 1
                if crc & 0x1000000:
                    crc ^= 0x1864CFB
        b64 = base64.b64encode(data).decode()
        lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
        crc_b64 = base64.b64encode(struct.pack(">I", crc & 0xFFFFFF)[1:]).decode()
        return ("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(lines) + "\n=" + crc_b64
                + "\n-----END PGP PUBLIC KEY BLOCK-----\n").encode()

    for name, data in (("uids.pgp", full), ("uids.asc", armor(full)), ("short.pgp", short),
                       ("badsig.pgp", badsig)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("fingerprint", fpr.hex().upper())


if __name__ == "__main__":
    main()
