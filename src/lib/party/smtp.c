// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 'party send --smtp URL': a message of the outbox handed to an SMTP
 * server through libcurl (smtp:// with STARTTLS, smtps://), so that a
 * refused recipient is known at once, with the server's reply, instead of
 * a bounce later.  The envelope is the message's own header: From: the
 * sender, To: and Bcc: the recipients; the Bcc: field is not sent.
 * The SMTP module, ksp-smtp.so (smtp.h), with smtp-module.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "lib/libksp-private.h"
#include "lib/party/smtp.h"
#include "shared/strbuf.h"
#include "shared/util.h"

struct ksp_smtp {
	CURL *curl;
	char *url;
	char *host;
	char *password;
	bool tls_required;
};

/* the host of @url (between "://" and the port, path or end), userinfo skipped */
static char *url_host(const char *url)
{
	const char *p = strstr(url, "://"), *e, *at;
	p = p ? p + 3 : url;
	e = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(e - p));
	if (at)
		p = at + 1;
	if (*p == '[') {
		const char *b = memchr(p, ']', (size_t)(e - p));
		if (b)
			return strndup(p + 1, (size_t)(b - p - 1));
	}
	return strndup(p, strcspn(p, ":/?#"));
}

static bool loopback(const char *host)
{
	return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 || strcmp(host, "::1") == 0;
}

int ksp_smtp_new(struct ksp_ctx *ctx, ksp_module_error_fn err, const char *url, const char *password,
		 struct ksp_smtp **ret)
{
	struct ksp_smtp *s;
	const char *rest;
	bool smtps;

	smtps = strncasecmp(url, "smtps://", 8) == 0;
	if (!smtps && strncasecmp(url, "smtp://", 7) != 0) {
		err(ctx, "'%s': not an SMTP URL; give smtp://HOST[:PORT] (STARTTLS) or smtps://HOST[:PORT]", url);
		return -EINVAL;
	}
	rest = url + (smtps ? 8 : 7);
	const char *at = memchr(rest, '@', strcspn(rest, "/?#"));
	if (at && memchr(rest, ':', (size_t)(at - rest))) {
		err(ctx, "the SMTP URL holds a password: give only the user (smtp://USER@HOST), the password in a file (--smtp-password-file) or in KSP_SMTP_PASSWORD");
		return -EINVAL;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->url = strdup(url);
	s->host = url_host(url);
	s->password = password ? strdup(password) : NULL;
	s->curl = curl_easy_init();
	if (s->url == NULL || s->host == NULL || (password && s->password == NULL) || s->curl == NULL) {
		ksp_smtp_free(s);
		return -ENOMEM;
	}
	if (s->host[0] == '\0') {
		err(ctx, "'%s': no host in the SMTP URL", url);
		ksp_smtp_free(s);
		return -EINVAL;
	}
	/* smtp://: STARTTLS, required except to this machine itself */
	s->tls_required = smtps || !loopback(s->host);
	*ret = s;
	return 0;
}

void ksp_smtp_free(struct ksp_smtp *s)
{
	if (s == NULL)
		return;
	if (s->curl)
		curl_easy_cleanup(s->curl);
	if (s->password) {
		explicit_bzero(s->password, strlen(s->password));
		free(s->password);
	}
	free(s->url);
	free(s->host);
	free(s);
}

const char *ksp_smtp_host(const struct ksp_smtp *s)
{
	return s->host;
}

/* The address in a header value: the last <...>, else the value trimmed. */
static char *header_address(const char *v, size_t n)
{
	const char *lt = NULL, *gt;
	for (size_t i = 0; i < n; i++)
		if (v[i] == '<')
			lt = v + i;
	if (lt && (gt = memchr(lt, '>', (size_t)(v + n - lt))) != NULL)
		return strndup(lt + 1, (size_t)(gt - lt - 1));
	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	return strndup(v, n);
}

struct envelope {
	char *from;
	struct curl_slist *rcpt;
	struct strbuf data; /* the message with CRLF line ends, Bcc: left out */
	size_t off;
	bool oom;
};

static bool is_field(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);
	return len > n && strncasecmp(line, name, n) == 0 && line[n] == ':';
}

