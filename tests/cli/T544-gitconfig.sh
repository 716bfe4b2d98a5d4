#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp-gpg reads ksp.db from git's configuration files without starting
# git (issue 38): for each set-up, the value it takes must be the one
# 'git config --get ksp.db' gives, LIVE: the system file, the global files
# (~/.gitconfig, $XDG_CONFIG_HOME/git/config, GIT_CONFIG_GLOBAL), the
# repository's config, config.worktree, a linked work tree, 'git -c',
# include.path, includeIf "gitdir:" and "gitdir/i:" (matching and not),
# quoting, escapes, comments, continued lines, subsections, case.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T544-gitconfig
KG="$top/ksp-gpg"
[ "${KSP_VALGRIND:-0}" = 1 ] && KG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KG"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'gpgconf --homedir "$w/g" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export LC_ALL=C
unset KSP_DB KSP_GPG_REAL KSP_GPG_FORWARDED GNUPGHOME GIT_DIR GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM \
	GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_CONFIG_NOSYSTEM XDG_CONFIG_HOME
export HOME="$w/home"
mkdir -p "$HOME"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

for t in gpg git; do
	command -v $t >/dev/null || { echo "FAIL: $name: $t is not installed (apt-get install ${t/gpg/gnupg})" >&2; exit 1; }
done
[ -x "$top/ksp-gpg" ] || { echo "FAIL: $name: $top/ksp-gpg is not built (run make)" >&2; exit 1; }
mkdir -m 700 "$w/g"
gpg --homedir "$w/g" --batch --quiet --passphrase '' --quick-gen-key 'T <t@example.org>' ed25519 sign never 2>/dev/null
echo data >"$w/data"
gpg --homedir "$w/g" --batch --quiet -o "$w/data.sig" --detach-sign "$w/data" || { echo "FAIL: $name: gpg cannot sign" >&2; exit 1; }
export KSP_POLICY="$w/policy" # the store is looked up first; the policy is never read

# what ksp-gpg takes as ksp.db here: the path, or "(unset)"
kg_value() {
	$KG --status-fd=1 --verify "$w/data.sig" "$w/data" >/dev/null 2>"$w/err"
	if grep -q '^ksp-gpg: no ksp store: ' "$w/err"; then echo "(unset)"; return; fi
	sed -n 's/^ksp-gpg: \(.*\) (git config ksp.db): .*/\1/p; s/^ksp-gpg: git config ksp.db: "\(.*\)" is a relative path.*/\1/p' "$w/err" | head -n 1 |
		sed 's/\\\\/\\/g' # the terminal escape of a backslash
}
git_value() { git config --get ksp.db 2>/dev/null || echo "(unset)"; }
same() { # MSG: ksp-gpg's value is git's here
	local k g
	k=$(kg_value) g=$(git_value)
	if [ "$k" = "$g" ]; then ok; else bad "$1: ksp-gpg took '$k', git config --get says '$g'"; sed 's/^/  | /' "$w/err" >&2; fi
}

