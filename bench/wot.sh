#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/wot.sh: ksp's web-of-trust commands beside their peers, on the same
# input, in one run; prints a table and writes it to bench/results-wot.md.
#
#   Debian keyring   ksp wot load + wot stats       vs  gpg --import + gpg --check-sigs
#                    ksp wot load again: unchanged, and with 1% of the keys
#                    changed (tests/tools/keyring-vary.py), vs the first load
#                    (wall and CPU; also for the synthetic keyrings up to
#                    KSP_BENCH_INCR_MAX keys, default 10^5)
#                    ksp wot stats --structural --keyring (no store), and
#                    ksp wot load --no-verify + wot stats --structural
#                                                   vs  pgpring | process_keys; keyanalyze
#   synthetic WoT    (tests/tools/gen-wot, 10^4, 10^5, 10^6 keys, cached in
#                    bench/cache/) the same structural comparison, ksp's
#                    verification rate, all-pairs MSD time, peak memory
#
# Environment: KSP_BENCH_QUICK=1 only 10^4 synthetic keys (and Debian);
# KSP_BENCH_WOT_SIZES="10000 100000" to choose; KSP_BENCH_CACHE=DIR for the
# generated keyrings; KSP_BENCH_RESULTS=FILE for the table (- = none);
# KSP_BENCH_VERIFY_MAX=N largest synthetic size whose verified load is run
# (default: all; 10^6 keys take about 2.5 minutes to load and 8 for the
# MSD of their strong set); KSP_BENCH_KA_TIMEOUT=S stops keyanalyze after S seconds (default
# 1200; its time is then shown as a lower bound); KSP_BENCH_NO_KA=1 runs no
# keyanalyze; KSP_BENCH_NO_GPG=1 no gpg (its Debian rows are left out).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksp="$top/ksp"
gen="$top/tests/tools/gen-wot"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LC_ALL=C
ring=/usr/share/keyrings/debian-keyring.gpg
cache=${KSP_BENCH_CACHE:-$top/bench/cache}
results=${KSP_BENCH_RESULTS:-$top/bench/results-wot.md}
quick=${KSP_BENCH_QUICK:-0}
if [ -n "${KSP_BENCH_WOT_SIZES:-}" ]; then
	sizes=$KSP_BENCH_WOT_SIZES
elif [ "$quick" = 1 ]; then
	sizes="10000"
else
	sizes="10000 100000 1000000"
fi
verify_max=${KSP_BENCH_VERIFY_MAX:-1000000000}
ka_timeout=${KSP_BENCH_KA_TIMEOUT:-1200}
# the size the 10^5 targets apply to, and from which size on keyanalyze is
# only estimated (it is quadratic: 10^6 keys would take days)
mid=${KSP_BENCH_MID:-100000}
big=${KSP_BENCH_BIG:-1000000}
seed=bench
degree=10

