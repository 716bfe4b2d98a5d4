/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trust-opts.h: the trust-policy options shared by the commands that judge
 * a key against a core ('ksp trust', 'ksp verify'), and the printing of a
 * trust result's paths.
 *
 * Usage: put CLI_TRUST_LONGOPTS in the command's struct option table, and
 * in the getopt_long() loop hand every option the command does not know
 * itself to cli_trust_opt():
 *
 *   default:
 *           r = cli_trust_opt(cli, &to, &ksp_cmd_x, "x", c, optarg);
 *           if (r < 0) { status = KSP_EXIT_ERROR; goto out; }   (reported)
 *           if (r == 0) { status = cli_usage_error(...); goto out; }
 */
#pragma once
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/ksp.h"

/* getopt values, out of the range of short options */
enum {
	CLI_TRUST_OPT_POLICY = 0x1000,
	CLI_TRUST_OPT_CORE,
	CLI_TRUST_OPT_CORE_FPR,
	CLI_TRUST_OPT_CORE_PARTY,
	CLI_TRUST_OPT_MAX_DEPTH,
	CLI_TRUST_OPT_MIN_PATHS,
	CLI_TRUST_OPT_PER_UID,
	CLI_TRUST_OPT_NO_SHA1,
	CLI_TRUST_OPT_MIN_KEY_BITS,
	CLI_TRUST_OPT_MAX_CERT_AGE,
	CLI_TRUST_OPT_AT,
	CLI_TRUST_OPT_EMAIL,
	CLI_TRUST_OPT_SHA1,
	CLI_TRUST_OPT_ALLOW_MD5,
	CLI_TRUST_OPT_UID,
};

#define CLI_TRUST_LONGOPTS                                                          \
	{ "policy", required_argument, NULL, CLI_TRUST_OPT_POLICY },                \
	{ "core", required_argument, NULL, CLI_TRUST_OPT_CORE },                    \
	{ "core-fpr", required_argument, NULL, CLI_TRUST_OPT_CORE_FPR },            \
	{ "core-party", no_argument, NULL, CLI_TRUST_OPT_CORE_PARTY },              \
	{ "max-depth", required_argument, NULL, CLI_TRUST_OPT_MAX_DEPTH },          \
	{ "min-paths", required_argument, NULL, CLI_TRUST_OPT_MIN_PATHS },          \
	{ "per-uid", no_argument, NULL, CLI_TRUST_OPT_PER_UID },                    \
	{ "no-sha1", no_argument, NULL, CLI_TRUST_OPT_NO_SHA1 },                    \
	{ "min-key-bits", required_argument, NULL, CLI_TRUST_OPT_MIN_KEY_BITS },    \
	{ "max-cert-age", required_argument, NULL, CLI_TRUST_OPT_MAX_CERT_AGE },    \
	{ "sha1", required_argument, NULL, CLI_TRUST_OPT_SHA1 },                    \
	{ "allow-md5", no_argument, NULL, CLI_TRUST_OPT_ALLOW_MD5 },                \
	{ "at", required_argument, NULL, CLI_TRUST_OPT_AT }

/* The binding question (ksp trust; for commands that can ask it): the
 * paths' last certifications on this user ID or e-mail address. */
#define CLI_TRUST_BINDING_LONGOPTS                                    \
	{ "email", required_argument, NULL, CLI_TRUST_OPT_EMAIL },    \
	{ "uid", required_argument, NULL, CLI_TRUST_OPT_UID }

#define CLI_TRUST_BINDING_HELP                                                               \
	"  --email ADDR      the binding of the key and its user ID with address ADDR:\n"      \
	"                    the paths' last certifications on that user ID; without\n"       \
	"                    FPR, every key that claims ADDR, each with its verdict\n"        \
	"                    (exit 0 when one of them is trusted)\n"                          \
	"  --uid UID         the same for the user ID UID, exactly\n"

#define CLI_TRUST_USAGE                                                                     \
	"[--policy FILE] [--core FILE | --core-fpr FPR... | --core-party] [--max-depth L]\n" \
	"       [--min-paths K] [--per-uid] [--sha1 RULE | --no-sha1] [--allow-md5]\n"          \
	"       [--min-key-bits N] [--max-cert-age A]\n" \
	"       [--at DATE]"

#define CLI_TRUST_HELP                                                                       \
	"  --policy FILE     read the rule from FILE (key = value; see ksp-trust(1));\n"        \
	"                    options given after it override it\n"                              \
	"  --core FILE       core fingerprints, one per line (gpg --export-ownertrust\n"        \
	"                    lines too)\n"                                                      \
	"  --core-fpr FPR    a core key (repeatable)\n"                                         \
	"  --core-party      the store's party participants are the core\n"                     \
	"  --max-depth L     at most L certifications per path (default 5)\n"                   \
	"  --min-paths K     at least K vertex-disjoint paths (default 1)\n"                    \
	"  --per-uid         the paths' last certifications are on one user ID\n"              \
	"  --no-sha1         MD5, SHA-1 and RIPEMD-160 certifications do not count\n"          \
	"  --min-key-bits N  RSA/DSA/ElGamal signers below N bits do not count\n"              \
	"  --max-cert-age A  certifications older than A (90d, 2y, seconds) do not count\n"    \
	"  --at DATE         reference time (default: now)\n"

struct cli_trust_opts {
	struct ksp_trust_policy *policy;
	int64_t at;      /* reference time, default now */
	bool core_given; /* a core option or a policy file was given */
	const char *email, *uid; /* the binding question, or NULL */
};

/* Makes the policy (defaults) and sets the time to now.  Returns 0, or an
 * exit status after printing the error. */
int cli_trust_opts_init(struct ksp_cli *cli, struct cli_trust_opts *to);
void cli_trust_opts_done(struct cli_trust_opts *to);
/* Applies option @c (a CLI_TRUST_OPT_ value) with @arg.  Returns 1 when
 * done, 0 when @c is not a trust option, -1 after printing an error (a
 * usage error for @cmd / @fullname, or the library's message). */
int cli_trust_opt(struct ksp_cli *cli, struct cli_trust_opts *to, const struct ksp_cmd *cmd,
		  const char *fullname, int c, const char *arg);

/* ksp_trust_check(), or ksp_trust_check_binding() when --email or --uid
 * was given. */
int cli_trust_check(struct ksp_store *store, const struct cli_trust_opts *to, const char *fpr,
		    struct ksp_trust_result **res);
/* The keys that claim the --email or --uid of @to (free() *fprs). */
int cli_trust_find(struct ksp_store *store, const struct cli_trust_opts *to, char (**fprs)[65], size_t *n);

/* The paths of @res on stdout, indented by @indent spaces: "path N (H
 * hops):" then each hop (signer, "certified SIGNEE on DATE", user ID). */
void cli_trust_print_paths(const struct ksp_trust_result *res, int indent);
/* The result as the JSON members "trusted", "reason", "message",
 * "min_paths", "max_depth", "paths_found", "uid", "paths" (no braces). */
void cli_trust_print_json(FILE *out, const struct ksp_trust_result *res, const struct ksp_trust_policy *pol);

/* --sha1 RULE: KSP_SHA1_YES, _BEFORE_2019, _NO, or -EINVAL */
int cli_parse_sha1_rule(const char *v);
