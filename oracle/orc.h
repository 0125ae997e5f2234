/* orc.h — the internal header of liboracle (differential runs, classification,
 * signatures, first-bad-pass bisection). Exported names carry the prefix orc_. */
#ifndef ORC_H
#define ORC_H

#include "../sim/sim.h"

/* ---- oracle.c ---------------------------------------------------------------- */

typedef enum {
  OUT_OK, OUT_UNSUPPORTED, OUT_REJECT, OUT_ESCAPE, OUT_HANG, OUT_MISCOMPILE, OUT_CRASH, OUT_BLOWUP,
  OUT_INVALID,
  OUT_TOOLERR,                                  /* the real toolchain failed to run: counted, never a finding */
  OUT_N
} Outcome;
const char *orc_outcome_name(Outcome o);

enum { ORC_NVARIANT = 4, ORC_NSCHED = 2 };
extern const char *const orc_variants[ORC_NVARIANT];   /* none@a2a3 none@a5 up_down left_right */

typedef struct {
  int variant, sched;                           /* sched 0: rr, 1: random */
  int mode;                                     /* the split the signature names (a Mode): the variant's,
                                                   or the unsplit one's when same_as */
  Outcome out;
  char code[48];                                /* diagnostic or runtime code, or "-" */
  char op[48];                                  /* op kind involved (real back end: the message's class), or "-" */
  char pattern[12];                             /* miscompiles: lane0 lane1 both tail transposed all */
  char pass[16];                                /* first bad pass, or "-" */
  char detail[200];
  double compile_ms;
  /* 1 + the unsplit variant of the same kernel with the same finding (kind,
   * code, first bad pass): not a split bug, so it takes that one's signature */
  int same_as;
  int backend;                                  /* 0 the model, 1 the real toolchain (ptoas + pto-isa) */
  bool claimed;                                 /* a reject only because the kernel's compile claim says
                                                   this variant must compile (code: the unsupported one) */
  char vname[32];                               /* real back end: ptoas:MODE@a3|a5 */
} VarResult;

typedef struct {
  uint32_t bugs;                                /* injected defects */
  uint64_t input_seed, sched_seed;              /* inputs; the random schedule */
  bool bisect;                                  /* find the first bad pass of non-ok results */
  bool full_inputs;                             /* SimOpts.full_inputs (`--inputs=full`); else k/16 values */
  /* 0 or 1: every variant also runs under the random schedule (DESIGN section 8).
   * N > 1: when a variant's round-robin run is ok, its random run is sampled on one
   * kernel in N (by input seed); it always runs after a non-ok round-robin run.
   * Sound because the machine is determinate and its race detection complete
   * (docs/decisions.md). */
  int random_every;
  /* called before each variant runs (the crash guard of `diff` uses it) */
  void (*progress)(void *ctx, int variant, int sched);
  void (*report)(void *ctx, const VarResult *r);  /* after each variant */
  void *ctx;
  MatMemo *memo;                                /* set by orc_check itself */
  SimFault sim_fault;                           /* test hook: every machine run has this bug (SimOpts.fault) */
} OrcOpts;

typedef struct {
  double t_golden, t_compile, t_sim, t_compare; /* milliseconds spent, for bench throughput */
} OrcTimes;

typedef struct {
  bool invalid;                                 /* the kernel itself is wrong: not a finding */
  OrcTimes t;
  Diag why;                                     /* when invalid */
  int n;
  VarResult r[ORC_NVARIANT * ORC_NSCHED];
  bool finding;
  int claim;                                    /* orc_claim of the kernel's text */
} OrcResult;

/* The generator's compile claim in a kernel's leading comment lines
 * (`# expect-compile: none@a2a3 up_down ...`, docs/fuzzing.md): bit v set
 * when variant v (orc_variants) must compile; -1 when the text has no claim.
 * orc_check turns an `unsupported` outcome of a claimed variant into a
 * `reject` (VarResult.claimed). */
int orc_claim(const Src *src);
/* Run one kernel through the golden run and every variant. */
void orc_check(const Src *src, const OrcOpts *o, OrcResult *res);
/* Signature: kind|mode|code|op|pass|pattern (no numbers, names or shapes); op is
 * the op's family (load, elementwise, reduce, transfer, ...); pattern is "-"
 * for unsplit variants; a split finding that the unsplit variants show too is
 * signed as theirs (VarResult.same_as). */
void orc_signature(const VarResult *r, char *buf, size_t n);
bool orc_is_finding(Outcome o);
const char *orc_mode_name(int mode);            /* "none", "up_down", "left_right" (odd modes by their axis) */
const char *orc_variant_mode(int variant);      /* the split a variant compiles with */
const char *orc_variant_name(const VarResult *r);   /* none@a2a3 ..., or ptoas:MODE@a3|a5 */
/* Compare every output of s (kernel k) with the golden run g (kernel gk); on a
 * difference fill the mismatch pattern relative to the split axis (axis < 0: "-"). */
