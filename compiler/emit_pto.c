/* emit_pto.c — the lowered program (after verify_backend) -> PTO-AS text, the
 * textual PTO MLIR dialect that the real assembler (ptoas) reads (DESIGN
 * section 13). One module per variant: an `aic` function of kind cube and an
 * `aiv` function of kind vector, each taking every GM tensor as a
 * !pto.ptr<dtype> in parameter order and, on a3, a GM slot buffer for the
 * pipes and, when the function uses cross-core flags, the FFTS base
 * (ir_pto_ffts). Conventions (docs/real-backend.md says why):
 *   - every buffer is one alloc_tile with dynamic valid extents (v_row=?,
 *     v_col=?), as PyPTO emits them, declared just before the statement that
 *     first uses it (in each branch of a lane's scf.if when neither branch
 *     reads what came before: ptoas's planner makes a buffer live from its
 *     alloc_tile, so buffers declared at the top all overlap, F-5); each op that
 *     writes a buffer first sets its valid shape (pto.set_validshape) by the
 *     op's valid rule, so loops and lane-dependent extents need no SSA phis;
 *   - a value's valid shape is read back with pto.get_validshape;
 *   - C2V is pipe id 0, V2C pipe id 1; the consumer reserves slots x bytes;
 *   - index expressions become arith on `index`; constants are hoisted to the
 *     top of each function.
 * A construct with no PTO form is reported unsupported E-PTO. */
#include "ptoc.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MAXCONST = 512, MAXQ = 64, MAXSCR = 64, MAXTTY = 32 };

typedef struct {
  char kind;                                    /* 'x' index, 'i' i32, 'l' i64, 'f' f32, 'h' f16, 'b' bf16, 'c' i8, 's' i16 */
  double v;
  const char *name;                             /* "%cx3": made once, shared by every use */
} Const;

/* A growing text buffer behind a stdio stream (fopencookie). Unlike a memory
 * stream, which copies itself to a new buffer at every doubling, it grows by
 * realloc, which for large blocks moves pages rather than bytes, so a
 * kernel's text (hundreds of MB at 10^5 transfers) is held about once. */
typedef struct {
  char *p;
  size_t n, cap;
} Sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n) {
  Sink *s = cookie;
  if (s->cap - s->n < n + 1) {
    size_t cap = s->cap ? s->cap : 1 << 16;
    while (cap - s->n < n + 1) cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) die("emit_pto: out of memory (%zu bytes)", cap);
    s->p = p, s->cap = cap;
  }
  memcpy(s->p + s->n, buf, n);
  s->n += n;
  s->p[s->n] = 0;
  return (ssize_t)n;
}

static FILE *sink_open(Sink *s) {
  FILE *f = fopencookie(s, "w", (cookie_io_functions_t){.write = sink_write});
  if (!f) die("emit_pto: fopencookie failed");
  return f;
}

typedef struct {
  Space sp;
  Dtype dt;
  int R, C;
  const char *s;
} TtyC;

typedef struct {
  Comp *c;
  const Kernel *k;
  Target tgt;
  FILE *body;                                   /* the function being emitted (a memory stream) */
  Sink bs;                                      /* its text */
  Const cst[MAXCONST];
  int ncst;
  int ssa;
  int ind;                                      /* indentation depth */
  const char **cur;                             /* by var id: the SSA value holding it now */
  const char **ty;                              /* by var id: its type, when not the buffer's own */
  uint8_t *tr;                                  /* by var id: a mat/right tile held transposed (trans_b) */
  const char **nr, **nc;                        /* by var id: a popped entry's narrower valid shape */
  const char **buf;                             /* by var id: its own buffer (alloc_tile), if it has one */
  const char **pend;                            /* by var id: the type of a buffer not declared yet */
  uint8_t *seen;                                /* by var id: scratch marks of uses() and first_access() */
  int *marked, nmarked;                         /* the ids with a nonzero mark in seen (declare_used clears them) */
  const Body *encl[64];                         /* the statement lists around the statement being emitted */
  int encl_i[64], nencl;                        /* and its index in each */
  int inloop;                                   /* scf.for bodies around it */
  uint8_t *alias;                               /* by var id: its same-space copies name their source's buffer */
  bool aiv;
  int npush[2], npop[2];                        /* transfers seen so far, by direction */
  int pushv[2][256][2];                         /* static valid of the n-th push, by direction (-1: unknown) */
  int pushcode[2][256];
  int pushE[2][256][2];                         /* the pushed tile's shape */
  int q[2][MAXQ], nq[2];                        /* split codes of popped, not yet freed entries */
  int pipe_slots[2], pipe_bytes[2];
  int pipe_need[2];                             /* the largest padded entry pushed each way */
  bool has_pipe[2];
  bool has_id[4];                               /* pipe ids in use: dir + 2 for split transfers */
  const PtoNames *nm;
  const char *scr[MAXSCR], *scr_ty[MAXSCR];     /* scratch tiles, declared at the function's top */
  int nscr;
  TtyC ttyc[MAXTTY];                            /* tty's strings, made once per shape */
  int nttyc;
} E;

static _Noreturn void unsupported(E *e, Loc loc, int op, const char *why) {
  e->c->judging1 = op + 1;
  ir_error(e->c, loc, E_PTO, "%s has no PTO-AS form: %s", op >= 0 ? ir_ops[op].name : "construct", why);
}

static const char *fresh(E *e, const char *base) {
  return ir_fmt(e->c->A, "%%%s_%d", base ? base : "t", ++e->ssa);
}

static void line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(E *e, const char *fmt, ...) {
  va_list ap;
  fprintf(e->body, "%*s", 2 * (e->ind + 2), "");
  va_start(ap, fmt);
  vfprintf(e->body, fmt, ap);
  va_end(ap);
  fputc('\n', e->body);
}

static const char *cname(E *e, char kind, double v) {
  int i;
  for (i = 0; i < e->ncst; i++)
    if (e->cst[i].kind == kind && e->cst[i].v == v && (v != 0 || signbit(e->cst[i].v) == signbit(v))) break;
  if (i == e->ncst) {
    if (e->ncst == MAXCONST) die("emit_pto: too many constants");
    e->cst[e->ncst++] = (Const){kind, v, ir_fmt(e->c->A, "%%c%c%d", kind, i)};
  }
  return e->cst[i].name;
}
static const char *cidx(E *e, int64_t v) { return cname(e, 'x', (double)v); }
static bool isconst(const E *e, const char *s, int64_t *v) {
  if (strncmp(s, "%cx", 3)) return false;
  *v = (int64_t)e->cst[atoi(s + 3)].v;
  return true;
}

static const char *dtn(Dtype d) { return ir_dtype_name(d); }   /* PTO-AS spells them as ptoc does */

/* PTO's allocation shape of an [R, C] tile. PTOAS wants the static shapes of
 * an op's operands to agree across dtypes and spaces (tcvt f32 -> f16, left
 * [M,K] x right [K,N]) and its boxed layouts to hold whole 16-element boxes,
 * so ptoc pads fractal tiles to whole 16 x 16 boxes; vec tiles keep the
 * model's layout (layout.c), so a split pop's half is exactly half of the
 * pushed tile (docs/real-backend.md). */
static void pto_shape(Space sp, Dtype dt, int R, int C, int *Rp, int *Cp) {
  *Rp = R, *Cp = C;
  if (sp == SP_VEC) {                          /* the model's layout (split halves must stay exact halves) */
    ir_padded(sp, dt, R, C, Rp, Cp);
    return;
  }
  /* an i8 box is 16 x 32; K then spans whole boxes on both sides, and so M and N, so an
   * i32 acc (only an i8 x i8 matmul makes one) pads as its i8 operands (real-findings.md F-14) */
  int m = ir_dtype_bytes(dt) == 1 || (sp == SP_ACC && dt == DT_I32) ? 32 : 16;
  if (R > 1) *Rp = (R + m - 1) / m * m;
  *Cp = (C + m - 1) / m * m;
}

/* The tile_buf type of a value of this space, dtype and (logical) shape. */
static const char *tty(E *e, Space sp, Dtype dt, int R, int C) {
  for (int i = 0; i < e->nttyc; i++)
    if (e->ttyc[i].sp == sp && e->ttyc[i].dt == dt && e->ttyc[i].R == R && e->ttyc[i].C == C) return e->ttyc[i].s;
  int Rp, Cp;
  pto_shape(sp, dt, R, C, &Rp, &Cp);
  const char *lay;
  switch (sp) {
  case SP_VEC: lay = ir_layout(sp, R, C) == LAY_COL ? "blayout=col_major, slayout=none_box, fractal=512"
                                                  : "blayout=row_major, slayout=none_box, fractal=512";
    break;
  case SP_MAT: lay = "blayout=col_major, slayout=row_major, fractal=512"; break;
  case SP_LEFT: lay = "blayout=row_major, slayout=row_major, fractal=512"; break;
  case SP_RIGHT: lay = "blayout=row_major, slayout=col_major, fractal=512"; break;
  case SP_ACC: lay = "blayout=col_major, slayout=row_major, fractal=1024"; break;
  default: die("emit_pto: tile in no space");
  }
  const char *t = ir_fmt(e->c->A, "!pto.tile_buf<loc=%s, dtype=%s, rows=%d, cols=%d, v_row=?, v_col=?, %s, pad=0>",
                         ir_space_name(sp), dtn(dt), Rp, Cp, lay);
  if (e->nttyc < MAXTTY) e->ttyc[e->nttyc++] = (TtyC){sp, dt, R, C, t};
  return t;
}


/* A view's type: its parent's with the window's shape; each valid extent is
 * static when ptoas can fold its operand to a constant (as pto.subview infers it). */
static const char *view_of(E *e, const char *parent, int R, int C, const char *vr, const char *vc) {
  int64_t a = 0, b = 0;
  bool ka = isconst(e, vr, &a), kb = isconst(e, vc, &b);
  const char *q = strstr(parent, "rows="), *l = strstr(parent, ", blayout=");
  ASSERT(q && l);
  char rs[32], cs[32];
  snprintf(rs, sizeof rs, ka ? "%lld" : "?", (long long)a);
  snprintf(cs, sizeof cs, kb ? "%lld" : "?", (long long)b);
  return ir_fmt(e->c->A, "%.*srows=%d, cols=%d, v_row=%s, v_col=%s%s", (int)(q - parent), parent, R, C, rs, cs, l);
}

static const char *vty(E *e, const Var *v) {
  if (e->ty[v->id]) return e->ty[v->id];
  if (e->tr[v->id]) {                           /* B^T for trans_b: [K, N], a right tile's configuration (DN in mat) */
    int Rp, Cp;
    pto_shape(v->sp, v->dt, v->C, v->R, &Rp, &Cp);
    return ir_fmt(e->c->A, "!pto.tile_buf<loc=%s, dtype=%s, rows=%d, cols=%d, v_row=?, v_col=?, "
                  "blayout=row_major, slayout=col_major, fractal=512, pad=0>", ir_space_name(v->sp), dtn(v->dt), Rp, Cp);
  }
  return tty(e, v->sp, v->dt, v->R, v->C);
}

static const char *val(E *e, const Var *v) {
  const char *s = e->cur[v->id];
  if (!s) unsupported(e, v->loc, -1, ir_fmt(e->c->A, "'%s' is read where its definition does not reach", v->name));
  return s;
}

/* An affine index expression as an SSA index value. */
static const char *aff(E *e, const Aff *a) {
  const char *acc = NULL;
  for (int i = 0; i < a->n; i++) {
    const Var *v = e->k->vars[a->v[i]];
    const char *x = val(e, v);
    if (a->k[i] != 1) {
      const char *m = fresh(e, "m");
      line(e, "%s = arith.muli %s, %s : index", m, x, cidx(e, a->k[i]));
      x = m;
    }
    if (acc) {
      const char *s = fresh(e, "s");
      line(e, "%s = arith.addi %s, %s : index", s, acc, x);
      x = s;
    }
    acc = x;
  }
  if (!acc) return cidx(e, a->c);
  if (a->c) {
    const char *s = fresh(e, "s");
    line(e, "%s = arith.addi %s, %s : index", s, acc, cidx(e, a->c));
    acc = s;
  }
  return acc;
}

static const char *bin(E *e, const char *op, const char *a, const char *b) {
  int64_t x, y;
  if (isconst(e, a, &x) && isconst(e, b, &y)) {
    int64_t r = 0;
    if (!strcmp(op, "minsi")) r = x < y ? x : y;
    else if (!strcmp(op, "maxsi")) r = x > y ? x : y;
    else if (!strcmp(op, "addi")) r = x + y;
    else if (!strcmp(op, "subi")) r = x - y;
    else if (!strcmp(op, "muli")) r = x * y;
    else if (!strcmp(op, "divsi") && y) r = x / y;
    else if (!strcmp(op, "remsi") && y) r = x % y;
    else goto emit;
    return cidx(e, r);
  }
emit:;
  const char *r = fresh(e, "i");
  line(e, "%s = arith.%s %s, %s : index", r, op, a, b);
  return r;
}

