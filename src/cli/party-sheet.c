// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party sheet / ksp party slips: verification sheets and fingerprint
 * slips in text, HTML and PDF (the rendering is in libksp). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/json-out.h"
#include "cli/party.h"
#include "cli/party-plan.h"

static int parse_format(const char *s)
{
	if (strcmp(s, "txt") == 0 || strcmp(s, "text") == 0)
		return KSP_FORMAT_TXT;
	if (strcmp(s, "html") == 0)
		return KSP_FORMAT_HTML;
	if (strcmp(s, "pdf") == 0)
		return KSP_FORMAT_PDF;
	return -1;
}

/* --format from the output file name when not given */
static int format_from_name(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;

	if (dot == NULL || strchr(dot, '/'))
		return -1;
	if (strcasecmp(dot, ".pdf") == 0)
		return KSP_FORMAT_PDF;
	if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
		return KSP_FORMAT_HTML;
	if (strcasecmp(dot, ".txt") == 0)
		return KSP_FORMAT_TXT;
	return -1;
}

/* The Debian package with a font for @script (Noto covers the scripts people
 * write their names in; CJK is a package of its own). */
static const char *font_package(const char *script)
{
	static const char *const cjk[] = { "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo" };

	for (size_t i = 0; i < ARRAY_SIZE(cjk); i++)
		if (strcmp(script, cjk[i]) == 0)
			return "fonts-noto-cjk";
	if (strcmp(script, "Common") == 0)
		return "fonts-noto-color-emoji or fonts-noto-extra";
	return "fonts-noto-core (or fonts-noto-extra)";
}

struct glyph_gap {
	int number;
	char fpr[65];
	char script[32];
	unsigned int missing;
};

struct glyph_report {
	struct ksp_cli *cli;
	const char *out;
	bool strict;
	unsigned long missing;
	struct glyph_gap *gaps; /* for --json */
	size_t n_gaps;
};

/* A user ID (or the party's name) with characters no installed font draws:
 * the PDF would show empty boxes, so say whose, which script and what to
 * install (with --strict it is an error, and nothing is written). */
static void glyph_gap(void *data, int number, const char *fpr, const char *script, unsigned int missing)
{
	struct glyph_report *g = data;
	struct glyph_gap *n;

	g->missing += missing;
	n = realloc(g->gaps, (g->n_gaps + 1) * sizeof(*g->gaps));
	if (n) { /* without memory the JSON lacks the detail; the count stays */
		g->gaps = n;
		n = &g->gaps[g->n_gaps++];
		n->number = number;
		snprintf(n->fpr, sizeof(n->fpr), "%s", fpr ? fpr : "");
		snprintf(n->script, sizeof(n->script), "%s", script);
		n->missing = missing;
	}
	if (g->cli->quiet && !g->strict)
		return;
	if (number > 0)
		fprintf(stderr, "ksp: %s%s: #%d %s: %u %s character(s) of a user ID have no font; "
			"they would print as empty boxes: install one, e.g. apt-get install %s\n",
			g->strict ? "" : "warning: ", g->out, number, fpr ? fpr : "", missing, script,
			font_package(script));
	else
		fprintf(stderr, "ksp: %s%s: %u %s character(s) of the party's name or place have no font; "
			"they would print as empty boxes: install one, e.g. apt-get install %s\n",
			g->strict ? "" : "warning: ", g->out, missing, script, font_package(script));
}

/* -o /dev/tty and the like: a character device that is a terminal */
static bool is_terminal(const char *path)
{
	struct stat st;
	bool tty = false;

	if (stat(path, &st) == 0 && S_ISCHR(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			tty = isatty(fd);
			close(fd);
		}
	}
	return tty;
}

/* After the sheet or slips were written (@pages for a PDF): the warnings
 * about what the sheet is, and the --json report or the one-line summary */
