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
  {"sem-1.6", "storing an element outside valid... is impossible; storing poison is R-POISON",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], B: f32[2,2] in = [1, 1, 1, 1], O: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2], valid=[1, 2]); b = load(B, [0, 0], [2, 2]);
       x = assemble(b, a, [0, 0]); y = row_expand_add(b, slice(row_sum(a), [0, 0], [2, 1]));
       store(O, [0, 0], y); }),
   "O", "R-POISON"},
  {"sem-1.7", "loop-carried store offsets",
   K(kernel k(A: i32[1,4] in = [7, 8, 9, 10], O: i32[4,1] out) {
       for i in range(0, 4) { t = load(A, [0, i], [1, 1]); store(O, [3 - i, 0], t); } }),
   "O", "10 9 8 7"},
  {"sem-1.8", "f16 load/store keeps the bits",
   K(kernel k(A: f16[1,2] in = [0.5, -2], O: f16[1,2] out) {
       t = load(A, [0, 0], [1, 2]); store(O, [0, 0], t); }),
   "O", "0x3800 0xc000"},
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
  /* ---- expansion ---------------------------------------------------------------- */
  {"sem-5.1", "row_expand_sub and col_expand_mul",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out, P: f32[2,2] out) {
       a = load(A, [0, 0], [2, 2]);
       store(O, [0, 0], row_expand_sub(a, row_max(a)));
       store(P, [0, 0], col_expand_mul(a, col_sum(a))); }),
   "O", "-1 0 -1 0"},
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
  /* ---- runtime errors ---------------------------------------------------------------- */
  {"sem-10.1", "a dynamic GM window out of bounds is R-GM-OOB... caught statically as E-BOUNDS",
   K(kernel k(A: f32[2,2] in = [1, 2, 3, 4], O: f32[2,2] out) {
       for i in range(0, 2) { t = load(A, [i, 0], [2, 2]); store(O, [0, 0], t); } }),
   "O", "E-BOUNDS"},
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
        want = v->dt == DT_F16 ? SIM_CANARY_F16 : v->dt == DT_F32 ? (uint32_t)SIM_CANARY_F32 : (uint32_t)SIM_CANARY_I32;
        e = (char *)p + 1;
      } else if (!strncmp(p, "0x", 2)) {
        want = (uint32_t)strtoul(p, &e, 16);
      } else if (v->dt == DT_I32) {
        want = (uint32_t)(int32_t)strtol(p, &e, 10);
      } else {
        float f = strtof(p, &e);
        if (v->dt == DT_F16) want = sim_f32_to_f16(f);
        else memcpy(&want, &f, 4);
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
