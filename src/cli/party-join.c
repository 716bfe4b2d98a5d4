// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party join LIST KEYRING: a participant's own store of the party. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/party.h"
#include "shared/util.h"

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_join = {
	.name = "join",
	.run = run,
	.usage = "LISTFILE KEYRING [--sha256 HEX] [--attendance FILE]",
	.help = "make your own store of a party from its list file and keyring",
	.details = "The list file is the one the organizer announced ('party close -o'), the\n"
		   "keyring the published party keyring ('party export').  The listed keys must\n"
		   "give exactly the list: nothing is stored otherwise (keys not on the list,\n"
		   "a newer list's latecomers, are left out).  A newer list version\n"
		   "(latecomers) is joined the same way; the older one stays on record.\n"
		   "Options:\n"
		   "  --sha256 HEX   the list's SHA-256 as announced: refuse any other file\n"
		   "  --attendance FILE  the organizer's attendance ('party export --attendance'):\n"
		   "                 who was absent is recorded, and 'party sign --all-checked'\n"
		   "                 leaves them out. Without it record the no-shows yourself\n"
		   "                 ('party absent N...', or 'party absent --none')\n",
	.group = KSP_GROUP_PARTICIPANT,
};

/* Before a keyring is read whole (up to 1 GiB): a regular file over the
 * limit, or anything whose first bytes are neither armor nor an OpenPGP
 * packet (/dev/zero, a text file), is refused at once. */
static int sniff_keyring(const char *path)
{
	uint8_t head[512];
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)(1u << 30)) {
		close(fd);
		return -EFBIG;
	}
	do
		n = read(fd, head, sizeof(head));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if (n > 0 && !(head[0] & 0x80) && !memmem(head, (size_t)n, "-----BEGIN PGP", 14))
		r = -EBADMSG;
	close(fd);
	return r;
}

/* A store this command created and could not fill: no empty file left. */
static void remove_new_store(const char *path)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal", "-wot" };
	char buf[4096];

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s", path, sfx[i]) < sizeof(buf))
			(void)unlink(buf);
	}
}

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "sha256", required_argument, NULL, 's' },
		{ "attendance", required_argument, NULL, 'A' },
		{},
	};
	const char *want = NULL, *att_path = NULL;
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	uint8_t *list = NULL, *ring = NULL, *att = NULL;
	size_t list_len = 0, ring_len = 0, att_len = 0;
	char *sha = NULL, *e_list = NULL, *e_path = NULL;
	struct stat stbuf;
	bool fresh;
	int c, r, version = 0, status;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 's': want = optarg; break;
		case 'A': att_path = optarg; break;
		default:
			return cli_usage_error(cli, &ksp_cmd_party_join, "party join", "bad option");
		}
	}
	if (argc - optind != 2)
		return cli_usage_error(cli, &ksp_cmd_party_join, "party join",
				       "give the list file and the party keyring");
	const char *list_path = argv[optind], *ring_path = argv[optind + 1];
	e_list = cli_escape(list_path, strlen(list_path), cli->json ? KSP_ESCAPE_JSON : KSP_ESCAPE_TERMINAL);
	e_path = cli_escape(cli->db_path, strlen(cli->db_path), cli->json ? KSP_ESCAPE_JSON : KSP_ESCAPE_TERMINAL);
	if (e_list == NULL || e_path == NULL) {
		status = cli_output_fail(cli, "%s", "nothing was stored, run the command again");
		goto out;
	}
	r = read_file_all(list_path, 64u << 20, &list, &list_len);
	if (r < 0) {
		fprintf(stderr, "ksp: %s: cannot read the list file: %s; nothing was stored\n", e_list, strerror(-r));
		status = KSP_EXIT_ERROR;
		goto out;
	}
	r = sniff_keyring(ring_path);
	if (r == 0)
		r = read_file_all(ring_path, 1u << 30, &ring, &ring_len);
	if (r < 0) {
		char *e = cli_escape(ring_path, strlen(ring_path), KSP_ESCAPE_TERMINAL);
		fprintf(stderr, "ksp: %s: cannot read the keyring: %s; nothing was stored\n", e ? e : "?",
			r == -EBADMSG ? "it starts with neither an armored key block nor an OpenPGP packet; give the keyring 'ksp party export' wrote" :
			r == -EFBIG ? "larger than 1 GiB, not a party keyring" : strerror(-r));
		free(e);
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (att_path && (r = read_file_all(att_path, 4u << 20, &att, &att_len)) < 0) {
		char *e = cli_escape(att_path, strlen(att_path), KSP_ESCAPE_TERMINAL);
		fprintf(stderr, "ksp: %s: cannot read the attendance: %s; nothing was stored\n", e ? e : "?",
			r == -EFBIG ? "larger than 4 MiB, not an attendance statement" : strerror(-r));
		free(e);
		status = KSP_EXIT_ERROR;
		goto out;
	}
	fresh = stat(cli->db_path, &stbuf) < 0 && errno == ENOENT;
	status = cli_open_store(cli, KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store);
	if (status)
		goto out;
	r = ksp_party_join(store, list, list_len, list_path, ring, ring_len, ring_path, want, &party, &version);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot join", list_path);
		ksp_store_unref(store);
		store = NULL;
		if (fresh)
			remove_new_store(cli->db_path);
		goto out;
	}
	int n_absent = -1;
	if (att) {
		n_absent = ksp_party_read_attendance(party, att, att_len, att_path);
		if (n_absent < 0) {
			status = cli_fail(cli, n_absent, "%s: cannot read the attendance", att_path);
			cli_err(cli, "the list was joined; record the no-shows with 'ksp party absent N...' or run this again with the right attendance file");
			goto out;
		}
	}
	if (ksp_party_get_digests(party, version, NULL, &sha, NULL) < 0) {
		status = cli_fail(cli, -EIO, "%s: cannot read the list digest", cli->db_path);
		goto out;
	}
	if (cli->json) {
		printf("{\"format_version\":1,\"store\":\"%s\",\"list\":\"%s\",\"list_version\":%d,"
		       "\"sha256\":\"%s\",\"new\":%s,\"sha256_checked\":%s,\"absent\":%d}\n",
		       e_path, e_list, version, sha, r == 0 ? "true" : "false", want ? "true" : "false", n_absent);
	} else {
		const char *name = ksp_party_get_name(party);
		char *e_name = cli_escape(name, strlen(name), KSP_ESCAPE_TERMINAL);
		printf("%s: SHA-256 %s%s\n", e_list, sha, want ? " (as announced)" : "");
		if (r == 0)
			printf("Joined %s (%s), list version %d, in %s.\n", e_name ? e_name : "?",
			       ksp_party_get_date(party), version, e_path);
		else
			printf("%s already holds list version %d of %s; nothing changed.\n", e_path, version,
			       e_name ? e_name : "?");
		if (!want)
			printf("Compare the SHA-256 with the one read out at the party before you sign.\n");
		if (n_absent >= 0)
			printf("Attendance: %d participant(s) absent, as the organizer recorded.\n", n_absent);
		else if (ksp_party_attendance_taken(party) == 0)
			printf("No attendance yet: record who was not there ('ksp party absent N...', or 'ksp party absent --none') before 'ksp party sign --all-checked'.\n");
		free(e_name);
	}
	status = KSP_EXIT_OK;
out:
	free(sha);
	free(e_list);
	free(e_path);
	free(list);
	free(ring);
	free(att);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
