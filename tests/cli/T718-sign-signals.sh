#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# party sign interrupted (issue 34): the staged outbox files of a run (two
# per user ID, complete messages) live in one private folder in the outbox
# that a signal removes whole, and that the next run sweeps after a
# SIGKILL.  Before, each file took a slot of a 32-slot clean-up table, so a
# signal after ~15 user IDs left *.eml.tmp.* files in the outbox for good.
# A key with 25 user IDs is signed; SIGTERM and SIGKILL come once more than
# 17 user IDs (34 files) are staged.
. "$(dirname "$0")/test-lib.sh"
test_begin T718-sign-signals
command -v gpg >/dev/null || { _test_fail "gpg is missing (Debian package gpg)"; test_done; }
command -v sqlite3 >/dev/null || { _test_fail "sqlite3 is missing (Debian package sqlite3)"; test_done; }
FX=$TOP/tests/keyrings
W=$TEST_TMP
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
check() { # MSG CMD...
	local msg=$1
	shift
	if "$@"; then _test_pass "$msg"; else _test_fail "$msg"; fi
}
# staged OUTBOX: the staged files (new: in .ksp-stage.*; old: *.tmp.*)
staged() { find "$1" \( -path '*/.ksp-stage.*' -o -name '*.tmp.*' \) -type f 2>/dev/null | wc -l; }
stagedirs() { find "$1" -maxdepth 1 -name '.ksp-stage.*' 2>/dev/null | wc -l; }
homes() { # MSG: every GnuPG home the runs made is gone
	if [ -z "$(ls -A "$TMPDIR")" ]; then _test_pass "$1: TMPDIR empty"; else
		_test_fail "$1: left in TMPDIR: $(ls -A "$TMPDIR" | tr '\n' ' ')"
	fi
}

# a key with 25 user IDs, made here
GK=$W/gk
mkdir -p "$GK" && chmod 700 "$GK"
gpg --homedir "$GK" --batch --quiet --passphrase '' --quick-gen-key "Many <many0@example.org>" ed25519 cert,sign 0 2>/dev/null
MF=$(gpg --homedir "$GK" --batch --with-colons --list-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
gpg --homedir "$GK" --batch --quiet --passphrase "" --quick-add-key "$MF" cv25519 encr 0 2>/dev/null
for i in $(seq 24); do
	gpg --homedir "$GK" --batch --quiet --passphrase '' --quick-add-uid "$MF" "Many $i <many$i@example.org>" 2>/dev/null
done
gpg --homedir "$GK" --batch --armor --export "$MF" >"$W/many.asc" 2>/dev/null
gpgconf --homedir "$GK" --kill all 2>/dev/null
expect_eq "$(gpg --homedir "$GK" --batch --with-colons --list-keys 2>/dev/null | grep -c '^uid')" 25 "the key has 25 user IDs"

# a closed party: p1 signs it
P=$W/party.db
$KSP_BIN -d "$P" party init --name "Signals" --date 2027-01-15 >/dev/null 2>&1
$KSP_BIN -d "$P" party add "$FX/party/p1-public.asc" "$W/many.asc" >/dev/null 2>&1
$KSP_BIN -d "$P" party close >/dev/null 2>&1
n=$(sqlite3 "$P" "SELECT p.ord FROM participants p JOIN keys k ON k.id = p.key_id WHERE k.fpr = '$MF'")
p1=$(sqlite3 "$P" "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id WHERE k.fpr <> '$MF'")
check "the party holds the key ($n) and p1" test -n "$n" -a -n "$p1"
SH=$W/sh
mkdir -p "$SH" && chmod 700 "$SH"
gpg --homedir "$SH" --batch --quiet --import "$FX/party/p1-secret.asc" 2>/dev/null
gpgconf --homedir "$SH" --kill all 2>/dev/null

# interrupt SIG OUTBOX: a party sign, SIG once 34 files are staged; its exit
# status in $rc, 0 when the run was over first
interrupt() {
	local sig=$1 ob=$2
	set -m
	$KSP_BIN -d "$W/s.db" party sign --as "$p1" --gnupg-home "$SH" --outbox "$ob" "$n" >/dev/null 2>&1 &
	kpid=$!
	for _ in $(seq 3000); do
		[ "$(find "$ob" -type f ! -name ksp-owner.pid 2>/dev/null | wc -l)" -ge 34 ] && break
		kill -0 $kpid 2>/dev/null || break
		sleep 0.01
	done
	kill -"$sig" $kpid 2>/dev/null
	{ wait $kpid; } 2>/dev/null
	rc=$?
	set +m
}

for sig in TERM KILL; do
	ob=$W/outbox-$sig
	hit=0
	for try in 1 2 3; do
		cp "$P" "$W/s.db"
		rm -rf "$ob" "$W/s.db-wal" "$W/s.db-shm"
		interrupt "$sig" "$ob"
		[ "$rc" = 0 ] && continue # too late: the run was over
		hit=1
		break
	done
	check "SIG$sig came in the middle of the run (exit $rc)" test "$hit" = 1
	[ "$hit" = 1 ] || continue
	if [ "$sig" = TERM ]; then
		expect_eq "$rc" 143 "SIGTERM: exit 143"
		expect_eq "$(staged "$ob")" 0 "SIGTERM: no staged file left in the outbox"
		expect_eq "$(stagedirs "$ob")" 0 "SIGTERM: no staging folder left"
	else
		expect_eq "$rc" 137 "SIGKILL: exit 137"
		check "SIGKILL: the staging folder is left (nothing can remove it)" test "$(stagedirs "$ob")" = 1
	fi
	expect_eq "$(find "$ob" -name '*.eml' ! -path '*/.ksp-stage.*' | wc -l)" 0 "SIG$sig: no message in the outbox (nothing was signed)"
	# the next run signs all, and sweeps what the killed one left
	expect_code 0 $KSP -d "$W/s.db" party sign --as "$p1" --gnupg-home "$SH" --outbox "$ob" "$n"
	expect_eq "$(staged "$ob")" 0 "SIG$sig, then a run: no staged file left"
	expect_eq "$(stagedirs "$ob")" 0 "SIG$sig, then a run: no staging folder left"
	expect_eq "$(find "$ob" -maxdepth 1 -name "$MF-*.eml" | wc -l)" 25 "SIG$sig, then a run: 25 messages"
	expect_eq "$(ls -A "$ob" | wc -l)" 50 "SIG$sig, then a run: 25 messages and 25 key copies, nothing else"
done
gpgconf --homedir "$SH" --kill all 2>/dev/null
# a killed run leaves its private GnuPG home; the next run swept it too
homes "after the runs"
test_done
