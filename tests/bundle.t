#!/bin/sh
# bundle.t — `ptofuzz report ID --bundle DIR` (reports/bundle.c): a finding as a
# folder that reproduces it with only the blamed tool. Findings are written into
# a database the way a campaign writes them; each bundle is copied to a clean
# directory and its run.sh run under `env -i` with a PATH holding only that
# tool (and /usr/bin:/bin): it must exit 1 (reproduces); a miscompile's with
# expected/ replaced by actual/ must exit 0.
#   1  model: an injected-defect miscompile (ptosim --out-dir, cmp) and a reject
#      (ptofuzz diff shows the signature); always run;
#   2  ptoas: a miscompile (corpus/real/c2v-window-pitch-a5.ptk) and a reject
#      (rf14-reserve-noreuse.ptk); skipped without a real toolchain, and in the
#      sanitizer build (QUICK: the time is clang's);
#   3  PyPTO: the seed bug (ptoas refuses b25b25a4a's PTO-AS; 6b426ae45 fixed it);
#      skipped without a PyPTO build or torch, and in the sanitizer build (QUICK).
. "$(dirname "$0")/lib.sh"
unset PTOFUZZ_BUGS PYPTO PTOAS PTO_ISA
F="$B/bin/ptofuzz"
ROOT=$(pwd)

# A finding and its test case, as a campaign records them: add ID SIG KIND MODE CODE OP PASS PATTERN FILE VARIANT FLAGS
add() {
  sqlite3 "$T/f.db" "INSERT INTO finding(id, signature, kind, mode, code, op, pass, pattern, hits, status, summary)
    VALUES($1, '$2', '$3', '$4', '$5', '$6', '$7', '$8', 1, 'new', 'a test finding');
    INSERT INTO testcase(finding, kernel, seed, variant, flags, statements)
    VALUES($1, CAST(readfile('$9') AS TEXT), 0, '${10}', '${11}', 0);"
}
"$F" db init --db="$T/f.db" > /dev/null
add 1 'miscompile|up_down|-|-|auto_split|tail' miscompile up_down - - auto_split tail corpus/regress/odd-floor-half.ptk \
  up_down '--bugs=odd-floor-half schedule=rr'
add 2 'reject|left_right|E-VERIFY|store|auto_split|-' reject left_right E-VERIFY store auto_split - \
  corpus/regress/store-axis-swap.ptk left_right '--bugs=store-axis-swap schedule=rr'
add 3 'miscompile|ptoas:up_down|-|transfer|run|lane1' miscompile ptoas:up_down - transfer run lane1 \
  corpus/real/c2v-window-pitch-a5.ptk ptoas:up_down@a5 '--bugs= --backend=ptoas'
add 4 'reject|ptoas:none|reserve_buffer|failed-to-allocate-local-memory-hole-for-reserv|ptoas|-' reject ptoas:none \
  reserve_buffer failed-to-allocate-local-memory-hole-for-reserv ptoas - corpus/real/rf14-reserve-noreuse.ptk \
  ptoas:none@a3 '--bugs= --backend=ptoas'
add 5 'reject|pypto:up_down|tstore|expects-dst-static-element-count-to-match-src-v|ptoas|-' reject pypto:up_down \
  tstore expects-dst-static-element-count-to-match-src-v ptoas - corpus/pypto/seed-bug-found-by-campaign.ptk \
  pypto:up_down@a3 '--bugs= --backend=pypto'

