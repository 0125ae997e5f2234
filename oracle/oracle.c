/* oracle.c — the differential oracle. Consumes one kernel's text; produces
 * an outcome per variant and schedule: the golden run first (a kernel the
 * reference rejects is invalid, never a finding), then each variant compiled
 * through the whole pipeline and run on the machine under round-robin and one
 * random schedule, compared bit for bit with the golden outputs. Outcomes
 * follow DESIGN section 8; a non-ok result gets the op involved, a mismatch
 * pattern relative to the split axis and (on request) the first bad pass,
 * found by compiling with --stop-after=P for each pass P in turn and running
 * what that level produced. A kernel whose leading comment claims a variant
 * must compile (`# expect-compile:`, written by the generator) gets `reject`
 * when that variant is refused, `unsupported` or `invalid` alike: the golden
 * run of the same kernel was valid (orc_claim); one it claims must be refused
 * (`# expect-refuse:`, a negative construct) gets `escape` when that variant
 * compiles (orc_must_refuse). */
#include "orc.h"

#include <math.h>
#include <string.h>
#include <time.h>

const char *const orc_variants[ORC_NVARIANT] = {"none@a2a3", "none@a5", "up_down", "left_right"};
static const struct {
  int split, target;
} vopt[ORC_NVARIANT] = {{MODE_NONE, TGT_A2A3}, {MODE_NONE, TGT_A5}, {MODE_UD, -1}, {MODE_LR, -1}};

const char *orc_outcome_name(Outcome o) {
  static const char *const n[OUT_N] = {"ok",         "unsupported", "reject", "escape", "hang",
                                       "miscompile", "crash",       "blowup", "invalid", "tool-error"};
  return o < OUT_N ? n[o] : "?";
}

bool orc_is_finding(Outcome o) { return o >= OUT_REJECT && o <= OUT_BLOWUP; }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);   /* CPU time: a descheduled worker is no blowup */
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- finding the op a diagnostic points at -------------------------------------- */

/* The op family a signature names (DESIGN: "the op kind involved"): what the
 * op does, not which one of its kind it is, so a bug that hits every
 * element-wise op, both reductions or every transfer op is one signature. */
const char *orc_op_family(int op) {
  if (op < 0 || op >= OP_N) return NULL;
  switch (ir_ops[op].kind) {
  case K_LOAD: case K_TLOAD: return "load";
  case K_STORE: return "store";
  case K_GATHER: case K_GROW: return "gather";
  case K_SLICE: return "slice";
  case K_ASSEMBLE: return "assemble";
  case K_FULL: case K_BIN: case K_BINS: case K_UN: case K_CAST: return "elementwise";
  case K_RRED: case K_CRED: return "reduce";
  case K_REXP: case K_CEXP: return "expand";
  case K_MATMUL: return "matmul";
  case K_SHARD: case K_JOIN: case K_LANEIDX: return "lane";
  case K_MOVE: case K_PIPE: case K_TPUSH: case K_TPOP: case K_TFREE: case K_SYNC: return "transfer";
  case K_ISCALAR: case K_GMREAD: return "scalar";
  case K_ALLOC: return "alloc";
  default: return NULL;
  }
}

/* The op of the statement at l (a call or one of its arguments), or -1. */
static int op_at(const Body *b, Loc l) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      int r = op_at(&s->body, l);
      if (r < 0) r = op_at(&s->other, l);
      if (r >= 0) return r;
      continue;
    }
    if (s->rhs.k == A_CALL && s->rhs.call->loc.off == l.off) return (int)s->rhs.call->op;
    if (s->rhs.k == A_CALL)
      for (int j = 0; j < s->rhs.call->nargs; j++)
        if (s->rhs.call->args[j].loc.off == l.off) return (int)s->rhs.call->op;
  }
  return -1;
}

/* The op family of a diagnostic: the op its check judged, else the one at its location in b. */
static const char *diag_op(const Diag *d, const Body *b) {
  return orc_op_family(d->op1 ? d->op1 - 1 : b ? op_at(b, d->loc) : -1);
}

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s ? s : "-"); }

/* ---- one compiled level, run ------------------------------------------------------- */

typedef struct {
  Comp c;
  Kernel *k;
  Sim *s;
  bool compiled, ran;
  double compile_ms;                            /* the pipeline alone, not the run */
} Run;

