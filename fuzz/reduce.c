/* reduce.c — the test-case minimizer of `ptofuzz reduce`. Consumes a kernel's
 * text and a predicate on texts (normally: "the oracle, with the same defects,
 * input seed and schedule seed, still reports signature SIG among its
 * findings"); produces a smaller kernel text for which the predicate still
 * holds. The original is assumed to satisfy it.
 *
 * The kernel is taken apart as text, not parsed: the emitter and the corpus
 * put one statement per line, so the header (`kernel NAME(` params `) attrs {`),
 * the body lines and the closing brace are enough. A body line is a statement
 * (it ends in `;`), a block opener (ends in `{`: `for`, `split_aiv`, the
 * `aic`/`aiv` blocks of lowered programs), a closer (`}`) or chaff (blank, a
 * comment). Candidates that no longer parse or typecheck simply lose the
 * signature and are rejected. Passes, repeated to a fixpoint (at most
 * MAX_ROUNDS rounds):
 *   0. (once) drop comments and blank lines;
 *   1. hierarchical delta debugging: ddmin over the statements and whole
 *      blocks of the body, then inside each remaining block, level by level;
 *   2. unwrap blocks (keep a loop's body, drop the loop; for a loop whose
 *      variable is used, with the variable replaced by the loop's start);
 *   3. drop parameters the body no longer names (all at once, else one by one);
 *   4. shrink loop trip counts (to one trip, else to half);
 *   5. replace a call by one of its expression operands (`adds(sub(a, b), 1)`
 *      -> `sub(a, b)` -> `a`), drop `valid=` arguments.
 * Deterministic: candidates are tried in a fixed order and every answer is
 * cached by the candidate's text, so the same input gives the same output
 * unless a limit (predicate calls, wall time) or a per-check timeout cuts in.
 *
 * The oracle predicate (fz_check_sigs) runs every check in a forked child
 * (fz_replay, replay.c), whatever the target: a candidate may crash or hang the compiler even when
 * the target is a miscompile, and a crash target (`crash|MODE|SIGNAL|-|-|-`,
 * as a campaign records it) can only be observed from outside. A fork costs
 * well under a millisecond next to the oracle's few milliseconds per kernel
 * (bisection included). A child that dies by a signal gives the signature
 * `crash|MODE|SIGNAL|-|-|-` and one still running at the timeout
 * `hang|MODE|watchdog|-|-|-`, MODE being the variant in flight, exactly as
 * fuzz/campaign.c records them. The real back end's predicate
 * (fz_keep_real_sig) checks each candidate through ptoc, ptoas and pto-isa's
 * CPU simulation (fz_real_replay), on the one real variant that showed the
 * signature: a second or so per candidate, so `ptofuzz reduce --backend=ptoas`
 * caps the search lower (FZ_REDUCE_REAL_MAX_CALLS) and prints progress. No
 * global mutable state. */
#include "fz.h"
#include "orc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ROUNDS = 4, MAX_OPERAND_TRIES = 24 };

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fputs("ptofuzz: out of memory\n", stderr);
    abort();
  }
  return p;
}

