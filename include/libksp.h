/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libksp - OpenPGP key-signing parties and web-of-trust analysis.
 *
 * Conventions (see docs/libksp.3):
 *  - every object is opaque; constructors return int and hand the object
 *    back through the last parameter, named ret;
 *  - fallible functions return 0 (or a count, or 1 for "got an item") on
 *    success and a negative errno on failure; on failure out-parameters are
 *    left untouched;  a one-line human message describing the last failure
 *    is kept on the context (ksp_get_error());
 *  - _unref() and _free() accept NULL and return NULL;
 *  - getters return borrowed pointers valid for the life of the object;
 *  - a context and everything made from it belong to one thread at a time.
 */
#pragma once
#ifndef LIBKSP_H
#define LIBKSP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Context                                                             */

struct ksp_ctx;

/**
 * ksp_new:
 * @ret: where to store the new context (refcount 1)
 *
 * Reads KSP_LOG (err, info, debug or a number) for the log priority.
 * Returns: 0, or -ENOMEM.  Since: 1
 */
int ksp_new(struct ksp_ctx **ret);
struct ksp_ctx *ksp_ref(struct ksp_ctx *ctx);
struct ksp_ctx *ksp_unref(struct ksp_ctx *ctx);
/* Install a log function; NULL restores the default (silent unless KSP_LOG). */
void ksp_set_log_fn(struct ksp_ctx *ctx,
		    void (*log_fn)(void *log_data, int priority, const char *file,
				   int line, const char *fn, const char *format,
				   va_list args),
		    void *log_data);
int ksp_get_log_priority(const struct ksp_ctx *ctx);
void ksp_set_log_priority(struct ksp_ctx *ctx, int priority);
void *ksp_get_userdata(const struct ksp_ctx *ctx);
void ksp_set_userdata(struct ksp_ctx *ctx, void *userdata);
/* The user's own GnuPG home, used only where a call says so (NULL: gpg's
 * default).  Returns 0 or -ENOMEM. */
int ksp_set_gnupg_home(struct ksp_ctx *ctx, const char *dir);
const char *ksp_get_gnupg_home(const struct ksp_ctx *ctx);
/* One line describing the last failure of a call on this context, naming
 * the file and what to do, or NULL. */
const char *ksp_get_error(const struct ksp_ctx *ctx);
/* Worker threads for parallel work (signature verification, distances);
 * 0 (the default) means one per online CPU, at most 8. */
void ksp_set_threads(struct ksp_ctx *ctx, unsigned int n);
unsigned int ksp_get_threads(const struct ksp_ctx *ctx);
/* Progress of long work (loading, verifying, distances): @what names the
 * phase, @total may be 0 when unknown.  Called from the calling thread
 * only.  NULL (the default) reports nothing. */
void ksp_set_progress_fn(struct ksp_ctx *ctx,
			 void (*fn)(void *data, const char *what, uint64_t done, uint64_t total),
			 void *data);

/* Where private temporary GnuPG homes are made (default $TMPDIR or /tmp). */
int ksp_set_tmpdir(struct ksp_ctx *ctx, const char *dir);
/* For a handler of SIGINT, SIGTERM, SIGHUP that then ends the process
 * (re-raising the signal): stop the gpg-agent of every private GnuPG home
 * this context's operations have open and remove the home, and remove
 * their temporary files (staged outbox files, a snapshot being written).
 * Async-signal-safe; the context must not be used afterwards. */
void ksp_cleanup_after_signal(struct ksp_ctx *ctx);

/* ------------------------------------------------------------------ */
/* The store: one SQLite file                                          */

struct ksp_store;

enum ksp_store_flags {
	KSP_STORE_READ_WRITE = 1 << 0,
	KSP_STORE_CREATE = 1 << 1,
	/* read-only, and nothing written beside the file (no -shm, -wal,
	 * -wot): SQLite's immutable=1; refused while a -wal holds changes */
	KSP_STORE_IMMUTABLE = 1 << 2,
};

/**
 * ksp_store_open:
 * Opens (and with KSP_STORE_CREATE creates) the store at @path, migrating
 * its schema to the current version when opened read-write.
 * Returns: 0; -ENOENT (no such store), -EBUSY (locked), -EROFS,
 * -EBADMSG (not a ksp store or corrupt), -EPROTO (made by a newer ksp),
 * -ENOMEM, -EIO.  Since: 1
 */
int ksp_store_open(struct ksp_ctx *ctx, const char *path, unsigned int flags,
		   struct ksp_store **ret);
struct ksp_store *ksp_store_ref(struct ksp_store *store);
struct ksp_store *ksp_store_unref(struct ksp_store *store);
struct ksp_ctx *ksp_store_get_ctx(const struct ksp_store *store);
const char *ksp_store_get_path(const struct ksp_store *store);
int ksp_store_get_schema_version(const struct ksp_store *store);
/* Explicit transactions (nest by counting; only the outermost commits). */
int ksp_store_begin(struct ksp_store *store);
int ksp_store_commit(struct ksp_store *store);
int ksp_store_rollback(struct ksp_store *store);
/* Row counts; @what is "keys", "uids", "certs", "participants".
 * Returns the count (>= 0) or a negative errno. */
int64_t ksp_store_count(struct ksp_store *store, const char *what);
/* A user ID of the key to show beside it (the primary one, else the first
 * unrevoked): raw bytes, hostile, malloc()ed and NUL-terminated; -ENOENT. */
int ksp_store_get_key_uid(struct ksp_store *store, const char *fpr, char **ret, size_t *ret_len);
/* PRAGMA integrity_check; returns 1 if ok, 0 if not, <0 on error. */
int ksp_store_check(struct ksp_store *store);

/* ------------------------------------------------------------------ */
/* Escaping hostile text (user IDs) for an output format               */

enum ksp_escape_format {
	KSP_ESCAPE_TERMINAL = 0, /* ASCII controls and invalid UTF-8 bytes as \xNN, C1 controls and bidi overrides as \u{NNNN} */
	KSP_ESCAPE_JSON = 1,     /* a JSON string body; controls as \u00nn, each invalid UTF-8 byte as \ufffd */
	KSP_ESCAPE_HTML = 2,     /* HTML text and attribute values */
	KSP_ESCAPE_DOT = 3,      /* inside a double-quoted DOT string */
};
/* Returns 0 and a malloc'ed NUL-terminated string in *ret, or -ENOMEM/-EINVAL. */
int ksp_escape(const void *text, size_t len, unsigned int format, char **ret);

/* ------------------------------------------------------------------ */
/* The party: organizer's list of participants                        */

struct ksp_party;
struct ksp_key_check;
struct ksp_participant;
struct ksp_participant_iter;

/* Creates the store's party (one per store).  @date is YYYY-MM-DD.
 * Returns: 0, -EEXIST (a party exists), -EINVAL, -errno from the store. */
int ksp_party_create(struct ksp_store *store, const char *name, const char *date,
		     const char *location, const char *organizer_fpr,
		     struct ksp_party **ret);
/* Opens the store's party.  Returns: 0, -ENOENT (none yet), -errno. */
int ksp_party_open(struct ksp_store *store, struct ksp_party **ret);
struct ksp_party *ksp_party_ref(struct ksp_party *party);
struct ksp_party *ksp_party_unref(struct ksp_party *party);
const char *ksp_party_get_name(const struct ksp_party *party);
const char *ksp_party_get_date(const struct ksp_party *party);
const char *ksp_party_get_location(const struct ksp_party *party);
const char *ksp_party_get_organizer(const struct ksp_party *party);
bool ksp_party_is_closed(const struct ksp_party *party);
/* The newest frozen list version, 0 if never closed. */
int ksp_party_get_list_version(const struct ksp_party *party);

enum ksp_add_flags {
	KSP_ADD_ALLOW_WEAK = 1 << 0,     /* accept RSA/DSA < 2048 bits, MD5/SHA-1 self-sigs */
	KSP_ADD_ALLOW_NO_EMAIL = 1 << 1, /* accept keys with no user ID with an address */
	KSP_ADD_ALLOW_EXPIRING = 1 << 2, /* accept keys that expire before the party */
	KSP_ADD_DRY_RUN = 1 << 3,        /* check only, store nothing */
};

/* Reasons a key is refused (or, where allowed, accepted with a warning). */
enum ksp_check {
	KSP_CHECK_REVOKED = 1 << 0,
	KSP_CHECK_EXPIRED = 1 << 1,
	KSP_CHECK_EXPIRES_BEFORE_PARTY = 1 << 2,
	KSP_CHECK_NO_SELFSIG = 1 << 3,
	KSP_CHECK_WEAK_KEY = 1 << 4,
	KSP_CHECK_WEAK_HASH = 1 << 5,
	KSP_CHECK_NO_EMAIL = 1 << 6,
	KSP_CHECK_DUPLICATE = 1 << 7,
	KSP_CHECK_SECRET = 1 << 8,
	KSP_CHECK_NO_ENCRYPTION = 1 << 9,  /* warning only */
	KSP_CHECK_EXPIRES_SOON = 1 << 10,  /* warning only: within 30 days after the party */
	KSP_CHECK_INVALID = 1 << 11,       /* unusable for another reason */
	KSP_CHECK_SAME_ADDRESS = 1 << 12,  /* warning only: an address already on the list with another key */
	KSP_CHECK_NO_KEY = 1 << 13,        /* only a fingerprint (an RSVP mail), no key; or not on the keyserver */
	KSP_CHECK_NO_USER_ID = 1 << 14,    /* the keyserver has the key without a user ID */
};

/**
 * ksp_party_add:
 * Imports every key in @data (armored or binary, several keys allowed)
 * through gpgme in a private temporary GnuPG home, checks each and adds the
 * accepted ones to the open list, all in one transaction.  @source names the
 * input in messages.  @cb (may be NULL) is called once per key found.
 * Secret key material anywhere in @data refuses the whole input.
 * Returns: the number of keys accepted (>= 0); -EBADMSG (no OpenPGP key in
 * the input), -EKEYREJECTED (secret key material), -EPERM (list closed),
 * -ENOMEM, -EIO, -EBUSY.
 */
int ksp_party_add(struct ksp_party *party, const void *data, size_t len, const char *source,
		  unsigned int flags,
		  void (*cb)(void *cb_data, const struct ksp_key_check *check), void *cb_data);
/* As ksp_party_add(), reading the keys from the user's own GnuPG home
 * (ksp_set_gnupg_home(), read-only) by full fingerprint. */
int ksp_party_add_gnupg(struct ksp_party *party, const char *const *fprs, size_t n_fprs,
			unsigned int flags,
			void (*cb)(void *cb_data, const struct ksp_key_check *check),
			void *cb_data);
/* The keyserver (hkp://HOST[:PORT], hkps://HOST) ksp_party_add() fetches
 * the key of an RSVP mail holding only a fingerprint from, through gpg's
 * dirmngr in a private GnuPG home; NULL: none (such a mail is reported as a
 * refused key, KSP_CHECK_NO_KEY).  Since: LIBKSP_3. */
int ksp_party_set_keyserver(struct ksp_party *party, const char *url);
/* As ksp_party_add(), the keys of @fprs (full fingerprints) fetched from
 * the keyserver set: each one not received is reported as refused
 * (KSP_CHECK_NO_KEY; KSP_CHECK_NO_USER_ID when it has no user ID there).
 * -EINVAL: no keyserver set, or not a full fingerprint.  Since: LIBKSP_3. */
int ksp_party_add_fingerprints(struct ksp_party *party, const char *const *fprs, size_t n_fprs,
			       unsigned int flags,
			       void (*cb)(void *cb_data, const struct ksp_key_check *check), void *cb_data);
const char *ksp_key_check_get_fingerprint(const struct ksp_key_check *check);
bool ksp_key_check_is_accepted(const struct ksp_key_check *check);
unsigned int ksp_key_check_get_problems(const struct ksp_key_check *check);
/* One line: why refused, or the warnings it was accepted with. */
const char *ksp_key_check_get_message(const struct ksp_key_check *check);
/* The participant number given on acceptance, 0 otherwise. */
int ksp_key_check_get_number(const struct ksp_key_check *check);
/* "revoked", "expired", ... for one KSP_CHECK_ bit. */
const char *ksp_check_name(unsigned int check);

/* Removes a participant by full fingerprint or by number ("3").
 * Returns: 0, -ENOENT, -EPERM (closed), -errno. */
int ksp_party_remove(struct ksp_party *party, const char *fpr_or_number);

int ksp_party_iter_participants(struct ksp_party *party, struct ksp_participant_iter **ret);
/* >0 item (borrowed until the next call), 0 end, <0 error */
int ksp_participant_iter_next(struct ksp_participant_iter *it, struct ksp_participant **ret);
struct ksp_participant_iter *ksp_participant_iter_free(struct ksp_participant_iter *it);
int ksp_participant_get_number(const struct ksp_participant *p);
const char *ksp_participant_get_fingerprint(const struct ksp_participant *p);
int ksp_participant_get_version(const struct ksp_participant *p);
/* "rsa3072", "ed25519", "dsa1024", ... */
const char *ksp_participant_get_algo(const struct ksp_participant *p);
int64_t ksp_participant_get_created(const struct ksp_participant *p);
int64_t ksp_participant_get_expires(const struct ksp_participant *p);
const char *ksp_participant_get_warnings(const struct ksp_participant *p);
size_t ksp_participant_get_uid_count(const struct ksp_participant *p);
/* Raw user ID bytes (hostile; escape before output), NULL past the end. */
const char *ksp_participant_get_uid(const struct ksp_participant *p, size_t i, size_t *len);

/* Freezes the list: writes the canonical list text and its digests as a
 * new list version.  Returns: 0 and the version in *ret_version; -EPERM
 * (already closed), -ENODATA (no participants), -errno. */
int ksp_party_close(struct ksp_party *party, int *ret_version);
/* Reopens a closed list for latecomers; the old version stays on record. */
int ksp_party_reopen(struct ksp_party *party, const char *reason);
/* The canonical text of list @version (0 = newest), malloc'ed; -ENOENT. */
int ksp_party_get_list_text(struct ksp_party *party, int version, char **ret, size_t *ret_len);
/* Lower-case hex digests of list @version (0 = newest); caller frees. */
int ksp_party_get_digests(struct ksp_party *party, int version, int *ret_version,
			  char **ret_sha256, char **ret_rmd160);
