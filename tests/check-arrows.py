#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The shape of the library (README, "The library, one folder per
subsystem"): from the symbols of the built objects (nm), no two files call
each other, and a folder calls only the folders it may use.  Run by make
check after the build; prints each violation and exits 1."""
import collections, glob, os, subprocess, sys

# folder -> the folders it may use (the foundation, src/lib/*.c, and
# src/shared may be used by all)
ALLOWED = {
    'openpgp': set(),
    'store': set(),
    'wot': {'openpgp', 'store'},
    'party': {'openpgp', 'store', 'wot'},
    'render': {'party', 'store'},
    'trust': {'openpgp', 'party', 'store', 'wot'},
    'graph': {'store', 'trust', 'wot'},
    'health': {'party', 'store', 'trust', 'wot'},
    'publish': {'graph', 'openpgp', 'party', 'store', 'trust', 'wot'},
}
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(top)
objs = sorted(glob.glob('src/lib/*.o') + glob.glob('src/lib/*/*.o') + glob.glob('src/shared/*.o'))
if len(objs) < 20:
    print('check-arrows: the library is not built (make all)'); sys.exit(1)
defs, uses = {}, collections.defaultdict(set)
for o in objs:
    for line in subprocess.check_output(['nm', o]).decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRW':
            defs[f[2]] = o
        elif len(f) == 2 and f[0] == 'U':
            uses[o].add(f[1])
edges = collections.defaultdict(set)
for o, us in uses.items():
    for u in us:
        if defs.get(u, o) != o:
            edges[o].add(defs[u])
def folder(p):
    parts = p.split('/')
    return parts[2] if p.startswith('src/lib/') and len(parts) == 4 else 'foundation'
bad = 0
for a in sorted(edges):
    for b in sorted(edges[a]):
        if a < b and a in edges.get(b, ()):
            print(f'check-arrows: {a} and {b} call each other'); bad += 1
        fa, fb = folder(a), folder(b)
        if fa != fb and fb != 'foundation' and fa in ALLOWED and fb not in ALLOWED[fa]:
            print(f'check-arrows: {a} ({fa}/) calls {b} ({fb}/), which {fa}/ may not use'); bad += 1
        if fa == 'foundation' and fb != 'foundation' and a.startswith('src/lib/'):
            print(f'check-arrows: {a} (foundation) calls {b} ({fb}/)'); bad += 1
        if fa not in ALLOWED and fa != 'foundation':
            print(f'check-arrows: {a}: folder {fa}/ is not in the map (README, tests/check-arrows.py)'); bad += 1
print(f'check-arrows: {len(objs)} objects, {sum(len(v) for v in edges.values())} file-to-file arrows, {bad} violations')
sys.exit(1 if bad else 0)
