// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * policy.c: the trust policy (ksp_trust_policy_*) and its file's parser
 * (ksp-trust(1), "POLICY FILE"), moved out of trust.c, the engine that
 * reads it (its fields: trust-private.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "lib/addr.h"
#include "lib/libksp-private.h"
#include "lib/wot/wot-snap.h"
#include "lib/trust/whatif.h"
#include "lib/trust/policy.h"
#include "lib/trust/result.h"
#include "lib/trust/model.h"
#include "shared/strbuf.h"
#include "shared/util.h"
#include "lib/trust/trust-private.h"

/* ---- policy ---------------------------------------------------------------- */

KSP_EXPORT int ksp_trust_policy_new(struct ksp_ctx *ctx, struct ksp_trust_policy **ret)
{
	struct ksp_trust_policy *p;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->ctx = ctx;
	p->max_depth = 5;
	p->min_paths = 1;
	p->sha1 = KSP_SHA1_BEFORE_2019; /* gpg 2.2's */
	p->sq_amount = 120;
	*ret = p;
	return 0;
}

KSP_EXPORT struct ksp_trust_policy *ksp_trust_policy_free(struct ksp_trust_policy *p)
{
	if (p) {
		free(p->core);
		ksp_trust_models_free(p->mopts);
		free(p);
	}
	return NULL;
}

KSP_EXPORT int ksp_trust_policy_add_core(struct ksp_trust_policy *p, const char *fpr)
{
	char norm[65];

	if (p == NULL || fpr == NULL)
		return -EINVAL;
	if (fpr_normalize(fpr, norm) < 0) {
		ksp_set_error(p->ctx, "core key '%.80s' is not a full fingerprint (40 or 64 hex digits)", fpr);
		return -EINVAL;
	}
	for (size_t i = 0; i < p->n_core; i++)
		if (strcmp(p->core[i], norm) == 0)
			return 0;
	if (p->n_core == p->cap_core) {
		size_t nc = p->cap_core ? 2 * p->cap_core : 16;
		void *n = realloc(p->core, nc * sizeof(*p->core));
		if (n == NULL)
			return -ENOMEM;
		p->core = n;
		p->cap_core = nc;
	}
	memcpy(p->core[p->n_core++], norm, 65);
	return 0;
}

const char *ksp_trust_policy_core_at(const struct ksp_trust_policy *p, size_t i)
{
	return p && i < p->n_core ? p->core[i] : NULL;
}

void ksp_trust_policy_clear_core(struct ksp_trust_policy *p)
{
	if (p)
		p->n_core = 0;
}

KSP_EXPORT size_t ksp_trust_policy_get_core_count(const struct ksp_trust_policy *p)
{
	return p ? p->n_core : 0;
}

KSP_EXPORT void ksp_trust_policy_set_core_party(struct ksp_trust_policy *p, bool on)
{
	if (p)
		p->core_party = on;
}

KSP_EXPORT int ksp_trust_policy_set_max_depth(struct ksp_trust_policy *p, int depth)
{
	if (p == NULL || depth < 1 || depth > 1000)
		return -EINVAL;
	p->max_depth = depth;
	return 0;
}

KSP_EXPORT int ksp_trust_policy_set_min_paths(struct ksp_trust_policy *p, int paths)
{
	if (p == NULL || paths < 1 || paths > 64)
		return -EINVAL;
	p->min_paths = paths;
	return 0;
}

KSP_EXPORT void ksp_trust_policy_set_per_uid(struct ksp_trust_policy *p, bool on)
{
	if (p)
		p->per_uid = on;
}

KSP_EXPORT void ksp_trust_policy_set_sha1(struct ksp_trust_policy *p, bool counts)
{
	if (p) {
		p->sha1 = counts ? KSP_SHA1_YES : KSP_SHA1_NO;
		if (!counts)
			p->md5 = false;
	}
}

KSP_EXPORT int ksp_trust_policy_set_sha1_rule(struct ksp_trust_policy *p, int rule)
{
	if (p == NULL || rule < KSP_SHA1_YES || rule > KSP_SHA1_NO)
		return -EINVAL;
	p->sha1 = rule;
	return 0;
}

KSP_EXPORT int ksp_trust_policy_get_sha1_rule(const struct ksp_trust_policy *p)
{
	return p ? p->sha1 : KSP_SHA1_YES;
}

KSP_EXPORT void ksp_trust_policy_set_md5(struct ksp_trust_policy *p, bool counts)
{
	if (p)
		p->md5 = counts;
}

KSP_EXPORT void ksp_trust_policy_set_min_bits(struct ksp_trust_policy *p, unsigned int bits)
{
	if (p)
		p->min_bits = bits;
}

KSP_EXPORT void ksp_trust_policy_set_max_age(struct ksp_trust_policy *p, int64_t seconds)
{
	if (p)
		p->max_age = seconds > 0 ? seconds : 0;
}

KSP_EXPORT int ksp_trust_policy_get_max_depth(const struct ksp_trust_policy *p)
{
	return p ? p->max_depth : -EINVAL;
}

KSP_EXPORT int ksp_trust_policy_get_min_paths(const struct ksp_trust_policy *p)
{
	return p ? p->min_paths : -EINVAL;
}

/* model.h: each model's own settings */
const void *ksp_trust_policy_model_opts(const struct ksp_trust_policy *p, int model)
{
	return model >= 0 && model < KSP_TRUST_MODELS ? p->mopts[model] : NULL;
}

void **ksp_trust_policy_model_slots(struct ksp_trust_policy *p)
{
	return p->mopts;
}

struct ksp_ctx *ksp_trust_policy_ctx(const struct ksp_trust_policy *p)
{
	return p->ctx;
}

/* ---- what-if questions (health report, whatif.h) ------------------------- */

void ksp_trust_policy_get_rule(const struct ksp_trust_policy *p, struct ksp_trust_rule *rule)
{
	*rule = (struct ksp_trust_rule){
		.max_depth = p->max_depth,
		.min_paths = p->min_paths,
		.per_uid = p->per_uid,
		.md5 = p->md5,
		.sha1 = p->sha1,
		.core_party = p->core_party,
		.min_bits = p->min_bits,
		.max_age = p->max_age,
		.core = (const char(*)[65])p->core,
		.n_core = p->n_core,
	};
}

struct ksp_trust_policy *ksp_trust_policy_copy(const struct ksp_trust_policy *p)
{
	struct ksp_trust_policy *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	*c = *p;
	c->core = NULL;
	c->cap_core = p->n_core;
	if (p->n_core) {
		c->core = malloc(p->n_core * sizeof(*c->core));
		if (c->core == NULL) {
			free(c);
			return NULL;
		}
		memcpy(c->core, p->core, p->n_core * sizeof(*c->core));
	}
	if (ksp_trust_models_copy(c->mopts, p->mopts) < 0) {
		free(c->core);
		free(c);
		return NULL;
	}
	return c;
}

void ksp_trust_policy_set_whatif(struct ksp_trust_policy *p, const struct ksp_trust_whatif *w)
{
	p->whatif = w;
}

void ksp_trust_policy_set_no_dropped(struct ksp_trust_policy *p, bool no)
{
	p->no_dropped = no;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* sha1 = yes | before-2019 | no (also the booleans of parse_bool) */
static int parse_sha1(const char *v, int *out)
{
	bool b;

	if (!strcasecmp(v, "before-2019")) {
		*out = KSP_SHA1_BEFORE_2019;
		return 0;
	}
	if (parse_bool(v, &b) < 0)
		return -EINVAL;
	*out = b ? KSP_SHA1_YES : KSP_SHA1_NO;
	return 0;
}

/* "90d", "2y", "12w", "36h", or seconds. */
static int parse_age(const char *v, int64_t *out)
{
	char *end;
	long long n;
	int64_t mul = 1;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < 0)
		return -EINVAL;
	if (*end) {
		switch (*end) {
		case 'h': mul = 3600; break;
		case 'd': mul = 86400; break;
		case 'w': mul = 7 * 86400; break;
		case 'y': mul = 365 * 86400; break;
		default: return -EINVAL;
		}
		if (end[1])
			return -EINVAL;
	}
	if (n > INT64_MAX / mul)
		return -EINVAL;
	*out = (int64_t)n * mul;
	return 0;
}

static int parse_int(const char *v, int lo, int hi, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi)
		return -EINVAL;
	*out = (int)n;
	return 0;
}

