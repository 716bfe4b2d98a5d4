// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wot-load-check: the signers and the threads that check a batch's
 * signatures for `wot load` (see wot-load.c, stages 1 and 2): every
 * primary key of the input indexed as a possible issuer, issuers not in
 * it read back from the store, one job per signature, the signers' keys
 * prepared on the threads, then the jobs run (Ed25519 eight at a time
 * where the CPU can).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "lib/libksp-private.h"
#include "lib/input-private.h"
#include "lib/openpgp/pgp-verify.h"
#include "shared/util.h"
#include "lib/wot/wot-load-private.h"

static size_t bucket_of(const struct loader *l, uint64_t kid)
{
	return (size_t)((kid * 0x9E3779B97F4A7C15ull) >> 20) & (l->n_buckets - 1);
}

int ksp_wload_add_signer(struct loader *l, const struct ksp_pgp_pubkey *pk)
{
	if (grow((void **)&l->signers, &l->cap_signers, l->n_signers + 1, sizeof(*l->signers)) < 0)
		return -ENOMEM;
	struct signer *s = &l->signers[l->n_signers];
	if (pk->body_len > UINT32_MAX)
		return 0; /* cannot be a v4 key; v5/v6 keys are far smaller */
	memset(s, 0, sizeof(*s));
	s->body = pk->body;
	s->body_len = (uint32_t)pk->body_len;
	s->fpr_len = pk->fpr_len;
	memcpy(s->fpr, pk->fpr, sizeof(s->fpr));
	s->kid = kid64(pk->keyid);
	s->next = -1;
	l->n_signers++;
	return 0;
}

static int build_index(struct loader *l)
{
	size_t nb = 1024;

	while (nb < 2 * l->n_signers)
		nb *= 2;
	free(l->buckets);
	l->buckets = malloc(nb * sizeof(*l->buckets));
	if (l->buckets == NULL)
		return -ENOMEM;
	l->n_buckets = nb;
	for (size_t i = 0; i < nb; i++)
		l->buckets[i] = -1;
	for (size_t i = 0; i < l->n_signers; i++) {
		size_t b = bucket_of(l, l->signers[i].kid);
		l->signers[i].next = l->buckets[b];
		l->buckets[b] = (int32_t)i;
	}
	return 0;
}

int32_t ksp_wload_first_candidate(const struct loader *l, const struct ksp_pgp_sig *sig)
{
	uint64_t kid;

	if (!issuer_kid(sig, &kid))
		return -1;
	for (int32_t c = l->buckets[bucket_of(l, kid)]; c >= 0; c = l->signers[c].next)
		if (issuer_matches(&l->signers[c], sig))
			return c;
	return -1;
}

static int add_job(struct batch *b, const struct ksp_pgp_pubkey *target, const struct ksp_pgp_uid *uid,
		   const struct ksp_pgp_sig *sig, int32_t self, bool is_self)
{
	if (grow((void **)&b->jobs, &b->cap_jobs, b->n_jobs + 1, sizeof(*b->jobs)) < 0)
		return -ENOMEM;
	b->jobs[b->n_jobs++] = (struct job){ .target = target, .uid = uid, .sig = sig, .self = self,
					     .is_self = is_self, .by = -1, .cand = -1 };
	return 0;
}

