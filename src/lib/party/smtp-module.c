// SPDX-License-Identifier: LGPL-2.1-or-later
/* The SMTP module's table (party/smtp.h, lib/module.h): what ksp-smtp.so
 * offers libksp.so.1, which finds it with dlsym(); a program linked with
 * libksp.a and these objects uses it directly.  The module holds smtp.c
 * (libcurl) and this table; of libksp it uses src/shared/ (linked in). */
#include "lib/party/smtp.h"

KSP_EXPORT const struct ksp_smtp_module ksp_smtp_module = {
	.head = { .abi = KSP_SMTP_ABI, .version = VERSION },
	.open = ksp_smtp_new,
	.send = ksp_smtp_send,
	.close = ksp_smtp_free,
};
