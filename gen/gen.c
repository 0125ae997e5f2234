/* gen.c — the kernel generator. Builds kernels in a small AST of its own
 * (gen.h), driven only by a choice source and a policy, and valid by
 * construction (DESIGN sections 3-5, docs/language.md, docs/split.md):
 *
 * - it tracks every tile's dtype, space, physical and valid shape (per lane
 *   inside split_aiv) and keeps one invariant: every element inside a tile's
 *   valid region is defined. Operations that would break it (an expansion
 *   whose vector has fewer valid rows, assemble over undefined elements, a
 *   matmul whose right operand is short along k) are never built, so every
 *   store is poison-free;
 * - GM windows are sized from the values stored and loaded: each store gets
 *   an output tensor of its own (disjoint per loop iteration and per lane), so
 *   no element is written twice by different writers;
 * - split modes: constructs an auto-split mode cannot express are only used
 *   when the kernel was allowed to break that mode (p_break_*): reductions
 *   along the split axis, assembles at an offset; sub-slices along an axis lie
 *   within one lane's half ([0, ceil(E/2)) or [ceil(E/2), E)), vector tiles fed
 *   to the cube have even extents, paged-gather rows split evenly;
 * - capacity: vector bytes (padded layouts) plus the C2V pipe reserve are
 *   budgeted against vec_budget, accumulator bytes against acc_budget, matmul
 *   operands against L0A/L0B;
 * - explicit split_aiv kernels shard with the mode matching the extent's
 *   parity, join only even halves, store lane values at lane*H + c.
 *
 * Generation is a sequence of blocks (vector, C2V, V2C, both ways, online
 * softmax, transfer loops, paged gather, reductions, sub-slice stores,
 * assemble) that share a pool of tiles, so later blocks reuse earlier values
 * and transfers cross between them. Feature flags record what was built. */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

static const char *const feat_names[FZ_NFEAT] = {
#define FZ_X_(n) #n,
    FZ_FEATURES(FZ_X_)
#undef FZ_X_
};

const char *fz_feature_name(int f) { return f >= 0 && f < FZ_NFEAT ? feat_names[f] : NULL; }

void fz_features(const FzKernel *k, uint8_t out[FZ_NFEAT]) { memcpy(out, k->feat, FZ_NFEAT); }

/* ---- values and generator state ---------------------------------------------------- */

typedef struct {
  FzExpr *e;
  int8_t dt, sp;
  bool lane;                                    /* a lane value (inside split_aiv) */
  bool join_ok;                                 /* lane value aic_gather may join (even halves) */
  int R, C;
  int vr[2], vc[2];                             /* valid extents, per lane */
} Val;

typedef struct {
  Val v;                                        /* v.e: the name */
  int16_t name;
  int8_t depth;
  bool alive;
} Tile;

typedef struct {
  int iv, lo, step, trips;
  bool stride;                                  /* GM windows advance with the loop variable */
} Loop;

enum { MAXTILE = 512, MAXLOOP = 4 };

typedef struct {
  const FzPolicy *p;                            /* &pol */
  FzPolicy pol;                                 /* the caller's, limits widened for a large kernel */
  FzSrc *s;
  FzKernel *k;
  FzBody *out;
  int depth;
  Tile t[MAXTILE];
  int nt;
  Loop loop[MAXLOOP];
  int nloop;
  bool region;                                  /* inside split_aiv */
  int lane, sb, rax;                            /* lane name, lane scalar name (-1), region axis */
  bool brk[2];                                  /* may break up_down (0) / left_right (1) */
  /* the compile claim: vec, acc and mat bytes charged, loop trips multiplied
   * (cap: those before a near-capacity block); the transfers' entries */
  int64_t cb[3], cap[3], v2cmax, v2c_sites;
  int64_t c2v_sites;                            /* C2V transfers, loop trips multiplied: bounds the live entries */
  bool varied;                                  /* a reassignment changed a tile's valid shape (run-time valid) */
  int64_t vec, acc, c2vmax;
  int nc2v, nv2c, slots;
  int ctr;
  bool py;                                      /* a pypto_share kernel: even extents on py_ax, one dtype */
  int py_ax, py_dt;
} Gen;

/* The compile claim (FzKernel.refuse): variants (FZ_V_* bits) under which
 * the kernel may be refused `unsupported`, and why; the first reason stays. */
static void refuse(Gen *g, unsigned vars, const char *why) {
  for (int v = 0; v < 4; v++)
    if ((vars >> v & 1) && !g->k->refuse[v]) g->k->refuse[v] = why;
}

static bool ch(Gen *g, double p) { return fz_chance(g->s, p); }
static int below(Gen *g, int n) { return (int)fz_below(g->s, (uint32_t)n); }
static int rng(Gen *g, int lo, int hi) { return fz_range(g->s, lo, hi); }
static void feat(Gen *g, int f) { g->k->feat[f] = 1; }
static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }
static int64_t imax64(int64_t a, int64_t b) { return a > b ? a : b; }
static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
static int up(int x, int m) { return (x + m - 1) / m * m; }

static _Noreturn void oom(void) {
  fputs("ptofuzz: out of memory\n", stderr);
  abort();
}

static void *al(Gen *g, size_t n) {
  n = (n + 15) & ~(size_t)15;
  FzChunk *c = g->k->mem;
  if (!c || c->used + n > c->cap) {
    size_t cap = n > 32768 ? n : 32768;
    FzChunk *d = malloc(sizeof *d + cap);
    if (!d) oom();
    d->next = c;
    d->used = 0;
    d->cap = cap;
    g->k->mem = c = d;
  }
  void *r = c->data + c->used;
  c->used += n;
  memset(r, 0, n);
  return r;
}

/* ---- names, tensors, statements ------------------------------------------------------ */

/* pfx followed by the decimal n (n >= 0), truncated to the name length. */
static void mkname(char *d, const char *pfx, int n) {
  char t[12];
  int i = sizeof t;
  do t[--i] = (char)('0' + n % 10);
  while ((n /= 10) && i > 0);
  size_t a = strlen(pfx), b = sizeof t - (size_t)i;
  if (a + b >= FZ_NAMELEN) a = FZ_NAMELEN - 1 - b;
  memcpy(d, pfx, a);
  memcpy(d + a, t + i, b);
  d[a + b] = 0;
}

static int newname(Gen *g, const char *pfx) {
  FzKernel *k = g->k;
  if (k->nnames >= FZ_MAXNAME) {
    fputs("ptofuzz gen: name table full\n", stderr);
    abort();
  }
  /* letters + digits that are reserved words: dtypes and targets */
  static const char *const reserved[] = {"f16", "f32", "i32", "i8", "i16", "a5"};
  for (int again = 1; again;) {
    mkname(k->names[k->nnames], pfx, g->ctr++);
    again = 0;
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++) again |= !strcmp(k->names[k->nnames], reserved[i]);
  }
  return k->nnames++;
}

static int tensor(Gen *g, char pfx, int dt, int dir, int rows, int cols) {
  FzKernel *k = g->k;
  if (k->np >= FZ_MAXPARAM) {
    fputs("ptofuzz gen: parameter table full\n", stderr);
    abort();
  }
  FzParam *p = &k->params[k->np];
  char pf[2] = {pfx, 0};
  mkname(p->name, pf, k->np);
  p->dt = (uint8_t)dt;
  p->dir = (uint8_t)dir;
  p->rank = 2;
  p->dim[0] = imax(rows, 1);
  p->dim[1] = imax(cols, 1);
  return k->np++;
}

static int table(Gen *g, char pfx, const int32_t *v, int n) {
  int t = tensor(g, pfx, FZ_I32, FZ_IN, 1, n);
  FzParam *p = &g->k->params[t];
  p->rank = 1;
  p->init = al(g, (size_t)n * sizeof *p->init);
  memcpy(p->init, v, (size_t)n * sizeof *v);
  return t;
}

static void push(Gen *g, FzBody *b, FzStmt *s) {
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 8;
    FzStmt **v = al(g, (size_t)cap * sizeof *v);
    if (b->n) memcpy(v, b->v, (size_t)b->n * sizeof *v);
    b->v = v;
    b->cap = cap;
  }
  b->v[b->n++] = s;
}

static FzExpr *call(Gen *g, int op, int n) {
  FzExpr *e = al(g, sizeof *e);
  e->op = (uint16_t)op;
  e->nargs = (uint8_t)n;
  e->a = al(g, (size_t)n * sizeof *e->a);
  return e;
}

static FzExpr *varref(Gen *g, int name) {
  FzExpr *e = al(g, sizeof *e);
  e->op = FZ_OP_VAR;
  e->var = (int16_t)name;
  return e;
}

static FzAff aff(int c) { return (FzAff){.c = c}; }
static FzAff aff_plus(FzAff a, int v, int k) {
  if (!k) return a;
  for (int i = 0; i < a.n; i++)
    if (a.v[i] == v) {
      a.k[i] += k;
      return a;
    }
  if (a.n < 3) {
    a.v[a.n] = (int16_t)v;
    a.k[a.n++] = k;
  }
  return a;
}

static void a_expr(Gen *g, FzArg *a, FzExpr *e) {
  a->k = FZ_A_EXPR;
  a->e = e;
  if (e->op != FZ_OP_VAR) feat(g, FZ_FEAT_nested_call);
}
static void a_tensor(FzArg *a, int t) { a->k = FZ_A_TENSOR, a->tensor = t; }
static void a_idx(FzArg *a, FzAff r, FzAff c) {
  a->k = FZ_A_IDX;
  a->ix[0] = r;
  a->ix[1] = c;
}
static void a_num(FzArg *a, double x) { a->k = FZ_A_NUM, a->num = x; }
static void a_int(FzArg *a, int kw, int x) { a->k = FZ_A_INT, a->kw = (uint8_t)kw, a->i = x; }
static void a_kind(FzArg *a, int k, int x) { a->k = (uint8_t)k, a->i = x; }

/* ---- bytes ---------------------------------------------------------------------------- */

static int esize(int dt) { return dt == FZ_I8 ? 1 : dt == FZ_F16 || dt == FZ_BF16 || dt == FZ_I16 ? 2 : 4; }
static bool isint(int dt) { return dt == FZ_I32 || dt == FZ_I8 || dt == FZ_I16; }
static int64_t vbytes(int dt, int R, int C) {
  int e = esize(dt);
  if (C == 1 && R > 1) return (int64_t)up(R, 32 / e) * e;
  return (int64_t)R * up(C, 32 / e) * e;
}
static int64_t fbytes(int dt, int R, int C, bool acc) {   /* fractal: mat, left, right, acc */
  int e = acc ? 4 : esize(dt), bc = acc ? 16 : 32 / e;
  return (int64_t)(R > 1 ? up(R, 16) : R) * up(C, bc) * e;
}
static int64_t reserve(const Gen *g) {
  int s = g->slots ? g->slots : 2;
  return (int64_t)imax(s, imin(g->nc2v, 3)) * g->c2vmax;
}
static bool vec_ok(const Gen *g, int64_t add) { return g->vec + add + reserve(g) <= g->p->vec_budget; }
/* The product of the open loops' trips: an unrolled loop's copies of a tile
 * may all be live at once, as far as the compile claim knows. */
static int64_t trips(const Gen *g) {
  int64_t w = 1;
  for (int i = 0; i < g->nloop; i++) w *= g->loop[i].trips;
  return w;
}
static void charge(Gen *g, const Val *v) {
  int64_t w = trips(g);
  if (v->sp == FZ_VEC) g->vec += vbytes(v->dt, v->R, v->C), g->cb[0] += w * vbytes(v->dt, v->R, v->C);
  else if (v->sp == FZ_ACC) g->acc += fbytes(v->dt, v->R, v->C, true), g->cb[1] += w * fbytes(v->dt, v->R, v->C, true);
  else g->cb[2] += w * fbytes(v->dt, v->R, v->C, false);
}

/* ---- transfers -------------------------------------------------------------------------- */

/* The claim for a transfer under each split mode (auto_split.c's rules, read
 * conservatively): a C2V transfer compiles when the cube tile's extent on the
 * axis is above 1 and fully valid (no rebalanced stride, a split code always
 * fits) and, under up_down with lanes of different rows, its columns are
 * fully valid too (E-SPLIT-NARROW); a V2C transfer when its extent on the
 * axis is even (equal halves). Run-time valid extents are judged per kernel
 * (fz_generate). */
static void claim_c2v(Gen *g, const Val *x) {
  bool a5 = g->k->target == 1;                  /* the split variants run on the kernel's target */
  for (int ax = 0; ax < 2; ax++) {
    int E = ax ? x->C : x->R, V = ax ? x->vc[0] : x->vr[0], box = (E + 15) / 16 * 16;
    unsigned m = ax ? FZ_V_LR : FZ_V_UD;
    if (E == 1) refuse(g, m, "c2v-whole");
    else if (V != E) refuse(g, m, "c2v-partial");
    else if (a5 && ax && E % 32) refuse(g, m, "c2v-a5-columns");   /* split.md 1.1a */
    else if (!ax && (a5 ? box != E : x->R % 2) && x->vc[0] != x->C) refuse(g, m, "c2v-narrow");
  }
}
static void claim_v2c(Gen *g, const Val *x) {
  int64_t b = fbytes(x->dt, x->R, x->C, false);
  g->v2c_sites += trips(g);
  if (b > g->v2cmax) g->v2cmax = b;
  for (int ax = 0; ax < 2; ax++) {
    int E = ax ? x->C : x->R;
    if (E % 2) refuse(g, ax ? FZ_V_LR : FZ_V_UD, E == 1 ? "v2c-whole" : "v2c-odd");
    else if (g->k->target == 1 && E % 16) refuse(g, ax ? FZ_V_LR : FZ_V_UD, "v2c-a5-box");   /* halves of the box */
  }
}

static void note_c2v(Gen *g, const Val *x) {
  claim_c2v(g, x);
  g->nc2v++;
  g->c2v_sites += trips(g);
  int64_t b = vbytes(x->dt, x->R, x->C);
  if (b > g->c2vmax) g->c2vmax = b;
  feat(g, FZ_FEAT_c2v);
  if (g->nloop) feat(g, FZ_FEAT_transfer_in_loop);
}
/* A C2V transfer only some variants make (a mat store on a5): reserve only. */
static void note_reserve(Gen *g, const Val *x) {
  claim_c2v(g, x);
  g->c2v_sites++;
  int64_t b = vbytes(x->dt, x->R, x->C);
  if (b > g->c2vmax) g->c2vmax = b;
}
static void note_v2c(Gen *g, const Val *x) {
  claim_v2c(g, x);
  g->nv2c++;
  feat(g, FZ_FEAT_v2c);
  if (g->nloop) feat(g, FZ_FEAT_transfer_in_loop);
}

/* ---- statements --------------------------------------------------------------------------- */

static Tile *add_tile(Gen *g, int name, Val v) {
  if (g->nt == MAXTILE) return NULL;
  Tile *t = &g->t[g->nt++];
  t->v = v;
  t->v.e = varref(g, name);
  t->name = (int16_t)name;
  t->depth = (int8_t)g->depth;
  t->alive = true;
  return t;
}

/* `name = value;` — the value gets a name and joins the pool. */
static Val bind(Gen *g, Val v, const char *pfx) {
  if (v.e->op == FZ_OP_VAR) return v;
  int n = newname(g, pfx);
  FzStmt *s = al(g, sizeof *s);
  s->k = FZ_S_ASSIGN;
  s->dst = (int16_t)n;
  s->e = v.e;
  push(g, g->out, s);
  g->k->nstmts++;
  v.e = varref(g, n);
  add_tile(g, n, v);
  return v;
}

static Tile *tile_of(Gen *g, const Val *v) {
  if (v->e->op != FZ_OP_VAR) return NULL;
  for (int i = g->nt - 1; i >= 0; i--)
    if (g->t[i].name == v->e->var) return &g->t[i];
  return NULL;
}

/* Reassign a named tile (same dtype, space, shape); inside a loop this carries it. */
static Val reassign(Gen *g, Val dst, Val v) {
  FzStmt *s = al(g, sizeof *s);
  s->k = FZ_S_ASSIGN;
  s->dst = dst.e->var;
  s->e = v.e;
  push(g, g->out, s);
  g->k->nstmts++;
  Tile *t = tile_of(g, &dst);
  v.e = dst.e;
  if (memcmp(dst.vr, v.vr, sizeof v.vr) || memcmp(dst.vc, v.vc, sizeof v.vc)) g->varied = true;
  if (t) {
    if (t->depth < g->depth && g->nloop) feat(g, FZ_FEAT_loop_carried);
    t->v = v;
  }
  return v;
}

