/* gen.h — the header of libfuzzgen, the kernel generator (DESIGN section 10;
 * its files are gen/). Policy, generation and emission are kept apart: a
 * choice source (choice.c) makes every random decision, a policy (policy.c)
 * holds every probability and limit, the generator (gen.c, with one file per
 * construct family beside it: values.c, gm.c, slices.c, blocks.c, explicit.c,
 * blind.c) builds a small AST of its own that is valid by construction, and
 * the emitter (emit.c) renders it as .ptk text; coverage.c measures the
 * constructs a set of kernel texts uses. Sectioned by the file that defines
 * each part; exported names carry the prefix fz_. No global mutable state.
 * The last section is private to the generator's files; the drivers (fuzz/)
 * see the rest through fuzz/fz.h. */
#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- choice.c: the one choice source ------------------------------------------ */

/* Two implementations behind one type: a seeded PRNG (xoshiro256**, seeded by
 * splitmix64; integer-only, so identical on every machine) and a byte buffer
 * for coverage-guided fuzzers. A byte source that runs dry answers every
 * question with its default (choice 0, "no"), so generation still ends with a
 * small valid kernel. */
typedef struct FzSrc {
  bool bytes;                                   /* byte-buffer source */
  uint64_t s[4];                                /* PRNG state */
  const uint8_t *buf;
  size_t len, pos;
  uint8_t *rec;                                 /* PRNG source: the bytes that replay its choices */
  size_t rec_cap, rec_n;                        /* rec_n > rec_cap: the buffer was too small */
  bool rec_lost;                                /* a choice no byte expresses (fz_chance with p < 1/256 true) */
} FzSrc;

void fz_src_seed(FzSrc *s, uint64_t seed);
void fz_src_bytes(FzSrc *s, const uint8_t *buf, size_t len);   /* buf must outlive the generation */
uint32_t fz_below(FzSrc *s, uint32_t n);       /* 0..n-1; 0 when n <= 1 */
bool fz_chance(FzSrc *s, double p);            /* true with probability p; p <= 0 never, p >= 1 always */
int fz_range(FzSrc *s, int lo, int hi);        /* lo..hi inclusive; lo when hi <= lo */
size_t fz_src_used(const FzSrc *s);            /* bytes consumed (byte source) */
void fz_src_record(FzSrc *s, uint8_t *buf, size_t cap);   /* PRNG source: write its choices as bytes */

/* An engine input (fuzz/target.c): the generator's bytes, then optionally a
 * last line `#ptofuzz-bugs=LIST\n` (LIST: defect names, or none) naming the
 * defects it is checked with. The libFuzzer target's mutator keeps the line
 * and writes it from PTOFUZZ_BUGS, so a crash file says which defects were on
 * (docs/fuzzing.md, "Defects in crash files"). */
typedef struct {
  size_t body;                                  /* the generator's bytes: data[0, body) */
  bool named;                                   /* the input has the line */
  uint32_t bugs;                                /* the defects it names */
} FzInputBugs;
/* Split data; false (err) when the line names an unknown defect. */
bool fz_input_bugs(const uint8_t *data, size_t n, FzInputBugs *ib, char *err, size_t errn);
/* Write the line naming bugs after data[0, body) within cap bytes (body cut
 * when it must be); the new length, 0 if the line alone does not fit. */
size_t fz_input_name_bugs(uint8_t *data, size_t body, size_t cap, uint32_t bugs);

/* ---- policy.c: every probability and limit ----------------------------------------- */

/* P(name, default, doc): a probability in [0, 1]. I(name, default, lo, hi, doc):
 * an integer limit. The one table drives the struct, the defaults, the file
 * loader and the printer. */
