/* blind.c — the generator's blind spots, blocks fz_generate appends after
 * the weighted ones. Consumes the generator's state; produces a GM round trip
 * between the cores through an inout workspace (ordered only by
 * expand_mixed's GM fences), a kernel that ends near one space's capacity, or
 * one that ends with a loop under memory pressure (these two charge the
 * compile claim afresh: nothing before them is live). */
#define GEN_INTERNALS
#include "gen.h"

#include <string.h>

/* load(W, [0, 0], [R, C][, space=]) of a workspace tensor the kernel also
 * writes: fully valid (an inout tensor starts with input data everywhere). */
static Val load_ws(Gen *g, int w, int dt, int R, int C, int sp) {
  bool ks = sp != FZ_VEC;
  FzExpr *e = gen_call(g, FZ_OP_load, 3 + ks);
  gen_a_tensor(&e->a[0], w);
  gen_a_idx(&e->a[1], gen_aff(0), gen_aff(0));
  gen_a_idx(&e->a[2], gen_aff(R), gen_aff(C));
  if (ks) gen_a_kind(&e->a[3], FZ_A_SPACE, sp), e->a[3].kw = FZ_KW_SPACE;
  Val r = gen_mkval(dt, sp, R, C, R, C);
  r.e = e;
  r.join_ok = true;
  gen_charge(g, &r);
  return r;
}

/* A GM round trip between the cores through an inout workspace W, which only
 * expand_mixed's GM fences order (no transfer between the two accesses):
 *   0: the vector side stores W, the cube loads it into a matmul (RAW, V -> C)
 *   1: the cube stores a matmul result into W, the vector side loads it (RAW, C -> V)
 *   2: the vector side loads W, then the cube overwrites it (WAR, V -> C) */
void gen_blk_roundtrip(Gen *g) {
  int dt = gen_pick_dt(g, true, true), M = gen_dim(g, false, g->brk[0] ? 0 : D_NOUNIT), K = gen_dim(g, true, D_NOUNIT),
      N = gen_dim(g, true, g->brk[1] ? 0 : D_NOUNIT);
  gen_fit_mm(g, dt, &M, &K, &N, 3, 0);
  bool tb = gen_ch(g, g->p->p_trans_b);
  int how = gen_below(g, 3), adt = gen_isint(dt) ? FZ_I32 : FZ_F32;
  gen_feat(g, FZ_FEAT_gm_round_trip);
  if (how == 0) {
    Val x = gen_vexpr(g, dt, M, K, 0);
    int w = gen_tensor(g, 'W', dt, FZ_INOUT, M, K);
    if (x.sp == FZ_MAT) {                       /* a reused mat tile: on a5 its store is a C2V transfer */
      gen_claim_c2v(g, &x);
      gen_refuse(g, FZ_V_A5 | (g->k->target == 1 ? FZ_V_SPLIT : 0), "capacity");   /* a reserve not charged */
    }
    gen_store_at(g, w, gen_aff(0), gen_aff(0), x.e);
    Val a = load_ws(g, w, dt, M, K, FZ_MAT);
    Val b = gen_rhs_load(g, dt, K, N, tb, K, false);
    Val c = gen_bind(g, gen_v_mm(g, NULL, a, b, tb), "s");
    gen_store(g, gen_ch(g, 0.5) ? c : gen_vchain(g, c, gen_rng(g, 1, 2)));
    return;
  }
  int w = gen_tensor(g, 'W', adt, FZ_INOUT, M, N);
  if (how == 2) {
    Val y = load_ws(g, w, adt, M, N, FZ_VEC);
    gen_store(g, gen_vchain(g, y, gen_rng(g, 1, 2)));
  }
  Val a = gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
  Val b = gen_rhs_load(g, dt, K, N, tb, a.vc[0], false);
  Val c = gen_bind(g, gen_v_mm(g, NULL, a, b, tb), "s");
  gen_store_at(g, w, gen_aff(0), gen_aff(0), c.e);
  if (how == 1) {
    Val y = load_ws(g, w, adt, M, N, FZ_VEC);
    gen_store(g, gen_vchain(g, y, gen_rng(g, 1, 2)));
  }
}

/* A kernel near one space's capacity (the smaller, a2a3's, so every variant
 * compiles): several large tiles live at once, so a planner that forgets the
 * pipe reserve or overlaps two buffers corrupts a live value (R-ALIAS) or
 * places one past the end.
 *   vec: L f32 loads [R, 64], all live at the first add, L + 1 buffers
 *   mat: L pairs of mat operands, all loaded before a matmul_acc chain
 *   left / right: one matmul whose left (or right) operand fills L0A (L0B)
 *   acc: one matmul whose result fills L0C, stored from the cube */