/* The valid shape of a value now: constants when the typechecker knows it, else read back. */
static void valid(E *e, const Var *v, const char **vr, const char **vc) {
  if (e->nr[v->id]) {
    *vr = e->nr[v->id], *vc = e->nc[v->id];
    return;
  }
  if (v->svr >= 0 && v->svc >= 0) {
    *vr = cidx(e, e->tr[v->id] ? v->svc : v->svr), *vc = cidx(e, e->tr[v->id] ? v->svr : v->svc);
    return;
  }
  const char *r = fresh(e, "vr"), *c = fresh(e, "vc");
  line(e, "%s, %s = pto.get_validshape %s : %s", r, c, val(e, v), vty(e, v));
  *vr = r, *vc = c;
}

static void setvalid(E *e, const Var *v, const char *vr, const char *vc) {
  line(e, "pto.set_validshape %s, %s, %s : %s", val(e, v), vr, vc, vty(e, v));
}

static const Var *avar(const Call *c, int i) {
  const Arg *a = ir_pos((Call *)c, i);
  ASSERT(a && a->k == A_VAR);
  return a->var;
}

static const char *tensor_view(E *e, const Var *T) {
  return ir_fmt(e->c->A, "%%T%d", T->id);
}
static const char *tvty(E *e, const Var *T) { return ir_fmt(e->c->A, "!pto.tensor_view<?x?x%s>", dtn(T->dt)); }

/* A partition view of T at [r, c] of size [pr, pc] (SSA or constants). */
static const char *partition(E *e, const Var *T, const char *r, const char *c, const char *pr, const char *pc,
                             const Aff *apr, const Aff *apc) {
  const char *p = fresh(e, "pv");
  char shape[64];
  if (apr && apc && ir_aff_const(apr) && ir_aff_const(apc)) snprintf(shape, sizeof shape, "%dx%d", apr->c, apc->c);
  else snprintf(shape, sizeof shape, "?x?");
  line(e, "%s = pto.partition_view %s, offsets = [%s, %s], sizes = [%s, %s] : %s -> !pto.partition_tensor_view<%sx%s>",
       p, tensor_view(e, T), r, c, pr, pc, tvty(e, T), shape, dtn(T->dt));
  return ir_fmt(e->c->A, "%s|!pto.partition_tensor_view<%sx%s>", p, shape, dtn(T->dt));
}
static void split_pv(const char *pv, char *name, size_t n, const char **ty) {
  const char *bar = strchr(pv, '|');
  snprintf(name, n, "%.*s", (int)(bar - pv), pv);
  *ty = bar + 1;
}

static const char *elt_op(Op op) {
  switch (op) {
  case OP_add: return "tadd"; case OP_sub: return "tsub"; case OP_mul: return "tmul"; case OP_div: return "tdiv";
  case OP_max: return "tmax"; case OP_min: return "tmin";
  case OP_adds: return "tadds"; case OP_subs: return "tsubs"; case OP_muls: return "tmuls"; case OP_divs: return "tdivs";
  case OP_maxs: return "tmaxs"; case OP_mins: return "tmins";
  case OP_exp: return "texp"; case OP_neg: return "tneg"; case OP_abs: return "tabs"; case OP_relu: return "trelu";
  case OP_sqrt: return "tsqrt"; case OP_recip: return "trecip";
  case OP_row_sum: return "trowsum"; case OP_row_max: return "trowmax"; case OP_row_min: return "trowmin";
  case OP_col_sum: return "tcolsum"; case OP_col_max: return "tcolmax"; case OP_col_min: return "tcolmin";
  case OP_row_expand_add: return "trowexpandadd"; case OP_row_expand_sub: return "trowexpandsub";
  case OP_row_expand_mul: return "trowexpandmul"; case OP_row_expand_div: return "trowexpanddiv";
  case OP_row_expand_max: return "trowexpandmax"; case OP_row_expand_min: return "trowexpandmin";
  case OP_col_expand_add: return "tcolexpandadd"; case OP_col_expand_sub: return "tcolexpandsub";
  case OP_col_expand_mul: return "tcolexpandmul"; case OP_col_expand_div: return "tcolexpanddiv";
  default: return NULL;
  }
}

/* Where PTOAS v0.42's verifier takes a vector op on bf16, i8 or i16 (one bit
 * per dtype and arch, as ptoas answered single-op kernels; docs/real-backend.md):
 * exp, sqrt, recip, div(s), relu and abs on none of them, casts and copies on all. */
enum { NB3 = 1, NB5 = 2, NI3 = 4, NI5 = 8, NH3 = 16, NH5 = 32, NH = NH3 | NH5, N5 = NB5 | NI5 | NH };
static const uint8_t narrow_ok[OP_N] = {
    [OP_add] = N5, [OP_adds] = N5, [OP_subs] = N5, [OP_muls] = N5, [OP_maxs] = N5, [OP_mins] = N5, [OP_min] = N5,
    [OP_neg] = N5, [OP_col_sum] = N5, [OP_col_max] = N5, [OP_col_min] = N5, [OP_full] = N5 | NB3,
    [OP_sub] = NI5 | NH, [OP_max] = NI5 | NH, [OP_mul] = NH, [OP_row_sum] = NH, [OP_row_max] = NH, [OP_row_min] = NH,
    [OP_row_expand_add] = NI5 | NH, [OP_row_expand_sub] = NI5 | NH, [OP_row_expand_mul] = NI5 | NH,
    [OP_row_expand_max] = NI5 | NH, [OP_row_expand_min] = NI5 | NH, [OP_col_expand_add] = NI5 | NH,
    [OP_col_expand_sub] = NI5 | NH, [OP_col_expand_mul] = NI5 | NH,
};
static void narrow_check(E *e, Loc loc, Op op, Dtype dt) {
  int k = dt == DT_BF16 ? 0 : dt == DT_I8 ? 2 : dt == DT_I16 ? 4 : -1;
  if (k < 0 || narrow_ok[op] & (1 << (k + (e->tgt == TGT_A5)))) return;
  unsupported(e, loc, op, ir_fmt(e->c->A, "PTOAS v0.42 takes no %s %s on %s", ir_dtype_name(dt), elt_op(op) ? elt_op(op) : "texpands",
                                 e->tgt == TGT_A5 ? "a5" : "a3"));
}

/* One scratch tile per type and function (the row reductions' tmp operand, unused by pto-isa). */
static const char *scratch(E *e, const char *type) {
  for (int i = 0; i < e->nscr; i++)
    if (!strcmp(e->scr_ty[i], type)) return e->scr[i];
  if (e->nscr == MAXSCR) die("emit_pto: too many scratch types");
  const char *x = ir_fmt(e->c->A, "%%scratch%d", e->nscr);
  e->scr_ty[e->nscr] = type;
  e->scr[e->nscr++] = x;
  return x;
}

/* PTOAS names the axis only (0 none, 1 up_down, 2 left_right); which lane
 * holds the odd element follows from the valid counts (DESIGN section 14). */
static int axis_code(int code) { return code == MODE_NONE ? 0 : MODE_AXIS(code) ? 2 : 1; }

static int pipe_id(int dir, int code) { return dir + (code != MODE_NONE ? 2 : 0); }

static const char *scalar_const(E *e, Dtype dt, double v) {
  static const char kinds[DT_N] = {'f', 'h', 'i', 'b', 'c', 's'};   /* Dtype order */
  return cname(e, kinds[dt], v);
}

static void body(E *e, const Body *b);

/* dst := src between vec tiles of one dtype and unequal shapes: tadds of -0.0, the
 * identity; pto-isa's TADDS reads and writes each tile at its own pitch, where ptoas
 * refuses an A2/A3 tmov between unequal shapes (real-findings.md RF-10). */
static void pitch_move(E *e, Dtype dt, const char *src, const char *sty, const char *dst, const char *dty) {
  line(e, "pto.tadds ins(%s, %s : %s, %s) outs(%s : %s)", src, scalar_const(e, dt, -0.0), sty, dtn(dt), dst, dty);
}

/* a (valid [ar, ac]) as a tile of type `want` (a's dtype): a itself when it is its own
 * buffer of that type, else a scratch tile of that type it is moved into. ptoas's tcvt and
 * tcolexpand verifiers compare static shapes, and ptoas gives a view its parent's
 * (real-findings.md F-2, F-4); its type in *ty. */
static const char *staged(E *e, Loc loc, const Var *a, const char *ar, const char *ac, const char *want,
                          const char **ty) {
  *ty = want;
  if (e->buf[a->id] && !e->ty[a->id] && !strcmp(vty(e, a), want)) return val(e, a);
  narrow_check(e, loc, OP_adds, a->dt);
  const char *x = scratch(e, want);
  line(e, "pto.set_validshape %s, %s, %s : %s", x, ar, ac, want);
  pitch_move(e, a->dt, val(e, a), vty(e, a), x, want);
  return x;
}

/* The static shape a tile_buf type declares. */
static void ty_shape(const char *ty, int *R, int *C) {
  const char *q = strstr(ty, "rows=");
  if (!q || sscanf(q, "rows=%d, cols=%d", R, C) != 2) die("emit_pto: a tile type without its shape");
}

/* Write src (valid [sr, sc]) into the window at [r, cc] of the vec or mat tile dv
 * (type dty, static shape [dR, dC]); the window has src's static shape, as tmov wants. */
static void put_window(E *e, const char *dv, const char *dty, int dR, int dC, Space dsp, const Var *src, const char *r,
                       const char *cc, const char *sr, const char *sc) {
  int sR, sC;
  ty_shape(vty(e, src), &sR, &sC);
  const char *w = fresh(e, "win"), *wty = view_of(e, dty, sR, sC, sr, sc);
  line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", w, dv, r, cc, sR, sC, sr, sc, dty, wty);
  if (e->tgt == TGT_A2A3 && dsp == SP_VEC && (dR != sR || dC != sC))
    /* ptoas gives the window its parent's shape and then refuses an A2/A3 tmov between
     * unequal shapes (real-findings.md RF-10): tadds of -0.0, the identity, instead */
    pitch_move(e, src->dt, val(e, src), vty(e, src), w, wty);
  else
    line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, src), vty(e, src), w, wty);
}

/* ---- one statement --------------------------------------------------------------- */

/* v (valid [vr, vc]) with the valid shape [wr, wc] <= it: v itself when the two are the
 * same constants, else a view of v's whole tile; its type in *ty. */
static const char *narrowed(E *e, const Var *v, const char *vr, const char *vc, const char *wr, const char *wc,
                            const char **ty) {
  int64_t a, b, x, y;
  *ty = vty(e, v);
  if ((vr == wr || (isconst(e, vr, &a) && isconst(e, wr, &x) && a == x)) &&
      (vc == wc || (isconst(e, vc, &b) && isconst(e, wc, &y) && b == y)))
    return val(e, v);
  int R, C;
  const char *pt = vty(e, v);
  ty_shape(pt, &R, &C);
  const char *w = fresh(e, v->name);
  if ((isconst(e, wr, &x) && !x) || (isconst(e, wc, &y) && !y) || !e->buf[v->id] || e->ty[v->id]) {
    /* an empty operand (no static zero valid tile in pto-isa), or one with no buffer of its own:
     * a view of a popped entry is bound to no storage (real-findings.md RF-3): a copy */
    bool empty = (isconst(e, wr, &x) && !x) || (isconst(e, wc, &y) && !y);
    /* The copy is a buffer of v's padded tile: a view's window may have rows that are no
     * whole 32 bytes (31 f32 columns of a 32-column entry), which alloc_tile refuses; v
     * is then moved into a window of the copy of its own shape (tmov wants equal shapes). */
    int pR, pC;
    pto_shape(v->sp, v->dt, v->R, v->C, &pR, &pC);
    const char *ct = pR == R && pC == C ? pt : tty(e, v->sp, v->dt, v->R, v->C);
    /* pto-isa's TMOV asserts equal valid shapes: the copy starts with v's (real-findings.md F-7) */
    line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", w, empty ? cidx(e, pR) : vr,
         empty ? cidx(e, pC) : vc, ct);
    if (!empty && ct == pt) line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, v), pt, w, pt);
    else if (!empty) {
      const char *win = fresh(e, "win"), *wty = view_of(e, ct, R, C, vr, vc);
      line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", win, w, cidx(e, 0), cidx(e, 0), R, C,
           vr, vc, ct, wty);
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, v), pt, win, wty);
    }
    line(e, "pto.set_validshape %s, %s, %s : %s", w, wr, wc, ct);
    *ty = ct;
    return w;
  }
  const char *wty = view_of(e, pt, R, C, wr, wc);
  line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", w, val(e, v), cidx(e, 0), cidx(e, 0), R, C,
       wr, wc, pt, wty);
  *ty = wty;
  return w;
}

/* The cube's mat tile a V2C entry of the vector tile t joins into, padded ([Rp, Cp]), and
 * the columns W of the vector tile pto-isa expects to be pushed into it: the producer's
 * tile shape is the entry's layout (real-findings.md, the split classes).
 * pto-isa's V2C slot is the producer's tile ([R, Cols], twice the rows or
 * columns of a half), written at the producer's column pitch and read at the mat tile's
 * (TPush_v2c, popTileFromMatFiFo; on a3 TPush_gm, popTileFromGMFiFo). */
static int v2c_width(const Var *t, int code, int *Rp, int *Cp) {
  int jR = t->R, jC = t->C;
  if (code != MODE_NONE) *(MODE_AXIS(code) ? &jC : &jR) *= 2;
  pto_shape(SP_MAT, t->dt, jR, jC, Rp, Cp);
  return code != MODE_NONE && MODE_AXIS(code) ? *Cp / 2 : *Cp;
}

