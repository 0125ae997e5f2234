#!/bin/sh
# mutants.sh — mutation testing of the campaign (docs/mutants.md). Each patch
# of tests/mutants/ plants one small, plausible bug in the compiler or the
# simulator; a campaign with no injected defect either finds it or not.
#
#   scripts/mutants.sh --time=S [--jobs=N] [--seed=N] [PATCH...]
#       in a scratch worktree of HEAD (one build directory for all patches):
#       a baseline campaign, then per patch apply, build ptofuzz, run an
#       S-second campaign, revert; one line per patch
#       `found|found-by-unit|missed|equivalent|stale|build-failed NAME  (WHY)`
#       and at the end `score: F/K found (P%); G/K with unit tests (Q%); E
#       equivalent` over the patches that applied and built.
#   scripts/mutants.sh --check [PATCH...]   every patch applies to HEAD (exit 1 naming the stale ones)
#   scripts/mutants.sh --list               the patches: NAME  what it plants
#
# PATCH is a name (tests/mutants/NAME.patch) or a path. A mutant is found
# when its campaign stores a finding whose signature the baseline campaign
# (same seed and time, no patch) did not. A patch headed `# unit: T...` that
# the campaign misses is then tried on those unit tests (build/tests/T; one
# failing is `found-by-unit`); one headed `# equivalent: WHY` is not run. Exit 0 whatever the score; 1 for a
# usage error, 2 when the script itself fails (no git, HEAD does not build).
set -u
CWD=$(pwd)
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
DIR=tests/mutants

usage() {
  echo "usage: scripts/mutants.sh --time=S [--jobs=N] [--seed=N] [PATCH...] | --check [PATCH...] | --list"
}
die() { echo "mutants.sh: $*" >&2; exit 2; }
bad() { echo "mutants.sh: $*" >&2; usage >&2; exit 1; }
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }

mode=run time= jobs=1 seed=1 names=
for a in "$@"; do
  case $a in
  --time=*) time=${a#*=}; isnum "$time" && [ "$time" -gt 0 ] || bad "--time wants a number of seconds: '$a'" ;;
  --jobs=*) jobs=${a#*=}; isnum "$jobs" && [ "$jobs" -gt 0 ] || bad "--jobs wants a positive number: '$a'" ;;
  --seed=*) seed=${a#*=}; isnum "$seed" || bad "--seed wants a number: '$a'" ;;
  --check) mode=check ;;
  --list) mode=list ;;
  -h | --help) usage; exit 0 ;;
  -*) bad "unknown option '$a'" ;;
  *) names="$names $a" ;;
  esac
done

# The patch files, in name order; a name that is no patch is a usage error.
files=
if [ -z "$names" ]; then
  for f in "$ROOT/$DIR"/*.patch; do [ -f "$f" ] && files="$files $f"; done
else
  for a in $names; do
    case $a in /*) p=$a ;; *) p=$CWD/$a ;; esac
    if [ -f "$DIR/$a.patch" ]; then f=$ROOT/$DIR/$a.patch
    elif [ -f "$p" ]; then f=$p
    else bad "no patch '$a' (see --list)"
    fi
    files="$files $f"
  done
fi
name() { n=${1##*/}; echo "${n%.patch}"; }
bug() { sed -n 's/^# bug: //p' "$1" | head -n 1; }
header() { sed -n "s/^# $1: //p" "$2" | head -n 1; }

if [ "$mode" = list ]; then
  for f in $files; do echo "$(name "$f")  $(bug "$f")"; done
  exit 0
fi
[ "$mode" = run ] && [ -z "$time" ] && bad "--time=S is required to run the mutants"
[ -n "$files" ] || die "no patches in $DIR"
command -v git >/dev/null 2>&1 || die "git is not installed"
git rev-parse --verify -q HEAD >/dev/null 2>&1 || die "$ROOT is not a git repository with a HEAD"

tmp=$(mktemp -d) || die "no temporary directory"
child=
wt=
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$child" ]; then                      # the build or campaign in flight, with its children
    kill -TERM "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  [ -n "$wt" ] && git -C "$ROOT" worktree remove --force "$wt" >/dev/null 2>&1
  rm -rf "$tmp"
  git -C "$ROOT" worktree prune >/dev/null 2>&1
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# first line of git apply's complaint
why_stale() { sed -n 's/^error: //p' "$1" | head -n 1; }

if [ "$mode" = check ]; then                  # against HEAD itself, through an index of its own
  GIT_INDEX_FILE=$tmp/index git read-tree HEAD || die "cannot read HEAD"
  k=0 s=0
  for f in $files; do
    k=$((k + 1))
    if ! GIT_INDEX_FILE=$tmp/index git apply --check --cached "$f" 2>"$tmp/err"; then
      s=$((s + 1))
      echo "stale $(name "$f")  ($(why_stale "$tmp/err"))"
    fi
  done
  echo "check: $((k - s))/$k apply to HEAD"
  [ "$s" = 0 ] && exit 0
  exit 1