/* Compile variant v from a copy of the front-end kernel gk (parsed, typechecked and
 * flattened once per kernel), up to pass stop or to the end. */
static void run_level(Run *r, const Src *src, const Kernel *gk, int v, const char *stop, const OrcOpts *o,
                      uint64_t sched, const Sim *inputs) {
  memset(r, 0, sizeof *r);
  r->c.A = ir_arena_new();
  r->c.src = *src;
  r->c.o = (CompOpts){.split = vopt[v].split, .target = vopt[v].target, .bugs = o->bugs};
  PipeOpts po = {.stop_after = stop};
  double t0 = now_ms();
  r->k = pass_pipeline_from(&r->c, gk, &po);
  r->compile_ms = now_ms() - t0;
  if (!r->k) return;
  r->compiled = true;
  if (sched == ~0ull) return;                   /* compile only */
  r->s = sim_new(r->k, &(SimOpts){.seed = o->input_seed, .inputs = inputs, .memo = o->memo, .fault = o->sim_fault});
  r->ran = r->k->expanded ? sim_run_machine(r->s, sched) : sim_run_reference(r->s);
}

static void run_free(Run *r) {
  sim_free(r->s);
  ir_arena_free(r->c.A);
}

/* Compare every output tensor; on a difference fill the mismatch pattern relative
 * to the split axis (axis < 0: an unsplit variant, no axis, pattern "-"). The
 * pattern is taken in the coordinates of the tile the golden run stored there
 * (Gm.orig), for the first store in program order that wrote a differing
 * element: a lost last row of a tile stored in row blocks is `tail`, wherever
 * the block sits in the tensor. Elements the golden run never stored are judged
 * in the tensor's coordinates. */
/* Element (r, c) of b agrees with a: the same bits, or with tol > 0 two finite
 * floats within tol * scale of each other. */
static bool agree(const Gm *a, const Gm *b, int r, int c, double tol, double scale) {
  if (sim_gm_bits(a, r, c) == sim_gm_bits(b, r, c)) return true;
  if (tol <= 0 || ir_dtype_int(a->v->dt)) return false;
  double x = sim_gm_get(a, r, c).f, y = sim_gm_get(b, r, c).f;
  return isfinite(x) && isfinite(y) && fabs(x - y) <= tol * scale;
}

/* The largest finite magnitude of a float tensor (1 when none), the scale of its tolerance. */
static double magnitude(const Gm *a) {
  double m = 0;
  for (int r = 0; r < a->rows; r++)
    for (int c = 0; c < a->cols; c++) {
      double x = fabs(sim_gm_get(a, r, c).f);
      if (isfinite(x) && x > m) m = x;
    }
  return m > 0 ? m : 1;
}

bool orc_same_outputs(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, int axis, char *pattern, size_t pn) {
  return orc_compare_outputs(g, gk, s, k, NULL, 0, axis, pattern, pn);
}

