// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp party export: the party keyring with every verified certification. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/party.h"
#include "shared/util.h"

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_party_export = {
	.name = "export",
	.run = run,
	.usage = "[--signed-only] [--binary] [--version N] [-o FILE [--json]] [--attendance FILE]",
	.help = "write the party keyring with the certifications, to publish",
	.details = "The participants' keys as added, with every verified certification\n"
		   "imported since ('ksp import') merged in; ASCII-armored. Keyservers drop\n"
		   "third-party signatures now: publish this file instead.\n\n"
		   "Options:\n"
		   "  --signed-only  only certifications by participants, and only the keys\n"
		   "                 that have one\n"
		   "  --binary       binary OpenPGP instead of armor\n"
		   "  --version N    the keys of frozen list version N (the keyring for a\n"
		   "                 participant who holds that version's list)\n"
		   "  -o, --output FILE  where to write (default: standard output)\n"
		   "  --attendance FILE  also write who was absent ('party absent'), bound to\n"
		   "                 the list's SHA-256: publish it beside the keyring, and the\n"
		   "                 participants read it with 'party join LIST KEYRING\n"
		   "                 --attendance FILE' (their 'party sign --all-checked' then\n"
		   "                 leaves the no-shows out)\n",
	.group = KSP_GROUP_ORGANIZER,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "signed-only", no_argument, NULL, 's' },
		{ "binary", no_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "attendance", required_argument, NULL, 'A' },
		{ "version", required_argument, NULL, 'V' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	const char *out = "-", *att_file = NULL;
	unsigned int flags = 0;
	void *data = NULL;
	size_t len = 0;
	int c, r, status = KSP_EXIT_OK, version = 0;
	char *end;

	while ((c = cli_getopt(cli, argc, argv, "o:", opts)) != -1) {
		if (c == 's')
			flags |= KSP_EXPORT_SIGNED_ONLY;
		else if (c == 'b')
			flags |= KSP_EXPORT_BINARY;
		else if (c == 'o')
			out = optarg;
		else if (c == 'A')
			att_file = optarg;
		else if (c == 'V') {
			long v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 || v > 1000000)
				return cli_usage_error(cli, &ksp_cmd_party_export, "party export", "--version: give a list version number (1, 2, ...)");
			version = (int)v;
		}
		else
			return cli_usage_error(cli, &ksp_cmd_party_export, "party export", "bad option");
	}
	if (optind < argc)
		return cli_usage_error(cli, &ksp_cmd_party_export, "party export", "unexpected argument '%s'", argv[optind]);
	if (cli->json && strcmp(out, "-") == 0)
		return cli_usage_error(cli, &ksp_cmd_party_export, "party export",
				       "--json reports on the file written: give -o FILE (the keyring itself is not JSON)");
	r = cli_open_party(cli, false, &store, &party);
	if (r)
		return r;
	r = ksp_party_export_version(party, version, flags, &data, &len);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot export", cli->db_path);
		goto done;
	}
	int n = r;
	if (n == 0 && (flags & KSP_EXPORT_SIGNED_ONLY)) {
		/* an empty keyring published would say "nobody signed": say it here */
		cli_err(cli, "%s: no key has a certification by another participant yet: nothing written; import the signatures sent back with 'ksp import' first",
			strcmp(out, "-") == 0 ? "standard output" : out);
		status = KSP_EXIT_NEGATIVE;
		goto done;
	}
	if (strcmp(out, "-") == 0) {
		fflush(stdout);
		r = write_all(1, data, len);
	} else {
		struct atomic_file af;
		r = atomic_file_begin(&af, out, 0644);
		if (r == 0)
			r = atomic_file_end(&af, write_all(af.fd, data, len));
	}
	if (r < 0) {
		cli_err(cli, "%s: cannot write: %s; choose another -o FILE", out, output_strerror(r));
		status = KSP_EXIT_ERROR;
		goto done;
	}
	int n_absent = -1;
	if (att_file) {
		char *text = NULL;
		size_t tlen = 0;
		n_absent = ksp_party_attendance_text(party, &text, &tlen);
		if (n_absent < 0) {
			status = cli_fail(cli, n_absent, "%s: no attendance written", att_file);
			goto done;
		}
		struct atomic_file af;
		r = atomic_file_begin(&af, att_file, 0644);
		if (r == 0)
			r = atomic_file_end(&af, write_all(af.fd, text, tlen));
		free(text);
		if (r < 0) {
			cli_err(cli, "%s: cannot write: %s; choose another --attendance FILE", att_file, output_strerror(r));
			status = KSP_EXIT_ERROR;
			goto done;
		}
		if (!cli->quiet && !cli->json)
			fprintf(stderr, "Attendance (%d absent) written to %s: publish it beside the keyring.\n", n_absent, att_file);
	}
	if (cli->json) {
		printf("{\"format_version\":1,\"file\":");
		cli_json_str(stdout, out, strlen(out));
		printf(",\"keys\":%d,\"bytes\":%zu,\"binary\":%s,\"signed_only\":%s,\"absent\":%d}\n", n, len,
		       flags & KSP_EXPORT_BINARY ? "true" : "false", flags & KSP_EXPORT_SIGNED_ONLY ? "true" : "false",
		       n_absent);
	} else if (!cli->quiet && strcmp(out, "-") != 0) {
		fprintf(stderr, "%d key(s) written to %s.\n", n, out);
	}
done:
	free(data);
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
