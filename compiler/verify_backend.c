/* verify_backend.c — pass 12: checks the lowered program the way the PTO
 * assembler would; consumes and produces the same IR. A failure is the
 * compiler's own fault (category internal). Rules (DESIGN 5.3):
 *   B-TILE    buffers: a known space for the core, valid within the shape
 *   B-ALIGN   allocations: row-major vec cols*elem % 32, column-major vec
 *             rows*elem % 32, fractal rows and cols multiples of the box
 *             (rows waived for one row); subviews of fractal parents: sizes
 *             and constant offsets box multiples (DESIGN has this under
 *             B-SUBVIEW; docs/decisions.md); a gather_row's window into a
 *             fractal tile: its box= rows a multiple of the box (DESIGN 14.9)
 *   B-SUBVIEW sizes > 0, constant offsets >= 0, constant valid in [0, size],
 *             window inside the parent
 *   B-PART    tload/tstore partitions inside the GM tensor, every size
 *             positive (PTOAS; an empty tile is set_validshape, DESIGN 14.8)
 *   B-STORE   partition elements = the source's valid elements (static,
 *             non-zero); source in vec, mat, acc (a2a3) or vec, acc (a5)
 *   B-LOAD    destination vec or mat, element widths equal
 *   B-MOV     tmov pairs: mat->left/right, vec->vec, acc->mat, acc->vec, and
 *             vec->mat on a5
 *   B-REDUCE  a reduction's declared destination valid: row [src.vr, 1],
 *             column [1, src.vc], [0,0] the empty marker
 *   B-EXPAND  the expanded operand's valid rows (cols) equal the tile's
 *   B-MATMUL  left x right -> acc, m, k, n <= 4095, dtype triples
 *   B-PIPE    codes 0..4, parity of the extent, V2C codes 0..2, entries no
 *             larger than the slot, the direction declared
 *   B-CAP     live bytes per core and space within capacity (memplan.c) */
#include "ptoc.h"

typedef struct {
  Comp *c;
  Kernel *k;
  Func fn;
  int64_t slot[2];
  bool declared[2];
} VB;

#define FAIL(loc, code, ...) ir_error(v->c, loc, code, __VA_ARGS__)

static bool fractal(Space sp) { return sp == SP_MAT || sp == SP_ACC || sp == SP_LEFT || sp == SP_RIGHT; }

static void alloc(VB *v, const Call *c, const Var *d) {
  Space sp = (Space)c->args[0].e;
  Dtype dt = (Dtype)c->args[1].e;
  if (sp == SP_NONE || (v->fn == FN_AIV) != (sp == SP_VEC))
    FAIL(c->loc, B_TILE, "alloc_tile in %s on the %s core", ir_space_name(sp), v->fn == FN_AIV ? "vector" : "cube");
  const Arg *al = ir_pos((Call *)c, 3);
  if (!al) return;
  int R = d->R, C = d->C, Rp = al->ix[0].c, Cp = al->ix[1].c, e = ir_dtype_bytes(dt), br, bc;
  switch (ir_layout(sp, R, C)) {
  case LAY_ROW:
    if (Cp * e % 32) FAIL(c->loc, B_ALIGN, "row-major %s tile: %d cols x %d bytes is not a multiple of 32", ir_space_name(sp), Cp, e);
    break;
  case LAY_COL:
    if (Rp * e % 32) FAIL(c->loc, B_ALIGN, "column-major tile: %d rows x %d bytes is not a multiple of 32", Rp, e);
    break;
  case LAY_FRACTAL:
    ir_box(sp, dt, &br, &bc);
    if ((R > 1 && Rp % br) || Cp % bc)
      FAIL(c->loc, B_ALIGN, "fractal %s tile [%d, %d] is not made of %dx%d boxes", ir_space_name(sp), Rp, Cp, br, bc);
    break;
  }
}

