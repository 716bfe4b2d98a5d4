// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp health: who will lose their trust paths, why, and what repairs it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "cli/trust-opts.h"
#include "shared/util.h"

static int run_health(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_health = {
	.name = "health",
	.run = run_health,
	.usage = CLI_TRUST_USAGE "\n"
		 "       [--repair-at +30d|+90d|+365d|no-sha1] [--party] [--all] [--top N]\n"
		 "       [--no-spof] [--no-repair] [--weak --signer FPR] [--plan-csv FILE] [--svg FILE] [--json]",
	.help = "trust health: who loses their paths to the core, and the repair",
	.details = "For every key that is not a core key: the vertex-disjoint paths from the\n"
		   "core now, at +30, +90 and +365 days (keys and certifications expiring by\n"
		   "then dropped) and with MD5/SHA-1/RIPEMD-160 certifications dropped\n"
		   "(no-sha1); the keys below K at each horizon, and what breaks on their\n"
		   "paths. Every verdict is the one 'ksp trust --at' gives. Then the repair\n"
		   "plan (new certifications, the fewest or with a lower bound), the owners who\n"
		   "only need to extend their expiry, the single points of failure and the\n"
		   "keys that carry most paths. Exit status: 0 no key falls below K by the\n"
		   "repair horizon, 1 some do, 2 error. The report is defined on the paths\n"
		   "model: a policy naming gnupg or sequoia is refused (--model paths after\n"
		   "--policy analyses with the paths model).\n\n"
		   "Options:\n" CLI_TRUST_HELP
		   "  --repair-at H     the horizon the repair plan is for (default +90d)\n"
		   "  --party           rank the pairs of the store's party participants by the\n"
		   "                    keys their certifying each other brings to K, and by\n"
		   "                    the distances from the core it shortens\n"
		   "  --all             a row for every key, not only those below K\n"
		   "  --top N           rows of each ranking shown (default 10; 0 = all)\n"
		   "  --no-spof         skip the single points of failure\n"
		   "  --no-repair       skip the repair plan\n"
		   "  --weak            with --signer FPR: the signer's MD5/SHA-1/RIPEMD-160\n"
		   "                    certifications and the core paths each carries\n"
		   "  --plan-csv FILE   the next party from the repair plan: a registration CSV\n"
		   "                    of its signers and targets (ksp party add --csv FILE\n"
		   "                    KEYRING), with who certifies whom as '#' lines\n"
		   "  --svg FILE        a picture: the forecast, and the core with the falling\n"
		   "                    keys, single points of failure, carriers and the plan\n",
	.group = KSP_GROUP_ADMIN,
};

static const char *break_text(int kind)
{
	switch (kind) {
	case KSP_HEALTH_KEY_EXPIRES: return "key-expires";
	case KSP_HEALTH_KEY_REVOKED: return "key-revoked";
	case KSP_HEALTH_CERT_EXPIRES: return "certification-expires";
	case KSP_HEALTH_CERT_WEAK: return "certification-weak-hash";
	case KSP_HEALTH_CERT_REVOKED: return "certification-revoked";
	case KSP_HEALTH_UID_REVOKED: return "uid-revoked";
	case KSP_HEALTH_CERT_TOO_OLD: return "certification-too-old";
	default: return "?";
	}
}

static const char *hash_name(int algo)
{
	switch (algo) {
	case 1: return "MD5";
	case 2: return "SHA-1";
	case 3: return "RIPEMD-160";
	case 8: return "SHA-256";
	case 9: return "SHA-384";
	case 10: return "SHA-512";
	case 11: return "SHA-224";
	default: return "?";
	}
}

/* The primary user ID of @fpr, escaped for the terminal (hostile input),
 * or "?" (never NULL; free it). */
static char *name_of(struct ksp_store *store, const char *fpr)
{
	char *uid = NULL, *e = NULL;
	size_t len = 0;

	if (ksp_store_get_key_uid(store, fpr, &uid, &len) == 0)
		e = cli_escape(uid, len, KSP_ESCAPE_TERMINAL);
	free(uid);
	return e ? e : strdup("?");
}

/* "  (NAME)" or "  (NAME -> NAME)" after a line that names keys. */
static void print_names_sep(struct ksp_store *store, const char *a, const char *b, const char *sep)
{
	char *na = name_of(store, a), *nb = b ? name_of(store, b) : NULL;

	if (b)
		printf("  (%s %s %s)", na ? na : "?", sep, nb ? nb : "?");
	else
		printf("  (%s)", na ? na : "?");
	free(na);
	free(nb);
}

static void print_names(struct ksp_store *store, const char *a, const char *b)
{
	print_names_sep(store, a, b, "->");
}

static void print_break(struct ksp_store *store, const struct ksp_health *h, size_t k, unsigned hz, size_t i)
{
	const char *a, *b, *uid;
	int kind, path;
	int64_t when;
	size_t len = 0;
	char date[32], *e;

	ksp_health_get_break(h, k, hz, i, &kind, &a, &b, &when, &path);
	format_date(when, date, sizeof(date));
	switch (kind) {
	case KSP_HEALTH_KEY_EXPIRES:
		printf("      path %d: key %s expires on %s", path + 1, a, date);
		b = NULL;
		break;
	case KSP_HEALTH_KEY_REVOKED:
		printf("      path %d: key %s is revoked on %s", path + 1, a, date);
		b = NULL;
		break;
	case KSP_HEALTH_CERT_EXPIRES:
		printf("      path %d: %s's certification of %s expires on %s", path + 1, a, b, date);
		break;
	case KSP_HEALTH_CERT_WEAK:
		printf("      path %d: %s's certification of %s (%s) is MD5/SHA-1/RIPEMD-160", path + 1, a, b, date);
		break;
	case KSP_HEALTH_CERT_REVOKED:
		printf("      path %d: %s's certification of %s is revoked on %s", path + 1, a, b, date);
		break;
	case KSP_HEALTH_UID_REVOKED:
		/* the user ID itself (hostile bytes), not a fingerprint */
		uid = ksp_health_get_break_uid(h, k, hz, i, &len);
		e = cli_escape(uid ? uid : "", uid ? len : 0, KSP_ESCAPE_TERMINAL);
		printf("      path %d: the user ID \"%s\" of %s, certified by %s, is revoked on %s", path + 1,
		       e ? e : "?", b, a, date);
		free(e);
		break;
	default:
		printf("      path %d: %s's certification of %s becomes too old on %s", path + 1, a, b, date);
		break;
	}
	print_names(store, a, b);
	printf("\n");
}

/* one horizon of --json: {"label","at","time","below":[...],"details":[...]} */
static json_t *horizon_json(const struct ksp_health *h, unsigned hz)
{
	size_t nk = ksp_health_get_key_count(h);
	json_t *below = json_array(), *details = json_array();
	char date[32];
	int64_t at;
	const char *label = ksp_health_get_horizon(h, hz, &at);

	format_date(at, date, sizeof(date));
	for (size_t k = 0; below && details && k < nk; k++) {
		const char *m;
		json_t *breaks;

		if (!ksp_health_is_below(h, k, hz))
			continue;
		cj_push(below, cj_strz(ksp_health_get_key(h, k)));
		m = ksp_health_get_message(h, k, hz);
		breaks = json_array();
		for (size_t i = 0; breaks && i < ksp_health_get_break_count(h, k, hz); i++) {
			const char *a, *b;
			int kind, path;
			int64_t when;
			char d[32];

			ksp_health_get_break(h, k, hz, i, &kind, &a, &b, &when, &path);
			format_date(when, d, sizeof(d));
			cj_push(breaks, json_pack("{s:s,s:s,s:s,s:s,s:i}", "kind", break_text(kind), "signer", a, "signee",
						  b, "date", d, "path", path + 1));
		}
		cj_push(details, json_pack("{s:s,s:i,s:o,s:o}", "fingerprint", ksp_health_get_key(h, k), "paths",
					   ksp_health_get_paths(h, k, hz), "message", cj_strz(m ? m : ""), "breaks",
					   breaks));
	}
	return json_pack("{s:s,s:s,s:I,s:o,s:o}", "label", label, "at", date, "time", (json_int_t)at, "below", below,
			 "details", details);
}

/* the members after "carriers": --party's pairs, --weak's list */
static void party_weak_json(json_t *o, const struct ksp_health *h, bool party, bool weak, const char *signer)
{
	if (party) {
		json_t *pairs = json_array(), *by = json_array();

		for (size_t i = 0; pairs && by && i < ksp_health_get_pair_count(h); i++) {
			const char *a, *b;
			unsigned hops, n;

			ksp_health_get_pair(h, i, &a, &b, &n);
			cj_push(pairs, json_pack("{s:s,s:s,s:I}", "a", a, "b", b, "keys", (json_int_t)n));
			ksp_health_get_pair_by_distance(h, i, &a, &b, &hops, &n);
			cj_push(by, json_pack("{s:s,s:s,s:I,s:I}", "a", a, "b", b, "hops", (json_int_t)hops, "keys",
					      (json_int_t)n));
		}
		cj_set(o, "pairs", pairs);
		cj_set(o, "pairs_by_distance", by);
	}
	if (weak) {
		json_t *list = json_array();

		for (size_t i = 0; list && i < ksp_health_get_weak_count(h); i++) {
			const char *t, *u;
			size_t ulen;
			int64_t created;
			int hash;
			unsigned carries;
			char date[32];

			ksp_health_get_weak(h, i, &t, &u, &ulen, &created, &hash, &carries);
			format_date(created, date, sizeof(date));
			cj_push(list, json_pack("{s:s,s:o,s:s,s:s,s:I}", "target", t, "uid", cj_str(u ? u : "", u ? ulen : 0),
						"created", date, "hash", hash_name(hash), "carries", (json_int_t)carries));
		}
		cj_set(o, "signer", cj_strz(signer));
		cj_set(o, "weak", list);
	}
}

/* Prints the report; 0 or -ENOMEM */
static int print_json(const struct ksp_health *h, const struct ksp_trust_policy *pol, bool all, bool party,
		      bool weak, const char *signer, unsigned rh)
{
	size_t nk = ksp_health_get_key_count(h), lower;
	json_t *o = json_object(), *a;
	char date[32];
	bool minimal;

	if (o == NULL)
		return -ENOMEM;
	cj_set(o, "format_version", cj_int(1));
	cj_set(o, "min_paths", cj_int(ksp_trust_policy_get_min_paths(pol)));
	cj_set(o, "max_depth", cj_int(ksp_trust_policy_get_max_depth(pol)));
	cj_set(o, "keys", cj_int(nk));
	cj_set(o, "queries", cj_int(ksp_health_get_queries(h)));
	a = json_array();
	for (unsigned hz = 0; a && hz < KSP_HEALTH_HORIZONS; hz++)
		cj_push(a, horizon_json(h, hz));
	cj_set(o, "horizons", a);
	if (all) {
		a = json_array();
		for (size_t k = 0; a && k < nk; k++) {
			json_t *e = json_pack("{s:s}", "fingerprint", ksp_health_get_key(h, k));

			for (unsigned hz = 0; e && hz < KSP_HEALTH_HORIZONS; hz++)
				cj_set(e, ksp_health_get_horizon(h, hz, NULL), cj_int(ksp_health_get_paths(h, k, hz)));
			cj_push(a, e);
		}
		cj_set(o, "paths", a);
	}
	ksp_health_get_repair_bound(h, &lower, &minimal);
	cj_set(o, "repair_at", cj_strz(ksp_health_get_horizon(h, rh, NULL)));
	cj_set(o, "repair_minimal", cj_bool(minimal));
	cj_set(o, "repair_lower_bound", cj_int(lower));
	a = json_array();
	for (size_t i = 0; a && i < ksp_health_get_repair_count(h); i++) {
		const char *s, *t;
		unsigned n, more;
		bool renewal;

		ksp_health_get_repair(h, i, &s, &t, &n);
		ksp_health_get_repair_detail(h, i, &more, &renewal);
		cj_push(a, json_pack("{s:s,s:s,s:I,s:I,s:b}", "signer", s, "target", t, "repairs", (json_int_t)n, "paths",
				     (json_int_t)more, "renewal", renewal));
	}
	cj_set(o, "repair", a);
	cj_set(o, "unrepaired", cj_int(ksp_health_get_unrepaired_count(h)));
	a = json_array();
	for (size_t i = 0; a && i < ksp_health_get_extend_count(h); i++) {
		const char *f;
		unsigned n;
		int64_t exp;

		ksp_health_get_extend(h, i, &f, &exp, &n);
		format_date(exp, date, sizeof(date));
		cj_push(a, json_pack("{s:s,s:s,s:I}", "fingerprint", f, "expires", date, "repairs", (json_int_t)n));
	}
	cj_set(o, "extend", a);
	cj_set(o, "spof_exact", cj_bool(ksp_health_spof_is_exact(h)));
	a = json_array();
	for (size_t i = 0; a && i < ksp_health_get_spof_count(h); i++) {
		const char *f;
		unsigned cuts, carries;

		ksp_health_get_spof(h, i, &f, &cuts, &carries);
		cj_push(a, json_pack("{s:s,s:I,s:I}", "fingerprint", f, "cuts", (json_int_t)cuts, "carries",
				     (json_int_t)carries));
	}
	cj_set(o, "spof", a);
	a = json_array();
	for (size_t i = 0; a && i < ksp_health_get_carrier_count(h); i++) {
		const char *f;
		unsigned n;

		ksp_health_get_carrier(h, i, &f, &n);
		cj_push(a, json_pack("{s:s,s:I}", "fingerprint", f, "paths", (json_int_t)n));
	}
	cj_set(o, "carriers", a);
	party_weak_json(o, h, party, weak, signer);
	return cj_print(o);
}

static void print_uid(struct ksp_store *store, const char *fpr)
{
	char *uid = NULL, *e;
	size_t len = 0;

	if (ksp_store_get_key_uid(store, fpr, &uid, &len) < 0)
		return;
	e = cli_escape(uid, len, KSP_ESCAPE_TERMINAL);
	printf("  %s", e ? e : "?");
	free(e);
	free(uid);
}

/* "  ... N more (--top 0 shows them all)" when a list was cut. */
static void print_cut(size_t listed, size_t shown)
{
	if (listed > shown)
		printf("  ... %zu more (--top 0 shows them all)\n", listed - shown);
}

/* When dropping the weak hashes loses more keys than any date: what
 * --weak --signer and --repair-at no-sha1 give, for the signer whose weak
 * certifications break most keys' paths. */
static void print_sha1_hint(struct ksp_store *store, const struct ksp_health *h)
{
	size_t nk = ksp_health_get_key_count(h), ns = ksp_health_get_below_count(h, KSP_HEALTH_NO_SHA1), most = 0;
	const char *top = NULL;
	unsigned top_n = 0;

	for (unsigned hz = 0; hz < KSP_HEALTH_NO_SHA1; hz++)
		if (ksp_health_get_below_count(h, hz) > most)
			most = ksp_health_get_below_count(h, hz);
	if (ns <= most)
		return;
	/* the signer of the most weak certifications on falling keys' paths */
	for (size_t k = 0; k < nk; k++)
		for (size_t i = 0; i < ksp_health_get_break_count(h, k, KSP_HEALTH_NO_SHA1); i++) {
			const char *a;
			int kind;
			unsigned n = 0;
			ksp_health_get_break(h, k, KSP_HEALTH_NO_SHA1, i, &kind, &a, NULL, NULL, NULL);
			if (kind != KSP_HEALTH_CERT_WEAK || (top && strcmp(a, top) == 0))
				continue;
			for (size_t k2 = 0; k2 < nk; k2++)
				for (size_t j = 0; j < ksp_health_get_break_count(h, k2, KSP_HEALTH_NO_SHA1); j++) {
					const char *a2;
					int kind2;
					ksp_health_get_break(h, k2, KSP_HEALTH_NO_SHA1, j, &kind2, &a2, NULL, NULL, NULL);
					n += kind2 == KSP_HEALTH_CERT_WEAK && strcmp(a, a2) == 0;
				}
			if (n > top_n) {
				top = a;
				top_n = n;
			}
		}
	printf("\nWithout MD5/SHA-1/RIPEMD-160 certifications %zu key%s below K, more than at any date:\n"
	       "  'ksp health --repair-at no-sha1' gives the certifications that repair it",
	       ns, ns == 1 ? " is" : "s are");
	if (top) {
		printf(", and\n  'ksp health --weak --signer %s' the weak certifications to make\n"
		       "  again of the signer on the most falling keys' paths (%u)",
		       top, top_n);
		print_names(store, top, NULL);
	}
	printf("\n");
}

/* The repair plan, then the certifications to make grouped per signer,
 * each with the command that makes it. */
static void print_repair(struct ksp_store *store, const struct ksp_health *h, unsigned rh, size_t top)
{
	size_t n = ksp_health_get_repair_count(h), lower = 0, shown = 0;
	bool minimal = false;
	char date[32];

	ksp_health_get_repair_bound(h, &lower, &minimal);
	printf("\nRepair plan for %s: %zu new certification%s", ksp_health_get_horizon(h, rh, NULL), n,
	       n == 1 ? "" : "s");
	if (n == 0)
		printf("\n");
	else if (minimal)
		printf(" (the fewest; the expiries as they are)\n");
	else
		printf(" (greedy; at least %zu are needed; the expiries as they are)\n", lower);
	for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
		const char *s, *t;
		unsigned c, more;
		bool renewal;
		ksp_health_get_repair(h, i, &s, &t, &c);
		ksp_health_get_repair_detail(h, i, &more, &renewal);
		if (c)
			printf("  %s certifies %s: brings %u key%s back to K", s, t, c, c == 1 ? "" : "s");
		else
			printf("  %s certifies %s: one more path for %u key%s (K with the next ones)", s, t, more,
			       more == 1 ? "" : "s");
		if (renewal)
			printf(" [renewal]");
		print_names(store, s, t);
		printf("\n");
		shown++;
	}
	print_cut(n, shown);
	if (ksp_health_get_unrepaired_count(h))
		printf("  %zu falling key%s no candidate certification repairs\n", ksp_health_get_unrepaired_count(h),
		       ksp_health_get_unrepaired_count(h) == 1 ? "" : "s");
	if (n) {
		printf("Certifications to make, per signer (gpg makes a renewal of a certification\n"
		       "still valid only with --force-sign-key):\n");
		for (size_t i = 0; i < n; i++) {
			const char *s, *s2, *t;
			bool first = true;
			ksp_health_get_repair(h, i, &s, NULL, NULL);
			for (size_t j = 0; j < i && first; j++) {
				ksp_health_get_repair(h, j, &s2, NULL, NULL);
				first = strcmp(s, s2) != 0;
			}
			if (!first)
				continue;
			printf("  %s", s);
			print_uid(store, s);
			printf("\n");
			for (size_t j = i; j < n; j++) {
				bool renewal;
				char *nt;
				ksp_health_get_repair(h, j, &s2, &t, NULL);
				if (strcmp(s, s2) != 0)
					continue;
				ksp_health_get_repair_detail(h, j, NULL, &renewal);
				nt = name_of(store, t);
				printf("    certify %s (%s)\n      gpg --local-user %s%s --quick-sign-key %s\n", t, nt ? nt : "?", s,
				       renewal ? " --force-sign-key" : "", t);
				free(nt);
			}
		}
	}
	n = ksp_health_get_extend_count(h);
	if (n)
		printf("Owners who only need to extend their key's expiry:\n");
	for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
		const char *f;
		unsigned c;
		int64_t exp;
		ksp_health_get_extend(h, i, &f, &exp, &c);
		format_date(exp, date, sizeof(date));
		if (c)
			printf("  %s (expires %s): extending it keeps %u key%s at K", f, date, c, c == 1 ? "" : "s");
		else
			printf("  %s (expires %s): extending it alone keeps no key at K", f, date);
		print_uid(store, f);
		printf("\n");
	}
	print_cut(n, top && top < n ? top : n);
}

