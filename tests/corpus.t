#!/bin/sh
# corpus.t — every seed kernel: the printed IR is a fixed point at each level,
# the printed text runs to the same outputs as the original, two reference
# runs agree, and the outputs match the golden digests in tests/golden/.
. "$(dirname "$0")/lib.sh"
for f in corpus/seeds/*.ptk; do
  name=$(basename "$f" .ptk)
  for p in parse flatten; do
    "$B/bin/ptoc" "$f" --print-after=$p --stop-after=$p > "$T/a.ptk" 2>"$T/err" &&
      "$B/bin/ptoc" "$T/a.ptk" --print-after=$p --stop-after=$p > "$T/b.ptk" 2>>"$T/err" &&
      cmp -s "$T/a.ptk" "$T/b.ptk"
    ok $? "corpus-$name-$p print/parse fixed point"
    "$B/bin/ptosim" "$T/a.ptk" --reference > "$T/pa.out" 2>>"$T/err" &&
      "$B/bin/ptosim" "$f" --reference > "$T/o.out" 2>>"$T/err" && cmp -s "$T/pa.out" "$T/o.out"
    ok $? "corpus-$name-$p printed text runs to the same outputs"
  done
  "$B/bin/ptosim" "$f" --reference > "$T/r1" 2>>"$T/err"; r1=$?
  "$B/bin/ptosim" "$f" --reference > "$T/r2" 2>>"$T/err"; r2=$?
  [ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$T/r1" "$T/r2"
  ok $? "corpus-$name-ref two reference runs exit 0 and agree"
  "$B/bin/ptosim" "$f" --reference --seed=7 > "$T/r7" 2>>"$T/err"
  cat "$T/r1" "$T/r7" | cmp -s - "tests/golden/$name.out"
  ok $? "corpus-$name-golden digests (seeds 0 and 7) match tests/golden/$name.out"
  [ -s "$T/err" ] && sed 's/^/# /' "$T/err" && : > "$T/err"
done
plan
