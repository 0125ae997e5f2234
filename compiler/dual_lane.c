/* dual_lane.c — pass 7: on a two-lane target (a2a3) a mixed kernel compiled
 * without a split still runs its vector program on both lanes, because every
 * C2V transfer is copied to both and every V2C transfer waits for both. The
 * aiv program becomes
 *     for lane in split_aiv(2) { if lane == 0 { body } replay { replay } }
 * An explicitly split kernel with vector statements outside its split_aiv
 * regions becomes one region instead: both lanes compute the outer values
 * (the regions may read them), only lane 0 stores them (store lane=0), and
 * the regions are inlined with their lane variable renamed. The replay keeps the transfers and the index arithmetic, makes every
 * load, slice, gather and constant a zero-valid tile (a popped tile is trimmed
 * to valid 0 after its pop), moves every assemble to offset [0, 0] (an
 * assemble's valid extent grows to its offset), so every tile it computes is
 * empty, and deletes the stores. Consumes and produces per-core IR. */
#include "ptoc.h"

#include <string.h>

static Stmt *copy_stmt(Comp *c, const Stmt *s) {
  Stmt *r = ir_alloc(c->A, sizeof *r);
  *r = *s;
  if (s->k == S_OP && s->rhs.k == A_CALL) {
    Call *cl = ir_alloc(c->A, sizeof *cl);
    *cl = *s->rhs.call;
    cl->args = ir_alloc(c->A, (size_t)(cl->nargs ? cl->nargs : 1) * sizeof *cl->args);
    memcpy(cl->args, s->rhs.call->args, (size_t)cl->nargs * sizeof *cl->args);
    r->rhs.call = cl;
  }
  return r;
}

static void zero_valid(Comp *c, Call *cl) {
  Arg *v = ir_kwarg_add(c, cl, cl->op == OP_paged_gather ? KW_WINDOW : KW_VALID);
  ir_arg_idx(c->A, v, ir_aff_cst(0), ir_aff_cst(0));
}

static Body replay(Comp *c, Kernel *k, const Body *b) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_FOR) {
      Stmt *r = copy_stmt(c, s);
      r->body = replay(c, k, &s->body);
      ir_body_push(c, &out, r);
      continue;
    }
    if (s->k != S_OP) die("dual_lane: statement kind %d in an unsplit vector program", s->k);
    /* replay-keeps-store: the replay forgets to delete the stores */
    if (s->rhs.k == A_CALL && s->rhs.call->op == OP_store && !IR_BUG(c, replay_keeps_store)) continue;
    Stmt *r = copy_stmt(c, s);
    ir_body_push(c, &out, r);
    if (r->rhs.k != A_CALL) continue;
    Call *cl = r->rhs.call;
    switch (ir_ops[cl->op].kind) {
    case K_LOAD: case K_SLICE: case K_GATHER: case K_FULL:
      zero_valid(c, cl);
      break;
    case K_ASSEMBLE:                            /* at [0, 0]: empty into empty stays empty */
      ir_arg_idx(c->A, &cl->args[2], ir_aff_cst(0), ir_aff_cst(0));
      break;
    case K_SETVALID:                            /* the replay's tiles stay empty */
      ir_arg_ix(c->A, &cl->args[1])[0] = ir_arg_ix(c->A, &cl->args[2])[0] = (Aff){0};
      break;
    case K_TPOP: {
      /* _r = tpop(...); x = slice(_r, [0, 0], [R, C], valid=[0, 0]) keeps the slot
       * protocol while the value is empty; the slot is freed where lane 0 frees it */
      Var *x = r->dst, *raw = ir_temp(c, k, "r", VK_TILE, r->loc);
      raw->dt = x->dt, raw->sp = x->sp, raw->R = x->R, raw->C = x->C;
      r->dst = raw;
      Stmt *sl = ir_stmt_op(c, r->loc, x, OP_slice, 4);
      Arg *g = sl->rhs.call->args;
      g[0].k = A_VAR, g[0].var = raw;
      ir_arg_idx(c->A, &g[1], ir_aff_cst(0), ir_aff_cst(0));
      ir_arg_idx(c->A, &g[2], ir_aff_cst(x->R), ir_aff_cst(x->C));
      ir_arg_idx(c->A, &g[3], ir_aff_cst(0), ir_aff_cst(0));
      g[3].kw = KW_VALID;
      ir_body_push(c, &out, sl);
      break;
    }
    default:
      break;
    }
  }
  return out;
}

