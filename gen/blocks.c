/* blocks.c — the blocks fz_generate draws by weight. Each consumes the
 * generator's state (the policy, the choice source, the pool of tiles earlier
 * blocks left) and appends statements to the current body: vector-only work,
 * C2V (a matmul whose result goes through vector ops), V2C (vector results fed
 * to a matmul), both ways, loops carrying transfers and accumulators, the
 * online-softmax step, explicit moves, reductions and expansions, sub-slice
 * stores, assemble. (The paged-gather block is in gm.c.) */
#define GEN_INTERNALS
#include "gen.h"

static bool wrap_ok(Gen *g) { return !g->nloop && gen_ch(g, g->p->p_loop_wrap); }

void gen_blk_vector(Gen *g) {
  int dt = gen_pick_dt(g, true, false), R = gen_dim(g, false, 0), C = gen_dim(g, true, 0);
  gen_fit(g, dt, &R, &C, 4, 0);
  FzBody *outer = wrap_ok(g) ? gen_open_rand_loop(g, true) : NULL;
  Val x;
  if (outer && gen_ch(g, g->p->p_loop_valid) && gen_v_load_lv(g, dt, R, C, &x)) {
    /* element-wise steps only: the valid columns change every iteration */
    for (int i = gen_rng(g, 1, 2); i > 0; i--) {
      int op = gen_bs_op(g, dt);
      x = gen_ch(g, 0.5) ? gen_v_un(g, gen_un_op(g, dt), x) : gen_v_bins(g, op, x, gen_scalar(g, dt, op));
    }
    gen_store(g, x);
    gen_close_loop(g, outer);
    return;
  }
  x = gen_vexpr(g, dt, R, C, 0);
  if (gen_ch(g, 0.5)) x = gen_vchain(g, x, gen_rng(g, 1, 2));
  if (gen_ch(g, g->p->p_bind)) x = gen_bind(g, x, "x");
  if (gen_ch(g, 0.3)) gen_reduce_stores(g, x);
  gen_store(g, gen_move_axes(g, x));
  if (outer) gen_close_loop(g, outer);
}

/* Matmul on the cube of two mat loads; the acc result goes through vector ops (C2V). */
void gen_blk_c2v(Gen *g) {
  int dt = gen_pick_dt(g, true, true), M = gen_dim(g, false, g->brk[0] ? 0 : D_NOUNIT), K = gen_dim(g, true, D_NOUNIT),
      N = gen_dim(g, true, g->brk[1] ? 0 : D_NOUNIT);   /* a unit extent is a whole tile: no C2V under its split */
  gen_fit_mm(g, dt, &M, &K, &N, 3, 0);
  bool tb = gen_ch(g, g->p->p_trans_b);
  FzBody *outer = wrap_ok(g) ? gen_open_rand_loop(g, true) : NULL;
  /* ragged rows as the real tests write them (127 of 128 is code 3; 13 of 16
   * needs rebalancing under up_down, DESIGN 14.1-2) */
  int rv = -1;
  if (M >= 4 && gen_ch(g, g->p->p_ragged_valid)) {
    rv = gen_ch(g, 0.5) ? M - 1 : gen_rng(g, M / 2 + 1, M - 2);
    gen_feat(g, FZ_FEAT_ragged_valid);
  }
  Val a = gen_v_load(g, dt, M, K, FZ_MAT, rv, rv < 0 ? -1 : K, LD_PARTIAL);
  if (gen_ch(g, g->p->p_mat_store)) {
    a = gen_bind(g, a, "a");
    gen_store(g, a);
  }
  Val b = gen_rhs_load(g, dt, K, N, tb, a.vc[0], false);
  Val s = gen_bind(g, gen_v_mm(g, NULL, a, b, tb), "s");
  if (gen_ch(g, g->p->p_cube_store)) gen_store(g, s);
  Val cs;
  bool sliced = false;
  if (gen_ch(g, g->p->p_cube_slice) && gen_cube_slice(g, s, &cs)) {
    cs = gen_bind(g, cs, "cs");
    gen_store(g, gen_ch(g, 0.5) ? cs : gen_vchain(g, cs, gen_rng(g, 1, 2)));
    sliced = true;
  }
  Val y = gen_vchain(g, s, gen_rng(g, 1, 3));
  if (!outer && !sliced && gen_ch(g, g->p->p_c2v_recross)) {
    /* s reassigned after its vector read, then read on the vector side again:
     * the new value must cross, not the copy the first read moved */
    gen_store(g, y);
    Val b2 = gen_v_load(g, dt, b.R, b.C, FZ_MAT, b.vr[0], b.vc[0], 0);   /* b's shapes: s keeps its valid shape */
    s = gen_reassign(g, s, gen_v_mm(g, NULL, a, b2, tb));
    y = gen_vchain(g, s, gen_rng(g, 1, 2));
    gen_feat(g, FZ_FEAT_c2v_recross);
  }
  if (outer && gen_ch(g, g->p->p_set_validshape) && gen_v_setvalid(g, &y)) {
    if (gen_ch(g, 0.5)) y = gen_v_un(g, gen_un_op(g, y.dt), y);   /* element-wise only: the valid rows change */
    gen_store(g, y);
    gen_close_loop(g, outer);
    return;
  }
  if (gen_ch(g, 0.25)) gen_reduce_stores(g, y);
  gen_store(g, gen_move_axes(g, y));
  if (outer) gen_close_loop(g, outer);
}

