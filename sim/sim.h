/* sim.h — the internal header of libptosim (golden interpreter, machine
 * model). Sectioned by the file that defines each part; exported names carry
 * the prefix sim_. No global mutable state: a simulation is a value (Sim). */
#ifndef SIM_H
#define SIM_H

#include "../compiler/ptoc.h"

/* ---- f16.c: element storage (IEEE binary16, bfloat16, narrow integers) ------ */

/* A tile element: floats widened to f32, integers sign-extended to i32. */
typedef union {
  float f;
  int32_t i;
} Elem;

enum {
  SIM_CANARY_F32 = 0x7FC0DEAD,                  /* quiet NaN, marked payload */
  SIM_CANARY_F16 = 0x7EAD,
  SIM_CANARY_I32 = 0x7EADBEEF,
  SIM_CANARY_BF16 = 0x7FED,                     /* quiet NaN, marked payload */
  SIM_CANARY_I8 = 0x7E,
  SIM_CANARY_I16 = 0x7EAD,
};

uint16_t sim_f32_to_f16(float f);               /* round to nearest, ties to even */
float sim_f16_to_f32(uint16_t h);               /* exact */
float sim_round_f16(float f);                   /* f rounded to the nearest f16 value */
uint16_t sim_f32_to_bf16(float f);              /* round to nearest, ties to even */
float sim_bf16_to_f32(uint16_t h);              /* exact */
float sim_round_bf16(float f);                  /* f rounded to the nearest bf16 value */
/* f rounded to the nearest f16 (narrow16 false) or bf16 value, computed apart
 * from the bit manipulations above: scaled by a power of two to an integer
 * (nearbyint, ties to even) and back, in double. NaN for NaN. */
float sim_round_plain(float f, bool f16);
uint32_t sim_enc(Dtype dt, Elem e);             /* the storage bits of an element (low bytes) */
Elem sim_dec(Dtype dt, uint32_t bits);          /* and back: widened, exact */
uint32_t sim_canary(Dtype dt);                  /* the output canary's bits */

/* ---- interp.c: the golden run ------------------------------------------------ */

/* A tile value: physical shape, valid shape, and a defined bit per element. */
typedef struct {
  Dtype dt;
  int R, C, vr, vc;
  Elem *d;
  uint8_t *def;
} Tile;

/* A GM tensor: bytes in its storage dtype, row-major. */
typedef struct {
  const Var *v;
  int rows, cols;
  unsigned char *bytes;
  /* With SimOpts.origins (outputs of a reference run): per element, which store
   * wrote it last and where in the stored tile: SIM_ORIGIN(...) or 0. */
  uint64_t *orig;
} Gm;
/* The store at source offset off wrote element (lr, lc) of an [R, C] tile (its shape, not its valid region). */
#define SIM_ORIGIN(off, lr, lc, vr, vc)                                                                   \
  ((uint64_t)((off) + 1) << 40 | (uint64_t)(lr) << 30 | (uint64_t)(lc) << 20 | (uint64_t)(vr) << 10 | (uint64_t)(vc))
#define SIM_ORIGIN_STORE(o) ((int64_t)((o) >> 40) - 1)
#define SIM_ORIGIN_FIELD(o, k) ((int)(((o) >> (30 - 10 * (k))) & 1023))   /* k: 0 lr, 1 lc, 2 R, 3 C */

typedef struct Sim Sim;
typedef struct MatMemo MatMemo;
/* Test hooks only (SimOpts.fault, never set by a command line): a deliberate
 * machine bug, so tests can see the oracle's self-check blame the simulator. */
typedef enum {
  SIM_FAULT_NONE,
  SIM_FAULT_LOOP,                               /* a loop of three or more trips ends one early (machine only) */
  SIM_FAULT_WRAP,                               /* a C2V pop after its pipe's slots wrapped flips a bit of its
                                                   first element (slotted pipes only) */
  SIM_FAULT_JOIN,                               /* a split V2C join whose lane 0 holds less than its extent
                                                   on the split axis gets that whole extent as valid
                                                   (slotted pipes only) */
} SimFault;
typedef struct {
  uint64_t seed;
  /* float inputs with full 24-bit mantissas in [-2, 2) (rounded to the tensor's
   * dtype), instead of k/16: sums of k/16 products are exact in any order, so
   * only these show an accumulation-order bug (DESIGN 10, --inputs=full) */
  bool full_inputs;
  uint64_t max_steps;                           /* element operations; 0: default */
  const Sim *inputs;                            /* copy the inputs of this (unrun) simulation instead */
  MatMemo *memo;                                /* matmul results shared by the runs of one kernel */
  bool origins;                                 /* record Gm.orig for outputs (the oracle's golden run) */
  /* called after every tpop on the machine with the popped value's valid shape
   * (the real back end learns what the consumer must declare) */
  void (*on_pop)(void *ctx, const Stmt *st, int lane, int vr, int vc);
  void *hook_ctx;
  /* the machine's second, plainer model (the oracle's self-check): each pipe
   * an unbounded FIFO, entry n in its own place, so no slot is reused and a
   * push never waits; a pop's lane placement and join written apart, element
   * by element; loops stepped by counting trips, not by comparing the loop
   * variable with its bound; no addressed memory (a pop has no slot to be
   * placed at) */
  bool plain;
  SimFault fault;                               /* test hook, SIM_FAULT_NONE otherwise */
} SimOpts;

/* A matmul result depends only on its operands' regions: the runs of one
 * kernel (golden and every variant) share them through a memo keyed by a
 * hash of those regions (values, defined bits, shapes, dtype, transpose). */
MatMemo *sim_memo_new(void);
void sim_memo_free(MatMemo *m);

/* ---- interp.c internals shared with machine.c ------------------------------------ */

