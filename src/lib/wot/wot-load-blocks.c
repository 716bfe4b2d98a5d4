// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-load-blocks: what a reload of `wot load` skips (see wot-load.c,
 * stage 0): the input cut into key blocks, those the store holds byte for
 * byte left out (their key packets kept as signers), two copies of one key
 * caught; and --prune, the keys a source no longer holds removed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/input-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/wot/wot-blocks.h"
#include "shared/util.h"
#include "lib/wot/wot-load-private.h"

/*
 * Incremental loading (issue 24): a keyring repository changes by a few
 * keys a day, so loading it into a store that holds most of it must cost
 * in proportion to what changed.  Every key stored from its packets (its
 * block: from its primary key packet to the next one, as the reader cuts
 * it) gets the SHA-256 of the block in key_blocks.  Before the reader
 * parses anything, ksp_wload_plan_blocks() cuts the input into blocks the same way
 * and looks each digest up: a block stored already, from a load that
 * checked its signatures when this one does, is left out of what the
 * reader is given; it is neither parsed nor checked nor written (only the
 * name of the file it came from), and the store is the same as after
 * loading it in full: loading the same block again would add nothing
 * (rows are only added or upgraded by a block, never taken away, and the
 * one row a block overwrites, the key's expiry, is the block's own).
 * Certifications whose issuer was unknown are checked at the end
 * (recheck_pending()) as for any key.  A block that differs in a single
 * byte, or a key whose last stored block was another one, is loaded in
 * full.
 */
int ksp_wload_add_seen(struct loader *l, int64_t key_id)
{
	if (grow((void **)&l->seen, &l->cap_seen, l->n_seen + 1, sizeof(*l->seen)) < 0)
		return -ENOMEM;
	l->seen[l->n_seen++] = key_id;
	return 0;
}

/* Appends @data[@from, @to) to *@out. */
static int out_add(uint8_t **out, size_t *n, size_t *cap, const uint8_t *data, size_t from, size_t to)
{
	if (to <= from)
		return 0;
	if (grow((void **)out, cap, *n + (to - from), 1) < 0)
		return -ENOMEM;
	memcpy(*out + *n, data + from, to - from);
	*n += to - from;
	return 0;
}

static uint64_t fpr_hash(const char *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *f; f++)
		h = (h ^ (uint8_t)*f) * 0x100000001b3ull;
	return h;
}

/* The hash of the fingerprint of the primary key of a block skipped or
 * read (from its key packet: the store is not read for it). */
static int block_fpr(struct loader *l, const uint8_t *data, size_t from, size_t to, bool skipped)
{
	struct ksp_pgp_packet pkt;
	struct ksp_pgp_pubkey pk;
	size_t pos = from;
	char fpr[65];
	int r = 0;

	if (to <= from || ksp_pgp_packet_next(data, to, &pos, &pkt) < 0)
		return 0;
	if (ksp_pgp_parse_pubkey(pkt.body, pkt.body_len, pkt.tag == KSP_PGP_TAG_SECRET_KEY, &pk) == 0 &&
	    ksp_pgp_fingerprint(&pk) == 0) {
		uint64_t **a = skipped ? &l->fh_skip : &l->fh_read;
		size_t *n = skipped ? &l->n_fh_skip : &l->n_fh_read, *cap = skipped ? &l->cap_fh_skip : &l->cap_fh_read;
		size_t before = l->n_signers;
		ksp_pgp_fpr_hex(&pk, fpr);
		if (grow((void **)a, cap, *n + 1, sizeof(**a)) < 0)
			r = -ENOMEM;
		else
			(*a)[(*n)++] = fpr_hash(fpr);
		/* a skipped key is a signer of the keys read, as it is in the
		 * input: not read back from the store (see ksp_wload_skip_signers()) */
		if (r == 0 && skipped && l->verify && pkt.tag == KSP_PGP_TAG_PUBLIC_KEY) {
			if (ksp_wload_add_signer(l, &pk) < 0)
				r = -ENOMEM;
			else if (l->n_signers > before &&
				 grow((void **)&l->skip_bodies, &l->cap_skip_bodies, l->n_skip_bodies + pk.body_len, 1) < 0)
				r = -ENOMEM;
			else if (l->n_signers > before) {
				memcpy(l->skip_bodies + l->n_skip_bodies, pk.body, pk.body_len);
				l->n_skip_bodies += pk.body_len;
			}
		}
	}
	free(pkt.joined);
	return r;
}

