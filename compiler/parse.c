/* parse.c — tokens -> source IR. Recursive descent over the grammar of
 * docs/language.md; names are resolved here with block scopes (a name first
 * assigned in a loop or split_aiv body is local to it), index expressions are
 * folded to affine form. Types are left to typecheck.c. */
#include "ptoc.h"

#include <math.h>
#include <string.h>

/* Name resolution is one hash table of the live bindings (name -> variable),
 * chained per bucket; a scope lists the bindings it made and unlinks them
 * when it closes, so a lookup costs O(1) expected however many names and
 * scopes the kernel has. */
typedef struct Bind {
  struct Bind *next;                            /* in its bucket */
  struct Bind *sprev;                           /* the scope's previous binding */
  Var *v;
  uint32_t h;
  size_t len;
} Bind;

typedef struct Scope {
  struct Scope *up;
  Bind *last;                                   /* the bindings this scope made */
  int depth;                                    /* blocks nested around it */
} Scope;

typedef struct {
  Comp *c;
  Kernel *k;
  Arena *T;                                     /* the tokens and scopes: freed when the parse ends */
  Tok *t;
  int pos;
  Scope *sc;
  Var *lane;                                    /* innermost split_aiv lane var */
  int depth;                                    /* nesting of calls and parentheses */
  Bind **tab;                                   /* the live bindings, by hash */
  uint32_t mask;                                /* buckets - 1 (a power of two) */
  int nbind;
  int64_t nstmt;                                /* statements parsed, hidden ones included */
  int64_t gm;                                   /* elements of the tensors declared so far */
  Var **pv;                                     /* the parameters (k->params), grown by doubling */
  int pcap;
} P;

enum { MAX_DEPTH = 256 };

static const char *const reserved[] = {
    "kernel", "for",  "in",    "range",   "split_aiv", "store",  "out",        "inout",
    "f32",    "f16",  "i32",   "vec",     "mat",       "acc",    "up_down",    "left_right",
    "split",  "target", "slots", "none",  "a2a3",      "a5",     "up_down_odd", "left_right_odd",
    "aic",    "aiv",  "if",    "replay",  "c2v",       "v2c",    "left",   "right",
    "else",   "while", "bf16", "i8",   "i16",   NULL};

bool ir_reserved(const char *s, size_t n) {
  for (int i = 0; reserved[i]; i++)
    if (n && reserved[i][0] == s[0] && strlen(reserved[i]) == n && !memcmp(reserved[i], s, n)) return true;
  return ir_op_lookup(s, n) >= 0;
}

static Tok *peek(P *p) { return &p->t[p->pos]; }
static Tok *peek2(P *p) { return p->t[p->pos].k == TK_EOF ? &p->t[p->pos] : &p->t[p->pos + 1]; }
static Tok *next(P *p) {
  Tok *t = &p->t[p->pos];
  if (t->k != TK_EOF) p->pos++;
  return t;
}
static bool is(Tok *t, const char *s) {
  return (t->k == TK_PUNCT || t->k == TK_IDENT) && t->s[0] == s[0] && t->len == (int)strlen(s) &&
         !memcmp(t->s, s, (size_t)t->len);
}
static const char *desc(P *p, Tok *t) {
  if (t->k == TK_EOF) return "end of file";
  return ir_fmt(p->c->A, "'%.*s'", t->len > 40 ? 40 : t->len, t->s);
}
static bool accept(P *p, const char *s) {
  if (!is(peek(p), s)) return false;
  next(p);
  return true;
}
static Tok *expect(P *p, const char *s) {
  Tok *t = peek(p);
  if (!is(t, s)) ir_error(p->c, t->loc, E_PARSE, "expected '%s', found %s", s, desc(p, t));
  return next(p);
}
static Tok *expect_ident(P *p, const char *what) {
  Tok *t = peek(p);
  if (t->k != TK_IDENT) ir_error(p->c, t->loc, E_PARSE, "expected %s, found %s", what, desc(p, t));
  return next(p);
}
static const char *name_of(P *p, Tok *t) { return ir_strndup(p->c->A, t->s, (size_t)t->len); }
static Tok *expect_name(P *p, const char *what) {
  Tok *t = expect_ident(p, what);
  if (ir_reserved(t->s, (size_t)t->len))
    ir_error(p->c, t->loc, E_RESERVED, "'%.*s' is a reserved word and cannot name a %s", t->len, t->s, what);
  return t;
}
static int64_t expect_int(P *p, const char *what) {
  Tok *t = peek(p);
  bool neg = false;
  if (is(t, "-") && peek2(p)->k == TK_INT) {
    neg = true;
    next(p);
  }
  t = peek(p);
  if (t->k != TK_INT) ir_error(p->c, t->loc, E_PARSE, "expected %s (an integer), found %s", what, desc(p, t));
  next(p);
  int64_t v = neg ? -t->ival : t->ival;
  if (v > INT32_MAX) ir_error(p->c, t->loc, E_LEX, "integer too large");
  return v;
}

