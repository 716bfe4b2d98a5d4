#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reliability, round two (issue 21): outputs onto special files, gpg that
# stops reading or is killed, the store as hostile input, a stale graph
# snapshot after a backup is restored, real signals at random moments,
# super-linear and unbounded inputs, and escaping gaps.  The crafted inputs
# are made here by tests/tools/make-crafted.py; nothing is committed.
#
# Counts per attack class go to inputs.tsv for tests/fault/report.sh
# (docs/reliability.md).
. "$(dirname "$0")/test-lib.sh"
# fontconfig's and graphviz's own leaks when PDFs and graphs are drawn (see
# tests/keyrings/sheet/*.supp, graph/*.supp); LeakSanitizer reads one file
cat "$TOP/tests/keyrings/sheet/lsan.supp" "$TOP/tests/keyrings/graph/lsan.supp" >"$TEST_TMP/lsan.supp"
# print_suppressions=0: the summary of suppressed leaks would be a second
# stderr line where the checks want exactly one
export LSAN_OPTIONS="suppressions=$TEST_TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
test_begin T710-reliability2

FX=$TOP/tests/keyrings
TFX=$FX/trust
CR=$TEST_TMP/crafted
export TMPDIR=$TEST_TMP/tmp
mkdir -p "$TMPDIR" "$CR"
INPUTS=$TEST_TMP/inputs.tsv # "what<TAB>count" for tests/fault/report.sh
: >"$INPUTS"
python3 "$TOP/tests/tools/make-crafted.py" "$CR" || { _test_fail "make-crafted.py failed"; test_done; }