fi

# Run a command in a process group of its own (so a signal here stops it and
# its children), waiting for it; its exit status.
run() {
  if command -v setsid >/dev/null 2>&1; then setsid "$@" & else "$@" & fi
  child=$!
  wait "$child"
  st=$?
  child=
  return $st
}

wt=$tmp/wt
B=$tmp/build
git worktree add -q --detach "$wt" HEAD >"$tmp/log" 2>&1 || die "git worktree add: $(tail -n 1 "$tmp/log")"
run cmake -S "$wt" -B "$B" -DPTO_WERROR=ON >"$tmp/log" 2>&1 || die "cmake configure failed: $(tail -n 1 "$tmp/log")"
build() { run cmake --build "$B" -j "$jobs" --target ptofuzz >"$tmp/build.log" 2>&1; }
build || die "HEAD does not build: $(grep -m 1 'error' "$tmp/build.log")"

unset PTOFUZZ_BUGS                              # clean-flag campaigns: these are not catalogue defects
# campaign DB: an S-second campaign into DB; the summary line in $tmp/summary
# (empty when the campaign itself failed, its exit status in $rc)
campaign() {
  rm -f "$1"
  run "$B/bin/ptofuzz" run --time="$time" --jobs="$jobs" --seed="$seed" --db="$1" --quiet >"$tmp/run.log" 2>&1
  rc=$?
  grep '^summary:' "$tmp/run.log" >"$tmp/summary"
  grep '^claims:' "$tmp/run.log" | sed 's/.*check=//' >"$tmp/claims"
}
sigs() { "$B/bin/ptofuzz" db list --db="$1" 2>/dev/null | awk 'NR > 1 && $4 ~ /\|/ { print $4 }'; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$tmp/summary"; }

campaign "$tmp/base.db"
[ -s "$tmp/summary" ] || die "the baseline campaign failed (exit $rc): $(tail -n 1 "$tmp/run.log")"
sigs "$tmp/base.db" >"$tmp/base.sigs"
nb=$(wc -l <"$tmp/base.sigs")
if [ "$nb" = 0 ]; then
  echo "baseline: clean ($(field kernels) kernels in ${time}s, seed $seed)"
else
  echo "baseline: $nb findings ($(head -n 1 "$tmp/base.sigs") ...); a mutant is found by a signature not among them"
fi

k=0 found=0 unit=0 equiv=0
for f in $files; do
  n=$(name "$f")
  if [ -n "$(header equivalent "$f")" ]; then   # the model cannot tell it from the original
    equiv=$((equiv + 1))
    echo "equivalent $n  ($(header equivalent "$f"))"
    continue
  fi
  git -C "$wt" checkout -q -- . 2>/dev/null
  if ! git -C "$wt" apply "$f" 2>"$tmp/err"; then
    echo "stale $n  ($(why_stale "$tmp/err"))"
    continue
  fi
  if ! build; then
    echo "build-failed $n  ($(grep -m 1 'error' "$tmp/build.log" | sed "s|$wt/||"))"
    git -C "$wt" checkout -q -- .
    continue
  fi
  k=$((k + 1))
  campaign "$tmp/m.db"
  sig=$(sigs "$tmp/m.db" | grep -vxF -f "$tmp/base.sigs" | head -n 1)
  if [ -n "$sig" ]; then
    found=$((found + 1))
    echo "found $n  ($sig)"
  elif [ ! -s "$tmp/summary" ]; then            # no finding can be stored when the campaign dies
    found=$((found + 1))
    echo "found $n  (the campaign itself failed, exit $rc: $(tail -n 1 "$tmp/run.log"))"
  else
    failed=
    for t in $(header unit "$f"); do            # the unit tests that see what a campaign cannot
      run cmake --build "$B" -j "$jobs" --target "$t" >"$tmp/build.log" 2>&1 && run "$B/tests/$t" >"$tmp/unit.log" 2>&1 ||
        failed="$failed $t"
    done
    if [ -n "$failed" ]; then
      unit=$((unit + 1))
      echo "found-by-unit $n  (missed by the campaign; failing:$failed)"
    else
      echo "missed $n  (no new finding in $(field kernels) kernels; valid=$(field valid); claims $(cat "$tmp/claims"))"
    fi
  fi
  git -C "$wt" checkout -q -- .
done
[ "$k" -gt 0 ] && pct=$((100 * found / k)) upct=$((100 * (found + unit) / k)) || pct=0 upct=0
echo "score: $found/$k found ($pct%); $((found + unit))/$k with unit tests ($upct%); $equiv equivalent"
exit 0
