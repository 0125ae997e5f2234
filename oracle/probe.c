/* probe.c — where a real back end's miscompile starts (the op of its signature).
 * Consumes a front-end kernel whose real variant computed outputs that differ
 * from the golden run; produces a probe kernel: the same program with every
 * tile the vector or the cube core computes stored, right after the statement
 * that computes it, into an output tensor of its own appended to the
 * parameters (so the inputs, drawn parameter by parameter, stay the same).
 * After the probe kernel went through the same variant, orc_probe_blame
 * compares each probe with the golden run in program order: the first tile
 * that differs names the op, "transfer" when that op's wrong tile came from
 * the other core's right ones; no differing tile names the output's "store".
 * A probe kernel that no longer miscompiles (the stores changed what the
 * compiler did) blames nothing: "-". */
#include "orc.h"

#include <stdio.h>
#include <string.h>


typedef struct {
  Comp *c;                                      /* the clone's arena */
  Kernel *k;                                    /* the clone, probes being added */
  const Kernel *sp;                             /* the same kernel after infer_space: every tile's space */
  OrcProbe *p;
} Walk;

static bool cube_side(Space s) { return s == SP_MAT || s == SP_ACC || s == SP_LEFT || s == SP_RIGHT; }

/* The blame of a statement whose tile is the first wrong one: its op's family,
 * or "transfer" when a tile operand lives on the other core (the tile reached
 * this op through a pipe: ptoc's expand_mixed put one there). */
static const char *blame_of(const Walk *w, const Stmt *s) {
  const Call *cl = s->rhs.call;
  bool cube = cube_side(w->sp->vars[s->dst->id]->sp);
  for (int i = 0; i < cl->nargs; i++) {
    const Var *o = cl->args[i].k == A_VAR ? cl->args[i].var : NULL;
    if (o && o->kind == VK_TILE && w->sp->vars[o->id]->sp != SP_NONE && cube_side(w->sp->vars[o->id]->sp) != cube)
      return "transfer";
  }
  const char *f = orc_op_family((int)cl->op);
  return f ? f : "-";
}

static bool probed(const Walk *w, const Stmt *s) {
  if (s->k != S_OP || !s->dst || s->dst->kind != VK_TILE || s->rhs.k != A_CALL) return false;
  OpKind kd = ir_ops[s->rhs.call->op].kind;
  if (kd == K_ALLOC || kd == K_PIPE || kd == K_TPOP || kd == K_SHARD || kd == K_JOIN) return false;
  Space sp = w->sp->vars[s->dst->id]->sp;
  return (sp == SP_VEC || sp == SP_ACC) && s->dst->R > 0 && s->dst->C > 0;
}

/* store(P, [0, 0], t) for a new output P shaped like t */
static Stmt *probe_store(Walk *w, const Stmt *s) {
  OrcProbe *p = w->p;
  const Var *t = s->dst;
  char name[64];
  int x = 0;
  for (;; x++) {                                /* a name no variable has */
    snprintf(name, sizeof name, "probe%d_%d", p->n, x);
    int i = 0;
    while (i < w->k->nvars && strcmp(w->k->vars[i]->name, name)) i++;
    if (i == w->k->nvars) break;
  }
  Var *P = ir_var_new(w->c, w->k, ir_fmt(w->c->A, "%s", name), VK_TENSOR, s->loc);
  P->dt = t->dt, P->rank = 2, P->dim[0] = t->R, P->dim[1] = t->C, P->dir = DIR_OUT;
  P->off = -1;
  Stmt *st = ir_stmt_op(w->c, s->loc, NULL, OP_store, 3);
  Call *cl = st->rhs.call;
  cl->args[0].k = A_VAR, cl->args[0].var = P;
  ir_arg_idx(w->c->A, &cl->args[1], ir_aff_cst(0), ir_aff_cst(0));
  cl->args[2].k = A_VAR, cl->args[2].var = (Var *)t;
  p->blame[p->n] = blame_of(w, s);
  if (t->name[0] == '_')                        /* flatten's temporary: the op alone */
    snprintf(p->what[p->n], sizeof p->what[p->n], "%s at %d:%d", ir_ops[s->rhs.call->op].name, s->rhs.call->loc.line,
             s->rhs.call->loc.col);
  else
    snprintf(p->what[p->n], sizeof p->what[p->n], "%s = %s at %d:%d", t->name, ir_ops[s->rhs.call->op].name,
             s->rhs.call->loc.line, s->rhs.call->loc.col);
  p->n++;
  return st;
}

static void walk(Walk *w, Body *b) {
  Body nb = {0};
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    ir_body_push(w->c, &nb, s);
    if (s->k == S_FOR || s->k == S_IF || s->k == S_COND) {   /* not split_aiv: its tiles are per lane */
      walk(w, &s->body);
      walk(w, &s->other);
    }
    if (w->p->n < ORC_MAX_PROBES && probed(w, s)) ir_body_push(w->c, &nb, probe_store(w, s));
  }
  *b = nb;
}

bool orc_probe_build(Arena *A, const Src *src, const Kernel *front, int split, int target, OrcProbe *p) {
  memset(p, 0, sizeof *p);
  if (front->expanded) return false;            /* per-core programs: their pipes are the author's */
  Comp c = {.A = A, .src = *src, .o = {.split = split, .target = target}};
  const Kernel *sp = pass_pipeline_from(&c, front, &(PipeOpts){.stop_after = "infer_space"});
  if (!sp) return false;
  Kernel *k = ir_clone(A, front);
  Walk w = {&c, k, sp, p};
  int np0 = k->np;
  walk(&w, &k->body);
  if (!p->n) return false;
  Var **params = ir_alloc(A, sizeof *params * (size_t)(np0 + p->n));
  memcpy(params, k->params, sizeof *params * (size_t)np0);
  for (int i = 0, j = 0; i < k->nvars; i++)     /* the probes, in the order they were made */
    if (k->vars[i]->kind == VK_TENSOR && k->vars[i]->dir == DIR_OUT && j < p->n && i >= front->nvars)
      params[np0 + j++] = k->vars[i];
  k->params = params;
  k->np = np0 + p->n;
  p->first = np0;
  p->text = ir_print_str(A, k);
  p->src = (Src){src->name, p->text, strlen(p->text)};
  return true;
}

int orc_probe_blame(const OrcProbe *p, const Kernel *pk, Sim *g, unsigned char *const *outs) {
  bool wrong = false;                           /* an output of the kernel itself still differs */
  int first = -1;
  for (int i = 0; i < pk->np; i++) {
    const Var *T = pk->params[i];
    if (T->dir == DIR_IN || !outs[i]) continue;
    Gm *a = sim_gm(g, T);
    if (!memcmp(a->bytes, outs[i], (size_t)a->rows * a->cols * (size_t)ir_dtype_bytes(T->dt))) continue;
    if (i < p->first) wrong = true;
    else if (first < 0) first = i - p->first;
  }
  if (!wrong) return ORC_PROBE_MASKED;
  return first < 0 ? ORC_PROBE_STORE : first;
}
