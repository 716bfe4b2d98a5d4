// SPDX-License-Identifier: LGPL-2.1-or-later
/* Trust-policy options and trust-result printing shared by commands. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/trust-opts.h"
#include "shared/util.h"

int cli_trust_opts_init(struct ksp_cli *cli, struct cli_trust_opts *to)
{
	int r;

	memset(to, 0, sizeof(*to));
	to->at = (int64_t)time(NULL);
	r = ksp_trust_policy_new(cli->ctx, &to->policy);
	if (r < 0)
		return cli_fail(cli, r, "cannot make a trust policy");
	return 0;
}

void cli_trust_opts_done(struct cli_trust_opts *to)
{
	to->policy = ksp_trust_policy_free(to->policy);
}

static long parse_num(const char *arg, long min, long max, bool *ok)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	*ok = end != arg && *end == '\0' && errno == 0 && n >= min && n <= max;
	return n;
}

int cli_parse_sha1_rule(const char *v)
{
	if (strcmp(v, "yes") == 0)
		return KSP_SHA1_YES;
	if (strcmp(v, "before-2019") == 0)
		return KSP_SHA1_BEFORE_2019;
	if (strcmp(v, "no") == 0)
		return KSP_SHA1_NO;
	return -EINVAL;
}

/* (Long: one switch over every trust option the commands share, each case a few lines.) */
int cli_trust_opt(struct ksp_cli *cli, struct cli_trust_opts *to, const struct ksp_cmd *cmd,
		  const char *fullname, int c, const char *arg)
{
	struct ksp_trust_policy *pol = to->policy;
	bool ok;
	long n;
	int r = 0;

	if (c >= CLI_TRUST_OPT_POLICY && c < CLI_TRUST_OPT_END_)
		to->given |= 1ull << (c - CLI_TRUST_OPT_POLICY);
	switch (c) {
	case CLI_TRUST_OPT_POLICY:
		r = ksp_trust_policy_load(pol, arg);
		to->core_given = true;
		break;
	case CLI_TRUST_OPT_CORE:
		r = ksp_trust_policy_add_core_file(pol, arg);
		to->core_given = true;
		break;
	case CLI_TRUST_OPT_CORE_FPR:
		r = ksp_trust_policy_add_core(pol, arg);
		to->core_given = true;
		break;
	case CLI_TRUST_OPT_CORE_PARTY:
		ksp_trust_policy_set_core_party(pol, true);
		to->core_given = true;
		break;
	case CLI_TRUST_OPT_MAX_DEPTH:
	case CLI_TRUST_OPT_MIN_PATHS:
		n = parse_num(arg, 1, c == CLI_TRUST_OPT_MAX_DEPTH ? 1000 : 64, &ok);
		if (!ok) {
			cli_usage_error(cli, cmd, fullname, "--%s takes a number from 1 to %d",
					c == CLI_TRUST_OPT_MAX_DEPTH ? "max-depth" : "min-paths",
					c == CLI_TRUST_OPT_MAX_DEPTH ? 1000 : 64);
			return -1;
		}
		r = c == CLI_TRUST_OPT_MAX_DEPTH ? ksp_trust_policy_set_max_depth(pol, (int)n)
						 : ksp_trust_policy_set_min_paths(pol, (int)n);
		break;
	case CLI_TRUST_OPT_PER_UID:
		ksp_trust_policy_set_per_uid(pol, true);
		break;
	case CLI_TRUST_OPT_NO_SHA1:
		ksp_trust_policy_set_sha1(pol, false);
		break;
	case CLI_TRUST_OPT_SHA1:
		if (cli_parse_sha1_rule(arg) < 0) {
			cli_usage_error(cli, cmd, fullname, "--sha1 is yes, before-2019 or no, not '%s'", arg);
			return -1;
		}
		r = ksp_trust_policy_set_sha1_rule(pol, cli_parse_sha1_rule(arg));
		break;
	case CLI_TRUST_OPT_ALLOW_MD5:
		ksp_trust_policy_set_md5(pol, true);
		break;
	case CLI_TRUST_OPT_MIN_KEY_BITS:
		n = parse_num(arg, 0, 65536, &ok);
		if (!ok) {
			cli_usage_error(cli, cmd, fullname, "--min-key-bits takes a number of bits");
			return -1;
		}
		ksp_trust_policy_set_min_bits(pol, (unsigned)n);
		break;
	case CLI_TRUST_OPT_MAX_CERT_AGE: {
		char *end;
		long long v;
		int64_t mul;

		errno = 0;
		v = strtoll(arg, &end, 10);
		if (end == arg || v < 0 || errno || (*end && end[1]) || (*end && !strchr("hdwy", *end))) {
			cli_usage_error(cli, cmd, fullname, "--max-cert-age takes 90d, 2y, 12w, 36h or seconds");
			return -1;
		}
		mul = *end == 'h' ? 3600 : *end == 'd' ? 86400 : *end == 'w' ? 7 * 86400 : *end == 'y' ? 365 * 86400 : 1;
		if (v > INT64_MAX / mul) {
			cli_usage_error(cli, cmd, fullname, "--max-cert-age: '%s' is too large", arg);
			return -1;
		}
		ksp_trust_policy_set_max_age(pol, (int64_t)v * mul);
		break;
	}
	case CLI_TRUST_OPT_EMAIL:
	case CLI_TRUST_OPT_UID:
		if (to->email || to->uid) {
			cli_usage_error(cli, cmd, fullname, "give one --email or --uid");
			return -1;
		}
		if (c == CLI_TRUST_OPT_EMAIL && (arg[0] == '\0' || strchr(arg, '@') == NULL || strchr(arg, '@') == arg)) {
			cli_usage_error(cli, cmd, fullname, "--email takes an address NAME@DOMAIN");
			return -1;
		}
		if (c == CLI_TRUST_OPT_UID && arg[0] == '\0') {
			cli_usage_error(cli, cmd, fullname, "--uid takes a user ID, as it is on the key");
			return -1;
		}
		if (c == CLI_TRUST_OPT_EMAIL)
			to->email = arg;
		else
			to->uid = arg;
		break;
	case CLI_TRUST_OPT_MODEL:
		if (ksp_trust_model_from_name(arg) < 0) {
			cli_usage_error(cli, cmd, fullname, "--model is paths, gnupg or sequoia, not '%s'", arg);
			return -1;
		}
		r = ksp_trust_policy_set_model(pol, ksp_trust_model_from_name(arg));
		break;
	case CLI_TRUST_OPT_OWNERTRUST:
		to->ownertrust = arg;
		to->core_given = true; /* its level-6 keys are GnuPG's roots */
		r = ksp_trust_policy_set_option(pol, "ownertrust", arg);
		if (r < 0) {
			cli_fail(cli, r, "%s: bad ownertrust", arg);
			return -1;
		}
		break;
	case CLI_TRUST_OPT_MARGINALS:
	case CLI_TRUST_OPT_COMPLETES:
	case CLI_TRUST_OPT_MAX_CERT_DEPTH:
	case CLI_TRUST_OPT_MIN_CERT_LEVEL: {
		const char *o = c == CLI_TRUST_OPT_MARGINALS	 ? "marginals-needed"
				: c == CLI_TRUST_OPT_COMPLETES	 ? "completes-needed"
				: c == CLI_TRUST_OPT_MAX_CERT_DEPTH ? "max-cert-depth"
								    : "min-cert-level";
		int lo = c == CLI_TRUST_OPT_MARGINALS ? 2 : 1, hi = c == CLI_TRUST_OPT_MIN_CERT_LEVEL ? 3 : 255;
		char key[32];

		n = parse_num(arg, lo, hi, &ok);
		if (!ok) {
			cli_usage_error(cli, cmd, fullname, "--%s takes a number from %d to %d", o, lo, hi);
			return -1;
		}
		snprintf(key, sizeof(key), "%s", o);
		for (char *k = key; *k; k++)
			if (*k == '-')
				*k = '_';
		r = ksp_trust_policy_set_option(pol, key, arg);
		break;
	}
	case CLI_TRUST_OPT_PARTIAL_CORE: {
		const char *colon = strchr(arg, ':');

		n = colon ? parse_num(colon + 1, 1, 120, &ok) : 0;
		if (colon == NULL || !ok) {
			cli_usage_error(cli, cmd, fullname, "--partial-core takes FPR:AMOUNT (1-120), not '%s'", arg);
			return -1;
		}
		r = ksp_trust_policy_set_option(pol, "partial_core", arg);
		break;
	}
	case CLI_TRUST_OPT_TRUST_AMOUNT:
		n = parse_num(arg, 1, 7680, &ok);
		if (!ok) {
			cli_usage_error(cli, cmd, fullname, "--trust-amount takes a number from 1 to 7680, not '%s'", arg);
			return -1;
		}
		r = ksp_trust_policy_set_trust_amount(pol, (int)n);
		break;
	case CLI_TRUST_OPT_CERT_NETWORK:
		ksp_trust_policy_set_certification_network(pol, true);
		break;
	case CLI_TRUST_OPT_AT:
		if (parse_date(arg, &to->at) < 0) {
			cli_usage_error(cli, cmd, fullname, "--at takes YYYY-MM-DD[THH:MM:SS[Z]] or @EPOCH, not '%s'", arg);
			return -1;
		}
		break;
	default:
		return 0;
	}
	if (r < 0) {
		cli_fail(cli, r, "bad policy");
		return -1;
	}
	return 1;
}

