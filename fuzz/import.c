/* import.c — `ptofuzz import PATH... [--db=F] [--engine=libfuzzer|afl]
 * [--bugs=LIST]`: crash files of libFuzzer and AFL++ into findings.
 *
 * Consumes engine inputs: a PATH is a file, or a directory whose regular files
 * are taken in byte order of their names, not recursively, skipping dot files
 * and README.txt (AFL++ writes one into crashes/). Each file holds the bytes
 * fuzz/target.c fed to the generator's byte choice source. Produces one
 * campaign row (engine libfuzzer or afl, seed 0, the default policy, the
 * defects, kernels = files imported) and a finding per distinct signature of
 * each file's kernel, with the kernel as its test case.
 *
 * Each file: bytes -> generator (default policy) -> kernel text -> the oracle
 * in a forked child, as `ptofuzz diff` and the fuzz target run it (input seed
 * 0, random schedule seed 1 and always run, first-bad-pass bisection). The
 * signatures are the ones a campaign gives for the same kernel: a child that
 * dies gives `crash|MODE|SIGNAL|-|-|-` and one still running after
 * FZ_HANG_SECONDS `hang|MODE|watchdog|-|-|-`, MODE being the variant in
 * flight, and then, as in a campaign, nothing else of that kernel. Findings,
 * summaries, test cases and flags are written as a campaign writes them
 * (fuzz/campaign.c record()); the test case's seed is 0, so `ptofuzz reduce
 * --finding=ID` replays it with diff's seeds, and it has no kernel index (a
 * file's position in one import says nothing about its place among another
 * import's files, so a merge must not order test cases by it).
 *
 * The defects in force for a file: those its `#ptofuzz-bugs=` line names
 * (fz_input_bugs; the libFuzzer target writes it), else --bugs=LIST, else
 * PTOFUZZ_BUGS. A file that names none of them and gives no finding without
 * defects cannot say which defects made it crash: it is refused
 * (E-IMPORT-DEFECTS, nothing recorded for it) rather than taken for "no
 * finding". Each set of defects gets its own campaign row, begun with its
 * first file. Without --engine: afl when a file's name starts with "id:"
 * (AFL++ names its crash files so), else libfuzzer.
 *
 * Output: per file `import: PATH signatures=SIG[,SIG...]`, `import: PATH no
 * finding` or `import: PATH invalid: WHY`, a refused file `PATH:
 * error[E-IMPORT-DEFECTS]: ... [user]` on stderr, then `summary: files=N
 * findings=N unique=N new=N engine=E db=F`. Exit 0; 1 usage, an unreadable
 * PATH, an unknown defect, a database that cannot be opened, a refused file;
 * 2 a finding that could not be recorded. */
#include "fz.h"
#include "orc.h"
#include "rep.h"
#include "pto_version.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child leaves for the parent. */
typedef struct {
  volatile int variant, sched, done;
  OrcResult res;
} Box;

static void note(void *ctx, int variant, int sched) {
  Box *b = ctx;
  b->variant = variant;
  b->sched = sched;
}

char *fz_bytes_kernel(const uint8_t *data, size_t n, size_t *len) {
  FzPolicy pol;
  fz_policy_default(&pol);
  FzInputBugs ib;
  fz_input_bugs(data, n, &ib, NULL, 0);         /* the generator's bytes only (ib.body is n on an error) */
  FzSrc src;
  fz_src_bytes(&src, data, ib.body);
  FzKernel *k = fz_generate(&pol, &src);
  char *text = fz_emit(k, len);
  fz_free(k);
  return text;
}

typedef struct {
  const char *text;
  size_t len;
  uint32_t bugs;
  Box *b;
} CheckJob;

static void check_child(void *ctx) {
  CheckJob *j = ctx;
  OrcOpts o = {.bugs = j->bugs, .input_seed = 0, .sched_seed = 1, .bisect = true, .random_every = 0,
               .progress = note, .ctx = j->b};
  orc_check(&(Src){"import", j->text, j->len}, &o, &j->b->res);
  j->b->done = 1;
}

/* The oracle on text in a forked child; false (with *st, *hung) when the child
 * died or hung, and then b->variant / b->sched name the variant in flight. */
