/* cli.c — the command-line conventions of every tool (cli.h): option
 * tables, help text, `--opt value` joined into `--opt=value`, numbers with
 * ranges, coded usage errors. No state: everything is the caller's. */
#include "cli.h"
#include "ptoc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Each line of text, the first headed by head and the others by pad (a line
 * that starts with a blank keeps its own indent). */
static void lines(FILE *f, const char *text, const char *head, const char *pad) {
  for (const char *t = text; t && *t;) {
    size_t n = strcspn(t, "\n");
    fprintf(f, "%s%.*s\n", t == text ? head : t[0] == ' ' ? "" : pad, (int)n, t);
    t += n + (t[n] == '\n');
  }
}

void ir_cli_usage(FILE *f, const IrCmd *c) {
  lines(f, c->synopsis, "usage: ", "       ");
}

static void opt_line(FILE *f, const char *name, const char *arg, const char *help, const char *def) {
  char left[64];
  snprintf(left, sizeof left, "%s%s%s", name, arg ? (name[1] == '-' ? "=" : " ") : "", arg ? arg : "");
  fprintf(f, "  %-24s %s%s%s%s\n", left, help, def ? " (default: " : "", def ? def : "", def ? ")" : "");
}

void ir_cli_help(FILE *f, const IrCmd *c) {
  ir_cli_usage(f, c);
  if (c->about) {
    fputc('\n', f);
    lines(f, c->about, "", "");
  }
  fputs("\noptions (a long option's value as --opt=V or --opt V):\n", f);
  for (const IrOpt *o = c->opts; o && o->name; o++) opt_line(f, o->name, o->arg, o->help, o->def);
  opt_line(f, "-h, --help", NULL, "this help, on stdout", NULL);
  opt_line(f, "-V, --version", NULL, "the version and git commit", NULL);
  fputs("\nexit status:\n", f);
  lines(f, c->exits, "  ", "  ");
}

bool ir_cli_is_help(const char *a) { return !strcmp(a, "-h") || !strcmp(a, "--help"); }
bool ir_cli_is_version(const char *a) { return !strcmp(a, "-V") || !strcmp(a, "--version"); }

void ir_cli_valued(const IrOpt *opts, const char **names, int *n, int cap) {
  for (const IrOpt *o = opts; o && o->name; o++) {
    if (!o->arg || o->name[1] != '-') continue;
    bool have = false;
    for (int i = 0; i < *n && !have; i++) have = !strcmp(names[i], o->name);
    if (!have && *n < cap - 1) names[(*n)++] = o->name;
  }
  names[*n] = NULL;
}

static char *dup(const char *s) {
  char *d = strdup(s);
  if (!d) die("out of memory");
  return d;
}

char **ir_cli_join(int *argc, char **argv, const char *const *valued) {
  char **out = malloc(((size_t)*argc + 1) * sizeof *out);
  if (!out) die("out of memory");
  int n = 0;
  bool rest = false;                            /* after `--`: operands only */
  for (int i = 0; i < *argc; i++) {
    const char *a = argv[i];
    bool wants = false;
    for (int k = 0; !rest && valued[k] && !wants; k++) wants = !strcmp(a, valued[k]);
    rest |= !strcmp(a, "--");
    if (wants && i + 1 < *argc) {
      size_t la = strlen(a), lv = strlen(argv[i + 1]);
      char *j = malloc(la + lv + 2);
      if (!j) die("out of memory");
      memcpy(j, a, la);
      j[la] = '=';
      memcpy(j + la + 1, argv[i + 1], lv + 1);
      out[n++] = j;
      i++;
    } else {
      out[n++] = dup(a);
    }
  }
  out[n] = NULL;
  *argc = n;
  return out;
}

char **ir_cli_args(int *argc, char **argv, const IrOpt *opts) {
  const char *valued[64];
  int n = 0;
  ir_cli_valued(opts, valued, &n, 64);
  return ir_cli_join(argc, argv, valued);
}

void ir_cli_free(char **argv, int argc) {
  for (int i = 0; argv && i < argc; i++) free(argv[i]);
  free(argv);
}

static void set_bad(IrCliBad *bad, const char *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_bad(IrCliBad *bad, const char *a, const char *fmt, ...) {
  if (bad->arg) return;
  bad->arg = a;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(bad->why, sizeof bad->why, fmt, ap);
  va_end(ap);
}

bool ir_cli_int(const char *a, const char *key, int64_t lo, int64_t hi, int64_t *out, IrCliBad *bad) {
  size_t k = strlen(key);
  if (strncmp(a, key, k)) return false;
  const char *v = a + k;
  char *e;
  errno = 0;
  long long x = strtoll(v, &e, 10);
  if ((*v < '0' || *v > '9') && *v != '-') e = (char *)v;   /* no blanks, no '+' */
  if (e == v || *e || errno || x < lo || x > hi)
    set_bad(bad, a, "%.*s takes an integer from %lld to %lld", (int)(k - 1), key, (long long)lo, (long long)hi);
  else *out = x;
  return true;
}

bool ir_cli_u64(const char *a, const char *key, uint64_t *out, IrCliBad *bad) {
  size_t k = strlen(key);
  if (strncmp(a, key, k)) return false;
  const char *v = a + k;
  char *e;
  errno = 0;
  unsigned long long x = strtoull(v, &e, 10);
  if (*v < '0' || *v > '9' || *e || errno)
    set_bad(bad, a, "%.*s takes an integer from 0 to 18446744073709551615", (int)(k - 1), key);
  else *out = x;
  return true;
}

bool ir_cli_real(const char *a, const char *key, double lo, double hi, bool lo_open, double *out, IrCliBad *bad) {
  size_t k = strlen(key);
  if (strncmp(a, key, k)) return false;
  const char *v = a + k;
  char *e;
  errno = 0;
  double x = strtod(v, &e);
  if ((*v < '0' || *v > '9') && *v != '.') e = (char *)v;   /* no blanks, signs, inf or nan */
  if (e == v || *e || errno || !isfinite(x) || x < lo || (lo_open && x == lo) || x > hi)
    set_bad(bad, a, "%.*s takes a number %s %g and at most %g", (int)(k - 1), key, lo_open ? "above" : "from", lo, hi);
  else *out = x;
  return true;
}

static void verror(const char *tool, const char *fmt, va_list ap) {
  fprintf(stderr, "%s: error[%s]: ", tool, ir_diag_name(E_USAGE));
  vfprintf(stderr, fmt, ap);
  fputs(" [user]\n", stderr);
}

int ir_cli_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(tool, fmt, ap);
  va_end(ap);
  return 1;
}

int ir_cli_fail(const IrCmd *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(c->name, fmt, ap);
  va_end(ap);
  ir_cli_usage(stderr, c);
  fprintf(stderr, "(%s --help: every option)\n", c->name);
  return 1;
}
