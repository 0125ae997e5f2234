/* t_real.c — tests of the real toolchain back end (oracle/real.c): hand-written
 * PTO-AS kernels through ptoas, the C++ compiler and pto-isa's CPU simulation,
 * with every stage and output byte checked against results computed here.
 * Skipped when the toolchain is not installed (orc_real_find fails). */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- kernels ---------------------------------------------------------------------- */

#define VEC32(T)                                                                                         \
  "!pto.tile_buf<loc=vec, dtype=" T ", rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, "       \
  "slayout=none_box, fractal=512, pad=0>"
#define PART32(T) "!pto.partition_tensor_view<32x32x" T ">"
#define VIEW(T) "!pto.tensor_view<?x?x" T ">"

/* c = a + b over 32x32 tensors of element type T, on the vector side only;
 * MORE: parameters after the tensors (none, or a slot buffer and an FFTS base). */
#define VADD(T) VADD_MORE(T, "")
#define VADD_MORE(T, MORE)                                                                               \
  "module {\n"                                                                                           \
  "  func.func @vadd(%a: !pto.ptr<" T ">, %b: !pto.ptr<" T ">, %c: !pto.ptr<" T ">" MORE ")\n"         \
  "      attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n"                                    \
  "    %c0 = arith.constant 0 : index\n"                                                                 \
  "    %c1 = arith.constant 1 : index\n"                                                                 \
  "    %c32 = arith.constant 32 : index\n"                                                               \
  "    %va = pto.make_tensor_view %a, shape = [%c32, %c32], strides = [%c32, %c1] : " VIEW(T) "\n"      \
  "    %vb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : " VIEW(T) "\n"      \
  "    %vc = pto.make_tensor_view %c, shape = [%c32, %c32], strides = [%c32, %c1] : " VIEW(T) "\n"      \
  "    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c32, %c32] : " VIEW(T) " -> " PART32(T) "\n" \
  "    %pb = pto.partition_view %vb, offsets = [%c0, %c0], sizes = [%c32, %c32] : " VIEW(T) " -> " PART32(T) "\n" \
  "    %pc = pto.partition_view %vc, offsets = [%c0, %c0], sizes = [%c32, %c32] : " VIEW(T) " -> " PART32(T) "\n" \
  "    %ta = pto.alloc_tile : " VEC32(T) "\n"                                                            \
  "    %tb = pto.alloc_tile : " VEC32(T) "\n"                                                            \
  "    %tc = pto.alloc_tile : " VEC32(T) "\n"                                                            \
  "    pto.tload ins(%pa : " PART32(T) ") outs(%ta : " VEC32(T) ")\n"                                    \
  "    pto.tload ins(%pb : " PART32(T) ") outs(%tb : " VEC32(T) ")\n"                                    \
  "    pto.tadd ins(%ta, %tb : " VEC32(T) ", " VEC32(T) ") outs(%tc : " VEC32(T) ")\n"                   \
  "    pto.tstore ins(%tc : " VEC32(T) ") outs(%pc : " PART32(T) ")\n"                                   \
  "    return\n"                                                                                         \
  "  }\n"                                                                                                \
  "}\n"

#define MAT16 "!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=512, pad=0>"
#define LEFT16 "!pto.tile_buf<loc=left, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=row_major, fractal=512, pad=0>"
#define RIGHT16 "!pto.tile_buf<loc=right, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>"
#define ACC16 "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>"
#define VEC16 "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
#define PART16 "!pto.partition_tensor_view<16x16xf32>"
#define VIEWF "!pto.tensor_view<?x?xf32>"
#define PARAMS "%a: !pto.ptr<f32>, %b: !pto.ptr<f32>, %c: !pto.ptr<f32>, %slot: !pto.ptr<f32>"
#define CONSTS                                                                                           \
  "    %c0_i32 = arith.constant 0 : i32\n"                                                               \
  "    %c0 = arith.constant 0 : index\n"                                                                 \
  "    %c1 = arith.constant 1 : index\n"                                                                 \
  "    %c16 = arith.constant 16 : index\n"

#define VEC8 "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
#define PART8 "!pto.partition_tensor_view<8x16xf32>"

/* c = a x b (16x16, f32): the cube multiplies and pushes the accumulator over a
 * C2V pipe (a3: its FIFO lives in the GM slot buffer) to the vector side, which
 * stores it. SPLIT "0": one lane pops the whole tile; "1" (up/down): each of two
 * lanes pops 8 rows and stores them at row 8 x its subblock index. */
