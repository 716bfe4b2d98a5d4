// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp graph: pictures of the web of trust, rendered with graphviz in-process. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "shared/util.h"

static int run_graph(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_graph = {
	.name = "graph",
	.run = run_graph,
	.usage = "MODE [-T svg|png|pdf|dot] [-o FILE] [--layout NAME] [options]",
	.help = "draw the web of trust with graphviz",
	.details = "MODE is one of:\n"
		   "  --party          the party's participants; edges are certifications, a two-way\n"
		   "                   pair is one edge with two arrowheads; colour: the share of the\n"
		   "                   other participants who certified the key (red none, green all)\n"
		   "  --strong-set     the strong set; size: signers, colour: MSD rank (darker: lower)\n"
		   "  --around FPR     the keys within --depth certifications of FPR, either way\n"
		   "  --paths FROM TO  every shortest certification path, hop dates on the edges\n"
		   "  --trust FPR      the paths behind the verdict of 'ksp trust' on FPR (same\n"
		   "                   options), the core highlighted; exit status 1 when not trusted\n\n"
		   "Options:\n"
		   "  -T, --format FORMAT  svg (default, or from the -o file name), png, pdf, dot;\n"
		   "                   dot without --layout is the graph without positions\n"
		   "  -o, --output FILE  write FILE (atomically) instead of standard output\n"
		   "  --layout NAME    graphviz layout (default: circo for a party, sfdp for the\n"
		   "                   strong set, neato or sfdp around a key, dot for paths)\n"
		   "  --missing        party: also draw missing certifications, dashed\n"
		   "  --depth N        for --around (default 2)\n"
		   "  --core-fpr FPR   --trust: a core key (repeatable)\n"
		   "  --core, --core-file FILE  --trust: core fingerprints, one per line\n"
		   "  --core-party     --trust: the party's participants are the core\n"
		   "  --policy FILE    --trust: the rule from FILE (see ksp-trust(1))\n"
		   "  --max-depth L    --trust: at most L certifications per path\n"
		   "  --min-paths K    --trust: at least K vertex-disjoint paths\n"
		   "  --per-uid        --trust: the last certifications are on one user ID\n"
		   "  --max-nodes N    refuse a graph of more keys than N (default 2000; 0: no limit)\n"
		   "  --at DATE        reference time (default: now)\n"
		   "  --no-sha1        drop MD5, SHA-1 and RIPEMD-160 certifications\n"
		   "  --structural     every certification counts, unchecked\n"
		   "  --json           report nodes and edges as JSON (needs -o)\n\n"
		   "Exit status 1 when there is no path for --paths (nothing is written) and when\n"
		   "the key is not trusted for --trust (the picture shows why).\n",
	.group = KSP_GROUP_ADMIN,
};

enum mode {
	MODE_NONE,
	MODE_PARTY,
	MODE_STRONG_SET,
	MODE_AROUND,
	MODE_PATHS,
	MODE_TRUST,
};

static const char *const mode_names[] = { "none", "party", "strong_set", "around", "paths", "trust" };

struct opts {
	enum mode mode;
	const char *format, *output, *layout;
	char key[65], to[65];
	char (*core)[65];
	size_t n_core, cap_core;
	const char **core_files;
	size_t n_core_files;
	const char *policy;
	bool core_party, per_uid;
	int max_depth, min_paths; /* 0: the policy's */
	unsigned int depth, graph_flags, wot_flags;
	size_t max_nodes;
	int64_t at;
};

static int add_core_file(struct ksp_cli *cli, struct opts *o, const char *path)
{
	const char **a = realloc(o->core_files, (o->n_core_files + 1) * sizeof(*a));

	if (a == NULL) {
		cli_err(cli, "out of memory");
		return -ENOMEM;
	}
	o->core_files = a;
	o->core_files[o->n_core_files++] = path;
	return 0;
}

static int add_core(struct ksp_cli *cli, struct opts *o, const char *s)
{
	char fpr[65];

	if (fpr_normalize(s, fpr) < 0) {
		char *e = cli_escape(s, strlen(s), KSP_ESCAPE_TERMINAL);
		cli_err(cli, "'%s' is not a full fingerprint (40 or 64 hex digits); short key IDs are not accepted",
			e ? e : "?");
		free(e);
		return -EINVAL;
	}
	if (o->n_core == o->cap_core) {
		size_t nc = o->cap_core ? o->cap_core * 2 : 8;
		void *a = realloc(o->core, nc * sizeof(*o->core));
		if (a == NULL) {
			cli_err(cli, "out of memory");
			return -ENOMEM;
		}
		o->core = a;
		o->cap_core = nc;
	}
	memcpy(o->core[o->n_core++], fpr, sizeof(fpr));
	return 0;
}

static const char *format_from_name(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (dot == NULL)
		return NULL;
	if (strcmp(dot, ".svg") == 0 || strcmp(dot, ".png") == 0 || strcmp(dot, ".pdf") == 0 ||
	    strcmp(dot, ".dot") == 0)
		return dot + 1;
	if (strcmp(dot, ".gv") == 0)
		return "dot";
	return NULL;
}

static bool set_mode(struct opts *o, enum mode m)
{
	if (o->mode != MODE_NONE && o->mode != m)
		return false;
	o->mode = m;
	return true;
}

/* (Long: one switch over the graph's options, then their combinations checked.) */
static int parse(struct ksp_cli *cli, int argc, char *argv[], struct opts *o)
{
	static const struct option opts[] = {
		{ "party", no_argument, NULL, 'P' },
		{ "strong-set", no_argument, NULL, 'S' },
		{ "around", required_argument, NULL, 'A' },
		{ "paths", required_argument, NULL, 'F' },
		{ "trust", required_argument, NULL, 'R' },
		{ "core-fpr", required_argument, NULL, 'c' },
		{ "core-file", required_argument, NULL, 'C' },
		{ "core", required_argument, NULL, 'C' },
		{ "core-party", no_argument, NULL, 'Y' },
		{ "policy", required_argument, NULL, 'p' },
		{ "max-depth", required_argument, NULL, 'x' },
		{ "min-paths", required_argument, NULL, 'k' },
		{ "per-uid", no_argument, NULL, 'u' },
		{ "depth", required_argument, NULL, 'D' },
		{ "missing", no_argument, NULL, 'M' },
		{ "max-nodes", required_argument, NULL, 'N' },
		{ "layout", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'T' },
		{ "at", required_argument, NULL, 'a' },
		{ "no-sha1", no_argument, NULL, 'w' },
		{ "structural", no_argument, NULL, 's' },
		{},
	};
	const struct ksp_cmd *cmd = &ksp_cmd_graph;
	bool depth_given = false;
	int c;

	o->at = (int64_t)time(NULL);
	o->depth = 2;
	o->max_nodes = 2000;
	while ((c = cli_getopt(cli, argc, argv, "T:o:", opts)) != -1) {
		char *end;
		unsigned long v;

		switch (c) {
		case 'P':
		case 'S':
			if (!set_mode(o, c == 'P' ? MODE_PARTY : MODE_STRONG_SET))
				return cli_usage_error(cli, cmd, "graph", "give one of --party, --strong-set, --around, "
									  "--paths, --trust");
			break;
		case 'A':
		case 'F':
		case 'R':
			if (!set_mode(o, c == 'A' ? MODE_AROUND : c == 'F' ? MODE_PATHS : MODE_TRUST))
				return cli_usage_error(cli, cmd, "graph", "give one of --party, --strong-set, --around, "
									  "--paths, --trust");
			if (fpr_normalize(optarg, o->key) < 0)
				return cli_usage_error(cli, cmd, "graph",
						       "'%s' is not a full fingerprint (40 or 64 hex digits)", optarg);
			break;
		case 'c':
			if (add_core(cli, o, optarg) < 0)
				return KSP_EXIT_ERROR;
			break;
		case 'C':
			if (add_core_file(cli, o, optarg) < 0)
				return KSP_EXIT_ERROR;
			break;
		case 'Y':
			o->core_party = true;
			break;
		case 'p':
			o->policy = optarg;
			break;
		case 'x':
		case 'k':
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 64)
				return cli_usage_error(cli, cmd, "graph", "--%s takes a number from 1 to 64",
						       c == 'x' ? "max-depth" : "min-paths");
			if (c == 'x')
				o->max_depth = (int)v;
			else
				o->min_paths = (int)v;
			break;
		case 'u':
			o->per_uid = true;
			break;
		case 'D':
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 100)
				return cli_usage_error(cli, cmd, "graph", "--depth takes a number from 1 to 100");
			o->depth = (unsigned int)v;
			depth_given = true;
			break;
		case 'M':
			o->graph_flags |= KSP_GRAPH_MISSING;
			break;
		case 'N':
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v > 100000000)
				return cli_usage_error(cli, cmd, "graph", "--max-nodes takes a number (0: no limit)");
			o->max_nodes = v;
			break;
		case 'L':
			o->layout = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'T':
			o->format = optarg;
			break;
		case 'a':
			if (parse_date(optarg, &o->at) < 0)
				return cli_usage_error(cli, cmd, "graph",
						       "--at takes YYYY-MM-DD[THH:MM:SS[Z]] or @EPOCH, not '%s'", optarg);
			break;
		case 'w':
			o->wot_flags |= KSP_WOT_NO_SHA1;
			break;
		case 's':
			o->wot_flags |= KSP_WOT_STRUCTURAL;
			break;
		default:
			return cli_usage_error(cli, cmd, "graph", "bad option");
		}
	}
	if (o->mode == MODE_NONE)
		return cli_usage_error(cli, cmd, "graph", "give one of --party, --strong-set, --around, --paths, --trust");
	if (o->mode == MODE_PATHS) {
		if (optind + 1 != argc)
			return cli_usage_error(cli, cmd, "graph", "--paths takes two fingerprints, FROM and TO");
		if (fpr_normalize(argv[optind], o->to) < 0)
			return cli_usage_error(cli, cmd, "graph", "'%s' is not a full fingerprint (40 or 64 hex digits)",
					       argv[optind]);
		optind++;
	}
	if (optind < argc)
		return cli_usage_error(cli, cmd, "graph", "unexpected argument '%s'", argv[optind]);
	if (o->mode == MODE_TRUST && o->n_core == 0 && o->n_core_files == 0 && !o->core_party && !o->policy)
		return cli_usage_error(cli, cmd, "graph",
				       "--trust needs the core: --core-fpr FPR, --core FILE, --core-party or --policy FILE");
	if (o->mode != MODE_TRUST && (o->n_core > 0 || o->n_core_files > 0 || o->core_party || o->policy ||
				      o->max_depth || o->min_paths || o->per_uid))
		return cli_usage_error(cli, cmd, "graph",
				       "--core-fpr, --core, --core-party, --policy, --max-depth, --min-paths and "
				       "--per-uid are for --trust");
	if (o->mode == MODE_TRUST && (o->wot_flags & KSP_WOT_STRUCTURAL))
		return cli_usage_error(cli, cmd, "graph", "--trust counts only verified certifications: no --structural");
	if (o->mode == MODE_TRUST && o->max_nodes != 2000)
		return cli_usage_error(cli, cmd, "graph", "--max-nodes does not apply to --trust");
	if (depth_given && o->mode != MODE_AROUND)
		return cli_usage_error(cli, cmd, "graph", "--depth is for --around");
	if ((o->graph_flags & KSP_GRAPH_MISSING) && o->mode != MODE_PARTY)
		return cli_usage_error(cli, cmd, "graph", "--missing is for --party");
	if ((o->wot_flags & KSP_WOT_STRUCTURAL) && (o->wot_flags & KSP_WOT_NO_SHA1))
		return cli_usage_error(cli, cmd, "graph", "--structural checks nothing, so --no-sha1 does not apply");
	if (o->format == NULL)
		o->format = format_from_name(o->output);
	if (o->format == NULL)
		o->format = "svg";
	if (strcmp(o->format, "svg") != 0 && strcmp(o->format, "png") != 0 && strcmp(o->format, "pdf") != 0 &&
	    strcmp(o->format, "dot") != 0)
		return cli_usage_error(cli, cmd, "graph", "-T takes svg, png, pdf or dot, not '%s'", o->format);
	if (cli->json && o->output == NULL)
		return cli_usage_error(cli, cmd, "graph", "--json reports on standard output: give the picture a file with -o");
	if (o->output == NULL && (strcmp(o->format, "png") == 0 || strcmp(o->format, "pdf") == 0) &&
	    isatty(STDOUT_FILENO)) {
		cli_err(cli, "not writing %s to a terminal; give a file with -o FILE", o->format);
		return KSP_EXIT_ERROR;
	}
	return 0;
}