bool orc_compare_outputs(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, Sim *base, double tol, int axis,
                         char *pattern, size_t pn) {
  int64_t first = INT64_MAX;                    /* the first store (source offset) with a differing element */
  int ft = -1;                                  /* else the first differing tensor never stored by the golden run */
  double scale[64];
  for (int i = 0; i < 64; i++) scale[i] = 1;
  for (int i = 0; i < gk->np; i++) {
    const Var *gv = gk->params[i];
    if (gv->dir == DIR_IN) continue;
    Gm *a = sim_gm(g, gv), *b = sim_gm(s, k->params[i]), *z = base ? sim_gm(base, gk->params[i]) : NULL;
    if (!memcmp(a->bytes, b->bytes, (size_t)a->rows * a->cols * (size_t)ir_dtype_bytes(gv->dt))) continue;
    double sc = tol > 0 && !ir_dtype_int(gv->dt) ? magnitude(a) : 1;
    if (i < 64) scale[i] = sc;
    for (int r = 0; r < a->rows; r++)
      for (int c = 0; c < a->cols; c++) {
        if (agree(a, b, r, c, tol, sc) || (z && !agree(a, z, r, c, tol, sc))) continue;
        uint64_t o = a->orig ? a->orig[(size_t)r * a->cols + c] : 0;
        if (o && SIM_ORIGIN_STORE(o) < first) first = SIM_ORIGIN_STORE(o);
        if (!o && ft < 0) ft = i;
      }
  }
  if (first == INT64_MAX && ft < 0) return true;
  if (axis < 0) {
    set(pattern, pn, "-");
    return false;
  }
  /* Which positions along the split axis (of the stored tile) hold a difference. */
  enum { MAXE = 1024 };
  uint8_t hit[MAXE] = {0}, written[MAXE] = {0};
  long bad = 0, transposed = 0;
  int E = 0;
  for (int i = 0; i < gk->np; i++) {
    const Var *gv = gk->params[i];
    if (gv->dir == DIR_IN || (first == INT64_MAX && i != ft)) continue;
    Gm *a = sim_gm(g, gv), *b = sim_gm(s, k->params[i]), *z = base ? sim_gm(base, gk->params[i]) : NULL;
    double sc = i < 64 && tol > 0 && !ir_dtype_int(gv->dt) ? scale[i] : 1;
    for (int r = 0; r < a->rows; r++)
      for (int c = 0; c < a->cols; c++) {
        uint64_t o = a->orig ? a->orig[(size_t)r * a->cols + c] : 0;
        int x, e;                               /* position and extent on the split axis */
        if (first != INT64_MAX) {
          if (!o || SIM_ORIGIN_STORE(o) != first) continue;
          x = SIM_ORIGIN_FIELD(o, axis), e = SIM_ORIGIN_FIELD(o, 2 + axis);
        } else {
          x = axis ? c : r, e = axis ? a->cols : a->rows;
        }
        if (e > E) E = e < MAXE ? e : MAXE;
        if (x >= MAXE) continue;
        written[x] = 1;
        if (agree(a, b, r, c, tol, sc) || (z && !agree(a, z, r, c, tol, sc))) continue;
        bad++;
        hit[x] = 1;
        if (r < a->cols && c < a->rows && sim_gm_bits(b, r, c) == sim_gm_bits(a, c, r)) transposed++;
      }
  }
  int S = (E + 1) / 2, in0 = 0, in1 = 0;      /* positions hit in lane 0's and lane 1's halves */
  bool all = true;                              /* every position the store wrote holds a difference */
  for (int x = 0; x < E; x++) {
    x < S ? (in0 += hit[x]) : (in1 += hit[x]);
    all &= hit[x] || !written[x];
  }
  /* tail: only the last position of an odd extent (the odd-extent symptom; with
   * an even extent it lies in lane 1's half like any other) */
  bool tail = in0 + in1 == 1 && E > 1 && E % 2 && hit[E - 1];
  set(pattern, pn, all ? "all" : tail ? "tail" : transposed == bad ? "transposed"
                   : !in1 ? "lane0" : !in0 ? "lane1" : "both");
  return false;
}

static int axis_of(int mode) { return mode == MODE_NONE ? -1 : MODE_AXIS(mode); }

/* A miscompile's detail in words: the first output (parameter order) that
 * differs, the rows and columns its differing elements span, how many differ,
 * and the first one in row-major order: "O rows 8-15, cols 0-15: 128 of 256
 * wrong; first O[8,0] expected 1.5 got 0" (" (and 2 more outputs)" when other
 * outputs differ too). */
