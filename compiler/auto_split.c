/* auto_split.c — pass 4: a kernel compiled split(up_down|left_right) -> the
 * explicit form: the whole body inside `for lane in split_aiv(2)`, vector
 * tiles halved on the split axis, transfers turned into aiv_shard/aic_gather.
 * Cube statements are untouched (they run once). The rules (docs/split.md):
 *
 * - a vector tile is HALF (lane L holds global [L*S, L*S+S), S the stride:
 *   ceil(E/2), or ceil(V/2) where a C2V transfer of that box extent must be
 *   rebalanced, DESIGN 14.2) unless its extent on the axis is 1, then it is
 *   REPL (whole in both lanes); a sub-slice of a HALF tile along the axis is
 *   OWN: a window in global coordinates that lies in one lane, the other
 *   lane's copy has valid 0;
 * - load: offset += lane*S, shape S, valid localised clamp(V - lane*S, 0, S);
 *   full and paged_gather likewise;
 * - C2V move -> aiv_shard(t, axis[, stride=S]), the code left to
 *   expand_mixed; narrowed extents and run-time valid extents refused (14.6);
 *   V2C move -> aic_gather (equal halves only, valid= when static); a whole
 *   (extent-1) tile crosses neither way (E-SPLIT-WHOLE): V2C by 14.5, C2V
 *   because pto-isa zero-fills lane 1's copy of a code-0 entry;
 * - slice of a HALF tile: the whole extent stays HALF; a sub-slice [r0, r0+h)
 *   becomes local offset clamp(r0 - lane*S, 0, S - h), size h, valid
 *   clamp(min(r0+h, lane*S+S) - max(r0, lane*S), 0, h);
 * - store: HALF at global coordinates (offset += lane*S), REPL and OWN in
 *   both lanes (REPL: the same bytes, 14.5; OWN: the other lane's copy is
 *   empty);
 * - a reduction over the split axis: unsupported E-SPLIT-REDUCE;
 * - transpose moves a HALF tile's axis (each lane transposes its part);
 *   reshape moves it when a lane's part is a row-major run that is the
 *   lane's band of the result (else E-SPLIT-RESHAPE); the ops above use the
 *   tile's own axis, and tiles halved on different axes, or a moved tile
 *   crossing to the cube, are E-SPLIT-AXIS.
 * The injected defects of this pass (docs/defects.md) are IR_BUG
 * tests at the rule each one breaks. */
#include "ptoc.h"

#include <string.h>

enum { CL_NONE, CL_HALF, CL_REPL, CL_OWN };
static const char *const clname[] = {"none", "halved", "whole", "a sub-slice"};

typedef struct {
  Comp *c;
  Kernel *k;
  Mode m;
  int ax;
  Var *lane;
  uint8_t *cls;                                 /* by var id (tiles only) */
  uint8_t *hx;                                  /* by var id: the axis a HALF tile is halved on (OWN: cut on) */
  int *E;                                       /* global extent on that axis of a HALF tile */
  int T[IR_MAXDIM + 1];                         /* by box extent: a rebalanced lane stride, 0 none */
  Body *out;
} AS;

#define UNSUP(loc, code, ...) ir_error(a->c, loc, code, __VA_ARGS__)

static int ext(const Var *v, int ax) { return ax ? v->C : v->R; }
static void set_ext(Var *v, int ax, int e) {
  if (ax) v->C = e;
  else v->R = e;
}

static Aff cst(int x) { return ir_aff_cst(x); }
static Aff plus_lane(AS *a, Aff x, int coef) {
  Aff l = ir_aff_var(a->lane, coef);
  return ir_aff_add(x, &l, 1);
}
static Aff addc(Aff x, int c) {
  x.c += c;
  return x;
}

/* Emit `_name = op(x, y[, z])` on index expressions; returns the scalar. */
static Var *scalar(AS *a, Loc loc, Op op, Aff x, Aff y, const Aff *z) {
  Var *v = ir_temp(a->c, a->k, op == OP_clamp ? "v" : "i", VK_SCALAR, loc);
  v->computed = true;
  Stmt *s = ir_stmt_op(a->c, loc, v, op, z ? 3 : 2);
  Arg *g = s->rhs.call->args;
  ir_arg_iexpr(a->c->A, &g[0], x);
  ir_arg_iexpr(a->c->A, &g[1], y);
  if (z) ir_arg_iexpr(a->c->A, &g[2], *z);
  ir_body_push(a->c, a->out, s);
  return v;
}

