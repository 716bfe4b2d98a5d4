-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 5: attendance ('party absent', 'party present',
-- 'party absent --attended FILE').  Who was not at the party, by
-- fingerprint of a frozen list member: recorded beside the frozen list,
-- which with its digests stays as announced.  No row: present.
CREATE TABLE IF NOT EXISTS attendance (
	fpr         TEXT PRIMARY KEY,
	absent      INTEGER NOT NULL DEFAULT 1,
	time        INTEGER NOT NULL
);