/* --json's report as text, made before the picture is written (so that a lack of
 * memory leaves no file without its report); NULL when out of memory */
static char *report_json(const struct opts *o, const struct ksp_graph *g, const char *layout, bool trusted)
{
	size_t n = ksp_graph_get_node_count(g);
	int len = ksp_graph_get_length(g);
	json_t *j = json_object(), *fprs = json_array();
	char *text;

	if (j == NULL || fprs == NULL) {
		json_decref(j);
		json_decref(fprs);
		return NULL;
	}
	cj_set(j, "format_version", cj_int(1));
	cj_set(j, "mode", cj_strz(mode_names[o->mode]));
	cj_set(j, "format", cj_strz(o->format));
	cj_set(j, "layout", cj_strz(layout));
	cj_set(j, "output", cj_strz(o->output));
	cj_set(j, "nodes", cj_int(n));
	cj_set(j, "edges", cj_int(ksp_graph_get_edge_count(g)));
	cj_set(j, "certifications", cj_int(ksp_graph_get_arc_count(g)));
	cj_set(j, "missing", cj_int(ksp_graph_get_missing_count(g)));
	cj_set(j, "length", len >= 0 ? cj_int(len) : json_null());
	if (o->mode == MODE_TRUST)
		cj_set(j, "trusted", cj_bool(trusted));
	for (size_t i = 0; i < n; i++)
		cj_push(fprs, cj_strz(ksp_graph_get_node_fingerprint(g, i)));
	cj_set(j, "fingerprints", fprs);
	text = cj_dumps(j);
	json_decref(j);
	return text;
}

