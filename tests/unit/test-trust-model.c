// SPDX-License-Identifier: LGPL-2.1-or-later
/* The trust models' interface (src/lib/trust/model.h): the registry's
 * names, the models' own settings in a policy (file and API, kept by a
 * copy), and the what-if check of health and publish. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libksp.h>

#include "lib/trust/whatif.h"
#include "harness.h"

static const char A[] = "0123456789ABCDEF0123456789ABCDEF01234567";

static int write_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "we");
	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int test_names(void)
{
	TS_ASSERT_STR_EQ(ksp_trust_model_name(KSP_TRUST_MODEL_PATHS), "paths");
	TS_ASSERT_STR_EQ(ksp_trust_model_name(KSP_TRUST_MODEL_GNUPG), "gnupg");
	TS_ASSERT_STR_EQ(ksp_trust_model_name(KSP_TRUST_MODEL_SEQUOIA), "sequoia");
	TS_ASSERT(ksp_trust_model_name(3) == NULL);
	TS_ASSERT(ksp_trust_model_name(-1) == NULL);
	for (int i = 0; i < 3; i++)
		TS_ASSERT_INT_EQ(ksp_trust_model_from_name(ksp_trust_model_name(i)), i);
	TS_ASSERT_INT_EQ(ksp_trust_model_from_name("pgp"), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_trust_model_from_name(NULL), -EINVAL);
	return 0;
}
DEFINE_TEST(test_names, "every model has a name, and the name its model");

static int test_policy_file(void)
{
	char dir[128], path[256], ot[256], text[512];
	struct ksp_ctx *ctx = ts_setup(dir, sizeof(dir), "model");
	struct ksp_trust_policy *p = NULL, *c;
	struct ksp_trust_rule rule;

	TS_ASSERT(ctx != NULL);
	TS_ASSERT(write_file(dir, "ot.txt", "# ownertrust\n0123456789ABCDEF0123456789ABCDEF01234567:6:\n", ot,
			     sizeof(ot)) == 0);
	snprintf(text, sizeof(text),
		 "model = gnupg\ncore = %s\nownertrust = ot.txt\nmarginals_needed = 2\nmax_cert_depth = 3\n"
		 "partial_core = %s:60\n",
		 A, A);
	TS_ASSERT(write_file(dir, "p", text, path, sizeof(path)) == 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_new(ctx, &p), 0);
	/* the default SHA-1 rule is gpg 2.2's */
	ksp_trust_policy_get_rule(p, &rule);
	TS_ASSERT_INT_EQ(rule.sha1, KSP_SHA1_BEFORE_2019);
	TS_ASSERT_INT_EQ(ksp_trust_policy_check_whatif(p, "x"), 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_load(p, path), 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_model(p), KSP_TRUST_MODEL_GNUPG);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "ownertrust"), 1);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "marginals_needed"), 2);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "completes_needed"), 1); /* gpg's default */
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "max_cert_depth"), 3);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "partial_core"), 1);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(p, "max_depth"), -ENOENT);
	/* health and publish are defined on the paths model */
	TS_ASSERT_INT_EQ(ksp_trust_policy_check_whatif(p, "the report"), -EOPNOTSUPP);
	TS_ASSERT(strstr(ksp_get_error(ctx), "names the gnupg model, and the report is defined on the paths model") != NULL);
	/* a copy keeps every model's settings, on its own */
	c = ksp_trust_policy_copy(p);
	TS_ASSERT(c != NULL);
	p = ksp_trust_policy_free(p);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(c, "marginals_needed"), 2);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(c, "ownertrust"), 1);
	TS_ASSERT_INT_EQ(ksp_trust_policy_set_option(c, "completes_needed", "4"), 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_get_option(c, "completes_needed"), 4);
	ksp_trust_policy_free(c);
	ts_teardown(ctx, dir);
	return 0;
}
DEFINE_TEST(test_policy_file, "a policy file names the model and carries the models' own settings");

static int test_bad_settings(void)
{
	char dir[128], path[256];
	struct ksp_ctx *ctx = ts_setup(dir, sizeof(dir), "model");
	struct ksp_trust_policy *p = NULL;
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "model = pgp\n", "p:1: model is paths, gnupg or sequoia, not 'pgp'" },
		{ "\nmarginals_needed = 1\n", "p:2: marginals_needed takes a number from 2 to 255" },
		{ "min_cert_level = 4\n", "p:1: min_cert_level takes a number from 1 to 3" },
		{ "ownertrust = missing.txt\n", "missing.txt: cannot read the ownertrust" },
		{ "partial_core = 0123:60\n", "p:1: partial_core takes FPR:AMOUNT" },
		{ "partial_core = 0123456789ABCDEF0123456789ABCDEF01234567:121\n", "partial_core takes FPR:AMOUNT" },
		{ "colour = blue\n", "unknown key 'colour' (core," },
	};

	TS_ASSERT(ctx != NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TS_ASSERT(write_file(dir, "p", bad[i].text, path, sizeof(path)) == 0);
		TS_ASSERT_INT_EQ(ksp_trust_policy_new(ctx, &p), 0);
		TS_ASSERT(ksp_trust_policy_load(p, path) < 0);
		if (strstr(ksp_get_error(ctx), bad[i].msg) == NULL) {
			fprintf(stderr, "%s: got '%s', want '%s'\n", bad[i].text, ksp_get_error(ctx), bad[i].msg);
			return -1;
		}
		p = ksp_trust_policy_free(p);
	}
	TS_ASSERT_INT_EQ(ksp_trust_policy_new(ctx, &p), 0);
	TS_ASSERT_INT_EQ(ksp_trust_policy_set_option(p, "colour", "blue"), -ENOENT);
	TS_ASSERT_INT_EQ(ksp_trust_policy_set_option(p, "max_cert_depth", "0"), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_trust_policy_set_model(p, 3), -EINVAL);
	TS_ASSERT_INT_EQ(ksp_trust_policy_set_model(p, KSP_TRUST_MODEL_GNUPG), 0);
	ksp_trust_policy_free(p);
	ts_teardown(ctx, dir);
	return 0;
}
DEFINE_TEST(test_bad_settings, "a bad model or model setting is refused, naming FILE:LINE");
