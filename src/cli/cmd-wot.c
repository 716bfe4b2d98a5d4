// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/ksp.h"
#include "shared/util.h"

static int run_load(struct ksp_cli *cli, int argc, char *argv[]);
static int run_stats(struct ksp_cli *cli, int argc, char *argv[]);

static const struct ksp_cmd cmd_load = {
	.name = "load",
	.run = run_load,
	.usage = "[--strict] FILE...",
	.help = "read keyrings into the store with the native reader",
	.details = "FILE is a binary or armored keyring, several concatenated, or a keyserver\n"
		   "dump; - reads stdin. All files are one transaction. Malformed keys are\n"
		   "skipped and counted.\n\n"
		   "Options:\n"
		   "  --strict   a malformed key fails the whole load\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd cmd_stats = {
	.name = "stats",
	.run = run_stats,
	.usage = "--structural [--top N] [--json]",
	.help = "strong set, mean shortest distances, top keys",
	.details = "Options:\n"
		   "  --structural  count every certification, unchecked (as keyanalyze does)\n"
		   "  --top N       how many keys of lowest MSD to list (default 10)\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd *const wot_cmds[] = { &cmd_load, &cmd_stats, NULL };

const struct ksp_cmd ksp_cmd_wot = {
	.name = "wot",
	.usage = "COMMAND [ARGS]",
	.help = "analyze the web of trust",
	.group = KSP_GROUP_ADMIN,
	.subcmds = wot_cmds,
};

static int run_load(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "strict", no_argument, NULL, 's' },
		{},
	};
	struct ksp_store *store = NULL;
	unsigned int flags = 0;
	uint64_t keys = 0, certs = 0, bad = 0;
	int c, r, status = KSP_EXIT_OK;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's')
			flags |= KSP_WOT_LOAD_STRICT;
		else
			return cli_usage_error(cli, &cmd_load, "wot load", "bad option");
	}
	if (optind >= argc)
		return cli_usage_error(cli, &cmd_load, "wot load", "no keyring given");
	r = cli_open_store(cli, KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store);
	if (r)
		return r;
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto out;
	}
	if (cli->json)
		printf("{\"format_version\":1,\"files\":[");
	for (int i = optind; i < argc; i++) {
		uint8_t *data = NULL;
		size_t len = 0;
		uint64_t k = 0, ce = 0, b = 0;

		r = read_file_all(argv[i], 0, &data, &len);
		if (r < 0) {
			fprintf(stderr, "ksp: %s: cannot read: %s; nothing was loaded\n", argv[i], strerror(-r));
			status = KSP_EXIT_ERROR;
			break;
		}
		r = ksp_wot_load(store, data, len, argv[i], flags, &k, &ce, &b);
		free(data);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot load", argv[i]);
			break;
		}
		if (cli->json) {
			printf("%s{\"file\":", i > optind ? "," : "");
			cli_json_str(stdout, argv[i], strlen(argv[i]));
			printf(",\"keys\":%llu,\"new_certifications\":%llu,\"bad_keys\":%llu}",
			       (unsigned long long)k, (unsigned long long)ce, (unsigned long long)b);
		} else {
			char *e = cli_escape(argv[i], strlen(argv[i]), KSP_ESCAPE_TERMINAL);
			printf("%s: %llu keys, %llu new certifications, %llu malformed keys skipped\n", e ? e : "?",
			       (unsigned long long)k, (unsigned long long)ce, (unsigned long long)b);
			free(e);
		}
		keys += k;
		certs += ce;
		bad += b;
	}
	if (cli->json)
		printf("]}\n");
	if (status != KSP_EXIT_OK) {
		ksp_store_rollback(store);
		goto out;
	}
	r = ksp_store_commit(store);
	if (r < 0)
		status = cli_fail(cli, r, "%s: cannot save", cli->db_path);
	else if (!cli->json && argc - optind > 1)
		printf("total: %llu keys, %llu new certifications, %llu malformed keys skipped\n",
		       (unsigned long long)keys, (unsigned long long)certs, (unsigned long long)bad);
out:
	ksp_store_unref(store);
	return status;
}

static int run_stats(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "structural", no_argument, NULL, 's' },
		{ "top", required_argument, NULL, 't' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_wot_stats *s = NULL;
	unsigned int flags = 0;
	long top = 10;
	int c, r, status = KSP_EXIT_OK;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 's') {
			flags |= KSP_WOT_STRUCTURAL;
		} else if (c == 't') {
			char *end;
			top = strtol(optarg, &end, 10);
			if (*end || top < 0 || top > 1000000)
				return cli_usage_error(cli, &cmd_stats, "wot stats", "--top takes a number");
		} else {
			return cli_usage_error(cli, &cmd_stats, "wot stats", "bad option");
		}
	}
	r = cli_open_store(cli, 0, &store);
	if (r)
		return r;
	r = ksp_wot_stats_new(store, (int64_t)time(NULL), flags, &s);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot compute the metrics", cli->db_path);
		goto out;
	}
	if (cli->json) {
		printf("{\"format_version\":1,\"graph\":\"%s\",\"vertices\":%llu,\"edges\":%llu,\"scc_count\":%llu,"
		       "\"strong_set_size\":%llu,\"strong_set_edges\":%llu,\"strong_set_distance_sum\":%llu,"
		       "\"strong_set_msd\":%.6f,\"top\":[",
		       "structural", (unsigned long long)ksp_wot_stats_get_vertices(s),
		       (unsigned long long)ksp_wot_stats_get_edges(s), (unsigned long long)ksp_wot_stats_get_scc_count(s),
		       (unsigned long long)ksp_wot_stats_get_strong_set_size(s),
		       (unsigned long long)ksp_wot_stats_get_strong_set_edges(s),
		       (unsigned long long)ksp_wot_stats_get_distance_sum(s), ksp_wot_stats_get_msd(s));
	} else {
		printf("Graph: structural (every certification counts, unchecked)\n"
		       "Keys (vertices):       %llu\nEdges:                 %llu\n"
		       "Strongly connected components: %llu\nStrong set:            %llu keys, %llu edges\n"
		       "Strong-set MSD:        %.6f\n",
		       (unsigned long long)ksp_wot_stats_get_vertices(s), (unsigned long long)ksp_wot_stats_get_edges(s),
		       (unsigned long long)ksp_wot_stats_get_scc_count(s),
		       (unsigned long long)ksp_wot_stats_get_strong_set_size(s),
		       (unsigned long long)ksp_wot_stats_get_strong_set_edges(s), ksp_wot_stats_get_msd(s));
		if (top > 0 && ksp_wot_stats_get_strong_set_size(s) > 1)
			printf("\nLowest MSD:\n  rank  MSD       fingerprint\n");
	}
	for (long i = 0; i < top; i++) {
		uint64_t sum;
		double msd;
		const char *fpr = ksp_wot_stats_get_ranked(s, (size_t)i, &sum, &msd);
		if (fpr == NULL)
			break;
		if (cli->json)
			printf("%s{\"rank\":%ld,\"fingerprint\":\"%s\",\"distance_sum\":%llu,\"msd\":%.6f}", i ? "," : "",
			       i + 1, fpr, (unsigned long long)sum, msd);
		else
			printf("  %4ld  %.6f  %s\n", i + 1, msd, fpr);
	}
	if (cli->json)
		printf("]}\n");
out:
	ksp_wot_stats_free(s);
	ksp_store_unref(store);
	return status;
}
