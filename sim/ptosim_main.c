/* ptosim_main.c — the ptosim command: FILE -> one line per output tensor
 * (`out NAME digest=HEX16`, and the values with --dump) from the reference
 * run or a compiled variant's, and with --out-dir=DIR each output tensor's
 * bytes as DIR/NAME.bin (what a finding's bundle compares with `cmp`). Exit 0
 * ok, 1 usage, kernel or runtime error. */
#include "sim.h"
#include "cli.h"
#include "pto_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const IrOpt opts[] = {
    {"--reference", NULL, NULL, "run the golden reference (the kernel's semantics)"},
    IR_COMP_OPTS,                               /* any of them: a compiled variant */
    {"--stop-after", "PASS", "every pass", "run the program of the level after PASS"},
    {"--seed", "N", "0", "the input seed: the input tensors' values"},
    {"--schedule", "rr|random:N", "rr", "the machine's task schedule: round-robin, or seeded random (N >= 1)"},
    {"--dump", NULL, NULL, "print every output element too (canaries as canary)"},
    {"--out-dir", "DIR", "none", "write each output tensor's bytes as DIR/NAME.bin"},
    {"--max-mem", "MB", "2048", "the memory it may use; beyond it E-LIMIT, exit 1"},
    {NULL, NULL, NULL, NULL},
};
static const IrCmd cmd = {
    "ptosim", "ptosim FILE (--reference | --split=MODE [--target=T] [--stop-after=PASS] [--bugs=LIST|all])\n"
              "              [--seed=N] [--schedule=rr|random:N] [--dump] [--out-dir=DIR]",
    "Runs the kernel FILE: its golden reference, or a compiled variant on the\n"
    "machine; prints `out NAME digest=HEX16` per output tensor.",
    opts,
    "0  the run ended and every output was printed (and written)\n"
    "1  a usage error (E-USAGE), a kernel or runtime error (coded), an output not written",
};

/* Each output tensor's bytes (row-major, canaries included) as dir/NAME.bin;
 * false (said on stderr) when one cannot be written. */
static bool write_outputs(Sim *s, const Kernel *k, const char *dir) {
  for (int i = 0; i < k->np; i++) {
    const Var *v = k->params[i];
    if (v->dir == DIR_IN) continue;
    Gm *g = sim_gm(s, v);
    size_t n = (size_t)g->rows * g->cols * (size_t)ir_dtype_bytes(v->dt);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, v->name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(g->bytes, 1, n, f) == n;
    if (f && fclose(f)) ok = false;
    if (!ok) {
      fprintf(stderr, "ptosim: cannot write %s\n", path);
      return false;
    }
  }
  return true;
}

static int ptosim(int argc, char **argv) {
  IrCliBad bad = {0};
  const char *file = NULL;
  bool ref = false, dump = false;
  SimOpts so = {0};
  CompOpts co = {.split = -1, .target = -1};
  int64_t max_mem = IR_MAX_MEM_MB;
  PipeOpts po = {0};
  bool compiled = false;
  uint64_t sched = 0;
  const char *bugs = NULL, *out_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (ir_cli_is_help(a)) return ir_cli_help(stdout, &cmd), 0;
    if (ir_cli_is_version(a)) return printf("ptosim %s (commit %s)\n", PTO_VERSION, PTO_COMMIT), 0;
    if (!strncmp(a, "--bugs=", 7)) bugs = a + 7;
    if (ir_comp_flag(&co, a) || bugs == a + 7) {
      compiled = true;
      continue;
    }
    if (!strncmp(a, "--stop-after=", 13)) {
      po.stop_after = a + 13;
      compiled = true;
      continue;
    }
    if (!strcmp(a, "--schedule=rr")) sched = 0;
    else if (ir_cli_u64(a, "--schedule=random:", &sched, &bad)) {
      if (!sched && !bad.arg) bad.arg = a, snprintf(bad.why, sizeof bad.why, "a random schedule's seed is not 0");
    }
    else if (!strcmp(a, "--reference")) ref = true;
    else if (!strcmp(a, "--dump")) dump = true;
    else if (!strncmp(a, "--out-dir=", 10) && a[10]) out_dir = a + 10;
    else if (ir_cli_u64(a, "--seed=", &so.seed, &bad) || ir_cli_int(a, "--max-mem=", 16, 1 << 24, &max_mem, &bad)) {
    } else if (a[0] == '-' || file) return ir_cli_fail(&cmd, "unknown or repeated argument '%s'", a);
    else file = a;
  }
  if (bad.arg) return ir_cli_fail(&cmd, "'%s': %s", bad.arg, bad.why);
  if (!file || ref == compiled)
    return ir_cli_fail(&cmd, "%s", !file ? "no kernel FILE given"
                                   : ref ? "--reference takes none of --split, --target, --stop-after, --bugs"
                                         : "give --reference or a compiled variant (--split=MODE ...)");
  if (!ir_bugs_option("ptosim", bugs, &co.bugs)) return 1;
  ir_mem_limit(max_mem);
  Comp c = {.A = ir_arena_new(), .o = co};
  if (!ir_read_file(c.A, file, &c.src)) {
    fprintf(stderr, "%s:0:0: error[E-IO]: cannot read the file [user]\n", file);
    ir_arena_free(c.A);
    return 1;
  }
  Kernel *k = ref ? ir_front(&c) : pass_pipeline(&c, &po);
  if (k && !k->expanded) pass_flatten(&c, k);   /* the source level runs after naming its nested calls */
  int rc = 0;
  if (!k) {
    ir_diag_print(stderr, &c.src, &c.diag);
    rc = 1;
  } else {
    Sim *s = sim_new(k, &so);
    if (k->expanded ? sim_run_machine(s, sched) : sim_run_reference(s)) {
      sim_print_outputs(stdout, s, dump);
      if (out_dir && !write_outputs(s, k, out_dir)) rc = 1;
    } else {
      ir_diag_print(stderr, &c.src, sim_diag(s));
      rc = 1;
    }
    sim_free(s);
  }
  ir_arena_free(c.A);
  return rc;
}

int main(int argc, char **argv) {
  char **args = ir_cli_args(&argc, argv, opts);   /* `--opt value` as `--opt=value` */
  int rc = ptosim(argc, args);
  ir_cli_free(args, argc);
  return rc;
}
