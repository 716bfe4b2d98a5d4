/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <stdlib.h>
#include <stdatomic.h>

/*
 * What a signal must not leave behind (ctx.c): the private GnuPG homes
 * (with the gpg-agent started in them) and the temporary files of
 * operations in progress, kept in the context so that
 * ksp_cleanup_after_signal() can remove them from a signal handler.  A
 * slot is taken with ksp_cleanup_add() (a copy of the path made then: the
 * handler may not allocate) and given back with ksp_cleanup_del() once the
 * path is gone or in place.  No slot free, or no memory: the path is just
 * not covered (-1, ignored by ksp_cleanup_del()).
 */
#define KSP_CLEANUP_SLOTS 32

enum { KSP_CLEANUP_FILE = 1, KSP_CLEANUP_HOME = 2, KSP_CLEANUP_DIR = 3 /* a folder, removed whole */ };

struct ksp_cleanup_slot {
	atomic_int state; /* 0 free, 1 being filled, 2 live, 3 taken */
	int kind;
	char *path;
	char *gpgconf; /* HOME: gpgconf's absolute path, NULL if not found */
};

struct ksp_cleanup {
	struct ksp_cleanup_slot slot[KSP_CLEANUP_SLOTS];
};

struct ksp_ctx;
struct ksp_cleanup *ksp_ctx_cleanup(struct ksp_ctx *ctx);
int ksp_cleanup_add(struct ksp_ctx *ctx, int kind, const char *path);
void ksp_cleanup_del(struct ksp_ctx *ctx, int slot);
/* at ksp_unref() of the last reference */
static inline void ksp_cleanup_free(struct ksp_cleanup *c)
{
	for (int i = 0; i < KSP_CLEANUP_SLOTS; i++) {
		free(c->slot[i].path);
		free(c->slot[i].gpgconf);
		c->slot[i].path = c->slot[i].gpgconf = NULL;
	}
}
