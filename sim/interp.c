/* interp.c — the golden interpreter. Consumes flat, typed source IR (after
 * flatten) and produces the GM tensors of one reference run: statements in
 * order on one machine, split_aiv bodies in lockstep (a per-lane statement
 * runs for lane 0, then lane 1), every tile element carrying a defined bit,
 * outputs canary-filled, inputs drawn from the seed. Runtime errors carry a
 * stable R-* code and the statement's location. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RTERR(S_, L_, C_, ...) SIM_ERR(S_, L_, C_, __VA_ARGS__)


uint64_t sim_rand(uint64_t *st) {
  uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---- GM tensors ------------------------------------------------------------------ */

/* Element i of a byte array of eb-byte elements, and back (fixed-size copies:
 * these run per element on the hot paths). */
static uint32_t get_bits(const unsigned char *p, int eb, size_t i) {
  if (eb == 4) {
    uint32_t x;
    memcpy(&x, p + 4 * i, 4);
    return x;
  }
  if (eb == 2) {
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return h;
  }
  return p[i];
}
static void put_bits(unsigned char *p, int eb, size_t i, uint32_t x) {
  if (eb == 4) memcpy(p + 4 * i, &x, 4);
  else if (eb == 2) {
    uint16_t h = (uint16_t)x;
    memcpy(p + 2 * i, &h, 2);
  } else {
    p[i] = (unsigned char)x;
  }
}

uint32_t sim_gm_bits(const Gm *g, int r, int c) {
  return get_bits(g->bytes, ir_dtype_bytes(g->v->dt), (size_t)r * g->cols + c);
}

Elem sim_gm_get(const Gm *g, int r, int c) {
  uint32_t b = sim_gm_bits(g, r, c);
  if (ir_dtype_bytes(g->v->dt) < 4) return sim_dec(g->v->dt, b);
  Elem e;
  memcpy(&e, &b, 4);
  return e;
}

/* Outputs start as canaries; inputs take their initialiser or seeded small values. */
static void gm_init(Sim *s, Gm *g, uint64_t *rng, bool full) {
  const Var *v = g->v;
  g->rows = v->dim[0];
  g->cols = v->dim[1];
  size_t n = (size_t)g->rows * g->cols;
  int eb = ir_dtype_bytes(v->dt);
  g->bytes = ir_alloc_raw(s->A, n * (size_t)eb);
  if (v->dir == DIR_OUT) {                      /* canaries */
    uint32_t w = sim_canary(v->dt);
    for (size_t i = 0; i < n; i++) put_bits(g->bytes, eb, i, w);
    return;
  }
  bool in = ir_dtype_int(v->dt);
  if (v->init) {                                /* the kernel's own initialiser */
    for (size_t i = 0; i < n; i++) {
      Elem e;
      if (in) e.i = (int32_t)v->init[i];
      else e.f = (float)v->init[i];
      put_bits(g->bytes, eb, i, sim_enc(v->dt, e));
    }
    return;
  }
  if (full && !in) {                            /* x / 2^22 for a signed 24-bit x: [-2, 2), every mantissa bit drawn */
    for (size_t i = 0; i < n; i++) {
      Elem e;
      e.f = (float)((int32_t)(sim_rand(rng) >> 40) - (1 << 23)) * (1.0f / (1 << 22));
      put_bits(g->bytes, eb, i, sim_enc(v->dt, e));
    }
    return;
  }
  /* Seeded values: integers in [-4, 4], floats k/16 for k in [-32, 32] (exact in
   * f16 and bf16 too), one draw per element, stored through a table of the bit patterns. */
  uint32_t w[65];
  for (int k = 0; k < 65; k++) {
    Elem e;
    if (in) e.i = k - 4;
    else e.f = (float)(k - 32) * 0.0625f;
    w[k] = sim_enc(v->dt, e);
  }
  if (in)                                       /* constant moduli: no division per element */
    for (size_t i = 0; i < n; i++) put_bits(g->bytes, eb, i, w[sim_rand(rng) % 9]);
  else if (eb == 4)
    for (size_t i = 0; i < n; i++) memcpy(g->bytes + 4 * i, &w[sim_rand(rng) % 65], 4);
  else
    for (size_t i = 0; i < n; i++) put_bits(g->bytes, eb, i, w[sim_rand(rng) % 65]);
}

Sim *sim_new(const Kernel *k, const SimOpts *o) {
  Arena *A = ir_arena_new();
  Sim *s = ir_alloc(A, sizeof *s);
  s->A = A;
  s->k = k;
  s->max_steps = o && o->max_steps ? o->max_steps : 400000000ull;
  s->only = -1;
  s->memo = o ? o->memo : NULL;
  s->on_pop = o ? o->on_pop : NULL;
  s->hook_ctx = o ? o->hook_ctx : NULL;
  s->plain = o && o->plain;
  s->fault = o ? o->fault : SIM_FAULT_NONE;
  s->gm = ir_alloc(A, (size_t)k->nvars * sizeof *s->gm);
  s->slot = ir_alloc(A, (size_t)k->nvars * sizeof *s->slot);
  for (int x = 0; x < SIM_CTX; x++) {
    s->ival[x] = ir_alloc(A, (size_t)k->nvars * sizeof *s->ival[x]);
    s->sval[x] = ir_alloc(A, (size_t)k->nvars * sizeof *s->sval[x]);
  }
  uint64_t rng = (o ? o->seed : 0) * 0x2545F4914F6CDD1Dull + 1;

  for (int i = 0; i < k->np; i++) {
    Gm *g = &s->gm[k->params[i]->id];
    g->v = k->params[i];
    if (o && o->origins && g->v->dir != DIR_IN)
      g->orig = ir_alloc(s->A, (size_t)g->v->dim[0] * g->v->dim[1] * sizeof *g->orig);
    if (!o || !o->inputs) {
      gm_init(s, g, &rng, o && o->full_inputs);
      continue;
    }
    const Gm *src = &o->inputs->gm[o->inputs->k->params[i]->id];   /* the same kernel, compiled */
    ASSERT(src->rows == g->v->dim[0] && src->cols == g->v->dim[1] && src->v->dt == g->v->dt);
    size_t n = (size_t)src->rows * src->cols * (size_t)ir_dtype_bytes(src->v->dt);
    g->rows = src->rows;
    g->cols = src->cols;
    if (g->v->dir == DIR_IN) {                  /* never written (a store to it does not typecheck): shared */
      g->bytes = src->bytes;
      continue;
    }
    g->bytes = ir_alloc_raw(s->A, n);
    memcpy(g->bytes, src->bytes, n);
  }
  return s;
}

void sim_free(Sim *s) {
  if (s) ir_arena_free(s->A);
}
const Diag *sim_diag(const Sim *s) { return &s->err; }
Gm *sim_gm(Sim *s, const Var *v) { return &s->gm[v->id]; }

uint64_t sim_digest(const Gm *g) {
  size_t n = (size_t)g->rows * g->cols * (size_t)ir_dtype_bytes(g->v->dt);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ g->bytes[i]) * 0x100000001b3ull;
  return h;
}

/* ---- tiles ------------------------------------------------------------------------ */

/* Storage context of a value: the task on the machine; in the reference run
 * the lane for lane values and context 0 for the rest. */
static int lane_of(Sim *s, const Var *v) { return s->mc ? s->task : v->lane ? s->lane : 0; }

static Tile *value(Sim *s, const Arg *a) {
  if (a->k != A_VAR || a->var->kind != VK_TILE) die("interp: expected a flat tile operand");
  Slot *sl = s->slot[a->var->id];
  int L = lane_of(s, a->var);
  if (!sl || sl->cur[L] < 0) die("interp: '%s' read before it was assigned", a->var->name);
  if (sl->freed[L])
    RTERR(s, a->loc, R_PIPE_FREED, "'%s' is read after tfree released its pipe slot", a->var->name);
  if (sl->of[L]) {                              /* a view of a popped value whose slot was released */
    const Slot *o = s->slot[sl->of[L] - 1];
    if (o->freed[L] && o->gen[L] == sl->vgen[L])
      RTERR(s, a->loc, R_PIPE_FREED, "'%s' (a view of '%s') is read after tfree released the pipe slot of '%s'",
            a->var->name, s->k->vars[sl->of[L] - 1]->name, s->k->vars[sl->of[L] - 1]->name);
  }
  Tile *t = &sl->t[L][sl->cur[L]];
  if (s->addressed) sim_mem_read(s, a->var, t, a->loc);
  return t;
}

Tile *sim_value(Sim *s, const Arg *a) { return value(s, a); }

/* The buffer a new value of v is computed into (not the one holding v). */
Slot *sim_slot(Sim *s, const Var *v) {
  Slot *sl = s->slot[v->id];
  if (!sl) {
    sl = s->slot[v->id] = ir_alloc(s->A, sizeof *sl);
    for (int x = 0; x < SIM_CTX; x++) sl->cur[x] = -1;
  }
  return sl;
}