#define MATMUL_C2V(SPLIT, VT, PT, ROWS, OFFSET)                                                          \
  "module {\n"                                                                                           \
  "  func.func @mm_cube(" PARAMS ")\n"                                                                   \
  "      attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {\n" CONSTS                              \
  "    %imp = pto.import_reserved_buffer {name = \"c2v_fifo\", peer_func = @mm_vec} -> i32\n"            \
  "    pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}\n"                               \
  "      (gm_slot_buffer = %slot : !pto.ptr<f32>, c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %c0_i32 : i32)\n" \
  "    %ma = pto.alloc_tile : " MAT16 "\n"                                                              \
  "    %mb = pto.alloc_tile : " MAT16 "\n"                                                              \
  "    %l = pto.alloc_tile : " LEFT16 "\n"                                                              \
  "    %r = pto.alloc_tile : " RIGHT16 "\n"                                                             \
  "    %acc = pto.alloc_tile : " ACC16 "\n"                                                             \
  "    %va = pto.make_tensor_view %a, shape = [%c16, %c16], strides = [%c16, %c1] : " VIEWF "\n"        \
  "    %vb = pto.make_tensor_view %b, shape = [%c16, %c16], strides = [%c16, %c1] : " VIEWF "\n"        \
  "    %pa = pto.partition_view %va, offsets = [%c0, %c0], sizes = [%c16, %c16] : " VIEWF " -> " PART16 "\n" \
  "    %pb = pto.partition_view %vb, offsets = [%c0, %c0], sizes = [%c16, %c16] : " VIEWF " -> " PART16 "\n" \
  "    pto.tload ins(%pa : " PART16 ") outs(%ma : " MAT16 ")\n"                                         \
  "    pto.tload ins(%pb : " PART16 ") outs(%mb : " MAT16 ")\n"                                         \
  "    pto.tmov ins(%ma : " MAT16 ") outs(%l : " LEFT16 ")\n"                                           \
  "    pto.tmov ins(%mb : " MAT16 ") outs(%r : " RIGHT16 ")\n"                                          \
  "    pto.tmatmul ins(%l, %r : " LEFT16 ", " RIGHT16 ") outs(%acc : " ACC16 ")\n"                      \
  "    pto.tpush_to_aiv(%acc : " ACC16 ") {id = 0, split = " SPLIT "}\n"                                \
  "    return\n"                                                                                         \
  "  }\n"                                                                                                \
  "\n"                                                                                                   \
  "  func.func @mm_vec(" PARAMS ")\n"                                                                    \
  "      attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n" CONSTS                            \
  "    %c8 = arith.constant 8 : index\n"                                                                \
  "    %c8_i64 = arith.constant 8 : i64\n"                                                              \
  "    %sb = pto.get_subblock_idx\n"                                                                    \
  "    %sb8 = arith.muli %sb, %c8_i64 : i64\n"                                                           \
  "    %sb8i = arith.index_cast %sb8 : i64 to index\n"                                                  \
  "    %fifo = pto.reserve_buffer {name = \"c2v_fifo\", size = 8192, location = #pto.address_space<vec>, auto = true} -> i32\n" \
  "    pto.aiv_initialize_pipe {id = 0, dir_mask = 1, slot_size = 1024}\n"                               \
  "      (gm_slot_buffer = %slot : !pto.ptr<f32>, c2v_consumer_buf = %fifo : i32, v2c_consumer_buf = %c0_i32 : i32)\n" \
  "    %t = pto.tpop_from_aic {id = 0, split = " SPLIT "} -> " VT "\n"                                   \
  "    %vc = pto.make_tensor_view %c, shape = [%c16, %c16], strides = [%c16, %c1] : " VIEWF "\n"        \
  "    %pc = pto.partition_view %vc, offsets = [" OFFSET ", %c0], sizes = [" ROWS ", %c16] : " VIEWF " -> " PT "\n" \
  "    pto.tstore ins(%t : " VT ") outs(%pc : " PT ")\n"                                                \
  "    pto.tfree_from_aic {id = 0, split = " SPLIT "}\n"                                                 \
  "    return\n"                                                                                         \
  "  }\n"                                                                                                \
  "}\n"

static const char MATMUL_ONE[] = MATMUL_C2V("0", VEC16, PART16, "%c16", "%c0");
static const char MATMUL_UD[] = MATMUL_C2V("1", VEC8, PART8, "%c8", "%sb8i");

static const char NOT_PTO[] =
    "module {\n"
    "  func.func @f(%a: !pto.ptr<f32>) {\n"
    "    pto.no_such_op\n"
    "    return\n"
    "  }\n"
    "}\n";

/* ---- a stand-in ptoas: the "PTO-AS" is C++, copied through --------------------------- */

/* Reaches the stages real ptoas output seldom does: ptoas dying, errors inside
 * pto-isa's templates, programs that trap or throw. */
static const char FAKE_PTOAS[] =
    "#!/bin/sh\n"
    "# t_real's stand-in for ptoas: ptoas --pto-arch=ARCH IN -o OUT\n"
    "case \"$(head -n 1 \"$2\")\" in\n"
    "  '// abort') kill -ABRT $$ ;;\n"
    "  '// llvm-error') echo 'LLVM ERROR: fake failure' >&2; exit 1 ;;\n"
    "esac\n"
    "exec cp \"$2\" \"$4\"\n";

#define CPP_HEAD "#include \"pto/pto-inst.hpp\"\nusing namespace pto;\n"
#define VTILE(T) "Tile<TileType::Vec, " T ", 16, 16, BLayout::RowMajor, 16, 16, SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>"
static const char CPP_OK[] = CPP_HEAD "AICORE void k(__gm__ float *a) {\n  for (int i = 0; i < 16; i++) a[i] = a[i] * 2 + 1;\n}\n";
static const char CPP_TEMPLATE_ERROR[] = CPP_HEAD
    "AICORE void k(__gm__ float *a) {\n"
    "  " VTILE("float") " t;\n"
    "  " VTILE("int32_t") " u;\n"
    "  TASSIGN(t, 0);\n"
    "  TASSIGN(u, 4096);\n"
    "  TADD(t, t, u);\n"
    "}\n";
static const char CPP_SYNTAX_ERROR[] = CPP_HEAD "AICORE void k(__gm__ float *a) {\n  int x = ;\n}\n";
static const char CPP_ASSERT[] = CPP_HEAD
    "AICORE void k(__gm__ float *a) {\n"
    "  " VTILE("float") " t;\n"
    "  TASSIGN(t, 1u << 30);   // far outside UB: pto-isa's memory model asserts\n"
    "}\n";
static const char CPP_EXIT[] = CPP_HEAD "AICORE void k(__gm__ float *a) { std::exit(7); }\n";
static const char CPP_THROW[] = CPP_HEAD "AICORE void k(__gm__ float *a) { throw std::invalid_argument(\"boom\"); }\n";
static const char CPP_PTOAS_ABORT[] = "// abort\n";
/* pto/cpu/parallel.hpp is ptofuzz's serial stand-in: it compiles, and a loop
 * over a million elements stays on the calling thread (pto-isa's would start
 * threads on a machine with several cores) */