static void mismatch_detail(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, char *out, size_t n) {
  int outputs = 0;
  char first[320] = "outputs differ from the golden run";
  for (int i = 0; i < gk->np; i++) {
    const Var *gv = gk->params[i];
    if (gv->dir == DIR_IN) continue;
    Gm *a = sim_gm(g, gv), *b = sim_gm(s, k->params[i]);
    long bad = 0;
    int r0 = a->rows, r1 = -1, c0 = a->cols, c1 = -1;
    char el[96] = "";
    for (int r = 0; r < a->rows; r++)
      for (int c = 0; c < a->cols; c++) {
        if (sim_gm_bits(a, r, c) == sim_gm_bits(b, r, c)) continue;
        if (!bad++) {
          Elem ex = sim_gm_get(a, r, c), ac = sim_gm_get(b, r, c);
          if (ir_dtype_int(gv->dt)) snprintf(el, sizeof el, "[%d,%d] expected %d got %d", r, c, ex.i, ac.i);
          else snprintf(el, sizeof el, "[%d,%d] expected %.6g got %.6g", r, c, ex.f, ac.f);
        }
        r0 = r < r0 ? r : r0, r1 = r > r1 ? r : r1, c0 = c < c0 ? c : c0, c1 = c > c1 ? c : c1;
      }
    if (!bad || outputs++) continue;
    char rs[32], cs[32];
    snprintf(rs, sizeof rs, r0 == r1 ? "row %d" : "rows %d-%d", r0, r1);
    snprintf(cs, sizeof cs, c0 == c1 ? "col %d" : "cols %d-%d", c0, c1);
    snprintf(first, sizeof first, "%.24s %s, %s: %ld of %ld wrong; first %.24s%s", gv->name, rs, cs, bad,
             (long)a->rows * a->cols, gv->name, el);
  }
  if (outputs > 1) snprintf(out, n, "%.170s (and %d more output%s)", first, outputs - 1, outputs > 2 ? "s" : "");
  else snprintf(out, n, "%s", first);
}

/* ---- the simulator's self-check ------------------------------------------------------ */

/* Two simulator paths that must agree on a correct simulator, run only at the
 * first bad pass P of a finding (docs/fuzzing.md, "Bisection that blames the
 * right layer"):
 *   flat   the machine runs an unexpanded level without lanes as one task and
 *          must give what the reference interpreter gives: P itself when it is
 *          unexpanded, else the last unexpanded level before P (which the
 *          reference ran like the golden run, P being the first bad level);
 *   plain  an expanded level P runs again on the plain machine (SimOpts.plain:
 *          unbounded FIFO pipes, loops stepped by trip count, no addressed
 *          memory) under the same schedule and must give what the machine gave.
 * A disagreement blames the simulator: the finding's first bad pass is `sim`. */

static const char *code_or_ok(bool ran, const Sim *s) { return ran ? "ok" : ir_diag_name(sim_diag(s)->code); }

/* One machine raised code where the other (which ran other_ins instructions)
 * ran clean: a disagreement unless a correct simulator may do that on a wrong
 * program. A deadlock on full slots, R-ALIAS, R-CAPACITY and R-PIPE-OVER need
 * the slotted machine's slots and addresses; the budget counts a blocked
 * task's tries, at most one per task (3) between two executed instructions,
 * so a run spends it legitimately only when the other ran at least a third
 * of it. */
static bool one_sided_ok(int code, uint64_t other_ins, bool slotted) {
  bool addressed = code == R_ALIAS || code == R_CAPACITY || code == R_PIPE_OVER;
  return (slotted && (code == R_DEADLOCK || addressed)) || (code == R_STEPS && other_ins >= SIM_MAX_INS / 3);
}

/* Kernel k under the machine as one task: 1 the golden outputs without a
 * violation, 0 a violation or other outputs, -1 no verdict (R-STEPS: the
 * reference has no instruction budget, a long kernel may spend the machine's). */
static int flat_agrees(const OrcOpts *o, Sim *g, const Kernel *gk, const Kernel *k, const Sim *inputs, char *res,
                       size_t n) {
  Sim *m = sim_new(k, &(SimOpts){.seed = o->input_seed, .inputs = inputs, .memo = o->memo, .fault = o->sim_fault});
  bool ran = sim_run_machine(m, 0);
  char pat[12];
  bool same = ran && orc_same_outputs(g, gk, m, k, -1, pat, sizeof pat);
  snprintf(res, n, "%s", !ran ? ir_diag_name(sim_diag(m)->code) : same ? "golden outputs" : "other outputs");
  int v = same ? 1 : !ran && sim_diag(m)->code == R_STEPS ? -1 : 0;
  sim_free(m);
  return v;
}

