// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * publish-files.c: the files of a publication (publish.c), made in memory
 * from the key table and its paths: keys/<KEYID>.asc (the header and the
 * clean key), graphs/<KEYID>.txt and .svg, and the .keyring lookups of
 * b4 and patatt.  The layout is described in publish.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <gcrypt.h>

#include "lib/libksp-private.h"
#include "lib/graph/graph.h"
#include "lib/openpgp/pgp.h"
#include "lib/party/mime.h"
#include "lib/publish/publish-private.h"
#include "lib/store/store-publish.h"
#include "lib/wot/wot-snap.h"
#include "shared/strbuf.h"
#include "shared/util.h"

/* ---- files --------------------------------------------------------------------- */

static int add_file(struct ksp_publish *p, char *path, uint8_t *data, size_t len, bool link)
{
	if (path == NULL || (data == NULL && len > 0) ||
	    grow((void **)&p->files, &p->cap_files, p->n_files + 1, sizeof(*p->files)) < 0) {
		free(path);
		free(data);
		return -ENOMEM;
	}
	p->files[p->n_files++] = (struct pub_file){ .path = path, .data = data, .len = len, .link = link };
	return 0;
}

static int add_sb(struct ksp_publish *p, char *path, struct strbuf *sb)
{
	if (!strbuf_ok(sb)) {
		strbuf_release(sb);
		free(path);
		return -ENOMEM;
	}
	size_t len = sb->len;
	return add_file(p, path, (uint8_t *)strbuf_steal(sb), len, false);
}

static char *mkpath(const char *pre, const char *a, const char *post)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", pre, a, post) < 0)
		return NULL;
	return s;
}

int pub_graph_txt(struct ksp_publish *p, const struct pkey *k)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (size_t i = 0; i < k->n_paths; i++) {
		const struct ppath *pp = &k->paths[i];

		strbuf_addf(&sb, "from  %s  %s\n", p->keys[pp->v[0]].kid, p->keys[pp->v[0]].uid);
		for (size_t j = 1; j < pp->n; j++)
			strbuf_addf(&sb, "%4zu  %s  %s\n", j, p->keys[pp->v[j]].kid, p->keys[pp->v[j]].uid);
		strbuf_addch(&sb, '\n');
	}
	return add_sb(p, mkpath("graphs/", k->kid, ".txt"), &sb);
}

