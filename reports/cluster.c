/* cluster.c — one bug, one cluster; and a finding's title in one line.
 * Consumes a finding's signature (kind|mode|code|op|pass|pattern), its first
 * bad pass and the oracle's detail of its first test case (the diagnostic
 * message, or the words of a mismatch); produces a cluster key, short readable
 * text such as `wrong/auto_split` or `reject/auto_split/E-VALID/slice`, the
 * same for the same inputs. A signature names one symptom; a bug in one pass
 * shows several: the same wrong half under up_down and under left_right, a
 * lost half as a wrong output or as a read of undefined data (R-POISON),
 * under a split or in an unsplit variant that runs the split code. The key
 * keeps what points at the bug and drops what the kernel around it decides:
 *
 *   back end    ptoas: or pypto: in front (the model back end: nothing)
 *   family      reject | wrong (miscompile, R-POISON) | tail (a miscompile of
 *               the odd last row or column) | race (R-RACE, R-REPLICA) |
 *               oob (R-*-OOB, R-*-RANGE) | pipe (R-PIPE-*) | hang | crash |
 *               blowup | escape (other runtime codes)
 *   pass        the first bad pass (else the signature's), `nopass` when none
 *   code        rejects: the rule (an E-VERIFY's inner check, read from the
 *               detail: E-VALID, E-SHAPE, ...); hangs, crashes, other escapes:
 *               their code
 *   op          rejects only, and not for the checks that compare operands or
 *               count space (E-SHAPE, E-TYPE, E-CAPACITY, E-SPACE), where the
 *               op is only where the mismatch was noticed
 *   header      a real back end's C++ that does not compile: the pto-isa file
 *               the first error is in (TRowSum.hpp), which names the op whose
 *               template refuses it
 *
 * Split mode, lane pattern (other than tail) and the runtime op never enter a
 * key. Also here: rep_title (the one-line title of a finding's row) and
 * `ptofuzz db list --clusters`. */
#include "rep.h"

#include "ptoc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { NFIELD = 6, FIELDLEN = 64 };

