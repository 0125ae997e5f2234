/* ptofuzz_main.c — the ptofuzz command (DESIGN section 12):
 *   diff FILE [--bugs=LIST]     one kernel through the oracle; exit 0 clean, 3 finding
 *   run [--time=S|--count=N] [--seed=N] [--jobs=J] [--db=F] [--bugs=LIST] [--policy=F] [--random-every=N]
 *   gen [--seed=N] [--count=N] [--out=DIR] [--bytes-out=DIR] [--stats] [--coverage] [--policy=F] [--print-policy]
 *   bench throughput [--time=S | --count=N] [--seed=N] [--policy=F] [--bugs=LIST] [--random-every=N]
 *   bench defects [--time=S] [--trials=N] [--jobs=J] [--seed=N] [--policy=F]
 *   db (init|list|show ID|stats|export ID|status ID new|triaged|fixed|wontfix|merge F...) [--db=F]
 *   bench scale [--sizes=N,...] [--kinds=LIST] [--phases=LIST] [--limit=S]
 *   reduce FILE [--signature=SIG] [--bugs=LIST] [--seed=N] [-o OUT] [--max-calls=N] [--time=S]
 *          [--backend=model|ptoas] [--ptoas=P] [--pto-isa=D] [--jobs=J]
 *   reduce --finding=ID [--db=F] [-o OUT] [--max-calls=N] [--time=S] [--backend=model|ptoas] [...]
 *   report ID [--db=F] [--format=md|html|json] [-o FILE] [--bundle DIR [--replays=N]]   dashboard [--db=F] -o DIR
 * Every command and subcommand answers --help (usage on stdout, exit 0) and
 * --version; a usage error names the bad argument (exit 1). `run` without
 * --seed draws a fresh seed (/dev/urandom, else the clock) that the summary
 * line and the campaign row record. `diff` honours a reproducer's `# flags:`
 * and `# seed:` header lines (`ptofuzz db export`) unless the command line
 * sets them. `diff` runs the check in a child process so a crash becomes an
 * outcome. */
#include "fz.h"
#include "orc.h"
#include "rep.h"
#include "pto_version.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The table of command cmd ("bench defects"), else of its first word, else the top level's. */
static const IrCmd *cmd_of(const char *cmd) {
  const IrCmd *c = cmd ? fz_cmd(cmd) : NULL;
  if (!c && cmd) {
    char first[16];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(cmd, " "), cmd);
    c = fz_cmd(first);
  }
  return c ? c : fz_cmd("");
}

/* cmd's full help on stdout (rc 0), or its usage lines on f; returns rc. */
static int usage_of(const char *cmd, FILE *f, int rc) {
  const IrCmd *c = cmd_of(cmd);
  if (!rc) ir_cli_help(f, c);
  else ir_cli_usage(f, c), fprintf(f, "(%s --help: every option)\n", c->name);
  return rc;
}

static int usage(void) { return usage_of(NULL, stderr, 1); }

/* A usage error that names the argument (E-USAGE, exit 1). */
static int bad_arg(const char *cmd, const char *arg, const char *why) {
  return ir_cli_fail(cmd_of(cmd), "%s '%s'", why ? why : "unknown or malformed argument", arg);
}

/* The first bad value of a command line (E-USAGE, exit 1). */
static int bad_val(const char *cmd, const IrCliBad *b) { return ir_cli_fail(cmd_of(cmd), "'%s': %s", b->arg, b->why); }

/* A usage error in words (E-USAGE, exit 1). */
static int bad_use(const char *cmd, const char *why) { return ir_cli_fail(cmd_of(cmd), "%s", why); }

static int version(void) {
  printf("ptofuzz %s (commit %s)\n", PTO_VERSION, PTO_COMMIT);
  return 0;
}

/* --seed=N: a decimal uint64, exactly (a double would round seeds above 2^53). */
static bool seed_opt(const char *a, uint64_t *out, IrCliBad *bad) { return ir_cli_u64(a, "--seed=", out, bad); }

/* An int option key in [lo, hi] into *out (left as it was when the value is bad: *bad says why). */
static bool int_opt(const char *a, const char *key, int lo, int hi, int *out, IrCliBad *bad) {
  int64_t v = *out;
  if (!ir_cli_int(a, key, lo, hi, &v, bad)) return false;
  *out = (int)v;
  return true;
}

enum { MAX_JOBS_OPT = 1024 };                   /* --jobs=J at most */
static const double MAX_SECONDS = 1e9;          /* --time=S and the like: about 31 years */

/* A fresh campaign seed: 8 bytes of /dev/urandom, else the clock and the pid. */
static uint64_t fresh_seed(void) {
  uint64_t v = 0;
  FILE *f = fopen("/dev/urandom", "rb");
  bool got = f && fread(&v, sizeof v, 1, f) == 1;
  if (f) fclose(f);
  if (!got) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = fz_kernel_seed((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, getpid());
  }
  return v;
}

