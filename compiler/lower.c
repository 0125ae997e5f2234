/* lower.c — pass 11: per-core IR on tile values -> the lowered program on
 * explicit buffers in destination-passing style. Each core's program starts
 * with `x = alloc_tile(space, dt, [R, C], [Rp, Cp]);` for every buffer it
 * writes (the allocation padded to its layout's alignment by layout.c; the
 * valid shape is unchanged), then:
 *   load  -> x = tload(x, T, [r, c], [pr, pc])     (partition = valid extents)
 *            x = set_validshape(x, vr, vc)         (a static zero extent: an empty tile)
 *   store -> tstore(T, [r, c], t, part=[pr, pc])   (part= when t's valid is static;
 *            none when it is statically empty)
 *   slice -> subview(...)                          (explicit valid operands kept)
 *   matmul(a, b) -> _l = tmov(a, left); _r = tmov(b, right); c = tmatmul(_l, _r)
 *   move inside one core -> tmov
 * The partition view of GM is folded into tload/tstore's operands. Popped
 * values live in their pipe slot and views (subview) in their parent's
 * buffer; neither gets a buffer of its own. The matmul operands sit at offset
 * 0 of left/right, where memplan kept room for the largest. */
#include "ptoc.h"

#include <string.h>

typedef struct {
  Comp *c;
  Kernel *k;
  uint8_t *need;                                /* by var id: buffer to allocate in this region */
  size_t nneed;
} LW;

static Aff cst(int x) { return (Aff){.c = x}; }

/* A value needs a buffer unless it lives in a pipe slot (tpop) or is a view
 * of another buffer (slice, subview). */
static void mark(LW *l, const Stmt *s) {
  if (!s->dst || s->dst->kind != VK_TILE) return;
  if (s->rhs.k == A_CALL && (s->rhs.call->op == OP_tpop || ir_ops[s->rhs.call->op].kind == K_SLICE)) return;
  l->need[s->dst->id] = 1;
}

static Var *operand(LW *l, Body *out, Loc loc, Var *x, Space sp) {
  Var *v = ir_temp(l->c, l->k, sp == SP_LEFT ? "l" : "r", VK_TILE, loc);
  v->dt = x->dt, v->sp = sp, v->R = x->R, v->C = x->C;
  if (l->k->planned) v->off = 0;                /* memplan keeps [0, largest operand) of left/right for them */
  Stmt *m = ir_stmt_op(l->c, loc, v, OP_tmov, 2);
  m->rhs.call->args[0].k = A_VAR, m->rhs.call->args[0].var = x;
  m->rhs.call->args[1].k = A_SPACE, m->rhs.call->args[1].e = sp;
  ir_body_push(l->c, out, m);
  l->need[v->id] = 1;
  return v;
}

static void allocs(LW *l, Body *b);