/* An issuer not in the input: read its key back from the store. */
static int fetch_issuer(struct loader *l, sqlite3_stmt *st, const struct ksp_pgp_sig *sig)
{
	uint64_t kid;
	char hex[17];
	int rc, r = 0;

	if (!issuer_kid(sig, &kid))
		return 0;
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02X", (unsigned)(kid >> (56 - 8 * i)) & 0xff);
	sqlite3_bind_text(st, 1, hex, 16, SQLITE_TRANSIENT);
	/* only the primary key packet is read back (its first bytes: the
	 * rest of a key block can be megabytes of certifications) */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_blob *bl = NULL;
		struct ksp_pgp_packet pkt;
		struct ksp_pgp_pubkey pk;
		uint8_t *buf = NULL;
		size_t pos = 0;
		int n, want;

		/* one handle moved from row to row (opening one compiles a
		 * statement); after a failure (no keydata) it is opened anew */
		int64_t id = sqlite3_column_int64(st, 0);
		if (l->blob == NULL || sqlite3_blob_reopen(l->blob, id) != SQLITE_OK) {
			sqlite3_blob_close(l->blob);
			l->blob = NULL;
			if (sqlite3_blob_open(l->db, "main", "keys", "keydata", id, 0, &l->blob) != SQLITE_OK) {
				sqlite3_blob_close(l->blob); /* no keydata */
				l->blob = NULL;
				continue;
			}
		}
		bl = l->blob;
		n = sqlite3_blob_bytes(bl);
		want = n < 4096 ? n : 4096;
		for (;;) {
			free(buf);
			buf = want > 0 ? malloc((size_t)want) : NULL;
			if (buf == NULL || sqlite3_blob_read(bl, buf, want, 0) != SQLITE_OK) {
				free(buf);
				buf = NULL;
				break;
			}
			pos = 0;
			if (ksp_pgp_packet_next(buf, (size_t)want, &pos, &pkt) == 0)
				break;
			if (want == n) { /* not a key */
				free(buf);
				buf = NULL;
				break;
			}
			want = n; /* a primary key packet over 4 KB */
		}
		if (buf == NULL)
			continue;
		if (pkt.joined != NULL || pkt.tag != KSP_PGP_TAG_PUBLIC_KEY ||
		    ksp_pgp_parse_pubkey(pkt.body, pkt.body_len, false, &pk) < 0 || ksp_pgp_fingerprint(&pk) < 0) {
			free(pkt.joined);
			free(buf);
			continue;
		}
		if (grow((void **)&l->extra, &l->cap_extra, l->n_extra + 1, sizeof(*l->extra)) < 0 ||
		    ksp_wload_add_signer(l, &pk) < 0) {
			free(buf);
			r = -ENOMEM;
			break;
		}
		l->extra[l->n_extra++] = buf; /* the signer's body points into it */
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && r == 0)
		r = ksp_errno_from_sqlite(l->ctx, l->db, rc, "keys");
	sqlite3_reset(st);
	return r;
}

/* Pass 1: every primary key of the (decoded) input into the signer index.
 * When the input's pages are given back behind the reader (@in), their key
 * packets are copied (the public part of an Ed25519 key is 51 bytes, of an
 * RSA-4096 one 526): a signer first needed far behind would otherwise bring
 * its page back. */
int ksp_wload_index_input(struct loader *l, const uint8_t *data, size_t len, struct ksp_input *in)
{
	size_t pos = 0, mark = 0, n_bytes = 0, cap_bytes = 0, first = l->n_signers;
	bool copy = in && in->map && data == in->data;

	while (pos < len) {
		struct ksp_pgp_packet pkt;
		struct ksp_pgp_pubkey pk;

		if (ksp_pgp_packet_next(data, len, &pos, &pkt) < 0)
			break; /* the reader resynchronises; keys past here are checked at the end */
		if ((pkt.tag == KSP_PGP_TAG_PUBLIC_KEY || pkt.tag == KSP_PGP_TAG_SECRET_KEY) && pkt.joined == NULL &&
		    ksp_pgp_parse_pubkey(pkt.body, pkt.body_len, pkt.tag == KSP_PGP_TAG_SECRET_KEY, &pk) == 0 &&
		    ksp_pgp_fingerprint(&pk) == 0) {
			size_t before = l->n_signers;
			if (ksp_wload_add_signer(l, &pk) < 0)
				return -ENOMEM;
			if (copy && l->n_signers > before) {
				if (grow((void **)&l->bodies, &cap_bytes, n_bytes + pk.body_len, 1) < 0)
					return -ENOMEM;
				memcpy(l->bodies + n_bytes, pk.body, pk.body_len);
				n_bytes += pk.body_len;
			}
			l->n_index++;
		}
		free(pkt.joined);
		/* the signers point into the data: a key read again comes back
		 * from the file */
		if (in)
			ksp_input_drop(in, &mark, data + pos);
	}
	ksp_input_drop_all(in, &mark);
	if (copy && n_bytes > 0) {
		uint8_t *b = realloc(l->bodies, n_bytes); /* the rest back */
		if (b)
			l->bodies = b;
		/* in the same order as they were added */
		n_bytes = 0;
		for (size_t i = first; i < l->n_signers; i++) {
			l->signers[i].body = l->bodies + n_bytes;
			n_bytes += l->signers[i].body_len;
		}
	}
	return build_index(l);
}

