/* replay.c — one kernel's verdict as a set of signatures. Consumes a kernel's
 * text, the defects switched on and the oracle's seeds; produces an FzVerdict:
 * invalid or not, and the distinct signatures (orc_signature) of its findings,
 * in the order the oracle reports them. fz_verdict runs the oracle in this
 * process (the bench's trial workers, already forked, use it); fz_replay runs
 * it in a forked child with a watchdog, so a crash of the compiler or the
 * simulator becomes a `crash|MODE|SIGNAL|-|-|-` signature and a kernel that
 * runs past the watchdog a `hang|MODE|watchdog|-|-|-` one (the signatures
 * `ptofuzz run` records for a dead or hung worker; MODE is the variant in
 * flight). Used by pto-check, `ptofuzz bench defects` and `reduce`; also the
 * clock and the reaping of hung workers that campaigns and the bench share.
 * fz_real_replay does the same for the real back end (orc_real_check: ptoc,
 * ptoas, pto-isa's CPU simulation): a batch of kernels in one child, whose
 * verdicts come back through shared memory; a dead or hung batch is checked
 * again kernel by kernel, so only the kernel at fault is lost. */
#include "fz.h"
#include "orc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


void fz_verdict_add(FzVerdict *v, const char *sig) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->sig[i], sig)) return;
  if (v->n < FZ_MAXSIG) snprintf(v->sig[v->n++], sizeof v->sig[0], "%s", sig);
  v->finding = true;
}

bool fz_verdict_has(const FzVerdict *v, const char *sig) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->sig[i], sig)) return true;
  return false;
}

void fz_verdict_lost(FzVerdict *v, int variant, bool hung, int status) {
  char sig[FZ_SIGLEN];
  const char *code = hung ? "watchdog" : WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit";
  snprintf(sig, sizeof sig, "%s|%s|%s|-|-|-", hung ? "hang" : "crash", orc_variant_mode(variant), code);
  fz_verdict_add(v, sig);
}

void fz_verdict(const FzReplay *r, FzVerdict *v) {
  memset(v, 0, sizeof *v);
  OrcOpts oo = {.bugs = r->bugs, .input_seed = r->input_seed, .sched_seed = r->sched_seed, .bisect = true,
                .random_every = r->random_every, .full_inputs = r->full_inputs,
                .progress = r->progress, .ctx = r->ctx};
  OrcResult res;
  orc_check(&(Src){r->name ? r->name : "kernel", r->text, r->len}, &oo, &res);
  if (res.invalid) {
    v->invalid = true;
    snprintf(v->why, sizeof v->why, "%s at %d:%d: %s", ir_diag_name(res.why.code), res.why.loc.line, res.why.loc.col,
             res.why.msg);
    return;
  }
  for (int i = 0; i < res.n; i++) {
    if (!orc_is_finding(res.r[i].out)) continue;
    char sig[FZ_SIGLEN];
    orc_signature(&res.r[i], sig, sizeof sig);
    int had = v->n;
    fz_verdict_add(v, sig);
    if (v->n > had) snprintf(v->detail[had], sizeof v->detail[had], "%s", res.r[i].detail);
  }
}

/* Shared between fz_replay and its child. */
typedef struct {
  volatile int variant, sched;
  volatile int done;
  FzVerdict v;
} Box;

static void note(void *ctx, int variant, int sched) {
  Box *s = ctx;
  s->variant = variant;
  s->sched = sched;
}

double fz_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool fz_reap(pid_t pid, bool busy, double started, int *st, bool *hung) {
  pid_t r = waitpid(pid, st, WNOHANG);
  *hung = !r && busy && fz_now() - started > FZ_HANG_SECONDS;
  if (*hung) {
    kill(pid, SIGKILL);
    waitpid(pid, st, 0);
    return true;
  }
  return r == pid;
}

typedef struct {
  const FzReplay *r;
  Box *box;
} ReplayJob;

static void replay_child(void *ctx) {
  ReplayJob *j = ctx;
  int null = j->r->quiet ? open("/dev/null", O_WRONLY) : -1;   /* a candidate's crash message is noise */
  if (null >= 0) dup2(null, 1), dup2(null, 2), close(null);
  FzReplay local = *j->r;
  local.progress = note;
  local.ctx = j->box;
  fz_verdict(&local, &j->box->v);
  j->box->done = 1;
}

