// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "shared/util.h"

static int run_load(struct ksp_cli *cli, int argc, char *argv[]);
static int run_stats(struct ksp_cli *cli, int argc, char *argv[]);
static int run_key(struct ksp_cli *cli, int argc, char *argv[]);
static int run_path(struct ksp_cli *cli, int argc, char *argv[]);

static const struct ksp_cmd cmd_load = {
	.name = "load",
	.run = run_load,
	.usage = "[--strict] [--no-verify] [--full] [--prune] FILE|DIR...",
	.help = "read keyrings into the store with the native reader",
	.details = "FILE is a binary or armored keyring, several concatenated, or a keyserver\n"
		   "dump; - reads stdin; a DIR is a key tree as kernel.org's pgpkeys lays it\n"
		   "out (keys/*.asc, .keyring/openpgp/; see ksp-publish(1)). All files are one\n"
		   "transaction. Malformed keys are skipped and counted. Every signature on a\n"
		   "user ID and every key self-signature is checked with libgcrypt on all CPUs\n"
		   "(KSP_THREADS=N to choose); progress is shown when stderr is a terminal. A key\n"
		   "the store holds already, byte for byte, is not read nor checked again.\n\n"
		   "Options:\n"
		   "  --strict     a malformed key fails the whole load\n"
		   "  --no-verify  store signatures unchecked (only --structural metrics\n"
		   "               count them)\n"
		   "  --full       check and write again the keys the store holds already,\n"
		   "               byte for byte (by default they are skipped: a reload\n"
		   "               costs what changed)\n"
		   "  --prune      remove the keys last loaded from the same FILE or DIR (as\n"
		   "               named) that it no longer holds: the store is then what\n"
		   "               loading it alone gives (keys a party names are kept)\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd cmd_stats = {
	.name = "stats",
	.run = run_stats,
	.usage = "[--at DATE] [--no-sha1] [--allow-md5] [--structural] [--keyring FILE]... [--top N] [--json]",
	.help = "strong set, mean shortest distances, top keys",
	.details = "Counts only verified, unexpired, unrevoked certifications between valid\n"
		   "keys at the reference time (see ksp-wot(1) for the exact rules).\n\n"
		   "Options:\n"
		   "  --at DATE     reference time, YYYY-MM-DD[THH:MM:SS[Z]] or @EPOCH (default: now)\n"
		   "  --no-sha1     drop SHA-1 and RIPEMD-160 certifications\n"
		   "  --allow-md5   count MD5 certifications (by default they do not count)\n"
		   "  --structural  count every certification, unchecked (as keyanalyze does)\n"
		   "  --keyring FILE  read FILE (repeat for several) instead of the store, and\n"
		   "                keep nothing; with --structural only (nothing is verified)\n"
		   "  --top N       how many keys of lowest MSD to list (default 10)\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd cmd_key = {
	.name = "key",
	.run = run_key,
	.usage = "[--at DATE] [--no-sha1] [--allow-md5] [--structural] [--keyring FILE]... FPR [--json]",
	.help = "one key: degrees, strong set, MSD rank, distance to the strong set",
	.details = "Options: as for 'ksp wot stats'.\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd cmd_path = {
	.name = "path",
	.run = run_path,
	.usage = "[--at DATE] [--no-sha1] [--allow-md5] [--structural] [--all] FROM TO [--json]",
	.help = "shortest certification path(s) from one key to another",
	.details = "FROM and TO are full fingerprints. Each hop shows the signer, the signee,\n"
		   "the user ID certified and the date of the newest certification. Exit\n"
		   "status 1 when there is no path.\n\n"
		   "Options: as for 'ksp wot stats', and\n"
		   "  --all         every shortest path (at most 1024)\n",
	.group = KSP_GROUP_ADMIN,
};