/* ---- scopes ---------------------------------------------------------------- */

static uint32_t hash(const char *s, size_t n) {
  uint32_t h = 2166136261u;                     /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}
static Var *lookup(P *p, const char *s, size_t n) {
  if (!p->tab) return NULL;
  uint32_t h = hash(s, n);
  for (Bind *b = p->tab[h & p->mask]; b; b = b->next)
    if (b->h == h && b->len == n && !memcmp(b->v->name, s, n)) return b->v;
  return NULL;
}
static void rehash(P *p, uint32_t nb) {
  Bind **t = ir_alloc(p->T, (size_t)nb * sizeof *t);
  for (uint32_t i = 0; p->tab && i <= p->mask; i++)
    for (Bind *b = p->tab[i], *nx; b; b = nx) {
      nx = b->next;
      b->next = t[b->h & (nb - 1)];
      t[b->h & (nb - 1)] = b;
    }
  p->tab = t;
  p->mask = nb - 1;
}
static void bind(P *p, Var *v) {
  if (!p->tab || (uint32_t)p->nbind >= p->mask) rehash(p, p->tab ? 2 * (p->mask + 1) : 64);
  Bind *b = ir_alloc(p->T, sizeof *b);
  b->v = v;
  b->len = strlen(v->name);
  b->h = hash(v->name, b->len);
  b->next = p->tab[b->h & p->mask];
  p->tab[b->h & p->mask] = b;
  b->sprev = p->sc->last;
  p->sc->last = b;
  p->nbind++;
}
static void push_scope(P *p, Loc l) {
  Scope *sc = ir_alloc(p->T, sizeof *sc);
  sc->up = p->sc;
  sc->depth = p->sc ? p->sc->depth + 1 : 0;
  if (sc->depth > IR_MAX_BLOCKS + 1)              /* the kernel's body is depth 1 */
    ir_error(p->c, l, E_LIMIT, "blocks nested deeper than %d levels", IR_MAX_BLOCKS);
  p->sc = sc;
}
/* Close scopes down to `to`, unbinding the names they made. */
static void pop_scope(P *p, Scope *to) {
  for (; p->sc != to; p->sc = p->sc->up)
    for (Bind *b = p->sc->last; b; b = b->sprev) {
      Bind **at = &p->tab[b->h & p->mask];
      while (*at != b) at = &(*at)->next;
      *at = b->next;
      p->nbind--;
    }
}

static void count_stmt(P *p, Loc l) {
  if (++p->nstmt > IR_MAX_STMTS)
    ir_error(p->c, l, E_LIMIT, "more than %d statements (a nested call counts as one)", IR_MAX_STMTS);
}

static void enter(P *p, Loc l) {
  if (++p->depth > MAX_DEPTH) ir_error(p->c, l, E_PARSE, "nesting deeper than %d levels", MAX_DEPTH);
}

/* ---- index expressions ----------------------------------------------------- */

