/* machine.c — the multi-core machine. Consumes per-core IR (after
 * expand_mixed: pipe declarations, an `aic` and an `aiv` program) and runs
 * the AIC and one or two AIV lanes as cooperative tasks over the C2V and V2C
 * pipes, round-robin one instruction at a time or in a seeded random order.
 * A whole (code-0) C2V entry reaches lane 0 as pushed; popped inside
 * split_aiv (every pop of a finished two-lane program), lane 1's copy is
 * zeros over the pushed valid region, as pto-isa's CPU simulation pops it
 * (cpu/TPop.hpp lines 25-41 at 3186c381: FillTile with 0 in subblock 1). The
 * hardware differs by target (a2a3 lane 1 reads the whole GM slot,
 * npu/a2a3/TPush.hpp 404-406; a5 moves the tile to vector core 0 only,
 * npu/a5/TPush.hpp 213-214), so no correct program reads lane 1's copy.
 * Pipes have their declared slots; the plain machine (SimOpts.plain, the
 * oracle's second opinion) has unbounded FIFOs, its own lane placement and
 * join (plain_pop) and counts loop trips. Flat
 * source IR without lanes runs as one task (the oracle's check of the
 * machine against the reference interpreter).
 * Produces the GM tensors, or a runtime violation:
 *   R-PIPE-SHAPE  a pop that does not match the push (shape, dtype, code)
 *   R-PIPE-SLOT   an entry larger than the slot, or a pipe never declared
 *   R-PIPE-FREED  (interp.c) a popped value read after its tfree; a view
 *                 of one likewise
 *   R-RACE        a GM element written by one task and written or read by
 *                 another with no transfer or fence between: each task's
 *                 epoch starts at 1 and advances after every push or fence
 *                 signal, which publishes it; a write is ordered before
 *                 another task's access when that task has received the
 *                 writer's epoch of the write (vector clocks)
 *   R-DEADLOCK    every live task blocked; says who waits on what
 *   R-STEPS       the instruction or element budget is spent
 *   R-NOOP        a replay lane stores to GM (interp.c), reads GM (a load,
 *                 gather or table read that kept its window) or makes a
 *                 tile with a nonempty valid region (DESIGN 14.8: the replay
 *                 only creates empty tiles, whatever op makes them; its raw
 *                 pops, which keep the slot protocol, are exempt)
 *   R-ALIAS       a tile read finds bytes of its buffer last written by
 *                 another buffer, or never written (addressed memory,
 *                 DESIGN 14.10: only when memplan placed the buffers; values
 *                 stay stored per variable, a 32-bit tag per 32-byte granule
 *                 of each task's spaces says which buffer wrote it last; a
 *                 nonempty value's whole padded buffer is checked, a view's
 *                 its parent's); a view read after its parent was assigned
 *                 again in the same bytes
 *   R-CAPACITY    a placed buffer, or a popped value in its reserve slot,
 *                 whose bytes end past its space's physical capacity
 *                 (sim_capacity, the machine's own table of DESIGN 4; a
 *                 view's bytes are its parent's, checked where it was
 *                 placed); the tags are sized by the space, not the plan
 *   R-PIPE-OVER   a push into a slot past those the consumer's reserve as
 *                 memplan planned it holds (Kernel.reserve / Kernel.entry, at
 *                 most the slots): so also more entries live in a pipe
 *                 (pushed, not yet released by tfree) than it holds
 * Tile ops themselves run through interp.c (sim_exec) in the task's context. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

enum { I_OP, I_FOR, I_NEXT, I_IF, I_GOTO, I_COND };
typedef struct {
  uint8_t k;
  bool replay;
  bool region;                                  /* inside split_aiv: a whole C2V entry reaches lane 1 as zeros */
  int a;                                        /* jump target */
  const Stmt *st;
} Ins;
typedef struct {
  Ins *v;
  int n, cap;
} Prog;

enum { NT = 3, MAXSLOT = 8, MAXPEND = 64, GRAN = 32 };

typedef struct {
  bool used;
  int seq, code;
  uint8_t have, freed;                          /* V2C: lanes that pushed; C2V: lanes that freed */
  Tile t[2];                                    /* C2V: t[0] the whole tile; V2C: one per lane */
  uint32_t vc[NT];
} Ent;

typedef struct {
  bool declared;
  int slots;
  int64_t bytes;
  int live, room;                               /* entries pushed and not yet released; how many the planned
                                                   reserve holds (addressed machine) */
  Ent ent[MAXSLOT];
  Ent *all;                                     /* the plain machine (SimOpts.plain): entry seq at all[seq] */
  int nall;
  int wseq[2], rseq[2];                         /* per producer / consumer */
  struct {
    int seq;
    const Var *v;
    uint32_t gen;
  } fq[2][MAXPEND];                             /* popped, not yet freed, per consumer */
  int nf[2];
  int sync[2];                                  /* fence counters, per lane */
  uint32_t syncvc[2][NT];
} Pipe;

typedef struct {
  int prog, pc, lane;
  bool done, blocked;
  uint32_t vc[NT];
  const char *wfmt, *wwhat;                     /* what it waits on: formatted only for a deadlock report */
  int wseq;
} Task;

struct Machine {
  Prog prog[2];
  Task t[NT];
  int nt, nlanes;
  Pipe pipe[2];
  int8_t **wr;                                  /* per tensor: last writer task, -1 none */
  uint32_t **wclk;                              /* ... and its epoch */
  uint32_t **wst;                               /* ... and its store (source offset + 1) */
  uint32_t **rclk[NT];                          /* per task and tensor: epoch of its last read, 0 none;
                                                   made on the task's first read of the tensor */
  uint64_t ins, max_ins;
  int32_t *trip[NT];                            /* plain machine: per task, each loop's trips so far, by var id */
  uint32_t *tag[NT][SP_N];                      /* per task and space: the writer (var id + 1) of each 32-byte
                                                   granule, 0 none; grown as placed ends need, at most to cap */
  int64_t ntag[NT][SP_N];                       /* ... granules allocated */
  int64_t cap[SP_N];                            /* each space's physical bytes on the kernel's target */
};

/* ---- programs --------------------------------------------------------------------- */

static int emit(Sim *s, Prog *p, uint8_t k, const Stmt *st, bool replay, bool region) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 64;
    Ins *nv = ir_alloc(s->A, (size_t)cap * sizeof *nv);
    if (p->n) memcpy(nv, p->v, (size_t)p->n * sizeof *nv);
    p->v = nv;
    p->cap = cap;
  }
  p->v[p->n] = (Ins){k, replay, region, 0, st};
  return p->n++;
}

