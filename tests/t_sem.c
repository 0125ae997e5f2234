/* t_sem.c — semantics of every source op against hand-computed values.
 * Each case is a kernel, the output tensor to read, and the expected
 * contents (row-major, whitespace separated): a decimal value, `0x...` raw
 * storage bits, or `c` for the untouched canary. A case may instead expect a
 * diagnostic code (compile or runtime). Inputs come from init lists, so the
 * expectations do not depend on the input generator. */
#include "sim.h"
#include "tap.h"

#include <string.h>

typedef struct {
  const char *id, *what, *src, *out, *expect;
} Case;

#define K(...) #__VA_ARGS__

static const Case cases[] = {
  /* ---- load / store ------------------------------------------------------- */
  {"sem-1.1", "load and store a whole tensor",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], O: f32[2,3] out) {
       t = load(A, [0, 0], [2, 3]); store(O, [0, 0], t); }),
   "O", "1 2 3 4 5 6"},
  {"sem-1.2", "store writes only the valid region; canaries stay",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], O: f32[2,3] out) {
       t = load(A, [0, 0], [2, 3], valid=[1, 2]); store(O, [0, 0], t); }),
   "O", "1 2 c c c c"},
  {"sem-1.3", "valid 0 writes nothing",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       t = load(A, [0, 0], [2, 2], valid=[0, 2]); store(O, [0, 0], t); }),
   "O", "c c c c"},
  {"sem-1.4", "load at an offset, store at an offset",
   K(kernel k(A: f32[3,3] in = [1, 2, 3, 4, 5, 6, 7, 8, 9], O: f32[3,3] out) {
       t = load(A, [1, 1], [2, 2]); store(O, [0, 1], t); }),
   "O", "c 5 6 c 8 9 c c c"},
  {"sem-1.5", "only the valid window must be inside GM",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], O: f32[3,2] out) {
       t = load(A, [2, 0], [16, 2], valid=[1, 2]); store(O, [0, 0], t); }),
   "O", "5 6 c c c c"},
  {"sem-1.6", "an expansion by a vector with fewer valid rows is E-VALID (it would store poison)",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [1, 1, 1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2]); b = load(B, [0, 0], [2, 2]);
       x = assemble(b, a, [0, 0]); y = row_expand_add(b, slice(row_sum(a), [0, 0], [2, 1]));
       store(O, [0, 0], y); }),
   "O", "E-VALID"},
  {"sem-1.7", "loop-carried store offsets",
   K(kernel k(A: i32[1,4] in = [7, 8, 9, 10], O: i32[4,1] out) {
       for i in range(0, 4) { t = load(A, [0, i], [1, 1]); store(O, [3 - i, 0], t); } }),
   "O", "10 9 8 7"},
  {"sem-1.8", "f16 load/store keeps the bits",
   K(kernel k(A: f16[1,2] in = [0.5, -2], O: f16[1,2] out) {
       t = load(A, [0, 0], [1, 2]); store(O, [0, 0], t); }),
   "O", "0x3800 0xc000"},
  {"sem-1.9", "load space=mat, store the mat tile from the cube side",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       t = load(A, [0, 0], [2, 2], space=mat); store(O, [0, 0], t); }),
   "O", "1 2 3 4"},
  {"sem-1.10", "load and store offsets from two nested loop variables",
   K(kernel k(A: i32[2,4] in = [1, 2, 3, 4, 5, 6, 7, 8], O: i32[2,4] out) {
       for i in range(0, 2) { for j in range(0, 2) {
         t = load(A, [i, j*2], [1, 2]); store(O, [1 - i, 2 - j*2], t); } } }),
   "O", "7 8 5 6 3 4 1 2"},
  {"sem-1.11", "valid extent given by a loop variable",
   K(kernel k(A: f32[3,3] in = [1, 2, 3, 4, 5, 6, 7, 8, 9], O: f32[3,3] out) {
       for i in range(0, 3) { t = load(A, [i, 0], [1, 3], valid=[1, i + 1]); store(O, [i, 0], t); } }),
   "O", "1 c c 4 5 c 7 8 9"},
  {"sem-1.12", "loop with a negative start and a step of 3",
   K(kernel k(A: i32[4,1] in = [10, 20, 30, 40], O: i32[4,1] out) {
       for i in range(-2, 4, 3) { t = load(A, [i + 2, 0], [1, 1]); store(O, [3 - (i + 2), 0], t); } }),
   "O", "40 c c 10"},
  {"sem-1.13", "zero-trip loops (b == a, b < a) store nothing",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[2,1] out) {
       for i in range(1, 1) { t = load(A, [i, 0], [1, 1]); store(O, [i, 0], t); }
       for j in range(1, 0) { u = load(A, [j, 0], [1, 1]); store(O, [j, 0], u); } }),
   "O", "c c"},
  {"sem-1.14", "a store to an inout tensor is seen by a later load",
   K(kernel k(X: f32[1,2] inout, O: f32[1,2] out) {
       store(X, [0, 0], full([1, 2], 3, f32)); t = load(X, [0, 0], [1, 2]); store(O, [0, 0], adds(t, 1)); }),
   "O", "4 4"},
  {"sem-1.15", "valid window in the corner of a larger physical tile",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], O: f32[2,3] out) {
       t = load(A, [1, 2], [4, 4], valid=[1, 1]); store(O, [1, 0], t); }),
   "O", "c c c 6 c c"},
  {"sem-1.16", "f16 initialiser: literal -> f32 -> f16 (0.1, tie 2049, tie 1+2^-11, 70000 -> inf)",
   K(kernel k(A: f16[1,4] in = [0.1, 2049, 1.00048828125, 70000], O: f16[1,4] out) {
       store(O, [0, 0], load(A, [0, 0], [1, 4])); }),
   "O", "0x2e66 0x6800 0x3c00 0x7c00"},
  {"sem-1.17", "a zero-trip loop makes no GM access, so its offsets are never out of bounds",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[2,1] out) {
       for i in range(2, 2) { t = load(A, [i, 0], [1, 1]); store(O, [i, 0], t); } }),
   "O", "c c"},
  /* ---- elementwise ----------------------------------------------------------- */
  {"sem-2.1", "add sub mul div, valid = per-dim min",
   K(kernel k(A: f32[1,4] in = [1, 2, 3, 4], B: f32[1,4] in = [2, 2, 2, 2], O: f32[4,4] out) {
       a = load(A, [0, 0], [1, 4]); b = load(B, [0, 0], [1, 4], valid=[1, 3]);
       store(O, [0, 0], add(a, b)); store(O, [1, 0], sub(a, b));
       store(O, [2, 0], mul(a, b)); store(O, [3, 0], div(a, b)); }),
   "O", "3 4 5 c -1 0 1 c 2 4 6 c 0.5 1 1.5 c"},
  {"sem-2.2", "max min and the scalar forms",
   K(kernel k(A: f32[1,3] in = [-1, 0, 3], O: f32[4,3] out) {
       a = load(A, [0, 0], [1, 3]);
       store(O, [0, 0], maxs(a, 0.5)); store(O, [1, 0], mins(a, 0.5));
       store(O, [2, 0], adds(a, 1.25)); store(O, [3, 0], divs(a, 2)); }),
   "O", "0.5 0.5 3 -1 0 0.5 0.25 1.25 4.25 -0.5 0 1.5"},
  {"sem-2.3", "unary ops",
   K(kernel k(A: f32[1,3] in = [-4, 0.25, 4], O: f32[4,3] out) {
       a = load(A, [0, 0], [1, 3]);
       store(O, [0, 0], neg(a)); store(O, [1, 0], abs(a));
       store(O, [2, 0], relu(a)); store(O, [3, 0], recip(a)); }),
   "O", "4 -0.25 -4 4 0.25 4 0 0.25 4 -0.25 4 0.25"},
  {"sem-2.4", "i32 arithmetic wraps",
   K(kernel k(A: i32[1,2] in = [2147483647, -2147483648], O: i32[3,2] out) {
       a = load(A, [0, 0], [1, 2]);
       store(O, [0, 0], adds(a, 1)); store(O, [1, 0], neg(a)); store(O, [2, 0], abs(a)); }),
   "O", "-2147483648 -2147483647 -2147483647 -2147483648 2147483647 -2147483648"},
  {"sem-2.5", "f16 add sub mul div",
   K(kernel k(A: f16[1,4] in = [1.5, -2, 0.25, 3], B: f16[1,4] in = [0.5, 0.5, -4, 2], O: f16[4,4] out) {
       a = load(A, [0, 0], [1, 4]); b = load(B, [0, 0], [1, 4]);
       store(O, [0, 0], add(a, b)); store(O, [1, 0], sub(a, b));
       store(O, [2, 0], mul(a, b)); store(O, [3, 0], div(a, b)); }),
   "O", "2 -1.5 -3.75 5 1 -2.5 4.25 1 0.75 -1 -1 6 3 -4 -0.0625 1.5"},
  {"sem-2.6", "f16 add rounds the f32 sum to nearest even (2049 -> 2048, 2051 -> 2052)",
   K(kernel k(A: f16[1,3] in = [2048, 2050, 1], B: f16[1,3] in = [1, 1, 0.0009765625], O: f16[1,3] out) {
       store(O, [0, 0], add(load(A, [0, 0], [1, 3]), load(B, [0, 0], [1, 3]))); }),
   "O", "0x6800 0x6802 0x3c01"},
  {"sem-2.7", "i32 add sub mul max min; mul wraps",
   K(kernel k(A: i32[1,3] in = [7, -3, 100000], B: i32[1,3] in = [2, 5, 100000], O: i32[5,3] out) {
       a = load(A, [0, 0], [1, 3]); b = load(B, [0, 0], [1, 3]);
       store(O, [0, 0], add(a, b)); store(O, [1, 0], sub(a, b)); store(O, [2, 0], mul(a, b));
       store(O, [3, 0], max(a, b)); store(O, [4, 0], min(a, b)); }),
   "O", "9 2 200000 5 -8 0 14 -15 1410065408 7 5 100000 2 -3 100000"},
  {"sem-2.8", "division by zero gives signed infinity; 0/0 is the host's default NaN (x86: negative), abs keeps its sign",
   K(kernel k(A: f32[1,3] in = [1, -1, 0], B: f32[1,3] in = [0, 0, 0], O: f32[2,3] out) {
       q = div(load(A, [0, 0], [1, 3]), load(B, [0, 0], [1, 3]));
       store(O, [0, 0], slice(q, [0, 0], [1, 2])); store(O, [1, 0], abs(q)); }),
   "O", "inf -inf c inf inf 0xffc00000"},
  {"sem-2.9", "divs by 0 and by -0, recip of signed zeros",
   K(kernel k(A: f32[1,2] in = [3, -3], Z: f32[1,2] in = [0, -0], O: f32[3,2] out) {
       a = load(A, [0, 0], [1, 2]);
       store(O, [0, 0], divs(a, 0)); store(O, [1, 0], recip(load(Z, [0, 0], [1, 2])));
       store(O, [2, 0], divs(a, -0)); }),
   "O", "inf -inf inf -inf -inf inf"},
  {"sem-2.10", "max and min are std::max and std::min: a NaN first operand is kept, a NaN second one dropped",
   K(kernel k(O: f32[1,4] out) {
       n = neg(sqrt(full([1, 1], -1, f32))); one = full([1, 1], 1, f32);
       store(O, [0, 0], max(n, one)); store(O, [0, 1], max(one, n));
       store(O, [0, 2], min(n, one)); store(O, [0, 3], min(one, n)); }),
   "O", "0x7fc00000 1 0x7fc00000 1"},
  {"sem-2.11", "max and min of equal operands (+0 / -0) return a (std::max, std::min)",
   K(kernel k(A: f32[1,2] in = [0, -0], B: f32[1,2] in = [-0, 0], O: f32[2,2] out) {
       a = load(A, [0, 0], [1, 2]); b = load(B, [0, 0], [1, 2]);
       store(O, [0, 0], max(a, b)); store(O, [1, 0], min(a, b)); }),
   "O", "0x00000000 0x80000000 0x00000000 0x80000000"},
  {"sem-2.12", "f16 max and min",
   K(kernel k(A: f16[1,3] in = [1, -2, 0.5], B: f16[1,3] in = [0.5, -1, 0.5], O: f16[2,3] out) {
       a = load(A, [0, 0], [1, 3]); b = load(B, [0, 0], [1, 3]);
       store(O, [0, 0], max(a, b)); store(O, [1, 0], min(a, b)); }),
   "O", "1 -1 0.5 0.5 -2 0.5"},
  {"sem-2.13", "NaN: neg flips its sign, relu keeps it (std::max(x, 0)), maxs/mins keep a NaN tile element",
   K(kernel k(O: f32[3,2] out) {
       n = neg(sqrt(full([1, 2], -1, f32)));
       store(O, [0, 0], neg(n)); store(O, [1, 0], relu(n));
       store(O, [2, 0], maxs(slice(n, [0, 0], [1, 1]), 1)); store(O, [2, 1], mins(slice(n, [0, 1], [1, 1]), 1)); }),
   "O", "0xffc00000 0xffc00000 0x7fc00000 0x7fc00000 0x7fc00000 0x7fc00000"},
  {"sem-2.14", "signed zeros through neg abs relu",
   K(kernel k(A: f32[1,3] in = [-0, 0, -3], O: f32[3,3] out) {
       a = load(A, [0, 0], [1, 3]);
       store(O, [0, 0], neg(a)); store(O, [1, 0], abs(a)); store(O, [2, 0], relu(a)); }),
   "O", "0x00000000 0x80000000 3 0x80000000 0x00000000 3 0x80000000 0x00000000 0x00000000"},
  {"sem-2.15", "i32 subs muls maxs mins relu",
   K(kernel k(A: i32[1,3] in = [5, -7, 0], O: i32[5,3] out) {
       a = load(A, [0, 0], [1, 3]);
       store(O, [0, 0], subs(a, 3)); store(O, [1, 0], muls(a, -2)); store(O, [2, 0], maxs(a, 0));
       store(O, [3, 0], mins(a, 0)); store(O, [4, 0], relu(a)); }),
   "O", "2 -10 -3 -10 14 0 5 0 0 0 -7 0 5 0 0"},
  {"sem-2.16", "exp of +-0 is 1; overflow to inf, underflow to 0",
   K(kernel k(A: f32[1,4] in = [0, -0, 100, -200], O: f32[1,4] out) {
       store(O, [0, 0], exp(load(A, [0, 0], [1, 4]))); }),
   "O", "1 1 inf 0"},
  {"sem-2.17", "sqrt: exact, correctly rounded sqrt(2), sqrt(-0) = -0, sqrt(-4) NaN",
   K(kernel k(A: f32[1,5] in = [4, 2, 0.0625, -0, -4], O: f32[1,5] out) {
       s = sqrt(load(A, [0, 0], [1, 5]));
       store(O, [0, 0], slice(s, [0, 0], [1, 4])); store(O, [0, 4], neg(slice(s, [0, 4], [1, 1]))); }),
   "O", "2 0x3fb504f3 0.25 0x80000000 0x7fc00000"},
  {"sem-2.18", "recip: exact, correctly rounded 1/3, signed zeros",
   K(kernel k(A: f32[1,5] in = [4, -0.5, 3, 0, -0], O: f32[1,5] out) {
       store(O, [0, 0], recip(load(A, [0, 0], [1, 5]))); }),
   "O", "0.25 -2 0x3eaaaaab inf -inf"},
  {"sem-2.19", "f16 unary ops round the f32 result: sqrt recip neg exp",
   K(kernel k(A: f16[1,2] in = [2, 3], O: f16[4,2] out) {
       a = load(A, [0, 0], [1, 2]);
       store(O, [0, 0], sqrt(a)); store(O, [1, 0], recip(a)); store(O, [2, 0], neg(a));
       store(O, [3, 0], exp(subs(a, 2))); }),
   "O", "0x3da8 0x3eee 0x3800 0x3555 0xc000 0xc200 0x3c00 0x4170"},
  {"sem-2.20", "binary valid is the per-dim minimum when each operand is short in another dim",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [10, 20, 30, 40], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[2, 1]); b = load(B, [0, 0], [2, 2], valid=[1, 2]);
       store(O, [0, 0], add(a, b)); }),
   "O", "11 c c c"},
  {"sem-2.21", "i32 scalar INT32_MIN is in range; adds wraps",
   K(kernel k(A: i32[1,2] in = [1, -1], O: i32[1,2] out) {
       store(O, [0, 0], adds(load(A, [0, 0], [1, 2]), -2147483648)); }),
   "O", "-2147483647 2147483647"},
  {"sem-2.22", "the scalar of an f16 op is rounded to f16 first: 2^-11 + 2^-22 ties to 2^-11, 1 + 2^-11 ties to 1",
   K(kernel k(A: f16[1,1] in = [1], O: f16[1,1] out) {
       store(O, [0, 0], adds(load(A, [0, 0], [1, 1]), 0.0004885196685791015625)); }),
   "O", "0x3c00"},
  {"sem-2.23", "f32 subs and muls",
   K(kernel k(A: f32[1,3] in = [1.5, -2, 0.25], O: f32[2,3] out) {
       a = load(A, [0, 0], [1, 3]); store(O, [0, 0], subs(a, 0.5)); store(O, [1, 0], muls(a, -4)); }),
   "O", "1 -2.5 -0.25 -6 8 -1"},
  /* ---- f16 rounding ------------------------------------------------------------ */
  {"sem-3.1", "cast f32->f16 rounds to nearest, ties to even",
   K(kernel k(A: f32[1,4] in = [1.00048828125, 1.00146484375, 65519, 65520], O: f16[1,4] out) {
       a = load(A, [0, 0], [1, 4]); store(O, [0, 0], cast(a, f16)); }),
   "O", "0x3c00 0x3c02 0x7bff 0x7c00"},
  {"sem-3.2", "f16 arithmetic rounds each result",
   K(kernel k(A: f16[1,3] in = [1, 1.0009765625, 1], O: f16[1,3] out) {
       a = load(A, [0, 0], [1, 3]); store(O, [0, 0], adds(a, 0.00048828125));
       store(O, [0, 2], adds(slice(a, [0, 2], [1, 1]), 0.000732421875)); }),
   "O", "0x3c00 0x3c02 0x3c01"},
  {"sem-3.3", "cast float->i32 truncates and saturates; NaN -> 0",
   K(kernel k(A: f32[1,4] in = [-2.75, 2.75, 3e9, -3e9], O: i32[1,4] out) {
       a = load(A, [0, 0], [1, 4]); store(O, [0, 0], cast(a, i32)); }),
   "O", "-2 2 2147483647 -2147483648"},
  {"sem-3.4", "cast f16 -> f32 is exact (0.1 in f16, 65504, 2^-24)",
   K(kernel k(A: f16[1,3] in = [0.1, 65504, 5.9604644775390625e-08], O: f32[1,3] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 3]), f32)); }),
   "O", "0.0999755859375 65504 0x33800000"},
  {"sem-3.5", "cast f16 -> i32 truncates; f16 infinities saturate",
   K(kernel k(A: f16[1,4] in = [-2.5, 65504, 0.75, -0.75], B: f32[1,2] in = [70000, -70000], O: i32[2,4] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 4]), i32));
       store(O, [1, 0], cast(cast(load(B, [0, 0], [1, 2]), f16), i32)); }),
   "O", "-2 65504 0 0 2147483647 -2147483648 c c"},
  {"sem-3.6", "cast i32 -> f32 rounds to nearest, ties to even",
   K(kernel k(A: i32[1,5] in = [16777217, 16777219, 2147483647, -2147483648, -16777217], O: f32[1,5] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 5]), f32)); }),
   "O", "0x4b800000 0x4b800002 0x4f000000 0xcf000000 0xcb800000"},
  {"sem-3.7", "cast i32 -> f16 (via f32): ties to even, 65519 -> max, 65520 -> inf",
   K(kernel k(A: i32[1,6] in = [2049, 2051, 65519, 65520, -65520, 3], O: f16[1,6] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 6]), f16)); }),
   "O", "0x6800 0x6802 0x7bff 0x7c00 0xfc00 0x4200"},
  {"sem-3.8", "cast f32 -> f16 subnormals: 2^-24, tie 2^-25 -> 0, tie 3*2^-25 -> 2, 0.75*2^-24, largest, carry to normal",
   K(kernel k(A: f32[1,9] in = [5.9604644775390625e-08, 2.98023223876953125e-08, 8.94069671630859375e-08,
                                 4.470348358154296875e-08, 6.0975551605224609375e-05, 6.10053539276123046875e-05,
                                 6.103515625e-05, -5.9604644775390625e-08, -1e-10], O: f16[1,9] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 9]), f16)); }),
   "O", "0x0001 0x0000 0x0002 0x0001 0x03ff 0x0400 0x0400 0x8001 0x8000"},
  {"sem-3.9", "cast f32 -> f16 at the overflow boundary",
   K(kernel k(A: f32[1,5] in = [65504, 65519.99, -65520, 1e10, -65504], O: f16[1,5] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 5]), f16)); }),
   "O", "0x7bff 0x7bff 0xfc00 0x7c00 0xfbff"},
  {"sem-3.10", "cast f32 -> i32 at the saturation boundary",
   K(kernel k(A: f32[1,5] in = [0.9999, -0.9999, 2147483520, 2.147483648e9, -2.147483904e9], O: i32[1,5] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 5]), i32)); }),
   "O", "0 0 2147483520 2147483647 -2147483648"},
  {"sem-3.11", "cast NaN (f32 and f16) -> i32 gives 0",
   K(kernel k(O: i32[1,2] out) {
       n = sqrt(full([1, 2], -1, f32));
       store(O, [0, 0], cast(slice(n, [0, 0], [1, 1]), i32));
       store(O, [0, 1], cast(cast(slice(n, [0, 1], [1, 1]), f16), i32)); }),
   "O", "0 0"},
  {"sem-3.12", "cast f32 -> f16 keeps NaN (quiet) and infinity",
   K(kernel k(A: f32[1,1] in = [1e30], O: f16[1,2] out) {
       store(O, [0, 0], cast(neg(sqrt(full([1, 1], -1, f32))), f16));
       store(O, [0, 1], cast(muls(load(A, [0, 0], [1, 1]), 1e30), f16)); }),
   "O", "0x7e00 0x7c00"},
  {"sem-3.13", "cast to the same dtype is a copy (keeps -0)",
   K(kernel k(A: f32[1,2] in = [-0, 1.5], O: f32[1,2] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 2]), f32)); }),
   "O", "0x80000000 1.5"},
  {"sem-3.14", "full rounds its value to f16 (0.1, tie 2049, 70000 -> inf, -0)",
   K(kernel k(O: f16[1,4] out) {
       store(O, [0, 0], full([1, 1], 0.1, f16)); store(O, [0, 1], full([1, 1], 2049, f16));
       store(O, [0, 2], full([1, 1], 70000, f16)); store(O, [0, 3], full([1, 1], -0, f16)); }),
   "O", "0x2e66 0x6800 0x7c00 0x8000"},
  {"sem-3.15", "i32 -> f16 -> f32 -> i32 chain (2051 ties up, 100000 overflows to inf and saturates)",
   K(kernel k(A: i32[1,3] in = [2051, -7, 100000], O: i32[1,3] out) {
       store(O, [0, 0], cast(cast(cast(load(A, [0, 0], [1, 3]), f16), f32), i32)); }),
   "O", "2052 -7 2147483647"},
  {"sem-3.16", "a decimal literal is rounded once to f32 (1 + 2^-24 + 1e-31 -> 1 + 2^-23)",
   K(kernel k(A: f32[1,2] in = [1.0000000596046447753906250000001, 0.1], O: f32[1,2] out) {
       store(O, [0, 0], load(A, [0, 0], [1, 2])); }),
   "O", "0x3f800001 0x3dcccccd"},
  {"sem-3.17", "f16 mul rounds the product to f16",
   K(kernel k(A: f16[1,1] in = [1.0009765625], O: f16[1,1] out) {
       a = load(A, [0, 0], [1, 1]); store(O, [0, 0], mul(a, a)); }),
   "O", "0x3c02"},
  /* ---- reductions -------------------------------------------------------------- */
  {"sem-4.1", "row_sum over the valid columns only",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 3], valid=[2, 2]); store(O, [0, 0], row_sum(a)); }),
   "O", "3 9"},
  {"sem-4.2", "col_max and col_min",
   K(kernel k(A: f32[3,2] in = [1, -6, 5, 2, -3, 4], O: f32[2,2] out) {
       a = load(A, [0, 0], [3, 2]); store(O, [0, 0], col_max(a)); store(O, [1, 0], col_min(a)); }),
   "O", "5 4 -3 -6"},
  {"sem-4.3", "row reduction of vc = 0 is empty: nothing stored",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 2], valid=[2, 0]); store(O, [0, 0], row_max(a)); }),
   "O", "c c"},
  {"sem-4.4", "row_sum adds strictly left to right in f32 ([1e8, 1, -1e8, 1] -> 1)",
   K(kernel k(A: f32[1,4] in = [100000000, 1, -100000000, 1], O: f32[1,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [1, 4]))); }),
   "O", "1"},
  {"sem-4.5", "col_sum adds strictly top to bottom ([1, 1e8, 1, -1e8] -> 0)",
   K(kernel k(A: f32[4,1] in = [1, 100000000, 1, -100000000], O: f32[1,1] out) {
       store(O, [0, 0], col_sum(load(A, [0, 0], [4, 1]))); }),
   "O", "0"},
  {"sem-4.6", "row_max and row_min over partial valid columns",
   K(kernel k(A: f32[2,4] in = [3, -1, 7, -9, 2, 2, 5, 0], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 4], valid=[2, 3]);
       store(O, [0, 0], row_max(a)); store(O, [0, 1], row_min(a)); }),
   "O", "7 -1 5 2"},
  {"sem-4.7", "column reductions of vr = 0 are empty: nothing stored",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[1,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[0, 2]);
       store(O, [0, 0], col_sum(a)); store(O, [0, 0], col_max(a)); }),
   "O", "c c"},
  {"sem-4.8", "a column sum starts from its first element, a row sum from +0: -0s sum to -0 down a column, +0 along a row",
   K(kernel k(A: f32[2,2] in = [-0, -0, -0, -0], O: f32[3,2] out) {
       a = load(A, [0, 0], [2, 2]);
       store(O, [0, 0], col_sum(a)); store(O, [1, 0], row_sum(a)); store(O, [2, 0], col_max(a)); }),
   "O", "0x80000000 0x80000000 0x00000000 c 0x80000000 0x80000000"},
  {"sem-4.9", "i32 reductions: sums wrap; col_max col_min",
   K(kernel k(A: i32[2,3] in = [2147483647, 1, 5, -4, 8, -2147483648], O: i32[4,3] out) {
       a = load(A, [0, 0], [2, 3]);
       store(O, [0, 0], col_max(a)); store(O, [1, 0], col_min(a)); store(O, [2, 0], row_sum(a)); }),
   "O", "2147483647 8 5 -4 1 -2147483648 -2147483643 c c -2147483644 c c"},
  {"sem-4.10", "row_max and row_min fold with std::max / std::min: a NaN after the first element is dropped",
   K(kernel k(A: f32[1,3] in = [1, 0, 3], B: f32[1,3] in = [1, 0, 1], O: f32[1,3] out) {
       q = abs(div(load(A, [0, 0], [1, 3]), load(B, [0, 0], [1, 3])));
       store(O, [0, 0], row_max(q)); store(O, [0, 1], row_min(q));
       store(O, [0, 2], row_max(slice(q, [0, 2], [1, 1]))); }),
   "O", "3 1 3"},
  {"sem-4.11", "f16 row_sum accumulates in f32 and rounds once (1024 + .5 + .5 = 1025)",
   K(kernel k(A: f16[1,3] in = [1024, 0.5, 0.5], O: f16[1,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [1, 3]))); }),
   "O", "0x6401"},
  {"sem-4.15", "f16 col_sum accumulates in f16, rounded at every step (1024 + .5 + .5 = 1024), as pto-isa TColSum",
   K(kernel k(A: f16[3,1] in = [1024, 0.5, 0.5], O: f16[1,1] out) {
       store(O, [0, 0], col_sum(load(A, [0, 0], [3, 1]))); }),
   "O", "0x6400"},
  {"sem-4.16", "f16 col_sum of the column 2048, 1, 1 is 2048: each 1 is rounded away in f16",
   K(kernel k(A: f16[3,1] in = [2048, 1, 1], O: f16[1,1] out) {
       store(O, [0, 0], col_sum(load(A, [0, 0], [3, 1]))); }),
   "O", "0x6800"},
  {"sem-4.17", "f16 row_sum of the row 2048, 1, 1 is 2050: f32 accumulation, one rounding",
   K(kernel k(A: f16[1,3] in = [2048, 1, 1], O: f16[1,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [1, 3]))); }),
   "O", "0x6801"},
  {"sem-4.18", "a one-row column sum is its row (-0 stays -0); a one-column row sum of -0 is +0",
   K(kernel k(A: f32[1,2] in = [-0, 3], O: f32[2,2] out) {
       a = load(A, [0, 0], [1, 2]);
       store(O, [0, 0], col_sum(a)); store(O, [1, 0], row_sum(slice(a, [0, 0], [1, 1]))); }),
   "O", "0x80000000 3 0x00000000 c"},
  {"sem-4.19", "an f16 column of -0 sums to -0, the same values as a row to +0",
   K(kernel k(A: f16[2,1] in = [-0, -0], O: f16[1,2] out) {
       a = load(A, [0, 0], [2, 1]);
       store(O, [0, 0], col_sum(a)); store(O, [0, 1], row_sum(transpose(a))); }),
   "O", "0x8000 0x0000"},
  {"sem-4.22", "a bf16 column of -0 sums to -0, the same values as a row to +0",
   K(kernel k(B: bf16[2,1] in = [-0, -0], P: bf16[1,2] out) {
       b = load(B, [0, 0], [2, 1]);
       store(P, [0, 0], col_sum(b)); store(P, [0, 1], row_sum(transpose(b))); }),
   "P", "0x8000 0x0000"},
  {"sem-4.20", "a column of -0 then +0 sums to +0 (-0 + +0 = +0)",
   K(kernel k(A: f32[3,1] in = [-0, -0, 0], O: f32[1,1] out) {
       store(O, [0, 0], col_sum(load(A, [0, 0], [3, 1]))); }),
   "O", "0x00000000"},
  {"sem-4.21", "bf16 col_sum rounds to bf16 at every step (256 + 1 + 1 = 256), row_sum once (258)",
   K(kernel k(A: bf16[3,1] in = [256, 1, 1], B: bf16[1,3] in = [256, 1, 1], O: bf16[1,2] out) {
       store(O, [0, 0], col_sum(load(A, [0, 0], [3, 1]))); store(O, [0, 1], row_sum(load(B, [0, 0], [1, 3]))); }),
   "O", "0x4380 0x4381"},
  {"sem-4.12", "row_sum over partial valid rows",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], O: f32[3,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [3, 2], valid=[2, 2]))); }),
   "O", "3 7 c"},
  {"sem-4.13", "col_sum and col_min over a partial valid region",
   K(kernel k(A: f32[3,3] in = [1, 2, 3, 4, 5, 6, 7, 8, 9], O: f32[2,3] out) {
       a = load(A, [0, 0], [3, 3], valid=[2, 2]);
       store(O, [0, 0], col_sum(a)); store(O, [1, 0], col_min(a)); }),
   "O", "5 7 c 1 2 c"},
  {"sem-4.14", "f16 col_max and row_min",
   K(kernel k(A: f16[2,2] in = [0.5, -1, 0.25, 2], O: f16[3,2] out) {
       a = load(A, [0, 0], [2, 2]);
       store(O, [0, 0], col_max(a)); store(O, [1, 0], row_min(a)); }),
   "O", "0.5 2 -1 c 0.25 c"},
  /* ---- expansion ---------------------------------------------------------------- */
  {"sem-5.1", "row_expand_sub and col_expand_mul",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out, P: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]);
       store(O, [0, 0], row_expand_sub(a, row_max(a)));
       store(P, [0, 0], col_expand_mul(a, col_sum(a))); }),
   "O", "-1 0 -1 0"},
  {"sem-5.2", "row_expand_add mul div",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [10, 0.5], O: f32[6,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [2, 1]);
       store(O, [0, 0], row_expand_add(a, v)); store(O, [2, 0], row_expand_mul(a, v));
       store(O, [4, 0], row_expand_div(a, v)); }),
   "O", "11 12 3.5 4.5 10 20 1.5 2 0.1 0.2 6 8"},
  {"sem-5.3", "row_expand_max and row_expand_min on i32",
   K(kernel k(A: i32[2,3] in = [1, 5, -2, 0, -7, 3], V: i32[2,1] in = [2, -1], O: i32[4,3] out) {
       a = load(A, [0, 0], [2, 3]); v = load(V, [0, 0], [2, 1]);
       store(O, [0, 0], row_expand_max(a, v)); store(O, [2, 0], row_expand_min(a, v)); }),
   "O", "2 5 2 0 -1 3 1 2 -2 -1 -7 -1"},
  {"sem-5.4", "row_expand_sub mul div max min on f32",
   K(kernel k(A: f32[2,2] in = [1, -2, 3, 4], V: f32[2,1] in = [0.5, 5], O: f32[10,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [2, 1]);
       store(O, [0, 0], row_expand_sub(a, v)); store(O, [2, 0], row_expand_mul(a, v));
       store(O, [4, 0], row_expand_div(a, v)); store(O, [6, 0], row_expand_max(a, v));
       store(O, [8, 0], row_expand_min(a, v)); }),
   "O", "0.5 -2.5 -2 -1 0.5 -1 15 20 2 -4 0.6 0.8 1 0.5 5 5 0.5 -2 3 4"},
  {"sem-5.5", "col_expand_add sub div",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[1,2] in = [4, -0.5], O: f32[6,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [1, 2]);
       store(O, [0, 0], col_expand_add(a, v)); store(O, [2, 0], col_expand_sub(a, v));
       store(O, [4, 0], col_expand_div(a, v)); }),
   "O", "5 1.5 7 3.5 -3 2.5 -1 4.5 0.25 -4 0.75 -8"},
  {"sem-5.6", "col_expand_mul and col_expand_sub on i32 (mul wraps)",
   K(kernel k(A: i32[1,2] in = [65536, 3], V: i32[1,2] in = [65536, -5], O: i32[2,2] out) {
       a = load(A, [0, 0], [1, 2]); v = load(V, [0, 0], [1, 2]);
       store(O, [0, 0], col_expand_mul(a, v)); store(O, [1, 0], col_expand_sub(a, v)); }),
   "O", "0 -15 0 8"},
  {"sem-5.7", "row_expand_add on f16 rounds (2048 + 1 -> 2048)",
   K(kernel k(A: f16[1,2] in = [1, 2048], V: f16[1,1] in = [1], O: f16[1,2] out) {
       store(O, [0, 0], row_expand_add(load(A, [0, 0], [1, 2]), load(V, [0, 0], [1, 1]))); }),
   "O", "0x4000 0x6800"},
  {"sem-5.8", "an expansion whose vector has more valid rows than the tile is E-VALID",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2]);
       store(O, [0, 0], row_expand_add(a, load(V, [0, 0], [2, 1]))); }),
   "O", "E-VALID"},
  {"sem-5.9", "col_expand_div and col_expand_add on f16 round",
   K(kernel k(A: f16[1,2] in = [1, 2048], V: f16[1,2] in = [3, 1], O: f16[2,2] out) {
       a = load(A, [0, 0], [1, 2]); v = load(V, [0, 0], [1, 2]);
       store(O, [0, 0], col_expand_div(a, v)); store(O, [1, 0], col_expand_add(a, v)); }),
   "O", "0x3555 0x6800 0x4400 0x6800"},
  /* ---- structure ---------------------------------------------------------------- */
  {"sem-6.1", "slice clamps valid to the source's valid region",
   K(kernel k(A: f32[4,1] in = [1, 2, 3, 4], O: f32[4,1] out) {
       a = load(A, [0, 0], [4, 1], valid=[3, 1]);
       s = slice(a, [2, 0], [2, 1]); store(O, [0, 0], s); }),
   "O", "3 c c c"},
  {"sem-6.2", "assemble writes src's valid region at the offset",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[3,2] out) {
       d = full([3, 2], 9, f32); a = load(A, [0, 0], [1, 2]);
       x = assemble(d, a, [2, 0]); store(O, [0, 0], x); }),
   "O", "9 9 9 9 1 2"},
  {"sem-6.3", "full gives a constant valid tile",
   K(kernel k(O: i32[1,3] out) { store(O, [0, 0], full([1, 3], -7, i32)); }),
   "O", "-7 -7 -7"},
  {"sem-6.4", "slice at an offset in both dims",
   K(kernel k(A: f32[3,3] in = [1, 2, 3, 4, 5, 6, 7, 8, 9], O: f32[2,2] out) {
       store(O, [0, 0], slice(load(A, [0, 0], [3, 3]), [1, 1], [2, 2])); }),
   "O", "5 6 8 9"},
  {"sem-6.5", "slice past the valid rows has valid 0: nothing stored",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], O: f32[1,3] out) {
       a = load(A, [0, 0], [2, 3], valid=[1, 3]); store(O, [0, 0], slice(a, [1, 0], [1, 3])); }),
   "O", "c c c"},
  {"sem-6.6", "slice with a loop-variable offset",
   K(kernel k(A: f32[1,4] in = [1, 2, 3, 4], O: f32[1,4] out) {
       a = load(A, [0, 0], [1, 4]);
       for i in range(0, 4) { store(O, [0, 3 - i], slice(a, [0, i], [1, 1])); } }),
   "O", "4 3 2 1"},
  {"sem-6.7", "slice of a mat tile, then a slice of the slice: valid clamps twice",
   K(kernel k(A: f32[4,2] in = [1, 2, 3, 4, 5, 6, 7, 8], O: f32[2,1] out) {
       a = load(A, [0, 0], [4, 2], valid=[3, 1], space=mat);
       s1 = slice(a, [1, 0], [3, 2]); s2 = slice(s1, [1, 0], [2, 1]); store(O, [0, 0], s2); }),
   "O", "5 c"},
  {"sem-6.8", "assemble writes only src's valid part (its undefined row does not overwrite dst)",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[3,2] out) {
       d = full([3, 2], 0, f32); a = load(A, [0, 0], [2, 1], valid=[1, 1]);
       store(O, [0, 0], assemble(d, a, [1, 1])); }),
   "O", "0 0 0 1 0 0"},
  {"sem-6.9", "assemble extends dst's valid rows",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[1,2] in = [7, 8], O: f32[2,2] out) {
       d = load(A, [0, 0], [2, 2], valid=[1, 2]);
       store(O, [0, 0], assemble(d, load(B, [0, 0], [1, 2]), [1, 0])); }),
   "O", "1 2 7 8"},
  {"sem-6.10", "assemble extends dst's valid columns; columns past off + src.vc stay out",
   K(kernel k(A: f32[2,4] in = [1, 2, 3, 4, 5, 6, 7, 8], B: f32[2,2] in = [10, 20, 30, 40], O: f32[2,4] out) {
       d = load(A, [0, 0], [2, 4], valid=[2, 1]);
       store(O, [0, 0], assemble(d, load(B, [0, 0], [2, 2]), [0, 1])); }),
   "O", "1 10 20 c 5 30 40 c"},
  {"sem-6.11", "full i32 fills every element",
   K(kernel k(O: i32[2,1] out) { store(O, [0, 0], full([2, 1], 2147483647, i32)); }),
   "O", "2147483647 2147483647"},
  {"sem-6.12", "full i32 accepts INT32_MIN",
   K(kernel k(O: i32[1,2] out) { store(O, [0, 0], full([1, 2], -2147483648, i32)); }),
   "O", "-2147483648 -2147483648"},
  {"sem-6.13", "full f32 keeps -0 and negative values",
   K(kernel k(O: f32[1,2] out) {
       store(O, [0, 0], full([1, 1], -0, f32)); store(O, [0, 1], full([1, 1], -1.5, f32)); }),
   "O", "0x80000000 -1.5"},
  {"sem-6.14", "assemble in a loop builds a tile row by row (offset from the loop variable)",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], B: f32[3,2] in = [10, 20, 30, 40, 50, 60], O: f32[3,2] out) {
       accu = load(A, [0, 0], [3, 2], valid=[0, 2]);
       for i in range(0, 3) { r = load(B, [2 - i, 0], [1, 2]); accu = assemble(accu, r, [i, 0]); }
       store(O, [0, 0], accu); }),
   "O", "50 60 30 40 10 20"},
  /* ---- matmul ----------------------------------------------------------------------- */
  {"sem-7.1", "matmul sums k in order over a.vc",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [5, 6, 7, 8], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(B, [0, 0], [2, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "19 22 43 50"},
  {"sem-7.2", "matmul with trans_b",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [5, 6, 7, 8], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(B, [0, 0], [2, 2], space=mat);
       store(O, [0, 0], matmul(a, b, trans_b=1)); }),
   "O", "17 23 39 53"},
  {"sem-7.3", "f16 x f16 -> f32: products kept in f32, not rounded to f16",
   K(kernel k(A: f16[1,2] in = [1.0009765625, 2], B: f16[2,1] in = [1.0009765625, 0.5], O: f32[1,1] out) {
       a = load(A, [0, 0], [1, 2], space=mat); b = load(B, [0, 0], [2, 1], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "0x40002004"},
  {"sem-7.4", "i32 matmul products and sums wrap",
   K(kernel k(A: i32[2,2] in = [65536, 3, 2147483647, 1], B: i32[2,1] in = [65536, 5], O: i32[2,1] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(B, [0, 0], [2, 1], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "15 -65531"},
  {"sem-7.5", "k runs only to a.vc (b's extra valid row is ignored)",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], B: f32[3,2] in = [1, 1, 1, 1, 100, 100], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 3], valid=[2, 2], space=mat); b = load(B, [0, 0], [3, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "3 3 9 9"},
  {"sem-7.6", "matmul result valid is [a.vr, b.vc]",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [5, 6, 7, 8], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2], space=mat); b = load(B, [0, 0], [2, 2], valid=[2, 1], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "19 c c c"},
  {"sem-7.7", "trans_b with partial valid: result valid [a.vr, b.vr]",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[3,2] in = [1, 0, 0, 1, 9, 9], O: f32[2,3] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(B, [0, 0], [3, 2], valid=[2, 2], space=mat);
       store(O, [0, 0], matmul(a, b, trans_b=1)); }),
   "O", "1 2 c 3 4 c"},
  {"sem-7.8", "matmul_acc adds the accumulator once, after its own product chain (pto-isa's TMATMUL_ACC)",
   K(kernel k(X: f32[1,1] in = [100000000], E: f32[1,1] in = [1], A: f32[1,3] in = [1, -100000000, 1],
              B: f32[3,1] in = [1, 1, 1], O: f32[1,1] out) {
       c = matmul(load(X, [0, 0], [1, 1], space=mat), load(E, [0, 0], [1, 1], space=mat));
       r = matmul_acc(c, load(A, [0, 0], [1, 3], space=mat), load(B, [0, 0], [3, 1], space=mat));
       store(O, [0, 0], r); }),
   "O", "0"},
  {"sem-7.9", "each step is one fused multiply-add (pto-isa's TMATMUL): 2^-24 survives",
   K(kernel k(A: f32[1,2] in = [1, 1.000244140625], B: f32[2,1] in = [-1.00048828125, 1.000244140625], O: f32[1,1] out) {
       store(O, [0, 0], matmul(load(A, [0, 0], [1, 2], space=mat), load(B, [0, 0], [2, 1], space=mat))); }),
   "O", "0x33800000"},
  {"sem-7.10", "matmul reads vec operands; its acc result feeds a vector op",
   K(kernel k(A: f32[1,2] in = [1, 2], O: f32[1,1] out) {
       a = load(A, [0, 0], [1, 2]); b = full([2, 1], 3, f32);
       store(O, [0, 0], adds(matmul(a, b), 1)); }),
   "O", "10"},
  {"sem-7.11", "matmul_acc valid is the per-dim minimum of c's valid and the product's",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], I: f32[2,2] in = [1, 0, 0, 1], O: f32[2,2] out) {
       a1 = load(A, [0, 0], [2, 2], valid=[1, 2], space=mat); e = load(I, [0, 0], [2, 2], space=mat);
       a = load(A, [0, 0], [2, 2], space=mat);
       c = matmul(a1, e); store(O, [0, 0], matmul_acc(c, a, e)); }),
   "O", "2 4 c c"},
  {"sem-7.12", "a.vc = 0: every result element is the empty sum +0",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [5, 6, 7, 8], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[2, 0], space=mat); b = load(B, [0, 0], [2, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "0x00000000 0x00000000 0x00000000 0x00000000"},
  {"sem-7.13", "i32 matmul_acc wraps the accumulator",
   K(kernel k(X: i32[1,1] in = [2147483647], E: i32[1,1] in = [1], O: i32[1,1] out) {
       x = load(X, [0, 0], [1, 1], space=mat); e = load(E, [0, 0], [1, 1], space=mat);
       store(O, [0, 0], matmul_acc(matmul(x, e), e, e)); }),
   "O", "-2147483648"},
  {"sem-7.14", "matmul_acc with trans_b",
   K(kernel k(A: f32[1,2] in = [1, 2], B: f32[1,2] in = [3, 4], O: f32[1,1] out) {
       a = load(A, [0, 0], [1, 2], space=mat); b = load(B, [0, 0], [1, 2], space=mat);
       store(O, [0, 0], matmul_acc(matmul(a, b, trans_b=1), a, b, trans_b=1)); }),
   "O", "22"},
  /* ---- paged gather ----------------------------------------------------------------- */
  {"sem-8.1", "paged gather translates through the page table",
   K(kernel k(S: i32[4,1] in = [10, 11, 12, 13], I: i32[3] in = [0, 1, 2], T: i32[2] in = [1, 0],
              O: i32[4,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=4); store(O, [0, 0], g); }),
   "O", "12 13 10 c"},
  {"sem-8.2", "a page entry out of range is R-GATHER-RANGE",
   K(kernel k(S: i32[4,1] in = [10, 11, 12, 13], I: i32[1] in = [2], T: i32[2] in = [0, 5],
              O: i32[1,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=1); store(O, [0, 0], g); }),
   "O", "R-GATHER-RANGE"},
  {"sem-8.3", "block_size 1: a permuted table and a repeated index",
   K(kernel k(S: i32[4,1] in = [10, 11, 12, 13], I: i32[5] in = [0, 1, 2, 3, 1], T: i32[4] in = [3, 1, 0, 2],
              O: i32[5,1] out) {
       g = paged_gather(S, I, T, block_size=1, size=1, max_indices=5); store(O, [0, 0], g); }),
   "O", "13 11 10 12 11"},
  {"sem-8.4", "block_size 3: shared page, partly filled last page, fewer indices than max_indices",
   K(kernel k(S: i32[7,1] in = [10, 11, 12, 13, 14, 15, 16], I: i32[5] in = [0, 3, 5, 7, 8], T: i32[3] in = [2, 0, 0],
              O: i32[6,1] out) {
       g = paged_gather(S, I, T, block_size=3, size=1, max_indices=6); store(O, [0, 0], g); }),
   "O", "16 10 12 11 12 c"},
  {"sem-8.5", "block_size 4 with size 2 and col_off 1",
   K(kernel k(S: f32[8,3] in = [0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23, 4, 14, 24, 5, 15, 25, 6, 16, 26, 7, 17, 27],
              I: i32[3] in = [1, 6, 4], T: i32[2] in = [1, 0], O: f32[4,2] out) {
       g = paged_gather(S, I, T, block_size=4, size=2, max_indices=4, col_off=1); store(O, [0, 0], g); }),
   "O", "15 25 12 22 10 20 c c"},
  {"sem-8.6", "gather into mat, stored from the cube side",
   K(kernel k(S: f32[4,2] in = [1, 2, 3, 4, 5, 6, 7, 8], I: i32[2] in = [3, 0], T: i32[1] in = [0], O: f32[2,2] out) {
       g = paged_gather(S, I, T, block_size=4, size=2, max_indices=2, space=mat); store(O, [0, 0], g); }),
   "O", "7 8 1 2"},
  {"sem-8.7", "a negative index is R-GATHER-RANGE",
   K(kernel k(S: i32[4,1] in = [10, 11, 12, 13], I: i32[2] in = [0, -1], T: i32[2] in = [0, 1], O: i32[2,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=2); store(O, [0, 0], g); }),
   "O", "R-GATHER-RANGE"},
  {"sem-8.8", "an index on a page past the end of the table is R-GATHER-RANGE",
   K(kernel k(S: i32[8,1] in = [0, 1, 2, 3, 4, 5, 6, 7], I: i32[1] in = [4], T: i32[2] in = [0, 1], O: i32[1,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=1); store(O, [0, 0], g); }),
   "O", "R-GATHER-RANGE"},
  {"sem-8.9", "a physical row past the source (partly filled last page) is R-GATHER-RANGE",
   K(kernel k(S: i32[5,1] in = [0, 1, 2, 3, 4], I: i32[2] in = [0, 1], T: i32[2] in = [2, 0], O: i32[2,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=2); store(O, [0, 0], g); }),
   "O", "R-GATHER-RANGE"},
  {"sem-8.10", "a negative page-table entry is R-GATHER-RANGE",
   K(kernel k(S: i32[4,1] in = [0, 1, 2, 3], I: i32[1] in = [0], T: i32[2] in = [-1, 0], O: i32[1,1] out) {
       g = paged_gather(S, I, T, block_size=2, size=1, max_indices=1); store(O, [0, 0], g); }),
   "O", "R-GATHER-RANGE"},
  {"sem-8.11", "f16 gather keeps the bits; rows past len(idx) are not stored",
   K(kernel k(S: f16[3,2] in = [0.1, -2, 1, 1, 0.5, 0.25], I: i32[2] in = [2, 0], T: i32[1] in = [0], O: f16[3,2] out) {
       g = paged_gather(S, I, T, block_size=3, size=2, max_indices=3); store(O, [0, 0], g); }),
   "O", "0.5 0.25 0x2e66 0xc000 c c"},
  /* ---- explicit split ------------------------------------------------------------------ */
  {"sem-9.1", "split_aiv: each lane stores its half",
   K(kernel k(A: f32[4,1] in = [1, 2, 3, 4], O: f32[4,1] out) {
       a = load(A, [0, 0], [4, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); store(O, [l*2, 0], muls(h, 10)); } }),
   "O", "10 20 30 40"},
  {"sem-9.2", "aic_gather joins the halves for a cube op",
   K(kernel k(A: f32[4,1] in = [1, 2, 3, 4], I: f32[1,1] in = [1], O: f32[4,1] out) {
       a = load(A, [0, 0], [4, 1], space=mat); e = load(I, [0, 0], [1, 1], space=mat);
       for l in split_aiv(2) {
         h = adds(aiv_shard(a, up_down), 1); j = aic_gather(h, up_down);
         store(O, [0, 0], matmul(j, e)); } }),
   "O", "2 3 4 5"},
  {"sem-9.10", "if/else on the lane: each lane takes its own branch",
   K(kernel k(A: f32[4,1] in = [1, 2, 3, 4], O: f32[4,1] out) {
       a = load(A, [0, 0], [4, 1], space=mat);
       for l in split_aiv(2) {
         h = aiv_shard(a, up_down);
         if l == 0 { h = muls(h, 10); } else { h = adds(h, 100); }
         store(O, [l*2, 0], h); } }),
   "O", "10 20 103 104"},
  {"sem-9.11", "a bounded while runs while its condition holds, at most max times (lane 1 stops at the bound)",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat);
       for l in split_aiv(2) {
         h = aiv_shard(a, up_down); n = imax(0, 0);
         while n < 2 + 5 * l max 4 { h = muls(h, 2); n = imin(n + 1, 9); }
         store(O, [l, 0], h); } }),
   "O", "4 32"},
  {"sem-9.12", "a store under a branch: only the lane that takes it writes",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat);
       for l in split_aiv(2) {
         h = aiv_shard(a, up_down);
         if subblock_idx() >= 1 { store(O, [l, 0], h); } } }),
   "O", "c 2"},
  {"sem-9.3", "aiv_shard left_right: each lane stores its column half",
   K(kernel k(A: f32[1,4] in = [1, 2, 3, 4], O: f32[2,4] out) {
       a = load(A, [0, 0], [1, 4], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, left_right); store(O, [l, l*2], h); } }),
   "O", "1 2 c c c c 3 4"},
  {"sem-9.4", "odd extent 5 up_down: halves of 3, lane 1 has 2 valid rows",
   K(kernel k(A: f32[5,1] in = [1, 2, 3, 4, 5], O: f32[6,1] out) {
       a = load(A, [0, 0], [5, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); store(O, [l*3, 0], muls(h, 2)); } }),
   "O", "2 4 6 8 10 c"},
  {"sem-9.5", "subblock_idx() in an index, bound to a name and used directly",
   K(kernel k(A: f32[4,1] in = [1, 2, 3, 4], O: f32[4,2] out) {
       a = load(A, [0, 0], [4, 1], space=mat);
       for l in split_aiv(2) {
         x = subblock_idx(); h = aiv_shard(a, up_down);
         store(O, [x*2, 0], h); store(O, [subblock_idx()*2, 1], neg(h)); } }),
   "O", "1 -1 2 -2 3 -3 4 -4"},
  {"sem-9.6", "aic_gather left_right: lane 0 full, lane 1 partial -> valid S + v1",
   K(kernel k(A: f32[2,4] in = [1, 2, 3, 4, 5, 6, 7, 8], O: f32[2,4] out) {
       a = load(A, [0, 0], [2, 4], valid=[2, 3], space=mat);
       for l in split_aiv(2) {
         h = adds(aiv_shard(a, left_right), 1); j = aic_gather(h, left_right); store(O, [0, 0], j); } }),
   "O", "2 3 4 c 6 7 8 c"},
  {"sem-9.7", "aic_gather when lane 0 is not full: valid is lane 0's",
   K(kernel k(A: f32[4,1] in = [5, 6, 7, 8], O: f32[4,1] out) {
       a = load(A, [0, 0], [4, 1], valid=[1, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); j = aic_gather(h, up_down); store(O, [0, 0], j); } }),
   "O", "5 c c c"},
  {"sem-9.8", "a loop inside split_aiv: each lane swaps its two rows",
   K(kernel k(A: f32[4,2] in = [1, 2, 3, 4, 5, 6, 7, 8], O: f32[4,2] out) {
       a = load(A, [0, 0], [4, 2], space=mat);
       for l in split_aiv(2) {
         h = aiv_shard(a, up_down);
         for i in range(0, 2) { store(O, [l*2 + 1 - i, 0], slice(h, [i, 0], [1, 2])); } } }),
   "O", "3 4 1 2 7 8 5 6"},
  {"sem-9.9", "copies are of tiles only: a copied lane scalar is no index variable (E-INDEX)",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat);
       for l in split_aiv(2) { x = subblock_idx(); y = x; store(O, [y, 0], aiv_shard(a, up_down)); } }),
   "O", "E-INDEX"},
  {"sem-9.13", "both lanes storing their differing halves to one window race: E-SPLIT-STORE",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[1,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); store(O, [0, 0], h); } }),
   "O", "E-SPLIT-STORE"},
  {"sem-9.14", "vector statements run lane 0 then lane 1: lane 0's store is seen by lane 1's (lane=0 store, then a load)",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[1,1] out, P: f32[1,1] inout) {
       a = load(A, [0, 0], [2, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); store(P, [0, 0], h, lane=0);
         x = load(P, [0, 0], [1, 1]); store(O, [0, 0], x, lane=0); } }),
   "O", "1"},
  {"sem-9.11", "shard of a matmul result inside the region, then a per-lane row_sum",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], I: f32[2,2] in = [1, 0, 0, 1], O: f32[2,1] out) {
       a = load(A, [0, 0], [2, 2], space=mat); e = load(I, [0, 0], [2, 2], space=mat);
       for l in split_aiv(2) { h = aiv_shard(matmul(a, e), up_down); store(O, [l, 0], row_sum(h)); } }),
   "O", "3 7"},
  /* ---- runtime errors ---------------------------------------------------------------- */
  {"sem-10.1", "a dynamic GM window out of bounds is R-GM-OOB... caught statically as E-BOUNDS",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       for i in range(0, 2) { t = load(A, [i, 0], [2, 2]); store(O, [0, 0], t); } }),
   "O", "E-BOUNDS"},
  {"sem-10.2", "load from an out tensor is E-DIR",
   K(kernel k(O: f32[1,1] out, P: f32[1,1] out) { t = load(O, [0, 0], [1, 1]); store(P, [0, 0], t); }),
   "P", "E-DIR"},
  {"sem-10.3", "store to an in tensor is E-DIR",
   K(kernel k(A: f32[1,1] in = [1]) { t = load(A, [0, 0], [1, 1]); store(A, [0, 0], t); }),
   "A", "E-DIR"},
  {"sem-10.4", "div on i32 is E-TYPE",
   K(kernel k(A: i32[1,1] in = [4], O: i32[1,1] out) { a = load(A, [0, 0], [1, 1]); store(O, [0, 0], div(a, a)); }),
   "O", "E-TYPE"},
  {"sem-10.5", "add of different physical shapes is E-SHAPE",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]); b = load(A, [0, 0], [2, 1]); store(O, [0, 0], add(a, b)); }),
   "O", "E-SHAPE"},
  {"sem-10.6", "row_expand with a [1,C] vector is E-SHAPE",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]); store(O, [0, 0], row_expand_add(a, load(A, [0, 0], [1, 2]))); }),
   "O", "E-SHAPE"},
  {"sem-10.7", "matmul with mismatched K is E-SHAPE",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(A, [0, 0], [1, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "E-SHAPE"},
  {"sem-10.8", "matmul f16 x f32 is E-TYPE",
   K(kernel k(H: f16[1,1] in = [1], F: f32[1,1] in = [1], O: f32[1,1] out) {
       store(O, [0, 0], matmul(load(H, [0, 0], [1, 1], space=mat), load(F, [0, 0], [1, 1], space=mat))); }),
   "O", "E-TYPE"},
  {"sem-10.9", "matmul_acc with a vec accumulator is E-SPACE",
   K(kernel k(A: f32[1,1] in = [1], O: f32[1,1] out) {
       a = load(A, [0, 0], [1, 1], space=mat); c = full([1, 1], 0, f32);
       store(O, [0, 0], matmul_acc(c, a, a)); }),
   "O", "E-SPACE"},
  {"sem-10.10", "load valid outside the tile is E-VALID",
   K(kernel k(A: f32[4,4] in = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], O: f32[2,2] out) {
       store(O, [0, 0], load(A, [0, 0], [2, 2], valid=[3, 1])); }),
   "O", "E-VALID"},
  {"sem-10.11", "slice window past the tile is E-WINDOW",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       store(O, [0, 0], slice(load(A, [0, 0], [2, 2]), [1, 0], [2, 2])); }),
   "O", "E-WINDOW"},
  {"sem-10.12", "assemble takes a mat destination (the compiler moves it to vec)",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       d = load(A, [0, 0], [2, 2], space=mat); s = load(A, [0, 0], [1, 2]);
       store(O, [0, 0], assemble(d, s, [1, 0])); }),
   "O", "1 2 1 2"},
  {"sem-10.13", "subblock_idx() outside split_aiv is E-SCOPE",
   K(kernel k(O: i32[2,1] out) { store(O, [subblock_idx(), 0], full([1, 1], 1, i32)); }),
   "O", "E-SCOPE"},
  {"sem-10.14", "aiv_shard outside split_aiv is E-SCOPE",
   K(kernel k(A: f32[2,1] in = [1, 2], O: f32[1,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat); store(O, [0, 0], aiv_shard(a, up_down)); }),
   "O", "E-SCOPE"},
  {"sem-10.15", "a cube statement reading a lane value is E-LANE",
   K(kernel k(A: f32[2,1] in = [1, 2], E: f32[1,1] in = [1], O: f32[1,1] out) {
       a = load(A, [0, 0], [2, 1], space=mat); e = load(E, [0, 0], [1, 1], space=mat);
       for l in split_aiv(2) { h = aiv_shard(a, up_down); m = matmul(h, e); store(O, [0, 0], m); } }),
   "O", "E-LANE"},
  {"sem-10.16", "reassignment that changes the physical shape is E-REDEF",
   K(kernel k(O: f32[1,2] out) { t = full([1, 1], 0, f32); t = full([1, 2], 0, f32); store(O, [0, 0], t); }),
   "O", "E-REDEF"},
  {"sem-10.17", "exp on i32 is E-TYPE",
   K(kernel k(O: i32[1,1] out) { store(O, [0, 0], exp(full([1, 1], 1, i32))); }),
   "O", "E-TYPE"},
  {"sem-10.18", "full i32 with a non-integer value is E-TYPE",
   K(kernel k(O: i32[1,1] out) { store(O, [0, 0], full([1, 1], 1.5, i32)); }),
   "O", "E-TYPE"},
  {"sem-10.19", "paged_gather with len(idx) > max_indices is E-SHAPE",
   K(kernel k(S: i32[4,1] in = [0, 1, 2, 3], I: i32[3] in = [0, 1, 2], T: i32[1] in = [0], O: i32[2,1] out) {
       store(O, [0, 0], paged_gather(S, I, T, block_size=4, size=1, max_indices=2)); }),
   "O", "E-SHAPE"},
  {"sem-10.20", "paged_gather with col_off + size past the columns is E-BOUNDS",
   K(kernel k(S: i32[2,2] in = [0, 1, 2, 3], I: i32[1] in = [0], T: i32[1] in = [0], O: i32[1,2] out) {
       store(O, [0, 0], paged_gather(S, I, T, block_size=2, size=2, max_indices=1, col_off=1)); }),
   "O", "E-BOUNDS"},
  {"sem-10.21", "storing an f32 tile into an i32 tensor is E-TYPE",
   K(kernel k(O: i32[1,1] out) { store(O, [0, 0], full([1, 1], 1, f32)); }),
   "O", "E-TYPE"},
  {"sem-10.22", "matmul whose b is statically shorter than a.vc along K is E-VALID",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat); b = load(A, [0, 0], [2, 2], valid=[1, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "E-VALID"},
  {"sem-10.23", "a store window past the tensor is E-BOUNDS",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       store(O, [1, 0], load(A, [0, 0], [2, 2])); }),
   "O", "E-BOUNDS"},
  {"sem-10.24", "a name first assigned in a loop is not visible after it (E-UNDEF)",
   K(kernel k(O: f32[1,1] out) { for i in range(0, 1) { t = full([1, 1], 1, f32); } store(O, [0, 0], t); }),
   "O", "E-UNDEF"},
  {"sem-10.25", "reassigning an outer vector name inside split_aiv is E-LANE",
   K(kernel k(O: f32[1,1] out) {
       x = full([1, 1], 0, f32);
       for l in split_aiv(2) { x = full([1, 1], 1, f32); } store(O, [0, 0], x); }),
   "O", "E-LANE"},
  {"sem-10.26", "assemble of different dtypes is E-TYPE",
   K(kernel k(O: f32[2,2] out) { store(O, [0, 0], assemble(full([2, 2], 0, f32), full([1, 1], 1, i32), [0, 0])); }),
   "O", "E-TYPE"},
  {"sem-10.27", "a loop step of 0 is E-RANGE",
   K(kernel k(O: f32[1,1] out) { for i in range(0, 2, 0) { store(O, [0, 0], full([1, 1], 1, f32)); } }),
   "O", "E-RANGE"},
  /* ---- poison ------------------------------------------------------------------------ */
  {"sem-11.1", "row_expand with a vector shorter than a's valid rows is E-VALID at compile time",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [2, 1], valid=[1, 1]);
       store(O, [0, 0], row_expand_add(a, v)); }),
   "O", "E-VALID"},
  {"sem-11.13", "row_expand with a vector of more valid rows than a's is E-VALID (pto-isa asserts equal valid rows)",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2]); v = load(V, [0, 0], [2, 1]);
       store(O, [0, 0], row_expand_add(a, v)); }),
   "O", "E-VALID"},
  {"sem-11.14", "col_expand with a vector of more valid columns than a's is E-VALID",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[1,2] in = [1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[2, 1]); v = load(V, [0, 0], [1, 2]);
       store(O, [0, 0], col_expand_mul(a, v)); }),
   "O", "E-VALID"},
  {"sem-11.15", "row_expand with equal valid rows, fewer than the physical ones",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [10, 20], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2]); v = load(V, [0, 0], [2, 1], valid=[1, 1]);
       store(O, [0, 0], row_expand_add(a, v)); }),
   "O", "11 12 c c"},
  {"sem-11.2", "a statically mismatched expansion is E-VALID even if only defined rows are stored",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[2,1] in = [1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [2, 1], valid=[1, 1]);
       store(O, [0, 0], slice(row_expand_add(a, v), [0, 0], [1, 2])); }),
   "O", "E-VALID"},
  {"sem-11.3", "matmul whose b has fewer valid rows than a.vc (not known statically): R-POISON",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [5, 6, 7, 8], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat);
       b = load(B, [0, 0], [2, 2], space=mat); b = load(B, [0, 0], [2, 2], valid=[1, 2], space=mat);
       store(O, [0, 0], matmul(a, b)); }),
   "O", "R-POISON"},
  {"sem-11.4", "assemble with a gap row: the gap is undefined, storing it is R-POISON",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], B: f32[1,2] in = [7, 8], O: f32[3,2] out) {
       d = load(A, [0, 0], [3, 2], valid=[1, 2]);
       store(O, [0, 0], assemble(d, load(B, [0, 0], [1, 2]), [2, 0])); }),
   "O", "R-POISON"},
  {"sem-11.5", "assemble with a gap row: the rows around the gap are defined",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], B: f32[1,2] in = [7, 8], O: f32[3,2] out) {
       d = load(A, [0, 0], [3, 2], valid=[1, 2]); x = assemble(d, load(B, [0, 0], [1, 2]), [2, 0]);
       store(O, [0, 0], slice(x, [0, 0], [1, 2])); store(O, [2, 0], slice(x, [2, 0], [1, 2])); }),
   "O", "1 2 c c 7 8"},
  {"sem-11.6", "assemble of an empty src still applies the max rule (valid rows 2): R-POISON",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], B: f32[1,2] in = [7, 8], O: f32[3,2] out) {
       d = load(A, [0, 0], [3, 2], valid=[1, 2]); s = load(B, [0, 0], [1, 2], valid=[0, 2]);
       store(O, [0, 0], assemble(d, s, [2, 0])); }),
   "O", "R-POISON"},
  {"sem-11.7", "an undefined element poisons only its own row of a row_sum",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], B: f32[1,1] in = [10], O: f32[2,1] out) {
       d = load(A, [0, 0], [2, 3], valid=[2, 2]); x = assemble(d, load(B, [0, 0], [1, 1]), [0, 2]);
       store(O, [0, 0], slice(row_sum(x), [0, 0], [1, 1])); }),
   "O", "13 c"},
  {"sem-11.8", "storing the poisoned row of that row_sum is R-POISON",
   K(kernel k(A: f32[2,3] in = [1, 2, 3, 4, 5, 6], B: f32[1,1] in = [10], O: f32[2,1] out) {
       d = load(A, [0, 0], [2, 3], valid=[2, 2]); x = assemble(d, load(B, [0, 0], [1, 1]), [0, 2]);
       store(O, [0, 0], row_sum(x)); }),
   "O", "R-POISON"},
  {"sem-11.9", "col_expand with a vector shorter than a's valid columns is E-VALID",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], V: f32[1,2] in = [2, 2], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]); v = load(V, [0, 0], [1, 2], valid=[1, 1]);
       store(O, [0, 0], col_expand_mul(a, v)); }),
   "O", "E-VALID"},
  {"sem-11.10", "an undefined element of a poisons only its row of matmul",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[1,1] in = [5], I: f32[2,2] in = [1, 0, 0, 1], O: f32[2,2] out) {
       d = load(A, [0, 0], [2, 2], valid=[2, 1]); x = assemble(d, load(B, [0, 0], [1, 1]), [0, 1]);
       m = matmul(x, load(I, [0, 0], [2, 2], space=mat));
       store(O, [0, 0], slice(m, [0, 0], [1, 2])); }),
   "O", "1 5 c c"},
  {"sem-11.11", "storing the poisoned matmul row is R-POISON",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[1,1] in = [5], I: f32[2,2] in = [1, 0, 0, 1], O: f32[2,2] out) {
       d = load(A, [0, 0], [2, 2], valid=[2, 1]); x = assemble(d, load(B, [0, 0], [1, 1]), [0, 1]);
       store(O, [0, 0], matmul(x, load(I, [0, 0], [2, 2], space=mat))); }),
   "O", "R-POISON"},
  {"sem-11.12", "a poisoned matmul_acc accumulator poisons the result: R-POISON",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], I: f32[2,2] in = [1, 0, 0, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat);
       e = load(I, [0, 0], [2, 2], space=mat); e = load(I, [0, 0], [2, 2], valid=[1, 2], space=mat);
       c = matmul(a, e); f = load(I, [0, 0], [2, 2], space=mat);
       store(O, [0, 0], matmul_acc(c, a, f)); }),
   "O", "R-POISON"},
  /* ---- loops and reassignment ------------------------------------------------------- */
  {"sem-12.1", "a running max carried across iterations",
   K(kernel k(A: f32[1,4] in = [3, -1, 7, 2], O: f32[1,5] out) {
       m = full([1, 1], -1000, f32);
       for j in range(0, 4) { x = load(A, [0, j], [1, 1]); m = max(m, x); store(O, [0, j], m); }
       store(O, [0, 4], m); }),
   "O", "3 3 7 7 7"},
  {"sem-12.2", "online softmax state: running max m and sum l carried and rescaled",
   K(kernel k(A: f32[1,4] in = [0, 0, -200, -200], O: f32[1,2] out) {
       m = full([1, 1], -1000, f32); l = full([1, 1], 0, f32);
       for j in range(0, 2) {
         s = load(A, [0, j*2], [1, 2]);
         mn = max(m, row_max(s));
         p = exp(row_expand_sub(s, mn));
         alpha = exp(sub(m, mn));
         l = add(mul(l, alpha), row_sum(p));
         m = mn; }
       store(O, [0, 0], l); store(O, [0, 1], m); }),
   "O", "2 0"},
  {"sem-12.3", "accumulate by reassigning a name in a loop",
   K(kernel k(A: f32[3,2] in = [1, 2, 3, 4, 5, 6], O: f32[1,2] out) {
       accu = full([1, 2], 0, f32);
       for i in range(0, 3) { accu = add(accu, load(A, [i, 0], [1, 2])); }
       store(O, [0, 0], accu); }),
   "O", "9 12"},
  {"sem-12.4", "a zero-trip loop leaves a carried name at its old value",
   K(kernel k(O: f32[1,1] out) {
       x = full([1, 1], 5, f32); for i in range(0, 0) { x = adds(x, 1); } store(O, [0, 0], x); }),
   "O", "5"},
  {"sem-12.5", "a reassigned name's valid shape changes per iteration",
   K(kernel k(A: f32[1,3] in = [1, 2, 3], O: f32[2,3] out) {
       for i in range(1, 3) { t = load(A, [0, 0], [1, 3], valid=[1, i]); store(O, [i - 1, 0], t); } }),
   "O", "1 c c 1 2 c"},
  {"sem-12.6", "a copy is a value, not an alias",
   K(kernel k(O: f32[1,2] out) {
       x = full([1, 1], 1, f32); y = x; x = adds(x, 1); store(O, [0, 0], y); store(O, [0, 1], x); }),
   "O", "1 2"},
  {"sem-12.7", "a matmul_acc accumulator carried across a loop (blocked dot product)",
   K(kernel k(A: f32[1,3] in = [1, 2, 3], B: f32[3,1] in = [4, 5, 6], O: f32[1,1] out) {
       c = matmul(load(A, [0, 0], [1, 1], space=mat), load(B, [0, 0], [1, 1], space=mat));
       for k2 in range(1, 3) {
         c = matmul_acc(c, load(A, [0, k2], [1, 1], space=mat), load(B, [k2, 0], [1, 1], space=mat)); }
       store(O, [0, 0], c); }),
   "O", "32"},
  {"sem-12.8", "a loop-local name reassigned within one iteration",
   K(kernel k(A: f32[1,2] in = [1, 2], O: f32[2,2] out) {
       for i in range(0, 2) {
         t = load(A, [0, 0], [1, 2]); t = muls(t, 2); t = row_expand_add(t, full([1, 1], 0.5, f32));
         store(O, [i, 0], t); } }),
   "O", "2.5 4.5 2.5 4.5"},
  {"sem-12.9", "running max and min over i32 blocks with a step-2 loop",
   K(kernel k(A: i32[1,6] in = [4, -9, 12, 3, -20, 7], O: i32[1,2] out) {
       mx = full([1, 1], -2147483647, i32); mn = full([1, 1], 2147483647, i32);
       for j in range(0, 6, 2) {
         b = load(A, [0, j], [1, 2]); mx = max(mx, row_max(b)); mn = min(mn, row_min(b)); }
       store(O, [0, 0], mx); store(O, [0, 1], mn); }),
   "O", "12 -20"},
  /* ---- bf16, i8, i16 (language.md 11.1) ------------------------------------------------- */
  {"sem-13.1", "bf16 adds rounds to nearest, ties to even (1 + 2^-8 down, 1 + 3*2^-8 up, 2 + 2^-8 down)",
   K(kernel k(A: bf16[1,3] in = [1, 1.0078125, 2], O: bf16[1,3] out) {
       store(O, [0, 0], adds(load(A, [0, 0], [1, 3]), 0.00390625)); }),
   "O", "0x3f80 0x3f82 0x4000"},
  {"sem-13.2", "bf16 overflows to inf and keeps NaN",
   K(kernel k(A: bf16[1,1] in = [3e38], O: bf16[1,2] out) {
       store(O, [0, 0], muls(load(A, [0, 0], [1, 1]), 2));
       store(O, [0, 1], neg(sqrt(full([1, 1], -1, bf16)))); }),
   "O", "0x7f80 0x7fc0"},
  {"sem-13.3", "i8 add, muls, neg and abs wrap modulo 2^8",
   K(kernel k(A: i8[1,4] in = [100, 127, -128, -128], O: i8[1,4] out) {
       store(O, [0, 0], adds(load(A, [0, 0], [1, 1]), 100)); store(O, [0, 1], muls(load(A, [0, 1], [1, 1]), 2));
       store(O, [0, 2], neg(load(A, [0, 2], [1, 1]))); store(O, [0, 3], abs(load(A, [0, 3], [1, 1]))); }),
   "O", "-56 -2 -128 -128"},
  {"sem-13.4", "i16 mul wraps modulo 2^16",
   K(kernel k(A: i16[1,2] in = [300, -32768], O: i16[1,2] out) {
       a = load(A, [0, 0], [1, 2]); store(O, [0, 0], mul(a, a)); }),
   "O", "24464 0"},
  {"sem-13.5", "an i8 row_sum wraps (100 + 100 + 100 = 44)",
   K(kernel k(A: i8[1,3] in = [100, 100, 100], O: i8[1,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [1, 3]))); }),
   "O", "44"},
  {"sem-13.6", "cast f32 -> i8 truncates and saturates, NaN gives 0",
   K(kernel k(A: f32[1,5] in = [300, -300, -2.7, 127.9, 0.5], O: i8[1,6] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 5]), i8));
       store(O, [0, 5], cast(sqrt(full([1, 1], -1, f32)), i8)); }),
   "O", "127 -128 -2 127 0 0"},
  {"sem-13.7", "cast f32 -> i16 saturates at the i16 range",
   K(kernel k(A: f32[1,3] in = [40000, -40000, 1.5], O: i16[1,3] out) {
       store(O, [0, 0], cast(load(A, [0, 0], [1, 3]), i16)); }),
   "O", "32767 -32768 1"},
  {"sem-13.8", "integer narrowing casts wrap (i32 -> i8, i32 -> i16)",
   K(kernel k(A: i32[1,3] in = [300, -129, 65535], O: i8[1,3] out, P: i16[1,3] out) {
       a = load(A, [0, 0], [1, 3]); store(O, [0, 0], cast(a, i8)); store(P, [0, 0], cast(a, i16)); }),
   "O", "44 127 -1"},
  {"sem-13.9", "integer narrowing to i16 keeps the low 16 bits",
   K(kernel k(A: i32[1,3] in = [300, -129, 65535], P: i16[1,3] out) {
       store(P, [0, 0], cast(load(A, [0, 0], [1, 3]), i16)); }),
   "P", "300 -129 -1"},
  {"sem-13.10", "cast i8 -> i32 sign-extends",
   K(kernel k(B: i8[1,2] in = [-1, -128], Q: i32[1,2] out) { store(Q, [0, 0], cast(load(B, [0, 0], [1, 2]), i32)); }),
   "Q", "-1 -128"},
  {"sem-13.11", "cast i32 -> bf16 rounds to nearest even (257 -> 256, 259 -> 260)",
   K(kernel k(A: i32[1,3] in = [257, 259, -7], O: bf16[1,3] out) { store(O, [0, 0], cast(load(A, [0, 0], [1, 3]), bf16)); }),
   "O", "0x4380 0x4382 0xc0e0"},
  {"sem-13.12", "cast f16 65504 -> bf16 rounds up to 65536, which overflows f16",
   K(kernel k(A: f16[1,1] in = [65504], O: bf16[1,1] out, P: f16[1,1] out) {
       b = cast(load(A, [0, 0], [1, 1]), bf16); store(O, [0, 0], b); store(P, [0, 0], cast(b, f16)); }),
   "P", "0x7c00"},
  {"sem-13.13", "cast f32 -> bf16 rounds once (0.1 -> 0x3dcd)",
   K(kernel k(A: f32[1,1] in = [0.1], O: bf16[1,1] out) { store(O, [0, 0], cast(load(A, [0, 0], [1, 1]), bf16)); }),
   "O", "0x3dcd"},
  {"sem-13.14", "i8 x i8 matmul accumulates in i32 (no i8 wrap)",
   K(kernel k(A: i8[1,2] in = [127, -128], B: i8[2,1] in = [127, -128], O: i32[1,1] out) {
       store(O, [0, 0], matmul(load(A, [0, 0], [1, 2], space=mat), load(B, [0, 0], [2, 1], space=mat))); }),
   "O", "32513"},
  {"sem-13.15", "bf16 x bf16 matmul accumulates in f32 (exact products)",
   K(kernel k(A: bf16[1,2] in = [1.0078125, 1], B: bf16[2,1] in = [1.0078125, 1], O: f32[1,1] out) {
       store(O, [0, 0], matmul(load(A, [0, 0], [1, 2], space=mat), load(B, [0, 0], [2, 1], space=mat))); }),
   "O", "2.01568603515625"},
  {"sem-13.16", "a bf16 row_sum accumulates in f32 and rounds once",
   K(kernel k(A: bf16[1,3] in = [1, 0.00390625, 0.00390625], O: bf16[1,1] out) {
       store(O, [0, 0], row_sum(load(A, [0, 0], [1, 3]))); }),
   "O", "0x3f81"},
  {"sem-13.17", "an i8 tile of 40 columns (padded to 64 bytes) loads and stores",
   K(kernel k(O: i8[2,40] out) { store(O, [0, 0], adds(full([2, 40], -3, i8), 1)); }),
   "O", "-2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 "
   "-2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2 -2"},
  {"sem-13.18", "an i8 output starts as canaries (0x7e)",
   K(kernel k(O: i8[1,2] out) { store(O, [0, 0], full([1, 1], 5, i8)); }),
   "O", "5 c"},
  {"sem-13.19", "full of an out-of-range i8 value is E-TYPE",
   K(kernel k(O: i8[1,1] out) { store(O, [0, 0], full([1, 1], 200, i8)); }), "O", "E-TYPE"},
  {"sem-13.20", "adds of an out-of-range i16 scalar is E-TYPE",
   K(kernel k(O: i16[1,1] out) { store(O, [0, 0], adds(full([1, 1], 1, i16), 40000)); }), "O", "E-TYPE"},
  {"sem-13.21", "matmul of i16 operands is E-TYPE",
   K(kernel k(A: i16[2,2] in, O: i32[2,2] out) {
       a = load(A, [0, 0], [2, 2], space=mat); store(O, [0, 0], matmul(a, a)); }), "O", "E-TYPE"},
  {"sem-13.22", "exp of i8 is E-TYPE",
   K(kernel k(A: i8[1,1] in, O: i8[1,1] out) { store(O, [0, 0], exp(load(A, [0, 0], [1, 1]))); }), "O", "E-TYPE"},
  {"sem-13.23", "an i8 initialiser value of 128 is E-INIT",
   K(kernel k(A: i8[1,1] in = [128], O: i8[1,1] out) { store(O, [0, 0], load(A, [0, 0], [1, 1])); }), "O", "E-INIT"},
  {"sem-13.24", "add of bf16 and f16 is E-TYPE",
   K(kernel k(O: f16[1,1] out) { store(O, [0, 0], add(full([1, 1], 1, bf16), full([1, 1], 1, f16))); }), "O", "E-TYPE"},
  {"sem-13.25", "divs of i16 is E-TYPE",
   K(kernel k(O: i16[1,1] out) { store(O, [0, 0], divs(full([1, 1], 4, i16), 2)); }), "O", "E-TYPE"},
  {"sem-13.26", "a bf16 result stored to an f32 tensor is E-TYPE",
   K(kernel k(O: f32[1,1] out) { store(O, [0, 0], full([1, 1], 1, bf16)); }), "O", "E-TYPE"},
};

