/* bisect.c — a real back end's finding across toolchain builds: `ptofuzz bisect`
 * and `ptofuzz db recheck`. Consumes a finding (a database id, or a reproducer
 * file with its `# signature:` or `# expect:`, `# variant:` and `# seed:` lines)
 * and builds of one kind: PyPTO trees for a PyPTO finding, ptoas binaries for a
 * ptoas one. Produces, per build, the finding's replay there (its variant alone,
 * its input seed) judged as one of
 *
 *   reproduces          the replay gives the finding's signature
 *   does not reproduce  the program was read and checked, and the signature is
 *                       not among its findings (clean, or another finding)
 *   cannot tell         the replay says nothing about the finding: the check
 *                       died or hung, a tool failed, the kernel is invalid
 *                       here, or the build cannot read the program at all
 *                       (ptoas refuses it while parsing, before any verifier:
 *                       an MLIR parse error has no "'pto.OP' op" in it)
 *
 * bisect prints one line per build and the first change between known
 * outcomes: the last build that reproduces and the first that does not (a fix),
 * or the first that does after one that does not (where it appears). recheck
 * replays every open finding (new or triaged) of the build's kind in one batch
 * and marks those that do not reproduce fixed, with the build and the replay's
 * outcome in the status history (db status: who and when). */
#include "fz.h"
#include "orc.h"
#include "rep.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_BUILDS = 32, REPLAY_WATCHDOG_S = 900 };

typedef enum { RP_YES, RP_NO, RP_UNKNOWN } Replay;
static const char *const replay_word[] = {"reproduces", "does not reproduce", "cannot tell"};

/* The finding under test. */
typedef struct {
  char sig[FZ_SIGLEN];
  char variant[40];                             /* "" : every variant */
  uint64_t seed;
  char *text;
  size_t len;
  bool pypto;                                   /* else ptoas */
} Suspect;

/* One build: what the user named, where it is, what it calls itself. */
typedef struct {
  char spec[256], path[PATH_MAX], label[160];
} Build;

static bool is_dir(const char *p) {
  struct stat st;
  return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* A build named by path, or by a name under shared/third_party: a PyPTO commit
 * (pypto/NAME) or a ptoas binary (bin/NAME, bin/ptoas-NAME). */
static bool resolve(bool pypto, const char *spec, Build *b, char *why, size_t n) {
  snprintf(b->spec, sizeof b->spec, "%s", spec);
  char rel[300], cand[PATH_MAX];
  if (pypto) {
    snprintf(cand, sizeof cand, "%s/python/pypto", spec);
    if (is_dir(cand)) return snprintf(b->path, sizeof b->path, "%s", spec), true;
    snprintf(rel, sizeof rel, "pypto/%s/python/pypto/__init__.py", spec);
    if (!strchr(spec, '/') && orc_shared_file(rel, b->path, sizeof b->path)) {
      b->path[strlen(b->path) - strlen("/python/pypto/__init__.py")] = 0;
      return true;
    }
    snprintf(why, n, "%s: not a PyPTO tree (no python/pypto/) nor a build under shared/third_party/pypto", spec);
    return false;
  }
  if (access(spec, X_OK) == 0 && !is_dir(spec)) return snprintf(b->path, sizeof b->path, "%s", spec), true;
  const char *pre[] = {"bin/", "bin/ptoas-"};
  for (int k = 0; k < 2 && !strchr(spec, '/'); k++) {
    snprintf(rel, sizeof rel, "%s%s", pre[k], spec);
    if (orc_shared_file(rel, b->path, sizeof b->path) && access(b->path, X_OK) == 0) return true;
  }
  snprintf(why, n, "%s: not a ptoas binary nor one under shared/third_party/bin", spec);
  return false;
}

/* The build opened for replays (its label filled in), or NULL with why. */
static FzReal *open_build(bool pypto, Build *b, int jobs, char *why, size_t n) {
  FzReal *t = pypto ? fz_pypto_open(b->path, NULL, NULL, jobs, 0, why, n) : fz_real_open(b->path, NULL, jobs, why, n);
  if (!t) return NULL;
  if (pypto) snprintf(b->label, sizeof b->label, "%.12s", fz_pypto_commit(t));
  else snprintf(b->label, sizeof b->label, "%.100s (%.50s)", b->spec, fz_real_version(t));
  return t;
}

/* An MLIR parse error: ptoas did not read the program, so it checked nothing. */
static bool unread(const FzRealVar *v) {
  return !strcmp(v->outcome, "reject") && !strstr(v->detail, "' op ") && !strstr(v->detail, "' op:");
}

/* How a replay bears on the finding, with the evidence in one line. */
static Replay judge(const Suspect *g, const FzRealCase *c, char *ev, size_t n) {
  if (c->lost) return snprintf(ev, n, "%s", c->v.why), RP_UNKNOWN;
  if (c->v.invalid) return snprintf(ev, n, "ptoc finds the kernel invalid: %s", c->v.why), RP_UNKNOWN;
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->var[i].sig, g->sig))
      return snprintf(ev, n, "%s: %s", c->var[i].name, c->var[i].detail), RP_YES;
  for (int i = 0; i < c->n; i++) {
    const FzRealVar *v = &c->var[i];
    if (!strcmp(v->outcome, "tool-error")) return snprintf(ev, n, "tool error on %s: %s", v->name, v->detail), RP_UNKNOWN;
    if (!g->pypto && unread(v)) return snprintf(ev, n, "ptoas cannot read the program: %s", v->detail), RP_UNKNOWN;
  }
  size_t at = 0;
  ev[0] = 0;
  for (int i = 0; i < c->n && at < n; i++)
    if (strcmp(c->var[i].outcome, "ok"))
      at += (size_t)snprintf(ev + at, n - at, "%s%s %s %s", at ? "; " : "", c->var[i].name, c->var[i].outcome,
                             c->var[i].sig[0] ? c->var[i].sig : c->var[i].code);
  if (!at) snprintf(ev, n, "every check of %s passes", g->variant[0] ? g->variant : "every variant");
  return RP_NO;
}

