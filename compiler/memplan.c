/* memplan.c — pass 10: per-core IR -> the same IR with every buffer placed
 * (Var.off, Kernel.entry, Kernel.reserve, Kernel.top, Kernel.planned), or unsupported
 * E-CAPACITY; ir_print_plan writes the placement as `# mem` comment lines.
 * Live ranges: every tile value is live from its first definition to its
 * last use in program order, stretched over a whole loop when it is live into
 * the loop (defined before it, or read in it before being redefined); a view
 * keeps its parent live; sizes are the padded allocation sizes of layout.c.
 * Tiles popped from a pipe live in the pipe's reserve, which the consumer
 * holds for the whole program: slots x the largest entry it pops (vec on each
 * lane for C2V, where a split transfer brings only the lane's part; mat on the
 * AIC for V2C); left/right hold the operands of one matmul at a time. A
 * dual-lane program is measured along lane 0's branch and along the replay.
 * Capacity: the peak of live bytes plus the reserve must fit each space (the
 * same computation serves verify_backend's B-CAP), and so must the placement.
 * Placement (DESIGN 14.10): per core and space, the reserve (or the matmul
 * operands in left/right) at offset 0, then each buffer first-fit, in order of
 * its first position, at the lowest offset clear of every placed buffer whose
 * live range overlaps its own in either walk; when that ends past the capacity
 * while the peak fits, once more largest first; views at their parent's offset
 * plus the window's static start, popped values at the reserve's base. */
#include "ptoc.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  Comp *c;
  Arena *S;                                     /* scratch of the walk: its arrays, and placement's */
  Kernel *k;
  int pos;
  int *first, *last, *firstdef;                 /* by var id */
  bool *popped, *other;                         /* defined by tpop or a slice / by an op that needs a buffer */
  const Var **parent;                           /* a view's parent buffer (slice, subview) */
  struct Loop {
    int s, e;
  } *loops;
  int nloops, caploops;
  int64_t lr[2];                                /* largest left / right operand */
  bool replay;                                  /* walk the replay branch of dual-lane programs */
} MP;

static void touch(MP *m, const Var *v, bool def) {
  if (v->kind != VK_TILE) return;
  int id = v->id;
  if (m->parent[id] && m->parent[id] != v) touch(m, m->parent[id], false);   /* a view keeps its parent */
  if (m->first[id] < 0) m->first[id] = m->pos;
  m->last[id] = m->pos;
  if (def && m->firstdef[id] < 0) m->firstdef[id] = m->pos;
}

static void walk(MP *m, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_FOR) {
      int st = m->pos;
      walk(m, &s->body);
      if (m->nloops == m->caploops) {
        int cap = m->caploops ? 2 * m->caploops : 16;
        struct Loop *nl = ir_alloc(m->S, (size_t)cap * sizeof *nl);
        if (m->nloops) memcpy(nl, m->loops, (size_t)m->nloops * sizeof *nl);
        m->loops = nl, m->caploops = cap;
      }
      m->loops[m->nloops].s = st, m->loops[m->nloops++].e = m->pos;
      continue;
    }
    if (s->k == S_SPLIT) {
      walk(m, &s->body);
      continue;
    }
    if (s->k == S_COND) {                       /* both branches in turn: a value live through the
                                                   statement spans both, one local to a branch only it */
      walk(m, &s->body);
      walk(m, &s->other);
      continue;
    }
    if (s->k == S_IF) {
      walk(m, m->replay ? &s->other : &s->body);   /* one lane runs one branch */
      continue;
    }
    if (s->k != S_OP) continue;
    if (s->rhs.k == A_CALL && s->rhs.call->op == OP_alloc_tile && s->rhs.call->nargs == 4) continue;   /* declares */
    m->pos++;
    if (s->rhs.k == A_VAR) touch(m, s->rhs.var, false);
    else
      for (int j = 0; j < s->rhs.call->nargs; j++)
        if (s->rhs.call->args[j].k == A_VAR) touch(m, s->rhs.call->args[j].var, false);
    if (s->dst) {
      bool pop = s->rhs.k == A_CALL && s->rhs.call->op == OP_tpop;
      bool view = s->rhs.k == A_CALL && ir_ops[s->rhs.call->op].kind == K_SLICE;
      if (view && s->dst->kind == VK_TILE) m->parent[s->dst->id] = s->rhs.call->args[0].var;
      touch(m, s->dst, true);
      if (s->dst->kind == VK_TILE) (pop || view ? m->popped : m->other)[s->dst->id] = true;
    }
    if (s->rhs.k == A_CALL && ir_ops[s->rhs.call->op].kind == K_MATMUL) {
      const Call *c = s->rhs.call;
      int base = IR_ACC_MATMUL(c->op);
      for (int j = 0; j < 2; j++) {
        const Var *x = c->args[base + j].var;
        int64_t by = ir_tile_bytes(j ? SP_RIGHT : SP_LEFT, x->dt, x->R, x->C);
        if (by > m->lr[j]) m->lr[j] = by;
      }
    }
  }
}

