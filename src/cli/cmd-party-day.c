// SPDX-License-Identifier: LGPL-2.1-or-later
/* The party day: 'party absent' / 'party present' (attendance, beside the
 * frozen list), and the text sheets 'party sheet' hands over here: the
 * checklist to tick (--format checklist, --mark) and older list versions
 * (--version N). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/party.h"
#include "shared/util.h"

/* ---- attendance ------------------------------------------------------ */

static int run_attendance(struct ksp_cli *cli, int argc, char *argv[], bool absent)
{
	static const struct option opts[] = {
		{ "attended", required_argument, NULL, 'a' },
		{ "none", no_argument, NULL, 'n' },
		{},
	};
	const struct ksp_cmd *cmd = absent ? &ksp_cmd_party_absent : &ksp_cmd_party_present;
	const char *full = absent ? "party absent" : "party present", *sheet = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct ksp_ticked *t = NULL;
	int c, r, status = KSP_EXIT_OK, changed = 0, n_absent = 0, n_present = 0;
	bool first = true, none = false;

	while ((c = cli_getopt(cli, argc, argv, "", absent ? opts : opts + 2)) != -1) {
		if (c == 'a')
			sheet = optarg;
		else if (c == 'n')
			none = true;
		else
			return cli_usage_error(cli, cmd, full, "bad option");
	}
	if (none && (sheet || optind < argc))
		return cli_usage_error(cli, cmd, full, "--none: nobody was absent; give it alone");
	if (none) {
		r = cli_open_party(cli, true, &store, &party);
		if (r)
			return r;
		r = ksp_party_set_none_absent(party, NULL);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot record attendance", cli->db_path);
			goto out;
		}
		if (cli->json)
			printf("{\"format_version\":1,\"participants\":[],\"changed\":%d}\n", r);
		else if (!cli->quiet)
			fprintf(stderr, "Attendance taken: everyone on the frozen list was there (%d recorded absent before, present now).\n", r);
		goto out;
	}
	if (sheet && optind < argc)
		return cli_usage_error(cli, cmd, full, "give --attended FILE or participant numbers, not both");
	if (!sheet && optind >= argc)
		return cli_usage_error(cli, cmd, full, "give participant numbers or fingerprints%s",
				       absent ? ", or --attended FILE" : "");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	if (sheet) {
		uint8_t *data = NULL;
		size_t len = 0;
		r = read_file_all(sheet, 16u << 20, &data, &len);
		if (r < 0) {
			cli_err(cli, "%s: cannot read: %s; nothing was recorded", sheet,
				r == -EFBIG ? "larger than 16 MiB, not a sheet" : strerror(-r));
			status = KSP_EXIT_ERROR;
			goto out;
		}
		r = ksp_party_read_ticked(party, data, len, sheet, KSP_TICKED_NO_CHECKSUMS, &t);
		free(data);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot read the sheet", sheet);
			goto out;
		}
	}
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto out;
	}
	if (cli->json)
		printf("{\"format_version\":1,\"participants\":[");
	size_t n = t ? ksp_ticked_get_count(t) : (size_t)(argc - optind);
	for (size_t i = 0; i < n && r >= 0; i++) {
		/* from the sheet: a key with either box ticked was there */
		bool a = t ? (ksp_ticked_get_boxes(t, i) & (KSP_TICKED_FINGERPRINT | KSP_TICKED_ID)) == 0 : absent;
		const char *what = t ? ksp_ticked_get_fingerprint(t, i) : argv[optind + (int)i];
		int number = 0;
		r = ksp_party_set_absent(party, what, a, &number);
		if (r < 0)
			break;
		changed += r;
		if (a)
			n_absent++;
		else
			n_present++;
		if (cli->json) {
			printf("%s{\"number\":%d,\"absent\":%s,\"changed\":%s}", first ? "" : ",", number, a ? "true" : "false",
			       r ? "true" : "false");
			first = false;
		} else if (!cli->quiet && (r > 0 || !t)) {
			printf("#%-3d %s%s\n", number, a ? "absent" : "present", r ? "" : " (already so)");
		}
	}
	if (cli->json)
		printf("]");
	if (r < 0) {
		ksp_store_rollback(store);
		if (cli->json)
			printf("}\n");
		fflush(stdout);
		status = cli_fail(cli, r, "%s: cannot record attendance", cli->db_path);
		cli_err(cli, "nothing was recorded");
		goto out;
	}
	r = ksp_store_commit(store);
	if (r < 0) {
		if (cli->json)
			printf("}\n");
		status = cli_fail(cli, r, "%s: cannot save", cli->db_path);
		goto out;
	}
	if (cli->json)
		printf(",\"changed\":%d}\n", changed);
	else if (!cli->quiet && t)
		fprintf(stderr, "%s: %d present, %d absent (%d changed); the frozen list and its digests are unchanged.\n",
			sheet, n_present, n_absent, changed);
	else if (!cli->quiet)
		fprintf(stderr, "%d participant(s) recorded %s; the frozen list and its digests are unchanged.\n", changed,
			absent ? "absent" : "present");
