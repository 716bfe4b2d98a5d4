// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party send: hand what 'party sign' wrote and did not deliver yet
 * (or whose mailer failed) to the mailer, as the delivery ledger says. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/party.h"
#include "shared/util.h"

#define DEFAULT_MAILER "/usr/sbin/sendmail -oi -t"

void cli_send_report_cb(void *data, const struct ksp_delivery *d)
{
	struct cli_send_report *sr = data;
	int st = ksp_delivery_get_state(d);
	size_t ulen = 0;
	const char *uid = ksp_delivery_get_uid(d, &ulen);
	const char *file = ksp_delivery_get_file(d);

	if (st == KSP_DELIVERY_SENT)
		sr->sent++;
	else if (st == KSP_DELIVERY_FAILED)
		sr->failed++;
	if (sr->json) {
		printf("%s{\"number\":%d,\"fingerprint\":\"%s\",\"signer\":\"%s\",\"uid\":", sr->n ? "," : "",
		       ksp_delivery_get_number(d), ksp_delivery_get_fingerprint(d), ksp_delivery_get_signer(d));
		cli_json_str(stdout, uid, ulen);
		printf(",\"file\":");
		cli_json_str(stdout, file, strlen(file));
		printf(",\"state\":\"%s\",\"attempts\":%d,\"mailer_status\":%d,\"message\":",
		       ksp_delivery_state_name(st), ksp_delivery_get_attempts(d), ksp_delivery_get_mailer_status(d));
		cli_json_str(stdout, ksp_delivery_get_message(d), strlen(ksp_delivery_get_message(d)));
		printf("}");
	} else {
		char *ef = cli_escape(file, strlen(file), KSP_ESCAPE_TERMINAL);
		if (st == KSP_DELIVERY_SENT) {
			printf("sent %s\n", ef ? ef : "?");
		} else {
			printf("NOT SENT %s\n", ef ? ef : "?");
			cli_err(sr->cli, "%s: %s; not sent, run 'ksp party send' to send it again", ef ? ef : "?",
				ksp_delivery_get_message(d));
		}
		free(ef);
	}
	sr->n++;
	fflush(stdout);
}

/* --list: one line per message of the ledger */
static void list_cb(void *data, const struct ksp_delivery *d)
{
	struct cli_send_report *sr = data;
	size_t ulen = 0;
	const char *uid = ksp_delivery_get_uid(d, &ulen);
	const char *file = ksp_delivery_get_file(d);

	if (sr->json) {
		cli_send_report_cb(data, d);
		return;
	}
	char *eu = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL), *ef = cli_escape(file, strlen(file), KSP_ESCAPE_TERMINAL);
	printf("%-8s #%-3d %s\n         %s\n", ksp_delivery_state_name(ksp_delivery_get_state(d)),
	       ksp_delivery_get_number(d), eu ? eu : "?", ef ? ef : "?");
	if (ksp_delivery_get_state(d) == KSP_DELIVERY_FAILED)
		printf("         %s (%d attempt(s))\n", ksp_delivery_get_message(d), ksp_delivery_get_attempts(d));
	free(eu);
	free(ef);
	sr->n++;
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_send = {
	.name = "send",
	.run = run,
	.usage = "[--sendmail CMD] [--as FPR] [--list]",
	.help = "send the signed messages not sent yet, or whose mailer failed",
	.details = "Hands each message 'party sign' wrote that the delivery ledger records as\n"
		   "not sent yet, or whose mailer failed, to the mailer (its standard input),\n"
		   "and records the outcome with the mailer's exit status. Signs nothing: a\n"
		   "certification is made once, its message sent until a mailer takes it.\n"
		   "Run it where 'party sign' ran (the outbox paths are as it named them).\n\n"
		   "Options:\n"
		   "  --sendmail CMD  the mailer (default: " DEFAULT_MAILER ")\n"
		   "  --as FPR        only the messages signed with this key\n"
		   "  --list          send nothing: list every message and its state\n"
		   "Exit status: 0 everything delivered; 1 something still unsent or failed;\n"
		   "2 an error.\n",
	.group = KSP_GROUP_PARTICIPANT,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "sendmail", required_argument, NULL, 's' },
		{ "as", required_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{},
	};
	const char *mailer = DEFAULT_MAILER, *as = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct cli_send_report sr = { .cli = cli, .json = cli->json };
	bool list = false;
	int c, r, status;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 's': mailer = optarg; break;
		case 'a': as = optarg; break;
		case 'l': list = true; break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_send, "party send", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_send, "party send", "unexpected argument '%s'", argv[optind]);
	r = cli_open_party(cli, !list, &store, &party);
	if (r)
		return r;
	if (cli->json)
		printf("{\"format_version\":1,\"deliveries\":[");
	fflush(stdout);
	r = ksp_party_send(party, as, mailer, list ? KSP_SEND_DRY_RUN | KSP_SEND_ALL_RESULTS : 0,
			   list ? list_cb : cli_send_report_cb, &sr);
	if (cli->json)
		printf("],\"sent\":%d,\"failed\":%d,\"pending\":%d}\n", sr.sent, sr.failed, r < 0 ? 0 : r);
	fflush(stdout);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot send", cli->db_path);
		goto out;
	}
	if (!cli->json && !cli->quiet) {
		if (list)
			fprintf(stderr, "%d message(s) not delivered yet.\n", r);
		else
			fprintf(stderr, "%d message(s) sent, %d failed, %d not delivered yet.\n", sr.sent, sr.failed, r);
	}
	status = r > 0 ? KSP_EXIT_NEGATIVE : KSP_EXIT_OK;
out:
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
