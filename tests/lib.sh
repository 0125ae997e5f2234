# lib.sh — sourced by the shell TAP tests: run from the repository root with
# the build in $B (PTO_BUILD, default build), a scratch directory $T removed
# on exit, and `ok STATUS DESCRIPTION` printing one TAP line; `plan` ends.
cd "$(dirname "$0")/.." || exit 1
B=${PTO_BUILD:-build}
# Under the sanitizer build (make test-sanitize) the tests whose time goes to
# outside tools (clang, ptoas, PyPTO) or to repetition take a sample (QUICK=1);
# the plain build runs them whole.
case "$B" in *sanitize*) QUICK=1 ;; *) QUICK= ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
plan() { echo "1..$n"; }
