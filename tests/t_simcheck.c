/* t_simcheck.c — the simulator's self-check in bisection (docs/fuzzing.md
 * "Bisection that blames the right layer"). The two pairs of simulator paths
 * the oracle compares agree on a correct simulator (the machine running flat
 * IR as one task against the reference interpreter; the machine against the
 * plain machine: unbounded FIFO pipes, its own lane placement and join,
 * loops counted by trips); with a deliberate machine bug (the test-only
 * SimOpts.fault, through OrcOpts.sim_fault) every finding is signed with first
 * bad pass `sim`; the compiler's injected defects are still blamed on their
 * passes. Kernels come from the generator with fixed seeds, and a few are
 * written here: split V2C joins whose lane 0 holds less than its extent
 * (lane 1 empty), which few generated kernels have, and a C2V whose lane 1
 * is empty. */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static char *gen(uint64_t seed, size_t *len) {
  FzPolicy p;
  fz_policy_default(&p);
  FzSrc s;
  fz_src_seed(&s, seed);
  FzKernel *k = fz_generate(&p, &s);
  char *t = fz_emit(k, len);
  fz_free(k);
  return t;
}

/* Written here: what the generator seldom makes. */
static const char *const hand[] = {
    /* up_down V2C: a's 5 valid rows of 16 give lanes of 8 holding 5 and 0 */
    "kernel join_ud(A: f32[16,16] in, B: f32[16,32] in, O: f32[16,32] out) split(up_down) {\n"
    "  a = load(A, [0, 0], [16, 16], valid=[5, 16]);\n"
    "  b = load(B, [0, 0], [16, 32], space=mat);\n"
    "  store(O, [0, 0], matmul(adds(a, 1), b));\n"
    "}\n",
    /* left_right V2C: b's 6 valid columns of 16 give lanes of 8 holding 6 and 0 */
    "kernel join_lr(A: f32[16,16] in, B: f32[16,16] in, O: f32[16,16] out) split(left_right) {\n"
    "  a = load(A, [0, 0], [16, 16], space=mat);\n"
    "  b = load(B, [0, 0], [16, 16], valid=[16, 6]);\n"
    "  store(O, [0, 0], matmul(a, adds(b, 1)));\n"
    "}\n",
    /* up_down C2V: 5 valid rows of 16 give lanes of 8 holding 5 and 0 */
    "kernel c2v_empty(A: f32[16,16] in, B: f32[16,32] in, O: f32[16,32] out) split(up_down) {\n"
    "  a = load(A, [0, 0], [16, 16], valid=[5, 16], space=mat);\n"
    "  b = load(B, [0, 0], [16, 32], space=mat);\n"
    "  store(O, [0, 0], adds(matmul(a, b), 1));\n"
    "}\n",
};
enum { N = 60, NHAND = sizeof hand / sizeof *hand, NK = N + NHAND };

/* Kernel i: generated for i < N, else hand[i - N]. */
static char *kernel(int i, size_t *len) {
  if (i < N) return gen(7000 + (uint64_t)i, len);
  *len = strlen(hand[i - N]);
  char *t = malloc(*len + 1);
  if (!t) die("t_simcheck: out of memory");
  return memcpy(t, hand[i - N], *len + 1);
}

/* Split V2C pops on the slotted machine whose joined valid extent on the
 * split axis is below a lane's extent: lane 0 partial, lane 1 empty. */
static void count_partial(void *ctx, const Stmt *st, int lane, int vr, int vc) {
  const Call *c = st->rhs.call;
  int code = (int)c->args[3].num;
  (void)lane;
  if (c->args[0].e == PIPE_V2C && code && (code == 1 ? vr < c->args[2].ix[0].c / 2 : vc < c->args[2].ix[1].c / 2))
    ++*(int *)ctx;
}

typedef struct {
  int findings, sim, said, other;               /* findings; signed sim; of those, detail naming the check; else */
  char first_other[FZ_SIGLEN];
} Tally;

/* The oracle with bisection on every kernel, with defects bugs and machine fault f. */
static void campaign(const char *bugs, SimFault f, Tally *t) {
  memset(t, 0, sizeof *t);
  uint32_t b = 0;
  char err[200];
  if (!ir_bugs_parse(bugs, &b, err, sizeof err)) die("t_simcheck: %s", err);
  for (int i = 0; i < NK; i++) {
    size_t len;
    char *text = kernel(i, &len);
    OrcResult r;
    orc_check(&(Src){"gen", text, len},
              &(OrcOpts){.bugs = b, .input_seed = (uint64_t)i, .sched_seed = (uint64_t)i | 1, .bisect = true, .sim_fault = f},
              &r);
    for (int j = 0; j < r.n; j++) {
      const VarResult *x = &r.r[j];
      if (!orc_is_finding(x->out) || x->out == OUT_REJECT || x->out == OUT_BLOWUP) continue;
      t->findings++;
      if (!strcmp(x->pass, "sim")) {
        t->sim++;
        t->said += strstr(x->detail, "sim self-check") != NULL;
      } else if (!t->other++) {
        orc_signature(x, t->first_other, sizeof t->first_other);
      }
    }
    free(text);
  }
}

