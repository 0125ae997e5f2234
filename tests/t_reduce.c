/* t_reduce.c — the minimizer's search (fuzz/reduce.c, fz_reduce_text) with
 * in-process predicates, since the clean compiler gives no findings to reduce:
 * "the kernel passes the front end (parse, typecheck) and the reference run,
 * and its text still contains MARK". Checked: statements and whole blocks are
 * removed down to a 1-minimal set (no single remaining statement can go),
 * unused parameters are dropped, loops shrink to one trip or are unwrapped,
 * calls are replaced by operands, comments go, the result is deterministic,
 * the call cap is honoured, and the statement counter. The oracle predicate
 * itself (fork, crash signatures) is covered by tests/reduce.t. */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *mark[3];
  int calls;
} Pred;

static bool valid(const char *t, size_t len) {
  Comp c = {.A = ir_arena_new(), .src = (Src){"t", t, len}, .o = {.split = -1, .target = -1}};
  Kernel *k = ir_front(&c);
  bool ok = k != NULL;
  if (k) {
    Sim *s = sim_new(k, &(SimOpts){0});
    ok = sim_run_reference(s);
    sim_free(s);
  }
  ir_arena_free(c.A);
  return ok;
}

static bool keep(void *ctx, const char *t, size_t len) {
  Pred *p = ctx;
  p->calls++;
  for (int i = 0; i < 3 && p->mark[i]; i++)
    if (!strstr(t, p->mark[i])) return false;
  return valid(t, len);
}