/* Compare a tensor against an expectation string. */
static bool check(Sim *s, const Kernel *k, const char *out, const char *expect, char *why, size_t n) {
  const Var *v = NULL;
  for (int i = 0; i < k->np; i++)
    if (!strcmp(k->params[i]->name, out)) v = k->params[i];
  if (!v) return snprintf(why, n, "no tensor %s", out), false;
  Gm *g = sim_gm(s, v);
  const char *p = expect;
  for (int r = 0; r < g->rows; r++)
    for (int c = 0; c < g->cols; c++) {
      while (*p == ' ') p++;
      if (!*p) return snprintf(why, n, "expectation too short at [%d,%d]", r, c), false;
      uint32_t bits = sim_gm_bits(g, r, c), want;
      char *e;
      if (*p == 'c' && (p[1] == ' ' || !p[1])) {
        want = sim_canary(v->dt);
        e = (char *)p + 1;
      } else if (!strncmp(p, "0x", 2)) {
        want = (uint32_t)strtoul(p, &e, 16);
      } else if (ir_dtype_int(v->dt)) {
        want = sim_enc(v->dt, (Elem){.i = (int32_t)strtol(p, &e, 10)});
      } else {
        want = sim_enc(v->dt, (Elem){.f = strtof(p, &e)});
      }
      if (bits != want)
        return snprintf(why, n, "[%d,%d] is 0x%x, expected 0x%x (%.*s)", r, c, bits, want, (int)(e - p), p), false;
      p = e;
    }
  while (*p == ' ') p++;
  if (*p) return snprintf(why, n, "expectation has extra values: %s", p), false;
  return true;
}

