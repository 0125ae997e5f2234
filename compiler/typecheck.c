/* typecheck.c — source IR -> typed source IR. Enforces the rules of
 * docs/language.md: arity and argument kinds from ops.def, dtypes, shapes,
 * spaces, valid shapes, GM windows (exactly, over every loop iteration, using
 * the affine ranges of the offsets), split_aiv scope and lane values. Sets
 * Call.ty, Call.perlane and the tile type of every variable.
 *
 * Static valid shapes: a variable's valid shape is known when every assignment
 * to it gives the same constant; this is found by iterating the check until no
 * variable changes (known values only ever become unknown), and the checks that
 * depend on it (store windows) count in the final round only. Every round runs
 * them and keeps their first failure instead of raising it; the round that
 * changes nothing is the final one, and raises what it kept. */
#include "ptoc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  Comp *c;
  Kernel *k;
  Var *lane;                                    /* enclosing split_aiv lane var */
  bool changed;
  Diag held;                                    /* the first failure of this round's final checks */
  int dead;                                     /* inside a loop that never runs: no range checks */
  int cond;                                     /* inside if/while bodies */
} T;

#define ERR(loc, code, ...) ir_error(t->c, loc, code, __VA_ARGS__)

static const char *opn(const Call *c) { return ir_ops[c->op].name; }
static bool isfloat(Dtype d) { return !ir_dtype_int(d); }
static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }
static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
static int kmin(int a, int b) { return a < 0 || b < 0 ? -1 : imin(a, b); }
static int kmax(int a, int b) { return a < 0 || b < 0 ? -1 : imax(a, b); }

static Type check_call(T *t, Call *c);

/* The lane variable, subblock_idx(), or a scalar computed per lane. */
static bool uses_lane(T *t, const Aff *a) {
  for (int i = 0; i < a->n; i++) {
    const Var *v = t->k->vars[a->v[i]];
    if (v->kind == VK_LANE || (v->kind == VK_SCALAR && (!v->computed || v->lane))) return true;
  }
  return false;
}

/* Does a scalar call read the lane through an index argument? */
static bool reads_lane(T *t, const Call *c) {
  for (int i = 0; i < c->nargs; i++) {
    const Arg *x = &c->args[i];
    if ((x->k == A_IEXPR && uses_lane(t, &x->ix[0])) ||
        (x->k == A_IDX && (uses_lane(t, &x->ix[0]) || uses_lane(t, &x->ix[1]))))
      return true;
  }
  return false;
}

/* A store of a lane value runs in both lanes (language.md 10.1). Do the two
 * lanes write the same window: no lane term in the offset (the lane variable,
 * subblock_idx scalars and per-lane computed scalars count) and a non-empty
 * static valid shape? A lane term of the wrong size is check_split's
 * (E-SPLIT-STORE for a half tile); docs/split.md section 5. */
static bool same_window(T *t, const Arg *o, Type a) {
  if (a.vr <= 0 || a.vc <= 0) return false;     /* run-time (an owned slice) or empty */
  for (int d = 0; d < 2; d++)
    if (uses_lane(t, &o->ix[d])) return false;
  return true;
}

/* ---- argument access ---------------------------------------------------------- */

static Arg *pos(T *t, Call *c, int i) {
  Arg *a = ir_pos(c, i);
  if (!a) ERR(c->loc, E_ARITY, "%s: missing argument %d", opn(c), i + 1);
  return a;
}

static Type tile_of(T *t, Call *c, Arg *a, const char *what) {
  if (a->k == A_CALL) {
    Type ty = check_call(t, a->call);
    if (ty.k != TY_TILE) ERR(a->loc, E_ARG, "%s: %s must be a tile, '%s' gives none", opn(c), what, opn(a->call));
    return ty;
  }
  if (a->k != A_VAR || a->var->kind != VK_TILE)
    ERR(a->loc, E_ARG, "%s: %s must be a tile%s%s", opn(c), what, a->k == A_VAR ? ", not " : "",
        a->k == A_VAR ? a->var->name : "");
  Var *v = a->var;
  ASSERT(v->typed);
  return (Type){TY_TILE, v->dt, v->sp, v->R, v->C, v->svr, v->svc, v->lane, v->differ};
}

static Var *tensor_of(T *t, Call *c, Arg *a, const char *what) {
  if (a->k != A_VAR || a->var->kind != VK_TENSOR)
    ERR(a->loc, E_ARG, "%s: %s must be a GM tensor parameter", opn(c), what);
  return a->var;
}

static Var *tensor2d(T *t, Call *c, Arg *a, const char *what) {
  Var *v = tensor_of(t, c, a, what);
  if (v->rank != 2) ERR(a->loc, E_ARG, "%s: %s must be a 2-D tensor; '%s' is a 1-D index table", opn(c), what, v->name);
  return v;
}

static void index_arg(T *t, Call *c, Arg *a, const char *what) {
  if (a->k != A_IDX) ERR(a->loc, E_ARG, "%s: %s must be an index pair [r, c]", opn(c), what);
}

static void shape_arg(T *t, Call *c, Arg *a, int *R, int *C) {
  index_arg(t, c, a, "the shape");
  for (int d = 0; d < 2; d++) {
    if (!ir_aff_const(&a->ix[d])) ERR(a->loc, E_ARG, "%s: tile shapes must be constant", opn(c));
    if (a->ix[d].c < 1 || a->ix[d].c > IR_MAXDIM)
      ERR(a->loc, E_DIM, "%s: tile dimension %d outside 1..%d", opn(c), a->ix[d].c, IR_MAXDIM);
  }
  *R = a->ix[0].c;
  *C = a->ix[1].c;
}

static int int_kw(T *t, Call *c, Kw kw, int dflt, int lo, int hi, bool required, DiagCode code) {
  Arg *a = ir_kwarg(c, kw);
  if (a && a->k == A_IEXPR) ERR(a->loc, E_ARG, "%s: '%s' must be a constant", opn(c), ir_kw_name(kw));
  if (!a) {
    if (required) ERR(c->loc, E_ARG, "%s: missing keyword argument '%s'", opn(c), ir_kw_name(kw));
    return dflt;
  }
  if (a->k != A_NUM || !a->isint) ERR(a->loc, E_ARG, "%s: '%s' takes an integer", opn(c), ir_kw_name(kw));
  if (a->num < lo || a->num > hi) ERR(a->loc, code, "%s: '%s' must be in %d..%d", opn(c), ir_kw_name(kw), lo, hi);
  return (int)a->num;
}

static Space space_kw(T *t, Call *c) {
  Arg *a = ir_kwarg(c, KW_SPACE);
  if (!a) return SP_VEC;
  if (a->k != A_SPACE || (a->e != SP_VEC && a->e != SP_MAT))
    ERR(a->loc, E_SPACE, "%s: space must be vec or mat", opn(c));
  return (Space)a->e;
}

/* The split axis of aiv_shard / aic_gather (DESIGN 14.3: the source names
 * the axis, the compiler derives the code). The _odd spellings are aliases of
 * their axis, rewritten here; `none` only where the op allows it. */
