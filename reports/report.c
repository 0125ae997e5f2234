/* report.c — the triage report of one finding (DESIGN section 11), what a
 * person pastes into an issue. Consumes a finding of the database (its fields,
 * its first test case, its campaigns); produces markdown (pictures written as
 * PNG files beside it), self-contained HTML (pictures inlined as data URIs) or
 * JSON with the same fields. For a miscompile of the model back end the test
 * case is run again: the golden run and the finding's own variant, defects,
 * input seed and schedule, compared element by element, which gives the
 * per-output counts, the first differing elements and the pictures. For a
 * finding with a first bad pass the variant is compiled up to the pass before
 * it and up to it, and the two IR texts are shown as a unified line diff
 * (a longest-common-subsequence diff of our own). A finding of the PyPTO back
 * end carries the PyPTO program ptoc translates the kernel into (what its
 * maintainers run), the PyPTO pass or ptoas message, and, for every PyPTO
 * build named, whether the finding reproduces there. Nothing here writes the
 * database. */
#include "rep.h"
#include "cli.h"

#include "orc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef PTO_COMMIT
#define PTO_COMMIT "unknown"
#endif

enum {
  FIRST_N = 8,                                  /* differing elements listed per output */
  CONTEXT = 3,                                  /* lines of context in the IR diff */
  MAX_DIFF_CELLS = 16 << 20,                    /* LCS table cap (lines x lines) */
  PIC_W = 960, PIC_H = 720,                     /* the largest tile picture, roughly */
  PIC_MARGIN = 10, SWATCH = 14,
};

/* ---- the picture's palette -------------------------------------------------------- */

typedef enum { C_OK, C_UNWRITTEN, C_DIFF, C_MISSING, C_EXTRA, C_LANE, C_VALID, C_BG, C_TEXT, C_N } Colour;
static const struct {
  uint8_t rgb[3];
  const char *name, *meaning, *label;           /* label: drawn in the picture's legend */
} pal[C_N] = {
    [C_OK] = {{0xcf, 0xe8, 0xcf}, "pale green", "ok: the value the golden run stored", "ok"},
    [C_UNWRITTEN] = {{0xe6, 0xe6, 0xe6}, "light grey", "ok: canary in both (never stored)", "not stored"},
    [C_DIFF] = {{0xd6, 0x27, 0x28}, "red", "differs: another value", "differs"},
    [C_MISSING] = {{0x7b, 0x2c, 0xbf}, "purple", "canary where a value belongs (never written)", "canary for value"},
    [C_EXTRA] = {{0xff, 0x9f, 0x1c}, "orange", "value where the canary belongs (written outside)", "value for canary"},
    [C_LANE] = {{0x00, 0x50, 0xff}, "blue line", "lane boundary (lane 0 | lane 1 on the split axis)", "lane boundary"},
    [C_VALID] = {{0x00, 0x00, 0x00}, "black line", "valid region (what the golden run stored)", "valid region"},
    [C_BG] = {{0xff, 0xff, 0xff}, "white", "background", ""},
    [C_TEXT] = {{0x20, 0x20, 0x20}, "dark grey", "text", ""},
};
static const Colour legend_order[] = {C_OK, C_UNWRITTEN, C_DIFF, C_MISSING, C_EXTRA, C_LANE, C_VALID};
enum { NLEGEND = sizeof legend_order / sizeof *legend_order };

/* ---- what the report holds ------------------------------------------------------------ */

typedef struct {
  int r, c;
  uint32_t exp, act;
} Elt;

typedef struct {
  char name[64];
  Dtype dt;
  int rows, cols;
  int64_t differ, missing, extra;               /* all differing; of them canary-for-value, value-for-canary */
  int nfirst;
  Elt first[FIRST_N];
  unsigned char *png;                           /* the picture (malloc'd), NULL if none */
  char *grid;                                   /* the picture as text (malloc'd), NULL if none */
  size_t pnglen;
  char file[600];                               /* markdown: where it was written */
} OutDiff;

typedef struct {
  Db *db;
  DbInfo f;
  const char *kernel;                           /* reduced text if any, else the kernel */
  char title[640];
  char cluster[400];                            /* "KEY; N other signatures in this cluster: ID, ..." */
  char backend[8];                              /* model, ptoas or pypto */
  char schedule[40];                            /* rr, random:N, or - */
  char bugs[400];                               /* the --bugs list of the test case */
  uint64_t sched_seed;
  char repro[3][900];
  int nrepro;
  /* the re-run */
  bool rerun;
  char rerun_note[400];                         /* why not re-run, or what the re-run found */
  int nout;
  OutDiff *out;
  int axis;                                     /* split axis of the variant, -1 none */
  /* the IR diff around the first bad pass */
  char ir_before_pass[32], ir_after_pass[32];
  char *ir_diff;                                /* malloc'd; NULL if not available */
  char ir_note[400];
  /* the environment */
  char host[320], compiler[200], ptoas[120];
  char tools[REP_MAX_TOOLS][700];               /* ptoas/PyPTO findings: the identities of the tools under blame */
  int ntools;
  /* --bundle DIR */
  const char *bundle_dir;
  bool bundled;
  RepBundle bundle;
  /* the PyPTO back end: the program, and per build named whether it reproduces */
  char *program;                                /* malloc'd; NULL when not a PyPTO finding or not translatable */
  char program_note[300];
  int nbuild;
  char build[ORC_PYPTO_MAXB][64];               /* "COMMIT (DATE)" */
  char repro_on[ORC_PYPTO_MAXB][300];           /* "reproduces: ..." or "does not reproduce: ..." */
  char pypto_env[200];
} Rep;

static void put(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s ? s : "-"); }

/* snprintf into a fixed field, cut where it must be (a cut message is still useful). */
__attribute__((format(printf, 3, 4))) static void putf(char *dst, size_t n, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  vsnprintf(dst, n, f, ap);
  va_end(ap);
}
static const char *nz(const char *s) { return s ? s : "-"; }

/* ---- flags of a test case -------------------------------------------------------------- */

/* Campaigns write "--bugs=LIST schedule=rr|random" or "--bugs=LIST --backend=ptoas". */
static void parse_flags(Rep *r) {
  const char *fl = r->f.flags ? r->f.flags : "";
  const char *b = strstr(fl, "--bugs=");
  r->bugs[0] = 0;
  if (b) {
    b += 7;
    size_t n = strcspn(b, " ");
    snprintf(r->bugs, sizeof r->bugs, "%.*s", (int)(n < sizeof r->bugs ? n : sizeof r->bugs - 1), b);
  }
  bool py = strstr(fl, "--backend=pypto") || (r->f.variant && !strncmp(r->f.variant, "pypto:", 6));
  bool real = py || strstr(fl, "--backend=ptoas") || (r->f.variant && !strncmp(r->f.variant, "ptoas:", 6));
  put(r->backend, sizeof r->backend, py ? "pypto" : real ? "ptoas" : "model");
  r->sched_seed = r->f.seed | 1;                /* a campaign's random schedule (fuzz/campaign.c) */
  if (real) put(r->schedule, sizeof r->schedule, "-");
  else if (strstr(fl, "schedule=random"))
    snprintf(r->schedule, sizeof r->schedule, "random:%llu", (unsigned long long)r->sched_seed);
  else put(r->schedule, sizeof r->schedule, "rr");
}

/* ---- the title in words ------------------------------------------------------------------ */

static const char *pattern_words(const char *p) {
  static const struct {
    const char *p, *w;
  } t[] = {{"lane0", "in lane 0's half"},
           {"lane1", "in lane 1's half"},
           {"both", "in both lanes' halves"},
           {"tail", "in the last row or column of an odd extent"},
           {"transposed", "transposed"},
           {"all", "everywhere it stores"}};
  for (size_t i = 0; p && i < sizeof t / sizeof *t; i++)
    if (!strcmp(p, t[i].p)) return t[i].w;
  return NULL;
}

/* The cluster (stored, else computed) and the other findings in it. */
static void cluster_line(Rep *r, Db *d) {
  char key[128];
  if (r->f.cluster) snprintf(key, sizeof key, "%s", r->f.cluster);
  else if (!rep_cluster_key(r->f.signature, r->f.first_bad_pass, r->f.summary, key, sizeof key)) snprintf(key, sizeof key, "-");
  int64_t ids[16];
  int n = rep_cluster_peers(d, r->f.id, key, ids, 16);
  size_t at = (size_t)snprintf(r->cluster, sizeof r->cluster, "%s; ", key);
  if (n < 0) snprintf(r->cluster + at, sizeof r->cluster - at, "its other findings unknown (%s)", db_errmsg(d));
  else if (!n) snprintf(r->cluster + at, sizeof r->cluster - at, "no other signature in this cluster");
  else at += (size_t)snprintf(r->cluster + at, sizeof r->cluster - at, "%d other signature%s in this cluster:", n, n > 1 ? "s" : "");
  for (int k = 0; n > 0 && k < n && at < sizeof r->cluster; k++)
    at += (size_t)snprintf(r->cluster + at, sizeof r->cluster - at, "%s %lld", k ? "," : "", (long long)ids[k]);
}