/* Recomputes the digests of @data; returns 1 and the version it matches
 * (newest first) in *ret_version, 0 if it matches none, <0 on error. */
int ksp_party_verify_list(struct ksp_party *party, const void *data, size_t len,
			  int *ret_version);
/* ksp_party_export() of the keys of frozen list @version (0: the current
 * participants): the keyring a participant who holds that list version
 * joins with.  -ENOENT: no such version.  Since: LIBKSP_3. */
int ksp_party_export_version(struct ksp_party *party, int version, unsigned int flags, void **ret, size_t *ret_len);
/**
 * ksp_party_join:
 * A participant's own copy of the party in @store, from the announced list
 * file @list (the canonical text 'party close' wrote, byte for byte) and
 * the party keyring @keyring ('party export').  The list's header gives the
 * party (name, date, place, organizer) and its version; its keys, taken
 * from @keyring in list order with their list numbers, must give exactly
 * the same canonical text again (fingerprints, algorithms, dates, user
 * IDs): a key missing from the keyring or any other difference refuses
 * the join; keys of the keyring not on the list (a newer list's) are left
 * out (since LIBKSP_3; refused before).  @sha256 (may be NULL) is the announced
 * digest of the file (hex, any case, spaces or colons allowed).  A newer
 * version of the same party's list (latecomers) replaces the current list
 * and keeps the older versions on record.  One transaction: on any error
 * nothing is stored.  *@ret (may be NULL) gets the party.
 * Returns: 0 joined (version in *@ret_version), 1 this version was
 * joined before (nothing changed); -EBADMSG (not the list, changed, or
 * the keyring does not match), -ENOKEY (a listed key missing or refused),
 * -EEXIST (the store holds another party), -ESTALE (an older or different
 * version than the store's), -EINVAL, -errno.
 */
int ksp_party_join(struct ksp_store *store, const void *list, size_t list_len, const char *list_source,
		   const void *keyring, size_t keyring_len, const char *keyring_source,
		   const char *sha256, struct ksp_party **ret, int *ret_version);

/* ------------------------------------------------------------------ */
/* Web of trust: bulk loading and metrics                              */

enum ksp_wot_load_flags {
	KSP_WOT_LOAD_STRICT = 1 << 0, /* a malformed key fails the whole load */
	KSP_WOT_LOAD_NO_VERIFY = 1 << 1, /* store signatures unchecked (verified = 0) */
	KSP_WOT_LOAD_FULL = 1 << 2, /* check and write again the keys stored already byte for byte (LIBKSP_3) */
	KSP_WOT_LOAD_PRUNE = 1 << 3, /* remove the keys last read from the same source that it no longer holds (LIBKSP_3) */
};
/* Reads every key in @data (binary or armored keyrings, concatenated,
 * keyserver dumps) with the native reader and stores keys, user IDs and
 * third-party certifications (0x10-0x13, 0x30), in one transaction.
 * Malformed keys are skipped and counted (logged with file and offset).
 * Every signature is checked (verified = 1 good, 2 bad, 3 unsupported,
 * 4 issuer not in the store) unless KSP_WOT_LOAD_NO_VERIFY.  A key whose
 * packets are stored already, byte for byte, from a load that checked them
 * (the SHA-256 of its packets is kept in the store) is not parsed, checked
 * nor written again (the same store as loading it in full;
 * KSP_WOT_LOAD_FULL to load it in full anyway).  With KSP_WOT_LOAD_PRUNE,
 * the keys whose source was @source and that @data no longer holds are
 * removed (not those a party names), so that the store is what loading
 * @data alone would give.
 * Returns 0; -EBADMSG (no key, or --strict and a bad key), -ENOMEM, -errno;
 * on failure nothing was stored.
 * ksp_wot_load_fd() reads @fd (not closed): a regular file is mapped
 * read-only and the pages already read are given back to the kernel as
 * the load goes on, so that a keyring of gigabytes does not sit in memory
 * whole (as with any mapping, a file truncated while it is read raises
 * SIGBUS); anything else is read whole first.  @source names it in
 * messages. */
int ksp_wot_load(struct ksp_store *store, const void *data, size_t len, const char *source,
		 unsigned int flags, uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad);
int ksp_wot_load_fd(struct ksp_store *store, int fd, const char *source, unsigned int flags,
		    uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad);

/* A key tree as kernel.org's pgpkeys repository lays it out, read into
 * one binary keyring (*ret, malloc'ed, for ksp_wot_load(),
 * ksp_party_add(), ksp_party_import()): every file of @dir, in sorted
 * order, with keys/<KEYID>.asc (text before the armor, several armored
 * blocks) and .keyring/openpgp/<domain>/<local>/<selector> (symlinks
 * inside the tree followed, one file read once); .keyring/<other type>/
 * is skipped with a warning, dot folders (.git) are skipped, text outside
 * armor is skipped.  Refused (-EXDEV, -EFBIG, -EBADMSG, -EEXIST, with
 * ksp_get_error() naming the file): a symlink out of the tree, a file
 * over 64 MiB, damaged armor, keys/<KEYID>.asc whose name or header names
 * a key its armor does not hold, one key in two files outside .keyring/.
 * -ENODATA: no key in the tree. (LIBKSP_3) */
int ksp_keytree_read(struct ksp_ctx *ctx, const char *dir, void **ret, size_t *ret_len);

/* The same key tree given file by file (the blobs of a git commit's tree:
 * 'ksp wot refresh' never reads a work tree): @path relative ('/'
 * between names), @data its bytes.  The rules are ksp_keytree_read()'s;
 * a path ksp_keytree_read() would not read (dot folders, .keyring/<other
 * type>/) is skipped (0); symlinks are the caller's (it gives regular
 * files only).  ksp_keytree_finish() hands over the keyring (*ret,
 * malloc'ed), -ENODATA when no file held a key. (LIBKSP_3) */
struct ksp_keytree;
int ksp_keytree_new(struct ksp_ctx *ctx, struct ksp_keytree **ret);
int ksp_keytree_add_file(struct ksp_keytree *kt, const char *path, const void *data, size_t len);
int ksp_keytree_finish(struct ksp_keytree *kt, void **ret, size_t *ret_len);
struct ksp_keytree *ksp_keytree_free(struct ksp_keytree *kt);
/* Does @data (@len bytes) hash to the git object ID @oid (40 hex digits:
 * SHA-1, 64: SHA-256) as an object of @type ("blob", "tree", "commit")?
 * 0 yes, -EBADMSG no, -EINVAL not an object ID.  (LIBKSP_3) */
int ksp_git_object_check(const char *oid, const char *type, const void *data, size_t len);

/* The last commit of the keyring git repository @repo (a path, as the
 * caller names it) whose history was checked and loaded ('ksp wot
 * refresh'): *ret_commit (malloc'ed, hex) or NULL when none.  Set by
 * ksp_wot_refresh_set(), in the caller's transaction.  Return 0, -EINVAL
 * (a commit ID that is not 40 or 64 lower-case hex digits), -ENOMEM,
 * -errno. (LIBKSP_3) */
int ksp_wot_refresh_get(struct ksp_store *store, const char *repo, char **ret_commit);
int ksp_wot_refresh_set(struct ksp_store *store, const char *repo, const char *commit);

struct ksp_wot_stats;
enum ksp_wot_flags {
	KSP_WOT_STRUCTURAL = 1 << 0, /* every certification counts, unchecked */
	KSP_WOT_NO_SHA1 = 1 << 1,    /* drop SHA-1 and RIPEMD-160 certifications */
	KSP_WOT_ALLOW_MD5 = 1 << 2,  /* MD5 certifications count (by default they do not) */
};
/* Builds the graph from the store and computes its metrics: strongly
 * connected components, the strong set, every strong-set key's MSD.
 * Returns 0, -ENOMEM, -errno. */
int ksp_wot_stats_new(struct ksp_store *store, int64_t at, unsigned int flags,
		      struct ksp_wot_stats **ret);

/* Keyrings read straight into the structural graph, without a store (what
 * keyanalyze computes): the same reader as ksp_wot_load(), and the same
 * graph as ksp_wot_load(KSP_WOT_LOAD_NO_VERIFY) of the same inputs into a
 * new store followed by ksp_wot_stats_new(KSP_WOT_STRUCTURAL).  Nothing is
 * verified, the keyring data need not outlive ksp_wot_scan_add().
 * ksp_wot_scan_add() returns 0; -EBADMSG (no key in @data), -ENOMEM; it
 * counts the keys read, the certifications new to the scan and the
 * malformed keys skipped.  ksp_wot_stats_new_from_scan() takes
 * KSP_WOT_STRUCTURAL only (-EOPNOTSUPP otherwise); @scan may be freed
 * after it. */
struct ksp_wot_scan;
int ksp_wot_scan_new(struct ksp_ctx *ctx, struct ksp_wot_scan **ret);
int ksp_wot_scan_add(struct ksp_wot_scan *scan, const void *data, size_t len, const char *source,
		     uint64_t *ret_keys, uint64_t *ret_certs, uint64_t *ret_bad);
/* The same from @fd (not closed), read as ksp_wot_load_fd() reads it. */
int ksp_wot_scan_add_fd(struct ksp_wot_scan *scan, int fd, const char *source, uint64_t *ret_keys,
			uint64_t *ret_certs, uint64_t *ret_bad);
struct ksp_wot_scan *ksp_wot_scan_free(struct ksp_wot_scan *scan);
/* A user ID to show beside a key of the scan, as ksp_store_get_key_uid()
 * (unchecked: the one a self-signature marks primary, else the first). */
int ksp_wot_scan_get_key_uid(const struct ksp_wot_scan *scan, const char *fpr, char **ret, size_t *ret_len);
int ksp_wot_stats_new_from_scan(struct ksp_wot_scan *scan, int64_t at, unsigned int flags,
				struct ksp_wot_stats **ret);
struct ksp_wot_stats *ksp_wot_stats_free(struct ksp_wot_stats *stats);
uint64_t ksp_wot_stats_get_vertices(const struct ksp_wot_stats *stats);
uint64_t ksp_wot_stats_get_edges(const struct ksp_wot_stats *stats);
uint64_t ksp_wot_stats_get_scc_count(const struct ksp_wot_stats *stats);
uint64_t ksp_wot_stats_get_strong_set_size(const struct ksp_wot_stats *stats);
uint64_t ksp_wot_stats_get_strong_set_edges(const struct ksp_wot_stats *stats);
/* Sum of all strong-set distances; MSD = sum / (|S| (|S| - 1)). */
uint64_t ksp_wot_stats_get_distance_sum(const struct ksp_wot_stats *stats);
double ksp_wot_stats_get_msd(const struct ksp_wot_stats *stats);
/* Strong-set keys ranked by MSD (ties by fingerprint); rank from 0.
 * Returns the fingerprint (borrowed) or NULL past the end. */
const char *ksp_wot_stats_get_ranked(const struct ksp_wot_stats *stats, size_t rank,
				     uint64_t *ret_distance_sum, double *ret_msd);

/* Keys of the store: all, and why some are not vertices at the time. */
enum ksp_wot_keys {
	KSP_WOT_KEYS_TOTAL = 0,
	KSP_WOT_KEYS_REVOKED = 1,
	KSP_WOT_KEYS_EXPIRED = 2,
	KSP_WOT_KEYS_NOT_YET_VALID = 3, /* created after the reference time */
};
uint64_t ksp_wot_stats_get_keys(const struct ksp_wot_stats *stats, unsigned int which);
/* Certifications (0x10-0x13) in the store by verification state, and
 * certification revocations (0x30). */
enum ksp_wot_certs {
	KSP_WOT_CERTS_TOTAL = 0,
	KSP_WOT_CERTS_GOOD = 1,
	KSP_WOT_CERTS_BAD = 2,
	KSP_WOT_CERTS_UNSUPPORTED = 3,
	KSP_WOT_CERTS_DANGLING = 4,  /* issuer not in the store */
	KSP_WOT_CERTS_UNCHECKED = 5, /* loaded with KSP_WOT_LOAD_NO_VERIFY */
	KSP_WOT_CERTS_REVOCATIONS = 6,
	/* good ones the graph's hash rule leaves out, at any time: MD5 (unless
	 * KSP_WOT_ALLOW_MD5), SHA-1 and RIPEMD-160 (KSP_WOT_NO_SHA1) */
	KSP_WOT_CERTS_DROPPED_MD5 = 7,
	KSP_WOT_CERTS_DROPPED_SHA1 = 8,
	KSP_WOT_CERTS_MAX = 9,
};
uint64_t ksp_wot_stats_get_certs(const struct ksp_wot_stats *stats, unsigned int which);
/* Size of the i-th largest strongly connected component, 0 past the end. */
uint64_t ksp_wot_stats_get_scc_size(const struct ksp_wot_stats *stats, size_t i);
/* Ordered strong-set pairs at distance d (d >= 1; the last bucket, 255,
 * counts every pair at 255 or more). */
#define KSP_WOT_MAX_DISTANCE 255u
uint64_t ksp_wot_stats_get_distance_count(const struct ksp_wot_stats *stats, unsigned int d);
/* Vertices reachable from the strong set (to_ss false) or that reach it. */
uint64_t ksp_wot_stats_get_reachable(const struct ksp_wot_stats *stats, bool to_ss);

/* One key of the graph: its vertex number (>= 0), or -ENOENT when it is
 * not a vertex (unknown, revoked, expired or not yet valid at the time). */
int64_t ksp_wot_stats_find_key(const struct ksp_wot_stats *stats, const char *fpr);
const char *ksp_wot_stats_get_key_fingerprint(const struct ksp_wot_stats *stats, uint32_t key);
/* Distinct signers of the key (in) or keys it signed (out). */
uint32_t ksp_wot_stats_get_key_degree(const struct ksp_wot_stats *stats, uint32_t key, bool in);
/* MSD rank from 0, and the key's distance sum and MSD; -ENOENT when the
 * key is not in the strong set. */
int64_t ksp_wot_stats_get_key_rank(const struct ksp_wot_stats *stats, uint32_t key, uint64_t *ret_distance_sum,
				   double *ret_msd);
/* Edges from the nearest strong-set key to the key (to_ss false), or from
 * the key to the nearest strong-set key; 0 inside; -ENOENT when none. */
