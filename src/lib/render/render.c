// SPDX-License-Identifier: LGPL-2.1-or-later
/* Verification sheets and fingerprint slips: options, the document model,
 * and output.  Text and HTML come from templates (render-names.c over lib/template.c), PDF
 * is drawn with cairo and pango (render-pdf.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/addr.h"
#include "lib/party/party.h"
#include "lib/party/repair-plan.h"
#include "lib/render/render-private.h"
#include "lib/template.h"
#include "shared/util.h"

#define TEMPLATE_MAX (1u << 20)

struct ksp_render_opts {
	struct ksp_ctx *ctx;
	bool has_for;
	int for_number;     /* > 0: by participant number */
	char for_fpr[65];   /* else by fingerprint */
	char *template_path;
	char *template_text;
	size_t template_len;
	unsigned int paper;
	unsigned int flags;
	unsigned int count;
	void (*glyph_fn)(void *data, int number, const char *fpr, const char *script, unsigned int missing);
	void *glyph_data;
};

KSP_EXPORT int ksp_render_opts_new(struct ksp_ctx *ctx, struct ksp_render_opts **ret)
{
	struct ksp_render_opts *o;

	if (ctx == NULL || ret == NULL)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->ctx = ksp_ref(ctx);
	*ret = o;
	return 0;
}

KSP_EXPORT struct ksp_render_opts *ksp_render_opts_free(struct ksp_render_opts *opts)
{
	if (opts == NULL)
		return NULL;
	free(opts->template_path);
	free(opts->template_text);
	ksp_unref(opts->ctx);
	free(opts);
	return NULL;
}

KSP_EXPORT int ksp_render_opts_set_for(struct ksp_render_opts *opts, const char *fpr_or_number)
{
	const char *s = fpr_or_number;

	if (opts == NULL)
		return -EINVAL;
	ksp_clear_error(opts->ctx);
	if (s == NULL) {
		opts->has_for = false;
		return 0;
	}
	if (*s == '#')
		s++;
	if (*s >= '0' && *s <= '9' && strspn(s, "0123456789") == strlen(s) && strlen(s) <= 6) {
		opts->for_number = atoi(s);
		opts->has_for = opts->for_number > 0;
		if (opts->has_for)
			return 0;
	} else if (fpr_normalize(fpr_or_number, opts->for_fpr) == 0) {
		opts->for_number = 0;
		opts->has_for = true;
		return 0;
	}
	ksp_set_error(opts->ctx, "'%s' is neither a full fingerprint (40 or 64 hex digits) nor a participant number; 'ksp party list' shows both",
		      fpr_or_number);
	return -EINVAL;
}

KSP_EXPORT int ksp_render_opts_set_template(struct ksp_render_opts *opts, const char *path)
{
	char *p = NULL;

	if (opts == NULL)
		return -EINVAL;
	if (path && (p = strdup(path)) == NULL)
		return -ENOMEM;
	free(opts->template_path);
	opts->template_path = p;
	free(opts->template_text);
	opts->template_text = NULL;
	opts->template_len = 0;
	return 0;
}

KSP_EXPORT int ksp_render_opts_set_template_text(struct ksp_render_opts *opts, const char *text, size_t len)
{
	char *t = NULL;

	if (opts == NULL || (text == NULL && len > 0))
		return -EINVAL;
	if (text) {
		t = malloc(len + 1);
		if (t == NULL)
			return -ENOMEM;
		memcpy(t, text, len);
		t[len] = '\0';
	}
	free(opts->template_text);
	opts->template_text = t;
	opts->template_len = len;
	free(opts->template_path);
	opts->template_path = NULL;
	return 0;
}

KSP_EXPORT int ksp_render_opts_set_paper(struct ksp_render_opts *opts, unsigned int paper)
{
	if (opts == NULL || paper > KSP_PAPER_LETTER)
		return -EINVAL;
	opts->paper = paper;
	return 0;
}

KSP_EXPORT int ksp_render_opts_set_flags(struct ksp_render_opts *opts, unsigned int flags)
{
	if (opts == NULL || (flags & ~(unsigned)(KSP_RENDER_QR | KSP_RENDER_DRAFT | KSP_RENDER_STRICT_FONTS | KSP_RENDER_COMPACT)))
		return -EINVAL;
	opts->flags = flags;
	return 0;
}