static void make_title(Rep *r) {
  const DbInfo *f = &r->f;
  const char *k = nz(f->kind), *mode = nz(f->mode), *code = nz(f->code), *op = nz(f->op);
  const char *pass = f->first_bad_pass ? f->first_bad_pass : f->pass;
  char what[240], where[160] = "";
  if (!strcmp(k, "miscompile")) {
    /* which output and where, from a summary "miscompile under V: O rows a-b, cols c-d: X of Y wrong, pattern P" */
    const char *pw = pattern_words(f->pattern), *u = strstr(nz(f->summary), " under ");
    const char *at = u ? strstr(u, ": ") : NULL, *cnt = at ? strstr(at + 2, ": ") : NULL;
    int ln = cnt && strstr(cnt, " wrong") ? (int)(cnt - at - 2) : 0;
    snprintf(what, sizeof what, "Wrong output%s%.*s%s%s", ln ? " " : "", ln < 80 ? ln : 80, ln ? at + 2 : "",
             pw ? " " : "", pw ? pw : "");
  } else if (!strcmp(k, "reject")) {
    snprintf(what, sizeof what, "Legal kernel rejected with %s%s%s", code, strcmp(op, "-") ? " at a " : "",
             strcmp(op, "-") ? op : "");
  } else if (!strcmp(k, "escape")) {
    snprintf(what, sizeof what, "Runtime violation %s%s%s escapes the verifier", code, strcmp(op, "-") ? " in a " : "",
             strcmp(op, "-") ? op : "");
  } else if (!strcmp(k, "hang")) {
    snprintf(what, sizeof what, "Hang (%s)%s%s", code, strcmp(op, "-") ? " in a " : "", strcmp(op, "-") ? op : "");
  } else if (!strcmp(k, "crash")) {
    snprintf(what, sizeof what, "Crash (%s)", code);
  } else if (!strcmp(k, "blowup")) {
    snprintf(what, sizeof what, "Compile blow-up (%s)", code);
  } else {
    snprintf(what, sizeof what, "Finding of kind %s (%s)", k, code);
  }
  const char *m = !strncmp(mode, "ptoas:", 6) || !strncmp(mode, "pypto:", 6) ? mode + 6 : mode;
  if (strcmp(m, "none")) snprintf(where, sizeof where, " under %s", m);
  else snprintf(where, sizeof where, " without a split");
  snprintf(r->title, sizeof r->title, "%s%s%s%s%s", what, where,
           !strcmp(r->backend, "ptoas") ? " on the real back end" : !strcmp(r->backend, "pypto") ? " in PyPTO" : "",
           pass && strcmp(pass, "-") ? ", first bad pass " : "", pass && strcmp(pass, "-") ? pass : "");
  if (strlen(r->title) > 100) memcpy(r->title + 97, "...", 4);   /* one line of at most 100 characters */
}

/* ---- the reproduce commands ----------------------------------------------------------------- */

static void make_repro(Rep *r, const char *db_path) {
  char file[64], bugs[420] = "";
  snprintf(file, sizeof file, "finding-%lld.ptk", (long long)r->f.id);
  if (r->bugs[0] && strcmp(r->bugs, "none")) snprintf(bugs, sizeof bugs, " --bugs=%s", r->bugs);
  unsigned long long seed = (unsigned long long)r->f.seed;
  /* no local path: the kernel is in the report; from the database, `ptofuzz db export ID` writes it */
  (void)db_path;
  snprintf(r->repro[r->nrepro++], sizeof r->repro[0], "# save the kernel below as %s", file);
  if (!strcmp(r->backend, "ptoas")) {
    snprintf(r->repro[r->nrepro++], sizeof r->repro[0], "ptofuzz diff %s --backend=ptoas%s --seed=%llu", file, bugs, seed);
    return;
  }
  if (!strcmp(r->backend, "pypto")) {
    snprintf(r->repro[r->nrepro++], sizeof r->repro[0], "ptofuzz diff %s --backend=pypto --seed=%llu", file, seed);
    /* the program alone, with only PyPTO (and ptoas for a ptoas message) */
    snprintf(r->repro[r->nrepro++], sizeof r->repro[0],
             "PYTHONPATH=$PYPTO/python python3 finding-%lld.py out%s   # the program below", (long long)r->f.id,
             !strcmp(nz(r->f.pass), "ptoas") ? " $PTOAS" : "");
    return;
  }
  const char *v = nz(r->f.variant);
  char split[80];
  if (!strncmp(v, "none@", 5)) snprintf(split, sizeof split, "--split=none --target=%s", v + 5);
  else snprintf(split, sizeof split, "--split=%s", v);
  /* exactly the finding's variant and schedule */
  snprintf(r->repro[r->nrepro++], sizeof r->repro[0], "ptosim %s %s%s --seed=%llu --schedule=%s", file, split, bugs,
           seed, r->schedule);
  /* every variant through the oracle (its random schedule is random:1) */
  snprintf(r->repro[r->nrepro++], sizeof r->repro[0], "ptofuzz diff %s --backend=model%s --seed=%llu", file, bugs, seed);
}

/* ---- PNG ---------------------------------------------------------------------------------- */

typedef struct {
  int w, h;
  uint8_t *px;                                  /* RGB, row-major */
} Canvas;

static void fill(Canvas *cv, int x0, int y0, int w, int h, Colour c) {
  for (int y = y0 < 0 ? 0 : y0; y < y0 + h && y < cv->h; y++)
    for (int x = x0 < 0 ? 0 : x0; x < x0 + w && x < cv->w; x++) memcpy(cv->px + 3 * ((size_t)y * cv->w + x), pal[c].rgb, 3);
}

/* ---- a 5x7 bitmap font of our own, for the picture's caption and legend ---------- */

/* Each glyph: 7 rows of 5 bits, the high bit leftmost. Upper case, digits and
 * a little punctuation; lower case is drawn as upper case, anything else as a
 * blank. */
static const struct {
  char ch;
  uint8_t row[7];
} glyphs[] = {
    {'A', {14, 17, 17, 31, 17, 17, 17}}, {'B', {30, 17, 17, 30, 17, 17, 30}}, {'C', {14, 17, 16, 16, 16, 17, 14}},
    {'D', {30, 17, 17, 17, 17, 17, 30}}, {'E', {31, 16, 16, 30, 16, 16, 31}}, {'F', {31, 16, 16, 30, 16, 16, 16}},
    {'G', {14, 17, 16, 23, 17, 17, 15}}, {'H', {17, 17, 17, 31, 17, 17, 17}}, {'I', {14, 4, 4, 4, 4, 4, 14}},
    {'J', {7, 2, 2, 2, 2, 18, 12}},      {'K', {17, 18, 20, 24, 20, 18, 17}}, {'L', {16, 16, 16, 16, 16, 16, 31}},
    {'M', {17, 27, 21, 21, 17, 17, 17}}, {'N', {17, 17, 25, 21, 19, 17, 17}}, {'O', {14, 17, 17, 17, 17, 17, 14}},
    {'P', {30, 17, 17, 30, 16, 16, 16}}, {'Q', {14, 17, 17, 17, 21, 18, 13}}, {'R', {30, 17, 17, 30, 20, 18, 17}},
    {'S', {15, 16, 16, 14, 1, 1, 30}},   {'T', {31, 4, 4, 4, 4, 4, 4}},       {'U', {17, 17, 17, 17, 17, 17, 14}},
    {'V', {17, 17, 17, 17, 17, 10, 4}},  {'W', {17, 17, 17, 21, 21, 21, 10}}, {'X', {17, 17, 10, 4, 10, 17, 17}},
    {'Y', {17, 17, 10, 4, 4, 4, 4}},     {'Z', {31, 1, 2, 4, 8, 16, 31}},     {'0', {14, 17, 19, 21, 25, 17, 14}},
    {'1', {4, 12, 4, 4, 4, 4, 14}},      {'2', {14, 17, 1, 2, 4, 8, 31}},     {'3', {31, 2, 4, 2, 1, 17, 14}},
    {'4', {2, 6, 10, 18, 31, 2, 2}},     {'5', {31, 16, 30, 1, 1, 17, 14}},   {'6', {6, 8, 16, 30, 17, 17, 14}},
    {'7', {31, 1, 2, 4, 8, 8, 8}},       {'8', {14, 17, 17, 14, 17, 17, 14}}, {'9', {14, 17, 17, 15, 1, 2, 12}},
    {'-', {0, 0, 0, 31, 0, 0, 0}},       {':', {0, 12, 12, 0, 12, 12, 0}},    {',', {0, 0, 0, 0, 12, 4, 8}},
    {'/', {1, 1, 2, 4, 8, 16, 16}},      {'_', {0, 0, 0, 0, 0, 0, 31}},       {'[', {6, 4, 4, 4, 4, 4, 6}},
    {']', {12, 4, 4, 4, 4, 4, 12}},      {'@', {14, 17, 23, 21, 23, 16, 14}}, {'.', {0, 0, 0, 0, 0, 12, 12}},
};
enum { GLYPH_W = 6, GLYPH_H = 7 };             /* advance and height in pixels */

static void text(Canvas *cv, int x, int y, const char *s, Colour c) {
  for (; *s; s++, x += GLYPH_W) {
    char ch = *s >= 'a' && *s <= 'z' ? (char)(*s - 32) : *s;
    for (size_t g = 0; g < sizeof glyphs / sizeof *glyphs; g++) {
      if (glyphs[g].ch != ch) continue;
      for (int r = 0; r < GLYPH_H; r++)
        for (int b = 0; b < 5; b++)
          if (glyphs[g].row[r] >> (4 - b) & 1) fill(cv, x + b, y + r, 1, 1, c);
      break;
    }
  }
}

typedef struct {
  unsigned char *buf;
  size_t len, cap;
} Mem;

static void png_mem_write(png_structp p, png_bytep data, png_size_t n) {
  Mem *m = png_get_io_ptr(p);
  if (m->len + n > m->cap) {
    size_t cap = (m->cap ? 2 * m->cap : 4096) + n;
    unsigned char *b = realloc(m->buf, cap);
    if (!b) png_error(p, "out of memory");
    m->buf = b, m->cap = cap;
  }
  memcpy(m->buf + m->len, data, n);
  m->len += n;
}
static void png_mem_flush(png_structp p) { (void)p; }

