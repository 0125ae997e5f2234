/* t_plan.c — the machine holds a memory plan to the physical machine. Each
 * case compiles a kernel through memplan, checks that the machine runs the
 * plan as placed to the reference outputs, then breaks the plan (or the
 * program) the way a plausible compiler bug would and checks the machine's
 * verdict: its code and two words of its message.
 *   capacity-1.x  the machine's capacity table (sim_capacity) is DESIGN 4's,
 *                 and the compiler's (ir_capacity) agrees with it
 *   capacity-2.x  a buffer, popped entry or operand ending past its space's
 *                 physical bytes is R-CAPACITY, whatever Kernel.top says
 *   pipe-over-1.x a push into a slot past the planned reserve (more live
 *                 entries than it holds, or fewer in a slot past it)
 *   depth-1.x     a pipe depth counted too small (fewer slots, the reserve
 *                 planned for them): R-DEADLOCK
 *   alias-1.x     R-ALIAS across loop iterations, beyond a value's valid
 *                 rows, through views (R-PIPE-FREED for a view of a freed
 *                 pop)
 * Each case also runs on the plain machine (the oracle's second opinion),
 * which must see the same pipe protocol violation or none. */
#include "sim.h"
#include "tap.h"

#include <string.h>

typedef enum {
  M_MOVE,                                       /* Var.off of a = b's + n (b NULL: = n), Kernel.top left alone */
  M_ENTRY,                                      /* Kernel.entry[dir] = n, Kernel.reserve[dir] = slots x n */
  M_RESERVE,                                    /* Kernel.reserve[dir] = n */
  M_SLOTS,                                      /* before memplan: pipe dir declares n slots */
  M_FREE_AFTER,                                 /* the aiv's first tfree moved to right after a's definition */
  M_REDEF,                                      /* b's definitions and uses become a's (a assigned again) */
} Mut;

typedef struct {
  const char *id, *what, *src;
  Mut mut;
  const char *a, *b;
  int dir;                                      /* PipeDir */
  long n;
  const char *expect;                           /* a code, or "ok": the reference outputs */
  const char *w1, *w2;                          /* words of the message */
  const char *loopvar;                          /* the failing read ran with this loop variable ... */
  int iter;                                     /* ... at this value */
} Case;

#define K(...) #__VA_ARGS__
/* two vec buffers live together */
#define TWO(T)                                                                                                   \
  "kernel k(A: f32[16, 64] in, O: f32[16, 64] out) split(none) target(" T ") slots(2) {"                       \
  " a = load(A, [0, 0], [16, 64]); b = adds(a, 1.0); c = add(a, b); store(O, [0, 0], c); }"
/* three matmul results live together on the vector side: a C2V depth of 3 */
#define THREE(T)                                                                                                 \
  "kernel k(A: f32[16, 16] in, B: f32[16, 16] in, O: f32[16, 16] out) split(none) target(" T ") slots(2) {"    \
  " a = load(A, [0, 0], [16, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat);"                         \
  " c = matmul(a, b); d = matmul(b, a); e = matmul(a, a);"                                                       \
  " x = add(c, d); y = add(x, e); z = add(y, c); store(O, [0, 0], z); }"
/* two vector results live together on the cube side: a V2C depth of 2 */
#define V2C2                                                                                                     \
  K(kernel k(A: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5) slots(2) {                          \
      x = load(A, [0, 0], [16, 16]); h = relu(x); g = adds(x, 1.0); c = matmul(h, g); store(O, [0, 0], c); })