static char *xstrndup(const char *s, size_t n) {
  char *r = xrealloc(NULL, n + 1);
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

typedef struct {
  char *p;
  size_t n, cap;
} Buf;

static void putn(Buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->n + n + 1 > cap) cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void puts_(Buf *b, const char *s) { putn(b, s, strlen(s)); }

/* ---- the oracle predicate ------------------------------------------------------------ */

/* The kernel's finding signatures, from the oracle in a guarded child
 * (fz_replay): a crash or a hang of a candidate is a signature too. */
bool fz_check_sigs(const char *text, size_t len, const FzCheckOpts *co, FzSigs *out) {
  memset(out, 0, sizeof *out);
  FzReplay r = {.name = "kernel", .text = text, .len = len, .bugs = co->bugs, .input_seed = co->input_seed,
                .sched_seed = co->sched_seed, .full_inputs = co->full_inputs, .quiet = true};
  FzVerdict v;
  fz_replay(&r, co->timeout_s > 0 ? co->timeout_s : 20.0, &v);
  for (int i = 0; i < v.n && out->n < FZ_MAXSIGS; i++) snprintf(out->sig[out->n++], FZ_SIGLEN, "%s", v.sig[i]);
  return true;
}

/* A check's time limit cut to what is left before deadline (0: none); *cut
 * when it was: a check killed then says nothing about the candidate. */
static double limit(double timeout_s, double deadline, bool *cut) {
  double left = deadline > 0 ? deadline - fz_now() : 0;
  *cut = deadline > 0 && (timeout_s <= 0 || left < timeout_s);
  return *cut ? (left > 0.05 ? left : 0.05) : timeout_s;
}

bool fz_keep_sig(void *ctx, const char *text, size_t len) {
  const FzSigTarget *t = ctx;
  FzCheckOpts o = t->o;
  bool cut;
  o.timeout_s = limit(o.timeout_s > 0 ? o.timeout_s : 20.0, o.deadline, &cut);
  FzSigs s;
  if (!fz_check_sigs(text, len, &o, &s)) return false;
  bool keep = false;
  for (int i = 0; i < s.n; i++) {
    if (cut && strstr(s.sig[i], "|watchdog|")) return false;   /* killed at the deadline */
    keep |= !strcmp(s.sig[i], t->sig);
  }
  return keep;
}

/* The real back end: the candidate through orc_real_check (fz_real_replay, in a
 * forked child) on the variant that showed the signature. A candidate whose
 * check dies or whose tools fail does not keep it. */
bool fz_keep_real_sig(void *ctx, const char *text, size_t len) {
  FzRealTarget *t = ctx;
  FzRealCase c = {.name = "kernel", .text = text, .len = len, .bugs = t->bugs, .input_seed = t->input_seed,
                  .only = t->only};
  bool cut;
  fz_real_replay(t->real, &c, 1, limit(t->timeout_s, t->deadline, &cut));
  bool keep = !c.lost && !c.v.invalid && fz_verdict_has(&c.v, t->sig);   /* a check killed at the deadline is lost */
  t->calls++;
  if (!t->quiet) {
    const char *why = keep ? "keeps the signature" : c.lost ? "lost" : c.v.invalid ? "invalid" : "loses it";
    int n = fz_count_stmts(text);
    fprintf(stderr, "reduce: check %d (%d statement%s): %s, %.0f s\n", t->calls, n, n == 1 ? "" : "s", why,
            fz_now() - t->t0);
  }
  return keep;
}

/* ---- the kernel as lines ------------------------------------------------------------- */

typedef enum { L_CHAFF, L_STMT, L_OPEN, L_CLOSE } LKind;

typedef struct {
  char *text;                                   /* without the newline */
  LKind k;
  bool keep;
  int match;                                    /* OPEN: its CLOSE; CLOSE: its OPEN; else -1 */
  int parent;                                   /* the enclosing OPEN, or -1 */
} Line;

typedef struct {
  uint64_t h;
  bool used, keep;
} CacheSlot;

typedef struct {
  /* the kernel */
  char *preamble;                               /* before `kernel` (comments) */
  char *pre;                                    /* `kernel NAME(` */
  char **param;                                 /* one parameter each, comments removed */
  bool *pkeep;
  int np;
  bool multiline;                               /* one parameter per line */
  char *post;                                   /* `) attrs {` */
  Line *l;
  int nl;
  char *foot;                                   /* the closing brace and what follows */
  bool strip;                                   /* render without comments and blank lines */
  /* the search */
  FzKeepFn keep;
  void *ctx;
  FzReduceLimits lim;
  FzReduceStats *st;
  double t0;
  bool capped;
  CacheSlot *cache;
  size_t ncache, capcache;
  Buf out;
} Red;

static bool is_id(int c) { return isalnum(c) || c == '_'; }

/* The end of the line's code: before a comment, trailing blanks trimmed. */
static size_t code_len(const char *s) {
  size_t n = strcspn(s, "#\n");
  while (n && isspace((unsigned char)s[n - 1])) n--;
  return n;
}

static size_t skip_blank(const char *s) {
  size_t i = 0;
  while (s[i] && isspace((unsigned char)s[i])) i++;
  return i;
}

static LKind classify(const char *s) {
  size_t b = skip_blank(s), n = code_len(s);
  if (n <= b) return L_CHAFF;
  if (n - b == 1 && s[b] == '}') return L_CLOSE;
  if (s[n - 1] == '{') return L_OPEN;
  return L_STMT;
}

/* Split body text into lines and link the blocks. */
static void split_lines(Red *R, const char *s, size_t n) {
  int cap = 16;
  R->l = xrealloc(NULL, (size_t)cap * sizeof *R->l);
  for (size_t i = 0;;) {
    size_t j = i;
    while (j < n && s[j] != '\n') j++;
    if (R->nl == cap) R->l = xrealloc(R->l, (size_t)(cap *= 2) * sizeof *R->l);
    R->l[R->nl++] = (Line){xstrndup(s + i, j - i), L_CHAFF, true, -1, -1};
    if (j >= n) break;
    i = j + 1;
  }
  int *stack = xrealloc(NULL, (size_t)R->nl * sizeof *stack), sp = 0;
  for (int i = 0; i < R->nl; i++) {
    Line *L = &R->l[i];
    L->k = classify(L->text);
    L->parent = sp ? stack[sp - 1] : -1;
    if (L->k == L_OPEN) stack[sp++] = i;
    else if (L->k == L_CLOSE && sp) {
      int o = stack[--sp];
      R->l[o].match = i, L->match = o;
      L->parent = R->l[o].parent;
    } else if (L->k == L_CLOSE) {
      L->k = L_STMT;                            /* unmatched: left alone as text */
    }
  }
  while (sp) R->l[stack[--sp]].k = L_STMT;      /* unclosed */
  free(stack);
}

/* Scan from i to the matching close of the bracket at s[i-1], skipping comments.
 * Returns the index of the close, or n. */
static size_t match_close(const char *s, size_t n, size_t i) {
  int depth = 1;
  for (; i < n; i++) {
    if (s[i] == '#') {
      while (i < n && s[i] != '\n') i++;
      continue;
    }
    if (s[i] == '(' || s[i] == '[') depth++;
    else if ((s[i] == ')' || s[i] == ']') && !--depth) return i;
  }
  return n;
}

/* One parameter's text: comments removed, blank runs collapsed to one space. */
static char *clean_param(const char *s, size_t n) {
  Buf b = {0};
  bool sp = false;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '#') {
      while (i < n && s[i] != '\n') i++;
      sp = true;
      continue;
    }
    if (isspace((unsigned char)s[i])) {
      sp = true;
      continue;
    }
    if (sp && b.n) putn(&b, " ", 1);
    sp = false;
    putn(&b, s + i, 1);
  }
  if (!b.p) putn(&b, "", 0);
  return b.p;
}

