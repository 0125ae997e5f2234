/* policy.c — the generator's policy: every probability and limit in one
 * struct (the FZ_POLICY table of gen.h), its defaults, a loader for
 * `key = value` files and a printer of the same format, so a printed policy
 * loads back to the same struct. Lines: `key = value`, `# comment`, blank.
 * Probabilities are numbers in [0, 1]; limits are integers in their range.
 * Errors carry a code, the file and the line, and category user:
 * `policy.txt:3: error[E-POLICY]: unknown key 'p_fo' [user]` (a key given
 * twice is one); a file that cannot be read is E-IO. */
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name, *doc;
  bool prob;
  size_t off;
  double dflt;
  int lo, hi;
} Field;

static const Field fields[] = {
#define FZ_P_(n, d, doc) {#n, doc, true, offsetof(FzPolicy, n), d, 0, 1},
#define FZ_I_(n, d, lo, hi, doc) {#n, doc, false, offsetof(FzPolicy, n), d, lo, hi},
    FZ_POLICY(FZ_P_, FZ_I_)
#undef FZ_P_
#undef FZ_I_
};
enum { NFIELDS = sizeof fields / sizeof fields[0] };

void fz_policy_default(FzPolicy *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < NFIELDS; i++) {
    char *at = (char *)p + fields[i].off;
    if (fields[i].prob) *(double *)at = fields[i].dflt;
    else *(int *)at = (int)fields[i].dflt;
  }
}

static bool fail_code(char *err, size_t n, const char *code, const char *file, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));
static bool fail_code(char *err, size_t n, const char *code, const char *file, int line, const char *fmt, va_list ap) {
  char msg[256];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (err && n) {
    if (line > 0) snprintf(err, n, "%s:%d: error[%s]: %s [user]", file, line, code, msg);
    else snprintf(err, n, "%s: error[%s]: %s [user]", file, code, msg);
  }
  return false;
}

