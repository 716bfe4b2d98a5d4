/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * git-config.h: one value of git's configuration, read from the files as
 * git reads them, without starting git (ksp-gpg runs once per commit).
 */
#pragma once

/* The value of @key ("section.key" or "section.sub.key"; section and key
 * are compared without case) as 'git config --get' gives it: the last one
 * in the system file, the global files, the repository's config and
 * config.worktree, then the command line's (GIT_CONFIG_PARAMETERS,
 * GIT_CONFIG_COUNT), with include.path and includeIf "gitdir:" followed.
 * 0 and *ret (malloc()ed; "" for a key without '='), 1 when not set,
 * -ENOMEM.  Files that cannot be read are skipped, as git does; a file
 * over 1 MiB is skipped. */
int git_config_get(const char *key, char **ret);
