#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The policy's model, for every consumer (issue 35): 'ksp trust', 'ksp
# verify' and ksp-gpg answer with the model a policy names (model = paths,
# gnupg or sequoia), the same answer as the reference tool run live here
# (sq-wot for Sequoia's, gpg --check-trustdb for GnuPG's), on keys where
# the models disagree:
#   c    certified by the core key A: trusted in every model;
#   t60  certified by A with a trust signature of level 1 (amount 60):
#        one path (paths model), fully valid (GnuPG: A is ultimate), but a
#        trust amount of 60 of 120 (Sequoia: not authenticated);
#   g2   certified by B, certified by A: one path (paths model); B has no
#        ownertrust (GnuPG: unknown) and A's plain certification does not
#        make B an introducer (Sequoia: not authenticated).
# Then --batch with --model sequoia, and health and publish, which are
# defined on the paths model, refusing a policy that names another.
. "$(dirname "$0")/test-lib.sh"
test_begin model-policy
# graphviz and fontconfig keep memory for the process (graph --trust -o FILE.svg)
export LSAN_OPTIONS="suppressions=$TOP/tests/keyrings/sheet/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
KG="$TOP/ksp-gpg"
for tool in gpg sq-wot; do
	command -v $tool >/dev/null || { _test_fail "$tool is missing (Debian package: $([ $tool = gpg ] && echo gnupg || echo sq-wot))"; test_done; }
done
[ -x "$KG" ] || { _test_fail "$KG is not built (run make)"; test_done; }
unset KSP_POLICY KSP_GPG_REAL
w=$TEST_TMP
G() { gpg --batch --no-tty --pinentry-mode loopback --passphrase '' --quiet "$@"; }
declare -A F
for k in a b c t60 g2; do
	G --quick-gen-key "$k <$k@example.org>" ed25519 sign never >/dev/null 2>&1 || _test_fail "gpg: key $k"
	F[$k]=$(gpg --with-colons -k "$k@example.org" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
done
A=${F[a]}
G -u "$A" --quick-sign-key "${F[c]}" >/dev/null 2>&1
G -u "$A" --quick-sign-key "${F[b]}" >/dev/null 2>&1
G -u "${F[b]}" --quick-sign-key "${F[g2]}" >/dev/null 2>&1
# A's trust signature on t60: level 1 (marginal, amount 60), depth 1
printf 'tsign\n1\n1\n\ny\nsave\n' | G --command-fd 0 -u "$A" --edit-key "${F[t60]}" >/dev/null 2>&1
gpg --export "${F[@]}" >"$w/ring.pgp"
gpg --with-colons --list-sigs "${F[t60]}" 2>/dev/null | grep -q "^sig:.*:1 60:.*:$A:" &&
	_test_pass "t60: A's trust signature, depth 1, amount 60" || _test_fail "t60: no trust signature by A"
echo doc >"$w/doc"
for k in c t60 g2; do G -u "${F[$k]}" --armor --detach-sign -o "$w/doc.$k.asc" "$w/doc" || _test_fail "sign as $k"; done
expect_code 0 $KSP -d "$w/s.db" wot load "$w/ring.pgp"

# the reference tools, live: sq-wot (Sequoia) and gpg's trustdb (GnuPG)
declare -A REF
for k in c t60 g2; do
	sq-wot -k "$w/ring.pgp" -r "$A" authenticate --email "$k@example.org" "${F[$k]}" >/dev/null 2>&1
	REF[sequoia.$k]=$?
done
mkdir -m 700 "$w/ref"
gpg --homedir "$w/ref" --batch --quiet --import "$w/ring.pgp" 2>/dev/null
echo "$A:6:" | gpg --homedir "$w/ref" --batch --quiet --import-ownertrust 2>/dev/null
gpg --homedir "$w/ref" --batch --quiet --trust-model pgp --yes --check-trustdb >/dev/null 2>&1
for k in c t60 g2; do
	l=$(gpg --homedir "$w/ref" --batch --trust-model pgp --no-auto-check-trustdb --with-colons -k "${F[$k]}" |
		awk -F: '$1=="pub"{print $2; exit}')
	REF[letter.$k]=$l
	case $l in f | u) REF[gnupg.$k]=0 ;; *) REF[gnupg.$k]=1 ;; esac