#define FZ_POLICY(P, I)                                                                                \
  /* kernel attributes */                                                                              \
  P(p_split_up_down, 0.15, "kernel carries split(up_down)")                                           \
  P(p_split_left_right, 0.10, "kernel carries split(left_right)")                                     \
  P(p_split_none, 0.05, "kernel carries an explicit split(none)")                                     \
  P(p_target_a5, 0.20, "kernel carries target(a5)")                                                   \
  P(p_target_a2a3, 0.05, "kernel carries an explicit target(a2a3)")                                   \
  P(p_slots_1, 0.15, "kernel carries slots(1)")                                                       \
  P(p_slots_2, 0.05, "kernel carries an explicit slots(2)")                                           \
  P(p_slots_4, 0.08, "kernel carries slots(4)")                                                       \
  /* size */                                                                                           \
  I(min_stmts, 5, 1, 200, "statements aimed at, at least")                                            \
  I(max_stmts, 16, 1, 400, "statements aimed at, at most (a block in progress may overrun)")           \
  I(max_blocks, 6, 1, 64, "generation blocks per kernel")                                             \
  I(max_rows, 32, 1, 512, "largest tile row extent")                                                  \
  I(max_cols, 64, 1, 512, "largest tile column extent")                                               \
  P(p_large_tiles, 0.10, "a kernel may use twice max_rows and max_cols")                              \
  I(max_expr_depth, 3, 0, 16, "nesting depth of a vector expression")                                 \
  I(vec_budget, 150000, 4096, 1000000, "vector bytes per lane (tiles + C2V pipe reserve) aimed at")   \
  I(acc_budget, 98304, 4096, 1000000, "accumulator bytes aimed at")                                   \
  P(p_bind, 0.5, "an intermediate vector value gets a name of its own")                              \
  /* how split modes are exercised */                                                                  \
  P(p_break_up_down, 0.18, "kernel may use constructs up_down cannot split (column reductions, ...)") \
  P(p_break_left_right, 0.28, "kernel may use constructs left_right cannot split (row reductions, ...)") \
  /* shapes and valid regions */                                                                       \
  P(p_odd_extent, 0.15, "a tile extent is odd (15 rows, ...)")                                        \
  P(p_unit_extent, 0.03, "a tile extent is 1")                                                        \
  P(p_partial_valid, 0.18, "a load has a partial valid region")                                       \
  P(p_window_past_tensor, 0.35, "a partial load's physical window reaches past its tensor")           \
  P(p_zero_valid, 0.03, "a partial load has a zero valid extent")                                     \
  P(p_ragged_valid, 0.15, "a matmul's left operand has ragged valid rows (E-1 of E, or between E/2 and E-1)") \
  P(p_loop_valid, 0.3, "a load in a loop has a valid extent affine in the loop variable")            \
  P(p_offset, 0.3, "a GM window starts at a nonzero offset")                                          \
  P(p_store_margin, 0.3, "an output tensor is larger than what is stored into it")                   \
  P(p_inout, 0.05, "an output tensor is declared inout")                                              \
  /* dtypes */                                                                                         \
  P(p_f16, 0.15, "a block works on f16 data")                                                         \
  P(p_i32, 0.05, "a block works on i32 data")                                                         \
  P(p_narrow, 0.04, "a block (or a cast's source) works on bf16, i8 or i16 data")                     \
  P(p_cast, 0.08, "a vector expression node is a cast from another dtype")                            \
  /* expressions */                                                                                    \
  P(p_reuse, 0.35, "a vector leaf reuses an earlier tile (a cube tile: a C2V transfer)")             \
  P(p_full, 0.08, "a vector leaf is a full() constant")                                               \
  P(p_expand, 0.2, "a vector node is a row/col expansion")                                            \
  /* blocks: relative weights */                                                                       \
  I(w_vector, 3, 0, 100, "weight: vector-only block")                                                 \
  I(w_c2v, 3, 0, 100, "weight: matmul on the cube, result used by vector ops (C2V)")                  \
  I(w_v2c, 2, 0, 100, "weight: vector results fed to a matmul (V2C)")                                 \
  P(p_v2c_partial, 0.2, "a V2C operand's valid rows end inside lane 0's half (lane 1's part empty)")  \
  P(p_v2c_across_loop, 0.15, "a V2C operand moved to mat is read in a loop that moves to the cube and after it") \
  P(p_c2v_recross, 0.15, "a C2V block's cube tile reassigned after its vector read, then read on the vector side again") \
  I(w_both, 2, 0, 100, "weight: cube -> vector -> cube -> vector")                                    \
  I(w_softmax, 6, 0, 100, "weight: online-softmax step (needs p_break_left_right)")                   \
  I(w_loop, 2, 0, 100, "weight: loop carrying transfers and accumulators")                            \
  I(w_gather, 2, 0, 100, "weight: paged gather")                                                      \
  I(w_reduce, 2, 0, 100, "weight: reductions and expansions")                                         \
  I(w_strided, 2, 0, 100, "weight: sub-slice stores along an axis")                                   \
  I(w_assemble, 1, 0, 100, "weight: assemble")                                                        \
  P(p_assemble_slice, 0.6, "a tile assembled at an offset is sliced at an offset")                     \
  /* blind spots (after the blocks, so they draw last) */                                              \
  P(p_gm_round_trip, 0.12, "a GM round trip between the cores through an inout workspace (GM fences)") \
  P(p_near_capacity, 0.02, "a kernel ends with large tiles near one space's capacity")              \
  P(p_pressure, 0.04, "a kernel ends with a loop under memory pressure: C2V entries made before it, as many live as the slots allow, read in every iteration while the body makes buffers of its own") \
  P(p_full_inputs, 0.25, "the kernel's float inputs have full mantissas (recorded: --inputs=full)")  \
  /* cube */                                                                                           \
  P(p_trans_b, 0.4, "matmul with trans_b=1")                                                          \
  P(p_matmul_acc, 0.3, "a loop accumulates with matmul_acc")                                          \
  P(p_cube_store, 0.3, "an acc result is also stored straight from the cube")                         \
  P(p_cast_f16_pv, 0.5, "an f16 block casts the vector operand of a matmul to f16")                   \
  P(p_cube_slice, 0.15, "a box-aligned slice of an acc tile")                                         \
  P(p_cube_slice_unaligned, 0, "a cube slice ignores the fractal box (ptoc rejects it: B-SUBVIEW)")   \
  P(p_mat_store, 0.08, "a mat tile is stored (on a5 through the vector side)")                        \
  /* online softmax and sub-slices */                                                                  \
  P(p_softmax_loop, 0.5, "the online-softmax step runs across key blocks in a loop")                  \
  P(p_strided_stats, 0.5, "row statistics are stored as strided sub-slices")                          \
  P(p_subslice_loop, 0.6, "sub-slice stores run in a loop (else one block)")                          \
  P(p_subslice_op, 0.3, "a sub-slice passes through an element-wise op before its store")             \
  P(p_slice_late, 0.3, "a one-block sub-slice is named, and a new tile of its parent's shape is made before it is read") \
  /* transfers and loops */                                                                            \
  P(p_loop_wrap, 0.2, "a vector or C2V block runs inside a loop")                                     \
  P(p_loop_step, 0.2, "a loop has a nonzero start or a step of 2")                                    \
  P(p_loop_ragged, 0.5, "a loop with a step of 2 ends before its last step is whole")                 \
  I(loop_trips_min, 2, 1, 64, "fewest loop iterations")                                               \
  I(loop_trips_max, 4, 1, 64, "most loop iterations")                                                 \
  P(p_both_in_loop, 0.5, "a transfer loop goes both ways (V2C back into a matmul)")                   \
  P(p_running_max, 0.4, "a transfer loop carries a running row max")                                  \
  /* explicit split_aiv kernels */                                                                     \
  P(p_explicit_split, 0.08, "the kernel is written with split_aiv")                                   \
  P(p_rebalance, 0.02, "the kernel is one C2V transfer up_down must rebalance (lanes no split code fits), claimed to compile") \
  P(p_explicit_left_right, 0.3, "an explicit kernel splits columns")                                  \
  P(p_explicit_odd, 0.3, "an explicit kernel shards an odd extent (lanes of ceil and floor)")      \
  P(p_explicit_gather, 0.6, "an explicit kernel joins halves with aic_gather for a cube matmul")      \
  P(p_explicit_loop, 0.3, "the split_aiv region sits in a loop over key blocks")                      \
  P(p_lane_scalar, 0.4, "lane offsets use a subblock_idx() scalar")                                   \
  P(p_lane_load, 0.5, "a lane loads its own half of a tensor")                                        \
  P(p_set_validshape, 0.3, "a looped C2V chain's valid rows set per iteration (set_validshape)")      \
  P(p_transpose, 0.12, "a vector or C2V result is transposed before its store (the split axis moves)") \
  P(p_reshape, 0.35, "a fully valid vector result is reshaped before its store (lane bands kept)")    \
  P(p_task_parallel, 0.3, "task-parallel work in split_aiv: each lane loads a whole GM tile")        \
  P(p_lane_cond, 0.4, "a split_aiv region branches on the lane (if/else or a bounded while)")        \
  P(p_lane_while, 0.4, "... the branch is a bounded while with a carried counter")                   \
  P(p_lane0_store, 0.5, "a value equal in both lanes is stored with lane=0")                           \
  P(p_explicit_regions, 0.35, "an explicit kernel has a second split_aiv region on the other axis")   \
  P(p_explicit_outer_move, 0.3, "an explicit kernel moves its cube tile whole to vec outside its regions and stores it there") \
  P(p_explicit_whole, 0.25, "an explicit kernel reads a whole cube tile in a region (refused E-SHARD-WHOLE: lane 1's copy is zeros)") \
  P(p_explicit_outer_none, 0.5, "... the whole move outside the regions is written aiv_shard(t, none)")  \
  P(p_explicit_neg, 0.25, "an explicit kernel holds one construct check_split must refuse (both axes in one region, a lane term on a store's other axis, a stride= no split code fits)") \
  /* paged gather */                                                                                   \
  P(p_gather_mat, 0.3, "a paged gather goes into a mat tile (any block size and index table)")        \
  I(gather_block_min, 2, 1, 64, "smallest gather block size")                                         \
  I(gather_block_max, 16, 1, 64, "largest gather block size")                                         \
  I(gather_pages_max, 6, 1, 32, "most logical pages")                                                 \
  P(p_gather_permuted, 0.6, "the page table is permuted")                                             \
  P(p_gather_shared_page, 0.3, "two logical pages share a physical page")                            \
  P(p_gather_partial_last_page, 0.4, "the last page is partly filled")                                \
  P(p_gather_fewer_indices, 0.5, "fewer indices than max_indices")                                   \
  P(p_gather_col_off, 0.4, "the gather starts at a column offset")                                \
  /* generator blind spots: windows, scalar extents, explicit moves */                                \
  P(p_gather_window, 0.12, "a vector gather reads a window=[first, count] of a longer index table")    \
  P(p_scalar_extent, 0.12, "a partial load's valid rows are an imin/clamp scalar computed before it") \
  P(p_explicit_rebalance, 0.25, "an explicit up_down shard's source has valid rows the box stride cannot place (stride=)") \
  I(w_move, 1, 0, 100, "weight: an explicit move(t, space) in one of the language's seven directions") \
  /* the real PyPTO back end (DESIGN 16, docs/pypto.md): drawn only when > 0, so 0 keeps every stream */ \
  P(pypto_share, 0, "a kernel is built only from constructs ptoc --emit=pypto translates on PyPTO b25b25a4a (split mode, f32 or f16 matmuls, sub-slice stores on the split axis)")

