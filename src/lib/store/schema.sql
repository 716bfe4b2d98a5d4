-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 1.  Times are seconds since the epoch (UTC),
-- 0 = none/never.  Fingerprints are upper-case hex, 40 (v4) or 64 (v5/v6)
-- digits, never truncated.  Migrations live in store.c.
CREATE TABLE keys (
	id          INTEGER PRIMARY KEY,
	fpr         TEXT NOT NULL UNIQUE,
	keyid       TEXT NOT NULL,          -- v4: last 16 hex digits; v5/v6: first 16
	version     INTEGER NOT NULL,
	algo        INTEGER NOT NULL,       -- RFC 9580 public-key algorithm id
	bits        INTEGER NOT NULL DEFAULT 0,
	curve       TEXT,                   -- curve name for ECC keys
	created     INTEGER NOT NULL,
	expires     INTEGER NOT NULL DEFAULT 0,
	revoked     INTEGER NOT NULL DEFAULT 0, -- time of a verified key revocation
	revoked_reason INTEGER,
	selfsig_ok  INTEGER NOT NULL DEFAULT 0, -- has at least one valid self-signature
	selfsig_hash INTEGER,               -- hash algo of the newest self-signature
	keydata     BLOB,                   -- the transferable public key as read
	source      TEXT                    -- file it was last read from
);
CREATE INDEX keys_keyid ON keys(keyid);

CREATE TABLE uids (
	id          INTEGER PRIMARY KEY,
	key_id      INTEGER NOT NULL REFERENCES keys(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,       -- order on the key
	uid         BLOB NOT NULL,          -- raw bytes, hostile: never trust
	is_attr     INTEGER NOT NULL DEFAULT 0, -- user attribute (photo ID)
	email       TEXT,                   -- addr-spec extracted, or NULL
	primary_uid INTEGER NOT NULL DEFAULT 0,
	selfsig     INTEGER NOT NULL DEFAULT 0, -- creation of newest valid self-sig, 0 none
	revoked     INTEGER NOT NULL DEFAULT 0, -- time of a verified self-revocation
	UNIQUE(key_id, uid, is_attr)
);

-- Third-party certifications (0x10-0x13) and certification revocations
-- (0x30) on user IDs.  Self-signatures are summarised on keys/uids.
CREATE TABLE certs (
	id          INTEGER PRIMARY KEY,
	uid_id      INTEGER NOT NULL REFERENCES uids(id) ON DELETE CASCADE,
	issuer_fpr  TEXT,                   -- from the Issuer Fingerprint subpacket, or resolved
	issuer_keyid TEXT NOT NULL,         -- 16 hex digits
	sig_type    INTEGER NOT NULL,
	pk_algo     INTEGER NOT NULL,
	hash_algo   INTEGER NOT NULL,
	created     INTEGER NOT NULL,
	expires     INTEGER NOT NULL DEFAULT 0, -- absolute time, 0 = never
	exportable  INTEGER NOT NULL DEFAULT 1,
	trust_depth INTEGER NOT NULL DEFAULT 0,
	trust_amount INTEGER NOT NULL DEFAULT 0,
	regex       TEXT,
	verified    INTEGER NOT NULL DEFAULT 0, -- 0 unchecked, 1 good, 2 bad, 3 unsupported, 4 issuer unknown
	sigdata     BLOB NOT NULL,          -- the signature packet as read
	digest      TEXT NOT NULL,          -- sha1 of sigdata: duplicate detection
	UNIQUE(uid_id, digest)
);
CREATE INDEX certs_issuer ON certs(issuer_keyid);
CREATE INDEX certs_issuer_fpr ON certs(issuer_fpr);

-- One party per store.
CREATE TABLE party (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	name        TEXT NOT NULL,
	date        TEXT NOT NULL,          -- YYYY-MM-DD
	location    TEXT,
	organizer   TEXT,                   -- fingerprint
	state       TEXT NOT NULL DEFAULT 'open', -- open | closed
	created     INTEGER NOT NULL
);

CREATE TABLE participants (
	id          INTEGER PRIMARY KEY,
	key_id      INTEGER NOT NULL UNIQUE REFERENCES keys(id),
	ord         INTEGER NOT NULL UNIQUE, -- order number on the list
	added       INTEGER NOT NULL,
	warnings    TEXT                     -- comma-separated check names accepted with
);

CREATE TABLE list_versions (
	version     INTEGER PRIMARY KEY,
	closed_at   INTEGER NOT NULL,
	text        BLOB NOT NULL,           -- the canonical list, exact bytes
	sha256      TEXT NOT NULL,
	rmd160      TEXT NOT NULL,
	reopened_at INTEGER,
	reopen_reason TEXT
);

-- What a list version held: fingerprint -> order number, for re-checks.
CREATE TABLE list_members (
	version     INTEGER NOT NULL REFERENCES list_versions(version),
	ord         INTEGER NOT NULL,
	fpr         TEXT NOT NULL,
	PRIMARY KEY(version, ord)
);

CREATE TABLE events (
	id          INTEGER PRIMARY KEY,
	time        INTEGER NOT NULL,
	what        TEXT NOT NULL,
	detail      TEXT
);

-- Signatures this store's user made at the party (ksp party sign).
CREATE TABLE signed (
	id          INTEGER PRIMARY KEY,
	signer_fpr  TEXT NOT NULL,
	key_id      INTEGER NOT NULL REFERENCES keys(id),
	uid         BLOB NOT NULL,
	time        INTEGER NOT NULL,
	level       INTEGER NOT NULL DEFAULT 0,
	outbox_file TEXT,
	UNIQUE(signer_fpr, key_id, uid)
);