static void open_block(Gen *g, FzStmt *s) {
  push(g, g->out, s);
  g->out = &s->body;
  g->depth++;
}

static void close_block(Gen *g, FzBody *outer) {
  g->depth--;
  g->out = outer;
  for (int i = 0; i < g->nt; i++)
    if (g->t[i].depth > g->depth) g->t[i].alive = false;
}

/* for iv in range(lo, lo + trips*step, step) { ... } */
static FzBody *open_loop(Gen *g, bool stride, int lo, int trips, int step) {
  FzStmt *s = al(g, sizeof *s);
  s->k = FZ_S_FOR;
  s->iv = (int16_t)newname(g, "i");
  s->lo = lo;
  s->step = step;
  s->hi = lo + trips * step;
  if (step > 1 && ch(g, g->p->p_loop_ragged)) s->hi -= below(g, step);   /* still `trips` iterations */
  FzBody *outer = g->out;
  open_block(g, s);
  g->loop[g->nloop++] = (Loop){s->iv, lo, step, trips, stride};
  feat(g, FZ_FEAT_loop);
  if (lo || step != 1) feat(g, FZ_FEAT_loop_step);
  return outer;
}

static FzBody *open_rand_loop(Gen *g, bool stride) {
  int trips = rng(g, g->p->loop_trips_min, g->p->loop_trips_max), lo = 0, step = 1;
  if (ch(g, g->p->p_loop_step)) {
    static const int los[] = {1, -1, 2, 0};
    lo = los[below(g, 4)];
    step = 1 + below(g, 2);
  }
  return open_loop(g, stride, lo, trips, step);
}

static void close_loop(Gen *g, FzBody *outer) {
  g->nloop--;
  close_block(g, outer);
}

/* The innermost loop whose GM windows advance, or NULL. */
static const Loop *stride_loop(const Gen *g) {
  return g->nloop && g->loop[g->nloop - 1].stride ? &g->loop[g->nloop - 1] : NULL;
}

/* Offset (i - lo) * stride of a striding loop; *span grows by the advance. */
static FzAff advance(const Gen *g, FzAff o, int stride, int *span) {
  const Loop *l = stride_loop(g);
  if (!l) return o;
  o = aff_plus(o, l->iv, stride);
  o.c -= l->lo * stride;
  *span += (l->trips - 1) * l->step * stride;
  return o;
}

/* ---- shapes and dtypes --------------------------------------------------------------------- */

enum { D_EVEN = 1, D_NOUNIT = 2, D_BOX = 4 };

static int pick_from(Gen *g, const int *tab, int n, int max) {
  int cnt = 0;
  for (int i = 0; i < n; i++) cnt += tab[i] <= max;
  if (!cnt) return max;
  int k = below(g, cnt);
  for (int i = 0; i < n; i++)
    if (tab[i] <= max && k-- == 0) return tab[i];
  return max;
}

static int dim(Gen *g, bool col, unsigned fl) {
  static const int rows[] = {16, 32, 8, 64, 24, 48, 4, 2, 40, 128};
  static const int cols[] = {32, 16, 64, 128, 8, 48, 96, 24, 256, 40};
  static const int odds[] = {15, 17, 7, 31, 33, 9, 5, 3, 63, 47, 13};
  int max = col ? g->p->max_cols : g->p->max_rows;
  if (g->py) {                                  /* PyPTO allocates the tile as written and ptoas wants whole
                                                 * 16-row boxes and 32-byte rows: odd extents are valid ones */
    static const int pr[] = {32, 64}, pc[] = {32, 64, 128};   /* halves keep them too (f16 [R,1]: 16 rows) */
    return col ? pick_from(g, pc, 3, imax(max, 32)) : pick_from(g, pr, 2, imax(max, 32));
  }
  if (!(fl & D_EVEN) && ch(g, g->p->p_odd_extent)) {
    int d = pick_from(g, odds, (int)(sizeof odds / sizeof *odds), max);
    if (d % 2) feat(g, FZ_FEAT_odd_extent);
    return d;
  }
  if (!(fl & D_NOUNIT) && ch(g, g->p->p_unit_extent)) {
    feat(g, FZ_FEAT_unit_extent);
    return 1;
  }
  int d = col ? pick_from(g, cols, 10, max) : pick_from(g, rows, 10, max);
  if ((fl & D_EVEN) && d % 2 && d > 1) d--;
  return d;
}

static int shrink(int x, unsigned fl) {
  if ((fl & D_BOX) && x > 32) return (x / 2 + 31) / 32 * 32;   /* a PyPTO share kernel keeps whole boxes */
  x /= 2;
  if ((fl & D_EVEN) && x % 2 && x > 1) x++;
  return x < 1 ? 1 : x;
}

/* Shrink [R, C] until n such vector tiles fit the budget. */
static void fit(Gen *g, int dt, int *R, int *C, int n, unsigned fl) {
  if (g->py) fl |= D_BOX;
  while (!vec_ok(g, n * vbytes(dt, *R, *C)) && (*R > 1 || *C > 1)) {
    if (*C >= *R && *C > 1) *C = shrink(*C, fl);
    else *R = shrink(*R, fl);
  }
}

/* Shrink a matmul [M,K] x [K,N] until L0A/L0B, acc and n vector [M,N] tiles fit. */
static void fit_mm(Gen *g, int dt, int *M, int *K, int *N, int n, unsigned fl) {
  if (g->py) fl |= D_BOX;
  for (int it = 0; it < 64; it++) {
    bool left = fbytes(dt, *M, *K, false) <= 65536, right = fbytes(dt, *K, *N, false) <= 65536 &&
                                                          fbytes(dt, *N, *K, false) <= 65536;
    bool acc = g->acc + fbytes(dt, *M, *N, true) <= g->p->acc_budget;
    bool vec = vec_ok(g, n * vbytes(FZ_F32, *M, *N) + vbytes(FZ_F32, *M, *N));
    if (left && right && acc && vec) return;
    if (!left || (!right && *K >= *N)) {
      if (*K > 1 && (*K >= *M || left)) *K = shrink(*K, fl);
      else *M = shrink(*M, fl);
    } else if (!right) *N = shrink(*N, fl);
    else if (*N >= *M && *N > 1) *N = shrink(*N, fl);
    else if (*M > 1) *M = shrink(*M, fl);
    else if (*N > 1) *N = shrink(*N, fl);
    else return;
  }
}

/* bf16, or with integers allowed i8 (a matmul operand too) or i16 (not for a matmul). */
static int narrow(Gen *g, bool int_ok, bool mm) {
  int dt = !int_ok ? FZ_BF16 : (int[]){FZ_BF16, FZ_I8, FZ_I16}[below(g, mm ? 2 : 3)];
  feat(g, dt == FZ_BF16 ? FZ_FEAT_bf16 : FZ_FEAT_i8_i16);
  return dt;
}

/* A block's dtype; mm: it feeds a matmul. */
static int pick_dt(Gen *g, bool i32_ok, bool mm) {
  if (g->py) {
    if (g->py_dt == FZ_F16) feat(g, FZ_FEAT_f16);
    return g->py_dt;
  }
  if (ch(g, g->p->p_narrow)) return narrow(g, i32_ok, mm);
  if (ch(g, g->p->p_f16)) {
    feat(g, FZ_FEAT_f16);
    return FZ_F16;
  }
  if (i32_ok && ch(g, g->p->p_i32)) {
    feat(g, FZ_FEAT_i32);
    return FZ_I32;
  }
  return FZ_F32;
}

static double scalar(Gen *g, int dt, int op) {
  if (isint(dt)) return op == FZ_OP_muls ? rng(g, -2, 3) : rng(g, -3, 3);
  static const double tab[] = {0.5, 0.25, 2, -1, 0.125, 1.5, -0.5, 0.0625, 3, -2, 0.75, 1, -0.25, 0.0883883};
  double x = tab[below(g, (int)(sizeof tab / sizeof *tab))];
  return op == FZ_OP_divs && x == 0 ? 2 : x;
}

/* ---- value constructors ---------------------------------------------------------------------- */

static Val mkval(int dt, int sp, int R, int C, int vr, int vc) {
  return (Val){.dt = (int8_t)dt, .sp = (int8_t)sp, .R = R, .C = C, .vr = {vr, vr}, .vc = {vc, vc}};
}

/* A vector result: lane value inside a region, C2V of cube operands noted. */
static Val vres(Gen *g, FzExpr *e, int dt, int R, int C) {
  Val r = mkval(dt, FZ_VEC, R, C, R, C);
  r.e = e;
  r.lane = g->region;
  return r;
}
static void vop(Gen *g, const Val *a) {
  if (a->sp != FZ_VEC) note_c2v(g, a);
}

static Val v_un(Gen *g, int op, Val a) {
  vop(g, &a);
  FzExpr *e = call(g, op, 1);
  a_expr(g, &e->a[0], a.e);
  Val r = vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  charge(g, &r);
  return r;
}

static Val v_bins(Gen *g, int op, Val a, double x) {
  vop(g, &a);
  FzExpr *e = call(g, op, 2);
  a_expr(g, &e->a[0], a.e);
  a_num(&e->a[1], x);
  Val r = vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  charge(g, &r);
  return r;
}

static Val v_bin(Gen *g, int op, Val a, Val b) {
  vop(g, &a);
  vop(g, &b);
  FzExpr *e = call(g, op, 2);
  a_expr(g, &e->a[0], a.e);
  a_expr(g, &e->a[1], b.e);
  Val r = vres(g, e, a.dt, a.R, a.C);
  for (int l = 0; l < 2; l++) r.vr[l] = imin(a.vr[l], b.vr[l]), r.vc[l] = imin(a.vc[l], b.vc[l]);
  r.join_ok = (a.join_ok || !a.lane) && (b.join_ok || !b.lane);
  charge(g, &r);
  return r;
}