static void subview(VB *v, const Call *c) {
  const Var *t = c->args[0].var;
  const Arg *o = &c->args[1], *sh = &c->args[2], *vl = ir_kwarg((Call *)c, KW_VALID);
  int size[2] = {sh->ix[0].c, sh->ix[1].c}, dim[2] = {t->R, t->C}, box[2] = {1, 1};
  if (fractal(t->sp)) ir_box(t->sp, t->dt, &box[0], &box[1]);
  for (int d = 0; d < 2; d++) {
    if (size[d] <= 0) FAIL(c->loc, B_SUBVIEW, "subview size %d on dim %d", size[d], d);
    if (ir_aff_const(&o->ix[d]) && o->ix[d].c < 0) FAIL(o->loc, B_SUBVIEW, "subview offset %d on dim %d", o->ix[d].c, d);
    /* zero-valid-reject: the legacy strict rule, a constant valid extent must be > 0 */
    int vmin = IR_BUG(v->c, zero_valid_reject) ? 1 : 0;
    if (vl && ir_aff_const(&vl->ix[d]) && (vl->ix[d].c < vmin || vl->ix[d].c > size[d]))
      FAIL(vl->loc, B_SUBVIEW, "subview valid %d outside [%d, %d] on dim %d", vl->ix[d].c, vmin, size[d], d);
    if (fractal(t->sp) && !(d == 0 && size[0] == 1 && t->R == 1) &&
        (size[d] % box[d] || (ir_aff_const(&o->ix[d]) && o->ix[d].c % box[d])))
      FAIL(c->loc, B_ALIGN, "subview of a fractal %s tile: size %d / offset on dim %d not a multiple of the %d box",
           ir_space_name(t->sp), size[d], d, box[d]);
    int64_t lo, hi;
    ir_aff_range(v->k, &o->ix[d], &lo, &hi);
    if (ir_aff_exact(v->k, &o->ix[d]) && (lo < 0 || hi + size[d] > dim[d]))
      FAIL(o->loc, B_SUBVIEW, "subview window [%lld, %lld) on dim %d outside the parent's %d", (long long)lo,
           (long long)(hi + size[d]), d, dim[d]);
  }
}

static void partition(VB *v, const Call *c, const Var *T, const Aff *off, const Aff *ext) {
  for (int d = 0; d < 2; d++)                   /* PTOAS: every partition size is positive */
    if (ir_aff_const(&ext[d]) && ext[d].c <= 0)
      FAIL(c->loc, B_PART, "%s of a zero-size partition of '%s' (dim %d): an empty tile is set_validshape(t, 0, 0), "
           "an empty store is none", ir_ops[c->op].name, T->name, d);
  for (int d = 0; d < 2; d++) {
    if (!ir_aff_exact(v->k, &off[d]) || !ir_aff_exact(v->k, &ext[d])) continue;
    int64_t lo, hi, elo, ehi, slo, shi;
    ir_aff_range(v->k, &off[d], &lo, &hi);
    ir_aff_range(v->k, &ext[d], &elo, &ehi);
    if (ehi <= 0) continue;
    ir_aff_range2(v->k, &off[d], &ext[d], 1, &slo, &shi);   /* offset and extent vary together */
    if (lo < 0 || shi > T->dim[d])
      FAIL(c->loc, B_PART, "partition [%lld, %lld) on dim %d outside '%s' (%d)", (long long)lo, (long long)shi, d,
           T->name, T->dim[d]);
  }
}

