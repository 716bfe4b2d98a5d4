#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A fresh clone stands on its own: cloned into a temporary directory that
# has no ../shared beside it, it builds, and ./ksp runs as built (no
# LD_LIBRARY_PATH: the RUNPATH finds src/lib), from any directory, and
# finds its reference data in tests/data.  Nothing tracked refers to
# ../shared outside bench/ (where it is guarded by a presence check).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T015-clone
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	# check-asan runs the tests in a copy made with tar, which is no clone
	echo "$name: $top is not a git checkout; clone test skipped" >&2
	echo "$name: 0 passed, 0 failed"
	exit 0
fi

# tracked files only: what a clone has
refs=$(git -C "$top" grep -l '\.\./shared' -- . ':!bench' ':!.ci' ':!tests/cli/T015-clone.sh' 2>/dev/null)
[ -z "$refs" ] && ok || bad "files that read ../shared: $refs"
for f in $(git -C "$top" grep -l '\.\./shared' -- bench 2>/dev/null); do
	grep -q '\[ -[rfd] "\$.*shared' "$top/$f" && ok || bad "$f reads ../shared without a presence check"
done

git clone -q "$top" "$w/x/ksp" 2>"$w/err" && ok || bad "git clone: $(cat "$w/err")"
[ ! -e "$w/x/shared" ] && ok || bad "the clone has ../shared beside it"
if make -C "$w/x/ksp" -s -j2 CFLAGS="-O0 -g0" ksp >"$w/make.out" 2>&1; then
	ok
	got=$(cd "$w" && env -u LD_LIBRARY_PATH "$w/x/ksp/ksp" --version 2>&1)
	[ "$got" = "ksp $(sed -n 's/^VERSION *:= *//p' "$top/Makefile")" ] && ok || bad "./ksp --version as built: $got"
	readelf -d "$w/x/ksp/ksp" | grep -q 'RUNPATH.*\$ORIGIN/src/lib' && ok || bad "no \$ORIGIN RUNPATH on ./ksp"
	# moved elsewhere as a whole tree, it still finds its own library
	mv "$w/x/ksp" "$w/moved"
	(cd / && env -u LD_LIBRARY_PATH "$w/moved/ksp" help >/dev/null 2>&1) && ok || bad "moved tree: ./ksp does not run"
	# and it reads the keyrings shipped in the tree
	(cd "$w/moved" && env -u LD_LIBRARY_PATH ./ksp wot stats --structural --keyring tests/data/archlinux/archlinux.gpg \
		--at 2023-03-21 >"$w/stats" 2>&1) && grep -q 'Strong set: *44 keys' "$w/stats" && ok ||
		bad "tests/data in the clone: $(cat "$w/stats")"
else
	bad "make in a fresh clone: $(tail -5 "$w/make.out")"
fi

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
