// SPDX-License-Identifier: LGPL-2.1-or-later
/* A git commit or tag object split into payload and signature (git-split.h). */
#include <errno.h>
#include <string.h>

#include "lib/trust/git-split.h"
#include "shared/macro.h"

static const struct {
	const char *begin;
	const char *name; /* NULL: OpenPGP */
} sig_formats[] = {
	{ "-----BEGIN PGP SIGNATURE-----", NULL },
	{ "-----BEGIN PGP MESSAGE-----", NULL },
	{ "-----BEGIN SIGNED MESSAGE-----", "X.509 (gpg.format=x509)" },
	{ "-----BEGIN SSH SIGNATURE-----", "SSH (gpg.format=ssh)" },
};

static int sig_format(const char *p, size_t left)
{
	for (size_t i = 0; i < ARRAY_SIZE(sig_formats); i++) {
		size_t n = strlen(sig_formats[i].begin);
		if (left >= n && memcmp(p, sig_formats[i].begin, n) == 0)
			return (int)i;
	}
	return -1;
}

/* git's parse_signed_buffer(): the signature starts at the last line that
 * begins with a signature marker. */
static void split_tag(const char *obj, size_t len, struct ksp_git_split *out)
{
	size_t p = 0, match = len;
	int fmt = -1;

	while (p < len) {
		const char *eol = memchr(obj + p, '\n', len - p);
		int f = sig_format(obj + p, len - p);

		if (f >= 0) {
			match = p;
			fmt = f;
		}
		p = eol ? (size_t)(eol - obj) + 1 : len;
	}
	strbuf_add(&out->payload, obj, match);
	if (match == len)
		return;
	out->is_signed = true;
	out->format = sig_formats[fmt].name;
	strbuf_add(&out->sig, obj + match, len - match);
}

/* git's parse_buffer_signed_by_header(): the "gpgsig" header (continuation
 * lines start with a space) is the signature; the payload is the object
 * without it and without another hash algorithm's signature header. */
static void split_commit(const char *obj, size_t len, struct ksp_git_split *out)
{
	const char *header, *tail = obj + len, *line = obj;
	size_t hl, tree = strcspn(obj + 5, "\n");
	bool in_sig = false, other = false;
	int fmt;

	/* "tree " and 40 (SHA-1) or 64 (SHA-256) hex digits */
	header = tree == 64 ? "gpgsig-sha256" : "gpgsig";
	hl = strlen(header);
	while (line < tail) {
		const char *next = memchr(line, '\n', (size_t)(tail - line));
		const char *s = NULL;

		next = next ? next + 1 : tail;
		if (in_sig && line[0] == ' ') {
			s = line + 1;
		} else if ((size_t)(tail - line) > hl && memcmp(line, header, hl) == 0 && line[hl] == ' ') {
			s = line + hl + 1;
			other = false;
		} else if ((size_t)(tail - line) >= 6 && memcmp(line, "gpgsig", 6) == 0) {
			other = true;
		} else if (other && line[0] != ' ') {
			other = false;
		}
		if (s) {
			strbuf_add(&out->sig, s, (size_t)(next - s));
			out->is_signed = true;
			in_sig = true;
		} else {
			if (line[0] == '\n')
				next = tail; /* the message: the rest as it is */
			if (!other)
				strbuf_add(&out->payload, line, (size_t)(next - line));
			in_sig = false;
		}
		line = next;
	}
	if (out->is_signed && out->sig.len) {
		fmt = sig_format(out->sig.buf, out->sig.len);
		out->format = fmt >= 0 ? sig_formats[fmt].name : NULL;
	}
}

int ksp_git_split(const char *obj, size_t len, struct ksp_git_split *out)
{
	*out = (struct ksp_git_split){ 0 };
	strbuf_init(&out->payload);
	strbuf_init(&out->sig);
	if (obj == NULL)
		return -EINVAL;
	if (len > 7 && memcmp(obj, "object ", 7) == 0) {
		out->tag = true;
		split_tag(obj, len, out);
	} else if (len > 5 && memcmp(obj, "tree ", 5) == 0 && memchr(obj, '\n', len)) {
		split_commit(obj, len, out);
	} else {
		return -EINVAL;
	}
	return strbuf_ok(&out->payload) && strbuf_ok(&out->sig) ? 0 : -ENOMEM;
}

void ksp_git_split_release(struct ksp_git_split *out)
{
	strbuf_release(&out->payload);
	strbuf_release(&out->sig);
}
