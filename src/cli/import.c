// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp import: certifications sent back after the party into the store. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/json-out.h"
#include "cli/party.h"
#include "shared/util.h"

#define KSP_IMPORT_MAX_INPUT (512u << 20)

struct import_out {
	struct ksp_cli *cli;
	struct ksp_store *store;
	int n_new, n_dup, n_flagged, n_bad, n_skipped;
	json_t *events; /* --json: the events so far */
	bool json_lost;  /* one could not be added (out of memory) */
};

static const char *kind_name(int k)
{
	switch (k) {
	case KSP_IMPORT_NEW: return "new";
	case KSP_IMPORT_DUPLICATE: return "duplicate";
	case KSP_IMPORT_FLAGGED: return "flagged";
	case KSP_IMPORT_BAD: return "bad";
	case KSP_IMPORT_SKIPPED: return "skipped";
	default: return "?";
	}
}

/* "#3" or the fingerprint */
static void who(char *buf, size_t size, int number, const char *fpr)
{
	if (number > 0)
		snprintf(buf, size, "#%d", number);
	else
		snprintf(buf, size, "%s", fpr ? fpr : "?");
}

static void print_event(struct import_out *o, const struct ksp_import_event *ev);

static void on_event(void *data, const struct ksp_import_event *ev)
{
	print_event(data, ev);
	fflush(stdout); /* before gpg is forked again */
}

static void print_event(struct import_out *o, const struct ksp_import_event *ev)
{
	int kind = ksp_import_event_get_kind(ev);
	const char *src = ksp_import_event_get_source(ev), *msg = ksp_import_event_get_message(ev);
	const char *signer = ksp_import_event_get_signer(ev), *target = ksp_import_event_get_target(ev);
	size_t ulen = 0;
	const char *uid = ksp_import_event_get_uid(ev, &ulen);

	switch (kind) {
	case KSP_IMPORT_NEW: o->n_new++; break;
	case KSP_IMPORT_DUPLICATE: o->n_dup++; break;
	case KSP_IMPORT_FLAGGED: o->n_flagged++; break;
	case KSP_IMPORT_BAD: o->n_bad++; break;
	default: o->n_skipped++; break;
	}
	if (o->events) {
		json_t *e = json_object();

		if (e) {
			cj_set(e, "kind", cj_strz(kind_name(kind)));
			cj_set(e, "source", cj_strz(src));
			cj_set(e, "signer", cj_strz(signer));
			cj_set(e, "signer_number", cj_int(ksp_import_event_get_signer_number(ev)));
			cj_set(e, "target", cj_strz(target));
			cj_set(e, "target_number", cj_int(ksp_import_event_get_target_number(ev)));
			cj_set(e, "uid", uid ? cj_str(uid, ulen) : json_null());
			cj_set(e, "sig_type", cj_int(ksp_import_event_get_sig_type(ev)));
			cj_set(e, "message", cj_strz(msg));
		}
		if (cj_push(o->events, e) < 0)
			o->json_lost = true;
		return;
	}
	if (kind == KSP_IMPORT_DUPLICATE && o->cli->verbose == 0)
		return;
	char *esrc = cli_escape(src, strlen(src), KSP_ESCAPE_TERMINAL);
	char *euid = uid ? cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL) : NULL;
	char s[80], t[80];
	who(s, sizeof(s), ksp_import_event_get_signer_number(ev), signer);
	who(t, sizeof(t), ksp_import_event_get_target_number(ev), target);
	if (kind == KSP_IMPORT_NEW || kind == KSP_IMPORT_DUPLICATE || kind == KSP_IMPORT_FLAGGED) {
		printf("%-9s %s %s %s \"%s\"%s%s\n", kind == KSP_IMPORT_FLAGGED ? "kept" : kind_name(kind), s,
		       ksp_import_event_get_sig_type(ev) == 0x30 ? "revoked on" : "certified", t, euid ? euid : "",
		       kind == KSP_IMPORT_FLAGGED ? ": " : "", kind == KSP_IMPORT_FLAGGED ? msg : "");
	} else if (target && uid) {
		if (signer)
			fprintf(stderr, "ksp: %s: certification by %s on %s \"%s\": %s\n", esrc, s, t, euid ? euid : "", msg);
		else
			fprintf(stderr, "ksp: %s: key %s, user ID \"%s\": %s\n", esrc, t, euid ? euid : "", msg);
	} else if (target) {
		fprintf(stderr, "ksp: %s: key %s: %s\n", esrc, target, msg);
	} else {
		fprintf(stderr, "ksp: %s: %s\n", esrc, msg);
	}
	free(esrc);
	free(euid);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Import one file; returns an exit status. */
