#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp trust --model gnupg against gpg 2.2 itself, live: the test makes a
# keyring with gpg (a matrix of introducers and roots revoked for every
# reason at dates before and after the asked time, revoked certifications
# and user IDs, expired keys, certifications and user ID self-signatures
# (those made by tests/tools/uid-expiry-key.py), keys made after the asked
# time, trust signatures with depths, amounts and a regular expression,
# certification levels, SHA-1 certifications, every ownertrust level), runs
# "gpg --check-trustdb" under --faked-system-time at several times and with
# gpg's options, and compares every key's validity letter with ksp's
# (--json), failing on each difference and listing it.  The same on the
# revocation fixtures of T540-revocations.sh at its dates.  Then the kernel
# sample (Linus ultimately trusted) and a slice of the Debian keyring
# (tests/tools/keyring-slice.py): every letter equal, and ksp never more
# trusting than gpg.  T521_TABLE=1 prints every matrix letter (gpg's, ksp's).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
name=T521-gnupg-live
data="$top/tests/data"
PY=/usr/bin/python3
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
homes=()
cleanup() {
	for h in "${homes[@]}"; do gpgconf --homedir "$h" --kill all >/dev/null 2>&1; done
	rm -rf "$w"
}
trap cleanup EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
for tool in gpg:gnupg gpgconf:gnupg sqlite3:sqlite3 "$PY:python3"; do
	command -v "${tool%%:*}" >/dev/null 2>&1 || { bad "${tool%%:*} is missing: install the Debian package ${tool##*:}"; }
done
$PY -c 'import cryptography' 2>/dev/null || bad "python3's cryptography is missing: install the Debian package python3-cryptography"
[ "$fail" = 0 ] || { echo "$name: $pass passed, $fail failed"; exit 1; }

newhome() { # NAME: a private GnuPG home
	local h="$w/gpg-$1"
	mkdir -m 700 "$h"
	homes+=("$h")
	echo "$h"
}
# --- the keyring, made with gpg ------------------------------------------------
G=$(newhome gen)
g() { gpg --homedir "$G" --batch --no-tty --quiet --pinentry-mode loopback --passphrase '' \
	--no-auto-check-trustdb "$@"; }
at() { # TIME GPG-ARGS...: gpg with its clock stopped at TIME
	local t=$1
	shift
	g --faked-system-time "${t}!" "$@" 2>>"$w/gen.err"
}
declare -A F
mk() { # NAME TIME [EXPIRE [ALGO]]: a key "NAME <NAME@x.test>" made at TIME
	at "$2" --quick-gen-key "$1 <$1@x.test>" "${4:-ed25519}" cert "${3:-0}" >/dev/null
	F[$1]=$(g --with-colons --list-keys "<$1@x.test>" | awk -F: '$1 == "fpr" { print $10; exit }')
	[ -n "${F[$1]}" ] || bad "gpg made no key $1"
}
sign() { # TIME SIGNER SIGNEE [OPTION...]: a certification (0x10)
	local t=$1 by=$2 who=$3
	shift 3
	at "$t" -u "${F[$by]}" "$@" --quick-sign-key "${F[$who]}" >/dev/null
}
sign_uid() { # TIME SIGNER SIGNEE UID: a certification of that user ID only
	at "$1" -u "${F[$2]}" --quick-sign-key "${F[$3]}" "$4" >/dev/null
}
tsign() { # TIME SIGNER SIGNEE LEVEL(1 marginal, 2 full) DEPTH [DOMAIN]
	printf 'tsign\n%s\n%s\n%s\ny\nsave\n' "$4" "$5" "${6:-}" |
		at "$1" -u "${F[$2]}" --command-fd 0 --edit-key "${F[$3]}" >/dev/null
}
revoke_key() { # TIME NAME REASON (gpg's menu: 0 none, 1 compromised, 2 superseded, 3 retired)
	printf 'y\n%s\n\ny\n' "$3" | gpg --homedir "$G" --no-tty --pinentry-mode loopback --passphrase '' \
		--faked-system-time "${1}!" --command-fd 0 --gen-revoke "${F[$2]}" >"$w/rev.asc" 2>>"$w/gen.err"
	g --import "$w/rev.asc" 2>>"$w/gen.err"
}
t0=20240101T000000  # keys
t1=20240102T000000  # the root's certifications
t2=20240103T000000  # the introducers' certifications
early=20240301T000000
late=20240901T000000
mk root $t0
ot="$w/ot"
echo "${F[root]}:6:" >"$ot"
# key revocations of full introducers: every reason, early and late
for r in 0 1 2 3; do
	for d in early late; do
		mk "rv$r$d" $t0
		mk "tv$r$d" $t0
		sign $t1 root "rv$r$d"
		sign $t2 "rv$r$d" "tv$r$d"
		echo "${F[rv$r$d]}:5:" >>"$ot"
	done
