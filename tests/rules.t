#!/bin/sh
# rules.t — the backend rules (pass 12, verify_backend) and the runtime checks
# of the multi-core machine, each shown by hand-written lowered programs.
#
# tests/backend/B-RULE-ok-N.ptk, B-RULE-bad-N.ptk — header lines:
#   # expect: ok                 ptoc exits 0
#   # expect: CODE LINE:COL      ptoc exits 1, stderr starts "FILE:LINE:COL: error[CODE]:"
#   # what the file tests        one line
#   # todo: why                  optional: a known gap; its failing checks are TAP TODO
# tests/runtime/NAME.ptk — header lines:
#   # expect: ok | CODE          ptoc exits 0, then `ptosim FILE --split=none`
#                                (both with --stop-after=lower: the verifier is not asked)
#                                exits 0, or 1 with error[CODE] on stderr
#   # what the file tests
#   # schedule: rr|random:N      optional: ptosim --schedule=...
#   # todo: why                  optional: the ptosim checks, as above
cd "$(dirname "$0")/.." || exit 1
B=${PTO_BUILD:-build}
# Under a sanitizer build a finding exits with 1 by default, like a clean
# diagnostic; make it exit 86 so that "exit status 1" catches it.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0

# ok STATUS DESCRIPTION [TODO-REASON]: a failing check of a file with a todo
# is reported as TAP TODO; its passing checks are plain ok.
ok() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  elif [ -n "$3" ]; then
    echo "not ok $n - $2 # TODO $3"
  else
    echo "not ok $n - $2"
  fi
}

# show what ptoc / ptosim said, as TAP comments
said() {
  head -n 3 "$T/err" | sed 's/^/#   /'
}

# header FILE KEY: the value of the first "# KEY: ..." line of the file's
# leading comment block
header() {
  sed -n '/^#/!q; s/^# '"$2"': *//p' "$1" | head -n 1 | tr -d '\r'
}

# ---- backend rules ---------------------------------------------------------------
found=0
for f in tests/backend/*.ptk; do
  [ -e "$f" ] || continue
  found=1
  name="rules-$(basename "$f" .ptk)"
  exp=$(header "$f" expect)
  todo=$(header "$f" todo)
  timeout 10 "$B/bin/ptoc" "$f" >"$T/out" 2>"$T/err"
  rc=$?
  case $exp in
    ok)
      [ "$rc" = 0 ]
      ok $? "$name: ptoc accepts it (exit $rc)" "$todo"
      [ "$rc" = 0 ] || said
      ;;
    B-[A-Z]*" "[0-9]*:[0-9]*)
      code=${exp% *} loc=${exp#* }
      [ "$rc" = 1 ]
      ok $? "$name: ptoc rejects it with exit status 1 (got $rc)" "$todo"
      first=$(head -n 1 "$T/err")
      case $first in
        "$f:$loc: error[$code]:"*) s=0 ;;
        *) s=1 ;;
      esac
      ok $s "$name: reports $code at $loc" "$todo"
      if [ $s != 0 ]; then
        echo "#   expected: $f:$loc: error[$code]:"
        said
      fi
      ;;
    *)
      ok 1 "$name: first line is '# expect: ok' or '# expect: B-RULE LINE:COL'"
      ;;
  esac
done
[ $found = 1 ]
ok $? "rules-backend: tests/backend/ holds programs"

# Every rule of verify_backend's header has an ok and a bad program.
for rule in B-TILE B-ALIGN B-SUBVIEW B-PART B-STORE B-LOAD B-MOV B-REDUCE B-EXPAND B-MATMUL B-PIPE B-CAP; do
  set -- tests/backend/"$rule"-ok-*.ptk
  [ -e "$1" ]
  ok $? "rules-backend: $rule has an ok program"
  set -- tests/backend/"$rule"-bad-*.ptk
  [ -e "$1" ]
  ok $? "rules-backend: $rule has a bad program"
done

# ---- runtime checks --------------------------------------------------------------
found=0
for f in tests/runtime/*.ptk; do
  [ -e "$f" ] || continue
  found=1
  name="rules-runtime-$(basename "$f" .ptk)"
  exp=$(header "$f" expect)
  todo=$(header "$f" todo)
  sched=$(header "$f" schedule)
  case $exp in
    ok | R-[A-Z]*) ;;
    *)
      ok 1 "$name: first line is '# expect: ok' or '# expect: R-CODE'"
      continue
      ;;
  esac
  # Runtime checks catch what the backend verifier lets through, so these
  # programs are compiled and run without pass 12 (--stop-after=lower).
  timeout 10 "$B/bin/ptoc" "$f" --stop-after=lower >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 0 ]
  ok $? "$name: ptoc accepts it (exit $rc)"
  [ "$rc" = 0 ] || said
  set -- "$f" --split=none --stop-after=lower
  [ -n "$sched" ] && set -- "$@" "--schedule=$sched"
  timeout 60 "$B/bin/ptosim" "$@" >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$exp" = ok ]; then
    [ "$rc" = 0 ]
    ok $? "$name: ptosim ${sched:+--schedule=$sched }runs it clean (exit $rc)" "$todo"
    [ "$rc" = 0 ] || said
  else
    [ "$rc" = 1 ]
    ok $? "$name: ptosim ${sched:+--schedule=$sched }fails with exit status 1 (got $rc)" "$todo"
    grep -q "^$f:[0-9]*:[0-9]*: error\[$exp\]:" "$T/err"
    s=$?
    ok $s "$name: ptosim reports $exp" "$todo"
    [ $s = 0 ] || said
  fi
done
[ $found = 1 ]
ok $? "rules-runtime: tests/runtime/ holds programs"

echo "1..$n"
