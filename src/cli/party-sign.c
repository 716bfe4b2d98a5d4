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

#include "cli/json-out.h"
#include "cli/party.h"
#include "shared/util.h"

struct sign_out {
	struct ksp_cli *cli;
	char last_fpr[65];
	int last_number;
	int n_results;
	json_t *list; /* --json: the results so far */
	int n_signed, n_already, n_skipped, n_refused, n_absent;
	bool relative; /* the outbox was named relative: its files shown so */
};

static const char *status_name(int s)
{
	switch (s) {
	case KSP_SIGN_SIGNED: return "signed";
	case KSP_SIGN_ALREADY: return "already";
	case KSP_SIGN_NO_EMAIL: return "no-email";
	case KSP_SIGN_NO_ENCRYPTION: return "no-encryption";
	case KSP_SIGN_REFUSED: return "refused";
	case KSP_SIGN_ABSENT: return "absent";
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

/* --json's report: {"format_version":1,"results":[...],"signed":N, then
 * "deliveries" when @deliveries, "sent", and "undeliverable" when
 * @undeliverable >= 0.  Returns 0 or -ENOMEM. */
static int print_sign_json(json_t *results, int n_signed, json_t *deliveries, int sent, int undeliverable)
{
	json_t *o = json_pack("{s:i,s:O,s:i}", "format_version", 1, "results", results, "signed", n_signed);

	if (o && deliveries)
		cj_set(o, "deliveries", json_incref(deliveries));
	if (o)
		cj_set(o, "sent", cj_int(sent));
	if (o && undeliverable >= 0)
		cj_set(o, "undeliverable", cj_int(undeliverable));
	return cj_print(o);
}

/* "FPR=N" (--level-for, and each line of --levels). */
static int parse_level_for(struct ksp_cli *cli, struct ksp_sign_opts *so, const char *arg, const char *where)
{
	const char *eq = strrchr(arg, '=');
	char fpr[130], *end;
	long lv;
	int r;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(fpr)) {
		cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "give FINGERPRINT=LEVEL");
		return -EINVAL;
	}
	memcpy(fpr, arg, (size_t)(eq - arg));
	fpr[eq - arg] = '\0';
	lv = strtol(eq + 1, &end, 10);
	if (eq[1] == '\0' || *end != '\0' || lv < 0 || lv > 3) {
		cli_fail(cli, -EINVAL, "%s: level '%s': give 0, 1, 2 or 3", where, eq + 1);
		return -EINVAL;
	}
	r = ksp_sign_opts_set_level(so, fpr, (int)lv);
	if (r < 0)
		cli_fail(cli, r, "%s", where);
	return r;
}

/* --levels FILE: a line "FINGERPRINT LEVEL" (or FPR=LEVEL) per key; blank
 * lines and lines starting with '#' are left out. */