/* A vector operand for the cube: even extents (or 1), so either split mode
 * can hand it over in two equal halves. */
static Val cube_operand(Gen *g, int dt, int R, int C) {
  Val x;
  if (gen_ch(g, 0.5)) {
    int n = gen_rng(g, 1, 2);
    x = gen_vchain(g, gen_v_load(g, dt, R, C, FZ_VEC, -1, -1, LD_PARTIAL), n);
  } else {
    x = gen_vexpr(g, dt, R, C, 0);
  }
  return x;
}

void gen_blk_v2c(Gen *g) {
  /* a whole (extent-1) vector tile cannot cross to the cube under a split (DESIGN 14.5) */
  int dt = gen_pick_dt(g, true, true), M = gen_dim(g, false, D_EVEN | (g->brk[0] ? 0 : D_NOUNIT)),
      K = gen_dim(g, true, D_EVEN | D_NOUNIT), N = gen_dim(g, true, D_EVEN | (g->brk[1] ? 0 : D_NOUNIT));
  gen_fit_mm(g, dt, &M, &K, &N, 4, D_EVEN);
  bool tb = gen_ch(g, g->p->p_trans_b);
  bool cast16 = dt == FZ_F32 && gen_ch(g, g->p->p_f16 * g->p->p_cast_f16_pv * 2);
  /* up_down: lane 0's rows partial, lane 1's empty (the join's valid shape is lane 0's) */
  Val x = M >= 4 && gen_ch(g, g->p->p_v2c_partial) ? gen_v_load(g, dt, M, K, FZ_VEC, gen_rng(g, 1, M / 2 - 1), K, 0)
                                                : cube_operand(g, dt, M, K);
  int rdt = dt;
  if (cast16) x = gen_v_cast(g, x, FZ_F16), rdt = FZ_F16;
  x = gen_bind(g, x, "x");
  Val y;
  if (gen_ch(g, 0.5)) {
    y = tb ? cube_operand(g, dt, N, K) : cube_operand(g, dt, K, N);
    if (cast16) y = gen_v_cast(g, y, FZ_F16);
    int kv = tb ? y.vc[0] : y.vr[0];
    if (kv < x.vc[0]) y = gen_rhs_load(g, rdt, K, N, tb, x.vc[0], false);
  } else {
    y = gen_rhs_load(g, rdt, K, N, tb, x.vc[0], false);
  }
  if (!g->nloop && !g->region && gen_ch(g, g->p->p_v2c_across_loop)) {
    /* x's cube copy read in a loop that moves to the cube itself and after
     * it: the loop's frees would release its pipe slot first */
    y = gen_named(g, y);                            /* one copy of the operand, not three */
    Val m = gen_bind(g, gen_v_move(g, x, FZ_MAT), "m");
    FzBody *outer = gen_open_loop(g, true, 0, gen_rng(g, 2, 3), 1);
    Val x2 = gen_bind(g, gen_v_load(g, rdt, M, K, FZ_VEC, x.vr[0], x.vc[0], 0), "x");
    gen_store(g, gen_v_bin(g, FZ_OP_add, gen_v_mm(g, NULL, x2, y, tb), gen_v_mm(g, NULL, m, y, tb)));
    gen_close_loop(g, outer);
    x = m;
  }
  Val c = gen_bind(g, gen_v_mm(g, NULL, x, y, tb), "c");
  if (gen_ch(g, 0.5)) {
    gen_store(g, gen_vchain(g, c, gen_rng(g, 1, 2)));
    if (gen_ch(g, g->p->p_cube_store)) gen_store(g, c);
  } else {
    gen_store(g, c);
  }
}

