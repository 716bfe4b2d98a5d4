// SPDX-License-Identifier: LGPL-2.1-or-later
/* The drawing module (draw.h), linked in or loaded (module.h). */
#include "lib/draw.h"

/* In a program linked with libksp.a and the module's objects (the fault
 * sweep's ksp-fault, the unit tests), the module's table; in libksp.so.1,
 * which never links those objects, the weak hidden reference is 0 (the
 * static linker resolves it; nothing is looked up at run time). */
extern const struct ksp_draw ksp_draw_module __attribute__((weak, visibility("hidden")));

const struct ksp_draw *ksp_draw_load(struct ksp_ctx *ctx)
{
	return ksp_module_load(ctx, &ksp_draw_module != NULL ? &ksp_draw_module.head : NULL, KSP_DRAW_MODULE,
			       "ksp_draw_module", KSP_DRAW_ABI, "the drawing module (graphs, PDF, QR codes)");
}