static Val v_cast(Gen *g, Val a, int dt) {
  vop(g, &a);
  FzExpr *e = call(g, FZ_OP_cast, 2);
  a_expr(g, &e->a[0], a.e);
  a_kind(&e->a[1], FZ_A_DTYPE, dt);
  Val r = vres(g, e, dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = a.join_ok || !a.lane;
  charge(g, &r);
  feat(g, FZ_FEAT_cast);
  if (dt == FZ_F16 || a.dt == FZ_F16) feat(g, FZ_FEAT_f16);
  if (dt == FZ_I32 || a.dt == FZ_I32) feat(g, FZ_FEAT_i32);
  if (dt == FZ_BF16 || a.dt == FZ_BF16) feat(g, FZ_FEAT_bf16);
  if (dt == FZ_I8 || dt == FZ_I16 || a.dt == FZ_I8 || a.dt == FZ_I16) feat(g, FZ_FEAT_i8_i16);
  return r;
}

static Val v_full(Gen *g, int R, int C, double x, int dt) {
  FzExpr *e = call(g, FZ_OP_full, 3);
  a_idx(&e->a[0], aff(R), aff(C));
  a_num(&e->a[1], x);
  a_kind(&e->a[2], FZ_A_DTYPE, dt);
  Val r = vres(g, e, dt, R, C);
  r.join_ok = true;
  charge(g, &r);
  feat(g, FZ_FEAT_full);
  return r;
}

/* A pypto_share kernel's accumulator full(...) takes the valid shape of what is
 * added to it (valid=[vr, vc]), so the value it carries around the loop keeps
 * one valid shape (PyPTO types a loop-carried tile once: E-PYPTO-CARRIED-VALID). */
static void py_valid_full(Gen *g, FzExpr *fe, Val *acc, const Val *y) {
  if (!g->py || fe->nargs != 3 || y->vr[0] != y->vr[1] || y->vc[0] != y->vc[1] || (y->vr[0] >= acc->vr[0] && y->vc[0] >= acc->vc[0])) return;
  FzArg *a = al(g, 4 * sizeof *a);
  memcpy(a, fe->a, 3 * sizeof *a);
  int vr = imin(acc->vr[0], y->vr[0]), vc = imin(acc->vc[0], y->vc[0]);
  a_idx(&a[3], aff(vr), aff(vc));
  a[3].kw = FZ_KW_VALID;
  fe->a = a;
  fe->nargs = 4;
  acc->vr[0] = acc->vr[1] = vr;
  acc->vc[0] = acc->vc[1] = vc;
  Tile *t = tile_of(g, acc);
  if (t) t->v.vr[0] = t->v.vr[1] = vr, t->v.vc[0] = t->v.vc[1] = vc;
}

/* Row (row=true) or column reduction. */
static Val v_red(Gen *g, int op, Val a) {
  vop(g, &a);
  bool row = op == FZ_OP_row_sum || op == FZ_OP_row_max || op == FZ_OP_row_min;
  FzExpr *e = call(g, op, 1);
  a_expr(g, &e->a[0], a.e);
  Val r = vres(g, e, a.dt, row ? a.R : 1, row ? 1 : a.C);
  for (int l = 0; l < 2; l++) {
    if (row) r.vr[l] = a.vc[l] ? a.vr[l] : 0, r.vc[l] = a.vc[l] ? 1 : 0;
    else r.vr[l] = a.vr[l] ? 1 : 0, r.vc[l] = a.vr[l] ? a.vc[l] : 0;
  }
  r.join_ok = a.join_ok || !a.lane;
  charge(g, &r);
  feat(g, row ? FZ_FEAT_reduction_row : FZ_FEAT_reduction_col);
  return r;
}

static Val v_exp2(Gen *g, int op, Val a, Val v, bool row) {
  vop(g, &a);
  vop(g, &v);
  FzExpr *e = call(g, op, 2);
  a_expr(g, &e->a[0], a.e);
  a_expr(g, &e->a[1], v.e);
  Val r = vres(g, e, a.dt, a.R, a.C);
  memcpy(r.vr, a.vr, sizeof r.vr), memcpy(r.vc, a.vc, sizeof r.vc);
  r.join_ok = (a.join_ok || !a.lane) && (v.join_ok || !v.lane);
  charge(g, &r);
  feat(g, row ? FZ_FEAT_row_expand : FZ_FEAT_col_expand);
  return r;
}

/* matmul(a, b[, trans_b=1]) or matmul_acc(c, a, b[, trans_b=1]): acc. */
static Val v_mm(Gen *g, const Val *c, Val a, Val b, bool tb) {
  if (a.sp == FZ_VEC) note_v2c(g, &a);
  if (b.sp == FZ_VEC) note_v2c(g, &b);
  int base = c != NULL;
  FzExpr *e = call(g, c ? FZ_OP_matmul_acc : FZ_OP_matmul, base + 2 + tb);
  if (c) a_expr(g, &e->a[0], c->e);
  a_expr(g, &e->a[base], a.e);
  a_expr(g, &e->a[base + 1], b.e);
  if (tb) a_int(&e->a[base + 2], FZ_KW_TRANS_B, 1), feat(g, FZ_FEAT_trans_b);
  int N = tb ? b.R : b.C, vn = tb ? b.vr[0] : b.vc[0];
  Val r = mkval(isint(a.dt) ? FZ_I32 : FZ_F32, FZ_ACC, a.R, N, a.vr[0], vn);
  if (c) r.vr[0] = r.vr[1] = imin(r.vr[0], c->vr[0]), r.vc[0] = r.vc[1] = imin(r.vc[0], c->vc[0]);
  r.e = e;
  if (!c) charge(g, &r);
  feat(g, FZ_FEAT_matmul);
  if (c) feat(g, FZ_FEAT_matmul_acc);
  if (a.dt == FZ_F16) feat(g, FZ_FEAT_f16);
  return r;
}

/* ---- GM access ------------------------------------------------------------------------------ */

/* The lane offset term: lane*ext through the lane variable or a subblock_idx() scalar. */
static FzAff lane_term(Gen *g, FzAff o, int ext) {
  if (g->sb >= 0 && ch(g, 0.5)) return aff_plus(o, g->sb, ext);
  return aff_plus(o, g->lane, ext);
}

static void scalar_stmt(Gen *g, int name, int op, FzAff a, FzAff b);

/* A valid extent V (of R) as a computed scalar `n = imin(..)` or
 * `n = clamp(..)` stated before the load that uses it (language.md 6). Its
 * value is exactly V in every iteration (the generator sizes the GM windows
 * from it); inside a loop it reads the loop variable, so the checker bounds a
 * range and the valid shape is known only at run time. */
static FzAff scalar_extent(Gen *g, int V, int R) {
  int n = newname(g, "n");
  const Loop *l = g->nloop ? &g->loop[g->nloop - 1] : NULL;
  FzAff x = l ? aff_plus(aff(V - l->lo), l->iv, 1) : aff(V + rng(g, 0, 3));   /* >= V */
  if (ch(g, 0.5)) {
    scalar_stmt(g, n, FZ_OP_imin, x, aff(V));
  } else {                                      /* clamp(x, lo, V) with lo <= V */
    FzStmt *st = al(g, sizeof *st);
    st->k = FZ_S_ASSIGN;
    st->dst = (int16_t)n;
    st->e = call(g, FZ_OP_clamp, 3);
    for (int i = 0; i < 3; i++) st->e->a[i].k = FZ_A_AFF;
    st->e->a[0].ix[0] = x;
    st->e->a[1].ix[0] = aff(rng(g, 0, V));
    st->e->a[2].ix[0] = aff(V);
    push(g, g->out, st);
    g->k->nstmts++;
  }
  (void)R;
  feat(g, FZ_FEAT_scalar_extent);
  return aff_plus(aff(0), n, 1);
}

enum { LD_PARTIAL = 1 };

/* load(T, [r, c], [R, C][, valid=][, space=mat]) from an input tensor of its
 * own. vr/vc < 0: full, or partial with p_partial_valid when LD_PARTIAL. A
 * vector load inside split_aiv loads this lane's block (lane*ext on the axis). */
static Val v_load(Gen *g, int dt, int R, int C, int sp, int vr, int vc, unsigned fl) {
  const FzPolicy *p = g->p;
  if (vr < 0 || vc < 0) {
    vr = R, vc = C;
    if ((fl & LD_PARTIAL) && (R > 1 || C > 1) && ch(g, p->p_partial_valid)) {
      int w = below(g, 3);
      if (R > 1 && w != 1) vr = rng(g, 1, R - 1);
      if (C > 1 && (w != 0 || R == 1)) vc = rng(g, 1, C - 1);
      if (ch(g, p->p_zero_valid)) {
        if (ch(g, 0.5)) vr = 0;
        else vc = 0;
        feat(g, FZ_FEAT_zero_valid);
      }
    }
  }
  bool partial = vr < R || vc < C;
  if (partial) feat(g, FZ_FEAT_partial_valid);
  FzAff svr = aff(vr);
  /* rows only: a value whose valid shape is partial anyway (reshape wants a static full one);
   * not in explicit kernels: an aiv_shard's split code needs a static count */
  if (vr > 0 && vr < R && !g->k->feat[FZ_FEAT_explicit_split] && ch(g, p->p_scalar_extent))
    svr = scalar_extent(g, vr, R);
  int r0 = ch(g, p->p_offset) ? rng(g, 1, 8) : 0, c0 = ch(g, p->p_offset) ? rng(g, 1, 8) : 0;
  if (r0 || c0) feat(g, FZ_FEAT_offset_window);
  FzAff ro = aff(r0), co = aff(c0);
  int span[2] = {vr, vc}, phys[2] = {R, C};
  bool lane = g->region && sp == FZ_VEC;
  if (lane) {
    int ax = g->rax, ext = ax ? C : R;
    if (ax) co = lane_term(g, co, ext);
    else ro = lane_term(g, ro, ext);
    span[ax] += ext;
    phys[ax] += ext;
    feat(g, FZ_FEAT_lane_load);
  }
  if (stride_loop(g)) {
    int ax = lane ? g->rax : 0, st = lane ? 2 * (ax ? C : R) : (ax ? C : R), s2 = 0;
    if (ax) co = advance(g, co, st, &s2);
    else ro = advance(g, ro, st, &s2);
    span[ax] += s2;
    phys[ax] += s2;
  }
  int rows = r0 + span[0], cols = c0 + span[1];
  if (!partial || !ch(g, p->p_window_past_tensor)) {
    rows = imax(rows, r0 + phys[0]), cols = imax(cols, c0 + phys[1]);
    if (ch(g, p->p_store_margin)) rows += rng(g, 1, 3);
  } else if (rows < r0 + phys[0] || cols < c0 + phys[1]) {
    feat(g, FZ_FEAT_window_past_tensor);
  }
  int t = tensor(g, 'A', dt, FZ_IN, rows, cols);
  bool kv = partial, ks = sp != FZ_VEC;
  FzExpr *e = call(g, FZ_OP_load, 3 + kv + ks);
  a_tensor(&e->a[0], t);
  a_idx(&e->a[1], ro, co);
  a_idx(&e->a[2], aff(R), aff(C));
  int i = 3;
  if (kv) {
    a_idx(&e->a[i], svr, aff(vc));
    e->a[i++].kw = FZ_KW_VALID;
  }
  if (ks) a_kind(&e->a[i], FZ_A_SPACE, sp), e->a[i].kw = FZ_KW_SPACE;
  Val r = mkval(dt, sp, R, C, vr, vc);
  r.e = e;
  r.lane = lane;
  r.join_ok = true;
  charge(g, &r);
  if (dt == FZ_F16) feat(g, FZ_FEAT_f16);
  if (dt == FZ_I32) feat(g, FZ_FEAT_i32);
  if (dt == FZ_BF16) feat(g, FZ_FEAT_bf16);
  if (dt == FZ_I8 || dt == FZ_I16) feat(g, FZ_FEAT_i8_i16);
  return r;
}

/* store(T, [r, c], v) into an output tensor of its own, sized to what is
 * written: a lane value at lane*ext on the region's axis, a striding loop's
 * iterations side by side. */
static void store_(Gen *g, Val v, bool lane0) {
  const FzPolicy *p = g->p;
  int wr = imax(v.vr[0], v.vr[1]), wc = imax(v.vc[0], v.vc[1]);
  int r0 = ch(g, p->p_offset) ? rng(g, 1, 6) : 0, c0 = ch(g, p->p_offset) ? rng(g, 1, 6) : 0;
  FzAff ro = aff(r0), co = aff(c0);
  int span[2] = {wr, wc};
  if (v.lane && !lane0) {
    int ax = g->rax, ext = ax ? v.C : v.R;
    if (ax) co = lane_term(g, co, ext);
    else ro = lane_term(g, ro, ext);
    span[ax] = ext + (ax ? wc : wr);
  }
  if (stride_loop(g)) {
    bool ln = v.lane && !lane0;
    int ax = ln ? g->rax : 0, st = ln ? 2 * (ax ? v.C : v.R) : (ax ? v.C : v.R), s2 = 0;
    if (ax) co = advance(g, co, st, &s2);
    else ro = advance(g, ro, st, &s2);
    span[ax] += s2;
  }
  int rows = r0 + span[0], cols = c0 + span[1];
  if (ch(g, p->p_store_margin)) {
    if (ch(g, 0.5)) rows += rng(g, 1, 3);
    else cols += rng(g, 1, 3);
  }
  int dir = FZ_OUT;
  if (ch(g, p->p_inout)) dir = FZ_INOUT, feat(g, FZ_FEAT_inout);
  int t = tensor(g, 'O', v.dt, dir, rows, cols);
  FzExpr *e = call(g, FZ_OP_store, 3 + lane0);
  a_tensor(&e->a[0], t);
  a_idx(&e->a[1], ro, co);
  a_expr(g, &e->a[2], v.e);
  if (lane0) a_int(&e->a[3], FZ_KW_LANE, 0), feat(g, FZ_FEAT_lane0_store);
  FzStmt *s = al(g, sizeof *s);
  s->k = FZ_S_STORE;
  s->e = e;
  push(g, g->out, s);
  g->k->nstmts++;
  if (v.sp != FZ_VEC) feat(g, FZ_FEAT_cube_store);
  if (v.sp == FZ_MAT) {
    feat(g, FZ_FEAT_mat_store);
    note_reserve(g, &v);
  }
}
static void store(Gen *g, Val v) { store_(g, v, false); }

/* A store whose offsets the caller writes (sub-slice stores). */
static void store_at(Gen *g, int t, FzAff ro, FzAff co, FzExpr *x) {
  FzExpr *e = call(g, FZ_OP_store, 3);
  a_tensor(&e->a[0], t);
  a_idx(&e->a[1], ro, co);
  a_expr(g, &e->a[2], x);
  FzStmt *s = al(g, sizeof *s);
  s->k = FZ_S_STORE;
  s->e = e;
  push(g, g->out, s);
  g->k->nstmts++;
}

/* ---- vector expressions ------------------------------------------------------------------------ */

/* Headroom in the kernel's tables for the rest of a block. */
static bool room(const Gen *g) {
  return g->k->np < FZ_MAXPARAM - 16 && g->k->nnames < FZ_MAXNAME - 64 && g->nt < MAXTILE - 64;
}

static bool row_red_ok(const Gen *g, const Val *a) { return g->region || g->brk[1] || a->C == 1; }
static bool col_red_ok(const Gen *g, const Val *a) { return g->region || g->brk[0] || a->R == 1; }
static bool same_lanes(const Val *v) { return v->vr[0] == v->vr[1] && v->vc[0] == v->vc[1]; }
/* Does a row (column) reduction of a keep a's valid rows (columns), so that it
 * can be expanded back over a? Not when a is empty the other way: [0,0]. */
static bool red_keeps(const Val *a, bool row) {
  for (int l = 0; l < 2; l++)
    if (row ? !(a->vc[l] > 0 || a->vr[l] == 0) : !(a->vr[l] > 0 || a->vc[l] == 0)) return false;
  return true;
}

/* Pick a live pool tile: dtype, shape, vector side only when vec_only; lane
 * values only inside a region, cube tiles only outside. -1: none. */
static int pick_tile(Gen *g, int dt, int R, int C, bool vec_only) {
  int cnt = 0;
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    if (!t->alive || t->v.dt != dt || t->v.R != R || t->v.C != C) continue;
    if ((vec_only || g->region) && t->v.sp != FZ_VEC) continue;
    cnt++;
  }
  if (!cnt) return -1;
  int k = below(g, cnt);
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    if (!t->alive || t->v.dt != dt || t->v.R != R || t->v.C != C) continue;
    if ((vec_only || g->region) && t->v.sp != FZ_VEC) continue;
    if (k-- == 0) return i;
  }
  return -1;
}

static Val leaf(Gen *g, int dt, int R, int C) {
  if (!room(g)) {
    int i = pick_tile(g, dt, R, C, false);
    if (i >= 0) return g->t[i].v;
    return v_full(g, R, C, isint(dt) ? 1 : 0.5, dt);
  }
  if (ch(g, g->p->p_reuse)) {
    int i = pick_tile(g, dt, R, C, false);
    if (i >= 0) return g->t[i].v;
  }
  if (ch(g, g->p->p_full)) {
    double x = isint(dt) ? rng(g, -2, 2) : scalar(g, dt, FZ_OP_adds);
    return v_full(g, R, C, x, dt);
  }
  return v_load(g, dt, R, C, FZ_VEC, -1, -1, LD_PARTIAL);
}

static const int un_f[] = {FZ_OP_relu, FZ_OP_exp, FZ_OP_neg, FZ_OP_abs, FZ_OP_sqrt, FZ_OP_recip};
static const int un_i[] = {FZ_OP_relu, FZ_OP_neg, FZ_OP_abs};
static const int bs_f[] = {FZ_OP_muls, FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins, FZ_OP_divs};
static const int bs_i[] = {FZ_OP_muls, FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins};
static const int bi_f[] = {FZ_OP_add, FZ_OP_mul, FZ_OP_sub, FZ_OP_max, FZ_OP_min, FZ_OP_div};
static const int bi_i[] = {FZ_OP_add, FZ_OP_mul, FZ_OP_sub, FZ_OP_max, FZ_OP_min};
static const int rx_f[] = {FZ_OP_row_expand_sub, FZ_OP_row_expand_mul, FZ_OP_row_expand_add,
                           FZ_OP_row_expand_div, FZ_OP_row_expand_max, FZ_OP_row_expand_min};
static const int cx_f[] = {FZ_OP_col_expand_add, FZ_OP_col_expand_mul, FZ_OP_col_expand_sub, FZ_OP_col_expand_div};
static const int rr[] = {FZ_OP_row_max, FZ_OP_row_sum, FZ_OP_row_min};
static const int cr[] = {FZ_OP_col_max, FZ_OP_col_sum, FZ_OP_col_min};
#define PICK(g, tab) (tab)[below(g, (int)(sizeof(tab) / sizeof *(tab)))]
#define PICKN(g, tab, n) (tab)[below(g, n)]

static int un_op(Gen *g, int dt) { return isint(dt) ? PICK(g, un_i) : PICK(g, un_f); }
static int bs_op(Gen *g, int dt) { return isint(dt) ? PICK(g, bs_i) : PICK(g, bs_f); }
static int bi_op(Gen *g, int dt) { return isint(dt) ? PICK(g, bi_i) : PICK(g, bi_f); }
static int rx_op(Gen *g, int dt) { return PICKN(g, rx_f, isint(dt) ? 3 : 6); }
static int cx_op(Gen *g, int dt) { return PICKN(g, cx_f, isint(dt) ? 3 : 4); }

/* Name a value that is about to be used twice. */
static Val named(Gen *g, Val v) { return v.e->op == FZ_OP_VAR ? v : bind(g, v, "t"); }

/* A [R,1] vector with a's valid rows (per lane): a row reduction of a (when
 * the kernel may reduce rows), a load, full(), or a pool tile. */
static bool rowvec(Gen *g, Val *a, Val *out) {
  int opts[4], n = 0;
  bool eq = same_lanes(a);
  if (row_red_ok(g, a) && red_keeps(a, true)) opts[n++] = 0;
  if (eq && room(g)) opts[n++] = 1;
  if (eq && a->vr[0] == a->R) opts[n++] = 2;
  if (!n) return false;
  switch (opts[below(g, n)]) {
  case 0:
    *a = named(g, *a);
    *out = v_red(g, PICK(g, rr), *a);
    return true;
  case 1: {
    int i = -1;
    if (ch(g, g->p->p_reuse)) {
      i = pick_tile(g, a->dt, a->R, 1, true);
      if (i >= 0 && (g->t[i].v.vr[0] != a->vr[0] || !same_lanes(&g->t[i].v))) i = -1;
    }
    *out = i >= 0 ? g->t[i].v : v_load(g, a->dt, a->R, 1, FZ_VEC, a->vr[0], 1, 0);
    return true;
  }
  default:
    *out = v_full(g, a->R, 1, isint(a->dt) ? rng(g, -2, 2) : scalar(g, a->dt, FZ_OP_adds), a->dt);
    return true;
  }
}

static bool colvec(Gen *g, Val *a, Val *out) {
  int opts[3], n = 0;
  bool eq = same_lanes(a);
  if (col_red_ok(g, a) && red_keeps(a, false)) opts[n++] = 0;
  if (eq && room(g)) opts[n++] = 1;
  if (eq && a->vc[0] == a->C) opts[n++] = 2;
  if (!n) return false;
  switch (opts[below(g, n)]) {
  case 0:
    *a = named(g, *a);
    *out = v_red(g, PICK(g, cr), *a);
    return true;
  case 1:
    *out = v_load(g, a->dt, 1, a->C, FZ_VEC, 1, a->vc[0], 0);
    return true;
  default:
    *out = v_full(g, 1, a->C, isint(a->dt) ? rng(g, -2, 2) : scalar(g, a->dt, FZ_OP_adds), a->dt);
    return true;
  }
}

/* Wrap x in a row or column expansion when a matching vector can be made. */
static Val expand(Gen *g, Val x) {
  Val v;
  bool row = ch(g, 0.6);
  if (row && x.C > 1 && rowvec(g, &x, &v)) return v_exp2(g, rx_op(g, x.dt), x, v, true);
  if (!row && x.R > 1 && colvec(g, &x, &v)) return v_exp2(g, cx_op(g, x.dt), x, v, false);
  return x;
}

static Val vexpr(Gen *g, int dt, int R, int C, int d);
static Val v_move(Gen *g, Val x, int sp);

/* One random vector step applied to x (shape kept). */
static Val vstep(Gen *g, Val x) {
  switch (below(g, 5)) {
  case 0: return v_un(g, un_op(g, x.dt), x);
  case 1: {
    int op = bs_op(g, x.dt);
    return v_bins(g, op, x, scalar(g, x.dt, op));
  }
  case 2: {
    Val y = vexpr(g, x.dt, x.R, x.C, 1);
    return ch(g, 0.5) ? v_bin(g, bi_op(g, x.dt), x, y) : v_bin(g, bi_op(g, x.dt), y, x);
  }
  case 3: return expand(g, x);
  default:
    /* the softmax idiom: exp(row_expand_sub(x, row_max(x))) */
    if (!isint(x.dt) && x.C > 1 && row_red_ok(g, &x) && red_keeps(&x, true)) {
      x = named(g, x);
      Val m = v_red(g, FZ_OP_row_max, x);
      return v_un(g, FZ_OP_exp, v_exp2(g, FZ_OP_row_expand_sub, x, m, true));
    }
    return v_un(g, un_op(g, x.dt), x);
  }
}