/* @e_out: the output file's name, escaped for the terminal */
static void report(struct ksp_cli *cli, const struct opts *o, const struct ksp_graph *g, const char *layout,
		   const char *e_out)
{
	size_t n = ksp_graph_get_node_count(g);
	int len = ksp_graph_get_length(g);

	if (!cli->json && o->output && !cli->quiet) {
		printf("%s: %zu keys, %zu edges (%zu certifications", e_out, n, ksp_graph_get_edge_count(g),
		       ksp_graph_get_arc_count(g));
		if (o->graph_flags & KSP_GRAPH_MISSING)
			printf(", %zu missing", ksp_graph_get_missing_count(g));
		printf(")");
		if (len >= 0)
			printf(", shortest path %d hop%s", len, len == 1 ? "" : "s");
		printf(", %s layout\n", layout);
	}
}

/* The verdict of 'ksp trust' and the graph of its paths.  Returns 0, an
 * exit status (> 0, message printed), or -errno (message on the ctx). */
static int trust_graph(struct ksp_cli *cli, const struct opts *o, struct ksp_store *store, struct ksp_graph **g,
		       bool *trusted)
{
	struct ksp_trust_policy *pol = NULL;
	struct ksp_trust_result *res = NULL;
	int r;

	r = ksp_trust_policy_new(cli->ctx, &pol);
	if (r == 0 && o->policy)
		r = ksp_trust_policy_load(pol, o->policy);
	for (size_t i = 0; r == 0 && i < o->n_core_files; i++)
		r = ksp_trust_policy_add_core_file(pol, o->core_files[i]);
	for (size_t i = 0; r == 0 && i < o->n_core; i++)
		r = ksp_trust_policy_add_core(pol, o->core[i]);
	if (r == 0) {
		if (o->core_party)
			ksp_trust_policy_set_core_party(pol, true);
		if (o->per_uid)
			ksp_trust_policy_set_per_uid(pol, true);
		if (o->wot_flags & KSP_WOT_NO_SHA1)
			ksp_trust_policy_set_sha1(pol, false);
		if (o->max_depth)
			r = ksp_trust_policy_set_max_depth(pol, o->max_depth);
		if (r == 0 && o->min_paths)
			r = ksp_trust_policy_set_min_paths(pol, o->min_paths);
	}
	if (r == 0 && ksp_trust_policy_get_model(pol) != KSP_TRUST_MODEL_PATHS) {
		/* the picture is of the paths model's disjoint paths */
		cli_err(cli, "%s: the policy names the %s model; 'graph --trust' draws the paths model's paths only "
			     "(ask 'ksp trust --policy' for that model's verdict)",
			o->policy, ksp_trust_model_name(ksp_trust_policy_get_model(pol)));
		ksp_trust_policy_free(pol);
		return KSP_EXIT_ERROR;
	}
	if (r == 0)
		r = ksp_trust_check(store, pol, o->key, o->at, &res);
	if (r == 0)
		r = ksp_graph_new_trust(store, res, o->key, g);
	if (r == 0) {
		*trusted = ksp_trust_result_is_trusted(res);
		if (!cli->json && !cli->quiet && o->output)
			printf("%s: %s\n", o->key, ksp_trust_result_get_message(res));
	}
	ksp_trust_result_free(res);
	ksp_trust_policy_free(pol);
	return r;
}

