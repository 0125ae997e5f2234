#!/bin/sh
# seed-bytes.t — the byte seeds in corpus/bytes/: `ptofuzz gen --bytes-out`
# writes a kernel's recorded choices as an input that generates the same
# kernel, corpus/bytes/defect-odd-floor-half is what it writes for kernel 15 of
# seed 1, and every corpus/bytes/defect-NAME input is clean on the clean
# compiler and aborts the fuzz target with defect NAME on; the crash file of
# odd-floor-half imports as the finding a campaign with that defect records;
# the libFuzzer build, when there is one, signs the seeds as this build does.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
S="$B/bin/ptofuzz-stdin"
C=corpus/bytes

"$F" gen --seed=1 --count=18 --bytes-out="$T/b" > "$T/gen.out" 2> "$T/gen.err" && [ ! -s "$T/gen.out" ] &&
  [ -f "$T/b/k000000.bin" ] && [ -f "$T/b/k000015.bin" ]
ok $? "seedbytes-1.1 gen --bytes-out writes one input per kernel, no kernel text on stdout"
"$F" gen --seed=2 --count=3 --out="$T/k" > /dev/null && "$F" gen --seed=2 --count=3 --out="$T/k2" --bytes-out="$T/b2" > /dev/null &&
  cmp -s "$T/k/k000001.ptk" "$T/k2/k000001.ptk"
ok $? "seedbytes-1.2 recording leaves the PRNG kernels unchanged"
cmp -s "$T/b/k000015.bin" "$C/defect-odd-floor-half"
ok $? "seedbytes-1.3 corpus/bytes/defect-odd-floor-half is gen --seed=1 kernel 15's bytes"

sig='miscompile|up_down|-|-|auto_split|tail'
PTOFUZZ_BUGS=odd-floor-half "$S" < "$C/defect-odd-floor-half" > /dev/null 2> "$T/ofh.err"
[ $? != 0 ] && grep -qF "Assertion \`$sig' failed" "$T/ofh.err"
ok $? "seedbytes-2.1 the odd-floor-half seed aborts the target with $sig"
cp "$C/defect-odd-floor-half" "$T/crash-ofh"
"$F" import "$T/crash-ofh" --bugs=odd-floor-half --db="$T/i.db" > "$T/imp" 2>&1 &&
  grep -qF "signatures=$sig" "$T/imp"
ok $? "seedbytes-2.2 ptofuzz import of it records $sig"
"$F" run --seed=1 --count=100 --jobs=1 --bugs=odd-floor-half --db="$T/c.db" > /dev/null 2>&1 &&
  "$F" db list --db="$T/c.db" | grep -qF " $sig "
ok $? "seedbytes-2.3 a campaign with odd-floor-half records the same signature"

k=0
for f in "$C"/defect-*; do
  d=${f##*/defect-}
  k=$((k + 1))
  "$S" < "$f" > /dev/null 2>&1 && ! PTOFUZZ_BUGS=$d "$S" < "$f" > "$T/d.out" 2> "$T/d.err" &&
    grep -q '^signature=' "$T/d.err"
  ok $? "seedbytes-3.$k $d: clean without defects, a finding with $d on"
done
[ $k = 19 ]
ok $? "seedbytes-4.1 one seed per defect in defects.def (19)"

# The libFuzzer build is clang's, this one usually gcc's: the same bytes must
# give the same kernel (no choice depends on argument evaluation order).
L=build-libfuzzer/bin/ptofuzz-libfuzzer
if [ -x "$L" ]; then
  j=0
  for d in lr-odd-unpadded placement-from-box slot-oversubscribe; do
    j=$((j + 1))
    PTOFUZZ_BUGS=$d "$S" < "$C/defect-$d" 2>&1 | grep '^signature=' > "$T/s.gcc"
    PTOFUZZ_BUGS=$d "$L" "$C/defect-$d" 2>&1 | grep '^signature=' > "$T/s.lf"
    [ -s "$T/s.gcc" ] && cmp -s "$T/s.gcc" "$T/s.lf"
    ok $? "seedbytes-5.$j $d: the libFuzzer target prints the signatures this build's target prints"
  done
else
  ok 0 "seedbytes-5.1 # SKIP $L not built (make libfuzzer)"
fi
plan
