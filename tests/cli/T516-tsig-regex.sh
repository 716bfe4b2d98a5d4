#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Trust-signature regular expressions are hostile input (issue 34).  The
# keyring tests/keyrings/hostile/tsig-regex.pgp (its maker,
# make-tsig-regex.py, says what is in it) holds the three regexes that
# hung or crashed regcomp()/regexec(), on a root's trust signatures (on the
# path) and on outsiders' (on no path):
#   ^(.*)(.*)(.*)(.*)(.*)(.*)(.*)\1\2\3\4\5\6\7$   ran past 60 s
#   ((((a{1,40}){1,40}){1,40}){1,40})             9-16 s and 1.8 GB
#   (.*){1,32000}(.*){1,32000}(.*){1,32000}x      SIGSEGV
# Every query (Sequoia's model by key, --email and --uid; GnuPG's; the
# paths model) ends in under a second, without a crash; the answer of the
# Sequoia model is sq-wot's, run live (which also reads "Tar{1}get" as a
# literal and "Targ-*et" as a regex, unlike POSIX); a regex beyond the
# subset is reported once, an outsider's is never looked at.
. "$(dirname "$0")/test-lib.sh"
test_begin tsig-regex

command -v sq-wot >/dev/null || { _test_fail "sq-wot is missing (Debian package sq-wot)"; test_done; }
[ -x /usr/bin/python3 ] || { _test_fail "/usr/bin/python3 is missing (Debian package python3)"; test_done; }
ring=$TOP/tests/keyrings/hostile/tsig-regex.pgp
R=8E15A87E14F6B61A6671582EC03432D5A7507CE0     # root
T=A8C51275FF284F62E430136B3BBD5B4F62F82BC8     # target, "Target <t@example.org>"
G=4AFEDD86EE40CC52B98FDC668F56FE8599AACD4C     # good: "<[^>]+[@.]example\.org>$"
I1=3972D19AA49556D6449C8864B4AF5125E1360453    # intro1: the back-references
I5=2FE58EE1F81227C2AAF34DCFF8B3CA4B2FEE1B6B    # intro5: "Targ-*et"
I6=AB9D1906D5EE1038311EC0A2FBCF578A486A534C    # intro6: "^Target <t@example\.org>$"
I7=6E8EB4CCF08361A4009EAFABDC2090DF9B7CF7FE    # intro7: "a**", beyond the subset
O4=BAFEB99C931C9B89FF60C2A61AFE97F39BCC3C3F    # out4, an outsider: "a**" too
limit=1000
[ "${KSP_VALGRIND:-0}" = 1 ] && limit=20000
expect_code 0 $KSP -d "$TEST_TMP/t.db" wot load "$ring"
echo "$R:6:" >"$TEST_TMP/ownertrust"

# timed CODES MSG CMD...: CMD exits with one of CODES (a crash or a timeout
# is neither), in under $limit ms
timed() {
	local codes=$1 msg=$2 t0 ms rc
	shift 2
	t0=$(date +%s%N)
	timeout 30 "$@" </dev/null >"$OUT" 2>"$ERR"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	case " $codes " in
	*" $rc "*) _test_pass "$msg: exit $rc" ;;
	*) _test_fail "$msg: exit $rc (want $codes; 124 is a timeout, 128+N signal N)"; head -5 "$ERR" ;;
	esac
	[ "$ms" -lt "$limit" ] && _test_pass "$msg: $ms ms" || _test_fail "$msg: $ms ms, the limit is $limit"
}

seq=(--json trust --model sequoia --core-fpr "$R")
timed "0" "sequoia, by key" $KSP -d "$TEST_TMP/t.db" "${seq[@]}" "$T"
timed "0" "sequoia, --email" $KSP -d "$TEST_TMP/t.db" "${seq[@]}" --email t@example.org
timed "0" "sequoia, --uid" $KSP -d "$TEST_TMP/t.db" "${seq[@]}" --uid "Target <t@example.org>"
timed "1" "sequoia, every path" $KSP -d "$TEST_TMP/t.db" "${seq[@]}" --trust-amount 480 "$T"
paths() { /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["trust_amount"], " ".join(sorted(">".join(p["keys"]) for p in d["paths"])))' "$1"; }
# the expression beyond the subset: said once, for the root's signature
# on intro7; the outsider's never looked at
expect_eq "$(grep -c 'beyond what ksp evaluates' "$ERR")" 1 "sequoia: one warning line"
expect_match "$ERR" "^ksp: warning: the trust signature by $R on $I7: 1 of its 1 regular expressions is beyond"
check_no_o4=$(grep -c "$O4" "$ERR")
expect_eq "$check_no_o4" 0 "sequoia: the outsider's expression is never evaluated"
got=$(paths "$OUT")
expect_eq "$got" "360 $(printf '%s\n' "$R>$G>$T" "$R>$I5>$T" "$R>$I6>$T" | sort | tr '\n' ' ' | sed 's/ $//')" \
	"sequoia: the paths through good, intro5 and intro6 only"
# sq-wot, live, on the same keyring: the same three introducers
timeout 60 sq-wot --keyring "$ring" --trust-root "$R" authenticate --trust-amount 480 "Target <t@example.org>" "$T" \
	>"$TEST_TMP/sq" 2>&1
sqi=$(grep -oE '├ [0-9A-F]{40}' "$TEST_TMP/sq" | cut -c5- | sort | tr '\n' ' ')
expect_eq "$sqi" "$(printf '%s\n' "$G" "$I5" "$I6" | sort | tr '\n' ' ')" "sq-wot's introducers are ksp's"

gnupg=(trust --model gnupg --ownertrust "$TEST_TMP/ownertrust")
timed "0" "gnupg, by key" $KSP -d "$TEST_TMP/t.db" "${gnupg[@]}" "$T"
expect_eq "$(grep -c 'beyond what ksp evaluates' "$ERR")" 1 "gnupg: the back-references said once"
expect_match "$ERR" "made $I1 an introducer has a regular expression beyond"
timed "0 1" "paths, by key" $KSP -d "$TEST_TMP/t.db" trust --core-fpr "$R" "$T"
timed "0 1" "paths, --email" $KSP -d "$TEST_TMP/t.db" trust --core-fpr "$R" --email t@example.org
test_done
