#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What party sign mails, checked with gpg on the receiving side: a user ID
# without an address travels (certified) in the messages to the key's
# addressed user IDs, one of them with a quoted local part; a sign-only
# key mailed unencrypted only by explicit opt-in (--unencrypted-to, with a
# warning); certification options (level per run and per key from a file,
# expiry, policy URL, the notation with the list's SHA-256); party add and
# a key whose only address is not ASCII.
. "$(dirname "$0")/test-lib.sh"
test_begin T415-party-mail

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

# gen NAME UID [encr]: a home with an Ed25519 key (and a cv25519 subkey)
gen() {
	local h="$W/h$1"
	mkdir -m 700 "$h"
	homes+=("$h")
	gpg --homedir "$h" --batch --utf8-strings --passphrase "" --quick-gen-key "$2" ed25519 cert never >/dev/null 2>&1
	local f
	f=$(gpg --homedir "$h" --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
	[ "${3:-}" = encr ] && gpg --homedir "$h" --batch --passphrase '' --quick-add-key "$f" cv25519 encr never >/dev/null 2>&1
	eval "F$1=$f"
}
gen a "Ann Signer <ann@example.org>" encr
gen b "Bee Many <bee@example.org>" encr
gpg --homedir "$W/hb" --batch --utf8-strings --quick-add-uid "$Fb" "Bee Without Mail (no address)" >/dev/null 2>&1
gpg --homedir "$W/hb" --batch --utf8-strings --quick-add-uid "$Fb" 'Bee Quoted <"bee x"@example.org>' >/dev/null 2>&1
gen c "Cee SignOnly <cee@example.org>"
gen d "Jörg Umlaut <jörg@example.org>" encr
for x in a b c d; do
	eval "f=\$F$x"
	gpg --homedir "$W/h$x" --batch --armor --export "$f" > "$W/$x.asc" 2>/dev/null
done

O="$W/org.db"
expect_code 0 $KSP -d "$O" party init --name "T415 Party" --date 2027-04-01
expect_code 0 $KSP -d "$O" party add "$W/a.asc" "$W/b.asc" "$W/c.asc"
expect_match "$OUT" "$Fc  accepted"
# one address parser: an address that is not ASCII is no address ksp writes to
expect_code 1 $KSP -d "$O" party add "$W/d.asc"
expect_match "$OUT" 'refused: no address ksp can write to \(jörg@example.org is not ASCII'
expect_eq "$(sqlite3 "$O" "SELECT email FROM uids WHERE uid = CAST('Bee Quoted <\"bee x\"@example.org>' AS BLOB)")" \
	'"bee x"@example.org' "party add stores the quoted local part as the parser reads it"
expect_eq "$(sqlite3 "$O" "SELECT count(*) FROM uids WHERE uid = CAST('Bee Without Mail (no address)' AS BLOB) AND email IS NULL")" \
	1 "a user ID without an address has none in the store"
expect_code 0 $KSP -d "$O" party close -o "$W/list.txt"
expect_code 0 $KSP -d "$O" party export -o "$W/ring.asc"
SHA=$(sha256sum "$W/list.txt" | cut -c1-64)

expect_code 0 $KSP -d "$W/a.db" party join "$W/list.txt" "$W/ring.asc" --sha256 "$SHA"

mkdir "$W/mail"
cat > "$W/mailer" <<EOF
#!/bin/sh
t=\$(mktemp "$W/mail/in.XXXXXX")
cat > "\$t"
to=\$(sed -n 's/^To: //p' "\$t" | head -n 1 | tr -d '"' | tr ' ' _)
mkdir -p "$W/mail/\$to"
mv "\$t" "$W/mail/\$to/\$(basename "\$t").eml"
EOF
chmod +x "$W/mailer"
printf '# level per key\n\n%s 3\n' "$Fc" > "$W/levels"

# without the opt-in: the sign-only key is skipped, never sent in clear
expect_code 0 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" "$Fc" --outbox "$W/out0"
expect_match "$OUT" 'skipped: no encryption subkey; never sent unencrypted'
expect_eq "$(ls "$W/out0" | wc -l)" 0 "nothing written for the sign-only key"

expect_code 0 $KSP -q -d "$W/a.db" party absent --none
expect_code 0 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --outbox "$W/out" \
	--level 2 --levels "$W/levels" --expire 1y --policy-url https://example.org/ksp-policy \
	--unencrypted-to "$Fc" --sendmail "$W/mailer"
expect_match "$ERR" "warning: --unencrypted-to $Fc: .*mailed unencrypted"
expect_match "$OUT" '^     signed   Bee Without Mail \(no address\)$'
expect_match "$OUT" '^     signed   Bee Quoted <"bee x"@example.org>$'
expect_match "$OUT" '^     signed   Cee SignOnly <cee@example.org>$'
expect_eq "$(sqlite3 "$W/a.db" 'SELECT count(*) FROM signed')" 4 "four user IDs certified"
expect_eq "$(sqlite3 "$W/a.db" "SELECT group_concat(state) FROM deliveries")" "sent,sent,sent" \
	"three messages in the ledger, each sent once"
expect_eq "$(ls "$W/mail" | sort | tr '\n' ' ')" "bee@example.org bee_x@example.org cee@example.org " \
	"one mailbox per addressed user ID"
# the sign-only key's message: in clear, the key itself
expect_eq "$(grep -c 'BEGIN PGP MESSAGE' "$W/mail/cee@example.org"/*.eml)" 0 "the opted-in message is not encrypted"
expect_eq "$(grep -c 'BEGIN PGP PUBLIC KEY BLOCK' "$W/mail/cee@example.org"/*.eml)" 1 "it holds the certified key"
# a rerun: nothing signed or sent twice
expect_code 0 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --outbox "$W/out" \
	--unencrypted-to "$Fc" --sendmail "$W/mailer"
expect_eq "$(grep -c '^     signed ' "$OUT")" 0 "a rerun signs nothing"
expect_eq "$(find "$W/mail" -name '*.eml' | wc -l)" 3 "a rerun sends nothing"

# ---- the receiving side: gpg decrypts, imports, and checks ----------------
gpg --homedir "$W/hb" --batch --import "$W/a.asc" 2>/dev/null
for m in "$W/mail/bee@example.org"/*.eml "$W/mail/bee_x@example.org"/*.eml; do
	sed -n '/^-----BEGIN PGP MESSAGE-----/,/^-----END PGP MESSAGE-----/p' "$m" |
		gpg --homedir "$W/hb" --batch -d 2>/dev/null | gpg --homedir "$W/hb" --batch --import 2>/dev/null
done
gpg --homedir "$W/hb" --batch --with-colons --check-sigs "$Fb" 2>/dev/null |
	awk -F: -v k="${Fa:24}" '$1=="uid" {u=$10} $1=="sig" && $2=="!" && $5==k {print $11 " " ($7 != "" ? "expires" : "never") " " u}' |
	sort > "$W/bsigs"
expect_eq "$(cat "$W/bsigs")" '12x expires Bee Many <bee@example.org>
12x expires Bee Quoted <"bee x"@example.org>
12x expires Bee Without Mail (no address)' "gpg: each of Bee's user IDs certified once by Ann, level 2, with an expiry"
gpg --homedir "$W/hb" --batch --list-options show-notations,show-policy-urls --list-sigs "$Fb" > "$W/blist" 2>/dev/null
expect_eq "$(grep -c "Signature notation: ksp-list-sha256@ksp.invalid=$SHA" "$W/blist")" 3 \
	"gpg: each certification carries the list's SHA-256"
expect_eq "$(grep -c 'Signature policy: https://example.org/ksp-policy' "$W/blist")" 3 "gpg: and the policy URL"
gpg --homedir "$W/hc" --batch --import "$W/a.asc" 2>/dev/null
gpg --homedir "$W/hc" --batch --import "$W/mail/cee@example.org"/*.eml 2>/dev/null
expect_eq "$(gpg --homedir "$W/hc" --batch --with-colons --check-sigs "$Fc" 2>/dev/null |
	awk -F: -v k="${Fa:24}" '$1=="sig" && $2=="!" && $5==k {print $11}')" "13x" "gpg: Cee's key certified once, level 3 from the levels file"
# ksp import on the receiving side: the certifications count once
expect_code 0 $KSP -d "$W/b.db" party join "$W/list.txt" "$W/ring.asc"
expect_code 0 env GNUPGHOME="$W/hb" $KSP -d "$W/b.db" import "$W/mail/bee@example.org"/*.eml "$W/mail/bee_x@example.org"/*.eml
expect_match "$OUT" '^3 new certification\(s\), [0-9]+ duplicate'
# the user ID without an address: in the status, its JSON and the marked checklist
expect_code 0 $KSP -d "$W/b.db" party status --for "$Fb"
expect_eq "$(grep -A2 '^     Bee Without Mail (no address)$' "$OUT" | tr -s ' ' | tr '\n' '|')" \
	" Bee Without Mail (no address)| (no address: sent in the messages to this key's addresses)| certified by #1|" \
	"status: Bee's user ID without an address, certified by Ann"
expect_code 0 $KSP -d "$W/b.db" --json party status --for "$Fb"
expect_match "$OUT" '"uid":"Bee Without Mail \(no address\)","address":false,"certified_by":\[1\]'
expect_match "$OUT" '"uid":"Bee Many <bee@example.org>","address":true,'
expect_code 0 $KSP -d "$W/b.db" party sheet --format checklist --for "$Fb" --mark -o "$W/bmark.txt"
expect_eq "$(grep -A1 'Bee Without Mail (no address)$' "$W/bmark.txt" | tail -n 1 | tr -s ' ')" " (S) certified by #1" \
	"--mark: the user ID without an address, certified by Ann"
# Ann's own store: signed and handed to the mailer inside the message to Bee's address
expect_code 0 $KSP -d "$W/a.db" --json party status --for "$Fb"
expect_match "$OUT" '"uid":"Bee Without Mail \(no address\)","address":false,"certified_by":\[\],"sent_by":\[1\]'

# ---- reminders, from Bee's store: Bee owes Ann; Cee owes both but has no
# encryption subkey (never written to unencrypted: 3 user IDs and the one
# without an address); Ann owes nothing that
# can be delivered ------------------------------------------------------
expect_code 0 $KSP -d "$W/b.db" party status --missing
expect_match "$OUT" "^#2 .* has not certified:$"
expect_code 0 $KSP -d "$W/b.db" party remind --as "$Fb" --template de --outbox "$W/rem" --sendmail "$W/mailer"
expect_match "$OUT" "^#2   $Fb  1 missing: handed to the mailer$"
expect_match "$OUT" "^#3   $Fc  4 missing: not reminded: the key has no usable encryption subkey"
if grep -q "^#1 " "$OUT"; then _test_fail "Ann is reminded of nothing"; else _test_pass "Ann is reminded of nothing"; fi
expect_eq "$(ls "$W/rem")" "remind-$Fb.eml" "one reminder written"
expect_eq "$(ls "$W/mail/ann@example.org" 2>/dev/null | wc -l)" 0 "the reminder goes to Bee, not to Ann"
r=$(ls "$W/mail/bee@example.org"/*.eml | xargs grep -l '^Subject: Keysigning-Party')
expect_match "$r" '^From: Bee Many <bee@example.org>$'
expect_eq "$(grep -c 'BEGIN PGP MESSAGE' "$r")" 1 "the reminder is encrypted"
sed -n '/^-----BEGIN PGP MESSAGE-----/,/^-----END PGP MESSAGE-----/p' "$r" | gpg --homedir "$W/hb" --batch -d > "$W/rem.txt" 2>/dev/null
expect_match "$W/rem.txt" '^auf der Keysigning-Party "T415 Party" am 2027-04-01'
expect_match "$W/rem.txt" "^  #1 $(echo "$Fa" | sed -E 's/(.{4})/\1 /g; s/ $//' | sed -E 's/^((.{4} ){5})/\1 /')\$"
expect_match "$W/rem.txt" '^      Ann Signer <ann@example.org>$'
expect_code 0 $KSP -d "$W/b.db" --json party remind --outbox "$W/rem2"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["number"]: x for x in d["reminders"]}
assert set(r) == {2, 3} and r[2]["status"] == "written" and r[2]["missing"] == 1 and r[3]["status"] == "no-encryption", d' "$OUT" \
	&& _test_pass "remind --json" || _test_fail "remind --json"
# templates: the built-in ones print; a broken one is one clear line, nothing signed
expect_code 0 $KSP party sign --print-template de
expect_eq "$(cat "$OUT")" "$(cat "$TOP/templates/mail-sign.de.txt")" "the built-in German template is templates/mail-sign.de.txt"
expect_code 0 $KSP party remind --print-template en
expect_eq "$(cat "$OUT")" "$(cat "$TOP/templates/mail-remind.txt")" "the built-in reminder is templates/mail-remind.txt"
printf 'Subject: {{key.fingerprint}}\n\n{{#uids}}{{uid}}\n' > "$W/broken.txt"
expect_code 2 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --force --template "$W/broken.txt" --outbox "$W/out9"
expect_match "$ERR" "broken.txt: line 3: a section that is never closed"
printf 'Subject: {{nope}}\n\nx\n' > "$W/broken.txt"
expect_code 2 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --force --template "$W/broken.txt" --outbox "$W/out9"
expect_match "$ERR" "broken.txt: line 1: unknown name 'nope'"
expect_eq "$(sqlite3 "$W/a.db" 'SELECT count(*) FROM signed')" 4 "a broken template signs nothing"
# a template of one's own, a hostile signer name, Bcc to self
printf 'Subject: Podepsaný klíč {{key.fingerprint_hex}}\n\nDobrý den, {{#uids}}{{uid}}; {{/uids}}\n' > "$W/cs.txt"
expect_code 0 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" "$Fb" --force --template "$W/cs.txt" \
	--bcc-self --outbox "$W/outcs"
m=$(ls "$W/outcs"/*-1-bee@example.org.eml)
expect_match "$m" '^Subject: =\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$'
expect_match "$m" '^Bcc: ann@example.org$'
expect_eq "$(python3 -c '
import email, email.header, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"))
print(str(email.header.make_header(email.header.decode_header(m["Subject"]))))' "$m")" "Podepsaný klíč $Fb" \
	"the subject, RFC 2047-encoded (folded)"
sed -n '/^-----BEGIN PGP MESSAGE-----/,/^-----END PGP MESSAGE-----/p' "$m" | gpg --homedir "$W/hb" --batch -d > "$W/cs.out" 2>/dev/null
expect_match "$W/cs.out" '^Dobrý den, Bee Many <bee@example.org>; Bee Without Mail \(no address\); $'

# bad options: one line each
expect_code 2 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --level-for "$Fc=7"
expect_match "$ERR" "level '7': give 0, 1, 2 or 3"
expect_code 2 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --unencrypted-to ABCD
expect_match "$ERR" "'ABCD' is not a full fingerprint"
expect_code 2 env GNUPGHOME="$W/ha" $KSP -d "$W/a.db" party sign --as "$Fa" --all-checked --expire 3x
expect_match "$ERR" "--expire: give N"

expect_eq "$(ls -A "$TMPDIR")" "" "no temporary GnuPG home left"
test_done