/* cube -> vector -> cube -> vector. */
void gen_blk_both(Gen *g) {
  int dt = gen_pick_dt(g, false, true), M = gen_dim(g, false, D_EVEN), K = gen_dim(g, true, D_NOUNIT), N = gen_dim(g, true, D_EVEN),
      N2 = gen_dim(g, true, 0);
  gen_fit_mm(g, dt, &M, &K, &N, 3, D_EVEN);
  gen_fit_mm(g, FZ_F32, &M, &N, &N2, 3, D_EVEN);
  Val a = gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
  Val w = gen_rhs_load(g, dt, K, N, false, a.vc[0], false);
  Val h = gen_bind(g, gen_v_mm(g, NULL, a, w, false), "h");
  Val g1 = gen_bind(g, gen_vchain(g, h, gen_rng(g, 1, 2)), "g");
  int rdt = FZ_F32;
  if (dt == FZ_F16 && gen_ch(g, g->p->p_cast_f16_pv)) g1 = gen_bind(g, gen_v_cast(g, g1, FZ_F16), "g"), rdt = FZ_F16;
  bool tb = gen_ch(g, g->p->p_trans_b);
  Val w2 = gen_rhs_load(g, rdt, N, N2, tb, g1.vc[0], false);
  Val h2 = gen_bind(g, gen_v_mm(g, NULL, g1, w2, tb), "h");
  gen_store(g, gen_vchain(g, h2, gen_rng(g, 1, 2)));
  if (gen_ch(g, g->p->p_cube_store)) gen_store(g, h);
}

/* A loop carrying transfers: x_i on the cube, through the vector side (and
 * back into a second matmul), with a vector running sum, a running row max or
 * a matmul_acc accumulator carried across iterations. */