static int import_data(struct ksp_cli *cli, struct ksp_party *party, const char *path, uint8_t *data, size_t len,
		       struct import_out *o);

static int import_file(struct ksp_cli *cli, struct ksp_party *party, const char *path, struct import_out *o)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int r;

	r = read_file_all(path, KSP_IMPORT_MAX_INPUT, &data, &len);
	if (r < 0) {
		cli_err(cli, "%s: cannot read: %s%s", path, strerror(-r),
			r == -EFBIG ? "; split it into smaller files" : "; check the name");
		return KSP_EXIT_ERROR;
	}
	return import_data(cli, party, path, data, len, o);
}

/* A key tree (keys/NAME.asc, .keyring/openpgp/): one transaction */
static int import_tree(struct ksp_cli *cli, struct ksp_party *party, const char *path, struct import_out *o)
{
	void *data = NULL;
	size_t len = 0;
	int r = ksp_keytree_read(cli->ctx, path, &data, &len);

	if (r < 0)
		return cli_fail(cli, r, "%s: cannot read the key tree", path);
	return import_data(cli, party, path, data, len, o);
}

/* @data is freed */
static int import_data(struct ksp_cli *cli, struct ksp_party *party, const char *path, uint8_t *data, size_t len,
		       struct import_out *o)
{
	int r;

	/* the file's transaction held open until its report is printed: a
	 * report that could not be formatted stores nothing of the file */
	r = ksp_store_begin(o->store);
	if (r < 0) {
		free(data);
		return cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
	}
	r = ksp_party_import(party, data, len, path, 0, on_event, o);
	free(data);
	if (r < 0) {
		ksp_store_rollback(o->store);
		return cli_fail(cli, r, "%s: cannot import", path);
	}
	if (cli_output_failed()) {
		ksp_store_rollback(o->store);
		return cli_output_fail(cli, "nothing from %s was imported, run the command again", path);
	}
	r = ksp_store_commit(o->store);
	if (r < 0)
		return cli_fail(cli, r, "%s: cannot import", path);
	return KSP_EXIT_OK;
}

static int import_dir(struct ksp_cli *cli, struct ksp_party *party, const char *path, struct import_out *o)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int status = KSP_EXIT_OK;

	if (d == NULL) {
		cli_err(cli, "%s: cannot read the directory: %s", path, strerror(errno));
		return KSP_EXIT_ERROR;
	}
	/* the whole list first: a failure while listing imports nothing */
	for (;;) {
		char *full;
		struct stat st;
		int err = 0;

		errno = 0;
		de = readdir(d);
		if (de == NULL) {
			if (errno != 0)
				err = errno;
			else
				break;
		} else if (de->d_name[0] == '.') {
			continue;
		} else if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			err = ENOMEM;
		} else if (stat(full, &st) < 0) {
			err = errno;
			free(full);
			if (err == ENOENT) /* removed meanwhile */
				continue;
		} else if (!S_ISREG(st.st_mode)) {
			free(full);
			continue;
		} else {
			char **nn = realloc(names, (n + 1) * sizeof(*nn));
			if (nn == NULL) {
				err = ENOMEM;
				free(full);
			} else {
				names = nn;
				names[n++] = full;
				continue;
			}
		}
		closedir(d);
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		cli_err(cli, "%s: cannot list the directory: %s; nothing in it was imported, run the command again", path,
			strerror(err));
		return KSP_EXIT_ERROR;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		int s = status == KSP_EXIT_ERROR && cli_output_failed() ? KSP_EXIT_ERROR :
			import_file(cli, party, names[i], o);
		if (s > status)
			status = s;
		free(names[i]);
	}
	free(names);
	if (n == 0)
		cli_warn(cli, "%s: no files in the directory", path);
	return status;
}

