#!/bin/sh
# shard.t — `ptofuzz run --shard=I/N` (DESIGN section 15): the shards of a
# range, each in its own database, merged with `ptofuzz db merge`, hold the
# same findings (signature and fields, summary, hits, status, first bad pass)
# and the same test cases (kernel text, seed, variant, flags, statements,
# kernel index) as one campaign over the range, for every finding: one with
# more than DB_TESTCASE_CAP (3) hits keeps the 3 lowest-index kernels and the
# lowest one's summary whichever file is merged first, and its first test
# case (what report, export and reduce read) is the single run's. An
# injected defect makes sure there are findings, some above the cap.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
A="--count=60 --seed=9 --bugs=pop-drops-lane1 --quiet"

"$F" run $A --jobs=2 --db="$T/one.db" > /dev/null 2>&1
ok $? "shard-1.1 one campaign over kernels 0..59"
"$F" run $A --jobs=1 --shard=0/2 --db="$T/s0.db" > "$T/sum0" 2>/dev/null &&
  "$F" run $A --jobs=2 --shard=1/2 --db="$T/s1.db" > "$T/sum1" 2>/dev/null
ok $? "shard-1.2 shards 0/2 and 1/2 run"
grep -q '^summary: kernels=30 ' "$T/sum0" && grep -q '^summary: kernels=30 ' "$T/sum1"
ok $? "shard-1.3 each shard checks its 30 kernels"
above=$(sqlite3 "$T/one.db" 'select count(*) from finding where hits > 3;')
[ -n "$above" ] && [ "$above" -gt 0 ]
ok $? "shard-1.4 the defect gives findings ($(sqlite3 "$T/one.db" 'select count(*) from finding where hits <= 3;') within the test-case cap, $above above)"
# Both shards in one call, shard 1 first (its test cases are not the lowest-index ones).
"$F" db merge "$T/s1.db" "$T/s0.db" --db="$T/m.db" > "$T/merge.out" 2>&1
ok $? "shard-1.5 db merge of both shards exits 0"
fields="signature, kind, mode, code, op, pass, pattern, summary, hits, status, first_bad_pass"
tc="select f.signature, t.kernel, t.variant, t.flags, t.seed, t.statements, t.kernel_index from testcase t join finding f on f.id = t.finding"
rows() { sqlite3 "$1" "select $fields from finding order by signature; $tc order by 1, 2, 3, 4, 5;"; }
sqlite3 "$T/one.db" "select $fields from finding order by signature;" > "$T/f1"
sqlite3 "$T/m.db" "select $fields from finding order by signature;" > "$T/fm"
[ -s "$T/f1" ] && cmp -s "$T/f1" "$T/fm"
ok $? "shard-1.6 merged shards: the same findings, fields, summaries and hits as one campaign"
sqlite3 "$T/one.db" "$tc order by 1, 2, 3, 4, 5;" > "$T/t1"
sqlite3 "$T/m.db" "$tc order by 1, 2, 3, 4, 5;" > "$T/tm"
[ -s "$T/t1" ] && cmp -s "$T/t1" "$T/tm"
ok $? "shard-1.7 merged shards: the same test cases for every finding, above the cap too"
key="select f.signature, t.seed, t.variant, t.flags from testcase t join finding f on f.id = t.finding"
sqlite3 "$T/m.db" "$key;" | sort > "$T/km"
{ sqlite3 "$T/s0.db" "$key;"; sqlite3 "$T/s1.db" "$key;"; } | sort > "$T/ks"
[ -s "$T/km" ] && ! comm -23 "$T/km" "$T/ks" | grep -q .
ok $? "shard-1.8 every merged test case is one a shard recorded"
"$F" db merge "$T/s0.db" "$T/s1.db" --db="$T/m2.db" > /dev/null 2>&1 && [ "$(rows "$T/m.db")" = "$(rows "$T/m2.db")" ]
ok $? "shard-1.9 the other merge order gives the same rows"
# The first test case (lowest id: what report, export and reduce take) is the single run's too.
bad=0 nf=0
for sig in $(sqlite3 "$T/one.db" "select signature from finding order by id"); do
  nf=$((nf + 1))
  for m in m m2; do
    a=$(sqlite3 "$T/one.db" "select id from finding where signature = '$sig'")
    b=$(sqlite3 "$T/$m.db" "select id from finding where signature = '$sig'")
    [ "$("$F" db export "$a" --db="$T/one.db" 2>&1 | sed 1d)" = "$("$F" db export "$b" --db="$T/$m.db" 2>&1 | sed 1d)" ] || bad=$((bad + 1))
  done
done
[ $nf -gt 0 ] && [ $bad = 0 ]
ok $? "shard-1.10 both merge orders: db export of each of the $nf findings equals the single run's but for the finding id ($bad differ)"

"$F" run --count=20 --seed=4 --bugs=pop-drops-lane1 --quiet --shard=0/1 --db="$T/a.db" > /dev/null 2>&1 &&
  "$F" run --count=20 --seed=4 --bugs=pop-drops-lane1 --quiet --db="$T/b.db" > /dev/null 2>&1 &&
  [ "$(sqlite3 "$T/a.db" "select $fields from finding order by 1; $tc order by 1, 2;")" = \
    "$(sqlite3 "$T/b.db" "select $fields from finding order by 1; $tc order by 1, 2;")" ]
ok $? "shard-2.1 --shard=0/1 is the whole range"
fails=0
for bad in 2/2 -1/2 1/0 x 1 1/2/3 /2 1/; do
  "$F" run --count=1 --shard=$bad --db="$T/x.db" > /dev/null 2> "$T/err"
  if [ $? != 1 ] || ! grep -q -- "--shard=$bad" "$T/err"; then echo "# --shard=$bad: not a usage error"; fails=1; fi
done
[ "$fails" = 0 ]
ok $? "shard-2.2 a malformed --shard is a usage error that names it"
plan