KSP_EXPORT int ksp_render_opts_set_glyph_fn(struct ksp_render_opts *opts,
					     void (*fn)(void *data, int number, const char *fpr,
							const char *script, unsigned int missing),
					     void *data)
{
	if (opts == NULL)
		return -EINVAL;
	opts->glyph_fn = fn;
	opts->glyph_data = data;
	return 0;
}

KSP_EXPORT int ksp_render_opts_set_count(struct ksp_render_opts *opts, unsigned int count)
{
	if (opts == NULL || count > 1000)
		return -EINVAL;
	opts->count = count;
	return 0;
}

KSP_EXPORT const char *ksp_render_builtin_template(unsigned int kind, unsigned int format)
{
	if (kind == KSP_RENDER_SHEET && format == KSP_FORMAT_TXT)
		return rd_builtin_sheet_txt;
	if (kind == KSP_RENDER_SHEET && format == KSP_FORMAT_HTML)
		return rd_builtin_sheet_html;
	if (kind == KSP_RENDER_SLIPS && format == KSP_FORMAT_TXT)
		return rd_builtin_slips_txt;
	if (kind == KSP_RENDER_SLIPS && format == KSP_FORMAT_HTML)
		return rd_builtin_slips_html;
	return NULL;
}


/* --- the document --- */

static void doc_release(struct rd_doc *doc)
{
	free(doc->sha256);
	free(doc->rmd160);
	free(doc->name_esc);
	free(doc->location_esc);
	for (size_t i = 0; i < doc->n_parts; i++)
		free(doc->parts[i].repair);
	free(doc->parts);
	free(doc->sel);
	ksp_participant_iter_free(doc->it);
	memset(doc, 0, sizeof(*doc));
}

static void hex_groups(const char *hex, char *buf, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; hex[i] && o + 2 < size; i++) {
		if (i && i % 4 == 0)
			buf[o++] = ' ';
		buf[o++] = hex[i];
	}
	buf[o] = '\0';
}

/* Keys on the list that share an address (a second key of the same person,
 * or an old one sent by mistake): each marked with the first other one. */
static int mark_same_address(struct rd_doc *doc)
{
	size_t n = doc->n_parts, total = 0, k = 0;
	struct addr_of {
		char *addr;
		size_t part;
	} *v;

	for (size_t i = 0; i < n; i++)
		total += ksp_participant_get_uid_count(doc->parts[i].p);
	v = calloc(total + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t u = 0; u < ksp_participant_get_uid_count(doc->parts[i].p); u++) {
			size_t len;
			const char *uid = ksp_participant_get_uid(doc->parts[i].p, u, &len);
			char *a = NULL;
			if (ksp_uid_writable_address(uid, len, &a) == 0 && a) {
				v[k].addr = a;
				v[k++].part = i;
			} else {
				free(a);
			}
		}
	for (size_t x = 0; x < k; x++)
		for (size_t y = 0; y < k; y++) {
			struct rd_part *rp = &doc->parts[v[x].part];
			if (v[x].part == v[y].part || rp->same_as[0] || strcasecmp(v[x].addr, v[y].addr) != 0)
				continue;
			snprintf(rp->same_as, sizeof(rp->same_as), "#%d", doc->parts[v[y].part].number);
		}
	for (size_t x = 0; x < k; x++)
		free(v[x].addr);
	free(v);
	return 0;
}

/* The party's repair plan (ksp health --plan-csv): beside each signer on
 * the list, the keys they must certify, by list number (a key not on the
 * list by its fingerprint); a signer not on the list has no line to mark. */
static int mark_repair(struct rd_doc *doc)
{
	struct ksp_repair_pair *v = NULL;
	size_t n = 0;
	int r;

	r = ksp_party_repair_load(doc->party, &v, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < doc->n_parts; i++) {
		struct rd_part *rp = &doc->parts[i];
		struct strbuf sb;
		strbuf_init(&sb);
		for (size_t k = 0; k < n; k++) {
			const struct rd_part *t = NULL;
			if (strcmp(v[k].signer, rp->fpr_hex) != 0)
				continue;
			for (size_t j = 0; j < doc->n_parts && t == NULL; j++)
				if (strcmp(doc->parts[j].fpr_hex, v[k].target) == 0)
					t = &doc->parts[j];
			if (sb.len)
				strbuf_addstr(&sb, ", ");
			if (t)
				strbuf_addf(&sb, "#%d", t->number);
			else
				strbuf_addf(&sb, "%s (not on the list)", v[k].target);
			if (v[k].renewal)
				strbuf_addstr(&sb, " (renewal)");
			doc->repair_n++;
		}
		if (sb.len) {
			rp->repair = strbuf_steal(&sb);
			if (rp->repair == NULL) {
				r = -ENOMEM;
				break;
			}
		} else {
			strbuf_release(&sb);
		}
	}
	free(v);
	snprintf(doc->repair_s, sizeof(doc->repair_s), "%zu", doc->repair_n);
	return r;
}