void gen_blk_loop(Gen *g) {
  int dt = gen_pick_dt(g, false, true), M = gen_dim(g, false, D_EVEN), K = gen_dim(g, true, D_NOUNIT), N = gen_dim(g, true, D_EVEN);
  gen_fit_mm(g, dt, &M, &K, &N, 6, D_EVEN);
  bool both = gen_ch(g, g->p->p_both_in_loop), macc = gen_ch(g, g->p->p_matmul_acc);
  bool rmax = N > 1 && g->brk[1] && gen_ch(g, g->p->p_running_max);
  Val w = gen_v_load(g, dt, K, N, FZ_MAT, -1, -1, 0);
  w = gen_bind(g, w, "w");
  Val w2 = {0};
  if (both) {
    w2 = gen_bind(g, gen_v_load(g, dt == FZ_F16 ? FZ_F16 : FZ_F32, N, N, FZ_MAT, -1, -1, 0), "w");
    if (g->acc + gen_fbytes(FZ_F32, M, N, true) > g->p->acc_budget) both = false;
  }
  Val run0 = gen_v_full(g, M, N, 0, FZ_F32), mx0 = {0};
  Val run = gen_bind(g, run0, "run");
  Val mx = {0};
  if (rmax) mx0 = gen_v_full(g, M, 1, -1000, FZ_F32), mx = gen_bind(g, mx0, "mx");
  /* a PyPTO share kernel fits the accumulators' valid shapes to what they add
   * (gen_py_valid_full): no leaf may read them before that */
  Tile *hide[2] = {g->py ? gen_tile_of(g, &run) : NULL, g->py && rmax ? gen_tile_of(g, &mx) : NULL};
  for (int i = 0; i < 2; i++)
    if (hide[i]) hide[i]->alive = false;
  Val acc = {0};
  int trips = gen_rng(g, g->p->loop_trips_min, g->p->loop_trips_max);
  FzBody *outer;
  int xr = gen_tensor(g, 'A', dt, FZ_IN, (trips + (macc ? 1 : 0)) * M, K);
  if (macc) {
    /* acc = matmul(x_0, w); for i in range(1, trips + 1) acc = matmul_acc(acc, x_i, w) */
    FzExpr *e = gen_call(g, FZ_OP_load, 4);
    gen_a_tensor(&e->a[0], xr);
    gen_a_idx(&e->a[1], gen_aff(0), gen_aff(0));
    gen_a_idx(&e->a[2], gen_aff(M), gen_aff(K));
    gen_a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
    Val x0 = gen_mkval(dt, FZ_MAT, M, K, M, K);
    x0.e = e;
    gen_charge(g, &x0);
    acc = gen_bind(g, gen_v_mm(g, NULL, x0, w, false), "acc");
    outer = gen_open_loop(g, false, 1, trips, 1);
  } else {
    outer = gen_open_loop(g, false, 0, trips, 1);
  }
  int iv = g->loop[g->nloop - 1].iv;
  FzExpr *e = gen_call(g, FZ_OP_load, 4);
  gen_a_tensor(&e->a[0], xr);
  gen_a_idx(&e->a[1], gen_aff_plus(gen_aff(0), iv, M), gen_aff(0));
  gen_a_idx(&e->a[2], gen_aff(M), gen_aff(K));
  gen_a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
  Val x = gen_mkval(dt, FZ_MAT, M, K, M, K);
  x.e = e;
  gen_charge(g, &x);
  x = gen_bind(g, x, "x");
  Val h;
  if (macc) h = acc = gen_reassign(g, acc, gen_v_mm(g, &acc, x, w, false));
  else h = gen_bind(g, gen_v_mm(g, NULL, x, w, false), "h");
  Val y = gen_bind(g, gen_vchain(g, h, gen_rng(g, 1, 2)), "y");
  if (both) {
    Val yo = y;
    if (w2.dt == FZ_F16) yo = gen_bind(g, gen_v_cast(g, y, FZ_F16), "y");
    Val h2 = gen_bind(g, gen_v_mm(g, NULL, yo, w2, false), "h");
    y = gen_bind(g, gen_vchain(g, h2, 1), "y");
  }
  for (int i = 0; i < 2; i++)
    if (hide[i]) hide[i]->alive = true;
  gen_py_valid_full(g, run0.e, &run, &y);
  run = gen_reassign(g, run, gen_v_bin(g, FZ_OP_add, run, y));
  if (rmax) {
    Val r = gen_v_red(g, FZ_OP_row_max, y);
    gen_py_valid_full(g, mx0.e, &mx, &r);
    mx = gen_reassign(g, mx, gen_v_bin(g, FZ_OP_max, mx, r));
  }
  /* y_i side by side in O: rows i*M (i - 1 for the matmul_acc loop) */
  int orow = gen_tensor(g, 'O', FZ_F32, FZ_OUT, trips * M, N);
  gen_store_at(g, orow, gen_aff_plus(gen_aff(macc ? -M : 0), iv, M), gen_aff(0), y.e);
  gen_close_loop(g, outer);
  gen_store(g, run);
  if (rmax) gen_store(g, mx);
  if (macc) gen_store(g, gen_ch(g, 0.5) ? acc : gen_vchain(g, acc, 1));
}

/* Strided row-block stores of a [R,1] statistic or a tile. */
static void stats_store(Gen *g, Val v) {
  if (v.R >= 2 && gen_ch(g, g->p->p_strided_stats)) gen_subslice_stores(g, v, 0);
  else gen_store(g, v);
}

