/* expand_mixed.c — pass 6: one kernel (explicit form) -> pipe declarations
 * and two per-core programs, `aic { }` and `aiv { }`.
 *
 * Each side keeps its own statements in program order, the loops around them
 * and the index arithmetic they use, nothing else (lightweight cloning). A
 * transfer becomes a push on the producing side and a pop on the consuming
 * side at the same program point: C2V `move(t, vec)` / `aiv_shard(t, m)` ->
 * `tpush(c2v, t, code)` + `x = tpop(c2v, dt, [R,C], code)`; V2C `move(h, mat)`
 * / `aic_gather(h, m)` -> `tpush(v2c, h, code)` + `y = tpop(v2c, ...)`. A popped
 * value lives in its slot until `tfree(dir)`, placed after its last use or
 * its views' (frees keep pop order). The pipe depth is the most entries live at once in program
 * order; with that many slots neither side can block the other for good (the
 * earliest pending event in program order can always proceed), so `slots` is
 * raised to it (at most 8, else unsupported). Slot size is the largest full
 * tile carried in the direction. A GM tensor written on one side and touched
 * later by the other gets `sync_set(dir)` / `sync_wait(dir)` at that point. */
#include "ptoc.h"

#include <string.h>

enum { SIDE_NONE = 0, SIDE_C = 1, SIDE_V = 2, SIDE_BOTH = 3 };

typedef struct {
  Comp *c;
  Kernel *k;
  uint8_t *uses;                                /* by var id: sides that read a scalar */
  uint8_t *gw, *gr;                             /* by tensor id: side of the last write, sides read since */
  int64_t bytes[2];                             /* largest full tile per direction */
  int depth[2];                                 /* most live entries per direction */
  bool any[2];
  bool sized[2];                                /* a transfer has set the slot size */
  int *mark, markcap;                           /* place_frees' scratch by var id, -1 between calls */
  Var **def;                                    /* by var id: the parent a view is taken of, or NULL */
} EM;

static int side_of_call(const Call *c) {
  const OpInfo *oi = &ir_ops[c->op];
  if (oi->side == SD_SCALAR) return SIDE_NONE;
  if (oi->kind == K_STORE) return c->args[2].var->sp == SP_VEC ? SIDE_V : SIDE_C;
  return c->ty.sp == SP_VEC ? SIDE_V : SIDE_C;
}

/* Transfer direction of a statement, or -1. */
static int xfer(const Stmt *s) {
  if (s->k != S_OP || s->rhs.k != A_CALL) return -1;
  const Call *c = s->rhs.call;
  if (c->op == OP_aiv_shard) return PIPE_C2V;
  if (c->op == OP_aic_gather) return PIPE_V2C;
  if (c->op != OP_move) return -1;
  Space from = c->args[0].var->sp, to = (Space)c->args[1].e;
  if (to == SP_VEC && from != SP_VEC) return PIPE_C2V;
  if (to != SP_VEC && from == SP_VEC) return PIPE_V2C;
  return -1;
}

static bool note_uses(EM *e, const Aff *a, int side) {
  bool changed = false;
  for (int i = 0; i < a->n; i++) {
    changed |= (e->uses[a->v[i]] | side) != e->uses[a->v[i]];
    e->uses[a->v[i]] |= (uint8_t)side;
  }
  return changed;
}

/* Which sides read each scalar (directly, or through scalars computed from
 * it); returns whether anything changed, so the caller iterates to a fixpoint. */
