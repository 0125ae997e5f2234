#!/bin/sh
# campaign.t — `ptofuzz gen` and `ptofuzz run`: the same seed gives the same
# kernels and the same database rows; a campaign killed with -9 leaves a
# database that passes integrity_check; the summary line and db commands work.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"

"$F" gen --seed=3 --count=25 --out="$T/g1" && "$F" gen --seed=3 --count=25 --out="$T/g2" && diff -r "$T/g1" "$T/g2" >/dev/null
ok $? "campaign-1.1 gen: the same seed gives byte-identical kernels"
[ "$(ls "$T/g1" | wc -l)" = 25 ]
ok $? "campaign-1.2 gen: --count kernels written"
"$F" gen --seed=4 --count=1 > "$T/o4" && ! cmp -s "$T/o4" "$T/g1/k000000.ptk"
ok $? "campaign-1.3 gen: another seed gives another kernel"
bad=0
for k in "$T"/g1/*.ptk; do "$B/bin/ptosim" "$k" --reference >/dev/null 2>&1 || bad=$((bad + 1)); done
[ "$bad" = 0 ]
ok $? "campaign-1.4 gen: every generated kernel passes the reference run ($bad failed)"
"$F" gen --seed=1 --count=300 --stats > "$T/stats" && grep -q '^stats: kernels=300' "$T/stats"
ok $? "campaign-1.5 gen --stats counts the kernels"
[ "$(grep -c '^feature ' "$T/stats")" -ge 40 ]
ok $? "campaign-1.6 gen --stats lists the features"

for i in 1 2; do
  "$F" run --count=40 --seed=9 --jobs=2 --db="$T/r$i.db" --quiet > "$T/sum$i" 2>"$T/err$i"
  echo $? > "$T/rc$i"
done
[ "$(cat "$T/rc1")" = 0 ] && grep -q '^summary: kernels=40 valid=[01]\.[0-9]* findings=[0-9]* unique=[0-9]* seconds=[0-9.]* kernels_per_s=[0-9.]* seed=9 db=' "$T/sum1"
ok $? "campaign-2.1 run --count prints the summary line"
q() { sqlite3 "$1" "select signature, kind, hits, status from finding order by signature; select t.kernel, t.variant, t.seed from testcase t order by t.id; select engine, seed, policy, defects, kernels from campaign;"; }
q "$T/r1.db" > "$T/q1" && q "$T/r2.db" > "$T/q2" && cmp -s "$T/q1" "$T/q2"
ok $? "campaign-2.2 run: the same seed and count give the same database rows"
[ "$(sqlite3 "$T/r1.db" 'pragma user_version;')" -ge 1 ] && [ "$(sqlite3 "$T/r1.db" 'pragma journal_mode;')" = wal ]
ok $? "campaign-2.3 the database has a schema version and is in WAL mode"
"$F" db stats --db="$T/r1.db" | grep -q '^kernels 40$'
ok $? "campaign-2.4 db stats counts the campaign's kernels"
"$F" db list --db="$T/r1.db" >/dev/null
ok $? "campaign-2.5 db list runs"
"$F" db show 999999 --db="$T/r1.db" >/dev/null 2>&1
[ $? = 1 ]
ok $? "campaign-2.6 db show of an unknown id exits 1"

"$F" run --time=30 --seed=11 --jobs=2 --db="$T/k.db" --quiet > /dev/null 2>&1 &
pid=$!
sleep 3
kill -9 "$pid" 2>/dev/null                     # its workers die with it (PR_SET_PDEATHSIG)
wait "$pid" 2>/dev/null
[ "$(sqlite3 "$T/k.db" 'pragma integrity_check;')" = ok ]
ok $? "campaign-3.1 kill -9 of a campaign leaves a database that passes integrity_check"
"$F" run --count=10 --seed=12 --db="$T/k.db" --quiet >/dev/null 2>&1
ok $? "campaign-3.2 the killed campaign's database takes the next campaign"

# a campaign stopped by SIGINT (to its whole process group, as a terminal's ^C)
# or SIGTERM still ends its row and prints its summary; no worker is taken
# for a crash
if command -v setsid > /dev/null; then
  setsid "$F" run --time=30 --seed=13 --jobs=2 --bugs=odd-floor-half --db="$T/i.db" --quiet > "$T/isum" 2> "$T/ierr" &
  pid=$!
  sleep 1
  for w in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do   # until it has stored a finding (a slow build: longer)
    [ "$(sqlite3 "$T/i.db" 'select count(*) from testcase' 2>/dev/null)" -ge 1 ] 2>/dev/null && break
    sleep 1
  done
  kill -INT -"$pid"
  wait "$pid"; rc=$?
  [ $rc = 130 ] && grep -q '^summary: kernels=[1-9][0-9]* .* seed=13 stopped=SIGINT db=' "$T/isum"
  ok $? "campaign-6.1 SIGINT to the process group: summary with stopped=SIGINT, exit 130 ($rc)"
  k=$(sed -n 's/^summary: kernels=\([0-9]*\) .*/\1/p' "$T/isum")
  [ "$(sqlite3 "$T/i.db" "select kernels = $k and ended is not null and seconds > 0 from campaign")" = 1 ]
  ok $? "campaign-6.2 the interrupted campaign's row is ended with its kernels ($k) and seconds"
  [ "$(sqlite3 "$T/i.db" "select count(*) from finding where kind in ('crash', 'hang')")" = 0 ] &&
    [ "$(sqlite3 "$T/i.db" 'select count(*) from testcase')" -ge 1 ]
  ok $? "campaign-6.3 no crash recorded for the stopped workers; the findings made are kept"
