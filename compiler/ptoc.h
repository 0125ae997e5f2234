/* ptoc.h — the internal header of libptoc (kernel language, IR, passes).
 * Sectioned by the file that defines each part. Exported names carry the
 * prefix ir_ (IR and front end) or pass_ (passes); everything else is static.
 * No global mutable state: a compilation is a value (Comp). */
#ifndef PTOC_H
#define PTOC_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- util.c: arena, dying, diagnostics ----------------------------------- */

typedef struct Arena Arena;
Arena *ir_arena_new(void);
void ir_arena_free(Arena *a);
void *ir_alloc(Arena *a, size_t n);             /* zeroed, 16-aligned */
void *ir_alloc_raw(Arena *a, size_t n);         /* not zeroed: scratch written in full before use */
void *ir_arena_adopt(Arena *a, void *p);        /* p (malloc'd) is freed with the arena; returns p */
char *ir_strndup(Arena *a, const char *s, size_t n);
char *ir_fmt(Arena *a, const char *fmt, ...);

/* Memory. ir_mem_limit caps the process's address space at mb megabytes
 * (--max-mem; not under AddressSanitizer, which reserves terabytes): malloc
 * then fails beyond it, and an arena that cannot grow ends the process with
 * ir_oom: `error[E-LIMIT]` on stderr and exit 1, never an abort. */
enum { IR_MAX_MEM_MB = 2048 };                  /* the default --max-mem */
void ir_mem_limit(long long mb);
_Noreturn void ir_oom(size_t n);

/* A broken internal invariant: print and abort (under a fuzzer, a finding). */
_Noreturn void ir_die(const char *file, int line, const char *fmt, ...);
#define die(...) ir_die(__FILE__, __LINE__, __VA_ARGS__)
#define ASSERT(c) ((c) ? (void)0 : die("assertion failed: %s", #c))

typedef enum { CAT_USER, CAT_UNSUPPORTED, CAT_INTERNAL } DiagCat;
typedef enum {
#define D(e, s, c, m) e,
#include "diag.def"
#undef D
  D_N
} DiagCode;
const char *ir_diag_name(DiagCode d);
DiagCat ir_diag_cat(DiagCode d);
const char *ir_cat_name(DiagCat c);

typedef struct { int line, col, off; } Loc;     /* off: byte offset in Src.text */

typedef struct {
  const char *name, *text;
  size_t len;
} Src;

typedef struct {
  bool set;
  DiagCode code;
  Loc loc;
  int op1;                                      /* 1 + the op the check judged (an Op), 0 when none */
  char msg[320];
} Diag;

/* Compile options: what the command line or the oracle asks of the pipeline. */
typedef struct {
  int split;                                    /* -1: the kernel's own, else a Mode */
  int target;                                   /* -1: the kernel's own, else a Target */
  bool unroll_off;
  bool allow_mixed_modes;
  uint32_t bugs;                                /* injected defects (docs/defects.md) */
} CompOpts;

typedef struct Comp {
  Arena *A;
  Src src;
  Diag diag;
  jmp_buf *jb;                                  /* where an error unwinds to */
  CompOpts o;
  const char *pass;                             /* the pass running, for diagnostics */
  int judging1;                                 /* 1 + the op a rule is judging (verify_backend), else 0 */
} Comp;

/* Record a diagnostic at loc and unwind to c->jb. */
_Noreturn void ir_error(Comp *c, Loc loc, DiagCode code, const char *fmt, ...);
/* file:line:col: error[CODE]: message [category], the source line and a caret. */
void ir_diag_print(FILE *f, const Src *src, const Diag *d);
/* Reads at most IR_MAX_SRC + 1 bytes of any file (a pipe, a device): a longer
 * input gives true and those bytes, which the lexer refuses (E-LIMIT).
 * False when the file cannot be opened or read (E-IO for the caller). */
bool ir_read_file(Arena *a, const char *path, Src *out);