static int doc_init(struct rd_doc *doc, struct ksp_party *party, unsigned int kind, unsigned int format,
		    const struct ksp_render_opts *opts)
{
	struct ksp_ctx *ctx = ksp_party_ctx(party);
	const char *store = ksp_store_get_path(ksp_party_store(party));
	const char *name = ksp_party_get_name(party);
	const char *location = ksp_party_get_location(party);
	const char *organizer = ksp_party_get_organizer(party);
	struct ksp_participant *p;
	size_t cap = 0;
	int r;

	memset(doc, 0, sizeof(*doc));
	doc->ctx = ctx;
	doc->party = party;
	doc->kind = kind;
	doc->format = format;
	if (opts) {
		doc->paper = opts->paper;
		doc->flags = opts->flags;
		doc->count = opts->count;
		doc->glyph_fn = opts->glyph_fn;
		doc->glyph_data = opts->glyph_data;
	}
	doc->draft = !ksp_party_is_closed(party);
	if (kind == KSP_RENDER_SHEET && doc->draft && !(doc->flags & KSP_RENDER_DRAFT)) {
		ksp_set_error(ctx, "%s: the list is open (not frozen), so a sheet would have no digest to verify; "
			      "freeze it with 'ksp party close', or ask for a preview marked DRAFT (--draft)", store);
		return -EPERM;
	}
	if (doc->draft) {
		doc->list_version = ksp_party_get_list_version(party) + 1;
		snprintf(doc->version_s, sizeof(doc->version_s), "%d (DRAFT, not frozen)", doc->list_version);
	} else {
		r = ksp_party_get_digests(party, 0, &doc->list_version, &doc->sha256, &doc->rmd160);
		if (r < 0)
			return r;
		snprintf(doc->version_s, sizeof(doc->version_s), "%d", doc->list_version);
		hex_groups(doc->sha256, doc->sha256_groups, sizeof(doc->sha256_groups));
		hex_groups(doc->rmd160, doc->rmd160_groups, sizeof(doc->rmd160_groups));
	}
	r = ksp_escape(name, strlen(name), KSP_ESCAPE_TERMINAL, &doc->name_esc);
	if (r == 0)
		r = ksp_escape(location ? location : "", location ? strlen(location) : 0,
			       KSP_ESCAPE_TERMINAL, &doc->location_esc);
	if (r < 0)
		return r;
	if (organizer && *organizer)
		fpr_groups(organizer, doc->organizer_groups, sizeof(doc->organizer_groups));
	r = ksp_party_iter_participants(party, &doc->it);
	if (r < 0)
		return r;
	while ((r = ksp_participant_iter_next(doc->it, &p)) > 0) {
		struct rd_part *rp;
		if (doc->n_parts == cap) {
			size_t nc = cap ? 2 * cap : 32;
			struct rd_part *n = realloc(doc->parts, nc * sizeof(*n));
			if (n == NULL)
				return -ENOMEM;
			doc->parts = n;
			cap = nc;
		}
		rp = &doc->parts[doc->n_parts++];
		memset(rp, 0, sizeof(*rp));
		rp->p = p;
		rp->number = ksp_participant_get_number(p);
		snprintf(rp->number_s, sizeof(rp->number_s), "%d", rp->number);
		snprintf(rp->fpr_hex, sizeof(rp->fpr_hex), "%s", ksp_participant_get_fingerprint(p));
		fpr_groups(rp->fpr_hex, rp->fpr_groups, sizeof(rp->fpr_groups));
		format_date(ksp_participant_get_created(p), rp->created, sizeof(rp->created));
		if (ksp_participant_get_expires(p))
			format_date(ksp_participant_get_expires(p), rp->expires, sizeof(rp->expires));
		if (opts && opts->has_for &&
		    (opts->for_number ? rp->number == opts->for_number : strcmp(rp->fpr_hex, opts->for_fpr) == 0))
			rp->is_you = true;
	}
	if (r < 0)
		return r;
	r = mark_same_address(doc);
	if (r == 0 && kind == KSP_RENDER_SHEET)
		r = mark_repair(doc);
	if (r < 0)
		return r;
	snprintf(doc->count_s, sizeof(doc->count_s), "%zu", doc->n_parts);
	for (size_t i = 0; i < doc->n_parts; i++)
		if (doc->parts[i].is_you)
			doc->you = &doc->parts[i];
	if (opts && opts->has_for && doc->you == NULL) {
		char what[96];
		if (opts->for_number)
			snprintf(what, sizeof(what), "number %d", opts->for_number);
		else
			snprintf(what, sizeof(what), "with fingerprint %s", opts->for_fpr);
		ksp_set_error(ctx, "%s: no participant %s on the list; 'ksp party list' shows them", store, what);
		return -ENOENT;
	}
	if (kind == KSP_RENDER_SLIPS) {
		if (doc->n_parts == 0) {
			ksp_set_error(ctx, "%s: no participants yet, so no slips; add keys with 'ksp party add FILE'", store);
			return -ENODATA;
		}
		doc->sel = calloc(doc->n_parts, sizeof(*doc->sel));
		if (doc->sel == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < doc->n_parts; i++)
			if (doc->you == NULL || doc->you == &doc->parts[i])
				doc->sel[doc->n_selected++] = i;
	}
	return 0;
}

