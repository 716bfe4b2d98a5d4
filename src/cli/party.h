/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include "cli/ksp.h"

extern const struct ksp_cmd ksp_cmd_party_init;
extern const struct ksp_cmd ksp_cmd_party_add;
extern const struct ksp_cmd ksp_cmd_party_remove;
extern const struct ksp_cmd ksp_cmd_party_list;
extern const struct ksp_cmd ksp_cmd_party_close;
extern const struct ksp_cmd ksp_cmd_party_reopen;
extern const struct ksp_cmd ksp_cmd_party_digest;
extern const struct ksp_cmd ksp_cmd_party_verify_list;
extern const struct ksp_cmd ksp_cmd_party_join;
extern const struct ksp_cmd ksp_cmd_party_send;
extern const struct ksp_cmd ksp_cmd_party_remind;
extern const struct ksp_cmd ksp_cmd_party_sign;
extern const struct ksp_cmd ksp_cmd_party_status;
extern const struct ksp_cmd ksp_cmd_party_export;
extern const struct ksp_cmd ksp_cmd_party_sheet, ksp_cmd_party_slips;
extern const struct ksp_cmd ksp_cmd_party_absent, ksp_cmd_party_present;

/* 'party sheet --format checklist' / '--version N' (cmd-party-day.c):
 * the checklist (@checklist; marked for @for_spec with @mark) or the
 * announced text of list @version (0: the newest), to @out or stdout. */
int cli_party_sheet_text(struct ksp_cli *cli, bool checklist, int version, const char *for_spec, bool mark,
			 const char *out);

/* Open the store and its party; returns 0 or an exit status (message printed). */
int cli_open_party(struct ksp_cli *cli, bool rw, struct ksp_store **store, struct ksp_party **party);
/* Print the digests of a list version, human or JSON. */
int cli_print_digests(struct ksp_cli *cli, struct ksp_party *party, int version);

/* What 'party send' and 'party sign --sendmail' print per message handed
 * to the mailer (human lines, or JSON objects when @json). */
struct cli_send_report {
	struct ksp_cli *cli;
	bool json;
	int sent, failed, n;
};
void cli_send_report_cb(void *data, const struct ksp_delivery *d);
/* @path (absolute, as the delivery ledger holds it) relative to the working
 * directory when it is under it, for people; else @path itself. */
const char *cli_relative_path(const char *path);
