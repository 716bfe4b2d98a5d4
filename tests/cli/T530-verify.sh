#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp verify: signatures (detached, cleartext, signed message), signed git
# tags and commits made in a test repository, judged by the web of trust.
# p1 (the core) certifies p2; p3 is in the store but not certified; p4 is
# not in the store.  p2 signs with a subkey added here, and with subkeys
# that expired or were revoked (faked gpg times).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings/party"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T530-verify
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'gpgconf --homedir "$w/g" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export KSP_DB="$w/s.db"
export LC_ALL=C
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2; shift 2
	"$@" >"$w/out" 2>"$w/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$msg: exit $got, want $want"; sed 's/^/  | /' "$w/out" "$w/err" | head -20 >&2; fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else bad "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -20 >&2; fi
}
expect_nogrep() {
	if grep -qE -- "$2" "$1"; then bad "$3: /$2/ found in $1"; else ok; fi
}
expect_eq() { # GOT WANT MSG
	if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}
# first line of stdout is the verdict
verdict() { head -n 1 "$w/out"; }

command -v git >/dev/null || { echo "$name: git is not installed (apt-get install git)" >&2; exit 2; }

mkdir -m 700 "$w/g"
G() { gpg --homedir "$w/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { G --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
newest_sign_sub() { G --with-colons -k "$1" | awk -F: '$1=="sub"&&$12~/s/{getline; print $10}' | tail -n 1; }
P1=$(fpr_of "$fx/p1-public.asc") P2=$(fpr_of "$fx/p2-public.asc")
P3=$(fpr_of "$fx/p3-public.asc") P4=$(fpr_of "$fx/p4-public.asc")
for i in 1 2 3 4; do G --import "$fx/p$i-secret.asc" 2>/dev/null; done
G -u "$P1" --quick-sign-key "$P2" >/dev/null 2>&1

# p2's subkeys: S_EXP made 2025-01-01 and expiring 2025-06-01 (set on
# 2025-02-01), S_REV revoked for "key compromised", S_SOFT revoked as
# "superseded" after it signed, then S_MAIN (newest: gpg's default).
G --faked-system-time '20250101T000000!' --quick-add-key "$P2" ed25519 sign 2>/dev/null
S_EXP=$(newest_sign_sub "$P2")
G --faked-system-time '20250101T000100!' --quick-add-key "$P2" ed25519 sign 2>/dev/null
S_REV=$(newest_sign_sub "$P2")
G --faked-system-time '20250101T000200!' --quick-add-key "$P2" ed25519 sign 2>/dev/null
S_SOFT=$(newest_sign_sub "$P2")
echo "signed in March 2025" >"$w/old.txt"
G --faked-system-time '20250301T000000!' -u "$S_EXP!" -o "$w/old-valid.sig" --detach-sign "$w/old.txt" 2>/dev/null
G --faked-system-time '20250301T000000!' -u "$S_REV!" -o "$w/old-rev.sig" --detach-sign "$w/old.txt" 2>/dev/null
G --faked-system-time '20250301T000000!' -u "$S_SOFT!" -o "$w/old-soft.sig" --detach-sign "$w/old.txt" 2>/dev/null
G --faked-system-time '20250901T000000!' -u "$S_EXP!" -o "$w/old-late.sig" --detach-sign "$w/old.txt" 2>/dev/null
G --faked-system-time '20250201T000000!' --quick-set-expire "$P2" 2025-06-01 "$S_EXP" 2>/dev/null
# gpg's menu: 1 = compromised, 2 = superseded (codes 0x02 and 0x01)
printf 'key %s\nrevkey\ny\n1\n\ny\nsave\n' "$S_REV" | G --command-fd 0 --edit-key "$P2" >/dev/null 2>&1
printf 'key %s\nrevkey\ny\n2\n\ny\nsave\n' "$S_SOFT" | G --command-fd 0 --edit-key "$P2" >/dev/null 2>&1
G --quick-add-key "$P2" ed25519 sign 2>/dev/null
S_MAIN=$(newest_sign_sub "$P2")
if [ -z "$S_EXP" ] || [ -z "$S_REV" ] || [ -z "$S_SOFT" ] || [ -z "$S_MAIN" ] || [ "$S_MAIN" = "$S_SOFT" ]; then
	echo "$name: could not make p2's signing subkeys with gpg" >&2; exit 2
fi
G --with-colons -k "$P2" | grep -q "^sub:r:.*:${S_REV:24}:" && ok || bad "S_REV is revoked in gpg"
G --export "$P1" "$P2" "$P3" >"$w/keys.gpg"
expect_code 0 "load p1 p2 p3" $KSP wot load "$w/keys.gpg"
expect_eq "$(sqlite3 "$KSP_DB" 'SELECT count(*) FROM keys')" 3 "keys in the store"

V="verify --core-fpr $P1"
echo "release 1.0, all good" >"$w/file.txt"

# --- detached, by p2's newest signing subkey (gpg's choice), armored
G -u "$P2" -a -o "$w/file.txt.asc" --detach-sign "$w/file.txt"
expect_code 0 "detached by a subkey" $KSP $V "$w/file.txt.asc" "$w/file.txt"
expect_eq "$(verdict)" "$w/file.txt.asc: good signature by $P2 (subkey $S_MAIN), made $(sed -n 's/^  made: *//p' "$w/out"); trusted: 1 vertex-disjoint path of at most 5 hops from the core" "verdict line"
expect_grep "$w/out" "^  signer:      $P2 \"P2 INSECURE <p2@example.org>\"$" "signer and user ID"
expect_grep "$w/out" "^  signing key: $S_MAIN \(subkey\)$" "signing subkey"
expect_grep "$w/out" "^  path 1 \(1 hop\):$" "the path is shown"
expect_grep "$w/out" "^    $P1$" "path starts at the core"
expect_grep "$w/out" "^      certified $P2 on " "path hop"
expect_eq "$(wc -l <"$w/out")" 8 "lines of output"
expect_code 0 "quiet" $KSP $V -q "$w/file.txt.asc" "$w/file.txt"
expect_eq "$(wc -l <"$w/out")" 1 "quiet prints the verdict only"
# the data file found by dropping .asc
expect_code 0 "detached, data file implied" $KSP $V "$w/file.txt.asc"
expect_grep "$w/out" "trusted: 1 vertex-disjoint" "implied data file verdict"
# JSON
expect_code 0 "json" $KSP --json $V "$w/file.txt.asc" "$w/file.txt"
expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["good_signature"], d["trusted"], d["signer"], d["signing_key"], d["subkey"], d["mode"], d["trust"]["paths"][0][0]["signer"], d["uid"])' "$w/out")" \
	"good True True $P2 $S_MAIN True detached $P1 P2 INSECURE <p2@example.org>" "json fields"

