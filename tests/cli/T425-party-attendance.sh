#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Attendance on every machine (issue 36): a participant's store made with
# 'party join' knows nothing of the no-show, so 'party sign --all-checked'
# there signs nothing and says to record it ('ksp party absent'); the
# organizer's statement ('party export --attendance') read at the join
# leaves the no-show out; 'party absent --none' says everyone came.
. "$(dirname "$0")/test-lib.sh"
test_begin T425-party-attendance
# graphviz's own leak when the party graph is drawn (as in T600-graph)
export LSAN_OPTIONS="suppressions=$TOP/tests/keyrings/graph/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

W=$TEST_TMP
. "$TOP/tests/cli/party-homes.sh"
party_homes

for i in 1 2 3 4; do party_gen "$i"; done

O="$W/organizer.db"
expect_code 0 $KSP -d "$O" party init --name "T425 Party" --date 2027-03-01 --organizer "$F1"
expect_code 0 $KSP -d "$O" party add "$W"/p{1,2,3,4}.asc
expect_code 0 $KSP -d "$O" party close -o "$W/list.txt"
expect_code 0 $KSP -d "$O" party export -o "$W/ring.asc"
# before attendance is taken there is nothing to publish
expect_code 2 $KSP -d "$O" party export -o "$W/ring.asc" --attendance "$W/att.txt"
expect_match "$ERR" "no attendance recorded yet: run 'ksp party absent N\.\.\.' \\(or 'ksp party absent --none'"
expect_eq "$(ls "$W/att.txt" 2>/dev/null)" "" "no statement written"
# the organizer's own store refuses --all-checked too, until attendance is taken
expect_code 2 env GNUPGHOME="$GH/h1" $KSP -d "$O" party sign --as "$F1" --all-checked --outbox "$W/out-o"
expect_match "$ERR" "no attendance recorded: --all-checked would certify everyone on the list, no-shows too; nothing was signed"
expect_code 0 $KSP -d "$O" party absent 3
expect_code 0 $KSP -d "$O" party export -o "$W/ring.asc" --attendance "$W/att.txt"
expect_match "$ERR" "^Attendance \\(1 absent\\) written to .*att\\.txt"
expect_match "$W/att.txt" "^Absent: 3 $F3\$"
expect_match "$W/att.txt" "^List-SHA256: $(sha256sum "$W/list.txt" | cut -c1-64)\$"

# the party graph counts as 'party status' does: the no-show owes nothing
expect_code 0 $KSP -d "$O" --json graph --party --missing -T dot -o "$W/party.dot"
expect_match "$OUT" '"missing":3,'
expect_match "$W/party.dot" 'label="T425 Party, 2027-03-01: 0 of 6 certifications \(1 absent, not counted\)"'
expect_match "$W/party.dot" 'absent; certified by 0"'
expect_eq "$(grep -c 'certified by 0 of 2"' "$W/party.dot")" 3 "each present participant is owed two certifications"

# ---- a participant joins without the statement: --all-checked signs nothing
expect_code 0 $KSP -d "$W/s2.db" party join "$W/list.txt" "$W/ring.asc"
expect_match "$OUT" "No attendance yet: record who was not there \\('ksp party absent N\.\.\.'"
expect_code 2 env GNUPGHOME="$GH/h2" $KSP -d "$W/s2.db" party sign --as "$F2" --all-checked --outbox "$W/out2"
expect_eq "$(wc -l < "$ERR")" 1 "one error line"
expect_match "$ERR" "'ksp party absent N\.\.\.' \\(or 'ksp party absent --none' if everyone came\\)"
expect_match "$ERR" "'ksp party join LIST KEYRING --attendance FILE'"
expect_eq "$(sqlite3 "$W/s2.db" 'SELECT count(*) FROM signed')" 0 "nothing signed without attendance"
expect_eq "$(ls "$W/out2" 2>/dev/null | wc -l)" 0 "no message written"
# ... with the organizer's statement read at a second join: the no-show left out
expect_code 0 $KSP -d "$W/s2.db" party join "$W/list.txt" "$W/ring.asc" --attendance "$W/att.txt"
expect_match "$OUT" "^Attendance: 1 participant\\(s\\) absent, as the organizer recorded\\.\$"
expect_code 0 env GNUPGHOME="$GH/h2" $KSP -d "$W/s2.db" party sign --as "$F2" --all-checked --outbox "$W/out2"
expect_match "$ERR" "^1 key\\(s\\) of absent participants left out\\.\$"
expect_eq "$(sqlite3 "$W/s2.db" "SELECT group_concat(k.fpr) FROM signed s JOIN keys k ON k.id = s.key_id WHERE k.fpr = '$F3'")" "" \
	"the no-show is not certified"
