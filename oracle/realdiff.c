/* realdiff.c — the real toolchain as a second back end (DESIGN section 13).
 * Consumes kernels (text, input seed, defects); produces a VarResult per real
 * variant: ptoas:none@a3, ptoas:none@a5, and the kernel's split modes on its
 * own target. Each variant is compiled by ptoc through verify_backend, printed
 * as PTO-AS (emit_pto.c), and handed to real.c, which runs ptoas, compiles
 * the C++ against pto-isa's CPU simulation and runs it on the golden run's
 * inputs. The outputs are compared bit for bit with the golden run and
 * classified: reject (ptoas refused what ptoc's verifier accepted), crash
 * (ptoas or the C++ compiler died, the C++ does not compile, or the program
 * trapped), hang (time limit), miscompile (outputs differ). Codes and ops are
 * classes of the tools' messages with numbers and names taken out. */
#include "orc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct {
  int split, target;                            /* target -1: the kernel's own */
  const char *mode;
} rv[ORC_NREAL] = {{MODE_NONE, TGT_A2A3, "none"}, {MODE_NONE, TGT_A5, "none"}, {MODE_UD, -1, "up_down"},
                   {MODE_LR, -1, "left_right"}};

static double ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int orc_real_variant(const char *name) {
  if (!name || strncmp(name, "ptoas:", 6)) return -1;
  const char *m = name + 6, *at = strchr(m, '@');
  if (!at || (strcmp(at, "@a3") && strcmp(at, "@a5"))) return -1;
  size_t n = (size_t)(at - m);
  if (n == 4 && !strncmp(m, "none", 4)) return strcmp(at, "@a5") ? 0 : 1;
  for (int v = 2; v < ORC_NREAL; v++)
    if (strlen(rv[v].mode) == n && !strncmp(m, rv[v].mode, n)) return v;
  return -1;
}

void orc_msg_class(const char *m, char *out, size_t n) {
  size_t o = 0;
  bool dash = false;
  for (const char *p = m; *p && o + 1 < n; p++) {
    if (*p == '\'' || *p == '"' || *p == '`') {           /* a quoted name */
      char q = *p;
      const char *e = strchr(p + 1, q);
      if (!e) break;
      p = e;
      continue;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
      if (dash && o) out[o++] = '-';
      dash = false;
      while ((isalnum((unsigned char)*p) || *p == '_') && o + 1 < n) out[o++] = *p++;
      p--;
      continue;
    }
    dash = true;                                /* digits, punctuation and spaces separate words */
  }
  out[o] = 0;
  if (!o) snprintf(out, n, "-");
}

void orc_ptoas_msg(const char *m, char *op, size_t on, char *cls, size_t cn) {
  const char *q = strstr(m, "'pto.");
  if (q) {
    const char *e = strchr(q + 1, '\'');
    snprintf(op, on, "%.*s", e ? (int)(e - q - 5) : 0, q + 5);
    const char *rest = e ? e + 1 : q;
    if (!strncmp(rest, " op ", 4)) rest += 4;
    orc_msg_class(rest, cls, cn);
  } else {
    const char *e = strstr(m, "error:");
    snprintf(op, on, "ptoas");
    orc_msg_class(e ? e + 6 : m, cls, cn);
  }
}

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s && *s ? s : "-"); }

static void init_var(VarResult *x, int v, Target own) {
  memset(x, 0, sizeof *x);
  x->variant = v;
  x->backend = 1;
  x->mode = rv[v].split;
  int tgt = rv[v].target >= 0 ? rv[v].target : (int)own;
  snprintf(x->vname, sizeof x->vname, "ptoas:%s@%s", rv[v].mode, tgt == TGT_A5 ? "a5" : "a3");
  set(x->code, sizeof x->code, "-");
  set(x->op, sizeof x->op, "-");
  set(x->pattern, sizeof x->pattern, "-");
  set(x->pass, sizeof x->pass, "-");
}

const char *orc_real_ctype(Dtype d) {
  static const char *const n[DT_N] = {"float", "half", "int32_t", "bfloat16_t", "int8_t", "int16_t"};   /* Dtype order */
  return n[d];
}