static const struct ksp_cmd *const wot_cmds[] = { &cmd_load, &ksp_cmd_wot_refresh, &cmd_stats, &cmd_key, &cmd_path, NULL };

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
		{ "no-verify", no_argument, NULL, 'n' },
		{ "full", no_argument, NULL, 'f' },
		{ "prune", no_argument, NULL, 'p' },
		{},
	};
	struct ksp_store *store = NULL;
	unsigned int flags = 0;
	uint64_t keys = 0, certs = 0, bad = 0;
	json_t *report = NULL, *files = NULL;
	int c, r, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 's')
			flags |= KSP_WOT_LOAD_STRICT;
		else if (c == 'n')
			flags |= KSP_WOT_LOAD_NO_VERIFY;
		else if (c == 'f')
			flags |= KSP_WOT_LOAD_FULL;
		else if (c == 'p')
			flags |= KSP_WOT_LOAD_PRUNE;
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
	if (cli->json) {
		report = json_object();
		files = json_array();
		if (report == NULL || files == NULL) {
			json_decref(files);
			status = cli_fail(cli, -ENOMEM, "cannot make the JSON report");
			goto out;
		}
		cj_set(report, "format_version", cj_int(1));
		cj_set(report, "files", json_incref(files));
	}
	for (int i = optind; i < argc; i++) {
		uint64_t k = 0, ce = 0, b = 0;
		struct stat st;

		if (strcmp(argv[i], "-") != 0 && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			/* a key tree (keys/NAME.asc, .keyring/openpgp/): one keyring */
			void *tree = NULL;
			size_t len = 0;

			r = ksp_keytree_read(cli->ctx, argv[i], &tree, &len);
			if (r >= 0)
				r = ksp_wot_load(store, tree, len, argv[i], flags, &k, &ce, &b);
			free(tree);
		} else {
			int fd = cli_open_input(argv[i]);

			if (fd < 0) {
				fprintf(stderr, "ksp: %s: cannot read: %s; nothing was loaded\n", argv[i], strerror(-fd));
				status = KSP_EXIT_ERROR;
				break;
			}
			r = ksp_wot_load_fd(store, fd, argv[i], flags, &k, &ce, &b);
			cli_close_input(fd);
		}
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot load", argv[i]);
			break;
		}
		if (files) {
			json_t *f = json_object();

			if (f) {
				cj_set(f, "file", cj_strz(argv[i]));
				cj_set(f, "keys", cj_int(k));
				cj_set(f, "new_certifications", cj_int(ce));
				cj_set(f, "bad_keys", cj_int(b));
			}
			cj_push(files, f);
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
	if (report && cj_print(json_incref(report)) < 0 && status == KSP_EXIT_OK) {
		ksp_store_rollback(store);
		status = cli_output_fail(cli, "%s", "nothing was loaded, run the command again");
		goto out;
	}
	if (status == KSP_EXIT_OK && cli_output_failed()) {
		/* the report is short of a file: store nothing rather than that */
		ksp_store_rollback(store);
		status = cli_output_fail(cli, "%s", "nothing was loaded, run the command again");
		goto out;
	}
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
	json_decref(files);
	json_decref(report);
	ksp_store_unref(store);
	return status;
}

/* Options common to stats, key and path.  Returns 0, or an exit status. */
struct graph_opts {
	int64_t at;
	unsigned int flags;
	long top;
	bool all;
	char **keyrings; /* --keyring FILE..., into argv; malloc()ed array */
	int n_keyrings;
};

/* What the metrics were computed from: the store, or keyrings read
 * without it (--keyring). */
struct graph_src {
	struct ksp_store *store;
	struct ksp_wot_scan *scan;
};

static void graph_src_done(struct graph_src *g, struct ksp_wot_stats *s)
{
	ksp_wot_stats_free(s);
	ksp_store_unref(g->store);
	ksp_wot_scan_free(g->scan);
	g->store = NULL;
	g->scan = NULL;
}

static int key_uid(const struct graph_src *g, const char *fpr, char **uid, size_t *len)
{
	return g->store ? ksp_store_get_key_uid(g->store, fpr, uid, len) : ksp_wot_scan_get_key_uid(g->scan, fpr, uid, len);
}

static int parse_graph_opts_loop(struct ksp_cli *cli, const struct ksp_cmd *cmd, const char *name, int argc,
				 char *argv[], struct graph_opts *o, const struct option *opts);