static int report_written(struct ksp_cli *cli, struct ksp_party *party, unsigned int kind, int format,
			  const char *for_spec, const char *out, int r, const struct glyph_report *g)
{
	const char *what = kind == KSP_RENDER_SHEET ? "sheet" : "slips";
	int status = KSP_EXIT_OK;

	if (kind == KSP_RENDER_SHEET && format == KSP_FORMAT_TXT && for_spec && ksp_party_is_closed(party))
		cli_warn(cli, "a personal copy (--for) is not the announced list text; its digest differs");
	else if (kind == KSP_RENDER_SHEET && format == KSP_FORMAT_TXT && ksp_party_is_closed(party) &&
		 ksp_party_get_repair_count(party) > 0)
		cli_warn(cli, "this sheet marks the repair plan, so it is not the announced list text and its digest "
			 "differs; 'ksp party digest -o FILE' writes the list");
	if (kind == KSP_RENDER_SHEET && !ksp_party_is_closed(party))
		cli_warn(cli, "the list is open: this sheet is a DRAFT, not for verifying");
	if (cli->json) {
		static const char *const fmts[] = { "txt", "html", "pdf" };
		json_t *gaps = json_array();

		for (size_t i = 0; gaps && i < g->n_gaps; i++)
			cj_push(gaps, json_pack("{s:i,s:o,s:o,s:I}", "number", g->gaps[i].number, "fingerprint",
						*g->gaps[i].fpr ? cj_strz(g->gaps[i].fpr) : json_null(), "script",
						cj_strz(g->gaps[i].script), "missing", (json_int_t)g->gaps[i].missing));
		if (cj_print(json_pack("{s:i,s:o,s:s,s:s,s:o,s:b,s:o}", "format_version", 1, "file", cj_strz(out), "kind",
				       what, "format", fmts[format], "pages",
				       format == KSP_FORMAT_PDF ? cj_int(r) : json_null(), "draft",
				       !ksp_party_is_closed(party), "missing_glyphs", gaps)) < 0) {
			cli_err(cli, "%s: written, but cannot write the JSON report: out of memory", out);
			status = KSP_EXIT_ERROR;
		}
	} else if (out && !cli->quiet) {
		if (format == KSP_FORMAT_PDF)
			fprintf(stderr, "%s: %d page%s\n", out, r, r == 1 ? "" : "s");
		else
			fprintf(stderr, "%s: written\n", out);
	}
	return status;
}

