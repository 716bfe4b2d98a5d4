#!/usr/bin/env bash
# make install into a DESTDIR; a program built against the installed header
# and pkg-config file links and runs; make uninstall removes it all.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T020-install
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# a sanitizer build (make check-asan) links the installed programs with its
# own flags, as it built the objects
san=()
if ldd "$top/src/lib/libksp.so.1" 2>/dev/null | grep -q libasan; then
	san=(CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all")
fi
make -s -C "$top" install "${san[@]}" DESTDIR="$w/root" PREFIX=/usr >/dev/null 2>"$w/err" && ok || { bad "make install"; cat "$w/err" >&2; }
for f in usr/bin/ksp usr/bin/ksp-gpg usr/share/man/man1/ksp-gpg.1 usr/include/libksp.h usr/lib/libksp.so.1 usr/lib/libksp.so usr/lib/pkgconfig/libksp.pc \
	usr/share/man/man1/ksp.1 usr/share/man/man3/libksp.3 usr/share/bash-completion/completions/ksp; do
	[ -e "$w/root/$f" ] && ok || bad "not installed: $f"
done
cat > "$w/t.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <libksp.h>
int main(void)
{
	struct ksp_ctx *ctx = NULL;
	struct ksp_store *st = NULL;
	char *e = NULL;
	if (ksp_new(&ctx) < 0)
		return 1;
	if (ksp_store_open(ctx, "/nonexistent/x.db", 0, &st) != -ENOENT)
		return 2;
	if (ksp_escape("a\x1b", 2, KSP_ESCAPE_TERMINAL, &e) < 0)
		return 3;
	printf("%s\n", e);
	ksp_unref(ctx);
	return 0;
}
C
sed -i "s|^prefix=.*|prefix=$w/root/usr|; s|^libdir=.*|libdir=$w/root/usr/lib|; s|^includedir=.*|includedir=$w/root/usr/include|" \
	"$w/root/usr/lib/pkgconfig/libksp.pc"
export PKG_CONFIG_PATH="$w/root/usr/lib/pkgconfig"
if ldd "$top/src/lib/libksp.so.1" 2>/dev/null | grep -q libasan; then
	echo "$name: sanitizer build, linking a plain program against it is skipped" >&2
	:
elif cc -Wall -Werror -o "$w/t" "$w/t.c" $(pkg-config --cflags --libs libksp) 2>"$w/err"; then
	ok
	[ "$(LD_LIBRARY_PATH="$w/root/usr/lib" "$w/t")" = 'a\x1B' ] && ok || bad "installed library misbehaves"
else
	bad "cannot build against the installed library"; cat "$w/err" >&2
fi
LD_LIBRARY_PATH="$w/root/usr/lib" "$w/root/usr/bin/ksp" --version | grep -q '^ksp ' && ok || bad "installed ksp"
# the installed ksp carries no build-tree RUNPATH; a DESTDIR runs no ldconfig
readelf -d "$w/root/usr/bin/ksp" | grep -q 'RUNPATH\|RPATH' && bad "installed ksp has a RUNPATH: $(readelf -d "$w/root/usr/bin/ksp" | grep PATH)" || ok
grep -q ldconfig "$w/err" && bad "ldconfig message for a DESTDIR install" || ok
LD_LIBRARY_PATH="$w/root/usr/lib" "$w/root/usr/bin/ksp-gpg" --ksp-gpg-version | grep -q '^ksp-gpg ' && ok || bad "installed ksp-gpg"
# the installed ksp-gpg does not carry the build tree's RUNPATH
readelf -d "$w/root/usr/bin/ksp-gpg" 2>/dev/null | grep -q 'ORIGIN' && bad "installed ksp-gpg has \$ORIGIN in its RUNPATH" || ok
# ... and has libksp linked in: git starts it once per signature, and it
# must not make the dynamic loader open libksp.so.1 and its 53 libraries
# (graphviz, cairo, pango): it runs without LD_LIBRARY_PATH, needs neither
deps=$(readelf -d "$w/root/usr/bin/ksp-gpg" 2>/dev/null | grep NEEDED)
echo "$deps" | grep -q 'libksp\|libgvc\|libcgraph\|libcairo\|libpango' && bad "installed ksp-gpg needs: $deps" || ok
env -u LD_LIBRARY_PATH "$w/root/usr/bin/ksp-gpg" --ksp-gpg-version | grep -q '^ksp-gpg ' && ok || bad "installed ksp-gpg without LD_LIBRARY_PATH"
make -s -C "$top" uninstall DESTDIR="$w/root" PREFIX=/usr >/dev/null 2>&1
[ -z "$(find "$w/root" -type f -o -type l)" ] && ok || bad "left after uninstall: $(find "$w/root" -type f -o -type l)"
[ ! -e "$w/root/usr/share/ksp" ] && [ ! -e "$w/root/usr/share/bash-completion" ] && ok || bad "ksp's own directories left after uninstall"

# into a prefix the dynamic linker does not search, without DESTDIR: the
# installed ksp finds its library by its RUNPATH (LIBDIR), with no
# LD_LIBRARY_PATH; as root, make install runs ldconfig
if ldd "$top/src/lib/libksp.so.1" 2>/dev/null | grep -q libasan; then
	echo "$name: sanitizer build, the installed-prefix run is skipped" >&2
else
	make -s -C "$top" install PREFIX="$w/opt" >/dev/null 2>"$w/err" && ok || { bad "make install PREFIX"; cat "$w/err" >&2; }
	readelf -d "$w/opt/bin/ksp" | grep -q "RUNPATH.*\[$w/opt/lib\]" && ok || bad "no RUNPATH $w/opt/lib: $(readelf -d "$w/opt/bin/ksp" | grep PATH)"
	(cd / && env -u LD_LIBRARY_PATH "$w/opt/bin/ksp" --version) | grep -q '^ksp ' && ok || bad "installed ksp does not run without LD_LIBRARY_PATH"
	if [ "$(id -u)" != 0 ]; then
		grep -q 'run ldconfig as root' "$w/err" && ok || bad "non-root install: no ldconfig hint: $(cat "$w/err")"
	fi
	make -s -C "$top" uninstall PREFIX="$w/opt" >/dev/null 2>&1
	[ -z "$(find "$w/opt" -type f -o -type l)" ] && ok || bad "left after uninstall: $(find "$w/opt" -type f -o -type l)"
fi

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