static bool scan(EM *e, const Body *b) {
  bool changed = false;
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      if (s->k == S_COND) {                     /* if/while run on the vector side */
        changed |= note_uses(e, &s->cond[0], SIDE_V) | note_uses(e, &s->cond[1], SIDE_V);
        changed |= scan(e, &s->other);
      }
      changed |= scan(e, &s->body);
      continue;
    }
    if (s->rhs.k != A_CALL) continue;
    const Call *c = s->rhs.call;
    int side = xfer(s) >= 0 ? SIDE_BOTH : side_of_call(c);
    if (ir_ops[c->op].side == SD_SCALAR && s->dst && e->uses[s->dst->id]) side = e->uses[s->dst->id];
    for (int j = 0; j < c->nargs; j++)
      if (c->args[j].k == A_IDX || c->args[j].k == A_IEXPR) {
        changed |= note_uses(e, &c->args[j].ix[0], side);
        if (c->args[j].k == A_IDX) changed |= note_uses(e, &c->args[j].ix[1], side);
      }
  }
  return changed;
}

/* Walking a body backwards: a popped var (mark -2) read by s gets s's
 * position `at`, its last use; a mark already set is a later use and stays. */
static void note_last(const Stmt *s, int at, int *mark) {
  if (s->k != S_OP) {
    for (int i = 0; i < s->body.n; i++) note_last(s->body.v[i], at, mark);
    for (int i = 0; i < s->other.n; i++) note_last(s->other.v[i], at, mark);
    return;
  }
  if (s->rhs.k == A_VAR) {
    if (mark[s->rhs.var->id] == -2) mark[s->rhs.var->id] = at;
    return;
  }
  const Call *c = s->rhs.call;
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].k == A_VAR && mark[c->args[i].var->id] == -2) mark[c->args[i].var->id] = at;
}

static Stmt *op_stmt(EM *e, Loc l, Var *dst, Op op, int n) { return ir_stmt_op(e->c, l, dst, op, n); }
static void set_dir(Arg *a, int dir) {
  a->k = A_DIR;
  a->e = dir;
}
static void set_int(Arg *a, int64_t x) {
  a->k = A_NUM;
  a->num = (double)x;
  a->isint = true;
}

/* Does a compound statement pop the direction somewhere inside it? */
static bool pops_inside(const Stmt *s, int dir) {
  if (s->k == S_OP) return s->rhs.k == A_CALL && s->rhs.call->op == OP_tpop && s->rhs.call->args[0].e == dir;
  for (int i = 0; i < s->body.n; i++)
    if (pops_inside(s->body.v[i], dir)) return true;
  for (int i = 0; i < s->other.n; i++)
    if (pops_inside(s->other.v[i], dir)) return true;
  return false;
}

/* Every read of `from` in s reads `to` instead. */
static void rename_uses(Stmt *s, const Var *from, Var *to) {
  if (s->k != S_OP) {
    for (int i = 0; i < s->body.n; i++) rename_uses(s->body.v[i], from, to);
    for (int i = 0; i < s->other.n; i++) rename_uses(s->other.v[i], from, to);
    return;
  }
  if (s->rhs.k == A_VAR) {
    if (s->rhs.var == from) s->rhs.var = to;
    return;
  }
  Call *c = s->rhs.call;
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].k == A_VAR && c->args[i].var == from) c->args[i].var = to;
}

/* A C2V entry still read after a statement that pops C2V inside it (a loop or
 * branch) cannot keep its slot: the inner pops are freed inside, and frees
 * release the oldest entry, so the slot would go first. The entry is copied
 * into a buffer of its own (adds of -0.0 / 0: the same bits) right after the
 * pop, later reads take the copy, and the slot is freed at once. */
static Stmt *copy_out(EM *e, Body *b, int at) {
  Var *v = b->v[at]->dst, *c = ir_temp(e->c, e->k, "cp", VK_TILE, b->v[at]->loc);
  c->dt = v->dt, c->sp = SP_VEC, c->R = v->R, c->C = v->C, c->lane = v->lane, c->differ = v->differ;
  c->svr = v->svr, c->svc = v->svc, c->off = -1;
  Stmt *cp = op_stmt(e, b->v[at]->loc, c, OP_adds, 2);
  cp->rhs.call->args[0].k = A_VAR, cp->rhs.call->args[0].var = v;
  cp->rhs.call->args[1].k = A_NUM;
  cp->rhs.call->args[1].isint = ir_dtype_int(v->dt);
  cp->rhs.call->args[1].num = ir_dtype_int(v->dt) ? 0.0 : -0.0;
  for (int i = at + 1; i < b->n; i++) rename_uses(b->v[i], v, c);
  return cp;
}

