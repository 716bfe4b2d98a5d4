// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A keyring read from a file descriptor.  A regular file is mapped
 * (private, read-only: no copy of what may be gigabytes, the page cache
 * serves it) and the pages a reader has gone past are given back with
 * ksp_input_drop(), so that a whole keyserver dump never sits in the
 * process at once: a dropped page that is read again comes back from the
 * file, unchanged.  Anything else (a pipe, a terminal) is read whole.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/input-private.h"
#include "lib/libksp-private.h"
#include "shared/util.h"

/* pages are given back this many bytes at a time (fewer calls) */
#define DROP_CHUNK (1u << 20)

int ksp_input_open(struct ksp_ctx *ctx, int fd, const char *source, struct ksp_input *in)
{
	struct stat st;
	int r;

	memset(in, 0, sizeof(*in));
	if (fd < 0) {
		ksp_set_error(ctx, "%s: not an open file; give a readable keyring", source);
		return -EBADF;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		ksp_set_error(ctx, "%s: cannot read: %s; check the file", source, strerror(-r));
		return r;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			long pg = sysconf(_SC_PAGESIZE);

			/* read ahead, all of it (the page cache keeps it) */
			(void)madvise(p, (size_t)st.st_size, MADV_WILLNEED);
			in->map = p;
			in->data = p;
			in->len = (size_t)st.st_size;
			in->page = pg > 0 ? (size_t)pg : 4096;
			return 0;
		}
	}
	/* a pipe, a device (/dev/zero never ends): into memory, so at most
	 * KSP_INPUT_MAX_STREAM bytes of it */
	r = read_fd_all(fd, KSP_INPUT_MAX_STREAM, &in->buf, &in->len);
	if (r == -EFBIG) {
		ksp_set_error(ctx, "%s: more than %u MiB from a pipe or device; give the keyring as a regular file (read in place, with no limit)",
			      source, (unsigned)(KSP_INPUT_MAX_STREAM >> 20));
		return r;
	}
	if (r < 0) {
		ksp_set_error(ctx, "%s: cannot read: %s; check the file", source, strerror(-r));
		return r;
	}
	in->data = in->buf;
	return 0;
}

void ksp_input_drop(struct ksp_input *in, size_t *mark, const void *upto)
{
	const uint8_t *u = upto, *base;
	size_t from, to;

	if (in == NULL || in->map == NULL || u == NULL)
		return;
	base = in->map;
	/* not in the mapping: decoded armor, or a key from the store */
	if (u < base || u > base + in->len)
		return;
	to = (size_t)(u - base) & ~(in->page - 1);
	from = (*mark + in->page - 1) & ~(in->page - 1);
	if (to <= from || (to - from < DROP_CHUNK && u != base + in->len))
		return;
	(void)madvise((uint8_t *)in->map + from, to - from, MADV_DONTNEED);
	*mark = to;
}

void ksp_input_drop_all(struct ksp_input *in, size_t *mark)
{
	if (in && in->map)
		ksp_input_drop(in, mark, (const uint8_t *)in->map + in->len);
}

void ksp_input_close(struct ksp_input *in)
{
	if (in->map)
		munmap(in->map, in->len);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}