static const char CPP_SERIAL[] = CPP_HEAD
    "#ifndef PTOFUZZ_CPU_SERIAL\n"
    "#error pto/cpu/parallel.hpp is pto-isa's, not ptofuzz's serial stand-in\n"
    "#endif\n"
    "AICORE void k(__gm__ float *a) {\n"
    "  std::thread::id me = std::this_thread::get_id();\n"
    "  pto::cpu::parallel_for_1d(0, 16, 1u << 20, [&](std::size_t i) { a[i] = std::this_thread::get_id() == me; });\n"
    "}\n";
/* ptoas's style: values vN declared with their types. TADD of a float and an
 * int32 tile fails inside pto-isa's templates; S sets the tiles' shape, A, B, C
 * the value numbers, so that jobs fail alike with other names and shapes. */
#define VT(T, S) "Tile<TileType::Vec, " T ", " S ", BLayout::RowMajor, " S ", SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>"
#define CPP_ALIKE(S, A, B, C)                                                                            \
  CPP_HEAD "AICORE void k(__gm__ float *v1) {\n"                                                        \
  "  " VT("float", S) " v" A ";\n"                                                                      \
  "  " VT("int32_t", S) " v" B ";\n"                                                                    \
  "  " VT("float", S) " v" C ";\n"                                                                      \
  "  TASSIGN(v" A ", 0);\n"                                                                             \
  "  TASSIGN(v" B ", 8192);\n"                                                                          \
  "  TASSIGN(v" C ", 16384);\n"                                                                         \
  "  TADD(v" C ", v" A ", v" B ");\n"                                                                   \
  "}\n"
/* writes just past a 16-float tensor and just before it: into the canary */
static const char CPP_OOB_AFTER[] = CPP_HEAD "AICORE void k(__gm__ float *a) { a[16] = 1; }\n";
static const char CPP_OOB_BEFORE[] = CPP_HEAD "AICORE void k(__gm__ float *a) { a[-1] = 1; }\n";
/* a job whose C++ calls a cross-core flag function pto-isa's CPU simulation lacks */
static const char CPP_FLAG[] = CPP_HEAD "AICORE void k(__gm__ float *a) {\n  set_intra_block(PIPE_MTE3, 0);\n}\n";
static const char CPP_PTOAS_LLVM[] = "// llvm-error\n";

/* ---- jobs ------------------------------------------------------------------------- */

enum { N32 = 32 * 32, N16 = 16 * 16 };

static unsigned char canary[N32 * 4];

static void param(RealParam *p, const char *ctype, const void *init, size_t bytes) {
  p->ctype = ctype;
  p->bytes = bytes;
  p->init = init;
  p->out = NULL;
}

static RealJob job(const char *pto, const char *arch, const char *cube, const char *vec, int lanes, size_t slot,
                   RealParam *p, int np) {
  RealJob j;
  memset(&j, 0, sizeof j);
  j.pto = pto;
  j.arch = arch;
  j.fn_cube = cube;
  j.fn_vec = vec;
  j.lanes = lanes;
  j.slot_bytes = slot;
  j.p = p;
  j.np = np;
  return j;
}

static void free_outs(RealJob *j) {
  for (int k = 0; k < j->np; k++) {
    free(j->p[k].out);
    j->p[k].out = NULL;
  }
}

/* The job reached stage want; says where it stopped otherwise. */
static bool stage_is(Tap *t, const RealJob *j, RealStage want, const char *id, const char *what) {
  if (tap_ok(t, j->st == want, id, "%s: %s", what, orc_real_stage_name(want))) return true;
  tap_diag("got %s: %s", orc_real_stage_name(j->st), j->msg);
  return false;
}

/* Parameter k came back as exactly `want`. */
static void bytes_are(Tap *t, const RealJob *j, int k, const void *want, const char *id, const char *what) {
  const RealParam *p = &j->p[k];
  bool ok = p->out && !memcmp(p->out, want, p->bytes);
  if (!tap_ok(t, ok, id, "%s", what) && p->out) {
    for (size_t i = 0; i < p->bytes; i++)
      if (p->out[i] != ((const unsigned char *)want)[i]) {
        tap_diag("first difference at byte %zu: 0x%02x, expected 0x%02x", i, p->out[i],
                 ((const unsigned char *)want)[i]);
        break;
      }
  }
}

/* Jobs for ptoas alone (RealOpts.ptoas_only): the PTO-AS ptoc prints of each
 * variant of kernel text (none@a2a3, none@a5, up_down, left_right), those that
 * compile; appended at jobs[*n] (at most max), texts malloc'd. */
static void pto_jobs(const char *name, const char *text, size_t len, RealJob *jobs, int *n, int max) {
  static const struct {
    int split, target;
  } vo[4] = {{MODE_NONE, TGT_A2A3}, {MODE_NONE, TGT_A5}, {MODE_UD, -1}, {MODE_LR, -1}};
  Comp c = {.A = ir_arena_new(), .src = {name, text, len}, .o = {.split = -1, .target = -1}};
  Kernel *front = ir_front(&c);
  for (int v = 0; v < 4 && front && *n < max; v++) {
    Comp d = {.A = ir_arena_new(), .src = c.src, .o = {.split = vo[v].split, .target = vo[v].target}};
    Kernel *k = pass_pipeline_from(&d, front, &(PipeOpts){0});
    PtoNames nm = {k ? ir_fmt(d.A, "%s_aic", k->name) : NULL, k ? ir_fmt(d.A, "%s_aiv", k->name) : NULL, NULL, NULL};
    const char *pto = k ? ir_emit_pto(&d, k, &nm) : NULL;
    if (pto) {
      static char fn[] = "kernel";             /* not called: ptoas only */
      jobs[*n] = job(strdup(pto), k->target == TGT_A5 ? "a5" : "a3", NULL, fn, 1, 0, NULL, 0);
      ++*n;
    }
    ir_arena_free(d.A);
  }
  ir_arena_free(c.A);
}

