// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/party.h"
#include "shared/util.h"

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct ksp_participant_iter *it = NULL;
	struct ksp_participant *p;
	static const struct option opts[] = { {} };
	int c, r, n = 0, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1)
		return cli_usage_error(cli, &ksp_cmd_party_list, "party list", "bad option");
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_list, "party list", "unexpected argument '%s'", argv[optind]);
	r = cli_open_party(cli, false, &store, &party);
	if (r)
		return r;
	r = ksp_party_iter_participants(party, &it);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot list participants", cli->db_path);
		goto out;
	}
	if (cli->json) {
		const char *s;
		printf("{\"format_version\":1,\"party\":{\"name\":");
		s = ksp_party_get_name(party);
		cli_json_str(stdout, s, strlen(s));
		printf(",\"date\":\"%s\",\"location\":", ksp_party_get_date(party));
		s = ksp_party_get_location(party);
		if (s)
			cli_json_str(stdout, s, strlen(s));
		else
			printf("null");
		printf(",\"closed\":%s,\"list_version\":%d},\"participants\":[",
		       ksp_party_is_closed(party) ? "true" : "false", ksp_party_get_list_version(party));
	} else {
		char *name = cli_escape(ksp_party_get_name(party), strlen(ksp_party_get_name(party)), KSP_ESCAPE_TERMINAL);
		printf("%s, %s: list %s", name ? name : "?", ksp_party_get_date(party),
		       ksp_party_is_closed(party) ? "closed" : "open");
		if (ksp_party_get_list_version(party) > 0)
			printf(" (last frozen version %d)", ksp_party_get_list_version(party));
		printf("\n");
		free(name);
	}
	while ((r = ksp_participant_iter_next(it, &p)) > 0) {
		char created[16], expires[16] = "never", groups[96];
		format_date(ksp_participant_get_created(p), created, sizeof(created));
		if (ksp_participant_get_expires(p))
			format_date(ksp_participant_get_expires(p), expires, sizeof(expires));
		if (cli->json) {
			printf("%s{\"number\":%d,\"fingerprint\":\"%s\",\"version\":%d,\"algo\":\"%s\","
			       "\"created\":\"%s\",\"expires\":%s%s%s,\"warnings\":[",
			       n ? "," : "", ksp_participant_get_number(p), ksp_participant_get_fingerprint(p),
			       ksp_participant_get_version(p), ksp_participant_get_algo(p), created,
			       ksp_participant_get_expires(p) ? "\"" : "",
			       ksp_participant_get_expires(p) ? expires : "null",
			       ksp_participant_get_expires(p) ? "\"" : "");
			const char *w = ksp_participant_get_warnings(p);
			if (w && *w) {
				char *copy = strdup(w), *save = NULL;
				bool first = true;
				for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
					printf("%s\"%s\"", first ? "" : ",", t);
					first = false;
				}
				free(copy);
			}
			printf("],\"absent\":%s,\"uids\":[", ksp_party_is_absent(party, ksp_participant_get_fingerprint(p)) > 0 ? "true" : "false");
			for (size_t i = 0; i < ksp_participant_get_uid_count(p); i++) {
				size_t len;
				const char *u = ksp_participant_get_uid(p, i, &len);
				if (i)
					printf(",");
				cli_json_str(stdout, u, len);
			}
			printf("]}");
		} else {
			fpr_groups(ksp_participant_get_fingerprint(p), groups, sizeof(groups));
			printf("\n%3d  %s\n     %s, created %s, expires %s", ksp_participant_get_number(p), groups,
			       ksp_participant_get_algo(p), created, expires);
			if (ksp_participant_get_warnings(p))
				printf("  [%s]", ksp_participant_get_warnings(p));
			if (ksp_party_is_absent(party, ksp_participant_get_fingerprint(p)) > 0)
				printf("  ABSENT (not at the party)");
			printf("\n");
			for (size_t i = 0; i < ksp_participant_get_uid_count(p); i++) {
				size_t len;
				const char *u = ksp_participant_get_uid(p, i, &len);
				char *e = cli_escape(u, len, KSP_ESCAPE_TERMINAL);
				printf("     uid  %s\n", e ? e : "?");
				free(e);
			}
		}
		n++;
	}
	if (cli->json)
		printf("]}\n");
	else
		printf("\n%d participant(s).\n", n);
	if (r < 0)
		status = cli_fail(cli, r, "%s: cannot list participants", cli->db_path);
out:
	ksp_participant_iter_free(it);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_list = {
	.name = "list",
	.run = run,
	.usage = "[--json]",
	.help = "show the participants and their keys",
	.group = KSP_GROUP_ORGANIZER,
};
