#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp-gpg as git's gpg.program: a repository of tags and commits signed
# (through ksp-gpg, which hands signing to the real gpg) by keys made here:
# alice (RSA 2048) and bob (Ed25519, signing subkey) certified by the core,
# mallory (Ed25519) not certified, erin certified but expired since she
# signed, rex certified and revoked, stranger not in the store.  git
# verify-tag, verify-commit, merge --verify-signatures, pull of a signed
# tag with gpg.minTrustLevel=fully, log --show-signature and %G?%GT; the
# status lines beside real gpg's; bad input; the real kernel tags of
# tests/data/kernel-sample with Linus Torvalds' key as the core.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T540-gpg-program
KSP="$top/ksp"
KG="$top/ksp-gpg"
[ "${KSP_VALGRIND:-0}" = 1 ] && KG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KG"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
w=$(mktemp -d)
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'for h in g v k; do gpgconf --homedir "$w/$h" --kill all >/dev/null 2>&1; done; rm -rf "$w"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
export LC_ALL=C
unset KSP_DB KSP_POLICY KSP_GPG_REAL
# git reads no config but the repositories' own
export GIT_CONFIG_NOSYSTEM=1 HOME="$w/home" XDG_CONFIG_HOME="$w/home/.config"
mkdir -p "$HOME"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2; shift 2
	"$@" >"$w/out" 2>"$w/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$msg: exit $got, want $want"; sed 's/^/  | /' "$w/out" "$w/err" | head -20 >&2; fi
}
expect_fail() { # MSG CMD... : any non-zero exit
	local msg=$1; shift
	if "$@" >"$w/out" 2>"$w/err"; then bad "$msg: succeeded"; sed 's/^/  | /' "$w/out" "$w/err" | head -20 >&2; else ok; fi
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

command -v git >/dev/null || { echo "$name: git is not installed (apt-get install git)" >&2; exit 2; }
[ -x "$top/ksp-gpg" ] || { echo "$name: $top/ksp-gpg is not built (run make)" >&2; exit 2; }

# ---- keys ---------------------------------------------------------------------
mkdir -m 700 "$w/g" "$w/v" "$w/k"
G() { gpg --homedir "$w/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { G --with-colons -k "$1" | awk -F: '$1=="fpr"{print $10; exit}'; }
old='--faked-system-time 20200101T000000!'
G $old --quick-gen-key 'Core <core@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Alice RSA <alice@example.org>' rsa2048 cert,sign never 2>/dev/null
G --quick-gen-key 'Bob Ed25519 <bob@example.org>' ed25519 cert never 2>/dev/null
G --quick-gen-key 'Mallory <mallory@example.org>' ed25519 cert,sign never 2>/dev/null
G $old --quick-gen-key 'Erin Expired <erin@example.org>' ed25519 cert,sign 2021-01-01 2>/dev/null
G --quick-gen-key 'Rex Revoked <rex@example.org>' ed25519 cert,sign never 2>/dev/null
G --quick-gen-key 'Stranger <stranger@example.org>' ed25519 cert,sign never 2>/dev/null
CORE=$(fpr_of core@) ALICE=$(fpr_of alice@) BOB=$(fpr_of bob@) MALLORY=$(fpr_of mallory@)
ERIN=$(fpr_of erin@) REX=$(fpr_of rex@) STRANGER=$(fpr_of stranger@)
G --quick-add-key "$BOB" ed25519 sign never 2>/dev/null
BOBSUB=$(G --with-colons -k "$BOB" | awk -F: '$1=="sub"&&$12~/s/{getline; print $10}' | tail -n 1)
for k in "$CORE" "$ALICE" "$BOB" "$MALLORY" "$ERIN" "$REX" "$STRANGER" "$BOBSUB"; do
	[ ${#k} = 40 ] || { echo "$name: could not make the test keys with gpg" >&2; exit 2; }
done
G --faked-system-time '20200201T000000!' -u "$CORE" --quick-sign-key "$ERIN" 2>/dev/null >/dev/null
for k in "$ALICE" "$BOB" "$REX"; do G -u "$CORE" --quick-sign-key "$k" >/dev/null 2>&1; done
printf 'core = %s\n' "$CORE" >"$w/policy"

# ---- the repository, signed through ksp-gpg (handed to the real gpg) -----------
r="$w/repo"
git init -q -b main "$r"
gitr() { git -C "$r" "$@"; }
gitr config user.name T540; gitr config user.email t540@example.org
gitr config gpg.program "$top/ksp-gpg"
echo base >"$r/f"; gitr add f; gitr commit -q -m base
# erin signs in 2020, while her key was valid (the real gpg, faked time)
printf '#!/bin/sh\nexec gpg --faked-system-time 20200601T000000! "$@"\n' >"$w/gpg-2020"
chmod +x "$w/gpg-2020"
for who in alice bob mallory erin rex stranger; do
	eval "fpr=\$$(echo "$who" | tr a-z A-Z)"
	real=
	[ "$who" = erin ] && real="$w/gpg-2020"
	gitr checkout -q -b "b-$who" main
	echo "$who" >"$r/$who"; gitr add "$who"
	GNUPGHOME="$w/g" KSP_GPG_REAL=$real gitr -c user.signingkey="$fpr" commit -q -S -m "by $who" ||
		bad "git commit -S through ksp-gpg ($who)"
	GNUPGHOME="$w/g" KSP_GPG_REAL=$real gitr -c user.signingkey="$fpr" tag -s "t-$who" -m "tag by $who" ||
		bad "git tag -s through ksp-gpg ($who)"
done
gitr checkout -q main
# rex's key is revoked after he signed (gpg's own revocation certificate)
sed 's/^:-----/-----/' "$w/g/openpgp-revocs.d/$REX.rev" | G --import 2>/dev/null
G --with-colons -k "$REX" | grep -q '^pub:r:' && ok || bad "rex is revoked in gpg"
# a tampered tag: alice's with one word changed
gitr cat-file tag t-alice | sed 's/tag by alice/tag by eve/' | gitr hash-object -t tag -w --stdin >"$w/bad-id"
gitr update-ref refs/tags/t-tampered "$(cat "$w/bad-id")"

# ---- the store: everyone but the stranger -------------------------------------
G --export "$CORE" "$ALICE" "$BOB" "$MALLORY" "$ERIN" "$REX" >"$w/keys.gpg"
expect_code 0 "load the keys" "$KSP" -d "$w/s.db" wot load "$w/keys.gpg"
# the real gpg for comparison: the same keys, no trust (gpg's verdict on
# the signature only)
gpg --homedir "$w/v" --batch --quiet --import "$w/keys.gpg" 2>/dev/null

export KSP_DB="$w/s.db" KSP_POLICY="$w/policy"
unset GNUPGHOME

# ---- git verify-tag / verify-commit with gpg.minTrustLevel=fully ------------------
for who in alice bob mallory erin rex stranger; do
	case $who in alice | bob) want=0 ;; *) want=1 ;; esac
	if gitr -c gpg.minTrustLevel=fully verify-tag "t-$who" >"$w/out" 2>"$w/err"; then got=0; else got=1; fi
	expect_eq "$got" "$want" "verify-tag t-$who with minTrustLevel=fully"
	if gitr -c gpg.minTrustLevel=fully verify-commit "b-$who" >"$w/out" 2>"$w/err"; then got=0; else got=1; fi
	expect_eq "$got" "$want" "verify-commit b-$who with minTrustLevel=fully"
done
expect_fail "tampered tag" gitr verify-tag t-tampered
expect_code 1 "tampered tag, raw" gitr verify-tag --raw t-tampered
expect_grep "$w/err" "^\[GNUPG:\] BADSIG ${ALICE:24} Alice RSA <alice@example.org>$" "tampered tag: BADSIG"
# without a minimum trust, git takes any good signature (as with gpg)
expect_code 0 "verify-tag t-mallory, no minimum" gitr verify-tag t-mallory
expect_code 0 "verify-tag --raw t-bob" gitr -c gpg.minTrustLevel=fully verify-tag --raw t-bob
expect_grep "$w/err" "^\[GNUPG:\] NEWSIG$" "NEWSIG"
expect_grep "$w/err" "^\[GNUPG:\] KEY_CONSIDERED $BOB 0$" "KEY_CONSIDERED names the primary key"
expect_grep "$w/err" "^\[GNUPG:\] GOODSIG ${BOBSUB:24} Bob Ed25519 <bob@example.org>$" "GOODSIG names the signing subkey's key ID"
expect_grep "$w/err" "^\[GNUPG:\] VALIDSIG $BOBSUB [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]+ 0 4 0 22 [0-9]+ 00 $BOB$" "VALIDSIG: subkey first, primary tenth"
expect_grep "$w/err" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "TRUST_FULLY"
expect_code 0 "verify-tag t-bob" gitr -c gpg.minTrustLevel=fully verify-tag t-bob
expect_grep "$w/err" "^ksp-gpg: trust now \(.*\): trusted: 1 vertex-disjoint path" "human verdict"
expect_grep "$w/err" "^ksp-gpg:     $CORE$" "the path from the core"
expect_grep "$w/err" "^ksp-gpg: store: $w/s.db \(KSP_DB\); policy: $w/policy \(KSP_POLICY\)$" "store and policy named"

# ---- %G? and %GT ------------------------------------------------------------------
for who in alice bob mallory erin rex stranger; do
	case $who in
	alice | bob) want=Gfully ;;
	mallory) want=Uundefined ;;
	erin) want=Yundefined ;;
	rex) want=Rnever ;;
	stranger) want=E ;;
	esac
	# (git 2.39 aborts on %GT after ERRSIG, which has no TRUST_ line: with gpg too)
	f=%G?%GT; [ "$who" = stranger ] && f=%G?
	expect_eq "$(gitr log -1 --format=$f "b-$who" 2>/dev/null)" "$want" "$f of b-$who"
