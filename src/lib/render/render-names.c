// SPDX-License-Identifier: LGPL-2.1-or-later
/* The names of the sheet and slip templates (ksp-party-sheet(1) lists
 * them) and their values from the document (render-private.h), for the
 * template engine (lib/template.c): which name is known where, what it
 * holds, and the escaping of each output format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/render/render-private.h"
#include "lib/template.h"

enum frame_kind { F_TOP, F_PART, F_UID, F_SLIP };
#define T_TEXT KSP_TPL_TEXT
#define T_BOOL KSP_TPL_BOOL
#define T_LIST KSP_TPL_LIST
#define T_MARKUP KSP_TPL_MARKUP

enum name_id {
	N_PARTY_NAME,
	N_PARTY_DATE,
	N_PARTY_LOCATION,
	N_PARTY_ORGANIZER,
	N_LIST_VERSION,
	N_LIST_SHA256,
	N_LIST_SHA256_GROUPS,
	N_LIST_RMD160,
	N_LIST_RMD160_GROUPS,
	N_PARTICIPANTS,
	N_PARTICIPANTS_COUNT,
	N_DRAFT,
	N_FROZEN,
	N_PERSONAL,
	N_YOU_NUMBER,
	N_YOU_FINGERPRINT,
	N_PAPER,
	N_QR,
	N_NUMBER,
	N_FINGERPRINT,
	N_FINGERPRINT_HEX,
	N_ALGO,
	N_CREATED,
	N_EXPIRES,
	N_IS_YOU,
	N_UIDS,
	N_UIDS_COUNT,
	N_SLIPS,
	N_QR_CODE,
	N_UID,
	N_UID_NUMBER,
	N_PRIMARY,
	N_SLIP_NUMBER,
	N_SAME_ADDRESS,
	N_REPAIR,
	N_REPAIR_PLAN,
	N_REPAIR_COUNT,
	N_COUNT_
};

#define K_SHEET (1u << KSP_RENDER_SHEET)
#define K_SLIPS (1u << KSP_RENDER_SLIPS)
#define K_ALL (K_SHEET | K_SLIPS)

static const struct name_def {
	const char *name;
	unsigned char frame; /* where the value lives */
	unsigned char type;
	unsigned char child; /* T_LIST: the frame of an item */
	unsigned char kinds; /* templates it is valid in */
} names[N_COUNT_] = {
	[N_PARTY_NAME] = { "party.name", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_DATE] = { "party.date", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_LOCATION] = { "party.location", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTY_ORGANIZER] = { "party.organizer", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_VERSION] = { "list.version", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_SHA256] = { "list.sha256", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_SHA256_GROUPS] = { "list.sha256_groups", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_RMD160] = { "list.ripemd160", F_TOP, T_TEXT, 0, K_ALL },
	[N_LIST_RMD160_GROUPS] = { "list.ripemd160_groups", F_TOP, T_TEXT, 0, K_ALL },
	[N_PARTICIPANTS] = { "participants", F_TOP, T_LIST, F_PART, K_ALL },
	[N_PARTICIPANTS_COUNT] = { "participants.count", F_TOP, T_TEXT, 0, K_ALL },
	[N_DRAFT] = { "draft", F_TOP, T_BOOL, 0, K_ALL },
	[N_FROZEN] = { "frozen", F_TOP, T_BOOL, 0, K_ALL },
	[N_PERSONAL] = { "personal", F_TOP, T_BOOL, 0, K_ALL },
	[N_YOU_NUMBER] = { "you.number", F_TOP, T_TEXT, 0, K_ALL },
	[N_YOU_FINGERPRINT] = { "you.fingerprint", F_TOP, T_TEXT, 0, K_ALL },
	[N_PAPER] = { "paper", F_TOP, T_TEXT, 0, K_ALL },
	[N_QR] = { "qr", F_TOP, T_BOOL, 0, K_SLIPS },
	[N_NUMBER] = { "number", F_PART, T_TEXT, 0, K_ALL },
	[N_FINGERPRINT] = { "fingerprint", F_PART, T_TEXT, 0, K_ALL },
	[N_FINGERPRINT_HEX] = { "fingerprint.hex", F_PART, T_TEXT, 0, K_ALL },
	[N_ALGO] = { "algo", F_PART, T_TEXT, 0, K_ALL },
	[N_CREATED] = { "created", F_PART, T_TEXT, 0, K_ALL },
	[N_EXPIRES] = { "expires", F_PART, T_TEXT, 0, K_ALL },
	[N_IS_YOU] = { "is_you", F_PART, T_BOOL, 0, K_ALL },
	[N_UIDS] = { "uids", F_PART, T_LIST, F_UID, K_ALL },
	[N_UIDS_COUNT] = { "uids.count", F_PART, T_TEXT, 0, K_ALL },
	[N_SLIPS] = { "slips", F_PART, T_LIST, F_SLIP, K_SLIPS },
	[N_QR_CODE] = { "qr.code", F_PART, T_MARKUP, 0, K_SLIPS },
	[N_UID] = { "uid", F_UID, T_TEXT, 0, K_ALL },
	[N_UID_NUMBER] = { "uid.number", F_UID, T_TEXT, 0, K_ALL },
	[N_PRIMARY] = { "primary", F_UID, T_BOOL, 0, K_ALL },
	[N_SLIP_NUMBER] = { "slip.number", F_SLIP, T_TEXT, 0, K_SLIPS },
	[N_SAME_ADDRESS] = { "same_address", F_PART, T_TEXT, 0, K_ALL },
	[N_REPAIR] = { "repair", F_PART, T_TEXT, 0, K_SHEET },
	[N_REPAIR_PLAN] = { "repair_plan", F_TOP, T_BOOL, 0, K_SHEET },
	[N_REPAIR_COUNT] = { "repair.count", F_TOP, T_TEXT, 0, K_SHEET },
};

