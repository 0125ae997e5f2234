/* t_simcheck.c — the simulator's self-check in bisection (issue 12 blind spot
 * 6, docs/fuzzing.md "Bisection that blames the right layer"). The two pairs
 * of simulator paths the oracle compares agree on a correct simulator (the
 * machine running flat IR as one task against the reference interpreter;
 * the machine against the plain machine: unbounded FIFO pipes,
 * loops counted by trips); with a deliberate machine bug (the test-only
 * SimOpts.fault, through OrcOpts.sim_fault) every finding is signed with first
 * bad pass `sim`; the compiler's injected defects are still blamed on their
 * passes. Kernels come from the generator with fixed seeds. */
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

typedef struct {
  int findings, sim, said, other;               /* findings; signed sim; of those, detail naming the check; else */
  char first_other[FZ_SIGLEN];
} Tally;

/* The oracle with bisection on kernels [0, n), with defects bugs and machine fault f. */
static void campaign(int n, const char *bugs, SimFault f, Tally *t) {
  memset(t, 0, sizeof *t);
  uint32_t b = 0;
  char err[200];
  if (!ir_bugs_parse(bugs, &b, err, sizeof err)) die("t_simcheck: %s", err);
  for (int i = 0; i < n; i++) {
    size_t len;
    char *text = gen(7000 + (uint64_t)i, &len);
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
  enum { N = 60 };

  /* ---- the paths agree on a correct simulator --------------------------------------- */
  int flat = 0, flat_same = 0, piped = 0, pipe_same = 0;
  for (int i = 0; i < N; i++) {
    size_t len;
    char *text = gen(7000 + (uint64_t)i, &len);
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
      static const int splits[] = {MODE_NONE, MODE_UD, MODE_LR};
      for (int sp = 0; sp < 3 && ra; sp++) {
        int split = splits[sp];
        Comp cc = {.A = ir_arena_new(), .src = c.src, .o = {.split = split, .target = TGT_A2A3}};
        Kernel *e = pass_pipeline_from(&cc, k, &(PipeOpts){0});
        for (uint64_t sc = 0; e && sc < 2; sc++) {
          Sim *s1 = sim_new(e, &(SimOpts){.inputs = in}), *s2 = sim_new(e, &(SimOpts){.inputs = in, .plain = true});
          bool r1 = sim_run_machine(s1, sc * (uint64_t)(i + 3)), r2 = sim_run_machine(s2, sc * (uint64_t)(i + 3));
          piped++;
          if (r1 == r2 && (!r1 || orc_same_outputs(s1, e, s2, e, -1, pat, sizeof pat))) pipe_same++;
          else tap_diag("kernel %d split %d schedule %llu: slotted %s, plain %s", i, split, (unsigned long long)sc,
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
         "the machine runs flat kernels as one task like the reference interpreter (%d of %d, %d kernels)", flat_same, flat, N);
  tap_ok(&t, piped >= N && pipe_same == piped, "simcheck-1.2",
         "the machine and the plain machine agree on compiled kernels under both schedules (%d of %d runs)", pipe_same, piped);

  /* ---- a correct simulator and compiler: no finding, so no self-check ---------------- */
  Tally c;
  campaign(N, "", SIM_FAULT_NONE, &c);
  tap_ok(&t, c.findings == 0, "simcheck-2.1", "no fault, no defect: no finding (%d)", c.findings);

  /* ---- machine faults: every finding is signed sim ----------------------------------- */
  static const struct {
    const char *id, *what;
    SimFault f;
  } faults[] = {
      {"simcheck-3.1", "a loop of three or more trips ends one early", SIM_FAULT_LOOP},
      {"simcheck-3.2", "a C2V pop after the slots wrapped flips a bit", SIM_FAULT_WRAP},
  };
  for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
    Tally f;
    campaign(N, "", faults[i].f, &f);
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
    campaign(N, defects[i].bug, SIM_FAULT_NONE, &d);
    tap_ok(&t, d.findings > 0 && d.sim == 0, defects[i].id, "defect %s: %d findings, none signed sim (%d)",
           defects[i].bug, d.findings, d.sim);
  }
  return tap_done(&t);
}
