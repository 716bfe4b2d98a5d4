/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-blocks.h: the key blocks a store holds (key_blocks: the SHA-256 of
 * each key's packets as `wot load` read them), read in one scan into a
 * table in memory, for a reload that looks up most of them (wot-load.c,
 * plan_blocks()).  Read only in src/lib/wot.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

struct ksp_blockset;

/* The store's key blocks checked at least as far as @checked (wot load's
 * verify flag), each with whether its key's source is @source, when about
 * @expect lookups are to come: 0 with *@ret NULL when the store holds so
 * many more that the lookups one by one cost less; 0 or -EIO (SQLite's
 * error on @db) or -ENOMEM. */
int ksp_blockset_read(sqlite3 *db, int checked, const char *source, uint64_t expect, struct ksp_blockset **ret);
/* The key whose block has SHA-256 @md: true, with its id and whether its
 * source is the one read with; false when none. */
bool ksp_blockset_find(const struct ksp_blockset *bs, const uint8_t md[32], int64_t *key_id, bool *same_source);
void ksp_blockset_free(struct ksp_blockset *bs);
