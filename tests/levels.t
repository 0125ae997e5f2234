#!/bin/sh
# levels.t — for every seed, split mode and target: the IR printed after each
# pass parses back to the same text (memplan's `# mem` placement comments are
# not IR and are left out of the comparison), and the lowered program, read
# back from its text, runs on the machine to the golden outputs.
. "$(dirname "$0")/lib.sh"
passes=$("$B/bin/ptoc" 2>&1 | sed -n 's/^passes: //p')
[ -n "$passes" ]
ok $? "levels-passes ptoc lists its passes"
SEEDS=corpus/seeds/*.ptk   # three under the sanitizer build (lib.sh)
[ -n "$QUICK" ] && SEEDS="corpus/seeds/c2v_only.ptk corpus/seeds/fa_trim_5of16.ptk corpus/seeds/qk_pv_explicit.ptk"
for f in $SEEDS; do
  name=$(basename "$f" .ptk)
  "$B/bin/ptosim" "$f" --reference > "$T/ref" 2>/dev/null
  for m in none up_down left_right; do
    for t in a2a3 a5; do
      bad=""
      for p in $passes; do
        "$B/bin/ptoc" "$f" --split=$m --target=$t --print-after=$p --stop-after=$p > "$T/p" 2>/dev/null || continue
        grep -v '^# mem ' "$T/p" > "$T/a"
        "$B/bin/ptoc" "$T/a" --print-after=parse --stop-after=parse > "$T/b" 2>/dev/null
        cmp -s "$T/a" "$T/b" || bad="$bad $p"
      done
      [ -z "$bad" ]
      ok $? "levels-$name-$m-$t every level is a print/parse fixed point${bad:+ (not:$bad)}"
      if "$B/bin/ptoc" "$f" --split=$m --target=$t --print-after=verify_backend > "$T/low" 2>/dev/null; then
        "$B/bin/ptosim" "$T/low" --split=none --schedule=random:5 > "$T/out" 2>&1 && cmp -s "$T/ref" "$T/out"
        ok $? "levels-$name-$m-$t the lowered text runs to the golden outputs"
      fi
    done
  done
done
plan
