// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp wot refresh: a keyring git repository (a pgpkeys-style key tree)
 * loaded only once every commit since the last one accepted is signed by a
 * key the core trusts (ksp verify --git-commit's engine); the last accepted
 * commit is kept in the store, and what is loaded is the tree at it, read
 * from git's objects (wot-refresh-git.c: never the work tree, git run with
 * settings the repository cannot change), only when a commit changed a
 * file under keys/ or .keyring/ (keys no longer in it removed, unchanged
 * keys skipped by their digest, see wot-load.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ksp.h"
#include "cli/json-out.h"
#include "cli/trust-opts.h"
#include "cli/wot-refresh.h"
#include "shared/util.h"

static int run_refresh(struct ksp_cli *cli, int argc, char *argv[]);

const struct ksp_cmd ksp_cmd_wot_refresh = {
	.name = "refresh",
	.run = run_refresh,
	.usage = CLI_TRUST_USAGE "\n"
		 "       [--since REV] [--full] DIR",
	.help = "load a keyring git repository once its new commits are signed by trusted keys",
	.details = "DIR is a git repository holding a key tree (keys/*.asc, .keyring/openpgp/;\n"
		   "kernel.org's pgpkeys). Every commit since the last one this store accepted\n"
		   "for DIR (all commits the first time) must carry a good signature by a key\n"
		   "the core trusts, as 'ksp verify --git-commit' judges it, with the keys of the\n"
		   "store; then the tree of HEAD's commit, read from git's objects (never the\n"
		   "work tree or the index), is loaded as 'ksp wot load --prune DIR' does, and\n"
		   "HEAD becomes the accepted commit. DIR must hold the repository's .git folder\n"
		   "(no .git file, no core.worktree); git runs with the settings that could run\n"
		   "a command (core.fsmonitor, hooks, ...) overridden. A symlink in the tree that\n"
		   "names no file of the tree read anyway, or a submodule: refused.\n"
		   "Nothing is loaded when a commit fails: one line names it and what to do.\n"
		   "Exit status: 0 loaded or up to date; 1 a commit refused; 2 error.\n\n"
		   "Options:\n" CLI_TRUST_HELP
		   "  --since REV  accept REV (checked by you) as the last accepted commit:\n"
		   "               only the commits after it are checked\n"
		   "  --full       load every key in full (see 'ksp wot load --full')\n",
	.group = KSP_GROUP_ADMIN,
};

enum { OPT_SINCE = 0x2100, OPT_FULL };

/* git with @args in @repo; its output's first line (trimmed) in *line
 * (malloc'ed) when @line.  0, git's exit status (> 0), or KSP_EXIT_ERROR
 * after saying why git could not run. */
static int git_line(struct ksp_cli *cli, const char *repo, const char *const *args, char **line)
{
	struct input out;
	char err[512];
	int r = refresh_git_run(repo, args, NULL, 0, &out, err, sizeof(err));

	if (line)
		*line = NULL;
	if (r < 0) {
		if (r == -ENOENT)
			cli_err(cli, "git: not found; install git (apt-get install git)");
		else
			cli_err(cli, "%s: cannot run git: %s; run the command again", repo, strerror(-r));
		return -1;
	}
	if (r == 0 && line) {
		const char *d = out.data ? (const char *)out.data : "";
		*line = strndup(d, strcspn(d, "\n"));
		if (*line == NULL)
			r = -1;
	}
	cli_input_release(&out);
	return r;
}

static bool hex_id(const char *s)
{
	size_t n = strlen(s);

	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* The commit ID that @rev names in @repo, malloc'ed, or NULL after saying
 * why. */
static char *resolve(struct ksp_cli *cli, const char *repo, const char *shown, const char *rev)
{
	char *spec = NULL, *id = NULL;
	int r;

	if (rev[0] == '-' || asprintf(&spec, "%s^{commit}", rev) < 0) {
		cli_err(cli, "%s: '%s' is not a revision; give a commit", shown, rev[0] == '-' ? rev : "?");
		return NULL;
	}
	{
		const char *args[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
		r = git_line(cli, repo, args, &id);
	}
	free(spec);
	if (r < 0)
		return NULL;
	if (r > 0 || id == NULL || !hex_id(id)) {
		char *e = cli_escape(rev, strlen(rev), KSP_ESCAPE_TERMINAL);
		cli_err(cli, "%s: no commit '%s' in this git repository; check the name (git -C %s log)", shown,
			e ? e : "?", shown);
		free(e);
		free(id);
		return NULL;
	}
	return id;
}

/* Is commit @c signed by a key the core trusts?  0 yes; KSP_EXIT_NEGATIVE
 * after the one line that says which commit and what to do; KSP_EXIT_ERROR. */
static int check_commit(struct ksp_cli *cli, struct ksp_store *store, const struct cli_trust_opts *to,
			const char *repo, const char *shown, const char *c)
{
	struct ksp_verify_result *vr = NULL;
	struct ksp_trust_result *tr = NULL;
	struct input obj;
	char label[80];
	int r, status = KSP_EXIT_NEGATIVE;

	r = refresh_git_object(cli, repo, shown, c, "commit", &obj);
	if (r)
		return r;
	snprintf(label, sizeof(label), "commit %s", c);
	r = ksp_verify_git_object(store, obj.data, obj.len, label, &vr);
	cli_input_release(&obj);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot verify commit %s", shown, c);
		goto out;
	}
	if (!ksp_verify_result_is_good(vr)) {
		const char *m = ksp_verify_result_get_message(vr);
		char *e = m ? cli_escape(m, strlen(m), KSP_ESCAPE_TERMINAL) : NULL;
		cli_err(cli,
			"%s: commit %s has no good signature by a key of the store (%s): nothing was loaded; "
			"check it (git -C %s show %s), load its signer's key if it is right, and run the command again",
			shown, c, e ? e : "unsigned", shown, c);
		free(e);
		goto out;
	}
	r = cli_trust_check(store, to, ksp_verify_result_get_signer(vr), &tr);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot evaluate the trust of commit %s's signer", shown, c);
		goto out;
	}
	if (!ksp_trust_result_is_trusted(tr)) {
		cli_err(cli,
			"%s: commit %s is signed by %s, a key the core does not trust: nothing was loaded; "
			"check the commit (git -C %s show %s) and its signer (ksp trust %s)",
			shown, c, ksp_verify_result_get_signer(vr), shown, c, ksp_verify_result_get_signer(vr));
		goto out;
	}
	status = 0;
out:
	ksp_trust_result_free(tr);
	ksp_verify_result_free(vr);
	return status;
}

/* (Long: the options, the repository's checks, then each commit since the last accepted one in one transaction, one exit.) */
static int run_refresh(struct ksp_cli *cli, int argc, char *argv[])
{
	static const struct option opts[] = {
		CLI_TRUST_LONGOPTS,
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "full", no_argument, NULL, OPT_FULL },
		{},
	};
	struct cli_trust_opts to;
	struct ksp_store *store = NULL;
	struct input list = { 0 };
	const char *since = NULL, *shown;
	char *repo = NULL, *esc = NULL, *head = NULL, *last = NULL, *gitdir = NULL;
	unsigned int flags = KSP_WOT_LOAD_PRUNE;
	size_t n_checked = 0;
	uint64_t keys = 0, certs = 0, bad = 0;
	bool loaded = false, began = false, key_files_changed = true;
	int c, r, status;

	status = cli_trust_opts_init(cli, &to);
	if (status)
		return status;
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == OPT_SINCE) {
			since = optarg;
		} else if (c == OPT_FULL) {
			flags |= KSP_WOT_LOAD_FULL;
		} else {
			r = cli_trust_opt(cli, &to, &ksp_cmd_wot_refresh, "wot refresh", c, optarg);
			if (r < 0) {
				status = KSP_EXIT_ERROR;
				goto out;
			}
			if (r == 0) {
				status = cli_usage_error(cli, &ksp_cmd_wot_refresh, "wot refresh", "bad option");
				goto out;
			}
		}
	}
	if (argc - optind != 1) {
		status = cli_usage_error(cli, &ksp_cmd_wot_refresh, "wot refresh", "give one repository DIR");
		goto out;
	}
	if (!to.core_given) {
		status = cli_usage_error(cli, &ksp_cmd_wot_refresh, "wot refresh",
					 "give the core: --core FILE, --core-fpr FPR, --core-party or --policy FILE");
		goto out;
	}
	/* the repository by its real path: the name it is remembered by */
	repo = realpath(argv[optind], NULL);
	esc = cli_escape(argv[optind], strlen(argv[optind]), KSP_ESCAPE_TERMINAL);
	shown = esc ? esc : "?";
	if (repo == NULL) {
		cli_err(cli, "%s: cannot open: %s; give the keyring repository's directory", shown, strerror(errno));
		status = KSP_EXIT_ERROR;
		goto out;
	}
	status = refresh_git_check_repo(cli, repo, shown, &gitdir);
	if (status)
		goto out;
	r = cli_open_store(cli, KSP_STORE_READ_WRITE | KSP_STORE_CREATE, &store);
	if (r) {
		status = r;
		goto out;
	}
	r = ksp_store_begin(store);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot start a transaction", cli->db_path);
		goto out;
	}
	began = true;
	head = resolve(cli, gitdir, shown, "HEAD");
	if (head == NULL) {
		status = KSP_EXIT_ERROR;
		goto out;
	}
	if (since) {
		last = resolve(cli, gitdir, shown, since);
		if (last == NULL) {
			status = KSP_EXIT_ERROR;
			goto out;
		}
	} else {
		r = ksp_wot_refresh_get(store, repo, &last);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot read the refresh state", cli->db_path);
			goto out;
		}
	}
	if (last && strcmp(last, head) == 0 && !(flags & KSP_WOT_LOAD_FULL))
		key_files_changed = false;
	if (last && strcmp(last, head) != 0) {
		const char *args[] = { "merge-base", "--is-ancestor", last, head, NULL };
		r = git_line(cli, gitdir, args, NULL);
		if (r < 0) {
			status = KSP_EXIT_ERROR;
			goto out;
		}
		if (r != 0) {
			cli_err(cli,
				"%s: the last accepted commit %s is not in HEAD's history (rewritten?): nothing was loaded; "
				"check the repository, then name a commit you checked with --since REV",
				shown, last);
			status = KSP_EXIT_NEGATIVE;
			goto out;
		}
	}
	/* every commit since the last accepted one (all of them the first
	 * time), merges included, oldest first */
	if (last == NULL || strcmp(last, head) != 0) {
		char *range = NULL;
		char err[512];

		if (last && asprintf(&range, "%s..%s", last, head) < 0) {
			status = cli_fail(cli, -ENOMEM, "wot refresh");
			goto out;
		}
		{
			const char *args[] = { "rev-list", "--reverse", range ? range : head, NULL };
			r = refresh_git_run(gitdir, args, NULL, 0, &list, err, sizeof(err));
		}
		free(range);
		if (r != 0) {
			cli_err(cli, "%s: git rev-list failed; check the repository (git -C %s fsck)", shown, shown);
			status = KSP_EXIT_ERROR;
			goto out;
		}
		for (char *p = (char *)list.data, *e; p && *p; p = e) {
			e = p + strcspn(p, "\n");
			if (*e)
				*e++ = '\0';
			if (!hex_id(p)) {
				cli_err(cli, "%s: git rev-list printed something that is not a commit ID", shown);
				status = KSP_EXIT_ERROR;
				goto out;
			}
			status = check_commit(cli, store, &to, gitdir, shown, p);
			if (status)
				goto out;
			n_checked++;
		}
	}
	/* commits that change no key file (graphs/, a README) load nothing */
	if (last && strcmp(last, head) != 0 && !(flags & KSP_WOT_LOAD_FULL)) {
		const char *args[] = { "diff-tree", "-r", "--name-only", "--no-renames", last, head, "--", "keys", ".keyring", NULL };
		char *changed = NULL;

		r = git_line(cli, gitdir, args, &changed);
		if (r != 0) {
			if (r > 0)
				cli_err(cli, "%s: git diff failed; check the repository (git -C %s fsck)", shown, shown);
			status = KSP_EXIT_ERROR;
			goto out;
		}
		key_files_changed = changed && changed[0];
		free(changed);
	}
	if (key_files_changed) {
		void *tree = NULL;
		size_t len = 0;

		status = refresh_git_tree(cli, gitdir, shown, head, &tree, &len);
		if (status) {
			free(tree);
			goto out;
		}
		r = ksp_wot_load(store, tree, len, repo, flags, &keys, &certs, &bad);
		free(tree);
		if (r < 0) {
			status = cli_fail(cli, r, "%s: cannot load", shown);
			goto out;
		}
		loaded = true;
	}
	r = ksp_wot_refresh_set(store, repo, head);
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot record the accepted commit", cli->db_path);
		goto out;
	}
	if (cli->json) {
		json_t *o = json_object();

		if (o) {
			cj_set(o, "format_version", cj_int(1));
			cj_set(o, "repo", cj_strz(repo));
			cj_set(o, "head", cj_strz(head));
			cj_set(o, "since", cj_strz(last));
			cj_set(o, "commits_checked", cj_int(n_checked));
			cj_set(o, "loaded", cj_bool(loaded));
			cj_set(o, "keys", cj_int(keys));
			cj_set(o, "new_certifications", cj_int(certs));
			cj_set(o, "bad_keys", cj_int(bad));
		}
		if (cj_print(o) < 0)
			status = cli_fail(cli, -ENOMEM, "%s: refreshed, but cannot write the JSON report", cli->db_path);
	} else if (loaded) {
		printf("%s: %zu commit%s checked, signed by keys the core trusts; loaded %s: %llu keys, %llu new "
		       "certifications, %llu malformed keys skipped\n",
		       shown, n_checked, n_checked == 1 ? "" : "s", head, (unsigned long long)keys,
		       (unsigned long long)certs, (unsigned long long)bad);
	} else if (n_checked) {
		printf("%s: %zu commit%s checked, signed by keys the core trusts; no key file changed: accepted %s\n",
		       shown, n_checked, n_checked == 1 ? "" : "s", head);
	} else {
		printf("%s: up to date at %s\n", shown, head);
	}
	if (cli_output_failed()) {
		status = cli_output_fail(cli, "%s", "nothing was loaded, run the command again");
		goto out;
	}
	r = ksp_store_commit(store);
	began = false;
	if (r < 0) {
		status = cli_fail(cli, r, "%s: cannot commit", cli->db_path);
		goto out;
	}
	status = KSP_EXIT_OK;
out:
	if (began)
		ksp_store_rollback(store);
	cli_input_release(&list);
	free(gitdir);
	free(head);
	free(last);
	free(esc);
	free(repo);
	ksp_store_unref(store);
	cli_trust_opts_done(&to);
	return status;
}