static int run(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_import = {
	.name = "import",
	.run = run,
	.usage = "[--gnupg-home DIR] FILE|DIR...",
	.help = "import certifications sent back after the party",
	.details = "FILE is an armored or binary key, an encrypted message (decrypted with\n"
		   "your GnuPG home), a mail message (.eml) or an mbox file; a DIR is read\n"
		   "file by file, or, when it holds keys/ or .keyring/, as a key tree (see\n"
		   "ksp-publish(1)) in one transaction. Only certifications on user IDs of the party's keys are\n"
		   "imported, each verified against the signer's key in the store; bad ones\n"
		   "are reported and dropped, those by keys outside the party kept but not\n"
		   "counted. Each file is one transaction.\n\n"
		   "Options:\n"
		   "  --gnupg-home DIR  the GnuPG home that decrypts (default GNUPGHOME)\n"
		   "Exit status: 0 all read, 1 something was skipped (bad signature, not\n"
		   "for you, not in the party), 2 an error.\n",
	.group = KSP_GROUP_PARTICIPANT,
};

static int run(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "gnupg-home", required_argument, NULL, 'g' },
		{},
	};
	struct ksp_store *store = NULL;
	struct ksp_party *party = NULL;
	struct import_out o = { .cli = cli };
	json_t *report = NULL;
	int c, r, status = KSP_EXIT_OK;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'g') {
			if (ksp_set_gnupg_home(cli->ctx, optarg) < 0)
				return cli_fail(cli, -ENOMEM, "--gnupg-home");
		} else {
			return cli_usage_error(cli, &ksp_cmd_import, "import", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error(cli, &ksp_cmd_import, "import", "no file given");
	r = cli_open_party(cli, true, &store, &party);
	if (r)
		return r;
	o.store = store;
	if (cli->json) {
		report = json_object();
		o.events = json_array();
		if (report == NULL || o.events == NULL) {
			json_decref(report);
			json_decref(o.events);
			ksp_party_unref(party);
			ksp_store_unref(store);
			return cli_fail(cli, -ENOMEM, "cannot make the JSON report; nothing was imported");
		}
		cj_set(report, "format_version", cj_int(1));
		cj_set(report, "events", json_incref(o.events));
	}
	fflush(stdout);
	for (int i = optind; i < argc; i++) {
		struct stat st;
		int s;
		if (strcmp(argv[i], "-") != 0 && stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			s = cli_is_keytree(argv[i]) ? import_tree(cli, party, argv[i], &o) : import_dir(cli, party, argv[i], &o);
		else
			s = import_file(cli, party, argv[i], &o);
		if (s > status)
			status = s;
		if (cli_output_failed() || o.json_lost)
			break; /* reported; the rest would fail alike */
	}
	if (report) {
		cj_set(report, "new", cj_int(o.n_new));
		cj_set(report, "duplicates", cj_int(o.n_dup));
		cj_set(report, "flagged", cj_int(o.n_flagged));
		cj_set(report, "bad", cj_int(o.n_bad));
		cj_set(report, "skipped", cj_int(o.n_skipped));
		json_decref(o.events);
		if (cj_print(report) < 0)
			status = cli_fail(cli, -ENOMEM, "cannot write the JSON report; what was read is stored "
							"(see ksp party status)");
	} else {
		printf("%d new certification(s), %d duplicate(s), %d kept but not counted, %d bad, %d skipped.\n",
		       o.n_new, o.n_dup, o.n_flagged, o.n_bad, o.n_skipped);
	}
	if (status == KSP_EXIT_OK && (o.n_bad || o.n_skipped))
		status = KSP_EXIT_NEGATIVE;
	ksp_party_unref(party);
	ksp_store_unref(store);
	return status;
}
