#!/bin/sh
# blind.t — full-mantissa inputs end to end: a campaign records the
# input mode of each test case in its flags (`--inputs=full`), as many test
# cases as its policy share says, and `ptofuzz diff --inputs=full|k16`
# replays one, as does `ptofuzz reduce --finding`; an unknown mode is a usage error.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
printf 'p_full_inputs = 1\n' > "$T/full.pol"
printf 'p_full_inputs = 0\n' > "$T/k16.pol"

"$F" run --count=40 --seed=4 --jobs=1 --bugs=odd-floor-half --policy="$T/full.pol" --db="$T/f.db" --quiet >/dev/null 2>&1
tc=$(sqlite3 "$T/f.db" "select count(*) from testcase;")
m=$(sqlite3 "$T/f.db" "select count(*) from testcase where flags like '%--inputs=full%';")
[ "$tc" -gt 0 ] && [ "$tc" = "$m" ]
ok $? "blind-4.1 p_full_inputs = 1: every test case's flags say --inputs=full ($m of $tc)"
"$F" run --count=40 --seed=4 --jobs=1 --bugs=odd-floor-half --policy="$T/k16.pol" --db="$T/k.db" --quiet >/dev/null 2>&1
tc=$(sqlite3 "$T/k.db" "select count(*) from testcase;")
m=$(sqlite3 "$T/k.db" "select count(*) from testcase where flags like '%--inputs=%';")
[ "$tc" -gt 0 ] && [ "$m" = 0 ]
ok $? "blind-4.2 p_full_inputs = 0: no test case names an input mode ($m of $tc)"
"$F" db export 1 --db="$T/f.db" > "$T/r.ptk" 2>/dev/null
"$F" diff "$T/r.ptk" --bugs=odd-floor-half --inputs=full >/dev/null 2>&1
[ $? = 3 ]
ok $? "blind-4.3 the exported finding replays with diff --inputs=full (exit 3)"
grep -v '^# flags:' "$T/r.ptk" > "$T/r0.ptk"                  # without its --bugs= header: the clean compiler
"$F" diff "$T/r0.ptk" --inputs=full > "$T/d1" 2>&1 && "$F" diff "$T/r0.ptk" --inputs=k16 > "$T/d2" 2>&1 && grep -q '^verdict=clean' "$T/d1"
ok $? "blind-4.4 the clean compiler is clean on it under both input modes"
"$F" diff "$T/r.ptk" --inputs=half >/dev/null 2>&1
[ $? = 1 ]
ok $? "blind-4.5 an unknown input mode is a usage error"
cp "$T/f.db" "$T/f2.db"
"$F" reduce --finding=1 --db="$T/f2.db" --max-calls=40 --time=30 >/dev/null 2>"$T/red"
rc=$?
[ $rc = 0 ] && grep -q '^reduce: statements' "$T/red"
ok $? "blind-4.6 reduce --finding of a full-inputs test case keeps its signature (exit $rc)"
plan
