#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Keys from a keyserver (issue 36): a real SKS keyserver (Debian package
# sks) started by this test on 127.0.0.1, on a free port, with its own base
# folder, built from a dump of test keys.  An RSVP folder with one mail
# holding only a fingerprint: without a keyserver the other keys are
# added and the mail reported as a refused key (exit 1, --dry-run too);
# with --keyserver its key is fetched; 'party add --keyserver URL FPR'
# fetches by fingerprint what gpg --recv-keys gets from the same server;
# a fingerprint the server does not have is refused (exit 1).
. "$(dirname "$0")/test-lib.sh"
test_begin T427-party-keyserver

command -v sks >/dev/null 2>&1 || {
	_test_fail "sks is not installed (Debian package sks): apt-get install sks"
	test_done
}
W=$TEST_TMP
. "$TOP/tests/cli/party-homes.sh"
party_homes

for i in 1 2 3 4 5; do
	party_gen "$i"
	fv=F$i
	gpg --homedir "$GH/h$i" --batch --export "${!fv}" > "$W/p$i.pgp" 2>/dev/null
done

# ---- the keyserver: p2 and p3 on it (not p1, p4, p5) ------------------------
# (under the short folder: sks puts its control socket in its base folder)
B="$GH/sks"
mkdir -p "$B/dump" "$B/var/log/sks" "$B/var/run/sks" "$B/var/lib/sks"
cat "$W/p2.pgp" "$W/p3.pgp" > "$B/dump/keys.pgp"
(cd "$B" && sks build dump/keys.pgp -n 10 -cache 20 -basedir "$B" >"$B/build.out" 2>&1)
expect_eq "$?" 0 "sks build of the dump"
PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$B" && exec sks db -basedir "$B" -hkp_address 127.0.0.1 -hkp_port "$PORT" >"$B/db.out" 2>&1) &
pids+=($!)
up=
for _ in $(seq 1 100); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then up=1; break; fi
	sleep 0.1
done
expect_eq "$up" 1 "the keyserver listens on 127.0.0.1:$PORT"
KS="hkp://127.0.0.1:$PORT"
# the peer: gpg itself receives p3 from it
mkdir -m 700 "$W/peer"
homes+=("$W/peer")
gpg --homedir "$W/peer" --batch --keyserver "$KS" --recv-keys "$F3" >/dev/null 2>&1
expect_eq "$(gpg --homedir "$W/peer" --batch --with-colons --list-keys "$F3" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')" "$F3" \
	"gpg --recv-keys gets p3 from the test's keyserver"

