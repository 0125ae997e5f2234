/* campaign.c — `ptofuzz run` and `ptofuzz bench throughput`: consumes a
 * seed, a policy, defects and a budget; produces findings in the database
 * and one summary line.
 *
 * Kernel i of a campaign is generated from mix(seed, i), so a campaign is a
 * pure function of its seed and count. The parent forks J workers; worker w
 * checks kernels w, w+J, w+2J, ... in-process (generator, compiler,
 * simulators, oracle) and publishes its counters and the kernel in flight in
 * shared memory; its findings travel to the parent through a pipe. The
 * parent is the only writer of the database and commits findings in kernel
 * order (a finding of kernel i is committed once every worker has passed i),
 * so the same seed and count give the same rows whatever the interleaving. A
 * worker that dies is replaced, and the kernel in flight recorded as a crash
 * (its text regenerated from i); one that spends longer than the watchdog on
 * one kernel is killed and the kernel recorded as a hang. With --shard=I/N
 * the campaign checks only the kernels i with i mod N = I (worker w: I + N*w,
 * then every N*J-th); a kernel's text and seeds depend on (seed, i) alone, so
 * the N shards' databases merged hold what one campaign over the range holds
 * (each test case carries its kernel index i, by which the merge keeps the
 * lowest, as this kernel-order commit does).
 *
 * Stopping. SIGINT, SIGTERM and SIGHUP are blocked in the parent for the whole run
 * and read from a signalfd that sits in the parent's poll set, so no handler
 * and no global flag exist: the signal lands in the campaign value
 * (Parent.stop_sig). The model's workers ignore them (a terminal's ^C reaches
 * the whole process group, and a worker killed by it must not look like a
 * crash); the parent then kills its workers, keeps the findings of the
 * kernels they finished, ends the campaign row (kernels, seconds, end), prints
 * the summary with stopped=SIGNAL and exits 128 + the signal number. A
 * finding that cannot be stored (a full disk, a read-only or broken file)
 * stops the campaign the same way (stopped=db-error, exit 2, the reason on
 * stderr); the summary counts only the findings that were stored. */
#include "fz.h"
#include "orc.h"
#include "rep.h"
#include "pto_version.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXJOBS = 64, PY_VBASE = 100, CHECKPOINT_S = 10 };

typedef struct {
  volatile int64_t cur;                         /* kernel in flight, -1 none */
  volatile int64_t next;                        /* every kernel of this worker below it is done */
  volatile double started;                      /* when the kernel in flight started */
  volatile int variant, sched;                  /* the variant in flight */
  volatile int64_t kernels, valid, findings, unsup[ORC_NVARIANT];
  /* the compile claims (valid kernels with one): variants refused (unsupported,
   * or a claimed reject) and those the generator said it may refuse */
  volatile int64_t claimed, refused[ORC_NVARIANT], mayref[ORC_NVARIANT];
  volatile double t_gen, t_golden, t_compile, t_sim, t_compare;
  /* the real back end's worker: kernels checked, variants run through the real
   * tools, those the tools could not run, and time per phase (seconds) */
  volatile int64_t real_kernels, real_checks, real_errors;
  volatile double t_emit, t_ptoas, t_cxx, t_run, t_rcompare;
  /* a PyPTO worker: kernels, programs PyPTO compiled, jobs run on pto-isa, tool
   * errors, and time in translation, PyPTO and torch (the rest as above) */
  volatile int64_t py_kernels, py_checks, py_ran, py_errors;
  volatile double t_translate, t_pypto, t_torch;
  volatile int done;
} Shared;

enum { NSTR = 10 };
typedef struct {
  int64_t index;
  int variant, sched;
  char *s[NSTR];                                /* signature kind mode code op pass pattern summary kernel variant-name */
} Msg;

static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}


