// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party status: who has certified whom, gpgsigs-style, and a matrix. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/party.h"
#include "cli/party-plan.h"
#include "shared/util.h"

#define WIDTH 80

static const char *state_name(int s)
{
	switch (s) {
	case KSP_CERT_DONE: return "done";
	case KSP_CERT_SENT: return "sent";
	case KSP_CERT_UNSENT: return "unsent";
	case KSP_CERT_UNDELIVERABLE: return "undeliverable";
	case KSP_CERT_ABSENT: return "absent";
	case KSP_CERT_SELF: return "self";
	case KSP_CERT_PARTIAL: return "partial";
	default: return "missing";
	}
}

static char state_char(int s)
{
	switch (s) {
	case KSP_CERT_DONE: return '+';
	case KSP_CERT_SENT: return 's';
	case KSP_CERT_UNSENT: return 'w';
	case KSP_CERT_UNDELIVERABLE: return 'x';
	case KSP_CERT_ABSENT: return 'a';
	case KSP_CERT_SELF: return '-';
	case KSP_CERT_PARTIAL: return '~';
	default: return '.';
	}
}

/* "label  #1 #2 ..." wrapped at WIDTH, continuation lines indented. */
static void print_numbers(const char *indent, const char *label, const int *nums, size_t n)
{
	size_t col, start;

	col = (size_t)printf("%s%-14s", indent, label);
	start = col;
	for (size_t i = 0; i < n; i++) {
		char b[16];
		int l = snprintf(b, sizeof(b), " #%d", nums[i]);
		if (col + (size_t)l > WIDTH && col > start) {
			printf("\n%*s", (int)start, "");
			col = start;
		}
		col += (size_t)printf("%s", b);
	}
	printf("\n");
}

static void print_uid(const char *indent, const char *uid, size_t len)
{
	char *e = cli_escape(uid, len, KSP_ESCAPE_TERMINAL);
	printf("%s%s\n", indent, e ? e : "?");
	free(e);
}

/* The annotated list for target @j: who certified each user ID. */
static void print_target(const struct ksp_party_status *st, size_t j, int *buf)
{
	size_t n = ksp_party_status_get_count(st);
	char groups[96];

	fpr_groups(ksp_party_status_get_fingerprint(st, j), groups, sizeof(groups));
	printf("\n#%-3d %s\n", ksp_party_status_get_number(st, j), groups);
	if (ksp_party_status_get_uid_count(st, j) == 0)
		printf("     (no user ID)\n");
	else if (!ksp_party_status_uid_has_address(st, j, 0))
		printf("     (no user ID with an e-mail address: certifications cannot be sent to it; not counted)\n");
	if (!ksp_party_status_is_deliverable(st, j))
		printf("     (no encryption subkey: certifications cannot be sent to it; not counted)\n");
	if (ksp_party_status_is_absent(st, j))
		printf("     (absent from the party: not checked there; not counted)\n");
	for (size_t u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
		size_t len, nd = 0, ns = 0, nm = 0, nw = 0;
		const char *uid = ksp_party_status_get_uid(st, j, u, &len);
		int *done = buf, *sent = buf + n, *miss = buf + 2 * n, *unsent = buf + 3 * n;

		print_uid("     ", uid, len);
		if (!ksp_party_status_uid_has_address(st, j, u) && ksp_party_status_uid_has_address(st, j, 0))
			printf("       (no address: sent in the messages to this key's addresses)\n");
		for (size_t i = 0; i < n; i++) {
			int c = ksp_party_status_get_cert(st, i, j, u), num = ksp_party_status_get_number(st, i);
			if (c == KSP_CERT_DONE)
				done[nd++] = num;
			else if (c == KSP_CERT_SENT)
				sent[ns++] = num;
			else if (c == KSP_CERT_UNSENT)
				unsent[nw++] = num;
			else if (c == KSP_CERT_MISSING)
				miss[nm++] = num;
		}
		if (nd)
			print_numbers("       ", "certified by", done, nd);
		if (ns)
			print_numbers("       ", "sent by", sent, ns);
		if (nw)
			print_numbers("       ", "signed, unsent", unsent, nw);
		if (nm)
			print_numbers("       ", "missing", miss, nm);
	}
}

