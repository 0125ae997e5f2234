/* memplan.c — pass 10: per-core IR -> the same IR, or unsupported
 * E-CAPACITY. For each core and space it finds the most bytes live at once:
 * every tile value is live from its first definition to its last use in
 * program order, stretched over a whole loop when it is live into the loop
 * (defined before it, or read in it before being redefined); sizes are the
 * padded allocation sizes of layout.c; tiles popped from a pipe live in the
 * pipe's reserve, which the consumer holds for the whole program: slots x the
 * largest entry it pops (vec on each lane for C2V, where a split transfer
 * brings only the lane's part; mat on the AIC for V2C); left/right
 * hold the operands of one matmul at a time. A dual-lane program is measured
 * along lane 0's branch and along the replay, and the larger counts. The same
 * computation serves verify_backend's B-CAP. */
#include "ptoc.h"

#include <string.h>

typedef struct {
  Comp *c;
  Kernel *k;
  int pos;
  int *first, *last, *firstdef;                 /* by var id */
  bool *popped, *other;                         /* defined by tpop / by an op that needs a buffer */
  const Var **parent;                           /* a view's parent buffer (slice, subview) */
  struct {
    int s, e;
  } loops[256];
  int nloops;
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
      if (m->nloops < 256) m->loops[m->nloops].s = st, m->loops[m->nloops++].e = m->pos;
      continue;
    }
    if (s->k == S_SPLIT) {
      walk(m, &s->body);
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

/* Peak bytes per space of one core's program; where: the point of the peak of
 * `sp_of_interest`, top: the largest values live there. */
static void peak_of(Comp *c, Kernel *k, const Stmt *fn, bool replay, int64_t peak[SP_N], Space interest,
                    Loc *where, const Var *top[3]) {
  MP m = {.c = c, .k = k, .replay = replay};
  int n = k->nvars;
  m.first = ir_alloc(c->A, (size_t)n * sizeof(int));
  m.last = ir_alloc(c->A, (size_t)n * sizeof(int));
  m.firstdef = ir_alloc(c->A, (size_t)n * sizeof(int));
  m.popped = ir_alloc(c->A, (size_t)n);
  m.other = ir_alloc(c->A, (size_t)n);
  m.parent = ir_alloc(c->A, (size_t)n * sizeof *m.parent);
  for (int i = 0; i < n; i++) m.first[i] = m.last[i] = m.firstdef[i] = -1;
  walk(&m, &fn->body);
  for (int i = 0; i < n; i++) {
    if (m.first[i] < 0) continue;
    for (int l = 0; l < m.nloops; l++) {
      int ls = m.loops[l].s, le = m.loops[l].e;
      bool used_in = m.last[i] > ls && m.first[i] <= le;
      bool live_in = m.firstdef[i] <= ls || m.first[i] < m.firstdef[i] || m.firstdef[i] < 0;
      if (used_in && live_in) {
        if (ls + 1 < m.first[i]) m.first[i] = ls + 1;
        if (le > m.last[i]) m.last[i] = le;
      }
    }
  }
  memset(peak, 0, SP_N * sizeof *peak);
  int best = 0;
  int64_t bestv = -1;
  int64_t (*delta)[SP_N] = ir_alloc(c->A, ((size_t)m.pos + 2) * sizeof *delta);   /* live bytes change at p */
  for (int i = 0; i < n; i++) {
    const Var *v = k->vars[i];
    if (m.first[i] < 0 || (m.popped[i] && !m.other[i])) continue;
    int64_t by = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
    delta[m.first[i]][v->sp] += by;
    delta[m.last[i] + 1][v->sp] -= by;
  }
  int64_t sum[SP_N] = {0};
  for (int p = 1; p <= m.pos; p++) {
    for (int s = 0; s < SP_N; s++) {
      sum[s] += delta[p][s];
      if (sum[s] > peak[s]) peak[s] = sum[s];
    }
    if (sum[interest] > bestv) bestv = sum[interest], best = p;
  }
  peak[SP_LEFT] = m.lr[0];
  peak[SP_RIGHT] = m.lr[1];
  if (where) {
    *where = fn->loc;
    const Var *t[3] = {NULL, NULL, NULL};
    int64_t tb[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
      const Var *v = k->vars[i];
      if (m.first[i] < 0 || m.first[i] > best || m.last[i] < best || v->sp != interest) continue;
      if (m.popped[i] && !m.other[i]) continue;
      int64_t by = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
      for (int j = 0; j < 3; j++)
        if (by > tb[j]) {
          for (int q = 2; q > j; q--) t[q] = t[q - 1], tb[q] = tb[q - 1];
          t[j] = v, tb[j] = by;
          break;
        }
      if (m.firstdef[i] == best) *where = v->loc;
    }
    if (top) memcpy(top, t, sizeof t);
  }
}

/* The largest entry one consumer pops from dir (a lane's part of a split C2V
 * transfer, the joined tile of a V2C transfer), padded in its space. */
static int64_t largest_pop(const Body *b, int dir) {
  int64_t m = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    int64_t x = 0;
    if (s->k != S_OP) {
      x = largest_pop(&s->body, dir);
      int64_t y = largest_pop(&s->other, dir);
      x = x > y ? x : y;
    } else if (s->rhs.k == A_CALL && s->rhs.call->op == OP_tpop && s->rhs.call->args[0].e == dir) {
      const Var *v = s->dst;
      x = ir_tile_bytes(v->sp, v->dt, v->R, v->C);
    }
    if (x > m) m = x;
  }
  return m;
}

