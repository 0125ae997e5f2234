/* f16.c — element storage. Consumes f32 values and produces f16 and bf16 bit
 * patterns (round to nearest, ties to even; overflow to infinity; subnormals
 * kept; NaN payload's top bits kept, and quiet) and back; packs and unpacks a
 * tile element to and from the bits of its dtype (i8 and i16 keep the low
 * bits). tests/t_conv.c checks every function here over every input. */
#include "sim.h"

#include <math.h>
#include <string.h>

uint16_t sim_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, ex = (x >> 23) & 0xffu, man = x & 0x7fffffu;
  if (ex == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
  int e = (int)ex - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    int shift = 14 - e;
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;   /* a carry may reach infinity: correct */
  return (uint16_t)(sign | h);
}

float sim_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (ex == 0) {
    if (!man) {
      x = sign;
    } else {
      int e = 0;
      while (!(man & 0x400u)) man <<= 1, e++;
      x = sign | ((uint32_t)(113 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (ex == 31) {
    x = sign | 0x7f800000u | (man << 13);
  } else {
    x = sign | ((ex + 112) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* f rounded to the nearest f16 value. Where both f and the result are normal
 * f16 values the rounding is done on f's bits (the f16 and f32 mantissas line
 * up, and a carry into the exponent is the same carry in both); zeros,
 * subnormals, overflow, infinities and NaNs go through the conversions. Equal
 * to sim_f16_to_f32(sim_f32_to_f16(f)) for every f (t_f16 f16-1.46 at the
 * rounding boundaries; t_conv checks both against an independent rounding
 * over every f32 pattern). */
float sim_round_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t ex = (x >> 23) & 0xffu;
  if (ex - 113u < 30u) {                        /* f16 exponents 1..30 */
    uint32_t y = (x + 0xfffu + ((x >> 13) & 1u)) & ~0x1fffu;
    if (((y >> 23) & 0xffu) < 143u) {           /* no carry to f16 infinity */
      memcpy(&f, &y, 4);
      return f;
    }
  }
  return sim_f16_to_f32(sim_f32_to_f16(f));
}

uint16_t sim_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);   /* NaN: quiet, stays NaN */
  x += 0x7fffu + ((x >> 16) & 1u);              /* ties to even; a carry may reach infinity: correct */
  return (uint16_t)(x >> 16);
}

float sim_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

float sim_round_bf16(float f) { return sim_bf16_to_f32(sim_f32_to_bf16(f)); }

float sim_round_plain(float f, bool f16) {
  if (isnan(f) || isinf(f) || f == 0) return f;
  int bits = f16 ? 11 : 8, emin = f16 ? -14 : -126, e;   /* significand bits; the least normal exponent */
  double big = f16 ? 65504.0 : 0x1.fep127;
  frexp(f, &e);                                 /* |f| = m * 2^e, 1/2 <= m < 1 */
  int q = (e - 1 > emin ? e - 1 : emin) - (bits - 1);   /* the weight of the last significand bit */
  double r = ldexp(nearbyint(ldexp((double)f, -q)), q);
  if (fabs(r) > big) r = copysign(INFINITY, f);
  return (float)r;
}

uint32_t sim_enc(Dtype dt, Elem e) {
  switch (dt) {
  case DT_F16: return sim_f32_to_f16(e.f);
  case DT_BF16: return sim_f32_to_bf16(e.f);
  case DT_I8: return (uint8_t)e.i;
  case DT_I16: return (uint16_t)e.i;
  default: {
    uint32_t x;
    memcpy(&x, &e, 4);
    return x;
  }
  }
}

Elem sim_dec(Dtype dt, uint32_t b) {
  Elem e;
  switch (dt) {
  case DT_F16: e.f = sim_f16_to_f32((uint16_t)b); break;
  case DT_BF16: e.f = sim_bf16_to_f32((uint16_t)b); break;
  case DT_I8: e.i = (int8_t)(uint8_t)b; break;
  case DT_I16: e.i = (int16_t)(uint16_t)b; break;
  default: memcpy(&e, &b, 4); break;
  }
  return e;
}

uint32_t sim_canary(Dtype dt) {
  static const uint32_t c[DT_N] = {SIM_CANARY_F32, SIM_CANARY_F16, SIM_CANARY_I32, SIM_CANARY_BF16, SIM_CANARY_I8,
                                   SIM_CANARY_I16};
  return c[dt];
}
