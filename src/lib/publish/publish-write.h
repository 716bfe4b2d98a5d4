/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * publish-write.h: the files of a publication put into DIR (publish-write.c).
 * Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_ctx;

struct pub_file {
	char *path; /* relative to DIR */
	uint8_t *data;
	size_t len;
	bool link; /* data is the symlink's target */
};

/* A file added, changed or removed (enum ksp_publish_change), with the
 * number of paths of a graph (.txt) before and after (-1: not one). */
typedef int (*pub_change_fn)(void *opaque, int kind, const char *path, int old_paths, int new_paths);

/* @files (sorted here) written into @dir: what differs staged in a
 * temporary folder inside it, then renamed into place; the files of the
 * managed folders that are not in @files removed.  Every name is opened
 * from @dir's descriptor without following symlinks, so nothing outside
 * @dir is read, written or removed; every check passes before the first
 * rename.  0 or -errno with ksp_get_error() set. */
int pub_write_dir(struct ksp_ctx *ctx, const char *dir, struct pub_file *files, size_t n_files, pub_change_fn change,
		  void *opaque);