int ksp_wot_stats_get_key_ss_distance(const struct ksp_wot_stats *stats, uint32_t key, bool to_ss);

/* Shortest certification paths from one key to another in the graph of
 * @stats (which must outlive the result): at most @max_paths of them
 * (1: one path; at most 1024).  A result with 0 paths means unreachable;
 * -ENOENT when an end is not a vertex. */
struct ksp_wot_paths;
int ksp_wot_paths_new(struct ksp_wot_stats *stats, const char *from_fpr, const char *to_fpr, size_t max_paths,
		      struct ksp_wot_paths **ret);
struct ksp_wot_paths *ksp_wot_paths_free(struct ksp_wot_paths *paths);
size_t ksp_wot_paths_get_count(const struct ksp_wot_paths *paths);
/* Edges per path, -ENOENT when there is none. */
int ksp_wot_paths_get_length(const struct ksp_wot_paths *paths);
/* More shortest paths exist than were kept. */
bool ksp_wot_paths_is_truncated(const struct ksp_wot_paths *paths);
/* Hop @hop of path @path: signer and signee fingerprints (borrowed), the
 * newest certification that makes the edge: its creation time and user ID
 * (raw bytes, hostile, malloc()ed, NUL-terminated; may be NULL).  From
 * the metrics of a scan (no store), the time is 0 and the user ID NULL. */
int ksp_wot_paths_get_hop(const struct ksp_wot_paths *paths, size_t path, size_t hop, const char **ret_signer,
			  const char **ret_signee, int64_t *ret_created, char **ret_uid, size_t *ret_uid_len);

/* ------------------------------------------------------------------ */
/* Verification sheets and fingerprint slips                           */

/* The verification sheet of the frozen list (party name, date, place, list
 * version, digests with room to write the announced ones, then each
 * participant: number, fingerprint, algorithm, creation date, user IDs,
 * with boxes to tick), and fingerprint slips to cut out and hand to others
 * (with an optional QR code of OPENPGP4FPR:<fingerprint>).  Text and HTML
 * come from templates (built in, or the user's; see ksp-party-sheet(1)),
 * PDF is drawn with cairo and pango.  Every value is escaped for its
 * format.  The text sheet of a frozen list, without a template or a "for"
 * participant, is the canonical list text (ksp_party_get_list_text()),
 * byte for byte: its SHA-256 is the announced digest. */
struct ksp_render_opts;

enum ksp_render_kind {
	KSP_RENDER_SHEET = 0, /* verification sheet (needs a frozen list, or KSP_RENDER_DRAFT) */
	KSP_RENDER_SLIPS = 1, /* fingerprint slips: of the "for" key, else one block per participant */
};
enum ksp_render_format {
	KSP_FORMAT_TXT = 0,
	KSP_FORMAT_HTML = 1,
	KSP_FORMAT_PDF = 2,
};
enum ksp_paper {
	KSP_PAPER_A4 = 0,
	KSP_PAPER_LETTER = 1,
};
enum ksp_render_flags {
	KSP_RENDER_QR = 1 << 0,    /* slips: a QR code of OPENPGP4FPR:<fingerprint> */
	KSP_RENDER_DRAFT = 1 << 1, /* sheet of an open list: render it marked DRAFT, without digests */
	KSP_RENDER_STRICT_FONTS = 1 << 2, /* PDF: fail (-EILSEQ) when a character has no glyph in any font */
	KSP_RENDER_COMPACT = 1 << 3, /* PDF slips: two columns, smaller type (18 or more to an A4 page); since LIBKSP_2 */
};
/* Options (defaults: A4, no flags, no template, no "for", a page of slips). */
int ksp_render_opts_new(struct ksp_ctx *ctx, struct ksp_render_opts **ret);
struct ksp_render_opts *ksp_render_opts_free(struct ksp_render_opts *opts);
/* Personalize for one participant: full fingerprint (spaces allowed) or
 * order number ("3", "#3"); NULL clears.  The sheet marks that entry "this
 * is you"; slips are of that key only.  Returns 0 or -EINVAL. */
int ksp_render_opts_set_for(struct ksp_render_opts *opts, const char *fpr_or_number);
/* A template file (read when rendering) or text, instead of the built-in
 * one; txt and html only.  NULL restores the built-in template. */
int ksp_render_opts_set_template(struct ksp_render_opts *opts, const char *path);
int ksp_render_opts_set_template_text(struct ksp_render_opts *opts, const char *text, size_t len);
int ksp_render_opts_set_paper(struct ksp_render_opts *opts, unsigned int paper);
int ksp_render_opts_set_flags(struct ksp_render_opts *opts, unsigned int flags);
/* Slips per key (0: as many as fit one page in PDF, 8 in txt and html). */
int ksp_render_opts_set_count(struct ksp_render_opts *opts, unsigned int count);
/* PDF: @fn is called for each user ID (@number: the participant's list
 * number, @fpr its fingerprint) or party field (@number 0, @fpr NULL)
 * that has characters no installed font draws (pango's unknown glyphs,
 * shown as empty boxes), once per Unicode script: @script is its English
 * name ("Devanagari", "Ethiopic", ...; the ISO 15924 code when unnamed),
 * @missing how many characters of it lack a glyph.  Since: LIBKSP_1. */
int ksp_render_opts_set_glyph_fn(struct ksp_render_opts *opts,
				 void (*fn)(void *data, int number, const char *fpr, const char *script,
					    unsigned int missing),
				 void *data);
/* The built-in template of @kind in @format (txt or html), or NULL. */
const char *ksp_render_builtin_template(unsigned int kind, unsigned int format);
/**
 * ksp_party_render:
 * Renders a sheet or slips (@opts may be NULL) and writes them to @fd;
 * ksp_party_render_file() writes @path atomically (temporary name, then
 * rename).  Nothing is written when rendering fails.
 * Returns: the number of pages for PDF, 0 for txt and html; -EPERM (sheet
 * of an open list without KSP_RENDER_DRAFT), -ENOENT (no such "for"
 * participant), -ENODATA (slips of an empty list), -EINVAL (bad template,
 * with file and line in ksp_get_error()), -ESTALE (the store's keys no
 * longer match the frozen list), -ENOMEM, -EIO, -errno of the output;
 * -ELIBACC (PDF, QR codes: ksp's drawing module, ksp/ksp-render.so beside
 * libksp.so.1, is missing or of another build; the message names it).
 */
int ksp_party_render(struct ksp_party *party, unsigned int kind, unsigned int format,
		     const struct ksp_render_opts *opts, int fd);
int ksp_party_render_file(struct ksp_party *party, unsigned int kind, unsigned int format,
			  const struct ksp_render_opts *opts, const char *path);

/* ------------------------------------------------------------------ */
/* After the party: signing, import of returned signatures, status     */

/* -- signing (the participant) -- */
struct ksp_sign_result;

enum ksp_sign_flags {
	KSP_SIGN_KEEP = 1 << 0,  /* also import the signed keys into the user's GnuPG home */
	KSP_SIGN_FORCE = 1 << 1, /* sign user IDs again that the store says are signed */
	KSP_SIGN_ALL = 1 << 2,   /* every member of the frozen list but the signer */
	/* re-make the signer's MD5/SHA-1/RIPEMD-160 certifications with
	 * SHA-256 (no frozen list needed; with KSP_SIGN_ALL: every key that
	 * holds one) */
	KSP_SIGN_RESIGN_WEAK = 1 << 3,
};

enum ksp_sign_status {
	KSP_SIGN_SIGNED = 0,         /* signed, encrypted to the key, written to the outbox */
	KSP_SIGN_ALREADY = 1,        /* signed before (KSP_SIGN_FORCE to sign again) */
	KSP_SIGN_NO_EMAIL = 2,       /* skipped: no user ID of the key has a usable e-mail address */
	KSP_SIGN_NO_ENCRYPTION = 3,  /* skipped: the key has no usable encryption subkey */
	KSP_SIGN_REFUSED = 4,        /* the key: not on the frozen list, changed, revoked... */
	KSP_SIGN_ABSENT = 5,         /* KSP_SIGN_ALL: the key's owner was absent (ksp_party_set_absent()), skipped */
};

/**
 * ksp_party_sign:
 * For each target (a number on the newest frozen list or a full
 * fingerprint; with KSP_SIGN_ALL and @n_targets 0, the whole list but the
 * signer) re-checks the key in the store against the frozen list, then
 * certifies each of its user IDs on its own with the secret key of
 * @signer_fpr from the user's GnuPG home (ksp_set_gnupg_home()), at
 * certification @level (0-3, signature type 0x10 + level, exportable), in
 * a private temporary GnuPG home whose private-keys-v1.d is a symbolic
 * link to the user's: the user's keyring is never written to (unless
 * KSP_SIGN_KEEP).  For each user ID, a copy of the key holding only that
 * user ID and the new certification is encrypted to the key and written to
 * @outbox (created, mode 0700) as FPR-N-ADDRESS.eml (RFC 5322, PGP/MIME
 * RFC 3156, To: the user ID's address) and FPR-N-ADDRESS.asc (the bare
 * encrypted message).  A user ID without an address (lib/addr.c: RFC 5322,
 * printable ASCII) is certified too and carried, with its certification,
 * in the message to each of the key's addressed user IDs; a key without an
 * address, and one without a usable encryption subkey, are reported and
 * skipped, never sent in clear (unless ksp_sign_opts_add_unencrypted()).
 * The store's table "signed" records each.  @cb (may be NULL) is called
 * once per user ID (once per key when the key is refused), as the run goes.
 * All or nothing: the rows are written in one transaction (the store stays
 * locked for writing while gpg signs), the outbox files under temporary
 * names, put into place just before the commit; on any failure the store
 * and the outbox are left as they were (files replaced under
 * KSP_SIGN_FORCE are restored), even if @cb reported user IDs as signed.
 * With KSP_SIGN_RESIGN_WEAK (a campaign to replace weak certifications,
 * tracked in the store like a party): the targets are full fingerprints of
 * keys on which the signer made a verified MD5/SHA-1/RIPEMD-160
 * certification that is neither expired, revoked nor already joined by a
 * modern one (KSP_SIGN_ALL: every such key); only those user IDs are
 * certified again, with SHA-256 (the run fails, writing nothing, if gpg
 * makes anything weaker), and no frozen list is needed.
 * Returns: the number of user IDs signed (>= 0); -EINVAL, -ENOKEY (no
 * such key or secret key in the user's home), -ENODATA (no frozen list),
 * -ENOMEM, -EIO, -errno.
 */
int ksp_party_sign(struct ksp_party *party, const char *signer_fpr,
		   const char *const *targets, size_t n_targets, int level, const char *outbox,
		   unsigned int flags,
		   void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data);

/**
 * struct ksp_sign_opts: what one ksp_party_sign_opts() run certifies with.
 * Defaults: level 0, no expiry, no policy URL, the list notation on, no
 * key mailed unencrypted, the built-in English mail, no Bcc.
 */
struct ksp_sign_opts;
int ksp_sign_opts_new(struct ksp_ctx *ctx, struct ksp_sign_opts **ret);
struct ksp_sign_opts *ksp_sign_opts_free(struct ksp_sign_opts *opts);
/* The certification level (0-3) of the run (@fpr NULL) or of one key
 * (a full fingerprint): signature type 0x10 + level. */
int ksp_sign_opts_set_level(struct ksp_sign_opts *opts, const char *fpr, int level);
/* Each certification expires @seconds after it is made (0: never). */
int ksp_sign_opts_set_expires(struct ksp_sign_opts *opts, int64_t seconds);
/* A policy URL subpacket on each certification (NULL: none). */
int ksp_sign_opts_set_policy_url(struct ksp_sign_opts *opts, const char *url);
/* The notation KSP_LIST_NOTATION=<SHA-256 of the frozen list file> on
 * each certification: anyone can later see which checked list it came
 * from (gpg --list-sigs --list-options show-notations). */
#define KSP_LIST_NOTATION "ksp-list-sha256@ksp.invalid"
int ksp_sign_opts_set_list_notation(struct ksp_sign_opts *opts, bool on);
/* Key @fpr has no encryption subkey, and the user chose to mail its
 * certifications unencrypted anyway (anyone reading that mailbox, or the
 * mail on its way, can then publish them). */
int ksp_sign_opts_add_unencrypted(struct ksp_sign_opts *opts, const char *fpr);
/* The mail template (@text, @len bytes; named @source in errors), NULL:
 * the built-in English one.  Syntax: ksp-party(1), MAIL TEMPLATES. */
int ksp_sign_opts_set_template(struct ksp_sign_opts *opts, const char *source, const char *text, size_t len);
/* The mail template: "en" or "de" (built in), or a file (at most 64 KiB). */
int ksp_sign_opts_set_template_file(struct ksp_sign_opts *opts, const char *name);
/* The text of a built-in mail template: "sign", "sign.de", "remind",
 * "remind.de"; NULL for another name. */
const char *ksp_mail_template_builtin(const char *name);
/* A Bcc: to the signer's own address on each message. */
int ksp_sign_opts_set_bcc_self(struct ksp_sign_opts *opts, bool on);
/* ksp_party_sign() with @opts instead of one level. */
int ksp_party_sign_opts(struct ksp_party *party, const char *signer_fpr,
			const char *const *targets, size_t n_targets, const struct ksp_sign_opts *opts,
			const char *outbox, unsigned int flags,
			void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data);
int ksp_sign_result_get_status(const struct ksp_sign_result *res);
int ksp_sign_result_get_number(const struct ksp_sign_result *res);
const char *ksp_sign_result_get_fingerprint(const struct ksp_sign_result *res);
/* Raw user ID bytes (hostile; escape before output), NULL for a whole key. */
const char *ksp_sign_result_get_uid(const struct ksp_sign_result *res, size_t *len);
/* The user ID's address (RFC 5322 addr-spec, printable ASCII, a local part
 * quoted when it must be), or NULL: a user ID without one (carried in the
 * messages to the key's other user IDs when KSP_SIGN_SIGNED). */