static Val vexpr(Gen *g, int dt, int R, int C, int d) {
  if (d >= g->p->max_expr_depth || !vec_ok(g, 2 * vbytes(dt, R, C)) || !room(g)) return leaf(g, dt, R, C);
  Val x;
  if (ch(g, g->p->p_cast)) {
    int from = dt != FZ_F32 ? FZ_F32 : ch(g, g->p->p_narrow) ? narrow(g, true, false) : ch(g, 0.7) ? FZ_F16 : FZ_I32;
    x = v_cast(g, vexpr(g, from, R, C, d + 1), dt);
  } else {
    switch (below(g, 4)) {
    case 0: x = leaf(g, dt, R, C); break;
    case 1: {
      Val e = vexpr(g, dt, R, C, d + 1);   /* choices in a fixed order: docs/fuzzing.md, "Byte seeds" */
      x = v_un(g, un_op(g, dt), e);
      break;
    }
    case 2: {
      int op = bs_op(g, dt);
      double sc = scalar(g, dt, op);
      x = v_bins(g, op, vexpr(g, dt, R, C, d + 1), sc);
      break;
    }
    default: {
      Val a = vexpr(g, dt, R, C, d + 1), b = vexpr(g, dt, R, C, d + 1);
      x = v_bin(g, bi_op(g, dt), a, b);
    }
    }
  }
  if (ch(g, g->p->p_expand)) x = expand(g, x);
  if (d > 0 && ch(g, g->p->p_bind * 0.5)) x = bind(g, x, "t");
  return x;
}

/* steps vector steps from x (a cube x crosses to the vector side first). */
static Val vchain(Gen *g, Val x, int steps) {
  if (x.sp != FZ_VEC && steps < 1) steps = 1;
  for (int i = 0; i < steps; i++) {
    if (!vec_ok(g, 2 * vbytes(x.dt, x.R, x.C))) {
      if (x.sp != FZ_VEC) x = v_un(g, un_op(g, x.dt), x);
      break;
    }
    x = vstep(g, x);
    if (i + 1 < steps && ch(g, g->p->p_bind)) x = bind(g, x, "y");
  }
  return x;
}

/* Store row/column reductions of x where this kernel may make them. */
static void reduce_stores(Gen *g, Val x) {
  bool r = x.C > 1 && row_red_ok(g, &x), c = x.R > 1 && col_red_ok(g, &x);
  if (!r && !c) return;
  x = named(g, x);
  int n = rng(g, 1, 3);
  for (int i = 0; i < n; i++) {
    bool row = r && (!c || ch(g, 0.5));
    Val v = v_red(g, row ? PICK(g, rr) : PICK(g, cr), x);
    store(g, ch(g, g->p->p_bind) ? bind(g, v, row ? "r" : "c") : v);
  }
}

/* a5's lane stride for extent E: half the 16-element box (split.md 1.1a) */
static int a5_half(int E) { return (E + 15) / 16 * 16 / 2; }

/* ---- sub-slices along an axis ----------------------------------------------------------------- */

/* Store blocks of h rows (axis 0) or columns (axis 1) of t, each inside one
 * lane's half: h divides S = ceil(E/2), so no block straddles S. */
static void subslice_stores(Gen *g, Val t, int ax) {
  int E = ax ? t.C : t.R, S = g->k->target == 1 ? imin(a5_half(E), E) : (E + 1) / 2;   /* split.md 1.1a */
  int divs[16], nd = 0;
  bool even = g->py && ax == g->py_ax;          /* a PyPTO share kernel halves these blocks too, and */
  bool box = g->py && ax == 1;                  /* keeps a vector row (and its half) a whole 32 bytes */
  for (int h = S; h >= 1 && nd < 16; h--)
    if (S % h == 0 && (h > 1 || S == 1) && (!even || h % 2 == 0) && (!box || h % 32 == 0)) divs[nd++] = h;
  if (!nd) return;
  int h = divs[below(g, nd)], nb = E / h;
  if (nb < 1) return;
  t = named(g, t);
  int R = ax ? t.R : h, C = ax ? h : t.C;
  int rows = t.R, cols = t.C;
  if (ch(g, g->p->p_store_margin)) rows += rng(g, 0, 2), cols += rng(g, 0, 2);
  int T = tensor(g, 'O', t.dt, FZ_OUT, rows, cols);
  bool loop = nb >= 2 && ch(g, g->p->p_subslice_loop) && g->nloop < MAXLOOP;
  bool op = ch(g, g->p->p_subslice_op);
  int uop = un_op(g, t.dt);
  double sc = scalar(g, t.dt, FZ_OP_muls);
  FzBody *outer = NULL;
  FzAff o = aff(0);
  if (loop) {
    outer = open_loop(g, false, 0, nb, 1);
    o = aff_plus(o, g->loop[g->nloop - 1].iv, h);
  } else {
    o = aff(below(g, nb) * h);
  }
  FzExpr *s = call(g, FZ_OP_slice, 3);
  a_expr(g, &s->a[0], t.e);
  a_idx(&s->a[1], ax ? aff(0) : o, ax ? o : aff(0));
  a_idx(&s->a[2], aff(R), aff(C));
  g->vec += vbytes(t.dt, R, C);
  g->cb[0] += trips(g) * vbytes(t.dt, R, C);
  FzExpr *x = s;
  if (op) {
    bool scal = ch(g, 0.5);
    x = call(g, scal ? FZ_OP_muls : uop, scal ? 2 : 1);
    a_expr(g, &x->a[0], s);
    if (scal) a_num(&x->a[1], sc);
    g->vec += vbytes(t.dt, R, C);
    g->cb[0] += trips(g) * vbytes(t.dt, R, C);
  }
  store_at(g, T, ax ? aff(0) : o, ax ? o : aff(0), x);
  if (loop) close_loop(g, outer);
  feat(g, ax ? FZ_FEAT_subslice_cols : FZ_FEAT_strided_subslice_store);
}

/* An extent i*k + c of a striding loop l that stays within 1..E over the
 * loop (k <= 4); its largest value in *vmax. False when the loop is too long. */
static bool loop_extent(Gen *g, const Loop *l, int E, FzAff *x, int *vmax) {
  int span = l->step * (l->trips - 1), vmin = rng(g, 1, E - 1), kk = imin((E - vmin) / span, 4);
  if (kk < 1) return false;
  *x = aff_plus(aff(vmin - kk * l->lo), l->iv, kk);
  *vmax = vmin + kk * span;
  return true;
}

/* A load in a striding loop whose valid columns grow with the loop variable:
 * valid=[R, i*k + c], within 1..C over the loop. The value records the
 * largest extent (what a store must have room for). */
static bool v_load_lv(Gen *g, int dt, int R, int C, Val *out) {
  const Loop *l = stride_loop(g);
  if (!l || C < 2 || l->trips < 2 || g->region) return false;
  FzAff vc;
  int vmax, s2 = 0;
  if (!loop_extent(g, l, C, &vc, &vmax)) return false;
  FzAff ro = advance(g, aff(0), R, &s2);
  int t = tensor(g, 'A', dt, FZ_IN, R + s2, vmax + (ch(g, g->p->p_store_margin) ? rng(g, 1, 3) : 0));
  FzExpr *e = call(g, FZ_OP_load, 4);
  a_tensor(&e->a[0], t);
  a_idx(&e->a[1], ro, aff(0));
  a_idx(&e->a[2], aff(R), aff(C));
  a_idx(&e->a[3], aff(R), vc), e->a[3].kw = FZ_KW_VALID;
  *out = mkval(dt, FZ_VEC, R, C, R, vmax);
  out->e = e;
  charge(g, out);
  feat(g, FZ_FEAT_loop_valid);
  feat(g, FZ_FEAT_partial_valid);
  return true;
}

/* set_validshape(x, i*k + c, vc) in a striding loop: x's valid rows shrink
 * to a count that changes every iteration, known only at run time (DESIGN
 * 14.11); the value records the largest (what a store must have room for). */
static bool v_setvalid(Gen *g, Val *x) {
  const Loop *l = stride_loop(g);
  int V = x->vr[0];
  if (!l || x->sp != FZ_VEC || V < 2 || x->vc[0] < 0 || l->trips < 2 || g->region || x->vr[1] != V) return false;
  FzAff vr;
  int vmax;
  if (!loop_extent(g, l, V, &vr, &vmax)) return false;
  FzExpr *e = call(g, FZ_OP_set_validshape, 3);
  a_expr(g, &e->a[0], x->e);
  e->a[1].k = e->a[2].k = FZ_A_AFF;
  e->a[1].ix[0] = vr;
  e->a[2].ix[0] = aff(x->vc[0]);
  x->e = e;
  x->vr[0] = x->vr[1] = vmax;
  feat(g, FZ_FEAT_set_validshape);
  return true;
}

/* transpose(x) of a vector value with two real axes (an [R,1] <-> [1,R]
 * transpose is a reshape in PTO-AS, which wants a full tile). Outside
 * split_aiv only: under a split the axis moves, so only element-wise steps
 * on the value itself follow (another operand would be halved on the other
 * axis: E-SPLIT-AXIS). */
static bool v_transpose(Gen *g, Val *x) {
  if (g->region || x->sp != FZ_VEC || x->R < 2 || x->C < 2 || !vec_ok(g, vbytes(x->dt, x->C, x->R))) return false;
  FzExpr *e = call(g, FZ_OP_transpose, 1);
  a_expr(g, &e->a[0], x->e);
  Val r = vres(g, e, x->dt, x->C, x->R);
  memcpy(r.vr, x->vc, sizeof r.vr), memcpy(r.vc, x->vr, sizeof r.vc);
  charge(g, &r);
  *x = r;
  feat(g, FZ_FEAT_transpose);
  return true;
}

/* reshape(x, [R2, C2]) of a fully valid vector value, to shapes each split
 * keeps as lane bands (docs/language.md 9.3): [1,C] -> [2,C/2] (whole under
 * up_down, a lane's columns become its row under left_right); [R,C], R even,
 * -> [2R,C/2] or [R/2,2C] (R/2 even), an up_down row band, only where the
 * kernel may break left_right (a column band of several rows is no run). Rows
 * of whole 32-byte units, so PTO-AS's treshape sees the same bytes. */
static bool v_reshape(Gen *g, Val *x) {
  int R = x->R, C = x->C, e = esize(x->dt), R2 = 0, C2 = 0;
  if (g->region || x->sp != FZ_VEC) return false;
  for (int l = 0; l < 2; l++)
    if (x->vr[l] != R || x->vc[l] != C) return false;
  if ((C * e) % 32) return false;
  if (R == 1 && C % 2 == 0 && (C / 2 * e) % 32 == 0) R2 = 2, C2 = C / 2;
  else if (R > 1 && R % 2 == 0 && g->brk[1]) {
    bool wide = R % 4 == 0 && 2 * C <= 512, tall = C % 2 == 0 && (C / 2 * e) % 32 == 0 &&
                2 * R <= 512;
    if (wide && (!tall || ch(g, 0.5))) R2 = R / 2, C2 = 2 * C;
    else if (tall) R2 = 2 * R, C2 = C / 2;
  }
  if (!R2) return false;
  /* a5's lanes are halves of 16-element boxes (split.md 1.1a): a lane's band of the
   * source is seldom its band of the result, so the claim stays with a2a3's */
  if (g->k->target == 1) refuse(g, FZ_V_UD | FZ_V_LR, "reshape-a5-box");
  FzExpr *ex = call(g, FZ_OP_reshape, 2);
  a_expr(g, &ex->a[0], x->e);
  a_idx(&ex->a[1], aff(R2), aff(C2));
  Val r = vres(g, ex, x->dt, R2, C2);
  charge(g, &r);
  *x = r;
  feat(g, FZ_FEAT_reshape);
  return true;
}

/* Before a store: a transpose or a reshape (p_transpose, p_reshape; not
 * both: a reshape of a transposed half tile is no lane band under up_down),
 * then perhaps one element-wise step of the value alone. */
static Val move_axes(Gen *g, Val x) {
  bool t = ch(g, g->p->p_transpose) && v_transpose(g, &x);
  bool r = !t && ch(g, g->p->p_reshape) && v_reshape(g, &x);
  if ((t || r) && ch(g, 0.5)) x = v_un(g, un_op(g, x.dt), x);
  return x;
}

/* slice of a cube tile: box-aligned (16 rows x the box columns) unless
 * p_cube_slice_unaligned; a view on the cube side. */
static bool cube_slice(Gen *g, Val s, Val *out) {
  int bc = s.sp == FZ_ACC ? 16 : 32 / esize(s.dt), r, h, c, w;
  if (ch(g, g->p->p_cube_slice_unaligned)) {
    h = rng(g, 1, s.R), r = rng(g, 0, s.R - h), w = rng(g, 1, s.C), c = rng(g, 0, s.C - w);
  } else {
    if (s.R < 16 || s.C < bc) return false;
    int nr = s.R / 16, nc = s.C / bc, hb = rng(g, 1, nr), wb = rng(g, 1, nc);
    h = 16 * hb, r = 16 * rng(g, 0, nr - hb), w = bc * wb, c = bc * rng(g, 0, nc - wb);
  }
  FzExpr *e = call(g, FZ_OP_slice, 3);
  a_expr(g, &e->a[0], s.e);
  a_idx(&e->a[1], aff(r), aff(c));
  a_idx(&e->a[2], aff(h), aff(w));
  *out = mkval(s.dt, s.sp, h, w, imin(h, clampi(s.vr[0] - r, 0, h)), imin(w, clampi(s.vc[0] - c, 0, w)));
  out->e = e;
  feat(g, FZ_FEAT_cube_slice);
  return true;
}

/* ---- blocks ---------------------------------------------------------------------------------- */

static bool wrap_ok(Gen *g) { return !g->nloop && ch(g, g->p->p_loop_wrap); }

static void blk_vector(Gen *g) {
  int dt = pick_dt(g, true, false), R = dim(g, false, 0), C = dim(g, true, 0);
  fit(g, dt, &R, &C, 4, 0);
  FzBody *outer = wrap_ok(g) ? open_rand_loop(g, true) : NULL;
  Val x;
  if (outer && ch(g, g->p->p_loop_valid) && v_load_lv(g, dt, R, C, &x)) {
    /* element-wise steps only: the valid columns change every iteration */
    for (int i = rng(g, 1, 2); i > 0; i--) {
      int op = bs_op(g, dt);
      x = ch(g, 0.5) ? v_un(g, un_op(g, dt), x) : v_bins(g, op, x, scalar(g, dt, op));
    }
    store(g, x);
    close_loop(g, outer);
    return;
  }
  x = vexpr(g, dt, R, C, 0);
  if (ch(g, 0.5)) x = vchain(g, x, rng(g, 1, 2));
  if (ch(g, g->p->p_bind)) x = bind(g, x, "x");
  if (ch(g, 0.3)) reduce_stores(g, x);
  store(g, move_axes(g, x));
  if (outer) close_loop(g, outer);
}

/* A right operand [K,N] ([N,K] with trans_b) whose valid extent along k
 * covers kv (the left operand's valid columns). */
static Val rhs_load(Gen *g, int dt, int K, int N, bool tb, int kv, bool full_n) {
  int vk = K, vn = N;
  if (ch(g, g->p->p_partial_valid)) {
    if (K > kv && ch(g, 0.5)) vk = rng(g, kv, K - 1);
    else if (N > 1 && !full_n && g->brk[1]) vn = rng(g, 1, N - 1);   /* left_right refuses narrowed columns */
  }
  return tb ? v_load(g, dt, N, K, FZ_MAT, vn, vk, 0) : v_load(g, dt, K, N, FZ_MAT, vk, vn, 0);
}

