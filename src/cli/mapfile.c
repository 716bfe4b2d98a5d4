// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keyrings for ksp_wot_load_fd() and ksp_wot_scan_add_fd(), which map a
 * regular file (no copy of what may be gigabytes, the page cache serves
 * it, and the pages read are given back as they go) and read anything
 * else (stdin, a pipe) whole.  A mapped file that shrinks while it is read
 * would raise SIGBUS: the handler says which file in one line and exits 2
 * before anything is committed (the store is left as it was).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/ksp.h"

/* the file being read, for the SIGBUS message (the CLI is one thread here) */
static const char *volatile mapped_path;

static void on_sigbus(int sig)
{
	static const char a[] = "ksp: ", b[] = ": the file changed while it was read (truncated?); nothing was "
					     "stored, run the command again\n";
	const char *p = mapped_path;

	(void)sig;
	(void)!write(STDERR_FILENO, a, sizeof(a) - 1);
	if (p)
		(void)!write(STDERR_FILENO, p, strlen(p));
	(void)!write(STDERR_FILENO, b, sizeof(b) - 1);
	_exit(KSP_EXIT_ERROR);
}

int cli_open_input(const char *path)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	int fd;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	mapped_path = path;
	return fd;
}

void cli_close_input(int fd)
{
	mapped_path = NULL;
	if (fd > STDIN_FILENO)
		close(fd);
}

bool cli_is_keytree(const char *path)
{
	struct stat st;
	char *p = NULL;
	bool yes = false;

	if (asprintf(&p, "%s/keys", path) >= 0) {
		yes = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		free(p);
	}
	if (!yes && asprintf(&p, "%s/.keyring", path) >= 0) {
		yes = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
		free(p);
	}
	return yes;
}