static bool fail(char *err, size_t n, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static bool fail(char *err, size_t n, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_code(err, n, "E-POLICY", file, line, fmt, ap);
  va_end(ap);
  return false;
}

/* The file cannot be read: E-IO. */
static bool fail_io(char *err, size_t n, const char *file, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail_io(char *err, size_t n, const char *file, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fail_code(err, n, "E-IO", file, 0, fmt, ap);
  va_end(ap);
  return false;
}

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Pairs of limits that must be ordered. */
static const struct {
  size_t lo, hi;
  const char *nlo, *nhi;
} ordered[] = {
    {offsetof(FzPolicy, min_stmts), offsetof(FzPolicy, max_stmts), "min_stmts", "max_stmts"},
    {offsetof(FzPolicy, loop_trips_min), offsetof(FzPolicy, loop_trips_max), "loop_trips_min", "loop_trips_max"},
    {offsetof(FzPolicy, gather_block_min), offsetof(FzPolicy, gather_block_max), "gather_block_min",
     "gather_block_max"},
};

bool fz_policy_parse(FzPolicy *p, const char *name, const char *text, char *err, size_t n) {
  int line = 0, lines[NFIELDS] = {0};
  const char *s = text;
  while (*s) {
    line++;
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    char buf[512];
    if (len >= sizeof buf) return fail(err, n, name, line, "line too long");
    memcpy(buf, s, len);
    buf[len] = 0;
    s += len + (e != NULL);
    char *h = strchr(buf, '#');
    if (h) *h = 0;
    char *a = buf;
    while (blank(*a)) a++;
    size_t m = strlen(a);
    while (m && blank(a[m - 1])) a[--m] = 0;
    if (!*a) continue;
    char *eq = strchr(a, '=');
    if (!eq) return fail(err, n, name, line, "expected 'key = value', got '%.60s'", a);
    char *k = a, *ke = eq;
    while (ke > k && blank(ke[-1])) ke--;
    *ke = 0;
    char *v = eq + 1;
    while (blank(*v)) v++;
    if (!*k) return fail(err, n, name, line, "missing key before '='");
    int f = 0;
    while (f < NFIELDS && strcmp(fields[f].name, k)) f++;
    if (f == NFIELDS) return fail(err, n, name, line, "unknown key '%.60s'", k);
    if (lines[f]) return fail(err, n, name, line, "duplicate key '%s' (first given on line %d)", k, lines[f]);
    if (!*v) return fail(err, n, name, line, "missing value for '%s'", k);
    char *end;
    errno = 0;
    char *at = (char *)p + fields[f].off;
    if (fields[f].prob) {
      double x = strtod(v, &end);
      if (end == v || *end || errno || !isfinite(x))
        return fail(err, n, name, line, "'%s' takes a number, got '%.60s'", k, v);
      if (x < 0 || x > 1) return fail(err, n, name, line, "'%s' is a probability; %.60s is outside [0, 1]", k, v);
      *(double *)at = x;
    } else {
      long x = strtol(v, &end, 10);
      if (end == v || *end || errno) return fail(err, n, name, line, "'%s' takes an integer, got '%.60s'", k, v);
      if (x < fields[f].lo || x > fields[f].hi)
        return fail(err, n, name, line, "'%s' must be in %d..%d, got %ld", k, fields[f].lo, fields[f].hi, x);
      *(int *)at = (int)x;
    }
    lines[f] = line;
  }
  for (size_t i = 0; i < sizeof ordered / sizeof ordered[0]; i++) {
    int lo = *(int *)((char *)p + ordered[i].lo), hi = *(int *)((char *)p + ordered[i].hi);
    if (lo <= hi) continue;
    int l = 0;
    for (int f = 0; f < NFIELDS; f++)
      if ((fields[f].off == ordered[i].lo || fields[f].off == ordered[i].hi) && lines[f] > l) l = lines[f];
    return fail(err, n, name, l, "%s (%d) is larger than %s (%d)", ordered[i].nlo, lo, ordered[i].nhi, hi);
  }
  return true;
}

bool fz_policy_load(FzPolicy *p, const char *path, char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail_io(err, n, path, "cannot open: %s", strerror(errno));
  size_t cap = 4096, len = 0;
  char *text = malloc(cap);
  if (!text) {
    fclose(f);
    return fail(err, n, path, 0, "out of memory");
  }
  size_t r;
  while ((r = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += r;
    if (len > FZ_POLICY_MAX) {                 /* a policy is a few hundred bytes; /dev/zero is not one */
      free(text);
      fclose(f);
      return fail(err, n, path, 0, "larger than %d bytes: not a policy file", FZ_POLICY_MAX);
    }
    if (len + 1 == cap) {
      char *t = realloc(text, cap *= 2);
      if (!t) {
        free(text);
        fclose(f);
        return fail(err, n, path, 0, "out of memory");
      }
      text = t;
    }
  }
  bool rd = !ferror(f);
  fclose(f);
  text[len] = 0;
  if (!rd) {
    free(text);
    return fail_io(err, n, path, "read error");
  }
  if (memchr(text, 0, len)) {
    free(text);
    return fail(err, n, path, 0, "contains a NUL byte");
  }
  /* parse into a copy: a failed load leaves p untouched */
  FzPolicy q = *p;
  bool ok = fz_policy_parse(&q, path, text, err, n);
  free(text);
  if (ok) *p = q;
  return ok;
}

/* The shortest decimal form that reads back to the same double. */
static void put_double(FILE *f, double x) {
  char b[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(b, sizeof b, "%.*g", prec, x);
    if (strtod(b, NULL) == x) break;
  }
  fputs(b, f);
}

void fz_policy_print(const FzPolicy *p, FILE *f) {
  fputs("# ptofuzz generator policy: `key = value`; probabilities in [0, 1], limits are integers\n", f);
  for (int i = 0; i < NFIELDS; i++) {
    const char *at = (const char *)p + fields[i].off;
    fprintf(f, "%-26s = ", fields[i].name);
    if (fields[i].prob) put_double(f, *(const double *)at);
    else fprintf(f, "%d", *(const int *)at);
    fprintf(f, "%*s# %s\n", 2, "", fields[i].doc);
  }
}