const char *ksp_sign_result_get_email(const struct ksp_sign_result *res);
/* The .eml and .asc files written (KSP_SIGN_SIGNED, KSP_SIGN_ALREADY), or NULL. */
const char *ksp_sign_result_get_message_file(const struct ksp_sign_result *res);
const char *ksp_sign_result_get_asc_file(const struct ksp_sign_result *res);
/* When it was signed (KSP_SIGN_SIGNED, KSP_SIGN_ALREADY), else 0. */
int64_t ksp_sign_result_get_time(const struct ksp_sign_result *res);
/* One line, plain ASCII (no user ID bytes): why it was skipped or refused. */
const char *ksp_sign_result_get_message(const struct ksp_sign_result *res);

/* -- the delivery ledger: each message 'party sign' wrote, and its fate -- */
struct ksp_delivery;

enum ksp_delivery_state {
	KSP_DELIVERY_WRITTEN = 0, /* in the outbox, not handed to a mailer */
	KSP_DELIVERY_SENT = 1,    /* a mailer took it (exit status 0) */
	KSP_DELIVERY_FAILED = 2,  /* the mailer failed or could not run: to be sent again */
	KSP_DELIVERY_UNKNOWN = 3, /* signed before the ledger existed: never sent again by itself */
};

enum ksp_send_flags {
	KSP_SEND_DRY_RUN = 1 << 0,     /* send nothing: report what is due */
	KSP_SEND_ALL_RESULTS = 1 << 1, /* call @cb for every message, not only those due */
};

/**
 * ksp_party_send:
 * Hands each message of the ledger that is written or failed (of
 * @signer_fpr, or of every signer when NULL) to @mailer, run with
 * /bin/sh -c and the message on its standard input (its standard output
 * goes to standard error), and records the outcome (sent when it exits 0,
 * else failed, with the exit status) in its own transaction as soon as it
 * has exited.  Signs nothing.  @cb (may be NULL) is called for each
 * message handed over (every message with KSP_SEND_ALL_RESULTS).
 * Returns: the number of messages still written or failed (0: everything
 * deliverable was delivered); -EINVAL, -ENOMEM, -errno from the store.
 */
int ksp_party_send(struct ksp_party *party, const char *signer_fpr, const char *mailer, unsigned int flags,
		   void (*cb)(void *cb_data, const struct ksp_delivery *d), void *cb_data);
/* How ksp_party_send_opts() sends (since LIBKSP_3): a mailer command
 * (ksp_party_send()'s @mailer), or an SMTP server through libcurl:
 * @url smtp://[USER@]HOST[:PORT] (STARTTLS, required unless HOST is this
 * machine) or smtps://, @password for AUTH (NULL: none; never in the URL).
 * ksp_send_opts_add_again(): send this message again whatever the ledger
 * says (a list number, a full fingerprint, or a message file), and only
 * the messages so named. */
struct ksp_send_opts;
int ksp_send_opts_new(struct ksp_ctx *ctx, struct ksp_send_opts **ret);
void ksp_send_opts_free(struct ksp_send_opts *opts);
int ksp_send_opts_set_mailer(struct ksp_send_opts *opts, const char *mailer);
int ksp_send_opts_set_smtp(struct ksp_send_opts *opts, const char *url, const char *password);
int ksp_send_opts_add_again(struct ksp_send_opts *opts, const char *what);
/* ksp_party_send() with @opts: the SMTP server's refusal of a recipient
 * makes that message failed, with the server's reply as its message;
 * accepted, the message says "accepted by HOST".  -ENOENT: an --again
 * that names no message (nothing sent). */
int ksp_party_send_opts(struct ksp_party *party, const char *signer_fpr, const struct ksp_send_opts *opts,
			unsigned int flags, void (*cb)(void *cb_data, const struct ksp_delivery *d), void *cb_data);
int ksp_delivery_get_state(const struct ksp_delivery *d);
/* "written", "sent", "failed", "unknown"; NULL for another value. */
const char *ksp_delivery_state_name(int state);
const char *ksp_delivery_get_signer(const struct ksp_delivery *d);
const char *ksp_delivery_get_fingerprint(const struct ksp_delivery *d);
/* The key's number on the current list, 0 if it is not on it. */
int ksp_delivery_get_number(const struct ksp_delivery *d);
/* Raw user ID bytes (hostile; escape before output). */
const char *ksp_delivery_get_uid(const struct ksp_delivery *d, size_t *len);
/* The .eml file as 'party sign' named it (absolute since LIBKSP_3;
 * relative to where it ran, or to the store's folder, before). */
const char *ksp_delivery_get_file(const struct ksp_delivery *d);
int ksp_delivery_get_attempts(const struct ksp_delivery *d);
/* The mailer's exit status at the last attempt (128+N: signal N; -1: not run). */
int ksp_delivery_get_mailer_status(const struct ksp_delivery *d);
/* One line, plain ASCII (no user ID bytes). */
const char *ksp_delivery_get_message(const struct ksp_delivery *d);

/* -- importing returned signatures (participant or organizer) -- */
struct ksp_import_event;

enum ksp_import_kind {
	KSP_IMPORT_NEW = 0,       /* a verified certification, stored */
	KSP_IMPORT_DUPLICATE = 1, /* already in the store */
	KSP_IMPORT_FLAGGED = 2,   /* stored but not counted: issuer outside the party or unknown, or unverifiable */
	KSP_IMPORT_BAD = 3,       /* the signature does not verify: not stored */
	KSP_IMPORT_SKIPPED = 4,   /* a key, user ID, message or block that was not imported */
};

/**
 * ksp_party_import:
 * Finds OpenPGP data in @data: armored or binary keys, encrypted messages
 * (decrypted with gpgme in the user's GnuPG home, ksp_set_gnupg_home()),
 * RFC 5322 messages (.eml) and mbox files (PGP/MIME parts, attachments and
 * inline armored blocks; base64 and quoted-printable).  Of the keys found,
 * only certifications (0x10-0x13, and revocations 0x30) on user IDs of the
 * party's keys are considered; each is verified cryptographically against
 * the signer's key from the store; good ones are stored, bad ones
 * reported and dropped, duplicates ignored, those by keys outside the
 * party (or not verifiable) stored but flagged.  One transaction for
 * @data: what was imported before stays.  @cb (may be NULL) is called for
 * every certification and every part skipped.
 * Returns: the number of new verified certifications (>= 0); -EBADMSG
 * (fatal input error), -ENOMEM, -EIO, -EBUSY.
 */
int ksp_party_import(struct ksp_party *party, const void *data, size_t len, const char *source,
		     unsigned int flags,
		     void (*cb)(void *cb_data, const struct ksp_import_event *ev), void *cb_data);
int ksp_import_event_get_kind(const struct ksp_import_event *ev);
/* Where in the input: "FILE", "FILE: message 3", "FILE: message 3: part 2". */
const char *ksp_import_event_get_source(const struct ksp_import_event *ev);
/* Signer and target fingerprints (NULL when unknown), list numbers (0: not on the list). */
const char *ksp_import_event_get_signer(const struct ksp_import_event *ev);
int ksp_import_event_get_signer_number(const struct ksp_import_event *ev);
const char *ksp_import_event_get_target(const struct ksp_import_event *ev);
int ksp_import_event_get_target_number(const struct ksp_import_event *ev);
/* Raw user ID bytes (hostile), NULL if none. */
const char *ksp_import_event_get_uid(const struct ksp_import_event *ev, size_t *len);
int ksp_import_event_get_sig_type(const struct ksp_import_event *ev);
int64_t ksp_import_event_get_created(const struct ksp_import_event *ev);
/* One line, plain ASCII (no user ID bytes). */
const char *ksp_import_event_get_message(const struct ksp_import_event *ev);

/* -- who signed whom -- */
struct ksp_party_status;

enum ksp_cert_state {
	KSP_CERT_MISSING = 0,
	KSP_CERT_DONE = 1,    /* a verified, exportable, unrevoked, unexpired certification */
	KSP_CERT_SENT = 2,    /* signed with 'party sign' from this store, not yet imported back */
	KSP_CERT_SELF = 3,    /* own key */
	KSP_CERT_PARTIAL = 4, /* pairs only: some of the user IDs */
	KSP_CERT_UNSENT = 5,  /* signed with 'party sign' from this store, not handed to a mailer yet (or it failed) */
	KSP_CERT_UNDELIVERABLE = 6, /* missing, but the key has no encryption subkey: cannot be sent, not counted */
	KSP_CERT_ABSENT = 7,  /* missing, and the signer or the key's owner was absent (ksp_party_set_absent()): not counted */
};

/* The certification state of the current participants' user IDs that
 * have an e-mail address (those 'party sign' can deliver), at @at (0 = now). */
int ksp_party_status_new(struct ksp_party *party, int64_t at, struct ksp_party_status **ret);
struct ksp_party_status *ksp_party_status_free(struct ksp_party_status *st);
size_t ksp_party_status_get_count(const struct ksp_party_status *st);
int ksp_party_status_get_number(const struct ksp_party_status *st, size_t i);
const char *ksp_party_status_get_fingerprint(const struct ksp_party_status *st, size_t i);
size_t ksp_party_status_get_uid_count(const struct ksp_party_status *st, size_t i);
const char *ksp_party_status_get_uid(const struct ksp_party_status *st, size_t i, size_t u,
				     size_t *len);
/* State of participant @signer's certification on user ID @u of @target. */
int ksp_party_status_get_cert(const struct ksp_party_status *st, size_t signer, size_t target,
			      size_t u);
/* Over all user IDs of @target: DONE, PARTIAL, SENT (all sent or done), UNSENT (all signed,
 * some not sent), MISSING, SELF. */
int ksp_party_status_get_pair(const struct ksp_party_status *st, size_t signer, size_t target);
/* Certifications (signer, user ID) done, and wanted (owner excluded; not
 * those that cannot be delivered, unless done). */
uint64_t ksp_party_status_get_done(const struct ksp_party_status *st);
uint64_t ksp_party_status_get_total(const struct ksp_party_status *st);
/* false when participant @i's key had no usable encryption subkey when it
 * was added: its missing certifications are KSP_CERT_UNDELIVERABLE and out
 * of the totals and reminders. */
bool ksp_party_status_is_deliverable(const struct ksp_party_status *st, size_t i);

/* -- attendance (the party day) -- */
/* Records participant @fpr_or_number (a number on the newest frozen list,
 * "#3", or a full fingerprint) as absent (not at the party) or, @absent
 * false, present again.  The frozen list and its digests are not touched;
 * absent participants are out of the status totals, the reminders and
 * KSP_SIGN_ALL.  *@ret_number (may be NULL) gets the list number.
 * Returns 1 (changed), 0 (it was so already); -ENODATA (never frozen),
 * -ENOENT (not on the frozen list), -EINVAL, -errno.  Since: LIBKSP_2. */
int ksp_party_set_absent(struct ksp_party *party, const char *fpr_or_number, bool absent, int *ret_number);
/* 1 when the key @fpr is recorded absent, 0 if not, <0 on error. */
int ksp_party_is_absent(struct ksp_party *party, const char *fpr);
/* true when participant @i was absent: the certifications from and to it
 * that are not done are KSP_CERT_ABSENT, out of the totals and reminders. */
bool ksp_party_status_is_absent(const struct ksp_party_status *st, size_t i);
/* true when user ID @u of participant @i has an e-mail address.  The user
 * IDs with one come first; those without are certified and sent in the
 * messages to the key's addresses (a key with none: undeliverable).
 * Since: LIBKSP_3 (before, user IDs without an address were left out). */
bool ksp_party_status_uid_has_address(const struct ksp_party_status *st, size_t i, size_t u);
/* 1 when attendance was taken (someone recorded absent or present, 'party
 * absent --none', or an attendance statement read), 0 if not: then
 * KSP_SIGN_ALL would sign no-shows too.  Since: LIBKSP_3. */
int ksp_party_attendance_taken(struct ksp_party *party);
/* Nobody on the frozen list was absent (@why: a word for the party's
 * event log, NULL "nobody absent"): clears the absent records and marks
 * attendance taken.  Returns how many were absent before, or <0. */
int ksp_party_set_none_absent(struct ksp_party *party, const char *why);
/* The attendance statement of the newest list, to publish beside the
 * keyring: its version, SHA-256 and who was absent ("Absent: N FPR"
 * lines, or "Absent: none"); malloc'ed into *@ret.  Returns the number
 * absent; -ENODATA when no attendance was taken or the list never frozen. */
int ksp_party_attendance_text(struct ksp_party *party, char **ret, size_t *ret_len);
/* Reads an attendance statement (ksp_party_attendance_text()) into this
 * store: it must name a list version this store holds, by its SHA-256;
 * those it names are absent, the others present.  All or nothing.
 * Returns the number absent, -EBADMSG (not a statement, another list). */
int ksp_party_read_attendance(struct ksp_party *party, const void *data, size_t len, const char *source);

/* -- collecting keys at scale: a registration CSV -- */
struct ksp_csv_row;
enum ksp_csv_status {
	KSP_CSV_FOUND = 0,     /* the row's key is in the key files: checked as 'party add' does */
	KSP_CSV_MISSING = 1,   /* no key with the row's fingerprint in the files (or no fingerprint) */
	KSP_CSV_BAD = 2,       /* the row cannot be read (not a full fingerprint, bad quoting) */
	KSP_CSV_DUPLICATE = 3, /* the same fingerprint as an earlier row: counted once */
	KSP_CSV_MISMATCH = 4,  /* the key found, but none of its user IDs has the row's address or name: a warning */
};
/**
 * ksp_party_add_csv:
 * Reads a registration CSV (@csv: rows of name, e-mail, fingerprint; a
 * header row naming the columns "name", "email", "fingerprint" may put
 * them in any order; '#' lines and blank lines are skipped), finds each
 * row's key in the @n_key_files buffers @key_data (keyrings or key files,
 * armored or binary; only the keys rows name are taken), then checks and
 * adds them as ksp_party_add() does (@flags, @cb), in one transaction.
 * @row_cb (may be NULL) is called once per row, with the person to ask
 * when its key is missing.  Returns the number of keys accepted; -ENODATA
 * (no row's key found), -EPERM (closed), -ENOMEM, and ksp_party_add()'s
 * errors.  Since: LIBKSP_2. */
int ksp_party_add_csv(struct ksp_party *party, const void *csv, size_t csv_len, const char *csv_source,
		      const void *const *key_data, const size_t *key_len, const char *const *key_source,
		      size_t n_key_files, unsigned int flags,
		      void (*cb)(void *cb_data, const struct ksp_key_check *check),
		      void (*row_cb)(void *cb_data, const struct ksp_csv_row *row), void *cb_data);
