#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The first load into a new store writes its pages once, in place (SQLite's
# rollback journal, which holds only the few pages the new store had; no
# -wal to be copied again by a checkpoint), and the store is in WAL mode
# once loaded.  A load killed (SIGKILL) in the middle:
#  - of a new store: leaves the longer file and its hot -journal, never a
#    half store: a read-only open (ksp wot stats, ksp-gpg through KSP_DB)
#    is refused with one line that names the -journal and how to roll it
#    back; that recipe, run verbatim, rolls it back to the empty store, and
#    loading again gives the store a load that was never killed gives;
#  - of a store that has keys (WAL): loses nothing that was stored.
. "$(dirname "$0")/test-lib.sh"

GEN=$TOP/tests/tools/gen-wot
command -v sqlite3 >/dev/null || { echo "FAIL T215: sqlite3 missing (Debian package sqlite3)"; exit 1; }
[ -x "$GEN" ] || { echo "FAIL T215: $GEN is not built (make tests)"; exit 1; }

# the content of a store: every table's rows, the random nonce left out
content() {
	local t
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'graph_state' ORDER BY name"); do
		printf '%s %s\n' "$t" "$(sqlite3 "$1" "SELECT * FROM \"$t\" ORDER BY rowid" | sha256sum | cut -c1-16)"
	done
	sqlite3 "$1" "SELECT gen FROM graph_state"
}
# bytes in a store and its -wal
size() { echo $(($(stat -c %s "$1" 2>/dev/null || echo 0) + $(stat -c %s "$1-wal" 2>/dev/null || echo 0))); }

# kill_mid_load DB KEYRING: start a load, SIGKILL it once DB (with its -wal)
# has grown by 4 MB (pages of the load on disk), while it still loads; the load's
# exit status in $killed_rc (137 when killed)
kill_mid_load() {
	$KSP -d "$1" wot load "$2" >/dev/null 2>"$TEST_TMP/kill.err" &
	local pid=$! base
	base=$(size "$1")
	for _ in $(seq 1 1200); do
		[ "$(size "$1")" -gt $((base + 4000000)) ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	killed_rc=$?
}

test_begin T215-keyring
"$GEN" --keys 6000 --seed t215 --mean-degree 8 --quiet -o ring.gpg
expect_eq "$?" 0 "gen-wot made a keyring"
"$GEN" --keys 300 --seed t215b --mean-degree 4 --quiet -o small.gpg
expect_eq "$?" 0 "gen-wot made a small keyring"
# a signature for ksp-gpg to check
echo "T215" >doc
gpg --batch --quiet --passphrase '' --quick-gen-key "T215 <t215@example.org>" ed25519 sign never 2>/dev/null
gpg --batch --quiet --detach-sign -o doc.sig doc 2>/dev/null
expect_eq "$([ -s doc.sig ] && echo signed)" signed "gpg made a signature"

# ---- a whole load into a new store ------------------------------------------
test_begin T215-whole
expect_code 0 $KSP -d ref.db wot load ring.gpg
expect_match "$OUT" "6000 keys"
expect_eq "$(sqlite3 ref.db 'PRAGMA journal_mode')" wal "a loaded store is in WAL mode"
expect_eq "$(ls -a | grep -c '^ref\.db-journal$')" 0 "no -journal left after the load"
expect_eq "$(sqlite3 ref.db 'PRAGMA integrity_check')" ok "the loaded store passes integrity_check"
ref=$(content ref.db)

# ---- killed in the middle of the load of a new store ------------------------
test_begin T215-new-killed
kill_mid_load new.db ring.gpg
expect_eq "$killed_rc" 137 "the first load was killed while it ran"
expect_eq "$([ -s new.db-journal ] && echo hot)" hot "a hot -journal is left beside the store"
expect_eq "$([ -s new.db-wal ] && echo wal)" "" "the new store's pages did not go through a -wal"
# read-only: refused, one line, naming the -journal and the way out
expect_code 2 $KSP -d new.db wot stats --structural
expect_eq "$(wc -l <"$ERR")" 1 "wot stats: one line on stderr"
expect_match "$ERR" "new\.db-journal holds a write not finished"
expect_eq "$(cat "$OUT")" "" "wot stats: nothing read from the half store"
# ksp-gpg opens the store as it is (immutable): refused too, never read
KSP_DB=$TEST_TMP/new.db expect_code 2 "$TOP/ksp-gpg" --status-fd=1 --verify doc.sig doc
expect_match "$OUT" "^\[GNUPG:\] ERRSIG "
expect_match "$ERR" "new\.db-journal holds a write not finished"
# the recipe of the message, verbatim
recipe=$(sed -n "s/.*roll the interrupted write back with: //p" "$ERR")
expect_eq "$recipe" "sqlite3 $TEST_TMP/new.db 'PRAGMA integrity_check'" "the message gives the recipe"
expect_eq "$(eval "$recipe")" ok "the recipe rolls the write back"
expect_eq "$(sqlite3 new.db 'SELECT count(*) FROM keys')" 0 "rolled back: the empty store it was"
expect_eq "$([ -s new.db-journal ] && echo hot)" "" "no -journal once rolled back"
expect_code 0 $KSP -d new.db wot load ring.gpg
expect_eq "$(content new.db)" "$ref" "loaded again: the same store as a load never killed"

# killed, then a read-write open first: it rolls back by itself
kill_mid_load new2.db ring.gpg
expect_eq "$killed_rc" 137 "the second load was killed while it ran"
expect_code 0 $KSP -d new2.db wot load ring.gpg
expect_eq "$(content new2.db)" "$ref" "a load after the kill: the same store"
expect_eq "$(sqlite3 new2.db 'PRAGMA journal_mode')" wal "and in WAL mode"

# ---- killed in the middle of a load into a store that has keys --------------
test_begin T215-old-killed
expect_code 0 $KSP -d old.db wot load small.gpg
before=$(content old.db)
kill_mid_load old.db ring.gpg
expect_eq "$killed_rc" 137 "the load into a store with keys was killed while it ran"
expect_eq "$(sqlite3 old.db 'PRAGMA integrity_check')" ok "the store passes integrity_check"
expect_eq "$(content old.db)" "$before" "nothing stored before is lost, nothing half added"

test_done