/* The canvas as PNG bytes (malloc'd), or NULL. */
static unsigned char *encode_png(const Canvas *cv, size_t *len) {
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = p ? png_create_info_struct(p) : NULL;
  Mem m = {0};
  if (!info) {
    png_destroy_write_struct(&p, NULL);
    return NULL;
  }
  if (setjmp(png_jmpbuf(p))) {
    png_destroy_write_struct(&p, &info);
    free(m.buf);
    return NULL;
  }
  png_set_write_fn(p, &m, png_mem_write, png_mem_flush);
  png_set_IHDR(p, info, (png_uint_32)cv->w, (png_uint_32)cv->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(p, info);
  for (int y = 0; y < cv->h; y++) png_write_row(p, cv->px + 3 * (size_t)y * cv->w);
  png_write_end(p, info);
  png_destroy_write_struct(&p, &info);
  *len = m.len;
  return m.buf;
}

/* Element (r, c) of an output tile: its colour class, lane (-1 none) and
 * whether the golden run stored it. */
typedef struct {
  uint8_t cls, written;
  int8_t lane;
  int64_t store;                                /* the golden store that wrote it, -1 none */
} Cell;

/* The picture of one output: a caption (output, dtype, shape, variant, count),
 * a cell per element with the first and last row and column numbered, the
 * lane boundary between cells of different lanes of one store, the valid
 * region's outline, and the legend below: a swatch and a label per colour. */
static void draw(OutDiff *od, const Cell *cell, const char *variant) {
  int R = od->rows, C = od->cols;
  int cs = PIC_W / (C ? C : 1) < PIC_H / (R ? R : 1) ? PIC_W / (C ? C : 1) : PIC_H / (R ? R : 1);
  if (cs > 24) cs = 24;
  if (cs < 1) cs = 1;
  char caption[200], num[16];
  snprintf(caption, sizeof caption, "%s %s[%d,%d] %s: %lld differ", od->name, ir_dtype_name(od->dt), R, C, variant,
           (long long)od->differ);
  snprintf(num, sizeof num, "%d", R - 1);
  int gutter = (int)strlen(num) * GLYPH_W + 4;  /* row numbers left of the grid */
  int gx = PIC_MARGIN + gutter, gy = PIC_MARGIN + 2 * (GLYPH_H + 4);   /* caption, then column numbers */
  int gw = C * cs, gh = R * cs;
  int W = gx + gw + PIC_MARGIN, minw = (int)strlen(caption) * GLYPH_W + 2 * PIC_MARGIN;
  if (W < minw) W = minw;
  if (W < 420) W = 420;
  /* the legend's rows: entries wrap at the canvas width */
  int rows = 1, lx = PIC_MARGIN;
  for (int i = 0; i < NLEGEND; i++) {
    int w = SWATCH + 4 + (int)strlen(pal[legend_order[i]].label) * GLYPH_W + 12;
    if (lx + w > W - PIC_MARGIN && lx > PIC_MARGIN) rows++, lx = PIC_MARGIN;
    lx += w;
  }
  Canvas cv = {.w = W, .h = gy + gh + PIC_MARGIN + rows * (SWATCH + 6) + PIC_MARGIN};
  cv.px = malloc((size_t)cv.w * cv.h * 3);
  if (!cv.px) die("out of memory");
  fill(&cv, 0, 0, cv.w, cv.h, C_BG);
  text(&cv, PIC_MARGIN, PIC_MARGIN, caption, C_TEXT);
  text(&cv, gx, gy - GLYPH_H - 3, "0", C_TEXT);
  snprintf(num, sizeof num, "%d", C - 1);
  if (C > 1) text(&cv, gx + gw - (int)strlen(num) * GLYPH_W, gy - GLYPH_H - 3, num, C_TEXT);
  text(&cv, gx - gutter, gy, "0", C_TEXT);
  snprintf(num, sizeof num, "%d", R - 1);
  if (R > 1) text(&cv, gx - gutter, gy + gh - GLYPH_H, num, C_TEXT);
  int inset = cs >= 5 ? 1 : 0;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      fill(&cv, gx + c * cs + inset, gy + r * cs + inset, cs - inset, cs - inset, (Colour)cell[(size_t)r * C + c].cls);
  /* the valid region: an edge between a stored cell and an unstored one (or the border) */
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      const Cell *x = &cell[(size_t)r * C + c];
      if (!x->written) continue;
      int X = gx + c * cs, Y = gy + r * cs;
      if (c == 0 || !cell[(size_t)r * C + c - 1].written) fill(&cv, X, Y, 1, cs + 1, C_VALID);
      if (c == C - 1 || !cell[(size_t)r * C + c + 1].written) fill(&cv, X + cs, Y, 1, cs + 1, C_VALID);
      if (r == 0 || !cell[(size_t)(r - 1) * C + c].written) fill(&cv, X, Y, cs + 1, 1, C_VALID);
      if (r == R - 1 || !cell[(size_t)(r + 1) * C + c].written) fill(&cv, X, Y + cs, cs + 1, 1, C_VALID);
    }
  /* the lane boundary: between neighbours of one store in different lanes */
  int t = cs >= 8 ? 3 : cs >= 3 ? 2 : 1;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      const Cell *x = &cell[(size_t)r * C + c];
      if (x->lane < 0) continue;
      int X = gx + c * cs, Y = gy + r * cs;
      const Cell *e = c + 1 < C ? &cell[(size_t)r * C + c + 1] : NULL, *s = r + 1 < R ? &cell[(size_t)(r + 1) * C + c] : NULL;
      if (e && e->lane >= 0 && e->lane != x->lane && e->store == x->store) fill(&cv, X + cs - t / 2, Y, t, cs + 1, C_LANE);
      if (s && s->lane >= 0 && s->lane != x->lane && s->store == x->store) fill(&cv, X, Y + cs - t / 2, cs + 1, t, C_LANE);
    }
  /* the legend */
  int ly = gy + gh + PIC_MARGIN;
  lx = PIC_MARGIN;
  for (int i = 0; i < NLEGEND; i++) {
    Colour c = legend_order[i];
    int w = SWATCH + 4 + (int)strlen(pal[c].label) * GLYPH_W + 12;
    if (lx + w > W - PIC_MARGIN && lx > PIC_MARGIN) ly += SWATCH + 6, lx = PIC_MARGIN;
    if (c == C_LANE || c == C_VALID) {
      fill(&cv, lx, ly, SWATCH, SWATCH, C_UNWRITTEN);
      if (c == C_LANE) fill(&cv, lx + SWATCH / 2 - 1, ly, 3, SWATCH, C_LANE);
      else fill(&cv, lx + 2, ly + 2, SWATCH - 4, 1, C_VALID), fill(&cv, lx + 2, ly + SWATCH - 3, SWATCH - 4, 1, C_VALID),
               fill(&cv, lx + 2, ly + 2, 1, SWATCH - 4, C_VALID), fill(&cv, lx + SWATCH - 3, ly + 2, 1, SWATCH - 4, C_VALID);
    } else {
      fill(&cv, lx, ly, SWATCH, SWATCH, c);
    }
    text(&cv, lx + SWATCH + 4, ly + (SWATCH - GLYPH_H) / 2, pal[c].label, C_TEXT);
    lx += w;
  }
  od->png = encode_png(&cv, &od->pnglen);
  free(cv.px);
}

/* ---- the re-run -------------------------------------------------------------------------- */

/* Compile the front-end kernel gk as variant v (split/target/bugs) up to stop (NULL: all). */
static Kernel *compile(Comp *c, Arena *A, const Src *src, const Kernel *gk, const CompOpts *co, const char *stop) {
  memset(c, 0, sizeof *c);
  c->A = A;
  c->src = *src;
  c->o = *co;
  return pass_pipeline_from(c, gk, &(PipeOpts){.stop_after = stop});
}

static bool variant_opts(const char *v, CompOpts *co) {
  *co = (CompOpts){.split = -1, .target = -1};
  char a[64], b[64];
  if (!v) return false;
  if (!strncmp(v, "none@", 5)) {
    snprintf(b, sizeof b, "--target=%s", v + 5);
    return ir_comp_flag(co, "--split=none") && ir_comp_flag(co, b);
  }
  snprintf(a, sizeof a, "--split=%s", v);
  return ir_comp_flag(co, a);
}

/* ---- the picture as text ------------------------------------------------------------------------ */

enum { GRID_ROWS = 48, GRID_COLS = 64 };          /* the largest text picture, in characters */
static const char grid_ch[C_N] = {[C_OK] = 'o', [C_UNWRITTEN] = '.', [C_DIFF] = 'X', [C_MISSING] = 'M', [C_EXTRA] = 'E'};
static int grid_rank(int cls) { return cls == C_DIFF ? 4 : cls == C_MISSING ? 3 : cls == C_EXTRA ? 2 : cls == C_OK; }

/* The picture of an output as text, for a report pasted as plain markdown: a
 * character per element (o ok, . not stored, X another value, M canary for a
 * value, E a value for the canary), '|' and '-' where the lanes of one store
 * meet. A tile larger than GRID_ROWS x GRID_COLS is drawn in blocks, each the
 * worst of its elements, without the lane boundary. malloc'd. */
static char *text_grid(const Cell *cell, int R, int C) {
  int br = (R + GRID_ROWS - 1) / GRID_ROWS, bc = (C + GRID_COLS - 1) / GRID_COLS;
  int gr = (R + br - 1) / br, gc = (C + bc - 1) / bc;
  bool lanes = br == 1 && bc == 1;
  /* separators after column c / row r where two lanes of one store meet */
  bool *vsep = calloc((size_t)C + 1, 1), *hsep = calloc((size_t)R + 1, 1);
  if (!vsep || !hsep) die("out of memory");
  for (int r = 0; r < R && lanes; r++)
    for (int c = 0; c < C; c++) {
      const Cell *x = &cell[(size_t)r * C + c];
      const Cell *e = c + 1 < C ? x + 1 : NULL, *d = r + 1 < R ? x + C : NULL;
      if (x->lane < 0) continue;
      if (e && e->lane >= 0 && e->lane != x->lane && e->store == x->store) vsep[c] = true;
      if (d && d->lane >= 0 && d->lane != x->lane && d->store == x->store) hsep[r] = true;
    }
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  if (!f) die("out of memory");
  if (!lanes) fprintf(f, "(each character: a %dx%d block, the worst of its elements)\n", br, bc);
  char num[16];
  int w = snprintf(num, sizeof num, "%d", R - 1);
  /* column numbers above every 8th column, where they fit */
  char *head = malloc((size_t)2 * gc + 16);
  if (!head) die("out of memory");
  int hw = 0;
  for (int x = 0; x < gc; x++) hw += 1 + (lanes && vsep[x]);
  memset(head, ' ', (size_t)hw + 12);
  for (int x = 0, at = 0, free_at = 0; x < gc; at += 1 + (lanes && vsep[x]), x++)
    if (x % 8 == 0 && at >= free_at) {
      free_at = at + snprintf(head + at, 12, "%d", x * bc) + 1;
      head[free_at - 1] = ' ';
      if (free_at - 1 > hw) hw = free_at - 1;
    }
  while (hw > 0 && head[hw - 1] == ' ') hw--;
  fprintf(f, "%*s %.*s\n", w, "", hw, head);
  free(head);
  for (int y = 0; y < gr; y++) {
    fprintf(f, "%*d ", w, y * br);
    for (int x = 0; x < gc; x++) {
      int best = C_UNWRITTEN;
      for (int r = y * br; r < (y + 1) * br && r < R; r++)
        for (int c = x * bc; c < (x + 1) * bc && c < C; c++)
          if (grid_rank(cell[(size_t)r * C + c].cls) > grid_rank(best)) best = cell[(size_t)r * C + c].cls;
      fputc(grid_ch[best], f);
      if (lanes && vsep[x]) {
        const Cell *a = &cell[(size_t)y * C + x];
        fputc(x + 1 < C && a->lane >= 0 && a[1].lane >= 0 && a[1].lane != a->lane && a[1].store == a->store ? '|' : ' ', f);
      }
    }
    fputc('\n', f);
    if (lanes && hsep[y]) {
      fprintf(f, "%*s ", w, "");
      for (int x = 0; x < gc; x++) {
        const Cell *a = &cell[(size_t)y * C + x], *b = y + 1 < R ? a + C : NULL;
        fputc(b && a->lane >= 0 && b->lane >= 0 && a->lane != b->lane && a->store == b->store ? '-' : ' ', f);
        if (vsep[x]) fputc(' ', f);
      }
      fputc('\n', f);
    }
  }
  fclose(f);
  free(vsep), free(hsep);
  return out;
}

