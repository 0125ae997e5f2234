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
 * records for this input and a campaign records for this kernel. Defects
 * come from PTOFUZZ_BUGS.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t bugs = 0;
  if (!ir_bugs_option("ptofuzz", NULL, &bugs)) exit(1);   /* PTOFUZZ_BUGS names an unknown defect */
  FzPolicy pol;
  fz_policy_default(&pol);
  FzSrc src;
  fz_src_bytes(&src, data, size);
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