/* Online softmax: one step, or the running max / sum / output across key blocks. */
void gen_blk_softmax(Gen *g) {
  gen_feat(g, FZ_FEAT_online_softmax);
  int dt = gen_ch(g, g->p->p_f16 * 2) ? FZ_F16 : FZ_F32;
  if (dt == FZ_F16) gen_feat(g, FZ_FEAT_f16);
  int M = gen_dim(g, false, D_EVEN | D_NOUNIT), D = gen_dim(g, true, D_NOUNIT), Nk = gen_dim(g, true, D_EVEN | D_NOUNIT),
      D2 = gen_dim(g, true, D_NOUNIT);
  gen_fit_mm(g, dt, &M, &D, &Nk, 6, D_EVEN);
  gen_fit_mm(g, dt, &M, &Nk, &D2, 4, D_EVEN);
  double scale = gen_ch(g, 0.5) ? 0.125 : 0.0883883;
  bool loop = gen_ch(g, g->p->p_softmax_loop);
  /* one step: q may have a trimmed tail block (valid rows < M) and the keys a
   * partial block; the loop keeps whole blocks so the carried state is whole */
  Val q = gen_bind(g, gen_v_load(g, dt, M, D, FZ_MAT, -1, -1, loop ? 0 : LD_PARTIAL), "q");
  if (!loop) {
    int nk = gen_ch(g, g->p->p_partial_valid) ? gen_rng(g, 1, Nk) : Nk;
    Val k = gen_v_load(g, dt, Nk, D, FZ_MAT, nk, D, 0);
    Val s = gen_bind(g, gen_v_mm(g, NULL, q, gen_bind(g, k, "k"), true), "s");
    Val sc = gen_bind(g, gen_v_bins(g, FZ_OP_muls, s, scale), "sc");
    Val m = gen_bind(g, gen_v_red(g, FZ_OP_row_max, sc), "m");
    Val p = gen_bind(g, gen_v_un(g, FZ_OP_exp, gen_v_exp2(g, FZ_OP_row_expand_sub, sc, m, true)), "p");
    Val l = gen_bind(g, gen_v_red(g, FZ_OP_row_sum, p), "l");
    Val pv = dt == FZ_F16 ? gen_bind(g, gen_v_cast(g, p, FZ_F16), "ph") : p;
    Val v = gen_bind(g, gen_v_load(g, dt, Nk, D2, FZ_MAT, -1, -1, 0), "v");
    Val o = gen_bind(g, gen_v_mm(g, NULL, pv, v, false), "o");
    gen_store(g, gen_v_exp2(g, FZ_OP_row_expand_div, o, l, true));
    stats_store(g, m);
    stats_store(g, l);
    return;
  }
  gen_feat(g, FZ_FEAT_online_softmax_loop);
  Val m = gen_bind(g, gen_v_full(g, M, 1, -1000, FZ_F32), "m");
  Val l = gen_bind(g, gen_v_full(g, M, 1, 0, FZ_F32), "l");
  Val o = gen_bind(g, gen_v_full(g, M, D2, 0, FZ_F32), "o");
  int trips = gen_rng(g, g->p->loop_trips_min, g->p->loop_trips_max);
  int kt = gen_tensor(g, 'A', dt, FZ_IN, trips * Nk, D), vt = gen_tensor(g, 'A', dt, FZ_IN, trips * Nk, D2);
  FzBody *outer = gen_open_loop(g, false, 0, trips, 1);
  int iv = g->loop[g->nloop - 1].iv;
  Val kv[2];
  for (int i = 0; i < 2; i++) {
    FzExpr *e = gen_call(g, FZ_OP_load, 4);
    gen_a_tensor(&e->a[0], i ? vt : kt);
    gen_a_idx(&e->a[1], gen_aff_plus(gen_aff(0), iv, Nk), gen_aff(0));
    gen_a_idx(&e->a[2], gen_aff(Nk), gen_aff(i ? D2 : D));
    gen_a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
    kv[i] = gen_mkval(dt, FZ_MAT, Nk, i ? D2 : D, Nk, i ? D2 : D);
    kv[i].e = e;
    gen_charge(g, &kv[i]);
    kv[i] = gen_bind(g, kv[i], i ? "v" : "k");
  }
  Val s = gen_bind(g, gen_v_bins(g, FZ_OP_muls, gen_v_mm(g, NULL, q, kv[0], true), scale), "s");
  Val mn = gen_bind(g, gen_v_bin(g, FZ_OP_max, m, gen_v_red(g, FZ_OP_row_max, s)), "mn");
  Val p = gen_bind(g, gen_v_un(g, FZ_OP_exp, gen_v_exp2(g, FZ_OP_row_expand_sub, s, mn, true)), "p");
  Val alpha = gen_bind(g, gen_v_un(g, FZ_OP_exp, gen_v_bin(g, FZ_OP_sub, m, mn)), "al");
  Val ls = gen_v_red(g, FZ_OP_row_sum, p);
  l = gen_reassign(g, l, gen_v_bin(g, FZ_OP_add, gen_v_bin(g, FZ_OP_mul, l, alpha), ls));
  Val pv = dt == FZ_F16 ? gen_v_cast(g, p, FZ_F16) : p;
  Val om = gen_v_mm(g, NULL, pv, kv[1], false);
  o = gen_reassign(g, o, gen_v_bin(g, FZ_OP_add, gen_v_exp2(g, FZ_OP_row_expand_mul, o, alpha, true), om));
  m = gen_reassign(g, m, mn);
  gen_close_loop(g, outer);
  gen_store(g, gen_v_exp2(g, FZ_OP_row_expand_div, o, l, true));
  stats_store(g, m);
  if (gen_ch(g, 0.5)) stats_store(g, l);
}