/* A CSV field: the escaped text, quoted, quotes doubled. */
static void csv_field(FILE *f, const char *s, size_t len)
{
	char *e = cli_escape(s, len, KSP_ESCAPE_TERMINAL);

	fputc('"', f);
	for (const char *p = e ? e : ""; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
	free(e);
}

/* --plan-csv: the plan's signers and targets as a registration CSV (name,
 * e-mail and fingerprint from the primary user ID), and the certifications
 * to make as comment lines. */
static int write_plan_csv(struct ksp_cli *cli, struct ksp_store *store, const struct ksp_health *h, unsigned rh,
			  const char *path)
{
	size_t n = ksp_health_get_repair_count(h), len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	struct atomic_file af;
	int r;

	if (f == NULL)
		return cli_fail(cli, -ENOMEM, "%s: cannot write the party's list", path);
	fprintf(f, "# ksp health: the next party, from the repair plan for %s (%zu certifications)\n",
		ksp_health_get_horizon(h, rh, NULL), n);
	for (size_t i = 0; i < n; i++) {
		const char *s, *t;
		bool renewal;
		ksp_health_get_repair(h, i, &s, &t, NULL);
		ksp_health_get_repair_detail(h, i, NULL, &renewal);
		fprintf(f, "# certify: %s certifies %s%s\n", s, t, renewal ? " (renewal: gpg --force-sign-key)" : "");
	}
	fprintf(f, "name,email,fingerprint\n");
	for (size_t i = 0; i < 2 * n; i++) {
		const char *x, *y;
		bool dup = false;
		char *uid = NULL;
		size_t ulen = 0;
		ksp_health_get_repair(h, i / 2, i % 2 ? NULL : &x, i % 2 ? &x : NULL, NULL);
		for (size_t j = 0; j < i && !dup; j++) {
			ksp_health_get_repair(h, j / 2, j % 2 ? NULL : &y, j % 2 ? &y : NULL, NULL);
			dup = strcmp(x, y) == 0;
		}
		if (dup)
			continue;
		if (ksp_store_get_key_uid(store, x, &uid, &ulen) < 0)
			ulen = 0;
		/* "Name <e-mail>": the e-mail between the last '<' and '>' */
		const char *lt = NULL, *gt = NULL;
		for (size_t k = 0; k < ulen; k++) {
			if (uid[k] == '<')
				lt = uid + k;
			else if (uid[k] == '>' && lt)
				gt = uid + k;
		}
		size_t name_len = lt && gt ? (size_t)(lt - uid) : ulen;
		while (name_len && uid[name_len - 1] == ' ')
			name_len--;
		csv_field(f, uid ? uid : "", name_len);
		fputc(',', f);
		csv_field(f, lt && gt ? lt + 1 : "", lt && gt ? (size_t)(gt - lt - 1) : 0);
		fprintf(f, ",%s\n", x);
		free(uid);
	}
	if (fclose(f) != 0) {
		free(buf);
		return cli_fail(cli, -ENOMEM, "%s: cannot write the party's list", path);
	}
	r = atomic_file_begin(&af, path, 0644);
	if (r >= 0)
		r = atomic_file_end(&af, write_all(af.fd, buf, len));
	free(buf);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot write the party's list (%s); the report is not affected", path,
				r == -EISDIR || r == -ENOTSUP ? output_strerror(r) : strerror(-r));
	return 0;
}