# the binding question: is the signer trusted for this address?
expect_code 0 "--email of the signer" $KSP $V --email P2@Example.org "$w/file.txt.asc" "$w/file.txt"
expect_code 1 "--email the signer does not have" $KSP $V --email p3@example.org "$w/file.txt.asc" "$w/file.txt"
expect_grep "$w/out" "has no user ID with that address" "--email: why not trusted"

# --- detached by the primary key, binary
G -u "$P2!" -o "$w/file.txt.sig" --detach-sign "$w/file.txt"
expect_code 0 "detached by the primary key" $KSP $V "$w/file.txt.sig" "$w/file.txt"
expect_grep "$w/out" "^$w/file.txt.sig: good signature by $P2, made " "primary key verdict"
expect_nogrep "$w/out" "subkey" "no subkey for a primary key signature"
# from stdin
expect_code 0 "signature on stdin" sh -c "$KSP $V - '$w/file.txt' <'$w/file.txt.sig'"

# --- cleartext and signed (compressed) messages
G -u "$P2" -o "$w/clear.asc" --clearsign "$w/file.txt"
expect_code 0 "cleartext" $KSP $V "$w/clear.asc"
expect_grep "$w/out" "^$w/clear.asc: good signature by $P2 \(subkey $S_MAIN\)" "cleartext verdict"
expect_grep "$w/out" "^  signer:      $P2 \"P2 INSECURE <p2@example.org>\"$" "cleartext: the signer's user ID"
G -u "$P2" -o "$w/msg.gpg" --sign "$w/file.txt"
expect_code 0 "signed message" $KSP $V "$w/msg.gpg"
expect_grep "$w/out" "good signature by $P2 \(subkey $S_MAIN\).*; trusted" "signed message verdict"

# --- tampering
cp "$w/file.txt" "$w/tampered.txt"; echo "one more line" >>"$w/tampered.txt"
expect_code 1 "tampered data" $KSP $V "$w/file.txt.asc" "$w/tampered.txt"
expect_eq "$(verdict)" "$w/file.txt.asc: bad signature: the data or the signature was changed after it was signed (issuer $S_MAIN, a subkey of $P2)" "bad signature verdict"
expect_nogrep "$w/out" "trusted" "no trust verdict on a bad signature"
sed 's/all good/all evil/' "$w/clear.asc" >"$w/clear-bad.asc"
expect_code 1 "tampered cleartext" $KSP $V "$w/clear-bad.asc"
expect_grep "$w/out" "bad signature" "tampered cleartext verdict"