/* The reference run gives a tile's buffers back after the last top-level
 * statement naming it (run_top); a later value of the same element count
 * takes them instead of new ones, so straight-line code of any length runs
 * in the memory of the values live at once. Buckets by element count. */
enum { POOL_SIZES = 16 };
typedef struct PoolBuf {
  struct PoolBuf *next;
  Elem *d;
  uint8_t *def;
} PoolBuf;
struct SimPool {
  size_t n[POOL_SIZES];
  PoolBuf *head[POOL_SIZES];
  int nsizes;
  PoolBuf *spare;                               /* nodes of buffers taken again */
};

static bool pool_take(Sim *s, size_t n, Tile *t) {
  struct SimPool *p = s->pool;
  for (int i = 0; p && i < p->nsizes; i++) {
    PoolBuf *b = p->head[i];
    if (p->n[i] != n || !b) continue;
    p->head[i] = b->next;
    t->d = b->d, t->def = b->def;
    b->next = p->spare, p->spare = b;
    return true;
  }
  return false;
}

static void pool_give(Sim *s, size_t n, Tile *t) {
  struct SimPool *p = s->pool ? s->pool : (s->pool = ir_alloc(s->A, sizeof *s->pool));
  int i = 0;
  while (i < p->nsizes && p->n[i] != n) i++;
  if (i == POOL_SIZES) return;                  /* a seventeenth size: left to the arena */
  if (i == p->nsizes) p->n[p->nsizes++] = n;
  PoolBuf *b = p->spare;
  if (b) p->spare = b->next;
  else b = ir_alloc(s->A, sizeof *b);
  b->d = t->d, b->def = t->def;
  b->next = p->head[i], p->head[i] = b;
  t->d = NULL, t->def = NULL;
}

static Tile *fresh(Sim *s, const Var *v) {
  Slot *sl = sim_slot(s, v);
  int L = lane_of(s, v), b = sl->cur[L] == 0 ? 1 : 0;
  Tile *t = &sl->t[L][b];
  if (!t->d) {                                  /* every evaluator writes all defined bits it sets */
    size_t n = (size_t)v->R * v->C;
    if (!pool_take(s, n, t)) {
      t->d = ir_alloc_raw(s->A, n * sizeof *t->d);
      t->def = ir_alloc_raw(s->A, n);
    }
    memset(t->def, 0, n);                       /* but start from "nothing defined" all the same */
  }
  t->dt = v->dt;
  t->R = v->R;
  t->C = v->C;
  return t;
}

static void commit(Sim *s, const Var *v, Tile *t) {
  Slot *sl = s->slot[v->id];
  int L = lane_of(s, v);
  sl->cur[L] = (int)(t - sl->t[L]);
  sl->freed[L] = false;
  sl->gen[L]++;
  sl->of[L] = 0;                                /* not a view (ev_K_SLICE says otherwise) */
}

Tile *sim_fresh(Sim *s, const Var *v) { return fresh(s, v); }
void sim_commit(Sim *s, const Var *v, Tile *t) { commit(s, v, t); }

static int64_t ieval(Sim *s, const Aff *a) {
  int64_t x = a->c;
  for (int i = 0; i < a->n; i++) {
    const Var *v = s->k->vars[a->v[i]];
    int64_t val = v->kind == VK_LOOP ? s->ival[s->mc ? s->task : 0][v->id]
                  : v->kind == VK_SCALAR && v->computed ? s->sval[s->mc ? s->task : s->lane][v->id]
                                                        : s->lane;
    x += (int64_t)a->k[i] * val;
  }
  return x;
}

int64_t sim_ieval(Sim *s, const Aff *a) { return ieval(s, a); }

static int clampi(int64_t x, int64_t lo, int64_t hi) { return (int)(x < lo ? lo : x > hi ? hi : x); }
static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* A float result stored into a tile of dtype dt; an integer result wrapped into it.
 * Every f16 and bf16 rounding is checked against the plain rounding
 * (sim_round_plain): the golden run and the machine share this one, so a
 * mistake in it would be the same on both sides, invisible to differential
 * testing; a disagreement is the simulator's own bug and aborts. */
static float rnd(Dtype dt, float x) {
  if (dt != DT_F16 && dt != DT_BF16) return x;
  float r = dt == DT_F16 ? sim_round_f16(x) : sim_round_bf16(x), p = sim_round_plain(x, dt == DT_F16);
  if (memcmp(&r, &p, sizeof r) && !(isnan(r) && isnan(p)))
    die("%s rounding of %a gives %a, the plain rounding %a", ir_dtype_name(dt), (double)x, (double)r, (double)p);
  return r;
}
static int32_t wrap(Dtype dt, uint32_t x) {
  return dt == DT_I8 ? (int32_t)(int8_t)(uint8_t)x : dt == DT_I16 ? (int32_t)(int16_t)(uint16_t)x : (int32_t)x;
}

/* Clear the defined bits outside the valid region. */
static void mask(Tile *t) {
  int vr = t->vr < t->R ? t->vr : t->R, vc = t->vc < t->C ? t->vc : t->C;
  if (vc < t->C)
    for (int i = 0; i < vr; i++) memset(&t->def[i * t->C + vc], 0, (size_t)(t->C - vc));
  if (vr < t->R) memset(&t->def[vr * t->C], 0, (size_t)(t->R - vr) * t->C);
}

static void steps(Sim *s, const Call *c, uint64_t n) {
  s->steps += n;
  if (s->steps > s->max_steps)
    RTERR(s, c->loc, R_STEPS, "step budget of %llu element operations exhausted", (unsigned long long)s->max_steps);
}

/* ---- scalar semantics ---------------------------------------------------------------- */

/* max and min as C++'s std::max and std::min, which pto-isa's CPU simulation
 * uses (language.md 9.3): the first operand unless the second compares
 * greater (smaller), so a NaN first operand is kept, a NaN second one dropped,
 * and of +0 and -0 the first is returned. */
static float fmaxnan(float a, float b) { return a < b ? b : a; }
static float fminnan(float a, float b) { return b < a ? b : a; }

/* a op b for the binary family of op (tile/tile, tile/scalar, expand). */
static Elem binop(Op op, Dtype dt, Elem a, Elem b) {
  Elem r;
  if (ir_dtype_int(dt)) {
    uint32_t x = (uint32_t)a.i, y = (uint32_t)b.i;
    switch (op) {
    case OP_add: case OP_adds: case OP_row_expand_add: case OP_col_expand_add: r.i = wrap(dt, x + y); break;
    case OP_sub: case OP_subs: case OP_row_expand_sub: case OP_col_expand_sub: r.i = wrap(dt, x - y); break;
    case OP_mul: case OP_muls: case OP_row_expand_mul: case OP_col_expand_mul: r.i = wrap(dt, x * y); break;
    case OP_max: case OP_maxs: case OP_row_expand_max: r.i = a.i > b.i ? a.i : b.i; break;
    case OP_min: case OP_mins: case OP_row_expand_min: r.i = a.i < b.i ? a.i : b.i; break;
    default: die("binop: %s on %s", ir_ops[op].name, ir_dtype_name(dt));
    }
    return r;
  }
  switch (op) {
  case OP_add: case OP_adds: case OP_row_expand_add: case OP_col_expand_add: r.f = a.f + b.f; break;
  case OP_sub: case OP_subs: case OP_row_expand_sub: case OP_col_expand_sub: r.f = a.f - b.f; break;
  case OP_mul: case OP_muls: case OP_row_expand_mul: case OP_col_expand_mul: r.f = a.f * b.f; break;
  case OP_div: case OP_divs: case OP_row_expand_div: case OP_col_expand_div: r.f = a.f / b.f; break;
  case OP_max: case OP_maxs: case OP_row_expand_max: r.f = fmaxnan(a.f, b.f); break;
  case OP_min: case OP_mins: case OP_row_expand_min: r.f = fminnan(a.f, b.f); break;
  default: die("binop: %s", ir_ops[op].name);
  }
  r.f = rnd(dt, r.f);
  return r;
}

/* r[i] = a[i] op b[i*bs] for n elements (bs 0: one b for all), the switch
 * outside the loop; the same arithmetic as binop(), element by element. */