static size_t find_kernel(const char *s, size_t n) {
  for (size_t i = 0; i + 6 <= n; i++) {
    if (s[i] == '#') {
      while (i < n && s[i] != '\n') i++;
      continue;
    }
    if (!strncmp(s + i, "kernel", 6) && (!i || !is_id((unsigned char)s[i - 1])) &&
        (i + 6 == n || !is_id((unsigned char)s[i + 6])))
      return i;
  }
  return n;
}

static void parse(Red *R, const char *s, size_t n) {
  size_t k = find_kernel(s, n), open = k < n ? k + strcspn(s + k, "(\n{") : n;
  size_t close = open < n && s[open] == '(' ? match_close(s, n, open + 1) : n;
  size_t lb = close;                            /* the body's `{` */
  for (; lb < n; lb++) {
    if (s[lb] == '#')
      while (lb < n && s[lb] != '\n') lb++;
    if (lb < n && s[lb] == '{') break;
  }
  size_t rb = n;                                /* the last `}` outside comments */
  for (size_t i = lb + 1; i < n; i++) {
    if (s[i] == '#')
      while (i < n && s[i] != '\n') i++;
    if (i < n && s[i] == '}') rb = i;
  }
  if (lb >= n || rb >= n) {                     /* not a kernel: plain lines */
    R->preamble = xstrndup("", 0), R->pre = xstrndup("", 0), R->post = xstrndup("", 0), R->foot = xstrndup("", 0);
    split_lines(R, s, n);
    return;
  }
  R->preamble = xstrndup(s, k);
  R->pre = xstrndup(s + k, open + 1 - k);
  size_t a = open + 1;
  R->multiline = a + skip_blank(s + a) <= close && memchr(s + a, '\n', skip_blank(s + a));
  for (size_t i = a; a < close;) {                /* top-level commas split the parameters */
    int depth = 0;
    for (i = a; i < close; i++) {
      if (s[i] == '#') {
        while (i < close && s[i] != '\n') i++;
        if (i >= close) break;
        continue;
      }
      if (s[i] == '(' || s[i] == '[') depth++;
      else if (s[i] == ')' || s[i] == ']') depth--;
      else if (s[i] == ',' && !depth) break;
    }
    char *p = clean_param(s + a, i - a);
    if (*p) {
      R->param = xrealloc(R->param, (size_t)(R->np + 1) * sizeof *R->param);
      R->pkeep = xrealloc(R->pkeep, (size_t)(R->np + 1) * sizeof *R->pkeep);
      R->param[R->np] = p, R->pkeep[R->np++] = true;
    } else {
      free(p);
    }
    a = i + 1;
  }
  R->post = xstrndup(s + close, lb + 1 - close);
  split_lines(R, s + lb + 1, rb - lb - 1);
  R->foot = xstrndup(s + rb, n - rb);
}