static bool num(const char *a, const char *key, double *out) {
  size_t n = strlen(key);
  if (strncmp(a, key, n)) return false;
  char *e;
  double v = strtod(a + n, &e);
  if (!a[n] || *e || !(v >= 0 && v <= MAX_SECONDS)) return false;   /* no nan, no inf, no overflowing cast */
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
static bool kernel_opt(const char *a, FzRunOpts *o, IrCliBad *bad) {
  const char *b;
  if (flag(a, "--backend=", &b)) {
    o->backend = !strcmp(b, "model") ? FZ_MODEL : !strcmp(b, "ptoas") ? FZ_PTOAS : !strcmp(b, "both") ? FZ_MODEL | FZ_PTOAS
               : !strcmp(b, "pypto") ? FZ_PYPTO : -1;
    return o->backend > 0;                      /* an unknown back end: a usage error that names it */
  }
  if (int_opt(a, "--real-every=", 1, INT_MAX, &o->real_every, bad) ||
      int_opt(a, "--pypto-every=", 1, INT_MAX, &o->pypto_every, bad) ||
      int_opt(a, "--pypto-batch=", 1, 256, &o->pypto_batch, bad) ||
      ir_cli_real(a, "--pypto-timeout=", 0, MAX_SECONDS, true, &o->pypto_timeout, bad) ||
      flag(a, "--pypto=", &o->pypto)) {
  } else if (!strcmp(a, "--pypto-checks=ab") || !strcmp(a, "--pypto-checks=abc")) o->pypto_ab = a[17] == 0;
  else if (int_opt(a, "--real-batch=", 1, INT_MAX, &o->real_batch, bad) || flag(a, "--ptoas=", &o->ptoas) ||
           flag(a, "--pto-isa=", &o->pto_isa)) {
  } else if (ir_cli_real(a, "--time=", 0, MAX_SECONDS, true, &o->seconds, bad)) o->count = 0;   /* the last bound wins */
  else if (ir_cli_int(a, "--count=", 1, INT64_MAX, &o->count, bad) || seed_opt(a, &o->seed, bad) ||
           int_opt(a, "--random-every=", 1, INT_MAX, &o->random_every, bad)) {
  } else return flag(a, "--policy=", &o->policy_path) || flag(a, "--bugs=", &o->bugs_text);
  return true;
}

static int reduce(int argc, char **argv);
static int stoppable(int (*cmd)(int, char **), const char *name, int argc, char **argv);

/* A campaign's --reduce-new: finding id of database db reduced as `reduce
 * --finding=ID` does, within `seconds`, quietly, with the campaign's tools. */
static int reduce_new(void *ctx, const char *db, int64_t id, double seconds) {
  const FzRunOpts *o = ctx;
  char a[6][4200];
  snprintf(a[0], sizeof a[0], "--finding=%lld", (long long)id);
  snprintf(a[1], sizeof a[1], "--db=%s", db);
  snprintf(a[2], sizeof a[2], "--time=%.3f", seconds);
  char *argv[12] = {a[0], a[1], a[2], "-o", "/dev/null", "--quiet"};
  int n = 6;
  if (o->ptoas) snprintf(a[3], sizeof a[3], "--ptoas=%s", o->ptoas), argv[n++] = a[3];
  if (o->pto_isa) snprintf(a[4], sizeof a[4], "--pto-isa=%s", o->pto_isa), argv[n++] = a[4];
  if (o->pypto) snprintf(a[5], sizeof a[5], "--pypto=%s", o->pypto), argv[n++] = a[5];
  return reduce(n, argv);
}

static int run(int argc, char **argv) {
  FzRunOpts o = {.seconds = 60, .jobs = 1, .db = "findings.db", .bugs_text = getenv("PTOFUZZ_BUGS"),
                 .reduce = reduce_new};
  o.reduce_ctx = &o;
  bool seeded = false;
  IrCliBad bad = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    seeded |= !strncmp(a, "--seed=", 7);
    if (kernel_opt(a, &o, &bad)) continue;
    if (int_opt(a, "--jobs=", 1, MAX_JOBS_OPT, &o.jobs, &bad)) {
    } else if (!strncmp(a, "--shard=", 8)) {
      if (!fz_parse_shard(a + 8, &o.shard_i, &o.shard_n)) return bad_arg("run", a, "--shard=I/N takes 0 <= I < N:");
    } else if (flag(a, "--db=", &o.db) || flag(a, "--artifacts=", &o.artifacts)) {
    } else if (!strcmp(a, "--quiet")) o.quiet = true;
    else if (ir_cli_real(a, "--reduce-new=", 0, MAX_SECONDS, false, &o.reduce_new, &bad) ||
             int_opt(a, "--error-exitcode=", 1, 255, &o.error_exitcode, &bad)) {
    } else return bad_arg("run", a, NULL);
  }
  if (bad.arg) return bad_val("run", &bad);
  struct stat st;
  if (o.artifacts && (stat(o.artifacts, &st) || !S_ISDIR(st.st_mode)))   /* before the campaign starts */
    return ir_cli_error("ptofuzz run", "--artifacts=%s: not an existing directory", o.artifacts);
  if (!seeded) o.seed = fresh_seed();           /* printed on the summary line, kept in the campaign row */
  if (!parse_bugs(o.bugs_text, &o.bugs)) return 1;
  if (o.backend < 0) return bad_use("run", "--backend= takes model, ptoas, both or pypto");
  if (o.backend == (FZ_MODEL | FZ_PTOAS) && !o.real_every) o.real_every = 64;   /* both: a sample on the real back end */
  if (o.pypto_every) {
    if (o.backend && o.backend != FZ_MODEL)
      return bad_use("run", "--pypto-every=N samples PyPTO beside the model (--backend=model)");
    o.backend = FZ_MODEL | FZ_PYPTO;
  }
  return fz_run(&o);
}

/* gen --bytes-out: write kernel i's recorded choices, trailing zero bytes cut
 * (a missing byte reads as zero), as DIR/kNNNNNN.bin when the bytes generate
 * the same kernel text; a kernel they do not (a choice no byte expresses) is
 * named on stderr and skipped. False when the file cannot be written. */
