/* ptofuzz_main.c — the ptofuzz command (DESIGN section 12):
 *   diff FILE [--bugs=LIST]     one kernel through the oracle; exit 0 clean, 3 finding
 *   run [--time=S|--count=N] [--seed=N] [--jobs=J] [--db=F] [--bugs=LIST] [--policy=F] [--random-every=N]
 *   gen [--seed=N] [--count=N] [--out=DIR] [--stats] [--policy=F] [--print-policy]
 *   bench throughput [--time=S | --count=N] [--seed=N] [--policy=F] [--bugs=LIST] [--random-every=N]
 *   bench defects [--time=S] [--trials=N] [--jobs=J] [--seed=N] [--policy=F]
 *   db (list|show ID|stats|merge F...|export ID) [--db=F]
 *   reduce FILE [--signature=SIG] [--bugs=LIST] [--seed=N] [-o OUT] [--max-calls=N] [--time=S]
 *          [--backend=model|ptoas] [--ptoas=P] [--pto-isa=D] [--jobs=J]
 *   reduce --finding=ID [--db=F] [-o OUT] [--max-calls=N] [--time=S] [--backend=model|ptoas] [...]
 * `diff` runs the check in a child process so a crash becomes an outcome. */
#include "fz.h"
#include "orc.h"
#include "rep.h"

#include <sys/stat.h>

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(void) {
  fputs("usage: ptofuzz diff FILE [--bugs=LIST] [--seed=N] [--inputs=full|k16] [--backend=model|ptoas|both] [--ptoas=P] [--pto-isa=D] [--jobs=J] [--keep-work]\n"
        "       ptofuzz run [--time=S|--count=N] [--seed=N] [--jobs=J] [--db=F] [--bugs=LIST] [--policy=F] [--random-every=N]\n"
        "                   [--backend=model|ptoas|both] [--real-every=N] [--real-batch=N] [--ptoas=P] [--pto-isa=D]\n"
        "       ptofuzz gen [--seed=N] [--count=N] [--out=DIR] [--stats] [--policy=F] [--print-policy]\n"
        "       ptofuzz bench throughput [--time=S | --count=N] [--seed=N] [--policy=F] [--bugs=LIST] [--random-every=N]\n"
        "                            [--backend=model|ptoas] [--jobs=J] [--real-batch=N]\n"
        "       ptofuzz bench defects [--time=S] [--trials=N] [--jobs=J] [--seed=N] [--policy=F]\n"
        "       ptofuzz db (list|show ID|stats|merge F...|export ID) [--db=F]\n"
        "       ptofuzz reduce FILE [--signature=SIG] [--bugs=LIST] [--seed=N] [-o OUT] [--max-calls=N] [--time=S]\n"
        "                           [--backend=model|ptoas] [--ptoas=P] [--pto-isa=D] [--jobs=J]\n"
        "       ptofuzz reduce --finding=ID [--db=F] [-o OUT] [--max-calls=N] [--time=S] [--backend=model|ptoas] [...]\n", stderr);
  return 1;
}

static bool num(const char *a, const char *key, double *out) {
  size_t n = strlen(key);
  if (strncmp(a, key, n)) return false;
  char *e;
  double v = strtod(a + n, &e);
  if (!a[n] || *e || v < 0) return false;
  *out = v;
  return true;
}

static bool flag(const char *a, const char *key, const char **out) {
  size_t n = strlen(key);
  if (strncmp(a, key, n) || !a[n]) return false;
  *out = a + n;
  return true;
}

/* Read FILE into A; on failure report E-IO and free A. */
static bool read_kernel(Arena *A, const char *file, Src *src) {
  if (ir_read_file(A, file, src)) return true;
  fprintf(stderr, "%s:0:0: error[E-IO]: cannot read the file [user]\n", file);
  ir_arena_free(A);
  return false;
}

static bool parse_bugs(const char *text, uint32_t *bugs) { return ir_bugs_option("ptofuzz", text, bugs); }