static void aff_check(P *p, Loc loc, int64_t x) {
  if (x > (1 << 30) || x < -(1 << 30)) ir_error(p->c, loc, E_INDEX, "index expression out of range");
}
static void aff_addterm(P *p, Loc loc, Aff *a, int v, int64_t k) {
  for (int i = 0; i < a->n; i++)
    if (a->v[i] == v) {
      int64_t nk = a->k[i] + k;
      aff_check(p, loc, nk);
      if (nk == 0) {
        memmove(&a->v[i], &a->v[i + 1], (size_t)(a->n - i - 1) * sizeof a->v[0]);
        memmove(&a->k[i], &a->k[i + 1], (size_t)(a->n - i - 1) * sizeof a->k[0]);
        a->n--;
      } else {
        a->k[i] = (int32_t)nk;
      }
      return;
    }
  if (k == 0) return;
  if (a->n == IR_MAXT) ir_error(p->c, loc, E_INDEX, "too many variables in one index expression");
  int i = a->n++;                               /* keep terms ordered by variable id */
  while (i > 0 && a->v[i - 1] > v) {
    a->v[i] = a->v[i - 1];
    a->k[i] = a->k[i - 1];
    i--;
  }
  aff_check(p, loc, k);
  a->v[i] = v;
  a->k[i] = (int32_t)k;
}
static Aff aff_add(P *p, Loc loc, Aff a, const Aff *b, int sign) {
  int64_t c = (int64_t)a.c + sign * (int64_t)b->c;
  aff_check(p, loc, c);
  a.c = (int32_t)c;
  for (int i = 0; i < b->n; i++) aff_addterm(p, loc, &a, b->v[i], sign * (int64_t)b->k[i]);
  return a;
}
static Aff aff_scale(P *p, Loc loc, Aff a, int64_t s) {
  Aff r = {0};
  int64_t c = (int64_t)a.c * s;
  aff_check(p, loc, c);
  r.c = (int32_t)c;
  for (int i = 0; i < a.n; i++) aff_addterm(p, loc, &r, a.v[i], (int64_t)a.k[i] * s);
  return r;
}

static Aff iexpr(P *p);
static Aff ifactor(P *p) {
  Tok *t = peek(p);
  Aff a = {0};
  if (accept(p, "-")) {
    enter(p, t->loc);
    a = aff_scale(p, t->loc, ifactor(p), -1);
    p->depth--;
    return a;
  }
  if (accept(p, "(")) {
    enter(p, t->loc);
    a = iexpr(p);
    expect(p, ")");
    p->depth--;
    return a;
  }
  if (t->k == TK_INT) {
    next(p);
    aff_check(p, t->loc, t->ival);
    a.c = (int32_t)t->ival;
    return a;
  }
  if (t->k == TK_NUM) ir_error(p->c, t->loc, E_INDEX, "index expressions are integers, found %s", desc(p, t));
  if (t->k == TK_IDENT) {
    next(p);
    if (is(t, "subblock_idx")) {
      expect(p, "(");
      expect(p, ")");
      if (!p->lane) ir_error(p->c, t->loc, E_SCOPE, "subblock_idx() is only defined inside split_aiv");
      aff_addterm(p, t->loc, &a, p->lane->id, 1);
      return a;
    }
    Var *v = lookup(p, t->s, (size_t)t->len);
    if (!v) ir_error(p->c, t->loc, E_UNDEF, "undefined name '%.*s'", t->len, t->s);
    if (v->kind != VK_LOOP && v->kind != VK_LANE && v->kind != VK_SCALAR)
      ir_error(p->c, t->loc, E_INDEX, "'%s' is not a loop or lane variable and cannot appear in an index", v->name);
    aff_addterm(p, t->loc, &a, v->id, 1);
    return a;
  }
  ir_error(p->c, t->loc, E_PARSE, "expected an index expression, found %s", desc(p, t));
}
static Aff iterm(P *p) {
  Tok *t0 = peek(p);
  Aff a = ifactor(p);
  while (is(peek(p), "*")) {
    Tok *op = next(p);
    Aff b = ifactor(p);
    if (a.n && b.n)
      ir_error(p->c, op->loc, E_INDEX, "index expression is not affine: a product needs a constant factor");
    a = a.n ? aff_scale(p, t0->loc, a, b.c) : aff_scale(p, t0->loc, b, a.c);
  }
  return a;
}
static Aff iexpr(P *p) {
  Aff a = iterm(p);
  for (;;) {
    Tok *t = peek(p);
    if (accept(p, "+")) {
      Aff b = iterm(p);
      a = aff_add(p, t->loc, a, &b, 1);
    } else if (accept(p, "-")) {
      Aff b = iterm(p);
      a = aff_add(p, t->loc, a, &b, -1);
    } else {
      return a;
    }
  }
}
/* cond = iexpr REL iexpr */
static void cond(P *p, Stmt *s) {
  static const char *const rels[] = {"<", "<=", ">", ">=", "==", "!="};
  Aff *cd = ir_pair_own(p->c->A, &s->cond);
  cd[0] = iexpr(p);
  Tok *r = peek(p);
  int k = 0;
  while (k < 6 && !is(r, rels[k])) k++;
  if (k == 6) ir_error(p->c, r->loc, E_PARSE, "expected a comparison (< <= > >= == !=), found %s", desc(p, r));
  next(p);
  s->rel = (Rel)k;
  cd[1] = iexpr(p);
}

