#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Global options (-d, --db, --json, -q, -v) before or after the command;
# one error line per mistake, naming the option; with --json an error is
# also a JSON object on standard output; --json on every reporting command.
. "$(dirname "$0")/test-lib.sh"

test_begin options
# fontconfig's own leak when a PDF is drawn (see tests/keyrings/sheet/*.supp)
export LSAN_OPTIONS="suppressions=$TOP/tests/keyrings/sheet/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fx=$TOP/tests/keyrings
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
one_line() { # MSG: stderr is exactly one line
	expect_eq "$(wc -l <"$ERR" | tr -d ' ')" 1 "$1: one error line ($(head -3 "$ERR" | tr '\n' '|'))"
}

# -d after the command (the report of the issue: two confusing errors)
expect_code 0 $KSP party init --name x --date 2030-01-01 -d x.db
[ -f x.db ] && _test_pass "store made where -d said" || _test_fail "-d after the command: no x.db"
[ ! -e ksp.db ] && _test_pass "no ksp.db" || _test_fail "-d after the command ignored: ksp.db made"
expect_code 0 $KSP party list --db=x.db
expect_code 0 $KSP party add "$fx/alice-rsa.asc" --db x.db --allow-no-email
expect_code 0 $KSP party list -d x.db --json
expect_match "$OUT" '^\{"format_version":1'
# -q after the command silences the report on stderr
expect_code 0 $KSP party add -d x.db "$fx/bob-ed25519.asc" -q
expect_eq "$(wc -c <"$ERR" | tr -d ' ')" 0 "-q after the command: nothing on stderr"
# -v after the command is accepted
expect_code 0 $KSP party list -d x.db -v
# a command's own -q (trust: the verdict line only) stays the command's
expect_code 1 $KSP trust -d x.db -q --core-fpr "$(sqlite3 x.db 'SELECT fpr FROM keys LIMIT 1')" 1111111111111111111111111111111111111111
expect_eq "$(wc -l <"$OUT" | tr -d ' ')" 1 "trust -q: the verdict line only"
# a value that looks like a global option is the option's value
expect_code 0 $KSP party init --name -d --date 2030-01-01 -d y.db
expect_eq "$(sqlite3 y.db 'SELECT name FROM party')" "-d" "--name -d: the name is '-d'"

# one line per mistake, naming the option
expect_code 2 $KSP party init --name x --date 2030-01-01 -d z.db --bogus
one_line "unknown long option"
expect_match "$ERR" "^ksp: party init: unknown option '--bogus' \(usage: 'ksp help party init'\)$"
[ ! -e z.db ] && _test_pass "nothing made on a usage error" || _test_fail "z.db made despite the bad option"
expect_code 2 $KSP party init -z
one_line "unknown short option"
expect_match "$ERR" "unknown option '-z'"
expect_code 2 $KSP party init --name
one_line "missing value"
expect_match "$ERR" "^ksp: party init: option '--name' needs a value"
expect_code 2 $KSP party list -d
one_line "missing store"
expect_code 2 $KSP party list --json=1 -d x.db
one_line "value given to a flag"
expect_match "$ERR" "option '--json' takes no value"
expect_code 2 $KSP --bogus party list
one_line "unknown global option"
expect_code 2 $KSP party init --date 2030-01-01
one_line "missing required option"
expect_code 2 $KSP party list extra -d x.db
one_line "unexpected argument"
expect_code 2 $KSP wot stats --top
one_line "wot stats --top without value"
# a hostile option name is shown escaped
expect_code 2 $KSP party list $'--\e[31mred'
one_line "hostile option"
if grep -q $'\e' "$ERR"; then _test_fail "raw escape in the message"; else _test_pass "option name escaped"; fi

# --json: an error is a JSON object on stdout too
expect_code 2 $KSP --json -d nothere.db party list
one_line "JSON error: stderr"
expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["file"], d["exit"], "no such store" in d["error"])' "$OUT")" \
	"nothere.db 2 True" "JSON error object names the store"
expect_code 2 $KSP wot stats --top x --json
expect_eq "$(jget "$OUT" 'd["file"] is None and "--top" in d["error"]')" "True" "JSON usage error"
expect_code 2 $KSP import /nonexistent/file.asc --json -d x.db
expect_eq "$(jget "$OUT" 'd["file"]')" "/nonexistent/file.asc" "JSON error names the file given"
# the command's partial report and the error are one JSON object
expect_eq "$(jget "$OUT" '(d["format_version"], d["new"], d["exit"])')" "(1, 0, 2)" "report and error in one object"
# no JSON on success beyond the command's own, none without --json
expect_code 2 $KSP -d nothere.db party list
expect_eq "$(wc -c <"$OUT" | tr -d ' ')" 0 "no JSON without --json"

# --json on the reporting commands that had none
expect_code 0 $KSP -d x.db party close --json
expect_code 0 $KSP -d x.db --json party sheet -o s.pdf
expect_eq "$(jget "$OUT" '(d["file"], d["kind"], d["format"], d["pages"], d["missing_glyphs"])')" \
	"('s.pdf', 'sheet', 'pdf', 1, [])" "party sheet --json"
expect_code 0 $KSP -d x.db party slips -o s.html --json
expect_eq "$(jget "$OUT" '(d["kind"], d["format"], d["pages"])')" "('slips', 'html', None)" "party slips --json"
expect_code 2 $KSP -d x.db party sheet --json
one_line "sheet --json to stdout"
expect_code 0 $KSP -d x.db party export -o party.asc --json
expect_eq "$(jget "$OUT" '(d["file"], d["keys"], d["binary"], d["bytes"])')" "('party.asc', 2, False, $(wc -c <party.asc))" "party export --json"
expect_code 2 $KSP -d x.db party export --json
one_line "export --json to stdout"
expect_code 0 $KSP -d x.db party reopen --reason "late" --json
expect_eq "$(jget "$OUT" '(d["reopened"], d["kept_version"], d["reason"])')" "(True, 1, 'late')" "party reopen --json"
expect_code 0 $KSP -d x.db party remove 2 --json
expect_eq "$(jget "$OUT" '(d["removed"], d["count"])')" "(['2'], 1)" "party remove --json"

test_done