/* The signers ksp_wload_plan_blocks() added point into skip_bodies (in the order
 * they were added); or, when nothing is skipped after all, they go. */
void ksp_wload_skip_signers(struct loader *l, bool keep)
{
	size_t off = 0;

	if (!keep) {
		l->n_signers = 0;
		return;
	}
	for (size_t i = 0; i < l->n_signers; i++) {
		l->signers[i].body = l->skip_bodies + off;
		off += l->signers[i].body_len;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Does a key come in a block that is skipped and in one that is read (two
 * copies of one key in the input, one stored already)?  Loading only the
 * other copy would leave the key as that copy alone makes it (its expiry),
 * not as both in their order: then nothing is skipped. */
bool ksp_wload_blocks_overlap(struct loader *l)
{
	size_t i = 0, j = 0;

	/* (an empty list may be NULL, which qsort must not be given) */
	if (l->n_fh_skip > 1)
		qsort(l->fh_skip, l->n_fh_skip, sizeof(*l->fh_skip), cmp_u64);
	if (l->n_fh_read > 1)
		qsort(l->fh_read, l->n_fh_read, sizeof(*l->fh_read), cmp_u64);
	for (size_t k = 1; k < l->n_fh_skip; k++)
		if (l->fh_skip[k] == l->fh_skip[k - 1])
			return true;
	while (i < l->n_fh_skip && j < l->n_fh_read) {
		if (l->fh_skip[i] == l->fh_read[j])
			return true;
		if (l->fh_skip[i] < l->fh_read[j])
			i++;
		else
			j++;
	}
	return false;
}

/* Block @data[@from, @to) (a key's packets): stored already?  Then its key
 * is seen (and its source updated) and true is returned in *@skip. */
static int block_known(struct loader *l, const uint8_t *data, size_t from, size_t to, bool secret,
		       const char *source, bool *skip)
{
	uint8_t md[32];
	int64_t key_id = 0;
	bool same_source = false;
	int rc, r;

	*skip = false;
	if (secret || to <= from)
		return 0;
	gcry_md_hash_buffer(GCRY_MD_SHA256, md, data + from, to - from);
	if (l->blocks) {
		if (!ksp_blockset_find(l->blocks, md, &key_id, &same_source))
			return 0;
	} else {
		sqlite3_bind_blob(l->st_block_get, 1, md, sizeof(md), SQLITE_STATIC);
		sqlite3_bind_int(l->st_block_get, 2, l->verify);
		rc = sqlite3_step(l->st_block_get);
		if (rc == SQLITE_ROW) {
			const unsigned char *was = sqlite3_column_text(l->st_block_get, 1);
			key_id = sqlite3_column_int64(l->st_block_get, 0);
			same_source = was && strcmp((const char *)was, source) == 0;
		}
		sqlite3_reset(l->st_block_get);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return ksp_errno_from_sqlite(l->ctx, l->db, rc, "key blocks");
		if (rc == SQLITE_DONE)
			return 0;
	}
	r = block_fpr(l, data, from, to, true);
	if (r < 0)
		return r;
	/* (keys.source comes after keydata: reading it would read the block
	 * back; key_blocks holds a copy) */
	if (!same_source) {
		sqlite3_bind_int64(l->st_source, 1, key_id);
		sqlite3_bind_text(l->st_source, 2, source, -1, SQLITE_STATIC);
		r = ksp_wload_step_done(l, l->st_source, "store key source");
		if (r < 0)
			return r;
		sqlite3_bind_int64(l->st_source2, 1, key_id);
		sqlite3_bind_text(l->st_source2, 2, source, -1, SQLITE_STATIC);
		r = ksp_wload_step_done(l, l->st_source2, "store key source");
		if (r < 0)
			return r;
	}
	r = ksp_wload_add_seen(l, key_id);
	if (r < 0)
		return r;
	l->keys++;
	l->n_same++;
	*skip = true;
	return 0;
}

/* One key block [@start, @end) for ksp_wload_plan_blocks(): when it is stored
 * already, the input kept so far up to its start goes to *@out and *@kept
 * moves past it; otherwise its fingerprint is noted for the reader. */
static int plan_block(struct loader *l, const uint8_t *data, size_t start, size_t end, bool secret,
		      const char *source, uint8_t **out, size_t *n, size_t *cap, size_t *kept)
{
	bool skip = false;
	int r = block_known(l, data, start, end, secret, source, &skip);

	if (r == 0 && !skip)
		r = block_fpr(l, data, start, end, false);
	if (r < 0 || !skip)
		return r;
	r = out_add(out, n, cap, data, *kept, start);
	if (r == 0)
		*kept = end;
	return r;
}

/* The input @data (decoded) without the blocks stored already, in *@out
 * (malloc'ed, *@out_len bytes, possibly 0): what the reader is given.
 * Packets outside keys and whatever follows a packet that cannot be framed
 * stay in it, for the reader to report as it would. */
/*
 * The first BLOCKS_SAMPLE blocks are looked up one by one; then, from the
 * bytes they took, the blocks of the whole input are estimated, and when
 * they are a good part of the store's (a reload), key_blocks is read into
 * memory at once for the rest (wot-blocks.c: 10^5 keys, 0.27 -> 0.07
 * CPU-s).
 */
#define BLOCKS_SAMPLE 1024

static int blocks_read(struct loader *l, const char *source, size_t len, size_t at)
{
	uint64_t expect = at ? (uint64_t)((double)BLOCKS_SAMPLE * (double)len / (double)at) : 0;
	int r = ksp_blockset_read(l->db, l->verify, source, expect, &l->blocks);

	if (r == -EIO)
		return ksp_errno_from_sqlite(l->ctx, l->db, sqlite3_errcode(l->db), "key blocks");
	return r;
}

int ksp_wload_plan_blocks(struct loader *l, const uint8_t *data, size_t len, const char *source, uint8_t **out,
		       size_t *out_len)
{
	size_t pos = 0, start = 0, kept = 0, n = 0, cap = 0;
	bool in_key = false, secret = false;
	int r = 0;

	*out = NULL;
	*out_len = 0;
	while (pos < len) {
		struct ksp_pgp_packet pkt;
		size_t at = pos;

		if (ksp_pgp_packet_next(data, len, &pos, &pkt) < 0) {
			pos = len; /* the rest as it is: the reader resynchronises */
			break;
		}
		free(pkt.joined);
		if (pkt.tag == KSP_PGP_TAG_PUBLIC_KEY || pkt.tag == KSP_PGP_TAG_SECRET_KEY) {
			if (in_key) {
				r = plan_block(l, data, start, at, secret, source, out, &n, &cap, &kept);
				if (r == 0 && ++l->n_planned == BLOCKS_SAMPLE)
					r = blocks_read(l, source, len, at);
				if (r < 0)
					goto fail;
			}
			in_key = true;
			start = at;
			secret = false;
		}
		if (pkt.tag == KSP_PGP_TAG_SECRET_KEY || pkt.tag == KSP_PGP_TAG_SECRET_SUBKEY)
			secret = true;
	}
	if (in_key && pos == len) {
		r = plan_block(l, data, start, len, secret, source, out, &n, &cap, &kept);
		if (r < 0)
			goto fail;
	}
	r = out_add(out, &n, &cap, data, kept, len);
	if (r < 0)
		goto fail;
	*out_len = n;
	return 0;
fail:
	free(*out);
	*out = NULL;
	return r;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * KSP_WOT_LOAD_PRUNE: the keys last read from @source that this input no
 * longer holds are removed (with their user IDs and certifications), so
 * that a keyring reloaded is what loading it into an empty store gives;
 * certifications they made on the keys that stay have no issuer any more
 * (verified = 4, the issuer's fingerprint only when the signature names
 * it), as if they had never been loaded.  A key that a party names (a
 * participant, a signed key) is kept.
 */
int ksp_wload_prune_absent(struct loader *l, const char *source, uint64_t *ret_pruned)
{
	sqlite3_stmt *sel = NULL, *del = NULL, *certs = NULL, *upd = NULL;
	int64_t *gone = NULL;
	size_t n_gone = 0, cap_gone = 0;
	int rc, r = 0;

	*ret_pruned = 0;
	if (l->n_seen > 1)
		qsort(l->seen, l->n_seen, sizeof(*l->seen), cmp_id);
	rc = sqlite3_prepare_v2(l->db,
				"SELECT id FROM keys WHERE source = ?1 AND id NOT IN (SELECT key_id FROM participants) "
				"AND id NOT IN (SELECT key_id FROM signed)",
				-1, &sel, NULL);
	if (rc != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_text(sel, 1, source, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(sel, 0);
		if (l->n_seen && bsearch(&id, l->seen, l->n_seen, sizeof(*l->seen), cmp_id))
			continue;
		if (grow((void **)&gone, &cap_gone, n_gone + 1, sizeof(*gone)) < 0) {
			r = -ENOMEM;
			goto out;
		}
		gone[n_gone++] = id;
	}
	if (rc != SQLITE_DONE)
		goto sqlfail;
	if (n_gone == 0)
		goto out;
	rc = sqlite3_prepare_v2(l->db,
				"SELECT c.id, c.sigdata FROM certs c, keys k WHERE k.id = ?1 AND c.issuer_keyid = k.keyid "
				"AND (c.issuer_fpr IS NULL OR c.issuer_fpr = k.fpr) AND c.verified != 0 "
				"AND c.uid_id NOT IN (SELECT id FROM uids WHERE key_id = ?1)",
				-1, &certs, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(l->db, "UPDATE certs SET verified = 4, issuer_fpr = ?2 WHERE id = ?1", -1, &upd,
					NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(l->db, "DELETE FROM keys WHERE id = ?1", -1, &del, NULL);
	if (rc != SQLITE_OK)
		goto sqlfail;
	for (size_t i = 0; i < n_gone; i++) {
		sqlite3_bind_int64(certs, 1, gone[i]);
		while ((rc = sqlite3_step(certs)) == SQLITE_ROW) {
			const uint8_t *sd = sqlite3_column_blob(certs, 1);
			int sl = sqlite3_column_bytes(certs, 1);
			struct ksp_pgp_sig sig;
			char ifpr[65];

			sqlite3_bind_int64(upd, 1, sqlite3_column_int64(certs, 0));
			sqlite3_bind_null(upd, 2);
			if (sd && sl > 0 && ksp_pgp_parse_sig(sd, (size_t)sl, &sig) == 0) {
				if (sig.issuer_fpr_len) {
					hex_encode(sig.issuer_fpr, sig.issuer_fpr_len, ifpr);
					sqlite3_bind_text(upd, 2, ifpr, -1, SQLITE_TRANSIENT);
				}
				ksp_pgp_sig_done(&sig);
			}
			r = ksp_wload_step_done(l, upd, "certifications of a removed key");
			if (r < 0)
				goto out;
		}
		sqlite3_reset(certs);
		if (rc != SQLITE_DONE)
			goto sqlfail;
		sqlite3_bind_int64(del, 1, gone[i]);
		r = ksp_wload_step_done(l, del, "remove a key no longer in the keyring");
		if (r < 0)
			goto out;
	}
	*ret_pruned = n_gone;
	goto out;
sqlfail:
	r = ksp_errno_from_sqlite(l->ctx, l->db, rc, "keys no longer in the keyring");
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(del);
	sqlite3_finalize(certs);
	sqlite3_finalize(upd);
	free(gone);
	return r;
}
