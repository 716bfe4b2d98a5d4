// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the bounded matcher of trust-signature regular
 * expressions (src/lib/trust/tsig-regex.c).  The input is the expression,
 * a NUL, and the user ID; both dialects compile it and match it.  Checked:
 * an answer is yes, no or the step limit; a user ID never takes more
 * steps than the limit allows (no hang: libFuzzer's -timeout); an
 * expression beyond the subset matches nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trust/tsig-regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t rlen = nul ? (size_t)(nul - data) : size;
	const char *uid = nul ? (const char *)nul + 1 : "";
	size_t ulen = nul ? size - rlen - 1 : 0;
	char *re = malloc(rlen + 1);

	if (re == NULL)
		return 0;
	memcpy(re, data, rlen);
	re[rlen] = '\0';
	for (int d = 0; d < 2; d++) {
		struct tsig_regex *rx;
		const char *why, *one = re;
		size_t bad, at;
		int r;

		if (tsig_regex_compile(&one, 1, d ? TSIG_GNUPG : TSIG_SEQUOIA, &rx, &bad, &why, &at) < 0)
			continue;
		if (bad > 1 || (bad == 1) != (why != NULL))
			abort();
		r = tsig_regex_match(rx, uid, ulen);
		if (r != 0 && r != 1 && r != -E2BIG && r != -ENOMEM)
			abort();
		if (bad && r != 0)
			abort(); /* beyond the subset: matches nothing */
		tsig_regex_free(rx);
	}
	free(re);
	return 0;
}
