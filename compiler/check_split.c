/* check_split.c — pass 5: validates the explicit split form (written by the
 * user or made by auto_split); consumes and produces the same IR. User
 * errors: a split attribute together with split_aiv (E-SPLIT-BOTH); split_aiv
 * without cube work (E-SPLIT-PURE); an aiv_shard whose lanes' valid counts
 * fit no split code (E-SPLIT-PLACE) or that narrows the extent the transfer
 * pins (E-SHARD-NARROW); a whole tile crossing sides inside a region: a
 * lane value moved to the cube, a cube tile moved to vec or sharded with
 * mode none, or a vec value computed outside the region from a cube tile
 * moved whole (or sharded with mode none) and read inside (E-SHARD-WHOLE: pto-isa zero-fills lane 1's
 * copy of a code-0 entry, real-findings F-10);
 * aic_gather on another axis than the aiv_shard its value came from
 * (E-SPLIT-MODE); a store of a half tile whose offset on the split axis is not
 * `lane * half + c` with no lane term on the other axis (E-SPLIT-STORE); two
 * split axes in one split_aiv region unless --allow-mixed-modes
 * (E-SPLIT-MIXED; separate regions may use different axes). A transpose
 * moves a half tile's axis, and so does a reshape of a lane part that is a
 * row-major run (the store rule then follows the moved axis). A cube op fed a
 * half tile and subblock_idx() outside split_aiv are already rejected by the
 * typechecker (E-LANE, E-SCOPE). */
#include "ptoc.h"

typedef struct {
  Comp *c;
  Kernel *k;
  int8_t *axis;                                 /* by var id: split axis of a half tile, -1 none, 2 either */
  const Var **whole;                            /* by var id: the cube tile a vec value outside split_aiv came from whole */
  int axes;                                     /* bit set of the axes used */
  bool region;                                  /* inside split_aiv */
  Loc first;
} CS;

static int lane_coef(CS *s, const Aff *a) {
  int k = 0;
  for (int i = 0; i < a->n; i++) {
    const Var *v = s->k->vars[a->v[i]];
    if (v->kind == VK_LANE || (v->kind == VK_SCALAR && !v->computed)) k += a->k[i];
  }
  return k;
}

static void use_axis(CS *s, Loc l, int ax) {
  s->axes |= 1 << ax;
  if (s->axes == 3 && !s->c->o.allow_mixed_modes)
    ir_error(s->c, l, E_SPLIT_MIXED, "split_aiv uses both up_down and left_right (first at %d:%d); pass "
             "--allow-mixed-modes to permit it", s->first.line, s->first.col);
  if (!s->first.line) s->first = l;
}

/* DESIGN 14.1, 14.2 and 14.6 for an aiv_shard of a tile whose valid extents
 * are known: lanes of P hold clamp(V - l*P, 0, P); the counts must fit a
 * split code (an explicit shard is not rebalanced), and the transfer pins the
 * extent it does not place per lane. A run-time V is checked by the machine. */
