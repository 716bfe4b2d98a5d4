// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp trust: is this key trusted by the core? */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "cli/trust-opts.h"
#include "shared/util.h"

static int run_trust(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_trust = {
	.name = "trust",
	.run = run_trust,
	.usage = "[--policy FILE] [--core FILE | --core-fpr FPR... | --core-party] [--max-depth L]\n"
		 "       [--min-paths K] [--per-uid] [--sha1 RULE | --no-sha1] [--allow-md5] [--at DATE] [--json]\n"
		 "       (FPR | --batch FILE | --email ADDR [FPR] | --uid UID [FPR])\n"
		 "   or: ksp trust --model sequoia [--policy FILE] [--core FILE | --core-fpr FPR... | --core-party]\n"
		 "       [--partial-core FPR:AMOUNT]... [--trust-amount N] [--certification-network]\n"
		 "       [--at DATE] [--json] (FPR | --batch FILE | --email ADDR [FPR] | --uid UID [FPR])\n"
		 "   or: ksp trust --model gnupg [--policy FILE] (--ownertrust FILE | --core FILE | --core-fpr FPR...)\n"
		 "       [--marginals-needed N] [--completes-needed N] [--max-cert-depth N] [--min-cert-level N]\n"
		 "       [--sha1 RULE | --no-sha1] [--allow-md5] [--at DATE] [--json] (FPR | --batch FILE)",
	.help = "is the key trusted by the core? (disjoint certification paths)",
	.details = "FPR is trusted when at least K certification paths from core keys reach it,\n"
		   "each of at most L certifications, sharing no key but FPR (each core key\n"
		   "starts at most one path). Only verified, exportable, unexpired, unrevoked\n"
		   "certifications on unrevoked user IDs count, made by keys valid when they\n"
		   "signed, between keys valid at the reference time. Exit status: 0 trusted,\n"
		   "1 not trusted, 2 error. The paths found, or why there are too few, are\n"
		   "always shown.\n\n"
		   "Options:\n"
		   "  --policy FILE     read the rule from FILE (key = value; see ksp-trust(1));\n"
		   "                    options given after it override it\n"
		   "  --core FILE       core fingerprints, one per line (gpg --export-ownertrust\n"
		   "                    lines too)\n"
		   "  --core-fpr FPR    a core key (repeatable)\n"
		   "  --core-party      the store's party participants are the core\n"
		   "  --max-depth L     at most L certifications per path (default 5)\n"
		   "  --min-paths K     at least K vertex-disjoint paths (default 1)\n"
		   "  --per-uid         the paths' last certifications are on one user ID\n"
		   "  --sha1 RULE       SHA-1 certifications: before-2019 (the default, gpg 2.2's:\n"
		   "                    not those made after 2019-01-19), no (neither SHA-1 nor\n"
		   "                    RIPEMD-160 ones count), yes (all count: risky, SHA-1\n"
		   "                    chosen-prefix collisions let whoever prepares a key\n"
		   "                    being signed forge certifications made after 2019)\n"
		   "  --no-sha1         --sha1 no\n"
		   "  --allow-md5       MD5 certifications count (by default they never do)\n"
		   "  --min-key-bits N  RSA/DSA/ElGamal signers below N bits do not count\n"
		   "  --max-cert-age A  certifications older than A (90d, 2y, seconds) do not count\n"
		   "  --at DATE         reference time (default: now)\n"
		   CLI_TRUST_BINDING_HELP
		   "  --batch FILE      one fingerprint per line; one verdict line each; exit 0\n"
		   "                    when all are trusted\n"
		   "  -q, --quiet       the verdict line only\n\n"
		   "GnuPG's classic model (--model gnupg): the key validity gpg's trustdb\n"
		   "computes (gpg --check-trustdb, --trust-model pgp) from ownertrust: the\n"
		   "ultimately trusted keys are the roots; level by level a user ID is fully\n"
		   "valid with N certifications by fully valid keys of full ownertrust, or N\n"
		   "by keys of marginal ownertrust, marginally valid with fewer. Shows the\n"
		   "validity (gpg's letters u f m q - e r) and the introducers; exit 0 when\n"
		   "fully or ultimately valid, 1 otherwise. The core keys (--core-fpr, --core,\n"
		   "--core-party, a policy's core) are ultimately trusted roots too.\n"
		   "  --model gnupg        this model (default: paths, the one above; or\n"
		   "                       model = gnupg in a policy, with the keys below)\n"
		   "  --ownertrust FILE    gpg --export-ownertrust lines FPR:LEVEL: (2 undefined,\n"
		   "                       3 never, 4 marginal, 5 full, 6 ultimate)\n"
		   "  --marginals-needed N (default 3)\n"
		   "  --completes-needed N (default 1)\n"
		   "  --max-cert-depth N   (default 5)\n"
		   "  --min-cert-level N   certifications below this level do not count (default 2)\n"
		   "  --sha1 RULE          as above (default before-2019, as gpg 2.2)\n"
		   "                       (yes: gpg --allow-weak-key-signatures)\n"
		   "  --allow-md5          gpg --allow-weak-digest-algos\n"
		   "Both models say how many certifications the hash rules left out.\n\n"
		   "Sequoia's web of trust (--model sequoia, or model = sequoia in a policy):\n"
		   "what sq-wot (sequoia-wot 0.2.0) answers. A binding (key and user ID) is\n"
		   "authenticated when paths from the core keys (the roots) carry trust amounts\n"
		   "(0-120) that sum to the target amount; trust signatures count with their\n"
		   "amount, depth and regular expressions, a plain certification is amount\n"
		   "120, depth 0 (it vouches for its target only); per issuer and user ID the\n"
		   "newest live certification replaces older ones. Without --uid/--email the\n"
		   "key's best user ID is shown. Exit 0 when authenticated, 1 otherwise.\n"
		   "  --model sequoia           this model\n"
		   "  --partial-core FPR:AMOUNT a partially trusted root (amount 1-120)\n"
		   "  --trust-amount N          the amount wanted (default 120; 240: twice)\n"
		   "  --certification-network  every certification is a trusted introducer\n"
		   "                            at any depth (its amount stays)\n",
	.group = KSP_GROUP_ADMIN,
};

/* what the hash rules left out of the graph (ksp-trust(1), HASH RULES) */
static void print_dropped(uint64_t md5, uint64_t sha1)
{
	if (md5 == 0 && sha1 == 0)
		return;
	printf("  hash rules: %llu certification%s not counted (%llu MD5, %llu by the SHA-1 rule)\n",
	       (unsigned long long)(md5 + sha1), md5 + sha1 == 1 ? "" : "s", (unsigned long long)md5,
	       (unsigned long long)sha1);
}


static void print_result(const struct ksp_trust_result *res, const char *fpr,
			 const struct ksp_trust_policy *pol, bool brief, json_t *list)
{
	size_t np = ksp_trust_result_get_path_count(res);
	const char *uid;
	size_t ulen = 0;

	if (list) {
		json_t *o = json_object();

		if (o) {
			const char *msg = ksp_trust_result_get_message(res);
			json_t *dropped = json_object();

			cj_set(o, "format_version", cj_int(1));
			cj_set(o, "fingerprint", cj_strz(fpr));
			cj_set(o, "trusted", cj_bool(ksp_trust_result_is_trusted(res)));
			cj_set(o, "reason", cj_strz(cli_trust_reason_name(res)));
			cj_set(o, "message", cj_strz(msg ? msg : ""));
			cj_set(o, "min_paths", cj_int(ksp_trust_policy_get_min_paths(pol)));
			cj_set(o, "max_depth", cj_int(ksp_trust_policy_get_max_depth(pol)));
			cj_set(o, "paths_found", cj_int(ksp_trust_result_get_paths_found(res)));
			if (dropped) {
				cj_set(dropped, "md5", cj_int(ksp_trust_result_get_dropped(res, KSP_DROPPED_MD5)));
				cj_set(dropped, "sha1", cj_int(ksp_trust_result_get_dropped(res, KSP_DROPPED_SHA1)));
			}
			cj_set(o, "dropped", dropped);
			uid = ksp_trust_result_get_uid(res, &ulen);
			cj_set(o, "uid", uid ? cj_str(uid, ulen) : json_null());
			cj_set(o, "paths", cli_trust_json_paths(res));
			cli_trust_json_fields(o, res);
		}
		cj_push(list, o);
		return;
	}
	printf("%s: %s\n", fpr, ksp_trust_result_get_message(res));
	if (brief)
		return;
	print_dropped(ksp_trust_result_get_dropped(res, KSP_DROPPED_MD5),
		      ksp_trust_result_get_dropped(res, KSP_DROPPED_SHA1));
	uid = ksp_trust_result_get_uid(res, &ulen);
	if (uid) {
		char *e = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL);
		printf("  on user ID \"%s\"\n", e ? e : "?");
		free(e);
	}
	for (size_t i = 0; i < np; i++) {
		size_t n = ksp_trust_result_get_path_length(res, i);
		printf("  path %zu (%zu hop%s):\n", i + 1, n, n == 1 ? "" : "s");
		for (size_t h = 0; h < n; h++) {
			const char *a, *b, *u;
			int64_t created;
			size_t len = 0;
			char date[32], *e;
			ksp_trust_result_get_hop(res, i, h, &a, &b, &created, &u, &len);
			format_date(created, date, sizeof(date));
			e = cli_escape(u ? u : "", u ? len : 0, KSP_ESCAPE_TERMINAL);
			printf("    %s\n      certified %s on %s\n      \"%s\"\n", a, b, date, e ? e : "?");
			free(e);
		}
	}
}