static void print_matrix(const struct ksp_party_status *st)
{
	size_t n = ksp_party_status_get_count(st);
	const size_t per = (WIDTH - 6) / 4;

	printf("\nWho certified whom (row: signer; column: key; + all user IDs, ~ some,\n"
	       "s sent but not back, w signed but not sent, . none, - own key,\n"
	       "x none and cannot be sent: no encryption subkey, a none and absent):\n");
	for (size_t from = 0; from < n; from += per) {
		size_t to = from + per < n ? from + per : n;
		printf("\n      ");
		for (size_t j = from; j < to; j++) {
			char b[16];
			snprintf(b, sizeof(b), "#%d", ksp_party_status_get_number(st, j));
			printf("%4s", b);
		}
		printf("\n");
		for (size_t i = 0; i < n; i++) {
			char b[16];
			snprintf(b, sizeof(b), "#%d", ksp_party_status_get_number(st, i));
			printf("%5s ", b);
			for (size_t j = from; j < to; j++)
				printf("   %c", state_char(ksp_party_status_get_pair(st, i, j)));
			printf("\n");
		}
	}
}

/* Per signer, what is not done yet (for reminders). */
static size_t print_missing(const struct ksp_party_status *st, size_t only, bool one)
{
	size_t n = ksp_party_status_get_count(st), total = 0;

	for (size_t i = 0; i < n; i++) {
		size_t shown = 0;
		if (one && i != only)
			continue;
		for (size_t j = 0; j < n; j++) {
			for (size_t u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
				int c = ksp_party_status_get_cert(st, i, j, u);
				size_t len;
				const char *uid;
				if (c != KSP_CERT_MISSING && c != KSP_CERT_SENT && c != KSP_CERT_UNSENT)
					continue;
				if (shown++ == 0) {
					char groups[96];
					fpr_groups(ksp_party_status_get_fingerprint(st, i), groups, sizeof(groups));
					printf("\n#%-3d %s has not certified:\n", ksp_party_status_get_number(st, i), groups);
					/* whom to remind, and where */
					if (ksp_party_status_get_uid_count(st, i) > 0) {
						size_t ml;
						const char *me = ksp_party_status_get_uid(st, i, 0, &ml);
						char *em = cli_escape(me, ml, KSP_ESCAPE_TERMINAL);
						printf("     remind %s\n", em ? em : "?");
						free(em);
					} else {
						printf("     (no user ID with an address to remind)\n");
					}
				}
				uid = ksp_party_status_get_uid(st, j, u, &len);
				char *e = cli_escape(uid, len, KSP_ESCAPE_TERMINAL);
				printf("     #%-3d %s%s\n", ksp_party_status_get_number(st, j), e ? e : "?",
				       c == KSP_CERT_SENT ? "  (sent, not back yet)" :
				       c == KSP_CERT_UNSENT ? "  (signed, not sent yet: ksp party send)" : "");
				free(e);
				total++;
			}
		}
	}
	return total;
}