static void shard(CS *s, const Stmt *st, const Call *c, int ax) {
  const Var *x = c->args[0].var;
  int E = ax ? x->C : x->R, V = ax ? x->svc : x->svr, P = ax ? st->dst->C : st->dst->R;
  use_axis(s, c->loc, ax);
  if (ax == 1 && x->svc >= 0 && x->svc < x->C)
    ir_error(s->c, c->loc, E_SHARD_NARROW, "aiv_shard left_right of %d valid columns of %d: the transfer pins the "
             "column extent", x->svc, x->C);
  if (ax == 0 && x->svr >= 0 && x->svc >= 0 && x->svc < x->C) {
    int v0 = ir_lane_valid(x->svr, P, 0), v1 = ir_lane_valid(x->svr, P, 1);
    if (v1 && v0 != v1)
      ir_error(s->c, c->loc, E_SHARD_NARROW, "aiv_shard up_down with per-lane rows (%d and %d) and %d valid "
               "columns of %d", v0, v1, x->svc, x->C);
  }
  if (s->k->target == TGT_A5 && ir_split_code_on(TGT_A5, ax, E, V, P) < 0)
    ir_error(s->c, c->loc, E_SPLIT_BOX, "aiv_shard of %d %s in lanes of %d on a5: a5's local FIFO cuts the "
             "transfer at half the producer's %d-%s box, lanes of %d%s", E, ax ? "columns" : "rows", P,
             2 * ir_split_stride(TGT_A5, E), ax ? "column" : "row", ir_split_stride(TGT_A5, E),
             ax ? ", and splits whole 32-column boxes only" : "");
  if (s->k->target != TGT_A5 && s->k->stride_target == 1 + TGT_A5 && ir_split_code(ax, E, V < 0 ? -1 : V, P) < 0)
    ir_error(s->c, c->loc, E_SPLIT_BOX, "aiv_shard of %d %s in lanes of %d, a5's box halves: a2a3 places lanes "
             "whose counts fit a split code, inside the tile", E, ax ? "columns" : "rows", P);
  if (s->k->target != TGT_A5 && V >= 0 && ir_split_code(ax, E, V, P) < 0)
    ir_error(s->c, c->loc, E_SPLIT_PLACE, "aiv_shard of %d valid of %d in lanes of %d: lane 0 holds %d, lane 1 "
             "holds %d; no split code places them (equal, or lane 0 one more); rebalance with stride=%d",
             V, E, P, ir_lane_valid(V, P, 0), ir_lane_valid(V, P, 1), (V + 1) / 2);
}

