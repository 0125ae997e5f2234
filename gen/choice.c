/* choice.c — the one choice source of the generator, with two
 * implementations: a seeded PRNG (xoshiro256** seeded through splitmix64;
 * integer arithmetic only, so every machine draws the same sequence) and a
 * byte buffer, so libFuzzer and AFL++ steer the same generator. A byte source
 * answers from its bytes while they last and then with the defaults: choice 0
 * for fz_below/fz_range and "no" for fz_chance, so generation ends with a
 * small valid kernel. A byte of 0 also means "no": a fuzzer's zero bytes and an
 * exhausted buffer agree.
 *
 * Recording. A PRNG source can also write each of its choices as the bytes
 * that make a byte source answer the same (fz_src_record): fz_below(n) = v as
 * v in 1, 2 or 4 little-endian bytes (the width the byte source reads for n),
 * fz_chance true as 0xff and false as 0x00, and nothing for a choice that
 * reads no byte (n <= 1, p <= 0, p >= 1). Every recorded kernel is then a
 * fuzzer input that generates the same kernel, except when a chance below
 * 1/256 came out true (no byte says yes to it; rec_lost). Recording only
 * observes: the PRNG draws the same numbers with or without it. */
#include "gen.h"
#include "ptoc.h"

#include <string.h>

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t next(FzSrc *s) {
  uint64_t *q = s->s, r = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;
  q[2] ^= q[0];
  q[3] ^= q[1];
  q[1] ^= q[2];
  q[0] ^= q[3];
  q[2] ^= t;
  q[3] = rotl(q[3], 45);
  return r;
}

void fz_src_seed(FzSrc *s, uint64_t seed) {
  *s = (FzSrc){0};
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) s->s[i] = splitmix(&x);
}

void fz_src_bytes(FzSrc *s, const uint8_t *buf, size_t len) {
  *s = (FzSrc){0};
  s->bytes = true;
  s->buf = buf;
  s->len = buf ? len : 0;
}

size_t fz_src_used(const FzSrc *s) { return s->bytes ? s->pos : 0; }

void fz_src_record(FzSrc *s, uint8_t *buf, size_t cap) {
  s->rec = buf;
  s->rec_cap = buf ? cap : 0;
  s->rec_n = 0;
  s->rec_lost = false;
}

/* Append v as k little-endian bytes to the record (a PRNG source's). */
static void put(FzSrc *s, uint32_t v, int k) {
  if (!s->rec) return;
  for (int i = 0; i < k; i++, s->rec_n++)
    if (s->rec_n < s->rec_cap) s->rec[s->rec_n] = (uint8_t)(v >> (8 * i));
}

/* The next k bytes as a little-endian number; missing bytes read as 0. */
static uint32_t take(FzSrc *s, int k) {
  uint32_t v = 0;
  for (int i = 0; i < k; i++) {
    uint32_t b = s->pos < s->len ? s->buf[s->pos++] : 0;
    v |= b << (8 * i);
  }
  return v;
}

uint32_t fz_below(FzSrc *s, uint32_t n) {
  if (n <= 1) return 0;
  if (s->bytes) {
    if (s->pos >= s->len) return 0;
    return take(s, n <= 256 ? 1 : n <= 65536 ? 2 : 4) % n;
  }
  uint32_t v = (uint32_t)(((next(s) >> 32) * (uint64_t)n) >> 32);
  put(s, v, n <= 256 ? 1 : n <= 65536 ? 2 : 4);
  return v;
}

bool fz_chance(FzSrc *s, double p) {
  if (!(p > 0)) return false;
  if (p >= 1) return true;
  if (s->bytes) {
    if (s->pos >= s->len) return false;
    return (double)take(s, 1) >= 256.0 * (1.0 - p);
  }
  bool yes = (double)(next(s) >> 11) * 0x1.0p-53 < p;
  if (yes && !(255.0 >= 256.0 * (1.0 - p))) s->rec_lost = true;   /* the byte source's test for 0xff */
  put(s, yes ? 0xff : 0, 1);
  return yes;
}

int fz_range(FzSrc *s, int lo, int hi) {
  if (hi <= lo) return lo;
  return lo + (int)fz_below(s, (uint32_t)((int64_t)hi - lo + 1));
}

/* ---- the defects an engine input names ------------------------------------------- */

static const char BUGS_TAG[] = "#ptofuzz-bugs=";
enum { BUGS_TAG_LEN = sizeof BUGS_TAG - 1, BUGS_LINE_MAX = 1024 };

bool fz_input_bugs(const uint8_t *data, size_t n, FzInputBugs *ib, char *err, size_t errn) {
  *ib = (FzInputBugs){.body = n};
  if (!data || !n || data[n - 1] != '\n') return true;
  size_t e = n - 1, s = e;                      /* the last line: [s, e) */
  while (s > 0 && data[s - 1] != '\n' && e - s < BUGS_LINE_MAX) s--;
  size_t at = SIZE_MAX;
  for (size_t i = s; i + BUGS_TAG_LEN <= e; i++)   /* the last tag on it */
    if (!memcmp(data + i, BUGS_TAG, BUGS_TAG_LEN)) at = i;
  if (at == SIZE_MAX) return true;
  char list[BUGS_LINE_MAX + 1];
  size_t k = e - at - BUGS_TAG_LEN;
  memcpy(list, data + at + BUGS_TAG_LEN, k);
  list[k] = 0;
  if (!*list || strspn(list, "abcdefghijklmnopqrstuvwxyz0123456789-,") != k) return true;   /* not a tag: body bytes */
  char why[300];
  if (!ir_bugs_parse(list, &ib->bugs, why, sizeof why)) {
    if (err && errn) snprintf(err, errn, "the input's #ptofuzz-bugs= line: %s", why);
    return false;
  }
  ib->body = at;
  ib->named = true;
  return true;
}

size_t fz_input_name_bugs(uint8_t *data, size_t body, size_t cap, uint32_t bugs) {
  char names[600], line[700];
  ir_bugs_format(bugs, names, sizeof names);
  int k = snprintf(line, sizeof line, "%s%s\n", BUGS_TAG, *names ? names : "none");
  if (k <= 0 || (size_t)k > cap) return 0;
  if (body > cap - (size_t)k) body = cap - (size_t)k;   /* the generator's bytes give way */
  memcpy(data + body, line, (size_t)k);
  return body + (size_t)k;
}
