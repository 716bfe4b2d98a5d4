// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/party.h"
#include "shared/util.h"

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_add = {
	.name = "add",
	.run = run,
	.usage = "[options] FILE... | --gnupg FPR... | --keyserver URL FPR|FILE... | --csv CSVFILE [KEYRING|FILE...]",
	.help = "check participants' keys and add them to the list",
	.details = "FILE holds one or more public keys, armored or binary; - reads stdin.\n"
		   "Every key is checked: revoked, expired or expiring before the party, no\n"
		   "valid self-signature, weak (RSA/DSA < 2048 bits, MD5/SHA-1 self-signature),\n"
		   "no user ID with an e-mail address, already listed, secret key material.\n\n"
		   "Options:\n"
		   "  --gnupg            the arguments are full fingerprints of keys in your own\n"
		   "                     GnuPG home ($GNUPGHOME), read-only\n"
		   "  --keyserver URL    fetch keys by full fingerprint from this keyserver\n"
		   "                     (hkp://HOST[:PORT], hkps://HOST) through gpg's dirmngr in\n"
		   "                     a private GnuPG home, and check them as any other: the\n"
		   "                     arguments that are fingerprints, and the RSVP mails that\n"
		   "                     hold only a fingerprint. Without it such a mail is\n"
		   "                     reported as a refused key and the other files are added;\n"
		   "                     with --csv, the rows whose key is in no file given\n"
		   "  --csv CSVFILE      a registration list: rows of name, e-mail, fingerprint\n"
		   "                     (or a header row naming them); each row's key is taken\n"
		   "                     from the keyrings and key files given, and the rows whose\n"
		   "                     key is missing are listed with the person to ask\n"
		   "  --allow-weak       accept weak keys and weak self-signature hashes\n"
		   "  --allow-no-email   accept keys with no e-mail address\n"
		   "  --allow-expiring   accept keys that expire before the party\n"
		   "  --dry-run          check only; store nothing (numbers are those it would get)\n"
		   "  -q, --quiet        print only refused keys, warnings and errors\n\n"
		   "Warnings (the key is added): a second key with an address already on the\n"
		   "list; a file holding several keys (a whole keyring sent by accident?).\n\n"
		   "Exit status: 0 all keys accepted, 1 some refused, 2 error (nothing stored).\n",
	.group = KSP_GROUP_ORGANIZER,
};

struct add_out {
	struct ksp_cli *cli;
	int refused;
	int accepted;
	bool first;
	bool dry_run;
	int next;     /* --dry-run: the number the next accepted key would get */
	int in_file;  /* keys reported for the current file */
	int missing;  /* --csv: rows without a key */
	bool row_first;
	bool rows_open; /* --json --csv: the "rows" array is open */
};

/* --csv: the rows that did not give a key, with whom to ask */
static void report_row(void *data, const struct ksp_csv_row *row)
{
	struct add_out *o = data;
	int st = ksp_csv_row_get_status(row);
	const char *msg = ksp_csv_row_get_message(row);
	static const char *const names[] = { "found", "missing", "bad", "duplicate", "mismatch" };

	if (st == KSP_CSV_MISSING || st == KSP_CSV_BAD)
		o->missing++;
	if (o->cli->json) {
		printf("%s{\"line\":%zu,\"status\":\"%s\",\"fingerprint\":", o->row_first ? "" : ",",
		       ksp_csv_row_get_line(row), st >= 0 && st < 5 ? names[st] : "?");
		if (ksp_csv_row_get_fingerprint(row))
			printf("\"%s\"", ksp_csv_row_get_fingerprint(row));
		else
			printf("null");
		printf(",\"name\":");
		const char *nm = ksp_csv_row_get_name(row), *em = ksp_csv_row_get_email(row);
		if (nm)
			cli_json_str(stdout, nm, strlen(nm));
		else
			printf("null");
		printf(",\"email\":");
		if (em)
			cli_json_str(stdout, em, strlen(em));
		else
			printf("null");
		printf(",\"message\":");
		cli_json_str(stdout, msg, strlen(msg));
		printf("}");
		o->row_first = false;
		return;
	}
	if (st == KSP_CSV_FOUND)
		return;
	char *e = cli_escape(msg, strlen(msg), KSP_ESCAPE_TERMINAL);
	printf("     %-9s %s\n", names[st > 0 && st < 5 ? st : 0], e ? e : "?");
	free(e);
}

