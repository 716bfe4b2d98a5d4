// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: the address of a user ID (src/lib/addr.c), with its
 * properties checked: an address never holds a control character (a
 * header injection) or a NUL, its canonical form reads back as itself, a
 * writable one is printable ASCII, and a display name is only given for a
 * user ID that has an address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a = NULL, *again = NULL, *name = NULL;

	if (ksp_uid_address((const char *)data, size, &a) < 0)
		return 0;
	if (ksp_uid_display_name((const char *)data, size, &name) < 0) {
		free(a);
		return 0;
	}
	if (name && a == NULL)
		abort();
	if (a) {
		size_t n = strlen(a);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)a[i] < 0x20 || (unsigned char)a[i] == 0x7f)
				abort();
		if (ksp_uid_address(a, n, &again) == 0) {
			if (again == NULL || strcmp(again, a) != 0)
				abort(); /* the canonical form reads back as itself */
		}
		if (ksp_address_writable(a))
			for (size_t i = 0; i < n; i++)
				if ((unsigned char)a[i] >= 0x7f)
					abort();
	}
	free(a);
	free(again);
	free(name);
	return 0;
}