# --- a key of the store that the core does not reach
G -u "$P3" -a -o "$w/p3.asc" --detach-sign "$w/file.txt"
expect_code 1 "signed by p3" $KSP $V "$w/p3.asc" "$w/file.txt"
expect_grep "$w/out" "^$w/p3.asc: good signature by $P3, made .*; not trusted: no certification path" "p3 is not trusted"
# ... unless p3 is the core
expect_code 0 "p3 as the core" $KSP verify --core-fpr "$P3" "$w/p3.asc" "$w/file.txt"
expect_grep "$w/out" "trusted: $P3 is a core key" "a core key trusts itself"
# ... and p2 is not trusted with two paths required
expect_code 1 "p2 with --min-paths 2" $KSP $V --min-paths 2 "$w/file.txt.asc" "$w/file.txt"
expect_grep "$w/out" "good signature by $P2.*; not trusted: " "min-paths 2 verdict"

# --- a key that is not in the store
G -u "$P4" -a -o "$w/p4.asc" --detach-sign "$w/file.txt"
expect_code 1 "signed by p4" $KSP $V "$w/p4.asc" "$w/file.txt"
expect_grep "$w/out" "^$w/p4.asc: signed by key $P4, which is not in the store .*; get the signer's key and load it with 'ksp wot load FILE'$" "p4 verdict"
expect_code 1 "json: p4" $KSP --json $V "$w/p4.asc" "$w/file.txt"
expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["good_signature"], d["trusted"], d["issuer"], d["signer"], d["trust"])' "$w/out")" \
	"key_unknown False False $P4 None None" "json: unknown key"

# --- subkeys valid, expired, revoked at signature time
expect_code 0 "subkey that expired after it signed" $KSP $V "$w/old-valid.sig" "$w/old.txt"
expect_grep "$w/out" "good signature by $P2 \(subkey $S_EXP\), made 2025-03-01T00:00:00Z; trusted" "expired later: good"
expect_code 1 "subkey that had expired when it signed" $KSP $V "$w/old-late.sig" "$w/old.txt"
expect_grep "$w/out" "^$w/old-late.sig: signed on 2025-09-01T00:00:00Z by subkey $S_EXP, which had expired on 2025-06-01" "expired verdict"
expect_code 1 "revoked subkey (compromised)" $KSP $V "$w/old-rev.sig" "$w/old.txt"
expect_grep "$w/out" "by subkey $S_REV of $P2, a revoked subkey \(key compromised, " "revoked verdict"
expect_code 0 "subkey superseded after it signed" $KSP $V "$w/old-soft.sig" "$w/old.txt"
expect_grep "$w/out" "good signature by $P2 \(subkey $S_SOFT\), made 2025-03-01" "superseded later: good"

# --- usage and input errors: exit 2, one line on stderr
expect_code 2 "no core" $KSP verify "$w/file.txt.asc" "$w/file.txt"
expect_grep "$w/err" "give the core" "no core message"
expect_code 2 "no signature" $KSP $V
expect_code 2 "file and git tag" $KSP $V "$w/file.txt.asc" --git-tag v1
expect_code 2 "missing file" $KSP $V "$w/nope.asc" "$w/file.txt"
expect_grep "$w/err" "nope.asc: cannot read: No such file" "missing file message"
expect_code 2 "a key, not a signature" $KSP $V "$fx/p1-public.asc" "$w/file.txt"
expect_grep "$w/err" "p1-public.asc: an OpenPGP key, not a signature; " "key file message"
expect_code 2 "not OpenPGP" $KSP $V "$w/file.txt" "$w/file.txt"
expect_grep "$w/err" "file.txt: no OpenPGP signature found" "text file message"
cp "$w/file.txt.sig" "$w/lonely.bin"
expect_code 2 "detached without data" $KSP $V "$w/lonely.bin"
expect_grep "$w/err" "lonely.bin: a detached signature; give the file it signs" "detached without data message"
expect_code 2 "signed message with a data file" $KSP $V "$w/clear.asc" "$w/file.txt"
expect_grep "$w/err" "not a detached signature" "inline given as detached message"
expect_code 2 "no store" $KSP -d "$w/none.db" $V "$w/file.txt.asc"
expect_eq "$(tail -n 1 "$w/err")" "ksp: $w/none.db: no such store; create one with 'ksp party init' or 'ksp wot load', or pick another with -d FILE" "no store message"

# --- git: a real repository, signed by p2 through git and gpg
r="$w/repo"
git init -q "$r"
git -C "$r" config user.name "T530"; git -C "$r" config user.email "t530@example.org"
git -C "$r" config commit.gpgsign false; git -C "$r" config tag.gpgsign false
echo one >"$r/a"; git -C "$r" add a; git -C "$r" commit -q -m "unsigned commit"
gitg() { GNUPGHOME="$w/g" git -C "$r" -c gpg.program=gpg "$@"; }
gitg -c user.signingkey="$P2" tag -s v1 -m "release v1" || bad "git tag -s"
gitg -c user.signingkey="$P2" commit -q -S --allow-empty -m "signed commit" || bad "git commit -S"
git -C "$r" tag -a v0 -m "unsigned annotated tag"
git -C "$r" tag light
meta='v2;touch>PWNED;$(touch>PWNED2)`touch>PWNED3`|&'
gitg -c user.signingkey="$P2" tag -s "$meta" -m "odd name" || bad "git tag with metacharacters"
gitg -c user.signingkey="$P3" tag -s by-p3 -m "by p3" || bad "git tag by p3"

