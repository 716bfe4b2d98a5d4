// SPDX-License-Identifier: LGPL-2.1-or-later
/* ksp verify: is this signature (file, git tag, git commit) good, and is
 * the key that made it trusted by the core? */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli/git-run.h"
#include "cli/ksp.h"
#include "cli/json-out.h"
#include "cli/trust-opts.h"
#include "shared/util.h"

extern char **environ;

static int run_verify(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_verify = {
	.name = "verify",
	.run = run_verify,
	.usage = CLI_TRUST_USAGE "\n"
		 "       [--email ADDR | --uid UID] [--json] [-q]\n"
		 "       (SIGFILE [DATAFILE] | --git-tag TAG | --git-commit REV) [--repo DIR]",
	.help = "verify a signature or git tag/commit and the signer's trust",
	.details = "Verifies the signature against the keys of the store only (libksp's own\n"
		   "verifier, as ksp-gpg; gpgme in a private temporary GnuPG home for what it\n"
		   "does not do; the signing key may be a subkey), then\n"
		   "evaluates the trust of the signer's primary key with respect to the core,\n"
		   "as 'ksp trust' does, in the policy's model (--model, or model = in the\n"
		   "policy: paths, gnupg or sequoia). SIGFILE is a detached signature of DATAFILE, or a\n"
		   "cleartext-signed or signed message; a detached SIGFILE.asc or SIGFILE.sig\n"
		   "without DATAFILE signs SIGFILE without its extension. Prints one verdict\n"
		   "line, then the signer, the signing key and the trust paths.\n"
		   "Exit status: 0 good signature by a trusted key; 1 bad signature, unknown,\n"
		   "revoked or expired key, unsigned tag or commit, or a signer not trusted;\n"
		   "2 error.\n\n"
		   "Options:\n"
		   "  --git-tag TAG     verify the signed tag TAG (git cat-file tag TAG)\n"
		   "  --git-commit REV  verify the signed commit REV (its gpgsig header)\n"
		   "  --repo DIR        the git repository (default: the current directory)\n"
		   "  -q, --quiet       the verdict line only\n" CLI_TRUST_HELP CLI_TRUST_MODEL_HELP
		   "  --email ADDR      the signer must be trusted for its user ID with address\n"
		   "                    ADDR (the paths' last certifications on it)\n"
		   "  --uid UID         the same for the user ID UID, exactly\n",
	.group = KSP_GROUP_ADMIN,
};

enum { OPT_GIT_TAG = 0x2000, OPT_GIT_COMMIT, OPT_REPO };

/* ---- input ------------------------------------------------------------------ */

/* struct input: in cli/ksp.h (cli_run_git() fills one) */

void cli_input_release(struct input *in)
{
	if (in->mapped)
		munmap(in->data, in->len);
	else
		free(in->data);
	memset(in, 0, sizeof(*in));
}

/* Regular files are mapped (a signed tarball need not fit in memory
 * twice), anything else is read. */
static int input_read(const char *path, size_t max, struct input *in)
{
	struct stat stbuf;
	int fd, r;

	memset(in, 0, sizeof(*in));
	if (strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &stbuf) == 0 && S_ISREG(stbuf.st_mode) && stbuf.st_size > 0) {
			void *p;
			if (max && (uint64_t)stbuf.st_size > max) {
				close(fd);
				return -EFBIG;
			}
			p = mmap(NULL, (size_t)stbuf.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (p == MAP_FAILED)
				return -errno;
			in->data = p;
			in->len = (size_t)stbuf.st_size;
			in->mapped = true;
			return 0;
		}
		r = read_fd_all(fd, max, &in->data, &in->len);
		close(fd);
		return r;
	}
	return read_file_all(path, max, &in->data, &in->len);
}

/* ---- git ---------------------------------------------------------------------- */

/* Runs git with @args on the repository at or above @repo (git-run.c:
 * settings the repository cannot change); stdout into *out, the first line
 * of stderr into @err.  Returns git's exit status (>= 0) or -errno when it
 * could not run. */
int cli_run_git(const char *repo, const char *const *args, struct input *out, char *err, size_t errlen)
{
	int r = cli_git(NULL, repo, args, NULL, 0, (size_t)256 << 20, out, err, errlen);

	if (r == -EFBIG) {
		snprintf(err, errlen, "the object is larger than 256 MiB");
		r = 125;
	}
	return r;
}

static json_t *json_verdict(const char *label, const char *mode, const char *status, bool good, bool trusted,
			    const char *msg);

/* The raw tag or commit object of @rev: 0, KSP_EXIT_NEGATIVE for a tag
 * name that names no tag object (a lightweight tag: nothing signed), or
 * KSP_EXIT_ERROR after printing why. */