/* ---- ir.c: the defect catalogue (defects.def) ------------------------------ */

typedef enum {
#define BUG(id, name, pass) BUG_##id,
#include "defects.def"
#undef BUG
  BUG_N
} Bug;
#define IR_BUG(c, id) ((((c)->o.bugs) >> BUG_##id) & 1u)   /* is defect id switched on? */
const char *ir_bug_name(int b);                 /* NULL past the end */
const char *ir_bug_pass(int b);
/* "a,b" (or "" / "none"; "all": every defect) -> bit set; false with a message in err on an unknown name. */
bool ir_bugs_parse(const char *list, uint32_t *bugs, char *err, size_t n);
/* The names of a bit set, comma-separated, into buf. */
void ir_bugs_format(uint32_t bugs, char *buf, size_t n);

/* ---- ops.def: the op table ------------------------------------------------ */

typedef enum { SD_VEC, SD_CUBE, SD_SPACE, SD_OPND, SD_SHARD, SD_JOIN, SD_MOVE, SD_SCALAR, SD_PIPE } Side;
typedef enum {
  K_LOAD, K_STORE, K_GATHER, K_SLICE, K_ASSEMBLE, K_FULL, K_BIN, K_BINS, K_UN,
  K_CAST, K_RRED, K_CRED, K_REXP, K_CEXP, K_MATMUL, K_SHARD, K_JOIN, K_LANEIDX,
  K_MOVE, K_ISCALAR, K_PIPE, K_TPUSH, K_TPOP, K_TFREE, K_SYNC, K_GMREAD, K_ALLOC, K_GROW, K_TLOAD, K_SETVALID, K_TRANS, K_RESHAPE, K_N
} OpKind;
typedef enum { KW_NONE, KW_VALID, KW_SPACE, KW_TRANS_B, KW_BLOCK_SIZE, KW_SIZE,
               KW_MAX_INDICES, KW_COL_OFF, KW_LANE, KW_WINDOW, KW_BOX, KW_PART, KW_STRIDE, KW_N } Kw;
#define KWB(k) (1u << KW_##k)

typedef enum {
#define OP(n, lo, hi, sd, k, kw, ix) OP_##n,
#include "ops.def"
#undef OP
  OP_N
} Op;

typedef struct {
  const char *name;
  int8_t min_pos, max_pos;
  Side side;
  OpKind kind;
  uint32_t kwmask;
  uint32_t ixmask;                              /* positional args that are index expressions */
} OpInfo;
extern const OpInfo ir_ops[OP_N];               /* read-only table */
#define IR_ACC_MATMUL(op) ((op) == OP_matmul_acc || (op) == OP_tmatmul_acc)
int ir_op_lookup(const char *s, size_t n);     /* -1 when unknown */
const char *ir_kw_name(Kw k);

/* ---- the IR --------------------------------------------------------------- */

/* The element types; bf16, i8 and i16 follow the first three so their values stay stable. */
typedef enum { DT_F32, DT_F16, DT_I32, DT_BF16, DT_I8, DT_I16, DT_N } Dtype;
typedef enum { SP_NONE, SP_VEC, SP_MAT, SP_ACC, SP_LEFT, SP_RIGHT, SP_N } Space;
/* A mode is also the split code of a transfer: 0 none, 1 up_down, 2 left_right,
 * 3 up_down_odd, 4 left_right_odd (lane 0 holds one more than lane 1). */
typedef enum { MODE_NONE, MODE_UD, MODE_LR, MODE_UD_ODD, MODE_LR_ODD } Mode;
#define MODE_AXIS(m) (((m) == MODE_UD || (m) == MODE_UD_ODD) ? 0 : 1)
#define MODE_ODD(m) ((m) == MODE_UD_ODD || (m) == MODE_LR_ODD)
typedef enum { TGT_A2A3, TGT_A5 } Target;
typedef enum { DIR_IN, DIR_OUT, DIR_INOUT } Dir;

