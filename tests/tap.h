/* tap.h — a minimal TAP producer for the C test programs. Tests carry stable
 * ids (`ok 7 - sem-2.3 ...`), as SQLite's do_test does. */
#ifndef TAP_H
#define TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n, failed;
} Tap;

static inline int tap_ok(Tap *t, int cond, const char *id, const char *fmt, ...) {
  va_list ap;
  printf("%s %d - %s ", cond ? "ok" : "not ok", ++t->n, id);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  if (!cond) t->failed++;
  fflush(stdout);
  return cond;
}

static inline void tap_diag(const char *fmt, ...) {
  va_list ap;
  fputs("# ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

static inline int tap_done(Tap *t) {
  printf("1..%d\n", t->n);
  return t->failed ? 1 : 0;
}
#endif
