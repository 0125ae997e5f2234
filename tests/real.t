#!/bin/sh
# real.t — the real back end end to end (DESIGN section 13): ptoc's PTO-AS, the
# real ptoas and pto-isa's CPU simulation. Every seed through `ptofuzz diff
# --backend=ptoas` (variant lines, exit 0 or 3; the outcomes are printed as
# diagnostics); `pto-check --backend=ptoas` over corpus/real/ and on wrong
# expectations; a missing ptoas is E-TOOL (exit 2); `ptoc --emit=pto` on every
# seed, split (unsplit only for split_aiv kernels) and target either succeeds
# or is a documented `unsupported`;
# `ptofuzz reduce --backend=ptoas` on a padded reproducer. Skipped as a whole
# when no real toolchain is found (../shared/third_party, $PTOAS, $PTO_ISA).
. "$(dirname "$0")/lib.sh"
unset PTOFUZZ_BUGS
F="$B/bin/ptofuzz"
C="$B/bin/pto-check"
ROWSUM='crash|ptoas:up_down|cxx-error|static-assertion-failed-due-to-requirement-Inco|cxx|-'

"$F" diff corpus/seeds/c2v_only.ptk --backend=ptoas > "$T/probe" 2>&1
if [ $? = 2 ] && grep -q 'E-TOOL' "$T/probe"; then
  echo "1..0 # SKIP $(grep -o 'no usable real toolchain.*' "$T/probe" | head -n 1)"
  exit 0
fi

