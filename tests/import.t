#!/bin/sh
# import.t — `ptofuzz import` and the fuzz target's signing: for engine inputs
# (byte files), the signatures the target prints, the crash state it aborts
# with, the signatures `ptofuzz import` records, and those `ptofuzz diff`
# gives for the recorded kernel are the same; a directory is read in name
# order without README.txt and dot files; the campaign row names the engine.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
S="$B/bin/ptofuzz-stdin"
BUGS=zero-valid-reject,odd-floor-half,pop-drops-lane1,store-axis-swap   # in defects.def order, as stored

mkdir -p "$T/crashes" "$T/in"
# Deterministic pseudo-random inputs of 24..280 bytes (a fixed LCG, not rand()).
perl -e 'my $x = 12345; for my $f (1 .. 12) { open(my $h, ">", "$ARGV[0]/in$f") or die; binmode $h;
  my $n = 24 + ($f * 37) % 257; for (1 .. $n) { $x = ($x * 1103515245 + 12345) % 2147483648; print $h chr(($x >> 16) & 255) } }' "$T/in"
n=0 crashes=0 states=0 first=0
for f in "$T"/in/in*; do
  PTOFUZZ_BUGS=$BUGS "$S" < "$f" > /dev/null 2> "$f.err"
  rc=$?
  [ $rc = 0 ] && continue
  crashes=$((crashes + 1))
  b=$(basename "$f")
  cp "$f" "$T/crashes/id:00000$crashes,sig:06,$b"
  sed -n 's/^signature=//p' "$f.err" > "$f.sigs"
  line=$(grep "Assertion \`" "$f.err")
  sig=$(printf '%s\n' "$line" | sed -n "s/.*Assertion \`\(.*\)' failed\.\$/\1/p")
  fn=$(printf '%s\n' "$line" | sed -n 's/^ptofuzz-target: fuzz\/target.c:[0-9]*: \([a-z_]*\): Assertion.*/\1/p')
  [ $rc = 134 ] && [ "$sig" = "$(head -n 1 "$f.sigs")" ] && [ "$fn" = "fz_found_${sig%%|*}" ] && states=$((states + 1))
done
[ "$crashes" -ge 3 ]
ok $? "import-1.1 the target aborts on inputs whose kernels give findings ($crashes of 12)"
[ "$states" = "$crashes" ]
ok $? "import-1.2 each abort: exit 134, an assertion line holding the first signature, from fz_found_KIND"

