#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Extract the expected answers of sequoia-wot's own tests (src/lib.rs,
the RootedNetwork::authenticate tests: every sp(...) call) into
expected.tsv, so that ksp's port of them (tests/unit/test-trust-sequoia.c)
compares with Sequoia's numbers, not with ksp's.

Usage: extract-expected.py [/usr/share/cargo/registry/sequoia-wot-0.2.0] > expected.tsv
(the Debian package librust-sequoia-wot-dev ships the crate's source).

How: each #[test] function of lib.rs's test module is turned into Python
(a small, strict translation of the few Rust forms these tests use: let
bindings of fingerprints, user IDs and times, for loops over reference
times, if/else and match on the loop index, RootedNetwork::new with plain
or partially trusted roots, sp(...) calls) and run; a form it does not
know stops it with an error rather than guessing.

Columns: test, n (the query's number in its test), keyring, reference
time (Unix seconds; 2023-01-01 for the tests that use the current time, see
NOW below), roots
(FPR:AMOUNT,...), target fingerprint, target user ID, the amount asked
for (sp(..., None): 120), the expected total amount, the expected paths
(AMOUNT=FPR>FPR>...;... in order, "-": none).
"""
import re
import sys

crate = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/cargo/registry/sequoia-wot-0.2.0"
src = open(crate + "/src/lib.rs", encoding="utf-8").read()
src = src[src.index("mod tests {"):]

rows = []
# The tests that build the network at the current time (None) were written
# in 2021-2022; the keyrings' certifications expire five years after they
# were made (from 2026-09 on), so "now" is 2023-01-01 00:00 UTC here: after
# every keyring of the crate was made, before anything in them expires.
NOW = "1672531200"


def strip_comments(s):
    out = []
    for line in s.split("\n"):
        # no '//' inside the string literals these tests use
        i = line.find("//")
        out.append(line if i < 0 else line[:i])
    return "\n".join(out)


def translate(body):
    b = strip_comments(body)
    # statements that only set up or print
    b = re.sub(r"let p = &StandardPolicy::new\(\);", "", b)
    b = re.sub(r"eprintln!\((?:[^;]|\n)*?\);", "", b)
    b = re.sub(r"Ok\(\(\)\)\s*$", "", b.strip())
    b = re.sub(r'let certs: Vec<Cert> = CertParser::from_bytes\(\s*&crate::testdata::data\("([^"]+)"\)\)\?'
               r'\s*\.map\(\|c\| c\.expect\("[^"]*"\)\)\s*\.collect\(\);',
               r'KEYRING("\1")', b)
    b = re.sub(r"let n = Network::from_certs\([^;]*?, p, \*?(\w+)\)\?;", r"NET(\1)", b)
    b = re.sub(r"let (\w+): Fingerprint =\s*\"([0-9A-F ]+)\"\s*\.parse\(\)\.expect\(\"valid fingerprint\"\);",
               lambda m: m.group(1) + ' = "' + m.group(2).replace(" ", "") + '"', b)
    b = re.sub(r"let (\w+)\s*=\s*UserID::from\((\"[^\"]*\")\);", r"\1 = \2", b)
    b = re.sub(r"let (\w+) = time::UNIX_EPOCH \+ time::Duration::new\((\d+), 0\);", r"\1 = \2", b)
    b = re.sub(r"let (\w+): \[&Fingerprint; \d+\] = \[", r"\1 = [", b)
    b = re.sub(r'&"([0-9A-F]+)"\.parse\(\)\.unwrap\(\)', r'"\1"', b)
    b = re.sub(r"\];", "]", b)
    b = re.sub(r"fprs\[(\d*)\.\.(\d*)\]", r"fprs[\1:\2]", b)
    b = re.sub(r"let r = RootedNetwork::new\(\s*&n,\s*", "ROOTS(", b)
    b = b.replace("fprs[..]", "fprs").replace("[..]", "").replace(".clone()", "").replace("&", "")
    b = re.sub(r"Some\((\d+)\)", r"\1", b)
    b = re.sub(r"for \(i, t\) in \[([^\]]*)\]\.iter\(\)\.enumerate\(\) \{", r"for i, t in enumerate([\1]) {", b)
    # an expression match on the loop index: a dict lookup
    b = re.sub(r"\(match (i \+ 1) \{([^{}]*?)_ => unreachable!\(\),\s*\}",
               lambda m: "({" + re.sub(r"(\d+) =>", r"\1:", m.group(2)) + "}[" + m.group(1) + "]", b)
    # a statement match: if / elif
    def stmt_match(m):
        arms = re.findall(r"(\d+) => \{", m.group(2))
        return m.group(0)  # handled below, arm by arm
    b = re.sub(r"match (i \+ 1) \{\s*(\d+) => \{", r"if \1 == \2 {", b)
    b = re.sub(r"\}\s*(\d+) => \{", lambda m: "} elif i + 1 == " + m.group(1) + " {", b)
    b = re.sub(r"_ => unreachable!\(\),\s*\}", "", b)
    b = re.sub(r"\s*/// Tests\.", "", b)
    # blocks: braces outside parentheses and brackets
    out, depth, ind, line = [], 0, 1, ""
    i = 0
    while i < len(b):
        ch = b[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "{" and depth == 0:
            out.append("    " * ind + line.strip() + ":")
            line = ""
            ind += 1
        elif ch == "}" and depth == 0:
            if line.strip():
                out.append("    " * ind + line.strip())
            line = ""
            ind -= 1
            j = i + 1
            while j < len(b) and b[j] in " \t\n":
                j += 1
            if b.startswith("else", j) or b.startswith("elif", j):
                pass
        elif ch == ";" and depth == 0:
            out.append("    " * ind + line.strip())
            line = ""
        elif ch == "\n" and depth == 0:
            if line.strip():
                out.append("    " * ind + line.strip())
            line = ""
        else:
            line += ch
        i += 1
    if line.strip():
        out.append("    " * ind + line.strip())
    py = "\n".join(l for l in out if l.strip())
    py = py.replace("else if", "elif")
    return "def body():\n" + py + "\n"


for m in re.finditer(r"#\[test\]\s*(?:#\[allow\(unused\)\]\s*)?fn (\w+)\(\) -> Result<\(\)> \{", src):
    name = m.group(1)
    # the function body: to the matching brace
    i, depth = m.end(), 1
    while depth:
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        i += 1
    body = src[m.end():i - 1]
    state = {"keyring": None, "time": "now", "roots": None, "n": 0}

    def KEYRING(f):
        state["keyring"] = f

    def NET(t):
        state["time"] = NOW if t is None else str(t)

    def ROOTS(rs):
        state["roots"] = [(r, 120) if isinstance(r, str) else r for r in rs]

    def sp(r, fpr, uid, expected, amount):
        if r is not None or not (amount is None or isinstance(amount, int)):
            raise SystemExit(f"{name}: unexpected sp form")
        state["n"] += 1
        paths = ";".join(f"{a}=" + ">".join(p) for a, p in expected) or "-"
        rows.append([name, str(state["n"]), state["keyring"], state["time"],
                     ",".join(f"{f}:{a}" for f, a in state["roots"]), fpr, uid,
                     str(amount or 120), str(sum(a for a, _ in expected)), paths])

    py = translate(body).replace("sp(r,", "sp(None,")
    env = {"KEYRING": KEYRING, "NET": NET, "ROOTS": ROOTS, "sp": sp, "None": None}
    try:
        exec(py, env)
        env["body"]()
    except Exception as e:  # a form the translation does not know
        sys.stderr.write(py)
        raise SystemExit(f"{name}: cannot translate: {e}")

print("# expected answers of sequoia-wot 0.2.0's RootedNetwork::authenticate tests (src/lib.rs),")
print("# extracted by extract-expected.py; do not edit by hand; time 1672531200 (2023-01-01) stands for")
print("# the tests' current time (see NOW there)")
print("#test\tn\tkeyring\ttime\troots\ttarget\tuid\ttarget_amount\tamount\tpaths")
for r in rows:
    print("\t".join(r))
sys.stderr.write(f"extract-expected: {len(rows)} queries from {len(set(r[0] for r in rows))} tests\n")
