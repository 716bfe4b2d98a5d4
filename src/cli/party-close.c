// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/json-out.h"
#include "cli/party.h"
#include "shared/util.h"

/* {"format_version":1,"list_version":V,"sha256":...,"ripemd160":...}; 0 or -ENOMEM */
static int print_digests_json(int v, const char *sha, const char *rmd)
{
	return cj_print(json_pack("{s:i,s:i,s:s,s:s}", "format_version", 1, "list_version", v, "sha256", sha,
				  "ripemd160", rmd));
}

int cli_print_digests(struct ksp_cli *cli, struct ksp_party *party, int version)
{
	char *sha = NULL, *rmd = NULL;
	int v = 0, r;

	r = ksp_party_get_digests(party, version, &v, &sha, &rmd);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot read the list digests", cli->db_path);
	if (cli->json) {
		if (print_digests_json(v, sha, rmd) < 0)
			r = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
	} else {
		printf("List version %d\nSHA256:    %s\nRIPEMD160: %s\n", v, sha, rmd);
	}
	free(sha);
	free(rmd);
	return r < 0 ? KSP_EXIT_ERROR : KSP_EXIT_OK;
}

static int write_out(struct ksp_cli *cli, struct ksp_party *party, int version, const char *path)
{
	struct atomic_file af;
	char *text = NULL;
	size_t len = 0;
	int r;

	r = ksp_party_get_list_text(party, version, &text, &len);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot read the list", cli->db_path);
	if (strcmp(path, "-") == 0) {
		r = write_all(1, text, len);
	} else {
		/* a regular file is replaced atomically, a device or FIFO
		 * written to in place (atomic_file_begin) */
		r = atomic_file_begin(&af, path, 0644);
		if (r == 0)
			r = atomic_file_end(&af, write_all(af.fd, text, len));
	}
	free(text);
	if (r < 0) {
		fprintf(stderr, "ksp: %s: cannot write the list: %s; the list is frozen in the store, run 'ksp party digest' or retry with another -o\n",
			path, output_strerror(r));
		return KSP_EXIT_ERROR;
	}
	return KSP_EXIT_OK;
}

/* party close -o FILE: the list file written in full under a temporary
 * name before the commit, put into place just before it (an earlier file
 * at FILE kept aside), and taken back if the commit fails. */
struct prepared_out {
	struct staged_file sf;
	bool to_stdout;
	const char *direct; /* a device or FIFO, written to after the commit */
	char *text;
	size_t len;
};

static int prepare_out(struct ksp_cli *cli, struct ksp_party *party, int version, const char *path,
		       struct prepared_out *po)
{
	int r;