/* clamp(V - lane*S, 0, S): this lane's valid extent of a HALF tile. */
static Aff localise(AS *a, Loc loc, Aff V, int S) {
  if (ir_aff_const(&V)) {
    int v0 = V.c < S ? V.c : S, v1 = V.c - S < 0 ? 0 : V.c - S > S ? S : V.c - S;
    if (v0 == v1) return cst(v0);
  }
  Aff s = cst(S);
  return ir_aff_var(scalar(a, loc, OP_clamp, plus_lane(a, V, -S), cst(0), &s), 1);
}

/* Does [r0, r0+h) lie within one lane's [L*S, L*S+S) on every iteration?
 * Enumerates the iterations, at most 2^20 of them (*budget): a nest beyond
 * that is taken as not contained (unsupported) instead of enumerating up to
 * 86^6 iterations. */
static bool contained(AS *a, const Aff *r0, int h, int S, int i, int64_t acc, int64_t *budget) {
  if (i == r0->n) return --*budget >= 0 && acc >= 0 && acc / S == (acc + h - 1) / S;
  const Var *v = a->k->vars[r0->v[i]];
  if (v->kind != VK_LOOP || ir_loop_trips(v) > 4096) return false;
  for (int64_t x = v->lo; x < v->hi; x += v->step)
    if (!contained(a, r0, h, S, i + 1, acc + r0->k[i] * x, budget)) return false;
  return true;
}

/* A rebalanced stride T covers [0, 2T) of a box E: the producer's valid
 * extent V must lie inside (else its rows past 2T would be in no lane). */
static void covered(AS *a, const Stmt *st, int E, Aff V, int T) {
  if (E > IR_MAXDIM || !a->T[E] || 2 * T >= E) return;
  if (!ir_aff_const(&V) || V.c > 2 * T)
    UNSUP(st->loc, E_SPLIT_EXTENT, "lanes of %d (rebalanced for this %d box) cannot hold %s valid", T, E,
          ir_aff_const(&V) ? "its" : "a run-time");
}

/* Set the split-axis component of the call's valid= bound (adding the keyword,
 * with the other component at its full extent, when it is absent). */
static void set_valid_on(AS *a, Call *c, int R, int C, int ax, Aff axis) {
  Arg *v = ir_kwarg(c, KW_VALID);
  if (!v) {
    v = ir_kwarg_add(a->c, c, KW_VALID);
    ir_arg_idx(a->c->A, v, cst(R), cst(C));
  }
  ir_arg_ix(a->c->A, v)[ax] = axis;
}
static void set_valid(AS *a, Call *c, int R, int C, Aff axis) { set_valid_on(a, c, R, C, a->ax, axis); }

/* DESIGN 14.6: a C2V transfer pins the extent it does not place per lane.
 * Under left_right the valid columns must be the box's; under up_down, lanes
 * with different row counts need every column valid. A run-time extent is
 * refused where it matters (the machine checks the same at the pop). */
static void narrowed(AS *a, const Stmt *st, const Var *x, int S) {
  if (x->svc == x->C) return;
  if (a->ax == 1)                               /* the caller has refused a run-time V */
    UNSUP(st->loc, E_SPLIT_NARROW, "left_right C2V of %d valid columns of a %d box: the transfer pins the column "
          "extent", x->svc, x->C);
  int v0 = ir_lane_valid(x->svr, S, 0), v1 = ir_lane_valid(x->svr, S, 1);
  if (!v1 || v0 == v1) return;
  UNSUP(st->loc, E_SPLIT_NARROW, "up_down C2V with per-lane rows (%d and %d) and %s valid columns of a %d box", v0,
        v1, x->svc < 0 ? "a run-time number of" : "fewer", x->C);
}

static Arg *idx_arg(Call *c, int i) {
  Arg *x = ir_pos(c, i);
  ASSERT(x && x->k == A_IDX);
  return x;
}

