#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Bash completion (contrib/ksp.bash-completion) against the command table:
# in a plain bash without the bash-completion package, every command and
# subcommand completes, every option of each command's getopt table
# (KSP_LIST_OPTIONS=1 makes ksp print it) is offered, nothing offered is
# refused as an unknown option, and enumerated values complete.
. "$(dirname "$0")/test-lib.sh"

test_begin completion
script=$TOP/contrib/ksp.bash-completion
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP_BIN_C=$KSP_BIN || KSP_BIN_C=$KSP_BIN
# comp WORD...: the completions of the last word (a plain bash, no bash-completion)
comp() {
	bash --norc --noprofile -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ksp; printf "%s\n" "${COMPREPLY[@]}"' \
		comp "$script" "$KSP_BIN_C" "$@" 2>&1
}
has_all() { # MSG WANTED... -- GOT...: every wanted word is in got
	local msg=$1 miss="" w; shift
	local -a want=() got=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done; shift
	got=("$@")
	for w in "${want[@]}"; do
		case " ${got[*]} " in *" $w "*) ;; *) miss="$miss $w" ;; esac
	done
	expect_eq "$miss" "" "$msg"
}

! bash --norc -c 'declare -F _init_completion' >/dev/null 2>&1 && _test_pass "no bash-completion in this bash" ||
	_test_fail "bash-completion loaded in a --norc bash"

# commands from the top-level help (the table)
top=$($KSP_BIN help | awk '/^  [a-z]/ { print $1 }' | sort -u)
has_all "top-level commands" $top -- $(comp "")
groups=""
for c in $top; do $KSP_BIN help "$c" | grep -q '^Commands:' && groups="$groups $c"; done
expect_eq "$(echo $groups)" "party wot" "command groups"
cmds=""
for g in $groups; do
	subs=$($KSP_BIN help "$g" | awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
	has_all "$g subcommands" $subs -- $(comp "$g" "")
	for s in $subs; do cmds="$cmds $g:$s"; done
done
has_all "wot key and wot path" key path -- $(comp wot "")
for c in $top; do case " $groups " in *" $c "*) ;; *) [ "$c" = help ] || cmds="$cmds $c" ;; esac; done

# every option of every command's table is offered, and every offered one is in the table
n=0
for c in $cmds; do
	args=(${c/:/ })
	table=$(KSP_LIST_OPTIONS=1 $KSP_BIN "${args[@]}" </dev/null 2>/dev/null | grep -- '^--' | sort -u)
	[ -n "$table" ] || { _test_fail "${args[*]}: no option table printed"; continue; }
	# trust: one table for every model (--model gnupg parses no other)
	[ "$c" = trust ] && { [ "$(KSP_LIST_OPTIONS=1 $KSP_BIN trust --model gnupg </dev/null 2>/dev/null |
		grep -- '^--' | sort -u)" = "$table" ] && _test_pass "trust: one option table" ||
		_test_fail "trust --model gnupg parses with another table"; }
	# options of a shared table that this command refuses ("--all is for 'wot path'")
	own=""
	for o in $table; do
		$KSP_BIN -d "$TEST_TMP/none.db" "${args[@]}" "$o" x </dev/null 2>&1 | grep -qE -- "$o is for|bad option '$o" || own="$own $o"
	done
	got=$(comp "${args[@]}" --)
	has_all "ksp ${args[*]}: table options completed" $own -- $got
	extra=""
	for o in $got; do
		case $o in --help) continue ;; esac
		grep -qx -- "$o" <<<"$table" || extra="$extra $o"
	done
	expect_eq "$extra" "" "ksp ${args[*]}: completed options are all in the table"
	n=$((n + 1))
done
[ "$n" -ge 18 ] && _test_pass "$n commands checked" || _test_fail "only $n commands checked"

# values
expect_eq "$(comp party sign --level "" | tr '\n' ' ')" "0 1 2 3 " "--level 0-3"
has_all "--format of sheet" txt html pdf -- $(comp party sheet --format "")
has_all "--paper" a4 letter -- $(comp party slips --paper "")
has_all "graph -T" svg png pdf dot -- $(comp graph -T "")
has_all "--model" paths gnupg -- $(comp trust --model "")
mkdir -p dirA && : >fileB
has_all "-d completes files" dirA fileB -- $(comp -d "")
has_all "--outbox completes directories" dirA -- $(comp party sign --outbox "")
case " $(comp party sign --outbox "" | tr '\n' ' ') " in *" fileB "*) _test_fail "--outbox offers a file" ;; *) _test_pass "--outbox: directories only" ;; esac
expect_eq "$(echo $(comp party sign --as ""))" "" "--as FPR: nothing to offer"
# the installed name and ./ksp both complete
bash --norc -c "source '$script'; complete -p ksp" 2>/dev/null | grep -q '_ksp' && _test_pass "complete -F _ksp ksp" || _test_fail "not registered for ksp"

test_done