static void render(Red *R) {
  Buf *b = &R->out;
  b->n = 0;
  puts_(b, "");
  if (!R->strip) puts_(b, R->preamble);
  puts_(b, R->pre);
  bool first = true;
  for (int i = 0; i < R->np; i++) {
    if (!R->pkeep[i]) continue;
    puts_(b, first ? (R->multiline ? "\n    " : "") : (R->multiline ? ",\n    " : ", "));
    puts_(b, R->param[i]);
    first = false;
  }
  puts_(b, R->post);
  first = true;
  for (int i = 0; i < R->nl; i++) {
    const Line *L = &R->l[i];
    bool edge = i == 0 || i == R->nl - 1;
    if (!L->keep || (R->strip && L->k == L_CHAFF && !edge)) continue;
    if (!first) puts_(b, "\n");
    first = false;
    putn(b, L->text, R->strip ? (L->k == L_CHAFF ? 0 : code_len(L->text)) : strlen(L->text));
  }
  puts_(b, R->foot);
}

/* ---- the search ------------------------------------------------------------------ */

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h ? h : 1;
}

static CacheSlot *slot(Red *R, uint64_t h) {
  if (2 * (R->ncache + 1) > R->capcache) {
    size_t cap = R->capcache ? 2 * R->capcache : 1024;
    CacheSlot *c = xrealloc(NULL, cap * sizeof *c);
    memset(c, 0, cap * sizeof *c);
    for (size_t i = 0; i < R->capcache; i++)
      if (R->cache[i].used) {
        size_t j = R->cache[i].h & (cap - 1);
        while (c[j].used) j = (j + 1) & (cap - 1);
        c[j] = R->cache[i];
      }
    free(R->cache);
    R->cache = c, R->capcache = cap;
  }
  size_t j = h & (R->capcache - 1);
  while (R->cache[j].used && R->cache[j].h != h) j = (j + 1) & (R->capcache - 1);
  return &R->cache[j];
}

