// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The address of a user ID, after RFC 5322 3.4 (name-addr and addr-spec,
 * with the obsolete forms of 4.4 that real user IDs use: words of a local
 * part separated by CFWS, comments anywhere between tokens) and RFC 6532
 * (UTF-8 in atoms and quoted strings).  One parser for the whole library:
 * party add, sign, status, remind, import and the trust questions must
 * agree on what an address is.
 *
 * A user ID is hostile: every byte is checked, nothing is read past @len,
 * comments nest at most KSP_ADDR_MAX_NEST deep, a NUL byte anywhere means
 * "no address", and no control character (CR and LF: a header injection)
 * is ever part of one.  The display name is never written anywhere by
 * the callers (they write the address only), so it may hold anything but
 * an unbalanced quote or comment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addr.h"
#include "shared/strbuf.h"

#define KSP_ADDR_MAX_NEST 16
#define KSP_ADDR_MAX_TOTAL 254

struct scan {
	const unsigned char *p;
	size_t n, i;
	struct strbuf local, domain;
	bool oom; /* an attempt ran out of memory: not "no address" */
};

static bool is_atext(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c)) || c >= 0x80;
}

/* Control characters (CR and LF among them, and TAB): never in an address. */
static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool is_wsp(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* CFWS: white space and (nested (comments)) with quoted pairs.  false on
 * an unterminated comment. */
static bool skip_cfws(struct scan *s)
{
	for (;;) {
		while (s->i < s->n && is_wsp(s->p[s->i]))
			s->i++;
		if (s->i >= s->n || s->p[s->i] != '(')
			return true;
		int depth = 0;
		do {
			unsigned char c = s->p[s->i++];
			if (c == '(') {
				if (++depth > KSP_ADDR_MAX_NEST)
					return false;
			} else if (c == ')') {
				depth--;
			} else if (c == '\\') {
				if (s->i >= s->n)
					return false;
				s->i++;
			}
		} while (depth > 0 && s->i < s->n);
		if (depth > 0)
			return false;
	}
}

/* A quoted string at s->i (which is '"'), its content unescaped into @out. */
static bool quoted_string(struct scan *s, struct strbuf *out)
{
	s->i++;
	while (s->i < s->n) {
		unsigned char c = s->p[s->i++];
		if (c == '"')
			return true;
		if (c == '\\') {
			if (s->i >= s->n)
				return false;
			c = s->p[s->i++];
		}
		if (is_ctl(c))
			return false;
		strbuf_addch(out, (char)c);
	}
	return false;
}

/* word *("." word), CFWS around each: the local part (quoted words or atoms). */
static bool local_part(struct scan *s)
{
	for (;;) {
		if (!skip_cfws(s))
			return false;
		if (s->i < s->n && s->p[s->i] == '"') {
			if (!quoted_string(s, &s->local))
				return false;
		} else {
			size_t start = s->i;
			while (s->i < s->n && is_atext(s->p[s->i]))
				strbuf_addch(&s->local, (char)s->p[s->i++]);
			if (s->i == start)
				return false;
		}
		if (!skip_cfws(s))
			return false;
		if (s->i >= s->n || s->p[s->i] != '.')
			return true;
		strbuf_addch(&s->local, '.');
		s->i++;
	}
}

/* dot-atom or [domain literal], CFWS around. */
static bool domain(struct scan *s)
{
	if (!skip_cfws(s))
		return false;
	if (s->i < s->n && s->p[s->i] == '[') {
		strbuf_addch(&s->domain, '[');
		s->i++;
		while (s->i < s->n && s->p[s->i] != ']') {
			unsigned char c = s->p[s->i++];
			/* '"', '(' and ')' would open a quoted string or a
			 * comment when the canonical form is read again */
			if (c == '[' || c == '\\' || c == '"' || c == '(' || c == ')' || is_wsp(c) || is_ctl(c))
				return false;
			strbuf_addch(&s->domain, (char)c);
		}
		if (s->i >= s->n)
			return false;
		strbuf_addch(&s->domain, ']');
		s->i++;
		return skip_cfws(s);
	}
	for (;;) {
		size_t start = s->i;
		while (s->i < s->n && is_atext(s->p[s->i]))
			strbuf_addch(&s->domain, (char)s->p[s->i++]);
		if (s->i == start)
			return false;
		if (!skip_cfws(s))
			return false;
		if (s->i >= s->n || s->p[s->i] != '.')
			return true;
		strbuf_addch(&s->domain, '.');
		s->i++;
		if (!skip_cfws(s))
			return false;
	}
}

/* A local part that is a dot-atom needs no quotes. */
static bool dot_atom(const char *t, size_t n)
{
	if (n == 0 || t[0] == '.' || t[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (t[i] == '.' ? t[i + 1] == '.' : !is_atext((unsigned char)t[i]))
			return false;
	return true;
}

/* An addr-spec at s->i, which it leaves after the CFWS that follows. */
static bool addr_spec(struct scan *s)
{
	/* an attempt before that ran out of memory: remembered */
	s->oom |= !strbuf_ok(&s->local) || !strbuf_ok(&s->domain);
	strbuf_release(&s->local);
	strbuf_release(&s->domain);
	strbuf_init(&s->local);
	strbuf_init(&s->domain);
	if (!local_part(s) || s->i >= s->n || s->p[s->i] != '@')
		return false;
	s->i++;
	return domain(s) && s->local.len > 0;
}

static int parse_uid(const char *uid, size_t len, char **ret, size_t *name_end);

int ksp_uid_address(const char *uid, size_t len, char **ret)
{
	size_t name_end;

	return parse_uid(uid, len, ret, &name_end);
}

int ksp_uid_display_name(const char *uid, size_t len, char **ret)
{
	size_t a, b;
	char *addr = NULL;
	int r;

	*ret = NULL;
	r = parse_uid(uid, len, &addr, &b);
	free(addr);
	if (r < 0 || addr == NULL)
		return r;
	a = 0;
	while (a < b && (uid[a] == ' ' || uid[a] == '\t'))
		a++;
	while (b > a && (uid[b - 1] == ' ' || uid[b - 1] == '\t'))
		b--;
	/* one quoted string: its content (quoted pairs undone) */
	if (b - a >= 2 && uid[a] == '"' && uid[b - 1] == '"') {
		struct strbuf sb;
		bool whole = true;
		strbuf_init(&sb);
		for (size_t i = a + 1; i < b - 1 && whole; i++) {
			if (uid[i] == '\\' && i + 1 < b - 1)
				i++;
			else if (uid[i] == '"')
				whole = false;
			strbuf_addch(&sb, uid[i]);
		}
		if (whole) {
			*ret = strbuf_steal(&sb);
			return *ret ? 0 : -ENOMEM;
		}
		strbuf_release(&sb);
	}
	if (b == a)
		return 0;
	*ret = strndup(uid + a, b - a);
	return *ret ? 0 : -ENOMEM;
}

static int parse_uid(const char *uid, size_t len, char **ret, size_t *name_end)
{
	struct scan s = { .p = (const unsigned char *)uid, .n = len };
	size_t lt[8], n_lt = 0, depth = 0;
	bool quoted = false, found = false;
	struct strbuf a;
	int r = 0;

	*ret = NULL;
	*name_end = 0;
	if (uid == NULL)
		return 0;
	if (memchr(uid, '\0', len))
		return 0;
	/* the '<' outside quoted strings and comments (the last few) */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s.p[i];
		if (c == '\\' && (quoted || depth)) {
			i++;
		} else if (quoted) {
			quoted = c != '"';
		} else if (depth) {
			if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
		} else if (c == '"') {
			quoted = true;
		} else if (c == '(') {
			depth = 1;
		} else if (c == '<') {
			if (n_lt == sizeof(lt) / sizeof(lt[0])) {
				memmove(lt, lt + 1, sizeof(lt) - sizeof(lt[0]));
				n_lt--;
			}
			lt[n_lt++] = i;
		}
	}
	if (quoted || depth)
		return 0; /* unbalanced: no reading of it is safe */
	strbuf_init(&s.local);
	strbuf_init(&s.domain);
	/* name-addr: the last '<' whose addr-spec and '>' end the user ID
	 * (CFWS after it allowed) */
	while (n_lt > 0 && !found) {
		*name_end = lt[n_lt - 1];
		s.i = lt[--n_lt] + 1;
		if (!addr_spec(&s) || s.i >= len || s.p[s.i] != '>')
			continue;
		s.i++;
		found = skip_cfws(&s) && s.i == len;
	}
	/* a bare addr-spec (a '<' of it is in a domain literal) */
	if (!found) {
		*name_end = 0;
		s.i = 0;
		found = addr_spec(&s) && s.i == len;
	}
	if (!found && (s.oom || !strbuf_ok(&s.local) || !strbuf_ok(&s.domain))) {
		r = -ENOMEM; /* not "no address": out of memory while reading it */
		goto out;
	}
	if (!found)
		goto out;
	strbuf_init(&a);
	if (dot_atom(strbuf_str(&s.local), s.local.len)) {
		strbuf_add(&a, s.local.buf, s.local.len);
	} else {
		strbuf_addch(&a, '"');
		for (size_t i = 0; i < s.local.len; i++) {
			if (s.local.buf[i] == '"' || s.local.buf[i] == '\\')
				strbuf_addch(&a, '\\');
			strbuf_addch(&a, s.local.buf[i]);
		}
		strbuf_addch(&a, '"');
	}
	strbuf_addch(&a, '@');
	strbuf_add(&a, s.domain.buf, s.domain.len);
	if (!strbuf_ok(&s.local) || !strbuf_ok(&s.domain)) {
		strbuf_release(&a);
		r = -ENOMEM;
		goto out;
	}
	*ret = strbuf_steal(&a);
	if (*ret == NULL)
		r = -ENOMEM;
out:
	strbuf_release(&s.local);
	strbuf_release(&s.domain);
	return r;
}

bool ksp_address_writable(const char *addr)
{
	const char *at;
	size_t n;

	if (addr == NULL || (n = strlen(addr)) == 0 || n > KSP_ADDR_MAX_TOTAL)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)addr[i] < 0x20 || (unsigned char)addr[i] >= 0x7f)
			return false;
	at = strrchr(addr, '@');
	return at && at != addr && at[1] != '\0';
}

int ksp_uid_writable_address(const char *uid, size_t len, char **ret)
{
	int r = ksp_uid_address(uid, len, ret);

	if (r == 0 && *ret && !ksp_address_writable(*ret)) {
		free(*ret);
		*ret = NULL;
	}
	return r;
}
