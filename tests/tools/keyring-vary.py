#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""keyring-vary.py IN OUT PERCENT [SEED]: a copy of the binary keyring IN
with PERCENT % of its keys (chosen by SEED, at least one) changed: the last
packet of each is dropped when it is a signature (an older copy of the key,
as a keyring repository held it the day before); with --drop, the keys are
left out whole (a key removed from the repository).  Prints how many keys
were changed.  For the incremental-load test and bench (issue 24)."""
import random, sys

def packets(d):
    i = 0
    while i < len(d):
        h = d[i]; start = i
        if not h & 0x80: raise SystemExit('not a binary keyring at offset %d' % i)
        if h & 0x40:  # new format
            tag = h & 0x3f; i += 1; o = d[i]
            if o < 192: n = o; i += 1
            elif o < 224: n = ((o - 192) << 8) + d[i + 1] + 192; i += 2
            elif o == 255: n = int.from_bytes(d[i + 1:i + 5], 'big'); i += 5
            else: raise SystemExit('partial lengths not supported')
        else:
            tag = (h >> 2) & 0xf; lt = h & 3; i += 1
            if lt == 3: raise SystemExit('indeterminate length')
            w = (1, 2, 4)[lt]; n = int.from_bytes(d[i:i + w], 'big'); i += w
        i += n
        yield tag, d[start:i]

drop = '--drop' in sys.argv
args = [a for a in sys.argv[1:] if a != '--drop']
src, dst, pct = args[0], args[1], float(args[2])
rng = random.Random(args[3] if len(args) > 3 else 'ksp')
keys = []
for tag, raw in packets(open(src, 'rb').read()):
    if tag == 6: keys.append([])
    if keys: keys[-1].append((tag, raw))
want = max(1, round(len(keys) * pct / 100))
pick = set(rng.sample([i for i, k in enumerate(keys) if k[-1][0] == 2], want))
with open(dst, 'wb') as f:
    for i, k in enumerate(keys):
        for tag, raw in (([] if drop else k[:-1]) if i in pick else k):
            f.write(raw)
print(want)
