// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the git commit/tag splitter of 'ksp verify
 * --git-commit/--git-tag' (src/lib/trust/git-split.c), with its
 * properties checked: a tag splits into payload + signature that are the
 * object again, in that order; a commit's payload and signature are never
 * longer than the object together, and its payload starts as the object
 * does. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/git-split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksp_git_split gs;
	const char *obj = (const char *)data;
	int r = ksp_git_split(obj, size, &gs);

	if (r == 0) {
		if (gs.payload.len > size || gs.sig.len > size || gs.payload.len + gs.sig.len > size)
			abort();
		if (gs.is_signed != (gs.sig.len > 0) && gs.tag)
			abort();
		if (gs.tag) {
			/* payload then signature: the object itself */
			if (gs.payload.len + gs.sig.len != size ||
			    (gs.payload.len && memcmp(gs.payload.buf, obj, gs.payload.len) != 0) ||
			    (gs.sig.len && memcmp(gs.sig.buf, obj + gs.payload.len, gs.sig.len) != 0))
				abort();
		} else if (gs.payload.len && memcmp(gs.payload.buf, "tree ", 5) != 0) {
			abort(); /* a commit's payload starts where the object does */
		}
	} else if (r != -EINVAL) {
		abort();
	}
	ksp_git_split_release(&gs);
	return 0;
}