for t in "$ksp" "$gen"; do
	[ -x "$t" ] || { echo "bench/wot.sh: $t is not built; run make" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench/wot.sh: /usr/bin/time missing; apt-get install time" >&2; exit 2; }
have_ka=1
for t in pgpring process_keys keyanalyze; do
	command -v $t >/dev/null || have_ka=0
done
[ "${KSP_BENCH_NO_KA:-0}" = 1 ] && have_ka=0
[ $have_ka = 1 ] || echo "bench/wot.sh: signing-party not installed (or KSP_BENCH_NO_KA=1); keyanalyze columns stay empty" >&2

w=$(mktemp -d "${TMPDIR:-/tmp}/ksp-bench-wot.XXXXXX")
cleanup() {
	[ -d "$w/gpg" ] && gpgconf --homedir "$w/gpg" --kill all >/dev/null 2>&1
	rm -rf "$w"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
mkdir -p "$cache"
ncpu=$(nproc)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# pgpring (signing-party 2.11) hashes only the first 6 octets of an ECC key
# packet (EdDSA, ECDSA, ECDH) for the fingerprint: such keys get a wrong key
# ID, and process_keys drops them as "not self-signed".  ecc-map.py lists
# "WRONG RIGHT" key IDs for every ECC primary key of a keyring (computed
# from the key packets, not timed); fix-ecc.awk substitutes them in
# pgpring's output (in the timed pipeline; it costs little).
cat >"$w/ecc-map.py" <<'PY'
import hashlib, mmap, sys
with open(sys.argv[1], "rb") as f:
    d = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
n, p, out = len(d), 0, []
while p < n:
    c = d[p]
    if not c & 0x80:
        break
    if c & 0x40:                      # new format
        tag, o = c & 0x3f, d[p + 1]
        if o < 192:
            h, l = 2, o
        elif o < 224:
            h, l = 3, ((o - 192) << 8) + d[p + 2] + 192
        elif o == 255:
            h, l = 6, int.from_bytes(d[p + 2:p + 6], "big")
        else:
            break                     # partial lengths: not in keyrings
    else:
        tag, lt = (c >> 2) & 15, c & 3
        if lt == 3:
            break
        h = 1 + (1, 2, 4)[lt]
        l = int.from_bytes(d[p + 1:p + h], "big")
    body = d[p + h:p + h + l]
    if tag == 6 and l > 6 and body[0] == 4 and body[5] not in (1, 2, 3, 16, 17, 20):
        wrong = hashlib.sha1(b"\x99\x00\x06" + body[:6]).hexdigest()[-16:]
        right = hashlib.sha1(b"\x99" + l.to_bytes(2, "big") + body).hexdigest()[-16:]
        out.append("%s %s\n" % (wrong.upper(), right.upper()))
    p += h + l
sys.stdout.write("".join(out))
PY
cat >"$w/fix-ecc.awk" <<'AWK'
BEGIN {
	FS = OFS = ":"
	while ((getline line < map) > 0) {
		split(line, a, " ")
		m[a[1]] = a[2]
	}
}
$1 == "pub" && ($5 in m) { $5 = m[$5] }
{ print }
AWK

# run NAME CMD...: time CMD; sets WALL[NAME] CPU[NAME] (user + sys) RSS[NAME]
# (KB, the largest process) RC[NAME]; output in $w/NAME.out and .err
declare -A WALL CPU RSS RC
run() {
	local name=$1 wl u s m
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$w/$name.time" "$@" >"$w/$name.out" 2>"$w/$name.err" </dev/null
	RC[$name]=$?
	read -r wl u s m < <(tail -n 1 "$w/$name.time")
	WALL[$name]=$wl
	CPU[$name]=$(echo "$u + $s" | bc -l)
	RSS[$name]=$m
	if [ "${RC[$name]}" != 0 ]; then
		echo "bench/wot.sh: $name failed (exit ${RC[$name]}): $(tail -n 1 "$w/$name.err")" >&2
	fi
}
f1() { printf '%.1f' "$1"; }
# verify_rate_row LABEL RUN-NAME CPUS-NOTE: the signatures a verifying
# "wot load -v" checked (its "N signatures checked in C CPU-seconds" line)
# per CPU-second of the whole load, per CPU-second of the checking alone,
# and per wall-clock second on all CPUs; the target row.  Sets VR_WHOLE, and
# VR_CHECK (the checking's CPU-seconds).
verify_rate_row() {
	local label=$1 name=$2 line n c
	VR_WHOLE="" VR_CHECK=""
	line=$(grep -m1 'signatures checked in' "$w/$name.err")
	n=$(echo "$line" | sed -n 's/.*: \([0-9]*\) signatures checked in .*/\1/p')
	c=$(echo "$line" | sed -n 's/.* signatures checked in \([0-9.]*\) CPU-seconds.*/\1/p')
	if [ -z "$n" ] || [ -z "$c" ]; then
		say "$name: no 'signatures checked' line"
		return
	fi
	VR_WHOLE=$(echo "$n / ${CPU[$name]}" | bc -l)
	VR_CHECK=$c
	row "$label" "verify: signatures per CPU-second" \
		"$(printf '%.0f' "$VR_WHOLE")/s/core over the whole load ($n signatures, $(f2 "${CPU[$name]}") CPU-s); checking alone $(printf '%.0f' "$(echo "$n / $c" | bc -l)")/s/core ($(f2 "$c") CPU-s)" \
		"" "" "≥ 30000/s/core" \
		"both cores: $(printf '%.0f' "$(echo "$n / ${WALL[$name]}" | bc -l)" ) signatures per wall-clock second of the load ($(f2 "${WALL[$name]}") s); met: $(met "$VR_WHOLE >= 30000")"
}
f2() { printf '%.2f' "$1"; }
ratio() { # PEER KSP
	if [ -n "$1" ] && [ -n "$2" ] && [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then
		printf '%.1f×' "$(echo "$1 / $2" | bc -l)"
	else
		echo "-"
	fi
}
met() { [ "$(echo "$1" | bc -l)" = 1 ] && echo yes || echo NO; }
mb() { printf '%.0f MB' "$(echo "$1 / 1024" | bc -l)"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d2 = d
    for p in k.split("."): d2 = d2[p]
    print(d2)' "$@"; }

rows=()
notes=()
row() { rows+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 |"); }
say() { echo "bench/wot.sh: $*" >&2; }

# the structural comparison: ksp load --no-verify + stats --structural
# against pgpring | process_keys ; keyanalyze.  Sets S_KSP S_KA (seconds).
structural() { # TAG KEYRING LABEL [MIN-RATIO]
	local tag=$1 kr=$2 label=$3 min=${4:-} ka_ss="-" peer="-" ok="" ge=""
	rm -f "$w/$tag-s.db"*
	run "$tag-sload" "$ksp" -d "$w/$tag-s.db" wot load --no-verify "$kr"
	run "$tag-sstats" "$ksp" -d "$w/$tag-s.db" --json wot stats --structural
	S_KSP=$(echo "${WALL[$tag-sload]} + ${WALL[$tag-sstats]}" | bc -l)
	SS_STRUCT=$(json "$w/$tag-sstats.out" strong_set_size 2>/dev/null || echo 0)
	DBSIZE=$(stat -c %s "$w/$tag-s.db" 2>/dev/null || echo 0)
	rm -f "$w/$tag-s.db"*
	# the same from the file, without a store (wot stats --keyring)
	run "$tag-scan" "$ksp" --json wot stats --structural --keyring "$kr"
	S_SCAN=${WALL[$tag-scan]}
	local scan_ss scan_same=no
	scan_ss=$(json "$w/$tag-scan.out" strong_set_size 2>/dev/null || echo 0)
	if python3 - "$w/$tag-sstats.out" "$w/$tag-scan.out" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("at", None); b.pop("at", None)
sys.exit(0 if a == b else 1)
PY
	then scan_same=yes; fi
	S_KA="" KA_RSS=""
	if [ $have_ka = 1 ] && [ "${SKIP_KA:-0}" = 0 ]; then
		mkdir -p "$w/$tag-ka"
		python3 "$w/ecc-map.py" "$kr" >"$w/$tag-ka/ecc.map"
		run "$tag-kaprep" bash -c "pgpring -S -k '$kr' | awk -v map='$w/$tag-ka/ecc.map' -f '$w/fix-ecc.awk' | process_keys > '$w/$tag-ka/preprocess.keys'"
		# keyanalyze is quadratic: stopped after KSP_BENCH_KA_TIMEOUT
		# seconds, its time is then a lower bound ("≥")
		run "$tag-ka" timeout "$ka_timeout" keyanalyze -i "$w/$tag-ka/preprocess.keys" -o "$w/$tag-ka/out"
		ge=""
		[ "${RC[$tag-ka]}" = 124 ] && ge="≥ "
		S_KA=$(echo "${WALL[$tag-kaprep]} + ${WALL[$tag-ka]}" | bc -l)
		ka_ss=$(sed -n 's/^\*\*\* \([0-9]*\) keys in this strongly connected set$/\1/p' \
			"$w/$tag-ka/out/othersets.txt" 2>/dev/null | sort -n | tail -n 1)
		KA_RSS=${RSS[$tag-ka]}
		rm -rf "$w/$tag-ka"
		peer="$ge$(f2 "$S_KA") s (pgpring+process_keys $(f2 "${WALL[$tag-kaprep]}") + keyanalyze $ge$(f2 "${WALL[$tag-ka]}")${ge:+, stopped})"
		[ -n "$min" ] && ok="; met: $(met "$S_KA >= $min * $S_SCAN")"
		[ -n "$ge" ] && ka_ss="- (stopped)"
	elif [ "${SKIP_KA:-0}" = 1 ]; then
		peer="not run (see estimate)"
	fi
	row "$label" "structural graph, SCCs, all-pairs MSD: file to stats (wot stats --keyring, no store)" \
		"$(f2 "$S_SCAN") s, RSS $(mb "${RSS[$tag-scan]}")" \
		"$peer" "${ge:-}$(ratio "$S_KA" "$S_SCAN")" "${min:+≥ ${min}×}" \
		"strong set: ksp $scan_ss, keyanalyze ${ka_ss:--}; output equal to the store's: $scan_same$ok"
	row "$label" "the same through the store (load --no-verify + stats --structural)" \
		"$(f2 "$S_KSP") s (load $(f2 "${WALL[$tag-sload]}") + stats $(f2 "${WALL[$tag-sstats]}"))" \
		"" "${ge:-}$(ratio "$S_KA" "$S_KSP")" "" \
		"strong set: ksp $SS_STRUCT"
}

# incremental_rows LABEL KEYRING FIRST-RUN TAG: the rows of issue 24's
# targets, side by side with the first load FIRST-RUN of KEYRING (run just
# before), after "run TAG-reload" (the same keyring again into that store):
# a store that holds an older copy of 1% of the keys (keyring-vary.py),
# under the same file name (a keyring repository's file, changed), then the
# keyring; wall-clock and CPU (user + sys) times.
incremental_rows() {
	local label=$1 kr=$2 first=$3 tag=$4 n rest what target pc pcc ok
	mkdir -p "$w/$tag-cur"
	python3 "$top/tests/tools/keyring-vary.py" "$kr" "$w/$tag-cur/keyring.gpg" 1 >"$w/$tag-old.n"
	rm -f "$w/$tag-1.db"*
	run "$tag-old" "$ksp" -d "$w/$tag-1.db" wot load "$w/$tag-cur/keyring.gpg"
	cp "$kr" "$w/$tag-cur/keyring.gpg"
	run "$tag-reload1" "$ksp" -v -d "$w/$tag-1.db" wot load "$w/$tag-cur/keyring.gpg"
	for t in "$tag-reload:unchanged:10" "$tag-reload1:$(cat "$w/$tag-old.n") keys (1%) changed:15"; do
		n=${t%%:*}; rest=${t#*:}; what=${rest%:*}; target=${rest##*:}
		pc=$(echo "100 * ${WALL[$n]} / ${WALL[$first]}" | bc -l)
		pcc=$(echo "100 * ${CPU[$n]} / ${CPU[$first]}" | bc -l)
		ok=no; [ "$(echo "$pc <= $target && $pcc <= $target" | bc -l)" = 1 ] && ok=yes
		row "$label" "wot load again, $what" "$(f2 "${WALL[$n]}") s wall, $(f2 "${CPU[$n]}") s CPU" \
			"first load $(f2 "${WALL[$first]}") s wall, $(f2 "${CPU[$first]}") s CPU" \
			"$(f1 "$pc")% wall, $(f1 "$pcc")% CPU of the first" "<= $target%: $ok" \
			"$(grep -o '[0-9]* signatures checked' "$w/$n.err" | head -n 1); $(grep -o '[0-9]* key(s) stored already' "$w/$n.err" | head -n 1)"
	done
	rm -rf "$w/$tag-cur" "$w/$tag-1.db"*
}

# ---------------------------------------------------------------- Debian
if [ "${KSP_BENCH_DEBIAN:-1}" = 0 ]; then
	notes+=("Debian keyring rows skipped (KSP_BENCH_DEBIAN=0).")
elif [ -r "$ring" ]; then
	say "Debian keyring: ksp wot load (verifying) + wot stats"
	run deb-load "$ksp" -v -d "$w/deb.db" wot load "$ring"
	run deb-stats "$ksp" -d "$w/deb.db" --json wot stats
	d_ksp=$(echo "${WALL[deb-load]} + ${WALL[deb-stats]}" | bc -l)
	d_good=$(json "$w/deb-stats.out" certifications.good 2>/dev/null || echo "?")
	d_total=$(json "$w/deb-stats.out" certifications.total 2>/dev/null || echo "?")
	if [ "${KSP_BENCH_NO_GPG:-0}" != 1 ]; then
		say "Debian keyring: gpg --import, gpg --check-sigs"
		mkdir -m 700 "$w/gpg"
		run deb-gpgimp gpg --homedir "$w/gpg" --batch --quiet --import "$ring"
		# SHA-1 certifications count (as in ksp).  Not --no-sig-cache: gpg
		# 2.2.40 aborts with "free(): double free detected" at once with it; so
		# gpg may reuse verdicts cached by the import, which only favours gpg.
		run deb-gpg gpg --homedir "$w/gpg" --batch --allow-weak-key-signatures --with-colons --check-sigs
		g_good=$(grep -c '^sig:!' "$w/deb-gpg.out")
		g_all=$(grep -c '^sig:' "$w/deb-gpg.out")
		gpgconf --homedir "$w/gpg" --kill all >/dev/null 2>&1
		rm -rf "$w/gpg"
		g_both=$(echo "${WALL[deb-gpgimp]} + ${WALL[deb-gpg]}" | bc -l)
		row "Debian keyring" "verify every certification" \
			"$(f2 "$d_ksp") s (load $(f2 "${WALL[deb-load]}") + stats $(f2 "${WALL[deb-stats]}")), RSS $(mb "${RSS[deb-load]}")" \
			"$(f2 "$g_both") s (gpg --import $(f2 "${WALL[deb-gpgimp]}") + --check-sigs $(f2 "${WALL[deb-gpg]}"))" \
			"$(ratio "$g_both" "$d_ksp")" "≥ 20×" \
			"ksp: $d_good of $d_total certifications good; gpg: $g_good of $g_all sig records '!' (self-sigs included); met: $(met "$g_both >= 20 * $d_ksp")"
		row "Debian keyring" "the same, gpg --check-sigs alone" "" "$(f2 "${WALL[deb-gpg]}") s" \
			"$(ratio "${WALL[deb-gpg]}" "$d_ksp")" "" "ksp CPU $(f1 "$(echo "${CPU[deb-load]} + ${CPU[deb-stats]}" | bc -l)") s, gpg CPU $(f1 "$(echo "${CPU[deb-gpgimp]} + ${CPU[deb-gpg]}" | bc -l)") s (import + check)"
	fi
	verify_rate_row "Debian keyring" deb-load 1
	# incremental loading (issue 24): the same keyring again into its store,
	# and into a store that holds an older copy of 1% of its keys
	run deb-reload "$ksp" -v -d "$w/deb.db" wot load "$ring"
	incremental_rows "Debian keyring" "$ring" deb-load deb
	if [ -n "$VR_WHOLE" ] && [ -n "${g_all:-}" ]; then
		g_rate=$(echo "$g_all / (${CPU[deb-gpgimp]} + ${CPU[deb-gpg]})" | bc -l)
		notes+=("Debian keyring: gpg checked $g_all signature records at $(printf '%.0f' "$g_rate") per CPU-second (import + --check-sigs).")
	fi
	say "Debian keyring: structural"
	SKIP_KA=0
	structural deb "$ring" "Debian keyring" 1
	DEB_DB=$DBSIZE
	notes+=("Debian keyring store: $(mb $((DEB_DB / 1024))) for $(stat -c %s "$ring" | awk '{printf "%.0f MB", $1/1048576}') of keyring.")
else
	say "$ring missing (apt-get install debian-keyring); Debian rows skipped"
	notes+=("Debian keyring not installed: its rows are missing.")
fi

# ------------------------------------------------------------- synthetic
declare -A RATE MSD_T
for n in $sizes; do
	base="$cache/wot-n$n-s$seed-d$degree"
	label="synthetic $n"
	if [ ! -s "$base.gpg" ] || [ ! -s "$base.time" ] || [ ! -s "$base.log" ]; then
		say "generating $n keys into $base.gpg (once)"
		rm -f "$base.time"
		/usr/bin/time -f '%e %U %S %M' -o "$base.time.part" "$gen" --keys "$n" --seed "$seed" \
			--mean-degree "$degree" -o "$base.gpg" 2>"$base.log" || { say "gen-wot failed: $(cat "$base.log")"; exit 2; }
		mv "$base.time.part" "$base.time"
	fi
	read -r gw gu gs gm < <(tail -n 1 "$base.time")
	g_certs=$(sed -n 's/.* keys, \([0-9]*\) certifications.*/\1/p' "$base.log")
	nsigs=$((g_certs + n))
	row "$label" "generation (gen-wot, $ncpu threads)" \
		"$(f1 "$gw") s, $(echo "$nsigs / $gw" | bc) signatures/s, RSS $(mb "$gm")" "" "" "" \
		"$n keys, $g_certs certifications, $(stat -c %s "$base.gpg" | awk '{printf "%.0f MB", $1/1048576}'); made once, cached"
	say "$label: structural"
	if [ "$n" -ge "$big" ]; then SKIP_KA=1; else SKIP_KA=0; fi
	structural "s$n" "$base.gpg" "$label" "$([ "$n" = "$mid" ] && echo 10)"
	s_edges=$(json "$w/s$n-sstats.out" edges 2>/dev/null || echo 0)
	s_ss_edges=$(json "$w/s$n-sstats.out" strong_set_edges 2>/dev/null || echo 0)
	[ "$n" = "$mid" ] && [ -n "$S_KA" ] && KA5=$S_KA KA5_SS=$SS_STRUCT KA5_E=$s_ss_edges
	row "$label" "peak memory (max RSS)" \
		"load --no-verify $(mb "${RSS[s$n-sload]}"), stats --structural $(mb "${RSS[s$n-sstats]}")" \
		"${KA_RSS:+keyanalyze $(mb "$KA_RSS")}" "" "$([ "$n" -ge "$big" ] && echo "≤ 2 GB")" \
		"store $(mb $((DBSIZE / 1024))) on disk$([ "$n" -ge "$big" ] && echo "; met: $(met "${RSS[s$n-sload]} <= 2097152 && ${RSS[s$n-sstats]} <= 2097152")")"
	if [ "$n" -ge "$big" ] && [ -n "${KA5:-}" ]; then
		est=$(echo "$KA5 * ($SS_STRUCT * $s_ss_edges) / ($KA5_SS * $KA5_E)" | bc -l)
		row "$label" "keyanalyze (ESTIMATE, not run)" "" "≈ $(printf '%.0f' "$est") s" \
			"$(ratio "$est" "$S_KSP") (estimate)" "" "keyanalyze time at $mid keys × the ratio of (strong set × its edges)"
	fi
	if [ "$n" -le "$verify_max" ]; then
		say "$label: verified load"
		rm -f "$w/v$n.db"*
		run "v$n-load" "$ksp" -v -d "$w/v$n.db" wot load "$base.gpg"
		run "v$n-stats" "$ksp" -d "$w/v$n.db" --json wot stats
		good=$(json "$w/v$n-stats.out" certifications.good 2>/dev/null || echo 0)
		total=$(json "$w/v$n-stats.out" certifications.total 2>/dev/null || echo 0)
		ss=$(json "$w/v$n-stats.out" strong_set_size 2>/dev/null || echo 0)
		sse=$(json "$w/v$n-stats.out" strong_set_edges 2>/dev/null || echo 0)
		# every certification and every self-signature is checked
		verify_rate_row "$label" "v$n-load"
		rate=${VR_WHOLE:-$(echo "($total + $n) / ${CPU[v$n-load]}" | bc -l)}
		RATE[$n]=$rate
		MSD_T[$n]=${WALL[v$n-stats]}
		row "$label" "verified load" "$(f1 "${WALL[v$n-load]}") s wall, $(f1 "${CPU[v$n-load]}") s CPU, RSS $(mb "${RSS[v$n-load]}")" \
			"" "" "" "$good of $total certifications good (+ $n self-sigs)"
		# the whole load against its own checking, measured in the same run
		if [ -n "${VR_CHECK:-}" ]; then
			lr=$(echo "${CPU[v$n-load]} / $VR_CHECK" | bc -l)
			row "$label" "verified load CPU / its signature-checking CPU" "$(printf '%.2f' "$lr")" "" "" \
				"$([ "$n" -ge "$big" ] && echo "≤ 2.0")" \
				"$(f1 "${CPU[v$n-load]}") CPU-s, of them checking $(f1 "$VR_CHECK"); $(sed -n 's/.*CPU-seconds: //p' "$w/v$n-load.err" | head -n 1)$([ "$n" -ge "$big" ] && echo "; met: $(met "$lr <= 2.0")")"
		fi
		if [ "$n" -le "${KSP_BENCH_INCR_MAX:-100000}" ]; then
			run "v$n-reload" "$ksp" -v -d "$w/v$n.db" wot load "$base.gpg"
			incremental_rows "$label" "$base.gpg" "v$n-load" "v$n"
		fi
		if [ "$n" -ge "$big" ]; then
			row "$label" "peak memory, verified load (max RSS)" "$(mb "${RSS[v$n-load]}")" "" "" "< 1.2 GB" \
				"the keyring is $(stat -c %s "$base.gpg" | awk '{printf "%.0f MB", $1/1048576}'), mapped and given back a megabyte at a time behind the reader; met: $(met "${RSS[v$n-load]} < 1258291")"
		fi
		row "$label" "all-pairs MSD (wot stats alone)" "$(f2 "${WALL[v$n-stats]}") s, RSS $(mb "${RSS[v$n-stats]}")" \
			"" "" "$([ "$n" = "$mid" ] && echo "< 20 s")" \
			"strong set $ss keys, $sse edges$([ "$n" = "$mid" ] && echo "; met: $(met "${WALL[v$n-stats]} < 20")")"
	elif [ -n "${RATE[$mid]:-}" ]; then
		est=$(echo "($s_edges + $n) / ${RATE[$mid]} / $ncpu" | bc -l)
		row "$label" "verify (ESTIMATE, not run)" "≈ $(printf '%.0f' "$est") s wall on $ncpu cores" "" "" "" \
			"at the $mid-key rate of $(printf '%.0f' "${RATE[$mid]}")/s/core; KSP_BENCH_VERIFY_MAX=$n to run it"
		row "$label" "all-pairs MSD (stats --structural)" "$(f2 "${WALL[s$n-sstats]}") s" "" "" "" \
			"strong set $SS_STRUCT keys, $s_ss_edges edges (structural graph = verified graph here)"
	fi
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- output
{
	echo "# ksp web-of-trust benchmark"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), $(uname -m), $ncpu CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)),"
	echo "load average at start $load_start, at end $load_end (the machine is shared: times are noisy)."
	echo "ksp $("$ksp" --version 2>/dev/null | head -n 1), $(gpg --version | head -n 1), libgcrypt $(dpkg-query -W -f='${Version}' libgcrypt20 2>/dev/null),"
	echo "signing-party $(dpkg-query -W -f='${Version}' signing-party 2>/dev/null || echo "-"). Made by bench/wot.sh$([ "$quick" = 1 ] && echo " (KSP_BENCH_QUICK=1)")."
	echo
	echo "| input | measurement | ksp | peer | peer/ksp | target | notes |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${rows[@]}"
	echo
	echo "Notes:"
	echo
	echo "- Times are wall-clock seconds; \"load\" is \`ksp wot load\`, \"stats\" \`ksp wot stats\` (verified graph) or"
	echo "  \`--structural\` (every certification counted unchecked, as keyanalyze does)."
	echo "- gpg: \`gpg --batch --import\` into a temporary home, then"
	echo "  \`gpg --allow-weak-key-signatures --with-colons --check-sigs\`, both timed. Not \`--no-sig-cache\`:"
	echo "  gpg 2.2.40 aborts at once with it (\"free(): double free detected in tcache 2\"), so gpg may reuse"
	echo "  verdicts cached during the import, which only favours gpg."
	echo "- keyanalyze: \`pgpring -S -k FILE | awk (ECC key-ID fix) | process_keys\`, then \`keyanalyze -i ... -o ...\`."
	echo "  pgpring 2.11 computes a wrong key ID for every ECC primary key (it hashes only the first"
	echo "  6 octets of the key packet), so without the fix keyanalyze sees none of the synthetic keys;"
	echo "  the right IDs are computed beforehand from the key packets (not timed), awk substitutes them."
	echo "  keyanalyze's MSD divides by |S| (ksp: |S| - 1), so only strong-set sizes are compared."
	echo "- Synthetic keyrings: \`tests/tools/gen-wot --keys N --seed $seed --mean-degree $degree\` (docs/gen-wot.md),"
	echo "  cached in bench/cache/; the generation row shows the time of the run that made the cached file."
	echo "- Verification rate: the signatures \`ksp -v wot load\` reports checked (certifications, self-signatures,"
	echo "  key revocations) per user + system CPU second of the whole load (reading, checking, writing the store,"
	echo "  the graph snapshot); \"checking alone\" divides by the CPU time of the checking threads only (what"
	echo "  -v reports); \"both cores\" is per wall-clock second of the load."
	for x in "${notes[@]}"; do echo "- $x"; done
} >"$w/results.md"
cat "$w/results.md"
if [ "$results" != - ]; then
	cp "$w/results.md" "$results.tmp" && mv "$results.tmp" "$results"
	say "table written to $results"
fi