static int parse_graph_opts(struct ksp_cli *cli, const struct ksp_cmd *cmd, const char *name, int argc,
			    char *argv[], struct graph_opts *o)
{
	static const struct option opts[] = {
		{ "structural", no_argument, NULL, 's' },
		{ "no-sha1", no_argument, NULL, 'w' },
		{ "allow-md5", no_argument, NULL, 'M' },
		{ "at", required_argument, NULL, 'a' },
		{ "top", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'A' },
		{ "keyring", required_argument, NULL, 'k' },
		{},
	};
	int r;

	o->at = (int64_t)time(NULL);
	o->flags = 0;
	o->top = 10;
	o->all = false;
	o->n_keyrings = 0;
	o->keyrings = calloc((size_t)argc + 1, sizeof(*o->keyrings));
	if (o->keyrings == NULL)
		return cli_fail(cli, -ENOMEM, "cannot read the options");
	r = parse_graph_opts_loop(cli, cmd, name, argc, argv, o, opts);
	if (r) {
		free(o->keyrings);
		o->keyrings = NULL;
	}
	return r;
}

static int parse_graph_opts_loop(struct ksp_cli *cli, const struct ksp_cmd *cmd, const char *name, int argc,
				 char *argv[], struct graph_opts *o, const struct option *opts)
{
	int c;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 's':
			o->flags |= KSP_WOT_STRUCTURAL;
			break;
		case 'w':
			o->flags |= KSP_WOT_NO_SHA1;
			break;
		case 'M':
			o->flags |= KSP_WOT_ALLOW_MD5;
			break;
		case 'a':
			if (parse_date(optarg, &o->at) < 0)
				return cli_usage_error(cli, cmd, name, "--at takes YYYY-MM-DD[THH:MM:SS[Z]] or @EPOCH, not '%s'",
						       optarg);
			break;
		case 't': {
			char *end;
			if (cmd != &cmd_stats)
				return cli_usage_error(cli, cmd, name, "--top is for 'wot stats'");
			o->top = strtol(optarg, &end, 10);
			if (*end || o->top < 0 || o->top > 1000000)
				return cli_usage_error(cli, cmd, name, "--top takes a number");
			break;
		}
		case 'A':
			if (cmd != &cmd_path)
				return cli_usage_error(cli, cmd, name, "--all is for 'wot path'");
			o->all = true;
			break;
		case 'k':
			if (cmd == &cmd_path)
				return cli_usage_error(cli, cmd, name, "--keyring is for 'wot stats' and 'wot key': a path "
									   "shows certifications, which only the store keeps");
			o->keyrings[o->n_keyrings++] = optarg;
			break;
		default:
			return cli_usage_error(cli, cmd, name, "bad option");
		}
	}
	if ((o->flags & KSP_WOT_STRUCTURAL) && (o->flags & (KSP_WOT_NO_SHA1 | KSP_WOT_ALLOW_MD5)))
		return cli_usage_error(cli, cmd, name,
				       "--structural checks nothing, so --no-sha1 and --allow-md5 do not apply");
	if (o->n_keyrings && !(o->flags & KSP_WOT_STRUCTURAL))
		return cli_usage_error(cli, cmd, name,
				       "--keyring reads FILE without verifying anything: add --structural, or run "
				       "'ksp wot load FILE' for the verified graph");
	return 0;
}

static const char *graph_name(unsigned int flags)
{
	return (flags & KSP_WOT_STRUCTURAL) ? "structural" : (flags & KSP_WOT_NO_SHA1) ? "verified_no_sha1" : "verified";
}

/* The keyrings of --keyring, read without the store. */
static int scan_keyrings(struct ksp_cli *cli, const struct graph_opts *o, struct graph_src *g,
			 struct ksp_wot_stats **s)
{
	int r = ksp_wot_scan_new(cli->ctx, &g->scan);

	if (r < 0)
		return cli_fail(cli, r, "cannot read the keyrings");
	for (int i = 0; i < o->n_keyrings; i++) {
		int fd = cli_open_input(o->keyrings[i]);

		if (fd < 0) {
			char *e = cli_escape(o->keyrings[i], strlen(o->keyrings[i]), KSP_ESCAPE_TERMINAL);
			cli_err(cli, "%s: cannot read: %s; check the file name and its permissions", e ? e : "?",
				strerror(-fd));
			free(e);
			return KSP_EXIT_ERROR;
		}
		r = ksp_wot_scan_add_fd(g->scan, fd, o->keyrings[i], NULL, NULL, NULL);
		cli_close_input(fd);
		if (r < 0)
			return cli_fail(cli, r, "%s: cannot read", o->keyrings[i]);
	}
	r = ksp_wot_stats_new_from_scan(g->scan, o->at, o->flags, s);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot compute the metrics", o->keyrings[0]);
	return 0;
}

