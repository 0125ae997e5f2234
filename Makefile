# Makefile — wraps CMake. `make test` builds and runs the TAP suite,
# `make test-sanitize` the same under ASan+UBSan, `make fuzz` a campaign,
# `make regress` pto-check over corpus/regress (make test runs it too:
# tests/regress.t and tests/regress-bugs.t).
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMFLAGS ?=

.PHONY: all deps build test test-sanitize regress fuzz libfuzzer libfuzzer-ptk afl clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DPTO_WERROR=ON $(CMFLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: build
	@PTO_BUILD=$(BUILD) prove -j$(JOBS) -f --exec '' tests/*.t $(BUILD)/tests/t_*

# Every reproducer clean under the clean compiler, then each with its own defect on.
regress: build
	@$(BUILD)/bin/pto-check && $(BUILD)/bin/pto-check --bugs=all

test-sanitize:
	@$(MAKE) --no-print-directory test BUILD=build-sanitize CMFLAGS="-DPTO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

# The main job: a 60-second campaign on every core into findings.db.
fuzz: build
	@$(BUILD)/bin/ptofuzz run --time=60 --jobs=$(JOBS) --db=findings.db
	@echo "look at the findings:  $(BUILD)/bin/ptofuzz db list   (show ID, export ID, stats)"

# Coverage-guided fuzzing (docs/fuzzing.md): libFuzzer (clang) and AFL++
# (afl-clang-fast, persistent mode), both with ASan+UBSan, on the generator's
# byte choice source. Seeds: corpus/bytes/ (read only); dictionary:
# fuzz/ptofuzz.dict. The growing corpus and the crash files are kept apart
# (libFuzzer: fuzz-out/libfuzzer/corpus and .../crashes; AFL++:
# fuzz-out/afl/default/queue and .../crashes); `ptofuzz import` reads the
# crash directories. PTOFUZZ_BUGS switches injected defects on.
FUZZ_TIME   ?= 60
FUZZ_MAXLEN ?= 512
FUZZ_ASAN   ?= abort_on_error=1:symbolize=0
libfuzzer: deps
	@cmake -S . -B build-libfuzzer -DCMAKE_C_COMPILER=clang -DPTO_LIBFUZZER=ON -DPTO_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build-libfuzzer -j $(JOBS) --target ptofuzz-libfuzzer -- --no-print-directory
	@mkdir -p fuzz-out/libfuzzer/corpus fuzz-out/libfuzzer/crashes
	build-libfuzzer/bin/ptofuzz-libfuzzer -max_total_time=$(FUZZ_TIME) \
	  -max_len=$(FUZZ_MAXLEN) -len_control=10 -dict=fuzz/ptofuzz.dict -timeout=25 \
	  -artifact_prefix=fuzz-out/libfuzzer/crashes/ fuzz-out/libfuzzer/corpus corpus/bytes

# libFuzzer on .ptk text (fuzz/target_ptk.c): the front end, the golden run,
# every variant's pipeline and PTO-AS printer; seeds are the hand-written and
# malformed kernels, the dictionary the language's words (fuzz/ptk.dict).
libfuzzer-ptk: deps
	@cmake -S . -B build-libfuzzer -DCMAKE_C_COMPILER=clang -DPTO_LIBFUZZER=ON -DPTO_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build-libfuzzer -j $(JOBS) --target ptofuzz-ptk-libfuzzer -- --no-print-directory
	@mkdir -p fuzz-out/ptk/corpus fuzz-out/ptk/crashes
	build-libfuzzer/bin/ptofuzz-ptk-libfuzzer -max_total_time=$(FUZZ_TIME) -fork=$(JOBS) -ignore_crashes=1 \
	  -ignore_timeouts=1 -ignore_ooms=1 -max_len=2048 -timeout=20 -rss_limit_mb=4096 -dict=fuzz/ptk.dict \
	  -artifact_prefix=fuzz-out/ptk/crashes/ fuzz-out/ptk/corpus corpus/seeds tests/bad tests/split tests/ptk-fuzz

afl: deps
	@cmake -S . -B build-afl -DCMAKE_C_COMPILER=afl-clang-fast -DPTO_SANITIZE=ON -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF >/dev/null
	@cmake --build build-afl -j $(JOBS) --target ptofuzz-stdin -- --no-print-directory
	@mkdir -p fuzz-out/afl
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 ASAN_OPTIONS=$(FUZZ_ASAN) \
	  afl-fuzz -V $(FUZZ_TIME) -i corpus/bytes -o fuzz-out/afl -x fuzz/ptofuzz.dict -G $(FUZZ_MAXLEN) -t 25000 \
	  -- build-afl/bin/ptofuzz-stdin

clean:
	rm -rf build build-sanitize build-libfuzzer build-afl
