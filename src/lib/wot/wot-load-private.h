/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-load-private.h: the state the three files of `wot load` share
 * (wot-load.c, wot-load-check.c, wot-load-blocks.c; see wot-load.c): the
 * loader, its batches of keys, the jobs of a batch and the signers they are
 * checked with.  Read only by them.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/input-private.h"
#include "lib/openpgp/pgp-verify.h"
#include "lib/wot/wot-blocks.h"
#include "shared/util.h"

#define CHUNK 64
/* keys read, checked and stored at a time: small enough that writing one
 * batch and checking the next overlap on the Debian keyring (905 keys,
 * 47,000 signatures) */
#define BATCH 8192
#define BATCH_SIGS 16384

/* A possible issuer: ~80 bytes, for every primary key of the input. */
struct signer {
	const uint8_t *body;     /* its key packet's public part, in the input or an extra key */
	struct ksp_pgp_vkey *vk; /* prepared on first use, kept compact */
	uint64_t kid;
	uint32_t body_len;
	int32_t next;   /* next signer in the same hash bucket */
	uint32_t uses;  /* signatures it was a candidate for so far */
	uint32_t batch; /* the last batch that needed it */
	bool vk_tried;
	uint8_t fpr_len;
	uint8_t fpr[32];
};

struct job {
	const struct ksp_pgp_pubkey *target;
	const struct ksp_pgp_uid *uid; /* NULL: a key-level signature */
	const struct ksp_pgp_sig *sig;
	int32_t self;   /* a self-signature: only this signer (-1: not indexed) */
	int32_t cand;   /* its first candidate signer, found once when planned (-1: none) */
	bool is_self;
	int32_t by;     /* the signer that verified it, -1 none */
	int8_t res;
};

/* Keys read together: checked on the threads while the batch before them
 * is written to the store. */
struct batch {
	struct ksp_pgp_key **in;
	size_t n_in, cap_in;
	size_t n_sigs;  /* signatures on them (what a batch is cut by) */
	struct job *jobs;
	size_t n_jobs, cap_jobs;
	/* signers it needs, prepared on the threads first */
	int32_t *prep;
	size_t n_prep, cap_prep;
};

struct loader {
	struct ksp_store *store;
	struct ksp_ctx *ctx;
	sqlite3 *db;
	sqlite3_stmt *key, *keyid, *uid, *uidid, *cert, *cert_upd, *ksigs, *ksigs_get;
	int64_t key_id_max; /* keys.id of the newest key: one above it is new (see store_one()) */
	bool verify;
	bool x8; /* Ed25519 eight at a time (no use for the signers' tables) */
	uint64_t keys, certs, bad, secret;
	uint64_t n_good, n_bad, n_unsupported, n_nokey;

	struct batch bt[2];
	size_t n_index;          /* primary keys in the input */
	uint64_t *missing;       /* key IDs looked up in the store in vain */
	size_t n_missing, cap_missing;
	bool store_had_keys;
	sqlite3_stmt *st_issuer;
	/* incremental loading, see plan_blocks() */
	sqlite3_stmt *st_block_get, *st_block_put, *st_source, *st_source2;
	struct ksp_blockset *blocks; /* key_blocks in memory, see plan_blocks() */
	size_t n_planned;
	const char *source;
	uint64_t n_same;
	int64_t *seen; /* ids of the keys of the input (skipped or stored) */
	size_t n_seen, cap_seen;
	/* hashes of the fingerprints of the blocks skipped and of those read,
	 * see plan_blocks() */
	uint64_t *fh_skip, *fh_read;
	size_t n_fh_skip, cap_fh_skip, n_fh_read, cap_fh_read;
	/* the key packets of the skipped blocks, signers for the rest (a
	 * copy: the input is given back once cut) */
	uint8_t *skip_bodies;
	size_t n_skip_bodies, cap_skip_bodies;
	uint8_t **extra; /* issuers' key packets read back from the store */
	sqlite3_blob *blob; /* fetch_issuer()'s handle on keys.keydata */
	size_t n_extra, cap_extra;
	struct signer *signers;
	size_t n_signers, cap_signers;
	uint8_t *bodies; /* the input's signer key packets, when the input's pages go back */
	int32_t *buckets;
	size_t n_buckets;