/* Push the row-major vector tile t to the cube. Its columns must be the mat tile's
 * padded columns (or their half under left_right): t is moved into a tile that wide
 * (tadds of -0.0, the identity, reads and writes each tile at its own pitch) when it
 * is narrower. An unsplit entry is pushed with its whole width valid, as pto-isa's a3
 * GM path writes it at the valid width and reads it at the tile's (RF-1's V2C twin);
 * the matmul reads only its valid K. Under left_right pto-isa joins the halves at half
 * the padded mat tile, so the lanes' stride (the model's E/2) must be that half. */
static void v2c_push(E *e, Loc loc, int op, const Var *t, int code) {
  int Rp, Cp, W = v2c_width(t, code, &Rp, &Cp), vR, vC;
  pto_shape(t->sp, t->dt, t->R, t->C, &vR, &vC);
  if (code != MODE_NONE && MODE_AXIS(code) && (t->C != W || vC != W))
    unsupported(e, loc, op, ir_fmt(e->c->A, "a left_right V2C of %d columns: pto-isa joins the lanes at half the "
                "padded %d-column mat tile (%d), the lanes hold %d each", 2 * t->C, Cp, W, t->C));
  const char *vr, *vc, *x = val(e, t), *ty = vty(e, t);
  valid(e, t, &vr, &vc);
  int64_t k, r;
  /* the hardware joins a split V2C at each lane's valid extent (npu/a5/TPush.hpp
   * pushVec2MatFiFo; a2a3's GM slot packs it), so a lane pushes its whole part
   * (split.md, real-findings.md RF-16, RF-17) */
  bool part = code != MODE_NONE && !(isconst(e, vr, &r) && r == t->R && isconst(e, vc, &k) && k == W);
  bool whole = (code == MODE_NONE && !(isconst(e, vc, &k) && k == W)) || part;
  const char *fr = part ? cidx(e, t->R) : vr;   /* the valid rows pushed */
  bool own = !e->ty[t->id] && !e->nr[t->id];
  if (vC != W || (whole && !own)) {
    const char *w = fresh(e, t->name), *wty = tty(e, t->sp, t->dt, t->R, W);
    line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", w, vr, vc, wty);
    pitch_move(e, t->dt, x, ty, w, wty);
    if (whole) line(e, "pto.set_validshape %s, %s, %s : %s", w, fr, cidx(e, W), wty);
    line(e, "pto.tpush_to_aic(%s : %s) {id = %d, split = %d}", w, wty, pipe_id(PIPE_V2C, code), axis_code(code));
    return;
  }
  if (whole) setvalid(e, t, fr, cidx(e, W));
  line(e, "pto.tpush_to_aic(%s : %s) {id = %d, split = %d}", x, ty, pipe_id(PIPE_V2C, code), axis_code(code));
  if (whole) setvalid(e, t, vr, vc);
}

/* PTOAS's element-wise ops take row-major tiles; an [R, 1] column is column-major. */
static void rowmajor(E *e, Loc loc, int op, const Var *v) {
  if (v->sp == SP_VEC && ir_layout(v->sp, v->R, v->C) == LAY_COL)
    unsupported(e, loc, op, "an element-wise op on an [R, 1] column: PTOAS's element-wise ops take row-major tiles "
                            "(PyPTO reshapes columns with treshape; ptoc does not yet)");
}

/* d's buffer := src's valid region, d's valid shape src's (TMOV needs them equal) */
static void copy_into(E *e, const Var *d, const Var *src) {
  const char *vr, *vc;
  valid(e, src, &vr, &vc);
  setvalid(e, d, vr, vc);
  line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, src), vty(e, src), val(e, d), vty(e, d));
}

/* Does the row-major order of [R, C]'s elements fill a prefix of its buffer? */
static bool dense(Space sp, Dtype dt, int R, int C) {
  int Rp, Cp;
  pto_shape(sp, dt, R, C, &Rp, &Cp);
  return R == 1 || C == 1 || Cp == C;
}

/* d := src with src's elements in row-major order (src full, or empty: then d
 * is empty). PTOAS's treshape views the same bytes with another shape (the
 * two buffers must hold as many bytes); the view, valid all through, is
 * copied into d's buffer. */
static void reshape_into(E *e, Loc loc, int op, const Var *d, const Var *src) {
  if (!d->svr || !d->svc) {                     /* empty in, empty out: no data moves */
    setvalid(e, d, cidx(e, 0), cidx(e, 0));
    return;
  }
  int R, C, R2, C2;
  pto_shape(src->sp, src->dt, src->R, src->C, &R, &C);
  pto_shape(d->sp, d->dt, d->R, d->C, &R2, &C2);
  if (!dense(src->sp, src->dt, src->R, src->C) || !dense(d->sp, d->dt, d->R, d->C) || R * C != R2 * C2)
    unsupported(e, loc, op, ir_fmt(e->c->A, "[%d,%d] and [%d,%d] are buffers of [%d,%d] and [%d,%d]: treshape keeps "
                "the bytes, so the row-major order must fill both alike", src->R, src->C, d->R, d->C, R, C, R2, C2));
  const char *full = view_of(e, vty(e, d), R2, C2, cidx(e, d->R), cidx(e, d->C)), *v = fresh(e, "rs");
  line(e, "%s = pto.treshape %s : %s -> %s", v, val(e, src), vty(e, src), full);
  setvalid(e, d, cidx(e, d->R), cidx(e, d->C));
  line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", v, full, val(e, d), vty(e, d));
}

