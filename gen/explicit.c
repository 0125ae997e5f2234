/* explicit.c — explicit split_aiv kernels. Consumes the generator's state;
 * produces a kernel written with split_aiv: a cube tile sharded per lane
 * (aiv_shard, stride= where the lanes' counts fit no split code), vector work
 * per lane under control flow the lane decides, halves joined back for the
 * cube (aic_gather), lane values stored at lane*H + c, task-parallel loads,
 * perhaps a second region on the other axis. */
#define GEN_INTERNALS
#include "gen.h"

/* The lane stride of an explicit shard of E with V valid (DESIGN 14.1-2):
 * ceil(E/2) when the lanes' counts fit a split code (equal, lane 0 one more,
 * or lane 1 empty), else ceil(V/2) written as stride=. */
static int shard_stride(const Gen *g, int E, int V) {
  if (g->k->target == 1) return gen_a5_half(E);    /* a5: half the box (split.md 1.1a) */
  int S = (E + 1) / 2, v0 = gen_clampi(V, 0, S), v1 = gen_clampi(V - S, 0, S);
  return !v1 || v0 == v1 || v0 == v1 + 1 ? S : (V + 1) / 2;
}

/* A lane stride for V valid whose lanes' counts fit no split code (lane 0
 * two or more ahead of a non-empty lane 1: E-SPLIT-PLACE, and a5's
 * E-SPLIT-BOX), or 0 when V is below 4 and none exists. */
static int bad_stride(Gen *g, int V) { return V < 4 ? 0 : gen_rng(g, (V + 3) / 2, V - 1); }

/* aiv_shard(t, ax) at lane stride S (0: the stride that places the lanes). */
static Val v_shard(Gen *g, Val t, int ax, int S) {
  int E = ax ? t.C : t.R, V = ax ? t.vc[0] : t.vr[0];
  if (!S) S = shard_stride(g, E, V);
  bool odd = E % 2, stride = S != (E + 1) / 2 || S != gen_a5_half(E);   /* the same on either target's parse */
  /* the other target's variant: a5 places only its box's halves (E-SPLIT-BOX), a2a3
   * only counts that fit a code (E-SPLIT-PLACE) */
  if (S != gen_a5_half(E) || (ax && (E % 32 || V != E))) gen_refuse(g, FZ_V_A5, "shard-a5-box");
  int v0 = gen_clampi(V, 0, S), v1 = gen_clampi(V - S, 0, S);
  if (g->k->target == 1 && (S > E || (v1 && v0 != v1 && v0 != v1 + 1))) gen_refuse(g, FZ_V_A2A3, "shard-a2a3-code");
  FzExpr *e = gen_call(g, FZ_OP_aiv_shard, 2 + stride);
  gen_a_expr(g, &e->a[0], t.e);
  gen_a_kind(&e->a[1], FZ_A_MODE, ax ? FZ_LR : FZ_UD);   /* the axis: ptoc derives the code */
  if (stride) {
    gen_a_int(&e->a[2], FZ_KW_STRIDE, S);
    gen_feat(g, FZ_FEAT_explicit_stride);
  }
  Val r = gen_vres(g, e, t.dt, ax ? t.R : S, ax ? S : t.C);
  for (int l = 0; l < 2; l++) {
    int v = gen_clampi(V - l * S, 0, S);
    if (ax) r.vc[l] = v, r.vr[l] = t.vr[0];
    else r.vr[l] = v, r.vc[l] = t.vc[0];
  }
  r.join_ok = !odd && !stride;
  gen_charge(g, &r);
  gen_note_c2v(g, &t);
  if (odd) gen_feat(g, FZ_FEAT_explicit_odd);
  return r;
}

/* aiv_shard(s, none): the whole cube tile on the vector side. */
static Val v_shard_none(Gen *g, Val s) {
  FzExpr *e = gen_call(g, FZ_OP_aiv_shard, 2);
  gen_a_expr(g, &e->a[0], s.e);
  gen_a_kind(&e->a[1], FZ_A_MODE, FZ_MNONE);
  Val r = gen_vres(g, e, s.dt, s.R, s.C);
  for (int l = 0; l < 2; l++) r.vr[l] = s.vr[0], r.vc[l] = s.vc[0];
  return r;
}