static int load_core_file(struct ksp_trust_policy *p, const char *path, const char *from, unsigned line)
{
	uint8_t *data = NULL;
	size_t len;
	int r;

	r = read_file_all(path, 16u << 20, &data, &len);
	if (r < 0) {
		if (from)
			ksp_set_error(p->ctx, "%s:%u: core file %s: %s", from, line, path, strerror(-r));
		else
			ksp_set_error(p->ctx, "%s: cannot read the core keys: %s", path, strerror(-r));
		return r;
	}
	char *s = (char *)data, *save = NULL;
	unsigned n = 0;
	for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *t = trim(l), *c;
		n++;
		if ((c = strchr(t, '#')))
			*c = '\0';
		t = trim(t);
		/* "FPR:6:" lines of gpg --export-ownertrust are fine too */
		if ((c = strchr(t, ':')))
			*c = '\0';
		if (*t == '\0')
			continue;
		r = ksp_trust_policy_add_core(p, t);
		if (r < 0) {
			ksp_set_error(p->ctx, "%s:%u: '%.80s' is not a full fingerprint; one per line", path, n, t);
			break;
		}
	}
	free(data);
	return r < 0 ? r : 0;
}

KSP_EXPORT int ksp_trust_policy_add_core_file(struct ksp_trust_policy *p, const char *path)
{
	if (p == NULL || path == NULL)
		return -EINVAL;
	return load_core_file(p, path, NULL, 0);
}