size_t ksp_csv_row_get_line(const struct ksp_csv_row *row);
int ksp_csv_row_get_status(const struct ksp_csv_row *row);
/* The row's fields as given (hostile: escape before output), or NULL. */
const char *ksp_csv_row_get_name(const struct ksp_csv_row *row);
const char *ksp_csv_row_get_email(const struct ksp_csv_row *row);
/* The normalized fingerprint, NULL when the row has none. */
const char *ksp_csv_row_get_fingerprint(const struct ksp_csv_row *row);
/* One line naming the CSV, the line, and whom to ask (may hold the
 * row's name and address: escape before output). */
const char *ksp_csv_row_get_message(const struct ksp_csv_row *row);
/* The party's repair plan: the "# certify: SIGNER certifies TARGET" lines
 * of the CSVs 'ksp health --plan-csv' writes, kept by ksp_party_add_csv()
 * (not with KSP_ADD_DRY_RUN); the sheet marks beside each signer the keys
 * they must certify.  Returns how many certifications it holds, or -errno.
 * Since: LIBKSP_3. */
int ksp_party_get_repair_count(struct ksp_party *party);

/* -- the paper round trip: a checklist to tick, read back -- */
/* The checklist of frozen list version @version (0 = newest), made from
 * the announced list text: the layout of signing-party's gpgparticipants
 * (a line per key with its list number and "[ ] Fingerprint OK  [ ] ID OK",
 * a "[ ]" per user ID, the SHA256 and RIPEMD160 checksum lines ending in
 * "[ ]"), which caff reads too.  With @mark_for (a list number or a full
 * fingerprint; NULL: none), marked gpgsigs-like: "(S)" under each user ID
 * that participant certified, and under their own user IDs who certified
 * them (the store's verified certifications, as 'party status' counts).
 * *@ret is malloc'ed text.  Returns 0; -ENOENT (no such version or
 * participant), -EINVAL, -ENOMEM, -errno.  Since: LIBKSP_2. */
int ksp_party_checklist(struct ksp_party *party, int version, const char *mark_for, char **ret, size_t *ret_len);

struct ksp_ticked;
enum ksp_ticked_flags {
	KSP_TICKED_NO_CHECKSUMS = 1 << 0, /* attendance: the checksum boxes need not be ticked */
};
enum ksp_ticked_boxes {
	KSP_TICKED_FINGERPRINT = 1 << 0, /* "[x] Fingerprint OK" */
	KSP_TICKED_ID = 1 << 1,          /* "[x] ID OK" */
	KSP_TICKED_UID = 1 << 2,         /* at least one user ID ticked */
};
/* Reads a ticked checklist (or a gpgparticipants sheet of the same list)
 * back.  Unless KSP_TICKED_NO_CHECKSUMS, every checksum box must be ticked
 * [x], a SHA256 checksum must be there, and each checksum filled in must
 * be that of a frozen list version; each key's number and fingerprint must
 * be that version's.  Returns 0; -EPERM (a box not ticked, a checksum not
 * filled in), -EBADMSG (a checksum or a key not the list's, no key line),
 * -ENODATA (never frozen), -ENOMEM; the error names @source and what to
 * do.  Since: LIBKSP_2. */
int ksp_party_read_ticked(struct ksp_party *party, const void *data, size_t len, const char *source,
			  unsigned int flags, struct ksp_ticked **ret);
struct ksp_ticked *ksp_ticked_free(struct ksp_ticked *t);
/* The list version the sheet is of. */
int ksp_ticked_get_version(const struct ksp_ticked *t);
size_t ksp_ticked_get_count(const struct ksp_ticked *t);
int ksp_ticked_get_number(const struct ksp_ticked *t, size_t i);
const char *ksp_ticked_get_fingerprint(const struct ksp_ticked *t, size_t i);
/* KSP_TICKED_ bits of key @i. */
unsigned int ksp_ticked_get_boxes(const struct ksp_ticked *t, size_t i);
/* ksp_party_sign_opts() of exactly the keys whose two boxes are ticked on
 * @t, and of each only the user IDs ticked (none ticked: all of them, as
 * caff does); @opts NULL: the defaults (ksp_sign_opts_new()).  -ENODATA
 * when no key is ticked. */
int ksp_party_sign_ticked(struct ksp_party *party, const char *signer_fpr, const struct ksp_ticked *t,
			  const struct ksp_sign_opts *opts, const char *outbox, unsigned int flags,
			  void (*cb)(void *cb_data, const struct ksp_sign_result *result), void *cb_data);
/* -- reminders (ksp party remind) -- */
struct ksp_reminder;

enum ksp_remind_status {
	KSP_REMIND_WRITTEN = 0,        /* written to the outbox (no mailer given) */
	KSP_REMIND_SENT = 1,           /* and handed to the mailer */
	KSP_REMIND_FAILED = 2,         /* the mailer failed */
	KSP_REMIND_NO_ADDRESS = 3,     /* not reminded: no user ID with an address */
	KSP_REMIND_NO_ENCRYPTION = 4,  /* not reminded: no usable encryption subkey */
};

/**
 * ksp_party_remind:
 * For each participant who has not certified every (deliverable) user ID
 * of the others (ksp_party_status: KSP_CERT_MISSING), one message to the
 * address of their first user ID, listing those keys (numbers,
 * fingerprints, user IDs), from the mail template @template_name ("en",
 * "de" or a file; NULL: "en"), From: @sender_fpr's first address (a
 * participant; NULL: no From:), encrypted to the participant's key, written
 * to @outbox (NULL: ./ksp-reminders) as remind-FPR.eml and, when @mailer is
 * not NULL, handed to it (sh -c MAILER, the message on its standard input).
 * @cb is called once per participant reminded or not remindable.  Returns
 * the number of messages the mailer failed on (>= 0), or -errno.
 */
int ksp_party_remind(struct ksp_party *party, const char *sender_fpr, const char *template_name,
		     const char *outbox, const char *mailer,
		     void (*cb)(void *cb_data, const struct ksp_reminder *r), void *cb_data);
int ksp_reminder_get_status(const struct ksp_reminder *r);
int ksp_reminder_get_number(const struct ksp_reminder *r);
const char *ksp_reminder_get_fingerprint(const struct ksp_reminder *r);
/* The address written to, NULL when none. */
const char *ksp_reminder_get_email(const struct ksp_reminder *r);
/* The .eml file, NULL when none was written. */
const char *ksp_reminder_get_file(const struct ksp_reminder *r);
/* How many user IDs of others the participant has not certified. */
size_t ksp_reminder_get_missing(const struct ksp_reminder *r);
/* One line, plain ASCII. */
const char *ksp_reminder_get_message(const struct ksp_reminder *r);

/* -- publishing the party keyring -- */
enum ksp_export_flags {
	KSP_EXPORT_SIGNED_ONLY = 1 << 0, /* only certifications by participants; keys without one left out */
	KSP_EXPORT_BINARY = 1 << 1,      /* binary, not ASCII-armored */
};
/* The participants' keys as added, with every verified certification of
 * the store merged in.  *ret is malloc'ed.  Returns the number of keys
 * (>= 0) or -ENOMEM, -EIO. */
int ksp_party_export(struct ksp_party *party, unsigned int flags, void **ret, size_t *ret_len);

/* ------------------------------------------------------------------ */
/* Trust of a key with respect to a core                               */

/* A trust policy: the core keys and the rule (docs/design.md, "Definitions").
 * Defaults: max depth 5, min paths 1, key-level, SHA-1 counts, any key
 * size, any certification age. */
struct ksp_trust_policy;
int ksp_trust_policy_new(struct ksp_ctx *ctx, struct ksp_trust_policy **ret);
struct ksp_trust_policy *ksp_trust_policy_free(struct ksp_trust_policy *policy);
/* A core key by full fingerprint; -EINVAL for anything else. */
int ksp_trust_policy_add_core(struct ksp_trust_policy *policy, const char *fpr);
/* Core keys from a file: one fingerprint per line, '#' comments, and
 * "FPR:N:" lines of gpg --export-ownertrust. */
int ksp_trust_policy_add_core_file(struct ksp_trust_policy *policy, const char *path);
size_t ksp_trust_policy_get_core_count(const struct ksp_trust_policy *policy);
/* The store's party participants are core keys too. */
void ksp_trust_policy_set_core_party(struct ksp_trust_policy *policy, bool on);
/* Paths of at most @depth certifications (1-1000). */
int ksp_trust_policy_set_max_depth(struct ksp_trust_policy *policy, int depth);
int ksp_trust_policy_get_max_depth(const struct ksp_trust_policy *policy);
/* At least @paths vertex-disjoint paths (1-64). */
int ksp_trust_policy_set_min_paths(struct ksp_trust_policy *policy, int paths);
int ksp_trust_policy_get_min_paths(const struct ksp_trust_policy *policy);
/* The last hop of every path certifies the same user ID of the target
 * (Arch Linux's rule), instead of any user ID. */
void ksp_trust_policy_set_per_uid(struct ksp_trust_policy *policy, bool on);
/* The hash rules (ksp-trust(1), "HASH RULES"), for third-party
 * certifications; the same in both trust models.  MD5 certifications
 * count only when allowed (default: not).  SHA-1: */
enum ksp_sha1_rule {
	KSP_SHA1_YES = 0,         /* SHA-1 and RIPEMD-160 certifications count */
	KSP_SHA1_BEFORE_2019 = 1, /* SHA-1 ones made after 2019-01-19 do not (gpg 2.2) */
	KSP_SHA1_NO = 2,          /* neither SHA-1 nor RIPEMD-160 ones count */
};
/* Certifications made after this time (2019-01-19 00:00:00 UTC) with
 * SHA-1 do not count under KSP_SHA1_BEFORE_2019. */
#define KSP_SHA1_CUTOFF 1547856000
/* The SHA-1 rule (default KSP_SHA1_BEFORE_2019, gpg 2.2's; KSP_SHA1_YES
 * lets whoever prepares a key being signed forge SHA-1 certifications
 * made after 2019-01-19 by chosen-prefix collisions); -EINVAL for
 * another value. */
int ksp_trust_policy_set_sha1_rule(struct ksp_trust_policy *policy, int rule);
/* The policy's SHA-1 rule (enum ksp_sha1_rule).  Since: 3 */
int ksp_trust_policy_get_sha1_rule(const struct ksp_trust_policy *policy);
/* Whether MD5 certifications count (default no). */
void ksp_trust_policy_set_md5(struct ksp_trust_policy *policy, bool counts);
/* counts: KSP_SHA1_YES; !counts: KSP_SHA1_NO (and MD5 not allowed). */
void ksp_trust_policy_set_sha1(struct ksp_trust_policy *policy, bool counts);
/* RSA, DSA and ElGamal signer keys below @bits do not count (0: any). */
void ksp_trust_policy_set_min_bits(struct ksp_trust_policy *policy, unsigned int bits);
/* Certifications older than @seconds at the reference time do not count. */
void ksp_trust_policy_set_max_age(struct ksp_trust_policy *policy, int64_t seconds);
/* Which verdict a signature's verifier (ksp-gpg) reports for an old
 * signature: the signer's trust now (false, the default) or when it signed
 * (true).  Both are computed; this chooses the one that counts.  Since: 2 */
void ksp_trust_policy_set_at_signature(struct ksp_trust_policy *policy, bool on);
bool ksp_trust_policy_get_at_signature(const struct ksp_trust_policy *policy);
/* Which model ksp_trust_query() asks (a policy file's "model"; 'ksp
 * trust', 'ksp verify', ksp-gpg): the paths model (ksp_trust_check(), the
 * default), GnuPG's (ksp_trust_gnupg_*, with the core keys as ultimately
 * trusted roots: ksp_trust_gnupg_set_policy()) or Sequoia's
 * (ksp_trust_sequoia_*, with the core keys as fully trusted roots:
 * ksp_trust_sequoia_set_policy()).  -EINVAL for another value. */
enum ksp_trust_model {
	KSP_TRUST_MODEL_PATHS = 0,
	KSP_TRUST_MODEL_GNUPG = 1,   /* Since: 3 */
	KSP_TRUST_MODEL_SEQUOIA = 2,
};
int ksp_trust_policy_set_model(struct ksp_trust_policy *policy, int model);
int ksp_trust_policy_get_model(const struct ksp_trust_policy *policy);
/* A model's name ("paths", "gnupg", "sequoia"; NULL for another value),
 * and the model of a name (-EINVAL for another).  Since: 3 */
const char *ksp_trust_model_name(int model);
int ksp_trust_model_from_name(const char *name);
/* A model's own setting, by its key in a policy file: GnuPG's ownertrust
 * (a gpg --export-ownertrust file, read now: errors name FILE:LINE),
 * marginals_needed, completes_needed, max_cert_depth, min_cert_level;
 * Sequoia's partial_core (FPR:AMOUNT, repeatable).  Settings of every
 * model are kept; the policy's model uses its own.  Returns 0, -ENOENT
 * when no model has @key, -EINVAL for a bad value (with a message).
 * ksp_trust_policy_get_option(): a number setting (for ownertrust and
 * partial_core: how many are given); -ENOENT for no such key.  Since: 3 */
int ksp_trust_policy_set_option(struct ksp_trust_policy *policy, const char *key, const char *value);
int ksp_trust_policy_get_option(const struct ksp_trust_policy *policy, const char *key);
/* 0 when the policy's model answers the what-if questions of 'ksp
 * health' and 'ksp publish' (the paths model); else -EOPNOTSUPP and a
 * message naming the model and @what.  Since: 3 */
int ksp_trust_policy_check_whatif(const struct ksp_trust_policy *policy, const char *what);
/* The Sequoia model's target amount (1-7680, default 120) and mode. */
int ksp_trust_policy_set_trust_amount(struct ksp_trust_policy *policy, int amount);
int ksp_trust_policy_get_trust_amount(const struct ksp_trust_policy *policy);
void ksp_trust_policy_set_certification_network(struct ksp_trust_policy *policy, bool on);
bool ksp_trust_policy_get_certification_network(const struct ksp_trust_policy *policy);
/* Reads a policy file: "key = value" lines, '#' comments; keys: core
 * (repeatable), core_file, core_party, max_depth, min_paths, per_uid, sha1,
 * min_key_bits, max_cert_age (90d, 2y, 12w, 36h or seconds), trust_at (now
 * or signature), model (paths, gnupg or sequoia), trust_amount,
 * certification_network, and the models' own keys
 * (ksp_trust_policy_set_option(); a relative ownertrust file is read
 * beside the policy).  Errors name FILE:LINE. */
