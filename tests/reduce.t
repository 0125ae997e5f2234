#!/bin/sh
# reduce.t — `ptofuzz reduce` end to end. The subject is the odd-floor-half
# reproducer (corpus/regress) padded with statements that do not matter: with
# that defect on it must shrink, keep its signature under `ptofuzz diff`,
# reduce the same way twice, work from a findings database (--finding=ID
# stores the reduced text), and refuse bad usage with exit 1. The search
# itself is tested in depth by build/tests/t_reduce.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
unset PTOFUZZ_BUGS
BUG=--bugs=odd-floor-half
SIG='miscompile|up_down|-|-|auto_split|tail'

cat > "$T/k.ptk" <<'EOF2'
# padded: only x and the store of O matter to the finding
# (the matmul keeps it mixed: a pure-vector kernel is not split, DESIGN 14.4)
kernel pad(X: f32[15,32] in, Y: f32[8,32] in, O: f32[15,32] out, P: f32[8,32] out, A: f16[16,16] in, Q: f32[16,16] out) {
  a = load(A, [0, 0], [16, 16], space=mat);
  store(Q, [0, 0], matmul(a, a));
  y = load(Y, [0, 0], [8, 32]);
  for i in range(0, 3) {
    z = relu(y);
    store(P, [0, 0], muls(z, 2.0));
  }
  q = muls(y, 0.5);
  x = load(X, [0, 0], [15, 32]);
  w = exp(q);
  store(O, [0, 0], adds(x, 1));
}
EOF2
"$F" diff "$T/k.ptk" $BUG > "$T/d0" 2>/dev/null
[ $? = 3 ] && grep -qF "sig=$SIG" "$T/d0"
ok $? "reduce-1.0 the padded subject gives the finding under diff"

"$F" reduce "$T/k.ptk" $BUG > "$T/r1" 2> "$T/e1"
ok $? "reduce-1.1 reduce FILE exits 0"
line=$(grep '^reduce: ' "$T/e1")
echo "$line" | grep -Eq '^reduce: statements [0-9]+ -> [0-9]+, oracle calls [0-9]+, signature miscompile\|up_down\|-\|-\|auto_split\|tail$'
ok $? "reduce-1.2 the summary line on stderr ($line)"
a=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\1/')
b=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\2/')
[ "$a" -ge 8 ] && [ "$b" -lt "$a" ] && [ "$b" -le 3 ]
ok $? "reduce-1.3 statements shrink ($a -> $b)"
[ "$(wc -l < "$T/r1")" -lt "$(wc -l < "$T/k.ptk")" ] && ! grep -q 'relu\|muls\|exp\|#' "$T/r1"
ok $? "reduce-1.4 the padding and the comments are gone"
"$F" diff "$T/r1" $BUG > "$T/d1" 2>/dev/null
[ $? = 3 ] && grep -qF "sig=$SIG" "$T/d1"
ok $? "reduce-1.5 the reduced kernel gives the same signature under diff"
"$F" reduce "$T/k.ptk" $BUG -o "$T/r2" 2> "$T/e2" && cmp -s "$T/r1" "$T/r2" && cmp -s "$T/e1" "$T/e2"
ok $? "reduce-1.6 deterministic: a second run (-o OUT) gives the same text, counts and oracle calls"
"$F" reduce "$T/k.ptk" $BUG --signature="$SIG" > "$T/r3" 2>/dev/null && cmp -s "$T/r1" "$T/r3"
ok $? "reduce-1.7 --signature naming the first finding gives the same result"
"$F" reduce "$T/k.ptk" $BUG --max-calls=3 > "$T/r4" 2> "$T/e4"
[ $? = 0 ] && grep -q 'oracle calls 3,' "$T/e4" && grep -q 'stopped by a limit' "$T/e4" &&
  "$F" diff "$T/r4" $BUG 2>/dev/null | grep -qF "sig=$SIG"
ok $? "reduce-1.8 --max-calls stops early, says so, and the text still reproduces"

# a findings database with that finding, written the way a campaign writes it
"$F" db init --db="$T/f.db" > /dev/null
sqlite3 "$T/f.db" "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, hits, status)
  VALUES('$SIG', 'miscompile', 'up_down', '-', '-', 'auto_split', 'tail', 1, 'new');
  INSERT INTO testcase(finding, kernel, seed, variant, flags, statements)
  VALUES(1, CAST(readfile('$T/k.ptk') AS TEXT), 12345, 'up_down', '--bugs=odd-floor-half schedule=rr', 0);"
ok $? "reduce-2.0 a database holding the finding and its test case"
"$F" reduce --finding=1 --db="$T/f.db" > "$T/r5" 2> "$T/e5"
ok $? "reduce-2.1 reduce --finding=ID exits 0"
sqlite3 "$T/f.db" "SELECT reduced FROM testcase WHERE id = 1" > "$T/stored"
printf '\n' >> "$T/r5"                         # the sqlite3 shell ends each row with a newline
cmp -s "$T/r5" "$T/stored" && [ "$(wc -l < "$T/stored")" -lt "$(wc -l < "$T/k.ptk")" ]
ok $? "reduce-2.2 the reduced text is stored on the test case and printed"
"$F" db export 1 --db="$T/f.db" | grep -v '^#' > "$T/x.ptk" && "$F" diff "$T/x.ptk" $BUG 2>/dev/null | grep -qF "sig=$SIG"
ok $? "reduce-2.3 db export now gives the reduced kernel, which reproduces"
grep -q "signature $SIG" "$T/e5"
ok $? "reduce-2.4 the finding's own signature is the target"

expect1() { "$@" > /dev/null 2>&1; [ $? = 1 ]; }
expect1 "$F" reduce
ok $? "reduce-3.1 no FILE and no --finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" $BUG --finding=1 --db="$T/f.db"
ok $? "reduce-3.2 both FILE and --finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" $BUG --no-such-option
ok $? "reduce-3.3 an unknown option: exit 1"
expect1 "$F" reduce "$T/missing.ptk"
ok $? "reduce-3.4 a missing file: exit 1"
expect1 "$F" reduce corpus/seeds/c2v_only.ptk
ok $? "reduce-3.5 a kernel without a finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" $BUG --signature='miscompile|up_down|-|-|auto_split|lane1'
ok $? "reduce-3.6 a signature the kernel does not give: exit 1"
expect1 "$F" reduce --finding=7 --db="$T/f.db"
ok $? "reduce-3.7 an unknown finding: exit 1"
expect1 "$F" reduce "$T/k.ptk" --bugs=no-such-defect
ok $? "reduce-3.8 an unknown defect: exit 1"
expect1 "$F" reduce "$T/k.ptk" $BUG --backend=sideways
ok $? "reduce-3.9 an unknown back end: exit 1"
expect1 "$F" reduce "$T/k.ptk" $BUG --backend=model --jobs=2
ok $? "reduce-3.10 --jobs with the model back end: exit 1"
PTOAS=/nonexistent "$F" reduce "$T/k.ptk" --backend=ptoas > /dev/null 2> "$T/e6"
[ $? = 2 ] && grep -q 'error\[E-TOOL\]: no usable real toolchain' "$T/e6"
ok $? "reduce-3.11 --backend=ptoas without a real toolchain: exit 2, E-TOOL (real.t reduces with one)"
plan