/* Matmul on the cube of two mat loads; the acc result goes through vector ops (C2V). */
static void blk_c2v(Gen *g) {
  int dt = pick_dt(g, true, true), M = dim(g, false, g->brk[0] ? 0 : D_NOUNIT), K = dim(g, true, D_NOUNIT),
      N = dim(g, true, g->brk[1] ? 0 : D_NOUNIT);   /* a unit extent is a whole tile: no C2V under its split */
  fit_mm(g, dt, &M, &K, &N, 3, 0);
  bool tb = ch(g, g->p->p_trans_b);
  FzBody *outer = wrap_ok(g) ? open_rand_loop(g, true) : NULL;
  /* ragged rows as the real tests write them (127 of 128 is code 3; 13 of 16
   * needs rebalancing under up_down, DESIGN 14.1-2) */
  int rv = -1;
  if (M >= 4 && ch(g, g->p->p_ragged_valid)) {
    rv = ch(g, 0.5) ? M - 1 : rng(g, M / 2 + 1, M - 2);
    feat(g, FZ_FEAT_ragged_valid);
  }
  Val a = v_load(g, dt, M, K, FZ_MAT, rv, rv < 0 ? -1 : K, LD_PARTIAL);
  if (ch(g, g->p->p_mat_store)) {
    a = bind(g, a, "a");
    store(g, a);
  }
  Val b = rhs_load(g, dt, K, N, tb, a.vc[0], false);
  Val s = bind(g, v_mm(g, NULL, a, b, tb), "s");
  if (ch(g, g->p->p_cube_store)) store(g, s);
  Val cs;
  if (ch(g, g->p->p_cube_slice) && cube_slice(g, s, &cs)) {
    cs = bind(g, cs, "cs");
    store(g, ch(g, 0.5) ? cs : vchain(g, cs, rng(g, 1, 2)));
  }
  Val y = vchain(g, s, rng(g, 1, 3));
  if (outer && ch(g, g->p->p_set_validshape) && v_setvalid(g, &y)) {
    if (ch(g, 0.5)) y = v_un(g, un_op(g, y.dt), y);   /* element-wise only: the valid rows change */
    store(g, y);
    close_loop(g, outer);
    return;
  }
  if (ch(g, 0.25)) reduce_stores(g, y);
  store(g, move_axes(g, y));
  if (outer) close_loop(g, outer);
}

/* A vector operand for the cube: even extents (or 1), so either split mode
 * can hand it over in two equal halves. */
static Val cube_operand(Gen *g, int dt, int R, int C) {
  Val x;
  if (ch(g, 0.5)) {
    int n = rng(g, 1, 2);
    x = vchain(g, v_load(g, dt, R, C, FZ_VEC, -1, -1, LD_PARTIAL), n);
  } else {
    x = vexpr(g, dt, R, C, 0);
  }
  return x;
}

static void blk_v2c(Gen *g) {
  /* a whole (extent-1) vector tile cannot cross to the cube under a split (DESIGN 14.5) */
  int dt = pick_dt(g, true, true), M = dim(g, false, D_EVEN | (g->brk[0] ? 0 : D_NOUNIT)),
      K = dim(g, true, D_EVEN | D_NOUNIT), N = dim(g, true, D_EVEN | (g->brk[1] ? 0 : D_NOUNIT));
  fit_mm(g, dt, &M, &K, &N, 4, D_EVEN);
  bool tb = ch(g, g->p->p_trans_b);
  bool cast16 = dt == FZ_F32 && ch(g, g->p->p_f16 * g->p->p_cast_f16_pv * 2);
  /* up_down: lane 0's rows partial, lane 1's empty (the join's valid shape is lane 0's) */
  Val x = M >= 4 && ch(g, g->p->p_v2c_partial) ? v_load(g, dt, M, K, FZ_VEC, rng(g, 1, M / 2 - 1), K, 0)
                                                : cube_operand(g, dt, M, K);
  int rdt = dt;
  if (cast16) x = v_cast(g, x, FZ_F16), rdt = FZ_F16;
  x = bind(g, x, "x");
  Val y;
  if (ch(g, 0.5)) {
    y = tb ? cube_operand(g, dt, N, K) : cube_operand(g, dt, K, N);
    if (cast16) y = v_cast(g, y, FZ_F16);
    int kv = tb ? y.vc[0] : y.vr[0];
    if (kv < x.vc[0]) y = rhs_load(g, rdt, K, N, tb, x.vc[0], false);
  } else {
    y = rhs_load(g, rdt, K, N, tb, x.vc[0], false);
  }
  if (!g->nloop && !g->region && ch(g, g->p->p_v2c_across_loop)) {
    /* x's cube copy read in a loop that moves to the cube itself and after
     * it: the loop's frees would release its pipe slot first */
    y = named(g, y);                            /* one copy of the operand, not three */
    Val m = bind(g, v_move(g, x, FZ_MAT), "m");
    FzBody *outer = open_loop(g, true, 0, rng(g, 2, 3), 1);
    Val x2 = bind(g, v_load(g, rdt, M, K, FZ_VEC, x.vr[0], x.vc[0], 0), "x");
    store(g, v_bin(g, FZ_OP_add, v_mm(g, NULL, x2, y, tb), v_mm(g, NULL, m, y, tb)));
    close_loop(g, outer);
    x = m;
  }
  Val c = bind(g, v_mm(g, NULL, x, y, tb), "c");
  if (ch(g, 0.5)) {
    store(g, vchain(g, c, rng(g, 1, 2)));
    if (ch(g, g->p->p_cube_store)) store(g, c);
  } else {
    store(g, c);
  }
}

/* cube -> vector -> cube -> vector. */
static void blk_both(Gen *g) {
  int dt = pick_dt(g, false, true), M = dim(g, false, D_EVEN), K = dim(g, true, D_NOUNIT), N = dim(g, true, D_EVEN),
      N2 = dim(g, true, 0);
  fit_mm(g, dt, &M, &K, &N, 3, D_EVEN);
  fit_mm(g, FZ_F32, &M, &N, &N2, 3, D_EVEN);
  Val a = v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
  Val w = rhs_load(g, dt, K, N, false, a.vc[0], false);
  Val h = bind(g, v_mm(g, NULL, a, w, false), "h");
  Val g1 = bind(g, vchain(g, h, rng(g, 1, 2)), "g");
  int rdt = FZ_F32;
  if (dt == FZ_F16 && ch(g, g->p->p_cast_f16_pv)) g1 = bind(g, v_cast(g, g1, FZ_F16), "g"), rdt = FZ_F16;
  bool tb = ch(g, g->p->p_trans_b);
  Val w2 = rhs_load(g, rdt, N, N2, tb, g1.vc[0], false);
  Val h2 = bind(g, v_mm(g, NULL, g1, w2, tb), "h");
  store(g, vchain(g, h2, rng(g, 1, 2)));
  if (ch(g, g->p->p_cube_store)) store(g, h);
}

/* A loop carrying transfers: x_i on the cube, through the vector side (and
 * back into a second matmul), with a vector running sum, a running row max or
 * a matmul_acc accumulator carried across iterations. */
static void blk_loop(Gen *g) {
  int dt = pick_dt(g, false, true), M = dim(g, false, D_EVEN), K = dim(g, true, D_NOUNIT), N = dim(g, true, D_EVEN);
  fit_mm(g, dt, &M, &K, &N, 6, D_EVEN);
  bool both = ch(g, g->p->p_both_in_loop), macc = ch(g, g->p->p_matmul_acc);
  bool rmax = N > 1 && g->brk[1] && ch(g, g->p->p_running_max);
  Val w = v_load(g, dt, K, N, FZ_MAT, -1, -1, 0);
  w = bind(g, w, "w");
  Val w2 = {0};
  if (both) {
    w2 = bind(g, v_load(g, dt == FZ_F16 ? FZ_F16 : FZ_F32, N, N, FZ_MAT, -1, -1, 0), "w");
    if (g->acc + fbytes(FZ_F32, M, N, true) > g->p->acc_budget) both = false;
  }
  Val run0 = v_full(g, M, N, 0, FZ_F32), mx0 = {0};
  Val run = bind(g, run0, "run");
  Val mx = {0};
  if (rmax) mx0 = v_full(g, M, 1, -1000, FZ_F32), mx = bind(g, mx0, "mx");
  /* a PyPTO share kernel fits the accumulators' valid shapes to what they add
   * (py_valid_full): no leaf may read them before that */
  Tile *hide[2] = {g->py ? tile_of(g, &run) : NULL, g->py && rmax ? tile_of(g, &mx) : NULL};
  for (int i = 0; i < 2; i++)
    if (hide[i]) hide[i]->alive = false;
  Val acc = {0};
  int trips = rng(g, g->p->loop_trips_min, g->p->loop_trips_max);
  FzBody *outer;
  int xr = tensor(g, 'A', dt, FZ_IN, (trips + (macc ? 1 : 0)) * M, K);
  if (macc) {
    /* acc = matmul(x_0, w); for i in range(1, trips + 1) acc = matmul_acc(acc, x_i, w) */
    FzExpr *e = call(g, FZ_OP_load, 4);
    a_tensor(&e->a[0], xr);
    a_idx(&e->a[1], aff(0), aff(0));
    a_idx(&e->a[2], aff(M), aff(K));
    a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
    Val x0 = mkval(dt, FZ_MAT, M, K, M, K);
    x0.e = e;
    charge(g, &x0);
    acc = bind(g, v_mm(g, NULL, x0, w, false), "acc");
    outer = open_loop(g, false, 1, trips, 1);
  } else {
    outer = open_loop(g, false, 0, trips, 1);
  }
  int iv = g->loop[g->nloop - 1].iv;
  FzExpr *e = call(g, FZ_OP_load, 4);
  a_tensor(&e->a[0], xr);
  a_idx(&e->a[1], aff_plus(aff(0), iv, M), aff(0));
  a_idx(&e->a[2], aff(M), aff(K));
  a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
  Val x = mkval(dt, FZ_MAT, M, K, M, K);
  x.e = e;
  charge(g, &x);
  x = bind(g, x, "x");
  Val h;
  if (macc) h = acc = reassign(g, acc, v_mm(g, &acc, x, w, false));
  else h = bind(g, v_mm(g, NULL, x, w, false), "h");
  Val y = bind(g, vchain(g, h, rng(g, 1, 2)), "y");
  if (both) {
    Val yo = y;
    if (w2.dt == FZ_F16) yo = bind(g, v_cast(g, y, FZ_F16), "y");
    Val h2 = bind(g, v_mm(g, NULL, yo, w2, false), "h");
    y = bind(g, vchain(g, h2, 1), "y");
  }
  for (int i = 0; i < 2; i++)
    if (hide[i]) hide[i]->alive = true;
  py_valid_full(g, run0.e, &run, &y);
  run = reassign(g, run, v_bin(g, FZ_OP_add, run, y));
  if (rmax) {
    Val r = v_red(g, FZ_OP_row_max, y);
    py_valid_full(g, mx0.e, &mx, &r);
    mx = reassign(g, mx, v_bin(g, FZ_OP_max, mx, r));
  }
  /* y_i side by side in O: rows i*M (i - 1 for the matmul_acc loop) */
  int orow = tensor(g, 'O', FZ_F32, FZ_OUT, trips * M, N);
  store_at(g, orow, aff_plus(aff(macc ? -M : 0), iv, M), aff(0), y.e);
  close_loop(g, outer);
  store(g, run);
  if (rmax) store(g, mx);
  if (macc) store(g, ch(g, 0.5) ? acc : vchain(g, acc, 1));
}

/* Strided row-block stores of a [R,1] statistic or a tile. */
static void stats_store(Gen *g, Val v) {
  if (v.R >= 2 && ch(g, g->p->p_strided_stats)) subslice_stores(g, v, 0);
  else store(g, v);
}

/* Online softmax: one step, or the running max / sum / output across key blocks. */
static void blk_softmax(Gen *g) {
  feat(g, FZ_FEAT_online_softmax);
  int dt = ch(g, g->p->p_f16 * 2) ? FZ_F16 : FZ_F32;
  if (dt == FZ_F16) feat(g, FZ_FEAT_f16);
  int M = dim(g, false, D_EVEN | D_NOUNIT), D = dim(g, true, D_NOUNIT), Nk = dim(g, true, D_EVEN | D_NOUNIT),
      D2 = dim(g, true, D_NOUNIT);
  fit_mm(g, dt, &M, &D, &Nk, 6, D_EVEN);
  fit_mm(g, dt, &M, &Nk, &D2, 4, D_EVEN);
  double scale = ch(g, 0.5) ? 0.125 : 0.0883883;
  bool loop = ch(g, g->p->p_softmax_loop);
  /* one step: q may have a trimmed tail block (valid rows < M) and the keys a
   * partial block; the loop keeps whole blocks so the carried state is whole */
  Val q = bind(g, v_load(g, dt, M, D, FZ_MAT, -1, -1, loop ? 0 : LD_PARTIAL), "q");
  if (!loop) {
    int nk = ch(g, g->p->p_partial_valid) ? rng(g, 1, Nk) : Nk;
    Val k = v_load(g, dt, Nk, D, FZ_MAT, nk, D, 0);
    Val s = bind(g, v_mm(g, NULL, q, bind(g, k, "k"), true), "s");
    Val sc = bind(g, v_bins(g, FZ_OP_muls, s, scale), "sc");
    Val m = bind(g, v_red(g, FZ_OP_row_max, sc), "m");
    Val p = bind(g, v_un(g, FZ_OP_exp, v_exp2(g, FZ_OP_row_expand_sub, sc, m, true)), "p");
    Val l = bind(g, v_red(g, FZ_OP_row_sum, p), "l");
    Val pv = dt == FZ_F16 ? bind(g, v_cast(g, p, FZ_F16), "ph") : p;
    Val v = bind(g, v_load(g, dt, Nk, D2, FZ_MAT, -1, -1, 0), "v");
    Val o = bind(g, v_mm(g, NULL, pv, v, false), "o");
    store(g, v_exp2(g, FZ_OP_row_expand_div, o, l, true));
    stats_store(g, m);
    stats_store(g, l);
    return;
  }
  feat(g, FZ_FEAT_online_softmax_loop);
  Val m = bind(g, v_full(g, M, 1, -1000, FZ_F32), "m");
  Val l = bind(g, v_full(g, M, 1, 0, FZ_F32), "l");
  Val o = bind(g, v_full(g, M, D2, 0, FZ_F32), "o");
  int trips = rng(g, g->p->loop_trips_min, g->p->loop_trips_max);
  int kt = tensor(g, 'A', dt, FZ_IN, trips * Nk, D), vt = tensor(g, 'A', dt, FZ_IN, trips * Nk, D2);
  FzBody *outer = open_loop(g, false, 0, trips, 1);
  int iv = g->loop[g->nloop - 1].iv;
  Val kv[2];
  for (int i = 0; i < 2; i++) {
    FzExpr *e = call(g, FZ_OP_load, 4);
    a_tensor(&e->a[0], i ? vt : kt);
    a_idx(&e->a[1], aff_plus(aff(0), iv, Nk), aff(0));
    a_idx(&e->a[2], aff(Nk), aff(i ? D2 : D));
    a_kind(&e->a[3], FZ_A_SPACE, FZ_MAT), e->a[3].kw = FZ_KW_SPACE;
    kv[i] = mkval(dt, FZ_MAT, Nk, i ? D2 : D, Nk, i ? D2 : D);
    kv[i].e = e;
    charge(g, &kv[i]);
    kv[i] = bind(g, kv[i], i ? "v" : "k");
  }
  Val s = bind(g, v_bins(g, FZ_OP_muls, v_mm(g, NULL, q, kv[0], true), scale), "s");
  Val mn = bind(g, v_bin(g, FZ_OP_max, m, v_red(g, FZ_OP_row_max, s)), "mn");
  Val p = bind(g, v_un(g, FZ_OP_exp, v_exp2(g, FZ_OP_row_expand_sub, s, mn, true)), "p");
  Val alpha = bind(g, v_un(g, FZ_OP_exp, v_bin(g, FZ_OP_sub, m, mn)), "al");
  Val ls = v_red(g, FZ_OP_row_sum, p);
  l = reassign(g, l, v_bin(g, FZ_OP_add, v_bin(g, FZ_OP_mul, l, alpha), ls));
  Val pv = dt == FZ_F16 ? v_cast(g, p, FZ_F16) : p;
  Val om = v_mm(g, NULL, pv, kv[1], false);
  o = reassign(g, o, v_bin(g, FZ_OP_add, v_exp2(g, FZ_OP_row_expand_mul, o, alpha, true), om));
  m = reassign(g, m, mn);
  close_loop(g, outer);
  store(g, v_exp2(g, FZ_OP_row_expand_div, o, l, true));
  stats_store(g, m);
  if (ch(g, 0.5)) stats_store(g, l);
}

