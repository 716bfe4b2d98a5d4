// SPDX-License-Identifier: LGPL-2.1-or-later
/* PDF sheets and slips, drawn with cairo and laid out with pango, so that
 * every script fontconfig has a font for renders (Cyrillic, CJK, Arabic...).
 *
 * User IDs and party fields are escaped for a terminal first (controls and
 * bidi overrides show as \xNN / \u{NNNN}) and given to pango as plain text,
 * never as markup.  A private font map per document: no global pango
 * state.  Text is measured in a first pass (so that every page can say
 * "page i of n" and no entry is split across pages), drawn in a second.
 * Part of the drawing module (ksp-render.so, lib/draw.h): render.c, in
 * libksp, calls rd_pdf_render() through the module's table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-pdf.h>
#include <cairo.h>
#include <pango/pangocairo.h>
/* glib's MIN and MAX; shared/macro.h defines its own */
#undef MIN
#undef MAX

#include "lib/render/render-private.h"

#define MARGIN 40.0
#define MARGIN_BOTTOM 48.0
#define INDENT 36.0
#define BOX 7.0
#define QR_SIZE 66.0
#define QR_QUIET 4

struct pdf {
	const struct rd_doc *doc;
	struct strbuf *out;
	ksp_draw_error_fn err; /* ksp_set_error() of the library that loaded the module */
	cairo_surface_t *surface;
	cairo_t *cr;
	PangoFontMap *fm;
	PangoContext *pc;
	PangoFontDescription *f_title, *f_bold, *f_text, *f_small, *f_tiny, *f_uid, *f_mono, *f_mono_bold,
		*f_mono_small, *f_num;
	double pw, ph, x0, x1, top, bottom;
	int pages;
	unsigned long missing_glyphs; /* characters no font has, in all texts */
	int failed; /* -ENOMEM when a text could not be prepared: the PDF fails */
};

