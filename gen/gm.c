/* gm.c — GM access. Consumes the generator's state and the shape of what is
 * loaded or stored; produces loads from input tensors of their own (sized
 * from the window read, offset by the lane inside split_aiv and by a striding
 * loop's variable; partial valid regions, computed scalar extents) and stores
 * into output tensors of their own, so no element is written twice by
 * different writers; and the paged-gather block (a page table, an index table,
 * the gather into a vector or a mat tile, and work on its result). */
#define GEN_INTERNALS
#include "gen.h"

#include <string.h>

/* ---- GM access ------------------------------------------------------------------------------ */

/* The lane offset term: lane*ext through the lane variable or a subblock_idx() scalar. */
static FzAff lane_term(Gen *g, FzAff o, int ext) {
  if (g->sb >= 0 && gen_ch(g, 0.5)) return gen_aff_plus(o, g->sb, ext);
  return gen_aff_plus(o, g->lane, ext);
}

/* A valid extent V (of R) as a computed scalar `n = imin(..)` or
 * `n = clamp(..)` stated before the load that uses it (language.md 6). Its
 * value is exactly V in every iteration (the generator sizes the GM windows
 * from it); inside a loop it reads the loop variable, so the checker bounds a
 * range and the valid shape is known only at run time. */
static FzAff scalar_extent(Gen *g, int V, int R) {
  int n = gen_newname(g, "n");
  const Loop *l = g->nloop ? &g->loop[g->nloop - 1] : NULL;
  FzAff x = l ? gen_aff_plus(gen_aff(V - l->lo), l->iv, 1) : gen_aff(V + gen_rng(g, 0, 3));   /* >= V */
  if (gen_ch(g, 0.5)) {
    gen_scalar_stmt(g, n, FZ_OP_imin, x, gen_aff(V));
  } else {                                      /* clamp(x, lo, V) with lo <= V */
    FzStmt *st = gen_al(g, sizeof *st);
    st->k = FZ_S_ASSIGN;
    st->dst = (int16_t)n;
    st->e = gen_call(g, FZ_OP_clamp, 3);
    for (int i = 0; i < 3; i++) st->e->a[i].k = FZ_A_AFF;
    st->e->a[0].ix[0] = x;
    st->e->a[1].ix[0] = gen_aff(gen_rng(g, 0, V));
    st->e->a[2].ix[0] = gen_aff(V);
    gen_push(g, g->out, st);
    g->k->nstmts++;
  }
  (void)R;
  gen_feat(g, FZ_FEAT_scalar_extent);
  return gen_aff_plus(gen_aff(0), n, 1);
}

/* load(T, [r, c], [R, C][, valid=][, space=mat]) from an input tensor of its
 * own. vr/vc < 0: full, or partial with p_partial_valid when LD_PARTIAL. A
 * vector load inside split_aiv loads this lane's block (lane*ext on the axis). */
