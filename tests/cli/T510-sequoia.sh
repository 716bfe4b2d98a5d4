#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp trust on Sequoia-WoT's crafted keyrings (tests/data/sequoia-wot,
# README.md there: every file, its keys and reference times).
#
# ksp's model is not Sequoia's: a key is trusted when K vertex-disjoint
# paths of at most L certifications reach it from the core, and every
# verified, unexpired, unrevoked certification on an unrevoked user ID is an
# edge.  Trust amounts, trust depths and regular expressions of trust
# signatures play no part.  A hard-revoked key is no vertex at any date; a
# soft-revoked one is no target from its revocation on, but introduces with
# what it certified before it (as Sequoia).
# Each check below states the ksp expectation; where Sequoia's answer
# differs, a comment says how.  Every file is also loaded and its structural
# edge count compared with edges/NAME.edges.tsv.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T510-sequoia
data="$top/tests/data"
sq="$data/sequoia-wot"
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
unset KSP_DB
pass=0 fail=0 xfail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# known_bug MSG CMD...: fails because of a reported bug: shown, not counted;
# counts as a failure once it passes (then make it a plain check)
known_bug() {
	local msg=$1
	shift
	if "$@" >/dev/null 2>&1; then
		bad "$msg: passes now, turn this known_bug into a plain check"
	else
		xfail=$((xfail + 1))
		echo "$name: known bug (reported, not counted): $msg" >&2
	fi
}

if [ ! -r "$sq/README.md" ]; then
	echo "FAIL: $sq missing (part of the repository: git checkout tests/data)" >&2
	echo "$name: 0 passed, 1 failed"
	exit 1
fi

# fp FILE LOCAL: the fingerprint of the key of FILE with a user ID <LOCAL@...>
fp() { sqlite3 "$w/$1.db" "SELECT DISTINCT k.fpr FROM keys k JOIN uids u ON u.key_id = k.id WHERE CAST(u.uid AS TEXT) LIKE '%<$2@%'"; }
# tq FILE AT "CORE..." TARGET CODE FOUND LENGTHS [OPTION...]: ksp trust with
# the core keys (user ID local parts) at time AT; want exit CODE, FOUND
# disjoint paths, their lengths sorted and comma-separated ("-": none)
tq_check() {
	local n=$1 at=$2 cores=$3 target=$4 want="$5 $6 $7" args=() c
	shift 7
	for c in $cores; do args+=(--core-fpr "$(fp "$n" "$c")"); done
	$KSP -d "$w/$n.db" --json trust "${args[@]}" --at "$at" "$@" "$(fp "$n" "$target")" >"$w/out" 2>"$w/err"
	tq_got="$? $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["paths_found"], ",".join(str(x) for x in sorted(len(p) for p in d["paths"])) or "-")' "$w/out" 2>&1)"
	[ "$tq_got" = "$want" ]
}
tq() {
	if tq_check "$@"; then ok; else
		bad "$1: {$3} -> $4 at $2 ${*:8}: got '$tq_got', want '$5 $6 $7'"
		sed 's/^/  | /' "$w/err" | head -5 >&2
	fi
}
# hop FILE PATH HOP FIELD: a field of the last result's JSON
hop() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["paths"][int(sys.argv[2])][int(sys.argv[3])][sys.argv[4]])' "$w/out" "$@" 2>&1; }
utc() { date -u -d "$1" +%s; }

