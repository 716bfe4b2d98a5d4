# SPDX-License-Identifier: LGPL-2.1-or-later
# Shell library for the CLI tests; source it from a tests/cli/T*.sh script:
#
#   . "$(dirname "$0")/test-lib.sh"
#   test_begin help
#   expect_code 0 $KSP help            # $OUT / $ERR: the command's stdout / stderr
#   expect_match "$OUT" '^Usage: ksp'
#   expect_eq "$(cat "$OUT")" "..." "help text"
#   test_done
#
# Provides:
#   TOP        the source tree (found from the test script's location)
#   KSP        the ksp binary, absolute; under valgrind when KSP_VALGRIND=1.
#              Use it unquoted ($KSP args...), as it may hold several words.
#   TEST_TMP   tests/cli/tmp/SCRIPT, emptied at start; the current directory
#   GNUPGHOME  a private, empty GnuPG home (mode 700), removed at exit, so
#              that no test ever touches ~/.gnupg
#   OUT, ERR   files with the stdout and stderr of the last expect_code

TEST_SCRIPT=$(basename "$0" .sh)
TOP=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
TEST_NAME=$TEST_SCRIPT
TEST_PASSED=0
TEST_FAILED=0

KSP_BIN="$TOP/ksp"
if [ "${KSP_VALGRIND:-0}" = 1 ]; then
	KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 $KSP_BIN"
else
	KSP=$KSP_BIN
fi

# Find the freshly built library even when run by hand (make check sets it).
LD_LIBRARY_PATH="$TOP/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# Predictable messages; nothing from the user's environment.
LC_ALL=C
export LC_ALL
unset KSP_DB

TEST_TMP="$TOP/tests/cli/tmp/$TEST_SCRIPT"
rm -rf "$TEST_TMP"
mkdir -p "$TEST_TMP" || exit 2
OUT="$TEST_TMP/stdout"
ERR="$TEST_TMP/stderr"
: >"$OUT"
: >"$ERR"

GNUPGHOME=$(mktemp -d "${TMPDIR:-/tmp}/ksp-gnupg.XXXXXX") || exit 2
chmod 700 "$GNUPGHOME"
export GNUPGHOME

_test_cleanup() {
	if [ -n "${GNUPGHOME:-}" ] && [ -d "$GNUPGHOME" ]; then
		# stop any agent/dirmngr a test started in this home
		if command -v gpgconf >/dev/null 2>&1; then
			gpgconf --homedir "$GNUPGHOME" --kill all >/dev/null 2>&1 || true
		fi
		rm -rf "$GNUPGHOME"
	fi
}
trap _test_cleanup EXIT
trap '_test_cleanup; exit 130' INT TERM

cd "$TEST_TMP" || exit 2

if [ ! -x "$KSP_BIN" ]; then
	echo "FAIL $TEST_SCRIPT: $KSP_BIN is not built (run make)"
	echo "$TEST_SCRIPT: 0 passed, 1 failed"
	exit 1
fi

_test_pass() {
	TEST_PASSED=$((TEST_PASSED + 1))
	if [ "${KSP_TEST_VERBOSE:-0}" = 1 ]; then
		echo "ok   $TEST_NAME: $1"
	fi
}

_test_fail() {
	TEST_FAILED=$((TEST_FAILED + 1))
	echo "FAIL $TEST_NAME: $1"
}

# test_begin NAME: name the checks that follow (and the summary line).
test_begin() {
	TEST_NAME=$1
}

# expect_eq ACTUAL EXPECTED MSG
expect_eq() {
	if [ "$1" = "$2" ]; then
		_test_pass "$3"
	else
		_test_fail "$3"
		printf '  expected: %s\n  actual:   %s\n' "$2" "$1"
	fi
}

# expect_code N CMD...: run CMD (stdin from /dev/null, output to $OUT and
# $ERR) and check its exit status.
expect_code() {
	_want=$1
	shift
	"$@" </dev/null >"$OUT" 2>"$ERR"
	_got=$?
	if [ "$_got" -eq "$_want" ]; then
		_test_pass "exit $_want: $*"
	else
		_test_fail "exit $_got, expected $_want: $*"
		if [ -s "$ERR" ]; then
			echo "  stderr:"
			head -n 20 "$ERR" | sed 's/^/    /'
		fi
	fi
	return 0
}

# expect_match FILE REGEX: some line of FILE matches the extended REGEX.
expect_match() {
	if [ -f "$1" ] && grep -Eq -- "$2" "$1"; then
		_test_pass "$(basename "$1") matches /$2/"
	else
		_test_fail "$(basename "$1") does not match /$2/"
		if [ -f "$1" ]; then
			head -n 20 "$1" | sed 's/^/    /'
		else
			echo "  (no such file: $1)"
		fi
	fi
}

# test_done: print the summary; exit 1 if anything failed.
test_done() {
	echo "$TEST_NAME: $TEST_PASSED passed, $TEST_FAILED failed"
	if [ "$TEST_FAILED" -ne 0 ]; then
		exit 1
	fi
	exit 0
}
