// SPDX-License-Identifier: LGPL-2.1-or-later
/* The party as the repair of the web of trust: party sheet --plan, and the
 * trust line of party status (both by ksp health's library part). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/party-plan.h"
#include "shared/util.h"

#define PLAN_PER_PARTICIPANT 3

int cli_party_plan(struct ksp_cli *cli, struct ksp_store *store, const struct cli_trust_opts *to)
{
	struct ksp_health *h = NULL;
	size_t np, nk;
	int r;

	r = ksp_health_new(store, to->policy, to->at, KSP_HEALTH_90D, KSP_HEALTH_PARTY | KSP_HEALTH_NO_SPOF |
					       KSP_HEALTH_NO_REPAIR, &h);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot plan the party's checks", cli->db_path);
	np = ksp_health_get_pair_count(h);
	nk = ksp_health_get_below_count(h, KSP_HEALTH_NOW);
	printf("Most valuable checks: pairs of participants who check and certify each other,\n"
	       "by the keys below K now (%zu) that it brings to K paths from the core\n", nk);
	/* each participant, in the order the pairs name them first */
	for (size_t i = 0; i < np; i++)
		for (int side = 0; side < 2; side++) {
			const char *a, *b, *me;
			unsigned n;
			size_t shown = 0;
			bool seen = false;
			ksp_health_get_pair(h, i, &a, &b, &n);
			me = side ? b : a;
			/* printed already? (it appears in an earlier pair) */
			for (size_t j = 0; j < i && !seen; j++) {
				const char *x, *y;
				ksp_health_get_pair(h, j, &x, &y, NULL);
				seen = !strcmp(x, me) || !strcmp(y, me);
			}
			if (seen || (side && !strcmp(a, b)))
				continue;
			if (side == 1 && !strcmp(me, a))
				continue;
			char *uid = NULL, *e = NULL;
			size_t len = 0;
			if (ksp_store_get_key_uid(store, me, &uid, &len) == 0)
				e = cli_escape(uid, len, KSP_ESCAPE_TERMINAL);
			printf("\n%s  %s\n", me, e ? e : "");
			free(e);
			free(uid);
			for (size_t j = 0; j < np && shown < PLAN_PER_PARTICIPANT; j++) {
				const char *x, *y;
				unsigned m;
				ksp_health_get_pair(h, j, &x, &y, &m);
				if (m == 0 || (strcmp(x, me) && strcmp(y, me)))
					continue;
				printf("  check %s: %u key%s to K\n", strcmp(x, me) ? x : y, m, m == 1 ? "" : "s");
				shown++;
			}
			if (shown == 0)
				printf("  no check brings a key to K\n");
		}
	ksp_health_free(h);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_output_fail(cli, "cannot write the plan");
	return KSP_EXIT_OK;
}

int cli_party_health(struct ksp_cli *cli, struct ksp_store *store, const struct cli_trust_opts *to,
		     const char *party_date)
{
	struct ksp_health *h = NULL;
	int64_t t;
	size_t reached = 0, thanks = 0;
	int r;

	if (party_date == NULL || parse_date(party_date, &t) < 0) {
		cli_err(cli, "%s: the party has no date to compare with", cli->db_path);
		return KSP_EXIT_ERROR;
	}
	r = ksp_health_new(store, to->policy, to->at, KSP_HEALTH_90D, KSP_HEALTH_NO_SPOF | KSP_HEALTH_NO_REPAIR, &h);
	if (r == 0)
		r = ksp_health_party_gain(h, t, &reached, &thanks);
	if (r < 0) {
		ksp_health_free(h);
		return cli_fail(cli, r, "%s: cannot compute the trust since the party", cli->db_path);
	}
	printf("Trust: %zu key%s reached K = %d path%s from the core since %s, %zu of them through the party's\n"
	       "certifications; %zu key%s below K now\n",
	       reached, reached == 1 ? "" : "s", ksp_trust_policy_get_min_paths(to->policy),
	       ksp_trust_policy_get_min_paths(to->policy) == 1 ? "" : "s", party_date, thanks,
	       ksp_health_get_below_count(h, KSP_HEALTH_NOW), ksp_health_get_below_count(h, KSP_HEALTH_NOW) == 1 ? "" : "s");
	ksp_health_free(h);
	return KSP_EXIT_OK;
}
