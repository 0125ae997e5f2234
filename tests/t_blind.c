/* t_blind.c — the generator's blind-spot kernels (DESIGN 10): GM
 * round trips between the cores (they need expand_mixed's GM fences) and
 * kernels near a space's capacity. Each is generated with its policy share at
 * 1, must be valid, compile on the unsplit variants, give no finding on the
 * clean compiler, and show what it exists for in the compiled IR: a fence in
 * the per-core programs, a placed space filled past 80%. Full-mantissa
 * inputs (SimOpts.full_inputs, `--inputs=full`) and the campaign's share of them. */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static char *gen(const FzPolicy *p, uint64_t seed, size_t *len, uint8_t feat[FZ_NFEAT]) {
  FzSrc s;
  fz_src_seed(&s, seed);
  FzKernel *k = fz_generate(p, &s);
  char *t = fz_emit(k, len);
  fz_features(k, feat);
  fz_free(k);
  return t;
}

/* Compile text as variant (split, target); NULL with *why set when it does not compile. */
static Kernel *compile(Comp *c, const char *t, size_t len, int split, int target, char *why, size_t n) {
  *c = (Comp){.A = ir_arena_new(), .src = (Src){"gen", t, len}, .o = {.split = split, .target = target}};
  Kernel *front = ir_front(c), *k = front ? pass_pipeline_from(c, front, &(PipeOpts){0}) : NULL;
  if (!k) snprintf(why, n, "%s %s", ir_diag_name(c->diag.code), c->diag.msg);
  return k;
}

static bool clean(const char *t, size_t len, uint64_t seed, char *sig, size_t n) {
  OrcResult r;
  orc_check(&(Src){"gen", t, len}, &(OrcOpts){.input_seed = seed, .sched_seed = seed | 1}, &r);
  sig[0] = 0;
  for (int i = 0; i < r.n && !sig[0]; i++)
    if (orc_is_finding(r.r[i].out)) orc_signature(&r.r[i], sig, n);
  if (r.invalid) snprintf(sig, n, "invalid: %s", r.why.msg);
  return !r.invalid && !r.finding;
}

