#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp trust --email ADDR / --uid UID: the binding question (a key and one of
# its user IDs): the last certification of every path must be on that user
# ID; without a fingerprint, every key that claims it, each with its
# verdict.  On the Arch Linux keyring and Sequoia-WoT's self-signed,
# userid-revoked and multiple-userids-1 keyrings (tests/data).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
data="$top/tests/data"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T545-trust-binding
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2
	shift 2
	"$@" >"$w/out" 2>"$w/err"
	local got=$?
	if [ "$got" = "$want" ]; then ok; else
		bad "$msg: exit $got, want $want"
		sed 's/^/  | /' "$w/out" "$w/err" | head -12 >&2
	fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else
		bad "$3: /$2/ not in $(basename "$1")"
		sed 's/^/  | /' "$1" | head -12 >&2
	fi
}
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
sqf() { sqlite3 "$w/$1.db" "SELECT DISTINCT k.fpr FROM keys k JOIN uids u ON u.key_id = k.id WHERE CAST(u.uid AS TEXT) LIKE '%<$2@%'"; }

arch="$data/archlinux"
[ -r "$arch/archlinux.gpg" ] && [ -r "$data/sequoia-wot/README.md" ] || { echo "FAIL: tests/data missing" >&2; echo "$name: 0 passed, 1 failed"; exit 1; }
$KSP -d "$w/arch.db" wot load "$arch/archlinux.gpg" >/dev/null 2>"$w/err" && ok || bad "load arch: $(cat "$w/err")"
awk -F'\t' '$2 == "main" { print $1 }' "$arch/trust-levels.tsv" >"$w/core"
rule=(--core "$w/core" --min-paths 3 --max-depth 1 --at 2023-03-21)
pierre=4AA4767BBC9C4B1D18AE28B77F2D434B9741E8AC

# --- by address: every key that claims it --------------------------------------
expect_code 0 "pierre@archlinux.de: one of the keys trusted" $KSP -d "$w/arch.db" trust "${rule[@]}" --email pierre@archlinux.de
expect_grep "$w/out" "^$pierre: trusted: 3 vertex-disjoint paths of at most 1 hop from the core to one user ID$" "pierre: verdict"
expect_grep "$w/out" "^3E80CA1A8B89F69CBA57D98A76A5EF9054449A5C: not trusted" "pierre: the other key that claims the address"
expect_grep "$w/out" "^1 of 2 keys trusted$" "pierre: summary"
expect_code 0 "--json lookup" $KSP -d "$w/arch.db" --json trust "${rule[@]}" --email Pierre@ArchLinux.DE
[ "$(jget "$w/out" '(d["email"], d["keys"], d["trusted"], sorted((r["fingerprint"], r["trusted"], r["uid"]) for r in d["results"]))')" = \
	"('Pierre@ArchLinux.DE', 2, 1, [('3E80CA1A8B89F69CBA57D98A76A5EF9054449A5C', False, 'Pierre Schmitz <pierre@archlinux.de>'), ('$pierre', True, 'Pierre Schmitz <pierre@archlinux.de>')])" ] &&
	ok || bad "--json lookup: $(cat "$w/out")"
expect_code 1 "an address nobody claims" $KSP -d "$w/arch.db" trust "${rule[@]}" --email nobody@example.org
expect_grep "$w/out" '^no key in the store has a user ID with the address "nobody@example.org"$' "nobody: message"
$KSP -d "$w/arch.db" --json trust "${rule[@]}" --email nobody@example.org >"$w/out" 2>&1
[ "$(jget "$w/out" '(d["keys"], d["trusted"], d["results"])')" = "(0, 0, [])" ] && ok || bad "nobody --json: $(cat "$w/out")"

# the keys that claim it in fingerprint order, whatever order the store has
# them in: Pierre's two keys loaded the other way round (split with gpg)
if command -v gpg >/dev/null; then
	mkdir -m 700 "$w/gpg-split"
	gpg --homedir "$w/gpg-split" --batch -q --import "$arch/archlinux.gpg" >/dev/null 2>&1
	for f in $pierre 3E80CA1A8B89F69CBA57D98A76A5EF9054449A5C; do
		gpg --homedir "$w/gpg-split" --batch --export "$f" >"$w/$f.gpg" 2>/dev/null
		$KSP -d "$w/order.db" wot load "$w/$f.gpg" >/dev/null 2>"$w/err" && ok || bad "load $f alone: $(cat "$w/err")"
	done
	gpgconf --homedir "$w/gpg-split" --kill all >/dev/null 2>&1
	[ "$(sqlite3 "$w/order.db" "SELECT group_concat(substr(fpr, 1, 4), ' ') FROM (SELECT fpr FROM keys ORDER BY id)")" = "4AA4 3E80" ] &&
		ok || bad "order.db: the keys not in load order"
	$KSP -d "$w/order.db" trust --core-fpr $pierre --email pierre@archlinux.de >"$w/out" 2>&1
	[ "$(grep -oE '^[0-9A-F]{40}' "$w/out" | cut -c1-4 | tr '\n' ' ')" = "3E80 4AA4 " ] &&
		ok || bad "lookup: the keys not in fingerprint order: $(cat "$w/out")"
