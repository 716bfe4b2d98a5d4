-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 4: the delivery ledger of 'party sign'.
-- One row per certification this store's user made (a row of "signed"
-- with its message file): written (in the outbox, not handed to a mailer),
-- sent (the mailer took it: exit status 0), failed (the mailer exited
-- non-zero or could not run; sent again by 'party send'), or unknown
-- (signed before the ledger existed: whether it was mailed is not known,
-- so it is never sent again by itself).  Signing again (--force) writes a
-- new message: the row starts over as written.
CREATE TABLE IF NOT EXISTS deliveries (
	id          INTEGER PRIMARY KEY,
	signed_id   INTEGER NOT NULL UNIQUE REFERENCES signed(id) ON DELETE CASCADE,
	message_file TEXT NOT NULL,
	state       TEXT NOT NULL DEFAULT 'written', -- written | sent | failed | unknown
	written     INTEGER NOT NULL,
	attempts    INTEGER NOT NULL DEFAULT 0,
	last_attempt INTEGER NOT NULL DEFAULT 0,
	mailer      TEXT,                   -- the command of the last attempt
	mailer_status INTEGER,              -- its exit status (128+N: signal N; -1: not run)
	detail      TEXT                    -- why the last attempt failed
);
INSERT OR IGNORE INTO deliveries(signed_id, message_file, state, written)
	SELECT id, outbox_file, 'unknown', time FROM signed WHERE outbox_file IS NOT NULL;

-- (no INSERT OR REPLACE here: 'party sign' records with an upsert, whose
-- conflict policy would override the trigger's)
CREATE TRIGGER IF NOT EXISTS signed_delivery_ins AFTER INSERT ON signed WHEN NEW.outbox_file IS NOT NULL
BEGIN
	INSERT INTO deliveries(signed_id, message_file, state, written)
	SELECT NEW.id, NEW.outbox_file, 'written', NEW.time
	WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE signed_id = NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS signed_delivery_upd AFTER UPDATE OF time, outbox_file ON signed WHEN NEW.outbox_file IS NOT NULL
BEGIN
	UPDATE deliveries SET message_file = NEW.outbox_file, state = 'written', written = NEW.time, attempts = 0,
		last_attempt = 0, mailer = NULL, mailer_status = NULL, detail = NULL
	WHERE signed_id = NEW.id;
	INSERT INTO deliveries(signed_id, message_file, state, written)
	SELECT NEW.id, NEW.outbox_file, 'written', NEW.time
	WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE signed_id = NEW.id);
END;
