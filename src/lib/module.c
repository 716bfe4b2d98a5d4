// SPDX-License-Identifier: LGPL-2.1-or-later
/* Loading a module (module.h): the folder "ksp" beside the file
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

#include "lib/module.h"

static const void *check(struct ksp_ctx *ctx, const char *path, const struct ksp_module_head *h, unsigned int abi,
			 const char *what)
{
	if (h == NULL || h->abi != abi || h->version == NULL || strcmp(h->version, VERSION) != 0) {
		ksp_set_error(ctx, "%s: %s is of another ksp build (%s, ABI %u; this is %s, ABI %u); reinstall ksp",
			      path, what, h && h->version ? h->version : "?", h ? h->abi : 0, VERSION, abi);
		return NULL;
	}
	return h;
}

const void *ksp_module_load(struct ksp_ctx *ctx, const struct ksp_module_head *builtin, const char *file,
			    const char *symbol, unsigned int abi, const char *what)
{
	char path[PATH_MAX];
	const char *lib, *slash;
	const void *table;
	struct stat st;
	Dl_info info;
	void *h;
	int n;

	if (builtin)
		return check(ctx, "(linked in)", builtin, abi, what);
	if (dladdr((void *)ksp_module_load, &info) == 0 || info.dli_fname == NULL) {
		ksp_set_error(ctx, "cannot find %s %s: the dynamic loader does not say where libksp.so.1 is; "
			      "reinstall ksp", what, file);
		return NULL;
	}
	lib = info.dli_fname;
	slash = strrchr(lib, '/');
	if (lib[0] != '/' || slash == NULL) {
		ksp_set_error(ctx, "cannot find %s %s: libksp.so.1 was loaded through the relative path '%s'; "
			      "give LD_LIBRARY_PATH an absolute directory", what, file, lib);
		return NULL;
	}
	n = snprintf(path, sizeof(path), "%.*s/ksp/%s", (int)(slash - lib), lib, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		ksp_set_error(ctx, "cannot find %s %s: the folder of libksp.so.1 has too long a path", what, file);
		return NULL;
	}
	if (stat(path, &st) < 0) {
		ksp_set_error(ctx, "%s: %s %s; reinstall ksp (make install)", path, what,
			      errno == ENOENT ? "is missing" : strerror(errno));
		return NULL;
	}
	/* RTLD_NODELETE: the libraries behind a module (graphviz, fontconfig,
	 * glib, gnutls) keep state in their own globals that must never be
	 * unmapped; a module stays for the life of the process, and the next
	 * ksp_module_load() finds it loaded. */
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (h == NULL) {
		const char *e = dlerror();
		ksp_set_error(ctx, "%s: cannot load %s: %s; reinstall ksp and the libraries it needs (make deps)", path,
			      what, e ? e : "unknown error");
		return NULL;
	}
	table = dlsym(h, symbol);
	dlclose(h);
	return check(ctx, path, table, abi, what);
}
