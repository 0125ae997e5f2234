#!/bin/sh
# mem.t — memplan's placement (DESIGN 14.10) as `ptoc --print-after=memplan`
# shows it: buffers with disjoint lifetimes share bytes, buffers live at once
# do not, the C2V reserve sits at the bottom of vec with the popped value in
# it, a view sits at its parent's offset plus its window's start; the plan is
# deterministic and the addressed machine runs the kernel to the reference.
. "$(dirname "$0")/lib.sh"

# mem LINES NAME: the "START-END" (or START) column of NAME's `# mem` line
mem() { awk -v n="$2" '$1 == "#" && $2 == "mem" && $6 == n { print $5; exit }' "$1"; }
start() { mem "$1" "$2" | sed 's/-.*//'; }

cat > "$T/reuse.ptk" <<'K'
kernel reuse(A: f32[16, 64] in, O: f32[16, 64] out, P: f32[16, 64] out) split(none) target(a5) slots(2) {
  a = load(A, [0, 0], [16, 64]);
  b = adds(a, 1.0);
  store(O, [0, 0], b);
  c = load(A, [0, 0], [16, 64]);
  d = muls(c, 2.0);
  store(P, [0, 0], d);
}
K
"$B/bin/ptoc" "$T/reuse.ptk" --print-after=memplan --stop-after=memplan > "$T/r1"
ok $? "mem-reuse ptoc prints the IR after memplan"
[ -n "$(mem "$T/r1" a)" ] && [ "$(mem "$T/r1" a)" = "$(mem "$T/r1" c)" ]
ok $? "mem-reuse a and c (disjoint lifetimes) get the same bytes: $(mem "$T/r1" a) $(mem "$T/r1" c)"
[ -n "$(mem "$T/r1" b)" ] && [ "$(mem "$T/r1" b)" = "$(mem "$T/r1" d)" ]
ok $? "mem-reuse b and d (disjoint lifetimes) get the same bytes: $(mem "$T/r1" b) $(mem "$T/r1" d)"
[ "$(start "$T/r1" a)" != "$(start "$T/r1" b)" ]
ok $? "mem-reuse a and b (b = adds(a, 1.0): both live there) do not share a start"
grep -q '^# mem aiv vec top 0x02000 of 0x3c000$' "$T/r1"
ok $? "mem-reuse the vec space ends at two 4096-byte buffers (of a5's 245760)"
"$B/bin/ptoc" "$T/reuse.ptk" --print-after=memplan --stop-after=memplan > "$T/r2"
cmp -s "$T/r1" "$T/r2"
ok $? "mem-reuse the plan is the same on a second run"
"$B/bin/ptosim" "$T/reuse.ptk" --reference > "$T/ref" 2>&1
"$B/bin/ptosim" "$T/reuse.ptk" --split=none > "$T/out" 2>&1 && cmp -s "$T/ref" "$T/out"
ok $? "mem-reuse the addressed machine runs it to the reference outputs"

# Four buffers live at once (all read by the last statements): pairwise disjoint.
cat > "$T/live.ptk" <<'K'
kernel live(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
  a = load(A, [0, 0], [16, 64]);
  b = adds(a, 1.0);
  c = muls(a, 2.0);
  d = row_sum(c);
  e = add(a, b);
  f = row_expand_add(e, d);
  g = add(f, c);
  store(O, [0, 0], g);
}
K
"$B/bin/ptoc" "$T/live.ptk" --print-after=memplan --stop-after=memplan > "$T/l1"
ok $? "mem-live ptoc prints the IR after memplan"
# every pair of a, b, c, d: [s1, e1) and [s2, e2) do not intersect
bad=0
for x in a b c d; do
  for y in a b c d; do
    [ "$x" \< "$y" ] || continue
    rx=$(mem "$T/l1" $x) ry=$(mem "$T/l1" $y)
    case "$rx$ry" in *-*-*) ;; *) bad=1; continue ;; esac
    [ $((${rx%-*})) -lt $((${ry#*-})) ] && [ $((${ry%-*})) -lt $((${rx#*-})) ] && bad=1
  done
done
[ $bad = 0 ]
ok $? "mem-live a, b, c and d, live at once, have pairwise disjoint bytes"

# C2V: the reserve (2 slots x the largest popped entry) at the bottom of vec,
# the popped value at its base, every vec buffer above it.
cat > "$T/pop.ptk" <<'K'
kernel pop(A: f32[16, 16] in, B: f32[16, 16] in, X: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5) slots(2) {
  a = load(A, [0, 0], [16, 16], space=mat);
  b = load(B, [0, 0], [16, 16], space=mat);
  c = matmul(a, b);
  x = load(X, [0, 0], [16, 16]);
  y = add(c, x);
  w = add(c, y);
  store(O, [0, 0], w);
}
K
"$B/bin/ptoc" "$T/pop.ptk" --print-after=memplan --stop-after=memplan > "$T/p1"
ok $? "mem-reserve ptoc prints the IR after memplan"
grep -q '^# mem aiv vec 0x00000-0x00800 reserve(c2v, 2 x 1024)$' "$T/p1"
ok $? "mem-reserve the C2V reserve is 2 x 1024 bytes at vec 0x00000"
grep -q '^# mem aiv vec 0x00000 _m[0-9]* popped(c2v)$' "$T/p1"
ok $? "mem-reserve the popped value sits at the reserve's base"
bad=0 cnt=0
for r in $(awk '$2 == "mem" && $3 == "aiv" && $4 == "vec" && $5 ~ /-/ && $6 !~ /^reserve/ { print $5 }' "$T/p1"); do
  cnt=$((cnt + 1))
  [ $((${r%-*})) -ge 2048 ] || bad=1
done
[ $bad = 0 ] && [ $cnt -ge 3 ]
ok $? "mem-reserve every vec buffer ($cnt) starts at or above the reserve's end"

# A view at its parent's offset plus its window's start: rows 8.. of a
# [16, 64] f32 row-major tile start 8 * 64 * 4 = 0x800 bytes in.
cat > "$T/view.ptk" <<'K'
kernel view(A: f32[16, 64] in, O: f32[8, 64] out) split(none) target(a5) slots(2) {
  a = load(A, [0, 0], [16, 64]);
  s = slice(a, [8, 0], [8, 64]);
  x = load(A, [0, 0], [8, 64]);
  y = add(s, x);
  store(O, [0, 0], y);
}
K
"$B/bin/ptoc" "$T/view.ptk" --print-after=memplan --stop-after=memplan > "$T/v1"
ok $? "mem-view ptoc prints the IR after memplan"
a=$(start "$T/v1" a) s=$(awk '$2 == "mem" && $6 == "s" && $7 == "view(a)" { print $5 }' "$T/v1")
[ -n "$a" ] && [ -n "$s" ] && [ $((s - a)) = 2048 ]
ok $? "mem-view the view s of a starts 0x800 into a ($a, $s)"
[ "$(start "$T/v1" x)" != "$a" ]
ok $? "mem-view a stays live while its view is (x does not take its bytes)"

# The plan is an annotation of memplan's print only.
"$B/bin/ptoc" "$T/reuse.ptk" --print-after=lower --stop-after=lower > "$T/low"
! grep -q '^# mem ' "$T/low"
ok $? "mem-print the lowered print carries no plan lines"
plan