/* --svg: the forecast as the title; the core (gold), the keys that fall by
 * the repair horizon (red), the single points of failure (orange), the
 * carriers and the plan's keys, the certifications between them, the
 * plan's dashed. */
static int write_svg(struct ksp_cli *cli, struct ksp_store *store, const struct ksp_health *h, int64_t at, unsigned rh,
		     const char *path)
{
	size_t nk = ksp_health_get_key_count(h), cap = ksp_health_get_core_count(h) + nk + 64, n = 0;
	size_t np = ksp_health_get_repair_count(h);
	const char **fprs = calloc(cap, sizeof(*fprs)), **from = calloc(np ? np : 1, sizeof(*from)),
		   **to = calloc(np ? np : 1, sizeof(*to));
	unsigned *marks = calloc(cap, sizeof(*marks));
	struct ksp_graph *g = NULL;
	char *title = NULL, date[32];
	int r = -ENOMEM;

	if (fprs == NULL || from == NULL || to == NULL || marks == NULL)
		goto out;
	for (size_t i = 0; i < ksp_health_get_core_count(h); i++) {
		fprs[n] = ksp_health_get_core(h, i);
		marks[n++] = KSP_GRAPH_MARK_CORE;
	}
	for (size_t k = 0; k < nk && n < cap; k++)
		if (!ksp_health_is_below(h, k, KSP_HEALTH_NOW) && ksp_health_is_below(h, k, rh)) {
			fprs[n] = ksp_health_get_key(h, k);
			marks[n++] = KSP_GRAPH_MARK_FALLS;
		}
	for (size_t i = 0, shown = 0; i < ksp_health_get_spof_count(h) && shown < 10 && n < cap; i++) {
		unsigned cuts;
		ksp_health_get_spof(h, i, &fprs[n], &cuts, NULL);
		if (cuts) {
			marks[n++] = KSP_GRAPH_MARK_SPOF;
			shown++;
		}
	}
	for (size_t i = 0; i < ksp_health_get_carrier_count(h) && i < 10 && n < cap; i++) {
		ksp_health_get_carrier(h, i, &fprs[n], NULL);
		marks[n++] = KSP_GRAPH_MARK_PLAIN;
	}
	for (size_t i = 0; i < np && n + 2 <= cap; i++) {
		ksp_health_get_repair(h, i, &from[i], &to[i], NULL);
		fprs[n] = from[i];
		marks[n++] = KSP_GRAPH_MARK_PLAIN;
		fprs[n] = to[i];
		marks[n++] = KSP_GRAPH_MARK_PLAIN;
	}
	format_date(at, date, sizeof(date));
	if (asprintf(&title,
		     "Trust health at %s: keys at K now %zu, +30d %zu, +90d %zu, +365d %zu, no-sha1 %zu (of %zu); "
		     "gold: core, red: falls by %s, orange: single point of failure, dashed: the repair plan",
		     date, nk - ksp_health_get_below_count(h, 0), nk - ksp_health_get_below_count(h, 1),
		     nk - ksp_health_get_below_count(h, 2), nk - ksp_health_get_below_count(h, 3),
		     nk - ksp_health_get_below_count(h, 4), nk, ksp_health_get_horizon(h, rh, NULL)) < 0) {
		title = NULL;
		goto out;
	}
	/* the first mark of a key wins (ksp_graph_new_keys() takes it once) */
	r = ksp_graph_new_keys(store, at, 0, fprs, marks, n, from, to, np, title, 2000, &g);
	if (r == 0)
		r = ksp_graph_render_file(g, "svg", NULL, path);
out:
	free(fprs);
	free(from);
	free(to);
	free(marks);
	free(title);
	ksp_graph_free(g);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot draw the picture; the report is not affected", path);
	return 0;
}

