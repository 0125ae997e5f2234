#!/bin/sh
# reduce.t — `ptofuzz reduce` end to end. The clean compiler gives no finding
# on a source kernel, so the subject is the one finding today's code has: a
# lowered program (tests/runtime/R-GM-OOB-1.ptk) handed to the oracle aborts in
# the reference interpreter, `crash|none|Aborted|-|-|-` as a campaign records
# it, which only a check in a forked child can observe. Padded with a loop and
# statements that do not matter, it must shrink, keep that signature under
# `ptofuzz diff`, reduce the same way twice, work from a findings database
# (--finding=ID stores the reduced text), and refuse bad usage with exit 1.
# The search itself is tested in depth by build/tests/t_reduce.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
SIG='crash|none|Aborted|-|-|-'

sed '/^  aiv {$/a\
    # padding: none of this matters to the finding\
    for _pad in range(0, 4, 1) {\
      _q1 = alloc_tile(vec, f32, [8, 32], [8, 32]);\
      _q1 = adds(_q1, 1.0);\
      _q2 = relu(_q1);\
    }' tests/runtime/R-GM-OOB-1.ptk > "$T/k.ptk"
"$F" diff "$T/k.ptk" > "$T/d0" 2>/dev/null
[ $? = 3 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=crash code=Aborted$' "$T/d0"
ok $? "reduce-1.0 the padded subject gives the crash finding under diff"

"$F" reduce "$T/k.ptk" > "$T/r1" 2> "$T/e1"
ok $? "reduce-1.1 reduce FILE exits 0"
line=$(grep '^reduce: ' "$T/e1")
echo "$line" | grep -Eq '^reduce: statements [0-9]+ -> [0-9]+, oracle calls [0-9]+, signature crash\|none\|Aborted\|-\|-\|-$'
ok $? "reduce-1.2 the summary line on stderr ($line)"
a=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\1/')
b=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\2/')
[ "$a" -ge 20 ] && [ "$b" -lt "$a" ] && [ "$b" -le 3 ]
ok $? "reduce-1.3 statements shrink ($a -> $b)"
[ "$(wc -l < "$T/r1")" -lt "$(wc -l < "$T/k.ptk")" ] && ! grep -q '_pad\|tstore\|#' "$T/r1"
ok $? "reduce-1.4 the padding, the stores and the comments are gone"
"$F" diff "$T/r1" > "$T/d1" 2>/dev/null
[ $? = 3 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=crash code=Aborted$' "$T/d1"
ok $? "reduce-1.5 the reduced kernel gives the same signature under diff"
"$F" reduce "$T/k.ptk" -o "$T/r2" 2> "$T/e2" && cmp -s "$T/r1" "$T/r2" && cmp -s "$T/e1" "$T/e2"
ok $? "reduce-1.6 deterministic: a second run (-o OUT) gives the same text, counts and oracle calls"
"$F" reduce "$T/k.ptk" --signature="$SIG" > "$T/r3" 2>/dev/null && cmp -s "$T/r1" "$T/r3"
ok $? "reduce-1.7 --signature naming the first finding gives the same result"
"$F" reduce "$T/k.ptk" --max-calls=3 > "$T/r4" 2> "$T/e4"
[ $? = 0 ] && grep -q 'oracle calls 3,' "$T/e4" && grep -q 'stopped by a limit' "$T/e4" &&
  "$F" diff "$T/r4" 2>/dev/null | grep -q 'outcome=crash code=Aborted'
ok $? "reduce-1.8 --max-calls stops early, says so, and the text still reproduces"

# a findings database with that finding, written the way a campaign writes it
"$F" db stats --db="$T/f.db" > /dev/null
sqlite3 "$T/f.db" "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, hits, status)
  VALUES('$SIG', 'crash', 'none', 'Aborted', '-', '-', '-', 1, 'new');
  INSERT INTO testcase(finding, kernel, seed, variant, flags, statements)
  VALUES(1, CAST(readfile('$T/k.ptk') AS TEXT), 12345, 'none@a2a3', '--bugs= schedule=rr', 0);"
ok $? "reduce-2.0 a database holding the finding and its test case"
"$F" reduce --finding=1 --db="$T/f.db" > "$T/r5" 2> "$T/e5"
ok $? "reduce-2.1 reduce --finding=ID exits 0"
sqlite3 "$T/f.db" "SELECT reduced FROM testcase WHERE id = 1" > "$T/stored"
printf '\n' >> "$T/r5"                         # the sqlite3 shell ends each row with a newline
cmp -s "$T/r5" "$T/stored" && [ "$(wc -l < "$T/stored")" -lt "$(wc -l < "$T/k.ptk")" ]
ok $? "reduce-2.2 the reduced text is stored on the test case and printed"
"$F" db export 1 --db="$T/f.db" | grep -v '^#' > "$T/x.ptk" && "$F" diff "$T/x.ptk" 2>/dev/null | grep -q 'outcome=crash code=Aborted'
ok $? "reduce-2.3 db export now gives the reduced kernel, which reproduces"
grep -q "signature $SIG" "$T/e5"
ok $? "reduce-2.4 the finding's own signature is the target"

expect1() { "$@" > /dev/null 2>&1; [ $? = 1 ]; }
expect1 "$F" reduce
ok $? "reduce-3.1 no FILE and no --finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" --finding=1 --db="$T/f.db"
ok $? "reduce-3.2 both FILE and --finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" --no-such-option
ok $? "reduce-3.3 an unknown option: exit 1"
expect1 "$F" reduce "$T/missing.ptk"
ok $? "reduce-3.4 a missing file: exit 1"
expect1 "$F" reduce corpus/seeds/c2v_only.ptk
ok $? "reduce-3.5 a kernel without a finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" --signature='miscompile|up_down|-|add|auto_split|lane1'
ok $? "reduce-3.6 a signature the kernel does not give: exit 1"
expect1 "$F" reduce --finding=7 --db="$T/f.db"
ok $? "reduce-3.7 an unknown finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" --bugs=no-such-defect
ok $? "reduce-3.8 an unknown defect: exit 1"
plan
