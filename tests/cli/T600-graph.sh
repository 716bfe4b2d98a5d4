#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ksp graph: every mode (party, strong set, around, paths, trust) rendered
# in-process by graphviz for a party made of tests/keyrings/party/p1..p4 and
# a key with a hostile user ID (signatures made with gpg in a private home),
# and for the Arch Linux keyring.  The SVG is parsed with xmllint and its
# node and edge counts compared with numbers computed independently with
# python3 (from the store with sqlite3, and from the Arch reference edge
# list); the hostile user ID must come out as visible text, never markup.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fx="$top/tests/keyrings"
data="$top/tests/data"
KSP="${KSP:-$top/ksp}"
# graphviz, its pango plugin and fontconfig lose memory of their own at
# every context; suppressed for valgrind and LeakSanitizer (see the files).
[ "${KSP_VALGRIND:-0}" = 1 ] && KSP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=$top/tests/keyrings/graph/valgrind.supp $KSP"
export LSAN_OPTIONS="suppressions=$top/tests/keyrings/graph/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
name=T600-graph
w=$(mktemp -d)
export GNUPGHOME="$w/gnupg-must-stay-unused"
export TMPDIR="$w/tmp"
mkdir -p "$TMPDIR"
gh="$w/gpg"
mkdir -m 700 "$gh"
trap 'gpgconf --homedir "$gh" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
export KSP_DB="$w/party.db"
export LC_ALL=C.UTF-8
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect_code() { # CODE MSG CMD...
	local want=$1 msg=$2; shift 2
	"$@" >"$w/out" 2>"$w/err"; local got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$msg: exit $got, want $want"; sed 's/^/  | /' "$w/err" | head -20 >&2; fi
}
expect_grep() { # FILE REGEX MSG
	if grep -qE -- "$2" "$1"; then ok; else bad "$3: /$2/ not in $1"; sed 's/^/  | /' "$1" | head -20 >&2; fi
}
expect_eq() { # GOT WANT MSG
	if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}