/* Does the current state still satisfy the predicate? */
static bool test(Red *R) {
  render(R);
  uint64_t h = hash(R->out.p, R->out.n);
  CacheSlot *s = slot(R, h);
  if (s->used) {
    R->st->cache_hits++;
    return s->keep;
  }
  if ((R->st->stopped = orc_stop_pending()) || R->st->calls >= R->lim.max_calls ||
      fz_now() - R->t0 >= R->lim.max_seconds) {
    R->capped = true;
    return false;
  }
  R->st->calls++;
  bool keep = R->keep(R->ctx, R->out.p, R->out.n);
  if ((R->st->stopped = orc_stop_pending())) {  /* the check was cut short: no answer to keep */
    R->capped = true;
    return false;
  }
  s = slot(R, h);
  *s = (CacheSlot){h, true, keep};
  R->ncache++;
  return keep;
}

static int eff_parent(const Red *R, int i) {
  int p = R->l[i].parent;
  while (p >= 0 && !R->l[p].keep) p = R->l[p].parent;
  return p;
}

static bool is_unit(const Red *R, int i) { return R->l[i].keep && (R->l[i].k == L_STMT || R->l[i].k == L_OPEN); }

static void set_unit(Red *R, int i, bool keep) {
  int e = R->l[i].k == L_OPEN ? R->l[i].match : i;
  for (int j = i; j <= e; j++) R->l[j].keep = keep;
}

/* ddmin over the units of one level (complements only, granularity doubling). */
static bool ddmin(Red *R, int *u, int cnt) {
  bool any = false, *save = xrealloc(NULL, (size_t)R->nl * sizeof *save);
  int n = 2;
  while (cnt > 0 && !R->capped) {
    int chunk = (cnt + n - 1) / n;
    bool reduced = false;
    for (int a = 0; a < cnt && !R->capped; a += chunk) {
      int e = a + chunk < cnt ? a + chunk : cnt;
      for (int i = 0; i < R->nl; i++) save[i] = R->l[i].keep;
      for (int i = a; i < e; i++) set_unit(R, u[i], false);
      if (test(R)) {
        memmove(u + a, u + e, (size_t)(cnt - e) * sizeof *u);
        cnt -= e - a;
        n = n > 2 ? n - 1 : 2;
        reduced = any = true;
        break;
      }
      for (int i = 0; i < R->nl; i++) R->l[i].keep = save[i];
    }
    if (!reduced) {
      if (n >= cnt) break;
      n = 2 * n < cnt ? 2 * n : cnt;
    }
  }
  free(save);
  return any;
}

/* Hierarchical delta debugging: the level under OPEN line p (-1: the body). */
static bool reduce_level(Red *R, int p) {
  int *u = xrealloc(NULL, (size_t)R->nl * sizeof *u), cnt = 0;
  for (int i = 0; i < R->nl; i++)
    if (is_unit(R, i) && eff_parent(R, i) == p) u[cnt++] = i;
  bool any = ddmin(R, u, cnt);
  for (int i = 0; i < R->nl && !R->capped; i++)
    if (is_unit(R, i) && R->l[i].k == L_OPEN && eff_parent(R, i) == p) any |= reduce_level(R, i);
  free(u);
  return any;
}

/* The identifier name[0..n) replaced by rep throughout s (malloc'd). */
static char *subst_id(const char *s, const char *name, size_t n, const char *rep) {
  Buf b = {0};
  size_t len = strlen(s);
  putn(&b, "", 0);
  for (size_t j = 0; j < len;) {
    if (j + n <= len && !strncmp(s + j, name, n) && (!j || !is_id((unsigned char)s[j - 1])) &&
        (j + n == len || !is_id((unsigned char)s[j + n]))) {
      puts_(&b, rep);
      j += n;
    } else {
      putn(&b, s + j++, 1);
    }
  }
  return b.p;
}

/* Drop a block's opener and closer, keeping its body (indented two columns
 * less); for a loop whose variable the body uses, also with the variable
 * replaced by the loop's start. */
