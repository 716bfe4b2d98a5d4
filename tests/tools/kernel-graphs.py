#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare wotmate's graphs/*.txt (kernel.org pgpkeys) with ksp publish's.
Usage: kernel-graphs.py KSP STORE SAMPLE-DIR PUBLISHED-DIR DATE ROOT-KEYID

A wotmate path "lies inside the sample" when it starts at ROOT, all its keys
are in STORE and every hop is a certification the engine counts at DATE
(ksp trust --max-depth 1 from the signer, i.e. verified, unexpired, between
valid keys).  For every graph with such paths, ksp's graph must have at
least as many paths and, sorted by length, none longer than wotmate's of
the same rank.  Exit 0 when all do (and there is at least one), else 1."""
import sys, os, re, sqlite3, glob, subprocess
ksp, db, sample, out, at, root = sys.argv[1:7]
c = sqlite3.connect(db)
kid2fpr = {k[-16:]: k for (k,) in c.execute("select fpr from keys")}
cache = {}
def counts(a, b):  # does the engine count the certification a -> b at the time?
    if (a, b) not in cache:
        cache[(a, b)] = subprocess.run([ksp, '-d', db, 'trust', '-q', '--core-fpr', kid2fpr[a], '--max-depth', '1',
                                        '--at', at, kid2fpr[b]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    return cache[(a, b)]
def paths(f):
    res, cur = [], None
    for line in open(f, encoding='utf-8', errors='replace'):
        m = re.match(r'^from  ([0-9A-F]{16})  ', line)
        if m: cur = [m.group(1)]; res.append(cur); continue
        m = re.match(r'^ *\d+  ([0-9A-F]{16})  ', line)
        if m and cur is not None: cur.append(m.group(1))
    return res
checked = ok = 0; bad = []
for g in sorted(glob.glob(sample + '/graphs/*.txt')):
    kid = os.path.basename(g)[:-4]
    ws = [p for p in paths(g) if p[0] == root and len(p) > 1 and all(v in kid2fpr for v in p)
          and all(counts(a, b) for a, b in zip(p, p[1:]))]
    if not ws: continue
    checked += 1
    f = out + '/graphs/' + kid + '.txt'
    mine = paths(f) if os.path.exists(f) else []
    wl = sorted(len(p) - 1 for p in ws); ml = sorted(len(p) - 1 for p in mine)
    if len(ml) >= len(wl) and all(m <= w for m, w in zip(ml, wl)):
        ok += 1
    else:
        bad.append((kid, wl, ml))
print("wotmate graphs with paths inside the sample: %d; ksp's at least as many and no longer: %d" % (checked, ok))
for b in bad: print("worse:", *b)
sys.exit(0 if checked and ok == checked else 1)
