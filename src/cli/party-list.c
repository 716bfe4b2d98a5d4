// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/json-out.h"
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
	json_t *report = NULL, *list = NULL;

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
		report = json_pack("{s:i,s:{s:o,s:s,s:o,s:b,s:i}}", "format_version", 1, "party", "name",
				   cj_strz(ksp_party_get_name(party)), "date", ksp_party_get_date(party), "location",
				   cj_strz(ksp_party_get_location(party)), "closed", ksp_party_is_closed(party),
				   "list_version", ksp_party_get_list_version(party));
		list = json_array();
		if (report == NULL || list == NULL) {
			status = cli_fail(cli, -ENOMEM, "cannot make the JSON report");
			goto out;
		}
		cj_set(report, "participants", json_incref(list));
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
		if (list) {
			const char *w = ksp_participant_get_warnings(p);
			json_t *warn = json_array(), *uids = json_array();

			if (w && *w) {
				char *copy = strdup(w), *save = NULL;
				if (copy == NULL)
					cj_push(warn, NULL);
				for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
					cj_push(warn, cj_strz(t));
				free(copy);
			}
			for (size_t i = 0; uids && i < ksp_participant_get_uid_count(p); i++) {
				size_t len;
				const char *u = ksp_participant_get_uid(p, i, &len);
				cj_push(uids, cj_str(u, len));
			}
			cj_push(list, json_pack("{s:i,s:s,s:i,s:s,s:s,s:o,s:o,s:b,s:o}", "number",
						ksp_participant_get_number(p), "fingerprint",
						ksp_participant_get_fingerprint(p), "version", ksp_participant_get_version(p),
						"algo", ksp_participant_get_algo(p), "created", created, "expires",
						ksp_participant_get_expires(p) ? cj_strz(expires) : json_null(), "warnings",
						warn, "absent",
						ksp_party_is_absent(party, ksp_participant_get_fingerprint(p)) > 0, "uids", uids));
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
	if (report) {
		if (cj_print(json_incref(report)) < 0)
			status = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
	} else {
		printf("\n%d participant(s).\n", n);
	}
	if (r < 0)
		status = cli_fail(cli, r, "%s: cannot list participants", cli->db_path);
out:
	json_decref(list);
	json_decref(report);
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
