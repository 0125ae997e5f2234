/* ptoc_main.c — the ptoc command: FILE -> diagnostics, or the IR printed
 * after the requested pass. Exit 0 ok, 1 usage or kernel error. */
#include "ptoc.h"
#include "cli.h"
#include "pto_version.h"

#include <stdlib.h>
#include <string.h>

static const IrOpt opts[] = {
    IR_COMP_OPTS,
    {"--print-after", "PASS|all", "none: print nothing", "print the IR after PASS (all: after every pass)"},
    {"--stop-after", "PASS", "run every pass", "stop the pipeline after PASS"},
    {"--emit", "ptk|pto|pypto", "ptk", "pto: PTO-AS for ptoas; pypto: a PyPTO program for the split and target"},
    {"--pypto", "DIR", "$PYPTO, else b25b25a4a's features", "the PyPTO tree whose features --emit=pypto may use"},
    {"--max-mem", "MB", "2048", "the memory it may use; beyond it E-LIMIT, exit 1"},
    {NULL, NULL, NULL, NULL},
};
static const IrCmd cmd = {
    "ptoc", "ptoc FILE [OPTION...]",
    "Compiles the kernel FILE (.ptk) through the passes below; prints the IR\n"
    "after a pass (--print-after), or the lowered program (--emit=pto|pypto).",
    opts,
    "0  the kernel compiled\n"
    "1  a usage error (E-USAGE) or a kernel error (coded diagnostics on stderr)",
};

static void passes(FILE *f) {
  fputs("passes:", f);
  for (int i = 0; ir_pass_names[i]; i++) fprintf(f, " %s", ir_pass_names[i]);
  fputc('\n', f);
}

static bool known_pass(const char *p, bool all_ok) {
  if (all_ok && !strcmp(p, "all")) return true;
  for (int i = 0; ir_pass_names[i]; i++)
    if (!strcmp(ir_pass_names[i], p)) return true;
  return false;
}

static int ptoc(int argc, char **argv) {
  const char *file = NULL;
  PipeOpts o = {.out = stdout};
  CompOpts co = {.split = -1, .target = -1};
  const char *bugs = NULL;
  bool pto = false, pypto = false;
  const char *pypto_dir = NULL;
  IrCliBad bad = {0};
  int64_t max_mem = IR_MAX_MEM_MB;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (ir_cli_is_help(a)) return ir_cli_help(stdout, &cmd), passes(stdout), 0;
    if (ir_cli_is_version(a)) return printf("ptoc %s (commit %s)\n", PTO_VERSION, PTO_COMMIT), 0;
    if (ir_comp_flag(&co, a)) continue;
    if (!strncmp(a, "--bugs=", 7)) bugs = a + 7;
    else if (!strcmp(a, "--emit=pto")) pto = true, pypto = false;
    else if (!strcmp(a, "--emit=pypto")) pypto = true, pto = false;
    else if (!strcmp(a, "--emit=ptk")) pto = pypto = false;
    else if (!strncmp(a, "--pypto=", 8) && a[8]) pypto_dir = a + 8;
    else if (ir_cli_int(a, "--max-mem=", 16, 1 << 24, &max_mem, &bad)) {
    }
    else if (!strncmp(a, "--print-after=", 14) && known_pass(a + 14, true)) o.print_after = a + 14;
    else if (!strncmp(a, "--stop-after=", 13) && known_pass(a + 13, false)) o.stop_after = a + 13;
    else if (a[0] == '-' || file) return ir_cli_fail(&cmd, "unknown or repeated argument '%s'", a), passes(stderr), 1;
    else file = a;
  }
  if (bad.arg) return ir_cli_fail(&cmd, "'%s': %s", bad.arg, bad.why);
  if (!file) return ir_cli_fail(&cmd, "no kernel FILE given"), passes(stderr), 1;
  if (!ir_bugs_option("ptoc", bugs, &co.bugs)) return 1;
  ir_mem_limit(max_mem);
  Comp c = {.A = ir_arena_new(), .o = co};
  if (!ir_read_file(c.A, file, &c.src)) {
    fprintf(stderr, "%s:0:0: error[E-IO]: cannot read the file [user]\n", file);
    ir_arena_free(c.A);
    return 1;
  }
  if ((pto || pypto) && (o.print_after || o.stop_after)) {
    fprintf(stderr, "ptoc: --emit=%s prints the whole pipeline's result; it takes no --print-after or --stop-after\n",
            pto ? "pto" : "pypto");
    ir_arena_free(c.A);
    return 1;
  }
  if (pypto) {                                  /* the front end only: the split is PyPTO's job */
    PyOpts po = {0};
    if (!pypto_dir) pypto_dir = getenv("PYPTO");
    if (pypto_dir && *pypto_dir && !ir_pypto_caps(pypto_dir, &po.caps)) {
      fprintf(stderr, "ptoc: no PyPTO at '%s' (expected %s/python/pypto/language/)\n", pypto_dir, pypto_dir);
      ir_arena_free(c.A);
      return 1;
    }
    Kernel *k = ir_front(&c);
    const char *text = NULL;
    if (k) {
      po.split = co.split >= 0 ? co.split : (int)k->split;
      po.target = co.target >= 0 ? (Target)co.target : k->target;
      text = ir_emit_pypto(&c, k, &po);
    }
    if (text) fputs(text, stdout);
    else ir_diag_print(stderr, &c.src, &c.diag);
    ir_arena_free(c.A);
    return text ? 0 : 1;
  }
  Kernel *k = pass_pipeline(&c, &o);
  if (k && pto) {
    PtoNames nm = {ir_fmt(c.A, "%s_aic", k->name), ir_fmt(c.A, "%s_aiv", k->name), NULL, NULL};
    const char *text = ir_emit_pto(&c, k, &nm);
    if (text) fputs(text, stdout);
    else k = NULL;
  }
  if (!k) ir_diag_print(stderr, &c.src, &c.diag);
  ir_arena_free(c.A);
  return k ? 0 : 1;
}

int main(int argc, char **argv) {
  char **args = ir_cli_args(&argc, argv, opts);   /* `--opt value` as `--opt=value` */
  int rc = ptoc(argc, args);
  ir_cli_free(args, argc);
  return rc;
}
