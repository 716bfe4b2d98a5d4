// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * git-config.c: git's configuration files read as git reads them (see
 * git-config.h; git-config(1), "CONFIGURATION FILE", "Includes"):
 *
 *  - files, in order (a later value wins): $GIT_CONFIG_SYSTEM or
 *    /etc/gitconfig (not with GIT_CONFIG_NOSYSTEM); $GIT_CONFIG_GLOBAL, or
 *    $XDG_CONFIG_HOME/git/config (~/.config/git/config) then ~/.gitconfig;
 *    the repository's config (its common directory's, for a linked work
 *    tree) and, with extensions.worktreeConfig, config.worktree; then the
 *    values of 'git -c' (GIT_CONFIG_PARAMETERS) and GIT_CONFIG_COUNT;
 *  - the repository: $GIT_DIR, else the first .git directory or "gitdir:"
 *    file up from the current directory (or the current directory when it
 *    is a bare repository).  As git does since 2.35.2 (safe.directory),
 *    a repository owned by another user is not read unless the system or
 *    global safe.directory names it or is "*";
 *  - syntax: [section], [section "subsection"], [section.subsection];
 *    "key = value", "key" alone (true); '#' and ';' comments; quotes,
 *    the escapes \" \\ \n \t \b, a backslash before the end of a line;
 *  - include.path and includeIf "gitdir:" / "gitdir/i:" .path (a relative
 *    path from the including file's directory, ~/ from HOME; "**", '*'
 *    and '?' in the pattern as git's wildmatch; 10 levels at most).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "gpg/git-config.h"
#include "shared/strbuf.h"
#include "shared/util.h"

#define CONFIG_MAX ((size_t)1 << 20)

static int tolower_ascii(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}
#define INCLUDE_DEPTH 10

struct gc {
	const char *want; /* the key, section and name lower case */
	char *value;      /* the last value met */
	bool found;
	const char *gitdir; /* the repository's, real path; NULL */
	bool worktree_config;  /* extensions.worktreeConfig */
	bool safe;             /* safe.directory allows the repository */
	const char *repo_top;  /* for safe.directory */
	bool in_repo_pass;     /* reading the repository's own files */
	int err;               /* -ENOMEM */
};

static char *home_path(const char *rest)
{
	const char *home = getenv("HOME");
	char *p;

	if (home == NULL || home[0] != '/' || asprintf(&p, "%s/%s", home, rest) < 0)
		return NULL;
	return p;
}

/* ~/x from HOME; relative to @dir (may be NULL: the current directory) */
static char *expand_path(const char *v, const char *dir)
{
	char *p;

	if (v[0] == '~' && v[1] == '/')
		return home_path(v + 2);
	if (v[0] == '/' || dir == NULL)
		return strdup(v);
	return asprintf(&p, "%s/%s", dir, v) < 0 ? NULL : p;
}

/* git's wildmatch for gitdir patterns: "**" any characters, '*' and '?'
 * any but '/', the rest as it is (@icase: without case). */
static bool wild_at(const char *start, const char *p, const char *s, bool icase)
{
	for (; *p; p++, s++) {
		if (p[0] == '*' && p[1] == '*') {
			const char *star = p;

			while (*p == '*')
				p++;
			/* "**" then "/" after a "/" (or at the start) also
			 * matches no directory at all */
			if (*p == '/' && (star == start || star[-1] == '/') && wild_at(start, p + 1, s, icase))
				return true;
			for (;; s++) {
				if (wild_at(start, p, s, icase))
					return true;
				if (*s == '\0')
					return false;
			}
		}
		if (*p == '*') {
			for (;; s++) {
				if (wild_at(start, p + 1, s, icase))
					return true;
				if (*s == '\0' || *s == '/')
					return false;
			}
		}
		if (*s == '\0')
			return false;
		if (*p == '?') {
			if (*s == '/')
				return false;
		} else if (icase ? tolower_ascii(*p) != tolower_ascii(*s) : *p != *s) {
			return false;
		}
	}
	return *s == '\0';
}

/* git's wildmatch for gitdir patterns: "**" any characters, '*' and '?'
 * any but '/', the rest as it is (@icase: without case). */
static bool wild(const char *p, const char *s, bool icase)
{
	return wild_at(p, p, s, icase);
}

static bool gitdir_matches(const struct gc *g, const char *cond, bool icase, const char *dir)
{
	char *pat, *full;
	bool m;
	size_t n;

	if (g->gitdir == NULL)
		return false;
	if (cond[0] == '.' && cond[1] == '/')
		pat = expand_path(cond + 2, dir);
	else if ((cond[0] == '~' && cond[1] == '/') || cond[0] == '/')
		pat = expand_path(cond, NULL);
	else if (asprintf(&pat, "**/%s", cond) < 0)
		pat = NULL;
	if (pat == NULL)
		return false;
	n = strlen(pat);
	if (n && pat[n - 1] == '/') {
		if (asprintf(&full, "%s**", pat) < 0)
			full = NULL;
	} else {
		full = strdup(pat);
	}
	free(pat);
	if (full == NULL)
		return false;
	m = wild(full, g->gitdir, icase);
	free(full);
	return m;
}

static int read_file(struct gc *g, const char *path, int depth);

/* One "name = value" of section @sec (lower case) and subsection @sub
 * (NULL: none), in the file at @path. */
static void found(struct gc *g, const char *sec, const char *sub, const char *name, const char *val,
		  const char *path, int depth)
{
	struct strbuf k;

	strbuf_init(&k);
	strbuf_addstr(&k, sec);
	if (sub) {
		strbuf_addch(&k, '.');
		strbuf_addstr(&k, sub);
	}
	strbuf_addch(&k, '.');
	strbuf_addstr(&k, name);
	if (!strbuf_ok(&k)) {
		g->err = -ENOMEM;
		return;
	}
	if (strcmp(k.buf, g->want) == 0) {
		free(g->value);
		g->value = strdup(val ? val : "");
		g->found = true;
		if (g->value == NULL)
			g->err = -ENOMEM;
	}
	if (strcmp(k.buf, "extensions.worktreeconfig") == 0)
		g->worktree_config = val == NULL || !strcasecmp(val, "true") || !strcasecmp(val, "yes") ||
				     !strcasecmp(val, "on") || !strcmp(val, "1");
	if (strcmp(k.buf, "safe.directory") == 0 && !g->in_repo_pass && val)
		g->safe = strcmp(val, "*") == 0 || (g->repo_top && strcmp(val, g->repo_top) == 0) ? true
			  : val[0] == '\0'						    ? false
											    : g->safe;
	if (strcmp(name, "path") == 0 && val && *val && depth < INCLUDE_DEPTH) {
		bool inc = strcmp(sec, "include") == 0 && sub == NULL;
		bool incif = strcmp(sec, "includeif") == 0 && sub != NULL;
		char *dir = strdup(path), *slash, *file;

		if (dir == NULL) {
			g->err = -ENOMEM;
		} else {
			slash = strrchr(dir, '/');
			if (slash)
				*slash = '\0';
			if (incif && strncmp(sub, "gitdir:", 7) == 0)
				inc = gitdir_matches(g, sub + 7, false, slash ? dir : NULL);
			else if (incif && strncmp(sub, "gitdir/i:", 9) == 0)
				inc = gitdir_matches(g, sub + 9, true, slash ? dir : NULL);
			if (inc) {
				file = expand_path(val, slash ? dir : NULL);
				if (file)
					(void)read_file(g, file, depth + 1);
				free(file);
			}
			free(dir);
		}
	}
	strbuf_release(&k);
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* The value after '=' up to the end of its (continued) line: *pp moves
 * past it.  NULL on a bad escape or quote (git: a bad config line). */
static char *parse_value(const char **pp, const char *end)
{
	const char *p = *pp;
	struct strbuf v;
	size_t spaces = 0;
	bool quote = false, comment = false;

	strbuf_init(&v);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end; p++) {
		char c = *p;

		if (c == '\n') {
			if (quote)
				goto bad;
			p++;
			break;
		}
		if (comment)
			continue;
		if ((c == ' ' || c == '\t' || c == '\r') && !quote) {
			if (v.len)
				spaces++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; spaces; spaces--)
			strbuf_addch(&v, ' ');
		if (c == '\\') {
			if (++p >= end)
				goto bad;
			switch (*p) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				c = *p;
				break;
			default:
				goto bad;
			}
			strbuf_addch(&v, c);
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		strbuf_addch(&v, c);
	}
	if (quote)
		goto bad;
	*pp = p;
	strbuf_addstr(&v, "");
	if (!strbuf_ok(&v))
		return NULL;
	return strbuf_steal(&v);
bad:
	strbuf_release(&v);
	return NULL;
}

/* Parses @buf; stops at the first bad line, keeping what came before
 * (git refuses the whole file: then nothing is found in it either way,
 * as the values before it are rare; documented in ksp-gpg(1)). */
static void parse(struct gc *g, const char *buf, size_t len, const char *path, int depth)
{
	const char *p = buf, *end = buf + len;
	char sec[128] = "", *sub = NULL;
	bool have_sec = false;

	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end && g->err == 0) {
		char c = *p;

		if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
			p++;
			continue;
		}
		if (c == '#' || c == ';') {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
			continue;
		}
		if (c == '[') { /* [section], [section "sub"], [section.sub] */
			size_t n = 0;

			free(sub);
			sub = NULL;
			have_sec = false;
			for (p++; p < end && (is_key_char(*p) || *p == '.') && n < sizeof(sec) - 1; p++)
				sec[n++] = (char)tolower_ascii(*p);
			sec[n] = '\0';
			if (n == 0 || p >= end)
				break;
			if (*p == ' ' || *p == '\t') {
				struct strbuf s;

				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				if (p >= end || *p != '"' || strchr(sec, '.'))
					break;
				strbuf_init(&s);
				for (p++; p < end && *p != '"' && *p != '\n'; p++) {
					if (*p == '\\' && p + 1 < end && p[1] != '\n')
						p++;
					strbuf_addch(&s, *p);
				}
				if (p >= end || *p != '"' || p + 1 >= end || p[1] != ']' || !strbuf_ok(&s)) {
					strbuf_release(&s);
					break;
				}
				strbuf_addstr(&s, "");
				sub = strbuf_steal(&s);
				p += 2;
			} else if (*p == ']') {
				char *dot = strchr(sec, '.');
				p++;
				if (dot) { /* the old form: lower case, as git */
					*dot = '\0';
					sub = strdup(dot + 1);
					if (sub == NULL) {
						g->err = -ENOMEM;
						break;
					}
				}
			} else {
				break;
			}
			have_sec = true;
			continue;
		}
		if (!have_sec || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			break;
		{
			char name[128], *val = NULL;
			size_t n = 0;

			for (; p < end && is_key_char(*p) && n < sizeof(name) - 1; p++)
				name[n++] = (char)tolower_ascii(*p);
			name[n] = '\0';
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
				p++;
			if (p < end && *p == '=') {
				p++;
				val = parse_value(&p, end);
				if (val == NULL)
					break;
				found(g, sec, sub, name, val, path, depth);
				free(val);
			} else if (p >= end || *p == '\n' || *p == '#' || *p == ';') {
				const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
				p = nl ? nl + 1 : end;
				found(g, sec, sub, name, NULL, path, depth);
			} else {
				break;
			}
		}
	}
	free(sub);
}