out:
	ksp_ticked_free(t);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

static int run_absent(struct ksp_cli *cli, int argc, char *argv[])
{
	return run_attendance(cli, argc, argv, true);
}

static int run_present(struct ksp_cli *cli, int argc, char *argv[])
{
	return run_attendance(cli, argc, argv, false);
}

const struct ksp_cmd ksp_cmd_party_absent = {
	.name = "absent",
	.run = run_absent,
	.usage = "[--json] N|FPR... | --attended FILE | --none",
	.help = "record who of the frozen list was not at the party",
	.details = "Attendance is recorded beside the frozen list: the list and its digests stay\n"
		   "as announced.  Absent participants are shown as absent and drop out of the\n"
		   "'party status' totals, its reminders and 'party sign --all-checked'.\n\n"
		   "Options:\n"
		   "      --attended FILE   a checklist ('party sheet --format checklist') ticked at\n"
		   "                        the door: a key with a box ticked was there, the others\n"
		   "                        are recorded absent (and those ticked present again)\n"
		   "      --none            everyone on the list came: attendance taken, nobody\n"
		   "                        absent ('party sign --all-checked' wants attendance taken)\n\n"
		   "A participant's store ('party join') knows who was absent only when told:\n"
		   "record it here, or join with the organizer's statement\n"
		   "('party join LIST KEYRING --attendance FILE', from 'party export --attendance').\n",
	.group = KSP_GROUP_ORGANIZER,
};

const struct ksp_cmd ksp_cmd_party_present = {
	.name = "present",
	.run = run_present,
	.usage = "[--json] N|FPR...",
	.help = "undo 'party absent': the participants were there after all",
	.group = KSP_GROUP_ORGANIZER,
};

/* ---- text sheets of the frozen list ----------------------------------- */

/* Write @text to @out (atomically: a temporary name, then rename), or to
 * standard output when @out is NULL. */
static int write_text(const char *out, const char *text, size_t len)
{
	char *tmp = NULL;
	int fd, r = 0;

	if (out == NULL) {
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
			return -EIO;
		return 0;
	}
	if (asprintf(&tmp, "%s.tmp-XXXXXX", out) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	for (size_t off = 0; off < len && r == 0;) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			r = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, out) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

int cli_party_sheet_text(struct ksp_cli *cli, bool checklist, int version, const char *for_spec, bool mark,
			 const char *out)
{
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	char *text = NULL;
	size_t len = 0;
	int r, status = KSP_EXIT_OK, v = version;

	r = cli_open_party(cli, false, &store, &party);
	if (r)
		return r;
	if (ksp_party_get_list_version(party) <= 0) {
		cli_err(cli, "%s: the list was never frozen; %s of the frozen list only (run 'ksp party close')",
			cli->db_path, checklist ? "a checklist is made" : "--version renders versions");
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (version > ksp_party_get_list_version(party)) {
		cli_err(cli, "%s: there is no list version %d (the newest is %d); 'ksp party digest --version N' prints each",
			cli->db_path, version, ksp_party_get_list_version(party));
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (v == 0)
		v = ksp_party_get_list_version(party);
	if (checklist)
		r = ksp_party_checklist(party, v, mark ? for_spec : NULL, &text, &len);
	else
		r = ksp_party_get_list_text(party, v, &text, &len);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot make the %s", cli->db_path, checklist ? "checklist" : "sheet");
		goto out;
	}
	r = write_text(out, text, len);
	if (r < 0) {
		cli_err(cli, "%s: cannot write: %s; nothing was written", out ? out : "standard output", strerror(-r));
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (cli->json) {
		printf("{\"format_version\":1,\"file\":");
		cli_json_str(stdout, out, strlen(out));
		printf(",\"kind\":\"sheet\",\"format\":\"%s\",\"version\":%d,\"marked\":%s}\n",
		       checklist ? "checklist" : "txt", v, mark ? "true" : "false");
	} else if (out && !cli->quiet) {
		fprintf(stderr, "%s: written (list version %d)\n", out, v);
	}
	if (!checklist && v != ksp_party_get_list_version(party) && !cli->quiet)
		cli_warn(cli, "list version %d is not the newest (%d): sign from the newest", v,
			 ksp_party_get_list_version(party));
out:
	free(text);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