static void relane_aff(Aff *a, int from, int to) {
  for (int i = 0; i < a->n; i++)
    if (a->v[i] == from) a->v[i] = to;
  for (int i = 1; i < a->n; i++)                /* keep terms ordered by id */
    for (int j = i; j > 0 && a->v[j - 1] > a->v[j]; j--) {
      int v = a->v[j];
      int32_t k = a->k[j];
      a->v[j] = a->v[j - 1], a->k[j] = a->k[j - 1];
      a->v[j - 1] = v, a->k[j - 1] = k;
    }
}

/* An explicitly split program with vector statements outside its regions:
 * both lanes compute those values (they may be read inside the regions), only
 * lane 0 stores them; the regions are inlined under one lane variable. */
static void inline_regions(Comp *c, Body *b, Var *lane, int from, Body *out) {
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->k == S_SPLIT) {
      inline_regions(c, &s->body, lane, s->iv->id, out);
      continue;
    }
    if (s->k == S_FOR || s->k == S_COND) {
      Body inner = {0}, other = {0};
      inline_regions(c, &s->body, lane, from, &inner);
      inline_regions(c, &s->other, lane, from, &other);
      s->body = inner;
      s->other = other;
      if (from >= 0 && s->k == S_COND) {
        Aff *cd = ir_pair_own(c->A, &s->cond);
        relane_aff(&cd[0], from, lane->id), relane_aff(&cd[1], from, lane->id);
      }
    } else if (s->k == S_OP && s->rhs.k == A_CALL) {
      Call *cl = s->rhs.call;
      for (int j = 0; j < cl->nargs && from >= 0; j++)
        if (cl->args[j].k == A_IDX || cl->args[j].k == A_IEXPR) {
          Aff *ix = ir_arg_ix(c->A, &cl->args[j]);
          relane_aff(&ix[0], from, lane->id);
          relane_aff(&ix[1], from, lane->id);
        }
      if (from < 0 && cl->op == OP_store && !ir_kwarg(cl, KW_LANE)) {
        Arg *l = ir_kwarg_add(c, cl, KW_LANE);
        l->k = A_NUM;
        l->isint = true;
        l->num = 0;
      }
    }
    ir_body_push(c, out, s);
  }
}

static bool all_split(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_SPLIT) continue;
    if (s->k != S_FOR || !ir_has_split_aiv(&s->body) || !all_split(&s->body)) return false;
  }
  return true;
}

void pass_dual_lane(Comp *c, Kernel *k) {
  Stmt *aic = ir_func(k, FN_AIC), *aiv = ir_func(k, FN_AIV);
  if (!aic || !aiv || !aiv->body.n) return;
  bool split = ir_has_split_aiv(&aiv->body);
  if (split ? all_split(&aiv->body) : (k->target != TGT_A2A3 || !aic->body.n)) return;
  const char *ln = "lane";
  for (int i = 0; i < k->nvars && ln; i++)
    if (!strcmp(k->vars[i]->name, ln)) ln = NULL;
  Var *lane = ln ? ir_var_new(c, k, ln, VK_LANE, k->loc) : ir_temp(c, k, "lane", VK_LANE, k->loc);
  Stmt *sp = ir_alloc(c->A, sizeof *sp);
  sp->k = S_SPLIT;
  sp->loc = aiv->loc;
  sp->iv = lane;
  if (split) {
    inline_regions(c, &aiv->body, lane, -1, &sp->body);
  } else {
    Stmt *iff = ir_alloc(c->A, sizeof *iff);
    iff->k = S_IF;
    iff->loc = aiv->loc;
    iff->iv = lane;
    iff->body = aiv->body;
    iff->other = replay(c, k, &aiv->body);
    ir_body_push(c, &sp->body, iff);
  }
  aiv->body = (Body){0};
  ir_body_push(c, &aiv->body, sp);
}