/* Consumes o->keyrings.  On failure g is released. */
static int open_stats(struct ksp_cli *cli, struct graph_opts *o, struct graph_src *g, struct ksp_wot_stats **s)
{
	int r;

	*g = (struct graph_src){ 0 };
	*s = NULL;
	if (o->n_keyrings) {
		r = scan_keyrings(cli, o, g, s);
		free(o->keyrings);
		o->keyrings = NULL;
		if (r)
			graph_src_done(g, NULL);
		return r;
	}
	free(o->keyrings);
	o->keyrings = NULL;
	r = cli_open_store(cli, 0, &g->store);
	if (r)
		return r;
	r = ksp_wot_stats_new(g->store, o->at, o->flags, s);
	if (r < 0) {
		graph_src_done(g, NULL);
		return cli_fail(cli, r, "%s: cannot compute the metrics", cli->db_path);
	}
	if (!(o->flags & KSP_WOT_STRUCTURAL) && ksp_wot_stats_get_certs(*s, KSP_WOT_CERTS_UNCHECKED) > 0 &&
	    !cli->quiet)
		cli_warn(cli, "%s: %llu certifications were loaded with --no-verify and do not count; load them again "
			      "without it, or use --structural",
			 cli->db_path, (unsigned long long)ksp_wot_stats_get_certs(*s, KSP_WOT_CERTS_UNCHECKED));
	return 0;
}

static void print_bucketed_degrees(const struct ksp_wot_stats *s, bool in, json_t *json)
{
	uint64_t b[34] = { 0 };
	uint64_t n = ksp_wot_stats_get_vertices(s);
	int top = 0;

	for (uint64_t v = 0; v < n; v++) {
		uint32_t d = ksp_wot_stats_get_key_degree(s, (uint32_t)v, in);
		int k = 0;
		while (k < 33 && d >= (1u << k))
			k++;
		b[k]++; /* bucket 0: degree 0; k: 2^(k-1) .. 2^k - 1 */
		if (k > top)
			top = k;
	}
	for (int k = 0; k <= top; k++) {
		unsigned lo = k == 0 ? 0 : 1u << (k - 1), hi = k == 0 ? 0 : (1u << k) - 1;
		if (json) {
			json_t *e = json_object();

			if (e) {
				cj_set(e, "min", cj_int(lo));
				cj_set(e, "max", cj_int(hi));
				cj_set(e, "keys", cj_int(b[k]));
			}
			cj_push(json, e);
		} else if (lo == hi)
			printf("    %5u        %8llu\n", lo, (unsigned long long)b[k]);
		else
			printf("    %5u-%-6u  %8llu\n", lo, hi, (unsigned long long)b[k]);
	}
}

