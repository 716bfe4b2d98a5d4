/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * store-health.h: what the trust health report (src/lib/health/) reads
 * from the store that the graph snapshot (wot/wot-snap.h) does not hold:
 * a certification's hash algorithm as stored and a read transaction
 * around many queries (its participants: store-trust.h).  Plain C types,
 * no SQLite handle.  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct ksp_store;

/* Open a read transaction when none is open (SQLite then takes its shared
 * lock once for the statements that follow, not once each): true when one
 * was begun; close it with ksp_store_health_read_end(). */
bool ksp_store_health_read_begin(struct ksp_store *store);
void ksp_store_health_read_end(struct ksp_store *store, bool begun);

/* The lowest hash algorithm among the certifications by @issuer_fpr on
 * user ID @uid_id (uids.id) made at @created, into *@hash (left as it is
 * when there is none).  0 or a negative errno (the context's error set). */
int ksp_store_health_cert_hash(struct ksp_store *store, int64_t uid_id, const char *issuer_fpr, int64_t created,
			       int *hash);
