#!/bin/sh
# diff.t — `ptofuzz diff` on every seed: verdict=clean, every line ok or a
# documented unsupported; and the specific verdicts the split modes must give.
. "$(dirname "$0")/lib.sh"
has() { grep -q -- "$1" "$T/$2.out"; }
for f in corpus/seeds/*.ptk; do
  name=$(basename "$f" .ptk)
  timeout 120 "$B/bin/ptofuzz" diff "$f" > "$T/$name.out" 2>&1
  ok $? "diff-$name exits 0"
  tail -n 1 "$T/$name.out" | grep -qx 'verdict=clean'
  ok $? "diff-$name verdict=clean"
  ! grep '^variant=' "$T/$name.out" | grep -qv 'outcome=ok\|outcome=unsupported'
  ok $? "diff-$name every variant is ok or unsupported"
  [ "$(grep -c '^variant=' "$T/$name.out")" = 8 ]
  ok $? "diff-$name 4 variants x 2 schedules"
  for code in $(grep 'outcome=unsupported' "$T/$name.out" | sed 's/.*code=\([^ ]*\).*/\1/' | sort -u); do
    grep -q -- "$code" docs/language.md docs/split.md 2>/dev/null
    ok $? "diff-$name unsupported $code is documented"
  done
done
has 'variant=none@a2a3 schedule=rr outcome=unsupported code=E-CAPACITY' qk_pv_64x512
ok $? "diff-capacity qk_pv_64x512 none@a2a3 is unsupported E-CAPACITY"
grep -A1 'variant=none@a2a3 schedule=rr' "$T/qk_pv_64x512.out" | grep -q 'needs [0-9]* bytes.* has 188416'
ok $? "diff-capacity the E-CAPACITY message gives the byte figures"
has 'variant=up_down schedule=rr outcome=ok' qk_pv_64x512 && has 'variant=up_down schedule=random:1 outcome=ok' qk_pv_64x512
ok $? "diff-capacity qk_pv_64x512 up_down is ok"
has 'variant=up_down schedule=rr outcome=ok' qk_pv_64x128 && has 'variant=up_down schedule=random:1 outcome=ok' qk_pv_64x128
ok $? "diff-slices qk_pv_64x128 up_down is ok (strided sub-slice stores along the split axis)"
has 'variant=none@a2a3 schedule=rr outcome=ok' fa_trim_5of16 && has 'variant=none@a2a3 schedule=random:1 outcome=ok' fa_trim_5of16
ok $? "diff-zero-valid fa_trim_5of16 none@a2a3 is ok (the replay lane passes and writes nothing)"
has 'variant=up_down schedule=rr outcome=ok' odd_rows_15
ok $? "diff-odd odd_rows_15 up_down is ok (halves of 8 and 7 rows)"
has 'variant=none@a2a3 schedule=rr outcome=ok' paged_gather_mat && has 'variant=up_down schedule=rr outcome=ok' paged_gather_mat
ok $? "diff-nz an unaligned gather into a mat tile is lowered per row and ok (DESIGN 14.9)"
has 'variant=up_down schedule=rr outcome=ok' paged_gather_mat_boxed
ok $? "diff-nz a box-aligned gather into a mat tile is ok"
# lowered text: its own machine run is the golden run; only its own target, unsplit, applies
for f in tests/runtime/ok-*.ptk; do
  name=$(basename "$f" .ptk)
  timeout 60 "$B/bin/ptofuzz" diff "$f" > "$T/low-$name.out" 2>&1
  ok $? "diff-lowered-$name a lowered program is clean (exit 0)"
  grep 'outcome=unsupported' "$T/low-$name.out" | grep -qv 'code=E-EXPLICIT'
  [ $? = 1 ]
  ok $? "diff-lowered-$name the other target and the split modes are unsupported E-EXPLICIT"
done
"$B/bin/ptofuzz" diff tests/runtime/R-GM-OOB-1.ptk > "$T/low-oob.out" 2>&1
[ $? = 1 ] && grep -q '^invalid: .*error\[R-GM-OOB\]' "$T/low-oob.out"
ok $? "diff-lowered-invalid a lowered program whose own run fails is invalid (exit 1, the runtime error)"
# DESIGN 14.4: a pure-vector kernel is not split, a mixed one is
cat > "$T/pv.ptk" <<'EOF2'
kernel pv(X: f32[16,32] in, O: f32[16,32] out) split(up_down) {
  x = load(X, [0, 0], [16, 32]);
  store(O, [0, 0], adds(x, 1));
}
EOF2
"$B/bin/ptoc" "$T/pv.ptk" --print-after=auto_split > "$T/pv.out" 2>&1 &&
  grep -q 'split(none)' "$T/pv.out" && ! grep -q 'split_aiv' "$T/pv.out"
ok $? "diff-pure-1.1 a pure-vector kernel under split(up_down) is left unsplit by auto_split"
sed 's/) split(up_down) {/, A: f16[16,16] in) split(up_down) {\n  a = load(A, [0, 0], [16, 16], space=mat);/' "$T/pv.ptk" > "$T/mx.ptk"
"$B/bin/ptoc" "$T/mx.ptk" --print-after=auto_split > "$T/mx.out" 2>&1 && grep -q 'split_aiv' "$T/mx.out"
ok $? "diff-pure-1.2 with a mat load on the side it is mixed and split"
"$B/bin/ptofuzz" diff "$T/pv.ptk" > "$T/pv.diff" 2>&1 && [ "$(grep -c 'outcome=ok' "$T/pv.diff")" = 8 ]
ok $? "diff-pure-1.3 every variant of the pure-vector kernel is ok"
"$B/bin/ptofuzz" diff "$T/pv.ptk" --bugs=split-pure-vector > "$T/pv.bug" 2>&1
[ $? = 3 ] && grep -q 'sig=miscompile|up_down|-|-|[a-z_]*|lane1' "$T/pv.bug"
ok $? "diff-pure-1.4 with split-pure-vector the split variant loses lane 1's half"
plan