/* Stretch every live range over the loops it is live into. Loops are
 * recorded inner first (post-order) and nest; the rule, applied loop by loop
 * in that order, can only change a range through a loop that holds its first
 * or its last position (one strictly inside the range, or outside it, leaves
 * it alone), so each range visits the two chains of loops around its ends:
 * O(vars x nesting) instead of O(vars x loops). */
static void stretch(MP *m, int n) {
  if (!m->nloops) return;
  int *inner = ir_alloc_raw(m->S, ((size_t)m->pos + 2) * sizeof *inner);   /* innermost loop holding a position */
  int *up = ir_alloc_raw(m->S, (size_t)m->nloops * sizeof *up);            /* the loop around a loop, -1 none */
  for (int p = 0; p <= m->pos + 1; p++) inner[p] = -1;
  /* Outer loops first (they come last), so a loop's parent is the innermost
   * loop already holding its first position; an empty loop holds none and
   * changes no range. */
  for (int l = m->nloops - 1; l >= 0; l--) {
    up[l] = -1;
    if (m->loops[l].s >= m->loops[l].e) continue;
    up[l] = inner[m->loops[l].s + 1];
    for (int p = m->loops[l].s + 1; p <= m->loops[l].e; p++) inner[p] = l;
  }
  for (int i = 0; i < n; i++) {
    if (m->first[i] < 0) continue;
    int a = inner[m->first[i]], b = inner[m->last[i]];
    while (a >= 0 || b >= 0) {                  /* both chains, merged in loop order */
      int l = a < 0 ? b : b < 0 ? a : a < b ? a : b;
      if (a == l) a = up[a];
      if (b == l) b = up[b];
      int ls = m->loops[l].s, le = m->loops[l].e;
      bool used_in = m->last[i] > ls && m->first[i] <= le;
      bool live_in = m->firstdef[i] <= ls || m->first[i] < m->firstdef[i] || m->firstdef[i] < 0;
      if (used_in && live_in) {
        if (ls + 1 < m->first[i]) m->first[i] = ls + 1;
        if (le > m->last[i]) m->last[i] = le;
      }
    }
  }
}

/* The live ranges [first, last] of one core's program, along lane 0's branch
 * or the replay. */
static void ranges(MP *m, Comp *c, Arena *S, Kernel *k, const Stmt *fn, bool replay) {
  *m = (MP){.c = c, .S = S, .k = k, .replay = replay};
  int n = k->nvars;
  m->first = ir_alloc(S, (size_t)n * sizeof(int));
  m->last = ir_alloc(S, (size_t)n * sizeof(int));
  m->firstdef = ir_alloc(S, (size_t)n * sizeof(int));
  m->popped = ir_alloc(S, (size_t)n);
  m->other = ir_alloc(S, (size_t)n);
  m->parent = ir_alloc(S, (size_t)n * sizeof *m->parent);
  for (int i = 0; i < n; i++) m->first[i] = m->last[i] = m->firstdef[i] = -1;
  walk(m, &fn->body);
  stretch(m, n);
}

