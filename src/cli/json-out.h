// SPDX-License-Identifier: LGPL-2.1-or-later
/* JSON output through jansson: a command builds one json_t and prints it
 * once with cj_print().  Strings that come from keys (user IDs, e-mail
 * addresses, file names) go through cj_str(): each invalid UTF-8 byte
 * becomes U+FFFD (jansson refuses invalid UTF-8), and cj_dumps() writes
 * every unsafe code point (utf8_unsafe(): controls, C1, bidi and hiding
 * characters) as a \u escape, so the text holds none of them raw while a
 * parser reads back the exact characters. */
#ifndef KSP_CLI_JSON_OUT_H
#define KSP_CLI_JSON_OUT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* A JSON string of @len hostile bytes (NUL bytes kept, invalid UTF-8 as
 * U+FFFD).  NULL only when out of memory. */
json_t *cj_str(const void *s, size_t len);
/* The same for a C string; @s NULL gives null. */
json_t *cj_strz(const char *s);
/* Integers and booleans, for brevity. */
#define cj_int(v) json_integer((json_int_t)(v))
#define cj_bool(v) json_boolean(v)
/* @x rounded to @decimals places as printf's "%.*f" rounds it (the value
 * the hand-written reports printed; written back in the fewest digits,
 * 2.500000 as 2.5); null when @x is not finite. */
json_t *cj_fixed(double x, int decimals);
/* json_object_set_new() that also takes a NULL value (out of memory):
 * the object is then marked so that cj_print() fails instead of printing
 * a report with a member missing.  Returns 0 or -1. */
int cj_set(json_t *obj, const char *key, json_t *v);
/* json_array_append_new(), the same way. */
int cj_push(json_t *arr, json_t *v);
/* 0, or -ENOMEM when a value was lost (cj_set() or cj_push() was given
 * NULL): to check before a store is committed. */
int cj_check(const json_t *v);
/* Compact (",", ":"), members in the order they were added, unsafe code
 * points escaped.  Caller frees; NULL when out of memory. */
char *cj_dumps(const json_t *v);
/* Prints @v and a newline on stdout and drops the reference.  Returns 0
 * or -ENOMEM. */
int cj_print(json_t *v);

#endif