done
gpgconf --homedir "$w/ref" --kill all >/dev/null 2>&1
# the cases are what they are meant to be: the models disagree
expect_eq "${REF[sequoia.c]} ${REF[sequoia.t60]} ${REF[sequoia.g2]}" "0 1 1" "sq-wot: c yes, t60 and g2 no"
expect_eq "${REF[gnupg.c]} ${REF[gnupg.t60]} ${REF[gnupg.g2]}" "0 0 1" "gpg: c and t60 valid, g2 not"

printf 'core = %s\n' "$A" >"$w/p.paths"
printf 'model = sequoia\ncore = %s\n' "$A" >"$w/p.sequoia"
printf 'model = gnupg\ncore = %s\n' "$A" >"$w/p.gnupg"
echo "$A:6:" >"$w/ot"
printf 'model = gnupg\nownertrust = ot\n' >"$w/p.gnupg-ot" # beside the policy
for k in c t60 g2; do
	$KSP -d "$w/s.db" trust --policy "$w/p.paths" "${F[$k]}" >/dev/null 2>&1
	REF[paths.$k]=$?
done
expect_eq "${REF[paths.c]} ${REF[paths.t60]} ${REF[paths.g2]}" "0 0 0" "paths model: one path to each"

# every consumer, with each policy, gives its model's verdict
for m in paths sequoia gnupg gnupg-ot; do
	for k in c t60 g2; do
		want=${REF[${m%-ot}.$k]}
		expect_code "$want" $KSP -d "$w/s.db" trust --policy "$w/p.$m" "${F[$k]}"
		expect_code "$want" $KSP -d "$w/s.db" verify --policy "$w/p.$m" "$w/doc.$k.asc" "$w/doc"
		$KSP -d "$w/s.db" --json verify --policy "$w/p.$m" "$w/doc.$k.asc" "$w/doc" >"$w/v.json" 2>"$w/err"
		expect_eq "$(/usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["trust"]; print(t["model"], t["trusted"])' "$w/v.json" 2>&1)" \
			"${m%-ot} $([ "$want" = 0 ] && echo True || echo False)" "verify --json: $m, $k"
		KSP_DB="$w/s.db" KSP_POLICY="$w/p.$m" "$KG" --status-fd=1 --verify "$w/doc.$k.asc" "$w/doc" >"$w/st" 2>"$w/kerr"
		expect_eq "$(sed -n 's/^\[GNUPG:\] \(TRUST_[A-Z]*\) .*/\1/p' "$w/st")" \
			"$([ "$want" = 0 ] && echo TRUST_FULLY || echo TRUST_UNDEFINED)" "ksp-gpg: $m, $k"
	done
done
# the answers say whose they are
expect_code 1 $KSP -d "$w/s.db" verify --policy "$w/p.sequoia" "$w/doc.t60.asc" "$w/doc"
expect_match "$OUT" "not authenticated in Sequoia's web of trust \(trust amount 60 of 120\)"
KSP_DB="$w/s.db" KSP_POLICY="$w/p.gnupg" "$KG" --status-fd=1 --verify "$w/doc.g2.asc" "$w/doc" >/dev/null 2>"$w/kerr"
expect_match "$w/kerr" "^ksp-gpg: trust now .*: [a-z]+ \(${REF[letter.g2]}\) in GnuPG's model"
for k in c t60 g2; do
	$KSP -d "$w/s.db" --json verify --policy "$w/p.gnupg" "$w/doc.$k.asc" "$w/doc" >"$w/v.json" 2>"$w/err"
	expect_eq "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trust"]["letter"])' "$w/v.json" 2>&1)" \
		"${REF[letter.$k]}" "verify --json: GnuPG's letter for $k is gpg's"
done
# B of marginal ownertrust: g2 is marginally valid, and ksp-gpg says so as
# gpg does (TRUST_MARGINAL: git's gpg.minTrustLevel=marginal takes it)
printf '%s:6:\n%s:4:\n' "$A" "${F[b]}" >"$w/ot-m"
printf 'model = gnupg\nownertrust = ot-m\n' >"$w/p.gnupg-m"
mkdir -m 700 "$w/ref-m"
gpg --homedir "$w/ref-m" --batch --quiet --import "$w/ring.pgp" 2>/dev/null
gpg --homedir "$w/ref-m" --batch --quiet --import-ownertrust "$w/ot-m" 2>/dev/null
gpg --homedir "$w/ref-m" --batch --quiet --trust-model pgp --yes --check-trustdb >/dev/null 2>&1
gm=$(gpg --homedir "$w/ref-m" --batch --trust-model pgp --no-auto-check-trustdb --with-colons -k "${F[g2]}" 2>/dev/null |
	awk -F: '$1=="pub"{print $2; exit}')
