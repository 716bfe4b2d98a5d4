// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp health: who will lose their trust paths, why, and what repairs it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ksp.h"
#include "cli/trust-opts.h"
#include "shared/util.h"

static int run_health(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_health = {
	.name = "health",
	.run = run_health,
	.usage = CLI_TRUST_USAGE "\n"
		 "       [--repair-at +30d|+90d|+365d|no-sha1] [--party] [--all] [--top N]\n"
		 "       [--no-spof] [--no-repair] [--weak --signer FPR] [--json]",
	.help = "trust health: who loses their paths to the core, and the repair",
	.details = "For every key that is not a core key: the vertex-disjoint paths from the\n"
		   "core now, at +30, +90 and +365 days (keys and certifications expiring by\n"
		   "then dropped) and with MD5/SHA-1/RIPEMD-160 certifications dropped\n"
		   "(no-sha1); the keys below K at each horizon, and what breaks on their\n"
		   "paths. Every verdict is the one 'ksp trust --at' gives. Then the repair\n"
		   "plan (the fewest new certifications, by greedy set cover), the owners who\n"
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
		   "                    certifications and the core paths each carries\n",
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

static void print_break(const struct ksp_health *h, size_t k, unsigned hz, size_t i)
{
	const char *a, *b;
	int kind, path;
	int64_t when;
	char date[32];

	ksp_health_get_break(h, k, hz, i, &kind, &a, &b, &when, &path);
	format_date(when, date, sizeof(date));
	switch (kind) {
	case KSP_HEALTH_KEY_EXPIRES:
		printf("      path %d: key %s expires on %s\n", path + 1, a, date);
		break;
	case KSP_HEALTH_KEY_REVOKED:
		printf("      path %d: key %s is revoked on %s\n", path + 1, a, date);
		break;
	case KSP_HEALTH_CERT_EXPIRES:
		printf("      path %d: %s's certification of %s expires on %s\n", path + 1, a, b, date);
		break;
	case KSP_HEALTH_CERT_WEAK:
		printf("      path %d: %s's certification of %s (%s) is MD5/SHA-1/RIPEMD-160\n", path + 1, a, b, date);
		break;
	case KSP_HEALTH_CERT_REVOKED:
		printf("      path %d: %s's certification of %s is revoked on %s\n", path + 1, a, b, date);
		break;
	case KSP_HEALTH_UID_REVOKED:
		printf("      path %d: the user ID %s certified on %s is revoked on %s\n", path + 1, a, b, date);
		break;
	default:
		printf("      path %d: %s's certification of %s becomes too old on %s\n", path + 1, a, b, date);
		break;
	}
}

static void print_json(const struct ksp_health *h, const struct ksp_trust_policy *pol, bool all, bool party,
		       bool weak, const char *signer, unsigned rh)
{
	size_t nk = ksp_health_get_key_count(h);
	char date[32];
	int64_t at;

	printf("{\"format_version\":1,\"min_paths\":%d,\"max_depth\":%d,\"keys\":%zu,\"queries\":%llu,\"horizons\":[",
	       ksp_trust_policy_get_min_paths(pol), ksp_trust_policy_get_max_depth(pol), nk,
	       (unsigned long long)ksp_health_get_queries(h));
	for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++) {
		const char *label = ksp_health_get_horizon(h, hz, &at);
		bool first = true;
		format_date(at, date, sizeof(date));
		printf("%s{\"label\":\"%s\",\"at\":\"%s\",\"time\":%lld,\"below\":[", hz ? "," : "", label, date,
		       (long long)at);
		for (size_t k = 0; k < nk; k++)
			if (ksp_health_is_below(h, k, hz)) {
				printf("%s\"%s\"", first ? "" : ",", ksp_health_get_key(h, k));
				first = false;
			}
		printf("],\"details\":[");
		first = true;
		for (size_t k = 0; k < nk; k++) {
			const char *m;
			if (!ksp_health_is_below(h, k, hz))
				continue;
			m = ksp_health_get_message(h, k, hz);
			printf("%s{\"fingerprint\":\"%s\",\"paths\":%d,\"message\":", first ? "" : ",",
			       ksp_health_get_key(h, k), ksp_health_get_paths(h, k, hz));
			cli_json_str(stdout, m ? m : "", m ? strlen(m) : 0);
			printf(",\"breaks\":[");
			for (size_t i = 0; i < ksp_health_get_break_count(h, k, hz); i++) {
				const char *a, *b;
				int kind, path;
				int64_t when;
				ksp_health_get_break(h, k, hz, i, &kind, &a, &b, &when, &path);
				format_date(when, date, sizeof(date));
				printf("%s{\"kind\":\"%s\",\"signer\":\"%s\",\"signee\":\"%s\",\"date\":\"%s\",\"path\":%d}",
				       i ? "," : "", break_text(kind), a, b, date, path + 1);
			}
			printf("]}");
			first = false;
		}
		printf("]}");
	}
	printf("]");
	if (all) {
		printf(",\"paths\":[");
		for (size_t k = 0; k < nk; k++) {
			printf("%s{\"fingerprint\":\"%s\"", k ? "," : "", ksp_health_get_key(h, k));
			for (unsigned hz = 0; hz < KSP_HEALTH_HORIZONS; hz++)
				printf(",\"%s\":%d", ksp_health_get_horizon(h, hz, NULL), ksp_health_get_paths(h, k, hz));
			printf("}");
		}
		printf("]");
	}
	printf(",\"repair_at\":\"%s\",\"repair\":[", ksp_health_get_horizon(h, rh, NULL));
	for (size_t i = 0; i < ksp_health_get_repair_count(h); i++) {
		const char *s, *t;
		unsigned n;
		ksp_health_get_repair(h, i, &s, &t, &n);
		printf("%s{\"signer\":\"%s\",\"target\":\"%s\",\"repairs\":%u}", i ? "," : "", s, t, n);
	}
	printf("],\"unrepaired\":%zu,\"extend\":[", ksp_health_get_unrepaired_count(h));
	for (size_t i = 0; i < ksp_health_get_extend_count(h); i++) {
		const char *f;
		unsigned n;
		int64_t exp;
		ksp_health_get_extend(h, i, &f, &exp, &n);
		format_date(exp, date, sizeof(date));
		printf("%s{\"fingerprint\":\"%s\",\"expires\":\"%s\",\"repairs\":%u}", i ? "," : "", f, date, n);
	}
	printf("],\"spof_exact\":%s,\"spof\":[", ksp_health_spof_is_exact(h) ? "true" : "false");
	for (size_t i = 0; i < ksp_health_get_spof_count(h); i++) {
		const char *f;
		unsigned cuts, carries;
		ksp_health_get_spof(h, i, &f, &cuts, &carries);
		printf("%s{\"fingerprint\":\"%s\",\"cuts\":%u,\"carries\":%u}", i ? "," : "", f, cuts, carries);
	}
	printf("],\"carriers\":[");
	for (size_t i = 0; i < ksp_health_get_carrier_count(h); i++) {
		const char *f;
		unsigned n;
		ksp_health_get_carrier(h, i, &f, &n);
		printf("%s{\"fingerprint\":\"%s\",\"paths\":%u}", i ? "," : "", f, n);
	}
	printf("]");
	if (party) {
		printf(",\"pairs\":[");
		for (size_t i = 0; i < ksp_health_get_pair_count(h); i++) {
			const char *a, *b;
			unsigned n;
			ksp_health_get_pair(h, i, &a, &b, &n);
			printf("%s{\"a\":\"%s\",\"b\":\"%s\",\"keys\":%u}", i ? "," : "", a, b, n);
		}
		printf("],\"pairs_by_distance\":[");
		for (size_t i = 0; i < ksp_health_get_pair_count(h); i++) {
			const char *a, *b;
			unsigned hops, n;
			ksp_health_get_pair_by_distance(h, i, &a, &b, &hops, &n);
			printf("%s{\"a\":\"%s\",\"b\":\"%s\",\"hops\":%u,\"keys\":%u}", i ? "," : "", a, b, hops, n);
		}
		printf("]");
	}
	if (weak) {
		printf(",\"signer\":\"%s\",\"weak\":[", signer);
		for (size_t i = 0; i < ksp_health_get_weak_count(h); i++) {
			const char *t, *u;
			size_t ulen;
			int64_t created;
			int hash;
			unsigned carries;
			ksp_health_get_weak(h, i, &t, &u, &ulen, &created, &hash, &carries);
			format_date(created, date, sizeof(date));
			printf("%s{\"target\":\"%s\",\"uid\":", i ? "," : "", t);
			cli_json_str(stdout, u ? u : "", u ? ulen : 0);
			printf(",\"created\":\"%s\",\"hash\":\"%s\",\"carries\":%u}", date, hash_name(hash), carries);
		}
		printf("]");
	}
	printf("}\n");
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

static void print_table(struct ksp_store *store, const struct ksp_health *h, const struct ksp_trust_policy *pol,
			bool all, bool party, bool weak, const char *signer, unsigned rh, size_t top)
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
				print_break(h, k, hz, i);
			/* the later horizons say the same, and more */
			break;
		}
	}
	n = ksp_health_get_repair_count(h);
	printf("\nRepair plan for %s: %zu new certification%s (greedy set cover: at most 1 + ln N times the\n"
	       "fewest when each key needs one; the expiries as they are)\n",
	       ksp_health_get_horizon(h, rh, NULL), n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
		const char *s, *t;
		unsigned c;
		ksp_health_get_repair(h, i, &s, &t, &c);
		printf("  %s certifies %s: brings %u key%s back to K\n", s, t, c, c == 1 ? "" : "s");
	}
	if (ksp_health_get_unrepaired_count(h))
		printf("  %zu falling key%s no candidate certification repairs\n", ksp_health_get_unrepaired_count(h),
		       ksp_health_get_unrepaired_count(h) == 1 ? "" : "s");
	n = ksp_health_get_extend_count(h);
	if (n)
		printf("Owners who only need to extend their key's expiry:\n");
	for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
		const char *f;
		unsigned c;
		int64_t exp;
		ksp_health_get_extend(h, i, &f, &exp, &c);
		format_date(exp, date, sizeof(date));
		printf("  %s (expires %s): extending it keeps %u key%s at K\n", f, date, c, c == 1 ? "" : "s");
	}
	n = ksp_health_get_spof_count(h);
	printf("\nSingle points of failure (keys lost now: how many keys fall below K)%s:\n",
	       ksp_health_spof_is_exact(h) ? "" : " [work budget reached: the ranking is partial]");
	for (size_t i = 0, shown = 0; i < n && (top == 0 || shown < top); i++) {
		const char *f;
		unsigned cuts, carries;
		ksp_health_get_spof(h, i, &f, &cuts, &carries);
		if (cuts == 0)
			continue;
		printf("  %s cuts %u (on %u keys' paths)", f, cuts, carries);
		print_uid(store, f);
		printf("\n");
		shown++;
	}
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
	if (party) {
		n = ksp_health_get_pair_count(h);
		printf("\nParty pairs (certifying each other), by the keys below K now they bring to K:\n");
		for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
			const char *a, *b;
			unsigned c;
			ksp_health_get_pair(h, i, &a, &b, &c);
			printf("  %s <-> %s: %u key%s\n", a, b, c, c == 1 ? "" : "s");
		}
		printf("Party pairs by the distances they shorten (certifications from the core,\n"
		       "L + 1 when farther): hops saved over all keys, keys brought closer:\n");
		for (size_t i = 0; i < n && (top == 0 || i < top); i++) {
			const char *a, *b;
			unsigned hops, c;
			ksp_health_get_pair_by_distance(h, i, &a, &b, &hops, &c);
			printf("  %s <-> %s: %u hop%s, %u key%s\n", a, b, hops, hops == 1 ? "" : "s", c, c == 1 ? "" : "s");
		}
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
		{},
	};
	struct cli_trust_opts to;
	struct ksp_store *store = NULL;
	struct ksp_health *h = NULL;
	const char *signer = NULL;
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
	if (cli->json)
		print_json(h, to.policy, all, party, weak, signer, rh);
	else
		print_table(store, h, to.policy, all, party, weak, signer, rh, top);
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