/* A consumer keeps slots x (its largest entry) for the whole program. */
void ir_mem_peak(Comp *c, Kernel *k, const Stmt *fn, int64_t peak[SP_N], Space interest, Loc *where,
                 const Var *top[3]) {
  int64_t p2[SP_N];
  Loc w2;
  const Var *t2[3];
  peak_of(c, k, fn, false, peak, interest, where, top);
  peak_of(c, k, fn, true, p2, interest, where ? &w2 : NULL, top ? t2 : NULL);
  bool second = p2[interest] > peak[interest];
  for (int s = 0; s < SP_N; s++)
    if (p2[s] > peak[s]) peak[s] = p2[s];
  if (second && where) *where = w2;
  if (second && top) memcpy(top, t2, sizeof t2);
}

static int64_t reserve(const Kernel *k, const Stmt *fn, int dir) {
  for (int i = 0; i < k->body.n; i++) {
    const Stmt *s = k->body.v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_pipe && s->rhs.call->args[0].e == dir)
      return (int64_t)s->rhs.call->args[1].num * largest_pop(&fn->body, dir);
  }
  return 0;
}

void ir_mem_check(Comp *c, Kernel *k, DiagCode code) {
  static const Space spaces[] = {SP_VEC, SP_MAT, SP_ACC, SP_LEFT, SP_RIGHT};
  for (int f = 0; f < 2; f++) {
    const Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (!fn) continue;
    int64_t peak[SP_N];
    ir_mem_peak(c, k, fn, peak, SP_VEC, NULL, NULL);   /* every space's peak at once */
    for (size_t si = 0; si < sizeof spaces / sizeof spaces[0]; si++) {
      Space sp = spaces[si];
      int64_t res = (f && sp == SP_VEC) ? reserve(k, fn, PIPE_C2V) : (!f && sp == SP_MAT) ? reserve(k, fn, PIPE_V2C) : 0;
      int64_t cap = ir_capacity(k->target, sp);
      if (peak[sp] + res <= cap) continue;
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
}

void pass_memplan(Comp *c, Kernel *k) {
  if (!k->expanded || k->lowered) return;       /* a lowered program is judged by B-CAP */
  ir_mem_check(c, k, E_CAPACITY);
}
