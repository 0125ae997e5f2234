/* check.c — pto-check, the regression replayer (DESIGN sections 12 and 13):
 *
 *   pto-check [PATH...] [--bugs=LIST|all] [--db=F] [--backend=model]
 *   pto-check --backend=ptoas [--ptoas=PATH] [--pto-isa=DIR] [--jobs=J] [--db=F] [PATH...]
 *   pto-check --backend=pypto [--pypto=DIR] [--ptoas=PATH] [--pto-isa=DIR] [--jobs=J] [--db=F] [PATH...]
 *
 * Consumes reproducers (every *.ptk of corpus/regress/ by default; a PATH is a
 * file or a directory, whose *.ptk files are taken in byte order of their
 * names) and, with --db, the test cases of the findings marked fixed in a
 * findings database; produces TAP on stdout, one test point per file and per
 * database test case. A reproducer's header lines (anywhere in the file, at
 * the start of a line):
 *
 *   # expect: clean
 *   # defect: NAME -> KIND SIGNATURE
 *
 * `# expect: clean` is required; `# defect:` is optional (at most one). A file
 * is ok when the clean compiler gives verdict clean (the kernel is valid and
 * no variant is a finding) and, when its defect is switched on, when the run
 * with the defects on shows SIGNATURE among its findings. --bugs=LIST switches
 * on the listed defects for every file whose defect is in the list (the other
 * files are still checked clean); --bugs=all checks each file against its own
 * defect alone. Replays run as `ptofuzz diff FILE` does (input seed 0, random
 * schedule seed 1), each in a forked child, so a crash is a signature.
 *
 * --backend=ptoas replays reproducers of the real back end instead (every
 * *.ptk of corpus/real/ by default) through ptoc, the real ptoas and a run on
 * pto-isa's CPU simulation (orc_real_check, input seed 0 as `ptofuzz diff
 * --backend=ptoas`): all files in ONE batch (many kernels per translation
 * unit) in a forked child (fz_real_replay). Their header, one line per file:
 *
 *   # expect: clean            every real variant is ok or unsupported
 *   # expect: SIGNATURE        that real signature (kind|ptoas:MODE|code|op|pass|pattern)
 *                              is among the findings
 *
 * (`# defect:` lines and $PTOFUZZ_BUGS are the model's and are ignored; --bugs
 * is a usage error.) A tool error (outcome
 * tool-error) or an invalid kernel makes the file `not ok`; a `not ok` is
 * followed by a `# ` line with the signatures seen. --db replays the fixed
 * findings whose signature is a real one, expecting them clean. When no real
 * toolchain is found (orc_real_find) and nothing else went wrong, the output
 * is `1..0 # SKIP no real toolchain: WHY` and the exit status 0 — unless
 * --ptoas or --pto-isa named it: then it is a usage error.
 *
 * --backend=pypto replays reproducers of the PyPTO back end (DESIGN section 16;
 * every *.ptk of corpus/pypto/ by default) through ptoc's translation, PyPTO
 * (--pypto=DIR, else $PYPTO, else ../shared/third_party/pypto/b25b25a4a), its
 * pass dumps on torch, and ptoas + pto-isa where the real toolchain is found,
 * in this process (the tools are children under their own limits). Headers as
 * for ptoas, with pypto:MODE signatures. Without a usable PyPTO (or torch) the
 * output is `1..0 # SKIP no PyPTO: WHY` and the exit status 0, unless --pypto
 * named it.
 *
 * Exit status: 0 all ok, 3 some not ok, 1 usage or input errors (a path that
 * cannot be read, an unknown defect name, a database that cannot be opened,
 * nothing to check: no reproducer and no database case, unless
 * --allow-empty, which prints `1..0 # SKIP no reproducers`). A file without
 * `# expect:`, a malformed header line (a header keyword in the wrong case or
 * with a blank before its colon, `# Defect:`, a header line over 1022
 * characters) is a `not ok` for that file alone, naming the line; the other
 * files still run. Reasons are cut to one TAP line of bounded length. */
#include "fz.h"
#include "orc.h"
#include "rep.h"
#include "pto_version.h"

#include <dirent.h>
#include <strings.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { WATCHDOG_S = 60 };

typedef struct {
  char *path;                                   /* a file, or "DB: finding ID" */
  char *text;
  size_t len;
  int defect;                                   /* -1: no `# defect:` header */
  char sig[FZ_SIGLEN];                          /* the declared signature (real: the expected one, "" for clean) */
  char bad[320];                                /* a malformed header: the reason; "" if fine */
  bool from_db;
} Repro;

