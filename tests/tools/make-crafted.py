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
import base64
import hashlib
import os
import struct
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

CREATED = 1704067200  # 2024-01-01T00:00:00Z
ED25519_OID = bytes.fromhex("2B06010401DA470F01")


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
    return bytes([len(data) + 1, typ]) + data


class Key:
    def __init__(self, seed):
        self.sk = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest())
        self.pub = self.sk.public_key().public_bytes_raw()
        self.body = (b"\x04" + struct.pack(">I", CREATED) + bytes([22, len(ED25519_OID)]) + ED25519_OID
                     + mpi(b"\x40" + self.pub))
        self.fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.body)) + self.body).digest()

    def certify(self, uid, primary=False):
        hashed = (subpacket(2, struct.pack(">I", CREATED)) + subpacket(27, b"\x03")
                  + subpacket(33, b"\x04" + self.fpr) + subpacket(21, b"\x08\x0a")
                  + (subpacket(25, b"\x01") if primary else b""))
        head = b"\x04\x13" + bytes([22, 8]) + struct.pack(">H", len(hashed)) + hashed
        h = hashlib.sha256()
        h.update(b"\x99" + struct.pack(">H", len(self.body)) + self.body)
        h.update(b"\xb4" + struct.pack(">I", len(uid)) + uid)
        h.update(head)
        h.update(b"\x04\xff" + struct.pack(">I", len(head)))
        digest = h.digest()
        sig = self.sk.sign(digest)
        unhashed = subpacket(16, self.fpr[12:])
        return packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                      + mpi(sig[:32]) + mpi(sig[32:]))

    def with_uids(self, uids):
        out = packet(6, self.body)
        for i, u in enumerate(uids):
            out += packet(13, u) + self.certify(u, i == 0)
        return out


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
    secret = sub.sk.private_bytes_raw()
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