expect_code 0 "signed tag" $KSP $V --git-tag v1 --repo "$r"
expect_grep "$w/out" "^tag v1: good signature by $P2 \(subkey $S_MAIN\), made .*; trusted: 1 vertex-disjoint" "signed tag verdict"
expect_grep "$w/out" "^  path 1 \(1 hop\):$" "signed tag path"
expect_code 0 "signed commit" $KSP $V --git-commit HEAD --repo "$r"
expect_grep "$w/out" "^commit HEAD: good signature by $P2 \(subkey $S_MAIN\)" "signed commit verdict"
expect_code 0 "signed tag, repository as the current directory" sh -c "cd '$r' && $KSP -d '$KSP_DB' $V --git-tag v1"
expect_code 1 "unsigned annotated tag" $KSP $V --git-tag v0 --repo "$r"
expect_eq "$(verdict)" "tag v0: not signed: the tag carries no signature (made without git tag -s)" "unsigned tag verdict"
expect_code 1 "lightweight tag" $KSP $V --git-tag light --repo "$r"
expect_grep "$w/out" "^tag light: not signed: a lightweight tag" "lightweight tag verdict"
expect_code 1 "unsigned commit" $KSP $V --git-commit HEAD~1 --repo "$r"
expect_eq "$(verdict)" "commit HEAD~1: not signed: the commit carries no signature (made without git commit -S)" "unsigned commit verdict"
expect_code 1 "tag by p3" $KSP $V --git-tag by-p3 --repo "$r"
expect_grep "$w/out" "^tag by-p3: good signature by $P3, .*; not trusted" "tag by p3 verdict"
(cd "$w" && $KSP $V --git-tag "$meta" --repo "$r" >"$w/out" 2>"$w/err"); got=$?
expect_eq "$got" 0 "tag with shell metacharacters"
expect_grep "$w/out" "^tag v2;touch>PWNED;" "metacharacter tag verdict"
expect_eq "$(ls "$w" "$r" | grep -c PWNED)" 0 "no shell ran the tag name"
expect_code 2 "no such tag" $KSP $V --git-tag nope --repo "$r"
expect_grep "$w/err" "tag nope: git cat-file failed: fatal: " "no such tag message"
expect_code 2 "option-like tag" $KSP $V --git-tag=--help --repo "$r"
expect_grep "$w/err" "not a tag name" "option-like tag message"
expect_code 2 "not a repository" $KSP $V --git-tag v1 --repo "$w/tmp"
# a tag object changed after signing
git -C "$r" cat-file tag v1 | sed 's/release v1/release v666/' | git -C "$r" hash-object -t tag -w --stdin >"$w/evil.oid"
git -C "$r" update-ref refs/tags/evil "$(cat "$w/evil.oid")"
expect_code 1 "tampered tag" $KSP $V --git-tag evil --repo "$r"
expect_grep "$w/out" "^tag evil: bad signature" "tampered tag verdict"
# a signed merge of a signed tag: the mergetag header stays in the payload
git -C "$r" checkout -q -b side HEAD~1
echo two >"$r/b"; git -C "$r" add b; git -C "$r" commit -q -m "side work"
gitg -c user.signingkey="$P2" tag -s side-v1 -m "side release" || bad "git tag side-v1"
git -C "$r" checkout -q -
gitg -c user.signingkey="$P2" merge -q --no-ff -S -m "merge side" side-v1 >/dev/null 2>&1 || bad "signed merge"
git -C "$r" cat-file commit HEAD | grep -q '^mergetag ' && ok || bad "merge commit has a mergetag header"
expect_code 0 "signed merge commit with a mergetag" $KSP $V --git-commit HEAD --repo "$r"
expect_grep "$w/out" "^commit HEAD: good signature by $P2" "merge commit verdict"
expect_code 0 "json: git tag" $KSP --json $V --git-tag v1 --repo "$r"
expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["source"], d["mode"], d["status"], d["trusted"])' "$w/out")" \
	"tag v1 git-tag good True" "json: git tag fields"

# --- ksp never used the GnuPG home of the environment, and left no home behind
[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was touched"
expect_eq "$(find "$TMPDIR" -maxdepth 1 -name 'ksp-gnupg.*' | wc -l)" 0 "private GnuPG homes removed"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