/* ---- each model's answer, shown (the models themselves: src/lib/trust/model.h) -- */

struct gnupg_run {
	struct ksp_trust_gnupg *g;
	int roots, marginals, completes, max_depth;
};

/* One run of 'ksp trust': the store, the options, and a model's state. */
struct front {
	struct ksp_cli *cli;
	struct ksp_store *store;
	const struct cli_trust_opts *to;
	struct gnupg_run gr; /* --model gnupg: validated once */
};

/* any model: its answer (ksp_trust_query()) as print_result() shows it */
static int any_one(struct front *f, const char *fpr, bool brief, json_t *list)
{
	struct ksp_trust_result *res = NULL;
	int r = cli_trust_check(f->store, f->to, fpr, &res);

	if (r < 0) {
		cli_fail(f->cli, r, "%s: cannot evaluate trust", f->cli->db_path);
		return r;
	}
	print_result(res, fpr, f->to->policy, brief, list);
	r = ksp_trust_result_is_trusted(res);
	ksp_trust_result_free(res);
	return r;
}

/* The end of a lookup by --email/--uid over @n keys, @yes of them trusted
 * (@verb: what the model calls it): the JSON tail, or a line for people;
 * the exit status. */
static int lookup_end(struct ksp_cli *cli, const struct cli_trust_opts *to, json_t *report, size_t n,
		      unsigned yes, int status, const char *verb)
{
	if (report && status == KSP_EXIT_OK) {
		cj_set(report, "keys", cj_int(n));
		cj_set(report, "trusted", cj_int(yes));
		if (cj_print(json_incref(report)) < 0)
			return cli_fail(cli, -ENOMEM, "cannot write the JSON report");
	} else if (status == KSP_EXIT_OK && n == 0) {
		char *e = cli_escape(to->email ? to->email : to->uid, strlen(to->email ? to->email : to->uid),
				     KSP_ESCAPE_TERMINAL);
		printf("no key in the store has %s \"%s\"\n", to->email ? "a user ID with the address" : "the user ID",
		       e ? e : "?");
		free(e);
	} else if (status == KSP_EXIT_OK && !cli->quiet)
		printf("%u of %zu key%s %s\n", yes, n, n == 1 ? "" : "s", verb);
	if (status == KSP_EXIT_OK && yes == 0)
		status = KSP_EXIT_NEGATIVE;
	return status;
}

