/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smtp.h: a message handed to an SMTP server through libcurl ('party send
 * --smtp URL').  Internal to libksp. */
#pragma once
#include <stddef.h>

struct ksp_ctx;
struct ksp_smtp;

/* @url: smtp://[USER@]HOST[:PORT] (STARTTLS, required unless HOST is this
 * machine) or smtps://; a password in the URL is refused.  @password:
 * for AUTH, or NULL. */
int ksp_smtp_new(struct ksp_ctx *ctx, const char *url, const char *password, struct ksp_smtp **ret);
void ksp_smtp_free(struct ksp_smtp *s);
const char *ksp_smtp_host(const struct ksp_smtp *s);
/* Sends @msg (a message as 'party sign' wrote it): 0 accepted ("accepted
 * by HOST" in @why), 1 refused or not reached (the server's reply or the
 * error in @why), <0 -ENOMEM, -EBADMSG (no From: or To:). */
int ksp_smtp_send(struct ksp_smtp *s, const void *msg, size_t len, char *why, size_t whylen);
