/* coverage.c — `ptofuzz gen --coverage`: which parts of the language the
 * generated kernels exercise. Consumes kernel texts (.ptk, parsed and
 * typechecked by libptoc, nested calls kept); produces one line per
 * construct, `construct=NAME share=F`, F the share of kernels using it.
 *
 * The constructs (docs/fuzzing.md): every op of compiler/ops.def a source
 * kernel may hold (`op.NAME`, the table's rows up to the per-core ops), every
 * keyword argument a source kernel may pass (`kw.NAME`), the values of the
 * kernel attributes (`attr.split=..`, `attr.target=..`, `attr.slots=..`), the
 * dtypes and tensor kinds of the header, the statements and index forms of
 * language.md sections 3-7 and 10, and each direction of an explicit `move`
 * (language.md 9.8). A kernel the front end refuses counts as `invalid`.
 * After the constructs, `pypto=VARIANT translated=F` lines (no floor): the
 * share of kernels ptoc --emit=pypto translates for PyPTO b25b25a4a under each
 * oracle variant and under all four (docs/pypto.md). */
#include "gen.h"

#include "../compiler/ptoc.h"

#include <stdlib.h>
#include <string.h>

/* Constructs beyond the op and keyword tables, in print order. */
#define FZ_CONSTRUCTS(X)                                                                              \
  X(attr_split_none, "attr.split=none") X(attr_split_ud, "attr.split=up_down")                       \
  X(attr_split_lr, "attr.split=left_right") X(attr_target_a2a3, "attr.target=a2a3")                  \
  X(attr_target_a5, "attr.target=a5") X(attr_slots_1, "attr.slots=1") X(attr_slots_2, "attr.slots=2") \
  X(attr_slots_more, "attr.slots=3-8")                                                                 \
  X(dt_f32, "dtype.f32") X(dt_f16, "dtype.f16") X(dt_i32, "dtype.i32") X(dt_bf16, "dtype.bf16")      \
  X(dt_i8, "dtype.i8") X(dt_i16, "dtype.i16")                                                          \
  X(dir_in, "tensor.in") X(dir_out, "tensor.out") X(dir_inout, "tensor.inout") X(t_1d, "tensor.1d")  \
  X(t_init, "tensor.init")                                                                             \
  X(s_for, "stmt.for") X(s_for_step, "stmt.for_step") X(s_split, "stmt.split_aiv") X(s_if, "stmt.if") \
  X(s_else, "stmt.else") X(s_while, "stmt.while") X(s_copy, "stmt.copy") X(s_reassign, "stmt.reassign") \
  X(e_nested, "expr.nested_call") X(i_loop, "index.loop_var") X(i_lane, "index.lane")                \
  X(i_scalar, "index.computed_scalar")                                                                 \
  X(mv_v2m, "move.vec_to_mat") X(mv_m2v, "move.mat_to_vec") X(mv_a2v, "move.acc_to_vec")             \
  X(mv_a2m, "move.acc_to_mat") X(mv_v2v, "move.vec_to_vec") X(mv_m2m, "move.mat_to_mat")             \
  X(mv_a2a, "move.acc_to_acc")                                                                         \
  X(cb_regions, "combo.regions_two_axes") X(cb_regions_stride, "combo.regions_two_axes_stride")        \
  X(cb_outer_whole, "combo.whole_move_outside_region") X(cb_whole_in, "combo.whole_tile_in_region")   \
  X(cb_v2c_partial, "combo.v2c_join_partial_lane0") X(cb_c2v_loop, "combo.c2v_read_across_loop")       \
  X(cb_c2v_live, "combo.c2v_3_live_in_loop") X(cb_pressure, "combo.loop_reads_outer_near_capacity")    \
  X(cb_asm_slice, "combo.slice_of_offset_assemble") X(cb_none_out, "combo.shard_none_outside_region")  \
  X(neg_mixed, "refuse.split_mixed") X(neg_store, "refuse.split_store") X(neg_place, "refuse.split_place")

enum {
#define FZ_C_(id, name) CV_##id,
  FZ_CONSTRUCTS(FZ_C_)
#undef FZ_C_
  CV_N
};
static const char *const cvname[CV_N] = {
#define FZ_C_(id, name) name,
    FZ_CONSTRUCTS(FZ_C_)
#undef FZ_C_
};