static void binop_vec(Op op, Dtype dt, const Elem *a, const Elem *b, int bs, Elem *r, int n) {
  if (ir_dtype_int(dt) && dt != DT_I32) {       /* narrow integers: element by element, wrapped */
    for (int i = 0; i < n; i++) r[i] = binop(op, dt, a[i], b[i * bs]);
    return;
  }
  if (dt == DT_I32) {
    switch (op) {
    case OP_add: case OP_adds: case OP_row_expand_add: case OP_col_expand_add:
      for (int i = 0; i < n; i++) r[i].i = (int32_t)((uint32_t)a[i].i + (uint32_t)b[i * bs].i);
      return;
    case OP_sub: case OP_subs: case OP_row_expand_sub: case OP_col_expand_sub:
      for (int i = 0; i < n; i++) r[i].i = (int32_t)((uint32_t)a[i].i - (uint32_t)b[i * bs].i);
      return;
    case OP_mul: case OP_muls: case OP_row_expand_mul: case OP_col_expand_mul:
      for (int i = 0; i < n; i++) r[i].i = (int32_t)((uint32_t)a[i].i * (uint32_t)b[i * bs].i);
      return;
    default:
      for (int i = 0; i < n; i++) r[i] = binop(op, dt, a[i], b[i * bs]);
      return;
    }
  }
  switch (op) {
  case OP_add: case OP_adds: case OP_row_expand_add: case OP_col_expand_add:
    for (int i = 0; i < n; i++) r[i].f = a[i].f + b[i * bs].f;
    break;
  case OP_sub: case OP_subs: case OP_row_expand_sub: case OP_col_expand_sub:
    for (int i = 0; i < n; i++) r[i].f = a[i].f - b[i * bs].f;
    break;
  case OP_mul: case OP_muls: case OP_row_expand_mul: case OP_col_expand_mul:
    for (int i = 0; i < n; i++) r[i].f = a[i].f * b[i * bs].f;
    break;
  case OP_div: case OP_divs: case OP_row_expand_div: case OP_col_expand_div:
    for (int i = 0; i < n; i++) r[i].f = a[i].f / b[i * bs].f;
    break;
  case OP_max: case OP_maxs: case OP_row_expand_max:
    for (int i = 0; i < n; i++) r[i].f = fmaxnan(a[i].f, b[i * bs].f);
    break;
  case OP_min: case OP_mins: case OP_row_expand_min:
    for (int i = 0; i < n; i++) r[i].f = fminnan(a[i].f, b[i * bs].f);
    break;
  default:
    for (int i = 0; i < n; i++) r[i] = binop(op, dt, a[i], b[i * bs]);
    return;
  }
  if (dt != DT_F32)
    for (int i = 0; i < n; i++) r[i].f = rnd(dt, r[i].f);
}

static Elem unop(Op op, Dtype dt, Elem a) {
  Elem r;
  if (ir_dtype_int(dt)) {
    uint32_t x = (uint32_t)a.i;
    switch (op) {
    case OP_neg: r.i = wrap(dt, 0u - x); break;
    case OP_abs: r.i = a.i < 0 ? wrap(dt, 0u - x) : a.i; break;
    case OP_relu: r.i = a.i > 0 ? a.i : 0; break;
    default: die("unop: %s on %s", ir_ops[op].name, ir_dtype_name(dt));
    }
    return r;
  }
  switch (op) {
  case OP_exp: r.f = (float)exp((double)a.f); break;   /* language.md 11.2: e^x in double, rounded once */
  case OP_neg: r.f = -a.f; break;
  case OP_abs: r.f = a.f < 0.0f ? -a.f : a.f; break;   /* pto-isa's TAbs_Impl: NaN and -0 kept (G-5) */
  case OP_relu: r.f = a.f < 0.0f ? 0.0f : a.f; break;   /* std::max(a, 0): NaN and -0 kept */
  case OP_sqrt: r.f = sqrtf(a.f); break;
  case OP_recip: r.f = 1.0f / a.f; break;
  default: die("unop: %s", ir_ops[op].name);
  }
  r.f = rnd(dt, r.f);
  return r;
}

/* language.md 9.4, cast: to the same dtype a copy; integers narrow by
 * wrapping, floats to integers truncate and saturate (NaN gives 0), integers
 * to floats round (i32 via f32). Checked over every input by t_conv. */
Elem sim_convert(Dtype from, Dtype to, Elem a) {
  Elem r;
  bool fi = ir_dtype_int(from), ti = ir_dtype_int(to);
  if (from == to) return a;                     /* a copy, bit for bit (a signalling NaN too) */
  if (fi && ti) {
    r.i = wrap(to, (uint32_t)a.i);
  } else if (fi) {
    r.f = rnd(to, (float)a.i);
  } else if (ti) {
    double x = a.f, hi = to == DT_I8 ? 127.0 : to == DT_I16 ? 32767.0 : 2147483647.0;
    r.i = isnan(x) ? 0 : x >= hi ? (int32_t)hi : x <= -hi - 1.0 ? (int32_t)(-hi - 1.0) : (int32_t)x;
  } else {
    r.f = rnd(to, a.f);
  }
  return r;
}

/* ---- evaluators, one per op kind (dispatch table below) -------------------------------- */

typedef void EvalFn(Sim *s, const Stmt *st, const Call *c);

static Gm *tensor(Sim *s, const Arg *a) {
  if (a->k != A_VAR || a->var->kind != VK_TENSOR) die("interp: expected a tensor operand");
  return &s->gm[a->var->id];
}
static Arg *P(const Call *c, int i) {
  Arg *a = ir_pos((Call *)c, i);
  if (!a) die("interp: %s lacks argument %d", ir_ops[c->op].name, i);
  return a;
}

/* Fill t (valid extents already set) from the window of g at [r0, c0]. */
static void load_window(Sim *s, const Stmt *st, const Call *c, Gm *g, Tile *t, int64_t r0, int64_t c0) {
  steps(s, c, (uint64_t)t->R * t->C);
  if (t->vr && t->vc && (r0 < 0 || c0 < 0 || r0 + t->vr > g->rows || c0 + t->vc > g->cols))
    RTERR(s, c->loc, R_GM_OOB, "%s window [%lld, %lld) x [%lld, %lld) outside '%s' [%d, %d]", ir_ops[c->op].name,
          (long long)r0, (long long)(r0 + t->vr), (long long)c0, (long long)(c0 + t->vc), g->v->name, g->rows, g->cols);
  int fr = t->vc ? t->vr : 0;                   /* rows written below; the rest of the tile is cleared */
  if (t->vc < t->C)
    for (int i = 0; i < fr; i++) {
      memset(&t->def[i * t->C + t->vc], 0, (size_t)(t->C - t->vc));
      memset(&t->d[i * t->C + t->vc], 0, (size_t)(t->C - t->vc) * sizeof *t->d);
    }
  memset(&t->def[fr * t->C], 0, (size_t)(t->R - fr) * t->C);
  memset(&t->d[fr * t->C], 0, (size_t)(t->R - fr) * t->C * sizeof *t->d);
  int eb = ir_dtype_bytes(g->v->dt);
  for (int i = 0; i < t->vr && t->vc; i++) {    /* row by row */
    size_t at = (size_t)(r0 + i) * g->cols + (size_t)c0;
    Elem *d = &t->d[i * t->C];
    if (eb == 4) memcpy(d, g->bytes + 4 * at, (size_t)t->vc * 4);
    else
      for (int j = 0; j < t->vc; j++) {
        uint32_t b = get_bits(g->bytes, eb, at + (size_t)j);
        if (g->v->dt == DT_F16) d[j].f = sim_f16_to_f32((uint16_t)b);   /* the common narrow case, direct */
        else d[j] = sim_dec(g->v->dt, b);
      }
    memset(&t->def[i * t->C], 1, (size_t)t->vc);
    if (s->mc) sim_gm_access_row(s, g, (int)r0 + i, (int)c0, t->vc, false, NULL, c->loc);
  }
  commit(s, st->dst, t);
}

static void ev_K_LOAD(Sim *s, const Stmt *st, const Call *c) {
  Tile *t = fresh(s, st->dst);
  Arg *v = ir_kwarg((Call *)c, KW_VALID);
  t->vr = v ? clampi(ieval(s, &v->ix[0]), 0, t->R) : t->R;
  t->vc = v ? clampi(ieval(s, &v->ix[1]), 0, t->C) : t->C;
  load_window(s, st, c, tensor(s, P(c, 0)), t, ieval(s, &P(c, 1)->ix[0]), ieval(s, &P(c, 1)->ix[1]));
}

/* tload(t, T, [r,c], [pr,pc]): the partition [pr, pc] becomes the valid region */
static void ev_K_TLOAD(Sim *s, const Stmt *st, const Call *c) {
  Tile *t = fresh(s, st->dst);
  t->vr = clampi(ieval(s, &P(c, 3)->ix[0]), 0, t->R);
  t->vc = clampi(ieval(s, &P(c, 3)->ix[1]), 0, t->C);
  load_window(s, st, c, tensor(s, P(c, 1)), t, ieval(s, &P(c, 2)->ix[0]), ieval(s, &P(c, 2)->ix[1]));
}