/* ---- the axis the lanes own in a stored tile ------------------------------------------------- */

/* The statement of body b (nested bodies too) that defines v, or whose call sits at offset off. */
static const Stmt *find_stmt(const Body *b, const Var *v, int off) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k == S_OP && (v ? s->dst == v : s->rhs.k == A_CALL && s->rhs.call->loc.off == off)) return s;
    const Stmt *t = find_stmt(&s->body, v, off);
    if (!t) t = find_stmt(&s->other, v, off);
    if (t) return t;
  }
  return NULL;
}

/* The split axis of the tile an argument computes, from the variant's: each
 * transpose on the way from its source moves it (auto_split's rule; the first
 * operand is followed, since tiles halved on different axes never meet). */
static int arg_axis(const Kernel *k, const Arg *a, int axis, int depth) {
  for (; depth < 256; depth++) {
    if (a->k == A_VAR) {
      const Stmt *d = a->var ? find_stmt(&k->body, a->var, -1) : NULL;
      if (!d) return axis;
      a = &d->rhs;
      continue;
    }
    if (a->k != A_CALL || !a->call->nargs) return axis;
    if (ir_ops[a->call->op].kind == K_TRANS) axis = !axis;
    a = &a->call->args[0];
  }
  return axis;
}

/* The axis the lanes own in the tile the store at source offset off writes. */
static int store_axis(const Kernel *gk, int off, int axis) {
  const Stmt *s = find_stmt(&gk->body, NULL, off);
  return s && s->rhs.call->nargs >= 3 ? arg_axis(gk, &s->rhs.call->args[2], axis, 0) : axis;
}

/* Compare the outputs of the golden run g (kernel gk) and the variant's run s (kernel k). */
static void compare(Rep *r, Sim *g, const Kernel *gk, Sim *s, const Kernel *k) {
  r->out = calloc((size_t)gk->np, sizeof *r->out);
  if (!r->out) die("out of memory");
  for (int i = 0; i < gk->np; i++) {
    const Var *gv = gk->params[i];
    if (gv->dir == DIR_IN) continue;
    Gm *a = sim_gm(g, gv), *b = sim_gm(s, k->params[i]);
    OutDiff *od = &r->out[r->nout];
    put(od->name, sizeof od->name, gv->name);
    od->dt = gv->dt, od->rows = a->rows, od->cols = a->cols;
    uint32_t can = sim_canary(gv->dt);
    Cell *cell = calloc((size_t)a->rows * a->cols + 1, sizeof *cell);
    if (!cell) die("out of memory");
    for (int y = 0; y < a->rows; y++)
      for (int x = 0; x < a->cols; x++) {
        Cell *ce = &cell[(size_t)y * a->cols + x];
        uint32_t e = sim_gm_bits(a, y, x), v = sim_gm_bits(b, y, x);
        uint64_t o = a->orig ? a->orig[(size_t)y * a->cols + x] : 0;
        ce->written = o ? 1 : e != can;
        ce->store = o ? SIM_ORIGIN_STORE(o) : -1;
        ce->lane = -1;
        if (r->axis >= 0 && (o || !a->orig)) {
          int ax = o ? store_axis(gk, (int)ce->store, r->axis) : r->axis;   /* a transposed tile: the other axis */
          int p = o ? SIM_ORIGIN_FIELD(o, ax) : ax ? x : y;
          int ext = o ? SIM_ORIGIN_FIELD(o, 2 + ax) : ax ? a->cols : a->rows;
          ce->lane = p >= (ext + 1) / 2;        /* lane 0 takes the larger half (docs/split.md) */
        }
        if (e == v) {
          ce->cls = e == can ? C_UNWRITTEN : C_OK;
          continue;
        }
        od->differ++;
        ce->cls = v == can ? C_MISSING : e == can ? C_EXTRA : C_DIFF;
        od->missing += v == can, od->extra += e == can;
        if (od->nfirst < FIRST_N) od->first[od->nfirst++] = (Elt){y, x, e, v};
      }
    if (od->differ) draw(od, cell, nz(r->f.variant)), od->grid = text_grid(cell, a->rows, a->cols);
    free(cell);
    r->nout++;
  }
}

static void rerun(Rep *r) {
  if (strcmp(nz(r->f.kind), "miscompile")) {
    put(r->rerun_note, sizeof r->rerun_note, "not a miscompile: no output comparison");
    return;
  }
  if (!strcmp(r->backend, "ptoas") || !strcmp(r->backend, "pypto")) {
    put(r->rerun_note, sizeof r->rerun_note,
        "a real back end finding: its outputs come from the real tools; run the reproduce command to see them");
    return;
  }
  uint32_t bugs = 0;
  char err[200];
  CompOpts co;
  if (!ir_bugs_parse(r->bugs, &bugs, err, sizeof err) || !variant_opts(r->f.variant, &co)) {
    snprintf(r->rerun_note, sizeof r->rerun_note, "cannot re-run: flags '%s', variant '%s'", nz(r->f.flags),
             nz(r->f.variant));
    return;
  }
  co.bugs = bugs;
  r->axis = co.split == MODE_NONE || co.split < 0 ? -1 : MODE_AXIS(co.split);
  Arena *A = ir_arena_new();
  Src src = {"finding", r->kernel, strlen(r->kernel)};
  Comp c = {.A = A, .src = src, .o = {.split = -1, .target = -1}};
  Kernel *gk = ir_front(&c);
  Sim *g0 = NULL, *g = NULL, *s = NULL;
  if (!gk) {
    snprintf(r->rerun_note, sizeof r->rerun_note, "the kernel no longer parses: %s", c.diag.msg);
    goto out;
  }
  g0 = sim_new(gk, &(SimOpts){.seed = r->f.seed});
  g = sim_new(gk, &(SimOpts){.inputs = g0, .origins = true});
  if (!(gk->expanded ? sim_run_machine(g, 0) : sim_run_reference(g))) {
    snprintf(r->rerun_note, sizeof r->rerun_note, "the golden run fails: %s", sim_diag(g)->msg);
    goto out;
  }
  Comp vc;
  Kernel *k = compile(&vc, A, &src, gk, &co, NULL);
  if (!k) {
    snprintf(r->rerun_note, sizeof r->rerun_note, "the variant no longer compiles: %s %s", ir_diag_name(vc.diag.code),
             vc.diag.msg);
    goto out;
  }
  s = sim_new(k, &(SimOpts){.seed = r->f.seed, .inputs = g0});
  uint64_t sched = strncmp(r->schedule, "random", 6) ? 0 : r->sched_seed;
  if (!(k->expanded ? sim_run_machine(s, sched) : sim_run_reference(s))) {
    snprintf(r->rerun_note, sizeof r->rerun_note, "the variant's run stops with %s: %s", ir_diag_name(sim_diag(s)->code),
             sim_diag(s)->msg);
    goto out;
  }
  r->rerun = true;
  compare(r, g, gk, s, k);
  int64_t n = 0;
  for (int i = 0; i < r->nout; i++) n += r->out[i].differ;
  snprintf(r->rerun_note, sizeof r->rerun_note, "re-run of variant %s, schedule %s, input seed %llu: %lld elements differ",
           nz(r->f.variant), r->schedule, (unsigned long long)r->f.seed, (long long)n);
out:
  sim_free(s);
  sim_free(g);
  sim_free(g0);
  ir_arena_free(A);
}

/* ---- the IR diff around the first bad pass ---------------------------------------------------- */

typedef struct {
  const char **l;
  int n;
} Lines;

static Lines split_lines(char *t) {
  Lines L = {0};
  int cap = 0;
  for (char *p = t; p && *p;) {
    if (L.n == cap) {
      cap = cap ? 2 * cap : 64;
      L.l = realloc(L.l, (size_t)cap * sizeof *L.l);
      if (!L.l) die("out of memory");
    }
    L.l[L.n++] = p;
    char *e = strchr(p, '\n');
    if (!e) break;
    *e = 0;
    p = e + 1;
  }
  return L;
}

/* Lines equal up to their indentation (auto_split wraps a body in a lane loop). */
static bool same_line(const char *a, const char *b) {
  while (*a == ' ') a++;
  while (*b == ' ') b++;
  return !strcmp(a, b);
}

/* A unified diff of a and b (3 lines of context, indentation ignored: a
 * context line is shown as it is in b), malloc'd text. Common
 * prefix and suffix are cut off first; the rest is aligned by a longest common
 * subsequence table (capped: beyond it, all removed then all added). */