# bundle ID NAME [ARGS...]: the report (of the test case as stored: the reproducers are small) and its bundle in
# $T/NAME; its stdout in $T/NAME.out; the time as a TAP comment
bundle() {
  id=$1 name=$2
  shift 2
  s=$(date +%s)
  "$F" report "$id" --db="$T/f.db" --reduce=0 -o "$T/$name.md" --bundle="$T/$name" "$@" > "$T/$name.out" 2> "$T/$name.err"
  r=$?
  echo "# report $id --bundle: $(($(date +%s) - s)) s"
  return $r
}
# replay NAME ENV...: the bundle copied to a clean directory, run.sh under env -i; its exit status
replay() {
  name=$1
  shift
  rm -rf "$T/clean" && cp -r "$T/$name" "$T/clean" && env -i "$@" sh "$T/clean/run.sh" > "$T/$name.run" 2>&1
}
# the same with every expected output replaced by the actual one
replay_altered() {
  name=$1
  shift
  rm -rf "$T/clean" && cp -r "$T/$name" "$T/clean" && cp "$T/clean"/actual/*.bin "$T/clean/expected/" &&
    env -i "$@" sh "$T/clean/run.sh" > "$T/$name.alt" 2>&1
}
# a directory holding only the named tools, as symbolic links: bin NAME=PATH...
bin() {
  d=$T/bin-$1
  shift
  mkdir -p "$d"
  for t in "$@"; do ln -sf "${t#*=}" "$d/${t%%=*}"; done
  echo "$d"
}

# 1  the model: ptoc, ptosim, ptofuzz are the tools under blame
MB=$(bin model ptoc="$ROOT/$B/bin/ptoc" ptosim="$ROOT/$B/bin/ptosim" ptofuzz="$ROOT/$B/bin/ptofuzz")
bundle 1 m1 && grep -q '^bundle .*/m1: reproduces 3 of 3$' "$T/m1.out"
ok $? "bundle-1.1 a model miscompile's bundle is written, reproduces 3 of 3 at report time (stdout line)"
for f in kernel.ptk run.sh README.md manifest.txt expected/O.bin actual/O.bin inputs/X.bin; do
  [ -s "$T/m1/$f" ] || echo "missing $f"
done > "$T/m1.missing"
[ ! -s "$T/m1.missing" ] && grep -q '^# seed: ' "$T/m1/kernel.ptk" && grep -q '^# flags: --bugs=odd-floor-half' "$T/m1/kernel.ptk" &&
  grep -q '^O f32 \[' "$T/m1/manifest.txt" && grep -q 'Reproduces 3 of 3' "$T/m1/README.md"
ok $? "bundle-1.2 it holds the kernel with its flags and seed, the manifest, inputs, expected and actual outputs"
replay m1 PATH="$MB:/usr/bin:/bin"
[ $? = 1 ] && grep -q '^output O differs from expected/O.bin: first differing byte offset [0-9]* (element \[' "$T/m1.run"
ok $? "bundle-1.3 run.sh with only ptoc/ptosim/ptofuzz on PATH exits 1 and names the output and offset"
replay_altered m1 PATH="$MB:/usr/bin:/bin"
[ $? = 0 ]
ok $? "bundle-1.4 with expected/ replaced by actual/ it exits 0"
replay m1 PATH=/usr/bin:/bin
[ $? = 125 ] && grep -q 'cannot check: no ptosim on PATH' "$T/m1.run"
ok $? "bundle-1.5 without ptosim it cannot check: exit 125, saying why"
bundle 2 m2 --replays=1 && grep -q 'reproduces 1 of 1$' "$T/m2.out" && replay m2 PATH="$MB:/usr/bin:/bin"
[ $? = 1 ] && grep -qF 'sig=reject|left_right|E-VERIFY|store|auto_split|-' "$T/m2.run"
ok $? "bundle-1.6 a model reject: run.sh (ptofuzz diff) shows the signature and exits 1 (--replays=1)"
bundle 2 m2 > /dev/null 2>&1
[ $? = 1 ] && grep -q 'exists and is not an empty directory' "$T/m2.err"
ok $? "bundle-1.7 a bundle directory that is not empty is refused (exit 1)"

# 2  ptoas + pto-isa (+ clang++)
"$F" diff corpus/seeds/c2v_only.ptk --backend=ptoas > "$T/probe" 2>&1
if [ $? = 2 ] && grep -q 'E-TOOL' "$T/probe"; then
  for t in 2.1 2.2 2.3 2.4 2.5 2.6; do
    ok 0 "bundle-$t # SKIP $(grep -o 'no usable real toolchain.*' "$T/probe" | head -n 1)"
  done
elif [ -n "$QUICK" ]; then
  for t in 2.1 2.2 2.3 2.4 2.5 2.6; do ok 0 "bundle-$t # SKIP the sanitizer build (QUICK): clang's time, not our code's"; done
else
  bundle 3 r1 --replays=1
  rc=$?
  PT=$(sed -n 's/^- ptoas: .* (\([^()]*\))$/\1/p' "$T/r1.md" | head -n 1)
  ISA=$(sed -n 's/^- pto-isa: .* (\([^()]*\))$/\1/p' "$T/r1.md" | head -n 1)
  RB=$(bin real ptoas="$PT")
  [ $rc = 0 ] && grep -q 'reproduces 1 of 1$' "$T/r1.out" && [ -s "$T/r1/kernel.pto" ] && [ -s "$T/r1/kernel.cpp" ] &&
    [ -s "$T/r1/harness.cpp" ] && [ -s "$T/r1/actual/O.bin" ] && grep -q '^- ptoas: ptoas .*, commit ' "$T/r1.md" &&
    grep -q '^- pto-isa: commit ' "$T/r1.md" && grep -q '^- C++ compiler: .*clang version' "$T/r1.md"
  ok $? "bundle-2.1 a ptoas miscompile's bundle (kernel.pto, kernel.cpp, harness.cpp, actual/) reproduces 1 of 1; the report names ptoas, pto-isa and clang++ ($PT, $ISA)"
  replay r1 PATH="$RB:/usr/bin:/bin" PTO_ISA="$ISA"
  [ $? = 1 ] && grep -q '^output O differs from expected/O.bin: first differing byte offset' "$T/r1.run"
  ok $? "bundle-2.2 its run.sh with only ptoas on PATH (and PTO_ISA) exits 1, naming the output"
  replay_altered r1 PATH="$RB:/usr/bin:/bin" PTO_ISA="$ISA"
  [ $? = 0 ]
  ok $? "bundle-2.3 with expected/ replaced by actual/ it exits 0"
  replay r1 PATH="$RB:/usr/bin:/bin"
  [ $? = 125 ] && grep -q 'set PTO_ISA' "$T/r1.run"
  ok $? "bundle-2.4 without PTO_ISA it cannot check (exit 125) and says so"
  bundle 4 r2 && grep -q 'reproduces 2 of 2$' "$T/r2.out" && replay r2 PATH="$RB:/usr/bin:/bin"
  [ $? = 1 ] && grep -q "error: 'pto.reserve_buffer' op failed to allocate local memory hole for reserve_buffer$" "$T/r2.run"
  ok $? "bundle-2.5 a ptoas reject's run.sh (ptoas alone) exits 1 and prints ptoas's whole first error"
  E="^loc(\"kernel.pto\":[0-9]*:[0-9]*): error: 'pto.reserve_buffer' op failed to allocate local memory hole for reserve_buffer\$"
  grep -q "$E" "$T/r2/README.md" && grep -q "$E" "$T/r2.md"
  ok $? "bundle-2.6 the README and the report show ptoas's full first error"
fi

# 3  PyPTO: the seed bug on b25b25a4a (fixed in 6b426ae45)
TP=../shared/third_party/pypto
if [ -n "$QUICK" ]; then
  for t in 3.1 3.2 3.3; do ok 0 "bundle-$t # SKIP the sanitizer build (QUICK): PyPTO's time, not our code's"; done
elif [ ! -d "$TP/b25b25a4a/python/pypto" ]; then
  for t in 3.1 3.2 3.3; do ok 0 "bundle-$t # SKIP no PyPTO build beside the project ($TP/b25b25a4a)"; done
elif ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
  for t in 3.1 3.2 3.3; do ok 0 "bundle-$t # SKIP python3-torch is not installed (scripts/deps.sh pypto)"; done
elif grep -q 'E-TOOL' "$T/probe" 2>/dev/null; then
  for t in 3.1 3.2 3.3; do ok 0 "bundle-$t # SKIP no real toolchain (ptoas) for the seed bug's check (c)"; done
else
  P=$(cd "$TP" && pwd)
  bundle 5 p1 --pypto="$P/b25b25a4a" --replays=2 && grep -q 'reproduces 2 of 2$' "$T/p1.out" && [ -s "$T/p1/program.py" ] &&
    [ -s "$T/p1/kernel.pto" ] && grep -q '^- PyPTO: commit b25b25a4ac421f7c30eee0bfa0fca6e078f35bb3' "$T/p1/README.md"
  ok $? "bundle-3.1 the PyPTO seed bug's bundle (program.py, PyPTO's PTO-AS) reproduces 2 of 2 and records the PyPTO commit"
  PB=$(bin pypto ptoas="$PT" python3=/usr/bin/python3)
  replay p1 PATH="$PB:/usr/bin:/bin" PYPTO="$P/b25b25a4a"
  [ $? = 1 ] && grep -q "error: 'pto.tstore' op expects dst static element count" "$T/p1.run"
  ok $? "bundle-3.2 its run.sh with python3 and ptoas alone exits 1 on b25b25a4a, with ptoas's error"
  replay p1 PATH="$PB:/usr/bin:/bin" PYPTO="$P/6b426ae45"
  [ $? = 0 ] && grep -q '^does not reproduce: ptoas: ok' "$T/p1.run"
  ok $? "bundle-3.3 ... and exits 0 on 6b426ae45, where the bug is fixed"
fi
plan
