/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>

/* Grow the array *@p of *@cap elements of @size bytes to hold at least
 * @need, doubling from @first: 0, or -ENOMEM (the array kept as it was). */
static inline int grow_array(void **p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t nc;
	void *n;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : first;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -ENOMEM;
		nc *= 2;
	}
	if (nc > SIZE_MAX / size)
		return -ENOMEM;
	n = realloc(*p, nc * size);
	if (n == NULL)
		return -ENOMEM;
	*p = n;
	*cap = nc;
	return 0;
}

/* Read a whole file (path "-" = stdin) into a malloc'ed buffer with a NUL
 * after the data.  Returns 0 or -errno.  max_size 0 = no limit. */
int read_file_all(const char *path, size_t max_size, uint8_t **ret, size_t *ret_len);
int read_fd_all(int fd, size_t max_size, uint8_t **ret, size_t *ret_len);
/* The signed data beside a detached signature: @sig without ".sig",
 * ".asc" or ".sign" (gpg's "assuming signed data in"), and ".gpg" too when
 * @gpg_ext, when that file exists; NULL if none (the caller frees). */
char *signed_data_file(const char *sig, bool gpg_ext);
/* @n bytes, 64-byte aligned, for an array read at random: from 4 MB on in
 * 2 MB pages where the kernel gives them on request (madvise; one TLB
 * entry where 4 KB pages take 512, and in a virtual machine each miss is a
 * walk of two page tables).  Not zeroed; free() frees it; NULL: ENOMEM. */
void *huge_alloc(size_t n);
/* write() loop; returns 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

/* What an output path names: OUTPUT_ATOMIC (a regular file or a new name:
 * replaced atomically through a temporary file beside it), OUTPUT_DIRECT
 * (a character device such as /dev/null or a terminal, a FIFO, or
 * /dev/stdout, /dev/stderr, /dev/fd/N: written to directly, never replaced),
 * or -EISDIR (a directory) / -ENOTSUP (anything else: a socket, a block
 * device); output_strerror() says which in words. */
enum { OUTPUT_ATOMIC = 0, OUTPUT_DIRECT = 1 };
int output_kind(const char *path);
const char *output_strerror(int r);

/* Atomic output: open a temporary file beside path (O_CLOEXEC, 0644 unless
 * mode given), write, then atomic_file_end renames it into place on r >= 0
 * or unlinks it otherwise.  Returns r, or the first error. */
struct atomic_file {
	char *path;
	char *tmp;
	int fd;
};
/* A path output_kind() calls OUTPUT_DIRECT is opened and written in place
 * (tmp NULL); a directory or other kind is refused (-EISDIR, -ENOTSUP). */
int atomic_file_begin(struct atomic_file *af, const char *path, mode_t mode);
int atomic_file_end(struct atomic_file *af, int r);

/* Staged output, for files that belong to a store transaction: written in
 * full to a temporary file beside path (staged_file_write), put into place
 * just before the commit (staged_file_place: a file already at path is kept
 * under a second temporary name), and then either finished after the
 * commit (staged_file_done: the old file removed) or taken back when the
 * commit or a later placement fails (staged_file_undo: the old file
 * restored, or the new one removed).  Each frees what it took. */
struct staged_file {
	char *path;
	char *tmp;
	char *old;      /* the previous file at path, while placed */
	bool placed;
};
/* Only a regular file or a new name is staged: anything else at path is
 * refused (-EISDIR, -ENOTSUP) and left alone. */
int staged_file_write(struct staged_file *sf, const char *path, mode_t mode, const void *data, size_t len);
int staged_file_place(struct staged_file *sf);
void staged_file_done(struct staged_file *sf);
void staged_file_undo(struct staged_file *sf);

/* Parse YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[Z] (UTC) or @EPOCH; 0 or -EINVAL. */
int parse_date(const char *s, int64_t *ret);
/* Format epoch seconds as YYYY-MM-DD (UTC) into buf (>= 11 bytes). */
void format_date(int64_t t, char *buf, size_t size);
/* YYYY-MM-DDTHH:MM:SSZ, buf >= 21 */
void format_datetime(int64_t t, char *buf, size_t size);

/* The 6-bit value of a base64 character (RFC 4648 4), or -1 for any
 * other byte ('=' included). */
int base64_value(unsigned char c);

/* Hex helpers: lower-level, upper-case output. */
void hex_encode(const uint8_t *in, size_t len, char *out /* 2*len+1 */);
/* Accepts spaces and an optional 0x prefix; returns bytes or -EINVAL. */
int hex_decode(const char *in, uint8_t *out, size_t out_size);

/* Normalise a fingerprint typed by a user (spaces, lower case, 0x) into
 * upper-case hex without spaces.  Only 40 or 64 hex digits are accepted.
 * Returns 0 or -EINVAL. */
int fpr_normalize(const char *in, char out[65]);

/* A fingerprint in groups of four, two spaces in the middle of a v4 one,
 * as gpg prints it; buf should hold 81 bytes. */
void fpr_groups(const char *fpr, char *buf, size_t size);