/* Peak bytes per space of the ranges m; where: the point of the peak of
 * `interest`, top: the largest values live there. */
static void peak_m(const MP *m, const Kernel *k, const Stmt *fn, int64_t peak[SP_N], Space interest,
                   Loc *where, const Var *top[3]) {
  int n = k->nvars;
  memset(peak, 0, SP_N * sizeof *peak);
  int best = 0;
  int64_t bestv = -1;
  int64_t (*delta)[SP_N] = ir_alloc(m->S, ((size_t)m->pos + 2) * sizeof *delta);   /* live bytes change at p */
  for (int i = 0; i < n; i++) {
    const Var *v = k->vars[i];
    if (m->first[i] < 0 || (m->popped[i] && !m->other[i])) continue;
    int64_t by = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
    delta[m->first[i]][v->sp] += by;
    delta[m->last[i] + 1][v->sp] -= by;
  }
  int64_t sum[SP_N] = {0};
  for (int p = 1; p <= m->pos; p++) {
    for (int s = 0; s < SP_N; s++) {
      sum[s] += delta[p][s];
      if (sum[s] > peak[s]) peak[s] = sum[s];
    }
    if (sum[interest] > bestv) bestv = sum[interest], best = p;
  }
  peak[SP_LEFT] = m->lr[0];
  peak[SP_RIGHT] = m->lr[1];
  if (where) {
    *where = fn->loc;
    const Var *t[3] = {NULL, NULL, NULL};
    int64_t tb[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
      const Var *v = k->vars[i];
      if (m->first[i] < 0 || m->first[i] > best || m->last[i] < best || v->sp != interest) continue;
      if (m->popped[i] && !m->other[i]) continue;
      int64_t by = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
      for (int j = 0; j < 3; j++)
        if (by > tb[j]) {
          for (int q = 2; q > j; q--) t[q] = t[q - 1], tb[q] = tb[q - 1];
          t[j] = v, tb[j] = by;
          break;
        }
      if (m->firstdef[i] == best) *where = v->loc;
    }
    if (top) memcpy(top, t, sizeof t);
  }
}

static void peak_of(Comp *c, Arena *S, Kernel *k, const Stmt *fn, bool replay, int64_t peak[SP_N],
                    Space interest, Loc *where, const Var *top[3]) {
  MP m;
  ranges(&m, c, S, k, fn, replay);
  peak_m(&m, k, fn, peak, interest, where, top);
}

/* The largest of one kind of buffer in a program, padded in its space: what
 * 0/1, an entry one consumer pops from that PipeDir (a lane's part of a split
 * C2V transfer, the joined tile of a V2C transfer); 2/3, a matmul's left /
 * right operand. */
enum { W_POP = 0, W_OPERAND = 2 };
static int64_t largest(const Body *b, int what) {
  int64_t m = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    int64_t x = 0;
    const Call *c = s->k == S_OP && s->rhs.k == A_CALL ? s->rhs.call : NULL;
    if (s->k != S_OP) {
      x = largest(&s->body, what);
      int64_t y = largest(&s->other, what);
      x = x > y ? x : y;
    } else if (c && what < W_OPERAND && c->op == OP_tpop && c->args[0].e == what) {
      x = ir_tile_bytes(s->dst->sp, s->dst->dt, s->dst->R, s->dst->C);
    } else if (c && what >= W_OPERAND && ir_ops[c->op].kind == K_MATMUL) {
      int j = what - W_OPERAND;
      const Var *o = c->args[IR_ACC_MATMUL(c->op) + j].var;
      x = ir_tile_bytes(j ? SP_RIGHT : SP_LEFT, o->dt, o->R, o->C);
    }
    if (x > m) m = x;
  }
  return m;
}

static bool has_if(const Body *b) {
  for (int i = 0; i < b->n; i++)
    if (b->v[i]->k == S_IF || (b->v[i]->k != S_OP && has_if(&b->v[i]->body))) return true;
  return false;
}

