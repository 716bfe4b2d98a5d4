#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# libksp's modules (src/lib/module.h): graphviz, cairo, pango and
# libqrencode live in ksp-render.so (the drawing module), libcurl in
# ksp-smtp.so, which libksp.so.1 loads from the folder ksp/ beside itself
# when a command draws or sends mail, so that no other command pays for
# loading them (bench/results-startup.md).
#  - libksp.so.1 needs none of them (readelf NEEDED, and ldd: not even
#    through another library), and a trust query maps none (LD_DEBUG=files);
#    the modules need them and export only their tables;
#  - ksp graph draws through the module, in the tree and after make install
#    into a DESTDIR (the module found beside the installed libksp.so.1);
#  - a libksp.so.1 without its module: the drawing command fails with one
#    line naming the module's file and saying to reinstall; a trust query
#    still works;
#  - a module in the working directory, or in a relative LD_LIBRARY_PATH,
#    is never loaded (docs/security.md).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="$top/ksp"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# graphviz, its pango plugin and fontconfig lose memory of their own at
# every context (as in T600-graph)
export LSAN_OPTIONS="suppressions=$top/tests/keyrings/graph/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LC_ALL=C
name=T021-modules
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
for t in readelf ldd; do
	command -v $t >/dev/null || { bad "$t is missing (apt-get install binutils libc-bin)"; echo "$name: $pass passed, $fail failed"; exit 1; }
done
lib="$top/src/lib/libksp.so.1"
mod="$top/src/lib/ksp/ksp-render.so"
drawing='libgvc|libcgraph|libcairo|libpango|libX11|libxcb|libqrencode|libglib|libgobject|libfontconfig|libfreetype|libharfbuzz|libcurl|libgnutls|libkrb5|libldap'
smtp="$top/src/lib/ksp/ksp-smtp.so"

# --- what libksp.so.1 needs, and what the module needs ----------------------------
needed=$(readelf -d "$lib" | awk '/NEEDED/ { print $NF }')
[ -n "$needed" ] && ok || bad "readelf finds no NEEDED entry in $lib"
echo "$needed" | grep -qE "$drawing" && bad "libksp.so.1 needs a module's library: $(echo "$needed" | grep -E "$drawing" | tr '\n' ' ')" || ok
ldd "$lib" | grep -qE "$drawing" && bad "libksp.so.1 brings a module's library: $(ldd "$lib" | grep -E "$drawing" | awk '{print $1}' | tr '\n' ' ')" || ok
[ -f "$mod" ] && ok || bad "the module $mod is not built"
mneeded=$(readelf -d "$mod" 2>/dev/null | awk '/NEEDED/ { print $NF }')
for l in libgvc libcairo libpango libqrencode libksp.so.1; do
	echo "$mneeded" | grep -q "$l" && ok || bad "the module does not need $l: $mneeded"
done
# it offers its table, and nothing else of libksp's
exported=$(nm -D --defined-only "$mod" | awk '$2 ~ /^[TDR]$/ { print $3 }')
[ "$exported" = ksp_draw_module ] && ok || bad "the module exports: $(echo "$exported" | tr '\n' ' ')"
# the SMTP module: libcurl (party send --smtp; T426-party-smtp sends through it)
readelf -d "$smtp" 2>/dev/null | grep -q 'NEEDED.*libcurl' && ok || bad "the SMTP module $smtp does not need libcurl"
exported=$(nm -D --defined-only "$smtp" 2>/dev/null | awk '$2 ~ /^[TDR]$/ { print $3 }')
[ "$exported" = ksp_smtp_module ] && ok || bad "the SMTP module exports: $(echo "$exported" | tr '\n' ' ')"