static cairo_status_t write_cb(void *closure, const unsigned char *data, unsigned int len)
{
	struct strbuf *sb = closure;

	strbuf_add(sb, data, len);
	return strbuf_ok(sb) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* At most this many combining marks drawn on one base character: a user
 * ID with hundreds stacks them as high as the page and draws over the
 * fingerprints and digests around it. */
#define MAX_MARKS 3

/* @text (valid UTF-8) with the combining marks past MAX_MARKS on a base
 * character left out; NULL when out of memory. */
static char *cap_marks(const char *text)
{
	size_t n = strlen(text), o = 0;
	char *out = malloc(n + 1);
	unsigned marks = 0;

	if (out == NULL)
		return NULL;
	for (const char *c = text; *c;) {
		const char *next = g_utf8_next_char(c);
		gunichar u = g_utf8_get_char_validated(c, next - c);

		if (u != (gunichar)-1 && u != (gunichar)-2 && g_unichar_ismark(u)) {
			if (++marks > MAX_MARKS) {
				c = next;
				continue;
			}
		} else {
			marks = 0;
		}
		memcpy(out + o, c, (size_t)(next - c));
		o += (size_t)(next - c);
		c = next;
	}
	out[o] = '\0';
	return out;
}

/* Is @s a script written with the CJK fonts (Han, kana, Hangul, Bopomofo)? */
static bool cjk_script(GUnicodeScript s)
{
	return s == G_UNICODE_SCRIPT_HAN || s == G_UNICODE_SCRIPT_HIRAGANA || s == G_UNICODE_SCRIPT_KATAKANA ||
	       s == G_UNICODE_SCRIPT_HANGUL || s == G_UNICODE_SCRIPT_BOPOMOFO;
}

/* A character drawn with the CJK fonts: of a CJK script, or CJK
 * punctuation and full-width forms ("（", "、", "・"; script Common). */
static bool cjk_char(gunichar u)
{
	GUnicodeScript sc = g_unichar_get_script(u);

	return cjk_script(sc) || (sc == G_UNICODE_SCRIPT_COMMON && u >= 0x2E80);
}

/* A CJK font family for a run: Japanese when it holds kana, Korean with
 * Hangul, traditional Chinese with Bopomofo, else simplified Chinese (Noto
 * Sans CJK, fonts-noto-cjk: each has every CJK character), then the other
 * CJK fonts Debian packages. */
static const char *cjk_family(bool kana, bool hangul, bool bopomofo)
{
#define CJK_MORE ",Source Han Sans,IPAGothic,IPAPGothic,Droid Sans Fallback"
	if (kana)
		return "Noto Sans CJK JP" CJK_MORE;
	if (hangul)
		return "Noto Sans CJK KR" CJK_MORE;
	if (bopomofo)
		return "Noto Sans CJK TC" CJK_MORE;
	return "Noto Sans CJK SC" CJK_MORE;
#undef CJK_MORE
}

/* One font per CJK name: pango picks a font per character (the first of
 * the description's families that has it), so a Chinese name could take
 * a character or its middle dot from another font than the rest, and a
 * Japanese name its kanji and its kana from two.  Each stretch of CJK
 * characters (with the spaces and punctuation between them) gets one CJK
 * family first, chosen for the whole stretch.  NULL: no CJK in @text. */
static PangoAttrList *cjk_runs(const char *text)
{
	PangoAttrList *attrs = NULL;
	const char *c = text;

	while (*c) {
		const char *start, *end, *q;
		bool kana = false, hangul = false, bopomofo = false;

		if (!cjk_char(g_utf8_get_char(c))) {
			c = g_utf8_next_char(c);
			continue;
		}
		start = end = c;
		for (q = c; *q;) {
			gunichar u = g_utf8_get_char(q);
			GUnicodeScript sc = g_unichar_get_script(u);
			if (cjk_char(u)) {
				kana |= sc == G_UNICODE_SCRIPT_HIRAGANA || sc == G_UNICODE_SCRIPT_KATAKANA;
				hangul |= sc == G_UNICODE_SCRIPT_HANGUL;
				bopomofo |= sc == G_UNICODE_SCRIPT_BOPOMOFO;
				q = g_utf8_next_char(q);
				end = q;
			} else if (sc == G_UNICODE_SCRIPT_COMMON || sc == G_UNICODE_SCRIPT_INHERITED) {
				q = g_utf8_next_char(q); /* inside the stretch if CJK follows */
			} else {
				break;
			}
		}
		if (attrs == NULL)
			attrs = pango_attr_list_new();
		PangoAttribute *a = pango_attr_family_new(cjk_family(kana, hangul, bopomofo));
		a->start_index = (guint)(start - text);
		a->end_index = (guint)(end - text);
		pango_attr_list_insert(attrs, a);
		c = end;
	}
	return attrs;
}

static PangoLayout *mk(struct pdf *p, const PangoFontDescription *fd, const char *text, double width)
{
	PangoLayout *l = pango_layout_new(p->pc);
	char *capped = cap_marks(text);

	if (capped == NULL)
		p->failed = -ENOMEM; /* never a PDF with "?" in place of a text */

	pango_layout_set_font_description(l, fd);
	pango_layout_set_auto_dir(l, FALSE); /* RTL user IDs stay left-aligned */
	if (width > 0) {
		pango_layout_set_width(l, (int)(width * PANGO_SCALE));
		pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
	}
	pango_layout_set_text(l, capped ? capped : "?", -1);
	if (capped && g_utf8_validate(capped, -1, NULL)) {
		PangoAttrList *attrs = cjk_runs(capped);
		if (attrs) {
			pango_layout_set_attributes(l, attrs);
			pango_attr_list_unref(attrs);
		}
	}
	free(capped);
	return l;
}

/* Is @c a strong right-to-left character (Hebrew, Arabic, Syriac, Thaana,
 * NKo, Samaritan, Mandaic and their presentation forms)? */
static bool rtl_char(gunichar c)
{
	return (c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF) ||
	       (c >= 0x10800 && c <= 0x10FFF) || (c >= 0x1E800 && c <= 0x1EFFF);
}

/* A user ID (escaped) for a left-to-right line, as gpg and the text list
 * print it: each right-to-left run (right-to-left characters and the
 * spaces and marks between them) is put in a right-to-left isolate
 * (U+2067 ... U+2069): it keeps its own order inside, and the line reads
 * in the user ID's order, name first, then the address.  NULL on no
 * memory. */
static char *uid_isolated(const char *e)
{
	struct strbuf sb;
	const char *q = e;

	if (!g_utf8_validate(e, -1, NULL))
		return strdup(e);
	strbuf_init(&sb);
	while (*q) {
		gunichar c = g_utf8_get_char(q);
		if (!rtl_char(c)) {
			const char *n = g_utf8_next_char(q);
			strbuf_add(&sb, q, (size_t)(n - q));
			q = n;
			continue;
		}
		/* the run: up to the last right-to-left character before a
		 * left-to-right one, a '<', or the end */
		const char *run_end = g_utf8_next_char(q), *r = run_end;
		while (*r) {
			gunichar d = g_utf8_get_char(r);
			if (rtl_char(d))
				run_end = g_utf8_next_char(r);
			else if (d == '<' || d == '(' || d == ')' || g_unichar_isalnum(d))
				break;
			r = g_utf8_next_char(r);
		}
		strbuf_addstr(&sb, "\xe2\x81\xa7"); /* RLI */
		strbuf_add(&sb, q, (size_t)(run_end - q));
		strbuf_addstr(&sb, "\xe2\x81\xa9"); /* PDI */
		q = run_end;
	}
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

static PangoLayout *mk_esc(struct pdf *p, const PangoFontDescription *fd, const char *raw, size_t len,
			   double width)
{
	char *e = NULL, *iso;
	PangoLayout *l;

	if (ksp_escape(raw, len, KSP_ESCAPE_TERMINAL, &e) < 0)
		return NULL;
	iso = uid_isolated(e);
	free(e);
	if (iso == NULL)
		return NULL;
	l = mk(p, fd, iso, width);
	free(iso);
	return l;
}

/* English names of the scripts people write their names in, by ISO 15924
 * code (GLib gives the code; the user is told the name and what to install). */
static const char *script_name(GUnicodeScript sc, char code[5])
{
	static const struct {
		char code[5];
		const char *name;
	} names[] = {
		{ "Arab", "Arabic" },     { "Armn", "Armenian" },  { "Beng", "Bengali" },    { "Bopo", "Bopomofo" },
		{ "Cher", "Cherokee" },   { "Cyrl", "Cyrillic" },  { "Deva", "Devanagari" }, { "Ethi", "Ethiopic" },
		{ "Geor", "Georgian" },   { "Grek", "Greek" },     { "Gujr", "Gujarati" },   { "Guru", "Gurmukhi" },
		{ "Hang", "Hangul" },     { "Hani", "Han" },       { "Hebr", "Hebrew" },     { "Hira", "Hiragana" },
		{ "Khmr", "Khmer" },      { "Knda", "Kannada" },   { "Kana", "Katakana" },   { "Laoo", "Lao" },
		{ "Latn", "Latin" },      { "Mlym", "Malayalam" }, { "Mong", "Mongolian" },  { "Mymr", "Myanmar" },
		{ "Orya", "Oriya" },      { "Sinh", "Sinhala" },   { "Syrc", "Syriac" },     { "Taml", "Tamil" },
		{ "Telu", "Telugu" },     { "Tfng", "Tifinagh" },  { "Thaa", "Thaana" },     { "Thai", "Thai" },
		{ "Tibt", "Tibetan" },    { "Zyyy", "Common" },
	};
	guint32 t = g_unicode_script_to_iso15924(sc);

	code[0] = (char)(t >> 24);
	code[1] = (char)(t >> 16);
	code[2] = (char)(t >> 8);
	code[3] = (char)t;
	code[4] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (memcmp(names[i].code, code, 4) == 0)
			return names[i].name;
	return code;
}

/* Counts the characters of @l that no font draws (pango's unknown glyphs:
 * the glyph is the character with PANGO_GLYPH_UNKNOWN_FLAG) per script and
 * tells doc->glyph_fn; @number and @fpr name whose text it is. */
static void glyph_gaps(struct pdf *p, PangoLayout *l, int number, const char *fpr)
{
	struct {
		GUnicodeScript sc;
		unsigned int n;
	} seen[8];
	size_t n_seen = 0;
	PangoLayoutIter *it;

	if (l == NULL)
		return;
	it = pango_layout_get_iter(l);
	do {
		PangoGlyphItem *run = pango_layout_iter_get_run_readonly(it);

		for (int i = 0; run && i < run->glyphs->num_glyphs; i++) {
			PangoGlyph g = run->glyphs->glyphs[i].glyph;
			GUnicodeScript sc;
			size_t k;

			if (!(g & PANGO_GLYPH_UNKNOWN_FLAG) || g == PANGO_GLYPH_INVALID_INPUT)
				continue;
			sc = g_unichar_get_script((gunichar)(g & ~PANGO_GLYPH_UNKNOWN_FLAG));
			for (k = 0; k < n_seen && seen[k].sc != sc; k++)
				;
			if (k == n_seen) {
				if (n_seen == ARRAY_SIZE(seen))
					k = n_seen - 1; /* the rest counted with the last */
				else
					seen[n_seen++] = (typeof(seen[0])){ sc, 0 };
			}
			seen[k].n++;
			p->missing_glyphs++;
		}
	} while (pango_layout_iter_next_run(it));
	pango_layout_iter_free(it);
	for (size_t k = 0; k < n_seen && p->doc->glyph_fn; k++) {
		char code[5];
		p->doc->glyph_fn(p->doc->glyph_data, number, fpr, script_name(seen[k].sc, code), seen[k].n);
	}
}

static double lh(PangoLayout *l)
{
	int w, h;

	pango_layout_get_size(l, &w, &h);
	return (double)h / PANGO_SCALE;
}

static double lw(PangoLayout *l)
{
	int w, h;

	pango_layout_get_size(l, &w, &h);
	return (double)w / PANGO_SCALE;
}

static double first_line_h(PangoLayout *l)
{
	PangoLayoutIter *it = pango_layout_get_iter(l);
	int y0, y1;

	pango_layout_iter_get_line_yrange(it, &y0, &y1);
	pango_layout_iter_free(it);
	return (double)(y1 - y0) / PANGO_SCALE;
}

static void show(struct pdf *p, PangoLayout *l, double x, double y)
{
	cairo_move_to(p->cr, x, y);
	pango_cairo_show_layout(p->cr, l);
}

static void unref(PangoLayout *l)
{
	if (l)
		g_object_unref(l);
}

static void box(struct pdf *p, double x, double y)
{
	cairo_save(p->cr);
	cairo_set_line_width(p->cr, 0.7);
	cairo_rectangle(p->cr, x, y, BOX, BOX);
	cairo_stroke(p->cr);
	cairo_restore(p->cr);
}

static void hline(struct pdf *p, double x0, double x1, double y, double width, double gray)
{
	cairo_save(p->cr);
	cairo_set_source_rgb(p->cr, gray, gray, gray);
	cairo_set_line_width(p->cr, width);
	cairo_move_to(p->cr, x0, y);
	cairo_line_to(p->cr, x1, y);
	cairo_stroke(p->cr);
	cairo_restore(p->cr);
}

static int pdf_open(struct pdf *p, const struct rd_doc *doc, struct strbuf *out, ksp_draw_error_fn err)
{
	cairo_font_options_t *fo;
	struct strbuf title;
	char date[32];

	memset(p, 0, sizeof(*p));
	p->doc = doc;
	p->out = out;
	p->err = err;
	rd_paper_size(doc->paper, &p->pw, &p->ph);
	p->x0 = MARGIN;
	p->x1 = p->pw - MARGIN;
	p->top = MARGIN;
	p->bottom = p->ph - MARGIN_BOTTOM;
	p->surface = cairo_pdf_surface_create_for_stream(write_cb, out, p->pw, p->ph);
	if (cairo_surface_status(p->surface) != CAIRO_STATUS_SUCCESS)
		return -ENOMEM;
	strbuf_init(&title);
	strbuf_addf(&title, "%s: %s", doc->name_esc,
		    doc->kind == KSP_RENDER_SHEET ? "verification sheet" : "fingerprint slips");
	if (!strbuf_ok(&title)) {
		strbuf_release(&title);
		return -ENOMEM;
	}
	cairo_pdf_surface_set_metadata(p->surface, CAIRO_PDF_METADATA_TITLE, strbuf_str(&title));
	strbuf_release(&title);
	cairo_pdf_surface_set_metadata(p->surface, CAIRO_PDF_METADATA_CREATOR, "ksp " VERSION);
	/* reproducible output: the document's date is the party's */
	snprintf(date, sizeof(date), "%sT00:00:00Z", ksp_party_get_date(doc->party));
	cairo_pdf_surface_set_metadata(p->surface, CAIRO_PDF_METADATA_CREATE_DATE, date);
	cairo_pdf_surface_set_metadata(p->surface, CAIRO_PDF_METADATA_MOD_DATE, date);
	p->cr = cairo_create(p->surface);
	if (cairo_status(p->cr) != CAIRO_STATUS_SUCCESS)
		return -ENOMEM;
	p->fm = pango_cairo_font_map_new();
	if (p->fm == NULL)
		return -ENOMEM;
	p->pc = pango_font_map_create_context(p->fm);
	/* every line left to right, as gpg and the text list print user IDs;
	 * right-to-left names are isolated runs inside (uid_isolated()) */
	pango_context_set_base_dir(p->pc, PANGO_DIRECTION_LTR);
	pango_cairo_context_set_resolution(p->pc, 72.0);
	fo = cairo_font_options_create();
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	pango_cairo_context_set_font_options(p->pc, fo);
	cairo_font_options_destroy(fo);
	pango_context_set_round_glyph_positions(p->pc, FALSE);
	pango_cairo_update_context(p->cr, p->pc);
	p->f_title = pango_font_description_from_string("Sans Bold 15");
	p->f_bold = pango_font_description_from_string("Sans Bold 9.5");
	p->f_text = pango_font_description_from_string("Sans 9.5");
	p->f_small = pango_font_description_from_string("Sans 8.5");
	p->f_tiny = pango_font_description_from_string("Sans 7.5");
	p->f_uid = pango_font_description_from_string("Sans 9.5");
	p->f_num = pango_font_description_from_string("Sans Bold 10");
	p->f_mono = pango_font_description_from_string("Monospace 8.5");
	p->f_mono_bold = pango_font_description_from_string("Monospace Bold 10");
	p->f_mono_small = pango_font_description_from_string("Monospace Bold 8");
	cairo_set_source_rgb(p->cr, 0, 0, 0);
	return 0;
}

static int pdf_close(struct pdf *p, int r)
{
	PangoFontDescription **fds[] = { &p->f_title, &p->f_bold, &p->f_text, &p->f_small, &p->f_tiny,
					 &p->f_uid, &p->f_num, &p->f_mono, &p->f_mono_bold, &p->f_mono_small };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i])
			pango_font_description_free(*fds[i]);
	if (p->pc)
		g_object_unref(p->pc);
	if (p->fm)
		g_object_unref(p->fm);
	if (p->cr) {
		if (r >= 0 && cairo_status(p->cr) != CAIRO_STATUS_SUCCESS)
			r = -EIO;
		cairo_destroy(p->cr);
	}
	if (p->surface) {
		cairo_surface_finish(p->surface);
		if (r >= 0 && cairo_surface_status(p->surface) != CAIRO_STATUS_SUCCESS)
			r = strbuf_ok(p->out) ? -EIO : -ENOMEM;
		cairo_surface_destroy(p->surface);
	}
	if (r == -EIO)
		p->err(p->doc->ctx, "cannot draw the PDF: %s", p->cr ? "cairo failed" : "cannot create the PDF surface");
	return r;
}

