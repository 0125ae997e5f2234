/* lex.c — source text -> token array (identifiers, integers, numbers,
 * one-character punctuation, EOF). '#' starts a comment to end of line. */
#include "ptoc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

Tok *ir_lex(Comp *c, Arena *T, int *ntok) {
  if (c->src.len > IR_MAX_SRC)
    ir_error(c, (Loc){0, 0, 0}, E_LIMIT, "the input is larger than %d bytes", IR_MAX_SRC);
  const char *s = c->src.text, *end = s + c->src.len;
  int cap = (int)(c->src.len < (1u << 24) ? c->src.len / 2 : 1u << 23) + 64, n = 0, line = 1;   /* tokens average over two bytes */
  const char *bol = s;
  Tok *v = ir_alloc_raw(T, (size_t)cap * sizeof *v);   /* each token is cleared when made */
  for (const char *p = s;;) {
    if (n + 1 >= cap) {
      Tok *nv = ir_alloc_raw(T, (size_t)cap * 2 * sizeof *nv);
      memcpy(nv, v, (size_t)n * sizeof *nv);
      v = nv;
      cap *= 2;
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '#')) {
      if (*p == '#')
        while (p < end && *p != '\n') p++;
      else if (*p++ == '\n') {
        line++;
        bol = p;
      }
    }
    Tok *t = &v[n++];
    memset(t, 0, sizeof *t);
    t->loc = (Loc){line, (int)(p - bol) + 1, (int)(p - s)};
    t->s = p;
    if (p >= end) {
      t->k = TK_EOF;
      break;
    }
    unsigned char ch = (unsigned char)*p;
    if (ch == 0) ir_error(c, t->loc, E_LEX, "NUL byte in source");
    if (isalpha(ch) || ch == '_') {
      while (p < end && (isalnum((unsigned char)*p) || *p == '_')) p++;
      if (p - t->s > IR_MAX_IDENT) ir_error(c, t->loc, E_LIMIT, "identifier longer than %d characters", IR_MAX_IDENT);
      t->k = TK_IDENT;
    } else if (isdigit(ch) || (ch == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
      const char *q = p;
      bool isfloat = false;
      while (q < end && isdigit((unsigned char)*q)) q++;
      if (q < end && *q == '.') {
        isfloat = true;
        for (q++; q < end && isdigit((unsigned char)*q);) q++;
      }
      if (q < end && (*q == 'e' || *q == 'E')) {
        const char *r = q + 1;
        if (r < end && (*r == '+' || *r == '-')) r++;
        if (r >= end || !isdigit((unsigned char)*r))
          ir_error(c, t->loc, E_LEX, "malformed exponent in number");
        while (r < end && isdigit((unsigned char)*r)) r++;
        q = r;
        isfloat = true;
      }
      if (q < end && (isalpha((unsigned char)*q) || *q == '_' || *q == '.'))
        ir_error(c, t->loc, E_LEX, "malformed number");
      char buf[64];
      if (q - p >= (long)sizeof buf) ir_error(c, t->loc, E_LEX, "number longer than %d characters", (int)sizeof buf - 1);
      memcpy(buf, p, (size_t)(q - p));
      buf[q - p] = 0;
      t->num = isfloat ? (double)strtof(buf, NULL) : strtod(buf, NULL);   /* a decimal rounds to f32 once */
      if (!isfloat) {
        const char *z = p;
        while (z < q - 1 && *z == '0') z++;       /* leading zeros do not count */
        if (q - z > 10) ir_error(c, t->loc, E_LEX, "integer too large");
        t->ival = strtoll(buf, NULL, 10);
        if (t->ival > (int64_t)INT32_MAX + 1) ir_error(c, t->loc, E_LEX, "integer too large");
      }
      t->k = isfloat ? TK_NUM : TK_INT;
      p = q;
    } else if (strchr("=<>!", ch) && p + 1 < end && p[1] == '=') {   /* == <= >= != */
      t->k = TK_PUNCT;
      p += 2;
    } else if (strchr("()[]{},;:=+-*<>", ch)) {
      t->k = TK_PUNCT;
      p++;
    } else if (isprint(ch)) {
      ir_error(c, t->loc, E_LEX, "unexpected character '%c'", ch);
    } else {
      ir_error(c, t->loc, E_LEX, "unexpected byte 0x%02x", ch);
    }
    t->len = (int)(p - t->s);
  }
  *ntok = n;
  return v;
}
