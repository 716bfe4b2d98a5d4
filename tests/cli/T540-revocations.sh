#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Key revocations at every reference time, in every trust model (ksp-trust(1),
# "Revocations"): a hard revocation (key compromised, no reason, any reason
# but retired/superseded/user ID no longer valid) removes the key at every
# date, with everything it ever certified; a soft one (retired, superseded)
# removes it as a target from its date on, and keeps the certifications it
# made before.  Certification revocations: the newest of a signer's
# certification and revocation on a user ID decides.  GnuPG's model is gpg's
# (T521-gnupg-live.sh compares it live): every key revocation, soft or hard,
# at every date, and every certification whatever its date.
#
# Keys: tests/keyrings/trust/revocations.gpg (make-revocation-fixtures.sh:
# ro certifies hc sc ss ot on day 1, each of them one target on day 1; on
# day 10 hc is revoked "compromised", sc "retired", ss "superseded", ot with
# no reason; sc certifies tl on day 20), and Sequoia's cert-revoked-hard,
# cert-revoked-soft and certification-revoked (tests/data/sequoia-wot).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings/trust"
sq="$top/tests/data/sequoia-wot"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T540-revocations
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
f() { awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$fx/revocations.tsv"; }
# sq FILE LOCAL: the fingerprint of the Sequoia key with user ID <LOCAL@...>
sqf() { sqlite3 "$w/$1.db" "SELECT DISTINCT k.fpr FROM keys k JOIN uids u ON u.key_id = k.id WHERE CAST(u.uid AS TEXT) LIKE '%<$2@%'"; }
# verdict DB MODEL-ARGS... -- AT TARGET: "yes" (exit 0), "no" (exit 1), or the error
verdict() {
	local db=$1 args=() at target
	shift
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	at=$2 target=$3
	$KSP -d "$db" trust "${args[@]}" --at "$at" "$target" >"$w/out" 2>"$w/err"
	case $? in 0) echo yes ;; 1) echo no ;; *) echo "error: $(cat "$w/err")" ;; esac
}
# check WANT MSG DB MODEL-ARGS... -- AT TARGET
check() {
	local want=$1 msg=$2 got
	shift 2
	got=$(verdict "$@")
	if [ "$got" = "$want" ]; then ok; else
		bad "$msg: got '$got', want '$want'"
		sed 's/^/  | /' "$w/out" | head -8 >&2
	fi
}

[ -r "$fx/revocations.gpg" ] && [ -r "$sq/README.md" ] || { echo "FAIL: test keys missing (git checkout tests)" >&2; echo "$name: 0 passed, 1 failed"; exit 1; }
$KSP -d "$w/r.db" wot load "$fx/revocations.gpg" >/dev/null 2>"$w/err" && ok || bad "load revocations.gpg: $(cat "$w/err")"
# the store keeps each key's revocation reason
got=$(sqlite3 "$w/r.db" "SELECT group_concat(revoked_reason, ' ') FROM (SELECT revoked_reason FROM keys WHERE fpr IN ('$(f hc)', '$(f sc)', '$(f ss)', '$(f ot)') ORDER BY fpr = '$(f hc)' DESC, fpr = '$(f sc)' DESC, fpr = '$(f ss)' DESC)")
[ "$got" = "2 3 1 0" ] && ok || bad "stored reasons (hc sc ss ot): $got, want 2 3 1 0"
for n in sq/cert-revoked-hard sq/cert-revoked-soft sq/certification-revoked; do
	b=$(basename "$n")
	$KSP -d "$w/$b.db" wot load "$sq/$b.pgp" >/dev/null 2>"$w/err" && ok || bad "load $b: $(cat "$w/err")"
done

before=2024-01-06 # day 5, before the revocations of day 10
after=2024-02-01  # day 31
# the models: the path model with ro as the core; GnuPG's with ro ultimate and
# the four introducers of full ownertrust
printf '%s:6:\n' "$(f ro)" >"$w/r.ot"
for n in hc sc ss ot; do printf '%s:5:\n' "$(f $n)"; done >>"$w/r.ot"
paths=(--core-fpr "$(f ro)")
gnupg=(--model gnupg --ownertrust "$w/r.ot")
for m in paths gnupg; do
	declare -n M=$m
	db="$w/r.db"
	# hard: compromised (hc), no reason (ot): gone at every date
	for n in hc ot; do
		t=$([ $n = hc ] && echo th || echo to)
		check no "$m: $n (hard) as a target before its revocation" "$db" "${M[@]}" -- $before "$(f $n)"
		check no "$m: $n (hard) as a target after" "$db" "${M[@]}" -- $after "$(f $n)"
		check no "$m: what $n (hard) certified, before its revocation" "$db" "${M[@]}" -- $before "$(f $t)"
		check no "$m: what $n (hard) certified, after" "$db" "${M[@]}" -- $after "$(f $t)"
	done
	# soft: retired (sc), superseded (ss); GnuPG's model, as gpg 2.2 (run
	# live on this keyring at these dates by T521-gnupg-live.sh): revoked at
	# every date, nothing it certified counts
	soft=$([ $m = gnupg ] && echo no || echo yes)
	for n in sc ss; do
		t=$([ $n = sc ] && echo ts || echo tu)
		check $soft "$m: $n (soft) as a target before its revocation" "$db" "${M[@]}" -- $before "$(f $n)"
		check no "$m: $n (soft) as a target after" "$db" "${M[@]}" -- $after "$(f $n)"
		check $soft "$m: what $n (soft) certified before, asked before" "$db" "${M[@]}" -- $before "$(f $t)"
		check $soft "$m: what $n (soft) certified before, asked after" "$db" "${M[@]}" -- $after "$(f $t)"
	done
	check no "$m: what sc certified after its soft revocation" "$db" "${M[@]}" -- $after "$(f tl)"
	unset -n M
