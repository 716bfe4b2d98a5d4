/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One UTF-8 sequence at s (len bytes available): its length, and its code
 * point in *cp; 0 when invalid (truncated, overlong, a surrogate, beyond
 * U+10FFFF, a stray continuation byte). */
size_t utf8_decode(const uint8_t *s, size_t len, uint32_t *cp);

/* A code point that must never reach an output raw (controls, separators,
 * invisible reordering and hiding characters; the list is in utf8.c). */
bool utf8_unsafe(uint32_t c);
