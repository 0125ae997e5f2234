/* lower_gather.c — pass 8: per-core IR with paged_gather -> per-core IR where
 * each gather is a scalar loop of page translation and row copies:
 *
 *   [_w = imax(len - first, 0); _w' = clamp(n, 0, _w); _w'' = imin(_w', N);]   # window=[first, n]
 *   g = alloc_tile(space, dt, [N, S]);
 *   for _r in range(0, N) {
 *     _j = imin(first + _r, len - 1);            # never reads past the index table
 *     _x = gm_read(idx, _j);
 *     _p = idiv(_x, B);   _e = gm_read(table, _p);   _o = imod(_x, B);
 *     g = gather_row(g, src, [_e*B + _o, col_off], _r, count[, box=H]);
 *   }
 *
 * count is len(idx), or with window=[first, n] the documented
 * min(clamp(n, 0, max(len - first, 0)), N) (a split lane's share); rows at or
 * past it are not written. A gather into a mat tile is lowered per row too (DESIGN
 * 14.9): row _r is loaded through a window of the fractal tile that starts at
 * _r and is rounded up to the box, H = 16 rows, of which only [1, S] is valid.
 * Any index table works; an index or page out of range is R-GATHER-RANGE at
 * run time. */
#include "ptoc.h"

typedef struct {
  Comp *c;
  Kernel *k;
} LG;

static Aff cst(int x) { return ir_aff_cst(x); }

static Var *scalar(LG *g, Body *out, Loc l, Op op, const char *pfx, Arg a0, Aff a1) {
  Var *v = ir_temp(g->c, g->k, pfx, VK_SCALAR, l);
  v->computed = true;
  Stmt *s = ir_stmt_op(g->c, l, v, op, 2);
  s->rhs.call->args[0] = a0;
  ir_arg_iexpr(g->c->A, &s->rhs.call->args[1], a1);
  ir_body_push(g->c, out, s);
  return v;
}
static Arg iarg(LG *g, Aff a) {
  Arg r = {0};
  ir_arg_iexpr(g->c->A, &r, a);
  return r;
}

/* The rows a window [f, n] gathers (language.md 9.2):
 * v = min(clamp(n, 0, max(len - f, 0)), N): never past the index table's end.
 * Folded when f and n are constants, else three scalars before the loop. */
static Aff window_count(LG *g, Body *out, Loc l, Aff f, Aff n, int len, int N) {
  if (ir_aff_const(&f) && ir_aff_const(&n)) {
    int64_t room = (int64_t)len - f.c;
    room = room < 0 ? 0 : room;
    int64_t v = n.c < 0 ? 0 : n.c > room ? room : n.c;
    return cst((int)(v < N ? v : N));
  }
  Aff lf = cst(len);
  lf = ir_aff_add(lf, &f, -1);
  Var *room = scalar(g, out, l, OP_imax, "w", iarg(g, lf), cst(0));
  Var *cl = ir_temp(g->c, g->k, "w", VK_SCALAR, l);
  cl->computed = true;
  Stmt *s = ir_stmt_op(g->c, l, cl, OP_clamp, 3);
  s->rhs.call->args[0] = iarg(g, n);
  s->rhs.call->args[1] = iarg(g, cst(0));
  s->rhs.call->args[2] = iarg(g, ir_aff_var(room, 1));
  ir_body_push(g->c, out, s);
  Var *v = scalar(g, out, l, OP_imin, "w", iarg(g, ir_aff_var(cl, 1)), cst(N));
  return ir_aff_var(v, 1);
}