uint64_t fz_kernel_seed(uint64_t seed, int64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The text of kernel i (malloc'd). */
char *fz_kernel_text(const FzPolicy *p, uint64_t seed, int64_t i, size_t *len) {
  FzSrc src;
  fz_src_seed(&src, fz_kernel_seed(seed, i));
  FzKernel *k = fz_generate(p, &src);
  char *t = fz_emit(k, len);
  fz_free(k);
  return t;
}


bool fz_parse_shard(const char *text, int64_t *i, int64_t *n) {
  char *e, *f = NULL;
  long long a = strtoll(text, &e, 10), b = *e == '/' ? strtoll(e + 1, &f, 10) : -1;
  if (e == text || *e != '/' || f == e + 1 || *f || a < 0 || b < 1 || a >= b || text[0] == '-' || e[1] == '-') return false;
  *i = a, *n = b;
  return true;
}

/* ---- the worker ------------------------------------------------------------------ */

/* --shard=I/N: how many shards (1 without the option), and whether kernel i is this one's. */
static int64_t shards(const FzRunOpts *o) { return o->shard_n > 1 ? o->shard_n : 1; }
static bool in_shard(const FzRunOpts *o, int64_t i) { return i % shards(o) == (o->shard_n > 1 ? o->shard_i : 0); }

typedef struct {
  Shared *sh;
} WorkCtx;

static void progress(void *ctx, int v, int sched) {
  Shared *sh = ((WorkCtx *)ctx)->sh;
  sh->variant = v;
  sh->sched = sched;
}

static bool put(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w, n -= (size_t)w;
  }
  return true;
}

static void send_msg(int fd, int64_t index, int variant, int sched, const char *const s[NSTR]) {
  int32_t hdr[3] = {variant, sched, NSTR};
  if (!put(fd, &index, sizeof index) || !put(fd, hdr, sizeof hdr)) _exit(2);
  for (int i = 0; i < NSTR; i++) {
    int32_t n = (int32_t)strlen(s[i]);
    if (!put(fd, &n, sizeof n) || !put(fd, s[i], (size_t)n)) _exit(2);
  }
}

/* Count kernel i's findings, one per distinct signature, and with fd >= 0 send
 * them; a real variant travels as ORC_NVARIANT + its index, a PyPTO one as
 * PY_VBASE + its index (vbase). */
static void send_findings(int fd, int64_t i, const VarResult *vr, int n, int vbase, const char *text, Shared *sh) {
  char sigs[ORC_PYPTO_MAXR > ORC_NVARIANT * ORC_NSCHED ? ORC_PYPTO_MAXR : ORC_NVARIANT * ORC_NSCHED][200];
  int nsig = 0;
  for (int r = 0; r < n; r++) {
    const VarResult *v = &vr[r];
    if (!orc_is_finding(v->out)) continue;
    char sig[200];
    orc_signature(v, sig, sizeof sig);
    bool dup = false;
    for (int j = 0; j < nsig; j++) dup |= !strcmp(sigs[j], sig);
    if (dup) continue;
    memcpy(sigs[nsig++], sig, sizeof sig);
    sh->findings++;
    if (fd < 0) continue;
    char summary[300];
    if (v->out == OUT_MISCOMPILE && !v->backend)  /* a title: which output, where, which pattern (the report re-runs
                                                     it for the rest; a real back end's summary keeps its detail) */
      snprintf(summary, sizeof summary, "miscompile under %s: %.*s, pattern %s", orc_variant_name(v),
               (int)strcspn(v->detail, ";"), v->detail, v->pattern);
    else
      snprintf(summary, sizeof summary, "%s %s under %s: %s", orc_outcome_name(v->out), v->code, orc_variant_name(v),
               v->detail);
    const char *s[NSTR] = {sig, orc_outcome_name(v->out), orc_mode_name(v->mode), v->code, v->op, v->pass, v->pattern,
                           summary, text, orc_variant_name(v)};
    send_msg(fd, i, vbase + v->variant, v->sched, s);
  }
}

/* Check one kernel; with fd >= 0 send its findings. */
static void check_one(const FzRunOpts *o, const FzPolicy *pol, int64_t i, Shared *sh, int fd) {
  double t0 = cpu_s();
  size_t len;
  char *text = fz_kernel_text(pol, o->seed, i, &len);
  double t1 = cpu_s();
  WorkCtx wc = {sh};
  uint64_t ks = fz_kernel_seed(o->seed, i);
  OrcOpts oo = {.bugs = o->bugs, .input_seed = ks, .sched_seed = ks | 1, .bisect = true, .progress = progress,
                .ctx = &wc, .random_every = o->random_every ? o->random_every : FZ_RANDOM_EVERY,
                .full_inputs = fz_full_inputs(pol, ks)};
  OrcResult res;
  Src src = {"kernel", text, len};
  orc_check(&src, &oo, &res);
  int claim = res.claim;
  if (claim >= 0 && !res.invalid) {
    sh->claimed++;
    for (int v = 0; v < ORC_NVARIANT; v++) sh->mayref[v] += !(claim >> v & 1);
    for (int r = 0; r < res.n; r++)
      if (res.r[r].sched == 0 && (res.r[r].out == OUT_UNSUPPORTED || res.r[r].claimed)) sh->refused[res.r[r].variant]++;
  }
  sh->t_gen += t1 - t0;
  sh->t_golden += res.t.t_golden / 1e3;
  sh->t_compile += res.t.t_compile / 1e3;
  sh->t_sim += res.t.t_sim / 1e3;
  sh->t_compare += res.t.t_compare / 1e3;
  sh->kernels++;
  sh->valid += !res.invalid;
  for (int r = 0; r < res.n; r++)
    if (res.r[r].out == OUT_UNSUPPORTED && res.r[r].sched == 0) sh->unsup[res.r[r].variant]++;
  send_findings(fd, i, res.r, res.n, 0, text, sh);
  free(text);
}

/* ---- the real back end's worker ------------------------------------------------------ */

/* A batch of kernels for orc_real_check: their texts and cases. */
typedef struct {
  int B;
  RealCase *rc;
  char **text;
  Src *src;
  int64_t *idx;
} Batch;

static Batch batch_new(const FzRunOpts *o) {
  Batch b = {.B = o->real_batch > 0 ? o->real_batch : 32};
  b.rc = calloc((size_t)b.B, sizeof *b.rc), b.text = calloc((size_t)b.B, sizeof *b.text);
  b.src = calloc((size_t)b.B, sizeof *b.src), b.idx = calloc((size_t)b.B, sizeof *b.idx);
  if (!b.rc || !b.text || !b.src || !b.idx) die("out of memory");
  return b;
}

/* Slot q of the batch holds kernel i of the campaign (its text is the caller's to free). */
static void batch_set(Batch *b, int q, const FzRunOpts *o, const FzPolicy *pol, int64_t i) {
  size_t len;
  b->idx[q] = i;
  b->text[q] = fz_kernel_text(pol, o->seed, i, &len);
  b->src[q] = (Src){"kernel", b->text[q], len};
  b->rc[q] = (RealCase){.src = &b->src[q], .input_seed = fz_kernel_seed(o->seed, i), .bugs = o->bugs, .only = -1};
}

static void batch_free(Batch *b) { free(b->rc), free(b->text), free(b->src), free(b->idx); }

/* Variants per translation unit: the whole batch in one unit per compile job
 * (a kernel gives about two variants that reach the compiler), but at least 64:
 * variants compiled together share their instantiations of pto-isa's templates,
 * and the 45 variants of a batch of 32 kernels compile in a fifth less time in
 * one unit than in two (docs/real-backend.md section 7), while the other
 * compile jobs take the variants expected to fail. */
static int tu_batch(int kernels, int jobs) {
  int b = (2 * kernels + jobs - 1) / (jobs > 0 ? jobs : 1);
  return b < 64 ? 64 : b > 128 ? 128 : b;
}

/* Kernels 0, E, 2E, ... (E = real_every) in batches: each batch goes through
 * orc_real_check at once, so many kernels share a translation unit and the
 * compiles run in parallel (RealOpts.jobs). The real tools have time limits of
 * their own, so the campaign's watchdog is kept off this worker. */
static void real_worker(const FzRunOpts *o, const FzPolicy *pol, const RealTools *rt, int jobs, double deadline,
                        Shared *sh, int fd, pid_t parent) {
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  int every = o->real_every > 0 ? o->real_every : 1;
  Batch b = batch_new(o);
  RealMemo *memo = orc_real_memo_new();         /* what failed to compile, batch after batch */
  for (int64_t i = 0;;) {
    sh->next = i;
    int nb = 0;
    double t0 = cpu_s();
    for (; nb < b.B && !(o->count > 0 && i >= o->count) && !(o->count <= 0 && fz_now() >= deadline); i += every)
      if (in_shard(o, i)) batch_set(&b, nb++, o, pol, i);
    if (!nb) break;
    sh->t_gen += cpu_s() - t0;
    sh->cur = b.idx[0];
    sh->started = fz_now() + 1e9;               /* no watchdog: the tools have their own limits */
    RealTimes tm = {0};
    orc_real_check(rt, b.rc, nb, &(RealOpts){.jobs = jobs, .batch = tu_batch(nb, jobs), .memo = memo}, &tm);
    if (orc_stop_pending()) _exit(0);           /* its tools are gone, its work directory too */
    sh->t_emit += tm.emit / 1e3, sh->t_ptoas += tm.ptoas / 1e3, sh->t_cxx += tm.cxx / 1e3;
    sh->t_run += tm.run / 1e3, sh->t_rcompare += tm.compare / 1e3;
    sh->real_checks += tm.jobs;
    for (int q = 0; q < nb; q++) {
      sh->real_kernels++;
      for (int r = 0; r < b.rc[q].n; r++) sh->real_errors += b.rc[q].r[r].out == OUT_TOOLERR;
      send_findings(fd, b.idx[q], b.rc[q].r, b.rc[q].n, ORC_NVARIANT, b.text[q], sh);
      free(b.text[q]);
    }
    sh->cur = -1;
  }
  batch_free(&b);
  orc_real_memo_free(memo);
  sh->next = INT64_MAX;
  sh->done = 1;
  close(fd);
  _exit(0);
}

/* ---- a PyPTO worker ------------------------------------------------------------------- */

/* Kernels start, start + step, ... (those of this shard) in batches through one
 * driver: PyPTO compiles each variant's program in turn, the batch's PTO-AS
 * then goes through the real toolchain at once (one translation unit). Its
 * tools have time limits of their own, so the campaign's watchdog is kept off. */
static void pypto_worker(const FzRunOpts *o, const FzPolicy *pol, const PyptoBuild *pb, const RealTools *rt,
                         int64_t start, int64_t step, double deadline, Shared *sh, int fd, pid_t parent) {
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  char why[300];
  PyDrv *d = orc_pypto_open(pb, o->pypto_timeout, why, sizeof why);
  if (!d) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: PyPTO %s: %s\n", pb->dir, why);
    _exit(4);
  }
  int B = o->pypto_batch > 0 ? o->pypto_batch : 8;
  PyCase *pc = calloc((size_t)B, sizeof *pc);
  char **text = calloc((size_t)B, sizeof *text);
  Src *src = calloc((size_t)B, sizeof *src);
  int64_t *idx = calloc((size_t)B, sizeof *idx);
  if (!pc || !text || !src || !idx) die("out of memory");
  double per = 0;                               /* wall seconds per kernel so far */
  int64_t done = 0;
  double began = fz_now();
  for (int64_t i = start;;) {
    sh->next = i;
    int nb = 0, want = B;
    double t0 = cpu_s();
    if (o->count <= 0 && per > 0) {             /* a timed run: no batch that ends far past the deadline */
      double left = deadline - fz_now();
      want = left / per < B ? (int)(left / per) + 1 : B;
    }
    for (; nb < want && !(o->count > 0 && i >= o->count) && !(o->count <= 0 && fz_now() >= deadline); i += step) {
      if (!in_shard(o, i)) continue;
      size_t len;
      idx[nb] = i;
      text[nb] = fz_kernel_text(pol, o->seed, i, &len);
      src[nb] = (Src){"kernel", text[nb], len};
      pc[nb] = (PyCase){.src = &src[nb], .input_seed = fz_kernel_seed(o->seed, i), .only = -1};
      nb++;
    }
    if (!nb) break;
    sh->t_gen += cpu_s() - t0;
    sh->cur = idx[0];
    sh->started = fz_now() + 1e9;               /* no watchdog: the tools have their own limits */
    PyTimes tm = {0};
    orc_pypto_check(d, rt, pc, nb, &(RealOpts){.jobs = 1, .batch = tu_batch(nb, 1)}, &tm);
    if (orc_stop_pending()) {                   /* the driver and the tools are gone: their files too */
      orc_pypto_close(d);
      _exit(0);
    }
    sh->t_translate += tm.translate / 1e3, sh->t_pypto += tm.pypto / 1e3, sh->t_torch += tm.torch / 1e3;
    sh->t_ptoas += tm.ptoas / 1e3, sh->t_cxx += tm.cxx / 1e3, sh->t_run += tm.run / 1e3;
    sh->t_rcompare += tm.compare / 1e3;
    sh->py_checks += tm.checks, sh->py_ran += tm.ran, sh->py_errors += tm.errors;
    for (int q = 0; q < nb; q++) {
      sh->py_kernels++;
      send_findings(fd, idx[q], pc[q].r, pc[q].n, PY_VBASE, text[q], sh);
      free(text[q]);
    }
    sh->cur = -1;
    done += nb;
    per = (fz_now() - began) / (double)done;
  }
  orc_pypto_close(d);
  free(pc), free(text), free(src), free(idx);
  sh->next = INT64_MAX;
  sh->done = 1;
  close(fd);
  _exit(0);
}

