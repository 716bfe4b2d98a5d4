/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot.h: the web-of-trust graph of the store at a reference time, as used
 * by metrics, paths, trust and rendering.  Internal to libksp.
 *
 * Rules (docs/design.md, "Definitions"; tests/data/README.md):
 *  - vertex: a key created at or before T, not revoked at T (a verified
 *    self-revocation made at or before T), not expired at T;
 *  - edge u -> v: both vertices, u != v, u made a certification (0x10-0x13)
 *    on a user ID (not a photo ID) of v that verified (certs.verified = 1),
 *    is exportable, created at or before T, not expired at T, not revoked
 *    by u (a verified 0x30 by u on that user ID created at or after it and
 *    at or before T), on a user ID not revoked at T;
 *  - MD5 certifications do not count unless KSP_WOT_ALLOW_MD5;
 *  - KSP_WOT_NO_SHA1 drops SHA-1 and RIPEMD-160 certifications;
 *  - KSP_WOT_STRUCTURAL: every key is a vertex, every exportable
 *    certification by a key of the store (by fingerprint, else key ID)
 *    on a user ID of another is an edge; nothing is checked.
 * Vertices are numbered in fingerprint order.
 */
#pragma once

#include <stdint.h>

#include "lib/wot/wot-graph.h"

struct ksp_store;

struct ksp_wot_view {
	uint32_t n;            /* vertices */
	struct ksp_wgraph *g;
	char (*fpr)[65];       /* per vertex */
	int64_t *key_id;       /* keys.id per vertex */
	int64_t at;
	unsigned int flags;
	uint64_t keys_total;   /* keys in the store */
	uint64_t keys_revoked, keys_expired, keys_future;
};

int ksp_wot_view_new(struct ksp_store *store, int64_t at, unsigned int flags, struct ksp_wot_view **ret);
void ksp_wot_view_free(struct ksp_wot_view *v);
/* Vertex of a full fingerprint (any case), -ENOENT if not a vertex. */
int64_t ksp_wot_view_find(const struct ksp_wot_view *v, const char *fpr);

/* The certification that makes edge u -> v (the newest that counts):
 * its creation time and the user ID it is on (malloc()ed raw bytes).
 * Returns 0, -ENOENT, or a negative errno. */
int ksp_wot_edge_cert(struct ksp_store *store, const struct ksp_wot_view *v, uint32_t from, uint32_t to,
		      int64_t *ret_created, char **ret_uid, size_t *ret_uid_len);
