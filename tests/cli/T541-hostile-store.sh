#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A repository that supplies the store (issue 34): it commits a ksp.db
# holding a forged row "the core certified the attacker, verified".  The
# user set the policy (KSP_POLICY) but no store.  Through ksp-gpg, git
# verify-commit must fail and %G? must be E, never G; a relative ksp.db or
# ksp.policy in git config is refused with one line; nothing is written
# into the work tree (no ksp.db-shm, -wal, -wot), even when the user names
# that store; 'ksp verify --git-commit' in the clone refuses the default
# store (./ksp.db) and names -d; a store whose -wal holds changes not yet in
# it is refused (an immutable open would read it stale).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T541-hostile-store
KSP="$top/ksp"
KG="$top/ksp-gpg"
[ "${KSP_VALGRIND:-0}" = 1 ] && KG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KG"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'gpgconf --homedir "$w/g" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export LC_ALL=C
unset KSP_DB KSP_POLICY KSP_GPG_REAL KSP_GPG_FORWARDED GNUPGHOME
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home" XDG_CONFIG_HOME="$w/home/.config"
mkdir -p "$HOME"
# git's gpg.program is one word: the program (under valgrind when asked)
printf '#!/bin/sh\nexec %s "$@"\n' "$KG" >"$w/kg"
chmod +x "$w/kg"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }
expect_grep() { if grep -qE -- "$2" "$1"; then ok; else bad "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -10 >&2; fi; }

for t in gpg git; do
	command -v $t >/dev/null || { echo "FAIL: $name: $t is not installed (apt-get install ${t/gpg/gnupg})" >&2; exit 1; }
done
/usr/bin/python3 -c 'import sqlite3' 2>/dev/null || { echo "FAIL: $name: python3's sqlite3 is missing (apt-get install python3)" >&2; exit 1; }
[ -x "$top/ksp-gpg" ] || { echo "FAIL: $name: $top/ksp-gpg is not built (run make)" >&2; exit 1; }

# ---- the user: a core, a policy, a store of their own (not configured) ---------------
mkdir -m 700 "$w/g"
G() { gpg --homedir "$w/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { G --with-colons -k "$1" | awk -F: '$1=="fpr"{print $10; exit}'; }
G --quick-gen-key 'Core <core@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Attacker <attacker@example.org>' ed25519 cert,sign never 2>/dev/null
CORE=$(fpr_of core@) ATT=$(fpr_of attacker@)
[ ${#CORE} = 40 ] && [ ${#ATT} = 40 ] || { echo "FAIL: $name: could not make the test keys with gpg" >&2; exit 1; }
mkdir -p "$HOME/.config/ksp"
printf 'core = %s\n' "$CORE" >"$HOME/.config/ksp/policy"
export KSP_POLICY="$HOME/.config/ksp/policy"

# ---- the attacker's repository: a signed commit and a forged ksp.db ---------------------
a="$w/attacker"
git init -q -b main "$a"
G --export "$CORE" "$ATT" >"$w/pub.gpg"
"$KSP" -d "$a/ksp.db" wot load "$w/pub.gpg" >/dev/null 2>&1 || bad "ksp wot load (the attacker's store)"
/usr/bin/python3 - "$a/ksp.db" "$CORE" "$ATT" <<'EOF' || bad "forging the row"
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
core, att = sys.argv[2], sys.argv[3]
uid = db.execute("SELECT u.id FROM uids u JOIN keys k ON k.id = u.key_id WHERE k.fpr = ?", (att,)).fetchone()[0]
db.execute("INSERT INTO certs (uid_id, issuer_fpr, issuer_keyid, sig_type, pk_algo, hash_algo, created, verified, "
           "sigdata, digest) VALUES (?, ?, ?, 16, 22, 8, ?, 1, x'00', 'forged')", (uid, core, core[24:], db.execute('SELECT max(created) FROM keys').fetchone()[0]))
db.execute("UPDATE graph_state SET gen = gen + 1, nonce = random() WHERE id = 1")
db.commit()
db.execute("PRAGMA journal_mode = DELETE")
db.close()
EOF
rm -f "$a/ksp.db-wot" "$a/ksp.db-shm" "$a/ksp.db-wal"
# the forged row does what it says to the store it is in (the premise)
"$KSP" -d "$a/ksp.db" trust --policy "$KSP_POLICY" -q "$ATT" >/dev/null 2>&1 && ok ||
	bad "the forged store does not trust the attacker: the test proves nothing"
rm -f "$a/ksp.db-wot"
git -C "$a" -c user.name=A -c user.email=a@example.org add ksp.db
echo payload >"$a/f"; git -C "$a" add f
GNUPGHOME="$w/g" git -C "$a" -c user.name=A -c user.email=a@example.org -c user.signingkey="$ATT" \
	commit -q -S -m "signed by the attacker" || bad "the attacker's signed commit"

# ---- the user clones it ------------------------------------------------------------------
c="$w/clone"
git clone -q "$a" "$c"
cd "$c" || exit 1
git config gpg.program "$w/kg"
git verify-commit HEAD >"$w/out" 2>"$w/err" && bad "git verify-commit passed with the repository's store" || ok
expect_eq "$(git log -1 --format=%G?)" E "%G? with the repository's store around: E"
git cat-file commit HEAD | sed -n '/^gpgsig /,/END PGP/p' | sed 's/^gpgsig //; s/^ //' >"$w/c.sig"
git cat-file commit HEAD | sed '/^gpgsig /,/END PGP/d' >"$w/c.payload"
$KG --status-fd=1 --verify "$w/c.sig" - <"$w/c.payload" >"$w/st" 2>"$w/err"
expect_eq "$?" 2 "ksp-gpg without a store: exit 2"
expect_grep "$w/st" "^\[GNUPG:\] ERRSIG ${ATT:24} " "no store: ERRSIG"
expect_eq "$(wc -l <"$w/err")" 1 "no store: one line"
expect_grep "$w/err" "^ksp-gpg: no ksp store: set KSP_DB or 'git config --global ksp.db /ABSOLUTE/PATH'" "no store: how to set it"
# a relative ksp.db in git config, any scope: refused
for scope in --local --global; do
	git config $scope ksp.db ksp.db
	expect_eq "$(git log -1 --format=%G?)" E "relative ksp.db ($scope): %G? E"
	$KG --status-fd=1 --verify "$w/c.sig" - <"$w/c.payload" >"$w/st" 2>"$w/err"
	expect_eq "$?" 2 "relative ksp.db ($scope): exit 2"
	expect_eq "$(wc -l <"$w/err")" 1 "relative ksp.db ($scope): one line"
	expect_grep "$w/err" "^ksp-gpg: git config ksp.db: \"ksp.db\" is a relative path" "relative ksp.db ($scope): said"
	git config $scope --unset ksp.db
done
git config ksp.db "$w/user.db"
git config --global ksp.policy policy
env -u KSP_POLICY $KG --status-fd=1 --verify "$w/c.sig" - <"$w/c.payload" >"$w/st" 2>"$w/err"
expect_grep "$w/err" "^ksp-gpg: git config ksp.policy: \"policy\" is a relative path" "relative ksp.policy: refused"
git config --global --unset ksp.policy
git config --unset ksp.db
# the user's own store (the core, the attacker's key, nothing forged): U, not G
"$KSP" -d "$w/user.db" wot load "$w/pub.gpg" >/dev/null 2>&1 || bad "the user's store"
git config --global ksp.db "$w/user.db"
expect_eq "$(git log -1 --format=%G?)" U "the user's store: the attacker is untrusted (U)"
git config --global --unset ksp.db
# nothing written into the work tree, even with the repository's store named
# explicitly (the user's choice, read-only)
git config ksp.db "$c/ksp.db"
git log -1 --format=%G? >/dev/null
git verify-commit HEAD >/dev/null 2>&1
git config --unset ksp.db
expect_eq "$(ls -a "$c" | grep -c '^ksp\.db.')" 0 "nothing beside ksp.db (-shm, -wal, -wot)"
expect_eq "$(git status --porcelain --ignored | wc -l)" 0 "the work tree is as cloned"

# ---- ksp verify in the clone: the default store is the repository's -----------------------
"$KSP" verify --policy "$KSP_POLICY" --git-commit HEAD >"$w/out" 2>"$w/err"
expect_eq "$?" 2 "ksp verify --git-commit with ./ksp.db in the work tree: refused"
expect_grep "$w/err" "ksp.db: the default store lies inside the repository being verified .*-d FILE" "ksp verify names -d"
mkdir -p sub
(cd sub && "$KSP" verify --policy "$KSP_POLICY" --git-commit HEAD --repo .. >"$w/out" 2>"$w/err")
expect_eq "$?" 2 "the default store is not taken from any other directory of it either"
"$KSP" -d "$w/user.db" verify --policy "$KSP_POLICY" --git-commit HEAD >"$w/out" 2>"$w/err"
expect_eq "$?" 1 "ksp verify -d USER.db: good signature, not trusted"
expect_grep "$w/out" "not trusted" "ksp verify -d USER.db: not trusted"
KSP_DB="$c/ksp.db" "$KSP" verify --policy "$KSP_POLICY" --git-commit HEAD >"$w/out" 2>"$w/err"
expect_eq "$?" 0 "KSP_DB naming the repository's store: the user's choice, taken"
expect_eq "$(git status --porcelain --ignored | grep -v ' ksp.db-wot$' | wc -l)" 0 "ksp verify: nothing else written"

# ---- replace objects: the repository swaps an unsigned commit for a signed one ---------------
# (git cat-file would show the signed commit's content under the unsigned
# commit's ID; ksp runs git with no replace objects, git-run.c)
r="$w/replace"
git init -q -b main "$r"
(
	cd "$r" || exit 1
	export GNUPGHOME="$w/g"
	git config user.name Core && git config user.email core@example.org
	echo signed >f && git add f && git commit -q -S"$CORE" -m signed || exit 1
	echo tampered >f && git commit -q -am tampered || exit 1
	git replace HEAD HEAD~1 || exit 1
) || bad "making the replace-object repository"
(cd "$r" && "$KSP" -d "$w/user.db" verify --policy "$KSP_POLICY" --git-commit HEAD~1 >"$w/out" 2>"$w/err")
expect_eq "$?" 0 "the signed commit itself: trusted (the core signed it)"
(cd "$r" && [ "$(git cat-file commit HEAD | grep -c '^gpgsig')" = 1 ]) && ok || bad "git itself shows the signed commit under the replaced ID"
(cd "$r" && "$KSP" -d "$w/user.db" verify --policy "$KSP_POLICY" --git-commit "$(git rev-parse HEAD)" >"$w/rep.out" 2>"$w/rep.err")
rc=$?
[ "$rc" != 0 ] && ok || bad "a replaced commit verified as the signed one it is replaced by: $(head -1 "$w/rep.out")"
expect_grep "$w/rep.out" "not signed" "the replaced commit is read as itself: not signed"

# ---- a store whose -wal holds changes not yet in it: refused, never read stale -----------
cp "$w/user.db" "$w/wal.db"
/usr/bin/python3 - "$w/wal.db" <<'EOF' || bad "a store with a pending -wal"
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("INSERT INTO events (time, what) VALUES (0, 'pending')")
os._exit(0)  # no checkpoint: the change stays in the -wal
EOF
[ -s "$w/wal.db-wal" ] && ok || bad "the -wal file holds the change"
KSP_DB="$w/wal.db" $KG --status-fd=1 --verify "$w/c.sig" - <"$w/c.payload" >"$w/st" 2>"$w/err"
expect_eq "$?" 2 "a pending -wal: exit 2"
expect_grep "$w/st" "^\[GNUPG:\] ERRSIG " "a pending -wal: ERRSIG"
expect_grep "$w/err" "wal.db-wal holds changes not yet in the store" "a pending -wal: said"
# the recipe the message gives runs verbatim, and then the store is read
recipe=$(sed -n "s/.*fold it in with: //p" "$w/err")
[ -n "$recipe" ] && (cd "$w" && eval "$recipe" >/dev/null) && ok || bad "the -wal recipe ran: '$recipe'"
KSP_DB="$w/wal.db" $KG --status-fd=1 --verify "$w/c.sig" - <"$w/c.payload" >"$w/st" 2>"$w/err"
expect_grep "$w/st" "^\[GNUPG:\] VALIDSIG " "after the recipe: the store is read"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
