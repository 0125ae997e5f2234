#!/bin/sh
# sem-doc.t — docs/language.md against the compiler and the golden run: the
# grammar's keyword list is the set of keywords compiler/ops.def accepts, each
# listed keyword is known to ptoc, a kernel using stride= compiles and runs;
# the reduction and expansion rules of sections 9.5 and 9.6 hold in the golden
# run, on the machine (every variant of `ptofuzz diff`) and in the checker.
. "$(dirname "$0")/lib.sh"

# --- section 3: KWNAME ----------------------------------------------------------
sed -n '/^KWNAME /,/^```/p' docs/language.md | grep -o '"[a-z_]*"' | tr -d '"' | sort -u > "$T/doc-kw"
grep -o 'KWB([A-Z_]*)' compiler/ops.def | sed 's/KWB(\(.*\))/\1/' | tr 'A-Z' 'a-z' | sort -u > "$T/ops-kw"
[ -s "$T/doc-kw" ] && cmp -s "$T/doc-kw" "$T/ops-kw"
ok $? "semdoc-1.1 the grammar's KWNAME list is the set of keywords of compiler/ops.def"
if ! cmp -s "$T/doc-kw" "$T/ops-kw"; then diff "$T/doc-kw" "$T/ops-kw" | sed 's/^/# /'; fi
for kw in $(cat "$T/doc-kw"); do
  printf 'kernel k(O: f32[1,1] out) { store(O, [0, 0], full([1, 1], 1, f32, %s=1)); }\n' "$kw" > "$T/kw.ptk"
  "$B/bin/ptoc" "$T/kw.ptk" > /dev/null 2> "$T/kw.err"
  ! grep -q 'unknown keyword' "$T/kw.err"
  ok $? "semdoc-1.2-$kw the listed keyword $kw= is a keyword of ptoc"
done
cat > "$T/stride.ptk" <<'K'
kernel k(A: f32[16,16] in, B: f32[16,16] in, O: f32[16,16] out) {
  a = load(A, [0, 0], [16, 16], space=mat);
  b = load(B, [0, 0], [16, 16], space=mat);
  s = matmul(a, b);
  for lane in split_aiv(2) {
    h = aiv_shard(s, up_down, stride=8);
    store(O, [lane*8, 0], adds(h, 1.0));
  }
}
K
"$B/bin/ptoc" "$T/stride.ptk" > /dev/null 2> "$T/err" && "$B/bin/ptosim" "$T/stride.ptk" --reference > /dev/null 2>> "$T/err"
ok $? "semdoc-1.3 a kernel with aiv_shard(..., stride=8), the grammar's stride=, compiles and runs"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err"

# --- section 9.5: sums of -0, f16 steps; the golden run and every variant -------
dump() {  # FILE: the raw bits of every output, one line per tensor
  "$B/bin/ptosim" "$1" --reference --dump 2> "$T/err"
}
cat > "$T/red.ptk" <<'K'
kernel red(A: f16[3,16] in = [2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048,
                              1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                              1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
           C: f16[1,16] out, Z: f32[1,16] out, W: f32[16,1] out) {
  store(C, [0, 0], col_sum(load(A, [0, 0], [3, 16])));
  z = neg(full([16, 16], 0, f32));
  store(Z, [0, 0], col_sum(z));
  store(W, [0, 0], row_sum(z));
}
K
dump "$T/red.ptk" > "$T/red.out"
ok $? "semdoc-2.1 the reduction kernel runs"
grep -A1 '^out C' "$T/red.out" | tail -n 1 | grep -q '2048 *2048'
ok $? "semdoc-2.2 the f16 column 2048, 1, 1 sums to 2048 (rounded at every step)"
timeout 300 "$B/bin/ptofuzz" diff "$T/red.ptk" > "$T/red.diff" 2>&1
tail -n 1 "$T/red.diff" | grep -qx 'verdict=clean'
ok $? "semdoc-2.3 every variant's machine run equals the golden run on sums of -0 and f16 columns"
[ "$(grep -c '^variant=.* outcome=ok ' "$T/red.diff")" = 8 ]
ok $? "semdoc-2.4 all 4 variants x 2 schedules ran on the machine (none unsupported)"
printf 'kernel k(Z: f32[1,2] out, W: f32[2,1] out) {\n  z = neg(full([2, 2], 0, f32));\n  store(Z, [0, 0], col_sum(z));\n  store(W, [0, 0], row_sum(z));\n}\n' > "$T/nz.ptk"
"$B/bin/ptosim" "$T/nz.ptk" --reference --dump > "$T/nz.out" 2>&1
grep -A1 '^out Z' "$T/nz.out" | tail -n 1 | grep -q -- '-0 *-0'
ok $? "semdoc-2.5 a column of -0 sums to -0 (from its first element)"
grep -A2 '^out W' "$T/nz.out" | tail -n 2 | grep -q -- '-0'
[ $? != 0 ]
ok $? "semdoc-2.6 a row of -0 sums to +0 (from +0)"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err"

# --- section 9.6: row_expand wants equal valid rows -------------------------------
for c in "more:[2, 1]:[1, 2]" "fewer:[1, 1]:[2, 2]"; do
  name=${c%%:*}; rest=${c#*:}; vv=${rest%%:*}; av=${rest#*:}
  printf 'kernel k(A: f32[2,2] in, V: f32[2,1] in, O: f32[2,2] out) {\n  a = load(A, [0, 0], [2, 2], valid=%s);\n  v = load(V, [0, 0], [2, 1], valid=%s);\n  store(O, [0, 0], row_expand_add(a, v));\n}\n' "$av" "$vv" > "$T/rx.ptk"
  "$B/bin/ptoc" "$T/rx.ptk" > /dev/null 2> "$T/rx.err"
  [ $? = 1 ] && grep -q 'error\[E-VALID\]' "$T/rx.err"
  ok $? "semdoc-3.1-$name row_expand whose vector has $name valid rows than the tile is E-VALID"
done
sed -n '/^### 9.6/,/^### 9.7/p' docs/language.md | tr '\n' ' ' | grep -q 'must equal'
ok $? "semdoc-3.2 language.md 9.6 says the valid extents must be equal"
plan
