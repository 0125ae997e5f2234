/* slices.c — views and shape changes of a value. Consumes a value and the
 * generator's state; produces sub-slice stores along an axis (each block
 * inside one lane's half), loads and set_validshape whose valid extent moves
 * with a striding loop's variable, a transpose or a reshape before a store,
 * and box-aligned slices of cube tiles. */
#define GEN_INTERNALS
#include "gen.h"

#include <string.h>

/* a5's lane stride for extent E: half the 16-element box (split.md 1.1a) */
int gen_a5_half(int E) { return (E + 15) / 16 * 16 / 2; }

/* Store blocks of h rows (axis 0) or columns (axis 1) of t, each inside one
 * lane's half: h divides S = ceil(E/2), so no block straddles S. */
void gen_subslice_stores(Gen *g, Val t, int ax) {
  int E = ax ? t.C : t.R, S = g->k->target == 1 ? gen_imin(gen_a5_half(E), E) : (E + 1) / 2;   /* split.md 1.1a */
  int divs[16], nd = 0;
  bool even = g->py && ax == g->py_ax;          /* a PyPTO share kernel halves these blocks too, and */
  bool box = g->py && ax == 1;                  /* keeps a vector row (and its half) a whole 32 bytes */
  for (int h = S; h >= 1 && nd < 16; h--)
    if (S % h == 0 && (h > 1 || S == 1) && (!even || h % 2 == 0) && (!box || h % 32 == 0)) divs[nd++] = h;
  if (!nd) return;
  int h = divs[gen_below(g, nd)], nb = E / h;
  if (nb < 1) return;
  t = gen_named(g, t);
  int R = ax ? t.R : h, C = ax ? h : t.C;
  int rows = t.R, cols = t.C;
  if (gen_ch(g, g->p->p_store_margin)) rows += gen_rng(g, 0, 2), cols += gen_rng(g, 0, 2);
  int T = gen_tensor(g, 'O', t.dt, FZ_OUT, rows, cols);
  bool loop = nb >= 2 && gen_ch(g, g->p->p_subslice_loop) && g->nloop < MAXLOOP;
  bool op = gen_ch(g, g->p->p_subslice_op);
  int uop = gen_un_op(g, t.dt);
  double sc = gen_scalar(g, t.dt, FZ_OP_muls);
  FzBody *outer = NULL;
  FzAff o = gen_aff(0);
  if (loop) {
    outer = gen_open_loop(g, false, 0, nb, 1);
    o = gen_aff_plus(o, g->loop[g->nloop - 1].iv, h);
  } else {
    o = gen_aff(gen_below(g, nb) * h);
  }
  FzExpr *s = gen_call(g, FZ_OP_slice, 3);
  gen_a_expr(g, &s->a[0], t.e);
  gen_a_idx(&s->a[1], ax ? gen_aff(0) : o, ax ? o : gen_aff(0));
  gen_a_idx(&s->a[2], gen_aff(R), gen_aff(C));
  g->vec += gen_vbytes(t.dt, R, C);
  g->cb[0] += gen_trips(g) * gen_vbytes(t.dt, R, C);
  if (!loop && gen_ch(g, g->p->p_slice_late)) {
    /* the slice named, then a new tile of t's shape made and stored before
     * the slice is read: where t's last use is the slice, a planner that
     * lets a view's parent die with it gives t's bytes to the new tile */
    Val sv = gen_bind(g, gen_vres(g, s, t.dt, R, C), "sv");
    gen_tile_of(g, &sv)->alive = false;         /* read only by its store below */
    s = sv.e;
    gen_store(g, gen_v_un(g, gen_un_op(g, t.dt), gen_v_load(g, t.dt, t.R, t.C, FZ_VEC, -1, -1, 0)));
    gen_feat(g, FZ_FEAT_slice_late);
  }
  FzExpr *x = s;
  if (op) {
    bool scal = gen_ch(g, 0.5);
    x = gen_call(g, scal ? FZ_OP_muls : uop, scal ? 2 : 1);
    gen_a_expr(g, &x->a[0], s);
    if (scal) gen_a_num(&x->a[1], sc);
    g->vec += gen_vbytes(t.dt, R, C);
    g->cb[0] += gen_trips(g) * gen_vbytes(t.dt, R, C);
  }
  gen_store_at(g, T, ax ? gen_aff(0) : o, ax ? o : gen_aff(0), x);
  if (loop) gen_close_loop(g, outer);
  gen_feat(g, ax ? FZ_FEAT_subslice_cols : FZ_FEAT_strided_subslice_store);
}

