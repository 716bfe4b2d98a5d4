#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A keyring of hostile trust-signature regular expressions (issue 34),
for tests/cli/T516-tsig-regex.sh.  Usage: make-tsig-regex.py OUT.pgp [I,...]
(tests/keyrings/hostile/tsig-regex.pgp; I,...: only those hostile
regexes, 1-3, for timing them one by one)

  root  -> intro1..3   trust signatures 2/120, each scoped by hostile regex i
  intro1..3 -> target  plain certifications ("Target <t@example.org>")
  out1..3   -> target  trust signatures 1/120 with hostile regex i, by keys
                       nobody certifies (outsiders)
  root  -> good        a trust signature scoped to "<[^>]+[@.]example\\.org>$",
  good  -> target      so that a sane regex still authenticates the target
  root  -> intro4..6   trust signatures scoped by regexes that Sequoia and
  intro4..6 -> target  POSIX (regcomp) read differently: "Tar{1}get" (a
                       literal '{' for Sequoia: no match), "Targ-*et" (a '-'
                       outside a class: an error for Sequoia: no match),
                       "^Target <t@example\\.org>$" (a match for both)
  root  -> intro7      a trust signature with "a**", beyond the subset
  intro7 -> target     (a warning, once); out4 -> target the same, by an
                       outsider (never looked at: no warning)
Prints "NAME FPR" lines.  Deterministic (pgpcraft.py)."""
import hashlib
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import pgpcraft  # noqa: E402
from pgpcraft import CREATED, mpi, packet, subpacket  # noqa: E402

HOSTILE = [
    b"^(.*)(.*)(.*)(.*)(.*)(.*)(.*)\\1\\2\\3\\4\\5\\6\\7$",
    b"((((a{1,40}){1,40}){1,40}){1,40})",
    b"(.*){1,32000}(.*){1,32000}(.*){1,32000}x",
]
GOOD = b"<[^>]+[@.]example\\.org>$"
SCOPED = [b"Tar{1}get", b"Targ-*et", b"^Target <t@example\\.org>$"]


def certify(signer, target, uid, depth=0, amount=0, regex=None):
    """A generic certification (0x10, SHA-256) by @signer of @target's @uid,
    with a trust signature and a regular expression when given."""
    hashed = subpacket(2, struct.pack(">I", CREATED + 60)) + subpacket(33, b"\x04" + signer.fpr)
    if depth or amount:
        hashed += subpacket(5, bytes([depth, amount]))
    if regex is not None:
        hashed += subpacket(6, regex + b"\0")
    head = b"\x04\x10" + bytes([22, 8]) + struct.pack(">H", len(hashed)) + hashed
    h = hashlib.sha256()
    h.update(b"\x99" + struct.pack(">H", len(target.body)) + target.body)
    h.update(b"\xb4" + struct.pack(">I", len(uid)) + uid)
    h.update(head)
    h.update(b"\x04\xff" + struct.pack(">I", len(head)))
    digest = h.digest()
    sig = signer.sk.sign(digest)
    unhashed = subpacket(16, signer.fpr[12:])
    return packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                  + mpi(sig[:32]) + mpi(sig[32:]))


def main():
    keys, uids = {}, {}
    names = ["root", "target", "good"] + ["intro%d" % i for i in (1, 2, 3)] + ["out%d" % i for i in (1, 2, 3)] + ["intro%d" % i for i in (4, 5, 6)] + ["intro7", "out4"]
    for i, n in enumerate(names):
        keys[n] = pgpcraft.Key(hashlib.sha256(b"tsig-regex " + n.encode()).digest())
        uids[n] = (n.capitalize() + " <" + n + "@example.org>").encode()
    uids["target"] = b"Target <t@example.org>"
    extra = {n: b"" for n in names}  # third-party signatures, after the self-signature
    which = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 2, 3]
    for i in which:
        extra["intro%d" % i] += certify(keys["root"], keys["intro%d" % i], uids["intro%d" % i], 2, 120, HOSTILE[i - 1])
        extra["target"] += certify(keys["intro%d" % i], keys["target"], uids["target"])
        extra["target"] += certify(keys["out%d" % i], keys["target"], uids["target"], 1, 120, HOSTILE[i - 1])
    extra["good"] += certify(keys["root"], keys["good"], uids["good"], 1, 120, GOOD)
    extra["target"] += certify(keys["good"], keys["target"], uids["target"])
    for i in (4, 5, 6):
        extra["intro%d" % i] += certify(keys["root"], keys["intro%d" % i], uids["intro%d" % i], 1, 120, SCOPED[i - 4])
        extra["target"] += certify(keys["intro%d" % i], keys["target"], uids["target"])
    extra["intro7"] += certify(keys["root"], keys["intro7"], uids["intro7"], 1, 120, b"a**")
    extra["target"] += certify(keys["intro7"], keys["target"], uids["target"])
    extra["target"] += certify(keys["out4"], keys["target"], uids["target"], 1, 120, b"a**")
    out = b""
    for n in names:
        k = keys[n]
        out += packet(6, k.body) + packet(13, uids[n]) + k.certify(uids[n], True, features=True) + extra[n]
        print(n, k.fpr.hex().upper())
    with open(sys.argv[1], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
