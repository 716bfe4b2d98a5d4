# SPDX-License-Identifier: LGPL-2.1-or-later
"""An independent brute force for 'ksp health' repair plans
(tests/cli/T552-health-brute.sh), written without ksp's code.

  gen SEED DIR       a small random web of trust: DIR/web.gpg (INSECURE
                     Ed25519 keys from fixed seeds, tests/tools/pgpcraft.py
                     packets), DIR/meta.json (core, K, L, times)
  check DIR JSON     reads DIR/web.gpg back through gpg --with-colons
                     (GNUPGHOME must be a private home), enumerates every
                     simple path, and checks the health report JSON: the
                     falling keys, every repair line's gain read in order,
                     every extension's count, no redundant certification,
                     the plan at most 1.25 x the fewest (exact search over
                     every signer), the reported bound; writes DIR/fixed.gpg,
                     the web with the plan's certifications made now
  restored DIR JSON  the report of fixed.gpg: no key falls but
                     those whose own key expires by the horizon

A key is trusted with K paths of at most L certifications from core keys,
sharing no key but the target, over certifications valid at the time
between keys valid at the time (ksp-trust(1)).
"""
import json
import os
import random
import struct
import subprocess
import sys
import hashlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgpcraft import ED25519_OID, packet, subpacket, mpi  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # noqa: E402

DAY = 86400
T0 = 1704067200            # 2024-01-01: keys made
NOW = T0 + 152 * DAY       # 2024-06-01: the report's time
HORIZON = NOW + 90 * DAY   # +90d


class Key:
    """An Ed25519 v4 primary key made on 2024-01-01 from a 32-byte seed
    (python3-cryptography as Debian has it)."""

    def __init__(self, seed):
        self.sk = Ed25519PrivateKey.from_private_bytes(seed)
        pub = self.sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.body = (b"\x04" + struct.pack(">I", T0) + bytes([22, len(ED25519_OID)]) + ED25519_OID
                     + mpi(b"\x40" + pub))
        self.fpr = hashlib.sha1(b"\x99" + struct.pack(">H", len(self.body)) + self.body).digest()


def sign(signer, digest_input, head):
    h = hashlib.sha256()
    for part in digest_input:
        h.update(part)
    h.update(head)
    h.update(b"\x04\xff" + struct.pack(">I", len(head)))
    digest = h.digest()
    sig = signer.sk.sign(digest)
    return digest, sig


def sig_packet(signer, target, uid, sigtype, created, expires=None, key_expires=None):
    """A v4 signature (SHA-256, EdDSA) of @signer over @target's key and @uid."""
    hashed = subpacket(2, struct.pack(">I", created)) + subpacket(33, b"\x04" + signer.fpr)
    if expires is not None:
        hashed += subpacket(3, struct.pack(">I", expires - created))
    if key_expires is not None:
        hashed += subpacket(9, struct.pack(">I", key_expires - T0)) + subpacket(27, b"\x03")
    head = b"\x04" + bytes([sigtype, 22, 8]) + struct.pack(">H", len(hashed)) + hashed
    digest, sig = sign(signer, [b"\x99" + struct.pack(">H", len(target.body)) + target.body,
                                b"\xb4" + struct.pack(">I", len(uid)) + uid], head)
    unhashed = subpacket(16, signer.fpr[12:])
    return packet(2, head + struct.pack(">H", len(unhashed)) + unhashed + digest[:2]
                  + mpi(sig[:32]) + mpi(sig[32:]))


def uid_of(i):
    return ("k%d INSECURE <k%d@example.org>" % (i, i)).encode()


def build(seed, extra=()):
    """The web of @seed (and @extra certifications: signer index, target
    index, made now): its keyring, and its meta data."""
    rnd = random.Random(seed)
    K = 1 if seed % 3 else 2
    n = rnd.randint(8, 11)
    L = rnd.choice([3, 4])
    n_core = K + rnd.randint(0, 1)
    seeds = [hashlib.sha256(b"health-brute %d %d" % (seed, i)).hexdigest() for i in range(n)]
    keys = [Key(bytes.fromhex(s)) for s in seeds]
    expires = {}
    for i in range(n_core, n):
        if rnd.random() < 0.15:
            expires[i] = NOW + rnd.randint(5, 80) * DAY
    certs = []  # signer, target, created, expires or None
    for _ in range(int(n * rnd.uniform(1.8, 2.6))):
        a, b = rnd.sample(range(n), 2)
        if b < n_core or any(c[0] == a and c[1] == b for c in certs):
            continue
        exp = None
        r = rnd.random()
        if r < 0.4:
            exp = NOW + rnd.randint(5, 80) * DAY   # lapses by the horizon
        elif r < 0.45:
            exp = NOW - rnd.randint(1, 30) * DAY   # lapsed already
        certs.append((a, b, T0 + DAY, exp))
    certs += [(a, b, NOW, None) for a, b in extra]
    out = b""
    for i, k in enumerate(keys):
        out += packet(6, k.body) + packet(13, uid_of(i))
        out += sig_packet(k, k, uid_of(i), 0x13, T0, key_expires=expires.get(i))
        for a, b, created, exp in certs:
            if b == i:
                out += sig_packet(keys[a], k, uid_of(i), 0x10, created, exp)
    meta = {"seed": seed, "core": [keys[i].fpr.hex().upper() for i in range(n_core)],
            "fprs": [k.fpr.hex().upper() for k in keys], "K": K, "L": L, "now": NOW, "horizon": HORIZON}
    return out, meta