static void body(LW *l, Body *b) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->k == S_SPLIT) {                      /* each lane allocates its own buffers */
      uint8_t *outer = l->need;
      l->need = ir_alloc(l->c->A, l->nneed);
      body(l, &s->body);
      allocs(l, &s->body);
      l->need = outer;
      ir_body_push(l->c, &out, s);
      continue;
    }
    if (s->k != S_OP) {
      body(l, &s->body);
      body(l, &s->other);
      ir_body_push(l->c, &out, s);
      continue;
    }
    mark(l, s);
    if (s->rhs.k != A_CALL) {
      ir_body_push(l->c, &out, s);
      continue;
    }
    Call *c = s->rhs.call;
    switch (c->op) {
    case OP_load: {
      Arg *v = ir_kwarg(c, KW_VALID), *sh = ir_pos(c, 2);
      if (v && ((ir_aff_const(&v->ix[0]) && !v->ix[0].c) || (ir_aff_const(&v->ix[1]) && !v->ix[1].c))) {
        /* an empty load (the lane-1 replay): an empty tile, no GM access and
         * never a zero-size partition (DESIGN 14.8) */
        Stmt *t = ir_stmt_op(l->c, s->loc, s->dst, OP_set_validshape, 3);
        Arg *a = t->rhs.call->args;
        a[0].k = A_VAR, a[0].var = s->dst;
        ir_arg_iexpr(l->c->A, &a[1], v->ix[0]);
        ir_arg_iexpr(l->c->A, &a[2], v->ix[1]);
        t->rhs.call->loc = c->loc;
        ir_body_push(l->c, &out, t);
        continue;
      }
      Stmt *t = ir_stmt_op(l->c, s->loc, s->dst, OP_tload, 4);
      Arg *a = t->rhs.call->args;
      a[0].k = A_VAR, a[0].var = s->dst;
      a[1] = c->args[0];
      a[2] = *ir_pos(c, 1);
      a[3].k = A_IDX;
      a[3].ix = v ? v->ix : sh->ix;           /* shared: read-only */
      t->rhs.call->loc = c->loc;
      ir_body_push(l->c, &out, t);
      continue;
    }
    case OP_store: {
      const Var *t = c->args[2].var;
      if (!t->svr || !t->svc) continue;         /* an empty tile stores nothing (DESIGN 14.7-8) */
      c->op = OP_tstore;
      if (t->svr >= 0 && t->svc >= 0) {
        Arg *p = ir_kwarg_add(l->c, c, KW_PART);
        ir_arg_idx(l->c->A, p, cst(t->svr), cst(t->svc));
      }
      break;
    }
    case OP_slice: c->op = OP_subview; break;
    case OP_row_sum: case OP_row_max: case OP_row_min:
    case OP_col_sum: case OP_col_max: case OP_col_min: {
      const Var *a = c->args[0].var;            /* declare the destination's valid when static */
      bool row = ir_ops[c->op].kind == K_RRED;
      if (a->svr < 0 || a->svc < 0 || ir_kwarg(c, KW_VALID)) break;
      Arg *p = ir_kwarg_add(l->c, c, KW_VALID);
      ir_arg_idx(l->c->A, p, cst(row ? (a->svc ? a->svr : 0) : (a->svr ? 1 : 0)),
                 cst(row ? (a->svc ? 1 : 0) : (a->svr ? a->svc : 0)));
      break;
    }
    case OP_move: c->op = OP_tmov; break;
    case OP_matmul:
    case OP_matmul_acc: {
      int base = c->op == OP_matmul_acc;
      Var *lv = operand(l, &out, c->args[base].loc, c->args[base].var, SP_LEFT);
      Var *rv = operand(l, &out, c->args[base + 1].loc, c->args[base + 1].var, SP_RIGHT);
      c->args[base].var = lv;
      c->args[base + 1].var = rv;
      c->op = base ? OP_tmatmul_acc : OP_tmatmul;
      break;
    }
    default:
      break;
    }
    ir_body_push(l->c, &out, s);
  }
  *b = out;
}

static int matmuls(const Body *b) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) n += matmuls(&s->body) + matmuls(&s->other);
    else n += s->rhs.k == A_CALL && (s->rhs.call->op == OP_matmul || s->rhs.call->op == OP_matmul_acc);
  }
  return n;
}

void pass_lower(Comp *c, Kernel *k) {
  if (!k->expanded || k->lowered) return;
  for (int f = 0; f < 2; f++) {
    Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (!fn || k->lowered) continue;
    LW l = {c, k, NULL, (size_t)k->nvars + 2 * (size_t)matmuls(&fn->body) + 1};   /* + the operand buffers */
    l.need = ir_alloc(c->A, l.nneed);
    body(&l, &fn->body);
    allocs(&l, &fn->body);
  }
  k->lowered = true;
}

/* Prepend `x = alloc_tile(...)` for every buffer needed in this region. */
static void allocs(LW *l, Body *b) {
  Body top = {0};
  for (int i = 0; i < l->k->nvars; i++) {
    Var *v = l->k->vars[i];
    if (!l->need[i]) continue;
    int Rp, Cp;
    ir_padded(v->sp, v->dt, v->R, v->C, &Rp, &Cp);
    Stmt *a = ir_stmt_op(l->c, v->loc, v, OP_alloc_tile, 4);
    Arg *g = a->rhs.call->args;
    g[0].k = A_SPACE, g[0].e = v->sp;
    g[1].k = A_DTYPE, g[1].e = v->dt;
    ir_arg_idx(l->c->A, &g[2], cst(v->R), cst(v->C));
    ir_arg_idx(l->c->A, &g[3], cst(Rp), cst(Cp));
    ir_body_push(l->c, &top, a);
  }
  for (int i = 0; i < b->n; i++) ir_body_push(l->c, &top, b->v[i]);
  *b = top;
}
