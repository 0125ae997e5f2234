#!/bin/sh
# regress-bugs.t — `pto-check --bugs=all` over corpus/regress/: every
# reproducer is clean, and with its own defect alone switched on shows the
# signature its `# defect:` line declares.
cd "$(dirname "$0")/.." || exit 1
unset PTOFUZZ_BUGS
exec "${PTO_BUILD:-build}/bin/pto-check" --bugs=all
