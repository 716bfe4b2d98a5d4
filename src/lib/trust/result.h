/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* result.h: the trust result object (result.c), for the engine that fills
 * it (trust.c) and the models' adapters (model-*.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/libksp-private.h"

struct thop {
	char signer[65], signee[65];
	int64_t created;
	char *uid;
	size_t uid_len;
};

struct tpath {
	struct thop *hops;
	size_t n;
};

struct ksp_trust_result {
	bool trusted;
	int reason;
	int found, needed, max_depth;
	bool search_exhausted;
	uint32_t flow_bound; /* not 0: found is a lower bound, this the upper */
	char target[65];
	char message[512];
	struct tpath *paths;
	size_t n_paths;
	char *uid; /* per-uid: the user ID the paths certify */
	size_t uid_len;
	uint64_t explored;
	uint64_t dropped[KSP_DROPPED_MAX];
};
