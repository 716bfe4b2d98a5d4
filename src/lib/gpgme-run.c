// SPDX-License-Identifier: LGPL-2.1-or-later
/* gpgme operations on an event loop of our own: see gpgme-run.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "lib/gpgme-run.h"
#include "shared/macro.h"

/* gpgme uses a handful of descriptors per operation (status, input,
 * output, stderr/log, command) */
#define MAX_FDS 16

struct io_slot {
	int fd;
	int dir; /* 1: gpgme reads from it (POLLIN); 0: writes to it (POLLOUT) */
	gpgme_io_cb_t fnc;
	void *fnc_data;
	bool used;
};

struct io_loop {
	struct io_slot slot[MAX_FDS];
	bool started, done;
	gpgme_error_t err, op_err;
};

struct io_tag {
	struct io_loop *loop;
	size_t i;
};

static gpgme_error_t io_add(void *data, int fd, int dir, gpgme_io_cb_t fnc, void *fnc_data, void **tag)
{
	struct io_loop *l = data;

	for (size_t i = 0; i < MAX_FDS; i++) {
		if (l->slot[i].used)
			continue;
		l->slot[i] = (struct io_slot){ .fd = fd, .dir = dir, .fnc = fnc, .fnc_data = fnc_data, .used = true };
		/* the slot's address is the tag: it does not move */
		*tag = &l->slot[i];
		return 0;
	}
	return gpgme_error(GPG_ERR_GENERAL);
}

static void io_remove(void *tag)
{
	struct io_slot *s = tag;

	s->used = false;
}

static void io_event(void *data, gpgme_event_io_t type, void *type_data)
{
	struct io_loop *l = data;

	if (type == GPGME_EVENT_START) {
		l->started = true;
	} else if (type == GPGME_EVENT_DONE) {
		gpgme_io_event_done_data_t d = type_data;
		l->done = true;
		if (d) {
			l->err = d->err;
			l->op_err = d->op_err;
		}
	}
}

/* Call a handler with SIGPIPE blocked in this thread: a write to a gpg
 * that is gone fails with EPIPE instead of ending the process.  A SIGPIPE
 * the write raised is taken back; one that was pending before is left. */
static gpgme_error_t call_handler(struct io_slot *s)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	gpgme_error_t e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	e = s->fnc(s->fnc_data, s->fd);
	if (!was_pending) {
		static const struct timespec zero = { 0, 0 };
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE) == 1)
			while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
				;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

static gpgme_error_t run_loop(struct io_loop *l)
{
	struct pollfd pfd[MAX_FDS];
	struct io_slot *which[MAX_FDS];

	while (!l->done) {
		nfds_t n = 0;
		int k;

		for (size_t i = 0; i < MAX_FDS; i++) {
			if (!l->slot[i].used)
				continue;
			pfd[n] = (struct pollfd){ .fd = l->slot[i].fd, .events = l->slot[i].dir ? POLLIN : POLLOUT };
			which[n++] = &l->slot[i];
		}
		if (n == 0)
			return gpgme_error(GPG_ERR_GENERAL); /* no descriptor and not done */
		k = poll(pfd, n, -1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return gpgme_error_from_syserror();
		}
		for (nfds_t j = 0; j < n && !l->done; j++) {
			/* POLLERR and POLLHUP too: the handler sees EPIPE or EOF */
			if (pfd[j].revents == 0 || !which[j]->used || which[j]->fd != pfd[j].fd)
				continue;
			call_handler(which[j]); /* gpgme cancels the operation on an error */
		}
	}
	return l->err ? l->err : l->op_err;
}

static gpgme_error_t with_loop(gpgme_ctx_t g, struct io_loop *l)
{
	struct gpgme_io_cbs cbs = { .add = io_add, .add_priv = l, .remove = io_remove,
				    .event = io_event, .event_priv = l };

	memset(l, 0, sizeof(*l));
	gpgme_set_io_cbs(g, &cbs);
	return 0;
}

static gpgme_error_t finish(gpgme_ctx_t g, struct io_loop *l, gpgme_error_t e)
{
	struct gpgme_io_cbs none = { 0 };

	if (!e)
		e = run_loop(l);
	else if (l->started && !l->done)
		gpgme_cancel(g);
	gpgme_set_io_cbs(g, &none);
	return e;
}

gpgme_error_t ksp_gpgme_import(gpgme_ctx_t g, gpgme_data_t in)
{
	struct io_loop l;

	with_loop(g, &l);
	return finish(g, &l, gpgme_op_import_start(g, in));
}

gpgme_error_t ksp_gpgme_decrypt(gpgme_ctx_t g, gpgme_data_t in, gpgme_data_t out)
{
	struct io_loop l;

	with_loop(g, &l);
	return finish(g, &l, gpgme_op_decrypt_start(g, in, out));
}