const char *ir_dtype_name(Dtype d);
const char *ir_space_name(Space s);
const char *ir_mode_name(Mode m);
const char *ir_target_name(Target t);
int ir_dtype_bytes(Dtype d);
static inline bool ir_dtype_int(Dtype d) { return d == DT_I32 || d == DT_I8 || d == DT_I16; }
int32_t ir_dtype_wrap(Dtype d, int64_t x);      /* x modulo 2^bits, as the integer dtype */
bool ir_dtype_fits(Dtype d, double x);          /* an integer literal in d's range */

enum { IR_MAXT = 6, IR_MAXDIM = 512, IR_MAXGM = 65536 };

/* Affine integer expression c + sum k[i]*v[i] over scalar variables (by id). */
typedef struct {
  int32_t c;
  int n;
  int v[IR_MAXT];
  int32_t k[IR_MAXT];
} Aff;

typedef enum { VK_TENSOR, VK_TILE, VK_LOOP, VK_LANE, VK_SCALAR } VarKind;

typedef struct Var {
  const char *name;
  VarKind kind;
  int id;                                       /* index in Kernel.vars */
  Loc loc;
  Dtype dt;
  /* VK_TENSOR */
  int rank, dim[2];
  Dir dir;
  double *init;                                 /* row-major, or NULL */
  int ninit;
  /* VK_TILE: physical shape, space, lane value (defined per lane in split_aiv) */
  int R, C;
  Space sp;
  bool lane;
  bool differ;                                  /* VK_TILE lane value not replicated: lanes may differ (typecheck) */
  bool typed;
  int svr, svc;                                 /* static valid shape, -1 not known, -2 only declared */
  /* VK_LOOP: the values it takes; VK_SCALAR: a bound on them [lo, hi] */
  int lo, hi, step;
  bool computed;                                /* VK_SCALAR from imin/imax/clamp (not the lane) */
  int32_t off;                                  /* VK_TILE: byte offset in sp on its core (memplan), -1 none */
} Var;

typedef enum { TY_NONE, TY_TILE, TY_TENSOR, TY_SCALAR } TyKind;
typedef struct {
  TyKind k;
  Dtype dt;
  Space sp;
  int R, C;
  int vr, vc;                                   /* static valid shape, -1 when not known */
  bool lane;                                    /* a lane value (one per lane in split_aiv) */
  bool differ;                                  /* a lane value whose lanes may hold different elements */
} Type;

typedef enum { A_VAR, A_CALL, A_IDX, A_NUM, A_DTYPE, A_MODE, A_SPACE, A_IEXPR, A_DIR } ArgKind;
typedef enum { PIPE_C2V, PIPE_V2C } PipeDir;
typedef struct Call Call;
/* 64 bytes: the index pair lives apart (most arguments have none), read-only
 * here because copies of an Arg share it; a writer takes a private copy with
 * ir_arg_ix. */
typedef struct {
  ArgKind k;
  Kw kw;                                        /* KW_NONE when positional */
  Loc loc;
  int e;                                        /* A_DTYPE / A_MODE / A_SPACE / A_DIR value */
  bool isint;                                   /* A_NUM written as an integer */
  Var *var;                                     /* A_VAR */
  Call *call;                                   /* A_CALL */
  const Aff *ix;                                /* A_IDX: ix[0], ix[1]; A_IEXPR: ix[0] */
  double num;                                   /* A_NUM */
} Arg;

struct Call {
  Op op;
  Loc loc;
  int nargs;
  Arg *args;
  Type ty;                                      /* set by typecheck */
  bool perlane;                                 /* runs once per lane (inside split_aiv) */
};

/* S_FUNC: a core's program (aic or aiv); S_IF: `if lane == 0 { body } replay { other }`;
 * S_COND: `if a REL b { body } else { other }` inside split_aiv (a bounded
 * `while a REL b max N { B }` is S_FOR `_w in range(0, N)` marked wloop whose
 * body is one S_COND with B). */