static void add_rcpt(struct envelope *e, const char *v, size_t n)
{
	char *a = header_address(v, n);
	struct curl_slist *l;
	if (a == NULL || a[0] == '\0') {
		e->oom |= a == NULL;
		free(a);
		return;
	}
	l = curl_slist_append(e->rcpt, a);
	free(a);
	if (l == NULL)
		e->oom = true;
	else
		e->rcpt = l;
}

static void envelope_read(struct envelope *e, const char *p, size_t len)
{
	bool head = true, skip = false;
	size_t i = 0;

	strbuf_init(&e->data);
	while (i < len) {
		const char *nl = memchr(p + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (p + i)) : len - i, ll = l;
		const char *line = p + i;
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (head && ll == 0)
			head = false;
		if (head && (line[0] == ' ' || line[0] == '\t')) {
			/* a folded line belongs to the field before it */
		} else if (head) {
			skip = is_field(line, ll, "Bcc");
			if (skip)
				add_rcpt(e, line + 4, ll - 4);
			else if (is_field(line, ll, "To") || is_field(line, ll, "Cc"))
				add_rcpt(e, line + 3, ll - 3);
			else if (is_field(line, ll, "From") && e->from == NULL)
				e->from = header_address(line + 5, ll - 5);
		}
		if (!(head && skip)) {
			strbuf_add(&e->data, line, ll);
			strbuf_addstr(&e->data, "\r\n");
		}
		i += l + (nl ? 1 : 0);
	}
	if (!strbuf_ok(&e->data))
		e->oom = true;
}

static void envelope_clear(struct envelope *e)
{
	free(e->from);
	curl_slist_free_all(e->rcpt);
	strbuf_release(&e->data);
}

static size_t read_cb(char *buf, size_t size, size_t nitems, void *data)
{
	struct envelope *e = data;
	size_t n = size * nitems, left = e->data.len - e->off;
	if (n > left)
		n = left;
	memcpy(buf, e->data.buf + e->off, n);
	e->off += n;
	return n;
}

/* the server's replies: the last refusal (4xx, 5xx), else the last reply */
struct replies {
	char last[200];
	char refusal[200];
};

static void keep_line(char *dst, size_t size, const char *p, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < size; i++) {
		if (p[i] == '\r' || p[i] == '\n')
			break;
		dst[o++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	}
	dst[o] = '\0';
}

static int debug_cb(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
	struct replies *rp = ud;
	(void)h;
	if (type != CURLINFO_HEADER_IN || size == 0)
		return 0;
	keep_line(rp->last, sizeof(rp->last), data, size);
	if (data[0] == '4' || data[0] == '5')
		snprintf(rp->refusal, sizeof(rp->refusal), "%s", rp->last);
	return 0;
}

int ksp_smtp_send(struct ksp_smtp *s, const void *msg, size_t len, char *why, size_t whylen)
{
	struct envelope e = { 0 };
	struct replies rp = { "", "" };
	char err[CURL_ERROR_SIZE] = "";
	CURLcode rc;
	int r = 0;

	envelope_read(&e, msg, len);
	if (e.oom) {
		envelope_clear(&e);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (e.from == NULL || e.from[0] == '\0' || e.rcpt == NULL) {
		snprintf(why, whylen, "the message has no %s header: SMTP needs it for the envelope; mail it yourself",
			 e.rcpt == NULL ? "To:" : "From:");
		envelope_clear(&e);
		return -EBADMSG;
	}
	CURL *c = s->curl;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, s->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_USE_SSL, (long)(s->tls_required ? CURLUSESSL_ALL : CURLUSESSL_TRY));
	if (s->password)
		curl_easy_setopt(c, CURLOPT_PASSWORD, s->password);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, e.from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, e.rcpt);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &e);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)e.data.len);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, debug_cb);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, &rp);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (rp.refusal[0])
			snprintf(why, whylen, "%s refused it: %s", s->host, rp.refusal);
		else
			snprintf(why, whylen, "%s: %s", s->host, err[0] ? err : curl_easy_strerror(rc));
		r = rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : 1;
	} else {
		snprintf(why, whylen, "accepted by %s", s->host);
	}
	envelope_clear(&e);
	return r;
}
