/* t_f16.c — unit tests of the element storage in sim/f16.c:
 * sim_f32_to_f16 (round to nearest, ties to even, overflow to infinity,
 * subnormals kept, NaN stays NaN), sim_f16_to_f32 (exact) and sim_round_f16;
 * the same for bfloat16 (f16-2.*) and the narrow integers' packing (f16-3.*).
 * Every expected value is written down by hand from the formats: binary16 has
 * 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits; bfloat16 is the top
 * half of an f32 (8 exponent bits, 7 mantissa bits). */
#include "sim.h"
#include "tap.h"

#include <math.h>
#include <string.h>

static uint32_t bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  return x;
}
static float from_bits(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static bool f16_isnan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }

/* f32 -> f16 gives the pattern `want`. */
static void to16(Tap *t, const char *id, const char *what, float f, uint16_t want) {
  uint16_t got = sim_f32_to_f16(f);
  if (!tap_ok(t, got == want, id, "%s", what)) tap_diag("f32 0x%08x -> 0x%04x, expected 0x%04x", bits(f), got, want);
}

/* f16 -> f32 gives exactly the f32 bit pattern `want`. */
static void to32(Tap *t, const char *id, const char *what, uint16_t h, uint32_t want) {
  uint32_t got = bits(sim_f16_to_f32(h));
  if (!tap_ok(t, got == want, id, "%s", what)) tap_diag("f16 0x%04x -> f32 0x%08x, expected 0x%08x", h, got, want);
}

/* f32 bits -> bf16 gives the pattern `want`. */
static void tobf(Tap *t, const char *id, const char *what, uint32_t f, uint16_t want) {
  uint16_t got = sim_f32_to_bf16(from_bits(f));
  if (!tap_ok(t, got == want, id, "%s", what)) tap_diag("f32 0x%08x -> 0x%04x, expected 0x%04x", f, got, want);
}

static void bf16_cases(Tap *t) {
  tobf(t, "f16-2.1", "1.0 is 0x3f80", 0x3f800000u, 0x3f80);
  tobf(t, "f16-2.2", "1 + 2^-8 is a tie between 0x3f80 and 0x3f81: down to even", 0x3f808000u, 0x3f80);
  tobf(t, "f16-2.3", "1 + 3*2^-8 is a tie between 0x3f81 and 0x3f82: up to even", 0x3f818000u, 0x3f82);
  tobf(t, "f16-2.4", "just above the tie rounds up", 0x3f808001u, 0x3f81);
  tobf(t, "f16-2.5", "just below the tie rounds down", 0x3f807fffu, 0x3f80);
  tobf(t, "f16-2.6", "0.1f rounds to 0x3dcd", 0x3dcccccdu, 0x3dcd);
  tobf(t, "f16-2.7", "the largest finite f32 rounds up to +inf", 0x7f7fffffu, 0x7f80);
  tobf(t, "f16-2.8", "the largest finite bf16 below the midpoint stays 0x7f7f", 0x7f7f7fffu, 0x7f7f);
  tobf(t, "f16-2.9", "-inf stays -inf", 0xff800000u, 0xff80);
  tobf(t, "f16-2.10", "a quiet NaN stays a quiet NaN 0x7fc0", 0x7fc00000u, 0x7fc0);
  tobf(t, "f16-2.11", "a signalling NaN whose payload is all below bf16 stays NaN (quiet) 0x7fc0", 0x7f800001u, 0x7fc0);
  tobf(t, "f16-2.12", "a negative NaN keeps its sign and payload top bits", 0xffa00000u, 0xffe0);
  tobf(t, "f16-2.13", "the smallest f32 subnormal rounds to +0", 0x00000001u, 0x0000);
  tobf(t, "f16-2.14", "-0 stays -0", 0x80000000u, 0x8000);
  tobf(t, "f16-2.15", "a subnormal tie rounds to even", 0x00018000u, 0x0002);
  tap_ok(t, bits(sim_bf16_to_f32(0x4049)) == 0x40490000u, "f16-2.16", "0x4049 widens to 3.140625 exactly");
  tap_ok(t, bits(sim_round_bf16(3.14159265f)) == 0x40490000u, "f16-2.17", "round_bf16(pi) = 3.140625");
  int bad = -1;
  for (uint32_t h = 0; h < 0x10000u; h++) {     /* every pattern round-trips; NaNs stay NaNs of their sign */
    uint16_t x = (uint16_t)h, y = sim_f32_to_bf16(sim_bf16_to_f32(x));
    bool nan = (x & 0x7f80u) == 0x7f80u && (x & 0x7fu);
    if (nan ? !((y & 0x7f80u) == 0x7f80u && (y & 0x7fu) && (y & 0x8000u) == (x & 0x8000u)) : y != x) bad = (int)h;
  }
  if (!tap_ok(t, bad < 0, "f16-2.18", "every bf16 pattern round-trips bf16 -> f32 -> bf16")) tap_diag("e.g. 0x%04x", bad);
}