# --- a store to draw: 40 synthetic keys -------------------------------------------
"$top/tests/tools/gen-wot" --keys 40 --seed t021 --mean-degree 4 -o "$w/ring.gpg" >/dev/null 2>&1 || bad "gen-wot"
$KSP -d "$w/s.db" wot load "$w/ring.gpg" >/dev/null 2>&1 || bad "wot load"
core=$(sqlite3 "$w/s.db" 'SELECT fpr FROM keys ORDER BY id LIMIT 1')
target=$(sqlite3 "$w/s.db" 'SELECT fpr FROM keys ORDER BY id LIMIT 1 OFFSET 20')
[ ${#core} = 40 ] && [ ${#target} = 40 ] && ok || bad "no keys in the store"

# a trust query loads no drawing library (LD_DEBUG=files lists every file the
# dynamic loader opens, the module included)
LD_DEBUG=files $KSP -d "$w/s.db" trust --core-fpr "$core" "$target" >"$w/out" 2>"$w/ld"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] && ok || bad "trust: exit $rc: $(grep -v '^ *[0-9]*:' "$w/ld" | head -3)"
grep -q 'file=libksp.so.1' "$w/ld" && ok || bad "LD_DEBUG=files shows no libksp.so.1: $(head -3 "$w/ld")"
grep -qE "file=($drawing)|ksp-render|ksp-smtp" "$w/ld" &&
	bad "a trust query loaded a module's library: $(grep -E "file=($drawing)|ksp-render|ksp-smtp" "$w/ld" | head -3)" || ok

# --- drawing goes through the module ----------------------------------------------
mkdir -p "$w/cwd/ksp"
# a module in the working directory, which must never be loaded
cp "$mod" "$w/cwd/ksp/ksp-render.so"
(cd "$w/cwd" && LD_DEBUG=files $KSP -d "$w/s.db" graph --around "$core" -T svg -o "$w/g.svg") >/dev/null 2>"$w/ld" &&
	ok || bad "graph --around: $(grep -v '^ *[0-9]*:' "$w/ld" | head -3)"
grep -q '<svg' "$w/g.svg" 2>/dev/null && ok || bad "graph --around wrote no SVG"
grep -q "file=$mod " "$w/ld" && ok || bad "the module $mod was not loaded: $(grep 'ksp-render' "$w/ld" | head -3)"
grep -q "file=$w/cwd/\|file=ksp/ksp-render\|file=./ksp" "$w/ld" && bad "a module in the working directory was loaded" || ok
# dot without a layout, written to stdout
$KSP -d "$w/s.db" graph --around "$core" -T dot >"$w/g.dot" 2>"$w/err" && ok || bad "graph -T dot: $(cat "$w/err")"
grep -q '^digraph' "$w/g.dot" && ok || bad "graph -T dot wrote no graph"

# --- a library without its module ----------------------------------------------------
mkdir -p "$w/lib"
cp "$lib" "$w/lib/"
LD_LIBRARY_PATH="$w/lib" $KSP -d "$w/s.db" graph --around "$core" -o "$w/none.svg" >"$w/out" 2>"$w/err"
rc=$?
[ $rc != 0 ] && ok || bad "graph without the module: exit 0"
[ "$(wc -l <"$w/err")" = 1 ] && ok || bad "graph without the module: not one line: $(cat "$w/err")"
grep -q "$w/lib/ksp/ksp-render.so: the drawing module .* is missing; reinstall ksp" "$w/err" && ok ||
	bad "graph without the module: $(cat "$w/err")"
[ ! -e "$w/none.svg" ] && ok || bad "graph without the module wrote a file"
LD_LIBRARY_PATH="$w/lib" $KSP -d "$w/s.db" trust --core-fpr "$core" "$target" >"$w/out" 2>"$w/err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] && ok || bad "trust without the module: exit $rc: $(cat "$w/err")"
# a relative LD_LIBRARY_PATH: the module is not looked for relative to the
# working directory, even when one is there
mkdir -p "$w/lib/ksp"
cp "$mod" "$w/lib/ksp/"
(cd "$w" && LD_DEBUG=files LD_LIBRARY_PATH=lib $KSP -d "$w/s.db" graph --around "$core" -o "$w/rel.svg") >/dev/null 2>"$w/ld"
rc=$?
[ $rc != 0 ] && ok || bad "graph with a relative LD_LIBRARY_PATH: exit 0"
grep -q 'relative path .*give LD_LIBRARY_PATH an absolute directory' "$w/ld" && ok ||
	bad "graph with a relative LD_LIBRARY_PATH: $(grep -v '^ *[0-9]*:' "$w/ld")"
grep -q 'file=.*ksp-render' "$w/ld" && bad "a module was loaded through a relative LD_LIBRARY_PATH" || ok

# --- installed: the module beside the installed libksp.so.1 ---------------------------
# a sanitizer build (make check-asan) links the installed programs with its
# own flags, as it built the objects (as T020-install does)
san=()
if ldd "$lib" 2>/dev/null | grep -q libasan; then
	san=(CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all")
fi
make -s -C "$top" install "${san[@]}" DESTDIR="$w/root" PREFIX=/usr >/dev/null 2>"$w/err" && ok || { bad "make install"; cat "$w/err" >&2; }
[ -f "$w/root/usr/lib/ksp/ksp-render.so" ] && ok || bad "not installed: usr/lib/ksp/ksp-render.so"
[ -f "$w/root/usr/lib/ksp/ksp-smtp.so" ] && ok || bad "not installed: usr/lib/ksp/ksp-smtp.so"
LD_DEBUG=files LD_LIBRARY_PATH="$w/root/usr/lib" "$w/root/usr/bin/ksp" -d "$w/s.db" graph --around "$core" -o "$w/inst.svg" \
	>/dev/null 2>"$w/ld" && ok || bad "installed ksp graph: $(grep -v '^ *[0-9]*:' "$w/ld" | head -3)"
grep -q '<svg' "$w/inst.svg" 2>/dev/null && ok || bad "installed ksp graph wrote no SVG"
grep -q "file=$w/root/usr/lib/ksp/ksp-render.so " "$w/ld" && ok || bad "the installed module was not the one loaded: $(grep ksp-render "$w/ld" | head -2)"
make -s -C "$top" uninstall DESTDIR="$w/root" PREFIX=/usr >/dev/null 2>&1
[ ! -e "$w/root/usr/lib/ksp" ] && ok || bad "left after uninstall: $(find "$w/root/usr/lib/ksp")"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