	r = ksp_party_get_list_text(party, version, &po->text, &po->len);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot read the list; nothing was changed", cli->db_path);
	if (strcmp(path, "-") == 0) {
		po->to_stdout = true; /* written after the commit */
		return KSP_EXIT_OK;
	}
	r = output_kind(path);
	if (r == OUTPUT_DIRECT) {
		/* a device or FIFO: nothing to take back, written after the commit */
		po->to_stdout = true;
		po->direct = path;
		return KSP_EXIT_OK;
	}
	if (r == OUTPUT_ATOMIC)
		r = staged_file_write(&po->sf, path, 0644, po->text, po->len);
	if (r == 0)
		r = staged_file_place(&po->sf);
	if (r < 0) {
		staged_file_undo(&po->sf);
		fprintf(stderr, "ksp: %s: cannot write the list: %s; nothing was changed, the list is still open\n",
			path, output_strerror(r));
		return KSP_EXIT_ERROR;
	}
	return KSP_EXIT_OK;
}

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct prepared_out po = { .to_stdout = false };
	const char *out = NULL;
	char *sha = NULL, *rmd = NULL;
	int c, r, version = 0, v = 0, status;

	while ((c = cli_getopt(cli, argc, argv, "o:", opts)) != -1) {
		if (c == 'o')
			out = optarg;
		else
			return cli_usage_error(cli, &ksp_cmd_party_close, "party close", "bad option");
	}
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_close, "party close", "unexpected argument '%s'", argv[optind]);
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	/* One transaction around closing, reading the digests and writing the
	 * list file: a failure before the commit changes nothing. */
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto done;
	}
	r = ksp_party_close(party, &version);
	if (r == -EALREADY) {
		/* nothing changed since the last version: closed again as it was */
		const char *why = ksp_get_error(cli->ctx);
		char *msg = why ? strdup(why) : NULL;
		r = ksp_store_commit(store);
		if (r < 0) {
			free(msg);
			status = cli_fail(cli, r, "%s: cannot close the list", cli->db_path);
			goto done;
		}
		cli_err(cli, "%s", msg ? msg : "nothing changed since the last list version; 'ksp party digest' prints its digests");
		free(msg);
		status = KSP_EXIT_NEGATIVE;
		goto done;
	}
	if (r < 0) {
		ksp_store_rollback(store);
		status = cli_fail(cli, r, "%s: cannot close the list", cli->db_path);
		goto done;
	}
	r = ksp_party_get_digests(party, version, &v, &sha, &rmd);
	if (r < 0) {
		ksp_store_rollback(store);
		status = cli_fail(cli, r, "%s: cannot read the list digests; nothing was changed", cli->db_path);
		goto done;
	}
	if (out) {
		status = prepare_out(cli, party, version, out, &po);
		if (status != KSP_EXIT_OK) {
			ksp_store_rollback(store);
			goto done;
		}
	}
	r = ksp_store_commit(store);
	if (r < 0) {
		staged_file_undo(&po.sf);
		status = cli_fail(cli, r, "%s: cannot close the list", cli->db_path);
		goto done;
	}
	staged_file_done(&po.sf);
	if (!cli->json && !cli->quiet)
		fprintf(stderr, "List frozen as version %d. Announce these digests:\n", version);
	status = KSP_EXIT_OK;
	if (cli->json && print_digests_json(v, sha, rmd) < 0)
		status = cli_fail(cli, -ENOMEM, "list frozen as version %d, but cannot write the JSON report (see ksp party digest)", version);
	else if (!cli->json)
		printf("List version %d\nSHA256:    %s\nRIPEMD160: %s\n", v, sha, rmd);
	if (po.to_stdout) {
		fflush(stdout);
		if (po.direct) {
			struct atomic_file af;
			r = atomic_file_begin(&af, po.direct, 0644);
			if (r == 0)
				r = atomic_file_end(&af, write_all(af.fd, po.text, po.len));
		} else {
			r = write_all(STDOUT_FILENO, po.text, po.len);
		}
		if (r < 0) {
			fprintf(stderr, "ksp: %s: cannot write the list: %s; the list IS closed as version %d, print it with 'ksp party digest -o -'\n",
				po.direct ? po.direct : "standard output", output_strerror(r), version);
			status = KSP_EXIT_ERROR;
		}
	}
