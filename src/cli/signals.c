// SPDX-License-Identifier: LGPL-2.1-or-later
/* SIGINT, SIGTERM, SIGHUP: the library's private GnuPG homes (their
 * gpg-agent stopped) and temporary files removed, then the signal
 * re-raised, so that ksp ends as it would have (exit 130 for ^C). */
#include <signal.h>
#include <stddef.h>

#include "cli/ksp.h"

static struct ksp_ctx *volatile signal_ctx;

static void on_signal(int sig)
{
	/* SA_RESETHAND: the default action is back; the signal is blocked
	 * until we return, and then ends the process */
	ksp_cleanup_after_signal(signal_ctx);
	raise(sig);
}

void cli_signals_install(struct ksp_ctx *ctx)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };

	/* a reference of its own: the handler may run while main() ends */
	signal_ctx = ksp_ref(ctx);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]); /* one cleanup at a time */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* a signal ignored when we started (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}
