/* t_report.c — the triage report's line diff (reports/report.c,
 * rep_line_diff): table-driven texts with the exact unified diff expected,
 * and a larger pair whose diff, applied to the first text, gives the second. */
#include "rep.h"
#include "tap.h"

#include <string.h>

static const struct {
  const char *id, *a, *b, *want;
} cases[] = {
    {"diff-1.1", "a\nb\nc\n", "a\nb\nc\n", "--- A\n+++ B\n"},
    {"diff-1.2", "a\nb\nc\n", "a\nx\nc\n", "--- A\n+++ B\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n"},
    {"diff-1.3", "a\nb\n", "a\nb\nc\n", "--- A\n+++ B\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"},
    {"diff-1.4", "a\nb\nc\n", "b\nc\n", "--- A\n+++ B\n@@ -1,3 +1,2 @@\n-a\n b\n c\n"},
    {"diff-1.5", "", "x\n", "--- A\n+++ B\n@@ -0,0 +1,1 @@\n+x\n"},
    /* indentation alone is no change; the context shows b's indentation */
    {"diff-1.6", "s;\nt;\n", "  s;\n  t;\n", "--- A\n+++ B\n"},
    {"diff-1.7", "k {\ns;\n}\n", "k {\n  for {\n  s;\n  }\n}\n",
     "--- A\n+++ B\n@@ -1,3 +1,5 @@\n k {\n+  for {\n   s;\n+  }\n }\n"},
    /* two changes far apart: two hunks with 3 lines of context each */
    {"diff-1.8", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "X\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nY\n",
     "--- A\n+++ B\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+Y\n"},
};

/* Apply a unified diff to a (exact lines): the result, malloc'd, or NULL. */
static char *apply(const char *a, const char *diff) {
  char *out = NULL, *da = strdup(diff), *ta = strdup(a);
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  const char *al[4096];
  int na = 0, at = 0;
  for (char *p = strtok(ta, "\n"); p && na < 4096; p = strtok(NULL, "\n")) al[na++] = p;
  char *save = NULL;
  for (char *l = strtok_r(da, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    if (!strncmp(l, "---", 3) || !strncmp(l, "+++", 3)) continue;
    if (!strncmp(l, "@@ -", 4)) {
      int from = atoi(l + 4) - 1;
      while (at < from) fprintf(f, "%s\n", al[at++]);
    } else if (*l == '-' || *l == ' ') {
      if (at >= na || strcmp(al[at], l + 1)) {
        fclose(f), free(out), free(da), free(ta);
        return NULL;
      }
      if (*l == ' ') fprintf(f, "%s\n", l + 1);
      at++;
    } else if (*l == '+') {
      fprintf(f, "%s\n", l + 1);
    }
  }
  while (at < na) fprintf(f, "%s\n", al[at++]);
  fclose(f);
  free(da), free(ta);
  return out;
}

int main(void) {
  Tap t = {0};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *d = rep_line_diff(cases[i].a, cases[i].b, "A", "B");
    tap_ok(&t, !strcmp(d, cases[i].want), cases[i].id, "the expected unified diff");
    if (strcmp(d, cases[i].want)) tap_diag("got:\n%s", d);
    free(d);
  }
  /* 400 lines, every 7th changed, every 11th removed, a line added after every 13th */
  char *a = NULL, *b = NULL;
  size_t la, lb;
  FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
  for (int i = 0; i < 400; i++) {
    fprintf(fa, "line %d\n", i);
    if (i % 11 == 5) continue;
    fprintf(fb, i % 7 == 3 ? "changed %d\n" : "line %d\n", i);
    if (i % 13 == 0) fprintf(fb, "added after %d\n", i);
  }
  fclose(fa), fclose(fb);
  char *d = rep_line_diff(a, b, "A", "B"), *back = apply(a, d);
  tap_ok(&t, back && !strcmp(back, b), "diff-2.1", "the diff of 400 lines applied to the first text gives the second");
  int minus = 0, plus = 0;
  for (const char *p = d; (p = strchr(p, '\n')); p++) minus += p[1] == '-' && p[2] != '-', plus += p[1] == '+' && p[2] != '+';
  /* a longest common subsequence keeps every unchanged line: each removed or
   * changed line is one '-', each changed or added line one '+' */
  int wm = 0, wp = 0;
  for (int i = 0; i < 400; i++) {
    if (i % 11 == 5) wm++;
    else if (i % 7 == 3) wm++, wp++;
    if (i % 11 != 5 && i % 13 == 0) wp++;
  }
  tap_ok(&t, minus == wm && plus == wp, "diff-2.2", "a minimal diff: %d removed and %d added lines (expected %d, %d)", minus,
         plus, wm, wp);
  free(a), free(b), free(d), free(back);
  return tap_done(&t);
}