static bool unwrap(Red *R) {
  bool any = false;
  for (int i = 0; i < R->nl && !R->capped; i++) {
    if (!is_unit(R, i) || R->l[i].k != L_OPEN) continue;
    int m = R->l[i].match;
    const char *t = R->l[i].text + skip_blank(R->l[i].text), *r = strstr(t, " in range(");
    char var[64] = "", lo[24] = "";
    if (!strncmp(t, "for ", 4) && r && r > t + 4 && r - t - 4 < 63) {
      snprintf(var, sizeof var, "%.*s", (int)(r - t - 4), t + 4);
      snprintf(lo, sizeof lo, "%ld", strtol(r + 10, NULL, 10));
    }
    char **old = xrealloc(NULL, (size_t)(m - i + 1) * sizeof *old);
    bool ok = false;
    for (int sub = 0; sub < 2 && !ok && !R->capped && (!sub || *var); sub++) {
      for (int j = i + 1; j < m; j++) {
        old[j - i] = R->l[j].text;
        const char *o = old[j - i];
        char *x = sub ? subst_id(o, var, strlen(var), lo) : NULL;
        const char *y = x ? x : o;
        R->l[j].text = xstrndup(y + (strncmp(y, "  ", 2) ? 0 : 2), strlen(y) - (strncmp(y, "  ", 2) ? 0 : 2));
        free(x);
      }
      R->l[i].keep = R->l[m].keep = false;
      ok = test(R);
      for (int j = i + 1; j < m; j++) {
        free(ok ? old[j - i] : R->l[j].text);
        if (!ok) R->l[j].text = old[j - i];
      }
      if (!ok) R->l[i].keep = R->l[m].keep = true;
    }
    free(old);
    any |= ok;
  }
  return any;
}

/* Is the identifier name[0..n) written in a kept body line? */
static bool named(const Red *R, const char *name, size_t n) {
  for (int i = 0; i < R->nl; i++) {
    if (!R->l[i].keep || R->l[i].k == L_CHAFF) continue;
    const char *t = R->l[i].text;
    size_t len = code_len(t);
    for (size_t j = 0; j + n <= len; j++)
      if (!strncmp(t + j, name, n) && (!j || !is_id((unsigned char)t[j - 1])) &&
          (j + n == len || !is_id((unsigned char)t[j + n])))
        return true;
  }
  return false;
}

static size_t param_name(const char *p) {
  size_t n = 0;
  while (is_id((unsigned char)p[n])) n++;
  return n;
}

static bool drop_params(Red *R) {
  int *un = xrealloc(NULL, (size_t)(R->np + 1) * sizeof *un), cnt = 0;
  for (int i = 0; i < R->np; i++) {
    size_t n = param_name(R->param[i]);
    if (R->pkeep[i] && n && !named(R, R->param[i], n)) un[cnt++] = i;
  }
  bool any = false;
  if (cnt) {
    for (int i = 0; i < cnt; i++) R->pkeep[un[i]] = false;
    if (test(R)) any = true;
    else
      for (int i = 0; i < cnt; i++) R->pkeep[un[i]] = true;
  }
  for (int i = 0; cnt > 1 && !any && i < cnt && !R->capped; i++) {
    R->pkeep[un[i]] = false;
    if (!test(R)) R->pkeep[un[i]] = true;
  }
  free(un);
  return any;
}

/* Replace text[a..b) of line i by rep; the old text is returned for undo. */
static char *edit(Red *R, int i, size_t a, size_t b, const char *rep, size_t rn) {
  char *old = R->l[i].text;
  size_t n = strlen(old);
  char *t = xrealloc(NULL, n - (b - a) + rn + 1);
  memcpy(t, old, a);
  memcpy(t + a, rep, rn);
  memcpy(t + a + rn, old + b, n - b + 1);
  R->l[i].text = t;
  return old;
}

static bool try_edit(Red *R, int i, size_t a, size_t b, const char *rep, size_t rn) {
  char *old = edit(R, i, a, b, rep, rn);
  if (test(R)) {
    free(old);
    return true;
  }
  free(R->l[i].text);
  R->l[i].text = old;
  return false;
}