typedef struct {
  Repro *v;
  int n, cap;
  int errors;                                   /* input errors (exit 1) */
  bool real;                                    /* --backend=ptoas or pypto */
  const char *prefix;                           /* the real back end's signatures: "ptoas:" or "pypto:" */
} List;

static const IrOpt opts[] = {
    {"--bugs", "LIST|all", "$PTOFUZZ_BUGS, else none", "defects on; all: each file against its own defect alone"},
    {"--db", "F", "none", "also replay the test cases of the findings marked fixed in F"},
    {"--backend", "model|ptoas|pypto", "model", "the back end that replays them"},
    {"--ptoas", "PATH", "$PTOAS, else ../shared/third_party", "the real ptoas"},
    {"--pto-isa", "DIR", "$PTO_ISA, else ../shared/third_party", "the pto-isa tree"},
    {"--pypto", "DIR", "$PYPTO, else ../shared/third_party/pypto/b25b25a4a", "the PyPTO build"},
    {"--pypto-timeout", "S", "30", "seconds per PyPTO program"},
    {"--jobs", "J", "the tools' own", "parallel tool runs of the real back ends (1..1024)"},
    {"--allow-empty", NULL, NULL, "nothing to check is a TAP skip, not an error"},
    {NULL, NULL, NULL, NULL},
};
static const IrCmd cmd = {
    "pto-check",
    "pto-check [PATH...] [--bugs=LIST|all] [--db=F] [--backend=model] [--allow-empty]\n"
    "pto-check --backend=ptoas [--ptoas=PATH] [--pto-isa=DIR] [--jobs=J] [--db=F] [--allow-empty] [PATH...]\n"
    "pto-check --backend=pypto [--pypto=DIR] [--ptoas=PATH] [--pto-isa=DIR] [--jobs=J] [--db=F] [PATH...]",
    "Replays reproducers (default: every *.ptk in corpus/regress/, with --backend=ptoas in\n"
    "corpus/real/, with --backend=pypto in corpus/pypto/) and prints TAP.",
    opts,
    "0  every file ok (or the back end's tools absent: a TAP skip)\n"
    "1  a usage error (E-USAGE) or an input error; nothing to check, unless --allow-empty\n"
    "3  some file not ok\n"
    "130  SIGINT (143 SIGTERM, 129 SIGHUP): `Bail out!`, its checks, tools and work files gone",
};

/* A usage error (E-USAGE, exit 1), naming arg when there is one. */
static int usage_error(const char *why, const char *arg) {
  return ir_cli_fail(&cmd, "%s%s%s%s", why, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
}

static Repro *push(List *l) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 32;
    l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
    if (!l->v) die("out of memory");
  }
  Repro *r = &l->v[l->n++];
  memset(r, 0, sizeof *r);
  r->defect = -1;
  return r;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d) die("out of memory");
  return d;
}

/* The file's bytes, at most IR_MAX_SRC + 1 of them (/dev/zero, a pipe that
 * never ends: the compiler refuses more with E-LIMIT, so no more is read). */
static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) die("out of memory");
  for (size_t r; n <= IR_MAX_SRC && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n == cap && cap <= IR_MAX_SRC) {
      cap = cap * 2 > (size_t)IR_MAX_SRC + 1 ? (size_t)IR_MAX_SRC + 1 : cap * 2;
      if (!(buf = realloc(buf, cap + 1))) die("out of memory");
    }
  }
  bool ok = !ferror(f);
  fclose(f);
  if (!ok) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

/* ---- headers ------------------------------------------------------------------ */

static bool is_kind(const char *k) {
  for (int o = OUT_REJECT; o <= OUT_BLOWUP; o++)
    if (!strcmp(k, orc_outcome_name((Outcome)o))) return true;
  return false;
}

/* A declared signature: six non-empty '|'-separated fields, a finding kind
 * equal to KIND, a mode of the oracle. Empty string if fine, else why not. */
/* sig's '|'-separated fields into f (the first six); their count, or -1 with why
 * set when one is empty. */