/* wot stats --json, all but "top" */
static json_t *stats_json(const struct graph_opts *o, const struct ksp_wot_stats *s, int maxd)
{
	static const struct {
		const char *name;
		int which;
	} certs[] = {
		{ "total", KSP_WOT_CERTS_TOTAL },
		{ "good", KSP_WOT_CERTS_GOOD },
		{ "bad", KSP_WOT_CERTS_BAD },
		{ "unsupported", KSP_WOT_CERTS_UNSUPPORTED },
		{ "dangling", KSP_WOT_CERTS_DANGLING },
		{ "unchecked", KSP_WOT_CERTS_UNCHECKED },
		{ "revocations", KSP_WOT_CERTS_REVOCATIONS },
		{ "dropped_md5", KSP_WOT_CERTS_DROPPED_MD5 },
		{ "dropped_sha1", KSP_WOT_CERTS_DROPPED_SHA1 },
	};
	json_t *j = json_object(), *c = json_object(), *a;

	if (j == NULL || c == NULL) {
		json_decref(j);
		json_decref(c);
		return NULL;
	}
	cj_set(j, "format_version", cj_int(1));
	cj_set(j, "graph", cj_strz(graph_name(o->flags)));
	cj_set(j, "at", cj_int(o->at));
	cj_set(j, "keys", cj_int(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_TOTAL)));
	cj_set(j, "keys_revoked", cj_int(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_REVOKED)));
	cj_set(j, "keys_expired", cj_int(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_EXPIRED)));
	cj_set(j, "keys_not_yet_valid", cj_int(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_NOT_YET_VALID)));
	for (size_t i = 0; i < ARRAY_SIZE(certs); i++)
		cj_set(c, certs[i].name, cj_int(ksp_wot_stats_get_certs(s, certs[i].which)));
	cj_set(j, "certifications", c);
	cj_set(j, "vertices", cj_int(ksp_wot_stats_get_vertices(s)));
	cj_set(j, "edges", cj_int(ksp_wot_stats_get_edges(s)));
	cj_set(j, "scc_count", cj_int(ksp_wot_stats_get_scc_count(s)));
	a = json_array();
	for (size_t i = 0; a && i < 10 && ksp_wot_stats_get_scc_size(s, i); i++)
		cj_push(a, cj_int(ksp_wot_stats_get_scc_size(s, i)));
	cj_set(j, "scc_sizes_top", a);
	cj_set(j, "strong_set_size", cj_int(ksp_wot_stats_get_strong_set_size(s)));
	cj_set(j, "strong_set_edges", cj_int(ksp_wot_stats_get_strong_set_edges(s)));
	cj_set(j, "strong_set_distance_sum", cj_int(ksp_wot_stats_get_distance_sum(s)));
	cj_set(j, "strong_set_msd", cj_fixed(ksp_wot_stats_get_msd(s), 6));
	cj_set(j, "reachable_from_strong_set", cj_int(ksp_wot_stats_get_reachable(s, false)));
	cj_set(j, "reaching_strong_set", cj_int(ksp_wot_stats_get_reachable(s, true)));
	a = json_array();
	for (int d = 1; a && d <= maxd; d++) {
		json_t *e = json_object();

		if (e) {
			cj_set(e, "distance", cj_int(d));
			cj_set(e, "pairs", cj_int(ksp_wot_stats_get_distance_count(s, (unsigned)d)));
		}
		cj_push(a, e);
	}
	cj_set(j, "distance_histogram", a);
	a = json_array();
	if (a)
		print_bucketed_degrees(s, true, a);
	cj_set(j, "in_degree", a);
	a = json_array();
	if (a)
		print_bucketed_degrees(s, false, a);
	cj_set(j, "out_degree", a);
	return j;
}

