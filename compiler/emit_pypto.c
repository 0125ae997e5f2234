/* emit_pypto.c — a front-end kernel (ir_front's result: parsed, typechecked and
 * flattened; no split applied, the split is PyPTO's job) -> a self-contained
 * PyPTO program, as Python text (DESIGN section 16; docs/pypto.md has the
 * translation table and says why each construct is spelt as it is).
 *
 * The program is one @pl.program class with one Orchestration function whose
 * parameters are the kernel's tensors in the kernel's order; the whole body
 * sits in one `with pl.at(level=pl.Level.CORE_GROUP, ...)` scope written at
 * the tile level (pl.load, pl.store, pl.slice, pl.matmul, ...), with
 * pl.split(...) for the variant's split mode; a `__main__` block compiles it
 * as the pypto driver does (pl.parse never runs it: the module it executes
 * in is not __main__).
 *
 * Semantics. A PyPTO tile carries its valid shape in its static type, and
 * each op deduces its result's valid shape by a rule of its own (an
 * element-wise op takes its left operand's, a matmul or an assemble the full
 * shape, a slice its requested shape). The emitter tracks every tile's valid
 * shape as the golden run defines it (language.md section 9; constants, or
 * Python expressions over loop variables and scalars) beside the one PyPTO
 * would deduce, and where the two differ wraps the op in pl.set_validshape,
 * so that every value means what the kernel's does. Reassigning a name with
 * another type is refused by PyPTO's parser and a loop-carried value must
 * keep its type, so names get fresh Python names per assignment, except those
 * carried around a loop or merged after an if ("pinned": one name, one valid
 * shape, else E-PYPTO-CARRIED-VALID).
 *
 * A construct with no PyPTO spelling of the same meaning on the selected
 * build is refused with an `unsupported` E-PYPTO-<CONSTRUCT> code; nothing is
 * refused because PyPTO crashes or miscompiles on it. Output is
 * deterministic: the text depends only on the kernel and the options. */
#include "ptoc.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A valid extent: a constant, or a Python expression with the range of values it takes. */
typedef struct {
  bool k;                                       /* constant v */
  int64_t v, lo, hi;
  const char *s;                                /* the Python text (also for constants) */
} VE;

/* A set of the Python names in use (open addressing). */
typedef struct {
  const char **v;
  size_t n, cap;
} Names;

typedef struct {
  Comp *c;
  const Kernel *k;
  const PyOpts *o;
  FILE *f;                                      /* the with-block's statements */
  char *fb;
  size_t fn;
  int ind;                                      /* indentation below the with block */
  Names names;
  const char **base;                            /* by var id: the mangled name */
  const char **py;                              /* by var id: the Python name holding its current value */
  VE (*val)[2];                                 /* by var id: its current (golden) valid shape */
  uint8_t *pin;                                 /* by var id: carried around a loop or out of a branch */
  uint8_t *seen;                                /* pinned tile: val is the valid every assignment keeps */
  uint8_t *twin;                                /* a trans_b operand */
  uint8_t *notload;                             /* assigned by something other than a mat load */
  uint8_t *plain;                               /* read other than as a trans_b operand */
  const char **tw;                              /* by var id: the name of its transposed twin's value */
  int *ver;                                     /* by var id: assignments named so far */
  int *defseq;                                  /* pre-pass: blocks opened before its first assignment, -1 none */
  Var *lane;                                    /* inside split_aiv: the lane variable */
  Mode lmode;                                   /* and the region's axis */
  int ntmp;
  FILE *pre;                                    /* statements before the with block (scratch tensors) */
  char *pb;
  size_t pn;
  bool cube;                                    /* the kernel has cube work (PyPTO splits only mixed kernels) */
} E;

