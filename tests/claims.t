#!/bin/sh
# claims.t — the generator's compile claims through the command line
# (docs/fuzzing.md, "Unsupported claims"): generated kernels carry the
# `# expect-compile:` header; `ptofuzz diff` turns a claimed variant's
# `unsupported` into a `reject` (exit 3) and leaves a kernel without the claim
# alone; a variant claimed refused (`# expect-refuse:`) that compiles is an
# escape; a campaign prints its refused shares against the generator's bound.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"

# over a2a3's and a5's vector capacity unsplit, fits halved
cat > "$T/over.ptk" <<'K'
kernel big(A: f32[64,16] in, B: f32[16,512] in, O: f32[64,512] out) slots(1) {
  a = load(A, [0, 0], [64, 16], space=mat);
  b = load(B, [0, 0], [16, 512], space=mat);
  o = matmul(a, b);
  store(O, [0, 0], exp(o));
}
K
{ echo '# expect-compile: none@a2a3 up_down left_right'; cat "$T/over.ptk"; } > "$T/claim.ptk"

"$F" gen --seed=5 --count=20 --out="$T/g" >/dev/null
bad=0
for k in "$T"/g/*.ptk; do sed -n 2p "$k" | grep -q '^# expect-compile: ' || bad=$((bad + 1)); done
[ "$bad" = 0 ]
ok $? "claims-1.1 every generated kernel's second line is its compile claim ($bad without)"

"$F" diff "$T/claim.ptk" > "$T/d1" 2>&1; rc=$?
[ $rc = 3 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=reject code=E-CAPACITY .*sig=reject|none|E-CAPACITY|elementwise|memplan|-$' "$T/d1"
ok $? "claims-1.2 diff: a claimed none@a2a3 refused E-CAPACITY is a reject, exit 3 (rc $rc)"
grep -A1 '^variant=none@a2a3 schedule=rr' "$T/d1" | grep -q 'refused, but the generator budgeted it to compile: .*188416'
ok $? "claims-1.3 diff: the detail says the generator budgeted it, with the byte figures"
grep -q '^variant=none@a5 schedule=rr outcome=unsupported code=E-CAPACITY$' "$T/d1" && grep -q '^variant=up_down schedule=rr outcome=ok' "$T/d1"
ok $? "claims-1.4 diff: an unclaimed variant stays unsupported; a claimed one that compiles is ok"
"$F" diff "$T/over.ptk" > "$T/d2" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=unsupported code=E-CAPACITY$' "$T/d2" && ! grep -q reject "$T/d2"
ok $? "claims-1.5 diff: without the claim the same kernel is unsupported, exit 0 (rc $rc)"

# refusal claims: a negative construct (two axes in one region) claimed refused
cat > "$T/mixed.ptk" <<'K'
kernel mixed(A: f32[16,16] in, B: f32[16,32] in, O: f32[16,32] out, P: f32[16,32] out) {
  a = load(A, [0, 0], [16, 16], space=mat);
  b = load(B, [0, 0], [16, 32], space=mat);
  c = matmul(a, b);
  for lane in split_aiv(2) {
    store(O, [lane*8, 0], aiv_shard(c, up_down));
    for i in range(0, 1) {
      store(P, [0, lane*16], aiv_shard(c, left_right));
    }
  }
}
K
{ echo '# expect-refuse: none@a2a3=E-SPLIT-MIXED:check_split'; cat "$T/mixed.ptk"; } > "$T/neg.ptk"
"$F" diff "$T/neg.ptk" > "$T/d3" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=invalid code=E-SPLIT-MIXED' "$T/d3" && ! grep -q escape "$T/d3"
ok $? "claims-3.1 diff: a claimed refusal that happens is no finding, exit 0 (rc $rc)"
# a kernel check_split accepts (aiv_shard(c, none) outside the region), claimed
# refused: what a check made too lax looks like to the oracle
{ echo '# expect-refuse: none@a2a3=E-SHARD-WHOLE:check_split'; grep -v '^#' tests/split/c3-none-outside.ptk; } > "$T/lax.ptk"
"$F" diff "$T/lax.ptk" > "$T/d4" 2>&1; rc=$?
[ $rc = 3 ] && grep -q '^variant=none@a2a3 schedule=rr outcome=escape code=E-SHARD-WHOLE .*sig=escape|none|E-SHARD-WHOLE|-|check_split|-$' "$T/d4" &&
  grep -q 'compiled, but the generator wrote it to be refused with E-SHARD-WHOLE' "$T/d4"
ok $? "claims-3.2 diff: a claimed refusal of a kernel that compiles is an escape signed with the code and pass, exit 3 (rc $rc)"
grep -q '^variant=none@a5 schedule=rr outcome=ok' "$T/d4"
ok $? "claims-3.3 diff: a variant the claim does not name is run as usual"

"$F" run --count=30 --seed=4 --jobs=1 --db="$T/r.db" --quiet > "$T/sum" 2>"$T/err"; rc=$?
S='[01]\.[0-9]\{4\}'
[ $rc = 0 ] && grep -q "^claims: kernels=30 none@a2a3=$S<=$S none@a5=$S<=$S up_down=$S<=$S left_right=$S<=$S check=ok\$" "$T/sum"
ok $? "claims-2.1 run: the claims line gives each variant's refused share and its bound, check=ok (rc $rc)"
[ "$(sed -n 2p "$T/sum" | cut -c1-8)" = "summary:" ] && ! grep -q W-UNSUP-SHARE "$T/err"
ok $? "claims-2.2 run: the summary line follows it; no share warning on the clean compiler"
plan
