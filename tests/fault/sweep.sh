#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Fault sweep: run every command of tests/fault/commands.sh under
# tests/fault/ksp-fault (ASan + UBSan, allocator and file I/O wrapped, see
# tests/fault/fault.c) with the Nth allocation, then the Nth I/O call,
# failing, for N = 1, 1+S, 1+2S, ... until a run completes with no failure
# injected (S = FAULT_STRIDE, default 1: every point).
#
# A run where a failure was injected is clean when either
#   - it exits 2 with exactly one line on stderr, starting "ksp: ", and the
#     store passes PRAGMA integrity_check with exactly the rows it had
#     before (same .dump; no store at all, or an empty one, if there was
#     none), or
#   - it exits 0, the failure having been tolerated (e.g. the private
#     gpg.conf could not be written, or close() of a file already read
#     failed), and stdout, stderr, the output file and the row counts of
#     every table equal those of the reference run without a failure;
# and in both cases: no sanitizer report (no leak, no overflow, no UB), no
# file left in TMPDIR (no temporary GnuPG home), no file beside the store
# but the setup's and, after a successful run, the command's output file,
# and GNUPGHOME never created.
#
# A run that is not clean but matches tests/fault/known.tsv (a reported
# bug) counts as known and does not fail the sweep, unless FAULT_STRICT=1.
#
# FAULT_JOBS (default 2) commands are swept at a time.
#
# Usage: tests/fault/sweep.sh [-v] [--only SUBSTRING] [--kind alloc|io]
# Results: tests/fault/tmp/fault.tsv (read by tests/fault/report.sh);
# details of every unclean run: tests/fault/tmp/failures.log; the call
# sites whose failure was tolerated: tests/fault/tmp/tolerated.tsv.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
FAULT=${KSP_FAULT_BIN:-$top/tests/fault/ksp-fault}
KSP_BIN=${KSP_BIN:-$FAULT} # setups: the same binary, no failure injected
FX=$top/tests/keyrings
SK=$top/tests/data
STRIDE=${FAULT_STRIDE:-1}
W=$top/tests/fault/tmp
only="" kinds="alloc io" verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=1 ;;
	--only) only=$2; shift ;;
	--kind) kinds=$2; shift ;;
	*) echo "usage: $0 [-v] [--only SUBSTRING] [--kind alloc|io]" >&2; exit 2 ;;
	esac
	shift
done
for b in "$FAULT" "$KSP_BIN"; do
	[ -x "$b" ] || { echo "sweep: $b is not built (run make tests/fault/ksp-fault)" >&2; exit 2; }
done
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
# full stacks (the slow unwinder) so that suppressions can name library functions
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=97:fast_unwind_on_malloc=0
export LSAN_OPTIONS=exitcode=98:print_suppressions=0:suppressions=$top/tests/fault/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=96
unset KSP_DB KSP_LOG KSP_FAULT_N KSP_FAULT_KIND KSP_FAULT_REPORT
# a private work directory: several sweeps may run at once (make check in
# two shells); the results are moved into $W at the end
mkdir -p "$W" || exit 2
# under /tmp, not in the tree: the runs' GnuPG homes (the setups' and ksp's
# own, in each run's TMPDIR) hold gpg-agent's sockets, whose paths must fit
# in 108 bytes, and a clone's own path can be long (CI's is)
WW=$(mktemp -d /tmp/ksp-sweep.XXXXXX) || exit 2
# GnuPG homes for the setups: short paths (gpg-agent's socket)
SHORT_TMP=$(mktemp -d /tmp/ksp-sweep.XXXXXX) || exit 2
export SHORT_TMP
trap 'rm -rf "$WW" "$SHORT_TMP"' EXIT
trap 'rm -rf "$WW" "$SHORT_TMP"; exit 130' INT TERM
mkdir -p "$WW/setup" "$WW/run" "$WW/ref" || exit 2
RESULTS=$WW/fault.tsv
LOG=$WW/failures.log
TOLERATED=$WW/tolerated.tsv
: >"$LOG"
: >"$TOLERATED"

