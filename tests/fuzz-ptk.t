#!/bin/sh
# fuzz-ptk.t — the .ptk libFuzzer target (fuzz/target_ptk.c) replayed through
# its stdin build: its dictionary is what scripts/ptk-dict.sh writes from the
# op table; every seed, every malformed kernel of tests/bad and every input
# the fuzzer once crashed on (tests/ptk-fuzz/, each fixed since) runs through
# the front end, the golden run and every variant's pipeline and PTO-AS printer
# without an abort (under make test-sanitize: without a sanitizer report).
. "$(dirname "$0")/lib.sh"
sh scripts/ptk-dict.sh > "$T/dict"
cmp -s "$T/dict" fuzz/ptk.dict
ok $? "fuzz-ptk-1.1 fuzz/ptk.dict is scripts/ptk-dict.sh's output"
grep -q '^kw_[0-9]*="matmul"$' fuzz/ptk.dict && grep -q '^kw_[0-9]*="split_aiv"$' fuzz/ptk.dict && grep -q '^kw_[0-9]*="valid="$' fuzz/ptk.dict
ok $? "fuzz-ptk-1.2 the dictionary holds ops, reserved words and keyword arguments"
i=0
for f in corpus/seeds/*.ptk tests/bad/*.ptk tests/ptk-fuzz/*; do
  [ -f "$f" ] || continue
  i=$((i + 1))
  "$B/bin/ptofuzz-ptk-stdin" < "$f" > "$T/out" 2>&1
  rc=$?
  [ $rc = 0 ] || { echo "# $f: exit $rc"; sed 's/^/# /' "$T/out" | head -n 5; }
  ok $rc "fuzz-ptk-2.$i $f runs through the target"
done
plan
