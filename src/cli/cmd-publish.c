// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp publish: the store as kernel.org's pgpkeys repository lays it out */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "cli/trust-opts.h"
#include "shared/util.h"

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_publish = {
	.name = "publish",
	.run = run,
	.usage = "[--policy FILE | --core-fpr FPR...] [--max-depth L] [--max-paths N] [--keep]\n"
		 "       [--sha1 RULE | --no-sha1] [--allow-md5] [--audit-weak] [--no-svg] [--at DATE] [--json] DIR",
	.help = "publish the keys with paths from the core as kernel.org's pgpkeys does",
	.details = "Writes into DIR, for every key with a certification path from the core:\n"
		   "keys/KEYID.asc (a gpg --list-keys-like header, then the key exported clean:\n"
		   "its self-signatures and only the certifications verified in the store and\n"
		   "made by published keys), graphs/KEYID.txt (wotmate's format) and .svg, and\n"
		   ".keyring/openpgp/DOMAIN/LOCAL/default and .keyring/by-hash/ (b4, patatt).\n"
		   "The paths are a maximum set of vertex-disjoint paths (sharing only the core\n"
		   "key and the target) of at most L certifications, from the engine of\n"
		   "'ksp trust'. Only the files whose content changed are rewritten; what\n"
		   "changed is printed (added, changed, removed, paths gained or lost).\n"
		   "Nothing is touched when an error comes first. See ksp-publish(1).\n\n"
		   "Options:\n"
		   "  --policy FILE     the rule (core keys, hash rules; see ksp-trust(1))\n"
		   "  --core FILE       core fingerprints, one per line\n"
		   "  --core-fpr FPR    a core key (repeatable); with one, paths start there\n"
		   "  --core-party      the store's party participants are the core\n"
		   "  --per-uid         the paths' last certifications are on one user ID\n"
		   "  --min-key-bits N  RSA/DSA/ElGamal signers below N bits do not count\n"
		   "  --max-cert-age A  certifications older than A (90d, 2y, seconds) do not count\n"
		   "  --max-depth L     at most L certifications per path (default 4)\n"
		   "  --max-paths N     at most N paths per key (default 4)\n"
		   "  --keep            publish the keys without a path too (graphs: none)\n"
		   "  --sha1 RULE       before-2019 (the default, gpg 2.2's), no, yes: which SHA-1\n"
		   "                    certifications count (yes is risky: SHA-1 collisions let\n"
		   "                    whoever prepares a key being signed forge its certification)\n"
		   "  --no-sha1         --sha1 no (nor RIPEMD-160)\n"
		   "  --allow-md5       MD5 certifications count\n"
		   "  --audit-weak      list the weak-hash certifications on the paths, per\n"
		   "                    certifier, and the keys left with no path without them\n"
		   "  --no-svg          no graphs/KEYID.svg\n"
		   "  --model paths     the paths model, whatever the policy names: publishing is\n"
		   "                    defined on it only (a policy's model = gnupg or sequoia is\n"
		   "                    refused)\n"
		   "  --at DATE         reference time (default: now)\n",
	.group = KSP_GROUP_ADMIN,
};

enum { O_MAX_PATHS = 0x2000, O_KEEP, O_AUDIT, O_NO_SVG };

static const char *kind_name(int k)
{
	return k == KSP_PUBLISH_ADDED ? "added" : k == KSP_PUBLISH_CHANGED ? "changed" : "removed";
}