static bool check(const char *text, size_t len, uint32_t bugs, Box *b, int *st, bool *hung) {
  memset((void *)b, 0, sizeof *b);
  FzChild c = {.timeout_s = FZ_HANG_SECONDS};
  bool ok = fz_in_child(check_child, &(CheckJob){text, len, bugs, b}, &c) && b->done;
  *st = c.st;
  *hung = c.hung;
  return ok;
}

void fz_sign_input(const uint8_t *data, size_t n, uint32_t bugs, FzVerdict *v) {
  size_t len;
  char *text = fz_bytes_kernel(data, n, &len);
  Box *b = fz_shared(sizeof *b);
  int st;
  bool hung;
  memset(v, 0, sizeof *v);
  if (!check(text, len, bugs, b, &st, &hung)) fz_verdict_lost(v, b->variant, hung, st);
  else if (b->res.invalid) v->invalid = true;
  else
    for (int i = 0; i < b->res.n; i++)
      if (orc_is_finding(b->res.r[i].out)) {
        char sig[FZ_SIGLEN];
        orc_signature(&b->res.r[i], sig, sizeof sig);
        fz_verdict_add(v, sig);
      }
  fz_shared_free(b, sizeof *b);
  free(text);
}

/* ---- the subcommand ---------------------------------------------------------------- */

typedef struct {
  char **v;
  int n, cap;
} Paths;

static void push(Paths *p, const char *s) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    if (!(p->v = realloc(p->v, (size_t)p->cap * sizeof *p->v))) die("out of memory");
  }
  if (!(p->v[p->n++] = strdup(s))) die("out of memory");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The files PATH names (a file, or a directory's files); false if unreadable. */
static bool collect(const char *path, Paths *out) {
  struct stat sb;
  if (stat(path, &sb)) return false;
  if (!S_ISDIR(sb.st_mode)) {
    push(out, path);
    return true;
  }
  DIR *d = opendir(path);
  if (!d) return false;
  Paths here = {0};
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.txt")) continue;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", path, e->d_name);
    if (!stat(full, &sb) && S_ISREG(sb.st_mode)) push(&here, full);
  }
  closedir(d);
  qsort(here.v, (size_t)here.n, sizeof *here.v, cmp_str);
  for (int i = 0; i < here.n; i++) push(out, here.v[i]), free(here.v[i]);
  free(here.v);
  return true;
}

bool fz_read_bytes(const char *path, uint8_t **buf, size_t *n) {
  *buf = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t cap = 4096;
  *n = 0;
  if (!(*buf = malloc(cap))) die("out of memory");
  for (size_t r; (r = fread(*buf + *n, 1, cap - *n, f)) > 0;)
    if ((*n += r) == cap && !(*buf = realloc(*buf, cap *= 2))) die("out of memory");
  bool ok = !ferror(f);
  fclose(f);
  return ok;
}