/* a v6 fingerprint (64 hex digits) in a smaller size, so it fits a line */
static PangoFontDescription *fpr_font(struct pdf *p, const char *hex)
{
	return strlen(hex) > 40 ? p->f_mono_small : p->f_mono_bold;
}

/* --- the sheet --- */

enum row_kind { R_HEAD, R_YOU, R_META, R_UID };

struct row {
	unsigned char kind;
	bool first; /* an entry's first row: the separator is drawn above it */
	bool you;
	PangoLayout *a, *b; /* R_HEAD: number, fingerprint; else the text */
	double h, pad;      /* h includes pad above the text */
	int page;
	double y;
};

/* Label = bold cell at x0, value beside it: rows of the party table. */
static double table_row(struct pdf *p, bool draw, double y, const char *label, const char *value,
			const PangoFontDescription *vf)
{
	PangoLayout *a = mk(p, p->f_bold, label, 0), *b = mk(p, vf, value, p->x1 - p->x0 - 90);
	double h = MAX(lh(a), lh(b));

	if (draw) {
		show(p, a, p->x0, y);
		show(p, b, p->x0 + 90, y);
	}
	unref(a);
	unref(b);
	return h + 1.5;
}

static double digest_rows(struct pdf *p, bool draw, double y, const char *label, const char *hex)
{
	PangoLayout *a = mk(p, p->f_bold, label, 0), *b = mk(p, p->f_mono, hex, 0);
	PangoLayout *c = mk(p, p->f_small, "announced:", 0), *d = mk(p, p->f_small, "matches", 0);
	double h1 = MAX(lh(a), lh(b)), h2 = lh(c) + 6;
	double xm = p->x1 - 8 - lw(d) - BOX - 6;

	if (draw) {
		show(p, a, p->x0 + 8, y);
		show(p, b, p->x0 + 90, y);
		show(p, c, p->x0 + 8, y + h1 + 4);
		hline(p, p->x0 + 90, xm - 10, y + h1 + 4 + lh(c), 0.6, 0);
		box(p, xm, y + h1 + 4 + (lh(c) - BOX) / 2);
		show(p, d, xm + BOX + 4, y + h1 + 4);
	}
	unref(a);
	unref(b);
	unref(c);
	unref(d);
	return h1 + 4 + h2 + 4;
}