static _Noreturn void refuse(E *e, Loc loc, DiagCode code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static _Noreturn void refuse(E *e, Loc loc, DiagCode code, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ir_error(e->c, loc, code, "no PyPTO spelling: %s", msg);
}

/* ---- names ------------------------------------------------------------------ */

static uint64_t hash_s(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static bool names_has(const Names *n, const char *s) {
  if (!n->cap) return false;
  for (size_t i = hash_s(s) & (n->cap - 1);; i = (i + 1) & (n->cap - 1)) {
    if (!n->v[i]) return false;
    if (!strcmp(n->v[i], s)) return true;
  }
}

static void names_add(E *e, const char *s) {
  Names *n = &e->names;
  if (2 * (n->n + 1) > n->cap) {
    size_t cap = n->cap ? 2 * n->cap : 256;
    const char **v = ir_alloc(e->c->A, cap * sizeof *v);
    for (size_t i = 0; i < n->cap; i++)
      if (n->v[i]) {
        size_t j = hash_s(n->v[i]) & (cap - 1);
        while (v[j]) j = (j + 1) & (cap - 1);
        v[j] = n->v[i];
      }
    n->v = v, n->cap = cap;
  }
  size_t j = hash_s(s) & (n->cap - 1);
  while (n->v[j]) {
    if (!strcmp(n->v[j], s)) return;
    j = (j + 1) & (n->cap - 1);
  }
  n->v[j] = s;
  n->n++;
}

/* Python keywords and soft keywords, the module-level names of the program,
 * and names PyPTO's DSL or the driver give a meaning. */
static const char *const reserved_py[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type", "_",
    "pl", "pld", "self", "ir", "pypto", "BackendType", "sys", "os", "glob", "subprocess", "main", "print",
    "range", "len", "min", "max", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "object",
    "__name__", "__file__", NULL};

/* name, or name_ (name__, ...) when it is reserved or taken. */
static const char *mangle(E *e, const char *name) {
  const char *s = name;
  for (;;) {
    bool bad = names_has(&e->names, s);
    for (int i = 0; !bad && reserved_py[i]; i++) bad = !strcmp(reserved_py[i], s);
    if (!bad) break;
    s = ir_fmt(e->c->A, "%s_", s);
  }
  names_add(e, s);
  return s;
}

/* A fresh name for the n-th value of a name: base (reserved by mangle), base_1, base_2, ... */
static const char *fresh(E *e, const char *base, int *n) {
  if (!(*n)++) return base;
  for (;;) {
    const char *s = ir_fmt(e->c->A, "%s_%d", base, (*n)++ - 1);
    if (!names_has(&e->names, s)) {
      names_add(e, s);
      return s;
    }
  }
}

/* ---- text ---------------------------------------------------------------------- */

static void line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(E *e, const char *fmt, ...) {
  fprintf(e->f, "%*s", 4 * (e->ind + 3), "");
  va_list ap;
  va_start(ap, fmt);
  vfprintf(e->f, fmt, ap);
  va_end(ap);
  fputc('\n', e->f);
}

static const char *dt_py(Dtype d) {
  switch (d) {
  case DT_F32: return "pl.FP32";
  case DT_F16: return "pl.FP16";
  case DT_BF16: return "pl.BF16";
  case DT_I32: return "pl.INT32";
  case DT_I16: return "pl.INT16";
  case DT_I8: return "pl.INT8";
  default: die("emit_pypto: dtype %d", (int)d);
  }
}

/* pl.load's valid-shape keyword on the selected build. */
static const char *valid_kw(const E *e) { return e->o->caps & PY_CAP_LOAD_VALID_SHAPE ? "valid_shape" : "valid_shapes"; }

static const char *mem_py(Space s) {
  switch (s) {
  case SP_VEC: return "pl.Mem.Vec";
  case SP_MAT: return "pl.Mem.Mat";
  case SP_ACC: return "pl.Mem.Acc";
  case SP_LEFT: return "pl.Mem.Left";
  case SP_RIGHT: return "pl.Mem.Right";
  default: die("emit_pypto: space %d", (int)s);
  }
}

static const char *mode_py(Mode m) {
  return MODE_AXIS(m) == 0 ? "pl.SplitMode.UP_DOWN" : "pl.SplitMode.LEFT_RIGHT";
}

/* f32 value x rounded to nearest even with `bits` significand bits (11: f16,
 * 8: bf16), smallest quantum 2^qmin, overflow past max to infinity. */
static double round_to(double x, int bits, int qmin, double max) {
  if (isnan(x) || isinf(x) || x == 0) return x;
  int ex;
  frexp(x, &ex);
  int qe = ex - bits < qmin ? qmin : ex - bits;
  double r = nearbyint(ldexp(x, -qe));
  double y = ldexp(r, qe);
  return fabs(y) > max ? copysign(INFINITY, x) : y;
}

/* A number literal as the tile dtype d takes it (language.md 11.4): rounded to f32
 * when read, then to f16 / bf16; printed so Python reads back exactly that value. */
static const char *num_py(E *e, double v, Dtype d) {
  if (ir_dtype_int(d)) return ir_fmt(e->c->A, "%lld", (long long)v);
  double x = (float)v;
  if (d == DT_F16) x = round_to(x, 11, -24, 65504.0);
  else if (d == DT_BF16) x = round_to(x, 8, -133, ldexp(255.0, 120));   /* 0x7F7F = 255 * 2^120 */
  if (isinf(x)) return x < 0 ? "-1e400" : "1e400";   /* a Python float literal past the range reads as inf */
  if (isnan(x)) die("emit_pypto: NaN literal");
  char b[40];
  snprintf(b, sizeof b, "%.17g", x);
  for (int p = 1; p <= 17; p++) {             /* the shortest spelling that reads back the same double */
    char t[40];
    snprintf(t, sizeof t, "%.*g", p, x);
    if (strtod(t, NULL) == x) {
      memcpy(b, t, sizeof t);
      break;
    }
  }
  return strpbrk(b, ".en") ? ir_fmt(e->c->A, "%s", b) : ir_fmt(e->c->A, "%s.0", b);
}

/* An index expression: variable terms first, constant last, never a leading unary minus. */
static const char *aff_py(E *e, const Aff *a) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) die("open_memstream failed");
  bool first = true;
  int lead = -1;                                /* a term with a positive coefficient to start with */
  for (int i = 0; i < a->n; i++)
    if (a->k[i] > 0) {
      lead = i;
      break;
    }
  if (lead < 0 && a->n) fprintf(f, "%d", a->c), first = false;
  for (int q = -1; q < a->n; q++) {
    int i = q < 0 ? lead : q;
    if (i < 0 || (q >= 0 && i == lead)) continue;
    int64_t k = a->k[i];
    const char *nm = e->py[a->v[i]];
    if (!first) fputs(k < 0 ? " - " : " + ", f);
    int64_t m = k < 0 ? -k : k;
    if (m == 1) fputs(nm, f);
    else fprintf(f, "%s * %lld", nm, (long long)m);
    first = false;
  }
  if (first) fprintf(f, "%d", a->c);
  else if (lead >= 0 && a->c) fprintf(f, " %c %lld", a->c < 0 ? '-' : '+', a->c < 0 ? -(long long)a->c : (long long)a->c);
  fclose(f);
  const char *r = ir_strndup(e->c->A, buf, n);
  free(buf);
  return r;
}

/* ---- valid extents -------------------------------------------------------------------- */

static VE vk(E *e, int64_t v) { return (VE){true, v, v, v, ir_fmt(e->c->A, "%lld", (long long)v)}; }

static VE vaff(E *e, const Aff *a) {
  if (ir_aff_const(a)) return vk(e, a->c);
  int64_t lo, hi;
  ir_aff_range(e->k, a, &lo, &hi);
  if (lo == hi) return vk(e, lo);   /* a loop that takes one value, a lane that exists once: not here */
  return (VE){false, 0, lo, hi, aff_py(e, a)};
}

static bool veq(VE a, VE b) { return a.k == b.k && (a.k ? a.v == b.v : !strcmp(a.s, b.s)); }

static VE vmin(E *e, VE a, VE b) {
  if (a.hi <= b.lo) return a;
  if (b.hi <= a.lo) return b;
  if (a.k && b.k) return vk(e, a.v < b.v ? a.v : b.v);
  if (a.k) { VE t = a; a = b; b = t; }
  return (VE){false, 0, a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi, ir_fmt(e->c->A, "pl.min(%s, %s)", a.s, b.s)};
}

static VE vmax(E *e, VE a, VE b) {
  if (a.lo >= b.hi) return a;
  if (b.lo >= a.hi) return b;
  if (a.k && b.k) return vk(e, a.v > b.v ? a.v : b.v);
  if (a.k) { VE t = a; a = b; b = t; }        /* pl.max takes a scalar first */
  return (VE){false, 0, a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, ir_fmt(e->c->A, "pl.max(%s, %s)", a.s, b.s)};
}

static VE vadd(E *e, VE a, VE b, int sign) {
  if (a.k && b.k) return vk(e, a.v + sign * b.v);
  if (b.k && b.v == 0) return a;
  VE r = {false, 0, sign > 0 ? a.lo + b.lo : a.lo - b.hi, sign > 0 ? a.hi + b.hi : a.hi - b.lo, NULL};
  if (r.lo == r.hi) return vk(e, r.lo);
  r.s = ir_fmt(e->c->A, "(%s %c %s)", a.s, sign > 0 ? '+' : '-', b.s);
  return r;
}

static VE vmul(E *e, VE a, int64_t m) {
  if (a.k) return vk(e, a.v * m);
  if (m == 1) return a;
  return (VE){false, 0, m >= 0 ? a.lo * m : a.hi * m, m >= 0 ? a.hi * m : a.lo * m, ir_fmt(e->c->A, "(%s * %lld)", a.s, (long long)m)};
}

static VE vclamp(E *e, VE x, int64_t lo, int64_t hi) { return vmin(e, vmax(e, x, vk(e, lo)), vk(e, hi)); }

/* ---- operands --------------------------------------------------------------------------- */

static Var *tile_arg(const Call *c, int i) {
  const Arg *a = ir_pos((Call *)c, i);
  if (!a || a->k != A_VAR || a->var->kind != VK_TILE) die("emit_pypto: %s: operand %d is not a tile", ir_ops[c->op].name, i);
  return a->var;
}

static const char *tn(E *e, const Var *v) { return e->py[v->id]; }
static VE *tv(E *e, const Var *v) { return e->val[v->id]; }

static const char *idx2_py(E *e, const Arg *a) {
  return ir_fmt(e->c->A, "[%s, %s]", aff_py(e, &a->ix[0]), aff_py(e, &a->ix[1]));
}

/* The statement that gives dst the value expr, whose valid shape is gv in the
 * golden run and pv by PyPTO's deduction: set_validshape where they differ. */
