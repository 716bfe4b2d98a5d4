# Fuzzing: every fuzz/fuzz-NAME.c is a libFuzzer target, built with clang
# against the library compiled with -fsanitize=fuzzer-no-link,address,
# undefined (fuzz/obj/); `make fuzz` runs each for a bounded time
# (fuzz/run.sh: min(FUZZ_TIME, FUZZ_BUDGET / targets) seconds each).
# SPDX-License-Identifier: LGPL-2.1-or-later

FUZZ_CC     ?= clang
FUZZ_TIME   ?= 60
FUZZ_BUDGET ?= 180
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# the gcc-only warning is not known to clang
FUZZ_CFLAGS  = $(KSP_CPPFLAGS) $(CPPFLAGS) $(filter-out -Wlogical-op,$(KSP_CFLAGS)) -O1 -g \
               $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_TARGETS := $(patsubst %.c,%,$(wildcard fuzz/fuzz-*.c))
FUZZ_LIB    := fuzz/obj/libksp-fuzz.a

fuzz/obj/%.o: %.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(addprefix fuzz/obj/,$(LIB_OBJS))
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

fuzz/fuzz-%: fuzz/obj/fuzz/fuzz-%.o $(FUZZ_LIB)
	$(call say,CCLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(KSP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

# ksp-gpg's signature reader (src/gpg/sig-info.c) lives outside the library
fuzz/fuzz-gpg-sig: fuzz/obj/fuzz/fuzz-gpg-sig.o fuzz/obj/src/gpg/sig-info.o $(FUZZ_LIB)
	$(call say,CCLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(KSP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(DEP_LIBS)

fuzz-build: $(FUZZ_TARGETS)

fuzz: $(FUZZ_TARGETS)
	$(Q)FUZZ_TIME=$(FUZZ_TIME) FUZZ_BUDGET=$(FUZZ_BUDGET) fuzz/run.sh

clean-fuzz:
	rm -rf fuzz/obj fuzz/tmp $(FUZZ_TARGETS)

-include $(shell find fuzz/obj -name '*.d' 2>/dev/null)
.PHONY: fuzz fuzz-build clean-fuzz