static int sig_fields(const char *sig, char f[6][FZ_SIGLEN], char *why, size_t n) {
  int nf = 0;
  why[0] = 0;
  for (const char *p = sig;;) {
    size_t k = strcspn(p, "|");
    if (nf < 6) snprintf(f[nf], FZ_SIGLEN, "%.*s", (int)k, p);
    nf++;
    if (!k) return snprintf(why, n, "signature '%s': field %d is empty", sig, nf), -1;
    if (!p[k]) return nf;
    p += k + 1;
  }
}

static void check_sig(const char *kind, const char *sig, char *why, size_t n) {
  char f[6][FZ_SIGLEN];
  int nf = sig_fields(sig, f, why, n);
  if (nf < 0) return;
  if (nf != 6) return (void)snprintf(why, n, "signature '%s' has %d fields, not 6 (kind|mode|code|op|pass|pattern)", sig, nf);
  if (!is_kind(f[0])) return (void)snprintf(why, n, "signature '%s': '%s' is not a finding kind", sig, f[0]);
  if (strcmp(f[1], "none") && strcmp(f[1], "up_down") && strcmp(f[1], "left_right"))
    return (void)snprintf(why, n, "signature '%s': '%s' is not a mode (none, up_down, left_right)", sig, f[1]);
  if (strcmp(kind, f[0])) snprintf(why, n, "kind '%s' differs from the signature's kind '%s'", kind, f[0]);
}

/* A real back end's signature: six non-empty '|'-separated fields without
 * blanks, a finding kind, a real mode (ptoas:none, ptoas:up_down,
 * ptoas:left_right). Empty string if fine, else why not. */
static void check_real_sig(const char *sig, const char *pre, char *why, size_t n) {
  char f[6][FZ_SIGLEN];
  why[0] = 0;
  if (strlen(sig) >= FZ_SIGLEN) return (void)snprintf(why, n, "signature '%.40s...' is too long", sig);
  if (sig[strcspn(sig, " \t")]) return (void)snprintf(why, n, "signature '%s' holds a blank", sig);
  int nf = sig_fields(sig, f, why, n);
  if (nf < 0) return;
  if (nf != 6) return (void)snprintf(why, n, "signature '%s' has %d fields, not 6 (kind|%sMODE|code|op|pass|pattern)", sig, nf, pre);
  if (!is_kind(f[0])) return (void)snprintf(why, n, "signature '%s': '%s' is not a finding kind", sig, f[0]);
  size_t k = strlen(pre);
  if (strncmp(f[1], pre, k) || (strcmp(f[1] + k, "none") && strcmp(f[1] + k, "up_down") && strcmp(f[1] + k, "left_right")))
    snprintf(why, n, "signature '%s': '%s' is not a real back end's mode (%snone, %sup_down, %sleft_right)", sig, f[1],
             pre, pre, pre);
}

static int bug_index(const char *name) {
  for (int b = 0; ir_bug_name(b); b++)
    if (!strcmp(ir_bug_name(b), name)) return b;
  return -1;
}

static void bad(Repro *r, int line, const char *fmt, const char *a) {
  if (r->bad[0]) return;                        /* the first problem is the reason */
  char m[260];
  snprintf(m, sizeof m, fmt, a);
  snprintf(r->bad, sizeof r->bad, "line %d: %s", line, m);
}

/* A comment whose first word is `expect` or `defect` in any case, or with
 * blanks before its colon, but not spelled exactly `expect:` / `defect:`:
 * a header written wrong, which would otherwise pass for a comment. */
static bool header_like(const char *s) {
  size_t w = 0;
  while (s[w] && ((s[w] >= 'a' && s[w] <= 'z') || (s[w] >= 'A' && s[w] <= 'Z'))) w++;
  if ((w != 6 && w != 7) || (strncasecmp(s, "expect", 6) && strncasecmp(s, "defect", 6))) return false;
  if (w == 7 && s[6] != 's' && s[6] != 'S') return false;
  const char *c = s + w + strspn(s + w, " \t");
  if (*c != ':') return false;
  return !(w == 6 && c == s + 6 && (!strncmp(s, "expect", 6) || !strncmp(s, "defect", 6)));
}

/* Read the header lines. A malformed or missing header makes the file `not
 * ok` (r->bad); false (message printed) only on an input error, an unknown
 * defect name. */