/* sim_enc / sim_dec: the narrow integers keep their low bits and sign-extend. */
static void int_cases(Tap *t) {
  tap_ok(t, sim_enc(DT_I8, (Elem){.i = -1}) == 0xffu, "f16-3.1", "i8 -1 packs to 0xff");
  tap_ok(t, sim_dec(DT_I8, 0x80u).i == -128, "f16-3.2", "i8 0x80 unpacks to -128");
  tap_ok(t, sim_enc(DT_I16, (Elem){.i = -2}) == 0xfffeu, "f16-3.3", "i16 -2 packs to 0xfffe");
  tap_ok(t, sim_dec(DT_I16, 0x7fffu).i == 32767, "f16-3.4", "i16 0x7fff unpacks to 32767");
  tap_ok(t, sim_dec(DT_BF16, sim_canary(DT_BF16)).f != sim_dec(DT_BF16, sim_canary(DT_BF16)).f, "f16-3.5",
         "the bf16 canary is a NaN");
  tap_ok(t, sim_enc(DT_BF16, (Elem){.f = 1.5f}) == 0x3fc0u, "f16-3.6", "bf16 1.5 packs to 0x3fc0");
}

int main(void) {
  Tap t = {0};
  float p24 = ldexpf(1, -24), p25 = ldexpf(1, -25), p14 = ldexpf(1, -14);

  /* ---- exact values ------------------------------------------------------------ */
  to16(&t, "f16-1.1", "1.0 is 0x3c00", 1.0f, 0x3c00);
  to16(&t, "f16-1.2", "-2.0 is 0xc000", -2.0f, 0xc000);
  to16(&t, "f16-1.3", "0.333251953125 (1/3 in f16) is exact: 0x3555", 0.333251953125f, 0x3555);
  to32(&t, "f16-1.4", "0x3555 widens to 0.333251953125 exactly", 0x3555, bits(0.333251953125f));
  to16(&t, "f16-1.5", "0.1f rounds to 0x2e66", 0.1f, 0x2e66);
  /* ---- ties to even ------------------------------------------------------------ */
  to16(&t, "f16-1.6", "1 + 2^-11 is a tie between 0x3c00 and 0x3c01: down to even 0x3c00", 1.00048828125f, 0x3c00);
  to16(&t, "f16-1.7", "1 + 3*2^-11 is a tie between 0x3c01 and 0x3c02: up to even 0x3c02", 1.00146484375f, 0x3c02);
  to16(&t, "f16-1.8", "2049 ties down to 2048 (0x6800)", 2049.0f, 0x6800);
  to16(&t, "f16-1.9", "2051 ties up to 2052 (0x6802)", 2051.0f, 0x6802);
  to16(&t, "f16-1.10", "1 + 2^-11 + 2^-23 is just above the tie: 0x3c01", 1.00048828125f + ldexpf(1, -23), 0x3c01);
  to16(&t, "f16-1.11", "2047.5 ties up with a carry into the exponent: 0x6800", 2047.5f, 0x6800);
  /* ---- largest finite and overflow -------------------------------------------- */
  to16(&t, "f16-1.12", "65504 is the largest finite: 0x7bff", 65504.0f, 0x7bff);
  to32(&t, "f16-1.13", "0x7bff widens to 65504", 0x7bff, bits(65504.0f));
  to16(&t, "f16-1.14", "65519.99 (below the 65520 midpoint) rounds to 65504", 65519.99f, 0x7bff);
  to16(&t, "f16-1.15", "65520 is the midpoint and rounds to +inf 0x7c00", 65520.0f, 0x7c00);
  to16(&t, "f16-1.16", "-65520 rounds to -inf 0xfc00", -65520.0f, 0xfc00);
  to16(&t, "f16-1.17", "-65519.99 rounds to -65504 0xfbff", -65519.99f, 0xfbff);
  to16(&t, "f16-1.18", "1e10 overflows to 0x7c00", 1e10f, 0x7c00);
  /* ---- subnormals and zeros ---------------------------------------------------- */
  to16(&t, "f16-1.19", "2^-24, the smallest subnormal, is 0x0001", p24, 0x0001);
  to32(&t, "f16-1.20", "0x0001 widens to 2^-24 (0x33800000)", 0x0001, 0x33800000u);
  to16(&t, "f16-1.21", "2^-25 is a tie between 0 and 2^-24: to even, +0", p25, 0x0000);
  to16(&t, "f16-1.22", "just above 2^-25 rounds up to 0x0001", nextafterf(p25, 1.0f), 0x0001);
  to16(&t, "f16-1.23", "3*2^-25 ties between 0x0001 and 0x0002: up to even 0x0002", 3 * p25, 0x0002);
  to16(&t, "f16-1.24", "-2^-25 rounds to negative zero 0x8000", -p25, 0x8000);
  to16(&t, "f16-1.25", "1023*2^-24, the largest subnormal, is 0x03ff", 1023 * p24, 0x03ff);
  to32(&t, "f16-1.26", "0x03ff widens to 1023*2^-24", 0x03ff, bits(1023 * p24));
  to16(&t, "f16-1.27", "1023.5*2^-24 ties up into the smallest normal 0x0400", 1023.5f * p24, 0x0400);
  to16(&t, "f16-1.28", "2^-14, the smallest normal, is 0x0400", p14, 0x0400);
  to16(&t, "f16-1.29", "an f32 subnormal (1e-40) flushes to +0", 1e-40f, 0x0000);
  to16(&t, "f16-1.30", "-0.0 is 0x8000", -0.0f, 0x8000);
  to32(&t, "f16-1.31", "0x8000 widens to -0.0 (0x80000000)", 0x8000, 0x80000000u);
  /* ---- infinities and NaN ------------------------------------------------------ */
  to16(&t, "f16-1.32", "+inf is 0x7c00", INFINITY, 0x7c00);
  to16(&t, "f16-1.33", "-inf is 0xfc00", -INFINITY, 0xfc00);
  to32(&t, "f16-1.34", "0xfc00 widens to -inf", 0xfc00, 0xff800000u);
  {
    uint16_t h = sim_f32_to_f16(from_bits(0x7fc00000u));
    tap_ok(&t, h == 0x7e00, "f16-1.35", "the default quiet NaN 0x7fc00000 narrows to quiet NaN 0x7e00");
    uint16_t n = sim_f32_to_f16(from_bits(0xff800001u));
    tap_ok(&t, f16_isnan(n) && (n & 0x8000), "f16-1.36", "a NaN with only the low payload bit set stays a (negative) NaN");
    tap_ok(&t, isnan(sim_f16_to_f32(0x7e00)), "f16-1.37", "0x7e00 widens to a NaN");
    uint16_t rt = sim_f32_to_f16(sim_f16_to_f32(0x7ead));
    if (!tap_ok(&t, rt == 0x7ead, "f16-1.38", "the canary quiet NaN 0x7ead round-trips through f32"))
      tap_diag("0x7ead -> 0x%08x -> 0x%04x", bits(sim_f16_to_f32(0x7ead)), rt);
  }
  /* ---- sim_round_f16 ----------------------------------------------------------- */
  tap_ok(&t, bits(sim_round_f16(0.1f)) == bits(0.0999755859375f), "f16-1.39", "round_f16(0.1f) = 0.0999755859375");
  tap_ok(&t, bits(sim_round_f16(1.00048828125f)) == bits(1.0f), "f16-1.40", "round_f16(1 + 2^-11) = 1 (tie to even)");
  tap_ok(&t, bits(sim_round_f16(70000.0f)) == bits(INFINITY), "f16-1.41", "round_f16(70000) = +inf");
  tap_ok(&t, bits(sim_round_f16(-p25)) == 0x80000000u, "f16-1.42", "round_f16(-2^-25) = -0");
  {   /* the fast path on f32 bits equals the two conversions: every sign, f32
       * exponent and f16 mantissa, with the 13 dropped bits at and around the
       * rounding boundaries (t_conv f16x-1.2 checks all 2^32 patterns) */
    static const uint32_t low[] = {0, 1, 0x0abc, 0x0fff, 0x1000, 0x1001, 0x1555, 0x1fff};
    uint32_t badx = 0;
    int nbad = 0;
    for (uint32_t hi = 0; hi < (1u << 19); hi++)          /* sign, exponent, 10 mantissa bits */
      for (size_t l = 0; l < sizeof low / sizeof low[0]; l++) {
        uint32_t x = hi << 13 | low[l];
        float f;
        memcpy(&f, &x, 4);
        if (bits(sim_round_f16(f)) != bits(sim_f16_to_f32(sim_f32_to_f16(f)))) nbad++, badx = x;
      }
    if (!tap_ok(&t, nbad == 0, "f16-1.46", "round_f16 equals f32 -> f16 -> f32 at every rounding boundary"))
      tap_diag("%d differ, e.g. 0x%08x", nbad, badx);
  }
  /* ---- exhaustive ---------------------------------------------------------------- */
  {
    int bad = -1, nbad = 0, nanbad = -1;
    for (uint32_t h = 0; h < 0x10000u; h++) {
      uint16_t x = (uint16_t)h, y = sim_f32_to_f16(sim_f16_to_f32(x));
      if (f16_isnan(x)) {
        if (!f16_isnan(y) || (y & 0x8000) != (x & 0x8000)) nanbad = (int)h;
        continue;
      }
      if (y != x) nbad++, bad = (int)h;
    }
    if (!tap_ok(&t, nbad == 0, "f16-1.43", "every non-NaN f16 pattern round-trips f16 -> f32 -> f16 exactly"))
      tap_diag("%d patterns fail, e.g. 0x%04x", nbad, bad);
    if (!tap_ok(&t, nanbad < 0, "f16-1.44", "every f16 NaN pattern stays a NaN of the same sign through f32"))
      tap_diag("e.g. 0x%04x", nanbad);
    int wbad = -1;
    for (uint32_t h = 0; h < 0x10000u; h++) {   /* widening is exact: x = m * 2^e in double */
      uint16_t x = (uint16_t)h;
      if (f16_isnan(x) || (x & 0x7c00u) == 0x7c00u) continue;
      int e = (x >> 10) & 0x1f, m = x & 0x3ff;
      double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
      if (x & 0x8000) v = -v;
      float f = sim_f16_to_f32(x);
      if ((double)f != v || (signbit(f) != 0) != ((x & 0x8000) != 0)) wbad = (int)h;
    }
    if (!tap_ok(&t, wbad < 0, "f16-1.45", "every finite f16 pattern widens to its exact value (sign of zero kept)"))
      tap_diag("e.g. 0x%04x", wbad);
  }
  bf16_cases(&t);
  int_cases(&t);
  return tap_done(&t);
}