static int load_template(struct ksp_ctx *ctx, const struct ksp_render_opts *opts, unsigned int kind,
			 unsigned int format, struct ksp_tpl **ret)
{
	const char *src = NULL, *text;
	uint8_t *data = NULL;
	size_t len;
	int r;

	if (opts && opts->template_text) {
		src = "(template text)";
		text = opts->template_text;
		len = opts->template_len;
	} else if (opts && opts->template_path) {
		src = opts->template_path;
		r = read_file_all(src, TEMPLATE_MAX, &data, &len);
		if (r < 0) {
			ksp_set_error(ctx, "%s: cannot read the template: %s%s", src, strerror(-r),
				      r == -EFBIG ? " (over 1 MiB)" : "; check the path given to --template");
			return r;
		}
		text = (const char *)data;
	} else {
		src = kind == KSP_RENDER_SHEET ? "built-in sheet template" : "built-in slips template";
		text = ksp_render_builtin_template(kind, format);
		len = strlen(text);
	}
	r = rd_template_parse(ctx, src, text, len, kind, ret);
	free(data);
	return r;
}

/* The HTML and PDF sheets are drawn from the store's current keys; they
 * must show what was hashed.  Re-render the canonical text from the same
 * data and compare it with the frozen bytes. */
static int check_frozen(struct rd_doc *doc)
{
	struct ksp_tpl *t = NULL;
	struct rd_part *you = doc->you;
	struct strbuf sb;
	char *text = NULL;
	size_t len = 0;
	int r;

	r = ksp_party_get_list_text(doc->party, 0, &text, &len);
	if (r < 0)
		return r;
	r = rd_template_parse(doc->ctx, "built-in sheet template", rd_builtin_sheet_txt, strlen(rd_builtin_sheet_txt),
			      KSP_RENDER_SHEET, &t);
	strbuf_init(&sb);
	if (r == 0) {
		size_t repair_n = doc->repair_n; /* the plan is not on the frozen list */
		for (size_t i = 0; i < doc->n_parts; i++)
			doc->parts[i].is_you = false;
		doc->you = NULL;
		doc->repair_n = 0;
		r = rd_template_render(t, doc, KSP_FORMAT_TXT, &sb);
		doc->repair_n = repair_n;
		doc->you = you;
		if (you)
			you->is_you = true;
	}
	if (r == 0 && (sb.len != len || memcmp(strbuf_str(&sb), text, len) != 0)) {
		ksp_set_error(doc->ctx, "%s: the keys in the store no longer match frozen list version %d "
			      "(changed after it was closed); print the frozen text with 'ksp party sheet --format txt', "
			      "or reopen and close the list for a new version",
			      ksp_store_get_path(ksp_party_store(doc->party)), doc->list_version);
		r = -ESTALE;
	}
	strbuf_release(&sb);
	ksp_tpl_free(t);
	free(text);
	return r;
}