/* ---- --model sequoia: Sequoia's web of trust ------------------------------ */

/* One key (and the binding question of @to); prints the answer.  1 when
 * authenticated, 0 when not, or a negative errno (printed). */
static int sq_one(struct front *f, const char *fpr, bool brief, json_t *list)
{
	struct ksp_cli *cli = f->cli;
	struct ksp_store *store = f->store;
	const struct cli_trust_opts *to = f->to;
	int target = ksp_trust_policy_get_trust_amount(to->policy);
	struct ksp_trust_sequoia *sq = NULL;
	const char *uid;
	size_t ulen = 0, np;
	int r, amount;
	bool yes;

	/* the policy's roots (partial_core too), target amount and mode */
	r = ksp_trust_sequoia_new(cli->ctx, &sq);
	if (r == 0)
		r = ksp_trust_sequoia_set_policy(sq, store, to->policy);
	if (r == 0 && ksp_trust_sequoia_get_root_count(sq) == 0) {
		cli_err(cli, "no core keys given: name them (--core-fpr, --core FILE, --core-party, --partial-core or "
			     "'core =' in a policy)");
		ksp_trust_sequoia_free(sq);
		return -EINVAL;
	}
	if (r == 0)
		r = ksp_trust_sequoia_authenticate(sq, store, to->at, fpr, to->uid, to->email);
	if (r == -ENOENT) {
		if (list) {
			json_t *o = json_object();

			if (o) {
				cj_set(o, "format_version", cj_int(1));
				cj_set(o, "model", cj_strz("sequoia"));
				cj_set(o, "fingerprint", cj_strz(fpr));
				cj_set(o, "in_store", json_false());
				cj_set(o, "trusted", json_false());
				cj_set(o, "trust_amount", cj_int(0));
				cj_set(o, "paths_found", cj_int(0));
				cj_set(o, "paths", json_array());
			}
			cj_push(list, o);
		} else
			printf("%s: not authenticated: the key is not in the store\n", fpr);
		ksp_trust_sequoia_free(sq);
		return 0;
	}
	if (r < 0) {
		cli_fail(cli, r, "%s: cannot authenticate %s", cli->db_path, fpr);
		ksp_trust_sequoia_free(sq);
		return r;
	}
	yes = ksp_trust_sequoia_is_authenticated(sq);
	amount = ksp_trust_sequoia_get_amount(sq);
	uid = ksp_trust_sequoia_get_uid(sq, &ulen);
	np = ksp_trust_sequoia_get_path_count(sq);
	if (list) {
		json_t *o = json_object(), *paths = json_array();

		if (o) {
			cj_set(o, "format_version", cj_int(1));
			cj_set(o, "model", cj_strz("sequoia"));
			cj_set(o, "fingerprint", cj_strz(fpr));
			cj_set(o, "in_store", json_true());
			cj_set(o, "trusted", cj_bool(yes));
			cj_set(o, "uid", uid ? cj_str(uid, ulen) : json_null());
			cj_set(o, "trust_amount", cj_int(amount));
			cj_set(o, "target_amount", cj_int(target));
			cj_set(o, "certification_network",
			       cj_bool(ksp_trust_policy_get_certification_network(to->policy)));
			cj_set(o, "paths_found", cj_int(np));
		}
		for (size_t i = 0; paths && i < np; i++) {
			size_t len = ksp_trust_sequoia_get_path_length(sq, i);
			json_t *path = json_object(), *keys = json_array(), *hops = json_array();

			for (size_t j = 0; keys && j < len; j++)
				cj_push(keys, cj_strz(ksp_trust_sequoia_get_path_key(sq, i, j)));
			for (size_t j = 0; hops && j + 1 < len; j++) {
				int d = 0, a = 0, self;
				int64_t created = 0;
				json_t *hop = json_object();

				self = ksp_trust_sequoia_get_path_hop(sq, i, j, &d, &a, &created);
				if (hop) {
					cj_set(hop, "signer", cj_strz(ksp_trust_sequoia_get_path_key(sq, i, j)));
					cj_set(hop, "signee", cj_strz(ksp_trust_sequoia_get_path_key(sq, i, j + 1)));
					cj_set(hop, "created", cj_int(created));
					cj_set(hop, "depth", cj_int(d));
					cj_set(hop, "amount", cj_int(a));
					cj_set(hop, "self_signature", cj_bool(self == 1));
				}
				cj_push(hops, hop);
			}
			if (path) {
				cj_set(path, "amount", cj_int(ksp_trust_sequoia_get_path_amount(sq, i)));
				cj_set(path, "keys", keys);
				cj_set(path, "hops", hops);
			} else {
				json_decref(keys);
				json_decref(hops);
			}
			cj_push(paths, path);
		}
		if (o)
			cj_set(o, "paths", paths);
		else
			json_decref(paths);
		cj_push(list, o);
	} else {
		char *e = uid ? cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL) : NULL;

		printf("%s: %s (trust amount %d of %d)%s%s%s\n", fpr, yes ? "authenticated" : "not authenticated", amount,
		       target, e ? " as \"" : "",
		       e ? e : "", e ? "\"" : "");
		free(e);
		for (size_t i = 0; !brief && i < np; i++) {
			size_t len = ksp_trust_sequoia_get_path_length(sq, i);

			printf("  path %zu (trust amount %d, %zu certification%s):\n    %s\n", i + 1,
			       ksp_trust_sequoia_get_path_amount(sq, i), len - 1, len == 2 ? "" : "s",
			       ksp_trust_sequoia_get_path_key(sq, i, 0));
			for (size_t j = 0; j + 1 < len; j++) {
				int d = 0, a = 0;
				int64_t created = 0;
				char date[32];

				if (ksp_trust_sequoia_get_path_hop(sq, i, j, &d, &a, &created) == 1) {
					printf("      its own self-signature on the user ID\n");
					continue;
				}
				format_date(created, date, sizeof(date));
				printf("      certified %s on %s (trust depth %d, amount %d)\n",
				       ksp_trust_sequoia_get_path_key(sq, i, j + 1), date, d, a);
			}
		}
	}
	ksp_trust_sequoia_free(sq);
	return yes ? 1 : 0;
}