static int run_stats(struct ksp_cli *cli, int argc, char *argv[])
{
	struct graph_opts o;
	struct graph_src g = { 0 };
	struct ksp_wot_stats *s = NULL;
	json_t *report = NULL, *top = NULL;
	char when[32];
	int r, maxd = 0;

	r = parse_graph_opts(cli, &cmd_stats, "wot stats", argc, argv, &o);
	if (r)
		return r;
	if (optind < argc) {
		free(o.keyrings);
		return cli_usage_error(cli, &cmd_stats, "wot stats", "unexpected argument '%s'", argv[optind]);
	}
	r = open_stats(cli, &o, &g, &s);
	if (r)
		return r;
	format_datetime(o.at, when, sizeof(when));
	for (int d = 1; d <= (int)KSP_WOT_MAX_DISTANCE; d++)
		if (ksp_wot_stats_get_distance_count(s, (unsigned)d))
			maxd = d;
#define U(x) ((unsigned long long)(x))
	if (cli->json) {
		report = stats_json(&o, s, maxd);
		top = json_array();
		if (report == NULL || top == NULL) {
			json_decref(report);
			json_decref(top);
			graph_src_done(&g, s);
			return cli_fail(cli, -ENOMEM, "cannot make the JSON report");
		}
		cj_set(report, "top", json_incref(top));
	} else {
		printf("Graph:            %s, at %s\n", graph_name(o.flags), when);
		printf("Keys:             %llu", U(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_TOTAL)));
		if (!(o.flags & KSP_WOT_STRUCTURAL))
			printf(" (%llu revoked, %llu expired, %llu not yet valid)",
			       U(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_REVOKED)),
			       U(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_EXPIRED)),
			       U(ksp_wot_stats_get_keys(s, KSP_WOT_KEYS_NOT_YET_VALID)));
		printf("\nCertifications:   %llu: %llu good, %llu bad, %llu unsupported, %llu issuer unknown",
		       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_TOTAL)), U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_GOOD)),
		       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_BAD)),
		       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_UNSUPPORTED)),
		       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DANGLING)));
		if (ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_UNCHECKED))
			printf(", %llu unchecked", U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_UNCHECKED)));
		if (ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_MD5) ||
		    ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_SHA1))
			printf("\nHash rules:       %llu good ones dropped: %llu MD5 (--allow-md5 counts them), "
			       "%llu SHA-1 or RIPEMD-160 (--no-sha1)",
			       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_MD5) +
				 ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_SHA1)),
			       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_MD5)),
			       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_DROPPED_SHA1)));
		printf("\nRevocations:      %llu certification revocations\n",
		       U(ksp_wot_stats_get_certs(s, KSP_WOT_CERTS_REVOCATIONS)));
		printf("Vertices:         %llu\nEdges:            %llu\n", U(ksp_wot_stats_get_vertices(s)),
		       U(ksp_wot_stats_get_edges(s)));
		printf("Components:       %llu strongly connected; largest:", U(ksp_wot_stats_get_scc_count(s)));
		for (size_t i = 0; i < 5 && ksp_wot_stats_get_scc_size(s, i); i++)
			printf(" %llu", U(ksp_wot_stats_get_scc_size(s, i)));
		printf("\nStrong set:       %llu keys, %llu edges\n", U(ksp_wot_stats_get_strong_set_size(s)),
		       U(ksp_wot_stats_get_strong_set_edges(s)));
		printf("Strong-set MSD:   %.6f\n", ksp_wot_stats_get_msd(s));
		printf("Reachable:        %llu keys from the strong set, %llu reach it\n",
		       U(ksp_wot_stats_get_reachable(s, false)), U(ksp_wot_stats_get_reachable(s, true)));
		if (maxd) {
			printf("\nDistances in the strong set:\n");
			for (int d = 1; d <= maxd; d++)
				printf("  %3d%s %10llu pairs\n", d, d == (int)KSP_WOT_MAX_DISTANCE ? "+" : " ",
				       U(ksp_wot_stats_get_distance_count(s, (unsigned)d)));
		}
		if (cli->verbose) {
			printf("\nIn-degree (signers per key):\n");
			print_bucketed_degrees(s, true, NULL);
			printf("Out-degree (keys signed per key):\n");
			print_bucketed_degrees(s, false, NULL);
		}
		if (o.top > 0 && ksp_wot_stats_get_strong_set_size(s) > 1)
			printf("\nLowest MSD:\n  rank  MSD       fingerprint\n");
	}
	for (long i = 0; i < o.top; i++) {
		uint64_t sum;
		double msd;
		const char *fpr = ksp_wot_stats_get_ranked(s, (size_t)i, &sum, &msd);
		if (fpr == NULL)
			break;
		if (top) {
			char *uid = NULL;
			size_t ulen = 0;
			json_t *e = json_object();

			if (e) {
				cj_set(e, "rank", cj_int(i + 1));
				cj_set(e, "fingerprint", cj_strz(fpr));
				cj_set(e, "distance_sum", cj_int(sum));
				cj_set(e, "msd", cj_fixed(msd, 6));
				cj_set(e, "uid", key_uid(&g, fpr, &uid, &ulen) == 0 ? cj_str(uid, ulen) : json_null());
			}
			cj_push(top, e);
			free(uid);
		}
		else {
			char *uid = NULL, *e = NULL;
			size_t ulen = 0;
			printf("  %4ld  %.6f  %s\n", i + 1, msd, fpr);
			if (key_uid(&g, fpr, &uid, &ulen) == 0 && (e = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL)))
				printf("                  %s\n", e);
			free(e);
			free(uid);
		}
	}
	json_decref(top);
	graph_src_done(&g, s);
	if (report && cj_print(report) < 0)
		return cli_fail(cli, -ENOMEM, "cannot write the JSON report");
	return KSP_EXIT_OK;
}

static bool normalize_arg(struct ksp_cli *cli, const char *in, char out[65])
{
	if (fpr_normalize(in, out) < 0) {
		cli_err(cli, "'%s' is not a full fingerprint (40 or 64 hex digits); short key IDs are not accepted",
			in);
		return false;
	}
	return true;
}