done
# three marginal introducers, one of them retired early: tm3 needs all three
for n in 1 2 3; do
	mk "mi$n" $t0
	sign $t1 root "mi$n"
	echo "${F[mi$n]}:4:" >>"$ot"
done
mk tm3 $t0
for n in 1 2 3; do sign $t2 "mi$n" tm3; done
mk tm2 $t0
sign $t2 mi1 tm2
sign $t2 mi2 tm2
# revoked certifications: early, late, and one certified again after
for n in cr1 cr2 cr3; do
	mk $n $t0
	sign $t1 root $n
done
at $early -u "${F[root]}" --quick-revoke-sig "${F[cr1]}" "${F[root]}" >/dev/null
at $late -u "${F[root]}" --quick-revoke-sig "${F[cr2]}" "${F[root]}" >/dev/null
at $early -u "${F[root]}" --quick-revoke-sig "${F[cr3]}" "${F[root]}" >/dev/null
sign 20240401T000000 root cr3 --force-sign-key
# revoked user IDs: the root certified only the second one
for n in ur1 ur2; do
	mk $n $t0
	at $t0 --quick-add-uid "${F[$n]}" "$n second <$n.2@x.test>"
	sign_uid $t1 root $n "$n second <$n.2@x.test>"
done
at $early --quick-revoke-uid "${F[ur1]}" "ur1 second <ur1.2@x.test>"
at $late --quick-revoke-uid "${F[ur2]}" "ur2 second <ur2.2@x.test>"
# expiry: of full introducers (120 and 300 days), of certifications
mk ex1 $t0 120d
mk ex2 $t0 300d
for n in ex1 ex2; do
	mk "t$n" $t0
	sign $t1 root $n
	sign $t2 $n "t$n"
	echo "${F[$n]}:5:" >>"$ot"
done
mk ce1 $t0
mk ce2 $t0
sign $t1 root ce1 --default-cert-expire 100d
sign $t1 root ce2 --default-cert-expire 300d
# a certification made after the first two asked times
mk lc $t0
sign $late root lc
# trust signatures: depth 2 then 1 (a chain of three), depth 1 then 1 (the
# chain stops), marginal amounts, a domain
for n in d2 d2a d2b d1 d1a d1b m1 m2 m3 tmm3 tmm2 rx rxa; do mk $n $t0; done
tsign $t1 root d2 2 2
tsign $t2 d2 d2a 2 1
sign $t2 d2a d2b
tsign $t1 root d1 2 1
tsign $t2 d1 d1a 2 1
sign $t2 d1a d1b
for n in m1 m2 m3; do tsign $t1 root $n 1 1; done
for n in m1 m2 m3; do sign $t2 $n tmm3; done
sign $t2 m1 tmm2
sign $t2 m2 tmm2
tsign $t1 root rx 2 1 x.test
sign $t2 rx rxa
at $t0 --quick-gen-key "rxb <rxb@y.test>" ed25519 cert 0 >/dev/null
F[rxb]=$(g --with-colons --list-keys "<rxb@y.test>" | awk -F: '$1 == "fpr" { print $10; exit }')
sign $t2 rx rxb
# ownertrust levels: full, never, undefined, and none
for n in of on oq on2; do
	mk $n $t0
	mk "t$n" $t0
	sign $t1 root $n
	sign $t2 $n "t$n"