static void linearize(Sim *s, Prog *p, const Body *b, bool replay, bool region) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->v[i];
    switch (st->k) {
    case S_OP:
      emit(s, p, I_OP, st, replay, region);
      break;
    case S_FOR: {
      int f = emit(s, p, I_FOR, st, replay, region);
      linearize(s, p, &st->body, replay, region);
      int n = emit(s, p, I_NEXT, st, replay, region);
      p->v[n].a = f + 1;
      p->v[f].a = n + 1;
      break;
    }
    case S_SPLIT:
      linearize(s, p, &st->body, replay, true);
      break;
    case S_IF:                                  /* I_IF / I_COND: on lane 1 / false to the other body */
    case S_COND: {
      int f = emit(s, p, st->k == S_IF ? I_IF : I_COND, st, replay, region);
      linearize(s, p, &st->body, replay, region);
      int g = emit(s, p, I_GOTO, st, replay, region);
      p->v[f].a = p->n;
      linearize(s, p, &st->other, replay || st->k == S_IF, region);   /* the replay branch */
      p->v[g].a = p->n;
      break;
    }
    case S_FUNC:
      die("machine: nested program");
    }
  }
}

/* ---- clocks and GM races ------------------------------------------------------------ */

static void join(uint32_t *a, const uint32_t *b) {
  for (int i = 0; i < NT; i++)
    if (b[i] > a[i]) a[i] = b[i];
}

static const char *tname(int t) { return t == 0 ? "aic" : t == 1 ? "aiv lane 0" : "aiv lane 1"; }

/* Race detection with vector clocks, complete for the execution's happens-before
 * order: a read conflicts with the last write, a write with the last write and
 * with every task's last read, unless that access happened before (a transfer
 * or fence between). Inputs are never written, so they are not tracked. */
/* The running task's read epochs of tensor id (n elements), made zero on first use. */
static uint32_t *reads(Sim *s, int id, size_t n) {
  uint32_t **r = &s->m->rclk[s->task][id];
  if (!*r) *r = ir_alloc(s->A, n * sizeof **r);
  return *r;
}

/* R-NOOP: the lane-1 replay reads no tile data from GM (DESIGN 14.8). Only
 * lane 1 replays. Its index arithmetic, which dual_lane keeps, may read a
 * gather's tables (gm_read): that is not tile data. */
static void replay_read(Sim *s, const Gm *g, int r, int c, Loc loc) {
  if (sim_in_replay(s) && !(s->op1 > 0 && ir_ops[s->op1 - 1].kind == K_GMREAD))
    SIM_ERR(s, loc, R_NOOP, "the replay of lane %d reads '%s'[%d, %d]: a replay reads no GM", s->lane, g->v->name, r, c);
}

void sim_gm_access(Sim *s, const Gm *g, int r, int c, bool write, Loc loc) {
  Machine *m = s->m;
  int id = g->v->id, T = s->task;
  if (T == 2 && !write) replay_read(s, g, r, c, loc);
  if (!m->wr[id]) return;
  size_t i = (size_t)r * g->cols + c;
  const uint32_t *vc = m->t[T].vc;
  int w = m->wr[id][i];
  if (w >= 0 && w != T && vc[w] < m->wclk[id][i])
    SIM_ERR(s, loc, R_RACE, "%s %s '%s'[%d, %d] written by %s with no transfer or fence between", tname(T),
            write ? "writes" : "reads", g->v->name, r, c, tname(w));
  if (!write) {
    reads(s, id, (size_t)g->rows * g->cols)[i] = vc[T];
    return;
  }
  for (int u = 0; u < m->nt; u++)
    if (u != T && m->rclk[u][id] && vc[u] < m->rclk[u][id][i])
      SIM_ERR(s, loc, R_RACE, "%s writes '%s'[%d, %d] read by %s with no transfer or fence between", tname(T),
              g->v->name, r, c, tname(u));
  m->wr[id][i] = (int8_t)T;
  m->wclk[id][i] = vc[T];
}

/* A row of n elements at [r, c]; a store passes the bytes it writes (val).
 * The same store run by both vector lanes may write the same element without
 * a transfer between when the bytes are identical: a whole tile stored from
 * both lanes (DESIGN 14.5). Different bytes are R-REPLICA. */
void sim_gm_access_row(Sim *s, const Gm *g, int r, int c, int n, bool write, const void *val, Loc loc) {
  Machine *m = s->m;
  int id = g->v->id, T = s->task;
  if (T == 2 && !write && n > 0) replay_read(s, g, r, c, loc);
  if (!m->wr[id]) return;
  size_t base = (size_t)r * g->cols + c;
  int8_t *wr = &m->wr[id][base];
  uint32_t *clk = &m->wclk[id][base];
  const uint32_t *vc = m->t[T].vc;
  uint32_t mine = vc[T];
  if (!write) {
    uint32_t *rc = &reads(s, id, (size_t)g->rows * g->cols)[base];
    for (int j = 0; j < n; j++) {
      int w = wr[j];
      if (w >= 0 && w != T && vc[w] < clk[j]) sim_gm_access(s, g, r, c + j, false, loc);   /* reports */
      rc[j] = mine;
    }
    return;
  }
  bool bad = false;                             /* any conflict: find and report it element by element */
  for (int u = 0; u < m->nt; u++) {
    if (u == T || !m->rclk[u][id]) continue;
    const uint32_t *rc = &m->rclk[u][id][base];
    uint32_t lim = vc[u];
    for (int j = 0; j < n; j++) bad |= rc[j] > lim;
  }
  uint32_t *st = &m->wst[id][base], me = (uint32_t)loc.off + 1;
  size_t es = (size_t)ir_dtype_bytes(g->v->dt);
  for (int j = 0; j < n; j++) {
    int w = wr[j];
    if (w < 0 || w == T || vc[w] >= clk[j]) continue;
    if (!val || !w || !T || st[j] != me) {
      bad = true;
      continue;
    }
    if (memcmp(g->bytes + es * (base + (size_t)j), (const uint8_t *)val + es * (size_t)j, es))
      SIM_ERR(s, loc, R_REPLICA, "%s writes '%s'[%d, %d] with other bytes than %s wrote by the same store", tname(T),
              g->v->name, r, c + j, tname(w));
  }
  if (bad)
    for (int j = 0; j < n; j++) sim_gm_access(s, g, r, c + j, true, loc);
  for (int j = 0; j < n; j++) wr[j] = (int8_t)T, clk[j] = mine, st[j] = me;
}