static void worker(const FzRunOpts *o, const FzPolicy *pol, int jobs, int64_t start, double deadline, Shared *sh,
                   int fd, pid_t parent) {
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);             /* a killed campaign takes its workers along */
  if (getppid() != parent) _exit(0);
  for (int64_t i = start;; i += jobs * shards(o)) {
    sh->next = i;
    if ((o->count > 0 && i >= o->count) || (o->count <= 0 && fz_now() >= deadline)) break;
    sh->started = fz_now();
    sh->cur = i;
    check_one(o, pol, i, sh, fd);
    sh->cur = -1;
  }
  sh->done = 1;
  close(fd);
  _exit(0);
}

/* ---- the parent ------------------------------------------------------------------ */

typedef struct {
  pid_t pid;
  int fd;
  char *buf;                                    /* bytes read, not yet a whole message */
  size_t n, cap;
} Kid;

typedef struct {
  const FzRunOpts *o;
  const FzPolicy *pol;
  Db *db;
  int64_t campaign;
  Msg *pend;
  int np, cap;
  char **seen;                                  /* signatures of this campaign */
  int nseen, capseen;
  int64_t committed, crashes;
  int sigfd;                                    /* SIGINT / SIGTERM / SIGHUP, blocked and read here */
  sigset_t oldmask;                             /* the mask to restore in workers */
  int stop_sig;                                 /* the signal that stopped the run, 0 none */
  char dberr[320];                              /* the first finding not stored: the reason; "" none */
  bool arterr;                                  /* ... it was its --artifacts file that could not be written */
  bool tty;                                     /* stderr is a terminal: the progress line is redrawn in place */
  int64_t *fresh;                               /* findings new to the database, in commit order */
  int nfresh, capfresh;
} Parent;

static void pend_push(Parent *p, Msg m) {
  if (p->np == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->pend = realloc(p->pend, (size_t)p->cap * sizeof *p->pend);
    if (!p->pend) die("out of memory");
  }
  p->pend[p->np++] = m;
}

static int msg_cmp(const void *a, const void *b) {
  const Msg *x = a, *y = b;
  if (x->index != y->index) return x->index < y->index ? -1 : 1;
  if (x->variant != y->variant) return x->variant - y->variant;
  return x->sched - y->sched;
}

static void note_sig(Parent *p, const char *sig) {
  for (int i = 0; i < p->nseen; i++)
    if (!strcmp(p->seen[i], sig)) return;
  if (p->nseen == p->capseen) {
    p->capseen = p->capseen ? 2 * p->capseen : 32;
    p->seen = realloc(p->seen, (size_t)p->capseen * sizeof *p->seen);
    if (!p->seen) die("out of memory");
  }
  p->seen[p->nseen++] = strdup(sig);
}

/* Store a new finding's cluster key (rep_cluster_key over what db_info
 * holds of it); a failure costs the key only (db list computes it then). */
static void store_cluster(Db *db, int64_t id) {
  DbInfo f;
  char err[256], key[128];
  if (!db_info(db, id, &f, err, sizeof err)) return;
  if (rep_cluster_key(f.signature, f.first_bad_pass, f.summary, key, sizeof key)) db_set_cluster(db, id, key, err, sizeof err);
  db_info_free(&f);
}

/* A finding new to the database: `NEW finding ID SIGNATURE` on stderr (not
 * with --quiet), and with --artifacts its reproducer, as `db export` writes
 * it, in DIR/finding-ID.ptk; false (the reason in p->dberr) when that file
 * cannot be written. */
static bool announce(Parent *p, int64_t id, const char *sig) {
  if (!p->o->quiet) {
    fprintf(stderr, "%sNEW finding %lld %s\n", p->tty ? "\r\033[K" : "", (long long)id, sig);
    fflush(stderr);
  }
  if (!p->o->artifacts) return true;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/finding-%lld.ptk", p->o->artifacts, (long long)id);
  errno = 0;
  FILE *f = fopen(path, "w");
  bool ok = f && db_cmd_export(p->db, id, f) == 0;
  if (f && fclose(f)) ok = false;
  if (!ok) {
    snprintf(p->dberr, sizeof p->dberr, "writing %.200s: %.100s", path, errno ? strerror(errno) : "the export failed");
    p->arterr = true;
  }
  return ok;
}

/* Store one finding; false (the reason in p->dberr) when it cannot be. */
static bool record(Parent *p, const Msg *m) {
  char err[256];
  bool is_new;
  DbFinding f = {m->s[0], m->s[1], m->s[2], m->s[3], m->s[4], m->s[5], m->s[6], m->s[7], m->s[5]};
  char flags[600], names[500];
  ir_bugs_format(p->o->bugs, names, sizeof names);
  if (m->variant >= PY_VBASE) snprintf(flags, sizeof flags, "--bugs=%s --backend=pypto", names);
  else if (m->variant >= ORC_NVARIANT) snprintf(flags, sizeof flags, "--bugs=%s --backend=ptoas", names);
  else snprintf(flags, sizeof flags, "--bugs=%s schedule=%s%s", names, m->sched ? "random" : "rr",
                fz_full_inputs(p->pol, fz_kernel_seed(p->o->seed, m->index)) ? " --inputs=full" : "");
  DbTestcase t = {m->s[8], NULL, m->s[9], flags,
                  fz_kernel_seed(p->o->seed, m->index), fz_count_stmts(m->s[8]), true, m->index};
  int64_t id = db_record(p->db, p->campaign, &f, &t, &is_new, err, sizeof err);
  if (id < 0) {
    snprintf(p->dberr, sizeof p->dberr, "%s", err);
    return false;
  }
  if (is_new) store_cluster(p->db, id);
  note_sig(p, m->s[0]);
  p->committed++;
  if (is_new) {
    if (p->nfresh == p->capfresh) {
      p->capfresh = p->capfresh ? 2 * p->capfresh : 16;
      if (!(p->fresh = realloc(p->fresh, (size_t)p->capfresh * sizeof *p->fresh))) die("out of memory");
    }
    p->fresh[p->nfresh++] = id;
  }
  return !is_new || announce(p, id, m->s[0]);
}