/* The options `run` and `bench throughput` share: which kernels, how checked. */
static bool kernel_opt(const char *a, FzRunOpts *o) {
  double v;
  const char *b;
  if (flag(a, "--backend=", &b)) {
    o->backend = !strcmp(b, "model") ? FZ_MODEL : !strcmp(b, "ptoas") ? FZ_PTOAS : !strcmp(b, "both") ? FZ_MODEL | FZ_PTOAS : -1;
    return true;
  }
  if (num(a, "--real-every=", &v) && v >= 1) o->real_every = (int)v;
  else if (num(a, "--real-batch=", &v) && v >= 1) o->real_batch = (int)v;
  else if (flag(a, "--ptoas=", &o->ptoas) || flag(a, "--pto-isa=", &o->pto_isa)) {
  } else if (num(a, "--time=", &v)) o->seconds = v, o->count = 0;
  else if (num(a, "--count=", &v)) o->count = (int64_t)v;
  else if (num(a, "--seed=", &v)) o->seed = (uint64_t)v;
  else if (num(a, "--random-every=", &v) && v >= 1) o->random_every = (int)v;
  else return flag(a, "--policy=", &o->policy_path) || flag(a, "--bugs=", &o->bugs_text);
  return true;
}

static int run(int argc, char **argv) {
  FzRunOpts o = {.seconds = 60, .jobs = 1, .db = "findings.db", .bugs_text = getenv("PTOFUZZ_BUGS")};
  for (int i = 0; i < argc; i++) {
    double v;
    const char *a = argv[i];
    if (kernel_opt(a, &o)) continue;
    if (num(a, "--jobs=", &v)) o.jobs = (int)v;
    else if (flag(a, "--db=", &o.db)) {
    } else if (!strcmp(a, "--quiet")) o.quiet = true;
    else return usage();
  }
  if (!parse_bugs(o.bugs_text, &o.bugs)) return 1;
  if (o.backend < 0) {
    fputs("ptofuzz: run: --backend= takes model, ptoas or both\n", stderr);
    return 1;
  }
  if (o.backend == (FZ_MODEL | FZ_PTOAS) && !o.real_every) o.real_every = 64;   /* both: a sample on the real back end */
  return fz_run(&o);
}

static int gen(int argc, char **argv) {
  double seed = 0, count = 1;
  const char *out = NULL, *policy = NULL;
  bool stats = false, print_policy = false;
  for (int i = 0; i < argc; i++) {
    if (num(argv[i], "--seed=", &seed) || num(argv[i], "--count=", &count) || flag(argv[i], "--out=", &out) ||
        flag(argv[i], "--policy=", &policy)) {
    } else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (!strcmp(argv[i], "--print-policy")) print_policy = true;
    else return usage();
  }
  FzPolicy pol;
  fz_policy_default(&pol);
  char err[256];
  if (policy && !fz_policy_load(&pol, policy, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: %s\n", err);
    return 1;
  }
  if (print_policy) {                           /* a starting point for --policy=F */
    fz_policy_print(&pol, stdout);
    return 0;
  }
  if (out && mkdir(out, 0777) && errno != EEXIST) {
    fprintf(stderr, "ptofuzz: cannot create %s\n", out);
    return 1;
  }
  uint64_t feat[FZ_NFEAT] = {0};
  for (int64_t i = 0; i < (int64_t)count; i++) {
    FzSrc src;
    fz_src_seed(&src, fz_kernel_seed((uint64_t)seed, i));
    FzKernel *k = fz_generate(&pol, &src);
    uint8_t f[FZ_NFEAT];
    fz_features(k, f);
    for (int j = 0; j < FZ_NFEAT; j++) feat[j] += f[j];
    size_t len;
    char *text = fz_emit(k, &len);
    fz_free(k);
    if (out) {
      char path[4096];
      snprintf(path, sizeof path, "%s/k%06lld.ptk", out, (long long)i);
      FILE *fp = fopen(path, "wb");
      if (!fp || fwrite(text, 1, len, fp) != len) {
        fprintf(stderr, "ptofuzz: cannot write %s\n", path);
        return 1;
      }
      fclose(fp);
    } else if (!stats) {
      fwrite(text, 1, len, stdout);
    }
    free(text);
  }
  if (stats) {
    printf("stats: kernels=%lld\n", (long long)count);
    for (int j = 0; j < FZ_NFEAT; j++)
      printf("feature %-28s %8llu %.4f\n", fz_feature_name(j), (unsigned long long)feat[j], count ? feat[j] / count : 0.0);
  }
  return 0;
}

/* bench defects: per defect, --trials campaigns of at most --time seconds
 * with that defect alone; then one all-defects campaign (bench.c). */
static int bench_defects(int argc, char **argv) {
  FzRunOpts o = {.seconds = 10, .seed = 1, .jobs = 1, .trials = 3};
  for (int i = 1; i < argc; i++) {
    double v;
    const char *a = argv[i];
    if (num(a, "--time=", &v) && v > 0) o.seconds = v;
    else if (num(a, "--trials=", &v) && v >= 1 && v <= 1000) o.trials = (int)v;
    else if (num(a, "--jobs=", &v) && v >= 1) o.jobs = (int)v;
    else if (num(a, "--seed=", &v)) o.seed = (uint64_t)v;
    else if (!flag(a, "--policy=", &o.policy_path)) return usage();
  }
  return fz_bench_defects(&o);
}

static int bench(int argc, char **argv) {
  if (argc >= 1 && !strcmp(argv[0], "defects")) return bench_defects(argc, argv);
  if (argc < 1 || strcmp(argv[0], "throughput")) return usage();
  FzRunOpts o = {.seconds = 10, .seed = 1, .bugs_text = getenv("PTOFUZZ_BUGS")};
  for (int i = 1; i < argc; i++) {
    double v;
    if (num(argv[i], "--jobs=", &v) && v >= 1) o.jobs = (int)v;
    else if (!kernel_opt(argv[i], &o)) return usage();
  }
  if (!parse_bugs(o.bugs_text, &o.bugs)) return 1;
  if (o.backend < 0 || o.backend == (FZ_MODEL | FZ_PTOAS)) {
    fputs("ptofuzz: bench throughput: --backend= takes model or ptoas\n", stderr);
    return 1;
  }
  return fz_bench_throughput(&o);
}

static int dbcmd(int argc, char **argv) {
  const char *path = "findings.db", *args[64];
  int n = 0;
  for (int i = 0; i < argc; i++) {
    if (flag(argv[i], "--db=", &path)) continue;
    if (n < 64) args[n++] = argv[i];
  }
  if (!n) return usage();
  char err[256];
  Db *d = db_open(path, err, sizeof err);
  if (!d) {
    fprintf(stderr, "ptofuzz: cannot open %s: %s\n", path, err);
    return 1;
  }
  int rc = 1;
  char *e = NULL;
  long long id = n > 1 ? strtoll(args[1], &e, 10) : 0;
  bool idok = n == 2 && e && !*e;
  if (!strcmp(args[0], "list") && n == 1) rc = db_cmd_list(d, stdout);
  else if (!strcmp(args[0], "stats") && n == 1) rc = db_cmd_stats(d, stdout);
  else if (!strcmp(args[0], "show") && idok) rc = db_cmd_show(d, id, stdout);
  else if (!strcmp(args[0], "export") && idok) rc = db_cmd_export(d, id, stdout);
  else if (!strcmp(args[0], "merge") && n > 1) {
    rc = 0;
    for (int i = 1; i < n && !rc; i++)
      if (db_merge(d, args[i], err, sizeof err)) rc = 0;
      else fprintf(stderr, "ptofuzz: merge %s: %s\n", args[i], err), rc = 1;
  } else {
    db_close(d);
    return usage();
  }
  db_close(d);
  return rc;
}

typedef struct {
  int fd;                                       /* progress to the parent */
  uint64_t sched_seed;
} DiffCtx;

static void sched_name(const DiffCtx *d, int sched, char *buf, size_t n) {
  if (sched) snprintf(buf, n, "random:%llu", (unsigned long long)d->sched_seed);
  else snprintf(buf, n, "rr");
}

static void progress(void *ctx, int v, int sched) {
  DiffCtx *d = ctx;
  unsigned char b[2] = {(unsigned char)v, (unsigned char)sched};
  if (write(d->fd, b, 2) != 2) _exit(2);
}

/* A variant's line after its code: what a non-ok outcome names, a finding's
 * signature, and the detail on a line of its own. */
static void report_rest(const VarResult *r) {
  if (r->out != OUT_OK && r->out != OUT_UNSUPPORTED)
    printf(" op=%s pass=%s pattern=%s", r->op, r->pass, r->pattern);
  if (orc_is_finding(r->out)) {
    char sig[200];
    orc_signature(r, sig, sizeof sig);
    printf(" sig=%s", sig);
    if (r->same_as) printf(" same_as=%s", orc_variants[r->same_as - 1]);
  }
  putchar('\n');
  if (r->out != OUT_OK) printf("  # %s\n", r->detail);
  fflush(stdout);
}

static void report(void *ctx, const VarResult *r) {
  char sn[32];
  sched_name(ctx, r->sched, sn, sizeof sn);
  printf("variant=%s schedule=%s outcome=%s code=%s", orc_variants[r->variant], sn, orc_outcome_name(r->out), r->code);
  report_rest(r);
}

/* One line per real variant, as the model's lines. */
static void report_real(const VarResult *r) {
  printf("variant=%s outcome=%s code=%s", orc_variant_name(r), orc_outcome_name(r->out), r->code);
  report_rest(r);
}

/* The real toolchain, or a coded error (exit 2: the environment, not the kernel). */
static bool real_tools(RealTools *t, const char *ptoas, const char *isa) {
  if (orc_real_find(t, ptoas, isa)) return true;
  fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable real toolchain: %s\n", t->why);
  return false;
}

/* The kernel through the real back end; 0 clean, 3 finding, 2 the tools failed. */
static int diff_real(const Src *src, uint64_t seed, uint32_t bugs, const RealTools *t, int jobs, bool keep) {
  RealCase rc = {.src = src, .input_seed = seed, .bugs = bugs, .only = -1};
  orc_real_check(t, &rc, 1, &(RealOpts){.jobs = jobs, .keep = keep}, NULL);
  if (rc.invalid) {
    fputs("invalid: ", stdout);
    ir_diag_print(stdout, src, &rc.why);
    return 1;
  }
  for (int i = 0; i < rc.n; i++) report_real(&rc.r[i]);
  fflush(stdout);
  return rc.finding ? 3 : rc.toolerr ? 2 : 0;
}

static int diff(int argc, char **argv) {
  const char *file = NULL, *backend = "model", *ptoas = NULL, *isa = NULL;
  OrcOpts o = {.bisect = true, .sched_seed = 1};
  const char *bugs = getenv("PTOFUZZ_BUGS");
  double jobs = 2;
  bool keep = false;
  for (int i = 0; i < argc; i++) {
    if (!strncmp(argv[i], "--seed=", 7)) o.input_seed = strtoull(argv[i] + 7, NULL, 10);
    else if (!strcmp(argv[i], "--keep-work")) keep = true;
    else if (!strcmp(argv[i], "--inputs=full") || !strcmp(argv[i], "--inputs=k16")) o.full_inputs = argv[i][9] == 'f';
    else if (flag(argv[i], "--bugs=", &bugs) || flag(argv[i], "--backend=", &backend) ||
             flag(argv[i], "--ptoas=", &ptoas) || flag(argv[i], "--pto-isa=", &isa) || num(argv[i], "--jobs=", &jobs)) {
    } else if (argv[i][0] == '-' || file) return usage();
    else file = argv[i];
  }
  if (!parse_bugs(bugs, &o.bugs)) return 1;
  if (!file) return usage();
  bool model = !strcmp(backend, "model") || !strcmp(backend, "both");
  bool real = !strcmp(backend, "ptoas") || !strcmp(backend, "both");
  if (!model && !real) {
    fprintf(stderr, "ptofuzz: diff: unknown back end '%s' (model, ptoas or both)\n", backend);
    return 1;
  }
  RealTools tools;
  if (real && !real_tools(&tools, ptoas, isa)) return 2;
  Arena *A = ir_arena_new();
  Src src;
  if (!read_kernel(A, file, &src)) return 1;
  if (!model) {
    int rc = diff_real(&src, o.input_seed, o.bugs, &tools, jobs < 1 ? 1 : (int)jobs, keep);
    if (rc != 1) printf("verdict=%s\n", rc == 3 ? "finding" : rc == 2 ? "tool-error" : "clean");
    ir_arena_free(A);
    return rc;
  }
  int fds[2];
  if (pipe(fds)) die("pipe failed");
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    close(fds[0]);
    DiffCtx d = {fds[1], o.sched_seed};
    o.progress = progress;
    o.report = report;
    o.ctx = &d;
    OrcResult res;
    orc_check(&src, &o, &res);
    if (res.invalid) {
      fputs("invalid: ", stdout);
      fflush(stdout);
      ir_diag_print(stdout, &src, &res.why);
      fflush(stdout);
      _exit(1);
    }
    if (!real) printf("verdict=%s\n", res.finding ? "finding" : "clean");
    fflush(stdout);
    _exit(res.finding ? 3 : 0);
  }
  close(fds[1]);
  unsigned char cur[2] = {0, 0}, b[2];
  while (read(fds[0], b, 2) == 2) memcpy(cur, b, 2);
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st) && real && WEXITSTATUS(st) != 1) {   /* both: the real back end after the model */
    int rc = diff_real(&src, o.input_seed, o.bugs, &tools, jobs < 1 ? 1 : (int)jobs, keep);
    int m = WEXITSTATUS(st);
    rc = m == 3 || rc == 3 ? 3 : rc == 2 ? 2 : m;
    printf("verdict=%s\n", rc == 3 ? "finding" : rc == 2 ? "tool-error" : "clean");
    ir_arena_free(A);
    return rc;
  }
  ir_arena_free(A);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  DiffCtx d = {-1, o.sched_seed};
  char sn[32];
  sched_name(&d, cur[1], sn, sizeof sn);
  printf("variant=%s schedule=%s outcome=crash code=%s\n", orc_variants[cur[0] % ORC_NVARIANT], sn,
         WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
  printf("verdict=finding\n");
  return 3;
}

/* Is sig a real back end's signature (kind|ptoas:MODE|...)? */
static bool real_sig(const char *sig) {
  const char *m = sig ? strchr(sig, '|') : NULL;
  return m && !strncmp(m + 1, "ptoas:", 6);
}

/* `reduce`: the kernel from FILE (its first finding's signature unless
 * --signature) or from finding ID's first test case (its signature, defects,
 * seed), reduced by fz_reduce_text against the oracle; printed, and for a
 * finding stored with db_set_reduced. --backend=ptoas (the default when the
 * signature is a real back end's) checks candidates with the real toolchain
 * instead (fz_keep_real_sig: on the one variant that showed the signature),
 * capped at FZ_REDUCE_REAL_MAX_CALLS checks, with progress on stderr. Exit 0
 * ok, 1 usage or a kernel without the signature, 2 internal error or no
 * usable real toolchain. */
static int reduce(int argc, char **argv) {
  const char *file = NULL, *sig = NULL, *out = NULL, *dbpath = "findings.db", *bugs = NULL, *fid = NULL;
  const char *backend = NULL, *ptoas = NULL, *isa = NULL;
  bool seeded = false, opt_db = false;
  double calls = 0, secs = 0, jobs = 0;
  FzCheckOpts co = {.sched_seed = 1};           /* as `ptofuzz diff` */
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--seed=", 7)) {
      char *e;
      co.input_seed = strtoull(a + 7, &e, 10);
      if (!a[7] || *e) return usage();
      seeded = true;
    } else if (flag(a, "--signature=", &sig) || flag(a, "--bugs=", &bugs) || flag(a, "--finding=", &fid) ||
               flag(a, "-o=", &out) || flag(a, "--backend=", &backend) || flag(a, "--ptoas=", &ptoas) ||
               flag(a, "--pto-isa=", &isa)) {
    } else if (flag(a, "--db=", &dbpath)) opt_db = true;
    else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (num(a, "--max-calls=", &calls) || num(a, "--time=", &secs) || (num(a, "--jobs=", &jobs) && jobs >= 1)) {
    } else if (a[0] == '-' || file) return usage();
    else file = a;
  }
  if (!file == !fid || (fid && (sig || bugs || seeded)) || (file && opt_db) || (calls && calls < 2)) return usage();
  if (backend && strcmp(backend, "model") && strcmp(backend, "ptoas")) {
    fprintf(stderr, "ptofuzz: reduce: unknown back end '%s' (model or ptoas)\n", backend);
    return 1;
  }
  if ((ptoas || isa || jobs) && backend && !strcmp(backend, "model")) {
    fputs("ptofuzz: reduce: --ptoas, --pto-isa and --jobs apply to --backend=ptoas\n", stderr);
    return 1;
  }
  char *text = NULL, err[256];
  Db *d = NULL;
  long long id = 0;
  DbCase dc = {0};
  FzReal *real = NULL;
  if (file) {
    if (!ir_bugs_option("ptofuzz", bugs, &co.bugs)) return 1;
    Arena *A = ir_arena_new();
    Src src;
    if (!read_kernel(A, file, &src)) return 1;
    text = malloc(src.len + 1);
    if (!text) die("out of memory");
    memcpy(text, src.text, src.len);
    text[src.len] = 0;
    ir_arena_free(A);
  } else {
    char *e;
    id = strtoll(fid, &e, 10);
    if (!*fid || *e) return usage();
    if (!(d = db_open(dbpath, err, sizeof err))) {
      fprintf(stderr, "ptofuzz: cannot open %s: %s\n", dbpath, err);
      return 1;
    }
    if (!db_first_case(d, id, &dc, err, sizeof err)) {
      fprintf(stderr, "ptofuzz: %s\n", err);
      db_close(d);
      return 1;
    }
    /* flags as a campaign writes them: "--bugs=LIST schedule=rr|random" or "--bugs=LIST --backend=ptoas" */
    for (char *t = strtok(dc.flags, " "); t; t = strtok(NULL, " "))
      if (!strcmp(t, "--backend=ptoas") && !backend) backend = "ptoas";
      else if (!strcmp(t, "--inputs=full")) co.full_inputs = true;
      else if (!strncmp(t, "--bugs=", 7) && !ir_bugs_parse(t + 7, &co.bugs, err, sizeof err)) {
        fprintf(stderr, "ptofuzz: finding %lld: %s\n", id, err);
        db_case_free(&dc);
        db_close(d);
        return 1;
      }
    co.input_seed = dc.seed, co.sched_seed = dc.seed | 1;   /* a campaign's seeds (fuzz/campaign.c) */
    sig = dc.signature;
    text = dc.kernel, dc.kernel = NULL;
  }
  int rc = 1;
  const char *name = file ? file : "the test case";
  bool use_real = backend ? !strcmp(backend, "ptoas") : real_sig(sig);
  FzSigs first = {0};
  FzRealCase c0 = {.name = name, .text = text, .len = strlen(text), .bugs = co.bugs, .input_seed = co.input_seed};
  double t0 = fz_now();
  if (use_real) {
    if (!(real = fz_real_open(ptoas, isa, (int)jobs, err, sizeof err))) {
      fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable real toolchain: %s\n", err);
      rc = 2;
      goto done;
    }
    fprintf(stderr, "reduce: the real back end (ptoas %s): every variant once, then the one that shows the signature\n",
            fz_real_version(real));
    fz_real_replay(real, &c0, 1, 0);
    if (c0.lost || c0.v.invalid) {
      fprintf(stderr, "ptofuzz: reduce: %s: %s%s\n", name, c0.v.invalid ? "the kernel is invalid: " : "", c0.v.why);
      rc = c0.lost ? 2 : 1;
      goto done;
    }
    for (int i = 0; i < c0.v.n; i++) snprintf(first.sig[first.n++], FZ_SIGLEN, "%s", c0.v.sig[i]);
  } else if (!fz_check_sigs(text, strlen(text), &co, &first)) {
    fprintf(stderr, "ptofuzz: reduce: cannot fork a check: %s\n", strerror(errno));
    rc = 2;
    goto done;
  }
  double once = fz_now() - t0;
  if (!sig && !first.n) {
    fprintf(stderr, "ptofuzz: reduce: %s gives no finding%s\n", name, use_real ? " on the real back end" : "");
    for (int i = 0; use_real && i < c0.n; i++)
      if (!strcmp(c0.var[i].outcome, "tool-error"))
        fprintf(stderr, "ptofuzz: reduce: %s: tool error: %s\n", c0.var[i].name, c0.var[i].detail);
    rc = use_real && c0.toolerr ? 2 : 1;
    goto done;
  }
  if (!sig) sig = first.sig[0];
  bool found = false;
  for (int i = 0; i < first.n; i++) found |= !strcmp(first.sig[i], sig);
  if (!found) {
    fprintf(stderr, "ptofuzz: reduce: %s does not give the signature %s\n", name, sig);
    goto done;
  }
  FzReduceStats st;
  int max_calls = calls ? (int)calls : use_real ? FZ_REDUCE_REAL_MAX_CALLS : FZ_REDUCE_MAX_CALLS;
  char *red;
  if (use_real) {
    const char *only = NULL;                    /* the first variant that shows it */
    for (int i = 0; i < c0.n && !only; i++)
      if (!strcmp(c0.var[i].sig, sig)) only = c0.var[i].name;
    /* a watchdog far above a check's time: the real tools have limits of their own */
    FzRealTarget tg = {.real = real, .sig = sig, .only = only, .bugs = co.bugs, .input_seed = co.input_seed,
                       .timeout_s = 120 + 10 * once, .t0 = fz_now()};
    fprintf(stderr, "reduce: %s gives %s on %s (%.1f s); at most %d checks, %.0f s\n", name, sig, only, once,
            max_calls, secs > 0 ? secs : (double)FZ_REDUCE_MAX_SECONDS);
    red = fz_reduce_text(text, fz_keep_real_sig, &tg, &(FzReduceLimits){max_calls - 1, secs}, &st);
  } else {
    /* a candidate slower than ten times the original is taken for a hang, unless
     * the target is one: then a campaign's limit (fz_check_sigs's default) */
    co.timeout_s = strstr(sig, "|watchdog|") ? 0 : once * 10 < 2 ? 2 : once * 10 > 20 ? 20 : once * 10;
    FzSigTarget tg = {sig, co};
    red = fz_reduce_text(text, fz_keep_sig, &tg, &(FzReduceLimits){max_calls - 1, secs}, &st);
  }
  FILE *f = out ? fopen(out, "wb") : stdout;
  if (!f) {
    fprintf(stderr, "ptofuzz: cannot write %s\n", out);
    free(red);
    goto done;
  }
  fputs(red, f);
  if (out ? fclose(f) != 0 : fflush(f) != 0) {
    fprintf(stderr, "ptofuzz: cannot write %s\n", out ? out : "stdout");
    free(red);
    rc = 2;
    goto done;
  }
  rc = 0;
  if (d && !db_set_reduced(d, id, red, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: reduce: storing the reduced kernel: %s\n", err);
    rc = 2;
  }
  fprintf(stderr, "reduce: statements %d -> %d, oracle calls %d, signature %s\n", st.stmts_before, st.stmts_after,
          st.calls + 1, sig);
  if (st.capped)
    fprintf(stderr, "reduce: stopped by a limit (%d oracle calls, %.0f s): the result may not be minimal\n", max_calls,
            secs > 0 ? secs : (double)FZ_REDUCE_MAX_SECONDS);
  free(red);
done:
  free(text);
  fz_real_free(real);
  db_case_free(&dc);
  db_close(d);
  return rc;
}

int main(int argc, char **argv) {
  /* Every kernel allocates and frees the same few megabytes: keep them in the
   * heap instead of handing them back to the kernel (page faults, zeroing). */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  if (argc < 2) return usage();
  if (!strcmp(argv[1], "diff")) return diff(argc - 2, argv + 2);
  if (!strcmp(argv[1], "run")) return run(argc - 2, argv + 2);
  if (!strcmp(argv[1], "gen")) return gen(argc - 2, argv + 2);
  if (!strcmp(argv[1], "bench")) return bench(argc - 2, argv + 2);
  if (!strcmp(argv[1], "db")) return dbcmd(argc - 2, argv + 2);
  if (!strcmp(argv[1], "reduce")) return reduce(argc - 2, argv + 2);
  fprintf(stderr, "ptofuzz: unknown command '%s'\n", argv[1]);
  return usage();
}
