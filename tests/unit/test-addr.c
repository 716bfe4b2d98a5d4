// SPDX-License-Identifier: LGPL-2.1-or-later
/* Unit tests for src/lib/addr.c: the address of a user ID, with hostile
 * user IDs (header injection, unbalanced quotes and comments, two
 * addresses, NUL bytes, deep nesting). */
#include <stdlib.h>
#include <string.h>

#include "lib/addr.h"
#include "harness.h"

/* the address of @uid, "" when none, "ENOMEM" on failure (static buffer) */
static const char *addr_of(const char *uid, size_t len)
{
	static char buf[512];
	char *a = NULL;

	if (ksp_uid_address(uid, len, &a) < 0)
		return "ENOMEM";
	snprintf(buf, sizeof(buf), "%s", a ? a : "");
	free(a);
	return buf;
}
#define A(s) addr_of((s), strlen(s))

static int test_forms(void)
{
	TS_ASSERT_STR_EQ(A("Alice Example <alice@example.org>"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("alice@example.org"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("<alice@example.org>"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("Alice (work) <alice@example.org>"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("Alice <alice@example.org> (work)"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("\"Example, Alice\" <alice@example.org>"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("Alice < alice @ example . org >"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("alice(comment)@(c2)example.org"), "alice@example.org");
	TS_ASSERT_STR_EQ(A("first.last+tag@sub.example.org"), "first.last+tag@sub.example.org");
	TS_ASSERT_STR_EQ(A("user@[192.0.2.1]"), "user@[192.0.2.1]");
	/* a '<' in a domain literal (found by fuzz/fuzz-addr.c): the
	 * canonical form reads back as itself */
	TS_ASSERT_STR_EQ(A("x (c) <\"q\\\"x\"@[1.2.3.<]>"), "\"q\\\"x\"@[1.2.3.<]");
	TS_ASSERT_STR_EQ(A("\"q\\\"x\"@[1.2.3.<]"), "\"q\\\"x\"@[1.2.3.<]");
	/* display names people really have */
	TS_ASSERT_STR_EQ(A("Jörg O'Neil, Jr. <j@example.org>"), "j@example.org");
	TS_ASSERT_STR_EQ(A("张伟 <zhang@example.cn>"), "zhang@example.cn");
	TS_ASSERT_STR_EQ(A("J. R. \"Bob\" Dobbs <bob@example.org>"), "bob@example.org");
	/* a "<" in the name: the last angle address counts */
	TS_ASSERT_STR_EQ(A("a<b <c@example.org>"), "c@example.org");
	return 0;
}
DEFINE_TEST(test_forms, "addresses: name-addr, bare, comments, CFWS, literals, UTF-8 names");

static int test_quoted(void)
{
	/* a quoted local part, kept quoted only when it must be */
	TS_ASSERT_STR_EQ(A("\"a b\"@example.org"), "\"a b\"@example.org");
	TS_ASSERT_STR_EQ(A("Name <\"a b\"@example.org>"), "\"a b\"@example.org");
	TS_ASSERT_STR_EQ(A("\"ab\"@example.org"), "ab@example.org");
	TS_ASSERT_STR_EQ(A("\"a\\\"b\"@example.org"), "\"a\\\"b\"@example.org");
	TS_ASSERT_STR_EQ(A("\"a>b\"@example.org"), "\"a>b\"@example.org");
	TS_ASSERT_STR_EQ(A("X <\"a>b\"@example.org>"), "\"a>b\"@example.org");
	TS_ASSERT_STR_EQ(A("\"a@b\"@example.org"), "\"a@b\"@example.org");
	TS_ASSERT_STR_EQ(A("\"a..b\"@example.org"), "\"a..b\"@example.org");
	/* obsolete local parts: words joined by dots */
	TS_ASSERT_STR_EQ(A("\"a b\".c@example.org"), "\"a b.c\"@example.org");
	return 0;
}
DEFINE_TEST(test_quoted, "addresses: quoted local parts, quoted pairs, canonical form");

static int test_none(void)
{
	TS_ASSERT_STR_EQ(A(""), "");
	TS_ASSERT_STR_EQ(A("Alice Example"), "");
	TS_ASSERT_STR_EQ(A("Alice Example (no mail)"), "");
	TS_ASSERT_STR_EQ(A("Alice <>"), "");
	TS_ASSERT_STR_EQ(A("Alice <alice>"), "");
	TS_ASSERT_STR_EQ(A("Alice <@example.org>"), "");
	TS_ASSERT_STR_EQ(A("Alice <alice@>"), "");
	TS_ASSERT_STR_EQ(A("Alice <alice@example.org"), "");
	TS_ASSERT_STR_EQ(A("alice@example.org bob"), "");
	TS_ASSERT_STR_EQ(A("a b@example.org"), "");
	TS_ASSERT_STR_EQ(A("a..b@example.org"), "");
	TS_ASSERT_STR_EQ(A(".a@example.org"), "");
	TS_ASSERT_STR_EQ(A("a@example..org"), "");
	TS_ASSERT_STR_EQ(A("a@b@example.org"), "");
	TS_ASSERT_STR_EQ(A("a@[1.2.3.4"), "");
	return 0;
}
DEFINE_TEST(test_none, "addresses: user IDs without one");

static int test_hostile(void)
{
	/* header injection: CR, LF, any control character */
	TS_ASSERT_STR_EQ(A("Eve <eve@example.org>\r\nBcc: all@example.org"), "");
	TS_ASSERT_STR_EQ(A("Eve <eve@example.org\nBcc: x@example.org>"), "");
	TS_ASSERT_STR_EQ(A("eve@example.org\n"), "");
	TS_ASSERT_STR_EQ(A("\"e\nve\"@example.org"), "");
	TS_ASSERT_STR_EQ(A("\"e\\\rve\"@example.org"), "");
	TS_ASSERT_STR_EQ(A("eve@[1.2.3.4\n]"), "");
	/* a TAB in a quoted local part (found by fuzz/fuzz-addr.c) */
	TS_ASSERT_STR_EQ(A("\"a\tb\"@example.org"), "");
	TS_ASSERT_STR_EQ(A("\"a\\\tb\"@example.org"), "");
	TS_ASSERT_STR_EQ(A("eve\x7f@example.org"), "");
	/* controls in the display name: the address alone is ever written */
	TS_ASSERT_STR_EQ(A("Eve \x1b[31mRED\x1b[0m <eve@example.org>"), "eve@example.org");
	/* a NUL byte inside the user ID */
	TS_ASSERT_STR_EQ(addr_of("Eve <eve@example.org>\0<x@y.org>", 30), "");
	TS_ASSERT_STR_EQ(addr_of("Eve\0 <eve@example.org>", 22), "");
	/* only @len bytes are read */
	TS_ASSERT_STR_EQ(addr_of("Eve <eve@example.org>", 20), "");
	/* two addresses, or text after the address */
	TS_ASSERT_STR_EQ(A("Eve <eve@example.org> <boss@example.org> x"), "");
	TS_ASSERT_STR_EQ(A("Eve <eve@example.org>, bob@example.org"), "");
	TS_ASSERT_STR_EQ(A("Eve <eve@example.org> trailing"), "");
	/* unbalanced quotes and comments: nothing is safe */
	TS_ASSERT_STR_EQ(A("Mallory <evil@example.org>\"<a@example.org>"), "");
	TS_ASSERT_STR_EQ(A("\"Mallory <evil@example.org>"), "");
	TS_ASSERT_STR_EQ(A("(Mallory <evil@example.org>"), "");
	TS_ASSERT_STR_EQ(A("Mallory) <evil@example.org>"), "evil@example.org");
	/* an angle address inside a quoted name or a comment is not one */
	TS_ASSERT_STR_EQ(A("\"<evil@example.org>\" <good@example.org>"), "good@example.org");
	TS_ASSERT_STR_EQ(A("(<evil@example.org>) good@example.org"), "good@example.org");
	TS_ASSERT_STR_EQ(A("\"<evil@example.org>\""), "");
	/* deep comments are refused, not recursed into */
	char deep[200];
	memset(deep, '(', 60);
	memset(deep + 60, ')', 60);
	strcpy(deep + 120, "a@example.org");
	TS_ASSERT_STR_EQ(A(deep), "");
	/* a long user ID of '<' */
	char *many = malloc(100001);
	TS_ASSERT(many != NULL);
	memset(many, '<', 100000);
	many[100000] = '\0';
	TS_ASSERT_STR_EQ(A(many), "");
	memcpy(many + 100000 - 15, "<a@example.org>", 15);
	TS_ASSERT_STR_EQ(A(many), "a@example.org");
	free(many);
	return 0;
}
DEFINE_TEST(test_hostile, "addresses: hostile user IDs (injection, NUL, unbalanced, nesting)");

static int test_writable(void)
{
	char *a = NULL;

	TS_ASSERT(ksp_address_writable("alice@example.org"));
	TS_ASSERT(ksp_address_writable("\"a b\"@example.org"));
	TS_ASSERT(!ksp_address_writable("jörg@example.org"));
	TS_ASSERT(!ksp_address_writable(""));
	TS_ASSERT(!ksp_address_writable(NULL));
	/* UTF-8 addresses are addresses (RFC 6532), but ksp does not write to them */
	TS_ASSERT_STR_EQ(A("Jörg <jörg@example.org>"), "jörg@example.org");
	TS_ASSERT_INT_EQ(ksp_uid_writable_address("Jörg <jörg@example.org>", strlen("Jörg <jörg@example.org>"), &a), 0);
	TS_ASSERT(a == NULL);
	TS_ASSERT_INT_EQ(ksp_uid_writable_address("J <j@example.org>", 17, &a), 0);
	TS_ASSERT_STR_EQ(a, "j@example.org");
	free(a);
	/* 255 octets: too long for a mailbox */
	char big[300];
	memset(big, 'a', 250);
	strcpy(big + 250, "@b.org");
	TS_ASSERT_STR_EQ(A(big), big);
	TS_ASSERT(!ksp_address_writable(big));
	return 0;
}
DEFINE_TEST(test_writable, "addresses: what ksp writes mail to (ASCII, length)");

static const char *name_of(const char *uid)
{
	static char buf[256];
	char *n = NULL;

	if (ksp_uid_display_name(uid, strlen(uid), &n) < 0)
		return "ENOMEM";
	snprintf(buf, sizeof(buf), "%s", n ? n : "(none)");
	free(n);
	return buf;
}

static int test_display_name(void)
{
	TS_ASSERT_STR_EQ(name_of("Alice Example <alice@example.org>"), "Alice Example");
	TS_ASSERT_STR_EQ(name_of("  Alice (work)   <alice@example.org>"), "Alice (work)");
	TS_ASSERT_STR_EQ(name_of("\"Example, \\\"Al\\\" \" <alice@example.org>"), "Example, \"Al\" ");
	TS_ASSERT_STR_EQ(name_of("\"A\" \"B\" <ab@example.org>"), "\"A\" \"B\"");
	TS_ASSERT_STR_EQ(name_of("alice@example.org"), "(none)");
	TS_ASSERT_STR_EQ(name_of("<alice@example.org>"), "(none)");
	TS_ASSERT_STR_EQ(name_of("Alice without address"), "(none)");
	TS_ASSERT_STR_EQ(name_of("Eve\r\nBcc: x@example.org <eve@example.org>"), "Eve\r\nBcc: x@example.org");
	return 0;
}
DEFINE_TEST(test_display_name, "display names: before the address, one quoted string unquoted, bytes kept");