bool sim_in_replay(const Sim *s) {
  const Machine *m = s->m;
  const Task *t = &m->t[s->task];
  return t->pc < m->prog[t->prog].n && m->prog[t->prog].v[t->pc].replay;
}

/* ---- addressed memory ------------------------------------------------------------------ */

/* Each space's bytes per core (DESIGN section 4): vec per AIV lane, the rest on the AIC. */
static const int32_t phys_cap[2][SP_N] = {
    [TGT_A2A3] = {[SP_VEC] = 188416, [SP_MAT] = 524288, [SP_ACC] = 131072, [SP_LEFT] = 65536, [SP_RIGHT] = 65536},
    [TGT_A5] = {[SP_VEC] = 245760, [SP_MAT] = 524288, [SP_ACC] = 262144, [SP_LEFT] = 65536, [SP_RIGHT] = 65536},
};

int64_t sim_capacity(Target t, Space sp) {
  return (t == TGT_A2A3 || t == TGT_A5) && sp > SP_NONE && sp < SP_N ? phys_cap[t][sp] : 0;
}

/* Task T's tags of space sp, grown to hold granule g1 - 1 (g1 <= the capacity's). */
static uint32_t *tags(Sim *s, int T, Space sp, int64_t g1) {
  Machine *m = s->m;
  int64_t n = m->ntag[T][sp];
  if (g1 <= n) return m->tag[T][sp];
  int64_t nn = n ? 2 * n : 256, most = m->cap[sp] / GRAN;
  while (nn < g1) nn *= 2;
  if (nn > most) nn = most;
  uint32_t *nv = ir_alloc(s->A, (size_t)nn * sizeof *nv);
  if (n) memcpy(nv, m->tag[T][sp], (size_t)n * sizeof *nv);
  m->tag[T][sp] = nv, m->ntag[T][sp] = nn;
  return nv;
}

/* The granules [*g0, *g1) that bytes [at, at + n) touch. */
static void granules(int64_t at, int64_t n, int64_t *g0, int64_t *g1) {
  *g0 = at / GRAN, *g1 = (at + n + GRAN - 1) / GRAN;
}

void sim_mem_def(Sim *s, const Stmt *st, int64_t pop_at) {
  const Var *v = st->dst;
  Slot *sl = s->slot[v->id];
  int T = s->task;
  const Call *c = st->rhs.k == A_CALL ? st->rhs.call : NULL;
  if (c && ir_ops[c->op].kind == K_SLICE) {     /* a view: its parent's bytes, written by the parent's buffer */
    const Slot *p = s->slot[c->args[0].var->id];
    sl->at[T] = p->at[T], sl->len[T] = p->len[T], sl->own[T] = p->own[T];
    return;
  }
  int64_t at = pop_at >= 0 ? pop_at : v->off;
  if (at < 0) {
    sl->len[T] = 0;
    return;
  }
  if (!sl->bytes) sl->bytes = (int32_t)ir_tile_bytes(v->sp, v->dt, v->R, v->C);
  int64_t n = sl->bytes, g0, g1;
  Machine *m = s->m;
  if (at + n > m->cap[v->sp]) {
    char slot[64] = "";
    if (pop_at >= 0)
      snprintf(slot, sizeof slot, " (a %s entry in the reserve's slot %lld)", v->sp == SP_VEC ? "C2V" : "V2C",
               (long long)(s->k->entry[v->sp != SP_VEC] ? pop_at / s->k->entry[v->sp != SP_VEC] : 0));
    SIM_ERR(s, st->loc, R_CAPACITY, "'%s'%s at %s 0x%05llx-0x%05llx ends past the %lld bytes %s %s has", v->name,
            slot, ir_space_name(v->sp), (long long)at, (long long)(at + n), (long long)m->cap[v->sp],
            v->sp == SP_VEC ? "each AIV lane of" : "the AIC of", ir_target_name(s->k->target));
  }
  granules(at, n, &g0, &g1);
  uint32_t me = (uint32_t)v->id + 1, *tag = tags(s, T, v->sp, g1);
  sl->at[T] = (int32_t)at, sl->len[T] = (int32_t)n, sl->own[T] = me;
  if (c && c->op == OP_alloc_tile && c->nargs == 4) return;   /* declares the buffer: writes nothing */
  for (int64_t g = g0; g < g1; g++) tag[g] = me;
}

/* R-ALIAS: v's bytes at granule g were last written by another buffer (or never). */
static _Noreturn void alias(Sim *s, const Var *v, const Slot *sl, int64_t g, Loc loc) {
  int T = s->task;
  uint32_t wt = s->m->tag[T][v->sp][g];
  const Var *o = s->k->vars[sl->own[T] - 1], *w = wt ? s->k->vars[wt - 1] : NULL;
  char rd[96], wr[100] = "never written";
  if (o != v) snprintf(rd, sizeof rd, "'%s' (a view of '%s')", v->name, o->name);
  else snprintf(rd, sizeof rd, "'%s'", v->name);
  if (w) {
    const Slot *ws = s->slot[w->id];
    int64_t wa = ws && ws->len[T] ? ws->at[T] : w->off, wn = ws && ws->len[T] ? ws->len[T] : 0;
    snprintf(wr, sizeof wr, "last written by '%.60s' at 0x%05llx-0x%05llx", w->name, (long long)wa,
             (long long)(wa + wn));
  }
  SIM_ERR(s, loc, R_ALIAS, "%s at %s 0x%05llx-0x%05llx is read, but its bytes at 0x%05llx were %s: two live "
          "buffers overlap", rd, ir_space_name(v->sp), (long long)sl->at[T], (long long)(sl->at[T] + sl->len[T]),
          (long long)(g * GRAN), wr);
}

/* A view v of value o: o's bytes must still hold the value the view was
 * taken of. o assigned again since, in the same bytes (a buffer rewritten in
 * place, a popped value's slot refilled), is R-ALIAS. (Its pipe slot released
 * is R-PIPE-FREED, interp.c, on any machine.) */
