/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* wot-scan: keyrings read into the structural graph without the store
 * (wot-scan.c).  Internal to libksp. */
#pragma once

#include <stdint.h>

#include "libksp.h"
#include "lib/wot/wot.h"

/* The structural view of what the scan has read (vertices in fingerprint
 * order, key_id[v] = v) and its certification counts. */
int ksp_wot_scan_view(const struct ksp_wot_scan *scan, int64_t at, struct ksp_wot_view **ret,
		      uint64_t certs[KSP_WOT_CERTS_MAX]);
struct ksp_ctx *ksp_wot_scan_ctx(const struct ksp_wot_scan *scan);