/* The lane stride of a box extent E: ceil(E/2), or the rebalanced stride a
 * transfer of that box needs (rebalance). Defect odd-floor-half: the row half
 * (up_down) is floor(E/2), so lane 1 of an odd row extent stops one row short;
 * defect lr-odd-unpadded (pypto #2652): an odd column extent under left_right
 * is neither padded to ceil nor refused, the same floor on the other axis. */
static int half(const AS *a, int E) {
  if (a->k->target == TGT_A5) return ir_split_stride(TGT_A5, E);   /* the box's halves, never rebalanced */
  if (E <= IR_MAXDIM && a->T[E]) return a->T[E];
  bool floor = a->ax == 0 ? IR_BUG(a->c, odd_floor_half) : IR_BUG(a->c, lr_odd_unpadded);
  return floor ? E / 2 : (E + 1) / 2;
}

/* DESIGN 14.2: a C2V transfer of box E with V valid on the axis whose box
 * partition fits no split code (13 of 16: 8 and 5) is rebalanced to the
 * stride ceil(V/2) (7 and 6, code 3). Every halved tile of that box extent
 * takes the stride, so the tiles a transfer meets stay aligned with it. */
static void rebalance(AS *a, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->v[i];
    if (st->k != S_OP) {
      rebalance(a, &st->body);
      continue;
    }
    if (st->rhs.k != A_CALL) continue;
    const Call *c = st->rhs.call;
    if (ir_ops[c->op].kind != K_MOVE || c->args[1].e != SP_VEC || c->args[0].var->sp == SP_VEC) continue;
    const Var *x = c->args[0].var;
    int E = ext(x, a->ax), V = a->ax ? x->svc : x->svr;
    if (E == 1 || V < 0 || ir_split_code_on(a->k->target, a->ax, E, V, half(a, E)) >= 0) continue;
    int T = (V + 1) / 2;
    if (a->T[E] && a->T[E] != T)
      UNSUP(st->loc, E_SPLIT_EXTENT, "two transfers of a %d box need lane strides %d and %d", E, a->T[E], T);
    a->T[E] = T;
  }
}
#define SOF(a, v) half((a), (a)->E[(v)->id])

/* Record the class (and global extent E on the axis hx it is halved on) of an
 * assignment's destination; a variable keeps one class and one axis. */
static void define_on(AS *a, Stmt *st, int cl, int E, int hx) {
  Var *v = st->dst;
  if (!v || v->kind != VK_TILE) return;
  if (a->cls[v->id] == CL_NONE) {
    a->cls[v->id] = (uint8_t)cl;
    a->E[v->id] = E;
    a->hx[v->id] = (uint8_t)hx;
    if (cl == CL_HALF) set_ext(v, hx, half(a, E));
    return;
  }
  if (a->cls[v->id] != cl || (cl == CL_HALF && a->E[v->id] != E))
    UNSUP(st->loc, E_SPLIT_SLICE, "'%s' is %s in one assignment and %s in another under %s", v->name,
          clname[a->cls[v->id]], clname[cl], ir_mode_name(a->m));
  if (cl == CL_HALF && a->hx[v->id] != hx)
    UNSUP(st->loc, E_SPLIT_AXIS, "'%s' is halved on its %s in one assignment and on its %s in another", v->name,
          a->hx[v->id] ? "columns" : "rows", hx ? "columns" : "rows");
}
/* The kernel's own axis: loads, constants, gathers and C2V transfers. */
static void define(AS *a, Stmt *st, int cl, int E) { define_on(a, st, cl, E, a->ax); }

static int cls_of(AS *a, const Arg *x) {
  return x->k == A_VAR && x->var->kind == VK_TILE ? a->cls[x->var->id] : CL_NONE;
}

/* Combine operand classes of an elementwise or expansion op. HALF operands
 * must be halved on one axis (*hx), and a whole operand must have extent 1
 * on it (a transposed whole tile is whole on the other axis). */
