/* target_ptk.c — a libFuzzer target on kernel text. Consumes the fuzzer's
 * bytes as a .ptk source (at most PTK_MAX bytes; longer inputs are cut) and
 * produces nothing but its side effects on the tools: the front end (lexer,
 * parser, typechecker, flatten), the golden run under a step budget, and for
 * each target and split mode the whole pass pipeline and the PTO-AS printer
 * (`ptoc --emit=pto`). A diagnostic, user or unsupported, is an ordinary
 * outcome; an abort (a broken invariant, `die`), a sanitizer report, a leak or
 * a timeout is the finding. The dictionary is fuzz/ptk.dict
 * (scripts/ptk-dict.sh writes it from the op table and the reserved words).
 * With PTO_STDIN_MAIN it reads one input from stdin instead (a replay). */
#include "ptoc.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { PTK_MAX = 1 << 16, PTK_STEPS = 1 << 20 };

static void compile_variant(const Kernel *front, const Src *src, int split, int target) {
  Comp c = {.A = ir_arena_new(), .src = *src, .o = {.split = split, .target = target}};
  Kernel *k = pass_pipeline_from(&c, front, &(PipeOpts){0});
  if (k) {
    PtoNames nm = {"k_aic", "k_aiv", NULL, NULL};
    (void)ir_emit_pto(&c, k, &nm);
  }
  ir_arena_free(c.A);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > PTK_MAX) size = PTK_MAX;
  char *text = malloc(size + 1);
  if (!text) abort();
  memcpy(text, data, size);
  text[size] = '\0';
  Src src = {"fuzz.ptk", text, size};
  Comp c = {.A = ir_arena_new(), .src = src, .o = {.split = -1, .target = -1}};
  Kernel *k = ir_front(&c);
  if (k) {
    Sim *s = sim_new(k, &(SimOpts){.seed = 1, .max_steps = PTK_STEPS});
    (void)sim_run_reference(s);
    sim_free(s);
    /* the kernel's own split is one of these three: compiling it as well would repeat one */
    static const int splits[] = {MODE_NONE, MODE_UD, MODE_LR};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++)
      for (int target = TGT_A2A3; target <= TGT_A5; target++) compile_variant(k, &src, splits[i], target);
  }
  ir_arena_free(c.A);
  free(text);
  return 0;
}

#ifdef PTO_STDIN_MAIN
int main(void) {
  static uint8_t buf[PTK_MAX];
  size_t n = fread(buf, 1, sizeof buf, stdin);
  return LLVMFuzzerTestOneInput(buf, n);
}
#endif