static void index2(P *p, Aff ix[2]) {
  expect(p, "[");
  ix[0] = iexpr(p);
  expect(p, ",");
  ix[1] = iexpr(p);
  expect(p, "]");
}

/* ---- calls and arguments --------------------------------------------------- */

static int word(Tok *t, const char *const *tab) {
  for (int i = 0; tab[i]; i++)
    if (is(t, tab[i])) return i;
  return -1;
}
static const char *const dtypes[] = {"f32", "f16", "i32", "bf16", "i8", "i16", NULL};   /* Dtype order */
static const char *const modes[] = {"none", "up_down", "left_right", "up_down_odd", "left_right_odd", NULL};
static const char *const spaces[] = {"none", "vec", "mat", "acc", "left", "right", NULL};
static const char *const dirs[] = {"c2v", "v2c", NULL};

static Call *call(P *p);
static void number(P *p, Arg *a) {
  Tok *t = peek(p);
  bool neg = accept(p, "-");
  Tok *n = next(p);
  if (n->k != TK_INT && n->k != TK_NUM) ir_error(p->c, n->loc, E_PARSE, "expected a number, found %s", desc(p, n));
  a->k = A_NUM;
  a->loc = t->loc;
  a->num = neg ? -n->num : n->num;
  a->isint = n->k == TK_INT;
  if (!isfinite(a->num)) ir_error(p->c, t->loc, E_LEX, "number out of range");
}

static void arg(P *p, Arg *a) {
  Tok *t = peek(p);
  a->loc = t->loc;
  if (is(t, "[")) {
    a->k = A_IDX;
    index2(p, ir_arg_ix(p->c->A, a));
  } else if (t->k == TK_INT || t->k == TK_NUM || is(t, "-")) {
    number(p, a);
  } else if (t->k == TK_IDENT && is(peek2(p), "=")) {
    int kw = 0;
    for (int i = 1; i < KW_N; i++)
      if (is(t, ir_kw_name((Kw)i))) kw = i;
    if (!kw) ir_error(p->c, t->loc, E_ARG, "unknown keyword argument '%.*s'", t->len, t->s);
    next(p);
    next(p);
    Tok *v = peek(p);
    if (is(v, "[")) {
      a->k = A_IDX;
      index2(p, ir_arg_ix(p->c->A, a));
    } else if (v->k == TK_IDENT && word(v, spaces) > 0) {
      next(p);
      a->k = A_SPACE;
      a->e = word(v, spaces);
    } else if (v->k == TK_IDENT && word(v, modes) > 0) {
      next(p);
      a->k = A_MODE;
      a->e = word(v, modes);
    } else if (v->k == TK_INT || (v->k == TK_IDENT && !ir_reserved(v->s, (size_t)v->len)) || is(v, "-") ||
               is(v, "(")) {
      Aff x = iexpr(p);                         /* an integer, or an index expression */
      if (ir_aff_const(&x)) {
        a->k = A_NUM;
        a->num = x.c;
        a->isint = true;
      } else {
        a->k = A_IEXPR;
        ir_arg_ix(p->c->A, a)[0] = x;
      }
    } else {
      ir_error(p->c, v->loc, E_ARG, "bad value %s for keyword '%s'", desc(p, v), ir_kw_name((Kw)kw));
    }
    a->kw = (Kw)kw;
  } else if (t->k == TK_IDENT && word(t, dtypes) >= 0) {
    next(p);
    a->k = A_DTYPE;
    a->e = word(t, dtypes);
  } else if (t->k == TK_IDENT && word(t, modes) >= 0) {
    next(p);
    a->k = A_MODE;
    a->e = word(t, modes);
  } else if (t->k == TK_IDENT && word(t, spaces) > 0) {
    next(p);
    a->k = A_SPACE;
    a->e = word(t, spaces);
  } else if (t->k == TK_IDENT && word(t, dirs) >= 0) {
    next(p);
    a->k = A_DIR;
    a->e = word(t, dirs);
  } else if (t->k == TK_IDENT && is(peek2(p), "(")) {
    count_stmt(p, t->loc);                      /* a nested call stands for a statement */
    a->k = A_CALL;
    a->call = call(p);
  } else if (t->k == TK_IDENT) {
    next(p);
    Var *v = lookup(p, t->s, (size_t)t->len);
    if (!v) ir_error(p->c, t->loc, E_UNDEF, "undefined name '%.*s'", t->len, t->s);
    a->k = A_VAR;
    a->var = v;
  } else {
    ir_error(p->c, t->loc, E_PARSE, "expected an argument, found %s", desc(p, t));
  }
}