static void call(VB *v, const Stmt *s, const Call *c) {
  const Target tg = v->k->target;
  switch (c->op) {
  case OP_alloc_tile: alloc(v, c, s->dst); break;
  case OP_subview: subview(v, c); break;
  case OP_gather_row: {                         /* the row's window [box, C] at [row, 0], valid [1, C] */
    const Var *t = c->args[0].var;
    const Arg *bx = ir_kwarg((Call *)c, KW_BOX);
    int H = bx ? (int)bx->num : 1, br, bc;
    if (!fractal(t->sp) || t->R == 1) break;
    ir_box(t->sp, t->dt, &br, &bc);
    if (H % br)
      FAIL(c->loc, B_ALIGN, "gather_row into a fractal %s tile through a %d-row window: not a multiple of the %d-row box",
           ir_space_name(t->sp), H, br);
    break;
  }
  case OP_tload: {
    const Var *d = c->args[0].var, *T = c->args[1].var;
    if (d->sp != SP_VEC && d->sp != SP_MAT) FAIL(c->loc, B_LOAD, "tload into %s", ir_space_name(d->sp));
    if (ir_dtype_bytes(d->dt) != ir_dtype_bytes(T->dt)) FAIL(c->loc, B_LOAD, "tload element widths differ");
    partition(v, c, T, c->args[2].ix, c->args[3].ix);
    break;
  }
  case OP_tstore: {
    const Var *T = c->args[0].var, *t = c->args[2].var;
    bool ok = t->sp == SP_VEC || t->sp == SP_ACC || (t->sp == SP_MAT && tg == TGT_A2A3);
    if (!ok) FAIL(c->loc, B_STORE, "tstore from %s on %s", ir_space_name(t->sp), ir_target_name(tg));
    const Arg *p = ir_kwarg((Call *)c, KW_PART);
    if (p) {
      partition(v, c, T, c->args[1].ix, p->ix);
      if (ir_aff_const(&p->ix[0]) && ir_aff_const(&p->ix[1]) && t->svr > 0 && t->svc > 0) {
        int64_t pe = (int64_t)p->ix[0].c * p->ix[1].c, ve = (int64_t)t->svr * t->svc;
        if (pe && pe != ve)
          FAIL(c->loc, B_STORE, "tstore element count %lld vs %lld: partition [%d, %d], source valid [%d, %d]",
               (long long)ve, (long long)pe, p->ix[0].c, p->ix[1].c, t->svr, t->svc);
      }
    }
    break;
  }
  case OP_tmov: {
    Space a = c->args[0].var->sp, b = (Space)c->args[1].e;
    bool ok = (a == SP_MAT && (b == SP_LEFT || b == SP_RIGHT)) || (a == SP_VEC && b == SP_VEC) ||
              (a == SP_ACC && (b == SP_MAT || b == SP_VEC)) || (tg == TGT_A5 && a == SP_VEC && b == SP_MAT);
    if (!ok) FAIL(c->loc, B_MOV, "tmov %s -> %s is not a move of %s", ir_space_name(a), ir_space_name(b), ir_target_name(tg));
    break;
  }
  case OP_tmatmul:
  case OP_tmatmul_acc: {
    int base = c->op == OP_tmatmul_acc;
    const Var *a = c->args[base].var, *b = c->args[base + 1].var;
    if (a->sp != SP_LEFT || b->sp != SP_RIGHT || !s->dst || s->dst->sp != SP_ACC)
      FAIL(c->loc, B_MATMUL, "tmatmul needs left x right -> acc, got %s x %s", ir_space_name(a->sp), ir_space_name(b->sp));
    if (a->R > 4095 || a->C > 4095 || b->R > 4095 || b->C > 4095) FAIL(c->loc, B_MATMUL, "matmul extent over 4095");
    Dtype r = s->dst->dt;
    bool fl = a->dt == DT_F16 || a->dt == DT_BF16 || a->dt == DT_F32, in = a->dt == DT_I8 || a->dt == DT_I32;
    if (!((fl && r == DT_F32) || (in && r == DT_I32)) || a->dt != b->dt)
      FAIL(c->loc, B_MATMUL, "matmul %s x %s -> %s", ir_dtype_name(a->dt), ir_dtype_name(b->dt), ir_dtype_name(r));
    break;
  }
  case OP_sync_set:
  case OP_sync_wait:
  case OP_tfree:
    if (!v->declared[c->args[0].e]) FAIL(c->loc, B_PIPE, "%s on an undeclared %s pipe", ir_ops[c->op].name, c->args[0].e ? "V2C" : "C2V");
    break;
  case OP_tpush:
  case OP_tpop: {
    int dir = c->args[0].e, code = (int)(c->op == OP_tpush ? c->args[2].num : c->args[3].num);
    if (!v->declared[dir]) FAIL(c->loc, B_PIPE, "%s on an undeclared %s pipe", ir_ops[c->op].name, dir ? "V2C" : "C2V");
    if (code < 0 || code > 4) FAIL(c->loc, B_PIPE, "split code %d", code);
    if (dir == PIPE_V2C && code > 2) FAIL(c->loc, B_PIPE, "V2C takes even split codes (0, 1, 2), got %d", code);
    if (c->op == OP_tpush && dir == PIPE_C2V) {
      const Var *t = c->args[1].var;
      int V = (code == 1 || code == 3) ? t->svr : t->svc;   /* PTOAS: the code's parity is the valid count's */
      if (code && V >= 0 && v->k->target != TGT_A5 && (code >= 3) != (V % 2 == 1))   /* a5: the box goes whole */
        FAIL(c->loc, B_PIPE, "split code %d needs an %s valid extent, got %d", code, code >= 3 ? "odd" : "even", V);
      int64_t by = ir_tile_bytes(SP_VEC, t->dt, t->R, t->C);
      if (by > v->slot[dir]) FAIL(c->loc, B_PIPE, "C2V entry of %lld bytes, slot of %lld", (long long)by, (long long)v->slot[dir]);
    }
    if (c->op == OP_tpush && dir == PIPE_V2C) {   /* the joined entry must fit the slot */
      const Var *t = c->args[1].var;
      int R = code == 1 ? 2 * t->R : t->R, C = code == 2 ? 2 * t->C : t->C;
      int64_t by = ir_tile_bytes(SP_MAT, t->dt, R, C);
      if (by > v->slot[dir]) FAIL(c->loc, B_PIPE, "V2C entry of %lld bytes, slot of %lld", (long long)by, (long long)v->slot[dir]);
    }
    if (c->op == OP_tpop && dir == PIPE_V2C) {
      const Var *t = s->dst;
      int64_t by = ir_tile_bytes(SP_MAT, t->dt, t->R, t->C);
      if (by > v->slot[dir]) FAIL(c->loc, B_PIPE, "V2C entry of %lld bytes, slot of %lld", (long long)by, (long long)v->slot[dir]);
    }
    break;
  }
  default:
    break;
  }
  switch (ir_ops[c->op].kind) {
  case K_RRED:
  case K_CRED: {
    const Var *a = c->args[0].var;
    bool row = ir_ops[c->op].kind == K_RRED;
    const Arg *dv = ir_kwarg((Call *)c, KW_VALID);   /* the destination's declared valid */
    int vr = a->svr, vc = a->svc;
    if (!dv || vr < 0 || vc < 0 || !ir_aff_const(&dv->ix[0]) || !ir_aff_const(&dv->ix[1])) break;
    int er = row ? (vc ? vr : 0) : (vr ? 1 : 0), ec = row ? (vc ? 1 : 0) : (vr ? vc : 0);
    if (dv->ix[0].c != er || dv->ix[1].c != ec)
      FAIL(c->loc, B_REDUCE, "%s of valid [%d, %d] declares [%d, %d], expected [%d, %d]", ir_ops[c->op].name, vr, vc,
           dv->ix[0].c, dv->ix[1].c, er, ec);
    /* zero-valid-reject: the legacy rule knows no empty marker, a valid 0 is refused */
    if (IR_BUG(v->c, zero_valid_reject) && !(er && ec))
      FAIL(c->loc, B_REDUCE, "%s of valid [%d, %d] declares the empty result [%d, %d]", ir_ops[c->op].name, vr, vc, er, ec);
    break;
  }
  case K_REXP:
  case K_CEXP: {
    const Var *a = c->args[0].var, *x = c->args[1].var;
    bool row = ir_ops[c->op].kind == K_REXP;
    int av = row ? a->svr : a->svc, xv = row ? x->svr : x->svc;
    if (av >= 0 && xv >= 0 && av != xv)
      FAIL(c->loc, B_EXPAND, "%s: the expanded operand has %d valid %s, the tile %d", ir_ops[c->op].name, xv,
           row ? "rows" : "cols", av);
    break;
  }
  default:
    break;
  }
}

