/* ir.c — the op table instance, names of enums, and small IR helpers
 * (variables, bodies, affine ranges, argument lookup). */
#include "ptoc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const OpInfo ir_ops[OP_N] = {
#define OP(n, lo, hi, sd, k, kw, ix) {#n, lo, hi, sd, k, kw, ix},
#include "ops.def"
#undef OP
};

int ir_op_lookup(const char *s, size_t n) {
  for (int i = 0; i < OP_N; i++)
    if (n && ir_ops[i].name[0] == s[0] && !strncmp(ir_ops[i].name, s, n) && !ir_ops[i].name[n]) return i;
  return -1;
}

static const struct { const char *name, *pass; } bugs[BUG_N] = {
#define BUG(id, name, pass) {name, pass},
#include "defects.def"
#undef BUG
};
const char *ir_bug_name(int b) { return b >= 0 && b < BUG_N ? bugs[b].name : NULL; }
const char *ir_bug_pass(int b) { return b >= 0 && b < BUG_N ? bugs[b].pass : NULL; }

bool ir_bugs_parse(const char *list, uint32_t *out, char *err, size_t n) {
  *out = 0;
  if (!strcmp(list, "none")) return true;
  if (!strcmp(list, "all")) {                   /* every injected defect at once */
    *out = (1u << BUG_N) - 1;
    return true;
  }
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    int b = 0;
    while (b < BUG_N && (strlen(bugs[b].name) != len || strncmp(bugs[b].name, p, len))) b++;
    if (len && b == BUG_N) {
      snprintf(err, n, "unknown defect '%.*s' (known: see docs/defects.md)", (int)len, p);
      return false;
    }
    if (len) *out |= 1u << b;
    p += len + (p[len] == ',');
  }
  return true;
}

void ir_bugs_format(uint32_t set, char *buf, size_t n) {
  size_t at = 0;
  if (n) buf[0] = 0;
  for (int b = 0; b < BUG_N; b++)
    if (set >> b & 1u && at < n) at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", bugs[b].name);
}

static const char *const kwnames[KW_N] = {"", "valid", "space", "trans_b", "block_size",
                                          "size", "max_indices", "col_off", "lane", "window", "box", "part", "stride"};
const char *ir_kw_name(Kw k) { return k < KW_N ? kwnames[k] : "?"; }
static const char *const dtnames[DT_N] = {"f32", "f16", "i32", "bf16", "i8", "i16"};
const char *ir_dtype_name(Dtype d) { return (unsigned)d < DT_N ? dtnames[d] : "?"; }
const char *ir_space_name(Space s) {
  static const char *const n[SP_N] = {"none", "vec", "mat", "acc", "left", "right"};
  return s < SP_N ? n[s] : "?";
}
const char *ir_mode_name(Mode m) {
  static const char *const n[] = {"none", "up_down", "left_right", "up_down_odd", "left_right_odd"};
  return (unsigned)m < 5 ? n[m] : "?";
}
const char *ir_target_name(Target t) { return t == TGT_A5 ? "a5" : "a2a3"; }
int ir_dtype_bytes(Dtype d) { return d == DT_I8 ? 1 : d == DT_F16 || d == DT_BF16 || d == DT_I16 ? 2 : 4; }
int32_t ir_dtype_wrap(Dtype d, int64_t x) {
  return d == DT_I8 ? (int32_t)(int8_t)(uint8_t)x : d == DT_I16 ? (int32_t)(int16_t)(uint16_t)x : (int32_t)(uint32_t)x;
}
bool ir_dtype_fits(Dtype d, double x) {
  double hi = d == DT_I8 ? 127.0 : d == DT_I16 ? 32767.0 : 2147483647.0;
  return x == floor(x) && x <= hi && x >= -hi - 1.0;
}

Var *ir_var_new(Comp *c, Kernel *k, const char *name, VarKind kind, Loc loc) {
  Var *v = ir_alloc(c->A, sizeof *v);
  v->name = name;
  v->kind = kind;
  v->off = -1;
  v->loc = loc;
  if (k->nvars == k->capvars) {
    int cap = k->capvars ? 2 * k->capvars : 32;
    Var **nv = ir_alloc(c->A, (size_t)cap * sizeof *nv);
    if (k->nvars) memcpy(nv, k->vars, (size_t)k->nvars * sizeof *nv);
    k->vars = nv;
    k->capvars = cap;
  }
  v->id = k->nvars;
  k->vars[k->nvars++] = v;
  return v;
}

/* The names starting with '_' (only those can clash with a temporary), in an
 * open-addressing set filled lazily from Kernel.vars: `indexed` variables are
 * in. A copy of the kernel (ir_clone) shares the pointer, so the set names
 * its owner and a kernel that does not own it builds its own. */
