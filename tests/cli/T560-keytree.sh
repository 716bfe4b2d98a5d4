#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Key trees as kernel.org's pgpkeys repository lays them out (issue 24):
# ksp wot load / party add / import DIR read keys/*.asc (text before the
# armor, several blocks in a file) and .keyring/openpgp/ (symlinks,
# url-quoted names; other key types skipped with a note) into the same
# store as the binary keyring; bad trees are refused with one line and
# nothing stored.
. "$(dirname "$0")/test-lib.sh"

ks="$TOP/tests/data/kernel-sample"
T="$TEST_TMP"

dump() {
	sqlite3 "$1" "SELECT fpr, keyid, version, algo, bits, coalesce(curve, ''), created, expires, revoked,
		selfsig_ok, coalesce(selfsig_hash, '') FROM keys ORDER BY fpr"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), u.is_attr, u.selfsig, u.revoked FROM uids u JOIN keys k ON k.id = u.key_id
		ORDER BY 1, 2"
	sqlite3 "$1" "SELECT k.fpr, hex(u.uid), coalesce(c.issuer_fpr, ''), c.issuer_keyid, c.sig_type, c.hash_algo,
		c.created, c.expires, c.exportable, c.verified, c.digest FROM certs c JOIN uids u ON u.id = c.uid_id
		JOIN keys k ON k.id = u.key_id ORDER BY 1, 2, 11"
}

test_begin keytree-read
expect_code 0 $KSP -d "$T/ref.db" wot load "$ks/kernel-sample.gpg"
dump "$T/ref.db" >"$T/ref.dump"

# the tree: the sample's keys/ as they are, one file holding two armored
# blocks (a key and, after text, another), the .keyring tree with a
# symlink, a url-quoted name, a copy, and an ed25519 key (not OpenPGP)
t="$T/tree"
mkdir -p "$t/keys" "$t/graphs" "$t/.git" "$t/.keyring/openpgp/kernel.org/torvalds" \
	"$t/.keyring/openpgp/linuxfoundation.org/gregkh%2Bstable" "$t/.keyring/ed25519/kernel.org/someone"
cp "$ks"/keys/*.asc "$t/keys/"
cp "$ks"/graphs/*.txt "$t/graphs/"
printf 'not a key at all\n' >"$t/.git/HEAD"
# A and B in one file (B is also in its own file: removed there)
a=002BA651C51622D3 b=00FD9F49DF9958A0
{ cat "$ks/keys/$a.asc"; printf '\n\nSome words between the blocks.\n\n'; sed -n '/-----BEGIN/,$p' "$ks/keys/$b.asc"; echo; } >"$t/keys/$a.asc"
rm "$t/keys/$b.asc"
ln -s ../../../../keys/79BE3E4300411886.asc "$t/.keyring/openpgp/kernel.org/torvalds/default"
cp "$ks/keys/38DBBDC86092693E.asc" "$t/.keyring/openpgp/linuxfoundation.org/gregkh%2Bstable/default"
printf 'AAAAC3NzaC1lZDI1NTE5AAAAI\n' >"$t/.keyring/ed25519/kernel.org/someone/default"
expect_code 0 $KSP -d "$T/tree.db" wot load "$t"
# 61 keys read: the 60 and the .keyring copy of one of them
expect_match "$OUT" ': 61 keys, 640 new certifications, 0 malformed'
expect_match "$ERR" '\.keyring/ed25519: not OpenPGP keys, skipped'
dump "$T/tree.db" >"$T/tree.dump"
if cmp -s "$T/ref.dump" "$T/tree.dump"; then _test_pass "tree store = binary keyring store"; else
	_test_fail "tree store differs from the binary keyring's"; diff "$T/ref.dump" "$T/tree.dump" | head -5; fi

# party add and import take the tree too, as they take the binary keyring
for src in tree bin; do
	f="$t"; [ $src = bin ] && f="$ks/kernel-sample.gpg"
	(cd "$T" && $KSP -d $src-party.db party init --name Tree --date 2030-01-01 >/dev/null 2>&1)
	expect_code 1 $KSP -d "$T/$src-party.db" party add "$f"
	grep 'added' "$ERR" >"$T/$src-add.out"
	sqlite3 "$T/$src-party.db" 'SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY 1' >"$T/$src-part"
	expect_code 1 $KSP -d "$T/$src-party.db" import "$f"
	# (the .keyring copy of a key not in the party is skipped once more)
	sed 's/, [0-9]* skipped//' "$OUT" >"$T/$src-import.out"
done
expect_eq "$(cat "$T/tree-add.out")" "$(cat "$T/bin-add.out")" "party add DIR = party add keyring"
expect_match "$T/tree-add.out" '^[1-9][0-9]* key\(s\) added'
expect_eq "$(cat "$T/tree-part")" "$(cat "$T/bin-part")" "the same participants"
expect_eq "$(cat "$T/tree-import.out")" "$(cat "$T/bin-import.out")" "import DIR = import keyring"

test_begin keytree-bad
bad_tree() { # NAME: a copy of the tree to break
	rm -rf "$T/$1"
	cp -a "$t" "$T/$1"
	echo "$T/$1"
}
check_refused() { # DB-NAME REGEX
	expect_code 2 $KSP -d "$T/$1.db" wot load "$T/$1"
	expect_match "$ERR" "$2"
	expect_eq "$(sqlite3 "$T/$1.db" 'SELECT count(*) FROM keys' 2>/dev/null || echo 0)" 0 "$1: nothing stored"
}
# a header that claims another key
x=$(bad_tree hdr)
sed -i '2s/.*/      AAAABBBBCCCCDDDDEEEEFFFF0000111122223333/' "$x/keys/057DE720301C09B6.asc"
check_refused hdr 'keys/057DE720301C09B6.asc: its header names key AAAABBBBCCCCDDDDEEEEFFFF0000111122223333'
# a file named for another key
x=$(bad_tree name)
mv "$x/keys/057DE720301C09B6.asc" "$x/keys/0000000000000001.asc"
check_refused name 'keys/0000000000000001.asc: named for key 0000000000000001 but holds key'
# two files holding the same key
x=$(bad_tree dup)
sed -n '/-----BEGIN/,$p' "$ks/keys/057DE720301C09B6.asc" >"$x/keys/extra.asc"
check_refused dup 'keys/057DE720301C09B6.asc and keys/extra.asc both hold key'
# a symlink out of the tree
x=$(bad_tree link)
ln -s "$ks/keys/057DE720301C09B6.asc" "$x/.keyring/openpgp/kernel.org/torvalds/other"
check_refused link '\.keyring/openpgp/kernel.org/torvalds/other: a symlink pointing out of the tree'
# a file of 100 MB (sparse)
x=$(bad_tree big)
truncate -s 100M "$x/keys/huge.asc"
check_refused big 'keys/huge.asc: 100 MiB, more than the 64 MiB'
# damaged armor
x=$(bad_tree crc)
sed -i '15s/A/B/; 15s/a/b/' "$x/keys/057DE720301C09B6.asc"
check_refused crc 'keys/057DE720301C09B6.asc: offset [0-9]+: damaged ASCII armor'

test_done