die() { echo "sweep: $*" >&2; exit 2; }

# ---- the table ------------------------------------------------------------
C_NAME=() C_SETUP=() C_OUT=() C_ARGS=()
setup() { # NAME BASE SHELL
	local d=$WW/setup/$1
	mkdir -p "$d" "$WW/setup/$1.tmp" || exit 2
	if [ "$2" != - ]; then
		[ -d "$WW/setup/$2" ] || die "setup $1: no setup $2 before it"
		cp -a "$WW/setup/$2/." "$d/"
	fi
	(
		cd "$d" || exit 2
		export TMPDIR=$WW/setup/$1.tmp GNUPGHOME=$WW/setup/$1.gnupg-unused
		ksp() { "$KSP_BIN" -d s.db "$@"; }
		eval "$3"
	) >"$WW/setup/$1.log" 2>&1 || { cat "$WW/setup/$1.log" >&2; die "setup $1 failed"; }
	# fold the WAL into the file, so a copy of s.db is the whole store
	if [ -f "$d/s.db" ]; then
		sqlite3 "$d/s.db" 'PRAGMA journal_mode=DELETE' >/dev/null || die "setup $1: sqlite3"
	fi
	rm -rf "$WW/setup/$1.tmp"
}
participant() { # SETUP N: the fingerprint of participant N in that setup's store
	sqlite3 "$WW/setup/$1/s.db" "SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id WHERE p.ord = $2"
}
cmd() { # NAME SETUP OUTPUT ARGS...
	local i=${#C_NAME[@]} q
	C_NAME[$i]=$1 C_SETUP[$i]=$2 C_OUT[$i]=$3 C_FAIL[$i]=""
	shift 3
	printf -v q '%q ' "$@"
	C_ARGS[$i]=$q
}
cmdfail() { # NAME SETUP ARGS...: a command that must fail, failure injected or not
	cmd "$1" "$2" - "${@:3}"
	C_FAIL[$((${#C_NAME[@]} - 1))]=1
}
. "$top/tests/fault/commands.sh"

# ---- helpers --------------------------------------------------------------
# every table's row count, "t=n t=n ...", or "none" without a store
rowcounts() { # DB
	[ -s "$1" ] || { echo none; return; }
	local t out=""
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type='table' AND name != 'graph_state' ORDER BY name"); do
		out+="$t=$(sqlite3 "$1" "SELECT count(*) FROM \"$t\"") "
	done
	echo "${out:-empty}"
}
dumpsum() { # DB
	[ -s "$1" ] || { echo none; return; }
	sqlite3 "$1" .dump | sha256sum | cut -d' ' -f1
}
# files in a directory, but the store's own
# the store's own files are not listed; nor is the graph snapshot s.db-wot, a
# cache that a failure may leave unwritten (the next query rebuilds it)
listing() { # DIR
	(cd "$1" && find . -mindepth 1 ! -name s.db ! -name s.db-wal ! -name s.db-shm ! -name s.db-journal \
		! -name s.db-wot ! -name 's.db-wot.??????' | LC_ALL=C sort)
}
integrity() { # DB
	[ -s "$1" ] || { echo ok; return; }
	sqlite3 "$1" 'PRAGMA integrity_check' 2>&1 | head -n 3 | tr '\n' ' ' | sed 's/ $//'
}

# run_one I KIND N DEST: one run of command I into DEST/ (stdout, stderr,
# report, dir/, tmp/); sets rc, calls, injected, fn, stack
run_one() {
	local i=$1 kind=$2 n=$3 r=$4 args
	rm -rf "$r"
	mkdir -p "$r/dir" "$r/tmp" || exit 2
	[ "${C_SETUP[$i]}" = - ] || cp -a "$WW/setup/${C_SETUP[$i]}/." "$r/dir/"
	eval "args=(${C_ARGS[$i]})"
	(
		cd "$r/dir" || exit 2
		TMPDIR=$r/tmp GNUPGHOME=$r/gnupg-unused KSP_FAULT_KIND=$kind KSP_FAULT_N=$n \
			KSP_FAULT_REPORT=$r/report exec "$FAULT" -d s.db "${args[@]}"
	) </dev/null >"$r/stdout" 2>"$r/stderr"
	rc=$?
	calls=-1 injected=0 fn=- stack=
	if [ -f "$r/report" ]; then
		local line
		line=$(cat "$r/report")
		calls=$(sed -n 's/.*calls=\([0-9]*\).*/\1/p' <<<"$line")
		injected=$(sed -n 's/.*injected=\([01]\).*/\1/p' <<<"$line")
		fn=$(sed -n 's/.*fn=\([^ ]*\).*/\1/p' <<<"$line")
		stack=$(sed -n 's/.*stack=\([0-9a-fx,]*\).*/\1/p' <<<"$line")
	fi
}

where() { # the failed call and its callers: "fn (file:line) < caller (file:line)"
	[ -n "$stack" ] || { echo "?"; return; }
	local a f out="" k=0
	for a in ${stack//,/ }; do
		f=$(addr2line -f -p -e "$FAULT" "$(printf '0x%x' $((a - 1)))" 2>/dev/null |
			sed -e "s|$top/||g" -e 's/ (discriminator [0-9]*)//' -e 's/ at / (/' -e 's/$/)/' | head -n 1)
		case $f in *tests/fault/fault.c* | *"??:0"* | *"??:?"*) continue ;; esac
		out+="${out:+ < }$f"
		k=$((k + 1))
		[ "$k" -lt 6 ] || break
	done
	echo "$out"
}

# check_run I KIND N: judge the run in $WW/run against the reference in
# $WW/ref/I; prints nothing and returns 0 when clean, else the problems
problems=""
prob() { problems+="${problems:+; }$*"; }
check_run() {
	local i=$1 r=$RUN ref=$WW/ref/$1 setupdir=$WW/setup/${C_SETUP[$1]} out=${C_OUT[$1]}
	problems=""
	if grep -qE 'Sanitizer|runtime error:|AddressSanitizer|LeakSanitizer' "$r/stderr"; then
		prob "sanitizer report"
	fi
	[ -n "$(ls -A "$r/tmp")" ] && prob "left in TMPDIR: $(ls -A "$r/tmp" | tr '\n' ' ')"
	[ -e "$r/gnupg-unused" ] && prob "GNUPGHOME was created"
	[ "$(integrity "$r/dir/s.db")" = ok ] || prob "integrity_check: $(integrity "$r/dir/s.db")"
	if { [ "$injected" = 1 ] || [ -n "${C_FAIL[$i]}" ]; } && [ "$rc" = 2 ]; then
		outcome=failed
		[ "$(wc -l <"$r/stderr")" = 1 ] && grep -q '^ksp: ' "$r/stderr" ||
			prob "stderr is not one 'ksp: ' line: $(head -c 300 "$r/stderr" | tr '\n' '|')"
		if [ "${C_SETUP[$i]}" = - ]; then
			case $(rowcounts "$r/dir/s.db") in
			none | empty) ;;
			*[1-9]*=[0-9]* | *=[1-9]*) prob "new store not empty: $(rowcounts "$r/dir/s.db")" ;;
			esac
		elif [ "$(dumpsum "$r/dir/s.db")" != "$(dumpsum "$setupdir/s.db")" ]; then
			prob "store changed: $(rowcounts "$r/dir/s.db") (before: $(rowcounts "$setupdir/s.db"))"
		fi
		local want
		want=$(if [ "${C_SETUP[$i]}" != - ]; then listing "$setupdir"; fi)
		[ "$(listing "$r/dir")" = "$want" ] || prob "files left beside the store: $(listing "$r/dir" | tr '\n' ' ')"
	elif [ "$rc" = "$(cat "$ref/rc")" ]; then
		# success (the failure, if any, was tolerated): all as the reference
		outcome=$([ "$injected" = 1 ] && echo tolerated || echo final)
		cmp -s "$r/stdout" "$ref/stdout" || prob "stdout differs from the reference"
		cmp -s "$r/stderr" "$ref/stderr" || prob "stderr differs: $(head -c 300 "$r/stderr" | tr '\n' '|')"
		[ "$(rowcounts "$r/dir/s.db")" = "$(cat "$ref/rows")" ] ||
			prob "rows $(rowcounts "$r/dir/s.db"), reference $(cat "$ref/rows")"
		[ "$(listing "$r/dir")" = "$(cat "$ref/files")" ] || prob "files differ: $(listing "$r/dir" | tr '\n' ' ')"
		if [ "$out" != - ] && ! cmp -s "$r/dir/$out" "$ref/dir/$out"; then
			prob "$out differs from the reference"
		fi
	else
		outcome=bad
		prob "exit status $rc$([ "$injected" = 1 ] || echo ' without a failure injected'): $(head -c 300 "$r/stderr" | tr '\n' '|')"
	fi
	[ -z "$problems" ]
}

# is_known NAME KIND WHERE: a line of tests/fault/known.tsv matches; sets known_why
is_known() {
	local c k pat why
	known_why=""
	while IFS=$'\t' read -r c k pat why; do
		case $c in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254
		case $1 in $c) ;; *) continue ;; esac
		[ "$k" = '*' ] || [ "$k" = "$2" ] || continue
		case $3 in *"$pat"*) known_why=$why; return 0 ;; esac
	done <"$top/tests/fault/known.tsv"
	return 1
}

