/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trust-opts.h: the trust-policy options shared by the commands that judge
 * a key against a core ('ksp trust', 'ksp verify'), and the printing of a
 * trust result's paths.
 *
 * Usage: put CLI_TRUST_LONGOPTS (and CLI_TRUST_MODEL_LONGOPTS, the models'
 * own options) in the command's struct option table, and in the
 * getopt_long() loop hand every option the command does not know itself to
 * cli_trust_opt():
 *
 *   default:
 *           r = cli_trust_opt(cli, &to, &ksp_cmd_x, "x", c, optarg);
 *           if (r < 0) { status = KSP_EXIT_ERROR; goto out; }   (reported)
 *           if (r == 0) { status = cli_usage_error(...); goto out; }
 *
 * then, after the loop, cli_trust_opts_check(): the options given that
 * the policy's model does not take are refused there, once for every
 * command.  Every option lands in the policy (struct ksp_trust_policy):
 * the commands ask the policy's model (ksp_trust_query()).
 */
#pragma once
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/ksp.h"
#include "cli/json-out.h"

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
	CLI_TRUST_OPT_MODEL,
	CLI_TRUST_OPT_OWNERTRUST,
	CLI_TRUST_OPT_MARGINALS,
	CLI_TRUST_OPT_COMPLETES,
	CLI_TRUST_OPT_MAX_CERT_DEPTH,
	CLI_TRUST_OPT_MIN_CERT_LEVEL,
	CLI_TRUST_OPT_PARTIAL_CORE,
	CLI_TRUST_OPT_TRUST_AMOUNT,
	CLI_TRUST_OPT_CERT_NETWORK,
	CLI_TRUST_OPT_END_, /* (cli_trust_opts.given: one bit per option) */
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
	{ "model", required_argument, NULL, CLI_TRUST_OPT_MODEL },                  \
	{ "at", required_argument, NULL, CLI_TRUST_OPT_AT }

/* The models' own options (each sets the policy key of the same name,
 * '-' for '_': ksp_trust_policy_set_option()). */
#define CLI_TRUST_MODEL_LONGOPTS                                                              \
	{ "ownertrust", required_argument, NULL, CLI_TRUST_OPT_OWNERTRUST },                  \
	{ "marginals-needed", required_argument, NULL, CLI_TRUST_OPT_MARGINALS },             \
	{ "completes-needed", required_argument, NULL, CLI_TRUST_OPT_COMPLETES },             \
	{ "max-cert-depth", required_argument, NULL, CLI_TRUST_OPT_MAX_CERT_DEPTH },          \
	{ "min-cert-level", required_argument, NULL, CLI_TRUST_OPT_MIN_CERT_LEVEL },          \
	{ "partial-core", required_argument, NULL, CLI_TRUST_OPT_PARTIAL_CORE },              \
	{ "trust-amount", required_argument, NULL, CLI_TRUST_OPT_TRUST_AMOUNT },              \
	{ "certification-network", no_argument, NULL, CLI_TRUST_OPT_CERT_NETWORK }

#define CLI_TRUST_MODEL_HELP                                                                 \
	"  --ownertrust FILE GnuPG's model (--model gnupg): gpg --export-ownertrust lines\n"  \
	"  --marginals-needed N\n"                                                             \
	"  --completes-needed N\n"                                                             \
	"  --max-cert-depth N\n"                                                               \
	"  --min-cert-level N  GnuPG's numbers (defaults 3, 1, 5, 2; ksp-trust(1))\n"          \
	"  --partial-core FPR:AMOUNT  Sequoia's model (--model sequoia): a partly\n"           \
	"                    trusted root (amount 1-120)\n"                                    \
	"  --trust-amount N  the amount Sequoia's model wants (default 120)\n"                 \
	"  --certification-network  every certification introduces (Sequoia)\n"

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
	"       [--model paths|gnupg|sequoia] [--at DATE]"

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
	"  --sha1 RULE       SHA-1 certifications: before-2019 (the default, gpg 2.2's:\n"    \
	"                    not those made after 2019-01-19), no, or yes (risky: SHA-1\n"   \
	"                    chosen-prefix collisions let whoever prepares a key being\n"    \
	"                    signed forge its certification)\n"                              \
	"  --no-sha1         MD5, SHA-1 and RIPEMD-160 certifications do not count\n"          \
	"  --allow-md5       MD5 certifications count (by default they never do)\n"           \
	"  --min-key-bits N  RSA/DSA/ElGamal signers below N bits do not count\n"              \
	"  --max-cert-age A  certifications older than A (90d, 2y, seconds) do not count\n"    \
	"  --model M         the trust model: paths (the default), gnupg or sequoia\n"         \
	"                    (or model = M in the policy; see ksp-trust(1))\n"                 \
	"  --at DATE         reference time (default: now)\n"

struct cli_trust_opts {
	struct ksp_trust_policy *policy;
	int64_t at;      /* reference time, default now */
	bool core_given; /* a core option or a policy file was given */
	const char *email, *uid; /* the binding question, or NULL */
	const char *ownertrust;  /* the last --ownertrust, for messages */
	uint64_t given;          /* 1 << (CLI_TRUST_OPT_x - CLI_TRUST_OPT_POLICY): the options given */
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

/* After the options: refuses (usage error, returns an exit status) the
 * options given that the policy's model does not take, and a model
 * without the settings it needs; 0 when all is well. */
int cli_trust_opts_check(struct ksp_cli *cli, struct cli_trust_opts *to, const struct ksp_cmd *cmd,
			 const char *fullname);

/* ksp_trust_query(): the policy's model on the key, or on its binding
 * with --email or --uid when given. */
int cli_trust_check(struct ksp_store *store, const struct cli_trust_opts *to, const char *fpr,
		    struct ksp_trust_result **res);
/* The keys that claim the --email or --uid of @to (free() *fprs). */
int cli_trust_find(struct ksp_store *store, const struct cli_trust_opts *to, char (**fprs)[65], size_t *n);

/* The paths of @res on stdout, indented by @indent spaces: "path N (H
 * hops):" then each hop (signer, "certified SIGNEE on DATE", user ID). */
void cli_trust_print_paths(const struct ksp_trust_result *res, int indent);
/* The result's JSON members on @o: "trusted", "reason", "message",
 * "min_paths", "max_depth", "paths_found", "uid", "paths", "model" and the
 * model's own fields (ksp_trust_result_get_field()). */
void cli_trust_json(json_t *o, const struct ksp_trust_result *res, const struct ksp_trust_policy *pol);
/* "model":NAME and the model's own fields (ksp_trust_result_get_field()) */
void cli_trust_json_fields(json_t *o, const struct ksp_trust_result *res);
/* "paths": an array of paths, each an array of hops {signer, signee, created, uid} */
json_t *cli_trust_json_paths(const struct ksp_trust_result *res);
/* the result's reason as JSON names it ("trusted", "no_path", ...) */
const char *cli_trust_reason_name(const struct ksp_trust_result *res);

/* --sha1 RULE: KSP_SHA1_YES, _BEFORE_2019, _NO, or -EINVAL */
int cli_parse_sha1_rule(const char *v);
