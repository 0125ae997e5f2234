/* infer_space.c — pass 3: flat typed IR -> flat IR where every operand is in
 * the space its op needs. Vector ops take vec tiles, matmul takes mat
 * operands, a store from mat on a5 goes through vec, a slice of a fractal
 * (mat/acc) tile whose window breaks the 16-row box is cut in vec (the type
 * checker already typed it vec), and a source `move` within one space is a
 * copy. Where a tile is in
 * another space a `move` is inserted just before the use (vec <- acc/mat is a
 * C2V transfer, mat <- vec a V2C transfer, mat <- acc stays on the cube). A
 * moved value is reused until its source is reassigned; the cache is dropped
 * at loop and split_aiv boundaries, where a loop-carried value may change. */
#include "ptoc.h"

typedef struct {
  Var *src, *dst;
} Moved;

typedef struct {
  Comp *c;
  Kernel *k;
  Target tgt;
  Moved cache[64];
  int n;
} IS;

/* Can a slice of a fractal (sp) tile with R rows at offset off and shape sh be
 * a subview: sizes and every offset term multiples of the box (rows waived for
 * a one-row tile)? The type checker asks the same question: a slice that is
 * not is a vector tile (language.md 9.3). */
bool ir_slice_on_box(Space sp, Dtype dt, int R, const Arg *o, const Arg *sh) {
  int box[2];
  ir_box(sp, dt, &box[0], &box[1]);
  for (int d = 0; d < 2; d++) {
    if (d == 0 && R == 1) continue;
    if (sh->ix[d].c % box[d] || o->ix[d].c % box[d]) return false;
    for (int j = 0; j < o->ix[d].n; j++)
      if (o->ix[d].k[j] % box[d]) return false;
  }
  return true;
}

static bool box_aligned(const Call *c) {
  const Var *t = c->args[0].var;
  return ir_slice_on_box(t->sp, t->dt, t->R, &c->args[1], &c->args[2]);
}

static Space need(IS *s, const Call *c, int i) {
  const OpInfo *oi = &ir_ops[c->op];
  Arg *a = &c->args[i];
  if (a->k != A_VAR || a->var->kind != VK_TILE) return SP_NONE;
  switch (oi->kind) {
  case K_SLICE:                                 /* a window that breaks the fractal box is cut in vec */
    return i == 0 && (a->var->sp == SP_MAT || a->var->sp == SP_ACC) && !box_aligned(c) ? SP_VEC : SP_NONE;
  case K_BIN: case K_BINS: case K_UN: case K_CAST: case K_RRED: case K_CRED:
  case K_REXP: case K_CEXP: case K_ASSEMBLE: case K_SETVALID: case K_TRANS: case K_RESHAPE:
    return SP_VEC;
  case K_MATMUL:
    if (c->op == OP_tmatmul || c->op == OP_tmatmul_acc) return SP_NONE;   /* lowered: operands in left/right */
    return IR_ACC_MATMUL(c->op) && i == 0 ? SP_ACC : SP_MAT;
  case K_STORE:
    return s->tgt == TGT_A5 && a->var->sp == SP_MAT ? SP_VEC : SP_NONE;
  default:
    return SP_NONE;
  }
}

static void forget(IS *s, const Var *v) {
  for (int i = 0; i < s->n; i++)
    if (s->cache[i].src == v || s->cache[i].dst == v) s->cache[i--] = s->cache[--s->n];
}

static void body(IS *s, Body *b) {
  Body out = {0};
  s->n = 0;
  for (int i = 0; i < b->n; i++) {
    Stmt *st = b->v[i];
    if (st->k != S_OP) {
      body(s, &st->body);
      body(s, &st->other);
      s->n = 0;
      ir_body_push(s->c, &out, st);
      continue;
    }
    if (st->rhs.k == A_CALL && st->rhs.call->op == OP_move && st->rhs.call->args[0].k == A_VAR &&
        st->rhs.call->args[0].var->sp == (Space)st->rhs.call->args[1].e)
      st->rhs = st->rhs.call->args[0];          /* a move within one space is a copy (no tmov mat->mat, acc->acc) */
    if (st->rhs.k == A_CALL) {
      Call *c = st->rhs.call;
      for (int a = 0; a < c->nargs; a++) {
        Space sp = need(s, c, a);
        Var *v = c->args[a].var;
        if (sp == SP_NONE || v->sp == sp) continue;
        Var *m = NULL;
        for (int j = 0; j < s->n && !m; j++)
          if (s->cache[j].src == v && s->cache[j].dst->sp == sp) m = s->cache[j].dst;
        if (!m) {
          m = ir_temp(s->c, s->k, "m", VK_TILE, c->args[a].loc);
          m->dt = v->dt;
          m->R = v->R;
          m->C = v->C;
          m->sp = sp;
          Stmt *mv = ir_stmt_op(s->c, c->args[a].loc, m, OP_move, 2);
          Call *mc = mv->rhs.call;
          mc->args[0].k = A_VAR;
          mc->args[0].var = v;
          mc->args[1].k = A_SPACE;
          mc->args[1].e = sp;
          ir_body_push(s->c, &out, mv);
          if (s->n == 64) s->n = 0;
          s->cache[s->n++] = (Moved){v, m};
        }
        c->args[a].var = m;
        if (ir_ops[c->op].kind == K_SLICE && st->dst) st->dst->sp = SP_VEC;   /* the window is a vector tile now */
      }
    }
    if (st->dst) forget(s, st->dst);
    ir_body_push(s->c, &out, st);
  }
  *b = out;
}

void pass_infer_space(Comp *c, Kernel *k) {
  if (k->expanded) return;                      /* per-core programs carry their own transfers */
  IS s = {.c = c, .k = k, .tgt = k->target};
  body(&s, &k->body);
}