static void ev_K_STORE(Sim *s, const Stmt *st, const Call *c) {
  (void)st;
  if (ir_kwarg((Call *)c, KW_LANE) && s->lane != 0) return;
  Gm *g = tensor(s, P(c, 0));
  ASSERT(g->v->dir != DIR_IN);                  /* the typechecker refuses it; inputs may be shared */
  if (s->mc && sim_in_replay(s))
    RTERR(s, c->loc, R_NOOP, "the replay of lane %d stores to '%s'", s->lane, g->v->name);
  Tile *t = value(s, P(c, 2));
  int64_t r0 = ieval(s, &P(c, 1)->ix[0]), c0 = ieval(s, &P(c, 1)->ix[1]);
  int vr = t->vr, vc = t->vc;
  Arg *pt = ir_kwarg((Call *)c, KW_PART);
  if (pt) {                                     /* the partition decides what is written */
    int64_t pr = ieval(s, &pt->ix[0]), pc = ieval(s, &pt->ix[1]);
    if (pr * pc != (int64_t)vr * vc)
      RTERR(s, c->loc, R_STORE_COUNT, "tstore partition [%lld, %lld] holds %lld elements, the tile's valid [%d, %d] %lld",
            (long long)pr, (long long)pc, (long long)(pr * pc), vr, vc, (long long)vr * vc);
    if (pr > t->R || pc > t->C || pr < 0 || pc < 0)
      RTERR(s, c->loc, R_STORE_COUNT, "tstore partition [%lld, %lld] exceeds the [%d, %d] tile", (long long)pr,
            (long long)pc, t->R, t->C);
    vr = (int)pr, vc = (int)pc;
  }
  steps(s, c, (uint64_t)vr * vc);
  if (vr && vc && (r0 < 0 || c0 < 0 || r0 + vr > g->rows || c0 + vc > g->cols))
    RTERR(s, c->loc, R_GM_OOB, "store window [%lld, %lld) x [%lld, %lld) outside '%s' [%d, %d]", (long long)r0,
          (long long)(r0 + vr), (long long)c0, (long long)(c0 + vc), g->v->name, g->rows, g->cols);
  for (int i = 0; i < vr; i++) {                /* row by row */
    const uint8_t *df = &t->def[i * t->C];
    const uint8_t *hole = memchr(df, 0, (size_t)vc);
    if (hole)
      RTERR(s, c->loc, R_POISON, "store writes undefined element [%d, %d] of the tile to '%s'", i, (int)(hole - df),
            g->v->name);
    uint16_t h[IR_MAXDIM];                      /* the row as GM bytes */
    const void *val = &t->d[i * t->C];
    if (ir_dtype_bytes(g->v->dt) < 4) {
      if (g->v->dt == DT_F16)
        for (int j = 0; j < vc; j++) h[j] = sim_f32_to_f16(t->d[i * t->C + j].f);
      else
        for (int j = 0; j < vc; j++) put_bits((unsigned char *)h, ir_dtype_bytes(g->v->dt), (size_t)j, sim_enc(g->v->dt, t->d[i * t->C + j]));
      val = h;
    }
    if (s->mc) sim_gm_access_row(s, g, (int)r0 + i, (int)c0, vc, true, val, c->loc);
    memcpy(g->bytes + (size_t)ir_dtype_bytes(g->v->dt) * ((size_t)(r0 + i) * g->cols + (size_t)c0), val,
           (size_t)vc * (size_t)ir_dtype_bytes(g->v->dt));
    if (g->orig && t->R < 1024 && t->C < 1024)   /* positions in the stored tile, and its shape */
      for (int j = 0; j < vc; j++)
        g->orig[(size_t)(r0 + i) * g->cols + (size_t)c0 + (size_t)j] = SIM_ORIGIN((uint64_t)c->loc.off, i, j, t->R, t->C);
  }
}

static void ev_K_GATHER(Sim *s, const Stmt *st, const Call *c) {
  Gm *src = tensor(s, P(c, 0)), *ix = tensor(s, P(c, 1)), *tb = tensor(s, P(c, 2));
  Tile *t = fresh(s, st->dst);
  int64_t B = (int64_t)ir_kwarg((Call *)c, KW_BLOCK_SIZE)->num;
  Arg *ko = ir_kwarg((Call *)c, KW_COL_OFF);
  int K = !ko ? 0 : ko->k == A_IEXPR ? (int)ieval(s, &ko->ix[0]) : (int)ko->num;
  int64_t first = 0;
  t->vr = ix->cols;
  Arg *w = ir_kwarg((Call *)c, KW_WINDOW);
  if (w) {
    first = ieval(s, &w->ix[0]);
    t->vr = clampi(ieval(s, &w->ix[1]), 0, ix->cols - first < 0 ? 0 : ix->cols - first);
    t->vr = imin(t->vr, t->R);
  }
  t->vc = t->C;
  steps(s, c, (uint64_t)t->R * t->C);
  memset(t->def, 0, (size_t)t->R * t->C);
  for (int i = 0; i < t->vr; i++) {
    int64_t x = sim_gm_get(ix, 0, (int)first + i).i;
    if (x < 0) RTERR(s, c->loc, R_GATHER_RANGE, "index %lld at position %d of '%s' is negative", (long long)x, i, ix->v->name);
    int64_t page = x / B;
    if (page >= tb->cols)
      RTERR(s, c->loc, R_GATHER_RANGE, "index %lld is on page %lld, past the %d entries of '%s'", (long long)x,
            (long long)page, tb->cols, tb->v->name);
    int64_t p = sim_gm_get(tb, 0, (int)page).i, phys = p * B + x % B;
    if (p < 0 || phys >= src->rows)
      RTERR(s, c->loc, R_GATHER_RANGE, "index %lld maps to row %lld (page %lld), outside '%s' with %d rows",
            (long long)x, (long long)phys, (long long)p, src->v->name, src->rows);
    for (int j = 0; j < t->vc; j++) {
      t->d[i * t->C + j] = sim_gm_get(src, (int)phys, K + j);
      t->def[i * t->C + j] = 1;
      if (s->mc) sim_gm_access(s, src, (int)phys, K + j, false, c->loc);
    }
  }
  commit(s, st->dst, t);
}

static void ev_K_SLICE(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  int64_t r0 = ieval(s, &P(c, 1)->ix[0]), c0 = ieval(s, &P(c, 1)->ix[1]);
  if (r0 < 0 || c0 < 0 || r0 + t->R > a->R || c0 + t->C > a->C)
    RTERR(s, c->loc, R_SUBVIEW_OOB, "slice window [%lld, %lld) x [%lld, %lld) outside the [%d, %d] tile", (long long)r0,
          (long long)(r0 + t->R), (long long)c0, (long long)(c0 + t->C), a->R, a->C);
  t->vr = imin(t->R, clampi(a->vr - r0, 0, t->R));
  t->vc = imin(t->C, clampi(a->vc - c0, 0, t->C));
  const Var *pv = P(c, 0)->var;
  if (c->op == OP_subview && pv->sp != SP_VEC) {     /* a fractal parent: box-aligned windows only */
    int br, bc;
    ir_box(pv->sp, pv->dt, &br, &bc);
    if ((pv->R > 1 && r0 % br) || c0 % bc)
      RTERR(s, c->loc, R_ALIGN, "subview at [%lld, %lld] of a fractal %s tile breaks its %dx%d box", (long long)r0,
            (long long)c0, ir_space_name(pv->sp), br, bc);
  }
  Arg *vb = ir_kwarg((Call *)c, KW_VALID);
  if (vb) {
    t->vr = imin(t->vr, clampi(ieval(s, &vb->ix[0]), 0, t->R));
    t->vc = imin(t->vc, clampi(ieval(s, &vb->ix[1]), 0, t->C));
  }
  steps(s, c, (uint64_t)t->R * t->C);
  for (int i = 0; i < t->R; i++)
    for (int j = 0; j < t->C; j++) {
      size_t k = (size_t)(r0 + i) * a->C + (size_t)(c0 + j);
      t->d[i * t->C + j] = a->d[k];
      t->def[i * t->C + j] = a->def[k];
    }
  mask(t);
  commit(s, st->dst, t);
  Slot *sl = s->slot[st->dst->id];
  const Slot *ps = s->slot[pv->id];
  int L = lane_of(s, st->dst), PL = lane_of(s, pv);
  sl->of[L] = ps->of[PL] ? ps->of[PL] : (uint32_t)pv->id + 1;
  sl->vgen[L] = ps->of[PL] ? ps->vgen[PL] : ps->gen[PL];
}

static void ev_K_ASSEMBLE(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *b = value(s, P(c, 1)), *t = fresh(s, st->dst);
  int64_t r0 = ieval(s, &P(c, 2)->ix[0]), c0 = ieval(s, &P(c, 2)->ix[1]);
  if (r0 < 0 || c0 < 0 || r0 + b->R > a->R || c0 + b->C > a->C)
    RTERR(s, c->loc, R_SUBVIEW_OOB, "assemble window at [%lld, %lld] outside the [%d, %d] tile", (long long)r0,
          (long long)c0, a->R, a->C);
  size_t n = (size_t)a->R * a->C;
  steps(s, c, n);
  memcpy(t->d, a->d, n * sizeof *t->d);
  memcpy(t->def, a->def, n);
  for (int i = 0; i < b->vr; i++)
    for (int j = 0; j < b->vc; j++) {
      size_t k = (size_t)(r0 + i) * t->C + (size_t)(c0 + j);
      t->d[k] = b->d[i * b->C + j];
      t->def[k] = b->def[i * b->C + j];
    }
  t->vr = imax(a->vr, (int)r0 + b->vr);
  t->vc = imax(a->vc, (int)c0 + b->vc);
  mask(t);
  commit(s, st->dst, t);
}

