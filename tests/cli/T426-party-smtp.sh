#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# 'party send --smtp URL' against an SMTP server this test starts on
# 127.0.0.1 (aiosmtpd, tests/cli/smtp-sink.py) that refuses one recipient
# with 550: that message is recorded as not sent with the server's reply
# (exit 1), the others as "accepted by 127.0.0.1", once; a second 'party
# send' does not send them again, '--again' does.  Run from another
# directory than 'party sign' (the ledger's paths are absolute).  AUTH
# with a password from a file; a password in the URL refused.
. "$(dirname "$0")/test-lib.sh"
test_begin T426-party-smtp

PY=/usr/bin/python3
$PY -c 'import aiosmtpd' 2>/dev/null || {
	_test_fail "python3-aiosmtpd is not installed (Debian package python3-aiosmtpd): apt-get install python3-aiosmtpd"
	test_done
}
W=$TEST_TMP
. "$TOP/tests/cli/party-homes.sh"
party_homes

# start_sink NAME [REFUSE...]: a server whose messages go to $W/NAME; its port in PORT
start_sink() {
	local name=$1
	shift
	mkdir -p "$W/$name"
	$PY "$TOP/tests/cli/smtp-sink.py" "$W/$name.port" "$W/$name" "$@" 2>"$W/$name.log" &
	pids+=($!)
	for _ in $(seq 1 100); do
		[ -s "$W/$name.port" ] && break
		sleep 0.1
	done
	PORT=$(cat "$W/$name.port" 2>/dev/null)
	[ -n "$PORT" ] || { _test_fail "the SMTP server did not start: $(cat "$W/$name.log")"; test_done; }
}

for i in 1 2 3 4; do party_gen "$i"; done

D="$W/party.db"
expect_code 0 $KSP -d "$D" party init --name "T426 Party" --date 2027-03-01
expect_code 0 $KSP -d "$D" party add "$W"/p{1,2,3,4}.asc
expect_code 0 $KSP -d "$D" party close
expect_code 0 $KSP -q -d "$D" party absent --none
mkdir "$W/signdir" "$W/elsewhere"
(cd "$W/signdir" && env GNUPGHOME="$GH/h1" $KSP -d "$D" party sign --as "$F1" --all-checked >/dev/null 2>&1)
expect_eq "$(ls "$W/signdir/ksp-outbox" | grep -c '\.eml$')" 3 "three messages in the outbox"

start_sink smtp p3@example.org
cd "$W/elsewhere"
# the refused recipient: not sent, the server's reply; the others accepted
expect_code 1 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT"
expect_eq "$(grep -c '^sent .*(accepted by 127\.0\.0\.1)$' "$OUT")" 2 "two messages accepted by the server"
expect_match "$OUT" "^NOT SENT .*ksp-outbox/.*p3@example\\.org\\.eml\$"
expect_match "$ERR" "p3@example\\.org\\.eml: 127\\.0\\.0\\.1 refused it: 550 5\\.1\\.1 <p3@example\\.org>: no such user here; not sent"
expect_match "$ERR" "^2 message\\(s\\) sent, 1 failed, 1 not sent yet\\.\$"
expect_eq "$(ls "$W/smtp" | grep -c '\.eml$')" 2 "the server holds two messages"
expect_eq "$(cat "$W"/smtp/*.env | sort | tr '\n' ' ')" \
	"from p1@example.org from p1@example.org to p2@example.org to p4@example.org " "the envelope is the message's From: and To:"
expect_match "$W/smtp/1.eml" "^Content-Type: multipart/encrypted"
expect_eq "$(sqlite3 "$D" "SELECT state || ':' || detail FROM deliveries ORDER BY id" | sort | uniq -c | sed 's/^ *//' | tr '\n' '|')" \
	"1 failed:127.0.0.1 refused it: 550 5.1.1 <p3@example.org>: no such user here|2 sent:accepted by 127.0.0.1|" \
	"the ledger: accepted by the host, or refused with the server's reply; never 'delivered'"