static int git_object(struct ksp_cli *cli, const char *repo, bool tag, const char *rev, const char *label,
		      struct input *obj)
{
	const char *type_args[] = { "cat-file", "-t", rev, NULL };
	const char *obj_args[] = { "cat-file", tag ? "tag" : "commit", rev, NULL };
	struct input type;
	char err[512], *e;
	int r;

	if (rev[0] == '-' || rev[0] == '\0') {
		cli_err(cli, "%s: not a %s name; give a name that does not start with '-'", label, tag ? "tag" : "revision");
		return KSP_EXIT_ERROR;
	}
	r = cli_run_git(repo, type_args, &type, err, sizeof(err));
	if (r == 0 && type.data == NULL) {
		snprintf(err, sizeof(err), "no object type");
		r = 125;
	}
	if (r == 0) {
		type.data[strcspn((char *)type.data, "\n")] = '\0';
		if (tag && strcmp((char *)type.data, "tag") != 0) {
			char msg[160];
			e = cli_escape(type.data, strlen((char *)type.data), KSP_ESCAPE_TERMINAL);
			snprintf(msg, sizeof(msg),
				 "not signed: a lightweight tag (it names a %s, there is no tag object to sign; make it with git tag -s)",
				 e ? e : "?");
			free(e);
			if (cli->json) {
				json_t *o = json_verdict(label, "git-tag", "unsigned", false, false, msg);

				if (o) {
					cj_set(o, "issuer", json_null());
					cj_set(o, "signer", json_null());
					cj_set(o, "signing_key", json_null());
					cj_set(o, "subkey", json_false());
					cj_set(o, "created", cj_int(0));
					cj_set(o, "uid", json_null());
					cj_set(o, "trust", json_null());
				}
				if (cj_print(o) < 0) {
					cli_input_release(&type);
					return cli_fail(cli, -ENOMEM, "cannot write the JSON report");
				}
			} else {
				printf("%s: %s\n", label, msg);
			}
			cli_input_release(&type);
			return KSP_EXIT_NEGATIVE;
		}
		cli_input_release(&type);
		r = cli_run_git(repo, obj_args, obj, err, sizeof(err));
	}
	if (r < 0) {
		if (r == -ENOENT)
			cli_err(cli, "git: not found; install git (apt-get install git)");
		else
			cli_err(cli, "%s: cannot run git or read its output: %s; run the command again", label,
				strerror(-r));
		return KSP_EXIT_ERROR;
	}
	if (r > 0) {
		e = cli_escape(err, strlen(err), KSP_ESCAPE_TERMINAL);
		cli_err(cli, "%s: git cat-file failed: %s; check the name and --repo", label, e && *e ? e : "(no message)");
		free(e);
		return KSP_EXIT_ERROR;
	}
	if (obj->data == NULL) {
		cli_err(cli, "%s: git cat-file printed nothing", label);
		return KSP_EXIT_ERROR;
	}
	return 0;
}

/* The default store (./ksp.db: not named with -d or KSP_DB) inside the
 * work tree of the repository being verified is the repository's own
 * file, which anyone who can push to it can forge: refused.  0 or
 * KSP_EXIT_ERROR after one line. */
static int refuse_repo_store(struct ksp_cli *cli, const char *repo)
{
	const char *args[] = { "rev-parse", "--show-toplevel", NULL };
	struct input top;
	char err[256], *db;
	size_t n;
	int r, status = 0;

	if (!cli->db_default)
		return 0;
	db = realpath(cli->db_path, NULL);
	if (db == NULL)
		return 0; /* no such store: cli_open_store() says so */
	r = cli_run_git(repo, args, &top, err, sizeof(err));
	if (r == 0 && top.data) {
		char *t = (char *)top.data, *rt;

		t[strcspn(t, "\n")] = '\0';
		rt = realpath(t, NULL);
		n = rt ? strlen(rt) : 0;
		if (n && strncmp(db, rt, n) == 0 && (db[n] == '/' || rt[n - 1] == '/')) {
			char *e = cli_escape(rt, n, KSP_ESCAPE_TERMINAL);
			cli_err(cli, "%s: the default store lies inside the repository being verified (%s), which could carry a forged one; name your store with -d FILE (or KSP_DB)",
				cli->db_path, e ? e : "?");
			free(e);
			status = KSP_EXIT_ERROR;
		}
		free(rt);
	}
	cli_input_release(&top);
	free(db);
	return status;
}

/* ---- output ----------------------------------------------------------------- */

static const char *status_name(int s)
{
	static const char *const names[] = { "good", "bad", "key_unknown", "key_revoked", "key_expired",
					     "sig_expired", "key_unusable", "unsigned" };
	return s >= 0 && s < (int)ARRAY_SIZE(names) ? names[s] : "error";
}