/* Source keywords: box= and part= belong to the lowered IR. */
static bool source_kw(int k) { return k != KW_NONE && k != KW_BOX && k != KW_PART && k < KW_N; }
enum { NROW = OP_pipe + KW_N + CV_N };         /* ops load .. clamp are the source ops */

struct FzCov {
  int64_t kernels, invalid;
  int64_t n[NROW];
  int64_t py[4], py_all;                        /* translated by ptoc --emit=pypto (b25b25a4a), per variant; all four */
};

/* The kernel through ptoc --emit=pypto for PyPTO b25b25a4a (no optional
 * features), under none@a2a3, none@a5, up_down and left_right: which translate. */
static void cov_pypto(FzCov *cov, const char *text, size_t len) {
  Comp c = {.A = ir_arena_new(), .src = {"kernel.ptk", text, len}, .o = {.split = -1, .target = -1}};
  const Kernel *k = ir_front(&c);
  if (k) {
    static const int mode[4] = {MODE_NONE, MODE_NONE, MODE_UD, MODE_LR};
    int all = 1;
    for (int v = 0; v < 4; v++) {
      PyOpts o = {.split = mode[v], .target = v == 1 ? TGT_A5 : v == 0 ? TGT_A2A3 : k->target, .caps = 0};
      int ok = ir_emit_pypto(&c, k, &o) != NULL;
      cov->py[v] += ok;
      all &= ok;
    }
    cov->py_all += all;
  }
  ir_arena_free(c.A);
}

FzCov *fz_cov_new(void) {
  FzCov *cv = calloc(1, sizeof *cv);
  if (!cv) abort();
  return cv;
}
void fz_cov_free(FzCov *cv) { free(cv); }

typedef struct {
  const Kernel *k;
  uint8_t hit[NROW];
  uint16_t *assigned;                           /* by var id */
  uint8_t *rd[8], *scratch;                     /* by var id: read inside the loop at each depth; one call's reads */
  int64_t vec_bytes;                            /* every vec tile's padded bytes */
} Walk;

static void mark(Walk *w, int row) { w->hit[row] = 1; }
static void cv(Walk *w, int c) { mark(w, OP_pipe + KW_N + c); }

static void aff(Walk *w, const Aff *a) {
  for (int i = 0; i < a->n; i++) {
    const Var *v = w->k->vars[a->v[i]];
    if (v->kind == VK_LOOP) cv(w, CV_i_loop);
    if (v->kind == VK_LANE || (v->kind == VK_SCALAR && !v->computed)) cv(w, CV_i_lane);
    if (v->kind == VK_SCALAR && v->computed) cv(w, CV_i_scalar);
  }
}

static Space space_of(const Arg *a) {
  if (a->k == A_VAR) return a->var->sp;
  if (a->k == A_CALL) return a->call->ty.sp;
  return SP_NONE;
}

static void call(Walk *w, const Call *c) {
  if (c->op < OP_pipe) mark(w, c->op);
  for (int i = 0; i < c->nargs; i++) {
    const Arg *a = &c->args[i];
    if (source_kw(a->kw)) mark(w, OP_pipe + a->kw);
    if (a->k == A_CALL) {
      cv(w, CV_e_nested);
      call(w, a->call);
    }
    if (a->k == A_IDX) aff(w, &a->ix[0]), aff(w, &a->ix[1]);
    if (a->k == A_IEXPR) aff(w, &a->ix[0]);
  }
  if (c->op == OP_move && c->nargs == 2 && c->args[1].k == A_SPACE) {
    static const int8_t dir[SP_N][SP_N] = {
        [SP_VEC] = {[SP_MAT] = CV_mv_v2m, [SP_VEC] = CV_mv_v2v},
        [SP_MAT] = {[SP_VEC] = CV_mv_m2v, [SP_MAT] = CV_mv_m2m},
        [SP_ACC] = {[SP_VEC] = CV_mv_a2v, [SP_MAT] = CV_mv_a2m, [SP_ACC] = CV_mv_a2a},
    };
    Space from = space_of(&c->args[0]), to = (Space)c->args[1].e;
    if (from < SP_N && to < SP_N && dir[from][to]) cv(w, dir[from][to]);
  }
}

