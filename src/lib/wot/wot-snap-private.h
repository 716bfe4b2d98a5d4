/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wot-snap-private.h: the graph snapshot's file layout, shared by the
 * reader (wot-snap.c) and the builder (wot-snap-build.c).  Read only in
 * src/lib/wot.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/wot/wot-snap.h"

struct ksp_store;

#define SNAP_MAGIC "KSPWOT1\n"
#define SNAP_VERSION 6u /* 2: key flags (hard revocation); 3: edge flags name the hash (MD5, SHA-1, RIPEMD-160);
			 * 4: the weak-hash edge list; 5: the graph as stored (fingerprints, binds,
			 * certifications, outs, strings); 6: a bind's oldest self-signature per hash class,
			 * a key's binding self-signatures */
#define SNAP_ENDIAN 0x01020304u

struct snap_header {
	char magic[8];
	uint32_t version, endian;
	uint32_t n, n_uids;
	uint64_t m;
	int64_t gen, nonce;
	uint64_t len;
	uint32_t n_binds, reserved0;
	uint64_t n_certs, n_outs, strings_len;
	uint64_t n_weak;
};

_Static_assert(sizeof(struct snap_header) == 96, "header is 96 bytes");
_Static_assert(sizeof(struct ksp_wsnap_bind) == 88, "bind is 88 bytes");
_Static_assert(sizeof(struct ksp_wsnap_cert) == 32, "cert is 32 bytes");
_Static_assert(sizeof(struct ksp_wsnap_out) == 16, "out is 16 bytes");
_Static_assert(sizeof(struct ksp_wsnap_node) == 56, "node is 56 bytes");
_Static_assert(sizeof(struct ksp_wsnap_edge) == 40, "edge is 40 bytes");

/* Section offsets for the sizes; 0 on overflow. */
struct layout {
	size_t nodes, uids, out_off, edges, in_off, in_eid, weak, bind_off, binds, cert_off, certs, gout_off, outs,
		strings, len;
};

struct sizes {
	uint32_t n, n_uids, n_binds;
	uint64_t m, n_weak, n_certs, n_outs, strings_len;
};

/* The section offsets of a snapshot of sizes @z: 0 or -E2BIG. */
int ksp_wsnap_layout(const struct sizes *z, struct layout *l);
/* Where the image is built: get() gives @len zeroed bytes (or NULL),
 * put() takes them back when the build fails; shared() says whether
 * @mem is a shared mapping of a file, whose finished pages the builder
 * may let go of (madvise(MADV_DONTNEED): they stay in the file, and
 * come back from it when read again). */
struct ksp_wsnap_mem {
	void *(*get)(struct ksp_wsnap_mem *m, size_t len);
	void (*put)(struct ksp_wsnap_mem *m, void *mem, size_t len);
	bool (*shared)(struct ksp_wsnap_mem *m, const void *mem);
};

/* Read the store into a new snapshot image stamped @gen/@nonce (*@ret_mem,
 * *@ret_len bytes, from @where, or calloc() when NULL); the caller holds
 * a transaction, so the reads are consistent. */
int ksp_wsnap_build(struct ksp_store *store, int64_t gen, int64_t nonce, struct ksp_wsnap_mem *where, void **ret_mem,
		    size_t *ret_len);