static void view_read(Sim *s, const Var *v, const Slot *sl, Loc loc) {
  int T = s->task;
  const Var *o = s->k->vars[sl->of[T] - 1];
  const Slot *os = s->slot[o->id];
  if (os->gen[T] != sl->vgen[T] && os->at[T] == sl->at[T])
    SIM_ERR(s, loc, R_ALIAS, "'%s' (a view of '%s') at %s 0x%05llx-0x%05llx is read, but '%s' was assigned again "
            "since the view was taken: its bytes hold the new value", v->name, o->name, ir_space_name(o->sp),
            (long long)sl->at[T], (long long)(sl->at[T] + sl->len[T]), o->name);
}

/* Every granule of the value's bytes (the whole padded buffer, or for a view
 * its parent's) must still carry the tag of the buffer that holds it. An empty
 * value (an allocated buffer with an empty valid shape, the replay's loads)
 * reads nothing. */
void sim_mem_read(Sim *s, const Var *v, const Tile *t, Loc loc) {
  const Slot *sl = s->slot[v->id];
  int T = s->task;
  if (sl->len[T] <= 0 || !t->vr || !t->vc) return;
  uint32_t me = sl->own[T];
  if (sl->of[T]) view_read(s, v, sl, loc);
  const uint32_t *tag = s->m->tag[T][v->sp];
  int64_t g, g1;
  granules(sl->at[T], sl->len[T], &g, &g1);
  uint64_t mine = me * 0x0000000100000001ull; /* two tags at a time */
  for (uint64_t w; g + 2 <= g1; g += 2) {
    memcpy(&w, &tag[g], sizeof w);
    if (w != mine) break;
  }
  for (; g < g1; g++)
    if (tag[g] != me) alias(s, v, sl, g, loc);
}

/* ---- pipes -------------------------------------------------------------------------- */

static int64_t bytes_of(const Tile *t) { return (int64_t)t->R * t->C * ir_dtype_bytes(t->dt); }

static void copy_tile(Sim *s, Tile *dst, const Tile *src) {
  size_t n = (size_t)src->R * src->C;
  if (!dst->d || dst->R * dst->C < src->R * src->C) {
    dst->d = ir_alloc(s->A, n * sizeof *dst->d);
    dst->def = ir_alloc(s->A, n);
  }
  Elem *d = dst->d;
  uint8_t *df = dst->def;
  *dst = *src;
  dst->d = d;
  dst->def = df;
  memcpy(d, src->d, n * sizeof *d);
  memcpy(df, src->def, n);
}

static Pipe *pipe_of(Sim *s, const Call *c) {
  Pipe *p = &s->m->pipe[c->args[0].e];
  if (!p->declared) SIM_ERR(s, c->loc, R_PIPE_SLOT, "%s on the %s pipe, which was never declared", ir_ops[c->op].name,
                            c->args[0].e == PIPE_C2V ? "C2V" : "V2C");
  return p;
}

/* The entry transfer seq uses: its slot, or on plain pipes its own entry (a
 * FIFO without slots: no wrap-around, a push never waits for a free slot). */
static Ent *entry(Sim *s, Pipe *p, int seq) {
  if (!s->plain) return &p->ent[seq % p->slots];
  if (seq >= p->nall) {
    int n = p->nall ? 2 * p->nall : 16;
    while (n <= seq) n *= 2;
    Ent *nv = ir_alloc(s->A, (size_t)n * sizeof *nv);
    if (p->nall) memcpy(nv, p->all, (size_t)p->nall * sizeof *nv);
    p->all = nv;
    p->nall = n;
  }
  return &p->all[seq];
}

/* Entry seq of pipe p (direction dir) becomes live: pushed into slot seq mod
 * slots, held until its tfree. On an addressed machine a slot past those the
 * consumer's planned reserve holds is R-PIPE-OVER: the entry lies outside the
 * reserve. Whenever more entries are live than the reserve holds, one of
 * them went to such a slot; the slot, unlike the count, does not depend on
 * the schedule. (A pipe depth counted too small by expand_mixed declares too
 * few slots and memplan plans the reserve for them: the producer blocks on a
 * full pipe while the consumer waits for the entry behind it, R-DEADLOCK.) */
static void enter(Sim *s, Pipe *p, int dir, int seq, Loc loc) {
  p->live++;
  if (!s->addressed || seq % p->slots < p->room) return;
  const Kernel *k = s->k;
  SIM_ERR(s, loc, R_PIPE_OVER, "%s push #%d goes to slot %d (%d %s live, pushed and not yet freed), but the reserve "
          "memplan planned holds %d: %d bytes, %d per entry, of %d slots declared", dir == PIPE_C2V ? "C2V" : "V2C",
          seq, seq % p->slots, p->live, p->live == 1 ? "entry" : "entries", p->room, k->reserve[dir], k->entry[dir],
          p->slots);
}

static bool blockf(Task *t, const char *fmt, const char *what, int seq) {
  t->wfmt = fmt, t->wwhat = what, t->wseq = seq;
  return false;
}

/* Check a pop's declared type against the part it receives. */
static void check_pop(Sim *s, const Call *c, int R, int C, Dtype dt) {
  const Arg *sh = &c->args[2];
  if (sh->ix[0].c != R || sh->ix[1].c != C || c->args[1].e != (int)dt)
    SIM_ERR(s, c->loc, R_PIPE_SHAPE, "tpop expects %s [%d, %d], the push delivers %s [%d, %d]",
            ir_dtype_name((Dtype)c->args[1].e), sh->ix[0].c, sh->ix[1].c, ir_dtype_name(dt), R, C);
}

/* The runtime form of DESIGN 14.1 and 14.6 for a split C2V pop with lane
 * extent S: the lanes' valid counts must fit the code (PTOAS checks the odd
 * split on the valid count), and a transfer pins the extent it does not split. */