/* The report's members up to "message" (the shape every verdict shares) */
static json_t *json_verdict(const char *label, const char *mode, const char *status, bool good, bool trusted,
			    const char *msg)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	cj_set(o, "format_version", cj_int(1));
	cj_set(o, "source", cj_strz(label));
	cj_set(o, "mode", cj_strz(mode));
	cj_set(o, "status", cj_strz(status));
	cj_set(o, "good_signature", cj_bool(good));
	cj_set(o, "trusted", cj_bool(trusted));
	cj_set(o, "message", cj_strz(msg));
	return o;
}

/* Prints the report; 0 or -ENOMEM */
static int print_json(const char *label, const char *mode, const struct ksp_verify_result *vr,
		      const struct ksp_trust_result *tr, const struct ksp_trust_policy *pol)
{
	const char *uid;
	size_t ulen = 0;
	json_t *o = json_verdict(label, mode, status_name(ksp_verify_result_get_status(vr)),
				 ksp_verify_result_is_good(vr), tr && ksp_trust_result_is_trusted(tr),
				 ksp_verify_result_get_message(vr));

	if (o == NULL)
		return -ENOMEM;
	cj_set(o, "issuer", cj_strz(ksp_verify_result_get_issuer(vr)));
	cj_set(o, "signer", cj_strz(ksp_verify_result_get_signer(vr)));
	cj_set(o, "signing_key", cj_strz(ksp_verify_result_get_signing_key(vr)));
	cj_set(o, "subkey", cj_bool(ksp_verify_result_is_subkey(vr)));
	cj_set(o, "created", cj_int(ksp_verify_result_get_created(vr)));
	uid = ksp_verify_result_get_uid(vr, &ulen);
	cj_set(o, "uid", uid ? cj_str(uid, ulen) : json_null());
	if (tr) {
		json_t *t = json_object();

		if (t)
			cli_trust_json(t, tr, pol);
		cj_set(o, "trust", t);
	} else {
		cj_set(o, "trust", json_null());
	}
	return cj_print(o);
}

static void print_text(const char *label, const struct ksp_verify_result *vr, const struct ksp_trust_result *tr,
		       bool brief)
{
	const char *uid, *signer = ksp_verify_result_get_signer(vr);
	size_t ulen = 0;
	char date[32];

	if (tr)
		printf("%s: %s; %s\n", label, ksp_verify_result_get_message(vr), ksp_trust_result_get_message(tr));
	else
		printf("%s: %s\n", label, ksp_verify_result_get_message(vr));
	if (brief)
		return;
	if (signer) {
		char *e = NULL;
		uid = ksp_verify_result_get_uid(vr, &ulen);
		if (uid)
			e = cli_escape(uid, ulen, KSP_ESCAPE_TERMINAL);
		printf("  signer:      %s%s%s%s\n", signer, e ? " \"" : "", e ? e : "", e ? "\"" : "");
		free(e);
	}
	if (ksp_verify_result_is_subkey(vr))
		printf("  signing key: %s (subkey)\n", ksp_verify_result_get_signing_key(vr));
	if (ksp_verify_result_get_created(vr) > 0) {
		format_datetime(ksp_verify_result_get_created(vr), date, sizeof(date));
		printf("  made:        %s\n", date);
	}
	if (tr)
		cli_trust_print_paths(tr, 2);
}

/* ---- the command ---------------------------------------------------------------- */