int main(void) {
  Tap t = {0};

  /* ---- the paths agree on a correct simulator --------------------------------------- */
  /* the oracle's variants: none on each target, the splits on the kernel's own */
  static const struct {
    int split, target;
  } variants[] = {{MODE_NONE, TGT_A2A3}, {MODE_NONE, TGT_A5}, {MODE_UD, -1}, {MODE_LR, -1}};
  int flat = 0, flat_same = 0, piped = 0, pipe_same = 0, partial[2] = {0, 0};
  for (int i = 0; i < NK; i++) {
    size_t len;
    char *text = kernel(i, &len);
    Comp c = {.A = ir_arena_new(), .src = (Src){"gen", text, len}, .o = {.split = -1, .target = -1}};
    Kernel *k = ir_front(&c);
    if (k && sim_machine_runs_flat(k)) {
      Sim *in = sim_new(k, &(SimOpts){.seed = (uint64_t)i});
      Sim *a = sim_new(k, &(SimOpts){.inputs = in}), *m = sim_new(k, &(SimOpts){.inputs = in});
      bool ra = sim_run_reference(a), rm = sim_run_machine(m, 0);
      char pat[12];
      flat++;
      if (ra == rm && (!ra || orc_same_outputs(a, k, m, k, -1, pat, sizeof pat))) flat_same++;
      else tap_diag("kernel %d: reference %d, machine %d", i, ra, rm);
      for (size_t v = 0; v < sizeof variants / sizeof *variants && ra; v++) {
        Comp cc = {.A = ir_arena_new(), .src = c.src, .o = {.split = variants[v].split, .target = variants[v].target}};
        Kernel *e = pass_pipeline_from(&cc, k, &(PipeOpts){0});
        for (uint64_t sc = 0; e && sc < 2; sc++) {
          Sim *s1 = sim_new(e, &(SimOpts){.inputs = in, .on_pop = count_partial, .hook_ctx = &partial[i >= N]});
          Sim *s2 = sim_new(e, &(SimOpts){.inputs = in, .plain = true});
          bool r1 = sim_run_machine(s1, sc * (uint64_t)(i + 3)), r2 = sim_run_machine(s2, sc * (uint64_t)(i + 3));
          piped++;
          if (r1 == r2 && (!r1 || orc_same_outputs(s1, e, s2, e, -1, pat, sizeof pat))) pipe_same++;
          else tap_diag("kernel %d variant %zu schedule %llu: slotted %s, plain %s", i, v, (unsigned long long)sc,
                        r1 ? "ok" : ir_diag_name(sim_diag(s1)->code), r2 ? "ok" : ir_diag_name(sim_diag(s2)->code));
          sim_free(s1);
          sim_free(s2);
        }
        ir_arena_free(cc.A);
      }
      sim_free(a);
      sim_free(m);
      sim_free(in);
    }
    ir_arena_free(c.A);
    free(text);
  }
  tap_ok(&t, flat >= N / 2 && flat_same == flat, "simcheck-1.1",
         "the machine runs flat kernels as one task like the reference interpreter (%d of %d, %d kernels)", flat_same, flat, NK);
  tap_ok(&t, piped >= N && pipe_same == piped, "simcheck-1.2",
         "the machine and the plain machine agree on compiled kernels under both schedules (%d of %d runs)", pipe_same, piped);
  tap_ok(&t, partial[1] >= 4, "simcheck-1.3",
         "those runs hold split V2C joins whose lane 0 is partial and lane 1 empty: %d from the %d generated kernels, "
         "%d from the written ones", partial[0], N, partial[1]);

  /* ---- a correct simulator and compiler: no finding, so no self-check ---------------- */
  Tally c;
  campaign("", SIM_FAULT_NONE, &c);
  tap_ok(&t, c.findings == 0, "simcheck-2.1", "no fault, no defect: no finding (%d)", c.findings);

  /* ---- machine faults: every finding is signed sim ----------------------------------- */
  static const struct {
    const char *id, *what;
    SimFault f;
  } faults[] = {
      {"simcheck-3.1", "a loop of three or more trips ends one early", SIM_FAULT_LOOP},
      {"simcheck-3.2", "a C2V pop after the slots wrapped flips a bit", SIM_FAULT_WRAP},
      {"simcheck-3.3", "a V2C join with lane 0 partial takes lane 0's whole extent", SIM_FAULT_JOIN},
  };
  for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
    Tally f;
    campaign("", faults[i].f, &f);
    if (f.other) tap_diag("first not signed sim: %s", f.first_other);
    tap_ok(&t, f.findings > 0 && f.sim == f.findings && f.said == f.sim, faults[i].id,
           "machine fault (%s): %d findings, %d signed sim, %d saying which check", faults[i].what, f.findings, f.sim,
           f.said);
  }

  /* ---- compiler defects stay on their passes ------------------------------------------ */
  static const struct {
    const char *id, *bug, *pass;
  } defects[] = {
      {"simcheck-4.1", "pop-drops-lane1", "expand_mixed"},
      {"simcheck-4.2", "odd-floor-half", "auto_split"},
      {"simcheck-4.3", "replay-keeps-store", "dual_lane"},
  };
  for (size_t i = 0; i < sizeof defects / sizeof *defects; i++) {
    Tally d;
    campaign(defects[i].bug, SIM_FAULT_NONE, &d);
    tap_ok(&t, d.findings > 0 && d.sim == 0, defects[i].id, "defect %s: %d findings, none signed sim (%d)",
           defects[i].bug, d.findings, d.sim);
  }
  return tap_done(&t);
}