static void lower(LG *g, Body *out, Stmt *st) {
  Call *c = st->rhs.call;
  Loc l = st->loc;
  Var *src = c->args[0].var, *ix = c->args[1].var, *tb = c->args[2].var, *dst = st->dst;
  int B = (int)ir_kwarg(c, KW_BLOCK_SIZE)->num, len = ix->dim[1];
  Arg *co = ir_kwarg(c, KW_COL_OFF), *w = ir_kwarg(c, KW_WINDOW);
  Aff col = !co ? cst(0) : co->k == A_IEXPR ? co->ix[0] : cst((int)co->num);
  Aff first = w ? w->ix[0] : cst(0), count = w ? w->ix[1] : cst(len);
  if (w) count = window_count(g, out, l, first, count, len, dst->R);
  /* a fractal destination: each row's window is rounded up to the box's rows;
   * nz-row-gather leaves it one row high, like a vec one */
  int box = 1, bc;
  if (dst->sp != SP_VEC && !IR_BUG(g->c, nz_row_gather)) ir_box(dst->sp, dst->dt, &box, &bc);
  /* g = alloc_tile(space, dt, [N, S]) */
  Stmt *al = ir_stmt_op(g->c, l, dst, OP_alloc_tile, 3);
  Arg *aa = al->rhs.call->args;
  aa[0].k = A_SPACE, aa[0].e = dst->sp;
  aa[1].k = A_DTYPE, aa[1].e = dst->dt;
  ir_arg_idx(g->c->A, &aa[2], cst(dst->R), cst(dst->C));
  ir_body_push(g->c, out, al);
  Stmt *loop = ir_alloc(g->c->A, sizeof *loop);
  loop->k = S_FOR;
  loop->loc = l;
  loop->iv = ir_temp(g->c, g->k, "r", VK_LOOP, l);
  loop->iv->lo = 0;
  loop->iv->hi = dst->R;
  loop->iv->step = 1;
  Body *b = &loop->body;
  Aff row = ir_aff_var(loop->iv, 1);
  Var *j = scalar(g, b, l, OP_imin, "j", iarg(g, ir_aff_add(first, &row, 1)), cst(len - 1));
  Arg ta = {0};
  ta.k = A_VAR, ta.var = ix;
  Var *x = scalar(g, b, l, OP_gm_read, "x", ta, ir_aff_var(j, 1));
  Var *p = scalar(g, b, l, OP_idiv, "p", iarg(g, ir_aff_var(x, 1)), cst(B));
  ta.var = tb;
  Var *e = scalar(g, b, l, OP_gm_read, "e", ta, ir_aff_var(p, 1));
  Var *o = scalar(g, b, l, OP_imod, "o", iarg(g, ir_aff_var(x, 1)), cst(B));
  /* paged-missing-scale: the physical page is used as a row number, not scaled by B */
  Aff phys = ir_aff_var(e, IR_BUG(g->c, paged_missing_scale) ? 1 : B), ov = ir_aff_var(o, 1);
  phys = ir_aff_add(phys, &ov, 1);
  Stmt *gr = ir_stmt_op(g->c, c->loc, dst, OP_gather_row, box > 1 ? 6 : 5);
  Arg *ga = gr->rhs.call->args;
  ga[0].k = A_VAR, ga[0].var = dst;
  ga[1].k = A_VAR, ga[1].var = src;
  ir_arg_idx(g->c->A, &ga[2], phys, col);
  ga[3] = iarg(g, row);
  ga[4] = iarg(g, count);
  if (box > 1) ga[5].k = A_NUM, ga[5].isint = true, ga[5].num = box, ga[5].kw = KW_BOX;
  ir_body_push(g->c, b, gr);
  ir_body_push(g->c, out, loop);
}

static void body(LG *g, Body *b) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->k != S_OP) {
      body(g, &s->body);
      body(g, &s->other);
      ir_body_push(g->c, &out, s);
    } else if (s->rhs.k == A_CALL && s->rhs.call->op == OP_paged_gather) {
      lower(g, &out, s);
    } else {
      ir_body_push(g->c, &out, s);
    }
  }
  *b = out;
}

void pass_lower_gather(Comp *c, Kernel *k) {
  LG g = {c, k};
  body(&g, &k->body);
}