static char *line_diff(const Lines *a, const Lines *b, const char *na, const char *nb) {
  int p = 0, sa = a->n, sb = b->n;
  while (p < sa && p < sb && same_line(a->l[p], b->l[p])) p++;
  while (sa > p && sb > p && same_line(a->l[sa - 1], b->l[sb - 1])) sa--, sb--;
  int n = sa - p, m = sb - p;
  /* ops over the middle: ' ' same, '-' a only, '+' b only, with their line indexes */
  int cap = a->n + b->n + 1, nops = 0;
  char *op = malloc((size_t)cap);
  int *ia = malloc((size_t)cap * sizeof *ia), *ib = malloc((size_t)cap * sizeof *ib);
  if (!op || !ia || !ib) die("out of memory");
  for (int i = 0; i < p; i++) op[nops] = ' ', ia[nops] = i, ib[nops++] = i;
  if ((int64_t)(n + 1) * (m + 1) <= MAX_DIFF_CELLS) {
    int *T = calloc((size_t)(n + 1) * (m + 1), sizeof *T);   /* T[i][j]: LCS of a[i..], b[j..] */
    if (!T) die("out of memory");
#define AT(i, j) T[(size_t)(i) * (m + 1) + (j)]
    for (int i = n - 1; i >= 0; i--)
      for (int j = m - 1; j >= 0; j--)
        AT(i, j) = same_line(a->l[p + i], b->l[p + j]) ? AT(i + 1, j + 1) + 1
                   : AT(i + 1, j) >= AT(i, j + 1)    ? AT(i + 1, j)
                                                     : AT(i, j + 1);
    int i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && same_line(a->l[p + i], b->l[p + j])) op[nops] = ' ', ia[nops] = p + i++, ib[nops++] = p + j++;
      else if (i < n && (j == m || AT(i + 1, j) >= AT(i, j + 1))) op[nops] = '-', ia[nops] = p + i++, ib[nops++] = -1;
      else op[nops] = '+', ia[nops] = -1, ib[nops++] = p + j++;
    }
#undef AT
    free(T);
  } else {
    for (int i = 0; i < n; i++) op[nops] = '-', ia[nops] = p + i, ib[nops++] = -1;
    for (int j = 0; j < m; j++) op[nops] = '+', ia[nops] = -1, ib[nops++] = p + j;
  }
  for (int i = 0; i < a->n - sa; i++) op[nops] = ' ', ia[nops] = sa + i, ib[nops++] = sb + i;
  /* hunks: runs of changes with CONTEXT lines around, merged when close */
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) die("out of memory");
  fprintf(f, "--- %s\n+++ %s\n", na, nb);
  int k = 0;
  while (k < nops) {
    while (k < nops && op[k] == ' ') k++;
    if (k == nops) break;
    int s = k - CONTEXT < 0 ? 0 : k - CONTEXT, e = k;
    for (;;) {                                  /* extend e over changes and short gaps */
      while (e < nops && op[e] != ' ') e++;
      int g = e;
      while (g < nops && op[g] == ' ') g++;
      if (g < nops && g - e <= 2 * CONTEXT) e = g;
      else break;
    }
    int end = e + CONTEXT > nops ? nops : e + CONTEXT;
    int a0 = 0, b0 = 0, ac = 0, bc = 0;
    for (int q = s; q < end; q++) {
      if (op[q] != '+' && !ac++) a0 = ia[q];
      if (op[q] != '-' && !bc++) b0 = ib[q];
    }
    if (!ac) a0 = s < nops && ia[s] >= 0 ? ia[s] : 0;
    if (!bc) b0 = s < nops && ib[s] >= 0 ? ib[s] : 0;
    fprintf(f, "@@ -%d,%d +%d,%d @@\n", ac ? a0 + 1 : a0, ac, bc ? b0 + 1 : b0, bc);
    for (int q = s; q < end; q++) fprintf(f, "%c%s\n", op[q], op[q] != '-' ? b->l[ib[q]] : a->l[ia[q]]);
    k = end;
  }
  fclose(f);
  free(op), free(ia), free(ib);
  return text;
}

char *rep_line_diff(const char *a, const char *b, const char *na, const char *nb) {
  char *ta = strdup(a), *tb = strdup(b);
  if (!ta || !tb) die("out of memory");
  Lines la = split_lines(ta), lb = split_lines(tb);
  char *d = line_diff(&la, &lb, na, nb);
  free(la.l), free(lb.l), free(ta), free(tb);
  return d;
}

static void ir_diff(Rep *r) {
  const char *bad = r->f.first_bad_pass;
  if (!bad || !strcmp(bad, "-")) {
    put(r->ir_note, sizeof r->ir_note, "no first bad pass recorded");
    return;
  }
  if (!strcmp(bad, "sim")) {                    /* oracle.c sim_at_fault: no pass to diff */
    put(r->ir_note, sizeof r->ir_note,
        "first bad pass 'sim': the simulator's self-check blamed the simulator (the detail says which check)");
    return;
  }
  if (!strcmp(r->backend, "pypto")) return;     /* PyPTO's own pass dumps: pypto_part */
  if (!strcmp(r->backend, "ptoas") || !strcmp(nz(r->f.kind), "crash")) {
    put(r->ir_note, sizeof r->ir_note, "not compiled here (a crash, or the real back end)");
    return;
  }
  int p = 0;
  while (ir_pass_names[p] && strcmp(ir_pass_names[p], bad)) p++;
  CompOpts co;
  uint32_t bugs = 0;
  char err[200];
  if (!ir_pass_names[p] || p < 2 || !ir_bugs_parse(r->bugs, &bugs, err, sizeof err) || !variant_opts(r->f.variant, &co)) {
    snprintf(r->ir_note, sizeof r->ir_note, "no IR diff for first bad pass '%s'", bad);
    return;
  }
  co.bugs = bugs;
  put(r->ir_before_pass, sizeof r->ir_before_pass, ir_pass_names[p - 1]);
  put(r->ir_after_pass, sizeof r->ir_after_pass, bad);
  Arena *A = ir_arena_new();
  Src src = {"finding", r->kernel, strlen(r->kernel)};
  Comp c = {.A = A, .src = src, .o = {.split = -1, .target = -1}};
  Kernel *gk = ir_front(&c);
  Comp c1, c2;
  Kernel *k1 = gk ? compile(&c1, A, &src, gk, &co, ir_pass_names[p - 1]) : NULL;
  Kernel *k2 = k1 ? compile(&c2, A, &src, gk, &co, bad) : NULL;
  if (!k1) {
    snprintf(r->ir_note, sizeof r->ir_note, "the kernel does not compile up to %s", ir_pass_names[p - 1]);
  } else if (!k2) {
    snprintf(r->ir_note, sizeof r->ir_note, "%s stops the compilation: %s %s", bad, ir_diag_name(c2.diag.code), c2.diag.msg);
  } else {
    char *t1 = strdup(ir_print_str(A, k1)), *t2 = strdup(ir_print_str(A, k2));
    if (!t1 || !t2) die("out of memory");
    Lines a = split_lines(t1), b = split_lines(t2);
    char na[64], nb[64];
    snprintf(na, sizeof na, "after %s", ir_pass_names[p - 1]);
    snprintf(nb, sizeof nb, "after %s (indentation ignored)", bad);
    r->ir_diff = line_diff(&a, &b, na, nb);
    free(a.l), free(b.l), free(t1), free(t2);
  }
  ir_arena_free(A);
}

/* ---- the PyPTO back end ------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A whole small file (at most 4 MiB), malloc'd, or NULL. */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4u << 20;
  char *t = malloc(cap + 1);
  size_t n = t ? fread(t, 1, cap, f) : 0;
  fclose(f);
  if (t) t[n] = 0;
  return t;
}

/* PyPTO's own IR before and after the finding's pass (its dumps NN_after_PASS.py
 * in dir/out/passes_dump), as a line diff. */
static void pypto_dumps(Rep *r, const char *dir) {
  const char *bad = r->f.first_bad_pass && strcmp(r->f.first_bad_pass, "-") ? r->f.first_bad_pass : r->f.pass;
  put(r->ir_note, sizeof r->ir_note, "no PyPTO pass dump to compare");
  if (!bad || !strcmp(bad, "-")) return;
  char pd[1200], want[100];
  snprintf(pd, sizeof pd, "%s/out/passes_dump", dir);
  snprintf(want, sizeof want, "_after_%s.py", bad);
  DIR *dd = opendir(pd);
  if (!dd) return;
  char prev[256] = "", hit[256] = "", last[256] = "";
  char **names = NULL;
  int n = 0;
  for (struct dirent *e; (e = readdir(dd));)
    if (strstr(e->d_name, ".py") && e->d_name[0] >= '0' && e->d_name[0] <= '9') {
      names = realloc(names, sizeof *names * (size_t)(n + 1));
      if (!names || !(names[n++] = strdup(e->d_name))) die("out of memory");
    }
  closedir(dd);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  for (int i = 0; i < n && !hit[0]; i++) {
    const char *u = strstr(names[i], "_after_");
    if (u && !strcmp(u, want)) snprintf(hit, sizeof hit, "%s", names[i]), snprintf(prev, sizeof prev, "%s", last);
    snprintf(last, sizeof last, "%s", names[i]);
  }
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  if (!hit[0] || !prev[0]) return;
  char pa[1500], pb[1500];
  snprintf(pa, sizeof pa, "%s/%s", pd, prev);
  snprintf(pb, sizeof pb, "%s/%s", pd, hit);
  char *a = read_text(pa), *b = read_text(pb);
  if (a && b) {
    snprintf(r->ir_before_pass, sizeof r->ir_before_pass, "%.31s", prev);
    snprintf(r->ir_after_pass, sizeof r->ir_after_pass, "%.31s", hit);
    r->ir_diff = rep_line_diff(a, b, prev, hit);
  }
  free(a), free(b);
}

/* The program ptoc translates the kernel into for the finding's variant, and for
 * each build named (RepOpts.pypto) whether the finding's signature reproduces
 * there: its variant checked alone, input seed as the campaign's. */