/* (Long: the options, then publish and its report in text or JSON; one exit.) */
static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		CLI_TRUST_LONGOPTS,
		{ "max-paths", required_argument, NULL, O_MAX_PATHS },
		{ "keep", no_argument, NULL, O_KEEP },
		{ "audit-weak", no_argument, NULL, O_AUDIT },
		{ "no-svg", no_argument, NULL, O_NO_SVG },
		{},
	};
	struct cli_trust_opts to;
	struct ksp_store *store = NULL;
	struct ksp_publish *pub = NULL;
	long max_paths = 4;
	bool keep = false, audit = false, svg = true;
	int c, r, status;

	status = cli_trust_opts_init(cli, &to);
	if (status)
		return status;
	(void)ksp_trust_policy_set_max_depth(to.policy, 4); /* wotmate's */
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case O_MAX_PATHS: {
			char *end;
			errno = 0;
			max_paths = strtol(optarg, &end, 10);
			if (errno || *end || max_paths < 1 || max_paths > 64) {
				status = cli_usage_error(cli, &ksp_cmd_publish, "publish", "--max-paths is 1 to 64, not '%s'",
							 optarg);
				goto out;
			}
			break;
		}
		case O_KEEP:
			keep = true;
			break;
		case O_AUDIT:
			audit = true;
			break;
		case O_NO_SVG:
			svg = false;
			break;
		case CLI_TRUST_OPT_MIN_PATHS:
			status = cli_usage_error(cli, &ksp_cmd_publish, "publish",
						 "--min-paths is for 'ksp trust'; here --max-paths N");
			goto out;
		default:
			r = cli_trust_opt(cli, &to, &ksp_cmd_publish, "publish", c, optarg);
			if (r < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			if (r == 0) {
				status = cli_usage_error(cli, &ksp_cmd_publish, "publish", "bad option");
				goto out;
			}
			break;
		}
	}
	if (optind + 1 != argc) {
		status = cli_usage_error(cli, &ksp_cmd_publish, "publish", "give one folder to publish into");
		goto out;
	}
	if (ksp_trust_policy_get_core_count(to.policy) == 0) {
		status = cli_usage_error(cli, &ksp_cmd_publish, "publish",
					 "no core key: give --core-fpr FPR (kernel.org: Linus Torvalds' key) or --policy FILE");
		goto out;
	}
	r = cli_open_store(cli, 0, &store);
	if (r) {
		status = r;
		goto out;
	}
	r = ksp_publish_new(store, to.policy, &pub);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot publish", argv[optind]);
		goto out;
	}
	(void)ksp_publish_set_max_paths(pub, (int)max_paths);
	ksp_publish_set_keep(pub, keep);
	ksp_publish_set_svg(pub, svg);
	ksp_publish_set_at(pub, to.at);
	if (audit && (r = ksp_publish_set_audit(pub, true)) < 0) {
		status = cli_fail(cli, r, "%s: cannot publish", argv[optind]);
		goto out;
	}
	r = ksp_publish_write(pub, argv[optind]);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot publish", argv[optind]);
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object(), *a = json_array();

		cj_set(o, "format_version", cj_int(1));
		cj_set(o, "keys", cj_int(ksp_publish_get_key_count(pub)));
		for (size_t i = 0; a && i < ksp_publish_get_change_count(pub); i++) {
			const char *path = NULL;
			int old = -1, n = -1, k = ksp_publish_get_change(pub, i, &path, &old, &n);
			json_t *ch = json_pack("{s:s,s:o}", "change", kind_name(k), "path", cj_strz(path));

			if (ch && (old >= 0 || n >= 0)) {
				cj_set(ch, "old_paths", cj_int(old));
				cj_set(ch, "new_paths", cj_int(n));
			}
			cj_push(a, ch);
		}
		cj_set(o, "changes", a);
		a = json_array();
		for (size_t i = 0; a && i < ksp_publish_get_pathless_count(pub); i++)
			cj_push(a, cj_strz(ksp_publish_get_pathless(pub, i)));
		cj_set(o, "without_path", a);
		if (audit) {
			a = json_array();
			for (size_t i = 0; a && i < ksp_publish_get_weak_count(pub); i++) {
				unsigned m = 0, s = 0, rr = 0;
				const char *f = ksp_publish_get_weak(pub, i, &m, &s, &rr);

				cj_push(a, json_pack("{s:s,s:I,s:I,s:I}", "fpr", f, "md5", (json_int_t)m, "sha1",
						     (json_int_t)s, "ripemd160", (json_int_t)rr));
			}
			cj_set(o, "weak_certifiers", a);
			a = json_array();
			for (size_t i = 0; a && i < ksp_publish_get_orphan_count(pub); i++)
				cj_push(a, cj_strz(ksp_publish_get_orphan(pub, i)));
			cj_set(o, "lose_all_paths", a);
		}
		if (o == NULL || cj_print(o) < 0) {
			status = cli_fail(cli, -ENOMEM, "%s: published, but cannot write the JSON report", argv[optind]);
			goto out;
		}
	} else {
		for (size_t i = 0; i < ksp_publish_get_change_count(pub); i++) {
			const char *path = NULL;
			int o = -1, n = -1, k = ksp_publish_get_change(pub, i, &path, &o, &n);

			printf("%-8s %s", kind_name(k), path);
			if (o >= 0 && n >= 0 && o != n)
				printf("  (paths %d -> %d: %s %d)", o, n, n > o ? "gained" : "lost", n > o ? n - o : o - n);
			printf("\n");
		}
		for (size_t i = 0; i < ksp_publish_get_pathless_count(pub); i++)
			printf("no path  %s%s\n", ksp_publish_get_pathless(pub, i), keep ? " (kept)" : " (left out)");
		if (audit) {
			for (size_t i = 0; i < ksp_publish_get_weak_count(pub); i++) {
				unsigned m = 0, s = 0, rr = 0;
				const char *f = ksp_publish_get_weak(pub, i, &m, &s, &rr);
				printf("weak     %s: on the paths, %u SHA-1, %u MD5, %u RIPEMD-160 certification(s)\n", f, s,
				       m, rr);
			}
			for (size_t i = 0; i < ksp_publish_get_orphan_count(pub); i++)
				printf("orphan   %s: no path without weak-hash certifications\n",
				       ksp_publish_get_orphan(pub, i));
		}
		printf("%zu key(s) published, %zu without a path, %zu file(s) changed\n", ksp_publish_get_key_count(pub),
		       ksp_publish_get_pathless_count(pub), ksp_publish_get_change_count(pub));
	}
	status = cli_output_failed() ? cli_output_fail(cli, "%s", "the report is incomplete") : KSP_EXIT_OK;
out:
	ksp_publish_free(pub);
	ksp_store_unref(store);
	cli_trust_opts_done(&to);
	return status;
}
