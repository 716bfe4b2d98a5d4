#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""keyring-slice.py KEYRING N [SKIP]: keys SKIP .. SKIP+N-1 of the binary
OpenPGP keyring KEYRING, written to stdout, keeping of the third-party
certifications and certification revocations only those by keys of the
slice (the others cannot be checked there, and would only cost time).
Prints to stderr "KEYID COUNT", the certifications each key of the slice
made on other keys of the slice, most first.  For the live GnuPG
comparison (tests/cli/T521-gnupg-live.sh) on a slice of the Debian
keyring."""
import hashlib
import sys


def packets(data):
    pos = 0
    while pos < len(data):
        b = data[pos]
        if not b & 0x80:
            raise SystemExit('not a binary OpenPGP keyring at offset %d' % pos)
        if b & 0x40:
            tag, p, l0 = b & 0x3f, pos + 1, data[pos + 1]
            if l0 < 192:
                ln, p = l0, p + 1
            elif l0 < 224:
                ln, p = ((l0 - 192) << 8) + data[p + 1] + 192, p + 2
            elif l0 == 255:
                ln, p = int.from_bytes(data[p + 1:p + 5], 'big'), p + 5
            else:
                raise SystemExit('partial body length in a keyring at offset %d' % pos)
        else:
            tag, lt, p = (b >> 2) & 15, b & 3, pos + 1
            if lt == 3:
                raise SystemExit('indeterminate length in a keyring at offset %d' % pos)
            k = (1, 2, 4)[lt]
            ln, p = int.from_bytes(data[p:p + k], 'big'), p + k
        yield tag, data[pos:p + ln], data[p:p + ln]
        pos = p + ln


def issuer(body):
    """The issuer key ID of a signature packet body, or None."""
    if body[0] == 3:
        return body[7:15]
    if body[0] != 4:
        return None
    off = 4
    for _ in range(2):  # hashed, then unhashed subpackets
        n = int.from_bytes(body[off:off + 2], 'big')
        sp, end = off + 2, off + 2 + n
        while sp < end:
            l0 = body[sp]
            if l0 < 192:
                ln, sp = l0, sp + 1
            elif l0 < 255:
                ln, sp = ((l0 - 192) << 8) + body[sp + 1] + 192, sp + 2
            else:
                ln, sp = int.from_bytes(body[sp + 1:sp + 5], 'big'), sp + 5
            t = body[sp] & 0x7f
            if t == 16:
                return body[sp + 1:sp + 9]
            if t == 33 and body[sp + 1] == 4:
                return body[sp + 14:sp + 22]
            sp += ln
        off = end
    return None


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    data = open(sys.argv[1], 'rb').read()
    n, skip = int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0
    keys, cur = [], None
    for tag, raw, body in packets(data):
        if tag == 6:
            cur = []
            keys.append(cur)
        if cur is not None:
            cur.append((tag, raw, body))
    keys = keys[skip:skip + n]
    ids = {}
    for k in keys:
        body = k[0][2]
        if body[0] == 4:
            ids[hashlib.sha1(b'\x99' + len(body).to_bytes(2, 'big') + body).digest()[-8:]] = 1
    out, made = sys.stdout.buffer, {}
    for k in keys:
        body = k[0][2]
        own = hashlib.sha1(b'\x99' + len(body).to_bytes(2, 'big') + body).digest()[-8:] if body[0] == 4 else None
        for tag, raw, body in k:
            if tag == 2 and body[0] in (3, 4) and body[1 if body[0] == 4 else 2] in (0x10, 0x11, 0x12, 0x13, 0x30):
                i = issuer(body)
                if i not in ids:
                    continue
                if i != own:
                    made[i] = made.get(i, 0) + 1
            out.write(raw)
    for i, c in sorted(made.items(), key=lambda x: (-x[1], x[0])):
        print(i.hex().upper(), c, file=sys.stderr)


main()