/* A consumer keeps slots x (its largest entry) for the whole program. */
void ir_mem_peak(Comp *c, Kernel *k, const Stmt *fn, int64_t peak[SP_N], Space interest, Loc *where,
                 const Var *top[3]) {
  int64_t p2[SP_N];
  Loc w2;
  const Var *t2[3];
  Arena *S = ir_arena_new();                    /* the walks' arrays: nothing here reports an error */
  peak_of(c, S, k, fn, false, peak, interest, where, top);
  bool two = has_if(&fn->body);                 /* else no replay: the second walk is the first */
  if (two) peak_of(c, S, k, fn, true, p2, interest, where ? &w2 : NULL, top ? t2 : NULL);
  ir_arena_free(S);
  if (!two) return;
  bool second = p2[interest] > peak[interest];
  for (int s = 0; s < SP_N; s++)
    if (p2[s] > peak[s]) peak[s] = p2[s];
  if (second && where) *where = w2;
  if (second && top) memcpy(top, t2, sizeof t2);
}

static int slots_of(const Kernel *k, int dir) {
  for (int i = 0; i < k->body.n; i++) {
    const Stmt *s = k->body.v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_pipe && s->rhs.call->args[0].e == dir)
      return (int)s->rhs.call->args[1].num;
  }
  return 0;
}

static int64_t reserve(const Kernel *k, const Stmt *fn, int dir) {
  return (int64_t)slots_of(k, dir) * largest(&fn->body, W_POP + dir);
}

static const Space spaces[] = {SP_VEC, SP_MAT, SP_ACC, SP_LEFT, SP_RIGHT};

/* E-CAPACITY / B-CAP when the peak of core f plus its reserve (in vec on the
 * AIV, in mat on the AIC) exceeds a space. */
static void capacity(Comp *c, Kernel *k, int f, const Stmt *fn, DiagCode code, const int64_t peak0[SP_N],
                     int64_t reserve) {
  for (size_t si = 0; si < sizeof spaces / sizeof spaces[0]; si++) {
    Space sp = spaces[si];
    int64_t res = sp == (f ? SP_VEC : SP_MAT) ? reserve : 0, peak[SP_N];
    int64_t cap = ir_capacity(k->target, sp);
    if (peak0[sp] + res <= cap) continue;
    Loc where;
    const Var *top[3];
    ir_mem_peak(c, k, fn, peak, sp, &where, top);
    char tops[160] = "";
    for (int j = 0; j < 3 && top[j]; j++)
      snprintf(tops + strlen(tops), sizeof tops - strlen(tops), "%s'%s' %lld", j ? ", " : "", top[j]->name,
               (long long)ir_tile_bytes(top[j]->sp, top[j]->dt, top[j]->R, top[j]->C));
    ir_error(c, where, code,
             "%s %s needs %lld bytes (%lld live tiles%s%s%s + %lld pipe reserve) but %s has %lld", f ? "aiv" : "aic",
             ir_space_name(sp), (long long)(peak[sp] + res), (long long)peak[sp], tops[0] ? ": " : "", tops,
             tops[0] ? "" : "", (long long)res, ir_target_name(k->target), (long long)cap);
  }
}

void ir_mem_check(Comp *c, Kernel *k, DiagCode code) {
  for (int f = 0; f < 2; f++) {
    const Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (!fn) continue;
    int64_t peak[SP_N];
    ir_mem_peak(c, k, fn, peak, SP_VEC, NULL, NULL);   /* every space's peak at once */
    capacity(c, k, f, fn, code, peak, reserve(k, fn, f ? PIPE_C2V : PIPE_V2C));
  }
}

/* ---- placement ------------------------------------------------------------------------ */

/* Do u and v overlap in the walk m (both live at some position)? */
static bool overlap(const MP *m, int u, int v) {
  return m->first[u] >= 0 && m->first[v] >= 0 && m->first[u] <= m->last[v] && m->first[v] <= m->last[u];
}