static void assign(E *e, const Stmt *s, Var *dst, const char *expr, const VE gv[2], const VE pv[2]) {
  if (gv && (!veq(gv[0], pv[0]) || !veq(gv[1], pv[1])))
    expr = ir_fmt(e->c->A, "pl.set_validshape(%s, %s, %s)", expr, gv[0].s, gv[1].s);
  int id = dst->id;
  const char *name;
  if (e->pin[id]) {
    name = e->base[id];
    if (dst->kind == VK_TILE) {
      if (!e->seen[id]) e->seen[id] = 1;
      else if (!veq(e->val[id][0], gv[0]) || !veq(e->val[id][1], gv[1]))
        refuse(e, s->loc, E_PYPTO_CARRIED_VALID,
               "'%s' is carried around a loop (or out of an if) with valid shape [%s, %s] here and [%s, %s] "
               "before: a PyPTO tile's valid shape is part of its type, which a loop-carried value keeps",
               dst->name, gv[0].s, gv[1].s, e->val[id][0].s, e->val[id][1].s);
    }
  } else {
    name = fresh(e, e->base[id], &e->ver[id]);
  }
  line(e, "%s = %s", name, expr);
  e->py[id] = name;
  if (gv) e->val[id][0] = gv[0], e->val[id][1] = gv[1];
}

/* ---- the pre-pass: pinned names and trans_b twins --------------------------------------------- */

typedef struct {
  int nopen;                                    /* blocks opened so far */
  int stack[IR_MAX_BLOCKS + 2], depth;          /* the open blocks' numbers */
} Scan;

static void scan_assign(E *e, Scan *sc, const Var *v) {
  int id = v->id;
  if (e->defseq[id] < 0) e->defseq[id] = sc->nopen;
  else if (sc->depth && sc->stack[sc->depth - 1] >= e->defseq[id]) e->pin[id] = 1;   /* a block opened since its definition */
}

static void scan(E *e, Scan *sc, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_OP) {
      if (s->rhs.k == A_CALL) {
        const Call *c = s->rhs.call;
        int tb = -1;                            /* the argument read transposed */
        if (ir_ops[c->op].kind == K_MATMUL) {
          Arg *t = ir_kwarg((Call *)c, KW_TRANS_B);
          if (t && t->k == A_NUM && t->num == 1) {
            tb = IR_ACC_MATMUL(c->op) + 1;
            e->twin[tile_arg(c, tb)->id] = 1;
          }
        }
        for (int j = 0; j < c->nargs; j++)
          if (j != tb && c->args[j].k == A_VAR) e->plain[c->args[j].var->id] = 1;
      } else if (s->rhs.k == A_VAR) {
        e->plain[s->rhs.var->id] = 1;
      }
      if (s->dst) {
        const Call *c = s->rhs.k == A_CALL ? s->rhs.call : NULL;
        Arg *sp = c && c->op == OP_load ? ir_kwarg((Call *)c, KW_SPACE) : NULL;
        if (!(sp && sp->e == SP_MAT)) e->notload[s->dst->id] = 1;
        scan_assign(e, sc, s->dst);
      }
      continue;
    }
    if (sc->depth >= IR_MAX_BLOCKS + 2) die("emit_pypto: blocks nested too deep");
    sc->stack[sc->depth++] = sc->nopen++;
    scan(e, sc, &s->body);
    if (s->other.n) {
      sc->stack[sc->depth - 1] = sc->nopen++;
      scan(e, sc, &s->other);
    }
    sc->depth--;
  }
}

/* A tile of extent 1 on the split axis that crosses between cube and vector
 * (an operand on the other side of its statement): SplitVectorKernel halves
 * the transfer and refuses the extent 1 (ptoc refuses it too, E-SPLIT-WHOLE). */
static void cross_whole(E *e, const Body *b, int ax) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    cross_whole(e, &s->body, ax);
    cross_whole(e, &s->other, ax);
    if (s->k != S_OP || s->rhs.k != A_CALL) continue;
    const Call *c = s->rhs.call;
    Space rs = s->dst && s->dst->kind == VK_TILE ? s->dst->sp : c->op == OP_store ? SP_NONE : SP_VEC;
    if (rs == SP_NONE) continue;
    for (int j = 0; j < c->nargs; j++) {
      const Var *v = c->args[j].k == A_VAR ? c->args[j].var : NULL;
      if (!v || v->kind != VK_TILE || (v->sp == SP_VEC) == (rs == SP_VEC) || (ax ? v->C : v->R) != 1) continue;
      ir_error(e->c, c->loc, E_PYPTO_SPLIT_ODD, "no PyPTO spelling: '%s' ([%d, %d]) crosses between cube and vector "
               "whole (extent 1 on the split axis): PyPTO's SplitVectorKernel halves the transfer, and only even "
               "extents", v->name, v->R, v->C);
    }
  }
}

/* ---- statements -------------------------------------------------------------------------- */

static void body(E *e, const Body *b);

/* The split axes the aiv_shard / aic_gather calls of a region name: bit 0 up_down, 1 left_right, 2 none. */
static unsigned region_axes(const Body *b) {
  unsigned m = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    m |= region_axes(&s->body) | region_axes(&s->other);
    if (s->k != S_OP || s->rhs.k != A_CALL) continue;
    const Call *c = s->rhs.call;
    if (c->op != OP_aiv_shard && c->op != OP_aic_gather) continue;
    const Arg *md = ir_pos((Call *)c, 1);
    m |= md->e == MODE_NONE ? 4u : MODE_AXIS((Mode)md->e) ? 2u : 1u;
  }
  return m;
}

static const char *cond_py(E *e, const Stmt *s) {
  static const char *const rel[] = {"<", "<=", ">", ">=", "==", "!="};
  return ir_fmt(e->c->A, "%s %s %s", aff_py(e, &s->cond[0]), rel[s->rel], aff_py(e, &s->cond[1]));
}

/* matmul's right operand as PyPTO's tile matmul takes it ([K, N]). */
static const char *rhs_py(E *e, const Stmt *s, Var *b, bool trans, VE bv[2]) {
  if (!trans) {
    bv[0] = tv(e, b)[0], bv[1] = tv(e, b)[1];
    return tn(e, b);
  }
  bv[0] = tv(e, b)[1], bv[1] = tv(e, b)[0];
  if (e->tw[b->id]) return e->tw[b->id];      /* the transposed twin loaded beside it */
  /* no load to transpose: the vector transpose, valid mirrored */
  const char *t = ir_fmt(e->c->A, "pl.transpose(%s, 0, 1)", tn(e, b));
  VE pv[2] = {vk(e, b->C), vk(e, b->R)};
  if (!veq(pv[0], bv[0]) || !veq(pv[1], bv[1])) t = ir_fmt(e->c->A, "pl.set_validshape(%s, %s, %s)", t, bv[0].s, bv[1].s);
  (void)s;
  const char *nm = mangle(e, ir_fmt(e->c->A, "%s_T%d", b->name, ++e->ntmp));
  line(e, "%s = %s", nm, t);
  return nm;
}

