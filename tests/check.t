#!/bin/sh
# check.t — pto-check on fixtures made here from a seed kernel: a clean file
# with a `# defect:` header replays ok, and not ok once its defect is on (its
# made-up signature never appears); a signature taken from `ptofuzz diff`
# replays ok with its defect on; malformed header lines (a wrong case, an
# over-long line) and a missing `# expect:` are `not ok` for that file alone
# (exit 3); an unknown defect name and an unreadable path exit 1;
# --backend=ptoas without a real toolchain is a skip, its misuses exit 1;
# nothing to check (an empty directory, a run outside the repository) exits 1
# unless --allow-empty, which gives `1..0 # SKIP`; --db replays the fixed
# findings of a database (the reduced text when there is one) and nothing else.
. "$(dirname "$0")/lib.sh"
unset PTOFUZZ_BUGS
C="$B/bin/pto-check"
SEED="$T/seed.ptk"   # the odd-floor-half reproducer without its header: clean, and a finding with the defect
grep -v '^#' corpus/regress/odd-floor-half.ptk > "$SEED"
MADE='miscompile|up_down|-|-|auto_split|made-up'
fixture() { # DIR NAME HEADER-LINES...: the seed kernel headed by the lines
  d=$1 f=$2
  shift 2
  mkdir -p "$T/$d"
  { for l in "$@"; do printf '%s\n' "$l"; done; cat "$SEED"; } > "$T/$d/$f.ptk"
}

fixture ok clean '# expect: clean' "# defect: odd-floor-half -> miscompile $MADE"
"$C" "$T/ok" > "$T/o1" 2>&1
[ $? = 0 ] && [ "$(head -n 1 "$T/o1")" = 1..1 ] && grep -q "^ok 1 - $T/ok/clean.ptk clean\$" "$T/o1"
ok $? "check-1.1 a clean kernel with a defect header replays ok (exit 0)"
"$C" "$T/ok" --bugs=odd-floor-half > "$T/o2" 2>&1
[ $? = 3 ] && grep -q "^not ok 1 - $T/ok/clean.ptk # --bugs=odd-floor-half: miscompile|up_down|-|-|auto_split|made-up is not among the findings" "$T/o2"
ok $? "check-1.2 with its defect on, a signature that does not appear is not ok (exit 3)"
"$C" "$T/ok" --bugs=all > "$T/o3" 2>&1
[ $? = 3 ] && grep -q '^not ok 1 - .*made-up is not among the findings' "$T/o3"
ok $? "check-1.3 --bugs=all checks the file against its own defect"
"$C" "$T/ok" --bugs=replay-keeps-store > "$T/o4" 2>&1
[ $? = 0 ] && grep -q '^ok 1 - .* clean$' "$T/o4"
ok $? "check-1.4 with another defect on, the file is checked clean only"
"$C" "$T/ok/clean.ptk" > "$T/o5" 2>&1 && grep -q '^ok 1 - ' "$T/o5"
ok $? "check-1.5 a PATH may be a file"
PTOFUZZ_BUGS=odd-floor-half "$C" "$T/ok" > /dev/null 2>&1
[ $? = 3 ]
ok $? "check-1.6 PTOFUZZ_BUGS stands for --bugs"

# A real signature: the first finding `ptofuzz diff` reports with the defect on.
sig=$("$B/bin/ptofuzz" diff --bugs=odd-floor-half "$SEED" 2>/dev/null | sed -n \
  's/^variant=\([^ ]*\) schedule=[^ ]* outcome=\([^ ]*\) code=\([^ ]*\) op=\([^ ]*\) pass=\([^ ]*\) pattern=\([^ ]*\) sig=.*$/\2 \1 \3 \4 \5 \6/p' |
  head -n 1 | awk '{m = $2 ~ /^none/ ? "none" : $2; printf "%s|%s|%s|%s|%s|%s", $1, m, $3, $4, $5, $6}')
