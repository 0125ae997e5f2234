# lib.sh — sourced by the shell TAP tests: run from the repository root with
# the build in $B (PTO_BUILD, default build), a scratch directory $T removed
# on exit, and `ok STATUS DESCRIPTION` printing one TAP line; `plan` ends.
cd "$(dirname "$0")/.." || exit 1
B=${PTO_BUILD:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
plan() { echo "1..$n"; }
