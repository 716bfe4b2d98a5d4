#!/usr/bin/env bash
# Every example in the README runs as shown.
#
# In README, an indented line "    $ COMMAND" is a command; the indented
# lines after it (up to the next command or the end of the block) are its
# output, compared exactly; a line "    ..." stands for any number of lines;
# "    [exit N]" says the command exits with N (default 0).  All examples run
# in order, in one sandbox directory that holds "keys" (tests/keyrings) and
# "data" (tests/data), as the README's set-up lines make it, with ksp on
# PATH, a private GNUPGHOME and TZ=UTC.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=T900-readme
readme="${KSP_README:-$top/README}"
w=$(mktemp -d)
trap 'gpgconf --homedir "$w/gnupg" --kill all >/dev/null 2>&1; rm -rf "$w"' EXIT
mkdir -p "$w/bin" "$w/run"
mkdir -m 700 "$w/gnupg"
if [ "${KSP_VALGRIND:-0}" = 1 ]; then
	printf '#!/bin/sh\nexec valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 --suppressions=%s --suppressions=%s "%s" "$@"\n' "$top/tests/keyrings/sheet/valgrind.supp" "$top/tests/keyrings/graph/valgrind.supp" "$top/ksp" > "$w/bin/ksp"
else
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$top/ksp" > "$w/bin/ksp"
fi
chmod +x "$w/bin/ksp"
ln -s "$top/tests/keyrings" "$w/run/keys"
ln -s "$top/tests/data" "$w/run/data"
export PATH="$w/bin:$PATH" GNUPGHOME="$w/gnupg" TZ=UTC LC_ALL=C.UTF-8 KSP_THREADS=2
# fontconfig's own leak when PDF is drawn (see tests/keyrings/sheet/*.supp),
# and graphviz's; LeakSanitizer reads one file, so both go into one
cat "$top/tests/keyrings/sheet/lsan.supp" "$top/tests/keyrings/graph/lsan.supp" > "$w/lsan.supp"
export LSAN_OPTIONS="suppressions=$w/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LD_LIBRARY_PATH="$top/src/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset KSP_DB
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Split the README into commands and expectations (python: exact parsing).
python3 - "$readme" "$w/cases" <<'PY'
import sys, os, json
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
cases = []
cur = None
for i, l in enumerate(lines, 1):
    if l.startswith("    $ "):
        cur = {"line": i, "cmd": l[6:], "out": [], "exit": 0}
        cases.append(cur)
    elif cur is not None and l.startswith("    "):
        t = l[4:]
        if t.startswith("[exit ") and t.endswith("]"):
            cur["exit"] = int(t[6:-1])
        else:
            cur["out"].append(t)
    elif l.strip() == "":
        # a blank line inside a block keeps the case open only if the
        # block continues; trailing blank lines are dropped below
        if cur is not None:
            cur["out"].append(None)
    else:
        cur = None
for c in cases:
    while c["out"] and c["out"][-1] is None:
        c["out"].pop()
    c["out"] = ["" if x is None else x for x in c["out"]]
json.dump(cases, open(sys.argv[2], "w"))
PY
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$w/cases")
[ "$n" -ge 10 ] && ok || bad "only $n examples found in $readme"

cd "$w/run" || exit 2
for ((i = 0; i < n; i++)); do
	python3 - "$w/cases" "$i" "$w/cmd" "$w/want" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))[int(sys.argv[2])]
open(sys.argv[3], "w").write(c["cmd"] + "\n")
open(sys.argv[4], "w").write("%d %d\n" % (c["line"], c["exit"]) + "\n".join(c["out"]) + ("\n" if c["out"] else ""))
PY
	read -r line want_exit < "$w/want"
	bash "$w/cmd" >"$w/got" 2>"$w/err"
	rc=$?
	if [ "$rc" != "$want_exit" ]; then
		bad "README line $line: '$(cat "$w/cmd")' exited $rc, want $want_exit"
		sed 's/^/  | /' "$w/err" | head -5 >&2
		continue
	fi
	# compare output: exact lines, "..." matches any run of lines
	if python3 - "$w/want" "$w/got" <<'PY'
import sys
want = open(sys.argv[1], encoding="utf-8").read().split("\n")[1:]
if want and want[-1] == "":
    want.pop()
got = open(sys.argv[2], encoding="utf-8", errors="replace").read().split("\n")
if got and got[-1] == "":
    got.pop()
got = [g.rstrip() for g in got]
want = [x.rstrip() for x in want]
def match(wi, gi):
    if wi == len(want):
        return gi == len(got)
    if want[wi] == "...":
        return any(match(wi + 1, k) for k in range(gi, len(got) + 1))
    return gi < len(got) and got[gi] == want[wi] and match(wi + 1, gi + 1)
if not want or match(0, 0):
    sys.exit(0)
print("want:"); print("\n".join("  " + x for x in want))
print("got:"); print("\n".join("  " + x for x in got[:40]))
sys.exit(1)
PY
	then ok; else bad "README line $line: '$(cat "$w/cmd")': output differs"; fi
done
echo "$name: $n examples"
echo "$name: $pass passed, $fail failed"
[ "$fail" = 0 ]
