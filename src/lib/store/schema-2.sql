-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 2: the graph snapshot's staleness marker.
-- Trust queries read the web of trust from a compact snapshot file next to
-- the store (STORE-wot, see wot-snap.c).  The snapshot records gen and
-- nonce and is current while they match: every change to what the graph
-- is made of counts gen up (about 0.5 us per row loaded), so that a reader
-- that cannot write the store can still tell, and rebuild.
CREATE TABLE graph_state (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	gen         INTEGER NOT NULL,
	nonce       INTEGER NOT NULL        -- random: tells stores apart
);
INSERT INTO graph_state VALUES (1, 1, random());

CREATE TRIGGER graph_certs_ins AFTER INSERT ON certs
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_certs_del AFTER DELETE ON certs
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_certs_upd
AFTER UPDATE OF uid_id, issuer_fpr, sig_type, hash_algo, created, expires, exportable, verified ON certs
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;

CREATE TRIGGER graph_keys_ins AFTER INSERT ON keys
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_keys_del AFTER DELETE ON keys
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_keys_upd AFTER UPDATE OF fpr, algo, bits, created, expires, revoked ON keys
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;

CREATE TRIGGER graph_uids_ins AFTER INSERT ON uids
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_uids_del AFTER DELETE ON uids
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
CREATE TRIGGER graph_uids_upd AFTER UPDATE OF key_id, is_attr, revoked ON uids
BEGIN UPDATE graph_state SET gen = gen + 1 WHERE id = 1; END;
