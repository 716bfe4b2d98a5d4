#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp-gpg and 'ksp verify' against gpg --verify, LIVE, on document
# signatures made here with gpg (issue 33): good, bad, MD5 (gpg rejects
# it: ERRSIG 5, exit 2), SHA-1, an expired signature (EXPSIG, exit 1), a
# signature dated before its key was made (a time conflict: ERRSIG 39,
# exit 2), a key revoked after it signed (REVKEYSIG, exit 0).  The status
# word, the ERRSIG code and the exit status must be gpg's; ksp-gpg may be
# stricter than gpg, never more trusting.  Then: an MD5-signed commit is
# not %G? G through ksp-gpg; trust_at = signature does not undo a
# certification or a key revoked after the (claimed) signature date; a gpg wrapper
# on PATH that calls ksp-gpg stops at once; ksp-gpg reads a stream (data
# on stdin) without keeping it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T542-docsig-gpg
KSP="$top/ksp"
KG="$top/ksp-gpg"
[ "${KSP_VALGRIND:-0}" = 1 ] && KG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KG"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'for h in g v; do gpgconf --homedir "$w/$h" --kill all >/dev/null 2>&1; done; rm -rf "$w"' EXIT
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
expect_nogrep() { if grep -qE -- "$2" "$1"; then bad "$3: /$2/ found in $1"; sed 's/^/  | /' "$1" | head -10 >&2; else ok; fi; }

for t in gpg git; do
	command -v $t >/dev/null || { echo "FAIL: $name: $t is not installed (apt-get install ${t/gpg/gnupg})" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "FAIL: $name: /usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
[ -x "$top/ksp-gpg" ] || { echo "FAIL: $name: $top/ksp-gpg is not built (run make)" >&2; exit 1; }

# ---- keys and signatures, made with gpg ------------------------------------------
mkdir -m 700 "$w/g" "$w/v"
G() { gpg --homedir "$w/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { G --with-colons -k "$1" | awk -F: '$1=="fpr"{print $10; exit}'; }
at() { echo "--faked-system-time $1T000000!"; }
G $(at 20200101) --quick-gen-key 'Core <core@example.org>' ed25519 cert,sign never 2>/dev/null
G $(at 20210101) --quick-gen-key 'Alice <alice@example.org>' ed25519 cert,sign never 2>/dev/null
G $(at 20210101) --quick-gen-key 'Rex <rex@example.org>' ed25519 cert,sign never 2>/dev/null
G $(at 20240101) --quick-gen-key 'Late <late@example.org>' ed25519 cert,sign never 2>/dev/null
CORE=$(fpr_of core@) ALICE=$(fpr_of alice@) REX=$(fpr_of rex@) LATE=$(fpr_of late@)
for k in "$CORE" "$ALICE" "$REX" "$LATE"; do
	[ ${#k} = 40 ] || { echo "FAIL: $name: could not make the test keys with gpg" >&2; exit 1; }
done
for k in "$ALICE" "$REX" "$LATE"; do G $(at 20240201) -u "$CORE" --quick-sign-key "$k" >/dev/null 2>&1; done
printf 'the signed document\n' >"$w/doc"
printf 'the signed document, changed\n' >"$w/doc-changed"
S() { # NAME KEY [gpg options...]: a detached signature NAME.sig of doc
	local n=$1 k=$2; shift 2
	G "$@" -u "$k" -o "$w/$n.sig" --detach-sign "$w/doc" 2>/dev/null || bad "gpg could not make $n.sig"
}
S good "$ALICE" $(at 20250101)
cp "$w/good.sig" "$w/bad.sig"
S md5 "$ALICE" $(at 20250101) --allow-weak-digest-algos --digest-algo MD5
S sha1 "$ALICE" $(at 20250101) --digest-algo SHA1
S expired "$ALICE" $(at 20250101) --default-sig-expire 1d
S early "$LATE" $(at 20230101) --ignore-time-conflict
S revoked "$REX" $(at 20250101)
sed 's/^:-----/-----/' "$w/g/openpgp-revocs.d/$REX.rev" | G $(at 20250601) --import 2>/dev/null
G --with-colons -k "$REX" | grep -q '^pub:r:' && ok || bad "rex is revoked in gpg"
G --export "$CORE" "$ALICE" "$REX" "$LATE" >"$w/keys.gpg"
gpg --homedir "$w/v" --batch --quiet --import "$w/keys.gpg" 2>/dev/null
"$KSP" -d "$w/s.db" wot load "$w/keys.gpg" >/dev/null 2>&1 || bad "ksp wot load"
# sha1 = yes: gpg 2.2 takes SHA-1 document signatures of any date (its
# 2019 cut-off is for key signatures); the default rule, before-2019, is
# stricter (below)
printf 'core = %s\nsha1 = yes\n' "$CORE" >"$w/policy"
export KSP_DB="$w/s.db" KSP_POLICY="$w/policy"

# ---- each case: gpg's word, ERRSIG code and exit status -----------------------------
word() { grep -oE '^\[GNUPG:\] (GOODSIG|BADSIG|EXPSIG|EXPKEYSIG|REVKEYSIG|ERRSIG|NODATA)' "$1" | head -n 1 | cut -d' ' -f2; }
errcode() { awk '$2=="ERRSIG"{print $8; exit}' "$1"; }
# how trusting a verdict is: the exit status and the word (more is more trusting)
rank() { case "$1" in 0:GOODSIG) echo 3 ;; 0:*) echo 2 ;; 1:*) echo 1 ;; *) echo 0 ;; esac; }
for c in good bad md5 sha1 expired early revoked; do
	data="$w/doc"
	[ "$c" = bad ] && data="$w/doc-changed"
	gpg --homedir "$w/v" --batch --status-fd=1 --verify "$w/$c.sig" - <"$data" >"$w/g.st" 2>"$w/g.err"
	gcode=$?
	$KG --status-fd=1 --verify "$w/$c.sig" - <"$data" >"$w/k.st" 2>"$w/k.err"
	kcode=$?
	expect_eq "$kcode:$(word "$w/k.st"):$(errcode "$w/k.st")" "$gcode:$(word "$w/g.st"):$(errcode "$w/g.st")" \
		"$c: ksp-gpg's exit:word:ERRSIG code as gpg's"
	[ "$(rank "$kcode:$(word "$w/k.st")")" -le "$(rank "$gcode:$(word "$w/g.st")")" ] && ok ||
		bad "$c: ksp-gpg is more trusting than gpg ($kcode $(word "$w/k.st") vs $gcode $(word "$w/g.st"))"
	# the same verifier in 'ksp verify': good only where gpg says GOODSIG
	"$KSP" -d "$w/s.db" --json verify --policy "$w/policy" "$w/$c.sig" "$data" >"$w/v.json" 2>/dev/null
	st=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$w/v.json" 2>/dev/null)
	case $(word "$w/g.st") in
	GOODSIG) want=good ;; BADSIG) want=bad ;; EXPSIG) want=sig_expired ;; REVKEYSIG) want=key_revoked ;;
	*) want=key_unusable ;;
	esac
	expect_eq "$st" "$want" "$c: ksp verify's status as gpg's $(word "$w/g.st")"