enum { SIM_CTX = 3 };                           /* storage contexts: AIC, lane 0, lane 1 */

typedef struct {
  Tile t[SIM_CTX][2];                           /* [context][buffer] */
  int cur[SIM_CTX];                             /* which buffer holds the value, -1: none */
  bool freed[SIM_CTX];                          /* a popped value whose slot was released */
  uint32_t gen[SIM_CTX];                        /* assignments so far */
  /* A view (slice, subview): the value it is a window of (var id + 1 of the
   * first non-view parent; 0: not a view) and that value's gen then. */
  uint32_t of[SIM_CTX], vgen[SIM_CTX];
  /* On an addressed machine (Kernel.planned): where the value's bytes are in
   * its core's space and the buffer (var id + 1) that must have written them
   * last; a view names its parent's bytes. len 0: not placed, not checked. */
  int32_t at[SIM_CTX], len[SIM_CTX];
  uint32_t own[SIM_CTX];
  int32_t bytes;                                /* the variable's padded size, 0 until its first placed def */
} Slot;

typedef struct Machine Machine;
struct Sim {
  Arena *A;
  const Kernel *k;
  Gm *gm;                                       /* by var id (tensors) */
  Slot **slot;                                  /* by var id (tiles), made on first assignment */
  int64_t *ival[SIM_CTX];                       /* loop variables, by context and var id */
  int64_t *sval[SIM_CTX];                       /* computed scalars, by context and var id */
  int lane;                                     /* lane number of the statement running */
  int only;                                     /* reference run inside if/while: the one lane running, else -1 */
  bool mc;                                      /* running on the machine: context = task */
  bool addressed;                               /* ... with memplan's offsets: sim_mem_* track the bytes */
  bool plain;                                   /* SimOpts.plain */
  SimFault fault;
  int task;
  Machine *m;
  MatMemo *memo;
  void *mm_scr;                                 /* the matmuls' scratch, reused by each (interp.c) */
  struct SimPool *pool;                         /* tile buffers the reference run gave back (interp.c) */
  size_t mm_cap;
  uint64_t steps, max_steps;
  int op1;                                      /* 1 + the op of the statement running (names it in err) */
  void (*on_pop)(void *ctx, const Stmt *st, int lane, int vr, int vc);
  void *hook_ctx;
  Diag err;
  jmp_buf jb;
};

#define SIM_ERR(S_, L_, C_, ...)                                   \
  do {                                                             \
    (S_)->err.set = true;                                          \
    (S_)->err.code = (C_);                                         \
    (S_)->err.loc = (L_);                                          \
    (S_)->err.op1 = (S_)->op1;                                     \
    snprintf((S_)->err.msg, sizeof (S_)->err.msg, __VA_ARGS__);    \
    longjmp((S_)->jb, 1);                                          \
  } while (0)

void sim_exec(Sim *s, const Stmt *st);          /* one non-pipe statement in the current context */
Tile *sim_value(Sim *s, const Arg *a);
Tile *sim_fresh(Sim *s, const Var *v);
Slot *sim_slot(Sim *s, const Var *v);           /* the variable's storage, made on first use */
void sim_commit(Sim *s, const Var *v, Tile *t);
int64_t sim_ieval(Sim *s, const Aff *a);

/* ---- machine.c: AIC and AIV lanes over pipes ------------------------------------------ */

/* Run per-core IR; sched 0 is round-robin, else the seed of a random order.
 * Flat source IR without lanes (sim_machine_runs_flat) runs too, as one task
 * (the oracle's self-check compares that with the reference interpreter). */
bool sim_run_machine(Sim *s, uint64_t sched);
bool sim_machine_runs_flat(const Kernel *k);
enum { SIM_MAX_INS = 20000000 };                /* the machine's instruction budget (R-STEPS) */
/* Instructions the last machine run executed, a blocked task's tries included:
 * at most one try per task between two executed instructions. */
uint64_t sim_machine_ins(const Sim *s);
void sim_gm_access(Sim *s, const Gm *g, int r, int c, bool write, Loc loc);
void sim_gm_access_row(Sim *s, const Gm *g, int r, int c, int n, bool write, const void *val, Loc loc);
bool sim_in_replay(const Sim *s);
/* Addressed memory (DESIGN 14.10): st defined its tile destination (pop_at:
 * the reserve byte a tpop filled, else -1): record where its bytes are and tag
 * them as written by it (R-CAPACITY when they end past the space); a read of
 * v finds them still tagged so, else R-ALIAS. */
void sim_mem_def(Sim *s, const Stmt *st, int64_t pop_at);
void sim_mem_read(Sim *s, const Var *v, const Tile *t, Loc loc);
/* The bytes of space sp per core on target t as the hardware has them (DESIGN
 * section 4; vec per AIV lane): the machine's own table, not the compiler's. */
int64_t sim_capacity(Target t, Space sp);

Sim *sim_new(const Kernel *k, const SimOpts *o);
void sim_free(Sim *s);
/* Run the kernel (flat source IR) with the reference semantics. Returns false
 * with sim_diag() set on a runtime error. */
bool sim_run_reference(Sim *s);
const Diag *sim_diag(const Sim *s);
Gm *sim_gm(Sim *s, const Var *tensor);
uint64_t sim_digest(const Gm *g);
void sim_print_outputs(FILE *f, Sim *s, bool dump);
Elem sim_gm_get(const Gm *g, int r, int c);      /* value as stored (f16 widened) */
uint32_t sim_gm_bits(const Gm *g, int r, int c); /* raw storage bits */
Elem sim_convert(Dtype from, Dtype to, Elem a); /* the cast op on one element (language.md 9.4) */

/* Deterministic PRNG (splitmix64) used for inputs and schedules. */
uint64_t sim_rand(uint64_t *state);

#endif