/* `for v in range(lo, hi[, step]) {`: one trip, else half the trips. */
static bool shrink_loops(Red *R) {
  bool any = false;
  for (int i = 0; i < R->nl && !R->capped; i++) {
    if (!is_unit(R, i) || R->l[i].k != L_OPEN) continue;
    const char *t = R->l[i].text, *r = strstr(t, "range(");
    if (!r || strncmp(t + skip_blank(t), "for ", 4)) continue;
    size_t a = (size_t)(r - t) + 6, b = a + strcspn(t + a, ")");
    if (!t[b]) continue;
    long v[3] = {0, 0, 1};
    int nv = 0;
    const char *p = t + a;
    while (nv < 3 && p < t + b) {
      char *e;
      v[nv++] = strtol(p, &e, 10);
      if (e == p) break;
      p = e + strspn(e, " ,");
    }
    if (nv < 2 || v[2] <= 0) continue;
    long trips = (v[1] - v[0] + v[2] - 1) / v[2], want[2] = {1, trips / 2};
    for (int w = 0; w < 2 && want[w] < trips && (!w || want[w] > 1) && !R->capped; w++) {
      char rep[80];
      int rn = nv == 3 ? snprintf(rep, sizeof rep, "%ld, %ld, %ld", v[0], v[0] + want[w] * v[2], v[2])
                       : snprintf(rep, sizeof rep, "%ld, %ld", v[0], v[0] + want[w] * v[2]);
      if (try_edit(R, i, a, b, rep, (size_t)rn)) {
        any = true;
        break;
      }
    }
  }
  return any;
}

static bool keyword(const char *s, size_t n) {
  static const char *const kw[] = {"f32", "f16", "i32", "bf16", "i8", "i16", "vec", "mat", "up_down", "left_right", "up_down_odd",
                                   "left_right_odd", "range", "split_aiv", NULL};
  for (int i = 0; kw[i]; i++)
    if (strlen(kw[i]) == n && !strncmp(kw[i], s, n)) return true;
  return false;
}

static bool is_param(const Red *R, const char *s, size_t n) {
  for (int i = 0; i < R->np; i++)
    if (param_name(R->param[i]) == n && !strncmp(R->param[i], s, n)) return true;
  return false;
}

/* In line i, find the k-th candidate edit: a call replaced by one of its
 * expression operands, or a `valid=` argument dropped. False when there is none. */
static bool nth_edit(const Red *R, int i, int k, size_t *a, size_t *b, size_t *ra, size_t *rb) {
  const char *t = R->l[i].text;
  size_t len = code_len(t);
  for (size_t j = 0; j < len; j++) {
    if (!is_id((unsigned char)t[j]) || (j && is_id((unsigned char)t[j - 1]))) continue;
    size_t e = j;
    while (e < len && is_id((unsigned char)t[e])) e++;
    if (e >= len || t[e] != '(') continue;
    size_t close = match_close(t, len, e + 1);
    if (close >= len) continue;
    bool skip = (e - j == 4 && !strncmp(t + j, "load", 4)) || (e - j == 5 && !strncmp(t + j, "store", 5)) ||
                (e - j == 5 && !strncmp(t + j, "range", 5));
    for (size_t x = e + 1; x < close;) {      /* the arguments */
      int depth = 0;
      size_t y = x;
      for (; y < close; y++) {
        if (t[y] == '(' || t[y] == '[') depth++;
        else if (t[y] == ')' || t[y] == ']') depth--;
        else if (t[y] == ',' && !depth) break;
      }
      size_t s0 = x + skip_blank(t + x), s1 = y;
      while (s1 > s0 && isspace((unsigned char)t[s1 - 1])) s1--;
      size_t id = s0;
      while (id < s1 && is_id((unsigned char)t[id])) id++;
      bool kwarg = id < s1 && t[id] == '=';
      if (kwarg && id - s0 == 5 && !strncmp(t + s0, "valid", 5) && t[x - 1] == ',') {
        if (!k--) {                             /* drop `, valid=[..]` */
          size_t from = x - 1;                  /* the comma before it */
          *a = from, *b = y, *ra = *rb = 0;
          return true;
        }
      } else if (!skip && !kwarg && s1 > s0 && (isalpha((unsigned char)t[s0]) || t[s0] == '_') &&
                 !keyword(t + s0, id - s0) && !(id == s1 && is_param(R, t + s0, id - s0))) {
        if (!k--) {
          *a = j, *b = close + 1, *ra = s0, *rb = s1;
          return true;
        }
      }
      x = y + 1;
    }
  }
  return false;
}