/* Commit, in kernel order, every finding of a kernel below `frontier`; after a
 * finding that could not be stored, none. */
static void commit_upto(Parent *p, int64_t frontier) {
  if (!p->np || p->dberr[0]) return;
  qsort(p->pend, (size_t)p->np, sizeof *p->pend, msg_cmp);
  int k = 0;
  while (k < p->np && p->pend[k].index < frontier && !p->dberr[0]) {
    record(p, &p->pend[k]);
    for (int j = 0; j < NSTR; j++) free(p->pend[k].s[j]);
    k++;
  }
  memmove(p->pend, p->pend + k, (size_t)(p->np - k) * sizeof *p->pend);
  p->np -= k;
}

/* Parse whole messages out of a kid's buffer. */
static void drain(Parent *p, Kid *kd) {
  size_t off = 0;
  for (;;) {
    size_t need = off + sizeof(int64_t) + 3 * sizeof(int32_t);
    if (kd->n < need) break;
    Msg m = {0};
    int32_t hdr[3];
    memcpy(&m.index, kd->buf + off, sizeof m.index);
    memcpy(hdr, kd->buf + off + sizeof m.index, sizeof hdr);
    size_t q = need;
    bool whole = true;
    for (int i = 0; i < NSTR && whole; i++) {
      int32_t n;
      if (kd->n < q + sizeof n) { whole = false; break; }
      memcpy(&n, kd->buf + q, sizeof n);
      q += sizeof n + (size_t)n;
      if (kd->n < q) whole = false;
    }
    if (!whole) break;
    m.variant = hdr[0], m.sched = hdr[1];
    q = need;
    for (int i = 0; i < NSTR; i++) {
      int32_t n;
      memcpy(&n, kd->buf + q, sizeof n);
      q += sizeof n;
      m.s[i] = malloc((size_t)n + 1);
      if (!m.s[i]) die("out of memory");
      memcpy(m.s[i], kd->buf + q, (size_t)n);
      m.s[i][n] = 0;
      q += (size_t)n;
    }
    pend_push(p, m);
    off = q;
  }
  memmove(kd->buf, kd->buf + off, kd->n - off);
  kd->n -= off;
}

static void read_kid(Parent *p, Kid *kd) {
  if (kd->fd < 0) return;
  for (;;) {
    if (kd->cap - kd->n < 65536) {
      kd->cap = kd->cap ? 2 * kd->cap : 1 << 17;
      kd->buf = realloc(kd->buf, kd->cap);
      if (!kd->buf) die("out of memory");
    }
    ssize_t r = read(kd->fd, kd->buf + kd->n, kd->cap - kd->n);
    if (r > 0) {
      kd->n += (size_t)r;
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) close(kd->fd), kd->fd = -1;
    break;
  }
  drain(p, kd);
}

/* What a worker slot runs: the model's worker (kernels start, start + J*N, ...),
 * the real back end's, or a PyPTO worker (kernels start, start + step, ...). */
typedef enum { W_MODEL, W_REAL, W_PYPTO } WKind;
typedef struct {
  WKind kind;
  int64_t start, step;
  const RealTools *rt;                          /* W_REAL; W_PYPTO: check (c), or NULL */
  const PyptoBuild *pb;                         /* W_PYPTO */
} Spec;

static void spawn(Parent *p, Kid *kd, Shared *sh, int jobs, const Spec *w, double deadline) {
  memset((void *)sh, 0, sizeof *sh);
  sh->cur = -1;
  sh->next = w->start;
  int fds[2];
  pid_t parent, pid = fz_fork_piped(fds, &parent);
  if (!pid) {
    close(fds[0]);
    close(p->sigfd);
    if (w->kind == W_MODEL) {                   /* the parent kills the model's workers */
      signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_IGN), signal(SIGHUP, SIG_IGN);
      sigprocmask(SIG_SETMASK, &p->oldmask, NULL);
    }                                           /* the real ones keep them blocked and poll (child.c) */
    if (w->kind == W_REAL) real_worker(p->o, p->pol, w->rt, jobs, deadline, sh, fds[1], parent);
    if (w->kind == W_PYPTO) pypto_worker(p->o, p->pol, w->pb, w->rt, w->start, w->step, deadline, sh, fds[1], parent);
    worker(p->o, p->pol, jobs, w->start, deadline, sh, fds[1], parent);
  }
  close(fds[1]);
  int fl = fcntl(fds[0], F_GETFL);
  fcntl(fds[0], F_SETFL, fl | O_NONBLOCK);
  kd->pid = pid;
  kd->fd = fds[0];
}

/* The model's workers are killed; the real ones are sent SIGTERM, which their
 * back end polls (it kills its tools and removes its work directory), and are
 * killed after FZ_STOP_GRACE_S. */
static void stop_workers(Kid *kids, const Spec *spec, int nw) {
  for (int w = 0; w < nw; w++)
    if (kids[w].pid) kill(kids[w].pid, spec[w].kind == W_MODEL ? SIGKILL : SIGTERM);
  double until = fz_now() + FZ_STOP_GRACE_S;
  for (int w = 0; w < nw; w++) {
    if (!kids[w].pid) continue;
    while (waitpid(kids[w].pid, NULL, WNOHANG) == 0) {
      if (fz_now() >= until) {
        kill(kids[w].pid, SIGKILL);
        waitpid(kids[w].pid, NULL, 0);
        break;
      }
      usleep(10000);
    }
    kids[w].pid = 0;
  }
}

/* A worker died or hung with kernel i in flight: record it. */
static void lost(Parent *p, Shared *sh, int64_t i, const char *kind, const char *code) {
  size_t len;
  char *text = fz_kernel_text(p->pol, p->o->seed, i, &len);
  char sig[160], summary[200];
  int v = sh->variant % ORC_NVARIANT;
  snprintf(sig, sizeof sig, "%s|%s|%s|-|-|-", kind, orc_variant_mode(v), code);
  snprintf(summary, sizeof summary, "%s %s under %s (schedule %s)", kind, code, orc_variants[v], sh->sched ? "random" : "rr");
  Msg m = {.index = i, .variant = v, .sched = sh->sched};
  const char *s[NSTR] = {sig, kind, orc_variant_mode(v), code, "-", "-", "-", summary, text, orc_variants[v]};
  for (int j = 0; j < NSTR; j++) m.s[j] = strdup(s[j]);
  pend_push(p, m);
  free(text);
  p->crashes++;
}

/* Kernels checked so far (and of them valid): the model's workers' count, else
 * the real back end's, else PyPTO's (workers nm.., the real one at nm when nr). */