/* An extent i*k + c of a striding loop l that stays within 1..E over the
 * loop (k <= 4); its largest value in *vmax. False when the loop is too long. */
static bool loop_extent(Gen *g, const Loop *l, int E, FzAff *x, int *vmax) {
  int span = l->step * (l->trips - 1), vmin = gen_rng(g, 1, E - 1), kk = gen_imin((E - vmin) / span, 4);
  if (kk < 1) return false;
  *x = gen_aff_plus(gen_aff(vmin - kk * l->lo), l->iv, kk);
  *vmax = vmin + kk * span;
  return true;
}

/* A load in a striding loop whose valid columns grow with the loop variable:
 * valid=[R, i*k + c], within 1..C over the loop. The value records the
 * largest extent (what a store must have room for). */
bool gen_v_load_lv(Gen *g, int dt, int R, int C, Val *out) {
  const Loop *l = gen_stride_loop(g);
  if (!l || C < 2 || l->trips < 2 || g->region) return false;
  FzAff vc;
  int vmax, s2 = 0;
  if (!loop_extent(g, l, C, &vc, &vmax)) return false;
  FzAff ro = gen_advance(g, gen_aff(0), R, &s2);
  int t = gen_tensor(g, 'A', dt, FZ_IN, R + s2, vmax + (gen_ch(g, g->p->p_store_margin) ? gen_rng(g, 1, 3) : 0));
  FzExpr *e = gen_call(g, FZ_OP_load, 4);
  gen_a_tensor(&e->a[0], t);
  gen_a_idx(&e->a[1], ro, gen_aff(0));
  gen_a_idx(&e->a[2], gen_aff(R), gen_aff(C));
  gen_a_idx(&e->a[3], gen_aff(R), vc), e->a[3].kw = FZ_KW_VALID;
  *out = gen_mkval(dt, FZ_VEC, R, C, R, vmax);
  out->e = e;
  gen_charge(g, out);
  gen_feat(g, FZ_FEAT_loop_valid);
  gen_feat(g, FZ_FEAT_partial_valid);
  return true;
}

/* set_validshape(x, i*k + c, vc) in a striding loop: x's valid rows shrink
 * to a count that changes every iteration, known only at run time (DESIGN
 * 14.11); the value records the largest (what a store must have room for). */
bool gen_v_setvalid(Gen *g, Val *x) {
  const Loop *l = gen_stride_loop(g);
  int V = x->vr[0];
  if (!l || x->sp != FZ_VEC || V < 2 || x->vc[0] < 0 || l->trips < 2 || g->region || x->vr[1] != V) return false;
  FzAff vr;
  int vmax;
  if (!loop_extent(g, l, V, &vr, &vmax)) return false;
  FzExpr *e = gen_call(g, FZ_OP_set_validshape, 3);
  gen_a_expr(g, &e->a[0], x->e);
  e->a[1].k = e->a[2].k = FZ_A_AFF;
  e->a[1].ix[0] = vr;
  e->a[2].ix[0] = gen_aff(x->vc[0]);
  x->e = e;
  x->vr[0] = x->vr[1] = vmax;
  gen_feat(g, FZ_FEAT_set_validshape);
  return true;
}

/* transpose(x) of a vector value with two real axes (an [R,1] <-> [1,R]
 * transpose is a reshape in PTO-AS, which wants a full tile). Outside
 * split_aiv only: under a split the axis moves, so only element-wise steps
 * on the value itself follow (another operand would be halved on the other
 * axis: E-SPLIT-AXIS). */
static bool v_transpose(Gen *g, Val *x) {
  if (g->region || x->sp != FZ_VEC || x->R < 2 || x->C < 2 || !gen_vec_ok(g, gen_vbytes(x->dt, x->C, x->R))) return false;
  FzExpr *e = gen_call(g, FZ_OP_transpose, 1);
  gen_a_expr(g, &e->a[0], x->e);
  Val r = gen_vres(g, e, x->dt, x->C, x->R);
  memcpy(r.vr, x->vc, sizeof r.vr), memcpy(r.vc, x->vr, sizeof r.vc);
  gen_charge(g, &r);
  *x = r;
  gen_feat(g, FZ_FEAT_transpose);
  return true;
}

