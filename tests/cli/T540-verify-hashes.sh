#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Verification held to gpg's verdicts (issue 20): ECDSA signatures made by
# gpg with cert-digest-algo SHA512 over nistp256, nistp384, brainpoolP256r1
# and nistp521 (self-signatures, certifications, a key revocation), each
# compared with gpg --check-sigs; a P-256 key revoked with a SHA-512
# revocation is revoked and its certifications stop counting.  The
# differential test (tests/tools/sigdiff: ksp against libgcrypt as gpg
# calls it, IFMA against portable paths, a store loaded on both), and the
# hash rules of both trust models against gpg --check-sigs and
# --check-trustdb.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings/ecdsa"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
name=T540-verify-hashes
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
trap 'for h in "$w"/home-*; do [ -d "$h" ] && gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done; rm -rf "$w"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
fpr() { awk -v k="$1" '$1==k{print $2}' "$fx/fingerprints"; }
P256=$(fpr p256) P384=$(fpr p384) BP256=$(fpr bp256) P521=$(fpr p521) TGT=$(fpr target)

# compare_gpg NAME KEYRING TIME: pgp-sigcheck's verdicts are gpg --check-sigs'
compare_gpg() {
	local h="$w/home-$1"
	mkdir -m 700 "$h"
	gpg --homedir "$h" --batch --quiet --import "$2" >/dev/null 2>&1
	gpg --homedir "$h" --batch --faked-system-time "$3" --with-colons --fixed-list-mode --check-sigs \
		>"$w/$1.colons" 2>/dev/null
	gpgconf --homedir "$h" --kill all >/dev/null 2>&1
	"$top/tests/tools/pgp-sigcheck" "$2" >"$w/$1.tsv" 2>"$w/err" || { bad "$1: pgp-sigcheck failed"; return 1; }
	if python3 "$top/tests/tools/compare-gpg-sigs.py" "$w/$1.tsv" "$w/$1.colons" >"$w/$1.cmp"; then
		ok; echo "$name: $1: $(head -1 "$w/$1.cmp")"
	else
		bad "$1: ksp and gpg --check-sigs disagree"; head -20 "$w/$1.cmp" >&2
	fi
}

# --- ECDSA with SHA-512 on every curve -------------------------------------
gpg --list-packets <"$fx/keys.asc" 2>/dev/null | grep -c 'digest algo 10,' >"$w/n"
[ "$(cat "$w/n")" = 10 ] && ok || bad "fixture: $(cat "$w/n") SHA-512 signatures, want 10"
compare_gpg ecdsa "$fx/keys.asc" 20240201T000000
# 5 self-signatures and 5 certifications, all good for both
[ "$(grep -c 'good$' "$w/ecdsa.tsv")" = 10 ] && ok || bad "ksp: $(grep -c 'good$' "$w/ecdsa.tsv") good signatures, want 10"
[ "$(grep -c '^sig:!' "$w/ecdsa.colons")" = 10 ] && ok || bad "gpg: $(grep -c '^sig:!' "$w/ecdsa.colons") good signatures, want 10"

$KSP -d "$w/a.db" wot load "$fx/keys.asc" >/dev/null 2>"$w/err" && ok || bad "load: $(cat "$w/err")"
v=$(sqlite3 "$w/a.db" "SELECT group_concat(verified || ':' || n) FROM (SELECT verified, count(*) n FROM certs GROUP BY 1)")
[ "$v" = "1:5" ] && ok || bad "certifications: $v, want 1:5"
v=$(sqlite3 "$w/a.db" "SELECT count(*) FROM keys WHERE selfsig_ok = 1 AND revoked = 0")
[ "$v" = 5 ] && ok || bad "keys with a good self-signature: $v, want 5"
for s in "$P256" "$P384" "$BP256" "$P521"; do
	$KSP -d "$w/a.db" trust --at 2024-02-01 --core-fpr "$s" "$TGT" >"$w/out" 2>&1 && ok ||
		bad "$s does not introduce the target: $(cat "$w/out")"
done

# --- the key revocation (SHA-512) -------------------------------------------
compare_gpg revoked "$fx/p256-revoked.asc" 20240401T000000
h="$w/home-revoked"
gpg --homedir "$h" --batch --with-colons --list-keys "$P256" 2>/dev/null | grep -q '^pub:r:' && ok ||
	bad "gpg does not see p256 revoked"