Val gen_v_load(Gen *g, int dt, int R, int C, int sp, int vr, int vc, unsigned fl) {
  const FzPolicy *p = g->p;
  if (vr < 0 || vc < 0) {
    vr = R, vc = C;
    if ((fl & LD_PARTIAL) && (R > 1 || C > 1) && gen_ch(g, p->p_partial_valid)) {
      int w = gen_below(g, 3);
      if (R > 1 && w != 1) vr = gen_rng(g, 1, R - 1);
      if (C > 1 && (w != 0 || R == 1)) vc = gen_rng(g, 1, C - 1);
      if (gen_ch(g, p->p_zero_valid)) {
        if (gen_ch(g, 0.5)) vr = 0;
        else vc = 0;
        gen_feat(g, FZ_FEAT_zero_valid);
      }
    }
  }
  bool partial = vr < R || vc < C;
  if (partial) gen_feat(g, FZ_FEAT_partial_valid);
  FzAff svr = gen_aff(vr);
  /* rows only: a value whose valid shape is partial anyway (reshape wants a static full one);
   * not in explicit kernels: an aiv_shard's split code needs a static count */
  if (vr > 0 && vr < R && !g->k->feat[FZ_FEAT_explicit_split] && gen_ch(g, p->p_scalar_extent))
    svr = scalar_extent(g, vr, R);
  int r0 = gen_ch(g, p->p_offset) ? gen_rng(g, 1, 8) : 0, c0 = gen_ch(g, p->p_offset) ? gen_rng(g, 1, 8) : 0;
  if (r0 || c0) gen_feat(g, FZ_FEAT_offset_window);
  FzAff ro = gen_aff(r0), co = gen_aff(c0);
  int span[2] = {vr, vc}, phys[2] = {R, C};
  bool lane = g->region && sp == FZ_VEC;
  if (lane) {
    int ax = g->rax, ext = ax ? C : R;
    if (ax) co = lane_term(g, co, ext);
    else ro = lane_term(g, ro, ext);
    span[ax] += ext;
    phys[ax] += ext;
    gen_feat(g, FZ_FEAT_lane_load);
  }
  if (gen_stride_loop(g)) {
    int ax = lane ? g->rax : 0, st = lane ? 2 * (ax ? C : R) : (ax ? C : R), s2 = 0;
    if (ax) co = gen_advance(g, co, st, &s2);
    else ro = gen_advance(g, ro, st, &s2);
    span[ax] += s2;
    phys[ax] += s2;
  }
  int rows = r0 + span[0], cols = c0 + span[1];
  if (!partial || !gen_ch(g, p->p_window_past_tensor)) {
    rows = gen_imax(rows, r0 + phys[0]), cols = gen_imax(cols, c0 + phys[1]);
    if (gen_ch(g, p->p_store_margin)) rows += gen_rng(g, 1, 3);
  } else if (rows < r0 + phys[0] || cols < c0 + phys[1]) {
    gen_feat(g, FZ_FEAT_window_past_tensor);
  }
  int t = gen_tensor(g, 'A', dt, FZ_IN, rows, cols);
  bool kv = partial, ks = sp != FZ_VEC;
  FzExpr *e = gen_call(g, FZ_OP_load, 3 + kv + ks);
  gen_a_tensor(&e->a[0], t);
  gen_a_idx(&e->a[1], ro, co);
  gen_a_idx(&e->a[2], gen_aff(R), gen_aff(C));
  int i = 3;
  if (kv) {
    gen_a_idx(&e->a[i], svr, gen_aff(vc));
    e->a[i++].kw = FZ_KW_VALID;
  }
  if (ks) gen_a_kind(&e->a[i], FZ_A_SPACE, sp), e->a[i].kw = FZ_KW_SPACE;
  Val r = gen_mkval(dt, sp, R, C, vr, vc);
  r.e = e;
  r.lane = lane;
  r.join_ok = true;
  gen_charge(g, &r);
  if (dt == FZ_F16) gen_feat(g, FZ_FEAT_f16);
  if (dt == FZ_I32) gen_feat(g, FZ_FEAT_i32);
  if (dt == FZ_BF16) gen_feat(g, FZ_FEAT_bf16);
  if (dt == FZ_I8 || dt == FZ_I16) gen_feat(g, FZ_FEAT_i8_i16);
  return r;
}

/* store(T, [r, c], v) into an output tensor of its own, sized to what is
 * written: a lane value at lane*ext on the region's axis, a striding loop's
 * iterations side by side. */
