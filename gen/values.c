/* values.c — value constructors and vector expressions. Consumes the
 * generator's state (Gen: the policy, the choice source, the pool of tiles)
 * and values already made; produces values (Val): an expression node with its
 * dtype, space, physical shape and valid extents per lane, its bytes charged
 * to the budgets and its transfers noted for the compile claim (gen_v_un ...
 * gen_v_mm, gen_v_move), and random vector expressions over the pool
 * (gen_vexpr, gen_vchain, gen_expand) in which every valid element is defined. */
#define GEN_INTERNALS
#include "gen.h"

#include <string.h>

/* ---- value constructors ---------------------------------------------------------------------- */

Val gen_mkval(int dt, int sp, int R, int C, int vr, int vc) {
  return (Val){.dt = (int8_t)dt, .sp = (int8_t)sp, .R = R, .C = C, .vr = {vr, vr}, .vc = {vc, vc}};
}

/* A vector result: lane value inside a region, C2V of cube operands noted. */
Val gen_vres(Gen *g, FzExpr *e, int dt, int R, int C) {
  Val r = gen_mkval(dt, FZ_VEC, R, C, R, C);
  r.e = e;
  r.lane = g->region;
  return r;
}
static void vop(Gen *g, const Val *a) {
  if (a->sp != FZ_VEC) gen_note_c2v(g, a);
}

Val gen_v_un(Gen *g, int op, Val a) {
  vop(g, &a);
  FzExpr *e = gen_call(g, op, 1);
  gen_a_expr(g, &e->a[0], a.e);
  Val r = gen_vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  gen_charge(g, &r);
  return r;
}

Val gen_v_bins(Gen *g, int op, Val a, double x) {
  vop(g, &a);
  FzExpr *e = gen_call(g, op, 2);
  gen_a_expr(g, &e->a[0], a.e);
  gen_a_num(&e->a[1], x);
  Val r = gen_vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  gen_charge(g, &r);
  return r;
}

Val gen_v_bin(Gen *g, int op, Val a, Val b) {
  vop(g, &a);
  vop(g, &b);
  FzExpr *e = gen_call(g, op, 2);
  gen_a_expr(g, &e->a[0], a.e);
  gen_a_expr(g, &e->a[1], b.e);
  Val r = gen_vres(g, e, a.dt, a.R, a.C);
  for (int l = 0; l < 2; l++) r.vr[l] = gen_imin(a.vr[l], b.vr[l]), r.vc[l] = gen_imin(a.vc[l], b.vc[l]);
  r.join_ok = (a.join_ok || !a.lane) && (b.join_ok || !b.lane);
  gen_charge(g, &r);
  return r;
}

