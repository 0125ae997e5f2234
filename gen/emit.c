/* emit.c — renders a generated kernel (gen.c's AST) as .ptk text: a comment
 * header with the generator's compile claim per variant, the kernel line
 * with one tensor parameter per line (index and page tables with their
 * inline contents), the attributes, then the body, nested calls as written
 * by the generator. The text carries no seed, so the same
 * kernel generated from a seed and from fuzzer bytes renders identically.
 * Also frees kernels (fz_free) and writes a rendered kernel to a file
 * (fz_write_file). */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  char *p;
  size_t n, cap;
} Buf;

static void grow(Buf *b, size_t add) {
  if (b->n + add + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 2048;
  while (b->n + add + 1 > cap) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    fputs("ptofuzz: out of memory\n", stderr);
    abort();
  }
  b->p = p;
  b->cap = cap;
}

static void putn(Buf *b, const char *s, size_t n) {
  grow(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void puts_(Buf *b, const char *s) { putn(b, s, strlen(s)); }
static void putc_(Buf *b, char c) { putn(b, &c, 1); }

static void puti(Buf *b, long long x) {
  char t[24];
  int i = sizeof t;
  unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
  do t[--i] = (char)('0' + u % 10);
  while (u /= 10);
  if (x < 0) t[--i] = '-';
  putn(b, t + i, sizeof t - (size_t)i);
}

/* Numbers the generator makes are integers or short binary fractions; %.9g
 * reads back to the same f32. */
static void putnum(Buf *b, double x) {
  if (x == (double)(long long)x && x > -1e15 && x < 1e15) {
    puti(b, (long long)x);
    return;
  }
  char t[40];
  snprintf(t, sizeof t, "%.9g", x);
  puts_(b, t);
}

static const char *const dtn[] = {"f32", "f16", "i32", "bf16", "i8", "i16"};
static const char *const spn[] = {"vec", "mat", "acc"};
static const char *const mdn[] = {"up_down", "left_right", "up_down_odd", "left_right_odd", "none"};
static const char *const kwn[] = {"", "valid", "space", "trans_b", "block_size", "size", "max_indices", "col_off", "lane", "stride", "window"};
static const char *const opn[] = {"",
#define FZ_X_(n) #n,
                                  FZ_OPS(FZ_X_)
#undef FZ_X_
};

const char *fz_op_name(int op) { return op >= 0 && op < FZ_NOPS ? opn[op] : NULL; }

static void put_aff(Buf *b, const FzKernel *k, const FzAff *a) {
  bool any = false;
  for (int i = 0; i < a->n; i++) {
    int c = a->k[i];
    if (!c) continue;
    if (any) puts_(b, c < 0 ? " - " : " + ");
    else if (c < 0) putc_(b, '-');
    puts_(b, k->names[a->v[i]]);
    if (c != 1 && c != -1) {
      putc_(b, '*');
      puti(b, c < 0 ? -(long long)c : c);
    }
    any = true;
  }
  if (!any) puti(b, a->c);
  else if (a->c) {
    puts_(b, a->c < 0 ? " - " : " + ");
    puti(b, a->c < 0 ? -(long long)a->c : a->c);
  }
}

static void put_expr(Buf *b, const FzKernel *k, const FzExpr *e);

static void put_arg(Buf *b, const FzKernel *k, const FzArg *a) {
  if (a->kw) {
    puts_(b, kwn[a->kw]);
    putc_(b, '=');
  }
  switch (a->k) {
  case FZ_A_EXPR: put_expr(b, k, a->e); break;
  case FZ_A_TENSOR: puts_(b, k->params[a->tensor].name); break;
  case FZ_A_IDX:
    putc_(b, '[');
    put_aff(b, k, &a->ix[0]);
    puts_(b, ", ");
    put_aff(b, k, &a->ix[1]);
    putc_(b, ']');
    break;
  case FZ_A_AFF: put_aff(b, k, &a->ix[0]); break;
  case FZ_A_NUM: putnum(b, a->num); break;
  case FZ_A_INT: puti(b, a->i); break;
  case FZ_A_DTYPE: puts_(b, dtn[a->i]); break;
  case FZ_A_MODE: puts_(b, mdn[a->i]); break;
  case FZ_A_SPACE: puts_(b, spn[a->i]); break;
  }
}

static void put_expr(Buf *b, const FzKernel *k, const FzExpr *e) {
  if (e->op == FZ_OP_VAR) {
    puts_(b, k->names[e->var]);
    return;
  }
  puts_(b, opn[e->op]);
  putc_(b, '(');
  for (int i = 0; i < e->nargs; i++) {
    if (i) puts_(b, ", ");
    put_arg(b, k, &e->a[i]);
  }
  putc_(b, ')');
}

static void indent(Buf *b, int d) {
  for (int i = 0; i < d; i++) puts_(b, "  ");
}

static void put_body(Buf *b, const FzKernel *k, const FzBody *body, int d) {
  for (int i = 0; i < body->n; i++) {
    const FzStmt *s = body->v[i];
    indent(b, d);
    switch (s->k) {
    case FZ_S_ASSIGN:
      puts_(b, k->names[s->dst]);
      puts_(b, " = ");
      put_expr(b, k, s->e);
      puts_(b, ";\n");
      break;
    case FZ_S_STORE:
      put_expr(b, k, s->e);
      puts_(b, ";\n");
      break;
    case FZ_S_FOR:
      puts_(b, "for ");
      puts_(b, k->names[s->iv]);
      puts_(b, " in range(");
      puti(b, s->lo);
      puts_(b, ", ");
      puti(b, s->hi);
      if (s->step != 1) {
        puts_(b, ", ");
        puti(b, s->step);
      }
      puts_(b, ") {\n");
      put_body(b, k, &s->body, d + 1);
      indent(b, d);
      puts_(b, "}\n");
      break;
    case FZ_S_IF:
    case FZ_S_WHILE: {
      static const char *const rel[] = {" < ", " <= ", " > ", " >= ", " == ", " != "};
      puts_(b, s->k == FZ_S_IF ? "if " : "while ");
      put_aff(b, k, &s->ca);
      puts_(b, rel[s->rel]);
      put_aff(b, k, &s->cb);
      if (s->k == FZ_S_WHILE) {
        puts_(b, " max ");
        puti(b, s->hi);
      }
      puts_(b, " {\n");
      put_body(b, k, &s->body, d + 1);
      indent(b, d);
      if (s->other.n) {
        puts_(b, "} else {\n");
        put_body(b, k, &s->other, d + 1);
        indent(b, d);
      }
      puts_(b, "}\n");
      break;
    }
    case FZ_S_SPLIT:
      puts_(b, "for ");
      puts_(b, k->names[s->iv]);
      puts_(b, " in split_aiv(2) {\n");
      put_body(b, k, &s->body, d + 1);
      indent(b, d);
      puts_(b, "}\n");
      break;
    }
  }
}

static void put_param(Buf *b, const FzParam *p) {
  static const char *const dirn[] = {"in", "out", "inout"};
  puts_(b, p->name);
  puts_(b, ": ");
  puts_(b, dtn[p->dt]);
  putc_(b, '[');
  if (p->rank == 2) {
    puti(b, p->dim[0]);
    putc_(b, ',');
  }
  puti(b, p->dim[1]);
  puts_(b, "] ");
  puts_(b, dirn[p->dir]);
  if (p->init) {
    puts_(b, " = [");
    int n = p->dim[0] * p->dim[1];
    for (int i = 0; i < n; i++) {
      if (i) puts_(b, i % 16 ? ", " : ",\n      ");
      puti(b, p->init[i]);
    }
    putc_(b, ']');
  }
}

char *fz_emit(const FzKernel *k, size_t *len) {
  Buf b = {0};
  grow(&b, 4096);
  puts_(&b, "# generated by ptofuzz gen\n# expect-compile:");
  static const char *const vn[4] = {"none@a2a3", "none@a5", "up_down", "left_right"};   /* orc_variants */
  int nmust = 0, nmay = 0, nneg = 0;            /* each variant in one line: a refusal claim first */
  for (int v = 0; v < 4; v++) {
    nneg += k->must_refuse[v] != NULL;
    nmay += !k->must_refuse[v] && k->refuse[v];
    if (!k->must_refuse[v] && !k->refuse[v]) puts_(&b, " "), puts_(&b, vn[v]), nmust++;
  }
  if (!nmust) puts_(&b, " -");
  if (nmay) {
    puts_(&b, "\n# may-refuse:");
    for (int v = 0; v < 4; v++)
      if (!k->must_refuse[v] && k->refuse[v]) puts_(&b, " "), puts_(&b, vn[v]), putc_(&b, '='), puts_(&b, k->refuse[v]);
  }
  if (nneg) {
    puts_(&b, "\n# expect-refuse:");
    for (int v = 0; v < 4; v++)
      if (k->must_refuse[v]) puts_(&b, " "), puts_(&b, vn[v]), putc_(&b, '='), puts_(&b, k->must_refuse[v]);
  }
  puts_(&b, "\nkernel gen(");
  for (int i = 0; i < k->np; i++) {
    puts_(&b, i ? ",\n    " : "\n    ");
    put_param(&b, &k->params[i]);
  }
  putc_(&b, ')');
  if (k->split >= 0) {
    static const char *const sn[] = {"none", "up_down", "left_right"};
    puts_(&b, " split(");
    puts_(&b, sn[k->split]);
    putc_(&b, ')');
  }
  if (k->target >= 0) puts_(&b, k->target ? " target(a5)" : " target(a2a3)");
  if (k->slots) {
    puts_(&b, " slots(");
    puti(&b, k->slots);
    putc_(&b, ')');
  }
  puts_(&b, " {\n");
  put_body(&b, k, &k->body, 1);
  puts_(&b, "}\n");
  if (len) *len = b.n;
  return b.p;
}

void fz_free(FzKernel *k) {
  if (!k) return;
  for (FzChunk *c = k->mem, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(k);
}

bool fz_write_file(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(text, 1, len, f) == len;
  if (fclose(f)) ok = false;                    /* the data may only fail to reach the disk here */
  return ok;
}
