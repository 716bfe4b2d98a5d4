// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keys fetched by fingerprint from a keyserver ('party add --keyserver
 * URL'): gpg's dirmngr, in a private GnuPG home whose dirmngr.conf names
 * that keyserver and nothing else, receives them (gpgme_op_receive_keys),
 * and they are exported from there as a key file, to be checked as any
 * other.  The user's own GnuPG home is never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gpgme.h>

#include "lib/libksp-private.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

/* hkp://, hkps://, http://, https://, ldap:// and printable ASCII only (the
 * URL goes into dirmngr.conf: no line break, no space) */
static bool keyserver_url_ok(const char *url)
{
	static const char *const schemes[] = { "hkp://", "hkps://", "http://", "https://" };
	bool scheme = false;

	for (size_t i = 0; i < ARRAY_SIZE(schemes); i++)
		scheme |= strncasecmp(url, schemes[i], strlen(schemes[i])) == 0;
	if (!scheme || strlen(url) > 512)
		return false;
	for (const char *p = url; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '#')
			return false;
	return true;
}

static int write_conf(struct ksp_ctx *ctx, const char *home, const char *url)
{
	struct strbuf path, text;
	int fd, r;

	strbuf_init(&path);
	strbuf_init(&text);
	strbuf_addf(&path, "%s/dirmngr.conf", home);
	strbuf_addf(&text, "keyserver %s\n", url);
	if (!strbuf_ok(&path) || !strbuf_ok(&text)) {
		r = -ENOMEM;
		goto out;
	}
	fd = open(path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
	} else {
		r = write_all(fd, text.buf, text.len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
	}
	if (r < 0)
		ksp_set_error(ctx, "%s: cannot write: %s; set TMPDIR to a writable directory", path.buf, strerror(-r));
out:
	strbuf_release(&path);
	strbuf_release(&text);
	return r;
}

static void report(struct ksp_party_fetch *f, const char *fpr, unsigned int problem, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void report(struct ksp_party_fetch *f, const char *fpr, unsigned int problem, const char *fmt, ...)
{
	struct ksp_key_check chk = { .problems = problem };
	va_list ap;

	if (f->cb == NULL)
		return;
	snprintf(chk.fpr, sizeof(chk.fpr), "%s", fpr);
	va_start(ap, fmt);
	vsnprintf(chk.message, sizeof(chk.message), fmt, ap);
	va_end(ap);
	f->cb(f->cb_data, &chk);
}

/* This function's length is the receive, the export and the report of
 * each key asked for, in one private home. */
int ksp_party_keyserver_fetch(struct ksp_party_fetch *f, const char (*fprs)[65], size_t n, char **ret, size_t *ret_len)
{
	struct ksp_ctx *ctx = f->party->ctx;
	struct ksp_gpghome *home = NULL;
	gpgme_ctx_t g = NULL;
	gpgme_data_t out = NULL;
	gpgme_error_t e;
	const char **pat = NULL;
	bool *got = NULL;
	size_t n_got = 0;
	int r;

	*ret = NULL;
	*ret_len = 0;
	if (!keyserver_url_ok(f->url)) {
		ksp_set_error(ctx, "'%s': not a keyserver URL; give hkp://HOST[:PORT] or hkps://HOST (printable, no spaces)", f->url);
		return -EINVAL;
	}
	pat = calloc(n + 1, sizeof(*pat));
	got = calloc(n + 1, sizeof(*got));
	if (pat == NULL || got == NULL) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		pat[i] = fprs[i];
	r = ksp_gpghome_new(ctx, &home);
	if (r < 0)
		goto out;
	r = write_conf(ctx, ksp_gpghome_path(home), f->url);
	if (r < 0)
		goto out;
	e = gpgme_new(&g);
	if (!e)
		e = gpgme_set_protocol(g, GPGME_PROTOCOL_OpenPGP);
	if (!e)
		e = gpgme_ctx_set_engine_info(g, GPGME_PROTOCOL_OpenPGP, NULL, ksp_gpghome_path(home));
	if (e) {
		r = ksp_errno_from_gpgme(ctx, e, "gpgme");
		goto out;
	}
	gpgme_set_offline(g, 0);
	e = gpgme_op_receive_keys(g, pat);
	gpgme_import_result_t res = gpgme_op_import_result(g);
	if (e && (res == NULL || res->considered == 0)) {
		/* nothing came: the keyserver unreachable, or it has none of them */
		for (size_t i = 0; i < n; i++)
			report(f, fprs[i], KSP_CHECK_NO_KEY, "refused: not received from the keyserver (%s); ask the owner for the key file",
			       gpgme_strerror(e));
		r = 0;
		goto out;
	}
	for (gpgme_import_status_t s = res ? res->imports : NULL; s; s = s->next)
		for (size_t i = 0; i < n; i++)
			if (s->fpr && s->result == 0 && strcasecmp(s->fpr, fprs[i]) == 0 && !got[i]) {
				got[i] = true;
				n_got++;
			}
	for (size_t i = 0; i < n; i++) {
		if (got[i])
			continue;
		if (res && res->no_user_id > 0)
			report(f, fprs[i], KSP_CHECK_NO_USER_ID,
			       "refused: the keyserver %s has this key without a user ID (as keys.openpgp.org serves a key whose owner verified no address): ask the owner for the key file",
			       f->url);
		else
			report(f, fprs[i], KSP_CHECK_NO_KEY, "refused: the keyserver %s does not have this key; ask the owner for the key file",
			       f->url);
	}
	if (n_got == 0) {
		r = 0;
		goto out;
	}
	e = gpgme_data_new(&out);
	if (!e)
		e = gpgme_op_export_ext(g, pat, 0, out);
	if (e) {
		r = ksp_errno_from_gpgme(ctx, e, "export");
		ksp_set_error(ctx, "cannot export the keys received from %s from the private GnuPG home", f->url);
		goto out;
	}
	*ret = gpgme_data_release_and_get_mem(out, ret_len);
	out = NULL;
	r = *ret ? (int)n_got : -ENOMEM;
out:
	if (out)
		gpgme_data_release(out);
	if (g)
		gpgme_release(g);
	ksp_gpghome_free(home); /* stops its dirmngr too */
	free(pat);
	free(got);
	return r;
}