/* An explicit move in one of the directions language.md 9.8 allows: vec ->
 * mat (V2C), mat -> vec and acc -> vec (C2V), acc -> mat (cube), and within
 * vec, mat or acc (a copy). Even extents without a unit one, so either split
 * mode can carry the transfer. */
void gen_blk_move(Gen *g) {
  int dir = gen_below(g, 7);
  int dt = gen_pick_dt(g, false, true), M = gen_dim(g, false, D_EVEN | D_NOUNIT), K = gen_dim(g, true, D_EVEN | D_NOUNIT),
      N = gen_dim(g, true, D_EVEN | D_NOUNIT);
  gen_fit_mm(g, dt, &M, &K, &N, 4, D_EVEN);
  bool tb = gen_ch(g, g->p->p_trans_b);
  switch (dir) {
  case 0: {                                     /* vec -> mat, then a matmul operand */
    Val x = gen_bind(g, cube_operand(g, dt, M, K), "x");
    Val m = gen_bind(g, gen_v_move(g, x, FZ_MAT), "m");
    Val b = gen_rhs_load(g, dt, K, N, tb, m.vc[0], false);
    {
      int n = gen_rng(g, 1, 2);
      gen_store(g, gen_vchain(g, gen_v_mm(g, NULL, m, b, tb), n));
    }
    break;
  }
  case 1:                                       /* mat -> vec */
  case 5: {                                     /* mat -> mat, then a matmul operand */
    Val a = gen_bind(g, gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL), "a");
    if (dir == 1) {
      {
        int n = gen_rng(g, 1, 2);
        gen_store(g, gen_vchain(g, gen_v_move(g, a, FZ_VEC), n));
      }
      break;
    }
    Val m = gen_bind(g, gen_v_move(g, a, FZ_MAT), "m");
    Val b = gen_rhs_load(g, dt, K, N, tb, m.vc[0], false);
    {
      int n = gen_rng(g, 1, 2);
      gen_store(g, gen_vchain(g, gen_v_mm(g, NULL, m, b, tb), n));
    }
    break;
  }
  case 4: {                                     /* vec -> vec */
    Val x = gen_vexpr(g, dt, M, K, 0);
    Val mv = gen_v_move(g, x.sp == FZ_VEC ? x : gen_v_un(g, gen_un_op(g, x.dt), x), FZ_VEC);
    gen_store(g, gen_v_un(g, gen_un_op(g, dt), mv));
    break;
  }
  default: {                                    /* acc -> vec, acc -> mat, acc -> acc */
    Val a = gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
    Val b = gen_rhs_load(g, dt, K, N, tb, a.vc[0], false);
    Val s = gen_bind(g, gen_v_mm(g, NULL, a, b, tb), "s");
    if (dir == 2) {
      {
        int n = gen_rng(g, 1, 2);
        gen_store(g, gen_vchain(g, gen_v_move(g, s, FZ_VEC), n));
      }
    } else if (dir == 3) {
      Val m = gen_bind(g, gen_v_move(g, s, FZ_MAT), "m");
      gen_store(g, m);
    } else {
      Val c = gen_bind(g, gen_v_move(g, s, FZ_ACC), "c");
      Val a2 = gen_bind(g, gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, 0), "a");
      Val b2 = gen_rhs_load(g, dt, K, N, tb, a2.vc[0], false);
      {
        int n = gen_rng(g, 1, 2);
        gen_store(g, gen_vchain(g, gen_v_mm(g, &c, a2, b2, tb), n));
      }
    }
  }
  }
}

