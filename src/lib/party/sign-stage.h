/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * sign-stage: the outbox files of one `party sign` run, staged in ONE
 * private folder inside the outbox (OUTBOX/.ksp-stage.XXXXXX, mode 0700,
 * with the owner's pid in it) until they are put into place just before
 * the store's commit.  The folder takes one clean-up slot however many
 * files it holds, so a signal removes it as one (ksp_cleanup_after_signal);
 * a run killed outright (SIGKILL) leaves it behind, and the next run
 * sweeps every such folder whose process is gone, as gpghome.c sweeps
 * private GnuPG homes.  Used by party-sign.c only.
 */
#include <stddef.h>

#include "shared/util.h"

struct ksp_ctx;

struct sign_stage {
	struct ksp_ctx *ctx;
	char *dir;                 /* NULL until sign_stage_open() */
	int slot;                  /* its clean-up slot, -1: none */
	struct staged_file *files;
	size_t n, cap, seq;
};

/* Sweep what killed runs left in @outbox, then make the folder.  0 or a
 * negative errno (the error set). */
int sign_stage_open(struct sign_stage *st, struct ksp_ctx *ctx, const char *outbox);
/* Write @len bytes as the future @path (in the outbox); 0 or a negative
 * errno (the caller says which file). */
int sign_stage_write(struct sign_stage *st, const char *path, const void *data, size_t len);
/* Put every staged file into place (staged_file_place); 0 or a negative
 * errno, *@failed naming the file that could not be placed. */
int sign_stage_place(struct sign_stage *st, const char **failed);
/* After the commit: the replaced files' old versions removed. */
void sign_stage_done(struct sign_stage *st);
/* On every exit path: what is not done is taken back (staged_file_undo),
 * the folder removed, its slot given back. */
void sign_stage_close(struct sign_stage *st);
