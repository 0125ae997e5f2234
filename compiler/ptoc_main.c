/* ptoc_main.c — the ptoc command: FILE -> diagnostics, or the IR printed
 * after the requested pass. Exit 0 ok, 1 usage or kernel error. */
#include "ptoc.h"
#include "pto_version.h"

#include <stdlib.h>
#include <string.h>

/* The usage text: on stderr for a usage error (exit 1), on stdout for --help (exit 0). */
static int usage_to(FILE *f, int rc) {
  fputs("usage: ptoc FILE [--split=none|up_down|left_right] [--target=a2a3|a5] [--unroll=auto|off]\n"
        "            [--print-after=PASS|all] [--stop-after=PASS] [--bugs=LIST|all] [--allow-mixed-modes]\n"
        "            [--emit=ptk|pto|pypto] [--pypto=DIR]\n"
        "              pto: the lowered program as PTO-AS text for ptoas\n"
        "              pypto: the kernel (front end only, no split applied) as a PyPTO program for the\n"
        "                     split and target asked for; DIR (else $PYPTO) is the PyPTO tree whose\n"
        "                     features it may use (default: b25b25a4a's, no optional ones)\n"
        "       ptoc --help | --version\n"
        "passes:", f);
  for (int i = 0; ir_pass_names[i]; i++) fprintf(f, " %s", ir_pass_names[i]);
  fputc('\n', f);
  return rc;
}
static int usage(void) { return usage_to(stderr, 1); }

static bool known_pass(const char *p, bool all_ok) {
  if (all_ok && !strcmp(p, "all")) return true;
  for (int i = 0; ir_pass_names[i]; i++)
    if (!strcmp(ir_pass_names[i], p)) return true;
  return false;
}

int main(int argc, char **argv) {
  const char *file = NULL;
  PipeOpts o = {.out = stdout};
  CompOpts co = {.split = -1, .target = -1};
  const char *bugs = NULL;
  bool pto = false, pypto = false;
  const char *pypto_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage_to(stdout, 0);
    if (!strcmp(a, "--version")) return printf("ptoc %s (commit %s)\n", PTO_VERSION, PTO_COMMIT), 0;
    if (ir_comp_flag(&co, a)) continue;
    if (!strncmp(a, "--bugs=", 7)) bugs = a + 7;
    else if (!strcmp(a, "--emit=pto")) pto = true, pypto = false;
    else if (!strcmp(a, "--emit=pypto")) pypto = true, pto = false;
    else if (!strcmp(a, "--emit=ptk")) pto = pypto = false;
    else if (!strncmp(a, "--pypto=", 8) && a[8]) pypto_dir = a + 8;
    else if (!strncmp(a, "--print-after=", 14) && known_pass(a + 14, true)) o.print_after = a + 14;
    else if (!strncmp(a, "--stop-after=", 13) && known_pass(a + 13, false)) o.stop_after = a + 13;
    else if (a[0] == '-' || file) {
      fprintf(stderr, "ptoc: unknown or repeated argument '%s'\n", a);
      return usage();
    } else file = a;
  }
  if (!file) {
    fputs("ptoc: no kernel FILE given\n", stderr);
    return usage();
  }
  if (!ir_bugs_option("ptoc", bugs, &co.bugs)) return 1;
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
