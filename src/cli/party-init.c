// SPDX-License-Identifier: LGPL-2.1-or-later
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/json-out.h"
#include "cli/party.h"

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_init = {
	.name = "init",
	.run = run,
	.usage = "--name NAME --date YYYY-MM-DD [--location TEXT] [--organizer FPR]",
	.help = "create the party in a new store",
	.details = "Options:\n"
		   "  --name NAME        the party's name\n"
		   "  --date YYYY-MM-DD  the day of the party\n"
		   "  --location TEXT    where it takes place\n"
		   "  --organizer FPR    the organizer's full fingerprint\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "date", required_argument, NULL, 't' },
		{ "location", required_argument, NULL, 'l' },
		{ "organizer", required_argument, NULL, 'o' },
		{},
	};
	const char *name = NULL, *date = NULL, *loc = NULL, *org = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	int c, r;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'n': name = optarg; break;
		case 't': date = optarg; break;
		case 'l': loc = optarg; break;
		case 'o': org = optarg; break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_init, "party init", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_init, "party init", "unexpected argument '%s'", argv[optind]);
	if (name == NULL || date == NULL)
		return cli_usage_error(cli, &ksp_cmd_party_init, "party init", "--name and --date are required");
	/* what is printed, escaped before anything is stored */
	char *e_path = NULL;
	json_t *report = NULL;
	if (cli->json)
		report = json_pack("{s:i,s:o,s:o}", "format_version", 1, "store", cj_strz(cli->db_path), "name",
				   cj_strz(name));
	else
		e_path = cli_escape(cli->db_path, strlen(cli->db_path), KSP_ESCAPE_TERMINAL);
	if (cli->json ? cj_check(report) < 0 : e_path == NULL) {
		free(e_path);
		json_decref(report);
		return cli_output_fail(cli, "%s", "nothing was created, run the command again");
	}
	r = cli_open_store(cli, KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store);
	if (r) {
		free(e_path);
		json_decref(report);
		return r;
	}
	r = ksp_party_create(store, name, date, loc, org, &party);
	if (r < 0) {
		r = cli_fail(cli, r, "%s: cannot create the party", cli->db_path);
	} else {
		r = KSP_EXIT_OK;
		if (report) {
			cj_set(report, "date", cj_strz(ksp_party_get_date(party)));
			if (cj_print(json_incref(report)) < 0)
				r = cli_fail(cli, -ENOMEM, "%s: created, but cannot write the JSON report", cli->db_path);
		} else if (!cli->quiet)
			printf("Created party on %s in %s.\nNext: ksp party add KEYFILE...\n",
			       ksp_party_get_date(party), e_path);
	}
	free(e_path);
	json_decref(report);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return r;
}