static int combine(AS *a, Stmt *st, Call *c, int *E, int *hx) {
  int cl = CL_NONE;
  *hx = a->ax;
  for (int i = 0; i < c->nargs; i++) {
    int x = cls_of(a, &c->args[i]);
    if (x == CL_NONE) continue;
    const Var *v = c->args[i].var;
    if (x == CL_HALF) {
      if (cl == CL_HALF && a->hx[v->id] != *hx)
        UNSUP(st->loc, E_SPLIT_AXIS, "%s combines tiles halved on their rows and on their columns under %s (a "
              "transpose or reshape moved the split axis of one)", ir_ops[c->op].name, ir_mode_name(a->m));
      *E = a->E[v->id];
      *hx = a->hx[v->id];
    }
    if (cl == CL_NONE || cl == CL_REPL) cl = x;
    else if (x != CL_REPL && (x != cl || x == CL_OWN))
      UNSUP(st->loc, E_SPLIT_SLICE, "%s combines %s and %s tiles under %s", ir_ops[c->op].name, clname[cl], clname[x],
            ir_mode_name(a->m));
  }
  for (int i = 0; i < c->nargs && cl == CL_HALF; i++) {
    const Var *w = c->args[i].var;
    if (cls_of(a, &c->args[i]) == CL_REPL && ext(w, *hx) != 1)
      UNSUP(st->loc, E_SPLIT_AXIS, "%s combines '%s', whole in both lanes with %d %s, and a tile halved on its %s "
            "(a transpose or reshape moved the split axis)", ir_ops[c->op].name, w->name, ext(w, *hx),
            *hx ? "columns" : "rows", *hx ? "columns" : "rows");
  }
  return cl == CL_NONE ? CL_REPL : cl;
}

/* reshape(t, [R2, C2]) per lane. A lane's part of a HALF tile is a run of
 * n = local R x local C elements in row-major order when it is a band of
 * rows (or of the columns of a one-row tile); the run is lane L's band of the
 * result when it fills whole rows of it with the result's own stride (rows
 * of C2: n / C2 = half(R2)) or, for a one-row result, is its column band
 * (n = half(C2)). Both lanes' parts must be full (the source is: 14.11). A
 * whole tile reshapes whole. Anything else is refused: E-SPLIT-RESHAPE. */
static void reshape(AS *a, Stmt *st, Call *c) {
  const Var *t = c->args[0].var;
  int cl = a->cls[t->id], hx = a->hx[t->id];
  if (cl == CL_NONE || cl == CL_REPL) return define(a, st, CL_REPL, 0);
  Arg *sh = idx_arg(c, 1);
  const char *why = NULL;
  int R2 = sh->ix[0].c, C2 = sh->ix[1].c, n = t->R * t->C, S = half(a, a->E[t->id]);
  int v1 = ir_lane_valid(a->E[t->id], S, 1);
  if (cl == CL_OWN) why = "the sub-slice lies in one lane";
  else if (hx == 1 && t->R > 1) why = "a band of columns is no run of the row-major order";
  else if (v1 != S) why = ir_fmt(a->c->A, "lane 1 holds %d of its %d %s", v1, S, hx ? "columns" : "rows");
  else if (R2 > 1 && (n % C2 || n / C2 != half(a, R2)))
    why = ir_fmt(a->c->A, "a lane's %d elements are not its band of %d rows of %d", n, half(a, R2), C2);
  else if (R2 == 1 && n != half(a, C2))
    why = ir_fmt(a->c->A, "a lane's %d elements are not its band of %d columns", n, half(a, C2));
  if (why)
    UNSUP(st->loc, E_SPLIT_RESHAPE, "reshape of [%d,%d] to [%d,%d] under %s: %s", hx ? t->R : a->E[t->id],
          hx ? a->E[t->id] : t->C, R2, C2, ir_mode_name(a->m), why);
  int nx = R2 > 1 ? 0 : 1;
  ir_arg_ix(a->c->A, sh)[nx] = cst(half(a, nx ? C2 : R2));
  define_on(a, st, CL_HALF, nx ? C2 : R2, nx);
}

