// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ksp-gpg: a gpg.program for git (and b4, patatt) whose verdict on a
 * signature is ksp's: the signature is checked against the keys of a ksp
 * store, and the signer's trust is the store's policy (core, K, L, hash
 * rules: 'ksp trust'), written as gpg's status lines (--status-fd):
 *
 *   NEWSIG, KEY_CONSIDERED, GOODSIG / BADSIG / EXPSIG / EXPKEYSIG /
 *   REVKEYSIG / ERRSIG (+ NO_PUBKEY) / NODATA, VALIDSIG (tenth field: the
 *   primary key's fingerprint), TRUST_FULLY when the rule holds,
 *   TRUST_NEVER for a key the policy excludes (revoked, too weak),
 *   TRUST_UNDEFINED otherwise.
 *
 * Human text (the verdict, both trust verdicts, the paths, the store and
 * policy used) goes to stderr.  Exit status as gpg's: 0 a signature that
 * verifies (whatever the trust; also EXPKEYSIG, REVKEYSIG), 1 a bad or an
 * expired signature, 2 an error (no key, MD5, a time conflict, no store,
 * no policy, no signature).
 *
 * The store and the policy are authority, so only the ones the user named
 * (KSP_DB / KSP_POLICY, git config ksp.db / ksp.policy, absolute paths)
 * are used: no default store, nothing relative to the work tree git runs
 * us in; the store is opened immutable, nothing is written beside it.
 *
 * Anything that is not a verification (--verify) is handed to the real gpg
 * unchanged (execv), so git tag -s / commit -S keep working with the same
 * gpg.program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libksp.h>

#include "gpg/git-config.h"
#include "gpg/sig-info.h"
#include "shared/macro.h"
#include "shared/util.h"


#define PROG "ksp-gpg"

enum { EXIT_GOOD = 0, EXIT_BAD = 1, EXIT_ERROR = 2 };

/* ---- handing over to the real gpg ------------------------------------------ */

static bool same_file(const char *a, const struct stat *self)
{
	struct stat st;

	return stat(a, &st) == 0 && st.st_dev == self->st_dev && st.st_ino == self->st_ino;
}

/* The first executable @name on PATH that is not this program; NULL. */
static char *find_on_path(const char *name, const struct stat *self)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		int k = snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", name);

		if (k > 0 && (size_t)k < sizeof(buf) && access(buf, X_OK) == 0 && !same_file(buf, self))
			return strdup(buf);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

static int exec_real_gpg(char **argv)
{
	const char *want = getenv("KSP_GPG_REAL");
	struct stat self;
	char *real = NULL;

	/* set before every exec: seeing it here means the "gpg" we ran
	 * started ksp-gpg again (a wrapper script on PATH calling ksp-gpg),
	 * which would go on for ever */
	if (getenv("KSP_GPG_FORWARDED")) {
		fprintf(stderr, PROG ": the gpg it forwards to ran ksp-gpg again (a gpg wrapper that calls ksp-gpg?); set KSP_GPG_REAL to the real gpg (e.g. /usr/bin/gpg)\n");
		return EXIT_ERROR;
	}
	if (stat("/proc/self/exe", &self) < 0)
		memset(&self, 0, sizeof(self));
	if (want && *want) {
		if (strchr(want, '/')) {
			if (same_file(want, &self)) {
				fprintf(stderr, PROG ": KSP_GPG_REAL names ksp-gpg itself; set it to the real gpg (e.g. /usr/bin/gpg)\n");
				return EXIT_ERROR;
			}
			real = strdup(want);
		} else {
			real = find_on_path(want, &self);
		}
	} else {
		real = find_on_path("gpg", &self);
		if (real == NULL)
			real = find_on_path("gpg2", &self);
	}
	if (real == NULL) {
		fprintf(stderr, PROG ": cannot find the real gpg on PATH (other than ksp-gpg) to run this; install gnupg or set KSP_GPG_REAL\n");
		return EXIT_ERROR;
	}
	argv[0] = real;
	if (setenv("KSP_GPG_FORWARDED", "1", 1) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		free(real);
		return EXIT_ERROR;
	}
	execv(real, argv);
	fprintf(stderr, PROG ": cannot run %s: %s; set KSP_GPG_REAL to the real gpg\n", real, strerror(errno));
	free(real);
	return EXIT_ERROR;
}

/* ---- the command line -------------------------------------------------------- */

struct opts {
	int status_fd;      /* -1: no status lines */
	const char *output; /* --output FILE ("-" stdout) */
	char **files;
	size_t n_files;
	bool quiet;
};

/* gpg options a verifying caller (git, b4, patatt, scripts) may give,
 * accepted and ignored: ksp-gpg takes its keys from the store, its trust
 * from the policy. */
static const char *const ignored_flags[] = {
	"batch", "no-batch", "no-tty", "yes", "no", "no-auto-key-retrieve", "auto-key-retrieve",
	"no-auto-check-trustdb", "no-default-keyring", "no-greeting", "no-permission-warning",
	"no-secmem-warning", "always-trust", "no-options", "with-colons", "with-fingerprint",
	"fixed-list-mode", "utf8-strings", "no-verbose", "no-emit-version", "armor", "use-agent",
	"no-use-agent", "exit-on-status-write-error", "enable-special-filenames",
};
static const char *const ignored_with_arg[] = {
	"keyid-format", "homedir", "keyring", "trust-model", "logger-fd", "trustdb-name", "options",
	"display-charset", "charset", "compliance", "weak-digest", "auto-key-locate", "keyserver",
	"keyserver-options", "verify-options", "list-options", "pinentry-mode", "passphrase-fd",
	"attribute-fd", "command-fd", "primary-keyring", "default-key", "local-user", "agent-program",
	"dirmngr-program", "faked-system-time", "digest-algo",
};

static bool in_list(const char *const *list, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && memcmp(list[i], name, len) == 0)
			return true;
	return false;
}