static void c2v_contract(Sim *s, const Call *c, const Tile *x, int code, int S) {
  int ud = code == 1 || code == 3, E = ud ? x->R : x->C, V = ud ? x->vr : x->vc;
  int v0 = ir_lane_valid(V, S, 0), v1 = ir_lane_valid(V, S, 1);
  if (s->k->target == TGT_A5) {                 /* the local FIFO's halves of the box, whatever the counts */
    if (S != ir_split_stride(TGT_A5, E))
      SIM_ERR(s, c->loc, R_PIPE_SHAPE, "a5 C2V lanes of %d: a5 cuts the %d-%s box at %d", S, E,
              ud ? "row" : "column", ir_split_stride(TGT_A5, E));
  } else if (S > E || V > 2 * S)
    SIM_ERR(s, c->loc, R_PIPE_SHAPE, "C2V lanes of %d cannot place %d valid of %d", S, V, E);
  if (v1 && s->k->target != TGT_A5 && (code <= 2 ? v0 != v1 : v0 != v1 + 1))
    SIM_ERR(s, c->loc, R_PIPE_SHAPE, "split code %d needs %s, the lanes hold %d and %d valid", code,
            code <= 2 ? "equal lane counts" : "lane 0 to hold one more than lane 1", v0, v1);
  if (!ud && x->vc < x->C)
    SIM_ERR(s, c->loc, R_PIPE_SHAPE, "left_right C2V of %d valid columns of %d: the transfer pins the column extent",
            x->vc, x->C);
  if (ud && v1 && v0 != v1 && x->vc < x->C)
    SIM_ERR(s, c->loc, R_PIPE_SHAPE, "up_down C2V with per-lane rows (%d and %d) and %d valid columns of %d", v0,
            v1, x->vc, x->C);
}

/* The plain machine's pop: placement and join written apart from the
 * slotted machine's (pipe_op), element by element from DESIGN 4, so the
 * self-check compares two implementations of them. C2V: lane L receives the
 * band [L*S, L*S+S) of the tile on the split axis, with valid extent
 * clamp(V - L*S, 0, S) there (S the lane extent the pop declares: ceil(E/2),
 * or a rebalanced stride, DESIGN 14.2, or half the a5 box); code 0 gives
 * lane 0 the whole tile and lane 1 zeros over its valid region. V2C: lane L's tile is placed at L*S on the split axis
 * (S a lane's extent); the valid extent there is v0 + v1, a rectangle only
 * when lane 0 is full or lane 1 empty, and on the other axis the smaller of
 * the lanes'; code 0 keeps lane 0's tile. Inside the valid region an
 * element is its source element (defined when that is), outside it is 0 and
 * undefined. */
static void plain_pop(Sim *s, const Call *c, const Ent *e, int L, int nlanes, bool region, Tile *d) {
  int dir = c->args[0].e, code = (int)c->args[3].num;
  bool ud = code == 1 || code == 3;
  const Tile *x0 = &e->t[0], *x1 = &e->t[0];
  int S = 0;
  if (dir == PIPE_C2V) {
    if (code) {
      S = c->args[2].ix[ud ? 0 : 1].c;
      c2v_contract(s, c, x0, code, S);
    }
    d->R = code && ud ? S : x0->R;
    d->C = code && !ud ? S : x0->C;
    check_pop(s, c, d->R, d->C, x0->dt);
    int v = (ud ? x0->vr : x0->vc) - L * S;
    v = v < 0 ? 0 : v > S ? S : v;
    d->vr = code && ud ? v : x0->vr;
    d->vc = code && !ud ? v : x0->vc;
  } else {
    if (nlanes > 1) x1 = &e->t[1];
    if (code == 3 || code == 4) SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C with the odd split code %d", code);
    if (code && nlanes < 2) SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C split code %d with one lane", code);
    if (code && (x0->R != x1->R || x0->C != x1->C))
      SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C lanes push [%d, %d] and [%d, %d]", x0->R, x0->C, x1->R, x1->C);
    S = ud ? x0->R : x0->C;
    d->R = code == 1 ? 2 * S : x0->R;
    d->C = code == 2 ? 2 * S : x0->C;
    check_pop(s, c, d->R, d->C, x0->dt);
    if (!code) {
      d->vr = x0->vr, d->vc = x0->vc;
    } else {                                    /* a: on the split axis, b: on the other */
      int a0 = ud ? x0->vr : x0->vc, a1 = ud ? x1->vr : x1->vc, b0 = ud ? x0->vc : x0->vr, b1 = ud ? x1->vc : x1->vr;
      if (a0 < S && a1 > 0)
        SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C lanes of %d hold %d and %d: not a rectangle", S, a0, a1);
      int a = a0 + a1, b = b1 < b0 ? b1 : b0;
      d->vr = ud ? a : b;
      d->vc = ud ? b : a;
    }
  }
  for (int i = 0; i < d->R; i++)
    for (int j = 0; j < d->C; j++) {
      const Tile *x = x0;
      int si = i, sj = j, k = i * d->C + j;
      if (code && dir == PIPE_C2V) {            /* lane L's band of the tile */
        if (ud) si += L * S;
        else sj += L * S;
      } else if (code) {                        /* the lane whose band holds (i, j) */
        int l = (ud ? i : j) / S;
        x = l ? x1 : x0;
        if (ud) si -= l * S;
        else sj -= l * S;
      }
      bool in = i < d->vr && j < d->vc && si < x->R && sj < x->C;
      if (dir == PIPE_C2V && !code && L == 1 && region) { /* lane 1's copy of a whole entry: zeros */
        d->d[k] = (Elem){.i = 0};
        d->def[k] = i < d->vr && j < d->vc;
        continue;
      }
      d->d[k] = in ? x->d[si * x->C + sj] : (Elem){.i = 0};
      d->def[k] = in && x->def[si * x->C + sj];
    }
}

