# SPDX-License-Identifier: LGPL-2.1-or-later
"""OpenPGP packets made by hand for test inputs: what
tests/keyrings/hostile/make-hostile.py and tests/tools/make-crafted.py
share.  INSECURE Ed25519 v4 keys from fixed seeds, every signature dated
CREATED, so the output is byte-identical on every run (Ed25519 signatures
are deterministic).  RFC 4880/9580: 4.2 packet headers, 5.2.3 v4
signatures, 5.5.2 v4 keys, 6 armor.  Needs python3-cryptography."""
import base64
import hashlib
import struct

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

CREATED = 1704067200  # 2024-01-01T00:00:00Z
ED25519_OID = bytes.fromhex("2B06010401DA470F01")


def mpi(b):
    b = b.lstrip(b"\0")
    bits = (len(b) - 1) * 8 + b[0].bit_length() if b else 0
    return struct.pack(">H", bits) + b


def packet(tag, body):
    """A new-format packet."""
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


class Key:
    """An Ed25519 primary key from the 32-byte private key @seed."""

    def __init__(self, seed):
        self.sk = Ed25519PrivateKey.from_private_bytes(seed)
        # public_bytes_raw() is newer than Debian 12's python3-cryptography (38)
        self.pub = self.sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.body = (b"\x04" + struct.pack(">I", CREATED) + bytes([22, len(ED25519_OID)]) + ED25519_OID
                     + mpi(b"\x40" + self.pub))
        self.fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.body)) + self.body).digest()

    def certify(self, uid, primary=False, features=False, corrupt=False):
        """A positive self-certification (0x13, SHA-256) of @uid; @features
        adds a Features subpacket (MDC), @corrupt flips the signature's
        last bit so that it does not verify."""
        hashed = (subpacket(2, struct.pack(">I", CREATED)) + subpacket(27, b"\x03")
                  + subpacket(33, b"\x04" + self.fpr) + subpacket(21, b"\x08\x0a")
                  + (subpacket(30, b"\x01") if features else b"")
                  + (subpacket(25, b"\x01") if primary else b""))
        head = b"\x04\x13" + bytes([22, 8]) + struct.pack(">H", len(hashed)) + hashed
        h = hashlib.sha256()
        h.update(b"\x99" + struct.pack(">H", len(self.body)) + self.body)
        h.update(b"\xb4" + struct.pack(">I", len(uid)) + uid)
        h.update(head)
        h.update(b"\x04\xff" + struct.pack(">I", len(head)))
        digest = h.digest()
        sig = bytearray(self.sk.sign(digest))
        if corrupt:
            sig[-1] ^= 0x01
        unhashed = subpacket(16, self.fpr[12:])
        return packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                      + mpi(bytes(sig[:32])) + mpi(bytes(sig[32:])))

    def with_uids(self, uids, **certify_args):
        """The key packet, then each user ID with its self-certification
        (the first one primary)."""
        out = packet(6, self.body)
        for i, u in enumerate(uids):
            out += packet(13, u) + self.certify(u, i == 0, **certify_args)
        return out


def armor(data):
    """A PUBLIC KEY BLOCK, 64 columns, with the CRC-24 line."""
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