static int render_mem(struct ksp_party *party, unsigned int kind, unsigned int format,
		      const struct ksp_render_opts *opts, struct strbuf *out)
{
	struct ksp_ctx *ctx = ksp_party_ctx(party);
	bool custom = opts && (opts->template_path || opts->template_text);
	struct ksp_tpl *t = NULL;
	struct rd_doc doc;
	int r;

	if (kind > KSP_RENDER_SLIPS || format > KSP_FORMAT_PDF) {
		ksp_set_error(ctx, "unknown kind %u or format %u of document", kind, format);
		return -EINVAL;
	}
	if (opts && opts->ctx != ctx) {
		ksp_set_error(ctx, "the render options belong to another context");
		return -EINVAL;
	}
	if (format == KSP_FORMAT_PDF && custom) {
		ksp_set_error(ctx, "%s: templates are for the txt and html formats; the PDF is drawn by ksp itself",
			      opts->template_path ? opts->template_path : "template");
		return -EINVAL;
	}
	r = doc_init(&doc, party, kind, format, opts);
	if (r < 0)
		goto out;
	/* The text sheet of a frozen list is the announced list, byte for byte
	 * (unless it marks a repair plan, which the list does not hold). */
	if (kind == KSP_RENDER_SHEET && format == KSP_FORMAT_TXT && !doc.draft && !custom && doc.you == NULL &&
	    doc.repair_n == 0) {
		char *text = NULL;
		size_t len = 0;
		r = ksp_party_get_list_text(party, doc.list_version, &text, &len);
		if (r == 0)
			strbuf_add(out, text, len);
		free(text);
		goto out;
	}
	if (kind == KSP_RENDER_SHEET && !doc.draft) {
		r = check_frozen(&doc);
		if (r < 0)
			goto out;
	}
	if (format == KSP_FORMAT_PDF) {
		/* cairo and pango are in the drawing module (lib/draw.h) */
		const struct ksp_draw *draw = ksp_draw_load(ctx);
		r = draw ? draw->pdf(&doc, out, ksp_set_error) : -ELIBACC;
		goto out;
	}
	r = load_template(ctx, opts, kind, format, &t);
	if (r == 0)
		r = rd_template_render(t, &doc, format, out);
out:
	if (r >= 0 && !strbuf_ok(out))
		r = -ENOMEM;
	if (r == -ENOMEM && !ksp_get_error(ctx))
		ksp_set_error(ctx, "out of memory rendering the %s", kind == KSP_RENDER_SHEET ? "sheet" : "slips");
	ksp_tpl_free(t);
	doc_release(&doc);
	return r;
}

KSP_EXPORT int ksp_party_render(struct ksp_party *party, unsigned int kind, unsigned int format,
				const struct ksp_render_opts *opts, int fd)
{
	struct strbuf sb;
	int r, pages;

	if (party == NULL || fd < 0)
		return -EINVAL;
	ksp_clear_error(ksp_party_ctx(party));
	strbuf_init(&sb);
	pages = render_mem(party, kind, format, opts, &sb);
	if (pages < 0) {
		strbuf_release(&sb);
		return pages;
	}
	r = write_all(fd, sb.buf, sb.len);
	strbuf_release(&sb);
	if (r < 0) {
		ksp_set_error(ksp_party_ctx(party), "cannot write the %s: %s", kind == KSP_RENDER_SHEET ? "sheet" : "slips",
			      strerror(-r));
		return r;
	}
	return pages;
}

KSP_EXPORT int ksp_party_render_file(struct ksp_party *party, unsigned int kind, unsigned int format,
				     const struct ksp_render_opts *opts, const char *path)
{
	struct atomic_file af;
	struct strbuf sb;
	int r, pages;

	if (party == NULL || path == NULL || *path == '\0')
		return -EINVAL;
	ksp_clear_error(ksp_party_ctx(party));
	strbuf_init(&sb);
	pages = render_mem(party, kind, format, opts, &sb);
	if (pages < 0) {
		strbuf_release(&sb);
		return pages;
	}
	r = atomic_file_begin(&af, path, 0644);
	if (r == 0)
		r = atomic_file_end(&af, write_all(af.fd, sb.buf, sb.len));
	strbuf_release(&sb);
	if (r < 0) {
		ksp_set_error(ksp_party_ctx(party), "%s: cannot write: %s; check the directory exists and is writable",
			      path, output_strerror(r));
		return r;
	}
	return pages;
}
