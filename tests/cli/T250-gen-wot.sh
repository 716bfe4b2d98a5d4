#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/tools/gen-wot: a synthetic web of trust that is byte-identical for
# a seed (whatever the thread count, and with libgcrypt's signer instead of
# the built-in one), that gpg imports and verifies completely, that ksp
# verifies completely, and whose graph ksp counts as gpg's listing says
# (and as keyanalyze does, when signing-party is installed).
. "$(dirname "$0")/test-lib.sh"
test_begin T250-gen-wot

# under KSP_VALGRIND=1 the first runs go through valgrind, the comparison
# runs (same code paths) not, to keep the test short
GEN0="$TOP/tests/tools/gen-wot"
GEN=$GEN0
[ "${KSP_VALGRIND:-0}" = 1 ] && GEN="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $GEN"
if [ ! -x "$TOP/tests/tools/gen-wot" ]; then
	echo "FAIL T250-gen-wot: tests/tools/gen-wot is not built (run make)"
	echo "T250-gen-wot: 0 passed, 1 failed"
	exit 1
fi
N=200

# --- usage errors -----------------------------------------------------------
expect_code 2 $GEN --seed x -o a.gpg
expect_code 2 $GEN --keys 0 --seed x -o a.gpg
expect_code 2 $GEN --keys 10 --seed x --mean-degree -1 -o a.gpg
expect_code 2 $GEN --keys 10 --seed x

# --- reproducible -----------------------------------------------------------
expect_code 0 $GEN --keys $N --seed T250 -o a.gpg
expect_match "$ERR" "^gen-wot: $N keys, [0-9]+ certifications"
expect_code 0 $GEN0 --keys $N --seed T250 -o b.gpg
cmp -s a.gpg b.gpg && _test_pass "same seed, same bytes" || _test_fail "same seed, different bytes"
expect_code 0 $GEN0 --keys $N --seed T250 --threads 1 --quiet -o c.gpg
cmp -s a.gpg c.gpg && _test_pass "1 thread, same bytes" || _test_fail "1 thread gives other bytes"
expect_eq "$(wc -c < "$ERR")" 0 "--quiet prints nothing"
# every signature made by gcry_pk_sign instead of the built-in Ed25519
expect_code 0 $GEN --keys 20 --seed T250 --gcrypt --quiet -o d20.gpg
expect_code 0 $GEN0 --keys $N --seed T250 --gcrypt --quiet -o d.gpg
cmp -s a.gpg d.gpg && _test_pass "gcry_pk_sign, same bytes" || _test_fail "gcry_pk_sign gives other bytes"
expect_code 0 $GEN0 --keys $N --seed T251 --quiet -o e.gpg
cmp -s a.gpg e.gpg && _test_fail "another seed gives the same bytes" || _test_pass "another seed, other bytes"
# the generator's output for this seed is pinned: a change of the model or
# of the packet layout shows here (update the digest on purpose only)
expect_eq "$(sha256sum < a.gpg | cut -d' ' -f1)" \
	f6cda8dc78b5ddc2898ff01e9d8afd580ac8e24fe601b43e9b5a612f0a23d089 "pinned digest of seed T250"

# --- gpg imports it and finds every signature good ---------------------------
home="$TEST_TMP/gpg"
mkdir -m 700 "$home"
gpg --homedir "$home" --batch --import a.gpg >import.out 2>import.err
expect_eq "$?" 0 "gpg --import exit status"
expect_match import.err "imported: $N\$"
# (signatures by keys later in the file are checked by --check-sigs below)
allowed='imported: |keys processed so far|Total number processed|no ultimately trusted keys|public key ".*" imported|keybox .* created|trustdb created|signatures? not checked due to (a )?missing keys?'
if grep -Ev "$allowed" import.err | grep -q .; then
	_test_fail "gpg --import said more: $(grep -Ev "$allowed" import.err | head -3)"
else
	_test_pass "gpg --import: no warnings"
