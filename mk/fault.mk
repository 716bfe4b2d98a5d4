# Fault injection: tests/fault/ksp-fault is the CLI built from its own
# AddressSanitizer + UBSan objects (tests/fault/obj/) and linked with
# -Wl,--wrap for the allocator and file I/O (tests/fault/fault.c), so that
# the Nth call can be made to fail.  tests/fault/sweep.sh runs the commands
# of tests/fault/commands.sh with the failure at N = 1, 2, ...
# SPDX-License-Identifier: LGPL-2.1-or-later

# the same flags as check-asan's build, which reuses these objects
FAULT_SAN   ?= $(ASAN_CFLAGS)
FAULT_SYMS  := malloc calloc realloc strdup strndup asprintf vasprintf posix_memalign \
               open openat read write fsync close rename mkdtemp mkostemp stat fstat \
               opendir pipe2 posix_spawnp
FAULT_WRAP  := $(foreach s,$(FAULT_SYMS),-Wl,--wrap=$(s))
FAULT_OBJS  := $(addprefix tests/fault/obj/,$(sort $(LIB_OBJS) $(CLI_OBJS)) tests/fault/fault.o)
# make check: every I/O point and every FAULT_STRIDE-th allocation point (16:
# at 4 the sweep took 501 s of a 20-minute make check on 2 cores, 2026-12-05;
# at 8, 659 runs in 385 s on 2 idle cores, 2026-12-06, when CI as a whole
# came close to its 30 minutes); check-fault-full and make reliability:
# every point (the whole sweep, 1716 runs, took 612 s of CI's 2477 s).
FAULT_STRIDE ?= 16

tests/fault/obj/%.o: %.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(FAULT_SAN) -MMD -MP -c $< -o $@

tests/fault/ksp-fault: $(FAULT_OBJS)
	$(call say,CCLD,$@)
	$(Q)$(CC) $(FAULT_SAN) $(KSP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(DEP_LIBS) $(FAULT_WRAP)

check-fault: all tests/fault/ksp-fault
	$(Q)FAULT_STRIDE=$(FAULT_STRIDE) tests/fault/sweep.sh

check-fault-full: all tests/fault/ksp-fault
	$(Q)FAULT_STRIDE=1 tests/fault/sweep.sh

# everything for docs/reliability.md: full sweep, fuzzing, T700, T710, then the report
reliability: all tests/fault/ksp-fault
	$(Q)$(MAKE) --no-print-directory fuzz-build
	-$(Q)FAULT_STRIDE=1 tests/fault/sweep.sh
	-$(Q)FUZZ_TIME=$(FUZZ_TIME) FUZZ_BUDGET=$(FUZZ_BUDGET) fuzz/run.sh
	-$(Q)LD_LIBRARY_PATH=$(CURDIR)/src/lib tests/cli/T700-reliability.sh >/dev/null
	-$(Q)LD_LIBRARY_PATH=$(CURDIR)/src/lib tests/cli/T710-reliability2.sh >/dev/null
	$(Q)tests/fault/report.sh

clean-fault:
	rm -rf tests/fault/obj tests/fault/ksp-fault tests/fault/tmp

CHECK_EXTRA += check-fault
-include $(shell find tests/fault/obj -name '*.d' 2>/dev/null)
.PHONY: check-fault check-fault-full reliability clean-fault
