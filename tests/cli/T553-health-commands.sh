#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp health's repair plan as commands: a web made with gpg at test time
# (INSECURE throw-away keys, time frozen: day N = 2024-01-01 + N days; the
# report looks at 2024-06-01, day 152, repairs for +90d):
#   c           the core;
#   c -> a -> t a's certification of t expires on day 170 (still valid now:
#               renewing it needs gpg --force-sign-key);
#   c -> x -> u c's certification of x expires on day 170 (x and u fall);
#   c -> y -> v y's key expires on day 180 (v falls; y only by an extension);
#   c -> w      on w's second user ID, revoked on day 160 (the report names
#               the user ID itself).
# The plan's gpg commands, run as printed (gpg with this home and frozen
# time), make the certifications; the keyring loaded again, no key falls
# but y.  The same commands without --force-sign-key leave the renewals
# unmade (gpg --quick-sign-key does nothing on a valid certification).
. "$(dirname "$0")/test-lib.sh"
test_begin T553-health-commands
command -v gpg >/dev/null || { _test_fail "gpg is missing (Debian package gnupg)"; test_done; }
PY=/usr/bin/python3
home="$TEST_TMP/g"
mkdir -m 700 "$home"
secs=0
ts() { secs=$((secs + 1)); date -u -d "2024-01-01 00:00:00 UTC + $1 days + $secs seconds" +%Y%m%dT%H%M%S!; }
G() { # G DAY ARGS...
	local t
	t=$(ts "$1")
	shift
	command gpg --homedir "$home" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--no-auto-check-trustdb --faked-system-time "$t" "$@"
}
declare -A F
key() { # key NAME [EXPIRE]
	G 0 --quick-gen-key "$1 INSECURE <$1@example.org>" ed25519 sign "${2:-0}" >/dev/null 2>&1
	F[$1]=$(command gpg --homedir "$home" --batch --with-colons --list-keys "<$1@example.org>" 2>/dev/null |
		awk -F: '$1=="fpr"{print $10; exit}' 2>/dev/null)
	[ -n "${F[$1]}" ] || { _test_fail "gpg made no key $1"; test_done; }
}
sign() { # sign SIGNER TARGET [CERT-EXPIRE]
	G 1 ${3:+--default-cert-expire "$3"} -u "${F[$1]}" --quick-sign-key "${F[$2]}" >/dev/null 2>&1 ||
		_test_fail "gpg: $1 certifies $2"
}
for k in c a t x u v; do key $k; done
key y 2024-06-29
sign c a; sign a t 169d; sign c x 169d; sign x u; sign c y; sign y v
# w: c certified only its second user ID, which w revokes on day 160
key w
G 0 --quick-add-uid "${F[w]}" "w2 INSECURE <w2@example.org>" >/dev/null 2>&1
G 1 -u "${F[c]}" --quick-sign-key "${F[w]}" "w2 INSECURE <w2@example.org>" >/dev/null 2>&1 || _test_fail "gpg: c certifies w2"
G 160 --quick-revoke-uid "${F[w]}" "w2 INSECURE <w2@example.org>" >/dev/null 2>&1 || _test_fail "gpg: w revokes w2"
G 1 --export >"$TEST_TMP/web.gpg" 2>/dev/null
cp -a "$home" "$TEST_TMP/g-noforce"
db="$TEST_TMP/h.db"
expect_code 0 $KSP -d "$db" wot load "$TEST_TMP/web.gpg"
expect_code 1 $KSP -d "$db" health --core-fpr "${F[c]}" --at 2024-06-01 --repair-at +90d --top 0
cp "$OUT" "$TEST_TMP/report"
grep -E '^      gpg ' "$TEST_TMP/report" | sed 's/^ *//' >"$TEST_TMP/commands"
n=$(wc -l <"$TEST_TMP/commands")
[ "$n" -ge 3 ] && _test_pass "commands: $n" || _test_fail "commands: $n, want 3 or more"
expect_match "$TEST_TMP/commands" "^gpg --local-user ${F[a]} --force-sign-key --quick-sign-key ${F[t]}\$"
expect_match "$TEST_TMP/commands" "^gpg --local-user ${F[c]} --force-sign-key --quick-sign-key ${F[x]}\$"
expect_match "$TEST_TMP/commands" "^gpg --local-user [0-9A-F]+ --quick-sign-key ${F[v]}\$"
# the commands grouped per signer, the signer's user ID beside its fingerprint
expect_match "$TEST_TMP/report" "^  ${F[a]}  a INSECURE <a@example.org>\$"
expect_match "$TEST_TMP/report" "^    certify ${F[t]} \\(t INSECURE <t@example.org>\\)\$"
expect_match "$TEST_TMP/report" "^  ${F[y]} \\(expires 2024-06-29\\): extending it keeps 2 keys at K"
expect_match "$TEST_TMP/report" "path 1: the user ID \"w2 INSECURE <w2@example.org>\" of ${F[w]}, certified by ${F[c]}, is revoked on 2024-06-09"

