#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A keyring of the cases where Sequoia's web of trust differs from a
simple one, for tests/cli/T517-sequoia-live.sh to ask sq-wot and ksp.

sqwot-gen.py OUT.pgp  writes the keyring (binary; INSECURE Ed25519 keys
from seeds made of their names) and prints the roots' fingerprints (root,
oldroot), one a line.
Every date is fixed: keys made 2010-01-01; the cases (the test asks at
2023-01-15 and 2023-03-21, either side of the 2023-02-01 SHA-1 cut-off of
Sequoia's policy for self-signatures):
  sha1bind   its only self-signature SHA-1 (2015), certified by the root
  redated    its only self-signature 2022-06 (re-dated, as gpg does on an
             expiry change); the root certified it 2020 only
  redated2   the same, certified again by the root 2022-08
  intro      a trusted introducer (depth 1) of the root's, 2020, whose
             only self-signature is 2022-06; it certified late (2022-09)
             and early (2021-03)
  meta       the root's meta-introducer (depth 2, amount 60); its
             introducer scoped (depth 1, amount 120, a regex for
             example.org) certified in and out (example.org, other.net)
  certrev    certified by the root 2020, certification revoked 2022
  certrev1   the same, the revocation made with SHA-1
  hardrev    certified, then key-revoked without a reason (hard)
  softrev    certified 2020, key-revoked 2022 as superseded (soft)
  uidrev     two user IDs, both certified; the second revoked 2021
  sha1cert   certified by the root with SHA-1 (2012 and 2020)
  expcert    certified 2020 by a certification expiring 2023-02-01
  keyexp     its key expires 2023-02-01
  mixed      a SHA-1 self-signature 2015 and a SHA-256 one 2021,
             certified 2018 (mixed) or 2022 (mixed2)
  sigexp     its only self-signature expires 2023-02-01
  sigexp2    its first self-signature expired 2022-01-01, the next made
             2022-06; certified 2020 and 2021
  extended   its key expired 2023-01-10, renewed 2023-02-15
  lapsed     an introducer whose key expired 2015, renewed 2019; it
             certified bylapsed in 2017
  nocert     an introducer without the certification key flag
  localcert  a non-exportable certification
  critnote   a certification with a critical notation
  lateuid    a certification (2020) on a user ID self-signed 2022
  expintro   an introducer expired since 2022-06 (certified 2021)
  oldroot    the second root, expired since 2022-06 (certified 2021)
  newexp     certified 2019, and 2021 by a certification expired 2022
  recert     certified 2019, revoked 2020, certified 2021 (amount 60)
  twouid     a SHA-256 and a SHA-1 self-signed user ID, both certified
  latin1     a trusted introducer whose user ID is not UTF-8; mixuid: a
             key with a UTF-8 and a Latin-1 user ID
"""
import hashlib
import struct
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pgpcraft import ED25519_OID, mpi, packet, subpacket  # noqa: E402


def ts(s):
    import calendar
    import time
    return calendar.timegm(time.strptime(s, "%Y-%m-%d"))


KEY_CREATED = ts("2010-01-01")
HASHES = {2: hashlib.sha1, 8: hashlib.sha256}


class Key:
    def __init__(self, name):
        self.name = name
        self.sk = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest())
        pub = self.sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.body = (b"\x04" + struct.pack(">I", KEY_CREATED) + bytes([22, len(ED25519_OID)]) + ED25519_OID
                     + mpi(b"\x40" + pub))
        self.fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.body)) + self.body).digest()
        self.packets = []  # (uid or None, packet bytes) after the key packet

    def keyhash(self):
        return b"\x99" + struct.pack(">H", len(self.body)) + self.body

    def sign(self, target, uid, typ, created, hash_algo=8, extra=b""):
        """A v4 signature by self of class @typ over @target's key (and
        @uid when given), with the hashed subpackets @extra."""
        hashed = subpacket(2, struct.pack(">I", created)) + subpacket(33, b"\x04" + self.fpr) + extra
        head = bytes([4, typ, 22, hash_algo]) + struct.pack(">H", len(hashed)) + hashed
        h = HASHES[hash_algo]()
        h.update(target.keyhash())
        if uid is not None:
            h.update(b"\xb4" + struct.pack(">I", len(uid)) + uid)
        h.update(head)
        h.update(b"\x04\xff" + struct.pack(">I", len(head)))
        digest = h.digest()
        sig = self.sk.sign(digest)
        unhashed = subpacket(16, self.fpr[12:])
        return packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                      + mpi(sig[:32]) + mpi(sig[32:]))

    def add_uid(self, uid, created, hash_algo=8, expires_at=None, primary=False, sig_expires_at=None,
                flags=b"\x03"):
        extra = subpacket(27, flags) + subpacket(21, b"\x08\x0a\x02")
        if sig_expires_at:
            extra += subpacket(3, struct.pack(">I", sig_expires_at - created))
        if expires_at:
            extra += subpacket(9, struct.pack(">I", expires_at - KEY_CREATED))
        if primary:
            extra += subpacket(25, b"\x01")
        self.packets.append((uid, self.sign(self, uid, 0x13, created, hash_algo, extra)))

    def selfsig(self, uid, created, hash_algo=8, expires_at=None):
        extra = subpacket(27, b"\x03")
        if expires_at:
            extra += subpacket(9, struct.pack(">I", expires_at - KEY_CREATED))
        self.packets.append((uid, self.sign(self, uid, 0x13, created, hash_algo, extra)))

    def revoke_uid(self, uid, created):
        self.packets.append((uid, self.sign(self, uid, 0x30, created, 8, subpacket(29, b"\x20"))))

    def revoke_key(self, created, reason=None):
        extra = subpacket(29, bytes([reason])) if reason is not None else b""
        self.packets.insert(0, (None, self.sign(self, None, 0x20, created, 8, extra)))

    def certify(self, target, uid, created, hash_algo=8, depth=None, amount=120, regex=None,
                expires_at=None, local=False, critical_notation=False):
        extra = b""
        if local:
            extra += subpacket(4, b"\x00")
        if critical_notation:
            name, value = b"unknown@example.org", b"x"
            data = b"\x80\0\0\0" + struct.pack(">HH", len(name), len(value)) + name + value
            extra += bytes([len(data) + 1, 0x80 | 20]) + data
        if depth is not None:
            extra += subpacket(5, bytes([depth, amount]))
        if regex is not None:
            extra += subpacket(6, regex + b"\0")
        if expires_at:
            extra += subpacket(3, struct.pack(">I", expires_at - created))
        target.packets.append((uid, self.sign(target, uid, 0x10, created, hash_algo, extra)))

    def revoke_cert(self, target, uid, created, hash_algo=8):
        target.packets.append((uid, self.sign(target, uid, 0x30, created, hash_algo, subpacket(29, b"\x00"))))

    def block(self):
        out = packet(6, self.body)
        for uid, p in self.packets:
            if uid is None:
                out += p
        done = []
        for uid, _ in self.packets:
            if uid is not None and uid not in done:
                done.append(uid)
                out += packet(13, uid)
                for u2, p in self.packets:
                    if u2 == uid:
                        out += p
        return out


def uid(name, dom="example.org"):
    return ("%s <%s@%s>" % (name.capitalize(), name, dom)).encode()


def main():
    keys = []

    def mk(name, self_at="2010-01-02", hash_algo=8, **kw):
        k = Key(name)
        k.uid = uid(name)
        k.add_uid(k.uid, ts(self_at), hash_algo, primary=True, **kw)
        keys.append(k)
        return k

    root = mk("root")
    d = ts
    k = mk("sha1bind", "2015-01-01", 2)
    root.certify(k, k.uid, d("2020-06-01"))
    k = mk("redated", "2022-06-01")
    root.certify(k, k.uid, d("2020-06-01"))
    k = mk("redated2", "2022-06-01")
    root.certify(k, k.uid, d("2020-06-01"))
    root.certify(k, k.uid, d("2022-08-01"))
    intro = mk("intro", "2022-06-01")
    root.certify(intro, intro.uid, d("2020-06-01"), depth=1, amount=120)
    root.certify(intro, intro.uid, d("2022-07-01"), depth=1, amount=90)
    late, early = mk("late"), mk("early")
    intro.certify(late, late.uid, d("2022-09-01"))
    intro.certify(early, early.uid, d("2021-03-01"))
    meta, scoped = mk("meta"), mk("scoped")
    root.certify(meta, meta.uid, d("2020-01-01"), depth=2, amount=60)
    meta.certify(scoped, scoped.uid, d("2020-02-01"), depth=1, amount=120,
                 regex=rb"<[^>]+[@.]example\.org>$")
    inside, outside = mk("inside"), Key("outside")
    outside.uid = uid("outside", "other.net")
    outside.add_uid(outside.uid, d("2010-01-02"), primary=True)
    keys.append(outside)
    scoped.certify(inside, inside.uid, d("2020-03-01"))
    scoped.certify(outside, outside.uid, d("2020-03-01"))
    for name, h in (("certrev", 8), ("certrev1", 2)):
        k = mk(name)
        root.certify(k, k.uid, d("2020-01-01"))
        root.revoke_cert(k, k.uid, d("2022-01-01"), h)
    k = mk("hardrev")
    root.certify(k, k.uid, d("2020-01-01"))
    k.revoke_key(d("2022-01-01"))
    k = mk("softrev")
    root.certify(k, k.uid, d("2020-01-01"))
    k.revoke_key(d("2022-01-01"), 1)
    k = mk("uidrev")
    u2 = uid("uidrev2")
    k.selfsig(u2, d("2010-01-02"))
    root.certify(k, k.uid, d("2020-01-01"))
    root.certify(k, u2, d("2020-01-01"))
    k.revoke_uid(u2, d("2021-01-01"))
    k = mk("sha1cert")
    root.certify(k, k.uid, d("2012-01-01"), 2)
    k2 = mk("sha1cert2")
    root.certify(k2, k2.uid, d("2020-01-01"), 2)
    k = mk("expcert")
    root.certify(k, k.uid, d("2020-01-01"), expires_at=d("2023-02-01"))
    k = mk("keyexp", expires_at=d("2023-02-01"))
    root.certify(k, k.uid, d("2020-01-01"))
    k = mk("mixed", "2015-01-01", 2)
    k.selfsig(k.uid, d("2021-01-01"), 8)
    root.certify(k, k.uid, d("2018-01-01"))
    k = mk("mixed2", "2015-01-01", 2)
    k.selfsig(k.uid, d("2021-01-01"), 8)
    root.certify(k, k.uid, d("2022-01-01"))
    k = mk("sigexp", sig_expires_at=d("2023-02-01"))
    root.certify(k, k.uid, d("2020-01-01"))
    k = mk("sigexp2", sig_expires_at=d("2022-01-01"))
    k.selfsig(k.uid, d("2022-06-01"))
    root.certify(k, k.uid, d("2020-01-01"))
    root.certify(k, k.uid, d("2021-01-01"))
    k = mk("extended", expires_at=d("2023-01-10"))
    k.selfsig(k.uid, d("2023-02-15"), expires_at=d("2030-01-01"))
    root.certify(k, k.uid, d("2020-01-01"))
    lapsed = mk("lapsed", expires_at=d("2015-01-01"))
    lapsed.selfsig(lapsed.uid, d("2019-01-01"), expires_at=d("2030-01-01"))
    root.certify(lapsed, lapsed.uid, d("2020-01-01"), depth=1, amount=120)
    k = mk("bylapsed")
    lapsed.certify(k, k.uid, d("2017-01-01"))
    nocert = mk("nocert", flags=b"\x02")
    root.certify(nocert, nocert.uid, d("2020-01-01"), depth=1, amount=120)
    k = mk("bynocert")
    nocert.certify(k, k.uid, d("2020-02-01"))
    k = mk("localcert")
    root.certify(k, k.uid, d("2020-01-01"), local=True)
    k = mk("critnote")
    root.certify(k, k.uid, d("2020-01-01"), critical_notation=True)
    k = mk("lateuid")
    u2 = uid("lateuid2")
    k.selfsig(u2, d("2022-06-01"))
    root.certify(k, u2, d("2020-01-01"))
    expintro = mk("expintro", expires_at=d("2022-06-01"))
    root.certify(expintro, expintro.uid, d("2020-01-01"), depth=1, amount=120)
    k = mk("byexpintro")
    expintro.certify(k, k.uid, d("2021-01-01"))
    oldroot = mk("oldroot", expires_at=d("2022-06-01"))
    k = mk("byoldroot")
    oldroot.certify(k, k.uid, d("2021-01-01"))
    k = Key("latin1")
    k.uid = b"Latin1 \xe9t\xe9 <latin1@example.org>"
    k.add_uid(k.uid, d("2010-01-02"), primary=True)
    keys.append(k)
    root.certify(k, k.uid, d("2020-01-01"), depth=1, amount=120)
    k2 = mk("bylatin1")
    k.certify(k2, k2.uid, d("2020-02-01"))
    k = mk("mixuid")
    u2 = b"Mixuid \xe9 <mixuid2@example.org>"
    k.selfsig(u2, d("2010-01-02"))
    root.certify(k, k.uid, d("2020-01-01"))
    root.certify(k, u2, d("2020-01-01"))
    k = mk("newexp")
    root.certify(k, k.uid, d("2019-01-01"))
    root.certify(k, k.uid, d("2021-01-01"), expires_at=d("2022-01-01"))
    k = mk("recert")
    root.certify(k, k.uid, d("2019-01-01"))
    root.revoke_cert(k, k.uid, d("2020-01-01"))
    root.certify(k, k.uid, d("2021-01-01"), depth=0, amount=60)
    k = mk("twouid")
    u2 = uid("twouid2")
    k.selfsig(u2, d("2015-01-01"), 2)
    root.certify(k, k.uid, d("2020-01-01"))
    root.certify(k, u2, d("2020-01-01"))
    with open(sys.argv[1], "wb") as f:
        for k in keys:
            f.write(k.block())
    print(root.fpr.hex().upper())
    print(oldroot.fpr.hex().upper())


if __name__ == "__main__":
    main()
