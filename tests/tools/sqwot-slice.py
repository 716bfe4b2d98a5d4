#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A bounded slice of a big binary keyring around a few roots.

sqwot-slice.py KEYRING OUT ROOTS N  writes to OUT the key blocks (as
they are, byte for byte) of the ROOTS most prolific certifiers of
KEYRING (v4 keys; a certification is a signature on a user ID by another
key of the keyring, its issuer from the Issuer Fingerprint or Issuer
subpacket, or a v3 signature's key ID), the keys they certified and the
keys those certified, the lowest fingerprints first, N keys in all; prints
the roots' fingerprints, one a line.  Nothing is verified: the slice is
input for tools that verify.
"""
import hashlib
import struct
import sys


def packets(data):
    i = 0
    while i < len(data):
        start = i
        b = data[i]
        i += 1
        if not b & 0x80:
            raise ValueError("not an OpenPGP packet at %d" % start)
        if b & 0x40:
            tag = b & 0x3F
            o = data[i]
            if o < 192:
                n, i = o, i + 1
            elif o < 224:
                n, i = ((o - 192) << 8) + data[i + 1] + 192, i + 2
            elif o == 255:
                n, i = struct.unpack(">I", data[i + 1:i + 5])[0], i + 5
            else:
                raise ValueError("partial length in a keyring at %d" % start)
        else:
            tag = (b >> 2) & 0x0F
            lt = b & 3
            if lt == 3:
                raise ValueError("indeterminate length at %d" % start)
            w = (1, 2, 4)[lt]
            n = int.from_bytes(data[i:i + w], "big")
            i += w
        yield tag, data[i:i + n], data[start:i + n]
        i += n


def issuer(body):
    if not body:
        return None
    if body[0] == 3 and len(body) >= 15:
        return ("k", body[7:15])
    if body[0] != 4 or len(body) < 6:
        return None
    found = None
    p = 4
    for area in range(2):
        n = struct.unpack(">H", body[p:p + 2])[0]
        sub = body[p + 2:p + 2 + n]
        p += 2 + n
        j = 0
        while j < len(sub):
            o = sub[j]
            if o < 192:
                ln, j = o, j + 1
            elif o < 255:
                ln, j = ((o - 192) << 8) + sub[j + 1] + 192, j + 2
            else:
                ln, j = struct.unpack(">I", sub[j + 1:j + 5])[0], j + 5
            if ln == 0:
                break
            t, v = sub[j] & 0x7F, sub[j + 1:j + ln]
            if t == 33 and len(v) == 21:
                return ("f", v[1:])
            if t == 16 and len(v) == 8 and found is None:
                found = ("k", v)
            j += ln
    return found


def main():
    ring, out, nroots, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = open(ring, "rb").read()
    blocks = {}   # fpr -> bytes
    order = []
    certs = {}    # fpr -> set of issuer handles on its user IDs
    cur = None
    in_uid = False
    for tag, body, raw in packets(data):
        if tag == 6:
            if body[0] != 4:
                cur = None
                continue
            cur = hashlib.sha1(b"\x99" + struct.pack(">H", len(body)) + body).digest()
            blocks[cur] = bytearray(raw)
            order.append(cur)
            certs[cur] = set()
            in_uid = False
            continue
        if cur is None:
            continue
        blocks[cur] += raw
        if tag in (13, 17):
            in_uid = tag == 13
        elif tag == 14:
            in_uid = False
        elif tag == 2 and in_uid:
            iss = issuer(body)
            if iss is not None and (body[0] != 4 or body[1] in (0x10, 0x11, 0x12, 0x13)):
                certs[cur].add(iss)
    by_kid = {f[12:]: f for f in order}

    def fpr_of(h):
        return h[1] if h[0] == "f" else by_kid.get(h[1])

    made = {f: set() for f in order}
    for t, hs in certs.items():
        for h in hs:
            i = fpr_of(h)
            if i is not None and i != t and i in made:
                made[i].add(t)
    roots = sorted(order, key=lambda f: (-len(made[f]), f))[:nroots]
    one = set().union(*(made[r] for r in roots)) - set(roots)
    two = set().union(*(made[f] for f in one)) - one - set(roots)
    pick = list(roots) + sorted(one)[:max(0, n - len(roots))]
    pick += sorted(two)[:max(0, n - len(pick))]
    with open(out, "wb") as f:
        for k in order:
            if k in pick:
                f.write(blocks[k])
    for r in roots:
        print(r.hex().upper())


if __name__ == "__main__":
    main()