expect_eq "$(sqlite3 "$W/s2.db" 'SELECT count(DISTINCT key_id) FROM signed')" 2 "the two present others are"
# --json join with the statement in one go
expect_code 0 $KSP -d "$W/s4.db" --json party join "$W/list.txt" "$W/ring.asc" --attendance "$W/att.txt"
expect_match "$OUT" '"absent":1}'
expect_eq "$(sqlite3 "$W/s4.db" 'SELECT fpr FROM attendance WHERE absent')" "$F3" "the joined store holds the no-show"

# ---- 'party absent --none': everyone came ---------------------------------
expect_code 0 $KSP -d "$W/s1.db" party join "$W/list.txt" "$W/ring.asc"
expect_code 0 $KSP -d "$W/s1.db" party absent --none
expect_match "$ERR" "^Attendance taken: everyone on the frozen list was there"
expect_code 0 env GNUPGHOME="$GH/h1" $KSP -d "$W/s1.db" party sign --as "$F1" --all-checked --outbox "$W/out1"
expect_eq "$(sqlite3 "$W/s1.db" 'SELECT count(DISTINCT key_id) FROM signed')" 3 "--none: the three others certified"
expect_code 2 $KSP -d "$W/s1.db" party absent --none 3
expect_match "$ERR" "--none: nobody was absent; give it alone"

# ---- a statement of another list, or not a statement: refused, nothing recorded
# (the digest's first hex digit changed: a to b, anything else to a)
sed "s/^List-SHA256: a/List-SHA256: b/; t; s/^List-SHA256: ./List-SHA256: a/" "$W/att.txt" > "$W/att-other.txt"
expect_eq "$(cmp -l "$W/att.txt" "$W/att-other.txt" | wc -l)" 1 "the statement of another list: one byte of the digest changed"
expect_code 2 $KSP -d "$W/s1.db" party join "$W/list.txt" "$W/ring.asc" --attendance "$W/att-other.txt"
expect_match "$ERR" "att-other.txt: this attendance is of list version 1 with SHA-256 [0-9a-f]{64}, which is not the list this store holds"
expect_eq "$(sqlite3 "$W/s1.db" 'SELECT count(*) FROM attendance')" 0 "nothing recorded from another list's statement"
expect_code 2 $KSP -d "$W/s1.db" party join "$W/list.txt" "$W/ring.asc" --attendance "$W/ring.asc"
expect_match "$ERR" "ring.asc: not an attendance statement"
# a keyring that is no keyring is refused before it is read (not 1 GiB of /dev/zero)
expect_code 2 $KSP -d "$W/zero.db" party join "$W/list.txt" /dev/zero
expect_match "$ERR" "/dev/zero: cannot read the keyring: it starts with neither an armored key block nor an OpenPGP packet"

# ---- two keys with one address: marked on the sheet ------------------------
mkdir -m 700 "$GH/h1b"
homes+=("$GH/h1b")
gpg --homedir "$GH/h1b" --batch --passphrase "" --quick-gen-key "P1 New <P1@example.org>" ed25519 cert never >/dev/null 2>&1
gpg --homedir "$GH/h1b" --batch --armor --export > "$W/p1b.asc" 2>/dev/null
expect_code 0 $KSP -d "$W/same.db" party init --name "T425 Same" --date 2027-03-01
expect_code 0 $KSP -d "$W/same.db" party add --allow-no-email "$W/p1.asc" "$W/p2.asc" "$W/p1b.asc"
expect_match "$OUT" "^#3 .*P1@example.org is already on the list with the key of #1"
expect_code 0 $KSP -q -d "$W/same.db" party close
expect_code 0 $KSP -d "$W/same.db" party sheet --format html -o "$W/same.html"
expect_match "$W/same.html" "an address of this key is also on #3: two keys of one person"
expect_match "$W/same.html" "an address of this key is also on #1: two keys of one person"
expect_eq "$(grep -c 'two keys of one person' "$W/same.html")" 2 "the sheet marks the two keys, not the third"
if command -v pdftotext >/dev/null 2>&1; then
	expect_code 0 $KSP -d "$W/same.db" party sheet --format pdf -o "$W/same.pdf"
	expect_eq "$(pdftotext "$W/same.pdf" - | grep -c 'two keys of one person')" 2 "the PDF sheet marks them too"
else
	_test_fail "pdftotext is not installed (Debian package poppler-utils)"
fi

test_done
