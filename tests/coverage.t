#!/bin/sh
# coverage.t — `ptofuzz gen --coverage` (DESIGN 10): over N generated kernels,
# one line per op, keyword, attribute value and construct of docs/language.md,
# `construct=NAME share=F`. The op lines are derived from compiler/ops.def (the
# source ops: every row before the per-core `pipe`). Over 3000 kernels no
# share may be below 0.5%: the lowest construct share is about 1%, the lowest
# combination 0.7% (docs/figures.md, "Generator"); with 3000 kernels the
# sampling deviation is about 0.2 points, so the floor fails only when a
# construct loses a large part of its share, i.e. when a generator change
# really drops it. Ids:
# coverage-N. The report ends with the share of kernels ptoc --emit=pypto
# translates per variant (pypto= lines, no floor).
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
"$F" gen --coverage --count=3000 --seed=1 > "$T/c" 2> "$T/err"
ok $? "coverage-1 ptofuzz gen --coverage --count=3000 exits 0"
head -n 1 "$T/c" | grep -Eq '^coverage: kernels=3000 invalid=[0-9]+$'
ok $? "coverage-2 the header line gives kernels=3000 and the invalid count"
tail -n +2 "$T/c" | grep -v '^pypto=' > "$T/rows"   # the constructs; pypto= lines: coverage-10
[ -s "$T/rows" ] && ! grep -Evq '^construct=[a-z0-9_.=-]+ share=[01]\.[0-9]{4}$' "$T/rows"
ok $? "coverage-3 every other line is construct=NAME share=F"
# the source ops of ops.def, in table order
sed -n 's/^OP(\([a-z_]*\),.*/\1/p' compiler/ops.def | sed '/^pipe$/,$d' > "$T/ops"
sed -n 's/^construct=op\.\([a-z_]*\) .*/\1/p' "$T/rows" > "$T/got"
[ -s "$T/ops" ] && cmp -s "$T/ops" "$T/got"
ok $? "coverage-4 one op line per source op of compiler/ops.def ($(wc -l < "$T/ops") ops), in table order"
miss=0
for c in kw.valid kw.space kw.trans_b kw.block_size kw.size kw.max_indices kw.col_off kw.lane kw.window kw.stride \
         attr.split=none attr.split=up_down attr.split=left_right attr.target=a2a3 attr.target=a5 \
         stmt.for stmt.split_aiv stmt.if stmt.else stmt.while expr.nested_call index.computed_scalar \
         move.vec_to_mat move.mat_to_vec move.acc_to_vec move.acc_to_mat move.vec_to_vec move.mat_to_mat move.acc_to_acc \
         combo.regions_two_axes combo.regions_two_axes_stride combo.whole_move_outside_region \
         combo.whole_tile_in_region combo.v2c_join_partial_lane0 combo.c2v_read_across_loop \
         combo.c2v_3_live_in_loop combo.loop_reads_outer_near_capacity combo.slice_of_offset_assemble \
         combo.shard_none_outside_region refuse.split_mixed refuse.split_store refuse.split_place; do
  grep -q "^construct=$c share=" "$T/rows" || { echo "# missing: $c"; miss=1; }
done
ok $miss "coverage-5 keywords, attributes, statements, the seven move directions and the combinations have lines"
awk -F'share=' '$2 < 0.005 { print "# below 0.5%: " $0; bad = 1 } END { exit bad }' "$T/rows"
ok $? "coverage-6 no construct below 0.5% over 3000 kernels"
awk '{ split($3, a, "="); exit !(a[2] <= 30) }' "$T/c"
ok $? "coverage-7 at most 1% of the kernels fail the front end"
"$F" gen --coverage --count=3000 --seed=1 | cmp -s - "$T/c"
ok $? "coverage-8 the same seed gives the same report"
"$F" gen --coverage --count=200 --seed=1 > "$T/c2" && [ "$(grep -c '^construct=' "$T/c2")" = "$(wc -l < "$T/rows")" ]
ok $? "coverage-9 the list of constructs does not depend on the count"
# after the constructs, the share ptoc --emit=pypto translates for PyPTO b25b25a4a (docs/pypto.md)
grep '^pypto=' "$T/c" | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'pypto=none@a2a3 pypto=none@a5 pypto=up_down pypto=left_right pypto=all ' &&
  ! grep '^pypto=' "$T/c" | grep -Evq '^pypto=[a-z_@0-9]+ translated=[01]\.[0-9]{4}$' && [ "$(tail -n 1 "$T/c" | cut -d' ' -f1)" = pypto=all ]
ok $? "coverage-10 the report ends with pypto=VARIANT translated=F for the four variants and all"
plan