typedef enum { S_OP, S_FOR, S_SPLIT, S_FUNC, S_IF, S_COND } StmtKind;
typedef enum { REL_LT, REL_LE, REL_GT, REL_GE, REL_EQ, REL_NE } Rel;
typedef enum { FN_AIC, FN_AIV } Func;
typedef struct Stmt Stmt;
typedef struct {
  Stmt **v;
  int n, cap;
} Body;

struct Stmt {                                   /* 152 bytes */
  StmtKind k;
  Func fn;                                      /* S_FUNC */
  Rel rel;                                      /* S_COND */
  bool wloop;                                   /* S_FOR: a bounded while (printed as one) */
  Loc loc;
  Var *dst;                                     /* S_OP: assigned var or NULL (store) */
  Arg rhs;                                      /* S_OP: A_VAR (copy) or A_CALL */
  Var *iv;                                      /* S_FOR loop var, S_SPLIT / S_IF lane var */
  Body body;
  Body other;                                   /* S_IF: the replay body; S_COND: the else body */
  const Aff *cond;                              /* S_COND: cond[0] REL cond[1] (shared by copies, as Arg.ix) */
};

typedef struct Kernel {
  const char *name;
  Loc loc;
  Var **params;
  int np;
  Mode split;
  Target target;
  int8_t stride_target;                         /* 1 + the target whose strides the shards follow (declared, else first typed), 0 not yet */
  int slots;
  Body body;
  Var **vars;                                   /* every variable, by id */
  int nvars, capvars;
  bool explicit_split;                          /* the source was written with split_aiv */
  bool expanded;                                /* holds per-core programs (after expand_mixed) */
  bool lowered;                                 /* on explicit buffers (after lower) */
  int64_t own_ops[2], unrolled_ops[2];          /* per side (aic, aiv): ops with loops expanded; after unroll */
  bool planned;                                 /* memplan placed the buffers (Var.off): the machine is addressed */
  int32_t entry[2];                             /* by PipeDir: bytes of one entry of the consumer's pipe reserve */
  int32_t reserve[2];                           /* by PipeDir: bytes of the consumer's pipe reserve (slots x entry) */
  int32_t top[SP_N];                            /* per space: the highest placed end on either core */
  struct NameIx *temps;                         /* ir_temp's index of the names starting with '_' */
} Kernel;

/* ---- ir.c: building and querying the IR ------------------------------------ */

Var *ir_var_new(Comp *c, Kernel *k, const char *name, VarKind kind, Loc loc);
Var *ir_temp(Comp *c, Kernel *k, const char *prefix, VarKind kind, Loc loc);  /* unique name */
Stmt *ir_stmt_op(Comp *c, Loc loc, Var *dst, Op op, int nargs);            /* args zeroed */
bool ir_has_split_aiv(const Body *b);
bool ir_any_call(const Body *b, bool (*pred)(const Call *));   /* a statement's call at any depth */
bool ir_has_cube(const Body *b);                /* a tile in mat/acc/left/right */
int ir_vector_lanes(const Kernel *k);           /* per-core IR: lanes the machine launches */
/* DESIGN 14.1: lane l of a split transfer holds clamp(V - l*P, 0, P) of the V
 * valid (lane extent P); the code comes from those counts. */