static void report(void *data, const struct ksp_key_check *chk)
{
	struct add_out *o = data;
	const char *fpr = ksp_key_check_get_fingerprint(chk);
	const char *msg = ksp_key_check_get_message(chk);

	int number = ksp_key_check_get_number(chk);

	o->in_file++;
	if (ksp_key_check_is_accepted(chk)) {
		o->accepted++;
		if (o->dry_run)
			number = o->next++;
	} else {
		o->refused++;
	}
	if (o->cli->json && o->rows_open) {
		printf("],\"keys\":[");
		o->rows_open = false;
	}
	if (o->cli->json) {
		printf("%s{\"fingerprint\":\"%s\",\"accepted\":%s,\"number\":%d,\"problems\":[",
		       o->first ? "" : ",", fpr, ksp_key_check_is_accepted(chk) ? "true" : "false", number);
		unsigned p = ksp_key_check_get_problems(chk);
		bool f = true;
		for (unsigned b = 1; b && b <= p; b <<= 1) {
			if (p & b) {
				printf("%s\"%s\"", f ? "" : ",", ksp_check_name(b));
				f = false;
			}
		}
		printf("],\"message\":");
		cli_json_str(stdout, msg, strlen(msg));
		printf("}");
		o->first = false;
	} else if (ksp_key_check_is_accepted(chk)) {
		if (o->cli->quiet && ksp_key_check_get_problems(chk) == 0)
			return;
		printf("#%-3d %s  %s\n", number, fpr, msg);
	} else {
		printf("     %s  %s\n", fpr, msg);
	}
}

/* Long: the four ways keys come in (a CSV, the GnuPG home, a keyserver,
 * files and key trees), in one transaction with one report. */