/* The popped var (or view of one: marked, not -1) s takes a view of, or NULL. */
static Var *view_of_pop(const Stmt *s, const int *mark) {
  if (s->k != S_OP || !s->dst || s->rhs.k != A_CALL || ir_ops[s->rhs.call->op].kind != K_SLICE) return NULL;
  Var *p = s->rhs.call->args[0].var;
  return mark[p->id] != -1 ? p : NULL;
}

/* Insert tfree(dir) for every tpop of this body after its last use, and note
 * the most entries live at once per direction. A view of a popped value
 * reads its slot: the view's uses are the pop's. */
static void place_frees(EM *e, Body *b) {
  typedef struct {
    Var *v;
    int dir, at;
    bool split;                                 /* a lane's part of a split C2V entry */
  } Pop;
  Arena *A = e->c->A;
  int np = 0, n = b->n;
  for (int i = 0; i < n; i++) {
    Stmt *s = b->v[i];
    np += s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_tpop;
  }
  if (!np) return;
  /* Linear in the body: the last use of each popped var in one backward walk
   * (e->mark, -1 between calls, sized to the vars), the live counts by
   * difference arrays, the frees by buckets of their position. */
  Pop *pops = ir_alloc_raw(A, (size_t)np * sizeof *pops);
  int *last = ir_alloc_raw(A, (size_t)np * sizeof *last);
  if (e->markcap < e->k->nvars) {
    int cap = 2 * e->k->nvars;
    int *m = ir_alloc_raw(A, (size_t)cap * sizeof *m);
    for (int i = 0; i < cap; i++) m[i] = i < e->markcap ? e->mark[i] : -1;
    e->mark = m, e->markcap = cap;
  }
  np = 0;
  for (int i = 0; i < n; i++) {
    Stmt *s = b->v[i];
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_tpop) {
      pops[np++] = (Pop){s->dst, s->rhs.call->args[0].e, i,
                         s->rhs.call->args[0].e == PIPE_C2V && s->rhs.call->args[3].num != 0};
      e->mark[s->dst->id] = -2;
    }
    if (view_of_pop(s, e->mark)) e->mark[s->dst->id] = -2;
  }
  for (int i = n - 1, p = np - 1; i >= 0; i--) {
    for (; p >= 0 && pops[p].at == i; p--) {   /* the marks hold the uses after i */
      int u = e->mark[pops[p].v->id];
      last[p] = u > i ? u : i;
    }
    Var *pv = view_of_pop(b->v[i], e->mark);
    int u = pv ? e->mark[b->v[i]->dst->id] : -1;   /* the view's last use: its parent's too */
    if (pv && u >= 0 && e->mark[pv->id] < u) e->mark[pv->id] = u;
    note_last(b->v[i], i, e->mark);
  }
  for (int i = 0; i < n; i++)
    if (b->v[i]->k == S_OP && b->v[i]->dst) e->mark[b->v[i]->dst->id] = -1;
  /* the next compound statement that pops C2V inside, from each position */
  int *nextc = ir_alloc_raw(A, (size_t)(n + 1) * sizeof *nextc);
  Stmt **copies = ir_alloc(A, (size_t)n * sizeof *copies);
  nextc[n] = n;
  for (int i = n - 1; i >= 0; i--) nextc[i] = b->v[i]->k != S_OP && pops_inside(b->v[i], PIPE_C2V) ? i : nextc[i + 1];
  for (int p = 0; p < np; p++)
    if (pops[p].dir == PIPE_C2V && nextc[pops[p].at + 1] <= last[p]) {
      copies[pops[p].at] = copy_out(e, b, pops[p].at);
      last[p] = pops[p].at;
    }
  int prev[2] = {-1, -1};
  for (int p = 0; p < np; p++) {                /* frees keep pop order per direction */
    int d = pops[p].dir;
    if (last[p] < prev[d]) last[p] = prev[d];
    prev[d] = last[p];
  }
  /* live count per direction at each point. slot-oversubscribe (pypto-lib
   * #1194): a split entry is counted as the half tile each lane holds, so two
   * live aiv_shard results take one slot in the count (four live: two slots). */
  bool halves = IR_BUG(e->c, slot_oversubscribe);
  int *diff = ir_alloc(A, (size_t)(n + 1) * 3 * sizeof *diff);   /* per position: c2v, v2c, split */
  for (int p = 0; p < np; p++) {
    int w = halves && pops[p].split ? 2 : pops[p].dir;
    diff[3 * pops[p].at + w]++;
    diff[3 * (last[p] + 1) + w]--;
  }
  int run[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    int live[2];
    for (int w = 0; w < 3; w++) run[w] += diff[3 * i + w];
    live[PIPE_C2V] = run[PIPE_C2V] + (run[2] + 1) / 2;
    live[PIPE_V2C] = run[PIPE_V2C];
    for (int d = 0; d < 2; d++)
      if (live[d] > e->depth[d]) e->depth[d] = live[d];
  }
  int *head = ir_alloc_raw(A, (size_t)n * sizeof *head), *nx = ir_alloc_raw(A, (size_t)np * sizeof *nx);
  for (int i = 0; i < n; i++) head[i] = -1;
  for (int p = np - 1; p >= 0; p--) nx[p] = head[last[p]], head[last[p]] = p;   /* each bucket in pop order */
  Body out = {0};
  for (int i = 0; i < n; i++) {
    ir_body_push(e->c, &out, b->v[i]);
    if (copies[i]) ir_body_push(e->c, &out, copies[i]);
    for (int p = head[i]; p >= 0; p = nx[p]) {
      Stmt *f = op_stmt(e, b->v[i]->loc, NULL, OP_tfree, 1);
      set_dir(&f->rhs.call->args[0], pops[p].dir);
      ir_body_push(e->c, &out, f);
    }
  }
  *b = out;
}

