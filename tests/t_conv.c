/* t_conv.c — the simulator's conversion and rounding primitives against
 * computations written apart from them, over every input of each (no domain
 * is larger than 2^32):
 *   sim/f16.c     sim_f32_to_f16, sim_round_f16, sim_f16_to_f32 (f16x-*),
 *                 sim_f32_to_bf16, sim_round_bf16, sim_bf16_to_f32 (bf16-*),
 *                 sim_round_plain (f16x-1.4, bf16-1.4),
 *                 sim_enc / sim_dec of every dtype and the canaries (enc-*);
 *   sim/interp.c  sim_convert, the cast op, for every (from, to) pair over
 *                 every value of `from` (cast-*). It rounds with the same
 *                 rnd() and wraps with the same wrap() as the arithmetic's
 *                 f16/bf16 and i8/i16 results.
 * The references: every 16-bit pattern's exact value is m * 2^e (ldexp), and
 * rounding to nearest is a comparison with neighbours: the positive finite
 * values of f16 or bf16 in pattern order increase, so an f32 magnitude
 * rounds to the pattern k whose midpoints with its neighbours, (v[k-1] +
 * v[k]) / 2 and (v[k] + v[k+1]) / 2 (computed in double, exact in f32),
 * enclose it; on a midpoint, to the neighbour with the even pattern; past
 * the largest finite value the next neighbour is infinity (2^16 for f16,
 * 2^128 for bf16). NaNs follow the documented rule: quiet, the sign and the
 * payload's top bits kept. An i32 rounds to f32 from its leading 24 bits and
 * the dropped ones; truncation toward zero reads the f32 fields; wrapping
 * sign-extends the low bits by xor and subtraction.
 * The two 2^32 domains run in chunks, one worker thread per CPU (at most 8);
 * a sanitizer build visits one input in 1021 of them and reports those ids
 * as skipped, saying so. */
#include "sim.h"
#include "tap.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
/* Over a 2^32 domain, one input in STRIDE unless PTO_EXHAUSTIVE=1 (every
 * input: about 200 s of CPU; `make test` keeps to one in 13). */
#define STRIDE (T->stride)