static int run_graph(struct ksp_cli *cli, int argc, char *argv[])
{
	struct opts o = { 0 };
	struct ksp_store *store = NULL;
	struct ksp_graph *g = NULL;
	const char *layout;
	char *e_out = NULL;
	char *json = NULL; /* --json's report, compact */
	bool trusted = false;
	int r, status = KSP_EXIT_OK;

	r = parse(cli, argc, argv, &o);
	if (r == 0)
		r = cli_open_store(cli, 0, &store);
	if (r) {
		free(o.core);
		free(o.core_files);
		return r;
	}
	switch (o.mode) {
	case MODE_PARTY:
		r = ksp_graph_new_party(store, o.at, o.wot_flags, o.graph_flags, &g);
		break;
	case MODE_STRONG_SET:
		r = ksp_graph_new_strong_set(store, o.at, o.wot_flags, o.max_nodes, &g);
		break;
	case MODE_AROUND:
		r = ksp_graph_new_around(store, o.at, o.wot_flags, o.key, o.depth, o.max_nodes, &g);
		break;
	case MODE_PATHS: {
		const char *from[1] = { o.key };
		r = ksp_graph_new_paths(store, o.at, o.wot_flags, from, 1, o.to, o.max_nodes, &g);
		break;
	}
	case MODE_TRUST:
		r = trust_graph(cli, &o, store, &g, &trusted);
		if (r > 0) {
			status = r;
			goto out;
		}
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot build the graph", cli->db_path);
		goto out;
	}
	if (o.mode == MODE_PATHS && ksp_graph_get_length(g) < 0) {
		cli_err(cli, "no certification path from %s to %s at that time; nothing written", o.key, o.to);
		status = KSP_EXIT_NEGATIVE;
		goto out;
	}
	if (o.layout)
		layout = o.layout;
	else if (strcmp(o.format, "dot") == 0)
		layout = "none"; /* the graph without positions */
	else
		layout = ksp_graph_get_default_layout(g);
	/* the report's file name escaped before the file is written */
	if (cli->json)
		json = report_json(&o, g, layout, trusted);
	else if (o.output)
		e_out = cli_escape(o.output, strlen(o.output), KSP_ESCAPE_TERMINAL);
	if (o.output && (cli->json ? json == NULL : e_out == NULL)) {
		status = cli_output_fail(cli, "%s", "nothing was written, run the command again");
		goto out;
	}
	if (o.output) {
		r = ksp_graph_render_file(g, o.format, o.layout, o.output);
	} else {
		fflush(stdout);
		r = ksp_graph_render(g, o.format, o.layout, STDOUT_FILENO);
	}
	if (r < 0) {
		status = cli_fail(cli, r, "cannot render the graph");
		goto out;
	}
	if (json)
		puts(json); /* made whole above: nothing is left to fail but stdout */
	report(cli, &o, g, layout, e_out);
	if (o.mode == MODE_TRUST && !trusted)
		status = KSP_EXIT_NEGATIVE;
out:
	free(e_out);
	free(json);
	ksp_graph_free(g);
	ksp_store_unref(store);
	free(o.core);
	free(o.core_files);
	return status;
}