/* ---- --model gnupg: GnuPG's classic trust model ------------------------- */

static const char *ot_name(int level)
{
	switch (level) {
	case KSP_GNUPG_UNDEFINED: return "undefined";
	case KSP_GNUPG_NEVER: return "never";
	case KSP_GNUPG_MARGINAL: return "marginal";
	case KSP_GNUPG_FULL: return "full";
	case KSP_GNUPG_ULTIMATE: return "ultimate";
	default: return "unknown";
	}
}

/* Prints one key's validity; returns its validity, or -ENOENT. */
static int print_gnupg(const struct gnupg_run *gr, const char *fpr, bool brief, json_t *list)
{
	int v = ksp_trust_gnupg_get_validity(gr->g, fpr), full = 0, marg = 0, depth;
	size_t n = v >= 0 ? ksp_trust_gnupg_get_introducer_count(gr->g, fpr) : 0;
	const char *uid = NULL;
	size_t ulen = 0;
	char why[256];

	if (v == -ENOENT) {
		if (list) {
			json_t *o = json_object();

			if (o) {
				cj_set(o, "format_version", cj_int(1));
				cj_set(o, "model", cj_strz("gnupg"));
				cj_set(o, "fingerprint", cj_strz(fpr));
				cj_set(o, "in_store", json_false());
				cj_set(o, "validity", cj_strz("unknown"));
				cj_set(o, "letter", cj_strz("-"));
				cj_set(o, "trusted", json_false());
			}
			cj_push(list, o);
		} else
			printf("%s: unknown (-): the key is not in the store\n", fpr);
		return v;
	}
	if (v < 0)
		return v;
	ksp_trust_gnupg_get_counts(gr->g, fpr, &full, &marg);
	depth = ksp_trust_gnupg_get_depth(gr->g, fpr);
	if (n)
		ksp_trust_gnupg_get_introducer(gr->g, fpr, 0, NULL, NULL, NULL, &uid, &ulen);
	switch (v) {
	case KSP_GNUPG_ULTIMATE:
		snprintf(why, sizeof(why), "an ultimately trusted key (a root)");
		break;
	case KSP_GNUPG_FULL:
	case KSP_GNUPG_MARGINAL:
		snprintf(why, sizeof(why), "%d of %d complete%s and %d of %d marginal%s needed, at depth %d", full,
			 gr->completes, gr->completes == 1 ? "" : "s", marg, gr->marginals, gr->marginals == 1 ? "" : "s",
			 depth);
		break;
	case KSP_GNUPG_UNDEFINED:
		snprintf(why, sizeof(why), "certified only by valid keys without ownertrust as introducers, at depth %d",
			 depth);
		break;
	case KSP_GNUPG_REVOKED:
		snprintf(why, sizeof(why), "the key is revoked");
		break;
	case KSP_GNUPG_EXPIRED:
		snprintf(why, sizeof(why), "the key has expired");
		break;
	case KSP_GNUPG_INVALID:
		snprintf(why, sizeof(why), "the key was made after this date");
		break;
	default:
		snprintf(why, sizeof(why), "not reached from the %d ultimately trusted key%s within %d level%s",
			 gr->roots, gr->roots == 1 ? "" : "s", gr->max_depth, gr->max_depth == 1 ? "" : "s");
		break;
	}
	if (list) {
		json_t *o = json_object(), *dropped = json_object(), *intro = json_array();
		char letter[2] = { ksp_trust_gnupg_validity_letter(v), '\0' };

		for (size_t i = 0; intro && i < n; i++) {
			const char *signer;
			int ot, d;
			json_t *e = json_object();

			ksp_trust_gnupg_get_introducer(gr->g, fpr, i, &signer, &ot, &d, NULL, NULL);
			if (e) {
				cj_set(e, "signer", cj_strz(signer));
				cj_set(e, "ownertrust", cj_strz(ot_name(ot)));
				cj_set(e, "depth", cj_int(d));
			}
			cj_push(intro, e);
		}
		if (dropped) {
			cj_set(dropped, "md5", cj_int(ksp_trust_gnupg_get_dropped(gr->g, KSP_DROPPED_MD5)));
			cj_set(dropped, "sha1", cj_int(ksp_trust_gnupg_get_dropped(gr->g, KSP_DROPPED_SHA1)));
		}
		if (o) {
			cj_set(o, "format_version", cj_int(1));
			cj_set(o, "model", cj_strz("gnupg"));
			cj_set(o, "fingerprint", cj_strz(fpr));
			cj_set(o, "in_store", json_true());
			cj_set(o, "validity", cj_strz(ksp_trust_gnupg_validity_name(v)));
			cj_set(o, "letter", cj_strz(letter));
			cj_set(o, "trusted", cj_bool(v == KSP_GNUPG_FULL || v == KSP_GNUPG_ULTIMATE));
			cj_set(o, "message", cj_strz(why));
			cj_set(o, "depth", depth >= 0 ? cj_int(depth) : json_null());
			cj_set(o, "completes", cj_int(full));
			cj_set(o, "marginals", cj_int(marg));
			cj_set(o, "completes_needed", cj_int(gr->completes));
			cj_set(o, "marginals_needed", cj_int(gr->marginals));
			cj_set(o, "max_cert_depth", cj_int(gr->max_depth));
			cj_set(o, "ownertrust", cj_strz(ot_name(ksp_trust_gnupg_get_ownertrust(gr->g, fpr))));
			cj_set(o, "dropped", dropped);
			cj_set(o, "uid", uid ? cj_str(uid, ulen) : json_null());
			cj_set(o, "introducers", intro);
		} else {
			json_decref(dropped);
			json_decref(intro);
		}
		cj_push(list, o);
		return v;
	}
	printf("%s: %s (%c): %s\n", fpr, ksp_trust_gnupg_validity_name(v), ksp_trust_gnupg_validity_letter(v), why);
	if (!brief)
		print_dropped(ksp_trust_gnupg_get_dropped(gr->g, KSP_DROPPED_MD5),
			      ksp_trust_gnupg_get_dropped(gr->g, KSP_DROPPED_SHA1));
	if (brief || n == 0)
		return v;
	{
		char *e = cli_escape(uid ? uid : "", uid ? ulen : 0, KSP_ESCAPE_TERMINAL);
		printf("  on user ID \"%s\", introduced by:\n", e ? e : "?");
		free(e);
	}
	for (size_t i = 0; i < n; i++) {
		const char *signer;
		int ot, d;
		ksp_trust_gnupg_get_introducer(gr->g, fpr, i, &signer, &ot, &d, NULL, NULL);
		printf("    %s  %s ownertrust, level %d\n", signer, ot_name(ot), d);
	}
	return v;
}