printf 'AFL++ readme\n' > "$T/crashes/README.txt"
printf '\377\377' > "$T/crashes/.state"
"$F" import "$T/crashes" --bugs=$BUGS --db="$T/i.db" > "$T/out" 2> "$T/err"
ok $? "import-2.1 import of a crashes/ directory exits 0"
[ "$(grep -c '^import: ' "$T/out")" = "$crashes" ] && ! grep -q 'README\|\.state' "$T/out"
ok $? "import-2.2 one line per crash file; README.txt and dot files skipped"
grep '^import: ' "$T/out" | sed 's/^import: \([^ ]*\) .*/\1/' > "$T/order" && sort "$T/order" | cmp -s - "$T/order"
ok $? "import-2.3 files in name order"
same=0
for f in "$T"/crashes/id:*; do
  b=${f##*,}
  got=$(grep "^import: $f " "$T/out" | sed 's/^import: [^ ]* signatures=//' | tr ',' '\n')
  [ "$got" = "$(cat "$T/in/$b.sigs")" ] && same=$((same + 1))
done
[ "$same" = "$crashes" ]
ok $? "import-2.4 import gives each file exactly the signatures the target printed, in order ($same of $crashes)"
tail -n 1 "$T/out" | grep -q "^summary: files=$crashes findings=[0-9]* unique=[0-9]* new=[0-9]* engine=afl db=$T/i.db\$"
ok $? "import-2.5 the summary line; the engine guessed from AFL++'s id: names"
[ "$(sqlite3 "$T/i.db" "select engine || ' ' || seed || ' ' || defects || ' ' || kernels from campaign;")" = "afl 0 $BUGS $crashes" ]
ok $? "import-2.6 one campaign row: engine afl, seed 0, the defects, kernels = files"
u=$(cat "$T"/in/*.sigs | sort -u | wc -l)
[ "$(sqlite3 "$T/i.db" 'select count(*) from finding;')" = "$u" ] &&
  [ "$(sqlite3 "$T/i.db" 'select sum(hits) from finding;')" = "$(cat "$T"/in/*.sigs | wc -l)" ]
ok $? "import-2.7 a finding per distinct signature, hits = files showing it"
[ "$(sqlite3 "$T/i.db" "select count(*) from testcase where seed != 0 or flags not like '--bugs=$BUGS schedule=%';")" = 0 ]
ok $? "import-2.8 test cases carry seed 0 and the campaign's flags"

# Each file alone: the recorded kernel through `ptofuzz diff` gives the same set.
agree=0 k=0
for f in "$T"/crashes/id:*; do
  k=$((k + 1))
  "$F" import "$f" --bugs=$BUGS --db="$T/one$k.db" > /dev/null 2>&1 || continue
  "$F" db export 1 --db="$T/one$k.db" > "$T/k$k.ptk" 2>/dev/null || continue
  "$F" diff "$T/k$k.ptk" --bugs=$BUGS 2>/dev/null | sed -n 's/.* sig=\([^ ]*\).*/\1/p' | sort -u > "$T/d$k"
  sqlite3 "$T/one$k.db" 'select signature from finding;' | sort > "$T/f$k"
  [ -s "$T/d$k" ] && cmp -s "$T/d$k" "$T/f$k" && agree=$((agree + 1))
done
[ "$agree" = "$crashes" ]
ok $? "import-3.1 ptofuzz diff on each recorded kernel gives the imported signatures ($agree of $crashes)"

PTOFUZZ_BUGS=$BUGS "$F" import "$T/crashes" --db="$T/i.db" --engine=libfuzzer > /dev/null 2>&1 &&
  [ "$(sqlite3 "$T/i.db" 'select sum(hits) from finding;')" = "$((2 * $(cat "$T"/in/*.sigs | wc -l)))" ] &&
  [ "$(sqlite3 "$T/i.db" 'select engine from campaign where id = 2;')" = libfuzzer ]
ok $? "import-3.2 PTOFUZZ_BUGS and --engine=libfuzzer; a second import counts its hits again"
"$F" import "$T/in/in1" --bugs=none --db="$T/c.db" > "$T/clean" 2>&1 && grep -q '^import: .* no finding$' "$T/clean" &&
  [ "$(sqlite3 "$T/c.db" 'select count(*) from finding;')" = 0 ]
ok $? "import-3.3 with --bugs=none (said to be clean) an input gives no finding"

# Defects in crash files: a last line #ptofuzz-bugs=LIST names them; a file
# that names none and gives no finding without defects is refused, not taken
# for "no finding"
D=corpus/bytes/defect-odd-floor-half
want=$("$F" import "$D" --bugs=odd-floor-half --db="$T/w.db" | sed -n 's/^import: [^ ]* signatures=//p')
mkdir -p "$T/named"
{ cat "$D"; printf '#ptofuzz-bugs=odd-floor-half\n'; } > "$T/named/crash-a"
{ cat corpus/bytes/defect-store-axis-swap; printf '#ptofuzz-bugs=store-axis-swap\n'; } > "$T/named/crash-b"
env -u PTOFUZZ_BUGS "$F" import "$T/named/crash-a" --db="$T/n.db" > "$T/out" 2>&1
[ $? = 0 ] && [ -n "$want" ] && grep -q "^import: $T/named/crash-a signatures=$want\$" "$T/out" &&
  [ "$(sqlite3 "$T/n.db" "select defects || ' ' || kernels from campaign")" = "odd-floor-half 1" ] &&
  [ "$(sqlite3 "$T/n.db" "select count(*) from testcase where flags like '--bugs=odd-floor-half %'")" -ge 1 ]
ok $? "import-5.1 a crash file naming its defects is signed with them, without --bugs (${want:-none})"
env -u PTOFUZZ_BUGS "$S" < "$T/named/crash-a" > /dev/null 2> "$T/err"
[ $? = 134 ] && grep -q "Assertion \`$want' failed" "$T/err"
ok $? "import-5.2 the fuzz target checks a file naming its defects with them (no PTOFUZZ_BUGS)"
env -u PTOFUZZ_BUGS "$F" import "$D" --db="$T/u.db" > "$T/out" 2> "$T/err"
[ $? = 1 ] && grep -q "^$D: error\[E-IMPORT-DEFECTS\]: .*--bugs=LIST.* \[user\]\$" "$T/err" &&
  [ "$(sqlite3 "$T/u.db" 'select count(*) from finding')" = 0 ] && [ "$(sqlite3 "$T/u.db" 'select count(*) from campaign')" = 0 ]
ok $? "import-5.3 a file that names no defects and gives no finding without them: E-IMPORT-DEFECTS, exit 1, nothing recorded"
env -u PTOFUZZ_BUGS "$F" import "$T/named" --db="$T/two.db" > "$T/out" 2>&1 &&
  [ "$(sqlite3 "$T/two.db" "select group_concat(defects || ':' || kernels, ' ') from campaign")" = "odd-floor-half:1 store-axis-swap:1" ]
ok $? "import-5.4 files naming different defects: a campaign row for each set"
{ cat "$D"; printf '#ptofuzz-bugs=no-such-defect\n'; } > "$T/badname"
"$F" import "$T/badname" --db="$T/b.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q "error\[E-IMPORT-DEFECTS\]: .*unknown defect 'no-such-defect'" "$T/err"
ok $? "import-5.5 a line naming an unknown defect: E-IMPORT-DEFECTS, exit 1"


"$F" import "$T/in" --engine=honggfuzz --db="$T/x.db" > /dev/null 2> "$T/e1"
[ $? = 1 ] && grep -q -- '--engine=honggfuzz' "$T/e1"
ok $? "import-4.1 an unknown engine is a usage error naming it"
"$F" import "$T/nothing" --db="$T/x.db" > /dev/null 2>&1
[ $? = 1 ]
ok $? "import-4.2 a missing PATH exits 1"
"$F" import "$T/in" --bugs=no-such-defect --db="$T/x.db" > /dev/null 2>&1
[ $? = 1 ]
ok $? "import-4.3 an unknown defect exits 1"
"$F" import --db="$T/x.db" > /dev/null 2>&1
[ $? = 1 ]
ok $? "import-4.4 no PATH is a usage error"
"$F" import --help | grep -q '^usage: ptofuzz import PATH'
ok $? "import-4.5 --help prints the usage, exit 0"
plan
