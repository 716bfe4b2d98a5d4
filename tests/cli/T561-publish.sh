#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp publish (issue 24) on the real kernel.org sample: wotmate's paths
# that lie inside the sample are matched or beaten (as many, none longer);
# the output is deterministic and a rerun changes nothing; the published
# tree loaded back gives the same store; every e-mail user ID is found by
# b4's/patatt's .keyring lookup (and by-hash); the weak-hash audit agrees
# with a publication without weak hashes; a tree in the way is refused
# with nothing published.
. "$(dirname "$0")/test-lib.sh"

ks="$TOP/tests/data/kernel-sample"
T="$TEST_TMP"
AT=2024-06-01
LINUS=ABAF11C65A2970B130ABE3C479BE3E4300411886

test_begin publish
expect_code 0 $KSP -d "$T/s.db" wot load "$ks/kernel-sample.gpg"
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT --audit-weak "$T/pub"
cp "$OUT" "$T/first.out"
expect_match "$T/first.out" '^[1-9][0-9]* key\(s\) published, [0-9]+ without a path, [1-9][0-9]* file\(s\) changed$'
expect_match "$T/first.out" '^added +graphs/04B08C8F1524FAF8.txt'
n_keys=$(ls "$T/pub/keys" | wc -l)
n_txt=$(ls "$T/pub/graphs" | grep -c '\.txt$')
n_svg=$(ls "$T/pub/graphs" | grep -c '\.svg$')
expect_eq "$n_svg" "$n_txt" "one .svg per .txt"
expect_eq "$((n_txt + 1))" "$n_keys" "a graph for every published key but the core"
head -c 5 "$T/pub/graphs/04B08C8F1524FAF8.svg" | grep -q '<' && _test_pass "svg" || _test_fail "not an svg"

# wotmate's paths inside the sample: as many or more, none longer
if python3 "$TOP/tests/tools/kernel-graphs.py" "$KSP_BIN" "$T/s.db" "$ks" "$T/pub" $AT 79BE3E4300411886 >"$T/cmp" 2>&1; then
	_test_pass "$(head -n 1 "$T/cmp")"
else
	_test_fail "ksp's paths worse than wotmate's"; sed 's/^/    /' "$T/cmp"
