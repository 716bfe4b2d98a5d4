// SPDX-License-Identifier: LGPL-2.1-or-later
/* libFuzzer target: what ksp-gpg reads of a signature git hands it
 * (gpg.program --verify SIG -): src/gpg/sig-info.c's sig_info_read() (the
 * fields of the status lines), and the library's own reading of a detached
 * signature as ksp_verify_detached_native() does it (armor, then exactly
 * one signature packet, ksp_pgp_parse_sig()).  Checked: the key ID and
 * fingerprint read are hex strings of the right length, a found signature
 * has a version. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpg/sig-info.h"
#include "lib/openpgp/pgp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hex_or_empty(const char *s, size_t a, size_t b)
{
	size_t n = strlen(s);

	if (n != 0 && n != a && n != b)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F') || (s[i] >= 'a' && s[i] <= 'f')))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sig_info si;
	uint8_t *dec = NULL;
	const uint8_t *b = data;
	size_t blen = size, pos = 0, consumed;

	if (sig_info_read(data, size, &si) == 0 && si.found) {
		hex_or_empty(si.keyid, 16, 16);
		hex_or_empty(si.fpr, 40, 64);
	}
	/* verify-native.c's reading */
	if (ksp_armor_detect(data, size)) {
		if (ksp_armor_decode(data, size, &dec, &blen, &consumed) < 0)
			return 0;
		if (consumed > size)
			abort();
		b = dec;
	}
	while (pos < blen) {
		struct ksp_pgp_packet pkt;
		struct ksp_pgp_sig s;
		size_t before = pos;
		if (ksp_pgp_packet_next(b, blen, &pos, &pkt) < 0)
			break;
		if (pos <= before || pos > blen)
			abort();
		if (pkt.tag == KSP_PGP_TAG_SIGNATURE && !pkt.joined && ksp_pgp_parse_sig(pkt.body, pkt.body_len, &s) == 0) {
			if (s.version < 2 || s.version > 6)
				abort();
			ksp_pgp_sig_done(&s);
		}
		free(pkt.joined);
	}
	free(dec);
	return 0;
}
