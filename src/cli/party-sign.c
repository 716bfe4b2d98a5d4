// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party sign: certify the keys checked at the party, one user ID at a
 * time, each certification encrypted to its key, into an outbox. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli/party.h"
#include "shared/util.h"

struct sign_out {
	struct ksp_cli *cli;
	char last_fpr[65];
	int last_number;
	int n_results;
	int n_signed, n_already, n_skipped, n_refused;
};

static const char *status_name(int s)
{
	switch (s) {
	case KSP_SIGN_SIGNED: return "signed";
	case KSP_SIGN_ALREADY: return "already";
	case KSP_SIGN_NO_EMAIL: return "no-email";
	case KSP_SIGN_NO_ENCRYPTION: return "no-encryption";
	case KSP_SIGN_REFUSED: return "refused";
	default: return "?";
	}
}

/* Printable ASCII as it is, every other byte (and the backslash) as \xHH:
 * safe on a terminal, and needs no memory. */
static void print_hex_escaped(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

/* A JSON string of the raw bytes; as print_hex_escaped() when there is no
 * memory to escape it properly (other bytes then as \u00XX). */
static void json_bytes(const char *s, size_t len)
{
	char *e = NULL;

	if (ksp_escape(s, len, KSP_ESCAPE_JSON, &e) == 0) {
		printf("\"%s\"", e);
		free(e);
		return;
	}
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			putchar(c);
		else
			printf("\\u%04x", c);
	}
	putchar('"');
}

static void json_str_or_null(const char *s)
{
	if (s)
		json_bytes(s, strlen(s));
	else
		printf("null");
}