static void op(E *e, const Stmt *s) {
  Comp *cp = e->c;
  Arena *A = cp->A;
  if (s->rhs.k == A_VAR) {                      /* a copy */
    Var *x = s->rhs.var;
    VE g[2] = {tv(e, x)[0], tv(e, x)[1]};
    assign(e, s, s->dst, tn(e, x), g, g);
    return;
  }
  const Call *c = s->rhs.call;
  Var *d = s->dst;
  const char *nm = ir_ops[c->op].name;
  VE gv[2], pv[2];
  switch (ir_ops[c->op].kind) {
  case K_LOAD: {
    Var *T = ir_pos((Call *)c, 0)->var;
    Arg *o = ir_pos((Call *)c, 1), *sh = ir_pos((Call *)c, 2), *v = ir_kwarg((Call *)c, KW_VALID), *sp = ir_kwarg((Call *)c, KW_SPACE);
    int R = sh->ix[0].c, C = sh->ix[1].c;
    Space space = sp ? (Space)sp->e : SP_VEC;
    gv[0] = v ? vaff(e, &v->ix[0]) : vk(e, R);
    gv[1] = v ? vaff(e, &v->ix[1]) : vk(e, C);
    const char *vs = gv[0].k && gv[0].v == R && gv[1].k && gv[1].v == C ? ""
                     : ir_fmt(A, ", %s=[%s, %s]", valid_kw(e), gv[0].s, gv[1].s);
    const char *args = ir_fmt(A, "%s, %s, [%d, %d]%s, target_memory=%s", e->py[T->id], idx2_py(e, o), R, C, vs, mem_py(space));
    if (e->twin[d->id] && !e->notload[d->id]) {  /* a trans_b operand: its [C, R] twin, loaded transposed */
      /* where pl.load has no transpose= (e2d0f78ae), the twin is the zero-copy
       * pl.tile.transpose_view of the plain load, which PyPTO's docs name its successor */
      bool view = e->o->caps & PY_CAP_LOAD_NO_TRANSPOSE;
      if (!e->plain[d->id]) {                   /* read only transposed: only the twin is loaded (its
                                                 * valid tracked untransposed, as the kernel's value) */
        if (view) {
          const char *ld = mangle(e, ir_fmt(A, "%s_L%d", d->name, ++e->ntmp));
          line(e, "%s = pl.load(%s)", ld, args);
          assign(e, s, d, ir_fmt(A, "pl.tile.transpose_view(%s)", ld), gv, gv);
        } else
          assign(e, s, d, ir_fmt(A, "pl.load(%s, transpose=True)", args), gv, gv);
        e->tw[d->id] = e->py[d->id];
        return;
      }
      if (!e->tw[d->id] || !e->pin[d->id])
        e->tw[d->id] = mangle(e, e->pin[d->id] ? ir_fmt(A, "%s_T", d->name) : ir_fmt(A, "%s_T%d", d->name, ++e->ntmp));
      assign(e, s, d, ir_fmt(A, "pl.load(%s)", args), gv, gv);
      if (view) line(e, "%s = pl.tile.transpose_view(%s)", e->tw[d->id], e->py[d->id]);
      else line(e, "%s = pl.load(%s, transpose=True)", e->tw[d->id], args);
      return;
    }
    assign(e, s, d, ir_fmt(A, "pl.load(%s)", args), gv, gv);
    return;
  }
  case K_STORE: {
    Var *T = ir_pos((Call *)c, 0)->var;
    Var *t = tile_arg(c, 2);
    const char *st = ir_fmt(A, "%s = pl.store(%s, %s, %s)", e->py[T->id], tn(e, t), idx2_py(e, ir_pos((Call *)c, 1)), e->py[T->id]);
    if (ir_kwarg((Call *)c, KW_LANE) && e->lane) {   /* lane=0: lane 0 only */
      line(e, "if %s == 0:", e->py[e->lane->id]);
      e->ind++;
      line(e, "%s", st);
      e->ind--;
    } else {
      line(e, "%s", st);
    }
    return;
  }
  case K_SLICE: {
    Var *t = tile_arg(c, 0);
    Arg *o = ir_pos((Call *)c, 1), *sh = ir_pos((Call *)c, 2), *v = ir_kwarg((Call *)c, KW_VALID);
    int ext[2] = {sh->ix[0].c, sh->ix[1].c};
    for (int i = 0; i < 2; i++) {
      gv[i] = vmin(e, vk(e, ext[i]), vclamp(e, vadd(e, tv(e, t)[i], vaff(e, &o->ix[i]), -1), 0, ext[i]));
      if (v) gv[i] = vmin(e, gv[i], vclamp(e, vaff(e, &v->ix[i]), 0, ext[i]));
    }
    const char *vs = gv[0].k && gv[0].v == ext[0] && gv[1].k && gv[1].v == ext[1] ? ""
                     : ir_fmt(A, ", valid_shape=[%s, %s]", gv[0].s, gv[1].s);
    assign(e, s, d, ir_fmt(A, "pl.slice(%s, [%d, %d], %s%s)", tn(e, t), ext[0], ext[1], idx2_py(e, o), vs), gv, gv);
    return;
  }
  case K_ASSEMBLE: {
    Var *dt = tile_arg(c, 0), *src = tile_arg(c, 1);
    Arg *o = ir_pos((Call *)c, 2);
    for (int i = 0; i < 2; i++) gv[i] = vmax(e, tv(e, dt)[i], vadd(e, vaff(e, &o->ix[i]), tv(e, src)[i], 1));
    pv[0] = vk(e, dt->R), pv[1] = vk(e, dt->C);
    assign(e, s, d, ir_fmt(A, "pl.tile.assemble(%s, %s, %s)", tn(e, dt), tn(e, src), idx2_py(e, o)), gv, pv);
    return;
  }
  case K_SETVALID: {
    Var *t = tile_arg(c, 0);
    gv[0] = vaff(e, &ir_pos((Call *)c, 1)->ix[0]);
    gv[1] = vaff(e, &ir_pos((Call *)c, 2)->ix[0]);
    assign(e, s, d, ir_fmt(A, "pl.set_validshape(%s, %s, %s)", tn(e, t), gv[0].s, gv[1].s), gv, gv);
    return;
  }
  case K_FULL: {
    Arg *sh = ir_pos((Call *)c, 0), *v = ir_kwarg((Call *)c, KW_VALID);
    int R = sh->ix[0].c, C = sh->ix[1].c;
    Dtype dt = (Dtype)ir_pos((Call *)c, 2)->e;
    pv[0] = vk(e, R), pv[1] = vk(e, C);
    gv[0] = v ? vclamp(e, vaff(e, &v->ix[0]), 0, R) : pv[0];
    gv[1] = v ? vclamp(e, vaff(e, &v->ix[1]), 0, C) : pv[1];
    assign(e, s, d, ir_fmt(A, "pl.tile.full([%d, %d], dtype=%s, value=%s)", R, C, dt_py(dt), num_py(e, ir_pos((Call *)c, 1)->num, dt)),
           gv, pv);
    return;
  }
  case K_TRANS: {
    Var *t = tile_arg(c, 0);
    gv[0] = tv(e, t)[1], gv[1] = tv(e, t)[0];
    pv[0] = vk(e, t->C), pv[1] = vk(e, t->R);
    assign(e, s, d, ir_fmt(A, "pl.transpose(%s, 0, 1)", tn(e, t)), gv, pv);
    return;
  }
  case K_RESHAPE: {
    Var *t = tile_arg(c, 0);
    Arg *sh = ir_pos((Call *)c, 1);
    int R = sh->ix[0].c, C = sh->ix[1].c;
    bool empty = (tv(e, t)[0].k && !tv(e, t)[0].v) || (tv(e, t)[1].k && !tv(e, t)[1].v);
    pv[0] = vk(e, R), pv[1] = vk(e, C);
    gv[0] = empty ? vk(e, 0) : pv[0], gv[1] = empty ? vk(e, 0) : pv[1];
    assign(e, s, d, ir_fmt(A, "pl.reshape(%s, [%d, %d])", tn(e, t), R, C), gv, pv);
    return;
  }
  case K_BIN: {
    static const char *const f[] = {"pl.add", "pl.sub", "pl.mul", "pl.div", "pl.maximum", "pl.minimum"};
    Var *a = tile_arg(c, 0), *b = tile_arg(c, 1);
    for (int i = 0; i < 2; i++) pv[i] = tv(e, a)[i], gv[i] = vmin(e, tv(e, a)[i], tv(e, b)[i]);
    assign(e, s, d, ir_fmt(A, "%s(%s, %s)", f[c->op - OP_add], tn(e, a), tn(e, b)), gv, pv);
    return;
  }
  case K_BINS: {
    static const char *const f[] = {"pl.tile.adds", "pl.tile.subs", "pl.tile.muls", "pl.tile.divs", "pl.tile.maximums",
                                    "pl.tile.minimums"};
    Var *a = tile_arg(c, 0);
    gv[0] = tv(e, a)[0], gv[1] = tv(e, a)[1];
    assign(e, s, d, ir_fmt(A, "%s(%s, %s)", f[c->op - OP_adds], tn(e, a), num_py(e, ir_pos((Call *)c, 1)->num, a->dt)), gv, gv);
    return;
  }
  case K_UN: {
    static const char *const f[] = {"pl.exp", "pl.neg", "pl.abs", "pl.relu", "pl.sqrt", "pl.recip"};
    Var *a = tile_arg(c, 0);
    gv[0] = tv(e, a)[0], gv[1] = tv(e, a)[1];
    assign(e, s, d, ir_fmt(A, "%s(%s)", f[c->op - OP_exp], tn(e, a)), gv, gv);
    return;
  }
  case K_CAST: {
    Var *a = tile_arg(c, 0);
    Dtype to = (Dtype)ir_pos((Call *)c, 1)->e;
    gv[0] = tv(e, a)[0], gv[1] = tv(e, a)[1];
    if (to == a->dt) {                          /* a same-dtype cast is a copy; PyPTO's tile.cast refuses it */
      assign(e, s, d, tn(e, a), gv, gv);
      return;
    }
    /* RNE to a float (language.md 9.4); toward zero to an integer; integers narrow by wrapping either way */
    const char *mode = !ir_dtype_int(a->dt) && ir_dtype_int(to) ? "trunc" : "rint";
    assign(e, s, d, ir_fmt(A, "pl.cast(%s, target_type=%s, mode=\"%s\")", tn(e, a), dt_py(to), mode), gv, gv);
    return;
  }
  case K_RRED:
  case K_CRED: {
    Var *a = tile_arg(c, 0);
    bool row = ir_ops[c->op].kind == K_RRED;
    if (row && e->o->split == MODE_LR && a->C > 1 && e->cube)
      refuse(e, c->loc, E_PYPTO_SPLIT_REDUCE, "%s under pl.split(LEFT_RIGHT) reduces on the split axis, which PyPTO's "
             "SplitVectorKernel refuses (IsReduceOnSplitAxis: partial reduction in a split kernel)", nm);
    VE av[2] = {tv(e, a)[0], tv(e, a)[1]};
    /* golden: [vr, 1] ([1, vc]), or [0, 0] when the reduced extent is 0; PyPTO: [vr, 1] ([1, vc]) */
    if (row) {
      pv[0] = av[0], pv[1] = vk(e, 1);
      gv[1] = vmin(e, av[1], vk(e, 1));
      gv[0] = vmin(e, av[0], vmul(e, av[1], a->R));
    } else {
      pv[0] = vk(e, 1), pv[1] = av[1];
      gv[0] = vmin(e, av[0], vk(e, 1));
      gv[1] = vmin(e, av[1], vmul(e, av[0], a->C));
    }
    Arg *v = ir_kwarg((Call *)c, KW_VALID);
    if (v) gv[0] = vaff(e, &v->ix[0]), gv[1] = vaff(e, &v->ix[1]);
    const char *x;
    if (row)                                    /* the tile form takes a scratch tile of the operand's shape */
      x = ir_fmt(A, "pl.%s(%s, pl.create_tile([%d, %d], dtype=%s, target_memory=pl.Mem.Vec))", nm, tn(e, a), a->R, a->C,
                 dt_py(a->dt));
    else                                        /* without one col_sum folds sequentially, as the golden run does */
      x = ir_fmt(A, "pl.%s(%s)", nm, tn(e, a));
    assign(e, s, d, x, gv, pv);
    return;
  }
  case K_REXP:
  case K_CEXP: {
    Var *a = tile_arg(c, 0), *v = tile_arg(c, 1);
    gv[0] = tv(e, a)[0], gv[1] = tv(e, a)[1];
    const char *x;
    /* row_expand_max/min have no DSL op on b25b25a4a, col_expand_sub/div no codegen before
     * 64e2c3d3f (#1903, after 6b426ae45): broadcast with row_expand/col_expand, then the
     * element-wise op, the same value bit for bit (one operation per element) */
    static const struct { Op op; const char *f, *bc; } comp[] = {
        {OP_row_expand_max, "pl.maximum", "pl.row_expand"}, {OP_row_expand_min, "pl.minimum", "pl.row_expand"},
        {OP_col_expand_sub, "pl.sub", "pl.col_expand"},     {OP_col_expand_div, "pl.div", "pl.col_expand"}};
    int ci = -1;
    for (int j = 0; j < 4; j++)
      if (comp[j].op == c->op) ci = j;
    if (ci >= 0)
      x = ir_fmt(A, "%s(%s, %s(%s, %s))", comp[ci].f, tn(e, a), comp[ci].bc, tn(e, a), tn(e, v));
    else
      x = ir_fmt(A, "pl.%s(%s, %s)", nm, tn(e, a), tn(e, v));
    assign(e, s, d, x, gv, gv);
    return;
  }
  case K_MATMUL: {
    bool acc = IR_ACC_MATMUL(c->op);
    Var *a = tile_arg(c, acc), *b = tile_arg(c, acc + 1);
    Arg *tb = ir_kwarg((Call *)c, KW_TRANS_B);
    VE bv[2];
    const char *bs = rhs_py(e, s, b, tb && tb->num == 1, bv);
    gv[0] = tv(e, a)[0], gv[1] = bv[1];
    pv[0] = vk(e, d->R), pv[1] = vk(e, d->C);
    const char *x;
    if (acc) {
      Var *cc = tile_arg(c, 0);
      gv[0] = vmin(e, gv[0], tv(e, cc)[0]), gv[1] = vmin(e, gv[1], tv(e, cc)[1]);
      x = ir_fmt(A, "pl.matmul_acc(%s, %s, %s)", tn(e, cc), tn(e, a), bs);
    } else {
      x = ir_fmt(A, "pl.matmul(%s, %s)", tn(e, a), bs);
    }
    assign(e, s, d, x, gv, pv);
    return;
  }
  case K_MOVE: {
    Var *t = tile_arg(c, 0);
    gv[0] = tv(e, t)[0], gv[1] = tv(e, t)[1];
    assign(e, s, d, ir_fmt(A, "pl.move(%s, target_memory=%s)", tn(e, t), mem_py((Space)ir_pos((Call *)c, 1)->e)), gv, gv);
    return;
  }
  case K_ISCALAR: {
    const Arg *x = ir_pos((Call *)c, 0), *y = ir_pos((Call *)c, 1);
    VE a = vaff(e, &x->ix[0]), b = vaff(e, &y->ix[0]);
    const char *r;
    if (c->op == OP_imin) {
      r = ir_fmt(A, "pl.min(%s, %s)", a.s, b.s);
    } else {                                    /* pl.max takes a scalar first; of two constants, min(m, m) */
      if (a.k && !b.k) { VE t = a; a = b; b = t; }
      r = a.k ? ir_fmt(A, "pl.min(%lld, %lld)", (long long)(a.v > b.v ? a.v : b.v), (long long)(a.v > b.v ? a.v : b.v))
              : ir_fmt(A, "pl.max(%s, %s)", a.s, b.s);
      if (c->op == OP_clamp) r = ir_fmt(A, "pl.min(%s, %s)", r, vaff(e, &ir_pos((Call *)c, 2)->ix[0]).s);
    }
    assign(e, s, d, r, NULL, NULL);
    return;
  }
  case K_LANEIDX:
    assign(e, s, d, "pl.tile.get_subblock_idx()", NULL, NULL);
    return;
  case K_SHARD: {
    Var *t = tile_arg(c, 0);
    if (ir_pos((Call *)c, 1)->e == MODE_NONE) {   /* the whole tile: a move to vec (language.md 10.2) */
      gv[0] = tv(e, t)[0], gv[1] = tv(e, t)[1];
      assign(e, s, d, ir_fmt(A, "pl.move(%s, target_memory=%s)", tn(e, t), mem_py(SP_VEC)), gv, gv);
      return;
    }
    int ax = MODE_AXIS(e->lmode), E0 = ax ? t->C : t->R;
    if (ir_kwarg((Call *)c, KW_STRIDE))
      refuse(e, c->loc, E_PYPTO_SHARD_STRIDE, "aiv_shard with stride=: pl.aiv_shard halves the tile (its split "
             "axis extent / 2, tile_ops/cross_core.cpp DeduceSplitReshape), it takes no stride");
    if (E0 % 2)
      refuse(e, c->loc, E_PYPTO_SPLIT_ODD, "aiv_shard of '%s', %d on the split axis: pl.aiv_shard halves only even "
             "extents (DeduceSplitReshape: 'must be even to shard in half')", t->name, E0);
    /* lane l holds [l*S, l*S+S) with clamp(V - l*S, 0, S) valid (language.md 10.2); PyPTO's
     * type carries ceil(V/2) and localises per lane when it lowers, so no set_validshape */
    int S = E0 / 2;
    gv[!ax] = tv(e, t)[!ax];
    gv[ax] = vclamp(e, vadd(e, tv(e, t)[ax], vmul(e, vaff(e, &(Aff){.n = 1, .v = {e->lane->id}, .k = {1}}), S), -1), 0, S);
    assign(e, s, d, ir_fmt(A, "pl.aiv_shard(%s)", tn(e, t)), gv, gv);
    return;
  }
  case K_JOIN: {
    Var *h = tile_arg(c, 0);
    if (c->ty.vr < 0 || c->ty.vc < 0)
      refuse(e, c->loc, E_PYPTO_JOIN_VALID, "aic_gather of '%s': the joined valid shape is known only at run time "
             "(the lanes' extents differ), and PyPTO's aic_gather types it as twice one lane's", h->name);
    gv[0] = vk(e, c->ty.vr), gv[1] = vk(e, c->ty.vc);
    assign(e, s, d, ir_fmt(A, "pl.aic_gather(%s)", tn(e, h)), gv, gv);
    return;
  }
  case K_GATHER: {
    if (!(e->o->caps & PY_CAP_PAGED_GATHER))
      refuse(e, c->loc, E_PYPTO_GATHER, "paged_gather: this PyPTO build has no pl.paged_gather (it came with 8f8de9b9c)");
    Var *src = ir_pos((Call *)c, 0)->var, *ix = ir_pos((Call *)c, 1)->var, *tb = ir_pos((Call *)c, 2)->var;
    if (ir_kwarg((Call *)c, KW_WINDOW))
      refuse(e, c->loc, E_PYPTO_GATHER_WINDOW, "paged_gather with window=: pl.paged_gather gathers every index of "
             "its index tensor (its row count is the tensor's length, op_conversion_registry.cpp)");
    Arg *co = ir_kwarg((Call *)c, KW_COL_OFF);
    if (co && co->k == A_IEXPR && !ir_aff_const(&co->ix[0]))
      refuse(e, c->loc, E_PYPTO_GATHER_COLOFF, "paged_gather with a run-time col_off: pl.paged_gather's col_off "
             "is a compile-time int attribute");
    if (src->dt != DT_F32 && src->dt != DT_F16 && src->dt != DT_BF16 && src->dt != DT_I8)
      refuse(e, c->loc, E_PYPTO_GATHER_DTYPE, "paged_gather of %s: pl.paged_gather takes FP16, BF16, FP32 or INT8 "
             "(tensor_ops/paged_gather.cpp)", ir_dtype_name(src->dt));
    int B = (int)ir_kwarg((Call *)c, KW_BLOCK_SIZE)->num, S = (int)ir_kwarg((Call *)c, KW_SIZE)->num;
    int N = (int)ir_kwarg((Call *)c, KW_MAX_INDICES)->num;
    int K = !co ? 0 : co->k == A_IEXPR ? co->ix[0].c : (int)co->num;
    Arg *sp = ir_kwarg((Call *)c, KW_SPACE);
    Space space = sp ? (Space)sp->e : SP_VEC;
    /* pl.paged_gather is a tensor-level op (its result a Tensor no tile op takes): gather
     * into UB, write the [N, S] buffer to a scratch GM tensor, and load its valid rows
     * back into UB (the vector side wrote them: no GM round trip between the cores),
     * then, for a mat gather, move them to L1 */
    const char *scr = mangle(e, ir_fmt(A, "%s_gm", d->name));
    const char *pg = mangle(e, ir_fmt(A, "%s_pg", d->name));
    fprintf(e->pre, "        %s = pl.create_tensor([%d, %d], dtype=%s)\n", scr, N, S, dt_py(src->dt));
    line(e, "%s = pl.paged_gather(%s, %s, %s, block_size=%d, size=%d, max_indices=%d, space=pl.Mem.Vec, col_off=%d)", pg,
         e->py[src->id], e->py[ix->id], e->py[tb->id], B, S, N, K);
    line(e, "%s = pl.assemble(%s, %s, [0, 0])", scr, scr, pg);
    gv[0] = vk(e, ix->dim[1]), gv[1] = vk(e, S);
    const char *vs = ix->dim[1] == N ? "" : ir_fmt(A, ", %s=[%d, %d]", valid_kw(e), ix->dim[1], S);
    const char *ld = ir_fmt(A, "pl.load(%s, [0, 0], [%d, %d]%s, target_memory=pl.Mem.Vec)", scr, N, S, vs);
    if (space != SP_VEC) ld = ir_fmt(A, "pl.move(%s, target_memory=%s)", ld, mem_py(space));
    assign(e, s, d, ld, gv, gv);
    return;
  }
  default:
    die("emit_pypto: %s after flatten", nm);
  }
}