int pub_graph_svg(struct ksp_publish *p, const struct pkey *k)
{
	const char **fprs = NULL;
	size_t *lens = NULL, n = 0;
	struct ksp_graph *g = NULL;
	uint8_t *data = NULL;
	size_t len = 0;
	int fd = -1, r;
	char title[128];

	for (size_t i = 0; i < k->n_paths; i++)
		n += k->paths[i].n;
	fprs = malloc((n ? n : 1) * sizeof(*fprs));
	lens = malloc((k->n_paths ? k->n_paths : 1) * sizeof(*lens));
	if (fprs == NULL || lens == NULL) {
		r = -ENOMEM;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < k->n_paths; i++) {
		lens[i] = k->paths[i].n;
		for (size_t j = 0; j < k->paths[i].n; j++)
			fprs[n++] = p->keys[k->paths[i].v[j]].fpr;
	}
	snprintf(title, sizeof(title), "%zu vertex-disjoint path%s to %s", k->n_paths, k->n_paths == 1 ? "" : "s",
		 k->kid);
	r = ksp_graph_new_pathset(p->store, fprs, lens, k->n_paths, title, &g);
	if (r < 0)
		goto out;
	fd = memfd_create("ksp-publish-svg", MFD_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = ksp_graph_render(g, "svg", "dot", fd);
	if (r < 0)
		goto out;
	if (lseek(fd, 0, SEEK_SET) < 0) {
		r = -errno;
		goto out;
	}
	r = read_fd_all(fd, 64u << 20, &data, &len);
	if (r < 0)
		goto out;
	r = add_file(p, mkpath("graphs/", k->kid, ".svg"), data, len, false);
out:
	if (fd >= 0)
		close(fd);
	ksp_graph_free(g);
	free(fprs);
	free(lens);
	return r;
}

/* hashed subpacket 27 (key flags), first octet; -1 none */
static int key_flags(const struct ksp_pgp_sig *s)
{
	const uint8_t *a = s->body + s->hashed_off;
	size_t n = s->hashed_len, i = 0;

	if (s->hashed_off + s->hashed_len > s->body_len)
		return -1;
	while (i < n) {
		size_t l;

		if (a[i] < 192) {
			l = a[i];
			i += 1;
		} else if (a[i] < 255) {
			if (i + 1 >= n)
				return -1;
			l = ((size_t)(a[i] - 192) << 8) + a[i + 1] + 192;
			i += 2;
		} else {
			if (i + 4 >= n)
				return -1;
			l = (size_t)a[i + 1] << 24 | (size_t)a[i + 2] << 16 | (size_t)a[i + 3] << 8 | a[i + 4];
			i += 5;
		}
		if (l == 0 || i + l > n)
			return -1;
		if ((a[i] & 0x7f) == 27 && l >= 2)
			return a[i + 1];
		i += l;
	}
	return -1;
}

static bool sig_by(const struct ksp_pgp_pubkey *pk, const struct ksp_pgp_sig *s)
{
	if (s->issuer_fpr_len && s->issuer_fpr_len == pk->fpr_len)
		return memcmp(s->issuer_fpr, pk->fpr, pk->fpr_len) == 0;
	return s->has_issuer && memcmp(s->issuer, pk->keyid, 8) == 0;
}

static void algo_name(const struct ksp_pgp_pubkey *pk, char *out, size_t size)
{
	switch (pk->algo) {
	case 1: case 2: case 3: snprintf(out, size, "rsa%u", pk->bits); break;
	case 17: snprintf(out, size, "dsa%u", pk->bits); break;
	case 16: case 20: snprintf(out, size, "elg%u", pk->bits); break;
	case 25: snprintf(out, size, "cv25519"); break;
	case 26: snprintf(out, size, "cv448"); break;
	case 27: snprintf(out, size, "ed25519"); break;
	case 28: snprintf(out, size, "ed448"); break;
	default:
		if (pk->curve)
			snprintf(out, size, "%s", pk->curve);
		else
			snprintf(out, size, "algo%u", pk->algo);
	}
}

static void day(int64_t t, char out[16])
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL || strftime(out, 16, "%Y-%m-%d", &tm) == 0)
		snprintf(out, 16, "?");
}

/* "pub   rsa4096 2011-12-01 [SC] [expires: 2026-01-01]" and the fingerprint */
static void key_line(struct strbuf *sb, const char *what, const struct ksp_pgp_pubkey *pk, int flags,
		     uint32_t expires, int64_t at)
{
	char a[32], d[16], fpr[65];

	algo_name(pk, a, sizeof(a));
	day(pk->created, d);
	strbuf_addf(sb, "%-5s %s %s", what, a, d);
	if (flags > 0) {
		strbuf_addstr(sb, " [");
		if (flags & 0x02)
			strbuf_addch(sb, 'S');
		if (flags & 0x01)
			strbuf_addch(sb, 'C');
		if (flags & 0x0c)
			strbuf_addch(sb, 'E');
		if (flags & 0x20)
			strbuf_addch(sb, 'A');
		strbuf_addch(sb, ']');
	}
	if (expires) {
		int64_t e = (int64_t)pk->created + expires;
		day(e, d);
		strbuf_addf(sb, " [%s: %s]", e > at ? "expires" : "expired", d);
	}
	ksp_pgp_fpr_hex(pk, fpr);
	strbuf_addf(sb, "\n      %s\n", fpr);
}

/* The newest self-signature among @sigs made by @pk: flags and expiry. */
static void newest_self(const struct ksp_pgp_pubkey *pk, const struct ksp_pgp_sig *sigs, size_t n, uint32_t *created,
			int *flags, uint32_t *expires)
{
	for (size_t i = 0; i < n; i++) {
		const struct ksp_pgp_sig *s = &sigs[i];

		if (!sig_by(pk, s) || s->type == 0x30 || s->type == 0x20 || s->type == 0x28 || s->created < *created)
			continue;
		*created = s->created;
		*flags = key_flags(s);
		*expires = s->has_key_expires ? s->key_expires : 0;
	}
}

