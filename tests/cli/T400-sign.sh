#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# After the party, end to end: the organizer freezes a list of p1..p4, each
# participant signs the other three in its own GnuPG home (per user ID,
# encrypted), each recipient imports its .eml files in its own home, the
# organizer imports what they export, and 'party status' shows 100%.
# Then what must not happen: no unencrypted fallback (no address, no
# encryption subkey), no re-signing or double counting on a second run,
# no user keyring written to; and bad input (a tampered signature, a key
# outside the party, a message for someone else, 1000 junk mails).
. "$(dirname "$0")/test-lib.sh"
test_begin T400-sign

fx="$TOP/tests/keyrings"
W=$TEST_TMP
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"
UNUSED_HOME=$GNUPGHOME # the test's own home: must stay empty
homes=()
cleanup() {
	for h in "${homes[@]}"; do
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
	done
	_test_cleanup
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

mkdir -m 700 "$W/show"
homes+=("$W/show")
fpr_of() { gpg --homedir "$W/show" --batch --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
# mkhome NAME SECRET...: a participant's own GnuPG home with its secret key
mkhome() {
	local h="$W/$1"
	shift
	mkdir -m 700 "$h"
	homes+=("$h")
	echo allow-loopback-pinentry > "$h/gpg-agent.conf"
	for f in "$@"; do
		gpg --homedir "$h" --batch --pinentry-mode loopback --import "$f" >/dev/null 2>&1
	done
}
# certifications on keys of a home (any signature line)
sig_lines() { gpg --homedir "$1" --batch --with-colons --list-sigs 2>/dev/null | grep -c '^sig'; }
key_count() { gpg --homedir "$1" --batch --with-colons --list-keys 2>/dev/null | grep -c '^pub'; }
certs() { sqlite3 "$1" "SELECT count(*) FROM certs${2:+ WHERE $2}"; }
count_lines() { grep -cE -- "$2" "$1"; }
expect_tmp_clean() {
	expect_eq "$(ls -A "$TMPDIR")" "" "no temporary GnuPG home left after $1"
}

for i in 1 2 3 4; do
	eval "F$i=\$(fpr_of \"\$fx/party/p$i-public.asc\")"
done
FIVAN=$(fpr_of "$fx/sign/ivan-noenc.asc")
FJUDY=$(fpr_of "$fx/sign/judy-mixed.asc")
FHEIDI=$(fpr_of "$fx/heidi-noemail.asc")
FALICE=$(fpr_of "$fx/alice-rsa.asc")
expect_eq "${#F1}${#F2}${#F3}${#F4}${#FIVAN}${#FJUDY}" "404040404040" "fixture fingerprints read"

# ---- the organizer -------------------------------------------------------
O="$W/organizer.db"
expect_code 0 $KSP -d "$O" party init --name "T400 party" --date 2027-01-15
expect_code 0 $KSP -d "$O" party add "$fx"/party/p{1,2,3,4}-public.asc
cp "$O" "$W/early.db"
expect_code 0 $KSP -d "$O" party close -o "$W/list.txt"
cp "$O" "$W/fresh.db" # the frozen party, no certification yet

for i in 1 2 3 4; do
	mkhome "h$i" "$fx/party/p$i-secret.asc"
	cp "$O" "$W/s$i.db"
done
before_sigs=$(sig_lines "$W/h1")
expect_eq "$(key_count "$W/h1")" 1 "p1's home holds only p1"

mkhome h1x "$fx/party/p1-secret.asc"
expect_code 2 env GNUPGHOME="$W/h1x" $KSP -d "$W/early.db" party sign --as "$F1" 2
expect_match "$ERR" "never frozen"

# ---- each participant signs the other three -------------------------------
for i in 1 2 3 4; do
	eval "me=\$F$i"
	expect_code 0 $KSP -q -d "$W/s$i.db" party absent --none # everyone came
	expect_code 0 env GNUPGHOME="$W/h$i" $KSP -d "$W/s$i.db" party sign --as "$me" --all-checked --outbox "$W/out$i"
	cp "$OUT" "$W/sign$i.out"
	expect_tmp_clean "party sign by p$i"
done
expect_eq "$(count_lines "$W/sign1.out" '^     signed ')" 4 "p1 signed 4 user IDs (p2 has two)"
expect_eq "$(count_lines "$W/sign2.out" '^     signed ')" 3 "p2 signed 3 user IDs"
expect_match "$W/sign1.out" "^     signed   P2 Second INSECURE <p2b@example.org>$"
expect_match "$W/sign1.out" "^              $W/out1/$F2-2-p2b@example.org.eml$"
expect_eq "$(ls "$W/out1" | wc -l)" 8 "p1's outbox: 4 .eml + 4 .asc"
cp "$W/out1/$F2-1-p2@example.org.eml" "$W/p2-1-first.eml"
m="$W/out1/$F2-2-p2b@example.org.eml"
expect_match "$m" '^To: p2b@example.org$'
expect_match "$m" '^From: P1 INSECURE <p1@example.org>$'
expect_match "$m" '^Content-Type: multipart/encrypted; protocol="application/pgp-encrypted";$'
expect_match "$m" '^Content-Type: application/pgp-encrypted$'
expect_match "$m" '^-----BEGIN PGP MESSAGE-----$'
expect_match "$W/out1/$F2-2-p2b@example.org.asc" '^-----BEGIN PGP MESSAGE-----$'
expect_eq "$(grep -l 'PUBLIC KEY BLOCK' "$W"/out*/* | wc -l)" 0 "no plaintext key in any outbox"
expect_eq "$(sqlite3 "$W/s1.db" "SELECT count(*) FROM signed WHERE signer_fpr = '$F1'")" 4 "store records p1's 4 signatures"
expect_eq "$(sqlite3 "$W/s1.db" "SELECT outbox_file FROM signed WHERE uid = CAST('P2 Second INSECURE <p2b@example.org>' AS BLOB)")" \
	"$W/out1/$F2-2-p2b@example.org.eml" "store records the outbox file"
expect_eq "$(sqlite3 "$W/s1.db" "SELECT DISTINCT level FROM signed")" 0 "default level 0"
# the user's own keyring: no new signature, not even the other keys
expect_eq "$(sig_lines "$W/h1")" "$before_sigs" "p1's home has no new signature"
expect_eq "$(key_count "$W/h1")" 1 "p1's home still holds only p1"
# the recipient decrypts with its own key, in its own home: p2's key with only that UID
gpg --homedir "$W/h2" --batch -d "$W/out1/$F2-2-p2b@example.org.asc" 2>/dev/null > "$W/p2b-from-p1.asc"
gpg --homedir "$W/show" --batch --with-colons --show-keys "$W/p2b-from-p1.asc" 2>/dev/null > "$W/p2b.colons"
expect_eq "$(grep -c '^uid' "$W/p2b.colons")" 1 "the returned copy holds one user ID"
expect_match "$W/p2b.colons" '^uid:.*P2 Second INSECURE <p2b@example.org>'
expect_eq "$(gpg --homedir "$W/h3" --batch -d "$W/out1/$F2-2-p2b@example.org.asc" 2>/dev/null | wc -c)" 0 "p3 cannot decrypt p2's message"

# second run: nothing re-signed, the outbox unchanged
sums=$(cd "$W/out1" && md5sum * | md5sum)
expect_code 0 env GNUPGHOME="$W/h1" $KSP -d "$W/s1.db" party sign --as "$F1" --all-checked --outbox "$W/out1"
expect_eq "$(count_lines "$OUT" '^     already ')" 4 "second run: 4 already signed"
expect_eq "$(count_lines "$OUT" '^     signed ')" 0 "second run: nothing signed"
expect_match "$ERR" '^0 user ID\(s\) signed, 4 signed before, 0 skipped, 0 key\(s\) refused\.$'
expect_eq "$(cd "$W/out1" && md5sum * | md5sum)" "$sums" "second run leaves the outbox as it was"

# ---- each recipient imports its messages; the organizer imports the exports
for i in 1 2 3 4; do
	eval "me=\$F$i"
	expect_code 0 env GNUPGHOME="$W/h$i" $KSP -d "$W/s$i.db" import "$W"/out*/"$me"-*.eml
	cp "$OUT" "$W/import$i.out"
	expect_tmp_clean "import by p$i"
done
expect_match "$W/import2.out" '^new       #1 certified #2 "P2 Second INSECURE <p2b@example.org>"$'
expect_match "$W/import2.out" '^new       #4 certified #2 "P2 INSECURE <p2@example.org>"$'
expect_match "$W/import2.out" '^6 new certification\(s\), 0 duplicate\(s\), 0 kept but not counted, 0 bad, 0 skipped\.$'
expect_match "$W/import3.out" '^3 new certification\(s\), 0 duplicate'
expect_eq "$(certs "$W/s2.db" 'verified = 1')" 6 "p2's store: 6 verified certifications"
# second import: nothing new
expect_code 0 env GNUPGHOME="$W/h2" $KSP -d "$W/s2.db" import "$W"/out*/"$F2"-*.eml
expect_match "$OUT" '^0 new certification\(s\), 6 duplicate\(s\)'
expect_eq "$(certs "$W/s2.db")" 6 "second import stores nothing"
# p1's own store: its signatures signed but not handed to a mailer (the
# test carried the files), the others' on p1 back
expect_code 0 $KSP -d "$W/s1.db" party status
expect_match "$OUT" '^   #1    -   w   w   w$'
expect_match "$OUT" '^   #2    \+   -   \.   \.$'

mkdir "$W/returned"
for i in 1 2 3 4; do
	expect_code 0 $KSP -d "$W/s$i.db" party export -o "$W/returned/p$i.asc"
done
expect_code 0 $KSP -d "$O" import "$W/returned"
expect_match "$OUT" '^15 new certification\(s\), 0 duplicate\(s\), 0 kept but not counted, 0 bad, 0 skipped\.$'
expect_code 0 $KSP -d "$O" import "$W/returned"
expect_match "$OUT" '^0 new certification\(s\), 15 duplicate\(s\)'

expect_code 0 $KSP -d "$O" party status
cat > "$W/want-status" <<EOF
T400 party, 2027-01-15: 4 participant(s), 5 user ID(s) with an address
Certifications: 15 of 15 (100.0%)
EOF
expect_eq "$(head -2 "$OUT")" "$(cat "$W/want-status")" "status header: 100%"
cat > "$W/want-matrix" <<EOF
        #1  #2  #3  #4
   #1    -   +   +   +
   #2    +   -   +   +
   #3    +   +   -   +
   #4    +   +   +   -
EOF
expect_eq "$(tail -5 "$OUT")" "$(cat "$W/want-matrix")" "the whole matrix"
expect_eq "$(grep -A1 '^     P2 Second INSECURE <p2b@example.org>$' "$OUT" | tail -1)" "       certified by   #1 #3 #4" "gpgsigs-style list"
expect_eq "$(awk 'length > 80' "$OUT" | wc -l)" 0 "status fits 80 columns"
expect_code 0 $KSP -d "$O" party status --missing
expect_match "$OUT" '^Nothing is missing\.$'
expect_code 0 $KSP -d "$O" party status --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["done"] == 15 and d["total"] == 15 and d["percent"] == 100.0, d
assert [m["keys"] for m in d["matrix"]] == [["self","done","done","done"],["done","self","done","done"],["done","done","self","done"],["done","done","done","self"]]
assert d["participants"][1]["uids"][1]["certified_by"] == [1,3,4]
assert d["missing"] == []' "$OUT" && _test_pass "status --json" || _test_fail "status --json"

# the organizer's keyring to publish: gpg finds 15 good third-party certifications
expect_code 0 $KSP -d "$O" party export -o "$W/party.asc"
mkdir -m 700 "$W/pub"
homes+=("$W/pub")
gpg --homedir "$W/pub" --batch --import "$W/party.asc" >/dev/null 2>&1
gpg --homedir "$W/pub" --batch --with-colons --check-sigs 2>/dev/null > "$W/pub.colons"
expect_eq "$(awk -F: '$1=="pub"{k=$5} $1=="sig" && $5!=k && $2=="!"{n++} END{print n+0}' "$W/pub.colons")" 15 "gpg: 15 good certifications"
expect_eq "$(awk -F: '$1=="sig" && $2=="-"' "$W/pub.colons" | wc -l)" 0 "gpg: no bad signature"
expect_code 0 $KSP -d "$O" party export --signed-only --binary -o "$W/party.gpg"
expect_eq "$(head -c 1 "$W/party.gpg" | xxd -p)" "c6" "binary export starts with a key packet"

# p2's store after a partial import: --missing lists who has to be reminded
expect_code 0 $KSP -d "$W/s3.db" party status --missing
expect_match "$OUT" '^Certifications: 3 of 15 \(20\.0%\)$'
expect_match "$OUT" '^#2   .* has not certified:$'
expect_match "$OUT" '^     remind P2 INSECURE <p2@example.org>$'
expect_match "$OUT" '^     #4   P4 INSECURE <p4@example.org>$'
expect_match "$OUT" '^     #1   P1 INSECURE <p1@example.org>  \(signed, not sent yet: ksp party send\)$'
expect_code 0 $KSP -d "$O" party status --for 2
expect_match "$OUT" '^       certified      #1 #3 #4$'
expect_code 2 $KSP -d "$O" party status --for 9

# ---- --force, --sendmail, --keep -------------------------------------------
cat > "$W/fake-sendmail" <<EOF
#!/bin/sh
n=\$(ls "$W/sent" | wc -l)
cat > "$W/sent/\$n.eml"
EOF
chmod +x "$W/fake-sendmail"
mkdir "$W/sent"
expect_code 0 env GNUPGHOME="$W/h1" $KSP -d "$W/s1.db" party sign --as "$F1" --force --sendmail "$W/fake-sendmail" --outbox "$W/out1" 2
expect_eq "$(count_lines "$OUT" '^sent ')" 4 "--force signs p2's two user IDs again, --sendmail sends both and the two messages the first run left unsent"
expect_eq "$(cat "$W/sent"/*.eml | grep -c '^To: p2b\?@example.org$')" 2 "the mailer got both messages"
[ "$(cd "$W/out1" && md5sum * | md5sum)" != "$sums" ] && _test_pass "--force rewrote the outbox" || _test_fail "--force rewrote the outbox"
expect_eq "$(sig_lines "$W/h1")" "$before_sigs" "p1's home still has no new signature"
printf '#!/bin/sh\nexit 3\n' > "$W/failing-sendmail"
chmod +x "$W/failing-sendmail"
expect_code 1 env GNUPGHOME="$W/h1" $KSP -d "$W/s1.db" party sign --as "$F1" --force --sendmail "$W/failing-sendmail" --outbox "$W/out1" 3
expect_match "$ERR" "the mailer exited with status 3; not sent, run .ksp party send. to send it again"
# the ledger: the failed message is sent again by 'party send', signed once
expect_eq "$(sqlite3 "$W/s1.db" "SELECT state || ' ' || mailer_status FROM deliveries d JOIN signed s ON s.id = d.signed_id JOIN keys k ON k.id = s.key_id WHERE k.fpr = '$F3'")" "failed 3" "the ledger records the failure and the mailer's status"
rows=$(sqlite3 "$W/s1.db" "SELECT count(*), max(time) FROM signed")
expect_code 0 $KSP -d "$W/s1.db" party send --sendmail "$W/fake-sendmail"
expect_eq "$(count_lines "$OUT" '^sent ')" 1 "party send: the one message the mailer failed on"
expect_eq "$(sqlite3 "$W/s1.db" "SELECT count(*), max(time) FROM signed")" "$rows" "party send signs nothing"
expect_code 0 $KSP -d "$W/s1.db" party send --sendmail "$W/failing-sendmail"
expect_eq "$(count_lines "$OUT" '^sent ')" 0 "party send again: nothing due"

# all or nothing: when one outbox file cannot be written (a directory in
# its place is refused before anything is placed, issue 21), the run
# changes nothing: the rows as before, the earlier files restored, no
# temporary file left
snap() { sqlite3 "$W/s1.db" "SELECT hex(key_id), hex(uid), time, level, outbox_file FROM signed ORDER BY 1, 2; SELECT count(*) FROM events"; }
rows=$(snap)
blocked=$(ls "$W/out1"/"$F3"-1-*.asc)
mv "$blocked" "$W/blocked.asc"
mkdir "$blocked" && touch "$blocked/x"
sums=$(cd "$W/out1" && md5sum -- *.eml *.asc 2>/dev/null | md5sum)
expect_code 2 env GNUPGHOME="$W/h1" $KSP -d "$W/s1.db" party sign --as "$F1" --force --outbox "$W/out1" 2 3
expect_match "$ERR" "^ksp: .*$F3-1-.*\.asc: (cannot put into place|cannot write): .*; nothing was signed"
expect_eq "$(snap)" "$rows" "a failed run leaves the signed rows and events as they were"
expect_eq "$(cd "$W/out1" && md5sum -- *.eml *.asc 2>/dev/null | md5sum)" "$sums" "a failed run restores the files it had replaced"
expect_eq "$(ls -A "$W/out1" | grep -c tmp)" 0 "a failed run leaves no temporary file in the outbox"
rm -r "$blocked" && mv "$W/blocked.asc" "$blocked"

mkhome h1k "$fx/party/p1-secret.asc"
cp "$W/fresh.db" "$W/keep.db"
expect_code 0 env GNUPGHOME="$W/h1k" $KSP -d "$W/keep.db" party sign --as "$F1" --keep --level 2 --outbox "$W/outk" 3
p1kid=${F1:24}
expect_eq "$(gpg --homedir "$W/h1k" --batch --with-colons --check-sigs "$F3" 2>/dev/null | awk -F: -v k="$p1kid" '$1=="sig" && $5==k && $2=="!" {print $11}')" "12x" "--keep: p3 signed by p1 in p1's home, level 2 (0x12)"

# ---- no unencrypted fallback: no address, no encryption subkey --------------
K="$W/skip.db"
expect_code 0 $KSP -d "$K" party init --name "Skip party" --date 2027-01-15
expect_code 0 $KSP -d "$K" party add "$fx/party/p1-public.asc" "$fx/party/p2-public.asc" "$fx/sign/judy-mixed.asc" "$fx/sign/ivan-noenc.asc" "$fx/dave-escape.asc"
expect_code 0 $KSP -d "$K" party add --allow-no-email "$fx/heidi-noemail.asc"
expect_code 0 $KSP -d "$K" party close
cp "$K" "$W/skip2.db"
expect_code 0 $KSP -q -d "$K" party absent --none
expect_code 0 env GNUPGHOME="$W/h1" $KSP -d "$K" party sign --as "$F1" --all-checked --outbox "$W/outs"
cp "$OUT" "$W/skip.out"
expect_match "$W/skip.out" '^     skipped  Ivan NoEnc INSECURE <ivan@example.org>$'
expect_match "$W/skip.out" '^              skipped: no encryption subkey; never sent unencrypted$'
expect_match "$W/skip.out" '^              skipped: no user ID of this key has an address to send the certification to$'
expect_match "$W/skip.out" '^     skipped  Heidi No Email INSECURE$'
# a user ID without an address is certified and travels with the key's
# addressed user IDs (as caff does), encrypted to the key like them
expect_match "$W/skip.out" '^     signed   Judy No Address INSECURE$'
expect_eq "$(grep -c "^              $W/outs/$FJUDY-1-judy@example.org.eml$" "$W/skip.out")" 2 \
	"judy's user ID without an address goes in the message to her address"
expect_match "$W/skip.out" '^     signed   Judy INSECURE <judy@example.org>$'
expect_match "$W/skip.out" '^     signed   Dave \\x1B\[31mRED\\x1B\[0m \\u\{202E\} INSECURE <dave@example.org>$'
if grep -q $'\x1b' "$W/skip.out"; then _test_fail "raw escape in sign output"; else _test_pass "UIDs escaped in sign output"; fi
expect_match "$W/skip.out" '^     signed   <script>alert\(1\)</script> INSECURE <dave2@example.org>$'
expect_match "$W/skip.out" "^              $W/outs/[0-9A-F]{40}-2-dave2@example.org.eml$"
expect_match "$ERR" '^6 user ID\(s\) signed, 0 signed before, 2 skipped, 0 key\(s\) refused\.$'
expect_eq "$(ls "$W/outs" | grep -c -e "$FIVAN" -e "$FHEIDI")" 0 "nothing written for ivan and heidi"
expect_eq "$(ls "$W/outs" | grep -c "$FJUDY")" 2 "judy: one message, to the user ID with an address (.eml + .asc)"
expect_eq "$(ls "$W/outs" | wc -l)" 10 "5 messages in the outbox (.eml + .asc)"
expect_eq "$(sqlite3 "$K" 'SELECT count(*) FROM signed')" 6 "6 signatures recorded"
expect_eq "$(sqlite3 "$K" 'SELECT count(*) FROM deliveries')" 5 "5 messages in the ledger, each once"
expect_code 0 $KSP -d "$K" party status
if grep -q $'\x1b' "$OUT"; then _test_fail "raw escape in status"; else _test_pass "UIDs escaped in status"; fi
# ivan's key has no encryption subkey: its own mark, out of the totals and reminders
expect_match "$OUT" '^   #1    -   w   w   x   w '
# heidi's key has no user ID with an address: nobody certified it, and the
# matrix says so ('x', not '+' for "all of none certified")
expect_match "$OUT" '^   #1    -   w   w   x   w   x$'
expect_match "$OUT" '^   #2    \.   -   \.   x   \.   x$'
expect_match "$OUT" '^     Heidi No Email INSECURE$'
expect_match "$OUT" '^     \(no user ID with an e-mail address: certifications cannot be sent to it; not counted\)$'
expect_match "$OUT" '^     \(no encryption subkey: certifications cannot be sent to it; not counted\)$'
expect_code 0 $KSP -d "$K" party status --missing --for 2
if grep -q 'Ivan' "$OUT"; then _test_fail "no reminder for a key nothing can be sent to"; else _test_pass "no reminder for a key nothing can be sent to"; fi

# refusals: not on the list, short key IDs, a number not on the list, a changed key
expect_code 1 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" party sign --as "$F1" --outbox "$W/outs2" "$FALICE" 9
expect_match "$OUT" 'refused: not on the frozen list \(version 1\)'
expect_match "$OUT" 'refused: there is no number 9 on the frozen list'
expect_code 2 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" party sign --as "$F1" --outbox "$W/outs2" "${F2:32}"
expect_match "$ERR" 'key IDs are not accepted'
expect_code 2 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" party sign --as "${F1:24}" --outbox "$W/outs2" 2
gpg --homedir "$W/show" --dearmor < "$fx/bob-ed25519.asc" > "$W/bob.gpg"
sqlite3 "$W/skip2.db" "UPDATE keys SET keydata = readfile('$W/bob.gpg') WHERE fpr = '$F2'"
expect_code 1 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" party sign --as "$F1" --outbox "$W/outs2" 2
expect_match "$OUT" "refused: the key in the store is [0-9A-F]{40}, not $F2 of the frozen list"
expect_eq "$(ls "$W/outs2" 2>/dev/null | wc -l)" 0 "nothing written for refused keys"
expect_code 2 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" party sign --as "$F3" --outbox "$W/outs2" 2
expect_match "$ERR" "h1: no key $F3 in this GnuPG home"
mkhome hpub "$fx/party/p3-public.asc"
expect_code 2 env GNUPGHOME="$W/hpub" $KSP -d "$W/skip2.db" party sign --as "$F3" --outbox "$W/outs2" 2
expect_match "$ERR" "hpub: the secret key of $F3 is not in private-keys-v1.d"
expect_code 0 env GNUPGHOME="$W/h1" $KSP -d "$W/skip2.db" --json party sign --as "$F1" --outbox "$W/outs3" 3
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert d["signed"] == 2 and len(r) == 2 and r[0]["status"] == "signed" and r[0]["email"] == "judy@example.org", d
assert r[1]["status"] == "signed" and r[1]["uid"] == "Judy No Address INSECURE" and r[1]["email"] is None, d
assert r[1]["eml"] == r[0]["eml"], d' "$OUT" \
	&& _test_pass "sign --json" || _test_fail "sign --json"

# ---- bad input to import; the store keeps what it had ----------------------
S2="$W/s2.db"
c0=$(certs "$S2")
# a tampered returned key: one octet of p1's signature flipped
gpg --homedir "$W/h2" --batch -d "$W/out1/$F2-1-p2@example.org.asc" 2>/dev/null | gpg --homedir "$W/show" --dearmor > "$W/p2-from-p1.gpg"
python3 - "$W/p2-from-p1.gpg" "$W/tampered.gpg" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
pos, pk = 0, []
while pos < len(d):
    h = d[pos]
    if h & 0x40:
        tag, l = h & 0x3f, d[pos + 1]
        if l < 192: hl, bl = 2, l
        elif l < 224: hl, bl = 3, ((l - 192) << 8) + d[pos + 2] + 192
        else: hl, bl = 6, int.from_bytes(d[pos + 2:pos + 6], "big")
    else:
        tag, n = (h >> 2) & 0xf, [1, 2, 4][h & 3]
        hl, bl = 1 + n, int.from_bytes(d[pos + 1:pos + 1 + n], "big")
    pk.append((tag, pos, hl, bl))
    pos += hl + bl
i = [k for k, p in enumerate(pk) if p[0] == 14][0]
tag, p, hl, bl = pk[i - 1]  # the certification just before the subkey
assert tag == 2
d[p + hl + bl - 3] ^= 1
open(sys.argv[2], "wb").write(d)
EOF
cp "$W/fresh.db" "$W/t.db"
expect_code 1 $KSP -d "$W/t.db" import "$W/tampered.gpg"
expect_match "$ERR" "certification by #1 on #2 \"P2 INSECURE <p2@example.org>\": the signature does not verify \(tampered or damaged\); not imported"
expect_match "$OUT" '^0 new certification\(s\), 0 duplicate\(s\), 0 kept but not counted, 1 bad, 0 skipped\.$'
expect_eq "$(certs "$W/t.db")" 0 "the tampered certification is not stored"
expect_code 1 $KSP -d "$S2" import "$W/tampered.gpg"
expect_code 0 $KSP -d "$W/t.db" import "$W/p2-from-p1.gpg"
expect_match "$OUT" '^1 new certification'
# a certification on a key that is not in the party; one by a key outside it
mkhome hx "$fx/party/p1-secret.asc" "$fx/alice-secret.asc"
gpg --homedir "$W/hx" --batch --import "$fx/party/p2-public.asc" >/dev/null 2>&1
gpg --homedir "$W/hx" --batch --yes --pinentry-mode loopback -u "$F1" --quick-sign-key "$FALICE" >/dev/null 2>&1
gpg --homedir "$W/hx" --batch --yes --pinentry-mode loopback -u "$FALICE" --quick-sign-key "$F2" >/dev/null 2>&1
gpg --homedir "$W/hx" --batch --armor --export "$FALICE" > "$W/alice-signed.asc"
gpg --homedir "$W/hx" --batch --armor --export "$F2" > "$W/p2-by-alice.asc"
expect_code 1 $KSP -d "$S2" import "$W/alice-signed.asc"
expect_match "$ERR" "key $FALICE: the key is not on the party's list; its 2 certification\(s\) were not imported"
expect_code 0 $KSP -d "$S2" import "$W/p2-by-alice.asc"
expect_match "$OUT" "^kept      $FALICE certified #2 \"P2 INSECURE <p2@example.org>\": by a key outside the party"
expect_match "$OUT" '^0 new certification\(s\), 0 duplicate\(s\), 2 kept but not counted, 0 bad, 0 skipped\.$'
expect_eq "$(certs "$S2" "verified = 4")" 2 "kept, flagged as issuer unknown"
# a v6 issuer (the RFC 9580 sample key, not in the store): its key ID is the
# FRONT of the fingerprint, never the end as for v4
V6FPR=CB186C4F0609A697E4D52DFA6C722B0C1F1E27C18A56708F6525EC27BAD9ACC9
gpg --homedir "$W/show" --dearmor < "$fx/party/p2-public.asc" > "$W/p2.gpg"
python3 - "$W/p2.gpg" "$W/p2-v6cert.gpg" "$V6FPR" <<'EOF'
import sys, os
d = open(sys.argv[1], "rb").read()
fpr = bytes.fromhex(sys.argv[3])
hashed = bytes([5, 2]) + (1767225600).to_bytes(4, "big") + bytes([34, 33, 6]) + fpr
body = bytes([6, 0x10, 27, 10]) + len(hashed).to_bytes(4, "big") + hashed + (0).to_bytes(4, "big") \
    + b"\x12\x34" + bytes([32]) + os.urandom(32) + os.urandom(64)
pkt = bytes([0xC2, len(body)]) + body
# insert it after the self-signature of the first user ID
pos, seen_uid = 0, False
while True:
    h = d[pos]
    if h & 0x40:  # new format, gpg writes short lengths here
        assert d[pos + 1] < 192
        tag, end = h & 0x3f, pos + 2 + d[pos + 1]
    else:         # old format
        n = [1, 2, 4][h & 3]
        tag, end = (h >> 2) & 0xf, pos + 1 + n + int.from_bytes(d[pos + 1:pos + 1 + n], "big")
    if seen_uid and tag == 2:
        break
    seen_uid = seen_uid or tag == 13
    pos = end
open(sys.argv[2], "wb").write(d[:end] + pkt + d[end:])
EOF
expect_code 0 $KSP -d "$S2" import "$W/p2-v6cert.gpg"
expect_match "$OUT" "^kept      $V6FPR certified #2 \"P2 INSECURE <p2@example.org>\": by a key outside the party"
expect_eq "$(sqlite3 "$S2" "SELECT issuer_keyid || ' ' || issuer_fpr FROM certs WHERE issuer_fpr LIKE 'CB18%'")" \
	"CB186C4F0609A697 $V6FPR" "v6 issuer: the key ID is the front of the fingerprint"
# a message encrypted to someone else (p3's message, read by p2)
expect_code 1 env GNUPGHOME="$W/h2" $KSP -d "$S2" import "$W/out1/$F3-1-p3@example.org.eml"
expect_match "$ERR" "encrypted to [0-9A-F]{16}, a secret key not in $W/h2: not for you\? not read"
# not OpenPGP at all, a secret key, a missing file
expect_code 1 $KSP -d "$S2" import "$fx/not-a-key.txt"
expect_match "$ERR" "not-a-key.txt: no OpenPGP key or encrypted message found"
expect_code 1 $KSP -d "$S2" import "$fx/alice-secret.asc"
expect_match "$ERR" "a secret key block; not read"
expect_code 2 $KSP -d "$S2" import "$W/does-not-exist"
expect_match "$ERR" "does-not-exist: cannot read"
# an mbox of 1000 junk messages, with p1's message to p2 at the end
python3 - "$W/junk.mbox" "$W/p2-1-first.eml" <<'EOF'
import base64, random, sys, zlib
random.seed(400)
words = "key party sign trust fingerprint hello list mail junk spam offer".split()
def crc24(d):
    c = 0xB704CE
    for b in d:
        c ^= b << 16
        for _ in range(8):
            c <<= 1
            if c & 0x1000000: c ^= 0x1864CFB
    return c & 0xFFFFFF
def armor(kind, data, crc=True):
    b = base64.b64encode(data).decode()
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    tail = ["=" + base64.b64encode(crc24(data).to_bytes(3, "big")).decode()] if crc else []
    return "\n".join(["-----BEGIN PGP %s-----" % kind, ""] + lines + tail + ["-----END PGP %s-----" % kind])
out = open(sys.argv[1], "w")
for i in range(1000):
    k = i % 6
    body, hdr = " ".join(random.choice(words) for _ in range(40)), ""
    if k == 1:
        hdr = 'Content-Type: multipart/mixed; boundary="b%d"\n' % i
        att = base64.encodebytes(random.randbytes(300)).decode()
        body = "--b%d\n\nhello\n--b%d\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n%s--b%d--" % (i, i, att, i)
    elif k == 2:  # an armored message that is no OpenPGP message
        body = armor("MESSAGE", random.randbytes(200))
    elif k == 3:  # an armored key with a bad checksum
        body = armor("PUBLIC KEY BLOCK", random.randbytes(120)).replace("\n=", "\n=AAAA\n=", 1)
    elif k == 4:  # MIME nested far too deep
        hdr = 'Content-Type: multipart/mixed; boundary="n0"\n'
        body = "".join('--n%d\nContent-Type: multipart/mixed; boundary="n%d"\n\n' % (d, d + 1) for d in range(30))
    elif k == 5:
        hdr = "Content-Transfer-Encoding: quoted-printable\n"
        body = "=3D=3D quoted =\nprintable " + body
    if i in (7, 507, 907):  # looks encrypted to a key nobody has
        hdr = ""
        pkesk = bytes([3]) + random.randbytes(8) + bytes([1]) + bytes([8, 0]) + random.randbytes(256)
        seipd = bytes([1]) + random.randbytes(120)
        body = armor("MESSAGE", bytes([0xC1, 0xC0 + ((len(pkesk) - 192) >> 8), (len(pkesk) - 192) & 0xff]) + pkesk
                     + bytes([0xD2, len(seipd)]) + seipd)
    out.write("From junk%d@example.net Fri Jan 15 00:00:00 2027\nFrom: junk%d@example.net\nSubject: junk %d\n%s\n%s\n\n" % (i, i, i, hdr, body))
out.write("From p1@example.org Fri Jan 15 00:00:00 2027\n" + open(sys.argv[2]).read())
EOF
c1=$(certs "$S2")
expect_code 1 env GNUPGHOME="$W/h2" $KSP -d "$S2" import "$W/junk.mbox"
expect_match "$OUT" '^0 new certification\(s\), 1 duplicate\(s\), 0 kept but not counted, 0 bad, [0-9]+ skipped\.$'
expect_match "$ERR" 'junk.mbox: message 3: an armored block that is neither a key nor an encrypted message; not read$'
expect_match "$ERR" 'junk.mbox: message 4: a damaged armored block \(bad base64, checksum or no END line\); not read$'
expect_match "$ERR" 'junk.mbox: message 5: more than [0-9]+ MIME parts or [0-9]+ levels; the rest was not read$'
expect_match "$ERR" 'junk.mbox: message 8: encrypted to [0-9A-F]{16}, a secret key not in'
expect_match "$ERR" 'junk.mbox: [0-9]+ of 1001 message\(s\) hold no OpenPGP key or encrypted message; skipped$'
expect_eq "$(certs "$S2")" "$c1" "junk stored nothing"
expect_eq "$(certs "$S2" 'verified = 1')" 6 "the store keeps all that was imported before"
expect_code 0 $KSP -d "$S2" --json import "$W/returned/p2.asc"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["new"] == 0 and d["duplicates"] == 6 and all(e["kind"] == "duplicate" for e in d["events"]), d' "$OUT" \
	&& _test_pass "import --json" || _test_fail "import --json"
expect_eq "$(sqlite3 "$S2" 'PRAGMA integrity_check')" ok "store integrity"

expect_tmp_clean "the whole test"
expect_eq "$(ls -A "$UNUSED_HOME")" "" "the test's own GNUPGHOME was never used"
test_done