int main(void) {
  Tap t = {0};
  enum { N = 40 };
  FzPolicy p;
  char why[300], sig[FZ_SIGLEN];

  /* ---- GM round trips -------------------------------------------------------------- */
  fz_policy_default(&p);
  p.p_explicit_split = p.p_rebalance = 0;       /* split_aiv and one-transfer kernels take no blocks */
  p.p_gm_round_trip = 1;
  p.p_pressure = 0;                             /* its tiles are sized to be refused sometimes */
  int feat_n = 0, fenced = 0, ok = 0, compiled = 0;
  for (int i = 0; i < N; i++) {
    size_t len;
    uint8_t f[FZ_NFEAT];
    char *text = gen(&p, 1000 + (uint64_t)i, &len, f);
    feat_n += f[FZ_FEAT_gm_round_trip];
    if (clean(text, len, (uint64_t)i, sig, sizeof sig)) ok++;
    else tap_diag("kernel %d: %s", i, sig);
    Comp c;
    Kernel *k = compile(&c, text, len, MODE_NONE, TGT_A2A3, why, sizeof why);
    if (k) {
      compiled++;
      char *buf = NULL;
      size_t bn = 0;
      FILE *m = open_memstream(&buf, &bn);
      ir_print(m, k);
      fclose(m);
      fenced += strstr(buf, "sync_wait(") != NULL;
      free(buf);
    } else {
      tap_diag("kernel %d under none@a2a3: %s", i, why);
    }
    ir_arena_free(c.A);
    free(text);
  }
  tap_ok(&t, feat_n == N, "blind-1.1", "p_gm_round_trip = 1: every kernel has a GM round trip (%d of %d)", feat_n, N);
  tap_ok(&t, compiled == N, "blind-1.2", "none@a2a3 compiles every one (%d of %d)", compiled, N);
  tap_ok(&t, fenced == compiled, "blind-1.3", "every compiled one holds a GM fence (sync_wait) (%d of %d)", fenced, compiled);
  tap_ok(&t, ok == N, "blind-1.4", "the oracle finds nothing on the clean compiler (%d of %d clean)", ok, N);

  /* ---- near capacity ----------------------------------------------------------------- */
  fz_policy_default(&p);
  p.p_explicit_split = p.p_rebalance = 0;
  p.p_near_capacity = 1;
  p.p_pressure = 0;                             /* it would take the last block */
  int nc = 0, full = 0, unsup = 0;
  ok = 0;
  for (int i = 0; i < N; i++) {
    size_t len;
    uint8_t f[FZ_NFEAT];
    char *text = gen(&p, 2000 + (uint64_t)i, &len, f);
    nc += f[FZ_FEAT_near_capacity];
    if (clean(text, len, (uint64_t)i, sig, sizeof sig)) ok++;
    else tap_diag("kernel %d: %s", i, sig);
    Comp c;
    Kernel *k = compile(&c, text, len, MODE_NONE, TGT_A2A3, why, sizeof why);
    if (k) {
      bool near = false;
      for (int sp = SP_VEC; sp < SP_N; sp++) near |= k->top[sp] * 5 >= ir_capacity(TGT_A2A3, (Space)sp) * 4;
      full += near;
      if (!near && f[FZ_FEAT_near_capacity])
        tap_diag("kernel %d: vec %d mat %d acc %d left %d right %d", i, k->top[SP_VEC], k->top[SP_MAT], k->top[SP_ACC],
                 k->top[SP_LEFT], k->top[SP_RIGHT]);
    } else {
      unsup++;
      tap_diag("kernel %d under none@a2a3: %s", i, why);
    }
    ir_arena_free(c.A);
    free(text);
  }
  tap_ok(&t, nc * 10 >= N * 9, "blind-2.1", "p_near_capacity = 1: %d of %d kernels end near a capacity", nc, N);
  tap_ok(&t, unsup * 20 <= N, "blind-2.2", "none@a2a3 compiles them (%d of %d do not)", unsup, N);
  tap_ok(&t, full * 10 >= nc * 8, "blind-2.3", "%d of %d place a space past 80%% of its a2a3 capacity", full, nc);
  tap_ok(&t, ok == N, "blind-2.4", "the oracle finds nothing on the clean compiler (%d of %d clean)", ok, N);

  /* ---- full-mantissa inputs ------------------------------------------------------------ */
  {
    const char *k = "kernel k(A: f32[16, 64] in, B: f16[16, 64] in, O: f32[16, 64] out) { store(O, [0, 0], load(A, [0, 0], [16, 64])); }";
    Comp c = {.A = ir_arena_new(), .src = (Src){"k", k, strlen(k)}, .o = {.split = -1, .target = -1}};
    Kernel *kk = ir_front(&c);
    int off16[2] = {0, 0}, range[2] = {0, 0};
    bool f16ok = true;
    for (int m = 0; m < 2 && kk; m++) {
      Sim *sm = sim_new(kk, &(SimOpts){.seed = 3, .full_inputs = m});
      Gm *a = sim_gm(sm, kk->params[0]), *b = sim_gm(sm, kk->params[1]);
      for (int r = 0; r < a->rows; r++)
        for (int q = 0; q < a->cols; q++) {
          float x = sim_gm_get(a, r, q).f, y = sim_gm_get(b, r, q).f;
          off16[m] += x * 16 != (float)(int)(x * 16);
          range[m] += x < -2 || x >= 2 + (m == 0);
          f16ok &= sim_round_f16(y) == y;
        }
      sim_free(sm);
    }
    tap_ok(&t, kk && off16[0] == 0, "blind-3.1", "k/16 inputs (the default): every f32 input a multiple of 1/16");
    tap_ok(&t, kk && off16[1] >= 1000, "blind-3.2", "full inputs: %d of 1024 f32 inputs are not multiples of 1/16", off16[1]);
    tap_ok(&t, kk && !range[1] && !range[0], "blind-3.3", "full inputs lie in [-2, 2) (%d outside)", range[1]);
    tap_ok(&t, kk && f16ok, "blind-3.4", "an f16 tensor's full inputs are f16 values");
    ir_arena_free(c.A);
  }
  {
    FzPolicy q;
    fz_policy_default(&q);
    int n = 0;
    for (uint64_t i = 0; i < 4000; i++) n += fz_full_inputs(&q, (i + 1) * 0x9E3779B97F4A7C15ull);
    tap_ok(&t, n > 4000 * q.p_full_inputs * 0.85 && n < 4000 * q.p_full_inputs * 1.15, "blind-3.5",
           "p_full_inputs = %.2f: %d of 4000 campaign kernels run on full inputs", q.p_full_inputs, n);
    q.p_full_inputs = 0;
    bool none = true;
    for (uint64_t i = 0; i < 1000; i++) none &= !fz_full_inputs(&q, i);
    q.p_full_inputs = 1;
    bool all = true;
    for (uint64_t i = 0; i < 1000; i++) all &= fz_full_inputs(&q, i);
    tap_ok(&t, none && all, "blind-3.6", "p_full_inputs 0 gives none, 1 gives every kernel");
  }
  return tap_done(&t);
}
