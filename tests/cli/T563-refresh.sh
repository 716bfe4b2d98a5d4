#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp wot refresh (issue 24): a keyring git repository (kernel-sample
# keys) is loaded only when every commit since the last accepted one is
# signed by a key the core trusts (the party test keys: p1 the core, p2
# certified by p1, p3 not certified); a commit by p3, an unsigned commit,
# or a dirty work tree: refused, one line naming it, nothing loaded, the
# accepted commit kept.
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

# a work tree that is not HEAD's: refused
cp "$ks/$2" "$r/keys/"
gitr reset -q --hard "$good"
cp "$ks/$1" "$r/keys/"
expect_code 1 $KSP -d "$T/s.db" wot refresh --core-fpr "$P1" --since "$good" "$r"
expect_match "$ERR" 'the work tree is not HEAD.s .*nothing was loaded'
expect_eq "$(keys)" 4 "nothing loaded"
test_done
