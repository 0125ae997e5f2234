/* util.c — arenas, internal-invariant aborts, diagnostics and file reading.
 * Consumes nothing of the IR; everything else in libptoc allocates through
 * an Arena owned by one compilation and freed in one call. */
#include "ptoc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef struct Chunk {
  struct Chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char mem[];
} Chunk;

typedef struct Owned {
  struct Owned *next;
  void *p;
} Owned;

struct Arena {
  Chunk *head;
  Owned *owned;                                 /* malloc'd blocks handed over by ir_arena_adopt */
};

Arena *ir_arena_new(void) {
  Arena *a = calloc(1, sizeof *a);
  if (!a) ir_oom(sizeof *a);
  return a;
}

void ir_arena_free(Arena *a) {
  if (!a) return;
  for (Owned *o = a->owned; o; o = o->next) free(o->p);
  for (Chunk *c = a->head, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(a);
}

void *ir_alloc(Arena *a, size_t n) { return memset(ir_alloc_raw(a, n), 0, (n + 15) & ~(size_t)15); }

/* Not zeroed: for scratch the caller writes in full before reading. */
void *ir_alloc_raw(Arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  Chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 65536 - sizeof(Chunk) ? n : 65536 - sizeof(Chunk);
    c = malloc(sizeof(Chunk) + cap);
    if (!c) ir_oom(sizeof(Chunk) + cap);
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = c->mem + c->used;
  c->used += n;
  return p;
}

void *ir_arena_adopt(Arena *a, void *p) {
  Owned *o = ir_alloc(a, sizeof *o);
  o->p = p;
  o->next = a->owned;
  a->owned = o;
  return p;
}

char *ir_strndup(Arena *a, const char *s, size_t n) {
  char *p = ir_alloc(a, n + 1);
  memcpy(p, s, n);
  return p;
}

char *ir_fmt(Arena *a, const char *fmt, ...) {
  char buf[256];                                /* most strings fit: formatted once */
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) die("vsnprintf failed");
  char *p = ir_alloc_raw(a, (size_t)n + 1);
  if ((size_t)n < sizeof buf) return memcpy(p, buf, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

void ir_mem_limit(long long mb) {
#ifndef UNDER_ASAN
  struct rlimit r;
  if (mb <= 0 || getrlimit(RLIMIT_AS, &r) != 0) return;
  rlim_t want = (rlim_t)mb << 20;
  if (r.rlim_max != RLIM_INFINITY && want > r.rlim_max) want = r.rlim_max;
  r.rlim_cur = want;                            /* the soft limit: a child may raise it again */
  setrlimit(RLIMIT_AS, &r);
#else
  (void)mb;
#endif
}

_Noreturn void ir_oom(size_t n) {
  fprintf(stderr, "%s: error[E-LIMIT]: out of memory: %zu more bytes do not fit in the memory limit (--max-mem, "
                  "default %d MB) [user]\n", program_invocation_short_name, n, IR_MAX_MEM_MB);
  exit(1);
}

_Noreturn void ir_die(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s:%d: internal error: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

static const struct {
  const char *name;
  DiagCat cat;
} diags[] = {
#define D(e, s, c, m) {s, c},
#include "diag.def"
#undef D
};

const char *ir_diag_name(DiagCode d) { return d < D_N ? diags[d].name : "E-?"; }
DiagCat ir_diag_cat(DiagCode d) { return d < D_N ? diags[d].cat : CAT_INTERNAL; }
const char *ir_cat_name(DiagCat c) {
  return c == CAT_USER ? "user" : c == CAT_UNSUPPORTED ? "unsupported" : "internal";
}

_Noreturn void ir_error(Comp *c, Loc loc, DiagCode code, const char *fmt, ...) {
  va_list ap;
  c->diag.set = true;
  c->diag.code = code;
  c->diag.loc = loc;
  c->diag.op1 = c->judging1;
  va_start(ap, fmt);
  vsnprintf(c->diag.msg, sizeof c->diag.msg, fmt, ap);
  va_end(ap);
  if (!c->jb) die("diagnostic with nowhere to go: %s", c->diag.msg);
  longjmp(*c->jb, 1);
}

void ir_diag_print(FILE *f, const Src *src, const Diag *d) {
  fprintf(f, "%s:%d:%d: error[%s]: %s [%s]\n", src->name, d->loc.line, d->loc.col,
          ir_diag_name(d->code), d->msg, ir_cat_name(ir_diag_cat(d->code)));
  if (d->loc.line <= 0 || (size_t)d->loc.off > src->len) return;
  const char *at = src->text + d->loc.off, *b = at, *e = at;
  while (b > src->text && b[-1] != '\n') b--;
  while (e < src->text + src->len && *e != '\n') e++;
  /* A long line is echoed as a window of at most ECHO bytes around the column. */
  enum { ECHO = 1024 };
  bool cut_b = at - b > ECHO / 2, cut_e;
  if (cut_b) b = at - ECHO / 2;
  cut_e = e - b > ECHO;
  if (cut_e) e = b + ECHO;
  fprintf(f, "  %s%.*s%s\n  %s", cut_b ? "..." : "", (int)(e - b), b, cut_e ? "..." : "", cut_b ? "   " : "");
  for (const char *p = b; p < at; p++) fputc(*p == '\t' ? '\t' : ' ', f);
  fputs("^\n", f);
}

bool ir_read_file(Arena *a, const char *path, Src *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  if (!buf) ir_oom(cap);
  bool big = false;
  for (size_t r; (r = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += r;
    if (n > IR_MAX_SRC) {                       /* /dev/zero, a pipe that never ends: stop */
      big = true;
      break;
    }
    if (n == cap) {
      cap = cap * 2 > (size_t)IR_MAX_SRC + 1 ? (size_t)IR_MAX_SRC + 1 : cap * 2;
      char *nb = realloc(buf, cap);
      if (!nb) ir_oom(cap);
      buf = nb;
    }
  }
  bool ok = big || !ferror(f);
  fclose(f);
  out->name = ir_strndup(a, path, strlen(path));
  out->text = ir_strndup(a, buf, n);
  out->len = n;
  free(buf);
  return ok;
}