static bool was_missing(const struct loader *l, uint64_t kid)
{
	for (size_t i = 0; i < l->n_missing; i++)
		if (l->missing[i] == kid)
			return true;
	return false;
}

/* The signer a self-signature of @k is checked with. */
static int32_t self_signer(const struct loader *l, const struct ksp_pgp_key *k)
{
	uint64_t kid = kid64(k->primary.keyid);

	for (int32_t c = l->buckets[bucket_of(l, kid)]; c >= 0; c = l->signers[c].next)
		if (l->signers[c].kid == kid && l->signers[c].fpr_len == k->primary.fpr_len &&
		    memcmp(l->signers[c].fpr, k->primary.fpr, k->primary.fpr_len) == 0)
			return c;
	return -1;
}

/* Jobs for batch @b (no thread is checking signatures: this may grow the
 * signers). */
int ksp_wload_plan_jobs(struct loader *l, struct batch *b)
{
	int r = 0;

	b->n_jobs = 0;
	/* issuers that are not in the input but may be in the store */
	if (l->store_had_keys) {
		size_t before = l->n_signers;
		for (size_t i = 0; i < b->n_in && r == 0; i++) {
			const struct ksp_pgp_key *k = b->in[i];
			for (size_t u = 0; u < k->n_uids && r == 0; u++)
				for (size_t j = 0; j < k->uids[u].n_sigs && r == 0; j++) {
					const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
					uint64_t kid;
					if (!is_cert(s->type) || is_self(k, s) || ksp_wload_first_candidate(l, s) >= 0 ||
					    !issuer_kid(s, &kid) || was_missing(l, kid))
						continue;
					r = fetch_issuer(l, l->st_issuer, s);
					if (r == 0 && l->n_signers != before) {
						r = build_index(l);
						before = l->n_signers;
					} else if (r == 0) {
						if (grow((void **)&l->missing, &l->cap_missing, l->n_missing + 1,
							 sizeof(*l->missing)) < 0)
							return -ENOMEM;
						l->missing[l->n_missing++] = kid;
					}
				}
		}
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < b->n_in; i++) {
		const struct ksp_pgp_key *k = b->in[i];
		const struct ksp_pgp_pubkey *pk = &k->primary;
		int32_t self = self_signer(l, k);
		for (size_t j = 0; j < pk->n_sigs; j++)
			if (key_sig_wanted(k, &pk->sigs[j]) && (r = add_job(b, pk, NULL, &pk->sigs[j], self, true)) < 0)
				return r;
		for (size_t u = 0; u < k->n_uids; u++)
			for (size_t j = 0; j < k->uids[u].n_sigs; j++) {
				const struct ksp_pgp_sig *s = &k->uids[u].sigs[j];
				if (!is_cert(s->type))
					continue;
				bool own = is_self(k, s);
				if ((r = add_job(b, pk, &k->uids[u], s, own ? self : -1, own)) < 0)
					return r;
			}
	}
	/* every candidate signer of the batch, once, to be prepared on the
	 * threads before the signatures are checked */
	l->batch++;
	b->n_prep = 0;
	for (size_t i = 0; i < b->n_jobs; i++) {
		struct job *jb = &b->jobs[i];
		int32_t c = jb->is_self ? jb->self : ksp_wload_first_candidate(l, jb->sig);
		/* (kept for the threads: each lookup is a cache miss or two in
		 * tables of 10^6 signers; the chains do not change once a batch
		 * is planned, as only an issuer no signer matches is added) */
		jb->cand = c;
		for (; c >= 0; c = jb->is_self ? -1 : l->signers[c].next) {
			struct signer *s = &l->signers[c];
			if (!jb->is_self && !issuer_matches(s, jb->sig))
				continue;
			s->uses++;
			if (s->batch == l->batch)
				continue;
			s->batch = l->batch;
			if (grow((void **)&b->prep, &b->cap_prep, b->n_prep + 1, sizeof(*b->prep)) < 0)
				return -ENOMEM;
			b->prep[b->n_prep++] = c;
		}
	}
	return 0;
}

