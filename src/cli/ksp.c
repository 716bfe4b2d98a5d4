// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <syslog.h>
#include <unistd.h>

#include <gcrypt.h>
#include <gpgme.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "shared/strbuf.h"

static const char *progname = "ksp";
static void cli_json_begin(void);
/* a user ID or file name could not be escaped (ENOMEM): the output shows
 * "?" in its place, and the command must not end as if all was well */
static int escape_error;

_printf_format_(3, 0) static void vmsg(const char *prefix, bool eol, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	if (eol)
		fputc('\n', stderr);
}

void cli_err(struct ksp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", true, fmt, ap);
	va_end(ap);
}

void cli_warn(struct ksp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	if (cli->quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", true, fmt, ap);
	va_end(ap);
}

void cli_info(struct ksp_cli *cli, const char *fmt, ...)
{
	va_list ap;
	if (cli->quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_fail(struct ksp_cli *cli, int r, const char *fmt, ...)
{
	const char *e = ksp_get_error(cli->ctx);
	va_list ap;

	if (e != NULL) {
		fprintf(stderr, "%s: %s\n", progname, e);
		return KSP_EXIT_ERROR;
	}
	va_start(ap, fmt);
	vmsg("", false, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(r < 0 ? -r : r));
	return KSP_EXIT_ERROR;
}

const struct ksp_cmd *cli_find(const struct ksp_cmd *const *table, const char *name)
{
	for (; *table; table++)
		if (strcmp((*table)->name, name) == 0)
			return *table;
	return NULL;
}

void cli_help(FILE *out, const struct ksp_cmd *cmd, const char *fullname)
{
	fprintf(out, "Usage: ksp %s %s\n%c%s.\n", fullname, cmd->usage ? cmd->usage : "",
		cmd->help[0] >= 'a' && cmd->help[0] <= 'z' ? cmd->help[0] - 32 : cmd->help[0],
		cmd->help + 1);
	if (cmd->subcmds) {
		fprintf(out, "\nCommands:\n");
		for (const struct ksp_cmd *const *s = cmd->subcmds; *s; s++)
			fprintf(out, "  %-14s %s\n", (*s)->name, (*s)->help);
		fprintf(out, "\nRun 'ksp help %s COMMAND' for a command's options.\n", fullname);
	}
	if (cmd->details)
		fprintf(out, "\n%s", cmd->details);
}

/* One line per mistake: "ksp: party init: MESSAGE (usage: 'ksp help party init')". */
int cli_usage_error(struct ksp_cli *cli, const struct ksp_cmd *cmd, const char *fullname,
		    const char *fmt, ...)
{
	va_list ap;

	if (cli->opt_reported) /* cli_getopt() said it */
		return KSP_EXIT_ERROR;
	fprintf(stderr, "%s: %s: ", progname, fullname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (usage: 'ksp help %s')\n", fullname);
	return KSP_EXIT_ERROR;
}

enum {
	GOPT_DB = 0x7f000001, /* far from the commands' own values (0x1000...) */
	GOPT_JSON,
	GOPT_VERBOSE,
	GOPT_QUIET,
};

static bool has_long(const struct option *o, const char *name)
{
	for (; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return true;
	return false;
}

static void apply_verbosity(struct ksp_cli *cli);

/* The merged tables: ':' first (a missing value is told apart), the
 * command's short options, then the global ones it does not define. */
static int merge_opts(struct ksp_cli *cli, const char *optstring, const struct option *longopts)
{
	static const struct option globals[] = {
		{ "db", required_argument, NULL, GOPT_DB },
		{ "json", no_argument, NULL, GOPT_JSON },
		{ "verbose", no_argument, NULL, GOPT_VERBOSE },
		{ "quiet", no_argument, NULL, GOPT_QUIET },
	};
	static const char gshort[] = { 'd', 'v', 'q' };
	size_t n = 0, k = 0;

	while (*optstring == ':' || *optstring == '+' || *optstring == '-')
		optstring++;
	cli->optstring[k++] = ':';
	for (const char *s = optstring; *s && k < sizeof(cli->optstring) - 8; s++)
		cli->optstring[k++] = *s;
	for (size_t i = 0; i < ARRAY_SIZE(gshort); i++) {
		if (strchr(optstring, gshort[i]))
			continue;
		cli->optstring[k++] = gshort[i];
		if (gshort[i] == 'd')
			cli->optstring[k++] = ':';
	}
	cli->optstring[k] = '\0';
	for (const struct option *o = longopts; o && o->name; o++) {
		if (n + ARRAY_SIZE(globals) + 1 >= ARRAY_SIZE(cli->opts))
			return -E2BIG;
		cli->opts[n++] = *o;
	}
	for (size_t i = 0; i < ARRAY_SIZE(globals); i++)
		if (!has_long(longopts, globals[i].name))
			cli->opts[n++] = globals[i];
	memset(&cli->opts[n], 0, sizeof(cli->opts[n]));
	cli->opts_of = longopts;
	return 0;
}

int cli_getopt(struct ksp_cli *cli, int argc, char *argv[], const char *optstring, const struct option *longopts)
{
	const char *full = cli->full ? cli->full : cli->prog;
	int c;

	if (cli->opts_of != longopts || optind == 0) {
		if (merge_opts(cli, optstring, longopts) < 0) {
			fprintf(stderr, "%s: %s: too many options (a bug)\n", progname, full);
			cli->opt_reported = true;
			return '?';
		}
	}
	for (;;) {
		int prev = optind ? optind : 1;

		c = getopt_long(argc, argv, cli->optstring, cli->opts, NULL);
		/* the option table the command parsed with (the last one, if
		 * a command ever parses twice), for the completion test
		 * (tests/cli/T030-completion.sh): print it, do nothing */
		if (c == -1 && getenv("KSP_LIST_OPTIONS")) {
			for (const struct option *o = cli->opts; o->name; o++)
				printf("--%s\n", o->name);
			for (const char *s = cli->optstring; *s; s++)
				if (*s != ':')
					printf("-%c\n", *s);
			fflush(stdout);
			_exit(KSP_EXIT_OK);
		}
		switch (c) {
		case 'd':
			if (strchr(optstring, 'd'))
				return c;
			/* fall through */
		case GOPT_DB:
			cli->db_path = optarg;
			cli->db_default = false;
			continue;
		case GOPT_JSON:
			cli->json = true;
			cli_json_begin();
			continue;
		case 'v':
			if (strchr(optstring, 'v'))
				return c;
			/* fall through */
		case GOPT_VERBOSE:
			cli->verbose++;
			apply_verbosity(cli);
			continue;
		case 'q':
			if (strchr(optstring, 'q'))
				return c;
			/* fall through */
		case GOPT_QUIET:
			cli->quiet = true;
			apply_verbosity(cli);
			continue;
		case ':':
		case '?': {
			/* the option as given (getopt moved past it) */
			const char *arg = prev < argc ? argv[prev] : "";
			char *esc = cli_escape(arg, strlen(arg), KSP_ESCAPE_TERMINAL);
			const char *eq = esc ? strchr(esc, '=') : NULL;

			if (c == ':')
				fprintf(stderr, "%s: %s: option '%s' needs a value (usage: 'ksp help %s')\n", progname,
					full, esc ? esc : "?", full);
			else if (eq && strncmp(esc, "--", 2) == 0 && optopt != 0)
				fprintf(stderr, "%s: %s: option '%.*s' takes no value (usage: 'ksp help %s')\n",
					progname, full, (int)(eq - esc), esc, full);
			else if (optopt != 0 && strncmp(arg, "--", 2) != 0)
				fprintf(stderr, "%s: %s: unknown option '-%c' (usage: 'ksp help %s')\n", progname, full,
					optopt > ' ' && optopt < 127 ? optopt : '?', full);
			else
				fprintf(stderr, "%s: %s: unknown option '%s' (%s%susage: 'ksp help %s')\n", progname, full,
					esc ? esc : "?", cli->opt_hint ? cli->opt_hint : "", cli->opt_hint ? "; " : "",
					full);
			free(esc);
			cli->opt_reported = true;
			return '?';
		}
		default:
			return c;
		}
	}
}

int cli_run_group(struct ksp_cli *cli, const struct ksp_cmd *group, int argc, char *argv[])
{
	const struct ksp_cmd *sub;
	char full[64];

	if (argc < 2) {
		cli_help(stderr, group, group->name);
		return KSP_EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_help(stdout, group, group->name);
		return KSP_EXIT_OK;
	}
	sub = cli_find(group->subcmds, argv[1]);
	if (sub == NULL) {
		cli_err(cli, "unknown command 'ksp %s %s'; run 'ksp help %s'", group->name, argv[1], group->name);
		return KSP_EXIT_ERROR;
	}
	snprintf(full, sizeof(full), "%s %s", group->name, sub->name);
	cli->full = full;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_help(stdout, sub, full);
			return KSP_EXIT_OK;
		}
	}
	cli->prog = sub->name;
	optind = 0;
	return sub->run(cli, argc - 1, argv + 1);
}

int cli_open_store(struct ksp_cli *cli, unsigned int flags, struct ksp_store **ret)
{
	int r = ksp_store_open(cli->ctx, cli->db_path, flags, ret);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot open the store", cli->db_path);
	return 0;
}

char *cli_escape(const void *s, size_t len, unsigned int format)
{
	char *out = NULL;
	int r = ksp_escape(s, len, format, &out);
	if (r < 0) {
		if (escape_error == 0)
			escape_error = r;
		return NULL;
	}
	return out;
}

int cli_output_failed(void)
{
	return escape_error;
}

int cli_output_fail(struct ksp_cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: cannot format the output: %s; ", progname, strerror(-escape_error));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KSP_EXIT_ERROR;
}

static void log_cli(void *data, int priority, const char *file, int line, const char *fn,
		    const char *format, va_list args) _printf_format_(6, 0);
static void log_cli(void *data, int priority, const char *file, int line, const char *fn,
		    const char *format, va_list args)
{
	static const char *const names[] = { "emerg", "alert", "crit", "error",
					     "warning", "notice", "info", "debug" };
	fprintf(stderr, "ksp: %s: ", priority >= 0 && priority < 8 ? names[priority] : "log");
	if (priority >= LOG_DEBUG)
		fprintf(stderr, "%s: ", fn);
	vfprintf(stderr, format, args);
}

static void progress(void *data, const char *what, uint64_t done, uint64_t total)
{
	struct ksp_cli *cli = data;
	struct timespec now;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (total && done >= total) {
		if (cli->progress_shown)
			fprintf(stderr, "\r\033[K");
		cli->progress_shown = false;
		return;
	}
	if (cli->progress_shown && ms - cli->progress_last_ms < 200)
		return;
	cli->progress_last_ms = ms;
	cli->progress_shown = true;
	if (total)
		fprintf(stderr, "\r\033[Kksp: %s: %llu/%llu (%u%%)", what, (unsigned long long)done,
			(unsigned long long)total, (unsigned)(done * 100 / total));
	else
		fprintf(stderr, "\r\033[Kksp: %s: %llu", what, (unsigned long long)done);
}

/* -v / -q, given before or after the command */
static void apply_verbosity(struct ksp_cli *cli)
{
	if (getenv("KSP_LOG") == NULL)
		ksp_set_log_priority(cli->ctx, cli->verbose >= 2 ? LOG_DEBUG :
						cli->verbose	  ? LOG_INFO :
						cli->quiet	  ? LOG_CRIT :
								    LOG_WARNING);
	if (cli->quiet)
		ksp_set_progress_fn(cli->ctx, NULL, NULL);
}

static void usage(FILE *out)
{
	static const char *const titles[] = {
		[KSP_GROUP_ORGANIZER] = "Organizer",
		[KSP_GROUP_PARTICIPANT] = "Participant",
		[KSP_GROUP_ADMIN] = "Admin (web of trust)",
		[KSP_GROUP_OTHER] = "Other",
	};
	fprintf(out, "Usage: ksp [-d STORE] [--json] [-v|-q] COMMAND [ARGS]\n"
		     "Run OpenPGP key-signing parties and analyze the web of trust.\n\n"
		     "Global options:\n"
		     "  -d, --db FILE   the store (default: $KSP_DB, else ./ksp.db)\n"
		     "      --json      machine-readable output on reporting commands\n"
		     "  -v, --verbose   more messages; -q, --quiet fewer\n"
		     "  -V, --version   print the version\n");
	for (unsigned g = 0; g < ARRAY_SIZE(titles); g++) {
		bool any = false;
		for (const struct ksp_cmd *const *c = ksp_commands; *c; c++) {
			if ((*c)->group == g && (*c)->subcmds) {
				for (const struct ksp_cmd *const *s = (*c)->subcmds; *s; s++) {
					if ((*s)->group != g)
						continue;
					if (!any)
						fprintf(out, "\n%s commands:\n", titles[g]);
					any = true;
					fprintf(out, "  %-5s %-13s %s\n", (*c)->name, (*s)->name, (*s)->help);
				}
			} else if ((*c)->group == g) {
				if (!any)
					fprintf(out, "\n%s commands:\n", titles[g]);
				any = true;
				fprintf(out, "  %-19s %s\n", (*c)->name, (*c)->help);
			}
		}
		/* sub-commands of a group may belong to other roles */
		for (const struct ksp_cmd *const *c = ksp_commands; *c; c++) {
			if ((*c)->group == g || !(*c)->subcmds)
				continue;
			for (const struct ksp_cmd *const *s = (*c)->subcmds; *s; s++) {
				if ((*s)->group != g)
					continue;
				if (!any)
					fprintf(out, "\n%s commands:\n", titles[g]);
				any = true;
				fprintf(out, "  %-5s %-13s %s\n", (*c)->name, (*s)->name, (*s)->help);
			}
		}
	}
	fprintf(out, "\nRun 'ksp help COMMAND' or 'ksp COMMAND --help' for details.\n");
}

static int do_help(struct ksp_cli *cli, int argc, char *argv[])
{
	const struct ksp_cmd *cmd, *sub;
	char full[64];

	if (argc < 2) {
		usage(stdout);
		return KSP_EXIT_OK;
	}
	cmd = cli_find(ksp_commands, argv[1]);
	if (cmd == NULL) {
		cli_err(cli, "no such command '%s'; run 'ksp help' for the list", argv[1]);
		return KSP_EXIT_ERROR;
	}
	if (argc < 3 || cmd->subcmds == NULL) {
		cli_help(stdout, cmd, cmd->name);
		return KSP_EXIT_OK;
	}
	sub = cli_find(cmd->subcmds, argv[2]);
	if (sub == NULL) {
		cli_err(cli, "no such command 'ksp %s %s'; run 'ksp help %s'", argv[1], argv[2], argv[1]);
		return KSP_EXIT_ERROR;
	}
	snprintf(full, sizeof(full), "%s %s", cmd->name, sub->name);
	cli_help(stdout, sub, full);
	return KSP_EXIT_OK;
}

const struct ksp_cmd ksp_cmd_help = {
	.name = "help",
	.run = do_help,
	.usage = "[COMMAND [SUBCOMMAND]]",
	.help = "show help for ksp or a command",
	.group = KSP_GROUP_OTHER,
};

static void purge_stdout(void)
{
	__fpurge(stdout);
}

static int ksp_main(struct ksp_cli *cli_, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
#define cli (*cli_)
	const struct ksp_cmd *cmd;
	int c, r;

	setlocale(LC_CTYPE, "");
	cli_safe_stderr(cli_stderr_seen); /* no file name reaches the terminal raw */
	/* gpgme forks gpg: a child that exits through stdio (as under
	 * valgrind) must not print our buffered output a second time */
	pthread_atfork(NULL, NULL, purge_stdout);
	/* The application initializes libgcrypt (the library never does). */
	if (!gcry_check_version(GCRYPT_VERSION)) {
		fprintf(stderr, "ksp: libgcrypt is older than the one ksp was built with; reinstall libgcrypt20\n");
		return KSP_EXIT_ERROR;
	}
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	gpgme_check_version(NULL);

	cli.db_path = getenv("KSP_DB");
	cli.db_default = cli.db_path == NULL || *cli.db_path == '\0';
	if (cli.db_default)
		cli.db_path = "ksp.db";
	opterr = 0; /* one message per mistake: ours, naming the option */
	while ((c = getopt_long(argc, argv, "+:d:vqVh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			cli.db_path = optarg;
			cli.db_default = false;
			break;
		case 'J':
			cli.json = true;
			cli_json_begin();
			break;
		case 'v':
			cli.verbose++;
			break;
		case 'q':
			cli.quiet = true;
			break;
		case 'V':
			printf("ksp %s\n", VERSION);
			return KSP_EXIT_OK;
		case 'h':
			usage(stdout);
			return KSP_EXIT_OK;
		case ':':
			fprintf(stderr, "ksp: option '-%c' needs a value (usage: 'ksp --help')\n", optopt ? optopt : 'd');
			return KSP_EXIT_ERROR;
		default: {
			const char *arg = argv[optind - 1];
			char *esc = cli_escape(arg, strlen(arg), KSP_ESCAPE_TERMINAL);
			if (optopt && strncmp(arg, "--", 2) != 0)
				fprintf(stderr, "ksp: unknown option '-%c' (usage: 'ksp --help')\n",
					optopt > ' ' && optopt < 127 ? optopt : '?');
			else
				fprintf(stderr, "ksp: unknown option '%s' (usage: 'ksp --help')\n", esc ? esc : "?");
			free(esc);
			return KSP_EXIT_ERROR;
		}
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return KSP_EXIT_ERROR;
	}
	cmd = cli_find(ksp_commands, argv[optind]);
	if (cmd == NULL) {
		fprintf(stderr, "ksp: unknown command '%s'; run 'ksp help' for the list\n", argv[optind]);
		return KSP_EXIT_ERROR;
	}
	/* ksp CMD --help == ksp help CMD, for plain commands */
	if (cmd->subcmds == NULL && cmd != &ksp_cmd_help) {
		for (int i = optind + 1; i < argc; i++) {
			if (strcmp(argv[i], "--") == 0)
				break;
			if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
				cli_help(stdout, cmd, cmd->name);
				return KSP_EXIT_OK;
			}
		}
	}
	r = ksp_new(&cli.ctx);
	if (r < 0) {
		fprintf(stderr, "ksp: cannot initialize: %s\n", strerror(-r));
		return KSP_EXIT_ERROR;
	}
	cli_signals_install(cli.ctx); /* temporary GnuPG homes gone on ^C too */
	if (getenv("KSP_LOG") == NULL)
		ksp_set_log_fn(cli.ctx, log_cli, NULL);
	if (getenv("GNUPGHOME") && (r = ksp_set_gnupg_home(cli.ctx, getenv("GNUPGHOME"))) < 0) {
		fprintf(stderr, "ksp: GNUPGHOME: cannot use it: %s; nothing was done, run the command again\n",
			strerror(-r));
		ksp_unref(cli.ctx);
		return KSP_EXIT_ERROR;
	}
	if (getenv("KSP_THREADS"))
		ksp_set_threads(cli.ctx, (unsigned int)strtoul(getenv("KSP_THREADS"), NULL, 10));
	/* progress of long work, on a terminal only */
	if (!cli.quiet && isatty(STDERR_FILENO))
		ksp_set_progress_fn(cli.ctx, progress, &cli);
	apply_verbosity(&cli);
	/* the global options after the command: cli_getopt() */
	cli.prog = cmd->name;
	argc -= optind;
	argv += optind;
	optind = 0;
	if (cmd->subcmds)
		r = cli_run_group(&cli, cmd, argc, argv);
	else
		r = cmd->run(&cli, argc, argv);
	ksp_unref(cli.ctx);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "ksp: error writing output: %s\n", strerror(errno));
		return KSP_EXIT_ERROR;
	}
	/* an error already reported is the one line; else say the output is short */
	if (escape_error && r != KSP_EXIT_ERROR)
		return cli_output_fail(&cli, "%s", "the output is incomplete, run the command again");
	return r;
}
#undef cli

/*
 * --json: an error is also a JSON object on standard output, so that
 * scripts never parse prose.  Every error line ksp prints on stderr starts
 * "ksp: " (warnings "ksp: warning: "); the escaping stderr stream
 * (safe-print.c) shows every line to cli_stderr_seen(), which remembers
 * the last such line, and main() turns it into
 * {"error": "...", "file": "..."|null, "exit": 2} when the command failed.
 * "file" is the file the message begins with, when that is one the
 * command was given (an argument, or the store).
 */
static char last_error[1024];
static size_t line_len;
static char line_buf[1024];

void cli_stderr_seen(const char *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n') {
			if (line_len + 1 < sizeof(line_buf)) /* a longer line is cut */
				line_buf[line_len++] = buf[i];
			continue;
		}
		line_buf[line_len] = '\0';
		if (strncmp(line_buf, "ksp: ", 5) == 0 && strncmp(line_buf + 5, "warning: ", 9) != 0 &&
		    strncmp(line_buf + 5, "info: ", 6) != 0 && strncmp(line_buf + 5, "notice: ", 8) != 0 &&
		    strncmp(line_buf + 5, "debug: ", 7) != 0)
			memcpy(last_error, line_buf + 5, line_len - 5 + 1);
		line_len = 0;
	}
}