/* The options each model does not take: given with it, they are refused. */
#define OPT(x) (1ull << (CLI_TRUST_OPT_##x - CLI_TRUST_OPT_POLICY))
#define GNUPG_OPTS (OPT(OWNERTRUST) | OPT(MARGINALS) | OPT(COMPLETES) | OPT(MAX_CERT_DEPTH) | OPT(MIN_CERT_LEVEL))
#define SEQUOIA_OPTS (OPT(PARTIAL_CORE) | OPT(TRUST_AMOUNT) | OPT(CERT_NETWORK))
#define PATHS_OPTS (OPT(MAX_DEPTH) | OPT(MIN_PATHS) | OPT(PER_UID) | OPT(MIN_KEY_BITS) | OPT(MAX_CERT_AGE))
static const uint64_t not_taken[] = {
	[KSP_TRUST_MODEL_PATHS] = GNUPG_OPTS | SEQUOIA_OPTS,
	[KSP_TRUST_MODEL_GNUPG] = PATHS_OPTS | SEQUOIA_OPTS | OPT(EMAIL) | OPT(UID),
	[KSP_TRUST_MODEL_SEQUOIA] = GNUPG_OPTS,
};

int cli_trust_opts_check(struct ksp_cli *cli, struct cli_trust_opts *to, const struct ksp_cmd *cmd,
			 const char *fullname)
{
	int model = ksp_trust_policy_get_model(to->policy);
	uint64_t bad = model >= 0 && model < (int)ARRAY_SIZE(not_taken) ? to->given & not_taken[model] : 0;

	if (bad & SEQUOIA_OPTS)
		return cli_usage_error(cli, cmd, fullname,
				       "--partial-core, --trust-amount and --certification-network need --model sequoia");
	if (bad & GNUPG_OPTS)
		return cli_usage_error(cli, cmd, fullname,
				       "--ownertrust, --marginals-needed, --completes-needed, --max-cert-depth and "
				       "--min-cert-level need --model gnupg");
	if (bad) {
		/* the option by name */
		const struct option all[] = { CLI_TRUST_LONGOPTS, CLI_TRUST_BINDING_LONGOPTS, {} };
		const char *name = "?";

		for (const struct option *o = all; o->name; o++)
			if (bad & (1ull << (o->val - CLI_TRUST_OPT_POLICY)))
				name = o->name;
		return cli_usage_error(cli, cmd, fullname, "'--%s' is not an option of --model %s", name,
				       ksp_trust_model_name(model));
	}
	if (model == KSP_TRUST_MODEL_GNUPG && ksp_trust_policy_get_option(to->policy, "ownertrust") <= 0 &&
	    ksp_trust_policy_get_core_count(to->policy) == 0 && !(to->given & OPT(CORE_PARTY)))
		return cli_usage_error(cli, cmd, fullname,
				       "--model gnupg needs --ownertrust FILE (gpg --export-ownertrust) or core keys "
				       "(--core-fpr, --core, --core-party: the ultimately trusted roots)");
	return 0;
}

