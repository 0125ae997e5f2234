/* print.c — IR -> text. The output is kernel source that parses back to the
 * same IR (printing it again gives the same text): attributes always
 * written, numbers written so they re-read to the same double and the same
 * integer/float spelling, index expressions in a canonical affine order. */
#include "ptoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void num(FILE *f, double x, bool isint) {
  if (isint) {
    fprintf(f, "%.0f", x);
    return;
  }
  char b[40];
  snprintf(b, sizeof b, "%.17g", x);
  /* shortest spelling that reads back to the same double */
  for (int p = 1; p <= 17; p++) {
    char t[40];
    snprintf(t, sizeof t, "%.*g", p, x);
    if (strtod(t, NULL) == x) {
      memcpy(b, t, sizeof t);
      break;
    }
  }
  fputs(b, f);
  if (!strpbrk(b, ".e")) fputs(".0", f);
}

/* Terms in name order: ids differ between a compilation and a re-parse of its
 * output, names do not (an expression never sees two variables of one name). */
static void aff(FILE *f, const Kernel *k, const Aff *a) {
  int ord[IR_MAXT];
  for (int i = 0; i < a->n; i++) {
    int j = i;
    while (j > 0 && strcmp(k->vars[a->v[ord[j - 1]]]->name, k->vars[a->v[i]]->name) > 0) ord[j] = ord[j - 1], j--;
    ord[j] = i;
  }
  for (int q = 0; q < a->n; q++) {
    int i = ord[q];
    int32_t c = a->k[i];
    const char *n = k->vars[a->v[i]]->name;
    if (q) fputs(c < 0 ? " - " : " + ", f);
    else if (c < 0) fputc('-', f);
    uint32_t m = c < 0 ? -(uint32_t)c : (uint32_t)c;
    if (m == 1) fputs(n, f);
    else fprintf(f, "%s*%u", n, m);
  }
  if (!a->n) fprintf(f, "%d", a->c);
  else if (a->c) fprintf(f, " %c %u", a->c < 0 ? '-' : '+', a->c < 0 ? -(uint32_t)a->c : (uint32_t)a->c);
}

static void call(FILE *f, const Kernel *k, const Call *c);
static void arg(FILE *f, const Kernel *k, const Arg *a) {
  if (a->kw) fprintf(f, "%s=", ir_kw_name(a->kw));
  switch (a->k) {
  case A_VAR: fputs(a->var->name, f); break;
  case A_CALL: call(f, k, a->call); break;
  case A_IDX:
    fputc('[', f);
    aff(f, k, &a->ix[0]);
    fputs(", ", f);
    aff(f, k, &a->ix[1]);
    fputc(']', f);
    break;
  case A_NUM: num(f, a->num, a->isint); break;
  case A_DTYPE: fputs(ir_dtype_name((Dtype)a->e), f); break;
  case A_MODE: fputs(ir_mode_name((Mode)a->e), f); break;
  case A_SPACE: fputs(ir_space_name((Space)a->e), f); break;
  case A_IEXPR: aff(f, k, &a->ix[0]); break;
  case A_DIR: fputs(a->e == PIPE_C2V ? "c2v" : "v2c", f); break;
  }
}

static void cond(FILE *f, const Kernel *k, const Stmt *s) {
  aff(f, k, &s->cond[0]);
  fprintf(f, " %s ", ir_rel_name(s->rel));
  aff(f, k, &s->cond[1]);
}

static void call(FILE *f, const Kernel *k, const Call *c) {
  fprintf(f, "%s(", ir_ops[c->op].name);
  for (int i = 0; i < c->nargs; i++) {
    if (i) fputs(", ", f);
    arg(f, k, &c->args[i]);
  }
  fputc(')', f);
}

static void body(FILE *f, const Kernel *k, const Body *b, int ind) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    fprintf(f, "%*s", 2 * ind, "");
    if (s->k == S_FOR && s->wloop && s->body.n == 1 && s->body.v[0]->k == S_COND && !s->body.v[0]->other.n) {
      const Stmt *c = s->body.v[0];             /* the bounded while it was parsed from */
      fputs("while ", f);
      cond(f, k, c);
      fprintf(f, " max %d {\n", s->iv->hi);
      body(f, k, &c->body, ind + 1);
      fprintf(f, "%*s}\n", 2 * ind, "");
      continue;
    } else if (s->k == S_FOR) {
      const Var *v = s->iv;
      fprintf(f, "for %s in range(%d, %d, %d) {\n", v->name, v->lo, v->hi, v->step);
    } else if (s->k == S_SPLIT) {
      fprintf(f, "for %s in split_aiv(2) {\n", s->iv->name);
    } else if (s->k == S_FUNC) {
      fputs(s->fn == FN_AIC ? "aic {\n" : "aiv {\n", f);
    } else if (s->k == S_IF) {
      fprintf(f, "if %s == 0 {\n", s->iv->name);
      body(f, k, &s->body, ind + 1);
      fprintf(f, "%*s} replay {\n", 2 * ind, "");
      body(f, k, &s->other, ind + 1);
      fprintf(f, "%*s}\n", 2 * ind, "");
      continue;
    } else if (s->k == S_COND) {
      fputs("if ", f);
      cond(f, k, s);
      fputs(" {\n", f);
      body(f, k, &s->body, ind + 1);
      if (s->other.n) {
        fprintf(f, "%*s} else {\n", 2 * ind, "");
        body(f, k, &s->other, ind + 1);
      }
      fprintf(f, "%*s}\n", 2 * ind, "");
      continue;
    } else {
      if (s->dst) fprintf(f, "%s = ", s->dst->name);
      arg(f, k, &s->rhs);
      fputs(";\n", f);
      continue;
    }
    body(f, k, &s->body, ind + 1);
    fprintf(f, "%*s}\n", 2 * ind, "");
  }
}

void ir_print(FILE *f, const Kernel *k) {
  fprintf(f, "kernel %s(", k->name);
  for (int i = 0; i < k->np; i++) {
    const Var *v = k->params[i];
    if (i) fputs(", ", f);
    fprintf(f, "%s: %s[", v->name, ir_dtype_name(v->dt));
    if (v->rank == 1) fprintf(f, "%d]", v->dim[1]);
    else fprintf(f, "%d, %d]", v->dim[0], v->dim[1]);
    fputs(v->dir == DIR_IN ? " in" : v->dir == DIR_OUT ? " out" : " inout", f);
    if (v->init) {
      fputs(" = [", f);
      for (int j = 0; j < v->ninit; j++) {
        if (j) fputs(", ", f);
        num(f, v->init[j], v->dt == DT_I32 || v->init[j] == floor(v->init[j]));
      }
      fputc(']', f);
    }
  }
  fprintf(f, ") split(%s) target(%s) slots(%d) {\n", ir_mode_name(k->split), ir_target_name(k->target), k->slots);
  body(f, k, &k->body, 1);
  fputs("}\n", f);
}

char *ir_print_str(Arena *a, const Kernel *k) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f) die("open_memstream failed");
  ir_print(f, k);
  fclose(f);
  char *r = ir_strndup(a, buf, n);
  free(buf);
  return r;
}