/*
 * With --json, standard output is collected in memory and written at the
 * end, so that an error can be added to the command's own JSON object (its
 * partial report, e.g. the files imported before one failed) instead of
 * following it as a second document.
 */
static FILE *real_stdout;
static char *json_buf;
static size_t json_len;

static void cli_json_begin(void)
{
	FILE *m;

	if (real_stdout)
		return;
	fflush(stdout);
	m = open_memstream(&json_buf, &json_len);
	if (m == NULL)
		return; /* written as it comes; an error object then follows the report */
	real_stdout = stdout;
	stdout = m;
}

/* The error object {"error":"...","file":...,"exit":2}; NULL when out of memory */
static json_t *json_error_object(const struct ksp_cli *cli, int argc, char *argv[])
{
	const char *msg = *last_error ? last_error : "failed (no message)";
	const char *colon = strstr(msg, ": ");
	char file[512] = "";
	json_t *o = json_object();

	/* "FILE: ..." where FILE is one the command was given (not the name
	 * of the command: "verify: give the core") */
	if (colon && (size_t)(colon - msg) < sizeof(file)) {
		bool given;

		memcpy(file, msg, (size_t)(colon - msg));
		file[colon - msg] = '\0';
		given = cli->db_path && strcmp(file, cli->db_path) == 0;
		for (int i = 1; i < argc && !given; i++) {
			const char *eq = strchr(argv[i], '=');
			given = strcmp(argv[i], file) == 0 || (argv[i][0] == '-' && eq && strcmp(eq + 1, file) == 0);
		}
		if (given && !strchr(file, '/') && !strchr(file, '.') && access(file, F_OK) < 0 &&
		    (cli_find(ksp_commands, file) || (cli->full && strstr(cli->full, file))))
			given = false;
		if (!given)
			file[0] = '\0';
	}
	if (o == NULL)
		return NULL;
	cj_set(o, "error", cj_strz(msg));
	cj_set(o, "file", *file ? cj_strz(file) : json_null());
	cj_set(o, "exit", json_integer(KSP_EXIT_ERROR));
	return o;
}