# (a) every seed through the real back end (two under the sanitizer build)
SEEDS=corpus/seeds/*.ptk
[ -n "$QUICK" ] && SEEDS="corpus/seeds/c2v_only.ptk corpus/seeds/v2c_only.ptk"
for f in $SEEDS; do
  name=$(basename "$f" .ptk)
  timeout 300 "$F" diff "$f" --backend=ptoas > "$T/$name.out" 2>&1
  rc=$?
  [ $rc = 0 ] || [ $rc = 3 ]
  ok $? "real-a-$name diff --backend=ptoas exits 0 or 3 ($rc)"
  lines=$(grep -c '^variant=' "$T/$name.out")
  [ "$lines" -ge 1 ] && ! grep '^variant=' "$T/$name.out" | grep -qv '^variant=ptoas:[a-z_]*@a[35] outcome=[a-z-]* '
  ok $? "real-a-$name $lines variant lines, each variant=ptoas:MODE@a3|a5 with an outcome"
  grep '^variant=' "$T/$name.out" | sed "s/^/#   $name: /"
done

# (b) the real reproducers (the two named below under the sanitizer build)
if [ -n "$QUICK" ]; then "$C" --backend=ptoas corpus/real/rowsum-few-rows.ptk corpus/real/clean-c2v.ptk > "$T/b" 2>&1
else "$C" --backend=ptoas > "$T/b" 2>&1; fi
rc=$?
[ $rc = 0 ] && grep -q '^1\.\.[1-9]' "$T/b" && ! grep -q '^not ok' "$T/b"
ok $? "real-b pto-check --backend=ptoas: every reproducer of corpus/real is ok (exit $rc)"
[ $rc = 0 ] || grep -A2 '^not ok' "$T/b" | sed 's/^/#   /' >&2   # stderr: prove shows it, CI logs keep it
grep -q "^ok [0-9]* - corpus/real/rowsum-few-rows.ptk gives $ROWSUM\$" "$T/b" &&
  grep -q '^ok [0-9]* - corpus/real/clean-c2v.ptk clean$' "$T/b"
ok $? "real-b the reproducers say what they checked (clean, gives SIGNATURE)"

# (c) wrong expectations, in one batch
mkdir -p "$T/wrong"
{ echo "# expect: $ROWSUM"; cat corpus/seeds/c2v_only.ptk; } > "$T/wrong/a-c2v-sig.ptk"
{ echo '# expect: clean'; grep -v '^# expect:' corpus/real/rowsum-few-rows.ptk; } > "$T/wrong/b-rowsum-clean.ptk"
{ echo '# expect: crash|ptoas:up_down|cxx-error|-|cxx|-'; grep -v '^# expect:' corpus/real/rowsum-few-rows.ptk; } > "$T/wrong/c-rowsum-other.ptk"
{ echo '# expect: crash|up_down|cxx-error|-|cxx|-'; cat corpus/seeds/c2v_only.ptk; } > "$T/wrong/d-model-mode.ptk"
cp corpus/real/rowsum-few-rows.ptk "$T/wrong/e-right.ptk"
"$C" --backend=ptoas "$T/wrong" > "$T/c" 2>&1
rc=$?
[ $rc = 3 ] && [ "$(grep -c '^not ok' "$T/c")" = 4 ] && grep -q '^ok 5 - .*e-right.ptk gives ' "$T/c"
ok $? "real-c wrong expectations are not ok, exit 3 ($rc); the right one is ok"
grep -q "^not ok 1 - .*a-c2v-sig.ptk # $ROWSUM is not among the findings" "$T/c" &&
  sed -n '/a-c2v-sig/{n;p}' "$T/c" | grep -qx '# signatures seen: none'
ok $? "real-c an expected signature that does not appear, with the signatures seen (none)"
grep -q '^not ok 2 - .*b-rowsum-clean.ptk # not clean: ptoas:up_down@a[35] crash ' "$T/c" &&
  sed -n '/b-rowsum-clean/{n;p}' "$T/c" | grep -qF "# signatures seen: $ROWSUM"
ok $? "real-c a finding where clean is expected, with the signatures seen"
grep -q '^not ok 3 - .*c-rowsum-other.ptk # crash|ptoas:up_down|cxx-error|-|cxx|- is not among the findings' "$T/c"
ok $? "real-c another signature of the same kind is not ok"
grep -q "^not ok 4 - .*d-model-mode.ptk # line 1: .*'up_down' is not a real back end's mode" "$T/c"
ok $? "real-c a model signature in a real expectation is a malformed header"
[ $rc = 3 ] || sed 's/^/#   /' "$T/c" >&2

# (d) no ptoas where it is said to be
PTOAS=/nonexistent "$F" diff corpus/seeds/c2v_only.ptk --backend=ptoas > "$T/d" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'error\[E-TOOL\]' "$T/d"
ok $? "real-d PTOAS=/nonexistent: diff --backend=ptoas exits 2 with error[E-TOOL] ($rc)"
PTOAS=/nonexistent "$C" --backend=ptoas > "$T/d2" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^1\.\.0 # SKIP no real toolchain: ptoas at /nonexistent' "$T/d2"
ok $? "real-d PTOAS=/nonexistent: pto-check --backend=ptoas prints a skip-all plan (1..0 and SKIP), exit 0 ($rc)"

# (e) ptoc --emit=pto: PTO-AS, or a documented unsupported
for f in $SEEDS; do
  name=$(basename "$f" .ptk)
  bad=
  splits="none up_down left_right"
  grep -q 'split_aiv' "$f" && splits=none  # written with split_aiv: compiled unsplit only (E-EXPLICIT)
  for split in $splits; do
    for tgt in a2a3 a5; do
      "$B/bin/ptoc" "$f" --split=$split --target=$tgt --emit=pto > "$T/e.pto" 2> "$T/e.err"
      rc=$?
      if [ $rc = 0 ]; then
        grep -q 'func.func @' "$T/e.pto" || bad="$bad $split@$tgt:no-func"
      elif [ $rc = 1 ] && grep -q 'error\[\(E-PTO\|E-SPLIT-[A-Z-]*\|E-CAPACITY\)\]: .*\[unsupported\]' "$T/e.err"; then
        echo "#   $name $split@$tgt: $(grep -o 'error\[[A-Z0-9-]*\]' "$T/e.err" | head -n 1)"
      else
        bad="$bad $split@$tgt:rc=$rc"
        sed 's/^/#   /' "$T/e.err" | head -n 3
      fi
    done
  done
  [ -z "$bad" ]
  ok $? "real-e-$name ptoc --emit=pto on every split and target: PTO-AS or unsupported${bad:+ (not:$bad)}"
done

# (e2) a split C2V of a window of a wider acc is popped at the buffer's columns
# (pto-isa writes it at the subview's parent-shaped type's; real-findings.md section 3)
"$B/bin/ptoc" corpus/real/c2v-window-pitch.ptk --split=up_down --target=a2a3 --emit=pto > "$T/w.pto" 2>&1 &&
  grep -q 'tpop_from_aic {id = 2, split = 1} -> !pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=32,' "$T/w.pto" &&
  "$B/bin/ptoc" corpus/real/c2v-window-pitch.ptk --split=none --target=a2a3 --emit=pto > "$T/w0.pto" 2>&1 &&
  grep -q 'tpop_from_aic {id = 0, split = 0} -> !pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16,' "$T/w0.pto"
ok $? "real-e2 an up_down C2V of a 16-column window of a 32-column acc pops 32 columns, unsplit 16"

# (e3) a3 cross-core flags: the function that sets or waits on one takes an FFTS base and sets it
# first (ptoas refuses the flags otherwise); a5 and a function without flags take none
"$B/bin/ptoc" corpus/real/a3-fence-ffts.ptk --target=a2a3 --emit=pto > "$T/ff.pto" 2>&1 &&
  [ "$(grep -c '^  func.func @.*, %slots: !pto.ptr<f32>, %ffts: memref<256xi64>) ' "$T/ff.pto")" = 2 ] &&
  [ "$(grep -c '^    pto.set_ffts %ffts : memref<256xi64>$' "$T/ff.pto")" = 2 ] &&
  "$B/bin/ptoc" corpus/real/a3-fence-ffts.ptk --target=a5 --emit=pto > "$T/ff5.pto" 2>&1 &&
  grep -q 'pto.sync.set' "$T/ff5.pto" && ! grep -q '%ffts\|set_ffts' "$T/ff5.pto" &&
  "$B/bin/ptoc" corpus/seeds/c2v_only.ptk --target=a2a3 --emit=pto > "$T/ff0.pto" 2>&1 &&
  ! grep -q '%ffts\|set_ffts' "$T/ff0.pto"
ok $? "real-e3 a3 functions with cross-core flags take %ffts and call pto.set_ffts; a5 and flag-free ones do not"

# (e4) a copy within acc or mat (no such tmov): the source's buffer under the copy's name when
# neither changes while the copy is read, else E-PTO (unsupported), never an acc-to-acc tmov
"$B/bin/ptoc" corpus/real/acc-move-copy.ptk --emit=pto > "$T/am.pto" 2>&1 &&
  ! grep -q 'c1_' "$T/am.pto" && ! grep -q 'tmov ins(%s0' "$T/am.pto" &&
  grep -q 'tmatmul.acc ins(%s0_[0-9]*, ' "$T/am.pto" &&
  "$B/bin/ptoc" corpus/real/mat-move-copy.ptk --emit=pto > "$T/mm.pto" 2>&1 && ! grep -q '%b_' "$T/mm.pto"
ok $? "real-e4 move within acc (mat): the copy is the source's buffer, no tmov and no buffer of its own"
"$B/bin/ptoc" corpus/real/acc-move-refused.ptk --emit=pto > "$T/ar.pto" 2> "$T/ar.err"
rc=$?
[ $rc = 1 ] && grep -q '^corpus/real/acc-move-refused.ptk:13:3: error\[E-PTO\]: move has no PTO-AS form: a copy of a tile within acc' "$T/ar.err" &&
  grep -q '\[unsupported\]$' "$T/ar.err"
ok $? "real-e4 a copy within acc whose source changes while it is read: E-PTO unsupported, exit 1 ($rc)"

# (f) (the plain build only: two whole reductions against clang)
if [ -z "$QUICK" ]; then
# (f) reduce against the real back end: the reproducer padded with statements that do not matter
cp tests/real/rowsum-pad.ptk "$T/pad.ptk"
"$F" diff "$T/pad.ptk" --backend=ptoas > "$T/f0" 2>&1
[ $? = 3 ] && grep -qF "sig=$ROWSUM" "$T/f0"
ok $? "real-f the padded subject gives the signature under diff --backend=ptoas"
"$F" reduce "$T/pad.ptk" --backend=ptoas > "$T/f1.ptk" 2> "$T/f1.err"
rc=$?
line=$(grep '^reduce: statements' "$T/f1.err")
[ $rc = 0 ] && echo "$line" | grep -qF ", signature $ROWSUM"
ok $? "real-f reduce --backend=ptoas exits 0 and keeps the first real finding's signature ($line)"
grep -q '^reduce: check [0-9]* ([0-9]* statements*): ' "$T/f1.err"
ok $? "real-f progress on stderr, one line per check"
a=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\1/')
b=$(echo "$line" | sed 's/reduce: statements \([0-9]*\) -> \([0-9]*\),.*/\2/')
[ "$a" = 8 ] && [ "$b" -lt "$a" ] && [ "$b" -le 4 ] && ! grep -q 'relu\|muls\|adds\|#' "$T/f1.ptk"
ok $? "real-f statements shrink ($a -> $b), the padding and the comments are gone"
sed 's/^/#   /' "$T/f1.ptk"
"$F" diff "$T/f1.ptk" --backend=ptoas > "$T/f2" 2>&1
[ $? = 3 ] && grep -qF "sig=$ROWSUM" "$T/f2"
ok $? "real-f the reduced kernel gives the signature under diff --backend=ptoas"
"$F" reduce "$T/pad.ptk" --signature="$ROWSUM" --max-calls=3 > "$T/f3.ptk" 2> "$T/f3.err"
[ $? = 0 ] && grep -q 'oracle calls 3,' "$T/f3.err" && grep -q 'stopped by a limit (3 oracle calls' "$T/f3.err" &&
  "$F" diff "$T/f3.ptk" --backend=ptoas 2>/dev/null | grep -qF "sig=$ROWSUM"