static void block(E *e, const Body *b) {
  e->ind++;
  if (!b->n) line(e, "pass");
  body(e, b);
  e->ind--;
}

static void body(E *e, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    switch (s->k) {
    case S_OP: op(e, s); break;
    case S_FOR: {
      const Var *v = s->iv;
      line(e, "for %s in pl.range(%d, %d, %d):", e->py[v->id], v->lo, v->hi, v->step);
      block(e, &s->body);
      break;
    }
    case S_COND:
      line(e, "if %s:", cond_py(e, s));
      block(e, &s->body);
      if (s->other.n) {
        line(e, "else:");
        block(e, &s->other);
      }
      break;
    case S_SPLIT: {
      if (!(e->o->caps & PY_CAP_SPLIT_AIV))
        refuse(e, s->loc, E_PYPTO_SPLIT_AIV, "split_aiv: this PyPTO build has no pl.split_aiv (it came with 6b426ae45)");
      if (e->ind)
        refuse(e, s->loc, E_PYPTO_SPLIT_NESTED, "split_aiv inside a loop: pl.split_aiv must appear directly inside "
               "the pl.at scope (PyPTO's builder refuses it nested, src/ir/builder.cpp at 6b426ae45)");
      unsigned axes = region_axes(&s->body);
      if (axes == 1u << 2)
        refuse(e, s->loc, E_PYPTO_SPLIT_MODE, "aiv_shard(t, none) in split_aiv: pl.aiv_shard always halves");
      if (axes != 1u && axes != 2u)
        refuse(e, s->loc, E_PYPTO_SPLIT_MODE, "split_aiv region with %s: pl.split_aiv takes one mode, UP_DOWN or "
               "LEFT_RIGHT (dsl_api.py split_aiv), and its aiv_shard/aic_gather inherit it",
               axes ? "aiv_shard/aic_gather on both axes" : "no aiv_shard or aic_gather (a task-parallel region)");
      e->lane = s->iv;
      e->lmode = axes == 1u ? MODE_UD : MODE_LR;
      line(e, "for %s in pl.split_aiv(2, mode=%s):", e->py[s->iv->id], mode_py(e->lmode));
      block(e, &s->body);
      e->lane = NULL;
      break;
    }
    default: die("emit_pypto: statement kind %d in a front-end kernel", (int)s->k);
    }
  }
}