static bool gen_bytes(const FzPolicy *pol, FzKernel *k, const FzSrc *rs, const char *dir, int64_t i) {
  if (rs->rec_n > rs->rec_cap || rs->rec_lost) {
    fprintf(stderr, "ptofuzz: gen: kernel %lld: no byte input generates it, skipped\n", (long long)i);
    return true;
  }
  size_t n = rs->rec_n;
  while (n && !rs->rec[n - 1]) n--;
  FzSrc bs;
  fz_src_bytes(&bs, rs->rec, n);
  FzKernel *kb = fz_generate(pol, &bs);
  size_t la, lb;
  char *a = fz_emit(k, &la), *b = fz_emit(kb, &lb);
  fz_free(kb);
  bool same = la == lb && !memcmp(a, b, la);
  free(a);
  free(b);
  if (!same) {
    fprintf(stderr, "ptofuzz: gen: kernel %lld: its bytes generate another kernel, skipped\n", (long long)i);
    return true;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/k%06lld.bin", dir, (long long)i);
  FILE *fp = fopen(path, "wb");
  bool ok = fp && fwrite(rs->rec, 1, n, fp) == n;
  if (fp && fclose(fp)) ok = false;
  if (!ok) fprintf(stderr, "ptofuzz: cannot write %s\n", path);
  return ok;
}

static int gen(int argc, char **argv) {
  int64_t count = 1;
  IrCliBad bad = {0};
  uint64_t seed = 0;
  const char *out = NULL, *policy = NULL, *bytes_out = NULL;
  bool stats = false, print_policy = false;
  FzCov *cov = NULL;                            /* --coverage: shares of the language's constructs */
  for (int i = 0; i < argc; i++) {
    if (seed_opt(argv[i], &seed, &bad) || ir_cli_int(argv[i], "--count=", 1, INT64_MAX, &count, &bad) ||
        flag(argv[i], "--out=", &out) ||
        flag(argv[i], "--policy=", &policy) || flag(argv[i], "--bytes-out=", &bytes_out)) {
    } else if (!strcmp(argv[i], "--coverage")) {
      if (!cov) cov = fz_cov_new();
    } else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (!strcmp(argv[i], "--print-policy")) print_policy = true;
    else if (!bad.arg) bad.arg = argv[i], snprintf(bad.why, sizeof bad.why, "unknown or malformed argument");
  }
  if (bad.arg) {
    if (cov) fz_cov_free(cov);
    return bad_val("gen", &bad);
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
  const char *dirs[] = {out, bytes_out};
  for (int i = 0; i < 2; i++)
    if (dirs[i] && mkdir(dirs[i], 0777) && errno != EEXIST)
      return ir_cli_error("ptofuzz gen", "cannot create %s: %s", dirs[i], strerror(errno));
  uint64_t feat[FZ_NFEAT] = {0}, npy = 0;
  size_t cap = (size_t)1 << 16;
  uint8_t *rec = bytes_out ? malloc(cap) : NULL;   /* --bytes-out: the kernel's choices as fuzzer bytes */
  if (bytes_out && !rec) return 2;
  for (int64_t i = 0; i < count; i++) {
    FzSrc src;
    fz_src_seed(&src, fz_kernel_seed(seed, i));
    if (bytes_out) fz_src_record(&src, rec, cap);
    FzKernel *k = fz_generate(&pol, &src);
    if (bytes_out && !gen_bytes(&pol, k, &src, bytes_out, i)) {
      free(rec);
      return 1;
    }
    uint8_t f[FZ_NFEAT];
    fz_features(k, f);
    for (int j = 0; j < FZ_NFEAT; j++) feat[j] += f[j];
    npy += k->pypto;
    size_t len;
    char *text = fz_emit(k, &len);
    fz_free(k);
    if (cov) fz_cov_add(cov, text, len);
    if (out) {
      char path[4096];
      snprintf(path, sizeof path, "%s/k%06lld.ptk", out, (long long)i);
      if (!fz_write_file(path, text, len)) {
        fprintf(stderr, "ptofuzz: cannot write %s\n", path);
        free(text);
        free(rec);
        if (cov) fz_cov_free(cov);
        return 1;
      }
    } else if (!stats && !cov && !bytes_out) {
      fwrite(text, 1, len, stdout);
    }
    free(text);
  }
  if (cov) {                                     /* docs/fuzzing.md: none below 0.5% */
    fz_cov_print(cov, stdout, 0.005);
    fz_cov_free(cov);
  }
  if (stats) {
    printf("stats: kernels=%lld\n", (long long)count);
    for (int j = 0; j < FZ_NFEAT; j++)
      printf("feature %-28s %8llu %.4f\n", fz_feature_name(j), (unsigned long long)feat[j], count ? (double)feat[j] / (double)count : 0.0);
    printf("share   %-28s %8llu %.4f\n", "pypto", (unsigned long long)npy, count ? (double)npy / (double)count : 0.0);
  }
  free(rec);
  if (fflush(stdout) || ferror(stdout)) {       /* a full disk, a closed pipe: not a silent success */
    fputs("ptofuzz: cannot write stdout\n", stderr);
    return 1;
  }
  return 0;
}

/* bench defects: per defect, --trials campaigns of at most --time seconds
 * with that defect alone; then one all-defects campaign (bench.c). */
static int bench_defects(int argc, char **argv) {
  FzRunOpts o = {.seconds = 10, .seed = 1, .jobs = 1, .trials = 3};
  IrCliBad bad = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (ir_cli_real(a, "--time=", 0, MAX_SECONDS, true, &o.seconds, &bad) ||
        int_opt(a, "--trials=", 1, 1000, &o.trials, &bad) || int_opt(a, "--jobs=", 1, MAX_JOBS_OPT, &o.jobs, &bad) ||
        seed_opt(a, &o.seed, &bad)) {
    } else if (flag(a, "--engine-bin=", &o.engine_bin) || flag(a, "--seeds=", &o.engine_seeds)) {
    } else if (flag(a, "--engine=", &o.engine)) {
      if (strcmp(o.engine, "libfuzzer") && strcmp(o.engine, "afl"))
        return bad_arg("bench defects", a, "--engine= takes libfuzzer or afl:");
    } else if (!flag(a, "--policy=", &o.policy_path)) return bad_arg("bench defects", a, NULL);
  }
  if (bad.arg) return bad_val("bench defects", &bad);
  if (o.engine_seeds && (!o.engine || strcmp(o.engine, "libfuzzer")))
    return bad_use("bench defects", "--seeds= needs --engine=libfuzzer");
  return fz_bench_defects(&o);
}

static int bench(int argc, char **argv) {
  if (argc >= 1 && !strcmp(argv[0], "defects")) return bench_defects(argc, argv);
  if (argc >= 1 && !strcmp(argv[0], "scale")) {
    int rc = fz_bench_scale(argc - 1, argv + 1);
    return rc < 0 ? bad_use("bench scale", "a bad --sizes, --kinds, --phases or --limit, or an unknown option") : rc;
  }
  if (argc < 1) return bad_use("bench", "which benchmark? (throughput, defects or scale)");
  if (strcmp(argv[0], "throughput")) return bad_arg("bench", argv[0], "unknown benchmark");
  FzRunOpts o = {.seconds = 10, .seed = 1, .bugs_text = getenv("PTOFUZZ_BUGS")};
  IrCliBad bad = {0};
  for (int i = 1; i < argc; i++)
    if (!int_opt(argv[i], "--jobs=", 1, MAX_JOBS_OPT, &o.jobs, &bad) && !kernel_opt(argv[i], &o, &bad))
      return bad_arg("bench throughput", argv[i], NULL);
  if (bad.arg) return bad_val("bench throughput", &bad);
  if (!parse_bugs(o.bugs_text, &o.bugs)) return 1;
  if (o.backend < 0 || (o.backend && o.backend != FZ_MODEL && o.backend != FZ_PTOAS && o.backend != FZ_PYPTO))
    return bad_use("bench throughput", "'--backend=both' is not a benchmark (model, ptoas or pypto)");
  return fz_bench_throughput(&o);
}

/* A finding id: a positive decimal integer, else a message naming it. */
static bool finding_id(const char *sub, const char *a, int64_t *id) {
  char *e;
  errno = 0;
  long long v = strtoll(a, &e, 10);
  if (*a && !*e && !errno && v > 0) {
    *id = v;
    return true;
  }
  fprintf(stderr, "ptofuzz: db %s: '%s' is not a finding id (a positive integer, as `ptofuzz db list` shows)\n",
          sub, a);
  return false;
}

/* `db merge F...`: every file, each in its own transaction; a file that fails
 * (missing, not a findings database, damaged) is named and skipped. Exit 0
 * when every file merged, 1 otherwise. */
static int db_merge_cmd(Db *d, const char *const *files, int n) {
  int failed = 0;
  for (int i = 0; i < n; i++) {
    char err[512];
    DbMergeStats st;
    if (db_merge(d, files[i], &st, err, sizeof err) < 0) {
      fprintf(stderr, "ptofuzz: db merge: %s\n", err);
      failed++;
      continue;
    }
    printf("merged %s: campaigns=%lld already_present=%lld kernels=%lld new_findings=%lld hits=%lld\n", files[i],
           (long long)st.campaigns, (long long)st.known, (long long)st.kernels, (long long)st.findings_new,
           (long long)st.hits);
  }
  if (failed) fprintf(stderr, "ptofuzz: db merge: %d of %d files not merged\n", failed, n);
  return failed ? 1 : 0;
}

static int dbcmd(int argc, char **argv) {
  const char *path = "findings.db", *args[64];
  int n = 0;
  if (argc && !strcmp(argv[0], "recheck")) {
    int rc = stoppable(fz_recheck, "db recheck", argc - 1, argv + 1);   /* bisect.c */
    return rc < 0 ? usage_of("db recheck", stderr, 1) : rc;
  }
  bool clusters = false;                        /* db list --clusters */
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (flag(a, "--db=", &path)) continue;
    if (!strcmp(a, "--clusters")) {
      clusters = true;
      continue;
    }
    bool number = a[0] == '-' && a[1] >= '0' && a[1] <= '9';   /* `db show -1`: an id, if a bad one */
    if (a[0] == '-' && !number) return bad_arg("db", a, NULL);
    if (n == 64) return bad_arg("db", a, "too many arguments, from");
    args[n++] = a;
  }
  if (!n) return bad_use("db", "which subcommand? (init, list, show, stats, export, status, merge or recheck)");
  const char *sub = args[0];
  if (clusters && strcmp(sub, "list")) return bad_arg("db", "--clusters", "only `db list` takes");
  static const struct {
    const char *name;
    int min, max;                               /* arguments after the subcommand */
    const char *what;
  } subs[] = {{"init", 0, 0, ""}, {"list", 0, 0, ""}, {"stats", 0, 0, ""}, {"show", 1, 1, " ID"}, {"export", 1, 1, " ID"},
              {"status", 2, 2, " ID new|triaged|fixed|wontfix"}, {"merge", 1, 63, " F..."}};
  int k = 0, ns = (int)(sizeof subs / sizeof *subs);
  while (k < ns && strcmp(sub, subs[k].name)) k++;
  if (k == ns) return bad_arg("db", sub, "unknown subcommand");
  char dsub[16];
  snprintf(dsub, sizeof dsub, "db %s", sub);
  if (n - 1 > subs[k].max) return bad_arg(dsub, args[subs[k].max + 1], "unexpected argument");
  if (n - 1 < subs[k].min) return ir_cli_fail(cmd_of(dsub), "missing argument (db %s%s)", sub, subs[k].what);
  int64_t id = 0;
  if (subs[k].min && strcmp(sub, "merge") && !finding_id(sub, args[1], &id)) return 1;
  char err[512];
  /* init and merge write (and may create) the database, status writes it; the others only read */
  bool create = !strcmp(sub, "merge") || !strcmp(sub, "init"), writes = create || !strcmp(sub, "status");
  Db *d = create ? db_open(path, err, sizeof err)
          : writes ? db_open_existing(path, err, sizeof err) : db_open_read(path, err, sizeof err);
  if (!d) {
    fprintf(stderr, "ptofuzz: db %s: cannot open %s\n", sub, err);
    return 1;
  }
  int rc = 1;
  if (!strcmp(sub, "init")) rc = printf("%s: findings database, schema version %d\n", path, db_schema_version(d)) < 0;
  else if (!strcmp(sub, "list")) rc = clusters ? rep_cmd_list_clusters(d, stdout) : db_cmd_list(d, stdout);
  else if (!strcmp(sub, "stats")) rc = db_cmd_stats(d, stdout);
  else if (!strcmp(sub, "show")) rc = db_cmd_show(d, id, stdout);
  else if (!strcmp(sub, "export")) rc = db_cmd_export(d, id, stdout);
  else if (!strcmp(sub, "merge")) rc = db_merge_cmd(d, args + 1, n - 1);
  else if (db_set_status(d, id, args[2], NULL, err, sizeof err)) {
    printf("finding %lld: status %s\n", (long long)id, args[2]);
    rc = 0;
  } else {
    fprintf(stderr, "ptofuzz: db status: %s\n", err);
    db_close(d);
    return 1;
  }
  if (rc && strcmp(sub, "merge")) fprintf(stderr, "ptofuzz: db %s: %s (%s)\n", sub, db_errmsg(d), path);
  if (fflush(stdout)) {
    fprintf(stderr, "ptofuzz: db %s: cannot write the output\n", sub);
    rc = 1;
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
    if (r->same_as && r->backend)
      printf(" same_as=%s:none@%s", r->backend == 2 ? "pypto" : "ptoas", r->same_as == 1 ? "a3" : "a5");
    else if (r->same_as) printf(" same_as=%s", orc_variants[r->same_as - 1]);
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

/* The kernel through PyPTO (each build of the list), the real toolchain rt (or
 * NULL) behind it for check (c); 0 clean, 3 finding, 2 the tools failed, -2
 * no usable PyPTO (said on stderr). */
static int diff_pypto(const Src *src, uint64_t seed, const char *list, double timeout, const RealTools *rt, int jobs,
                      bool keep) {
  PyptoBuild b[ORC_PYPTO_MAXB];
  char why[300];
  int nb = orc_pypto_builds(list, b, ORC_PYPTO_MAXB, why, sizeof why);
  if (nb < 0) {
    fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable PyPTO: %s\n", why);
    return -2;
  }
  int rc = 0;
  for (int k = 0; k < nb; k++) {
    PyDrv *d = orc_pypto_open(&b[k], timeout, why, sizeof why);
    if (!d) {
      fprintf(stderr, "ptofuzz: error[E-TOOL]: PyPTO %s: %s\n", b[k].dir, why);
      return -2;
    }
    PyCase pc = {.src = src, .input_seed = seed, .only = -1};
    orc_pypto_check(d, rt, &pc, 1, &(RealOpts){.jobs = jobs, .keep = keep}, NULL);
    orc_pypto_close(d);
    if (orc_stop_pending()) return 2;           /* stopped: no verdict (diff ends by the signal) */
    if (pc.invalid) {
      fputs("invalid: ", stdout);
      ir_diag_print(stdout, src, &pc.why);
      return 1;
    }
    for (int i = 0; i < pc.n; i++) {
      const VarResult *r = &pc.r[i];
      if (nb > 1) printf("pypto=%.9s ", b[k].commit);
      printf("variant=%s check=%c outcome=%s code=%s", orc_variant_name(r), r->check, orc_outcome_name(r->out), r->code);
      report_rest(r);
    }
    fflush(stdout);
    rc = pc.finding || rc == 3 ? 3 : pc.toolerr ? 2 : rc;
  }
  return rc;
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
  if (orc_stop_pending()) return 2;             /* stopped: no verdict (diff ends by the signal) */
  if (rc.invalid) {
    fputs("invalid: ", stdout);
    ir_diag_print(stdout, src, &rc.why);
    return 1;
  }
  for (int i = 0; i < rc.n; i++) report_real(&rc.r[i]);
  fflush(stdout);
  return rc.finding ? 3 : rc.toolerr ? 2 : 0;
}

/* A reproducer's header (`ptofuzz db export`, fuzz/check.c's format): the
 * lines `# flags: --bugs=LIST [--backend=ptoas] [--inputs=full|k16] [schedule=rr|random]` and
 * `# seed: N`, at the start of a line anywhere in the file. Sets *bugs and
 * *backend and *inputs (-1 unset, 0 k16, 1 full) from the flags and *seed from
 * the seed line, each only where given (*bugs_set, *seed_set). False (message printed) on a malformed line. */
static bool diff_header(const char *file, const Src *src, uint32_t *bugs, bool *bugs_set, const char **backend,
                        int *inputs, uint64_t *seed, bool *seed_set) {
  int line = 0;
  for (const char *p = src->text, *end = src->text + src->len; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), p);
    p += n + (eol != NULL);
    line++;
    if (buf[0] != '#') continue;
    char *h = buf + 1 + strspn(buf + 1, " \t"), *save = NULL, err[256];
    if (!strncmp(h, "flags:", 6)) {
      for (char *t = strtok_r(h + 6, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
        if (!strncmp(t, "--bugs=", 7)) {
          if (!ir_bugs_parse(t + 7, bugs, err, sizeof err)) {
            fprintf(stderr, "%s:%d:%d: error[E-FLAGS]: # flags: %s [user]\n", file, line, (int)(t - buf) + 1, err);
            return false;
          }
          *bugs_set = true;
        } else if (!strncmp(t, "--backend=", 10) &&
                   (!strcmp(t + 10, "model") || !strcmp(t + 10, "ptoas") || !strcmp(t + 10, "pypto"))) {
          *backend = !strcmp(t + 10, "ptoas") ? "ptoas" : !strcmp(t + 10, "pypto") ? "pypto" : "model";
        } else if (!strcmp(t, "--inputs=full") || !strcmp(t, "--inputs=k16")) {
          *inputs = t[9] == 'f';
        } else if (strcmp(t, "schedule=rr") && strcmp(t, "schedule=random")) {
          /* diff runs both schedules: the schedule a campaign saw it under is covered */
          fprintf(stderr, "%s:%d:%d: error[E-FLAGS]: # flags: unknown flag '%s' (--bugs=LIST, --backend=model|ptoas|pypto, "
                          "--inputs=full|k16, schedule=rr|random) [user]\n", file, line, (int)(t - buf) + 1, t);
          return false;
        }
      }
    } else if (!strncmp(h, "seed:", 5)) {
      char *v = h + 5 + strspn(h + 5, " \t"), *e;
      size_t k = strcspn(v, " \t\r");
      errno = 0;
      unsigned long long x = strtoull(v, &e, 10);
      if (!k || v[0] < '0' || v[0] > '9' || e != v + k || errno) {
        if (!strcmp(v, "-")) continue;            /* exported without a seed */
        fprintf(stderr, "%s:%d:%d: error[E-FLAGS]: # seed: '%s' is not a decimal seed [user]\n", file, line,
                (int)(v - buf) + 1, v);
        return false;
      }
      *seed = x;
      *seed_set = true;
    }
  }
  return true;
}

static int diff_model(const Src *src, const OrcOpts *o, long long max_mem);

static int diff(int argc, char **argv) {
  const char *file = NULL, *backend = NULL, *ptoas = NULL, *isa = NULL, *pypto = NULL;
  double pytime = 0;
  OrcOpts o = {.bisect = true, .sched_seed = 1};
  const char *bugs = NULL;
  double jobs = 2;
  bool keep = false, seeded = false, inputs_set = false;
  IrCliBad bad = {0};
  int64_t max_mem = IR_MAX_MEM_MB;
  for (int i = 0; i < argc; i++) {
    if (seed_opt(argv[i], &o.input_seed, &bad)) seeded = true;
    else if (ir_cli_int(argv[i], "--max-mem=", 16, 1 << 24, &max_mem, &bad)) {
    }
    else if (!strcmp(argv[i], "--keep-work")) keep = true;
    else if (!strcmp(argv[i], "--inputs=full") || !strcmp(argv[i], "--inputs=k16")) o.full_inputs = argv[i][9] == 'f', inputs_set = true;
    else if (flag(argv[i], "--bugs=", &bugs) || flag(argv[i], "--backend=", &backend) ||
             flag(argv[i], "--ptoas=", &ptoas) || flag(argv[i], "--pto-isa=", &isa) ||
             flag(argv[i], "--pypto=", &pypto) || (num(argv[i], "--pypto-timeout=", &pytime) && pytime > 0) ||
             (num(argv[i], "--jobs=", &jobs) && jobs >= 1)) {
    } else if (argv[i][0] == '-') return bad_arg("diff", argv[i], NULL);
    else if (file) return bad_arg("diff", argv[i], "a second FILE");
    else file = argv[i];
  }
  if (bad.arg) return bad_val("diff", &bad);
  if (bugs && !parse_bugs(bugs, &o.bugs)) return 1;
  if (!file) {
    return bad_use("diff", "no kernel FILE given");
  }
  Arena *A = ir_arena_new();
  Src src;
  if (!read_kernel(A, file, &src)) return 1;
  /* the command line first, then the file's header, then $PTOFUZZ_BUGS */
  uint32_t hbugs = 0;
  uint64_t hseed = 0;
  bool hbugs_set = false, hseed_set = false;
  const char *hbackend = NULL;
  int hinputs = -1;
  if (!diff_header(file, &src, &hbugs, &hbugs_set, &hbackend, &hinputs, &hseed, &hseed_set)) {
    ir_arena_free(A);
    return 1;
  }
  if (!bugs && hbugs_set) o.bugs = hbugs;
  else if (!bugs && !parse_bugs(getenv("PTOFUZZ_BUGS"), &o.bugs)) {
    ir_arena_free(A);
    return 1;
  }
  if (!backend) backend = hbackend ? hbackend : "model";
  if (!inputs_set && hinputs >= 0) o.full_inputs = hinputs == 1;
  if (!seeded && hseed_set) o.input_seed = hseed, o.sched_seed = hseed | 1;   /* as the campaign ran it */
  if ((!bugs && hbugs_set) || (!seeded && hseed_set)) {
    char names[600];
    ir_bugs_format(o.bugs, names, sizeof names);
    fprintf(stderr, "diff: from %s's header: --bugs=%s --seed=%llu (random schedule seed %llu)\n", file, names,
            (unsigned long long)o.input_seed, (unsigned long long)o.sched_seed);
  }
  bool all = !strcmp(backend, "all");
  bool model = !strcmp(backend, "model") || !strcmp(backend, "both") || all;
  bool real = !strcmp(backend, "ptoas") || !strcmp(backend, "both") || all;
  bool py = !strcmp(backend, "pypto") || all;
  if (!model && !real && !py) {
    fprintf(stderr, "ptofuzz: diff: unknown back end '%s' (model, ptoas, both, pypto or all)\n", backend);
    ir_arena_free(A);
    return 1;
  }
  RealTools tools;
  if (real && !real_tools(&tools, ptoas, isa)) {
    ir_arena_free(A);
    return 2;
  }
  /* PyPTO's check (c) runs where the real toolchain is; without it (c) is skipped, said on its line */
  bool have_real = real || orc_real_find(&tools, ptoas, isa);
  int rc = 0;
  if (model) {
    rc = diff_model(&src, &o, max_mem);
    if (rc == 1) {
      ir_arena_free(A);
      return 1;
    }
  }
  /* the real back ends poll SIGINT, SIGTERM and SIGHUP (oracle/real.c): their
   * tools end and their work files go; the signal then ends diff */
  sigset_t old;
  orc_stop_block(&old);
  if (real) {
    int r = diff_real(&src, o.input_seed, o.bugs, &tools, jobs < 1 ? 1 : (int)jobs, keep);
    if (r == 1) {
      ir_arena_free(A);
      return 1;
    }
    rc = rc == 3 || r == 3 ? 3 : r == 2 ? 2 : rc;
  }
  if (py) {
    int r = diff_pypto(&src, o.input_seed, pypto, pytime, have_real ? &tools : NULL, jobs < 1 ? 1 : (int)jobs, keep);
    if (r == 1 || r == -2) {
      ir_arena_free(A);
      return r == 1 ? 1 : 2;
    }
    rc = rc == 3 || r == 3 ? 3 : r == 2 ? 2 : rc;
  }
  fflush(NULL);
  sigprocmask(SIG_SETMASK, &old, NULL);         /* a stop still pending ends diff here */
  printf("verdict=%s\n", rc == 3 ? "finding" : rc == 2 ? "tool-error" : "clean");
  ir_arena_free(A);
  return rc;
}

/* The model's variants of one kernel, in a forked child (a crash of the model is
 * a finding, not the end of diff); its lines printed. 0 clean, 3 finding, 1 invalid. */
static int diff_model(const Src *src_in, const OrcOpts *oin, long long max_mem) {
  Src src = *src_in;
  OrcOpts o = *oin;
  int fds[2];
  if (pipe(fds)) die("pipe failed");
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    close(fds[0]);
    ir_mem_limit(max_mem);                      /* beyond it: E-LIMIT, exit 1 (ir_oom) */
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
    fflush(stdout);
    _exit(res.finding ? 3 : 0);
  }
  close(fds[1]);
  unsigned char cur[2] = {0, 0}, b[2];
  while (read(fds[0], b, 2) == 2) memcpy(cur, b, 2);
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  DiffCtx d = {-1, o.sched_seed};
  char sn[32];
  sched_name(&d, cur[1], sn, sizeof sn);
  printf("variant=%s schedule=%s outcome=crash code=%s\n", orc_variants[cur[0] % ORC_NVARIANT], sn,
         WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
  return 3;
}

/* The back end of a signature (kind|ptoas:MODE|..., kind|pypto:MODE|...): "ptoas", "pypto", else NULL (the model). */
static const char *sig_backend(const char *sig) {
  const char *m = sig ? strchr(sig, '|') : NULL;
  return m && !strncmp(m + 1, "ptoas:", 6) ? "ptoas" : m && !strncmp(m + 1, "pypto:", 6) ? "pypto" : NULL;
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
/* cmd with SIGINT, SIGTERM and SIGHUP polled (fuzz/child.c, oracle/real.c):
 * the real tools it runs end and their work files go; then 128 + the signal. */
static int stoppable(int (*cmd)(int, char **), const char *name, int argc, char **argv) {
  sigset_t old;
  orc_stop_block(&old);
  int rc = cmd(argc, argv), stop = orc_stop_pending();
  if (stop) {
    fprintf(stderr, "ptofuzz: %s: stopped by SIG%s\n", name, sigabbrev_np(stop));
    rc = 128 + stop;
  }
  fflush(NULL);                                 /* what it printed, before the signal ends it */
  sigprocmask(SIG_SETMASK, &old, NULL);         /* a stop still pending ends the process here */
  return rc;
}

static int reduce_run(int argc, char **argv) {
  const char *file = NULL, *sig = NULL, *out = NULL, *dbpath = "findings.db", *bugs = NULL, *fid = NULL;
  const char *backend = NULL, *ptoas = NULL, *isa = NULL, *pypto = NULL;
  bool seeded = false, opt_db = false, quiet = false;
  double calls = 0, secs = 0, jobs = 0, pytime = 0;
  FzCheckOpts co = {.sched_seed = 1};           /* as `ptofuzz diff` */
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--seed=", 7)) {
      char *e;
      co.input_seed = strtoull(a + 7, &e, 10);
      if (!a[7] || *e) return bad_arg("reduce", a, NULL);
      seeded = true;
    } else if (flag(a, "--signature=", &sig) || flag(a, "--bugs=", &bugs) || flag(a, "--finding=", &fid) ||
               flag(a, "-o=", &out) || flag(a, "--backend=", &backend) || flag(a, "--ptoas=", &ptoas) ||
               flag(a, "--pto-isa=", &isa) || flag(a, "--pypto=", &pypto) ||
               (num(a, "--pypto-timeout=", &pytime) && pytime > 0)) {
    } else if (flag(a, "--db=", &dbpath)) opt_db = true;
    else if (!strcmp(a, "--quiet")) quiet = true;
    else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
    else if (num(a, "--max-calls=", &calls) || num(a, "--time=", &secs) || (num(a, "--jobs=", &jobs) && jobs >= 1)) {
    } else if (a[0] == '-') return bad_arg("reduce", a, NULL);
    else if (file) return bad_arg("reduce", a, "a second FILE");
    else file = a;
  }
  const char *why = !file == !fid ? "give either FILE or --finding=ID"
                    : fid && (sig || bugs || seeded) ? "--finding=ID takes the signature, defects and seed from the database"
                    : file && opt_db ? "--db=F goes with --finding=ID"
                    : calls && calls < 2 ? "--max-calls= must be at least 2" : NULL;
  if (why) return bad_use("reduce", why);
  if (backend && strcmp(backend, "model") && strcmp(backend, "ptoas") && strcmp(backend, "pypto"))
    return bad_arg("reduce", backend, "unknown back end (model, ptoas or pypto)");
  if ((ptoas || isa || jobs) && backend && !strcmp(backend, "model"))
    return bad_use("reduce", "--ptoas, --pto-isa and --jobs apply to --backend=ptoas or pypto");
  char *text = NULL, err[256];
  Db *d = NULL;
  long long id = 0;
  DbCase dc = {0};
  FzReal *real = NULL;
  if (file) {
    if (bugs && !ir_bugs_option("ptofuzz", bugs, &co.bugs)) return 1;
    Arena *A = ir_arena_new();
    Src src;
    if (!read_kernel(A, file, &src)) return 1;
    /* as diff: the command line first, then the file's header, then $PTOFUZZ_BUGS */
    uint32_t hbugs = 0;
    uint64_t hseed = 0;
    bool hbugs_set = false, hseed_set = false;
    const char *hbackend = NULL;
    int hinputs = -1;
    if (!diff_header(file, &src, &hbugs, &hbugs_set, &hbackend, &hinputs, &hseed, &hseed_set) ||
        (!bugs && !hbugs_set && !ir_bugs_option("ptofuzz", NULL, &co.bugs))) {
      ir_arena_free(A);
      return 1;
    }
    if (!bugs && hbugs_set) co.bugs = hbugs;
    if (!backend && hbackend) backend = hbackend;
    if (hinputs >= 0) co.full_inputs = hinputs == 1;
    if (!seeded && hseed_set) co.input_seed = hseed, co.sched_seed = hseed | 1;   /* as the campaign ran it */
    if (((!bugs && hbugs_set) || (!seeded && hseed_set)) && !quiet) {
      char names[600];
      ir_bugs_format(co.bugs, names, sizeof names);
      fprintf(stderr, "reduce: from %s's header: --bugs=%s --seed=%llu (random schedule seed %llu)\n", file, names,
              (unsigned long long)co.input_seed, (unsigned long long)co.sched_seed);
    }
    text = malloc(src.len + 1);
    if (!text) die("out of memory");
    memcpy(text, src.text, src.len);
    text[src.len] = 0;
    ir_arena_free(A);
  } else {
    char *e;
    id = strtoll(fid, &e, 10);
    if (!*fid || *e || id <= 0) return bad_arg("reduce", fid, "not a finding id");
    if (!(d = db_open_existing(dbpath, err, sizeof err))) {   /* never a new, empty file */
      fprintf(stderr, "ptofuzz: reduce: cannot open %s\n", err);
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
      else if (!strcmp(t, "--backend=pypto") && !backend) backend = "pypto";
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
  if (!backend) backend = sig_backend(sig);
  bool use_real = backend && strcmp(backend, "model"), use_py = use_real && !strcmp(backend, "pypto");
  FzSigs first = {0};
  FzRealCase c0 = {.name = name, .text = text, .len = strlen(text), .bugs = co.bugs, .input_seed = co.input_seed};
  double t0 = fz_now();
  if (use_real) {
    real = use_py ? fz_pypto_open(pypto, ptoas, isa, (int)jobs, pytime, err, sizeof err)
                  : fz_real_open(ptoas, isa, (int)jobs, err, sizeof err);
    if (!real) {
      fprintf(stderr, "ptofuzz: error[E-TOOL]: no usable %s: %s\n", use_py ? "PyPTO" : "real toolchain", err);
      rc = 2;
      goto done;
    }
    if (quiet) {
    } else if (use_py)
      fprintf(stderr, "reduce: the PyPTO back end (PyPTO %s): every variant once, then the one that shows the signature\n",
              fz_pypto_commit(real));
    else
      fprintf(stderr, "reduce: the real back end (ptoas %s): every variant once, then the one that shows the signature\n",
              fz_real_version(real));
    fz_real_replay(real, &c0, 1, 0);
    if (orc_stop_pending()) goto done;
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
  if (orc_stop_pending()) goto done;
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
                       .timeout_s = 120 + 10 * once, .deadline = fz_now() + (secs > 0 ? secs : FZ_REDUCE_MAX_SECONDS),
                       .quiet = quiet, .t0 = fz_now()};
    if (!quiet)
      fprintf(stderr, "reduce: %s gives %s on %s (%.1f s); at most %d checks, %.0f s\n", name, sig, only, once,
              max_calls, secs > 0 ? secs : (double)FZ_REDUCE_MAX_SECONDS);
    red = fz_reduce_text(text, fz_keep_real_sig, &tg, &(FzReduceLimits){max_calls - 1, secs}, &st);
  } else {
    /* a candidate slower than ten times the original is taken for a hang, unless
     * the target is one: then a campaign's limit (fz_check_sigs's default) */
    co.timeout_s = strstr(sig, "|watchdog|") ? 0 : once * 10 < 2 ? 2 : once * 10 > 20 ? 20 : once * 10;
    co.deadline = fz_now() + (secs > 0 ? secs : FZ_REDUCE_MAX_SECONDS);   /* --time bounds every check too */
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
  if (!quiet)
    fprintf(stderr, "reduce: statements %d -> %d, oracle calls %d, signature %s\n", st.stmts_before, st.stmts_after,
            st.calls + 1, sig);
  if (st.stopped) {                             /* written: every state kept gave the signature */
    fprintf(stderr, "reduce: the smallest kernel so far is written\n");
  } else if (st.capped && !quiet)
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

/* reduce with SIGINT, SIGTERM and SIGHUP polled: its checks end and the
 * smallest kernel so far is written. */
static int reduce(int argc, char **argv) { return stoppable(reduce_run, "reduce", argc, argv); }

enum { REPORT_REDUCE_S = 60 };                  /* report: the default --reduce=S */

/* True when the directory path would be created in (or a file written in) exists. */
static bool parent_dir(const char *path) {
  char d[PATH_MAX];
  snprintf(d, sizeof d, "%s", path);
  size_t n = strlen(d);
  while (n > 1 && d[n - 1] == '/') d[--n] = 0;   /* "dash/" is the directory dash */
  char *slash = strrchr(d, '/');
  if (!slash) return true;                      /* the current directory */
  if (slash == d) slash[1] = 0;
  else *slash = 0;
  struct stat st;
  return !stat(d, &st) && S_ISDIR(st.st_mode);
}

/* `report ID [--db=F] [--format=md|html|json] [-o FILE] [--reduce=S] [--bundle=DIR [--replays=N]]` and
 * `dashboard [--db=F] -o DIR` (reports/report.c, reports/bundle.c, reports/dashboard.c). */
static int triage(bool dash, int argc, char **argv) {
  const char *cmd = dash ? "dashboard" : "report";
  const char *path = "findings.db", *out = NULL, *fmt = "md", *ids = NULL, *pypto = NULL, *bundle = NULL,
             *replays = NULL;
  double rsecs = REPORT_REDUCE_S;
  for (int i = 0; i < argc; i++) {
    if (flag(argv[i], "--db=", &path) || flag(argv[i], "--format=", &fmt) || flag(argv[i], "-o=", &out) ||
        (!dash && (flag(argv[i], "--pypto=", &pypto) || flag(argv[i], "--bundle=", &bundle) ||
                   flag(argv[i], "--replays=", &replays) || (num(argv[i], "--reduce=", &rsecs) && rsecs >= 0)))) {
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!dash && !strcmp(argv[i], "--bundle") && i + 1 < argc) bundle = argv[++i];
    else if (argv[i][0] == '-' || dash || ids) return bad_arg(cmd, argv[i], NULL);
    else ids = argv[i];
  }
  char *e = NULL;
  long long id = ids ? strtoll(ids, &e, 10) : 0;
  RepFormat f = !strcmp(fmt, "md") ? REP_MD : !strcmp(fmt, "html") ? REP_HTML : !strcmp(fmt, "json") ? REP_JSON : -1;
  if ((int)f < 0) return bad_arg(cmd, fmt, "unknown --format");
  if (dash && !out) return bad_arg(cmd, "-o DIR", "missing");
  char *re = NULL;
  long nrep = replays ? strtol(replays, &re, 10) : 0;
  if (replays && (!*replays || *re || nrep < 1 || nrep > 100)) return bad_arg(cmd, replays, "--replays wants 1 to 100");
  if (replays && !bundle) return bad_arg(cmd, "--replays", "only with --bundle");
  if (bundle && !*bundle) return bad_arg(cmd, "--bundle=", "an empty directory name");
  if (!dash && (!ids || !*ids || *e || id < 1)) return bad_arg(cmd, ids ? ids : "ID", ids ? "not a finding id" : "missing");
  if (out && !parent_dir(out)) {                /* a user's path: exit 1 before any work, never 2 after it */
    char c[32];
    snprintf(c, sizeof c, "ptofuzz %s", cmd);
    return ir_cli_error(c, "-o %s: its directory does not exist", out);
  }
  char err[256];
  Db *d = db_open_read(path, err, sizeof err);
  if (!d) {
    fprintf(stderr, "ptofuzz: %s: cannot open %s: %s\n", cmd, path, err);
    return 1;
  }
  DbInfo inf;
  if (!dash && rsecs > 0 && db_info(d, id, &inf, err, sizeof err)) {
    if (inf.has_case && !inf.reduced && db_readonly(d))   /* nowhere to store a reduction */
      fprintf(stderr, "report: %s is read-only: the test case is reported as it was found\n", path);
    else if (inf.has_case && !inf.reduced) {   /* reduced by default: what a person pastes */
      fprintf(stderr, "report: reducing finding %lld's test case first (at most %.0f s; --reduce=0 skips)\n", id,
              rsecs);
      char first[4096];
      snprintf(first, sizeof first, "%.*s", pypto ? (int)strcspn(pypto, ",") : 0, pypto ? pypto : "");
      FzRunOpts ro = {.pypto = pypto ? first : NULL};
      if (reduce_new(&ro, path, id, rsecs)) fprintf(stderr, "report: the test case stays as it was found\n");
    }
    db_info_free(&inf);
  }
  int rc = dash ? rep_dashboard(d, out, path, PTOFUZZ_VERSION)
                : rep_report(d, id, &(RepOpts){.format = f, .out = out, .db_path = path, .version = PTOFUZZ_VERSION,
                                                .pypto = pypto, .bundle = bundle, .replays = (int)nrep});
  db_close(d);
  return rc;
}

/* Command cmd with its n arguments args. */
static int command(const char *cmd, int n, char **args) {
  /* every subcommand: -h/--help and -V/--version wherever they stand; the help
   * of `db SUB` and `bench NAME` is the subcommand's own */
  for (int i = 0; i < n; i++) {
    if (ir_cli_is_version(args[i])) return version();
    if (!ir_cli_is_help(args[i])) continue;
    char sub[64];
    snprintf(sub, sizeof sub, "%s", cmd);
    for (int j = 0; j < n; j++)
      if (args[j][0] != '-') {
        snprintf(sub, sizeof sub, "%s %s", cmd, args[j]);
        break;
      }
    return usage_of(fz_cmd(sub) ? sub : cmd, stdout, 0);
  }
  if (!strcmp(cmd, "diff")) return diff(n, args);
  if (!strcmp(cmd, "run")) return run(n, args);
  if (!strcmp(cmd, "gen")) return gen(n, args);
  if (!strcmp(cmd, "bench")) return bench(n, args);
  if (!strcmp(cmd, "db")) return dbcmd(n, args);
  if (!strcmp(cmd, "reduce")) return reduce(n, args);
  if (!strcmp(cmd, "report") || !strcmp(cmd, "dashboard")) return triage(cmd[0] == 'd', n, args);
  if (!strcmp(cmd, "import")) return stoppable(fz_import, "import", n, args);   /* import.c */
  if (!strcmp(cmd, "cache")) return fz_cache(n, args);     /* cache.c */
  if (!strcmp(cmd, "bisect")) {
    int rc = stoppable(fz_bisect, "bisect", n, args);   /* bisect.c */
    return rc < 0 ? usage_of("bisect", stderr, 1) : rc;
  }
  return ir_cli_fail(cmd_of(NULL), "unknown command '%s'", cmd);
}

int main(int argc, char **argv) {
  /* Every kernel allocates and frees the same few megabytes: keep them in the
   * heap instead of handing them back to the kernel (page faults, zeroing). */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  if (argc < 2) return usage();
  if (ir_cli_is_help(argv[1])) return usage_of(NULL, stdout, 0);
  if (ir_cli_is_version(argv[1])) return version();
  int n = argc - 2;
  char **args = fz_cmd_args(argv[1], &n, argv + 2);   /* `--opt value` as `--opt=value` */
  int rc = command(argv[1], n, args);
  ir_cli_free(args, n);
  return rc;
}
