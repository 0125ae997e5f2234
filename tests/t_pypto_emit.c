/* t_pypto_emit.c — ptoc's PyPTO translation (compiler/emit_pypto.c,
 * docs/pypto.md): the spelling of each construct (pypto-emit-1.*), the
 * E-PYPTO refusals (2.*), the optional features of later PyPTO builds and the
 * capability probe (3.*), and whole kernels: every seed under every variant
 * translates or is a documented refusal, deterministically (4.*). Python and
 * PyPTO are not needed here; tests/pypto-emit.t runs the programs. */
#include "ptoc.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ALL = PY_CAP_PAGED_GATHER | PY_CAP_SPLIT_AIV };

typedef struct {
  const char *text;                             /* the program, or NULL */
  DiagCode code;                                /* when refused */
  DiagCat cat;
  char msg[400];
} Out;

static Out emit(const char *k, int split, Target tgt, unsigned caps) {
  Out o = {0};
  Comp c = {.A = ir_arena_new(), .src = {"k.ptk", k, strlen(k)}, .o = {.split = -1, .target = -1}};
  const Kernel *f = ir_front(&c);
  if (!f) {
    snprintf(o.msg, sizeof o.msg, "front end: %s %s", ir_diag_name(c.diag.code), c.diag.msg);
    o.code = c.diag.code;
    o.cat = CAT_USER;
    ir_arena_free(c.A);
    return o;
  }
  PyOpts po = {.split = split, .target = tgt, .caps = caps};
  const char *t = ir_emit_pypto(&c, f, &po);
  if (t) o.text = strdup(t);
  else {
    o.code = c.diag.code;
    o.cat = ir_diag_cat(c.diag.code);
    snprintf(o.msg, sizeof o.msg, "%s", c.diag.msg);
  }
  ir_arena_free(c.A);
  return o;
}

/* Each of the NULL-terminated needles occurs in the program. */
static void has(Tap *t, const char *id, const char *what, const char *k, int split, Target tgt, unsigned caps,
                const char *const *needles) {
  Out o = emit(k, split, tgt, caps);
  const char *miss = NULL;
  for (int i = 0; o.text && needles[i] && !miss; i++)
    if (!strstr(o.text, needles[i])) miss = needles[i];
  if (!tap_ok(t, o.text && !miss, id, "%s", what)) {
    if (!o.text) tap_diag("refused: %s %s", ir_diag_name(o.code), o.msg);
    else {
      tap_diag("missing: %s", miss);
      tap_diag("program:\n%s", o.text);
    }
  }
  free((char *)o.text);
}

static void lacks(Tap *t, const char *id, const char *what, const char *k, int split, const char *needle) {
  Out o = emit(k, split, TGT_A2A3, 0);
  if (!tap_ok(t, o.text && !strstr(o.text, needle), id, "%s", what)) tap_diag("%s", o.text ? o.text : o.msg);
  free((char *)o.text);
}

static void refused(Tap *t, const char *id, const char *what, const char *k, int split, unsigned caps, DiagCode code) {
  Out o = emit(k, split, TGT_A2A3, caps);
  bool ok = !o.text && o.code == code && o.cat == CAT_UNSUPPORTED && strstr(o.msg, "no PyPTO spelling");
  if (!tap_ok(t, ok, id, "%s: %s", what, ir_diag_name(code)))
    tap_diag("got %s", o.text ? "a program" : ir_diag_name(o.code)), tap_diag("%s", o.text ? o.text : o.msg);
  free((char *)o.text);
}

#define N(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char *MM =
    "kernel mm(A: f32[16,32] in, B: f32[32,16] in, O: f32[16,16] out, R: f32[16,1] out) {\n"
    "  a = load(A, [0, 0], [16, 32], valid=[5, 32], space=mat);\n"
    "  b = load(B, [0, 0], [32, 16], space=mat);\n"
    "  c = matmul(a, b);\n"
    "  store(O, [0, 0], c);\n"
    "  store(R, [0, 0], row_sum(exp(c)));\n"
    "}\n";

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (b) b[n] = 0;
  fclose(f);
  return b;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
}