static Call *call(P *p) {
  Tok *t = expect_ident(p, "an operation");
  enter(p, t->loc);
  int op = ir_op_lookup(t->s, (size_t)t->len);
  if (op < 0) ir_error(p->c, t->loc, E_OP, "unknown operation '%.*s'", t->len, t->s);
  Call *c = ir_alloc(p->c->A, sizeof *c);
  c->op = (Op)op;
  c->loc = t->loc;
  expect(p, "(");
  Arg buf[16];
  int n = 0;
  if (!is(peek(p), ")")) {
    do {
      if (n == 16) ir_error(p->c, peek(p)->loc, E_ARITY, "too many arguments to %s", ir_ops[op].name);
      memset(&buf[n], 0, sizeof buf[n]);
      if (ir_ops[op].ixmask >> n & 1) {
        buf[n].k = A_IEXPR;
        buf[n].loc = peek(p)->loc;
        ir_arg_ix(p->c->A, &buf[n])[0] = iexpr(p);
      } else {
        arg(p, &buf[n]);
      }
      for (int i = 0; i < n; i++)
        if (buf[n].kw && buf[i].kw == buf[n].kw)
          ir_error(p->c, buf[n].loc, E_DUP, "keyword '%s' given twice", ir_kw_name(buf[n].kw));
      if (!buf[n].kw && n && buf[n - 1].kw)
        ir_error(p->c, buf[n].loc, E_PARSE, "positional argument after a keyword argument");
      n++;
    } while (accept(p, ","));
  }
  expect(p, ")");
  c->nargs = n;
  c->args = ir_alloc(p->c->A, (size_t)(n ? n : 1) * sizeof *c->args);
  memcpy(c->args, buf, (size_t)n * sizeof *buf);
  p->depth--;
  return c;
}

/* ---- statements ------------------------------------------------------------ */

static void block(P *p, Body *b);

static void scoped_block(P *p, Body *b) {
  Scope *saved = p->sc;
  push_scope(p, peek(p)->loc);
  block(p, b);
  pop_scope(p, saved);
}