else
	bad "gpg missing (apt-get install gpg)"
fi

# --- one binding: the paths end on that user ID ---------------------------------
# Pierre's three main-key certifications are on his .de user ID; at key
# level his .org one is reached too, but not by three
expect_code 0 "--uid the .de user ID" $KSP -d "$w/arch.db" --json trust "${rule[@]}" --uid "Pierre Schmitz <pierre@archlinux.de>" $pierre
[ "$(jget "$w/out" '(d["uid"], {p[-1]["uid"] for p in d["paths"]})')" = "('Pierre Schmitz <pierre@archlinux.de>', {'Pierre Schmitz <pierre@archlinux.de>'})" ] &&
	ok || bad "--uid .de: $(cat "$w/out")"
expect_code 1 "--uid the .org user ID" $KSP -d "$w/arch.db" trust "${rule[@]}" --uid "Pierre Schmitz <pierre@archlinux.org>" $pierre
expect_grep "$w/out" "vertex-disjoint paths? of at most 1 hop, 3 needed on one user ID|no certification path" "--uid .org: too few"
expect_code 1 "--email of the .org user ID" $KSP -d "$w/arch.db" trust "${rule[@]}" --email pierre@archlinux.org $pierre
expect_code 1 "--uid that the key does not have" $KSP -d "$w/arch.db" --json trust "${rule[@]}" --uid "Pierre Schmitz" $pierre
[ "$(jget "$w/out" 'd["reason"]')" = target_unknown ] && ok || bad "no such user ID: reason: $(cat "$w/out")"
expect_grep "$w/out" "has no such user ID" "no such user ID: message"

# --- Sequoia-WoT keyrings --------------------------------------------------------
for n in self-signed userid-revoked multiple-userids-1; do
	$KSP -d "$w/$n.db" wot load "$data/sequoia-wot/$n.pgp" >/dev/null 2>"$w/err" && ok || bad "load $n: $(cat "$w/err")"
done
# self-signed: bob certified carol's <carol@example.org>, not <carol@other.org>
B=$(sqf self-signed bob) C=$(sqf self-signed carol)
expect_code 0 "self-signed: carol@example.org" $KSP -d "$w/self-signed.db" trust --core-fpr "$B" --at 2022-03-01 --email carol@example.org "$C"
expect_code 1 "self-signed: carol@other.org" $KSP -d "$w/self-signed.db" trust --core-fpr "$B" --at 2022-03-01 --email carol@other.org "$C"
expect_code 0 "self-signed: key level" $KSP -d "$w/self-signed.db" trust --core-fpr "$B" --at 2022-03-01 "$C"
expect_code 1 "self-signed: carol@other.org, lookup" $KSP -d "$w/self-signed.db" trust --core-fpr "$B" --at 2022-03-01 --email carol@other.org
expect_grep "$w/out" "^0 of 1 key trusted$" "self-signed lookup: summary"
# userid-revoked: bob's only user ID is revoked on 2020-03-01
A=$(sqf userid-revoked alice) B=$(sqf userid-revoked bob)
expect_code 0 "userid-revoked: before" $KSP -d "$w/userid-revoked.db" trust --core-fpr "$A" --at 2020-02-15 --email bob@example.org "$B"
expect_code 1 "userid-revoked: after" $KSP -d "$w/userid-revoked.db" --json trust --core-fpr "$A" --at 2020-05-01 --email bob@example.org "$B"
[ "$(jget "$w/out" 'd["reason"]')" = target_revoked ] && ok || bad "revoked user ID: reason: $(cat "$w/out")"
# multiple-userids-1: alice certified both of bob's user IDs
A=$(sqf multiple-userids-1 alice) B=$(sqf multiple-userids-1 bob)
for u in some other; do
	expect_code 0 "multiple-userids-1: bob@$u.org" $KSP -d "$w/multiple-userids-1.db" --json trust --core-fpr "$A" --at 2021-11-01 --uid "<bob@$u.org>" "$B"
	[ "$(jget "$w/out" 'd["paths"][0][-1]["uid"]')" = "<bob@$u.org>" ] && ok || bad "multiple-userids-1: the path ends on <bob@$u.org>"
done

# --- usage and hostile input --------------------------------------------------------
expect_code 2 "--email without @" $KSP -d "$w/arch.db" trust "${rule[@]}" --email pierre
expect_code 2 "--email and --uid" $KSP -d "$w/arch.db" trust "${rule[@]}" --email a@b --uid x
expect_code 2 "--email with --batch" $KSP -d "$w/arch.db" trust "${rule[@]}" --email a@b --batch /dev/null
expect_code 2 "--email with two fingerprints" $KSP -d "$w/arch.db" trust "${rule[@]}" --email a@b $pierre $pierre
expect_code 1 "a user ID with control characters" $KSP -d "$w/arch.db" trust "${rule[@]}" --uid "$(printf 'x\033[2J<y@z>')"
if grep -q "$(printf '\033')" "$w/out" "$w/err"; then bad "an escape character reached the terminal"; else ok; fi

[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was used"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
