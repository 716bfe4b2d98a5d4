# SPDX-License-Identifier: LGPL-2.1-or-later
# fixture-lib.sh - what the keyring makers of tests/keyrings/ share
# (trust/make-trust-fixtures.sh, trust/make-revocation-fixtures.sh,
# health/make-health-fixtures.sh); sourced by them, under
# 'set -euo pipefail'.
#
# INSECURE throw-away keys, made in private temporary GnuPG homes that are
# removed on exit (~/.gnupg is never touched).  Time is frozen for every
# operation (--faked-system-time 'T!'): day N means 2024-01-01 + N days,
# plus a running number of seconds so that no two signatures of a key
# share a second.  Key material is random: reruns change every
# fingerprint, and keys.tsv (NAME TAB FINGERPRINT, in $GH) records them.

# fixture_homes HOME...: GH, a new temporary directory holding the GnuPG
# homes $GH/HOME (mode 700); on exit their agents are stopped and $GH goes
fixture_homes() {
	GH=$(mktemp -d)
	FIXTURE_HOMES=("$@")
	trap _fixture_cleanup EXIT
	for h; do mkdir -m 700 "$GH/$h"; done
	: >"$GH/keys.tsv"
}
_fixture_cleanup() {
	for h in "${FIXTURE_HOMES[@]}"; do
		gpgconf --homedir "$GH/$h" --kill all >/dev/null 2>&1 || true
	done
	rm -rf "$GH"
}

secs=0
TS=
# day N: TS = the frozen time N days after 2024-01-01, one second later
# each call (no subshell: the counter must survive)
day() {
	secs=$((secs + 1))
	TS=$(date -u -d "2024-01-01 00:00:00 UTC + $1 days + $secs seconds" +%Y%m%dT%H%M%S!)
}
# g DAY ARGS...: gpg in the home $GH/g at that day
g() {
	day "$1"
	shift
	gpg --homedir "$GH/g" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' \
		--no-auto-check-trustdb --faked-system-time "$TS" "$@"
}
declare -A F
# key NAME DAY [EXPIRE [ALGO]]: a new key "NAME INSECURE <NAME@example.org>"
# (ALGO ed25519 unless given), its fingerprint in F[NAME] and keys.tsv
key() {
	g "$2" --quick-gen-key "$1 INSECURE <$1@example.org>" "${4:-ed25519}" sign "${3:-0}" >/dev/null 2>&1
	F[$1]=$(gpg --homedir "$GH/g" --batch --with-colons --list-keys "<$1@example.org>" |
		awk -F: '$1=="fpr"{print $10; exit}')
	[ -n "${F[$1]}" ] || { echo "no key $1" >&2; exit 1; }
	printf '%s\t%s\n' "$1" "${F[$1]}" >>"$GH/keys.tsv"
}
# sign DAY SIGNER TARGET...: SIGNER certifies every user ID of each TARGET
sign() {
	local d=$1 s=$2
	shift 2
	for x; do
		g "$d" -u "${F[$s]}" --quick-sign-key "${F[$x]}" 2>/dev/null
	done
}
# revoke_key DAY NAME [REASON]: a key revocation dated DAY, imported.
# REASON, gpg's menu: 0 none (the default), 1 compromised, 2 superseded,
# 3 no longer used
revoke_key() {
	day "$1"
	# not --batch: gpg refuses --gen-revoke in batch mode; --command-fd answers
	printf 'y\n%s\n\ny\n' "${3:-0}" | gpg --homedir "$GH/g" --no-tty --pinentry-mode loopback --passphrase '' \
		--command-fd 0 --no-auto-check-trustdb --faked-system-time "$TS" \
		-o "$GH/$2.rev" --gen-revoke "${F[$2]}" >/dev/null 2>&1
	g "$1" --import "$GH/$2.rev" >/dev/null 2>&1
}
