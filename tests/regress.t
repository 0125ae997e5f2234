#!/bin/sh
# regress.t — `pto-check` over corpus/regress/: every reproducer is clean under
# the clean compiler (its TAP is this test's; no reproducers: 1..0 # SKIP).
cd "$(dirname "$0")/.." || exit 1
unset PTOFUZZ_BUGS
exec "${PTO_BUILD:-build}/bin/pto-check"
