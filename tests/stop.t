#!/bin/sh
# stop.t — long-running commands stop cleanly on SIGINT and SIGTERM: each
# command below is signalled while its children (model checks, or ptoas and
# clang under the real back end) run; it must exit 128 + the signal within
# a bound, and leave no live process and no work file behind (every path it
# uses is under $T, so `ps` finds its leftovers by their arguments; the real
# back end's cache is $T/cache). SIGINT goes to the whole process group, as a
# terminal's ^C does; SIGTERM to the command alone. The real cases skip where
# no real toolchain is found.
. "$(dirname "$0")/lib.sh"
unset PTOFUZZ_BUGS
F="$B/bin/ptofuzz"
C="$B/bin/pto-check"
export PTO_REAL_CACHE="$T/cache"
mkdir -p "$T/cache" "$T/in"

# live (not zombie) processes whose arguments name $T, this script's own aside
leftovers() { ps -eo pid=,stat=,args= | awk -v t="$T" -v me=$$ '$1 != me && $2 !~ /^Z/ && index($0, t)' | grep -v 'awk -v t='; }
# waits until a process runs a real tool on $T (up to 180 s): 0 when one does
tools_running() {
  i=0
  while [ $i -lt 900 ]; do
    ps -eo args= | grep -v grep | grep -q "$T/cache/run-" && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.2; i=$((i + 1))
  done
  return 1
}
# stop ID PID SIGNAL(INT|TERM) DESCRIPTION: signals PID (INT: its group), waits
# up to 20 s, checks the exit status, the leftovers and the cache
stop() {
  id=$1 pid=$2 sig=$3 what=$4
  if [ "$sig" = INT ]; then kill -INT "-$pid"; want=130; else kill -TERM "$pid"; want=143; fi
  t0=$(date +%s%N)
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
  ms=$((($(date +%s%N) - t0) / 1000000))
  kill -0 "$pid" 2>/dev/null && kill -KILL "-$pid" "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
  sleep 0.3                                     # what was killed is reaped
  [ $rc = $want ]
  ok $? "$id $what: SIG$sig ends it with exit $want ($rc, after $ms ms)"
  left=$(leftovers)
  [ -z "$left" ]
  ok $? "$id $what: no process is left"
  [ -z "$left" ] || echo "$left" | sed 's/^/#   /'
  junk=$(find "$T/cache" -maxdepth 1 \( -name 'run-*' -o -name '.ptofuzz-harness-*' \) | head -n 3)
  [ -z "$junk" ]
  ok $? "$id $what: no work file is left in the cache${junk:+ ($junk)}"
}

# ---- the model: pto-check over many reproducers, reduce ----
"$F" gen --seed=5 --count=2000 --out="$T/in"
sed -i '1i # expect: clean' "$T"/in/*.ptk
setsid env --default-signal=INT "$C" "$T/in" > "$T/m1.out" 2>&1 &
pid=$!
i=0
while ! grep -q '^\(not \)\{0,1\}ok 1 ' "$T/m1.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
stop stop-1.1 $pid TERM "pto-check (model)"
grep -q '^Bail out! stopped by SIGTERM$' "$T/m1.out" && ! grep -q '^1\.\.0' "$T/m1.out"
ok $? "stop-1.1 pto-check (model) says it stopped (Bail out!)"

"$F" gen --seed=6 --count=3000 --bytes-out="$T/bytes" > /dev/null 2>&1
setsid env --default-signal=INT "$F" import "$T/bytes" --bugs=none --db="$T/imp.db" > "$T/m2.out" 2>&1 &
pid=$!
sleep 2
stop stop-1.2 $pid INT "import (^C to its group)"
grep -q '^summary: files=[1-9][0-9]* .* stopped=SIGINT ' "$T/m2.out"
ok $? "stop-1.2 import prints its summary, stopped=SIGINT ($(grep -o 'files=[0-9]*' "$T/m2.out"))"

# ---- the real back end ----
"$F" diff corpus/seeds/c2v_only.ptk --backend=ptoas > "$T/probe" 2>&1
if [ $? = 2 ] && grep -q 'E-TOOL' "$T/probe"; then
  echo "# real cases skipped: $(grep -o 'no usable real toolchain.*' "$T/probe" | head -n 1)"
  plan
  exit 0
fi
rm -rf "$T/cache"/run-*

rm -f "$T"/in/*.ptk
cp corpus/real/*.ptk "$T/in/"
setsid env --default-signal=INT "$C" --backend=ptoas "$T/in" > "$T/r1.out" 2>&1 &
pid=$!
tools_running $pid
ok $? "stop-2.1 pto-check --backend=ptoas runs its tools"
stop stop-2.1 $pid TERM "pto-check --backend=ptoas"
grep -q '^Bail out! stopped by SIGTERM$' "$T/r1.out"
ok $? "stop-2.1 pto-check --backend=ptoas says it stopped"

if [ -z "$QUICK" ]; then
  setsid env --default-signal=INT "$C" --backend=ptoas "$T/in" > "$T/r2.out" 2>&1 &
  pid=$!
  tools_running $pid
  ok $? "stop-2.2 pto-check --backend=ptoas runs its tools"
  stop stop-2.2 $pid INT "pto-check --backend=ptoas (^C to its group)"

  cp tests/real/rowsum-pad.ptk "$T/pad.ptk"   # the reproducer of tests/real.t (f), padded
  setsid env --default-signal=INT "$F" reduce "$T/pad.ptk" --backend=ptoas -o "$T/red.ptk" > "$T/r3.out" 2>&1 &
  pid=$!
  i=0
  while ! grep -q '^reduce: check 1 ' "$T/r3.out" 2>/dev/null && kill -0 $pid 2>/dev/null && [ $i -lt 900 ]; do sleep 0.2; i=$((i + 1)); done
  grep -q '^reduce: check 1 ' "$T/r3.out"
  ok $? "stop-3.1 reduce --backend=ptoas is reducing"
  stop stop-3.1 $pid TERM "reduce --backend=ptoas"
  grep -q '^ptofuzz: reduce: stopped by SIGTERM$' "$T/r3.out" && grep -q 'row_sum' "$T/red.ptk" &&
    "$F" diff "$T/red.ptk" > /dev/null 2>&1
  ok $? "stop-3.1 reduce wrote the smallest kernel so far, a valid one"

  setsid env --default-signal=INT "$F" run --backend=ptoas --count=100 --seed=3 --db="$T/run.db" > "$T/r4.out" 2>&1 &
  pid=$!
  tools_running $pid
  ok $? "stop-4.1 run --backend=ptoas runs its tools"
  stop stop-4.1 $pid INT "run --backend=ptoas (^C to its group)"
  grep -q '^summary: .* stopped=SIGINT ' "$T/r4.out"
  ok $? "stop-4.1 run --backend=ptoas prints its summary, stopped=SIGINT"
fi
plan