typedef struct {
#define FZ_P_(n, d, doc) double n;
#define FZ_I_(n, d, lo, hi, doc) int n;
  FZ_POLICY(FZ_P_, FZ_I_)
#undef FZ_P_
#undef FZ_I_
} FzPolicy;

void fz_policy_default(FzPolicy *p);
/* Reads `key = value` lines (# comments, blank lines) over the current
 * contents of p. Unknown keys, malformed or out-of-range values: false with
 * `file:line: message` in err. A file over FZ_POLICY_MAX bytes is refused
 * unread past the limit. */
enum { FZ_POLICY_MAX = 1 << 20 };
bool fz_policy_load(FzPolicy *p, const char *path, char *err, size_t n);
bool fz_policy_parse(FzPolicy *p, const char *name, const char *text, char *err, size_t n);
void fz_policy_print(const FzPolicy *p, FILE *f);   /* the same format; loads back */

/* ---- gen.c: the generator's AST and features ------------------------------------ */

typedef enum { FZ_F32, FZ_F16, FZ_I32, FZ_BF16, FZ_I8, FZ_I16 } FzDtype;   /* Dtype order */
typedef enum { FZ_VEC, FZ_MAT, FZ_ACC } FzSpace;
typedef enum { FZ_UD, FZ_LR, FZ_UD_ODD, FZ_LR_ODD, FZ_MNONE } FzMode;
typedef enum { FZ_IN, FZ_OUT, FZ_INOUT } FzDir;

