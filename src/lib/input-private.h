/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "libksp.h"

/* A keyring read from a file descriptor (input.c): data/len, valid until
 * ksp_input_close(). */
struct ksp_input {
	const uint8_t *data;
	size_t len;
	void *map;    /* a private read-only mapping of a regular file, or NULL */
	uint8_t *buf; /* else read whole (a pipe), or NULL */
	size_t page;
};

/* A keyring from a pipe or device is read into memory, at most this much
 * (docs/ksp-wot.1): beyond it, -EFBIG and a message asking for a file. */
#define KSP_INPUT_MAX_STREAM ((size_t)256 << 20)

/* 0, or a negative errno with ksp_get_error() set (naming @source). */
int ksp_input_open(struct ksp_ctx *ctx, int fd, const char *source, struct ksp_input *in);
/* Nothing in the mapping before @upto is needed by this pass any more:
 * its pages may go back to the kernel (read again, they come back from the
 * file).  *mark is the pass's own: 0 at its start, moved on here.  No-op
 * when @in is NULL, not mapped, or @upto lies outside the mapping (decoded
 * armor); pages go in chunks of some megabytes, all the rest at the end. */
void ksp_input_drop(struct ksp_input *in, size_t *mark, const void *upto);
/* The same up to the end of the mapping (@in may be NULL). */
void ksp_input_drop_all(struct ksp_input *in, size_t *mark);
void ksp_input_close(struct ksp_input *in);
