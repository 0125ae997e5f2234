/* flatten.c — pass 2: typed source IR with nested calls -> one op per
 * statement. Every nested call becomes an assignment to a fresh temporary
 * (named _tN, unique in the kernel) placed just before its statement, in
 * evaluation order (arguments left to right, depth first). */
#include "ptoc.h"

#include <string.h>

typedef struct {
  Comp *c;
  Kernel *k;
  int next;
} F;

static const char *fresh(F *f) {
  for (;;) {
    const char *n = ir_fmt(f->c->A, "_t%d", ++f->next);
    bool used = false;
    for (int i = 0; i < f->k->nvars && !used; i++) used = !strcmp(f->k->vars[i]->name, n);
    if (!used) return n;
  }
}

static void hoist(F *f, Body *out, Call *c) {
  for (int i = 0; i < c->nargs; i++) {
    Arg *a = &c->args[i];
    if (a->k != A_CALL) continue;
    hoist(f, out, a->call);
    Var *v = ir_var_new(f->c, f->k, fresh(f), VK_TILE, a->loc);
    Type ty = a->call->ty;
    ASSERT(ty.k == TY_TILE);
    v->typed = true;
    v->dt = ty.dt;
    v->sp = ty.sp;
    v->R = ty.R;
    v->C = ty.C;
    v->lane = ty.lane;
    v->svr = ty.vr;
    v->svc = ty.vc;
    Stmt *s = ir_alloc(f->c->A, sizeof *s);
    s->k = S_OP;
    s->loc = a->loc;
    s->dst = v;
    s->rhs = *a;
    s->rhs.kw = KW_NONE;
    ir_body_push(f->c, out, s);
    Kw kw = a->kw;
    memset(a, 0, sizeof *a);
    a->k = A_VAR;
    a->kw = kw;
    a->loc = s->loc;
    a->var = v;
  }
}

static void body(F *f, Body *b) {
  Body out = {0};
  for (int i = 0; i < b->n; i++) {
    Stmt *s = b->v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL) hoist(f, &out, s->rhs.call);
    else if (s->k != S_OP) body(f, &s->body), body(f, &s->other);
    ir_body_push(f->c, &out, s);
  }
  *b = out;
}

void pass_flatten(Comp *c, Kernel *k) {
  F f = {c, k, 0};
  body(&f, &k->body);
}