static void op_stmt(E *e, const Stmt *s) {
  if (s->rhs.k == A_VAR) {                      /* a copy: the value moves to a new name */
    const Var *src = s->rhs.var, *d = s->dst;
    if (!e->cur[d->id] || d->sp != src->sp) {
      e->cur[d->id] = val(e, src);              /* an alias of the same buffer */
      e->ty[d->id] = vty(e, src);
      return;
    }
    if (d->sp != SP_VEC)                        /* body() aliases the copies that allow it (mark_alias) */
      unsupported(e, s->loc, OP_move, ir_fmt(e->c->A, "a copy of a tile within %s: PTO-AS has no %s-to-%s tmov, and "
                  "the copy cannot be its source's buffer under another name (the source changes while the copy is "
                  "read, the copy is read outside the block that copies it or is viewed, or the source is a view, "
                  "a popped entry, another copy's name or a trans_b operand)", ir_space_name(d->sp), ir_space_name(d->sp), ir_space_name(d->sp)));
    copy_into(e, d, src);
    return;
  }
  const Call *c = s->rhs.call;
  const Var *d = s->dst;
  Loc loc = c->loc;
  if (d) e->nr[d->id] = e->nc[d->id] = NULL;
  /* an op that writes the value's own buffer (not a view, a pop, an alloc or a scalar):
   * the value is the buffer again, whatever it was before */
  OpKind ok = ir_ops[c->op].kind;
  if (d && e->buf[d->id] && ok != K_SLICE && ok != K_TPOP && ok != K_ALLOC && ok != K_GROW) {
    e->cur[d->id] = e->buf[d->id];
    e->ty[d->id] = NULL;
  }
  if (ok == K_FULL || elt_op(c->op)) narrow_check(e, loc, c->op, ok == K_FULL ? d->dt : avar(c, 0)->dt);
  switch (ir_ops[c->op].kind) {
  case K_ALLOC:
    if (!e->buf[d->id]) {                       /* declared where first used (declare()) */
      e->pend[d->id] = vty(e, d);
      return;
    }
    if (c->nargs == 4 || !e->buf[d->id]) {
      e->ty[d->id] = NULL;
      const char *x = fresh(e, d->name);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", x, cidx(e, 0), cidx(e, 0), vty(e, d));
      e->cur[d->id] = e->buf[d->id] = x;
    } else {
      e->cur[d->id] = e->buf[d->id];
      e->ty[d->id] = NULL;
      setvalid(e, d, cidx(e, 0), cidx(e, 0));
    }
    return;
  case K_TLOAD: {
    const Var *T = avar(c, 1);
    const Arg *o = ir_pos((Call *)c, 2), *p = ir_pos((Call *)c, 3);
    const char *r = aff(e, &o->ix[0]), *cc = aff(e, &o->ix[1]);
    const char *pr = aff(e, &p->ix[0]), *pc = aff(e, &p->ix[1]);
    char pv[64];
    const char *pty;
    int64_t z;
    if ((isconst(e, pr, &z) && !z) || (isconst(e, pc, &z) && !z)) {
      /* empty, by a scalar that folds to 0 only here (lower turns a static
       * zero extent into set_validshape): the same empty tile, no partition */
      if (e->tr[d->id]) setvalid(e, d, pc, pr);
      else setvalid(e, d, pr, pc);
      return;
    }
    if (e->tr[d->id]) {                         /* B^T: T's [pr, pc] window viewed column-major as [pc, pr] */
      if (T->rank != 2) unsupported(e, loc, c->op, "a transposed load of a 1-D tensor");
      const char *dn = fresh(e, "dn");
      line(e, "%s = pto.make_tensor_view %%arg%d, shape = [%s, %s], strides = [%s, %s] {layout = #pto.layout<dn>} : %s",
           dn, T->id, cidx(e, T->dim[1]), cidx(e, T->dim[0]), cidx(e, 1), cidx(e, T->dim[1]), tvty(e, T));
      const char *q = fresh(e, "pv");
      bool st = ir_aff_const(&p->ix[0]) && ir_aff_const(&p->ix[1]);
      char shape[64];
      if (st) snprintf(shape, sizeof shape, "%dx%d", p->ix[1].c, p->ix[0].c);
      else snprintf(shape, sizeof shape, "?x?");
      line(e, "%s = pto.partition_view %s, offsets = [%s, %s], sizes = [%s, %s] : %s -> !pto.partition_tensor_view<%sx%s>",
           q, dn, cc, r, pc, pr, tvty(e, T), shape, dtn(T->dt));
      setvalid(e, d, pc, pr);
      line(e, "pto.tload ins(%s : !pto.partition_tensor_view<%sx%s>) outs(%s : %s)", q, shape, dtn(T->dt), val(e, d), vty(e, d));
      return;
    }
    split_pv(partition(e, T, r, cc, pr, pc, &p->ix[0], &p->ix[1]), pv, sizeof pv, &pty);
    setvalid(e, d, pr, pc);
    line(e, "pto.tload ins(%s : %s) outs(%s : %s)", pv, pty, val(e, d), vty(e, d));
    return;
  }
  case K_STORE: {
    const Var *T = avar(c, 0), *t = avar(c, 2);
    const Arg *o = ir_pos((Call *)c, 1), *p = ir_kwarg((Call *)c, KW_PART), *ln = ir_kwarg((Call *)c, KW_LANE);
    bool guard = ln && e->aiv && e->cur[e->k->nvars] != NULL;
    if (guard) {
      const char *cnd = fresh(e, "l0");
      line(e, "%s = arith.cmpi eq, %s, %s : index", cnd, e->cur[e->k->nvars], cidx(e, 0));
      line(e, "scf.if %s {", cnd);
      e->ind++;
    }
    const char *r = aff(e, &o->ix[0]), *cc = aff(e, &o->ix[1]), *pr, *pc;
    if (p) pr = aff(e, &p->ix[0]), pc = aff(e, &p->ix[1]);
    else valid(e, t, &pr, &pc);
    int64_t z;
    if ((isconst(e, pr, &z) && !z) || (isconst(e, pc, &z) && !z)) {   /* an empty lane stores nothing (DESIGN 14.7) */
      if (guard) e->ind--, line(e, "}");
      return;
    }
    char pv[64];
    const char *pty;
    split_pv(partition(e, T, r, cc, pr, pc, p ? &p->ix[0] : NULL, p ? &p->ix[1] : NULL), pv, sizeof pv, &pty);
    line(e, "pto.tstore ins(%s : %s) outs(%s : %s)", val(e, t), vty(e, t), pv, pty);
    if (guard) {
      e->ind--;
      line(e, "}");
    }
    return;
  }
  case K_SETVALID: {                            /* t's data with valid [r, c]: in place, or a copy first */
    const Var *t = avar(c, 0);
    const char *r = aff(e, &ir_pos((Call *)c, 1)->ix[0]), *cc = aff(e, &ir_pos((Call *)c, 2)->ix[0]);
    if (t != d) copy_into(e, d, t);
    setvalid(e, d, r, cc);
    return;
  }
  case K_TRANS: {
    const Var *t = avar(c, 0);
    bool whole = (t->svr == t->R && t->svc == t->C) || !d->svr || !d->svc;
    if (whole && (ir_layout(t->sp, t->R, t->C) == LAY_COL || ir_layout(d->sp, d->R, d->C) == LAY_COL)) {
      /* [R, 1] <-> [1, R] keeps the order of the elements: a reshape */
      reshape_into(e, loc, c->op, d, t);
      return;
    }
    if (ir_layout(t->sp, t->R, t->C) == LAY_COL)
      unsupported(e, loc, c->op, "a transpose of a partly valid [R, 1] column: PTOAS's a2a3 ttrans takes a row-major "
                  "source, and treshape wants a full tile");
    const char *tr, *tc, *src = val(e, t);
    valid(e, t, &tr, &tc);
    if (e->buf[d->id] && !strcmp(src, e->buf[d->id])) {   /* in place (x = transpose(x)): copy the source first */
      src = fresh(e, t->name);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", src, tr, tc, vty(e, t));
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, t), vty(e, t), src, vty(e, t));
    }
    setvalid(e, d, tc, tr);
    /* pto-isa's a2a3 TTRANS stages the result in tmp, rows padded to its
     * 32-byte blocks, columns to its 16-row (8-bit: 32-row) transpose tiles */
    int eb = ir_dtype_bytes(d->dt), bl = 32 / eb, yt = eb == 1 ? 32 : 16;
    const char *sty = tty(e, d->sp, d->dt, (d->R + bl - 1) / bl * bl, (d->C + yt - 1) / yt * yt),
               *tmp = scratch(e, sty);
    line(e, "pto.ttrans ins(%s, %s : %s, %s) outs(%s : %s)", src, tmp, vty(e, t), sty, val(e, d), vty(e, d));
    return;
  }
  case K_RESHAPE:
    reshape_into(e, loc, c->op, d, avar(c, 0));
    return;
  case K_SLICE: {                               /* subview: a window of t's buffer */
    const Var *t = avar(c, 0);
    const Arg *o = ir_pos((Call *)c, 1), *sh = ir_pos((Call *)c, 2), *kv = ir_kwarg((Call *)c, KW_VALID);
    if (!ir_aff_const(&sh->ix[0]) || !ir_aff_const(&sh->ix[1])) unsupported(e, loc, c->op, "a dynamic subview size");
    int R = sh->ix[0].c, C = sh->ix[1].c;
    const char *r = aff(e, &o->ix[0]), *cc = aff(e, &o->ix[1]), *tr, *tc;
    valid(e, t, &tr, &tc);
    /* valid per dim: min(size, clamp(t.v - off, 0, size)), bounded by valid= */
    const char *vr = bin(e, "minsi", bin(e, "maxsi", bin(e, "subi", tr, r), cidx(e, 0)), cidx(e, R));
    const char *vc = bin(e, "minsi", bin(e, "maxsi", bin(e, "subi", tc, cc), cidx(e, 0)), cidx(e, C));
    if (kv) vr = bin(e, "minsi", vr, aff(e, &kv->ix[0])), vc = bin(e, "minsi", vc, aff(e, &kv->ix[1]));
    const char *x = fresh(e, d->name);
    int64_t z;
    if ((isconst(e, vr, &z) && !z) || (isconst(e, vc, &z) && !z)) {
      /* An empty view (the lane-1 replay): an empty tile of the view's shape, as PyPTO
       * creates it; pto-isa has no tile with a static zero valid extent. */
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", x, vr, vc, tty(e, d->sp, d->dt, R, C));
      e->cur[d->id] = x;
      e->ty[d->id] = tty(e, d->sp, d->dt, R, C);
      return;
    }
    const char *pt = vty(e, t), *pv = val(e, t);
    if (R == 1 && strstr(pt, "blayout=col_major") && t->sp == SP_VEC) {
      /* one element of an [R, 1] column: a view keeps the column's col_major layout, which
       * PTOAS's element-wise ops refuse; the column's bytes viewed as a [1, Rp] row
       * (treshape, as PyPTO reshapes columns), copied (ptoas takes no subview of a
       * treshape), and the element a window of the copy (real-findings.md F-4) */
      if (!e->buf[t->id] || e->ty[t->id])
        unsupported(e, loc, c->op, "an element of a column that is itself a view: treshape wants a whole buffer");
      int Rp, Cp;
      pto_shape(t->sp, t->dt, t->R, t->C, &Rp, &Cp);
      const char *row = tty(e, t->sp, t->dt, 1, Rp), *full = view_of(e, row, 1, Rp, cidx(e, 1), cidx(e, Rp));
      const char *rs = fresh(e, "rs"), *cp = fresh(e, t->name);
      line(e, "%s = pto.treshape %s : %s -> %s", rs, pv, pt, full);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", cp, cidx(e, 1), cidx(e, Rp), row);
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", rs, full, cp, row);
      pt = row, pv = cp, cc = r, r = cidx(e, 0);
    }
    const char *rty = view_of(e, pt, R, C, vr, vc);
    line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", x, pv, r, cc, R, C, vr, vc, pt, rty);
    e->cur[d->id] = x;
    e->ty[d->id] = rty;
    return;
  }
  case K_ASSEMBLE: {
    const Var *dst = avar(c, 0), *src = avar(c, 1);
    const Arg *o = ir_pos((Call *)c, 2);
    const char *dr, *dc, *sr, *sc;
    valid(e, dst, &dr, &dc);
    valid(e, src, &sr, &sc);
    if (dst->id != d->id) {
      setvalid(e, d, dr, dc);
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, dst), vty(e, dst), val(e, d), vty(e, d));
    }
    const char *r = aff(e, &o->ix[0]), *cc = aff(e, &o->ix[1]);
    if (!e->buf[src->id] || e->ty[src->id]) unsupported(e, loc, c->op, "assembling a view (its shape is its window's)");
    int dR, dC;                                 /* the window holds src's whole tile: tmov wants equal shapes */
    pto_shape(d->sp, d->dt, d->R, d->C, &dR, &dC);
    put_window(e, val(e, d), vty(e, d), dR, dC, d->sp, src, r, cc, sr, sc);
    setvalid(e, d, bin(e, "maxsi", dr, bin(e, "addi", r, sr)), bin(e, "maxsi", dc, bin(e, "addi", cc, sc)));
    return;
  }
  case K_FULL: {
    const Arg *v = ir_pos((Call *)c, 1), *kv = ir_kwarg((Call *)c, KW_VALID);
    if (e->tgt == TGT_A2A3 && ir_layout(d->sp, d->R, d->C) == LAY_COL)
      unsupported(e, loc, c->op, "PTOAS's texpands on A2/A3 needs a row-major destination, and an [R, 1] column is column-major");
    const char *vr = cidx(e, d->R), *vc = cidx(e, d->C);
    if (kv) vr = aff(e, &kv->ix[0]), vc = aff(e, &kv->ix[1]);
    setvalid(e, d, vr, vc);
    line(e, "pto.texpands ins(%s : %s) outs(%s : %s)", scalar_const(e, d->dt, v->num), dtn(d->dt), val(e, d), vty(e, d));
    return;
  }
  case K_BIN: {
    const Var *a = avar(c, 0), *b = avar(c, 1);
    rowmajor(e, loc, c->op, d);
    const char *ar, *ac, *br, *bc;
    valid(e, a, &ar, &ac);
    valid(e, b, &br, &bc);
    const char *vr = bin(e, "minsi", ar, br), *vc = bin(e, "minsi", ac, bc), *at, *bt;
    setvalid(e, d, vr, vc);
    /* pto-isa wants every operand's valid shape equal to the destination's: views of the larger ones */
    const char *av = narrowed(e, a, ar, ac, vr, vc, &at), *bv = narrowed(e, b, br, bc, vr, vc, &bt);
    line(e, "pto.%s ins(%s, %s : %s, %s) outs(%s : %s)", elt_op(c->op), av, bv, at, bt, val(e, d), vty(e, d));
    return;
  }
  case K_BINS: {
    const Var *a = avar(c, 0);
    rowmajor(e, loc, c->op, d);
    const Arg *sv = ir_pos((Call *)c, 1);
    const char *ar, *ac;
    valid(e, a, &ar, &ac);
    setvalid(e, d, ar, ac);
    line(e, "pto.%s ins(%s, %s : %s, %s) outs(%s : %s)", elt_op(c->op), val(e, a), scalar_const(e, a->dt, sv->num),
         vty(e, a), dtn(a->dt), val(e, d), vty(e, d));
    return;
  }
  case K_UN: {
    const Var *a = avar(c, 0);
    if (c->op == OP_abs && ir_dtype_int(a->dt)) unsupported(e, loc, c->op, "PTOAS v0.42's tabs takes floats only");
    rowmajor(e, loc, c->op, d);
    const char *ar, *ac;
    valid(e, a, &ar, &ac);
    setvalid(e, d, ar, ac);
    line(e, "pto.%s ins(%s : %s) outs(%s : %s)", elt_op(c->op), val(e, a), vty(e, a), val(e, d), vty(e, d));
    return;
  }
  case K_CAST: {
    const Var *a = avar(c, 0);
    rowmajor(e, loc, c->op, d);
    const char *ar, *ac;
    valid(e, a, &ar, &ac);
    setvalid(e, d, ar, ac);
    /* f32 -> f16 rounds to nearest even; float -> i32 truncates (language.md) */
    const char *rm = ir_dtype_int(d->dt) ? "TRUNC" : "RINT";
    /* tcvt wants src and dst of one shape, but ptoc pads vec columns to 32 bytes per
     * dtype (an f16 [8, 8] is [8, 16], its f32 cast [8, 8]), and a view takes its
     * parent's shape in ptoas: whichever side differs from [R, C*] (C* the wider
     * padding) is staged in a scratch tile of that shape (real-findings.md F-2) */
    int aR, aC, dR, dC, cs;
    const char *sty, *dst = val(e, d), *dty = vty(e, d), *dscr = NULL;
    pto_shape(a->sp, a->dt, a->R, a->C, &aR, &aC);
    pto_shape(d->sp, d->dt, d->R, d->C, &dR, &dC);
    cs = aC > dC ? aC : dC;
    const char *src = staged(e, loc, a, ar, ac, tty(e, a->sp, a->dt, d->R, cs), &sty);
    if (dC != cs) {
      narrow_check(e, loc, OP_adds, d->dt);
      dty = tty(e, d->sp, d->dt, d->R, cs);
      dst = dscr = scratch(e, dty);
      line(e, "pto.set_validshape %s, %s, %s : %s", dscr, ar, ac, dty);
    }
    line(e, "pto.tcvt ins(%s {rmode = #pto<round_mode %s>} : %s) outs(%s : %s)", src, rm, sty, dst, dty);
    if (dscr) pitch_move(e, d->dt, dscr, dty, val(e, d), vty(e, d));
    return;
  }
  case K_RRED:
  case K_CRED: {
    const Var *a = avar(c, 0);
    bool row = ir_ops[c->op].kind == K_RRED;
    const char *ar, *ac, *vr, *vc;
    valid(e, a, &ar, &ac);
    const Arg *kv = ir_kwarg((Call *)c, KW_VALID);
    if (kv) {
      vr = aff(e, &kv->ix[0]), vc = aff(e, &kv->ix[1]);
    } else {                                    /* row: [vr, 1], col: [1, vc]; an empty source gives [0, 0] */
      const char *z = fresh(e, "z");
      line(e, "%s = arith.cmpi eq, %s, %s : index", z, row ? ac : ar, cidx(e, 0));
      vr = fresh(e, "i"), vc = fresh(e, "i");
      line(e, "%s = arith.select %s, %s, %s : index", vr, z, cidx(e, 0), row ? ar : cidx(e, 1));
      line(e, "%s = arith.select %s, %s, %s : index", vc, z, cidx(e, 0), row ? cidx(e, 1) : ac);
    }
    setvalid(e, d, vr, vc);
    if (row) {                                  /* the row reductions take a scratch tile shaped like the source */
      const char *sty = tty(e, a->sp, a->dt, a->R, a->C), *tmp = scratch(e, sty);
      line(e, "pto.set_validshape %s, %s, %s : %s", tmp, ar, ac, sty);
      line(e, "pto.%s ins(%s, %s : %s, %s) outs(%s : %s)", elt_op(c->op), val(e, a), tmp, vty(e, a), sty, val(e, d),
           vty(e, d));
    } else {
      line(e, "pto.%s ins(%s : %s) outs(%s : %s)", elt_op(c->op), val(e, a), vty(e, a), val(e, d), vty(e, d));
    }
    return;
  }
  case K_REXP:
  case K_CEXP: {
    const Var *a = avar(c, 0), *v = avar(c, 1);
    bool row = ir_ops[c->op].kind == K_REXP;
    if (!row && ir_layout(a->sp, a->R, a->C) == LAY_COL)
      unsupported(e, loc, c->op, "a column expansion of an [R, 1] column: PTOAS's tcolexpand takes a row-major tile");
    if (row && ir_layout(v->sp, v->R, v->C) != LAY_COL)
      unsupported(e, loc, c->op, "pto-isa's TROWEXPAND broadcasts a column-major [R, 1] vector only, and a [1, 1] tile is row-major");
    const char *ar, *ac;
    valid(e, a, &ar, &ac);
    setvalid(e, d, ar, ac);
    /* pto-isa wants the vector's valid extent along the tile equal to the destination's: a view of it */
    int vR, vC;
    pto_shape(v->sp, v->dt, v->R, v->C, &vR, &vC);
    const char *w = fresh(e, "vec"), *wty = view_of(e, vty(e, v), vR, vC, row ? ar : cidx(e, 1), row ? cidx(e, 1) : ac);
    line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", w, val(e, v), cidx(e, 0), cidx(e, 0),
         vR, vC, row ? ar : cidx(e, 1), row ? cidx(e, 1) : ac, vty(e, v), wty);
    /* tcolexpand wants src0 of dst's static shape: a view (its window's shape) is staged */
    const char *at = vty(e, a), *av = row ? val(e, a) : staged(e, loc, a, ar, ac, tty(e, a->sp, a->dt, d->R, d->C), &at);
    line(e, "pto.%s ins(%s, %s : %s, %s) outs(%s : %s)", elt_op(c->op), av, w, at, wty, val(e, d), vty(e, d));
    return;
  }
  case K_MOVE: {                                /* tmov inside one core */
    const Var *a = avar(c, 0);
    const char *ar, *ac;
    valid(e, a, &ar, &ac);
    if (e->nr[a->id]) {                         /* out of a whole popped entry: move it whole, then narrow */
      int pR, pC;
      pto_shape(a->sp, a->dt, a->R, a->C, &pR, &pC);  /* the entry's whole tile, as TPOP delivers it */
      setvalid(e, d, cidx(e, pR), cidx(e, pC));
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, a), vty(e, a), val(e, d), vty(e, d));
      setvalid(e, d, ar, ac);
      return;
    }
    setvalid(e, d, ar, ac);
    line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", val(e, a), vty(e, a), val(e, d), vty(e, d));
    return;
  }
  case K_MATMUL: {
    bool acc = IR_ACC_MATMUL(c->op);
    const Arg *tb = ir_kwarg((Call *)c, KW_TRANS_B);
    const Var *l = avar(c, acc), *r = avar(c, acc + 1);
    if (l->dt == DT_I32) unsupported(e, loc, c->op, "PTOAS's integer tmatmul is i8 x i8 -> i32 only");
    if (tb && tb->num != 0 && !e->tr[r->id])
      unsupported(e, loc, c->op, "trans_b=1 whose right operand is not loaded from GM (only a DN load transposes)");
    int lR, lC, rR, rC;
    pto_shape(l->sp, l->dt, l->R, l->C, &lR, &lC);
    if (e->tr[r->id]) pto_shape(r->sp, r->dt, r->C, r->R, &rR, &rC);
    else pto_shape(r->sp, r->dt, r->R, r->C, &rR, &rC);
    if (lC != rR)
      unsupported(e, loc, c->op, ir_fmt(e->c->A, "the left tile's K pads to %d and the right's to %d (a one-row right "
                                                 "tile is not padded), and PTOAS's tmatmul wants them equal", lC, rR));
    const char *lr, *lc, *rr, *rc;
    valid(e, l, &lr, &lc);
    valid(e, r, &rr, &rc);
    setvalid(e, d, lr, rc);
    if (acc) {
      const Var *c0 = avar(c, 0);
      line(e, "pto.tmatmul.acc ins(%s, %s, %s : %s, %s, %s) outs(%s : %s)", val(e, c0), val(e, l), val(e, r), vty(e, c0),
           vty(e, l), vty(e, r), val(e, d), vty(e, d));
    } else {
      line(e, "pto.tmatmul ins(%s, %s : %s, %s) outs(%s : %s)", val(e, l), val(e, r), vty(e, l), vty(e, r), val(e, d),
           vty(e, d));
    }
    return;
  }
  case K_TPUSH: {
    int dir = ir_pos((Call *)c, 0)->e, code = (int)ir_pos((Call *)c, 2)->num;
    const Var *t = avar(c, 1);
    /* pto-isa writes a whole C2V entry at its valid width and reads it at the tile's
     * (real-findings.md RF-1): the cube pushes its whole padded tile, the consumer
     * narrows to the valid shape it knows; the tile's valid shape is restored after. */
    if (t->sp != SP_ACC && t->sp != SP_VEC)
      /* PTOAS's TPushOp::getPipe maps an acc tile to PIPE_FIX and a vec tile to PIPE_MTE3,
       * anything else to PIPE_UNASSIGNED, which its verifier refuses, on every arch
       * (real-findings.md F-3) */
      unsupported(e, loc, c->op, ir_fmt(e->c->A, "a %s tile pushed to the vector core: PTOAS's tpush has a producer "
                                        "pipe for acc and vec tiles only", ir_space_name(t->sp)));
    const char *vr = NULL, *vc = NULL;
    int aR, aC;
    pto_shape(t->sp, t->dt, t->R, t->C, &aR, &aC);
    /* A split entry is pushed whole too, and each lane narrows to its own part, as
     * PyPTO pushes the box: a5's local FIFO cuts at half the pushed valid rows and
     * asserts them even (pto-isa npu/a5/TPush.hpp pushAcc2VecFiFo), a2a3's GM slot
     * packs the valid shape (npu/a2a3/TPush.hpp) (split.md, real-findings.md RF-15, RF-17) */
    if (dir == PIPE_C2V && !e->ty[t->id] && !e->nr[t->id]) {
      valid(e, t, &vr, &vc);
      setvalid(e, t, cidx(e, aR), cidx(e, aC));
    }
    if (dir == PIPE_V2C && ir_layout(t->sp, t->R, t->C) == LAY_ROW) {
      v2c_push(e, loc, c->op, t, code);
      return;
    }
    line(e, "pto.%s(%s : %s) {id = %d, split = %d}", dir == PIPE_C2V ? "tpush_to_aiv" : "tpush_to_aic", val(e, t),
         vty(e, t), pipe_id(dir, code), axis_code(code));
    if (vr) setvalid(e, t, vr, vc);
    return;
  }
  case K_TPOP: {
    int dir = ir_pos((Call *)c, 0)->e, code = (int)ir_pos((Call *)c, 3)->num;
    int n = e->npop[dir]++;
    if (e->nq[dir] == MAXQ) unsupported(e, loc, c->op, "too many popped entries outstanding");
    e->q[dir][e->nq[dir]++] = code;
    const char *x = fresh(e, d->name);
    /* The entry is popped whole, as PyPTO pops it; when the matching push's valid shape is
     * static (C2V: this lane's part of it) and smaller, the value is a view with that valid
     * shape. pto-isa's a3 pop loads the whole slot and asserts on a smaller valid shape. */
    const char *vr = NULL, *vc = NULL;
    int lv[2][2], have = 0;                     /* per lane: the valid shape the caller saw delivered */
    for (int l = 0; l < 2 && e->nm->pop_valid; l++)
      if (e->nm->pop_valid(e->nm->ctx, s, l, &lv[l][0], &lv[l][1])) have |= 1 << l;
    if (have) {
      if (have != 3 || !e->aiv || (lv[0][0] == lv[1][0] && lv[0][1] == lv[1][1])) {
        int l = have & 1 ? 0 : 1;
        vr = cidx(e, lv[l][0]), vc = cidx(e, lv[l][1]);
      } else {
        const char *is0 = fresh(e, "l0");
        line(e, "%s = arith.cmpi eq, %s, %s : index", is0, e->cur[e->k->nvars], cidx(e, 0));
        vr = fresh(e, "i"), vc = fresh(e, "i");
        line(e, "%s = arith.select %s, %s, %s : index", vr, is0, cidx(e, lv[0][0]), cidx(e, lv[1][0]));
        line(e, "%s = arith.select %s, %s, %s : index", vc, is0, cidx(e, lv[0][1]), cidx(e, lv[1][1]));
      }
    } else if (n < e->npush[dir] && n < 256 && e->pushv[dir][n][0] >= 0 && e->pushv[dir][n][1] >= 0) {
      int V[2] = {e->pushv[dir][n][0], e->pushv[dir][n][1]}, Ex[2] = {e->pushE[dir][n][0], e->pushE[dir][n][1]};
      vr = cidx(e, V[0]), vc = cidx(e, V[1]);
      if (code != MODE_NONE && dir == PIPE_C2V) {   /* lane l: clamp(V - l*S, 0, S), S the lane's extent */
        int ax = MODE_AXIS(code), S = ax ? d->C : d->R;
        (void)Ex;
        const char *ls = e->cur[e->k->nvars] ? e->cur[e->k->nvars] : cidx(e, 0);
        const char *v = bin(e, "minsi", bin(e, "maxsi", bin(e, "subi", cidx(e, V[ax]), bin(e, "muli", ls, cidx(e, S))),
                                           cidx(e, 0)), cidx(e, S));
        if (ax) vc = v;
        else vr = v;
      }
    }
    const char *full = tty(e, d->sp, d->dt, d->R, d->C);
    int64_t a, b;
    int pR, pC;                                 /* a pop's valid shape is the entry's whole (padded) tile */
    pto_shape(d->sp, d->dt, d->R, d->C, &pR, &pC);
    bool whole = !vr || (isconst(e, vr, &a) && isconst(e, vc, &b) && a == pR && b == pC);
    if (dir == PIPE_V2C && !whole) {
      /* The cube pops the whole entry: pto-isa's TPOP aborts on a declared valid shape smaller
       * than the slot's (docs/real-findings.md), and mat-to-mat has no tmov. The smaller shape
       * is the value's from here on (valid()), and a tmov out of it narrows its destination. */
      line(e, "%s = pto.tpop_from_aiv {id = %d, split = %d} -> %s", x, pipe_id(dir, code), axis_code(code), full);
      e->cur[d->id] = x;
      e->ty[d->id] = NULL;
      e->nr[d->id] = vr, e->nc[d->id] = vc;
      return;
    }
    /* pto-isa reads a C2V entry at the consumer tile's column pitch and writes it at the
     * producer's (the padded acc's, or its half): a whole or up_down entry is popped with
     * the producer's columns and its window moved into the value's own tile (F-12) */
    if (dir == PIPE_C2V && axis_code(code) == 2 && n < e->npush[dir] && n < 256) {
      /* pto-isa cuts a left_right entry at half the producer's padded columns (a5:
       * TPush_c2v, TileProd::Cols / 2) or at the consumer tile's padded columns (a3:
       * popTileFromGMFiFo, consCols); the model's lanes meet at d->C */
      int aR, aC;
      pto_shape(SP_ACC, d->dt, e->pushE[dir][n][0], e->pushE[dir][n][1], &aR, &aC);
      if (pC != d->C || 2 * d->C != aC)
        unsupported(e, loc, c->op, ir_fmt(e->c->A, "a left_right C2V of %d columns: pto-isa places lane 1 at half the "
                    "padded %d-column acc (%d), the model at %d", e->pushE[dir][n][1], aC, aC / 2, d->C));
    }
    int qR, qC = pC;
    if (dir == PIPE_C2V && axis_code(code) != 2 && n < e->npush[dir] && n < 256)
      pto_shape(SP_ACC, d->dt, e->pushE[dir][n][0], e->pushE[dir][n][1], &qR, &qC);
    if (dir == PIPE_C2V && axis_code(code) == 1 && e->tgt == TGT_A5 && n < e->npush[dir] && n < 256 && 2 * d->R != qR)
      /* an i32 acc pads to 32 rows where ptoc's lanes take 16-row boxes (split.md) */
      unsupported(e, loc, c->op, ir_fmt(e->c->A, "an up_down C2V of %d rows on a5: the local FIFO cuts the padded "
                  "%d-row acc at %d, the lanes hold %d", e->pushE[dir][n][0], qR, qR / 2, d->R));
    if (qC > pC && ir_layout(d->sp, d->R, d->C) == LAY_COL)
      unsupported(e, loc, c->op, "a column popped from a wider acc (an N = 1 matmul's result): the move into its "
                                 "col_major tile would be a tadds, which pto-isa takes on row-major tiles only, "
                                 "and a2a3's tmov wants equal shapes");
    if (qC > pC) {
      /* no tmov or subview does it: A2/A3's tmov wants equal shapes and a subview of a
       * popped entry is bound to no storage (RF-3); the entry is copied whole (ptoas sets
       * no valid shape on a popped tile), narrowed, then moved by tadds of -0.0, the
       * identity on every value, which reads and writes each tile at its own pitch
       * (pto/cpu/TBinSOps.hpp) */
      const char *pty = tty(e, d->sp, d->dt, d->R, qC), *w2 = fresh(e, d->name), *w = fresh(e, d->name);
      line(e, "%s = pto.tpop_from_aic {id = %d, split = %d} -> %s", x, pipe_id(dir, code), axis_code(code), pty);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", w2, cidx(e, pR), cidx(e, qC), pty);
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", x, pty, w2, pty);
      line(e, "pto.set_validshape %s, %s, %s : %s", w2, cidx(e, pR), cidx(e, pC), pty);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", w, cidx(e, pR), cidx(e, pC), full);
      pitch_move(e, d->dt, w2, pty, w, full);
      if (!whole) line(e, "pto.set_validshape %s, %s, %s : %s", w, vr, vc, full);
      e->cur[d->id] = w;
      e->ty[d->id] = full;
      return;
    }
    line(e, "%s = pto.%s {id = %d, split = %d} -> %s", x, dir == PIPE_C2V ? "tpop_from_aic" : "tpop_from_aiv",
         pipe_id(dir, code), axis_code(code), full);
    if (!whole) {
      /* a copy with the smaller valid shape: ptoas v0.42 lowers a subview of a popped entry
       * to a tile bound to no storage (docs/real-findings.md) */
      const char *w = fresh(e, d->name);
      line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", w, cidx(e, pR), cidx(e, pC), full);
      line(e, "pto.tmov ins(%s : %s) outs(%s : %s)", x, full, w, full);   /* pto-isa's TMOV wants equal valid shapes */
      line(e, "pto.set_validshape %s, %s, %s : %s", w, vr, vc, full);
      e->cur[d->id] = w;
      e->ty[d->id] = full;
      return;
    }
    e->cur[d->id] = x;
    e->ty[d->id] = NULL;
    return;
  }
  case K_TFREE: {
    int dir = ir_pos((Call *)c, 0)->e;
    if (!e->nq[dir]) unsupported(e, loc, c->op, "a free with nothing popped before it in program order");
    int code = e->q[dir][0];
    memmove(e->q[dir], e->q[dir] + 1, sizeof(int) * (size_t)--e->nq[dir]);
    line(e, "pto.%s {id = %d, split = %d}", dir == PIPE_C2V ? "tfree_from_aic" : "tfree_from_aiv", pipe_id(dir, code),
         axis_code(code));
    return;
  }
  case K_SYNC: {                                /* a GM fence between the cores: a cross-core flag per direction */
    int dir = ir_pos((Call *)c, 0)->e;
    bool set = c->op == OP_sync_set;
    line(e, "pto.sync.%s <%s>, %d", set ? "set" : "wait", set ? (e->aiv ? "PIPE_MTE3" : "PIPE_FIX") : "PIPE_MTE2",
         dir ? 2 : 1);
    return;
  }
  case K_ISCALAR: {
    const char *a = aff(e, &ir_pos((Call *)c, 0)->ix[0]), *b = aff(e, &ir_pos((Call *)c, 1)->ix[0]), *r;
    switch (c->op) {
    case OP_imin: r = bin(e, "minsi", a, b); break;
    case OP_imax: r = bin(e, "maxsi", a, b); break;
    case OP_idiv: r = bin(e, "divsi", a, b); break;
    case OP_imod: r = bin(e, "remsi", a, b); break;
    default: r = bin(e, "minsi", bin(e, "maxsi", a, b), aff(e, &ir_pos((Call *)c, 2)->ix[0])); break;   /* clamp */
    }
    e->cur[d->id] = r;
    return;
  }
  case K_GMREAD: {
    const Var *T = avar(c, 0);
    const char *i = aff(e, &ir_pos((Call *)c, 1)->ix[0]), *x = fresh(e, "g"), *y = fresh(e, d->name);
    line(e, "%s = pto.load_scalar %%arg%d[%s] : !pto.ptr<i32> -> i32", x, T->id, i);
    line(e, "%s = arith.index_cast %s : i32 to index", y, x);
    e->cur[d->id] = y;
    return;
  }
  case K_GROW: {                                /* if row < count: S's row at [phys, col] into g's row through a */
    const Var *g = avar(c, 0), *S = avar(c, 1);   /* [H, C] window at [row, 0] with valid [1, C] (DESIGN 14.9) */
    const Arg *o = ir_pos((Call *)c, 2), *kr = ir_kwarg((Call *)c, KW_BOX);
    int H = kr ? (int)kr->num : 1;
    if (e->tr[d->id]) unsupported(e, loc, c->op, "a gathered tile used as the transposed operand of a matmul");
    const char *row = aff(e, &ir_pos((Call *)c, 3)->ix[0]), *cnt = aff(e, &ir_pos((Call *)c, 4)->ix[0]);
    if (g->id != d->id) unsupported(e, loc, c->op, "a gather into another buffer");
    if (e->buf[d->id]) e->cur[d->id] = e->buf[d->id], e->ty[d->id] = NULL;
    setvalid(e, d, cnt, cidx(e, d->C));
    const char *cnd = fresh(e, "in");
    line(e, "%s = arith.cmpi slt, %s, %s : index", cnd, row, cnt);
    line(e, "scf.if %s {", cnd);
    e->ind++;
    const char *pr = aff(e, &o->ix[0]), *pc = aff(e, &o->ix[1]);
    char pv[64];
    const char *pty;
    Aff ak = {.c = 1}, ac = {.c = d->C};
    split_pv(partition(e, S, pr, pc, cidx(e, 1), cidx(e, d->C), &ak, &ac), pv, sizeof pv, &pty);
    const char *w = fresh(e, "row");
    int gR, gC;
    pto_shape(d->sp, d->dt, d->R, d->C, &gR, &gC);
    const char *wty = view_of(e, vty(e, d), H, gC, cidx(e, 1), cidx(e, d->C));
    line(e, "%s = pto.subview %s[%s, %s] sizes [%d, %d] valid [%s, %s] : %s -> %s", w, val(e, d), row, cidx(e, 0), H,
         gC, cidx(e, 1), cidx(e, d->C), vty(e, d), wty);
    line(e, "pto.tload ins(%s : %s) outs(%s : %s)", pv, pty, w, wty);
    e->ind--;
    line(e, "}");
    return;
  }
  case K_LANEIDX:
    e->cur[d->id] = e->cur[e->k->nvars] ? e->cur[e->k->nvars] : cidx(e, 0);
    return;
  case K_PIPE:
    return;
  default:
    unsupported(e, loc, c->op, "it does not occur in lowered programs");
  }
}