# xp FILE XPATH: the value of an XPath expression over an SVG file
xp() { xmllint --xpath "$2" "$1" 2>/dev/null; }
nodes() { xp "$1" 'count(//*[@class="node"])'; }
edges() { xp "$1" 'count(//*[@class="edge"])'; }
# the text lines of the node whose title is FPR
node_text() { xp "$1" "string(//*[@class=\"node\"][*[local-name()=\"title\"]=\"$2\"]/*[local-name()=\"text\"][$3])"; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d[sys.argv[2]]; print(json.dumps(v) if isinstance(v,(list,dict,bool)) or v is None else v)' "$@"; }
G() { gpg --homedir "$gh" --batch --no-tty -q --pinentry-mode loopback --passphrase '' "$@"; }
fpr_of() { gpg --homedir "$w/show" --with-colons --show-keys "$1" 2>/dev/null | awk -F: '$1=="fpr"{print $10; exit}'; }
mkdir -m 700 "$w/show"
for t in gpg xmllint python3 sqlite3 dot; do
	command -v $t >/dev/null || { echo "$name: $t is missing (apt-get install gnupg libxml2-utils python3 sqlite3 graphviz)"; echo "$name: 0 passed, 1 failed"; exit 1; }
done

# ---- the party: p1..p4 and Mallory, whose user ID is hostile -------------
P1=$(fpr_of "$fx/party/p1-public.asc") P2=$(fpr_of "$fx/party/p2-public.asc")
P3=$(fpr_of "$fx/party/p3-public.asc") P4=$(fpr_of "$fx/party/p4-public.asc")
for i in 1 2 3 4; do G --import "$fx/party/p$i-secret.asc" 2>/dev/null; done
# ", \, <script>, \N, }, a newline, an ANSI escape, U+202E, an entity, \G
muid=$(printf 'Mallory "\\N} <script>x</script>\n\033[31m\342\200\256abc &lt; \\G INSECURE <mallory@example.org>')
G --quick-gen-key "$muid" ed25519 cert never 2>/dev/null
M=$(G --with-colons --list-keys mallory@example.org | awk -F: '$1=="fpr"{print $10; exit}')
G --quick-add-key "$M" cv25519 encr never 2>/dev/null
[ ${#M} = 40 ] && ok || bad "hostile test key not made"
# certifications: p1<->p2 and p3<->p4 both ways, p1->p3, p3->M, M->p1
sign() { G -u "$1" --quick-sign-key "$2" >/dev/null 2>&1 || bad "gpg: $1 signs $2"; }
sign "$P1" "$P2"; sign "$P2" "$P1"; sign "$P3" "$P4"; sign "$P4" "$P3"
sign "$P1" "$P3"; sign "$P3" "$M"; sign "$M" "$P1"
G --armor --export "$M" >"$w/mallory.asc"
G --armor --export "$P1" "$P2" "$P3" "$P4" "$M" >"$w/signed.asc"

expect_code 0 "party init" $KSP party init --name 'Graph <b>party</b> & "x" \N' --date 2027-01-15
expect_code 0 "party add" $KSP party add "$fx/party/p1-public.asc" "$fx/party/p2-public.asc" "$fx/party/p3-public.asc" "$fx/party/p4-public.asc"
expect_code 0 "party add mallory" $KSP party add --allow-no-email "$w/mallory.asc"
expect_code 2 "graph before any certification is loaded: no strong set" $KSP graph --strong-set -o "$w/none.svg"
expect_grep "$w/err" "no strong set" "no strong set message"
expect_code 0 "wot load the signatures" $KSP wot load "$w/signed.asc"

# Independent numbers from the store: verified certifications between
# participants; drawn edges = arcs - two-way pairs; missing pairs.
python3 - "$KSP_DB" >"$w/expect" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
part = [r[0] for r in db.execute("SELECT k.fpr FROM participants p JOIN keys k ON k.id = p.key_id ORDER BY p.ord")]
arcs = set(db.execute("""SELECT DISTINCT ik.fpr, k.fpr FROM certs c JOIN uids u ON u.id = c.uid_id
    JOIN keys k ON k.id = u.key_id JOIN keys ik ON ik.fpr = c.issuer_fpr
    WHERE c.sig_type BETWEEN 16 AND 19 AND c.verified = 1 AND ik.id != k.id"""))
arcs = {(a, b) for a, b in arcs if a in part and b in part}
pairs = [(a, b) for i, a in enumerate(part) for b in part[i + 1:]]
mutual = sum(1 for a, b in pairs if (a, b) in arcs and (b, a) in arcs)
missing = sum(1 for a, b in pairs if (a, b) not in arcs or (b, a) not in arcs)
signers = {f: sum(1 for a in part if (a, f) in arcs) for f in part}
print(len(part), len(arcs), len(arcs) - mutual, mutual, missing)
for f in part:
    print(f, signers[f])
PY
read -r n_part n_arcs n_edges n_mutual n_missing <"$w/expect"
expect_eq "$n_part $n_arcs $n_edges $n_mutual $n_missing" "5 7 5 2 8" "party numbers from the store"

expect_code 0 "graph --party" $KSP --json graph --party -o "$w/party.svg"
s="$w/party.svg"
expect_eq "$(jget "$w/out" nodes) $(jget "$w/out" edges) $(jget "$w/out" certifications)" "$n_part $n_edges $n_arcs" "party JSON counts"
expect_eq "$(jget "$w/out" layout)" "circo" "party default layout"
xmllint --noout "$s" 2>"$w/xerr" && ok || { bad "party SVG is not well-formed XML"; cat "$w/xerr" >&2; }
expect_eq "$(nodes "$s")" "$n_part" "party SVG nodes"
expect_eq "$(edges "$s")" "$n_edges" "party SVG edges"
# a two-way pair is one edge with two arrowheads
expect_eq "$(xp "$s" 'count(//*[@class="edge"][count(*[local-name()="polygon"])=2])')" "$n_mutual" "two-way edges have two arrowheads"
expect_eq "$(xp "$s" 'count(//*[@class="edge"][count(*[local-name()="polygon"])=1])')" "$((n_edges - n_mutual))" "one-way edges have one arrowhead"
expect_eq "$(xp "$s" 'count(//*[@class="edge"]/*[local-name()="path"][@stroke-dasharray])')" "0" "no dashed edge without --missing"
# labels: number, name, key ID, completeness; colours by completeness
tail -n +2 "$w/expect" >"$w/signers"
i=0
while read -r f k; do
	i=$((i + 1))
	expect_eq "$(node_text "$s" "$f" 3)" "certified by $k of 4" "completeness label of #$i"
	expect_eq "$(node_text "$s" "$f" 2)" "0x${f:24}" "key ID line of #$i"
	fill=$(xp "$s" "string(//*[@class=\"node\"][*[local-name()=\"title\"]=\"$f\"]/*[local-name()=\"path\"]/@fill)")
	want=$(python3 -c 'import colorsys,sys; r,g,b=colorsys.hsv_to_rgb(0.333*int(sys.argv[1])/4,0.45,1.0); print(" ".join(str(round(x*255)) for x in (r,g,b)))' "$k")
	got=$(python3 -c 'import sys; h=sys.argv[1].lstrip("#"); print(" ".join(str(int(h[i:i+2],16)) for i in (0,2,4)))' "$fill" 2>/dev/null)
	python3 -c 'import sys; a=list(map(int,sys.argv[1].split())); b=list(map(int,sys.argv[2].split())); sys.exit(0 if len(a)==3 and all(abs(x-y)<=2 for x,y in zip(a,b)) else 1)' "$got" "$want" &&
		ok || bad "fill of #$i ($k of 4 signers): $fill, want rgb $want"
done <"$w/signers"
expect_eq "$(node_text "$s" "$P1" 1)" "#1 P1 INSECURE" "name line"
# the hostile user ID: literal visible text (after XML unescaping), no markup
want_m='#5 Mallory "\\N} <script>x</script>\x0A\x1B[31m\u{202E}abc &lt; \\G INSECURE'
expect_eq "$(node_text "$s" "$M" 1)" "$want_m" "hostile user ID rendered as escaped text"
expect_eq "$(xp "$s" 'count(//*[local-name()="script"])')" "0" "no script element"
expect_eq "$(xp "$s" 'count(//*[local-name()="b"])')" "0" "no markup from the party name"
if LC_ALL=C grep -q $'\033\|\xe2\x80\xae' "$s"; then bad "raw ESC or U+202E in the SVG"; else ok; fi
expect_eq "$(xp "$s" 'string(//*[@class="graph"]/*[local-name()="text"][1])')" \
	'Graph <b>party</b> & "x" \\N, 2027-01-15: 7 of 20 certifications' "party title is escaped text"

# --missing: dashed edges for the missing certifications
expect_code 0 "graph --party --missing" $KSP --json graph --party --missing -o "$w/missing.svg"
expect_eq "$(jget "$w/out" missing)" "$n_missing" "missing count"
expect_eq "$(edges "$w/missing.svg")" "$((n_edges + n_missing))" "edges with --missing"
expect_eq "$(xp "$w/missing.svg" 'count(//*[@class="edge"]/*[local-name()="path"][@stroke-dasharray])')" "$n_missing" "dashed edges"

# DOT output: the hostile label survives a round trip through dot(1)
expect_code 0 "graph -T dot" $KSP graph --party -T dot -o "$w/party.dot"
expect_grep "$w/party.dot" '^digraph wot \{' "dot header"
if grep -q 'pos=' "$w/party.dot"; then bad "dot without --layout has positions"; else ok; fi
dot -Tsvg "$w/party.dot" >"$w/roundtrip.svg" 2>"$w/err" && ok || bad "dot(1) cannot read ksp's DOT"
expect_eq "$(nodes "$w/roundtrip.svg") $(edges "$w/roundtrip.svg")" "$n_part $n_edges" "DOT round trip counts"
expect_eq "$(node_text "$w/roundtrip.svg" "$M" 1)" "$want_m" "hostile label after a DOT round trip"
expect_code 0 "graph -T dot --layout circo" $KSP graph --party -T dot --layout circo -o "$w/laid.dot"
expect_grep "$w/laid.dot" 'pos=' "dot with a layout has positions"
# png and pdf in-process; the format from the file name; stdout
expect_code 0 "graph png" $KSP graph --party -o "$w/party.png"
expect_eq "$(head -c 8 "$w/party.png" | od -An -tx1 | tr -d ' \n')" "89504e470d0a1a0a" "PNG signature"
expect_code 0 "graph pdf" $KSP graph --party -T pdf -o "$w/party.pdf"
expect_eq "$(head -c 5 "$w/party.pdf")" "%PDF-" "PDF signature"
$KSP graph --party >"$w/stdout.svg" 2>"$w/err" && ok || bad "graph to stdout"
expect_eq "$(nodes "$w/stdout.svg")" "$n_part" "SVG on stdout"
ls "$w" | grep -q '\.tmp\.' && bad "temporary files left behind" || ok

# errors: one line naming what to do; nothing written
expect_code 2 "no mode" $KSP graph -o "$w/x.svg"
expect_code 2 "two modes" $KSP graph --party --strong-set
expect_code 2 "bad format" $KSP graph --party -T gif -o "$w/x.gif"
expect_grep "$w/err" "svg, png, pdf or dot" "bad format message"
expect_code 2 "bad layout" $KSP graph --party --layout spring -o "$w/x.svg"
expect_grep "$w/err" "unknown graphviz layout 'spring'" "bad layout message"
expect_code 2 "--missing outside --party" $KSP graph --strong-set --missing -o "$w/x.svg"
expect_code 2 "--json without -o" $KSP --json graph --party
expect_code 2 "unwritable output" $KSP graph --party -o "$w/no/such/dir/x.svg"
expect_grep "$w/err" "no/such/dir/x.svg: cannot write" "unwritable output message"
[ -e "$w/x.svg" ] || [ -e "$w/x.gif" ] && bad "a failed command wrote a file" || ok
cp "$s" "$w/keep.svg"
expect_code 2 "failed render keeps the old file" $KSP graph --party --layout spring -o "$w/keep.svg"
cmp -s "$s" "$w/keep.svg" && ok || bad "old output changed by a failed render"
# graphviz without its plugins (GVBINDIR: an empty directory): a clear error
mkdir -p "$w/noplugins"
expect_code 2 "png without graphviz plugins" env GVBINDIR="$w/noplugins" $KSP graph --party -o "$w/x.png"
expect_grep "$w/err" "graphviz cannot write png here: no 'png' plugin .*apt-get install graphviz.*'dot -c'" "missing plugin message"
expect_code 2 "layout without graphviz plugins" env GVBINDIR="$w/noplugins" $KSP graph --party -T dot --layout dot -o "$w/x.dot"
expect_code 0 "dot without a layout needs no plugin" env GVBINDIR="$w/noplugins" $KSP graph --party -T dot -o "$w/x.dot"
expect_grep "$w/x.dot" '^digraph wot \{' "dot without plugins"
rm -f "$w/x.dot"
expect_code 2 "unknown key" $KSP graph --around 0000000000000000000000000000000000000000 -o "$w/x.svg"
expect_grep "$w/err" "is not in the graph" "unknown key message"
expect_code 2 "short key ID" $KSP graph --around "${P1:24}" -o "$w/x.svg"

# the party as a graph of keys: one strongly connected component of all five
expect_code 0 "party store strong set" $KSP --json graph --strong-set -o "$w/ss.svg"
expect_eq "$(nodes "$w/ss.svg") $(edges "$w/ss.svg")" "$(jget "$w/out" nodes) $(jget "$w/out" edges)" "strong set SVG = JSON"
expect_eq "$(jget "$w/out" fingerprints)" "$(python3 -c 'import json,sys; print(json.dumps(sorted(sys.argv[1:])))' "$P1" "$P2" "$P3" "$P4" "$M")" "party strong set members"
expect_code 0 "around p4, depth 1" $KSP --json graph --around "$P4" --depth 1 -o "$w/around.svg"
expect_eq "$(jget "$w/out" fingerprints)" "$(python3 -c 'import json,sys; print(json.dumps(sorted(sys.argv[1:])))' "$P3" "$P4")" "around p4"
expect_eq "$(edges "$w/around.svg")" "1" "p3<->p4 is one edge"
expect_code 0 "paths p4 -> p2" $KSP --json graph --paths "$P4" "$P2" -o "$w/paths.svg"
expect_eq "$(jget "$w/out" length) $(nodes "$w/paths.svg") $(edges "$w/paths.svg")" "4 5 4" "p4 -> p3 -> M -> p1 -> p2"
expect_eq "$(xp "$w/paths.svg" 'count(//*[@class="edge"]/*[local-name()="text"])')" "4" "hop dates on the edges"
today=$(date -u +%Y-%m-%d)
expect_eq "$(xp "$w/paths.svg" 'string((//*[@class="edge"]/*[local-name()="text"])[1])')" "$today" "hop date"
expect_code 2 "paths p2 -> p1 -> p3 -> p4 over --max-nodes 3" $KSP graph --paths "$P2" "$P4" --max-nodes 3 -o "$w/x.svg"
expect_grep "$w/err" "more than the limit of 3" "paths --max-nodes message"
expect_code 0 "trust p2 with core p4" $KSP --json graph --trust "$P2" --core-fpr "$P4" -o "$w/trust.svg"
expect_eq "$(jget "$w/out" trusted) $(nodes "$w/trust.svg") $(edges "$w/trust.svg")" "true 5 4" "trust graph of one path"
expect_eq "$(xp "$w/trust.svg" 'string(//*[@class="node"][*[local-name()="title"]="'"$P4"'"]/*[local-name()="path"]/@stroke-width)')" "2.5" "core highlighted"
expect_code 1 "not trusted: 2 paths needed" $KSP --json graph --trust "$P2" --core-fpr "$P4" --min-paths 2 -o "$w/trust2.svg"
expect_eq "$(jget "$w/out" trusted)" "false" "verdict in JSON"
[ -s "$w/trust2.svg" ] && ok || bad "the not-trusted picture is written"
expect_grep "$w/trust2.svg" "not trusted" "verdict in the title"

# ---- the Arch Linux keyring ------------------------------------------------
arch="$data/archlinux"
if [ -f "$arch/archlinux.gpg" ]; then
	export KSP_DB="$w/arch.db"
	AT=@$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reference_time_unix"])' "$arch/reference.json")
	expect_code 0 "load the Arch keyring" $KSP wot load "$arch/archlinux.gpg"
	expect_code 0 "wot stats" $KSP --json wot stats --at "$AT" --top 100000
	cp "$w/out" "$w/stats.json"
	# expected: from the reference edge list (gpg-verified, design graph)
	expect_arch() { # MODE ARGS... -> "nodes edges arcs", node list in $w/want.json
		python3 - "${tsv:-$arch/edges.design.tsv}" "$w/stats.json" "$w/want.json" "$@" <<'PY'
import json, sys
from collections import deque
tsv, stats, want, mode, *args = sys.argv[1:]
arcs = set(tuple(l.split()) for l in open(tsv) if l.strip())
out = {}
for a, b in arcs:
    out.setdefault(a, set()).add(b)
inn = {}
for a, b in arcs:
    inn.setdefault(b, set()).add(a)
def bfs(s, nb):
    d = {s: 0}; q = deque([s])
    while q:
        u = q.popleft()
        for x in nb.get(u, ()):
            if x not in d:
                d[x] = d[u] + 1; q.append(x)
    return d
if mode == "strong-set":
    sel = {t["fingerprint"] for t in json.load(open(stats))["top"]}
    sub = {(a, b) for a, b in arcs if a in sel and b in sel}
elif mode == "around":
    c, depth = args[0], int(args[1])
    d = {c: 0}; q = deque([c])
    while q:
        u = q.popleft()
        if d[u] >= depth: continue
        for x in out.get(u, set()) | inn.get(u, set()):
            if x not in d:
                d[x] = d[u] + 1; q.append(x)
    sel = set(d)
    sub = {(a, b) for a, b in arcs if a in sel and b in sel}
elif mode == "paths":
    s, t = args
    df, dt = bfs(s, out), bfs(t, inn)
    L = df[t]
    sub = {(a, b) for a, b in arcs if a in df and b in dt and df[a] + 1 + dt[b] == L}
    sel = {v for e in sub for v in e} | {s, t}
mutual = sum(1 for a, b in sub if (b, a) in sub) // 2
json.dump(sorted(sel), open(want, "w"))
print(len(sel), len(sub) - mutual, len(sub))
PY
	}
	check_arch() { # MSG SVG MODE ARGS...: SVG and JSON ($w/out) against expect_arch
		local msg=$1 svg=$2; shift 2
		local want
		want=$(expect_arch "$@")
		expect_eq "$(jget "$w/out" nodes) $(jget "$w/out" edges) $(jget "$w/out" certifications)" "$want" "$msg: JSON counts"
		expect_eq "$(nodes "$svg") $(edges "$svg")" "${want% *}" "$msg: SVG counts"
		expect_eq "$(jget "$w/out" fingerprints)" "$(cat "$w/want.json" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))')" "$msg: the keys"
	}
	expect_code 2 "no party in this store" $KSP graph --party -o "$w/x.svg"
	expect_grep "$w/err" "there is no party in this store; start one with 'ksp party init'" "no party message"
	expect_code 0 "arch strong set" $KSP --json graph --strong-set --at "$AT" -o "$w/arch-ss.svg"
	expect_eq "$(jget "$w/out" nodes) $(jget "$w/out" certifications)" "$(jget "$w/stats.json" strong_set_size) $(jget "$w/stats.json" strong_set_edges)" "strong set = wot stats"
	check_arch "arch strong set" "$w/arch-ss.svg" strong-set
	expect_eq "$(jget "$w/out" layout)" "sfdp" "strong set default layout"
	# every layout renders the strong set
	for l in dot neato fdp sfdp circo twopi; do
		expect_code 0 "layout $l" $KSP graph --strong-set --at "$AT" --layout "$l" -o "$w/ss-$l.svg"
		expect_eq "$(nodes "$w/ss-$l.svg")" "35" "layout $l nodes"
	done
	# node size by signers, colour by MSD rank: rank 1 darkest, biggest font
	best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top"][0]["fingerprint"])' "$w/stats.json")
	fill=$(xp "$w/arch-ss.svg" "string(//*[@class=\"node\"][*[local-name()=\"title\"]=\"$best\"]/*[local-name()=\"path\"]/@fill)")
	darkest=$(xp "$w/arch-ss.svg" '//*[@class="node"]/*[local-name()="path"]/@fill' | tr ' ' '\n' | sed -n 's/.*fill="#\(......\)".*/\1/p' |
		python3 -c 'import sys; print("#"+min(sys.stdin.read().split(), key=lambda h: int(h[0:2],16)))')
	expect_eq "$fill" "$darkest" "lowest MSD is the darkest node"
	expect_code 2 "strong set over --max-nodes" $KSP graph --strong-set --at "$AT" --max-nodes 10 -o "$w/x.svg"
	expect_grep "$w/err" "the strong set has 35 keys, more than the limit of 10; raise --max-nodes" "--max-nodes message"
	[ -e "$w/x.svg" ] && bad "--max-nodes wrote a file" || ok
	pierre=4AA4767BBC9C4B1D18AE28B77F2D434B9741E8AC
	florian=91FFE0700E80619CEB73235CA88E23E377514E00
	for d in 1 2; do
		expect_code 0 "around Pierre, depth $d" $KSP --json graph --around "$pierre" --depth "$d" --at "$AT" -o "$w/arch-around$d.svg"
		check_arch "around depth $d" "$w/arch-around$d.svg" around "$pierre" "$d"
	done
	expect_code 2 "around over --max-nodes" $KSP graph --around "$pierre" --depth 3 --max-nodes 20 --at "$AT" -o "$w/x.svg"
	expect_grep "$w/err" "more than the limit of 20; lower --depth or raise --max-nodes" "around --max-nodes message"
	expect_code 0 "paths Pierre -> Florian" $KSP --json graph --paths "$pierre" "$florian" --at "$AT" -o "$w/arch-paths.svg"
	check_arch "paths" "$w/arch-paths.svg" paths "$pierre" "$florian"
	expect_eq "$(jget "$w/out" length)" "4" "path length = the reference distance"
	# the same edges as 'ksp wot path --all'
	$KSP --json wot path --all --at "$AT" "$pierre" "$florian" >"$w/wotpath.json" 2>/dev/null
	expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({(h["signer"],h["signee"]) for p in d["paths"] for h in p}))' "$w/wotpath.json")" \
		"$(jget "$w/out" certifications)" "edges = the union of 'wot path --all'"
	# pairs with many shortest paths (29 and 26 edges on them)
	for pair in ADC8A1FCC15E01D45310419E94657AB20F2A092B:44EA62ACDBC81B6A0D1FD267206CBC892D1493D2 \
		C100346676634E80C940FB9E9C02FF419FECBE16:ECCAC84C1BA08A6CC8E63FBBF22FB1D78A77AEAB; do
		a=${pair%:*} b=${pair#*:}
		expect_code 0 "paths $a -> $b" $KSP --json graph --paths "$a" "$b" --at "$AT" -o "$w/arch-p2.svg"
		check_arch "paths $a -> $b" "$w/arch-p2.svg" paths "$a" "$b"
		$KSP --json wot path --all --at "$AT" "$a" "$b" >"$w/wotpath.json" 2>/dev/null
		expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({(h["signer"],h["signee"]) for p in d["paths"] for h in p}))' "$w/wotpath.json")" \
			"$(jget "$w/out" certifications)" "$a -> $b: edges = the union of 'wot path --all'"
		expect_eq "$(xp "$w/arch-p2.svg" 'count(//*[@class="edge"]/*[local-name()="text"])')" "$(jget "$w/out" edges)" "a date on every edge"
	done
	expect_code 1 "unreachable" $KSP graph --paths 169704C6FB490C6892C7F23C37E0AF1FDA48F373 "$pierre" --at "$AT" -o "$w/x.svg"
	expect_grep "$w/err" "no certification path from 169704C6FB490C6892C7F23C37E0AF1FDA48F373" "unreachable message"
	[ -e "$w/x.svg" ] && bad "unreachable wrote a file" || ok
	# trust: Arch's rule (3 main keys certify the key) for Pierre Schmitz
	expect_code 0 "trust graph" $KSP --json graph --trust "$pierre" --core "$arch/archlinux-trusted" --max-depth 1 --min-paths 3 --at "$AT" -o "$w/arch-trust.svg"
	expect_eq "$(jget "$w/out" trusted) $(nodes "$w/arch-trust.svg") $(edges "$w/arch-trust.svg")" "true 4 3" "trust graph: 3 paths of 1 hop"
	$KSP --json trust "$pierre" --core "$arch/archlinux-trusted" --max-depth 1 --min-paths 3 --at "$AT" >"$w/trust.json" 2>/dev/null
	expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(sorted({h["signer"] for p in d["paths"] for h in p} | {d["fingerprint"]})))' "$w/trust.json")" \
		"$(python3 -c 'import json,sys; print(json.dumps(sorted(json.load(open(sys.argv[1]))["fingerprints"])))' "$w/out")" "trust graph keys = ksp trust's paths"
	expect_eq "$(xp "$w/arch-trust.svg" 'count(//*[@class="node"]/*[local-name()="path"][@stroke-width="2.5"])')" "4" "core and target highlighted"
	expect_code 0 "trust png" $KSP graph --trust "$pierre" --core "$arch/archlinux-trusted" --at "$AT" -o "$w/arch-trust.png"
	expect_eq "$(head -c 4 "$w/arch-trust.png" | od -An -tx1 | tr -d ' \n')" "89504e47" "trust PNG"
	expect_code 0 "strong set pdf" $KSP graph --strong-set --at "$AT" -o "$w/arch-ss.pdf"
	expect_eq "$(head -c 5 "$w/arch-ss.pdf")" "%PDF-" "strong set PDF"
else
	bad "$arch missing (part of the repository: git checkout tests/data)"
fi

# ---- the Debian keyring's strong set (791 keys at 2023-01-01) ------------
. "$top/tests/cli/debian-ring.sh"
deb=$DEBIAN_RING
dref="$data/debian-keyring"
why=$(debian_ring_missing --exact)
if [ "${KSP_VALGRIND:-0}" = 1 ]; then
	echo "$name: Debian keyring part skipped under valgrind (slow)" >&2
elif [ -z "$why" ]; then
	export KSP_DB="$w/debian.db"
	AT=@$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["reference_time_unix"])' "$dref/reference.json")
	expect_code 0 "load the Debian keyring" $KSP wot load "$deb"
	expect_code 0 "wot stats" $KSP --json wot stats --at "$AT" --top 100000
	cp "$w/out" "$w/stats.json"
	expect_code 0 "Debian strong set, sfdp" $KSP --json graph --strong-set -T svg --layout sfdp --at "$AT" -o "$w/debian.svg"
	expect_eq "$(jget "$w/out" nodes) $(jget "$w/out" certifications)" \
		"$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["variants"]["design"]; print(v["strong_set_size"], v["strong_set_edges"])' "$dref/reference.json")" \
		"Debian strong set = the reference"
	tsv="$dref/edges.design.tsv" check_arch "Debian strong set" "$w/debian.svg" strong-set
else
	echo "$name: Debian part skipped: $why" >&2
fi

echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