#define FZ_OPS(X)                                                                                    \
  X(load) X(store) X(paged_gather) X(slice) X(assemble) X(full) X(add) X(sub) X(mul) X(div) X(max)  \
  X(min) X(adds) X(subs) X(muls) X(divs) X(maxs) X(mins) X(exp) X(neg) X(abs) X(relu) X(sqrt)       \
  X(recip) X(cast) X(row_sum) X(row_max) X(row_min) X(col_sum) X(col_max) X(col_min)                 \
  X(row_expand_add) X(row_expand_sub) X(row_expand_mul) X(row_expand_div) X(row_expand_max)          \
  X(row_expand_min) X(col_expand_add) X(col_expand_sub) X(col_expand_mul) X(col_expand_div)          \
  X(matmul) X(matmul_acc) X(aiv_shard) X(aic_gather) X(subblock_idx) X(set_validshape)  \
  X(transpose) X(reshape) X(imin) X(imax) X(move) X(clamp)
typedef enum {
  FZ_OP_VAR,                                    /* a name, not a call */
#define FZ_X_(n) FZ_OP_##n,
  FZ_OPS(FZ_X_)
#undef FZ_X_
  FZ_NOPS
} FzOp;

typedef enum { FZ_KW_NONE, FZ_KW_VALID, FZ_KW_SPACE, FZ_KW_TRANS_B, FZ_KW_BLOCK_SIZE, FZ_KW_SIZE,
               FZ_KW_MAX_INDICES, FZ_KW_COL_OFF, FZ_KW_LANE, FZ_KW_STRIDE, FZ_KW_WINDOW } FzKw;