done
expect_grep "$w/g.err" "." "gpg said something"
# the messages
$KG --status-fd=1 --verify "$w/md5.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_grep "$w/k.err" "signatures using the MD5 algorithm are rejected" "MD5: gpg's reason"
expect_nogrep "$w/k.st" "TRUST_" "MD5: no trust line"
$KG --status-fd=1 --verify "$w/early.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_grep "$w/k.err" "time conflict" "time conflict: said"
# the policy's SHA-1 rule on the signature itself: stricter than gpg, never looser
printf 'core = %s\nsha1 = before-2019\n' "$CORE" >"$w/policy-sha1"
KSP_POLICY="$w/policy-sha1" $KG --status-fd=1 --verify "$w/sha1.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_eq "$?:$(word "$w/k.st"):$(errcode "$w/k.st")" "2:ERRSIG:5" "SHA-1 of 2025 under sha1 = before-2019: refused"
printf 'core = %s\n' "$CORE" >"$w/policy-default"
KSP_POLICY="$w/policy-default" $KG --status-fd=1 --verify "$w/sha1.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_eq "$?:$(word "$w/k.st"):$(errcode "$w/k.st")" "2:ERRSIG:5" "SHA-1 of 2025 under the default rule (before-2019): refused"
KSP_POLICY="$w/policy-sha1" $KG --status-fd=1 --verify "$w/good.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_eq "$?:$(word "$w/k.st")" "0:GOODSIG" "SHA-256 under sha1 = before-2019: good"

# ---- an MD5-signed commit: %G? is not G ----------------------------------------------
r="$w/repo"
git init -q -b main "$r"
gitr() { git -C "$r" "$@"; }
gitr config user.name T542; gitr config user.email t542@example.org
echo a >"$r/f"; gitr add f
printf '#!/bin/sh\nexec gpg --homedir %s --allow-weak-digest-algos --digest-algo MD5 "$@"\n' "$w/g" >"$w/gpg-md5"
chmod +x "$w/gpg-md5"
gitr -c gpg.program="$w/gpg-md5" -c user.signingkey="$ALICE" commit -q -S -m md5 || bad "an MD5-signed commit"
gitr cat-file commit HEAD | grep -q '^gpgsig ' && ok || bad "the commit is signed"
g=$(gitr -c gpg.program="$w/kg" log -1 --format=%G? 2>/dev/null)
expect_eq "$([ "$g" != G ] && echo not-G)" not-G "MD5-signed commit through ksp-gpg: %G? is '$g'"
expect_eq "$g" "E" "MD5-signed commit: %G? E (gpg: cannot be checked)"
g=$(GNUPGHOME="$w/v" gitr log -1 --format=%G? 2>/dev/null)
expect_eq "$g" "E" "MD5-signed commit: gpg itself says E"
gitr -c gpg.program="$w/kg" verify-commit HEAD >/dev/null 2>&1 && bad "verify-commit of the MD5 commit passed" || ok