Val gen_v_cast(Gen *g, Val a, int dt) {
  vop(g, &a);
  FzExpr *e = gen_call(g, FZ_OP_cast, 2);
  gen_a_expr(g, &e->a[0], a.e);
  gen_a_kind(&e->a[1], FZ_A_DTYPE, dt);
  Val r = gen_vres(g, e, dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  gen_charge(g, &r);
  gen_feat(g, FZ_FEAT_cast);
  if (dt == FZ_F16 || a.dt == FZ_F16) gen_feat(g, FZ_FEAT_f16);
  if (dt == FZ_I32 || a.dt == FZ_I32) gen_feat(g, FZ_FEAT_i32);
  if (dt == FZ_BF16 || a.dt == FZ_BF16) gen_feat(g, FZ_FEAT_bf16);
  if (dt == FZ_I8 || dt == FZ_I16 || a.dt == FZ_I8 || a.dt == FZ_I16) gen_feat(g, FZ_FEAT_i8_i16);
  return r;
}

Val gen_v_full(Gen *g, int R, int C, double x, int dt) {
  FzExpr *e = gen_call(g, FZ_OP_full, 3);
  gen_a_idx(&e->a[0], gen_aff(R), gen_aff(C));
  gen_a_num(&e->a[1], x);
  gen_a_kind(&e->a[2], FZ_A_DTYPE, dt);
  Val r = gen_vres(g, e, dt, R, C);
  r.join_ok = true;
  gen_charge(g, &r);
  gen_feat(g, FZ_FEAT_full);
  return r;
}

/* A pypto_share kernel's accumulator full(...) takes the valid shape of what is
 * added to it (valid=[vr, vc]), so the value it carries around the loop keeps
 * one valid shape (PyPTO types a loop-carried tile once: E-PYPTO-CARRIED-VALID). */
void gen_py_valid_full(Gen *g, FzExpr *fe, Val *acc, const Val *y) {
  if (!g->py || fe->nargs != 3 || y->vr[0] != y->vr[1] || y->vc[0] != y->vc[1] || (y->vr[0] >= acc->vr[0] && y->vc[0] >= acc->vc[0])) return;
  FzArg *a = gen_al(g, 4 * sizeof *a);
  memcpy(a, fe->a, 3 * sizeof *a);
  int vr = gen_imin(acc->vr[0], y->vr[0]), vc = gen_imin(acc->vc[0], y->vc[0]);
  gen_a_idx(&a[3], gen_aff(vr), gen_aff(vc));
  a[3].kw = FZ_KW_VALID;
  fe->a = a;
  fe->nargs = 4;
  acc->vr[0] = acc->vr[1] = vr;
  acc->vc[0] = acc->vc[1] = vc;
  Tile *t = gen_tile_of(g, acc);
  if (t) t->v.vr[0] = t->v.vr[1] = vr, t->v.vc[0] = t->v.vc[1] = vc;
}

/* Row (row=true) or column reduction. */
Val gen_v_red(Gen *g, int op, Val a) {
  vop(g, &a);
  bool row = op == FZ_OP_row_sum || op == FZ_OP_row_max || op == FZ_OP_row_min;
  FzExpr *e = gen_call(g, op, 1);
  gen_a_expr(g, &e->a[0], a.e);
  Val r = gen_vres(g, e, a.dt, row ? a.R : 1, row ? 1 : a.C);
  for (int l = 0; l < 2; l++) {
    if (row) r.vr[l] = a.vc[l] ? a.vr[l] : 0, r.vc[l] = a.vc[l] ? 1 : 0;
    else r.vr[l] = a.vr[l] ? 1 : 0, r.vc[l] = a.vr[l] ? a.vc[l] : 0;
  }
  r.join_ok = a.join_ok || !a.lane;
  gen_charge(g, &r);
  gen_feat(g, row ? FZ_FEAT_reduction_row : FZ_FEAT_reduction_col);
  return r;
}

Val gen_v_exp2(Gen *g, int op, Val a, Val v, bool row) {
  vop(g, &a);
  vop(g, &v);
  FzExpr *e = gen_call(g, op, 2);
  gen_a_expr(g, &e->a[0], a.e);
  gen_a_expr(g, &e->a[1], v.e);
  Val r = gen_vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = (a.join_ok || !a.lane) && (v.join_ok || !v.lane);
  gen_charge(g, &r);
  gen_feat(g, row ? FZ_FEAT_row_expand : FZ_FEAT_col_expand);
  return r;
}

/* matmul(a, b[, trans_b=1]) or matmul_acc(c, a, b[, trans_b=1]): acc. */
Val gen_v_mm(Gen *g, const Val *c, Val a, Val b, bool tb) {
  if (a.sp == FZ_VEC) gen_note_v2c(g, &a);
  if (b.sp == FZ_VEC) gen_note_v2c(g, &b);
  int base = c != NULL;
  FzExpr *e = gen_call(g, c ? FZ_OP_matmul_acc : FZ_OP_matmul, base + 2 + tb);
  if (c) gen_a_expr(g, &e->a[0], c->e);
  gen_a_expr(g, &e->a[base], a.e);
  gen_a_expr(g, &e->a[base + 1], b.e);
  if (tb) gen_a_int(&e->a[base + 2], FZ_KW_TRANS_B, 1), gen_feat(g, FZ_FEAT_trans_b);
  int N = tb ? b.R : b.C, vn = tb ? b.vr[0] : b.vc[0];
  Val r = gen_mkval(gen_isint(a.dt) ? FZ_I32 : FZ_F32, FZ_ACC, a.R, N, a.vr[0], vn);
  if (c) r.vr[0] = r.vr[1] = gen_imin(r.vr[0], c->vr[0]), r.vc[0] = r.vc[1] = gen_imin(r.vc[0], c->vc[0]);
  r.e = e;
  if (!c) gen_charge(g, &r);
  gen_feat(g, FZ_FEAT_matmul);
  if (c) gen_feat(g, FZ_FEAT_matmul_acc);
  if (a.dt == FZ_F16) gen_feat(g, FZ_FEAT_f16);
  return r;
}

/* move(x, sp): x in another space (a transfer when it crosses sides). */
Val gen_v_move(Gen *g, Val x, int sp) {
  FzExpr *e = gen_call(g, FZ_OP_move, 2);
  gen_a_expr(g, &e->a[0], x.e);
  gen_a_kind(&e->a[1], FZ_A_SPACE, sp);
  if (x.sp == FZ_VEC && sp != FZ_VEC) gen_note_v2c(g, &x);
  if (x.sp != FZ_VEC && sp == FZ_VEC) gen_note_c2v(g, &x);
  Val r = x;
  r.e = e;
  r.sp = (int8_t)sp;
  gen_charge(g, &r);
  gen_feat(g, FZ_FEAT_explicit_move);
  return r;
}

/* ---- vector expressions ------------------------------------------------------------------------ */

/* Headroom in the kernel's tables for the rest of a block. */
static bool room(const Gen *g) {
  return g->k->np < FZ_MAXPARAM - 16 && g->k->nnames < FZ_MAXNAME - 64 && g->nt < MAXTILE - 64;
}

bool gen_row_red_ok(const Gen *g, const Val *a) { return g->region || g->brk[1] || a->C == 1; }
bool gen_col_red_ok(const Gen *g, const Val *a) { return g->region || g->brk[0] || a->R == 1; }
static bool same_lanes(const Val *v) { return v->vr[0] == v->vr[1] && v->vc[0] == v->vc[1]; }
/* Does a row (column) reduction of a keep a's valid rows (columns), so that it
 * can be expanded back over a? Not when a is empty the other way: [0,0]. */
bool gen_red_keeps(const Val *a, bool row) {
  for (int l = 0; l < 2; l++)
    if (row ? !(a->vc[l] > 0 || a->vr[l] == 0) : !(a->vr[l] > 0 || a->vc[l] == 0)) return false;
  return true;
}

/* Pick a live pool tile: dtype, shape, vector side only when vec_only; lane
 * values only inside a region, cube tiles only outside. -1: none. */
static int pick_tile(Gen *g, int dt, int R, int C, bool vec_only) {
  int cnt = 0;
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    if (!t->alive || t->v.dt != dt || t->v.R != R || t->v.C != C) continue;
    if ((vec_only || g->region) && t->v.sp != FZ_VEC) continue;
    cnt++;
  }
  if (!cnt) return -1;
  int k = gen_below(g, cnt);
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    if (!t->alive || t->v.dt != dt || t->v.R != R || t->v.C != C) continue;
    if ((vec_only || g->region) && t->v.sp != FZ_VEC) continue;
    if (k-- == 0) return i;
  }
  return -1;
}