/* c + sum k[i]*v[i]; v are index names (loop, lane, lane scalar). */
typedef struct {
  int32_t c;
  uint8_t n;
  int16_t v[3];
  int32_t k[3];
} FzAff;

typedef enum { FZ_A_EXPR, FZ_A_TENSOR, FZ_A_IDX, FZ_A_NUM, FZ_A_INT, FZ_A_DTYPE, FZ_A_MODE, FZ_A_SPACE, FZ_A_AFF } FzArgKind;
typedef struct FzExpr FzExpr;
typedef struct {
  uint8_t k, kw;                                /* FzArgKind, FzKw (0: positional) */
  union {
    FzExpr *e;
    int tensor;                                 /* parameter index */
    FzAff ix[2];                                /* IDX: [ix[0], ix[1]]; AFF: ix[0] */
    double num;
    int i;                                      /* INT, DTYPE, MODE, SPACE */
  };
} FzArg;

struct FzExpr {
  uint16_t op;                                  /* FzOp */
  uint8_t nargs;
  int16_t var;                                  /* FZ_OP_VAR: the name */
  FzArg *a;
};

typedef enum { FZ_S_ASSIGN, FZ_S_STORE, FZ_S_FOR, FZ_S_SPLIT, FZ_S_IF, FZ_S_WHILE } FzStmtKind;
typedef struct FzStmt FzStmt;
typedef struct {
  FzStmt **v;
  int n, cap;
} FzBody;
struct FzStmt {
  uint8_t k;
  int16_t dst;                                  /* ASSIGN: the name */
  FzExpr *e;                                    /* ASSIGN: the value; STORE: the store call */
  int16_t iv;                                   /* FOR / SPLIT: the loop or lane name */
  int lo, hi, step;                             /* WHILE: hi is the bound (max) */
  FzBody body;
  FzBody other;                                 /* IF: the else body */
  FzAff ca, cb;                                 /* IF / WHILE: the condition ca REL cb */
  uint8_t rel;                                  /* 0..5: < <= > >= == != */
};

enum { FZ_MAXPARAM = 96, FZ_MAXNAME = 1024, FZ_NAMELEN = 12 };
typedef struct {
  char name[FZ_NAMELEN];
  uint8_t dt, dir, rank;
  int dim[2];                                   /* rank 1: dim[0] = 1, dim[1] = n */
  int32_t *init;                                /* inline contents (i32 tables), or NULL */
} FzParam;

#define FZ_FEATURES(X)                                                                               \
  X(split_up_down) X(split_left_right) X(target_a5) X(slots_1) X(slots_2) X(slots_4)                \
  X(odd_extent) X(unit_extent) X(partial_valid) X(window_past_tensor) X(offset_window)               \
  X(strided_subslice_store) X(subslice_cols) X(online_softmax) X(online_softmax_loop)               \
  X(c2v) X(v2c) X(both_ways) X(multi_transfer) X(transfer_in_loop)                                   \
  X(explicit_split) X(explicit_left_right) X(explicit_odd) X(explicit_gather) X(lane_scalar)        \
  X(lane_load) X(paged_gather) X(gather_permuted) X(gather_shared_page) X(gather_partial_last_page) \
  X(gather_fewer_indices) X(gather_mat) X(reduction_row) X(reduction_col) X(row_expand)             \
  X(col_expand) X(matmul) X(matmul_acc) X(trans_b) X(f16) X(i32) X(bf16) X(i8_i16) X(cast) X(loop) X(loop_carried)    \
  X(loop_step) X(loop_valid) X(zero_valid) X(assemble) X(full) X(cube_store) X(cube_slice) X(mat_store)    \
  X(task_parallel) X(set_validshape) X(lane0_store) X(inout) X(nested_call) X(explicit_stride) X(ragged_valid) \
  X(lane_if) X(lane_while) X(transpose) X(reshape) X(gather_window) X(scalar_extent) X(explicit_move) \
  X(gm_round_trip) X(near_capacity) X(pressure) X(explicit_regions) X(explicit_whole) X(assemble_slice) \
  X(c2v_recross) X(explicit_neg) X(explicit_outer_none) X(slice_late) X(rebalance)
enum {
#define FZ_X_(n) FZ_FEAT_##n,
  FZ_FEATURES(FZ_X_)
#undef FZ_X_
  FZ_NFEAT
};

