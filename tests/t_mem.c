/* t_mem.c — addressed memory on the machine (DESIGN 14.10). Each case compiles
 * a kernel through the whole pipeline (memplan places the buffers), checks
 * that the machine runs it clean to the reference outputs, then moves one
 * buffer's offset (Var.off) as a broken planner would and checks the machine's
 * verdict: R-ALIAS naming the reader and the writer when the moved buffer
 * overwrites a live one (anywhere in its padded bytes, valid or not),
 * R-CAPACITY when it ends past its space's capacity, a clean run when it
 * lands clear of every other. */
#include "sim.h"
#include "tap.h"

#include <string.h>

typedef struct {
  const char *id, *what, *src;
  const char *move, *onto;                      /* set move's offset to onto's (+ delta), or past everything (onto NULL) */
  int delta;
  const char *expect;                           /* a code or "ok" */
  const char *reader, *writer;                  /* the message starts with reader and names writer */
} Case;

#define K(...) #__VA_ARGS__

static const Case cases[] = {
  {"mem-1", "a buffer moved onto a live one: the next read of the live one is R-ALIAS",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); c = add(a, b); store(O, [0, 0], c); }),
   "b", "a", 0, "R-ALIAS", "'a'", "'b'"},
  {"mem-2", "half an overlap is enough (the bytes, not the start, decide)",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); c = add(a, b); store(O, [0, 0], c); }),
   "b", "a", 2048, "R-ALIAS", "'a'", "'b'"},
  {"mem-3", "the same buffer moved clear of every other runs clean",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); c = add(a, b); store(O, [0, 0], c); }),
   "b", NULL, 0, "ok", NULL, NULL},
  {"mem-4", "a buffer moved onto a dead one (disjoint lifetimes) runs clean",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out, P: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); store(O, [0, 0], b);
       c = load(A, [0, 0], [16, 64]); d = muls(c, 2.0); store(P, [0, 0], d); }),
   "c", "b", 0, "ok", NULL, NULL},
  {"mem-5", "a buffer moved into the C2V reserve overwrites the popped tile: R-ALIAS names the popped value",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, X: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5)
       slots(2) {
       a = load(A, [0, 0], [16, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat); c = matmul(a, b);
       x = load(X, [0, 0], [16, 16]); y = add(c, x); w = add(c, y); store(O, [0, 0], w); }),
   "y", "_m", 0, "R-ALIAS", "'_m", "'y'"},
  {"mem-6", "a view reads its parent's bytes: a buffer moved onto the parent is R-ALIAS at the view's read",
   K(kernel k(A: f32[16, 64] in, O: f32[8, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); s = slice(a, [8, 0], [8, 64]); x = load(A, [0, 0], [8, 64]);
       y = add(s, x); store(O, [0, 0], y); }),
   "x", "a", 0, "R-ALIAS", "'s' (a view of 'a')", "'x'"},
  {"mem-7", "a mat buffer moved into the V2C reserve is overwritten by the pop: R-ALIAS at its next read",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5) slots(2) {
       x = load(A, [0, 0], [16, 16]); h = relu(x); b = load(B, [0, 0], [16, 16], space=mat);
       c = matmul(h, b); store(O, [0, 0], c); }),
   "b", "_m", 0, "R-ALIAS", "'b'", "'_m"},
  {"mem-8", "two lanes (a2a3: lane 0 and its replay, planned along both branches): y moved into the C2V reserve is R-ALIAS",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, X: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a2a3)
       slots(2) {
       a = load(A, [0, 0], [16, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat); c = matmul(a, b);
       x = load(X, [0, 0], [16, 16]); y = add(c, x); w = add(c, y); store(O, [0, 0], w); }),
   "y", "_m", 0, "R-ALIAS", "'_m", "'y'"},
  {"mem-9", "a value's whole padded buffer is its own: a buffer moved onto the rows past its valid ones is R-ALIAS",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out, P: f32[8, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64], valid=[8, 64]); b = load(A, [8, 0], [8, 64]); c = adds(b, 1.0);
       store(O, [0, 0], a); store(P, [0, 0], c); }),
   "b", "a", 2048, "R-ALIAS", "'a'", "'b'"},
  {"mem-10", "one row more (a valid row overwritten) is R-ALIAS",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out, P: f32[8, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64], valid=[8, 64]); b = load(A, [8, 0], [8, 64]); c = adds(b, 1.0);
       store(O, [0, 0], a); store(P, [0, 0], c); }),
   "b", "a", 1792, "R-ALIAS", "'a'", "'b'"},
  {"mem-11", "a buffer placed past its space's capacity (a planner that forgot a reserve in its check) is R-CAPACITY at its def",
   K(kernel k(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); c = add(a, b); store(O, [0, 0], c); }),
   "b", "a", 245760 - 2048, "R-CAPACITY", "'b'", "past the 245760 bytes"},
};