/* A pool tile (or a new vector value) for reductions, expansions, sub-slices. */
static Val some_vec(Gen *g, int minr, int minc) {
  int cnt = 0;
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    cnt += t->alive && t->v.sp == FZ_VEC && !t->v.lane && t->v.R >= minr && t->v.C >= minc;
  }
  if (cnt && gen_ch(g, 0.6)) {
    int k = gen_below(g, cnt);
    for (int i = 0; i < g->nt; i++) {
      const Tile *t = &g->t[i];
      if (t->alive && t->v.sp == FZ_VEC && !t->v.lane && t->v.R >= minr && t->v.C >= minc && k-- == 0) return t->v;
    }
  }
  int dt = gen_pick_dt(g, true, false), R = gen_imax(gen_dim(g, false, D_NOUNIT), minr), C = gen_imax(gen_dim(g, true, D_NOUNIT), minc);
  gen_fit(g, dt, &R, &C, 3, 0);
  R = gen_imax(R, minr), C = gen_imax(C, minc);
  Val x = gen_vexpr(g, dt, R, C, 0);
  return x.sp == FZ_VEC ? x : gen_v_un(g, gen_un_op(g, x.dt), x);   /* a reused cube tile crosses over */
}

void gen_blk_reduce(Gen *g) {
  Val x = gen_named(g, some_vec(g, 2, 2));
  bool r = gen_row_red_ok(g, &x), c = gen_col_red_ok(g, &x);
  if (!r && !c) {
    gen_store(g, gen_expand(g, x));
    return;
  }
  gen_reduce_stores(g, x);
  if (gen_ch(g, 0.5)) gen_store(g, gen_expand(g, x));
}

/* A kernel of one C2V transfer that up_down must rebalance (DESIGN 14.2):
 * E rows, V valid, lanes of ceil(E/2) holding counts no split code fits
 * (ceil(E/2) + 1 <= V <= E - 1 or so), so auto_split takes the stride
 * ceil(V/2). Every vector tile has the transfer's E rows and V valid rows
 * and every column valid, so nothing else needs another stride or more
 * valid rows than the lanes hold: up_down is claimed to compile. */
void gen_blk_rebalance(Gen *g) {
  int dt = gen_pick_dt(g, true, true), E = gen_dim(g, false, D_NOUNIT), K = gen_dim(g, true, D_NOUNIT),
      N = gen_dim(g, true, D_NOUNIT);
  gen_fit_mm(g, dt, &E, &K, &N, 3, 0);
  int S = (E + 1) / 2;
  if (S < 3) {                                  /* no count fits no code */
    gen_blk_c2v(g);
    return;
  }
  int V = gen_rng(g, S + 1, 2 * S - 2);
  Val a = gen_v_load(g, dt, E, K, FZ_MAT, V, K, 0);
  Val b = gen_rhs_load(g, dt, K, N, false, K, true);
  Val s = gen_bind(g, gen_v_mm(g, NULL, a, b, false), "s");
  g->rebal = true;
  Val y = gen_v_un(g, gen_un_op(g, s.dt), s);   /* element-wise only: no other tile of E rows */
  g->rebal = false;
  if (gen_ch(g, 0.5)) y = gen_v_bins(g, FZ_OP_muls, y, gen_scalar(g, y.dt, FZ_OP_muls));
  gen_store(g, y);
  gen_feat(g, FZ_FEAT_rebalance);
}

