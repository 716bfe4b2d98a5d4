// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cli/ksp.h"
#include "cli/party.h"

static const struct ksp_cmd *const party_cmds[] = {
	&ksp_cmd_party_init,
	&ksp_cmd_party_add,
	&ksp_cmd_party_remove,
	&ksp_cmd_party_list,
	&ksp_cmd_party_close,
	&ksp_cmd_party_reopen,
	&ksp_cmd_party_digest,
	&ksp_cmd_party_verify_list,
	&ksp_cmd_party_sheet,
	&ksp_cmd_party_slips,
	&ksp_cmd_party_absent,
	&ksp_cmd_party_present,
	&ksp_cmd_party_join,
	&ksp_cmd_party_sign,
	&ksp_cmd_party_send,
	&ksp_cmd_party_remind,
	&ksp_cmd_party_status,
	&ksp_cmd_party_export,
	NULL,
};

const struct ksp_cmd ksp_cmd_party = {
	.name = "party",
	.usage = "COMMAND [ARGS]",
	.help = "prepare and run a key-signing party",
	.group = KSP_GROUP_ORGANIZER,
	.subcmds = party_cmds,
};

int cli_open_party(struct ksp_cli *cli, bool rw, struct ksp_store **store, struct ksp_party **party)
{
	int r;

	r = cli_open_store(cli, rw ? KSP_STORE_READ_WRITE : 0, store);
	if (r != 0)
		return r;
	r = ksp_party_open(*store, party);
	if (r < 0) {
		*store = ksp_store_unref(*store);
		return cli_fail(cli, r, "%s: cannot open the party", cli->db_path);
	}
	return 0;
}
