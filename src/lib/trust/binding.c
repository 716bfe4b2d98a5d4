// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * binding.c: which keys hold a user ID or an address
 * (ksp_trust_find_binding(), from the graph snapshot's binds), and the test
 * the engine's binding questions share with it; moved out of trust.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "lib/addr.h"
#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/trust/policy.h"
#include "lib/trust/result.h"
#include "lib/trust/model.h"
#include "lib/trust/trust-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"
#include "lib/trust/trust-private.h"

static bool uid_has_email(const void *uid, size_t n, const char *email)
{
	char *a = NULL;
	bool yes;

	if (ksp_uid_address((const char *)uid, n, &a) < 0 || a == NULL)
		return false;
	yes = strcasecmp(a, email) == 0;
	free(a);
	return yes;
}

/* Does user ID @u (@n bytes) answer the binding question (@uid exactly, or
 * the address @email)? */
bool ksp_trust_uid_matches(const void *u, size_t n, const void *uid, size_t uid_len, const char *email)
{
	if (email)
		return uid_has_email(u, n, email);
	return n == uid_len && (n == 0 || memcmp(u, uid, n) == 0);
}

static unsigned char ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Might user ID @u (@n bytes) hold the address @email (@len bytes)?  The
 * quick test before the parse (uid_has_email()), the one the store's SQL
 * made (instr() on lower()): the e-mail's bytes in it, ASCII letters in
 * either case, starting at its first byte or at one that does not continue
 * a UTF-8 sequence. */
static bool uid_may_have(const char *u, size_t n, const char *email, size_t len)
{
	for (size_t i = 0; i + len <= n; i++) {
		size_t j = 0;
		if (i > 0 && ((unsigned char)u[i] & 0xc0) == 0x80)
			continue;
		while (j < len && ascii_lower((unsigned char)u[i + j]) == ascii_lower((unsigned char)email[j]))
			j++;
		if (j == len)
			return true;
	}
	return false;
}

static int cmp_fpr(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* ksp_trust_find_binding() on the snapshot's binds (every key's user IDs):
 * the keys with a match, by fingerprint. */
static int find_binding(struct ksp_store *store, const void *uid, size_t uid_len, const char *email,
			char (**ret_fprs)[65], size_t *ret_n)
{
	struct ksp_wsnap *g;
	char (*fprs)[65] = NULL;
	size_t n = 0, elen = email ? strlen(email) : 0;
	int r;

	r = ksp_wsnap_get(store, &g);
	if (r < 0)
		return r;
	for (uint32_t v = 0; v < g->n; v++) {
		for (uint32_t i = g->bind_off[v]; i < g->bind_off[v + 1]; i++) {
			const struct ksp_wsnap_bind *bd;
			const char *u;
			size_t ul;

			if (i >= g->n_binds) {
				free(fprs);
				return -EBADMSG;
			}
			bd = &g->binds[i];
			if (bd->flags & KSP_WSNAP_BIND_ATTR)
				continue;
			u = ksp_wsnap_bind_text(g, bd, &ul);
			if (email ? !uid_may_have(u, ul, email, elen) : ul != uid_len)
				continue;
			if (!ksp_trust_uid_matches(u, ul, uid, uid_len, email))
				continue;
			if (n % 16 == 0) {
				void *nn = realloc(fprs, (n + 16) * sizeof(*fprs));
				if (nn == NULL) {
					free(fprs);
					return -ENOMEM;
				}
				fprs = nn;
			}
			snprintf(fprs[n++], sizeof(fprs[0]), "%s", ksp_wsnap_fpr(g, v));
			break; /* the key is in */
		}
	}
	if (n > 1)
		qsort(fprs, n, sizeof(*fprs), cmp_fpr);
	*ret_fprs = fprs;
	*ret_n = n;
	return 0;
}

KSP_EXPORT int ksp_trust_find_binding(struct ksp_store *store, const void *uid, size_t uid_len, const char *email,
				      char (**ret_fprs)[65], size_t *ret_n)
{
	struct ksp_ctx *ctx;
	int r;

	if (store == NULL || ret_fprs == NULL || ret_n == NULL || (uid == NULL) == (email == NULL))
		return -EINVAL;
	ctx = ksp_store_get_ctx(store);
	if (email && (*email == '\0' || strchr(email, '@') == NULL)) {
		ksp_set_error(ctx, "'%.80s' is not an e-mail address (NAME@DOMAIN)", email);
		return -EINVAL;
	}
	r = find_binding(store, uid, uid_len, email, ret_fprs, ret_n);
	/* a damaged snapshot file: drop it, build it again, once */
	if (r == -EBADMSG) {
		WARN(ctx, "%s-wot: the graph snapshot is damaged; rebuilding it", ksp_store_get_path(store));
		if (ksp_wsnap_discard(store) == 0)
			r = find_binding(store, uid, uid_len, email, ret_fprs, ret_n);
	}
	if (r == -EBADMSG && !ksp_get_error(ctx))
		ksp_set_error(ctx, "%s-wot: the graph snapshot is damaged; delete it (ksp rebuilds it) and retry",
			      ksp_store_get_path(store));
	return r;
}