/* Does s read v (anywhere inside it)? */
static bool reads(const Stmt *s, const Var *v) {
  if (s->k != S_OP) {
    for (int i = 0; i < s->body.n; i++)
      if (reads(s->body.v[i], v)) return true;
    for (int i = 0; i < s->other.n; i++)
      if (reads(s->other.v[i], v)) return true;
    return false;
  }
  if (s->rhs.k == A_VAR) return s->rhs.var == v;
  for (int i = 0; i < s->rhs.call->nargs; i++)
    if (s->rhs.call->args[i].k == A_VAR && s->rhs.call->args[i].var == v) return true;
  return false;
}

static int defs_of(const Body *b, const Var *v) {
  int n = 0;
  for (int i = 0; i < b->n; i++)
    n += b->v[i]->k == S_OP ? b->v[i]->dst == v : defs_of(&b->v[i]->body, v) + defs_of(&b->v[i]->other, v);
  return n;
}

/* Is a compound statement one that transfers V2C inside? */
static bool v2c_inside(const Stmt *s) {
  if (s->k == S_OP) return xfer(s) == PIPE_V2C;
  for (int i = 0; i < s->body.n; i++)
    if (v2c_inside(s->body.v[i])) return true;
  return false;
}

static void body_insert(Comp *c, Body *b, int at, Stmt *s) {
  ir_body_push(c, b, s);
  memmove(&b->v[at + 1], &b->v[at], (size_t)(b->n - 1 - at) * sizeof *b->v);
  b->v[at] = s;
}