static Val v_join(Gen *g, Val h, int ax) {
  int S = ax ? h.C : h.R;
  const int *v = ax ? h.vc : h.vr, *o = ax ? h.vr : h.vc;
  int along = v[0] == S ? S + v[1] : v[0], other = gen_imin(o[0], o[1]);
  bool kv = v[0] != v[1] || o[0] != o[1];       /* lanes that differ: the joined valid shape is stated */
  FzExpr *e = gen_call(g, FZ_OP_aic_gather, 2 + kv);
  gen_a_expr(g, &e->a[0], h.e);
  gen_a_kind(&e->a[1], FZ_A_MODE, ax ? FZ_LR : FZ_UD);
  if (kv) {
    gen_a_idx(&e->a[2], gen_aff(ax ? other : along), gen_aff(ax ? along : other));
    e->a[2].kw = FZ_KW_VALID;
  }
  Val r = gen_mkval(h.dt, FZ_MAT, ax ? h.R : 2 * S, ax ? 2 * S : h.C, 0, 0);
  for (int l = 0; l < 2; l++) {
    if (ax) r.vc[l] = along, r.vr[l] = other;
    else r.vr[l] = along, r.vc[l] = other;
  }
  r.e = e;
  gen_note_v2c(g, &r);
  gen_feat(g, FZ_FEAT_explicit_gather);
  return r;
}

/* x = op(x, c): an element-wise step that keeps x's shape and valid region
 * and stays finite when repeated. */
static void lane_step(Gen *g, Val *x) {
  static const int opf[] = {FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins};
  static const double cs[] = {0.5, 1, 2, 0.25, -1};
  int op = opf[gen_below(g, 4)];
  *x = gen_reassign(g, *x, gen_v_bins(g, op, *x, gen_isint(x->dt) ? (double)gen_rng(g, -3, 3) : cs[gen_below(g, 5)]));
}

/* Control flow the lanes decide (DESIGN 14.11): `if lane REL c { x = .. }
 * [else { x = .. }]`, or `n = imax(0, 0); while n < c0 + c1*lane max M { x =
 * ..; n = imin(n + 1, M); }`. Only per-lane vector work runs under it. */
static void lane_cond(Gen *g, Val *x) {
  FzStmt *st = gen_al(g, sizeof *st);
  FzAff lane = gen_aff_plus(gen_aff(0), g->sb >= 0 && gen_ch(g, 0.5) ? g->sb : g->lane, 1);
  FzBody *out = g->out;
  if (gen_ch(g, g->p->p_lane_while)) {
    int n = gen_newname(g, "n");
    gen_scalar_stmt(g, n, FZ_OP_imax, gen_aff(0), gen_aff(0));
    st->k = FZ_S_WHILE;
    st->ca = gen_aff_plus(gen_aff(0), n, 1);
    st->rel = (uint8_t)gen_below(g, 2);             /* < or <= */
    int k = gen_rng(g, -1, 3);
    st->cb = gen_aff_plus(gen_aff(gen_rng(g, 0, 3)), lane.v[0], k);
    st->hi = gen_rng(g, 1, 5);
    gen_open_block(g, st);
    lane_step(g, x);
    if (gen_ch(g, 0.3)) lane_step(g, x);
    gen_scalar_stmt(g, n, FZ_OP_imin, gen_aff_plus(gen_aff(1), n, 1), gen_aff(st->hi));
    gen_close_block(g, out);
    gen_feat(g, FZ_FEAT_lane_while);
    return;
  }
  st->k = FZ_S_IF;
  st->ca = lane;
  st->rel = (uint8_t)gen_below(g, 6);
  st->cb = gen_aff(gen_below(g, 2));
  gen_open_block(g, st);
  lane_step(g, x);
  gen_close_block(g, out);
  if (gen_ch(g, 0.6)) {
    g->out = &st->other;
    g->depth++;
    lane_step(g, x);
    gen_close_block(g, out);
  }
  gen_feat(g, FZ_FEAT_lane_if);
}