/*
 * Memory: a prepared Ed25519 key is compact (ksp_ed25519_pub, ~200 bytes),
 * made once and kept; its tables (2 KB, ~10% faster verifications, a
 * quarter of one to make) only for signers that have come up TABLES_USES
 * times, TABLES_MAX of them at most (the busiest signers of a heavy-tailed
 * web of trust come up early): 10^6 keys do not cost 2 GB.  Where the CPU
 * checks eight signatures at once (ed25519-x8.c), which makes its tables
 * in the lanes, none at all.
 */
#define TABLES_USES 3
#define TABLES_MAX 16384

/* The signer's key prepared for verification (once): 0 or -ENOMEM. */
int ksp_wload_signer_vkey(struct signer *s)
{
	struct ksp_pgp_pubkey pk;
	int r;

	if (s->vk_tried)
		return 0;
	s->vk_tried = true;
	/* the public part parses as it did in the index (a key that does not
	 * verifies nothing) */
	if (ksp_pgp_parse_pubkey(s->body, s->body_len, false, &pk) < 0)
		return 0;
	r = ksp_pgp_vkey_new(&pk, &s->vk);
	return r < 0 ? r : 0;
}

void ksp_wload_signer_fpr_hex(const struct signer *s, char out[65])
{
	hex_encode(s->fpr, s->fpr_len, out);
}

/* ksp_pgp_vkey_new_many() for who[0..m): 0 or -ENOMEM */
static int vkeys_make(struct signer **who, const struct ksp_pgp_pubkey *const *pp, size_t m)
{
	struct ksp_pgp_vkey *vk[16];
	int rc[16], r = 0;

	ksp_pgp_vkey_new_many(pp, m, vk, rc);
	for (size_t j = 0; j < m; j++) {
		who[j]->vk = vk[j];
		if (rc[j] < 0)
			r = rc[j];
	}
	return r;
}

/* The keys of the signers sg[0..n) not prepared yet, together (Ed25519
 * ones eight at a time where the CPU can): 0 or -ENOMEM. */
static int signer_vkeys(struct signer *const *sg, size_t n)
{
	struct ksp_pgp_pubkey pk[16];
	const struct ksp_pgp_pubkey *pp[16];
	struct signer *who[16];
	size_t m = 0;
	int r = 0, r2;

	for (size_t i = 0; i < n; i++) {
		struct signer *s = sg[i];

		if (s->vk_tried)
			continue;
		s->vk_tried = true;
		/* as ksp_wload_signer_vkey() */
		if (ksp_pgp_parse_pubkey(s->body, s->body_len, false, &pk[m]) < 0)
			continue;
		pp[m] = &pk[m];
		who[m++] = s;
		if (m == ARRAY_SIZE(pk)) {
			r2 = vkeys_make(who, pp, m);
			r = r2 < 0 ? r2 : r;
			m = 0;
		}
	}
	if (m == 0)
		return r;
	r2 = vkeys_make(who, pp, m);
	return r2 < 0 ? r2 : r;
}

