// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shared/strbuf.h"

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->size = 0;
	sb->oom = false;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

bool strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, nsize;
	char *n;

	if (sb->oom)
		return false;
	if (extra > ((size_t)-1) / 2 - sb->len) {
		sb->oom = true;
		return false;
	}
	need = sb->len + extra + 1;
	if (need <= sb->size)
		return true;
	nsize = sb->size ? sb->size : 64;
	while (nsize < need)
		nsize *= 2;
	n = realloc(sb->buf, nsize);
	if (n == NULL) {
		sb->oom = true;
		return false;
	}
	sb->buf = n;
	sb->size = nsize;
	sb->buf[sb->len] = '\0';
	return true;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!strbuf_reserve(sb, len))
		return;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (!strbuf_reserve(sb, 64))
		return;
	va_copy(aq, ap);
	n = vsnprintf(sb->buf + sb->len, sb->size - sb->len, fmt, aq);
	va_end(aq);
	if (n < 0) {
		sb->oom = true;
		return;
	}
	if ((size_t)n >= sb->size - sb->len) {
		if (!strbuf_reserve(sb, (size_t)n))
			return;
		vsnprintf(sb->buf + sb->len, sb->size - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *strbuf_steal(struct strbuf *sb)
{
	char *s;

	if (sb->oom) {
		strbuf_release(sb);
		return NULL;
	}
	if (sb->buf == NULL) {
		s = strdup("");
	} else {
		s = sb->buf;
	}
	strbuf_init(sb);
	return s;
}