/* The first page's header; returns its height. */
static double sheet_header(struct pdf *p, bool draw)
{
	const struct rd_doc *doc = p->doc;
	double y = p->top, w = p->x1 - p->x0;
	PangoLayout *l;
	char buf[256];

	if (doc->draft) {
		l = mk(p, p->f_title, "DRAFT \xe2\x80\x94 NOT FROZEN: do not use this sheet to verify anything", w - 12);
		if (draw) {
			cairo_save(p->cr);
			cairo_set_source_rgb(p->cr, 0.7, 0, 0);
			cairo_set_line_width(p->cr, 1.5);
			cairo_rectangle(p->cr, p->x0, y, w, lh(l) + 10);
			cairo_stroke(p->cr);
			show(p, l, p->x0 + 6, y + 5);
			cairo_restore(p->cr);
		}
		y += lh(l) + 18;
		unref(l);
	}
	l = mk(p, p->f_title, "Key-signing party: verification sheet", w);
	if (draw)
		show(p, l, p->x0, y);
	y += lh(l) + 6;
	unref(l);
	y += table_row(p, draw, y, "Party", doc->name_esc, p->f_text);
	y += table_row(p, draw, y, "Date", ksp_party_get_date(doc->party), p->f_text);
	if (*doc->location_esc)
		y += table_row(p, draw, y, "Place", doc->location_esc, p->f_text);
	if (*doc->organizer_groups)
		y += table_row(p, draw, y, "Organizer", doc->organizer_groups, p->f_mono);
	y += table_row(p, draw, y, "List version", doc->version_s, p->f_text);
	y += table_row(p, draw, y, "Participants", doc->count_s, p->f_text);
	if (doc->you) {
		snprintf(buf, sizeof(buf), "Personal copy of participant #%d (%s)", doc->you->number,
			 doc->you->fpr_groups);
		l = mk(p, p->f_bold, buf, w - 12);
		y += 6;
		if (draw) {
			cairo_save(p->cr);
			cairo_set_line_width(p->cr, 0.8);
			cairo_rectangle(p->cr, p->x0, y, w, lh(l) + 8);
			cairo_stroke(p->cr);
			cairo_restore(p->cr);
			show(p, l, p->x0 + 6, y + 4);
		}
		y += lh(l) + 8;
		unref(l);
	}
	/* the digests, with room to write the announced ones */
	y += 8;
	{
		double y0 = y;
		y += 6;
		if (doc->draft) {
			l = mk(p, p->f_text, "No digests: the list is not frozen yet.", w - 16);
		} else {
			l = mk(p, p->f_small,
			       "Write down the digests the organizer announces and compare them with these "
			       "(and with sha256sum of the list file).", w - 16);
		}
		if (draw)
			show(p, l, p->x0 + 8, y);
		y += lh(l) + 6;
		unref(l);
		if (!doc->draft) {
			y += digest_rows(p, draw, y, "SHA-256", doc->sha256_groups);
			y += digest_rows(p, draw, y, "RIPEMD-160", doc->rmd160_groups);
		}
		if (draw) {
			cairo_save(p->cr);
			cairo_set_line_width(p->cr, 0.8);
			cairo_rectangle(p->cr, p->x0, y0, w, y - y0 + 2);
			cairo_stroke(p->cr);
			cairo_restore(p->cr);
		}
		y += 10;
	}
	l = mk(p, p->f_small,
	       "For each key: tick \"fingerprint OK\" when its owner confirms the fingerprint read out. "
	       "For each user ID: tick \"ID checked\" when an identity document matches it, or "
	       "\"rejected\" if you will not sign it.", w);
	if (draw)
		show(p, l, p->x0, y);
	y += lh(l) + 8;
	unref(l);
	return y - p->top;
}

