/* ir.c — the op table instance, names of enums, and small IR helpers
 * (variables, bodies, affine ranges, argument lookup). */
#include "ptoc.h"

#include <string.h>

const OpInfo ir_ops[OP_N] = {
#define OP(n, lo, hi, sd, k, kw) {#n, lo, hi, sd, k, kw},
#include "ops.def"
#undef OP
};

int ir_op_lookup(const char *s, size_t n) {
  for (int i = 0; i < OP_N; i++)
    if (strlen(ir_ops[i].name) == n && !memcmp(ir_ops[i].name, s, n)) return i;
  return -1;
}

static const char *const kwnames[KW_N] = {"", "valid", "space", "trans_b", "block_size",
                                          "size", "max_indices", "col_off"};
const char *ir_kw_name(Kw k) { return k < KW_N ? kwnames[k] : "?"; }
const char *ir_dtype_name(Dtype d) { return d == DT_F32 ? "f32" : d == DT_F16 ? "f16" : "i32"; }
const char *ir_space_name(Space s) {
  static const char *const n[SP_N] = {"none", "vec", "mat", "acc"};
  return s < SP_N ? n[s] : "?";
}
const char *ir_mode_name(Mode m) { return m == MODE_UD ? "up_down" : m == MODE_LR ? "left_right" : "none"; }
const char *ir_target_name(Target t) { return t == TGT_A5 ? "a5" : "a2a3"; }
int ir_dtype_bytes(Dtype d) { return d == DT_F16 ? 2 : 4; }

Var *ir_var_new(Comp *c, Kernel *k, const char *name, VarKind kind, Loc loc) {
  Var *v = ir_alloc(c->A, sizeof *v);
  v->name = name;
  v->kind = kind;
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

bool ir_aff_const(const Aff *a) { return a->n == 0; }

int ir_loop_trips(const Var *v) {
  if (v->kind == VK_LANE) return 2;
  if (v->kind != VK_LOOP) return 1;
  if (v->hi <= v->lo || v->step <= 0) return 0;
  return (int)(((int64_t)v->hi - v->lo + v->step - 1) / v->step);
}

int ir_loop_last(const Var *v) {
  if (v->kind == VK_LANE || v->kind == VK_SCALAR) return 1;
  int t = ir_loop_trips(v);
  return t ? v->lo + (t - 1) * v->step : v->lo;
}

/* Exact range of an affine expression over the box of its variables' values. */
void ir_aff_range(const Kernel *k, const Aff *a, int64_t *lo, int64_t *hi) {
  int64_t l = a->c, h = a->c;
  for (int i = 0; i < a->n; i++) {
    const Var *v = k->vars[a->v[i]];
    int64_t first = (v->kind == VK_LOOP) ? v->lo : 0, last = ir_loop_last(v);
    int64_t x = a->k[i] * first, y = a->k[i] * last;
    l += x < y ? x : y;
    h += x < y ? y : x;
  }
  *lo = l;
  *hi = h;
}

Arg *ir_kwarg(Call *c, Kw kw) {
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].kw == kw) return &c->args[i];
  return NULL;
}

Arg *ir_pos(Call *c, int i) {
  for (int j = 0; j < c->nargs; j++)
    if (c->args[j].kw == KW_NONE && i-- == 0) return &c->args[j];
  return NULL;
}

int ir_npos(const Call *c) {
  int n = 0;
  for (int j = 0; j < c->nargs; j++) n += c->args[j].kw == KW_NONE;
  return n;
}
