#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""uid-expiry-key.py CREATED NAME:DAYS...: a new INSECURE Ed25519 key (random,
its secret thrown away) made at CREATED (epoch seconds), with one user ID
"NAME <NAME@x.test>" per argument whose self-signature (0x13) expires DAYS
days after CREATED (0: never), as a binary keyring on stdout.  gpg cannot
make such self-signatures; tests/cli/T521-gnupg-live.sh has gpg certify
these user IDs and compares how gpg and ksp treat them when they expire.
Needs python3-cryptography."""
import hashlib
import struct
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

OID = bytes.fromhex("2B06010401DA470F01")


def mpi(b):
    b = b.lstrip(b"\0")
    return struct.pack(">H", (len(b) - 1) * 8 + b[0].bit_length() if b else 0) + b


def packet(tag, body):
    assert len(body) < 8384
    n = len(body)
    hdr = bytes([n]) if n < 192 else bytes([((n - 192) >> 8) + 192, (n - 192) & 0xFF])
    return bytes([0xC0 | tag]) + hdr + body


def sub(typ, data):
    return bytes([len(data) + 1, typ]) + data


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    created = int(sys.argv[1])
    sk = Ed25519PrivateKey.generate()
    pub = sk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    body = b"\x04" + struct.pack(">I", created) + bytes([22, len(OID)]) + OID + mpi(b"\x40" + pub)
    fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(body)) + body).digest()
    out = packet(6, body)
    for i, arg in enumerate(sys.argv[2:]):
        name, days = arg.split(":")
        uid = ("%s <%s@x.test>" % (name, name)).encode()
        hashed = (sub(2, struct.pack(">I", created)) + (sub(3, struct.pack(">I", int(days) * 86400)) if int(days) else b"")
                  + sub(27, b"\x03") + sub(33, b"\x04" + fpr) + (sub(25, b"\x01") if i == 0 else b""))
        head = b"\x04\x13" + bytes([22, 8]) + struct.pack(">H", len(hashed)) + hashed
        h = hashlib.sha256(b"\x99" + struct.pack(">H", len(body)) + body + b"\xb4" + struct.pack(">I", len(uid)) + uid
                           + head + b"\x04\xff" + struct.pack(">I", len(head))).digest()
        sig = sk.sign(h)
        unhashed = sub(16, fpr[12:])
        out += packet(13, uid) + packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + h[:2]
                                       + mpi(sig[:32]) + mpi(sig[32:]))
    sys.stdout.buffer.write(out)


main()
