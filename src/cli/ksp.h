/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <libksp.h>
#include "shared/macro.h"

enum {
	KSP_EXIT_OK = 0,
	KSP_EXIT_NEGATIVE = 1, /* not trusted, bad signature, check failed */
	KSP_EXIT_ERROR = 2,    /* usage error or failure */
};

enum ksp_cmd_group {
	KSP_GROUP_ORGANIZER,
	KSP_GROUP_PARTICIPANT,
	KSP_GROUP_ADMIN,
	KSP_GROUP_OTHER,
};

struct ksp_cli {
	struct ksp_ctx *ctx;
	const char *db_path;
	bool db_default; /* db_path is ./ksp.db: neither -d nor KSP_DB named it */
	const char *prog; /* "ksp party" etc., for messages */
	bool json;
	int verbose;
	bool quiet;
	/* progress line on a terminal */
	int64_t progress_last_ms;
	bool progress_shown;
	/* cli_getopt(): the command's options merged with the global ones */
	const struct option *opts_of;  /* the command's table they were made from */
	struct option opts[96];
	char optstring[96];
	bool opt_reported; /* cli_getopt() printed the error of a bad option */
	const char *full;  /* "party init": the command, for messages */
	const char *opt_hint; /* added to cli_getopt()'s "unknown option" line */
};

struct ksp_cmd {
	const char *name;
	int (*run)(struct ksp_cli *cli, int argc, char *argv[]);
	const char *usage; /* "[options] FILE..." */
	const char *help;  /* one line, lower case, no full stop */
	const char *details; /* full option text for --help, may be NULL */
	unsigned int group;
	const struct ksp_cmd *const *subcmds; /* NULL-terminated, for groups like "party" */
};

/* The command tables. */
extern const struct ksp_cmd *const ksp_commands[];

/* Messages: "ksp: ..." on stderr. */
/* Bytes read whole (read_file_all) or mapped; cli_input_release() frees. */
struct input {
	uint8_t *data;
	size_t len;
	bool mapped;
};
void cli_input_release(struct input *in);
/* git -C @repo @args... (cmd-verify.c): stdout into *out, the first line
 * of stderr into @err; git's exit status (>= 0) or -errno. */
int cli_run_git(const char *repo, const char *const *args, struct input *out, char *err, size_t errlen);
extern const struct ksp_cmd ksp_cmd_wot_refresh;

void cli_err(struct ksp_cli *cli, const char *fmt, ...) _printf_format_(2, 3);
void cli_warn(struct ksp_cli *cli, const char *fmt, ...) _printf_format_(2, 3);
void cli_info(struct ksp_cli *cli, const char *fmt, ...) _printf_format_(2, 3);
/* Print the library's last error (or a fallback naming what/strerror), return 2. */
int cli_fail(struct ksp_cli *cli, int r, const char *fmt, ...) _printf_format_(3, 4);

/* Print help for a command (full name like "party add"). */
void cli_help(FILE *out, const struct ksp_cmd *cmd, const char *fullname);
int cli_usage_error(struct ksp_cli *cli, const struct ksp_cmd *cmd, const char *fullname,
		    const char *fmt, ...) _printf_format_(4, 5);
/* getopt_long() for a command: the global options (-d/--db, --json,
 * -v/--verbose, -q/--quiet) are accepted among the command's own, before
 * or after its arguments, unless the command defines that option itself;
 * they are applied here and never returned.  A bad option or a missing
 * value is reported here, in one line naming it, and returned as '?'
 * (the command then returns cli_usage_error(), which adds nothing). */
int cli_getopt(struct ksp_cli *cli, int argc, char *argv[], const char *optstring, const struct option *longopts);
/* Every byte written to stderr (safe-print.c): the last error line is kept
 * for --json's error object. */
void cli_stderr_seen(const char *buf, size_t size);
/* Run a group command (dispatches to subcmds). */
int cli_run_group(struct ksp_cli *cli, const struct ksp_cmd *group, int argc, char *argv[]);
const struct ksp_cmd *cli_find(const struct ksp_cmd *const *table, const char *name);

/* Open the store named by -d / KSP_DB / ./ksp.db. */
int cli_open_store(struct ksp_cli *cli, unsigned int flags, struct ksp_store **ret);

/* A keyring for ksp_wot_load_fd() / ksp_wot_scan_add_fd(): @path opened
 * (- is stdin), and until cli_close_input() a SIGBUS (the file shrank
 * while it was mapped) ends ksp with one line naming it.  Returns the
 * descriptor or -errno. */
int cli_open_input(const char *path);
void cli_close_input(int fd);
/* Is @path a directory holding keys/ or .keyring/ (a key tree)? */
bool cli_is_keytree(const char *path);

/* Escaped user IDs for the terminal (JSON: cli/json-out.h); caller frees. */
char *cli_escape(const void *s, size_t len, unsigned int format);
/* Did a cli_escape() fail (its negative errno, else 0)?  The output then
 * holds "?" or "" in its place: a command that writes the store checks
 * this before committing; main() fails a command that did not. */
int cli_output_failed(void);
/* Print "ksp: cannot format the output: ERROR; WHAT..." and return 2. */
int cli_output_fail(struct ksp_cli *cli, const char *fmt, ...) _printf_format_(2, 3);

/* Write a message to @f with control characters, bidi and invisible
 * formatting characters and invalid UTF-8 escaped (\xNN, \u{NNNN}); used
 * for every "ksp: " message, which may name files given on the command
 * line. */
void cli_fputs_safe(const char *s, FILE *f);
/* Put an escaping stream in place of stderr (at the start of main): all
 * messages, the CLI's and the library's log, go out as cli_fputs_safe()
 * writes them (line ends, carriage returns and tabs pass); @seen (may be
 * NULL) is shown every byte that goes out. */
void cli_safe_stderr(void (*seen)(const char *buf, size_t size));
/* SIGINT, SIGTERM, SIGHUP: ksp_cleanup_after_signal(ctx), then the signal
 * re-raised (signals.c). */
void cli_signals_install(struct ksp_ctx *ctx);