static int run_key(struct ksp_cli *cli, int argc, char *argv[])
{
	struct graph_opts o;
	struct graph_src g = { 0 };
	struct ksp_wot_stats *s = NULL;
	char fpr[65];
	int64_t v, rank;
	uint64_t sum = 0;
	double msd = 0;
	int r, dfrom, dto;

	r = parse_graph_opts(cli, &cmd_key, "wot key", argc, argv, &o);
	if (r)
		return r;
	if (optind + 1 != argc) {
		free(o.keyrings);
		return cli_usage_error(cli, &cmd_key, "wot key", "give one fingerprint");
	}
	if (!normalize_arg(cli, argv[optind], fpr)) {
		free(o.keyrings);
		return KSP_EXIT_ERROR;
	}
	const char *first = o.n_keyrings ? o.keyrings[0] : NULL;
	char *where = first ? cli_escape(first, strlen(first), KSP_ESCAPE_TERMINAL) : NULL;
	r = open_stats(cli, &o, &g, &s);
	if (r) {
		free(where);
		return r;
	}
	v = ksp_wot_stats_find_key(s, fpr);
	if (v < 0 && where) {
		cli_err(cli, "%s: key %s is not in the keyrings given (--keyring); check the fingerprint", where, fpr);
		free(where);
		graph_src_done(&g, s);
		return KSP_EXIT_NEGATIVE;
	}
	free(where);
	if (v < 0) {
		cli_err(cli, "%s: key %s is not in the %s graph at that time (not loaded, revoked, expired or not yet "
			     "valid); see 'ksp wot load'",
			cli->db_path, fpr, graph_name(o.flags));
		graph_src_done(&g, s);
		return KSP_EXIT_NEGATIVE;
	}
	rank = ksp_wot_stats_get_key_rank(s, (uint32_t)v, &sum, &msd);
	dfrom = ksp_wot_stats_get_key_ss_distance(s, (uint32_t)v, false);
	dto = ksp_wot_stats_get_key_ss_distance(s, (uint32_t)v, true);
	if (cli->json) {
		json_t *k = json_object();

		if (k) {
			cj_set(k, "format_version", cj_int(1));
			cj_set(k, "graph", cj_strz(graph_name(o.flags)));
			cj_set(k, "fingerprint", cj_strz(fpr));
			cj_set(k, "in_degree", cj_int(ksp_wot_stats_get_key_degree(s, (uint32_t)v, true)));
			cj_set(k, "out_degree", cj_int(ksp_wot_stats_get_key_degree(s, (uint32_t)v, false)));
			cj_set(k, "in_strong_set", cj_bool(rank >= 0));
			cj_set(k, "msd_rank", rank >= 0 ? cj_int(rank + 1) : json_null());
			cj_set(k, "distance_sum", rank >= 0 ? cj_int(sum) : json_null());
			cj_set(k, "msd", rank >= 0 ? cj_fixed(msd, 6) : json_null());
			cj_set(k, "distance_from_strong_set", dfrom >= 0 ? cj_int(dfrom) : json_null());
			cj_set(k, "distance_to_strong_set", dto >= 0 ? cj_int(dto) : json_null());
		}
		if (cj_print(k) < 0) {
			graph_src_done(&g, s);
			return cli_fail(cli, -ENOMEM, "cannot write the JSON report");
		}
	} else {
		char *uid = NULL, *e = NULL;
		size_t ulen = 0;
		printf("Key:          %s\n", fpr);
		if (key_uid(&g, fpr, &uid, &ulen) == 0 && (e = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL)))
			printf("User ID:      %s\n", e);
		free(e);
		free(uid);
		printf("Graph:        %s\n", graph_name(o.flags));
		printf("Signed by:    %u keys (in-degree)\nSigned:       %u keys (out-degree)\n",
		       ksp_wot_stats_get_key_degree(s, (uint32_t)v, true), ksp_wot_stats_get_key_degree(s, (uint32_t)v, false));
		if (rank >= 0)
			printf("Strong set:   yes, MSD %.6f, rank %lld of %llu\n", msd, (long long)rank + 1,
			       U(ksp_wot_stats_get_strong_set_size(s)));
		else
			printf("Strong set:   no\n");
		if (dfrom >= 0)
			printf("From the strong set: %d hop%s\n", dfrom, dfrom == 1 ? "" : "s");
		else
			printf("From the strong set: unreachable\n");
		if (dto >= 0)
			printf("To the strong set:   %d hop%s\n", dto, dto == 1 ? "" : "s");
		else
			printf("To the strong set:   unreachable\n");
	}
	graph_src_done(&g, s);
	return KSP_EXIT_OK;
}

