/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The validity rule of a key at a reference time, one for every model and
 * for health (docs/design.md, "Validity"): its creation, its revocation
 * (hard: at every date; soft: from its date on) and its expiry, in that
 * order, on the snapshot's key (wot-snap.h).  Each model starts from this
 * state and says where it differs:
 *  - paths: a soft-revoked key is no target but still a vertex (it
 *    introduces with what it certified before; the snapshot keeps only
 *    those certifications); the what-if's lost keys count as hard-revoked
 *    and its extended keys as unexpired; --min-bits refuses weak keys;
 *  - health: only KSP_KEY_VALID keys carry paths at a horizon (a retired
 *    key is not counted on to keep the core together): stricter than paths;
 *  - gnupg: gpg's getkey.c: a key revocation of any reason and any date
 *    revokes the key, as gpg --check-trustdb does (stricter);
 *  - sequoia: the state at the time of each certification as well as at
 *    the reference time (the key's binding self-signature then).
 * Internal to libksp.
 */
#pragma once

#include <stdint.h>

#include "lib/wot/wot-snap.h"

enum ksp_key_state {
	KSP_KEY_VALID = 0,
	KSP_KEY_NOT_YET,      /* created after the reference time */
	KSP_KEY_HARD_REVOKED, /* compromised or no reason: at every date */
	KSP_KEY_SOFT_REVOKED, /* superseded or retired: from its date on */
	KSP_KEY_EXPIRED,      /* its expiry at or before the reference time */
};

/* The state of key @k at @at: the first of not-yet, hard-revoked,
 * soft-revoked and expired that holds, else valid. */
static inline enum ksp_key_state ksp_key_state_at(const struct ksp_wsnap_node *k, int64_t at)
{
	if (k->created > at)
		return KSP_KEY_NOT_YET;
	if (k->flags & KSP_WSNAP_HARD_REVOKED)
		return KSP_KEY_HARD_REVOKED;
	if (k->revoked <= at)
		return KSP_KEY_SOFT_REVOKED;
	if (k->expires <= at)
		return KSP_KEY_EXPIRED;
	return KSP_KEY_VALID;
}
