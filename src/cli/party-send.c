// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party send: hand what 'party sign' wrote and did not deliver yet
 * (or whose mailer failed) to the mailer, as the delivery ledger says. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/party.h"
#include "shared/util.h"

#define DEFAULT_MAILER "/usr/sbin/sendmail -oi -t"

const char *cli_relative_path(const char *path)
{
	char cwd[4096];
	size_t n;

	if (path == NULL || path[0] != '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		return path;
	n = strlen(cwd);
	if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

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
		const char *rel = cli_relative_path(file);
		char *ef = cli_escape(rel, strlen(rel), KSP_ESCAPE_TERMINAL);
		if (st == KSP_DELIVERY_SENT) {
			printf("sent %s (%s)\n", ef ? ef : "?", ksp_delivery_get_message(d));
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
	const char *rel = cli_relative_path(file);
	char *eu = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL), *ef = cli_escape(rel, strlen(rel), KSP_ESCAPE_TERMINAL);
	printf("%-8s #%-3d %s\n         %s\n", ksp_delivery_state_name(ksp_delivery_get_state(d)),
	       ksp_delivery_get_number(d), eu ? eu : "?", ef ? ef : "?");
	if (ksp_delivery_get_state(d) != KSP_DELIVERY_WRITTEN)
		printf("         %s (%d attempt(s))\n", ksp_delivery_get_message(d), ksp_delivery_get_attempts(d));
	free(eu);
	free(ef);
	sr->n++;
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_send = {
	.name = "send",
	.run = run,
	.usage = "[--sendmail CMD | --smtp URL [--smtp-password-file FILE]] [--as FPR] [--again N|FPR|FILE]... [--list]",
	.help = "send the signed messages not sent yet, or whose mailer failed",
	.details = "Hands each message 'party sign' wrote that the delivery ledger records as\n"
		   "not sent yet, or whose last attempt failed, to the mailer (its standard\n"
		   "input) or an SMTP server, and records the outcome: \"handed to the mailer\"\n"
		   "when the mailer exited 0 (a local mailer may still bounce it later), or\n"
		   "\"accepted by HOST\" when the SMTP server took it; a recipient the server\n"
		   "refuses leaves the message not sent, with the server's reply. Signs\n"
		   "nothing. Runs from any directory (the ledger names the messages by\n"
		   "absolute path). A 'party send' interrupted while a message is handed over\n"
		   "sends that one message again on its next run.\n\n"
		   "Options:\n"
		   "  --sendmail CMD  the mailer (default: " DEFAULT_MAILER ")\n"
		   "  --smtp URL      an SMTP server instead: smtp://[USER@]HOST[:PORT] (STARTTLS,\n"
		   "                  required unless HOST is this machine) or smtps://HOST[:PORT];\n"
		   "                  the envelope is the message's From:, To: and Bcc:\n"
		   "  --smtp-password-file FILE  the password for USER (its first line); else\n"
		   "                  the environment's KSP_SMTP_PASSWORD. Never on the command line\n"
		   "  --again N|FPR|FILE  send this message again, whatever the ledger says (a\n"
		   "                  number on the list, a fingerprint, a message file; repeatable);\n"
		   "                  only the messages named are sent\n"
		   "  --as FPR        only the messages signed with this key\n"
		   "  --list          send nothing: list every message and its state\n"
		   "Exit status: 0 every message handed over or accepted; 1 something still\n"
		   "unsent or refused (with --again: a message named); 2 an error.\n",
	.group = KSP_GROUP_PARTICIPANT,
};

/* The SMTP password: the first line of @file, or KSP_SMTP_PASSWORD. */
static int smtp_password(struct ksp_cli *cli, const char *file, char **ret)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int r;

	*ret = NULL;
	if (file == NULL) {
		const char *env = getenv("KSP_SMTP_PASSWORD");
		if (env && env[0] && (*ret = strdup(env)) == NULL)
			return -ENOMEM;
		return 0;
	}
	r = read_file_all(file, 4096, &data, &len);
	if (r < 0) {
		cli_err(cli, "%s: cannot read the SMTP password: %s; nothing was sent", file,
			r == -EFBIG ? "larger than 4 KiB, not a password file" : strerror(-r));
		return r;
	}
	size_t n = strcspn((const char *)data, "\r\n");
	*ret = strndup((const char *)data, n < len ? n : len);
	explicit_bzero(data, len);
	free(data);
	return *ret ? 0 : -ENOMEM;
}

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "sendmail", required_argument, NULL, 's' },
		{ "smtp", required_argument, NULL, 'S' },
		{ "smtp-password-file", required_argument, NULL, 'P' },
		{ "again", required_argument, NULL, 'g' },
		{ "as", required_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{},
	};
	const char *mailer = NULL, *as = NULL, *smtp = NULL, *pwfile = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct ksp_send_opts *so = NULL;
	struct cli_send_report sr = { .cli = cli, .json = cli->json };
	char *password = NULL;
	bool list = false, again = false;
	int c, r, status;

	r = ksp_send_opts_new(cli->ctx, &so);
	if (r < 0)
		return cli_fail(cli, r, "party send");
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 's': mailer = optarg; break;
		case 'S': smtp = optarg; break;
		case 'P': pwfile = optarg; break;
		case 'a': as = optarg; break;
		case 'l': list = true; break;
		case 'g':
			again = true;
			if (ksp_send_opts_add_again(so, optarg) < 0) {
				status = cli_usage_error(cli, &ksp_cmd_party_send, "party send", "--again: give a number, a fingerprint or a message file");
				goto out;
			}
			break;
		default:
			status = cli_usage_error(cli, &ksp_cmd_party_send, "party send", "bad option");
			goto out;
		}
	}
	if (optind < argc) {
		status = cli_usage_error(cli, &ksp_cmd_party_send, "party send", "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (mailer && smtp) {
		status = cli_usage_error(cli, &ksp_cmd_party_send, "party send", "give --sendmail or --smtp, not both");
		goto out;
	}
	if (pwfile && !smtp) {
		status = cli_usage_error(cli, &ksp_cmd_party_send, "party send", "--smtp-password-file goes with --smtp URL");
		goto out;
	}
	if (smtp) {
		r = smtp_password(cli, pwfile, &password);
		if (r < 0) {
			status = r == -ENOMEM ? cli_fail(cli, r, "party send") : KSP_EXIT_ERROR;
			goto out;
		}
		r = ksp_send_opts_set_smtp(so, smtp, password);
	} else {
		r = ksp_send_opts_set_mailer(so, mailer ? mailer : DEFAULT_MAILER);
	}
	if (r < 0) {
		status = cli_fail(cli, r, "party send");
		goto out;
	}
	r = cli_open_party(cli, !list, &store, &party);
	if (r) {
		status = r;
		goto out;
	}
	if (cli->json)
		printf("{\"format_version\":1,\"deliveries\":[");
	fflush(stdout);
	r = ksp_party_send_opts(party, as, so, list ? KSP_SEND_DRY_RUN | KSP_SEND_ALL_RESULTS : 0,
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
			fprintf(stderr, "%d message(s) not sent yet.\n", r);
		else
			fprintf(stderr, "%d message(s) sent, %d failed, %d not sent yet.\n", sr.sent, sr.failed, r);
	}
	/* --again: the messages named; else anything still unsent */
	status = sr.failed || (r > 0 && !again) ? KSP_EXIT_NEGATIVE : KSP_EXIT_OK;
out:
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
	ksp_send_opts_free(so);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
