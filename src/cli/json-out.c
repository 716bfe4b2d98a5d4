// SPDX-License-Identifier: LGPL-2.1-or-later
/* JSON output through jansson (see json-out.h for the escaping policy). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json-out.h"
#include "shared/utf8.h"

/* the member an object gets when a value could not be made */
#define CJ_OOM "\x01oom"

json_t *cj_str(const void *s, size_t len)
{
	const uint8_t *p = s;
	uint8_t *buf;
	size_t o = 0;
	json_t *j;

	if (s == NULL)
		len = 0;
	/* each invalid byte becomes the 3 bytes of U+FFFD */
	buf = malloc(len * 3 + 1);
	if (buf == NULL)
		return NULL;
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t n = utf8_decode(p + i, len - i, &c);

		if (n == 0) {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(buf + o, p + i, n);
			o += n;
			i += n;
		}
	}
	j = json_stringn_nocheck((const char *)buf, o);
	free(buf);
	return j;
}

json_t *cj_strz(const char *s)
{
	return s ? cj_str(s, strlen(s)) : json_null();
}

json_t *cj_fixed(double x, int decimals)
{
	char buf[400];

	if (x != x || x > 1e300 || x < -1e300)
		return json_null();
	snprintf(buf, sizeof(buf), "%.*f", decimals, x);
	return json_real(strtod(buf, NULL));
}

int cj_set(json_t *obj, const char *key, json_t *v)
{
	if (v && json_object_set_new(obj, key, v) == 0)
		return 0;
	json_object_set_new(obj, CJ_OOM, json_true());
	return -1;
}

int cj_push(json_t *arr, json_t *v)
{
	if (v && json_array_append_new(arr, v) == 0)
		return 0;
	/* an array cannot hold the mark: a string no value can be */
	json_array_append_new(arr, json_stringn_nocheck(CJ_OOM, sizeof(CJ_OOM) - 1));
	return -1;
}

/* was a value lost anywhere in @v? */
static int cj_lost(const json_t *v)
{
	const char *key;
	json_t *m;
	size_t i;

	if (json_is_object(v)) {
		if (json_object_get(v, CJ_OOM))
			return 1;
		json_object_foreach((json_t *)v, key, m)
			if (cj_lost(m))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, m)
			if (cj_lost(m))
				return 1;
	} else if (json_is_string(v)) {
		return json_string_length(v) == sizeof(CJ_OOM) - 1 &&
		       memcmp(json_string_value(v), CJ_OOM, sizeof(CJ_OOM) - 1) == 0;
	}
	return 0;
}

int cj_check(const json_t *v)
{
	return v == NULL || cj_lost(v) ? -ENOMEM : 0;
}

/* the control a short escape (\n) stands for, or -1 */
static int short_escape(char c)
{
	switch (c) {
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return -1;
	}
}

char *cj_dumps(const json_t *v)
{
	char *raw, *out;
	size_t len, o = 0;

	if (v == NULL || cj_lost(v))
		return NULL;
	raw = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
	if (raw == NULL)
		return NULL;
	len = strlen(raw);
	/* an escape is at most 12 bytes ("\\udb40\\udc7f") for 4 raw ones */
	out = malloc(len * 3 + 1);
	if (out == NULL) {
		free(raw);
		return NULL;
	}
	/* jansson writes controls below 0x20 escaped already; the rest of
	 * the unsafe code points (DEL, C1, bidi, invisible) can only be in a
	 * string, where an escape means the same character */
	for (size_t i = 0; i < len;) {
		uint32_t c = 0;
		size_t n;

		/* jansson's own escapes, written as ksp always wrote them:
		 * \u and four lower-case digits for every control */
		if (raw[i] == '\\' && i + 1 < len) {
			int ctl = short_escape(raw[i + 1]);

			if (raw[i + 1] == 'u' && i + 6 <= len) {
				out[o++] = '\\';
				out[o++] = 'u';
				for (size_t k = i + 2; k < i + 6; k++)
					out[o++] = (char)(raw[k] >= 'A' && raw[k] <= 'F' ? raw[k] - 'A' + 'a' : raw[k]);
				i += 6;
			} else if (ctl > 0) {
				o += (size_t)sprintf(out + o, "\\u%04x", (unsigned)ctl);
				i += 2;
			} else { /* \" \\ \/ */
				out[o++] = raw[i++];
				out[o++] = raw[i++];
			}
			continue;
		}
		n = utf8_decode((const uint8_t *)raw + i, len - i, &c);

		if (n == 0) { /* not from jansson: it writes valid UTF-8 */
			out[o++] = raw[i++];
			continue;
		}
		if (utf8_unsafe(c) || c == 0xfffd) {
			if (c > 0xffff) {
				c -= 0x10000;
				o += (size_t)sprintf(out + o, "\\u%04x\\u%04x", 0xd800 + (c >> 10),
						     0xdc00 + (c & 0x3ff));
			} else {
				o += (size_t)sprintf(out + o, "\\u%04x", (unsigned)c);
			}
		} else {
			memcpy(out + o, raw + i, n);
			o += n;
		}
		i += n;
	}
	out[o] = '\0';
	free(raw);
	return out;
}

int cj_print(json_t *v)
{
	char *s = cj_dumps(v);

	json_decref(v);
	if (s == NULL)
		return -ENOMEM;
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	return 0;
}