/* Over 150 lines: the report's sections in order, each a few lines. */
static void print_table(struct ksp_store *store, const struct ksp_health *h, const struct ksp_trust_policy *pol,
			bool all, bool party, bool weak, const char *signer, unsigned rh, size_t top, unsigned flags)
{
	size_t nk = ksp_health_get_key_count(h), n;
	char date[32];
	int64_t at;

	ksp_health_get_horizon(h, 0, &at);
	format_date(at, date, sizeof(date));
	printf("Trust health of %zu keys (K = %d disjoint path%s of at most %d hop%s from the core) at %s\n\n", nk,
	       ksp_trust_policy_get_min_paths(pol), ksp_trust_policy_get_min_paths(pol) == 1 ? "" : "s",
	       ksp_trust_policy_get_max_depth(pol), ksp_trust_policy_get_max_depth(pol) == 1 ? "" : "s", date);
	printf("  horizon  date        below K\n");
	for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++) {
		const char *label = ksp_health_get_horizon(h, hz, &at);
		format_date(at, date, sizeof(date));
		printf("  %-8s %-11s %zu\n", label, date, ksp_health_get_below_count(h, hz));
	}
	print_sha1_hint(store, h);
	printf("\n%s (paths now, +30d, +90d, +365d, no-sha1):\n", all ? "Keys" : "Keys that are or fall below K");
	for (size_t k = 0; k < nk; k++) {
		bool any = false;
		for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++)
			any |= ksp_health_is_below(h, k, hz);
		if (!any && !all)
			continue;
		printf("  %s ", ksp_health_get_key(h, k));
		for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++)
			printf(" %d%s", ksp_health_get_paths(h, k, hz), ksp_health_is_below(h, k, hz) ? "*" : "");
		print_uid(store, ksp_health_get_key(h, k));
		printf("\n");
		if (ksp_health_is_below(h, k, 0)) {
			const char *m = ksp_health_get_message(h, k, 0);
			printf("    now: %s\n", m ? m : "not trusted");
			continue;
		}
		for (unsigned hz = 1; hz < KSP_HEALTH_HORIZONS; hz++) {
			if (!ksp_health_is_below(h, k, hz))
				continue;
			printf("    %s: %s\n", ksp_health_get_horizon(h, hz, NULL), ksp_health_get_message(h, k, hz));
			for (size_t i = 0; i < ksp_health_get_break_count(h, k, hz); i++)
				print_break(store, h, k, hz, i);
			/* the later horizons say the same, and more */
			break;
		}
	}
	if (flags & KSP_HEALTH_NO_REPAIR)
		printf("\nRepair plan: not made (--no-repair)\n");
	else
		print_repair(store, h, rh, top);
	if (flags & KSP_HEALTH_NO_SPOF) {
		printf("\nSingle points of failure: not computed (--no-spof)\n");
	} else {
		n = ksp_health_get_spof_count(h);
		printf("\nSingle points of failure (keys lost now: how many keys fall below K)%s:\n",
		       ksp_health_spof_is_exact(h) ? "" : " [work budget reached: the ranking is partial]");
		size_t shown = 0, listed = 0;
		for (size_t i = 0; i < n; i++) {
			const char *f;
			unsigned cuts, carries;
			ksp_health_get_spof(h, i, &f, &cuts, &carries);
			if (cuts == 0)
				continue;
			listed++;
			if (top && shown >= top)
				continue;
			printf("  %s cuts %u (on %u keys' paths)", f, cuts, carries);
			print_uid(store, f);
			printf("\n");
			shown++;
		}
		if (listed == 0)
			printf("  none\n");
		print_cut(listed, shown);
		n = ksp_health_get_carrier_count(h);
		printf("Keys that carry most paths (non-core keys on the paths found now):\n");
		for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
			const char *f;
			unsigned c;
			ksp_health_get_carrier(h, i, &f, &c);
			printf("  %s carries %u", f, c);
			print_uid(store, f);
			printf("\n");
		}
		print_cut(n, top && top < n ? top : n);
	}
	if (party) {
		n = ksp_health_get_pair_count(h);
		printf("\nParty pairs (certifying each other), by the keys below K now they bring to K:\n");
		for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
			const char *a, *b;
			unsigned c;
			ksp_health_get_pair(h, i, &a, &b, &c);
			if (c)
				printf("  %s <-> %s: %u key%s", a, b, c, c == 1 ? "" : "s");
			else
				printf("  %s <-> %s: no key brought to K", a, b);
			print_names_sep(store, a, b, "<->");
			printf("\n");
		}
		print_cut(n, top && top < n ? top : n);
		printf("Party pairs by the distances they shorten (certifications from the core,\n"
		       "L + 1 when farther): hops saved over all keys, keys brought closer:\n");
		for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
			const char *a, *b;
			unsigned hops, c;
			ksp_health_get_pair_by_distance(h, i, &a, &b, &hops, &c);
			if (hops)
				printf("  %s <-> %s: %u hop%s, %u key%s", a, b, hops, hops == 1 ? "" : "s", c,
				       c == 1 ? "" : "s");
			else
				printf("  %s <-> %s: no distance shortened", a, b);
			print_names_sep(store, a, b, "<->");
			printf("\n");
		}
		print_cut(n, top && top < n ? top : n);
	}
	if (weak) {
		n = ksp_health_get_weak_count(h);
		printf("\nWeak certifications by %s (%zu): re-certify those that carry paths\n", signer, n);
		for (size_t i = 0; i < n; i++) {
			const char *t, *u;
			size_t ulen;
			int64_t created;
			int hash;
			unsigned carries;
			char *e;
			ksp_health_get_weak(h, i, &t, &u, &ulen, &created, &hash, &carries);
			format_date(created, date, sizeof(date));
			e = cli_escape(u ? u : "", u ? ulen : 0, KSP_ESCAPE_TERMINAL);
			printf("  %s %s %s carries %u path%s \"%s\"\n", t, date, hash_name(hash), carries,
			       carries == 1 ? "" : "s", e ? e : "?");
			free(e);
		}
		/* the campaign: those that carry paths first (fingerprints only) */
		if (n) {
			size_t carrying = 0;
			printf("Certify them again with SHA-256 (per user ID, encrypted, in the delivery ledger):\n"
			       "  ksp party sign --as %s --resign-weak", signer);
			for (size_t i = 0; i < n; i++) {
				const char *t;
				unsigned carries;
				bool dup = false;
				ksp_health_get_weak(h, i, &t, NULL, NULL, NULL, NULL, &carries);
				for (size_t j = 0; j < i && carries; j++) {
					const char *t2;
					ksp_health_get_weak(h, j, &t2, NULL, NULL, NULL, NULL, NULL);
					dup |= strcmp(t, t2) == 0;
				}
				if (carries && !dup) {
					printf(" %s", t);
					carrying++;
				}
			}
			printf("%s\n", carrying ? "" : "   (all of them)");
		}
	}
}