static Mode mode_arg(T *t, Call *c, Arg *a, bool none) {
  if (a->k != A_MODE || (a->e == MODE_NONE && !none))
    ERR(a->loc, E_ARG, "%s: expected up_down or left_right%s", opn(c), none ? " or none" : "");
  if (MODE_ODD(a->e)) a->e = MODE_AXIS(a->e) ? MODE_LR : MODE_UD;
  return (Mode)a->e;
}

static void same_dtype(T *t, Call *c, Loc l, Type a, Type b) {
  if (a.dt != b.dt)
    ERR(l, E_TYPE, "%s: operands have dtypes %s and %s", opn(c), ir_dtype_name(a.dt), ir_dtype_name(b.dt));
}
static void need_float(T *t, Call *c, Loc l, Type a) {
  if (!isfloat(a.dt)) ERR(l, E_TYPE, "%s is not defined for %s", opn(c), ir_dtype_name(a.dt));
}

/* A GM window [off, off+ext) on each dim must lie inside tensor T. ext is an
 * affine expression (valid extents), or a constant. */
static void gm_window(T *t, Call *c, Loc l, Var *T_, const Aff off[2], const Aff ext[2]) {
  for (int d = 0; d < 2 && !t->dead; d++) {
    if (!ir_aff_exact(t->k, &off[d]) || !ir_aff_exact(t->k, &ext[d])) continue;   /* checked at run time */
    int64_t lo, hi, elo, ehi, slo, shi;
    ir_aff_range(t->k, &off[d], &lo, &hi);
    ir_aff_range(t->k, &ext[d], &elo, &ehi);
    if (ehi <= 0) continue;                     /* never writes on this dim */
    ir_aff_range2(t->k, &off[d], &ext[d], 1, &slo, &shi);
    if (lo < 0 || shi > T_->dim[d])
      ERR(l, E_BOUNDS, "%s: window on dim %d reaches [%lld, %lld) but '%s' has %d %s", opn(c), d, (long long)lo,
          (long long)shi, T_->name, T_->dim[d], d ? "columns" : "rows");
  }
}

static void tile_window(T *t, Call *c, Loc l, const Aff off[2], const int ext[2], int R, int C, const char *what) {
  int dim[2] = {R, C};
  for (int d = 0; d < 2 && !t->dead; d++) {
    int64_t lo, hi;
    if (!ir_aff_exact(t->k, &off[d])) continue;                             /* checked at run time */
    ir_aff_range(t->k, &off[d], &lo, &hi);
    if (lo < 0 || hi + ext[d] > dim[d])
      ERR(l, E_WINDOW, "%s: window [%lld, %lld) on dim %d is past the %s's %d", opn(c), (long long)lo,
          (long long)(hi + ext[d]), d, what, dim[d]);
  }
}

static Aff cst(int x) { return (Aff){.c = x}; }

/* The valid= keyword: each extent within 0..shape over every iteration. Sets
 * ext to the extents (the shape when absent); returns the keyword or NULL. */
/* A valid extent on dim d must lie in 0..lim for every value it can take. */
static void extent_range(T *t, Call *c, Loc loc, const Aff *x, int d, int lim) {
  int64_t lo, hi;
  ir_aff_range(t->k, x, &lo, &hi);
  if (!t->dead && (lo < 0 || hi > lim))
    ERR(loc, E_VALID, "%s: valid extent on dim %d ranges over [%lld, %lld], outside 0..%d", opn(c), d, (long long)lo,
        (long long)hi, lim);
}

static Arg *valid_kw(T *t, Call *c, int R, int C, Aff ext[2]) {
  Arg *v = ir_kwarg(c, KW_VALID);
  ext[0] = cst(R);
  ext[1] = cst(C);
  if (!v) return NULL;
  index_arg(t, c, v, "valid");
  for (int d = 0; d < 2; d++) {
    extent_range(t, c, v->loc, &v->ix[d], d, d ? C : R);
    ext[d] = v->ix[d];
  }
  return v;
}

/* The final checks of a store: its GM window from the static valid shape (or,
 * when that is only known at run time, a non-negative offset) and from its
 * partition. A failure is kept in t->held, not raised: it counts only if the
 * round turns out to be the final one. */
static void store_window(T *t, Call *c, Var *g, Arg *o, Type a, Arg *pt) {
  jmp_buf jb, *outer = t->c->jb;
  Diag saved = t->c->diag;
  t->c->jb = &jb;
  if (setjmp(jb)) {
    t->c->jb = outer;
    t->held = t->c->diag;
    t->c->diag = saved;
    return;
  }
  if (a.vr >= 0 && a.vc >= 0) {
    Aff ext[2] = {cst(a.vr), cst(a.vc)};
    gm_window(t, c, o->loc, g, o->ix, ext);
  } else {
    for (int d = 0; d < 2; d++) {
      int64_t lo, hi;
      ir_aff_range(t->k, &o->ix[d], &lo, &hi);
      if (lo < 0 && ir_aff_exact(t->k, &o->ix[d]))   /* the end depends on the valid extent: run time */
        ERR(o->loc, E_BOUNDS, "store: offset on dim %d ranges over [%lld, %lld], outside '%s'", d, (long long)lo,
            (long long)hi, g->name);
    }
  }
  if (pt) gm_window(t, c, o->loc, g, o->ix, pt->ix);
  t->c->jb = outer;
}

