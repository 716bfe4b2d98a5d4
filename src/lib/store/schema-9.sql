-- SPDX-License-Identifier: LGPL-2.1-or-later
-- ksp store, schema version 9: the repair plan of the party ('party add
-- --csv' of a list 'ksp health --plan-csv' wrote): who must certify whom
-- at the party so that the web of trust is whole again, by fingerprint
-- (the sheet marks each signer's targets).  renewal: the signer's
-- certification of the target is still valid (gpg --force-sign-key).
CREATE TABLE IF NOT EXISTS repair_plan (
	signer_fpr  TEXT NOT NULL,
	target_fpr  TEXT NOT NULL,
	renewal     INTEGER NOT NULL DEFAULT 0,
	added       INTEGER NOT NULL,
	PRIMARY KEY(signer_fpr, target_fpr)
);
