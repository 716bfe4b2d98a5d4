-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 6: the graph snapshot also holds what the GnuPG
-- and Sequoia models read (wot-snap.h): a key's valid self-signature and
-- the reason of its revocation (hard or soft), a user ID's text, order and
-- self-signature.  A change to any of them counts the graph state up too.
DROP TRIGGER graph_keys_upd;
DROP TRIGGER graph_uids_upd;
CREATE TRIGGER graph_keys_upd
AFTER UPDATE OF fpr, algo, bits, created, expires, revoked, revoked_reason, selfsig_ok ON keys
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_uids_upd AFTER UPDATE OF key_id, idx, uid, is_attr, selfsig, revoked ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1;
