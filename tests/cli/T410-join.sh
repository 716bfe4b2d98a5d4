#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The participant's own party: six participants, each with its own GnuPG
# home and its own store, made only from the announced list file and the
# published party keyring ('party join'); a latecomer's list version 2;
# and what join must refuse (one changed byte, a keyring missing a listed
# key, another party's list, another digest): one error line each, nothing
# stored; a keyring holding an extra key (a newer list's) gives the listed keys.
. "$(dirname "$0")/test-lib.sh"
test_begin T410-join

W=$TEST_TMP
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"
homes=()
cleanup() {
	for h in "${homes[@]}"; do
		gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
	done
	_test_cleanup
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

N=6
names=("" "Ada Quill" "Bořek Šťastný" "陈静" "Δήμητρα Ρήγα" "Omar Haddad" "Late Comer")
# gen N: participant N's home, an Ed25519 key with a Curve25519 encryption subkey
gen() {
	local h="$W/h$1"
	mkdir -m 700 "$h"
	homes+=("$h")
	gpg --homedir "$h" --batch --utf8-strings --passphrase "" --quick-gen-key "${names[$1]} <p$1@example.org>" ed25519 cert never \
		>/dev/null 2>&1
	local f
	f=$(gpg --homedir "$h" --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
	gpg --homedir "$h" --batch --passphrase '' --quick-add-key "$f" cv25519 encr never >/dev/null 2>&1
	gpg --homedir "$h" --batch --armor --export "$f" > "$W/p$1.asc" 2>/dev/null
	eval "F$1=$f"
}
for i in $(seq 1 $N); do gen "$i"; done
expect_eq "${#F1}${#F2}${#F3}${#F4}${#F5}${#F6}" "404040404040" "six keys generated"

# ---- the organizer: list version 1 of p1..p5 -------------------------------
O="$W/organizer.db"
expect_code 0 $KSP -d "$O" party init --name "T410 Party" --date 2027-03-01 --location 'Praha \ Brno' \
	--organizer "$F1"
expect_code 0 $KSP -d "$O" party add "$W"/p{1,2,3,4,5}.asc
expect_code 0 $KSP -d "$O" party close -o "$W/list1.txt"
expect_code 0 $KSP -d "$O" party export -o "$W/ring1.asc"
SHA1=$(sha256sum "$W/list1.txt" | cut -c1-64)

# ---- each participant joins from the two files only ------------------------
for i in 1 2 3 4 5; do
	expect_code 0 $KSP -d "$W/s$i.db" party join "$W/list1.txt" "$W/ring1.asc" --sha256 "$SHA1"
	expect_match "$OUT" "SHA-256 $SHA1 \\(as announced\\)"
	expect_match "$OUT" "^Joined T410 Party \\(2027-03-01\\), list version 1"
done
expect_code 0 $KSP -d "$W/s1.db" party digest
expect_match "$OUT" "^SHA256: +$SHA1\$"
expect_code 0 $KSP -d "$W/s2.db" party list
expect_match "$OUT" "Bořek Šťastný <p2@example.org>"
expect_code 0 $KSP -d "$W/s3.db" party verify-list "$W/list1.txt"
expect_match "$OUT" "matches frozen list version 1\$"
expect_eq "$($KSP -d "$W/s4.db" party sheet --format txt | sha256sum | cut -c1-64)" "$SHA1" \
	"the participant's text sheet is the announced list, byte for byte"
# joining again changes nothing; the digest is printed without --sha256 too
cp "$W/s5.db" "$W/s5-before.db"
expect_code 0 $KSP -d "$W/s5.db" --json party join "$W/list1.txt" "$W/ring1.asc"
expect_match "$OUT" "\"sha256\":\"$SHA1\",\"new\":false"
expect_eq "$(sqlite3 "$W/s5.db" 'SELECT count(*) FROM list_versions')" 1 "a second join adds no list version"

# ---- bad input: one line on stderr, nothing stored ------------------------
# refused LABEL STORE REGEX ARGS...: exit 2, one line matching REGEX, the
# store as it was (a new store: no file at all)
refused() {
	local label=$1 db=$2 re=$3 before=""
	shift 3
	[ -e "$db" ] && before=$(sqlite3 "$db" .dump)
	expect_code 2 $KSP -d "$db" party join "$@"
	expect_eq "$(wc -l < "$ERR")" 1 "$label: one error line"
	expect_match "$ERR" "$re"
	if [ -z "$before" ]; then
		expect_eq "$(ls "$db"* 2>/dev/null)" "" "$label: no store left behind"
	else
		expect_eq "$(sqlite3 "$db" .dump)" "$before" "$label: the store is unchanged"
	fi
}
# one changed byte: in a user ID, then in the party's name (only the digest tells)
sed 's/<p3@example.org>/<p3@example.orh>/' "$W/list1.txt" > "$W/byte-uid.txt"
expect_eq "$(cmp -l "$W/list1.txt" "$W/byte-uid.txt" | wc -l)" 1 "one byte changed"
refused "changed user ID" "$W/bad.db" "byte-uid.txt: line [0-9]+ .*not what the keys in .*ring1.asc give" \
	"$W/byte-uid.txt" "$W/ring1.asc"
sed 's/^Party:    T410 Party/Party:    T410 Partx/' "$W/list1.txt" > "$W/byte-name.txt"
refused "changed name, digest given" "$W/bad.db" "byte-name.txt: SHA-256 [0-9a-f]{64} is not the announced $SHA1" \
	"$W/byte-name.txt" "$W/ring1.asc" --sha256 "$SHA1"
refused "changed name, into an existing store" "$W/s1.db" "a list of another party" \
	"$W/byte-name.txt" "$W/ring1.asc"
# a keyring missing a listed key, and one with an extra key
mkdir -m 700 "$W/rk"
homes+=("$W/rk")
gpg --homedir "$W/rk" --batch --import "$W/ring1.asc" >/dev/null 2>&1
gpg --homedir "$W/rk" --batch --armor --export "$F1" "$F2" "$F3" "$F5" > "$W/ring-missing.asc"
refused "keyring missing a key" "$W/bad.db" "ring-missing.asc: no key $F4 \\(#4 on the list\\)" \
	"$W/list1.txt" "$W/ring-missing.asc"
cat "$W/ring1.asc" "$W/p6.asc" > "$W/ring-extra.asc"
# a keyring with an extra key (a newer list's, with a latecomer): only the
# listed keys are taken from it
expect_code 0 $KSP -d "$W/extra.db" party join "$W/list1.txt" "$W/ring-extra.asc" --sha256 "$SHA1"
expect_match "$OUT" "^Joined T410 Party .*list version 1"
expect_eq "$(sqlite3 "$W/extra.db" "SELECT count(*) FROM participants p JOIN keys k ON k.id = p.key_id WHERE k.fpr = '$F6'")" 0 \
	"the extra key is no participant"
expect_eq "$(sqlite3 "$W/extra.db" 'SELECT count(*) FROM participants')" 5 "the five listed keys"
expect_eq "$($KSP -d "$W/extra.db" party sheet --format txt | sha256sum | cut -c1-64)" "$SHA1" \
	"the list from the keyring with an extra key is the announced list, byte for byte"
cp "$W/s2.db" "$W/s2-before.db"
expect_code 0 $KSP -d "$W/s2.db" party join "$W/list1.txt" "$W/ring-extra.asc"
expect_match "$OUT" "already holds list version 1 .*; nothing changed"
expect_eq "$(sqlite3 "$W/s2.db" 'SELECT count(*) FROM participants')" 5 "an existing store: the same five"
# a list of another party
O2="$W/other.db"
expect_code 0 $KSP -d "$O2" party init --name "Other Party" --date 2027-03-02
expect_code 0 $KSP -d "$O2" party add "$W/p1.asc" "$W/p2.asc"
expect_code 0 $KSP -d "$O2" party close -o "$W/other.txt"
expect_code 0 $KSP -d "$O2" party export -o "$W/other.asc"
refused "another party's list" "$W/s3.db" "other.txt: a list of another party \\('Other Party' on 2027-03-02\\)" \
	"$W/other.txt" "$W/other.asc"
refused "not a list" "$W/bad.db" "ring1.asc: not a ksp participant list" "$W/ring1.asc" "$W/ring1.asc"
refused "bad digest" "$W/bad.db" "'xyz' is not a SHA-256 digest" "$W/list1.txt" "$W/ring1.asc" --sha256 xyz

# ---- the latecomer: list version 2 -----------------------------------------
expect_code 0 $KSP -d "$O" party reopen --reason "p6 came late"
expect_code 0 $KSP -d "$O" party add "$W/p6.asc"
expect_code 0 $KSP -d "$O" party close -o "$W/list2.txt"
expect_code 0 $KSP -d "$O" party export -o "$W/ring2.asc"
SHA2=$(sha256sum "$W/list2.txt" | cut -c1-64)
refused "version 2 with the old keyring" "$W/s1.db" "ring1.asc: no key $F6 \\(#6 on the list\\)" \
	"$W/list2.txt" "$W/ring1.asc"
# a participant who holds only the version-1 list: the newer keyring names
# where to get the right one, and 'party export --version 1' writes it
expect_code 0 $KSP -d "$W/late0.db" party join "$W/list1.txt" "$W/ring2.asc" --sha256 "$SHA1"
expect_match "$OUT" "^Joined T410 Party .*list version 1"
expect_eq "$(sqlite3 "$W/late0.db" 'SELECT count(*) FROM participants')" 5 "version 1 from the version-2 keyring: its five keys"
expect_code 0 $KSP -d "$O" party export --version 1 -o "$W/ring2-v1.asc"
expect_match "$ERR" "^5 key\\(s\\) written to"
expect_code 0 $KSP -d "$W/late1.db" party join "$W/list1.txt" "$W/ring2-v1.asc" --sha256 "$SHA1"
expect_match "$OUT" "^Joined T410 Party .*list version 1"
expect_code 2 $KSP -d "$O" party export --version 3 -o "$W/ring-v3.asc"
expect_match "$ERR" "there is no list version 3"
for i in 1 2 3 4 5 6; do
	expect_code 0 $KSP -d "$W/s$i.db" party join "$W/list2.txt" "$W/ring2.asc" --sha256 "$SHA2"
	expect_match "$OUT" "list version 2"
done
expect_code 0 $KSP -d "$W/s1.db" party verify-list "$W/list1.txt"
expect_match "$OUT" "matches frozen list version 1 \\(not the newest\\)"
expect_code 0 $KSP -d "$W/s1.db" party verify-list "$W/list2.txt"
expect_match "$OUT" "matches frozen list version 2\$"
expect_eq "$(sqlite3 "$W/s6.db" 'SELECT count(*) FROM list_versions')" 1 "the latecomer holds only version 2"
refused "an older version after a newer" "$W/s6.db" "list version 1, but .*s6.db already holds version 2" \
	"$W/list1.txt" "$W/ring1.asc"

# ---- after the party: each signs the other five from its own store --------
# the mailer: one file per message in the mailbox of its To: address
mkdir "$W/mail"
cat > "$W/mailer" <<EOF
#!/bin/sh
t=\$(mktemp "$W/mail/in.XXXXXX")
cat > "\$t"
to=\$(sed -n 's/^To: //p' "\$t" | head -n 1)
mkdir -p "$W/mail/\$to"
mv "\$t" "$W/mail/\$to/\$(basename "\$t").eml"
EOF
printf '#!/bin/sh\ncat > /dev/null\nexit 1\n' > "$W/failing-mailer"
chmod +x "$W/mailer" "$W/failing-mailer"
for i in 1 2 3 4 5 6; do
	eval "me=\$F$i"
	mailer="$W/mailer"
	want=0
	if [ "$i" = 3 ]; then
		mailer="$W/failing-mailer"
		want=1
	fi
	expect_code 0 $KSP -q -d "$W/s$i.db" party absent --none
	expect_code $want env GNUPGHOME="$W/h$i" $KSP -d "$W/s$i.db" party sign --as "$me" --all-checked \
		--outbox "$W/out$i" --sendmail "$mailer"
	expect_eq "$(grep -c '^     signed ' "$OUT")" 5 "p$i signed the other five"
	[ "$i" = 3 ] && cp "$ERR" "$W/sign3.err"
done
expect_match "$W/sign3.err" "the mailer exited with status 1; not sent"
expect_eq "$(sqlite3 "$W/s3.db" "SELECT group_concat(DISTINCT state || ':' || mailer_status) FROM deliveries")" "failed:1" \
	"p3's ledger: five messages failed, with the mailer's status"
expect_code 0 $KSP -d "$W/s3.db" party status
expect_match "$OUT" '^   #3    w   w   -   w   w   w$'
# a rerun signs nothing and still fails to send; then the resend
expect_code 1 env GNUPGHOME="$W/h3" $KSP -d "$W/s3.db" party sign --as "$F3" --all-checked --outbox "$W/out3" \
	--sendmail "$W/failing-mailer"
expect_eq "$(grep -c '^     already ' "$OUT")" 5 "p3's rerun signs nothing again"
expect_code 0 $KSP -d "$W/s3.db" party send --sendmail "$W/mailer"
expect_eq "$(grep -c '^sent ' "$OUT")" 5 "party send: p3's five messages"
expect_code 0 $KSP -d "$W/s3.db" party send --sendmail "$W/failing-mailer"
expect_eq "$(grep -c '^sent ' "$OUT")" 0 "party send again: nothing left to send"
expect_code 0 $KSP -d "$W/s3.db" party status
expect_match "$OUT" '^   #3    s   s   -   s   s   s$'
expect_eq "$(sqlite3 "$W/s3.db" "SELECT count(*) FROM signed")" 5 "p3 certified each user ID once"

# ---- each receives, imports, and checks with gpg ---------------------------
total=0
for j in 1 2 3 4 5 6; do
	eval "me=\$F$j"
	box="$W/mail/p$j@example.org"
	n=$(ls "$box" | wc -l)
	total=$((total + n))
	expect_eq "$n" 5 "p$j received five messages"
	expect_code 0 env GNUPGHOME="$W/h$j" $KSP -d "$W/s$j.db" import "$box"/*.eml
	expect_match "$OUT" '^5 new certification\(s\), 0 duplicate'
	# gpg on the receiving side: the signers' keys from the party keyring;
	# decrypt each message, import, check
	gpg --homedir "$W/h$j" --batch --import "$W/ring2.asc" 2>/dev/null
	for m in "$box"/*.eml; do
		sed -n '/^-----BEGIN PGP MESSAGE-----/,/^-----END PGP MESSAGE-----/p' "$m" | tr -d '\r' |
			gpg --homedir "$W/h$j" --batch -d 2>/dev/null | gpg --homedir "$W/h$j" --batch --import 2>/dev/null
	done
	gpg --homedir "$W/h$j" --batch --with-colons --check-sigs "$me" 2>/dev/null |
		awk -F: -v k="${me:24}" '$1=="sig" && $2=="!" && $5!=k {print $5}' > "$W/issuers$j"
	expect_eq "$(wc -l < "$W/issuers$j")" 5 "p$j's key: five good certifications (gpg)"
	expect_eq "$(sort -u "$W/issuers$j" | wc -l)" 5 "p$j's key: by five different participants, each once (gpg)"
done
expect_eq "$total" 30 "30 messages delivered: each certification exactly once"
expect_code 0 $KSP -d "$W/s6.db" party status
expect_match "$OUT" '^Certifications: 5 of 30 '
expect_match "$OUT" '^   #6    s   s   s   s   s   -$'

expect_eq "$(ls -A "$TMPDIR")" "" "no temporary GnuPG home left"

test_done