/* True with why set when the simulator's own paths disagree at level p (run as r). */
static bool sim_at_fault(const Src *src, int v, const OrcOpts *o, Sim *g, const Kernel *gk, uint64_t sched,
                         const Sim *inputs, int p, const Run *r, char *why, size_t n) {
  if (!r->compiled || gk->expanded) return false;
  char res[48];
  if (!r->k->expanded) {                        /* the reference failed at p: does the machine fail there too? */
    if (!sim_machine_runs_flat(r->k) || flat_agrees(o, g, gk, r->k, inputs, res, sizeof res) != 1) return false;
    snprintf(why, n, "sim self-check: at %s the interpreter gives %s, the machine (one task) the golden outputs",
             ir_pass_names[p], r->ran ? "other outputs" : code_or_ok(r->ran, r->s));
    return true;
  }
  int q0 = p - 1;
  while (q0 > 1 && strcmp(ir_pass_names[q0 + 1], "expand_mixed")) q0--;   /* the level expand_mixed consumes */
  for (int q = q0; q >= 1; q--) {               /* the last unexpanded level without lanes */
    Run f;
    run_level(&f, src, gk, v, ir_pass_names[q], o, ~0ull, inputs);   /* compile only */
    bool flat = f.compiled && sim_machine_runs_flat(f.k);
    bool agree = !flat || flat_agrees(o, g, gk, f.k, inputs, res, sizeof res) != 0;
    run_free(&f);
    if (!agree) {
      snprintf(why, n, "sim self-check: at %s the machine (one task) gives %s, the interpreter the golden outputs",
               ir_pass_names[q], res);
      return true;
    }
    if (flat) break;
  }
  Sim *q = sim_new(r->k, &(SimOpts){.seed = o->input_seed, .inputs = inputs, .memo = o->memo, .plain = true,
                                    .fault = o->sim_fault});
  bool ran = sim_run_machine(q, sched), bad;
  char pat[12];
  if (r->ran && ran) bad = !orc_same_outputs(r->s, r->k, q, r->k, -1, pat, sizeof pat);
  else if (r->ran) bad = !one_sided_ok(sim_diag(q)->code, sim_machine_ins(r->s), false);
  else if (ran) bad = !one_sided_ok(sim_diag(r->s)->code, sim_machine_ins(q), true);
  else bad = false;                             /* both raised something: no verdict */
  if (bad && r->ran && ran)
    snprintf(why, n, "sim self-check: at %s the machine and the plain machine give different outputs", ir_pass_names[p]);
  else if (bad)
    snprintf(why, n, "sim self-check: at %s the machine gives %s, the plain machine %s", ir_pass_names[p],
             code_or_ok(r->ran, r->s), code_or_ok(ran, q));
  sim_free(q);
  return bad;
}

/* The first pass whose output no longer behaves like the golden run, or `sim`
 * when the simulator's self-check at that pass blames the simulator. */
static void bisect(const Src *src, int v, const OrcOpts *o, Sim *g, const Kernel *gk, VarResult *vr,
                   const Sim *inputs) {
  uint64_t sched = vr->sched ? o->sched_seed : 0;
  for (int p = 1; ir_pass_names[p]; p++) {
    Run r;
    run_level(&r, src, gk, v, ir_pass_names[p], o, sched, inputs);
    char pat[12], why[128];
    bool bad = !r.compiled || !r.ran ||
               !orc_same_outputs(g, gk, r.s, r.k, axis_of(vr->mode), pat, sizeof pat);
    if (bad) {
      set(vr->pass, sizeof vr->pass, ir_pass_names[p]);
      if (sim_at_fault(src, v, o, g, gk, sched, inputs, p, &r, why, sizeof why)) {
        char was[sizeof vr->detail];
        set(vr->pass, sizeof vr->pass, "sim");
        memcpy(was, vr->detail, sizeof was);
        snprintf(vr->detail, sizeof vr->detail, "%.127s; %.70s", why, was);
      }
      run_free(&r);
      return;
    }
    run_free(&r);
  }
}

static void init_result(VarResult *vr, int v, int sched) {
  memset(vr, 0, sizeof *vr);
  vr->variant = v;
  vr->sched = sched;
  vr->mode = vopt[v].split;
  set(vr->code, sizeof vr->code, "-");
  set(vr->op, sizeof vr->op, "-");
  set(vr->pattern, sizeof vr->pattern, "-");
  set(vr->pass, sizeof vr->pass, "-");
}

/* The header line of the leading comment lines that starts with key, as
 * [*b, *e); false when there is none. */
