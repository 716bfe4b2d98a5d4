// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wsnap-dump [--build] [--time] STORE: the graph snapshot of STORE
 * (wot-snap.h) as text, by fingerprint and user ID text, each list sorted,
 * so that two stores of the same keys (a reload and a fresh load, whose
 * row ids differ) give the same lines when their snapshots say the same.
 * --build: the store is opened immutable (nothing written beside it),
 * through a link in a new temporary folder, so that its snapshot file is
 * not found: the snapshot is built, in memory; --time: the CPU
 * time and peak memory of getting it, on stderr.  For tests/cli/T568 and
 * bench/results-reload.md (issue 38).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include <sys/resource.h>

#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"

static void hexs(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", (unsigned char)p[i]);
}

/* the text of user ID @uidx (its bind's, @ub: uidx -> bind) */
static const char *uid_text_of(const struct ksp_wsnap *s, const uint32_t *ub, uint32_t uidx, size_t *len)
{
	if (uidx < s->n_uids && ub[uidx] < s->n_binds)
		return ksp_wsnap_bind_text(s, &s->binds[ub[uidx]], len);
	*len = 0;
	return "";
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* one line per item, through sort(1) by the caller's pipe: printed here
 * with a section tag first */
static void dump(const struct ksp_wsnap *s)
{
	uint32_t *ub = malloc((s->n_uids + 1) * sizeof(*ub));

	if (ub == NULL)
		exit(2);
	memset(ub, 0xff, (s->n_uids + 1) * sizeof(*ub));
	for (uint32_t b = 0; b < s->n_binds; b++)
		if (s->binds[b].uidx < s->n_uids)
			ub[s->binds[b].uidx] = b;
	printf("n %u uids %u m %llu binds %u certs %llu outs %llu weak %llu\n", s->n, s->n_uids,
	       (unsigned long long)s->m, s->n_binds, (unsigned long long)s->n_certs, (unsigned long long)s->n_outs,
	       (unsigned long long)s->n_weak);
	for (uint32_t v = 0; v < s->n; v++) {
		const struct ksp_wsnap_node *k = &s->nodes[v];
		struct ksp_wsnap_selfsig h;
		printf("key %s %lld %lld %lld %u %u %u", ksp_wsnap_fpr(s, v), (long long)k->created,
		       (long long)k->expires, (long long)k->revoked, k->algo, k->bits, k->flags);
		for (uint32_t i = 0; ksp_wsnap_key_selfsig(s, k, i, &h); i++)
			printf(" [%lld %lld %lld %lld]", (long long)h.created, (long long)h.key_expires,
			       (long long)h.until, (long long)h.hash);
		printf("\n");
		for (uint32_t bi = s->bind_off[v]; bi < s->bind_off[v + 1]; bi++) {
			const struct ksp_wsnap_bind *b = &s->binds[bi];
			size_t len;
			const char *t = ksp_wsnap_bind_text(s, b, &len);
			printf("bind %s ", ksp_wsnap_fpr(s, v));
			hexs(t, len);
			printf(" %lld %u %s %lld %lld %lld %lld %lld %lld %u", (long long)b->revoked, b->flags,
			       b->uidx == UINT32_MAX ? "attr" : "uid", (long long)b->ss[0], (long long)b->ss[1],
			       (long long)b->ss[2], (long long)b->ss[3], (long long)b->ss_exp_created,
			       (long long)b->ss_exp_until, b->ss_exp_hash);
			if (b->uidx != UINT32_MAX)
				printf(" uidrev %lld", (long long)s->uids[b->uidx].revoked);
			printf("\n");
			for (uint32_t ci = s->cert_off[bi]; ci < s->cert_off[bi + 1]; ci++) {
				const struct ksp_wsnap_cert *c = &s->certs[ci];
				const char *re;
				printf("cert %s ", ksp_wsnap_fpr(s, v));
				hexs(t, len);
				printf(" by %s %u %u %u %u %u %lld %lld", ksp_wsnap_fpr(s, c->issuer), c->type, c->hash,
				       c->depth, c->amount, c->flags, (long long)c->created, (long long)c->expires);
				for (unsigned i = 0; (re = ksp_wsnap_cert_regex(s, c, i)) != NULL; i++) {
					printf(" re:");
					hexs(re, strlen(re));
				}
				printf("\n");
			}
		}
		for (uint32_t i = s->gout_off[v]; i < s->gout_off[v + 1]; i++)
			printf("out %s %s %lld\n", ksp_wsnap_fpr(s, v), ksp_wsnap_fpr(s, s->outs[i].v),
			       (long long)s->outs[i].created);
		for (uint32_t i = s->out_off[v]; i < s->out_off[v + 1]; i++) {
			const struct ksp_wsnap_edge *e = &s->edges[i];
			size_t len;
			const char *t = uid_text_of(s, ub, e->uidx, &len);
			printf("edge %s %s ", ksp_wsnap_fpr(s, e->u), ksp_wsnap_fpr(s, e->v));
			hexs(t, len);
			printf(" %u %lld %lld %lld\n", e->flags, (long long)e->created, (long long)e->expires,
			       (long long)e->revoked);
		}
		for (uint32_t i = s->in_off[v]; i < s->in_off[v + 1]; i++)
			printf("in %s %s\n", ksp_wsnap_fpr(s, v), ksp_wsnap_fpr(s, s->edges[s->in_eid[i]].u));
	}
	for (uint64_t i = 0; i < s->n_weak; i++)
		printf("weak %s %s\n", ksp_wsnap_fpr(s, s->edges[s->weak[i]].u), ksp_wsnap_fpr(s, s->edges[s->weak[i]].v));
	free(ub);
}

int main(int argc, char **argv)
{
	struct ksp_ctx *ctx = NULL;
	struct ksp_store *store = NULL;
	struct ksp_wsnap *s = NULL;
	bool build = false, timed = false;
	const char *path = NULL;
	double t0;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--build") == 0)
			build = true;
		else if (strcmp(argv[i], "--time") == 0)
			timed = true;
		else
			path = argv[i];
	}
	if (path == NULL) {
		fprintf(stderr, "usage: wsnap-dump [--build] [--time] STORE\n");
		return 2;
	}
	if (build) {
		char real[PATH_MAX], *dir;
		static char tmpl[] = "/tmp/wsnap-dump.XXXXXX", link[PATH_MAX];
		if (realpath(path, real) == NULL || (dir = mkdtemp(tmpl)) == NULL) {
			fprintf(stderr, "wsnap-dump: %s: %s\n", path, strerror(errno));
			return 2;
		}
		snprintf(link, sizeof(link), "%s/store.db", dir);
		if (symlink(real, link) < 0) {
			fprintf(stderr, "wsnap-dump: %s: %s\n", link, strerror(errno));
			return 2;
		}
		path = link;
	}
	if (ksp_new(&ctx) < 0 || ksp_store_open(ctx, path, build ? KSP_STORE_IMMUTABLE : 0, &store) < 0) {
		fprintf(stderr, "wsnap-dump: %s: cannot open the store: %s\n", path,
			ctx && ksp_get_error(ctx) ? ksp_get_error(ctx) : "error");
		return 2;
	}
	t0 = cpu_now();
	r = ksp_wsnap_get(store, &s);
	if (r < 0) {
		fprintf(stderr, "wsnap-dump: %s: no graph snapshot: %s\n", path, strerror(-r));
		return 2;
	}
	if (timed) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "wsnap-dump: %s: snapshot in %.2f CPU-s, max RSS %ld MB (%u keys, %llu edges)\n", path,
			cpu_now() - t0, ru.ru_maxrss / 1024, s->n, (unsigned long long)s->m);
	} else {
		dump(s);
	}
	ksp_store_unref(store);
	ksp_unref(ctx);
	if (build) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", path);
		unlink(path);
		*strrchr(dir, '/') = '\0';
		rmdir(dir);
	}
	return 0;
}
