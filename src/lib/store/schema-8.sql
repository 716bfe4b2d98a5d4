-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 8: per user ID, the creation time of its
-- oldest verified self-signature (0x10-0x13) by the class of the hash it
-- was made with (0: none): what Sequoia's model needs to know whether the
-- key had a valid binding signature at a given time under its standard
-- policy (issue 33).  Those are the self-signatures without an
-- expiration time; of those with one (its validity ends), the newest:
-- ss_exp_created, ss_exp_until (absolute), ss_exp_hash (0: none; an older
-- one is forgotten, which can only make that model less trusting).  A store of an older schema knows only each user
-- ID's newest self-signature and the hash of the key's newest one, which
-- is no ground for them (a guess could only make Sequoia's model more
-- trusting): they stay 0, which that model reads as "no binding signature",
-- and the key blocks are forgotten so that the next 'wot load' of the same
-- keys reads every self-signature again and fills them in.
ALTER TABLE uids ADD COLUMN ss_strong INTEGER NOT NULL DEFAULT 0; -- SHA-2 (SHA-256, -384, -512, -224)
ALTER TABLE uids ADD COLUMN ss_sha1 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_rmd160 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_md5 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_exp_created INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_exp_until INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_exp_hash INTEGER NOT NULL DEFAULT 0;
-- key_selfsigs: per key, every verified binding self-signature (on a user
-- ID, or direct), 32 bytes each, oldest first, little-endian 64-bit
-- integers: its creation time, the key's expiration time it gives
-- (absolute, 0: never), its own expiration time (absolute, 0: never) and
-- its hash algorithm: when the key was valid and alive at a past time.
CREATE TABLE IF NOT EXISTS key_selfsigs (
	key_id      INTEGER PRIMARY KEY REFERENCES keys(id) ON DELETE CASCADE,
	hist        BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS graph_ksigs_ins AFTER INSERT ON key_selfsigs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS graph_ksigs_upd AFTER UPDATE ON key_selfsigs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS graph_ksigs_del AFTER DELETE ON key_selfsigs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
DELETE FROM key_blocks;
DROP TRIGGER graph_uids_upd;
CREATE TRIGGER graph_uids_upd AFTER UPDATE OF key_id, idx, uid, is_attr, selfsig, revoked,
	ss_strong, ss_sha1, ss_rmd160, ss_md5, ss_exp_created, ss_exp_until, ss_exp_hash ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1;