static void print_escaped_arg(const char *what, const char *arg)
{
	char *e = NULL;

	if (ksp_escape(arg, strlen(arg), KSP_ESCAPE_TERMINAL, &e) < 0)
		e = NULL;
	fprintf(stderr, PROG ": %s \"%s\"; ksp-gpg verifies with: --verify SIGFILE [DATAFILE|-] "
			"[--status-fd N] [--output FILE] (see ksp-gpg(1))\n",
		what, e ? e : "?");
	free(e);
}

static bool parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 0 || v > 1000000)
		return false;
	*fd = (int)v;
	return true;
}

/* Returns 0, or EXIT_ERROR after a message. */
static int parse_verify_args(int argc, char **argv, struct opts *o)
{
	bool dashdash = false;

	memset(o, 0, sizeof(*o));
	o->status_fd = -1;
	o->files = calloc((size_t)argc, sizeof(char *));
	if (o->files == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_ERROR;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *val = NULL;
		size_t nl;

		if (dashdash || a[0] != '-' || a[1] == '\0') {
			o->files[o->n_files++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = true;
			continue;
		}
		if (a[1] != '-') { /* short options */
			if (strcmp(a, "-q") == 0) {
				o->quiet = true;
			} else if (strcmp(a, "-v") == 0 || strcmp(a, "-vv") == 0 || strcmp(a, "-a") == 0) {
				;
			} else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
				o->output = argv[++i];
			} else {
				print_escaped_arg("invalid option", a);
				return EXIT_ERROR;
			}
			continue;
		}
		name = a + 2;
		eq = strchr(name, '=');
		nl = eq ? (size_t)(eq - name) : strlen(name);
		if (nl == 6 && memcmp(name, "verify", 6) == 0 && !eq)
			continue;
		if ((nl == 5 && memcmp(name, "quiet", 5) == 0) || (nl == 7 && memcmp(name, "verbose", 7) == 0)) {
			if (eq) {
				print_escaped_arg("invalid option", a);
				return EXIT_ERROR;
			}
			if (name[0] == 'q')
				o->quiet = true;
			continue;
		}
		if (in_list(ignored_flags, ARRAY_SIZE(ignored_flags), name, nl)) {
			if (eq) {
				print_escaped_arg("option takes no argument:", a);
				return EXIT_ERROR;
			}
			continue;
		}
		if (in_list(ignored_with_arg, ARRAY_SIZE(ignored_with_arg), name, nl) ||
		    (nl == 9 && memcmp(name, "status-fd", 9) == 0) || (nl == 6 && memcmp(name, "output", 6) == 0)) {
			if (eq) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				print_escaped_arg("option needs an argument:", a);
				return EXIT_ERROR;
			}
			if (nl == 9 && memcmp(name, "status-fd", 9) == 0) {
				if (!parse_fd(val, &o->status_fd)) {
					print_escaped_arg("--status-fd takes a file descriptor number, not", val);
					return EXIT_ERROR;
				}
			} else if (nl == 6 && memcmp(name, "output", 6) == 0) {
				o->output = val;
			}
			continue;
		}
		print_escaped_arg("invalid option", a);
		return EXIT_ERROR;
	}
	return 0;
}