done:
	staged_file_undo(&po.sf); /* no-op once done */
	free(po.text);
	free(sha);
	free(rmd);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_close = {
	.name = "close",
	.run = run,
	.usage = "[-o LISTFILE]",
	.help = "freeze the list and print its digests",
	.details = "Writes the canonical participant list (byte-for-byte reproducible from the\n"
		   "store) as a new list version and prints its SHA-256 and RIPEMD-160 digests.\n\n"
		   "Options:\n"
		   "  -o, --output FILE  also write the list text to FILE (- for stdout)\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run_digest(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "version", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	const char *out = NULL;
	int c, r, version = 0, status;

	while ((c = cli_getopt(cli, argc, argv, "o:", opts)) != -1) {
		if (c == 'n') {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 1000000)
				return cli_usage_error(cli, &ksp_cmd_party_digest, "party digest", "--version takes a positive number");
			version = (int)v;
		} else if (c == 'o') {
			out = optarg;
		} else {
			return cli_usage_error(cli, &ksp_cmd_party_digest, "party digest", "bad option");
		}
	}
	r = cli_open_party(cli, false, &store, &party);
	if (r)
		return r;
	status = cli_print_digests(cli, party, version);
	if (status == KSP_EXIT_OK && out)
		status = write_out(cli, party, version, out);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_digest = {
	.name = "digest",
	.run = run_digest,
	.usage = "[--version N] [-o LISTFILE]",
	.help = "print the digests of a frozen list version",
	.details = "Options:\n"
		   "  --version N        that list version (default: the newest)\n"
		   "  -o, --output FILE  also write the list text to FILE (- for stdout)\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run_reopen(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "reason", required_argument, NULL, 'r' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	const char *reason = NULL;
	int c, r, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'r')
			reason = optarg;
		else
			return cli_usage_error(cli, &ksp_cmd_party_reopen, "party reopen", "bad option");
	}
	if (reason == NULL)
		return cli_usage_error(cli, &ksp_cmd_party_reopen, "party reopen", "--reason is required");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	r = ksp_party_reopen(party, reason);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot reopen", cli->db_path);
	} else if (cli->json) {
		if (cj_print(json_pack("{s:i,s:b,s:i,s:o}", "format_version", 1, "reopened", 1, "kept_version",
				       ksp_party_get_list_version(party), "reason", cj_strz(reason))) < 0)
			status = cli_fail(cli, -ENOMEM, "%s: reopened, but cannot write the JSON report", cli->db_path);
	} else if (!cli->quiet) {
		fprintf(stderr, "List reopened; version %d stays on record. Close again for a new version.\n",
			ksp_party_get_list_version(party));
	}
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_reopen = {
	.name = "reopen",
	.run = run_reopen,
	.usage = "--reason TEXT [--json]",
	.help = "reopen a frozen list for latecomers",
	.group = KSP_GROUP_ORGANIZER,
};

static int run_verify(struct ksp_cli *cli, int argc, char *argv[])
{
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	static const struct option opts[] = { {} };
	int c, r, v = 0, status;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1)
		return cli_usage_error(cli, &ksp_cmd_party_verify_list, "party verify-list", "bad option");
	argc -= optind - 1; /* argv[1] the list file, as before */
	argv += optind - 1;
	if (argc != 2)
		return cli_usage_error(cli, &ksp_cmd_party_verify_list, "party verify-list", "give one list file");
	r = read_file_all(argv[1], 64u << 20, &data, &len);
	if (r < 0) {
		fprintf(stderr, "ksp: %s: cannot read: %s\n", argv[1], strerror(-r));
		return KSP_EXIT_ERROR;
	}
	r = cli_open_party(cli, false, &store, &party);
	if (r) {
		free(data);
		return r;
	}
	r = ksp_party_verify_list(party, data, len, &v);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot verify", argv[1]);
	} else if (r == 1) {
		if (cli->json)
			cj_print(json_pack("{s:i,s:b,s:i,s:b}", "format_version", 1, "match", 1, "list_version", v,
					   "newest", v == ksp_party_get_list_version(party)));
		else
			printf("%s: matches frozen list version %d%s\n", argv[1], v,
			       v == ksp_party_get_list_version(party) ? "" : " (not the newest)");
		status = KSP_EXIT_OK;
	} else {
		if (cli->json)
			cj_print(json_pack("{s:i,s:b}", "format_version", 1, "match", 0));
		else
			printf("%s: does NOT match any frozen list version\n", argv[1]);
		status = KSP_EXIT_NEGATIVE;
	}
	free(data);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}

const struct ksp_cmd ksp_cmd_party_verify_list = {
	.name = "verify-list",
	.run = run_verify,
	.usage = "LISTFILE",
	.help = "check a list file against the frozen versions",
	.group = KSP_GROUP_PARTICIPANT,
};