else
  for i in 1 2 3; do echo "ok - campaign-6.$i # SKIP no setsid"; n=$((n + 1)); done
fi
"$F" run --time=20 --seed=14 --jobs=2 --db="$T/t.db" --quiet > "$T/tsum" 2>/dev/null &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"; rc=$?
[ $rc = 143 ] && grep -q ' stopped=SIGTERM db=' "$T/tsum" &&
  [ "$(sqlite3 "$T/t.db" 'select kernels > 0 and ended is not null from campaign')" = 1 ]
ok $? "campaign-6.4 SIGTERM: row ended, summary printed, exit 143 ($rc)"
"$F" run --time=20 --seed=15 --jobs=2 --db="$T/h.db" --quiet > "$T/hsum" 2>/dev/null &
pid=$!
sleep 2
kill -HUP "$pid"
wait "$pid"; rc=$?
[ $rc = 129 ] && grep -q ' stopped=SIGHUP db=' "$T/hsum" &&
  [ "$(sqlite3 "$T/h.db" 'select kernels > 0 and ended is not null from campaign')" = 1 ]
ok $? "campaign-6.6 SIGHUP (a closed terminal): row ended, summary printed, exit 129 ($rc)"
[ "$(sqlite3 "$T/r1.db" 'select count(*) from testcase where statements is null or statements <= 0')" = 0 ] &&
  "$F" run --count=40 --seed=7 --bugs=odd-floor-half --db="$T/st.db" --quiet > /dev/null 2>&1 &&
  [ "$(sqlite3 "$T/st.db" 'select count(*) > 0 and min(statements) > 0 from testcase')" = 1 ]
ok $? "campaign-6.5 testcase.statements is filled"

# a finding that cannot be stored stops the campaign: exit 2, the reason, and
# a summary that claims only what was stored
"$F" db init --db="$T/full.db" > /dev/null
sqlite3 "$T/full.db" "CREATE TRIGGER full BEFORE INSERT ON finding BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END;"
"$F" run --count=200 --seed=9 --bugs=odd-floor-half --db="$T/full.db" --quiet > "$T/fsum" 2> "$T/ferr"; rc=$?
[ $rc = 2 ] && grep -q 'could not be recorded.*disk full (simulated)' "$T/ferr" &&
  grep -q '^summary: .* findings=0 unique=0 .* stopped=db-error db=' "$T/fsum"
ok $? "campaign-7.1 a database that refuses findings: exit 2 with the reason, findings=0 ($rc)"
[ "$(sqlite3 "$T/full.db" 'select kernels < 200 and ended is not null from campaign')" = 1 ]
ok $? "campaign-7.2 it stopped early and still ended its row"
"$F" run --count=1 --seed=1 --db="$T/u.db" --quiet > /dev/null 2>&1
sh -c "trap '' XFSZ; ulimit -f 100 && exec \"$F\" run --count=400 --seed=5 --bugs=odd-floor-half --db=\"$T/u.db\" --quiet" > "$T/usum" 2> "$T/uerr"
rc=$?
stored=$(sqlite3 "$T/u.db" 'select count(*) from testcase t join campaign c on t.campaign = c.id where c.seed = 5')
claimed=$(sed -n 's/^summary: .* findings=\([0-9]*\) .*/\1/p' "$T/usum")
[ $rc = 2 ] && grep -q 'could not be recorded' "$T/uerr" && [ -n "$claimed" ] && [ "$claimed" -le "$stored" ]
ok $? "campaign-7.3 a file size limit (ulimit -f): exit 2, the summary claims $claimed findings, $stored stored ($rc)"

