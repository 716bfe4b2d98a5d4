/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "shared/macro.h"

/* A growable byte buffer, always NUL-terminated when len > 0 or after any
 * append.  On allocation failure the buffer remembers it (oom) and further
 * appends are no-ops; check strbuf_ok() once at the end. */
struct strbuf {
	char *buf;
	size_t len;
	size_t size;
	bool oom;
};

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
bool strbuf_reserve(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) _printf_format_(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) _printf_format_(2, 0);
/* Returns the string (caller frees) or NULL on OOM; the strbuf is reset. */
char *strbuf_steal(struct strbuf *sb);
static inline bool strbuf_ok(const struct strbuf *sb)
{
	return !sb->oom;
}
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}