static int64_t kernels_done(const Shared *sh, int nm, int nr, int nw, int64_t *valid) {
  int64_t k = 0, v = 0;
  for (int w = 0; w < nm; w++) k += sh[w].kernels, v += sh[w].valid;
  if (!nm && nr) k = v = sh[nm].real_kernels;
  if (!nm && !nr)
    for (int w = nr; w < nw; w++) k += sh[w].py_kernels;
  if (!nm && !nr) v = k;
  if (valid) *valid = v;
  return k;
}

/* A duration: 12s, 3m05s or 1h02m. */
static void span(char *b, size_t n, double secs) {
  long t = secs < 0 ? 0 : (long)(secs + 0.5);
  if (t < 60) snprintf(b, n, "%lds", t);
  else if (t < 3600) snprintf(b, n, "%ldm%02lds", t / 60, t % 60);
  else snprintf(b, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
}

enum { PROGRESS_COLS = 79 };                    /* the progress line never wraps an 80-column terminal */

/* The progress line on stderr: elapsed time, kernels, kernels per second, the
 * time left (while running: --count's at the present rate, else --time's),
 * then tail, cut to PROGRESS_COLS. On a terminal it is redrawn in place and
 * the final one ends the line; elsewhere each is a line of its own. */
static void progress_line(const Parent *p, int64_t k, double elapsed, const char *tail, bool final) {
  const FzRunOpts *o = p->o;
  double rate = elapsed > 0 ? (double)k / elapsed : 0;
  char el[16], left[16], eta[24] = "";
  span(el, sizeof el, elapsed);
  double rest = o->count > 0 ? (rate > 0 ? (double)(o->count - k) / rate : -1) : (o->seconds > 0 ? o->seconds : 60) - elapsed;
  if (!final && rest >= 0) {
    span(left, sizeof left, rest);
    snprintf(eta, sizeof eta, " eta %s", left);
  }
  char line[256];
  int n = snprintf(line, sizeof line, "%s %lld kernels %.*f/s%s%s", el, (long long)k, rate < 10 ? 2 : 0, rate, eta, tail);
  if (n >= PROGRESS_COLS) line[PROGRESS_COLS] = 0;
  fprintf(stderr, "%s%s%s%s", p->tty ? "\r" : "", line, p->tty ? "\033[K" : "", !p->tty || final ? "\n" : "");
  fflush(stderr);
}

/* The model workers' progress (slots 0..jobs-1). */
static void status(const Parent *p, const Shared *sh, int jobs, double elapsed, bool final) {
  int64_t k = 0, valid = 0, fnd = 0;
  for (int w = 0; w < jobs; w++) k += sh[w].kernels, valid += sh[w].valid, fnd += sh[w].findings;
  char tail[128];
  snprintf(tail, sizeof tail, " valid=%.4f findings=%lld unique=%d", k ? (double)valid / (double)k : 0.0, (long long)fnd,
           p->nseen);
  progress_line(p, k, elapsed, tail, final);
}

/* The progress of the PyPTO workers (slots from..to-1) when no model worker prints one. */
static void status_py(const Parent *p, const Shared *sh, int from, int to, double elapsed, bool final) {
  int64_t k = 0, c = 0, r = 0, e = 0, fnd = 0;
  for (int w = from; w < to; w++)
    k += sh[w].py_kernels, c += sh[w].py_checks, r += sh[w].py_ran, e += sh[w].py_errors, fnd += sh[w].findings;
  char tail[160];
  snprintf(tail, sizeof tail, " pypto programs=%lld runs=%lld errors=%lld findings=%lld unique=%d", (long long)c,
           (long long)r, (long long)e, (long long)fnd, p->nseen);
  progress_line(p, k, elapsed, tail, final);
}

/* The refused share of each variant over the kernels with a compile claim,
 * against the generator's bound (the share it said it may refuse): one line
 * `claims: kernels=N VARIANT=ACTUAL<=BOUND ... check=ok|W-UNSUP-SHARE`, and a
 * warning per variant above its bound (docs/decisions.md). */
static void claim_shares(const Shared *sh, int jobs) {
  int64_t n = 0, ref[ORC_NVARIANT] = {0}, may[ORC_NVARIANT] = {0};
  for (int w = 0; w < jobs; w++) {
    n += sh[w].claimed;
    for (int v = 0; v < ORC_NVARIANT; v++) ref[v] += sh[w].refused[v], may[v] += sh[w].mayref[v];
  }
  bool over = false;
  printf("claims: kernels=%lld", (long long)n);
  for (int v = 0; v < ORC_NVARIANT; v++) {
    printf(" %s=%.4f<=%.4f", orc_variants[v], n ? (double)ref[v] / n : 0.0, n ? (double)may[v] / n : 0.0);
    over |= ref[v] > may[v];
  }
  printf(" check=%s\n", over ? "W-UNSUP-SHARE" : "ok");
  for (int v = 0; v < ORC_NVARIANT; v++)
    if (ref[v] > may[v])
      fprintf(stderr, "ptofuzz: warning[W-UNSUP-SHARE]: %s refused %lld of %lld kernels, above the %lld the generator "
              "said it may refuse\n", orc_variants[v], (long long)ref[v], (long long)n, (long long)may[v]);
}

/* PyPTO campaigns' default share of kernels the translation takes on b25b25a4a
 * (docs/pypto-backend.md): half, so that the split-slice patterns PyPTO's split
 * passes get wrong come often, while the other half keeps every construct. */
static const double PYPTO_SHARE = 0.5;

/* The default policy, overridden by --policy=F; false (reported) on a bad file.
 * A campaign on the PyPTO back end alone starts from pypto_share = PYPTO_SHARE. */
static bool load_policy(const FzRunOpts *o, FzPolicy *pol) {
  fz_policy_default(pol);
  if (o->backend == FZ_PYPTO) pol->pypto_share = PYPTO_SHARE;
  char err[256];
  if (o->policy_path && !fz_policy_load(pol, o->policy_path, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: %s\n", err);
    return false;
  }
  return true;
}

int fz_run(const FzRunOpts *o) {
  int jobs = o->jobs < 1 ? 1 : o->jobs > MAXJOBS ? MAXJOBS : o->jobs;
  int backend = o->backend ? o->backend : FZ_MODEL;
  FzPolicy pol;
  if (!load_policy(o, &pol)) return 1;
  RealTools rt;
  if ((backend & FZ_PTOAS) && !orc_real_find(&rt, o->ptoas, o->pto_isa)) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable real toolchain: %s\n", rt.why);
    return 2;
  }
  /* PyPTO: one build; its driver started once here, so a PyPTO or torch that
   * cannot be imported is a coded error before the campaign begins */
  PyptoBuild pb;
  bool have_rt = backend & FZ_PTOAS;
  char err[256];
  if (backend & FZ_PYPTO) {
    PyptoBuild all[ORC_PYPTO_MAXB];
    int nb = orc_pypto_builds(o->pypto, all, ORC_PYPTO_MAXB, err, sizeof err);
    if (nb != 1) {
      fprintf(stderr, "ptofuzz: error[E-TOOL]: %s\n", nb < 0 ? err : "a campaign runs one PyPTO build (--pypto=DIR)");
      return 2;
    }
    pb = all[0];
    PyDrv *d = orc_pypto_open(&pb, o->pypto_timeout, err, sizeof err);
    if (!d) {
      fprintf(stderr, "ptofuzz: error[E-TOOL]: PyPTO %s: %s\n", pb.dir, err);
      return 2;
    }
    orc_pypto_close(d);
    if (!have_rt && !o->pypto_ab) have_rt = orc_real_find(&rt, o->ptoas, o->pto_isa);   /* check (c) where the real tools are */
    if (!have_rt && !o->quiet && !o->pypto_ab)
      fprintf(stderr, "ptofuzz: note: no real toolchain (%s): PyPTO's check (c) is skipped\n", rt.why);
  }
  Db *db = db_open(o->db, err, sizeof err);
  if (!db) {
    fprintf(stderr, "ptofuzz: cannot open %s: %s\n", o->db, err);
    return 1;
  }
  char *poltext = NULL;
  size_t polen = 0;
  FILE *pf = open_memstream(&poltext, &polen);
  fz_policy_print(&pol, pf);
  fclose(pf);
  char names[500];
  ir_bugs_format(o->bugs, names, sizeof names);
  char engine[120];
  snprintf(engine, sizeof engine, "prng%s%s%s%.12s", backend & FZ_MODEL && backend != FZ_MODEL ? "+model" : "",
           backend & FZ_PTOAS ? "+ptoas" : "", backend & FZ_PYPTO ? "+pypto:" : "", backend & FZ_PYPTO ? pb.commit : "");
  DbCampaign dc = {engine, poltext, names, PTOFUZZ_VERSION "+" PTO_COMMIT, o->seed, NULL};
  Parent p = {.o = o, .pol = &pol, .db = db, .tty = isatty(2)};
  p.campaign = db_campaign_begin(db, &dc);
  free(poltext);
  if (p.campaign < 0) {
    fprintf(stderr, "ptofuzz: cannot start a campaign in %s: %s\n", o->db, db_errmsg(db));
    db_close(db);
    return 2;
  }
  /* SIGINT, SIGTERM and SIGHUP: blocked, and read from a descriptor in the poll set */
  sigset_t stopset;
  sigemptyset(&stopset);
  sigaddset(&stopset, SIGINT);
  sigaddset(&stopset, SIGTERM);
  sigaddset(&stopset, SIGHUP);                  /* a closed terminal or ssh session */
  sigprocmask(SIG_BLOCK, &stopset, &p.oldmask);
  p.sigfd = signalfd(-1, &stopset, SFD_NONBLOCK | SFD_CLOEXEC);
  if (p.sigfd < 0) die("signalfd: %s", strerror(errno));
  /* slots 0..nm-1: the model's workers; then the real back end's (one); then
   * the PyPTO workers: one per job alone, one sampling 1 in pypto_every beside the model */
  int nm = backend & FZ_MODEL ? jobs : 0, nr = backend & FZ_PTOAS ? 1 : 0;
  int npy = !(backend & FZ_PYPTO) ? 0 : backend == FZ_PYPTO ? jobs : 1, nw = nm + nr + npy;
  int64_t first = o->shard_n > 1 ? o->shard_i : 0;
  Spec spec[2 * MAXJOBS + 1];
  for (int w = 0; w < nm; w++) spec[w] = (Spec){W_MODEL, first + shards(o) * w, 0, NULL, NULL};
  if (nr) spec[nm] = (Spec){W_REAL, 0, 0, &rt, NULL};
  for (int w = 0; w < npy; w++)
    spec[nm + nr + w] = backend == FZ_PYPTO ? (Spec){W_PYPTO, first + shards(o) * w, shards(o) * npy, have_rt ? &rt : NULL, &pb}
                                            : (Spec){W_PYPTO, 0, o->pypto_every > 0 ? o->pypto_every : 16, have_rt ? &rt : NULL, &pb};
  Shared *sh = mmap(NULL, sizeof(Shared) * (size_t)nw, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) die("mmap: %s", strerror(errno));
  /* the PyPTO drivers' work directories live in one of the campaign's, removed at
   * the end whatever stopped the run (a killed worker cannot remove its own) */
  char work[PATH_MAX] = "";
  if (npy) {
    const char *tmp = getenv("TMPDIR");
    snprintf(work, sizeof work, "%s/ptofuzz-run-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(work)) die("mkdtemp: %s", strerror(errno));
    setenv("TMPDIR", work, 1);
  }
  Kid kids[2 * MAXJOBS + 1];
  memset(kids, 0, sizeof kids);
  double t0 = fz_now(), deadline = t0 + (o->seconds > 0 ? o->seconds : 60), last = t0, checkpoint = t0;
  for (int w = 0; w < nw; w++) spawn(&p, &kids[w], &sh[w], jobs, &spec[w], deadline);
  int live = nw;
  while (live) {
    struct pollfd pf2[2 * MAXJOBS + 2];
    int n = 0;
    for (int w = 0; w < nw; w++)
      if (kids[w].fd >= 0) pf2[n].fd = kids[w].fd, pf2[n].events = POLLIN, n++;
    int pipes = n;
    pf2[n].fd = p.sigfd, pf2[n].events = POLLIN, n++;
    poll(pf2, (nfds_t)n, pipes ? 200 : 50);    /* no pipe left: only reaping to wait for */
    /* before reaping: a worker that died of the same signal is no crash */
    struct signalfd_siginfo si;
    while (read(p.sigfd, &si, sizeof si) == (ssize_t)sizeof si)
      if (!p.stop_sig) p.stop_sig = (int)si.ssi_signo;
    for (int w = 0; w < nw; w++) read_kid(&p, &kids[w]);
    if (p.stop_sig || p.dberr[0]) {
      /* stop: the workers go, the kernels they finished keep their findings */
      stop_workers(kids, spec, nw);
      for (int w = 0; w < nw; w++) {
        read_kid(&p, &kids[w]);
        if (kids[w].fd >= 0) close(kids[w].fd), kids[w].fd = -1;
      }
      break;
    }
    for (int w = 0; w < nw; w++) {
      int st;
      bool hung;
      if (!kids[w].pid || !fz_reap(kids[w].pid, sh[w].cur >= 0, sh[w].started, &st, &hung)) continue;
      read_kid(&p, &kids[w]);
      if (kids[w].fd >= 0) close(kids[w].fd), kids[w].fd = -1;
      kids[w].pid = 0;
      int64_t in = sh[w].cur;
      if (in >= 0 && w < nm && (hung || !WIFEXITED(st) || WEXITSTATUS(st))) {
        const char *code = hung ? "watchdog" : WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit";
        lost(&p, &sh[w], in, hung ? "hang" : "crash", code);
        Shared keep = sh[w];
        Spec again = {W_MODEL, in + jobs * shards(o), 0, NULL, NULL};
        spawn(&p, &kids[w], &sh[w], jobs, &again, deadline);
        sh[w].kernels = keep.kernels + 1, sh[w].valid = keep.valid + 1, sh[w].findings = keep.findings + 1;
        for (int v = 0; v < ORC_NVARIANT; v++)
          sh[w].unsup[v] = keep.unsup[v], sh[w].refused[v] = keep.refused[v], sh[w].mayref[v] = keep.mayref[v];
        sh[w].claimed = keep.claimed;
        sh[w].t_gen = keep.t_gen, sh[w].t_golden = keep.t_golden, sh[w].t_compile = keep.t_compile;
        sh[w].t_sim = keep.t_sim, sh[w].t_compare = keep.t_compare;
        continue;
      }
      if (w >= nm && (!WIFEXITED(st) || WEXITSTATUS(st))) {   /* ptofuzz's own real worker died: ours, not the tools' */
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 4)   /* 4: its PyPTO would not start, said on stderr */
          fprintf(stderr, "ptofuzz: the %s back end's worker died (%s) with kernel %lld in flight\n",
                  spec[w].kind == W_REAL ? "real" : "PyPTO", WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit",
                  (long long)in);
        p.crashes++;
        sh[w].next = INT64_MAX;
      }
      live--;
    }
    int64_t frontier = INT64_MAX;
    for (int w = 0; w < nw; w++)
      if (kids[w].pid || kids[w].fd >= 0) frontier = frontier < sh[w].next ? frontier : sh[w].next;
    commit_upto(&p, frontier);
    double t = fz_now();
    if (t - checkpoint >= CHECKPOINT_S && !p.dberr[0]) {   /* a campaign killed outright keeps its count */
      if (!db_campaign_progress(db, p.campaign, kernels_done(sh, nm, nr, nw, NULL), t - t0))
        snprintf(p.dberr, sizeof p.dberr, "checkpointing the campaign: %s", db_errmsg(db));
      checkpoint = t;
    }
    if (!o->quiet && t - last >= (p.tty ? 1.0 : 30.0) && (nm || npy)) {   /* a log gets a line each 30 s */
      if (nm) status(&p, sh, nm, t - t0, false);
      else status_py(&p, sh, nm + nr, nw, t - t0, false);
      last = t;
    }
  }
  commit_upto(&p, INT64_MAX);
  double secs = fz_now() - t0;
  int64_t valid = 0, k = kernels_done(sh, nm, nr, nw, &valid);
  if (!o->quiet && nm) status(&p, sh, nm, secs, true);
  else if (!o->quiet && npy) status_py(&p, sh, nm + nr, nw, secs, true);
  char real[400] = "";
  if (nr) {
    const Shared *r = &sh[nm];
    snprintf(real, sizeof real, " real_kernels=%lld real_checks=%lld real_errors=%lld", (long long)r->real_kernels,
             (long long)r->real_checks, (long long)r->real_errors);
  }
  if (npy) {                                    /* PyPTO's checks and its tool errors, apart */
    int64_t pk = 0, pc = 0, pr = 0, pe = 0;
    for (int w = nm + nr; w < nw; w++) pk += sh[w].py_kernels, pc += sh[w].py_checks, pr += sh[w].py_ran, pe += sh[w].py_errors;
    size_t l = strlen(real);
    snprintf(real + l, sizeof real - l, " pypto_kernels=%lld pypto_checks=%lld pypto_runs=%lld pypto_errors=%lld",
             (long long)pk, (long long)pc, (long long)pr, (long long)pe);
  }
  /* the row is ended whatever stopped the run: kernels, seconds, end */
  bool ended = db_campaign_end(db, p.campaign, k, secs);
  if (!ended && !p.dberr[0]) snprintf(p.dberr, sizeof p.dberr, "ending the campaign: %s", db_errmsg(db));
  if (nm && !p.dberr[0]) {                      /* the dashboard's unsupported shares per variant */
    int64_t un[ORC_NVARIANT] = {0};
    for (int w = 0; w < nm; w++)
      for (int v = 0; v < ORC_NVARIANT; v++) un[v] += sh[w].unsup[v];
    if (!db_campaign_variants(db, p.campaign, valid, orc_variants, un, ORC_NVARIANT))
      fprintf(stderr, "ptofuzz: database: %s\n", db_errmsg(db));
  }
  /* --reduce-new: each new finding's first test case, the budget shared out */
  char reduced[64] = "";
  if (o->reduce_new > 0 && o->reduce && p.nfresh && !p.stop_sig && !p.dberr[0]) {
    double r0 = fz_now();
    int got = 0, j = 0;
    for (; j < p.nfresh && !p.stop_sig; j++) {
      double left = o->reduce_new - (fz_now() - r0);
      if (left < 1) break;
      got += o->reduce(o->reduce_ctx, o->db, p.fresh[j], left / (p.nfresh - j)) == 0;
      struct signalfd_siginfo si;
      while (read(p.sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        if (!p.stop_sig) p.stop_sig = (int)si.ssi_signo;
    }
    snprintf(reduced, sizeof reduced, " reduced=%d/%d reduce_seconds=%.1f", got, p.nfresh, fz_now() - r0);
  }
  char stopped[64] = "";
  if (p.dberr[0]) snprintf(stopped, sizeof stopped, " stopped=%s", p.arterr ? "artifact-error" : "db-error");
  else if (p.stop_sig)
    snprintf(stopped, sizeof stopped, " stopped=%s",
             p.stop_sig == SIGINT ? "SIGINT" : p.stop_sig == SIGHUP ? "SIGHUP" : "SIGTERM");
  if (nm) claim_shares(sh, nm);
  /* findings= and unique= count what the database holds, never more */
  printf("summary: kernels=%lld valid=%.4f findings=%lld unique=%d seconds=%.1f kernels_per_s=%.1f%s%s seed=%llu%s db=%s\n",
         (long long)k, k ? (double)valid / k : 0.0, (long long)p.committed, p.nseen, secs, secs > 0 ? k / secs : 0.0, real,
         reduced, (unsigned long long)o->seed, stopped, o->db);
  fflush(stdout);
  int rc = nr && sh[nm].real_checks && sh[nm].real_errors == sh[nm].real_checks ? 2 : 0;   /* the tools never ran */
  for (int w = nm + nr; w < nw; w++)
    if (sh[w].py_checks && sh[w].py_errors >= sh[w].py_checks) rc = 2;
  if (*work) orc_rm_rf(work);
  if (p.dberr[0]) {
    fprintf(stderr, "ptofuzz: run: stopped: a finding could not be recorded in %s: %s\n",
            p.arterr ? o->artifacts : o->db, p.dberr);
    if (!ended && !strstr(p.dberr, "ending the campaign"))
      fprintf(stderr, "ptofuzz: run: nor could the campaign row be ended: %s\n", db_errmsg(db));
    rc = 2;
  } else if (p.stop_sig) {
    rc = 128 + p.stop_sig;
  } else if (!rc && p.nfresh && o->error_exitcode) {   /* --error-exitcode=N: a finding new to the database */
    rc = o->error_exitcode;
  }
  db_close(db);
  munmap(sh, sizeof(Shared) * (size_t)nw);
  for (int i = 0; i < p.nseen; i++) free(p.seen[i]);
  free(p.seen);
  free(p.fresh);
  for (int i = 0; i < p.np; i++)
    for (int j = 0; j < NSTR; j++) free(p.pend[i].s[j]);
  free(p.pend);
  for (int w = 0; w < nw; w++) free(kids[w].buf);
  close(p.sigfd);
  sigprocmask(SIG_SETMASK, &p.oldmask, NULL);
  return rc;
}

/* ---- bench throughput: one core, in process, no database -------------------------- */


/* Per core: kernels per CPU-second of this process (one thread), which a busy
 * or noisy machine disturbs far less than wall time. The phase shares are of
 * the wall time spent checking. --count=N checks exactly N kernels (for
 * instruction counts under callgrind, which do not depend on the machine). */
/* The real back end: kernels per CPU-second of this process and every tool it
 * ran (ptoas, the C++ compiler, the programs), in batches as a campaign runs
 * them; the phase shares are of the time the phases took, summed over jobs. */
static int bench_real(const FzRunOpts *o, const FzPolicy *pol) {
  RealTools rt;
  if (!orc_real_find(&rt, o->ptoas, o->pto_isa)) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable real toolchain: %s\n", rt.why);
    return 2;
  }
  int jobs = o->jobs > 0 ? o->jobs : 2;
  Batch b = batch_new(o);
  RealMemo *memo = orc_real_memo_new();         /* as a campaign's worker keeps it */
  struct rusage r0, c0;
  getrusage(RUSAGE_SELF, &r0), getrusage(RUSAGE_CHILDREN, &c0);
  double t0 = fz_now();
  RealTimes tm = {0};
  int64_t i = 0, errors = 0, findings = 0;
  while (o->count ? i < o->count : fz_now() - t0 < o->seconds) {
    int nb = 0;
    for (; nb < b.B && (!o->count || i < o->count); nb++, i++) batch_set(&b, nb, o, pol, i);
    orc_real_check(&rt, b.rc, nb, &(RealOpts){.jobs = jobs, .batch = tu_batch(nb, jobs), .memo = memo}, &tm);
    for (int q = 0; q < nb; q++) {
      for (int v = 0; v < b.rc[q].n; v++)
        errors += b.rc[q].r[v].out == OUT_TOOLERR, findings += orc_is_finding(b.rc[q].r[v].out);
      free(b.text[q]);
    }
  }
  struct rusage r1, c1;
  getrusage(RUSAGE_SELF, &r1), getrusage(RUSAGE_CHILDREN, &c1);
#define TV(a, b) ((a.ru_utime.tv_sec - b.ru_utime.tv_sec) + (a.ru_utime.tv_usec - b.ru_utime.tv_usec) / 1e6 + \
                  (a.ru_stime.tv_sec - b.ru_stime.tv_sec) + (a.ru_stime.tv_usec - b.ru_stime.tv_usec) / 1e6)
  double cpu = TV(r1, r0) + TV(c1, c0), wall = fz_now() - t0;
#undef TV
  double sum = tm.emit + tm.ptoas + tm.cxx + tm.run + tm.compare;
  if (sum <= 0) sum = 1;
  printf("throughput: backend=ptoas kernels_per_s_per_core=%.3f emit=%.3f ptoas=%.3f cxx=%.3f run=%.3f compare=%.3f\n",
         cpu > 0 ? i / cpu : 0.0, tm.emit / sum, tm.ptoas / sum, tm.cxx / sum, tm.run / sum, tm.compare / sum);
  printf("# kernels=%lld variants_run=%d probes=%d cpu_s=%.1f wall_s=%.1f jobs=%d batch=%d tool_errors=%lld "
         "findings=%lld compiles_per_variant=%.2f\n", (long long)i, tm.jobs, tm.probes, cpu, wall, jobs, b.B,
         (long long)errors, (long long)findings, tm.cxx_jobs ? (double)tm.cxx_runs / tm.cxx_jobs : 0.0);
  batch_free(&b);
  orc_real_memo_free(memo);
  return errors && errors == tm.jobs ? 2 : 0;
}

/* The PyPTO back end: kernels per CPU-second of this process and every child
 * (the driver, closed before the count so its time is in it; ptoas, the C++
 * compiler, the programs), on one core; the phase shares are of the time the
 * phases took. --pypto-checks=ab leaves check (c) out. */
static int bench_pypto(const FzRunOpts *o, const FzPolicy *pol) {
  PyptoBuild pb;
  char why[300];
  if (orc_pypto_builds(o->pypto, &pb, 1, why, sizeof why) != 1) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable PyPTO: %s\n", why);
    return 2;
  }
  RealTools rt;
  bool have_rt = !o->pypto_ab && orc_real_find(&rt, o->ptoas, o->pto_isa);
  if (!o->pypto_ab && !have_rt) fprintf(stderr, "ptofuzz: note: no real toolchain (%s): check (c) is left out\n", rt.why);
  int B = o->pypto_batch > 0 ? o->pypto_batch : 8;
  PyCase *pc = calloc((size_t)B, sizeof *pc);
  char **text = calloc((size_t)B, sizeof *text);
  Src *src = calloc((size_t)B, sizeof *src);
  if (!pc || !text || !src) die("out of memory");
  struct rusage r0, c0;
  getrusage(RUSAGE_SELF, &r0), getrusage(RUSAGE_CHILDREN, &c0);
  double t0 = fz_now();
  PyDrv *d = orc_pypto_open(&pb, o->pypto_timeout, why, sizeof why);
  if (!d) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: PyPTO %s: %s\n", pb.dir, why);
    free(pc), free(text), free(src);
    return 2;
  }
  PyTimes tm = {0};
  int64_t i = 0, findings = 0;
  while (o->count ? i < o->count : fz_now() - t0 < o->seconds) {
    int nb = 0;
    for (; nb < B && (!o->count || i < o->count); nb++, i++) {
      size_t len;
      text[nb] = fz_kernel_text(pol, o->seed, i, &len);
      src[nb] = (Src){"kernel", text[nb], len};
      pc[nb] = (PyCase){.src = &src[nb], .input_seed = fz_kernel_seed(o->seed, i), .only = -1};
    }
    orc_pypto_check(d, have_rt ? &rt : NULL, pc, nb, &(RealOpts){.jobs = 1, .batch = tu_batch(nb, 1)}, &tm);
    for (int q = 0; q < nb; q++) {
      for (int v = 0; v < pc[q].n; v++) findings += orc_is_finding(pc[q].r[v].out);
      free(text[q]);
    }
  }
  char hello[200];
  snprintf(hello, sizeof hello, "%s", orc_pypto_hello(d));
  orc_pypto_close(d);
  struct rusage r1, c1;
  getrusage(RUSAGE_SELF, &r1), getrusage(RUSAGE_CHILDREN, &c1);