int ir_lane_valid(int V, int P, int lane);
int ir_split_code(int ax, int E, int V, int P);  /* -1: no code fits; V < 0: unknown */
int ir_split_stride(Target t, int E);           /* the lane stride of a transfer of extent E on t */
int ir_split_code_on(Target t, int ax, int E, int V, int P);   /* a5: only the box's stride places */
void ir_body_push(Comp *c, Body *b, Stmt *s);
Aff *ir_pair_own(Arena *A, const Aff **p);     /* the pair *p made private and writable (zeros if none) */
static inline Aff *ir_arg_ix(Arena *A, Arg *a) { return ir_pair_own(A, &a->ix); }
void ir_arg_idx(Arena *A, Arg *a, Aff r, Aff c);  /* a = A_IDX [r, c] */
void ir_arg_iexpr(Arena *A, Arg *a, Aff x);     /* a = A_IEXPR x */
bool ir_aff_const(const Aff *a);
static inline Aff ir_aff_cst(int c) { return (Aff){.c = c}; }
Aff ir_aff_var(const Var *v, int k);            /* k * v */
Aff ir_aff_add(Aff a, const Aff *b, int sign);  /* a + sign * b */
bool ir_aff_exact(const Kernel *k, const Aff *a);
void ir_aff_range(const Kernel *k, const Aff *a, int64_t *lo, int64_t *hi);
void ir_aff_range2(const Kernel *k, const Aff *a, const Aff *b, int s, int64_t *lo, int64_t *hi);
int ir_loop_last(const Var *v);                 /* last value taken, lo when empty */
int ir_loop_trips(const Var *v);
const char *ir_rel_name(Rel r);                 /* "<", "<=", ... */
bool ir_rel_holds(Rel r, int64_t a, int64_t b);
Arg *ir_kwarg(Call *c, Kw kw);                 /* NULL when absent */
Arg *ir_kwarg_add(Comp *cp, Call *c, Kw kw);   /* the keyword argument, appended when absent */
Arg *ir_pos(Call *c, int i);                   /* i-th positional argument or NULL */
int ir_npos(const Call *c);
/* A deep copy into arena A; names and tensor initialisers are shared, so the
 * source's arena must outlive the copy. */
Kernel *ir_clone(Arena *A, const Kernel *k);
/* A hash of the statement skeleton (kinds, ops, arities, targets) and of the
 * variables' spaces and shapes: cheap, not a full digest of the IR. */
uint64_t ir_fingerprint(const Kernel *k);

/* ---- lex.c ---------------------------------------------------------------- */

typedef enum { TK_IDENT, TK_INT, TK_NUM, TK_PUNCT, TK_EOF } TokKind;
typedef struct {
  TokKind k;
  Loc loc;
  const char *s;                                /* into the source text */
  int len;
  double num;
  int64_t ival;
} Tok;
Tok *ir_lex(Comp *c, Arena *T, int *ntok);      /* in T; ends with TK_EOF */

/* ---- parse.c -------------------------------------------------------------- */

/* Implementation limits of the front end (docs/language.md section 2.1), each E-LIMIT. */
enum {
  IR_MAX_SRC = 64 << 20,                        /* bytes of a source file (ir_read_file) */
  IR_MAX_IDENT = 255,                           /* characters of an identifier (lex.c) */
  IR_MAX_STMTS = 1 << 20,                       /* statements, a nested call counting as one */
  IR_MAX_PARAMS = 1 << 17,                      /* tensor parameters */
  IR_MAX_GM = 1 << 26,                          /* elements of all tensors together */
  IR_MAX_BLOCKS = 64,                           /* nesting of blocks ({ ... } in { ... }) */
};
bool ir_reserved(const char *s, size_t n);
Kernel *ir_parse(Comp *c);                      /* text -> source IR, names resolved */

/* ---- typecheck.c ---------------------------------------------------------- */

void ir_typecheck(Comp *c, Kernel *k);

/* ---- flatten.c ------------------------------------------------------------ */

void pass_flatten(Comp *c, Kernel *k);

/* ---- infer_space.c, auto_split.c, check_split.c ------------------------------ */

void pass_infer_space(Comp *c, Kernel *k);
/* A slice of a fractal tile in sp that stays on the 16-row box (infer_space.c). */
bool ir_slice_on_box(Space sp, Dtype dt, int R, const Arg *off, const Arg *shape);
void pass_auto_split(Comp *c, Kernel *k);
void pass_check_split(Comp *c, Kernel *k);

/* ---- expand_mixed.c, dual_lane.c ----------------------------------------------- */

