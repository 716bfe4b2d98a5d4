/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * module.h: libksp's modules.  What needs a large stack of shared libraries
 * and only one command or two uses lives in a module of its own, loaded
 * with dlopen the first time it is needed, so that no other ksp process
 * pays for loading and relocating those libraries: the drawing module
 * (lib/draw.h: graphviz, cairo, pango, libqrencode) and the SMTP module
 * (party/smtp.h: libcurl).  A module is one table of function pointers;
 * it uses libksp's public API and reports errors through the function it
 * is given (ksp_set_error).
 *
 * A module is found in one place only: the folder "ksp" beside the file
 * libksp.so.1 was loaded from (src/lib/ksp/ in the build tree,
 * $(LIBDIR)/ksp/ installed); see docs/security.md.  A program linked with
 * libksp.a and the module's objects (the fault sweep's ksp-fault, the unit
 * tests) uses the linked-in table instead.
 */
#pragma once

#include "lib/libksp-private.h"

/* how a module sets an error on a context: libksp's ksp_set_error */
typedef void (*ksp_module_error_fn)(struct ksp_ctx *ctx, const char *format, ...) _printf_format_(2, 3);

/* the first member of every module's table */
struct ksp_module_head {
	unsigned int abi;    /* the module's own ABI number */
	const char *version; /* the VERSION it was built as: the library's */
};

/* The table @symbol of the module @file (in the folder ksp/ beside
 * libksp.so.1), or @builtin when it is linked in (not NULL), checked
 * against @abi and VERSION.  NULL with the error set on @ctx (one line:
 * the module's file, @what it is for, and what to do) when it is missing,
 * cannot be loaded or is of another build. */
const void *ksp_module_load(struct ksp_ctx *ctx, const struct ksp_module_head *builtin, const char *file,
			    const char *symbol, unsigned int abi, const char *what);