int ksp_trust_policy_load(struct ksp_trust_policy *policy, const char *path);

enum ksp_trust_reason {
	KSP_TRUST_TRUSTED = 0,
	KSP_TRUST_NO_PATH = 1,         /* no path of at most the depth */
	KSP_TRUST_TOO_FEW_PATHS = 2,   /* some, fewer than needed */
	KSP_TRUST_TARGET_UNKNOWN = 3,  /* not in the store */
	KSP_TRUST_TARGET_REVOKED = 4,
	KSP_TRUST_TARGET_EXPIRED = 5,
	KSP_TRUST_TARGET_INVALID = 6,  /* not yet valid, or too weak for the policy */
	KSP_TRUST_NO_CORE = 7,         /* no core key is in the store and valid */
	KSP_TRUST_UNDECIDED = 8,       /* the search ran out of steps: not trusted */
};

/* Evaluates @target_fpr at time @at.  Returns 0 and a result (trusted or
 * not, with the reason and the paths), or a negative errno for a failure
 * (bad fingerprint, no core key given, store error). */
struct ksp_trust_result;
int ksp_trust_check(struct ksp_store *store, const struct ksp_trust_policy *policy, const char *target_fpr,
		    int64_t at, struct ksp_trust_result **ret);
/* The binding question: is @target_fpr trusted for the user ID @uid
 * (@uid_len bytes, exactly) or, with @uid NULL, for its user ID(s) with the
 * e-mail address @email (ASCII letters in either case)?  The last
 * certification of every path must then be on that user ID (on one of
 * them: the best), as with ksp_trust_policy_set_per_uid().  A missing or
 * revoked user ID gives a "not trusted" result (target unknown / revoked). */
int ksp_trust_check_binding(struct ksp_store *store, const struct ksp_trust_policy *policy, const char *target_fpr,
			    const void *uid, size_t uid_len, const char *email, int64_t at,
			    struct ksp_trust_result **ret);
/* The keys of the store that claim a user ID: exactly @uid (@uid_len
 * bytes), or, with @uid NULL, one with the address @email.  Sets *fprs to
 * *n fingerprints in order (free() it; NULL when none). */
int ksp_trust_find_binding(struct ksp_store *store, const void *uid, size_t uid_len, const char *email,
			   char (**fprs)[65], size_t *n);
struct ksp_trust_result *ksp_trust_result_free(struct ksp_trust_result *result);
bool ksp_trust_result_is_trusted(const struct ksp_trust_result *result);
int ksp_trust_result_get_reason(const struct ksp_trust_result *result);
/* One line: the verdict and why (no user ID bytes in it). */
const char *ksp_trust_result_get_message(const struct ksp_trust_result *result);
/* Disjoint paths found (the best set when not trusted). */
int ksp_trust_result_get_paths_found(const struct ksp_trust_result *result);
size_t ksp_trust_result_get_path_count(const struct ksp_trust_result *result);
size_t ksp_trust_result_get_path_length(const struct ksp_trust_result *result, size_t path);
/* Hop @hop of path @path: signer and signee fingerprints, the newest
 * certification behind it: its date and user ID (raw bytes, hostile;
 * borrowed, NUL-terminated). */
int ksp_trust_result_get_hop(const struct ksp_trust_result *result, size_t path, size_t hop, const char **signer,
			     const char **signee, int64_t *created, const char **uid, size_t *uid_len);
/* trust_at = signature: does a revocation known now (key or user ID or
 * certification; hard or soft; whatever its date) touch @target or a key,
 * user ID or certification on the paths of @result (a verdict at the
 * signature's time)?  1 and @why (one line), 0, <0.  A verdict it touches
 * does not count: the signer cannot pick it by backdating.  Since: 3 */
int ksp_trust_result_revoked_now(struct ksp_store *store, const struct ksp_trust_result *result, const char *target,
				 char *why, size_t whylen);
/* Per-user-ID policy: the user ID the paths certify, else NULL. */
const char *ksp_trust_result_get_uid(const struct ksp_trust_result *result, size_t *len);
/* Keys looked at by the search. */
uint64_t ksp_trust_result_get_explored(const struct ksp_trust_result *result);
/* Certifications in the store that would count at the reference time but
 * for a hash rule (the graph's, not only those the search met). */
enum ksp_hash_dropped {
	KSP_DROPPED_MD5 = 0,  /* MD5 not allowed */
	KSP_DROPPED_SHA1 = 1, /* the SHA-1 rule (SHA-1, and RIPEMD-160 under KSP_SHA1_NO) */
	KSP_DROPPED_MAX = 2,
};
uint64_t ksp_trust_result_get_dropped(const struct ksp_trust_result *result, unsigned int which);

/* Any model: asks the policy's model (ksp_trust_policy_get_model()) about
 * key @fpr at @at, or about its binding with the user ID @uid or the
 * address @email (NULL: the key; GnuPG's model answers for keys only:
 * -EOPNOTSUPP).  The result is the model's verdict: trusted or not, the
 * reason (enum ksp_trust_reason, the nearest for the model), one line of
 * message, the paths (GnuPG's model: none) and the model's own numbers
 * (ksp_trust_result_get_field()).  The paths model's result is
 * ksp_trust_check()'s or ksp_trust_check_binding()'s.  Since: 3 */
int ksp_trust_query(struct ksp_store *store, const struct ksp_trust_policy *policy, const char *fpr,
		    const char *uid, const char *email, int64_t at, struct ksp_trust_result **ret);
/* The model that answered (enum ksp_trust_model).  Since: 3 */
int ksp_trust_result_get_model(const struct ksp_trust_result *result);
/* The model's own numbers, by index from 0 (the JSON fields of its
 * answer: Sequoia's trust_amount, target_amount, certification_network;
 * GnuPG's validity, letter, depth, completes, marginals...).  Returns the
 * type (enum ksp_trust_field_type) with the name and the number or the
 * string (borrowed), or -ERANGE past the last.  Since: 3 */
enum ksp_trust_field_type {
	KSP_TRUST_FIELD_NUMBER = 0,
	KSP_TRUST_FIELD_STRING = 1,
	KSP_TRUST_FIELD_BOOL = 2,   /* the number: 0 or 1 */
	KSP_TRUST_FIELD_NULL = 3,
};
int ksp_trust_result_get_field(const struct ksp_trust_result *result, size_t index, const char **name, int64_t *num,
			       const char **str);

/* -- verifying signatures: who signed, and was the key valid -- */

/* The verdict on a signature, before any trust: ksp_trust_check() the
 * signer (ksp_verify_result_get_signer()) for that. */
struct ksp_verify_result;

enum ksp_signature_status {
	KSP_SIGNATURE_GOOD = 0,         /* good, by a key of the store that was valid when it signed */
	KSP_SIGNATURE_BAD = 1,          /* does not match: the data or the signature was changed */
	KSP_SIGNATURE_KEY_UNKNOWN = 2,  /* the signing key is not in the store */
	KSP_SIGNATURE_KEY_REVOKED = 3,  /* the signing key or its primary key is revoked */
	KSP_SIGNATURE_KEY_EXPIRED = 4,  /* had expired (or did not exist yet) when it signed */
	KSP_SIGNATURE_EXPIRED = 5,      /* the signature itself has expired */
	KSP_SIGNATURE_KEY_UNUSABLE = 6, /* gpg cannot use the store's key for it: no valid binding, not a signing key, unsupported algorithm */
	KSP_SIGNATURE_UNSIGNED = 7,     /* a git object without a signature */
};

/**
 * ksp_verify_detached:
 * Verifies the detached signature @sig (armored or binary, one signature)
 * over @data; @source (may be NULL) names the input in error messages.
 * The issuer is read from the signature packet and looked up in the
 * store as a primary key, then as a subkey of a stored key (a scan of
 * the stored keys); only that key (its own packets, no third-party
 * certifications) is imported into a private temporary GnuPG home and the
 * signature is verified there with gpgme.  gpg's own trust is ignored.
 * Returns: 0 and a result for every verdict, good or not; -EBADMSG (no
 * OpenPGP signature, damaged armor, a signed message), -EOPNOTSUPP (more
 * than one signature), -ENOMEM, -EIO.
 */
int ksp_verify_detached(struct ksp_store *store, const void *sig, size_t siglen, const void *data,
			size_t datalen, const char *source, struct ksp_verify_result **ret);
/* As ksp_verify_detached(), with libksp's own verifier (the one 'wot
 * load' uses: libgcrypt, no gpg process, no temporary GnuPG home), for one
 * v3, v4 or v6 signature over a document (class 0x00 or 0x01): tens of
 * times faster.  The key's validity when it signed comes from the store
 * ('wot load': self-signature, expiry, revocation) and, for a subkey, from
 * its verified binding and back-signature.  Anything else (a signed
 * message, an algorithm libksp does not verify, input that is no
 * signature) is handed to ksp_verify_detached(), so the verdicts and
 * errors are the same.  Returns as ksp_verify_detached().  Since: 2 */
int ksp_verify_detached_native(struct ksp_store *store, const void *sig, size_t siglen, const void *data,
			       size_t datalen, const char *source, struct ksp_verify_result **ret);
/* As ksp_verify_detached(), the data read from @fd and hashed as it is
 * read (any size, nothing kept) by libksp's own verifier; when the
 * signature is one it does not verify itself, at most @max bytes are read
 * for gpg (-EFBIG beyond).  Since: 3 */
int ksp_verify_detached_fd(struct ksp_store *store, const void *sig, size_t siglen, int fd, size_t max,
			   const char *source, struct ksp_verify_result **ret);
/* As ksp_verify_detached(), for a cleartext-signed (gpg --clearsign) or
 * signed (gpg --sign) message; -ENODATA when @msg is a detached signature
 * (give the data: ksp_verify_detached()). */
int ksp_verify_inline(struct ksp_store *store, const void *msg, size_t len, const char *source,
		      struct ksp_verify_result **ret);
/* A git tag or commit object as 'git cat-file tag|commit' prints it: the
 * payload and the signature are split as git does (the signature block
 * at the end of a tag; the gpgsig header of a commit).  An unsigned object
 * gives a KSP_SIGNATURE_UNSIGNED result.  Returns as above, and -EINVAL (not
 * a tag or commit object), -EOPNOTSUPP (an SSH or X.509 signature). */
int ksp_verify_git_object(struct ksp_store *store, const void *object, size_t len, const char *source,
			  struct ksp_verify_result **ret);
struct ksp_verify_result *ksp_verify_result_free(struct ksp_verify_result *result);
int ksp_verify_result_get_status(const struct ksp_verify_result *result);
bool ksp_verify_result_is_good(const struct ksp_verify_result *result);
/* One line: the verdict and why (plain ASCII, no user ID bytes). */
const char *ksp_verify_result_get_message(const struct ksp_verify_result *result);
/* The issuer as the signature names it (fingerprint, or 16-digit key ID),
 * NULL for an unsigned object. */
const char *ksp_verify_result_get_issuer(const struct ksp_verify_result *result);
/* The primary key of the store that signed, and the (sub)key gpg verified
 * the signature with; NULL when unknown (key not in the store, bad). */
const char *ksp_verify_result_get_signer(const struct ksp_verify_result *result);
const char *ksp_verify_result_get_signing_key(const struct ksp_verify_result *result);
bool ksp_verify_result_is_subkey(const struct ksp_verify_result *result);
/* Signature creation time (as the signature says), 0 if unknown. */
int64_t ksp_verify_result_get_created(const struct ksp_verify_result *result);
/* The signer's primary user ID from the store (raw bytes, hostile), or NULL. */
const char *ksp_verify_result_get_uid(const struct ksp_verify_result *result, size_t *len);
/* The signed text of a message verified with ksp_verify_inline() (what
 * gpg --verify --output writes; hostile bytes), NUL-terminated, or NULL
 * for a detached signature.  Since: 2 */
const void *ksp_verify_result_get_plaintext(const struct ksp_verify_result *result, size_t *len);
/* What gpgme said: gpgme_sigsum_t bits and the gpgme_validity_t of the
 * signature (no trust in the private home: never "valid"). */
unsigned int ksp_verify_result_get_gpgme_summary(const struct ksp_verify_result *result);
/* The signature's OpenPGP hash algorithm (1 MD5, 2 SHA-1, 8 SHA-256...),
 * 0 unknown.  Since: 3 */
int ksp_verify_result_get_hash_algo(const struct ksp_verify_result *result);
/* The code gpg writes in ERRSIG when the signature could not be checked
 * (4 unusable key or algorithm, 5 rejected digest: MD5 or the policy's
 * SHA-1 rule, 9 no public key, 39 time conflict: the key is newer than
 * the signature), 0 when it was checked (good, bad, expired, revoked).
 * Since: 3 */
int ksp_verify_result_get_errsig_code(const struct ksp_verify_result *result);
/* The policy's SHA-1 rule (sha1 = before-2019 or no) applied to the
 * document signature itself: a signature it refuses becomes
 * KSP_SIGNATURE_KEY_UNUSABLE (ERRSIG 5).  1 when it did, 0, -EINVAL.
 * MD5 is refused by the verifier itself, as gpg does.  Since: 3 */
int ksp_verify_result_apply_policy(struct ksp_verify_result *result, const struct ksp_trust_policy *policy);
int ksp_verify_result_get_gpgme_validity(const struct ksp_verify_result *result);

/* -- GnuPG's classic trust model, as a second opinion (trust-gnupg.c) -- */

/* Key validity computed as GnuPG's trustdb does it (gpg --check-trustdb,
 * --trust-model pgp): the keys of ultimate ownertrust are the roots; level
 * by level, up to the maximum certification depth, a user ID becomes fully
 * valid with completes_needed certifications by fully valid introducers of
 * full ownertrust (one of ultimate ownertrust suffices) or marginals_needed
 * by ones of marginal ownertrust, marginally valid with fewer; only fully
 * valid keys introduce the next level; trust signatures raise ownertrust
 * (amount >= 120 full, >= 60 marginal) within their depth and regular
 * expression.  A key's validity is its best user ID's.  Values: GnuPG's
 * numbers (ownertrust levels use them too), for a revoked key 7, for a
 * key made after the reference time (gpg: invalid) 8. */