void pass_expand_mixed(Comp *c, Kernel *k);
void pass_dual_lane(Comp *c, Kernel *k);
Stmt *ir_func(const Kernel *k, Func fn);        /* the aic / aiv program, or NULL */

/* ---- lower_gather.c, unroll.c --------------------------------------------------------- */

void pass_lower_gather(Comp *c, Kernel *k);
void pass_unroll(Comp *c, Kernel *k);

/* ---- layout.c: memory layouts and capacities (DESIGN section 4) -------------------- */

typedef enum { LAY_ROW, LAY_COL, LAY_FRACTAL } Layout;
Layout ir_layout(Space sp, int R, int C);
void ir_box(Space sp, Dtype dt, int *br, int *bc);     /* fractal inner box */
/* The allocation shape of an [R, C] tile: padded up to its layout's alignment. */
void ir_padded(Space sp, Dtype dt, int R, int C, int *Rp, int *Cp);
int64_t ir_tile_bytes(Space sp, Dtype dt, int R, int C);
int64_t ir_capacity(Target t, Space sp);

/* ---- memplan.c ------------------------------------------------------------------------ */

/* Places every buffer of each core at a byte offset of its space (DESIGN 14.10):
 * Var.off of a tile with a buffer of its own is where its padded bytes start;
 * a view's (slice) is its parent's plus the window's start when that is
 * static; a popped value's is 0, the base of the pipe reserve (Kernel.reserve[dir]
 * = slots x Kernel.entry[dir] bytes at the bottom of the consumer's space: the
 * slot is chosen at run time); lower's left/right operands sit at 0. Every buffer's
 * offset and size is a multiple of 32 bytes. Kernel.top holds each space's highest placed
 * end; sets Kernel.planned. */
void pass_memplan(Comp *c, Kernel *k);
/* The plan as `# mem ...` comment lines (docs/ir.md section 5.1), after the IR. */
void ir_print_plan(FILE *f, Arena *A, const Kernel *k);

/* ---- lower.c, verify_backend.c ---------------------------------------------------------- */

void pass_lower(Comp *c, Kernel *k);
void pass_verify_backend(Comp *c, Kernel *k);
void ir_mem_peak(Comp *c, Kernel *k, const Stmt *fn, int64_t peak[SP_N], Space interest, Loc *where,
                 const Var *top[3]);
void ir_mem_check(Comp *c, Kernel *k, DiagCode code);   /* E_CAPACITY or B_CAP */

/* ---- print.c -------------------------------------------------------------- */

void ir_print(FILE *f, const Kernel *k);
char *ir_print_str(Arena *a, const Kernel *k);

/* ---- emit_pto.c: the lowered program as PTO-AS text (DESIGN section 13) ------------------ */

typedef struct {
  const char *aic, *aiv;                        /* the names of the cube and vector functions */
  /* The valid shape a pop delivers to a lane, when the caller knows it (false:
   * unknown, the entry's whole shape is declared). Pipes carry no valid shape:
   * the consumer must declare it (docs/real-backend.md). */
  bool (*pop_valid)(void *ctx, const Stmt *st, int lane, int *vr, int *vc);
  void *ctx;
} PtoNames;
/* On a3 both functions take a GM slot buffer of this many bytes as their last
 * argument: the C2V pipe's GM slots in its first half, V2C's in the second. */
enum { PTO_SLOT_BYTES = 8 << 20 };
/* On a3 a function that sets or waits on a cross-core flag (pto.sync.*) takes
 * one more argument after the slot buffer, the FFTS base (`%ffts:
 * memref<256xi64>`, this many bytes), and starts with `pto.set_ffts %ffts`: ptoas
 * refuses a3 flags without it. ir_pto_ffts says whether function fn of the
 * lowered kernel k does (false on a5 and for a NULL fn). */
enum { PTO_FFTS_BYTES = 256 * 8 };
bool ir_pto_ffts(const Kernel *k, const Stmt *fn);
/* PTO-AS text of a lowered kernel (arena string), or NULL with c->diag set
 * (E-PTO, unsupported: a construct with no PTO form). */