static bool header_line(const Src *src, const char *key, const char **b, const char **e) {
  const char *p = src->text, *end = src->text + src->len;
  size_t n = strlen(key);
  while (p < end && *p == '#') {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    if ((size_t)(le - p) >= n && !memcmp(p, key, n)) {
      *b = p + n, *e = le;
      return true;
    }
    p = le + (le < end);
  }
  return false;
}

/* The next blank-separated word of [*q, e), as [*w, *q); false at the end. */
static bool next_word(const char **q, const char *e, const char **w) {
  while (*q < e && (**q == ' ' || **q == '\t' || **q == '\r')) ++*q;
  *w = *q;
  while (*q < e && **q != ' ' && **q != '\t' && **q != '\r') ++*q;
  return *q > *w;
}

/* The variant a word names up to its end or an '=': its index, or -1. */
static int word_variant(const char *w, const char *e) {
  const char *eq = memchr(w, '=', (size_t)(e - w));
  size_t n = (size_t)((eq ? eq : e) - w);
  for (int v = 0; v < ORC_NVARIANT; v++)
    if (n == strlen(orc_variants[v]) && !memcmp(w, orc_variants[v], n)) return v;
  return -1;
}

int orc_claim(const Src *src) {
  const char *q, *e, *w;
  if (!header_line(src, "# expect-compile:", &q, &e)) return -1;
  int m = 0;
  while (next_word(&q, e, &w))
    if (word_variant(w, q) >= 0) m |= 1 << word_variant(w, q);
  return m;
}

bool orc_must_refuse(const Src *src, int v, char *code, size_t nc, char *pass, size_t np) {
  const char *q, *e, *w;
  if (!header_line(src, "# expect-refuse:", &q, &e)) return false;
  while (next_word(&q, e, &w)) {
    if (word_variant(w, q) != v) continue;
    const char *eq = memchr(w, '=', (size_t)(q - w)), *c = eq ? eq + 1 : q, *colon = memchr(c, ':', (size_t)(q - c));
    snprintf(code, nc, "%.*s", (int)((colon ? colon : q) - c), c);
    snprintf(pass, np, "%.*s", colon ? (int)(q - colon - 1) : 0, colon ? colon + 1 : "");
    if (!*code) snprintf(code, nc, "-");
    if (!*pass) snprintf(pass, np, "-");
    return true;
  }
  return false;
}

/* Compile variant v once and classify its run under each schedule. claim:
 * orc_claim's mask (or -1). */