/* Over 150 lines: the options, then each output in turn (CSV, picture, report). */
static int run_health(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		CLI_TRUST_LONGOPTS,
		{ "repair-at", required_argument, NULL, 'R' },
		{ "party", no_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "top", required_argument, NULL, 'n' },
		{ "no-spof", no_argument, NULL, 'S' },
		{ "no-repair", no_argument, NULL, 'N' },
		{ "weak", no_argument, NULL, 'w' },
		{ "signer", required_argument, NULL, 's' },
		{ "plan-csv", required_argument, NULL, 'P' },
		{ "svg", required_argument, NULL, 'G' },
		{},
	};
	struct cli_trust_opts to;
	struct ksp_store *store = NULL;
	struct ksp_health *h = NULL;
	const char *signer = NULL, *plan_csv = NULL, *svg = NULL;
	unsigned rh = KSP_HEALTH_90D, flags = 0;
	bool all = false, party = false, weak = false;
	size_t top = 10;
	int c, r, status = KSP_EXIT_OK;

	status = cli_trust_opts_init(cli, &to);
	if (status)
		return status;
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'R': {
			unsigned i;
			for (i = 1; i < KSP_HEALTH_HORIZONS; i++) {
				static const char *const names[] = { "now", "+30d", "+90d", "+365d", "no-sha1" };
				if (strcmp(optarg, names[i]) == 0)
					break;
			}
			if (i == KSP_HEALTH_HORIZONS) {
				status = cli_usage_error(cli, &ksp_cmd_health, "health",
							 "--repair-at is +30d, +90d, +365d or no-sha1, not '%s'", optarg);
				goto out;
			}
			rh = i;
			break;
		}
		case 'p':
			party = true;
			flags |= KSP_HEALTH_PARTY;
			break;
		case 'a':
			all = true;
			break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 0) {
				status = cli_usage_error(cli, &ksp_cmd_health, "health", "--top takes a number (0 = all)");
				goto out;
			}
			top = (size_t)v;
			break;
		}
		case 'S':
			flags |= KSP_HEALTH_NO_SPOF;
			break;
		case 'N':
			flags |= KSP_HEALTH_NO_REPAIR;
			break;
		case 'w':
			weak = true;
			break;
		case 's':
			signer = optarg;
			break;
		case 'P':
			plan_csv = optarg;
			break;
		case 'G':
			svg = optarg;
			break;
		default:
			r = cli_trust_opt(cli, &to, &ksp_cmd_health, "health", c, optarg);
			if (r < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			if (r == 0) {
				status = cli_usage_error(cli, &ksp_cmd_health, "health", "bad option");
				goto out;
			}
		}
	}
	if (optind < argc) {
		status = cli_usage_error(cli, &ksp_cmd_health, "health", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (plan_csv && (flags & KSP_HEALTH_NO_REPAIR)) {
		status = cli_usage_error(cli, &ksp_cmd_health, "health", "--plan-csv needs the repair plan (not --no-repair)");
		goto out;
	}
	if (weak != (signer != NULL)) {
		status = cli_usage_error(cli, &ksp_cmd_health, "health", "--weak and --signer FPR go together");
		goto out;
	}
	r = cli_open_store(cli, 0, &store);
	if (r) {
		status = r;
		goto out;
	}
	r = ksp_health_new(store, to.policy, to.at, rh, flags, &h);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot compute the trust health", cli->db_path);
		goto out;
	}
	if (weak) {
		r = ksp_health_list_weak(h, signer);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot list the weak certifications", cli->db_path);
			goto out;
		}
	}
	if (plan_csv) {
		r = write_plan_csv(cli, store, h, rh, plan_csv);
		if (r) {
			status = r;
			goto out;
		}
	}
	if (svg) {
		r = write_svg(cli, store, h, to.at, rh, svg);
		if (r) {
			status = r;
			goto out;
		}
	}
	if (cli->json && print_json(h, to.policy, all, party, weak, signer, rh) < 0) {
		status = cli_output_fail(cli, "cannot write the report");
		goto out;
	}
	if (!cli->json)
		print_table(store, h, to.policy, all, party, weak, signer, rh, top, flags);
	if (fflush(stdout) != 0 || ferror(stdout) || cli_output_failed()) {
		status = cli_output_fail(cli, "cannot write the report");
		goto out;
	}
	for (size_t k = 0; k < ksp_health_get_key_count(h); k++)
		if (!ksp_health_is_below(h, k, KSP_HEALTH_NOW) && ksp_health_is_below(h, k, rh))
			status = KSP_EXIT_NEGATIVE;
out:
	ksp_health_free(h);
	ksp_store_unref(store);
	cli_trust_opts_done(&to);
	return status;
}