enum ksp_gnupg_validity {
	KSP_GNUPG_UNKNOWN = 0,   /* '-' not reached from the roots */
	KSP_GNUPG_EXPIRED = 1,   /* 'e' the key has expired */
	KSP_GNUPG_UNDEFINED = 2, /* 'q' certified by introducers of unknown, undefined or never ownertrust only */
	KSP_GNUPG_NEVER = 3,     /* 'n' (an ownertrust level; no validity is ever "never") */
	KSP_GNUPG_MARGINAL = 4,  /* 'm' */
	KSP_GNUPG_FULL = 5,      /* 'f' */
	KSP_GNUPG_ULTIMATE = 6,  /* 'u' a root */
	KSP_GNUPG_REVOKED = 7,   /* 'r' the key is revoked */
	KSP_GNUPG_INVALID = 8,   /* 'i' not valid at the time: made after it */
};
struct ksp_trust_gnupg;
/* Defaults as gpg 2.2's: marginals needed 3, completes needed 1, max cert
 * depth 5, min cert level 2 (0x11 "persona" certifications do not count),
 * SHA-1 certifications made after 2019-01-19 do not count
 * (KSP_SHA1_BEFORE_2019), MD5 ones do not count. */
int ksp_trust_gnupg_new(struct ksp_ctx *ctx, struct ksp_trust_gnupg **ret);
struct ksp_trust_gnupg *ksp_trust_gnupg_free(struct ksp_trust_gnupg *gnupg);
/* Ownertrust of a key by full fingerprint: 0 unknown, 2 undefined, 3 never,
 * 4 marginal, 5 full, 6 ultimate. */
int ksp_trust_gnupg_set_ownertrust(struct ksp_trust_gnupg *gnupg, const char *fpr, int level);
/* A gpg --export-ownertrust file: "FPR:LEVEL:" lines, '#' comments; the
 * flags above 15 (128 disabled) are ignored.  Errors name FILE:LINE. */
int ksp_trust_gnupg_load_ownertrust(struct ksp_trust_gnupg *gnupg, const char *path);
/* The ownertrust given for @fpr (0 if none), or -EINVAL. */
int ksp_trust_gnupg_get_ownertrust(struct ksp_trust_gnupg *gnupg, const char *fpr);
int ksp_trust_gnupg_set_marginals_needed(struct ksp_trust_gnupg *gnupg, int n); /* 2-255, as gpg */
int ksp_trust_gnupg_set_completes_needed(struct ksp_trust_gnupg *gnupg, int n); /* 1-255 */
int ksp_trust_gnupg_set_max_cert_depth(struct ksp_trust_gnupg *gnupg, int n);   /* 1-255 */
int ksp_trust_gnupg_set_min_cert_level(struct ksp_trust_gnupg *gnupg, int level); /* 1-3 */
/* counts: KSP_SHA1_YES (gpg --allow-weak-key-signatures); !counts: KSP_SHA1_NO. */
void ksp_trust_gnupg_set_sha1(struct ksp_trust_gnupg *gnupg, bool counts);
/* enum ksp_sha1_rule; -EINVAL for another value. */
int ksp_trust_gnupg_set_sha1_rule(struct ksp_trust_gnupg *gnupg, int rule);
/* Whether MD5 certifications count (gpg --allow-weak-digest-algos). */
void ksp_trust_gnupg_set_md5(struct ksp_trust_gnupg *gnupg, bool counts);
/* After ksp_trust_gnupg_validate(): certifications by introducers that a
 * hash rule left out (enum ksp_hash_dropped). */
uint64_t ksp_trust_gnupg_get_dropped(const struct ksp_trust_gnupg *gnupg, unsigned int which);
/* Computes the validity of every key of @store at time @at, gpg's clock
 * (--faked-system-time): as in gpg, every signature and revocation the
 * store holds counts whatever its date, @at decides expiry (and a key
 * made after @at is invalid); the results are kept (with a
 * reference to the store) until the next call or ksp_trust_gnupg_free().
 * Returns the number of ultimately trusted keys found in the store (0:
 * every key is of unknown validity), or a negative errno. */
int ksp_trust_gnupg_validate(struct ksp_trust_gnupg *gnupg, struct ksp_store *store, int64_t at);
/* After ksp_trust_gnupg_validate(): the validity of @fpr (enum
 * ksp_gnupg_validity), -ENOENT (not in the store), -EINVAL (not a full
 * fingerprint, or no validation yet). */
int ksp_trust_gnupg_get_validity(struct ksp_trust_gnupg *gnupg, const char *fpr);
/* The level (0: certified by a root) at which the key got its validity;
 * -ENODATA when it got none. */
int ksp_trust_gnupg_get_depth(struct ksp_trust_gnupg *gnupg, const char *fpr);
/* On the user ID that gives the key its validity: the complete and
 * marginal counts, and the introducers whose certifications counted (with
 * their ownertrust as introducers, and the level); the user ID is raw
 * bytes (hostile; borrowed, NUL-terminated).  None for a root. */
int ksp_trust_gnupg_get_counts(struct ksp_trust_gnupg *gnupg, const char *fpr, int *full, int *marginal);
size_t ksp_trust_gnupg_get_introducer_count(struct ksp_trust_gnupg *gnupg, const char *fpr);
int ksp_trust_gnupg_get_introducer(struct ksp_trust_gnupg *gnupg, const char *fpr, size_t index, const char **signer,
				   int *ownertrust, int *depth, const char **uid, size_t *uid_len);
/* "full", "marginal", ...; NULL for a bad value.  The letter is gpg's
 * (--list-keys --with-colons field 2): u f m q n e r -, '?' for a bad value. */
const char *ksp_trust_gnupg_validity_name(int validity);
char ksp_trust_gnupg_validity_letter(int validity);
/* The policy's settings for GnuPG's model: its core keys (and party
 * participants, with core_party, read from @store) as ultimately trusted,
 * the ownertrust file and the numbers of ksp_trust_policy_set_option(),
 * its SHA-1 and MD5 rules.  Since: 3 */
int ksp_trust_gnupg_set_policy(struct ksp_trust_gnupg *gnupg, struct ksp_store *store,
			       const struct ksp_trust_policy *policy);

/* -- Sequoia's web of trust, as a third model (trust-sequoia.c) -- */

/* The model of sequoia-wot 0.2.0 (sq-wot): a binding (key and user ID) is
 * authenticated by paths of certifications from the roots whose trust
 * amounts (0-120; 120 fully) sum to the target amount (default 120).  A
 * trust signature's depth bounds how far behind its certifier a path may
 * go, its amount what a path through it carries, its regular expressions
 * which user IDs it vouches for; a plain certification is depth 0, amount
 * 120; per issuer and user ID only the newest live certifications count.
 * Paths come one by one from a backward search (fewest certifications,
 * then the largest amount), each one's amount taken from the
 * certifications it used before the next search.  In the
 * certification-network mode every certification is depth unconstrained,
 * without regular expressions (its amount stays).  It reads the store's graph snapshot, as the other models. */
struct ksp_trust_sequoia;
int ksp_trust_sequoia_new(struct ksp_ctx *ctx, struct ksp_trust_sequoia **ret);
struct ksp_trust_sequoia *ksp_trust_sequoia_free(struct ksp_trust_sequoia *sq);
/* A root of trust amount @amount (1-120; 120 fully trusted); a root given
 * twice keeps the smaller amount.  -EINVAL for a bad fingerprint. */
int ksp_trust_sequoia_add_root(struct ksp_trust_sequoia *sq, const char *fpr, int amount);
size_t ksp_trust_sequoia_get_root_count(const struct ksp_trust_sequoia *sq);
/* The amount wanted (1-7680, default 120: fully; 240: doubly). */
int ksp_trust_sequoia_set_target_amount(struct ksp_trust_sequoia *sq, int amount);
void ksp_trust_sequoia_set_certification_network(struct ksp_trust_sequoia *sq, bool on);
/* The policy's core keys as roots of amount 120 (the store's party
 * participants too with core_party, read from @store), its partial_core
 * roots (ksp_trust_policy_set_option()), its target amount and mode. */
int ksp_trust_sequoia_set_policy(struct ksp_trust_sequoia *sq, struct ksp_store *store,
				 const struct ksp_trust_policy *policy);
/* Authenticate key @fpr at @at: with @uid (and no @email), that user ID
 * (on the key or not); else every self-signed user ID of the key (with
 * the address @email, when given), the one with the largest amount kept.
 * 0, -ENOENT when the key is not in the store, or a negative errno.  The
 * results below stay valid until the next call. */
int ksp_trust_sequoia_authenticate(struct ksp_trust_sequoia *sq, struct ksp_store *store, int64_t at,
				   const char *fpr, const char *uid, const char *email);
/* The summed amount of the paths, and whether it reaches the target. */
int ksp_trust_sequoia_get_amount(const struct ksp_trust_sequoia *sq);
bool ksp_trust_sequoia_is_authenticated(const struct ksp_trust_sequoia *sq);
/* The user ID answered for (raw bytes, hostile; NULL when none). */
const char *ksp_trust_sequoia_get_uid(const struct ksp_trust_sequoia *sq, size_t *len);
/* The paths: each one's amount, its keys (root first, the target last;
 * a path of one key is a root that is the target), and each hop's
 * certification (1 for the target's own self-signature ending a path). */
size_t ksp_trust_sequoia_get_path_count(const struct ksp_trust_sequoia *sq);
int ksp_trust_sequoia_get_path_amount(const struct ksp_trust_sequoia *sq, size_t path);
size_t ksp_trust_sequoia_get_path_length(const struct ksp_trust_sequoia *sq, size_t path);
const char *ksp_trust_sequoia_get_path_key(const struct ksp_trust_sequoia *sq, size_t path, size_t index);
int ksp_trust_sequoia_get_path_hop(const struct ksp_trust_sequoia *sq, size_t path, size_t index, int *depth,
				   int *amount, int64_t *created);

/* ------------------------------------------------------------------ */
/* Rendering the web of trust (graphviz)                               */

/* Pictures of the graph of the store at @at (see ksp_wot_stats_new() for
 * @wot_flags), laid out and rendered in-process with graphviz (libcgraph,
 * libgvc).  Nodes are keys labelled with the name of their primary user ID
 * (escaped: controls and bidi overrides show as \xNN / \u{NNNN}, never as
 * markup or graphviz escapes) and the 16-digit key ID; a two-way pair of
 * certifications is one edge with two arrowheads.  @max_nodes (0: no
 * limit) refuses a graph larger than that with -E2BIG and a message,
 * instead of a layout that runs for hours. */
struct ksp_graph;

enum ksp_graph_flags {
	KSP_GRAPH_MISSING = 1 << 0, /* party: also draw missing certifications, dashed */
};

/* The participants of the store's party: colour by the fraction of the
 * other participants who certified the key (red none, green all).
 * Returns 0; -ENOENT (no party), -ENODATA (no participants), -errno. */
int ksp_graph_new_party(struct ksp_store *store, int64_t at, unsigned int wot_flags, unsigned int flags,
			struct ksp_graph **ret);
/* The strong set: node size by in-degree (signers), colour by MSD rank.
 * Returns 0; -ENODATA (no strong set), -E2BIG, -errno. */
int ksp_graph_new_strong_set(struct ksp_store *store, int64_t at, unsigned int wot_flags, size_t max_nodes,
			     struct ksp_graph **ret);
/* The keys within @depth certifications of @fpr, following certifications
 * either way, and every certification between them.
 * Returns 0; -ENOENT (@fpr is not a vertex), -E2BIG, -errno. */
int ksp_graph_new_around(struct ksp_store *store, int64_t at, unsigned int wot_flags, const char *fpr,
			 unsigned int depth, size_t max_nodes, struct ksp_graph **ret);
/* Every shortest certification path from each key of @from (one key, or a
 * trust core) to @to, edges labelled with the date of the certification;
 * sources highlighted.  Sources that cannot reach @to are left out; when
 * none can, the graph holds only @to and ksp_graph_get_length() fails.
 * Returns 0; -ENOENT (an end is not a vertex), -E2BIG, -errno. */
int ksp_graph_new_paths(struct ksp_store *store, int64_t at, unsigned int wot_flags, const char *const *from,
			size_t n_from, const char *to, size_t max_nodes, struct ksp_graph **ret);
/* The paths of a trust verdict (ksp_trust_check() of @target_fpr), as
 * wotmate draws them: the core keys that start them highlighted, the
 * target green when trusted and red when not, hop dates on the edges, the
 * verdict as the title.  @result must come from @store. */
int ksp_graph_new_trust(struct ksp_store *store, const struct ksp_trust_result *result, const char *target_fpr,
			struct ksp_graph **ret);
/* Chosen keys (ksp health --svg): @fprs[i] marked @marks[i] (those that
 * are no vertex at @at left out), every certification between them, and
 * @n_extra dashed arcs @from[j] -> @to[j] (certifications to make);
 * @title raw text (escaped here).  Returns 0; -EINVAL, -E2BIG, -errno. */
enum ksp_graph_mark {
	KSP_GRAPH_MARK_PLAIN = 0,
	KSP_GRAPH_MARK_CORE = 1,  /* gold */
	KSP_GRAPH_MARK_FALLS = 2, /* red: falls below K by the horizon */
	KSP_GRAPH_MARK_SPOF = 3,  /* orange: a single point of failure */
	KSP_GRAPH_MARK_BELOW = 4, /* grey: below K already */
};
int ksp_graph_new_keys(struct ksp_store *store, int64_t at, unsigned int wot_flags, const char *const *fprs,
		       const unsigned int *marks, size_t n, const char *const *from, const char *const *to,
		       size_t n_extra, const char *title, size_t max_nodes, struct ksp_graph **ret);
struct ksp_graph *ksp_graph_free(struct ksp_graph *graph);
size_t ksp_graph_get_node_count(const struct ksp_graph *graph);
/* Edges drawn (a two-way pair is one edge; dashed "missing" ones included). */
size_t ksp_graph_get_edge_count(const struct ksp_graph *graph);
/* Certifications u -> v drawn (a two-way edge counts two). */
size_t ksp_graph_get_arc_count(const struct ksp_graph *graph);
/* Dashed edges drawn for missing certifications (KSP_GRAPH_MISSING). */
size_t ksp_graph_get_missing_count(const struct ksp_graph *graph);
/* Paths graphs: edges of the shortest path (from the nearest source);
 * -ENOENT when there is none or for other graphs. */
