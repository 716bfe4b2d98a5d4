#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp wot refresh (issue 24): a keyring git repository (kernel-sample
# keys) is loaded only when every commit since the last accepted one is
# signed by a key the core trusts (the party test keys: p1 the core, p2
# certified by p1, p3 not certified); a commit by p3 or an unsigned
# commit: refused, one line naming it, nothing loaded, the accepted commit
# kept.  What is loaded is the commit's tree from git's objects, whatever
# the work tree and .git say (issue 34: seven tricks, below).
. "$(dirname "$0")/test-lib.sh"

command -v git >/dev/null || { echo "T563: git is not installed (apt-get install git)" >&2; exit 2; }
T="$TEST_TMP"
fx="$TOP/tests/keyrings/party"
ks="$TOP/tests/data/kernel-sample/keys"
export GIT_CONFIG_NOSYSTEM=1 HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
mkdir -p "$HOME"
G() { gpg --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
for i in 1 2 3; do G --import "$fx/p$i-secret.asc" 2>/dev/null; done
fpr_of() { G --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
P1=$(fpr_of "$fx/p1-public.asc") P2=$(fpr_of "$fx/p2-public.asc") P3=$(fpr_of "$fx/p3-public.asc")
G -u "$P1" --quick-sign-key "$P2" >/dev/null 2>&1
G --export "$P1" "$P2" "$P3" >"$T/signers.gpg"

r="$T/repo"
git init -q -b main "$r"
gitr() { git -C "$r" "$@"; }
gitr config user.name T563; gitr config user.email t563@example.org; gitr config gpg.program gpg
commit() { # SIGNER|- MESSAGE
	if [ "$1" = - ]; then gitr commit -q -m "$2"; else gitr -c user.signingkey="$1" commit -q -S -m "$2"; fi
}
keys() { sqlite3 "$T/s.db" "SELECT count(*) FROM keys WHERE source = '$(cd "$r" && pwd -P)'"; }
accepted() { sqlite3 "$T/s.db" "SELECT commit_id FROM refresh"; }
mkdir -p "$r/keys"
set -- $(ls "$ks" | head -n 6)
cp "$ks/$1" "$ks/$2" "$ks/$3" "$ks/$4" "$r/keys/"
gitr add keys; commit "$P2" "four keys"
cp "$ks/$5" "$ks/$6" "$r/keys/"; gitr rm -q "keys/$1"; gitr add keys; commit "$P1" "two more, one less"

test_begin refresh
expect_code 0 $KSP -d "$T/s.db" wot load "$T/signers.gpg"
expect_code 2 $KSP -d "$T/s.db" wot refresh "$r"
expect_match "$ERR" 'give the core'
expect_code 0 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" "$r"
expect_match "$OUT" '2 commits checked, signed by keys the core trusts; loaded [0-9a-f]{40}: 5 keys'
expect_eq "$(keys)" 5 "the tree at HEAD is loaded"
expect_eq "$(accepted)" "$(gitr rev-parse HEAD)" "HEAD accepted"
expect_code 0 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" "$r"
expect_match "$OUT" 'up to date at'

# a commit by a key the core does not trust, then an unsigned one: refused
good=$(gitr rev-parse HEAD)
cp "$ks/$1" "$r/keys/"; gitr add keys; commit "$P3" "by p3"
bad=$(gitr rev-parse HEAD)
expect_code 1 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" "$r"
expect_match "$ERR" "commit $bad is signed by $P3, a key the core does not trust: nothing was loaded"
expect_eq "$(wc -l <"$ERR")" 1 "one line"
expect_eq "$(keys)" 5 "nothing loaded"
expect_eq "$(accepted)" "$good" "the accepted commit kept"
gitr commit -q --amend --no-gpg-sign -m unsigned
bad=$(gitr rev-parse HEAD)
expect_code 1 $KSP -d "$T/s.db" --json wot refresh --core-fpr "$P1" "$r"
expect_match "$ERR" "commit $bad has no good signature by a key of the store .*nothing was loaded"
expect_eq "$(keys)" 5 "nothing loaded"

# signed by the certified p2 instead: loaded, the removed key gone again
gitr reset -q --hard "$good"
gitr rm -q "keys/$2"; commit "$P2" "one less"
expect_code 0 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" "$r"
expect_match "$OUT" '1 commit checked'
expect_eq "$(keys)" 4 "the key removed from the repository is removed"
expect_eq "$(accepted)" "$(gitr rev-parse HEAD)" "HEAD accepted"

# a commit that changes no key file: checked, nothing loaded
echo notes >"$r/README"; gitr add README; commit "$P1" "a README"
expect_code 0 $KSP -v -d "$T/s.db" wot refresh --core-fpr "$P1" "$r"
expect_match "$OUT" '1 commit checked, signed by keys the core trusts; no key file changed'
expect_eq "$(accepted)" "$(gitr rev-parse HEAD)" "HEAD accepted"
good=$(gitr rev-parse HEAD)

# the work tree is not what is loaded: a key file added to it, and one
# changed, are not loaded (the tree of HEAD's commit is)
cp "$ks/$2" "$r/keys/"
gitr reset -q --hard "$good"
cp "$ks/$1" "$r/keys/"
expect_code 0 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" --full "$r"
expect_eq "$(keys)" 4 "the work tree's extra key is not loaded"

# ---- a hostile .git (issue 34): the seven tricks that made the work tree
# pass for HEAD's; each on its own copy of a repository whose one signed
# commit holds 4 keys and keys/extra.asc (key X), with key E put where the
# trick hides it.  Loaded: what the commit holds, or nothing; never E;
# nothing run.
set -- $(ls "$ks" | sed -n 7,12p)
kid_of() { basename "$1" .asc; }
X=$(kid_of "$5") E=$(kid_of "$6") EF="$ks/$6"
b="$T/base"
git init -q -b main "$b"
git -C "$b" config user.name T563; git -C "$b" config user.email t563@example.org
mkdir -p "$b/keys"
cp "$ks/$1" "$ks/$2" "$ks/$3" "$ks/$4" "$b/keys/"
cp "$ks/$5" "$b/keys/extra.asc"
git -C "$b" add keys
git -C "$b" -c user.signingkey="$P1" -c gpg.program=gpg commit -q -S -m "four keys and X"
cp "$T/h0.db" "$T/h.db" 2>/dev/null || { $KSP -d "$T/h0.db" wot load "$T/signers.gpg" >/dev/null; cp "$T/h0.db" "$T/h.db"; }
has() { sqlite3 "$T/h.db" "SELECT count(*) FROM keys WHERE fpr LIKE '%$1'"; }
src_keys() { sqlite3 "$T/h.db" "SELECT count(*) FROM keys WHERE source = '$(cd "$1" && pwd -P)'"; }
trick() { # NAME: a fresh copy $c with E in the work tree's keys/extra.asc
	c="$T/t-$1"
	rm -rf "$c"; cp -a "$b" "$c"
	cp "$EF" "$c/keys/extra.asc"
}
hidden() { # the trick hides the change from git status (on this git)
	expect_eq "$(git -C "$c" status --porcelain --ignored --untracked-files=all 2>&1)" "" "$1: git status is clean"
}
loaded_signed() { # NAME: exit 0, the commit's 5 keys, not E
	expect_code 0 $KSP -d "$T/h.db" wot refresh --core-fpr "$P1" "$c"
	expect_eq "$(src_keys "$c")" 5 "$1: the signed commit's keys loaded"
	expect_eq "$(has "$X")" 1 "$1: X (signed) loaded"
	expect_eq "$(has "$E")" 0 "$1: E (in no commit) not loaded"
}
refused() { # NAME REGEX: exit 1, one line, nothing loaded
	expect_code 1 $KSP -d "$T/h.db" wot refresh --core-fpr "$P1" "$c"
	expect_match "$ERR" "$2"
	expect_eq "$(wc -l <"$ERR")" 1 "$1: one line"
	expect_eq "$(src_keys "$c")" 0 "$1: nothing loaded"
	expect_eq "$(has "$E")" 0 "$1: E not loaded"
}

# 1. core.fsmonitor: a command of the repository's; never run
trick fsmonitor
printf '#!/bin/sh\ntouch "%s"\nexit 1\n' "$T/fsmonitor-ran" >"$T/fsmon.sh"; chmod +x "$T/fsmon.sh"
git -C "$c" update-index --skip-worktree keys/extra.asc
git -C "$c" config core.fsmonitor "$T/fsmon.sh"
loaded_signed fsmonitor
[ ! -e "$T/fsmonitor-ran" ] && _test_pass "fsmonitor: not run" || _test_fail "fsmonitor: the repository's command ran"
# 2. update-index --skip-worktree
trick skip; git -C "$c" update-index --skip-worktree keys/extra.asc; hidden skip-worktree
loaded_signed skip-worktree
# 3. update-index --assume-unchanged
trick assume; git -C "$c" update-index --assume-unchanged keys/extra.asc; hidden assume-unchanged
loaded_signed assume-unchanged
# 4. core.ignoreStat (entries written after it is set are assumed unchanged)
rm -rf "$T/t-ignorestat"; cp -a "$b" "$T/t-ignorestat"; c="$T/t-ignorestat"
git -C "$c" config core.ignoreStat true
rm "$c/keys/extra.asc"; git -C "$c" checkout -q -- keys/extra.asc
cp "$EF" "$c/keys/extra.asc"; hidden ignoreStat
loaded_signed ignoreStat
# 5. core.worktree: git looks at a clean copy elsewhere, E sits in DIR
trick worktree; cp -a "$b" "$T/clean-copy"; rm -rf "$T/clean-copy/.git"
git -C "$c" config core.worktree "$T/clean-copy"; hidden core.worktree
refused core.worktree 'sets core.worktree .*nothing was loaded'
# 6. a .git file (gitdir:) to a repository that sees a clean work tree
trick gitfile; mv "$c/.git" "$T/moved.git"; echo "gitdir: $T/moved.git" >"$c/.git"
git -C "$c" update-index --skip-worktree keys/extra.asc; hidden gitdir
refused gitdir 'not the top of a git repository .*a file, gitdir: elsewhere.*nothing was loaded'
# 7. a signed symlink into .git
rm -rf "$T/t-link"; cp -a "$b" "$T/t-link"; c="$T/t-link"
ln -s ../.git/x.asc "$c/keys/l.asc"; git -C "$c" add keys/l.asc
git -C "$c" -c user.signingkey="$P1" -c gpg.program=gpg commit -q -S -m "a link"
cp "$EF" "$c/.git/x.asc"; hidden symlink
refused symlink 'keys/l.asc is a symlink to no file of the commit.s tree .*nothing was loaded'
# a forged object: keys/extra.asc's blob (X) replaced in .git/objects by E
# under the same ID: git hands it out, ksp hashes it again and refuses
rm -rf "$T/t-forged"; cp -a "$b" "$T/t-forged"; c="$T/t-forged"
oid=$(git -C "$c" rev-parse HEAD:keys/extra.asc)
/usr/bin/python3 -c 'import sys, zlib; d = open(sys.argv[2], "rb").read(); o = sys.argv[1]
p = sys.argv[3] + "/.git/objects/" + o[:2] + "/" + o[2:]
import os; os.chmod(p, 0o644); open(p, "wb").write(zlib.compress(b"blob %d\0" % len(d) + d))' "$oid" "$EF" "$c"
expect_eq "$(git -C "$c" cat-file blob "$oid" | cmp -s - "$EF" && echo forged)" forged "git hands out the forged blob"
refused forged-object "git object $oid is missing, not a blob, or does not match its ID: nothing was loaded"
# a .keyring lookup symlink to a key file of the tree (pgpkeys' layout): kept
rm -rf "$T/t-lookup"; cp -a "$b" "$T/t-lookup"; c="$T/t-lookup"
mkdir -p "$c/.keyring/openpgp/example.org/x"; ln -s "../../../../keys/$1" "$c/.keyring/openpgp/example.org/x/default"
git -C "$c" add .keyring; git -C "$c" -c user.signingkey="$P1" -c gpg.program=gpg commit -q -S -m "a lookup"
expect_code 0 $KSP -d "$T/h.db" wot refresh --core-fpr "$P1" "$c"
expect_eq "$(src_keys "$c")" 5 "a .keyring symlink into keys/: loaded"
# not the top: a folder inside the work tree
c="$b/keys"
refused subfolder 'not the top of a git repository .*missing'
test_done