/* ---- statements and regions ------------------------------------------------------- */

/* Index scalars defined before a region and assigned in it: their SSA values
 * are carried through the region (scf.for iter_args, scf.if results). */
enum { MAXCARRY = 16 };
typedef struct {
  const Var *v[MAXCARRY];
  int n;
} Carry;

static void carried(E *e, const Body *b, Carry *k, Loc loc) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      carried(e, &s->body, k, loc);
      carried(e, &s->other, k, loc);
      continue;
    }
    const Var *d = s->dst;
    if (!d || d->kind != VK_SCALAR || !e->cur[d->id]) continue;
    int j = 0;
    while (j < k->n && k->v[j] != d) j++;
    if (j < k->n) continue;
    if (k->n == MAXCARRY) unsupported(e, loc, -1, "more than 16 index scalars carried through one region");
    k->v[k->n++] = d;
  }
}

/* Index scalars first assigned inside a region do not reach past it (a region
 * scopes its values; the carried ones leave as its results): each scalar not
 * in k takes the value it had before the region again (none, when it had none),
 * so that a later copy of the region (the lane-1 replay) does not carry it. */
static const char **scalars_before(E *e) {
  const char **b = ir_alloc(e->c->A, ((size_t)e->k->nvars + 1) * sizeof *b);
  memcpy(b, e->cur, (size_t)e->k->nvars * sizeof *b);
  return b;
}

