/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smtp.h: a message handed to an SMTP server through libcurl ('party send
 * --smtp URL').  Internal to libksp.  smtp.c is the SMTP module,
 * ksp-smtp.so (lib/module.h): libcurl and the thirty libraries it needs
 * (gnutls, Kerberos, LDAP...) load only when a command sends mail;
 * deliver.c calls it through the table below (smtp-module.c). */
#pragma once
#include <stddef.h>

#include "lib/module.h"

struct ksp_ctx;
struct ksp_smtp;

/* Bump when the table or its arguments change: a module of another build
 * is then refused rather than called. */
#define KSP_SMTP_ABI 1
#define KSP_SMTP_MODULE "ksp-smtp.so"

struct ksp_smtp_module {
	struct ksp_module_head head; /* KSP_SMTP_ABI, VERSION */
	int (*open)(struct ksp_ctx *ctx, ksp_module_error_fn err, const char *url, const char *password,
		    struct ksp_smtp **ret);
	int (*send)(struct ksp_smtp *s, const void *msg, size_t len, char *why, size_t whylen);
	void (*close)(struct ksp_smtp *s);
};

/* @url: smtp://[USER@]HOST[:PORT] (STARTTLS, required unless HOST is this
 * machine) or smtps://; a password in the URL is refused.  @password:
 * for AUTH, or NULL.  Errors are set with @err. */
int ksp_smtp_new(struct ksp_ctx *ctx, ksp_module_error_fn err, const char *url, const char *password,
		 struct ksp_smtp **ret);
void ksp_smtp_free(struct ksp_smtp *s);
const char *ksp_smtp_host(const struct ksp_smtp *s);
/* Sends @msg (a message as 'party sign' wrote it): 0 accepted ("accepted
 * by HOST" in @why), 1 refused or not reached (the server's reply or the
 * error in @why), <0 -ENOMEM, -EBADMSG (no From: or To:). */
int ksp_smtp_send(struct ksp_smtp *s, const void *msg, size_t len, char *why, size_t whylen);