static void body(CS *s, Body *b) {
  for (int i = 0; i < b->n; i++) {
    Stmt *st = b->v[i];
    if (st->k == S_SPLIT) s->axes = 0, s->first = (Loc){0};   /* each region has its own axis */
    if (st->k != S_OP) {
      bool was = s->region;
      s->region |= st->k == S_SPLIT;
      body(s, &st->body);
      body(s, &st->other);
      s->region = was;
      continue;
    }
    if (st->rhs.k == A_VAR) {
      if (st->dst && st->dst->kind == VK_TILE) {
        s->axis[st->dst->id] = s->axis[st->rhs.var->id];
        s->whole[st->dst->id] = s->whole[st->rhs.var->id];
      }
      continue;
    }
    Call *c = st->rhs.call;
    int ax = -1;
    const Var *from = NULL;                     /* a whole cube tile this value is computed from */
    for (int j = 0; j < c->nargs; j++) {
      const Var *v = c->args[j].k == A_VAR ? c->args[j].var : NULL;
      if (!v || v->kind != VK_TILE || !s->whole[v->id]) continue;
      if (s->region)
        ir_error(s->c, c->args[j].loc, E_SHARD_WHOLE, "'%s' is computed outside split_aiv from the whole cube tile "
                 "'%s': lane 1's copy of a whole tile is zero-filled; aiv_shard '%s' inside the region instead",
                 v->name, s->whole[v->id]->name, s->whole[v->id]->name);
      from = s->whole[v->id];
    }
    if (!s->region && ((ir_ops[c->op].kind == K_MOVE && c->args[0].var->sp != SP_VEC && c->args[1].e == SP_VEC) ||
                       (ir_ops[c->op].kind == K_SHARD && c->args[1].e == MODE_NONE)))
      from = c->args[0].var;                    /* a cube tile whole on the vector side */
    switch (ir_ops[c->op].kind) {
    case K_SHARD: {
      Mode m = (Mode)c->args[1].e;
      if (m == MODE_NONE) {                     /* a code-0 entry: pto-isa zero-fills lane 1's copy */
        if (s->region)
          ir_error(s->c, c->args[1].loc, E_SHARD_WHOLE, "aiv_shard(%s, none) inside split_aiv: a whole cube tile "
                   "reaches lane 0 only (lane 1 pops it zero-filled); shard it up_down or left_right, or load "
                   "whole tiles from GM in a task-parallel region", c->args[0].var->name);
        break;
      }
      shard(s, st, c, MODE_AXIS(m));
      ax = MODE_AXIS(m);
      break;
    }
    case K_MOVE:
      if (s->region && c->args[0].var->sp != SP_VEC && c->args[1].e == SP_VEC)
        ir_error(s->c, c->loc, E_SHARD_WHOLE, "move of the cube tile '%s' to vec inside split_aiv: a whole cube "
                 "tile reaches lane 0 only (lane 1 pops it zero-filled); use aiv_shard on an axis",
                 c->args[0].var->name);
      if (c->args[0].var->lane && c->args[1].e != SP_VEC)
        ir_error(s->c, c->loc, E_SHARD_WHOLE, "move of the lane value '%s' to %s inside split_aiv: a whole tile "
                 "may not cross vector -> cube under a split (use aic_gather, or keep it on the vector side)",
                 c->args[0].var->name, ir_space_name((Space)c->args[1].e));
      break;
    case K_JOIN: {
      Mode m = (Mode)c->args[1].e;
      use_axis(s, c->loc, MODE_AXIS(m));
      int from = c->args[0].k == A_VAR ? s->axis[c->args[0].var->id] : -1;
      if (from >= 0 && from != 2 && from != MODE_AXIS(m))
        ir_error(s->c, c->args[1].loc, E_SPLIT_MODE, "aic_gather %s of a value sharded %s", ir_mode_name(m),
                 from ? "left_right" : "up_down");
      break;
    }
    case K_STORE: {
      const Var *t = c->args[2].var;
      int a = s->axis[t->id];
      if (a < 0) break;
      const Aff *o = c->args[1].ix;
      if (a == 2)                               /* a one-row lane part: a band of rows or of columns */
        a = lane_coef(s, &o[1]) ? 1 : 0;
      int half = a ? t->C : t->R;
      if (lane_coef(s, &o[a]) != half || lane_coef(s, &o[!a]) != 0)
        ir_error(s->c, c->args[1].loc, E_SPLIT_STORE,
                 "store of a half tile (%d on the split axis) must be at lane * %d + c on that axis, and "
                 "independent of the lane on the other", half, half);
      break;
    }
    case K_BIN: case K_BINS: case K_UN: case K_CAST: case K_REXP: case K_CEXP: case K_RRED: case K_CRED:
    case K_SETVALID:
      for (int j = 0; j < c->nargs && ax < 0; j++)
        if (c->args[j].k == A_VAR && c->args[j].var->kind == VK_TILE) ax = s->axis[c->args[j].var->id];
      if (ax >= 0 && ir_ops[c->op].kind == (ax ? K_RRED : K_CRED)) ax = -1;   /* reduced away */
      break;
    case K_TRANS:                               /* each lane transposes its part: the axis moves */
      ax = s->axis[c->args[0].var->id];
      if (ax == 0 || ax == 1) ax = !ax;
      break;
    case K_RESHAPE: {
      /* a lane's part that is a row-major run (a band of rows, or of the
       * columns of one row) becomes a band of the result's rows, or of its
       * columns when the result has one row; otherwise the axis is kept */
      const Var *x = c->args[0].var;
      ax = s->axis[x->id];
      if (ax == 0 || (ax >= 1 && x->R == 1)) ax = st->dst->R == 1 ? 2 : 0;
      break;
    }
    default:
      break;
    }
    if (st->dst && st->dst->kind == VK_TILE) {
      s->axis[st->dst->id] = (int8_t)ax;
      s->whole[st->dst->id] = st->dst->sp == SP_VEC ? from : NULL;
    }
  }
}

void pass_check_split(Comp *c, Kernel *k) {
  bool has = ir_has_split_aiv(&k->body);
  if (!has) return;
  if (k->split != MODE_NONE)
    ir_error(c, k->loc, E_SPLIT_BOTH, "kernel '%s' is compiled split(%s) but is written with split_aiv", k->name,
             ir_mode_name(k->split));
  if (k->explicit_split && !ir_has_cube(&k->body))
    ir_error(c, k->loc, E_SPLIT_PURE, "kernel '%s' is written with split_aiv but has no cube work: a pure-vector "
             "kernel runs on one lane (write it unsplit)", k->name);
  CS s = {.c = c, .k = k};
  s.axis = ir_alloc(c->A, (size_t)k->nvars);
  s.whole = ir_alloc(c->A, (size_t)k->nvars * sizeof *s.whole);
  for (int i = 0; i < k->nvars; i++) s.axis[i] = -1;
  body(&s, &k->body);
}
