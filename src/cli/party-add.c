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
	.usage = "[options] FILE... | --gnupg FPR...",
	.help = "check participants' keys and add them to the list",
	.details = "FILE holds one or more public keys, armored or binary; - reads stdin.\n"
		   "Every key is checked: revoked, expired or expiring before the party, no\n"
		   "valid self-signature, weak (RSA/DSA < 2048 bits, MD5/SHA-1 self-signature),\n"
		   "no user ID with an e-mail address, already listed, secret key material.\n\n"
		   "Options:\n"
		   "  --gnupg            the arguments are full fingerprints of keys in your own\n"
		   "                     GnuPG home ($GNUPGHOME), read-only\n"
		   "  --allow-weak       accept weak keys and weak self-signature hashes\n"
		   "  --allow-no-email   accept keys with no e-mail address\n"
		   "  --allow-expiring   accept keys that expire before the party\n"
		   "  --dry-run          check only; store nothing\n\n"
		   "Exit status: 0 all keys accepted, 1 some refused, 2 error (nothing stored).\n",
	.group = KSP_GROUP_ORGANIZER,
};

struct add_out {
	struct ksp_cli *cli;
	int refused;
	int accepted;
	bool first;
};

static void report(void *data, const struct ksp_key_check *chk)
{
	struct add_out *o = data;
	const char *fpr = ksp_key_check_get_fingerprint(chk);
	const char *msg = ksp_key_check_get_message(chk);

	if (ksp_key_check_is_accepted(chk))
		o->accepted++;
	else
		o->refused++;
	if (o->cli->json) {
		printf("%s{\"fingerprint\":\"%s\",\"accepted\":%s,\"number\":%d,\"problems\":[",
		       o->first ? "" : ",", fpr, ksp_key_check_is_accepted(chk) ? "true" : "false",
		       ksp_key_check_get_number(chk));
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
		printf("#%-3d %s  %s\n", ksp_key_check_get_number(chk), fpr, msg);
	} else {
		printf("     %s  %s\n", fpr, msg);
	}
}

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "gnupg", no_argument, NULL, 'g' },
		{ "allow-weak", no_argument, NULL, 'w' },
		{ "allow-no-email", no_argument, NULL, 'e' },
		{ "allow-expiring", no_argument, NULL, 'x' },
		{ "dry-run", no_argument, NULL, 'n' },
		{},
	};
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
		default:
			return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error(cli, &ksp_cmd_party_add, "party add", "no key file given");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	/* one transaction for the whole command: an error anywhere stores nothing */
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto out;
	}
	if (cli->json)
		printf("{\"format_version\":1,\"keys\":[");
	if (gnupg) {
		r = ksp_party_add_gnupg(party, (const char *const *)argv + optind, (size_t)(argc - optind),
					flags, report, &o);
	} else {
		for (int i = optind; i < argc && r >= 0; i++) {
			uint8_t *data = NULL;
			size_t len = 0;
			/* 64 MiB is far above any real key; refuse larger inputs early */
			struct stat st;

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
			r = ksp_party_add(party, data, len, strcmp(argv[i], "-") ? argv[i] : "<stdin>", flags, report, &o);
			free(data);
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
	if (!cli->json && !cli->quiet && !(flags & KSP_ADD_DRY_RUN))
		fprintf(stderr, "%d key(s) added, %d refused.\n", o.accepted, o.refused);
	status = o.refused ? KSP_EXIT_NEGATIVE : KSP_EXIT_OK;
out:
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