/* reshape(x, [R2, C2]) of a fully valid vector value, to shapes each split
 * keeps as lane bands (docs/language.md 9.3): [1,C] -> [2,C/2] (whole under
 * up_down, a lane's columns become its row under left_right); [R,C], R even,
 * -> [2R,C/2] or [R/2,2C] (R/2 even), an up_down row band, only where the
 * kernel may break left_right (a column band of several rows is no run). Rows
 * of whole 32-byte units, so PTO-AS's treshape sees the same bytes. */
static bool v_reshape(Gen *g, Val *x) {
  int R = x->R, C = x->C, e = gen_esize(x->dt), R2 = 0, C2 = 0;
  if (g->region || x->sp != FZ_VEC) return false;
  for (int l = 0; l < 2; l++)
    if (x->vr[l] != R || x->vc[l] != C) return false;
  if ((C * e) % 32) return false;
  if (R == 1 && C % 2 == 0 && (C / 2 * e) % 32 == 0) R2 = 2, C2 = C / 2;
  else if (R > 1 && R % 2 == 0 && g->brk[1]) {
    bool wide = R % 4 == 0 && 2 * C <= 512, tall = C % 2 == 0 && (C / 2 * e) % 32 == 0 &&
                2 * R <= 512;
    if (wide && (!tall || gen_ch(g, 0.5))) R2 = R / 2, C2 = 2 * C;
    else if (tall) R2 = 2 * R, C2 = C / 2;
  }
  if (!R2) return false;
  /* a5's lanes are halves of 16-element boxes (split.md 1.1a): a lane's band of the
   * source is seldom its band of the result, so the claim stays with a2a3's */
  if (g->k->target == 1) gen_refuse(g, FZ_V_UD | FZ_V_LR, "reshape-a5-box");
  FzExpr *ex = gen_call(g, FZ_OP_reshape, 2);
  gen_a_expr(g, &ex->a[0], x->e);
  gen_a_idx(&ex->a[1], gen_aff(R2), gen_aff(C2));
  Val r = gen_vres(g, ex, x->dt, R2, C2);
  gen_charge(g, &r);
  *x = r;
  gen_feat(g, FZ_FEAT_reshape);
  return true;
}

/* Before a store: a transpose or a reshape (p_transpose, p_reshape; not
 * both: a reshape of a transposed half tile is no lane band under up_down),
 * then perhaps one element-wise step of the value alone. */
Val gen_move_axes(Gen *g, Val x) {
  bool t = gen_ch(g, g->p->p_transpose) && v_transpose(g, &x);
  bool r = !t && gen_ch(g, g->p->p_reshape) && v_reshape(g, &x);
  if ((t || r) && gen_ch(g, 0.5)) x = gen_v_un(g, gen_un_op(g, x.dt), x);
  return x;
}

/* slice of a cube tile: box-aligned (16 rows x the box columns) unless
 * p_cube_slice_unaligned; a view on the cube side. */
bool gen_cube_slice(Gen *g, Val s, Val *out) {
  int bc = s.sp == FZ_ACC ? 16 : 32 / gen_esize(s.dt), r, h, c, w;
  if (gen_ch(g, g->p->p_cube_slice_unaligned)) {
    h = gen_rng(g, 1, s.R), r = gen_rng(g, 0, s.R - h), w = gen_rng(g, 1, s.C), c = gen_rng(g, 0, s.C - w);
  } else {
    if (s.R < 16 || s.C < bc) return false;
    int nr = s.R / 16, nc = s.C / bc, hb = gen_rng(g, 1, nr), wb = gen_rng(g, 1, nc);
    h = 16 * hb, r = 16 * gen_rng(g, 0, nr - hb), w = bc * wb, c = bc * gen_rng(g, 0, nc - wb);
  }
  FzExpr *e = gen_call(g, FZ_OP_slice, 3);
  gen_a_expr(g, &e->a[0], s.e);
  gen_a_idx(&e->a[1], gen_aff(r), gen_aff(c));
  gen_a_idx(&e->a[2], gen_aff(h), gen_aff(w));
  *out = gen_mkval(s.dt, s.sp, h, w, gen_imin(h, gen_clampi(s.vr[0] - r, 0, h)), gen_imin(w, gen_clampi(s.vc[0] - c, 0, w)));
  out->e = e;
  gen_feat(g, FZ_FEAT_cube_slice);
  return true;
}