static bool simplify_exprs(Red *R) {
  bool any = false;
  for (int i = 0; i < R->nl && !R->capped; i++) {
    if (!is_unit(R, i) || R->l[i].k != L_STMT) continue;
    size_t a, b, ra, rb;
    for (int k = 0, tries = 0; tries < MAX_OPERAND_TRIES && !R->capped && nth_edit(R, i, k, &a, &b, &ra, &rb); tries++) {
      char *rep = xstrndup(R->l[i].text + ra, rb - ra);
      bool ok = try_edit(R, i, a, b, rep, rb - ra);
      free(rep);
      if (ok) any = true;                       /* the line changed: its k-th edit is a new one */
      else k++;
    }
  }
  return any;
}

int fz_count_stmts(const char *text) {
  Red R = {0};
  parse(&R, text, strlen(text));
  int n = 0;
  for (int i = 0; i < R.nl; i++) {
    n += R.l[i].k == L_STMT || R.l[i].k == L_OPEN;
    free(R.l[i].text);
  }
  for (int i = 0; i < R.np; i++) free(R.param[i]);
  free(R.l), free(R.param), free(R.pkeep), free(R.preamble), free(R.pre), free(R.post), free(R.foot);
  return n;
}

char *fz_reduce_text(const char *text, FzKeepFn keep, void *ctx, const FzReduceLimits *lim, FzReduceStats *st) {
  Red R = {.keep = keep, .ctx = ctx, .lim = *lim, .st = st, .t0 = fz_now()};
  memset(st, 0, sizeof *st);
  if (R.lim.max_calls <= 0) R.lim.max_calls = FZ_REDUCE_MAX_CALLS;
  if (R.lim.max_seconds <= 0) R.lim.max_seconds = FZ_REDUCE_MAX_SECONDS;
  parse(&R, text, strlen(text));
  st->stmts_before = fz_count_stmts(text);
  /* the text as parsed renders back to itself (parameters aside, which are
   * normalized); if the normalized form loses the property, keep the original */
  R.strip = true;
  if (!test(&R)) {
    R.strip = false;
    if (!test(&R)) {
      st->stmts_after = st->stmts_before;
      st->capped = R.capped;
      for (int i = 0; i < R.nl; i++) free(R.l[i].text);
      for (int i = 0; i < R.np; i++) free(R.param[i]);
      free(R.l), free(R.param), free(R.pkeep), free(R.preamble), free(R.pre), free(R.post), free(R.foot);
      free(R.cache), free(R.out.p);
      return xstrndup(text, strlen(text));
    }
  }
  for (int round = 0; round < MAX_ROUNDS && !R.capped; round++) {
    bool any = reduce_level(&R, -1);
    any |= unwrap(&R);
    any |= drop_params(&R);
    any |= shrink_loops(&R);
    any |= simplify_exprs(&R);
    if (!any) break;
  }
  render(&R);
  char *res = xstrndup(R.out.p, R.out.n);
  st->stmts_after = fz_count_stmts(res);
  st->capped = R.capped;
  for (int i = 0; i < R.nl; i++) free(R.l[i].text);
  for (int i = 0; i < R.np; i++) free(R.param[i]);
  free(R.l), free(R.param), free(R.pkeep), free(R.preamble), free(R.pre), free(R.post), free(R.foot);
  free(R.cache), free(R.out.p);
  return res;
}
