#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A fresh Debian machine has only what make deps installs: every tool a test
# looks for ("command -v TOOL" anywhere under tests/) must be on this
# machine, and its Debian package must be Essential or installed by make
# deps (the packages of `make -s print-deb-pkgs` and what they depend on).
# A tool outside that list passes here on a machine where someone installed
# it by hand and fails on every other: this test names it and its package.
. "$(dirname "$0")/test-lib.sh"

test_begin deps
for t in dpkg dpkg-query make; do
	command -v $t >/dev/null || { _test_fail "$t is missing: this test needs a Debian system"; test_done; }
done
pkgs=$(make -s -C "$TOP" --no-print-directory print-deb-pkgs) || _test_fail "make print-deb-pkgs failed"
[ -n "$pkgs" ] && _test_pass "make print-deb-pkgs lists $(echo "$pkgs" | wc -w) packages" || _test_fail "no package list"

# the packages make deps brings: the list and, through Depends and
# Pre-Depends, everything they pull in (as apt-get installs it)
closure=$(/usr/bin/python3 - $pkgs <<'PY'
import subprocess, sys, re
# one dpkg-query for every installed package: name, what it depends on,
# what it provides (a dependency on a virtual package is met by a provider)
rows = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${db:Status-Status}\t${Depends}, ${Pre-Depends}\t${Provides}\n"],
                      capture_output=True, text=True).stdout.splitlines()
deps, providers = {}, {}
strip = lambda n: re.sub(r"\(.*?\)|:any|:native", "", n).strip()
for row in rows:
    name, status, dep, prov = (row.split("\t") + ["", "", ""])[:4]
    if status != "installed":
        continue
    deps[name] = [strip(x) for alt in dep.split(",") for x in alt.split("|") if strip(x)]
    for v in prov.split(","):
        if strip(v):
            providers.setdefault(strip(v), []).append(name)
seen = set(); todo = list(sys.argv[1:])
while todo:
    p = todo.pop()
    if p in seen:
        continue
    seen.add(p)
    todo.extend(deps.get(p, []))
    todo.extend(providers.get(p, []))
print("\n".join(sorted(seen)))
PY
)
[ "$(echo "$closure" | wc -l)" -gt "$(echo "$pkgs" | wc -w)" ] && _test_pass "dependency closure: $(echo "$closure" | wc -l) packages" ||
	_test_fail "the dependency closure is not larger than the list: dpkg-query failed?"

# every "command -v NAME" under tests/ (a literal name; the pattern is built
# here so that this file's own text is not taken for one)
cv="command"" -v"
# (the files git knows; outside a checkout, as in check-asan's copy, all)
files() {
	local l
	l=$(cd "$TOP" && git ls-files -co --exclude-standard tests 2>/dev/null)
	[ -n "$l" ] || l=$(cd "$TOP" && find tests -type f)
	echo "$l" | grep -v '^tests/cli/tmp/'
}
tools=$(cd "$TOP" && files |
	xargs grep -hoE "$cv [a-z][a-z0-9_.+-]*" 2>/dev/null | awk '{print $3}' | sort -u)
[ -n "$tools" ] && _test_pass "tools looked for: $(echo "$tools" | tr '\n' ' ')" || _test_fail "no '$cv' found under tests/"
for c in $tools; do
	b=$(command -v "$c") || { _test_fail "$c: not installed (the tests look for it; add its Debian package to DEB_PKGS in the Makefile)"; continue; }
	case "$b" in /*) ;; *) _test_pass "$c: a shell builtin"; continue ;; esac
	real=$(readlink -f "$b")
	pk=$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1)
	[ -n "$pk" ] || pk=$(dpkg -S "$b" 2>/dev/null | head -1 | cut -d: -f1)
	if [ -z "$pk" ]; then
		_test_fail "$c ($b): no Debian package holds it (installed by hand?); the tests must use a packaged tool"
	elif [ "$(dpkg-query -W -f='${Essential}' "$pk" 2>/dev/null)" = yes ]; then
		_test_pass "$c: package $pk is Essential"
	elif echo "$closure" | grep -qxF "$pk"; then
		_test_pass "$c: package $pk comes with make deps"
	else
		_test_fail "$c: package $pk is not installed by make deps: add it to DEB_PKGS in the Makefile"
	fi
done
test_done
