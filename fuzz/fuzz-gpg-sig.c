// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: ksp-gpg's signature reader (src/gpg/sig-info.c), the
 * first code that reads what git hands ksp-gpg: armor, packet headers,
 * a signature's subpackets.  The fields it fills must be well formed
 * whatever the input (status lines are built from them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpg/sig-info.c" /* ksp-gpg's own file: not in libksp */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool hex_or_empty(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sig_info si;
	char kid[17];
	int r = sig_info_read(data, size, &si);

	if (r < 0 && r != -EBADMSG && r != -ENOMEM)
		abort();
	if (!hex_or_empty(si.keyid, 16) || !hex_or_empty(si.fpr, 64))
		abort();
	if (si.fpr[0]) {
		sig_info_keyid_of(si.fpr, kid);
		if (!hex_or_empty(kid, 16))
			abort();
	}
	return 0;
}