# ---- trust_at = signature: a certification revoked after the signature date ----------
G $(at 20250701) -u "$CORE" --quick-revoke-sig "$ALICE" "$CORE" 2>/dev/null || bad "gpg --quick-revoke-sig"
G --export "$CORE" "$ALICE" >"$w/keys2.gpg"
"$KSP" -d "$w/s2.db" wot load "$w/keys2.gpg" >/dev/null 2>&1 || bad "ksp wot load (revoked certification)"
printf 'core = %s\ntrust_at = signature\n' "$CORE" >"$w/policy-at"
KSP_DB="$w/s2.db" KSP_POLICY="$w/policy-at" $KG --status-fd=1 --verify "$w/good.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_grep "$w/k.st" "^\[GNUPG:\] TRUST_UNDEFINED 0 pgp$" "trust_at = signature: a certification revoked since counts"
expect_grep "$w/k.err" "trust when signed does not count: $CORE revoked its certification of $ALICE" "trust_at: why"
KSP_DB="$w/s.db" KSP_POLICY="$w/policy-at" $KG --status-fd=1 --verify "$w/good.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_grep "$w/k.st" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "trust_at = signature, nothing revoked: trusted"

# ---- a gpg wrapper on PATH that calls ksp-gpg ------------------------------------------
mkdir -p "$w/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$top/ksp-gpg" >"$w/bin/gpg"
chmod +x "$w/bin/gpg"
PATH="$w/bin:$PATH" timeout 20 "$top/ksp-gpg" --list-keys >"$w/out" 2>"$w/err"
expect_eq "$?" 2 "a gpg wrapper calling ksp-gpg: exit 2 (not a loop, not a timeout)"
expect_eq "$(wc -l <"$w/err")" 1 "wrapper: one line"
expect_grep "$w/err" "^ksp-gpg: the gpg it forwards to ran ksp-gpg again" "wrapper: said"

# ---- streams: the data on stdin is hashed as read -----------------------------------------
# the peak memory with 48 MiB on stdin is that with a few bytes (not 48
# MiB more); a difference, so that ASan's and valgrind's own memory cancel
mib=48
[ "${KSP_VALGRIND:-0}" = 1 ] && mib=16
head -c $((mib << 20)) /dev/zero >"$w/big"
G $(at 20250101) -u "$ALICE" -o "$w/big.sig" --detach-sign "$w/big" 2>/dev/null
/usr/bin/time -f '%M' -o "$w/rss0" $KG --status-fd=1 --verify "$w/good.sig" - <"$w/doc" >/dev/null 2>&1
/usr/bin/time -f '%M' -o "$w/rss" $KG --status-fd=1 --verify "$w/big.sig" - <"$w/big" >"$w/k.st" 2>/dev/null
expect_grep "$w/k.st" "^\[GNUPG:\] GOODSIG " "$mib MiB on stdin: GOODSIG"
grow=$(( $(tail -n 1 "$w/rss") - $(tail -n 1 "$w/rss0") ))
[ "$grow" -lt $((mib * 1024 / 2)) ] && ok || bad "$mib MiB on stdin: $grow KiB more resident than for a few bytes (kept in memory?)"
head -c $((65 << 20)) /dev/zero >"$w/bigsig"
$KG --status-fd=1 --verify "$w/bigsig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_eq "$?" 2 "a signature file over 64 MiB: refused"
expect_grep "$w/k.err" "larger than 64 MiB" "signature limit: said"

# ---- trust_at = signature: the signer's key superseded after the signature date ----------
# (gpg's menu: 2 = superseded: REVKEYSIG as gpg says, and trust when signed
# does not count: the revocation is known now)
printf 'y\n2\n\ny\n' | gpg --homedir "$w/g" --no-tty --pinentry-mode loopback --passphrase '' $(at 20250801) \
	--command-fd 0 --gen-revoke "$ALICE" >"$w/alice.rev" 2>/dev/null || bad "gpg --gen-revoke (superseded)"
G --import "$w/alice.rev" 2>/dev/null
G --export "$CORE" "$ALICE" >"$w/keys3.gpg"
"$KSP" -d "$w/s3.db" wot load "$w/keys3.gpg" >/dev/null 2>&1 || bad "ksp wot load (superseded key)"
KSP_DB="$w/s3.db" KSP_POLICY="$w/policy-at" $KG --status-fd=1 --verify "$w/good.sig" "$w/doc" >"$w/k.st" 2>"$w/k.err"
expect_grep "$w/k.st" "^\[GNUPG:\] REVKEYSIG " "a key superseded after it signed: REVKEYSIG"
expect_grep "$w/k.st" "^\[GNUPG:\] TRUST_NEVER 0 pgp$" "trust_at = signature: a key superseded since counts"
expect_grep "$w/k.err" "trust when signed does not count: key $ALICE is revoked \(superseded, 2025-08-01" "trust_at: the key's revocation known now"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