# without --seed, a fresh seed each run: recorded, printed, other kernels
"$F" run --count=30 --db="$T/a1.db" --quiet > "$T/a1" 2>/dev/null && "$F" run --count=30 --db="$T/a2.db" --quiet > "$T/a2" 2>/dev/null
s1=$(sed -n 's/^summary: .* seed=\([0-9]*\) db=.*/\1/p' "$T/a1"); s2=$(sed -n 's/^summary: .* seed=\([0-9]*\) db=.*/\1/p' "$T/a2")
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ]
ok $? "campaign-8.1 two runs without --seed print different seeds ($s1, $s2)"
[ "$(sqlite3 "$T/a1.db" "select printf('%llu', seed) from campaign")" = "$s1" ]
ok $? "campaign-8.2 the campaign row records the printed seed"
"$F" gen --seed="$s1" --count=1 > "$T/k1" && "$F" gen --seed="$s2" --count=1 > "$T/k2" && ! cmp -s "$T/k1" "$T/k2"
ok $? "campaign-8.3 the two seeds give different kernels"
"$F" run --count=5 --seed="$s1" --db="$T/a3.db" --quiet > "$T/a3" 2>/dev/null && grep -q " seed=$s1 db=" "$T/a3"
ok $? "campaign-8.4 the printed seed is accepted by --seed exactly"

# --reduce-new: the new findings' first test cases reduced after the run, the budget shared
"$F" run --bugs=store-axis-swap --count=400 --jobs=2 --seed=3 --db="$T/rn.db" --quiet --reduce-new=30 > "$T/rn" 2>/dev/null
got=$(sed -n 's/^summary: .* reduced=\([0-9]*\)\/\([0-9]*\) reduce_seconds=.*/\1 \2/p' "$T/rn")
fresh=$(sqlite3 "$T/rn.db" 'select count(*) from finding')
first='t.id = (select min(id) from testcase where finding = t.finding)'
kept=$(sqlite3 "$T/rn.db" "select count(*) from testcase t where $first and t.reduced is not null and length(t.reduced) <= length(t.kernel)")
red=$(sqlite3 "$T/rn.db" "select count(*) from testcase t where $first and t.reduced is not null and length(t.reduced) < length(t.kernel)")
[ -n "$got" ] && [ "${got#* }" = "$fresh" ] && [ "${got% *}" = "$kept" ] && [ "$red" -ge 1 ]
ok $? "campaign-9.1 --reduce-new: reduced=$got of $fresh new findings, each first test case kept or shortened ($red shorter)"
# a campaign killed outright keeps its last checkpoint of kernels (every 10 s); the
# sanitizer build (QUICK) leaves this wait to the plain one
if [ -n "$QUICK" ]; then
  echo "ok $((n + 1)) # SKIP the sanitizer build (QUICK): a 12-second wait"; n=$((n + 1))
else
"$F" run --time=60 --jobs=1 --seed=4 --db="$T/kill.db" --quiet > /dev/null 2>&1 &
kp=$!
sleep 12
kill -9 $kp; wait $kp 2>/dev/null
kk=$(sqlite3 "$T/kill.db" 'select coalesce(kernels, 0) || " " || (ended is null) from campaign')
[ "${kk#* }" = 1 ] && [ "${kk% *}" -gt 0 ]
ok $? "campaign-9.2 killed with -9 after 12 s: the row is un-ended and counts ${kk% *} kernels"
fi

printf '' | "$B/bin/ptofuzz-stdin" && printf 'ptofuzz\001\377\020' | "$B/bin/ptofuzz-stdin"
ok $? "campaign-5.1 the fuzzer entry point checks an empty and a short input without a finding"
head -c 4096 /dev/zero | "$B/bin/ptofuzz-stdin"
ok $? "campaign-5.2 zero bytes are default choices: a valid kernel, no finding"

"$F" run --count=5 --bugs=no-such-defect --db="$T/x.db" --quiet >/dev/null 2>&1
[ $? = 1 ]
ok $? "campaign-4.1 an unknown defect is a usage error"
"$F" bench nothing >/dev/null 2>&1
[ $? = 1 ]
ok $? "campaign-4.2 an unknown benchmark is a usage error"
plan
