/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * store-trust.h: what the trust models (trust/) and health/ read from the
 * store beside the graph snapshot (wot/wot-snap.h, their one source for the graph):
 * a key's row by fingerprint (the store's index; the snapshot has none)
 * and the party's participants (not in the snapshot).
 * Internal to libksp (not in libksp.sym): plain C types, no SQLite handle.
 * On a failed read each sets the context's error (one line naming the
 * store file and what to do) and returns -errno.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct ksp_store;

/* Fingerprint look-ups, prepared once for many (a query's target and core
 * keys, GnuPG's ownertrust list, its queries after a run).  Belongs to
 * @store and must be freed before it. */
struct ksp_store_key_lookup;

/* A new look-up on @store into *@ret: 0 or -errno. */
int ksp_store_key_lookup_new(struct ksp_store *store, struct ksp_store_key_lookup **ret);

/* keys.id of the key with fingerprint @fpr (normalized: upper-case hex,
 * 40 or 64 digits), 0 when the store has none, -errno on error. */
int64_t ksp_store_key_lookup(struct ksp_store_key_lookup *q, const char *fpr);

/* Frees @q (NULL is fine); returns NULL. */
struct ksp_store_key_lookup *ksp_store_key_lookup_free(struct ksp_store_key_lookup *q);

/* The fingerprints of the party's participants (the core of --core-party,
 * health's party), in list order when @by_ord, else in the store's, each
 * given to @fn(@data, fpr); stops at @fn's first nonzero return and
 * returns it; 0 or -errno. */
int ksp_store_participant_fprs(struct ksp_store *store, bool by_ord, int (*fn)(void *data, const char *fpr),
			       void *data);
