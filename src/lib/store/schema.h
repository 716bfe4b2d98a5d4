/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* schema.c: the store's schema and its migrations, as SQL text (made from
 * schema*.sql by the build). */
#pragma once

extern const char ksp_schema_sql[];
extern const char ksp_schema2_sql[];
extern const char ksp_schema3_sql[];
extern const char ksp_schema4_sql[];
extern const char ksp_schema5_sql[];
extern const char ksp_schema6_sql[];
extern const char ksp_schema7_sql[];
extern const char ksp_schema8_sql[];
extern const char ksp_schema9_sql[];