/* the policy's settings applied, the validity of every key computed once */
static int gnupg_setup(struct front *f)
{
	struct gnupg_run *gr = &f->gr;
	int r;

	gr->marginals = ksp_trust_policy_get_option(f->to->policy, "marginals_needed");
	gr->completes = ksp_trust_policy_get_option(f->to->policy, "completes_needed");
	gr->max_depth = ksp_trust_policy_get_option(f->to->policy, "max_cert_depth");
	r = ksp_trust_gnupg_new(f->cli->ctx, &gr->g);
	if (r == 0)
		r = ksp_trust_gnupg_set_policy(gr->g, f->store, f->to->policy);
	if (r < 0)
		return cli_fail(f->cli, r, "cannot set up the GnuPG model");
	gr->roots = ksp_trust_gnupg_validate(gr->g, f->store, f->to->at);
	if (gr->roots < 0)
		return cli_fail(f->cli, gr->roots, "%s: cannot compute GnuPG validity", f->cli->db_path);
	if (gr->roots == 0) {
		cli_err(f->cli, "%s: no key of ultimate ownertrust (level 6) is in the store; GnuPG needs one as the root "
				"(give your own key level 6, or name core keys)",
			f->to->ownertrust ? f->to->ownertrust : "the policy");
		return KSP_EXIT_ERROR;
	}
	return 0;
}

