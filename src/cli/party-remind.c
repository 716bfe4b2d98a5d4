// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party remind: one encrypted message per participant who still owes
 * certifications, listing whom they have not certified. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/party.h"
#include "shared/util.h"

struct remind_out {
	struct ksp_cli *cli;
	int n, written, sent, failed, skipped;
};

static const char *status_name(int s)
{
	switch (s) {
	case KSP_REMIND_WRITTEN: return "written";
	case KSP_REMIND_SENT: return "sent";
	case KSP_REMIND_FAILED: return "failed";
	case KSP_REMIND_NO_ADDRESS: return "no-address";
	case KSP_REMIND_NO_ENCRYPTION: return "no-encryption";
	default: return "?";
	}
}

static void on_reminder(void *data, const struct ksp_reminder *rem)
{
	struct remind_out *o = data;
	int st = ksp_reminder_get_status(rem);
	const char *file = ksp_reminder_get_file(rem), *email = ksp_reminder_get_email(rem);
	const char *msg = ksp_reminder_get_message(rem);

	switch (st) {
	case KSP_REMIND_WRITTEN: o->written++; break;
	case KSP_REMIND_SENT: o->sent++; break;
	case KSP_REMIND_FAILED: o->failed++; break;
	default: o->skipped++; break;
	}
	if (o->cli->json) {
		printf("%s{\"number\":%d,\"fingerprint\":\"%s\",\"missing\":%zu,\"status\":\"%s\",\"email\":",
		       o->n ? "," : "", ksp_reminder_get_number(rem), ksp_reminder_get_fingerprint(rem),
		       ksp_reminder_get_missing(rem), status_name(st));
		if (email)
			cli_json_str(stdout, email, strlen(email));
		else
			printf("null");
		printf(",\"file\":");
		if (file)
			cli_json_str(stdout, file, strlen(file));
		else
			printf("null");
		printf(",\"message\":");
		cli_json_str(stdout, msg, strlen(msg));
		printf("}");
	} else {
		char *ef = file ? cli_escape(file, strlen(file), KSP_ESCAPE_TERMINAL) : NULL;
		printf("#%-3d %s  %zu missing: %s%s%s\n", ksp_reminder_get_number(rem), ksp_reminder_get_fingerprint(rem),
		       ksp_reminder_get_missing(rem), msg, ef ? "\n     " : "", ef ? ef : "");
		if (st == KSP_REMIND_FAILED)
			cli_err(o->cli, "%s: %s; run 'ksp party remind' again to send it", ef ? ef : "?", msg);
		free(ef);
	}
	o->n++;
	fflush(stdout);
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_remind = {
	.name = "remind",
	.run = run,
	.usage = "[--as FPR] [--template T] [--outbox DIR] [--sendmail CMD]",
	.help = "remind each participant of the certifications they still owe",
	.details = "For each participant who has not certified every user ID of the others\n"
		   "(those 'party status' counts: keys without an encryption subkey are\n"
		   "left out), one message to the address of their first user ID, listing\n"
		   "the keys (numbers, fingerprints, user IDs), encrypted to their key and\n"
		   "written to the outbox as remind-FPR.eml; with --sendmail, handed to the\n"
		   "mailer. Participants without an address or an encryption subkey are\n"
		   "reported, never written to unencrypted. Import what came back first\n"
		   "('ksp import'), so that nobody is reminded of what they did.\n\n"
		   "Options:\n"
		   "  --as FPR         From: your address (your key on the list)\n"
		   "  --template T     en, de (built in) or your own FILE (ksp-party-sign(1),\n"
		   "                   MAIL TEMPLATES)\n"
		   "  --print-template L  print the built-in reminder L (en, de)\n"
		   "  --outbox DIR     where the messages go (default ./ksp-reminders)\n"
		   "  --sendmail CMD   the mailer, e.g. '/usr/sbin/sendmail -oi -t'\n"
		   "Exit status: 0 every reminder written (and sent); 1 the mailer failed on\n"
		   "one; 2 an error.\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "as", required_argument, NULL, 'a' },
		{ "template", required_argument, NULL, 't' },
		{ "print-template", required_argument, NULL, 'P' },
		{ "outbox", required_argument, NULL, 'o' },
		{ "sendmail", required_argument, NULL, 's' },
		{},
	};
	const char *as = NULL, *tmpl = NULL, *outbox = "ksp-reminders", *mailer = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct remind_out o = { .cli = cli };
	int c, r, status;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'a': as = optarg; break;
		case 't': tmpl = optarg; break;
		case 'P': {
			char name[16];
			const char *t;
			snprintf(name, sizeof(name), "remind%s%s", strcmp(optarg, "en") ? "." : "",
				 strcmp(optarg, "en") ? optarg : "");
			t = strlen(optarg) == 2 ? ksp_mail_template_builtin(name) : NULL;
			if (t == NULL)
				return cli_usage_error(cli, &ksp_cmd_party_remind, "party remind", "--print-template takes en or de");
			if (fputs(t, stdout) < 0 || fflush(stdout) != 0)
				return cli_fail(cli, -EIO, "cannot write the template");
			return KSP_EXIT_OK;
		}
		case 'o': outbox = optarg; break;
		case 's': mailer = optarg; break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_remind, "party remind", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_remind, "party remind", "unexpected argument '%s'", argv[optind]);
	r = cli_open_party(cli, false, &store, &party);
	if (r)
		return r;
	if (cli->json)
		printf("{\"format_version\":1,\"reminders\":[");
	fflush(stdout);
	r = ksp_party_remind(party, as, tmpl, outbox, mailer, on_reminder, &o);
	if (cli->json)
		printf("],\"written\":%d,\"sent\":%d,\"failed\":%d,\"not_remindable\":%d}\n", o.written, o.sent, o.failed,
		       o.skipped);
	fflush(stdout);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot remind", cli->db_path);
		goto out;
	}
	if (!cli->json && !cli->quiet)
		fprintf(stderr, "%d reminder(s) written, %d sent, %d failed, %d participant(s) not remindable.\n",
			o.written + o.sent + o.failed, o.sent, o.failed, o.skipped);
	status = r > 0 ? KSP_EXIT_NEGATIVE : KSP_EXIT_OK;
out:
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