# ---- the sweep ------------------------------------------------------------
# sweep_cmd I: every point of command I; writes $WW/res/I.{tsv,log,tol,out}
sweep_cmd() {
	local i=$1 name=${C_NAME[$1]} ref=$WW/ref/$1 kind first count step n runs nfail ntol nbad nknown tag site
	local res=$WW/res/$i t0=$SECONDS
	RUN=$WW/run/$i
	: >"$res.tsv"
	: >"$res.log"
	: >"$res.tol"
	: >"$res.out"
	# the reference: no failure, count the calls of each kind
	for kind in $kinds; do
		run_one "$i" "$kind" 0 "$ref.$kind"
		echo "$calls" >"$ref.$kind/count"
	done
	first=${kinds%% *}
	mv "$ref.$first" "$ref"
	echo "$rc" >"$ref/rc"
	rowcounts "$ref/dir/s.db" >"$ref/rows"
	listing "$ref/dir" >"$ref/files"
	if { [ "$rc" != 0 ] && [ "$rc" != 1 ] && ! { [ -n "${C_FAIL[$i]}" ] && [ "$rc" = 2 ]; }; } ||
		grep -qE 'Sanitizer|runtime error:' "$ref/stderr"; then
		{
			echo "== $name: the reference run failed (exit $rc)"
			sed 's/^/   stderr| /' "$ref/stderr" | head -n 40
		} >>"$res.log"
		echo "  FAULT   $name: the reference run failed (exit $rc): $(head -c 200 "$ref/stderr" | tr '\n' '|')" >"$res.out"
		printf '%s\t%s\t0\t1\t0\t0\t1\t1\t0\n' "$name" "$first" >>"$res.tsv"
		return
	fi
	for kind in $kinds; do
		if [ "$kind" = "$first" ]; then count=$(cat "$ref/count"); else count=$(cat "$ref.$kind/count"); fi
		step=1
		[ "$kind" = alloc ] && step=$STRIDE
		n=1 runs=0 nfail=0 ntol=0 nbad=0 nknown=0
		while :; do
			run_one "$i" "$kind" "$n" "$RUN"
			runs=$((runs + 1))
			if ! check_run "$i"; then
				outcome=bad
				site=$(where)
				if [ "${FAULT_STRICT:-0}" != 1 ] && is_known "$name" "$kind" "$site"; then
					nknown=$((nknown + 1))
					tag="KNOWN $name"
				else
					nbad=$((nbad + 1))
					tag=$name known_why=""
				fi
				{
					echo "== $tag: $kind failure N=$n ($fn at $site): exit $rc"
					echo "   $problems"
					[ -z "$known_why" ] || echo "   known: $known_why"
					sed 's/^/   stderr| /' "$RUN/stderr" | head -n 40
				} >>"$res.log"
				[ "$verbose" = 1 ] && tail -n 3 "$res.log" >&2
			fi
			case $outcome in
			failed) nfail=$((nfail + 1)) ;;
			tolerated)
				ntol=$((ntol + 1))
				printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$n" "$fn" "$(where)" >>"$res.tol"
				;;
			esac
			[ "$injected" = 1 ] || break
			n=$((n + step))
			if [ "$n" -gt $((count * 2 + 50)) ]; then
				echo "== $name: $kind: still injecting at N=$n (count $count): stopped" >>"$res.log"
				nbad=$((nbad + 1))
				break
			fi
		done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$count" "$runs" "$nfail" "$ntol" "$nbad" "$step" "$nknown" >>"$res.tsv"
		printf '  FAULT   %-24s %-5s %4s points %4s runs: %s exit 2, %s tolerated, %s%s\n' "$name" "$kind" \
			"$count" "$runs" "$nfail" "$ntol" "$([ "$nbad" = 0 ] && echo clean || echo "$nbad NOT CLEAN")" \
			"$([ "$nknown" = 0 ] || echo ", $nknown known (tests/fault/known.tsv)")" >>"$res.out"
	done
	rm -rf "$ref.alloc" "$ref.io" "$RUN"
	printf '  FAULT   %-24s %d s\n' "$name" $((SECONDS - t0)) >>"$res.out"
}