void fz_replay(const FzReplay *r, double timeout_s, FzVerdict *v) {
  Box *s = fz_shared(sizeof *s);
  FzChild c = {.timeout_s = timeout_s};
  if (fz_in_child(replay_child, &(ReplayJob){r, s}, &c) && s->done) {
    *v = s->v;
  } else {
    memset(v, 0, sizeof *v);
    if (s->done) *v = s->v;                     /* died after its verdict: keep what it found */
    if (c.stopped) snprintf(v->why, sizeof v->why, "stopped by SIG%s", sigabbrev_np(c.stopped));
    else fz_verdict_lost(v, s->variant, c.hung, c.st);
  }
  fz_shared_free(s, sizeof *s);
}

/* ---- the real back end ------------------------------------------------------------ */

_Static_assert((int)FZ_NREAL >= (int)ORC_NREAL && (int)FZ_NREAL >= (int)ORC_PYPTO_MAXR,
               "FzRealCase holds every result of either real back end");

struct FzReal {
  RealTools t;
  bool have_t;                                  /* the PyPTO back end: check (c) can run */
  RealOpts o;
  PyDrv *py;                                    /* the PyPTO back end's driver, else NULL */
};

FzReal *fz_real_open(const char *ptoas, const char *isa, int jobs, char *why, size_t n) {
  FzReal *r = calloc(1, sizeof *r);
  if (!r) die("out of memory");
  if (!orc_real_find(&r->t, ptoas, isa)) {
    snprintf(why, n, "%s", r->t.why);
    free(r);
    return NULL;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  r->o.jobs = jobs > 0 ? jobs : cpus > 0 ? (int)cpus : 1;
  return r;
}

FzReal *fz_pypto_open(const char *dir, const char *ptoas, const char *isa, int jobs, double timeout_s, char *why,
                      size_t n) {
  PyptoBuild b;
  if (orc_pypto_builds(dir, &b, 1, why, n) != 1) return NULL;
  FzReal *r = calloc(1, sizeof *r);
  if (!r) die("out of memory");
  if (!(r->py = orc_pypto_open(&b, timeout_s, why, n))) {
    free(r);
    return NULL;
  }
  r->have_t = orc_real_find(&r->t, ptoas, isa);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  r->o.jobs = jobs > 0 ? jobs : cpus > 0 ? (int)cpus : 1;
  return r;
}

const char *fz_pypto_commit(const FzReal *t) { return t && t->py ? orc_pypto_build(t->py)->commit : NULL; }

void fz_real_free(FzReal *t) {
  if (t) orc_pypto_close(t->py);
  free(t);
}
const char *fz_real_version(const FzReal *t) { return t->t.version; }

/* The verdict of one case from the results of either real back end. */
static void real_verdict(bool invalid, const Diag *why, const VarResult *r, int n, FzRealCase *c) {
  memset(&c->v, 0, sizeof c->v);
  c->clean = c->toolerr = c->lost = false;
  c->n = 0;
  if (invalid) {
    c->v.invalid = true;
    snprintf(c->v.why, sizeof c->v.why, "%s at %d:%d: %s", ir_diag_name(why->code), why->loc.line, why->loc.col,
             why->msg);
    return;
  }
  bool clean = true;
  for (int i = 0; i < n && c->n < FZ_NREAL; i++) {
    const VarResult *x = &r[i];
    FzRealVar *w = &c->var[c->n++];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", orc_variant_name(x));
    w->check = x->check;
    snprintf(w->outcome, sizeof w->outcome, "%s", orc_outcome_name(x->out));
    snprintf(w->code, sizeof w->code, "%s", x->code);
    snprintf(w->detail, sizeof w->detail, "%s", x->detail);
    clean &= x->out == OUT_OK || x->out == OUT_UNSUPPORTED;
    c->toolerr |= x->out == OUT_TOOLERR;
    if (!orc_is_finding(x->out)) continue;
    orc_signature(x, w->sig, sizeof w->sig);
    fz_verdict_add(&c->v, w->sig);
  }
  c->clean = clean;
}

typedef struct {
  const FzReal *t;
  const FzRealCase *in;
  FzRealCase *out;
  int n;
  volatile int *done;
} BatchJob;

static void real_child(void *ctx) {
  BatchJob *j = ctx;
  dup2(2, 1);                                   /* nothing may reach the parent's stdout (TAP) */
  int n = j->n;
  Src *src = calloc((size_t)n, sizeof *src);
  RealCase *rc = calloc((size_t)n, sizeof *rc);
  if (!src || !rc) _exit(2);
  for (int i = 0; i < n; i++) {
    const FzRealCase *c = &j->in[i];
    src[i] = (Src){c->name ? c->name : "kernel", c->text, c->len};
    rc[i] = (RealCase){.src = &src[i], .input_seed = c->input_seed, .bugs = c->bugs,
                       .only = c->only ? orc_real_variant(c->only) : -1};
  }
  orc_real_check(&j->t->t, rc, n, &j->t->o, NULL);
  if (orc_stop_pending()) _exit(3);             /* stopped: its tools were killed, the verdicts are not */
  for (int i = 0; i < n; i++) real_verdict(rc[i].invalid, &rc[i].why, rc[i].r, rc[i].n, &j->out[i]);
  *j->done = 1;
}

/* Cases c[0..n) in one orc_real_check, in a forked child writing the verdicts
 * to shared memory. False when the child died, hung or was stopped (*how says
 * which; *stopped the signal). */
static bool real_batch(const FzReal *t, FzRealCase *c, int n, double timeout_s, char *how, size_t hn, int *stopped) {
  size_t bytes = sizeof(FzRealCase) * (size_t)n + sizeof(int);
  FzRealCase *out = fz_shared(bytes);
  volatile int *done = (int *)(out + n);
  memcpy(out, c, sizeof *c * (size_t)n);
  FzChild ch = {.timeout_s = timeout_s, .grace_s = FZ_STOP_GRACE_S};
  bool ok = fz_in_child(real_child, &(BatchJob){t, c, out, n, done}, &ch) && *done;
  *stopped = ch.stopped;
  if (ok) {
    for (int i = 0; i < n; i++) {               /* the verdicts; the inputs stay the caller's */
      FzRealCase in = c[i];
      c[i] = out[i];
      c[i].name = in.name, c[i].text = in.text, c[i].len = in.len, c[i].only = in.only;
    }
  } else if (ch.stopped) {
    snprintf(how, hn, "stopped by SIG%s", sigabbrev_np(ch.stopped));
  } else if (ch.hung) {
    snprintf(how, hn, "the check ran past its watchdog (%.3g s) and was killed", timeout_s);
  } else if (WIFSIGNALED(ch.st)) {
    snprintf(how, hn, "the check died: %s", strsignal(WTERMSIG(ch.st)));
  } else {
    snprintf(how, hn, "the check exited with status %d", WIFEXITED(ch.st) ? WEXITSTATUS(ch.st) : -1);
  }
  fz_shared_free(out, bytes);
  return ok;
}

/* The PyPTO back end, in this process: its tools (the driver, ptoas, clang, the
 * programs) are children under time limits of their own. */
static void pypto_replay(const FzReal *t, FzRealCase *c, int n) {
  Src *src = calloc((size_t)n, sizeof *src);
  PyCase *pc = calloc((size_t)n, sizeof *pc);
  if (!src || !pc) die("out of memory");
  for (int i = 0; i < n; i++) {
    src[i] = (Src){c[i].name ? c[i].name : "kernel", c[i].text, c[i].len};
    pc[i] = (PyCase){.src = &src[i], .input_seed = c[i].input_seed, .only = c[i].only ? orc_pypto_variant(c[i].only) : -1};
  }
  orc_pypto_check(t->py, t->have_t ? &t->t : NULL, pc, n, &t->o, NULL);
  for (int i = 0; i < n; i++) real_verdict(pc[i].invalid, &pc[i].why, pc[i].r, pc[i].n, &c[i]);
  free(src);
  free(pc);
}

void fz_real_replay(const FzReal *t, FzRealCase *c, int n, double timeout_s) {
  if (n <= 0) return;
  if (t->py) {
    pypto_replay(t, c, n);
    return;
  }
  char how[200];
  int stopped = 0;
  if (real_batch(t, c, n, timeout_s, how, sizeof how, &stopped)) return;
  for (int i = 0; i < n; i++) {                 /* find the case at fault */
    if (n > 1 && !stopped && real_batch(t, &c[i], 1, timeout_s, how, sizeof how, &stopped)) continue;
    memset(&c[i].v, 0, sizeof c[i].v);
    c[i].clean = c[i].toolerr = false;
    c[i].n = 0;
    c[i].lost = true;
    snprintf(c[i].v.why, sizeof c[i].v.why, "%s", how);
  }
}