static void pypto_part(Rep *r, const char *list) {
  if (strcmp(r->backend, "pypto")) return;
  int v = orc_pypto_variant(r->f.variant);
  PyptoBuild b[ORC_PYPTO_MAXB];
  char why[300];
  int nb = orc_pypto_builds(list, b, ORC_PYPTO_MAXB, why, sizeof why);
  Arena *A = ir_arena_new();
  Src src = {"finding", r->kernel, strlen(r->kernel)};
  Comp c = {.A = A, .src = src, .o = {.split = -1, .target = -1}};
  Kernel *gk = ir_front(&c);
  if (!gk || v < 0) {
    snprintf(r->program_note, sizeof r->program_note, "no program: %s",
             !gk ? "the kernel no longer parses" : "the finding's variant is not a PyPTO one");
  } else {
    const char *at = strchr(r->f.variant, '@');
    int split = !strncmp(r->f.variant + 6, "up_down", 7) ? MODE_UD : !strncmp(r->f.variant + 6, "left_right", 10) ? MODE_LR
                                                                                                                   : MODE_NONE;
    Comp e = {.A = A, .src = src, .o = {.split = -1, .target = -1}};
    PyOpts po = {.split = split, .target = at && !strcmp(at, "@a5") ? TGT_A5 : TGT_A2A3, .caps = nb > 0 ? b[0].caps : 0};
    const char *text = ir_emit_pypto(&e, gk, &po);
    if (text) r->program = strdup(text);
    else putf(r->program_note, sizeof r->program_note, "ptoc no longer translates it: %s %s",
                  ir_diag_name(e.diag.code), e.diag.msg);
  }
  ir_arena_free(A);
  if (nb < 0) {
    putf(r->pypto_env, sizeof r->pypto_env, "not found (%s)", why);
    return;
  }
  RealTools t;
  bool have_t = orc_real_find(&t, NULL, NULL);
  for (int k = 0; k < nb && v >= 0; k++) {
    snprintf(r->build[r->nbuild], sizeof r->build[0], "%.12s%s%s%s", b[k].commit, *b[k].date ? " (" : "", b[k].date,
             *b[k].date ? ")" : "");
    char *res = r->repro_on[r->nbuild++];
    PyDrv *d = orc_pypto_open(&b[k], 0, why, sizeof why);
    if (!d) {
      putf(res, 300, "not checked: %s", why);
      continue;
    }
    if (!k) snprintf(r->pypto_env, sizeof r->pypto_env, "%s", orc_pypto_hello(d));
    PyCase pc = {.src = &src, .input_seed = r->f.seed, .only = v};
    orc_pypto_check(d, have_t ? &t : NULL, &pc, 1, &(RealOpts){.jobs = 1}, NULL);
    if (!k) pypto_dumps(r, orc_pypto_last_dir(d));
    orc_pypto_close(d);
    const VarResult *hit = NULL, *other = NULL;
    for (int i = 0; i < pc.n; i++) {
      char sig[200];
      orc_signature(&pc.r[i], sig, sizeof sig);
      if (orc_is_finding(pc.r[i].out) && !strcmp(sig, nz(r->f.signature))) hit = &pc.r[i];
      else if (!other && pc.r[i].out != OUT_OK) other = &pc.r[i];
    }
    if (pc.invalid) snprintf(res, 300, "not checked: the kernel is invalid");
    else if (hit) snprintf(res, 300, "reproduces: %.260s", hit->detail);
    else if (other) snprintf(res, 300, "does not reproduce; check (%c) gives %s %s: %.200s", other->check,
                             orc_outcome_name(other->out), other->code, other->detail);
    else snprintf(res, 300, "does not reproduce: every check of %s passes", r->f.variant);
  }
}

/* ---- the environment ---------------------------------------------------------------------------- */

static void environment(Rep *r) {
  struct utsname u;
  if (!uname(&u)) snprintf(r->host, sizeof r->host, "%s %s %s %s", u.nodename, u.sysname, u.release, u.machine);
  else put(r->host, sizeof r->host, "unknown");
#if defined __clang__
  snprintf(r->compiler, sizeof r->compiler, "%s", __VERSION__);  /* "clang version ..." */
#elif defined __VERSION__
  snprintf(r->compiler, sizeof r->compiler, "gcc %s", __VERSION__);
#else
  put(r->compiler, sizeof r->compiler, "unknown");
#endif
  r->ptoas[0] = 0;
  if (!strcmp(r->backend, "ptoas") || !strcmp(r->backend, "pypto")) {
    RealTools t;
    put(r->ptoas, sizeof r->ptoas, orc_real_find(&t, NULL, NULL) ? t.version : "not found");
  }
}

/* The tools under blame and, with --bundle, the bundle (bundle.c): after pypto_part, which
 * gives a PyPTO finding its program. False when the bundle cannot be written. */
static int tools_and_bundle(Rep *r, const RepOpts *o) {
  r->ntools = rep_tools(r->backend, o->pypto, r->tools, REP_MAX_TOOLS);
  if (!o->bundle) return 0;
  char tool[200];
  snprintf(tool, sizeof tool, "ptofuzz %s (commit %s)", o->version ? o->version : "?", PTO_COMMIT);
  RepBundleOpts bo = {.dir = o->bundle, .replays = o->replays, .backend = r->backend, .bugs = r->bugs, .tool = tool,
                      .schedule = r->schedule, .title = r->title, .pypto = o->pypto, .program = r->program,
                      .program_note = r->program_note};
  int rc = rep_bundle(r->db, &r->f, &bo, &r->bundle);
  r->bundle_dir = o->bundle;
  r->bundled = rc == 0;
  return rc;
}

/* ---- values ------------------------------------------------------------------------------------- */

static void dec(Dtype dt, uint32_t bits, char *buf, size_t n) {
  if (bits == sim_canary(dt)) {
    put(buf, n, "canary");
    return;
  }
  Elem e = sim_dec(dt, bits);
  if (ir_dtype_int(dt)) snprintf(buf, n, "%d", e.i);
  else snprintf(buf, n, "%.9g", (double)e.f);
}

static void hex(Dtype dt, uint32_t bits, char *buf, size_t n) {
  snprintf(buf, n, "0x%0*x", 2 * ir_dtype_bytes(dt), bits);
}

/* ---- writers ---------------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static void put_b64(FILE *f, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    fputc(b64[v >> 18 & 63], f);
    fputc(b64[v >> 12 & 63], f);
    fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? b64[v & 63] : '=', f);
  }
}

void rep_html_text(FILE *f, const char *s) {
  for (; s && *s; s++)
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
}

static void json_str(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static const char *const sig_field[] = {"kind", "mode", "code", "op", "pass", "pattern"};
static const char *sig_value(const DbInfo *f, int i) {
  const char *v[] = {f->kind, f->mode, f->code, f->op, f->pass, f->pattern};
  return nz(v[i]);
}

static const char *kernel_label(const Rep *r) { return r->f.reduced ? "minimized kernel (reduced)" : "kernel (not reduced)"; }

/* A fenced block whose fence the text cannot close. */
static void md_block(FILE *f, const char *lang, const char *text) {
  int ticks = 3;
  for (const char *p = text; p && *p; p++) {
    int n = 0;
    while (p[n] == '`') n++;
    if (n >= ticks) ticks = n + 1;
    if (n) p += n - 1;
  }
  for (int i = 0; i < ticks; i++) fputc('`', f);
  fprintf(f, "%s\n%s", lang, text ? text : "");
  if (text && *text && text[strlen(text) - 1] != '\n') fputc('\n', f);
  for (int i = 0; i < ticks; i++) fputc('`', f);
  fputs("\n\n", f);
}

static void campaigns_text(FILE *f, const DbInfo *i) {
  for (int c = 0; c < i->ncampaigns; c++) fprintf(f, "%s%lld", c ? ", " : "", (long long)i->campaigns[c]);
  if (!i->ncampaigns) fputc('-', f);
}

/* The outputs that agree with the golden run, on one line. */
static void agreeing(FILE *f, const Rep *r) {
  int n = 0;
  for (int o = 0; o < r->nout; o++)
    if (!r->out[o].differ) fprintf(f, "%s%s", n++ ? ", " : "The outputs that agree with the golden run: ", r->out[o].name);
  if (n) fputs(".\n\n", f);
}