/* (Long: the options of the sheet and the slips in one switch, their combinations checked, then one render; one exit.) */
static int run_render(struct ksp_cli *cli, int argc, char *argv[], unsigned int kind)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "for", required_argument, NULL, 'F' },
		{ "template", required_argument, NULL, 't' },
		{ "paper", required_argument, NULL, 'p' },
		{ "draft", no_argument, NULL, 'D' },
		{ "print-template", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, 'S' },
		{ "plan", no_argument, NULL, 'L' },
		{ "version", required_argument, NULL, 'V' },
		{ "mark", no_argument, NULL, 'M' },
		CLI_TRUST_LONGOPTS,
		{},
	};
	/* slips: no --draft, no --plan and its trust options; the sheet: no --qr, --count */
	static const struct option slips_opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "for", required_argument, NULL, 'F' },
		{ "template", required_argument, NULL, 't' },
		{ "paper", required_argument, NULL, 'p' },
		{ "qr", no_argument, NULL, 'Q' },
		{ "compact", no_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'n' },
		{ "print-template", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, 'S' },
		{},
	};
	const struct ksp_cmd *cmd = kind == KSP_RENDER_SHEET ? &ksp_cmd_party_sheet : &ksp_cmd_party_slips;
	const char *full = kind == KSP_RENDER_SHEET ? "party sheet" : "party slips";
	const char *what = kind == KSP_RENDER_SHEET ? "sheet" : "slips";
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct ksp_render_opts *ro = NULL;
	const char *out = NULL, *for_spec = NULL, *tmpl = NULL;
	unsigned int flags = 0, paper = KSP_PAPER_A4, count = 0;
	int c, r, format = -1, status = KSP_EXIT_OK;
	struct glyph_report gr = { .cli = cli };
	struct cli_trust_opts to = { 0 };
	bool plan = false, checklist = false, mark = false;
	int version = 0;

	while ((c = cli_getopt(cli, argc, argv, "f:o:", kind == KSP_RENDER_SHEET ? opts : slips_opts)) != -1) {
		switch (c) {
		case 'f':
			checklist = kind == KSP_RENDER_SHEET && strcmp(optarg, "checklist") == 0;
			format = checklist ? KSP_FORMAT_TXT : parse_format(optarg);
			if (format < 0)
				return cli_usage_error(cli, cmd, full, "--format takes txt, html, pdf%s, not '%s'",
						       kind == KSP_RENDER_SHEET ? " or checklist" : "", optarg);
			break;
		case 'F':
			for_spec = optarg;
			break;
		case 't':
			tmpl = optarg;
			break;
		case 'p':
			if (strcasecmp(optarg, "a4") == 0)
				paper = KSP_PAPER_A4;
			else if (strcasecmp(optarg, "letter") == 0)
				paper = KSP_PAPER_LETTER;
			else
				return cli_usage_error(cli, cmd, full, "--paper takes a4 or letter, not '%s'", optarg);
			break;
		case 'D':
			if (kind != KSP_RENDER_SHEET)
				return cli_usage_error(cli, cmd, full, "bad option '--draft'");
			flags |= KSP_RENDER_DRAFT;
			break;
		case 'Q':
			if (kind != KSP_RENDER_SLIPS)
				return cli_usage_error(cli, cmd, full, "bad option '--qr' (QR codes are on slips)");
			flags |= KSP_RENDER_QR;
			break;
		case 'C':
			if (kind != KSP_RENDER_SLIPS)
				return cli_usage_error(cli, cmd, full, "bad option '--compact' (a layout of the slips)");
			flags |= KSP_RENDER_COMPACT;
			break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (kind != KSP_RENDER_SLIPS)
				return cli_usage_error(cli, cmd, full, "bad option '--count'");
			if (*end || end == optarg || v < 1 || v > 1000)
				return cli_usage_error(cli, cmd, full, "--count takes a number from 1 to 1000");
			count = (unsigned int)v;
			break;
		}
		case 'P': {
			int f = parse_format(optarg);
			const char *t;
			if (f == KSP_FORMAT_PDF) {
				cli_err(cli, "the PDF %s is drawn by ksp, not made from a template; templates are for txt and html",
					what);
				return KSP_EXIT_ERROR;
			}
			if (f < 0)
				return cli_usage_error(cli, cmd, full, "--print-template takes txt or html, not '%s'", optarg);
			t = ksp_render_builtin_template(kind, (unsigned int)f);
			if (t == NULL || fputs(t, stdout) < 0 || fflush(stdout) != 0) {
				cli_err(cli, "cannot write the template to standard output");
				return KSP_EXIT_ERROR;
			}
			return KSP_EXIT_OK;
		}
		case 'o':
			out = optarg;
			break;
		case 'S':
			flags |= KSP_RENDER_STRICT_FONTS;
			gr.strict = true;
			break;
		case 'V': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1000000)
				return cli_usage_error(cli, cmd, full, "--version takes a list version number (1, 2, ...)");
			version = (int)v;
			break;
		}
		case 'M':
			mark = true;
			break;
		case 'L':
			plan = kind == KSP_RENDER_SHEET;
			if (plan)
				break;
			/* fall through */
		default:
			/* --plan's trust options (ksp health) */
			if (kind == KSP_RENDER_SHEET && to.policy == NULL && cli_trust_opts_init(cli, &to))
				return KSP_EXIT_ERROR;
			r = kind == KSP_RENDER_SHEET ? cli_trust_opt(cli, &to, cmd, full, c, optarg) : 0;
			if (r == 0)
				r = cli_usage_error(cli, cmd, full, "bad option");
			if (r != 1) {
				cli_trust_opts_done(&to);
				return KSP_EXIT_ERROR;
			}
		}
	}
	if (plan || to.policy) {
		if (!plan || optind < argc) {
			cli_trust_opts_done(&to);
			return cli_usage_error(cli, cmd, full, plan ? "unexpected argument" : "the trust options go with --plan");
		}
		if (to.policy == NULL && cli_trust_opts_init(cli, &to))
			return KSP_EXIT_ERROR;
		r = cli_open_party(cli, false, &store, &party);
		status = r ? r : cli_party_plan(cli, store, &to);
		cli_trust_opts_done(&to);
		ksp_party_unref(party);
		ksp_store_unref(store);
		return status;
	}
	if (optind < argc)
		return cli_usage_error(cli, cmd, full, "unexpected argument '%s'", argv[optind]);
	if (out && strcmp(out, "-") == 0)
		out = NULL;
	if (mark && (!checklist || for_spec == NULL))
		return cli_usage_error(cli, cmd, full, "--mark goes with --format checklist and --for FPR|N");
	if (checklist || version) {
		if (format != KSP_FORMAT_TXT && format >= 0)
			return cli_usage_error(cli, cmd, full, "--version renders the txt sheet or the checklist of an older list; html and pdf are of the newest");
		if (tmpl || (flags & KSP_RENDER_DRAFT) || (for_spec && !mark))
			return cli_usage_error(cli, cmd, full, "%s takes no --template, --draft, or --for without --mark",
					       checklist ? "--format checklist" : "--version");
		if (cli->json && out == NULL)
			return cli_usage_error(cli, cmd, full, "--json reports on the file written: give -o FILE");
		return cli_party_sheet_text(cli, checklist, version, for_spec, mark, out);
	}
	if (format < 0)
		format = format_from_name(out);
	if (format < 0)
		format = kind == KSP_RENDER_SHEET ? KSP_FORMAT_TXT : KSP_FORMAT_PDF;
	if (format == KSP_FORMAT_PDF && tmpl)
		return cli_usage_error(cli, cmd, full, "--template is for txt and html; the PDF is drawn by ksp itself");
	if (cli->json && out == NULL)
		return cli_usage_error(cli, cmd, full,
				       "--json reports on the file written: give -o FILE (the %s itself is not JSON)", what);
	if (format == KSP_FORMAT_PDF && (out == NULL ? isatty(1) : is_terminal(out))) {
		cli_err(cli, "will not write a PDF to a terminal; give -o FILE.pdf or redirect the output");
		return KSP_EXIT_ERROR;
	}
	r = ksp_render_opts_new(cli->ctx, &ro);
	if (r < 0)
		return cli_fail(cli, r, "cannot make the %s options", what);
	if ((r = ksp_render_opts_set_for(ro, for_spec)) < 0 || (r = ksp_render_opts_set_template(ro, tmpl)) < 0 ||
	    (r = ksp_render_opts_set_paper(ro, paper)) < 0 || (r = ksp_render_opts_set_flags(ro, flags)) < 0 ||
	    (r = ksp_render_opts_set_count(ro, count)) < 0 ||
	    (r = ksp_render_opts_set_glyph_fn(ro, glyph_gap, &gr)) < 0) {
		status = cli_fail(cli, r, "bad %s options", what);
		goto out;
	}
	r = cli_open_party(cli, false, &store, &party);
	if (r) {
		status = r;
		goto out;
	}
	gr.out = out ? out : "standard output";
	if (out)
		r = ksp_party_render_file(party, kind, (unsigned int)format, ro, out);
	else
		r = ksp_party_render(party, kind, (unsigned int)format, ro, 1);
	if (r == -EILSEQ && gr.strict) {
		cli_err(cli, "%s: not written: %lu character(s) have no font (--strict); install the fonts named above",
			gr.out, gr.missing);
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot make the %s", out ? out : "standard output", what);
		goto out;
	}
	status = report_written(cli, party, kind, format, for_spec, out, r, &gr);
