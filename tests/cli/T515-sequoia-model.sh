#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp trust --model sequoia: Sequoia's web of trust through the CLI.
#  - the revocation queries of sequoia-wot's own tests (cert_revoked_hard,
#    cert_revoked_soft, certifications_revoked, userid_revoked in
#    tests/data/sequoia-wot/expected.tsv, extracted from the crate's code)
#    asked with --uid: the amounts and paths must be Sequoia's (all 157
#    queries are checked against the library in tests/unit/test-trust-sequoia.c);
#  - the four newer keyrings (certification-network, gpg-trustroots,
#    override, sha1), as their README describes them;
#  - a policy file with model = sequoia, the options, --email, --json.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sq="$top/tests/data/sequoia-wot"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T515-sequoia-model
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

load() { # NAME: the store of keyring NAME.pgp
	[ -f "$w/$1.db" ] || $KSP -d "$w/$1.db" wot load "$sq/$1.pgp" >/dev/null 2>&1 || bad "$1: load"
}
fp() { sqlite3 "$w/$1.db" "SELECT DISTINCT k.fpr FROM keys k JOIN uids u ON u.key_id = k.id WHERE CAST(u.uid AS TEXT) LIKE '%<$2@%'"; }
# ask NAME AT TARGET [OPTION...]: the answer as "CODE AMOUNT PATHS" (paths
# as in expected.tsv: AMOUNT=FPR>FPR;...)
ask() {
	local n=$1 at=$2 target=$3
	shift 3
	$KSP -d "$w/$n.db" --json trust --model sequoia --at "$at" "$@" "$target" >"$w/out" 2>"$w/err"
	got="$? $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["trust_amount"], ";".join("%d=%s" % (p["amount"], ">".join(p["keys"])) for p in d["paths"]) or "-")' "$w/out" 2>&1)"
}
check() { # MSG WANT
	if [ "$got" = "$2" ]; then ok; else
		bad "$1: got '$got', want '$2'"
		sed 's/^/  | /' "$w/err" | head -3 >&2
	fi
}

# --- sequoia-wot's revocation queries, through the CLI ---------------------
n_rows=0
while IFS=$'\t' read -r test num ring at roots target uid tamount amount paths; do
	case $test in
	cert_revoked_hard | cert_revoked_soft | certifications_revoked | userid_revoked) ;;
	*) continue ;;
	esac
	n=${ring%.pgp}
	load "$n"
	args=()
	IFS=, read -ra rs <<<"$roots"
	for r in "${rs[@]}"; do
		if [ "${r#*:}" = 120 ]; then args+=(--core-fpr "${r%%:*}"); else args+=(--partial-core "$r"); fi
	done
	ask "$n" "@$at" "$target" "${args[@]}" --uid "$uid"
	code=1
	[ "$amount" -ge "$tamount" ] && code=0
	check "$test #$num ($uid at $at)" "$code $amount $paths"
	n_rows=$((n_rows + 1))
done < <(grep -v '^#' "$sq/expected.tsv")
[ "$n_rows" -ge 30 ] && ok || bad "only $n_rows revocation queries in expected.tsv"

# --- the four newer keyrings -----------------------------------------------
# certification-network: alice -> bob -> carol -> dave, dave -> alice (a
# trust signature 0/60), all made 2023-01-19 11:51: only the root's own
# certifications count; in the certification-network mode every one
# introduces
n=certification-network
load $n
A=$(fp $n alice) B=$(fp $n bob) C=$(fp $n carol) D=$(fp $n dave)
t=2023-01-19T12:00:00Z
ask $n $t "$B" --core-fpr "$A"
check "$n: bob from alice" "0 120 120=$A>$B"
ask $n $t "$C" --core-fpr "$A"
check "$n: carol from alice, plain certifications" "1 0 -"
ask $n $t "$D" --core-fpr "$A" --certification-network
check "$n: dave, certification network" "0 120 120=$A>$B>$C>$D"
ask $n $t "$A" --core-fpr "$D"
check "$n: alice from dave (0/60)" "1 60 60=$D>$A"
ask $n $t "$A" --core-fpr "$D" --certification-network
check "$n: alice from dave, certification network (the amount stays)" "1 60 60=$D>$A"
ask $n $t "$A" --core-fpr "$C" --certification-network
check "$n: alice from carol, certification network" "1 60 60=$C>$D>$A"