# a second run sends only the refused one (refused again), not the others
expect_code 1 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT"
expect_eq "$(grep -c '^sent ' "$OUT")" 0 "the accepted messages are not sent again"
expect_eq "$(ls "$W/smtp" | grep -c '\.eml$')" 2 "still two messages at the server"
expect_match "$ERR" "refused it: 550"
# --list says it
expect_code 1 $KSP -d "$D" party send --list
expect_match "$OUT" "sent before \\(accepted by 127\\.0\\.0\\.1\\)"
# --again: by number, by fingerprint; only those
expect_code 0 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT" --again 2
expect_eq "$(grep -c '^sent ' "$OUT")" 1 "--again 2: one message"
expect_match "$OUT" "^sent .*p2@example\\.org\\.eml \\(accepted by 127\\.0\\.0\\.1\\)\$"
expect_code 0 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT" --again "$F4"
expect_match "$OUT" "^sent .*p4@example\\.org\\.eml"
expect_eq "$(ls "$W/smtp" | grep -c '\.eml$')" 4 "the server got p2's and p4's messages again"
expect_eq "$(sqlite3 "$D" "SELECT max(attempts) FROM deliveries WHERE state = 'sent'")" 2 "the ledger counts the second attempt"
expect_code 2 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT" --again 9
expect_match "$ERR" "no message in the delivery ledger is for '9'"
# a Bcc: (party sign --bcc-self) is a recipient of the envelope, and not sent
m2=$(ls "$W"/signdir/ksp-outbox/*p2@example.org.eml)
sed -i '/^To: /i Bcc: p1@example.org' "$m2"
expect_code 0 $KSP -d "$D" party send --smtp "smtp://127.0.0.1:$PORT" --again "$(basename "$m2")"
expect_eq "$(cat "$W/smtp/5.env" | tr '\n' ' ')" "from p1@example.org to p1@example.org to p2@example.org " \
	"--again FILE: the envelope holds the Bcc: address too"
expect_eq "$(grep -c '^Bcc:' "$W/smtp/5.eml")" 0 "the Bcc: field is not sent"
expect_eq "$(grep -c '^To: ' "$W/smtp/5.eml")" 1 "the To: field is"

# the sendmail path from another directory: handed to the mailer, said so
printf '#!/bin/sh\ncat > "%s/mailer.$$"\n' "$W" > "$W/mailer"
chmod +x "$W/mailer"
expect_code 0 $KSP -d "$D" party send --sendmail "$W/mailer"
expect_match "$OUT" "^sent .*p3@example\\.org\\.eml \\(handed to the mailer\\)\$"
expect_eq "$(sqlite3 "$D" "SELECT detail FROM deliveries WHERE message_file LIKE '%p3@%'")" "handed to the mailer" \
	"the ledger says handed to the mailer"
expect_eq "$(sqlite3 "$D" "SELECT count(*) FROM deliveries WHERE message_file NOT LIKE '/%'")" 0 "the ledger's paths are absolute"

# ---- AUTH: the password from a file, never on the command line ------------
AUTH=ksp:s3cret start_sink auth
printf 's3cret\n' > "$W/pw"
expect_code 0 $KSP -d "$D" party send --smtp "smtp://ksp@127.0.0.1:$PORT" --smtp-password-file "$W/pw" --again 2
expect_match "$OUT" "accepted by 127\\.0\\.0\\.1"
expect_eq "$(ls "$W/auth" | grep -c '\.eml$')" 1 "the server that asks for AUTH took it"
expect_code 1 env KSP_SMTP_PASSWORD=wrong $KSP -d "$D" party send --smtp "smtp://ksp@127.0.0.1:$PORT" --again 2
expect_match "$ERR" "127\\.0\\.0\\.1 refused it: 535"
expect_code 2 $KSP -d "$D" party send --smtp "smtp://ksp:s3cret@127.0.0.1:$PORT" --again 2
expect_match "$ERR" "the SMTP URL holds a password"
expect_code 2 $KSP -d "$D" party send --smtp "http://127.0.0.1:$PORT"
expect_match "$ERR" "not an SMTP URL"

test_done