done
expect_eq "$(gitr log -1 --format=%G?%GT main)" "Nundefined" "%G? of an unsigned commit"
gitr log --show-signature -1 b-alice >"$w/log" 2>&1
expect_grep "$w/log" "^ksp-gpg: trust now .*: trusted" "log --show-signature shows the verdict"
expect_grep "$w/log" "^ksp-gpg: .*good signature by $ALICE" "log --show-signature: good signature"

# ---- merge --verify-signatures and pull of a signed tag ---------------------------------
for who in alice bob mallory erin rex stranger; do
	case $who in alice | bob) want=0 ;; *) want=1 ;; esac
	c="$w/clone-$who"
	git clone -q -b main "$r" "$c"
	git -C "$c" config user.name T540; git -C "$c" config user.email t540@example.org
	git -C "$c" config gpg.program "$top/ksp-gpg"; git -C "$c" config gpg.minTrustLevel fully
	if git -C "$c" merge -q --ff-only --verify-signatures "origin/b-$who" >"$w/out" 2>&1; then got=0; else got=1; fi
	expect_eq "$got" "$want" "merge --verify-signatures b-$who"
	git -C "$c" reset -q --hard origin/main
	if git -C "$c" pull -q --no-ff --no-edit --verify-signatures "$r" tag "t-$who" >"$w/out" 2>&1; then got=0; else got=1; fi
	expect_eq "$got" "$want" "pull --verify-signatures of tag t-$who"
	if [ "$want" = 0 ]; then
		git -C "$c" log -1 --format=%B >"$w/msg"
		eval "fpr=\$$(echo "$who" | tr a-z A-Z)"
		expect_grep "$w/msg" "^# ksp-gpg: .*good signature by $fpr" "merge message carries the tag's verdict ($who)"
	fi