# gpg-trustroots: root certifies a1-a3 (plain), each certifies d, d the
# target: d only through a1-a3 as partially trusted roots (what GnuPG's
# marginal ownertrust makes them; sq-wot --gpg: 40 each)
n=gpg-trustroots
load $n
R=$(fp $n root) A1=$(fp $n a1) A2=$(fp $n a2) A3=$(fp $n a3) Dd=$(fp $n d) T=$(fp $n target)
t=2021-01-01
ask $n $t "$A1" --core-fpr "$R"
check "$n: a1 from root" "0 120 120=$R>$A1"
ask $n $t "$Dd" --core-fpr "$R"
check "$n: d from root alone" "1 0 -"
ask $n $t "$Dd" --core-fpr "$R" --partial-core "$A1:40" --partial-core "$A2:40" --partial-core "$A3:40"
got_amount=$(echo "$got" | cut -d' ' -f1-2)
[ "$got_amount" = "0 120" ] && ok || bad "$n: d through a1-a3 at 40 each: got '$got', want amount 120"
ask $n $t "$T" --core-fpr "$R" --partial-core "$A1:40" --partial-core "$A2:40" --partial-core "$A3:40"
check "$n: the target (d is no introducer)" "1 0 -"
ask $n $t "$Dd" --partial-core "$A1:40" --partial-core "$A2:40" --trust-amount 80
check "$n: d, two partial roots, --trust-amount 80" "0 80 40=$A2>$Dd;40=$A1>$Dd"

# override: alice makes bob a trusted introducer (2/120) on 2023-01-14,
# then certifies him plainly on 2023-01-16: the newer replaces the older
n=override
load $n
A=$(fp $n alice) B=$(fp $n bob) C=$(fp $n carol)
ask $n 2023-01-15 "$C" --core-fpr "$A"
check "$n: carol before the newer certification" "0 120 120=$A>$B>$C"
ask $n 2023-01-17 "$C" --core-fpr "$A"
check "$n: carol after it" "1 0 -"
ask $n 2023-01-17 "$B" --core-fpr "$A"
check "$n: bob after it" "0 120 120=$A>$B"

# sha1: SHA-1 certifications (2023-01-10 15:05) are refused (Sequoia's
# policy: SHA-1 for certifications only before 2013-02); the SHA-256 ones
# (15:11-15:12, 1/60) count
n=sha1
load $n
A=$(fp $n alice) B=$(fp $n bob) C=$(fp $n carol)
ask $n 2023-01-10T15:10:00Z "$C" --core-fpr "$A"
check "$n: carol with SHA-1 certifications only" "1 0 -"
ask $n 2023-01-10T15:10:00Z "$B" --core-fpr "$A"
check "$n: bob with a SHA-1 certification only" "1 0 -"
ask $n 2023-01-10T15:13:00Z "$C" --core-fpr "$A"
check "$n: carol with SHA-256 certifications" "1 60 60=$A>$B>$C"
ask $n 2023-01-10T15:13:00Z "$C" --core-fpr "$A" --trust-amount 60
check "$n: carol, --trust-amount 60" "0 60 60=$A>$B>$C"

# --- a policy file, --email, text output, errors -----------------------------
n=override
A=$(fp $n alice) C=$(fp $n carol)
printf 'model = sequoia\ncore = %s\ntrust_amount = 120\n' "$A" >"$w/policy"
ask $n 2023-01-15 "$C" --policy "$w/policy"
check "policy model = sequoia" "0 120 120=$A>$(fp $n bob)>$C"
printf 'model = sequoia\ncertification_network = yes\ncore = %s\n' "$A" >"$w/policy2"
ask $n 2023-01-17 "$C" --policy "$w/policy2"
check "policy certification_network = yes" "0 120 120=$A>$(fp $n bob)>$C"
printf 'model = pgp\n' >"$w/bad"
$KSP -d "$w/$n.db" trust --policy "$w/bad" "$C" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "bad:1: model is paths, gnupg or sequoia" "$w/err" && ok || bad "policy model = pgp: not refused with the place"
$KSP -d "$w/$n.db" trust --model sequoia --core-fpr "$A" --at 2023-01-15 --email carol@example.org >"$w/out" 2>&1
[ $? = 0 ] && grep -q "authenticated (trust amount 120 of 120) as \"<carol@example.org>\"" "$w/out" &&
	grep -q "1 of 1 key authenticated" "$w/out" && ok || bad "--email lookup: $(head -3 "$w/out")"
$KSP -d "$w/$n.db" trust --model sequoia --core-fpr "$A" --at 2023-01-15 "$C" >"$w/out" 2>&1
grep -q "certified $C on 2023-01-14 (trust depth 0, amount 120)" "$w/out" && ok || bad "text output: $(cat "$w/out")"
$KSP -d "$w/$n.db" trust --model sequoia --at 2023-01-15 "$C" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "no core keys given" "$w/err" && ok || bad "no core: not refused"
$KSP -d "$w/$n.db" trust --model sequoia --partial-core "$A:121" "$C" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "FPR:AMOUNT (1-120)" "$w/err" && ok || bad "--partial-core 121: not refused"
$KSP -d "$w/$n.db" trust --trust-amount 60 "$C" >/dev/null 2>"$w/err"
[ $? = 2 ] && grep -q "need --model sequoia" "$w/err" && ok || bad "--trust-amount without the model: not refused"
ask $n 2023-01-15 0000000000000000000000000000000000000000 --core-fpr "$A"
check "a key not in the store" "1 0 -"

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
