/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* git-run.h: git, started with settings a repository cannot change
 * (git-run.c). */
#pragma once

#include <stddef.h>

#include "cli/ksp.h"

/* Runs git with @args (no shell) on the repository whose .git is @gitdir
 * (git runs in /, the work tree unused), or else on the repository at or
 * above @repo (git -C), or else the current directory's; @in (may be NULL)
 * is its standard input.  Its stdout goes into *out (at most @max_out
 * bytes: more is -EFBIG), the first line of its stderr into @err.  Returns
 * git's exit status (>= 0) or -errno when it could not run. */
int cli_git(const char *gitdir, const char *repo, const char *const *args, const void *in, size_t in_len,
	    size_t max_out, struct input *out, char *err, size_t errlen);