/* Returns false when the task must wait. */
static bool pipe_op(Sim *s, Task *t, const Stmt *st) {
  Machine *m = s->m;
  const Call *c = st->rhs.call;
  int T = s->task, L = t->lane, all = (1 << m->nlanes) - 1;
  switch (ir_ops[c->op].kind) {
  case K_PIPE:
    return true;
  case K_TPUSH: {
    Pipe *p = pipe_of(s, c);
    int dir = c->args[0].e, code = (int)c->args[2].num;
    Tile *x = sim_value(s, &c->args[1]);
    if (dir == PIPE_C2V) {
      if (bytes_of(x) > p->bytes)
        SIM_ERR(s, c->loc, R_PIPE_SLOT, "C2V entry of %lld bytes, the slot holds %lld", (long long)bytes_of(x),
                (long long)p->bytes);
      int seq = p->wseq[0];
      Ent *e = entry(s, p, seq);
      if (e->used) return blockf(t, "C2V push #%.0s%d: all slots taken", "", seq);
      e->used = true, e->seq = seq, e->code = code, e->freed = 0;
      enter(s, p, dir, seq, c->loc);
      copy_tile(s, &e->t[0], x);
      memcpy(e->vc, t->vc, sizeof e->vc);         /* publish this epoch, then start the next */
      t->vc[T]++;
      p->wseq[0]++;
      return true;
    }
    if (2 * bytes_of(x) > p->bytes && code) /* a half: the joined tile must fit */
      SIM_ERR(s, c->loc, R_PIPE_SLOT, "V2C half of %lld bytes joins to more than the %lld-byte slot",
              (long long)bytes_of(x), (long long)p->bytes);
    if (!code && bytes_of(x) > p->bytes)
      SIM_ERR(s, c->loc, R_PIPE_SLOT, "V2C entry of %lld bytes, the slot holds %lld", (long long)bytes_of(x),
              (long long)p->bytes);
    int seq = p->wseq[L];
    Ent *e = entry(s, p, seq);
    if (e->used && e->seq != seq) return blockf(t, "V2C push #%.0s%d: slot still held", "", seq);
    if (!e->used) {
      e->used = true, e->seq = seq, e->have = 0, memset(e->vc, 0, sizeof e->vc), e->code = code;
      enter(s, p, dir, seq, c->loc);
    }
    if (e->code != code)
      SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C lanes push with split codes %d and %d", e->code, code);
    copy_tile(s, &e->t[L], x);
    e->have |= (uint8_t)(1 << L);
    join(e->vc, t->vc);
    t->vc[T]++;
    p->wseq[L]++;
    return true;
  }
  case K_TPOP: {
    Pipe *p = pipe_of(s, c);
    int dir = c->args[0].e, code = (int)c->args[3].num, who = dir == PIPE_C2V ? L : 0;
    int seq = p->rseq[who];
    Ent *e = entry(s, p, seq);
    if (dir == PIPE_C2V && (!e->used || e->seq != seq)) return blockf(t, "C2V pop #%.0s%d: nothing pushed", "", seq);
    if (dir == PIPE_V2C && (!e->used || e->seq != seq || e->have != all))
      return blockf(t, "V2C pop #%.0s%d: waiting for the lanes' pushes", "", seq);
    if (p->nf[who] == MAXPEND) SIM_ERR(s, c->loc, R_PIPE_SLOT, "more than %d pops without tfree", MAXPEND);
    if (e->code != code)
      SIM_ERR(s, c->loc, R_PIPE_SHAPE, "tpop with split code %d, the push used %d", code, e->code);
    Tile *d = sim_fresh(s, st->dst);
    if (s->plain) {
      plain_pop(s, c, e, L, m->nlanes, m->prog[t->prog].v[t->pc].region, d);
    } else if (dir == PIPE_C2V) {
      const Tile *x = &e->t[0];
      int ud = code == 1 || code == 3, E = ud ? x->R : x->C, V = ud ? x->vr : x->vc;
      int S = code ? c->args[2].ix[!ud].c : E;  /* the lane extent: lane 1's band starts there */
      if (code) c2v_contract(s, c, x, code, S);
      int R = code && ud ? S : x->R, C = code && !ud ? S : x->C, off = code ? L * S : 0;
      check_pop(s, c, R, C, x->dt);
      d->R = R, d->C = C;
      int vl = ir_lane_valid(V, S, code ? L : 0);
      d->vr = code && ud ? vl : x->vr;
      d->vc = code && !ud ? vl : x->vc;
      int sj = code && !ud ? off : 0;           /* row i of the part is row si, from column sj, of the tile */
      for (int i = 0; i < R; i++) {
        int si = code && ud ? i + off : i, n = 0;
        if (si < x->R && i < d->vr) n = d->vc < x->C - sj ? d->vc : x->C - sj;
        if (n > 0) {
          memcpy(&d->d[i * C], &x->d[si * x->C + sj], (size_t)n * sizeof *d->d);
          memcpy(&d->def[i * C], &x->def[si * x->C + sj], (size_t)n);
        } else {
          n = 0;
        }
        memset(&d->d[i * C + n], 0, (size_t)(C - n) * sizeof *d->d);
        memset(&d->def[i * C + n], 0, (size_t)(C - n));
      }
      if (!code && L == 1 && m->prog[t->prog].v[t->pc].region) {   /* lane 1's copy of a whole entry: zeros */
        size_t n = (size_t)R * C;
        memset(d->d, 0, n * sizeof *d->d);
        for (int i = 0; i < R; i++) memset(&d->def[i * C], 1, (size_t)(i < d->vr ? d->vc : 0));
      }
      if (s->fault == SIM_FAULT_WRAP && !s->plain && seq >= p->slots && d->def[0]) d->d[0].i ^= 1;   /* test hook */
    } else {
      const Tile *x0 = &e->t[0], *x1 = &e->t[m->nlanes > 1 ? 1 : 0];
      if (code == 3 || code == 4) SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C uses even split codes only, got %d", code);
      if (code && m->nlanes < 2) SIM_ERR(s, c->loc, R_PIPE_SHAPE, "split V2C code %d with one lane", code);
      if (code && (x0->R != x1->R || x0->C != x1->C))
        SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C halves of [%d, %d] and [%d, %d]", x0->R, x0->C, x1->R, x1->C);
      bool ud = code == 1;
      int R = code == 1 ? 2 * x0->R : x0->R, C = code == 2 ? 2 * x0->C : x0->C, S = ud ? x0->R : x0->C;
      check_pop(s, c, R, C, x0->dt);
      int v0 = ud ? x0->vr : x0->vc, v1 = ud ? x1->vr : x1->vc;
      if (code && v0 < S && v1 > 0)             /* DESIGN 14.6: lanes re-join positionally */
        SIM_ERR(s, c->loc, R_PIPE_SHAPE, "V2C join: lane 0 holds %d of %d, lane 1 holds %d: the joined tile is "
                "not a rectangle", v0, S, v1);
      d->R = R, d->C = C;
      if (!code) d->vr = x0->vr, d->vc = x0->vc;
      else if (ud) d->vr = x0->vr == S ? S + x1->vr : x0->vr, d->vc = x0->vc < x1->vc ? x0->vc : x1->vc;
      else d->vc = x0->vc == S ? S + x1->vc : x0->vc, d->vr = x0->vr < x1->vr ? x0->vr : x1->vr;
      if (s->fault == SIM_FAULT_JOIN && code && v0 < S) *(ud ? &d->vr : &d->vc) = S;   /* test hook */
      for (int i = 0; i < R; i++) {             /* row i: a lane's row (up_down), or both lanes' halves side by side */
        int parts = code == 2 ? 2 : 1, w = C / parts;
        for (int q = 0; q < parts; q++) {
          int l = code == 1 ? i / S : q;
          const Tile *x = l ? x1 : x0;
          int si = code == 1 ? i - l * S : i;
          memcpy(&d->d[i * C + q * w], &x->d[si * x->C], (size_t)w * sizeof *d->d);
          memcpy(&d->def[i * C + q * w], &x->def[si * x->C], (size_t)w);
        }
        int vc = i < d->vr ? d->vc : 0;         /* defined only inside the joined valid region */
        memset(&d->def[i * C + vc], 0, (size_t)(C - vc));
      }
    }
    join(t->vc, e->vc);
    if (s->on_pop) s->on_pop(s->hook_ctx, st, L, d->vr, d->vc);
    sim_commit(s, st->dst, d);
    if (s->addressed) sim_mem_def(s, st, (int64_t)(seq % p->slots) * s->k->entry[dir]);   /* the slot in the reserve */
    Slot *sl = sim_slot(s, st->dst);
    p->fq[who][p->nf[who]].seq = seq;
    p->fq[who][p->nf[who]].v = st->dst;
    p->fq[who][p->nf[who]++].gen = sl->gen[T];
    p->rseq[who]++;
    return true;
  }
  case K_TFREE: {
    Pipe *p = pipe_of(s, c);
    int dir = c->args[0].e, who = dir == PIPE_C2V ? L : 0;
    if (!p->nf[who]) SIM_ERR(s, c->loc, R_PIPE_FREED, "tfree with no popped entry outstanding");
    int seq = p->fq[who][0].seq;
    const Var *v = p->fq[who][0].v;
    Slot *sl = sim_slot(s, v);
    if (sl->gen[T] == p->fq[who][0].gen) sl->freed[T] = true;
    memmove(&p->fq[who][0], &p->fq[who][1], (size_t)(--p->nf[who]) * sizeof p->fq[who][0]);
    Ent *e = entry(s, p, seq);
    if (dir == PIPE_C2V) e->freed |= (uint8_t)(1 << L);
    if (dir == PIPE_V2C || e->freed == all) e->used = false, p->live--;
    return true;
  }
  case K_SYNC: {
    Pipe *p = pipe_of(s, c);
    bool set = c->op == OP_sync_set, c2v = c->args[0].e == PIPE_C2V;
    if (set) {
      for (int l = 0; l < m->nlanes; l++)
        if (c2v || l == L) p->sync[l]++, join(p->syncvc[l], t->vc);
      t->vc[T]++;
      return true;
    }
    for (int l = 0; l < m->nlanes; l++)
      if ((c2v ? l == L : true) && !p->sync[l]) return blockf(t, "%s fence: lane %d has not signalled", c2v ? "C2V" : "V2C", l);
    for (int l = 0; l < m->nlanes; l++)
      if (c2v ? l == L : true) p->sync[l]--, join(t->vc, p->syncvc[l]);
    return true;
  }
  default:
    die("machine: %s is not a pipe op", ir_ops[c->op].name);
  }
}