typedef struct {
  RealCase *c;
  Comp comp;                                    /* the case's front end, golden run and inputs */
  Kernel *k;
  Sim *g, *g0;
  Arena *A;                                     /* the variants' compilations */
} Case;

typedef struct {
  int ci, vi;                                   /* case and variant */
  RealParam *p;
} JobRef;

/* What the pops of one compiled variant delivered on the model's machine, per
 * statement and lane: a shape seen every time is what the consumer declares. */
typedef struct {
  const Stmt *st;
  int lane, vr, vc;
  bool varies;
} PopSeen;
typedef struct {
  PopSeen *v;
  int n, cap;
} Pops;

static void on_pop(void *ctx, const Stmt *st, int lane, int vr, int vc) {
  Pops *p = ctx;
  for (int i = 0; i < p->n; i++)
    if (p->v[i].st == st && p->v[i].lane == lane) {
      p->v[i].varies |= p->v[i].vr != vr || p->v[i].vc != vc;
      return;
    }
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 32;
    PopSeen *q = realloc(p->v, sizeof *q * (size_t)p->cap);
    if (!q) die("out of memory");
    p->v = q;
  }
  p->v[p->n++] = (PopSeen){st, lane, vr, vc, false};
}

static bool pop_valid(void *ctx, const Stmt *st, int lane, int *vr, int *vc) {
  const Pops *p = ctx;
  for (int i = 0; i < p->n; i++)
    if (p->v[i].st == st && p->v[i].lane == lane && !p->v[i].varies) {
      *vr = p->v[i].vr, *vc = p->v[i].vc;
      return true;
    }
  return false;
}

