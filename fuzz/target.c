/* target.c — the coverage-guided entry point for libFuzzer and AFL++.
 * Consumes one fuzzer input: its bytes drive the generator through the byte
 * choice source (an exhausted or zero byte is the default choice, so every
 * input is a small valid kernel). Produces nothing on a clean kernel; on a
 * finding, the kernel, its signatures, and an abort with one crash state per
 * signature.
 *
 * Signing. The kernel is checked as `ptofuzz diff` and `ptofuzz import` check
 * it (fz_verdict: input seed 0, random schedule seed 1 and always run,
 * first-bad-pass bisection), so the signatures are the ones `ptofuzz import`
 * records for this input and a campaign records for this kernel.
 *
 * Defects. An input that ends in a `#ptofuzz-bugs=LIST` line (fz_input_bugs)
 * is checked with those defects and its other bytes drive the generator; any
 * other input with PTOFUZZ_BUGS. Under libFuzzer the mutator
 * (LLVMFuzzerCustomMutator) mutates the generator's bytes and keeps the line,
 * writing it from PTOFUZZ_BUGS where an input has none, and while PTOFUZZ_BUGS
 * names a defect an input without the line is not checked (a seed of
 * corpus/bytes/ is checked once the mutator has named its defects): so every
 * crash file of a defect-switched libFuzzer says which defects were on, and
 * `ptofuzz import` signs it with them. AFL++ has no such mutator here: its
 * crash files carry no line, and import takes their defects from --bugs.
 *
 * Crash state. ClusterFuzz (and ClusterFuzzLite) deduplicate by crash type
 * and state: a glibc-style assertion line makes the type ASSERT and puts its
 * text, here the first signature of the kernel, at the top of the state; the
 * stack frames under it come from a fixed table of noinline functions, one per
 * finding kind (fz_found_miscompile, ...), called from
 * LLVMFuzzerTestOneInput. So two inputs share a crash state exactly when they
 * share a first signature, which is ptofuzz's own deduplication key
 * (docs/fuzzing.md, "Crash states"). A real crash of the compiler or the
 * simulator is left to the sanitizers and the fuzzer; `ptofuzz import` signs
 * it as a campaign does (crash|MODE|SIGNAL|-|-|-).
 *
 * Mains. Without PTO_STDIN_MAIN the file has no main: libFuzzer's, or that
 * of OSS-Fuzz's $LIB_FUZZING_ENGINE (.clusterfuzzlite/build.sh). With it,
 * under afl-clang-fast, an AFL++ persistent-mode main reading test cases from
 * shared memory (__AFL_FUZZ_TESTCASE_BUF, __AFL_LOOP; the buffer and loop
 * state are AFL++'s), which outside afl-fuzz reads one input from stdin; with
 * another compiler a main reading one input from stdin (replays). */
#include "fz.h"
#include "orc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One frame per finding kind: the assertion line, then abort. Each is its own
 * function (noinline; the empty asm keeps the compiler from folding them into
 * one), so the top of the stack under abort is fz_found_KIND, and the frame
 * under it LLVMFuzzerTestOneInput (symbolizers show inlined helpers as frames
 * of their own, so there are none in between). */
#define FZ_KINDS(X) X(reject) X(escape) X(hang) X(miscompile) X(crash) X(blowup) X(other)
#define FZ_FOUND(k)                                                                                          \
  static __attribute__((noinline)) _Noreturn void fz_found_##k(const char *sig) {                          \
    __asm__ volatile("" ::: "memory");                                                                       \
    fprintf(stderr, "ptofuzz-target: fuzz/target.c:%d: %s: Assertion `%s' failed.\n", __LINE__, __func__, sig); \
    fflush(stderr);                                                                                          \
    abort();                                                                                                 \
  }
FZ_KINDS(FZ_FOUND)
#undef FZ_FOUND

/* The defects of PTOFUZZ_BUGS; exits 1 when it names an unknown one. */
static uint32_t env_bugs(void) {
  uint32_t bugs = 0;
  if (!ir_bugs_option("ptofuzz", NULL, &bugs)) exit(1);
  return bugs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t bugs = env_bugs();
  FzInputBugs ib;
  char err[400];
  if (!fz_input_bugs(data, size, &ib, err, sizeof err)) return 0;   /* names a defect this build lacks */
#ifndef PTO_STDIN_MAIN
  if (!ib.named && bugs) return 0;             /* the mutator names the defects first (see the header) */
#endif
  if (ib.named) bugs = ib.bugs;
  FzPolicy pol;
  fz_policy_default(&pol);
  FzSrc src;
  fz_src_bytes(&src, data, ib.body);
  FzKernel *k = fz_generate(&pol, &src);
  size_t len;
  char *text = fz_emit(k, &len);
  fz_free(k);
  FzReplay r = {.name = "fuzz", .text = text, .len = len, .bugs = bugs, .input_seed = 0, .sched_seed = 1,
                .random_every = 0};
  FzVerdict v;
  fz_verdict(&r, &v);
  if (v.finding) {
    fprintf(stderr, "ptofuzz: finding on a fuzzer input (`ptofuzz import FILE` records it); the kernel:\n%s\n", text);
    for (int i = 0; i < v.n; i++) fprintf(stderr, "signature=%s\n", v.sig[i]);
    size_t n = strcspn(v.sig[0], "|");       /* the kind: the signature's first field */
#define FZ_KIND(k) \
    if (n == strlen(#k) && !strncmp(v.sig[0], #k, n)) fz_found_##k(v.sig[0]);
    FZ_KINDS(FZ_KIND)
#undef FZ_KIND
    fz_found_other(v.sig[0]);
  }
  free(text);
  return 0;
}

#ifndef PTO_STDIN_MAIN
/* libFuzzer's own mutations; weak, so a driver without them (AFL++'s) still links. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);

/* Mutate the generator's bytes, keep (or add, from PTOFUZZ_BUGS) the defects line. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed) {
  (void)seed;
  uint32_t bugs = env_bugs();
  FzInputBugs ib;
  if (!fz_input_bugs(data, size, &ib, NULL, 0)) ib = (FzInputBugs){.body = size};   /* an unknown name: bytes */
  if (!ib.named && !bugs) return LLVMFuzzerMutate ? LLVMFuzzerMutate(data, size, max) : size;
  if (!ib.named) {                              /* first the input as it is, with its defects named */
    size_t n = fz_input_name_bugs(data, size, max, bugs);
    return n ? n : size;
  }
  size_t line = size - ib.body;
  if (line >= max) return size;
  uint8_t keep[1100];
  if (line > sizeof keep) return size;
  memcpy(keep, data + ib.body, line);
  size_t body = LLVMFuzzerMutate ? LLVMFuzzerMutate(data, ib.body, max - line) : ib.body;
  memcpy(data + body, keep, line);
  return body + line;
}
#endif

#if defined(PTO_STDIN_MAIN) && defined(__AFL_FUZZ_TESTCASE_LEN)
__AFL_FUZZ_INIT();
int main(void) {
  __AFL_INIT();
  const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(1000)) LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
  return 0;
}
#elif defined(PTO_STDIN_MAIN)
int main(void) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  if (!buf) return 2;
  for (ssize_t r; (r = read(0, buf + n, cap - n)) > 0;)
    if ((n += (size_t)r) == cap && !(buf = realloc(buf, cap *= 2))) return 2;
  int rc = LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return rc;
}
#endif