# --- every file: loads; the structural edges equal edges/NAME.edges.tsv -----
n_files=0
for f in "$sq"/*.pgp; do
	n=$(basename "$f" .pgp)
	n_files=$((n_files + 1))
	if ! $KSP -d "$w/$n.db" wot load "$f" >/dev/null 2>"$w/err"; then
		bad "$n: load: $(cat "$w/err")"
		continue
	fi
	got=$($KSP -d "$w/$n.db" --json wot stats --structural | python3 -c 'import json,sys; print(json.load(sys.stdin)["edges"])' 2>&1)
	[ "$got" = "$(wc -l <"$sq/edges/$n.edges.tsv")" ] && ok || bad "$n: $got structural edges, edges/$n.edges.tsv has $(wc -l <"$sq/edges/$n.edges.tsv")"
done
[ "$n_files" = 31 ] && ok || bad "$n_files Sequoia files, want 31"

# --- simple: alice -> bob -> carol -> dave -> ellen; frank alone ---------------
tq simple 2021-10-06 alice ellen 0 1 4 --max-depth 4
tq simple 2021-10-06 alice ellen 1 0 - --max-depth 3
tq simple 2021-10-06 alice dave 0 1 3 --max-depth 3
tq simple 2021-10-06 alice frank 1 0 -
grep -q '"reason":"no_path"' "$w/out" && ok || bad "simple: frank: reason no_path"
# the certifications expire in 2026: after that, nothing
tq simple 2027-01-01 alice bob 1 0 -

# --- cycle: alice -> bob -> carol -> dave -> bob (cycle), dave -> ed -> frank --
# (ref. 2021-10-01 12:00) the search terminates and respects the depth
tq cycle 2021-10-01T12:00:00Z alice frank 0 1 5
tq cycle 2021-10-01T12:00:00Z alice frank 1 0 - --max-depth 4
tq cycle 2021-10-01T12:00:00Z alice ed 0 1 4 --max-depth 4
# ed -> frank is a trust signature of amount 0 to Sequoia; to ksp an edge
tq cycle 2021-10-01T12:00:00Z ed frank 0 1 1
# one core key starts one path, however many routes it has
tq cycle 2021-10-01T12:00:00Z "alice" dave 1 1 3 --min-paths 2

# --- certification-network (ref. 2023-01-19 12:00) ---------------------------
# alice -> bob -> carol -> dave -> alice, all plain (depth 0) certifications.
# Sequoia: only alice's direct certification counts (no introducers); ksp:
# every certification is an edge.
tq certification-network 2023-01-19T12:00:00Z alice dave 0 1 3
tq certification-network 2023-01-19T12:00:00Z alice dave 1 0 - --max-depth 2
tq certification-network 2023-01-19T12:00:00Z alice bob 0 1 1 --max-depth 1

# --- cert-expired: alice -> bob -> carol, bob expires 2020-02-15 ------------
tq cert-expired 2020-02-10 alice carol 0 1 2
# Sequoia: bob cannot be authenticated after his expiry, but his old
# delegation bob -> carol (2020-02-01) still carries.  ksp: an expired key is
# no vertex, so nothing goes through bob, and bob's certifications of
# 2020-04-01 (after his expiry) count for nothing either.
tq cert-expired 2020-03-01 alice carol 1 0 -
tq cert-expired 2020-05-01 alice carol 1 0 -
tq cert-expired 2020-05-01 bob carol 1 0 -
grep -q '"reason":"no_core"' "$w/out" && ok || bad "cert-expired: expired core: reason no_core"
tq cert-expired 2020-05-01 alice bob 1 0 -
grep -q '"reason":"target_expired"' "$w/out" && ok || bad "cert-expired: expired target: reason target_expired"

# --- cert-revoked-hard / -soft: alice -> bob -> dave, alice -> carol -> dave;
# bob revoked on 2020-03-01 (hard: compromised; soft: retired) -------------
# As Sequoia (and RFC 9580): a hard revocation counts at every date, so bob
# is no vertex even before it and nothing he signed counts; after a soft
# one bob cannot be a target, but what he certified before it (2020-02-01)
# still counts and what he certified after it (2020-04-01) does not.
n=cert-revoked-hard
tq $n 2020-02-15 "bob carol" dave 1 1 1 --min-paths 2
tq $n 2020-02-15 bob dave 1 0 -
grep -q '"reason":"no_core"' "$w/out" && ok || bad "$n: hard-revoked core before the revocation: reason no_core"
tq $n 2020-02-15 alice bob 1 0 -
grep -q '"reason":"target_revoked"' "$w/out" && ok || bad "$n: hard-revoked target before the revocation"
tq $n 2020-02-15 alice dave 0 1 2
[ "$(hop 0 0 signee)" = "$(fp $n carol)" ] && ok || bad "$n: the path goes through carol"
tq $n 2020-05-01 "bob carol" dave 1 1 1 --min-paths 2
tq $n 2020-05-01 alice dave 0 1 2
tq $n 2020-05-01 alice bob 1 0 -
grep -q '"reason":"target_revoked"' "$w/out" && ok || bad "$n: revoked target: reason target_revoked"
n=cert-revoked-soft
tq $n 2020-02-15 "bob carol" dave 0 2 1,1 --min-paths 2
tq $n 2020-02-15 alice bob 0 1 1
tq $n 2020-05-01 "bob carol" dave 0 2 1,1 --min-paths 2
tq $n 2020-05-01 bob dave 0 1 1
[ "$(hop 0 0 created)" = "$(utc 2020-02-01)" ] && ok || bad "$n: bob's certification from before his revocation ($(hop 0 0 created))"
tq $n 2020-05-01 alice bob 1 0 -
grep -q '"reason":"target_revoked"' "$w/out" && ok || bad "$n: revoked target: reason target_revoked"
# bob as an introducer: alice -> bob -> dave still, as Sequoia's test has it
tq $n 2020-05-01 alice dave 0 1 2 --max-depth 2

# --- certification-liveness: two generations; the newer expires 2020-04-01 ---
tq certification-liveness 2020-03-15 alice carol 0 1 2
[ "$(hop 0 0 created)" = "$(utc 2020-03-01)" ] && ok || bad "liveness: the newest live certification is shown ($(hop 0 0 created))"
tq certification-liveness 2020-04-15 alice carol 0 1 2
[ "$(hop 0 0 created)" = "$(utc 2020-02-01)" ] && ok || bad "liveness: after the newer one expired, the older one ($(hop 0 0 created))"
tq certification-liveness 2025-03-01 alice carol 1 0 -

# --- certification-revoked: alice -> bob, revoked 2020-03-01, again 2020-04-01 -
tq certification-revoked 2020-02-15 alice carol 0 1 2
tq certification-revoked 2020-03-15 alice carol 1 0 -
tq certification-revoked 2020-03-15 alice bob 1 0 -
tq certification-revoked 2020-04-15 alice carol 0 1 2
[ "$(hop 0 0 created)" = "$(utc 2020-04-01)" ] && ok || bad "certification-revoked: the new certification is shown"

# --- userid-revoked: alice -> bob -> carol; bob's only user ID revoked 2020-03-01
tq userid-revoked 2020-02-15 alice carol 0 1 2
# ksp: certifications of a revoked user ID are no edges, so nothing reaches
# bob any more; bob (the key is not revoked) still certifies carol.
# Sequoia: bob cannot be authenticated, but alice's certification of the
# revoked user ID still makes him an introducer for carol.
tq userid-revoked 2020-05-01 alice carol 1 0 -
tq userid-revoked 2020-05-01 alice bob 1 0 -
tq userid-revoked 2020-05-01 bob carol 0 1 1

# --- isolated-root: one key, two user IDs, one revoked (2020-02-01) ---------
tq isolated-root 2020-03-01 alice alice 0 1 -
grep -q 'is a core key' "$w/out" && ok || bad "isolated-root: the root is a core key"
$KSP -d "$w/isolated-root.db" trust --core-fpr "$(fp isolated-root alice)" --at 2020-03-01 0000000000000000000000000000000000000001 >"$w/out" 2>&1
[ $? = 1 ] && grep -q "not in the store" "$w/out" && ok || bad "isolated-root: an unknown key: $(cat "$w/out")"

# --- sha1: SHA-1 certifications before 2023-01-10 15:06:42, SHA-256 after ---
# (SHA-1 certifications made after 2019-01-19 count only with --sha1 yes:
# the default is gpg 2.2's before-2019; Sequoia takes them until 2023-02-01)
tq sha1 2023-01-10T15:10:00Z alice carol 0 1 2 --sha1 yes
tq sha1 2023-01-10T15:10:00Z alice carol 1 0 -
tq sha1 2023-01-10T15:10:00Z alice carol 1 0 - --no-sha1
tq sha1 2023-01-11 alice carol 0 1 2 --no-sha1
[ "$(hop 0 0 created) $(hop 0 1 created)" = "$(utc 2023-01-10T15:11:24Z) $(utc 2023-01-10T15:12:01Z)" ] &&
	ok || bad "sha1: --no-sha1 shows the SHA-256 certifications"

# --- disjointness -----------------------------------------------------------
# gpg-trustroots: root -> a1, a2, a3 -> d -> target
tq gpg-trustroots 2020-03-01 root target 0 1 3
tq gpg-trustroots 2020-03-01 "a1 a2 a3" d 0 3 1,1,1 --min-paths 3 --max-depth 1
tq gpg-trustroots 2020-03-01 "a1 a2 a3" target 1 1 2 --min-paths 2
# roundabout: alice -> bob directly, jenny -> elmar -> frank -> bob: disjoint
tq roundabout 2021-10-01 "alice jenny" bob 0 2 1,3 --min-paths 2
tq roundabout 2021-10-01 "alice jenny" bob 1 1 1 --min-paths 2 --max-depth 2
tq roundabout 2021-10-01 alice isaac 0 1 4
# best-via-root: alice -> bob -> carol -> target, alice -> yellow -> zebra -> target
tq best-via-root 2021-10-01 alice target 0 1 3
tq best-via-root 2021-10-01 "bob yellow" target 0 2 2,2 --min-paths 2
tq best-via-root 2021-10-01 alice target 1 1 3 --min-paths 2
# multiple-userids-3: carol -> frank and ed -> frank; bob -> carol, bob -> dave -> ed
tq multiple-userids-3 2021-11-01 "carol ed" frank 0 2 1,1 --min-paths 2
tq multiple-userids-3 2021-11-01 alice frank 0 1 3
# local-optima: everything goes through bob, then ellen
tq local-optima 2021-10-01T10:27:00Z alice henry 0 1 4
tq local-optima 2021-10-01T10:27:00Z alice francis 0 1 2
tq local-optima 2021-10-01T10:27:00Z "carol dave" ellen 0 2 1,1 --min-paths 2
tq local-optima 2021-10-01T10:27:00Z "carol dave" henry 1 1 2 --min-paths 2

# --- per user ID ------------------------------------------------------------
# multiple-userids-1: alice certified both user IDs of bob; one path, on one
tq multiple-userids-1 2021-11-01 alice bob 0 1 1 --per-uid
grep -qE '"uid":"<bob@(some|other)\.org>"' "$w/out" && ok || bad "multiple-userids-1: the user ID of the paths"
tq multiple-userids-1 2021-11-01 alice dave 0 1 3
# self-signed: bob certified carol's first user ID only
tq self-signed 2022-03-01 bob carol 0 1 1 --per-uid
grep -q '"uid":"<carol@example.org>"' "$w/out" && ok || bad "self-signed: on carol@example.org"
tq self-signed 2022-03-01 alice dave 0 1 3

# --- trust amounts, depths and regular expressions: no part of ksp's model --
# multiple-certifications-1: three certifications alice -> bob; the newest
# counts as the hop's date; the amounts and depths do not matter
tq multiple-certifications-1 2021-10-06T12:20:00Z alice dave 0 1 3
[ "$(hop 0 0 created)" = "$(utc 2021-10-06T12:19:27Z)" ] && ok || bad "multiple-certifications-1: newest certification"
# multiple-userids-2: Sequoia scopes one delegation to other.org; ksp does not
tq multiple-userids-2 2021-11-01 alice ed 0 1 3
tq multiple-userids-2 2021-11-01 alice frank 0 1 2
# override: the newer plain certification of bob replaces alice's trust
# signature, so Sequoia no longer authenticates carol; to ksp both are edges
tq override 2023-01-20 alice carol 0 1 2
# zero-trust: bob -> carol's newer certification has trust amount 0, which
# removes the edge for Sequoia; ksp counts it
tq zero-trust 2020-04-01 alice carol 0 1 2
# regex-1: bob -> dave is scoped to other.org, so Sequoia does not let it
# authenticate ed@example.org; ksp ignores regular expressions
tq regex-1 2021-11-01 alice ed 0 1 3
tq regex-1 2021-11-01 alice frank 0 1 3
tq regex-2 2021-11-01 alice ed 0 1 4
tq regex-3 2021-11-01 alice george 0 1 3
tq regex-3 2021-11-01 alice henry 0 1 2
# trivial: a CA for some.org; ksp has no scopes: carol@other.org is reached too
tq trivial 2021-11-01 alice bob 0 1 2
tq trivial 2021-11-01 alice carol 0 1 2
# puny-code: a UTF-8 user ID on the path, kept as it is in JSON
tq puny-code 2022-01-01 alice carol 0 1 2
[ "$(hop 0 0 uid)" = "<hÄNS@bücher.tld>" ] && ok || bad "puny-code: UTF-8 user ID in JSON: $(hop 0 0 uid)"
$KSP -d "$w/puny-code.db" trust --core-fpr "$(fp puny-code alice)" --at 2022-01-01 "$(fp puny-code carol)" >"$w/out" 2>&1
grep -q 'hÄNS@bücher.tld' "$w/out" && ok || bad "puny-code: UTF-8 user ID on the terminal"

# --- cliques: a naive search explodes; ksp answers at once -------------------
# root -> a0, four fully meshed cliques of 10 joined by single bridges,
# e0 -> f0 -> target; the shortest path, independently: ksp wot path
for n in cliques cliques-local-optima cliques-local-optima-2; do
	len=$($KSP -d "$w/$n.db" --json wot path --at 2021-02-14 "$(fp $n root)" "$(fp $n target)" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["length"])' 2>&1)
	case "$n" in cliques) want=11 ;; cliques-local-optima) want=9 ;; *) want=8 ;; esac
	[ "$len" = "$want" ] && ok || bad "$n: wot path length $len, want $want"
	tq $n 2021-02-14 root target 0 1 "$want" --max-depth "$want"
	tq $n 2021-02-14 root target 1 0 - --max-depth $((want - 1))
	tq $n 2021-02-14 root target 0 1 "$want" --max-depth 20
	# the ten keys of clique a as the core: the shortest path starts at a-1
	# (the bridge to b-0), 9 hops (8 with the shortcut b-1 -> c-1); every path
	# crosses the bridges, so there is only one disjoint path (the partial
	# answer shown then is a path, not necessarily the shortest)
	case "$n" in cliques-local-optima-2) a=8 ;; *) a=9 ;; esac
	acore="a-0 a-1 a-2 a-3 a-4 a-5 a-6 a-7 a-8 a-9"
	tq $n 2021-02-14 "$acore" target 0 1 "$a" --max-depth 20
	[ "$(hop 0 0 signer)" = "$(fp $n a-1)" ] && ok || bad "$n: the shortest path from clique a starts at a-1"
	tq_check $n 2021-02-14 "$acore" target 1 1 x --min-paths 2 --max-depth 20
	case "$tq_got" in "1 1 "*) ok ;; *) bad "$n: clique a, K=2: got '$tq_got', want exit 1 and 1 path" ;; esac
	# nine disjoint one-hop paths inside a clique
	tq $n 2021-02-14 "b-1 b-2 b-3 b-4 b-5 b-6 b-7 b-8 b-9" b-0 0 9 1,1,1,1,1,1,1,1,1 --min-paths 9 --max-depth 20
done

# --- infinity-and-beyond: u1 -> u2 -> ... -> u260 (ref. 2022-01-28 15:18) ----
ib=2022-01-28T15:18:00Z
tq infinity-and-beyond $ib u1 u65 0 1 64 --max-depth 64
tq infinity-and-beyond $ib u1 u65 1 0 - --max-depth 63
tq infinity-and-beyond $ib u200 u260 0 1 60 --max-depth 60
# Sequoia's depth 255 means "unlimited": u256 is 255 hops from u1, u260 259.
# Known bug (reported): ksp caps --max-depth at 64.
if tq_check infinity-and-beyond $ib u1 u256 0 1 255 --max-depth 255 >/dev/null 2>&1; then ok; else bad "--max-depth 255 reaches u256"; fi
if tq_check infinity-and-beyond $ib u1 u260 1 0 - --max-depth 255 >/dev/null 2>&1; then ok; else bad "--max-depth 255 does not reach u260"; fi
if tq_check infinity-and-beyond $ib u1 u260 0 1 259 --max-depth 259 >/dev/null 2>&1; then ok; else bad "--max-depth 259 reaches u260"; fi

[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was used"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