done

# ---- beside the real gpg: the same status word and exit status ------------------------
for t in alice bob mallory erin rex stranger tampered; do
	gitr cat-file tag "t-$t" >"$w/tag"
	n=$(grep -n '^-----BEGIN PGP SIGNATURE-----$' "$w/tag" | cut -d: -f1)
	head -n $((n - 1)) "$w/tag" >"$w/payload"; tail -n +"$n" "$w/tag" >"$w/sig"
	gpg --homedir "$w/v" --batch --status-fd=1 --keyid-format=long --verify "$w/sig" - <"$w/payload" >"$w/gst" 2>/dev/null
	gcode=$?
	$KG --keyid-format=long --status-fd=1 --verify "$w/sig" - <"$w/payload" >"$w/kst" 2>"$w/err"
	kcode=$?
	expect_eq "$kcode" "$gcode" "exit status beside gpg's (t-$t)"
	word() { grep -oE '^\[GNUPG:\] (GOODSIG|BADSIG|EXPSIG|EXPKEYSIG|REVKEYSIG|ERRSIG|NO_PUBKEY) [0-9A-F]+' "$1" | tr '\n' ' '; }
	expect_eq "$(word "$w/kst")" "$(word "$w/gst")" "status words beside gpg's (t-$t)"
	vs() { grep -E '^\[GNUPG:\] VALIDSIG' "$1" | cut -d' ' -f2,3,4,6,8,9,10,11; }
	expect_eq "$(vs "$w/kst")" "$(vs "$w/gst")" "VALIDSIG beside gpg's (t-$t)"