/* (Long: the options, the signature and data read, the verdict and its report in text or JSON; one exit.) */
static int run_verify(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		CLI_TRUST_LONGOPTS,
		CLI_TRUST_MODEL_LONGOPTS,
		CLI_TRUST_BINDING_LONGOPTS,
		{ "git-tag", required_argument, NULL, OPT_GIT_TAG },
		{ "git-commit", required_argument, NULL, OPT_GIT_COMMIT },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "quiet", no_argument, NULL, 'q' },
		{},
	};
	struct cli_trust_opts to;
	struct ksp_store *store = NULL;
	struct ksp_verify_result *vr = NULL;
	struct ksp_trust_result *tr = NULL;
	struct input sig = { 0 }, data = { 0 };
	const char *git_tag = NULL, *git_commit = NULL, *repo = NULL, *mode = "detached";
	char *label = NULL, *auto_data = NULL;
	bool brief = cli->quiet;
	int c, r, status;

	status = cli_trust_opts_init(cli, &to);
	if (status)
		return status;
	while ((c = cli_getopt(cli, argc, argv, "q", opts)) != -1) {
		switch (c) {
		case OPT_GIT_TAG:
			git_tag = optarg;
			break;
		case OPT_GIT_COMMIT:
			git_commit = optarg;
			break;
		case OPT_REPO:
			repo = optarg;
			break;
		case 'q':
			brief = true;
			break;
		default:
			r = cli_trust_opt(cli, &to, &ksp_cmd_verify, "verify", c, optarg);
			if (r < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			if (r == 0) {
				status = cli_usage_error(cli, &ksp_cmd_verify, "verify", "bad option");
				goto out;
			}
		}
	}
	status = cli_trust_opts_check(cli, &to, &ksp_cmd_verify, "verify");
	if (status)
		goto out;
	if ((git_tag != NULL) + (git_commit != NULL) + (optind < argc) != 1 ||
	    (optind < argc && argc - optind > 2)) {
		status = cli_usage_error(cli, &ksp_cmd_verify, "verify",
					 "give SIGFILE [DATAFILE], or --git-tag TAG, or --git-commit REV");
		goto out;
	}
	if (repo && !git_tag && !git_commit) {
		status = cli_usage_error(cli, &ksp_cmd_verify, "verify", "--repo goes with --git-tag or --git-commit");
		goto out;
	}
	if (!to.core_given) {
		status = cli_usage_error(cli, &ksp_cmd_verify, "verify",
					 "give the core: --core FILE, --core-fpr FPR, --core-party or --policy FILE");
		goto out;
	}
	if (git_tag || git_commit) {
		status = refuse_repo_store(cli, repo);
		if (status)
			goto out;
	}
	r = cli_open_store(cli, 0, &store);
	if (r) {
		status = r;
		goto out;
	}

	if (git_tag || git_commit) {
		const char *rev = git_tag ? git_tag : git_commit;
		char *e = cli_escape(rev, strlen(rev), KSP_ESCAPE_TERMINAL);

		mode = git_tag ? "git-tag" : "git-commit";
		if (e == NULL || asprintf(&label, "%s %s", git_tag ? "tag" : "commit", e) < 0) {
			free(e);
			label = NULL;
			status = cli_fail(cli, -ENOMEM, "verify");
			goto out;
		}
		free(e);
		status = git_object(cli, repo, git_tag != NULL, rev, label, &sig);
		if (status)
			goto out;
		r = ksp_verify_git_object(store, sig.data, sig.len, label, &vr);

	} else {
		const char *sigfile = argv[optind], *datafile = optind + 1 < argc ? argv[optind + 1] : NULL;
		char *e = cli_escape(sigfile, strlen(sigfile), KSP_ESCAPE_TERMINAL);

		label = e;
		if (label == NULL) {
			status = cli_fail(cli, -ENOMEM, "verify");
			goto out;
		}
		if (datafile && strcmp(sigfile, "-") == 0 && strcmp(datafile, "-") == 0) {
			status = cli_usage_error(cli, &ksp_cmd_verify, "verify", "SIGFILE and DATAFILE cannot both be stdin");
			goto out;
		}
		r = input_read(sigfile, 64u << 20, &sig);
		if (r < 0) {
			cli_err(cli, "%s: cannot read: %s", label, strerror(-r));
			status = KSP_EXIT_ERROR;
			goto out;
		}
		if (!datafile) {
			mode = "inline";
			r = ksp_verify_inline(store, sig.data, sig.len, label, &vr);
			if (r == -ENODATA) {
				auto_data = signed_data_file(sigfile, true);
				if (auto_data == NULL) {
					cli_err(cli, "%s: a detached signature; give the file it signs: ksp verify %s FILE",
						label, label);
					status = KSP_EXIT_ERROR;
					goto out;
				}
				datafile = auto_data;
			}
		}
		if (datafile) {
			mode = "detached";
			r = input_read(datafile, 0, &data);
			if (r < 0) {
				char *d = cli_escape(datafile, strlen(datafile), KSP_ESCAPE_TERMINAL);
				cli_err(cli, "%s: cannot read: %s", d ? d : "?", strerror(-r));
				free(d);
				status = KSP_EXIT_ERROR;
				goto out;
			}
			r = ksp_verify_detached(store, sig.data, sig.len, data.data, data.len, label, &vr);
		}

	}
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot verify", label);
		goto out;
	}
	ksp_verify_result_apply_policy(vr, to.policy); /* the SHA-1 rule on the signature itself */
	if (ksp_verify_result_is_good(vr)) {
		r = cli_trust_check(store, &to, ksp_verify_result_get_signer(vr), &tr);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot evaluate trust", cli->db_path);
			goto out;
		}
	}
	if (cli->json && print_json(label, mode, vr, tr, to.policy) < 0) {
		status = cli_fail(cli, -ENOMEM, "cannot write the JSON report");
		goto out;
	}
	if (!cli->json)
		print_text(label, vr, tr, brief);
	status = tr && ksp_trust_result_is_trusted(tr) ? KSP_EXIT_OK : KSP_EXIT_NEGATIVE;
out:
	ksp_trust_result_free(tr);
	ksp_verify_result_free(vr);
	cli_input_release(&sig);
	cli_input_release(&data);
	free(auto_data);
	free(label);
	ksp_store_unref(store);
	cli_trust_opts_done(&to);
	return status;
}
