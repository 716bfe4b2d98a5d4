#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Flip one bit of the signature material of OpenPGP signature packets.

Usage: pgp-tamper.py IN OUT ISSUER-KEYID
Every v4 signature packet (tag 2) whose issuer (subpacket 16, or the end of
subpacket 33) is ISSUER-KEYID (16 hex digits) gets the last octet of its
body (inside the last MPI) XORed with 1: the packet stays well-formed, the
mathematics no longer holds.  Binary input only.  Prints how many."""
import sys

def packets(b):
    i = 0
    while i < len(b):
        h = b[i]
        if not h & 0x80:
            raise SystemExit("not a packet at %d" % i)
        if h & 0x40:
            tag = h & 0x3f; j = i + 1
            l0 = b[j]
            if l0 < 192: n = l0; j += 1
            elif l0 < 224: n = ((l0 - 192) << 8) + b[j + 1] + 192; j += 2
            elif l0 == 255: n = int.from_bytes(b[j + 1:j + 5], "big"); j += 5
            else: raise SystemExit("partial lengths not supported")
        else:
            tag = (h >> 2) & 0xf; lt = h & 3; j = i + 1
            if lt == 3: raise SystemExit("indeterminate length not supported")
            w = [1, 2, 4][lt]; n = int.from_bytes(b[j:j + w], "big"); j += w
        yield tag, j, n
        i = j + n

def issuers(body):
    if body[0] != 4: return set()
    out = set()
    p = 4
    for _ in range(2):
        ln = int.from_bytes(body[p:p + 2], "big"); area = body[p + 2:p + 2 + ln]; p += 2 + ln
        q = 0
        while q < len(area):
            l0 = area[q]
            if l0 < 192: n = l0; q += 1
            elif l0 < 255: n = ((l0 - 192) << 8) + area[q + 1] + 192; q += 2
            else: n = int.from_bytes(area[q + 1:q + 5], "big"); q += 5
            t = area[q] & 0x7f; d = area[q + 1:q + n]
            if t == 16: out.add(d.hex().upper())
            if t == 33 and d[:1] == b"\x04": out.add(d[-8:].hex().upper())
            q += n
    return out

data = bytearray(open(sys.argv[1], "rb").read())
want = sys.argv[3].upper()
count = 0
for tag, off, n in list(packets(data)):
    if tag == 2 and want in issuers(data[off:off + n]):
        data[off + n - 1] ^= 1
        count += 1
open(sys.argv[2], "wb").write(data)
print(count)