static void body(Walk *w, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    switch (s->k) {
    case S_FOR:
      cv(w, s->wloop ? CV_s_while : CV_s_for);
      if (!s->wloop && (s->iv->lo != 0 || s->iv->step != 1)) cv(w, CV_s_for_step);
      body(w, &s->body);
      break;
    case S_SPLIT:
      cv(w, CV_s_split);
      body(w, &s->body);
      break;
    case S_COND:
      body(w, &s->body);
      if (s->other.n) cv(w, CV_s_else), body(w, &s->other);
      break;
    case S_OP:
      if (s->dst && ++w->assigned[s->dst->id] == 2) cv(w, CV_s_reassign);
      if (s->rhs.k == A_VAR) cv(w, CV_s_copy);
      else if (s->rhs.k == A_CALL) call(w, s->rhs.call);
      break;
    default:                                    /* per-core forms: not in generated kernels */
      body(w, &s->body);
      body(w, &s->other);
      break;
    }
  }
}

/* ---- combinations of constructs where planners and checkers err ---------------------------- */

enum { W_C2V = 1, W_WHOLE = 2, W_ASM = 4 };     /* Combo.how: a C2V result, moved whole outside a region, an offset assemble */
typedef struct {
  uint8_t *how;                                 /* by var id */
  int8_t *depth;                                /* by var id: loop depth of the definition */
  int regions, axes, stride;                    /* regions seen, axes of all of them (bits), a stride= */
  int ax;                                       /* bits of the region being walked */
  bool mixed;                                   /* two regions used different axes */
} Combo;

static bool cube_arg(const Arg *a) {
  Space sp = space_of(a);
  return sp == SP_MAT || sp == SP_ACC;
}

/* Tiles read by call c (nested calls included) into out[] (by var id, marked 1). */
static void reads(const Call *c, uint8_t *out) {
  for (int i = 0; i < c->nargs; i++) {
    const Arg *a = &c->args[i];
    if (a->k == A_VAR && a->var->kind == VK_TILE) out[a->var->id] = 1;
    if (a->k == A_CALL) reads(a->call, out);
  }
}

/* An aiv_shard(t, none) in c or its nested calls. */
static bool shard_none(const Call *c) {
  if (ir_ops[c->op].kind == K_SHARD && c->args[1].e == MODE_NONE) return true;
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].k == A_CALL && shard_none(c->args[i].call)) return true;
  return false;
}

/* A slice at a nonzero offset of a tile assembled at one, in c or its nested calls. */
static bool asm_slice(const Combo *cb, const Call *c) {
  if (c->op == OP_slice && c->args[0].k == A_VAR && (cb->how[c->args[0].var->id] & W_ASM) && c->args[1].k == A_IDX &&
      (c->args[1].ix[0].n || c->args[1].ix[0].c || c->args[1].ix[1].n || c->args[1].ix[1].c))
    return true;
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].k == A_CALL && asm_slice(cb, c->args[i].call)) return true;
  return false;
}