typedef struct {
  int64_t k1, k2;
  int id;
} Ord;
static bool ord_lt(const Ord *a, const Ord *b) {
  return a->k1 != b->k1 ? a->k1 < b->k1 : a->k2 != b->k2 ? a->k2 < b->k2 : a->id < b->id;
}
static int ord_cmp(const void *x, const void *y) {
  return ord_lt(x, y) ? -1 : ord_lt(y, x) ? 1 : 0;
}
static void sort_ord(Ord *o, int n) {
  if (n > 1) qsort(o, (size_t)n, sizeof *o, ord_cmp);
}
typedef struct {
  int64_t off, end;
} Span;
/* First fit only reads the offsets in order: spans with equal offsets may come in any order. */
static int span_cmp(const void *x, const void *y) {
  const Span *a = x, *b = y;
  return a->off < b->off ? -1 : a->off > b->off;
}

/* The placed buffers by the blocks of GRID positions their live range
 * touches, in one walk: a buffer's overlapping neighbours are found in the
 * blocks of its own range, not among every buffer placed. */
enum { GRID = 64 };
typedef struct {
  int *v;
  int n, cap;
} Cell;
static Cell *grid_new(const MP *m) {
  return ir_alloc(m->S, ((size_t)m->pos / GRID + 1) * sizeof(Cell));
}
static void grid_add(const MP *m, Cell *g, int id) {
  if (m->first[id] < 0) return;
  for (int q = m->first[id] / GRID; q <= m->last[id] / GRID; q++) {
    Cell *x = &g[q];
    if (x->n == x->cap) {
      int cap = x->cap ? 2 * x->cap : 4;
      int *nv = ir_alloc_raw(m->S, (size_t)cap * sizeof *nv);
      if (x->n) memcpy(nv, x->v, (size_t)x->n * sizeof *nv);
      x->v = nv, x->cap = cap;
    }
    x->v[x->n++] = id;
  }
}

/* First fit of the buffers ord[0..n) in that order above base; the highest
 * end per space into end, the buffer that reaches it into top. A placed
 * buffer u is in v's way when it shares v's space and their live ranges
 * overlap in either walk. */
static void place(Kernel *k, const MP *a, const MP *b, const Ord *ord, int n, const int64_t *sz,
                  const int64_t base[SP_N], int64_t end[SP_N], const Var *top[SP_N]) {
  Span *sc = ir_alloc_raw(a->S, (size_t)(n ? n : 1) * sizeof *sc);
  int *seen = ir_alloc_raw(a->S, (size_t)(k->nvars ? k->nvars : 1) * sizeof *seen);
  for (int i = 0; i < k->nvars; i++) seen[i] = -1;
  const MP *walks[2] = {a, b != a ? b : NULL};
  Cell *grid[2] = {grid_new(a), walks[1] ? grid_new(b) : NULL};
  for (int s = 0; s < SP_N; s++) end[s] = base[s], top[s] = NULL;
  for (int i = 0; i < n; i++) {
    Var *v = k->vars[ord[i].id];
    int ns = 0;
    for (int w = 0; w < 2; w++) {
      const MP *m = walks[w];
      if (!m || m->first[v->id] < 0) continue;
      for (int q = m->first[v->id] / GRID; q <= m->last[v->id] / GRID; q++)
        for (int j = 0; j < grid[w][q].n; j++) {
          int uid = grid[w][q].v[j];
          const Var *u = k->vars[uid];
          if (seen[uid] == i || u->sp != v->sp || !overlap(m, uid, v->id)) continue;
          seen[uid] = i;
          sc[ns++] = (Span){u->off, u->off + sz[uid]};
        }
    }
    if (ns > 1) qsort(sc, (size_t)ns, sizeof *sc, span_cmp);
    int64_t at = base[v->sp];
    for (int q = 0; q < ns && sc[q].off < at + sz[v->id]; q++)
      if (sc[q].end > at) at = sc[q].end;
    ASSERT(at <= INT32_MAX);
    v->off = (int32_t)at;
    for (int w = 0; w < 2; w++)
      if (walks[w]) grid_add(walks[w], grid[w], v->id);
    if (at + sz[v->id] > end[v->sp]) end[v->sp] = at + sz[v->id], top[v->sp] = v;
  }
}