out:
	free(gr.gaps);
	ksp_render_opts_free(ro);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

static int run_sheet(struct ksp_cli *cli, int argc, char *argv[])
{
	return run_render(cli, argc, argv, KSP_RENDER_SHEET);
}

static int run_slips(struct ksp_cli *cli, int argc, char *argv[])
{
	return run_render(cli, argc, argv, KSP_RENDER_SLIPS);
}

const struct ksp_cmd ksp_cmd_party_sheet = {
	.name = "sheet",
	.run = run_sheet,
	.usage = "[--format txt|html|pdf] [--for FPR|N] [--template FILE] [--paper a4|letter] [--draft] [--strict]\n"
		 "       [-o OUT [--json]]\n"
		 "   or: ksp party sheet --format checklist [--for FPR|N --mark] [--version N] [-o OUT [--json]]\n"
		 "   or: ksp party sheet --version N [-o OUT [--json]]\n"
		 "   or: ksp party sheet --plan " CLI_TRUST_USAGE,
	.help = "print the verification sheet of the frozen list",
	.details = "The sheet shows the party, the list version and its digests (with room to write\n"
		   "the announced ones), then every participant with boxes to tick per key and per\n"
		   "user ID. The text sheet of a frozen list is the canonical list text, byte for\n"
		   "byte: 'ksp party sheet | sha256sum' gives the announced SHA-256 (not when the\n"
		   "party has a repair plan, 'party add --csv' of 'ksp health --plan-csv': then\n"
		   "every sheet marks beside each signer the keys they must certify).\n\n"
		   "Options:\n"
		   "  -f, --format FMT      txt (default), html or pdf; default from -o's extension;\n"
		   "                        checklist: the list with tick boxes in gpgparticipants'\n"
		   "                        layout (caff reads it), for 'party sign --ticked FILE'\n"
		   "      --for FPR|N       personal copy: mark that participant \"this is you\"\n"
		   "      --mark            checklist --for ME: (S) under the user IDs you certified,\n"
		   "                        and under yours who certified them (gpgsigs-like)\n"
		   "      --version N       the txt sheet or checklist of an older list version\n"
		   "      --template FILE   your own txt or html template (see ksp-party-sheet(1))\n"
		   "      --print-template FMT  print the built-in txt or html template\n"
		   "      --paper SIZE      a4 (default) or letter\n"
		   "      --draft           sheet of an open list, marked DRAFT, without digests\n"
		   "      --strict          PDF: a character no installed font draws is an error\n"
		   "                        (default: a warning naming the participant and script)\n"
		   "  -o, --output FILE     write FILE (atomically) instead of standard output\n"
		   "      --plan            instead of the sheet: each participant's most valuable\n"
		   "                        checks, by the keys they bring to K paths from a core\n"
		   "                        given with the options of 'ksp trust' (ksp-health(1))\n",
	.group = KSP_GROUP_ORGANIZER,
};