ok $? "real-f a real --signature picks the real back end; --max-calls stops early and the text reproduces"
# a real finding in a findings database, written the way a campaign writes it
"$F" db init --db="$T/f.db" > /dev/null &&
  sqlite3 "$T/f.db" "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, hits, status)
    VALUES('$ROWSUM', 'crash', 'ptoas:up_down', 'cxx-error', 'static-assertion-failed-due-to-requirement-Inco', 'cxx', '-', 1, 'new');
    INSERT INTO testcase(finding, kernel, seed, variant, flags, statements)
    VALUES(1, CAST(readfile('$T/pad.ptk') AS TEXT), 12345, 'ptoas:up_down@a3', '--bugs= --backend=ptoas', 0);"
"$F" reduce --finding=1 --db="$T/f.db" > "$T/f5.ptk" 2> "$T/f5.err"
rc=$?
sqlite3 "$T/f.db" "SELECT reduced FROM testcase WHERE id = 1" > "$T/f5.stored"
printf '\n' >> "$T/f5.ptk"
[ $rc = 0 ] && grep -q "^reduce: statements 8 -> [0-4], .*signature $ROWSUM" "$T/f5.err" && cmp -s "$T/f5.ptk" "$T/f5.stored"
ok $? "real-f reduce --finding=ID of a real finding uses the real back end and stores the reduced text ($rc)"
"$F" reduce corpus/seeds/c2v_only.ptk --backend=ptoas > /dev/null 2> "$T/f4.err"
[ $? = 1 ] && grep -q 'gives no finding on the real back end' "$T/f4.err"
ok $? "real-f a kernel without a real finding: exit 1"
fi

# (g) where a miscompile starts (oracle/probe.c): a lane placed at the wrong row
# blames the transfer that moved it; a loop that never runs (RF-9) the load in it
"$F" diff --backend=ptoas --bugs=placement-from-box corpus/regress/placement-from-box.ptk > "$T/g1" 2>&1
# (with the defect both lanes store row 7, in either order: lane1 or both, run by run)
grep -Eq '^variant=ptoas:up_down@a3 outcome=miscompile .* sig=miscompile\|ptoas:up_down\|-\|transfer\|run\|(both|lane1)$' "$T/g1" &&
  grep -q 'first wrong tile: adds at 12:20$' "$T/g1"
ok $? "real-g a lane placed from the box (placement-from-box) is a miscompile of the transfer, at the adds reading it"
grep '^variant=ptoas:up_down' "$T/g1" | sed 's/^/#   /'
grep -q '^ok [0-9]* - corpus/real/loop-negative-start.ptk gives miscompile|ptoas:none|-|load|run|-$' "$T/b" ||
  [ -n "$QUICK" ]
ok $? "real-g a loop that never runs (RF-9) is a miscompile of the load inside it"
plan