done
{ echo "${F[of]}:5:"; echo "${F[on]}:3:"; echo "${F[oq]}:2:"; } >>"$ot"
# an introducer whose expiry (120 days) was extended before it came (to 2
# years), and one whose only certified user ID was revoked (late)
mk xt $t0 120d
mk txt $t0
sign $t1 root xt
sign $t2 xt txt
at 20240401T000000 --quick-set-expire "${F[xt]}" 2y
mk ui $t0
mk tui $t0
at $t0 --quick-add-uid "${F[ui]}" "ui second <ui.2@x.test>"
sign_uid $t1 root ui "ui second <ui.2@x.test>"
sign $t2 ui tui
at $late --quick-revoke-uid "${F[ui]}" "ui second <ui.2@x.test>"
echo "${F[xt]}:5:" >>"$ot"
echo "${F[ui]}:5:" >>"$ot"
# an introducer expired (30 days) and extended (2024-04-01) only after
# the first asked time (gpg uses the newest self-signature, whatever its date)
mk xt2 $t0 30d
mk txt2 $t0
sign $t1 root xt2
sign $t2 xt2 txt2
at 20240401T000000 --quick-set-expire "${F[xt2]}" 2y
echo "${F[xt2]}:5:" >>"$ot"
# user IDs whose self-signature expires (made by a tool: gpg cannot), after
# 100 and 300 days; the root certifies the expiring one of each, not the other
for n in ue1:100 ue2:300; do
	$PY "$top/tests/tools/uid-expiry-key.py" 1704067200 "$n" "${n%%:*}b:0" >"$w/ue.gpg" || bad "uid-expiry-key.py $n"
	g --import "$w/ue.gpg" 2>>"$w/gen.err"
	F[${n%%:*}]=$(g --with-colons --list-keys "<${n%%:*}b@x.test>" | awk -F: '$1 == "fpr" { print $10; exit }')
	sign_uid $t1 root "${n%%:*}" "${n%%:*} <${n%%:*}@x.test>"
done
# certification levels: persona (0x11, below the default min-cert-level 2)
# and positive (0x13); a trust signature on a key of ownertrust never
mk p1 $t0
mk p3 $t0
sign $t1 root p1 --default-cert-level 1
sign $t1 root p3 --default-cert-level 3
mk tn $t0
mk ttn $t0
tsign $t1 root tn 2 1
sign $t2 tn ttn
echo "${F[tn]}:3:" >>"$ot"
# the newest certification by one signer decides, even expired: ce3 was
# certified again with a 30-day expiry (forced: gpg would say "already signed")
mk ce3 $t0
sign $t1 root ce3
sign 20240201T000000 root ce3 --force-sign-key --default-cert-expire 30d
# the newest trust signature on a key decides, not the packet order: root5
# (ultimate) trust-signs tw full first, dated after root's marginal one made
# next; tw certifies ttw
mk root5 $t0
echo "${F[root5]}:6:" >>"$ot"
for n in tw tv tx; do mk $n $t0; mk "t$n" $t0; done
tsign $t2 root5 tw 2 1
tsign $t1 root tw 1 1
sign $t2 tw ttw
# and the other way round: root5's marginal one is the newest
tsign $t2 root5 tv 1 1
tsign $t1 root tv 2 1
sign $t2 tv ttv
# made in time order: the newest (full) comes last
tsign $t1 root5 tx 1 1
tsign $t2 root tx 2 1
sign $t2 tx ttx
# SHA-1 certifications by a root of 2018 (RSA: EdDSA needs a longer hash):
# made before 2019-01-19 they count, after it gpg refuses them
mk root6 20180101T000000 0 rsa1024
echo "${F[root6]}:6:" >>"$ot"
mk s1a 20180101T000000
mk s1b 20180101T000000
sign 20180601T000000 root6 s1a --cert-digest-algo SHA1 --allow-weak-key-signatures
sign 20200601T000000 root6 s1b --cert-digest-algo SHA1 --allow-weak-key-signatures
# keys made after the first asked time: a target, and a full introducer
mk fk 20240401T000000
mk fin 20240401T000000
mk tfin $t0
sign 20240402T000000 root fk
sign 20240402T000000 root fin
sign 20240403T000000 fin tfin
echo "${F[fin]}:5:" >>"$ot"
# more roots, revoked (superseded late; compromised early), expired (after
# 120 days), each certifying a key
for n in root2 root3 root4; do
	if [ $n = root4 ]; then mk $n $t0 120d; else mk $n $t0; fi
	mk "t$n" $t0
	sign $t2 $n "t$n"
	echo "${F[$n]}:6:" >>"$ot"
done
# the revocations last (gpg would refuse to certify with a revoked key)
revoke_key $late root2 2
revoke_key $early root3 1
for r in 0 1 2 3; do
	revoke_key $early "rv${r}early" $r
	revoke_key $late "rv${r}late" $r
