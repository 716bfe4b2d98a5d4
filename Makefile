# libksp / ksp -- plain GNU make, no configure step.
# SPDX-License-Identifier: LGPL-2.1-or-later
VERSION  := 0.1
SOVER    := 1
PREFIX   ?= /usr/local
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DATADIR  ?= $(PREFIX)/share/ksp

PKG_CONFIG ?= pkg-config
DEPS       := gpgme libgcrypt sqlite3 libgvc libcgraph pangocairo cairo libqrencode libcurl jansson
# Debian packages that provide everything the build, the tests and the demo need.
DEB_PKGS   := build-essential pkg-config libgpgme-dev libgcrypt20-dev libsqlite3-dev \
              libgraphviz-dev graphviz gnupg sqlite3 openssl xxd python3 bc \
              libcairo2-dev libpango1.0-dev libqrencode-dev poppler-utils libxml2-utils \
              zbar-tools git debian-keyring \
              fonts-noto-core fonts-noto-cjk fonts-ipafont-gothic \
              signing-party pius sq-wot faketime sks libcurl4-gnutls-dev python3-aiosmtpd time \
              python3-cryptography \
              libjansson-dev
# fonts-noto-core: Latin, Greek, Cyrillic, Arabic, Hebrew, Devanagari and the
# other Indic scripts, Thai, Ethiopic...; fonts-noto-cjk: Chinese, Japanese,
# Korean.  debian-keyring: the real keyring the tests' reference numbers in
# tests/data/debian-keyring are for (2022.12.24 in Debian 12).
# The peers the tests run side by side with ksp, live: signing-party (caff,
# gpgsigs, keyanalyze, pgpring, process_keys), pius, sq-wot (the Sequoia web
# of trust, run under faketime at a reference date), sks (an HKP keyserver
# the tests start on 127.0.0.1).  libcurl: party send's SMTP; python3-aiosmtpd:
# the SMTP server the tests start on 127.0.0.1; time: make bench's CPU times.
# python3-cryptography: the keys tests/tools/pgpcraft.py and sqwot-gen.py
# make (T517).
DEP_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(DEPS) 2>/dev/null)
DEP_LIBS    = $(shell $(PKG_CONFIG) --libs $(DEPS) 2>/dev/null) -lpthread

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wold-style-definition -Wpointer-arith \
           -Wformat=2 -Wformat-security -Wundef -Wwrite-strings -Wvla \
           -Wtype-limits -Wsign-compare -Wnested-externs -Wchar-subscripts -Winit-self
cc-option = $(shell $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(1))
WARN    += $(call cc-option,-Wlogical-op)

KSP_CPPFLAGS := -D_GNU_SOURCE -DVERSION='"$(VERSION)"' -DENABLE_LOGGING=1 \
                -DENABLE_DEBUG=$(if $(DEBUG),1,0) -Iinclude -Isrc
KSP_CFLAGS    = -std=gnu11 $(WARN) -fPIC -fvisibility=hidden -fno-common \
                -ffunction-sections -fdata-sections $(DEP_CFLAGS)
KSP_LDFLAGS  := -Wl,--as-needed -Wl,--no-undefined -Wl,--gc-sections
ALL_CFLAGS    = $(KSP_CPPFLAGS) $(CPPFLAGS) $(KSP_CFLAGS) $(CFLAGS)

ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-7s %s\n' $(1) $(2);
endif