/* The byte where a window at `at` of p's layout starts, when at is static (else 0). */
static int64_t window_off(const Var *p, const Arg *at) {
  if (!ir_aff_const(&at->ix[0]) || !ir_aff_const(&at->ix[1])) return 0;
  int64_t r = at->ix[0].c, cc = at->ix[1].c, e = ir_dtype_bytes(p->dt);
  int Rp, Cp, br, bc;
  ir_padded(p->sp, p->dt, p->R, p->C, &Rp, &Cp);
  switch (ir_layout(p->sp, p->R, p->C)) {
  case LAY_ROW: return (r * Cp + cc) * e;
  case LAY_COL: return (cc * Rp + r) * e;
  case LAY_FRACTAL: break;
  }
  ir_box(p->sp, p->dt, &br, &bc);               /* NZ: columns of boxes, each box row-major */
  return ((cc / bc) * Rp * bc + r * bc + cc % bc) * e;
}

/* Popped values (views false), then views in program order (a view's parent
 * comes first, or is a buffer or a popped value already placed). */
static void place_rest(const Body *b, const bool *buf, int f, bool views) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      place_rest(&s->body, buf, f, views);
      place_rest(&s->other, buf, f, views);
      continue;
    }
    Var *v = s->dst;
    if (!v || v->kind != VK_TILE || buf[v->id] || s->rhs.k != A_CALL) continue;
    const Call *cl = s->rhs.call;
    if (cl->op == OP_tpop && !views) {
      Space want = cl->args[0].e == PIPE_C2V ? SP_VEC : SP_MAT;
      if (v->sp != want || f != (cl->args[0].e == PIPE_C2V))
        die("memplan: '%s' popped from %s into %s on the %s", v->name, cl->args[0].e == PIPE_C2V ? "c2v" : "v2c",
            ir_space_name(v->sp), f ? "aiv" : "aic");
      v->off = 0;
    } else if (ir_ops[cl->op].kind == K_SLICE && views) {
      const Var *p = cl->args[0].var;
      if (p->off < 0) die("memplan: view '%s' of '%s', which has no offset", v->name, p->name);
      v->off = (int32_t)(p->off + window_off(p, &cl->args[1]));
    }
  }
}

/* Place core f's buffers (fn its program); E-CAPACITY when the placement, or
 * the peak it rests on, does not fit. owner: the core that placed each var. */
