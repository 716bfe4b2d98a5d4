#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Compare ksp's Sequoia model with sq-wot (sequoia-wot 0.2.0) LIVE.

sqwot-compare.py --ksp KSP --db STORE --keyring FILE --root FPR [--root FPR...]
                 [--amount N] [--at YYYY-MM-DD|now] [--label NAME] [--keys FILE]

Runs `sq-wot list` once (under faketime at the reference time, TZ=UTC,
unless --at now) and `ksp trust --model sequoia --uid UID FPR` for every
binding (key, user ID) of the store (of the keys listed in FILE with
--keys), and compares the trust amounts.  sq-wot prints the amount as a
percentage of 120: a ksp amount is "more" when no amount that prints as
sq-wot's percentage (rounded down or to nearest) is as large, "less" when
none is as small.  A binding sq-wot does not list has amount 0.  Prints
"LABEL: E equal, L less, M more of N bindings" and every "more" binding;
exits 1 when one is more (or sq-wot's output names a binding the store
does not have), 2 when a tool fails.
"""
import argparse
import calendar
import json
import os
import re
import subprocess
import sys
import time

HEAD = re.compile(r"^\[(.)\] ([0-9A-F]{40,64}) (.*): [a-z ]+ \((\d+)%\)$")


def sq_amounts(args):
    cmd = ["sq-wot", "-k", args.keyring]
    for r in args.root:
        cmd += ["-r", r]
    cmd += ["list", "-a", str(args.amount)]
    env = dict(os.environ, TZ="UTC")
    if args.at != "now":
        cmd = ["faketime", args.at + " 00:00:00"] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if p.returncode != 0:
        sys.stderr.write("%s: sq-wot failed (%d): %s\n" % (args.label, p.returncode,
                                                         p.stderr.decode(errors="replace")[:500]))
        sys.exit(2)
    got = {}
    for line in p.stdout.decode("utf-8", errors="replace").splitlines():
        m = HEAD.match(line)
        if m:
            got[(m.group(2), m.group(3))] = int(m.group(4))
    return got


def pct_range(p):
    """The amounts that print as p% (floor or nearest)."""
    ok = [a for a in range(0, 120 * 64 + 1)
          if a * 100 // 120 == p or int(a * 100 / 120 + 0.5) == p]
    return (min(ok), max(ok)) if ok else (p * 120 // 100, p * 120 // 100)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ksp", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--keyring", required=True)
    ap.add_argument("--root", action="append", required=True)
    ap.add_argument("--amount", type=int, default=120)
    ap.add_argument("--at", default="now")
    ap.add_argument("--label", default="keyring")
    ap.add_argument("--keys")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()

    sq = sq_amounts(args)
    if args.at == "now":
        at = "@%d" % int(time.time())
    else:
        at = "@%d" % calendar.timegm(time.strptime(args.at, "%Y-%m-%d"))
    want = None
    if args.keys:
        want = set(l.strip().upper() for l in open(args.keys) if l.strip())
    q = subprocess.run(["sqlite3", "-separator", "\t", args.db,
                        "SELECT k.fpr, hex(u.uid) FROM uids u JOIN keys k ON k.id = u.key_id "
                        "WHERE u.is_attr = 0 ORDER BY k.fpr, u.idx"],
                       stdout=subprocess.PIPE, check=True)
    base = [args.ksp, "-d", args.db, "--json", "trust", "--model", "sequoia", "--at", at,
            "--trust-amount", str(args.amount)]
    for r in args.root:
        base += ["--core-fpr", r]
    equal = less = more = 0
    seen = set()
    bad = []
    for row in q.stdout.decode().splitlines():
        fpr, hexuid = row.split("\t")
        if want is not None and fpr not in want:
            continue
        raw = bytes.fromhex(hexuid)
        try:
            uid = raw.decode("utf-8")
        except UnicodeDecodeError:
            uid = None
        if b"\0" in raw:
            continue
        p = subprocess.run(base + ["--uid", os.fsdecode(raw), fpr], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        try:
            a = json.loads(p.stdout)["trust_amount"]
        except (ValueError, KeyError):
            sys.stderr.write("%s: ksp failed on %s %r: %s\n" % (args.label, fpr, raw,
                                                                 p.stderr.decode(errors="replace")[:300]))
            sys.exit(2)
        key = (fpr, uid)
        s = sq.get(key) if uid is not None else None
        if s is not None:
            seen.add(key)
        lo, hi = pct_range(s) if s is not None else (0, 0)
        if a > hi:
            more += 1
            bad.append("  MORE %s %r: ksp %d, sq-wot %s" % (fpr, uid if uid is not None else raw, a,
                                                           "%d%%" % s if s is not None else "0"))
        elif a < lo:
            less += 1
            if args.verbose:
                print("  less %s %r: ksp %d, sq-wot %s%%" % (fpr, uid, a, s))
        else:
            equal += 1
    n = equal + less + more
    print("%s: %d equal, %d less, %d more of %d bindings" % (args.label, equal, less, more, n))
    for b in bad:
        print(b)
    rc = 1 if more else 0
    for key in sq:
        if key not in seen and (want is None or key[0] in want):
            print("  sq-wot lists a binding the store does not have: %s %r" % key)
            rc = 1
    sys.exit(rc)


if __name__ == "__main__":
    main()