static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "gnupg", no_argument, NULL, 'g' },
		{ "allow-weak", no_argument, NULL, 'w' },
		{ "allow-no-email", no_argument, NULL, 'e' },
		{ "allow-expiring", no_argument, NULL, 'x' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "csv", required_argument, NULL, 'c' },
		{ "keyserver", required_argument, NULL, 'k' },
		{},
	};
	const char *csv = NULL, *keyserver = NULL, **fprs = NULL;
	struct add_out o = { .cli = cli, .first = true };
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	unsigned int flags = 0;
	bool gnupg = false;
	int c, r = 0, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'g': gnupg = true; break;
		case 'w': flags |= KSP_ADD_ALLOW_WEAK; break;
		case 'e': flags |= KSP_ADD_ALLOW_NO_EMAIL; break;
		case 'x': flags |= KSP_ADD_ALLOW_EXPIRING; break;
		case 'n': flags |= KSP_ADD_DRY_RUN; break;
		case 'c': csv = optarg; break;
		case 'k': keyserver = optarg; break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "bad option");
		}
	}
	if (csv && gnupg)
		return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "give --csv or --gnupg, not both");
	if (keyserver && gnupg)
		return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "give --keyserver or --gnupg, not both");
	if (optind >= argc && !csv)
		return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "no key file given");
	if (optind >= argc && !keyserver)
		return cli_usage_error(cli, &ksp_cmd_party_add, "party add",
				       "--csv: give the keyrings or key files that hold the keys after the CSV file (or --keyserver URL)");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	if (keyserver && ksp_party_set_keyserver(party, keyserver) < 0) {
		status = cli_fail(cli, -ENOMEM, "party add");
		goto out;
	}
	o.dry_run = flags & KSP_ADD_DRY_RUN;
	o.row_first = true;
	if (o.dry_run) {
		/* the numbers the keys would get: after the highest on the list */
		struct ksp_participant_iter *it = NULL;
		struct ksp_participant *p;
		o.next = 1;
		if (ksp_party_iter_participants(party, &it) >= 0)
			while (ksp_participant_iter_next(it, &p) > 0)
				if (ksp_participant_get_number(p) >= o.next)
					o.next = ksp_participant_get_number(p) + 1;
		ksp_participant_iter_free(it);
	}
	/* one transaction for the whole command: an error anywhere stores nothing */
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto out;
	}
	if (cli->json && csv) {
		printf("{\"format_version\":1,\"rows\":[");
		o.rows_open = true;
	} else if (cli->json) {
		printf("{\"format_version\":1,\"keys\":[");
	}
	if (csv) {
		size_t nk = (size_t)(argc - optind);
		uint8_t *cdata = NULL, **kd = calloc(nk + 1, sizeof(*kd));
		size_t clen = 0, *kl = calloc(nk + 1, sizeof(*kl));
		const char *bad = NULL;
		r = kd && kl ? read_file_all(csv, 64u << 20, &cdata, &clen) : -ENOMEM;
		if (r < 0)
			bad = csv;
		for (size_t i = 0; i < nk && r >= 0; i++) {
			r = read_file_all(argv[optind + (int)i], 1u << 30, &kd[i], &kl[i]);
			if (r < 0)
				bad = argv[optind + (int)i];
		}
		if (r >= 0) {
			r = ksp_party_add_csv(party, cdata, clen, csv, (const void *const *)kd, kl,
					      (const char *const *)argv + optind, nk, flags, report, report_row, &o);
			if (cli->json && o.rows_open)
				printf("],\"keys\":[");
			o.rows_open = false;
		} else {
			fprintf(stderr, "ksp: %s: cannot read: %s; nothing was added\n", bad ? bad : csv,
				r == -EFBIG ? "too large" : strerror(-r));
		}
		free(cdata);
		for (size_t i = 0; kd && i < nk; i++)
			free(kd[i]);
		free(kd);
		free(kl);
		if (bad) {
			if (cli->json)
				printf("]}\n");
			ksp_store_rollback(store);
			status = KSP_EXIT_ERROR;
			goto out;
		}
	} else if (gnupg) {
		r = ksp_party_add_gnupg(party, (const char *const *)argv + optind, (size_t)(argc - optind),
					flags, report, &o);
	} else {
		/* --keyserver: the arguments that are fingerprints (and no file) */
		size_t n_fprs = 0;
		fprs = calloc((size_t)argc, sizeof(*fprs));
		char norm[65];
		struct stat st;
		if (fprs == NULL)
			r = -ENOMEM;
		for (int i = optind; keyserver && fprs && i < argc; i++)
			if (fpr_normalize(argv[i], norm) == 0 && stat(argv[i], &st) < 0)
				fprs[n_fprs++] = argv[i];
		if (n_fprs)
			r = ksp_party_add_fingerprints(party, fprs, n_fprs, flags, report, &o);
		for (int i = optind; i < argc && r >= 0; i++) {
			uint8_t *data = NULL;
			size_t len = 0;
			/* 64 MiB is far above any real key; refuse larger inputs early */
			bool fetched = false;

			for (size_t k = 0; k < n_fprs; k++)
				fetched |= fprs[k] == argv[i];
			if (fetched)
				continue;

			if (strcmp(argv[i], "-") != 0 && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
				/* a key tree: keys/NAME.asc, .keyring/openpgp/ */
				void *tree = NULL;

				r = ksp_keytree_read(cli->ctx, argv[i], &tree, &len);
				if (r < 0) {
					fprintf(stderr, "ksp: %s\n", ksp_get_error(cli->ctx) ? ksp_get_error(cli->ctx) : strerror(-r));
					if (cli->json)
						printf("]}\n");
					ksp_store_rollback(store);
					status = KSP_EXIT_ERROR;
					goto out;
				}
				data = tree;
			} else {
				r = read_file_all(argv[i], 64u << 20, &data, &len);
			}
			if (r < 0) {
				const char *what = r == -EFBIG ? "larger than 64 MiB, not a key file" : strerror(-r);
				fprintf(stderr, "ksp: %s: cannot read: %s; nothing was added\n", argv[i], what);
				if (cli->json)
					printf("]}\n");
				ksp_store_rollback(store);
				status = KSP_EXIT_ERROR;
				goto out;
			}
			o.in_file = 0;
			r = ksp_party_add(party, data, len, strcmp(argv[i], "-") ? argv[i] : "<stdin>", flags, report, &o);
			free(data);
			if (r >= 0 && o.in_file > 1)
				cli_warn(cli, "%s holds %d keys (a whole keyring sent by accident?); each was checked on its own",
					 argv[i], o.in_file);
		}
	}
	if (cli->json)
		printf("]}\n");
	fflush(stdout);
	if (r < 0) {
		ksp_store_rollback(store);
		const char *e = ksp_get_error(cli->ctx);
		fprintf(stderr, "ksp: %s%s\n", e ? e : strerror(-r), "; nothing was added");
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (cli_output_failed()) {
		/* the report is short of a key: store nothing rather than that */
		ksp_store_rollback(store);
		status = cli_output_fail(cli, "%s", "nothing was added, run the command again");
		goto out;
	}
	r = ksp_store_commit(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot save", cli->db_path);
		goto out;
	}
	fflush(stdout);
	if (!cli->json && !cli->quiet && (flags & KSP_ADD_DRY_RUN))
		fprintf(stderr, "would add %d, refuse %d; nothing stored.\n", o.accepted, o.refused);
	else if (!cli->json && !cli->quiet)
		fprintf(stderr, "%d key(s) added, %d refused.\n", o.accepted, o.refused);
	if (csv && !cli->json && !cli->quiet && !(flags & KSP_ADD_DRY_RUN)) {
		int np = ksp_party_get_repair_count(party);
		if (np > 0)
			fprintf(stderr, "the repair plan: %d certification(s) to make at the party; "
				"the sheet marks them beside each signer.\n", np);
	}
	if (!cli->json && o.missing)
		cli_warn(cli, "%s: %d row(s) without a key: ask the people listed above", csv, o.missing);
	status = o.refused || o.missing ? KSP_EXIT_NEGATIVE : KSP_EXIT_OK;
out:
	free(fprs);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
