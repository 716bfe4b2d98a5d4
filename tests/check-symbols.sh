#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Check that the shared library exports exactly the symbols listed in the
# version script and declared as functions in the public header.
# Usage: tests/check-symbols.sh SONAME SYMFILE HEADER
set -eu

if [ $# -ne 3 ]; then
	echo "usage: $0 SONAME SYMFILE HEADER" >&2
	exit 2
fi
so=$1 sym=$2 hdr=$3
for f in "$so" "$sym" "$hdr"; do
	if [ ! -r "$f" ]; then
		echo "check-symbols: $f: not readable" >&2
		exit 2
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ksp-symbols.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# 1. what the library really exports
nm -D --defined-only "$so" | awk '$2=="T"{print $3}' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/exported"

# 2. what the version script lists (lines like "\tksp_foo;"); comments removed first
awk '
	BEGIN { incomment = 0 }
	{
		line = $0; out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (i == 0) { line = ""; break }
				line = substr(line, i + 2); incomment = 0
			} else {
				i = index(line, "/*")
				if (i == 0) { out = out line; line = ""; break }
				out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
			}
		}
		sub(/#.*/, "", out)
		print out
	}' "$sym" | grep -E '^[[:space:]]*ksp_[A-Za-z0-9_]+[[:space:]]*;' |
	sed -E 's/^[[:space:]]*(ksp_[A-Za-z0-9_]+).*/\1/' | LC_ALL=C sort -u >"$tmp/symfile"

# 3. the functions the public header declares, with comments stripped so that
#    names mentioned in doc comments (e.g. "ksp_get_error()") do not count
if ! ${CC:-cc} -fpreprocessed -dD -E -P -x c "$hdr" >"$tmp/header.i" 2>"$tmp/cc.err"; then
	echo "check-symbols: cannot strip comments from $hdr:" >&2
	cat "$tmp/cc.err" >&2
	exit 2
fi
grep -o 'ksp_[a-z0-9_]* *(' "$tmp/header.i" | tr -d ' (' | LC_ALL=C sort -u >"$tmp/header"

fail=0
check() { # NAME_A FILE_A NAME_B FILE_B
	if ! cmp -s "$2" "$4"; then
		echo "check-symbols: $1 and $3 differ:" >&2
		diff -u --label "$1" --label "$3" "$2" "$4" >&2 || true
		fail=1
	fi
}
check "exported ($so)" "$tmp/exported" "version script ($sym)" "$tmp/symfile"
check "exported ($so)" "$tmp/exported" "header ($hdr)" "$tmp/header"
if [ "$fail" -ne 0 ]; then
	exit 1
fi
n=$(wc -l <"$tmp/exported" | tr -d ' ')
if [ "$n" -eq 0 ]; then
	echo "check-symbols: $so exports no symbols" >&2
	exit 1
fi
echo "symbols: $n exported, matching"