int cli_trust_check(struct ksp_store *store, const struct cli_trust_opts *to, const char *fpr,
		    struct ksp_trust_result **res)
{
	return ksp_trust_query(store, to->policy, fpr, to->uid, to->email, to->at, res);
}

int cli_trust_find(struct ksp_store *store, const struct cli_trust_opts *to, char (**fprs)[65], size_t *n)
{
	return ksp_trust_find_binding(store, to->uid, to->uid ? strlen(to->uid) : 0, to->email, fprs, n);
}

void cli_trust_print_paths(const struct ksp_trust_result *res, int indent)
{
	size_t np = ksp_trust_result_get_path_count(res);

	for (size_t i = 0; i < np; i++) {
		size_t n = ksp_trust_result_get_path_length(res, i);
		printf("%*spath %zu (%zu hop%s):\n", indent, "", i + 1, n, n == 1 ? "" : "s");
		for (size_t h = 0; h < n; h++) {
			const char *a = NULL, *b = NULL, *u = NULL;
			int64_t created = 0;
			size_t len = 0;
			char date[32], *e;

			if (ksp_trust_result_get_hop(res, i, h, &a, &b, &created, &u, &len) < 0)
				continue;
			format_date(created, date, sizeof(date));
			printf("%*s  %s\n%*s    certified %s on %s\n", indent, "", a, indent, "", b, date);
			if (u == NULL) /* a model that does not say which user ID */
				continue;
			e = cli_escape(u, len, KSP_ESCAPE_TERMINAL);
			printf("%*s    \"%s\"\n", indent, "", e ? e : "?");
			free(e);
		}
	}
}

