/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-refresh.h: git for 'ksp wot refresh' (wot-refresh-git.c).  The
 * repository is hostile input: git runs with a configuration it cannot
 * change, on its object store only (never its work tree or index), and
 * every object read is checked against its ID.
 */
#pragma once

#include <stddef.h>

#include "cli/ksp.h"

/* @gitdir the repository's .git folder (absolute).  Checks that it is a
 * folder of its own at the top of @dir (no .git file, no symlink, no
 * core.worktree): 0, or KSP_EXIT_NEGATIVE / KSP_EXIT_ERROR after one line. */
int refresh_git_check_repo(struct ksp_cli *cli, const char *dir, const char *shown, char **gitdir);

/* git @args on @gitdir, @in (may be NULL) on its stdin, stdout into *out
 * (NUL-terminated), the first line of stderr into @err.  git's exit status
 * (>= 0) or -errno when it could not run. */
int refresh_git_run(const char *gitdir, const char *const *args, const void *in, size_t in_len, struct input *out,
		    char *err, size_t errlen);

/* The object @oid of type @type ("commit", "tree", "blob"), checked
 * against its ID: *out (malloc'ed, NUL-terminated).  0, or KSP_EXIT_ERROR
 * after one line. */
int refresh_git_object(struct ksp_cli *cli, const char *gitdir, const char *shown, const char *oid, const char *type,
		       struct input *out);

/* The key tree of commit @commit (checked: its signature is the caller's)
 * read from git's objects into one keyring (*ret, malloc'ed).  Symlinks to
 * a file of the tree that is read anyway are skipped; any other symlink,
 * a submodule, an object that does not match its ID: refused, nothing
 * read.  0, KSP_EXIT_NEGATIVE (refused) or KSP_EXIT_ERROR, after one line. */
int refresh_git_tree(struct ksp_cli *cli, const char *gitdir, const char *shown, const char *commit, void **ret,
		     size_t *ret_len);