static void vector_stmt(AS *a, Stmt *st, Call *c) {
  int ax = a->ax, S = 0, E = 0;
  switch (ir_ops[c->op].kind) {
  case K_LOAD: {
    Arg *o = idx_arg(c, 1), *sh = idx_arg(c, 2);
    E = sh->ix[ax].c;
    if (E == 1) return define(a, st, CL_REPL, 0);
    S = half(a, E);
    Arg *v = ir_kwarg(c, KW_VALID);
    covered(a, st, E, v ? v->ix[ax] : cst(E), S);
    /* defect valid-not-localized: only a valid= bound is localised; without one
     * each lane gets the global extent E */
    Aff loc = !v && IR_BUG(a->c, valid_not_localized) ? cst(E) : localise(a, st->loc, v ? v->ix[ax] : cst(E), S);
    ir_arg_ix(a->c->A, o)[ax] = plus_lane(a, o->ix[ax], S);
    ir_arg_ix(a->c->A, sh)[ax] = cst(S);
    if (v || !ir_aff_const(&loc) || loc.c != S) set_valid(a, c, sh->ix[0].c, sh->ix[1].c, loc);
    return define(a, st, CL_HALF, E);
  }
  case K_FULL: {
    Arg *sh = idx_arg(c, 0);
    E = sh->ix[ax].c;
    if (E == 1) return define(a, st, CL_REPL, 0);
    S = half(a, E);
    ir_arg_ix(a->c->A, sh)[ax] = cst(S);
    Arg *v = ir_kwarg(c, KW_VALID);
    covered(a, st, E, v ? v->ix[ax] : cst(E), S);
    Aff loc = localise(a, st->loc, v ? v->ix[ax] : cst(E), S);
    if (v || !ir_aff_const(&loc) || loc.c != S) set_valid(a, c, sh->ix[0].c, sh->ix[1].c, loc);
    return define(a, st, CL_HALF, E);
  }
  case K_GATHER: {
    if (ir_kwarg(c, KW_WINDOW)) UNSUP(st->loc, E_SPLIT_EXTENT, "paged_gather with a window cannot be split again");
    if (ax == 0) {
      Arg *mi = ir_kwarg(c, KW_MAX_INDICES);
      int N = (int)mi->num, len = ir_pos(c, 1)->var->dim[1];
      if (N == 1) return define(a, st, CL_REPL, 0);
      S = half(a, N);
      covered(a, st, N, cst(len), S);
      mi->num = S;
      Arg *w = ir_kwarg_add(a->c, c, KW_WINDOW);
      Aff w0 = plus_lane(a, cst(0), S);
      ir_arg_idx(a->c->A, w, w0, localise(a, st->loc, cst(len), S));
      return define(a, st, CL_HALF, N);
    }
    Arg *sz = ir_kwarg(c, KW_SIZE);
    int Z = (int)sz->num;
    if (Z == 1) return define(a, st, CL_REPL, 0);
    if (Z % 2) UNSUP(sz->loc, E_SPLIT_EXTENT, "paged_gather of %d columns: an odd row cannot be split left_right", Z);
    if (half(a, Z) != Z / 2)
      UNSUP(sz->loc, E_SPLIT_BOX, "paged_gather of %d columns on a5: the lanes are the halves of a %d-column box",
            Z, 2 * half(a, Z));
    S = Z / 2;
    sz->num = S;
    Arg *co = ir_kwarg_add(a->c, c, KW_COL_OFF);   /* absent: an integer 0 */
    Aff base = co->k == A_IEXPR ? co->ix[0] : cst((int)co->num);
    ir_arg_iexpr(a->c->A, co, plus_lane(a, base, S));
    return define(a, st, CL_HALF, Z);
  }
  case K_MOVE: {                                /* C2V */
    Var *x = c->args[0].var;
    E = ext(x, ax);
    if (E == 1)                                 /* pto-isa zero-fills lane 1's copy of a code-0 entry */
      UNSUP(st->loc, E_SPLIT_WHOLE, "a whole (extent-1) cube tile cannot reach both lanes under %s: a no-split "
            "entry is popped whole in lane 0 only", ir_mode_name(a->m));
    S = half(a, E);
    int V = ax ? x->svc : x->svr;
    if (V < 0)                                  /* the code is a constant of the transfer (DESIGN 14.1) */
      UNSUP(st->loc, E_SPLIT_EXTENT, "C2V transfer whose valid %s are only known at run time: its split code "
            "cannot be chosen", ax ? "columns" : "rows");
    narrowed(a, st, x, S);
    if (a->k->target == TGT_A5 && ax && E % 32)
      UNSUP(st->loc, E_SPLIT_BOX, "left_right C2V of %d columns on a5: the local FIFO splits whole 32-column boxes "
            "only (pad the tile and narrow it with set_validshape)", E);
    if (ir_split_code_on(a->k->target, ax, E, V, S) < 0)
      UNSUP(st->loc, E_SPLIT_EXTENT, "C2V transfer of %d valid of %d: lanes of %d hold %d and %d, no split code "
            "fits", V, E, S, ir_lane_valid(V, S, 0), ir_lane_valid(V, S, 1));
    c->op = OP_aiv_shard;
    c->args[1].k = A_MODE;
    c->args[1].e = a->m;                        /* the axis; expand_mixed derives the code */
    if (S != (E + 1) / 2) {
      Arg *sa = ir_kwarg_add(a->c, c, KW_STRIDE);
      sa->k = A_NUM;
      sa->isint = true;
      sa->num = S;
    }
    return define(a, st, CL_HALF, E);
  }
  case K_BIN: case K_BINS: case K_UN: case K_CAST: case K_REXP: case K_CEXP: {
    int hx, cl = combine(a, st, c, &E, &hx);
    return define_on(a, st, cl, E, hx);
  }
  case K_SETVALID: {                            /* a HALF tile: the extent on its axis is localised */
    int cl = cls_of(a, &c->args[0]);
    if (cl != CL_HALF) return define(a, st, cl == CL_NONE ? CL_REPL : cl, 0);
    E = a->E[c->args[0].var->id];
    ax = a->hx[c->args[0].var->id];
    Arg *x = &c->args[1 + ax];
    ir_arg_ix(a->c->A, x)[0] = localise(a, st->loc, x->ix[0], half(a, E));
    return define_on(a, st, CL_HALF, E, ax);
  }
  case K_TRANS: {                               /* each lane transposes its part: the split axis moves */
    const Var *t = c->args[0].var;
    int cl = a->cls[t->id];
    if (cl == CL_NONE) cl = CL_REPL;
    return define_on(a, st, cl, a->E[t->id], !a->hx[t->id]);
  }
  case K_RESHAPE:
    return reshape(a, st, c);
  case K_RRED:
  case K_CRED: {
    int cl = cls_of(a, &c->args[0]);
    int raxis = ir_ops[c->op].kind == K_RRED ? 1 : 0;   /* the axis reduced over */
    if (cl == CL_HALF) ax = a->hx[c->args[0].var->id];
    if (cl == CL_HALF && raxis == ax) {
      /* defect reduce-split-axis: only column reductions (up_down) are refused; a
       * row reduction under left_right leaves each lane its partial result */
      if (!IR_BUG(a->c, reduce_split_axis) || raxis == 0)
        UNSUP(st->loc, E_SPLIT_REDUCE, "%s reduces over the split axis of %s: each lane would hold a partial result",
              ir_ops[c->op].name, ir_mode_name(a->m));
      return define(a, st, CL_REPL, 0);         /* the split axis is reduced away */
    }
    return define_on(a, st, cl, cl == CL_HALF ? a->E[c->args[0].var->id] : 0, ax);
  }
  case K_SLICE: {
    Var *t = c->args[0].var;
    int cl = a->cls[t->id];
    if (cl != CL_HALF) return define(a, st, cl, 0);
    ax = a->hx[t->id];
    Arg *o = idx_arg(c, 1), *sh = idx_arg(c, 2);
    int Et = a->E[t->id], St = half(a, Et), h = sh->ix[ax].c;
    Aff r0 = o->ix[ax];
    if (ir_aff_const(&r0) && r0.c == 0 && h == Et) {
      ir_arg_ix(a->c->A, sh)[ax] = cst(St);                     /* the whole extent: stays halved */
      Arg *v = ir_kwarg(c, KW_VALID);
      if (v) set_valid_on(a, c, sh->ix[0].c, sh->ix[1].c, ax, localise(a, st->loc, v->ix[ax], St));
      return define_on(a, st, CL_HALF, Et, ax);
    }
    int64_t budget = 1 << 20;
    if (h > St || !contained(a, &r0, h, St, 0, r0.c, &budget))
      UNSUP(o->loc, E_SPLIT_SLICE, "slice of rows/cols [%d + ..., +%d) crosses the lane boundary at %d under %s",
            r0.c, h, St, ir_mode_name(a->m));
    Aff lim = cst(St - h);
    Var *off = scalar(a, st->loc, OP_clamp, plus_lane(a, r0, -St), cst(0), &lim);
    Var *hi = scalar(a, st->loc, OP_imin, addc(r0, h), plus_lane(a, cst(St), St), NULL);
    Var *lo = scalar(a, st->loc, OP_imax, r0, plus_lane(a, cst(0), St), NULL);
    Aff hh = cst(h), lov = ir_aff_var(lo, 1);
    Var *vv = scalar(a, st->loc, OP_clamp, ir_aff_add(ir_aff_var(hi, 1), &lov, -1), cst(0), &hh);
    ir_arg_ix(a->c->A, o)[ax] = ir_aff_var(off, 1);
    if (IR_BUG(a->c, slice_halve_args))       /* defect: the result halved, offset and valid still for h */
      ir_arg_ix(a->c->A, sh)[ax] = cst(half(a, h));
    Arg *old = ir_kwarg(c, KW_VALID);
    Aff bound = ir_aff_var(vv, 1);
    if (old) bound = ir_aff_var(scalar(a, st->loc, OP_imin, old->ix[ax], bound, NULL), 1);   /* both bounds hold */
    set_valid_on(a, c, sh->ix[0].c, sh->ix[1].c, ax, bound);
    return define_on(a, st, CL_OWN, 0, ax);
  }
  case K_ASSEMBLE: {
    const Var *dv = c->args[0].var, *sv = c->args[1].var;
    int cd = cls_of(a, &c->args[0]), cs = cls_of(a, &c->args[1]);
    Arg *o = idx_arg(c, 2);
    if (cd == CL_REPL && cs == CL_REPL) return define(a, st, CL_REPL, 0);
    ax = cd == CL_HALF ? a->hx[dv->id] : ax;
    if (cd == CL_HALF && cs == CL_HALF && a->hx[sv->id] == ax && ir_aff_const(&o->ix[ax]) && o->ix[ax].c == 0 &&
        a->E[dv->id] == a->E[sv->id])
      return define_on(a, st, CL_HALF, a->E[dv->id], ax);
    UNSUP(st->loc, E_SPLIT_SLICE, "assemble of %s into %s tiles along the split axis of %s", clname[cs], clname[cd],
          ir_mode_name(a->m));
  }
  default:
    die("auto_split: vector op %s", ir_ops[c->op].name);
  }
}

