// SPDX-License-Identifier: LGPL-2.1-or-later
/* Messages on stderr hold file names from the command line and text from
 * the library (which names files and stores): neither may reach the
 * terminal with a control character, a bidi override or an invalid UTF-8
 * byte in it.  Backslashes are kept: user IDs in messages are escaped
 * already (\xNN), and a second pass must not double them. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "cli/ksp.h"
#include "shared/utf8.h"

void cli_fputs_safe(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + strlen(s);

	while (p < end) {
		uint32_t c = 0;
		size_t n = utf8_decode(p, (size_t)(end - p), &c);

		if (n == 0) {
			fprintf(f, "\\x%02X", *p);
			p++;
		} else if (utf8_unsafe(c)) {
			if (c < 0x80)
				fprintf(f, "\\x%02X", (unsigned)c);
			else
				fprintf(f, "\\u{%04X}", (unsigned)c);
			p += n;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
}

/* ---- stderr itself ------------------------------------------------------ */

/* The escaping stream put in place of stderr: every message of the CLI
 * and the library's log goes through it, so that no file name, store
 * path or library text reaches the terminal raw.  Line ends, carriage
 * returns and ESC [ K (the progress line) and tabs pass; a UTF-8 sequence split
 * across two writes is held back until its end comes. */
struct safe_err {
	unsigned char pend[4];
	size_t npend;
	void (*seen)(const char *buf, size_t size);
};

/* Straight to descriptor 2, as stdio's own stderr did (a raw system call:
 * this is the C library's output path, not one of ksp's file writes). */
static int put_fd(const struct safe_err *st, const char *p, size_t n)
{
	if (st->seen)
		st->seen(p, n); /* for --json's error object (ksp.c) */
	while (n > 0) {
		ssize_t k = syscall(SYS_write, STDERR_FILENO, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* the length a sequence starting with byte b should have, 0 if not a lead */
static size_t lead_len(unsigned char b)
{
	return b < 0x80 ? 1 : (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3 : (b & 0xf8) == 0xf0 ? 4 : 0;
}

static ssize_t safe_write(void *cookie, const char *buf, size_t size)
{
	struct safe_err *st = cookie;
	unsigned char in[4096 + 8];
	char out[4 * sizeof(in) * 3];
	size_t done = 0;

	while (done < size) {
		size_t n = st->npend, o = 0, i = 0, take = size - done;

		if (take > 4096)
			take = 4096;
		memcpy(in, st->pend, n);
		memcpy(in + n, buf + done, take);
		n += take;
		done += take;
		st->npend = 0;
		while (i < n) {
			size_t l = lead_len(in[i]);
			uint32_t c = 0;
			unsigned char seq[5] = { 0 };

			if (l > 1 && i + l > n && done == size) {
				/* an incomplete sequence at the end: keep it for the next write */
				bool prefix = true;
				for (size_t j = i + 1; j < n; j++)
					prefix = prefix && (in[j] & 0xc0) == 0x80;
				if (prefix) {
					memcpy(st->pend, in + i, n - i);
					st->npend = n - i;
					break;
				}
			}
			if (l == 0 || i + l > n) {
				o += (size_t)snprintf(out + o, 8, "\\x%02X", in[i]);
				i++;
				continue;
			}
			/* the progress line's "erase to the end of the line" passes
			 * (it cannot move the cursor or change anything shown) */
			if (in[i] == 0x1b && i + 3 <= n && in[i + 1] == '[' && in[i + 2] == 'K') {
				memcpy(out + o, in + i, 3);
				o += 3;
				i += 3;
				continue;
			}
			memcpy(seq, in + i, l);
			if (utf8_decode(seq, l, &c) != l) {
				o += (size_t)snprintf(out + o, 8, "\\x%02X", in[i]);
				i++;
			} else if (utf8_unsafe(c) && c != '\n' && c != '\r' && c != '\t') {
				o += (size_t)snprintf(out + o, 16, c < 0x80 ? "\\x%02X" : "\\u{%04X}", (unsigned)c);
				i += l;
			} else {
				memcpy(out + o, in + i, l);
				o += l;
				i += l;
			}
		}
		/* a message that cannot be written is dropped: an error here
		 * would have stdio write its stale buffer again later */
		if (put_fd(st, out, o) < 0)
			break;
	}
	return (ssize_t)size;
}

static int safe_close(void *cookie)
{
	struct safe_err *st = cookie;

	/* a sequence that never ended: its bytes, escaped */
	for (size_t i = 0; i < st->npend; i++) {
		char b[8];
		int k = snprintf(b, sizeof(b), "\\x%02X", st->pend[i]);
		put_fd(st, b, (size_t)k);
	}
	st->npend = 0;
	return 0;
}

void cli_safe_stderr(void (*seen)(const char *buf, size_t size))
{
	static struct safe_err st;
	static const cookie_io_functions_t io = { .write = safe_write, .close = safe_close };
	FILE *f = fopencookie(&st, "w", io);

	if (f == NULL)
		return; /* out of memory at start: the messages go out as they are */
	st.seen = seen;
	setvbuf(f, NULL, _IONBF, 0);
	stderr = f;
}