void gen_store_(Gen *g, Val v, bool lane0) {
  const FzPolicy *p = g->p;
  int wr = gen_imax(v.vr[0], v.vr[1]), wc = gen_imax(v.vc[0], v.vc[1]);
  int r0 = gen_ch(g, p->p_offset) ? gen_rng(g, 1, 6) : 0, c0 = gen_ch(g, p->p_offset) ? gen_rng(g, 1, 6) : 0;
  FzAff ro = gen_aff(r0), co = gen_aff(c0);
  int span[2] = {wr, wc};
  if (v.lane && !lane0) {
    int ax = g->rax, ext = ax ? v.C : v.R;
    if (ax) co = lane_term(g, co, ext);
    else ro = lane_term(g, ro, ext);
    span[ax] = ext + (ax ? wc : wr);
  }
  if (gen_stride_loop(g)) {
    bool ln = v.lane && !lane0;
    int ax = ln ? g->rax : 0, st = ln ? 2 * (ax ? v.C : v.R) : (ax ? v.C : v.R), s2 = 0;
    if (ax) co = gen_advance(g, co, st, &s2);
    else ro = gen_advance(g, ro, st, &s2);
    span[ax] += s2;
  }
  int rows = r0 + span[0], cols = c0 + span[1];
  if (gen_ch(g, p->p_store_margin)) {
    if (gen_ch(g, 0.5)) rows += gen_rng(g, 1, 3);
    else cols += gen_rng(g, 1, 3);
  }
  int dir = FZ_OUT;
  if (gen_ch(g, p->p_inout)) dir = FZ_INOUT, gen_feat(g, FZ_FEAT_inout);
  int t = gen_tensor(g, 'O', v.dt, dir, rows, cols);
  FzExpr *e = gen_call(g, FZ_OP_store, 3 + lane0);
  gen_a_tensor(&e->a[0], t);
  gen_a_idx(&e->a[1], ro, co);
  gen_a_expr(g, &e->a[2], v.e);
  if (lane0) gen_a_int(&e->a[3], FZ_KW_LANE, 0), gen_feat(g, FZ_FEAT_lane0_store);
  FzStmt *s = gen_al(g, sizeof *s);
  s->k = FZ_S_STORE;
  s->e = e;
  gen_push(g, g->out, s);
  g->k->nstmts++;
  if (v.sp != FZ_VEC) gen_feat(g, FZ_FEAT_cube_store);
  if (v.sp == FZ_MAT) {
    gen_feat(g, FZ_FEAT_mat_store);
    gen_note_reserve(g, &v);
  }
}
void gen_store(Gen *g, Val v) { gen_store_(g, v, false); }

/* A store whose offsets the caller writes (sub-slice stores). */
void gen_store_at(Gen *g, int t, FzAff ro, FzAff co, FzExpr *x) {
  FzExpr *e = gen_call(g, FZ_OP_store, 3);
  gen_a_tensor(&e->a[0], t);
  gen_a_idx(&e->a[1], ro, co);
  gen_a_expr(g, &e->a[2], x);
  FzStmt *s = gen_al(g, sizeof *s);
  s->k = FZ_S_STORE;
  s->e = e;
  gen_push(g, g->out, s);
  g->k->nstmts++;
}

/* A lane value stored with the lane in both offsets: its own band on the
 * region's axis and a band of the other axis as well, windows apart, so the
 * golden run is race free; check_split refuses it (E-SPLIT-STORE). */
void gen_store_skew(Gen *g, Val v) {
  int t = gen_tensor(g, 'O', v.dt, FZ_OUT, 2 * v.R, 2 * v.C);
  gen_store_at(g, t, lane_term(g, gen_aff(0), v.R), lane_term(g, gen_aff(0), v.C), v.e);
}

/* A right operand [K,N] ([N,K] with trans_b) whose valid extent along k
 * covers kv (the left operand's valid columns). */
Val gen_rhs_load(Gen *g, int dt, int K, int N, bool tb, int kv, bool full_n) {
  int vk = K, vn = N;
  if (gen_ch(g, g->p->p_partial_valid)) {
    if (K > kv && gen_ch(g, 0.5)) vk = gen_rng(g, kv, K - 1);
    else if (N > 1 && !full_n && g->brk[1]) vn = gen_rng(g, 1, N - 1);   /* left_right refuses narrowed columns */
  }
  return tb ? gen_v_load(g, dt, N, K, FZ_MAT, vn, vk, 0) : gen_v_load(g, dt, K, N, FZ_MAT, vk, vn, 0);
}

/* ---- paged gather ---------------------------------------------------------------------------- */