done
revoke_key $early mi3 3
g --export >"$w/matrix.gpg"
[ "${#F[@]}" -ge 88 ] && [ -s "$w/matrix.gpg" ] && ok || bad "gpg made ${#F[@]} keys: $(head -5 "$w/gen.err")"

# gpg_letters HOME TIME: "FPR LETTER" of every key after --check-trustdb at
# TIME, with the options in the array gopts
gopts=() kopts=()
gpg_letters() {
	local h=$1 t=$2
	gpg --homedir "$h" --batch --quiet --no-tty --trust-model pgp --no-auto-check-trustdb \
		--faked-system-time "${t}!" "${gopts[@]}" --yes --check-trustdb >/dev/null 2>&1
	gpg --homedir "$h" --batch --no-tty --trust-model pgp --no-auto-check-trustdb \
		--faked-system-time "${t}!" "${gopts[@]}" --with-colons --list-keys 2>/dev/null |
		awk -F: '$1 == "pub" { v = $2 } $1 == "fpr" && v != "" { print $10, v; v = "" }' | sort
}
# ksp_letters DB OT AT FPRS: "FPR LETTER" of each key, from --json, with the
# options in the array kopts
ksp_letters() {
	$KSP -d "$1" --json trust --model gnupg --ownertrust "$2" --at "$3" "${kopts[@]}" --batch "$4" >"$w/k.json" 2>"$w/k.err"
	$PY -c '
import json, sys
for r in sorted(json.load(open(sys.argv[1]))["results"], key=lambda r: r["fingerprint"]):
    print(r["fingerprint"], r["letter"])' "$w/k.json" 2>&1
}
# compare MSG HOME DB OT GPG-TIME KSP-AT [NAMES]: every letter equal; the
# differences listed (with names when known)
ndiff=0
compare() {
	local msg=$1 h=$2 db=$3 o=$4 t=$5 a=$6 n
	gpg_letters "$h" "$t" >"$w/gv"
	cut -d' ' -f1 "$w/gv" >"$w/fprs"
	ksp_letters "$db" "$o" "$a" "$w/fprs" >"$w/kv"
	n=$(join "$w/gv" "$w/kv" | awk '$2 != $3' | wc -l)
	ndiff=$((ndiff + n))
	if [ -s "$w/gv" ] && [ "$(wc -l <"$w/gv")" = "$(wc -l <"$w/kv")" ] && [ "$n" = 0 ]; then ok; else
		bad "$msg: $n of $(wc -l <"$w/gv") letters differ (gpg, ksp)"
		join "$w/gv" "$w/kv" | awk '$2 != $3' | while read -r f gl kl; do
			local nm="?"
			for k in "${!F[@]}"; do [ "${F[$k]}" = "$f" ] && nm=$k; done
			echo "  | $nm $f gpg $gl ksp $kl" >&2
		done
		[ "$(wc -l <"$w/gv")" = "$(wc -l <"$w/kv")" ] || sed 's/^/  | /' "$w/k.err" | head -3 >&2
	fi
}
H=$(newhome matrix)
gpg --homedir "$H" --batch --quiet --no-tty --import "$w/matrix.gpg" >/dev/null 2>&1
gpg --homedir "$H" --batch --quiet --no-tty --import-ownertrust "$ot" >/dev/null 2>&1
$KSP -d "$w/m.db" wot load "$w/matrix.gpg" >/dev/null 2>"$w/err" && ok || bad "ksp wot load: $(cat "$w/err")"
# before every event, between, after all; and at the instants ce1 (100 days
# after 2024-01-02) and ex1 (120 days after 2024-01-01) expire (ue1's user ID
# expired a day before)
times="20240201T000000 20240411T000000 20240430T000000 20240601T000000 20241201T000000"
for t in $times; do
	a="${t:0:4}-${t:4:2}-${t:6:2}"
	compare "matrix at $a" "$H" "$w/m.db" "$ot" "$t" "$a"
	cp "$w/gv" "$w/gv.$a"
	cp "$w/kv" "$w/kv.$a"
done
if [ "${T521_TABLE:-0}" = 1 ]; then # every letter, by name: gpg and ksp at each time
	for k in "${!F[@]}"; do
		printf '%-9s' "$k"
		for a in $times; do
			a="${a:0:4}-${a:4:2}-${a:6:2}"
			printf ' %s%s' "$(awk -v f="${F[$k]}" '$1 == f { print $2 }' "$w/gv.$a")" \
				"$(awk -v f="${F[$k]}" '$1 == f { print $2 }' "$w/kv.$a")"
		done
		echo
	done | sort
