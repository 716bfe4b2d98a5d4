/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * publish-private.h: what publish.c (the keys, their paths, the audit and
 * the writing into DIR) and publish-files.c (the files made from them)
 * share: the key table and its paths, the publication, and the small
 * helpers both use.  Read only in publish/.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/util.h"
#include "lib/libksp-private.h"
#include "lib/publish/publish-write.h"

struct ksp_store_key_files;

struct ppath {
	uint32_t *v; /* key indexes, the source first, the target last */
	size_t n;
	uint8_t *hash; /* n - 1 hash algorithms, hop by hop */
};

struct pkey {
	int64_t id;
	char fpr[65];
	char kid[17];
	char *uid; /* primary user ID, escaped for text */
	bool core, published, neighbour, neighbour_strict;
	uint8_t direct_hash; /* the core key's certification of it */
	struct ppath *paths;
	size_t n_paths;
	int strict_paths; /* under the audit policy, -1 not asked */
};

struct change {
	int kind;
	char *path;
	int old_paths, new_paths;
};

struct weak {
	char fpr[65];
	unsigned certs[3]; /* MD5, SHA-1, RIPEMD-160 certifications on the paths */
	unsigned paths;    /* paths they are on */
};

struct ksp_publish {
	struct ksp_store *store;
	struct ksp_ctx *ctx;
	const struct ksp_trust_policy *policy;
	struct ksp_trust_policy *strict; /* the audit's: weak hashes dropped */
	int max_paths;
	bool keep, svg;
	int64_t at;
	struct pkey *keys;
	size_t n_keys, cap_keys;
	struct pub_file *files;
	size_t n_files, cap_files;
	struct change *changes;
	size_t n_changes, cap_changes;
	char **pathless;
	size_t n_pathless;
	struct weak *weak;
	size_t n_weak;
	char **orphans;
	size_t n_orphans;
	size_t n_published;
};

static inline int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_array(p, cap, need, size, 16);
}

static inline int key_index(const struct ksp_publish *p, const char *fpr)
{
	size_t lo = 0, hi = p->n_keys;

	while (lo < hi) { /* keys are sorted by fingerprint */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->keys[mid].fpr, fpr);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static inline char *escape_text(const void *s, size_t len)
{
	char *e = NULL;

	if (ksp_escape(s, len, KSP_ESCAPE_TERMINAL, &e) < 0)
		return NULL;
	return e;
}

/* publish-files.c: the files of key @k (keys/<KEYID>.asc; graphs/<KEYID>.txt
 * and .svg, its paths), and the .keyring lookups of every published key,
 * added to @p's files.  0 or a negative errno. */
int pub_key_file(struct ksp_publish *p, const struct pkey *k, struct ksp_store_key_files *q);
int pub_graph_txt(struct ksp_publish *p, const struct pkey *k);
int pub_graph_svg(struct ksp_publish *p, const struct pkey *k);
int pub_keyring_files(struct ksp_publish *p);