const char *ir_emit_pto(Comp *c, const Kernel *k, const PtoNames *nm);

/* ---- emit_pypto.c: a front-end kernel as a PyPTO program (DESIGN section 16, docs/pypto.md) ---- */

enum { PY_CAP_PAGED_GATHER = 1u << 0,          /* pl.paged_gather exists (PyPTO 8f8de9b9c and later) */
       PY_CAP_SPLIT_AIV = 1u << 1,             /* pl.split_aiv / pl.aiv_shard / pl.aic_gather exist (6b426ae45 and later) */
       PY_CAP_LOAD_VALID_SHAPE = 1u << 2,      /* pl.load takes valid_shape= (valid_shapes= before 8a4294134) */
       PY_CAP_LOAD_NO_TRANSPOSE = 1u << 3 };   /* pl.load has no transpose=: pl.tile.transpose_view instead */
typedef struct {
  int split;                                    /* the variant's Mode: MODE_NONE, MODE_UD or MODE_LR (replaces the kernel's own) */
  Target target;                                /* TGT_A2A3 -> BackendType.Ascend910B, TGT_A5 -> BackendType.Ascend950 */
  unsigned caps;                                /* PY_CAP_* of the selected PyPTO build */
} PyOpts;
/* The program text (arena string), or NULL with c->diag set: an `unsupported`
 * E-PYPTO-<CONSTRUCT> code naming a construct with no PyPTO spelling on the
 * selected build. front is ir_front's result (parsed, typechecked, flattened). */
const char *ir_emit_pypto(Comp *c, const Kernel *front, const PyOpts *o);
/* The PY_CAP_* of the PyPTO tree at dir (a folder holding python/pypto/, like
 * third_party/pypto/b25b25a4a), read from its Python sources (whether `def
 * split_aiv(` / `def paged_gather(` exist under python/pypto/language/); false
 * when dir holds no PyPTO. */
bool ir_pypto_caps(const char *dir, unsigned *caps);

/* ---- pipeline.c ----------------------------------------------------------- */

typedef struct {
  const char *print_after;                      /* pass name, "all" or NULL */
  const char *stop_after;
  FILE *out;
} PipeOpts;
extern const char *const ir_pass_names[];       /* NULL-terminated */
/* Parse, typecheck and run the passes. Returns the kernel or NULL with c->diag set. */
Kernel *pass_pipeline(Comp *c, const PipeOpts *o);
/* Front end only: parse + typecheck + flatten (what the golden run executes). */
Kernel *ir_front(Comp *c);
/* The passes after flatten on a copy of a front-end kernel (ir_front's result,
 * which must outlive the result): what pass_pipeline gives from the same text,
 * without parsing, typechecking and flattening it again. */
Kernel *pass_pipeline_from(Comp *c, const Kernel *front, const PipeOpts *o);
/* Parse one compile flag (--split= --target= --unroll= --allow-mixed-modes). */
bool ir_comp_flag(CompOpts *o, const char *arg);
/* ir_comp_flag's options and --bugs as rows of a tool's option table (cli.h's IrOpt). */
#define IR_COMP_OPTS                                                                                   \
  {"--split", "none|up_down|left_right", "the kernel's split()", "the split mode to compile for"},     \
      {"--target", "a2a3|a5", "the kernel's target()", "the target to compile for"},                   \
      {"--unroll", "auto|off", "auto", "off: keep every loop rolled"},                                 \
      {"--allow-mixed-modes", NULL, NULL, "accept two split modes in one kernel"},                     \
      {"--bugs", "LIST|all", "$PTOFUZZ_BUGS, else none", "switch injected defects on (docs/defects.md)"}
/* The defects of --bugs=LIST, else of PTOFUZZ_BUGS; false (message printed, prefixed by tool) on an unknown name. */
bool ir_bugs_option(const char *tool, const char *list, uint32_t *bugs);

#endif