static Stmt *stmt(P *p) {
  Tok *t = peek(p);
  count_stmt(p, t->loc);
  Stmt *s = ir_alloc(p->c->A, sizeof *s);
  s->loc = t->loc;
  if ((is(t, "aic") || is(t, "aiv")) && is(peek2(p), "{")) {
    next(p);
    if (p->sc->up->up || p->lane) ir_error(p->c, t->loc, E_SCOPE, "'%.*s' programs are only allowed at the top of a kernel", t->len, t->s);
    s->k = S_FUNC;
    s->fn = is(t, "aic") ? FN_AIC : FN_AIV;
    p->k->expanded = true;
    scoped_block(p, &s->body);
    return s;
  }
  if (is(t, "if") || is(t, "while")) {
    next(p);
    if (!p->lane) ir_error(p->c, t->loc, E_SCOPE, "'%.*s' is only allowed inside split_aiv", t->len, t->s);
    Tok *a0 = peek(p);
    cond(p, s);
    if (is(t, "while")) {                       /* while c max N { B }  ==  for _w in range(0, N) { if c { B } } */
      expect(p, "max");
      Tok *nt = peek(p);
      int64_t n = expect_int(p, "the iteration bound");
      if (n < 1 || n > 4096) ir_error(p->c, nt->loc, E_RANGE, "while bound %lld out of range (1..4096)", (long long)n);
      Stmt *w = ir_alloc(p->c->A, sizeof *w);
      w->loc = t->loc;
      w->k = S_FOR;
      w->wloop = true;
      w->iv = ir_temp(p->c, p->k, "w", VK_LOOP, t->loc);
      w->iv->lo = 0, w->iv->hi = (int)n, w->iv->step = 1;
      s->k = S_COND;
      scoped_block(p, &s->body);
      ir_body_push(p->c, &w->body, s);
      return w;
    }
    scoped_block(p, &s->body);
    if (accept(p, "replay")) {                  /* per-core IR: if lane == 0 { body } replay { other } */
      const Aff *ca = &s->cond[0], *cb = &s->cond[1];
      if (ca->n != 1 || ca->k[0] != 1 || ca->c || p->k->vars[ca->v[0]]->kind != VK_LANE)
        ir_error(p->c, a0->loc, E_SCOPE, "'if ... replay' tests the lane variable of an enclosing split_aiv");
      if (s->rel != REL_EQ || cb->n || cb->c) ir_error(p->c, a0->loc, E_PARSE, "'if ... replay' tests lane == 0");
      s->k = S_IF;
      s->iv = p->k->vars[ca->v[0]];
      s->cond = NULL;
      scoped_block(p, &s->other);
      return s;
    }
    s->k = S_COND;
    if (accept(p, "else")) scoped_block(p, &s->other);
    return s;
  }
  if (is(t, "for")) {
    next(p);
    Tok *n = expect_name(p, "loop variable");
    if (lookup(p, n->s, (size_t)n->len))
      ir_error(p->c, n->loc, E_DUP, "loop variable '%.*s' shadows an existing name", n->len, n->s);
    expect(p, "in");
    Tok *kind = expect_ident(p, "'range' or 'split_aiv'");
    expect(p, "(");
    if (is(kind, "range")) {
      Loc l[3];
      int64_t v[3] = {0, 0, 1};
      l[0] = peek(p)->loc;
      v[0] = expect_int(p, "range start");
      expect(p, ",");
      l[1] = peek(p)->loc;
      v[1] = expect_int(p, "range end");
      l[2] = l[1];
      if (accept(p, ",")) {
        l[2] = peek(p)->loc;
        v[2] = expect_int(p, "range step");
      }
      expect(p, ")");
      for (int i = 0; i < 3; i++)
        if (v[i] > (1 << 20) || v[i] < -(1 << 20))
          ir_error(p->c, l[i], E_RANGE, "loop bound %lld out of range (at most 2^20 in magnitude)", (long long)v[i]);
      if (v[2] <= 0) ir_error(p->c, l[2], E_RANGE, "loop step must be positive, got %lld", (long long)v[2]);
      s->k = S_FOR;
      s->iv = ir_var_new(p->c, p->k, name_of(p, n), VK_LOOP, n->loc);
      s->iv->lo = (int)v[0];
      s->iv->hi = (int)v[1];
      s->iv->step = (int)v[2];
    } else if (is(kind, "split_aiv")) {
      Loc l = peek(p)->loc;
      int64_t nl = expect_int(p, "lane count");
      expect(p, ")");
      if (nl != 2) ir_error(p->c, l, E_RANGE, "split_aiv takes 2 lanes, got %lld", (long long)nl);
      if (p->lane) ir_error(p->c, kind->loc, E_SCOPE, "split_aiv cannot be nested in another split_aiv");
      s->k = S_SPLIT;
      s->iv = ir_var_new(p->c, p->k, name_of(p, n), VK_LANE, n->loc);
    } else {
      ir_error(p->c, kind->loc, E_PARSE, "expected 'range' or 'split_aiv', found %s", desc(p, kind));
    }
    Scope *saved = p->sc;
    Var *lane = p->lane;
    push_scope(p, t->loc);
    bind(p, s->iv);
    if (s->k == S_SPLIT) p->lane = s->iv;
    block(p, &s->body);
    pop_scope(p, saved);
    p->lane = lane;
    return s;
  }
  s->k = S_OP;
  if (t->k == TK_IDENT && is(peek2(p), "(")) {  /* a call statement: store(...) */
    s->rhs.k = A_CALL;
    s->rhs.loc = t->loc;
    s->rhs.call = call(p);
    expect(p, ";");
    return s;
  }
  Tok *n = expect_name(p, "tile");
  expect(p, "=");
  memset(&s->rhs, 0, sizeof s->rhs);
  Tok *r = peek(p);
  s->rhs.loc = r->loc;
  if (r->k == TK_IDENT && is(peek2(p), "(")) {
    s->rhs.k = A_CALL;
    s->rhs.call = call(p);
  } else if (r->k == TK_IDENT && !ir_reserved(r->s, (size_t)r->len)) {
    next(p);
    Var *v = lookup(p, r->s, (size_t)r->len);
    if (!v) ir_error(p->c, r->loc, E_UNDEF, "undefined name '%.*s'", r->len, r->s);
    s->rhs.k = A_VAR;
    s->rhs.var = v;
  } else {
    ir_error(p->c, r->loc, E_PARSE, "expected a name or an operation, found %s", desc(p, r));
  }
  expect(p, ";");
  Var *d = lookup(p, n->s, (size_t)n->len);
  if (d && d->kind != VK_TILE && d->kind != VK_SCALAR)
    ir_error(p->c, n->loc, E_REDEF, "cannot assign to %s '%s'",
             d->kind == VK_TENSOR ? "tensor" : "loop variable", d->name);
  bool scalar = s->rhs.k == A_CALL && ir_ops[s->rhs.call->op].side == SD_SCALAR;
  if (d && ((d->kind == VK_SCALAR) != scalar ||
            (scalar && d->computed != (s->rhs.call->op != OP_subblock_idx))))
    ir_error(p->c, n->loc, E_REDEF, "'%s' changes between an index scalar and a tile", d->name);
  if (!d) {
    d = ir_var_new(p->c, p->k, name_of(p, n), scalar ? VK_SCALAR : VK_TILE, n->loc);
    d->computed = scalar && s->rhs.call->op != OP_subblock_idx;
    bind(p, d);
  }
  s->dst = d;
  return s;
}

