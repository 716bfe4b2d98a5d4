-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 3: every change to what the graph is made of
-- also draws a fresh random nonce.  With gen alone, a store restored from a
-- backup and then changed differently by as many rows came back to a
-- (gen, nonce) pair a snapshot had already been made for, and that stale
-- snapshot was taken for current.
DROP TRIGGER graph_certs_ins;
DROP TRIGGER graph_certs_del;
DROP TRIGGER graph_certs_upd;
DROP TRIGGER graph_keys_ins;
DROP TRIGGER graph_keys_del;
DROP TRIGGER graph_keys_upd;
DROP TRIGGER graph_uids_ins;
DROP TRIGGER graph_uids_del;
DROP TRIGGER graph_uids_upd;
UPDATE graph_state SET nonce = random() WHERE id = 1;

CREATE TRIGGER graph_certs_ins AFTER INSERT ON certs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_certs_del AFTER DELETE ON certs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_certs_upd
AFTER UPDATE OF uid_id, issuer_fpr, sig_type, hash_algo, created, expires, exportable, verified ON certs
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;

CREATE TRIGGER graph_keys_ins AFTER INSERT ON keys
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_keys_del AFTER DELETE ON keys
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_keys_upd AFTER UPDATE OF fpr, algo, bits, created, expires, revoked ON keys
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;

CREATE TRIGGER graph_uids_ins AFTER INSERT ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_uids_del AFTER DELETE ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
CREATE TRIGGER graph_uids_upd AFTER UPDATE OF key_id, is_attr, revoked ON uids
BEGIN UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1; END;