/* Logical pages -> physical pages: permuted, shared, spare pages. */
static int page_table(Gen *g, int P, int32_t *tbl, bool *shared) {
  int Pp = P + (ch(g, 0.3) ? rng(g, 1, 2) : 0);
  int32_t ids[40];
  for (int i = 0; i < Pp; i++) ids[i] = i;
  if (ch(g, g->p->p_gather_permuted)) {
    for (int i = Pp - 1; i > 0; i--) {
      int j = below(g, i + 1);
      int32_t t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    feat(g, FZ_FEAT_gather_permuted);
  }
  memcpy(tbl, ids, (size_t)P * sizeof *tbl);
  *shared = false;
  if (P >= 2 && ch(g, g->p->p_gather_shared_page)) {
    int a = below(g, P), b = below(g, P - 1);
    if (b >= a) b++;
    tbl[a] = tbl[b];
    *shared = true;
    feat(g, FZ_FEAT_gather_shared_page);
  }
  return Pp;
}

/* The gather source: block size *B, P logical pages (the last one perhaps
 * partly filled: *L tokens), the page table, and the source's rows (the last
 * physical page perhaps partly present). */
static int gather_source(Gen *g, int pmax, int *B, int *P, int32_t *tbl, int *L) {
  const FzPolicy *p = g->p;
  *B = rng(g, p->gather_block_min, p->gather_block_max), *P = rng(g, 1, imin(p->gather_pages_max, pmax));
  bool plast = *B > 1 && ch(g, p->p_gather_partial_last_page);
  *L = plast ? (*P - 1) * *B + rng(g, 1, *B - 1) : *P * *B;
  bool shared;
  int Pp = page_table(g, *P, tbl, &shared);
  int rows = Pp * *B;
  bool pphys = *B > 1 && ch(g, p->p_gather_partial_last_page);
  if (pphys) rows = (Pp - 1) * *B + rng(g, 1, *B - 1);
  if (plast || pphys) feat(g, FZ_FEAT_gather_partial_last_page);
  return rows;
}

/* n indices among the L tokens, each translating to a row of the source. */
static void gather_indices(Gen *g, int B, int L, const int32_t *tbl, int rows, int32_t *idx, int n) {
  for (int i = 0; i < n; i++) {
    int x = 0;
    for (int tries = 0; tries < 8; tries++) {
      int c = below(g, L);
      if (tbl[c / B] * B + c % B < rows) {
        x = c;
        break;
      }
    }
    idx[i] = x;
  }
}

static void blk_gather_vec(Gen *g, int dt) {
  const FzPolicy *p = g->p;
  int B, P, L;
  int32_t tbl[32];
  int rows = gather_source(g, 32, &B, &P, tbl, &L);
  static const int ns[] = {8, 16, 6, 32, 12, 4, 24, 2, 64};
  int N = pick_from(g, ns, 9, p->max_rows);
  int n = N;
  if (N > 1 && ch(g, p->p_gather_fewer_indices)) n = rng(g, 1, N - 1), feat(g, FZ_FEAT_gather_fewer_indices);
  static const int ss[] = {32, 16, 8, 64, 24, 48, 128};
  int S = pick_from(g, ss, 7, p->max_cols);
  if (g->brk[1] && ch(g, p->p_odd_extent) && S > 1) S--;
  fit(g, dt, &N, &S, 3, D_EVEN);
  n = imin(n, N);
  /* window=[f, cnt] over a table of nidx indices, perhaps longer than N and
   * perhaps ending before the window does: v = min(clamp(cnt, 0, nidx - f), N) */
  bool win = ch(g, p->p_gather_window);
  int nidx = n, wf = 0, wn = 0;
  if (win) refuse(g, FZ_V_SPLIT, "gather-window");   /* E-SPLIT-EXTENT: a window is not split again */
  if (g->k->target == 1 && S % 16) refuse(g, FZ_V_LR, "gather-a5-box");   /* a5: halves of the box */
  if (win) {
    nidx = rng(g, 1, imin(N + 4, 512));
    wf = rng(g, 0, nidx - 1), wn = rng(g, 1, N);
    n = imin(imin(wn, nidx - wf), N);
    feat(g, FZ_FEAT_gather_window);
  }
  int32_t idx[512];
  gather_indices(g, B, L, tbl, rows, idx, nidx);
  int K = ch(g, p->p_gather_col_off) ? rng(g, 1, 16) : 0;
  int src = tensor(g, 'A', dt, FZ_IN, rows, K + S + (ch(g, p->p_store_margin) ? rng(g, 1, 4) : 0));
  int it = table(g, 'I', idx, nidx), pt = table(g, 'P', tbl, P);
  FzExpr *e = call(g, FZ_OP_paged_gather, 6 + (K > 0) + win);
  if (win) a_idx(&e->a[6 + (K > 0)], aff(wf), aff(wn)), e->a[6 + (K > 0)].kw = FZ_KW_WINDOW;
  a_tensor(&e->a[0], src);
  a_tensor(&e->a[1], it);
  a_tensor(&e->a[2], pt);
  a_int(&e->a[3], FZ_KW_BLOCK_SIZE, B);
  a_int(&e->a[4], FZ_KW_SIZE, S);
  a_int(&e->a[5], FZ_KW_MAX_INDICES, N);
  if (K) a_int(&e->a[6], FZ_KW_COL_OFF, K);
  Val gv = mkval(dt, FZ_VEC, N, S, n, S);
  gv.e = e;
  gv.join_ok = true;
  charge(g, &gv);
  gv = bind(g, gv, "g");
  Val y = vchain(g, gv, rng(g, 0, 2));
  if (ch(g, 0.4)) reduce_stores(g, y);
  store(g, y);
}

/* Into a fractal mat tile of whole 16-row boxes: any block size and any index
 * table, gathered row by row (DESIGN 14.9); the gathered keys feed a QK^T
 * matmul. */
static void blk_gather_mat(Gen *g, int dt) {
  const FzPolicy *p = g->p;
  feat(g, FZ_FEAT_gather_mat);
  int B, P, L;
  int32_t tbl[32];
  int rows = gather_source(g, 8, &B, &P, tbl, &L);
  int N = 16 * rng(g, 1, 3), n = N;
  if (ch(g, p->p_gather_fewer_indices)) n = rng(g, 1, N - 1), feat(g, FZ_FEAT_gather_fewer_indices);
  int32_t idx[512];
  gather_indices(g, B, L, tbl, rows, idx, n);
  static const int s16[] = {32, 16, 64}, s32[] = {16, 8, 32, 64};
  int S = dt == FZ_F16 ? s16[below(g, 3)] : s32[below(g, 4)];
  int K = ch(g, p->p_gather_col_off) ? rng(g, 1, 16) : 0;
  int src = tensor(g, 'A', dt, FZ_IN, rows, K + S);
  int it = table(g, 'I', idx, n), pt = table(g, 'P', tbl, P);
  FzExpr *e = call(g, FZ_OP_paged_gather, 7 + (K > 0));
  a_tensor(&e->a[0], src);
  a_tensor(&e->a[1], it);
  a_tensor(&e->a[2], pt);
  a_int(&e->a[3], FZ_KW_BLOCK_SIZE, B);
  a_int(&e->a[4], FZ_KW_SIZE, S);
  a_int(&e->a[5], FZ_KW_MAX_INDICES, N);
  int i = 6;
  if (K) a_int(&e->a[i++], FZ_KW_COL_OFF, K);
  a_kind(&e->a[i], FZ_A_SPACE, FZ_MAT), e->a[i].kw = FZ_KW_SPACE;
  Val gv = mkval(dt, FZ_MAT, N, S, n, S);
  gv.e = e;
  charge(g, &gv);
  gv = bind(g, gv, "g");
  int M = dim(g, false, 0);
  while (M > 1 && (g->acc + fbytes(FZ_F32, M, N, true) > p->acc_budget || !vec_ok(g, 3 * vbytes(FZ_F32, M, N))))
    M = shrink(M, 0);
  Val q = bind(g, v_load(g, dt, M, S, FZ_MAT, -1, -1, LD_PARTIAL), "q");
  Val s = bind(g, v_mm(g, NULL, q, gv, true), "s");
  if (ch(g, 0.5)) store(g, s);
  else store(g, vchain(g, s, rng(g, 1, 2)));
}

/* move(x, sp): x in another space (a transfer when it crosses sides). */
static Val v_move(Gen *g, Val x, int sp) {
  FzExpr *e = call(g, FZ_OP_move, 2);
  a_expr(g, &e->a[0], x.e);
  a_kind(&e->a[1], FZ_A_SPACE, sp);
  if (x.sp == FZ_VEC && sp != FZ_VEC) note_v2c(g, &x);
  if (x.sp != FZ_VEC && sp == FZ_VEC) note_c2v(g, &x);
  Val r = x;
  r.e = e;
  r.sp = (int8_t)sp;
  charge(g, &r);
  feat(g, FZ_FEAT_explicit_move);
  return r;
}

/* An explicit move in one of the directions language.md 9.8 allows: vec ->
 * mat (V2C), mat -> vec and acc -> vec (C2V), acc -> mat (cube), and within
 * vec, mat or acc (a copy). Even extents without a unit one, so either split
 * mode can carry the transfer. */
static void blk_move(Gen *g) {
  int dir = below(g, 7);
  int dt = pick_dt(g, false, true), M = dim(g, false, D_EVEN | D_NOUNIT), K = dim(g, true, D_EVEN | D_NOUNIT),
      N = dim(g, true, D_EVEN | D_NOUNIT);
  fit_mm(g, dt, &M, &K, &N, 4, D_EVEN);
  bool tb = ch(g, g->p->p_trans_b);
  switch (dir) {
  case 0: {                                     /* vec -> mat, then a matmul operand */
    Val x = bind(g, cube_operand(g, dt, M, K), "x");
    Val m = bind(g, v_move(g, x, FZ_MAT), "m");
    Val b = rhs_load(g, dt, K, N, tb, m.vc[0], false);
    {
      int n = rng(g, 1, 2);
      store(g, vchain(g, v_mm(g, NULL, m, b, tb), n));
    }
    break;
  }
  case 1:                                       /* mat -> vec */
  case 5: {                                     /* mat -> mat, then a matmul operand */
    Val a = bind(g, v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL), "a");
    if (dir == 1) {
      {
        int n = rng(g, 1, 2);
        store(g, vchain(g, v_move(g, a, FZ_VEC), n));
      }
      break;
    }
    Val m = bind(g, v_move(g, a, FZ_MAT), "m");
    Val b = rhs_load(g, dt, K, N, tb, m.vc[0], false);
    {
      int n = rng(g, 1, 2);
      store(g, vchain(g, v_mm(g, NULL, m, b, tb), n));
    }
    break;
  }
  case 4: {                                     /* vec -> vec */
    Val x = vexpr(g, dt, M, K, 0);
    Val mv = v_move(g, x.sp == FZ_VEC ? x : v_un(g, un_op(g, x.dt), x), FZ_VEC);
    store(g, v_un(g, un_op(g, dt), mv));
    break;
  }
  default: {                                    /* acc -> vec, acc -> mat, acc -> acc */
    Val a = v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
    Val b = rhs_load(g, dt, K, N, tb, a.vc[0], false);
    Val s = bind(g, v_mm(g, NULL, a, b, tb), "s");
    if (dir == 2) {
      {
        int n = rng(g, 1, 2);
        store(g, vchain(g, v_move(g, s, FZ_VEC), n));
      }
    } else if (dir == 3) {
      Val m = bind(g, v_move(g, s, FZ_MAT), "m");
      store(g, m);
    } else {
      Val c = bind(g, v_move(g, s, FZ_ACC), "c");
      Val a2 = bind(g, v_load(g, dt, M, K, FZ_MAT, -1, -1, 0), "a");
      Val b2 = rhs_load(g, dt, K, N, tb, a2.vc[0], false);
      {
        int n = rng(g, 1, 2);
        store(g, vchain(g, v_mm(g, &c, a2, b2, tb), n));
      }
    }
  }
  }
}

static void blk_gather(Gen *g) {
  feat(g, FZ_FEAT_paged_gather);
  int dt = FZ_F32;
  if (ch(g, g->p->p_f16)) dt = FZ_F16, feat(g, FZ_FEAT_f16);
  if (ch(g, g->p->p_gather_mat)) blk_gather_mat(g, dt);
  else blk_gather_vec(g, dt);
}

/* A pool tile (or a new vector value) for reductions, expansions, sub-slices. */
static Val some_vec(Gen *g, int minr, int minc) {
  int cnt = 0;
  for (int i = 0; i < g->nt; i++) {
    const Tile *t = &g->t[i];
    cnt += t->alive && t->v.sp == FZ_VEC && !t->v.lane && t->v.R >= minr && t->v.C >= minc;
  }
  if (cnt && ch(g, 0.6)) {
    int k = below(g, cnt);
    for (int i = 0; i < g->nt; i++) {
      const Tile *t = &g->t[i];
      if (t->alive && t->v.sp == FZ_VEC && !t->v.lane && t->v.R >= minr && t->v.C >= minc && k-- == 0) return t->v;
    }
  }
  int dt = pick_dt(g, true, false), R = imax(dim(g, false, D_NOUNIT), minr), C = imax(dim(g, true, D_NOUNIT), minc);
  fit(g, dt, &R, &C, 3, 0);
  R = imax(R, minr), C = imax(C, minc);
  Val x = vexpr(g, dt, R, C, 0);
  return x.sp == FZ_VEC ? x : v_un(g, un_op(g, x.dt), x);   /* a reused cube tile crosses over */
}

static void blk_reduce(Gen *g) {
  Val x = named(g, some_vec(g, 2, 2));
  bool r = row_red_ok(g, &x), c = col_red_ok(g, &x);
  if (!r && !c) {
    store(g, expand(g, x));
    return;
  }
  reduce_stores(g, x);
  if (ch(g, 0.5)) store(g, expand(g, x));
}

static void blk_strided(Gen *g) {
  Val t = some_vec(g, 2, 1);
  if (t.R < 2 && t.C < 2) {
    store(g, t);
    return;
  }
  int ax = t.R < 2 ? 1 : t.C < 2 ? 0 : ch(g, 0.6) ? 0 : 1;
  if (ch(g, 0.3) && t.C > 1 && t.R > 1 && row_red_ok(g, &t)) {
    t = named(g, t);
    subslice_stores(g, v_red(g, PICK(g, rr), t), 0);   /* row statistics in row blocks */
    return;
  }
  subslice_stores(g, t, ax);
}

static void blk_assemble(Gen *g) {
  feat(g, FZ_FEAT_assemble);
  int dt = pick_dt(g, true, false), R = dim(g, false, D_NOUNIT), C = dim(g, true, D_NOUNIT);
  fit(g, dt, &R, &C, 4, 0);
  double z = isint(dt) ? 0 : ch(g, 0.5) ? 0 : -1;
  if (R > 1 && C > 1 && ch(g, g->brk[0] && g->brk[1] ? 0.3 : g->p->p_assemble_slice / 2)) {
    /* a smaller piece at an offset: neither split mode can express it */
    refuse(g, FZ_V_SPLIT, "assemble-offset");
    int h = rng(g, 1, R), w = rng(g, 1, C), r = rng(g, 0, R - h), c = rng(g, 0, C - w);
    Val src = vexpr(g, dt, h, w, 1);
    Val dst = v_full(g, R, C, z, dt);
    FzExpr *e = call(g, FZ_OP_assemble, 3);
    a_expr(g, &e->a[0], dst.e);
    a_expr(g, &e->a[1], src.e);
    a_idx(&e->a[2], aff(r), aff(c));
    Val x = vres(g, e, dt, R, C);
    charge(g, &x);
    if (ch(g, g->p->p_assemble_slice) && (r || c)) {
      /* a window of it at an offset: on a2a3 the lane-1 replay makes both, and both must stay empty */
      x = bind(g, x, "w");
      int h2 = rng(g, 1, R - r), w2 = rng(g, 1, C - c), r2 = rng(g, r ? 1 : 0, R - h2), c2 = rng(g, c ? 1 : 0, C - w2);
      FzExpr *se = call(g, FZ_OP_slice, 3);
      a_expr(g, &se->a[0], x.e);
      a_idx(&se->a[1], aff(r2), aff(c2));
      a_idx(&se->a[2], aff(h2), aff(w2));
      Val y = vres(g, se, dt, h2, w2);
      y.vr[0] = y.vr[1] = clampi(x.vr[0] - r2, 0, h2), y.vc[0] = y.vc[1] = clampi(x.vc[0] - c2, 0, w2);
      feat(g, FZ_FEAT_assemble_slice);
      store(g, vchain(g, y, 1));
    }
    store(g, x);
    return;
  }
  /* a partial tile padded to full over a constant: both modes split it */
  int vc = C > 1 ? rng(g, 1, C) : 1, vr = R > 1 ? rng(g, 1, R) : 1;
  Val x = v_load(g, dt, R, C, FZ_VEC, vr, vc, 0);
  if (ch(g, 0.5)) x = vchain(g, x, 1);
  Val dst = v_full(g, R, C, z, dt);
  FzExpr *e = call(g, FZ_OP_assemble, 3);
  a_expr(g, &e->a[0], dst.e);
  a_expr(g, &e->a[1], x.e);
  a_idx(&e->a[2], aff(0), aff(0));
  Val w = vres(g, e, dt, R, C);
  charge(g, &w);
  w = bind(g, w, "w");
  store(g, ch(g, 0.5) ? vchain(g, w, 1) : w);
}