struct NameIx {
  const Kernel *owner;
  int indexed, n;
  uint32_t mask;
  const char **slot;
};

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}
static bool nameix_has(const struct NameIx *x, const char *s) {
  for (uint32_t i = name_hash(s) & x->mask; x->slot[i]; i = (i + 1) & x->mask)
    if (!strcmp(x->slot[i], s)) return true;
  return false;
}
static void nameix_put(Comp *c, struct NameIx *x, const char *s) {
  if ((uint32_t)(2 * (x->n + 1)) > x->mask) {   /* at most half full */
    struct NameIx old = *x;
    x->mask = 2 * (old.mask + 1) - 1;
    x->slot = ir_alloc(c->A, (size_t)(x->mask + 1) * sizeof *x->slot);
    x->n = 0;
    for (uint32_t i = 0; i <= old.mask; i++)
      if (old.slot[i]) nameix_put(c, x, old.slot[i]);
  }
  if (nameix_has(x, s)) return;
  uint32_t i = name_hash(s) & x->mask;
  while (x->slot[i]) i = (i + 1) & x->mask;
  x->slot[i] = s;
  x->n++;
}

Var *ir_temp(Comp *c, Kernel *k, const char *prefix, VarKind kind, Loc loc) {
  struct NameIx *x = k->temps;
  if (!x || x->owner != k) {
    x = k->temps = ir_alloc(c->A, sizeof *x);
    x->owner = k;
    x->mask = 63;
    x->slot = ir_alloc(c->A, 64 * sizeof *x->slot);
  }
  for (; x->indexed < k->nvars; x->indexed++)
    if (k->vars[x->indexed]->name[0] == '_') nameix_put(c, x, k->vars[x->indexed]->name);
  for (int n = k->nvars;; n++) {
    const char *name = ir_fmt(c->A, "_%s%d", prefix, n);
    if (!nameix_has(x, name)) return ir_var_new(c, k, name, kind, loc);
  }
}

Stmt *ir_stmt_op(Comp *c, Loc loc, Var *dst, Op op, int nargs) {
  Stmt *s = ir_alloc(c->A, sizeof *s);
  s->k = S_OP;
  s->loc = loc;
  s->dst = dst;
  s->rhs.k = A_CALL;
  s->rhs.loc = loc;
  Call *cl = s->rhs.call = ir_alloc(c->A, sizeof *cl);
  cl->op = op;
  cl->loc = loc;
  cl->nargs = nargs;
  cl->args = ir_alloc(c->A, (size_t)(nargs ? nargs : 1) * sizeof *cl->args);
  for (int i = 0; i < nargs; i++) cl->args[i].loc = loc;
  return s;
}

Stmt *ir_func(const Kernel *k, Func fn) {
  for (int i = 0; i < k->body.n; i++)
    if (k->body.v[i]->k == S_FUNC && k->body.v[i]->fn == fn) return k->body.v[i];
  return NULL;
}

bool ir_any_call(const Body *b, bool (*pred)(const Call *)) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      if (ir_any_call(&s->body, pred) || ir_any_call(&s->other, pred)) return true;
    } else if (s->rhs.k == A_CALL && pred(s->rhs.call)) {
      return true;
    }
  }
  return false;
}

bool ir_has_split_aiv(const Body *b) {
  for (int i = 0; i < b->n; i++)
    if (b->v[i]->k == S_SPLIT || ((b->v[i]->k == S_FOR || b->v[i]->k == S_FUNC) && ir_has_split_aiv(&b->v[i]->body)))
      return true;
  return false;
}

/* Cube work: a tile in a cube space (mat, acc, left, right), before or after
 * expand_mixed. A kernel without any is pure-vector (DESIGN 14.4). */
bool ir_has_cube(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_OP && s->dst && s->dst->kind == VK_TILE && s->dst->sp != SP_VEC && s->dst->sp != SP_NONE) return true;
    if (ir_has_cube(&s->body) || ir_has_cube(&s->other)) return true;
  }
  return false;
}

/* How many vector lanes the machine launches for a per-core kernel: two when
 * its aiv program holds a split_aiv region and the kernel has cube work; a
 * pure-vector kernel runs on one lane (DESIGN 14.4), split or not. */
int ir_lane_valid(int V, int P, int lane) {
  int v = V - lane * P;
  return v < 0 ? 0 : v > P ? P : v;
}