struct uidrow {
	int64_t id;
	bool ok;
};

/* The user ID or user attribute @u of key @k as the snapshot has it: its
 * uids.id and whether it is published (a valid self-signature, not
 * revoked); id 0 when the store does not have it. */
static void uid_row(const struct ksp_wsnap *g, const struct pkey *k, const struct ksp_pgp_uid *u, struct uidrow *ur)
{
	uint32_t v = ksp_wsnap_vertex(g, k->id);

	ur->id = 0;
	ur->ok = false;
	if (v == UINT32_MAX)
		return;
	for (uint32_t i = g->bind_off[v]; i < g->bind_off[v + 1]; i++) {
		const struct ksp_wsnap_bind *b = &g->binds[i];
		size_t len;
		const char *t = ksp_wsnap_bind_text(g, b, &len);

		if (!(b->flags & KSP_WSNAP_BIND_ATTR) != !u->attribute || len != u->len ||
		    (len && memcmp(t, u->data, len) != 0))
			continue;
		ur->id = b->uid_id;
		ur->ok = (b->flags & KSP_WSNAP_BIND_SELFSIG) && b->revoked == KSP_WSNAP_NEVER;
		return;
	}
}

/* Is this certification verified and made by a published key?  1 yes,
 * 0 no, or a negative errno. */
static int cert_kept(struct ksp_publish *p, struct ksp_store_key_files *q, int64_t uid_id, const struct ksp_pgp_sig *s)
{
	uint8_t md[20];
	char dig[41], f[65];
	int i, r;

	gcry_md_hash_buffer(GCRY_MD_SHA1, md, s->body, s->body_len);
	hex_encode(md, 20, dig);
	r = ksp_store_cert_issuer(q, uid_id, dig, f);
	if (r <= 0)
		return r;
	i = key_index(p, f);
	return i >= 0 && p->keys[i].published;
}

int pub_key_file(struct ksp_publish *p, const struct pkey *k, struct ksp_store_key_files *q)
{
	struct ksp_pgp_reader *rd = NULL;
	struct ksp_pgp_key *key = NULL;
	struct strbuf bin, out;
	const uint8_t *d;
	size_t dlen;
	struct ksp_wsnap *g = NULL;
	const void *kd = NULL;
	size_t kdlen = 0;
	uint32_t created = 0, expires = 0;
	int flags = -1, r;

	strbuf_init(&bin);
	strbuf_init(&out);
	r = ksp_wsnap_get(p->store, &g);
	if (r < 0)
		return r;
	r = ksp_store_key_material(q, k->id, &kd, &kdlen);
	if (r <= 0)
		return r < 0 ? r : -EIO;
	r = ksp_pgp_reader_new(p->ctx, kd, kdlen, k->fpr, &rd);
	if (r < 0)
		return r;
	r = ksp_pgp_reader_next(rd, &key);
	if (r <= 0) {
		ksp_set_error(p->ctx, "key %s: its stored copy cannot be read; load it again", k->fpr);
		r = r < 0 ? r : -EBADMSG;
		goto out;
	}
	d = ksp_pgp_reader_data(rd, &dlen);
#define RAW(x) strbuf_add(&bin, d + (x)->offset, (x)->raw_len)
	/* the header, gpg --list-keys-like */
	newest_self(&key->primary, key->primary.sigs, key->primary.n_sigs, &created, &flags, &expires);
	for (size_t i = 0; i < key->n_uids; i++)
		newest_self(&key->primary, key->uids[i].sigs, key->uids[i].n_sigs, &created, &flags, &expires);
	key_line(&out, "pub", &key->primary, flags, expires, p->at);
	/* the clean key */
	RAW(&key->primary);
	for (size_t i = 0; i < key->primary.n_sigs; i++)
		if (sig_by(&key->primary, &key->primary.sigs[i]))
			RAW(&key->primary.sigs[i]);
	for (size_t i = 0; i < key->n_uids; i++) {
		const struct ksp_pgp_uid *u = &key->uids[i];
		struct uidrow ur;

		uid_row(g, k, u, &ur);
		if (!ur.ok)
			continue;
		if (!u->attribute) {
			char *e = escape_text(u->data, u->len);
			if (e == NULL) {
				r = -ENOMEM;
				goto out;
			}
			strbuf_addf(&out, "uid                      %s\n", e);
			free(e);
		}
		RAW(u);
		for (size_t j = 0; j < u->n_sigs; j++) {
			const struct ksp_pgp_sig *s = &u->sigs[j];

			if (!sig_by(&key->primary, s) && (r = cert_kept(p, q, ur.id, s)) <= 0) {
				if (r < 0)
					goto out;
				continue;
			}
			RAW(s);
		}
	}
	for (size_t i = 0; i < key->n_subkeys; i++) {
		const struct ksp_pgp_pubkey *sk = &key->subkeys[i];
		uint32_t sc = 0, se = 0;
		int sf = -1;
		bool revoked = false;

		newest_self(&key->primary, sk->sigs, sk->n_sigs, &sc, &sf, &se);
		for (size_t j = 0; j < sk->n_sigs; j++)
			if (sk->sigs[j].type == 0x28 && sig_by(&key->primary, &sk->sigs[j]))
				revoked = true;
		if (!revoked && sc)
			key_line(&out, "sub", sk, sf, se, p->at);
		RAW(sk);
		for (size_t j = 0; j < sk->n_sigs; j++)
			if (sig_by(&key->primary, &sk->sigs[j]))
				RAW(&sk->sigs[j]);
	}
#undef RAW
	strbuf_addch(&out, '\n');
	if (!strbuf_ok(&bin)) {
		r = -ENOMEM;
		goto out;
	}
	ksp_armor_encode(&out, "PUBLIC KEY BLOCK", (const uint8_t *)bin.buf, bin.len);
	r = add_sb(p, mkpath("keys/", k->kid, ".asc"), &out);
out:
	strbuf_release(&bin);
	strbuf_release(&out);
	ksp_pgp_key_free(key);
	ksp_pgp_reader_free(rd);
	return r;
}