def gen(seed, d):
    out, meta = build(seed)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "web.gpg"), "wb").write(out)
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"))


def read_back(d):
    """Keys and certifications as gpg lists them."""
    subprocess.run(["gpg", "--batch", "--quiet", "--import", os.path.join(d, "web.gpg")],
                   check=True, capture_output=True)
    out = subprocess.run(["gpg", "--batch", "--with-colons", "--fixed-list-mode", "--list-sigs"],
                         check=True, capture_output=True, text=True).stdout
    keys, sigs, cur, kid = {}, [], None, {}
    want_fpr = False
    for line in out.splitlines():
        f = line.split(":")
        if f[0] == "pub":
            cur = {"created": int(f[5]), "expires": int(f[6]) if f[6] else None, "keyid": f[4]}
            want_fpr = True
        elif f[0] == "fpr" and want_fpr:
            cur["fpr"] = f[9]
            keys[f[9]] = cur
            kid[cur["keyid"]] = f[9]
            want_fpr = False
        elif f[0] == "sig" and f[10].startswith("10"):
            sigs.append((f[4], cur["fpr"], int(f[5]), int(f[6]) if f[6] else None))
    certs = []
    for signer_kid, target, created, exp in sigs:
        s = kid.get(signer_kid)
        if s and s != target:
            certs.append((s, target, created, exp))
    subprocess.run(["gpg", "--batch", "--yes", "--delete-keys"] + list(keys), capture_output=True)
    return keys, certs


class Web:
    def __init__(self, keys, certs, core, K, L):
        self.keys, self.certs, self.core, self.K, self.L = keys, certs, set(core), K, L

    def key_ok(self, f, at, extended=()):
        k = self.keys[f]
        return k["created"] <= at and (k["expires"] is None or k["expires"] > at or f in extended)

    def edges(self, at, extended=(), added=()):
        e = {}
        for s, t, created, exp in self.certs:
            if created <= at and (exp is None or exp > at) and self.key_ok(s, at, extended) \
                    and self.key_ok(t, at, extended):
                e.setdefault(t, set()).add(s)
        for s, t in added:
            if self.key_ok(s, at, extended) and self.key_ok(t, at, extended):
                e.setdefault(t, set()).add(s)
        return e

    def paths(self, into, t):
        """Every simple path from a core key to t of at most L hops, as
        the set of its keys but t."""
        res = []

        def back(v, seen, hops):
            if v in self.core and v != t:
                res.append(frozenset(seen - {t}))
            if hops == self.L:
                return
            for u in into.get(v, ()):
                if u not in seen:
                    back(u, seen | {u}, hops + 1)
        back(t, {t}, 0)
        return res

    def trusted(self, into, t):
        if t in self.core:
            return True
        ps = self.paths(into, t)
        if self.K == 1:
            return bool(ps)

        def pick(i, used, need):
            if need == 0:
                return True
            for j in range(i, len(ps)):
                if not (ps[j] & used) and pick(j + 1, used | ps[j], need - 1):
                    return True
            return False
        return pick(0, frozenset(), self.K)

    def at_k(self, at, keys, extended=(), added=()):
        into = self.edges(at, extended, added)
        return {k for k in keys if self.trusted(into, k)}

    def upstream(self, into, k):
        """Keys within L - 1 certifications before k (valid, not core)."""
        seen, front = {k}, {k}
        for _ in range(self.L - 1):
            nxt = set()
            for v in front:
                for u in into.get(v, ()):
                    if u not in seen and u not in self.core:
                        seen.add(u)
                        nxt.add(u)
            front = nxt
        return seen