/* A prepared signer's tables, if it earns them (see TABLES_MAX). */
static void prep_tables(struct loader *l, struct signer *s)
{
	int r;

	if (s->vk && !l->x8 && s->uses >= TABLES_USES && atomic_load(&l->n_tables) < TABLES_MAX) {
		r = ksp_pgp_vkey_add_tables(s->vk);
		if (r < 0)
			atomic_store(&l->prep_err, r);
		else if (r > 0 && atomic_fetch_add(&l->n_tables, 1) >= TABLES_MAX) {
			/* another thread took the last place */
			ksp_pgp_vkey_drop_tables(s->vk);
			atomic_fetch_sub(&l->n_tables, 1);
		}
	}
}

static void run_job(struct loader *l, struct job *jb)
{
	int best = KSP_VERIFY_NO_ISSUER;
	int32_t c = jb->cand;

	for (; c >= 0; c = jb->is_self ? -1 : l->signers[c].next) {
		const struct signer *s = &l->signers[c];
		int r;

		if (!jb->is_self && !issuer_matches(s, jb->sig))
			continue;
		r = s->vk ? ksp_pgp_verify_with(s->vk, jb->target, jb->uid, NULL, jb->sig) : KSP_VERIFY_UNSUPPORTED;
		if (r == KSP_VERIFY_GOOD) {
			jb->by = c;
			best = r;
			break;
		}
		if (r < 0)
			r = KSP_VERIFY_UNSUPPORTED; /* out of memory: not checked */
		if (best == KSP_VERIFY_NO_ISSUER || r == KSP_VERIFY_BAD)
			best = r;
	}
	jb->res = (int8_t)best;
}

/* The only signer @jb can be checked with, -1 when none or several. */
static int32_t only_candidate(const struct loader *l, const struct job *jb)
{
	int32_t c, other;

	if (jb->is_self)
		return jb->self;
	c = jb->cand;
	if (c < 0)
		return -1;
	for (other = l->signers[c].next; other >= 0; other = l->signers[other].next)
		if (issuer_matches(&l->signers[other], jb->sig))
			return -1;
	return c;
}


/*
 * jobs[i .. e): as run_job() each, except that the Ed25519 signatures of a
 * job with one possible signer are checked together at the end, eight at a
 * time where the CPU can (ksp_pgp_edcheck_run).
 */
static void run_chunk(struct loader *l, size_t i, size_t e)
{
	struct ksp_pgp_edcheck ec[CHUNK];
	int8_t res[CHUNK];
	size_t at[CHUNK], n = 0;
	int32_t by[CHUNK];

	for (; i < e; i++) {
		struct job *jb = &l->vb->jobs[i];
		int32_t c = only_candidate(l, jb);
		int r;

		if (c < 0 || l->signers[c].vk == NULL || n == CHUNK) {
			run_job(l, jb);
			continue;
		}
		r = ksp_pgp_verify_defer(l->signers[c].vk, jb->target, jb->uid, NULL, jb->sig, &ec[n]);
		if (r == KSP_VERIFY_DEFERRED) {
			at[n] = i;
			by[n++] = c;
			continue;
		}
		if (r == KSP_VERIFY_GOOD)
			jb->by = c;
		else if (r < 0)
			r = KSP_VERIFY_UNSUPPORTED; /* out of memory: not checked */
		jb->res = (int8_t)r;
	}
	if (n == 0)
		return;
	atomic_fetch_add(&l->n_lanes, ksp_pgp_edcheck_run(ec, n, res));
	for (size_t k = 0; k < n; k++) {
		struct job *jb = &l->vb->jobs[at[k]];

		jb->res = res[k];
		if (res[k] == KSP_VERIFY_GOOD)
			jb->by = by[k];
	}
}

