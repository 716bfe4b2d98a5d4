// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Keyrings read whole: a regular file is mapped (no copy of what may be
 * gigabytes, the page cache serves it), anything else (stdin, a pipe) is
 * read into memory.  A mapped file that shrinks while it is read would
 * raise SIGBUS: the handler says which file in one line and exits 2
 * before anything is committed (the store is left as it was).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/ksp.h"
#include "shared/util.h"

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

int cli_map_file(const char *path, struct cli_mapped *m)
{
	struct stat st;
	int fd, r;

	memset(m, 0, sizeof(*m));
	if (strcmp(path, "-") == 0) {
		r = read_file_all(path, 0, &m->buf, &m->len);
		if (r < 0)
			return r;
		m->data = m->buf;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (p != MAP_FAILED) {
			struct sigaction sa = { .sa_handler = on_sigbus };
			close(fd);
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, NULL);
			mapped_path = path;
			m->map = p;
			m->data = p;
			m->len = (size_t)st.st_size;
			return 0;
		}
	}
	r = read_fd_all(fd, 0, &m->buf, &m->len);
	close(fd);
	if (r < 0)
		return r;
	m->data = m->buf;
	return 0;
}

void cli_unmap_file(struct cli_mapped *m)
{
	if (m->map) {
		munmap(m->map, m->len);
		mapped_path = NULL;
	}
	free(m->buf);
	memset(m, 0, sizeof(*m));
}
