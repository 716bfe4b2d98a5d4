/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * store-graph: what graph/ reads from the store that the graph snapshot
 * (wot/wot-snap.h) does not hold: the key ID and the user ID a picture
 * names a key by, and the party with its participants.  Plain C types and
 * callbacks; no SQLite handle leaves store/.  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksp_store;

/* A prepared lookup of keys' names (ksp_store_key_name()), kept for the
 * nodes of one picture. */
struct ksp_store_key_names;

/* Prepares the lookup.  Returns 0 or a negative errno (the context's error
 * names the store). */
int ksp_store_key_names_new(struct ksp_store *store, struct ksp_store_key_names **ret);
void ksp_store_key_names_free(struct ksp_store_key_names *q);

/* The name of the key with keys.id @key_id: its key ID (hex, as stored,
 * may be NULL) and the user ID to show (raw, hostile bytes; NULL when the
 * key has none): the first by unrevoked, then primary, then key order,
 * user attributes aside.  The pointers stay valid until the next call.
 * Returns 1, 0 when there is no such key, or a negative errno (set). */
int ksp_store_key_name(struct ksp_store_key_names *q, int64_t key_id, const char **ret_keyid, const void **ret_uid,
		       size_t *ret_uid_len);

/* The party of the store: @head(opaque, name, name_len, date) once with
 * its name (raw bytes) and date (YYYY-MM-DD as stored, may be NULL).
 * Returns 1, 0 when the store has no party, or a negative errno (set). */
int ksp_store_party_head(struct ksp_store *store,
			 int (*head)(void *opaque, const void *name, size_t name_len, const char *date), void *opaque);

/* The participants of the party in their order: @row(opaque, ord, key_id,
 * fpr, absent) for each, absent when 'party absent' marked it; a negative
 * return of @row stops and is returned.  Returns 0 or a negative errno. */
int ksp_store_party_members(struct ksp_store *store,
			    int (*row)(void *opaque, int ord, int64_t key_id, const char *fpr, bool absent),
			    void *opaque);