fixture real real '# expect: clean' "# defect: odd-floor-half -> ${sig%%|*} $sig"
[ -n "$sig" ] && "$C" "$T/real" --bugs=odd-floor-half > "$T/o6" 2>&1 && grep -q "^ok 1 - .* clean, --bugs=odd-floor-half gives $sig\$" "$T/o6"
ok $? "check-1.7 the signature ptofuzz diff shows ($sig) replays ok with its defect on"
"$C" "$T/real" "$T/ok" --bugs=all > "$T/o7" 2>&1
[ $? = 3 ] && grep -q '^ok 1 - ' "$T/o7" && grep -q '^not ok 2 - ' "$T/o7"
ok $? "check-1.8 several paths: one test point each, in argument order"

# Malformed header lines: not ok with the reason, the other files still run.
fixture bad a-arrow '# expect: clean' '# defect: odd-floor-half miscompile x|y'
fixture bad b-fields '# expect: clean' '# defect: odd-floor-half -> miscompile miscompile|up_down|-|-|auto_split'
fixture bad c-kind '# expect: clean' "# defect: odd-floor-half -> escape $MADE"
fixture bad d-expect '# expect: finding'
fixture bad e-twice '# expect: clean' '# expect: clean'
fixture bad f-mode '# expect: clean' '# defect: odd-floor-half -> miscompile miscompile|sideways|-|-|-|-'
fixture bad g-fine '# expect: clean'
"$C" "$T/bad" > "$T/b1" 2>&1
[ $? = 3 ] && [ "$(head -n 1 "$T/b1")" = 1..7 ] && [ "$(grep -c '^not ok' "$T/b1")" = 6 ] && grep -q '^ok 7 - .*g-fine.ptk clean$' "$T/b1"
ok $? "check-2.1 malformed headers are not ok, exit 3, the well-formed file is ok"
grep -q "^not ok 1 - .*a-arrow.ptk # line 2: malformed '# defect:' line" "$T/b1"
ok $? "check-2.2 a defect line without '->' names the problem and the line"
grep -q '^not ok 2 - .*b-fields.ptk # line 2: signature .* has 5 fields, not 6' "$T/b1"
ok $? "check-2.3 a signature with 5 fields"
grep -q "^not ok 3 - .*c-kind.ptk # line 2: kind 'escape' differs from the signature's kind 'miscompile'" "$T/b1"
ok $? "check-2.4 a kind that differs from the signature's"
grep -q "^not ok 4 - .*d-expect.ptk # line 1: unsupported expectation 'finding'" "$T/b1" &&
  grep -q "^not ok 5 - .*e-twice.ptk # line 2: a second '# expect:' line" "$T/b1" &&
  grep -q "^not ok 6 - .*f-mode.ptk # line 2: .*'sideways' is not a mode" "$T/b1"
ok $? "check-2.5 an unsupported expectation, a repeated header, an unknown mode"

# Input errors: exit 1 with a message, no TAP.
fixture unknown u '# expect: clean' "# defect: no-such-defect -> miscompile $MADE"
"$C" "$T/unknown" > "$T/u1" 2> "$T/u2"
[ $? = 1 ] && [ ! -s "$T/u1" ] && grep -q "u.ptk:2: unknown defect 'no-such-defect' (known: slice-halve-args," "$T/u2"
ok $? "check-3.1 an unknown defect name exits 1 with file:line and the known names"
fixture noexp n '# a kernel without an expectation'
fixture noexp o '# expect: clean'
"$C" "$T/noexp" > "$T/u3" 2>&1
[ $? = 3 ] && grep -q "^not ok 1 - .*n.ptk # no '# expect: clean' header line" "$T/u3" && grep -q '^ok 2 - .*o.ptk clean$' "$T/u3"
ok $? "check-3.2 a file without '# expect:' is not ok, the next file still runs (exit 3)"
"$C" "$T/no/such/dir" > /dev/null 2> "$T/u4"
[ $? = 1 ] && grep -q 'cannot read' "$T/u4"
ok $? "check-3.3 a path that does not exist exits 1"
"$C" "$T/ok" --bugs=no-such-defect > /dev/null 2> "$T/u5"
[ $? = 1 ] && grep -q "unknown defect 'no-such-defect'" "$T/u5"
ok $? "check-3.4 --bugs with an unknown name exits 1"
"$C" --frobnicate > /dev/null 2>&1
[ $? = 1 ]
ok $? "check-3.5 an unknown option exits 1"