static bool parse_headers(Repro *r, bool real, const char *prefix) {
  bool expect = false;
  int line = 0;
  for (const char *p = r->text; *p;) {
    const char *eol = strchr(p, '\n');
    size_t n = eol ? (size_t)(eol - p) : strlen(p);
    line++;
    char buf[1024];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf - 1 ? n : sizeof buf - 1), p);
    p += n + (eol != NULL);
    size_t k = strlen(buf);
    while (k && (buf[k - 1] == '\r' || buf[k - 1] == ' ' || buf[k - 1] == '\t')) buf[--k] = 0;
    if (buf[0] != '#') continue;
    char *s = buf + 1 + strspn(buf + 1, " \t");
    bool hdr = !strncmp(s, "expect:", 7) || !strncmp(s, "defect:", 7);
    if ((hdr || header_like(s)) && n >= sizeof buf - 1) {   /* never judged on a truncated copy */
      bad(r, line, "header line longer than %s characters", "1022");
      continue;
    }
    if (!hdr && header_like(s)) {
      char word[16];
      snprintf(word, sizeof word, "%.*s", (int)strcspn(s, " \t:"), s);
      bad(r, line, "malformed header '# %s': headers are written '# expect:' and '# defect:' (lower case, no blank "
                   "before the colon)", word);
      continue;
    }
    if (!strncmp(s, "expect:", 7)) {
      char *v = s + 7 + strspn(s + 7, " \t");
      if (expect) bad(r, line, "a second '# expect:' line%s", "");
      else if (real && strcmp(v, "clean")) {
        char why[300];
        check_real_sig(v, prefix, why, sizeof why);
        if (why[0]) bad(r, line, "%s", why);
        else snprintf(r->sig, sizeof r->sig, "%s", v);
      } else if (strcmp(v, "clean")) bad(r, line, "unsupported expectation '%s' (only 'clean')", v);
      expect = true;
    } else if (!strncmp(s, "defect:", 7) && !real) {
      char *tok[5], *save = NULL;
      int nt = 0;
      for (char *t = strtok_r(s + 7, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (nt < 5) tok[nt++] = t;
        else nt++;
      if (nt >= 1 && strcmp(tok[0], "->")) {
        int b = bug_index(tok[0]);
        if (b < 0) {
          char known[600];
          ir_bugs_format((1u << BUG_N) - 1, known, sizeof known);
          fprintf(stderr, "pto-check: %s:%d: unknown defect '%s' (known: %s)\n", r->path, line, tok[0], known);
          return false;
        }
        if (r->defect >= 0) {
          bad(r, line, "a second '# defect:' line%s", "");
          continue;
        }
        r->defect = b;
      }
      if (nt != 4 || strcmp(tok[1], "->")) {
        bad(r, line, "malformed '# defect:' line: expected '# defect: NAME -> KIND SIGNATURE'%s", "");
        continue;
      }
      char why[300];
      check_sig(tok[2], tok[3], why, sizeof why);
      if (why[0]) bad(r, line, "%s", why);
      else snprintf(r->sig, sizeof r->sig, "%s", tok[3]);
    }
  }
  if (!expect && !r->bad[0])                    /* this file is not ok; the others still run */
    snprintf(r->bad, sizeof r->bad, "no '# expect: %s' header line", real ? "clean|SIGNATURE" : "clean");
  return true;
}

/* ---- inputs ------------------------------------------------------------------- */

static void add_file(List *l, const char *path) {
  size_t len;
  char *text = read_all(path, &len);
  if (!text) {
    fprintf(stderr, "pto-check: cannot read %s: %s\n", path, strerror(errno));
    l->errors++;
    return;
  }
  if (len > IR_MAX_SRC) {
    fprintf(stderr, "%s:1:1: error[E-LIMIT]: larger than %d MB, the largest source file ptoc reads [user]\n", path,
            IR_MAX_SRC >> 20);
    free(text);
    l->errors++;
    return;
  }
  Repro *r = push(l);
  r->path = xstrdup(path);
  r->text = text;
  r->len = len;
  if (!parse_headers(r, l->real, l->prefix)) l->errors++;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void add_path(List *l, const char *path, bool must_exist) {
  struct stat st;
  if (stat(path, &st)) {
    if (!must_exist && errno == ENOENT) return;
    fprintf(stderr, "pto-check: cannot read %s: %s\n", path, strerror(errno));
    l->errors++;
    return;
  }
  if (!S_ISDIR(st.st_mode)) return add_file(l, path);
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "pto-check: cannot read %s: %s\n", path, strerror(errno));
    l->errors++;
    return;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t k = strlen(e->d_name);
    if (k < 5 || strcmp(e->d_name + k - 4, ".ptk") || e->d_name[0] == '.') continue;
    if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *names))) die("out of memory");
    names[n++] = xstrdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, by_name);
  size_t pl = strlen(path);
  bool slash = pl && path[pl - 1] == '/';
  for (size_t i = 0; i < n; i++) {
    char full[4096];
    snprintf(full, sizeof full, "%s%s%s", path, slash ? "" : "/", names[i]);
    add_file(l, full);
    free(names[i]);
  }
  free(names);
}

