#!/bin/sh
# bad.t — malformed kernels. Every tests/bad/NNN-name.ptk starts with
#   # expect: CODE LINE:COL        the diagnostic ptoc must give, and where
#   # what is wrong                one line
#   # todo: why                    optional: a known compiler bug; its three
#                                  checks are reported as TAP TODO
# For each kernel, three checks: ptoc exits with status exactly 1 (so no
# crash, > 128, and no hang: timeout gives 124), the first line of stderr
# starts with "FILE:LINE:COL: error[CODE]:", and stderr has a caret line.
# An empty file (which cannot carry a header) is generated here.
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

# ok STATUS DESCRIPTION [TODO-REASON]
ok() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then r=ok; else r="not ok"; fi
  if [ -n "$3" ]; then echo "$r $n - $2 # TODO $3"; else echo "$r $n - $2"; fi
}

# check FILE NAME CODE LINE:COL [TODO-REASON]
check() {
  f=$1 name=$2 code=$3 loc=$4 todo=$5
  timeout 10 "$B/bin/ptoc" "$f" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 1 ]
  ok $? "$name: exit status 1 (got $rc)" "$todo"
  first=$(head -n 1 "$T/err")
  case $first in
    "$f:$loc: error[$code]:"*) s=0 ;;
    *) s=1 ;;
  esac
  ok $s "$name: reports $code at $loc" "$todo"
  grep -q '^[[:blank:]]*\^[[:blank:]]*$' "$T/err"
  ok $? "$name: prints a caret line" "$todo"
  if [ $s != 0 ] || [ "$rc" != 1 ]; then
    echo "# expected: $f:$loc: error[$code]:"
    head -n 3 "$T/err" | sed 's/^/# got:      /'
  fi
}

found=0
for f in tests/bad/*.ptk; do
  [ -e "$f" ] || continue
  found=1
  base=$(basename "$f" .ptk)
  name="bad-$base"
  hdr=$(head -n 1 "$f" | tr -d '\r')
  code=$(echo "$hdr" | sed -n 's/^# expect: \([A-Z][A-Z-]*\) \([0-9][0-9]*:[0-9][0-9]*\)$/\1/p')
  loc=$(echo "$hdr" | sed -n 's/^# expect: \([A-Z][A-Z-]*\) \([0-9][0-9]*:[0-9][0-9]*\)$/\2/p')
  todo=$(sed -n '3s/^# todo: //p' "$f" | tr -d '\r')
  if [ -z "$code" ] || [ -z "$loc" ]; then
    ok 1 "$name: first line is '# expect: CODE LINE:COL'"
    continue
  fi
  check "$f" "$name" "$code" "$loc" "$todo"
done
[ $found = 1 ]
ok $? "tests/bad/ holds kernels"

: >"$T/empty.ptk"
check "$T/empty.ptk" "bad-empty-file" E-PARSE 1:1

echo "1..$n"