static void store_stmt(AS *a, Call *c) {
  Var *t = c->args[2].var;
  int cl = a->cls[t->id], hx = a->hx[t->id];
  /* defect unsplit-store-both-lanes: whether the tile is whole is read from
   * its lane extent, so a halved tile of one row (column) per lane is stored
   * like a whole one: both lanes, no lane offset */
  if (cl == CL_HALF && IR_BUG(a->c, unsplit_store_both_lanes) && SOF(a, t) == 1) return;
  if (cl == CL_HALF) {
    Arg *o = idx_arg(c, 1);
    /* defect subblock-outside-zero: the lane index is read outside split_aiv, where it is 0 */
    if (IR_BUG(a->c, subblock_outside_zero)) return;
    /* the lane offset lands on the axis the tile is halved on (a transpose or
     * reshape may have moved it). Defect store-axis-swap: the axes from 0 up
     * to that axis, so under left_right the lane offset also lands on the rows */
    for (int d = IR_BUG(a->c, store_axis_swap) ? 0 : hx; d <= hx; d++)
      ir_arg_ix(a->c->A, o)[d] = plus_lane(a, o->ix[d], SOF(a, t));
  }
  /* a whole tile is stored from both lanes: the same bytes to the same
   * addresses (DESIGN 14.5; the machine checks them, R-REPLICA) */
}