# --backend=ptoas without the real toolchain (real.t checks it with one)
PTOAS=/nonexistent "$C" --backend=ptoas "$T/ok" > "$T/r1" 2>&1
[ $? = 0 ] && grep -q '^1\.\.0 # SKIP no real toolchain: ptoas at /nonexistent (\$PTOAS) is missing' "$T/r1"
ok $? "check-3.6 --backend=ptoas without a toolchain: a skip-all plan (1..0, SKIP no real toolchain: WHY), exit 0"
PTOAS=/nonexistent "$C" --backend=ptoas "$T/nothere" > "$T/r2" 2>&1
[ $? = 1 ] && grep -q "cannot read" "$T/r2" && ! grep -q SKIP "$T/r2"
ok $? "check-3.7 --backend=ptoas: an input error is exit 1, not a skip"
"$C" --backend=ptoas --ptoas=/nonexistent "$T/ok" > /dev/null 2> "$T/r3"
[ $? = 1 ] && grep -q 'no usable real toolchain: ptoas at /nonexistent (flag)' "$T/r3"
ok $? "check-3.8 --ptoas naming a missing ptoas exits 1"
"$C" --backend=ptoas --bugs=odd-floor-half "$T/ok" > /dev/null 2>&1
r1=$?
"$C" --backend=sideways "$T/ok" > /dev/null 2>&1
r2=$?
"$C" --jobs=2 "$T/ok" > /dev/null 2>&1
r3=$?
[ $r1 = 1 ] && [ $r2 = 1 ] && [ $r3 = 1 ]
ok $? "check-3.9 --bugs with --backend=ptoas, an unknown back end, --jobs with the model: exit 1 ($r1 $r2 $r3)"

mkdir -p "$T/empty"
out=$("$C" "$T/empty" 2> "$T/e1")
[ $? = 1 ] && [ -z "$out" ] && grep -q 'nothing to check' "$T/e1"
ok $? "check-4.1 an empty directory: nothing to check, exit 1 with a message"
out=$("$C" "$T/empty" --allow-empty)
[ $? = 0 ] && [ "$out" = '1..0 # SKIP no reproducers' ]
ok $? "check-4.1.1 --allow-empty: a skip-all plan (1..0 and SKIP), exit 0"
out=$(CA=$(realpath "$C") && cd "$T/empty" && "$CA" 2> "$T/e2")
[ $? = 1 ] && [ -z "$out" ] && grep -q 'nothing to check: no reproducers in corpus/regress/' "$T/e2"
ok $? "check-4.1.2 run outside the repository root (no corpus/regress/): exit 1, not a pass"
fixture inv inv '# expect: clean'
printf 'kernel broken(A: f32[4,4] in) { x = nope(A); }\n' >> "$T/inv/inv.ptk"
"$C" "$T/inv" > "$T/i1" 2>&1
[ $? = 3 ] && grep -q '^not ok 1 - .*inv.ptk # the kernel is invalid: E-' "$T/i1"
ok $? "check-4.2 an invalid kernel is not ok"
"$C" "$T/ok" "$T/bad" --bugs=all > "$T/d1" 2>&1; "$C" "$T/ok" "$T/bad" --bugs=all > "$T/d2" 2>&1
cmp -s "$T/d1" "$T/d2"
ok $? "check-4.3 two runs print the same"

