// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tsig-regex.c: a bounded matcher for the regular expressions of trust
 * signatures (tsig-regex.h).  The expression is parsed (recursive descent,
 * at most TSIG_REGEX_MAX_NEST groups deep) into a tree, the tree compiled
 * into a Thompson NFA (Pike's instruction form), and the NFA simulated over
 * the subject: every state is entered at most once per position, so a
 * match costs at most (subject length + 1) x (program length) steps, and
 * TSIG_REGEX_MAX_STEPS in any case.  No backtracking, no back-references,
 * no counted repetition: nothing in here grows faster than linearly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/tsig-regex.h"

enum nkind { N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_CAT, N_ALT, N_STAR, N_PLUS, N_QUEST };

struct node {
	uint8_t kind;
	bool neg;        /* N_CLASS: negated */
	uint32_t a, b;   /* children (N_CAT, N_ALT: both; repetitions: a); N_CLASS: ranges offset, count */
	uint32_t c;      /* N_CHAR */
};

enum op { I_CHAR, I_ANY, I_CLASS, I_BOL, I_EOL, I_SPLIT, I_JMP, I_MATCH };

struct ins {
	uint8_t op;
	bool neg;
	uint32_t x, y;   /* I_CHAR: x; I_CLASS: ranges offset, count; I_SPLIT: x, y; I_JMP: x */
};

struct tsig_regex {
	bool icase, utf8, never;
	struct ins *prog;
	uint32_t n_prog;
	uint32_t *ranges;   /* pairs lo, hi */
	size_t n_ranges;
	/* scratch for the simulation */
	uint32_t *cur, *next, *mark, *stack, gen;
};

struct parser {
	const uint32_t *t;
	size_t n, i;
	int depth;
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	uint32_t *ranges;   /* shared with the program: pairs */
	size_t n_ranges, cap_ranges;
	const char *why;
	size_t at;
	bool nomem;
};

#define NO_NODE UINT32_MAX

/* -- input ---------------------------------------------------------------- */

/* Decode @len bytes into code points: strict UTF-8 (no overlong forms, no
 * surrogates, at most U+10FFFF) with @utf8, else one byte each.  false on
 * malformed UTF-8. */
static bool decode(const unsigned char *s, size_t len, bool utf8, uint32_t *out, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < len;) {
		uint32_t c = s[i], min;
		int more;

		if (!utf8 || c < 0x80) {
			out[k++] = c;
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			more = 1, c &= 0x1f, min = 0x80;
		else if ((c & 0xf0) == 0xe0)
			more = 2, c &= 0x0f, min = 0x800;
		else if ((c & 0xf8) == 0xf0)
			more = 3, c &= 0x07, min = 0x10000;
		else
			return false;
		if (len - i <= (size_t)more)
			return false;
		for (int j = 1; j <= more; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			c = (c << 6) | (s[i + j] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		out[k++] = c;
		i += (size_t)more + 1;
	}
	*n = k;
	return true;
}

static uint32_t fold(uint32_t c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* -- the parser (the grammar of RFC 4880 section 8, as Sequoia reads it) --- */

static uint32_t node_new(struct parser *p, uint8_t kind, uint32_t a, uint32_t b, uint32_t c)
{
	if (p->n_nodes == p->cap_nodes) {
		size_t nc = p->cap_nodes ? p->cap_nodes * 2 : 32;
		struct node *nn = realloc(p->nodes, nc * sizeof(*nn));
		if (nn == NULL) {
			p->nomem = true;
			return NO_NODE;
		}
		p->nodes = nn;
		p->cap_nodes = nc;
	}
	p->nodes[p->n_nodes] = (struct node){ .kind = kind, .a = a, .b = b, .c = c };
	return (uint32_t)p->n_nodes++;
}

static bool range_add(struct parser *p, uint32_t lo, uint32_t hi)
{
	if (p->n_ranges + 2 > p->cap_ranges) {
		size_t nc = p->cap_ranges ? p->cap_ranges * 2 : 32;
		uint32_t *nr = realloc(p->ranges, nc * sizeof(*nr));
		if (nr == NULL) {
			p->nomem = true;
			return false;
		}
		p->ranges = nr;
		p->cap_ranges = nc;
	}
	if (lo > hi) {
		uint32_t t = lo; /* Sequoia's ranges are unordered pairs */
		lo = hi;
		hi = t;
	}
	p->ranges[p->n_ranges++] = lo;
	p->ranges[p->n_ranges++] = hi;
	return true;
}

static uint32_t fail(struct parser *p, const char *why)
{
	if (p->why == NULL) {
		p->why = why;
		p->at = p->i;
	}
	return NO_NODE;
}

static uint32_t parse_alt(struct parser *p);

/* [...] after the '[': an optional '^', then at least one character (the
 * first may be ']'), a-b ranges between characters, up to the next ']'.
 * A backslash is an ordinary character here. */
static uint32_t parse_class(struct parser *p)
{
	size_t first, end;
	bool neg = false;
	uint32_t off = (uint32_t)p->n_ranges, nd;

	if (p->i < p->n && p->t[p->i] == '^') {
		neg = true;
		p->i++;
	}
	first = p->i;
	if (p->i >= p->n)
		return fail(p, "an unterminated character class");
	p->i++; /* the first character, whatever it is */
	while (p->i < p->n && p->t[p->i] != ']')
		p->i++;
	if (p->i >= p->n)
		return fail(p, "an unterminated character class");
	end = p->i++;
	for (size_t k = first; k < end;) {
		bool ok;
		if (k + 2 < end && p->t[k + 1] == '-') {
			ok = range_add(p, p->t[k], p->t[k + 2]);
			k += 3;
		} else {
			ok = range_add(p, p->t[k], p->t[k]);
			k++;
		}
		if (!ok)
			return NO_NODE;
	}
	nd = node_new(p, N_CLASS, off, (uint32_t)((p->n_ranges - off) / 2), 0);
	if (nd != NO_NODE)
		p->nodes[nd].neg = neg;
	return nd;
}

static uint32_t parse_atom(struct parser *p)
{
	uint32_t c = p->t[p->i++], r;

	switch (c) {
	case '(':
		if (++p->depth > TSIG_REGEX_MAX_NEST) {
			p->i--;
			return fail(p, "groups nested too deep");
		}
		r = parse_alt(p);
		if (r == NO_NODE)
			return NO_NODE;
		if (p->i >= p->n || p->t[p->i] != ')')
			return fail(p, "an unbalanced parenthesis");
		p->i++;
		p->depth--;
		return r;
	case '[':
		return parse_class(p);
	case '.':
		return node_new(p, N_ANY, 0, 0, 0);
	case '^':
		return node_new(p, N_BOL, 0, 0, 0);
	case '$':
		return node_new(p, N_EOL, 0, 0, 0);
	case '\\':
		if (p->i >= p->n)
			return fail(p, "a backslash at the end");
		return node_new(p, N_CHAR, 0, 0, p->t[p->i++]);
	case '*':
	case '+':
	case '?':
		p->i--;
		return fail(p, "a repetition of nothing");
	case ']':
		p->i--;
		return fail(p, "a ']' outside a character class");
	default:
		return node_new(p, N_CHAR, 0, 0, c);
	}
}

/* piece*: up to '|', ')' or the end */
static uint32_t parse_branch(struct parser *p)
{
	uint32_t left = NO_NODE;

	while (p->i < p->n && p->t[p->i] != '|' && p->t[p->i] != ')') {
		uint32_t a = parse_atom(p);
		if (a == NO_NODE)
			return NO_NODE;
		if (p->i < p->n && (p->t[p->i] == '*' || p->t[p->i] == '+' || p->t[p->i] == '?')) {
			uint8_t k = p->t[p->i] == '*' ? N_STAR : p->t[p->i] == '+' ? N_PLUS : N_QUEST;
			p->i++;
			a = node_new(p, k, a, 0, 0);
			if (a == NO_NODE)
				return NO_NODE;
		}
		left = left == NO_NODE ? a : node_new(p, N_CAT, left, a, 0);
		if (left == NO_NODE)
			return NO_NODE;
	}
	return left == NO_NODE ? node_new(p, N_EMPTY, 0, 0, 0) : left;
}

static uint32_t parse_alt(struct parser *p)
{
	uint32_t left = parse_branch(p);

	while (left != NO_NODE && p->i < p->n && p->t[p->i] == '|') {
		uint32_t right;
		p->i++;
		right = parse_branch(p);
		if (right == NO_NODE)
			return NO_NODE;
		left = node_new(p, N_ALT, left, right, 0);
	}
	return left;
}

/* GnuPG's dialect (g10/trustdb.c, sanitize_regexp() and check_regexp()):
 * the "<[^>]+[@.]" ... ">$" frame, and inside it every character literal
 * but '.' and a backslash pair.  Built as a tree directly. */
static uint32_t parse_gnupg(struct parser *p)
{
	static const char frame[] = "<[^>]+[@.]";
	size_t start = 0, end = p->n;
	bool framed = false;
	uint32_t left = NO_NODE, a;

	if (p->n >= 12 && p->t[p->n - 2] == '>' && p->t[p->n - 1] == '$') {
		framed = true;
		for (size_t k = 0; k < 10; k++)
			framed = framed && p->t[k] == (unsigned char)frame[k];
	}
	if (framed) {
		uint32_t lt = node_new(p, N_CHAR, 0, 0, '<'), off = (uint32_t)p->n_ranges, cls, at;
		if (lt == NO_NODE || !range_add(p, '>', '>'))
			return NO_NODE;
		cls = node_new(p, N_CLASS, off, 1, 0);
		if (cls == NO_NODE)
			return NO_NODE;
		p->nodes[cls].neg = true;
		cls = node_new(p, N_PLUS, cls, 0, 0);
		off = (uint32_t)p->n_ranges;
		if (cls == NO_NODE || !range_add(p, '@', '@') || !range_add(p, '.', '.'))
			return NO_NODE;
		at = node_new(p, N_CLASS, off, 2, 0);
		if (at == NO_NODE || (left = node_new(p, N_CAT, lt, cls, 0)) == NO_NODE ||
		    (left = node_new(p, N_CAT, left, at, 0)) == NO_NODE)
			return NO_NODE;
		start = 10;
		end = p->n - 2;
	}
	for (p->i = start; p->i < end; p->i++) {
		uint32_t c = p->t[p->i];
		if (c == '.') {
			a = node_new(p, N_ANY, 0, 0, 0);
		} else if (c == '\\') {
			/* what glibc makes of \c: an ordinary c but for its
			 * operators (\w \W \s \S \b \B \< \> \` \' \1-\9) */
			if (p->i + 1 >= end)
				return fail(p, framed ? "a backslash before the closing '>$'" : "a backslash at the end");
			c = p->t[++p->i];
			if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    c == '<' || c == '>' || c == '`' || c == '\'') {
				p->i--;
				return fail(p, "an escaped letter, digit or word boundary");
			}
			a = node_new(p, N_CHAR, 0, 0, fold(c));
		} else {
			a = node_new(p, N_CHAR, 0, 0, fold(c));
		}
		if (a == NO_NODE)
			return NO_NODE;
		left = left == NO_NODE ? a : node_new(p, N_CAT, left, a, 0);
		if (left == NO_NODE)
			return NO_NODE;
	}
	if (framed) {
		uint32_t gt = node_new(p, N_CHAR, 0, 0, '>'), eol = node_new(p, N_EOL, 0, 0, 0);
		if (gt == NO_NODE || eol == NO_NODE || (left = node_new(p, N_CAT, left, gt, 0)) == NO_NODE)
			return NO_NODE;
		left = node_new(p, N_CAT, left, eol, 0);
	}
	return left == NO_NODE ? node_new(p, N_EMPTY, 0, 0, 0) : left;
}

/* -- the program ---------------------------------------------------------- */

/* The number of instructions node @x compiles to. */
static size_t prog_size(const struct node *nd, uint32_t x)
{
	switch (nd[x].kind) {
	case N_EMPTY:
		return 0;
	case N_CAT:
		return prog_size(nd, nd[x].a) + prog_size(nd, nd[x].b);
	case N_ALT:
		return 2 + prog_size(nd, nd[x].a) + prog_size(nd, nd[x].b);
	case N_STAR:
		return 2 + prog_size(nd, nd[x].a);
	case N_PLUS:
	case N_QUEST:
		return 1 + prog_size(nd, nd[x].a);
	default:
		return 1;
	}
}

static uint32_t emit(struct tsig_regex *rx, const struct node *nd, uint32_t x, uint32_t pc)
{
	const struct node *n = &nd[x];
	struct ins *P = rx->prog;
	uint32_t l1, l2;

	switch (n->kind) {
	case N_EMPTY:
		return pc;
	case N_CHAR:
		P[pc] = (struct ins){ .op = I_CHAR, .x = n->c };
		return pc + 1;
	case N_ANY:
		P[pc] = (struct ins){ .op = I_ANY };
		return pc + 1;
	case N_CLASS:
		P[pc] = (struct ins){ .op = I_CLASS, .neg = n->neg, .x = n->a, .y = n->b };
		return pc + 1;
	case N_BOL:
		P[pc] = (struct ins){ .op = I_BOL };
		return pc + 1;
	case N_EOL:
		P[pc] = (struct ins){ .op = I_EOL };
		return pc + 1;
	case N_CAT:
		return emit(rx, nd, n->b, emit(rx, nd, n->a, pc));
	case N_ALT: /* split L1 L2; L1: a; jmp L3; L2: b; L3: */
		l1 = emit(rx, nd, n->a, pc + 1);
		l2 = emit(rx, nd, n->b, l1 + 1);
		P[pc] = (struct ins){ .op = I_SPLIT, .x = pc + 1, .y = l1 + 1 };
		P[l1] = (struct ins){ .op = I_JMP, .x = l2 };
		return l2;
	case N_STAR: /* L0: split L1 L2; L1: a; jmp L0; L2: */
		l1 = emit(rx, nd, n->a, pc + 1);
		P[pc] = (struct ins){ .op = I_SPLIT, .x = pc + 1, .y = l1 + 1 };
		P[l1] = (struct ins){ .op = I_JMP, .x = pc };
		return l1 + 1;
	case N_PLUS: /* L0: a; split L0 L1; L1: */
		l1 = emit(rx, nd, n->a, pc);
		P[l1] = (struct ins){ .op = I_SPLIT, .x = pc, .y = l1 + 1 };
		return l1 + 1;
	case N_QUEST: /* split L1 L2; L1: a; L2: */
		l1 = emit(rx, nd, n->a, pc + 1);
		P[pc] = (struct ins){ .op = I_SPLIT, .x = pc + 1, .y = l1 };
		return l1;
	}
	return pc;
}

/* Parse one expression into @p; the root node, or NO_NODE (p->why says
 * why, or p->nomem). */
static uint32_t parse_one(struct parser *p, const char *re, enum tsig_dialect d, uint32_t *cps)
{
	size_t len = strlen(re), n;
	uint32_t root;

	p->why = NULL;
	p->at = 0;
	p->depth = 0;
	p->i = 0;
	if (len > TSIG_REGEX_MAX_LEN)
		return fail(p, "longer than 1024 bytes");
	/* GnuPG's: UTF-8 when it is, else bytes */
	if (!decode((const unsigned char *)re, len, true, cps, &n) &&
	    (d == TSIG_SEQUOIA || !decode((const unsigned char *)re, len, false, cps, &n)))
		return fail(p, "not UTF-8");
	p->t = cps;
	p->n = n;
	if (d == TSIG_GNUPG)
		return parse_gnupg(p);
	root = parse_alt(p);
	if (root != NO_NODE && p->i < p->n)
		return fail(p, "an unbalanced parenthesis");
	return root;
}

int tsig_regex_compile(const char *const *res, size_t n, enum tsig_dialect d, struct tsig_regex **ret,
		       size_t *n_bad, const char **why, size_t *at)
{
	struct parser p = { 0 };
	struct tsig_regex *rx = calloc(1, sizeof(*rx));
	uint32_t *cps = malloc((TSIG_REGEX_MAX_LEN + 1) * sizeof(*cps));
	uint32_t root = NO_NODE;
	size_t size, end;

	*ret = NULL;
	*n_bad = 0;
	*why = NULL;
	*at = 0;
	if (rx == NULL || cps == NULL)
		goto nomem;
	rx->icase = d == TSIG_GNUPG;
	rx->utf8 = d == TSIG_SEQUOIA;
	/* each valid one an alternative of the whole */
	for (size_t k = 0; k < n; k++) {
		size_t first = p.n_nodes, first_r = p.n_ranges;
		uint32_t r = parse_one(&p, res[k] ? res[k] : "", d, cps);
		if (p.nomem)
			goto nomem;
		if (r == NO_NODE) {
			if ((*n_bad)++ == 0) {
				*why = p.why;
				*at = p.at;
			}
			p.n_nodes = first; /* drop the half-built tree */
			p.n_ranges = first_r;
			continue;
		}
		root = root == NO_NODE ? r : node_new(&p, N_ALT, root, r, 0);
		if (p.nomem)
			goto nomem;
	}
	free(cps);
	cps = NULL;
	if (root == NO_NODE) {
		rx->never = true; /* nothing valid: matches nothing */
		free(p.nodes);
		free(p.ranges);
		*ret = rx;
		return 0;
	}
	size = prog_size(p.nodes, root) + 1;
	rx->prog = calloc(size, sizeof(*rx->prog));
	rx->cur = malloc(size * sizeof(*rx->cur));
	rx->next = malloc(size * sizeof(*rx->next));
	rx->mark = calloc(size, sizeof(*rx->mark));
	rx->stack = malloc((2 * size + 2) * sizeof(*rx->stack));
	if (rx->prog == NULL || rx->cur == NULL || rx->next == NULL || rx->mark == NULL || rx->stack == NULL)
		goto nomem;
	end = emit(rx, p.nodes, root, 0);
	rx->prog[end] = (struct ins){ .op = I_MATCH };
	rx->n_prog = (uint32_t)size;
	rx->ranges = p.ranges;
	rx->n_ranges = p.n_ranges;
	free(p.nodes);
	*ret = rx;
	return 0;
nomem:
	free(cps);
	free(p.nodes);
	free(p.ranges);
	tsig_regex_free(rx);
	return -ENOMEM;
}

/* -- the simulation ------------------------------------------------------- */

static bool in_ranges(const uint32_t *r, uint32_t count, uint32_t c)
{
	for (uint32_t k = 0; k < count; k++)
		if (c >= r[2 * k] && c <= r[2 * k + 1])
			return true;
	return false;
}

/* Is @c (as read, not folded) in the class of @in?  Case-insensitive: an
 * ASCII letter is in it when either of its cases is. */
static bool class_has(const struct tsig_regex *rx, const struct ins *in, uint32_t c)
{
	const uint32_t *r = rx->ranges + in->x;
	bool has = in_ranges(r, in->y, c);

	if (!has && rx->icase) {
		if (c >= 'a' && c <= 'z')
			has = in_ranges(r, in->y, c - ('a' - 'A'));
		else if (c >= 'A' && c <= 'Z')
			has = in_ranges(r, in->y, c + ('a' - 'A'));
	}
	return has != in->neg;
}

/* Follow the empty transitions from @pc at position @pos (of @len) into
 * @list; true when MATCH is reached.  *@steps counts the states entered. */
static bool add_thread(struct tsig_regex *rx, uint32_t *list, uint32_t *n, uint32_t pc, size_t pos, size_t len,
		       uint64_t *steps)
{
	uint32_t sp = 0;

	rx->stack[sp++] = pc;
	while (sp > 0) {
		const struct ins *in;
		pc = rx->stack[--sp];
		if (rx->mark[pc] == rx->gen)
			continue;
		rx->mark[pc] = rx->gen;
		(*steps)++;
		in = &rx->prog[pc];
		switch (in->op) {
		case I_MATCH:
			return true;
		case I_JMP:
			rx->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			rx->stack[sp++] = in->y;
			rx->stack[sp++] = in->x;
			break;
		case I_BOL:
			if (pos == 0)
				rx->stack[sp++] = pc + 1;
			break;
		case I_EOL:
			if (pos == len)
				rx->stack[sp++] = pc + 1;
			break;
		default:
			list[(*n)++] = pc;
			break;
		}
	}
	return false;
}

static void new_gen(struct tsig_regex *rx)
{
	if (++rx->gen == 0) {
		memset(rx->mark, 0, rx->n_prog * sizeof(*rx->mark));
		rx->gen = 1;
	}
}

int tsig_regex_match(struct tsig_regex *rx, const char *s, size_t len)
{
	uint32_t *cps, *cur = rx->cur, *next = rx->next, *t;
	uint32_t n_cur = 0, n_next;
	uint64_t steps = 0;
	size_t n;
	int r = 0;

	if (rx->never)
		return 0;
	cps = malloc((len + 1) * sizeof(*cps));
	if (cps == NULL)
		return -ENOMEM;
	if (!decode((const unsigned char *)s, len, true, cps, &n) &&
	    (rx->utf8 || !decode((const unsigned char *)s, len, false, cps, &n))) {
		free(cps);
		return 0; /* Sequoia: a user ID that is not UTF-8 matches nothing */
	}
	if (rx->utf8)
		for (size_t k = 0; k < n; k++)
			if (cps[k] < 0x20 || (cps[k] >= 0x7f && cps[k] <= 0x9f)) {
				free(cps);
				return 0; /* Sequoia: nor one with a control character */
			}
	new_gen(rx);
	if (add_thread(rx, cur, &n_cur, 0, 0, n, &steps))
		r = 1;
	for (size_t pos = 0; pos < n && r == 0; pos++) {
		uint32_t c = rx->icase ? fold(cps[pos]) : cps[pos];

		if (steps > TSIG_REGEX_MAX_STEPS) {
			r = -E2BIG;
			break;
		}
		new_gen(rx);
		n_next = 0;
		for (uint32_t k = 0; k < n_cur && r == 0; k++) {
			const struct ins *in = &rx->prog[cur[k]];
			bool ok = in->op == I_ANY || (in->op == I_CHAR && in->x == c) ||
				  (in->op == I_CLASS && class_has(rx, in, cps[pos]));
			if (ok && add_thread(rx, next, &n_next, cur[k] + 1, pos + 1, n, &steps))
				r = 1;
		}
		/* a new thread at every position: the search is unanchored */
		if (r == 0 && add_thread(rx, next, &n_next, 0, pos + 1, n, &steps))
			r = 1;
		t = cur;
		cur = next;
		next = t;
		n_cur = n_next;
	}
	free(cps);
	return r;
}

void tsig_regex_free(struct tsig_regex *rx)
{
	if (rx == NULL)
		return;
	free(rx->prog);
	free(rx->ranges);
	free(rx->cur);
	free(rx->next);
	free(rx->mark);
	free(rx->stack);
	free(rx);
}
