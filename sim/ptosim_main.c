/* ptosim_main.c — the ptosim command: FILE -> one line per output tensor
 * (`out NAME digest=HEX16`, and the values with --dump) from the reference
 * run or a compiled variant's, and with --out-dir=DIR each output tensor's
 * bytes as DIR/NAME.bin (what a finding's bundle compares with `cmp`). Exit 0
 * ok, 1 usage, kernel or runtime error. */
#include "sim.h"
#include "pto_version.h"

#include <stdlib.h>
#include <string.h>

/* The usage text: on stderr for a usage error (exit 1), on stdout for --help (exit 0). */
static int usage_to(FILE *f, int rc) {
  fputs("usage: ptosim FILE (--reference | [--split=MODE] [--target=T] [--stop-after=PASS] [--bugs=LIST|all])\n"
        "              [--seed=N] [--schedule=rr|random:N] [--dump] [--out-dir=DIR]\n"
        "       ptosim --help | --version\n", f);
  return rc;
}
static int usage(void) { return usage_to(stderr, 1); }

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

static bool parse_u64(const char *s, uint64_t *out) {
  char *e;
  if (!*s || *s == '-') return false;
  unsigned long long v = strtoull(s, &e, 10);
  if (*e) return false;
  *out = v;
  return true;
}

int main(int argc, char **argv) {
  const char *file = NULL;
  bool ref = false, dump = false;
  SimOpts so = {0};
  CompOpts co = {.split = -1, .target = -1};
  PipeOpts po = {0};
  bool compiled = false;
  uint64_t sched = 0;
  const char *bugs = NULL, *out_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage_to(stdout, 0);
    if (!strcmp(a, "--version")) return printf("ptosim %s (commit %s)\n", PTO_VERSION, PTO_COMMIT), 0;
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
    else if (!strncmp(a, "--schedule=random:", 18) && parse_u64(a + 18, &sched) && sched) {
    } else if (!strcmp(a, "--reference")) ref = true;
    else if (!strcmp(a, "--dump")) dump = true;
    else if (!strncmp(a, "--out-dir=", 10) && a[10]) out_dir = a + 10;
    else if (!strncmp(a, "--seed=", 7) && parse_u64(a + 7, &so.seed)) {
    } else if (a[0] == '-' || file) {
      fprintf(stderr, "ptosim: unknown or repeated argument '%s'\n", a);
      return usage();
    } else file = a;
  }
  if (!file || ref == compiled) {
    fputs(!file ? "ptosim: no kernel FILE given\n"
          : ref ? "ptosim: --reference takes none of --split, --target, --stop-after, --bugs\n"
                : "ptosim: give --reference or a compiled variant (--split=MODE ...)\n", stderr);
    return usage();
  }
  if (!ir_bugs_option("ptosim", bugs, &co.bugs)) return 1;
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