KSP_EXPORT void ksp_trust_policy_set_at_signature(struct ksp_trust_policy *p, bool on)
{
	if (p)
		p->at_signature = on;
}

KSP_EXPORT bool ksp_trust_policy_get_at_signature(const struct ksp_trust_policy *p)
{
	return p && p->at_signature;
}

KSP_EXPORT int ksp_trust_policy_set_model(struct ksp_trust_policy *p, int model)
{
	if (p == NULL || ksp_trust_model_get(model) == NULL)
		return -EINVAL;
	p->model = model;
	return 0;
}

KSP_EXPORT int ksp_trust_policy_get_model(const struct ksp_trust_policy *p)
{
	return p ? p->model : KSP_TRUST_MODEL_PATHS;
}

KSP_EXPORT int ksp_trust_policy_set_trust_amount(struct ksp_trust_policy *p, int amount)
{
	if (p == NULL || amount < 1 || amount > 7680)
		return -EINVAL;
	p->sq_amount = amount;
	return 0;
}

KSP_EXPORT int ksp_trust_policy_get_trust_amount(const struct ksp_trust_policy *p)
{
	return p ? p->sq_amount : 120;
}

KSP_EXPORT void ksp_trust_policy_set_certification_network(struct ksp_trust_policy *p, bool on)
{
	if (p)
		p->sq_network = on;
}

KSP_EXPORT bool ksp_trust_policy_get_certification_network(const struct ksp_trust_policy *p)
{
	return p && p->sq_network;
}