done
# the reasons shown
verdict "$w/r.db" "${paths[@]}" -- $before "$(f hc)" >/dev/null
grep -q "is revoked (key compromised or no reason given: at every date)" "$w/out" && ok || bad "hard: message: $(cat "$w/out")"
verdict "$w/r.db" "${paths[@]}" -- $after "$(f sc)" >/dev/null
grep -q "is revoked at the reference time (retired or superseded)" "$w/out" && ok || bad "soft: message: $(cat "$w/out")"
verdict "$w/r.db" "${gnupg[@]}" -- $before "$(f hc)" >/dev/null
grep -q "revoked (r)" "$w/out" && ok || bad "gnupg hard: $(cat "$w/out")"
# a soft-revoked core key still counts with what it certified before
check yes "paths: soft-revoked core sc, after" "$w/r.db" --core-fpr "$(f sc)" -- $after "$(f ts)"
check no "paths: hard-revoked core hc, before" "$w/r.db" --core-fpr "$(f hc)" -- $before "$(f th)"
grep -q "none of the 1 core keys is usable" "$w/out" && ok || bad "hard core: $(cat "$w/out")"

# --- Sequoia's keyrings (sequoia-wot src/lib.rs cert_revoked_*, certification_revoked)
t1=2020-02-02 t2=2020-03-02 t3=2020-04-02
for v in hard soft; do
	db="$w/cert-revoked-$v.db"
	A=$(sqf cert-revoked-$v alice) B=$(sqf cert-revoked-$v bob) C=$(sqf cert-revoked-$v carol) D=$(sqf cert-revoked-$v dave)
	printf '%s:6:\n%s:5:\n%s:3:\n' "$A" "$B" "$C" >"$w/$v.ot" # carol: never (counts nothing)
	for t in $t1 $t2 $t3; do
		if [ $v = hard ]; then want_bd=no; want_b=no; else want_bd=yes; want_b=$([ $t = $t1 ] && echo yes || echo no); fi
		check $want_bd "cert-revoked-$v at $t: bob -> dave (paths)" "$db" --core-fpr "$B" -- $t "$D"
		check $want_b "cert-revoked-$v at $t: alice -> bob (paths)" "$db" --core-fpr "$A" -- $t "$B"
		# GnuPG's model: bob revoked (soft or hard) at every date, as gpg
		# (T521-gnupg-live.sh compares these live)
		check no "cert-revoked-$v at $t: bob (gnupg)" "$db" --model gnupg --ownertrust "$w/$v.ot" -- $t "$B"
		# only bob introduces (carol: never): dave is fully valid iff bob's
		# certification counts, which it never does in gpg
		check no "cert-revoked-$v at $t: dave through bob (gnupg)" "$db" --model gnupg --ownertrust "$w/$v.ot" -- $t "$D"
		check yes "cert-revoked-$v at $t: alice -> dave (paths)" "$db" --core-fpr "$A" -- $t "$D"
	done
done
# certification-revoked: alice -> bob (2020-02-01), revoked 2020-03-01,
# certified again 2020-04-01
db="$w/certification-revoked.db"
A=$(sqf certification-revoked alice) B=$(sqf certification-revoked bob) C=$(sqf certification-revoked carol)
printf '%s:6:\n%s:5:\n' "$A" "$B" >"$w/cr.ot"
# GnuPG's model, as gpg (T521-gnupg-live.sh compares these live): the newest
# certification counts whatever its date, so alice's of 2020-04-01 already
# on 2020-03-15
for m in paths gnupg; do
	if [ $m = paths ]; then args=(--core-fpr "$A"); else args=(--model gnupg --ownertrust "$w/cr.ot"); fi
	between=$([ $m = gnupg ] && echo yes || echo no)
	check yes "certification-revoked ($m): bob before the revocation" "$db" "${args[@]}" -- 2020-02-15 "$B"
	check $between "certification-revoked ($m): bob after the revocation" "$db" "${args[@]}" -- 2020-03-15 "$B"
	check $between "certification-revoked ($m): carol after the revocation" "$db" "${args[@]}" -- 2020-03-15 "$C"
	check yes "certification-revoked ($m): bob certified again" "$db" "${args[@]}" -- 2020-04-15 "$B"
	check yes "certification-revoked ($m): carol again" "$db" "${args[@]}" -- 2020-04-15 "$C"
done

[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was used"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