static Var *find(Kernel *k, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < k->nvars; i++)   /* "_m": the first temporary of that prefix (a popped value) */
    if (k->vars[i]->kind == VK_TILE && !strncmp(k->vars[i]->name, name, n) && (name[0] == '_' || !k->vars[i]->name[n]))
      return k->vars[i];
  return NULL;
}

/* The digests of every output, as text. */
static void digests(Sim *s, const Kernel *k, char *out, size_t n) {
  out[0] = 0;
  for (int i = 0; i < k->np; i++)
    if (k->params[i]->dir != DIR_IN)
      snprintf(out + strlen(out), n - strlen(out), "%016llx ", (unsigned long long)sim_digest(sim_gm(s, k->params[i])));
}

int main(void) {
  Tap t = {0};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const Case *cs = &cases[ci];
    Comp c = {.A = ir_arena_new(), .src = (Src){cs->id, cs->src, strlen(cs->src)}, .o = {.split = -1, .target = -1}};
    Kernel *front = ir_front(&c);
    Kernel *k = front ? pass_pipeline_from(&c, front, &(PipeOpts){0}) : NULL;
    if (!tap_ok(&t, k && k->planned, cs->id, "compiles and is planned%s%s", k ? "" : ": ", k ? "" : c.diag.msg)) {
      ir_arena_free(c.A);
      continue;
    }
    char want[256], got[256];
    Sim *g = sim_new(front, &(SimOpts){.seed = 7});
    tap_ok(&t, sim_run_reference(g), cs->id, "reference run");
    digests(g, front, want, sizeof want);
    Sim *s = sim_new(k, &(SimOpts){.seed = 7});
    bool ran = sim_run_machine(s, 0);
    digests(s, k, got, sizeof got);
    tap_ok(&t, ran && !strcmp(want, got), cs->id, "as placed, the machine runs it to the reference outputs%s%s",
           ran ? "" : ": ", ran ? "" : sim_diag(s)->msg);
    sim_free(s);

    Var *mv = find(k, cs->move), *on = cs->onto ? find(k, cs->onto) : NULL;
    if (!tap_ok(&t, mv && mv->off >= 0 && (!cs->onto || (on && on->off >= 0)), cs->id, "'%s' and '%s' are placed",
                cs->move, cs->onto ? cs->onto : "-")) {
      sim_free(g);
      ir_arena_free(c.A);
      continue;
    }
    int32_t was = mv->off;
    if (on) {
      mv->off = on->off + cs->delta;
    } else {                                    /* past every placed byte of its space */
      int64_t top = 0;
      for (int i = 0; i < k->nvars; i++) {
        const Var *v = k->vars[i];
        if (v->kind == VK_TILE && v->sp == mv->sp && v->off >= 0) {
          int64_t e = v->off + ir_tile_bytes(v->sp, v->dt, v->R, v->C);
          if (e > top) top = e;
        }
      }
      mv->off = (int32_t)top;
      k->top[mv->sp] = (int32_t)(top + ir_tile_bytes(mv->sp, mv->dt, mv->R, mv->C));   /* the space grows */
    }
    tap_ok(&t, mv->off != was, cs->id, "'%s' moved from 0x%x to 0x%x", cs->move, (unsigned)was, (unsigned)mv->off);
    s = sim_new(k, &(SimOpts){.seed = 7});
    ran = sim_run_machine(s, 0);
    const Diag *d = sim_diag(s);
    if (!strcmp(cs->expect, "ok")) {
      digests(s, k, got, sizeof got);
      tap_ok(&t, ran && !strcmp(want, got), cs->id, "%s%s%s", cs->what, ran ? "" : ": ", ran ? "" : d->msg);
    } else {
      bool code = !ran && !strcmp(ir_diag_name(d->code), cs->expect);
      tap_ok(&t, code, cs->id, "%s (got %s)", cs->what, ran ? "a clean run" : ir_diag_name(d->code));
      tap_ok(&t, code && !strncmp(d->msg, cs->reader, strlen(cs->reader)) && strstr(d->msg, cs->writer), cs->id,
             "the message names the reader %s first, then the writer %s", cs->reader, cs->writer);
      if (!ran) tap_diag("%s", d->msg);
    }
    sim_free(s);
    sim_free(g);
    ir_arena_free(c.A);
  }
  return tap_done(&t);
}