static const Case cases[] = {
  {"capacity-2.1", "a vec buffer ending past a5's vec is R-CAPACITY at its definition", TWO("a5"),
   M_MOVE, "b", NULL, 0, 245760 - 2048, "R-CAPACITY", "'b'", "245760", NULL, 0},
  {"capacity-2.2", "the same on a2a3, whose vec holds less", TWO("a2a3"),
   M_MOVE, "b", NULL, 0, 188416 - 2048, "R-CAPACITY", "'b'", "188416", NULL, 0},
  {"capacity-2.3", "a buffer past the plan's top but inside the space runs clean (no abort)", TWO("a5"),
   M_MOVE, "b", NULL, 0, 188416 - 4096, "ok", NULL, NULL, NULL, 0},
  {"capacity-2.4", "a popped entry whose reserve slot ends past vec is R-CAPACITY naming its slot", THREE("a5"),
   M_ENTRY, NULL, NULL, 0, 122880, "R-CAPACITY", "slot 2", "245760", NULL, 0},
  {"capacity-2.5", "a mat buffer ending past mat is R-CAPACITY", THREE("a5"),
   M_MOVE, "a", NULL, 0, 524288 - 512, "R-CAPACITY", "'a'", "524288", NULL, 0},
  {"capacity-2.6", "an acc buffer ending past a5's acc is R-CAPACITY", THREE("a5"),
   M_MOVE, "c", NULL, 0, 262144 - 512, "R-CAPACITY", "'c'", "262144", NULL, 0},
  {"capacity-2.7", "the same on a2a3, whose acc holds half", THREE("a2a3"),
   M_MOVE, "c", NULL, 0, 131072 - 512, "R-CAPACITY", "'c'", "131072", NULL, 0},
  {"pipe-over-1.1", "a C2V reserve planned for 2 of 3 live entries is R-PIPE-OVER at the third push", THREE("a5"),
   M_RESERVE, NULL, NULL, 0, 2048, "R-PIPE-OVER", "C2V push #2 goes to slot 2 (3 entries live", "holds 2", NULL, 0},
  {"pipe-over-1.2", "a V2C reserve planned for 1 of 2 live entries is R-PIPE-OVER at the second push", V2C2,
   M_RESERVE, NULL, NULL, 1, 1024, "R-PIPE-OVER", "V2C push #1 goes to slot 1 (2 entries live", "holds 1", NULL, 0},
  {"pipe-over-1.3", "no C2V reserve at all (entry 0) is R-PIPE-OVER at the first push", THREE("a5"),
   M_ENTRY, NULL, NULL, 0, 0, "R-PIPE-OVER", "C2V push #0", "holds 0", NULL, 0},
  {"pipe-over-1.4", "a C2V reserve planned for 1 of 2 slots: the second push goes to slot 1, outside it, though only "
   "one entry is live (whatever the schedule)",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat); c = matmul(a, b);
       h = relu(c); d = matmul(h, b); x = adds(d, 1.0); store(O, [0, 0], x); }),
   M_RESERVE, NULL, NULL, 0, 1024, "R-PIPE-OVER", "C2V push #1 goes to slot 1 (1 entry live", "holds 1", NULL, 0},
  {"depth-1.1", "a C2V depth counted one too small (2 slots for 3 live entries, reserve planned for 2) is R-DEADLOCK",
   THREE("a5"), M_SLOTS, NULL, NULL, 0, 2, "R-DEADLOCK", "all slots taken", "nothing pushed", NULL, 0},
  {"alias-1.1", "a value defined before a loop, its bytes reused by a buffer written later in the body: the read in "
   "the loop's last iteration is R-ALIAS",
   K(kernel k(A: f32[16, 64] in, B: f32[16, 64] in, O: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); b = load(B, [0, 0], [16, 64]);
       for i in range(0, 2) { y = add(a, b); z = muls(y, 0.5); b = adds(z, 1.0); }
       store(O, [0, 0], b); }),
   M_MOVE, "z", "a", 0, 0, "R-ALIAS", "'a'", "'z'", "i", 1},
  {"alias-1.2", "a popped entry with 8 valid rows of 16: the next entry's slot over its rows past the valid ones is "
   "R-ALIAS (the whole padded entry is the value's)",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, O: f32[16, 16] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 16], valid=[8, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat);
       c = matmul(a, b); d = matmul(b, b); x = add(c, d); store(O, [0, 0], x); }),
   M_ENTRY, NULL, NULL, 0, 512, "R-ALIAS", "'_m", "at 0x00200-0x00600", NULL, 0},
  {"alias-1.3", "a view read after its parent is assigned again (in its own bytes) is R-ALIAS",
   K(kernel k(A: f32[16, 64] in, O: f32[8, 64] out, P: f32[16, 64] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 64]); s = slice(a, [8, 0], [8, 64]); b = adds(a, 1.0); y = add(s, s);
       store(O, [0, 0], y); store(P, [0, 0], b); }),
   M_REDEF, "a", "b", 0, 0, "R-ALIAS", "'s' (a view of 'a')", "assigned again", NULL, 0},
  {"alias-1.4", "a view of a popped value read after the value's tfree (freed before the view's reads) is "
   "R-PIPE-FREED",
   K(kernel k(A: f32[16, 16] in, B: f32[16, 16] in, O: f32[8, 16] out) split(none) target(a5) slots(2) {
       a = load(A, [0, 0], [16, 16], space=mat); b = load(B, [0, 0], [16, 16], space=mat); c = matmul(a, b);
       s = slice(c, [0, 0], [8, 16]); y = adds(s, 1.0); store(O, [0, 0], y); }),
   M_FREE_AFTER, "s", NULL, 0, 0, "R-PIPE-FREED", "'s' (a view of '_m", "after tfree", NULL, 0},
  {"alias-1.5", "a buffer placed off the 32-byte grid, 16 bytes into a live one, is R-ALIAS (not an abort)",
   TWO("a5"), M_MOVE, "b", "a", 0, 16, "R-ALIAS", "'a'", "'b' at 0x00010-0x01010", NULL, 0},
};