SHARED_OBJS := $(patsubst %.c,%.o,$(wildcard src/shared/*.c))
# the library: the foundation in src/lib/, each subsystem in a folder of its
# own (src/lib/openpgp/, store/, party/, render/, wot/, trust/, graph/...)
LIB_GEN     := src/lib/store/schema.c src/lib/store/schema-want.c
LIB_SRCS    := $(filter-out $(LIB_GEN) src/lib/store/schema-rows-gen.c,$(wildcard src/lib/*.c src/lib/*/*.c))
LIB_OBJS    := $(patsubst %.c,%.o,$(LIB_SRCS) $(LIB_GEN)) $(SHARED_OBJS)
LIB_OBJS    := $(sort $(LIB_OBJS))
CLI_OBJS    := $(patsubst %.c,%.o,$(wildcard src/cli/*.c)) $(SHARED_OBJS)
GPG_OBJS    := $(patsubst %.c,%.o,$(wildcard src/gpg/*.c)) $(SHARED_OBJS)
UNIT_TESTS  := $(patsubst %.c,%,$(wildcard tests/unit/test-*.c))
TOOLS       := $(patsubst %.c,%,$(wildcard tests/tools/*.c))
SONAME      := libksp.so.$(SOVER)
# The modules (src/lib/module.h): the objects that call graphviz, cairo,
# pango and libqrencode make ksp-render.so, the one that calls libcurl
# ksp-smtp.so; libksp.so.1 loads them from the folder ksp/ beside itself
# ($(LIBDIR)/ksp/ installed) when a command draws or sends mail, so that no
# other command loads those libraries and the seventy they need.  libksp.a
# has their objects too, for the programs that link them in.
DRAW_OBJS   := src/lib/graph/graph-render.o src/lib/render/render-pdf.o src/lib/render/render-qrencode.o \
               src/lib/draw/draw-module.o
SMTP_OBJS   := src/lib/party/smtp.o src/lib/party/smtp-module.o
MODULES     := src/lib/ksp/ksp-render.so src/lib/ksp/ksp-smtp.so
SO_OBJS     := $(filter-out $(DRAW_OBJS) $(SMTP_OBJS),$(LIB_OBJS))

all: src/lib/libksp.a src/lib/$(SONAME) $(MODULES) ksp ksp-gpg $(TOOLS)

tests: all $(UNIT_TESTS)

# --- dependencies: install missing Debian packages when root, else say how ---
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "ksp: installing missing build dependencies:$$missing"; \
	    (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
	      { echo "ksp: apt-get install failed; run: apt-get install -y$$missing" >&2; exit 2; }; \
	  else \
	    echo "ksp: missing build dependencies; run as root: apt-get install -y$$missing" >&2; exit 2; \
	  fi; \
	fi

# the package list, for .ci/run and packagers: make -s print-deb-pkgs
print-deb-pkgs:
	@echo $(DEB_PKGS)

%.o: %.c
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The store schema is compiled in from its SQL text.
SQL_TO_C = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/'
src/lib/store/schema.c: src/lib/store/schema.sql src/lib/store/schema-2.sql src/lib/store/schema-3.sql \
		       src/lib/store/schema-4.sql src/lib/store/schema-5.sql src/lib/store/schema-6.sql \
		       src/lib/store/schema-7.sql src/lib/store/schema-8.sql \
		       src/lib/store/schema-9.sql
	$(call say,GEN,$@)
	$(Q){ echo '/* generated from schema.sql, schema-2.sql ... schema-9.sql */'; echo '#include "lib/store/schema.h"'; \
	  echo 'const char ksp_schema_sql[] ='; $(SQL_TO_C) src/lib/store/schema.sql; echo ';'; \
	  echo 'const char ksp_schema2_sql[] ='; $(SQL_TO_C) src/lib/store/schema-2.sql; echo ';'; \
	  echo 'const char ksp_schema3_sql[] ='; $(SQL_TO_C) src/lib/store/schema-3.sql; echo ';'; \
	  echo 'const char ksp_schema4_sql[] ='; $(SQL_TO_C) src/lib/store/schema-4.sql; echo ';'; \
	  echo 'const char ksp_schema5_sql[] ='; $(SQL_TO_C) src/lib/store/schema-5.sql; echo ';'; \
	  echo 'const char ksp_schema6_sql[] ='; $(SQL_TO_C) src/lib/store/schema-6.sql; echo ';'; \
	  echo 'const char ksp_schema7_sql[] ='; $(SQL_TO_C) src/lib/store/schema-7.sql; echo ';'; \
	  echo 'const char ksp_schema8_sql[] ='; $(SQL_TO_C) src/lib/store/schema-8.sql; echo ';'; \
	  echo 'const char ksp_schema9_sql[] ='; $(SQL_TO_C) src/lib/store/schema-9.sql; echo ';'; } > $@

# ... and the rows SQLite makes of it (schema-rows.h): a store with exactly
# these is ksp's without building the schema in memory at every open.  The
# generator is a build tool, not part of the library.
src/lib/store/schema-rows-gen: src/lib/store/schema-rows-gen.o src/lib/store/schema-rows.o src/lib/store/schema.o \
			       src/shared/strbuf.o
	$(call say,CCLD,$@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs sqlite3 2>/dev/null)
src/lib/store/schema-want.c: src/lib/store/schema-rows-gen
	$(call say,GEN,$@)
	$(Q)src/lib/store/schema-rows-gen > $@.tmp && mv $@.tmp $@

src/lib/libksp.a: $(LIB_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

src/lib/$(SONAME): $(SO_OBJS) src/lib/libksp.sym
	$(call say,CCLD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/lib/libksp.sym \
	  $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(SO_OBJS) $(DEP_LIBS)
	$(Q)ln -sf $(SONAME) src/lib/libksp.so

# (a module uses libksp's public API, and exports only its table)
src/lib/ksp/ksp-render.so: $(DRAW_OBJS)
src/lib/ksp/ksp-smtp.so: $(SMTP_OBJS)
$(MODULES): $(SHARED_OBJS) src/lib/$(SONAME)
	$(call say,CCLD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(filter %.o,$^) -Lsrc/lib -lksp $(DEP_LIBS)

# The in-tree ./ksp runs as built: its RUNPATH is $ORIGIN/src/lib, the
# library beside it in this tree (resolved from the binary's own location,
# so it works from any working directory and in a copy of the tree).  A
# libtool-style wrapper script would do the same but break gdb, valgrind and
# ldd on ./ksp; the RUNPATH keeps ./ksp an ordinary ELF file.
# LD_LIBRARY_PATH, when set, still comes first.
ksp: $(CLI_OBJS) src/lib/$(SONAME)
	$(call say,CCLD,$@)
	$(Q)$(CC) $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(CLI_OBJS) -Lsrc/lib -lksp $(DEP_LIBS) \
	  -Wl,-rpath,'$$ORIGIN/src/lib'

# ksp-gpg, the gpg.program for git (src/gpg), has libksp linked in: git
# starts it once per signature, and libksp.so.1 brought 53 shared
# libraries (graphviz, cairo, pango..., now in the modules above) whose
# loading and relocation was most of a verification.  From libksp.a the
# linker takes only the objects
# it calls (no rendering, no graphs) and --as-needed keeps only the shared
# libraries those use (gpgme, libgcrypt, sqlite3: 9 in all).  The same in
# the tree and installed: it has no RUNPATH and needs no libksp.so.1.
ksp-gpg: $(GPG_OBJS) src/lib/libksp.a
	$(call say,CCLD,$@)
	$(Q)$(CC) $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(GPG_OBJS) src/lib/libksp.a $(DEP_LIBS)

# The installed ksp is linked again without the build tree's RUNPATH; when
# LIBDIR is not one the dynamic linker searches by default, it gets LIBDIR as
# its RUNPATH instead (so PREFIX=/opt/ksp works without LD_LIBRARY_PATH).
SYSTEM_LIBDIRS := /lib /usr/lib /usr/local/lib /lib64 /usr/lib64 \
                  $(addprefix /usr/lib/,$(shell $(CC) -print-multiarch 2>/dev/null)) \
                  $(addprefix /lib/,$(shell $(CC) -print-multiarch 2>/dev/null))
INSTALL_RPATH   = $(if $(filter $(SYSTEM_LIBDIRS),$(LIBDIR)),,-Wl,-rpath,$(LIBDIR))
# (linked at every install: its RUNPATH depends on LIBDIR)
src/cli/ksp.installed: $(CLI_OBJS) src/lib/$(SONAME) FORCE
	$(call say,CCLD,$@)
	$(Q)$(CC) $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(CLI_OBJS) -Lsrc/lib -lksp $(DEP_LIBS) $(INSTALL_RPATH)
# For bench/git.sh (make bench): ksp-gpg linked against libksp.so.1 as a
# library user would link it, timed beside the shipped one; not installed.
src/gpg/ksp-gpg-shared: $(GPG_OBJS) src/lib/$(SONAME)
	$(call say,CCLD,$@)
	$(Q)$(CC) $(KSP_LDFLAGS) $(LDFLAGS) $(CFLAGS) -o $@ $(GPG_OBJS) -Lsrc/lib -lksp $(DEP_LIBS) \
	  -Wl,-rpath,'$$ORIGIN/../lib'

tests/unit/test-%: tests/unit/test-%.o tests/unit/harness.o $(DRAW_OBJS) $(SMTP_OBJS) src/lib/libksp.a
	$(call say,CCLD,$@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(DEP_LIBS)

tests/tools/%: tests/tools/%.o src/lib/libksp.a
	$(call say,CCLD,$@)
	$(Q)$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $^ $(DEP_LIBS)

check: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_TESTS)
	$(Q)tests/check-symbols.sh src/lib/$(SONAME) src/lib/libksp.sym include/libksp.h
	$(Q)tests/check-arrows.py
	$(Q)tests/unit/run.sh $(UNIT_TESTS)
	$(Q)LD_LIBRARY_PATH=$(CURDIR)/src/lib tests/cli/run.sh
	$(Q)$(if $(strip $(CHECK_EXTRA)),$(MAKE) --no-print-directory $(CHECK_EXTRA),true)

# Sanitizer build in a separate tree, so the normal objects stay as they are.
# The fault sweep (make check) compiles the library and the CLI with the same
# flags (ASAN_CFLAGS) into tests/fault/obj/: those objects are copied in with
# their times and their dependency files (so that one older than a header it
# includes is compiled again), and only what the sweep did not build
# (ksp-gpg, the tests, the tools) or built before a change is compiled.
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check-asan: deps
	$(Q)rm -rf build-asan && mkdir -p build-asan && \
	  git ls-files -co --exclude-standard | grep -v '^build-asan/' | tar -cf - -T - | tar -xf - -C build-asan
	$(Q)if [ -d tests/fault/obj/src ]; then \
	  (cd tests/fault/obj && find src -name '*.[od]' | tar -cf - -T -) | tar -xf - -C build-asan && \
	  find build-asan/src -name '*.d' -exec sed -i 's|^tests/fault/obj/||' {} +; fi
	$(Q)$(MAKE) --no-print-directory -C build-asan all $(UNIT_TESTS) CFLAGS='$(ASAN_CFLAGS)'
	$(Q)cd build-asan && \
	  ASAN_OPTIONS=detect_leaks=1 tests/unit/run.sh $(UNIT_TESTS) && \
	  ASAN_OPTIONS=detect_leaks=1 KSP_SKIP="$(ASAN_SKIP)" LD_LIBRARY_PATH=$(CURDIR)/build-asan/src/lib tests/cli/run.sh

# What runs under ASan + UBSan in check-asan (CI), and what under valgrind
# in check-valgrind, is chosen for CI's 30 minutes on 2 cores: ASan costs
# 2-5x and valgrind far more, so each pass runs the unit tests and the
# analysis core's scripts (parsing, verification, trust, health, hostile
# packets).  The party, signing, rendering and reliability commands run
# under ASan + UBSan anyway in make check's fault sweep (tests/fault/, every
# command of tests/fault/commands.sh, its reference run and its injected
# failures), and the brute-force comparisons are hundreds of runs of code
# T500 covers.  ASAN_SKIP= (or VALGRIND_SKIP=) runs every script.
ASAN_SKIP ?= T011-deps T012-options T015-clone T020-install T030-completion T100-party T205-wot-scan T210-verify \
	     T250-gen-wot T300-sheet T310-fonts T400-sign T410-join T505-trust-brute T510-sequoia \
	     T520-gnupg-model T600-graph T700-reliability T710-reliability2 T900-readme T420-party-day T561-publish T415-party-mail T555-resign-weak \
	     T552-health-brute T553-health-commands \
	     T718-sign-signals T517-sequoia-live \
	     T215-fresh-load
# Under valgrind (about 0.9 s a ksp start): the unit tests (which hold the
# trust engines' own queries: test-trust-sequoia, test-trust-reach) and the
# short scripts of parsing and hostile packets; the longer analysis scripts
# run under ASan + UBSan above.
VALGRIND_SKIP ?= $(ASAN_SKIP) T200-wot T540-gpg-program T540-verify-hashes T550-health T515-sequoia-model \
		 T500-trust T530-verify T540-revocations T545-trust-binding T562-incremental T563-refresh \
		 T521-gnupg-live \
		 T425-party-attendance T426-party-smtp T427-party-keyserver \
		 T556-health-party \
		 T568-snap-reload T557-health-bound
check-valgrind: all $(UNIT_TESTS)
	$(Q)KSP_VALGRIND=1 tests/unit/run.sh $(UNIT_TESTS)
	$(Q)VALGRIND_OPTS=--read-inline-info=no KSP_VALGRIND=1 KSP_SKIP="$(VALGRIND_SKIP)" LD_LIBRARY_PATH=$(CURDIR)/src/lib tests/cli/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)LD_LIBRARY_PATH=$(CURDIR)/src/lib ./tests/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all src/gpg/ksp-gpg-shared
	$(Q)LD_LIBRARY_PATH=$(CURDIR)/src/lib ./bench/run.sh

install: all src/cli/ksp.installed
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 0755 src/lib/$(SONAME) $(DESTDIR)$(LIBDIR)/
	install -d $(DESTDIR)$(LIBDIR)/ksp
	install -m 0644 $(MODULES) $(DESTDIR)$(LIBDIR)/ksp/
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libksp.so
	install -m 0644 include/libksp.h $(DESTDIR)$(INCDIR)/
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(LIBDIR)|' -e 's|@includedir@|$(INCDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' src/lib/libksp.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/libksp.pc
	install -m 0755 src/cli/ksp.installed $(DESTDIR)$(BINDIR)/ksp
	install -m 0755 ksp-gpg $(DESTDIR)$(BINDIR)/ksp-gpg
	install -d $(DESTDIR)$(DATADIR)/templates
	install -m 0644 templates/*.txt templates/*.html $(DESTDIR)$(DATADIR)/templates/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 contrib/ksp.bash-completion $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ksp
	for m in docs/*.1; do [ -f "$$m" ] && install -m 0644 $$m $(DESTDIR)$(MANDIR)/man1/; done; true
	for m in docs/*.3; do [ -f "$$m" ] && install -m 0644 $$m $(DESTDIR)$(MANDIR)/man3/; done; true
	@$(ldconfig_step)

# Into the system (no DESTDIR), the dynamic linker's cache must learn the new
# library, or the first ksp cannot load libksp.so.1; a DESTDIR is a staging
# tree for a package, whose own scripts run ldconfig.
define ldconfig_step
if [ -z "$(DESTDIR)" ]; then \
  if [ "$$(id -u)" = 0 ]; then ldconfig || echo "ksp: ldconfig failed; run it as root" >&2; \
  else echo "ksp: run ldconfig as root so that the system finds libksp.so.$(SOVER) in $(LIBDIR)" >&2; fi; \
fi
endef

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libksp.so \
	  $(addprefix $(DESTDIR)$(LIBDIR)/ksp/,$(notdir $(MODULES))) \
	  $(DESTDIR)$(INCDIR)/libksp.h $(DESTDIR)$(LIBDIR)/pkgconfig/libksp.pc $(DESTDIR)$(BINDIR)/ksp $(DESTDIR)$(BINDIR)/ksp-gpg \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ksp
	rm -rf $(DESTDIR)$(DATADIR)/templates
	for m in docs/*.1; do rm -f $(DESTDIR)$(MANDIR)/man1/$$(basename $$m); done; true
	for m in docs/*.3; do rm -f $(DESTDIR)$(MANDIR)/man3/$$(basename $$m); done; true
	-rmdir $(DESTDIR)$(LIBDIR)/ksp $(DESTDIR)$(DATADIR) $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/bash-completion 2>/dev/null; true
	@$(ldconfig_step)

clean:
	rm -f src/*/*.o src/*/*.d src/lib/*/*.o src/lib/*/*.d src/lib/store/schema.c src/lib/store/schema-want.c \
	  src/lib/store/schema-rows-gen src/lib/libksp.a src/lib/libksp.so* $(MODULES) ksp src/cli/ksp.installed \
	  ksp-gpg src/gpg/ksp-gpg-shared \
	  tests/*/*.o tests/*/*.d $(UNIT_TESTS) $(TOOLS)
	rm -rf build-asan demo-out tests/cli/tmp tests/fault/obj tests/fault/ksp-fault tests/fault/tmp fuzz/obj fuzz/tmp
	rm -f $(patsubst %.c,%,$(wildcard fuzz/fuzz-*.c))

# Fragments: each mk/*.mk adds its own targets (fault injection, fuzzing...)
# and may append targets to CHECK_EXTRA, run at the end of `make check`.
CHECK_EXTRA :=
include $(sort $(wildcard mk/*.mk))

-include $(wildcard src/*/*.d src/lib/*/*.d tests/*/*.d)
FORCE:
.PHONY: FORCE all tests deps print-deb-pkgs check check-asan check-valgrind demo bench install uninstall clean
.SECONDARY:
