/* bench.c — `ptofuzz bench defects`, and `bench scale` (at the end of the
 * file: compile time and memory against kernel size). bench defects: how fast, and as what, the fuzzer finds
 * each injected defect. Consumes a time budget S, a trial count N, a job
 * count J, a seed and a policy; produces, on stdout:
 *
 *   defect=NAME found=K/N median_s=F max_s=F signatures=K clusters=K   (per defect, defects.def order)
 *   all defect=NAME signatures=K clusters=K                               (per defect)
 *   all: signatures=K clusters=K unattributed=K shared=none|SIG:NAME+NAME,...
 *
 * clusters= counts the distinct cluster keys (rep_cluster_key) of those
 * signatures, each key computed from the signature's first kernel (the
 * oracle's detail of that run).
 *
 * Trials. For each defect, N campaigns with only that defect switched on;
 * trial t generates its kernels from the seed fz_kernel_seed(seed, t) (kernel
 * i from fz_kernel_seed(that, i), as `ptofuzz run --seed=that` would), the same
 * seeds for every defect. A trial stops at its first kernel that gives any
 * finding, or when S seconds have passed (checked between kernels). Its time
 * to first finding is wall time measured inside the trial; one that found
 * nothing counts S. signatures= counts the distinct signatures over all
 * findings of the N first-finding kernels.
 *
 * The all-defects campaign. Every defect on, S seconds, the kernels of --seed
 * striped over J workers; every distinct signature is kept with the first
 * kernel that gave it. Each signature is then attributed by replaying that
 * kernel (same input and schedule seeds) once per defect with that defect
 * alone on: the defects that reproduce the exact signature. A signature no
 * single defect reproduces is unattributed; one several reproduce is shared.
 *
 * Processes. Every trial (and every stripe of the all-defects campaign) runs
 * in a forked child, at most J at once; a child checks its kernels in-process
 * and single-threaded, and writes its result to shared memory. A child that
 * dies is a `crash|MODE|SIGNAL|-|-|-` finding at the kernel in flight (a
 * stripe is then restarted after that kernel), one that spends longer than 20
 * seconds on one kernel is killed and gives `hang|MODE|watchdog|-|-|-`.
 * Attribution replays run through fz_replay (forked, same watchdog), the
 * signatures striped over J children. No database is written.
 *
 * --engine=libfuzzer|afl measures the coverage-guided engines instead (no
 * all-defects campaign): per defect, N runs of the engine binary
 * (build-libfuzzer/bin/ptofuzz-libfuzzer, or afl-fuzz over
 * build-afl/bin/ptofuzz-stdin; --engine-bin=PATH) as a subprocess with
 * PTOFUZZ_BUGS=NAME, one after another, each stopped by the engine itself at
 * its first crash (libFuzzer; AFL++ with AFL_BENCH_UNTIL_CRASH) or after S
 * seconds; run r uses the engine seed r+1. Time to first finding is the wall
 * time from the start of the engine process to its end with a crash file, the
 * engine's start-up included; the crash file is signed as `ptofuzz import`
 * signs it. AFL++ starts from one zero byte and refuses a seed that crashes,
 * so the seed is run first: when it crashes, that is the run's finding. One
 * line per defect:
 *   engine=E defect=NAME found=K/N median_s=F max_s=F signatures=K
 * A binary that is not built is a message and exit 0. */
#include "fz.h"
#include "orc.h"
#include "rep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXJOBS = 64, MAXALLSIG = 1024 };   /* distinct signatures kept, at most */

enum { KEYLEN = 96 };

/* A list of distinct signatures, each with the first kernel that gave it and
 * the cluster key (rep_cluster_key) of the signature on that kernel. */
typedef struct {
  int n;
  char sig[MAXALLSIG][FZ_SIGLEN];
  char key[MAXALLSIG][KEYLEN];
  int64_t first[MAXALLSIG];
} SigSet;

static void sigset_add(SigSet *s, const char *sig, const char *key, int64_t kernel) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->sig[i], sig)) {
      if (kernel < s->first[i]) s->first[i] = kernel, snprintf(s->key[i], sizeof s->key[i], "%s", key);
      return;
    }
  if (s->n == MAXALLSIG) return;
  snprintf(s->sig[s->n], sizeof s->sig[0], "%s", sig);
  snprintf(s->key[s->n], sizeof s->key[0], "%s", key);
  s->first[s->n++] = kernel;
}

/* The cluster key of signature k of a verdict (its detail from the same run). */
static void verdict_key(const FzVerdict *v, int k, char *key, size_t n) {
  if (!rep_cluster_key(v->sig[k], NULL, v->detail[k], key, n)) snprintf(key, n, "unclustered");
}

/* Distinct cluster keys among the signatures of s: all of them (who NULL), or
 * those defect d gives alone (bit d of who[i]). */
static int clusters_of(const SigSet *s, const uint32_t *who, int d) {
  int k = 0;
  for (int i = 0; i < s->n; i++) {
    if (who && !(who[i] >> d & 1u)) continue;
    bool seen = false;
    for (int j = 0; j < i && !seen; j++) seen = (!who || who[j] >> d & 1u) && !strcmp(s->key[j], s->key[i]);
    k += !seen;
  }
  return k;
}

/* What a worker publishes; the parent reads it when the worker has ended. */
typedef struct {
  volatile double t0;                           /* the worker started (CLOCK_MONOTONIC) */
  volatile int64_t cur;                         /* kernel in flight, -1 none */
  volatile double started;                      /* when the kernel in flight started */
  volatile int variant, sched;                  /* the variant in flight */
  volatile int64_t kernels;
  volatile int done;
  volatile int found;                           /* trial: a kernel gave a finding */
  volatile double t_found;                      /* seconds from t0 */
  FzVerdict v;                                  /* trial: the first-finding kernel's signatures */
  SigSet all;                                   /* stripe: every signature seen */
} Pub;

typedef struct {
  uint32_t bugs;
  uint64_t seed;
  int64_t start, stride;
  double seconds;                               /* trial: budget from its own start */
  double deadline;                              /* stripe: absolute end; 0 for trials */
  bool stop_first;
  /* results, kept by the parent */
  bool found, ended;
  double t;
  FzVerdict v;
  SigSet *acc;                                  /* stripe: accumulated over restarts */
  int64_t kernels;
} Job;

static void note(void *ctx, int variant, int sched) {
  Pub *s = ctx;
  s->variant = variant;
  s->sched = sched;
}

static _Noreturn void worker(const Job *j, const FzPolicy *pol, Pub *s, pid_t parent) {
  signal(SIGPIPE, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);             /* a killed bench takes its workers along */
  if (getppid() != parent) _exit(0);
  s->t0 = fz_now();
  double deadline = j->deadline > 0 ? j->deadline : s->t0 + j->seconds;
  for (int64_t i = j->start; fz_now() < deadline; i += j->stride) {
    s->started = fz_now();
    s->cur = i;
    size_t len;
    char *text = fz_kernel_text(pol, j->seed, i, &len);
    uint64_t ks = fz_kernel_seed(j->seed, i);
    FzReplay r = {.text = text, .len = len, .bugs = j->bugs, .input_seed = ks, .sched_seed = ks | 1,
                  .random_every = FZ_RANDOM_EVERY, .progress = note, .ctx = s};   /* as `ptofuzz run` */
    FzVerdict v;
    fz_verdict(&r, &v);
    free(text);
    s->kernels++;
    s->cur = -1;
    if (!v.finding) continue;
    if (j->stop_first) {
      s->v = v;
      s->t_found = fz_now() - s->t0;
      s->found = 1;
      break;
    }
    for (int k = 0; k < v.n; k++) {
      char key[KEYLEN];
      verdict_key(&v, k, key, sizeof key);
      sigset_add(&s->all, v.sig[k], key, i);
    }
  }
  s->done = 1;
  _exit(0);
}

/* ---- running jobs on J workers --------------------------------------------------- */

typedef struct {
  pid_t pid;
  int job;
} Kid;

static void spawn(Kid *k, Job *jobs, int j, const FzPolicy *pol, Pub *s) {
  memset((void *)s, 0, sizeof *s);
  s->cur = -1;
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (!pid) worker(&jobs[j], pol, s, parent);
  k->pid = pid;
  k->job = j;
}

/* A worker ended (status st, or hung): fold its slot into its job. True when
 * the job must run again (a stripe that lost a kernel and has time left). */
static bool ended(Job *j, Pub *s, int st, bool hung) {
  bool clean = !hung && WIFEXITED(st) && !WEXITSTATUS(st) && s->done;
  j->kernels += s->kernels;
  if (j->stop_first) {
    j->ended = true;
    if (clean) {
      j->found = s->found;
      j->t = s->found ? s->t_found : j->seconds;
      if (s->found) j->v = s->v;
      return false;
    }
    memset(&j->v, 0, sizeof j->v);
    fz_verdict_lost(&j->v, s->variant, hung, st);
    j->found = true;
    j->t = s->t0 > 0 ? fz_now() - s->t0 : 0;
    return false;
  }
  for (int i = 0; i < s->all.n; i++) sigset_add(j->acc, s->all.sig[i], s->all.key[i], s->all.first[i]);
  if (clean) {
    j->ended = true;
    return false;
  }
  FzVerdict lost = {0};
  fz_verdict_lost(&lost, s->variant, hung, st);
  int64_t at = s->cur >= 0 ? s->cur : j->start;
  char key[KEYLEN];
  verdict_key(&lost, 0, key, sizeof key);
  sigset_add(j->acc, lost.sig[0], key, at);
  j->start = at + j->stride;                    /* go on after the lost kernel */
  j->ended = fz_now() >= j->deadline;
  return !j->ended;
}

/* Run every job, at most `par` at once, each in its own child. */
static void run_jobs(Job *jobs, int n, int par, const FzPolicy *pol) {
  Pub *slots = mmap(NULL, sizeof(Pub) * (size_t)par, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED) die("mmap: %s", strerror(errno));
  Kid kids[MAXJOBS] = {{0}};
  int *queue = malloc(sizeof(int) * (size_t)(n + 1)), qh = 0, qt = 0, live = 0;
  if (!queue) die("out of memory");
  for (int i = 0; i < n; i++) queue[qt++] = i;
  while (qh < qt || live) {
    for (int w = 0; w < par && qh < qt; w++)
      if (!kids[w].pid) spawn(&kids[w], jobs, queue[qh++], pol, &slots[w]), live++;
    usleep(5000);
    for (int w = 0; w < par; w++) {
      int st = 0;
      bool hung;
      if (!kids[w].pid || !fz_reap(kids[w].pid, slots[w].cur >= 0, slots[w].started, &st, &hung)) continue;
      kids[w].pid = 0;
      live--;
      int j = kids[w].job;
      if (ended(&jobs[j], &slots[w], st, hung)) {
        if (qh > 0) queue[--qh] = j;            /* run it again next, in this slot's turn */
        else queue[qt++] = j;
      }
    }
  }
  free(queue);
  munmap(slots, sizeof(Pub) * (size_t)par);
}

/* ---- the bench -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sort the n trial times in place; their median. */
static double median(double *ts, int n) {
  qsort(ts, (size_t)n, sizeof *ts, cmp_double);
  return n % 2 ? ts[n / 2] : (ts[n / 2 - 1] + ts[n / 2]) / 2;
}

/* Order signatures by their first kernel, then by text: a stable report. */
static int cmp_first(const void *a, const void *b, void *ctx) {
  const SigSet *s = ctx;
  int x = *(const int *)a, y = *(const int *)b;
  if (s->first[x] != s->first[y]) return s->first[x] < s->first[y] ? -1 : 1;
  return strcmp(s->sig[x], s->sig[y]);
}

/* who[i]: the defects that alone give signature i on the kernel that first
 * gave it. Signatures are striped over `par` children; each replay is forked
 * again by fz_replay, so a crash costs one replay, not the stripe. */
static void attribute(const SigSet *acc, const FzPolicy *pol, uint64_t seed, int par, uint32_t *who) {
  size_t bytes = sizeof(uint32_t) * (size_t)(acc->n + 1);
  uint32_t *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) die("mmap: %s", strerror(errno));
  memset(sh, 0, bytes);
  if (par > acc->n) par = acc->n;
  pid_t kids[MAXJOBS], parent = getpid();
  fflush(NULL);
  for (int w = 0; w < par; w++) {
    if ((kids[w] = fork()) < 0) die("fork: %s", strerror(errno));
    if (kids[w]) continue;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    for (int i = w; i < acc->n; i += par) {
      size_t len;
      char *text = fz_kernel_text(pol, seed, acc->first[i], &len);
      uint64_t ks = fz_kernel_seed(seed, acc->first[i]);
      uint32_t m = 0;
      for (int d = 0; d < BUG_N; d++) {
        FzReplay r = {.text = text, .len = len, .bugs = 1u << d, .input_seed = ks, .sched_seed = ks | 1};
        FzVerdict v;
        fz_replay(&r, FZ_HANG_SECONDS, &v);
        if (fz_verdict_has(&v, acc->sig[i])) m |= 1u << d;
      }
      free(text);
      sh[i] = m;
    }
    _exit(0);
  }
  for (int w = 0; w < par; w++)
    while (waitpid(kids[w], NULL, 0) < 0 && errno == EINTR) {
    }
  memcpy(who, sh, bytes);
  munmap(sh, bytes);
}

/* ---- --engine: libFuzzer and AFL++ as subprocesses -------------------------------- */

/* The first regular file of dir in name order (not README.txt), or false. */
static bool first_file(const char *dir, char *out, size_t n) {
  DIR *d = opendir(dir);
  if (!d) return false;
  char best[256] = "";
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && strcmp(e->d_name, "README.txt") && (!best[0] || strcmp(e->d_name, best) < 0))
      snprintf(best, sizeof best, "%s", e->d_name);
  closedir(d);
  if (best[0]) snprintf(out, n, "%s/%s", dir, best);
  return best[0] != 0;
}

/* Remove the scratch tree an engine run wrote (files and directories). */
static void rm_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    for (struct dirent *e; (e = readdir(d));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      struct stat sb;
      if (!lstat(sub, &sb) && S_ISDIR(sb.st_mode)) rm_tree(sub);
      else unlink(sub);
    }
    closedir(d);
  }
  rmdir(path);
}

/* Does the target, run on the seed file with defect d on, die by a signal? */
static bool seed_crashes(const char *bin, const char *seed, int d) {
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (!pid) {
    int in = open(seed, O_RDONLY), null = open("/dev/null", O_WRONLY);
    if (in < 0 || null < 0) _exit(127);
    dup2(in, 0), dup2(null, 1), dup2(null, 2);
    setenv("PTOFUZZ_BUGS", ir_bug_name(d), 1);
    setenv("ASAN_OPTIONS", "abort_on_error=1:symbolize=0", 0);
    execl(bin, bin, (char *)NULL);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFSIGNALED(st);
}

/* One engine run with defect d, seed r+1, at most S seconds: its wall time and,
 * when it left a crash file, the file's signatures. */
static bool engine_run(const char *bin, const char *seeds, bool afl, int d, int r, double S, double *t, FzVerdict *v) {
  char dir[] = "/tmp/ptofuzz-bench-XXXXXX", a[8][4200], crashes[300];
  if (!mkdtemp(dir)) die("mkdtemp: %s", strerror(errno));
  const char *dict = access("fuzz/ptofuzz.dict", R_OK) ? NULL : "fuzz/ptofuzz.dict";
  char *argv[24];
  int n = 0;
  snprintf(a[0], sizeof a[0], "%s/in", dir);
  mkdir(a[0], 0777);
  if (afl) {                                    /* one seed: a zero byte, the default kernel */
    snprintf(a[1], sizeof a[1], "%s/in/zero", dir);
    FILE *f = fopen(a[1], "wb");
    if (!f || fputc(0, f) == EOF || fclose(f)) die("cannot write %s", a[1]);
    snprintf(a[2], sizeof a[2], "%s/out", dir);
    snprintf(a[3], sizeof a[3], "%d", (int)S > 0 ? (int)S : 1);
    snprintf(a[4], sizeof a[4], "%d", r + 1);
    snprintf(crashes, sizeof crashes, "%s/out/default/crashes", dir);
    argv[n++] = "afl-fuzz", argv[n++] = "-V", argv[n++] = a[3], argv[n++] = "-s", argv[n++] = a[4];
    argv[n++] = "-i", argv[n++] = a[0], argv[n++] = "-o", argv[n++] = a[2], argv[n++] = "-G", argv[n++] = "512";
    argv[n++] = "-t", argv[n++] = "25000";
    if (dict) argv[n++] = "-x", argv[n++] = (char *)dict;
    argv[n++] = "--", argv[n++] = (char *)bin;
  } else {
    snprintf(crashes, sizeof crashes, "%s/crashes", dir);
    mkdir(crashes, 0777);
    snprintf(a[1], sizeof a[1], "-max_total_time=%d", (int)S > 0 ? (int)S : 1);
    snprintf(a[2], sizeof a[2], "-seed=%d", r + 1);
    snprintf(a[3], sizeof a[3], "-artifact_prefix=%s/", crashes);
    snprintf(a[4], sizeof a[4], "-dict=%s", dict ? dict : "");
    argv[n++] = (char *)bin, argv[n++] = a[1], argv[n++] = a[2], argv[n++] = a[3];
    argv[n++] = "-max_len=512", argv[n++] = "-len_control=10", argv[n++] = "-timeout=25";
    if (dict) argv[n++] = a[4];
    argv[n++] = a[0];
    if (seeds) argv[n++] = (char *)seeds;       /* read only: libFuzzer writes the first directory */
  }
  argv[n] = NULL;
  fflush(NULL);
  double t0 = fz_now();
  if (afl && seed_crashes(bin, a[1], d)) {      /* afl-fuzz refuses a crashing seed: that is the finding */
    *t = fz_now() - t0;
    memset(v, 0, sizeof *v);
    fz_sign_input((const uint8_t *)"", 1, 1u << d, v);
    fprintf(stderr, "bench: engine afl %s run %d: %.3f s, the seed itself: %s\n", ir_bug_name(d), r, *t,
            v->n ? v->sig[0] : "a crash without a finding");
    rm_tree(dir);
    return true;
  }
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (!pid) {
    setpgid(0, 0);                              /* the engine and its targets: one group to stop */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1), dup2(null, 2);
    setenv("PTOFUZZ_BUGS", ir_bug_name(d), 1);
    setenv("AFL_BENCH_UNTIL_CRASH", "1", 1), setenv("AFL_NO_UI", "1", 1), setenv("AFL_SKIP_CPUFREQ", "1", 1);
    setenv("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1", 1), setenv("ASAN_OPTIONS", "abort_on_error=1:symbolize=0", 0);
    execvp(argv[0], argv);
    _exit(127);
  }
  setpgid(pid, pid);
  int st = 0;
  for (;;) {                                    /* the engine stops itself; a hard limit in case it does not */
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (fz_now() - t0 > S + 60) {
      kill(-pid, SIGKILL);
      waitpid(pid, &st, 0);
      break;
    }
    usleep(20000);
  }
  *t = fz_now() - t0;
  kill(-pid, SIGKILL);                          /* anything of the group still running */
  char file[4200];
  memset(v, 0, sizeof *v);
  bool found = first_file(crashes, file, sizeof file);
  if (found) {
    uint8_t *buf = NULL;
    size_t len = 0;
    if (fz_read_bytes(file, &buf, &len)) fz_sign_input(buf, len, 1u << d, v);
    free(buf);
    fprintf(stderr, "bench: engine %s %s run %d: %.3f s, %s\n", afl ? "afl" : "libfuzzer", ir_bug_name(d), r,
            *t, v->n ? v->sig[0] : "a crash file without a finding");
  } else if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
    fprintf(stderr, "bench: engine: cannot run %s\n", argv[0]);
  }
  rm_tree(dir);
  return found;
}

static int bench_engine(const FzRunOpts *o) {
  bool afl = !strcmp(o->engine, "afl");
  const char *bin = o->engine_bin ? o->engine_bin : afl ? "build-afl/bin/ptofuzz-stdin" : "build-libfuzzer/bin/ptofuzz-libfuzzer";
  if (access(bin, X_OK)) {
    printf("bench: engine %s: %s is not built (make %s); skipped\n", o->engine, bin, afl ? "afl" : "libfuzzer");
    return 0;
  }
  if (afl && system("command -v afl-fuzz > /dev/null 2>&1")) {
    printf("bench: engine afl: afl-fuzz is not on PATH; skipped\n");
    return 0;
  }
  int N = o->trials < 1 ? 1 : o->trials;
  double S = o->seconds > 0 ? o->seconds : 10;
  double *ts = malloc(sizeof(double) * (size_t)N);
  if (!ts) die("out of memory");
  for (int d = 0; d < BUG_N; d++) {
    int found = 0;
    SigSet *u = calloc(1, sizeof *u);
    if (!u) die("out of memory");
    for (int r = 0; r < N; r++) {
      FzVerdict v;
      double t;
      bool f = engine_run(bin, o->engine_seeds, afl, d, r, S, &t, &v);
      found += f;
      ts[r] = f ? t : S;
      for (int k = 0; k < v.n; k++) sigset_add(u, v.sig[k], "", r);
    }
    double med = median(ts, N);
    printf("engine=%s defect=%s found=%d/%d median_s=%.3f max_s=%.3f signatures=%d\n", o->engine, ir_bug_name(d), found,
           N, med, ts[N - 1], u->n);
    fflush(stdout);
    free(u);
  }
  free(ts);
  return 0;
}

int fz_bench_defects(const FzRunOpts *o) {
  if (o->engine) return bench_engine(o);
  FzPolicy pol;
  fz_policy_default(&pol);
  char err[256];
  if (o->policy_path && !fz_policy_load(&pol, o->policy_path, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: %s\n", err);
    return 1;
  }
  int par = o->jobs < 1 ? 1 : o->jobs > MAXJOBS ? MAXJOBS : o->jobs;
  int N = o->trials < 1 ? 1 : o->trials;
  double S = o->seconds > 0 ? o->seconds : 10;

  /* Trials: defect-major, so the lines come in defects.def order. */
  int nj = BUG_N * N;
  Job *jobs = calloc((size_t)nj, sizeof *jobs);
  if (!jobs) die("out of memory");
  for (int d = 0; d < BUG_N; d++)
    for (int t = 0; t < N; t++)
      jobs[d * N + t] = (Job){.bugs = 1u << d, .seed = fz_kernel_seed(o->seed, t), .start = 0, .stride = 1,
                              .seconds = S, .stop_first = true};
  run_jobs(jobs, nj, par, &pol);
  double *ts = malloc(sizeof(double) * (size_t)N);
  if (!ts) die("out of memory");
  for (int d = 0; d < BUG_N; d++) {
    int found = 0;
    SigSet *u = calloc(1, sizeof *u);
    if (!u) die("out of memory");
    for (int t = 0; t < N; t++) {
      const Job *j = &jobs[d * N + t];
      found += j->found;
      ts[t] = j->found ? j->t : S;
      for (int k = 0; k < j->v.n; k++) {
        char key[KEYLEN];
        verdict_key(&j->v, k, key, sizeof key);
        sigset_add(u, j->v.sig[k], key, t);
      }
    }
    double med = median(ts, N);
    printf("defect=%s found=%d/%d median_s=%.3f max_s=%.3f signatures=%d clusters=%d\n", ir_bug_name(d), found, N, med,
           ts[N - 1], u->n, clusters_of(u, NULL, 0));
    fflush(stdout);
    for (int k = 0; k < u->n; k++)
      fprintf(stderr, "bench: %s trial signature %s cluster %s\n", ir_bug_name(d), u->sig[k], u->key[k]);
    free(u);
  }
  fflush(stdout);
  free(ts);
  free(jobs);

  /* The all-defects campaign: J stripes of the kernels of --seed, S seconds. */
  SigSet *acc = calloc(1, sizeof *acc);
  Job *stripes = calloc((size_t)par, sizeof *stripes);
  if (!acc || !stripes) die("out of memory");
  double deadline = fz_now() + S;
  for (int w = 0; w < par; w++)
    stripes[w] = (Job){.bugs = (1u << BUG_N) - 1, .seed = o->seed, .start = w, .stride = par, .deadline = deadline,
                       .acc = acc};
  run_jobs(stripes, par, par, &pol);
  int64_t kernels = 0;
  for (int w = 0; w < par; w++) kernels += stripes[w].kernels;
  free(stripes);
  fprintf(stderr, "bench: all defects: %lld kernels, %d signatures\n", (long long)kernels, acc->n);

  /* Attribution: replay each signature's first kernel with one defect at a time. */
  int *order = malloc(sizeof(int) * (size_t)(acc->n + 1));
  uint32_t *who = calloc((size_t)acc->n + 1, sizeof *who);
  if (!order || !who) die("out of memory");
  for (int i = 0; i < acc->n; i++) order[i] = i;
  qsort_r(order, (size_t)acc->n, sizeof *order, cmp_first, acc);
  attribute(acc, &pol, o->seed, par, who);
  for (int x = 0; x < acc->n; x++) {
    int i = order[x];
    char names[600];
    ir_bugs_format(who[i], names, sizeof names);
    fprintf(stderr, "bench: all signature %s cluster %s kernel %lld: %s\n", acc->sig[i], acc->key[i],
            (long long)acc->first[i], who[i] ? names : "unattributed");
  }
  for (int d = 0; d < BUG_N; d++) {
    int k = 0;
    for (int i = 0; i < acc->n; i++) k += who[i] >> d & 1u;
    printf("all defect=%s signatures=%d clusters=%d\n", ir_bug_name(d), k, clusters_of(acc, who, d));
    fflush(stdout);
  }
  int unattributed = 0;
  char shared[8192] = "";
  size_t at = 0;
  for (int x = 0; x < acc->n; x++) {
    int i = order[x];
    unattributed += !who[i];
    if (!(who[i] & (who[i] - 1))) continue;     /* zero or one defect */
    at += (size_t)snprintf(shared + at, at < sizeof shared ? sizeof shared - at : 0, "%s%s:", at ? "," : "", acc->sig[i]);
    bool first = true;
    for (int d = 0; d < BUG_N; d++)
      if (who[i] >> d & 1u) {
        at += (size_t)snprintf(shared + at, at < sizeof shared ? sizeof shared - at : 0, "%s%s", first ? "" : "+",
                               ir_bug_name(d));
        first = false;
      }
  }
  printf("all: signatures=%d clusters=%d unattributed=%d shared=%s\n", acc->n, clusters_of(acc, NULL, 0), unattributed,
         at ? shared : "none");
  free(order);
  free(who);
  free(acc);
  return 0;
}

/* ---- `ptofuzz bench scale` ----------------------------------------------------------- */

/* How compile time and memory grow with the size of a kernel. For each kind
 * and size N a kernel is generated (in the measuring child, so the parent's
 * memory does not count):
 *
 *   loads      N x (t_i = load(A, ...); store(O, ..., t_i);)        2N statements, N names
 *   transfers  N x (x_i = load(mat); h_i = matmul(x_i, w); g_i = relu(h_i); store(g_i))
 *              N cube -> vector transfers, 4N statements
 *   params     N tensor parameters, one load and one store
 *
 * and each phase runs in a forked child: `compile` (ptoc's pipeline, the
 * kernel's own split and target), `emit` (the pipeline then --emit=pto) and
 * `reference` (the front end and the golden run, with no step budget). One line per phase:
 *
 *   scale kind=K n=N stmts=S phase=P seconds=F cpu_s=F maxrss_kb=K text_kb=K result=ok|CODE|signal-S|timeout
 *
 * stmts is the kernel's count of source statements (2N, 4N + 1, 2: its semicolons);
 * seconds is the phase's own wall time (measured in the child, the text's
 * generation excluded), cpu_s its processor time (user + system, from
 * getrusage in the child: on a shared machine the wall time also counts the
 * waits for a core), maxrss_kb the child's peak resident set (wait4's
 * ru_maxrss: the text, the arena, the simulator), text_kb the kernel's size.
 * A child is killed after --limit seconds. A benchmark, not a test: the
 * figures depend on the machine and its load. */

typedef struct {
  volatile double seconds, cpu;
  volatile int done;
  char result[64];
} ScalePub;

static const char *const scale_kinds[] = {"loads", "transfers", "params", NULL};
static const char *const scale_phases[] = {"compile", "emit", "reference", NULL};

typedef struct {
  char *p;
  size_t n, cap;
} SBuf;
static void sb_printf(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(SBuf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) die("vsnprintf");
    if (b->p && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    b->cap = (b->cap + (size_t)k + 1) * 2;
    if (!(b->p = realloc(b->p, b->cap))) die("out of memory");
  }
}

/* The kernel of one kind and size, malloc'd. */
static char *scale_kernel(int kind, long n, size_t *len) {
  SBuf b = {0};
  sb_printf(&b, "# ptofuzz bench scale: %s, n=%ld\n", scale_kinds[kind], n);
  if (kind == 0) {
    sb_printf(&b, "kernel scale(A: f32[16, 16] in, O: f32[16, 16] out) {\n");
    for (long i = 0; i < n; i++)
      sb_printf(&b, "  t%ld = load(A, [0, 0], [16, 16]);\n  store(O, [0, 0], t%ld);\n", i, i);
  } else if (kind == 1) {
    sb_printf(&b, "kernel scale(A: f32[16, 16] in, W: f32[16, 16] in, O: f32[16, 16] out) {\n"
                  "  w = load(W, [0, 0], [16, 16], space=mat);\n");
    for (long i = 0; i < n; i++)
      sb_printf(&b,
                "  x%ld = load(A, [0, 0], [16, 16], space=mat);\n  h%ld = matmul(x%ld, w);\n  g%ld = relu(h%ld);\n"
                "  store(O, [0, 0], g%ld);\n",
                i, i, i, i, i, i);
  } else {
    sb_printf(&b, "kernel scale(");
    for (long i = 0; i < n; i++) sb_printf(&b, "P%ld: f32[16, 16] in, ", i);
    sb_printf(&b, "O: f32[16, 16] out) {\n  t = load(P%ld, [0, 0], [16, 16]);\n  store(O, [0, 0], t);\n", n > 0 ? n - 1 : 0);
  }
  sb_printf(&b, "}\n");
  *len = b.n;
  return b.p;
}

static double cpu_now(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru)) die("getrusage: %s", strerror(errno));
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static _Noreturn void scale_child(int kind, long n, int phase, double limit, ScalePub *pub) {
  signal(SIGALRM, SIG_DFL);
  if (limit > 0) alarm((unsigned)(limit + 0.999));
  size_t len;
  char *text = scale_kernel(kind, n, &len);
  double t0 = fz_now(), c0 = cpu_now();
  Comp c = {.A = ir_arena_new(), .src = {"scale", text, len}, .o = {.split = -1, .target = -1}};
  const char *res = "ok";
  Kernel *k = phase == 2 ? ir_front(&c) : pass_pipeline(&c, NULL);
  if (!k) {
    res = ir_diag_name(c.diag.code);
  } else if (phase == 1) {
    PtoNames nm = {"scale_aic", "scale_aiv", NULL, NULL};
    if (!ir_emit_pto(&c, k, &nm)) res = ir_diag_name(c.diag.code);
  } else if (phase == 2) {
    if (!k->expanded) pass_flatten(&c, k);
    SimOpts so = {.max_steps = UINT64_MAX};     /* the whole run: 10^5 transfers exceed the default budget */
    Sim *s = sim_new(k, &so);
    if (!sim_run_reference(s)) res = ir_diag_name(sim_diag(s)->code);
    sim_free(s);
  }
  pub->seconds = fz_now() - t0;
  pub->cpu = cpu_now() - c0;
  snprintf(pub->result, sizeof pub->result, "%s", res);
  pub->done = 1;
  _exit(0);
}

int fz_bench_scale(int argc, char **argv) {
  long sizes[16] = {1000, 10000, 100000};
  int nsizes = 3;
  bool kinds[3] = {true, true, true}, phases[3] = {true, true, true};
  double limit = 600;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--sizes=", 8)) {
      nsizes = 0;
      for (const char *p = a + 8; *p;) {
        char *e;
        long v = strtol(p, &e, 10);
        if (e == p || v < 1 || v > 10000000 || nsizes == 16 || (*e && *e != ',')) return -1;
        sizes[nsizes++] = v;
        p = *e ? e + 1 : e;
      }
      if (!nsizes) return -1;
    } else if (!strncmp(a, "--kinds=", 8) || !strncmp(a, "--phases=", 9)) {
      bool sel = a[2] == 'k';
      const char *const *names = sel ? scale_kinds : scale_phases;
      bool *on = sel ? kinds : phases;
      memset(on, 0, 3 * sizeof *on);
      for (const char *p = strchr(a, '=') + 1; *p;) {
        size_t w = strcspn(p, ",");
        int j = 0;
        while (names[j] && (strlen(names[j]) != w || strncmp(names[j], p, w))) j++;
        if (!names[j]) return -1;
        on[j] = true;
        p += w + (p[w] == ',');
      }
    } else if (!strncmp(a, "--limit=", 8)) {
      char *e;
      limit = strtod(a + 8, &e);
      if (*e || !(limit > 0)) return -1;
    } else {
      return -1;
    }
  }
  ScalePub *pub = mmap(NULL, sizeof *pub, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (pub == MAP_FAILED) die("mmap: %s", strerror(errno));
  for (int kd = 0; kd < 3; kd++)
    for (int si = 0; si < nsizes && kinds[kd]; si++)
      for (int ph = 0; ph < 3; ph++) {
        if (!phases[ph]) continue;
        size_t len;
        char *text = scale_kernel(kd, sizes[si], &len);   /* its size and statements, for the line */
        long stmts = 0;
        for (size_t i = 0; i < len; i++) stmts += text[i] == ';';   /* every statement ends with one */
        free(text);
        memset((void *)pub, 0, sizeof *pub);
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) die("fork: %s", strerror(errno));
        if (!pid) scale_child(kd, sizes[si], ph, limit, pub);
        int st = 0;
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        while (wait4(pid, &st, 0, &ru) < 0)
          if (errno != EINTR) die("wait4: %s", strerror(errno));
        char res[80];
        if (pub->done) snprintf(res, sizeof res, "%s", pub->result);
        else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) snprintf(res, sizeof res, "timeout");
        else if (WIFSIGNALED(st)) snprintf(res, sizeof res, "signal-%d", WTERMSIG(st));
        else snprintf(res, sizeof res, "exit-%d", WEXITSTATUS(st));
        printf("scale kind=%s n=%ld stmts=%ld phase=%s seconds=%.3f cpu_s=%.3f maxrss_kb=%ld text_kb=%zu result=%s\n",
               scale_kinds[kd], sizes[si], stmts, scale_phases[ph], pub->done ? pub->seconds : 0.0, pub->done ? pub->cpu : 0.0,
               ru.ru_maxrss, (len + 1023) / 1024, res);
        fflush(stdout);
      }
  munmap((void *)pub, sizeof *pub);
  return 0;
}
