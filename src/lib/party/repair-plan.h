/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include "lib/libksp-private.h"

/* repair-plan.c: the party's repair plan (ksp health --plan-csv).  A
 * "# certify: SIGNER certifies TARGET [(renewal...)]" line of a CSV into
 * @pair: 1, 0 (another line), -EBADMSG (a certify line that cannot be
 * read).  _store: into the store, inside the caller's transaction;
 * _load: every pair, signer then target order (free() *@ret). */
struct ksp_repair_pair {
	char signer[65];
	char target[65];
	bool renewal;
};
int ksp_party_repair_parse(const char *line, size_t len, struct ksp_repair_pair *pair);
int ksp_party_repair_store(struct ksp_party *party, const struct ksp_repair_pair *pairs, size_t n);
int ksp_party_repair_load(struct ksp_party *party, struct ksp_repair_pair **ret, size_t *ret_n);