static void scalars_scope(E *e, const char **before, const Carry *k) {
  for (int v = 0; v < e->k->nvars; v++) {
    if (e->k->vars[v]->kind != VK_SCALAR) continue;
    int j = 0;
    while (k && j < k->n && k->v[j]->id != v) j++;
    if (!k || j == k->n) e->cur[v] = before[v];
  }
}

/* "index, index" for n carried values */
static const char *idx_types(E *e, int n) {
  char *t = ir_alloc(e->c->A, (size_t)n * 7 + 1);
  for (int i = 0; i < n; i++) strcat(t, i ? ", index" : "index");
  return t;
}

static void yield(E *e, const Carry *k) {
  if (!k->n) return;
  char buf[1024] = "";
  for (int i = 0; i < k->n; i++) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", val(e, k->v[i]));
  line(e, "scf.yield %s : %s", buf, idx_types(e, k->n));
}

/* After a region with results r: each carried scalar is now one of them. */
static void rebind(E *e, const Carry *k, const char *r) {
  for (int i = 0; i < k->n; i++) e->cur[k->v[i]->id] = k->n == 1 ? r : ir_fmt(e->c->A, "%s#%d", r, i);
}

/* The results' name as defined ("%c_7:2"); *base gets "%c_7". */
static const char *result_of(E *e, const Carry *k, const char **base) {
  if (!k->n) return NULL;
  const char *r = fresh(e, "c");
  *base = r;
  return k->n == 1 ? r : ir_fmt(e->c->A, "%s:%d", r, k->n);
}

/* Buffer declaration at first use. A statement's tile uses: A_VAR arguments at any depth and
 * the destination; a buffer's own alloc_tile is no use. */
static bool is_alloc(const Stmt *s) {
  return s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_alloc_tile;
}

/* An op whose first argument is the buffer it overwrites without reading it: a tload, or a
 * set_validshape to [0, 0] (the lane-1 replay's empty tiles). */
static bool writes_arg0(const Call *c) {
  if (ir_ops[c->op].kind == K_TLOAD) return true;
  if (ir_ops[c->op].kind != K_SETVALID) return false;
  const Aff *r = &ir_pos((Call *)c, 1)->ix[0], *cc = &ir_pos((Call *)c, 2)->ix[0];
  return ir_aff_const(r) && ir_aff_const(cc) && !r->c && !cc->c;
}

/* Set bits m on var id's mark, remembering the ids marked so they can be
 * visited and cleared without a pass over every variable. */
static void mark(E *e, int id, uint8_t m) {
  if (!e->seen[id]) e->marked[e->nmarked++] = id;   /* each id at most once: room for all */
  e->seen[id] |= m;
}

static int cmp_id(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

static void arg_uses(E *e, const Arg *a, uint8_t m) {
  if (a->k == A_VAR && a->var) mark(e, a->var->id, m);
  if (a->k == A_CALL)
    for (int i = 0; i < a->call->nargs; i++) arg_uses(e, &a->call->args[i], m);
}

static void uses(E *e, const Body *b, uint8_t m) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (is_alloc(s)) continue;
    if (s->k == S_OP) {
      arg_uses(e, &s->rhs, m);
      if (s->dst) mark(e, s->dst->id, m);
    }
    uses(e, &s->body, m), uses(e, &s->other, m);
  }
}

static void arg_first(E *e, const Arg *a, uint8_t m) {
  if (a->k == A_VAR && a->var && !(e->seen[a->var->id] & (m | m << 1))) mark(e, a->var->id, m);
  if (a->k == A_CALL)
    for (int i = writes_arg0(a->call); i < a->call->nargs; i++) arg_first(e, &a->call->args[i], m);
}

/* Marks m on each var whose first access in b reads it (bit m) or defines it (bit m << 1). */
static void first_access(E *e, const Body *b, uint8_t m) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (is_alloc(s)) continue;
    if (s->k == S_OP) {                         /* the arguments are read before the destination is written */
      arg_first(e, &s->rhs, m);
      if (s->dst && !(e->seen[s->dst->id] & (m | m << 1))) mark(e, s->dst->id, (uint8_t)(m << 1));
    }
    first_access(e, &s->body, m), first_access(e, &s->other, m);   /* an S_COND's else counts after its body */
  }
}

static void declare(E *e, int v) {
  const char *x = fresh(e, e->k->vars[v]->name);
  line(e, "%s = pto.alloc_tile valid_row = %s valid_col = %s : %s", x, cidx(e, 0), cidx(e, 0), e->pend[v]);
  e->cur[v] = e->buf[v] = x;
  e->ty[v] = NULL;
  e->pend[v] = NULL;
}

/* Declares the pending buffers that statement i of b uses, but (for a lane's scf.if outside
 * loops) not those each branch defines before reading and nothing after it uses: every
 * branch declares its own (*local set). Returns whether any is branch-local. */
static bool declare_used(E *e, const Body *b, int i, uint8_t *local) {
  const Stmt *s = b->v[i];
  for (int j = 0; j < e->nmarked; j++) e->seen[e->marked[j]] = 0;   /* only what was marked: linear in the statement */
  e->nmarked = 0;
  Body one = {.v = (Stmt **)&b->v[i], .n = 1};
  uses(e, &one, 1);
  bool any = false;
  if (s->k == S_IF && !e->inloop) {
    for (int j = 0; j < e->nencl; j++) {       /* what runs after the scf.if */
      const Body *o = e->encl[j];
      Body rest = {.v = o->v + e->encl_i[j] + 1, .n = o->n - e->encl_i[j] - 1};
      uses(e, &rest, 2);
    }
    first_access(e, &s->body, 4), first_access(e, &s->other, 16);
  }
  qsort(e->marked, (size_t)e->nmarked, sizeof *e->marked, cmp_id);   /* declared in id order */
  if (s->k == S_IF && !e->inloop)
    for (int j = 0; j < e->nmarked; j++) {
      int v = e->marked[j];
      local[v] = e->pend[v] && (e->seen[v] & 1) && !(e->seen[v] & (2 | 4 | 16));
      any |= local[v];
    }
  for (int j = 0; j < e->nmarked; j++) {
    int v = e->marked[j];
    if (e->pend[v] && (e->seen[v] & 1) && !(any && local[v])) declare(e, v);
  }
  return any;
}

/* Occurrences at any depth of statements from.. of b, alloc_tile apart:
 * read (an argument) and written (a statement's destination); of v in o[0],
 * or with v NULL of every variable in o[its id] (one walk for all). */
typedef struct {
  int read, write;
} Occ;

static void arg_occ(const Arg *a, const Var *v, Occ *o) {
  if (a->k == A_VAR && a->var && (!v || a->var == v)) o[v ? 0 : a->var->id].read++;
  if (a->k == A_CALL)
    for (int i = 0; i < a->call->nargs; i++) arg_occ(&a->call->args[i], v, o);
}

static void occ(const Body *b, int from, const Var *v, Occ *o) {
  for (int i = from; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      occ(&s->body, 0, v, o), occ(&s->other, 0, v, o);
    } else if (!is_alloc(s)) {
      arg_occ(&s->rhs, v, o);
      if (s->dst && (!v || s->dst == v)) o[v ? 0 : s->dst->id].write++;
    }
  }
}