/* The lane stride of a split transfer of extent E, per target (split.md,
 * "Lane placement"). a2a3 moves an entry through a GM slot and lane l reads
 * it at l times its own tile's extent: ceil(E/2), rebalanced where the counts
 * need it. a5 moves it through the local FIFO, which cuts the producer's
 * padded 16-element box in physical halves (pto-isa npu/a5/TPush.hpp
 * pushAcc2VecFiFo, cpu/TPush.hpp TPush_c2v), as PyPTO's SplitVectorKernel
 * halves the box. */
int ir_split_stride(Target t, int E) { return t == TGT_A5 ? (E + 15) / 16 * 16 / 2 : (E + 1) / 2; }

/* Codes 1/2 when the lanes hold equal counts, 3/4 when lane 0 holds one more:
 * the code's parity is the parity of V, which PTOAS checks. An empty lane 1
 * fits either and takes V's parity; an unknown V takes the box's (the
 * machine checks the counts at run time). On a5 the box's halves place any
 * counts (ptoc pushes the whole box, each lane narrows to its own), and only
 * the box's stride places them. */
int ir_split_code_on(Target t, int ax, int E, int V, int P) {
  if (t == TGT_A5)   /* left_right: whole 32-column boxes (npu/a5/TPush.hpp pushAcc2VecFiFo's ProdN % 32) */
    return P == ir_split_stride(t, E) && !(ax && (E % 32 || V != E)) ? (ax ? MODE_LR : MODE_UD) : -1;
  return ir_split_code(ax, E, V, P);
}

int ir_split_code(int ax, int E, int V, int P) {
  int even = ax ? MODE_LR : MODE_UD, odd = ax ? MODE_LR_ODD : MODE_UD_ODD;
  if (P > E) return -1;                         /* lanes past the tile: an a5 box's halves (ir_split_stride) */
  if (V < 0) return 2 * P - E == 1 ? odd : even;
  int v0 = ir_lane_valid(V, P, 0), v1 = ir_lane_valid(V, P, 1);
  if (V > 2 * P) return -1;
  if (!v1) return V % 2 ? odd : even;
  return v0 == v1 ? even : v0 == v1 + 1 ? odd : -1;
}

int ir_vector_lanes(const Kernel *k) {
  const Stmt *aiv = ir_func(k, FN_AIV);
  return aiv && ir_has_split_aiv(&aiv->body) && ir_has_cube(&k->body) ? 2 : 1;
}

void ir_body_push(Comp *c, Body *b, Stmt *s) {
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 8;
    Stmt **nv = ir_alloc(c->A, (size_t)cap * sizeof *nv);
    if (b->n) memcpy(nv, b->v, (size_t)b->n * sizeof *nv);
    b->v = nv;
    b->cap = cap;
  }
  b->v[b->n++] = s;
}

/* Copies of an Arg (Stmt) share its index pair (condition), so a writer
 * first takes its own. */
Aff *ir_pair_own(Arena *A, const Aff **p) {
  Aff *ix = ir_alloc(A, 2 * sizeof *ix);
  if (*p) memcpy(ix, *p, 2 * sizeof *ix);
  *p = ix;
  return ix;
}

void ir_arg_idx(Arena *A, Arg *a, Aff r, Aff c) {
  Aff *ix = ir_alloc(A, 2 * sizeof *ix);
  ix[0] = r, ix[1] = c;
  a->k = A_IDX;
  a->ix = ix;
}

void ir_arg_iexpr(Arena *A, Arg *a, Aff x) {
  Aff *ix = ir_alloc(A, 2 * sizeof *ix);
  ix[0] = x;
  a->k = A_IEXPR;
  a->ix = ix;
}

bool ir_aff_const(const Aff *a) { return a->n == 0; }

Aff ir_aff_var(const Var *v, int k) {
  Aff a = {0};
  a.n = 1;
  a.v[0] = v->id;
  a.k[0] = k;
  return a;
}

/* a + sign*b: terms kept ordered by variable id, zero terms dropped. For the
 * passes (an overflow of the term table is the compiler's own fault); the
 * parser has its own version that reports the user's errors. */
Aff ir_aff_add(Aff a, const Aff *b, int sign) {
  int64_t c = (int64_t)a.c + (int64_t)sign * b->c;   /* never wraps: out of int32 is the pass's fault */
  ASSERT(c >= INT32_MIN && c <= INT32_MAX);
  a.c = (int32_t)c;
  for (int i = 0; i < b->n; i++) {
    int j = 0;
    while (j < a.n && a.v[j] != b->v[i]) j++;
    if (j == a.n) {
      ASSERT(a.n < IR_MAXT);
      int p = a.n++;
      while (p > 0 && a.v[p - 1] > b->v[i]) a.v[p] = a.v[p - 1], a.k[p] = a.k[p - 1], p--;
      a.v[p] = b->v[i];
      a.k[p] = 0;
      j = p;
    }
    int64_t kk = (int64_t)a.k[j] + (int64_t)sign * b->k[i];
    ASSERT(kk >= INT32_MIN && kk <= INT32_MAX);
    a.k[j] = (int32_t)kk;
  }
  int w = 0;
  for (int i = 0; i < a.n; i++)
    if (a.k[i]) a.v[w] = a.v[i], a.k[w++] = a.k[i];
  a.n = w;
  return a;
}