#define TV(a, b) ((a.ru_utime.tv_sec - b.ru_utime.tv_sec) + (a.ru_utime.tv_usec - b.ru_utime.tv_usec) / 1e6 + \
                  (a.ru_stime.tv_sec - b.ru_stime.tv_sec) + (a.ru_stime.tv_usec - b.ru_stime.tv_usec) / 1e6)
  double cpu = TV(r1, r0) + TV(c1, c0), wall = fz_now() - t0;
#undef TV
  double sum = tm.translate + tm.pypto + tm.torch + tm.ptoas + tm.cxx + tm.run + tm.compare;
  if (sum <= 0) sum = 1;
  printf("throughput: backend=pypto kernels_per_s_per_core=%.3f translate=%.3f pypto=%.3f torch=%.3f ptoas=%.3f cxx=%.3f "
         "run=%.3f compare=%.3f\n", cpu > 0 ? i / cpu : 0.0, tm.translate / sum, tm.pypto / sum, tm.torch / sum,
         tm.ptoas / sum, tm.cxx / sum, tm.run / sum, tm.compare / sum);
  printf("# kernels=%lld checks=%s pypto_programs=%d pto_isa_runs=%d cpu_s=%.1f wall_s=%.1f batch=%d tool_errors=%lld "
         "findings=%lld pypto=%.12s %s\n", (long long)i, have_rt ? "abc" : "ab", tm.checks, tm.ran, cpu, wall, B,
         (long long)tm.errors, (long long)findings, pb.commit, hello);
  double v = tm.variants ? tm.variants : 1;
  printf("# variants=%d translated=%.3f parsed=%.3f compiled=%.3f (shares of the variants)\n", tm.variants,
         tm.translated / v, tm.parsed / v, tm.compiled / v);
  free(pc), free(text), free(src);
  return tm.errors && tm.errors >= tm.checks ? 2 : 0;
}

int fz_bench_throughput(const FzRunOpts *o) {
  FzPolicy pol;
  if (!load_policy(o, &pol)) return 1;
  if (o->backend & FZ_PYPTO) return bench_pypto(o, &pol);
  if (o->backend & FZ_PTOAS) return bench_real(o, &pol);
  Shared sh = {0};
  double t0 = fz_now(), c0 = cpu_s();
  int64_t i = 0;
  while (o->count ? i < o->count : fz_now() - t0 < o->seconds) check_one(o, &pol, i++, &sh, -1);
  double cpu = cpu_s() - c0;
  printf("throughput: kernels_per_s_per_core=%.1f gen=%.3f compile=%.3f sim=%.3f compare=%.3f\n", sh.kernels / cpu,
         sh.t_gen / cpu, sh.t_compile / cpu, (sh.t_golden + sh.t_sim) / cpu, sh.t_compare / cpu);
  return 0;
}