/* A copy within acc or mat (a same-space move: infer_space makes it a copy)
 * has no PTO-AS form: there is no acc-to-acc or mat-to-mat tmov. Such a copy
 * can be its source's buffer under another name while neither changes: each
 * read of the copy must come after one of its copies, in the same block,
 * before any later statement that writes the copy or its source (at any
 * depth), and the copy must be written only by such copies (it never needs a
 * buffer of its own) and never be viewed (a subview would outlive the
 * window). mark_alias sets e->alias for the variables where every read is so
 * covered; body() then names the source's buffer at each copy (the source
 * must hold its own buffer there: not a view, a pop or another copy's name),
 * else op_stmt reports E-PTO. The model's program is unchanged: this only names
 * buffers. */
static bool writes_deep(const Stmt *s, const Var *v) {
  Occ o = {0};
  Body one = {.v = (Stmt **)&s, .n = 1};
  occ(&one, 0, v, &o);
  return o.write > 0;
}

static bool same_space_copy(const Stmt *s) {
  return s->k == S_OP && s->rhs.k == A_VAR && s->dst && s->dst->sp == s->rhs.var->sp && s->dst->sp != SP_VEC;
}

/* Per var id: its copies (ncopy), its reads inside a copy's window (cover),
 * and whether it is viewed (bad). */
static void alias_scan(const Body *b, int *ncopy, int *cover, uint8_t *bad) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      alias_scan(&s->body, ncopy, cover, bad), alias_scan(&s->other, ncopy, cover, bad);
      continue;
    }
    if (s->rhs.k == A_CALL && ir_ops[s->rhs.call->op].kind == K_SLICE && s->rhs.call->nargs &&
        s->rhs.call->args[0].k == A_VAR && s->rhs.call->args[0].var)
      bad[s->rhs.call->args[0].var->id] = 1;
    if (!same_space_copy(s)) continue;
    const Var *d = s->dst, *src = s->rhs.var;
    ncopy[d->id]++;
    int w = i + 1;
    while (w < b->n && !writes_deep(b->v[w], d) && !writes_deep(b->v[w], src)) w++;
    Occ o = {0};
    Body win = {.v = b->v + i + 1, .n = w - i - 1};
    occ(&win, 0, d, &o);
    cover[d->id] += o.read;
  }
}

/* Sets w[id] for every variable statement s writes, at any depth. */
static void written(const Stmt *s, uint8_t *w) {
  if (s->k == S_OP) {
    if (s->dst) w[s->dst->id] = 1;
    return;
  }
  for (int i = 0; i < s->body.n; i++) written(s->body.v[i], w);
  for (int i = 0; i < s->other.n; i++) written(s->other.v[i], w);
}

/* An alloc_tile nested in a statement, or at the top after a statement that writes its
 * variable (a copy named another buffer by then), is not one mark_alias can keep unused. */
static void late_allocs(const Body *b, bool top, uint8_t *w, uint8_t *bad) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (is_alloc(s)) {
      if (!top || w[s->dst->id]) bad[s->dst->id] = 1;
    } else if (s->k != S_OP) {
      late_allocs(&s->body, false, w, bad), late_allocs(&s->other, false, w, bad);
    }
    if (top) written(s, w);
  }
}

static void mark_alias(E *e, const Body *fb) {
  int n = e->k->nvars + 1;
  int *ncopy = ir_alloc(e->c->A, sizeof(int) * (size_t)n), *cover = ir_alloc(e->c->A, sizeof(int) * (size_t)n);
  uint8_t *bad = ir_alloc(e->c->A, (size_t)n), *w = ir_alloc(e->c->A, (size_t)n);
  memset(e->alias, 0, (size_t)n);
  Occ *all = ir_alloc(e->c->A, sizeof *all * (size_t)n);
  alias_scan(fb, ncopy, cover, bad);
  late_allocs(fb, true, w, bad);
  occ(fb, 0, NULL, all);
  for (int v = 0; v < e->k->nvars; v++)
    e->alias[v] = ncopy[v] && !bad[v] && all[v].write == ncopy[v] && all[v].read == cover[v];
}

static void body(E *e, const Body *b) {
  if (e->nencl == 64) unsupported(e, b->n ? b->v[0]->loc : e->k->loc, -1, "statements nested more than 64 deep");
  int lvl = e->nencl++;
  e->encl[lvl] = b;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    e->encl_i[lvl] = i;
    uint8_t *local = s->k == S_IF ? ir_alloc(e->c->A, (size_t)e->k->nvars + 1) : NULL;
    if (same_space_copy(s) && e->alias[s->dst->id] && !e->alias[s->rhs.var->id] && !e->tr[s->rhs.var->id] &&
        e->buf[s->rhs.var->id] && e->cur[s->rhs.var->id] == e->buf[s->rhs.var->id]) {
      /* the source's buffer under the copy's name: the source holds its own buffer (not a view, a
       * pop or another copy's name, whose source's writes the window does not see) of the copy's
       * type (not held transposed for trans_b) */
      const Var *d = s->dst, *src = s->rhs.var;
      e->pend[d->id] = NULL;                    /* its own buffer is never declared */
      e->cur[d->id] = e->buf[d->id] = e->buf[src->id];
      e->ty[d->id] = NULL;                      /* d's type is src's: same space, dtype and shape */
      continue;
    }
    bool branch_local = !is_alloc(s) && declare_used(e, b, i, local);
    switch (s->k) {
    case S_OP: op_stmt(e, s); break;
    case S_FOR: {
      const Var *iv = s->iv;
      const char *x = fresh(e, iv->name);
      int hi = iv->step > 0 ? iv->hi : iv->lo;
      if (iv->step <= 0) unsupported(e, s->loc, -1, "a loop with a negative step");
      Carry k = {0};
      carried(e, &s->body, &k, s->loc);
      const char *rb = NULL, *r = result_of(e, &k, &rb), **sc = scalars_before(e);
      char args[1024] = "";
      for (int j = 0; j < k.n; j++) {           /* iter_args(%a = init, ...) */
        const char *a = fresh(e, k.v[j]->name);
        snprintf(args + strlen(args), sizeof args - strlen(args), "%s%s = %s", j ? ", " : "", a, val(e, k.v[j]));
        e->cur[k.v[j]->id] = a;
      }
      if (k.n)
        line(e, "%s = scf.for %s = %s to %s step %s iter_args(%s) -> (%s) {", r, x, cidx(e, iv->lo), cidx(e, hi),
             cidx(e, iv->step), args, idx_types(e, k.n));
      else line(e, "scf.for %s = %s to %s step %s {", x, cidx(e, iv->lo), cidx(e, hi), cidx(e, iv->step));
      e->cur[iv->id] = x;
      e->ind++;
      e->inloop++;
      body(e, &s->body);
      e->inloop--;
      yield(e, &k);
      e->ind--;
      line(e, "}");
      scalars_scope(e, sc, &k);
      if (k.n) rebind(e, &k, rb);
      break;
    }
    case S_COND: {                              /* if a REL b { body } else { other } */
      static const char *const pred[] = {"slt", "sle", "sgt", "sge", "eq", "ne"};
      const char *a = aff(e, &s->cond[0]), *bb = aff(e, &s->cond[1]), *cnd = fresh(e, "if");
      line(e, "%s = arith.cmpi %s, %s, %s : index", cnd, pred[s->rel], a, bb);
      Carry k = {0};
      carried(e, &s->body, &k, s->loc);
      carried(e, &s->other, &k, s->loc);
      const char *rb = NULL, *r = result_of(e, &k, &rb), *was[MAXCARRY];
      const char **before = ir_alloc(e->c->A, (size_t)e->k->nvars * sizeof *before);
      memcpy(before, e->cur, (size_t)e->k->nvars * sizeof *before);
      for (int j = 0; j < k.n; j++) was[j] = val(e, k.v[j]);
      if (k.n) line(e, "%s = scf.if %s -> (%s) {", r, cnd, idx_types(e, k.n));
      else line(e, "scf.if %s {", cnd);
      e->ind++;
      body(e, &s->body);
      yield(e, &k);
      e->ind--;
      for (int j = 0; j < k.n; j++) e->cur[k.v[j]->id] = was[j];
      scalars_scope(e, before, &k);
      if (s->other.n || k.n) {
        line(e, "} else {");
        e->ind++;
        body(e, &s->other);
        yield(e, &k);
        e->ind--;
      }
      line(e, "}");
      scalars_scope(e, before, &k);
      if (k.n) rebind(e, &k, rb);
      for (int v = 0; v < e->k->nvars; v++)   /* a tile value made inside a branch (a view) does not reach past it */
        if (e->k->vars[v]->kind == VK_TILE && e->cur[v] != before[v] && e->cur[v] != e->buf[v]) e->cur[v] = NULL;
      break;
    }
    case S_SPLIT:                               /* each vector lane runs the body with its own subblock index */
      e->cur[s->iv->id] = e->cur[e->k->nvars];
      body(e, &s->body);
      break;
    case S_IF: {                                /* if lane == 0 { body } replay { other } */
      const char *cnd = fresh(e, "l0");
      line(e, "%s = arith.cmpi eq, %s, %s : index", cnd, val(e, s->iv), cidx(e, 0));
      line(e, "scf.if %s {", cnd);
      int q[2][MAXQ], nq[2], np[2];
      memcpy(q, e->q, sizeof q), memcpy(nq, e->nq, sizeof nq), memcpy(np, e->npop, sizeof np);
      const char **ty = NULL;                   /* the branch-local buffers' types */
      if (branch_local) {
        ty = ir_alloc(e->c->A, sizeof *ty * ((size_t)e->k->nvars + 1));
        for (int v = 0; v < e->k->nvars; v++) ty[v] = local[v] ? e->pend[v] : NULL;
      }
      const char **sc = scalars_before(e);
      e->ind++;
      body(e, &s->body);
      e->ind--;
      line(e, "} else {");
      scalars_scope(e, sc, NULL);
      memcpy(e->q, q, sizeof q), memcpy(e->nq, nq, sizeof nq), memcpy(e->npop, np, sizeof np);
      for (int v = 0; branch_local && v < e->k->nvars; v++)
        if (ty[v]) e->cur[v] = e->buf[v] = NULL, e->pend[v] = ty[v];
      e->ind++;
      body(e, &s->other);
      e->ind--;
      line(e, "}");
      scalars_scope(e, sc, NULL);
      for (int v = 0; branch_local && v < e->k->nvars; v++)
        if (ty[v]) e->cur[v] = e->buf[v] = NULL, e->pend[v] = NULL;
      break;
    }
    default: unsupported(e, s->loc, -1, "a nested function");
    }
  }
  e->nencl--;
}

/* The last statement in b defining v by op (kind < 0) or by an op of kind kind. */
static const Stmt *def_match(const Body *b, const Var *v, int op, int kind) {
  const Stmt *r = NULL;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      const Stmt *x = def_match(&s->body, v, op, kind);
      if (!x) x = def_match(&s->other, v, op, kind);
      if (x) r = x;
    } else if (s->dst == v && s->rhs.k == A_CALL &&
               (kind < 0 ? (int)s->rhs.call->op == op : (int)ir_ops[s->rhs.call->op].kind == kind)) {
      r = s;
    }
  }
  return r;
}

/* The columns of the type ptoas gives a pushed window, at which pto-isa writes a
 * split C2V entry (TPush_gm: gmStrideR = TileProd::Cols; TPush_c2v and a5's
 * pushAcc2VecFiFo: TileProd::Cols, pto/cpu/TPush.hpp, npu/a5/TPush.hpp): ptoas
 * types a window shorter than its parent with the parent's shape (RF-10, F-2)
 * and a window as tall as its parent with its own (F-18) */
static int window_cols(const Body *top, const Var *t) {
  for (int k = 0; k < 16; k++) {
    const Stmt *s = def_match(top, t, -1, K_SLICE);
    if (!s || avar(s->rhs.call, 0) == t || t->R == avar(s->rhs.call, 0)->R) break;
    t = avar(s->rhs.call, 0);
  }
  return t->C;
}

/* The static valid shape of every push, in the producer's program order (the
 * consumer's pops come in the same order; a replay branch repeats its lane-0 twin). */