static Val leaf(Gen *g, int dt, int R, int C) {
  if (!room(g)) {
    int i = pick_tile(g, dt, R, C, false);
    if (i >= 0) return g->t[i].v;
    return gen_v_full(g, R, C, gen_isint(dt) ? 1 : 0.5, dt);
  }
  if (gen_ch(g, g->p->p_reuse)) {
    int i = pick_tile(g, dt, R, C, false);
    if (i >= 0) return g->t[i].v;
  }
  if (gen_ch(g, g->p->p_full)) {
    double x = gen_isint(dt) ? gen_rng(g, -2, 2) : gen_scalar(g, dt, FZ_OP_adds);
    return gen_v_full(g, R, C, x, dt);
  }
  return gen_v_load(g, dt, R, C, FZ_VEC, -1, -1, LD_PARTIAL);
}

static const int un_f[] = {FZ_OP_relu, FZ_OP_exp, FZ_OP_neg, FZ_OP_abs, FZ_OP_sqrt, FZ_OP_recip};
static const int un_i[] = {FZ_OP_relu, FZ_OP_neg, FZ_OP_abs};
static const int bs_f[] = {FZ_OP_muls, FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins, FZ_OP_divs};
static const int bs_i[] = {FZ_OP_muls, FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins};
static const int bi_f[] = {FZ_OP_add, FZ_OP_mul, FZ_OP_sub, FZ_OP_max, FZ_OP_min, FZ_OP_div};
static const int bi_i[] = {FZ_OP_add, FZ_OP_mul, FZ_OP_sub, FZ_OP_max, FZ_OP_min};
static const int rx_f[] = {FZ_OP_row_expand_sub, FZ_OP_row_expand_mul, FZ_OP_row_expand_add,
                           FZ_OP_row_expand_div, FZ_OP_row_expand_max, FZ_OP_row_expand_min};
