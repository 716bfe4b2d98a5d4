/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _printf_format_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _must_check_ __attribute__((warn_unused_result))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
