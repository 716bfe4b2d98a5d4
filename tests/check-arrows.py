#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The shape of the library and its programs (docs/design.md, "The folders
and their arrows"), from two sources: the symbols of the built objects (nm)
and the `#include "..."` lines of the sources.  Prints each violation and
exits 1.  Run by make check after the build.

An arrow goes from file a to file b when a's object uses a symbol b's
object defines, or when a includes b's header (lib/x/b.h, whose code is
b.c: its types and inline code are b's; in src/lib only: a program's
headers, cli/ksp.h above all, declare several files' helpers); a folder
uses another when one of its files has an arrow to
a file of the other or includes a header of the other.  The rules:
  - no two files call each other (src/lib, src/shared, and each program,
    src/cli and src/gpg, with the library it links); a table (a data
    symbol: the commands, the trust models) naming functions in other files
    is a registration, not a call, so a command may call back the file
    that lists it;
  - a folder of src/lib uses (calls, or includes a header of) only the
    folders ALLOWED lists, the foundation (src/lib/*.c, *.h) and src/shared;
    the foundation uses no folder;
  - a header named *-private.h in a folder of src/lib is read only in that
    folder (the foundation's libksp-private.h and input-private.h are the
    whole library's);
  - src/cli and src/gpg include only <libksp.h>, src/shared/ and their own
    folder's headers: a program sees the library through its public API."""
import collections, glob, os, re, subprocess, sys

# folder -> the folders it may use (the foundation, src/lib/*.c, and
# src/shared may be used by all; the template engine, src/lib/template.c,
# is foundation: render/ gives it the sheets' names, party/ the mails')
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
    # the drawing module's table (ksp-render.so, lib/draw.h): no folder
    # uses it; libksp.so.1 finds it with dlsym() (lib/module.c), and
    # lib/draw.c's weak reference (nm's 'w', not counted) is resolved only
    # in static links (so is party/deliver.c's to party/smtp-module.c)
    'draw': {'graph', 'render'},
}
PROGRAMS = ('cli', 'gpg')
# known exceptions, each with its reason, reported but not failed: none
# now (an exception added here says why and what would cut it)
KNOWN = {
}
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(top)
lib_objs = sorted(glob.glob('src/lib/*.o') + glob.glob('src/lib/*/*.o') + glob.glob('src/shared/*.o'))
if len(lib_objs) < 20:
    print('check-arrows: the library is not built (make all)'); sys.exit(1)

def folder(p):
    parts = p.split('/')
    if p.startswith('src/lib/') and len(parts) == 4:
        return parts[2]
    if len(parts) == 3 and parts[1] in PROGRAMS:
        return parts[1]
    return 'foundation'

def symbols(o):
    d, u = set(), set()
    for line in subprocess.check_output(['nm', o]).decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRW':
            d.add(f[2])
            if f[1] in 'DR':
                tables.add(f[2])
        elif len(f) == 2 and f[0] == 'U':
            u.add(f[1])
    return d, u

tables = set()  # data symbols: command and model tables, option lists
bad = 0
def violation(msg):
    global bad
    print('check-arrows: ' + msg); bad += 1

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
def includes(src):
    with open(src, encoding='utf-8') as f:
        return INCLUDE.findall(f.read())

lib_defs, lib_uses = {}, {}
for o in lib_objs:
    d, lib_uses[o] = symbols(o)
    for s in d:
        lib_defs[s] = o
narrows = 0
for group in [None] + list(PROGRAMS):
    objs = lib_objs if group is None else sorted(glob.glob(f'src/{group}/*.o'))
    defs, uses = dict(lib_defs), dict(lib_uses)
    for o in objs:
        if group is not None:
            d, uses[o] = symbols(o)
            for s in d:
                defs[s] = o
    edges = collections.defaultdict(set)
    calls = collections.defaultdict(set)  # arrows made of code, not tables
    for o in objs:
        for u in uses[o]:
            if defs.get(u, o) != o:
                edges[o].add(defs[u])
                if u not in tables:
                    calls[o].add(defs[u])
    # the include lines: including b.h is an arrow to b.c (its types and
    # inline code are b's), besides the folder rules
    srcs = set()
    for o in objs:
        srcs.add(o[:-2] + '.c')
    for o in objs:
        srcs.update(glob.glob(os.path.dirname(o) + '/*.h'))
    for s in sorted(srcs):
        if not os.path.exists(s):
            continue
        me = s[:-2] + '.o'
        for inc in includes(s):
            path = inc if inc.startswith('src/') else 'src/' + inc
            if not os.path.exists(path):
                if inc != 'libksp.h':
                    violation(f'{s} includes "{inc}", which is no file of src/')
                continue
            fs, fi = folder(s), folder(path)
            target = path[:-2] + '.o'
            if group is None and target in objs and target != me and os.path.exists(me):
                edges[me].add(target)
                calls[me].add(target)
            if group is not None:
                if fi != group and not path.startswith('src/shared/'):
                    violation(f'{s} includes {path}: src/{group} includes only <libksp.h>, src/shared/ and its own headers')
            elif (path.endswith('-private.h') and fi != fs and fi != 'foundation'):
                if (s, path) in KNOWN:
                    print(f'check-arrows: known: {s} ({fs}/) includes {path}, private to {fi}/: {KNOWN[s, path]}')
                else:
                    violation(f'{s} ({fs}/) includes {path}, private to {fi}/')
            if fs != fi and fi != 'foundation' and fs in ALLOWED and fi not in ALLOWED[fs]:
                violation(f'{s} ({fs}/) includes {path} ({fi}/), which {fs}/ may not use')
            if fs == 'foundation' and fi != 'foundation' and s.startswith('src/lib/'):
                violation(f'{s} (foundation) includes {path} ({fi}/)')
    for a in sorted(edges):
        if a not in objs:
            continue
        for b in sorted(edges[a]):
            if a < b and a in calls.get(b, ()) and b in calls.get(a, ()):
                violation(f'{a} and {b} call each other')
            if group is not None:
                continue
            fa, fb = folder(a), folder(b)
            if fa != fb and fb != 'foundation' and fa in ALLOWED and fb not in ALLOWED[fa]:
                violation(f'{a} ({fa}/) calls {b} ({fb}/), which {fa}/ may not use')
            if fa == 'foundation' and fb != 'foundation' and a.startswith('src/lib/'):
                violation(f'{a} (foundation) calls {b} ({fb}/)')
            if fa not in ALLOWED and fa != 'foundation':
                violation(f'{a}: folder {fa}/ is not in the map (docs/design.md, tests/check-arrows.py)')
        narrows += sum(1 for b in edges[a])
print(f'check-arrows: {len(lib_objs)} library objects, {len(glob.glob("src/cli/*.o")) + len(glob.glob("src/gpg/*.o"))} program objects, '
      f'{narrows} file-to-file arrows, {bad} violations')
sys.exit(1 if bad else 0)
