#!/bin/sh
# cflite.t — .clusterfuzzlite/build.sh under the variables an OSS-Fuzz base
# image sets (CC, CXX, CFLAGS, CXXFLAGS with -fsanitize=address,fuzzer-no-link,
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer, OUT, SRC, WORK, SANITIZER,
# FUZZING_ENGINE, ARCHITECTURE): it builds ptofuzz_fuzzer with link-time
# optimisation off, ships the dictionary, options and seed corpus, and the
# target fuzzes for 3 seconds; with a defect on, its crash file names the
# defect in its last line and imports, without --bugs, as the signature its
# abort printed. Skipped when clang cannot link libFuzzer.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
if [ -n "$QUICK" ]; then   # it builds its own sanitized fuzzer: the plain build's run covers it
  echo "1..0 # SKIP the sanitizer build: this test builds its own ASan fuzzer, run by make test"
  exit 0
fi

printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)(n & 0); }\n' > "$T/probe.c"
if ! command -v clang > /dev/null || ! command -v clang++ > /dev/null ||
   ! clang -fsanitize=address,fuzzer "$T/probe.c" -o "$T/probe" > /dev/null 2>&1; then
  echo "1..0 # SKIP clang cannot link libFuzzer with ASan here"
  exit 0
fi

mkdir -p "$T/out" "$T/src" "$T/work"
flags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
env CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
  OUT="$T/out" SRC="$T/src" WORK="$T/work" SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 \
  bash .clusterfuzzlite/build.sh > "$T/build.log" 2>&1
ok $? "cflite-1.1 build.sh exits 0 under OSS-Fuzz's variables"
[ -x "$T/out/ptofuzz_fuzzer" ] && [ -s "$T/out/ptofuzz_fuzzer.dict" ] &&
  grep -q '^max_len = ' "$T/out/ptofuzz_fuzzer.options"
ok $? "cflite-1.2 \$OUT holds ptofuzz_fuzzer, its dictionary and options"
if command -v zip > /dev/null; then
  [ -s "$T/out/ptofuzz_fuzzer_seed_corpus.zip" ]
  ok $? "cflite-1.3 and the seed corpus zip"
else
  ok 0 "cflite-1.3 # SKIP no zip to pack the seed corpus"
fi
c="$T/work/ptofuzz-build/CMakeCache.txt"
grep -q '^CMAKE_INTERPROCEDURAL_OPTIMIZATION:[A-Z]*=OFF$' "$c" && grep -q '^CMAKE_C_FLAGS:[A-Z]*=.*fuzzer-no-link' "$c" &&
  grep -q '^CMAKE_C_COMPILER:[A-Z]*=.*clang$' "$c" && ! grep -rq -- '-flto' "$T/work/ptofuzz-build/CMakeFiles/fuzzgen.dir/flags.make"
ok $? "cflite-1.4 \$CC and \$CFLAGS honoured, link-time optimisation off, the build under \$WORK"

mkdir -p "$T/corpus" "$T/crashes"
"$T/out/ptofuzz_fuzzer" -max_total_time=3 -max_len=512 -dict="$T/out/ptofuzz_fuzzer.dict" \
  -artifact_prefix="$T/crashes/" "$T/corpus" corpus/bytes > "$T/run.log" 2>&1
ok $? "cflite-2.1 the target fuzzes for 3 seconds without a finding on the clean compiler"
grep -q '^Done [0-9]* runs in [0-9]* second' "$T/run.log" && [ -z "$(ls "$T/crashes")" ]
ok $? "cflite-2.2 libFuzzer's closing line, and no crash file"

PTOFUZZ_BUGS=zero-valid-reject "$T/out/ptofuzz_fuzzer" -max_total_time=20 -artifact_prefix="$T/crashes/" \
  "$T/corpus" corpus/bytes > "$T/bug.log" 2>&1
rc=$?
crash=$(ls "$T/crashes" | head -n 1)
[ $rc != 0 ] && [ -n "$crash" ] && grep -q 'ERROR: libFuzzer: deadly signal' "$T/bug.log"
ok $? "cflite-3.1 with a defect on, the target aborts and leaves a crash file outside the corpus"
sig=$(sed -n "s/.*Assertion \`\(.*\)' failed\.\$/\1/p" "$T/bug.log" | head -n 1)
"$F" import "$T/crashes" --bugs=zero-valid-reject --db="$T/i.db" > "$T/imp" 2>&1 &&
  [ -n "$sig" ] && grep -q "^import: .* signatures=$sig" "$T/imp"
ok $? "cflite-3.2 ptofuzz import signs the crash file with the signature the abort printed ($sig)"
grep -q "fz_found_${sig%%|*}" "$T/bug.log"
ok $? "cflite-3.3 the stack names the per-kind abort frame"
tail -c 40 "$T/crashes/$crash" | grep -q '#ptofuzz-bugs=zero-valid-reject$' &&
  env -u PTOFUZZ_BUGS "$F" import "$T/crashes/$crash" --db="$T/n.db" > "$T/imp2" 2>&1 &&
  grep -q "^import: .* signatures=$sig" "$T/imp2" && [ "$(sqlite3 "$T/n.db" 'select defects from campaign')" = zero-valid-reject ]
ok $? "cflite-3.4 the crash file's last line names its defects: import signs it without --bugs"
plan