/* ---- the program -------------------------------------------------------------------------------- */

static const char *tensor_type(E *e, const Var *v) {
  const char *t = v->rank == 1 ? ir_fmt(e->c->A, "pl.Tensor[[%d], %s]", v->dim[1], dt_py(v->dt))
                               : ir_fmt(e->c->A, "pl.Tensor[[%d, %d], %s]", v->dim[0], v->dim[1], dt_py(v->dt));
  return v->dir == DIR_OUT ? ir_fmt(e->c->A, "pl.Out[%s]", t) : v->dir == DIR_INOUT ? ir_fmt(e->c->A, "pl.InOut[%s]", t) : t;
}

static const char *emit(E *e) {
  Comp *c = e->c;
  const Kernel *k = e->k;
  const PyOpts *o = e->o;
  int n = k->nvars;
  e->base = ir_alloc(c->A, n * sizeof *e->base);
  e->py = ir_alloc(c->A, n * sizeof *e->py);
  e->tw = ir_alloc(c->A, n * sizeof *e->tw);
  e->val = ir_alloc(c->A, n * sizeof *e->val);
  e->pin = ir_alloc(c->A, n);
  e->seen = ir_alloc(c->A, n);
  e->twin = ir_alloc(c->A, n);
  e->notload = ir_alloc(c->A, n);
  e->plain = ir_alloc(c->A, n);
  e->ver = ir_alloc(c->A, n * sizeof *e->ver);
  e->defseq = ir_alloc(c->A, n * sizeof *e->defseq);
  for (int i = 0; i < n; i++) e->defseq[i] = -1;
  if (k->explicit_split && o->split != MODE_NONE)
    ir_error(c, k->loc, E_PYPTO_EXPLICIT, "no PyPTO spelling: kernel '%s' is written with split_aiv; translated for %s, "
             "its regions would also be split by pl.split (only its own split applies)", k->name, ir_mode_name((Mode)o->split));
  e->cube = ir_has_cube(&k->body);
  if (o->split != MODE_NONE && e->cube) {
    /* PyPTO's SplitVectorKernel halves every vector tile of a mixed kernel on the
     * split axis and refuses an odd extent (split_vector_kernel_pass.cpp,
     * ComputeHalfDimSize: pad the box and set_validshape, it says), and a row
     * reduction on the split axis (IsReduceOnSplitAxis) */
    int ax = MODE_AXIS((Mode)o->split);
    for (int i = 0; i < n; i++) {
      const Var *v = k->vars[i];
      int x = ax ? v->C : v->R;
      if (v->kind == VK_TILE && v->sp == SP_VEC && x > 1 && x % 2)
        ir_error(c, v->loc, E_PYPTO_SPLIT_ODD, "no PyPTO spelling: '%s' is a [%d, %d] vector tile, odd on the %s axis: "
                 "PyPTO's SplitVectorKernel halves only even extents", v->name, v->R, v->C, ax ? "column" : "row");
    }
    cross_whole(e, &k->body, ax);
  }
  Scan sc = {0};
  scan(e, &sc, &k->body);
  /* names: the class, the tensors (in order), then every other variable by id */
  const char *cls = mangle(e, k->name);
  for (int i = 0; i < n; i++) {
    Var *v = k->vars[i];
    if (v->kind != VK_TENSOR) continue;
    e->base[i] = e->py[i] = mangle(e, v->name);
  }
  for (int i = 0; i < n; i++) {
    Var *v = k->vars[i];
    if (v->kind == VK_TENSOR) continue;
    e->base[i] = e->py[i] = mangle(e, v->name);
    if (v->kind == VK_SCALAR) e->pin[i] = 1;  /* one name: a scalar's type never changes */
  }
  e->f = open_memstream(&e->fb, &e->fn);
  e->pre = open_memstream(&e->pb, &e->pn);
  if (!e->f || !e->pre) die("open_memstream failed");
  body(e, &k->body);
  if (!k->body.n) line(e, "pass");
  fclose(e->f);
  fclose(e->pre);
  e->f = e->pre = NULL;

  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) die("open_memstream failed");
  const char *be = o->target == TGT_A5 ? "Ascend950" : "Ascend910B";
  fprintf(f, "# PyPTO program translated by `ptoc --emit=pypto` from kernel '%s' (%s)\n", k->name, c->src.name ? c->src.name : "?");
  fprintf(f, "# variant: split %s, target %s (BackendType.%s); for a PyPTO build with:%s%s%s%s%s\n", ir_mode_name((Mode)o->split),
          ir_target_name(o->target), be, o->caps & PY_CAP_PAGED_GATHER ? " paged_gather" : "",
          o->caps & PY_CAP_SPLIT_AIV ? " split_aiv" : "", o->caps & PY_CAP_LOAD_VALID_SHAPE ? " load(valid_shape=)" : "", o->caps & PY_CAP_LOAD_NO_TRANSPOSE ? " transpose_view" : "",
          o->caps ? "" : " none beyond b25b25a4a's");
  fputs("# Compile (PTO-AS in OUTDIR/kernels, the IR after each pass in OUTDIR/passes_dump) and, given a\n"
        "# ptoas binary, assemble each kernel as PyPTO itself would:\n"
        "#   PYTHONPATH=<pypto>/python python3 THIS_FILE OUTDIR [PTOAS]\n", f);
  fputs("import pypto.language as pl\n\n\n@pl.program\n", f);
  fprintf(f, "class %s:\n    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self", cls);
  for (int i = 0; i < k->np; i++) fprintf(f, ", %s: %s", e->base[k->params[i]->id], tensor_type(e, k->params[i]));
  fputs("):\n", f);
  if (e->pn) fputs(e->pb, f);
  fputs("        with pl.at(level=pl.Level.CORE_GROUP", f);
  if (o->split != MODE_NONE) fprintf(f, ", optimizations=[pl.split(%s)]", mode_py((Mode)o->split));
  fprintf(f, ", name_hint=\"%s\"):\n", cls);
  fputs(e->fb, f);
  int nout = 0;
  for (int i = 0; i < k->np; i++) nout += k->params[i]->dir != DIR_IN;
  if (nout) {
    fputs("        return ", f);
    for (int i = 0, j = 0; i < k->np; i++)
      if (k->params[i]->dir != DIR_IN) fprintf(f, "%s%s", j++ ? ", " : "", e->base[k->params[i]->id]);
    fputc('\n', f);
  }
  fprintf(f, "\n\nif __name__ == \"__main__\":\n"
             "    import glob, os, subprocess, sys\n"
             "    import pypto\n"
             "    from pypto import ir\n"
             "    from pypto.backend import BackendType\n"
             "    pypto.set_log_level(pypto.LogLevel.ERROR)\n"
             "    outdir = sys.argv[1]\n"
             "    ir.compile(%s, output_dir=outdir, skip_ptoas=True, backend_type=BackendType.%s, dump_passes=True)\n"
             "    if len(sys.argv) > 2:  # the flags PyPTO's own backend passes to ptoas (pypto/backend/pto_backend.py)\n"
             "        failed = False\n"
             "        for pto in sorted(glob.glob(os.path.join(outdir, \"kernels\", \"**\", \"*.pto\"), recursive=True)):\n"
             "            r = subprocess.run([sys.argv[2], pto, \"-o\", pto[:-4] + \".cpp\", \"--enable-insert-sync\",\n"
             "                                \"--pto-level=level3\", \"--pto-arch\", \"%s\"], capture_output=True, text=True)\n"
             "            if r.returncode:\n"
             "                failed = True\n"
             "                print(pto + \": ptoas exit %%d\" %% r.returncode)\n"
             "                print(\"\\n\".join(l for l in r.stderr.splitlines() if \"error\" in l))\n"
             "        sys.exit(1 if failed else 0)\n",
          cls, be, o->target == TGT_A5 ? "a5" : "a3");
  fclose(f);
  char *r = ir_strndup(c->A, buf, len);
  free(buf);
  free(e->fb);
  free(e->pb);
  return r;
}