static const char *const frame_names[] = {
	[F_TOP] = "the top level",
	[F_PART] = "{{#participants}}",
	[F_UID] = "{{#uids}}",
	[F_SLIP] = "{{#slips}}",
};

static int find_name(const char *s, size_t n)
{
	for (int i = 0; i < N_COUNT_; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return i;
	return -1;
}

/* The frame of the values inside the blocks @open: a {{#list}} opens its
 * items' frame, any other block keeps the one around it. */
static unsigned char frame_in(const struct ksp_tpl_ref *open, size_t n_open, bool *found, unsigned char want)
{
	unsigned char f = F_TOP;

	*found = want == F_TOP;
	for (size_t i = 0; i < n_open; i++) {
		if (open[i].tag == KSP_TPL_SECTION && names[open[i].id].type == T_LIST)
			f = names[open[i].id].child;
		*found |= f == want;
	}
	return f;
}

static int resolve(void *data, struct ksp_ctx *ctx, const char *source, const struct ksp_tpl_ref *ref,
		   const struct ksp_tpl_ref *open, size_t n_open)
{
	unsigned int kind = *(const unsigned int *)data;
	int id = find_name(ref->name, ref->len);
	bool found;

	if (id < 0 || !(names[id].kinds & (1u << kind))) {
		ksp_set_error(ctx, "%s:%u: unknown name '{{%.*s}}'%s; ksp-party-sheet(1) lists the names", source,
			      ref->line, (int)ref->len, ref->name, id >= 0 ? " in this kind of template" : "");
		return -EINVAL;
	}
	if (ref->tag != KSP_TPL_END) {
		frame_in(open, n_open, &found, names[id].frame);
		if (!found) {
			ksp_set_error(ctx, "%s:%u: '{{%s}}' is only known inside %s", source, ref->line, names[id].name,
				      frame_names[names[id].frame]);
			return -EINVAL;
		}
	}
	if (ref->tag == KSP_TPL_VAR && names[id].type == T_LIST) {
		ksp_set_error(ctx, "%s:%u: '{{%s}}' is a list: repeat a block over it with {{#%s}}...{{/%s}}", source,
			      ref->line, names[id].name, names[id].name, names[id].name);
		return -EINVAL;
	}
	return id;
}

int rd_template_parse(struct ksp_ctx *ctx, const char *source, const char *text, size_t len,
		      unsigned int kind, struct ksp_tpl **ret)
{
	const struct ksp_tpl_syntax syn = { .data = &kind, .widths = true, .resolve = resolve };

	return ksp_tpl_parse(ctx, &syn, source, text, len, ret);
}

/* --- values --- */

struct rctx {
	const struct rd_doc *doc;
	unsigned int format;
	char **qr_cache; /* per participant */
	const struct ksp_draw *draw; /* the drawing module, once loaded */
};

/* The item of the innermost list block whose items are @kind: its index
 * into the participants, the user IDs or the slips. */
static bool find_frame(const struct rctx *rc, const struct ksp_tpl_frame *frames, size_t depth, unsigned char kind,
		       size_t *index)
{
	for (size_t i = depth; i-- > 0;)
		if (names[frames[i].id].child == kind) {
			*index = frames[i].index;
			/* slips: only the selected participants, in order */
			if (kind == F_PART && rc->doc->kind == KSP_RENDER_SLIPS)
				*index = rc->doc->sel[*index];
			return true;
		}
	return kind == F_TOP;
}

static size_t slip_count(const struct rd_doc *doc)
{
	return doc->count ? doc->count : 8;
}

static void set_text(struct ksp_tpl_value *v, const char *s)
{
	v->type = T_TEXT;
	v->s = s ? s : "";
	v->len = strlen(v->s);
}

static int get_qr(struct rctx *rc, size_t part, struct ksp_tpl_value *v)
{
	v->type = T_MARKUP;
	v->s = "";
	v->len = 0;
	if (!(rc->doc->flags & KSP_RENDER_QR))
		return 0;
	if (rc->qr_cache[part] == NULL) {
		struct rd_qr *q = NULL;
		struct strbuf sb;
		int r;

		/* libqrencode is in the drawing module (lib/draw.h): looked up
		 * once per document, not per code */
		if (rc->draw == NULL && (rc->draw = ksp_draw_load(rc->doc->ctx)) == NULL)
			return -ELIBACC;
		r = rc->draw->qr(rc->doc->ctx, ksp_set_error, rc->doc->parts[part].fpr_hex, &q);
		if (r < 0)
			return r;
		strbuf_init(&sb);
		r = rc->format == KSP_FORMAT_HTML ? rd_qr_svg(q, &sb) : rd_qr_text(q, &sb);
		rd_qr_free(q);
		if (r < 0) {
			strbuf_release(&sb);
			return r;
		}
		rc->qr_cache[part] = strbuf_steal(&sb);
		if (rc->qr_cache[part] == NULL)
			return -ENOMEM;
	}
	v->s = rc->qr_cache[part];
	v->len = strlen(v->s);
	return 0;
}

static size_t list_len(const struct rctx *rc, int id, const struct rd_part *part)
{
	switch (id) {
	case N_PARTICIPANTS:
		return rc->doc->kind == KSP_RENDER_SLIPS ? rc->doc->n_selected : rc->doc->n_parts;
	case N_UIDS:
		return ksp_participant_get_uid_count(part->p);
	case N_SLIPS:
		return slip_count(rc->doc);
	}
	return 0;
}

static int get_value(void *data, const struct ksp_tpl_ref *ref, const struct ksp_tpl_frame *frames, size_t depth,
		     struct ksp_tpl_value *v)
{
	struct rctx *rc = data;
	const struct rd_doc *doc = rc->doc;
	const struct rd_part *part = NULL;
	int id = ref->id;
	size_t index = 0, pi;

	if (!find_frame(rc, frames, depth, names[id].frame, &index))
		return -EINVAL; /* the parser prevents it */
	if (names[id].frame == F_PART || names[id].frame == F_UID) {
		if (!find_frame(rc, frames, depth, F_PART, &pi))
			return -EINVAL;
		part = &doc->parts[pi];
	}
	switch (id) {
	case N_PARTY_NAME: set_text(v, ksp_party_get_name(doc->party)); break;
	case N_PARTY_DATE: set_text(v, ksp_party_get_date(doc->party)); break;
	case N_PARTY_LOCATION: set_text(v, ksp_party_get_location(doc->party)); break;
	case N_PARTY_ORGANIZER: set_text(v, doc->organizer_groups); break;
	case N_LIST_VERSION: set_text(v, doc->version_s); break;
	case N_LIST_SHA256: set_text(v, doc->sha256); break;
	case N_LIST_SHA256_GROUPS: set_text(v, doc->sha256_groups); break;
	case N_LIST_RMD160: set_text(v, doc->rmd160); break;
	case N_LIST_RMD160_GROUPS: set_text(v, doc->rmd160_groups); break;
	case N_PARTICIPANTS_COUNT: set_text(v, doc->count_s); break;
	case N_DRAFT: v->type = T_BOOL; v->b = doc->draft; break;
	case N_FROZEN: v->type = T_BOOL; v->b = !doc->draft; break;
	case N_PERSONAL: v->type = T_BOOL; v->b = doc->you != NULL; break;
	case N_YOU_NUMBER: set_text(v, doc->you ? doc->you->number_s : ""); break;
	case N_YOU_FINGERPRINT: set_text(v, doc->you ? doc->you->fpr_groups : ""); break;
	case N_PAPER: set_text(v, doc->paper == KSP_PAPER_LETTER ? "letter" : "A4"); break;
	case N_QR: v->type = T_BOOL; v->b = (doc->flags & KSP_RENDER_QR) != 0; break;
	case N_NUMBER: set_text(v, part->number_s); break;
	case N_FINGERPRINT: set_text(v, part->fpr_groups); break;
	case N_FINGERPRINT_HEX: set_text(v, part->fpr_hex); break;
	case N_ALGO: set_text(v, ksp_participant_get_algo(part->p)); break;
	case N_CREATED: set_text(v, part->created); break;
	case N_EXPIRES: set_text(v, part->expires); break;
	case N_SAME_ADDRESS: set_text(v, part->same_as); break;
	case N_REPAIR: set_text(v, doc->repair_n ? part->repair : ""); break;
	case N_REPAIR_PLAN: v->type = T_BOOL; v->b = doc->repair_n > 0; break;
	case N_REPAIR_COUNT: set_text(v, doc->repair_s); break;
	case N_IS_YOU: v->type = T_BOOL; v->b = part->is_you; break;
	case N_UIDS_COUNT:
		snprintf(v->buf, sizeof(v->buf), "%zu", ksp_participant_get_uid_count(part->p));
		set_text(v, v->buf);
		break;
	case N_QR_CODE: return get_qr(rc, (size_t)(part - doc->parts), v);
	case N_UID:
		v->type = T_TEXT;
		v->s = ksp_participant_get_uid(part->p, index, &v->len);
		if (v->s == NULL) {
			v->s = "";
			v->len = 0;
		}
		break;
	case N_UID_NUMBER:
	case N_SLIP_NUMBER:
		snprintf(v->buf, sizeof(v->buf), "%zu", index + 1);
		set_text(v, v->buf);
		break;
	case N_PRIMARY: v->type = T_BOOL; v->b = index == 0; break;
	case N_PARTICIPANTS:
	case N_UIDS:
	case N_SLIPS:
		v->type = T_LIST;
		v->n = list_len(rc, id, part);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int rd_template_render(const struct ksp_tpl *t, const struct rd_doc *doc, unsigned int format, struct strbuf *out)
{
	struct rctx rc = { .doc = doc, .format = format };
	const struct ksp_tpl_data d = { .data = &rc, .value = get_value };
	int r;

	rc.qr_cache = calloc(doc->n_parts ? doc->n_parts : 1, sizeof(char *));
	if (rc.qr_cache == NULL)
		return -ENOMEM;
	r = ksp_tpl_render(t, &d, format == KSP_FORMAT_HTML ? KSP_ESCAPE_HTML : KSP_ESCAPE_TERMINAL, out);
	for (size_t i = 0; i < doc->n_parts; i++)
		free(rc.qr_cache[i]);
	free(rc.qr_cache);
	if (r == -ENOMEM)
		ksp_set_error(doc->ctx, "out of memory rendering the template");
	return r;
}