static int footer(struct pdf *p, int page)
{
	const struct rd_doc *doc = p->doc;
	PangoLayout *a, *b;
	struct strbuf sb;
	char buf[64];

	snprintf(buf, sizeof(buf), "page %d of %d", page, p->pages);
	b = mk(p, p->f_tiny, buf, 0);
	strbuf_init(&sb);
	strbuf_addstr(&sb, doc->name_esc);
	if (doc->kind == KSP_RENDER_SHEET) {
		strbuf_addf(&sb, " \xe2\x80\x94 list version %s", doc->version_s);
		if (!doc->draft)
			strbuf_addf(&sb, " \xe2\x80\x94 SHA-256 %.16s\xe2\x80\xa6", doc->sha256);
	}
	if (!strbuf_ok(&sb)) {
		strbuf_release(&sb);
		unref(b);
		return -ENOMEM;
	}
	a = mk(p, p->f_tiny, strbuf_str(&sb), p->x1 - p->x0 - lw(b) - 20);
	strbuf_release(&sb);
	pango_layout_set_ellipsize(a, PANGO_ELLIPSIZE_END);
	pango_layout_set_wrap(a, PANGO_WRAP_CHAR);
	pango_layout_set_height(a, 0); /* one line */
	cairo_save(p->cr);
	cairo_set_source_rgb(p->cr, 0.3, 0.3, 0.3);
	show(p, a, p->x0, p->ph - MARGIN_BOTTOM + 18);
	show(p, b, p->x1 - lw(b), p->ph - MARGIN_BOTTOM + 18);
	cairo_restore(p->cr);
	unref(a);
	unref(b);
	return 0;
}