static Var *find(Kernel *k, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; i < k->nvars; i++)   /* "_m": the first temporary of that prefix (a popped value) */
    if ((k->vars[i]->kind == VK_TILE || k->vars[i]->kind == VK_LOOP) && !strncmp(k->vars[i]->name, name, n) &&
        (name[0] == '_' || !k->vars[i]->name[n]))
      return k->vars[i];
  return NULL;
}

static Stmt *pipe_decl(Kernel *k, int dir) {
  for (int i = 0; i < k->body.n; i++) {
    Stmt *s = k->body.v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_pipe && s->rhs.call->args[0].e == dir) return s;
  }
  return NULL;
}

/* Every definition and use of b in body becomes a. */
static void redef(Body *b, Var *from, Var *to) {
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->dst == from) s->dst = to;
    if (s->k == S_OP && s->rhs.k == A_VAR && s->rhs.var == from) s->rhs.var = to;
    if (s->k == S_OP && s->rhs.k == A_CALL)
      for (int j = 0; j < s->rhs.call->nargs; j++)
        if (s->rhs.call->args[j].k == A_VAR && s->rhs.call->args[j].var == from) s->rhs.call->args[j].var = to;
    redef(&s->body, from, to);
    redef(&s->other, from, to);
  }
}

/* Through memplan; M_SLOTS changes the pipe declaration first (mut false: as the compiler has it). */
static Kernel *compile(Comp *c, const Kernel *front, const Case *cs, bool mut) {
  if (cs->mut != M_SLOTS || !mut) return pass_pipeline_from(c, front, &(PipeOpts){.stop_after = "memplan"});
  Kernel *k = pass_pipeline_from(c, front, &(PipeOpts){.stop_after = "unroll"});
  Stmt *p = k ? pipe_decl(k, cs->dir) : NULL;
  if (!p) return NULL;
  p->rhs.call->args[1].num = (double)cs->n;
  pass_memplan(c, k);
  return k;
}

/* Break k as cs says; false when what it names is missing. */
static bool mutate(Kernel *k, const Case *cs) {
  Var *a = cs->a ? find(k, cs->a) : NULL, *b = cs->b ? find(k, cs->b) : NULL;
  if ((cs->a && !a) || (cs->b && !b)) return false;
  switch (cs->mut) {
  case M_MOVE:
    a->off = (int32_t)((b ? b->off : 0) + cs->n);
    return true;
  case M_ENTRY: {
    Stmt *p = pipe_decl(k, cs->dir);
    k->entry[cs->dir] = (int32_t)cs->n;
    k->reserve[cs->dir] = k->entry[cs->dir] * (p ? (int32_t)p->rhs.call->args[1].num : 0);
    return p != NULL;
  }
  case M_RESERVE:
    k->reserve[cs->dir] = (int32_t)cs->n;
    return true;
  case M_SLOTS:
    return true;
  case M_FREE_AFTER: {
    Body *bd = &ir_func(k, FN_AIV)->body;
    int f = -1, d = -1;
    for (int i = 0; i < bd->n; i++) {
      if (f < 0 && bd->v[i]->k == S_OP && bd->v[i]->rhs.k == A_CALL && bd->v[i]->rhs.call->op == OP_tfree) f = i;
      if (bd->v[i]->dst == a) d = i;
    }
    if (f < 0 || d < 0) return false;
    Stmt *fr = bd->v[f];
    memmove(&bd->v[f], &bd->v[f + 1], (size_t)(bd->n - f - 1) * sizeof *bd->v);
    if (f < d) d--;
    memmove(&bd->v[d + 2], &bd->v[d + 1], (size_t)(bd->n - d - 2) * sizeof *bd->v);
    bd->v[d + 1] = fr;
    return true;
  }
  case M_REDEF:
    redef(&ir_func(k, FN_AIV)->body, b, a);
    return true;
  }
  return false;
}

/* The digests of every output, as text. */
static void digests(Sim *s, const Kernel *k, char *out, size_t n) {
  out[0] = 0;
  for (int i = 0; i < k->np; i++)
    if (k->params[i]->dir != DIR_IN)
      snprintf(out + strlen(out), n - strlen(out), "%016llx ", (unsigned long long)sim_digest(sim_gm(s, k->params[i])));
}