/* ---- explicit split_aiv kernels --------------------------------------------------------------- */

/* The lane stride of an explicit shard of E with V valid (DESIGN 14.1-2):
 * ceil(E/2) when the lanes' counts fit a split code (equal, lane 0 one more,
 * or lane 1 empty), else ceil(V/2) written as stride=. */
static int shard_stride(const Gen *g, int E, int V) {
  if (g->k->target == 1) return a5_half(E);    /* a5: half the box (split.md 1.1a) */
  int S = (E + 1) / 2, v0 = clampi(V, 0, S), v1 = clampi(V - S, 0, S);
  return !v1 || v0 == v1 || v0 == v1 + 1 ? S : (V + 1) / 2;
}

static Val v_shard(Gen *g, Val t, int ax) {
  int E = ax ? t.C : t.R, V = ax ? t.vc[0] : t.vr[0], S = shard_stride(g, E, V);
  bool odd = E % 2, stride = S != (E + 1) / 2 || S != a5_half(E);   /* the same on either target's parse */
  /* the other target's variant: a5 places only its box's halves (E-SPLIT-BOX), a2a3
   * only counts that fit a code (E-SPLIT-PLACE) */
  if (S != a5_half(E) || (ax && (E % 32 || V != E))) refuse(g, FZ_V_A5, "shard-a5-box");
  int v0 = clampi(V, 0, S), v1 = clampi(V - S, 0, S);
  if (g->k->target == 1 && (S > E || (v1 && v0 != v1 && v0 != v1 + 1))) refuse(g, FZ_V_A2A3, "shard-a2a3-code");
  FzExpr *e = call(g, FZ_OP_aiv_shard, 2 + stride);
  a_expr(g, &e->a[0], t.e);
  a_kind(&e->a[1], FZ_A_MODE, ax ? FZ_LR : FZ_UD);   /* the axis: ptoc derives the code */
  if (stride) {
    a_int(&e->a[2], FZ_KW_STRIDE, S);
    feat(g, FZ_FEAT_explicit_stride);
  }
  Val r = vres(g, e, t.dt, ax ? t.R : S, ax ? S : t.C);
  for (int l = 0; l < 2; l++) {
    int v = clampi(V - l * S, 0, S);
    if (ax) r.vc[l] = v, r.vr[l] = t.vr[0];
    else r.vr[l] = v, r.vc[l] = t.vc[0];
  }
  r.join_ok = !odd && !stride;
  charge(g, &r);
  note_c2v(g, &t);
  if (odd) feat(g, FZ_FEAT_explicit_odd);
  return r;
}

static Val v_join(Gen *g, Val h, int ax) {
  int S = ax ? h.C : h.R;
  const int *v = ax ? h.vc : h.vr, *o = ax ? h.vr : h.vc;
  int along = v[0] == S ? S + v[1] : v[0], other = imin(o[0], o[1]);
  bool kv = v[0] != v[1] || o[0] != o[1];       /* lanes that differ: the joined valid shape is stated */
  FzExpr *e = call(g, FZ_OP_aic_gather, 2 + kv);
  a_expr(g, &e->a[0], h.e);
  a_kind(&e->a[1], FZ_A_MODE, ax ? FZ_LR : FZ_UD);
  if (kv) {
    a_idx(&e->a[2], aff(ax ? other : along), aff(ax ? along : other));
    e->a[2].kw = FZ_KW_VALID;
  }
  Val r = mkval(h.dt, FZ_MAT, ax ? h.R : 2 * S, ax ? 2 * S : h.C, 0, 0);
  for (int l = 0; l < 2; l++) {
    if (ax) r.vc[l] = along, r.vr[l] = other;
    else r.vr[l] = along, r.vc[l] = other;
  }
  r.e = e;
  note_v2c(g, &r);
  feat(g, FZ_FEAT_explicit_gather);
  return r;
}

/* An index scalar statement: name = op(a, b) on index expressions. */
static void scalar_stmt(Gen *g, int name, int op, FzAff a, FzAff b) {
  FzStmt *st = al(g, sizeof *st);
  st->k = FZ_S_ASSIGN;
  st->dst = (int16_t)name;
  st->e = call(g, op, 2);
  st->e->a[0].k = st->e->a[1].k = FZ_A_AFF;
  st->e->a[0].ix[0] = a;
  st->e->a[1].ix[0] = b;
  push(g, g->out, st);
  g->k->nstmts++;
}

/* x = op(x, c): an element-wise step that keeps x's shape and valid region
 * and stays finite when repeated. */
static void lane_step(Gen *g, Val *x) {
  static const int opf[] = {FZ_OP_adds, FZ_OP_subs, FZ_OP_maxs, FZ_OP_mins};
  static const double cs[] = {0.5, 1, 2, 0.25, -1};
  int op = opf[below(g, 4)];
  *x = reassign(g, *x, v_bins(g, op, *x, isint(x->dt) ? (double)rng(g, -3, 3) : cs[below(g, 5)]));
}

/* Control flow the lanes decide (DESIGN 14.11): `if lane REL c { x = .. }
 * [else { x = .. }]`, or `n = imax(0, 0); while n < c0 + c1*lane max M { x =
 * ..; n = imin(n + 1, M); }`. Only per-lane vector work runs under it. */
static void lane_cond(Gen *g, Val *x) {
  FzStmt *st = al(g, sizeof *st);
  FzAff lane = aff_plus(aff(0), g->sb >= 0 && ch(g, 0.5) ? g->sb : g->lane, 1);
  FzBody *out = g->out;
  if (ch(g, g->p->p_lane_while)) {
    int n = newname(g, "n");
    scalar_stmt(g, n, FZ_OP_imax, aff(0), aff(0));
    st->k = FZ_S_WHILE;
    st->ca = aff_plus(aff(0), n, 1);
    st->rel = (uint8_t)below(g, 2);             /* < or <= */
    int k = rng(g, -1, 3);
    st->cb = aff_plus(aff(rng(g, 0, 3)), lane.v[0], k);
    st->hi = rng(g, 1, 5);
    open_block(g, st);
    lane_step(g, x);
    if (ch(g, 0.3)) lane_step(g, x);
    scalar_stmt(g, n, FZ_OP_imin, aff_plus(aff(1), n, 1), aff(st->hi));
    close_block(g, out);
    feat(g, FZ_FEAT_lane_while);
    return;
  }
  st->k = FZ_S_IF;
  st->ca = lane;
  st->rel = (uint8_t)below(g, 6);
  st->cb = aff(below(g, 2));
  open_block(g, st);
  lane_step(g, x);
  close_block(g, out);
  if (ch(g, 0.6)) {
    g->out = &st->other;
    g->depth++;
    lane_step(g, x);
    close_block(g, out);
  }
  feat(g, FZ_FEAT_lane_if);
}

/* Valid rows of an up_down shard source that the box stride cannot place
 * (lanes of ceil(E/2) holding counts no code fits: 13 of 16 is 8/5), so
 * the shard takes stride=ceil(V/2) (DESIGN 14.2); -1 when not chosen. */
static int explicit_rebalance(Gen *g, int ax, int E) {
  int S = (E + 1) / 2, hi = E % 2 ? E - 1 : E - 2;
  if (ax || hi < S + 1 || !ch(g, g->p->p_explicit_rebalance)) return -1;
  return rng(g, S + 1, hi);
}

static void gen_explicit(Gen *g) {
  const FzPolicy *p = g->p;
  feat(g, FZ_FEAT_explicit_split);
  g->brk[0] = g->brk[1] = true;                 /* no auto-split variant applies */
  int ax = ch(g, p->p_explicit_left_right) ? 1 : 0;
  if (ax) feat(g, FZ_FEAT_explicit_left_right);
  bool odd = ch(g, p->p_explicit_odd);
  int dt = pick_dt(g, false, true);
  static const int odds[] = {15, 31, 7, 33, 17, 63, 9};
  int E = odd ? pick_from(g, odds, 7, ax ? p->max_cols : p->max_rows) : dim(g, ax, D_EVEN | D_NOUNIT);
  if (E < 2) E = 2;
  if (odd != (E % 2 == 1)) odd = E % 2 == 1;
  int O = dim(g, !ax, D_NOUNIT), K = dim(g, true, D_NOUNIT);
  int M = ax ? O : E, N = ax ? E : O;
  fit_mm(g, dt, &M, &K, &N, 4, 0);
  if (ax) O = M, E = N;
  else E = M, O = N;
  if (E < 2) E = 2, ax ? (N = 2) : (M = 2);
  odd = E % 2 == 1;
  bool tb = ch(g, p->p_trans_b);
  int rvr = explicit_rebalance(g, ax, M), rvc = rvr < 0 ? -1 : K;
  Val a = bind(g, v_load(g, dt, M, K, FZ_MAT, rvr, rvc, LD_PARTIAL), "a");
  FzBody *outer = ch(g, p->p_explicit_loop) ? open_rand_loop(g, true) : NULL;
  /* all columns valid: a transfer pins the extent it does not split (DESIGN 14.6) */
  Val b = bind(g, rhs_load(g, dt, K, N, tb, a.vc[0], true), "b");
  Val s = bind(g, v_mm(g, NULL, a, b, tb), "s");
  /* the cube tile whole on the vector side outside the regions: both lanes
   * compute it, lane 0 stores it (lane 1's copy of a whole entry is zeros) */
  Val whole = {0};
  if (ch(g, p->p_explicit_outer_move)) {
    int nt0 = g->nt;
    whole = bind(g, v_move(g, s, FZ_VEC), "w");
    store(g, vchain(g, whole, rng(g, 0, 1)));
    for (int i = nt0; i < g->nt; i++) g->t[i].alive = false;   /* no region may read them */
  }
  /* an outer vector tile of the lane shape, read by both lanes */
  int H = shard_stride(g, E, ax ? s.vc[0] : s.vr[0]);
  int hr = ax ? M : H, hc = ax ? H : N;
  if (ch(g, 0.3)) bind(g, v_load(g, FZ_F32, hr, hc, FZ_VEC, -1, -1, 0), "bias");
  /* the region */
  FzStmt *rs = al(g, sizeof *rs);
  rs->k = FZ_S_SPLIT;
  rs->iv = (int16_t)newname(g, "lane");
  FzBody *rout = g->out;
  open_block(g, rs);
  g->region = true;
  g->lane = rs->iv;
  g->rax = ax;
  g->sb = -1;
  if (ch(g, p->p_lane_scalar)) {
    int sb = newname(g, "sb");
    FzStmt *st = al(g, sizeof *st);
    st->k = FZ_S_ASSIGN;
    st->dst = (int16_t)sb;
    st->e = call(g, FZ_OP_subblock_idx, 0);
    push(g, g->out, st);
    g->k->nstmts++;
    g->sb = sb;
    feat(g, FZ_FEAT_lane_scalar);
  }
  Val sh = bind(g, v_shard(g, s, ax), "sh");
  Val x = vchain(g, sh, rng(g, 1, 3));
  if (ch(g, p->p_lane_load) && x.dt == FZ_F32) {
    Val ld = v_load(g, FZ_F32, x.R, x.C, FZ_VEC, -1, -1, 0);
    x = v_bin(g, bi_op(g, FZ_F32), x, ld);
  }
  x = bind(g, x, "x");
  if (ch(g, p->p_lane_cond)) lane_cond(g, &x);
  /* statistics along the other axis: row stats for up_down, column stats for left_right */
  Val st = {0};
  bool stats = !isint(x.dt) && ch(g, 0.7);
  if (stats) st = bind(g, v_red(g, ax ? PICK(g, cr) : PICK(g, rr), x), "st");
  /* lanes re-join positionally: lane 0 full on the axis, or lane 1 empty (DESIGN 14.6) */
  const int *xv = ax ? x.vc : x.vr;
  bool rect = xv[0] == (ax ? x.C : x.R) || xv[1] == 0;
  if (!odd && x.join_ok && rect && ch(g, p->p_explicit_gather)) {
    Val ph = x;
    if (stats && red_keeps(&x, !ax) && ch(g, 0.7)) ph = v_un(g, FZ_OP_exp, v_exp2(g, ax ? FZ_OP_col_expand_sub : FZ_OP_row_expand_sub, x, st, !ax));
    if (dt != FZ_F32) ph = v_cast(g, ph, dt);   /* f16 or bf16: the matmul's operands agree */
    ph = bind(g, ph, "ph");
    Val pj = bind(g, v_join(g, ph, ax), "p");
    /* p is [E, O] (up_down) or [O, E] (left_right); times v [K2, D2] */
    int K2 = pj.C, D2 = dim(g, true, D_NOUNIT);
    int Mm = pj.R;
    fit_mm(g, dt, &Mm, &K2, &D2, 3, 0);
    Val v = bind(g, v_load(g, dt, pj.C, D2, FZ_MAT, -1, -1, 0), "v");
    Val o = bind(g, v_mm(g, NULL, pj, v, false), "o");
    if (o.C >= 2 || !ax) {
      Val oh = bind(g, v_shard(g, o, ax), "oh");
      Val on = oh;
      bool match = !ax && stats && st.R == oh.R && st.vr[0] == oh.vr[0] && st.vr[1] == oh.vr[1];
      if (match && ch(g, 0.7)) on = v_exp2(g, FZ_OP_row_expand_div, oh, st, true);
      else on = vchain(g, oh, rng(g, 0, 1));
      store(g, on);
    }
    if (ch(g, p->p_cube_store)) store(g, o);
  }
  store(g, x);
  if (stats) store(g, st);
  if (ch(g, p->p_task_parallel)) {
    /* task-parallel work: each lane loads a whole tile from GM itself (a cube
     * tile cannot reach lane 1 whole: a code-0 entry is zero-filled there) */
    Val w = v_load(g, FZ_F32, s.R, s.C, FZ_VEC, -1, -1, 0);
    Val y = bind(g, v_un(g, un_op(g, FZ_F32), w), "y");
    feat(g, FZ_FEAT_task_parallel);
    store_(g, y, ch(g, p->p_lane0_store));
  }
  if (ch(g, 0.2)) store(g, s);                  /* a once statement inside the region */
  if (ch(g, p->p_explicit_whole)) {
    /* a whole cube tile read by both lanes: E-SHARD-WHOLE, since lane 1's copy
     * is zeros; a checker that lets it through shows them in lane 1's band */
    Val wv;
    if (whole.e) {
      wv = whole;
    } else {
      FzExpr *e = call(g, FZ_OP_aiv_shard, 2);
      a_expr(g, &e->a[0], s.e);
      a_kind(&e->a[1], FZ_A_MODE, FZ_MNONE);
      wv = vres(g, e, s.dt, s.R, s.C);
      for (int l = 0; l < 2; l++) wv.vr[l] = s.vr[0], wv.vc[l] = s.vc[0];
    }
    wv.lane = true;
    FzBody *lo = ch(g, 0.5) ? open_loop(g, false, 0, 1 + below(g, 2), 1) : NULL;   /* read under a loop of the region */
    store(g, v_un(g, FZ_OP_relu, wv));
    if (lo) close_loop(g, lo);
    refuse(g, FZ_V_A2A3 | FZ_V_A5, "shard-whole");
    feat(g, FZ_FEAT_explicit_whole);
  }
  g->region = false;
  g->sb = -1;
  close_block(g, rout);
  if (ch(g, p->p_explicit_regions)) {
    /* a second region on the other axis (E-SPLIT-MIXED holds per region) */
    FzStmt *r2 = al(g, sizeof *r2);
    r2->k = FZ_S_SPLIT;
    r2->iv = (int16_t)newname(g, "lane");
    open_block(g, r2);
    g->region = true;
    g->lane = r2->iv;
    g->rax = !ax;
    Val h2 = bind(g, v_shard(g, s, !ax), "sh");
    store(g, vchain(g, h2, rng(g, 0, 2)));
    g->region = false;
    close_block(g, rout);
    feat(g, FZ_FEAT_explicit_regions);
  }
  if (outer) close_loop(g, outer);
}

/* ---- blind spots: GM round trips, kernels near capacity ------------------------------------------ */

/* load(W, [0, 0], [R, C][, space=]) of a workspace tensor the kernel also
 * writes: fully valid (an inout tensor starts with input data everywhere). */