/* ---- the run ------------------------------------------------------------------------ */

static bool lane_free(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *st = b->v[i];
    if (st->k == S_SPLIT || st->k == S_IF || st->k == S_FUNC || (st->dst && st->dst->lane)) return false;
    if (st->k == S_OP && st->rhs.k == A_CALL && st->rhs.call->perlane) return false;
    if (!lane_free(&st->body) || !lane_free(&st->other)) return false;
  }
  return true;
}

bool sim_machine_runs_flat(const Kernel *k) { return !k->expanded && lane_free(&k->body); }

uint64_t sim_machine_ins(const Sim *s) { return s->m ? s->m->ins : 0; }

/* R-NOOP: every tile the replay makes has an empty valid region (DESIGN 14.8):
 * not just its loads, also its slices, views, assembles and what is computed
 * from them. Only its raw pops, which keep the slot protocol, hold data. */
static void replay_made(Sim *s, const Stmt *st) {
  const Var *v = st->dst;
  if (!v || v->kind != VK_TILE) return;
  const Slot *sl = s->slot[v->id];
  int T = s->task;
  if (!sl || sl->cur[T] < 0) return;
  const Tile *t = &sl->t[T][sl->cur[T]];
  if (!t->vr || !t->vc) return;
  SIM_ERR(s, st->loc, R_NOOP, "the replay of lane %d makes '%s' with valid [%d, %d]: a replay does no work", s->lane,
          v->name, t->vr, t->vc);
}

/* Run one instruction of task i; false when it has to wait. */
static bool step(Sim *s, int i) {
  Machine *m = s->m;
  Task *t = &m->t[i];
  Prog *p = &m->prog[t->prog];
  if (t->pc >= p->n) {
    t->done = true;
    return true;
  }
  const Ins *in = &p->v[t->pc];
  s->task = i;
  s->lane = t->lane;
  int64_t *iv = s->ival[i];
  switch (in->k) {
  case I_FOR:
    iv[in->st->iv->id] = in->st->iv->lo;
    if (s->plain) m->trip[i][in->st->iv->id] = 0;
    t->pc = ir_loop_trips(in->st->iv) ? t->pc + 1 : in->a;
    return true;
  case I_NEXT: {
    if (s->plain) {                             /* count the trips: value lo + trips * step */
      const Var *v = in->st->iv;
      int32_t n = ++m->trip[i][v->id];
      iv[v->id] = v->lo + (int64_t)n * v->step;
      t->pc = n < ir_loop_trips(v) ? in->a : t->pc + 1;
      return true;
    }
    int64_t hi = in->st->iv->hi;
    if (s->fault == SIM_FAULT_LOOP && ir_loop_trips(in->st->iv) > 2) hi -= in->st->iv->step;   /* test hook */
    iv[in->st->iv->id] += in->st->iv->step;
    t->pc = iv[in->st->iv->id] < hi ? in->a : t->pc + 1;
    return true;
  }
  case I_IF:
    t->pc = t->lane == 0 ? t->pc + 1 : in->a;
    return true;
  case I_GOTO:
    t->pc = in->a;
    return true;
  case I_COND:
    t->pc = ir_rel_holds(in->st->rel, sim_ieval(s, &in->st->cond[0]), sim_ieval(s, &in->st->cond[1])) ? t->pc + 1 : in->a;
    return true;
  }
  const Stmt *st = in->st;
  if (st->rhs.k == A_CALL && ir_ops[st->rhs.call->op].side == SD_PIPE) {
    s->op1 = (int)st->rhs.call->op + 1;
    if (!pipe_op(s, t, st)) return false;
  } else {
    sim_exec(s, st);
    if (in->replay) replay_made(s, st);
  }
  t->pc++;
  return true;
}

