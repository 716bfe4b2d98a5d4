#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tag check of ksp-gpg(1) and docs/guide-admin.md, run as written
# (issue 34): the EXAMPLES block of docs/ksp-gpg.1 is taken from the man
# page and run on a new HOME (the directories it needs do not exist), with
# only the key file, the core and the repository substituted.  The recipe
# "git fetch origin tag vX && git verify-tag FETCH_HEAD && git merge
# FETCH_HEAD" must take unsigned commits under a tag signed by a trusted
# key, and refuse a tampered tag (on a commit signed by that trusted key)
# and a tag by a signer the policy does not trust, merging nothing.  The
# log format the page recommends must not crash git on E and B commits.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T543-tag-recipe
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'gpgconf --homedir "$w/g" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export LC_ALL=C
unset KSP_DB KSP_POLICY KSP_GPG_REAL KSP_GPG_FORWARDED GNUPGHOME
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home" XDG_CONFIG_HOME="$w/home/.config"
export PATH="$top:$PATH" # ksp and ksp-gpg as installed
mkdir -p "$HOME"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_eq() { if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi; }

for t in gpg git; do
	command -v $t >/dev/null || { echo "FAIL: $name: $t is not installed (apt-get install ${t/gpg/gnupg})" >&2; exit 1; }
done
[ -x "$top/ksp-gpg" ] || { echo "FAIL: $name: $top/ksp-gpg is not built (run make)" >&2; exit 1; }

mkdir -m 700 "$w/g"
G() { gpg --homedir "$w/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { G --with-colons -k "$1" | awk -F: '$1=="fpr"{print $10; exit}'; }
G --quick-gen-key 'Core <core@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Alice <alice@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Mallory <mallory@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Stranger <stranger@example.org>' ed25519 cert,sign never 2>/dev/null
CORE=$(fpr_of core@) ALICE=$(fpr_of alice@) MALLORY=$(fpr_of mallory@) STRANGER=$(fpr_of stranger@)
for k in "$CORE" "$ALICE" "$MALLORY" "$STRANGER"; do
	[ ${#k} = 40 ] || { echo "FAIL: $name: could not make the test keys with gpg" >&2; exit 1; }
done
G -u "$CORE" --quick-sign-key "$ALICE" >/dev/null 2>&1
G --export "$CORE" "$ALICE" "$MALLORY" >"$w/pgpkeys.gpg"

# ---- upstream: unsigned commits under signed tags ------------------------------------------
u="$w/upstream"
git init -q -b master "$u"
gu() { GNUPGHOME="$w/g" git -C "$u" -c user.name=U -c user.email=u@example.org "$@"; }
commit() { echo "$1" >"$u/f"; gu add f; gu commit -q "${@:2}" -m "$1"; }
commit one
gu -c user.signingkey="$ALICE" tag -s v6.8 -m "Linux 6.8"
git clone -q "$u" "$w/linux"
commit two; commit three
gu -c user.signingkey="$ALICE" tag -s v6.9 -m "Linux 6.9"
# a tag by a trusted key on a commit it signed, tampered with
commit four -S --gpg-sign="$ALICE"
gu -c user.signingkey="$ALICE" tag -s v7.0 -m "Linux 7.0"
gu cat-file tag v7.0 | sed 's/Linux 7.0/Linux 7.0, trust me/' | gu hash-object -t tag -w --stdin >"$w/id"
gu update-ref refs/tags/v7.0 "$(cat "$w/id")"
# a tag by a signer the policy does not trust
commit five
gu -c user.signingkey="$MALLORY" tag -s v7.1 -m "Linux 7.1"

# ---- the man page's example, as written ----------------------------------------------------
awk '/^\.SH EXAMPLES/{e=1} e&&/^\.fi/{exit} e&&f{print} e&&/^\.nf/{f=1}' "$top/docs/ksp-gpg.1" |
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$w/example.sh"
grep -q '^git fetch origin tag v6.9 && git verify-tag FETCH_HEAD && git merge' "$w/example.sh" && ok ||
	bad "the man page's example has no tag recipe: $(cat "$w/example.sh")"
sed -i -e "s|pgpkeys.gpg|$w/pgpkeys.gpg|" -e "s/ABAF11C65A2970B130ABE3C479BE3E4300411886/$CORE/" "$w/example.sh"
(cd "$w" && bash -e "$w/example.sh") >"$w/out" 2>"$w/err"
expect_eq "$?" 0 "the example runs on a new machine"
[ $? = 0 ] || sed 's/^/  | /' "$w/out" "$w/err" | tail -20 >&2
git -C "$w/linux" merge-base --is-ancestor "$(gu rev-parse 'v6.9^{commit}')" HEAD && ok ||
	bad "unsigned commits under a trusted tag: not merged"
grep -q ' G ' "$w/out" && bad "an unsigned commit shown as G: $(cat "$w/out")" || ok

# the recipe with the other tags: nothing merged
recipe=$(grep '^git fetch origin tag' "$w/example.sh")
head=$(git -C "$w/linux" rev-parse HEAD)
for t in v7.0 v7.1; do
	(cd "$w/linux" && bash -c "${recipe//v6.9/$t}") >"$w/out" 2>"$w/err" && bad "the recipe took $t" || ok
	expect_eq "$(git -C "$w/linux" rev-parse HEAD)" "$head" "$t: nothing merged"
done

# ---- the log format: E and B commits do not crash git ---------------------------------------
commit six -S --gpg-sign="$STRANGER"
commit seven -S --gpg-sign="$ALICE"
gu cat-file commit HEAD | sed 's/^seven$/seven, changed/' | gu hash-object -t commit -w --stdin >"$w/id"
gu update-ref refs/heads/bad "$(cat "$w/id")"
(cd "$w/linux" && git fetch -q origin master bad:bad) || bad "fetch the E and B commits"
fmt=$(grep -o "git log --format='[^']*'" "$w/example.sh" | sed "s/^git log --format='//; s/'$//")
out=$(git -C "$w/linux" log --format="$fmt" -1 FETCH_HEAD~1 2>/dev/null)
expect_eq "$?:$(echo "$out" | cut -d' ' -f2)" "0:E" "the recommended format on an E commit"
out=$(git -C "$w/linux" log --format="$fmt" -1 bad 2>/dev/null)
expect_eq "$?:$(echo "$out" | cut -d' ' -f2)" "0:B" "the recommended format on a B commit"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