# ---- an RSVP folder: two key files and a mail holding only p2's fingerprint --
mkdir "$W/rsvp"
cp "$W/p1.asc" "$W/rsvp/01-p1.asc"
printf 'From: P2 <p2@example.org>\nSubject: RSVP\n\nI will come. My key: %s\n' "$(echo "$F2" | sed 's/\(....\)/\1 /g')" >"$W/rsvp/02-p2.eml"
cp "$W/p4.asc" "$W/rsvp/03-p4.asc"
D="$W/party.db"
expect_code 0 $KSP -d "$D" party init --name "T427 Party" --date 2027-03-01
# without a keyserver: the others added, the mail a refused key, exit 1
expect_code 1 $KSP -d "$D" party add --dry-run "$W"/rsvp/*
expect_match "$ERR" "^would add 2, refuse 1; nothing stored\\.\$"
expect_code 1 $KSP -d "$D" party add "$W"/rsvp/*
expect_match "$OUT" "^     $F2  refused: .*02-p2.eml: a mail from P2 <p2@example.org> holding only a fingerprint, no key; fetch it with 'ksp party add --keyserver URL'"
expect_match "$OUT" "^#1   $F1 "
expect_match "$OUT" "^#2   $F4 "
expect_eq "$(sqlite3 "$D" 'SELECT count(*) FROM participants')" 2 "the two keys of the folder added"
# with the keyserver: the mail's key fetched and checked
expect_code 0 $KSP -d "$D" party add --keyserver "$KS" "$W/rsvp/02-p2.eml"
expect_match "$OUT" "^#3   $F2 "
# by fingerprint: what gpg received is what is added
expect_code 0 $KSP -d "$D" party add --keyserver "$KS" "$F3"
expect_match "$OUT" "^#4   $F3 "
expect_code 0 $KSP -d "$D" party list
expect_match "$OUT" "P3 <p3@example.org>"
# a fingerprint the keyserver does not have: refused, exit 1, the rest kept
expect_code 1 $KSP -d "$D" party add --keyserver "$KS" "$F5"
expect_match "$OUT" "^     $F5  refused: the keyserver hkp://127\\.0\\.0\\.1:$PORT does not have this key"
expect_eq "$(sqlite3 "$D" 'SELECT count(*) FROM participants')" 4 "four participants"
# bad input: a key ID, a URL that is not a keyserver's
expect_code 2 $KSP -d "$D" party add --keyserver "$KS" "${F5:24}"
expect_match "$ERR" "cannot read"
expect_code 2 $KSP -d "$D" party add --keyserver 'file:///etc/passwd' "$F5"
expect_match "$ERR" "not a keyserver URL"
# a registration CSV whose rows hold fingerprints only: the keys not in the
# files given come from the keyserver
printf 'name,email,fingerprint\nP1,p1@example.org,%s\nP2,p2@example.org,%s\nP3,p3@example.org,%s\n' "$F1" "$F2" "$F3" > "$W/reg.csv"
expect_code 0 $KSP -d "$W/csv.db" party init --name "T427 CSV" --date 2027-03-01
expect_code 0 $KSP -d "$W/csv.db" party add --keyserver "$KS" --csv "$W/reg.csv" "$W/p1.asc"
expect_eq "$(sqlite3 "$W/csv.db" 'SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$F1" "$F2" "$F3" | sort | tr '\n' ' ')" "the CSV's three keys: one from the file, two from the keyserver"
# a row whose name and address are not on the key it names: a warning, in
# the row's report (the key is checked and added as any other)
printf 'name,email,fingerprint\nMallory,mallory@evil.example,%s\nP1,P1@Example.org,%s\n' "$F4" "$F1" > "$W/mallory.csv"
expect_code 0 $KSP -d "$W/mal.db" party init --name "T427 Mallory" --date 2027-03-01
expect_code 0 $KSP -d "$W/mal.db" party add --csv "$W/mallory.csv" "$W/p4.asc" "$W/p1.asc"
expect_match "$OUT" "^     mismatch  .*mallory.csv:2: key $F4 found, but no user ID of it has the row's address or name \\(Mallory <mallory@evil.example>\\)"
expect_eq "$(grep -c mismatch "$OUT")" 1 "the row whose address is on the key (in another case) is no mismatch"

# a key served without user IDs (as keys.openpgp.org serves a key whose owner
# verified no address): one line.  Served by a minimal HKP responder (any
# request: the key without its user ID), as a keyserver that keeps such keys
gpg --homedir "$GH/h5" --batch --armor --export-filter keep-uid='uid = nobody@nowhere.invalid' --export "$F5" > "$W/p5-nouid.asc" 2>/dev/null
cat > "$W/hkp.py" <<'PY'
import http.server, socketserver, sys
key = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/pgp-keys")
        self.end_headers()
        self.wfile.write(key)
    def log_message(self, *a):
        pass
s = socketserver.TCPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.server_address[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
/usr/bin/python3 "$W/hkp.py" "$W/hkp.port" "$W/p5-nouid.asc" &
pids+=($!)
for _ in $(seq 1 50); do [ -s "$W/hkp.port" ] && break; sleep 0.1; done
expect_code 1 $KSP -d "$D" party add --keyserver "hkp://127.0.0.1:$(cat "$W/hkp.port")" "$F5"
expect_match "$OUT" "^     $F5  refused: the keyserver hkp://127\\.0\\.0\\.1:[0-9]+ has this key without a user ID \\(as keys\\.openpgp\\.org serves"
expect_eq "$(wc -l < "$OUT")" 1 "one line for it"

# a key whose encryption subkey merely expired: the owner can extend it
command -v faketime >/dev/null 2>&1 || _test_fail "faketime is not installed (Debian package faketime)"
mkdir -m 700 "$GH/h6"
homes+=("$GH/h6")
faketime '2020-01-01 12:00:00' gpg --homedir "$GH/h6" --batch --passphrase "" --quick-gen-key "P6 <p6@example.org>" ed25519 cert never >/dev/null 2>&1
F6=$(gpg --homedir "$GH/h6" --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
faketime '2020-01-01 12:00:00' gpg --homedir "$GH/h6" --batch --passphrase '' --quick-add-key "$F6" cv25519 encr 2020-06-01 >/dev/null 2>&1
gpg --homedir "$GH/h6" --batch --armor --export "$F6" > "$W/p6.asc" 2>/dev/null
expect_code 0 $KSP -d "$D" party add "$W/p6.asc"
expect_match "$OUT" "^#5   $F6  .*no usable encryption subkey: the subkey expired on 2020-06-01 \\(the owner can extend it: gpg --quick-set-expire"

# the dirmngr of ksp's private homes is stopped with them
expect_eq "$(pgrep -f "dirmngr.*$TMPDIR/ksp-gnupg" || true)" "" "no dirmngr left running"
expect_eq "$(ls "$TMPDIR" | grep -c ksp-gnupg)" 0 "no private GnuPG home left"

test_done