static void pushes(E *e, const Body *top, const Body *b, int dirf) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_IF) {
      pushes(e, top, &s->body, dirf);
      continue;
    }
    if (s->k != S_OP) {
      pushes(e, top, &s->body, dirf);
      continue;
    }
    if (s->rhs.k != A_CALL || s->rhs.call->op != OP_tpush) continue;
    const Call *c = s->rhs.call;
    int dir = ir_pos((Call *)c, 0)->e;
    if (dir != dirf) continue;
    const Var *t = avar(c, 1);
    e->has_id[pipe_id(dir, (int)ir_pos((Call *)c, 2)->num)] = true;
    int n = e->npush[dir]++;
    if (n >= 256) continue;
    e->pushv[dir][n][0] = t->svr, e->pushv[dir][n][1] = t->svc;
    e->pushE[dir][n][0] = t->R, e->pushE[dir][n][1] = t->C;
    e->pushcode[dir][n] = (int)ir_pos((Call *)c, 2)->num;
    /* a split C2V of a window is written at its buffer's columns: popped at those */
    if (dir == PIPE_C2V && e->pushcode[dir][n] != MODE_NONE) e->pushE[dir][n][1] = window_cols(top, t);
    /* the slot must hold the entry ptoc emits, padded (F-8). a5 cuts a C2V split
     * entry at half the padded tile, each half in a local slot of its own
     * (`TPush_c2v`: `splitIndex * SLOT_SIZE`); a3's GM FIFO puts the whole entry in
     * one slot (`TPush_gm` at `slotIndex * SLOT_SIZE`, lane 1 read at `+ rows * cols`),
     * so there the slot is the whole entry, as PTOAS defines SLOT_SIZE (F-16) */
    int Rp, Cp;
    pto_shape(t->sp, t->dt, t->R, e->pushE[dir][n][1], &Rp, &Cp);
    if (dir == PIPE_V2C && ir_layout(t->sp, t->R, t->C) == LAY_ROW)
      (void)v2c_width(t, e->pushcode[dir][n], &Rp, &Cp);   /* the slot holds the joined, padded mat tile */
    int bytes = Rp * Cp * ir_dtype_bytes(t->dt);
    if (dir == PIPE_C2V && e->pushcode[dir][n] != MODE_NONE && e->tgt != TGT_A2A3) bytes = (bytes + 1) / 2;
    if (bytes > e->pipe_need[dir]) e->pipe_need[dir] = bytes;
    /* a V2C half from both lanes: the joined valid is the half's only when every lane's is the same */
    if (dir == PIPE_V2C && e->pushcode[dir][n] != MODE_NONE) {
      int ax = MODE_AXIS(e->pushcode[dir][n]), v = e->pushv[dir][n][ax];
      if (v >= 0) e->pushv[dir][n][ax] = v == t->R * !ax + t->C * ax ? 2 * v : -1;
      e->pushE[dir][n][ax] *= 2;
    }
  }
}

/* Mark the right operands of trans_b matmuls and the mat tiles they are moved
 * from: those are emitted as B^T, [K, N] in the DN configuration, loaded
 * through a column-major view of GM. A mat tile with any other use cannot be. */
static const Stmt *def_of(const Body *b, const Var *v) {
  return def_match(b, v, OP_tmov, -1);
}


/* Every definition of v is an alloc_tile or a tload from GM. */
static bool only_loaded(const Body *b, const Var *v) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      if (!only_loaded(&s->body, v) || !only_loaded(&s->other, v)) return false;
      continue;
    }
    if (s->dst != v) continue;
    if (s->rhs.k != A_CALL) return false;
    OpKind k = ir_ops[s->rhs.call->op].kind;
    if (k != K_ALLOC && k != K_TLOAD) return false;
  }
  return true;
}

static void mark_trans(E *e, const Body *fb, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      mark_trans(e, fb, &s->body);
      mark_trans(e, fb, &s->other);
      continue;
    }
    if (s->rhs.k != A_CALL || ir_ops[s->rhs.call->op].kind != K_MATMUL) continue;
    const Call *c = s->rhs.call;
    const Arg *tb = ir_kwarg((Call *)c, KW_TRANS_B);
    if (!tb || tb->num == 0) continue;
    const Var *r = avar(c, IR_ACC_MATMUL(c->op) + 1);
    const Stmt *m = def_of(fb, r);
    if (!m) continue;
    const Var *b0 = avar(m->rhs.call, 0);
    if (!only_loaded(fb, b0)) continue;       /* the matmul reports E-PTO */
    e->tr[r->id] = 1;
    e->tr[b0->id] = 1;
  }
}

static void cfmt(FILE *o, const Const *k, int i) {
  switch (k->kind) {
  case 'x': fprintf(o, "    %%cx%d = arith.constant %lld : index\n", i, (long long)k->v); break;
  case 'i': fprintf(o, "    %%ci%d = arith.constant %lld : i32\n", i, (long long)k->v); break;
  case 'l': fprintf(o, "    %%cl%d = arith.constant %lld : i64\n", i, (long long)k->v); break;
  case 'f': fprintf(o, "    %%cf%d = arith.constant %.9e : f32\n", i, k->v); break;
  case 'h': fprintf(o, "    %%ch%d = arith.constant %.9e : f16\n", i, k->v); break;
  case 'b': fprintf(o, "    %%cb%d = arith.constant %.9e : bf16\n", i, k->v); break;
  case 'c': fprintf(o, "    %%cc%d = arith.constant %lld : i8\n", i, (long long)k->v); break;
  case 's': fprintf(o, "    %%cs%d = arith.constant %lld : i16\n", i, (long long)k->v); break;
  }
}

static bool is_sync(const Call *c) { return ir_ops[c->op].kind == K_SYNC; }

bool ir_pto_ffts(const Kernel *k, const Stmt *fn) {
  return k->target == TGT_A2A3 && fn && ir_any_call(&fn->body, is_sync);
}

static void func(E *e, FILE *out, const Stmt *fn, const PtoNames *nm) {
  bool aiv = fn->fn == FN_AIV;
  e->aiv = aiv;
  fflush(e->body);                              /* start the function's body afresh */
  e->bs.n = 0;
  e->ncst = 0;
  e->ind = 0;
  memset(e->cur, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  memset(e->ty, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  memset(e->tr, 0, (size_t)e->k->nvars + 1);
  memset(e->nr, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  memset(e->buf, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  memset(e->pend, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  e->nencl = e->inloop = 0;
  memset(e->nc, 0, sizeof(const char *) * ((size_t)e->k->nvars + 1));
  mark_trans(e, &fn->body, &fn->body);
  mark_alias(e, &fn->body);
  memset(e->nq, 0, sizeof e->nq);
  memset(e->npop, 0, sizeof e->npop);
  const Kernel *k = e->k;
  fprintf(out, "  func.func @%s(", aiv ? nm->aiv : nm->aic);
  for (int i = 0; i < k->np; i++) fprintf(out, "%s%%arg%d: !pto.ptr<%s>", i ? ", " : "", k->params[i]->id, dtn(k->params[i]->dt));
  if (e->tgt == TGT_A2A3) fprintf(out, "%s%%slots: !pto.ptr<f32>", k->np ? ", " : "");
  bool ffts = ir_pto_ffts(k, fn);               /* a3's cross-core flags need the FFTS base set first */
  if (ffts) fprintf(out, ", %%ffts: memref<%dxi64>", PTO_FFTS_BYTES / 8);
  fprintf(out, ") attributes {pto.kernel_kind = #pto.kernel_kind<%s>} {\n", aiv ? "vector" : "cube");
  if (ffts) fprintf(out, "    pto.set_ffts %%ffts : memref<%dxi64>\n", PTO_FFTS_BYTES / 8);
  /* tensor views */
  for (int i = 0; i < k->np; i++) {
    const Var *T = k->params[i];
    int R = T->rank == 2 ? T->dim[0] : 1, C = T->rank == 2 ? T->dim[1] : T->dim[0];
    line(e, "%s = pto.make_tensor_view %%arg%d, shape = [%s, %s], strides = [%s, %s] : %s", tensor_view(e, T), T->id,
         cidx(e, R), cidx(e, C), cidx(e, C), cidx(e, 1), tvty(e, T));
  }
  if (aiv) {
    line(e, "%%lane64 = pto.get_subblock_idx");
    line(e, "%%lane = arith.index_cast %%lane64 : i64 to index");
    e->cur[k->nvars] = "%lane";
  }
  /* Pipes: C2V is consumed on the vector side, V2C on the cube side. PTOAS lets
   * one pipe carry whole or split entries, not both, so each direction has a
   * pipe per kind: id = dir (code 0) or dir + 2 (codes 1-4), each with the
   * model's slots and slot size and a quarter of the a3 GM slot buffer. */
  for (int id = 0; id < 4; id++) {
    int dir = id & 1;
    if (!e->has_pipe[dir] || !e->has_id[id]) continue;
    bool consumer = (dir == PIPE_C2V) == aiv;
    const char *nmb = ir_fmt(e->c->A, "%s%s_fifo", dir == PIPE_C2V ? "c2v" : "v2c", id >= 2 ? "_split" : "");
    const char *buf = fresh(e, dir == PIPE_C2V ? "c2v" : "v2c");
    /* a3: a lane pops only its half of a split C2V entry, whose slot is the whole entry (F-16):
     * the last slot needs half its bytes (F-5; PTOAS's design note asks for slots x slot_size,
     * v0.42 does not check it). a5's split slots are halves already. */
    int reserve = e->pipe_slots[dir] * e->pipe_bytes[dir] -
                  (dir == PIPE_C2V && id >= 2 && e->tgt == TGT_A2A3 ? e->pipe_bytes[dir] / 2 : 0);
    if (consumer)
      line(e, "%s = pto.reserve_buffer {name = \"%s\", size = %d, location = #pto.address_space<%s>, auto = true} -> i32",
           buf, nmb, reserve, dir == PIPE_C2V ? "vec" : "mat");
    else
      line(e, "%s = pto.import_reserved_buffer {name = \"%s\", peer_func = @%s} -> i32", buf, nmb, aiv ? nm->aic : nm->aiv);
    const char *gm = "";
    if (e->tgt == TGT_A2A3) {
      const char *p = "%slots";
      if (id) {
        p = fresh(e, "slots");
        line(e, "%s = pto.addptr %%slots, %s : <f32> -> <f32>", p, cidx(e, (int64_t)id * PTO_SLOT_BYTES / 4 / 4));
      }
      gm = ir_fmt(e->c->A, "gm_slot_buffer = %s : !pto.ptr<f32>, ", p);
    }
    line(e, "pto.%s_initialize_pipe {id = %d, dir_mask = %d, slot_size = %d, local_slot_num = %d} (%sc2v_consumer_buf = %s : i32, v2c_consumer_buf = %s : i32)",
         aiv ? "aiv" : "aic", id, dir == PIPE_C2V ? 1 : 2, e->pipe_bytes[dir], e->pipe_slots[dir], gm,
         dir == PIPE_C2V ? buf : cname(e, 'i', 0), dir == PIPE_V2C ? buf : cname(e, 'i', 0));
  }
  e->nscr = 0;
  body(e, &fn->body);
  int zero = e->nscr ? atoi(cidx(e, 0) + 3) : 0;
  for (int i = 0; i < e->ncst; i++) cfmt(out, &e->cst[i], i);
  for (int i = 0; i < e->nscr; i++)
    fprintf(out, "    %s = pto.alloc_tile valid_row = %%cx%d valid_col = %%cx%d : %s\n", e->scr[i], zero, zero, e->scr_ty[i]);
  fflush(e->body);
  fwrite(e->bs.p, 1, e->bs.n, out);
  fprintf(out, "    return\n  }\n");
}

const char *ir_emit_pto(Comp *c, const Kernel *k, const PtoNames *nm) {
  if (!k || !k->lowered) die("emit_pto: the kernel is not lowered");
  E e = {.c = c, .k = k, .tgt = k->target, .nm = nm};
  e.cur = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  e.ty = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  e.tr = ir_alloc(c->A, (size_t)k->nvars + 1);
  e.nr = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  e.buf = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  e.pend = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  e.seen = ir_alloc(c->A, (size_t)k->nvars + 1);
  e.alias = ir_alloc(c->A, (size_t)k->nvars + 1);
  e.marked = ir_alloc_raw(c->A, ((size_t)k->nvars + 1) * sizeof *e.marked);
  e.nc = ir_alloc(c->A, sizeof(const char *) * ((size_t)k->nvars + 1));
  Sink os = {0};
  FILE *out = sink_open(&os);
  e.body = sink_open(&e.bs);
  jmp_buf jb, *saved = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {
    c->jb = saved;
    fclose(out), fclose(e.body);
    free(os.p), free(e.bs.p);
    return NULL;
  }
  for (int i = 0; i < k->body.n; i++) {
    const Stmt *s = k->body.v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_pipe) {
      int dir = ir_pos(s->rhs.call, 0)->e;
      e.has_pipe[dir] = true;
      e.pipe_slots[dir] = (int)ir_pos(s->rhs.call, 1)->num;
      e.pipe_bytes[dir] = (int)ir_pos(s->rhs.call, 2)->num;
    }
  }
  const Stmt *aic = ir_func(k, FN_AIC), *aiv = ir_func(k, FN_AIV);
  if (aic) pushes(&e, &aic->body, &aic->body, PIPE_C2V);
  if (aiv) pushes(&e, &aiv->body, &aiv->body, PIPE_V2C);
  for (int d = 0; d < 2; d++)                   /* whole 512-byte units, as the model's slots */
    if (e.pipe_need[d] > e.pipe_bytes[d]) e.pipe_bytes[d] = (e.pipe_need[d] + 511) / 512 * 512;
  fprintf(out, "// %s: ptoc --emit=pto, target %s\n", k->name, k->target == TGT_A5 ? "a5" : "a3");
  fprintf(out, "module attributes {pto.target_arch = \"%s\"} {\n", k->target == TGT_A5 ? "a5" : "a3");
  if (aic && aic->body.n) func(&e, out, aic, nm);
  if (aiv && aiv->body.n) func(&e, out, aiv, nm);
  fputs("}\n", out);
  c->jb = saved;
  fclose(out), fclose(e.body);
  free(e.bs.p);
  return ir_arena_adopt(c->A, os.p);           /* the text is not copied: it may be most of the memory */
}