fi
# gpg's options, and ksp's, at one time
for o in "--marginals-needed 2" "--completes-needed 2" "--max-cert-depth 1" "--max-cert-depth 2" \
	"--min-cert-level 1" "--min-cert-level 3" "--allow-weak-key-signatures:--sha1 yes"; do
	read -r -a gopts <<<"${o%%:*}"
	read -r -a kopts <<<"${o##*:}"
	compare "matrix at 2024-06-01, ${o%%:*}" "$H" "$w/m.db" "$ot" 20240601T000000 2024-06-01
done
gopts=() kopts=()
echo "$name: matrix: $ndiff letters differ"
# the new letter, as people read it: a key made after the asked time
got=$($KSP -d "$w/m.db" trust --model gnupg --ownertrust "$ot" --at 2024-02-01 -q "${F[fk]}" 2>&1)
[ "$got" = "${F[fk]}: invalid (i): the key was made after this date" ] && ok || bad "fk at 2024-02-01: $got"
# a revoked introducer, asked before its (soft) revocation's date
got=$($KSP -d "$w/m.db" --json trust --model gnupg --ownertrust "$ot" --at 2024-02-01 "${F[tv3late]}" 2>&1)
[ "$(echo "$got" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(d["validity"], d["letter"], d["trusted"])' 2>&1)" = \
	"unknown - False" ] && ok || bad "tv3late at 2024-02-01: $got"