# --db: fixed findings are replayed clean; new ones are not; reduced text first.
"$B/bin/ptofuzz" db init --db="$T/f.db" > /dev/null &&
  sqlite3 "$T/f.db" "
    INSERT INTO finding(id, signature, kind, hits, status) VALUES
      (1, 'miscompile|up_down|-|-|auto_split|tail', 'miscompile', 1, 'fixed'),
      (2, 'reject|up_down|B-STORE|store|auto_split|-', 'reject', 1, 'fixed'),
      (3, 'escape|up_down|R-RACE|store|auto_split|-', 'escape', 1, 'new');
    INSERT INTO testcase(finding, kernel, reduced) VALUES
      (1, CAST(readfile('$SEED') AS TEXT), NULL),
      (2, CAST(readfile('$SEED') AS TEXT), NULL),
      (2, CAST(readfile('$SEED') AS TEXT), 'kernel broken(A: f32[4,4] in) { x = nope(A); }'),
      (3, 'kernel broken(A: f32[4,4] in) { x = nope(A); }', NULL);"
ok $? "check-5.1 a findings database with fixed findings"
"$C" "$T/empty" --db="$T/f.db" --allow-empty > "$T/db1" 2>&1
rc=$?
[ $rc = 3 ] && [ "$(head -n 1 "$T/db1")" = 1..2 ] &&
  grep -q '^ok 1 - db finding 1 miscompile|up_down|-|-|auto_split|tail clean$' "$T/db1" &&
  grep -q '^not ok 2 - db finding 2 reject|up_down|B-STORE|store|auto_split|- # the kernel is invalid' "$T/db1"
ok $? "check-5.2 --db replays each fixed finding's test case, the reduced text when there is one (exit $rc)"
"$C" "$T/ok" --db="$T/f.db" | head -n 1 | grep -qx '1\.\.3'
ok $? "check-5.3 --db adds its test points after the files'"
"$C" "$T/empty" --db="$T/nope.db" --allow-empty > /dev/null 2>&1
[ $? = 1 ] && [ ! -e "$T/nope.db" ]
ok $? "check-5.4 --db of a missing file exits 1 and creates nothing"

# Headers written wrong are errors naming the line, not comments; echoes are bounded.
fixture hdr a-case '# expect: clean' '# Defect: odd-floor-half -> miscompile x'
fixture hdr b-blank '# expect : clean'
fixture hdr c-upper '# EXPECT: clean'
long=$(head -c 1048576 /dev/zero | tr '\0' x)
fixture hdr d-long "# expect: $long"
fixture hdr e-padded "# expect: clean$(head -c 2000 /dev/zero | tr '\0' ' ')junk"
fixture hdr f-fine '# expect: clean' '# expected to be clean: a comment, not a header'
"$C" "$T/hdr" > "$T/h1" 2>&1
[ $? = 3 ] && [ "$(head -n 1 "$T/h1")" = 1..6 ]
ok $? "check-6.1 malformed headers: exit 3, one test point per file"
grep -q "^not ok 1 - .*a-case.ptk # line 2: malformed header '# Defect'" "$T/h1"
ok $? "check-6.2 '# Defect:' (wrong case) is not ok, naming the line"
grep -q "^not ok 2 - .*b-blank.ptk # line 1: malformed header '# expect'" "$T/h1" &&
  grep -q "^not ok 3 - .*c-upper.ptk # line 1: malformed header '# EXPECT'" "$T/h1"
ok $? "check-6.3 a blank before the colon, an upper-case keyword"
grep -q "^not ok 4 - .*d-long.ptk # line 1: header line longer than 1022 characters" "$T/h1" &&
  grep -q "^not ok 5 - .*e-padded.ptk # line 1: header line longer than 1022 characters" "$T/h1"
ok $? "check-6.4 an over-long header line is not ok (never judged on a cut copy)"
[ "$(wc -c < "$T/h1")" -lt 4000 ]
ok $? "check-6.5 a 1 MB header line is not echoed ($(wc -c < "$T/h1") bytes of output)"
grep -q '^ok 6 - .*f-fine.ptk clean$' "$T/h1"
ok $? "check-6.6 a comment that only starts like a header is a comment"
plan