static const char *base(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Record one finding as a campaign does; false (reported) on a database error. */
static bool put(Db *db, int64_t camp, const char *sig, const char *kind, const char *mode, const char *code,
                const char *op, const char *pass, const char *pattern, const char *summary, const char *text,
                const char *variant, const char *flags, int *nnew) {
  DbFinding f = {sig, kind, mode, code, op, pass, pattern, summary, pass};
  DbTestcase t = {text, NULL, variant, flags, 0, 0, false, 0};   /* no kernel index: see the header */
  char err[256];
  bool is_new;
  if (db_record(db, camp, &f, &t, &is_new, err, sizeof err) < 0) {
    fprintf(stderr, "ptofuzz: import: database: %s\n", err);
    return false;
  }
  *nnew += is_new;
  return true;
}

enum { IMPORT_CHECKPOINT_S = 10 };              /* as a campaign: counts stored at least this often */

/* The campaign row of one set of defects, begun with its first file. */
typedef struct {
  uint32_t bugs;
  int64_t id, files;
  double t0;
} Camp;

static int64_t campaign_for(Db *db, Camp *c, int *n, int max, const char *engine, const char *policy, uint32_t bugs,
                            const char *names) {
  for (int i = 0; i < *n; i++)
    if (c[i].bugs == bugs) return c[i].id;
  if (*n == max) die("import: more than %d sets of defects in one import", max);
  int64_t id = db_campaign_begin(db, &(DbCampaign){engine, policy, names, PTOFUZZ_VERSION "+" PTO_COMMIT, 0, NULL});
  if (id >= 0) c[(*n)++] = (Camp){bugs, id, 0, fz_now()};
  return id;
}

int fz_import(int argc, char **argv) {
  const char *dbpath = "findings.db", *engine = NULL, *bugs_text = NULL;
  Paths files = {0};
  int npaths = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--db=", 5) && a[5]) dbpath = a + 5;
    else if (!strncmp(a, "--bugs=", 7)) bugs_text = a + 7;
    else if (!strncmp(a, "--engine=", 9)) {
      engine = a + 9;
      if (strcmp(engine, "libfuzzer") && strcmp(engine, "afl"))
        return ir_cli_fail(fz_cmd("import"), "'%s': --engine= takes libfuzzer or afl", a);
    } else if (a[0] == '-' && a[1]) {
      return ir_cli_fail(fz_cmd("import"), "unknown option '%s'", a);
    } else {
      npaths++;
      if (!collect(a, &files)) {
        fprintf(stderr, "ptofuzz: import: cannot read %s: %s\n", a, strerror(errno));
        return 1;
      }
    }
  }
  if (!npaths) return ir_cli_fail(fz_cmd("import"), "no PATH given");
  /* the defects of a file that names none: --bugs, else PTOFUZZ_BUGS, else none (said by nobody) */
  uint32_t bugs = 0;
  bool bugs_said = bugs_text || getenv("PTOFUZZ_BUGS");
  if (!ir_bugs_option("ptofuzz", bugs_text, &bugs)) return 1;
  if (!engine) {
    engine = "libfuzzer";
    for (int i = 0; i < files.n; i++)
      if (!strncmp(base(files.v[i]), "id:", 3)) engine = "afl";
  }
  char err[256];
  Db *db = db_open(dbpath, err, sizeof err);
  if (!db) {
    fprintf(stderr, "ptofuzz: cannot open %s: %s\n", dbpath, err);
    return 1;
  }
  FzPolicy pol;
  fz_policy_default(&pol);
  char *poltext = NULL;
  size_t polen = 0;
  FILE *pf = open_memstream(&poltext, &polen);
  fz_policy_print(&pol, pf);
  fclose(pf);
  Camp camps[1 << 6];                           /* one campaign row per set of defects */
  int ncamp = 0;
  Box *b = fz_shared(sizeof *b);
  int rc = 0, nfind = 0, nnew = 0, nuniq = 0, cap = 0;
  bool refused = false;
  double ckpt = fz_now();
  char (*uniq)[FZ_SIGLEN] = NULL;
  int64_t done = 0;
  for (int f = 0; f < files.n && !rc && !orc_stop_pending(); f++) {   /* a stop ends the rows and the summary */
    uint8_t *data = NULL;
    size_t n;
    if (!fz_read_bytes(files.v[f], &data, &n)) {
      fprintf(stderr, "ptofuzz: import: cannot read %s: %s\n", files.v[f], strerror(errno));
      free(data);
      rc = 1;
      break;
    }
    FzInputBugs ib;
    if (!fz_input_bugs(data, n, &ib, err, sizeof err)) {
      fprintf(stderr, "%s: error[E-IMPORT-DEFECTS]: %s [user]\n", files.v[f], err);
      free(data);
      refused = true;
      continue;
    }
    uint32_t fbugs = ib.named ? ib.bugs : bugs;
    char names[500];
    ir_bugs_format(fbugs, names, sizeof names);
    size_t len;
    char *text = fz_bytes_kernel(data, n, &len);
    free(data);
    int st;
    bool hung, lost = !check(text, len, fbugs, b, &st, &hung);
    if (orc_stop_pending()) {                   /* the check was cut short: it says nothing */
      free(text);
      break;
    }
    if (lost || b->res.invalid || b->res.finding || ib.named || bugs_said) {
    } else {                                    /* no finding, and nothing says which defects were on */
      fprintf(stderr, "%s: error[E-IMPORT-DEFECTS]: no finding without defects, and the file does not say which "
                      "defects the fuzzer ran with (no #ptofuzz-bugs= line): import it with --bugs=LIST "
                      "(--bugs=none: it was clean) [user]\n", files.v[f]);
      free(text);
      refused = true;
      continue;
    }
    int64_t camp = campaign_for(db, camps, &ncamp, (int)(sizeof camps / sizeof *camps), engine, poltext, fbugs, names);
    if (camp < 0) {
      fprintf(stderr, "ptofuzz: cannot start a campaign in %s: %s\n", dbpath, db_errmsg(db));
      free(text);
      rc = 1;
      break;
    }
    FzVerdict v = {0};                          /* this file's distinct signatures */
    bool invalid = false;
    if (lost) {                                 /* as campaign.c lost() */
      fz_verdict_lost(&v, b->variant, hung, st);
      int var = b->variant % ORC_NVARIANT;
      const char *kind = hung ? "hang" : "crash", *mode = orc_variant_mode(var);
      const char *cd = hung ? "watchdog" : WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit";
      char summary[200], flags[600];
      snprintf(summary, sizeof summary, "%s %s under %s (schedule %s)", kind, cd, orc_variants[var],
               b->sched ? "random" : "rr");
      snprintf(flags, sizeof flags, "--bugs=%s schedule=%s", names, b->sched ? "random" : "rr");
      if (!put(db, camp, v.sig[0], kind, mode, cd, "-", "-", "-", summary, text, orc_variants[var], flags, &nnew)) rc = 2;
    } else if (b->res.invalid) {
      invalid = true;
      printf("import: %s invalid: %s at %d:%d: %s\n", files.v[f], ir_diag_name(b->res.why.code), b->res.why.loc.line,
             b->res.why.loc.col, b->res.why.msg);
    } else {
      for (int r = 0; r < b->res.n && !rc; r++) {   /* as campaign.c send_findings() and record() */
        const VarResult *x = &b->res.r[r];
        if (!orc_is_finding(x->out)) continue;
        char sig[FZ_SIGLEN], summary[300], flags[600];
        orc_signature(x, sig, sizeof sig);
        if (fz_verdict_has(&v, sig)) continue;
        fz_verdict_add(&v, sig);
        snprintf(summary, sizeof summary, "%s %s under %s: %s", orc_outcome_name(x->out), x->code,
                 orc_variant_name(x), x->detail);
        snprintf(flags, sizeof flags, "--bugs=%s schedule=%s", names, x->sched ? "random" : "rr");
        if (!put(db, camp, sig, orc_outcome_name(x->out), orc_mode_name(x->mode), x->code, x->op, x->pass,
                 x->pattern, summary, text, orc_variant_name(x), flags, &nnew))
          rc = 2;
      }
    }
    free(text);
    done++;
    for (int c = 0; c < ncamp; c++) camps[c].files += camps[c].id == camp;
    if (fz_now() - ckpt >= IMPORT_CHECKPOINT_S) {   /* an import killed outright keeps its counts */
      for (int c = 0; c < ncamp; c++) db_campaign_progress(db, camps[c].id, camps[c].files, fz_now() - camps[c].t0);
      ckpt = fz_now();
    }
    if (!invalid) {
      printf("import: %s %s", files.v[f], v.n ? "signatures=" : "no finding");
      for (int i = 0; i < v.n; i++) printf("%s%s", i ? "," : "", v.sig[i]);
      putchar('\n');
    }
    for (int i = 0; i < v.n; i++) {
      nfind++;
      bool seen = false;
      for (int j = 0; j < nuniq && !seen; j++) seen = !strcmp(uniq[j], v.sig[i]);
      if (seen) continue;
      if (nuniq == cap && !(uniq = realloc(uniq, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *uniq))) die("out of memory");
      memcpy(uniq[nuniq++], v.sig[i], FZ_SIGLEN);
    }
  }
  free(poltext);
  fz_shared_free(b, sizeof *b);
  for (int c = 0; c < ncamp; c++)
    if (!db_campaign_end(db, camps[c].id, camps[c].files, fz_now() - camps[c].t0) && !rc) {
      fprintf(stderr, "ptofuzz: import: database: %s\n", db_errmsg(db));
      rc = 2;
    }
  if (refused && !rc) rc = 1;
  int stop = orc_stop_pending();
  printf("summary: files=%lld findings=%d unique=%d new=%d engine=%s%s%s db=%s\n", (long long)done, nfind, nuniq, nnew,
         engine, stop ? " stopped=SIG" : "", stop ? sigabbrev_np(stop) : "", dbpath);
  db_close(db);
  free(uniq);
  for (int i = 0; i < files.n; i++) free(files.v[i]);
  free(files.v);
  return rc;
}