/* Arena block holding a kernel's nodes (gen.c allocates, fz_free releases). */
typedef struct FzChunk FzChunk;
struct FzChunk {
  FzChunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};
typedef struct FzKernel {
  FzChunk *mem;                                 /* arena of the expression nodes */
  int split;                                    /* -1 absent, else 0 none, 1 up_down, 2 left_right */
  int target;                                   /* -1 absent, else 0 a2a3, 1 a5 */
  int slots;                                    /* 0 absent */
  int np, nnames, nstmts;
  FzParam params[FZ_MAXPARAM];
  char names[FZ_MAXNAME][FZ_NAMELEN];
  FzBody body;
  uint8_t feat[FZ_NFEAT];
  /* The compile claim (docs/fuzzing.md, "Unsupported claims"): per oracle
   * variant (FZ_V_*: none@a2a3, none@a5, up_down, left_right), NULL when the
   * kernel must compile under it, else the first reason (a static string,
   * e.g. "break-split") it may be refused. emit.c renders it as the
   * `# expect-compile:` and `# may-refuse:` header lines. */
  const char *refuse[4];
  /* The refusal claim: per variant, NULL or the `CODE:pass` a negative
   * construct must be refused with (a checker that lets it through is an
   * escape); emit.c renders it as `# expect-refuse:`. It overrides refuse[]. */
  const char *must_refuse[4];
  bool pypto;                                   /* built for the PyPTO share (pypto_share): `gen --stats` counts it */
} FzKernel;
enum { FZ_V_A2A3 = 1, FZ_V_A5 = 2, FZ_V_UD = 4, FZ_V_LR = 8, FZ_V_SPLIT = 12, FZ_V_ALL = 15 };

/* Generate one kernel, driven only by the policy and the choice source. The
 * result is malloc'd; free it with fz_free. Never NULL (aborts on OOM). */
FzKernel *fz_generate(const FzPolicy *p, FzSrc *src);
void fz_features(const FzKernel *k, uint8_t out[FZ_NFEAT]);
const char *fz_feature_name(int f);            /* NULL when out of range */
const char *fz_op_name(int op);
/* Kernel `kernel_seed` of a campaign runs on full-mantissa inputs (`--inputs=full`,
 * SimOpts.full_inputs) with probability p_full_inputs, drawn from the seed alone. */
bool fz_full_inputs(const FzPolicy *p, uint64_t kernel_seed);

/* ---- coverage.c: `ptofuzz gen --coverage` --------------------------------------- */

/* Shares of kernels using each op, keyword, attribute value and construct of
 * docs/language.md (the list is in coverage.c and docs/fuzzing.md). */
typedef struct FzCov FzCov;
FzCov *fz_cov_new(void);
void fz_cov_add(FzCov *cv, const char *text, size_t len);   /* one kernel's text */
/* `coverage: kernels=N invalid=M`, then `construct=NAME share=F` lines; returns
 * how many shares are below floor. */
int fz_cov_print(const FzCov *cv, FILE *f, double floor);
void fz_cov_free(FzCov *cv);

/* ---- emit.c: .ptk text --------------------------------------------------------- */

/* The kernel as .ptk text, headed `# generated by ptofuzz gen` (no seed, so
 * the same kernel from bytes and from a seed renders the same), then the
 * compile claim: `# expect-compile: V...` (the variants that must compile,
 * `-` for none), `# may-refuse: V=why ...` and `# expect-refuse:
 * V=CODE:pass ...` (each omitted when empty). malloc'd,
 * NUL-terminated; the caller frees it. */
char *fz_emit(const FzKernel *k, size_t *len);
void fz_free(FzKernel *k);
/* Write len bytes of text to path; false when it cannot be opened, written or closed. */
bool fz_write_file(const char *path, const char *text, size_t len);

/* ---- gen internals: shared by the construct files of gen/ ------------------------ */

/* Seen only where GEN_INTERNALS is defined: gen.c, values.c, gm.c, slices.c,
 * blocks.c, explicit.c and blind.c, whose functions are static but for these
 * (prefix gen_). Not the drivers': sim.h has a Tile of its own. */
#ifdef GEN_INTERNALS

/* A value: its expression (a name once bound), dtype, space, physical shape
 * and valid extents per lane. */