static const char *const rel_names[] = {"<", "<=", ">", ">=", "==", "!="};
const char *ir_rel_name(Rel r) { return rel_names[r]; }
bool ir_rel_holds(Rel r, int64_t a, int64_t b) {
  switch (r) {
  case REL_LT: return a < b;
  case REL_LE: return a <= b;
  case REL_GT: return a > b;
  case REL_GE: return a >= b;
  case REL_EQ: return a == b;
  case REL_NE: return a != b;
  }
  return false;
}

int ir_loop_trips(const Var *v) {
  if (v->kind == VK_LANE) return 2;
  if (v->kind != VK_LOOP) return 1;
  if (v->hi <= v->lo || v->step <= 0) return 0;
  return (int)(((int64_t)v->hi - v->lo + v->step - 1) / v->step);
}

int ir_loop_last(const Var *v) {
  if (v->kind == VK_LANE) return 1;
  if (v->kind == VK_SCALAR) return v->computed ? v->hi : 1;
  int t = ir_loop_trips(v);
  return t ? v->lo + (t - 1) * v->step : v->lo;
}

/* Exact range of an affine expression over the box of its variables' values. */
void ir_aff_range(const Kernel *k, const Aff *a, int64_t *lo, int64_t *hi) {
  int64_t l = a->c, h = a->c;
  for (int i = 0; i < a->n; i++) {
    const Var *v = k->vars[a->v[i]];
    int64_t first = (v->kind == VK_LOOP || (v->kind == VK_SCALAR && v->computed)) ? v->lo : 0, last = ir_loop_last(v);
    int64_t x = a->k[i] * first, y = a->k[i] * last;
    l += x < y ? x : y;
    h += x < y ? y : x;
  }
  *lo = l;
  *hi = h;
}

/* Exact range of a + s*b over every iteration (terms combined first). */
void ir_aff_range2(const Kernel *k, const Aff *a, const Aff *b, int s, int64_t *lo, int64_t *hi) {
  int64_t cc = (int64_t)a->c + s * (int64_t)b->c, ks[2 * IR_MAXT];
  int vs[2 * IR_MAXT], n = 0;
  for (int i = 0; i < a->n; i++) vs[n] = a->v[i], ks[n++] = a->k[i];
  for (int i = 0; i < b->n; i++) {
    int j = 0;
    while (j < n && vs[j] != b->v[i]) j++;
    if (j == n) vs[n] = b->v[i], ks[n++] = 0;
    ks[j] += s * (int64_t)b->k[i];
  }
  int64_t l = cc, h = cc;
  for (int i = 0; i < n; i++) {
    const Var *v = k->vars[vs[i]];
    int64_t f = (v->kind == VK_LOOP || (v->kind == VK_SCALAR && v->computed)) ? v->lo : 0, la = ir_loop_last(v);
    int64_t x = ks[i] * f, y = ks[i] * la;
    l += x < y ? x : y;
    h += x < y ? y : x;
  }
  *lo = l;
  *hi = h;
}

/* True when every variable of a is a loop or lane variable (ranges are exact). */
bool ir_aff_exact(const Kernel *k, const Aff *a) {
  for (int i = 0; i < a->n; i++)
    if (k->vars[a->v[i]]->kind == VK_SCALAR && k->vars[a->v[i]]->computed) return false;
  return true;
}

Arg *ir_kwarg(Call *c, Kw kw) {
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].kw == kw) return &c->args[i];
  return NULL;
}

/* The keyword argument kw of c, appended (zeroed but for kw and loc) when absent. */
Arg *ir_kwarg_add(Comp *cp, Call *c, Kw kw) {
  Arg *a = ir_kwarg(c, kw);
  if (a) return a;
  Arg *nv = ir_alloc(cp->A, (size_t)(c->nargs + 1) * sizeof *nv);
  memcpy(nv, c->args, (size_t)c->nargs * sizeof *nv);
  a = &nv[c->nargs];
  a->kw = kw;
  a->loc = c->loc;
  c->args = nv;
  c->nargs++;
  return a;
}