static void on_result(void *data, const struct ksp_sign_result *res)
{
	struct sign_out *o = data;
	int st = ksp_sign_result_get_status(res);
	const char *fpr = ksp_sign_result_get_fingerprint(res);
	const char *uid, *msg = ksp_sign_result_get_message(res);
	size_t ulen = 0;

	uid = ksp_sign_result_get_uid(res, &ulen);
	switch (st) {
	case KSP_SIGN_SIGNED: o->n_signed++; break;
	case KSP_SIGN_ALREADY: o->n_already++; break;
	case KSP_SIGN_REFUSED: o->n_refused++; break;
	default: o->n_skipped++; break;
	}
	if (o->cli->json) {
		char when[24] = "";
		printf("%s{\"number\":%d,\"fingerprint\":", o->n_results ? "," : "", ksp_sign_result_get_number(res));
		json_str_or_null(fpr);
		printf(",\"uid\":");
		if (uid)
			json_bytes(uid, ulen);
		else
			printf("null");
		printf(",\"email\":");
		json_str_or_null(ksp_sign_result_get_email(res));
		printf(",\"status\":\"%s\",\"message\":", status_name(st));
		json_str_or_null(msg);
		printf(",\"eml\":");
		json_str_or_null(ksp_sign_result_get_message_file(res));
		printf(",\"asc\":");
		json_str_or_null(ksp_sign_result_get_asc_file(res));
		if (ksp_sign_result_get_time(res))
			format_datetime(ksp_sign_result_get_time(res), when, sizeof(when));
		printf(",\"time\":");
		json_str_or_null(when[0] ? when : NULL);
		printf("}");
		fflush(stdout);
		o->n_results++;
		return;
	}
	o->n_results++;
	if ((fpr && strcmp(fpr, o->last_fpr) != 0) || (!fpr && ksp_sign_result_get_number(res) != o->last_number) ||
	    uid == NULL) {
		char groups[96] = "";
		if (fpr)
			fpr_groups(fpr, groups, sizeof(groups));
		if (ksp_sign_result_get_number(res) > 0)
			printf("#%-3d %s\n", ksp_sign_result_get_number(res), groups);
		else
			printf("     %s\n", groups);
		snprintf(o->last_fpr, sizeof(o->last_fpr), "%s", fpr ? fpr : "");
		o->last_number = ksp_sign_result_get_number(res);
	}
	if (uid == NULL) {
		printf("     %s\n", msg);
		return;
	}
	/* ksp_escape() rather than cli_escape(): this runs inside the signing
	 * transaction, which cannot be taken back for a report line, so an
	 * allocation failure prints the user ID byte by byte instead */
	char *e = NULL;
	printf("     %-8s ", st == KSP_SIGN_NO_EMAIL || st == KSP_SIGN_NO_ENCRYPTION ? "skipped" : status_name(st));
	if (ksp_escape(uid, ulen, KSP_ESCAPE_TERMINAL, &e) == 0)
		fputs(e, stdout);
	else
		print_hex_escaped(uid, ulen);
	putchar('\n');
	free(e);
	if (st == KSP_SIGN_SIGNED || (st == KSP_SIGN_ALREADY && ksp_sign_result_get_message_file(res)))
		printf("              %s%s\n", st == KSP_SIGN_ALREADY ? "in " : "", ksp_sign_result_get_message_file(res));
	if (st != KSP_SIGN_SIGNED)
		printf("              %s\n", msg);
	fflush(stdout); /* before gpg is forked again */
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_sign = {
	.name = "sign",
	.run = run,
	.usage = "--as FPR [OPTIONS] (--all-checked | N|FPR...)\n"
		 "       --as FPR --resign-weak [OPTIONS] [FPR...]",
	.help = "certify checked keys, one user ID at a time, encrypted to each",
	.details = "Each user ID of each key named (a number on the frozen list or a full\n"
		   "fingerprint) is certified on its own with your key (--as, the secret key\n"
		   "in your GnuPG home: GNUPGHOME or --gnupg-home), after re-checking the key\n"
		   "against the frozen list. For each, a copy of the key with only that user\n"
		   "ID and the new certification is encrypted to the key and left in the\n"
		   "outbox as FPR-N-ADDRESS.eml (a PGP/MIME message to the user ID's address)\n"
		   "and FPR-N-ADDRESS.asc. User IDs without an address and keys without an\n"
		   "encryption subkey are skipped: nothing is ever sent unencrypted. Your\n"
		   "keyring is not changed (the work happens in a temporary GnuPG home whose\n"
		   "private-keys-v1.d is a link to yours) unless --keep. Nothing is mailed\n"
		   "unless --sendmail.\n\n"
		   "With --resign-weak, a campaign to replace your MD5/SHA-1/RIPEMD-160\n"
		   "certifications (as 'ksp health --weak --signer FPR' lists them) in a\n"
		   "store that holds the web of trust and a party for the campaign ('party\n"
		   "init'; no frozen list needed): each user ID you certified with such a\n"
		   "hash (still valid, not revoked, not certified again with a modern hash)\n"
		   "on the keys named (default: all of them) is certified again with\n"
		   "SHA-256, the same way, and recorded in the delivery ledger.\n\n"
		   "Options:\n"
		   "  --as FPR          your key's full fingerprint\n"
		   "  --all-checked     every key on the frozen list but yours: use it only if\n"
		   "                    you checked every participant at the party\n"
		   "  --resign-weak     certify again, with SHA-256, what you certified with a\n"
		   "                    weak hash (the keys named, or all)\n"
		   "  --level N         certification level 0-3 (default 0, \"no claim\")\n"
		   "  --outbox DIR      where the messages go (default ./ksp-outbox)\n"
		   "  --sendmail CMD    then send what is unsent or failed, as 'party send'\n"
		   "                    --sendmail CMD does, e.g. '/usr/sbin/sendmail -oi -t'\n"
		   "  --keep            also import the signed keys into your keyring\n"
		   "  --force           sign again what the store says you signed\n"
		   "  --gnupg-home DIR  your GnuPG home (default GNUPGHOME, else ~/.gnupg)\n"
		   "Exit status: 0 all signed (or signed before) and, with --sendmail, every\n"
		   "message handed to the mailer; 1 a key refused, or a message not sent\n"
		   "(the mailer failed: 'ksp party send' sends it again); 2 an error. User\n"
		   "IDs that cannot be delivered are reported, not counted in the status.\n",
	.group = KSP_GROUP_PARTICIPANT,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "as", required_argument, NULL, 'a' },
		{ "all-checked", no_argument, NULL, 'A' },
		{ "level", required_argument, NULL, 'l' },
		{ "outbox", required_argument, NULL, 'o' },
		{ "sendmail", required_argument, NULL, 's' },
		{ "keep", no_argument, NULL, 'k' },
		{ "force", no_argument, NULL, 'f' },
		{ "gnupg-home", required_argument, NULL, 'g' },
		{ "resign-weak", no_argument, NULL, 'W' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct sign_out o = { .cli = cli };
	const char *as = NULL, *outbox = "ksp-outbox", *sendmail = NULL;
	unsigned int flags = 0;
	int c, r, level = 0, status = KSP_EXIT_OK;
	char *end;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'a': as = optarg; break;
		case 'A': flags |= KSP_SIGN_ALL; break;
		case 'l':
			level = (int)strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || level < 0 || level > 3)
				return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--level: give 0, 1, 2 or 3");
			break;
		case 'o': outbox = optarg; break;
		case 's': sendmail = optarg; break;
		case 'k': flags |= KSP_SIGN_KEEP; break;
		case 'f': flags |= KSP_SIGN_FORCE; break;
		case 'W': flags |= KSP_SIGN_RESIGN_WEAK; break;
		case 'g':
			if (ksp_set_gnupg_home(cli->ctx, optarg) < 0)
				return cli_fail(cli, -ENOMEM, "--gnupg-home");
			break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "bad option");
		}
	}
	if (as == NULL)
		return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--as FPR is needed: the full fingerprint of your key");
	if ((flags & KSP_SIGN_RESIGN_WEAK) && (flags & KSP_SIGN_ALL))
		return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--resign-weak takes the keys to certify again, or none for all of them; not --all-checked");
	if ((flags & KSP_SIGN_RESIGN_WEAK) && optind >= argc)
		flags |= KSP_SIGN_ALL;
	if ((flags & KSP_SIGN_ALL) && optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "give --all-checked or keys, not both");
	if (!(flags & KSP_SIGN_ALL) && optind >= argc)
		return cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "no key given: participant numbers, fingerprints, or --all-checked");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	struct stat ost;
	bool outbox_new = stat(outbox, &ost) < 0 && errno == ENOENT;
	if (cli->json)
		printf("{\"format_version\":1,\"results\":[");
	fflush(stdout);
	r = ksp_party_sign(party, as, (const char *const *)argv + optind, (size_t)(argc - optind), level, outbox,
			   flags, on_result, &o);
	if (cli->json)
		printf("],\"signed\":%d", r < 0 ? 0 : r);
	if (r < 0) {
		if (cli->json)
			printf(",\"sent\":0}\n");
		fflush(stdout);
		status = cli_fail(cli, r, "cannot sign");
		if (outbox_new)
			rmdir(outbox); /* made by this run and still empty; else kept */
		goto out;
	}
	struct cli_send_report sr = { .cli = cli, .json = cli->json };
	if (sendmail) {
		/* the ledger's path: what this run wrote, and what an earlier
		 * run's mailer failed on, as 'party send' would */
		if (cli->json)
			printf(",\"deliveries\":[");
		fflush(stdout);
		int pending = ksp_party_send(party, as, sendmail, 0, cli_send_report_cb, &sr);
		if (cli->json)
			printf("]");
		if (pending < 0) {
			if (cli->json)
				printf(",\"sent\":%d}\n", sr.sent);
			fflush(stdout);
			status = cli_fail(cli, pending, "%s: cannot send", cli->db_path);
			goto out;
		}
		if (pending > 0)
			status = KSP_EXIT_NEGATIVE;
	}
	if (cli->json) {
		printf(",\"sent\":%d,\"undeliverable\":%d}\n", sr.sent, o.n_skipped);
	} else if (!cli->quiet) {
		fprintf(stderr, "%d user ID(s) signed, %d signed before, %d skipped, %d key(s) refused.\n", o.n_signed,
			o.n_already, o.n_skipped, o.n_refused);
		if (o.n_signed && !sendmail)
			fprintf(stderr, "Nothing was sent: 'ksp party send' hands the messages to your mailer (or mail the .eml files in %s yourself).\n",
				outbox);
		if (o.n_skipped)
			fprintf(stderr, "%d user ID(s) cannot be delivered (no address, or no encryption subkey): nothing was sent unencrypted.\n",
				o.n_skipped);
	}
	/* what cannot be delivered is reported, not an error */
	if (o.n_refused)
		status = KSP_EXIT_NEGATIVE;
out:
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