typedef struct {
  FzExpr *e;
  int8_t dt, sp;
  bool lane;                                    /* a lane value (inside split_aiv) */
  bool join_ok;                                 /* lane value aic_gather may join (even halves) */
  int R, C;
  int vr[2], vc[2];                             /* valid extents, per lane */
} Val;
/* A pool tile: a named value, alive while the block that made it is open. */
typedef struct {
  Val v;                                        /* v.e: the name */
  int16_t name;
  int8_t depth;
  bool alive;
} Tile;
/* An open loop. */
typedef struct {
  int iv, lo, step, trips;
  bool stride;                                  /* GM windows advance with the loop variable */
} Loop;
enum { MAXTILE = 512, MAXLOOP = 4 };
/* The generator's state while it builds one kernel. */
typedef struct {
  const FzPolicy *p;                            /* &pol */
  FzPolicy pol;                                 /* the caller's, limits widened for a large kernel */
  FzSrc *s;
  FzKernel *k;
  FzBody *out;
  int depth;
  Tile t[MAXTILE];
  int nt;
  Loop loop[MAXLOOP];
  int nloop;
  bool region;                                  /* inside split_aiv */
  bool rebal;                                   /* gen_blk_rebalance's transfer: up_down is claimed to compile */
  int lane, sb, rax;                            /* lane name, lane scalar name (-1), region axis */
  bool brk[2];                                  /* may break up_down (0) / left_right (1) */
  /* the compile claim: vec, acc and mat bytes charged, loop trips multiplied
   * (cap: those before a near-capacity block); the transfers' entries */
  int64_t cb[3], cap[3], v2cmax, v2c_sites;
  int64_t c2v_sites;                            /* C2V transfers, loop trips multiplied: bounds the live entries */
  bool varied;                                  /* a reassignment changed a tile's valid shape (run-time valid) */
  int64_t vec, acc, c2vmax;
  int nc2v, nv2c, slots;
  int ctr;
  bool py;                                      /* a pypto_share kernel: even extents on py_ax, one dtype */
  int py_ax, py_dt;
} Gen;

/* Shape flags (gen_dim, gen_shrink, gen_fit): an even extent, no unit extent,
 * whole 32-element boxes (a PyPTO share kernel). */
enum { D_EVEN = 1, D_NOUNIT = 2, D_BOX = 4 };
/* gen_v_load's flag: the load may have a partial valid region (p_partial_valid). */
enum { LD_PARTIAL = 1 };
/* An element of the array tab, drawn uniformly; gen_rr and gen_cr (values.c):
 * the row and the column reductions. */
#define PICK(g, tab) (tab)[gen_below(g, (int)(sizeof(tab) / sizeof *(tab)))]
extern const int gen_rr[3], gen_cr[3];

/* gen.c: claims, choices and arithmetic, the arena, names, tensors and expression
 * nodes, bytes, transfers, statements and loops, shapes and dtypes */
void gen_refuse(Gen *g, unsigned vars, const char *why);
void gen_must_refuse(Gen *g, unsigned vars, const char *code_pass);
bool gen_ch(Gen *g, double p);
int gen_below(Gen *g, int n);
int gen_rng(Gen *g, int lo, int hi);
void gen_feat(Gen *g, int f);
int gen_imin(int a, int b);
int gen_imax(int a, int b);
int64_t gen_imax64(int64_t a, int64_t b);
int gen_clampi(int x, int lo, int hi);
void *gen_al(Gen *g, size_t n);
int gen_newname(Gen *g, const char *pfx);
int gen_tensor(Gen *g, char pfx, int dt, int dir, int rows, int cols);
int gen_table(Gen *g, char pfx, const int32_t *v, int n);
void gen_push(Gen *g, FzBody *b, FzStmt *s);
FzExpr *gen_call(Gen *g, int op, int n);
FzAff gen_aff(int c);
FzAff gen_aff_plus(FzAff a, int v, int k);
void gen_a_expr(Gen *g, FzArg *a, FzExpr *e);
void gen_a_tensor(FzArg *a, int t);
void gen_a_idx(FzArg *a, FzAff r, FzAff c);
void gen_a_num(FzArg *a, double x);
void gen_a_int(FzArg *a, int kw, int x);
void gen_a_kind(FzArg *a, int k, int x);
int gen_esize(int dt);
bool gen_isint(int dt);
int64_t gen_vbytes(int dt, int R, int C);
int64_t gen_fbytes(int dt, int R, int C, bool acc);
int64_t gen_reserve(const Gen *g);
bool gen_vec_ok(const Gen *g, int64_t add);
int64_t gen_trips(const Gen *g);
void gen_charge(Gen *g, const Val *v);
void gen_claim_c2v(Gen *g, const Val *x);
void gen_note_c2v(Gen *g, const Val *x);
void gen_note_reserve(Gen *g, const Val *x);
void gen_note_v2c(Gen *g, const Val *x);
Val gen_bind(Gen *g, Val v, const char *pfx);
Tile *gen_tile_of(Gen *g, const Val *v);
Val gen_reassign(Gen *g, Val dst, Val v);
void gen_open_block(Gen *g, FzStmt *s);
void gen_close_block(Gen *g, FzBody *outer);
FzBody *gen_open_loop(Gen *g, bool stride, int lo, int trips, int step);
FzBody *gen_open_rand_loop(Gen *g, bool stride);
void gen_close_loop(Gen *g, FzBody *outer);
const Loop *gen_stride_loop(const Gen *g);
FzAff gen_advance(const Gen *g, FzAff o, int stride, int *span);
void gen_scalar_stmt(Gen *g, int name, int op, FzAff a, FzAff b);
int gen_pick_from(Gen *g, const int *tab, int n, int max);
int gen_dim(Gen *g, bool col, unsigned fl);
int gen_shrink(int x, unsigned fl);
void gen_fit(Gen *g, int dt, int *R, int *C, int n, unsigned fl);
void gen_fit_mm(Gen *g, int dt, int *M, int *K, int *N, int n, unsigned fl);
int gen_narrow(Gen *g, bool int_ok, bool mm);
int gen_pick_dt(Gen *g, bool i32_ok, bool mm);
double gen_scalar(Gen *g, int dt, int op);