/* Positional arguments precede keyword ones (the parser requires it, the
 * typechecker asserts it of every pass), so the i-th is args[i]. */
Arg *ir_pos(Call *c, int i) { return i >= 0 && i < c->nargs && c->args[i].kw == KW_NONE ? &c->args[i] : NULL; }

int ir_npos(const Call *c) {
  int n = 0;
  for (int j = 0; j < c->nargs; j++) n += c->args[j].kw == KW_NONE;
  return n;
}

/* ---- cloning: a deep copy into another arena (variables remapped by id) ------ */

typedef struct {
  Arena *A;
  Var **map;                                    /* old id -> new var */
} Clone;

static Var *cl_var(const Clone *cl, const Var *v) { return v ? cl->map[v->id] : NULL; }
static Call *cl_call(const Clone *cl, const Call *c);
static void cl_arg(const Clone *cl, Arg *dst, const Arg *src) {
  *dst = *src;
  dst->var = cl_var(cl, src->var);
  if (src->call) dst->call = cl_call(cl, src->call);
}
static Call *cl_call(const Clone *cl, const Call *c) {
  Call *n = ir_alloc_raw(cl->A, sizeof *n);
  *n = *c;
  n->args = ir_alloc_raw(cl->A, (size_t)(c->nargs ? c->nargs : 1) * sizeof *n->args);   /* never NULL, as parsed */
  for (int i = 0; i < c->nargs; i++) cl_arg(cl, &n->args[i], &c->args[i]);
  return n;
}
static void cl_body(const Clone *cl, Body *dst, const Body *src);
static Stmt *cl_stmt(const Clone *cl, const Stmt *s) {
  Stmt *n = ir_alloc_raw(cl->A, sizeof *n);
  *n = *s;
  n->dst = cl_var(cl, s->dst);
  n->iv = cl_var(cl, s->iv);
  cl_arg(cl, &n->rhs, &s->rhs);
  cl_body(cl, &n->body, &s->body);
  cl_body(cl, &n->other, &s->other);
  return n;
}
static void cl_body(const Clone *cl, Body *dst, const Body *src) {
  dst->n = dst->cap = src->n;
  dst->v = src->n ? ir_alloc_raw(cl->A, (size_t)src->n * sizeof *dst->v) : NULL;
  for (int i = 0; i < src->n; i++) dst->v[i] = cl_stmt(cl, src->v[i]);
}

Kernel *ir_clone(Arena *A, const Kernel *k) {
  Kernel *n = ir_alloc_raw(A, sizeof *n);
  *n = *k;
  n->capvars = k->nvars > 32 ? k->nvars : 32;
  n->vars = ir_alloc_raw(A, (size_t)n->capvars * sizeof *n->vars);
  for (int i = 0; i < k->nvars; i++) {
    n->vars[i] = ir_alloc_raw(A, sizeof *n->vars[i]);
    *n->vars[i] = *k->vars[i];
  }
  Clone cl = {A, n->vars};
  n->params = k->np ? ir_alloc_raw(A, (size_t)k->np * sizeof *n->params) : NULL;
  for (int i = 0; i < k->np; i++) n->params[i] = cl_var(&cl, k->params[i]);
  cl_body(&cl, &n->body, &k->body);
  return n;
}

/* ---- a fingerprint of the statement skeleton and the variables ----------------- */

static uint64_t fp_body(uint64_t h, const Body *b) {
  h = h * 31 + (uint64_t)b->n;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    h = h * 31 + s->k;
    h = h * 31 + (s->dst ? (uint64_t)s->dst->id + 1 : 0);
    if (s->rhs.k == A_CALL) h = (h * 31 + s->rhs.call->op) * 31 + (uint64_t)s->rhs.call->nargs;
    if (s->k == S_COND) h = ((h * 31 + s->rel) * 31 + (uint64_t)s->cond[0].n) * 31 + (uint64_t)(uint32_t)s->cond[0].c;
    if (s->body.n || s->other.n) h = fp_body(fp_body(h, &s->body), &s->other);
  }
  return h;
}

uint64_t ir_fingerprint(const Kernel *k) {
  uint64_t h = ((((uint64_t)k->split * 31 + k->target) * 31 + (uint64_t)k->slots) * 31 + k->expanded) * 31 + k->lowered;
  h = h * 31 + (uint64_t)k->nvars;
  for (int i = 0; i < k->nvars; i++) {
    const Var *v = k->vars[i];
    h = ((h * 31 + v->sp) * 31 + (uint64_t)v->R) * 31 + (uint64_t)v->C;
  }
  return fp_body(h, &k->body);
}