/* Logical pages -> physical pages: permuted, shared, spare pages. */
static int page_table(Gen *g, int P, int32_t *tbl, bool *shared) {
  int Pp = P + (gen_ch(g, 0.3) ? gen_rng(g, 1, 2) : 0);
  int32_t ids[40];
  for (int i = 0; i < Pp; i++) ids[i] = i;
  if (gen_ch(g, g->p->p_gather_permuted)) {
    for (int i = Pp - 1; i > 0; i--) {
      int j = gen_below(g, i + 1);
      int32_t t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    gen_feat(g, FZ_FEAT_gather_permuted);
  }
  memcpy(tbl, ids, (size_t)P * sizeof *tbl);
  *shared = false;
  if (P >= 2 && gen_ch(g, g->p->p_gather_shared_page)) {
    int a = gen_below(g, P), b = gen_below(g, P - 1);
    if (b >= a) b++;
    tbl[a] = tbl[b];
    *shared = true;
    gen_feat(g, FZ_FEAT_gather_shared_page);
  }
  return Pp;
}

/* The gather source: block size *B, P logical pages (the last one perhaps
 * partly filled: *L tokens), the page table, and the source's rows (the last
 * physical page perhaps partly present). */
static int gather_source(Gen *g, int pmax, int *B, int *P, int32_t *tbl, int *L) {
  const FzPolicy *p = g->p;
  *B = gen_rng(g, p->gather_block_min, p->gather_block_max), *P = gen_rng(g, 1, gen_imin(p->gather_pages_max, pmax));
  bool plast = *B > 1 && gen_ch(g, p->p_gather_partial_last_page);
  *L = plast ? (*P - 1) * *B + gen_rng(g, 1, *B - 1) : *P * *B;
  bool shared;
  int Pp = page_table(g, *P, tbl, &shared);
  int rows = Pp * *B;
  bool pphys = *B > 1 && gen_ch(g, p->p_gather_partial_last_page);
  if (pphys) rows = (Pp - 1) * *B + gen_rng(g, 1, *B - 1);
  if (plast || pphys) gen_feat(g, FZ_FEAT_gather_partial_last_page);
  return rows;
}

/* paged_gather(src, it, pt, block_size=B, size=S, max_indices=N, ...) with
 * nargs arguments, the first six filled. */
static FzExpr *gather_call(Gen *g, int nargs, int src, int it, int pt, int B, int S, int N) {
  FzExpr *e = gen_call(g, FZ_OP_paged_gather, nargs);
  gen_a_tensor(&e->a[0], src);
  gen_a_tensor(&e->a[1], it);
  gen_a_tensor(&e->a[2], pt);
  gen_a_int(&e->a[3], FZ_KW_BLOCK_SIZE, B);
  gen_a_int(&e->a[4], FZ_KW_SIZE, S);
  gen_a_int(&e->a[5], FZ_KW_MAX_INDICES, N);
  return e;
}

/* n indices among the L tokens, each translating to a row of the source. */
static void gather_indices(Gen *g, int B, int L, const int32_t *tbl, int rows, int32_t *idx, int n) {
  for (int i = 0; i < n; i++) {
    int x = 0;
    for (int tries = 0; tries < 8; tries++) {
      int c = gen_below(g, L);
      if (tbl[c / B] * B + c % B < rows) {
        x = c;
        break;
      }
    }
    idx[i] = x;
  }
}

static void blk_gather_vec(Gen *g, int dt) {
  const FzPolicy *p = g->p;
  int B, P, L;
  int32_t tbl[32];
  int rows = gather_source(g, 32, &B, &P, tbl, &L);
  static const int ns[] = {8, 16, 6, 32, 12, 4, 24, 2, 64};
  int N = gen_pick_from(g, ns, 9, p->max_rows);
  int n = N;
  if (N > 1 && gen_ch(g, p->p_gather_fewer_indices)) n = gen_rng(g, 1, N - 1), gen_feat(g, FZ_FEAT_gather_fewer_indices);
  static const int ss[] = {32, 16, 8, 64, 24, 48, 128};
  int S = gen_pick_from(g, ss, 7, p->max_cols);
  if (g->brk[1] && gen_ch(g, p->p_odd_extent) && S > 1) S--;
  gen_fit(g, dt, &N, &S, 3, D_EVEN);
  n = gen_imin(n, N);
  /* window=[f, cnt] over a table of nidx indices, perhaps longer than N and
   * perhaps ending before the window does: v = min(clamp(cnt, 0, nidx - f), N) */
  bool win = gen_ch(g, p->p_gather_window);
  int nidx = n, wf = 0, wn = 0;
  if (win) gen_refuse(g, FZ_V_SPLIT, "gather-window");   /* E-SPLIT-EXTENT: a window is not split again */
  if (g->k->target == 1 && S % 16) gen_refuse(g, FZ_V_LR, "gather-a5-box");   /* a5: halves of the box */
  if (win) {
    nidx = gen_rng(g, 1, gen_imin(N + 4, 512));
    wf = gen_rng(g, 0, nidx - 1), wn = gen_rng(g, 1, N);
    n = gen_imin(gen_imin(wn, nidx - wf), N);
    gen_feat(g, FZ_FEAT_gather_window);
  }
  int32_t idx[512];
  gather_indices(g, B, L, tbl, rows, idx, nidx);
  int K = gen_ch(g, p->p_gather_col_off) ? gen_rng(g, 1, 16) : 0;
  int src = gen_tensor(g, 'A', dt, FZ_IN, rows, K + S + (gen_ch(g, p->p_store_margin) ? gen_rng(g, 1, 4) : 0));
  int it = gen_table(g, 'I', idx, nidx), pt = gen_table(g, 'P', tbl, P);
  FzExpr *e = gather_call(g, 6 + (K > 0) + win, src, it, pt, B, S, N);
  if (win) gen_a_idx(&e->a[6 + (K > 0)], gen_aff(wf), gen_aff(wn)), e->a[6 + (K > 0)].kw = FZ_KW_WINDOW;
  if (K) gen_a_int(&e->a[6], FZ_KW_COL_OFF, K);
  Val gv = gen_mkval(dt, FZ_VEC, N, S, n, S);
  gv.e = e;
  gv.join_ok = true;
  gen_charge(g, &gv);
  gv = gen_bind(g, gv, "g");
  Val y = gen_vchain(g, gv, gen_rng(g, 0, 2));
  if (gen_ch(g, 0.4)) gen_reduce_stores(g, y);
  gen_store(g, y);
}

/* Into a fractal mat tile of whole 16-row boxes: any block size and any index
 * table, gathered row by row (DESIGN 14.9); the gathered keys feed a QK^T
 * matmul. */
static void blk_gather_mat(Gen *g, int dt) {
  const FzPolicy *p = g->p;
  gen_feat(g, FZ_FEAT_gather_mat);
  int B, P, L;
  int32_t tbl[32];
  int rows = gather_source(g, 8, &B, &P, tbl, &L);
  int N = 16 * gen_rng(g, 1, 3), n = N;
  if (gen_ch(g, p->p_gather_fewer_indices)) n = gen_rng(g, 1, N - 1), gen_feat(g, FZ_FEAT_gather_fewer_indices);
  int32_t idx[512];
  gather_indices(g, B, L, tbl, rows, idx, n);
  static const int s16[] = {32, 16, 64}, s32[] = {16, 8, 32, 64};
  int S = dt == FZ_F16 ? s16[gen_below(g, 3)] : s32[gen_below(g, 4)];
  int K = gen_ch(g, p->p_gather_col_off) ? gen_rng(g, 1, 16) : 0;
  int src = gen_tensor(g, 'A', dt, FZ_IN, rows, K + S);
  int it = gen_table(g, 'I', idx, n), pt = gen_table(g, 'P', tbl, P);
  FzExpr *e = gather_call(g, 7 + (K > 0), src, it, pt, B, S, N);
  int i = 6;
  if (K) gen_a_int(&e->a[i++], FZ_KW_COL_OFF, K);
  gen_a_kind(&e->a[i], FZ_A_SPACE, FZ_MAT), e->a[i].kw = FZ_KW_SPACE;
  Val gv = gen_mkval(dt, FZ_MAT, N, S, n, S);
  gv.e = e;
  gen_charge(g, &gv);
  gv = gen_bind(g, gv, "g");
  int M = gen_dim(g, false, 0);
  while (M > 1 && (g->acc + gen_fbytes(FZ_F32, M, N, true) > p->acc_budget || !gen_vec_ok(g, 3 * gen_vbytes(FZ_F32, M, N))))
    M = gen_shrink(M, 0);
  Val q = gen_bind(g, gen_v_load(g, dt, M, S, FZ_MAT, -1, -1, LD_PARTIAL), "q");
  Val s = gen_bind(g, gen_v_mm(g, NULL, q, gv, true), "s");
  if (gen_ch(g, 0.5)) gen_store(g, s);
  else gen_store(g, gen_vchain(g, s, gen_rng(g, 1, 2)));
}

void gen_blk_gather(Gen *g) {
  gen_feat(g, FZ_FEAT_paged_gather);
  int dt = FZ_F32;
  if (gen_ch(g, g->p->p_f16)) dt = FZ_F16, gen_feat(g, FZ_FEAT_f16);
  if (gen_ch(g, g->p->p_gather_mat)) blk_gather_mat(g, dt);
  else blk_gather_vec(g, dt);
}
