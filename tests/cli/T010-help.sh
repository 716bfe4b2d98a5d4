#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp help, --version, --help and unknown commands.
. "$(dirname "$0")/test-lib.sh"

test_begin help

expect_code 0 $KSP help
expect_match "$OUT" '^Usage: ksp '
expect_match "$OUT" '^  party '
expect_eq "$(wc -c <"$ERR" | tr -d ' ')" 0 "ksp help writes nothing to stderr"

expect_code 0 $KSP --help
expect_match "$OUT" '^  party '

expect_code 0 $KSP --version
expect_eq "$(cat "$OUT")" "ksp 0.1" "ksp --version"
expect_code 0 $KSP -V
expect_eq "$(cat "$OUT")" "ksp 0.1" "ksp -V"

expect_code 2 $KSP no-such-command
expect_match "$ERR" "unknown command 'no-such-command'"
expect_eq "$(wc -c <"$OUT" | tr -d ' ')" 0 "unknown command writes nothing to stdout"

expect_code 2 $KSP party no-such-subcommand
expect_match "$ERR" 'unknown command'

expect_code 2 $KSP help no-such-command
expect_match "$ERR" 'no such command'

# no command at all is a usage error, with the usage on stderr
expect_code 2 $KSP
expect_match "$ERR" '^Usage: ksp '

expect_code 0 $KSP party --help
expect_match "$OUT" '^Usage: ksp party'
expect_match "$OUT" '^  init '
party_help=$(cat "$OUT")
expect_code 0 $KSP help party
expect_eq "$(cat "$OUT")" "$party_help" "'ksp help party' equals 'ksp party --help'"

expect_code 0 $KSP help party init
expect_match "$OUT" '^Usage: ksp party init'
help_init=$(cat "$OUT")
expect_code 0 $KSP party init --help
expect_eq "$(cat "$OUT")" "$help_init" "'ksp help party init' equals 'ksp party init --help'"
expect_code 0 $KSP party init -h
expect_eq "$(cat "$OUT")" "$help_init" "'ksp party init -h' equals 'ksp help party init'"

# --help must not have run the command: no store was created
expect_eq "$(ls -A "$TEST_TMP" | grep -c '\.db$')" 0 "--help creates no store"

test_done