static uint32_t fbits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
static float ffrom(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static uint32_t ebits(Elem e) {
  uint32_t x;
  memcpy(&x, &e, 4);
  return x;
}
static Elem ef(uint32_t x) {
  Elem e;
  memcpy(&e, &x, 4);
  return e;
}

/* ---- references ------------------------------------------------------------------- */

/* Per 16-bit format: every pattern's exact value as f32 bits (infinities
 * and NaNs with the payload in place), and mid[k], the f32 magnitude bits of
 * the midpoint between positive patterns k and k + 1 (k + 1 = infinity
 * standing for the next power of two), UINT32_MAX at infinity itself. */
enum { INF16 = 0x7c00, INFBF = 0x7f80 };
typedef struct {
  uint32_t w16[65536], wbf[65536];
  uint32_t m16[INF16 + 1], mbf[INFBF + 1];
  int stride;
} Tables;

/* The f32 bits of (w[k] + w[k + 1]) / 2, with beyond for w[k + 1] = w[inf]. */
static uint32_t midpoint(const uint32_t *w, uint32_t k, uint32_t inf, double beyond) {
  float a, b;
  memcpy(&a, &w[k], 4);
  memcpy(&b, &w[k + 1], 4);
  return fbits((float)(((double)a + (k + 1 < inf ? (double)b : beyond)) / 2));
}

static void tables(Tables *T) {
  for (uint32_t h = 0; h < 65536; h++) {
    uint32_t s = (h & 0x8000u) << 16, e = h >> 10 & 31, m = h & 0x3ff;
    T->w16[h] = s | (e == 31 ? 0x7f800000u | m << 13 : fbits((float)(e ? ldexp(1024 + m, (int)e - 25) : ldexp(m, -24))));
    e = h >> 7 & 0xff, m = h & 0x7f;
    T->wbf[h] = s | (e == 255 ? 0x7f800000u | m << 16 : fbits((float)(e ? ldexp(128 + m, (int)e - 134) : ldexp(m, -133))));
  }
  for (uint32_t k = 0; k < INF16; k++) T->m16[k] = midpoint(T->w16, k, INF16, 0x1p16);
  for (uint32_t k = 0; k < INFBF; k++) T->mbf[k] = midpoint(T->wbf, k, INFBF, 0x1p128);
  T->m16[INF16] = T->mbf[INFBF] = UINT32_MAX;
}

/* The pattern a finite f32 magnitude a rounds to: k moves up from a pattern
 * at or below the answer (a chunk of increasing magnitudes keeps it). */
static inline uint32_t nearest(const uint32_t *mid, uint32_t *k, uint32_t a) {
  while (a > mid[*k]) ++*k;
  return a == mid[*k] ? *k + (*k & 1) : *k;
}

/* The 16-bit pattern f32 bits x narrow to (inf: the format's infinity); the
 * search starts at the first midpoint not below |x| (binary search). */
static uint32_t narrow(const uint32_t *mid, uint32_t inf, uint32_t x) {
  uint32_t a = x & 0x7fffffffu, s = x >> 16 & 0x8000u, lo = 0, hi = inf;
  if (a > 0x7f800000u) return inf == INF16 ? s | 0x7e00u | (x >> 13 & 0x3ffu) : x >> 16 | 0x40u;
  if (a == 0x7f800000u) return s | inf;
  while (lo < hi) {
    uint32_t m = (lo + hi) / 2;
    if (mid[m] < a) lo = m + 1;
    else hi = m;
  }
  return s | nearest(mid, &lo, a);
}

/* |n| > 0 rounded to f32, as its bits: the leading 24 bits, to nearest even
 * by the bits dropped below them. */
static uint32_t i2f(uint32_t a) {
  int e = 31 - __builtin_clz(a), sh = e - 23;
  if (sh <= 0) return (uint32_t)(e + 127) << 23 | ((a << -sh) & 0x7fffffu);
  uint32_t r = a >> sh, rem = a & ((1u << sh) - 1), half = 1u << (sh - 1);
  r += rem > half || (rem == half && (r & 1));
  return ((uint32_t)(e + 127) << 23) + r - 0x800000u;   /* a carry to 2^24 moves into the exponent */
}

/* f32 bits truncated toward zero, saturated to i32; NaN gives 0. */
static int32_t trunc32(uint32_t x) {
  int E = (int)(x >> 23 & 0xffu), sh = E - 127 - 23;
  if (E == 0xff && (x & 0x7fffffu)) return 0;
  if (E < 127) return 0;
  if (E - 127 >= 31) return x >> 31 ? INT32_MIN : INT32_MAX;   /* inf too */
  uint32_t m = (x & 0x7fffffu) | 0x800000u, v = sh >= 0 ? m << sh : m >> -sh;
  return x >> 31 ? (int32_t)(0u - v) : (int32_t)v;
}
static int32_t clampw(int32_t v, int w) {      /* to a w-bit integer's range */
  int32_t hi = (int32_t)((1u << (w - 1)) - 1);
  return v > hi ? hi : v < -hi - 1 ? -hi - 1 : v;
}

/* The low w bits of x as a signed w-bit integer. */
static int32_t sext(uint32_t x, int w) {
  uint32_t m = 1u << (w - 1);
  return (int32_t)((x & (2 * m - 1)) ^ m) - (int32_t)m;
}

/* ---- checks -------------------------------------------------------------------------- */

typedef struct {
  const char *id, *what;
  bool big;                                     /* over a 2^32 domain (strided in a sanitizer build) */
  uint64_t bad;
  uint32_t in, got, want;                       /* the smallest failing input */
} Chk;

static __attribute__((noinline, cold)) void fail(Chk *c, uint32_t in, uint32_t got, uint32_t want) {
  if (!c->bad++ || in < c->in) c->in = in, c->got = got, c->want = want;
}
static inline void chk(Chk *c, uint32_t in, uint32_t got, uint32_t want) {
  if (got != want) fail(c, in, got, want);
}

enum {
  C_F16N, C_F16R, C_F16W, C_BFN, C_BFR, C_BFW, C_F16P, C_BFP,
  C_ENC_F32, C_DEC_F32, C_ENC_I32, C_DEC_I32, C_ENC_F16, C_DEC_F16, C_ENC_BF16, C_DEC_BF16,
  C_ENC_I8, C_DEC_I8, C_ENC_I16, C_DEC_I16, C_CANARY,
  C_CAST,                                       /* + from * DT_N + to */
  C_N = C_CAST + DT_N * DT_N
};
#define CAST(f, t) (C_CAST + (f) * DT_N + (t))

static const char *const dname[DT_N] = {"f32", "f16", "i32", "bf16", "i8", "i16"};
static const char *const domain[DT_N] = {"2^32", "2^16", "2^32", "2^16", "2^8", "2^16"};
static bool isint(Dtype d) { return d == DT_I32 || d == DT_I8 || d == DT_I16; }

/* What cast from -> to does (language.md 9.4), for the description. */
static const char *cast_rule(Dtype f, Dtype t) {
  if (f == t) return "a copy";
  if (isint(f) && isint(t)) return ir_dtype_bytes(t) < ir_dtype_bytes(f) ? "the low bits, sign-extended" : "the same value";
  if (isint(t)) return "truncated toward zero, saturated, NaN 0";
  if (f == DT_I32) return t == DT_F32 ? "rounded to nearest even" : "rounded to f32, then to nearest even";
  if (isint(f)) return "exact, then rounded once";
  if (t == DT_F32) return "exact";
  return "rounded to nearest even, NaN quiet";
}

/* The expected cast to dtype t of x, a from element as the simulator holds
 * it (a float's f32 bits, an integer sign-extended). */
static uint32_t want_cast(const Tables *T, Dtype from, Dtype t, uint32_t x) {
  if (from == t) return x;
  if (isint(from)) {
    int32_t n = (int32_t)x;
    if (isint(t)) return t == DT_I32 ? x : (uint32_t)sext(x, 8 * ir_dtype_bytes(t));
    uint32_t f = n ? (n < 0 ? 0x80000000u : 0) | i2f(n < 0 ? 0u - x : x) : 0;
    x = f;                                      /* then as from f32 */
  }
  if (isint(t)) return (uint32_t)clampw(trunc32(x), 8 * ir_dtype_bytes(t));
  if (t == DT_F32) return x;
  return t == DT_F16 ? T->w16[narrow(T->m16, INF16, x)] : T->wbf[narrow(T->mbf, INFBF, x)];
}

/* Each check runs over a block of inputs at a time (a tight loop per
 * primitive), after the block's expected values. */
enum { BLK = 1024 };
#define EACH(K, GOT, WANT)                                                   \
  for (int j = 0; j < n; j++) {                                              \
    uint32_t x = xs[j];                                                      \
    float f = ffrom(x);                                                      \
    Elem e = ef(x);                                                          \
    (void)f, (void)e;                                                        \
    chk(&c[K], x, GOT, WANT);                                                \
  }

/* The f32 patterns [lo, hi), one sign: the narrowing and rounding to f16 and
 * bf16, the f32 and i32 storage, and every cast from f32. */
static void f32_range(const Tables *T, Chk *c, uint64_t lo, uint64_t hi) {
  uint32_t k16 = 0, kbf = 0, xs[BLK], h[BLK], b[BLK];
  int32_t tr[BLK];
  for (uint64_t i = lo; i < hi;) {
    int n = 0;
    for (; i < hi && n < BLK; i += STRIDE, n++) {
      uint32_t x = (uint32_t)i, a = x & 0x7fffffffu, s16 = x >> 16 & 0x8000u;
      xs[n] = x;
      if (a < 0x7f800000u) h[n] = s16 | nearest(T->m16, &k16, a), b[n] = s16 | nearest(T->mbf, &kbf, a);
      else h[n] = narrow(T->m16, INF16, x), b[n] = narrow(T->mbf, INFBF, x);
      tr[n] = trunc32(x);
    }
    EACH(C_F16N, sim_f32_to_f16(f), h[j]);
    EACH(C_F16R, fbits(sim_round_f16(f)), T->w16[h[j]]);
    EACH(C_ENC_F16, sim_enc(DT_F16, e), h[j]);
    EACH(C_BFN, sim_f32_to_bf16(f), b[j]);
    EACH(C_BFR, fbits(sim_round_bf16(f)), T->wbf[b[j]]);
    EACH(C_F16P, fbits(sim_round_plain(f, true)), isnan(f) ? x : T->w16[h[j]]);
    EACH(C_BFP, fbits(sim_round_plain(f, false)), isnan(f) ? x : T->wbf[b[j]]);
    EACH(C_ENC_BF16, sim_enc(DT_BF16, e), b[j]);
    EACH(C_ENC_F32, sim_enc(DT_F32, e), x);
    EACH(C_DEC_F32, ebits(sim_dec(DT_F32, x)), x);
    EACH(C_ENC_I32, sim_enc(DT_I32, e), x);
    EACH(C_DEC_I32, ebits(sim_dec(DT_I32, x)), x);
    EACH(CAST(DT_F32, DT_F32), ebits(sim_convert(DT_F32, DT_F32, e)), x);
    EACH(CAST(DT_F32, DT_F16), ebits(sim_convert(DT_F32, DT_F16, e)), T->w16[h[j]]);
    EACH(CAST(DT_F32, DT_BF16), ebits(sim_convert(DT_F32, DT_BF16, e)), T->wbf[b[j]]);
    EACH(CAST(DT_F32, DT_I32), ebits(sim_convert(DT_F32, DT_I32, e)), (uint32_t)tr[j]);
    EACH(CAST(DT_F32, DT_I16), ebits(sim_convert(DT_F32, DT_I16, e)), (uint32_t)clampw(tr[j], 16));
    EACH(CAST(DT_F32, DT_I8), ebits(sim_convert(DT_F32, DT_I8, e)), (uint32_t)clampw(tr[j], 8));
  }
}

/* The i32 values with patterns [lo, hi), one sign, in order of magnitude:
 * every cast from i32, the narrow integers' packing. */
static void i32_range(const Tables *T, Chk *c, uint64_t lo, uint64_t hi) {
  uint32_t k16 = 0, kbf = 0, neg = lo >> 31 ? 0x80000000u : 0, xs[BLK], fl[BLK], h[BLK], b[BLK];
  int64_t step = neg ? -STRIDE : STRIDE;
  for (int64_t i = neg ? (int64_t)hi - 1 : (int64_t)lo; i >= (int64_t)lo && i < (int64_t)hi;) {
    int n = 0;
    for (; i >= (int64_t)lo && i < (int64_t)hi && n < BLK; i += step, n++) {
      uint32_t x = (uint32_t)i, a = neg ? 0u - x : x, m = a ? i2f(a) : 0, s16 = neg >> 16;
      xs[n] = x;
      fl[n] = a ? neg | m : 0;
      h[n] = a ? T->w16[s16 | nearest(T->m16, &k16, m)] : 0;
      b[n] = a ? T->wbf[s16 | nearest(T->mbf, &kbf, m)] : 0;
    }
    EACH(CAST(DT_I32, DT_F32), ebits(sim_convert(DT_I32, DT_F32, e)), fl[j]);
    EACH(CAST(DT_I32, DT_F16), ebits(sim_convert(DT_I32, DT_F16, e)), h[j]);
    EACH(CAST(DT_I32, DT_BF16), ebits(sim_convert(DT_I32, DT_BF16, e)), b[j]);
    EACH(CAST(DT_I32, DT_I32), ebits(sim_convert(DT_I32, DT_I32, e)), x);
    EACH(CAST(DT_I32, DT_I16), ebits(sim_convert(DT_I32, DT_I16, e)), (uint32_t)sext(x, 16));
    EACH(CAST(DT_I32, DT_I8), ebits(sim_convert(DT_I32, DT_I8, e)), (uint32_t)sext(x, 8));
    EACH(C_ENC_I16, sim_enc(DT_I16, e), x & 0xffffu);
    EACH(C_ENC_I8, sim_enc(DT_I8, e), x & 0xffu);
  }
}
#undef EACH

/* Every 16- and 8-bit pattern: widening, unpacking, and the casts from f16,
 * bf16, i16 and i8 (their elements as the simulator holds them: floats
 * widened to f32, integers sign-extended). */
static void small_domains(const Tables *T, Chk *c) {
  static const Dtype small[] = {DT_F16, DT_BF16, DT_I16, DT_I8};
  for (uint32_t h = 0; h < 65536; h++) {
    chk(&c[C_F16W], h, fbits(sim_f16_to_f32((uint16_t)h)), T->w16[h]);
    chk(&c[C_BFW], h, fbits(sim_bf16_to_f32((uint16_t)h)), T->wbf[h]);
    chk(&c[C_DEC_F16], h, ebits(sim_dec(DT_F16, h)), T->w16[h]);
    chk(&c[C_DEC_BF16], h, ebits(sim_dec(DT_BF16, h)), T->wbf[h]);
    chk(&c[C_DEC_I16], h, ebits(sim_dec(DT_I16, h)), (uint32_t)sext(h, 16));
    if (h < 256) chk(&c[C_DEC_I8], h, ebits(sim_dec(DT_I8, h)), (uint32_t)sext(h, 8));
    for (int k = 0; k < 4; k++) {
      Dtype f = small[k];
      if (f == DT_I8 && h >= 256) continue;
      uint32_t x = f == DT_F16 ? T->w16[h] : f == DT_BF16 ? T->wbf[h] : (uint32_t)sext(h, f == DT_I16 ? 16 : 8);
      for (int t = 0; t < DT_N; t++)
        chk(&c[CAST(f, t)], x, ebits(sim_convert(f, (Dtype)t, ef(x))), want_cast(T, f, (Dtype)t, x));
    }
  }
}

/* The output canaries: each fits its dtype, a float dtype's is a quiet NaN,
 * and each comes back unchanged from a load and a store (sim_dec, sim_enc). */
static void canaries(const Tables *T, Chk *c) {
  for (int d = 0; d < DT_N; d++) {
    uint32_t k = sim_canary((Dtype)d);
    int nb = ir_dtype_bytes((Dtype)d);
    bool ok = nb == 4 || k >> 8 * nb == 0;
    uint32_t w = d == DT_F32 ? k : d == DT_F16 ? T->w16[k & 0xffff] : d == DT_BF16 ? T->wbf[k & 0xffff] : 0;
    if (!isint((Dtype)d)) ok &= (w & 0x7fc00000u) == 0x7fc00000u;
    chk(&c[C_CANARY], (uint32_t)d, ok, 1);
    chk(&c[C_CANARY], (uint32_t)d, sim_enc((Dtype)d, sim_dec((Dtype)d, k)), k);
  }
}

/* The two 2^32 domains in chunks of one sign, taken in order by worker
 * threads, each with its own checks, merged at the end. */
enum { NCHUNK = 256, MAXW = 8 };
typedef struct {
  const Tables *T;
  atomic_int *next;
  Chk c[C_N];
} Worker;

static void *work(void *arg) {
  Worker *w = arg;
  for (int k; (k = atomic_fetch_add(w->next, 1)) < 2 * NCHUNK;) {
    uint64_t lo = ((uint64_t)(k % NCHUNK) << 32) / NCHUNK, hi = lo + (1ull << 32) / NCHUNK;
    if (k < NCHUNK) f32_range(w->T, w->c, lo, hi);
    else i32_range(w->T, w->c, lo, hi);
  }
  return NULL;
}

static void big_domains(const Tables *T, Chk *c) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  int nw = n < 1 ? 1 : n > MAXW ? MAXW : (int)n;
  atomic_int next = 0;
  Worker *w = calloc((size_t)nw, sizeof *w);
  pthread_t th[MAXW];
  if (!w) exit(1);
  for (int i = 0; i < nw; i++) w[i].T = T, w[i].next = &next;
  for (int i = 1; i < nw; i++)                  /* worker 0 is this thread */
    if (pthread_create(&th[i], NULL, work, &w[i])) nw = i;   /* the others take its chunks */
  work(&w[0]);
  for (int i = 1; i < nw; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < nw; i++)
    for (int j = 0; j < C_N; j++) {
      const Chk *x = &w[i].c[j];
      if (x->bad && (!c[j].bad || x->in < c[j].in)) c[j].in = x->in, c[j].got = x->got, c[j].want = x->want;
      c[j].bad += x->bad;
    }
  free(w);
}