/* A V2C entry read after a loop or region that transfers V2C inside cannot
 * keep its slot (frees release the oldest entry), and the cube has no
 * mat-to-mat copy, so the transfer is made again from the same vector value
 * where it is read: before the first such read at this level, or, in a loop,
 * before the first read in its body. b->v[i] is the transfer; one no longer
 * read is dropped, and the result is whether it was. */
static bool remat(EM *e, const Body *top, Body *b, int i) {
  Stmt *t = b->v[i];
  Var *d = t->dst, *h = t->rhs.call->args[0].var;
  int j = i + 1;
  bool moved = false;
  while (j < b->n && !(b->v[j]->k != S_OP && v2c_inside(b->v[j]))) j++;
  for (; j < b->n; j++) {
    Stmt *s = b->v[j];
    if (!reads(s, d)) continue;
    for (const Var *p = h; ; p = e->def[p->id]) {  /* the value pushed again must be the one pushed */
      if (defs_of(top, p) != 1)
        ir_error(e->c, s->loc, E_PIPE_ORDER, "'%s' is read after a statement that moves to the cube, "
                 "and '%s' it was moved from is assigned more than once", d->name, p->name);
      if (!e->def[p->id]) break;
    }
    Var *c = ir_temp(e->c, e->k, "re", VK_TILE, t->loc);
    int id = c->id;
    const char *name = c->name;
    *c = *d, c->id = id, c->name = name;
    Stmt *cs = op_stmt(e, t->loc, c, t->rhs.call->op, t->rhs.call->nargs);
    memcpy(cs->rhs.call->args, t->rhs.call->args, (size_t)t->rhs.call->nargs * sizeof *cs->rhs.call->args);
    moved = true;
    if (s->k == S_FOR) {
      for (int k = 0; k < s->body.n; k++) rename_uses(s->body.v[k], d, c);
      int k = 0;
      while (!reads(s->body.v[k], c)) k++;
      body_insert(e->c, &s->body, k, cs);
      remat(e, top, &s->body, k);
      continue;
    }
    for (int k = j; k < b->n; k++) rename_uses(b->v[k], d, c);
    body_insert(e->c, b, j, cs);
    remat(e, top, b, j);
    break;
  }
  if (!moved) return false;
  for (j = i + 1; j < b->n; j++)
    if (reads(b->v[j], d)) return false;
  memmove(&b->v[i], &b->v[i + 1], (size_t)(b->n - 1 - i) * sizeof *b->v);
  b->n--;
  return true;
}

static void note_views(EM *e, const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) note_views(e, &s->body), note_views(e, &s->other);
    else if (s->dst && s->rhs.k == A_CALL && ir_ops[s->rhs.call->op].kind == K_SLICE)
      e->def[s->dst->id] = s->rhs.call->args[0].var;
  }
}

/* Every V2C transfer of the body and the bodies inside, rematerialised. */
static void remat_all(EM *e, const Body *top, Body *b) {
  for (int i = 0; i < b->n; i++) {
    if (b->v[i]->k != S_OP) remat_all(e, top, &b->v[i]->body);
    else if (xfer(b->v[i]) == PIPE_V2C && remat(e, top, b, i)) i--;
  }
}

/* GM fence: side `side` touches tensor t (write or not). */
static void fence(EM *e, Body *cb, Body *vb, const Var *t, int side, bool write, Loc l) {
  int other = side == SIDE_C ? SIDE_V : SIDE_C;
  bool need = (e->gw[t->id] == other) || (write && (e->gr[t->id] & other));
  if (need) {
    int dir = other == SIDE_C ? PIPE_C2V : PIPE_V2C;
    Stmt *set = op_stmt(e, l, NULL, OP_sync_set, 1), *wait = op_stmt(e, l, NULL, OP_sync_wait, 1);
    set_dir(&set->rhs.call->args[0], dir);
    set_dir(&wait->rhs.call->args[0], dir);
    ir_body_push(e->c, other == SIDE_C ? cb : vb, set);
    ir_body_push(e->c, side == SIDE_C ? cb : vb, wait);
    e->any[dir] = true;                         /* a fence needs its pipe declared */
    if (e->bytes[dir] < 32) e->bytes[dir] = 32;
    e->gr[t->id] = 0;
    e->gw[t->id] = 0;
  }
  if (write) e->gw[t->id] = (uint8_t)side, e->gr[t->id] = 0;
  else e->gr[t->id] |= (uint8_t)side;
}

