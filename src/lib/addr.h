/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * addr.h: the one place that says what the e-mail address of a user ID
 * is (RFC 5322 3.4: "Display Name <addr-spec>" or a bare addr-spec, with
 * quoted strings, quoted pairs and comments; RFC 6532 UTF-8 in atoms).
 * Used by party add (the store's uids.email, which party status and
 * remind read), party sign (To: and From:), import, and the trust binding
 * questions (--email).  Internal to libksp.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The addr-spec of user ID @uid (@len bytes, not NUL-terminated, hostile):
 * *ret is a malloc'ed canonical form (comments and folding white space
 * dropped, the local part quoted only when it must be, with '"' and '\'
 * escaped), or NULL when the user ID holds no address (or a NUL byte, a
 * control character, an unbalanced quote or comment, or text after the
 * address).  Returns 0 or -ENOMEM. */
int ksp_uid_address(const char *uid, size_t len, char **ret);

/* True when @addr (a result of ksp_uid_address()) is one ksp writes mail
 * to: printable ASCII only (a header field without RFC 6531 SMTPUTF8),
 * at most 254 octets. */
bool ksp_address_writable(const char *addr);

/* ksp_uid_address() and ksp_address_writable() in one: *ret NULL unless
 * the address is writable. */
int ksp_uid_writable_address(const char *uid, size_t len, char **ret);

/* The display name of a user ID that has an address: the text before its
 * "<addr>" (blanks trimmed; a single quoted string unquoted), malloc'ed;
 * NULL when it has no address or no name.  Hostile bytes are kept as they
 * are: escape before any output.  Returns 0 or -ENOMEM. */
int ksp_uid_display_name(const char *uid, size_t len, char **ret);