/* patatt's urllib.parse.quote_plus() */
static void quote_plus(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)tolower((unsigned char)*s);

		if (isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~')
			strbuf_addch(sb, (char)c);
		else if (c == ' ')
			strbuf_addch(sb, '+');
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* The address of a user ID: inside its last <...>, or the whole of it
 * when it is one word with an '@' (patatt's identity); NULL when none. */
static char *uid_address(const void *uid, size_t len)
{
	const char *u = uid, *a = u, *lt;
	size_t n = len;

	if (u == NULL || len == 0 || memchr(u, 0, len))
		return NULL;
	if (u[len - 1] == '>') {
		lt = memrchr(u, '<', len);
		if (lt == NULL)
			return NULL;
		a = lt + 1;
		n = (size_t)(u + len - 1 - a);
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)a[i] <= ' ' || a[i] == '<' || a[i] == '>' || a[i] == 0x7f)
			return NULL;
	if (n < 3 || memchr(a, '@', n) == NULL)
		return NULL;
	return strndup(a, n);
}

struct mailkey {
	char *path;  /* openpgp/<domain>/<local>/default */
	uint32_t key;
};

static int cmp_mailkey(const void *a, const void *b)
{
	const struct mailkey *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->key < y->key ? -1 : x->key > y->key);
}