static void block(P *p, Body *b) {
  expect(p, "{");
  while (!is(peek(p), "}")) {
    if (peek(p)->k == TK_EOF) ir_error(p->c, peek(p)->loc, E_PARSE, "expected '}', found end of file");
    ir_body_push(p->c, b, stmt(p));
  }
  next(p);
}

/* A program that declares its buffers with allocation shapes is lowered already. */
static bool lowered(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP && (lowered(&s->body) || lowered(&s->other))) return true;
    if (s->k == S_OP && s->rhs.k == A_CALL && s->rhs.call->op == OP_alloc_tile && s->rhs.call->nargs == 4) return true;
  }
  return false;
}

/* ---- kernel header ---------------------------------------------------------- */

static void param(P *p) {
  Tok *n = expect_name(p, "tensor");
  if (lookup(p, n->s, (size_t)n->len)) ir_error(p->c, n->loc, E_DUP, "parameter '%.*s' declared twice", n->len, n->s);
  Var *v = ir_var_new(p->c, p->k, name_of(p, n), VK_TENSOR, n->loc);
  expect(p, ":");
  Tok *dt = expect_ident(p, "a dtype");
  if (word(dt, dtypes) < 0) ir_error(p->c, dt->loc, E_PARSE, "expected a dtype (f32, f16, i32, bf16, i8, i16), found %s", desc(p, dt));
  v->dt = (Dtype)word(dt, dtypes);
  expect(p, "[");
  for (v->rank = 0; v->rank < 2;) {
    Tok *d = peek(p);
    int64_t x = expect_int(p, "a dimension");
    if (x < 1 || x > IR_MAXGM)
      ir_error(p->c, d->loc, E_DIM, "tensor dimension %lld outside 1..%d", (long long)x, IR_MAXGM);
    v->dim[v->rank++] = (int)x;
    if (!accept(p, ",")) break;
  }
  expect(p, "]");
  if (v->rank == 1) {
    if (v->dt != DT_I32) ir_error(p->c, dt->loc, E_PARAM, "1-D tensors must be i32 index tables");
    v->dim[1] = v->dim[0];
    v->dim[0] = 1;
  }
  if ((int64_t)v->dim[0] * v->dim[1] > (1 << 24))
    ir_error(p->c, n->loc, E_DIM, "tensor '%s' has more than 2^24 elements", v->name);
  p->gm += (int64_t)v->dim[0] * v->dim[1];     /* the golden run allocates every tensor */
  if (p->gm > IR_MAX_GM)
    ir_error(p->c, n->loc, E_LIMIT, "the tensors hold more than %d elements together", IR_MAX_GM);
  Tok *d = expect_ident(p, "a direction (in, out, inout)");
  v->dir = is(d, "in") ? DIR_IN : is(d, "out") ? DIR_OUT : is(d, "inout") ? DIR_INOUT : (Dir)-1;
  if ((int)v->dir < 0) ir_error(p->c, d->loc, E_PARSE, "expected a direction (in, out, inout), found %s", desc(p, d));
  if (is(peek(p), "=")) {
    Tok *eq = next(p);
    if (v->dir != DIR_IN) ir_error(p->c, eq->loc, E_INIT, "only 'in' tensors take an initialiser");
    int want = v->dim[0] * v->dim[1];
    v->init = ir_alloc(p->c->A, (size_t)want * sizeof *v->init);
    expect(p, "[");
    do {
      Arg a = {0};
      number(p, &a);
      if (v->ninit == want)
        ir_error(p->c, a.loc, E_INIT, "initialiser of '%s' has more than %d values", v->name, want);
      if (ir_dtype_int(v->dt) && (!a.isint || !ir_dtype_fits(v->dt, a.num)))
        ir_error(p->c, a.loc, E_INIT, "initialiser of %s tensor '%s' must hold integers in range", ir_dtype_name(v->dt), v->name);
      v->init[v->ninit++] = a.num;
    } while (accept(p, ","));
    Tok *cl = expect(p, "]");
    if (v->ninit != want)
      ir_error(p->c, cl->loc, E_INIT, "initialiser of '%s' has %d values, the tensor has %d", v->name, v->ninit, want);
  }
  bind(p, v);
  if (p->k->np == IR_MAX_PARAMS)
    ir_error(p->c, n->loc, E_LIMIT, "more than %d tensor parameters", IR_MAX_PARAMS);
  if (p->k->np == p->pcap) {                    /* doubling: linear in the parameters */
    p->pcap = p->pcap ? 2 * p->pcap : 16;
    Var **np = ir_alloc_raw(p->c->A, (size_t)p->pcap * sizeof *np);
    if (p->k->np) memcpy(np, p->pv, (size_t)p->k->np * sizeof *np);
    p->pv = np;
  }
  p->pv[p->k->np++] = v;
  p->k->params = p->pv;
}

