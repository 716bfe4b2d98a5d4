// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <string.h>
#include "cli/json-out.h"
#include "cli/party.h"

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	static const struct option opts[] = { {} };
	int c, r, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1)
		return cli_usage_error(cli, &ksp_cmd_party_remove, "party remove", "bad option");
	argc -= optind - 1; /* argv[1..] the participants, as before */
	argv += optind - 1;
	if (argc < 2)
		return cli_usage_error(cli, &ksp_cmd_party_remove, "party remove", "give a participant number or fingerprint");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	r = ksp_store_begin(store);
	for (int i = 1; i < argc && r >= 0; i++)
		r = ksp_party_remove(party, argv[i]);
	if (r >= 0)
		r = ksp_store_commit(store);
	else
		ksp_store_rollback(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot remove", cli->db_path);
	} else if (cli->json) {
		json_t *removed = json_array();

		for (int i = 1; removed && i < argc; i++)
			cj_push(removed, cj_strz(argv[i]));
		if (cj_print(json_pack("{s:i,s:o,s:i}", "format_version", 1, "removed", removed, "count", argc - 1)) < 0)
			status = cli_fail(cli, -ENOMEM, "%s: removed, but cannot write the JSON report", cli->db_path);
	} else if (!cli->quiet) {
		fprintf(stderr, "%d participant(s) removed.\n", argc - 1);
	}
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_remove = {
	.name = "remove",
	.run = run,
	.usage = "[--json] FPR|N...",
	.help = "take participants off the open list",
	.group = KSP_GROUP_ORGANIZER,
};