/* A final check that failed: kept in t->held like store_window's (the first one counts). */
static void held(T *t, Loc loc, DiagCode code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void held(T *t, Loc loc, DiagCode code, const char *fmt, ...) {
  if (t->held.set) return;
  va_list ap;
  t->held = (Diag){.set = true, .code = code, .loc = loc, .op1 = t->c->judging1};
  va_start(ap, fmt);
  vsnprintf(t->held.msg, sizeof t->held.msg, fmt, ap);
  va_end(ap);
}

/* ---- one call ------------------------------------------------------------------ */

/* The IR level an op first belongs to (ir.md section 1): 0 source, 1
 * per-core programs (expand_mixed, lower_gather), 2 lowered programs on
 * explicit buffers (lower; a program is lowered once an alloc_tile has an
 * allocation shape, parse.c). The passes produce the later levels; a kernel's
 * text may use them only as far as it is itself per-core or lowered. */
static int op_level(Op op) {
  switch (op) {
  case OP_pipe: case OP_tpush: case OP_tpop: case OP_tfree: case OP_sync_set: case OP_sync_wait:
  case OP_gm_read: case OP_idiv: case OP_imod: case OP_gather_row: case OP_alloc_tile:   /* lower_gather's buffers */
    return 1;
  case OP_tload: case OP_tstore: case OP_subview: case OP_tmov: case OP_tmatmul:
  case OP_tmatmul_acc:
    return 2;
  default:
    return 0;
  }
}

/* Checking the kernel as read (not the IR after a pass)? */
static bool as_read(const T *t) { return !t->c->pass || !strcmp(t->c->pass, "parse"); }

static Type check_call(T *t, Call *c) {
  const OpInfo *oi = &ir_ops[c->op];
  int np = ir_npos(c);
  int lv = op_level(c->op);
  if (lv && as_read(t) && lv > (t->k->lowered ? 2 : t->k->expanded ? 1 : 0))
    ERR(c->loc, E_SCOPE, "%s belongs to %s programs (ir.md); this kernel is %s", oi->name,
        lv == 2 ? "lowered" : "per-core", t->k->expanded ? "per-core, not lowered (no alloc_tile with an allocation shape)" : "source");
  if (np < oi->min_pos || np > oi->max_pos)
    ERR(c->loc, E_ARITY, "%s takes %d argument%s, got %d", oi->name, oi->max_pos, oi->max_pos == 1 ? "" : "s", np);
  for (int i = 0; i < c->nargs; i++) {
    if (c->args[i].kw && !(oi->kwmask & (1u << c->args[i].kw)))
      ERR(c->args[i].loc, E_ARG, "%s does not take keyword '%s'", oi->name, ir_kw_name(c->args[i].kw));
    if (i && c->args[i - 1].kw && !c->args[i].kw)   /* the parser refuses it; ir_pos relies on it */
      die("%s: positional argument after a keyword argument in the IR", oi->name);
  }
  Type r = {TY_TILE, DT_F32, SP_VEC, 0, 0, -1, -1, false, false};
  Type a, b;
  Var *g;
  bool lane_ok = false;                         /* may this call read lane values? */
  switch (oi->kind) {
  case K_LOAD: {
    g = tensor2d(t, c, pos(t, c, 0), "the source");
    if (g->dir == DIR_OUT) ERR(c->args[0].loc, E_DIR, "load from 'out' tensor '%s' (declare it inout)", g->name);
    Arg *o = pos(t, c, 1);
    index_arg(t, c, o, "the offset");
    shape_arg(t, c, pos(t, c, 2), &r.R, &r.C);
    r.dt = g->dt;
    r.sp = space_kw(t, c);
    Aff ext[2];
    valid_kw(t, c, r.R, r.C, ext);
    r.vr = ir_aff_const(&ext[0]) ? ext[0].c : -1;
    r.vc = ir_aff_const(&ext[1]) ? ext[1].c : -1;
    gm_window(t, c, o->loc, g, o->ix, ext);
    break;
  }
  case K_STORE: {
    g = tensor2d(t, c, pos(t, c, 0), "the destination");
    if (g->dir == DIR_IN) ERR(c->args[0].loc, E_DIR, "store to 'in' tensor '%s' (declare it out or inout)", g->name);
    Arg *o = pos(t, c, 1);
    index_arg(t, c, o, "the offset");
    a = tile_of(t, c, pos(t, c, 2), "the stored value");
    if (a.dt != g->dt)
      ERR(c->args[2].loc, E_TYPE, "store: tile is %s but '%s' is %s", ir_dtype_name(a.dt), g->name, ir_dtype_name(g->dt));
    Arg *pt = ir_kwarg(c, KW_PART);
    if (pt) index_arg(t, c, pt, "the partition shape");
    if (!t->held.set) store_window(t, c, g, o, a, pt);
    r = (Type){TY_NONE, a.dt, a.sp, 0, 0, 0, 0, false, false};
    c->perlane = a.lane;
    lane_ok = a.lane;
    if (a.lane && (a.differ || t->cond) && !ir_kwarg(c, KW_LANE) && c->op == OP_store && t->k->explicit_split &&
        !t->k->expanded && same_window(t, o, a))
      ERR(o->loc, E_SPLIT_STORE, "store: both lanes run this store of a lane value whose lanes may differ%s, to the "
          "same window (no lane term in the offset): store from lane 0 only with lane=0, or give each lane its own "
          "window (offset + lane * extent)", t->cond ? " (under if/while)" : "");
    if (ir_kwarg(c, KW_LANE)) {
      Arg *ln = ir_kwarg(c, KW_LANE);
      if (ln->k != A_NUM || !ln->isint || ln->num != 0) ERR(ln->loc, E_ARG, "store: lane= takes 0 (lane 0 only)");
      if (!a.lane) ERR(ln->loc, E_LANE, "store: lane=0 needs a lane value inside split_aiv");
    }
    break;
  }
  case K_TLOAD: {
    a = tile_of(t, c, pos(t, c, 0), "the destination buffer");
    g = tensor2d(t, c, pos(t, c, 1), "the source");
    if (g->dir == DIR_OUT) ERR(c->args[1].loc, E_DIR, "tload from 'out' tensor '%s'", g->name);
    if (g->dt != a.dt) ERR(c->args[1].loc, E_TYPE, "tload: '%s' is %s, the buffer %s", g->name, ir_dtype_name(g->dt),
                           ir_dtype_name(a.dt));
    Arg *o = pos(t, c, 2), *pt = pos(t, c, 3);
    index_arg(t, c, o, "the offset");
    index_arg(t, c, pt, "the partition shape");
    for (int d = 0; d < 2; d++) {
      int64_t lo, hi;
      ir_aff_range(t->k, &pt->ix[d], &lo, &hi);
      if (!t->dead && (lo < 0 || hi > (d ? a.C : a.R)))
        ERR(pt->loc, E_VALID, "tload: partition extent on dim %d ranges over [%lld, %lld], outside 0..%d", d,
            (long long)lo, (long long)hi, d ? a.C : a.R);
    }
    gm_window(t, c, o->loc, g, o->ix, pt->ix);
    r = a;
    r.vr = ir_aff_const(&pt->ix[0]) ? pt->ix[0].c : -1;
    r.vc = ir_aff_const(&pt->ix[1]) ? pt->ix[1].c : -1;
    break;
  }
  case K_GATHER: {
    g = tensor2d(t, c, pos(t, c, 0), "the source");
    Var *ix = tensor_of(t, c, pos(t, c, 1), "the index table");
    Var *tb = tensor_of(t, c, pos(t, c, 2), "the page table");
    if (g->dir == DIR_OUT) ERR(c->args[0].loc, E_DIR, "paged_gather from 'out' tensor '%s'", g->name);
    for (int i = 1; i < 3; i++) {
      Var *x = i == 1 ? ix : tb;
      if (x->dt != DT_I32 || x->rank != 1)
        ERR(c->args[i].loc, E_TYPE, "paged_gather: '%s' must be a 1-D i32 table", x->name);
      if (x->dir == DIR_OUT) ERR(c->args[i].loc, E_DIR, "paged_gather: table '%s' is an 'out' tensor", x->name);
    }
    int bs = int_kw(t, c, KW_BLOCK_SIZE, 0, 1, IR_MAXGM, true, E_DIM);
    int sz = int_kw(t, c, KW_SIZE, 0, 1, IR_MAXDIM, true, E_DIM);
    int mi = int_kw(t, c, KW_MAX_INDICES, 0, 1, IR_MAXDIM, true, E_DIM);
    Arg *cok = ir_kwarg(c, KW_COL_OFF);
    int64_t colo = 0, cohi = 0;
    if (cok && cok->k == A_IEXPR) ir_aff_range(t->k, &cok->ix[0], &colo, &cohi);
    else colo = cohi = int_kw(t, c, KW_COL_OFF, 0, 0, IR_MAXGM, false, E_BOUNDS);
    (void)bs;
    if (colo < 0 || cohi + sz > g->dim[1])
      ERR(c->loc, E_BOUNDS, "paged_gather: columns [%lld, %lld) are past '%s' with %d columns", (long long)colo,
          (long long)(cohi + sz), g->name, g->dim[1]);
    if (ix->dim[1] > mi && !ir_kwarg(c, KW_WINDOW))
      ERR(c->args[1].loc, E_SHAPE, "paged_gather: '%s' holds %d indices, more than max_indices=%d", ix->name,
          ix->dim[1], mi);
    r.dt = g->dt;
    r.sp = space_kw(t, c);
    r.R = mi;
    r.C = sz;
    r.vr = ix->dim[1];
    r.vc = sz;
    Arg *w = ir_kwarg(c, KW_WINDOW);
    if (w) {
      index_arg(t, c, w, "window");
      int64_t lo, hi, nlo, nhi;
      ir_aff_range(t->k, &w->ix[0], &lo, &hi);
      ir_aff_range(t->k, &w->ix[1], &nlo, &nhi);
      if (lo < 0 || nlo < 0 || nhi > mi)
        ERR(w->loc, E_VALID, "paged_gather: window [first, count] needs first >= 0 and 0 <= count <= max_indices");
      r.vr = -1;
    }
    break;
  }
  case K_SLICE: {
    a = tile_of(t, c, pos(t, c, 0), "the sliced tile");
    Arg *o = pos(t, c, 1);
    index_arg(t, c, o, "the offset");
    shape_arg(t, c, pos(t, c, 2), &r.R, &r.C);
    int ext[2] = {r.R, r.C};
    tile_window(t, c, o->loc, o->ix, ext, a.R, a.C, "tile");
    r.dt = a.dt;
    r.sp = a.sp;
    /* a window of a mat/acc tile off the fractal box is no subview: it is cut on
     * the vector side, so the slice is a vec tile (language.md 9.3; infer_space
     * moves the operand) */
    if (c->op == OP_slice && (a.sp == SP_MAT || a.sp == SP_ACC) && !ir_slice_on_box(a.sp, a.dt, a.R, o, &c->args[2]))
      r.sp = SP_VEC;
    int av[2] = {a.vr, a.vc}, rv[2];
    for (int d = 0; d < 2; d++)
      rv[d] = av[d] < 0 || !ir_aff_const(&o->ix[d]) ? -1 : imin(ext[d], clampi(av[d] - o->ix[d].c, 0, ext[d]));
    r.vr = rv[0];
    r.vc = rv[1];
    Aff vb[2];
    if (valid_kw(t, c, r.R, r.C, vb)) {
      r.vr = ir_aff_const(&vb[0]) && r.vr >= 0 ? imin(r.vr, vb[0].c) : -1;
      r.vc = ir_aff_const(&vb[1]) && r.vc >= 0 ? imin(r.vc, vb[1].c) : -1;
    }
    break;
  }
  case K_ASSEMBLE: {
    a = tile_of(t, c, pos(t, c, 0), "the destination tile");
    b = tile_of(t, c, pos(t, c, 1), "the source tile");
    same_dtype(t, c, c->args[1].loc, a, b);
    Arg *o = pos(t, c, 2);
    index_arg(t, c, o, "the offset");
    int ext[2] = {b.R, b.C};
    tile_window(t, c, o->loc, o->ix, ext, a.R, a.C, "destination tile");
    r = a;
    r.sp = SP_VEC;
    r.vr = ir_aff_const(&o->ix[0]) && b.vr >= 0 ? kmax(a.vr, o->ix[0].c + b.vr) : -1;
    r.vc = ir_aff_const(&o->ix[1]) && b.vc >= 0 ? kmax(a.vc, o->ix[1].c + b.vc) : -1;
    break;
  }
  case K_SETVALID: {                            /* the extents' ranges are checked here, so never at run time */
    a = tile_of(t, c, pos(t, c, 0), "the tile");
    r = a;
    int ext[2] = {a.R, a.C}, sv[2];
    for (int d = 0; d < 2; d++) {
      Arg *x = pos(t, c, 1 + d);
      if (x->k != A_IEXPR) ERR(x->loc, E_ARG, "set_validshape takes index expressions");
      extent_range(t, c, x->loc, &x->ix[0], d, ext[d]);
      sv[d] = ir_aff_const(&x->ix[0]) ? x->ix[0].c : -1;
    }
    r.vr = sv[0];
    r.vc = sv[1];
    break;
  }
  case K_TRANS:                                 /* [R,C] -> [C,R], the valid shape mirrored */
    a = tile_of(t, c, pos(t, c, 0), "the operand");
    r = a;
    r.R = a.C, r.C = a.R;
    r.vr = a.vc, r.vc = a.vr;
    break;
  case K_RESHAPE: {                             /* row-major order kept: a full tile, or an empty one */
    a = tile_of(t, c, pos(t, c, 0), "the operand");
    Arg *sh = pos(t, c, 1);
    r = a;
    shape_arg(t, c, sh, &r.R, &r.C);
    if (r.R * r.C != a.R * a.C)
      ERR(sh->loc, E_SHAPE, "reshape of [%d,%d] (%d elements) to [%d,%d] (%d elements)", a.R, a.C, a.R * a.C, r.R,
          r.C, r.R * r.C);
    bool empty = !a.vr || !a.vc;
    r.vr = empty ? 0 : r.R;
    r.vc = empty ? 0 : r.C;
    /* The source must be statically full; after the passes (or in a lowered
     * program read back) a run-time valid shape is what the front end proved
     * full (a popped entry's, a buffer shared by lane 0 and the replay). The
     * static valid shape is final in the last round only. */
    bool front = as_read(t) && !t->k->lowered;
    if (!empty && (a.vr != a.R || a.vc != a.C) && (front || (a.vr >= 0 && a.vc >= 0)))
      held(t, c->loc, E_RESHAPE, "reshape of a [%d,%d] tile whose valid shape is %s, not all of it: the row-major "
           "order of a partial tile is no rectangle (slice its valid part first)", a.R, a.C,
           a.vr < 0 || a.vc < 0 ? "known only at run time" : ir_fmt(t->c->A, "[%d,%d]", a.vr, a.vc));
    break;
  }
  case K_FULL: {
    shape_arg(t, c, pos(t, c, 0), &r.R, &r.C);
    Arg *v = pos(t, c, 1), *d = pos(t, c, 2);
    if (v->k != A_NUM) ERR(v->loc, E_ARG, "full: the value must be a number");
    if (d->k != A_DTYPE) ERR(d->loc, E_ARG, "full: the last argument must be a dtype");
    r.dt = (Dtype)d->e;
    if (ir_dtype_int(r.dt) && (!v->isint || !ir_dtype_fits(r.dt, v->num)))
      ERR(v->loc, E_TYPE, "full: an %s tile needs an integer value in its range", ir_dtype_name(r.dt));
    Aff vb[2];
    valid_kw(t, c, r.R, r.C, vb);
    r.vr = ir_aff_const(&vb[0]) ? vb[0].c : -1;
    r.vc = ir_aff_const(&vb[1]) ? vb[1].c : -1;
    break;
  }
  case K_BIN:
    a = tile_of(t, c, pos(t, c, 0), "the first operand");
    b = tile_of(t, c, pos(t, c, 1), "the second operand");
    same_dtype(t, c, c->args[1].loc, a, b);
    if (a.R != b.R || a.C != b.C)
      ERR(c->args[1].loc, E_SHAPE, "%s: shapes [%d,%d] and [%d,%d] differ", opn(c), a.R, a.C, b.R, b.C);
    if (c->op == OP_div) need_float(t, c, c->loc, a);
    r = a;
    r.vr = kmin(a.vr, b.vr);
    r.vc = kmin(a.vc, b.vc);
    break;
  case K_BINS: {
    a = tile_of(t, c, pos(t, c, 0), "the tile operand");
    Arg *s = pos(t, c, 1);
    if (s->k != A_NUM) ERR(s->loc, E_ARG, "%s: the second operand must be a number", opn(c));
    if (c->op == OP_divs) need_float(t, c, c->loc, a);
    if (ir_dtype_int(a.dt) && (!s->isint || !ir_dtype_fits(a.dt, s->num)))
      ERR(s->loc, E_TYPE, "%s: an %s tile needs an integer scalar in its range", opn(c), ir_dtype_name(a.dt));
    r = a;
    break;
  }
  case K_UN:
    a = tile_of(t, c, pos(t, c, 0), "the operand");
    if (c->op == OP_exp || c->op == OP_sqrt || c->op == OP_recip) need_float(t, c, c->loc, a);
    r = a;
    break;
  case K_CAST: {
    a = tile_of(t, c, pos(t, c, 0), "the operand");
    Arg *d = pos(t, c, 1);
    if (d->k != A_DTYPE) ERR(d->loc, E_ARG, "cast: the second argument must be a dtype");
    r = a;
    r.dt = (Dtype)d->e;
    break;
  }
  case K_RRED:
  case K_CRED: {
    a = tile_of(t, c, pos(t, c, 0), "the operand");
    r = a;
    bool row = oi->kind == K_RRED;
    if (row) r.C = 1, r.vc = a.vc < 0 ? -1 : a.vc ? 1 : 0, r.vr = a.vc == 0 ? 0 : a.vr;
    else r.R = 1, r.vr = a.vr < 0 ? -1 : a.vr ? 1 : 0, r.vc = a.vr == 0 ? 0 : a.vc;
    if (row && a.vc < 0) r.vr = -1;
    if (!row && a.vr < 0) r.vc = -1;
    Aff dv[2];
    if (valid_kw(t, c, r.R, r.C, dv)) {         /* lowered: the destination's valid, declared */
      r.vr = ir_aff_const(&dv[0]) ? dv[0].c : -1;
      r.vc = ir_aff_const(&dv[1]) ? dv[1].c : -1;
    }
    break;
  }
  case K_REXP:
  case K_CEXP: {
    a = tile_of(t, c, pos(t, c, 0), "the tile operand");
    b = tile_of(t, c, pos(t, c, 1), "the expanded operand");
    same_dtype(t, c, c->args[1].loc, a, b);
    bool row = oi->kind == K_REXP;
    if (row ? (b.R != a.R || b.C != 1) : (b.C != a.C || b.R != 1))
      ERR(c->args[1].loc, E_SHAPE, "%s: expanded operand is [%d,%d], expected [%d,%d]", opn(c), b.R, b.C,
          row ? a.R : 1, row ? 1 : a.C);
    if (c->op == OP_row_expand_div || c->op == OP_col_expand_div) need_float(t, c, c->loc, a);
    int av = row ? a.vr : a.vc, bv = row ? b.vr : b.vc;
    if (av >= 0 && bv >= 0 && av != bv && !t->k->lowered)   /* lowered programs: B-EXPAND judges */
      ERR(c->args[1].loc, E_VALID, "%s: the expanded operand has %d valid %s, the tile %d", opn(c), bv,
          row ? "rows" : "cols", av);
    r = a;
    break;
  }
  case K_MATMUL: {
    int base = IR_ACC_MATMUL(c->op);
    a = tile_of(t, c, pos(t, c, base), "the left operand");
    b = tile_of(t, c, pos(t, c, base + 1), "the right operand");
    same_dtype(t, c, c->args[base + 1].loc, a, b);
    int tb = int_kw(t, c, KW_TRANS_B, 0, 0, 1, false, E_ARG);
    int bk = tb ? b.C : b.R, bn = tb ? b.R : b.C;
    if (a.C != bk)
      ERR(c->args[base + 1].loc, E_SHAPE, "%s: inner dimensions differ: [%d,%d] x [%d,%d]%s", opn(c), a.R, a.C, b.R,
          b.C, tb ? " transposed" : "");
    int bkv = tb ? b.vc : b.vr;
    if (a.vc >= 0 && bkv >= 0 && bkv < a.vc)
      ERR(c->args[base + 1].loc, E_VALID, "%s: right operand has %d valid rows along k, the left operand sums %d",
          opn(c), bkv, a.vc);
    if (a.dt == DT_I16)                         /* language.md 9.7: the cube has no i16 product */
      ERR(c->args[base].loc, E_TYPE, "%s is not defined for i16 operands", opn(c));
    r.dt = ir_dtype_int(a.dt) ? DT_I32 : DT_F32;
    r.sp = SP_ACC;
    r.R = a.R;
    r.C = bn;
    r.vr = a.vr;
    r.vc = tb ? b.vr : b.vc;
    if (base) {
      Type acc = tile_of(t, c, pos(t, c, 0), "the accumulator");
      if (acc.sp != SP_ACC) ERR(c->args[0].loc, E_SPACE, "matmul_acc: the accumulator must be an acc tile (a matmul result)");
      if (acc.dt != r.dt)
        ERR(c->args[0].loc, E_TYPE, "matmul_acc: accumulator is %s, the product is %s", ir_dtype_name(acc.dt),
            ir_dtype_name(r.dt));
      if (acc.R != r.R || acc.C != r.C)
        ERR(c->args[0].loc, E_SHAPE, "matmul_acc: accumulator is [%d,%d], the product is [%d,%d]", acc.R, acc.C, r.R,
            r.C);
      r.vr = kmin(r.vr, acc.vr);
      r.vc = kmin(r.vc, acc.vc);
    }
    break;
  }
  case K_SHARD: {
    Mode m = mode_arg(t, c, pos(t, c, 1), true);
    if (!t->lane && (m != MODE_NONE || !t->k->explicit_split))   /* language.md 10.2 */
      ERR(c->loc, E_SCOPE, "aiv_shard is only defined inside split_aiv (with mode none also outside it, in a "
          "kernel written with split_aiv)");
    Arg *x = pos(t, c, 0);
    a = tile_of(t, c, x, "the operand");
    if (a.lane) ERR(x->loc, E_LANE, "aiv_shard: operand is already a lane value");
    if (a.sp == SP_VEC)
      ERR(x->loc, E_SPACE, "aiv_shard: operand must be a cube tile (mat or acc)%s",
          x->k == A_VAR || x->k == A_CALL ? "; a slice of a mat/acc tile off the 16-row box is a vec tile: shard "
                                             "the whole tile and slice each lane's part" : "");
    r = a;
    r.sp = SP_VEC;
    if (m == MODE_NONE) {                       /* the whole tile to both lanes */
      if (ir_kwarg(c, KW_STRIDE)) ERR(ir_kwarg(c, KW_STRIDE)->loc, E_ARG, "aiv_shard: mode none takes no stride");
      break;
    }
    int *e = MODE_AXIS(m) == 0 ? &r.R : &r.C, *v = MODE_AXIS(m) == 0 ? &r.vr : &r.vc;
    /* the default is the target's stride for the target the kernel was first typed for:
     * a variant for the other target keeps it (check_split refuses what that target cannot place) */
    if (!t->k->stride_target) t->k->stride_target = (int8_t)(1 + t->k->target);
    int S0 = ir_split_stride((Target)(t->k->stride_target - 1), *e), S = int_kw(t, c, KW_STRIDE, S0, 1, S0 > *e ? S0 : *e, false, E_RANGE);
    int v0 = *v < 0 ? -1 : ir_lane_valid(*v, S, 0), v1 = *v < 0 ? -1 : ir_lane_valid(*v, S, 1);
    *e = S;
    *v = v0 == v1 ? v0 : -1;
    break;
  }
  case K_JOIN: {
    if (!t->lane) ERR(c->loc, E_SCOPE, "aic_gather is only defined inside split_aiv");
    Arg *x = pos(t, c, 0);
    a = tile_of(t, c, x, "the operand");
    if (!a.lane) ERR(x->loc, E_LANE, "aic_gather: operand must be a lane value (made inside this split_aiv)");
    Mode m = mode_arg(t, c, pos(t, c, 1), false);
    r = a;
    r.sp = SP_MAT;
    int ax = MODE_AXIS(m), *e = ax ? &r.C : &r.R, P = *e, *v = ax ? &r.vc : &r.vr;
    *e *= 2;
    if (*e > IR_MAXDIM) ERR(c->loc, E_DIM, "aic_gather: joined tile has dimension %d, more than %d", *e, IR_MAXDIM);
    /* DESIGN 14.6: the lanes re-join positionally, lane 1 at lane 0's extent P.
     * Both lanes holding the same 0 < V < P is not a rectangle. Lanes that
     * differ leave the joined extent to valid= (else unknown). */
    if (*v > 0 && *v < P)
      ERR(c->loc, E_SPLIT_RAGGED, "aic_gather: each lane holds %d of %d on the %s axis; lane 0's band ends short of "
          "lane 1's, so the joined tile is not a rectangle", *v, P, ax ? "column" : "row");
    if (*v == P) *v = 2 * P;
    Arg *jv = ir_kwarg(c, KW_VALID);
    if (jv) {
      if (jv->k != A_IDX || !ir_aff_const(&jv->ix[0]) || !ir_aff_const(&jv->ix[1]))
        ERR(jv->loc, E_ARG, "aic_gather: valid= takes constant extents");
      if (jv->ix[0].c < 0 || jv->ix[0].c > r.R || jv->ix[1].c < 0 || jv->ix[1].c > r.C)
        ERR(jv->loc, E_VALID, "aic_gather: valid [%d, %d] outside the joined [%d, %d]", jv->ix[0].c, jv->ix[1].c, r.R,
            r.C);
      r.vr = jv->ix[0].c, r.vc = jv->ix[1].c;
    }
    lane_ok = true;
    break;
  }
  case K_LANEIDX:
    if (!t->lane) ERR(c->loc, E_SCOPE, "subblock_idx() is only defined inside split_aiv");
    r = (Type){TY_SCALAR, DT_I32, SP_NONE, 1, 1, 1, 1, false, false};
    lane_ok = true;
    break;
  case K_MOVE: {
    a = tile_of(t, c, pos(t, c, 0), "the moved tile");
    Arg *sp = pos(t, c, 1);
    if (sp->k != A_SPACE || sp->e == SP_NONE) ERR(sp->loc, E_ARG, "move: the second argument must be a space");
    r = a;
    r.sp = (Space)sp->e;
    /* nothing is transferred or copied into acc: only the cube's matmuls
     * write it (B-MOV has no pair into acc), so a source move into acc is refused */
    if (c->op == OP_move && r.sp == SP_ACC && a.sp != SP_ACC)
      ERR(sp->loc, E_SPACE, "move: a %s tile cannot be moved into acc; only matmul and matmul_acc produce acc tiles "
          "(matmul_acc(c, a, b) with c in %s is add(c, matmul(a, b)), bit for bit)", ir_space_name(a.sp),
          ir_space_name(a.sp));
    if (r.sp != SP_VEC) lane_ok = true;         /* lane 0's value crosses to the cube */
    break;
  }
  case K_GMREAD: {
    Var *x = tensor_of(t, c, pos(t, c, 0), "the table");
    if (x->dt != DT_I32 || x->rank != 1) ERR(c->args[0].loc, E_TYPE, "gm_read: '%s' must be a 1-D i32 table", x->name);
    if (x->dir == DIR_OUT) ERR(c->args[0].loc, E_DIR, "gm_read from 'out' tensor '%s'", x->name);
    r = (Type){TY_SCALAR, DT_I32, SP_NONE, -(1 << 30), 1 << 30, 0, 0, false, false};
    lane_ok = true;
    break;
  }
  case K_ALLOC: {
    Arg *sp = pos(t, c, 0), *dt = pos(t, c, 1);
    if (sp->k != A_SPACE || sp->e == SP_NONE) ERR(sp->loc, E_ARG, "alloc_tile: the first argument is a space");
    if (dt->k != A_DTYPE) ERR(dt->loc, E_ARG, "alloc_tile: the second argument is a dtype");
    shape_arg(t, c, pos(t, c, 2), &r.R, &r.C);
    Arg *al = ir_pos(c, 3);
    if (al) {
      index_arg(t, c, al, "the allocation shape");
      if (!ir_aff_const(&al->ix[0]) || !ir_aff_const(&al->ix[1]) || al->ix[0].c < r.R || al->ix[1].c < r.C ||
          al->ix[0].c > 4 * IR_MAXDIM || al->ix[1].c > 4 * IR_MAXDIM)
        ERR(al->loc, E_DIM, "alloc_tile: the allocation shape must be constant and cover the tile");
    }
    r.dt = (Dtype)dt->e;
    r.sp = (Space)sp->e;
    r.vr = r.vc = 0;
    break;
  }
  case K_GROW: {
    a = tile_of(t, c, pos(t, c, 0), "the destination tile");
    Var *src = tensor2d(t, c, pos(t, c, 1), "the source");
    index_arg(t, c, pos(t, c, 2), "the source row and column");
    if (src->dt != a.dt) ERR(c->args[1].loc, E_TYPE, "gather_row: '%s' is %s, the tile %s", src->name,
                             ir_dtype_name(src->dt), ir_dtype_name(a.dt));
    if (src->dir == DIR_OUT) ERR(c->args[1].loc, E_DIR, "gather_row from 'out' tensor '%s'", src->name);
    int box = int_kw(t, c, KW_BOX, 1, 1, IR_MAXDIM, false, E_ARG);
    (void)box;
    r = a;
    r.vr = r.vc = -1;
    break;
  }
  case K_PIPE: {
    Arg *d = pos(t, c, 0), *n = pos(t, c, 1), *b = pos(t, c, 2);
    if (d->k != A_DIR) ERR(d->loc, E_ARG, "pipe: the first argument is c2v or v2c");
    if (n->k != A_NUM || !n->isint || n->num < 1 || n->num > 8) ERR(n->loc, E_RANGE, "pipe: 1..8 slots");
    if (b->k != A_NUM || !b->isint || b->num < 1) ERR(b->loc, E_RANGE, "pipe: slot bytes must be positive");
    r = (Type){TY_NONE, DT_F32, SP_NONE, 0, 0, 0, 0, false, false};
    break;
  }
  case K_TPUSH: {
    Arg *d = pos(t, c, 0), *n = pos(t, c, 2);
    if (d->k != A_DIR) ERR(d->loc, E_ARG, "tpush: the first argument is c2v or v2c");
    a = tile_of(t, c, pos(t, c, 1), "the pushed tile");
    if (n->k != A_NUM || !n->isint || n->num < 0 || n->num > 4) ERR(n->loc, E_RANGE, "tpush: split code 0..4");
    r = (Type){TY_NONE, a.dt, a.sp, 0, 0, 0, 0, false, false};
    c->perlane = a.lane;
    lane_ok = true;
    break;
  }
  case K_TPOP: {
    Arg *d = pos(t, c, 0), *dt = pos(t, c, 1), *n = pos(t, c, 3);
    if (d->k != A_DIR) ERR(d->loc, E_ARG, "tpop: the first argument is c2v or v2c");
    if (dt->k != A_DTYPE) ERR(dt->loc, E_ARG, "tpop: the second argument is a dtype");
    shape_arg(t, c, pos(t, c, 2), &r.R, &r.C);
    if (n->k != A_NUM || !n->isint || n->num < 0 || n->num > 4) ERR(n->loc, E_RANGE, "tpop: split code 0..4");
    r.dt = (Dtype)dt->e;
    r.sp = d->e == PIPE_C2V ? SP_VEC : SP_MAT;
    break;
  }
  case K_TFREE:
  case K_SYNC: {
    Arg *d = pos(t, c, 0);
    if (d->k != A_DIR) ERR(d->loc, E_ARG, "%s: the argument is c2v or v2c", opn(c));
    r = (Type){TY_NONE, DT_F32, SP_NONE, 0, 0, 0, 0, false, false};
    break;
  }
  case K_ISCALAR: {
    int64_t lo[3], hi[3];
    for (int i = 0; i < np; i++) {
      Arg *x = pos(t, c, i);
      if (x->k != A_IEXPR) ERR(x->loc, E_ARG, "%s takes index expressions", opn(c));
      ir_aff_range(t->k, &x->ix[0], &lo[i], &hi[i]);
    }
    int64_t l, h;
    if (c->op == OP_idiv || c->op == OP_imod) {
      Arg *d = pos(t, c, 1);
      if (!ir_aff_const(&d->ix[0]) || d->ix[0].c <= 0) ERR(d->loc, E_ARG, "%s: the divisor must be a positive constant", opn(c));
      int64_t b = d->ix[0].c;
      if (c->op == OP_idiv) l = lo[0] / b, h = hi[0] / b;
      else l = lo[0] < 0 ? -(b - 1) : 0, h = b - 1;
    } else if (c->op == OP_imin) l = lo[0] < lo[1] ? lo[0] : lo[1], h = hi[0] < hi[1] ? hi[0] : hi[1];
    else if (c->op == OP_imax) l = lo[0] > lo[1] ? lo[0] : lo[1], h = hi[0] > hi[1] ? hi[0] : hi[1];
    else {
      l = lo[0] > lo[1] ? lo[0] : lo[1], h = hi[0] > hi[1] ? hi[0] : hi[1];
      l = l < lo[2] ? l : lo[2], h = h < hi[2] ? h : hi[2];
    }
    if (l < -(1 << 30) || h > (1 << 30)) ERR(c->loc, E_INDEX, "%s: result out of range", opn(c));
    r = (Type){TY_SCALAR, DT_I32, SP_NONE, (int)l, (int)h, 0, 0, false, false};   /* R, C carry the range */
    lane_ok = true;
    break;
  }
  default:
    die("typecheck: op kind %d", oi->kind);
  }
  if (oi->side == SD_VEC) r.sp = SP_VEC;
  if (oi->kind == K_TFREE || oi->kind == K_SYNC) c->perlane = t->lane != NULL;
  else if (oi->kind != K_STORE && oi->kind != K_TPUSH) {
    c->perlane = t->lane && ((r.k == TY_TILE && r.sp == SP_VEC) || r.k == TY_SCALAR);
    lane_ok = lane_ok || c->perlane;
  }
  r.lane = c->perlane && r.k == TY_TILE;
  /* A lane value is replicated (the same in both lanes, DESIGN 14.5) unless it
   * is a lane's part (aiv_shard), is computed under if/while, or reads a lane
   * value that may differ or the lane in an index or keyword. */
  if (r.lane) {
    r.differ = oi->kind == K_SHARD || t->cond > 0;
    for (int i = 0; i < c->nargs && !r.differ; i++) {
      const Arg *x = &c->args[i];
      r.differ = (x->k == A_VAR && x->var->kind == VK_TILE && x->var->differ) || (x->k == A_CALL && x->call->ty.differ) ||
                 (x->k == A_IDX && (uses_lane(t, &x->ix[0]) || uses_lane(t, &x->ix[1]))) ||
                 (x->k == A_IEXPR && uses_lane(t, &x->ix[0]));
    }
  }
  /* Only a per-lane statement may read lane values or the lane variable. */
  for (int i = 0; !lane_ok && i < c->nargs; i++) {
    Arg *x = &c->args[i];
    bool bad = (x->k == A_VAR && x->var->kind == VK_TILE && x->var->lane) ||
               (x->k == A_CALL && x->call->ty.lane) ||
               (x->k == A_IDX && (uses_lane(t, &x->ix[0]) || uses_lane(t, &x->ix[1]))) ||
               (x->k == A_IEXPR && uses_lane(t, &x->ix[0]));
    if (bad && !lane_ok)
      ERR(x->loc, E_LANE, "%s runs once on the %s and cannot use a lane value or the lane variable", opn(c),
          oi->kind == K_STORE || r.sp == SP_VEC ? "vector side" : "cube");
  }
  c->ty = r;
  return r;
}

/* ---- statements ------------------------------------------------------------------ */

static void assign(T *t, Stmt *s, Type ty) {
  Var *v = s->dst;
  if (v->kind == VK_SCALAR) {
    if (ty.k != TY_SCALAR) ERR(s->loc, E_REDEF, "'%s' holds an index scalar", v->name);
    if (!v->computed) v->lane = t->lane != NULL;   /* a lane scalar (subblock_idx) */
    else if (t->lane && !v->lane && (t->cond || reads_lane(t, s->rhs.call))) {
      /* a computed scalar is per lane when it reads the lane (the lane
       * variable, a lane scalar, a per-lane computed scalar) or is assigned
       * under if/while; one computed from shared values only is the same in
       * both lanes and a once statement may use it (language.md 6). Sticky:
       * any such assignment makes the name a lane scalar everywhere. */
      v->lane = true;
      t->changed |= v->typed;
    }
    if (v->computed && (!v->typed || ty.R < v->lo)) v->lo = ty.R, t->changed |= v->typed;
    if (v->computed && (!v->typed || ty.C > v->hi)) v->hi = ty.C, t->changed |= v->typed;
    v->typed = true;
    return;
  }
  if (ty.k != TY_TILE) ERR(s->rhs.loc, E_ARG, "'%s' has no result to assign", opn(s->rhs.call));
  if ((ty.differ || (t->cond && ty.lane)) && !v->differ) {   /* sticky: any assignment whose lanes may differ */
    v->differ = true;
    t->changed |= v->typed;
  }
  bool decl = s->rhs.k == A_CALL && s->rhs.call->op == OP_alloc_tile && s->rhs.call->nargs == 4;
  if (!v->typed || (v->svr == -2 && !decl)) {
    if (v->typed && (v->dt != ty.dt || v->sp != ty.sp || v->R != ty.R || v->C != ty.C))
      ERR(s->loc, E_REDEF, "'%s' is declared %s %s [%d,%d], assigned %s %s [%d,%d]", v->name, ir_dtype_name(v->dt),
          ir_space_name(v->sp), v->R, v->C, ir_dtype_name(ty.dt), ir_space_name(ty.sp), ty.R, ty.C);
    v->typed = true;
    v->dt = ty.dt;
    v->sp = ty.sp;
    v->R = ty.R;
    v->C = ty.C;
    v->lane = ty.lane;
    v->svr = decl ? -2 : ty.vr;                 /* a declaration: the valid shape comes later */
    v->svc = decl ? -2 : ty.vc;
    return;
  }
  if (decl) return;
  if (v->dt != ty.dt || v->sp != ty.sp || v->R != ty.R || v->C != ty.C)
    ERR(s->loc, E_REDEF, "'%s' was %s %s [%d,%d], reassigned as %s %s [%d,%d]", v->name, ir_dtype_name(v->dt),
        ir_space_name(v->sp), v->R, v->C, ir_dtype_name(ty.dt), ir_space_name(ty.sp), ty.R, ty.C);
  if (v->lane != ty.lane)
    ERR(s->loc, E_LANE, "'%s' is %s lane value; it cannot be reassigned %s inside split_aiv", v->name,
        v->lane ? "a" : "not a", v->lane ? "a shared value" : "a lane value");
  if (v->svr != ty.vr && v->svr != -1) v->svr = -1, t->changed = true;
  if (v->svc != ty.vc && v->svc != -1) v->svc = -1, t->changed = true;
}

/* Under if/while in a split region only per-lane statements run: no cube
 * work, no transfer, no pipe or fence (either would have to be matched by the
 * other side whatever each lane decides). */
static void lane_only(T *t, const Call *c) {
  OpKind k = ir_ops[c->op].kind;
  bool xfer = k == K_SHARD || k == K_JOIN || k == K_MOVE || k == K_PIPE || k == K_TPUSH || k == K_TPOP ||
              k == K_TFREE || k == K_SYNC;
  const Arg *x = k == K_STORE ? &c->args[2] : NULL;
  bool lane_store = x && ((x->k == A_VAR && x->var->lane) || (x->k == A_CALL && x->call->ty.lane));
  if (xfer || (!c->perlane && !lane_store))
    ERR(c->loc, E_SPLIT_COND, "%s %s; under if/while inside split_aiv only per-lane vector work may run", opn(c),
        xfer ? "is a transfer between cube and vector" : "runs once on the cube");
}

static void check_body(T *t, Body *b) {
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    switch (s->k) {
    case S_FOR: {
      int dead = ir_loop_trips(s->iv) == 0;
      t->dead += dead;
      check_body(t, &s->body);
      t->dead -= dead;
      break;
    }
    case S_SPLIT: {
      Var *saved = t->lane;
      t->lane = s->iv;
      check_body(t, &s->body);
      t->lane = saved;
      break;
    }
    case S_FUNC:
      check_body(t, &s->body);
      break;
    case S_IF:
      check_body(t, &s->body);
      check_body(t, &s->other);
      break;
    case S_COND:
      if (!t->lane) ERR(s->loc, E_SCOPE, "'if' and 'while' are only allowed inside split_aiv");
      t->cond++;
      check_body(t, &s->body);
      check_body(t, &s->other);
      t->cond--;
      break;
    case S_OP:
      if (s->rhs.k == A_VAR) {
        Var *v = s->rhs.var;
        if (v->kind != VK_TILE) ERR(s->rhs.loc, E_ARG, "only tiles can be copied, '%s' is not a tile", v->name);
        if (t->lane && s->dst->typed && s->dst->sp == SP_VEC && !s->dst->lane)
          ERR(s->loc, E_LANE, "'%s' is a vector value from outside split_aiv; it cannot be reassigned inside", s->dst->name);
        assign(t, s, (Type){TY_TILE, v->dt, v->sp, v->R, v->C, v->svr, v->svc, v->lane, v->differ});
        break;
      }
      Type ty = check_call(t, s->rhs.call);
      if (t->cond) lane_only(t, s->rhs.call);
      if (!s->dst && ty.k != TY_NONE)
        ERR(s->loc, E_ARG, "the result of %s must be assigned to a name", opn(s->rhs.call));
      if (s->dst) assign(t, s, ty);
      break;
    }
  }
}

void ir_typecheck(Comp *c, Kernel *k) {
  T t = {.c = c, .k = k};
  for (int round = 0;; round++) {
    t.changed = false;
    t.held.set = false;
    check_body(&t, &k->body);
    if (!t.changed) {                           /* this was the final round */
      if (t.held.set) ir_error(c, t.held.loc, t.held.code, "%s", t.held.msg);
      return;
    }
    /* widen: first every scalar range (a carried counter grows one step a
     * round), then, if that was not enough, every valid shape */
    for (int i = 0; i < k->nvars && round > 2 * k->nvars + 4; i++) {
      Var *v = k->vars[i];
      if (round > 3 * k->nvars + 8) v->svr = v->svc = -1;
      if (v->kind == VK_SCALAR && v->computed) v->lo = -(1 << 30), v->hi = 1 << 30;
    }
    ASSERT(round < 4 * k->nvars + 16);
  }
}