static void run_case(Tap *t, const Case *cs) {
  Comp c = {.A = ir_arena_new()};
  c.src = (Src){cs->id, cs->src, strlen(cs->src)};
  Kernel *k = ir_front(&c);
  char why[512] = "";
  bool ok;
  if (!k) {
    ok = !strcmp(cs->expect, ir_diag_name(c.diag.code));
    if (!ok) snprintf(why, sizeof why, "compile error %s: %s", ir_diag_name(c.diag.code), c.diag.msg);
  } else {
    Sim *s = sim_new(k, &(SimOpts){.seed = 1});
    if (!sim_run_reference(s)) {
      ok = !strcmp(cs->expect, ir_diag_name(sim_diag(s)->code));
      if (!ok) snprintf(why, sizeof why, "runtime error %s: %s", ir_diag_name(sim_diag(s)->code), sim_diag(s)->msg);
    } else if (!strncmp(cs->expect, "E-", 2) || !strncmp(cs->expect, "R-", 2)) {
      ok = false;
      snprintf(why, sizeof why, "ran cleanly, expected %s", cs->expect);
    } else {
      ok = check(s, k, cs->out, cs->expect, why, sizeof why);
    }
    sim_free(s);
  }
  tap_ok(t, ok, cs->id, "%s", cs->what);
  if (!ok) tap_diag("%s", why);
  ir_arena_free(c.A);
}

int main(void) {
  Tap t = {0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&t, &cases[i]);
  return tap_done(&t);
}