r="$w/repo"
git init -q "$r"
cd "$r" || exit 1
same "nothing set"
# the system file
printf '[ksp]\n\tdb = /sys/store.db\n' >"$w/system"
export GIT_CONFIG_SYSTEM="$w/system"
same "system file"
GIT_CONFIG_NOSYSTEM=1 same "GIT_CONFIG_NOSYSTEM"
# the global files: XDG, then ~/.gitconfig
mkdir -p "$HOME/.config/git"
printf '[ksp]\n\tdb = /xdg/store.db\n' >"$HOME/.config/git/config"
same "~/.config/git/config"
printf '[core]\n\tx = 1\n[KSP]\n  DB = /home/store.db ; a comment\n' >"$HOME/.gitconfig"
same "~/.gitconfig after XDG, section and key without case"
mkdir -p "$w/xdg/git"
printf '[ksp]\n\tdb = /xdg2/store.db\n' >"$w/xdg/git/config"
XDG_CONFIG_HOME="$w/xdg" same "XDG_CONFIG_HOME"
printf '[ksp]\n\tdb = /gcg/store.db\n' >"$w/gcg"
GIT_CONFIG_GLOBAL="$w/gcg" same "GIT_CONFIG_GLOBAL"
# the repository's, over the global
git config ksp.db '/repo/with space/store.db'
same "repository config"
mkdir -p sub/deeper
(cd sub/deeper && same "repository config, from a subdirectory")
printf '[ksp]\n\tdb = "/q/a \\"quoted\\" \\\\ name"   # comment\n' >>.git/config
same "quotes and escapes"
printf '[ksp]\n\tdb = /cont/\\\nnued.db\n' >>.git/config
same "a continued line"
printf '[ksp "sub"]\n\tdb = /subsection.db\n[ksp.Other]\n\tdb = /old-form.db\n' >>.git/config
same "subsections are other keys"
# config.worktree, with and without extensions.worktreeConfig
printf '[ksp]\n\tdb = /worktree.db\n' >.git/config.worktree
same "config.worktree without the extension"
git config extensions.worktreeConfig true
same "config.worktree with the extension"
git config --unset extensions.worktreeConfig
rm .git/config.worktree
# a linked work tree reads the common config
git -c user.name=T -c user.email=t@example.org commit -q --allow-empty -m one
git worktree add -q "$w/linked" 2>/dev/null
(cd "$w/linked" && same "a linked work tree")
# include.path (relative to the including file) and includeIf
printf '[ksp]\n\tdb = /included.db\n' >"$r/.git/inc1"
printf '[include]\n\tpath = inc1\n' >>.git/config
same "include.path, relative"
printf '[ksp]\n\tdb = /gitdir-match.db\n' >"$w/inc2"
printf '[includeIf "gitdir:%s/"]\n\tpath = %s\n' "$r" "$w/inc2" >>.git/config
same "includeIf gitdir: matching"
printf '[ksp]\n\tdb = /gitdir-nomatch.db\n' >"$w/inc3"
printf '[includeIf "gitdir:/elsewhere/"]\n\tpath = %s\n' "$w/inc3" >>.git/config
same "includeIf gitdir: not matching"
printf '[ksp]\n\tdb = /gitdir-i.db\n' >"$w/inc4"
printf '[includeIf "gitdir/i:%s/"]\n\tpath = %s\n' "$(echo "$r" | tr a-z A-Z)" "$w/inc4" >>.git/config
same "includeIf gitdir/i: without case"
printf '[ksp]\n\tdb = /gitdir-star.db\n' >"$w/inc5"
printf '[includeIf "gitdir:**/repo/.git"]\n\tpath = %s\n' "$w/inc5" >>.git/config
same "includeIf gitdir: with **"
printf '[includeIf "gitdir:~/x/"]\n\tpath = %s\n' "$w/inc3" >>.git/config
same "includeIf gitdir: ~/"
# relative values: the value is git's, and refused
git config --replace-all ksp.db relative.db
same "a relative value"
# git -c, as git passes it to gpg.program (GIT_CONFIG_PARAMETERS)
printf '#!/bin/sh\nexec %s "$@"\n' "$KG" >"$w/kg"
chmod +x "$w/kg"
GNUPGHOME="$w/g" git -c user.name=T -c user.email=t@example.org -c user.signingkey=t@example.org \
	commit -q --allow-empty -S -m signed || bad "a signed commit"
git -c gpg.program="$w/kg" -c 'ksp.db=/dash c/store.db' verify-commit HEAD >/dev/null 2>"$w/err"
grep -q '^ksp-gpg: /dash c/store.db (git config ksp.db): ' "$w/err" && ok || { bad "git -c ksp.db"; sed 's/^/  | /' "$w/err" >&2; }
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=ksp.db GIT_CONFIG_VALUE_0=/count/store.db same "GIT_CONFIG_COUNT"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
