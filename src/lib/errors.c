// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <gpgme.h>
#include <sqlite3.h>

#include "lib/libksp-private.h"

int ksp_errno_from_sqlite(struct ksp_ctx *ctx, sqlite3 *db, int rc, const char *what)
{
	int r;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOMEM:
		r = -ENOMEM;
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		r = -EBUSY;
		break;
	case SQLITE_READONLY:
		r = -EROFS;
		break;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		r = -EBADMSG;
		break;
	case SQLITE_FULL:
		r = -ENOSPC;
		break;
	case SQLITE_CONSTRAINT:
		r = -EEXIST;
		break;
	case SQLITE_CANTOPEN:
		r = -ENOENT;
		break;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		r = -EACCES;
		break;
	default:
		r = -EIO;
		break;
	}
	INFO(ctx, "%s: %s (sqlite %d)\n", what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc);
	return r;
}

int ksp_errno_from_gpgme(struct ksp_ctx *ctx, unsigned int err, const char *what)
{
	gpgme_error_t e = err;
	char buf[256];
	int sys;

	if (e == 0)
		return 0;
	gpgme_strerror_r(e, buf, sizeof(buf));
	INFO(ctx, "%s: %s (%s)\n", what, buf, gpgme_strsource(e));
	switch (gpgme_err_code(e)) {
	case GPG_ERR_INV_VALUE:
		return -EINVAL;
	case GPG_ERR_NOT_FOUND:
	case GPG_ERR_NO_PUBKEY:
	case GPG_ERR_NO_SECKEY:
		return -ENOKEY;
	case GPG_ERR_BAD_SIGNATURE:
	case GPG_ERR_INV_PACKET:
	case GPG_ERR_NO_DATA:
	case GPG_ERR_INV_ARMOR:
		return -EBADMSG;
	case GPG_ERR_UNUSABLE_PUBKEY:
	case GPG_ERR_UNUSABLE_SECKEY:
		return -EKEYREJECTED;
	case GPG_ERR_CANCELED:
		return -ECANCELED;
	case GPG_ERR_ENOMEM:
		return -ENOMEM;
	default:
		break;
	}
	sys = gpgme_err_code_to_errno(gpgme_err_code(e));
	if (sys > 0)
		return -sys;
	return -EIO;
}