static double now(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void) {
  Tap t = {0};
  Tables *T = malloc(sizeof *T);
  if (!T) return 1;
  tables(T);
  const char *ex = getenv("PTO_EXHAUSTIVE");
  T->stride = ex && !strcmp(ex, "1") ? 1 : SANITIZED ? 1021 : 13;
  Chk c[C_N] = {
      [C_F16N] = {.id = "f16x-1.1", .big = true,
                  .what = "sim_f32_to_f16: every f32 pattern rounds to the nearest f16 (ties to even, +-inf from "
                          "65520, subnormals, signed zero; NaN quiet, sign and top payload bits kept)"},
      [C_F16R] = {.id = "f16x-1.2", .big = true, .what = "sim_round_f16: every f32 pattern gives the value of f16x-1.1"},
      [C_F16W] = {.id = "f16x-1.3", .what = "sim_f16_to_f32: every f16 pattern widens to its exact value (NaN payload "
                                            "in place)"},
      [C_BFN] = {.id = "bf16-1.1", .big = true,
                 .what = "sim_f32_to_bf16: every f32 pattern rounds to the nearest bf16 (ties to even, +-inf from "
                         "the midpoint past the largest finite, subnormals, signed zero; NaN quiet, sign and top "
                         "payload bits kept)"},
      [C_BFR] = {.id = "bf16-1.2", .big = true, .what = "sim_round_bf16: every f32 pattern gives the value of bf16-1.1"},
      [C_F16P] = {.id = "f16x-1.4", .big = true, .what = "sim_round_plain f16 (the run-time check of every "
                                                        "rounding): every f32 pattern gives the value of f16x-1.1, a NaN itself"},
      [C_BFP] = {.id = "bf16-1.4", .big = true, .what = "sim_round_plain bf16: every f32 pattern gives the value of "
                                                       "bf16-1.1, a NaN itself"},
      [C_BFW] = {.id = "bf16-1.3", .what = "sim_bf16_to_f32: every bf16 pattern widens to its exact value (NaN payload "
                                           "in place)"},
      [C_ENC_F32] = {.id = "enc-1.1", .big = true, .what = "sim_enc f32: every pattern is stored as it is"},
      [C_DEC_F32] = {.id = "enc-1.2", .big = true, .what = "sim_dec f32: every pattern is loaded as it is"},
      [C_ENC_I32] = {.id = "enc-1.3", .big = true, .what = "sim_enc i32: every value is stored as it is"},
      [C_DEC_I32] = {.id = "enc-1.4", .big = true, .what = "sim_dec i32: every pattern is loaded as it is"},
      [C_ENC_F16] = {.id = "enc-1.5", .big = true, .what = "sim_enc f16: every f32 pattern packs to the f16 of f16x-1.1"},
      [C_DEC_F16] = {.id = "enc-1.6", .what = "sim_dec f16: every f16 pattern unpacks to its exact value"},
      [C_ENC_BF16] = {.id = "enc-1.7", .big = true, .what = "sim_enc bf16: every f32 pattern packs to the bf16 of bf16-1.1"},
      [C_DEC_BF16] = {.id = "enc-1.8", .what = "sim_dec bf16: every bf16 pattern unpacks to its exact value"},
      [C_ENC_I8] = {.id = "enc-1.9", .big = true, .what = "sim_enc i8: every i32 value packs to its low 8 bits"},
      [C_DEC_I8] = {.id = "enc-1.10", .what = "sim_dec i8: every 8-bit pattern unpacks sign-extended"},
      [C_ENC_I16] = {.id = "enc-1.11", .big = true, .what = "sim_enc i16: every i32 value packs to its low 16 bits"},
      [C_DEC_I16] = {.id = "enc-1.12", .what = "sim_dec i16: every 16-bit pattern unpacks sign-extended"},
      [C_CANARY] = {.id = "enc-1.13", .what = "every dtype's canary fits the dtype, is a quiet NaN for a float, and "
                                              "survives sim_dec then sim_enc"},
  };
  char ids[DT_N * DT_N][16], whats[DT_N * DT_N][120];
  for (int f = 0; f < DT_N; f++)
    for (int d = 0; d < DT_N; d++) {
      int i = f * DT_N + d;
      snprintf(ids[i], sizeof ids[i], "cast-1.%d", i + 1);
      snprintf(whats[i], sizeof whats[i], "sim_convert %s -> %s: every %s value (%s) is %s", dname[f], dname[d],
               dname[f], domain[f], cast_rule((Dtype)f, (Dtype)d));
      c[C_CAST + i] = (Chk){.id = ids[i], .what = whats[i], .big = f == DT_F32 || f == DT_I32};
    }

  small_domains(T, c);
  canaries(T, c);
  double t0 = now(CLOCK_MONOTONIC), u0 = now(CLOCK_PROCESS_CPUTIME_ID);
  big_domains(T, c);
  tap_diag("every f32 pattern and i32 value%s: %.1f s, %.1f s of CPU", STRIDE > 1 ? " (strided)" : "",
           now(CLOCK_MONOTONIC) - t0, now(CLOCK_PROCESS_CPUTIME_ID) - u0);

  for (int i = 0; i < C_N; i++) {
    Chk *k = &c[i];
    if (k->big && STRIDE > 1 && !k->bad) {      /* passed on the strided inputs only */
      printf("ok %d - %s %s # SKIP the exhaustive 2^32 loop runs with PTO_EXHAUSTIVE=1: one input in %d checked\n", ++t.n, k->id,
             k->what, STRIDE);
      continue;
    }
    if (!tap_ok(&t, !k->bad, k->id, "%s", k->what))
      tap_diag("%llu inputs fail, e.g. 0x%08x gives 0x%08x, expected 0x%08x", (unsigned long long)k->bad, k->in, k->got,
               k->want);
  }
  free(T);
  return tap_done(&t);
}