static void classify(const Src *src, int v, const OrcOpts *o, Sim *g, const Kernel *gk, VarResult vr[ORC_NSCHED],
                     OrcTimes *tm, const Sim *inputs, int claim) {
  for (int sc = 0; sc < ORC_NSCHED; sc++) init_result(&vr[sc], v, sc);
  if ((gk->explicit_split || gk->expanded) && (vopt[v].split != MODE_NONE || (gk->expanded && vopt[v].target != (int)gk->target))) {
    for (int sc = 0; sc < ORC_NSCHED; sc++) {
      vr[sc].out = OUT_UNSUPPORTED;
      set(vr[sc].code, sizeof vr[sc].code, ir_diag_name(E_EXPLICIT));
      snprintf(vr[sc].detail, sizeof vr[sc].detail, "%s",
               gk->expanded ? "the kernel is already per-core code for its own target, unsplit" : "the kernel is written with split_aiv");
    }
    return;
  }
  char want[24], want_pass[40];
  bool refuse = orc_must_refuse(src, v, want, sizeof want, want_pass, sizeof want_pass);
  Run r;
  if (o->progress) o->progress(o->ctx, v, 0);
  run_level(&r, src, gk, v, NULL, o, ~0ull, inputs);   /* compile only */
  tm->t_compile += r.compile_ms;
  for (int sc = 0; sc < ORC_NSCHED; sc++) {
    VarResult *x = &vr[sc];
    x->compile_ms = r.compile_ms;
    if (r.compiled && refuse) {                 /* a lax checker: the negative construct got through */
      x->out = OUT_ESCAPE;
      x->claimed = true;
      set(x->code, sizeof x->code, want);
      set(x->pass, sizeof x->pass, want_pass);
      snprintf(x->detail, sizeof x->detail, "compiled, but the generator wrote it to be refused with %s", want);
      continue;
    }
    if (!r.compiled) {
      const Diag *d = &r.c.diag;
      DiagCat cat = ir_diag_cat(d->code);
      x->out = cat == CAT_UNSUPPORTED ? OUT_UNSUPPORTED : cat == CAT_USER ? OUT_INVALID : OUT_REJECT;
      set(x->code, sizeof x->code, ir_diag_name(d->code));
      set(x->pass, sizeof x->pass, r.c.pass);
      if ((x->out == OUT_UNSUPPORTED || x->out == OUT_INVALID) && claim > 0 && (claim >> v & 1)) {   /* an over-strict refusal */
        x->out = OUT_REJECT;
        x->claimed = true;
      }
      if (x->out == OUT_REJECT) set(x->op, sizeof x->op, diag_op(d, &gk->body));
      snprintf(x->detail, sizeof x->detail, "%s%d:%d %.150s",
               x->claimed ? "refused, but the generator budgeted it to compile: " : "", d->loc.line, d->loc.col, d->msg);
      continue;
    }
    if (sc && vr[0].out == OUT_OK && o->random_every > 1 && (o->input_seed * 0x9E3779B97F4A7C15ull >> 40) % (uint64_t)o->random_every) {
      snprintf(x->detail, sizeof x->detail, "not run: the round-robin run was ok (random schedule sampled 1 in %d)",
               o->random_every);
      continue;
    }
    if (o->progress && sc) o->progress(o->ctx, v, sc);
    double t0 = now_ms();
    Sim *s = sim_new(r.k, &(SimOpts){.seed = o->input_seed, .inputs = inputs, .memo = o->memo, .fault = o->sim_fault});
    bool ran = r.k->expanded ? sim_run_machine(s, sc ? o->sched_seed : 0) : sim_run_reference(s);
    double t1 = now_ms();
    tm->t_sim += t1 - t0;
    bool same = ran && orc_same_outputs(g, gk, s, r.k, axis_of(x->mode), x->pattern, sizeof x->pattern);
    tm->t_compare += now_ms() - t1;
    if (!ran) {
      const Diag *d = sim_diag(s);
      x->out = d->code == R_DEADLOCK || d->code == R_STEPS ? OUT_HANG : OUT_ESCAPE;
      set(x->code, sizeof x->code, ir_diag_name(d->code));
      set(x->op, sizeof x->op, diag_op(d, &r.k->body));
      snprintf(x->detail, sizeof x->detail, "%d:%d %.180s", d->loc.line, d->loc.col, d->msg);
    } else if (!same) {
      x->out = OUT_MISCOMPILE;
      mismatch_detail(g, gk, s, r.k, x->detail, sizeof x->detail);
    } else if (r.k->unrolled_ops[0] > 2 * r.k->own_ops[0] + 64 || r.k->unrolled_ops[1] > 2 * r.k->own_ops[1] + 64) {
      int f = r.k->unrolled_ops[1] > 2 * r.k->own_ops[1] + 64;
      x->out = OUT_BLOWUP;
      set(x->code, sizeof x->code, "unroll");
      set(x->pass, sizeof x->pass, "unroll");
      snprintf(x->detail, sizeof x->detail, "after unroll %s holds %lld statements; its own ops with loops expanded: %lld",
               f ? "aiv" : "aic", (long long)r.k->unrolled_ops[f], (long long)r.k->own_ops[f]);
    } else {
      x->out = OUT_OK;
    }
    sim_free(s);
    if (o->bisect && orc_is_finding(x->out) && x->out != OUT_REJECT && x->out != OUT_BLOWUP) bisect(src, v, o, g, gk, x, inputs);
  }
  run_free(&r);
}

/* A split variant's finding that an unsplit variant (run before it) also has. */
static void same_as_unsplit(const OrcResult *res, VarResult *x) {
  if (!orc_is_finding(x->out)) return;
  for (int i = 0; i < res->n; i++) {
    const VarResult *u = &res->r[i];
    if (vopt[u->variant].split != MODE_NONE || u->out != x->out || strcmp(u->code, x->code) || strcmp(u->pass, x->pass))
      continue;
    x->same_as = u->variant + 1;
    x->mode = u->mode;
    set(x->op, sizeof x->op, u->op);
    set(x->pattern, sizeof x->pattern, u->pattern);
    return;
  }
}

