// SPDX-License-Identifier: LGPL-2.1-or-later
/* Collecting keys at scale: a registration CSV (name, e-mail, fingerprint)
 * matched against keyrings and key files.  The keys the rows name are cut
 * out of the files (with the native reader: only those, not the rest of a
 * keyring) and checked and added as 'party add' does, all in one
 * transaction; the rows whose key is in no file are reported with the
 * person to ask. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpgme.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"
#include "lib/party/party-private.h"
#include "shared/strbuf.h"
#include "shared/util.h"

struct ksp_csv_row {
	size_t line;
	int status;
	char *name, *email;
	char fpr[65];
	char raw_fpr[80];
	size_t other_line; /* KSP_CSV_DUPLICATE: the row it repeats */
	char message[600];
};

KSP_EXPORT size_t ksp_csv_row_get_line(const struct ksp_csv_row *r)
{
	return r ? r->line : 0;
}

KSP_EXPORT int ksp_csv_row_get_status(const struct ksp_csv_row *r)
{
	return r ? r->status : -EINVAL;
}

KSP_EXPORT const char *ksp_csv_row_get_name(const struct ksp_csv_row *r)
{
	return r ? r->name : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_email(const struct ksp_csv_row *r)
{
	return r ? r->email : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_fingerprint(const struct ksp_csv_row *r)
{
	return r && r->fpr[0] ? r->fpr : NULL;
}

KSP_EXPORT const char *ksp_csv_row_get_message(const struct ksp_csv_row *r)
{
	return r ? r->message : NULL;
}

/* One CSV record from @p (RFC 4180: "quoted, with "" inside"; a quoted
 * field may hold commas, not line ends here).  Fields are malloc'ed into
 * @f (up to @max); returns the number of fields, -ENOMEM, or -EBADMSG. */
static int split_record(const char *p, size_t len, char **f, int max)
{
	int n = 0;
	size_t i = 0;

	for (;;) {
		struct strbuf sb;
		strbuf_init(&sb);
		while (i < len && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i < len && p[i] == '"') {
			i++;
			for (;;) {
				if (i >= len) {
					strbuf_release(&sb);
					return -EBADMSG;
				}
				if (p[i] == '"') {
					if (i + 1 < len && p[i + 1] == '"') {
						strbuf_addch(&sb, '"');
						i += 2;
						continue;
					}
					i++;
					break;
				}
				strbuf_addch(&sb, p[i++]);
			}
			while (i < len && (p[i] == ' ' || p[i] == '\t'))
				i++;
			if (i < len && p[i] != ',') {
				strbuf_release(&sb);
				return -EBADMSG;
			}
		} else {
			size_t s = i;
			while (i < len && p[i] != ',')
				i++;
			size_t e = i;
			while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t'))
				e--;
			strbuf_add(&sb, p + s, e - s);
		}
		strbuf_addch(&sb, '\0');
		if (!strbuf_ok(&sb)) {
			strbuf_release(&sb);
			return -ENOMEM;
		}
		if (n < max)
			f[n] = strbuf_steal(&sb);
		else
			strbuf_release(&sb);
		n++;
		if (i >= len)
			break;
		i++; /* the comma */
	}
	return n;
}

/* Copy of a CSV field for messages: printable ASCII kept, other bytes as
 * '?', at most 80 characters (the CSV is the organizer's, the names in it
 * the registrants'). */
static void plain(const char *in, char *out, size_t size)
{
	size_t o = 0;

	for (; in && *in && o + 1 < size && o < 80; in++) {
		unsigned char c = (unsigned char)*in;
		if (c >= 0x80) {
			/* UTF-8: keep whole sequences of printable characters */
			out[o++] = (char)c;
			continue;
		}
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[o] = '\0';
}

struct found {
	char fpr[65];
	size_t file;
	size_t off, end;
};

static void report_row(struct ksp_csv_row *row, int status, void (*row_cb)(void *, const struct ksp_csv_row *),
		       void *cb_data, const char *fmt, ...) _printf_format_(5, 6);

/* @needle in @h, ASCII letters in any case (a user ID's bytes as they are) */
static bool contains_ci(const uint8_t *h, size_t hl, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; nl && i + nl <= hl; i++)
		if (strncasecmp((const char *)h + i, needle, nl) == 0)
			return true;
	return false;
}
static void report_row(struct ksp_csv_row *row, int status, void (*row_cb)(void *, const struct ksp_csv_row *),
		       void *cb_data, const char *fmt, ...)
{
	va_list ap;

	row->status = status;
	va_start(ap, fmt);
	vsnprintf(row->message, sizeof(row->message), fmt, ap);
	va_end(ap);
	if (row_cb)
		row_cb(cb_data, row);
}

KSP_EXPORT int ksp_party_add_csv(struct ksp_party *party, const void *csv, size_t csv_len, const char *csv_source,
				 const void *const *key_data, const size_t *key_len, const char *const *key_source,
				 size_t n_key_files, unsigned int flags,
				 void (*cb)(void *cb_data, const struct ksp_key_check *check),
				 void (*row_cb)(void *cb_data, const struct ksp_csv_row *row), void *cb_data)
{
	struct ksp_pgp_reader **rd = NULL;
	struct found *keys = NULL;
	size_t n_keys = 0;
	struct strbuf sel;
	char (*seen)[65] = NULL;
	size_t *seen_line = NULL, n_seen = 0;
	char (*fetch)[65] = NULL;
	size_t n_fetch = 0;
	struct ksp_repair_pair *plan = NULL; /* the "# certify:" lines */
	size_t n_plan = 0;
	const char *p = csv, *end;
	size_t line = 0;
	int col_name = 0, col_email = 1, col_fpr = 2, r = 0, n = 0, missing = 0;
	bool first = true, in_txn = false;

	if (party == NULL || (csv == NULL && csv_len > 0) || (n_key_files > 0 && (key_data == NULL || key_len == NULL)))
		return -EINVAL;
	ksp_clear_error(party->ctx);
	if (csv_source == NULL)
		csv_source = "<csv>";
	strbuf_init(&sel);
	r = ksp_party_require_open(party);
	if (r < 0)
		return r;
	/* every key of every file, by fingerprint */
	rd = calloc(n_key_files + 1, sizeof(*rd));
	if (rd == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n_key_files; i++) {
		const char *src = key_source && key_source[i] ? key_source[i] : "<keys>";
		struct ksp_pgp_key *k;
		r = ksp_pgp_reader_new(party->ctx, key_data[i], key_len[i], src, &rd[i]);
		if (r < 0)
			goto out;
		while ((r = ksp_pgp_reader_next(rd[i], &k)) > 0) {
			struct found *nk = realloc(keys, (n_keys + 1) * sizeof(*nk));
			if (nk == NULL) {
				ksp_pgp_key_free(k);
				r = -ENOMEM;
				goto out;
			}
			keys = nk;
			ksp_pgp_fpr_hex(&k->primary, keys[n_keys].fpr);
			keys[n_keys].file = i;
			keys[n_keys].off = k->offset;
			keys[n_keys].end = k->end;
			n_keys++;
			ksp_pgp_key_free(k);
		}
		if (r < 0)
			goto out;
	}
	/* the rows */
	end = p + csv_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *f[16] = { 0 };
		int nf, c;
		struct ksp_csv_row row = { 0 };
		char name[96], email[96];

		line++;
		if (l > 0 && p[l - 1] == '\r')
			l--;
		if (line == 1 && l >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) { /* a BOM */
			p += 3;
			l -= 3;
		}
		if (l > 0 && p[0] == '#') {
			/* the repair plan of 'ksp health --plan-csv' */
			struct ksp_repair_pair pair;
			int pr = ksp_party_repair_parse(p, l, &pair);
			p = nl ? nl + 1 : end;
			if (pr < 0) {
				struct ksp_csv_row brow = { .line = line };
				report_row(&brow, KSP_CSV_BAD, row_cb, cb_data,
					   "%s:%zu: a '# certify:' line that is not 'SIGNER-FINGERPRINT certifies TARGET-FINGERPRINT'; fix it or write the list again with 'ksp health --plan-csv'",
					   csv_source, line);
				missing++;
			} else if (pr > 0) {
				struct ksp_repair_pair *np = realloc(plan, (n_plan + 1) * sizeof(*np));
				if (np == NULL) {
					r = -ENOMEM;
					goto out;
				}
				plan = np;
				plan[n_plan++] = pair;
			}
			continue;
		}
		if (l == 0 || strspn(p, " \t,") >= l) {
			p = nl ? nl + 1 : end;
			continue;
		}
		nf = split_record(p, l, f, 16);
		p = nl ? nl + 1 : end;
		if (nf == -ENOMEM) {
			r = -ENOMEM;
			goto out;
		}
		row.line = line;
		if (nf < 0) {
			report_row(&row, KSP_CSV_BAD, row_cb, cb_data, "%s:%zu: an unterminated quoted field; fix the CSV", csv_source, line);
			n_seen += 0;
			missing++;
			continue;
		}
		if (first) {
			/* a header row names the columns */
			first = false;
			bool header = false;
			for (c = 0; c < nf && c < 16; c++)
				if (strcasecmp(f[c], "fingerprint") == 0 || strcasecmp(f[c], "fpr") == 0)
					header = true;
			if (header) {
				col_name = col_email = col_fpr = -1;
				for (c = 0; c < nf && c < 16; c++) {
					if (strcasecmp(f[c], "fingerprint") == 0 || strcasecmp(f[c], "fpr") == 0)
						col_fpr = c;
					else if (strcasecmp(f[c], "email") == 0 || strcasecmp(f[c], "e-mail") == 0 ||
						 strcasecmp(f[c], "mail") == 0 || strcasecmp(f[c], "address") == 0)
						col_email = c;
					else if (strcasecmp(f[c], "name") == 0)
						col_name = c;
				}
				for (c = 0; c < nf && c < 16; c++)
					free(f[c]);
				continue;
			}
		}
		row.name = col_name >= 0 && col_name < nf ? f[col_name] : NULL;
		row.email = col_email >= 0 && col_email < nf ? f[col_email] : NULL;
		plain(row.name, name, sizeof(name));
		plain(row.email, email, sizeof(email));
		plain(col_fpr < nf ? f[col_fpr] : "", row.raw_fpr, sizeof(row.raw_fpr));
		if (col_fpr >= nf || f[col_fpr][0] == '\0') {
			report_row(&row, KSP_CSV_MISSING, row_cb, cb_data,
				   "%s:%zu: %s <%s> gave no fingerprint; ask them for their key's fingerprint and the key",
				   csv_source, line, name, email);
			missing++;
		} else if (fpr_normalize(f[col_fpr], row.fpr) < 0) {
			report_row(&row, KSP_CSV_BAD, row_cb, cb_data,
				   "%s:%zu: '%s' is not a full fingerprint (40 or 64 hex digits); ask %s <%s> for it",
				   csv_source, line, row.raw_fpr, name, email);
			row.fpr[0] = '\0';
			missing++;
		} else {
			size_t dup = 0;
			for (size_t i = 0; i < n_seen; i++)
				if (strcmp(seen[i], row.fpr) == 0)
					dup = seen_line[i];
			if (dup) {
				row.other_line = dup;
				report_row(&row, KSP_CSV_DUPLICATE, row_cb, cb_data,
					   "%s:%zu: %s <%s> registered again (the key of line %zu); counted once",
					   csv_source, line, name, email, dup);
			} else {
				char (*ns)[65] = realloc(seen, (n_seen + 1) * sizeof(*ns));
				size_t *nl2 = ns ? realloc(seen_line, (n_seen + 1) * sizeof(*nl2)) : NULL;
				if (ns)
					seen = ns;
				if (nl2 == NULL) {
					for (c = 0; c < nf && c < 16; c++)
						free(f[c]);
					r = -ENOMEM;
					goto out;
				}
				seen_line = nl2;
				memcpy(seen[n_seen], row.fpr, 65);
				seen_line[n_seen++] = line;
				const struct found *hit = NULL;
				for (size_t i = 0; i < n_keys && !hit; i++)
					if (strcmp(keys[i].fpr, row.fpr) == 0)
						hit = &keys[i];
				if (hit == NULL && party->keyserver) {
					/* fetched from the keyserver after the rows */
					void *nf2 = realloc(fetch, (n_fetch + 1) * sizeof(*fetch));
					if (nf2 == NULL) {
						r = -ENOMEM;
						for (c = 0; c < nf && c < 16; c++)
							free(f[c]);
						goto out;
					}
					fetch = nf2;
					memcpy(fetch[n_fetch++], row.fpr, 65);
					row.status = KSP_CSV_FOUND;
					if (row_cb) {
						snprintf(row.message, sizeof(row.message), "%s:%zu: key to be fetched from %s",
							 csv_source, line, party->keyserver);
						row_cb(cb_data, &row);
					}
				} else if (hit == NULL) {
					report_row(&row, KSP_CSV_MISSING, row_cb, cb_data,
						   "%s:%zu: no key %s in the key files given; ask %s <%s> to send it",
						   csv_source, line, row.fpr, name, email);
					missing++;
				} else {
					size_t dlen;
					const uint8_t *d = ksp_pgp_reader_data(rd[hit->file], &dlen);
					bool ok = hit->end <= dlen && hit->off < hit->end;
					if (ok)
						strbuf_add(&sel, d + hit->off, hit->end - hit->off);
					/* the row's address and name against the key's user IDs: a
					 * row "Mallory, mallory@evil.example, <Jun's fingerprint>"
					 * adds Jun's key, and says so */
					bool addr_ok = !ok || row.email == NULL || row.email[0] == '\0' ||
						       contains_ci(d + hit->off, hit->end - hit->off, row.email);
					bool name_ok = !ok || row.name == NULL || row.name[0] == '\0' ||
						       contains_ci(d + hit->off, hit->end - hit->off, row.name);
					if (!addr_ok || !name_ok)
						report_row(&row, KSP_CSV_MISMATCH, row_cb, cb_data,
							   "%s:%zu: key %s found, but no user ID of it has the row's %s%s%s (%s <%s>): is it the key of the person who registered? (added, if it passes the checks)",
							   csv_source, line, row.fpr, !addr_ok ? "address" : "",
							   !addr_ok && !name_ok ? " or " : "", !name_ok ? "name" : "", name, email);
					else if (row_cb) {
						row.status = KSP_CSV_FOUND;
						snprintf(row.message, sizeof(row.message), "%s:%zu: key found", csv_source, line);
						row_cb(cb_data, &row);
					}
				}
			}
		}
		for (c = 0; c < nf && c < 16; c++)
			free(f[c]);
	}
	if (n_fetch) {
		struct ksp_party_fetch ft = { .party = party, .url = party->keyserver, .cb = cb, .cb_data = cb_data };
		char *kd = NULL;
		size_t kl = 0;
		r = ksp_party_keyserver_fetch(&ft, (const char (*)[65])fetch, n_fetch, &kd, &kl);
		if (r < 0)
			goto out;
		if (kd)
			strbuf_add(&sel, kd, kl);
		gpgme_free(kd);
	}
	if (!strbuf_ok(&sel)) {
		r = -ENOMEM;
		goto out;
	}
	if (sel.len == 0 && n_fetch) {
		r = 0; /* each key asked for was reported as not received */
		goto out;
	}
	if (sel.len == 0) {
		ksp_set_error(party->ctx, "%s: no row's key is in the key files given%s; give the keyring or key files beside the CSV",
			      csv_source, missing ? " (see the rows above)" : "");
		r = -ENODATA;
		goto out;
	}
	r = ksp_store_begin(party->store);
	if (r < 0)
		goto out;
	in_txn = true;
	n = ksp_party_add_data(party, sel.buf, sel.len, csv_source, flags, cb, cb_data);
	if (n < 0) {
		r = n;
		goto out;
	}
	if (n > 0 && !(flags & KSP_ADD_DRY_RUN)) {
		r = ksp_party_event(party, "add", csv_source);
		if (r < 0)
			goto out;
	}
	if (!(flags & KSP_ADD_DRY_RUN)) {
		r = ksp_party_repair_store(party, plan, n_plan);
		if (r < 0)
			goto out;
	}
	in_txn = false;
	r = ksp_store_commit(party->store);
	if (r == 0)
		r = n;
out:
	if (in_txn)
		ksp_store_rollback(party->store);
	for (size_t i = 0; i < n_key_files && rd; i++)
		ksp_pgp_reader_free(rd[i]);
	free(rd);
	free(keys);
	free(seen);
	free(seen_line);
	free(fetch);
	free(plan);
	strbuf_release(&sel);
	return r;
}
