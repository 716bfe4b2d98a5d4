// SPDX-License-Identifier: LGPL-2.1-or-later
/* The staged outbox files of `party sign`, in one private folder per run
 * (sign-stage.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/stat.h>

#include "lib/cleanup.h"
#include "lib/libksp-private.h"
#include "lib/party/sign-stage.h"
#include "shared/strbuf.h"

#define STAGE_PREFIX ".ksp-stage."
#define STAGE_OWNER "ksp-owner.pid"

/* A folder in the outbox that a run killed outright left (ours, the
 * process named in it gone): removed.  Best effort; a folder in use is
 * never touched (its process is alive). */
static void stage_gone(struct ksp_ctx *ctx, const char *path, long pid)
{
	if (ksp_rm_rf(path) == 0)
		INFO(ctx, "%s: removed the staged messages of ksp process %ld, which was killed\n", path, pid);
}

int sign_stage_open(struct sign_stage *st, struct ksp_ctx *ctx, const char *outbox)
{
	sigset_t block, saved;
	struct strbuf sb;
	int r = 0, fd;

	*st = (struct sign_stage){ .ctx = ctx, .slot = -1 };
	ksp_sweep_orphans(ctx, outbox, STAGE_PREFIX, STAGE_OWNER, stage_gone);
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/" STAGE_PREFIX "XXXXXX", outbox);
	st->dir = strbuf_steal(&sb);
	if (st->dir == NULL)
		return -ENOMEM;
	/* the folder exists from its creation on: the signals that
	 * ksp_cleanup_after_signal() serves wait until it is registered */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &saved);
	if (mkdtemp(st->dir) == NULL)
		r = -errno;
	else
		st->slot = ksp_cleanup_add(ctx, KSP_CLEANUP_DIR, st->dir);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (r < 0) {
		ksp_set_error(ctx, "%s: cannot create a staging folder in the outbox: %s; nothing was signed, check that the outbox is writable or give --outbox DIR",
			      st->dir, strerror(-r));
		free(st->dir);
		st->dir = NULL;
		return r;
	}
	/* the owner, for the sweep after a SIGKILL; without it (no space?)
	 * the folder is never swept, and the first write fails anyway */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/" STAGE_OWNER, st->dir);
	if (strbuf_ok(&sb)) {
		fd = open(sb.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			char pid[24];
			int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			(void)write_all(fd, pid, (size_t)n);
			close(fd);
		}
	}
	strbuf_release(&sb);
	return 0;
}

int sign_stage_write(struct sign_stage *st, const char *path, const void *data, size_t len)
{
	struct staged_file *sf;
	struct strbuf sb;
	int r, fd;

	if (st->dir == NULL)
		return -EINVAL;
	r = output_kind(path);
	if (r == OUTPUT_DIRECT)
		r = -ENOTSUP; /* only a regular file or a new name is replaced */
	if (r < 0)
		return r;
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 16;
		struct staged_file *v = realloc(st->files, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		st->files = v;
		st->cap = cap;
	}
	sf = &st->files[st->n];
	*sf = (struct staged_file){ 0 };
	/* a short name of our own (the outbox name may be near NAME_MAX) */
	strbuf_init(&sb);
	strbuf_addf(&sb, "%s/%zu.eml", st->dir, ++st->seq);
	sf->tmp = strbuf_steal(&sb);
	sf->path = strdup(path);
	if (sf->tmp == NULL || sf->path == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	fd = open(sf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		goto fail;
	}
	r = write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0 && errno != EINVAL)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlink(sf->tmp);
		goto fail;
	}
	st->n++;
	return 0;
fail:
	free(sf->tmp);
	free(sf->path);
	*sf = (struct staged_file){ 0 };
	return r;
}

int sign_stage_place(struct sign_stage *st, const char **failed)
{
	*failed = NULL;
	for (size_t i = 0; i < st->n; i++) {
		int r = staged_file_place(&st->files[i]);
		if (r < 0) {
			*failed = st->files[i].path;
			return r;
		}
	}
	return 0;
}

void sign_stage_done(struct sign_stage *st)
{
	for (size_t i = 0; i < st->n; i++)
		staged_file_done(&st->files[i]);
	st->n = 0;
}

void sign_stage_close(struct sign_stage *st)
{
	for (size_t i = 0; i < st->n; i++)
		staged_file_undo(&st->files[i]);
	st->n = 0;
	free(st->files);
	st->files = NULL;
	st->cap = 0;
	if (st->dir) {
		if (ksp_rm_rf(st->dir) < 0)
			WARN(st->ctx, "%s: cannot remove the staging folder; the next 'ksp party sign' removes it\n", st->dir);
		ksp_cleanup_del(st->ctx, st->slot);
		free(st->dir);
		st->dir = NULL;
	}
	st->slot = -1;
}
