-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 7: incremental loading and trusted refresh
-- (issue 24).  key_blocks: per key, the SHA-256 of its packets as 'wot
-- load' last stored them (checked = 1: with every signature checked), so
-- that the same block read again is skipped before it is parsed.
-- certs_pending: the certifications whose issuer was unknown, which every
-- load into a store that has keys checks again when the issuer came (a
-- scan of every certification without it).
-- certs_graph: what the graph snapshot is built of (wot-snap.c), so that
-- rebuilding it after a small change reads this index, not every
-- certification with its signature packet.
-- keys_graph: the same for the keys (their rows hold the key blocks).
-- refresh: per keyring git repository, the last commit whose history
-- 'wot refresh' checked and loaded.
CREATE TABLE IF NOT EXISTS key_blocks (
	key_id      INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
	digest      BLOB NOT NULL,
	checked     INTEGER NOT NULL DEFAULT 0,
	source      TEXT                    -- keys.source, as stored with it
);
CREATE INDEX IF NOT EXISTS key_blocks_digest ON key_blocks(digest);
CREATE INDEX IF NOT EXISTS certs_pending ON certs(issuer_keyid) WHERE verified = 4;
CREATE INDEX IF NOT EXISTS certs_graph ON certs(uid_id, issuer_fpr, sig_type, hash_algo, created, expires, verified, exportable)
	WHERE verified = 1 AND exportable = 1 AND issuer_fpr IS NOT NULL AND (sig_type BETWEEN 16 AND 19 OR sig_type = 48);
CREATE INDEX IF NOT EXISTS keys_graph ON keys(id, fpr, created, expires, revoked, algo, bits, revoked_reason);
CREATE TABLE IF NOT EXISTS refresh (
	repo        TEXT PRIMARY KEY,
	commit_id   TEXT NOT NULL,
	time        INTEGER NOT NULL
);