const char *ir_emit_pypto(Comp *c, const Kernel *front, const PyOpts *o) {
  jmp_buf jb, *saved = c->jb;
  c->jb = &jb;
  E e = {.c = c, .k = front, .o = o};
  const char *saved_pass = c->pass;
  c->pass = "emit_pypto";
  if (setjmp(jb)) {
    if (e.f) fclose(e.f);
    if (e.pre) fclose(e.pre);
    free(e.fb);
    free(e.pb);
    c->jb = saved;
    c->pass = saved_pass;
    return NULL;
  }
  const char *r = emit(&e);
  c->jb = saved;
  c->pass = saved_pass;
  return r;
}

/* ---- the capabilities of a PyPTO tree ------------------------------------------------------------- */

/* Does any .py file under dir (recursively) hold needle at the start of a line? */
static bool py_defines(const char *dir, const char *needle, int depth) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool found = false;
  struct dirent *de;
  while (!found && (de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    size_t n = strlen(dir) + strlen(de->d_name) + 2;
    char *p = malloc(n);
    if (!p) die("out of memory");
    snprintf(p, n, "%s/%s", dir, de->d_name);
    struct stat st;
    if (!stat(p, &st)) {
      if (S_ISDIR(st.st_mode) && depth < 8) found = py_defines(p, needle, depth + 1);
      else if (S_ISREG(st.st_mode) && strlen(de->d_name) > 3 && !strcmp(de->d_name + strlen(de->d_name) - 3, ".py")) {
        FILE *f = fopen(p, "r");
        char ln[4096];
        size_t nl = strlen(needle);
        while (f && !found && fgets(ln, sizeof ln, f)) found = !strncmp(ln, needle, nl);
        if (f) fclose(f);
      }
    }
    free(p);
  }
  closedir(d);
  return found;
}