static void attrs(P *p) {
  bool seen[3] = {0};
  for (;;) {
    Tok *t = peek(p);
    int which = is(t, "split") ? 0 : is(t, "target") ? 1 : is(t, "slots") ? 2 : -1;
    if (which < 0) return;
    next(p);
    if (seen[which]) ir_error(p->c, t->loc, E_DUP, "attribute '%.*s' given twice", t->len, t->s);
    seen[which] = true;
    expect(p, "(");
    Tok *v = peek(p);
    if (which == 0) {
      next(p);
      if (word(v, modes) < 0 || word(v, modes) > MODE_LR)
        ir_error(p->c, v->loc, E_PARSE, "expected none, up_down or left_right, found %s", desc(p, v));
      p->k->split = (Mode)word(v, modes);
    } else if (which == 1) {
      next(p);
      if (!is(v, "a2a3") && !is(v, "a5")) ir_error(p->c, v->loc, E_PARSE, "expected a2a3 or a5, found %s", desc(p, v));
      p->k->target = is(v, "a5") ? TGT_A5 : TGT_A2A3;
      p->k->stride_target = (int8_t)(1 + p->k->target);   /* its shards follow the declared target's strides */
    } else {
      int64_t n = expect_int(p, "a slot count");
      if (n < 1 || n > 8) ir_error(p->c, v->loc, E_RANGE, "slots must be 1..8, got %lld", (long long)n);
      p->k->slots = (int)n;
    }
    expect(p, ")");
  }
}

Kernel *ir_parse(Comp *c) {
  int ntok;
  Arena *T = ir_arena_new();
  jmp_buf jb, *outer = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {                             /* free the scratch, then report as before */
    ir_arena_free(T);
    c->jb = outer;
    if (!outer) die("diagnostic with nowhere to go: %s", c->diag.msg);
    longjmp(*outer, 1);
  }
  P p = {.c = c, .T = T};
  p.t = ir_lex(c, T, &ntok);
  p.k = ir_alloc(c->A, sizeof *p.k);
  p.k->slots = 2;
  push_scope(&p, (Loc){1, 1, 0});
  Tok *kw = peek(&p);
  if (!is(kw, "kernel")) ir_error(c, kw->loc, E_PARSE, "expected 'kernel', found %s", desc(&p, kw));
  next(&p);
  p.k->loc = kw->loc;
  p.k->name = name_of(&p, expect_name(&p, "kernel"));
  expect(&p, "(");
  if (!is(peek(&p), ")")) do param(&p);
    while (accept(&p, ","));
  expect(&p, ")");
  attrs(&p);
  push_scope(&p, peek(&p)->loc);
  block(&p, &p.k->body);
  p.k->explicit_split = ir_has_split_aiv(&p.k->body);
  p.k->lowered = lowered(&p.k->body);
  Tok *e = peek(&p);
  if (e->k != TK_EOF) ir_error(c, e->loc, E_PARSE, "expected end of file after the kernel, found %s", desc(&p, e));
  c->jb = outer;
  ir_arena_free(T);
  return p.k;
}
