#!/bin/sh
# defect-seeds.sh — re-record corpus/bytes/defect-NAME after a policy or
# generator change has shifted what the bytes mean (docs/fuzzing.md, "Byte
# seeds"): for each injected defect, the first kernel of `ptofuzz gen
# --seed=1 --count=600` that the fuzz target (ptofuzz-stdin) passes on the
# clean compiler and aborts on with the defect on; for odd-floor-half the
# first whose signature has the `tail` pattern. Prints `NAME kernel N` per
# defect (`NAME none` when no kernel shows it, the file left as it was).
#
#   scripts/defect-seeds.sh [BUILD]     BUILD: the build directory (build)
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
F=$B/bin/ptofuzz
S=$B/bin/ptofuzz-stdin
[ -x "$F" ] && [ -x "$S" ] || { echo "defect-seeds.sh: no $F or $S (make build)" >&2; exit 2; }
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
"$F" gen --seed=1 --count=600 --bytes-out="$T/b" > /dev/null 2> "$T/gen.err" || { cat "$T/gen.err" >&2; exit 2; }
for f in corpus/bytes/defect-*; do
  d=${f##*/defect-}
  got=none
  for k in "$T"/b/k*.bin; do
    "$S" < "$k" > /dev/null 2>&1 || continue                  # not clean on the clean compiler
    PTOFUZZ_BUGS=$d "$S" < "$k" > /dev/null 2> "$T/err" && continue
    grep -q '^signature=' "$T/err" || continue
    [ "$d" = odd-floor-half ] && ! grep -q '^signature=.*|tail$' "$T/err" && continue
    cp "$k" "$f"
    got=$(basename "$k" .bin | sed 's/^k0*//; s/^$/0/')
    got="kernel $got"
    break
  done
  echo "$d $got"
done