static void body(VB *v, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      body(v, &s->body);
      body(v, &s->other);
      continue;
    }
    v->c->judging1 = s->rhs.k == A_CALL ? (int)s->rhs.call->op + 1 : 0;   /* names the op in a diagnostic */
    if (s->dst && s->dst->kind == VK_TILE && s->dst->svr > s->dst->R)
      FAIL(s->loc, B_TILE, "'%s' has valid rows %d past its %d rows", s->dst->name, s->dst->svr, s->dst->R);
    if (s->rhs.k == A_CALL) call(v, s, s->rhs.call);
  }
}

void pass_verify_backend(Comp *c, Kernel *k) {
  if (!k->expanded) return;
  VB v = {.c = c, .k = k};
  for (int i = 0; i < k->body.n; i++) {
    const Stmt *s = k->body.v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_pipe) {
      int d = s->rhs.call->args[0].e;
      v.declared[d] = true;
      v.slot[d] = (int64_t)s->rhs.call->args[2].num;
    }
  }
  for (int f = 0; f < 2; f++) {
    const Stmt *fn = ir_func(k, f ? FN_AIV : FN_AIC);
    if (!fn) continue;
    v.fn = f ? FN_AIV : FN_AIC;
    body(&v, &fn->body);
  }
  c->judging1 = 0;                              /* capacity is no one op's */
  ir_mem_check(c, k, B_CAP);
}
