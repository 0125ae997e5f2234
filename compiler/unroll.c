/* unroll.c — pass 9: per-core IR -> per-core IR in which every loop that
 * carries a transfer (tpush, tpop, tfree, sync) and runs at most 16 times is
 * unrolled on each side, so slots can be assigned statically. Only that
 * side's own loop body is copied (the other side's ops were never cloned
 * there), so growth stays linear in trip count x the side's own body; the
 * loop variable becomes a constant in each copy. `--unroll=off` skips the
 * pass. The counts before and after are kept for the oracle's blowup budget;
 * they saturate at 2^60 (nested loops of 2^20 trips multiply past int64), and
 * a loop whose unrolled index constants would leave +-2^30 (what Aff holds)
 * stays a loop. */
#include "ptoc.h"

#include <string.h>

typedef struct {
  Comp *c;
  Kernel *k;
  Body scope;                                   /* unroll-deep-clone: a copy of the enclosing program or region */
} UR;

static bool is_pipe(const Call *c) { return ir_ops[c->op].side == SD_PIPE; }
static bool carries(const Body *b) { return ir_any_call(b, is_pipe); }

enum { IX_LIM = 1 << 30 };
static const int64_t COUNT_SAT = (int64_t)1 << 60;

/* Would substituting each value in [lo, hi] for var keep a's constant within +-2^30? */
static bool aff_fits(const Aff *a, int var, int lo, int hi) {
  for (int i = 0; i < a->n; i++)
    if (a->v[i] == var) {
      int64_t x = a->c + (int64_t)a->k[i] * lo, y = a->c + (int64_t)a->k[i] * hi;
      return x >= -IX_LIM && x <= IX_LIM && y >= -IX_LIM && y <= IX_LIM;
    }
  return true;
}
static bool body_fits(const Body *b, int var, int lo, int hi) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      if ((s->k == S_COND && (!aff_fits(&s->cond[0], var, lo, hi) || !aff_fits(&s->cond[1], var, lo, hi))) ||
          !body_fits(&s->body, var, lo, hi) ||
          !body_fits(&s->other, var, lo, hi))
        return false;
      continue;
    }
    if (s->rhs.k != A_CALL) continue;
    const Call *c = s->rhs.call;
    for (int j = 0; j < c->nargs; j++)
      if ((c->args[j].k == A_IDX || c->args[j].k == A_IEXPR) &&
          (!aff_fits(&c->args[j].ix[0], var, lo, hi) || !aff_fits(&c->args[j].ix[1], var, lo, hi)))
        return false;
  }
  return true;
}

static void subst(Aff *a, int var, int val) {
  for (int i = 0; i < a->n; i++)
    if (a->v[i] == var) {
      int64_t c = a->c + (int64_t)a->k[i] * val;
      ASSERT(c >= -IX_LIM && c <= IX_LIM);       /* body_fits said so */
      a->c = (int32_t)c;
      memmove(&a->v[i], &a->v[i + 1], (size_t)(a->n - i - 1) * sizeof a->v[0]);
      memmove(&a->k[i], &a->k[i + 1], (size_t)(a->n - i - 1) * sizeof a->k[0]);
      a->n--;
      return;
    }
}

static Body copy_body(UR *u, const Body *b, int var, int val);
static Stmt *copy_stmt(UR *u, const Stmt *s, int var, int val) {
  Stmt *r = ir_alloc(u->c->A, sizeof *r);
  *r = *s;
  if (s->k != S_OP) {
    r->body = copy_body(u, &s->body, var, val);
    r->other = copy_body(u, &s->other, var, val);
    if (s->k == S_COND) {
      Aff *cd = ir_pair_own(u->c->A, &r->cond);
      subst(&cd[0], var, val);
      subst(&cd[1], var, val);
    }
    return r;
  }
  if (s->rhs.k != A_CALL) return r;
  Call *c = ir_alloc(u->c->A, sizeof *c);
  *c = *s->rhs.call;
  c->args = ir_alloc(u->c->A, (size_t)(c->nargs ? c->nargs : 1) * sizeof *c->args);
  memcpy(c->args, s->rhs.call->args, (size_t)c->nargs * sizeof *c->args);
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].k == A_IDX || c->args[i].k == A_IEXPR) {
      Aff *ix = ir_arg_ix(u->c->A, &c->args[i]);
      subst(&ix[0], var, val);
      subst(&ix[1], var, val);
    }
  r->rhs.call = c;
  return r;
}
static Body copy_body(UR *u, const Body *b, int var, int val) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) ir_body_push(u->c, &out, copy_stmt(u, b->v[i], var, val));
  return out;
}

/* unroll-deep-clone: with each iteration the whole body around the loop (the
 * core's program, or its split_aiv region) is cloned too, kept as dead code:
 * for _dN in range(0, 0) { ... }. */
static Stmt *dead_clone(UR *u, const Stmt *loop, int t) {
  Stmt *d = ir_alloc(u->c->A, sizeof *d);
  d->k = S_FOR;
  d->loc = loop->loc;
  d->iv = ir_temp(u->c, u->k, "d", VK_LOOP, loop->loc);
  d->iv->lo = d->iv->hi = 0;
  d->iv->step = 1;
  d->body = copy_body(u, &u->scope, loop->iv->id, loop->iv->lo + t * loop->iv->step);
  return d;
}

static void body(UR *u, Body *b) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->k != S_OP) {
      Body outer = u->scope;
      if (s->k == S_SPLIT && IR_BUG(u->c, unroll_deep_clone)) u->scope = copy_body(u, &s->body, -1, 0);
      body(u, &s->body);
      body(u, &s->other);
      u->scope = outer;
    }
    int trips = s->k == S_FOR ? ir_loop_trips(s->iv) : 0;
    if (s->k == S_FOR && trips <= 16 && carries(&s->body) &&
        body_fits(&s->body, s->iv->id, s->iv->lo, ir_loop_last(s->iv))) {
      for (int t = 0; t < trips; t++) {
        Body cp = copy_body(u, &s->body, s->iv->id, s->iv->lo + t * s->iv->step);
        for (int j = 0; j < cp.n; j++) ir_body_push(u->c, &out, cp.v[j]);
        if (IR_BUG(u->c, unroll_deep_clone)) ir_body_push(u->c, &out, dead_clone(u, s, t));
      }
      continue;
    }
    ir_body_push(u->c, &out, s);
  }
  *b = out;
}

static int64_t sat_add(int64_t a, int64_t b) { return a > COUNT_SAT - b ? COUNT_SAT : a + b; }
static int64_t sat_mul(int64_t a, int64_t b) { return b && a > COUNT_SAT / b ? COUNT_SAT : a * b; }

/* Statements of a body, loops expanded (weight) or as written; at most 2^60. */
static int64_t count(const Body *b, bool expand) {
  int64_t n = 0;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_OP) n = sat_add(n, 1);
    else
      n = sat_add(n, sat_add(sat_mul(s->k == S_FOR && expand ? ir_loop_trips(s->iv) : 1, count(&s->body, expand)),
                             count(&s->other, expand)));
  }
  return n;
}

void pass_unroll(Comp *c, Kernel *k) {
  if (c->o.unroll_off || !k->expanded) return;
  UR u = {c, k, {0}};
  for (int f = 0; f < 2; f++) {
    Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (!fn) continue;
    k->own_ops[f] = count(&fn->body, true);
    if (IR_BUG(c, unroll_deep_clone)) u.scope = copy_body(&u, &fn->body, -1, 0);   /* as before the pass */
    body(&u, &fn->body);
    k->unrolled_ops[f] = count(&fn->body, false);
  }
}