void orc_check(const Src *src, const OrcOpts *oo, OrcResult *res) {
  memset(res, 0, sizeof *res);
  OrcOpts local = *oo, *o = &local;
  local.memo = sim_memo_new();                  /* matmul results shared by this kernel's runs */
  double t0 = now_ms();
  Comp c = {.A = ir_arena_new(), .src = *src, .o = {.split = -1, .target = -1}};
  Kernel *k = ir_front(&c);
  Sim *g = NULL, *g0 = NULL;                    /* g0: the inputs, generated once, never run */
  if (!k) {
    res->invalid = true;
    res->why = c.diag;
  } else {
    g0 = sim_new(k, &(SimOpts){.seed = o->input_seed, .full_inputs = o->full_inputs});
    g = sim_new(k, &(SimOpts){.inputs = g0, .memo = o->memo, .origins = true, .fault = o->sim_fault});
    if (!(k->expanded ? sim_run_machine(g, 0) : sim_run_reference(g))) {   /* lowered text is its own golden run */
      const Diag *d = sim_diag(g);
      if (ir_diag_cat(d->code) == CAT_INTERNAL) {   /* the simulator disagrees with itself: its bug */
        VarResult *vr = &res->r[res->n++];
        init_result(vr, 0, 0);
        vr->out = OUT_ESCAPE;
        set(vr->code, sizeof vr->code, ir_diag_name(d->code));
        set(vr->op, sizeof vr->op, diag_op(d, &k->body));
        set(vr->pass, sizeof vr->pass, "sim");
        snprintf(vr->detail, sizeof vr->detail, "golden run %d:%d %.180s", d->loc.line, d->loc.col, d->msg);
        res->finding = true;
        if (o->report) o->report(o->ctx, vr);
      } else {
        res->invalid = true;
        res->why = *d;
      }
    }
  }
  res->t.t_golden = now_ms() - t0;
  res->claim = orc_claim(src);
  bool self = res->finding;                     /* the golden run's own (R-SELF-CHECK): no variant is judged */
  for (int v = 0; v < ORC_NVARIANT && !res->invalid && !self; v++) {
    VarResult *vr = &res->r[res->n];
    classify(src, v, o, g, k, vr, &res->t, g0, res->claim);
    for (int sc = 0; sc < ORC_NSCHED && vopt[v].split != MODE_NONE; sc++)
      same_as_unsplit(res, &vr[sc]);
    for (int sc = 0; sc < ORC_NSCHED; sc++, res->n++) {
      res->finding |= orc_is_finding(vr[sc].out);
      if (o->report) o->report(o->ctx, &vr[sc]);
    }
  }
  sim_free(g);
  sim_free(g0);
  sim_memo_free(local.memo);
  ir_arena_free(c.A);
}

const char *orc_mode_name(int mode) { return mode == MODE_NONE ? "none" : MODE_AXIS(mode) ? "left_right" : "up_down"; }
const char *orc_variant_name(const VarResult *r) { return r->backend ? r->vname : orc_variants[r->variant % ORC_NVARIANT]; }
const char *orc_variant_mode(int v) { return orc_mode_name(vopt[v % ORC_NVARIANT].split); }

void orc_same_as_unsplit(VarResult *r, int n) {
  for (int i = 0; i < n; i++) {
    VarResult *x = &r[i];
    if (x->mode == MODE_NONE || !orc_is_finding(x->out)) continue;
    for (int j = 0; j < n; j++) {
      const VarResult *y = &r[j];
      if (y->mode == MODE_NONE && y->check == x->check && y->out == x->out && !strcmp(y->code, x->code) &&
          !strcmp(y->op, x->op) && !strcmp(y->pass, x->pass)) {
        x->same_as = 1 + y->variant;
        x->mode = MODE_NONE;
        set(x->pattern, sizeof x->pattern, "-");
        break;
      }
    }
  }
}

void orc_signature(const VarResult *r, char *buf, size_t n) {
  const char *mode = orc_mode_name(r->mode);
  snprintf(buf, n, "%s|%s%s|%s|%s|%s|%s", orc_outcome_name(r->out), r->backend == 2 ? "pypto:" : r->backend ? "ptoas:" : "", mode, r->code, r->op,
           r->pass, r->pattern);
}