/* values.c: value constructors and vector expressions */
Val gen_mkval(int dt, int sp, int R, int C, int vr, int vc);
Val gen_vres(Gen *g, FzExpr *e, int dt, int R, int C);
Val gen_v_un(Gen *g, int op, Val a);
Val gen_v_bins(Gen *g, int op, Val a, double x);
Val gen_v_bin(Gen *g, int op, Val a, Val b);
Val gen_v_cast(Gen *g, Val a, int dt);
Val gen_v_full(Gen *g, int R, int C, double x, int dt);
void gen_py_valid_full(Gen *g, FzExpr *fe, Val *acc, const Val *y);
Val gen_v_red(Gen *g, int op, Val a);
Val gen_v_exp2(Gen *g, int op, Val a, Val v, bool row);
Val gen_v_mm(Gen *g, const Val *c, Val a, Val b, bool tb);
Val gen_v_move(Gen *g, Val x, int sp);
bool gen_row_red_ok(const Gen *g, const Val *a);
bool gen_col_red_ok(const Gen *g, const Val *a);
bool gen_red_keeps(const Val *a, bool row);
int gen_un_op(Gen *g, int dt);
int gen_bs_op(Gen *g, int dt);
int gen_bi_op(Gen *g, int dt);
Val gen_named(Gen *g, Val v);
Val gen_expand(Gen *g, Val x);
Val gen_vexpr(Gen *g, int dt, int R, int C, int d);
Val gen_vchain(Gen *g, Val x, int steps);
void gen_reduce_stores(Gen *g, Val x);

/* gm.c: GM loads and stores, the paged-gather block */
Val gen_v_load(Gen *g, int dt, int R, int C, int sp, int vr, int vc, unsigned fl);
void gen_store_(Gen *g, Val v, bool lane0);
void gen_store(Gen *g, Val v);
void gen_store_at(Gen *g, int t, FzAff ro, FzAff co, FzExpr *x);
void gen_store_skew(Gen *g, Val v);
Val gen_rhs_load(Gen *g, int dt, int K, int N, bool tb, int kv, bool full_n);
void gen_blk_gather(Gen *g);

/* slices.c: sub-slices and shape changes */
int gen_a5_half(int E);
void gen_subslice_stores(Gen *g, Val t, int ax);
bool gen_v_load_lv(Gen *g, int dt, int R, int C, Val *out);
bool gen_v_setvalid(Gen *g, Val *x);
Val gen_move_axes(Gen *g, Val x);
bool gen_cube_slice(Gen *g, Val s, Val *out);

/* blocks.c: the weighted blocks */
void gen_blk_vector(Gen *g);
void gen_blk_c2v(Gen *g);
void gen_blk_v2c(Gen *g);
void gen_blk_both(Gen *g);
void gen_blk_loop(Gen *g);
void gen_blk_softmax(Gen *g);
void gen_blk_move(Gen *g);
void gen_blk_reduce(Gen *g);
void gen_blk_strided(Gen *g);
void gen_blk_assemble(Gen *g);
void gen_blk_rebalance(Gen *g);

/* explicit.c: a split_aiv kernel */
void gen_explicit(Gen *g);

/* blind.c: the blind spots */
void gen_blk_roundtrip(Gen *g);
void gen_blk_capacity(Gen *g);
void gen_blk_pressure(Gen *g);

#endif /* GEN_INTERNALS */

#endif