fi
expect_match "$T/cmp" 'inside the sample: ([1-9][0-9]);'
# somewhere ksp finds more than wotmate's greedy search
more=0
for f in "$T"/pub/graphs/*.txt; do
	w="$ks/graphs/$(basename "$f")"
	[ -f "$w" ] && [ "$(grep -c '^from ' "$f")" -gt "$(grep -c '^from  79BE3E4300411886' "$w")" ] && more=$((more + 1))
done
[ "$more" -ge 1 ] && _test_pass "more paths than wotmate for $more keys" || _test_fail "never more paths than wotmate"

# every published path is simple: no key twice in one path (issue 33: the
# core key, Linus, came back in the middle: Linus > Greg > Linus > target)
twice=$(/usr/bin/python3 - "$T/pub" <<'EOF'
import glob, re, sys
n = paths = 0
for f in sorted(glob.glob(sys.argv[1] + '/graphs/*.txt')):
    for block in open(f).read().split('\n\n'):
        ids = re.findall(r'^(?:from|\s*\d+)\s+([0-9A-F]{16})\s', block, re.M)
        if ids:
            paths += 1
        if len(ids) != len(set(ids)):
            n += 1
            print(f.rsplit('/', 1)[1], ' > '.join(ids), file=sys.stderr)
print(n if paths > 20 else 'only %d paths' % paths)
EOF
)
expect_eq "$twice" 0 "paths with a key twice"

# deterministic, and a rerun rewrites nothing
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT "$T/pub2"
diff -r "$T/pub" "$T/pub2" >/dev/null && _test_pass "same bytes twice" || _test_fail "two runs differ"
touch -d 2001-01-01 "$T/pub/keys/04B08C8F1524FAF8.asc"
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT "$T/pub"
expect_match "$OUT" ' 0 file\(s\) changed$'
expect_eq "$(date -r "$T/pub/keys/04B08C8F1524FAF8.asc" +%Y)" 2001 "an unchanged file is not rewritten"
# a change is reported as such: a graph edited, a stray key file
sed -i '/^from /,$d' "$T/pub2/graphs/04B08C8F1524FAF8.txt"
cp "$T/pub2/keys/04B08C8F1524FAF8.asc" "$T/pub2/keys/0000000000000000.asc"
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT "$T/pub2"
expect_match "$OUT" '^changed +graphs/04B08C8F1524FAF8.txt  \(paths 0 -> [1-9]: gained [1-9]\)$'
expect_match "$OUT" '^removed +keys/0000000000000000.asc$'
diff -r "$T/pub" "$T/pub2" >/dev/null && _test_pass "back to the same tree" || _test_fail "not back to the same tree"

# loaded back: the same store (the published keys, their valid user IDs,
# the certifications by published keys), and the same publication
expect_code 0 $KSP -d "$T/back.db" wot load "$T/pub"
pub_fprs() { sqlite3 "$1" "SELECT fpr FROM keys" | while read -r f; do
	[ -f "$T/pub/keys/${f: -16}.asc" ] && echo "$f"; done | sort; }
pub_fprs "$T/s.db" >"$T/set"
expect_eq "$(sqlite3 "$T/back.db" 'SELECT fpr FROM keys ORDER BY 1')" "$(cat "$T/set")" "the same keys"
dump() {
	sqlite3 "$1" "ATTACH '$T/set.db' AS s; SELECT fpr, keyid, version, algo, bits, created, expires, revoked, selfsig_ok
		FROM keys WHERE fpr IN (SELECT fpr FROM s.pub) ORDER BY fpr"
	sqlite3 "$1" "ATTACH '$T/set.db' AS s; SELECT k.fpr, hex(u.uid), u.selfsig FROM uids u JOIN keys k ON k.id = u.key_id
		WHERE k.fpr IN (SELECT fpr FROM s.pub) AND u.selfsig > 0 AND u.revoked = 0 ORDER BY 1, 2"
	sqlite3 "$1" "ATTACH '$T/set.db' AS s; SELECT k.fpr, hex(u.uid), c.issuer_fpr, c.sig_type, c.hash_algo, c.created,
		c.digest FROM certs c JOIN uids u ON u.id = c.uid_id JOIN keys k ON k.id = u.key_id
		WHERE k.fpr IN (SELECT fpr FROM s.pub) AND u.selfsig > 0 AND u.revoked = 0 AND c.verified = 1
		AND c.issuer_fpr IN (SELECT fpr FROM s.pub) ORDER BY 1, 2, 7"
}
rm -f "$T/set.db"
sqlite3 "$T/set.db" "CREATE TABLE pub(fpr TEXT)"
while read -r f; do sqlite3 "$T/set.db" "INSERT INTO pub VALUES ('$f')"; done <"$T/set"
dump "$T/s.db" >"$T/a.dump"
dump "$T/back.db" >"$T/b.dump"
[ "$(grep -c . "$T/a.dump")" -gt 100 ] && _test_pass "dump not empty" || _test_fail "dump empty"
cmp -s "$T/a.dump" "$T/b.dump" && _test_pass "loaded back: the same store" || {
	_test_fail "loaded back: the store differs"; diff "$T/a.dump" "$T/b.dump" | head -5; }
expect_eq "$(sqlite3 "$T/back.db" 'SELECT count(*) FROM certs WHERE verified != 1')" 0 \
	"only verified certifications by published keys were exported"
# published again from there: the same keys, .keyring and path lengths
# (among paths of equal length the engine's choice may differ: the stores
# number their keys in another order)
expect_code 0 $KSP -d "$T/back.db" publish --core-fpr $LINUS --at $AT --no-svg "$T/pub3"
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT --no-svg "$T/pub4"
diff -r "$T/pub3/keys" "$T/pub4/keys" >/dev/null && diff -r "$T/pub3/.keyring" "$T/pub4/.keyring" >/dev/null &&
	_test_pass "republished: the same keys and .keyring" || _test_fail "republished: keys or .keyring differ"
lengths() { for f in "$1"/graphs/*.txt; do echo "$(basename "$f"): $(awk '/^from /{if (n) print n; n=0; next} /^ +[0-9]+  /{n++} END{if (n) print n}' "$f" | sort | tr '\n' ' ')"; done; }
expect_eq "$(lengths "$T/pub3")" "$(lengths "$T/pub4")" "republished: the same path lengths"

# b4/patatt: .keyring/openpgp/<domain>/<local>/default and by-hash find
# the right key for every e-mail user ID of the published keys
sqlite3 "$T/s.db" "SELECT k.fpr, hex(u.uid) FROM uids u JOIN keys k ON k.id = u.key_id
	WHERE u.is_attr = 0 AND u.revoked = 0 AND u.selfsig > 0" >"$T/uids"
if python3 - "$T/pub" "$T/uids" >"$T/lookup" 2>&1 <<'EOF'
import sys, os, re, hashlib, urllib.parse, collections
pub, uids = sys.argv[1], sys.argv[2]
claims = collections.defaultdict(set)
for line in open(uids):
    fpr, h = line.strip().split('|')
    if not os.path.exists(os.path.join(pub, 'keys', fpr[-16:] + '.asc')):
        continue
    u = bytes.fromhex(h).decode('utf-8', 'replace')
    m = re.search(r'<([^<>\s]+@[^<>\s]+)>$', u) or re.fullmatch(r'([^<>\s]+@[^<>\s]+)', u)
    if m:
        claims[m.group(1)].add(fpr)
n = 0
for addr, fprs in sorted(claims.items()):
    local, domain = addr.rsplit('@', 1)
    path = os.path.join('openpgp', urllib.parse.quote_plus(domain.lower()), urllib.parse.quote_plus(local.lower()), 'default')
    h = hashlib.sha256(path.encode()).hexdigest()
    for p in (os.path.join(pub, '.keyring', path), os.path.join(pub, '.keyring', 'by-hash', h[:2], h[2:])):
        if not os.path.isfile(p):
            sys.exit('no key at %s for %s' % (p, addr))
        kid = os.path.basename(os.path.realpath(p))[:-4]
        if not any(f.endswith(kid) for f in fprs):
            sys.exit('%s finds %s, not a key of %s' % (p, kid, addr))
    n += 1
print('%d addresses found' % n)
sys.exit(0 if n > 20 else 1)
EOF
then _test_pass "$(cat "$T/lookup")"; else _test_fail "lookup: $(cat "$T/lookup")"; fi

# the weak-hash audit: the keys it says lose all paths are exactly those
# that have none when SHA-1, MD5 and RIPEMD-160 certifications do not count
expect_match "$T/first.out" '^weak +[0-9A-F]{40}: on the paths, [1-9][0-9]* SHA-1'
expect_code 0 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT --no-sha1 --no-svg "$T/strong"
sed -n 's/^orphan *\([0-9A-F]*\):.*/\1/p' "$T/first.out" | sort >"$T/orphans"
for f in "$T"/pub/graphs/*.txt; do k=$(basename "$f" .txt); [ -f "$T/strong/graphs/$k.txt" ] || echo "$k"; done >"$T/lost"
[ -s "$T/orphans" ] && _test_pass "the audit names keys" || _test_fail "the audit names no key"
expect_eq "$(sed 's/.*\(.\{16\}\)$/\1/' "$T/orphans" | sort | tr '\n' ' ')" "$(sort "$T/lost" | tr '\n' ' ')" \
	"audit orphans = keys without paths under --no-sha1"
expect_code 0 $KSP -d "$T/s.db" --json publish --core-fpr $LINUS --at $AT --audit-weak --no-svg "$T/strong2"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["lose_all_paths"] and d["weak_certifiers"]' "$OUT" \
	&& _test_pass "json" || _test_fail "json"

# nothing half-published: a file in the way
mkdir -p "$T/way" && cp -a "$T/pub/." "$T/way/" && rm -rf "$T/way/graphs" && echo x >"$T/way/graphs"
(cd "$T/way" && find . | sort) >"$T/way.before"
expect_code 2 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT "$T/way"
expect_match "$ERR" 'way/graphs: in the way \(a file, not a folder\); move it away, nothing was published'
(cd "$T/way" && find . | sort) >"$T/way.after"
cmp -s "$T/way.before" "$T/way.after" && _test_pass "nothing touched" || _test_fail "the tree was touched"
# a symlink in the way (out of the tree)
rm -f "$T/way/graphs" && ln -s /tmp "$T/way/graphs"
expect_code 2 $KSP -d "$T/s.db" publish --core-fpr $LINUS --at $AT "$T/way"
expect_match "$ERR" 'in the way \(a symlink, not a folder\)'
# no core key
expect_code 2 $KSP -d "$T/s.db" publish "$T/x"
expect_match "$ERR" 'no core key'
[ ! -e "$T/x" ] && _test_pass "no folder made" || _test_fail "folder made"


# ---- hostile output folder (issue 34), on a small generated keyring: the
# core p1 certifies A (a normal address) and L (an address whose local
# part is 300 bytes: no file name)
G() { gpg --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
fx="$TOP/tests/keyrings/party"
G --import "$fx/p1-secret.asc" 2>/dev/null
C=$(G --with-colons --show-keys "$fx/p1-public.asc" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}')
long=$(printf 'l%.0s' $(seq 300))
G --quick-gen-key "Alice <alice@example.org>" ed25519 cert never 2>/dev/null
G --quick-gen-key "Long <$long@example.org>" ed25519 cert never 2>/dev/null
fpr_uid() { G --with-colons --list-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
A=$(fpr_uid alice@example.org) L=$(fpr_uid "$long@example.org")
G -u "$C" --quick-sign-key "$A" >/dev/null 2>&1; G -u "$C" --quick-sign-key "$L" >/dev/null 2>&1
G --export "$C" "$A" "$L" >"$T/small.gpg"
expect_code 0 $KSP -d "$T/small.db" wot load "$T/small.gpg"
no_dangling() { # DIR: every symlink of DIR resolves
	expect_eq "$(find "$1" -xtype l | wc -l)" 0 "$2: no dangling symlink"
}
# the long address: published, that lookup skipped with a warning naming L
for run in first second; do
	expect_code 0 $KSP -d "$T/small.db" publish --core-fpr "$C" --no-svg "$T/long"
	expect_match "$ERR" "key $L: an address of its user IDs is too long for a file name"
	expect_eq "$(ls "$T/long/keys" | wc -l)" 3 "long address ($run run): the three keys published"
	[ -f "$T/long/graphs/${L: -16}.txt" ] && [ -f "$T/long/graphs/${A: -16}.txt" ] &&
		_test_pass "long address ($run run): graphs written" || _test_fail "long address ($run run): graphs missing"
	[ -L "$T/long/.keyring/openpgp/example.org/alice/default" ] &&
		_test_pass "long address ($run run): the other lookups written" || _test_fail "long address ($run run): no lookup for alice"
	no_dangling "$T/long" "long address ($run run)"
done
# a symlinked .keyring: the clean-up never follows it; nothing outside DIR
# is read, written or removed
# (the folder it points to holds what a publication puts there, and more:
# C and A only, so that every name fits)
G --export "$C" "$A" >"$T/small2.gpg"
expect_code 0 $KSP -d "$T/small2.db" wot load "$T/small2.gpg"
expect_code 0 $KSP -d "$T/small2.db" publish --core-fpr "$C" --no-svg "$T/sym"
mv "$T/sym/.keyring" "$T/outside" && ln -s "$T/outside" "$T/sym/.keyring"
mkdir -p "$T/outside/openpgp/victim.org/bob" "$T/outside/by-hash/ab"
echo keep >"$T/outside/openpgp/victim.org/bob/default"; echo keep >"$T/outside/by-hash/ab/cdef"
(cd "$T/outside" && find . | sort) >"$T/outside.before"
(cd "$T/sym" && find . | sort) >"$T/sym.before"
expect_code 2 $KSP -d "$T/small2.db" publish --core-fpr "$C" --no-svg "$T/sym"
expect_match "$ERR" 'sym/.keyring: in the way \(a symlink, not a folder\); move it away, nothing was published'
(cd "$T/outside" && find . | sort) >"$T/outside.after"
(cd "$T/sym" && find . | sort) >"$T/sym.after"
[ -f "$T/outside/openpgp/victim.org/bob/default" ] && [ -f "$T/outside/by-hash/ab/cdef" ] &&
	cmp -s "$T/outside.before" "$T/outside.after" && _test_pass "symlinked .keyring: nothing outside touched" ||
	{ _test_fail "symlinked .keyring: files outside DIR removed or added"; diff "$T/outside.before" "$T/outside.after"; }
cmp -s "$T/sym.before" "$T/sym.after" && _test_pass "symlinked .keyring: DIR as it was" || _test_fail "symlinked .keyring: DIR changed"
# a symlinked folder deeper in (.keyring/openpgp/example.org -> outside)
mkdir -p "$T/deep/.keyring/openpgp" && ln -s "$T/outside/openpgp/victim.org" "$T/deep/.keyring/openpgp/example.org"
expect_code 2 $KSP -d "$T/small2.db" publish --core-fpr "$C" --no-svg "$T/deep"
expect_match "$ERR" 'example.org: in the way \(a symlink, not a folder\)'
(cd "$T/outside" && find . | sort) >"$T/outside.after"
cmp -s "$T/outside.before" "$T/outside.after" && _test_pass "symlinked folder: nothing outside touched" ||
	_test_fail "symlinked folder: files outside DIR touched"

test_done