static void plan_in(Comp *c, Arena *S, Kernel *k, int f, const Stmt *fn, int8_t *owner) {
  MP a, b;
  ranges(&a, c, S, k, fn, false);
  bool two = has_if(&fn->body);
  if (two) ranges(&b, c, S, k, fn, true);
  const MP *pb = two ? &b : &a;
  int64_t peak[SP_N], p2[SP_N];
  peak_m(&a, k, fn, peak, SP_VEC, NULL, NULL);
  if (two) {
    peak_m(&b, k, fn, p2, SP_VEC, NULL, NULL);
    for (int s = 0; s < SP_N; s++)
      if (p2[s] > peak[s]) peak[s] = p2[s];
  }
  int dir = f ? PIPE_C2V : PIPE_V2C;
  int64_t entry = largest(&fn->body, W_POP + dir), res = (int64_t)slots_of(k, dir) * entry;
  capacity(c, k, f, fn, E_CAPACITY, peak, res);

  int n = k->nvars, nb = 0;
  Ord *ord = ir_alloc_raw(S, (size_t)(n ? n : 1) * sizeof *ord);
  int64_t *sz = ir_alloc(S, (size_t)(n ? n : 1) * sizeof *sz);
  bool *buf = ir_alloc(S, (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    const Var *v = k->vars[i];
    if (v->kind != VK_TILE || !(a.other[i] || pb->other[i])) continue;
    if (owner[i] && owner[i] != f + 1) die("memplan: '%s' has a buffer on both cores", v->name);
    owner[i] = (int8_t)(f + 1);
    buf[i] = true;
    sz[i] = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
    ASSERT(sz[i] % 32 == 0);
    int64_t start = a.first[i] >= 0 ? a.first[i] : pb->first[i];
    ord[nb++] = (Ord){start, 0, i};
  }
  int64_t base[SP_N] = {0}, end[SP_N];
  const Var *top[SP_N];
  base[SP_LEFT] = a.lr[0] > pb->lr[0] ? a.lr[0] : pb->lr[0];   /* lower's operands */
  base[SP_RIGHT] = a.lr[1] > pb->lr[1] ? a.lr[1] : pb->lr[1];
  base[f ? SP_VEC : SP_MAT] = res;
  sort_ord(ord, nb);
  place(k, &a, pb, ord, nb, sz, base, end, top);
  for (size_t si = 0; si < sizeof spaces / sizeof spaces[0]; si++) {
    Space sp = spaces[si];
    int64_t cap = ir_capacity(k->target, sp);
    if (end[sp] <= cap) continue;
    for (int i = 0; i < nb; i++) ord[i].k2 = ord[i].k1, ord[i].k1 = -sz[ord[i].id];   /* largest first */
    sort_ord(ord, nb);
    place(k, &a, pb, ord, nb, sz, base, end, top);
    for (size_t sj = 0; sj < sizeof spaces / sizeof spaces[0]; sj++) {
      sp = spaces[sj];
      cap = ir_capacity(k->target, sp);
      if (end[sp] <= cap) continue;
      ir_error(c, top[sp] ? top[sp]->loc : fn->loc, E_CAPACITY,
               "%s %s: the placed buffers end at %lld bytes (above %lld of pipe reserve or matmul operands; at "
               "most %lld live at once) but %s has %lld",
               f ? "aiv" : "aic", ir_space_name(sp), (long long)end[sp], (long long)base[sp],
               (long long)peak[sp], ir_target_name(k->target), (long long)cap);
    }
    break;
  }
  place_rest(&fn->body, buf, f, false);
  place_rest(&fn->body, buf, f, true);
  k->entry[dir] = (int32_t)entry;
  k->reserve[dir] = (int32_t)res;
  for (int s = 0; s < SP_N; s++)
    if (end[s] > k->top[s]) k->top[s] = (int32_t)end[s];
}

/* plan_in with its scratch in an arena of its own, freed when the core is
 * placed or the placement fails. */
static void plan(Comp *c, Kernel *k, int f, const Stmt *fn, int8_t *owner) {
  Arena *S = ir_arena_new();
  jmp_buf jb, *outer = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {
    ir_arena_free(S);
    c->jb = outer;
    if (!outer) die("diagnostic with nowhere to go: %s", c->diag.msg);
    longjmp(*outer, 1);
  }
  plan_in(c, S, k, f, fn, owner);
  c->jb = outer;
  ir_arena_free(S);
}

void pass_memplan(Comp *c, Kernel *k) {
  if (!k->expanded || k->lowered) return;       /* a lowered program is judged by B-CAP */
  memset(k->top, 0, sizeof k->top);
  int8_t *owner = ir_alloc(c->A, (size_t)(k->nvars ? k->nvars : 1));
  for (int f = 0; f < 2; f++) {
    const Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (fn) plan(c, k, f, fn, owner);
  }
  k->planned = true;
}

/* ---- the plan as text ------------------------------------------------------------------- */

typedef struct {
  int sp, kind;                                 /* kind: 0 reserve / operands, 1 buffer, 2 view, 3 popped */
  int64_t off, end;
  const Var *v, *p;
  int dir;
} Line;

static int by_line(const void *x, const void *y) {
  const Line *a = x, *b = y;
  if (a->sp != b->sp) return a->sp - b->sp;
  if (a->off != b->off) return a->off < b->off ? -1 : 1;
  if (a->kind != b->kind) return a->kind - b->kind;
  return (a->v ? a->v->id : -1) - (b->v ? b->v->id : -1);
}

static int rank_of(Space sp) {
  for (int i = 0; i < (int)(sizeof spaces / sizeof spaces[0]); i++)
    if (spaces[i] == sp) return i;
  return SP_N;
}

/* Each tile the body defines, once, by its first definition's kind (a buffer wins). */
static void collect(const Body *b, Line *ln, int *n, int *at) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      collect(&s->body, ln, n, at);
      collect(&s->other, ln, n, at);
      continue;
    }
    const Var *v = s->dst;
    if (!v || v->kind != VK_TILE || v->off < 0) continue;
    const Call *c = s->rhs.k == A_CALL ? s->rhs.call : NULL;
    int kind = c && c->op == OP_tpop ? 3 : c && ir_ops[c->op].kind == K_SLICE ? 2 : 1;
    if (c && c->op == OP_alloc_tile && c->nargs == 4) continue;
    Line *l = at[v->id] ? &ln[at[v->id] - 1] : &ln[(*n)++];
    if (at[v->id] && l->kind <= kind) continue;
    at[v->id] = (int)(l - ln) + 1;
    int64_t by = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
    *l = (Line){rank_of(v->sp), kind, v->off, v->off + by, v, kind == 2 ? c->args[0].var : NULL,
                kind == 3 ? c->args[0].e : 0};
  }
}