static int run_path(struct ksp_cli *cli, int argc, char *argv[])
{
	struct graph_opts o;
	struct graph_src g = { 0 };
	struct ksp_wot_stats *s = NULL;
	struct ksp_wot_paths *p = NULL;
	json_t *report = NULL, *paths = NULL;
	char from[65], to[65];
	int r, status = KSP_EXIT_OK, len;

	r = parse_graph_opts(cli, &cmd_path, "wot path", argc, argv, &o);
	if (r)
		return r;
	free(o.keyrings); /* path takes no --keyring */
	o.keyrings = NULL;
	if (optind + 2 != argc)
		return cli_usage_error(cli, &cmd_path, "wot path", "give two fingerprints, FROM and TO");
	if (!normalize_arg(cli, argv[optind], from) || !normalize_arg(cli, argv[optind + 1], to))
		return KSP_EXIT_ERROR;
	r = open_stats(cli, &o, &g, &s);
	if (r)
		return r;
	r = ksp_wot_paths_new(s, from, to, o.all ? 1024 : 1, &p);
	if (r < 0) {
		status = r == -ENOENT ? (cli_fail(cli, r, "%s: no such key", cli->db_path), KSP_EXIT_NEGATIVE)
				      : cli_fail(cli, r, "%s: cannot find paths", cli->db_path);
		goto out;
	}
	len = ksp_wot_paths_get_length(p);
	if (cli->json) {
		report = json_object();
		paths = json_array();
		if (report == NULL || paths == NULL) {
			status = cli_fail(cli, -ENOMEM, "cannot make the JSON report");
			goto out;
		}
		cj_set(report, "format_version", cj_int(1));
		cj_set(report, "graph", cj_strz(graph_name(o.flags)));
		cj_set(report, "from", cj_strz(from));
		cj_set(report, "to", cj_strz(to));
		cj_set(report, "length", len < 0 ? json_null() : cj_int(len));
		if (len >= 0)
			cj_set(report, "truncated", cj_bool(ksp_wot_paths_is_truncated(p)));
		cj_set(report, "paths", json_incref(paths));
	}
	if (len < 0) {
		if (report && cj_print(json_incref(report)) < 0)
			status = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
		else if (!report)
			printf("No certification path from %s to %s in the %s graph.\n", from, to, graph_name(o.flags));
		if (status == KSP_EXIT_OK)
			status = KSP_EXIT_NEGATIVE;
		goto out;
	}
	if (!cli->json)
		printf("%zu shortest path%s of %d hop%s from %s to %s%s:\n", ksp_wot_paths_get_count(p),
		       ksp_wot_paths_get_count(p) == 1 ? "" : "s", len, len == 1 ? "" : "s", from, to,
		       ksp_wot_paths_is_truncated(p) ? " (more exist; only the first 1024 are shown)" : "");
	for (size_t i = 0; i < ksp_wot_paths_get_count(p); i++) {
		json_t *path = NULL;

		if (paths) {
			path = json_array();
			cj_push(paths, json_incref(path));
		} else if (ksp_wot_paths_get_count(p) > 1)
			printf("\nPath %zu:\n", i + 1);
		for (int h = 0; h < len; h++) {
			const char *a, *b;
			int64_t created = 0;
			char *uid = NULL, date[32];
			size_t ulen = 0;

			r = ksp_wot_paths_get_hop(p, i, (size_t)h, &a, &b, &created, &uid, &ulen);
			if (r < 0) {
				json_decref(path);
				status = cli_fail(cli, r, "%s: cannot read a certification", cli->db_path);
				goto out;
			}
			format_date(created, date, sizeof(date));
			if (path) {
				json_t *e = json_object();

				if (e) {
					cj_set(e, "signer", cj_strz(a));
					cj_set(e, "signee", cj_strz(b));
					cj_set(e, "created", cj_int(created));
					cj_set(e, "uid", cj_str(uid ? uid : "", ulen));
				}
				cj_push(path, e);
			} else {
				char *e = cli_escape(uid ? uid : "", ulen, KSP_ESCAPE_TERMINAL);
				printf("  %d. %s\n     certified %s\n     on \"%s\", %s\n", h + 1, a, b, e ? e : "?", date);
				free(e);
			}
			free(uid);
		}
		json_decref(path);
	}
	if (report && cj_print(json_incref(report)) < 0)
		status = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
out:
	json_decref(paths);
	json_decref(report);
	ksp_wot_paths_free(p);
	graph_src_done(&g, s);
	return status;
}