static const int cx_f[] = {FZ_OP_col_expand_add, FZ_OP_col_expand_mul, FZ_OP_col_expand_sub, FZ_OP_col_expand_div};
const int gen_rr[] = {FZ_OP_row_max, FZ_OP_row_sum, FZ_OP_row_min};
const int gen_cr[] = {FZ_OP_col_max, FZ_OP_col_sum, FZ_OP_col_min};

#define PICKN(g, tab, n) (tab)[gen_below(g, n)]

int gen_un_op(Gen *g, int dt) { return gen_isint(dt) ? PICK(g, un_i) : PICK(g, un_f); }
int gen_bs_op(Gen *g, int dt) { return gen_isint(dt) ? PICK(g, bs_i) : PICK(g, bs_f); }
int gen_bi_op(Gen *g, int dt) { return gen_isint(dt) ? PICK(g, bi_i) : PICK(g, bi_f); }
static int rx_op(Gen *g, int dt) { return PICKN(g, rx_f, gen_isint(dt) ? 3 : 6); }
static int cx_op(Gen *g, int dt) { return PICKN(g, cx_f, gen_isint(dt) ? 3 : 4); }

/* Name a value that is about to be used twice. */
Val gen_named(Gen *g, Val v) { return v.e->op == FZ_OP_VAR ? v : gen_bind(g, v, "t"); }

/* A [R,1] vector with a's valid rows (per lane): a row reduction of a (when
 * the kernel may reduce rows), a load, full(), or a pool tile. */
static bool rowvec(Gen *g, Val *a, Val *out) {
  int opts[4], n = 0;
  bool eq = same_lanes(a);
  if (gen_row_red_ok(g, a) && gen_red_keeps(a, true)) opts[n++] = 0;
  if (eq && room(g)) opts[n++] = 1;
  if (eq && a->vr[0] == a->R) opts[n++] = 2;
  if (!n) return false;
  switch (opts[gen_below(g, n)]) {
  case 0:
    *a = gen_named(g, *a);
    *out = gen_v_red(g, PICK(g, gen_rr), *a);
    return true;
  case 1: {
    int i = -1;
    if (gen_ch(g, g->p->p_reuse)) {
      i = pick_tile(g, a->dt, a->R, 1, true);
      if (i >= 0 && (g->t[i].v.vr[0] != a->vr[0] || !same_lanes(&g->t[i].v))) i = -1;
    }
    *out = i >= 0 ? g->t[i].v : gen_v_load(g, a->dt, a->R, 1, FZ_VEC, a->vr[0], 1, 0);
    return true;
  }
  default:
    *out = gen_v_full(g, a->R, 1, gen_isint(a->dt) ? gen_rng(g, -2, 2) : gen_scalar(g, a->dt, FZ_OP_adds), a->dt);
    return true;
  }
}

static bool colvec(Gen *g, Val *a, Val *out) {
  int opts[3], n = 0;
  bool eq = same_lanes(a);
  if (gen_col_red_ok(g, a) && gen_red_keeps(a, false)) opts[n++] = 0;
  if (eq && room(g)) opts[n++] = 1;
  if (eq && a->vc[0] == a->C) opts[n++] = 2;
  if (!n) return false;
  switch (opts[gen_below(g, n)]) {
  case 0:
    *a = gen_named(g, *a);
    *out = gen_v_red(g, PICK(g, gen_cr), *a);
    return true;
  case 1:
    *out = gen_v_load(g, a->dt, 1, a->C, FZ_VEC, 1, a->vc[0], 0);
    return true;
  default:
    *out = gen_v_full(g, 1, a->C, gen_isint(a->dt) ? gen_rng(g, -2, 2) : gen_scalar(g, a->dt, FZ_OP_adds), a->dt);
    return true;
  }
}

/* Wrap x in a row or column expansion when a matching vector can be made. */
Val gen_expand(Gen *g, Val x) {
  Val v;
  bool row = gen_ch(g, 0.6);
  if (row && x.C > 1 && rowvec(g, &x, &v)) return gen_v_exp2(g, rx_op(g, x.dt), x, v, true);
  if (!row && x.R > 1 && colvec(g, &x, &v)) return gen_v_exp2(g, cx_op(g, x.dt), x, v, false);
  return x;
}