static void body(AS *a, Body *b) {
  Body out = {0}, *saved = a->out;
  a->out = &out;
  for (int i = 0; i < b->n; i++) {
    Stmt *st = b->v[i];
    if (st->k == S_FOR) {
      body(a, &st->body);
    } else if (st->k == S_OP && st->rhs.k == A_VAR) {
      Var *x = st->rhs.var;
      if (x->sp == SP_VEC) define_on(a, st, a->cls[x->id], a->E[x->id], a->hx[x->id]);
    } else if (st->k == S_OP) {
      Call *c = st->rhs.call;
      const OpInfo *oi = &ir_ops[c->op];
      if (oi->kind == K_STORE) {
        if (c->args[2].var->sp == SP_VEC) store_stmt(a, c);
      } else if (oi->kind == K_MOVE && c->args[1].e != SP_VEC && c->args[0].var->sp == SP_VEC) {
        Var *x = c->args[0].var;             /* V2C */
        int cl = a->cls[x->id];
        if (cl == CL_OWN) UNSUP(st->loc, E_SPLIT_SLICE, "a sub-slice along the split axis cannot cross to the cube");
        if (cl == CL_REPL)                      /* DESIGN 14.5 */
          UNSUP(st->loc, E_SPLIT_WHOLE, "a whole (extent-1) tile cannot cross vector -> cube under %s: keep it on "
                "the vector side", ir_mode_name(a->m));
        if (cl == CL_HALF && a->hx[x->id] != a->ax)
          UNSUP(st->loc, E_SPLIT_AXIS, "V2C transfer of '%s', halved on its %s after a transpose or reshape: "
                "aic_gather joins the lanes on the kernel's axis (%s)", x->name, a->ax ? "rows" : "columns",
                ir_mode_name(a->m));
        if (cl == CL_HALF) {
          int E = ext(st->dst, a->ax);
          if (2 * SOF(a, x) != E)
            UNSUP(st->loc, E_SPLIT_EXTENT, "V2C transfer of extent %d in lanes of %d: vector-to-cube needs equal "
                  "halves", E, SOF(a, x));
          c->op = OP_aic_gather;
          c->args[1].k = A_MODE;
          c->args[1].e = a->m;
          if (st->dst->svr >= 0 && st->dst->svc >= 0) {   /* the joined valid shape, known before the split */
            Arg *jv = ir_kwarg_add(a->c, c, KW_VALID);
            ir_arg_idx(a->c->A, jv, cst(st->dst->svr), cst(st->dst->svc));
          }
        }
      } else if (c->ty.k == TY_TILE && c->ty.sp == SP_VEC) {
        vector_stmt(a, st, c);
      }
    }
    ir_body_push(a->c, &out, st);
  }
  *b = out;
  a->out = saved;
}

