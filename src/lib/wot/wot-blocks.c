// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-blocks: the store's key blocks by digest, in memory (wot-blocks.h).
 *
 * A reload of a keyring looks up every block of the input in key_blocks;
 * one SQLite lookup each (the digest index, then the row) is about 2 us,
 * 0.2 CPU-s at 10^5 keys, more than a third of an unchanged reload.  A
 * scan of the table is ten times cheaper per row, so when the input holds
 * a good part of the store's blocks the loader reads them all at once.
 *
 * The digests are SHA-256 of blocks anyone can make, so a block can be
 * ground to land in a chosen slot of a table hashed by its first bytes;
 * the slot is taken from those bytes mixed with a secret drawn for each
 * table (getrandom), which no input can aim at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/wot/wot-blocks.h"

struct block_slot {
	uint8_t md[32];
	int64_t key_id; /* 0: empty */
	bool same;
};

struct ksp_blockset {
	struct block_slot *slots;
	size_t mask;
	uint64_t seed;
};

static size_t slot_of(const struct ksp_blockset *bs, const uint8_t md[32])
{
	uint64_t x;

	memcpy(&x, md, sizeof(x));
	x ^= bs->seed;
	x *= 0x9E3779B97F4A7C15ull;
	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	return (size_t)(x ^ (x >> 32)) & bs->mask;
}

static void put(struct ksp_blockset *bs, const uint8_t md[32], int64_t key_id, bool same)
{
	for (size_t i = slot_of(bs, md);; i = (i + 1) & bs->mask) {
		struct block_slot *s = &bs->slots[i];

		if (s->key_id == 0) {
			memcpy(s->md, md, 32);
			s->key_id = key_id;
			s->same = same;
			return;
		}
		if (memcmp(s->md, md, 32) == 0)
			return; /* (two keys, one block: the first, as the lookup by SQL) */
	}
}

/* a lookup by SQL costs about as much as reading this many rows */
#define ROWS_PER_LOOKUP 8

int ksp_blockset_read(sqlite3 *db, int checked, const char *source, uint64_t expect, struct ksp_blockset **ret)
{
	struct ksp_blockset *bs = NULL;
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	size_t cap = 1024;
	int rc, r = -ENOMEM;

	*ret = NULL;
	/* (the ids are the keys': their largest bounds the count) */
	rc = sqlite3_prepare_v2(db, "SELECT max(key_id) FROM key_blocks", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_ROW)
		return -EIO;
	if (n <= 0 || (uint64_t)n / ROWS_PER_LOOKUP > expect)
		return 0;
	if ((uint64_t)n > SIZE_MAX / 4 / sizeof(struct block_slot))
		return -ENOMEM;
	while (cap < 2 * (size_t)n)
		cap *= 2;
	bs = calloc(1, sizeof(*bs));
	if (bs == NULL)
		return -ENOMEM;
	bs->slots = calloc(cap, sizeof(*bs->slots));
	if (bs->slots == NULL)
		goto out;
	bs->mask = cap - 1;
	if (getrandom(&bs->seed, sizeof(bs->seed), GRND_NONBLOCK) != (ssize_t)sizeof(bs->seed))
		bs->seed = (uint64_t)(uintptr_t)bs ^ 0x2545F4914F6CDD1Dull;
	rc = sqlite3_prepare_v2(db,
				"SELECT key_id, digest, source IS ?2 FROM key_blocks "
				"WHERE checked >= ?1 AND key_id > 0 AND length(digest) = 32",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		r = -EIO;
		goto out;
	}
	sqlite3_bind_int(st, 1, checked);
	sqlite3_bind_text(st, 2, source, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const uint8_t *md = sqlite3_column_blob(st, 1);

		/* (a row past the largest id is impossible; the table stays
		 * at most half full whatever the store says) */
		if (md == NULL || id > n)
			continue;
		put(bs, md, id, sqlite3_column_int(st, 2) != 0);
	}
	if (rc != SQLITE_DONE) {
		r = -EIO;
		goto out;
	}
	sqlite3_finalize(st);
	*ret = bs;
	return 0;
out:
	sqlite3_finalize(st);
	ksp_blockset_free(bs);
	return r;
}

bool ksp_blockset_find(const struct ksp_blockset *bs, const uint8_t md[32], int64_t *key_id, bool *same_source)
{
	for (size_t i = slot_of(bs, md);; i = (i + 1) & bs->mask) {
		const struct block_slot *s = &bs->slots[i];

		if (s->key_id == 0)
			return false;
		if (memcmp(s->md, md, 32) == 0) {
			*key_id = s->key_id;
			*same_source = s->same;
			return true;
		}
	}
}

void ksp_blockset_free(struct ksp_blockset *bs)
{
	if (bs == NULL)
		return;
	free(bs->slots);
	free(bs);
}
