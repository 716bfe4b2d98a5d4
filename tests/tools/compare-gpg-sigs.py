#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare ksp's verification of every user-ID signature (pgp-sigcheck
output) with gpg --check-sigs --with-colons --fixed-list-mode output.

Usage: compare-gpg-sigs.py KSP.tsv GPG.colons
Signatures are matched by (target fingerprint, user ID RIPEMD-160, issuer
key ID, creation time, class); duplicates are matched as multisets.
gpg's '!' must be ksp's good, '-' must be bad, '%' (refused: a hash rule,
a hash too short for the key, a malformed MPI, an algorithm gpg does not
do) must be ksp's refused (pgp-sigcheck's gpg hash rules), unsupported or
bad, and ksp's refused must be gpg's '%'; '?' (issuer unknown or not
usable at gpg's clock) is counted, not compared.  Prints a summary and
every disagreement; exit 1 if any."""
import sys
from collections import Counter, defaultdict

def load_ksp(path):
    d = defaultdict(Counter)
    for line in open(path, encoding="ascii"):
        tgt, uh, kid, created, cls, st = line.rstrip("\n").split("\t")
        d[(tgt, uh, kid.upper(), created, cls.lower())][st] += 1
    return d

def load_gpg(path):
    d = defaultdict(Counter)
    fpr = None; uh = None; want_fpr = False
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split(":")
        if f[0] == "pub":
            want_fpr = True; uh = None
        elif f[0] == "fpr" and want_fpr:
            fpr = f[9]; want_fpr = False
        elif f[0] == "uid":
            uh = f[7]
        elif f[0] in ("uat", "sub"):
            uh = None
        elif f[0] == "sig" and uh is not None:
            cls = f[10][:2].lower()
            d[(fpr, uh, f[4].upper(), f[5], cls)][f[1]] += 1
    return d

ksp = load_ksp(sys.argv[1]); gpg = load_gpg(sys.argv[2])
agree = Counter(); bad = []
for key, gc in gpg.items():
    kc = ksp.get(key, Counter())
    for v, n in gc.items():
        if v == "!":
            ok = min(n, kc["good"]); agree["good"] += ok
            if ok < n: bad.append((key, "gpg good, ksp %s" % dict(kc)))
        elif v == "-":
            ok = min(n, kc["bad"]); agree["bad"] += ok
            if ok < n: bad.append((key, "gpg bad, ksp %s" % dict(kc)))
        elif v == "%":
            ref = min(n, kc["refused"]); agree["refused"] += ref
            other = min(n - ref, kc["unsupported"] + kc["bad"]); agree["refused-other"] += other
            if ref + other < n: bad.append((key, "gpg refused (%%), ksp %s" % dict(kc)))
        else:
            agree["gpg-" + v] += n
    if kc["refused"] > gc.get("%", 0):
        bad.append((key, "ksp refused, gpg %s" % dict(gc)))
for key, kc in ksp.items():
    if key not in gpg and (kc["good"] or kc["bad"]):
        agree["ksp-only"] += sum(kc.values())
print("agree: good %d, bad %d, refused %d (by the hash rules %d, else %d); gpg could not check: %s; "
      "ksp-only (gpg dropped on import): %d; disagreements: %d"
      % (agree["good"], agree["bad"], agree["refused"] + agree["refused-other"], agree["refused"],
         agree["refused-other"], {k: v for k, v in agree.items() if k.startswith("gpg-")},
         agree["ksp-only"], len(bad)))
for key, why in bad[:50]:
    print("DIFF", " ".join(key), why)
sys.exit(1 if bad else 0)