done

# ---- libksp's own verifier (ksp-gpg) says what the gpgme one (ksp verify) says -----------
for t in alice bob mallory erin rex stranger tampered; do
	"$KSP" verify --core-fpr "$CORE" -q --git-tag "t-$t" --repo "$r" >"$w/kv" 2>&1
	gitr cat-file tag "t-$t" >"$w/tag"
	n=$(grep -n '^-----BEGIN PGP SIGNATURE-----$' "$w/tag" | cut -d: -f1)
	head -n $((n - 1)) "$w/tag" >"$w/payload"; tail -n +"$n" "$w/tag" >"$w/sig"
	$KG --status-fd=1 --verify "$w/sig" "$w/payload" >/dev/null 2>"$w/kn"
	expect_eq "$(sed -n "s/^ksp-gpg: $(echo "$w/sig" | sed 's/[.\/]/\\&/g'): //p" "$w/kn")" \
		"$(head -n 1 "$w/kv" | sed -e "s/^tag t-$t: //" -e 's/; \(not \)\{0,1\}trusted: .*//')" "native verdict as gpgme's (t-$t)"
done

# ---- the verdict when signed, and now (policy trust_at) --------------------------------
gitr cat-file tag t-erin >"$w/tag"
n=$(grep -n '^-----BEGIN PGP SIGNATURE-----$' "$w/tag" | cut -d: -f1)
head -n $((n - 1)) "$w/tag" >"$w/erin.txt"; tail -n +"$n" "$w/tag" >"$w/erin.sig"
expect_code 0 "erin, trust now" $KG --status-fd=1 --verify "$w/erin.sig" "$w/erin.txt"
expect_grep "$w/out" "^\[GNUPG:\] EXPKEYSIG ${ERIN:24} " "erin: EXPKEYSIG"
expect_grep "$w/out" "^\[GNUPG:\] TRUST_UNDEFINED 0 pgp$" "erin: untrusted now"
expect_grep "$w/err" "^ksp-gpg: trust now \(.*\): not trusted: .*expired" "erin: verdict now"
expect_grep "$w/err" "^ksp-gpg: trust when signed \(2020-06-01T00:00:00Z\): trusted" "erin: verdict when signed"
printf 'core = %s\ntrust_at = signature\n' "$CORE" >"$w/policy-sig"
expect_code 0 "erin, trust when signed" env KSP_POLICY="$w/policy-sig" $KG --status-fd=1 --verify "$w/erin.sig" "$w/erin.txt"
expect_grep "$w/out" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "erin: trusted when signed"
expect_grep "$w/err" "^ksp-gpg: TRUST_FULLY from the trust when signed \(policy: trust_at = signature\)$" "which verdict counts"
printf 'core = %s\ntrust_at = yesterday\n' "$CORE" >"$w/policy-bad"
expect_code 2 "bad trust_at" env KSP_POLICY="$w/policy-bad" $KG --status-fd=1 --verify "$w/erin.sig" "$w/erin.txt"
expect_grep "$w/out" "^\[GNUPG:\] ERRSIG " "bad policy: ERRSIG"
expect_grep "$w/err" "policy-bad:2: bad value 'yesterday' for trust_at" "bad policy message"