/* Compile variant v of case cs; on success fill job j (the caller runs it). */
static bool prepare(Case *cs, int v, VarResult *x, RealJob *j, RealParam **pp, RealTimes *tm) {
  double t0 = ms();
  Comp c = {.A = cs->A, .src = cs->comp.src,
            .o = {.split = rv[v].split, .target = rv[v].target, .bugs = cs->c->bugs}};
  Kernel *k = pass_pipeline_from(&c, cs->k, &(PipeOpts){0});
  const char *text = NULL;
  if (k) {
    /* The model's machine runs the variant once to learn what each pop delivers
     * (the model's pipes carry valid shapes, real ones do not: docs/real-backend.md). */
    Pops pops = {0};
    Sim *ms = sim_new(k, &(SimOpts){.inputs = cs->g0, .on_pop = on_pop, .hook_ctx = &pops});
    sim_run_machine(ms, 0);
    sim_free(ms);
    PtoNames nm = {ir_fmt(c.A, "%s_aic", k->name), ir_fmt(c.A, "%s_aiv", k->name), pop_valid, &pops};
    text = ir_emit_pto(&c, k, &nm);
    free(pops.v);
    if (text) {
      const Stmt *aic = ir_func(k, FN_AIC), *aiv = ir_func(k, FN_AIV);
      j->pto = text;
      j->arch = k->target == TGT_A5 ? "a5" : "a3";
      j->fn_cube = aic && aic->body.n ? nm.aic : NULL;
      j->fn_vec = aiv && aiv->body.n ? nm.aiv : NULL;
      j->lanes = ir_vector_lanes(k);
      j->slot_bytes = k->target == TGT_A5 ? 0 : PTO_SLOT_BYTES;
      j->ffts_cube = j->fn_cube && ir_pto_ffts(k, aic);
      j->ffts_vec = j->fn_vec && ir_pto_ffts(k, aiv);
      j->np = cs->k->np;
      RealParam *p = ir_alloc(cs->A, sizeof *p * (size_t)(j->np ? j->np : 1));
      for (int i = 0; i < j->np; i++) {
        const Var *T = cs->k->params[i];
        Gm *gm = sim_gm(cs->g0, T);
        p[i].ctype = orc_real_ctype(T->dt);
        p[i].bytes = (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(T->dt);
        p[i].init = gm->bytes;
      }
      j->p = p;
      *pp = p;
    }
  }
  tm->emit += ms() - t0;
  if (text) return true;
  /* the variant never reaches the real tools: what ptoc said of it */
  const Diag *d = &c.diag;
  DiagCat cat = ir_diag_cat(d->code);
  x->out = cat == CAT_USER ? OUT_INVALID : OUT_UNSUPPORTED;
  set(x->code, sizeof x->code, ir_diag_name(d->code));
  set(x->pass, sizeof x->pass, c.pass);
  snprintf(x->detail, sizeof x->detail, "%s%d:%d %.170s", cat == CAT_INTERNAL ? "the model compiler rejects it: " : "",
           d->loc.line, d->loc.col, d->msg);
  return false;
}

void orc_first_diff(Sim *g, const Kernel *gk, Sim *s, char *out, size_t n) {
  long bad = 0;
  char first[160] = "";
  for (int i = 0; i < gk->np; i++) {
    const Var *T = gk->params[i];
    if (T->dir == DIR_IN) continue;
    Gm *a = sim_gm(g, T), *b = sim_gm(s, T);
    for (int r = 0; r < a->rows; r++)
      for (int c = 0; c < a->cols; c++) {
        uint32_t x = sim_gm_bits(a, r, c), y = sim_gm_bits(b, r, c);
        if (x == y) continue;
        if (!bad++) {
          Elem ex = sim_gm_get(a, r, c), ac = sim_gm_get(b, r, c);
          if (ir_dtype_int(T->dt)) snprintf(first, sizeof first, "%s[%d,%d] expected %d got %d", T->name, r, c, ex.i, ac.i);
          else snprintf(first, sizeof first, "%s[%d,%d] expected %.9g (0x%08x) got %.9g (0x%08x)", T->name, r, c, ex.f, x, ac.f, y);
        }
      }
  }
  snprintf(out, n, "outputs differ from the golden run in %ld elements; first %s", bad, first);
}

void orc_real_classify(const Kernel *gk, Sim *g, Sim *g0, VarResult *x, const RealJob *j, unsigned char *const *outs,
                       double tol, double *t_compare) {
  char op[48], cls[48];
  snprintf(x->detail, sizeof x->detail, "%.190s", j->msg[0] ? j->msg : "");
  switch (j->st) {
  case RS_OK: break;
  case RS_REJECT:
    x->out = OUT_REJECT;
    orc_ptoas_msg(j->msg, op, sizeof op, cls, sizeof cls);
    set(x->code, sizeof x->code, op);
    set(x->op, sizeof x->op, cls);
    set(x->pass, sizeof x->pass, "ptoas");
    return;
  case RS_PTOAS_CRASH:
    x->out = OUT_CRASH;
    orc_ptoas_msg(j->msg, op, sizeof op, cls, sizeof cls);
    set(x->code, sizeof x->code, "ptoas-crash");
    set(x->op, sizeof x->op, cls);
    set(x->pass, sizeof x->pass, "ptoas");
    return;
  case RS_CXX_ERROR:
  case RS_CXX_CRASH: {
    /* pto-isa's CPU simulation has no cross-core flags: GM fences cannot run there (docs/real-backend.md) */
    if (strstr(j->msg, "ffts") || strstr(j->msg, "wait_flag_dev") || strstr(j->msg, "intra_block")) {   /* set_ and wait_intra_block (a5) */
      x->out = OUT_UNSUPPORTED;
      set(x->code, sizeof x->code, "R-SIM-FENCE");
      set(x->pass, sizeof x->pass, "cxx");
      return;
    }
    x->out = OUT_CRASH;
    const char *e = strstr(j->msg, "error:");
    orc_msg_class(e ? e + 6 : j->msg, cls, sizeof cls);
    set(x->code, sizeof x->code, j->st == RS_CXX_ERROR ? "cxx-error" : "cxx-crash");
    set(x->op, sizeof x->op, cls);
    set(x->pass, sizeof x->pass, "cxx");
    return;
  }
  case RS_RUN_CRASH:
    /* pto-isa's CPU simulation asserts on a zero divisor, where the golden run (IEEE) gives inf or NaN:
     * a documented limitation of the simulation, not a finding (docs/real-backend.md) */
    if (strstr(j->msg, "Divider cannot be equal to zero")) {
      x->out = OUT_UNSUPPORTED;
      set(x->code, sizeof x->code, "R-SIM-DIV0");
      set(x->pass, sizeof x->pass, "run");
      return;
    }
    x->out = OUT_CRASH;
    orc_msg_class(j->msg, cls, sizeof cls);
    set(x->code, sizeof x->code, "run-crash");
    set(x->op, sizeof x->op, cls);
    set(x->pass, sizeof x->pass, "run");
    return;
  case RS_RUN_HANG:
    x->out = OUT_HANG;
    set(x->code, sizeof x->code, "run-hang");
    set(x->pass, sizeof x->pass, "run");
    return;
  default:
    x->out = OUT_TOOLERR;
    set(x->code, sizeof x->code, "tool-error");
    return;
  }
  /* compare with the golden run: a simulation of the front-end kernel holding the real outputs */
  double t0 = ms();
  Sim *s = sim_new(gk, &(SimOpts){.inputs = g0});
  for (int i = 0; i < gk->np; i++) {
    Gm *gm = sim_gm(s, gk->params[i]);
    if (outs[i]) memcpy(gm->bytes, outs[i], (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(gk->params[i]->dt));
  }
  int axis = x->mode == MODE_NONE ? -1 : MODE_AXIS(x->mode);
  if (orc_compare_outputs(g, gk, s, gk, NULL, tol, axis, x->pattern, sizeof x->pattern)) {
    x->out = OUT_OK;
  } else {
    x->out = OUT_MISCOMPILE;
    set(x->pass, sizeof x->pass, "run");
    orc_first_diff(g, gk, s, x->detail, sizeof x->detail);
  }
  sim_free(s);
  *t_compare += ms() - t0;
}

static void case_close(Case *c) {
  sim_free(c->g);
  sim_free(c->g0);
  ir_arena_free(c->comp.A);
  ir_arena_free(c->A);
}

/* The first wrong tile of every miscompile among jobs (probe.c): each one's
 * probe kernel through the same variant, all in one more orc_real_run; the
 * op it blames goes into the signature, the statement into the detail. */
static void probe_round(const RealTools *t, Case *cs, const JobRef *ref, int nj, const RealOpts *o, RealTimes *tm) {
  int m = 0;
  for (int q = 0; q < nj; q++) m += cs[ref[q].ci].c->r[ref[q].vi].out == OUT_MISCOMPILE;
  if (!m) return;
  Case *pc = calloc((size_t)m, sizeof *pc);
  OrcProbe *pr = calloc((size_t)m, sizeof *pr);
  RealJob *pj = calloc((size_t)m, sizeof *pj);
  VarResult **px = calloc((size_t)m, sizeof *px);
  if (!pc || !pr || !pj || !px) die("out of memory");
  int np = 0;
  for (int q = 0; q < nj; q++) {
    Case *c = cs + ref[q].ci;
    VarResult *x = &c->c->r[ref[q].vi];
    if (x->out != OUT_MISCOMPILE) continue;
    Case *p = pc + np;
    *p = (Case){.c = c->c, .A = ir_arena_new()};
    p->comp.A = ir_arena_new();
    RealParam *pp = NULL;
    VarResult scratch;
    init_var(&scratch, x->variant, c->k->target);
    double t0 = ms();
    bool ok = orc_probe_build(p->A, &c->comp.src, c->k, rv[x->variant].split, rv[x->variant].target, &pr[np]);
    if (ok) {
      p->comp = (Comp){.A = p->comp.A, .src = pr[np].src, .o = {.split = -1, .target = -1}};
      ok = (p->k = ir_front(&p->comp)) != NULL;
    }
    if (ok) {
      p->g0 = sim_new(p->k, &(SimOpts){.seed = c->c->input_seed});
      p->g = sim_new(p->k, &(SimOpts){.inputs = p->g0});
      ok = sim_run_reference(p->g);
    }
    tm->emit += ms() - t0;
    if (ok && prepare(p, x->variant, &scratch, &pj[np], &pp, tm)) {
      px[np++] = x;
      continue;
    }
    case_close(p);
  }
  orc_real_run(t, pj, np, o);
  for (int i = 0; i < np; i++) {
    VarResult *x = px[i];
    tm->ptoas += pj[i].t_ptoas, tm->cxx += pj[i].t_cxx, tm->run += pj[i].t_run;
    tm->probes++;
    if (pj[i].st == RS_OK) {
      unsigned char **outs = calloc((size_t)pj[i].np + 1, sizeof *outs);
      if (!outs) die("out of memory");
      for (int k = 0; k < pj[i].np; k++) outs[k] = pj[i].p[k].out;
      int b = orc_probe_blame(&pr[i], pc[i].k, pc[i].g, outs);
      free(outs);
      size_t len = strlen(x->detail);
      if (b >= 0) {
        set(x->op, sizeof x->op, pr[i].blame[b]);
        snprintf(x->detail + len, sizeof x->detail - len, "; first wrong tile: %s", pr[i].what[b]);
      } else if (b == ORC_PROBE_STORE) {
        set(x->op, sizeof x->op, "store");
        snprintf(x->detail + len, sizeof x->detail - len, "; every tile right, a store wrong");
      }
    }
    for (int k = 0; k < pj[i].np; k++) free(pj[i].p[k].out);
    case_close(pc + i);
  }
  free(pc);
  free(pr);
  free(pj);
  free(px);
}

/* The front end of rc's kernel, its golden run and its inputs; false (rc->invalid
 * and why set) when the kernel has none. case_close releases it either way. */
static bool case_open(Case *c, RealCase *rc) {
  c->c = rc;
  c->A = ir_arena_new();
  c->comp = (Comp){.A = ir_arena_new(), .src = *rc->src, .o = {.split = -1, .target = -1}};
  c->k = ir_front(&c->comp);
  if (!c->k) {
    rc->invalid = true;
    rc->why = c->comp.diag;
    return false;
  }
  c->g0 = sim_new(c->k, &(SimOpts){.seed = rc->input_seed});
  c->g = sim_new(c->k, &(SimOpts){.inputs = c->g0, .origins = true});
  if (!(c->k->expanded ? sim_run_machine(c->g, 0) : sim_run_reference(c->g))) {
    rc->invalid = true;
    rc->why = *sim_diag(c->g);
    return false;
  }
  return true;
}

/* Variant v of c's kernel cannot run on the real tools at all: x says why. */
static bool never_runs(const Case *c, int v, VarResult *x) {
  bool bf16 = false;
  for (int i = 0; i < c->k->nvars; i++) bf16 |= c->k->vars[i]->dt == DT_BF16;
  if (bf16) {                                   /* docs/real-backend.md 6: no bfloat16 in the simulation */
    x->out = OUT_UNSUPPORTED;
    set(x->code, sizeof x->code, "R-SIM-BF16");
    set(x->pass, sizeof x->pass, "cxx");
    snprintf(x->detail, sizeof x->detail, "pto-isa's CPU simulation built as C++20 makes bfloat16_t a _Float16");
    return true;
  }
  if ((c->k->explicit_split || c->k->expanded) && rv[v].split != MODE_NONE) {
    x->out = OUT_UNSUPPORTED;
    set(x->code, sizeof x->code, ir_diag_name(E_EXPLICIT));
    snprintf(x->detail, sizeof x->detail, "the kernel is written with split_aiv");
    return true;
  }
  return false;
}

typedef struct {
  RealCase rc;
  Case cs;
  RealTimes tm;
} Prep;

bool orc_real_prepare(const Src *src, uint64_t seed, uint32_t bugs, int variant, OrcRealPrep *p) {
  memset(p, 0, sizeof *p);
  if (variant < -1 || variant >= ORC_NREAL) {
    snprintf(p->why, sizeof p->why, "no real variant %d", variant);
    return false;
  }
  Prep *q = calloc(1, sizeof *q);
  if (!q) die("out of memory");
  p->priv = q;
  q->rc = (RealCase){.src = src, .input_seed = seed, .bugs = bugs, .only = variant};
  if (!case_open(&q->cs, &q->rc)) {
    snprintf(p->why, sizeof p->why, "the kernel is invalid: %s %.200s", ir_diag_name(q->rc.why.code), q->rc.why.msg);
    return false;
  }
  VarResult x;
  if (variant >= 0) init_var(&x, variant, q->cs.k->target);
  RealParam *pp = NULL;
  if (variant >= 0 && (never_runs(&q->cs, variant, &x) || !prepare(&q->cs, variant, &x, &p->job, &pp, &q->tm))) {
    snprintf(p->why, sizeof p->why, "the variant never reaches ptoas: %s %s: %.200s", orc_outcome_name(x.out), x.code,
             x.detail);
    return false;
  }
  const Kernel *k = q->cs.k;
  p->nt = k->np;
  p->t = ir_alloc(q->cs.A, sizeof *p->t * (size_t)(k->np ? k->np : 1));
  for (int i = 0; i < k->np; i++) {
    const Var *T = k->params[i];
    Gm *gm = sim_gm(q->cs.g, T);
    p->t[i] = (OrcTensor){T->name, T->dt, gm->rows, gm->cols, T->dir != DIR_IN, sim_gm(q->cs.g0, T)->bytes, gm->bytes};
  }
  return true;
}

void orc_real_prepare_free(OrcRealPrep *p) {
  Prep *q = p->priv;
  if (q) case_close(&q->cs);
  free(q);
  p->priv = NULL;
}

void orc_real_check(const RealTools *t, RealCase *cases, int n, const RealOpts *o, RealTimes *tm) {
  RealTimes local = {0};
  if (!tm) tm = &local;
  Case *cs = calloc((size_t)(n ? n : 1), sizeof *cs);
  RealJob *jobs = calloc((size_t)n * ORC_NREAL + 1, sizeof *jobs);
  JobRef *ref = calloc((size_t)n * ORC_NREAL + 1, sizeof *ref);
  if (!cs || !jobs || !ref) die("out of memory");
  int nj = 0;
  for (int i = 0; i < n; i++) {
    RealCase *rc = cases + i;
    Case *c = cs + i;
    rc->n = 0, rc->invalid = rc->finding = rc->toolerr = false;
    double t0 = ms();
    if (!case_open(c, rc)) continue;
    tm->emit += ms() - t0;
    for (int v = 0; v < ORC_NREAL; v++) {
      if (rc->only >= 0 && v != rc->only) continue;
      VarResult *x = &rc->r[rc->n++];
      init_var(x, v, c->k->target);
      if (never_runs(c, v, x)) continue;
      RealParam *p = NULL;
      if (!prepare(c, v, x, &jobs[nj], &p, tm)) continue;
      ref[nj] = (JobRef){i, rc->n - 1, p};
      nj++;
    }
  }
  orc_real_run(t, jobs, nj, o);
  tm->jobs += nj;
  for (int q = 0; q < nj; q++) {
    Case *c = cs + ref[q].ci;
    VarResult *x = &c->c->r[ref[q].vi];
    tm->ptoas += jobs[q].t_ptoas, tm->cxx += jobs[q].t_cxx, tm->run += jobs[q].t_run;
    tm->cxx_jobs += jobs[q].cxx_runs > 0, tm->cxx_runs += jobs[q].cxx_runs;
    unsigned char **outs = calloc((size_t)jobs[q].np + 1, sizeof *outs);
    if (!outs) die("out of memory");
    for (int i = 0; i < jobs[q].np; i++) outs[i] = jobs[q].p[i].out;
    orc_real_classify(c->k, c->g, c->g0, x, &jobs[q], outs, 0, &tm->compare);
    free(outs);
    for (int i = 0; i < jobs[q].np; i++) free(jobs[q].p[i].out);
  }
  probe_round(t, cs, ref, nj, o, tm);
  for (int i = 0; i < n; i++) {
    RealCase *rc = cases + i;
    orc_same_as_unsplit(rc->r, rc->n);
    for (int v = 0; v < rc->n; v++) {
      rc->finding |= orc_is_finding(rc->r[v].out);
      rc->toolerr |= rc->r[v].out == OUT_TOOLERR;
    }
    case_close(cs + i);
  }
  free(cs);
  free(jobs);
  free(ref);
}