# one_line MSG REGEX: $ERR is exactly one line starting "ksp: " and matching
one_line() {
	if [ "$(wc -l <"$ERR")" = 1 ] && grep -qE "^ksp: .*$2" "$ERR"; then
		_test_pass "$1: one line /$2/"
	else
		_test_fail "$1: stderr is not one 'ksp: ' line matching /$2/"
		head -n 5 "$ERR" | cut -c1-200 | sed 's/^/    /'
	fi
}
check() { # MSG CMD...
	local msg=$1
	shift
	if "$@"; then _test_pass "$msg"; else _test_fail "$msg"; fi
}
tmp_empty() { # MSG: nothing left in TMPDIR (no private GnuPG home)
	if [ -z "$(ls -A "$TMPDIR")" ]; then _test_pass "$1: TMPDIR empty"; else
		_test_fail "$1: left in TMPDIR: $(ls -A "$TMPDIR" | tr '\n' ' ')"
		rm -rf "${TMPDIR:?}"/*
	fi
}
dumpsum() { sqlite3 "$1" .dump | sha256sum | cut -d' ' -f1; }
count() { printf '%s\t%s\n' "$1" "$2" >>"$INPUTS"; }

# a closed party of three
P=$TEST_TMP/party.db
$KSP_BIN -d "$P" party init --name "Round two" --date 2027-01-15 >/dev/null 2>&1
$KSP_BIN -d "$P" party add "$FX/party/p1-public.asc" "$FX/party/p2-public.asc" "$FX/party/p3-public.asc" >/dev/null 2>&1
$KSP_BIN -d "$P" party close >/dev/null 2>&1
expect_eq "$(sqlite3 "$P" 'SELECT state FROM party')" closed "the party store is closed"

# ---- 1. outputs onto special files ------------------------------------------
# Device nodes of our own (not /dev/null itself: a regression would replace
# the system's), a FIFO, a directory, a socket, /dev/stdout.
n=0
special=$TEST_TMP/special
mkdir -p "$special"
outputs=("party sheet -o" "party sheet --format html -o" "party sheet --format pdf -o" "party slips -o"
	"party digest -o" "party export -o" "graph --party -T svg -o")
if [ "$(id -u)" = 0 ] && mknod "$special/null" c 1 3 2>/dev/null && mknod "$special/full" c 1 7 2>/dev/null; then
	for o in "${outputs[@]}"; do
		# shellcheck disable=SC2086
		expect_code 0 $KSP -d "$P" $o "$special/null"
		check "$o NODE (/dev/null): still a character device" test -c "$special/null"
		# shellcheck disable=SC2086
		expect_code 2 $KSP -d "$P" $o "$special/full"
		one_line "$o NODE (/dev/full)" "full: cannot write.*No space left"
		check "$o NODE (/dev/full): still a character device" test -c "$special/full"
		n=$((n + 2))
	done
	expect_eq "$(ls -A "$special" | tr '\n' ' ')" "full null " "no temporary file beside the device nodes"
	# party close -o a device: the list is written after the commit
	cp "$P" "$TEST_TMP/reopen.db"
	$KSP_BIN -d "$TEST_TMP/reopen.db" party reopen --reason test >/dev/null 2>&1
	$KSP_BIN -d "$TEST_TMP/reopen.db" party remove 3 >/dev/null 2>&1 # a change: a new version to write
	expect_code 0 $KSP -d "$TEST_TMP/reopen.db" party close -o "$special/null"
	check "party close -o NODE: still a character device" test -c "$special/null"
	n=$((n + 1))
	rm -f "$special/null" "$special/full"
else
	echo "T710: skipping device nodes (not root or no mknod)"
fi
mkfifo "$special/fifo"
for o in "party sheet -o" "party export -o" "graph --party -T dot -o"; do
	cat "$special/fifo" >"$special/fifo.out" &
	reader=$!
	# shellcheck disable=SC2086
	expect_code 0 $KSP -d "$P" $o "$special/fifo"
	wait $reader
	check "$o FIFO: still a FIFO" test -p "$special/fifo"
	check "$o FIFO: the reader got it" test -s "$special/fifo.out"
	n=$((n + 1))
done
mkdir "$special/dir"
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$special/sock"
for o in "${outputs[@]}"; do
	# shellcheck disable=SC2086
	expect_code 2 $KSP -d "$P" $o "$special/dir"
	one_line "$o DIR" "dir: cannot write.*is a directory"
	# shellcheck disable=SC2086
	expect_code 2 $KSP -d "$P" $o "$special/sock"
	one_line "$o SOCKET" "sock: cannot write.*not a regular file, character device or FIFO"
	n=$((n + 2))
done
check "directory and socket left as they were" test -d "$special/dir" -a -S "$special/sock"
expect_eq "$(ls -A "$special" | LC_ALL=C sort | tr '\n' ' ')" "dir fifo fifo.out sock " "no temporary file left"
# /dev/stdout: written to, never replaced (a pipe, then a file)
$KSP -d "$P" party sheet -o /dev/stdout 2>"$ERR" | cat >"$TEST_TMP/via-pipe.txt"
check "party sheet -o /dev/stdout into a pipe" grep -q "Round two" "$TEST_TMP/via-pipe.txt"
$KSP -d "$P" party sheet -o /dev/stdout >"$TEST_TMP/via-file.txt" 2>"$ERR"
check "party sheet -o /dev/stdout into a file" grep -q "Round two" "$TEST_TMP/via-file.txt"
# a regular file is still replaced atomically
echo old >"$special/sheet.txt"
expect_code 0 $KSP -d "$P" party sheet -o "$special/sheet.txt"
check "a regular file is replaced" grep -q "Round two" "$special/sheet.txt"
n=$((n + 3))
count "special output files (device nodes, FIFO, directory, socket, /dev/stdout)" "$n"

# ---- 2. gpg that stops reading, gpg killed ----------------------------------
n=0
A=$TEST_TMP/add.db
$KSP_BIN -d "$A" party init --name "Adds" --date 2027-01-15 >/dev/null 2>&1
sum_a=$(dumpsum "$A")
# 2,500 BEGIN lines: gpg exits with 90 KB unread (gpgme polled for ever)
expect_code 2 timeout 120 $KSP -d "$A" party add "$CR/begin-2500.asc"
one_line "gpg stops reading" "begin-2500.asc: "
tmp_empty "gpg stops reading"
expect_eq "$(dumpsum "$A")" "$sum_a" "gpg stops reading: the store is unchanged"
n=$((n + 1))
# gpg killed in the middle of an import of 400 keys (SIGKILL to the gpg of
# this run only: found by its --homedir in our TMPDIR)
killed=0
for round in 1 2 3; do
	timeout 120 $KSP_BIN -d "$A" party add "$CR/many-keys.pgp" >"$OUT" 2>"$ERR" &
	kpid=$!
	gpid=""
	for _ in $(seq 500); do
		# the gpg importing into a home in our TMPDIR (no other process
		# has this path in its arguments)
		for p in $(pgrep -f -- "--homedir $TMPDIR/ksp-gnupg\\..* --import"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = gpg ] && gpid=$p
		done
		[ -n "$gpid" ] && break
		kill -0 $kpid 2>/dev/null || break
		sleep 0.01
	done
	if [ -n "$gpid" ]; then
		kill -KILL "$gpid" 2>/dev/null && killed=$((killed + 1))
	fi
	wait $kpid
	rc=$?
	if [ -n "$gpid" ]; then
		# killed before it was done: refused; done anyway: added
		if [ "$rc" = 2 ]; then
			one_line "gpg killed (round $round)" "many-keys.pgp: "
			expect_eq "$(dumpsum "$A")" "$sum_a" "gpg killed: the store is unchanged"
		else
			expect_eq "$rc" 0 "gpg killed after it was done: exit 0"
		fi
	fi
	tmp_empty "gpg killed (round $round)"
	n=$((n + 1))
	[ "$rc" = 0 ] && break
done
[ "$killed" -gt 0 ] || echo "T710: gpg finished before it could be killed (no kill counted)"
sum_a=$(dumpsum "$A")
count "gpg stops reading or is killed (party add)" "$n"

# ---- 3. the store as hostile input -------------------------------------------
n=0
W=$TEST_TMP/wot.db
$KSP_BIN -d "$W" wot load "$FX/several.gpg" >/dev/null 2>&1
sqlite3 "$W" 'PRAGMA journal_mode=DELETE' >/dev/null
expect_code 0 $KSP -d "$W" wot stats
# (a) index SQL read from sqlite_master and run by wot load: an ATTACH that
# writes a file, hidden in an edited index definition (certs emptied so that
# the indexes are dropped and made again)
cp "$W" "$TEST_TMP/h1.db"
sqlite3 "$TEST_TMP/h1.db" "DELETE FROM certs; PRAGMA writable_schema=ON;
  UPDATE sqlite_master SET sql='CREATE INDEX certs_issuer ON certs(issuer_keyid)' || char(59) ||
    ' ATTACH ''$TEST_TMP/pwned.db'' AS p' || char(59) || ' CREATE TABLE p.t(x)' WHERE name='certs_issuer';" 2>/dev/null
expect_code 2 $KSP -d "$TEST_TMP/h1.db" wot load "$FX/bob-ed25519.asc"
one_line "edited index SQL" "h1.db: "
check "edited index SQL: no file written through ATTACH" test ! -e "$TEST_TMP/pwned.db"
n=$((n + 1))
# (b) an extra trigger, view, table, index; a changed column; a changed trigger
hostile=("CREATE TRIGGER evil AFTER INSERT ON keys BEGIN DELETE FROM certs; END"
	"CREATE VIEW v AS SELECT 1"
	"CREATE TABLE extra(x)"
	"CREATE INDEX extra_idx ON keys(created)"
	"PRAGMA writable_schema=ON; UPDATE sqlite_master SET sql=replace(sql, 'source      TEXT', 'source      BLOB') WHERE name='keys'"
	"DROP TRIGGER graph_certs_ins; CREATE TRIGGER graph_certs_ins AFTER INSERT ON certs BEGIN SELECT 1; END")
for i in "${!hostile[@]}"; do
	cp "$W" "$TEST_TMP/h2.db"
	sqlite3 "$TEST_TMP/h2.db" "${hostile[$i]}" >/dev/null 2>&1
	for c in "wot stats" "wot load $FX/bob-ed25519.asc" "trust --core-fpr 0000000000000000000000000000000000000000 0000000000000000000000000000000000000000"; do
		# shellcheck disable=SC2086
		expect_code 2 $KSP -d "$TEST_TMP/h2.db" $c
		one_line "hostile schema $i: $c" "h2.db: the store's schema is not ksp's"
		n=$((n + 1))
	done
done
count "hostile stores (edited schema, SQL in sqlite_master)" "$n"

# ---- 4. a stale snapshot after a backup is restored --------------------------
n=0
f() { awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$TFX/keys.tsv"; }
S=$TEST_TMP/snap.db
$KSP_BIN -d "$S" wot load "$FX/several.asc" >/dev/null 2>&1
sqlite3 "$S" ".backup $TEST_TMP/backup.db"
$KSP_BIN -d "$S" wot load "$TFX/genuine.gpg" >/dev/null 2>&1
expect_code 0 $KSP -d "$S" trust --core-fpr "$(f fc)" --at 2024-06-01 "$(f ft)"
gen1=$(sqlite3 "$S" 'SELECT gen FROM graph_state')
check "the snapshot was saved" test -s "$S-wot"
# restored, and changed differently by as many rows: a forged certification
sqlite3 "$S" ".restore $TEST_TMP/backup.db"
$KSP_BIN -d "$S" wot load "$TFX/forged.gpg" >/dev/null 2>&1
expect_eq "$(sqlite3 "$S" 'SELECT gen FROM graph_state')" "$gen1" "the same gen as before the restore (the old staleness test's blind spot)"
expect_code 1 $KSP -d "$S" trust --core-fpr "$(f fc)" --at 2024-06-01 "$(f ft)"
check "after the restore: not trusted (the snapshot was rebuilt)" grep -q "not trusted" "$OUT"
# and back: restore, the genuine one again
sqlite3 "$S" ".restore $TEST_TMP/backup.db"
$KSP_BIN -d "$S" wot load "$TFX/genuine.gpg" >/dev/null 2>&1
expect_code 0 $KSP -d "$S" trust --core-fpr "$(f fc)" --at 2024-06-01 "$(f ft)"
n=$((n + 2))
count "stale graph snapshot after a backup restore" "$n"

# ---- 5. signals at random moments --------------------------------------------
n=0
G=$TEST_TMP/sig.db
$KSP_BIN -d "$G" party init --name "Signals" --date 2027-01-15 >/dev/null 2>&1
sum_g=$(dumpsum "$G")
# the participants of a whole add, for a signal that lands after its commit
sqlite3 "$G" ".backup $TEST_TMP/sig-full.db.base"
sqlite3 "$G" ".backup $TEST_TMP/sig-full.db"
$KSP_BIN -d "$TEST_TMP/sig-full.db" party add "$CR/many-keys.pgp" >/dev/null 2>&1
n_full=$(sqlite3 "$TEST_TMP/sig-full.db" 'SELECT count(*) FROM participants')
set -m # background jobs get SIGINT as in a terminal
sigs=(INT TERM HUP)
for i in $(seq 12); do
	sig=${sigs[$((i % 3))]}
	# each run adds to the party as it was (a whole earlier add would make
	# this one refuse every key as a duplicate)
	sqlite3 "$G" ".restore $TEST_TMP/sig-full.db.base"
	$KSP_BIN -d "$G" party add "$CR/many-keys.pgp" >/dev/null 2>&1 &
	kpid=$!
	# a random moment: once the private home exists, 0-400 ms later
	for _ in $(seq 300); do
		[ -n "$(ls -A "$TMPDIR")" ] && break
		kill -0 $kpid 2>/dev/null || break
		sleep 0.01
	done
	sleep "0.$((RANDOM % 400))"
	kill -"$sig" $kpid 2>/dev/null
	wait $kpid
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
	if [ "$rc" = "$want" ] && [ "$(dumpsum "$G")" != "$sum_g" ] &&
		[ "$(sqlite3 "$G" 'SELECT count(*) FROM participants')" = "$n_full" ] &&
		[ "$(sqlite3 "$G" 'PRAGMA integrity_check')" = ok ]; then
		# the signal came between the commit and the exit: the add is
		# whole (every key), never half
		_test_pass "SIG$sig: exit $rc after the commit, the add whole ($n_full participants)"
	elif [ "$rc" = "$want" ]; then
		_test_pass "SIG$sig: exit $rc"
		expect_eq "$(dumpsum "$G")" "$sum_g" "SIG$sig: the store is unchanged"
	elif [ "$rc" = 0 ]; then
		_test_pass "SIG$sig came after the add was done"
	else
		_test_fail "SIG$sig: exit $rc, expected $want (or 0 when too late)"
	fi
	tmp_empty "SIG$sig at a random moment ($i)"
	n=$((n + 1))
done
set +m
# SIGKILL leaves the home: the next run sweeps it (its process is gone)
$KSP_BIN -d "$G" party add "$CR/many-keys.pgp" >/dev/null 2>&1 &
kpid=$!
for _ in $(seq 300); do
	[ -n "$(ls -A "$TMPDIR")" ] && break
	sleep 0.01
done
kill -KILL $kpid 2>/dev/null
wait $kpid 2>/dev/null
if [ -n "$(ls -A "$TMPDIR")" ]; then
	expect_code 2 $KSP -d "$G" party add "$CR/secret-subkey.pgp" # refused before gpg: no home of its own
	expect_code 0 $KSP -d "$G" party add "$FX/party/p4-public.asc"
	tmp_empty "SIGKILL: the home left is swept by the next run"
	n=$((n + 1))
else
	echo "T710: the SIGKILLed run had no home yet (nothing to sweep)"
fi
# party sign interrupted: no staged .tmp file left in the outbox
SG=$TEST_TMP/sign
mkdir -p "$SG/gh" && chmod 700 "$SG/gh"
cp "$P" "$SG/s.db"
if gpg --homedir "$SG/gh" --batch --quiet --import "$FX/party/p1-secret.asc" 2>/dev/null; then
	gpgconf --homedir "$SG/gh" --kill all 2>/dev/null
	p1=$(sqlite3 "$SG/s.db" "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id WHERE p.ord = 1")
	set -m
	for i in 1 2 3 4; do
		cp "$P" "$SG/s.db"
		rm -rf "$SG/outbox" "$SG/s.db-wal" "$SG/s.db-shm"
		$KSP_BIN -d "$SG/s.db" party sign --as "$p1" --gnupg-home "$SG/gh" --outbox "$SG/outbox" 2 3 >/dev/null 2>&1 &
		kpid=$!
		sleep "0.$((RANDOM % 900))"
		kill -TERM $kpid 2>/dev/null
		wait $kpid
		rc=$?
		check "party sign, SIGTERM ($i): exit 143 or 0 (exit $rc)" test "$rc" = 143 -o "$rc" = 0
		left=$(find "$SG/outbox" \( -name '*.tmp.*' -o -name '.ksp-stage.*' \) 2>/dev/null | wc -l)
		expect_eq "$left" 0 "party sign, SIGTERM ($i): no staged .tmp file in the outbox"
		tmp_empty "party sign, SIGTERM ($i)"
		n=$((n + 1))
	done
	set +m
	gpgconf --homedir "$SG/gh" --kill all 2>/dev/null
fi
count "signals at random moments (SIGINT, SIGTERM, SIGHUP, SIGKILL)" "$n"

# ---- 6. super-linear and unbounded inputs -------------------------------------
n=0
U=$TEST_TMP/u.db
# 100,000 unterminated BEGIN lines (3.7 MB): 109 s with the quadratic scan,
# 0.2 s now; the timeout (300 times that) is a guard against the quadratic
# one coming back, not a measurement
for fname in unterminated.asc unterminated-hdr.asc; do
	expect_code 2 timeout 60 $KSP -d "$U" wot load "$CR/$fname"
	one_line "wot load $fname" "$fname: no OpenPGP key found"
	expect_code 2 timeout 60 $KSP -d "$U" wot stats --keyring "$CR/$fname"
	expect_code 2 timeout 60 $KSP -d "$A" party add "$CR/$fname"
	one_line "party add $fname" "$fname: "
	n=$((n + 3))
done
# streamed input: at most 256 MiB from a pipe or a device
expect_code 2 timeout 120 $KSP -d "$U" wot load /dev/zero
one_line "wot load /dev/zero" "/dev/zero: more than 256 MiB from a pipe or device"
head -c 300000000 /dev/zero | timeout 120 $KSP -d "$U" wot load - >"$OUT" 2>"$ERR"
expect_eq "$?" 2 "wot load of a 300 MB pipe: exit 2"
one_line "wot load of a 300 MB pipe" "more than 256 MiB from a pipe or device"
n=$((n + 2))
# limits per key in party add
expect_code 2 $KSP -d "$A" party add "$CR/many-uids.asc"
one_line "257 user IDs" "many-uids.asc: key 1 has more than 256 user IDs"
expect_code 2 $KSP -d "$A" party add "$CR/many-sigs.pgp"
one_line "20,001 signatures" "many-sigs.pgp: key 1 has more than 20000 signatures"
expect_eq "$(dumpsum "$A")" "$sum_a" "over the limits: the store is unchanged"
tmp_empty "limits"
n=$((n + 2))
count "super-linear and unbounded inputs" "$n"

# ---- 7. escaping gaps ------------------------------------------------------------
n=0
E=$TEST_TMP/esc.db
$KSP_BIN -d "$E" party init --name "Escapes" --date 2027-01-15 >/dev/null 2>&1
expect_code 0 $KSP -d "$E" party add "$CR/invisible.pgp"
expect_code 0 $KSP -d "$E" party list
for cp in '\\u\{2028\}' '\\u\{2029\}' '\\u\{00AD\}' '\\u\{2060\}' '\\u\{E0045\}' '\\u\{E007F\}'; do
	check "party list shows $cp escaped" grep -qE "$cp" "$OUT"
	n=$((n + 1))
done
check "party list: no raw U+2028, U+00AD, U+2060 or tag character" \
	python3 -c 'import sys; t=open(sys.argv[1], encoding="utf-8").read(); sys.exit(any(c in t for c in "\u2028\u2029\u00ad\u2060") or any(0xE0000 <= ord(c) <= 0xE007F for c in t))' "$OUT"
expect_code 0 $KSP -d "$E" --json party list
check "party list --json: no raw U+2028" \
	python3 -c 'import sys; t=open(sys.argv[1], encoding="utf-8").read(); sys.exit("\u2028" in t or "\u00ad" in t)' "$OUT"
# the PDF sheet: at most 3 combining marks on a letter (300 in the user ID)
$KSP_BIN -d "$E" party close >/dev/null 2>&1
expect_code 0 $KSP -d "$E" party sheet --format pdf -o "$TEST_TMP/esc.pdf"
pdftotext "$TEST_TMP/esc.pdf" "$TEST_TMP/esc.txt" 2>/dev/null
marks=$(python3 -c 'import sys,unicodedata; t=unicodedata.normalize("NFD", open(sys.argv[1], encoding="utf-8").read()); print(t.count("\u0301"))' "$TEST_TMP/esc.txt")
check "PDF sheet: the 300 combining marks capped at 3 ($marks drawn)" test "$marks" -ge 1 -a "$marks" -le 3
n=$((n + 3))
# file names from the command line: escaped in messages
expect_code 2 $KSP -d "$E" party add "$TEST_TMP/evil"$'\e]0;pwned\a\e[2J\xe2\x80\xae'".asc"
check "a file name with terminal escapes: no ESC, BEL or U+202E on stderr" \
	python3 -c 'import sys; t=open(sys.argv[1], "rb").read(); sys.exit(b"\x1b" in t or b"\x07" in t or "\u202e".encode() in t)' "$ERR"
check "... shown escaped" grep -qF 'evil\x1B]0;pwned\x07\x1B[2J\u{202E}.asc' "$ERR"
expect_code 2 $KSP -d "$TEST_TMP/no"$'\e[31m'"store.db" party list
check "a store name with an escape: no ESC on stderr" python3 -c 'import sys; sys.exit(b"\x1b" in open(sys.argv[1], "rb").read())' "$ERR"
n=$((n + 2))
# a secret subkey inside a public key file: the secret-material refusal
for fname in secret-subkey.pgp secret-subkey.asc; do
	expect_code 2 $KSP -d "$A" party add "$CR/$fname"
	one_line "$fname" "$fname: holds SECRET key material; refused"
	n=$((n + 1))
done
expect_eq "$(dumpsum "$A")" "$sum_a" "secret subkey: nothing stored"
count "escaping gaps (invisible characters, combining marks, file names, secret subkeys)" "$n"

tmp_empty "at the end"
{
	echo "T710-reliability2: $TEST_PASSED passed, $TEST_FAILED failed"
} >"$TEST_TMP/summary"
test_done