static void db_case(void *ctx, int64_t finding, const char *signature, const char *kernel) {
  List *l = ctx;
  const char *mode = strchr(signature, '|');
  if (l->real && !(mode && !strncmp(mode + 1, l->prefix, 6))) return;   /* a real back end: its own findings */
  Repro *r = push(l);
  char name[FZ_SIGLEN + 64];
  snprintf(name, sizeof name, "db finding %lld %s", (long long)finding, signature);
  r->path = xstrdup(name);
  r->text = xstrdup(kernel);
  r->len = strlen(kernel);
  r->from_db = true;
}

static bool add_db(List *l, const char *path) {
  if (access(path, R_OK)) {                     /* said plainly, before SQLite's words */
    fprintf(stderr, "pto-check: cannot read %s: %s\n", path, strerror(errno));
    return false;
  }
  char err[256];
  Db *d = db_open_read(path, err, sizeof err);  /* only reads: a read-only file will do */
  if (!d) {
    fprintf(stderr, "pto-check: cannot open %s: %s\n", path, err);
    return false;
  }
  int n = db_fixed_testcases(d, db_case, l);
  if (n < 0) fprintf(stderr, "pto-check: %s: %s\n", path, db_errmsg(d));
  db_close(d);
  return n >= 0;
}

/* ---- the replay ---------------------------------------------------------------- */

static void sig_list(const FzVerdict *v, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < v->n && at < n; i++) at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", v->sig[i]);
  if (!v->n) snprintf(buf, n, "none");
}

/* One test point; true when ok. */
static bool check(int num, const Repro *r, bool all, uint32_t bugs) {
  char why[2400] = "", did[1400];
  snprintf(did, sizeof did, "clean");
  FzReplay rp = {.name = r->path, .text = r->text, .len = r->len, .sched_seed = 1};
  FzVerdict v;
  if (r->bad[0]) {
    snprintf(why, sizeof why, "%s", r->bad);
  } else {
    fz_replay(&rp, WATCHDOG_S, &v);
    char got[900];
    sig_list(&v, got, sizeof got);
    if (v.invalid) snprintf(why, sizeof why, "the kernel is invalid: %s", v.why);
    else if (v.finding) snprintf(why, sizeof why, "the clean compiler gives findings: %s", got);
  }
  uint32_t on = r->defect < 0 || r->from_db ? 0 : all ? 1u << r->defect : bugs >> r->defect & 1u ? bugs : 0;
  if (!why[0] && on) {
    char names[600], got[900];
    ir_bugs_format(on, names, sizeof names);
    rp.bugs = on;
    fz_replay(&rp, WATCHDOG_S, &v);
    sig_list(&v, got, sizeof got);
    if (!fz_verdict_has(&v, r->sig))
      snprintf(why, sizeof why, "--bugs=%s: %s is not among the findings (%s)", names, r->sig, got);
    snprintf(did, sizeof did, "clean, --bugs=%s gives %s", names, r->sig);
  }
  if (orc_stop_pending()) return false;        /* stopped mid-way: no verdict for this point */
  for (char *c = why; *c; c++) *c = *c == '\n' || *c == '\r' ? ' ' : *c;   /* one TAP line */
  if (why[0]) printf("not ok %d - %s # %s\n", num, r->path, why);
  else printf("ok %d - %s %s\n", num, r->path, did);
  fflush(stdout);
  return !why[0];
}

/* ---- the real back end ----------------------------------------------------------- */

/* One line: newlines and carriage returns as blanks. */
static void one_line(char *s) {
  for (; *s; s++) *s = *s == '\n' || *s == '\r' ? ' ' : *s;
}