static void combos(Walk *w, Combo *cb, const Body *b, int depth, bool region) {
  const Kernel *k = w->k;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_SPLIT) {
      cb->regions++;
      cb->ax = 0;
      combos(w, cb, &s->body, depth, true);
      if (cb->regions > 1 && cb->axes && cb->ax && cb->axes != cb->ax) cb->mixed = true;
      cb->axes |= cb->ax;
      continue;
    }
    if (s->k == S_FOR) {
      /* outer tiles the loop reads: C2V results (live across its end), how many */
      int nc2v = 0, nouter = 0, in = depth + 1 < 8 ? depth + 1 : 7;
      memset(w->rd[in], 0, (size_t)k->nvars + 1);
      combos(w, cb, &s->body, depth + 1, region);
      for (int v = 0; v < k->nvars; v++) {
        if (!w->rd[in][v] || cb->depth[v] > depth) continue;
        nouter++;
        nc2v += (cb->how[v] & W_C2V) != 0;
      }
      if (nc2v) cv(w, CV_cb_c2v_loop);
      if (nc2v >= 3) cv(w, CV_cb_c2v_live);
      if (nouter && w->vec_bytes * 2 >= 188416) cv(w, CV_cb_pressure);
      continue;
    }
    if (s->k != S_OP) {
      combos(w, cb, &s->body, depth, region);
      combos(w, cb, &s->other, depth, region);
      continue;
    }
    if (s->rhs.k != A_CALL) continue;
    const Call *c = s->rhs.call;
    uint8_t *rd = w->scratch;
    memset(rd, 0, (size_t)k->nvars + 1);
    reads(c, rd);
    for (int v = 0; v < k->nvars; v++) {
      if (!rd[v]) continue;
      for (int d = 1; d <= depth && d < 8; d++) w->rd[d][v] = 1;
      if (region && (cb->how[v] & W_WHOLE)) cv(w, CV_cb_whole_in);
    }
    if (asm_slice(cb, c)) cv(w, CV_cb_asm_slice);
    if (shard_none(c)) cv(w, region ? CV_cb_whole_in : CV_cb_none_out);
    int kind = ir_ops[c->op].kind;
    if (kind == K_SHARD || kind == K_JOIN) {
      Mode m = (Mode)c->args[1].e;
      if (m != MODE_NONE) cb->ax |= 1 << MODE_AXIS(m);
      if (kind == K_SHARD && ir_kwarg((Call *)c, KW_STRIDE)) cb->stride = 1;
    }
    const Var *d = s->dst;
    if (kind == K_JOIN && d) {                  /* joined valid on the axis below lane 0's extent */
      const Var *h = c->args[0].k == A_VAR ? c->args[0].var : NULL;
      int ax = MODE_AXIS((Mode)c->args[1].e), S = h ? (ax ? h->C : h->R) : 0, jv = ax ? d->svc : d->svr;
      if (h && jv >= 0 && jv < S) cv(w, CV_cb_v2c_partial);
    }
    bool v2c = c->op == OP_move ? c->args[1].e != SP_VEC : kind == K_MATMUL;
    for (int j = 0; j < c->nargs && v2c && k->split != MODE_NONE; j++) {   /* an auto-split V2C, lane 0's part partial */
      const Var *x = c->args[j].k == A_VAR ? c->args[j].var : NULL;
      if (!x || x->kind != VK_TILE || x->sp != SP_VEC) continue;
      int ax = MODE_AXIS(k->split), E = ax ? x->C : x->R, V = ax ? x->svc : x->svr;
      if (V >= 0 && V < (E + 1) / 2) cv(w, CV_cb_v2c_partial);
    }
    if (!d || d->kind != VK_TILE) continue;
    cb->depth[d->id] = (int8_t)(depth < 127 ? depth : 127);
    cb->how[d->id] = 0;
    if (d->sp == SP_VEC)
      for (int j = 0; j < c->nargs; j++)
        if (cube_arg(&c->args[j])) {
          cb->how[d->id] |= W_C2V;
          if (c->op == OP_move && !region && k->explicit_split) cb->how[d->id] |= W_WHOLE, cv(w, CV_cb_outer_whole);
          if (kind == K_SHARD && !region) cb->how[d->id] |= W_WHOLE;   /* mode none */
        }
    if (c->op == OP_assemble && c->args[2].k == A_IDX && (c->args[2].ix[0].c || c->args[2].ix[1].c))
      cb->how[d->id] |= W_ASM;
  }
}

/* The negative constructs the kernel's refusal claim names (`# expect-refuse:`
 * with E-SPLIT-MIXED, -STORE or -PLACE, any variant). */
static void negatives(Walk *w, const char *text, size_t len) {
  static const struct { const char *code; int row; } neg[] = {
      {"=E-SPLIT-MIXED:", CV_neg_mixed}, {"=E-SPLIT-STORE:", CV_neg_store}, {"=E-SPLIT-PLACE:", CV_neg_place}};
  const char *end = text + len, *p = text;
  while (p < end && *p == '#') {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    if (le - p > 16 && !memcmp(p, "# expect-refuse:", 16))
      for (size_t i = 0; i < sizeof neg / sizeof *neg; i++) {
        size_t n = strlen(neg[i].code);
        for (const char *q = p; q + n <= le; q++)
          if (!memcmp(q, neg[i].code, n)) {
            cv(w, neg[i].row);
            break;
          }
      }
    p = le + (le < end);
  }
}

/* S_COND inside a bounded while is the while's own test, not an `if`. */
static void conds(Walk *w, const Body *b, bool in_while) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_COND && !in_while) cv(w, CV_s_if);
    conds(w, &s->body, s->k == S_FOR && s->wloop);
    conds(w, &s->other, false);
  }
}