/* (Long: the sheet drawn top to bottom, one block per part of the page.) */
static int sheet(struct pdf *p)
{
	const struct rd_doc *doc = p->doc;
	PangoLayout *l_ok = mk(p, p->f_tiny, "fingerprint OK", 0), *l_id = mk(p, p->f_tiny, "ID checked", 0),
		    *l_rej = mk(p, p->f_tiny, "rejected", 0);
	double xi = p->x0 + INDENT, tick_w = BOX + 3 + lw(l_id) + 8 + BOX + 3 + lw(l_rej) + 10;
	double w_uid = p->x1 - xi - tick_w, w_fpr_max = p->x1 - xi - lw(l_ok) - BOX - 12;
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	double y, page_top;
	int page, r = 0;

	/* pass 1: rows and their heights */
	for (size_t i = 0; i < doc->n_parts; i++) {
		const struct rd_part *rp = &doc->parts[i];
		size_t nu = ksp_participant_get_uid_count(rp->p), need = n + 5 + nu;
		char buf[160];

		if (need > cap) {
			size_t nc = MAX(need, cap * 2);
			struct row *nr = realloc(rows, nc * sizeof(*nr));
			if (nr == NULL) {
				r = -ENOMEM;
				goto out;
			}
			rows = nr;
			cap = nc;
		}
		memset(&rows[n], 0, sizeof(*rows));
		rows[n].kind = R_HEAD;
		rows[n].first = true;
		rows[n].you = rp->is_you;
		snprintf(buf, sizeof(buf), "#%d", rp->number);
		rows[n].a = mk(p, p->f_num, buf, 0);
		rows[n].b = mk(p, fpr_font(p, rp->fpr_hex), rp->fpr_groups, w_fpr_max);
		rows[n].pad = 5;
		rows[n].h = rows[n].pad + MAX(lh(rows[n].a), lh(rows[n].b)) + 1;
		n++;
		if (rp->is_you) {
			memset(&rows[n], 0, sizeof(*rows));
			rows[n].kind = R_YOU;
			rows[n].you = true;
			rows[n].a = mk(p, p->f_bold, "\xe2\x96\xb6 this is you: check it is read out correctly", 0);
			rows[n].h = lh(rows[n].a) + 1;
			n++;
		}
		memset(&rows[n], 0, sizeof(*rows));
		rows[n].kind = R_META;
		rows[n].you = rp->is_you;
		snprintf(buf, sizeof(buf), "%s, created %s%s%s", ksp_participant_get_algo(rp->p), rp->created,
			 *rp->expires ? ", expires " : "", rp->expires);
		rows[n].a = mk(p, p->f_small, buf, 0);
		rows[n].h = lh(rows[n].a) + 2;
		n++;
		if (rp->same_as[0]) {
			memset(&rows[n], 0, sizeof(*rows));
			rows[n].kind = R_META;
			rows[n].you = rp->is_you;
			snprintf(buf, sizeof(buf), "\xe2\x9a\xa0 an address of this key is also on %s: two keys of one person?",
				 rp->same_as);
			rows[n].a = mk(p, p->f_small, buf, 0);
			rows[n].h = lh(rows[n].a) + 2;
			n++;
		}
		if (rp->repair && doc->repair_n) {
			/* numbers and fingerprints only: no user ID in it */
			char *line = NULL;
			if (asprintf(&line, "\xe2\x86\x92 certify for the repair: %s", rp->repair) < 0) {
				r = -ENOMEM;
				goto out;
			}
			memset(&rows[n], 0, sizeof(*rows));
			rows[n].kind = R_META;
			rows[n].you = rp->is_you;
			rows[n].a = mk(p, p->f_bold, line, p->x1 - xi);
			free(line);
			rows[n].h = lh(rows[n].a) + 2;
			n++;
		}
		for (size_t u = 0; u < nu; u++) {
			size_t len;
			const char *s = ksp_participant_get_uid(rp->p, u, &len);
			memset(&rows[n], 0, sizeof(*rows));
			rows[n].kind = R_UID;
			rows[n].you = rp->is_you;
			rows[n].a = mk_esc(p, p->f_uid, s, len, w_uid);
			if (rows[n].a == NULL) {
				r = -ENOMEM;
				goto out;
			}
			glyph_gaps(p, rows[n].a, rp->number, rp->fpr_hex);
			rows[n].h = lh(rows[n].a) + 1.5;
			n++;
		}
		rows[n - 1].h += 4; /* bottom padding of the entry */
	}
	/* pagination: an entry stays on one page unless it is taller than one */
	page = 0;
	page_top = p->top + sheet_header(p, false);
	y = page_top;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double hh = rows[i].h;
		while (j < n && !rows[j].first)
			hh += rows[j++].h;
		if (y + hh > p->bottom && y > page_top && hh <= p->bottom - p->top) {
			page++;
			y = page_top = p->top;
		}
		for (size_t k = i; k < j; k++) {
			if (y + rows[k].h > p->bottom && y > page_top) {
				page++;
				y = page_top = p->top;
			}
			rows[k].page = page;
			rows[k].y = y;
			y += rows[k].h;
		}
		i = j;
	}
	p->pages = page + 1;
	/* pass 2: draw */
	sheet_header(p, true);
	page = 0;
	for (size_t i = 0; i < n; i++) {
		struct row *w = &rows[i];
		double ty = w->y + w->pad;

		if (w->page != page) {
			r = footer(p, page + 1);
			if (r < 0)
				goto out;
			cairo_show_page(p->cr);
			page = w->page;
		}
		if (w->you) {
			cairo_save(p->cr);
			cairo_set_source_rgb(p->cr, 1.0, 0.94, 0.62);
			cairo_rectangle(p->cr, p->x0 - 4, w->y + (w->first ? 1.5 : 0), p->x1 - p->x0 + 8,
					w->h - (w->first ? 1.5 : 0));
			cairo_fill(p->cr);
			cairo_restore(p->cr);
		}
		switch (w->kind) {
		case R_HEAD: {
			double fh = first_line_h(w->b);
			hline(p, p->x0, p->x1, w->y + 1, 0.5, 0.55);
			show(p, w->a, p->x0, ty + (fh - first_line_h(w->a)) / 2);
			show(p, w->b, xi, ty);
			box(p, p->x1 - lw(l_ok) - BOX - 3, ty + (fh - BOX) / 2);
			show(p, l_ok, p->x1 - lw(l_ok), ty + (fh - lh(l_ok)) / 2);
			break;
		}
		case R_YOU:
		case R_META:
			show(p, w->a, xi, ty);
			break;
		case R_UID: {
			double fh = first_line_h(w->a), by = ty + (fh - BOX) / 2, ly = ty + (fh - lh(l_id)) / 2;
			double x = xi;
			box(p, x, by);
			x += BOX + 3;
			show(p, l_id, x, ly);
			x += lw(l_id) + 8;
			box(p, x, by);
			x += BOX + 3;
			show(p, l_rej, x, ly);
			show(p, w->a, xi + tick_w, ty);
			break;
		}
		}
	}
	r = footer(p, page + 1);
	if (r < 0)
		goto out;
	cairo_show_page(p->cr);
	r = p->pages;
