/* t_probe.c — tests of oracle/probe.c without the real toolchain: which tiles a
 * probe kernel stores, what each one blames, that its inputs are the
 * kernel's, and how a run's outputs are read (the first wrong tile, a wrong
 * store, a masked miscompile). */
#include "orc.h"
#include "tap.h"

#include <string.h>

/* c (acc) crosses to the vector side in d: a wrong d with a right c blames the transfer */
static const char *const mixed_k =
    "kernel pr(A: f32[16,16] in, B: f32[16,32] in, X: f32[16,32] in, O: f32[16,32] out) split(up_down) {\n"
    "  a = load(A, [0, 0], [16, 16], space=mat);\n"
    "  b = load(B, [0, 0], [16, 32], space=mat);\n"
    "  c = matmul(a, b);\n"
    "  x = load(X, [0, 0], [16, 32]);\n"
    "  d = add(c, x);\n"
    "  store(O, [0, 0], relu(d));\n"
    "}\n";
static const char *const loop_k =
    "kernel lp(A: f32[64,8] in, O: f32[64,8] out) {\n"
    "  for i in range(0, 4) {\n"
    "    store(O, [i*16, 0], abs(load(A, [i*16, 0], [16, 8])));\n"
    "  }\n"
    "}\n";
static const char *const scalar_k =
    "kernel sc(A: f32[8,8] in, O: f32[8,8] out) {\n"
    "  store(O, [0, 0], load(A, [0, 0], [8, 8]));\n"
    "}\n";

typedef struct {
  Src src;
  Comp c;
  Kernel *k;
  OrcProbe p;
  Comp pc;
  Kernel *pk;
  bool built;
} Fix;

static void fix_open(Fix *f, const char *name, const char *text, int split) {
  memset(f, 0, sizeof *f);
  f->src = (Src){name, text, strlen(text)};
  f->c = (Comp){.A = ir_arena_new(), .src = f->src, .o = {.split = -1, .target = -1}};
  f->k = ir_front(&f->c);
  if (!f->k) return;
  f->built = orc_probe_build(f->c.A, &f->src, f->k, split, -1, &f->p);
  if (!f->built) return;
  f->pc = (Comp){.A = ir_arena_new(), .src = f->p.src, .o = {.split = -1, .target = -1}};
  f->pk = ir_front(&f->pc);
}

static void fix_close(Fix *f) {
  ir_arena_free(f->c.A);
  if (f->pc.A) ir_arena_free(f->pc.A);
}

/* outs: copies of g's outputs, the ones named in bad (parameter indexes, -1 ends) changed */
static int blame_with(Fix *f, Sim *g, const int *bad) {
  unsigned char *outs[64] = {0};
  for (int i = 0; i < f->pk->np && i < 64; i++) {
    const Var *T = f->pk->params[i];
    if (T->dir == DIR_IN) continue;
    Gm *a = sim_gm(g, T);
    size_t n = (size_t)a->rows * a->cols * (size_t)ir_dtype_bytes(T->dt);
    outs[i] = malloc(n);
    memcpy(outs[i], a->bytes, n);
    for (const int *b = bad; *b >= 0; b++)
      if (*b == i) outs[i][0] ^= 1;
  }
  int r = orc_probe_blame(&f->p, f->pk, g, outs);
  for (int i = 0; i < 64; i++) free(outs[i]);
  return r;
}

int main(void) {
  Tap t = {0};
  Fix f;
  fix_open(&f, "mixed", mixed_k, MODE_UD);
  tap_ok(&t, f.k && f.built && f.pk, "probe-1.1", "a mixed kernel has a probe kernel, and it parses back");
  if (!f.pk) {
    tap_diag("%s", f.pk ? "" : f.built ? f.pc.diag.msg : f.c.diag.msg);
    return tap_done(&t);
  }
  tap_ok(&t, f.p.n == 4 && f.p.first == 4 && f.pk->np == 8, "probe-1.2",
         "the acc and vec tiles are probed, not the mat ones: %d probes after %d parameters", f.p.n, f.p.first);
  bool outs = true;
  for (int i = f.p.first; i < f.pk->np; i++) outs &= f.pk->params[i]->dir == DIR_OUT;
  tap_ok(&t, outs, "probe-1.3", "every probe is an output parameter after the kernel's own");
  const char *want[4] = {"matmul", "load", "transfer", "elementwise"};
  bool bl = f.p.n == 4;
  for (int i = 0; bl && i < 4; i++) bl = !strcmp(f.p.blame[i], want[i]);
  tap_ok(&t, bl, "probe-1.4", "blames in program order: matmul, load, transfer (d's acc operand), elementwise");
  tap_ok(&t, !strcmp(f.p.what[2], "d = add at 6:7") && !strncmp(f.p.what[3], "relu at 7:20", 12), "probe-1.5",
         "each probe names its statement (%s; %s)", f.p.what[2], f.p.what[3]);

  Sim *g0 = sim_new(f.k, &(SimOpts){.seed = 7}), *p0 = sim_new(f.pk, &(SimOpts){.seed = 7});
  bool same = true;
  for (int i = 0; i < f.k->np; i++) {
    Gm *a = sim_gm(g0, f.k->params[i]), *b = sim_gm(p0, f.pk->params[i]);
    same &= !memcmp(a->bytes, b->bytes, (size_t)a->rows * a->cols * 4);
  }
  tap_ok(&t, same, "probe-1.6", "the probe kernel's inputs from a seed are the kernel's");
  Sim *g = sim_new(f.pk, &(SimOpts){.inputs = p0});
  tap_ok(&t, sim_run_reference(g), "probe-1.7", "the probe kernel's golden run runs");
  tap_ok(&t, blame_with(&f, g, (int[]){-1}) == ORC_PROBE_MASKED, "probe-2.1",
         "every output right: masked (the probes changed what went wrong)");
  tap_ok(&t, blame_with(&f, g, (int[]){3, -1}) == ORC_PROBE_STORE, "probe-2.2",
         "only the kernel's output wrong: the store");
  tap_ok(&t, blame_with(&f, g, (int[]){3, 6, 7, -1}) == 2, "probe-2.3",
         "probes 2 and 3 wrong: the first, 2 (d, a transfer)");
  tap_ok(&t, blame_with(&f, g, (int[]){6, -1}) == ORC_PROBE_MASKED, "probe-2.4",
         "a probe wrong but the kernel's output right: masked");
  sim_free(g);
  sim_free(g0);
  sim_free(p0);
  fix_close(&f);

  fix_open(&f, "loop", loop_k, MODE_NONE);
  tap_ok(&t, f.pk && f.p.n == 2 && !strcmp(f.p.blame[0], "load") && !strcmp(f.p.blame[1], "elementwise") &&
                 strstr(f.p.text, "for i in range(0, 4, 1) {\n    _t1 = load"),
         "probe-3.1", "tiles inside a loop are probed inside it (%d probes)", f.p.n);
  fix_close(&f);
  fix_open(&f, "scalar", scalar_k, MODE_NONE);
  tap_ok(&t, f.k && f.built && f.p.n == 1, "probe-3.2", "a kernel that only moves a tile probes the load");
  fix_close(&f);
  return tap_done(&t);
}
