/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* party.c's accessors for the library's other folders (render/ draws a
 * party's sheets): what a party was opened on, without its fields. */
#pragma once
#include "lib/libksp-private.h"

/* The context and the store @party was opened on (borrowed). */
struct ksp_ctx *ksp_party_ctx(const struct ksp_party *party);
struct ksp_store *ksp_party_store(const struct ksp_party *party);