# --- the revocation fixtures of T540-revocations.sh, at its dates -------------------
# fixture NAME KEYRING OWNERTRUST TIME...: every letter equal at each TIME
fixture() {
	local n=$1 kr=$2 o=$3 t h
	shift 3
	h=$(newhome "fx-$n")
	gpg --homedir "$h" --batch --quiet --no-tty --import "$kr" >/dev/null 2>&1
	gpg --homedir "$h" --batch --quiet --no-tty --import-ownertrust "$o" >/dev/null 2>&1
	[ -f "$w/fx-$n.db" ] || $KSP -d "$w/fx-$n.db" wot load "$kr" >/dev/null 2>"$w/err" || bad "$n: ksp wot load: $(cat "$w/err")"
	for t in "$@"; do
		compare "$n at $t" "$h" "$w/fx-$n.db" "$o" "$t" "${t:0:4}-${t:4:2}-${t:6:2}"
	done
}
fxr="$top/tests/keyrings/trust"
fxf() { awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$fxr/revocations.tsv"; }
{ echo "$(fxf ro):6:"; for n in hc sc ss ot; do echo "$(fxf $n):5:"; done; } >"$w/r.ot"
fixture revocations "$fxr/revocations.gpg" "$w/r.ot" 20240106T000000 20240201T000000
for n in cert-revoked-hard cert-revoked-soft certification-revoked; do
	$KSP -d "$w/fx-$n.db" wot load "$data/sequoia-wot/$n.pgp" >/dev/null 2>"$w/err" || bad "$n: ksp wot load: $(cat "$w/err")"
	sqf() { sqlite3 "$w/fx-$n.db" "SELECT DISTINCT k.fpr FROM keys k JOIN uids u ON u.key_id = k.id WHERE CAST(u.uid AS TEXT) LIKE '%<$1@%'"; }
	printf '%s:6:\n%s:5:\n%s:3:\n' "$(sqf alice)" "$(sqf bob)" "$(sqf carol)" >"$w/$n.ot"
	fixture $n "$data/sequoia-wot/$n.pgp" "$w/$n.ot" 20200202T000000 20200215T000000 20200302T000000 \
		20200315T000000 20200402T000000 20200415T000000
done
echo "$name: matrix and fixtures: $ndiff letters differ"

# --- real keyrings: ksp is never more trusting than gpg ----------------------------
# rank of a letter: u > f > m > anything else
rank() { case $1 in u) echo 3 ;; f) echo 2 ;; m) echo 1 ;; *) echo 0 ;; esac; }
# real NAME KEYRING ROOT-FPR TIME...: gpg and ksp on KEYRING with ROOT
# ultimately trusted and the others of ownertrust by the last digit of their
# fingerprint (0-7 marginal, 8-b full, c never, d undefined, e-f none), at
# each TIME; every letter is listed where they differ, and ksp more trusting
# than gpg fails
real() {
	local n=$1 kr=$2 root=$3 t a more same total
	shift 3
	local h
	h=$(newhome "$n")
	gpg --homedir "$h" --batch --quiet --no-tty --import "$kr" >/dev/null 2>&1
	gpg --homedir "$h" --batch --no-tty --with-colons --list-keys 2>/dev/null |
		awk -F: -v r="$root" '$1 == "pub" { p = 1 } $1 == "fpr" && p { p = 0; d = substr($10, 40, 1)
			if ($10 == r) print $10 ":6:"
			else if (d ~ /[0-7]/) print $10 ":4:"
			else if (d ~ /[89AB]/) print $10 ":5:"
			else if (d == "C") print $10 ":3:"
			else if (d == "D") print $10 ":2:" }' >"$w/$n.ot"
	grep -q "^$root:6:" "$w/$n.ot" && ok || bad "$n: the root $root is not in the keyring"
	gpg --homedir "$h" --batch --quiet --no-tty --import-ownertrust "$w/$n.ot" >/dev/null 2>&1
	$KSP -d "$w/$n.db" wot load "$kr" >/dev/null 2>"$w/err" && ok || bad "$n: ksp wot load: $(cat "$w/err")"
	for t in "$@"; do
		a="${t:0:4}-${t:4:2}-${t:6:2}"
		gpg_letters "$h" "$t" >"$w/gv"
		cut -d' ' -f1 "$w/gv" >"$w/fprs"
		ksp_letters "$w/$n.db" "$w/$n.ot" "$a" "$w/fprs" >"$w/kv"
		total=$(wc -l <"$w/gv")
		same=$(join "$w/gv" "$w/kv" | awk '$2 == $3' | wc -l)
		more=0
		while read -r f gl kl; do
			[ "$gl" = "$kl" ] && continue
			echo "  | $n at $a: $f gpg $gl ksp $kl" >&2
			[ "$(rank "$kl")" -gt "$(rank "$gl")" ] && more=$((more + 1))
		done < <(join "$w/gv" "$w/kv")
		echo "$name: $n at $a: $same of $total letters equal ($(cut -d' ' -f2 "$w/gv" | sort | uniq -c | awk '{ printf "%s%s ", $2, $1 }'))"
		[ "$total" -gt 0 ] && [ "$(wc -l <"$w/kv")" = "$total" ] && ok || bad "$n at $a: ksp gave $(wc -l <"$w/kv") of $total letters: $(head -c 300 "$w/k.err")"
		[ "$more" = 0 ] && ok || bad "$n at $a: ksp is more trusting than gpg on $more keys (listed above)"
		[ "$same" = "$total" ] && ok || bad "$n at $a: $((total - same)) of $total letters differ (listed above)"
	done
}
# the kernel sample, Linus Torvalds ultimately trusted
real kernel "$data/kernel-sample/kernel-sample.gpg" ABAF11C65A2970B130ABE3C479BE3E4300411886 \
	20190101T000000 "$(date -u +%Y%m%dT000000)"
# the first 150 keys of the Debian keyring, the one that certified most of
# the others and is valid at both times as the root
. "$top/tests/cli/debian-ring.sh"
why=$(debian_ring_missing)
if [ -z "$why" ]; then
	$PY "$top/tests/tools/keyring-slice.py" "$DEBIAN_RING" 150 >"$w/debian.gpg" 2>"$w/debian.made" || bad "keyring-slice.py failed"
	$KSP -d "$w/probe.db" wot load "$w/debian.gpg" >/dev/null 2>&1
	root=
	while read -r id _; do
		root=$(sqlite3 "$w/probe.db" "SELECT fpr FROM keys WHERE keyid = '$id' AND revoked = 0
			AND created < strftime('%s', '2016-01-01') AND (expires = 0 OR expires > strftime('%s', '2022-12-01'))")
		[ -n "$root" ] && break
	done <"$w/debian.made"
	[ -n "$root" ] && ok || bad "no root for the Debian slice"
	real debian "$w/debian.gpg" "$root" 20160101T000000 20221201T000000
else
	bad "$why"
fi

[ "$(find "$w/tmp" -mindepth 1 | wc -l)" = 0 ] && ok || bad "temporary files left in TMPDIR"
[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was used"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