static int gnupg_one(struct front *f, const char *fpr, bool brief, json_t *list)
{
	int r = print_gnupg(&f->gr, fpr, brief, list);

	if (r < 0 && r != -ENOENT) {
		cli_fail(f->cli, r, "%s: cannot read the validity", f->cli->db_path);
		return r;
	}
	return r == KSP_GNUPG_FULL || r == KSP_GNUPG_ULTIMATE;
}

/* How 'ksp trust' shows a model's answer: a model without an entry here
 * is shown by any_one(), from its struct ksp_trust_result. */
static const struct trust_front {
	int model;
	int (*setup)(struct front *f);                                          /* 0 or an exit status */
	int (*one)(struct front *f, const char *fpr, bool brief, json_t *list); /* 1, 0, -errno (printed); with
										   --json its object appended to @list */
	const char *verb;  /* "N of M keys VERB" */
	bool ot_lines;     /* --batch lines may be gpg --export-ownertrust lines */
} fronts[] = {
	{ KSP_TRUST_MODEL_GNUPG, gnupg_setup, gnupg_one, "fully valid", true },
	{ KSP_TRUST_MODEL_SEQUOIA, NULL, sq_one, "authenticated", false },
};

static const struct trust_front *front_of(int model)
{
	static const struct trust_front any = { -1, NULL, any_one, "trusted", false };

	for (size_t i = 0; i < ARRAY_SIZE(fronts); i++)
		if (fronts[i].model == model)
			return &fronts[i];
	return &any;
}