fi
gpg --homedir "$home" --batch --with-colons --check-sigs >check.txt 2>check.err
nsig=$(grep -c '^sig:' check.txt)
ngood=$(grep -c '^sig:!:' check.txt)
expect_eq "$ngood" "$nsig" "gpg --check-sigs: every sig record '!'"
gpg --homedir "$home" --batch --with-colons --list-sigs >sigs.txt 2>/dev/null
gpgconf --homedir "$home" --kill all >/dev/null 2>&1

# --- an independent count of the graph from gpg's listing ----------------------
python3 - sigs.txt >gpg-counts.txt <<'PY'
import sys
keyid_of = {}
sigs = []          # (signee keyid, signer keyid)
cur = None
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(":")
    if f[0] == "pub":
        cur = f[4]
        keyid_of[cur] = True
    elif f[0] == "sig" and cur is not None:
        sigs.append((cur, f[4], f[10]))
self_sigs = sum(1 for v, u, c in sigs if u == v)
certs = [(u, v) for v, u, c in sigs if u != v]
pairs = set(certs)
pairs_in = {(u, v) for u, v in pairs if u in keyid_of}
recip = sum(1 for u, v in pairs if (v, u) in pairs)
indeg = {}
for u, v in pairs:
    indeg[v] = indeg.get(v, 0) + 1
low = sum(1 for k in keyid_of if indeg.get(k, 0) <= 1)
n = len(keyid_of)
print(len(sigs), self_sigs, len(certs), len(pairs), len(pairs_in),
      "%.3f" % (len(pairs) / n), "%.3f" % (recip / len(pairs)), "%.3f" % (low / n))
PY
read -r g_sigs g_self g_certs g_pairs g_pairs_in g_mean g_recip g_low < gpg-counts.txt
expect_eq "$g_sigs" "$nsig" "list-sigs and check-sigs see the same signatures"
expect_eq "$g_self" "$N" "one self-certification per key"
expect_eq "$g_pairs" "$g_certs" "one certification per signer and signee"
expect_eq "$g_pairs_in" "$g_pairs" "every signer is in the keyring"
# the model: mean degree about 10, reciprocity about 0.6, ~30% leaves
python3 -c "import sys; m,r,l=map(float,sys.argv[1:]); sys.exit(0 if 9.5<=m<=10.5 and 0.5<=r<=0.7 and 0.2<=l<=0.45 else 1)" \
	"$g_mean" "$g_recip" "$g_low" &&
	_test_pass "degree model" || _test_fail "degree model: mean $g_mean, reciprocity $g_recip, keys with 0-1: $g_low"

# --- ksp verifies every certification good ----------------------------------
expect_code 0 $KSP -d w.db wot load a.gpg
expect_match "$OUT" "a.gpg: $N keys, $g_certs new certifications, 0 malformed"
expect_code 0 $KSP -d w.db --json wot stats
python3 - "$OUT" "$g_certs" <<'PY' >cmp.txt 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["certifications"]
want = int(sys.argv[2])
bad = [k for k, v in (("total", want), ("good", want), ("bad", 0), ("unsupported", 0),
                      ("dangling", 0), ("unchecked", 0)) if c[k] != v]
print("mismatch:", bad, c) if bad else print("ok")
sys.exit(1 if bad else 0)
PY
[ $? = 0 ] && _test_pass "ksp: every certification good" || _test_fail "ksp certifications: $(cat cmp.txt)"
ksp_edges=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["edges"])' "$OUT")
expect_eq "$ksp_edges" "$g_pairs" "verified edges = gpg's distinct signer->signee pairs"

expect_code 0 $KSP -d w.db --json wot stats --structural
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["vertices"], d["edges"], d["strong_set_size"])' "$OUT" >ksp-struct.txt
read -r s_vertices s_edges s_strong < ksp-struct.txt
expect_eq "$s_vertices" "$N" "structural vertices"
expect_eq "$s_edges" "$g_pairs" "structural edges = gpg's distinct signer->signee pairs"