const char *cli_trust_reason_name(const struct ksp_trust_result *res)
{
	static const char *const reasons[] = { "trusted", "no_path", "too_few_paths", "target_unknown",
					       "target_revoked", "target_expired", "target_invalid", "no_core",
					       "undecided" };
	int reason = ksp_trust_result_get_reason(res);

	return reason >= 0 && reason < (int)ARRAY_SIZE(reasons) ? reasons[reason] : "error";
}

json_t *cli_trust_json_paths(const struct ksp_trust_result *res)
{
	size_t np = ksp_trust_result_get_path_count(res);
	json_t *paths = json_array();

	for (size_t i = 0; paths && i < np; i++) {
		json_t *path = json_array();

		for (size_t h = 0; path && h < ksp_trust_result_get_path_length(res, i); h++) {
			const char *a = "", *b = "", *u = NULL;
			int64_t created = 0;
			size_t len = 0;
			json_t *hop = json_object();

			ksp_trust_result_get_hop(res, i, h, &a, &b, &created, &u, &len);
			if (hop) {
				cj_set(hop, "signer", cj_strz(a));
				cj_set(hop, "signee", cj_strz(b));
				cj_set(hop, "created", cj_int(created));
				cj_set(hop, "uid", cj_str(u ? u : "", u ? len : 0));
			}
			cj_push(path, hop);
		}
		cj_push(paths, path);
	}
	return paths;
}

void cli_trust_json(json_t *o, const struct ksp_trust_result *res, const struct ksp_trust_policy *pol)
{
	const char *msg = ksp_trust_result_get_message(res), *uid;
	size_t ulen = 0;

	cj_set(o, "trusted", cj_bool(ksp_trust_result_is_trusted(res)));
	cj_set(o, "reason", cj_strz(cli_trust_reason_name(res)));
	cj_set(o, "message", cj_strz(msg ? msg : ""));
	cj_set(o, "min_paths", cj_int(ksp_trust_policy_get_min_paths(pol)));
	cj_set(o, "max_depth", cj_int(ksp_trust_policy_get_max_depth(pol)));
	cj_set(o, "paths_found", cj_int(ksp_trust_result_get_paths_found(res)));
	uid = ksp_trust_result_get_uid(res, &ulen);
	cj_set(o, "uid", uid ? cj_str(uid, ulen) : json_null());
	cj_set(o, "paths", cli_trust_json_paths(res));
	cli_trust_json_fields(o, res);
}

void cli_trust_json_fields(json_t *o, const struct ksp_trust_result *res)
{
	const char *name, *str;
	int64_t num;
	int t;

	cj_set(o, "model", cj_strz(ksp_trust_model_name(ksp_trust_result_get_model(res))));
	for (size_t i = 0; (t = ksp_trust_result_get_field(res, i, &name, &num, &str)) >= 0; i++) {
		json_t *v;

		if (t == KSP_TRUST_FIELD_STRING)
			v = cj_strz(str);
		else if (t == KSP_TRUST_FIELD_BOOL)
			v = cj_bool(num);
		else if (t == KSP_TRUST_FIELD_NULL)
			v = json_null();
		else
			v = cj_int(num);
		cj_set(o, name, v);
	}
}