static int read_file(struct gc *g, const char *path, int depth)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 0;
	r = read_fd_all(fd, CONFIG_MAX, &buf, &len);
	close(fd);
	if (r == -ENOMEM)
		return g->err = r;
	if (r < 0)
		return 0;
	parse(g, (const char *)buf, len, path, depth);
	free(buf);
	return g->err;
}

/* 'git -c': GIT_CONFIG_PARAMETERS holds 'key'='value' items (shell
 * quoted, separated by spaces; the older form 'key=value'). */
static void read_parameters(struct gc *g)
{
	const char *e = getenv("GIT_CONFIG_PARAMETERS");
	const char *cnt = getenv("GIT_CONFIG_COUNT");

	while (e && *e && g->err == 0) {
		struct strbuf k, v;
		struct strbuf *cur = &k;
		bool have_eq = false, any = false;

		strbuf_init(&k);
		strbuf_init(&v);
		while (*e == ' ')
			e++;
		while (*e && *e != ' ') {
			if (*e == '\'') {
				for (e++; *e && *e != '\''; e++)
					strbuf_addch(cur, *e);
				if (*e)
					e++;
				any = true;
			} else if (*e == '\\' && e[1]) {
				strbuf_addch(cur, e[1]);
				e += 2;
			} else if (*e == '=' && cur == &k) {
				cur = &v;
				have_eq = true;
				e++;
			} else {
				strbuf_addch(cur, *e++);
			}
		}
		if (any && strbuf_ok(&k) && strbuf_ok(&v)) {
			char *kk, *eq = NULL;
			strbuf_addstr(&k, "");
			strbuf_addstr(&v, "");
			kk = k.buf;
			if (!have_eq && kk && (eq = strchr(kk, '=')) != NULL) /* 'key=value' */
				*eq = '\0';
			if (kk) {
				char *last = strrchr(kk, '.'), *first = strchr(kk, '.');
				for (char *c = kk; c < first; c++)
					*c = (char)tolower_ascii(*c);
				for (char *c = last; c && *c; c++)
					*c = (char)tolower_ascii(*c);
				if (strcmp(kk, g->want) == 0) {
					free(g->value);
					g->value = strdup(have_eq ? (v.buf ? v.buf : "") : eq ? eq + 1 : "");
					g->found = true;
					if (g->value == NULL)
						g->err = -ENOMEM;
				}
			}
		}
		strbuf_release(&k);
		strbuf_release(&v);
	}
	if (cnt && *cnt) {
		long n = strtol(cnt, NULL, 10);
		for (long i = 0; i < n && i < 1000 && g->err == 0; i++) {
			char kn[40], vn[40];
			const char *kv, *vv;
			snprintf(kn, sizeof(kn), "GIT_CONFIG_KEY_%ld", i);
			snprintf(vn, sizeof(vn), "GIT_CONFIG_VALUE_%ld", i);
			kv = getenv(kn);
			vv = getenv(vn);
			if (kv && vv && strcasecmp(kv, g->want) == 0) {
				free(g->value);
				g->value = strdup(vv);
				g->found = true;
				if (g->value == NULL)
					g->err = -ENOMEM;
			}
		}
	}
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The repository's git directory (real path) and its work tree's top, or
 * NULL: $GIT_DIR, else up from the current directory. */
static char *find_gitdir(char **top)
{
	const char *env = getenv("GIT_DIR");
	char cwd[PATH_MAX], buf[PATH_MAX + 16];

	*top = NULL;
	if (env && *env) {
		*top = getcwd(cwd, sizeof(cwd)) ? strdup(cwd) : NULL;
		return realpath(env, NULL);
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	for (;;) {
		struct stat st;
		snprintf(buf, sizeof(buf), "%s/.git", strcmp(cwd, "/") ? cwd : "");
		if (lstat(buf, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				*top = strdup(cwd);
				return realpath(buf, NULL);
			}
			if (S_ISREG(st.st_mode)) { /* "gitdir: PATH" */
				uint8_t *f = NULL;
				size_t n = 0;
				char *d = NULL;
				if (read_file_all(buf, 4096, &f, &n) == 0 && n > 8 && memcmp(f, "gitdir: ", 8) == 0) {
					char *path;
					f[strcspn((char *)f, "\r\n")] = '\0';
					path = expand_path((char *)f + 8, cwd);
					d = path ? realpath(path, NULL) : NULL;
					free(path);
				}
				free(f);
				if (d)
					*top = strdup(cwd);
				return d;
			}
		}
		/* a bare repository: HEAD, objects/, refs/ here */
		snprintf(buf, sizeof(buf), "%s/objects", cwd);
		if (is_dir(buf)) {
			snprintf(buf, sizeof(buf), "%s/refs", cwd);
			if (is_dir(buf)) {
				snprintf(buf, sizeof(buf), "%s/HEAD", cwd);
				if (access(buf, F_OK) == 0) {
					*top = strdup(cwd);
					return realpath(cwd, NULL);
				}
			}
		}
		if (strcmp(cwd, "/") == 0)
			return NULL;
		char *slash = strrchr(cwd, '/');
		if (slash == cwd)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int git_config_get(const char *key, char **ret)
{
	struct gc g = { 0 };
	char *want = strdup(key), *gitdir, *top = NULL, *p;
	const char *e;
	struct stat st;

	*ret = NULL;
	if (want == NULL)
		return -ENOMEM;
	{ /* section and name without case; a subsection as it is */
		char *first = strchr(want, '.'), *last = strrchr(want, '.');
		for (char *c = want; *c && c < (first ? first : want + strlen(want)); c++)
			*c = (char)tolower_ascii(*c);
		for (char *c = last; c && *c; c++)
			*c = (char)tolower_ascii(*c);
	}
	g.want = want;
	gitdir = find_gitdir(&top);
	g.gitdir = gitdir;
	g.repo_top = top;
	/* system */
	e = getenv("GIT_CONFIG_NOSYSTEM");
	if (!(e && *e && strcmp(e, "0") && strcasecmp(e, "false"))) {
		e = getenv("GIT_CONFIG_SYSTEM");
		read_file(&g, e && *e ? e : "/etc/gitconfig", 0);
	}
	/* global */
	e = getenv("GIT_CONFIG_GLOBAL");
	if (e && *e) {
		read_file(&g, e, 0);
	} else {
		const char *xdg = getenv("XDG_CONFIG_HOME");
		if (xdg && *xdg) {
			if (asprintf(&p, "%s/git/config", xdg) >= 0) {
				read_file(&g, p, 0);
				free(p);
			}
		} else if ((p = home_path(".config/git/config")) != NULL) {
			read_file(&g, p, 0);
			free(p);
		}
		if ((p = home_path(".gitconfig")) != NULL) {
			read_file(&g, p, 0);
			free(p);
		}
	}
	/* the repository's: only one of this user's (git's safe.directory) */
	if (gitdir && g.err == 0 && stat(gitdir, &st) == 0 && (st.st_uid == geteuid() || g.safe)) {
		char *common = NULL;
		uint8_t *f = NULL;
		size_t n = 0;

		g.in_repo_pass = true;
		if (asprintf(&p, "%s/commondir", gitdir) >= 0) {
			if (read_file_all(p, 4096, &f, &n) == 0 && n) {
				f[strcspn((char *)f, "\r\n")] = '\0';
				common = expand_path((char *)f, gitdir);
			}
			free(f);
			free(p);
		}
		if (asprintf(&p, "%s/config", common ? common : gitdir) >= 0) {
			read_file(&g, p, 0);
			free(p);
		}
		if (g.worktree_config && asprintf(&p, "%s/config.worktree", gitdir) >= 0) {
			read_file(&g, p, 0);
			free(p);
		}
		free(common);
	}
	if (g.err == 0)
		read_parameters(&g);
	free(gitdir);
	free(top);
	free(want);
	if (g.err) {
		free(g.value);
		return g.err;
	}
	if (!g.found)
		return 1;
	*ret = g.value;
	return 0;
}