/* Lines of t that are statements (end in ';' before any comment). */
static int lines_with(const char *t, const char *needle) {
  int n = 0;
  for (const char *p = t; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* 1-minimality: no single statement line of r can be removed. */
static bool one_minimal(const char *r, Pred *p) {
  size_t n = strlen(r);
  for (size_t a = 0; a < n;) {
    size_t b = a;
    while (b < n && r[b] != '\n') b++;
    bool stmt = b > a && r[b - 1] == ';';
    if (stmt) {
      char *c = malloc(n + 1);
      memcpy(c, r, a);
      memcpy(c + a, r + b + (b < n), n - b - (b < n) + 1);
      bool k = keep(p, c, strlen(c));
      free(c);
      if (k) return false;
    }
    a = b + 1;
  }
  return true;
}

static const char k1[] =
    "# a padded kernel\n"
    "kernel pad(A: f32[16,32] in, B: f32[16,32] in, C: f32[16,1] in, O: f32[16,32] out, P: f32[16,1] out,\n"
    "           Q: f32[16,32] out) split(up_down) {\n"
    "  a = load(A, [0, 0], [16, 32]);      # the one that matters\n"
    "  b = load(B, [0, 0], [16, 32]);\n"
    "  c = load(C, [0, 0], [16, 1]);\n"
    "  d = add(a, b);\n"
    "\n"
    "  r = row_max(d);\n"
    "  store(P, [0, 0], r);\n"
    "  for i in range(0, 4) {\n"
    "    e = muls(b, 0.5);\n"
    "    store(Q, [0, 0], e);\n"
    "  }\n"
    "  x = relu(exp(a));\n"
    "  store(O, [0, 0], x);\n"
    "  y = row_expand_add(d, c);\n"
    "  store(Q, [0, 0], y);\n"
    "}\n";

static const char k2[] =
    "kernel lp(A: f32[64,32] in, O: f32[64,32] out, Z: f32[8,8] in) {\n"
    "  for i in range(0, 8) {\n"
    "    t = load(A, [i*8, 0], [8, 32]);\n"
    "    u = neg(abs(t));\n"
    "    store(O, [i*8, 0], u);\n"
    "  }\n"
    "  z = load(Z, [0, 0], [8, 8]);\n"
    "}\n";

int main(void) {
  Tap t = {0};
  FzReduceLimits lim = {0, 0};
  FzReduceStats st, st2;

  Pred p = {{"exp(", NULL}, 0};
  tap_ok(&t, keep(&p, k1, strlen(k1)), "reduce-0.1", "the padded kernel is valid and holds the mark");
  tap_ok(&t, fz_count_stmts(k1) == 13, "reduce-0.2", "fz_count_stmts counts statements and block openers (%d)",
         fz_count_stmts(k1));
  tap_ok(&t, fz_count_stmts("kernel e() {\n}\n") == 0, "reduce-0.3", "an empty kernel has no statements");

  p.calls = 0;
  char *r = fz_reduce_text(k1, keep, &p, &lim, &st);
  tap_diag("reduced (%d -> %d statements, %d calls, %d cached):", st.stmts_before, st.stmts_after, st.calls,
           st.cache_hits);
  fputs(r, stdout);
  tap_ok(&t, keep(&p, r, strlen(r)), "reduce-1.1", "the result still satisfies the predicate");
  tap_ok(&t, st.stmts_before == 13 && st.stmts_after < st.stmts_before && st.stmts_after == fz_count_stmts(r),
         "reduce-1.2", "statements %d -> %d", st.stmts_before, st.stmts_after);
  tap_ok(&t, st.stmts_after <= 3, "reduce-1.3", "load, exp and its use remain at most (%d)", st.stmts_after);
  tap_ok(&t, st.calls == p.calls - 1 && !st.capped, "reduce-1.4", "calls counted (%d), no limit reached", st.calls);
  tap_ok(&t, !strstr(r, "B:") && !strstr(r, "C:") && !strstr(r, "P:"), "reduce-1.5",
         "parameters the body no longer names are gone");
  tap_ok(&t, !strchr(r, '#'), "reduce-1.6", "comments are gone");
  tap_ok(&t, !strstr(r, "relu"), "reduce-1.7", "relu(exp(a)) is replaced by its operand exp(a)");
  tap_ok(&t, one_minimal(r, &p), "reduce-1.8", "1-minimal: no remaining statement can be removed alone");
  char *r2 = fz_reduce_text(k1, keep, &p, &lim, &st2);
  tap_ok(&t, !strcmp(r, r2) && st.calls == st2.calls, "reduce-1.9", "deterministic: the same text and calls twice");
  free(r), free(r2);

  Pred q = {{"neg(", NULL}, 0};
  tap_ok(&t, keep(&q, k2, strlen(k2)), "reduce-2.0", "the loop kernel is valid");
  r = fz_reduce_text(k2, keep, &q, &lim, &st);
  fputs(r, stdout);
  tap_ok(&t, keep(&q, r, strlen(r)) && !strstr(r, "Z:") && !strstr(r, "abs"), "reduce-2.1",
         "the loop kernel keeps neg, loses Z and abs");
  tap_ok(&t, !strstr(r, "range(0, 8)") && (strstr(r, "range(0, 1)") || !strstr(r, "for ")), "reduce-2.2",
         "the loop runs once or is gone");
  free(r);

  /* the loop variable is needed: the loop can only shrink */
  Pred q2 = {{"neg(", "[i*8", NULL}, 0};
  r = fz_reduce_text(k2, keep, &q2, &lim, &st);
  tap_ok(&t, keep(&q2, r, strlen(r)) && strstr(r, "range(0, 1)") && lines_with(r, "for ") == 1, "reduce-2.3",
         "a loop whose variable is used shrinks to one trip");
  free(r);

  Pred c = {{"exp(", NULL}, 0};
  r = fz_reduce_text(k1, keep, &c, &(FzReduceLimits){5, 0}, &st);
  tap_ok(&t, st.calls == 5 && c.calls == 5 && st.capped && keep(&c, r, strlen(r)), "reduce-3.1",
         "--max-calls: 5 calls, capped, the result still valid");
  free(r);

  Pred never = {{"no such text", NULL}, 0};
  r = fz_reduce_text(k1, keep, &never, &lim, &st);
  tap_ok(&t, !strcmp(r, k1) && st.stmts_after == st.stmts_before, "reduce-3.2",
         "a predicate that fails on every candidate leaves the text as it was");
  free(r);

  r = fz_reduce_text("not a kernel;\nat all;\n", keep, &never, &lim, &st);
  tap_ok(&t, !strcmp(r, "not a kernel;\nat all;\n"), "reduce-3.3", "text that is no kernel comes back unchanged");
  free(r);

  /* generated kernels (one statement per line, as the emitter writes them) */
  FzPolicy pol;
  fz_policy_default(&pol);
  int tried = 0, shrunk = 0, bad = 0, maxcalls = 0;
  long before = 0, after = 0, calls = 0;
  for (uint64_t seed = 1; tried < 24 && seed < 400; seed++) {
    size_t len;
    FzSrc src;
    fz_src_seed(&src, seed);
    FzKernel *fk = fz_generate(&pol, &src);
    char *k = fz_emit(fk, &len);
    fz_free(fk);
    Pred g = {{"matmul(", NULL}, 0};
    if (!strstr(k, "matmul(") || !keep(&g, k, len)) {
      free(k);
      continue;
    }
    tried++;
    r = fz_reduce_text(k, keep, &g, &lim, &st);
    bad += !keep(&g, r, strlen(r)) || st.capped;
    shrunk += st.stmts_after < st.stmts_before;
    before += st.stmts_before, after += st.stmts_after, calls += st.calls;
    maxcalls = st.calls > maxcalls ? st.calls : maxcalls;
    free(r), free(k);
  }
  tap_diag("generated: %d kernels, statements %ld -> %ld, %ld calls (at most %d)", tried, before, after, calls,
           maxcalls);
  tap_ok(&t, tried == 24 && !bad, "reduce-4.1", "24 generated kernels reduce to texts that still satisfy the predicate");
  tap_ok(&t, shrunk == tried && after <= tried * 2, "reduce-4.2",
         "every one shrinks, to at most 2 statements on average (%ld for %d)", after, tried);
  return tap_done(&t);
}