void pass_auto_split(Comp *c, Kernel *k) {
  if (k->split == MODE_NONE || k->explicit_split) return;
  /* A pure-vector kernel runs unsplit on one lane whatever its split attribute
   * (DESIGN 14.4). Defect split-pure-vector (pypto #841): the check is missing,
   * the body is split, and the launch still gives it one lane. */
  if (!ir_has_cube(&k->body) && !IR_BUG(c, split_pure_vector)) {
    k->split = MODE_NONE;
    return;
  }
  AS a = {.c = c, .k = k, .m = k->split, .ax = MODE_AXIS(k->split)};
  a.cls = ir_alloc(c->A, (size_t)k->nvars + 1);      /* new variables below are scalars */
  a.E = ir_alloc(c->A, ((size_t)k->nvars + 1) * sizeof *a.E);
  a.hx = ir_alloc(c->A, (size_t)k->nvars + 1);
  const char *ln = "lane";
  for (int i = 0; i < k->nvars && ln; i++)
    if (!strcmp(k->vars[i]->name, ln)) ln = NULL;
  a.lane = ln ? ir_var_new(c, k, ln, VK_LANE, k->loc) : ir_temp(c, k, "lane", VK_LANE, k->loc);
  rebalance(&a, &k->body);
  body(&a, &k->body);
  Stmt *sp = ir_alloc(c->A, sizeof *sp);
  sp->k = S_SPLIT;
  sp->loc = k->loc;
  sp->iv = a.lane;
  sp->body = k->body;
  k->body = (Body){0};
  ir_body_push(c, &k->body, sp);
  k->split = MODE_NONE;
}