int pub_keyring_files(struct ksp_publish *p)
{
	struct ksp_wsnap *g = NULL;
	struct mailkey *m = NULL;
	size_t n = 0, cap = 0;
	int r;

	r = ksp_wsnap_get(p->store, &g);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n_keys && r >= 0; i++) {
		uint32_t v = ksp_wsnap_vertex(g, p->keys[i].id);

		if (!p->keys[i].published || v == UINT32_MAX)
			continue;
		/* its user IDs with a valid self-signature, not revoked, in
		 * the key's order */
		for (uint32_t b = g->bind_off[v]; b < g->bind_off[v + 1]; b++) {
			const struct ksp_wsnap_bind *bd = &g->binds[b];
			size_t len;
			const char *t = ksp_wsnap_bind_text(g, bd, &len);
			char *e;

			if ((bd->flags & KSP_WSNAP_BIND_ATTR) || !(bd->flags & KSP_WSNAP_BIND_SELFSIG) ||
			    bd->revoked != KSP_WSNAP_NEVER)
				continue;
			e = uid_address(t, len);
			const char *at = e ? strrchr(e, '@') : NULL;
			struct strbuf sb, dom, loc;
			char *local;

			if (at == NULL || at == e || at[1] == 0) {
				free(e);
				continue;
			}
			local = strndup(e, (size_t)(at - e));
			if (local == NULL) {
				free(e);
				r = -ENOMEM;
				break;
			}
			strbuf_init(&dom);
			strbuf_init(&loc);
			quote_plus(&dom, at + 1);
			quote_plus(&loc, local);
			free(local);
			free(e);
			/* an address that cannot be a file name: that address
			 * skipped, the rest published */
			if (strbuf_ok(&dom) && strbuf_ok(&loc) &&
			    (strlen(strbuf_str(&dom)) > NAME_MAX || strlen(strbuf_str(&loc)) > NAME_MAX)) {
				WARN(p->ctx, "key %s: an address of its user IDs is too long for a file name (over %d "
					     "bytes); no .keyring lookup for it, the rest is published\n",
				     p->keys[i].fpr, NAME_MAX);
				strbuf_release(&dom);
				strbuf_release(&loc);
				continue;
			}
			/* "." and ".." are path components, not names */
			if (!strbuf_ok(&dom) || !strbuf_ok(&loc) || strcmp(strbuf_str(&dom), ".") == 0 ||
			    strcmp(strbuf_str(&dom), "..") == 0 || strcmp(strbuf_str(&loc), ".") == 0 ||
			    strcmp(strbuf_str(&loc), "..") == 0) {
				strbuf_release(&dom);
				strbuf_release(&loc);
				continue;
			}
			strbuf_init(&sb);
			strbuf_addf(&sb, "openpgp/%s/%s/default", strbuf_str(&dom), strbuf_str(&loc));
			strbuf_release(&dom);
			strbuf_release(&loc);
			if (!strbuf_ok(&sb) || grow((void **)&m, &cap, n + 1, sizeof(*m)) < 0) {
				strbuf_release(&sb);
				r = -ENOMEM;
				break;
			}
			m[n].path = strbuf_steal(&sb);
			m[n].key = (uint32_t)i;
			n++;
		}
	}
	if (r < 0)
		goto out;
	if (n)
		qsort(m, n, sizeof(*m), cmp_mailkey);
	for (size_t i = 0; i < n; i++) {
		uint8_t md[32];
		char h[65];
		size_t best = i, j;

		/* one address, several keys: the one with the most paths,
		 * then the first by fingerprint */
		for (j = i + 1; j < n && strcmp(m[j].path, m[i].path) == 0; j++)
			if (p->keys[m[j].key].n_paths > p->keys[m[best].key].n_paths)
				best = j;
		if (j > i + 1)
			WARN(p->ctx, ".keyring/%s: %zu keys have this address; key %s is published there\n", m[i].path,
			     j - i, p->keys[m[best].key].fpr);
		r = add_file(p, mkpath(".keyring/", m[i].path, ""),
			     (uint8_t *)mkpath("../../../../keys/", p->keys[m[best].key].kid, ".asc"),
			     strlen("../../../../keys/.asc") + strlen(p->keys[m[best].key].kid), true);
		if (r < 0)
			goto out;
		gcry_md_hash_buffer(GCRY_MD_SHA256, md, m[i].path, strlen(m[i].path));
		hex_encode(md, 32, h);
		for (char *c = h; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		{
			char *bh = NULL;
			if (asprintf(&bh, ".keyring/by-hash/%.2s/%s", h, h + 2) < 0)
				bh = NULL;
			r = add_file(p, bh, (uint8_t *)mkpath("../../../keys/", p->keys[m[best].key].kid, ".asc"),
				     strlen("../../../keys/.asc") + strlen(p->keys[m[best].key].kid), true);
			if (r < 0)
				goto out;
		}
		i = j - 1;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(m[i].path);
	free(m);
	return r;
}
