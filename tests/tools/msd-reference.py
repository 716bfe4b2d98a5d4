#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""msd-reference.py KEYRING STATS.JSON: check `ksp --json wot stats --top N`
against a plain reference computed here from the keyring's packets alone.

The keyring must be one where every third-party certification counts (as
tests/tools/gen-wot writes: no expiry, no revocation, all signatures good).
Edges: signer (issuer fingerprint subpacket) -> signee, signer in the keyring,
no self-signatures, duplicates merged.  Strong set: the largest strongly
connected component (ties: the one holding the smallest fingerprint).  Then
one breadth-first search per member, inside the strong set.  Prints one line
per difference and exits 1 if there is any; prints a summary and exits 0
otherwise."""
import hashlib
import json
import sys
from collections import deque


def packets(data):
    i = 0
    while i < len(data):
        h = data[i]
        i += 1
        if not h & 0x80:
            raise ValueError("not an OpenPGP packet at %d" % (i - 1))
        if h & 0x40:  # new format
            tag = h & 0x3F
            o = data[i]
            i += 1
            if o < 192:
                n = o
            elif o < 224:
                n = ((o - 192) << 8) + data[i] + 192
                i += 1
            elif o == 255:
                n = int.from_bytes(data[i:i + 4], "big")
                i += 4
            else:
                raise ValueError("partial lengths are not expected here")
        else:
            tag = (h >> 2) & 0x0F
            lt = h & 3
            k = {0: 1, 1: 2, 2: 4}[lt]
            n = int.from_bytes(data[i:i + k], "big")
            i += k
        yield tag, data[i:i + n]
        i += n


def issuer_fpr(body):
    """The issuer fingerprint subpacket (33) of a v4 signature, hashed or not."""
    if body[0] != 4:
        return None, None
    stype = body[1]
    p = 4
    for _ in range(2):
        n = int.from_bytes(body[p:p + 2], "big")
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
                ln, j = int.from_bytes(sub[j + 1:j + 5], "big"), j + 5
            if sub[j] & 0x7F == 33 and sub[j + 1] == 4:
                return stype, sub[j + 2:j + ln].hex().upper()
            j += ln
    return stype, None


def read_graph(path):
    data = open(path, "rb").read()
    keys, edges, cur = [], set(), None
    for tag, body in packets(data):
        if tag == 6:
            cur = hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest().upper()
            keys.append(cur)
        elif tag == 2 and cur is not None:
            stype, fpr = issuer_fpr(body)
            if stype is not None and 0x10 <= stype <= 0x13 and fpr and fpr != cur:
                edges.add((fpr, cur))
    known = set(keys)
    return sorted(keys), {(a, b) for a, b in edges if a in known}


def sccs(n, out):
    """Tarjan, iterative: the list of components (lists of vertices)."""
    index, low, on, st, comps, nxt = [None] * n, [0] * n, [False] * n, [], [], 0
    for root in range(n):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        index[root] = low[root] = nxt
        nxt += 1
        st.append(root)
        on[root] = True
        while work:
            v, k = work[-1]
            if k < len(out[v]):
                work[-1] = (v, k + 1)
                w = out[v][k]
                if index[w] is None:
                    index[w] = low[w] = nxt
                    nxt += 1
                    st.append(w)
                    on[w] = True
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                c = []
                while True:
                    w = st.pop()
                    on[w] = False
                    c.append(w)
                    if w == v:
                        break
                comps.append(c)
    return comps


def main():
    keys, edges = read_graph(sys.argv[1])
    stats = json.load(open(sys.argv[2]))
    vid = {f: i for i, f in enumerate(keys)}
    n = len(keys)
    out = [[] for _ in range(n)]
    for a, b in sorted(edges):
        out[vid[a]].append(vid[b])
    comps = sccs(n, out)
    best = max(comps, key=lambda c: (len(c), -min(c)))
    ss = sorted(best)
    inss = set(ss)
    sums = {v: 0 for v in ss}
    hist = {}
    for s in ss:
        dist = {s: 0}
        q = deque([s])
        while q:
            u = q.popleft()
            for w in out[u]:
                if w in inss and w not in dist:
                    dist[w] = dist[u] + 1
                    q.append(w)
        if len(dist) != len(ss):
            raise SystemExit("msd-reference: the strong set is not strongly connected (a bug here)")
        for t, d in dist.items():
            if t != s:
                sums[t] += d
                hist[d] = hist.get(d, 0) + 1
    total = sum(sums.values())
    c = len(ss)
    want = {
        "vertices": n,
        "edges": len(edges),
        "scc_count": len(comps),
        "strong_set_size": c,
        "strong_set_edges": sum(1 for a, b in edges if vid[a] in inss and vid[b] in inss),
        "strong_set_distance_sum": total,
        "strong_set_msd": round(total / (c * (c - 1)), 6) if c > 1 else 0.0,
    }
    bad = 0
    for k, v in want.items():
        got = stats.get(k)
        if (abs(got - v) > 5e-7) if isinstance(v, float) else got != v:
            print("%s: ksp %s, reference %s" % (k, got, v))
            bad += 1
    got_h = {e["distance"]: e["pairs"] for e in stats["distance_histogram"]}
    if got_h != hist:
        print("distance_histogram: ksp %s, reference %s" % (sorted(got_h.items()), sorted(hist.items())))
        bad += 1
    top = stats["top"]
    if len(top) != c:
        print("top: %d keys listed, the strong set has %d (ask for --top %d)" % (len(top), c, c))
        bad += 1
    order = sorted(ss, key=lambda v: (sums[v], keys[v]))
    for r, e in enumerate(top):
        v = vid.get(e["fingerprint"])
        if v not in inss or e["distance_sum"] != sums[v]:
            print("key %s: distance sum ksp %s, reference %s" % (e["fingerprint"], e["distance_sum"],
                                                                sums.get(v)))
            bad += 1
        elif keys[order[r]] != e["fingerprint"]:
            print("rank %d: ksp %s, reference %s" % (e["rank"], e["fingerprint"], keys[order[r]]))
            bad += 1
        if bad > 20:
            break
    if bad:
        sys.exit(1)
    print("msd-reference: %d keys, %d edges, strong set %d, %d components, distance sum %d, "
          "max distance %d: all equal" % (n, len(edges), c, len(comps), total, max(hist) if hist else 0))


main()
