#!/bin/bash -eu
# build.sh — builds the ptofuzz fuzz target for ClusterFuzzLite / OSS-Fuzz.
# Consumes the variables the OSS-Fuzz base image sets: CC, CXX, CFLAGS,
# CXXFLAGS (the sanitizer and coverage flags, e.g. -fsanitize=address,
# fuzzer-no-link), LIB_FUZZING_ENGINE (-fsanitize=fuzzer, or the AFL++ driver
# library), OUT, and WORK (scratch; default a directory under /tmp). Produces
# in $OUT: ptofuzz_fuzzer (fuzz/target.c linked with $LIB_FUZZING_ENGINE), its
# dictionary (fuzz/ptofuzz.dict), options (max_len, len_control) and seed
# corpus (corpus/bytes/, zipped). Link-time optimisation is off: the
# sanitizers and the coverage instrumentation want ordinary objects. The
# sources are the current directory when it is the ptofuzz tree (the image's
# WORKDIR), else the tree this script sits in.
if [ -f fuzz/target.c ] && [ -f CMakeLists.txt ]; then root=$PWD
else root=$(cd "$(dirname "$0")/.." && pwd); fi
work=${WORK:-/tmp/ptofuzz-cflite}/ptofuzz-build
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$work" "$OUT"

# The libraries, built with the image's compiler and flags (CMAKE_BUILD_TYPE
# None: only $CFLAGS, no -DNDEBUG, so the invariant checks stay on).
cmake -S "$root" -B "$work" -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$CFLAGS" \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF -DPTO_WERROR=OFF > "$work/cmake.log"
cmake --build "$work" -j "$jobs" --target fuzzreplay fuzzgen -- --no-print-directory > "$work/build.log"

# The target: compiled as C, linked with the C++ driver as OSS-Fuzz asks.
"$CC" $CFLAGS -std=c11 -D_GNU_SOURCE -ffp-contract=off -I"$root/compiler" -I"$root/sim" -I"$root/oracle" \
  -I"$root/gen" -I"$root/fuzz" -c "$root/fuzz/target.c" -o "$work/target.o"
"${CXX:-$CC}" ${CXXFLAGS:-$CFLAGS} "$work/target.o" "$work/libfuzzreplay.a" "$work/libfuzzgen.a" \
  "$work/liboracle.a" "$work/libptosim.a" "$work/libptoc.a" $LIB_FUZZING_ENGINE -lm -o "$OUT/ptofuzz_fuzzer"

cp "$root/fuzz/ptofuzz.dict" "$OUT/ptofuzz_fuzzer.dict"
printf '[libfuzzer]\nmax_len = 512\nlen_control = 10\ndict = ptofuzz_fuzzer.dict\n' > "$OUT/ptofuzz_fuzzer.options"
if command -v zip > /dev/null; then
  rm -f "$OUT/ptofuzz_fuzzer_seed_corpus.zip"
  (cd "$root/corpus/bytes" && zip -q -X "$OUT/ptofuzz_fuzzer_seed_corpus.zip" ./*)
fi