gpgconf --homedir "$w/ref-m" --kill all >/dev/null 2>&1
expect_eq "$gm" m "gpg: g2 marginal with B of marginal ownertrust"
KSP_DB="$w/s.db" KSP_POLICY="$w/p.gnupg-m" "$KG" --status-fd=1 --verify "$w/doc.g2.asc" "$w/doc" >"$w/st" 2>"$w/kerr"
expect_eq "$(sed -n 's/^\[GNUPG:\] \(TRUST_[A-Z]*\) .*/\1/p' "$w/st")" TRUST_MARGINAL "ksp-gpg: marginal, as gpg"
expect_code 1 $KSP -d "$w/s.db" verify --policy "$w/p.gnupg-m" "$w/doc.g2.asc" "$w/doc"
expect_match "$OUT" "marginal \($gm\) in GnuPG's model"
# the command line overrides the policy's model, and the models' options
expect_code 0 $KSP -d "$w/s.db" trust --policy "$w/p.sequoia" --model paths "${F[t60]}"
expect_code 0 $KSP -d "$w/s.db" verify --policy "$w/p.sequoia" --trust-amount 60 "$w/doc.t60.asc" "$w/doc"
expect_code 2 $KSP -d "$w/s.db" verify --policy "$w/p.gnupg" --email t60@example.org "$w/doc.t60.asc" "$w/doc"
expect_match "$ERR" "'--email' is not an option of --model gnupg"
printf 'model = gnupg\nownertrust = none\n' >"$w/p.bad"
expect_code 2 $KSP -d "$w/s.db" trust --policy "$w/p.bad" "${F[c]}"
expect_match "$ERR" "p.bad:2: .*none: cannot read the ownertrust"
printf 'model = gnupg\nmarginals_needed = 1\n' >"$w/p.bad"
expect_code 2 $KSP -d "$w/s.db" trust --policy "$w/p.bad" "${F[c]}"
expect_match "$ERR" "p.bad:2: marginals_needed takes a number from 2 to 255"
printf 'model = sequoia\ncore = %s\npartial_core = %s:60\n' "$A" "${F[b]}" >"$w/p.partial"
expect_code 0 $KSP -d "$w/s.db" --json trust --policy "$w/p.partial" --trust-amount 60 "${F[g2]}"

# --batch with Sequoia's model
printf '%s\n' "${F[c]}" "${F[t60]}" "${F[g2]}" >"$w/batch"
expect_code 1 $KSP -d "$w/s.db" trust --model sequoia --core-fpr "$A" --batch "$w/batch"
expect_match "$OUT" "^1 of 3 keys authenticated$"
expect_code 1 $KSP -d "$w/s.db" --json trust --policy "$w/p.sequoia" --batch "$w/batch"
expect_eq "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["model"], [r["trusted"] for r in d["results"]], d["trusted"])' "$OUT" 2>&1)" \
	"sequoia [True, False, False] 1" "batch JSON"

# health and publish are defined on the paths model: they say so
expect_code 2 $KSP -d "$w/s.db" health --policy "$w/p.sequoia"
expect_match "$ERR" "names the sequoia model, and the health report's what-if reachability is defined on the paths model only"
expect_code 0 $KSP -d "$w/s.db" health --policy "$w/p.sequoia" --model paths
expect_code 2 $KSP -d "$w/s.db" publish --policy "$w/p.gnupg" "$w/pub"
expect_match "$ERR" "names the gnupg model, and publishing .* is defined on the paths model only"
[ ! -e "$w/pub" ] && _test_pass "publish: nothing written" || _test_fail "publish wrote $w/pub"
expect_code 2 $KSP -d "$w/s.db" graph --trust "${F[t60]}" --policy "$w/p.sequoia" -o "$w/t.svg"
expect_match "$ERR" "names the sequoia model; 'graph --trust' draws the paths model's paths only"
# (graphviz leaks under valgrind: the plain binary)
expect_code 0 "$KSP_BIN" -d "$w/s.db" graph --trust "${F[t60]}" --policy "$w/p.paths" -o "$w/t.svg"
test_done