# ---- where the store and the policy come from ----------------------------------------
cp "$w/alice-dummy" /dev/null 2>/dev/null
gitr cat-file tag t-alice >"$w/tag"
n=$(grep -n '^-----BEGIN PGP SIGNATURE-----$' "$w/tag" | cut -d: -f1)
head -n $((n - 1)) "$w/tag" >"$w/alice.txt"; tail -n +"$n" "$w/tag" >"$w/alice.sig"
(
	unset KSP_DB KSP_POLICY
	cd "$r" || exit 2
	expect_code 2 "no store" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/out" "^\[GNUPG:\] ERRSIG ${ALICE:24} 1 [0-9]+ 00 [0-9]+ 9 " "no store: ERRSIG"
	expect_nogrep "$w/out" "TRUST_" "no store: no TRUST_ line"
	expect_eq "$(wc -l <"$w/err")" 1 "no store: one line"
	expect_grep "$w/err" "^ksp-gpg: no ksp store: set KSP_DB or 'git config --global ksp.db /ABSOLUTE/PATH'" "no store message"
	mkdir -p "$r/.ksp" "$HOME/ksp"; cp "$w/s.db" "$r/.ksp/keys.db"; cp "$w/policy" "$HOME/ksp/policy"
	git config ksp.db .ksp/keys.db
	expect_code 2 "a relative ksp.db is refused" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/out" "^\[GNUPG:\] ERRSIG " "relative ksp.db: ERRSIG"
	expect_eq "$(wc -l <"$w/err")" 1 "relative ksp.db: one line"
	expect_grep "$w/err" "^ksp-gpg: git config ksp.db: \".ksp/keys.db\" is a relative path" "relative ksp.db message"
	git config ksp.db "$r/.ksp/keys.db"
	expect_code 2 "no policy" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/out" "^\[GNUPG:\] ERRSIG " "no policy: ERRSIG"
	expect_eq "$(wc -l <"$w/err")" 1 "no policy: one line"
	expect_grep "$w/err" "^ksp-gpg: no trust policy: set KSP_POLICY or 'git config ksp.policy FILE'" "no policy message"
	git config ksp.policy .ksp/policy
	expect_code 2 "a relative ksp.policy is refused" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/err" "^ksp-gpg: git config ksp.policy: \".ksp/policy\" is a relative path" "relative ksp.policy message"
	git config ksp.policy "~/ksp/policy"
	mkdir -p sub && cd sub || exit 2
	expect_code 0 "store and policy from git config, absolute and ~/" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/out" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "git config: trusted"
	expect_grep "$w/err" "^ksp-gpg: store: $r/.ksp/keys.db \(git config ksp.db\); policy: $HOME/ksp/policy \(git config ksp.policy\)$" "git config paths"
	expect_code 2 "the environment comes first" env KSP_DB="$w/none.db" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/err" "none.db \(KSP_DB\): no ksp store there" "KSP_DB before git config"
	printf 'core = %s\n' "$MALLORY" >"$w/policy-m"
	expect_code 0 "KSP_POLICY before git config" env KSP_POLICY="$w/policy-m" $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/out" "^\[GNUPG:\] TRUST_UNDEFINED 0 pgp$" "another core: not trusted"
	expect_code 2 "a relative KSP_DB is refused" env KSP_DB=.ksp/keys.db $KG --status-fd=1 --verify "$w/alice.sig" "$w/alice.txt"
	expect_grep "$w/err" "^ksp-gpg: KSP_DB: \".ksp/keys.db\" is a relative path" "relative KSP_DB message"
	git config --unset ksp.db; git config --unset ksp.policy
	exit $((fail > 0))
) || bad "store and policy lookup (see above)"