/* ---- the finding ---------------------------------------------------------------- */

static const char *sig_mode(const char *sig) {
  const char *m = strchr(sig, '|');
  return m ? m + 1 : "";
}

static bool from_db(const char *dbpath, int64_t id, Suspect *g, char *why, size_t n) {
  char err[512];
  Db *d = db_open_read(dbpath, err, sizeof err);
  if (!d) return snprintf(why, n, "cannot open %s", err), false;
  DbInfo f;
  bool ok = db_info(d, id, &f, err, sizeof err);
  db_close(d);
  if (!ok) return snprintf(why, n, "%s (%s)", err, dbpath), false;
  if (!f.has_case) {
    snprintf(why, n, "finding %lld has no test case", (long long)id);
    db_info_free(&f);
    return false;
  }
  snprintf(g->sig, sizeof g->sig, "%s", f.signature);
  snprintf(g->variant, sizeof g->variant, "%s", f.variant ? f.variant : "");
  g->seed = f.seed;
  g->text = strdup(f.reduced ? f.reduced : f.kernel);
  g->len = strlen(g->text);
  db_info_free(&f);
  return true;
}

/* A header line "# KEY: VALUE" of text, its value trimmed into out. */
static bool header(const char *text, const char *key, char *out, size_t n) {
  size_t k = strlen(key);
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
    if (*p != '#') continue;
    const char *h = p + 1 + strspn(p + 1, " \t");
    if (strncmp(h, key, k) || h[k] != ':') continue;
    h += k + 1;
    h += strspn(h, " \t");
    size_t len = strcspn(h, " \t\r\n");
    snprintf(out, n, "%.*s", (int)len, h);
    return true;
  }
  return false;
}

static bool from_file(const char *path, Suspect *g, char *why, size_t n) {
  uint8_t *buf;
  size_t len;
  if (!fz_read_bytes(path, &buf, &len)) return snprintf(why, n, "%s: %s", path, strerror(errno)), false;
  g->text = realloc(buf, len + 1);
  if (!g->text) die("out of memory");
  g->text[len] = 0;
  g->len = len;
  char seed[32] = "";
  if (!header(g->text, "signature", g->sig, sizeof g->sig) &&
      (!header(g->text, "expect", g->sig, sizeof g->sig) || !strcmp(g->sig, "clean"))) {
    snprintf(why, n, "%s: no '# signature:' or '# expect: SIG' line names the finding", path);
    return false;
  }
  if (!header(g->text, "variant", g->variant, sizeof g->variant) || !strcmp(g->variant, "-")) g->variant[0] = 0;
  if (header(g->text, "seed", seed, sizeof seed) && strcmp(seed, "-")) {
    char *e;
    errno = 0;
    g->seed = strtoull(seed, &e, 10);
    if (*e || errno) return snprintf(why, n, "%s: '# seed: %s' is not a decimal seed", path, seed), false;
  }
  return true;
}