out:
	for (size_t i = 0; i < n; i++) {
		unref(rows[i].a);
		unref(rows[i].b);
	}
	free(rows);
	unref(l_ok);
	unref(l_id);
	unref(l_rej);
	return r;
}

/* --- slips --- */

/* The modules as one path: no seams between them when rasterized. */
static void qr_path(cairo_t *cr, const struct rd_qr *q, double x, double y, double m)
{
	for (int yy = 0; yy < q->width; yy++)
		for (int xx = 0; xx < q->width;) {
			int run = 0;
			while (xx + run < q->width && rd_qr_dark(q, xx + run, yy))
				run++;
			if (run) {
				cairo_rectangle(cr, x + (xx + QR_QUIET) * m, y + (yy + QR_QUIET) * m, run * m, m);
				xx += run;
			} else {
				xx++;
			}
		}
}

/* A key's QR code, drawn once into a recording surface that every slip
 * paints: the PDF holds it once (a form XObject), not once per slip. */
static cairo_surface_t *qr_surface(const struct rd_qr *q, double size)
{
	cairo_rectangle_t ext = { 0, 0, size, size };
	cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
	cairo_t *cr = cairo_create(s);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, 0, 0, size, size);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	qr_path(cr, q, 0, 0, size / (q->width + 2 * QR_QUIET));
	cairo_fill(cr);
	cairo_destroy(cr);
	return s;
}

static void draw_qr(struct pdf *p, cairo_surface_t *qr, double x, double y)
{
	cairo_save(p->cr);
	cairo_set_source_surface(p->cr, qr, x, y);
	cairo_paint(p->cr);
	cairo_restore(p->cr);
}

static void dashed(struct pdf *p, double x0, double y0, double x1, double y1)
{
	static const double dash[] = { 4.0, 3.0 };

	cairo_save(p->cr);
	cairo_set_line_width(p->cr, 0.5);
	cairo_set_source_rgb(p->cr, 0.35, 0.35, 0.35);
	cairo_set_dash(p->cr, dash, 2, 0);
	cairo_move_to(p->cr, x0, y0);
	cairo_line_to(p->cr, x1, y1);
	cairo_stroke(p->cr);
	cairo_restore(p->cr);
}

static void cut_line(struct pdf *p, double y)
{
	dashed(p, p->x0 - 10, y, p->x1 + 10, y);
}

#define SLIP_PAD 8.0

struct slip {
	PangoLayout *pub, *fpr, **uid;
	size_t n_uid;
	cairo_surface_t *qr;
	double h, w;        /* w: the column's width */
	unsigned int per_page, count;
	unsigned int cols;  /* 2 in the compact layout (KSP_RENDER_COMPACT) */
	double pad, qr_size;
};

static void slip_free(struct slip *s)
{
	unref(s->pub);
	unref(s->fpr);
	for (size_t i = 0; s->uid && i < s->n_uid; i++) /* uid NULL: its calloc failed */
		unref(s->uid[i]);
	free(s->uid);
	if (s->qr)
		cairo_surface_destroy(s->qr);
	memset(s, 0, sizeof(*s));
}