/* t = a's elements in row-major order with valid shape [vr, vc]; outside a's
 * valid region they stay undefined (mask). */
static void retile(Sim *s, const Stmt *st, Tile *t, const Tile *a, int vr, int vc) {
  size_t n = (size_t)t->R * t->C;
  memcpy(t->d, a->d, n * sizeof *t->d);
  memcpy(t->def, a->def, n);
  t->vr = vr;
  t->vc = vc;
  mask(t);
  commit(s, st->dst, t);
}

static void ev_K_SETVALID(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  int64_t r = ieval(s, &P(c, 1)->ix[0]), cc = ieval(s, &P(c, 2)->ix[0]);
  if (r < 0 || r > t->R || cc < 0 || cc > t->C)   /* the type checker bounds both ranges */
    die("set_validshape [%lld, %lld] of a [%d, %d] tile", (long long)r, (long long)cc, t->R, t->C);
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  retile(s, st, t, a, (int)r, (int)cc);
}

static void ev_K_TRANS(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  steps(s, c, (size_t)a->R * a->C);
  for (int i = 0; i < a->R; i++)                /* every element, defined or not, to its mirror */
    for (int j = 0; j < a->C; j++) {
      t->d[j * t->C + i] = a->d[i * a->C + j];
      t->def[j * t->C + i] = a->def[i * a->C + j];
    }
  t->vr = a->vc;
  t->vc = a->vr;
  commit(s, st->dst, t);
}

static void ev_K_RESHAPE(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  size_t n = (size_t)t->R * t->C;
  bool empty = !a->vr || !a->vc;
  if (!empty && (a->vr != a->R || a->vc != a->C))   /* the type checker allows full or empty only */
    die("reshape of a [%d, %d] tile with valid [%d, %d]", a->R, a->C, a->vr, a->vc);
  steps(s, c, n);
  retile(s, st, t, a, empty ? 0 : t->R, empty ? 0 : t->C);   /* the row-major order is kept */
}

static void ev_K_FULL(Sim *s, const Stmt *st, const Call *c) {
  Tile *t = fresh(s, st->dst);
  double v = P(c, 1)->num;
  Elem e;
  if (ir_dtype_int(t->dt)) e.i = (int32_t)v;
  else e.f = rnd(t->dt, (float)v);
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  for (size_t i = 0; i < n; i++) t->d[i] = e, t->def[i] = 1;
  t->vr = t->R;
  t->vc = t->C;
  Arg *vb = ir_kwarg((Call *)c, KW_VALID);
  if (vb) {
    t->vr = clampi(ieval(s, &vb->ix[0]), 0, t->R);
    t->vc = clampi(ieval(s, &vb->ix[1]), 0, t->C);
    mask(t);
  }
  commit(s, st->dst, t);
}

static void ev_K_BIN(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *b = value(s, P(c, 1)), *t = fresh(s, st->dst);
  t->vr = imin(a->vr, b->vr);
  t->vc = imin(a->vc, b->vc);
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  for (size_t i = 0; i < n; i++) t->def[i] = a->def[i] & b->def[i];
  binop_vec(c->op, t->dt, a->d, b->d, 1, t->d, (int)n);
  mask(t);
  commit(s, st->dst, t);
}

static void ev_K_BINS(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  double v = P(c, 1)->num;
  Elem e;
  if (ir_dtype_int(t->dt)) e.i = (int32_t)v;
  else e.f = rnd(t->dt, (float)v);             /* the scalar has the tile's dtype (language.md 11.4, G-4) */
  t->vr = a->vr;
  t->vc = a->vc;
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  memcpy(t->def, a->def, n);
  binop_vec(c->op, t->dt, a->d, &e, 0, t->d, (int)n);
  commit(s, st->dst, t);
}

static void ev_K_UN(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  t->vr = a->vr;
  t->vc = a->vc;
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  memcpy(t->def, a->def, n);
  const uint8_t *df = a->def;
  const Elem *x = a->d;
  Elem *r = t->d;
  if (t->dt == DT_F32) {                        /* the op switch outside the loop; the same arithmetic as unop() */
    switch (c->op) {
    case OP_neg:
      for (size_t i = 0; i < n; i++) r[i].f = df[i] ? -x[i].f : 0.0f;
      break;
    case OP_abs:
      for (size_t i = 0; i < n; i++) r[i].f = df[i] ? (x[i].f < 0.0f ? -x[i].f : x[i].f) : 0.0f;
      break;
    case OP_relu:
      for (size_t i = 0; i < n; i++) r[i].f = df[i] && !(x[i].f < 0.0f) ? x[i].f : 0.0f;
      break;
    case OP_exp:
      for (size_t i = 0; i < n; i++) r[i].f = df[i] ? (float)exp((double)x[i].f) : 0.0f;
      break;
    default:
      for (size_t i = 0; i < n; i++) r[i] = df[i] ? unop(c->op, t->dt, x[i]) : (Elem){.i = 0};
    }
  } else {
    for (size_t i = 0; i < n; i++) r[i] = df[i] ? unop(c->op, t->dt, x[i]) : (Elem){.i = 0};
  }
  commit(s, st->dst, t);
}

static void ev_K_CAST(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  t->vr = a->vr;
  t->vc = a->vc;
  size_t n = (size_t)t->R * t->C;
  steps(s, c, n);
  for (size_t i = 0; i < n; i++) {
    t->def[i] = a->def[i];
    t->d[i] = t->def[i] ? sim_convert(a->dt, t->dt, a->d[i]) : (Elem){.i = 0};
  }
  commit(s, st->dst, t);
}

/* Fold n elements (stride apart) in order (language.md 9.5, decisions.md "Reductions").
 * A row sum starts from +0, as pto-isa's TRowSum on the CPU (`sum = 0`) and on a5
 * (an accumulator set to zero before the first vcadd), so a row of -0 sums to +0; it
 * accumulates in f32 and rounds once. A column sum starts from its first element, as
 * the hardware's TColSum copies the first row into the destination and adds the
 * others to it (a column of -0 sums to -0), and rounds to the element type at every
 * step (f16/bf16). Max and min start from the first element; integers wrap. */
static Elem fold(Op op, Dtype dt, const Elem *x, const uint8_t *def, int n, int stride, uint8_t *d) {
  Elem acc = x[0];
  *d = def[0];
  bool sum = op == OP_row_sum || op == OP_col_sum, mx = op == OP_row_max || op == OP_col_max, in = ir_dtype_int(dt);
  bool step = op == OP_col_sum;                 /* round the running sum to dt at each step */
  if (op == OP_row_sum && !in) acc.f = 0.0f + acc.f;
  for (int k = 1; k < n; k++) {
    Elem e = x[k * stride];
    *d &= def[k * stride];
    if (in) acc.i = sum ? (int32_t)((uint32_t)acc.i + (uint32_t)e.i) : mx ? (acc.i > e.i ? acc.i : e.i) : (acc.i < e.i ? acc.i : e.i);
    else acc.f = sum ? (step ? rnd(dt, acc.f + e.f) : acc.f + e.f) : mx ? fmaxnan(acc.f, e.f) : fminnan(acc.f, e.f);
  }
  if (in) acc.i = wrap(dt, (uint32_t)acc.i);   /* a narrow sum wraps once, as step by step */
  else acc.f = rnd(dt, acc.f);
  return acc;
}

/* fold's second implementation, written from language.md 9.5 alone and run
 * beside it on every reduction: the golden run and the machine share fold, so
 * a mistake in it would give both the same wrong answer, which differential
 * testing cannot see; against this one it is an R-SELF-CHECK. */
static Elem fold_plain(Op op, Dtype dt, const Elem *x, int n, int stride) {
  Elem r;
  bool sum = op == OP_row_sum || op == OP_col_sum, mx = op == OP_row_max || op == OP_col_max;
  if (ir_dtype_int(dt)) {
    uint32_t u = 0;
    int32_t best = x[0].i;
    for (int k = 0; k < n; k++) {
      int32_t e = x[k * stride].i;
      u += (uint32_t)e;
      if (mx ? e > best : e < best) best = e;
    }
    if (!sum) return r.i = best, r;
    r.i = dt == DT_I8 ? (int8_t)(u & 0xffu) : dt == DT_I16 ? (int16_t)(u & 0xffffu) : (int32_t)u;
    return r;
  }
  float acc = op == OP_row_sum ? 0.0f : x[0].f; /* a row sum from +0, the others from the first */
  for (int k = op == OP_row_sum ? 0 : 1; k < n; k++) {
    float e = x[k * stride].f;
    if (op == OP_row_sum) acc += e;
    else if (op == OP_col_sum) acc = rnd(dt, acc + e);
    else if (mx ? acc < e : e < acc) acc = e;
  }
  r.f = rnd(dt, acc);
  return r;
}