static void split_body(EM *e, const Body *in, Body *cb, Body *vb, Var *lane);

/* pop-drops-lane1: the half lane 1 contributes to a split V2C join, as the
 * defect builds it: x = slice(h, [0, 0], [R, C], valid=...) bounded on the
 * split axis by (1 - lane) * E, so only lane 0's half reaches the cube. */
static Var *lane0_half(EM *e, Stmt *s, Var *h, int code, Var *lane, Body *vb) {
  Var *x = ir_temp(e->c, e->k, "h", VK_TILE, s->loc);
  x->dt = h->dt, x->sp = h->sp, x->R = h->R, x->C = h->C;
  Stmt *sl = op_stmt(e, s->loc, x, OP_slice, 4);
  Arg *g = sl->rhs.call->args;
  g[0].k = A_VAR, g[0].var = h;
  ir_arg_idx(e->c->A, &g[1], ir_aff_cst(0), ir_aff_cst(0));
  ir_arg_idx(e->c->A, &g[2], ir_aff_cst(h->R), ir_aff_cst(h->C));
  int ax = MODE_AXIS(code), E = ax ? h->C : h->R;
  Aff l = ir_aff_var(lane, -E), vl[2];
  vl[ax] = ir_aff_add(ir_aff_cst(E), &l, 1);
  vl[!ax] = ir_aff_cst(ax ? h->R : h->C);
  ir_arg_idx(e->c->A, &g[3], vl[0], vl[1]);
  g[3].kw = KW_VALID;
  ir_body_push(e->c, vb, sl);
  return x;
}

/* The split code of an aiv_shard on its axis, from the lanes' valid counts
 * (DESIGN 14.1): lane l holds clamp(V - l*P, 0, P) of the source's V valid,
 * P the lane extent (the stride). */
static int shard_code(const EM *e, const Stmt *s, const Var *src, const Var *dst, int mode) {
  int ax = MODE_AXIS(mode), E = ax ? src->C : src->R, V = ax ? src->svc : src->svr, P = ax ? dst->C : dst->R;
  if (V < 0) V = -1;
  int code = ir_split_code_on(e->k->target, ax, E, V, P);
  if (code < 0) die("%d:%d: aiv_shard of %d valid in lanes of %d escaped check_split", s->loc.line, s->loc.col, V, P);
  return code;
}