void fz_cov_add(FzCov *cov, const char *text, size_t len) {
  cov->kernels++;
  Comp c = {.A = ir_arena_new(), .src = {"kernel.ptk", text, len}, .o = {.split = -1, .target = -1}};
  PipeOpts po = {.stop_after = "parse"};     /* parsed and typechecked, nested calls kept */
  const Kernel *k = pass_pipeline(&c, &po);
  if (!k) {
    cov->invalid++;
    ir_arena_free(c.A);
    return;
  }
  Walk w = {.k = k};
  w.assigned = ir_alloc(c.A, ((size_t)k->nvars + 1) * sizeof *w.assigned);
  cv(&w, k->split == MODE_UD ? CV_attr_split_ud : k->split == MODE_LR ? CV_attr_split_lr : CV_attr_split_none);
  cv(&w, k->target == TGT_A5 ? CV_attr_target_a5 : CV_attr_target_a2a3);
  cv(&w, k->slots == 1 ? CV_attr_slots_1 : k->slots == 2 ? CV_attr_slots_2 : CV_attr_slots_more);
  static const int8_t dtc[DT_N] = {[DT_F32] = CV_dt_f32, [DT_F16] = CV_dt_f16, [DT_I32] = CV_dt_i32,
                                   [DT_BF16] = CV_dt_bf16, [DT_I8] = CV_dt_i8, [DT_I16] = CV_dt_i16};
  for (int i = 0; i < k->np; i++) {
    const Var *p = k->params[i];
    cv(&w, dtc[p->dt]);
    cv(&w, p->dir == DIR_IN ? CV_dir_in : p->dir == DIR_OUT ? CV_dir_out : CV_dir_inout);
    if (p->rank == 1) cv(&w, CV_t_1d);
    if (p->init) cv(&w, CV_t_init);
  }
  for (int i = 0; i < k->nvars; i++)           /* a tile of a dtype no tensor has (a cast) */
    if (k->vars[i]->kind == VK_TILE && k->vars[i]->typed) cv(&w, dtc[k->vars[i]->dt]);
  body(&w, &k->body);
  conds(&w, &k->body, false);
  Combo cb = {.how = ir_alloc(c.A, (size_t)k->nvars + 1), .depth = ir_alloc(c.A, (size_t)k->nvars + 1)};
  for (int d = 0; d < 8; d++) w.rd[d] = ir_alloc(c.A, (size_t)k->nvars + 1);
  w.scratch = ir_alloc(c.A, (size_t)k->nvars + 1);
  for (int i = 0; i < k->nvars; i++)
    if (k->vars[i]->kind == VK_TILE && k->vars[i]->sp == SP_VEC)
      w.vec_bytes += ir_tile_bytes(SP_VEC, k->vars[i]->dt, k->vars[i]->R, k->vars[i]->C);
  combos(&w, &cb, &k->body, 0, false);
  if (cb.mixed) cv(&w, CV_cb_regions);
  if (cb.mixed && cb.stride) cv(&w, CV_cb_regions_stride);
  negatives(&w, text, len);
  for (int r = 0; r < NROW; r++) cov->n[r] += w.hit[r];
  ir_arena_free(c.A);
  cov_pypto(cov, text, len);
}

static const char *row_name(int r, char *buf, size_t n) {
  if (r < OP_pipe) snprintf(buf, n, "op.%s", ir_ops[r].name);
  else if (r < OP_pipe + KW_N) snprintf(buf, n, "kw.%s", ir_kw_name((Kw)(r - OP_pipe)));
  else snprintf(buf, n, "%s", cvname[r - OP_pipe - KW_N]);
  return buf;
}

int fz_cov_print(const FzCov *cov, FILE *f, double floor) {
  int below = 0;
  fprintf(f, "coverage: kernels=%lld invalid=%lld\n", (long long)cov->kernels, (long long)cov->invalid);
  for (int r = 0; r < NROW; r++) {
    if (r >= OP_pipe && r < OP_pipe + KW_N && !source_kw(r - OP_pipe)) continue;
    char buf[64];
    double share = cov->kernels ? (double)cov->n[r] / (double)cov->kernels : 0;
    below += share < floor;
    fprintf(f, "construct=%s share=%.4f\n", row_name(r, buf, sizeof buf), share);
  }
  /* not constructs (no floor): the share ptoc --emit=pypto translates for PyPTO b25b25a4a */
  static const char *const vn[4] = {"none@a2a3", "none@a5", "up_down", "left_right"};
  double n = cov->kernels ? (double)cov->kernels : 1;
  for (int v = 0; v < 4; v++) fprintf(f, "pypto=%s translated=%.4f\n", vn[v], (double)cov->py[v] / n);
  fprintf(f, "pypto=all translated=%.4f\n", (double)cov->py_all / n);
  return below;
}