/* fold, checked against fold_plain (bit for bit; any NaN equals any NaN). */
static Elem fold_checked(Sim *s, const Call *c, Dtype dt, const Elem *x, const uint8_t *def, int n, int stride,
                         uint8_t *d) {
  Elem a = fold(c->op, dt, x, def, n, stride, d), b = fold_plain(c->op, dt, x, n, stride);
  bool same = ir_dtype_int(dt) ? a.i == b.i : (isnan(a.f) && isnan(b.f)) || memcmp(&a.f, &b.f, sizeof a.f) == 0;
  if (!same)
    SIM_ERR(s, c->loc, R_SELF_CHECK, "%s of %d elements: the fold gives %#x, the plain fold %#x", ir_ops[c->op].name,
            n, (unsigned)a.i, (unsigned)b.i);
  return a;
}

/* A lowered reduction may declare its destination's valid shape. */
static void declared_valid(Sim *s, const Call *c, Tile *t) {
  Arg *v = ir_kwarg((Call *)c, KW_VALID);
  if (!v) return;
  t->vr = clampi(ieval(s, &v->ix[0]), 0, t->R);
  t->vc = clampi(ieval(s, &v->ix[1]), 0, t->C);
  mask(t);
}

static void ev_K_RRED(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  memset(t->def, 0, (size_t)t->R);
  t->vr = a->vc ? a->vr : 0;
  t->vc = a->vc ? 1 : 0;
  steps(s, c, (uint64_t)a->R * a->C);
  for (int i = 0; i < t->vr; i++) t->d[i] = fold_checked(s, c, a->dt, &a->d[i * a->C], &a->def[i * a->C], a->vc, 1, &t->def[i]);
  declared_valid(s, c, t);
  commit(s, st->dst, t);
}

static void ev_K_CRED(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  memset(t->def, 0, (size_t)t->C);
  t->vr = a->vr ? 1 : 0;
  t->vc = a->vr ? a->vc : 0;
  steps(s, c, (uint64_t)a->R * a->C);
  for (int j = 0; j < t->vc; j++) t->d[j] = fold_checked(s, c, a->dt, &a->d[j], &a->def[j], a->vr, a->C, &t->def[j]);
  declared_valid(s, c, t);
  commit(s, st->dst, t);
}

static void expand(Sim *s, const Stmt *st, const Call *c, bool row) {
  Tile *a = value(s, P(c, 0)), *v = value(s, P(c, 1)), *t = fresh(s, st->dst);
  t->vr = a->vr;
  t->vc = a->vc;
  steps(s, c, (uint64_t)t->R * t->C);
  for (int i = 0; i < t->R; i++) {
    int k = i * t->C;
    for (int j = 0; j < t->C; j++) t->def[k + j] = a->def[k + j] & v->def[row ? i : j];
    binop_vec(c->op, t->dt, &a->d[k], row ? &v->d[i] : v->d, row ? 0 : 1, &t->d[k], t->C);
  }
  commit(s, st->dst, t);
}
static void ev_K_REXP(Sim *s, const Stmt *st, const Call *c) { expand(s, st, c, true); }
static void ev_K_CEXP(Sim *s, const Stmt *st, const Call *c) { expand(s, st, c, false); }

/* ---- the matmul memo ---------------------------------------------------------------- */

enum { MEMO_N = 32 };
struct MatMemo {
  Arena *A;
  struct {
    uint64_t key;
    int M, N, C;
    Elem *d;
    uint8_t *def;
  } e[MEMO_N];
  int next;
};

MatMemo *sim_memo_new(void) {
  Arena *A = ir_arena_new();
  MatMemo *m = ir_alloc(A, sizeof *m);
  m->A = A;
  return m;
}

void sim_memo_free(MatMemo *m) {
  if (m) ir_arena_free(m->A);
}