int main(void) {
  Tap t = {0};
  RealTools tools;
  if (!orc_real_find(&tools, NULL, NULL)) {
    printf("1..0 # SKIP %s\n", tools.why);
    return 0;
  }
  tap_diag("ptoas %s (%s), pto-isa %s, %s, linker %s", tools.version, tools.ptoas, tools.isa, tools.cxx,
           *tools.lld ? tools.lld : "the compiler's default");
  memset(canary, 0xa5, sizeof canary);

  /* inputs and expected outputs */
  static float fa[N32], fb[N32], fc[N32];
  static uint16_t ha[N32], hb[N32], hc[N32];
  static int32_t ia[N32], ib[N32], ic[N32];
  for (int i = 0; i < N32; i++) {
    fa[i] = (float)i * 0.25f - 100.0f;
    fb[i] = (float)(i % 7) * 1.5f;
    fc[i] = fa[i] + fb[i];
    ha[i] = sim_f32_to_f16((float)(i % 64));
    hb[i] = sim_f32_to_f16((float)(i % 7) * 0.5f);
    hc[i] = sim_f32_to_f16((float)(i % 64) + (float)(i % 7) * 0.5f);   /* exact in f16 */
    ia[i] = i * 1000 - 7;
    ib[i] = -3 * i;
    ic[i] = ia[i] + ib[i];
  }
  static float ma[N16], mb[N16], mc[N16];
  for (int i = 0; i < 16; i++)
    for (int k = 0; k < 16; k++) {
      ma[i * 16 + k] = (float)((i * 3 + k) % 5 - 2);
      mb[i * 16 + k] = (float)((i + 2 * k) % 7 - 3);
    }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      float s = 0;
      for (int k = 0; k < 16; k++) s += ma[i * 16 + k] * mb[k * 16 + j];   /* small integers: exact */
      mc[i * 16 + j] = s;
    }

  enum { J_VADD, J_VADD5, J_HALF, J_INT, J_MM, J_MM2, J_REJECT, J_HANG, J_NOFN, J_FFTS, NJ };
  RealParam p[NJ][3];
  RealJob jobs[NJ];
  const char *vadd_f32 = VADD("f32"), *vadd_f16 = VADD("f16"), *vadd_i32 = VADD("i32");
  param(&p[J_VADD][0], "float", fa, sizeof fa);
  param(&p[J_VADD][1], "float", fb, sizeof fb);
  param(&p[J_VADD][2], "float", canary, sizeof fc);
  jobs[J_VADD] = job(vadd_f32, "a3", NULL, "vadd", 1, 0, p[J_VADD], 3);
  memcpy(p[J_VADD5], p[J_VADD], sizeof p[J_VADD]);
  jobs[J_VADD5] = job(vadd_f32, "a5", NULL, "vadd", 1, 0, p[J_VADD5], 3);
  param(&p[J_HALF][0], "half", ha, sizeof ha);
  param(&p[J_HALF][1], "half", hb, sizeof hb);
  param(&p[J_HALF][2], "half", canary, sizeof hc);
  jobs[J_HALF] = job(vadd_f16, "a3", NULL, "vadd", 1, 0, p[J_HALF], 3);
  param(&p[J_INT][0], "int32_t", ia, sizeof ia);
  param(&p[J_INT][1], "int32_t", ib, sizeof ib);
  param(&p[J_INT][2], "int32_t", canary, sizeof ic);
  jobs[J_INT] = job(vadd_i32, "a3", NULL, "vadd", 1, 0, p[J_INT], 3);
  param(&p[J_MM][0], "float", ma, sizeof ma);
  param(&p[J_MM][1], "float", mb, sizeof mb);
  param(&p[J_MM][2], "float", canary, sizeof mc);
  jobs[J_MM] = job(MATMUL_ONE, "a3", "mm_cube", "mm_vec", 1, 8192, p[J_MM], 3);
  memcpy(p[J_MM2], p[J_MM], sizeof p[J_MM]);
  jobs[J_MM2] = job(MATMUL_UD, "a3", "mm_cube", "mm_vec", 2, 8192, p[J_MM2], 3);
  memcpy(p[J_REJECT], p[J_VADD], sizeof p[J_VADD]);
  jobs[J_REJECT] = job(NOT_PTO, "a3", NULL, "f", 1, 0, p[J_REJECT], 1);
  memcpy(p[J_HANG], p[J_MM], sizeof p[J_MM]);
  /* the cube function is not run: the vector side's pop waits for a push that never comes */
  jobs[J_HANG] = job(MATMUL_ONE, "a3", NULL, "mm_vec", 1, 8192, p[J_HANG], 3);
  memcpy(p[J_NOFN], p[J_VADD], sizeof p[J_VADD]);
  jobs[J_NOFN] = job(vadd_f32, "a3", NULL, "no_such_function", 1, 0, p[J_NOFN], 3);
  memcpy(p[J_FFTS], p[J_VADD], sizeof p[J_VADD]);   /* a3 flags: an FFTS base after the slot buffer */
  jobs[J_FFTS] = job(VADD_MORE("f32", ", %slot: !pto.ptr<f32>, %ffts: memref<256xi64>"), "a3", NULL, "vadd", 1, 8192,
                     p[J_FFTS], 3);
  jobs[J_FFTS].ffts_vec = true;

  RealOpts o = {.jobs = 2, .batch = 16, .run_timeout_s = 2};
  orc_real_run(&tools, jobs, NJ, &o);
  for (int i = 0; i < NJ; i++)
    tap_diag("job %d: %-10s ptoas %6.1f ms, c++ %7.1f ms, run %7.1f ms  %s", i, orc_real_stage_name(jobs[i].st),
             jobs[i].t_ptoas, jobs[i].t_cxx, jobs[i].t_run, jobs[i].msg);

  /* ---- 1: vector-only kernels, every element type ---- */
  if (stage_is(&t, &jobs[J_VADD], RS_OK, "real-1.1", "f32 vadd on a3")) {
    bytes_are(&t, &jobs[J_VADD], 2, fc, "real-1.2", "f32 vadd: c = a + b");
    bytes_are(&t, &jobs[J_VADD], 0, fa, "real-1.3", "f32 vadd: a unchanged");
    bytes_are(&t, &jobs[J_VADD], 1, fb, "real-1.4", "f32 vadd: b unchanged");
  }
  if (stage_is(&t, &jobs[J_VADD5], RS_OK, "real-1.5", "f32 vadd on a5"))
    bytes_are(&t, &jobs[J_VADD5], 2, fc, "real-1.6", "f32 vadd on a5: c = a + b");
  if (stage_is(&t, &jobs[J_HALF], RS_OK, "real-1.7", "f16 vadd (half* parameters)"))
    bytes_are(&t, &jobs[J_HALF], 2, hc, "real-1.8", "f16 vadd: c = a + b");
  if (stage_is(&t, &jobs[J_INT], RS_OK, "real-1.9", "i32 vadd (int32_t* parameters)"))
    bytes_are(&t, &jobs[J_INT], 2, ic, "real-1.10", "i32 vadd: c = a + b");
  if (stage_is(&t, &jobs[J_FFTS], RS_OK, "real-1.11", "a function taking a slot buffer and an FFTS base is passed both"))
    bytes_are(&t, &jobs[J_FFTS], 2, fc, "real-1.12", "f32 vadd with an FFTS base: c = a + b");

  /* ---- 2: cube and vector threads over a C2V pipe ---- */
  if (stage_is(&t, &jobs[J_MM], RS_OK, "real-2.1", "matmul pushed cube to vector, one lane")) {
    bytes_are(&t, &jobs[J_MM], 2, mc, "real-2.2", "c = a x b");
    bytes_are(&t, &jobs[J_MM], 0, ma, "real-2.3", "a unchanged");
  }
  if (stage_is(&t, &jobs[J_MM2], RS_OK, "real-2.4", "matmul pushed cube to vector split up/down, two lanes"))
    bytes_are(&t, &jobs[J_MM2], 2, mc, "real-2.5", "each lane stores its half of c = a x b");

  /* ---- 3: failures, each at its stage ---- */
  if (stage_is(&t, &jobs[J_REJECT], RS_REJECT, "real-3.1", "invalid PTO-AS"))
    tap_ok(&t, !strncmp(jobs[J_REJECT].msg, "error: ", 7) && strstr(jobs[J_REJECT].msg, "no_such_op"), "real-3.2",
           "reject message is ptoas's first error, without the file: %s", jobs[J_REJECT].msg);
  tap_ok(&t, jobs[J_REJECT].p[0].out == NULL, "real-3.3", "no outputs unless ok");
  if (stage_is(&t, &jobs[J_HANG], RS_RUN_HANG, "real-3.4", "pop with no pusher"))
    tap_ok(&t, jobs[J_HANG].t_run >= 1900 && jobs[J_HANG].t_run < 6000, "real-3.5", "killed at the 2 s limit (%.0f ms)",
           jobs[J_HANG].t_run);
  if (stage_is(&t, &jobs[J_NOFN], RS_CXX_ERROR, "real-3.6", "calling a function ptoas did not write"))
    tap_ok(&t, strstr(jobs[J_NOFN].msg, "harness.cpp: error:") && strstr(jobs[J_NOFN].msg, "no_such_function"),
           "real-3.7", "the error is pinned on that job alone: %s", jobs[J_NOFN].msg);
  tap_ok(&t, jobs[J_VADD].t_ptoas > 0 && jobs[J_VADD].t_cxx > 0 && jobs[J_VADD].t_run > 0, "real-3.8",
         "times attributed");
  for (int i = 0; i < NJ; i++) free_outs(&jobs[i]);

  /* ---- 4: the toolchain itself broken, bad jobs ---- */
  RealTools bogus = tools;
  strcpy(bogus.ptoas, "/nonexistent/ptoas");
  RealParam bp[3];
  memcpy(bp, p[J_VADD], sizeof bp);
  RealJob bj[2] = {job(vadd_f32, "a3", NULL, "vadd", 1, 0, bp, 3), job(vadd_f32, "a9", NULL, "vadd", 1, 0, bp, 3)};
  orc_real_run(&bogus, bj, 1, &o);
  if (stage_is(&t, &bj[0], RS_TOOL_ERROR, "real-4.1", "ptoas missing"))
    tap_ok(&t, strstr(bj[0].msg, "/nonexistent/ptoas") && strstr(bj[0].msg, "No such file"), "real-4.2",
           "says which tool and why: %s", bj[0].msg);
  orc_real_run(&tools, bj + 1, 1, &o);
  if (stage_is(&t, &bj[1], RS_TOOL_ERROR, "real-4.3", "unknown arch"))
    tap_ok(&t, strstr(bj[1].msg, "bad job") != NULL, "real-4.4", "named a bad job: %s", bj[1].msg);
  RealTools none;
  tap_ok(&t, !orc_real_find(&none, "/nonexistent/ptoas", NULL) && strstr(none.why, "/nonexistent/ptoas"), "real-4.5",
         "a bad --ptoas flag is not silently replaced: %s", none.why);
  tap_ok(&t, !strcmp(orc_real_stage_name(RS_PTOAS_CRASH), "ptoas-crash") &&
                 !strcmp(orc_real_stage_name(RS_TOOL_ERROR), "tool-error") && !strcmp(orc_real_stage_name(RS_N), "?"),
         "real-4.6", "stage names");

  /* ---- 5: a stand-in ptoas, to reach every stage ---- */
  char dir[] = "/tmp/t_real-XXXXXX", script[64];
  if (!mkdtemp(dir)) {
    tap_ok(&t, 0, "real-5.0", "temporary directory");
    return tap_done(&t);
  }
  snprintf(script, sizeof script, "%s/ptoas", dir);
  FILE *f = fopen(script, "w");
  if (f) {
    fputs(FAKE_PTOAS, f);
    fclose(f);
  }
  chmod(script, 0755);
  RealTools fake = tools;
  snprintf(fake.ptoas, sizeof fake.ptoas, "%s", script);
  enum { FK_OK, FK_TEMPLATE, FK_SYNTAX, FK_ASSERT, FK_EXIT, FK_THROW, FK_ABORT, FK_LLVM, NF };
  static const char *const texts[NF] = {CPP_OK,   CPP_TEMPLATE_ERROR, CPP_SYNTAX_ERROR, CPP_ASSERT,
                                        CPP_EXIT, CPP_THROW,          CPP_PTOAS_ABORT,  CPP_PTOAS_LLVM};
  float x[16], x2[16];
  for (int i = 0; i < 16; i++) {
    x[i] = (float)i - 3.5f;
    x2[i] = x[i] * 2 + 1;
  }
  RealParam fp[NF];
  RealJob fj[NF];
  for (int i = 0; i < NF; i++) {
    param(&fp[i], "float", x, sizeof x);
    fj[i] = job(texts[i], "a3", NULL, "k", 1, 0, &fp[i], 1);
  }
  orc_real_run(&fake, fj, NF, &o);
  for (int i = 0; i < NF; i++)
    tap_diag("fake %d: %-11s c++ %6.1f ms, run %6.1f ms  %s", i, orc_real_stage_name(fj[i].st), fj[i].t_cxx,
             fj[i].t_run, fj[i].msg);
  if (stage_is(&t, &fj[FK_OK], RS_OK, "real-5.1", "good C++ in a batch with bad"))
    bytes_are(&t, &fj[FK_OK], 0, x2, "real-5.2", "its output");
  if (stage_is(&t, &fj[FK_TEMPLATE], RS_CXX_ERROR, "real-5.3", "error inside a pto-isa template"))
    tap_ok(&t, !strncmp(fj[FK_TEMPLATE].msg, "pto_instr.hpp: error: ", 22), "real-5.4",
           "pinned on the job by the instantiation notes, named by the header: %s", fj[FK_TEMPLATE].msg);
  if (stage_is(&t, &fj[FK_SYNTAX], RS_CXX_ERROR, "real-5.5", "syntax error in the kernel"))
    tap_ok(&t, !strcmp(fj[FK_SYNTAX].msg, "kernel.cpp: error: expected expression"), "real-5.6", "message: %s",
           fj[FK_SYNTAX].msg);
  if (stage_is(&t, &fj[FK_ASSERT], RS_RUN_CRASH, "real-5.7", "pto-isa assertion"))
    tap_ok(&t, !strncmp(fj[FK_ASSERT].msg, "SIGABRT: ", 9) && strstr(fj[FK_ASSERT].msg, "Assertion"), "real-5.8",
           "names the signal and the assertion: %.100s", fj[FK_ASSERT].msg);
  if (stage_is(&t, &fj[FK_EXIT], RS_RUN_CRASH, "real-5.9", "non-zero exit"))
    tap_ok(&t, !strcmp(fj[FK_EXIT].msg, "exit 7"), "real-5.10", "message: %s", fj[FK_EXIT].msg);
  if (stage_is(&t, &fj[FK_THROW], RS_RUN_CRASH, "real-5.11", "uncaught exception"))
    tap_ok(&t, !strcmp(fj[FK_THROW].msg, "exit 3: uncaught exception: boom"), "real-5.12", "message: %s",
           fj[FK_THROW].msg);
  if (stage_is(&t, &fj[FK_ABORT], RS_PTOAS_CRASH, "real-5.13", "ptoas killed by a signal"))
    tap_ok(&t, !strncmp(fj[FK_ABORT].msg, "ptoas killed by SIGABRT", 23), "real-5.14", "message: %s", fj[FK_ABORT].msg);
  if (stage_is(&t, &fj[FK_LLVM], RS_PTOAS_CRASH, "real-5.15", "ptoas exit 1 with LLVM ERROR"))
    tap_ok(&t, strstr(fj[FK_LLVM].msg, "LLVM ERROR: fake failure") != NULL, "real-5.16", "message: %s", fj[FK_LLVM].msg);
  for (int i = 0; i < NF; i++) free_outs(&fj[i]);

  /* ---- 7: the serial parallel.hpp; a failing job costs the others one compile ---- */
  float ones[16];
  for (int i = 0; i < 16; i++) ones[i] = 1;
  enum { S_SERIAL, S_OK1, S_ALIKE1, S_ALIKE2, S_OK2, S_ALIKE3, S_FLAG, NS };
  static const char *const stexts[NS] = {CPP_SERIAL,
                                         CPP_OK,
                                         CPP_ALIKE("16, 16", "3", "4", "5"),
                                         CPP_ALIKE("16, 16", "7", "12", "9"),
                                         CPP_OK,
                                         CPP_ALIKE("16, 16", "21", "22", "20"),
                                         CPP_FLAG};
  RealParam sp[NS];
  RealJob sj[NS];
  for (int i = 0; i < NS; i++) {
    param(&sp[i], "float", x, sizeof x);
    sj[i] = job(stexts[i], "a3", NULL, "k", 1, 0, &sp[i], 1);
  }
  RealMemo *memo = orc_real_memo_new();
  RealOpts mo = o;
  mo.memo = memo;
  orc_real_run(&fake, sj, NS, &mo);
  for (int i = 0; i < NS; i++)
    tap_diag("job %d: %-10s %d compile(s)  %s", i, orc_real_stage_name(sj[i].st), sj[i].cxx_runs, sj[i].msg);
  if (stage_is(&t, &sj[S_SERIAL], RS_OK, "real-7.1", "a program sees ptofuzz's pto/cpu/parallel.hpp"))
    bytes_are(&t, &sj[S_SERIAL], 0, ones, "real-7.2", "parallel_for_1d over 2^20 elements runs on the calling thread");
  bool same = true, twice = true;
  for (int i = S_ALIKE1; i <= S_ALIKE3; i++) {
    if (i == S_OK2) continue;
    same &= sj[i].st == RS_CXX_ERROR && !strcmp(sj[i].msg, sj[S_ALIKE1].msg);
    twice &= sj[i].cxx_runs <= 2;
  }
  tap_ok(&t, same && !strncmp(sj[S_ALIKE1].msg, "pto_instr.hpp: error: ", 22), "real-7.3",
         "three jobs with one failing instantiation each get its error: %s", sj[S_ALIKE1].msg);
  tap_ok(&t, twice && sj[S_OK1].st == RS_OK && sj[S_OK2].st == RS_OK && sj[S_OK1].cxx_runs == 2 &&
                 sj[S_OK2].cxx_runs == 2 && sj[S_SERIAL].cxx_runs == 2,
         "real-7.4", "their unit is compiled twice: once failing, once without them (each of those at most twice)");
  tap_ok(&t, sj[S_FLAG].st == RS_CXX_ERROR && strstr(sj[S_FLAG].msg, "set_intra_block") && sj[S_FLAG].cxx_runs == 1,
         "real-7.5", "a job calling a flag function the simulation lacks is compiled once, apart: %s", sj[S_FLAG].msg);
  for (int i = 0; i < NS; i++) free_outs(&sj[i]);
  /* the memo: a job of a shape that failed before is compiled apart at once */
  RealParam mp[2];
  RealJob mj[2];
  param(&mp[0], "float", x, sizeof x);
  param(&mp[1], "float", x, sizeof x);
  mj[0] = job(CPP_OK, "a3", NULL, "k", 1, 0, &mp[0], 1);
  mj[1] = job(CPP_ALIKE("32, 32", "8", "6", "2"), "a3", NULL, "k", 1, 0, &mp[1], 1);
  orc_real_run(&fake, mj, 2, &mo);
  tap_diag("memo: %s %d compile(s); %s %d compile(s) %s", orc_real_stage_name(mj[0].st), mj[0].cxx_runs,
           orc_real_stage_name(mj[1].st), mj[1].cxx_runs, mj[1].msg);
  tap_ok(&t, mj[0].st == RS_OK && mj[0].cxx_runs == 1 && mj[1].st == RS_CXX_ERROR && mj[1].cxx_runs == 1 &&
                 !strcmp(mj[1].msg, sj[S_ALIKE1].msg),
         "real-7.6", "with the memo, a job alike one that failed (other shapes) is compiled apart; the other compiles once");
  for (int i = 0; i < 2; i++) free_outs(&mj[i]);
  orc_real_run(&fake, mj, 2, &o);
  tap_ok(&t, mj[0].st == RS_OK && mj[0].cxx_runs == 2 && mj[1].st == RS_CXX_ERROR && !strcmp(mj[1].msg, sj[S_ALIKE1].msg),
         "real-7.7", "without it the same two take two compiles, with the same outcomes");
  for (int i = 0; i < 2; i++) free_outs(&mj[i]);
  orc_real_memo_free(memo);

  /* ---- 8: a write outside a tensor, into the canary around it ---- */
  RealParam op[2];
  RealJob oj[2];
  param(&op[0], "float", x, sizeof x);
  param(&op[1], "float", x, sizeof x);
  oj[0] = job(CPP_OOB_AFTER, "a3", NULL, "k", 1, 0, &op[0], 1);
  oj[1] = job(CPP_OOB_BEFORE, "a3", NULL, "k", 1, 0, &op[1], 1);
  orc_real_run(&fake, oj, 2, &o);
  for (int i = 0; i < 2; i++)
    tap_ok(&t, oj[i].st == RS_RUN_CRASH && !strcmp(oj[i].msg, "a write outside a GM tensor"), i ? "real-8.2" : "real-8.1",
           "a write just %s a tensor is found: %s: %s", i ? "before" : "after", orc_real_stage_name(oj[i].st), oj[i].msg);
  for (int i = 0; i < 2; i++) free_outs(&oj[i]);

  /* ---- 9: ptoas run once for a group of jobs: each job's C++ is its own run's ---- */
  enum { NGEN = 20, MAXJ = 4 * NGEN + 8 };
  static RealJob aj[MAXJ], gj[MAXJ];
  int na = 0;
  FzPolicy pol;
  fz_policy_default(&pol);
  for (int i = 0; i < NGEN; i++) {
    FzSrc src;
    fz_src_seed(&src, 11 + (uint64_t)i);
    FzKernel *k = fz_generate(&pol, &src);
    size_t len;
    char *text = fz_emit(k, &len);
    if (text) pto_jobs("gen", text, len, aj, &na, MAXJ);
    free(text);
    fz_free(k);
  }
  /* rf14: ptoas rejects its none@a2a3 (a reserve_buffer with no room); abs-nan: vector functions only */
  static const char *const files[] = {"corpus/real/rf14-reserve-noreuse.ptk", "corpus/real/abs-nan.ptk"};
  int reject = -1;
  for (int f = 0; f < 2; f++) {
    Arena *A = ir_arena_new();
    Src src;
    if (ir_read_file(A, files[f], &src)) {
      if (f == 0) reject = na;
      pto_jobs(files[f], src.text, src.len, aj, &na, MAXJ);
    } else {
      tap_diag("cannot read %s (run from the top of the tree)", files[f]);
    }
    ir_arena_free(A);
  }
  memcpy(gj, aj, sizeof aj);
  RealOpts alone = {.jobs = 2, .ptoas_group = 1, .ptoas_only = true};
  RealOpts merged = {.jobs = 2, .ptoas_only = true, .memo = orc_real_memo_new()};
  orc_real_run(&tools, aj, na, &alone);
  double t_alone = 0, t_merged = 0;
  for (int i = 0; i < na; i++) t_alone += aj[i].t_ptoas;
  for (int pass = 0; pass < 2; pass++) {        /* the second time the memo holds ptoas's header */
    for (int i = 0; i < na; i++) {
      free(gj[i].cpp);
      gj[i].cpp = NULL;
    }
    orc_real_run(&tools, gj, na, &merged);
    if (pass == 0)
      for (int i = 0; i < na; i++) t_merged += gj[i].t_ptoas;
    int same = 0, ok = 0, single = 0;
    char bad[300] = "";
    for (int i = 0; i < na; i++) {
      bool eq = gj[i].st == aj[i].st && !strcmp(gj[i].msg, aj[i].msg) &&
                (gj[i].st != RS_OK || (gj[i].cpp && aj[i].cpp && !strcmp(gj[i].cpp, aj[i].cpp)));
      same += eq;
      ok += aj[i].st == RS_OK;
      single += aj[i].st == RS_OK && !strstr(aj[i].cpp, "_aic(");
      if (!eq && !bad[0])
        snprintf(bad, sizeof bad, "job %d: alone %s %.80s, merged %s %.80s%s", i, orc_real_stage_name(aj[i].st),
                 aj[i].msg, orc_real_stage_name(gj[i].st), gj[i].msg, gj[i].st == aj[i].st ? " (the C++ differs)" : "");
    }
    if (*bad) tap_diag("%s", bad);
    tap_ok(&t, na >= 30 && same == na && ok >= na - 2 && single > 0, pass ? "real-9.2" : "real-9.1",
           "%d jobs (%d through ptoas, %d with vector functions only): merged and split, each job's stage, message "
           "and C++ are its own run's%s", na, ok, single, pass ? " (header from the memo)" : "");
  }
  tap_diag("ptoas: %.0f ms for the jobs alone, %.0f ms merged", t_alone, t_merged);
  tap_ok(&t, t_merged < 0.75 * t_alone, "real-9.3", "merged runs take less time: %.0f ms against %.0f ms", t_merged,
         t_alone);
  if (reject >= 0 && stage_is(&t, &gj[reject], RS_REJECT, "real-9.4", "a rejected job in a merged group")) {
    bool others = true;
    for (int i = reject + 1; i < reject + 4 && i < na; i++) others &= gj[i].st == RS_OK;
    tap_ok(&t, !strcmp(gj[reject].msg, aj[reject].msg) && strstr(gj[reject].msg, "reserve_buffer") && others,
           "real-9.5", "gets the message of its own run, and its group's others pass: %s", gj[reject].msg);
  } else if (reject < 0) {
    tap_ok(&t, 0, "real-9.4", "a rejected job in a merged group (no corpus/real)");
  }
  for (int i = 0; i < na; i++) {
    free((char *)aj[i].pto);
    free(aj[i].cpp);
    free(gj[i].cpp);
  }
  orc_real_memo_free(merged.memo);

  /* ---- 6: finding the tools ---- */
  char broken[64], isa_inc[sizeof tools.isa + 16];
  snprintf(broken, sizeof broken, "%s/broken-ptoas", dir);
  if ((f = fopen(broken, "w"))) {
    fputs("#!/bin/sh\necho \"ptoas: error while loading shared libraries: libLLVM.so.19.1: cannot open shared "
          "object file\" >&2\nexit 127\n", f);
    fclose(f);
  }
  chmod(broken, 0755);
  RealTools r;
  tap_ok(&t, !orc_real_find(&r, broken, NULL) && strstr(r.why, "does not run: ptoas: error while loading"),
         "real-6.1", "a ptoas that cannot start: %s", r.why);
  snprintf(isa_inc, sizeof isa_inc, "%s/include", tools.isa);
  tap_ok(&t, orc_real_find(&r, NULL, isa_inc) && !strcmp(r.isa, tools.isa), "real-6.2",
         "pto-isa given as its include directory: %s", r.isa);
  setenv("PTOAS", "/nonexistent/ptoas", 1);
  tap_ok(&t, !orc_real_find(&r, NULL, NULL) && strstr(r.why, "$PTOAS"), "real-6.3", "$PTOAS is used: %s", r.why);
  tap_ok(&t, orc_real_find(&r, tools.ptoas, NULL) && !strcmp(r.version, tools.version), "real-6.4",
         "a flag comes before $PTOAS");
  unsetenv("PTOAS");
  unlink(broken);
  unlink(script);
  rmdir(dir);
  return tap_done(&t);
}
