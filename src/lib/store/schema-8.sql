-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 8: per user ID, the creation time of its
-- oldest verified self-signature (0x10-0x13) by the class of the hash it
-- was made with (0: none): what Sequoia's model needs to know whether the
-- key had a valid binding signature at a given time under its standard
-- policy (issue 33).  A store of an older schema gets, per self-signed
-- user ID, its newest self-signature with the key's newest self-signature
-- hash (what it knew), and its key blocks are forgotten so that the next
-- 'wot load' of the same keys reads every self-signature again.
ALTER TABLE uids ADD COLUMN ss_strong INTEGER NOT NULL DEFAULT 0; -- SHA-2, SHA-3
ALTER TABLE uids ADD COLUMN ss_sha1 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_rmd160 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE uids ADD COLUMN ss_md5 INTEGER NOT NULL DEFAULT 0;
UPDATE uids SET
	ss_md5 = CASE WHEN (SELECT selfsig_hash FROM keys WHERE keys.id = uids.key_id) = 1 THEN selfsig ELSE 0 END,
	ss_sha1 = CASE WHEN (SELECT selfsig_hash FROM keys WHERE keys.id = uids.key_id) = 2 THEN selfsig ELSE 0 END,
	ss_rmd160 = CASE WHEN (SELECT selfsig_hash FROM keys WHERE keys.id = uids.key_id) = 3 THEN selfsig ELSE 0 END,
	ss_strong = CASE WHEN coalesce((SELECT selfsig_hash FROM keys WHERE keys.id = uids.key_id), 8) IN (1, 2, 3)
		THEN 0 ELSE selfsig END
	WHERE selfsig > 0;
DELETE FROM key_blocks;
DROP TRIGGER graph_uids_upd;
CREATE TRIGGER graph_uids_upd AFTER UPDATE OF key_id, idx, uid, is_attr, selfsig, revoked,
	ss_strong, ss_sha1, ss_rmd160, ss_md5 ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1;