# ---- bad input: gpg's exit status, one clear line, no crash ------------------------------
head -c 300 /dev/urandom >"$w/garbage"
printf 'not a signature at all\n' >"$w/text"
head -n 4 "$w/alice.sig" >"$w/cut.sig"
echo "other data" >"$w/other.txt"
for case in garbage text cut.sig; do
	gpg --homedir "$w/v" --batch --status-fd=1 --verify "$w/$case" - <"$w/alice.txt" >/dev/null 2>&1
	gcode=$?
	expect_code "$gcode" "bad input $case (gpg: $gcode)" $KG --status-fd=1 --verify "$w/$case" - <"$w/alice.txt"
	expect_eq "$(wc -l <"$w/err")" 1 "bad input $case: one line"
	expect_grep "$w/err" "^ksp-gpg: $w/$case: " "bad input $case names the file"
	expect_grep "$w/out" "^\[GNUPG:\] (NODATA|ERRSIG)" "bad input $case: NODATA or ERRSIG"
done
expect_code 1 "a signature over other data" $KG --status-fd=1 --verify "$w/alice.sig" "$w/other.txt"
expect_grep "$w/out" "^\[GNUPG:\] BADSIG ${ALICE:24} " "other data: BADSIG"
expect_code 2 "unknown option" $KG --status-fd=1 --frobnicate --verify "$w/alice.sig" "$w/alice.txt"
expect_eq "$(wc -l <"$w/err")" 1 "unknown option: one line"
expect_grep "$w/err" "^ksp-gpg: invalid option \"--frobnicate\"" "unknown option message"
expect_code 2 "missing file" $KG --status-fd=1 --verify "$w/nope.sig" "$w/alice.txt"
expect_grep "$w/err" "nope.sig: cannot read: No such file" "missing file message"
expect_code 2 "detached, no data" $KG --status-fd=1 --verify "$w/alice.sig"
expect_grep "$w/err" "a detached signature, and no signed data given" "no data message"

# ---- b4 / patatt's way of calling gpg, and other callers ------------------------------------
expect_code 0 "patatt's options" $KG --batch --no-auto-key-retrieve --no-auto-check-trustdb --homedir "$w/k" \
	--no-default-keyring --keyring "$w/k/none.kbx" --verify --status-fd=2 "$w/alice.sig" "$w/alice.txt"
expect_grep "$w/err" "^\[GNUPG:\] GOODSIG ${ALICE:24} " "patatt's options: GOODSIG on fd 2"
expect_grep "$w/err" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "patatt's options: TRUST_FULLY"
GNUPGHOME="$w/g" G -u "$ALICE" -o "$w/clear.asc" --clearsign "$w/other.txt"
expect_code 0 "a cleartext-signed message on stdin" sh -c "$KG --status-fd=2 --verify <'$w/clear.asc'"
expect_grep "$w/err" "^\[GNUPG:\] GOODSIG ${ALICE:24} " "cleartext on stdin: GOODSIG"
# patatt: a signed (compressed) message on stdin, the text on stdout, status on fd 2
printf 'patatt-style signed text\n' >"$w/pt.txt"
GNUPGHOME="$w/g" G -u "$ALICE" -o "$w/pt.gpg" --sign "$w/pt.txt"
expect_code 0 "patatt: signed message, --output -" sh -c "$KG --batch --no-auto-key-retrieve --no-auto-check-trustdb --homedir '$w/k' --no-default-keyring --keyring '$w/k/x.kbx' --verify --output - --status-fd=2 <'$w/pt.gpg'"
expect_eq "$(cat "$w/out")" "patatt-style signed text" "patatt: the signed text on stdout"
expect_grep "$w/err" "^\[GNUPG:\] VALIDSIG $ALICE .* $ALICE$" "patatt: VALIDSIG"
expect_grep "$w/err" "^\[GNUPG:\] TRUST_FULLY 0 pgp$" "patatt: TRUST_FULLY"

