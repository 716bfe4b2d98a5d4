/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The party as the repair of the web of trust (ksp health): each
 * participant's most valuable checks (party sheet --plan), and the keys
 * that reached K since the party (party status with a core). */
#pragma once
#include "cli/ksp.h"
#include "cli/trust-opts.h"

/* Prints, for each participant, the participants whose mutual
 * certification brings most keys to K.  Returns an exit status. */
int cli_party_plan(struct ksp_cli *cli, struct ksp_store *store, const struct cli_trust_opts *to);
/* Prints "Trust: ..." (how many keys reached K since @party_date and
 * thanks to the party's certifications).  Returns an exit status. */
int cli_party_health(struct ksp_cli *cli, struct ksp_store *store, const struct cli_trust_opts *to,
		     const char *party_date);