/* Split a signature into its six fields; false when it has fewer. */
static bool fields(const char *sig, char f[NFIELD][FIELDLEN]) {
  const char *p = sig;
  for (int i = 0; i < NFIELD; i++) {
    const char *e = i < NFIELD - 1 ? strchr(p, '|') : p + strlen(p);
    if (!e) return false;
    snprintf(f[i], FIELDLEN, "%.*s", (int)(e - p) < FIELDLEN - 1 ? (int)(e - p) : FIELDLEN - 1, p);
    p = e + 1;
  }
  return true;
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* An E-VERIFY's inner check, from "after PASS: E-XXX: ..." in the detail. */
static bool inner_code(const char *detail, char *out, size_t n) {
  const char *a = detail ? strstr(detail, "after ") : NULL;
  const char *c = a ? strstr(a, ": E-") : NULL;
  if (!c) return false;
  c += 2;
  size_t k = 0;
  while (c[k] && (isupper((unsigned char)c[k]) || isdigit((unsigned char)c[k]) || c[k] == '-') && k + 1 < n) k++;
  snprintf(out, n, "%.*s", (int)k, c);
  return k > 2;
}

bool rep_cluster_key(const char *signature, const char *first_bad_pass, const char *detail, char *key, size_t n) {
  char f[NFIELD][FIELDLEN];
  if (!signature || !fields(signature, f) || !n) return false;
  const char *kind = f[0], *mode = f[1], *code = f[2], *op = f[3], *pattern = f[5];
  const char *be = starts(mode, "ptoas:") ? "ptoas:" : starts(mode, "pypto:") ? "pypto:" : "";
  const char *pass = first_bad_pass && *first_bad_pass && strcmp(first_bad_pass, "-") ? first_bad_pass : f[4];
  if (!strcmp(pass, "-") || !*pass) pass = "nopass";
  if (!strcmp(kind, "reject")) {
    char inner[FIELDLEN];
    const char *rule = !strcmp(code, "E-VERIFY") && inner_code(detail, inner, sizeof inner) ? inner : code;
    bool noticed = !strcmp(rule, "E-SHAPE") || !strcmp(rule, "E-TYPE") || !strcmp(rule, "E-CAPACITY") ||
                   !strcmp(rule, "E-SPACE");
    bool with_op = !noticed && strcmp(op, "-") && *op;
    snprintf(key, n, "%sreject/%s/%s%s%s", be, pass, rule, with_op ? "/" : "", with_op ? op : "");
  } else if (!strcmp(kind, "miscompile")) {
    snprintf(key, n, "%s%s/%s", be, !strcmp(pattern, "tail") ? "tail" : "wrong", pass);
  } else if (!strcmp(kind, "escape")) {
    const char *fam = !strcmp(code, "R-POISON")                              ? "wrong"
                      : !strcmp(code, "R-RACE") || !strcmp(code, "R-REPLICA") ? "race"
                      : strstr(code, "-OOB") || strstr(code, "-RANGE")        ? "oob"
                      : starts(code, "R-PIPE")                                ? "pipe"
                                                                              : NULL;
    if (fam) snprintf(key, n, "%s%s/%s", be, fam, pass);
    else snprintf(key, n, "%sescape/%s/%s", be, pass, code);
  } else if (!strcmp(kind, "blowup")) {
    snprintf(key, n, "%sblowup/%s", be, pass);
  } else if (*be && !strcmp(code, "cxx-error") && detail && strstr(detail, ": error:")) {
    /* the C++ of a real back end: the pto-isa header that refuses it names the bug */
    const char *e = strstr(detail, ": error:"), *b = e;
    while (b > detail && b[-1] != ' ' && b[-1] != '/') b--;
    snprintf(key, n, "%s%s/%s/%s/%.*s", be, kind, pass, code, (int)(e - b) < FIELDLEN ? (int)(e - b) : FIELDLEN, b);
  } else {                                      /* hang, crash, and kinds to come */
    snprintf(key, n, "%s%s/%s/%s", be, kind, pass, code);
  }
  return true;
}

/* ---- titles --------------------------------------------------------------------- */

static const char *pattern_says(const char *p) {
  static const char *const w[][2] = {{"lane0", "lane 0's half"}, {"lane1", "lane 1's half"},
                                     {"both", "both halves"},    {"tail", "the odd last row or column"},
                                     {"transposed", "transposed"}, {"all", "every element"}};
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
    if (!strcmp(p, w[i][0])) return w[i][1];
  return NULL;
}

void rep_title(const char *signature, const char *summary, char *buf, size_t n) {
  enum { MAXT = 100 };
  char t[512], f[NFIELD][FIELDLEN];
  const char *s = summary ? summary : "";
  static const char old[] = ": outputs differ from the golden run";   /* the whole detail of an older row */
  size_t ls = strlen(s);
  const char *under = strstr(s, " under ");
  if (ls < sizeof old || strcmp(s + ls - (sizeof old - 1), old) || !under || !signature || !fields(signature, f)) {
    snprintf(t, sizeof t, "%s", *s ? s : signature ? signature : "-");
  } else {                                      /* a miscompile recorded before titles named the output */
    const char *colon = strchr(under + 7, ':');
    int vl = colon ? (int)(colon - under - 7) : 0;
    const char *pw = pattern_says(f[5]);
    snprintf(t, sizeof t, "%s under %.*s: wrong output%s%s (pattern %s), first bad pass %s", f[0], vl, under + 7,
             pw ? " in " : "", pw ? pw : "", f[5], f[4]);
  }
  for (char *p = t; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
  if (strlen(t) > MAXT) memcpy(t + MAXT - 3, "...", 4);
  snprintf(buf, n, "%s", t);
}

/* ---- clusters over the database ----------------------------------------------------- */

void rep_row_cluster(const DbFindingRow *r, char *key, size_t n) {
  if (r->cluster && *r->cluster) snprintf(key, n, "%s", r->cluster);
  else if (!rep_cluster_key(r->signature, NULL, r->summary, key, n)) snprintf(key, n, "unclustered");
}

int rep_cluster_peers(Db *d, int64_t id, const char *key, int64_t *ids, int max) {
  DbFindingRow *r;
  int nr = db_finding_rows(d, &r), k = 0;
  if (nr < 0) return -1;
  for (int i = 0; i < nr; i++) {
    char c[128];
    rep_row_cluster(&r[i], c, sizeof c);
    if (r[i].id != id && !strcmp(c, key) && k < max) ids[k++] = r[i].id;
  }
  db_finding_rows_free(r, nr);
  return k;
}

int rep_cmd_list_clusters(Db *d, FILE *out) {
  DbFindingRow *r;
  int nr = db_finding_rows(d, &r);
  if (nr < 0) {
    fprintf(stderr, "ptofuzz: db: %s\n", db_errmsg(d));
    return 1;
  }
  char (*key)[128] = calloc((size_t)nr + 1, sizeof *key);
  bool *done = calloc((size_t)nr + 1, sizeof *done);
  if (!key || !done) die("out of memory");
  for (int i = 0; i < nr; i++) rep_row_cluster(&r[i], key[i], sizeof key[i]);
  int nc = 0;
  for (int i = 0; i < nr; i++) {                /* clusters in the order of their first finding */
    if (done[i]) continue;
    int sigs = 0;
    int64_t hits = 0;
    for (int j = i; j < nr; j++)
      if (!strcmp(key[j], key[i])) sigs++, hits += r[j].hits;
    fprintf(out, "%scluster %s  signatures=%d hits=%" PRId64 "\n", nc++ ? "\n" : "", key[i], sigs, hits);
    for (int j = i; j < nr; j++) {
      if (strcmp(key[j], key[i])) continue;
      done[j] = true;
      char title[128];
      rep_title(r[j].signature, r[j].summary, title, sizeof title);
      fprintf(out, "  %-4" PRId64 " %-7s %5" PRId64 "  %s  %s\n", r[j].id, r[j].status, r[j].hits, r[j].signature,
              title);
    }
  }
  if (!nr) fputs("(no findings)\n", out);
  free(key), free(done);
  db_finding_rows_free(r, nr);
  return 0;
}