int ksp_graph_get_length(const struct ksp_graph *graph);
/* Fingerprint of node @i (borrowed), NULL past the end. */
const char *ksp_graph_get_node_fingerprint(const struct ksp_graph *graph, size_t i);
/* The layout used when none is given: "circo" for a party, "sfdp" for the
 * strong set, "neato" or "sfdp" (over 100 keys) for a neighbourhood, "dot"
 * for paths and trust. */
const char *ksp_graph_get_default_layout(const struct ksp_graph *graph);
/**
 * ksp_graph_render:
 * Lays out the graph with graphviz's @layout ("dot", "neato", "fdp",
 * "sfdp", "circo", "twopi"; NULL: the default) and renders it as @format
 * ("svg", "png", "pdf", "dot"; NULL: svg) to @fd; ksp_graph_render_file()
 * writes @path atomically (temporary name, then rename).  "dot" without a
 * layout is the graph without positions, for other tools.  Nothing is
 * written when rendering fails.
 * Returns 0; -EINVAL (unknown format or layout), -EOPNOTSUPP (graphviz has
 * no plugin for it here: the message says what to install), -EIO (graphviz
 * failed), -ENOMEM, -errno of the output; -ELIBACC (ksp's drawing module,
 * ksp/ksp-render.so beside libksp.so.1, is missing or of another build;
 * the message names it).
 */
int ksp_graph_render(const struct ksp_graph *graph, const char *format, const char *layout, int fd);
int ksp_graph_render_file(const struct ksp_graph *graph, const char *format, const char *layout,
			  const char *path);

/* ------------------------------------------------------------------ */
/* Trust health (src/lib/health/): who loses their paths to the core   */

/* The horizons: the reference time, +30, +90 and +365 days (keys and
 * certifications that expire by then dropped), and the reference time
 * with MD5, SHA-1 and RIPEMD-160 certifications dropped. */
enum ksp_health_horizon {
	KSP_HEALTH_NOW = 0,
	KSP_HEALTH_30D = 1,
	KSP_HEALTH_90D = 2,
	KSP_HEALTH_365D = 3,
	KSP_HEALTH_NO_SHA1 = 4,
	KSP_HEALTH_HORIZONS = 5,
};

enum ksp_health_flags {
	KSP_HEALTH_NO_REPAIR = 1 << 0, /* no repair plan */
	KSP_HEALTH_NO_SPOF = 1 << 1,   /* no single points of failure */
	KSP_HEALTH_PARTY = 1 << 2,     /* rank the pairs of the store's party participants */
};

/* What no longer holds on a key's paths at a horizon. */
enum ksp_health_break {
	KSP_HEALTH_KEY_EXPIRES = 1,  /* signer: the key; when: its expiry */
	KSP_HEALTH_KEY_REVOKED = 2,
	KSP_HEALTH_CERT_EXPIRES = 3, /* signer certified signee; when: its expiry */
	KSP_HEALTH_CERT_WEAK = 4,    /* MD5, SHA-1 or RIPEMD-160; when: made */
	KSP_HEALTH_CERT_REVOKED = 5,
	KSP_HEALTH_UID_REVOKED = 6,  /* the certified user ID is revoked */
	KSP_HEALTH_CERT_TOO_OLD = 7, /* older than the policy's max_cert_age */
};

/**
 * ksp_health_new:
 * The trust health of every key of @store that is not a core key of
 * @policy, at @at and at each horizon, every verdict by ksp_trust_check()
 * (a key trusted at @at whose K paths all still hold at a horizon keeps
 * them; every other key is evaluated again), with the repair plan for the
 * keys that fall below K by @repair_horizon (KSP_HEALTH_30D...), the
 * single points of failure and, with KSP_HEALTH_PARTY, the ranked pairs of
 * party participants.  Uses ksp_get_threads() threads, each with its own
 * handle on the store's file.
 * Returns 0; -EINVAL (no core keys, bad horizon), -EOPNOTSUPP (the
 * policy's model is not the paths model, on which the what-if questions
 * are defined: ksp_trust_policy_check_whatif()), -ENOMEM, or the trust
 * engine's errors (message set).
 */
struct ksp_health;
int ksp_health_new(struct ksp_store *store, const struct ksp_trust_policy *policy, int64_t at,
		   unsigned int repair_horizon, unsigned int flags, struct ksp_health **ret);
struct ksp_health *ksp_health_free(struct ksp_health *health);
/* The label ("now", "+30d", "+90d", "+365d", "no-sha1") and time. */
const char *ksp_health_get_horizon(const struct ksp_health *health, unsigned int horizon, int64_t *at);
/* The keys evaluated (every key of the store but the core keys). */
size_t ksp_health_get_key_count(const struct ksp_health *health);
const char *ksp_health_get_key(const struct ksp_health *health, size_t key);
/* Disjoint paths found at the horizon (at most K). */
int ksp_health_get_paths(const struct ksp_health *health, size_t key, unsigned int horizon);
/* Below K at the horizon: exactly ksp_trust_check()'s "not trusted". */
bool ksp_health_is_below(const struct ksp_health *health, size_t key, unsigned int horizon);
size_t ksp_health_get_below_count(const struct ksp_health *health, unsigned int horizon);
/* The engine's message for a key below K (NULL otherwise). */
const char *ksp_health_get_message(const struct ksp_health *health, size_t key, unsigned int horizon);
/* For a key trusted at @at and below K at the horizon: what broke on its
 * paths (path: 0-based number of the path found at @at). */
size_t ksp_health_get_break_count(const struct ksp_health *health, size_t key, unsigned int horizon);
int ksp_health_get_break(const struct ksp_health *health, size_t key, unsigned int horizon, size_t i, int *kind,
			 const char **signer, const char **signee, int64_t *when, int *path);
/* The repair plan: new certifications (signer certifies target), in the
 * greedy order, each with the keys it brings back to K; the keys that
 * fall and no candidate repairs; the expiring keys whose owners only need
 * to extend the expiry, with the keys each extension repairs alone. */
size_t ksp_health_get_repair_count(const struct ksp_health *health);
int ksp_health_get_repair(const struct ksp_health *health, size_t i, const char **signer, const char **target,
			  unsigned int *repairs);
size_t ksp_health_get_unrepaired_count(const struct ksp_health *health);
size_t ksp_health_get_extend_count(const struct ksp_health *health);
int ksp_health_get_extend(const struct ksp_health *health, size_t i, const char **fpr, int64_t *expires,
			  unsigned int *repairs);
/* The repair plan's size against the fewest certifications: @minimal
 * when it is the fewest (among the candidates: every key with a path from
 * the core certifying a key before a falling one, on small webs), else
 * @lower: no plan repairing the same keys has fewer. */
int ksp_health_get_repair_bound(const struct ksp_health *health, size_t *lower, bool *minimal);
/* Repair @i: @more keys gain a path but stay below K (K > 1: the next
 * certifications complete them); @renewal: the signer has a certification
 * of the target valid now (gpg makes a new one only with --force-sign-key). */
int ksp_health_get_repair_detail(const struct ksp_health *health, size_t i, unsigned int *more, bool *renewal);
/* The core keys found in the store (the policy's, or the party's). */
size_t ksp_health_get_core_count(const struct ksp_health *health);
const char *ksp_health_get_core(const struct ksp_health *health, size_t i);
/* The user ID (hostile raw bytes, @len) a certification break is on, or
 * NULL (a key break). */
const char *ksp_health_get_break_uid(const struct ksp_health *health, size_t key, unsigned int horizon, size_t i,
				     size_t *len);
/* Single points of failure, most cuts first: the keys whose loss puts
 * @cuts keys below K at @at (@carries: on how many keys' paths it lies);
 * exact for the top 10 unless ksp_health_spof_is_exact() says the work
 * budget ran out.  Carriers: non-core keys by the paths they carry. */
size_t ksp_health_get_spof_count(const struct ksp_health *health);
int ksp_health_get_spof(const struct ksp_health *health, size_t i, const char **fpr, unsigned int *cuts,
			unsigned int *carries);
bool ksp_health_spof_is_exact(const struct ksp_health *health);
size_t ksp_health_get_carrier_count(const struct ksp_health *health);
int ksp_health_get_carrier(const struct ksp_health *health, size_t i, const char **fpr, unsigned int *paths);
/* KSP_HEALTH_PARTY: pairs of participants that certify each other, by the
 * keys below K at @at that it brings to K, most first. */
size_t ksp_health_get_pair_count(const struct ksp_health *health);
int ksp_health_get_pair(const struct ksp_health *health, size_t i, const char **a, const char **b,
			unsigned int *keys);
/* The same pairs by the distances their certifying each other shortens: a
 * key's distance is the fewest certifications from a core key (L + 1 when
 * farther or out of reach); @hops the distance saved over all keys, @keys
 * the keys brought closer; most hops first, then most keys. */
int ksp_health_get_pair_by_distance(const struct ksp_health *health, size_t i, const char **a, const char **b,
				    unsigned int *hops, unsigned int *keys);
/* What the party did: of the keys trusted at @at, how many were not on the
 * eve of the party (@party_time - 1: reached K since), and how many of
 * those have a path through a certification between two participants made
 * at or after @party_time (reached K thanks to the party). */
int ksp_health_party_gain(struct ksp_health *health, int64_t party_time, size_t *reached, size_t *thanks);
/* Trust queries asked (for benchmarks). */
uint64_t ksp_health_get_queries(const struct ksp_health *health);
/* The MD5, SHA-1 and RIPEMD-160 certifications of @signer valid at @at
 * that no modern certification of the signer on the same key joins (what
 * ksp_party_sign() with KSP_SIGN_RESIGN_WEAK makes again), most core
 * paths carried first; the user ID is hostile raw bytes.
 * Returns 0, -ENOENT (signer not in the store), -ENOMEM. */
int ksp_health_list_weak(struct ksp_health *health, const char *signer);
size_t ksp_health_get_weak_count(const struct ksp_health *health);
int ksp_health_get_weak(const struct ksp_health *health, size_t i, const char **target, const char **uid,
			size_t *uid_len, int64_t *created, int *hash_algo, unsigned int *carries);

/* ------------------------------------------------------------------ */
/* Publishing a keyring as kernel.org's pgpkeys repository (LIBKSP_3)  */

/*
 * ksp_publish_write() writes into @dir, for every key with a path from the
 * policy's core (the core keys too; with ksp_publish_set_keep() the keys
 * without a path as well): keys/<KEYID>.asc (a gpg --list-keys-like header
 * and the key exported clean: self-signatures, and only the certifications
 * verified in the store and made by a published key), graphs/<KEYID>.txt
 * (wotmate's format, one block per path) and .svg, and
 * .keyring/openpgp/<domain>/<local>/default and .keyring/by-hash/ symlinks
 * (b4, patatt).  Paths: a maximum set of vertex-disjoint paths (at most
 * ksp_publish_set_max_paths(), default 4) of at most the policy's max
 * depth, from ksp_trust_check()'s engine; with one core key, paths share
 * only it and the target.  Deterministic; only the files whose content
 * changed are rewritten (each renamed into place from a temporary folder
 * inside @dir, after everything was made), files no longer published are
 * removed from keys/, graphs/, .keyring/openpgp/ and .keyring/by-hash/;
 * other files in @dir are left alone.  An error before the renames leaves
 * @dir as it was.  The policy (and the audit policy) must outlive @pub.
 * The weak-hash audit: certifications with MD5, SHA-1 or RIPEMD-160 on
 * the published paths, per certifier, and, with ksp_publish_set_audit(),
 * the keys that have no path at all when they are dropped.
 * ksp_publish_new(): -EOPNOTSUPP (message set) when the policy's model is
 * not the paths model (ksp_trust_policy_check_whatif()).
 */
struct ksp_publish;
enum ksp_publish_change {
	KSP_PUBLISH_ADDED = 1,
	KSP_PUBLISH_CHANGED = 2,
	KSP_PUBLISH_REMOVED = 3,
};
int ksp_publish_new(struct ksp_store *store, const struct ksp_trust_policy *policy, struct ksp_publish **ret);
struct ksp_publish *ksp_publish_free(struct ksp_publish *pub);
int ksp_publish_set_max_paths(struct ksp_publish *pub, int n); /* 1-64 */
void ksp_publish_set_keep(struct ksp_publish *pub, bool keep);
void ksp_publish_set_svg(struct ksp_publish *pub, bool svg); /* default on */
void ksp_publish_set_at(struct ksp_publish *pub, int64_t at); /* default: now */
/* the weak-hash audit's second pass (the policy with MD5, SHA-1 and
 * RIPEMD-160 dropped) */
int ksp_publish_set_audit(struct ksp_publish *pub, bool on);
int ksp_publish_write(struct ksp_publish *pub, const char *dir);
/* after ksp_publish_write(): */
size_t ksp_publish_get_key_count(const struct ksp_publish *pub);
size_t ksp_publish_get_pathless_count(const struct ksp_publish *pub);
const char *ksp_publish_get_pathless(const struct ksp_publish *pub, size_t i);
int ksp_publish_get_path_count(const struct ksp_publish *pub, const char *fpr);
size_t ksp_publish_get_change_count(const struct ksp_publish *pub);
/* enum ksp_publish_change; *old_paths / *new_paths: for graphs/ *.txt
 * files the paths in the old and new file, else -1 */
int ksp_publish_get_change(const struct ksp_publish *pub, size_t i, const char **path, int *old_paths,
			   int *new_paths);
size_t ksp_publish_get_weak_count(const struct ksp_publish *pub);
/* the certifier's fingerprint; its weak certifications on the paths */
const char *ksp_publish_get_weak(const struct ksp_publish *pub, size_t i, unsigned int *md5, unsigned int *sha1,
				 unsigned int *ripemd160);
size_t ksp_publish_get_orphan_count(const struct ksp_publish *pub);
const char *ksp_publish_get_orphan(const struct ksp_publish *pub, size_t i);

#ifdef __cplusplus
}
#endif
#endif