gpgconf --homedir "$h" --kill all >/dev/null 2>&1
$KSP -d "$w/a.db" wot load "$fx/p256-revoked.asc" >/dev/null 2>"$w/err" && ok || bad "load revoked: $(cat "$w/err")"
v=$(sqlite3 "$w/a.db" "SELECT revoked FROM keys WHERE fpr = '$P256'")
[ "$v" = 1709251200 ] && ok || bad "p256 revoked at '$v', want 1709251200 (2024-03-01)"
$KSP -d "$w/a.db" trust --at 2024-04-01 --core-fpr "$P256" "$TGT" >"$w/out" 2>&1
[ $? = 1 ] && ok || bad "the revoked p256 still introduces the target: $(cat "$w/out")"
# P384 -> P256 -> target no longer exists either; P384 -> target does
$KSP -d "$w/a.db" trust --at 2024-04-01 --core-fpr "$P384" "$TGT" >/dev/null 2>&1 && ok || bad "p384 lost its edge"
$KSP -d "$w/a.db" --json wot stats --at 2024-04-01 >"$w/s.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["edges"]==3 and d["keys_revoked"]==1 else 1)' \
	"$w/s.json" && ok || bad "stats after the revocation: $(head -c 300 "$w/s.json")"

# --- the differential test (tests/tools/sigdiff.c) --------------------------
# a few thousand good, bad and adversarial certifications: ksp's verdicts
# are the expected ones and libgcrypt's as gpg calls it (or differ as
# documented); RSA portable = IFMA; Ed25519 eight lanes = one at a time
if "$top/tests/tools/sigdiff" --keyring "$w/sd.gpg" --verdicts "$w/sd.tsv" --rules-keyring "$w/rules.gpg" \
	>"$w/sd.out" 2>&1; then
	ok; sed -n 2,3p "$w/sd.out" | sed "s/^/$name: /"
else
	bad "sigdiff: unexpected verdicts"; grep -v '^sigdiff: RSA\|^class' "$w/sd.out" | head -40 >&2
fi
# a store of them, loaded on the IFMA paths and on the portable ones
# (glibc hides AVX-512 from ksp's CPU checks), is the same, and holds
# ksp's verdicts
$KSP -d "$w/sd1.db" wot load "$w/sd.gpg" >/dev/null 2>"$w/err" && ok || bad "load sigdiff keyring: $(cat "$w/err")"
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F $KSP -d "$w/sd2.db" wot load "$w/sd.gpg" >/dev/null 2>"$w/err" && ok ||
	bad "load sigdiff keyring, portable: $(cat "$w/err")"
for d in sd1 sd2; do
	sqlite3 "$w/$d.db" "SELECT digest || ' ' || verified FROM certs ORDER BY digest" >"$w/$d.txt"
done
cut -d' ' -f1,2 "$w/sd.tsv" | tr 'a-f' 'A-F' | LC_ALL=C sort -u >"$w/sd-want.txt"
[ "$(wc -l <"$w/sd1.txt")" -gt 1000 ] && ok || bad "sigdiff store: $(wc -l <"$w/sd1.txt") certifications"
cmp -s "$w/sd1.txt" "$w/sd2.txt" && ok || bad "IFMA and portable paths made different stores"
cmp -s "$w/sd1.txt" "$w/sd-want.txt" && ok ||
	{ bad "the store's verdicts are not sigdiff's"; diff "$w/sd-want.txt" "$w/sd1.txt" | head -5 >&2; }

# --- the hash rules (ksp-trust(1), HASH RULES) ------------------------------
# rules.gpg: four keys certifying the target once each, with MD5, SHA-1
# after 2019-01-19, SHA-1 before, RIPEMD-160
rf() { awk -v k="$1" '$1==k{print $2}' "$w/rules.gpg.fpr"; }
RT=$(rf target)
$KSP -d "$w/r.db" wot load "$w/rules.gpg" >/dev/null 2>"$w/err" && ok || bad "load rules.gpg: $(cat "$w/err")"
# gpg --check-sigs shows '%' for exactly the MD5 and the new SHA-1 one
compare_gpg rules "$w/rules.gpg" 20240601T000000 &&
	grep -q 'refused 2 (by the hash rules 2, else 0)' "$w/rules.cmp" && ok || bad "rules: $(head -1 "$w/rules.cmp")"