void ir_print_plan(FILE *f, Arena *A, const Kernel *k) {
  if (!k->planned) return;
  int *at = ir_alloc(A, ((size_t)k->nvars + 1) * sizeof *at);
  Line *ln = ir_alloc(A, ((size_t)k->nvars + 4) * sizeof *ln);
  for (int fi = 0; fi < 2; fi++) {
    const Stmt *fn = ir_func(k, fi ? FN_AIV : FN_AIC);
    if (!fn) continue;
    const char *core = fi ? "aiv" : "aic";
    int n = 0;
    memset(at, 0, ((size_t)k->nvars + 1) * sizeof *at);
    collect(&fn->body, ln, &n, at);
    int dir = fi ? PIPE_C2V : PIPE_V2C;
    int64_t res = reserve(k, fn, dir);
    if (res) ln[n++] = (Line){rank_of(fi ? SP_VEC : SP_MAT), 0, 0, res, NULL, NULL, dir};
    for (int j = 0; j < 2; j++) {
      int64_t o = fi ? 0 : largest(&fn->body, W_OPERAND + j);
      if (o) ln[n++] = (Line){rank_of(j ? SP_RIGHT : SP_LEFT), 0, 0, o, NULL, NULL, -1};
    }
    qsort(ln, (size_t)n, sizeof *ln, by_line);
    for (int i = 0; i < n; i++) {
      const Line *l = &ln[i];
      const char *sp = ir_space_name(spaces[l->sp]);
      if (l->kind == 0 && l->dir >= 0)
        fprintf(f, "# mem %s %s 0x%05llx-0x%05llx reserve(%s, %d x %d)\n", core, sp, (long long)l->off,
                (long long)l->end, l->dir == PIPE_C2V ? "c2v" : "v2c", slots_of(k, l->dir), k->entry[l->dir]);
      else if (l->kind == 0)
        fprintf(f, "# mem %s %s 0x%05llx-0x%05llx operands(matmul)\n", core, sp, (long long)l->off, (long long)l->end);
      else if (l->kind == 1)
        fprintf(f, "# mem %s %s 0x%05llx-0x%05llx %s\n", core, sp, (long long)l->off, (long long)l->end, l->v->name);
      else if (l->kind == 2)
        fprintf(f, "# mem %s %s 0x%05llx %s view(%s)\n", core, sp, (long long)l->off, l->v->name, l->p->name);
      else
        fprintf(f, "# mem %s %s 0x%05llx %s popped(%s)\n", core, sp, (long long)l->off, l->v->name,
                l->dir == PIPE_C2V ? "c2v" : "v2c");
      if (i + 1 < n && ln[i + 1].sp == l->sp) continue;
      int64_t top = 0;                          /* the space's highest end: buffers, reserve, operands */
      for (int q = 0; q < n; q++)
        if (ln[q].sp == l->sp && ln[q].kind <= 1 && ln[q].end > top) top = ln[q].end;
      fprintf(f, "# mem %s %s top 0x%05llx of 0x%05llx\n", core, sp, (long long)top,
              (long long)ir_capacity(k->target, spaces[l->sp]));
    }
  }
}