/* The finding of ID (a database id) or FILE; its back end decides the builds' kind. */
static bool target(const char *what, const char *dbpath, Suspect *g, char *why, size_t n) {
  memset(g, 0, sizeof *g);
  char *e;
  errno = 0;
  long long id = strtoll(what, &e, 10);
  bool ok = *what && !*e && !errno && id > 0 ? from_db(dbpath, id, g, why, n) : from_file(what, g, why, n);
  if (!ok) return false;
  const char *m = sig_mode(g->sig);
  g->pypto = !strncmp(m, "pypto:", 6);
  if (!g->pypto && strncmp(m, "ptoas:", 6)) {
    snprintf(why, n, "%s is a finding of the model (%s): only ptoas and PyPTO findings have builds to compare", what,
             g->sig);
    return false;
  }
  return true;
}

/* ---- bisect ---------------------------------------------------------------------- */

int fz_bisect(int argc, char **argv) {
  const char *what = NULL, *list = NULL, *dbpath = "findings.db";
  int jobs = 0;
  for (int i = 0; i < argc; i++) {
    if (!strncmp(argv[i], "--toolchains=", 13)) list = argv[i] + 13;
    else if (!strncmp(argv[i], "--db=", 5)) dbpath = argv[i] + 5;
    else if (!strncmp(argv[i], "--jobs=", 7) && (jobs = atoi(argv[i] + 7)) >= 1 && jobs <= 256) {
    } else if (argv[i][0] == '-' || what) {
      ir_cli_error("ptofuzz bisect", "unexpected argument '%s'", argv[i]);
      return -1;
    } else what = argv[i];
  }
  if (!what || !list || !*list) {
    ir_cli_error("ptofuzz bisect", "%s", !what ? "no finding ID or FILE given" : "no --toolchains=A,B,... given");
    return -1;
  }
  char why[600];
  Suspect g;
  if (!target(what, dbpath, &g, why, sizeof why)) {
    fprintf(stderr, "ptofuzz: bisect: %s\n", why);
    free(g.text);
    return 1;
  }
  Build b[MAX_BUILDS];
  int nb = 0;
  char *copy = strdup(list), *save = NULL;
  bool ok = copy;
  for (char *s = strtok_r(copy, ",", &save); ok && s; s = strtok_r(NULL, ",", &save)) {
    if (nb == MAX_BUILDS) {
      snprintf(why, sizeof why, "more than %d builds", MAX_BUILDS);
      ok = false;
    } else ok = resolve(g.pypto, s, &b[nb++], why, sizeof why);
  }
  free(copy);
  if (!ok) {
    fprintf(stderr, "ptofuzz: bisect: %s\n", why);
    free(g.text);
    return 1;
  }
  printf("finding: %s variant %s seed %llu\n", g.sig, g.variant[0] ? g.variant : "every", (unsigned long long)g.seed);
  Replay r[MAX_BUILDS];
  for (int k = 0; k < nb; k++) {
    char ev[600];
    FzReal *t = open_build(g.pypto, &b[k], jobs, why, sizeof why);
    if (!t) {
      r[k] = RP_UNKNOWN;
      size_t l = strnlen(b[k].spec, sizeof b[k].label - 1);
      memcpy(b[k].label, b[k].spec, l);
      b[k].label[l] = 0;
      snprintf(ev, sizeof ev, "the build does not start: %.500s", why);
    } else {
      FzRealCase c = {.name = what, .text = g.text, .len = g.len, .input_seed = g.seed,
                      .only = g.variant[0] ? g.variant : NULL};
      fz_real_replay(t, &c, 1, REPLAY_WATCHDOG_S);
      fz_real_free(t);
      if (orc_stop_pending()) break;            /* the caller ends with the signal */
      r[k] = judge(&g, &c, ev, sizeof ev);
    }
    printf("build %d %s: %s: %s\n", k + 1, b[k].label, replay_word[r[k]], ev);
    fflush(stdout);
  }
  /* the first change between known outcomes */
  int last = -1, change = -1;
  for (int k = 0; k < nb && change < 0; k++) {
    if (r[k] == RP_UNKNOWN) continue;
    if (last >= 0 && r[k] != r[last]) change = k;
    else last = k;
  }
  if (last < 0) printf("result: cannot tell (no build gave a known outcome)\n");
  else if (change < 0) printf("result: %s on every build that could tell\n", replay_word[r[last]]);
  else if (r[last] == RP_YES)
    printf("result: fixed: last reproducing %s, first not reproducing %s\n", b[last].label, b[change].label);
  else printf("result: appears: last not reproducing %s, first reproducing %s\n", b[last].label, b[change].label);
  free(g.text);
  return 0;
}