def minimum(web, goal, limit):
    """The fewest new certifications bringing every goal key to K at the
    horizon: iterative deepening; a plan must certify, for each key still
    below K, a key with a path to it of old certifications (the last new
    certification of its new path), by any key valid there."""
    at = HORIZON
    base = web.edges(at)
    valid = [f for f in web.keys if web.key_ok(f, at)]
    up = {k: web.upstream(base, k) for k in goal}
    counts = {(s, t) for t, ss in base.items() for s in ss}

    def search(plan, m, seen):
        ok = web.at_k(at, goal, added=plan)
        rest = [k for k in goal if k not in ok]
        if not rest:
            return list(plan)
        if len(plan) == m:
            return None
        k = min(rest, key=lambda x: len(up[x]))
        for t in sorted(up[k]):
            for s in valid:
                if s == t or (s, t) in counts or (s, t) in plan:
                    continue
                key = frozenset(plan + [(s, t)])
                if key in seen:
                    continue
                seen.add(key)
                r = search(plan + [(s, t)], m, seen)
                if r is not None:
                    return r
        return None
    for m in range(0, limit + 1):
        r = search([], m, set())
        if r is not None:
            return r
    return None


def report(d, js):
    meta = json.load(open(os.path.join(d, "meta.json")))
    keys, certs = read_back(d)
    web = Web(keys, certs, meta["core"], meta["K"], meta["L"])
    h = json.load(open(js))
    return meta, web, h


def check(d, js):
    meta, web, h = report(d, js)
    errs = []
    now_ok = web.at_k(NOW, web.keys)
    hz_ok = web.at_k(HORIZON, web.keys)
    falling = {k for k in now_ok - hz_ok if k not in web.core}
    fall_valid = {k for k in falling if web.key_ok(k, HORIZON)}
    below = {x["label"]: set(x["below"]) for x in h["horizons"]}
    if below["now"] != set(web.keys) - now_ok or below["+90d"] != set(web.keys) - hz_ok:
        errs.append("below K differs: now %s vs %s" % (sorted(below["now"]), sorted(set(web.keys) - now_ok)))
    plan = [(r["signer"], r["target"]) for r in h["repair"]]
    # every gain, read in order
    have = set()
    for i, r in enumerate(h["repair"]):
        ok = web.at_k(HORIZON, fall_valid, added=plan[:i + 1])
        got = len(ok - have)
        if got != r["repairs"]:
            errs.append("line %d %s -> %s: says %d keys back, brings %d" % (i + 1, r["signer"][:8],
                                                                          r["target"][:8], r["repairs"], got))
        have = ok
    if have != fall_valid:
        errs.append("plan leaves %d of %d falling keys below K" % (len(fall_valid - have), len(fall_valid)))
    if h["unrepaired"] != len(fall_valid - have):
        errs.append("unrepaired %d, brute force %d" % (h["unrepaired"], len(fall_valid - have)))
    # no redundant certification
    for i in range(len(plan)):
        rest = plan[:i] + plan[i + 1:]
        if web.at_k(HORIZON, have, added=rest) == have:
            errs.append("line %d is redundant" % (i + 1))
    # the extensions, each alone
    for e in h["extend"]:
        got = len(web.at_k(HORIZON, falling, extended={e["fingerprint"]}))
        if got != e["repairs"]:
            errs.append("extension %s: says %d, keeps %d" % (e["fingerprint"][:8], e["repairs"], got))
    # against the fewest
    best = minimum(web, have, len(plan))
    m = len(best) if best is not None else len(plan)
    if len(plan) > 1.25 * m:
        errs.append("plan of %d, the fewest %d" % (len(plan), m))
    if h.get("repair_minimal") and len(plan) != m:
        errs.append("says minimal, the fewest is %d, not %d" % (m, len(plan)))
    if h.get("repair_lower_bound", 0) > m:
        errs.append("lower bound %d above the fewest %d" % (h["repair_lower_bound"], m))
    # the web with the plan's certifications, made now
    idx = {f: i for i, f in enumerate(meta["fprs"])}
    out, _ = build(meta["seed"], [(idx[s], idx[t]) for s, t in plan])
    open(os.path.join(d, "fixed.gpg"), "wb").write(out)
    print("seed %d: K=%d L=%d keys %d falling %d plan %d fewest %d%s" % (
        meta["seed"], meta["K"], meta["L"], len(web.keys), len(fall_valid), len(plan), m,
        "" if not errs else " ERRORS"))
    for e in errs:
        print("  " + e)
    return 1 if errs else 0


def restored(d, js):
    meta, web, h = report(d, js)
    below = {x["label"]: set(x["below"]) for x in h["horizons"]}
    fallen = below["+90d"] - below["now"]
    own = {k for k in fallen if not web.key_ok(k, HORIZON)}
    if fallen - own:
        print("seed %d: after the plan %d keys still fall: %s" % (meta["seed"], len(fallen - own),
                                                                 sorted(fallen - own)))
        return 1
    print("seed %d: restored (%d fall with their own key)" % (meta["seed"], len(own)))
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    elif cmd == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    elif cmd == "restored":
        sys.exit(restored(sys.argv[2], sys.argv[3]))