static void write_md(FILE *f, const Rep *r, const char *version) {
  const DbInfo *i = &r->f;
  fprintf(f, "# ptofuzz finding %lld: %s\n\n", (long long)i->id, r->title);
  fprintf(f, "| field | value |\n|---|---|\n| signature | `%s` |\n", nz(i->signature));
  for (int k = 0; k < 6; k++) fprintf(f, "| %s | `%s` |\n", sig_field[k], sig_value(i, k));
  fprintf(f, "| back end | %s |\n| variant | %s |\n| schedule | %s |\n| defects | %s |\n| first bad pass | %s |\n",
          r->backend, nz(i->variant), r->schedule, r->bugs[0] ? r->bugs : "none", nz(i->first_bad_pass));
  fprintf(f, "| hits | %lld |\n| status | %s |\n| first seen | %s |\n| last seen | %s |\n| campaigns | ", (long long)i->hits,
          nz(i->status), nz(i->first_seen), nz(i->last_seen));
  campaigns_text(f, i);
  fprintf(f, " |\n| cluster | %s |\n| summary | ", r->cluster);
  for (const char *p = nz(i->summary); *p; p++) fputs(*p == '|' ? "\\|" : *p == '\n' ? " " : (char[2]){*p, 0}, f);
  fputs(" |\n\n## Reproduce\n\n", f);
  char *cmds = NULL;
  size_t cl = 0;
  FILE *m = open_memstream(&cmds, &cl);
  for (int k = 0; k < r->nrepro; k++) fprintf(m, "%s\n", r->repro[k]);
  fclose(m);
  md_block(f, "sh", cmds);
  free(cmds);
  fprintf(f, "## The %s\n\n", kernel_label(r));
  md_block(f, "", r->kernel);
  if (!strcmp(r->backend, "pypto")) {
    fprintf(f, "## The PyPTO program (finding-%lld.py)\n\n", (long long)i->id);
    if (r->program) md_block(f, "python", r->program);
    else fprintf(f, "%s.\n\n", r->program_note);
    fputs("## Where it reproduces\n\n", f);
    for (int k = 0; k < r->nbuild; k++) fprintf(f, "- PyPTO %s: %s\n", r->build[k], r->repro_on[k]);
    if (!r->nbuild) fprintf(f, "- no PyPTO build checked: %s\n", r->pypto_env);
    fputc('\n', f);
  }
  fputs("## Outputs\n\n", f);
  fprintf(f, "%s.\n\n", r->rerun_note);
  for (int o = 0; o < r->nout; o++) {
    const OutDiff *od = &r->out[o];
    if (!od->differ) continue;
    fprintf(f, "### %s: %s[%d, %d], %lld differing elements", od->name, ir_dtype_name(od->dt), od->rows, od->cols,
            (long long)od->differ);
    if (od->differ)
      fprintf(f, " (%lld canary where a value belongs, %lld value where the canary belongs)", (long long)od->missing,
              (long long)od->extra);
    fputs("\n\n", f);
    if (!od->differ) continue;
    if (od->nfirst < od->differ)
      fprintf(f, "The first %d of %lld differing elements, in row-major order:\n\n", od->nfirst, (long long)od->differ);
    fputs("| index | expected | actual | expected (hex) | actual (hex) |\n|---|---|---|---|---|\n", f);
    for (int e = 0; e < od->nfirst; e++) {
      char ed[40], ad[40], eh[20], ah[20];
      dec(od->dt, od->first[e].exp, ed, sizeof ed), dec(od->dt, od->first[e].act, ad, sizeof ad);
      hex(od->dt, od->first[e].exp, eh, sizeof eh), hex(od->dt, od->first[e].act, ah, sizeof ah);
      fprintf(f, "| [%d, %d] | %s | %s | %s | %s |\n", od->first[e].r, od->first[e].c, ed, ad, eh, ah);
    }
    if (od->grid) {
      fprintf(f, "\nThe tile, a character per element (o ok, . not stored, X another value, M canary where a value "
                 "belongs, E a value where the canary belongs; | and - where the lanes meet):\n\n");
      md_block(f, "text", od->grid);
    }
    if (od->file[0]) {
      const char *base = strrchr(od->file, '/');
      fprintf(f, "The same as a picture: `%s`, written beside this report (attach it to the issue).\n",
              base ? base + 1 : od->file);
    }
    fputc('\n', f);
  }
  agreeing(f, r);
  if (r->nout) {
    fputs("Picture legend (the labelled swatches below each picture):\n\n", f);
    for (int k = 0; k < NLEGEND; k++) fprintf(f, "- %s: %s\n", pal[legend_order[k]].name, pal[legend_order[k]].meaning);
    fputc('\n', f);
  }
  fprintf(f, "## IR before and after the first bad pass\n\n");
  if (r->ir_diff) md_block(f, "diff", r->ir_diff);
  else fprintf(f, "%s.\n\n", r->ir_note);
  fprintf(f, "## Environment\n\n- tool: ptofuzz %s (commit %s)\n- host: %s\n- ptofuzz built by: %s\n- SQLite: %s\n- libpng: %s\n",
          version, PTO_COMMIT, r->host, r->compiler, db_sqlite_version(), png_get_libpng_ver(NULL));
  for (int k = 0; k < r->ntools; k++) fprintf(f, "- %s\n", r->tools[k]);
  if (r->pypto_env[0]) fprintf(f, "- PyPTO driver: %s\n", r->pypto_env);
  if (r->bundled) {
    fprintf(f, "\n## Bundle\n\n`%s`: reproduces %d of %d (replays of its run.sh); the first: %s\n\n", r->bundle_dir,
            r->bundle.reproduced, r->bundle.replays, r->bundle.outcome);
    if (r->bundle.first_error) md_block(f, "", r->bundle.first_error);
  }
}

static void html_pre(FILE *f, const char *cls, const char *text) {
  fprintf(f, "<pre%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
  rep_html_text(f, text);
  fputs("</pre>\n", f);
}

static void rgb(FILE *f, Colour c) { fprintf(f, "#%02x%02x%02x", pal[c].rgb[0], pal[c].rgb[1], pal[c].rgb[2]); }

static void write_html(FILE *f, const Rep *r, const char *version) {
  const DbInfo *i = &r->f;
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
  fprintf(f, "ptofuzz finding %lld: ", (long long)i->id);
  rep_html_text(f, r->title);
  fputs("</title>\n<style>body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left}"
        "pre{background:#f6f6f6;padding:6px;overflow-x:auto}.sw{display:inline-block;width:1em;height:1em;"
        "border:1px solid #888;vertical-align:middle;margin-right:4px}.add{color:#070}.del{color:#a00}</style>\n"
        "</head><body>\n", f);
  fprintf(f, "<h1 id=\"title\">ptofuzz finding %lld: ", (long long)i->id);
  rep_html_text(f, r->title);
  fputs("</h1>\n<table id=\"fields\">\n<tr><th>signature</th><td><code>", f);
  rep_html_text(f, nz(i->signature));
  fputs("</code></td></tr>\n", f);
  for (int k = 0; k < 6; k++) {
    fprintf(f, "<tr><th>%s</th><td><code>", sig_field[k]);
    rep_html_text(f, sig_value(i, k));
    fputs("</code></td></tr>\n", f);
  }
  const char *rows[][2] = {{"back end", r->backend},       {"variant", nz(i->variant)}, {"schedule", r->schedule},
                           {"defects", r->bugs[0] ? r->bugs : "none"}, {"first bad pass", nz(i->first_bad_pass)},
                           {"status", nz(i->status)},      {"first seen", nz(i->first_seen)},
                           {"last seen", nz(i->last_seen)}, {"summary", nz(i->summary)}, {"cluster", r->cluster}};
  for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
    fprintf(f, "<tr><th>%s</th><td>", rows[k][0]);
    rep_html_text(f, rows[k][1]);
    fputs("</td></tr>\n", f);
  }
  fprintf(f, "<tr><th>hits</th><td>%lld</td></tr>\n<tr><th>campaigns</th><td>", (long long)i->hits);
  campaigns_text(f, i);
  fputs("</td></tr>\n</table>\n<h2>Reproduce</h2>\n<pre id=\"repro\">", f);
  for (int k = 0; k < r->nrepro; k++) rep_html_text(f, r->repro[k]), fputc('\n', f);
  fputs("</pre>\n<h2>The ", f);
  rep_html_text(f, kernel_label(r));
  fputs("</h2>\n", f);
  html_pre(f, "kernel", r->kernel);
  fputs("<h2>Outputs</h2>\n<p>", f);
  rep_html_text(f, r->rerun_note);
  fputs(".</p>\n", f);
  for (int o = 0; o < r->nout; o++) {
    const OutDiff *od = &r->out[o];
    if (!od->differ) continue;
    fputs("<h3>", f);
    rep_html_text(f, od->name);
    fprintf(f, ": %s[%d, %d], %lld differing elements", ir_dtype_name(od->dt), od->rows, od->cols, (long long)od->differ);
    if (od->differ)
      fprintf(f, " (%lld canary where a value belongs, %lld value where the canary belongs)", (long long)od->missing,
              (long long)od->extra);
    fputs("</h3>\n", f);
    if (!od->differ) continue;
    fputs("<table class=\"elements\"><tr><th>index</th><th>expected</th><th>actual</th><th>expected (hex)</th>"
          "<th>actual (hex)</th></tr>\n", f);
    for (int e = 0; e < od->nfirst; e++) {
      char ed[40], ad[40], eh[20], ah[20];
      dec(od->dt, od->first[e].exp, ed, sizeof ed), dec(od->dt, od->first[e].act, ad, sizeof ad);
      hex(od->dt, od->first[e].exp, eh, sizeof eh), hex(od->dt, od->first[e].act, ah, sizeof ah);
      fprintf(f, "<tr><td>[%d, %d]</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", od->first[e].r,
              od->first[e].c, ed, ad, eh, ah);
    }
    fputs("</table>\n", f);
    if (od->png) {
      fputs("<p><img class=\"tile\" alt=\"", f);
      rep_html_text(f, od->name);
      fputs(": a cell per element\" src=\"data:image/png;base64,", f);
      put_b64(f, od->png, od->pnglen);
      fputs("\"></p>\n", f);
    }
  }
  fputs("<p>", f);
  agreeing(f, r);
  fputs("</p>\n", f);
  if (r->nout) {
    fputs("<ul id=\"legend\">\n", f);
    for (int k = 0; k < NLEGEND; k++) {
      fputs("<li><span class=\"sw\" style=\"background:", f);
      rgb(f, legend_order[k]);
      fprintf(f, "\"></span>%s</li>\n", pal[legend_order[k]].meaning);
    }
    fputs("</ul>\n", f);
  }
  fputs("<h2>IR before and after the first bad pass</h2>\n", f);
  if (r->ir_diff) {
    fputs("<pre id=\"irdiff\">", f);
    char *t = strdup(r->ir_diff);
    if (!t) die("out of memory");
    for (char *l = strtok(t, "\n"); l; l = strtok(NULL, "\n")) {
      const char *cls = *l == '+' && l[1] != '+' ? "add" : *l == '-' && l[1] != '-' ? "del" : NULL;
      if (cls) fprintf(f, "<span class=\"%s\">", cls);
      rep_html_text(f, l);
      fputs(cls ? "</span>\n" : "\n", f);
    }
    free(t);
    fputs("</pre>\n", f);
  } else {
    fputs("<p>", f);
    rep_html_text(f, r->ir_note);
    fputs(".</p>\n", f);
  }
  fputs("<h2>Environment</h2>\n<ul id=\"env\">", f);
  fprintf(f, "<li>tool: ptofuzz %s (commit %s)</li><li>host: ", version, PTO_COMMIT);
  rep_html_text(f, r->host);
  fputs("</li><li>ptofuzz built by: ", f);
  rep_html_text(f, r->compiler);
  fprintf(f, "</li><li>SQLite: %s</li><li>libpng: %s</li>", db_sqlite_version(), png_get_libpng_ver(NULL));
  for (int k = 0; k < r->ntools; k++) {
    fputs("<li>", f);
    rep_html_text(f, r->tools[k]);
    fputs("</li>", f);
  }
  fputs("</ul>\n", f);
  if (r->bundled) {
    fputs("<h2>Bundle</h2>\n<p><code>", f);
    rep_html_text(f, r->bundle_dir);
    fprintf(f, "</code>: reproduces %d of %d (replays of its run.sh); the first: ", r->bundle.reproduced, r->bundle.replays);
    rep_html_text(f, r->bundle.outcome);
    fputs("</p>\n", f);
    if (r->bundle.first_error) html_pre(f, "error", r->bundle.first_error);
  }
  fputs("</body></html>\n", f);
}

