// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the ASCII-armor decoder (ksp_armor_detect/decode),
 * block after block as the reader calls it. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/libksp-private.h"
#include "lib/openpgp/pgp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint8_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	(void)ksp_armor_detect(data, size);
	while (pos < size) {
		uint8_t *out = NULL;
		size_t out_len = 0, consumed = 0;
		int r = ksp_armor_decode(data + pos, size - pos, &out, &out_len, &consumed);

		if (r < 0) {
			if (out != NULL)
				abort(); /* out-parameters untouched on failure */
			break;
		}
		/* base64: never more than 3 bytes per 4 characters read */
		if (consumed == 0 || consumed > size - pos || out_len > consumed / 4 * 3 + 3)
			abort();
		for (size_t i = 0; i < out_len; i++)
			sink ^= out[i]; /* read every byte: ASan checks the length */
		if (ksp_crc24(out, out_len) > 0xffffff)
			abort();
		free(out);
		pos += consumed;
	}
	return 0;
}
