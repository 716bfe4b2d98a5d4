/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <gpgme.h>

/*
 * gpgme operations that feed gpg an input, run on an event loop of our own
 * (gpgme_set_io_cbs) instead of gpgme's.  gpgme's loop never calls the
 * writer of a pipe whose reader is gone (poll says POLLERR, not POLLOUT),
 * so when gpg exits with more than a pipe buffer of its input unread (a
 * file it gives up on, a full TMPDIR, gpg killed) it polls for ever at
 * 100% CPU.  Here every ready or failed descriptor has its handler called:
 * the write fails with EPIPE (SIGPIPE blocked in this thread meanwhile and
 * the one raised taken back) and the operation ends with that error.
 *
 * Return gpgme's error for the operation (GPG_ERR_EPIPE when gpg stopped
 * reading), 0 on success; the result is then read as usual
 * (gpgme_op_import_result, ...).  The context's I/O callbacks are unset
 * again before returning.
 */
gpgme_error_t ksp_gpgme_import(gpgme_ctx_t g, gpgme_data_t in);
gpgme_error_t ksp_gpgme_decrypt(gpgme_ctx_t g, gpgme_data_t in, gpgme_data_t out);