static void json_kv(FILE *f, const char *k, const char *v, bool comma) {
  json_str(f, k);
  fputc(':', f);
  json_str(f, v);
  if (comma) fputc(',', f);
  fputc('\n', f);
}

static void write_json(FILE *f, const Rep *r, const char *version) {
  const DbInfo *i = &r->f;
  fprintf(f, "{\n\"id\":%lld,\n", (long long)i->id);
  json_kv(f, "title", r->title, true);
  json_kv(f, "signature", i->signature, true);
  fputs("\"fields\":{", f);
  for (int k = 0; k < 6; k++) {
    json_str(f, sig_field[k]);
    fputc(':', f);
    json_str(f, sig_value(i, k));
    if (k < 5) fputc(',', f);
  }
  fputs("},\n", f);
  json_kv(f, "kind", nz(i->kind), true);
  json_kv(f, "backend", r->backend, true);
  json_kv(f, "variant", i->variant, true);
  json_kv(f, "schedule", r->schedule, true);
  json_kv(f, "defects", r->bugs, true);
  json_kv(f, "first_bad_pass", i->first_bad_pass, true);
  fprintf(f, "\"hits\":%lld,\n", (long long)i->hits);
  json_kv(f, "status", i->status, true);
  json_kv(f, "first_seen", i->first_seen, true);
  json_kv(f, "last_seen", i->last_seen, true);
  json_kv(f, "summary", i->summary, true);
  json_kv(f, "cluster", r->cluster, true);
  fputs("\"campaigns\":[", f);
  for (int c = 0; c < i->ncampaigns; c++) fprintf(f, "%s%lld", c ? "," : "", (long long)i->campaigns[c]);
  fprintf(f, "],\n\"seed\":%llu,\n\"reproduce\":[", (unsigned long long)i->seed);
  for (int k = 0; k < r->nrepro; k++) {
    if (k) fputc(',', f);
    json_str(f, r->repro[k]);
  }
  fprintf(f, "],\n\"kernel\":{\"reduced\":%s,\"text\":", i->reduced ? "true" : "false");
  json_str(f, r->kernel);
  fprintf(f, "},\n\"rerun\":{\"done\":%s,\"note\":", r->rerun ? "true" : "false");
  json_str(f, r->rerun_note);
  fputs("},\n\"outputs\":[", f);
  for (int o = 0; o < r->nout; o++) {
    const OutDiff *od = &r->out[o];
    fprintf(f, "%s\n{\"name\":", o ? "," : "");
    json_str(f, od->name);
    fprintf(f, ",\"dtype\":\"%s\",\"rows\":%d,\"cols\":%d,\"differing\":%lld,\"canary_where_value\":%lld,"
               "\"value_where_canary\":%lld,\"first\":[",
            ir_dtype_name(od->dt), od->rows, od->cols, (long long)od->differ, (long long)od->missing, (long long)od->extra);
    for (int e = 0; e < od->nfirst; e++) {
      char ed[40], ad[40], eh[20], ah[20];
      dec(od->dt, od->first[e].exp, ed, sizeof ed), dec(od->dt, od->first[e].act, ad, sizeof ad);
      hex(od->dt, od->first[e].exp, eh, sizeof eh), hex(od->dt, od->first[e].act, ah, sizeof ah);
      fprintf(f, "%s{\"index\":[%d,%d],\"expected\":\"%s\",\"actual\":\"%s\",\"expected_hex\":\"%s\",\"actual_hex\":\"%s\"}",
              e ? "," : "", od->first[e].r, od->first[e].c, ed, ad, eh, ah);
    }
    fputs("],\"picture_text\":", f);
    if (od->grid) json_str(f, od->grid);
    else fputs("null", f);
    fputs(",\"picture_png_base64\":", f);
    if (od->png) {
      fputc('"', f);
      put_b64(f, od->png, od->pnglen);
      fputc('"', f);
    } else {
      fputs("null", f);
    }
    fputc('}', f);
  }
  fputs("],\n\"legend\":{", f);
  for (int k = 0; k < NLEGEND; k++) {
    fprintf(f, "%s\"", k ? "," : "");
    rgb(f, legend_order[k]);
    fputs("\":", f);
    json_str(f, pal[legend_order[k]].meaning);
  }
  fputs("},\n\"ir_diff\":{\"before_pass\":", f);
  json_str(f, r->ir_diff ? r->ir_before_pass : NULL);
  fputs(",\"after_pass\":", f);
  json_str(f, r->ir_diff ? r->ir_after_pass : NULL);
  fputs(",\"diff\":", f);
  json_str(f, r->ir_diff);
  fputs(",\"note\":", f);
  json_str(f, r->ir_diff ? NULL : r->ir_note);
  fputs("},\n\"environment\":{", f);
  json_kv(f, "tool_version", version, true);
  json_kv(f, "commit", PTO_COMMIT, true);
  json_kv(f, "host", r->host, true);
  json_kv(f, "compiler", r->compiler, true);
  json_kv(f, "sqlite", db_sqlite_version(), true);
  json_kv(f, "libpng", png_get_libpng_ver(NULL), true);
  json_kv(f, "ptoas", r->ptoas[0] ? r->ptoas : NULL, true);
  fputs("\"tools\":[", f);
  for (int k = 0; k < r->ntools; k++) {
    if (k) fputc(',', f);
    json_str(f, r->tools[k]);
  }
  fputs("]}", f);
  if (r->bundled) {
    fputs(",\n\"bundle\":{", f);
    json_kv(f, "dir", r->bundle_dir, true);
    fprintf(f, "\"replays\":%d,\"reproduced\":%d,", r->bundle.replays, r->bundle.reproduced);
    json_kv(f, "outcome", r->bundle.outcome, true);
    json_kv(f, "first_error", r->bundle.first_error, false);
    fputc('}', f);
  }
  fputs("\n}\n", f);
}

/* ---- the command ---------------------------------------------------------------------------- */

/* Output files appear whole or not at all: each is written to PATH.tmpPID
 * beside it and renamed over PATH once closed without an error; a failed
 * write (a full disk) removes the temporary file and leaves no PATH. */
static FILE *open_tmp(const char *path, char *tmp, size_t n) {
  snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  if (fd >= 0 && !f) close(fd), unlink(tmp);
  return f;
}

/* Close f (opened by open_tmp) and rename it to path; false (tmp removed) on an error. */
static bool commit_tmp(FILE *f, bool ok, const char *tmp, const char *path) {
  ok = !ferror(f) && ok;
  if (fclose(f)) ok = false;
  if (ok && rename(tmp, path)) ok = false;
  if (!ok) unlink(tmp);
  return ok;
}

static void remove_pictures(Rep *r) {
  for (int o = 0; o < r->nout; o++)
    if (r->out[o].png && r->out[o].file[0]) unlink(r->out[o].file), r->out[o].file[0] = 0;
}

/* Markdown: each picture as OUTBASE-finding-ID-NAME.png beside the report. */
static bool write_pictures(Rep *r, const char *out) {
  char dir[512] = ".";
  const char *slash = out ? strrchr(out, '/') : NULL;
  if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
  for (int o = 0; o < r->nout; o++) {
    OutDiff *od = &r->out[o];
    if (!od->png) continue;
    char name[64];
    int n = 0;
    for (const char *p = od->name; *p && n < 60; p++)
      name[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ? *p : '-';
    name[n] = 0;
    snprintf(od->file, sizeof od->file, "%s/finding-%lld-%s.png", dir, (long long)r->f.id, name);
    char tmp[sizeof od->file + 32];
    FILE *f = open_tmp(od->file, tmp, sizeof tmp);
    if (!f || !commit_tmp(f, fwrite(od->png, 1, od->pnglen, f) == od->pnglen, tmp, od->file)) {
      fprintf(stderr, "ptofuzz: report: cannot write %s: %s\n", od->file, strerror(errno));
      od->file[0] = 0;
      remove_pictures(r);                       /* the ones written before: a report comes whole or not at all */
      return false;
    }
  }
  return true;
}

int rep_report(Db *d, int64_t id, const RepOpts *o) {
  Rep r = {.axis = -1};
  char err[300];
  if (!db_info(d, id, &r.f, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: report: %s\n", err);
    return 1;
  }
  if (!r.f.has_case) {
    fprintf(stderr, "ptofuzz: report: finding %lld has no test case\n", (long long)id);
    db_info_free(&r.f);
    return 1;
  }
  r.kernel = r.f.reduced ? r.f.reduced : r.f.kernel;
  parse_flags(&r);
  make_title(&r);
  cluster_line(&r, d);
  make_repro(&r, o->db_path);
  rerun(&r);
  ir_diff(&r);
  environment(&r);
  pypto_part(&r, o->pypto);
  r.db = d;
  int rc = tools_and_bundle(&r, o);
  if (!rc && o->format == REP_MD && !write_pictures(&r, o->out)) rc = 2;
  char tmp[4096 + 32];
  FILE *f = rc ? NULL : o->out ? open_tmp(o->out, tmp, sizeof tmp) : stdout;
  if (!rc && !f) rc = ir_cli_error("ptofuzz report", "-o %s: cannot open it: %s", o->out, strerror(errno));   /* exit 1 */
  if (f) {
    const char *v = o->version ? o->version : "?";
    if (o->format == REP_MD) write_md(f, &r, v);
    else if (o->format == REP_HTML) write_html(f, &r, v);
    else write_json(f, &r, v);
    if (o->out ? !commit_tmp(f, true, tmp, o->out) : fflush(f) != 0 || ferror(f)) {
      fprintf(stderr, "ptofuzz: report: cannot write %s: %s\n", o->out ? o->out : "stdout", strerror(errno));
      rc = 2;
    }
  }
  if (rc && o->format == REP_MD) remove_pictures(&r);   /* no report: no pictures of it left behind */
  for (int i = 0; i < r.nout; i++) free(r.out[i].png), free(r.out[i].grid);
  free(r.out);
  free(r.ir_diff);
  free(r.program);
  if (r.bundled)                                /* after the report; on stderr when HTML or JSON went to stdout */
    fprintf(!o->out && o->format != REP_MD ? stderr : stdout, "bundle %s: reproduces %d of %d\n", o->bundle,
            r.bundle.reproduced, r.bundle.replays);
  rep_bundle_free(&r.bundle);
  db_info_free(&r.f);
  return rc;
}