/* The signers of l->vb->prep, as many as this thread takes. */
static void prep_some(struct loader *l)
{
	const struct batch *b = l->vb;

	for (;;) {
		size_t i = atomic_fetch_add(&l->next_prep, 16);
		if (i >= b->n_prep)
			break;
		size_t e = i + 16 < b->n_prep ? i + 16 : b->n_prep;
		struct signer *sg[16];
		int r;

		for (size_t j = i; j < e; j++)
			sg[j - i] = &l->signers[b->prep[j]];
		r = signer_vkeys(sg, e - i);
		if (r < 0)
			atomic_store(&l->prep_err, r);
		for (size_t j = 0; j < e - i; j++)
			prep_tables(l, sg[j]);
		atomic_fetch_add(&l->prep_done, e - i);
	}
	/* no signature before every signer is ready (the others' last
	 * few take a moment) */
	while (atomic_load(&l->prep_done) < b->n_prep)
		sched_yield();
}

/* The next CHUNK jobs of batch @b not taken by another thread, run:
 * the end of what was run, 0 when none was left. */
static size_t run_next_chunk(struct loader *l, const struct batch *b)
{
	size_t i = atomic_fetch_add(&l->next_job, CHUNK), e;

	if (i >= b->n_jobs)
		return 0;
	e = i + CHUNK < b->n_jobs ? i + CHUNK : b->n_jobs;
	run_chunk(l, i, e);
	return e;
}

static void *verify_worker(void *data)
{
	struct loader *l = data;
	const struct batch *b = l->vb;
	uint64_t t0 = thread_ns();

	prep_some(l);
	while (run_next_chunk(l, b) > 0)
		;
	atomic_fetch_add(&l->check_ns, thread_ns() - t0);
	return NULL;
}

/* Batch @b's signatures checked by ksp_get_threads() - 1 threads, from
 * now on; the calling thread joins them in ksp_wload_verify_finish(). */
void ksp_wload_verify_start(struct loader *l, struct batch *b)
{
	unsigned nt = ksp_get_threads(l->ctx);

	l->vb = b;
	l->started = 0;
	l->n_checked += b->n_jobs;
	atomic_store(&l->next_prep, 0);
	atomic_store(&l->prep_done, 0);
	atomic_store(&l->prep_err, 0);
	atomic_store(&l->next_job, 0);
	if (nt > ARRAY_SIZE(l->th) + 1)
		nt = ARRAY_SIZE(l->th) + 1;
	if (b->n_jobs < 4 * CHUNK)
		nt = 1;
	for (unsigned t = 1; t < nt; t++) {
		if (pthread_create(&l->th[l->started], NULL, verify_worker, l) != 0)
			break; /* fewer threads: the work still gets done */
		l->started++;
	}
}

void ksp_wload_verify_join(struct loader *l)
{
	for (unsigned t = 0; t < l->started; t++)
		pthread_join(l->th[t], NULL);
	l->started = 0;
}

/* The calling thread checks what is left of the batch (and reports
 * progress), then waits for the others: 0 or a negative errno. */
int ksp_wload_verify_finish(struct loader *l)
{
	const struct batch *b = l->vb;
	size_t last = 0;
	uint64_t t0;

	if (b == NULL)
		return 0;
	t0 = thread_ns();
	prep_some(l);
	for (size_t e; (e = run_next_chunk(l, b)) > 0;) {
		if (e - last >= 4096) {
			ksp_progress(l->ctx, "verifying signatures", e, b->n_jobs);
			last = e;
		}
	}
	atomic_fetch_add(&l->check_ns, thread_ns() - t0);
	ksp_wload_verify_join(l);
	l->vb = NULL;
	if (b->n_jobs)
		ksp_progress(l->ctx, "verifying signatures", b->n_jobs, b->n_jobs);
	return atomic_load(&l->prep_err);
}
