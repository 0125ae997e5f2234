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
 * and transfers cross between them. Feature flags record what was built.
 *
 * This file holds the generator's state and the helpers every construct file
 * shares (choices, the node arena, names and tensors, byte budgets, the
 * transfers' compile claims, statements and loops, shapes and dtypes), and the
 * kernel: fz_generate consumes a policy and a choice source and produces an
 * FzKernel (its attributes, the blocks drawn by weight, the blind spots, the
 * compile claim, the feature flags). The constructs are files of their own,
 * one family each: values.c (value constructors, vector expressions), gm.c
 * (GM loads and stores, paged gather), slices.c (sub-slices, shape changes),
 * blocks.c (the weighted blocks), explicit.c (split_aiv kernels), blind.c
 * (GM round trips, kernels near capacity, memory pressure); the last section
 * of gen.h is what they share. */
#define GEN_INTERNALS
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

/* ---- generator state --------------------------------------------------------------- */

/* The compile claim (FzKernel.refuse): variants (FZ_V_* bits) under which
 * the kernel may be refused `unsupported`, and why; the first reason stays. */
void gen_refuse(Gen *g, unsigned vars, const char *why) {
  for (int v = 0; v < 4; v++)
    if ((vars >> v & 1) && !g->k->refuse[v]) g->k->refuse[v] = why;
}

/* The refusal claim (FzKernel.must_refuse): variants that must refuse the
 * kernel, with CODE:pass; the first stays. */
void gen_must_refuse(Gen *g, unsigned vars, const char *code_pass) {
  for (int v = 0; v < 4; v++)
    if ((vars >> v & 1) && !g->k->must_refuse[v]) g->k->must_refuse[v] = code_pass;
}

bool gen_ch(Gen *g, double p) { return fz_chance(g->s, p); }
int gen_below(Gen *g, int n) { return (int)fz_below(g->s, (uint32_t)n); }
int gen_rng(Gen *g, int lo, int hi) { return fz_range(g->s, lo, hi); }
void gen_feat(Gen *g, int f) { g->k->feat[f] = 1; }
int gen_imin(int a, int b) { return a < b ? a : b; }
int gen_imax(int a, int b) { return a > b ? a : b; }
int64_t gen_imax64(int64_t a, int64_t b) { return a > b ? a : b; }
int gen_clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
static int up(int x, int m) { return (x + m - 1) / m * m; }

static _Noreturn void oom(void) {
  fputs("ptofuzz: out of memory\n", stderr);
  abort();
}

void *gen_al(Gen *g, size_t n) {
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

int gen_newname(Gen *g, const char *pfx) {
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

int gen_tensor(Gen *g, char pfx, int dt, int dir, int rows, int cols) {
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
  p->dim[0] = gen_imax(rows, 1);
  p->dim[1] = gen_imax(cols, 1);
  return k->np++;
}

int gen_table(Gen *g, char pfx, const int32_t *v, int n) {
  int t = gen_tensor(g, pfx, FZ_I32, FZ_IN, 1, n);
  FzParam *p = &g->k->params[t];
  p->rank = 1;
  p->init = gen_al(g, (size_t)n * sizeof *p->init);
  memcpy(p->init, v, (size_t)n * sizeof *v);
  return t;
}

void gen_push(Gen *g, FzBody *b, FzStmt *s) {
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 8;
    FzStmt **v = gen_al(g, (size_t)cap * sizeof *v);
    if (b->n) memcpy(v, b->v, (size_t)b->n * sizeof *v);
    b->v = v;
    b->cap = cap;
  }
  b->v[b->n++] = s;
}

FzExpr *gen_call(Gen *g, int op, int n) {
  FzExpr *e = gen_al(g, sizeof *e);
  e->op = (uint16_t)op;
  e->nargs = (uint8_t)n;
  e->a = gen_al(g, (size_t)n * sizeof *e->a);
  return e;
}

static FzExpr *varref(Gen *g, int name) {
  FzExpr *e = gen_al(g, sizeof *e);
  e->op = FZ_OP_VAR;
  e->var = (int16_t)name;
  return e;
}

FzAff gen_aff(int c) { return (FzAff){.c = c}; }
FzAff gen_aff_plus(FzAff a, int v, int k) {
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

void gen_a_expr(Gen *g, FzArg *a, FzExpr *e) {
  a->k = FZ_A_EXPR;
  a->e = e;
  if (e->op != FZ_OP_VAR) gen_feat(g, FZ_FEAT_nested_call);
}
void gen_a_tensor(FzArg *a, int t) { a->k = FZ_A_TENSOR, a->tensor = t; }
void gen_a_idx(FzArg *a, FzAff r, FzAff c) {
  a->k = FZ_A_IDX;
  a->ix[0] = r;
  a->ix[1] = c;
}
void gen_a_num(FzArg *a, double x) { a->k = FZ_A_NUM, a->num = x; }
void gen_a_int(FzArg *a, int kw, int x) { a->k = FZ_A_INT, a->kw = (uint8_t)kw, a->i = x; }
void gen_a_kind(FzArg *a, int k, int x) { a->k = (uint8_t)k, a->i = x; }

/* ---- bytes ---------------------------------------------------------------------------- */

int gen_esize(int dt) { return dt == FZ_I8 ? 1 : dt == FZ_F16 || dt == FZ_BF16 || dt == FZ_I16 ? 2 : 4; }
bool gen_isint(int dt) { return dt == FZ_I32 || dt == FZ_I8 || dt == FZ_I16; }
int64_t gen_vbytes(int dt, int R, int C) {
  int e = gen_esize(dt);
  if (C == 1 && R > 1) return (int64_t)up(R, 32 / e) * e;
  return (int64_t)R * up(C, 32 / e) * e;
}
int64_t gen_fbytes(int dt, int R, int C, bool acc) {   /* fractal: mat, left, right, acc */
  int e = acc ? 4 : gen_esize(dt), bc = acc ? 16 : 32 / e;
  return (int64_t)(R > 1 ? up(R, 16) : R) * up(C, bc) * e;
}
int64_t gen_reserve(const Gen *g) {
  int s = g->slots ? g->slots : 2;
  return (int64_t)gen_imax(s, gen_imin(g->nc2v, 3)) * g->c2vmax;
}
bool gen_vec_ok(const Gen *g, int64_t add) { return g->vec + add + gen_reserve(g) <= g->p->vec_budget; }
/* The product of the open loops' trips: an unrolled loop's copies of a tile
 * may all be live at once, as far as the compile claim knows. */
int64_t gen_trips(const Gen *g) {
  int64_t w = 1;
  for (int i = 0; i < g->nloop; i++) w *= g->loop[i].trips;
  return w;
}
void gen_charge(Gen *g, const Val *v) {
  int64_t w = gen_trips(g);
  if (v->sp == FZ_VEC) g->vec += gen_vbytes(v->dt, v->R, v->C), g->cb[0] += w * gen_vbytes(v->dt, v->R, v->C);
  else if (v->sp == FZ_ACC) g->acc += gen_fbytes(v->dt, v->R, v->C, true), g->cb[1] += w * gen_fbytes(v->dt, v->R, v->C, true);
  else g->cb[2] += w * gen_fbytes(v->dt, v->R, v->C, false);
}

/* ---- transfers -------------------------------------------------------------------------- */

/* The claim for a transfer under each split mode (auto_split.c's rules, read
 * conservatively): a C2V transfer compiles when the cube tile's extent on the
 * axis is above 1 and fully valid (no rebalanced stride, a split code always
 * fits) and, under up_down with lanes of different rows, its columns are
 * fully valid too (E-SPLIT-NARROW); a V2C transfer when its extent on the
 * axis is even (equal halves). Run-time valid extents are judged per kernel
 * (fz_generate). */
void gen_claim_c2v(Gen *g, const Val *x) {
  bool a5 = g->k->target == 1;                  /* the split variants run on the kernel's target */
  for (int ax = 0; ax < 2; ax++) {
    int E = ax ? x->C : x->R, V = ax ? x->vc[0] : x->vr[0], box = (E + 15) / 16 * 16;
    unsigned m = ax ? FZ_V_LR : FZ_V_UD;
    if (E == 1) gen_refuse(g, m, "c2v-whole");
    else if (V != E && !(g->rebal && !ax)) gen_refuse(g, m, "c2v-partial");
    else if (a5 && ax && E % 32) gen_refuse(g, m, "c2v-a5-columns");   /* split.md 1.1a */
    else if (!ax && (a5 ? box != E : x->R % 2) && x->vc[0] != x->C) gen_refuse(g, m, "c2v-narrow");
  }
}
static void claim_v2c(Gen *g, const Val *x) {
  int64_t b = gen_fbytes(x->dt, x->R, x->C, false);
  g->v2c_sites += gen_trips(g);
  if (b > g->v2cmax) g->v2cmax = b;
  for (int ax = 0; ax < 2; ax++) {
    int E = ax ? x->C : x->R;
    if (E % 2) gen_refuse(g, ax ? FZ_V_LR : FZ_V_UD, E == 1 ? "v2c-whole" : "v2c-odd");
    else if (g->k->target == 1 && E % 16) gen_refuse(g, ax ? FZ_V_LR : FZ_V_UD, "v2c-a5-box");   /* halves of the box */
  }
}

void gen_note_c2v(Gen *g, const Val *x) {
  gen_claim_c2v(g, x);
  g->nc2v++;
  g->c2v_sites += gen_trips(g);
  int64_t b = gen_vbytes(x->dt, x->R, x->C);
  if (b > g->c2vmax) g->c2vmax = b;
  gen_feat(g, FZ_FEAT_c2v);
  if (g->nloop) gen_feat(g, FZ_FEAT_transfer_in_loop);
}
/* A C2V transfer only some variants make (a mat store on a5): reserve only. */
void gen_note_reserve(Gen *g, const Val *x) {
  gen_claim_c2v(g, x);
  g->c2v_sites++;
  int64_t b = gen_vbytes(x->dt, x->R, x->C);
  if (b > g->c2vmax) g->c2vmax = b;
}
void gen_note_v2c(Gen *g, const Val *x) {
  claim_v2c(g, x);
  g->nv2c++;
  gen_feat(g, FZ_FEAT_v2c);
  if (g->nloop) gen_feat(g, FZ_FEAT_transfer_in_loop);
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
Val gen_bind(Gen *g, Val v, const char *pfx) {
  if (v.e->op == FZ_OP_VAR) return v;
  int n = gen_newname(g, pfx);
  FzStmt *s = gen_al(g, sizeof *s);
  s->k = FZ_S_ASSIGN;
  s->dst = (int16_t)n;
  s->e = v.e;
  gen_push(g, g->out, s);
  g->k->nstmts++;
  v.e = varref(g, n);
  add_tile(g, n, v);
  return v;
}

Tile *gen_tile_of(Gen *g, const Val *v) {
  if (v->e->op != FZ_OP_VAR) return NULL;
  for (int i = g->nt - 1; i >= 0; i--)
    if (g->t[i].name == v->e->var) return &g->t[i];
  return NULL;
}

/* Reassign a named tile (same dtype, space, shape); inside a loop this carries it. */
Val gen_reassign(Gen *g, Val dst, Val v) {
  FzStmt *s = gen_al(g, sizeof *s);
  s->k = FZ_S_ASSIGN;
  s->dst = dst.e->var;
  s->e = v.e;
  gen_push(g, g->out, s);
  g->k->nstmts++;
  Tile *t = gen_tile_of(g, &dst);
  v.e = dst.e;
  if (memcmp(dst.vr, v.vr, sizeof v.vr) || memcmp(dst.vc, v.vc, sizeof v.vc)) g->varied = true;
  if (t) {
    if (t->depth < g->depth && g->nloop) gen_feat(g, FZ_FEAT_loop_carried);
    t->v = v;
  }
  return v;
}

void gen_open_block(Gen *g, FzStmt *s) {
  gen_push(g, g->out, s);
  g->out = &s->body;
  g->depth++;
}

void gen_close_block(Gen *g, FzBody *outer) {
  g->depth--;
  g->out = outer;
  for (int i = 0; i < g->nt; i++)
    if (g->t[i].depth > g->depth) g->t[i].alive = false;
}

/* for iv in range(lo, lo + trips*step, step) { ... } */
FzBody *gen_open_loop(Gen *g, bool stride, int lo, int trips, int step) {
  FzStmt *s = gen_al(g, sizeof *s);
  s->k = FZ_S_FOR;
  s->iv = (int16_t)gen_newname(g, "i");
  s->lo = lo;
  s->step = step;
  s->hi = lo + trips * step;
  if (step > 1 && gen_ch(g, g->p->p_loop_ragged)) s->hi -= gen_below(g, step);   /* still `trips` iterations */
  FzBody *outer = g->out;
  gen_open_block(g, s);
  g->loop[g->nloop++] = (Loop){s->iv, lo, step, trips, stride};
  gen_feat(g, FZ_FEAT_loop);
  if (lo || step != 1) gen_feat(g, FZ_FEAT_loop_step);
  return outer;
}

FzBody *gen_open_rand_loop(Gen *g, bool stride) {
  int trips = gen_rng(g, g->p->loop_trips_min, g->p->loop_trips_max), lo = 0, step = 1;
  if (gen_ch(g, g->p->p_loop_step)) {
    static const int los[] = {1, -1, 2, 0};
    lo = los[gen_below(g, 4)];
    step = 1 + gen_below(g, 2);
  }
  return gen_open_loop(g, stride, lo, trips, step);
}

void gen_close_loop(Gen *g, FzBody *outer) {
  g->nloop--;
  gen_close_block(g, outer);
}

/* The innermost loop whose GM windows advance, or NULL. */
const Loop *gen_stride_loop(const Gen *g) {
  return g->nloop && g->loop[g->nloop - 1].stride ? &g->loop[g->nloop - 1] : NULL;
}

/* Offset (i - lo) * stride of a striding loop; *span grows by the advance. */
FzAff gen_advance(const Gen *g, FzAff o, int stride, int *span) {
  const Loop *l = gen_stride_loop(g);
  if (!l) return o;
  o = gen_aff_plus(o, l->iv, stride);
  o.c -= l->lo * stride;
  *span += (l->trips - 1) * l->step * stride;
  return o;
}

/* An index scalar statement: name = op(a, b) on index expressions. */
void gen_scalar_stmt(Gen *g, int name, int op, FzAff a, FzAff b) {
  FzStmt *st = gen_al(g, sizeof *st);
  st->k = FZ_S_ASSIGN;
  st->dst = (int16_t)name;
  st->e = gen_call(g, op, 2);
  st->e->a[0].k = st->e->a[1].k = FZ_A_AFF;
  st->e->a[0].ix[0] = a;
  st->e->a[1].ix[0] = b;
  gen_push(g, g->out, st);
  g->k->nstmts++;
}

/* ---- shapes and dtypes --------------------------------------------------------------------- */

int gen_pick_from(Gen *g, const int *tab, int n, int max) {
  int cnt = 0;
  for (int i = 0; i < n; i++) cnt += tab[i] <= max;
  if (!cnt) return max;
  int k = gen_below(g, cnt);
  for (int i = 0; i < n; i++)
    if (tab[i] <= max && k-- == 0) return tab[i];
  return max;
}

int gen_dim(Gen *g, bool col, unsigned fl) {
  static const int rows[] = {16, 32, 8, 64, 24, 48, 4, 2, 40, 128};
  static const int cols[] = {32, 16, 64, 128, 8, 48, 96, 24, 256, 40};
  static const int odds[] = {15, 17, 7, 31, 33, 9, 5, 3, 63, 47, 13};
  int max = col ? g->p->max_cols : g->p->max_rows;
  if (g->py) {                                  /* PyPTO allocates the tile as written and ptoas wants whole
                                                 * 16-row boxes and 32-byte rows: odd extents are valid ones */
    static const int pr[] = {32, 64}, pc[] = {32, 64, 128};   /* halves keep them too (f16 [R,1]: 16 rows) */
    return col ? gen_pick_from(g, pc, 3, gen_imax(max, 32)) : gen_pick_from(g, pr, 2, gen_imax(max, 32));
  }
  if (!(fl & D_EVEN) && gen_ch(g, g->p->p_odd_extent)) {
    int d = gen_pick_from(g, odds, (int)(sizeof odds / sizeof *odds), max);
    if (d % 2) gen_feat(g, FZ_FEAT_odd_extent);
    return d;
  }
  if (!(fl & D_NOUNIT) && gen_ch(g, g->p->p_unit_extent)) {
    gen_feat(g, FZ_FEAT_unit_extent);
    return 1;
  }
  int d = col ? gen_pick_from(g, cols, 10, max) : gen_pick_from(g, rows, 10, max);
  if ((fl & D_EVEN) && d % 2 && d > 1) d--;
  return d;
}

int gen_shrink(int x, unsigned fl) {
  if ((fl & D_BOX) && x > 32) return (x / 2 + 31) / 32 * 32;   /* a PyPTO share kernel keeps whole boxes */
  x /= 2;
  if ((fl & D_EVEN) && x % 2 && x > 1) x++;
  return x < 1 ? 1 : x;
}

/* Shrink [R, C] until n such vector tiles fit the budget. */
void gen_fit(Gen *g, int dt, int *R, int *C, int n, unsigned fl) {
  if (g->py) fl |= D_BOX;
  while (!gen_vec_ok(g, n * gen_vbytes(dt, *R, *C)) && (*R > 1 || *C > 1)) {
    if (*C >= *R && *C > 1) *C = gen_shrink(*C, fl);
    else *R = gen_shrink(*R, fl);
  }
}

/* Shrink a matmul [M,K] x [K,N] until L0A/L0B, acc and n vector [M,N] tiles fit. */
void gen_fit_mm(Gen *g, int dt, int *M, int *K, int *N, int n, unsigned fl) {
  if (g->py) fl |= D_BOX;
  for (int it = 0; it < 64; it++) {
    bool left = gen_fbytes(dt, *M, *K, false) <= 65536, right = gen_fbytes(dt, *K, *N, false) <= 65536 &&
                                                          gen_fbytes(dt, *N, *K, false) <= 65536;
    bool acc = g->acc + gen_fbytes(dt, *M, *N, true) <= g->p->acc_budget;
    bool vec = gen_vec_ok(g, n * gen_vbytes(FZ_F32, *M, *N) + gen_vbytes(FZ_F32, *M, *N));
    if (left && right && acc && vec) return;
    if (!left || (!right && *K >= *N)) {
      if (*K > 1 && (*K >= *M || left)) *K = gen_shrink(*K, fl);
      else *M = gen_shrink(*M, fl);
    } else if (!right) *N = gen_shrink(*N, fl);
    else if (*N >= *M && *N > 1) *N = gen_shrink(*N, fl);
    else if (*M > 1) *M = gen_shrink(*M, fl);
    else if (*N > 1) *N = gen_shrink(*N, fl);
    else return;
  }
}

/* bf16, or with integers allowed i8 (a matmul operand too) or i16 (not for a matmul). */
int gen_narrow(Gen *g, bool int_ok, bool mm) {
  int dt = !int_ok ? FZ_BF16 : (int[]){FZ_BF16, FZ_I8, FZ_I16}[gen_below(g, mm ? 2 : 3)];
  gen_feat(g, dt == FZ_BF16 ? FZ_FEAT_bf16 : FZ_FEAT_i8_i16);
  return dt;
}

/* A block's dtype; mm: it feeds a matmul. */
int gen_pick_dt(Gen *g, bool i32_ok, bool mm) {
  if (g->py) {
    if (g->py_dt == FZ_F16) gen_feat(g, FZ_FEAT_f16);
    return g->py_dt;
  }
  if (gen_ch(g, g->p->p_narrow)) return gen_narrow(g, i32_ok, mm);
  if (gen_ch(g, g->p->p_f16)) {
    gen_feat(g, FZ_FEAT_f16);
    return FZ_F16;
  }
  if (i32_ok && gen_ch(g, g->p->p_i32)) {
    gen_feat(g, FZ_FEAT_i32);
    return FZ_I32;
  }
  return FZ_F32;
}

double gen_scalar(Gen *g, int dt, int op) {
  if (gen_isint(dt)) return op == FZ_OP_muls ? gen_rng(g, -2, 3) : gen_rng(g, -3, 3);
  static const double tab[] = {0.5, 0.25, 2, -1, 0.125, 1.5, -0.5, 0.0625, 3, -2, 0.75, 1, -0.25, 0.0883883};
  double x = tab[gen_below(g, (int)(sizeof tab / sizeof *tab))];
  return op == FZ_OP_divs && x == 0 ? 2 : x;
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
  if (gen_ch(g, p->pypto_share)) {                  /* no draw at 0: the other kernels' streams stay as they were */
    /* a kernel ptoc --emit=pypto translates on b25b25a4a (docs/pypto.md): a split
     * mode with even extents on its axis, f32 or f16 matmul work, sub-slice
     * stores along the split axis; no paged gather (pl.paged_gather came with
     * 8f8de9b9c), no split_aiv (6b426ae45), no dtype PyPTO's tile ops lack on the
     * way, no loop-carried valid shape that changes (E-PYPTO-CARRIED-VALID) */
    g->py = k->pypto = true;
    k->split = gen_ch(g, 0.5) ? 1 : 2;
    g->py_ax = k->split - 1;
    g->py_dt = gen_ch(g, 0.5) ? FZ_F16 : FZ_F32;
    FzPolicy *q = &g->pol;
    q->p_explicit_split = q->p_narrow = q->p_i32 = q->p_cast = q->p_loop_valid = q->p_set_validshape = 0;
    q->p_scalar_extent = q->p_transpose = q->p_reshape = q->p_gm_round_trip = q->p_inout = q->p_near_capacity = q->p_pressure = 0;
    q->w_gather = q->w_move = 0;
    q->w_strided = 4, q->p_strided_stats = 0.7;
  } else if (gen_ch(g, p->p_split_up_down)) k->split = 1;
  else if (gen_ch(g, p->p_split_left_right)) k->split = 2;
  else if (gen_ch(g, p->p_split_none)) k->split = 0;
  if (gen_ch(g, p->p_target_a5)) k->target = 1;
  else if (gen_ch(g, p->p_target_a2a3)) k->target = 0;
  if (gen_ch(g, p->p_slots_1)) k->slots = 1;
  else if (gen_ch(g, p->p_slots_4)) k->slots = 4;
  else if (gen_ch(g, p->p_slots_2)) k->slots = 2;
  g->slots = k->slots;
  if (gen_ch(g, p->p_large_tiles)) {                /* rare large kernels keep large shapes in every campaign */
    g->pol.max_rows = gen_imin(2 * p->max_rows, 512);
    g->pol.max_cols = gen_imin(2 * p->max_cols, 512);
  }
  p = g->p;
  if (!g->py && gen_ch(g, p->p_explicit_split)) {
    if (k->split > 0) k->split = -1;            /* split_aiv excludes a split attribute */
    gen_explicit(g);
    gen_refuse(g, FZ_V_SPLIT, "explicit");          /* the oracle's E-EXPLICIT */
  } else if (!g->py && k->split != 2 && gen_ch(g, p->p_rebalance)) {
    gen_blk_rebalance(g);
  } else {
    g->brk[0] = k->split != 1 && gen_ch(g, p->p_break_up_down);
    g->brk[1] = k->split != 2 && gen_ch(g, p->p_break_left_right);
    if (g->brk[0]) gen_refuse(g, FZ_V_UD, "break-up-down");
    if (g->brk[1]) gen_refuse(g, FZ_V_LR, "break-left-right");
    static Block *const blocks[] = {gen_blk_vector, gen_blk_c2v,    gen_blk_v2c,    gen_blk_both,    gen_blk_softmax, gen_blk_loop,
                                    gen_blk_gather, gen_blk_reduce, gen_blk_strided, gen_blk_assemble, gen_blk_move};
    int w[11] = {p->w_vector, p->w_c2v,    p->w_v2c,    p->w_both,    g->brk[1] ? p->w_softmax : 0,
                 p->w_loop,   p->w_gather, p->w_reduce, p->w_strided, p->w_assemble, p->w_move};
    int tot = 0;
    for (int i = 0; i < 11; i++) tot += w[i];
    if (!tot) w[0] = tot = 1;
    int goal = gen_rng(g, p->min_stmts, p->max_stmts);
    for (int nb = 0; nb < p->max_blocks; nb++) {
      if (nb && (k->nstmts >= goal || !gen_vec_ok(g, 3 * gen_vbytes(FZ_F32, 8, 32)))) break;
      if (k->nnames > FZ_MAXNAME - 128 || k->np > FZ_MAXPARAM - 32 || g->nt > MAXTILE - 128) break;
      int r = gen_below(g, tot), b = 0;
      while (r >= w[b]) r -= w[b++];
      blocks[b](g);
    }
    if (g->py && !k->feat[FZ_FEAT_matmul]) gen_blk_c2v(g);   /* every PyPTO share kernel has matmul work */
    if (gen_ch(g, p->p_gm_round_trip)) gen_blk_roundtrip(g);
    if (gen_ch(g, p->p_pressure)) gen_blk_pressure(g);
    else if (gen_ch(g, p->p_near_capacity)) gen_blk_capacity(g);
  }
  /* capacity: every vector (accumulator, mat) tile charged, whatever its
   * live range, plus the C2V (V2C) reserve at its deepest (each transfer's
   * entry live at once), must fit the target's space; the split variants
   * run on the kernel's own target and only shrink vector tiles */
  {
    int64_t vec = gen_imax64(g->cb[0], g->cap[0]), acc = gen_imax64(g->cb[1], g->cap[1]), mat = gen_imax64(g->cb[2], g->cap[2]);
    int64_t res = gen_imax64(k->slots ? k->slots : 2, g->c2v_sites) * g->c2vmax;
    int64_t mres = gen_imax64(k->slots ? k->slots : 2, g->v2c_sites) * g->v2cmax;   /* the V2C reserve in mat */
    static const int64_t vcap[2] = {188416, 245760}, acap[2] = {131072, 262144};
    for (int t = 0; t < 2; t++) {
      unsigned m = (t ? FZ_V_A5 : FZ_V_A2A3) | ((k->target == 1) == t ? FZ_V_SPLIT : 0);
      if (vec + res > vcap[t] || acc > acap[t] || mat + mres > 524288) gen_refuse(g, m, "capacity");
    }
  }
  /* a C2V transfer of a valid extent known only at run time has no split code */
  if (g->nc2v && (g->varied || k->feat[FZ_FEAT_loop_valid] || k->feat[FZ_FEAT_set_validshape] || k->feat[FZ_FEAT_scalar_extent]))
    gen_refuse(g, FZ_V_SPLIT, "c2v-runtime-valid");
  if (k->split == 1) gen_feat(g, FZ_FEAT_split_up_down);
  if (k->split == 2) gen_feat(g, FZ_FEAT_split_left_right);
  if (k->target == 1) gen_feat(g, FZ_FEAT_target_a5);
  if (k->slots == 1) gen_feat(g, FZ_FEAT_slots_1);
  if (k->slots == 2) gen_feat(g, FZ_FEAT_slots_2);
  if (k->slots == 4) gen_feat(g, FZ_FEAT_slots_4);
  if (g->nc2v && g->nv2c) gen_feat(g, FZ_FEAT_both_ways);
  if (g->nc2v + g->nv2c >= 3) gen_feat(g, FZ_FEAT_multi_transfer);
  free(g);
  return k;
}