static int read_levels(struct ksp_cli *cli, struct ksp_sign_opts *so, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512], where[600];
	int r = 0, n = 0;

	if (f == NULL) {
		r = -errno;
		cli_fail(cli, r, "%s: cannot read the levels file", path);
		return r;
	}
	while (r == 0 && fgets(line, sizeof(line), f)) {
		char *p = line, *q;
		n++;
		line[strcspn(line, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		/* FPR LEVEL: the last field is the level (a fingerprint may hold spaces) */
		q = strrchr(p, ' ');
		if (q == NULL)
			q = strrchr(p, '\t');
		if (q && strchr(p, '=') == NULL)
			*q = '=';
		snprintf(where, sizeof(where), "%s: line %d", path, n);
		r = parse_level_for(cli, so, p, where);
	}
	fclose(f);
	return r;
}

/* --expire: N or Nd days, Nw weeks, Nm months (30 days), Ny years (365 days); 0: never. */
static int parse_expiry(const char *arg, int64_t *secs)
{
	char *end;
	long long n = strtoll(arg, &end, 10);
	int64_t unit = 86400;

	if (*arg == '\0' || n < 0 || n > 100 * 366)
		return -EINVAL;
	if (*end == 'w')
		unit *= 7, end++;
	else if (*end == 'm')
		unit *= 30, end++;
	else if (*end == 'y')
		unit *= 365, end++;
	else if (*end == 'd')
		end++;
	if (*end != '\0')
		return -EINVAL;
	*secs = (int64_t)n * unit;
	return 0;
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
	case KSP_SIGN_ABSENT: o->n_absent++; break;
	default: o->n_skipped++; break;
	}
	if (o->list) {
		char when[24] = "";

		if (ksp_sign_result_get_time(res))
			format_datetime(ksp_sign_result_get_time(res), when, sizeof(when));
		cj_push(o->list, json_pack("{s:i,s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o}", "number",
					   ksp_sign_result_get_number(res), "fingerprint", cj_strz(fpr), "uid",
					   uid ? cj_str(uid, ulen) : json_null(), "email",
					   cj_strz(ksp_sign_result_get_email(res)), "status", status_name(st), "message",
					   cj_strz(msg), "eml", cj_strz(ksp_sign_result_get_message_file(res)), "asc",
					   cj_strz(ksp_sign_result_get_asc_file(res)), "time", cj_strz(when[0] ? when : NULL)));
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
		printf("              %s%s\n", st == KSP_SIGN_ALREADY ? "in " : "",
		       o->relative ? cli_relative_path(ksp_sign_result_get_message_file(res)) :
		       ksp_sign_result_get_message_file(res));
	if (st != KSP_SIGN_SIGNED)
		printf("              %s\n", msg);
	fflush(stdout); /* before gpg is forked again */
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_sign = {
	.name = "sign",
	.run = run,
	.usage = "--as FPR [OPTIONS] (--all-checked | --ticked FILE | N|FPR...)\n"
		 "       --as FPR --resign-weak [OPTIONS] [FPR...]",
	.help = "certify checked keys, one user ID at a time, encrypted to each",
	.details = "Each user ID of each key named (a number on the frozen list or a full\n"
		   "fingerprint) is certified on its own with your key (--as, the secret key\n"
		   "in your GnuPG home: GNUPGHOME or --gnupg-home), after re-checking the key\n"
		   "against the frozen list. For each, a copy of the key with only that user\n"
		   "ID and the new certification is encrypted to the key and left in the\n"
		   "outbox as FPR-N-ADDRESS.eml (a PGP/MIME message to the user ID's address)\n"
		   "and FPR-N-ADDRESS.asc. A user ID without an address is certified too and\n"
		   "goes in the messages to the key's addressed user IDs (as caff does); a\n"
		   "key without any is skipped. Each certification carries the notation\n"
		   "ksp-list-sha256@ksp.invalid=<SHA-256 of the frozen list file>. Keys without\n"
		   "an encryption subkey are skipped unless --unencrypted-to names them. Your\n"
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
		   "                    you checked every participant at the party; refused\n"
		   "                    until attendance is taken ('party absent N...' or\n"
		   "                    'party absent --none', or 'party join --attendance')\n"
		   "  --ticked FILE     the keys ticked \"[x] Fingerprint OK  [x] ID OK\" on a\n"
		   "                    checklist ('party sheet --format checklist'), and of each\n"
		   "                    the user IDs ticked (none: all); only if its checksum\n"
		   "                    boxes are ticked and its checksums are the frozen list's\n"
		   "  --resign-weak     certify again, with SHA-256, what you certified with a\n"
		   "                    weak hash (the keys named, or all)\n"
		   "  --level N         certification level 0-3 (default 0, \"no claim\")\n"
		   "  --level-for FPR=N the level for one key (repeatable)\n"
		   "  --levels FILE     a line \"FPR LEVEL\" per key ('#': a comment)\n"
		   "  --expire N[dwmy]  the certifications expire after N days (weeks,\n"
		   "                    months, years); 0: never (default)\n"
		   "  --policy-url URL  a policy URL on each certification\n"
		   "  --no-list-notation  leave out the notation ksp-list-sha256@ksp.invalid\n"
		   "                    (the SHA-256 of the frozen list file; on by default)\n"
		   "  --template T      the mail: en, de (built in) or your own FILE\n"
		   "                    (see ksp-party-sign(1), MAIL TEMPLATES)\n"
		   "  --print-template L  print the built-in mail template L (en, de)\n"
		   "  --bcc-self        a Bcc: to your own address on each message\n"
		   "  --unencrypted-to FPR  mail the certifications of this key, which has no\n"
		   "                    encryption subkey, unencrypted (anyone who reads that\n"
		   "                    mailbox can publish them; repeatable)\n"
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

/* Before signing: --all-checked only once attendance is taken (a joined
 * store knows nothing of the no-shows by itself), and the outbox named by
 * its absolute path (the ledger records it: 'party send' then works from
 * any directory; *@abs is to be freed). */
static int preflight(struct ksp_cli *cli, struct ksp_party *party, unsigned int flags, bool ticked,
		     const char **outbox, char **abs)
{
	if ((flags & KSP_SIGN_ALL) && !ticked && !(flags & KSP_SIGN_RESIGN_WEAK) && ksp_party_attendance_taken(party) == 0) {
		cli_err(cli, "%s: no attendance recorded: --all-checked would certify everyone on the list, no-shows too; nothing was signed. "
			"Record who was not there: 'ksp party absent N...' (or 'ksp party absent --none' if everyone came), "
			"or read the organizer's statement: 'ksp party join LIST KEYRING --attendance FILE'", cli->db_path);
		return KSP_EXIT_ERROR;
	}
	if ((*outbox)[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (cwd == NULL || asprintf(abs, "%s/%s", cwd, *outbox) < 0) {
			int e = errno ? errno : ENOMEM;
			free(cwd);
			*abs = NULL;
			return cli_fail(cli, -e, "%s: cannot name the outbox by its absolute path", *outbox);
		}
		free(cwd);
		*outbox = *abs;
	}
	return KSP_EXIT_OK;
}

/* Which keys to sign: --ticked FILE, --all-checked, --resign-weak or the
 * @n_keys keys given, in the combinations that make sense (@flags gains
 * KSP_SIGN_ALL where the keys come from elsewhere); a usage error if not */
static int check_selection(struct ksp_cli *cli, bool ticked, int n_keys, unsigned int *flags)
{
	static const char *const full = "party sign";
	const struct ksp_cmd *cmd = &ksp_cmd_party_sign;

	if (ticked && ((*flags & (KSP_SIGN_ALL | KSP_SIGN_RESIGN_WEAK)) || n_keys > 0))
		return cli_usage_error(cli, cmd, full, "give --ticked FILE alone, without keys, --all-checked or --resign-weak");
	if (ticked)
		*flags |= KSP_SIGN_ALL; /* keys come from the sheet */
	if ((*flags & KSP_SIGN_RESIGN_WEAK) && (*flags & KSP_SIGN_ALL))
		return cli_usage_error(cli, cmd, full, "--resign-weak takes the keys to certify again, or none for all of them; not --all-checked");
	if ((*flags & KSP_SIGN_RESIGN_WEAK) && n_keys <= 0)
		*flags |= KSP_SIGN_ALL;
	if ((*flags & KSP_SIGN_ALL) && n_keys > 0)
		return cli_usage_error(cli, cmd, full, "give --all-checked or keys, not both");
	if (!(*flags & KSP_SIGN_ALL) && n_keys <= 0)
		return cli_usage_error(cli, cmd, full, "no key given: participant numbers, fingerprints, or --all-checked");
	return 0;
}

/* (Long: the options, then sign from the sheet or the keys given, send, and one report; each step a few lines, one exit.) */
static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "as", required_argument, NULL, 'a' },
		{ "all-checked", no_argument, NULL, 'A' },
		{ "ticked", required_argument, NULL, 'T' },
		{ "level", required_argument, NULL, 'l' },
		{ "outbox", required_argument, NULL, 'o' },
		{ "sendmail", required_argument, NULL, 's' },
		{ "keep", no_argument, NULL, 'k' },
		{ "force", no_argument, NULL, 'f' },
		{ "gnupg-home", required_argument, NULL, 'g' },
		{ "level-for", required_argument, NULL, 'L' },
		{ "levels", required_argument, NULL, 'F' },
		{ "expire", required_argument, NULL, 'x' },
		{ "policy-url", required_argument, NULL, 'p' },
		{ "no-list-notation", no_argument, NULL, 'N' },
		{ "unencrypted-to", required_argument, NULL, 'u' },
		{ "template", required_argument, NULL, 't' },
		{ "print-template", required_argument, NULL, 'P' },
		{ "bcc-self", no_argument, NULL, 'b' },
		{ "resign-weak", no_argument, NULL, 'W' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct sign_out o = { .cli = cli };
	const char *as = NULL, *outbox = "ksp-outbox", *sendmail = NULL, *ticked = NULL;
	struct ksp_ticked *sheet = NULL;
	unsigned int flags = 0;
	int c, r, level = 0, status = KSP_EXIT_OK;
	char *end;
	struct ksp_sign_opts *so = NULL;
	char *outbox_abs = NULL;

	r = ksp_sign_opts_new(cli->ctx, &so);
	if (r < 0)
		return cli_fail(cli, r, "party sign");

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'a': as = optarg; break;
		case 'A': flags |= KSP_SIGN_ALL; break;
		case 'T': ticked = optarg; break;
		case 'l':
			level = (int)strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || level < 0 || level > 3) {
				status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--level: give 0, 1, 2 or 3");
				goto out;
			}
			ksp_sign_opts_set_level(so, NULL, level);
			break;
		case 'o': outbox = optarg; break;
		case 's': sendmail = optarg; break;
		case 'k': flags |= KSP_SIGN_KEEP; break;
		case 'f': flags |= KSP_SIGN_FORCE; break;
		case 'W': flags |= KSP_SIGN_RESIGN_WEAK; break;
		case 'g':
			if (ksp_set_gnupg_home(cli->ctx, optarg) < 0) {
				status = cli_fail(cli, -ENOMEM, "--gnupg-home");
				goto out;
			}
			break;
		case 'L':
			if (parse_level_for(cli, so, optarg, "--level-for") < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			break;
		case 'F':
			if (read_levels(cli, so, optarg) < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			break;
		case 'x': {
			int64_t secs;
			if (parse_expiry(optarg, &secs) < 0 || ksp_sign_opts_set_expires(so, secs) < 0) {
				status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign",
							 "--expire: give N, Nd, Nw, Nm or Ny (days, weeks, months, years), or 0 for never");
				goto out;
			}
			break;
		}
		case 'p':
			if (ksp_sign_opts_set_policy_url(so, optarg) < 0) {
				status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign",
							 "--policy-url: printable ASCII without spaces");
				goto out;
			}
			break;
		case 'N': ksp_sign_opts_set_list_notation(so, false); break;
		case 't':
			r = ksp_sign_opts_set_template_file(so, optarg);
			if (r < 0) {
				status = cli_fail(cli, r, "--template");
				goto out;
			}
			break;
		case 'P': {
			char name[16];
			const char *t;
			snprintf(name, sizeof(name), "sign%s%s", strcmp(optarg, "en") ? "." : "", strcmp(optarg, "en") ? optarg : "");
			t = strlen(optarg) == 2 ? ksp_mail_template_builtin(name) : NULL;
			if (t == NULL) {
				status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--print-template takes en or de");
				goto out;
			}
			status = fputs(t, stdout) < 0 || fflush(stdout) != 0 ? cli_fail(cli, -EIO, "cannot write the template") : KSP_EXIT_OK;
			goto out;
		}
		case 'b': ksp_sign_opts_set_bcc_self(so, true); break;
		case 'u':
			r = ksp_sign_opts_add_unencrypted(so, optarg);
			if (r < 0) {
				status = cli_fail(cli, r, "--unencrypted-to");
				goto out;
			}
			if (!cli->quiet)
				fprintf(stderr, "ksp: warning: --unencrypted-to %s: its certifications are mailed unencrypted, if it has no encryption subkey; anyone who reads that mailbox (or the mail on its way) can publish them\n",
					optarg);
			break;
		default:
			status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "bad option");
			goto out;
		}
	}
	if (as == NULL) {
		status = cli_usage_error(cli, &ksp_cmd_party_sign, "party sign", "--as FPR is needed: the full fingerprint of your key");
		goto out;
	}
	status = check_selection(cli, ticked != NULL, argc - optind, &flags);
	if (status)
		goto out;
	r = cli_open_party(cli, true, &store, &party);
	if (r) {
		status = r;
		goto out;
	}
	status = preflight(cli, party, flags, ticked != NULL, &outbox, &outbox_abs);
	if (status)
		goto out;
	o.relative = outbox_abs != NULL;
	struct stat ost;
	bool outbox_new = stat(outbox, &ost) < 0 && errno == ENOENT;
	if (cli->json && (o.list = json_array()) == NULL) {
		status = cli_fail(cli, -ENOMEM, "cannot make the JSON report; nothing was signed");
		goto out;
	}
	fflush(stdout);
	if (ticked) {
		uint8_t *data = NULL;
		size_t len = 0;
		r = read_file_all(ticked, 16u << 20, &data, &len);
		if (r < 0) {
			if (o.list)
				print_sign_json(o.list, 0, NULL, 0, -1);
			fflush(stdout);
			cli_err(cli, "%s: cannot read: %s; nothing was signed", ticked,
				r == -EFBIG ? "larger than 16 MiB, not a sheet" : strerror(-r));
			status = KSP_EXIT_ERROR;
			goto out;
		}
		r = ksp_party_read_ticked(party, data, len, ticked, 0, &sheet);
		free(data);
		if (r >= 0)
			r = ksp_party_sign_ticked(party, as, sheet, so, outbox, flags & ~(unsigned int)KSP_SIGN_ALL, on_result, &o);
	} else {
		r = ksp_party_sign_opts(party, as, (const char *const *)argv + optind, (size_t)(argc - optind), so, outbox,
					flags, on_result, &o);
	}
	if (r < 0) {
		if (o.list)
			print_sign_json(o.list, 0, NULL, 0, -1);
		fflush(stdout);
		status = cli_fail(cli, r, "cannot sign");
		if (outbox_new)
			rmdir(outbox); /* made by this run and still empty; else kept */
		goto out;
	}
	struct cli_send_report sr = { .cli = cli };
	if (sendmail) {
		/* the ledger's path: what this run wrote, and what an earlier
		 * run's mailer failed on, as 'party send' would */
		if (cli->json && (sr.list = json_array()) == NULL) {
			status = cli_fail(cli, -ENOMEM, "signed, but cannot make the JSON report; send with 'ksp party send'");
			goto out;
		}
		fflush(stdout);
		int pending = ksp_party_send(party, as, sendmail, 0, cli_send_report_cb, &sr);
		if (pending < 0) {
			if (o.list)
				print_sign_json(o.list, r, sr.list, sr.sent, -1);
			json_decref(sr.list);
			fflush(stdout);
			status = cli_fail(cli, pending, "%s: cannot send", cli->db_path);
			goto out;
		}
		if (pending > 0)
			status = KSP_EXIT_NEGATIVE;
	}
	if (o.list) {
		int p = print_sign_json(o.list, r, sr.list, sr.sent, o.n_skipped);

		json_decref(sr.list);
		if (p < 0) {
			status = cli_fail(cli, -ENOMEM, "signed, but cannot write the JSON report; the messages are in %s",
					  outbox);
			goto out;
		}
	} else if (!cli->quiet) {
		fprintf(stderr, "%d user ID(s) signed, %d signed before, %d skipped, %d key(s) refused.\n", o.n_signed,
			o.n_already, o.n_skipped, o.n_refused);
		if (o.n_signed && !sendmail)
			fprintf(stderr, "Nothing was sent: 'ksp party send' hands the messages to your mailer (or mail the .eml files in %s yourself).\n",
				o.relative ? cli_relative_path(outbox) : outbox);
		if (o.n_absent)
			fprintf(stderr, "%d key(s) of absent participants left out.\n", o.n_absent);
		if (o.n_skipped)
			fprintf(stderr, "%d user ID(s) cannot be delivered (no address, or no encryption subkey): nothing was sent unencrypted.\n",
				o.n_skipped);
	}
	/* what cannot be delivered is reported, not an error */
	if (o.n_refused)
		status = KSP_EXIT_NEGATIVE;
out:
	json_decref(o.list);
	free(outbox_abs);
	ksp_ticked_free(sheet);
	ksp_sign_opts_free(so);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