rm -rf "$WW/res"
mkdir -p "$WW/res"
start=$SECONDS
jobs_max=${FAULT_JOBS:-2}
todo=()
for i in "${!C_NAME[@]}"; do
	[ -z "$only" ] || [[ ${C_NAME[$i]} == *"$only"* ]] || continue
	todo+=("$i")
done
# FAULT_JOBS commands at a time, each printed when it is done
running=0
for i in "${todo[@]}"; do
	if [ "$running" -ge "$jobs_max" ]; then
		wait -n
		running=$((running - 1))
	fi
	(sweep_cmd "$i"; cat "$WW/res/$i.out") &
	running=$((running + 1))
done
wait
printf '# command\tkind\tpoints\truns\tfailed_clean\ttolerated\tbad\tstride\tknown\n' >"$RESULTS"
for i in "${todo[@]}"; do
	cat "$WW/res/$i.tsv" >>"$RESULTS"
	cat "$WW/res/$i.log" >>"$LOG"
	cat "$WW/res/$i.tol" >>"$TOLERATED"
done
read -r total_runs total_bad total_known < <(awk -F'\t' '!/^#/ { r += $4; b += $7; k += $9 } END { print r + 0, b + 0, k + 0 }' "$RESULTS")
for f in fault.tsv failures.log tolerated.tsv; do
	mv "$WW/$f" "$W/$f.new.$$" && mv "$W/$f.new.$$" "$W/$f"
done
LOG=$W/failures.log
echo "fault sweep: $total_runs runs in $((SECONDS - start)) s, $total_bad not clean, $total_known known$([ "$total_bad$total_known" = 00 ] || echo ": see $LOG")"
[ "$total_bad" = 0 ]