# paths SIGNER WANT-EXIT WANT-DROPPED(md5,sha1) OPTION...
paths() {
	local s=$1 want=$2 drop=$3
	shift 3
	$KSP -d "$w/r.db" --json trust --at 2024-06-01 --core-fpr "$(rf "$s")" "$@" "$RT" >"$w/t.json" 2>"$w/err"
	local got=$?
	local d
	d=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dropped"]; print("%d,%d" % (d["md5"], d["sha1"]))' \
		"$w/t.json" 2>&1)
	[ "$got" = "$want" ] && [ "$d" = "$drop" ] && ok || bad "paths model, $s $*: exit $got, dropped $d; want $want, $drop"
}
# (by default SHA-1 as gpg 2.2: the new SHA-1 certification never counts)
paths md5 1 1,1
paths md5 0 0,1 --allow-md5
paths md5 0 0,0 --allow-md5 --sha1 yes
paths sha1-new 1 1,1
paths sha1-new 0 1,0 --sha1 yes
paths sha1-new 1 1,1 --sha1 before-2019
paths sha1-old 0 1,1 --sha1 before-2019
paths sha1-old 1 1,3 --no-sha1
paths rmd160 0 1,1 --sha1 before-2019
paths rmd160 1 1,3 --sha1 no
printf 'sha1 = before-2019\nmd5 = yes\n' >"$w/p.policy"
paths sha1-new 1 0,1 --policy "$w/p.policy"
paths md5 0 0,1 --policy "$w/p.policy"
printf 'sha1 = maybe\n' >"$w/bad.policy"
$KSP -d "$w/r.db" trust --policy "$w/bad.policy" --core-fpr "$(rf md5)" "$RT" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "bad.policy:1: bad value 'maybe' for sha1" "$w/err" && ok || bad "sha1 = maybe: $(cat "$w/err")"
# the gnupg model, by default as gpg 2.2 itself (checked against gpg), and
# with the rules changed
letter() { # SIGNER OPTION...: the target's validity letter with SIGNER ultimately trusted
	local s=$1
	shift
	echo "$(rf "$s"):6:" >"$w/ot"
	$KSP -d "$w/r.db" --json trust --model gnupg --ownertrust "$w/ot" --at 2024-06-01 "$@" "$RT" >"$w/t.json" 2>"$w/err"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["letter"])' "$w/t.json" 2>&1
}
for s in md5 sha1-new sha1-old rmd160; do
	h="$w/home-rules-$s"
	mkdir -m 700 "$h"
	gpg --homedir "$h" --batch --quiet --import "$w/rules.gpg" >/dev/null 2>&1
	echo "$(rf "$s"):6:" | gpg --homedir "$h" --batch --quiet --import-ownertrust >/dev/null 2>&1
	gpg --homedir "$h" --batch --quiet --trust-model pgp --faked-system-time 20240601T000000 --yes --check-trustdb \
		>/dev/null 2>&1
	g=$(gpg --homedir "$h" --batch --trust-model pgp --faked-system-time 20240601T000000 --no-auto-check-trustdb \
		--with-colons --list-keys "$RT" 2>/dev/null | awk -F: '$1=="pub"{print $2; exit}')
	gpgconf --homedir "$h" --kill all >/dev/null 2>&1
	k=$(letter "$s")
	case $s in md5 | sha1-new) want=- ;; *) want=f ;; esac
	[ "$g" = "$want" ] && [ "$k" = "$want" ] && ok || bad "gnupg model, $s: gpg '$g', ksp '$k', want '$want'"
done
[ "$(letter sha1-new --sha1 yes)" = f ] && ok || bad "gnupg model --sha1 yes: $(cat "$w/t.json")"
[ "$(letter md5 --allow-md5)" = f ] && ok || bad "gnupg model --allow-md5: $(cat "$w/t.json")"
[ "$(letter rmd160 --sha1 no)" = - ] && ok || bad "gnupg model --sha1 no: $(cat "$w/t.json")"
letter sha1-old >/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dropped"]; sys.exit(0 if d == {"md5": 1, "sha1": 1} else 1)' \
	"$w/t.json" && ok || bad "gnupg model dropped: $(cat "$w/t.json")"
# wot stats: MD5 out by default, counted
$KSP -d "$w/r.db" --json wot stats --at 2024-06-01 >"$w/s.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["certifications"]
sys.exit(0 if d["edges"] == 3 and c["dropped_md5"] == 1 and c["dropped_sha1"] == 0 else 1)' "$w/s.json" && ok ||
	bad "wot stats: $(cat "$w/s.json" | head -c 400)"
$KSP -d "$w/r.db" --json wot stats --at 2024-06-01 --no-sha1 --allow-md5 >"$w/s.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["certifications"]
sys.exit(0 if d["edges"] == 1 and c["dropped_md5"] == 0 and c["dropped_sha1"] == 3 else 1)' "$w/s.json" && ok ||
	bad "wot stats --no-sha1 --allow-md5: $(cat "$w/s.json" | head -c 400)"
$KSP -d "$w/r.db" wot stats --at 2024-06-01 >"$w/s.txt" 2>&1
grep -q '^Hash rules: .*1 MD5' "$w/s.txt" && ok || bad "wot stats text: no hash rules line"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