/* Does the signature of def head in dir/file (up to its "-> ") hold a line starting with param? */
static bool py_def_has(const char *dir, const char *file, const char *head, const char *param) {
  size_t n = strlen(dir) + strlen(file) + 2;
  char *p = malloc(n);
  if (!p) die("out of memory");
  snprintf(p, n, "%s/%s", dir, file);
  FILE *f = fopen(p, "r");
  free(p);
  char ln[4096];
  bool in = false, found = false;
  while (f && !found && fgets(ln, sizeof ln, f)) {
    if (!in) in = !strncmp(ln, head, strlen(head));
    else if (strstr(ln, "-> ")) break;
    else found = !strncmp(ln, param, strlen(param));
  }
  if (f) fclose(f);
  return found;
}

bool ir_pypto_caps(const char *dir, unsigned *caps) {
  *caps = 0;
  if (!dir || !*dir) return false;
  size_t n = strlen(dir) + 40;
  char *lang = malloc(n);
  if (!lang) die("out of memory");
  snprintf(lang, n, "%s/python/pypto/language", dir);
  struct stat st;
  bool ok = !stat(lang, &st) && S_ISDIR(st.st_mode);
  if (ok) {
    if (py_defines(lang, "def paged_gather(", 0)) *caps |= PY_CAP_PAGED_GATHER;
    if (py_defines(lang, "def split_aiv(", 0)) *caps |= PY_CAP_SPLIT_AIV;
    /* pl.load's keyword was valid_shapes= until PyPTO 8a4294134 (#2233) renamed it valid_shape= */
    if (!py_defines(lang, "    valid_shapes: Sequence", 0)) *caps |= PY_CAP_LOAD_VALID_SHAPE;
    /* and its transpose= went after 6b426ae45 deprecated it for pl.tile.transpose_view */
    if (!py_def_has(lang, "op/tile_ops.py", "def load(", "    transpose: bool")) *caps |= PY_CAP_LOAD_NO_TRANSPOSE;
  }
  free(lang);
  return ok;
}