bool orc_same_outputs(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, int axis, char *pattern, size_t pn);

/* ---- real.c: the real toolchain back end (PTOAS + pto-isa CPU simulation) ------- */

/* Where the real tools are. Found from flags, else $PTOAS / $PTO_ISA / $PTO_CXX,
 * else the copy in ../shared/third_party (searched upward from the working
 * directory and from the executable's directory). */
typedef struct {
  char ptoas[512];                              /* the ptoas binary */
  char isa[512];                                /* pto-isa root: the directory holding include/pto/ */
  char cxx[512];                                /* C++ compiler (clang++-19) */
  char cache[512];                              /* the precompiled header and batches live here */
  char version[96];                             /* ptoas's version line, or "unknown" */
  char why[256];                                /* when not found: the reason, one line */
} RealTools;
/* False with t->why set when no usable toolchain is found. */
bool orc_real_find(RealTools *t, const char *ptoas_flag, const char *isa_flag);

typedef enum {
  RS_OK,                                        /* ran; outputs in RealParam.out */
  RS_REJECT,                                    /* ptoas refused the program (exit 1 with a diagnostic) */
  RS_PTOAS_CRASH,                               /* ptoas died (signal, abort, assertion) or timed out */
  RS_CXX_ERROR,                                 /* the C++ ptoas wrote does not compile */
  RS_CXX_CRASH,                                 /* the C++ compiler died or timed out */
  RS_RUN_CRASH,                                 /* the program trapped, aborted or exited non-zero */
  RS_RUN_HANG,                                  /* the program ran past its time limit */
  RS_TOOL_ERROR,                                /* the toolchain itself is unusable (missing, PCH fails): not a finding */
  RS_N
} RealStage;
const char *orc_real_stage_name(RealStage s);

typedef struct {
  const char *ctype;                            /* C++ element type: "float", "half", "int32_t", "bfloat16_t", ... */
  size_t bytes;                                 /* the whole GM tensor */
  const unsigned char *init;                    /* its contents before the run (inputs; canary-filled outputs) */
  unsigned char *out;                           /* after the run (malloc'd, the caller frees); NULL unless RS_OK */
} RealParam;

typedef struct {
  /* in */
  const char *pto;                              /* PTO-AS text of one variant */
  const char *arch;                             /* "a3" or "a5" (ptoas --pto-arch) */
  const char *fn_cube, *fn_vec;                 /* the functions to call, NULL when a side is empty */
  int lanes;                                    /* vector threads: 1, or 2 (subblocks 0 and 1) */
  size_t slot_bytes;                            /* GM slot buffer passed after the tensors (0: none) */
  bool ffts_cube, ffts_vec;                     /* the function takes an FFTS base after the slot buffer (a3 flags) */
  int np;
  RealParam *p;                                 /* the kernel's tensors, in parameter order */
  /* out */
  RealStage st;
  char msg[512];                                /* the tool's diagnostic (first error), or why it failed */
  double t_ptoas, t_cxx, t_run;                 /* milliseconds attributed to this job */
} RealJob;

typedef struct {
  int jobs;                                     /* parallel processes (ptoas, compiles, runs); >= 1 */
  int batch;                                    /* jobs per translation unit; 0: 16 */
  double run_timeout_s;                         /* per program run; 0: 10 */
  bool keep;                                    /* keep the work directory (for debugging) */
} RealOpts;

/* ---- realdiff.c: kernels through the real back end, compared with the golden run ---- */

enum { ORC_NREAL = 4 };                          /* ptoas:none@a3 ptoas:none@a5 ptoas:up_down@T ptoas:left_right@T */

typedef struct {
  /* in */
  const Src *src;
  uint64_t input_seed;
  uint32_t bugs;
  int only;                                     /* -1: every variant, else one (a reproducer's own) */
  /* out */
  bool invalid;                                 /* the kernel itself is wrong */
  Diag why;
  int n;
  VarResult r[ORC_NREAL];
  bool finding, toolerr;
} RealCase;

typedef struct {
  double emit, ptoas, cxx, run, compare;        /* milliseconds, summed over the cases */
  int jobs;                                     /* variants that reached ptoas */
} RealTimes;

/* Every case's variants through ptoc (to PTO-AS), ptoas, the C++ compiler and
 * a run on pto-isa's CPU simulation, in batches; each output compared bit for
 * bit with the golden run and classified (DESIGN section 13). */
void orc_real_check(const RealTools *t, RealCase *cases, int n, const RealOpts *o, RealTimes *tm);
/* "ptoas:up_down@a3" -> the real variant's index for a kernel of target tgt, or -1. */
int orc_real_variant(const char *name);

/* Run every job: ptoas on each, the C++ of a batch of jobs compiled into one
 * program (with a precompiled pto/pto-inst.hpp), each job run in a process of
 * its own with a time limit. Fills st, msg, the times and RealParam.out. */
void orc_real_run(const RealTools *t, RealJob *jobs, int n, const RealOpts *o);

#endif