int main(void) {
  Tap t = {0};

  /* ---- 1. the spelling of each construct ------------------------------------------------ */
  has(&t, "pypto-emit-1.1", "one @pl.program, an Orchestration main with the tensors in order, one CORE_GROUP scope",
      MM, MODE_NONE, TGT_A2A3, 0,
      N("import pypto.language as pl\n", "@pl.program\nclass mm:\n", "@pl.function(type=pl.FunctionType.Orchestration)",
        "def main(self, A: pl.Tensor[[16, 32], pl.FP32], B: pl.Tensor[[32, 16], pl.FP32], "
        "O: pl.Out[pl.Tensor[[16, 16], pl.FP32]], R: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):",
        "with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"mm\"):", "return O, R\n"));
  has(&t, "pypto-emit-1.2", "load -> pl.load with valid_shapes and target_memory; store -> T = pl.store(t, [r, c], T)", MM,
      MODE_NONE, TGT_A2A3, 0,
      N("a = pl.load(A, [0, 0], [16, 32], valid_shapes=[5, 32], target_memory=pl.Mem.Mat)",
        "b = pl.load(B, [0, 0], [32, 16], target_memory=pl.Mem.Mat)", "O = pl.store(c, [0, 0], O)"));
  has(&t, "pypto-emit-1.3", "a matmul's valid shape [a.vr, b.vc] where PyPTO deduces [M, N]: pl.set_validshape", MM, MODE_NONE,
      TGT_A2A3, 0, N("c = pl.set_validshape(pl.matmul(a, b), 5, 16)"));
  has(&t, "pypto-emit-1.4", "split modes -> pl.split(pl.SplitMode.*); a5 -> Ascend950 and ptoas --pto-arch a5", MM, MODE_UD,
      TGT_A5, 0,
      N("optimizations=[pl.split(pl.SplitMode.UP_DOWN)]", "backend_type=BackendType.Ascend950", "\"--pto-arch\", \"a5\"",
        "# variant: split up_down, target a5"));
  const char *MM2 =
      "kernel mm2(A: f32[16,32] in, B: f32[32,16] in, O: f32[16,16] out) {\n"
      "  store(O, [0, 0], exp(matmul(load(A, [0, 0], [16, 32], space=mat), load(B, [0, 0], [32, 16], space=mat))));\n}\n";
  has(&t, "pypto-emit-1.5", "left_right -> LEFT_RIGHT; a2a3 -> Ascend910B, --pto-arch a3", MM2, MODE_LR, TGT_A2A3, 0,
      N("pl.split(pl.SplitMode.LEFT_RIGHT)", "BackendType.Ascend910B", "\"--pto-arch\", \"a3\""));
  lacks(&t, "pypto-emit-1.6", "split none: no optimizations", MM, MODE_NONE, "optimizations");
  has(&t, "pypto-emit-1.7", "row reductions take a scratch tile of the operand's shape; col_sum folds without one",
      "kernel r(X: f32[8,16] in, O: f32[8,1] out, P: f32[1,16] out) {\n"
      "  x = load(X, [0, 0], [8, 16]);\n  store(O, [0, 0], row_max(x));\n  store(P, [0, 0], col_sum(x));\n}\n",
      MODE_NONE, TGT_A2A3, 0,
      N("pl.row_max(x, pl.create_tile([8, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec))", "pl.col_sum(x)"));
  const char *TB =
      "kernel tb(Q: f32[16,32] in, K: f32[24,32] in, O: f32[16,24] out, P: f32[16,16] out) {\n"
      "  q = load(Q, [0, 0], [16, 32], valid=[16, 30], space=mat);\n"
      "  k = load(K, [0, 0], [24, 32], valid=[24, 30], space=mat);\n"
      "  s = matmul(q, k, trans_b=1);\n  store(O, [0, 0], s);\n"
      "  e = exp(load(Q, [0, 0], [16, 32]));\n  store(P, [0, 0], matmul(q, e, trans_b=1));\n}\n";
  has(&t, "pypto-emit-1.8", "trans_b of a mat load: the operand loaded transposed (pl.load transpose=True)", TB, MODE_NONE,
      TGT_A2A3, 0, N("k = pl.load(K, [0, 0], [24, 32], valid_shapes=[24, 30], target_memory=pl.Mem.Mat, transpose=True)",
                     "s = pl.matmul(q, k)"));
  has(&t, "pypto-emit-1.9", "trans_b of a computed tile: pl.transpose", TB, MODE_NONE, TGT_A2A3, 0,
      N("= pl.transpose(e, 0, 1)"));
  has(&t, "pypto-emit-1.10", "element-wise: PyPTO takes the left operand's valid shape, the golden run the smaller one",
      "kernel b(X: f32[8,16] in, O: f32[8,16] out) {\n"
      "  x = load(X, [0, 0], [8, 16]);\n  y = load(X, [0, 0], [8, 16], valid=[3, 16]);\n"
      "  store(O, [0, 0], add(x, y));\n  store(O, [0, 0], max(y, x));\n}\n",
      MODE_NONE, TGT_A2A3, 0, N("pl.set_validshape(pl.add(x, y), 3, 16)", "= pl.maximum(y, x)\n"));
  const char *SL =
      "kernel sl(X: f32[64,16] in, O: f32[64,16] out) {\n"
      "  x = load(X, [0, 0], [64, 16], valid=[50, 16]);\n"
      "  store(O, [0, 0], slice(x, [48, 0], [16, 16]));\n"
      "  for i in range(0, 4) { store(O, [i*16, 0], slice(x, [i*16, 0], [16, 16])); }\n}\n";
  has(&t, "pypto-emit-1.11", "slice: the valid shape clamped to the parent's (static, and pl.min/pl.max in a loop)", SL,
      MODE_NONE, TGT_A2A3, 0,
      N("pl.slice(x, [16, 16], [48, 0], valid_shape=[2, 16])",
        "pl.slice(x, [16, 16], [i * 16, 0], valid_shape=[pl.min((50 - i * 16), 16), 16])",
        "for i in pl.range(0, 4, 1):"));
  has(&t, "pypto-emit-1.12", "assemble -> pl.tile.assemble, valid per-dimension max of dst and offset + src",
      "kernel as(X: f32[8,32] in, O: f32[8,32] out) {\n"
      "  d = full([8, 32], 0.0, f32, valid=[2, 32]);\n  s = load(X, [0, 0], [4, 32]);\n"
      "  store(O, [0, 0], assemble(d, s, [2, 0]));\n}\n",
      MODE_NONE, TGT_A2A3, 0,
      N("d = pl.set_validshape(pl.tile.full([8, 32], dtype=pl.FP32, value=0.0), 2, 32)",
        "pl.set_validshape(pl.tile.assemble(d, s, [2, 0]), 6, 32)"));
  const char *CA =
      "kernel ca(X: f32[8,16] in, H: f16[8,16] out, I: i32[8,16] out, O: f32[8,16] out) {\n"
      "  x = load(X, [0, 0], [8, 16]);\n  store(H, [0, 0], cast(x, f16));\n  store(I, [0, 0], cast(x, i32));\n"
      "  store(O, [0, 0], cast(x, f32));\n}\n";
  has(&t, "pypto-emit-1.13", "cast: to a float rounds to nearest even (rint), to an integer truncates (trunc)", CA, MODE_NONE,
      TGT_A2A3, 0, N("pl.cast(x, target_type=pl.FP16, mode=\"rint\")", "pl.cast(x, target_type=pl.INT32, mode=\"trunc\")"));
  has(&t, "pypto-emit-1.14", "a same-dtype cast is a copy (PyPTO's tile.cast refuses it)", CA, MODE_NONE, TGT_A2A3, 0,
      N(" = x\n"));
  has(&t, "pypto-emit-1.15", "scalars: an f16 tile's rounded to f16 (0.1 -> 0.0999755859375), exactly; integers as integers",
      "kernel sc(X: f16[8,16] in, O: f16[8,16] out, Y: i32[8,16] in, P: i32[8,16] out) {\n"
      "  store(O, [0, 0], adds(load(X, [0, 0], [8, 16]), 0.1));\n"
      "  store(P, [0, 0], maxs(load(Y, [0, 0], [8, 16]), -3));\n}\n",
      MODE_NONE, TGT_A2A3, 0, N("pl.tile.adds(_t1, 0.0999755859375)", "pl.tile.maximums(_t3, -3)"));
  has(&t, "pypto-emit-1.16", "row_expand_max/min and col_expand_sub/div: the broadcast, then the element-wise op",
      "kernel ex(X: f32[8,16] in, O: f32[8,16] out) {\n"
      "  x = load(X, [0, 0], [8, 16]);\n  r = row_max(x);\n  c = col_max(x);\n"
      "  store(O, [0, 0], row_expand_max(x, r));\n  store(O, [0, 0], col_expand_sub(x, c));\n"
      "  store(O, [0, 0], row_expand_sub(x, r));\n}\n",
      MODE_NONE, TGT_A2A3, 0,
      N("pl.maximum(x, pl.row_expand(x, r))", "pl.sub(x, pl.col_expand(x, c))", "pl.row_expand_sub(x, r)"));
  has(&t, "pypto-emit-1.17", "imin/imax/clamp -> pl.min/pl.max (a scalar first), set_validshape",
      "kernel ix(X: f32[16,16] in, O: f32[16,16] out) {\n"
      "  for i in range(0, 3) {\n    n = imin(i*4 + 2, 16);\n    m = imax(1, i);\n    p = clamp(i*8, 1, 12);\n"
      "    x = set_validshape(load(X, [0, 0], [16, 16]), n, p);\n    store(O, [0, 0], x);\n  }\n}\n",
      MODE_NONE, TGT_A2A3, 0,
      N("n = pl.min(i * 4 + 2, 16)", "m = pl.max(i, 1)", "p = pl.min(pl.max(i * 8, 1), 12)",
        "pl.set_validshape(_t1, n, p)"));
  const char *LP =
      "kernel lp(X: f32[64,16] in, O: f32[16,16] out) {\n"
      "  tot = full([16, 16], 0.0, f32);\n  t = exp(load(X, [0, 0], [16, 16]));\n  t = exp(t);\n"
      "  for i in range(0, 4) { tot = add(tot, load(X, [i*16, 0], [16, 16])); }\n"
      "  store(O, [0, 0], add(tot, t));\n}\n";
  has(&t, "pypto-emit-1.18", "a loop-carried name keeps one Python name; other reassignments get fresh ones", LP, MODE_NONE,
      TGT_A2A3, 0, N("tot = pl.add(tot, _t2)", "t = pl.exp(_t1)", "t_1 = pl.exp(t)", "pl.add(tot, t_1)"));
  has(&t, "pypto-emit-1.19", "names Python or the program reserve are mangled, the parameters' order kept",
      "kernel lambda(pl: f32[8,16] in, self: f32[8,16] out, ir: i32[4] in = [1, 2, 3, 4], None: f32[8,16] out) {\n"
      "  pass = load(pl, [0, 0], [8, 16]);\n  store(self, [0, 0], pass);\n  store(None, [0, 0], pass);\n}\n",
      MODE_NONE, TGT_A2A3, 0,
      N("class lambda_:", "def main(self, pl_: pl.Tensor[[8, 16], pl.FP32], self_: pl.Out[pl.Tensor[[8, 16], pl.FP32]], "
        "ir_: pl.Tensor[[4], pl.INT32], None_: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):",
        "pass_ = pl.load(pl_, [0, 0], [8, 16], target_memory=pl.Mem.Vec)", "return self_, None_\n"));
  has(&t, "pypto-emit-1.20", "a __main__ block compiles as the driver does and runs ptoas with PyPTO's own flags", MM,
      MODE_NONE, TGT_A2A3, 0,
      N("if __name__ == \"__main__\":", "ir.compile(mm, output_dir=outdir, skip_ptoas=True, backend_type=BackendType.Ascend910B, "
        "dump_passes=True)", "\"--enable-insert-sync\"", "\"--pto-level=level3\"", "sys.exit(1 if failed else 0)",
        "# PyPTO program translated by `ptoc --emit=pypto` from kernel 'mm' (k.ptk)"));
  has(&t, "pypto-emit-1.21", "if/else and a bounded while inside split_aiv; lane=0 stores",
      "kernel w(A: f32[32,16] in, B: f32[16,16] in, O: f32[32,16] out, P: f32[16,16] out) {\n"
      "  s = matmul(load(A, [0, 0], [32, 16], space=mat), load(B, [0, 0], [16, 16], space=mat));\n"
      "  for lane in split_aiv(2) {\n    h = aiv_shard(s, up_down);\n    y = muls(h, 2.0);\n"
      "    if lane == 0 { y = adds(y, 1.0); } else { y = muls(y, 3.0); }\n"
      "    k = imax(0, 0);\n    while k < 3 + lane max 4 { y = adds(y, 0.5); k = imin(k + 1, 4); }\n"
      "    store(O, [lane*16, 0], y);\n    store(P, [0, 0], load(B, [0, 0], [16, 16]), lane=0);\n  }\n}\n",
      MODE_NONE, TGT_A2A3, PY_CAP_SPLIT_AIV,
      N("for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "h = pl.aiv_shard(s)", "if lane == 0:", "else:",
        "k = pl.min(0, 0)", "in pl.range(0, 4, 1):", "if k < lane + 3:", "k = pl.min(k + 1, 4)",
        "O = pl.store(y, [lane * 16, 0], O)", "if lane == 0:\n                    P = pl.store("));

  /* ---- 2. refusals ---------------------------------------------------------------------------- */
  const char *PG =
      "kernel pg(KV: f32[18,48] in, idx: i32[7] in = [3, 0, 17, 5, 5, 9, 13], tbl: i32[5] in = [1, 3, 0, 3, 4],\n"
      "          O: f32[8,32] out) {\n"
      "  g = paged_gather(KV, idx, tbl, block_size=4, size=32, max_indices=8, col_off=16);\n"
      "  store(O, [0, 0], g);\n}\n";
  refused(&t, "pypto-emit-2.1", "paged_gather on a build without pl.paged_gather", PG, MODE_NONE, 0, E_PYPTO_GATHER);
  const char *EX =
      "kernel ex(A: f32[32,16] in, B: f32[16,16] in, O: f32[32,16] out) {\n"
      "  s = matmul(load(A, [0, 0], [32, 16], space=mat), load(B, [0, 0], [16, 16], space=mat));\n"
      "  for lane in split_aiv(2) { store(O, [lane*16, 0], exp(aiv_shard(s, up_down))); }\n}\n";
  refused(&t, "pypto-emit-2.2", "split_aiv on a build without pl.split_aiv", EX, MODE_NONE, 0, E_PYPTO_SPLIT_AIV);
  refused(&t, "pypto-emit-2.3", "a split_aiv kernel translated for another split mode", EX, MODE_UD, ALL, E_PYPTO_EXPLICIT);
  refused(&t, "pypto-emit-2.4", "a loop-carried tile whose valid shape changes",
          "kernel cv(X: f32[64,16] in, O: f32[16,16] out) {\n  tot = full([16, 16], 0.0, f32);\n"
          "  for i in range(0, 4) { tot = add(tot, load(X, [i*16, 0], [16, 16], valid=[5, 16])); }\n"
          "  store(O, [0, 0], tot);\n}\n",
          MODE_NONE, 0, E_PYPTO_CARRIED_VALID);
  const char *ODD =
      "kernel od(A: f32[15,32] in, B: f32[32,32] in, O: f32[15,32] out) {\n"
      "  c = matmul(load(A, [0, 0], [15, 32], space=mat), load(B, [0, 0], [32, 32], space=mat));\n"
      "  store(O, [0, 0], exp(c));\n}\n";
  refused(&t, "pypto-emit-2.5", "a vector tile odd on the split axis of a mixed kernel", ODD, MODE_UD, 0, E_PYPTO_SPLIT_ODD);
  has(&t, "pypto-emit-2.6", "... odd on the other axis, or without a split: translated", ODD, MODE_LR, TGT_A2A3, 0, N("pl.exp(c)"));
  refused(&t, "pypto-emit-2.7", "a whole (extent-1) tile crossing to the vector side under a split",
          "kernel wh(A: f32[1,32] in, B: f32[32,32] in, O: f32[1,32] out) {\n"
          "  c = matmul(load(A, [0, 0], [1, 32], space=mat), load(B, [0, 0], [32, 32], space=mat));\n"
          "  store(O, [0, 0], exp(c));\n}\n",
          MODE_UD, 0, E_PYPTO_SPLIT_ODD);
  refused(&t, "pypto-emit-2.8", "a row reduction under left_right in a mixed kernel", MM, MODE_LR, 0, E_PYPTO_SPLIT_REDUCE);
  refused(&t, "pypto-emit-2.9", "paged_gather with window=",
          "kernel pw(KV: f32[18,48] in, idx: i32[7] in = [3, 0, 17, 5, 5, 9, 13], tbl: i32[5] in = [1, 3, 0, 3, 4],\n"
          "          O: f32[4,32] out) {\n"
          "  g = paged_gather(KV, idx, tbl, block_size=4, size=32, max_indices=4, window=[2, 4]);\n"
          "  store(O, [0, 0], g);\n}\n",
          MODE_NONE, ALL, E_PYPTO_GATHER_WINDOW);
  refused(&t, "pypto-emit-2.10", "paged_gather with a run-time col_off",
          "kernel pc(KV: f32[18,48] in, idx: i32[7] in = [3, 0, 17, 5, 5, 9, 13], tbl: i32[5] in = [1, 3, 0, 3, 4],\n"
          "          O: f32[16,32] out) {\n"
          "  for i in range(0, 2) { store(O, [i*8, 0], paged_gather(KV, idx, tbl, block_size=4, size=32, max_indices=8, "
          "col_off=i*16)); }\n}\n",
          MODE_NONE, ALL, E_PYPTO_GATHER_COLOFF);
  refused(&t, "pypto-emit-2.11", "paged_gather of i32 data",
          "kernel pd(KV: i32[18,48] in, idx: i32[7] in = [3, 0, 17, 5, 5, 9, 13], tbl: i32[5] in = [1, 3, 0, 3, 4],\n"
          "          O: i32[8,32] out) {\n"
          "  store(O, [0, 0], paged_gather(KV, idx, tbl, block_size=4, size=32, max_indices=8));\n}\n",
          MODE_NONE, ALL, E_PYPTO_GATHER_DTYPE);
  refused(&t, "pypto-emit-2.12", "aiv_shard with stride=",
          "kernel st(A: f32[32,16] in, B: f32[16,16] in, O: f32[32,16] out) {\n"
          "  s = matmul(load(A, [0, 0], [32, 16], valid=[26, 16], space=mat), load(B, [0, 0], [16, 16], space=mat));\n"
          "  for lane in split_aiv(2) { store(O, [lane*13, 0], aiv_shard(s, up_down, stride=13)); }\n}\n",
          MODE_NONE, ALL, E_PYPTO_SHARD_STRIDE);
  refused(&t, "pypto-emit-2.13", "a task-parallel split_aiv region (no aiv_shard or aic_gather)",
          "kernel tp(A: f32[32,16] in, B: f32[16,16] in, O: f32[32,16] out, P: f32[32,16] out) {\n"
          "  store(P, [0, 0], matmul(load(A, [0, 0], [32, 16], space=mat), load(B, [0, 0], [16, 16], space=mat)));\n"
          "  for lane in split_aiv(2) { store(O, [lane*16, 0], exp(load(A, [lane*16, 0], [16, 16]))); }\n}\n",
          MODE_NONE, ALL, E_PYPTO_SPLIT_MODE);
  refused(&t, "pypto-emit-2.14", "aiv_shard of an odd extent",
          "kernel so(A: f32[16,16] in, B: f32[16,15] in, O: f32[16,15] out) {\n"
          "  s = matmul(load(A, [0, 0], [16, 16], space=mat), load(B, [0, 0], [16, 15], space=mat));\n"
          "  for lane in split_aiv(2) { store(O, [0, lane*8], aiv_shard(s, left_right)); }\n}\n",
          MODE_NONE, ALL, E_PYPTO_SPLIT_ODD);
  {
    bool ok = true;
    for (int d = 0; d < D_N; d++)
      if (!strncmp(ir_diag_name((DiagCode)d), "E-PYPTO-", 8)) ok = ok && ir_diag_cat((DiagCode)d) == CAT_UNSUPPORTED;
    tap_ok(&t, ok, "pypto-emit-2.15", "every E-PYPTO code is `unsupported`");
  }

  /* ---- 3. features of later builds; the capability probe ----------------------------------- */
  has(&t, "pypto-emit-3.1", "paged_gather (8f8de9b9c+): pl.paged_gather into UB, a scratch GM tensor, a load of the valid rows",
      PG, MODE_NONE, TGT_A2A3, PY_CAP_PAGED_GATHER,
      N("        g_gm = pl.create_tensor([8, 32], dtype=pl.FP32)\n        with pl.at(",
        "g_pg = pl.paged_gather(KV, idx, tbl, block_size=4, size=32, max_indices=8, space=pl.Mem.Vec, col_off=16)",
        "g_gm = pl.assemble(g_gm, g_pg, [0, 0])",
        "g = pl.load(g_gm, [0, 0], [8, 32], valid_shapes=[7, 32], target_memory=pl.Mem.Vec)"));
  has(&t, "pypto-emit-3.5", "a paged gather into mat: loaded back into UB, then pl.move to L1",
      "kernel pm(KV: f16[29,48] in, Q: f16[16,32] in, idx: i32[3] in = [0, 9, 4], tbl: i32[5] in = [2, 0, 1, 0, 3],\n"
      "          O: f32[16,16] out) {\n"
      "  g = paged_gather(KV, idx, tbl, block_size=8, size=32, max_indices=16, space=mat);\n"
      "  store(O, [0, 0], matmul(load(Q, [0, 0], [16, 32], space=mat), g, trans_b=1));\n}\n",
      MODE_NONE, TGT_A2A3, ALL,
      N("g = pl.move(pl.load(g_gm, [0, 0], [16, 32], valid_shapes=[3, 32], target_memory=pl.Mem.Vec), "
        "target_memory=pl.Mem.Mat)", "pl.transpose(g, 0, 1)"));
  refused(&t, "pypto-emit-3.6", "a split_aiv region inside a loop",
          "kernel nl(A: f32[32,16] in, B: f32[16,16] in, O: f32[64,16] out) {\n"
          "  s = matmul(load(A, [0, 0], [32, 16], space=mat), load(B, [0, 0], [16, 16], space=mat));\n"
          "  for j in range(0, 2) {\n"
          "    for lane in split_aiv(2) { store(O, [j*32 + lane*16, 0], exp(aiv_shard(s, up_down))); }\n  }\n}\n",
          MODE_NONE, ALL, E_PYPTO_SPLIT_NESTED);
  has(&t, "pypto-emit-3.2", "split_aiv (6b426ae45+): pl.split_aiv, pl.aiv_shard, pl.aic_gather", EX, MODE_NONE, TGT_A2A3,
      PY_CAP_SPLIT_AIV, N("for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "pl.aiv_shard(s)"));
  {
    char dir[] = "/tmp/pypto-emit-XXXXXX";
    bool made = mkdtemp(dir) != NULL;
    char p[256];
    unsigned caps = 99;
    snprintf(p, sizeof p, "%s/none", dir);
    bool none = made && !ir_pypto_caps(p, &caps) && caps == 0;
    snprintf(p, sizeof p, "%s/b/python/pypto/language/op", dir);
    char q[256];
    bool ok = made;
    const char *parts[] = {"/b", "/b/python", "/b/python/pypto", "/b/python/pypto/language", "/b/python/pypto/language/op"};
    for (int i = 0; i < 5; i++) {
      snprintf(q, sizeof q, "%s%s", dir, parts[i]);
      ok = ok && !mkdir(q, 0777);
    }
    snprintf(q, sizeof q, "%s/b/python/pypto/language/dsl_api.py", dir);
    write_file(q, "def at(level):\n    pass\ndef load(t,\n    valid_shapes: Sequence[int] | None = None):\n    pass\n");
    snprintf(q, sizeof q, "%s/b/python/pypto/language/op/tile_ops.py", dir);
    write_file(q, "def load(t,\n    transpose: bool = False,\n) -> Tile:\n    pass\n");
    snprintf(q, sizeof q, "%s/b/python/pypto/language/dsl_api.py", dir);
    snprintf(p, sizeof p, "%s/b", dir);
    bool base = ok && ir_pypto_caps(p, &caps) && caps == 0;
    write_file(q, "def at(level):\n    pass\ndef split_aiv(n, *, mode):\n    pass\n");
    snprintf(q, sizeof q, "%s/b/python/pypto/language/op/tensor_ops.py", dir);
    write_file(q, "def paged_gather(  # noqa\n    src):\n    pass\n");
    bool both = ok && ir_pypto_caps(p, &caps) && caps == (PY_CAP_PAGED_GATHER | PY_CAP_SPLIT_AIV | PY_CAP_LOAD_VALID_SHAPE);
    tap_ok(&t, none && base && both, "pypto-emit-3.3",
           "ir_pypto_caps: false without a PyPTO tree, none for b25b25a4a's API, all from `def split_aiv(`/`def paged_gather(` and no `valid_shapes:`");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (made && system(cmd)) tap_diag("could not remove %s", dir);
  }
  {
    static const struct {
      const char *c;
      unsigned caps;
    } builds[] = {{"b25b25a4a", 0}, {"8f8de9b9c", PY_CAP_PAGED_GATHER}, {"6b426ae45", ALL}, {"e2d0f78ae", ALL | PY_CAP_LOAD_VALID_SHAPE | PY_CAP_LOAD_NO_TRANSPOSE}};
    const char *root = getenv("PYPTO_ROOT") ? getenv("PYPTO_ROOT") : "../shared/third_party/pypto";
    int found = 0, right = 0;
    for (int i = 0; i < 4; i++) {
      char p[512];
      unsigned caps;
      snprintf(p, sizeof p, "%s/%s", root, builds[i].c);
      if (!ir_pypto_caps(p, &caps)) continue;
      found++;
      right += caps == builds[i].caps;
    }
    if (found) tap_ok(&t, right == found, "pypto-emit-3.4", "the capabilities of the %d PyPTO builds in %s", found, root);
    else printf("ok %d - pypto-emit-3.4 # SKIP no PyPTO builds under %s\n", ++t.n, root);
  }

  /* ---- 4. whole kernels ------------------------------------------------------------------------ */
  {
    DIR *d = opendir("corpus/seeds");
    int n = 0, bad = 0, same = 0, runs = 0;
    struct dirent *de;
    static const int modes[3] = {MODE_NONE, MODE_UD, MODE_LR};
    while (d && (de = readdir(d))) {
      size_t l = strlen(de->d_name);
      if (l < 5 || strcmp(de->d_name + l - 4, ".ptk")) continue;
      char p[512];
      snprintf(p, sizeof p, "corpus/seeds/%s", de->d_name);
      char *k = read_text(p);
      if (!k) continue;
      n++;
      for (int m = 0; m < 3; m++)
        for (int tg = 0; tg < 2; tg++)
          for (unsigned caps = 0; caps <= ALL; caps += ALL) {
            Out a = emit(k, modes[m], (Target)tg, caps), b = emit(k, modes[m], (Target)tg, caps);
            runs++;
            bool ok = a.text ? true : a.cat == CAT_UNSUPPORTED && !strncmp(ir_diag_name(a.code), "E-PYPTO-", 8);
            if (!ok) {
              bad++;
              tap_diag("%s %s@%s caps %u: %s %s", de->d_name, ir_mode_name((Mode)modes[m]), tg ? "a5" : "a2a3", caps,
                       ir_diag_name(a.code), a.msg);
            }
            same += a.text ? b.text && !strcmp(a.text, b.text) : !b.text && a.code == b.code;
            free((char *)a.text), free((char *)b.text);
          }
      free(k);
    }
    if (d) closedir(d);
    tap_ok(&t, n >= 14 && !bad, "pypto-emit-4.1", "%d seeds x 3 modes x 2 targets x 2 builds: a program or an E-PYPTO "
           "refusal (%d not)", n, bad);
    tap_ok(&t, same == runs && runs, "pypto-emit-4.2", "deterministic: translating twice gives the same text (%d of %d)", same,
           runs);
  }
  {
    const char *k = "kernel u(X: f32[8,16] in, O: f32[8,16] out) {\n  store(O, [0, 0], div(load(X, [0, 0], [8, 16]), 2));\n}\n";
    Out o = emit(k, MODE_NONE, TGT_A2A3, 0);
    tap_ok(&t, !o.text && o.cat == CAT_USER, "pypto-emit-4.3", "a wrong kernel is the front end's user error, not E-PYPTO");
    free((char *)o.text);
  }
  return tap_done(&t);
}