	/* the batch being checked, by the calling thread and started[] */
	struct batch *vb;
	pthread_t th[64];
	unsigned started;
	atomic_size_t next_job;
	atomic_size_t next_prep;
	atomic_size_t prep_done; /* signers of vb->prep prepared */
	atomic_size_t n_tables; /* signers holding tables (TABLES_MAX at most) */
	atomic_int prep_err;
	uint32_t batch;
	uint64_t n_checked;      /* signatures checked, for the report under -v */
	atomic_size_t n_lanes;   /* of them, Ed25519 ones eight at a time */
	atomic_uint_fast64_t check_ns; /* CPU time the threads spent checking */
	uint64_t write_ns; /* CPU time the calling thread spent in store_one() */

	int64_t old_cache; /* PRAGMA cache_size before the load, 0: unchanged */
	bool triggers_off;  /* the graph_* triggers, see triggers_pause() */
	const char *index_sql[4]; /* indexes dropped for the load, see indexes_drop() */
	int64_t changes0;   /* sqlite3_total_changes64() when they were paused */
};

static inline uint64_t kid64(const uint8_t *k)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | k[i];
	return v;
}

static inline int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return grow_array(p, cap, need, size, 1024);
}

/* Does signer @s match the issuer named by @sig? */
static inline bool issuer_matches(const struct signer *s, const struct ksp_pgp_sig *sig)
{
	if (sig->issuer_fpr_len)
		return sig->issuer_fpr_len == s->fpr_len && memcmp(sig->issuer_fpr, s->fpr, s->fpr_len) == 0;
	return sig->has_issuer && kid64(sig->issuer) == s->kid;
}

/* The key ID an issuer is looked up by (v4 fingerprint: its end; v5/v6:
 * its start); false when the signature names no issuer. */
static inline bool issuer_kid(const struct ksp_pgp_sig *sig, uint64_t *kid)
{
	if (sig->issuer_fpr_len == 20)
		*kid = kid64(sig->issuer_fpr + 12);
	else if (sig->issuer_fpr_len == 32)
		*kid = kid64(sig->issuer_fpr);
	else if (sig->has_issuer)
		*kid = kid64(sig->issuer);
	else
		return false;
	return true;
}

static inline bool is_self(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_len && s->issuer_fpr_len == k->primary.fpr_len)
		return memcmp(s->issuer_fpr, k->primary.fpr, s->issuer_fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, k->primary.keyid, 8) == 0;
}

static inline bool is_cert(uint8_t type)
{
	return (type >= 0x10 && type <= 0x13) || type == 0x30;
}

/* A key-level signature worth checking: self direct-key and revocation. */
static inline bool key_sig_wanted(const struct ksp_pgp_key *k, const struct ksp_pgp_sig *s)
{
	return (s->type == 0x1f || s->type == 0x20) && is_self(k, s);
}

/* the process's CPU time (user + system, every thread) in seconds */
static inline double process_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* this thread's CPU time in ns (0 if there is no such clock) */
static inline uint64_t thread_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) < 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline int ksp_wload_step_done(struct loader *l, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return ksp_errno_from_sqlite(l->ctx, l->db, rc, what);
	return 0;
}

/* Across the files: each is defined, with what it does, in one of them. */
int ksp_wload_add_seen(struct loader *l, int64_t key_id);
int ksp_wload_add_signer(struct loader *l, const struct ksp_pgp_pubkey *pk);
bool ksp_wload_blocks_overlap(struct loader *l);
int32_t ksp_wload_first_candidate(const struct loader *l, const struct ksp_pgp_sig *sig);
int ksp_wload_index_input(struct loader *l, const uint8_t *data, size_t len, struct ksp_input *in);
int ksp_wload_plan_blocks(struct loader *l, const uint8_t *data, size_t len, const char *source, uint8_t **out, size_t *out_len);
int ksp_wload_plan_jobs(struct loader *l, struct batch *b);
int ksp_wload_prune_absent(struct loader *l, const char *source, uint64_t *ret_pruned);
void ksp_wload_signer_fpr_hex(const struct signer *s, char out[65]);
int ksp_wload_signer_vkey(struct signer *s);
void ksp_wload_skip_signers(struct loader *l, bool keep);
int ksp_wload_verify_finish(struct loader *l);
void ksp_wload_verify_join(struct loader *l);
void ksp_wload_verify_start(struct loader *l, struct batch *b);
