# Makefile — wraps CMake. `make test` builds and runs the TAP suite,
# `make test-sanitize` the same under ASan+UBSan, `make fuzz` (later) a campaign.
BUILD   ?= build
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
CMFLAGS ?=

.PHONY: all deps build test test-sanitize fuzz clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DPTO_WERROR=ON $(CMFLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: build
	@PTO_BUILD=$(BUILD) prove -f --exec '' tests/*.t $(BUILD)/tests/t_*

test-sanitize:
	@$(MAKE) --no-print-directory test BUILD=build-sanitize CMFLAGS="-DPTO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

# The main job: a 60-second campaign on every core into findings.db.
fuzz: build
	@$(BUILD)/bin/ptofuzz run --time=60 --jobs=$(JOBS) --db=findings.db
	@echo "look at the findings:  $(BUILD)/bin/ptofuzz db list   (show ID, export ID, stats)"

clean:
	rm -rf build build-sanitize