/* The report of a lookup or a batch: {"format_version":1, and, but for
 * the paths model, "model":NAME; NULL when out of memory */
static json_t *json_head(const struct cli_trust_opts *to)
{
	int model = ksp_trust_policy_get_model(to->policy);
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	cj_set(o, "format_version", cj_int(1));
	if (model != KSP_TRUST_MODEL_PATHS)
		cj_set(o, "model", cj_strz(ksp_trust_model_name(model)));
	return o;
}

/* --email / --uid without a fingerprint: every key that claims it, each
 * with its verdict.  Exit 0 when one of them is trusted. */
static int run_lookup(struct front *f, const struct trust_front *tf, bool brief)
{
	struct ksp_cli *cli = f->cli;
	const struct cli_trust_opts *to = f->to;
	char (*fprs)[65] = NULL;
	json_t *report = NULL, *results = NULL;
	size_t n = 0;
	unsigned yes = 0;
	int r, status = KSP_EXIT_OK;

	r = cli_trust_find(f->store, to, &fprs, &n);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot look the %s up", cli->db_path, to->email ? "address" : "user ID");
	if (cli->json) {
		report = json_head(to);
		results = json_array();
		if (report == NULL || results == NULL) {
			json_decref(report);
			json_decref(results);
			free(fprs);
			return cli_fail(cli, -ENOMEM, "cannot make the JSON report");
		}
		cj_set(report, to->email ? "email" : "uid", cj_strz(to->email ? to->email : to->uid));
		cj_set(report, "results", json_incref(results));
	}
	for (size_t i = 0; i < n; i++) {
		r = tf->one(f, fprs[i], brief, results);
		if (r < 0) {
			status = KSP_EXIT_ERROR;
			break;
		}
		yes += r;
	}
	free(fprs);
	status = lookup_end(cli, to, report, n, yes, status, tf->verb);
	json_decref(results);
	json_decref(report);
	return status;
}