/* The source location of task i's current instruction. */
static Loc here(const Machine *m, int i) {
  const Task *t = &m->t[i];
  const Prog *p = &m->prog[t->prog];
  int pc = t->pc < p->n ? t->pc : p->n - 1;
  return pc >= 0 ? p->v[pc].st->loc : (Loc){0, 0, 0};
}

bool sim_run_machine(Sim *s, uint64_t sched) {
  const Loc nowhere = {0, 0, 0};
  const Kernel *k = s->k;
  Machine *m = ir_alloc(s->A, sizeof *m);
  s->m = m;
  s->mc = true;
  s->err.set = false;
  m->max_ins = SIM_MAX_INS;
  if (!k->expanded) {                           /* flat source IR: one task runs it all */
    if (!sim_machine_runs_flat(k)) die("machine: flat IR with lanes runs under the reference interpreter only");
    linearize(s, &m->prog[0], &k->body, false, false);
  } else {
    const Stmt *aic = ir_func(k, FN_AIC), *aiv = ir_func(k, FN_AIV);
    if (aic) linearize(s, &m->prog[0], &aic->body, false, false);
    if (aiv) linearize(s, &m->prog[1], &aiv->body, false, false);
    m->nlanes = ir_vector_lanes(k);
  }
  m->t[m->nt++] = (Task){.prog = 0};
  for (int l = 0; l < m->nlanes; l++) m->t[m->nt++] = (Task){.prog = 1, .lane = l};
  for (int i = 0; i < m->nt; i++) m->t[i].vc[i] = 1;   /* epochs start at 1: nobody has seen any */
  m->wr = ir_alloc(s->A, (size_t)k->nvars * sizeof *m->wr);
  m->wclk = ir_alloc(s->A, (size_t)k->nvars * sizeof *m->wclk);
  m->wst = ir_alloc(s->A, (size_t)k->nvars * sizeof *m->wst);
  for (int t = 0; t < m->nt; t++) m->rclk[t] = ir_alloc(s->A, (size_t)k->nvars * sizeof *m->rclk[t]);
  for (int t = 0; t < m->nt && s->plain; t++) m->trip[t] = ir_alloc(s->A, (size_t)k->nvars * sizeof *m->trip[t]);
  for (int i = 0; i < k->np; i++) {
    const Gm *g = &s->gm[k->params[i]->id];
    size_t n = (size_t)g->rows * g->cols;
    if (g->v->dir == DIR_IN) continue;          /* no writer to track */
    m->wr[g->v->id] = ir_alloc_raw(s->A, n);
    memset(m->wr[g->v->id], -1, n);
    m->wclk[g->v->id] = ir_alloc_raw(s->A, n * sizeof(uint32_t));   /* read only where wr >= 0 */
    m->wst[g->v->id] = ir_alloc_raw(s->A, n * sizeof(uint32_t));
  }
  for (int i = 0; i < k->body.n; i++) {
    const Stmt *st = k->body.v[i];
    if (st->k != S_OP || st->rhs.k != A_CALL || st->rhs.call->op != OP_pipe) continue;
    const Call *c = st->rhs.call;
    Pipe *p = &m->pipe[c->args[0].e];
    p->declared = true;
    p->slots = (int)c->args[1].num;
    p->bytes = (int64_t)c->args[2].num;
    if (p->slots < 1 || p->slots > MAXSLOT) die("machine: pipe with %d slots", p->slots);
  }
  s->addressed = k->planned && !s->plain;       /* plain pipes have no slots to place pops at */
  for (int sp = 0; sp < SP_N; sp++) m->cap[sp] = sim_capacity(k->target, (Space)sp);
  for (int d = 0; d < 2; d++) {                 /* the entries memplan's reserve holds, at most the slots */
    Pipe *p = &m->pipe[d];
    p->room = k->entry[d] > 0 ? k->reserve[d] / k->entry[d] : 0;
    if (p->room > p->slots) p->room = p->slots;
  }
  if (setjmp(s->jb)) {
    s->mc = s->addressed = false;
    return false;
  }
  uint64_t rng = sched * 0x9E3779B97F4A7C15ull + 7;
  for (;;) {
    int live = 0, progressed = 0;
    if (sched) {                                /* seeded random: one task, one instruction */
      int cand[NT], nc = 0;
      for (int i = 0; i < m->nt; i++)
        if (!m->t[i].done && !m->t[i].blocked) cand[nc++] = i;
      if (!nc) {
        for (int i = 0; i < m->nt; i++) live += !m->t[i].done;
        if (!live) break;
      } else {
        int i = cand[sim_rand(&rng) % (uint64_t)nc];
        if (step(s, i)) {
          for (int j = 0; j < m->nt; j++) m->t[j].blocked = false;
        } else {
          m->t[i].blocked = true;
        }
        if (++m->ins > m->max_ins && !(s->op1 = 0)) SIM_ERR(s, here(m, i), R_STEPS, "more than %llu instructions", (unsigned long long)m->max_ins);
        continue;
      }
    } else {
      for (int i = 0; i < m->nt; i++) {
        if (m->t[i].done) continue;
        live++;
        if (step(s, i)) progressed++;
        if (++m->ins > m->max_ins && !(s->op1 = 0)) SIM_ERR(s, here(m, i), R_STEPS, "more than %llu instructions", (unsigned long long)m->max_ins);
      }
      if (!live) break;
      if (progressed) continue;
    }
    char msg[300] = "";
    for (int i = 0; i < m->nt; i++)
      if (!m->t[i].done) {
        const Task *t = &m->t[i];
        char wait[96] = "an unrecorded event";
        if (t->wfmt) snprintf(wait, sizeof wait, t->wfmt, t->wwhat, t->wseq);
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s waits on %s", msg[0] ? "; " : "", tname(i), wait);
      }
    const Task *t0 = NULL;
    for (int i = 0; i < m->nt && !t0; i++)
      if (!m->t[i].done) t0 = &m->t[i];
    Loc l = t0 ? m->prog[t0->prog].v[t0->pc].st->loc : nowhere;
    s->op1 = 0;                                 /* the waiters' location names the op */
    SIM_ERR(s, l, R_DEADLOCK, "%s", msg);
  }
  s->mc = s->addressed = false;
  return true;
}