# --- several batches, -v counts what was checked --------------------------------
# 3,000 keys make about 33,000 signatures: three batches of wot load, each
# checked while the one before it is written (not under valgrind: long)
if [ "${KSP_VALGRIND:-0}" != 1 ]; then
	expect_code 0 $GEN0 --keys 3000 --seed T250b --quiet -o big.gpg
	expect_code 0 $KSP -v -d big.db wot load big.gpg
	n_certs=$(sed -n 's/.*big.gpg: 3000 keys, \([0-9]*\) new certifications, 0 malformed.*/\1/p' "$OUT")
	[ -n "$n_certs" ] && [ "$n_certs" -gt 30000 ] && _test_pass "3000 keys: $n_certs certifications" ||
		_test_fail "3000 keys: $(cat "$OUT")"
	# every certification and every self-signature, once
	expect_match "$ERR" "^ksp: info: big.gpg: $((n_certs + 3000)) signatures checked in [0-9.]+ CPU-seconds \([0-9]+ a second per CPU; "
	lanes=$(sed -n 's/.* signatures checked .*; \([0-9]*\) of them Ed25519, eight at a time)$/\1/p' "$ERR")
	if grep -qw avx512ifma /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
		# all but a last one of a chunk of 64 jobs now and then, never more
		[ "${lanes:-0}" -ge $(((n_certs + 3000) * 63 / 64)) ] && [ "${lanes:-0}" -le $((n_certs + 3000)) ] &&
			_test_pass "Ed25519 eight at a time: $lanes" ||
			_test_fail "Ed25519 eight at a time: ${lanes:-none} of $((n_certs + 3000))"
	else
		expect_eq "${lanes:-none}" 0 "no AVX-512 IFMA: none eight at a time"
	fi
	expect_code 0 $KSP -d big.db --json wot stats
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["certifications"]; sys.exit(0 if c["good"] == c["total"] == int(sys.argv[2]) else 1)' \
		"$OUT" "$n_certs" && _test_pass "3000 keys: every certification good" || _test_fail "3000 keys: $(cat "$OUT")"
	# the file is mapped and its pages go back a megabyte at a time behind
	# the reader (the signers' key packets copied first); from a pipe it is
	# read whole: the same store either way
	expect_code 0 sh -c "cat big.gpg | $KSP -d big-pipe.db wot load -"
	for db in big big-pipe; do
		sqlite3 "$db.db" "SELECT k.fpr, u.uid, c.issuer_fpr, c.sig_type, c.created, c.verified, hex(c.digest)
			FROM certs c JOIN uids u ON u.id = c.uid_id JOIN keys k ON k.id = u.key_id ORDER BY 1, 2, 3, 5, 7" >"$db.certs"
	done
	if [ -s big.certs ] && cmp -s big.certs big-pipe.certs; then
		_test_pass "file (pages given back) and pipe (read whole): the same $(wc -l <big.certs) certifications"
	else
		_test_fail "file and pipe loads differ: $(diff big.certs big-pipe.certs | head -3)"
	fi
fi

# --- keyanalyze (signing-party) finds the same strong set ----------------------
if command -v pgpring >/dev/null && command -v process_keys >/dev/null && command -v keyanalyze >/dev/null; then
	# pgpring 2.11 hashes only 6 octets of an ECC key packet for the key ID;
	# take the issuer of the key's self-certification (0x13) instead
	pgpring -S -k a.gpg | awk -F: -v OFS=: '
		$1 == "pub" { $5 = "?"; held = $0; next }
		$1 == "sig" && held != "" { if ($11 == "13") sub(/:\?:/, ":" $5 ":", held); print held; held = "" }
		{ print }' | process_keys >preprocess.keys 2>/dev/null
	keyanalyze -i preprocess.keys -o ka -1 >ka.log 2>&1
	ka_strong=$(sed -n 's/^\*\*\* \([0-9]*\) keys in this strongly connected set$/\1/p' ka/othersets.txt 2>/dev/null | sort -n | tail -1)
	expect_eq "${ka_strong:-none}" "$s_strong" "keyanalyze strong set = ksp --structural strong set"
else
	_test_fail "pgpring, process_keys or keyanalyze is not installed (Debian package signing-party; make deps installs it)"
fi

test_done