# run COMMANDS HOME: each line as printed, gpg in that home at day 152
run() {
	local line
	home=$2
	gpg() { G 152 "$@"; }
	while IFS= read -r line; do
		eval "$line" >/dev/null 2>&1 || _test_fail "gpg failed: $line"
	done <"$1"
	unset -f gpg
}
# after: the keyring of HOME loaded again, the keys that still fall
after() {
	home=$1
	G 152 --export >"$TEST_TMP/after.gpg" 2>/dev/null
	rm -f "$TEST_TMP/after.db"
	$KSP -d "$TEST_TMP/after.db" wot load "$TEST_TMP/after.gpg" >/dev/null 2>&1
	$KSP -d "$TEST_TMP/after.db" --json health --core-fpr "${F[c]}" --at 2024-06-01 --repair-at +90d --no-repair \
		--no-spof >"$TEST_TMP/after.json" 2>/dev/null
	$PY -c 'import json, sys
h = {x["label"]: set(x["below"]) for x in json.load(open(sys.argv[1]))["horizons"]}
print(" ".join(sorted(h["+90d"] - h["now"])))' "$TEST_TMP/after.json"
}
run "$TEST_TMP/commands" "$TEST_TMP/g"
expect_eq "$(after "$TEST_TMP/g")" "${F[y]}" "after the plan only y falls (its own key expires)"
# gpg's behaviour that the commands rely on: without --force-sign-key the
# renewals are not made
sed 's/ --force-sign-key//' "$TEST_TMP/commands" >"$TEST_TMP/commands-noforce"
run "$TEST_TMP/commands-noforce" "$TEST_TMP/g-noforce"
left=$(after "$TEST_TMP/g-noforce")
case " $left " in
*" ${F[t]} "*) _test_pass "without --force-sign-key t still falls" ;;
*) _test_fail "without --force-sign-key t no longer falls: gpg renewed a valid certification ($left)" ;;
esac
# the next party from the plan: its participants are the plan's signers
# and targets (a, c, t, v, w, x), who certifies whom in '#' lines
expect_code 1 $KSP -d "$db" health --core-fpr "${F[c]}" --at 2024-06-01 --repair-at +90d --no-spof \
	--plan-csv "$TEST_TMP/next.csv"
expect_match "$TEST_TMP/next.csv" "^# certify: ${F[a]} certifies ${F[t]} \\(renewal: gpg --force-sign-key\\)\$"
expect_match "$TEST_TMP/next.csv" "^\"t INSECURE\",\"t@example.org\",${F[t]}\$"
pdb="$TEST_TMP/party.db"
expect_code 0 $KSP -d "$pdb" party init --name "Repair party" --date 2024-07-01
expect_code 0 $KSP -d "$pdb" party add --csv "$TEST_TMP/next.csv" "$TEST_TMP/web.gpg"
want=$(for k in a c t v w x; do echo "${F[$k]}"; done | sort)
expect_eq "$(sqlite3 "$pdb" "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id" | sort)" "$want" \
	"the party's participants are the plan's signers and targets"
# the picture: the forecast in the title (as the JSON report counts), the
# plan's certifications dashed, the falling keys red
expect_code 1 $KSP -d "$db" --json health --core-fpr "${F[c]}" --at 2024-06-01 --repair-at +90d --svg "$TEST_TMP/h.svg"
cp "$OUT" "$TEST_TMP/h.json"
forecast=$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); n = d["keys"]
print("keys at K " + ", ".join(("now" if h["label"] == "now" else h["label"].replace("-", "&#45;")) + " %d" % (n - len(h["below"]))
      for h in d["horizons"]) + " (of %d)" % n)' "$TEST_TMP/h.json")
grep -qF "$forecast" "$TEST_TMP/h.svg" && _test_pass "the forecast" || _test_fail "the forecast: '$forecast' not in the picture"
expect_eq "$(grep -c 'stroke-dasharray' "$TEST_TMP/h.svg")" \
	"$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["repair"]))' "$TEST_TMP/h.json")" \
	"the plan's certifications dashed"
expect_eq "$(grep -c 'fill="#ff7272"' "$TEST_TMP/h.svg")" \
	"$($PY -c 'import json, sys; h = {x["label"]: set(x["below"]) for x in json.load(open(sys.argv[1]))["horizons"]}
print(len(h["+90d"] - h["now"]))' "$TEST_TMP/h.json")" "the falling keys red"
command gpgconf --homedir "$TEST_TMP/g" --kill all >/dev/null 2>&1
command gpgconf --homedir "$TEST_TMP/g-noforce" --kill all >/dev/null 2>&1
test_done