static void transfer(EM *e, Stmt *s, int dir, Body *cb, Body *vb, Var *lane) {
  Call *c = s->rhs.call;
  Var *src = c->args[0].var, *dst = s->dst;
  int code = c->op == OP_move ? 0 : c->args[1].e;
  int ax = MODE_AXIS(code);
  if (c->op == OP_aiv_shard && code) code = shard_code(e, s, src, dst, code);
  if (dir == PIPE_V2C && code == MODE_UD && lane && IR_BUG(e->c, pop_drops_lane1))   /* a row join */
    src = lane0_half(e, s, src, code, lane, vb);
  /* The join axis of a split V2C pop, from the joined shape: rows when it has
   * more rows than a half. gather-wrong-axis: `>=`, so a column join (equal
   * rows) is popped as a row join. */
  int pcode = code;
  if (dir == PIPE_V2C && code)
    pcode = (IR_BUG(e->c, gather_wrong_axis) ? dst->R >= src->R : dst->R > src->R) ? MODE_UD : MODE_LR;
  Stmt *push = op_stmt(e, s->loc, NULL, OP_tpush, 3);
  set_dir(&push->rhs.call->args[0], dir);
  push->rhs.call->args[1].k = A_VAR;
  push->rhs.call->args[1].var = src;
  set_int(&push->rhs.call->args[2], code);
  Stmt *pop = op_stmt(e, s->loc, dst, OP_tpop, 4);
  Arg *pa = pop->rhs.call->args;
  set_dir(&pa[0], dir);
  pa[1].k = A_DTYPE;
  pa[1].e = dst->dt;
  ir_arg_idx(e->c->A, &pa[2], ir_aff_cst(dst->R), ir_aff_cst(dst->C));
  /* The pop's extent on the split axis is where lane 1's band starts.
   * placement-from-box (PTOAS #1368): it is taken from the box partition
   * ceil(E/2), not from the lanes' valid counts (the stride), so a rebalanced
   * transfer puts lane 1's band one or more rows past where its stores go. */
  if (c->op == OP_aiv_shard && code && IR_BUG(e->c, placement_from_box))
    ir_arg_ix(e->c->A, &pa[2])[ax].c = ((ax ? src->C : src->R) + 1) / 2;
  set_int(&pa[3], pcode);
  const Var *whole = dir == PIPE_C2V ? src : dst;   /* the full tile, in the consumer's layout */
  int64_t full = ir_tile_bytes(dir == PIPE_C2V ? SP_VEC : SP_MAT, whole->dt, whole->R, whole->C);
  /* slot-size-first: the first transfer of the direction sizes the slot, not the largest */
  if (IR_BUG(e->c, slot_size_first) ? !e->sized[dir] : full > e->bytes[dir]) e->bytes[dir] = full;
  e->sized[dir] = true;
  e->any[dir] = true;
  ir_body_push(e->c, dir == PIPE_C2V ? cb : vb, push);
  ir_body_push(e->c, dir == PIPE_C2V ? vb : cb, pop);
}

/* The fences a GM access by side needs: a load, store or gather's tensor, a
 * gather's index and page tables. */
static void fence_access(EM *e, Body *cb, Body *vb, const Call *c, int side, Loc l) {
  OpKind k = ir_ops[c->op].kind;
  if (k != K_LOAD && k != K_STORE && k != K_GATHER) return;
  fence(e, cb, vb, c->args[0].var, side, k == K_STORE, l);
  if (k == K_GATHER) {
    fence(e, cb, vb, c->args[1].var, side, false, l);
    fence(e, cb, vb, c->args[2].var, side, false, l);
  }
}

/* The GM accesses under if/while, fenced where the statement starts (the
 * cube cannot wait on a branch only the lanes decide). */
static void fence_cond(EM *e, const Body *b, Body *cb, Body *vb, Loc l) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      fence_cond(e, &s->body, cb, vb, l);
      fence_cond(e, &s->other, cb, vb, l);
      continue;
    }
    if (s->rhs.k == A_CALL) fence_access(e, cb, vb, s->rhs.call, SIDE_V, l);
  }
}