/* --batch FILE: one fingerprint a line, one verdict line each */
static int run_batch(struct front *f, const struct trust_front *tf, const char *batch)
{
	struct ksp_cli *cli = f->cli;
	uint8_t *data = NULL;
	size_t len;
	unsigned lineno = 0, n = 0, yes = 0;
	json_t *report = NULL, *results = NULL;
	char *save = NULL;
	int r, status = KSP_EXIT_OK;

	r = read_file_all(batch, 64u << 20, &data, &len);
	if (r < 0) {
		cli_err(cli, "%s: cannot read: %s", batch, strerror(-r));
		return KSP_EXIT_ERROR;
	}
	if (cli->json) {
		report = json_head(f->to);
		results = json_array();
		if (report == NULL || results == NULL) {
			json_decref(report);
			json_decref(results);
			free(data);
			return cli_fail(cli, -ENOMEM, "cannot make the JSON report");
		}
		cj_set(report, "results", json_incref(results));
	}
	for (char *l = strtok_r((char *)data, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char fpr[65], *p = l;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\0' || *p == '\r')
			continue;
		p[strcspn(p, tf->ot_lines ? " \t\r#:" : " \t\r#")] = '\0';
		if (fpr_normalize(p, fpr) < 0) {
			char *e = cli_escape(p, strlen(p), KSP_ESCAPE_TERMINAL);
			cli_err(cli, "%s:%u: '%s' is not a full fingerprint", batch, lineno, e ? e : "?");
			free(e);
			status = KSP_EXIT_ERROR;
			break;
		}
		r = tf->one(f, fpr, true, results);
		if (r < 0) {
			status = KSP_EXIT_ERROR;
			break;
		}
		n++;
		yes += r;
	}
	free(data);
	if (report) {
		cj_set(report, "keys", cj_int(n));
		cj_set(report, "trusted", cj_int(yes));
		if (cj_print(report) < 0)
			status = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
		json_decref(results);
	} else if (status == KSP_EXIT_OK && !cli->quiet)
		printf("%u of %u keys %s\n", yes, n, tf->verb);
	if (status == KSP_EXIT_OK && yes != n)
		status = KSP_EXIT_NEGATIVE;
	return status;
}

static int run_trust(struct ksp_cli *cli, int argc, char *argv[])
{
	enum { O_BATCH = 0x100 };
	static const struct option opts[] = {
		CLI_TRUST_LONGOPTS,
		CLI_TRUST_MODEL_LONGOPTS,
		CLI_TRUST_BINDING_LONGOPTS,
		{ "batch", required_argument, NULL, O_BATCH },
		{ "quiet", no_argument, NULL, 'q' },
		{},
	};
	const struct trust_front *tf;
	struct front f = { .cli = cli };
	struct cli_trust_opts to;
	const char *batch = NULL;
	bool brief = cli->quiet;
	int c, r, status = KSP_EXIT_OK;

	status = cli_trust_opts_init(cli, &to);
	if (status)
		return status;
	f.to = &to;
	while ((c = cli_getopt(cli, argc, argv, "q", opts)) != -1) {
		switch (c) {
		case O_BATCH:
			batch = optarg;
			break;
		case 'q':
			brief = true;
			break;
		default:
			r = cli_trust_opt(cli, &to, &ksp_cmd_trust, "trust", c, optarg);
			if (r < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			if (r == 0) {
				status = cli_usage_error(cli, &ksp_cmd_trust, "trust", "bad option");
				goto out;
			}
			break;
		}
	}
	status = cli_trust_opts_check(cli, &to, &ksp_cmd_trust, "trust");
	if (status)
		goto out;
	if ((to.email || to.uid) && batch) {
		status = cli_usage_error(cli, &ksp_cmd_trust, "trust", "--email and --uid ask about one key (or all that claim it), not --batch");
		goto out;
	}
	if (!(to.email || to.uid) && ((batch == NULL) == (optind >= argc) || (batch == NULL && optind + 1 != argc))) {
		status = cli_usage_error(cli, &ksp_cmd_trust, "trust", "give one fingerprint, or --batch FILE");
		goto out;
	}
	if ((to.email || to.uid) && optind + 1 < argc) {
		status = cli_usage_error(cli, &ksp_cmd_trust, "trust", "give at most one fingerprint with --email or --uid");
		goto out;
	}
	r = cli_open_store(cli, 0, &f.store);
	if (r) {
		status = r;
		goto out;
	}
	tf = front_of(ksp_trust_policy_get_model(to.policy));
	if (tf->setup && (status = tf->setup(&f)) != 0)
		goto out;
	if ((to.email || to.uid) && optind >= argc) {
		status = run_lookup(&f, tf, brief);
	} else if (batch == NULL) {
		json_t *results = NULL;
		char fpr[65];

		if (fpr_normalize(argv[optind], fpr) < 0) {
			cli_err(cli, "'%s' is not a full fingerprint (40 or 64 hex digits); short key IDs are not accepted",
				argv[optind]);
			status = KSP_EXIT_ERROR;
			goto out;
		}
		if (cli->json)
			results = json_array();
		if (cli->json && results == NULL) {
			status = cli_fail(cli, -ENOMEM, "cannot make the JSON report");
			goto out;
		}
		r = tf->one(&f, fpr, brief, results);
		if (results && r >= 0 && cj_print(json_incref(json_array_get(results, 0))) < 0) {
			cli_fail(cli, -ENOMEM, "cannot write the JSON report");
			r = -ENOMEM;
		}
		json_decref(results);
		status = r < 0 ? KSP_EXIT_ERROR : r ? KSP_EXIT_OK : KSP_EXIT_NEGATIVE;
	} else {
		status = run_batch(&f, tf, batch);
	}
out:
	ksp_trust_gnupg_free(f.gr.g);
	ksp_store_unref(f.store);
	cli_trust_opts_done(&to);
	return status;
}