const struct ksp_cmd ksp_cmd_party_slips = {
	.name = "slips",
	.run = run_slips,
	.usage = "[--format pdf|html|txt] [--qr] [--compact] [--for FPR|N] [--count N] [--paper a4|letter] [--strict] [-o OUT [--json]]",
	.help = "print fingerprint slips to cut out and hand out",
	.details = "Slips of one key with --for (a participant's own, as gpg-key2ps makes them),\n"
		   "else one block of slips per participant, each starting a new page.\n\n"
		   "Options:\n"
		   "  -f, --format FMT      pdf (default), html or txt; default from -o's extension\n"
		   "      --qr              add a QR code of OPENPGP4FPR:<fingerprint> (OpenKeychain)\n"
		   "      --compact         PDF: two columns in smaller type (18 or more to an A4\n"
		   "                        page, as gpg-key2ps packs them)\n"
		   "      --for FPR|N       slips of that participant's key only\n"
		   "      --count N         slips per key (default: a page full; 8 in html and txt)\n"
		   "      --template FILE   your own txt or html template (see ksp-party-sheet(1))\n"
		   "      --print-template FMT  print the built-in txt or html template\n"
		   "      --paper SIZE      a4 (default) or letter\n"
		   "      --strict          PDF: a character no installed font draws is an error\n"
		   "  -o, --output FILE     write FILE (atomically) instead of standard output\n",
	.group = KSP_GROUP_PARTICIPANT,
};
