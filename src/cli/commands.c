// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cli/ksp.h"

extern const struct ksp_cmd ksp_cmd_help;
extern const struct ksp_cmd ksp_cmd_party;
extern const struct ksp_cmd ksp_cmd_wot;
extern const struct ksp_cmd ksp_cmd_trust;
extern const struct ksp_cmd ksp_cmd_health;
extern const struct ksp_cmd ksp_cmd_verify;
extern const struct ksp_cmd ksp_cmd_graph;
extern const struct ksp_cmd ksp_cmd_import;
extern const struct ksp_cmd ksp_cmd_publish;

const struct ksp_cmd *const ksp_commands[] = {
	&ksp_cmd_party,
	&ksp_cmd_wot,
	&ksp_cmd_trust,
	&ksp_cmd_health,
	&ksp_cmd_verify,
	&ksp_cmd_graph,
	&ksp_cmd_publish,
	&ksp_cmd_import,
	&ksp_cmd_help,
	NULL,
};