/* The reason a real replay is not ok ("" if it is), and what it did. */
static void real_judge(const Repro *r, const FzRealCase *c, char *why, size_t wn, char *did, size_t dn) {
  why[0] = 0;
  if (r->sig[0]) snprintf(did, dn, "gives %s", r->sig);
  else snprintf(did, dn, "clean");
  if (c->lost) return (void)snprintf(why, wn, "%s", c->v.why);
  if (c->v.invalid) return (void)snprintf(why, wn, "the kernel is invalid: %s", c->v.why);
  for (int i = 0; i < c->n; i++)
    if (!strcmp(c->var[i].outcome, "tool-error"))
      return (void)snprintf(why, wn, "tool error on %s: %s", c->var[i].name, c->var[i].detail);
  if (r->sig[0]) {
    if (!fz_verdict_has(&c->v, r->sig)) snprintf(why, wn, "%s is not among the findings", r->sig);
    return;
  }
  if (c->clean) return;
  size_t at = 0;
  at += (size_t)snprintf(why, wn, "not clean:");
  for (int i = 0; i < c->n && at < wn; i++)
    if (strcmp(c->var[i].outcome, "ok") && strcmp(c->var[i].outcome, "unsupported"))
      at += (size_t)snprintf(why + at, wn - at, " %s %s %s;", c->var[i].name, c->var[i].outcome,
                             c->var[i].sig[0] ? c->var[i].sig : c->var[i].code);
  if (at < wn && at && why[at - 1] == ';') why[at - 1] = 0;
}

/* Every reproducer through the real back end in one batch, then one test point each. */
static int real_check(const List *l, const FzReal *t) {
  FzRealCase *c = calloc((size_t)l->n, sizeof *c);
  int *at = calloc((size_t)l->n, sizeof *at), nc = 0;
  if (!c || !at) die("out of memory");
  for (int i = 0; i < l->n; i++) {
    const Repro *r = &l->v[i];
    at[i] = -1;
    if (r->bad[0]) continue;
    at[i] = nc;
    c[nc++] = (FzRealCase){.name = r->path, .text = r->text, .len = r->len};
  }
  /* a watchdog far above what the batch takes: the tools have limits of their own */
  fz_real_replay(t, c, nc, 600 + 60.0 * nc);
  int failed = 0;
  for (int i = 0; i < l->n && !orc_stop_pending(); i++) {
    const Repro *r = &l->v[i];
    char why[2400], did[FZ_SIGLEN + 16];
    const FzRealCase *x = at[i] >= 0 ? &c[at[i]] : NULL;
    if (!x) snprintf(why, sizeof why, "%s", r->bad), snprintf(did, sizeof did, "-");
    else real_judge(r, x, why, sizeof why, did, sizeof did);
    one_line(why);
    if (!why[0]) {
      printf("ok %d - %s %s\n", i + 1, r->path, did);
      continue;
    }
    failed++;
    printf("not ok %d - %s # %s\n", i + 1, r->path, why);
    char seen[FZ_MAXSIG * (FZ_SIGLEN + 2) + 8];
    if (x && !x->lost && !x->v.invalid) sig_list(&x->v, seen, sizeof seen);
    else snprintf(seen, sizeof seen, "none (not checked)");
    printf("# signatures seen: %s\n", seen);
  }
  fflush(stdout);
  free(c);
  free(at);
  return failed;
}