static void print_json(const struct ksp_party_status *st, size_t only, bool one, bool missing_only)
{
	size_t n = ksp_party_status_get_count(st);
	uint64_t done = ksp_party_status_get_done(st), total = ksp_party_status_get_total(st);
	bool first = true;

	printf("{\"format_version\":1,\"done\":%llu,\"total\":%llu,\"percent\":%.1f,\"participants\":[",
	       (unsigned long long)done, (unsigned long long)total, total ? 100.0 * (double)done / (double)total : 100.0);
	for (size_t j = 0; j < n; j++) {
		if (one && j != only)
			continue;
		printf("%s{\"number\":%d,\"fingerprint\":\"%s\",\"deliverable\":%s,\"absent\":%s,\"uids\":[", first ? "" : ",",
		       ksp_party_status_get_number(st, j), ksp_party_status_get_fingerprint(st, j),
		       ksp_party_status_is_deliverable(st, j) ? "true" : "false",
		       ksp_party_status_is_absent(st, j) ? "true" : "false");
		first = false;
		for (size_t u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
			size_t len;
			const char *uid = ksp_party_status_get_uid(st, j, u, &len);
			static const int kinds[] = { KSP_CERT_DONE, KSP_CERT_SENT, KSP_CERT_MISSING, KSP_CERT_UNSENT };
			static const char *const keys[] = { "certified_by", "sent_by", "missing", "unsent_by" };
			printf("%s{\"uid\":", u ? "," : "");
			cli_json_str(stdout, uid, len);
			printf(",\"address\":%s", ksp_party_status_uid_has_address(st, j, u) ? "true" : "false");
			for (size_t k = 0; k < 4; k++) {
				bool f2 = true;
				printf(",\"%s\":[", keys[k]);
				for (size_t i = 0; i < n; i++)
					if (ksp_party_status_get_cert(st, i, j, u) == kinds[k]) {
						printf("%s%d", f2 ? "" : ",", ksp_party_status_get_number(st, i));
						f2 = false;
					}
				printf("]");
			}
			printf("}");
		}
		printf("]}");
	}
	printf("],\"matrix\":[");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"signer\":%d,\"keys\":[", i ? "," : "", ksp_party_status_get_number(st, i));
		for (size_t j = 0; j < n; j++)
			printf("%s\"%s\"", j ? "," : "", state_name(ksp_party_status_get_pair(st, i, j)));
		printf("]}");
	}
	printf("],\"missing\":[");
	first = true;
	for (size_t i = 0; i < n; i++) {
		if (one && i != only && missing_only)
			continue;
		for (size_t j = 0; j < n; j++)
			for (size_t u = 0; u < ksp_party_status_get_uid_count(st, j); u++) {
				int c = ksp_party_status_get_cert(st, i, j, u);
				size_t len;
				const char *uid;
				if (c != KSP_CERT_MISSING && c != KSP_CERT_SENT && c != KSP_CERT_UNSENT)
					continue;
				if (one && !missing_only && i != only && j != only)
					continue;
				uid = ksp_party_status_get_uid(st, j, u, &len);
				printf("%s{\"signer\":%d,\"key\":%d,\"uid\":", first ? "" : ",",
				       ksp_party_status_get_number(st, i), ksp_party_status_get_number(st, j));
				cli_json_str(stdout, uid, len);
				printf(",\"sent\":%s,\"signed\":%s}", c == KSP_CERT_SENT ? "true" : "false",
				       c == KSP_CERT_SENT || c == KSP_CERT_UNSENT ? "true" : "false");
				first = false;
			}
	}
	printf("]}\n");
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_status = {
	.name = "status",
	.run = run,
	.usage = "[--missing] [--for N|FPR] [--json]\n"
		 "   or: ksp party status [--missing] [--for N|FPR] [--json] " CLI_TRUST_USAGE,
	.help = "who has certified whom since the party",
	.details = "For each participant, who has certified each of its user IDs with an\n"
		   "e-mail address (verified certifications in the store: import them with\n"
		   "'ksp import'), then a matrix of signers and keys and the total.\n\n"
		   "Options:\n"
		   "  --missing     per signer, the user IDs not certified yet (for reminders)\n"
		   "  --for N|FPR   only this participant: as key, and as signer\n"
		   "  with a core (the options of 'ksp trust': --core-fpr FPR, --min-paths K...):\n"
		   "                how many keys reached K paths since the party, and through\n"
		   "                the party's certifications\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "missing", no_argument, NULL, 'm' },
		{ "for", required_argument, NULL, 'f' },
		CLI_TRUST_LONGOPTS,
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct ksp_party_status *st = NULL;
	const char *for_arg = NULL;
	bool missing = false, one = false;
	size_t only = 0, n;
	int c, r, status = KSP_EXIT_OK;
	int *buf = NULL;
	struct cli_trust_opts to = { 0 };

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'm')
			missing = true;
		else if (c == 'f')
			for_arg = optarg;
		else {
			/* a core: the trust line (ksp health) */
			if (to.policy == NULL && cli_trust_opts_init(cli, &to))
				return KSP_EXIT_ERROR;
			r = cli_trust_opt(cli, &to, &ksp_cmd_party_status, "party status", c, optarg);
			if (r == 0)
				cli_usage_error(cli, &ksp_cmd_party_status, "party status", "bad option");
			if (r != 1) {
				cli_trust_opts_done(&to);
				return KSP_EXIT_ERROR;
			}
		}
	}
	if (optind < argc) {
		cli_trust_opts_done(&to);
		return cli_usage_error(cli, &ksp_cmd_party_status, "party status", "unexpected argument '%s'", argv[optind]);
	}
	r = cli_open_party(cli, false, &store, &party);
	if (r) {
		cli_trust_opts_done(&to);
		return r;
	}
	r = ksp_party_status_new(party, 0, &st);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot compute the status", cli->db_path);
		goto out;
	}
	n = ksp_party_status_get_count(st);
	if (for_arg) {
		char fpr[65], *end;
		long num = strtol(for_arg, &end, 10);
		bool numeric = *for_arg && *end == '\0' && num > 0;
		if (!numeric && fpr_normalize(for_arg, fpr) < 0) {
			status = cli_usage_error(cli, &ksp_cmd_party_status, "party status",
						 "--for: give a participant number or a full fingerprint, not '%s'", for_arg);
			goto out;
		}
		for (size_t i = 0; i < n && !one; i++)
			if (numeric ? ksp_party_status_get_number(st, i) == num
				    : strcmp(ksp_party_status_get_fingerprint(st, i), fpr) == 0) {
				only = i;
				one = true;
			}
		if (!one) {
			cli_err(cli, "%s: no participant %s; see 'ksp party list'", cli->db_path, for_arg);
			status = KSP_EXIT_ERROR;
			goto out;
		}
	}
	if (cli->json) {
		print_json(st, only, one, missing);
		goto out;
	}
	uint64_t done = ksp_party_status_get_done(st), total = ksp_party_status_get_total(st);
	size_t uids = 0;
	for (size_t i = 0; i < n; i++)
		uids += ksp_party_status_get_uid_count(st, i);
	char *name = cli_escape(ksp_party_get_name(party), strlen(ksp_party_get_name(party)), KSP_ESCAPE_TERMINAL);
	size_t absent = 0;
	for (size_t i = 0; i < n; i++)
		absent += ksp_party_status_is_absent(st, i);
	printf("%s, %s: %zu participant(s), %zu user ID(s) with an address\n", name ? name : "?",
	       ksp_party_get_date(party), n, uids);
	if (absent)
		printf("Absent: %zu participant(s), not counted\n", absent);
	free(name);
	printf("Certifications: %llu of %llu (%.1f%%)\n", (unsigned long long)done, (unsigned long long)total,
	       total ? 100.0 * (double)done / (double)total : 100.0);
	if (to.core_given && (status = cli_party_health(cli, store, &to, ksp_party_get_date(party))) != KSP_EXIT_OK)
		goto out;
	if (missing) {
		if (print_missing(st, only, one) == 0)
			printf("\nNothing is missing.\n");
		goto out;
	}
	buf = calloc(4 * n + 1, sizeof(*buf));
	if (buf == NULL) {
		status = cli_fail(cli, -ENOMEM, "party status");
		goto out;
	}
	for (size_t j = 0; j < n; j++)
		if (!one || j == only)
			print_target(st, j, buf);
	if (one) {
		size_t nd = 0, nm = 0;
		int *d = buf, *m = buf + n;
		for (size_t j = 0; j < n; j++) {
			int p = ksp_party_status_get_pair(st, only, j);
			if (p == KSP_CERT_DONE)
				d[nd++] = ksp_party_status_get_number(st, j);
			else if (p != KSP_CERT_SELF && p != KSP_CERT_ABSENT)
				m[nm++] = ksp_party_status_get_number(st, j);
		}
		printf("\n     as signer\n");
		if (nd)
			print_numbers("       ", "certified", d, nd);
		if (nm)
			print_numbers("       ", "not all of", m, nm);
	} else {
		print_matrix(st);
	}
out:
	free(buf);
	ksp_party_status_free(st);
	ksp_party_unref(party);
	ksp_store_unref(store);
	cli_trust_opts_done(&to);
	return status;
}