static int slip_make(struct pdf *p, const struct rd_part *rp, struct slip *s)
{
	bool qr = (p->doc->flags & KSP_RENDER_QR) != 0, compact = (p->doc->flags & KSP_RENDER_COMPACT) != 0;
	double tx, w, h;
	char buf[160];
	int r;

	memset(s, 0, sizeof(*s));
	s->cols = compact ? 2 : 1;
	s->pad = compact ? 5.0 : SLIP_PAD;
	s->qr_size = compact ? 44.0 : QR_SIZE;
	s->w = (p->x1 - p->x0) / s->cols;
	tx = p->x0 + s->pad + (qr ? s->qr_size + (compact ? 6 : 12) : 0);
	w = p->x0 + s->w - s->pad - tx;
	snprintf(buf, sizeof(buf), "pub  %s, created %s%s%s", ksp_participant_get_algo(rp->p), rp->created,
		 *rp->expires ? ", expires " : "", rp->expires);
	s->pub = mk(p, compact ? p->f_tiny : p->f_small, buf, w);
	s->fpr = mk(p, compact ? p->f_mono_small : fpr_font(p, rp->fpr_hex), rp->fpr_groups, w);
	const char *mid = strstr(rp->fpr_groups, "  ");
	if (s->fpr && pango_layout_get_line_count(s->fpr) > 1 && mid && strlen(rp->fpr_groups) < sizeof(buf)) {
		/* too wide for one line: broken in the middle, as gpg groups it
		 * (5 + 5 groups), not where the width ends (8 + 2) */
		snprintf(buf, sizeof(buf), "%.*s\n%s", (int)(mid - rp->fpr_groups), rp->fpr_groups, mid + 2);
		unref(s->fpr);
		s->fpr = mk(p, compact ? p->f_mono_small : fpr_font(p, rp->fpr_hex), buf, w);
	}
	h = lh(s->pub) + 2 + lh(s->fpr) + 3;
	s->n_uid = ksp_participant_get_uid_count(rp->p);
	s->uid = calloc(s->n_uid ? s->n_uid : 1, sizeof(*s->uid));
	if (s->uid == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_uid; i++) {
		size_t len;
		const char *u = ksp_participant_get_uid(rp->p, i, &len);
		struct strbuf sb;
		char *e = NULL;
		if (ksp_escape(u, len, KSP_ESCAPE_TERMINAL, &e) < 0)
			return -ENOMEM;
		char *iso = uid_isolated(e);
		free(e);
		if (iso == NULL)
			return -ENOMEM;
		strbuf_init(&sb);
		strbuf_addstr(&sb, "uid  ");
		strbuf_addstr(&sb, iso);
		free(iso);
		if (!strbuf_ok(&sb)) {
			strbuf_release(&sb);
			return -ENOMEM;
		}
		s->uid[i] = mk(p, compact ? p->f_small : p->f_text, strbuf_str(&sb), w);
		strbuf_release(&sb);
		glyph_gaps(p, s->uid[i], rp->number, rp->fpr_hex);
		h += lh(s->uid[i]);
	}
	if (qr) {
		struct rd_qr *q = NULL;
		r = rd_qr_new(p->doc->ctx, p->err, rp->fpr_hex, &q);
		if (r < 0)
			return r;
		s->qr = qr_surface(q, s->qr_size);
		rd_qr_free(q);
		if (cairo_surface_status(s->qr) != CAIRO_STATUS_SUCCESS)
			return -ENOMEM;
		h = MAX(h, s->qr_size);
	}
	s->h = h + 2 * s->pad;
	s->per_page = (unsigned int)((p->bottom + MARGIN_BOTTOM - 24 - p->top) / s->h);
	if (s->per_page == 0)
		s->per_page = 1;
	s->per_page *= s->cols;
	s->count = p->doc->count ? p->doc->count : s->per_page;
	return 0;
}

static void slip_draw(struct pdf *p, const struct slip *s, double x, double y)
{
	double tx = x + s->pad + (s->qr ? s->qr_size + (s->cols > 1 ? 6 : 12) : 0), ty;
	double th = lh(s->pub) + 2 + lh(s->fpr) + 3;

	for (size_t i = 0; i < s->n_uid; i++)
		th += lh(s->uid[i]);
	ty = y + (s->h - th) / 2;
	if (s->qr)
		draw_qr(p, s->qr, x + s->pad, y + (s->h - s->qr_size) / 2);
	show(p, s->pub, tx, ty);
	ty += lh(s->pub) + 2;
	show(p, s->fpr, tx, ty);
	ty += lh(s->fpr) + 3;
	for (size_t i = 0; i < s->n_uid; i++) {
		show(p, s->uid[i], tx, ty);
		ty += lh(s->uid[i]);
	}
	cut_line(p, y + s->h);
}

static int slips(struct pdf *p)
{
	const struct rd_doc *doc = p->doc;
	struct slip *sl;
	int r = 0, page = 0;

	sl = calloc(doc->n_selected, sizeof(*sl));
	if (sl == NULL)
		return -ENOMEM;
	p->pages = 0;
	for (size_t i = 0; i < doc->n_selected; i++) {
		r = slip_make(p, &doc->parts[doc->sel[i]], &sl[i]);
		if (r < 0)
			goto out;
		p->pages += (int)((sl[i].count + sl[i].per_page - 1) / sl[i].per_page);
	}
	for (size_t i = 0; i < doc->n_selected; i++) {
		unsigned int rows = sl[i].per_page / sl[i].cols;
		for (unsigned int c = 0; c < sl[i].count; c++) {
			unsigned int k = c % sl[i].per_page, col = k / rows, row = k % rows;
			double y = p->top + row * sl[i].h, x = p->x0 + col * sl[i].w;
			if (k == 0) {
				if (page > 0)
					cairo_show_page(p->cr);
				page++;
				cut_line(p, y);
				if (sl[i].cols > 1) { /* the cut between the columns */
					unsigned int used = sl[i].count - c < sl[i].per_page ? sl[i].count - c : sl[i].per_page;
					unsigned int depth = used < rows ? used : rows;
					dashed(p, p->x0 + sl[i].w, y - 6, p->x0 + sl[i].w, y + depth * sl[i].h + 6);
				}
			}
			slip_draw(p, &sl[i], x, y);
		}
	}
	cairo_show_page(p->cr);
	r = p->pages;
out:
	for (size_t i = 0; i < doc->n_selected; i++)
		slip_free(&sl[i]);
	free(sl);
	return r;
}

int rd_pdf_render(const struct rd_doc *doc, struct strbuf *out, ksp_draw_error_fn err)
{
	struct pdf p;
	int r;

	r = pdf_open(&p, doc, out, err);
	if (r == 0) {
		/* the party's own fields, once (their layouts are made per page) */
		const char *fields[] = { doc->name_esc, doc->location_esc };
		for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
			PangoLayout *l = mk(&p, p.f_text, fields[i] ? fields[i] : "", 0);
			glyph_gaps(&p, l, 0, NULL);
			unref(l);
		}
		r = doc->kind == KSP_RENDER_SHEET ? sheet(&p) : slips(&p);
	}
	if (r >= 0 && p.failed < 0)
		r = p.failed;
	if (r >= 0 && p.missing_glyphs > 0 && (doc->flags & KSP_RENDER_STRICT_FONTS)) {
		err(doc->ctx, "%lu character(s) have no glyph in any installed font", p.missing_glyphs);
		r = -EILSEQ;
	}
	return pdf_close(&p, r);
}
