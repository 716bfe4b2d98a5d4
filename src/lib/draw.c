// SPDX-License-Identifier: LGPL-2.1-or-later
/* Loading the drawing module (draw.h): the folder "ksp" beside the file
 * libksp.so.1 was loaded from, and nowhere else.  The dynamic loader found
 * that file through the system's paths, the program's RUNPATH or an
 * LD_LIBRARY_PATH the user set: the module comes with the same authority.
 * No search path, no working directory, no environment variable is
 * consulted; a library loaded through a relative path (LD_LIBRARY_PATH=
 * src/lib) is refused rather than resolved against a working directory
 * that may have changed since (docs/security.md). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/draw.h"

/* In a program linked with libksp.a and the module's objects (the fault
 * sweep's ksp-fault, the unit tests), the module's table; in libksp.so.1,
 * which never links those objects, the weak hidden reference is 0 (the
 * static linker resolves it; nothing is looked up at run time). */
extern const struct ksp_draw ksp_draw_module __attribute__((weak, visibility("hidden")));

static const struct ksp_draw *check(struct ksp_ctx *ctx, const char *path, const struct ksp_draw *d)
{
	if (d == NULL || d->abi != KSP_DRAW_ABI || d->version == NULL || strcmp(d->version, VERSION) != 0) {
		ksp_set_error(ctx, "%s: the drawing module is of another ksp build (%s, ABI %u; this is %s, ABI %u); "
			      "reinstall ksp", path, d && d->version ? d->version : "?", d ? d->abi : 0, VERSION,
			      KSP_DRAW_ABI);
		return NULL;
	}
	return d;
}

const struct ksp_draw *ksp_draw_load(struct ksp_ctx *ctx)
{
	char path[PATH_MAX];
	const char *lib, *slash;
	const struct ksp_draw *d;
	struct stat st;
	Dl_info info;
	void *h;
	int n;

	if (&ksp_draw_module != NULL)
		return check(ctx, "(linked in)", &ksp_draw_module);
	if (dladdr((void *)ksp_draw_load, &info) == 0 || info.dli_fname == NULL) {
		ksp_set_error(ctx, "cannot find the drawing module " KSP_DRAW_MODULE ": the dynamic loader does not say "
			      "where libksp.so.1 is; reinstall ksp");
		return NULL;
	}
	lib = info.dli_fname;
	slash = strrchr(lib, '/');
	if (lib[0] != '/' || slash == NULL) {
		ksp_set_error(ctx, "cannot find the drawing module " KSP_DRAW_MODULE ": libksp.so.1 was loaded through "
			      "the relative path '%s'; give LD_LIBRARY_PATH an absolute directory", lib);
		return NULL;
	}
	n = snprintf(path, sizeof(path), "%.*s/ksp/" KSP_DRAW_MODULE, (int)(slash - lib), lib);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		ksp_set_error(ctx, "cannot find the drawing module " KSP_DRAW_MODULE ": the folder of libksp.so.1 "
			      "has too long a path");
		return NULL;
	}
	if (stat(path, &st) < 0) {
		ksp_set_error(ctx, "%s: the drawing module (graphs, PDF, QR codes) %s; reinstall ksp (make install)",
			      path, errno == ENOENT ? "is missing" : strerror(errno));
		return NULL;
	}
	/* RTLD_NODELETE: graphviz, fontconfig and glib keep state (plugins,
	 * font caches, types) in their own globals that must never be
	 * unmapped; the module stays for the life of the process, and the
	 * next ksp_draw_load() finds it loaded. */
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (h == NULL) {
		const char *e = dlerror();
		ksp_set_error(ctx, "%s: cannot load the drawing module: %s; reinstall ksp and the libraries it "
			      "needs (make deps)", path, e ? e : "unknown error");
		return NULL;
	}
	d = dlsym(h, "ksp_draw_module");
	dlclose(h);
	return check(ctx, path, d);
}
