/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * tsig-regex: the regular expressions of trust signatures (RFC 4880 5.2.3.14
 * and section 8), written by whoever made the signature: hostile input.
 * A small matcher of its own, never regcomp(): no back-references, no
 * bounded repetition (RFC 4880 has none; '{' is a literal for Sequoia and
 * GnuPG alike), at most TSIG_REGEX_MAX_LEN bytes and TSIG_REGEX_MAX_NEST
 * nested groups, compiled to a Thompson NFA and run by a simulation that
 * visits each state at most once per input character (linear time, and at
 * most TSIG_REGEX_MAX_STEPS steps per match).  A regex beyond that subset
 * matches nothing; the caller reports it once per signature.
 *
 * Two dialects:
 *  - TSIG_SEQUOIA: sequoia-openpgp's regex module (the grammar of RFC 4880
 *    section 8: | ( ) * + ? . ^ $ [...] [^...] and \c for a literal c;
 *    a ']' outside a class, a repeated repetition or an empty class is an
 *    error; a '-' outside one is a literal, as in sequoia-openpgp 1.12),
 *    matched on UTF-8 code points; a regex or subject that is not UTF-8,
 *    or a subject holding a control character, never matches.
 *  - TSIG_GNUPG: GnuPG's (g10/trustdb.c): "<[^>]+[@.]" ... ">$" may frame
 *    the expression; inside, every character is literal but '.' (any) and
 *    '\c'; case-insensitive (ASCII); on code points when UTF-8, else on
 *    bytes.  An escaped letter or digit
 *    (glibc's \w, \1, ...) is beyond the subset.
 * Internal to libksp (trust/).
 */
#include <stdbool.h>
#include <stddef.h>

#define TSIG_REGEX_MAX_LEN 1024
#define TSIG_REGEX_MAX_NEST 32
#define TSIG_REGEX_MAX_STEPS (1u << 24)

enum tsig_dialect {
	TSIG_SEQUOIA,
	TSIG_GNUPG,
};

struct tsig_regex;

/* Compile the @n regular expressions @res (NUL-terminated) of one signature
 * as one matcher that matches when any of them does (Sequoia's RegexSet:
 * one beyond the subset matches nothing, the others still count).  Returns
 * 0 and *@ret, or -ENOMEM.  *@n_bad: how many were beyond the subset; the
 * reason for the first (a fixed English phrase, no input text in it) in
 * *@why, the byte offset in *@at. */
int tsig_regex_compile(const char *const *res, size_t n, enum tsig_dialect d, struct tsig_regex **ret,
		       size_t *n_bad, const char **why, size_t *at);

/* Does @rx match the @len bytes of @s?  1 yes, 0 no, -E2BIG: the step limit
 * was reached (the caller takes it as no). */
int tsig_regex_match(struct tsig_regex *rx, const char *s, size_t len);

void tsig_regex_free(struct tsig_regex *rx);