# ---- not a verification: the real gpg, unchanged ----------------------------------------
GNUPGHOME="$w/g" gpg --batch --with-colons --list-keys "$ALICE" >"$w/real" 2>/dev/null
expect_code 0 "--list-keys goes to gpg" env GNUPGHOME="$w/g" $KG --batch --with-colons --list-keys "$ALICE"
expect_eq "$(cat "$w/out")" "$(cat "$w/real")" "--list-keys output is gpg's"
expect_code 2 "KSP_GPG_REAL that does not exist" env KSP_GPG_REAL="$w/no-gpg" $KG --list-keys
expect_grep "$w/err" "^ksp-gpg: cannot run $w/no-gpg: No such file" "KSP_GPG_REAL message"
mkdir -p "$w/bin"; ln -s "$top/ksp-gpg" "$w/bin/gpg"
expect_code 2 "no real gpg on PATH" env PATH="$w/bin" "$w/bin/gpg" --list-keys
expect_grep "$w/err" "cannot find the real gpg on PATH" "itself is skipped on PATH"

# ---- real kernel tags: as gpg verifies them, trust from Linus Torvalds' key --------------------
ks="$top/tests/data/kernel-sample"
[ -f "$ks/kernel-sample.gpg" ] || { bad "$ks/kernel-sample.gpg is missing"; }
expect_code 0 "load the kernel sample" "$KSP" -d "$w/k.db" wot load "$ks/kernel-sample.gpg"
gpg --homedir "$w/k" --batch --quiet --import "$ks/kernel-sample.gpg" 2>/dev/null
LINUS=ABAF11C65A2970B130ABE3C479BE3E4300411886
printf 'core = %s\n' "$LINUS" >"$w/kpolicy"
ntags=0
for t in "$ks"/tags/*.tag; do
	n=$(grep -n '^-----BEGIN PGP SIGNATURE-----$' "$t" | head -n 1 | cut -d: -f1)
	head -n $((n - 1)) "$t" >"$w/payload"; tail -n +"$n" "$t" >"$w/sig"
	gpg --homedir "$w/k" --batch --status-fd=1 --keyid-format=long --verify "$w/sig" - <"$w/payload" >"$w/gst" 2>/dev/null
	gcode=$?
	KSP_DB="$w/k.db" KSP_POLICY="$w/kpolicy" $KG --keyid-format=long --status-fd=1 --verify "$w/sig" - <"$w/payload" >"$w/kst" 2>"$w/err"
	kcode=$?
	b=$(basename "$t")
	expect_eq "$kcode" "$gcode" "kernel tag $b: exit status as gpg's"
	expect_eq "$(word "$w/kst")" "$(word "$w/gst")" "kernel tag $b: status as gpg's"
	expect_eq "$(vs "$w/kst")" "$(vs "$w/gst")" "kernel tag $b: VALIDSIG as gpg's"
	want=$(awk -F'\t' -v f="$b" '$1==f{print $12}' "$ks/tags/SOURCES.tsv")
	expect_grep "$w/kst" "^\[GNUPG:\] $want( |$)" "kernel tag $b: $want (SOURCES.tsv)"
	signer=$(grep -oE '^\[GNUPG:\] VALIDSIG .*' "$w/kst" | awk '{print $12}')
	if [ -n "$signer" ]; then
		if "$KSP" -d "$w/k.db" trust --policy "$w/kpolicy" -q "$signer" >/dev/null 2>&1; then tw=FULLY; else tw=UNDEFINED; fi
		"$KSP" -d "$w/k.db" trust --policy "$w/kpolicy" -q "$signer" >"$w/tv" 2>&1
		grep -qE 'revoked|too weak' "$w/tv" && tw=NEVER
		expect_grep "$w/kst" "^\[GNUPG:\] TRUST_$tw 0 pgp$" "kernel tag $b: trust as ksp trust's ($tw)"
	fi
	ntags=$((ntags + 1))
done
expect_eq "$([ "$ntags" -ge 10 ] && echo yes)" yes "all kernel tags checked"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