/* ---- db recheck ----------------------------------------------------------------- */

int fz_recheck(int argc, char **argv) {
  const char *spec = NULL, *dbpath = "findings.db";
  int jobs = 0;
  for (int i = 0; i < argc; i++) {
    if (!strncmp(argv[i], "--toolchain=", 12)) spec = argv[i] + 12;
    else if (!strncmp(argv[i], "--db=", 5)) dbpath = argv[i] + 5;
    else if (!strncmp(argv[i], "--jobs=", 7) && (jobs = atoi(argv[i] + 7)) >= 1 && jobs <= 256) {
    } else {
      ir_cli_error("ptofuzz db recheck", "unexpected argument '%s'", argv[i]);
      return -1;
    }
  }
  if (!spec || !*spec) {
    ir_cli_error("ptofuzz db recheck", "no --toolchain=X given");
    return -1;
  }
  char why[600], err[512];
  Build b;
  bool pypto = resolve(true, spec, &b, why, sizeof why);
  if (!pypto && !resolve(false, spec, &b, why, sizeof why)) {
    fprintf(stderr, "ptofuzz: db recheck: %s is neither a PyPTO build nor a ptoas binary\n", spec);
    return 1;
  }
  Db *d = db_open_existing(dbpath, err, sizeof err);
  if (!d) {
    fprintf(stderr, "ptofuzz: db recheck: cannot open %s\n", err);
    return 1;
  }
  DbFindingRow *rows;
  int nr = db_finding_rows(d, &rows);
  if (nr < 0) {
    fprintf(stderr, "ptofuzz: db recheck: %s (%s)\n", db_errmsg(d), dbpath);
    db_close(d);
    return 1;
  }
  Suspect *g = calloc((size_t)nr + 1, sizeof *g);
  FzRealCase *c = calloc((size_t)nr + 1, sizeof *c);
  int64_t *id = calloc((size_t)nr + 1, sizeof *id);
  if (!g || !c || !id) die("out of memory");
  int n = 0, skipped = 0;
  for (int i = 0; i < nr; i++) {
    bool open = !strcmp(rows[i].status, "new") || !strcmp(rows[i].status, "triaged");
    if (!open || strncmp(sig_mode(rows[i].signature), pypto ? "pypto:" : "ptoas:", 6)) continue;
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%lld", (long long)rows[i].id);
    if (!target(idtext, dbpath, &g[n], why, sizeof why)) {
      fprintf(stderr, "ptofuzz: db recheck: finding %s: %s\n", idtext, why);
      free(g[n].text);
      skipped++;
      continue;
    }
    id[n] = rows[i].id;
    c[n] = (FzRealCase){.name = "finding", .text = g[n].text, .len = g[n].len, .input_seed = g[n].seed,
                        .only = g[n].variant[0] ? g[n].variant : NULL};
    n++;
  }
  db_finding_rows_free(rows, nr);
  FzReal *t = n ? open_build(pypto, &b, jobs, why, sizeof why) : NULL;
  int rc = 0, fixed = 0, still = 0, unknown = 0;
  if (n && !t) {
    fprintf(stderr, "ptofuzz: db recheck: %s: %s\n", spec, why);
    rc = 1;
  } else if (n) {
    fz_real_replay(t, c, n, REPLAY_WATCHDOG_S + 60.0 * n);
    fz_real_free(t);
    for (int i = 0; i < n && !orc_stop_pending(); i++) {   /* stopped: nothing is judged */
      char ev[600];
      Replay r = judge(&g[i], &c[i], ev, sizeof ev);
      fixed += r == RP_NO, still += r == RP_YES, unknown += r == RP_UNKNOWN;
      printf("finding %lld: %s: %s\n", (long long)id[i], r == RP_NO ? "fixed" : replay_word[r], ev);
      DbStatusNote note = {.who = "db recheck", .toolchain = b.label, .evidence = ev};
      if (r == RP_NO && !db_set_status(d, id[i], "fixed", &note, err, sizeof err)) {
        fprintf(stderr, "ptofuzz: db recheck: finding %lld: %s\n", (long long)id[i], err);
        rc = 1;
      }
    }
  }
  printf("recheck on %s: %d open %s findings, %d fixed, %d still reproduce, %d cannot tell%s\n",
         b.label[0] ? b.label : spec, n, pypto ? "PyPTO" : "ptoas", fixed, still, unknown,
         skipped ? " (some skipped, see above)" : "");
  for (int i = 0; i < n; i++) free(g[i].text);
  free(g), free(c), free(id);
  db_close(d);
  return rc;
}