/* One random vector step applied to x (shape kept). */
static Val vstep(Gen *g, Val x) {
  switch (gen_below(g, 5)) {
  case 0: return gen_v_un(g, gen_un_op(g, x.dt), x);
  case 1: {
    int op = gen_bs_op(g, x.dt);
    return gen_v_bins(g, op, x, gen_scalar(g, x.dt, op));
  }
  case 2: {
    Val y = gen_vexpr(g, x.dt, x.R, x.C, 1);
    return gen_ch(g, 0.5) ? gen_v_bin(g, gen_bi_op(g, x.dt), x, y) : gen_v_bin(g, gen_bi_op(g, x.dt), y, x);
  }
  case 3: return gen_expand(g, x);
  default:
    /* the softmax idiom: exp(row_expand_sub(x, row_max(x))) */
    if (!gen_isint(x.dt) && x.C > 1 && gen_row_red_ok(g, &x) && gen_red_keeps(&x, true)) {
      x = gen_named(g, x);
      Val m = gen_v_red(g, FZ_OP_row_max, x);
      return gen_v_un(g, FZ_OP_exp, gen_v_exp2(g, FZ_OP_row_expand_sub, x, m, true));
    }
    return gen_v_un(g, gen_un_op(g, x.dt), x);
  }
}

Val gen_vexpr(Gen *g, int dt, int R, int C, int d) {
  if (d >= g->p->max_expr_depth || !gen_vec_ok(g, 2 * gen_vbytes(dt, R, C)) || !room(g)) return leaf(g, dt, R, C);
  Val x;
  if (gen_ch(g, g->p->p_cast)) {
    int from = dt != FZ_F32 ? FZ_F32 : gen_ch(g, g->p->p_narrow) ? gen_narrow(g, true, false) : gen_ch(g, 0.7) ? FZ_F16 : FZ_I32;
    x = gen_v_cast(g, gen_vexpr(g, from, R, C, d + 1), dt);
  } else {
    switch (gen_below(g, 4)) {
    case 0: x = leaf(g, dt, R, C); break;
    case 1: {
      Val e = gen_vexpr(g, dt, R, C, d + 1);   /* choices in a fixed order: docs/fuzzing.md, "Byte seeds" */
      x = gen_v_un(g, gen_un_op(g, dt), e);
      break;
    }
    case 2: {
      int op = gen_bs_op(g, dt);
      double sc = gen_scalar(g, dt, op);
      x = gen_v_bins(g, op, gen_vexpr(g, dt, R, C, d + 1), sc);
      break;
    }
    default: {
      Val a = gen_vexpr(g, dt, R, C, d + 1), b = gen_vexpr(g, dt, R, C, d + 1);
      x = gen_v_bin(g, gen_bi_op(g, dt), a, b);
    }
    }
  }
  if (gen_ch(g, g->p->p_expand)) x = gen_expand(g, x);
  if (d > 0 && gen_ch(g, g->p->p_bind * 0.5)) x = gen_bind(g, x, "t");
  return x;
}

/* steps vector steps from x (a cube x crosses to the vector side first). */
Val gen_vchain(Gen *g, Val x, int steps) {
  if (x.sp != FZ_VEC && steps < 1) steps = 1;
  for (int i = 0; i < steps; i++) {
    if (!gen_vec_ok(g, 2 * gen_vbytes(x.dt, x.R, x.C))) {
      if (x.sp != FZ_VEC) x = gen_v_un(g, gen_un_op(g, x.dt), x);
      break;
    }
    x = vstep(g, x);
    if (i + 1 < steps && gen_ch(g, g->p->p_bind)) x = gen_bind(g, x, "y");
  }
  return x;
}

/* Store row/column reductions of x where this kernel may make them. */
void gen_reduce_stores(Gen *g, Val x) {
  bool r = x.C > 1 && gen_row_red_ok(g, &x), c = x.R > 1 && gen_col_red_ok(g, &x);
  if (!r && !c) return;
  x = gen_named(g, x);
  int n = gen_rng(g, 1, 3);
  for (int i = 0; i < n; i++) {
    bool row = r && (!c || gen_ch(g, 0.5));
    Val v = gen_v_red(g, row ? PICK(g, gen_rr) : PICK(g, gen_cr), x);
    gen_store(g, gen_ch(g, g->p->p_bind) ? gen_bind(g, v, row ? "r" : "c") : v);
  }
}