/* Valid rows of an up_down shard source that the box stride cannot place
 * (lanes of ceil(E/2) holding counts no code fits: 13 of 16 is 8/5), so
 * the shard takes stride=ceil(V/2) (DESIGN 14.2); -1 when not chosen. */
static int explicit_rebalance(Gen *g, int ax, int E) {
  int S = (E + 1) / 2, hi = E % 2 ? E - 1 : E - 2;
  if (ax || hi < S + 1 || !gen_ch(g, g->p->p_explicit_rebalance)) return -1;
  return gen_rng(g, S + 1, hi);
}

void gen_explicit(Gen *g) {
  const FzPolicy *p = g->p;
  gen_feat(g, FZ_FEAT_explicit_split);
  g->brk[0] = g->brk[1] = true;                 /* no auto-split variant applies */
  int ax = gen_ch(g, p->p_explicit_left_right) ? 1 : 0;
  if (ax) gen_feat(g, FZ_FEAT_explicit_left_right);
  bool odd = gen_ch(g, p->p_explicit_odd);
  int dt = gen_pick_dt(g, false, true);
  static const int odds[] = {15, 31, 7, 33, 17, 63, 9};
  int E = odd ? gen_pick_from(g, odds, 7, ax ? p->max_cols : p->max_rows) : gen_dim(g, ax, D_EVEN | D_NOUNIT);
  if (E < 2) E = 2;
  if (odd != (E % 2 == 1)) odd = E % 2 == 1;
  int O = gen_dim(g, !ax, D_NOUNIT), K = gen_dim(g, true, D_NOUNIT);
  int M = ax ? O : E, N = ax ? E : O;
  gen_fit_mm(g, dt, &M, &K, &N, 4, 0);
  if (ax) O = M, E = N;
  else E = M, O = N;
  if (E < 2) E = 2, ax ? (N = 2) : (M = 2);
  odd = E % 2 == 1;
  bool tb = gen_ch(g, p->p_trans_b);
  int rvr = explicit_rebalance(g, ax, M), rvc = rvr < 0 ? -1 : K;
  Val a = gen_bind(g, gen_v_load(g, dt, M, K, FZ_MAT, rvr, rvc, LD_PARTIAL), "a");
  FzBody *outer = gen_ch(g, p->p_explicit_loop) ? gen_open_rand_loop(g, true) : NULL;
  /* all columns valid: a transfer pins the extent it does not split (DESIGN 14.6) */
  Val b = gen_bind(g, gen_rhs_load(g, dt, K, N, tb, a.vc[0], true), "b");
  Val s = gen_bind(g, gen_v_mm(g, NULL, a, b, tb), "s");
  /* the cube tile whole on the vector side outside the regions: both lanes
   * compute it, lane 0 stores it (lane 1's copy of a whole entry is zeros) */
  Val whole = {0};
  if (gen_ch(g, p->p_explicit_outer_move)) {
    int nt0 = g->nt;
    if (gen_ch(g, p->p_explicit_outer_none)) {   /* the same move spelled aiv_shard(s, none) (language.md 10.2) */
      whole = gen_bind(g, v_shard_none(g, s), "w");
      gen_note_c2v(g, &s);
      gen_charge(g, &whole);
      gen_feat(g, FZ_FEAT_explicit_outer_none);
    } else {
      whole = gen_bind(g, gen_v_move(g, s, FZ_VEC), "w");
    }
    gen_store(g, gen_vchain(g, whole, gen_rng(g, 0, 1)));
    for (int i = nt0; i < g->nt; i++) g->t[i].alive = false;   /* no region may read them */
  }
  /* an outer vector tile of the lane shape, read by both lanes */
  int H = shard_stride(g, E, ax ? s.vc[0] : s.vr[0]);
  int hr = ax ? M : H, hc = ax ? H : N;
  if (gen_ch(g, 0.3)) gen_bind(g, gen_v_load(g, FZ_F32, hr, hc, FZ_VEC, -1, -1, 0), "bias");
  /* the region */
  FzStmt *rs = gen_al(g, sizeof *rs);
  rs->k = FZ_S_SPLIT;
  rs->iv = (int16_t)gen_newname(g, "lane");
  FzBody *rout = g->out;
  gen_open_block(g, rs);
  g->region = true;
  g->lane = rs->iv;
  g->rax = ax;
  g->sb = -1;
  if (gen_ch(g, p->p_lane_scalar)) {
    int sb = gen_newname(g, "sb");
    FzStmt *st = gen_al(g, sizeof *st);
    st->k = FZ_S_ASSIGN;
    st->dst = (int16_t)sb;
    st->e = gen_call(g, FZ_OP_subblock_idx, 0);
    gen_push(g, g->out, st);
    g->k->nstmts++;
    g->sb = sb;
    gen_feat(g, FZ_FEAT_lane_scalar);
  }
  /* one negative construct check_split must refuse, in a kernel otherwise valid */
  enum { NEG_NONE, NEG_MIXED, NEG_STORE, NEG_STRIDE } neg = gen_ch(g, p->p_explicit_neg) ? 1 + gen_below(g, 3) : NEG_NONE;
  int bad = neg == NEG_STRIDE ? bad_stride(g, ax ? s.vc[0] : s.vr[0]) : 0;
  if (neg == NEG_STRIDE && !bad) neg = NEG_MIXED;
  if (neg == NEG_STRIDE) {
    gen_must_refuse(g, FZ_V_A2A3, "E-SPLIT-PLACE:check_split");
    if (bad != gen_a5_half(ax ? s.C : s.R)) gen_must_refuse(g, FZ_V_A5, "E-SPLIT-BOX:check_split");   /* a5 places its box halves */
    gen_feat(g, FZ_FEAT_explicit_neg);
  }
  Val sh = gen_bind(g, v_shard(g, s, ax, bad), "sh");
  Val x = gen_vchain(g, sh, gen_rng(g, 1, 3));
  if (gen_ch(g, p->p_lane_load) && x.dt == FZ_F32) {
    Val ld = gen_v_load(g, FZ_F32, x.R, x.C, FZ_VEC, -1, -1, 0);
    x = gen_v_bin(g, gen_bi_op(g, FZ_F32), x, ld);
  }
  x = gen_bind(g, x, "x");
  if (gen_ch(g, p->p_lane_cond)) lane_cond(g, &x);
  /* statistics along the other axis: row stats for up_down, column stats for left_right */
  Val st = {0};
  bool stats = !gen_isint(x.dt) && gen_ch(g, 0.7);
  if (stats) st = gen_bind(g, gen_v_red(g, ax ? PICK(g, gen_cr) : PICK(g, gen_rr), x), "st");
  /* lanes re-join positionally: lane 0 full on the axis, or lane 1 empty (DESIGN 14.6) */
  const int *xv = ax ? x.vc : x.vr;
  bool rect = xv[0] == (ax ? x.C : x.R) || xv[1] == 0;
  if (!odd && x.join_ok && rect && gen_ch(g, p->p_explicit_gather)) {
    Val ph = x;
    if (stats && gen_red_keeps(&x, !ax) && gen_ch(g, 0.7)) ph = gen_v_un(g, FZ_OP_exp, gen_v_exp2(g, ax ? FZ_OP_col_expand_sub : FZ_OP_row_expand_sub, x, st, !ax));
    if (dt != FZ_F32) ph = gen_v_cast(g, ph, dt);   /* f16 or bf16: the matmul's operands agree */
    ph = gen_bind(g, ph, "ph");
    Val pj = gen_bind(g, v_join(g, ph, ax), "p");
    /* p is [E, O] (up_down) or [O, E] (left_right); times v [K2, D2] */
    int K2 = pj.C, D2 = gen_dim(g, true, D_NOUNIT);
    int Mm = pj.R;
    gen_fit_mm(g, dt, &Mm, &K2, &D2, 3, 0);
    Val v = gen_bind(g, gen_v_load(g, dt, pj.C, D2, FZ_MAT, -1, -1, 0), "v");
    Val o = gen_bind(g, gen_v_mm(g, NULL, pj, v, false), "o");
    if (o.C >= 2 || !ax) {
      Val oh = gen_bind(g, v_shard(g, o, ax, 0), "oh");
      Val on = oh;
      bool match = !ax && stats && st.R == oh.R && st.vr[0] == oh.vr[0] && st.vr[1] == oh.vr[1];
      if (match && gen_ch(g, 0.7)) on = gen_v_exp2(g, FZ_OP_row_expand_div, oh, st, true);
      else on = gen_vchain(g, oh, gen_rng(g, 0, 1));
      gen_store(g, on);
    }
    if (gen_ch(g, p->p_cube_store)) gen_store(g, o);
  }
  gen_store(g, x);
  if (neg == NEG_STORE) {
    gen_store_skew(g, x);
    gen_must_refuse(g, FZ_V_A2A3 | FZ_V_A5, "E-SPLIT-STORE:check_split");
    gen_feat(g, FZ_FEAT_explicit_neg);
  }
  if (neg == NEG_MIXED) {                       /* the other axis in the same region, under a loop */
    FzBody *lo = gen_open_loop(g, false, 0, 1 + gen_below(g, 2), 1);
    g->rax = !ax;
    gen_store(g, gen_bind(g, v_shard(g, s, !ax, 0), "sm"));
    g->rax = ax;
    gen_close_loop(g, lo);
    gen_must_refuse(g, FZ_V_A2A3 | FZ_V_A5, "E-SPLIT-MIXED:check_split");
    gen_feat(g, FZ_FEAT_explicit_neg);
  }
  if (stats) gen_store(g, st);
  if (gen_ch(g, p->p_task_parallel)) {
    /* task-parallel work: each lane loads a whole tile from GM itself (a cube
     * tile cannot reach lane 1 whole: a code-0 entry is zero-filled there) */
    Val w = gen_v_load(g, FZ_F32, s.R, s.C, FZ_VEC, -1, -1, 0);
    Val y = gen_bind(g, gen_v_un(g, gen_un_op(g, FZ_F32), w), "y");
    gen_feat(g, FZ_FEAT_task_parallel);
    gen_store_(g, y, gen_ch(g, p->p_lane0_store));
  }
  if (gen_ch(g, 0.2)) gen_store(g, s);                  /* a once statement inside the region */
  if (gen_ch(g, p->p_explicit_whole)) {
    /* a whole cube tile read by both lanes: E-SHARD-WHOLE, since lane 1's copy
     * is zeros; a checker that lets it through shows them in lane 1's band */
    Val wv = whole.e ? whole : v_shard_none(g, s);
    wv.lane = true;
    FzBody *lo = gen_ch(g, 0.5) ? gen_open_loop(g, false, 0, 1 + gen_below(g, 2), 1) : NULL;   /* read under a loop of the region */
    gen_store(g, gen_v_un(g, FZ_OP_relu, wv));
    if (lo) gen_close_loop(g, lo);
    gen_refuse(g, FZ_V_A2A3 | FZ_V_A5, "shard-whole");
    gen_feat(g, FZ_FEAT_explicit_whole);
  }
  g->region = false;
  g->sb = -1;
  gen_close_block(g, rout);
  if (gen_ch(g, p->p_explicit_regions)) {
    /* a second region on the other axis (E-SPLIT-MIXED holds per region) */
    FzStmt *r2 = gen_al(g, sizeof *r2);
    r2->k = FZ_S_SPLIT;
    r2->iv = (int16_t)gen_newname(g, "lane");
    gen_open_block(g, r2);
    g->region = true;
    g->lane = r2->iv;
    g->rax = !ax;
    Val h2 = gen_bind(g, v_shard(g, s, !ax, 0), "sh");
    gen_store(g, gen_vchain(g, h2, gen_rng(g, 0, 2)));
    g->region = false;
    gen_close_block(g, rout);
    gen_feat(g, FZ_FEAT_explicit_regions);
  }
  if (outer) gen_close_loop(g, outer);
}