static Val load_ws(Gen *g, int w, int dt, int R, int C, int sp) {
  bool ks = sp != FZ_VEC;
  FzExpr *e = call(g, FZ_OP_load, 3 + ks);
  a_tensor(&e->a[0], w);
  a_idx(&e->a[1], aff(0), aff(0));
  a_idx(&e->a[2], aff(R), aff(C));
  if (ks) a_kind(&e->a[3], FZ_A_SPACE, sp), e->a[3].kw = FZ_KW_SPACE;
  Val r = mkval(dt, sp, R, C, R, C);
  r.e = e;
  r.join_ok = true;
  charge(g, &r);
  return r;
}

/* A GM round trip between the cores through an inout workspace W, which only
 * expand_mixed's GM fences order (no transfer between the two accesses):
 *   0: the vector side stores W, the cube loads it into a matmul (RAW, V -> C)
 *   1: the cube stores a matmul result into W, the vector side loads it (RAW, C -> V)
 *   2: the vector side loads W, then the cube overwrites it (WAR, V -> C) */
static void blk_roundtrip(Gen *g) {
  int dt = pick_dt(g, true, true), M = dim(g, false, g->brk[0] ? 0 : D_NOUNIT), K = dim(g, true, D_NOUNIT),
      N = dim(g, true, g->brk[1] ? 0 : D_NOUNIT);
  fit_mm(g, dt, &M, &K, &N, 3, 0);
  bool tb = ch(g, g->p->p_trans_b);
  int how = below(g, 3), adt = isint(dt) ? FZ_I32 : FZ_F32;
  feat(g, FZ_FEAT_gm_round_trip);
  if (how == 0) {
    Val x = vexpr(g, dt, M, K, 0);
    int w = tensor(g, 'W', dt, FZ_INOUT, M, K);
    if (x.sp == FZ_MAT) {                       /* a reused mat tile: on a5 its store is a C2V transfer */
      claim_c2v(g, &x);
      refuse(g, FZ_V_A5 | (g->k->target == 1 ? FZ_V_SPLIT : 0), "capacity");   /* a reserve not charged */
    }
    store_at(g, w, aff(0), aff(0), x.e);
    Val a = load_ws(g, w, dt, M, K, FZ_MAT);
    Val b = rhs_load(g, dt, K, N, tb, K, false);
    Val c = bind(g, v_mm(g, NULL, a, b, tb), "s");
    store(g, ch(g, 0.5) ? c : vchain(g, c, rng(g, 1, 2)));
    return;
  }
  int w = tensor(g, 'W', adt, FZ_INOUT, M, N);
  if (how == 2) {
    Val y = load_ws(g, w, adt, M, N, FZ_VEC);
    store(g, vchain(g, y, rng(g, 1, 2)));
  }
  Val a = v_load(g, dt, M, K, FZ_MAT, -1, -1, LD_PARTIAL);
  Val b = rhs_load(g, dt, K, N, tb, a.vc[0], false);
  Val c = bind(g, v_mm(g, NULL, a, b, tb), "s");
  store_at(g, w, aff(0), aff(0), c.e);
  if (how == 1) {
    Val y = load_ws(g, w, adt, M, N, FZ_VEC);
    store(g, vchain(g, y, rng(g, 1, 2)));
  }
}

/* A kernel near one space's capacity (the smaller, a2a3's, so every variant
 * compiles): several large tiles live at once, so a planner that forgets the
 * pipe reserve or overlaps two buffers corrupts a live value (R-ALIAS) or
 * places one past the end.
 *   vec: L f32 loads [R, 64], all live at the first add, L + 1 buffers
 *   mat: L pairs of mat operands, all loaded before a matmul_acc chain
 *   left / right: one matmul whose left (or right) operand fills L0A (L0B)
 *   acc: one matmul whose result fills L0C, stored from the cube */
static void blk_capacity(Gen *g) {
  int which = below(g, 4), fill = rng(g, 86, 99);
  int64_t room = (188416 - reserve(g)) * fill / 100;
  int L = rng(g, 2, 4), R = (int)(room / (L + 1) / 256);
  if ((which == 0 && (R < 2 || R > 512)) || (which == 1 && g->nv2c)) which = 3;   /* the V2C reserve in mat is the compiler's to size */
  feat(g, FZ_FEAT_near_capacity);
  memcpy(g->cap, g->cb, sizeof g->cap);         /* nothing before is live in this last block */
  memset(g->cb, 0, sizeof g->cb);
  if (which == 0) {
    Val a[4];
    for (int i = 0; i < L; i++) a[i] = bind(g, v_load(g, FZ_F32, R, 64, FZ_VEC, R, 64, 0), "a");
    Val t = bind(g, v_bin(g, FZ_OP_add, a[0], a[1]), "t");
    for (int i = 2; i < L; i++) t = reassign(g, t, v_bin(g, bi_op(g, FZ_F32), t, a[i]));
    store(g, t);
    return;
  }
  if (which == 1) {                             /* mat: pairs of [128, K] and [K, 8] */
    L = rng(g, 3, 5);
    int K = 128, per = (int)((int64_t)524288 * fill / 100 / L);
    while (K > 16 && fbytes(FZ_F32, 128, K, false) + fbytes(FZ_F32, K, 8, false) > per) K -= 16;
    Val a[5], b[5];
    for (int i = 0; i < L; i++) {
      a[i] = bind(g, v_load(g, FZ_F32, 128, K, FZ_MAT, -1, -1, 0), "a");
      b[i] = bind(g, v_load(g, FZ_F32, K, 8, FZ_MAT, -1, -1, 0), "b");
    }
    Val c = bind(g, v_mm(g, NULL, a[0], b[0], false), "c");
    for (int i = 1; i < L; i++) c = reassign(g, c, v_mm(g, &c, a[i], b[i], false));
    store(g, c);
    return;
  }
  int dt = ch(g, 0.5) ? FZ_F32 : FZ_F16, e = dt == FZ_F32 ? 4 : 2;
  int M, K, N;
  if (which == 2) {                             /* an operand of 64 KB: [128, 128] f32 or [128, 256] f16 */
    M = 128, K = 65536 / 128 / e, N = 16;
    if (ch(g, 0.5)) M = 16, N = 128;            /* ... the right operand [K, 128] instead */
  } else {                                      /* an acc of 128 KB: [128, 256] */
    M = 128, K = 16, N = 256;
  }
  Val a = v_load(g, dt, M, K, FZ_MAT, -1, -1, 0), b = v_load(g, dt, K, N, FZ_MAT, -1, -1, 0);
  store(g, bind(g, v_mm(g, NULL, a, b, false), "c"));
}

/* Pressure where planners err, as the kernel's last block: n cube results
 * (2..5) moved to vec before a loop, so as many C2V entries live at once as
 * the slots must allow (a pipe depth counted short deadlocks), read in every
 * iteration of a loop whose body then makes buffers of its own (a live range
 * not stretched over the loop's end lets them overwrite the entries' bytes or
 * an earlier load's: R-ALIAS from the second iteration), one read again after
 * the loop (a pipe live across the loop's end); the tiles sized so the
 * vector side holds about half to nearly all of a2a3's 192 KB. */
static void blk_pressure(Gen *g) {
  bool hole = ch(g, 0.5);
  int n = rng(g, 2, 5), fill = hole ? rng(g, 85, 97) : rng(g, 50, 97), trips = rng(g, 2, 3);
  int slots = imax(g->slots ? g->slots : 2, n);
  int R = (int)((int64_t)188416 * fill / 100 / (slots + 3) / 256);
  R = clampi(R, 2, 128);
  feat(g, FZ_FEAT_pressure);
  for (int i = 0; i < 3; i++) g->cap[i] = imax64(g->cap[i], g->cb[i]);   /* nothing before is live in this last block */
  memset(g->cb, 0, sizeof g->cb);
  Val x[5];
  /* a tile made first and dead after the first value: first-fit in program
   * order leaves its hole below the others, so a plan near capacity may end
   * past it and be placed again largest first, out of program order */
  Val f = {0};
  if (hole) f = bind(g, v_load(g, FZ_F32, (R + 1) / 2, 64, FZ_VEC, -1, -1, 0), "f");
  for (int i = 0; i < n; i++) {
    Val a = v_load(g, FZ_F32, R, 16, FZ_MAT, -1, -1, 0), b = v_load(g, FZ_F32, 16, 64, FZ_MAT, -1, -1, 0);
    Val c = v_mm(g, NULL, a, b, false);
    x[i] = bind(g, ch(g, 0.5) ? v_move(g, c, FZ_VEC) : v_un(g, un_op(g, FZ_F32), c), "x");
    if (f.e && !i) store(g, v_un(g, un_op(g, FZ_F32), f));
  }
  Val l = bind(g, v_load(g, FZ_F32, R, 64, FZ_VEC, -1, -1, 0), "l");
  FzBody *outer = open_loop(g, true, 0, trips, 1);
  Val y = v_bin(g, FZ_OP_add, x[0], l);         /* the values from before the loop, read first */
  for (int i = 1; i < n; i++) y = v_bin(g, bi_op(g, FZ_F32), y, x[i]);
  y = bind(g, y, "y");
  Val z = bind(g, v_load(g, FZ_F32, R, 64, FZ_VEC, -1, -1, 0), "z");   /* then buffers of the body's own */
  store(g, v_bin(g, bi_op(g, FZ_F32), y, z));
  close_loop(g, outer);
  store(g, vchain(g, x[below(g, n)], 1));       /* live across the loop's end */
}

bool fz_full_inputs(const FzPolicy *p, uint64_t kernel_seed) {
  uint64_t z = (kernel_seed ^ 0x243F6A8885A308D3ull) * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 29;
  return (double)(z >> 11) * 0x1.0p-53 < p->p_full_inputs;
}

/* ---- kernel ----------------------------------------------------------------------------------- */

typedef void Block(Gen *g);

FzKernel *fz_generate(const FzPolicy *p, FzSrc *src) {
  FzKernel *k = calloc(1, sizeof *k);
  if (!k) oom();
  Gen *g = calloc(1, sizeof *g);
  if (!g) oom();
  g->pol = *p;
  g->p = &g->pol;
  g->s = src;
  g->k = k;
  g->out = &k->body;
  g->sb = -1;
  k->split = -1;
  k->target = -1;
  if (ch(g, p->pypto_share)) {                  /* no draw at 0: the other kernels' streams stay as they were */
    /* a kernel ptoc --emit=pypto translates on b25b25a4a (docs/pypto.md): a split
     * mode with even extents on its axis, f32 or f16 matmul work, sub-slice
     * stores along the split axis; no paged gather (pl.paged_gather came with
     * 8f8de9b9c), no split_aiv (6b426ae45), no dtype PyPTO's tile ops lack on the
     * way, no loop-carried valid shape that changes (E-PYPTO-CARRIED-VALID) */
    g->py = k->pypto = true;
    k->split = ch(g, 0.5) ? 1 : 2;
    g->py_ax = k->split - 1;
    g->py_dt = ch(g, 0.5) ? FZ_F16 : FZ_F32;
    FzPolicy *q = &g->pol;
    q->p_explicit_split = q->p_narrow = q->p_i32 = q->p_cast = q->p_loop_valid = q->p_set_validshape = 0;
    q->p_scalar_extent = q->p_transpose = q->p_reshape = q->p_gm_round_trip = q->p_inout = q->p_near_capacity = q->p_pressure = 0;
    q->w_gather = q->w_move = 0;
    q->w_strided = 4, q->p_strided_stats = 0.7;
  } else if (ch(g, p->p_split_up_down)) k->split = 1;
  else if (ch(g, p->p_split_left_right)) k->split = 2;
  else if (ch(g, p->p_split_none)) k->split = 0;
  if (ch(g, p->p_target_a5)) k->target = 1;
  else if (ch(g, p->p_target_a2a3)) k->target = 0;
  if (ch(g, p->p_slots_1)) k->slots = 1;
  else if (ch(g, p->p_slots_4)) k->slots = 4;
  else if (ch(g, p->p_slots_2)) k->slots = 2;
  g->slots = k->slots;
  if (ch(g, p->p_large_tiles)) {                /* rare large kernels keep large shapes in every campaign */
    g->pol.max_rows = imin(2 * p->max_rows, 512);
    g->pol.max_cols = imin(2 * p->max_cols, 512);
  }
  p = g->p;
  if (!g->py && ch(g, p->p_explicit_split)) {
    if (k->split > 0) k->split = -1;            /* split_aiv excludes a split attribute */
    gen_explicit(g);
    refuse(g, FZ_V_SPLIT, "explicit");          /* the oracle's E-EXPLICIT */
  } else {
    g->brk[0] = k->split != 1 && ch(g, p->p_break_up_down);
    g->brk[1] = k->split != 2 && ch(g, p->p_break_left_right);
    if (g->brk[0]) refuse(g, FZ_V_UD, "break-up-down");
    if (g->brk[1]) refuse(g, FZ_V_LR, "break-left-right");
    static Block *const blocks[] = {blk_vector, blk_c2v,    blk_v2c,    blk_both,    blk_softmax, blk_loop,
                                    blk_gather, blk_reduce, blk_strided, blk_assemble, blk_move};
    int w[11] = {p->w_vector, p->w_c2v,    p->w_v2c,    p->w_both,    g->brk[1] ? p->w_softmax : 0,
                 p->w_loop,   p->w_gather, p->w_reduce, p->w_strided, p->w_assemble, p->w_move};
    int tot = 0;
    for (int i = 0; i < 11; i++) tot += w[i];
    if (!tot) w[0] = tot = 1;
    int goal = rng(g, p->min_stmts, p->max_stmts);
    for (int nb = 0; nb < p->max_blocks; nb++) {
      if (nb && (k->nstmts >= goal || !vec_ok(g, 3 * vbytes(FZ_F32, 8, 32)))) break;
      if (k->nnames > FZ_MAXNAME - 128 || k->np > FZ_MAXPARAM - 32 || g->nt > MAXTILE - 128) break;
      int r = below(g, tot), b = 0;
      while (r >= w[b]) r -= w[b++];
      blocks[b](g);
    }
    if (g->py && !k->feat[FZ_FEAT_matmul]) blk_c2v(g);   /* every PyPTO share kernel has matmul work */
    if (ch(g, p->p_gm_round_trip)) blk_roundtrip(g);
    if (ch(g, p->p_pressure)) blk_pressure(g);
    else if (ch(g, p->p_near_capacity)) blk_capacity(g);
  }
  /* capacity: every vector (accumulator, mat) tile charged, whatever its
   * live range, plus the C2V (V2C) reserve at its deepest (each transfer's
   * entry live at once), must fit the target's space; the split variants
   * run on the kernel's own target and only shrink vector tiles */
  {
    int64_t vec = imax64(g->cb[0], g->cap[0]), acc = imax64(g->cb[1], g->cap[1]), mat = imax64(g->cb[2], g->cap[2]);
    int64_t res = imax64(k->slots ? k->slots : 2, g->c2v_sites) * g->c2vmax;
    int64_t mres = imax64(k->slots ? k->slots : 2, g->v2c_sites) * g->v2cmax;   /* the V2C reserve in mat */
    static const int64_t vcap[2] = {188416, 245760}, acap[2] = {131072, 262144};
    for (int t = 0; t < 2; t++) {
      unsigned m = (t ? FZ_V_A5 : FZ_V_A2A3) | ((k->target == 1) == t ? FZ_V_SPLIT : 0);
      if (vec + res > vcap[t] || acc > acap[t] || mat + mres > 524288) refuse(g, m, "capacity");
    }
  }
  /* a C2V transfer of a valid extent known only at run time has no split code */
  if (g->nc2v && (g->varied || k->feat[FZ_FEAT_loop_valid] || k->feat[FZ_FEAT_set_validshape] || k->feat[FZ_FEAT_scalar_extent]))
    refuse(g, FZ_V_SPLIT, "c2v-runtime-valid");
  if (k->split == 1) feat(g, FZ_FEAT_split_up_down);
  if (k->split == 2) feat(g, FZ_FEAT_split_left_right);
  if (k->target == 1) feat(g, FZ_FEAT_target_a5);
  if (k->slots == 1) feat(g, FZ_FEAT_slots_1);
  if (k->slots == 2) feat(g, FZ_FEAT_slots_2);
  if (k->slots == 4) feat(g, FZ_FEAT_slots_4);
  if (g->nc2v && g->nv2c) feat(g, FZ_FEAT_both_ways);
  if (g->nc2v + g->nv2c >= 3) feat(g, FZ_FEAT_multi_transfer);
  free(g);
  return k;
}