static int check_main(int argc, char **argv) {
  const char *bugs_text = getenv("PTOFUZZ_BUGS"), *db = NULL, *backend = "model", *ptoas = NULL, *isa = NULL;
  const char *pypto = NULL;
  double pytime = 0;
  bool bugs_flag = false, allow_empty = false;
  int64_t jobs = 0;
  IrCliBad bad = {0};
  List l = {0};
  int npaths = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (ir_cli_is_help(a)) return ir_cli_help(stdout, &cmd), 0;
    if (ir_cli_is_version(a)) return printf("pto-check %s (commit %s)\n", PTO_VERSION, PTO_COMMIT), 0;
    if (!strncmp(a, "--bugs=", 7)) bugs_text = a + 7, bugs_flag = true;
    else if (!strncmp(a, "--db=", 5) && a[5]) db = a + 5;
    else if (!strcmp(a, "--allow-empty")) allow_empty = true;
    else if (!strncmp(a, "--backend=", 10)) backend = a + 10;
    else if (!strncmp(a, "--ptoas=", 8) && a[8]) ptoas = a + 8;
    else if (!strncmp(a, "--pto-isa=", 10) && a[10]) isa = a + 10;
    else if (!strncmp(a, "--pypto=", 8) && a[8]) pypto = a + 8;
    else if (ir_cli_real(a, "--pypto-timeout=", 0, 86400, true, &pytime, &bad) ||
             ir_cli_int(a, "--jobs=", 1, 1024, &jobs, &bad)) {
    } else if (a[0] == '-' && a[1]) return usage_error("unknown option", a);
    else npaths++;
  }
  if (bad.arg) return ir_cli_fail(&cmd, "'%s': %s", bad.arg, bad.why);
  bool py = !strcmp(backend, "pypto");
  l.real = py || !strcmp(backend, "ptoas");
  l.prefix = py ? "pypto:" : "ptoas:";
  if (!l.real && strcmp(backend, "model")) return usage_error("unknown back end (model, ptoas or pypto)", backend);
  if (!l.real && (ptoas || isa || jobs))
    return usage_error("--ptoas, --pto-isa and --jobs apply to --backend=ptoas or pypto", NULL);
  if (!py && (pypto || pytime)) return usage_error("--pypto and --pypto-timeout apply to --backend=pypto", NULL);
  if (l.real && bugs_flag)                      /* the defects' signatures are the model's */
    return usage_error("--bugs applies to --backend=model (the real back end replays the clean compiler)", NULL);
  bool all = !l.real && bugs_text && !strcmp(bugs_text, "all");
  uint32_t bugs = 0;
  if (!l.real && !all && !ir_bugs_option("pto-check", bugs_text, &bugs)) return 1;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] != '-' || !argv[i][1]) add_path(&l, argv[i], true);
  const char *dflt = py ? "corpus/pypto" : l.real ? "corpus/real" : "corpus/regress";
  if (!npaths) add_path(&l, dflt, false);
  if (!l.errors && db && !add_db(&l, db)) l.errors++;
  int failed = 0;
  FzReal *t = NULL;
  if (l.errors) {
    failed = -1;
  } else if (!l.n && !allow_empty) {            /* run from elsewhere, an empty directory: not a pass */
    fprintf(stderr, "pto-check: nothing to check: no reproducers in %s%s%s (--allow-empty accepts that)\n",
            npaths ? "the given paths" : dflt, npaths ? "" : "/", db ? " nor fixed findings in the database" : "");
    failed = -1;
  } else if (!l.n) {
    puts("1..0 # SKIP no reproducers");
  } else if (py) {
    char why[300];
    if (!(t = fz_pypto_open(pypto, ptoas, isa, (int)jobs, pytime, why, sizeof why))) {
      if (pypto) {                              /* asked for by name: not a machine without it */
        fprintf(stderr, "pto-check: no usable PyPTO: %s\n", why);
        failed = -1;
      } else {
        one_line(why);
        printf("1..0 # SKIP no PyPTO: %s\n", why);
      }
    } else {
      printf("1..%d\n# PyPTO: %s\n", l.n, fz_pypto_commit(t));
      fflush(stdout);
      failed = real_check(&l, t);
    }
  } else if (l.real) {
    char why[300];
    if (!(t = fz_real_open(ptoas, isa, (int)jobs, why, sizeof why))) {
      if (ptoas || isa) {                       /* asked for by name: not a machine without the tools */
        fprintf(stderr, "pto-check: no usable real toolchain: %s\n", why);
        failed = -1;
      } else {
        one_line(why);
        printf("1..0 # SKIP no real toolchain: %s\n", why);
      }
    } else {
      printf("1..%d\n# real toolchain: %s\n", l.n, fz_real_version(t));
      fflush(stdout);
      failed = real_check(&l, t);
    }
  } else {
    printf("1..%d\n", l.n);
    for (int i = 0; i < l.n && !orc_stop_pending(); i++) failed += !check(i + 1, &l.v[i], all, bugs);
  }
  fz_real_free(t);
  for (int i = 0; i < l.n; i++) free(l.v[i].path), free(l.v[i].text);
  free(l.v);
  int sig = orc_stop_pending();
  if (sig) {                                    /* the tools are gone, their work directories too */
    printf("Bail out! stopped by SIG%s\n", sigabbrev_np(sig));
    return 128 + sig;
  }
  return failed < 0 ? 1 : failed ? 3 : 0;
}

int main(int argc, char **argv) {
  orc_stop_block(NULL);                         /* SIGINT, SIGTERM, SIGHUP: polled, see child.c */
  char **args = ir_cli_args(&argc, argv, opts);   /* `--opt value` as `--opt=value` */
  int rc = check_main(argc, args);
  ir_cli_free(args, argc);
  return rc;
}