static void split_body(EM *e, const Body *in, Body *cb, Body *vb, Var *lane) {
  for (int i = 0; i < in->n; i++) {
    Stmt *s = in->v[i];
    if (s->k == S_COND) {                       /* per-lane work only (typecheck): all of it on the vector side */
      fence_cond(e, &s->body, cb, vb, s->loc);
      fence_cond(e, &s->other, cb, vb, s->loc);
      Body c1 = {0}, c2 = {0}, v1 = {0}, v2 = {0};
      split_body(e, &s->body, &c1, &v1, lane);
      split_body(e, &s->other, &c2, &v2, lane);
      if (c1.n || c2.n) die("expand_mixed: cube work under if/while");
      Stmt *r = ir_alloc(e->c->A, sizeof *r);
      *r = *s;
      r->body = v1;
      r->other = v2;
      ir_body_push(e->c, vb, r);
      continue;
    }
    if (s->k == S_FOR || s->k == S_SPLIT) {
      Body sc = {0}, sv = {0};
      split_body(e, &s->body, &sc, &sv, s->k == S_SPLIT ? s->iv : lane);
      if (s->k == S_FOR) place_frees(e, &sc);   /* a split region's cube part is inlined */
      place_frees(e, &sv);
      if (s->k == S_SPLIT) {
        for (int j = 0; j < sc.n; j++) ir_body_push(e->c, cb, sc.v[j]);
        if (sv.n) {
          Stmt *r = ir_alloc(e->c->A, sizeof *r);
          *r = *s;
          r->body = sv;
          ir_body_push(e->c, vb, r);
        }
        continue;
      }
      for (int side = 0; side < 2; side++) {
        Body *sub = side ? &sv : &sc;
        if (!sub->n) continue;
        Stmt *r = ir_alloc(e->c->A, sizeof *r);
        *r = *s;
        r->body = *sub;
        ir_body_push(e->c, side ? vb : cb, r);
      }
      continue;
    }
    if (s->k != S_OP) die("expand_mixed: statement kind %d", s->k);
    if (s->rhs.k == A_VAR) {
      ir_body_push(e->c, s->rhs.var->sp == SP_VEC ? vb : cb, s);
      continue;
    }
    Call *c = s->rhs.call;
    int dir = xfer(s);
    if (dir >= 0) {
      transfer(e, s, dir, cb, vb, lane);
      continue;
    }
    const OpInfo *oi = &ir_ops[c->op];
    if (oi->side == SD_SCALAR) {
      int u = s->dst ? e->uses[s->dst->id] : 0;
      if (u & SIDE_C) ir_body_push(e->c, cb, s);
      if (u & SIDE_V) ir_body_push(e->c, vb, s);
      continue;
    }
    int side = side_of_call(c);
    fence_access(e, cb, vb, c, side, s->loc);
    ir_body_push(e->c, side == SIDE_V ? vb : cb, s);
  }
}

void pass_expand_mixed(Comp *c, Kernel *k) {
  if (k->expanded) return;
  EM e = {.c = c, .k = k};
  e.uses = ir_alloc(c->A, (size_t)k->nvars);
  e.gw = ir_alloc(c->A, (size_t)k->nvars);
  e.gr = ir_alloc(c->A, (size_t)k->nvars);
  e.def = ir_alloc(c->A, (size_t)k->nvars * sizeof *e.def);
  note_views(&e, &k->body);
  remat_all(&e, &k->body, &k->body);
  while (scan(&e, &k->body)) {
  }
  Body cb = {0}, vb = {0};
  split_body(&e, &k->body, &cb, &vb, NULL);
  place_frees(&e, &cb);
  place_frees(&e, &vb);
  Body top = {0};
  for (int d = 0; d < 2; d++) {
    if (!e.any[d]) continue;
    int slots = k->slots > e.depth[d] ? k->slots : e.depth[d];
    if (slots > 8)
      ir_error(c, k->loc, E_PIPE_DEPTH, "%s pipe needs %d live entries at once; at most 8 slots",
               d == PIPE_C2V ? "C2V" : "V2C", e.depth[d]);
    Stmt *p = ir_stmt_op(c, k->loc, NULL, OP_pipe, 3);
    set_dir(&p->rhs.call->args[0], d);
    set_int(&p->rhs.call->args[1], slots);
    set_int(&p->rhs.call->args[2], e.bytes[d]);
    ir_body_push(c, &top, p);
  }
  for (int f = 0; f < 2; f++) {
    Stmt *fn = ir_alloc(c->A, sizeof *fn);
    fn->k = S_FUNC;
    fn->loc = k->loc;
    fn->fn = f ? FN_AIV : FN_AIC;
    fn->body = f ? vb : cb;
    ir_body_push(c, &top, fn);
  }
  k->body = top;
  k->expanded = true;
}
