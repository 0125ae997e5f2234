/* target.c — the coverage-guided entry point for libFuzzer and AFL++: the
 * fuzzer's bytes drive the generator through the byte choice source (an
 * exhausted or zero byte is the default choice, so every input is a small
 * valid kernel), and the kernel goes through the oracle. A finding prints the
 * kernel and the verdicts and aborts, so the fuzzer keeps the input;
 * `ptofuzz diff` on the printed kernel replays it. PTOFUZZ_BUGS switches on
 * injected defects. With PTO_STDIN_MAIN the same check reads one input from
 * stdin (for AFL++ and for replaying a saved input). */
#include "fz.h"
#include "orc.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void report(const char *text, const OrcResult *r) {
  fprintf(stderr, "ptofuzz: finding on a fuzzer input; the kernel:\n%s\n", text);
  for (int i = 0; i < r->n; i++) {
    char sig[200];
    orc_signature(&r->r[i], sig, sizeof sig);
    fprintf(stderr, "variant=%s schedule=%s outcome=%s signature=%s\n  # %s\n", orc_variants[r->r[i].variant],
            r->r[i].sched ? "random" : "rr", orc_outcome_name(r->r[i].out), sig, r->r[i].detail);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FzPolicy pol;
  fz_policy_default(&pol);
  FzSrc src;
  fz_src_bytes(&src, data, size);
  FzKernel *k = fz_generate(&pol, &src);
  size_t len;
  char *text = fz_emit(k, &len);
  fz_free(k);
  OrcOpts o = {.input_seed = 1, .sched_seed = 1};
  if (!ir_bugs_option("ptofuzz", NULL, &o.bugs)) exit(1);   /* PTOFUZZ_BUGS names an unknown defect */
  OrcResult res;
  orc_check(&(Src){"fuzz", text, len}, &o, &res);
  if (res.finding) {
    report(text, &res);
    abort();
  }
  free(text);
  return 0;
}

#ifdef PTO_STDIN_MAIN
int main(void) {
  static uint8_t buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf, stdin);
  return LLVMFuzzerTestOneInput(buf, n);
}
#endif