void gen_blk_capacity(Gen *g) {
  int which = gen_below(g, 4), fill = gen_rng(g, 86, 99);
  int64_t room = (188416 - gen_reserve(g)) * fill / 100;
  int L = gen_rng(g, 2, 4), R = (int)(room / (L + 1) / 256);
  if ((which == 0 && (R < 2 || R > 512)) || (which == 1 && g->nv2c)) which = 3;   /* the V2C reserve in mat is the compiler's to size */
  gen_feat(g, FZ_FEAT_near_capacity);
  memcpy(g->cap, g->cb, sizeof g->cap);         /* nothing before is live in this last block */
  memset(g->cb, 0, sizeof g->cb);
  if (which == 0) {
    Val a[4];
    for (int i = 0; i < L; i++) a[i] = gen_bind(g, gen_v_load(g, FZ_F32, R, 64, FZ_VEC, R, 64, 0), "a");
    Val t = gen_bind(g, gen_v_bin(g, FZ_OP_add, a[0], a[1]), "t");
    for (int i = 2; i < L; i++) t = gen_reassign(g, t, gen_v_bin(g, gen_bi_op(g, FZ_F32), t, a[i]));
    gen_store(g, t);
    return;
  }
  if (which == 1) {                             /* mat: pairs of [128, K] and [K, 8] */
    L = gen_rng(g, 3, 5);
    int K = 128, per = (int)((int64_t)524288 * fill / 100 / L);
    while (K > 16 && gen_fbytes(FZ_F32, 128, K, false) + gen_fbytes(FZ_F32, K, 8, false) > per) K -= 16;
    Val a[5], b[5];
    for (int i = 0; i < L; i++) {
      a[i] = gen_bind(g, gen_v_load(g, FZ_F32, 128, K, FZ_MAT, -1, -1, 0), "a");
      b[i] = gen_bind(g, gen_v_load(g, FZ_F32, K, 8, FZ_MAT, -1, -1, 0), "b");
    }
    Val c = gen_bind(g, gen_v_mm(g, NULL, a[0], b[0], false), "c");
    for (int i = 1; i < L; i++) c = gen_reassign(g, c, gen_v_mm(g, &c, a[i], b[i], false));
    gen_store(g, c);
    return;
  }
  int dt = gen_ch(g, 0.5) ? FZ_F32 : FZ_F16, e = dt == FZ_F32 ? 4 : 2;
  int M, K, N;
  if (which == 2) {                             /* an operand of 64 KB: [128, 128] f32 or [128, 256] f16 */
    M = 128, K = 65536 / 128 / e, N = 16;
    if (gen_ch(g, 0.5)) M = 16, N = 128;            /* ... the right operand [K, 128] instead */
  } else {                                      /* an acc of 128 KB: [128, 256] */
    M = 128, K = 16, N = 256;
  }
  Val a = gen_v_load(g, dt, M, K, FZ_MAT, -1, -1, 0), b = gen_v_load(g, dt, K, N, FZ_MAT, -1, -1, 0);
  gen_store(g, gen_bind(g, gen_v_mm(g, NULL, a, b, false), "c"));
}

/* Pressure where planners err, as the kernel's last block: n cube results
 * (2..5) moved to vec before a loop, so as many C2V entries live at once as
 * the slots must allow (a pipe depth counted short deadlocks), read in every
 * iteration of a loop whose body then makes buffers of its own (a live range
 * not stretched over the loop's end lets them overwrite the entries' bytes or
 * an earlier load's: R-ALIAS from the second iteration), one read again after
 * the loop (a pipe live across the loop's end); the tiles sized so the
 * vector side holds about half to nearly all of a2a3's 192 KB. */
void gen_blk_pressure(Gen *g) {
  bool hole = gen_ch(g, 0.5);
  int n = gen_rng(g, 2, 5), fill = hole ? gen_rng(g, 85, 97) : gen_rng(g, 50, 97), trips = gen_rng(g, 2, 3);
  int slots = gen_imax(g->slots ? g->slots : 2, n);
  int R = (int)((int64_t)188416 * fill / 100 / (slots + 3) / 256);
  R = gen_clampi(R, 2, 128);
  gen_feat(g, FZ_FEAT_pressure);
  for (int i = 0; i < 3; i++) g->cap[i] = gen_imax64(g->cap[i], g->cb[i]);   /* nothing before is live in this last block */
  memset(g->cb, 0, sizeof g->cb);
  Val x[5];
  /* a tile made first and dead after the first value: first-fit in program
   * order leaves its hole below the others, so a plan near capacity may end
   * past it and be placed again largest first, out of program order */
  Val f = {0};
  if (hole) f = gen_bind(g, gen_v_load(g, FZ_F32, (R + 1) / 2, 64, FZ_VEC, -1, -1, 0), "f");
  for (int i = 0; i < n; i++) {
    Val a = gen_v_load(g, FZ_F32, R, 16, FZ_MAT, -1, -1, 0), b = gen_v_load(g, FZ_F32, 16, 64, FZ_MAT, -1, -1, 0);
    Val c = gen_v_mm(g, NULL, a, b, false);
    x[i] = gen_bind(g, gen_ch(g, 0.5) ? gen_v_move(g, c, FZ_VEC) : gen_v_un(g, gen_un_op(g, FZ_F32), c), "x");
    if (f.e && !i) gen_store(g, gen_v_un(g, gen_un_op(g, FZ_F32), f));
  }
  Val l = gen_bind(g, gen_v_load(g, FZ_F32, R, 64, FZ_VEC, -1, -1, 0), "l");
  FzBody *outer = gen_open_loop(g, true, 0, trips, 1);
  Val y = gen_v_bin(g, FZ_OP_add, x[0], l);         /* the values from before the loop, read first */
  for (int i = 1; i < n; i++) y = gen_v_bin(g, gen_bi_op(g, FZ_F32), y, x[i]);
  y = gen_bind(g, y, "y");
  Val z = gen_bind(g, gen_v_load(g, FZ_F32, R, 64, FZ_VEC, -1, -1, 0), "z");   /* then buffers of the body's own */
  gen_store(g, gen_v_bin(g, gen_bi_op(g, FZ_F32), y, z));
  gen_close_loop(g, outer);
  gen_store(g, gen_vchain(g, x[gen_below(g, n)], 1));       /* live across the loop's end */
}