/* 8 bytes at a time (a multiply-xorshift per word), then the tail. */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  for (; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t matmul_key(const Call *c, const Tile *a, const Tile *b, const Tile *acc, const Tile *t, bool tb, int M,
                           int N, int K) {
  (void)c;                                      /* matmul and tmatmul agree on the valid region: one entry */
  int hdr[6] = {tb, M, N, K, t->dt, acc != NULL};
  uint64_t h = mix(0xcbf29ce484222325ull, hdr, sizeof hdr);
  for (int i = 0; i < M; i++) h = mix(mix(h, &a->d[i * a->C], (size_t)K * 4), &a->def[i * a->C], (size_t)K);
  int br = tb ? N : K, bw = tb ? K : N;
  for (int i = 0; i < br; i++) h = mix(mix(h, &b->d[i * b->C], (size_t)bw * 4), &b->def[i * b->C], (size_t)bw);
  for (int i = 0; acc && i < M; i++) h = mix(mix(h, &acc->d[i * acc->C], (size_t)N * 4), &acc->def[i * acc->C], (size_t)N);
  return h;
}

/* The matmul element loops below have no branch worth a fuzzer's feedback,
 * only loop bounds; under libFuzzer their comparison hooks took a sixth of a
 * .ptk run's time (docs/fuzzing.md), so they are left uninstrumented. ASan
 * still checks every access. */
#if defined(__clang__)
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

/* The products of ev_K_MATMUL: t[i][j] for i < M, j < N from a's rows and
 * bt (B's columns, contiguous), each a chain of fused multiply-adds from +0.
 * mm_fma is the same code compiled for the FMA instruction, picked when the
 * CPU has it: fmaf is exact, so the results are the same bits; only the
 * library call goes. */
static inline __attribute__((always_inline)) void mm_body(const Tile *a, const Elem *bt, const Tile *acc, Tile *t,
                                                          int M, int N, int K, const uint8_t *rowdef,
                                                          const uint8_t *coldef) {
  for (int i = 0; i < M; i++) {
    const Elem *ar = &a->d[i * a->C];
    int j = 0;
    if (t->dt != DT_I32)                        /* four outputs at a time, each summed in its own order */
      for (; j + 4 <= N; j += 4) {
        const Elem *b0 = &bt[(size_t)j * K], *b1 = b0 + K, *b2 = b1 + K, *b3 = b2 + K;
        int o = i * t->C + j;
        float x0 = 0.0f, x1 = 0.0f, x2 = 0.0f, x3 = 0.0f;
        for (int k = 0; k < K; k++) {         /* one fused multiply-add per step (language.md 9.7) */
          float av = ar[k].f;
          x0 = fmaf(av, b0[k].f, x0);
          x1 = fmaf(av, b1[k].f, x1);
          x2 = fmaf(av, b2[k].f, x2);
          x3 = fmaf(av, b3[k].f, x3);
        }
        if (acc) x0 += acc->d[o].f, x1 += acc->d[o + 1].f, x2 += acc->d[o + 2].f, x3 += acc->d[o + 3].f;
        t->d[o].f = x0, t->d[o + 1].f = x1, t->d[o + 2].f = x2, t->d[o + 3].f = x3;
        for (int q = 0; q < 4; q++) t->def[o + q] = rowdef[i] & coldef[j + q] & (acc ? acc->def[o + q] : 1);
      }
    for (; j < N; j++) {
      int o = i * t->C + j;
      const Elem *bc = &bt[(size_t)j * K];
      Elem r = acc ? acc->d[o] : (Elem){.i = 0};
      if (t->dt == DT_I32) {
        uint32_t x = 0;
        for (int k = 0; k < K; k++) x += (uint32_t)ar[k].i * (uint32_t)bc[k].i;
        r.i = (int32_t)(x + (uint32_t)r.i);
      } else {
        float x = 0.0f;
        for (int k = 0; k < K; k++) x = fmaf(ar[k].f, bc[k].f, x);
        r.f = acc ? acc->d[o].f + x : x;
      }
      t->d[o] = r;
      t->def[o] = rowdef[i] & coldef[j] & (acc ? acc->def[o] : 1);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static NO_COVERAGE void mm_fma(const Tile *a, const Elem *bt, const Tile *acc,
                                                              Tile *t, int M, int N, int K, const uint8_t *rowdef,
                                                              const uint8_t *coldef) {
  mm_body(a, bt, acc, t, M, N, K, rowdef, coldef);
}
#endif
static NO_COVERAGE void mm_plain(const Tile *a, const Elem *bt, const Tile *acc, Tile *t, int M, int N, int K,
                                 const uint8_t *rowdef, const uint8_t *coldef) {
  mm_body(a, bt, acc, t, M, N, K, rowdef, coldef);
}

/* bt[j][k] = B's column j (row j with trans_b); rowdef[i]/coldef[j]: a's row
 * i / B's column j defined over every k < K. */
static NO_COVERAGE void mm_prep(const Tile *a, const Tile *b, bool tb, int M, int N, int K, Elem *bt,
                                uint8_t *rowdef, uint8_t *coldef) {
  for (int i = 0; i < M; i++) {
    uint8_t d = 1;
    for (int k = 0; k < K; k++) d &= a->def[i * a->C + k];
    rowdef[i] = d;
  }
  for (int j = 0; j < N; j++) {
    uint8_t d = 1;
    for (int k = 0; k < K; k++) {
      int bi = tb ? j * b->C + k : k * b->C + j;
      bt[(size_t)j * K + k] = b->d[bi];
      d &= b->def[bi];
    }
    coldef[j] = d;
  }
}

/* Rows of a and columns of b fully defined over k < K decide the defined bits,
 * so the inner loop is arithmetic only; b is read through a contiguous copy of
 * its k-columns. The order of the sum is unchanged: k = 0..K-1 from 0 (or c). */
static void ev_K_MATMUL(Sim *s, const Stmt *st, const Call *c) {
  int base = IR_ACC_MATMUL(c->op);
  Tile *a = value(s, P(c, base)), *b = value(s, P(c, base + 1)), *acc = base ? value(s, P(c, 0)) : NULL;
  Tile *t = fresh(s, st->dst);
  Arg *tk = ir_kwarg((Call *)c, KW_TRANS_B);
  bool tb = tk && tk->num != 0;
  int K = a->vc;
  t->vr = a->vr;
  t->vc = tb ? b->vr : b->vc;
  if (acc) t->vr = imin(t->vr, acc->vr), t->vc = imin(t->vc, acc->vc);
  steps(s, c, (uint64_t)t->R * t->C * (uint64_t)(K ? K : 1));
  memset(t->def, 0, (size_t)t->R * t->C);
  int M = t->vr, N = t->vc;
  uint64_t key = 0;
  bool memo = s->memo && M && N && (int64_t)M * N * (K ? K : 1) >= 1024;   /* worth its hash */
  if (memo) {
    key = matmul_key(c, a, b, acc, t, tb, M, N, K);
    for (int q = 0; q < MEMO_N; q++) {
      if (s->memo->e[q].key != key || s->memo->e[q].M != M || s->memo->e[q].N != N || !s->memo->e[q].d) continue;
      for (int i = 0; i < M; i++) {
        memcpy(&t->d[i * t->C], &s->memo->e[q].d[i * N], (size_t)N * sizeof *t->d);
        memcpy(&t->def[i * t->C], &s->memo->e[q].def[i * N], (size_t)N);
      }
      commit(s, st->dst, t);
      return;
    }
  }
  size_t nbt = (size_t)(N ? N : 1) * (size_t)(K ? K : 1) * sizeof(Elem), need = nbt + (size_t)M + 1 + (size_t)N + 1;
  if (s->mm_cap < need) {                       /* one scratch for the run, not one per matmul executed */
    s->mm_scr = ir_alloc_raw(s->A, need);
    s->mm_cap = need;
  }
  Elem *bt = s->mm_scr;                         /* bt[j][k] */
  uint8_t *rowdef = (uint8_t *)s->mm_scr + nbt, *coldef = rowdef + M + 1;
  mm_prep(a, b, tb, M, N, K, bt, rowdef, coldef);
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("fma")) mm_fma(a, bt, acc, t, M, N, K, rowdef, coldef);
  else
#endif
    mm_plain(a, bt, acc, t, M, N, K, rowdef, coldef);
  if (memo) {                                   /* remember it for the other runs of this kernel */
    MatMemo *mm = s->memo;
    int q = mm->next++ % MEMO_N;
    if (!mm->e[q].d || mm->e[q].M * mm->e[q].N < M * N) {
      mm->e[q].d = ir_alloc(mm->A, (size_t)M * N * sizeof *t->d);
      mm->e[q].def = ir_alloc(mm->A, (size_t)M * N);
    }
    mm->e[q].key = key, mm->e[q].M = M, mm->e[q].N = N;
    for (int i = 0; i < M; i++) {
      memcpy(&mm->e[q].d[i * N], &t->d[i * t->C], (size_t)N * sizeof *t->d);
      memcpy(&mm->e[q].def[i * N], &t->def[i * t->C], (size_t)N);
    }
  }
  commit(s, st->dst, t);
}

static void ev_K_SHARD(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  bool ud = MODE_AXIS(P(c, 1)->e) == 0, none = P(c, 1)->e == MODE_NONE;
  int L = s->lane, S = ud ? t->R : t->C, off = none ? 0 : L * S;   /* lane 1's band starts at the lane extent */
  t->vr = ud && !none ? ir_lane_valid(a->vr, S, L) : a->vr;
  t->vc = ud || none ? a->vc : ir_lane_valid(a->vc, S, L);
  steps(s, c, (uint64_t)t->R * t->C);
  for (int i = 0; i < t->R; i++)
    for (int j = 0; j < t->C; j++) {
      int si = ud ? i + off : i, sj = ud ? j : j + off, k = i * t->C + j;
      bool in = si < a->R && sj < a->C;
      t->d[k] = in ? a->d[si * a->C + sj] : (Elem){.i = 0};
      t->def[k] = in ? a->def[si * a->C + sj] : 0;
    }
  mask(t);
  commit(s, st->dst, t);
}

static void ev_K_JOIN(Sim *s, const Stmt *st, const Call *c) {
  const Arg *h = P(c, 0);
  if (h->k != A_VAR || !h->var->lane) die("aic_gather of a non-lane value");
  Slot *sl = s->slot[h->var->id];
  if (!sl || sl->cur[0] < 0 || sl->cur[1] < 0) die("aic_gather before both lanes ran");
  Tile *x[2] = {&sl->t[0][sl->cur[0]], &sl->t[1][sl->cur[1]]}, *t = fresh(s, st->dst);
  bool ud = MODE_AXIS(P(c, 1)->e) == 0;
  int S = ud ? x[0]->R : x[0]->C, v0 = ud ? x[0]->vr : x[0]->vc, v1 = ud ? x[1]->vr : x[1]->vc;
  if (v0 < S && v1 > 0)                         /* DESIGN 14.6: lanes re-join positionally */
    RTERR(s, c->loc, R_PIPE_SHAPE, "aic_gather: lane 0 holds %d of %d, lane 1 holds %d: the joined tile is not a "
          "rectangle", v0, S, v1);
  if (ud) {
    t->vr = x[0]->vr == S ? S + x[1]->vr : x[0]->vr;
    t->vc = imin(x[0]->vc, x[1]->vc);
  } else {
    t->vc = x[0]->vc == S ? S + x[1]->vc : x[0]->vc;
    t->vr = imin(x[0]->vr, x[1]->vr);
  }
  steps(s, c, (uint64_t)t->R * t->C);
  for (int i = 0; i < t->R; i++)
    for (int j = 0; j < t->C; j++) {
      int L = ud ? i / S : j / S, si = ud ? i - L * S : i, sj = ud ? j : j - L * S;
      t->d[i * t->C + j] = x[L]->d[si * x[L]->C + sj];
      t->def[i * t->C + j] = x[L]->def[si * x[L]->C + sj];
    }
  mask(t);
  commit(s, st->dst, t);
}

static void ev_K_LANEIDX(Sim *s, const Stmt *st, const Call *c) {
  (void)s, (void)st, (void)c;                   /* a lane index is read as the lane itself */
}

static void ev_K_GMREAD(Sim *s, const Stmt *st, const Call *c) {
  Gm *g = tensor(s, P(c, 0));
  int64_t i = ieval(s, &P(c, 1)->ix[0]);
  if (i < 0 || i >= g->cols)
    RTERR(s, c->loc, R_GATHER_RANGE, "gm_read of entry %lld of '%s', which has %d", (long long)i, g->v->name, g->cols);
  if (s->mc) sim_gm_access(s, g, 0, (int)i, false, c->loc);
  s->sval[s->mc ? s->task : s->lane][st->dst->id] = sim_gm_get(g, 0, (int)i).i;
}

/* A declared buffer: nothing in it is defined (its old values stay, unobservable). */
static void ev_K_ALLOC(Sim *s, const Stmt *st, const Call *c) {
  Tile *t = fresh(s, st->dst);
  (void)c;
  memset(t->def, 0, (size_t)t->R * t->C);
  t->vr = t->vc = 0;
  commit(s, st->dst, t);
}

/* In place when the destination is the tile operand (the lowered idiom). */
static void ev_K_GROW(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = a;
  Gm *g = tensor(s, P(c, 1));
  if (P(c, 0)->var != st->dst) {
    t = fresh(s, st->dst);
    memcpy(t->d, a->d, (size_t)a->R * a->C * sizeof *t->d);
    memcpy(t->def, a->def, (size_t)a->R * a->C);
  }
  int64_t phys = ieval(s, &P(c, 2)->ix[0]), col = ieval(s, &P(c, 2)->ix[1]);
  int64_t row = ieval(s, &P(c, 3)->ix[0]), count = ieval(s, &P(c, 4)->ix[0]);
  t->vr = clampi(count, 0, t->R);
  t->vc = t->C;
  steps(s, c, (uint64_t)t->C);
  if (row < count && row < t->R) {               /* box= only shapes the window: one row is written */
    if (row < 0 || phys < 0 || phys >= g->rows || col < 0 || col + t->C > g->cols)
      RTERR(s, c->loc, R_GATHER_RANGE, "gather_row reads row %lld of '%s', which has %d", (long long)phys, g->v->name,
            g->rows);
    for (int j = 0; j < t->C; j++) {
      int k = (int)row * t->C + j;
      t->d[k] = sim_gm_get(g, (int)phys, (int)col + j);
      t->def[k] = 1;
      if (s->mc) sim_gm_access(s, g, (int)phys, (int)col + j, false, c->loc);
    }
  }
  mask(t);
  if (t != a) commit(s, st->dst, t);
}

static void ev_pipe(Sim *s, const Stmt *st, const Call *c) {
  (void)s, (void)st;
  die("%s outside the machine: the reference interpreter runs source IR", ir_ops[c->op].name);
}
#define ev_K_PIPE ev_pipe
#define ev_K_TPUSH ev_pipe
#define ev_K_TPOP ev_pipe
#define ev_K_TFREE ev_pipe
#define ev_K_SYNC ev_pipe

static void ev_K_MOVE(Sim *s, const Stmt *st, const Call *c) {
  Tile *a = value(s, P(c, 0)), *t = fresh(s, st->dst);
  size_t n = (size_t)a->R * a->C;
  steps(s, c, n);
  memcpy(t->d, a->d, n * sizeof *t->d);
  memcpy(t->def, a->def, n);
  t->vr = a->vr;
  t->vc = a->vc;
  commit(s, st->dst, t);
}

static void ev_K_ISCALAR(Sim *s, const Stmt *st, const Call *c) {
  int64_t x = ieval(s, &P(c, 0)->ix[0]), y = ieval(s, &P(c, 1)->ix[0]), r;
  if (c->op == OP_idiv) r = x / y;
  else if (c->op == OP_imod) r = x % y;
  else if (c->op == OP_imin) r = x < y ? x : y;
  else if (c->op == OP_imax) r = x > y ? x : y;
  else {
    int64_t h = ieval(s, &P(c, 2)->ix[0]);
    r = x < y ? y : x;
    r = r > h ? h : r;
  }
  s->sval[s->mc ? s->task : s->lane][st->dst->id] = r;
}

static EvalFn *const evals[OP_N] = {
#define OP(n, lo, hi, sd, k, kw, ix) ev_##k,
#include "../compiler/ops.def"
#undef OP
};

/* ---- statements -------------------------------------------------------------------------- */

static void copy(Sim *s, const Stmt *st) {
  Tile *a = value(s, &st->rhs), *t = fresh(s, st->dst);
  size_t n = (size_t)a->R * a->C;
  memcpy(t->d, a->d, n * sizeof *t->d);
  memcpy(t->def, a->def, n);
  t->vr = a->vr;
  t->vc = a->vc;
  commit(s, st->dst, t);
}

void sim_exec(Sim *s, const Stmt *st) {
  s->op1 = st->rhs.k == A_CALL ? (int)st->rhs.call->op + 1 : 0;
  if (st->rhs.k == A_VAR) copy(s, st);
  else if (st->rhs.k == A_CALL) evals[st->rhs.call->op](s, st, st->rhs.call);
  else die("interp: statement without an operation");
  if (s->addressed && st->dst && st->dst->kind == VK_TILE) sim_mem_def(s, st, -1);
}

static void run_body(Sim *s, const Body *b);
static void run_stmt(Sim *s, const Stmt *st) {
  switch (st->k) {
  case S_FOR:
    for (int64_t v = st->iv->lo; v < st->iv->hi; v += st->iv->step) {
      s->ival[0][st->iv->id] = v;
      run_body(s, &st->body);
    }
    break;
  case S_SPLIT:
    run_body(s, &st->body);
    break;
  case S_COND: {                                /* per lane (lane 0 first): its branch, that lane only */
    int only = s->only;
    for (int L = 0; L < 2; L++) {
      if (only >= 0 && L != only) continue;
      s->lane = L;
      bool yes = ir_rel_holds(st->rel, ieval(s, &st->cond[0]), ieval(s, &st->cond[1]));
      s->only = L;
      run_body(s, yes ? &st->body : &st->other);
      s->only = only;
    }
    s->lane = 0;
    break;
  }
  case S_FUNC:
  case S_IF:
    die("the reference interpreter runs source IR; per-core programs run on the machine (sim/machine.c)");
  case S_OP: {
    bool per = st->rhs.k == A_CALL ? st->rhs.call->perlane : (st->dst && st->dst->lane);
    if (st->rhs.k == A_CALL && st->rhs.call->op != OP_store)
      for (int a = 0; a < st->rhs.call->nargs; a++)
        if (st->rhs.call->args[a].k == A_CALL) die("interp: nested call; run flatten first");
    for (int L = 0; L < (per ? 2 : 1); L++) {
      if (s->only >= 0 && L != s->only) continue;
      s->lane = L;
      sim_exec(s, st);
    }
    s->lane = 0;
    break;
  }
  }
}

static void run_body(Sim *s, const Body *b) {
  for (int i = 0; i < b->n; i++) run_stmt(s, b->v[i]);
}

/* The tiles statement st (top-level statement i) names, at any depth: give
 * = false records i as their last use; give = true gives back the buffers of
 * those whose last use it is. */
static void uses_arg(Sim *s, const Arg *a, int i, int *last, bool give);
static void use_var(Sim *s, const Var *v, int i, int *last, bool give) {
  if (!v || v->kind != VK_TILE) return;
  if (!give) {
    last[v->id] = i;
    return;
  }
  Slot *sl = s->slot[v->id];
  if (last[v->id] != i || !sl) return;
  last[v->id] = -1;
  for (int L = 0; L < SIM_CTX; L++)
    for (int b = 0; b < 2; b++)
      if (sl->t[L][b].d) pool_give(s, (size_t)v->R * v->C, &sl->t[L][b]);
}
static void uses_arg(Sim *s, const Arg *a, int i, int *last, bool give) {
  if (a->k == A_VAR) use_var(s, a->var, i, last, give);
  else if (a->k == A_CALL)
    for (int j = 0; j < a->call->nargs; j++) uses_arg(s, &a->call->args[j], i, last, give);
}
static void uses(Sim *s, const Stmt *st, int i, int *last, bool give) {
  use_var(s, st->dst, i, last, give);
  uses_arg(s, &st->rhs, i, last, give);
  for (int j = 0; j < st->body.n; j++) uses(s, st->body.v[j], i, last, give);
  for (int j = 0; j < st->other.n; j++) uses(s, st->other.v[j], i, last, give);
}

/* The kernel's statements in order, each tile's buffers given back after
 * its last top-level statement (the values of a loop are live through it). */
static void run_top(Sim *s) {
  const Body *b = &s->k->body;
  int *last = ir_alloc_raw(s->A, ((size_t)s->k->nvars + 1) * sizeof *last);
  for (int v = 0; v < s->k->nvars; v++) last[v] = -1;
  for (int i = 0; i < b->n; i++) uses(s, b->v[i], i, last, false);
  for (int i = 0; i < b->n; i++) {
    run_stmt(s, b->v[i]);
    uses(s, b->v[i], i, last, true);
  }
}

bool sim_run_reference(Sim *s) {
  s->err.set = false;
  s->steps = 0;
  if (setjmp(s->jb)) return false;
  if (s->mc || s->addressed) run_body(s, &s->k->body);
  else run_top(s);
  return true;
}

void sim_print_outputs(FILE *f, Sim *s, bool dump) {
  for (int i = 0; i < s->k->np; i++) {
    const Var *v = s->k->params[i];
    if (v->dir == DIR_IN) continue;
    Gm *g = &s->gm[v->id];
    fprintf(f, "out %s digest=%016llx\n", v->name, (unsigned long long)sim_digest(g));
    if (!dump) continue;
    for (int r = 0; r < g->rows; r++) {
      fprintf(f, "  %4d:", r);
      for (int c = 0; c < g->cols; c++) {
        uint32_t bits = sim_gm_bits(g, r, c);
        Elem e = sim_gm_get(g, r, c);
        if (bits == sim_canary(v->dt)) fputs(" canary", f);
        else if (ir_dtype_int(v->dt)) fprintf(f, " %d", e.i);
        else fprintf(f, " %.9g", e.f);
      }
      fputc('\n', f);
    }
  }
}
