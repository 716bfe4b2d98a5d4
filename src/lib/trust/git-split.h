/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * git-split: a git commit or tag object (the output of 'git cat-file
 * commit|tag') split into the payload git signed and the signature, as git
 * does it (parse_buffer_signed_by_header() for a commit's gpgsig header,
 * parse_signed_buffer() for a tag's trailing signature).  The object is
 * hostile input (the repository's).  Used by verify.c; fuzzed by
 * fuzz/fuzz-git-split.c.  Internal to libksp.
 */
#include <stdbool.h>
#include <stddef.h>

#include "shared/strbuf.h"

struct ksp_git_split {
	bool tag;              /* a tag (else a commit) */
	bool is_signed;        /* a signature was found */
	const char *format;    /* NULL: OpenPGP; else the other format's name */
	struct strbuf payload; /* what was signed */
	struct strbuf sig;     /* the signature (a commit's: continuation spaces removed) */
};

/* Split @len bytes of @obj.  0 (the strbufs filled: release them with
 * ksp_git_split_release() whatever is returned), -EINVAL when it is not a
 * commit or tag object, -ENOMEM. */
int ksp_git_split(const char *obj, size_t len, struct ksp_git_split *out);
void ksp_git_split_release(struct ksp_git_split *out);