void gen_blk_strided(Gen *g) {
  Val t = some_vec(g, 2, 1);
  if (t.R < 2 && t.C < 2) {
    gen_store(g, t);
    return;
  }
  int ax = t.R < 2 ? 1 : t.C < 2 ? 0 : gen_ch(g, 0.6) ? 0 : 1;
  if (gen_ch(g, 0.3) && t.C > 1 && t.R > 1 && gen_row_red_ok(g, &t)) {
    t = gen_named(g, t);
    gen_subslice_stores(g, gen_v_red(g, PICK(g, gen_rr), t), 0);   /* row statistics in row blocks */
    return;
  }
  gen_subslice_stores(g, t, ax);
}

void gen_blk_assemble(Gen *g) {
  gen_feat(g, FZ_FEAT_assemble);
  int dt = gen_pick_dt(g, true, false), R = gen_dim(g, false, D_NOUNIT), C = gen_dim(g, true, D_NOUNIT);
  gen_fit(g, dt, &R, &C, 4, 0);
  double z = gen_isint(dt) ? 0 : gen_ch(g, 0.5) ? 0 : -1;
  if (R > 1 && C > 1 && gen_ch(g, g->brk[0] && g->brk[1] ? 0.3 : g->p->p_assemble_slice / 2)) {
    /* a smaller piece at an offset: neither split mode can express it */
    gen_refuse(g, FZ_V_SPLIT, "assemble-offset");
    int h = gen_rng(g, 1, R), w = gen_rng(g, 1, C), r = gen_rng(g, 0, R - h), c = gen_rng(g, 0, C - w);
    Val src = gen_vexpr(g, dt, h, w, 1);
    Val dst = gen_v_full(g, R, C, z, dt);
    FzExpr *e = gen_call(g, FZ_OP_assemble, 3);
    gen_a_expr(g, &e->a[0], dst.e);
    gen_a_expr(g, &e->a[1], src.e);
    gen_a_idx(&e->a[2], gen_aff(r), gen_aff(c));
    Val x = gen_vres(g, e, dt, R, C);
    gen_charge(g, &x);
    if (gen_ch(g, g->p->p_assemble_slice) && (r || c)) {
      /* a window of it at an offset: on a2a3 the lane-1 replay makes both, and both must stay empty */
      x = gen_bind(g, x, "w");
      int h2 = gen_rng(g, 1, R - r), w2 = gen_rng(g, 1, C - c), r2 = gen_rng(g, r ? 1 : 0, R - h2), c2 = gen_rng(g, c ? 1 : 0, C - w2);
      FzExpr *se = gen_call(g, FZ_OP_slice, 3);
      gen_a_expr(g, &se->a[0], x.e);
      gen_a_idx(&se->a[1], gen_aff(r2), gen_aff(c2));
      gen_a_idx(&se->a[2], gen_aff(h2), gen_aff(w2));
      Val y = gen_vres(g, se, dt, h2, w2);
      y.vr[0] = y.vr[1] = gen_clampi(x.vr[0] - r2, 0, h2), y.vc[0] = y.vc[1] = gen_clampi(x.vc[0] - c2, 0, w2);
      gen_feat(g, FZ_FEAT_assemble_slice);
      gen_store(g, gen_vchain(g, y, 1));
    }
    gen_store(g, x);
    return;
  }
  /* a partial tile padded to full over a constant: both modes split it */
  int vc = C > 1 ? gen_rng(g, 1, C) : 1, vr = R > 1 ? gen_rng(g, 1, R) : 1;
  Val x = gen_v_load(g, dt, R, C, FZ_VEC, vr, vc, 0);
  if (gen_ch(g, 0.5)) x = gen_vchain(g, x, 1);
  Val dst = gen_v_full(g, R, C, z, dt);
  FzExpr *e = gen_call(g, FZ_OP_assemble, 3);
  gen_a_expr(g, &e->a[0], dst.e);
  gen_a_expr(g, &e->a[1], x.e);
  gen_a_idx(&e->a[2], gen_aff(0), gen_aff(0));
  Val w = gen_vres(g, e, dt, R, C);
  gen_charge(g, &w);
  w = gen_bind(g, w, "w");
  gen_store(g, gen_ch(g, 0.5) ? gen_vchain(g, w, 1) : w);
}