static void table(Tap *t) {
  static const struct {
    Target t;
    Space sp;
    int64_t bytes;
  } phys[] = {
      {TGT_A2A3, SP_VEC, 188416}, {TGT_A2A3, SP_MAT, 524288}, {TGT_A2A3, SP_LEFT, 65536},
      {TGT_A2A3, SP_RIGHT, 65536}, {TGT_A2A3, SP_ACC, 131072}, {TGT_A5, SP_VEC, 245760},
      {TGT_A5, SP_MAT, 524288},    {TGT_A5, SP_LEFT, 65536},   {TGT_A5, SP_RIGHT, 65536},
      {TGT_A5, SP_ACC, 262144},
  };
  for (size_t i = 0; i < sizeof phys / sizeof phys[0]; i++) {
    const char *tn = ir_target_name(phys[i].t), *sn = ir_space_name(phys[i].sp);
    tap_ok(t, sim_capacity(phys[i].t, phys[i].sp) == phys[i].bytes, "capacity-1.1", "the machine's %s %s is %lld bytes",
           tn, sn, (long long)phys[i].bytes);
    tap_ok(t, ir_capacity(phys[i].t, phys[i].sp) == phys[i].bytes, "capacity-1.2", "the compiler's %s %s agrees",
           tn, sn);
  }
}

int main(void) {
  Tap t = {0};
  table(&t);
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const Case *cs = &cases[ci];
    Comp c = {.A = ir_arena_new(), .src = (Src){cs->id, cs->src, strlen(cs->src)}, .o = {.split = -1, .target = -1}};
    Kernel *front = ir_front(&c);
    char want[256], got[256];
    Sim *g = front ? sim_new(front, &(SimOpts){.seed = 7}) : NULL;
    if (!tap_ok(&t, g && sim_run_reference(g), cs->id, "reference run%s%s", front ? "" : ": ", front ? "" : c.diag.msg)) {
      sim_free(g);
      ir_arena_free(c.A);
      continue;
    }
    digests(g, front, want, sizeof want);
    Kernel *k = compile(&c, front, cs, false);
    if (tap_ok(&t, k && k->planned, cs->id, "compiles and is planned")) {
      Sim *s = sim_new(k, &(SimOpts){.seed = 7});
      bool ran = sim_run_machine(s, 0);
      digests(s, k, got, sizeof got);
      tap_ok(&t, ran && !strcmp(want, got), cs->id, "as placed, the machine runs it to the reference outputs%s%s",
             ran ? "" : ": ", ran ? "" : sim_diag(s)->msg);
      sim_free(s);
    }
    k = compile(&c, front, cs, true);
    if (!tap_ok(&t, k && k->planned && mutate(k, cs), cs->id, "compiles, is planned and can be broken as the case says")) {
      sim_free(g);
      ir_arena_free(c.A);
      continue;
    }
    Sim *s = sim_new(k, &(SimOpts){.seed = 7});
    bool ran = sim_run_machine(s, 0);
    const Diag *d = sim_diag(s);
    if (!strcmp(cs->expect, "ok")) {
      digests(s, k, got, sizeof got);
      tap_ok(&t, ran && !strcmp(want, got), cs->id, "%s%s%s", cs->what, ran ? "" : ": ", ran ? "" : d->msg);
    } else {
      bool code = !ran && !strcmp(ir_diag_name(d->code), cs->expect);
      tap_ok(&t, code, cs->id, "%s (got %s)", cs->what, ran ? "a clean run" : ir_diag_name(d->code));
      tap_ok(&t, !ran && strstr(d->msg, cs->w1) && strstr(d->msg, cs->w2), cs->id, "the message says %s and %s",
             cs->w1, cs->w2);
      if (cs->loopvar) {
        const Var *iv = find(k, cs->loopvar);
        tap_ok(&t, !ran && iv && s->ival[s->task][iv->id] == cs->iter, cs->id, "raised with %s = %d", cs->loopvar,
               cs->iter);
      }
      if (!ran) tap_diag("%s", d->msg);
    }
    sim_free(s);
    /* The oracle's second opinion, the plain machine (no addresses, unbounded
     * pipes), sees the pipe protocol's violations too and nothing of the plan. */
    bool proto = !strcmp(cs->expect, "R-PIPE-FREED");
    s = sim_new(k, &(SimOpts){.seed = 7, .plain = true});
    ran = sim_run_machine(s, 0);
    digests(s, k, got, sizeof got);
    tap_ok(&t, proto ? !ran && sim_diag(s)->code == R_PIPE_FREED : ran && !strcmp(want, got), cs->id,
           "the plain machine gives %s%s%s", proto ? cs->expect : "the reference outputs", ran ? "" : ": ",
           ran ? "" : sim_diag(s)->msg);
    sim_free(s);
    sim_free(g);
    ir_arena_free(c.A);
  }
  return tap_done(&t);
}
