#!/usr/bin/env bash
# Party preparation end to end on tests/keyrings fixtures: refusals,
# digests (checked against sha256sum and openssl), reopen, bad input.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings"
KSP="${KSP:-$top/ksp}"
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T100-party
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$w"' EXIT
export KSP_DB="$w/p.db"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2; shift 2
	"$@" >"$w/out" 2>"$w/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$msg: exit $got, want $want"; sed 's/^/  | /' "$w/err" >&2; fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else bad "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -20 >&2; fi
}
expect_nogrep() {
	if grep -qE -- "$2" "$1"; then bad "$3: /$2/ found in $1"; else ok; fi
}
rows() { sqlite3 "$KSP_DB" "SELECT (SELECT count(*) FROM keys)||' '||(SELECT count(*) FROM uids)||' '||(SELECT count(*) FROM participants)||' '||(SELECT count(*) FROM list_versions)"; }
fpr_of() { gpg --homedir "$w/show" --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
mkdir -m 700 "$w/show"

expect_code 2 "list without a store" $KSP party list
expect_grep "$w/err" "no such store" "missing store message"
expect_code 2 "init with a bad date" $KSP party init --name X --date 2027-13-01
expect_code 0 "init" $KSP party init --name "Test party" --date 2027-01-15 --location "Room <1>"
expect_code 2 "second init" $KSP party init --name Y --date 2027-01-15
expect_grep "$w/err" "already holds a party" "second init message"

# good keys
expect_code 0 "add good keys" $KSP party add "$fx/alice-rsa.asc" "$fx/bob-ed25519.asc" "$fx/carol-nonlatin.asc" "$fx/dave-escape.asc"
expect_grep "$w/out" "^#1 " "numbered"
[ "$(rows)" = "4 7 4 0" ] && ok || bad "rows after add: $(rows)"

# refusals, each with its reason; exit 1, nothing stored for them
expect_code 1 "expired" $KSP party add "$fx/erin-expired.asc"
expect_grep "$w/out" "refused: expired on 2020" "expired reason"
expect_code 1 "revoked" $KSP party add "$fx/frank-revoked.asc"
expect_grep "$w/out" "refused: the key is revoked" "revoked reason"
expect_code 1 "dsa1024" $KSP party add "$fx/grace-dsa1024.asc"
expect_grep "$w/out" "weak key \(dsa1024" "weak key reason"
expect_grep "$w/out" "self-signature uses SHA-1" "weak hash reason"
expect_code 1 "no email" $KSP party add "$fx/heidi-noemail.asc"
expect_grep "$w/out" "no user ID with an e-mail address" "no-email reason"
expect_code 1 "duplicate" $KSP party add "$fx/bob-ed25519.asc"
expect_grep "$w/out" "already on the list as #2" "duplicate reason"
[ "$(rows)" = "4 7 4 0" ] && ok || bad "refused keys were stored: $(rows)"
expect_code 2 "secret key" $KSP party add "$fx/alice-secret.asc"
expect_grep "$w/err" "SECRET key material" "secret message"
expect_code 0 "dry run accepts dsa with --allow-weak" $KSP party add --dry-run --allow-weak "$fx/grace-dsa1024.asc"
[ "$(rows)" = "4 7 4 0" ] && ok || bad "dry run stored: $(rows)"
sqlite3 "$KSP_DB" "SELECT hex(keydata) FROM keys" | grep -q "9501" && bad "secret key packet (tag 5) stored" || ok

# bad input: clear error, exit 2, store unchanged
before=$(rows)
head -c 50000000 /dev/urandom > "$w/random.bin"
for f in "$fx/truncated.gpg" "$fx/not-a-key.txt" "$fx/empty.asc" "$w/random.bin" "$w/does-not-exist"; do
	expect_code 2 "bad input $(basename "$f")" $KSP party add "$fx/p-none" "$f" 2>/dev/null || true
	expect_code 2 "bad input $(basename "$f") alone" $KSP party add "$f"
	expect_grep "$w/err" "$(basename "$f")" "message names $(basename "$f")"
	[ "$(wc -l < "$w/err")" = 1 ] && ok || bad "one-line message for $(basename "$f")"
done
rm -f "$w/random.bin"
# a good key followed by a bad file: nothing is added
expect_code 2 "good then bad" $KSP party add "$fx/party/p1-public.asc" "$fx/not-a-key.txt"
[ "$(rows)" = "$before" ] && ok || bad "store changed by bad input: $(rows) vs $before"
[ "$(sqlite3 "$KSP_DB" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity_check"
# no temporary GnuPG home left behind, the user's home untouched
[ -z "$(ls "$TMPDIR")" ] && ok || bad "left in TMPDIR: $(ls "$TMPDIR")"
[ ! -e "$GNUPGHOME" ] && ok || bad "GNUPGHOME was touched"

# several keys per file, armored and binary
expect_code 0 "several.asc" $KSP -d "$w/s1.db" party init --name S --date 2027-01-15
expect_code 1 "several.asc (both already? no: new store)" $KSP -d "$w/s1.db" party add "$fx/several.asc" "$fx/several.gpg"
expect_grep "$w/out" "already on the list" "binary copy is a duplicate of the armored one"
[ "$(sqlite3 "$w/s1.db" 'SELECT count(*) FROM participants')" = 2 ] && ok || bad "several: two participants"

# hostile UID is escaped in the list
expect_code 0 "list" $KSP party list
expect_grep "$w/out" 'Dave \\x1B\[31mRED\\x1B\[0m \\u\{202E\}' "terminal escapes shown escaped"
if grep -q $'\x1b' "$w/out" || grep -q $'\xe2\x80\xae' "$w/out"; then bad "raw escape in list output"; else ok; fi
expect_grep "$w/out" "Кэрол Тест" "UTF-8 UID shown as is"
expect_code 0 "list --json" $KSP party list --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["participants"])==4; assert "\x1b" in d["participants"][3]["uids"][1] or "\x1b" in d["participants"][3]["uids"][0]' "$w/out" && ok || bad "json parses and round-trips the UID"

# remove and numbering
expect_code 0 "remove by number" $KSP party remove 4
expect_code 2 "remove unknown" $KSP party remove 9
expect_code 0 "add back" $KSP party add "$fx/dave-escape.asc"
expect_grep "$w/out" "^#4 " "next number reused after removal of the last"

# close: digests equal sha256sum / openssl of the canonical text
expect_code 2 "digest before close" $KSP party digest
expect_code 0 "close" $KSP party close -o "$w/list.txt"
sha=$(sha256sum "$w/list.txt" | cut -d' ' -f1)
rmd=$(openssl dgst -ripemd160 -r "$w/list.txt" | cut -d' ' -f1)
expect_grep "$w/out" "SHA256: +$sha" "sha256 equals sha256sum"
expect_grep "$w/out" "RIPEMD160: +$rmd" "ripemd160 equals openssl"
for f in alice-rsa bob-ed25519 carol-nonlatin dave-escape; do
	fp=$(fpr_of "$fx/$f.asc" | sed 's/..../& /g; s/ $//')
	expect_grep "$w/list.txt" "${fp:0:24} ${fp:24}" "list has full fingerprint of $f"
done
expect_code 2 "add after close" $KSP party add "$fx/party/p1-public.asc"
expect_grep "$w/err" "list is closed" "closed message"
expect_code 2 "remove after close" $KSP party remove 1
expect_code 0 "verify-list matches" $KSP party verify-list "$w/list.txt"
sed 's/Test party/Test partY/' "$w/list.txt" > "$w/list2.txt"
expect_code 1 "verify-list tampered" $KSP party verify-list "$w/list2.txt"
# reproducible: the same store gives the same bytes, in any locale and time
expect_code 0 "digest again" env LC_ALL=C.UTF-8 TZ=Pacific/Kiritimati $KSP party digest -o "$w/again.txt"
cmp -s "$w/list.txt" "$w/again.txt" && ok || bad "list text not reproducible"

# reopen: a new version, the old one stays
expect_code 2 "reopen without reason" $KSP party reopen
expect_code 0 "reopen" $KSP party reopen --reason "latecomer"
expect_code 0 "latecomer" $KSP party add "$fx/party/p1-public.asc"
expect_code 0 "close v2" $KSP party close
expect_grep "$w/out" "List version 2" "version 2"
expect_code 0 "digest v1" $KSP party digest --version 1
expect_grep "$w/out" "$sha" "v1 digest kept"
expect_code 0 "old list still matches v1" $KSP party verify-list "$w/list.txt"
expect_grep "$w/out" "version 1 \(not the newest\)" "says not the newest"

# a store that is not ours, and a store from a newer ksp
echo "hello" > "$w/notadb"
expect_code 2 "not a database" $KSP -d "$w/notadb" party list
expect_grep "$w/err" "notadb" "names the file"
cp "$KSP_DB" "$w/newer.db"
sqlite3 "$w/newer.db" "PRAGMA user_version = 99"
expect_code 2 "newer schema" $KSP -d "$w/newer.db" party list
expect_grep "$w/err" "newer ksp" "newer schema message"

# a second writer holding the store: a clear "busy", nothing lost
before=$(rows)
(echo "BEGIN IMMEDIATE; INSERT INTO events(time, what) VALUES (0, 'lock');"; sleep 6; echo "ROLLBACK;") | sqlite3 "$KSP_DB" &
lockpid=$!
sleep 1
expect_code 2 "busy store" $KSP party remove 1
expect_grep "$w/err" "database is busy" "busy message"
wait $lockpid
[ "$(rows)" = "$before" ] && ok || bad "busy: rows changed"
expect_code 0 "list works after the lock is gone" $KSP party list

# keys from the user's own GnuPG home (read-only), by full fingerprint only
uh="$w/userhome"
mkdir -m 700 "$uh"
gpg --homedir "$uh" --batch --quiet --import "$fx/bob-ed25519.asc" "$fx/party/p2-public.asc" 2>/dev/null
sum_before=$(cd "$uh" && find . -type f ! -name 'S.*' ! -name '*.lock' -exec sha256sum {} + | sort)
bobfpr=$(fpr_of "$fx/bob-ed25519.asc")
$KSP -d "$w/g.db" party init --name G --date 2027-01-15 >/dev/null
expect_code 0 "add --gnupg" env GNUPGHOME="$uh" $KSP -d "$w/g.db" party add --gnupg "$bobfpr"
expect_grep "$w/out" "^#1 +$bobfpr" "added from the user's home"
expect_code 2 "--gnupg refuses a short key ID" env GNUPGHOME="$uh" $KSP -d "$w/g.db" party add --gnupg "${bobfpr:24}"
expect_grep "$w/err" "not a full fingerprint" "short key ID message"
expect_code 2 "--gnupg unknown key" env GNUPGHOME="$uh" $KSP -d "$w/g.db" party add --gnupg 0000000000000000000000000000000000000000
sum_after=$(cd "$uh" && find . -type f ! -name 'S.*' ! -name '*.lock' -exec sha256sum {} + | sort)
[ "$sum_before" = "$sum_after" ] && ok || bad "the user's GnuPG home was modified"
gpgconf --homedir "$uh" --kill all 2>/dev/null

# 20 real keys from the Debian keyring: digest stable across two runs
. "$top/tests/cli/debian-ring.sh"
ring=$DEBIAN_RING
why=$(debian_ring_missing)
if [ -z "$why" ]; then
	mkdir -m 700 "$w/deb"
	gpg --homedir "$w/deb" --no-default-keyring --keyring "$ring" --with-colons --list-keys 2>/dev/null |
		awk -F: '$1=="pub"{p=1; ok=($2!="e" && $2!="r" && $7==""); next} $1=="fpr" && p {if(ok && c++ < 20) print $10; p=0}' > "$w/deb.fprs"
	gpg --homedir "$w/deb" --no-default-keyring --keyring "$ring" --export $(cat "$w/deb.fprs") > "$w/deb.gpg" 2>/dev/null
	for run in 1 2; do
		rm -f "$w/d$run.db"
		$KSP -d "$w/d$run.db" party init --name "Debian 20" --date 2030-01-01 >/dev/null
		$KSP -d "$w/d$run.db" party add --allow-weak "$w/deb.gpg" >/dev/null 2>&1
		$KSP -d "$w/d$run.db" party close >"$w/d$run.out" 2>/dev/null
	done
	[ "$(sqlite3 "$w/d1.db" 'SELECT count(*) FROM participants')" = 20 ] && ok || bad "20 Debian keys added"
	cmp -s "$w/d1.out" "$w/d2.out" && ok || bad "Debian digest differs across runs"
else
	echo "$name: Debian part skipped: $why" >&2
fi

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