/* ---- status lines ------------------------------------------------------------ */

struct out {
	int status_fd;
	bool quiet;
};

static void status(const struct out *o, const char *fmt, ...) _printf_format_(2, 3);
static void status(const struct out *o, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	if (o->status_fd < 0)
		return;
	memcpy(line, "[GNUPG:] ", 9);
	va_start(ap, fmt);
	n = vsnprintf(line + 9, sizeof(line) - 10, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = MIN((size_t)n + 9, sizeof(line) - 2);
	line[n++] = '\n';
	(void)write_all(o->status_fd, line, (size_t)n);
}

/* A user ID for a status line, as gpg writes it: bytes below 0x20, '%'
 * and DEL as %XX (it is hostile: no newline may end the line early). */
static char *status_uid(const char *uid, size_t len)
{
	char *out = malloc(3 * len + 1), *p = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < len && i < 512; i++) {
		unsigned char c = (unsigned char)uid[i];
		if (c < 0x20 || c == '%' || c == 0x7f)
			p += sprintf(p, "%%%02X", c);
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return out;
}

static void say(const struct out *o, const char *fmt, ...) _printf_format_(2, 3);
static void say(const struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* An error: one line, even with -q. */
static void err(const char *fmt, ...) _printf_format_(1, 2);
static void err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char *term_escape(const char *s, size_t len)
{
	char *e = NULL;

	if (s == NULL || ksp_escape(s, len, KSP_ESCAPE_TERMINAL, &e) < 0)
		return NULL;
	return e;
}

/* ERRSIG KEYID PKALGO HASHALGO CLASS TIME RC FPR (rc 9: no public key,
 * 4: unknown algorithm or unusable key) */
static void status_errsig(const struct out *o, const struct sig_info *si, int rc)
{
	status(o, "ERRSIG %s %d %d %02x %lld %d %s", si->keyid[0] ? si->keyid : "0000000000000000", si->pk_algo,
	       si->hash_algo, si->type, (long long)si->created, rc, si->fpr[0] ? si->fpr : "-");
}

/* ---- where the store and the policy are ----------------------------------------- */

struct setting {
	char *path;       /* NULL: none */
	const char *from; /* where it came from, for the human text */
};

/* KSP_DB / KSP_POLICY, then git config ksp.db / ksp.policy (any scope).
 * git's configuration is read from its files (git-config.c), without
 * starting git.  There is no default and no path relative to anything: git runs
 * gpg.program at the top of the work tree, so "ksp.db" would be whatever
 * the repository carries.  A path is taken only when absolute or "~/...".
 * Returns 0 (s->path NULL: not set), -EINVAL after a message, -ENOMEM. */
static int find_setting(const char *env, const char *key, const char *env_from, const char *git_from,
			struct setting *s)
{
	const char *e = getenv(env);
	char *v = NULL;
	int r;

	s->path = NULL;
	s->from = NULL;
	if (e && *e) {
		v = strdup(e);
		s->from = env_from;
		if (v == NULL)
			return -ENOMEM;
	} else if ((r = git_config_get(key, &v)) == 0) {
		s->from = git_from;
	} else {
		return r < 0 ? r : 0;
	}
	if (v[0] == '~' && v[1] == '/') {
		const char *home = getenv("HOME");
		char *full;

		if (home == NULL || home[0] != '/') {
			err("%s (%s): HOME is not an absolute path, so ~/ means nothing; give an absolute path", key,
			    s->from);
			free(v);
			return -EINVAL;
		}
		if (asprintf(&full, "%s%s", home, v + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		free(v);
		v = full;
	} else if (v[0] != '/') {
		char *t = term_escape(v, strlen(v));
		err("%s: \"%s\" is a relative path (it would be the repository's file); set an absolute one: %s",
		    s->from, t ? t : "?",
		    strcmp(env_from, "KSP_DB") == 0 ? "git config --global ksp.db ~/.local/share/ksp/ksp.db"
						    : "git config --global ksp.policy ~/.config/ksp/policy");
		free(t);
		free(v);
		return -EINVAL;
	}
	s->path = v;
	return 0;
}

/* ---- the verdict ------------------------------------------------------------------- */

static const char *trust_word(const struct ksp_trust_result *tr)
{
	const char *name, *str;
	int reason;

	if (tr == NULL)
		return "UNDEFINED";
	if (ksp_trust_result_is_trusted(tr))
		return "FULLY";
	/* a model with gpg's letters (model = gnupg): gpg's word for 'm' */
	for (size_t i = 0; ksp_trust_result_get_field(tr, i, &name, NULL, &str) >= 0; i++)
		if (strcmp(name, "letter") == 0 && str && strcmp(str, "m") == 0)
			return "MARGINAL";
	reason = ksp_trust_result_get_reason(tr);
	if (reason == KSP_TRUST_TARGET_REVOKED || reason == KSP_TRUST_TARGET_INVALID)
		return "NEVER";
	return "UNDEFINED";
}

static void say_paths(const struct out *o, const struct ksp_trust_result *tr)
{
	size_t np = ksp_trust_result_get_path_count(tr);

	for (size_t i = 0; i < np; i++) {
		size_t n = ksp_trust_result_get_path_length(tr, i);
		say(o, "  path %zu (%zu hop%s):", i + 1, n, n == 1 ? "" : "s");
		for (size_t h = 0; h < n; h++) {
			const char *a = NULL, *b = NULL, *u = NULL;
			int64_t created = 0;
			size_t len = 0;
			char date[32], *e;

			if (ksp_trust_result_get_hop(tr, i, h, &a, &b, &created, &u, &len) < 0)
				continue;
			format_date(created, date, sizeof(date));
			e = term_escape(u ? u : "", u ? len : 0);
			say(o, "    %s", a);
			say(o, "      certified %s on %s", b, date);
			say(o, "      \"%s\"", e ? e : "?");
			free(e);
		}
	}
}

/* The size limits of what ksp-gpg reads (ksp-gpg(1), LIMITS), checked
 * before reading: a signature file or signed message (it is kept in
 * memory), several data files given one after the other (concatenated in
 * memory).  One data file or standard input is hashed as it is read, any
 * size, unless the signature is one libksp does not verify itself (then
 * at most DATA_MAX bytes are read for gpg). */
#define SIG_MAX ((size_t)64 << 20)
#define DATA_MAX ((size_t)256 << 20)

struct verify_in {
	uint8_t *sig, *data;
	size_t siglen, datalen;
	int data_fd;    /* one data file or stdin: streamed; -1 */
	bool detached;
	char *label;
};

static void verify_in_release(struct verify_in *in)
{
	free(in->sig);
	free(in->data);
	free(in->label);
	if (in->data_fd > STDIN_FILENO)
		close(in->data_fd);
}

/* A data file (or "-") to stream: its descriptor, or -1 after a message. */
static int open_data(const char *path)
{
	int fd;
	char *e;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = term_escape(path, strlen(path));
		err("%s: cannot read: %s", e ? e : "?", strerror(errno));
		free(e);
	}
	return fd;
}

static int read_input(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	int r = read_file_all(path, max, buf, len);
	char *e;

	if (r < 0) {
		e = term_escape(path, strlen(path));
		if (r == -EFBIG)
			err("%s: larger than %zu MiB, more than ksp-gpg reads (see ksp-gpg(1), LIMITS)",
			    strcmp(path, "-") ? (e ? e : "?") : "standard input", max >> 20);
		else
			err("%s: cannot read: %s", strcmp(path, "-") ? (e ? e : "?") : "standard input", strerror(-r));
		free(e);
	}
	return r;
}

/* The input: the signature (or signed message) in memory, at most
 * SIG_MAX; the data of a detached signature streamed from one file or
 * standard input (in->data_fd), or several files joined.  0, or -1 after
 * a message (and NODATA). */
static int get_input(const struct opts *o, const struct out *out, struct verify_in *in, struct sig_info *si)
{
	const char *sigpath = o->n_files ? o->files[0] : "-";
	int r;

	in->data_fd = -1;
	if (o->n_files > 1 && strcmp(o->files[0], "-") == 0) {
		for (size_t i = 1; i < o->n_files; i++)
			if (strcmp(o->files[i], "-") == 0) {
				err("the signature and the signed data cannot both be standard input");
				return -1;
			}
	}
	if (read_input(sigpath, SIG_MAX, &in->sig, &in->siglen) < 0)
		return -1;
	in->label = strcmp(sigpath, "-") ? term_escape(sigpath, strlen(sigpath)) : strdup("standard input");
	if (in->label == NULL) {
		err("out of memory");
		return -1;
	}
	if (o->n_files == 2) {
		in->data_fd = open_data(o->files[1]);
		if (in->data_fd < 0)
			return -1;
		in->detached = true;
	}
	for (size_t i = 1; o->n_files > 2 && i < o->n_files; i++) {
		uint8_t *b;
		size_t n;
		if (read_input(o->files[i], DATA_MAX, &b, &n) < 0)
			return -1;
		if (in->datalen + n > DATA_MAX) {
			free(b);
			err("the signed data files together are larger than %zu MiB, more than ksp-gpg reads (see ksp-gpg(1), LIMITS)",
			    DATA_MAX >> 20);
			return -1;
		}
		if (in->data == NULL) {
			in->data = b;
			in->datalen = n;
		} else { /* several data files: gpg hashes them one after the other */
			uint8_t *m = realloc(in->data, in->datalen + n + 1);
			if (m == NULL) {
				free(b);
				err("out of memory");
				return -1;
			}
			memcpy(m + in->datalen, b, n);
			in->data = m;
			in->datalen += n;
			free(b);
		}
		in->detached = true;
	}
	r = sig_info_read(in->sig, in->siglen, si);
	if (r == -ENOMEM) {
		err("out of memory");
		return -1;
	}
	if (r < 0 || (!si->found && !si->literal && !si->opaque && !si->cleartext)) {
		status(out, "NODATA %d", si->armored ? 3 : 1);
		err("%s: no valid OpenPGP signature found%s; the signature could not be verified", in->label,
		    si->armored ? " (damaged or cut-short armor)" : "");
		return -1;
	}
	if (!in->detached && !si->literal && !si->cleartext && !si->opaque) {
		char *d = o->n_files && strcmp(sigpath, "-") ? signed_data_file(sigpath, false) : NULL;
		if (d == NULL) {
			status(out, "NODATA 4");
			err("%s: a detached signature, and no signed data given; run: ksp-gpg --verify %s FILE", in->label,
			    in->label);
			return -1;
		}
		in->data_fd = open_data(d);
		free(d);
		if (in->data_fd < 0)
			return -1;
		in->detached = true;
	}
	return 0;
}

/* The trust that counts (trust_at), both verdicts with the paths of the
 * one that counts, and its TRUST_ line.  0, or -1 after a message. */
static int report_trust(const struct out *out, struct ksp_store *store, const char *signer,
			const struct ksp_trust_result *tr_now, const struct ksp_trust_result *tr_sig, bool at_sig,
			const char *dnow, const char *date)
{
	const struct ksp_trust_result *counts = at_sig && tr_sig ? tr_sig : tr_now;
	const struct ksp_trust_result *other;
	char why[400];
	int r;

	/* trust_at = signature: expiry judged when it signed, every
	 * revocation known now applied (the date is the signer's claim:
	 * backdating must not undo one) */
	if (counts == tr_sig && ksp_trust_result_is_trusted(tr_sig)) {
		r = ksp_trust_result_revoked_now(store, tr_sig, signer, why, sizeof(why));
		if (r < 0) {
			const char *m = ksp_get_error(ksp_store_get_ctx(store));
			err("%s", m ? m : strerror(-r));
			return -1;
		}
		if (r > 0) {
			say(out, "trust when signed does not count: %s (a revocation known now)", why);
			counts = tr_now;
		}
	}
	other = counts == tr_now ? tr_sig : tr_now;
	say(out, "%s (%s): %s", counts == tr_now ? "trust now" : "trust when signed", counts == tr_now ? dnow : date,
	    ksp_trust_result_get_message(counts));
	say_paths(out, counts);
	if (other)
		say(out, "%s (%s): %s", other == tr_now ? "trust now" : "trust when signed", other == tr_now ? dnow : date,
		    ksp_trust_result_get_message(other));
	say(out, "TRUST_%s from the trust %s (policy: trust_at = %s)", trust_word(counts),
	    counts == tr_now ? "now" : "when signed", at_sig ? "signature" : "now");
	status(out, "TRUST_%s 0 pgp", trust_word(counts));
	return 0;
}

/* (Long: the verdict's status lines and text in gpg's order, one exit.) */
static int run_verify(struct opts *o)
{
	struct out out = { .status_fd = o->status_fd, .quiet = o->quiet };
	struct ksp_ctx *ctx = NULL;
	struct ksp_store *store = NULL;
	struct ksp_trust_policy *pol = NULL;
	struct ksp_verify_result *vr = NULL;
	struct ksp_trust_result *tr_now = NULL, *tr_sig = NULL;
	struct setting db = { 0 }, policy = { 0 };
	struct verify_in in = { 0 };
	struct sig_info si;
	char *uid_status = NULL, *uid_term = NULL;
	int status_code = EXIT_ERROR, r, vst;

	in.data_fd = -1;

	if (get_input(o, &out, &in, &si) < 0)
		goto out;
	status(&out, "NEWSIG");

	/* the store and the policy: only where the user named them */
	r = find_setting("KSP_DB", "ksp.db", "KSP_DB", "git config ksp.db", &db);
	if (r == 0)
		r = find_setting("KSP_POLICY", "ksp.policy", "KSP_POLICY", "git config ksp.policy", &policy);
	if (r < 0) {
		status_errsig(&out, &si, 4);
		if (r == -ENOMEM)
			err("out of memory");
		goto out;
	}
	if (db.path == NULL) {
		status_errsig(&out, &si, 9);
		err("no ksp store: set KSP_DB or 'git config --global ksp.db /ABSOLUTE/PATH' to the store the keys were loaded into (ksp wot load); ksp-gpg has no default");
		goto out;
	}
	r = ksp_new(&ctx);
	if (r < 0) {
		status_errsig(&out, &si, 4);
		err("cannot make a ksp context: %s", strerror(-r));
		goto out;
	}
	/* read-only, nothing written beside it (no -shm, -wal, -wot) */
	r = ksp_store_open(ctx, db.path, KSP_STORE_IMMUTABLE, &store);
	if (r < 0) {
		char *e = term_escape(db.path, strlen(db.path));
		status_errsig(&out, &si, 9);
		if (r == -ENOENT && access(db.path, F_OK) < 0)
			err("%s (%s): no ksp store there; set KSP_DB or 'git config ksp.db FILE' to the store the keys were loaded into (ksp wot load)",
			    e ? e : "?", db.from);
		else
			err("%s (%s): cannot open the store: %s", e ? e : "?", db.from,
			    ksp_get_error(ctx) ? ksp_get_error(ctx) : strerror(-r));
		free(e);
		goto out;
	}
	if (policy.path == NULL) {
		status_errsig(&out, &si, 9);
		err("no trust policy: set KSP_POLICY or 'git config ksp.policy FILE' to a policy file (core = FPR lines; see ksp-trust(1))");
		goto out;
	}
	r = ksp_trust_policy_new(ctx, &pol);
	if (r == 0)
		r = ksp_trust_policy_load(pol, policy.path);
	if (r < 0) {
		status_errsig(&out, &si, 9);
		if (ksp_get_error(ctx))
			err("%s (%s)", ksp_get_error(ctx), policy.from);
		else
			err("%s (%s): cannot load the policy: %s", policy.path, policy.from, strerror(-r));
		goto out;
	}

	/* the signature: the one verifier 'ksp verify' uses too */
	if (in.detached && in.data_fd >= 0)
		r = ksp_verify_detached_fd(store, in.sig, in.siglen, in.data_fd, DATA_MAX, in.label, &vr);
	else if (in.detached)
		r = ksp_verify_detached(store, in.sig, in.siglen, in.data ? in.data : (const uint8_t *)"", in.datalen,
					in.label, &vr);
	else
		r = ksp_verify_inline(store, in.sig, in.siglen, in.label, &vr);
	if (r < 0) {
		const char *m = ksp_get_error(ctx);
		status_errsig(&out, &si, r == -EOPNOTSUPP ? 4 : 9);
		err("%s", m ? m : strerror(-r));
		goto out;
	}
	/* the policy's SHA-1 rule on the signature itself */
	ksp_verify_result_apply_policy(vr, pol);
	vst = ksp_verify_result_get_status(vr);
	if (o->output && !in.detached) {
		size_t plen = 0;
		const void *plain = ksp_verify_result_get_plaintext(vr, &plen);
		int fd = strcmp(o->output, "-") == 0 ? STDOUT_FILENO
						     : open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		r = fd < 0 ? -errno : plain ? write_all(fd, plain, plen) : 0;
		if (fd > STDOUT_FILENO && close(fd) < 0 && r == 0)
			r = -errno;
		if (r < 0) {
			char *e = term_escape(o->output, strlen(o->output));
			status_errsig(&out, &si, 4);
			err("%s: cannot write the signed text: %s", e ? e : "?", strerror(-r));
			free(e);
			goto out;
		}
	}
	{
		const char *signer = ksp_verify_result_get_signer(vr);
		const char *signing = ksp_verify_result_get_signing_key(vr);
		const char *issuer = ksp_verify_result_get_issuer(vr);
		const char *uid;
		size_t ulen = 0;
		char *fetched = NULL;
		char keyid[17] = "", date[32], dnow[32], day[32];
		bool good;
		unsigned summary = ksp_verify_result_get_gpgme_summary(vr);
		int64_t created = ksp_verify_result_get_created(vr), now = (int64_t)time(NULL);
		bool at_sig = ksp_trust_policy_get_at_signature(pol);
		const char *sigword;

		if (created == 0)
			created = si.created;
		if (signing)
			sig_info_keyid_of(signing, keyid);
		else if (si.keyid[0])
			snprintf(keyid, sizeof(keyid), "%s", si.keyid);
		else if (issuer)
			sig_info_keyid_of(issuer, keyid);
		uid = ksp_verify_result_get_uid(vr, &ulen);
		if (uid == NULL && signer && ksp_store_get_key_uid(store, signer, &fetched, &ulen) == 0)
			uid = fetched;
		if (uid == NULL && issuer && strlen(issuer) >= 40 &&
		    ksp_store_get_key_uid(store, issuer, &fetched, &ulen) == 0)
			uid = fetched;
		uid_status = status_uid(uid ? uid : "[?]", uid ? ulen : 3);
		uid_term = uid ? term_escape(uid, ulen) : NULL;
		free(fetched);
		if (uid_status == NULL || (uid && uid_term == NULL)) {
			err("out of memory");
			goto out;
		}
		if (signer)
			status(&out, "KEY_CONSIDERED %s 0", signer);
		format_datetime(now, dnow, sizeof(dnow));
		format_datetime(created, date, sizeof(date));
		good = vst == KSP_SIGNATURE_GOOD || vst == KSP_SIGNATURE_KEY_REVOKED || vst == KSP_SIGNATURE_KEY_EXPIRED ||
		       vst == KSP_SIGNATURE_EXPIRED;
		/* both verdicts, before the status: the key's state now is
		 * also what gpg says in EXPKEYSIG / REVKEYSIG */
		if (signer && good) {
			/* the policy's model (paths, gnupg or sequoia) */
			r = ksp_trust_query(store, pol, signer, NULL, NULL, now, &tr_now);
			if (r == 0 && created > 0)
				r = ksp_trust_query(store, pol, signer, NULL, NULL, created, &tr_sig);
			if (r < 0) {
				const char *m = ksp_get_error(ctx);
				status_errsig(&out, &si, 9);
				err("%s: cannot evaluate trust: %s (policy %s from %s)", db.path, m ? m : strerror(-r),
				    policy.path, policy.from);
				goto out;
			}
		}

		switch (vst) {
		case KSP_SIGNATURE_GOOD:
		case KSP_SIGNATURE_KEY_REVOKED:
		case KSP_SIGNATURE_KEY_EXPIRED:
		case KSP_SIGNATURE_EXPIRED: {
			/* the mathematics is right: gpg's word for the key's state now */
			int now_reason = tr_now ? ksp_trust_result_get_reason(tr_now) : -1;

			if (vst == KSP_SIGNATURE_KEY_REVOKED || now_reason == KSP_TRUST_TARGET_REVOKED || (summary & 0x0010))
				sigword = "REVKEYSIG";
			else if (vst == KSP_SIGNATURE_KEY_EXPIRED || now_reason == KSP_TRUST_TARGET_EXPIRED ||
				 (summary & 0x0080))
				sigword = "EXPKEYSIG";
			else if (vst == KSP_SIGNATURE_EXPIRED)
				sigword = "EXPSIG";
			else
				sigword = "GOODSIG";
			status(&out, "%s %s %s", sigword, keyid, uid_status);
			format_date(created, day, sizeof(day));
			status(&out, "VALIDSIG %s %s %lld %lld %d 0 %d %d %02x %s", signing ? signing : signer, day,
			       (long long)created, (long long)si.expires, si.version ? si.version : 4, si.pk_algo,
			       si.hash_algo, si.type, signer);
			/* gpg: 0 for a good signature whatever the key's state
			 * now, 1 for an expired signature */
			status_code = vst == KSP_SIGNATURE_EXPIRED ? EXIT_BAD : EXIT_GOOD;
			break;
		}
		case KSP_SIGNATURE_BAD:
			status(&out, "BADSIG %s %s", keyid[0] ? keyid : "0000000000000000", uid_status);
			status_code = EXIT_BAD;
			break;
		case KSP_SIGNATURE_KEY_UNKNOWN:
			status_errsig(&out, &si, 9);
			status(&out, "NO_PUBKEY %s", keyid[0] ? keyid : "0000000000000000");
			status_code = EXIT_ERROR;
			break;
		default: /* not checked: MD5, SHA-1 by the policy, time conflict, unusable key */
			status_errsig(&out, &si, ksp_verify_result_get_errsig_code(vr) ? ksp_verify_result_get_errsig_code(vr) : 4);
			status_code = EXIT_ERROR;
			break;
		}

		/* the human text: ksp's verdict, then the trust */
		say(&out, "%s: %s", in.label, ksp_verify_result_get_message(vr));
		if (signer) {
			say(&out, "signer: %s%s%s%s", signer, uid_term ? " \"" : "", uid_term ? uid_term : "",
			    uid_term ? "\"" : "");
			if (ksp_verify_result_is_subkey(vr) && signing)
				say(&out, "signing key: %s (subkey)", signing);
		}
		if (tr_now && report_trust(&out, store, signer, tr_now, tr_sig, at_sig, dnow, date) < 0) {
			status_code = EXIT_ERROR;
			goto out;
		}
		say(&out, "store: %s (%s); policy: %s (%s)", db.path, db.from, policy.path, policy.from);
	}
out:
	ksp_trust_result_free(tr_now);
	ksp_trust_result_free(tr_sig);
	ksp_verify_result_free(vr);
	ksp_trust_policy_free(pol);
	ksp_store_unref(store);
	ksp_unref(ctx);
	verify_in_release(&in);
	free(uid_status);
	free(uid_term);
	free(db.path);
	free(policy.path);
	return status_code;
}

static bool is_verify(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--verify") == 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	struct opts o;
	int r;

	if (argc == 2 && strcmp(argv[1], "--ksp-gpg-version") == 0) {
		printf("ksp-gpg (ksp) %s\n", VERSION);
		return 0;
	}
	if (!is_verify(argc, argv))
		return exec_real_gpg(argv);
	r = parse_verify_args(argc, argv, &o);
	if (r == 0)
		r = run_verify(&o);
	free(o.files);
	if (fflush(stderr) != 0 && r == 0)
		r = EXIT_ERROR;
	return r;
}
