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
[ "$(cat "$T/rc1")" = 0 ] && grep -q '^summary: kernels=40 valid=[01]\.[0-9]* findings=[0-9]* unique=[0-9]* seconds=[0-9.]* kernels_per_s=[0-9.]* db=' "$T/sum1"
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