KSP_EXPORT int ksp_trust_policy_load(struct ksp_trust_policy *p, const char *path)
{
	uint8_t *data = NULL;
	size_t len;
	unsigned lineno = 0;
	char *save = NULL, *line;
	int r = 0;

	if (p == NULL || path == NULL)
		return -EINVAL;
	r = read_file_all(path, 1u << 20, &data, &len);
	if (r < 0) {
		ksp_set_error(p->ctx, "%s: cannot read the policy: %s", path, strerror(-r));
		return r;
	}
	if (memchr(data, '\0', len)) {
		ksp_set_error(p->ctx, "%s: not a text file; a policy is key = value lines", path);
		free(data);
		return -EINVAL;
	}
	/* split by hand so that empty lines still count */
	for (line = (char *)data; line && r == 0; line = save) {
		char *nl = strchr(line, '\n'), *key, *val, *eq;
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		key = trim(line);
		if (*key == '#' || *key == '\0')
			continue;
		eq = strchr(key, '=');
		if (eq == NULL) {
			ksp_set_error(p->ctx, "%s:%u: expected 'key = value'", path, lineno);
			r = -EINVAL;
			break;
		}
		*eq = '\0';
		val = trim(eq + 1);
		key = trim(key);
		if ((eq = strchr(val, '#')) && (eq == val || isspace((unsigned char)eq[-1])))
			*eq = '\0';
		val = trim(val);
		if (!strcmp(key, "core")) {
			r = ksp_trust_policy_add_core(p, val);
		} else if (!strcmp(key, "core_file")) {
			char full[4096];
			const char *slash = strrchr(path, '/');
			if (val[0] != '/' && slash)
				snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - path), path, val);
			else
				snprintf(full, sizeof(full), "%s", val);
			r = load_core_file(p, full, path, lineno);
			if (r < 0)
				break;
		} else if (!strcmp(key, "core_party")) {
			r = parse_bool(val, &p->core_party);
		} else if (!strcmp(key, "max_depth")) {
			r = parse_int(val, 1, 1000, &p->max_depth);
		} else if (!strcmp(key, "min_paths")) {
			r = parse_int(val, 1, 64, &p->min_paths);
		} else if (!strcmp(key, "per_uid")) {
			r = parse_bool(val, &p->per_uid);
		} else if (!strcmp(key, "sha1")) {
			r = parse_sha1(val, &p->sha1);
		} else if (!strcmp(key, "md5")) {
			r = parse_bool(val, &p->md5);
		} else if (!strcmp(key, "min_key_bits")) {
			int b;
			r = parse_int(val, 0, 65536, &b);
			if (r == 0)
				p->min_bits = (unsigned)b;
		} else if (!strcmp(key, "max_cert_age")) {
			r = parse_age(val, &p->max_age);
		} else if (!strcmp(key, "model")) {
			if (ksp_trust_model_from_name(val) >= 0)
				p->model = ksp_trust_model_from_name(val);
			else {
				ksp_set_error(p->ctx, "%s:%u: model is paths, gnupg or sequoia, not '%.40s'", path, lineno, val);
				r = -EINVAL;
			}
		} else if (!strcmp(key, "trust_amount")) {
			r = parse_int(val, 1, 7680, &p->sq_amount);
		} else if (!strcmp(key, "certification_network")) {
			r = parse_bool(val, &p->sq_network);
		} else if (!strcmp(key, "trust_at")) {
			if (!strcmp(val, "now") || !strcmp(val, "signature"))
				p->at_signature = !strcmp(val, "signature");
			else
				r = -EINVAL;
		} else if ((r = ksp_trust_models_parse(p->ctx, p->mopts, key, val, path)) != 0) {
			r = r > 0 ? 0 : r; /* a model's own key (model.h) */
		} else {
			char keys[256];
			ksp_trust_models_keys(keys, sizeof(keys));
			ksp_set_error(p->ctx, "%s:%u: unknown key '%.40s' (core, core_file, core_party, max_depth, min_paths, "
					      "per_uid, sha1, md5, min_key_bits, max_cert_age, trust_at, model, trust_amount, "
					      "certification_network, %s)",
				      path, lineno, key, keys);
			r = -EINVAL;
			break;
		}
		if (r < 0 && !ksp_get_error(p->ctx))
			ksp_set_error(p->ctx, "%s:%u: bad value '%.60s' for %s", path, lineno, val, key);
		else if (r < 0) {
			/* keep the more precise message, add the place */
			char msg[900];
			snprintf(msg, sizeof(msg), "%s", ksp_get_error(p->ctx));
			if (strncmp(msg, path, strlen(path)) != 0)
				ksp_set_error(p->ctx, "%s:%u: %s", path, lineno, msg);
		}
	}
	free(data);
	return r;
}

/* policy.h: the Sequoia model's settings */
void ksp_trust_policy_sequoia(const struct ksp_trust_policy *p, int *amount, bool *network)
{
	*amount = p->sq_amount;
	*network = p->sq_network;
}