/* Writes the collected output, with the error merged in when @failed.
 * Returns 0, or -errno of standard output. */
static int json_finish(const struct ksp_cli *cli, bool failed, int argc, char *argv[])
{
	json_t *report = NULL, *err = NULL;
	char *err_text = NULL;

	if (real_stdout) {
		if (fclose(stdout) != 0)
			json_len = 0;
		stdout = real_stdout;
		real_stdout = NULL;
	}
	if (failed) {
		err = json_error_object(cli, argc, argv);
		err_text = cj_dumps(err);
		json_decref(err);
		/* one object, as every reporting command writes: the error
		 * goes inside (read back with jansson; the report's own text
		 * is kept as it was written) */
		if (json_len)
			report = json_loadb(json_buf, json_len, JSON_ALLOW_NUL, NULL);
	}
	if (failed && json_is_object(report) && err_text) {
		size_t end = json_len;

		while (end > 0 && json_buf[end - 1] != '}')
			end--;
		fwrite(json_buf, 1, end - 1, stdout);
		if (json_object_size(report))
			fputc(',', stdout);
		fputs(err_text + 1, stdout); /* without its '{' */
		fputc('\n', stdout);
	} else {
		if (json_len)
			fwrite(json_buf, 1, json_len, stdout);
		/* without memory for it the error stays on stderr alone */
		if (failed && err_text)
			puts(err_text);
	}
	json_decref(report);
	free(err_text);
	free(json_buf);
	json_buf = NULL;
	if (fflush(stdout) != 0 || ferror(stdout))
		return -errno;
	return 0;
}

int main(int argc, char *argv[])
{
	struct ksp_cli cli = { 0 };
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int r;

	/* getopt permutes argv; json_error() looks at what was given */
	if (args)
		memcpy(args, argv, (size_t)argc * sizeof(*args));
	r = ksp_main(&cli, argc, argv);
	/* an error before --json was read (ksp wot stats --top x --json) */
	for (int i = 1; args && i < argc && r == KSP_EXIT_ERROR && !cli.json; i++) {
		if (strcmp(args[i], "--") == 0)
			break;
		cli.json = strcmp(args[i], "--json") == 0;
	}
	if (cli.json && json_finish(&cli, r == KSP_EXIT_ERROR, args ? argc : 0, args) < 0) {
		fprintf(stderr, "ksp: error writing output: %s\n", strerror(errno));
		r = KSP_EXIT_ERROR;
	}
	free(args);
	fflush(stderr);
	return r;
}
