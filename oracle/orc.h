/* orc.h — the internal header of liboracle (differential runs, classification,
 * signatures, first-bad-pass bisection). Exported names carry the prefix orc_. */
#ifndef ORC_H
#define ORC_H

#include "../sim/sim.h"

#include <signal.h>

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
  char pass[40];                                /* first bad pass (a PyPTO pass name), or "-" */
  char detail[200];
  double compile_ms;
  /* 1 + the unsplit variant of the same kernel with the same finding (kind,
   * code, first bad pass): not a split bug, so it takes that one's signature */
  int same_as;
  int backend;                                  /* 0 the model, 1 the real toolchain (ptoas + pto-isa), 2 PyPTO */
  char check;                                   /* PyPTO: 'a' compile, 'b' pass dumps, 'c' ptoas + pto-isa; else 0 */
  bool claimed;                                 /* a reject only because the kernel's compile claim says
                                                   this variant must compile (code: the unsupported one),
                                                   or an escape because it says it must be refused */
  char vname[32];                               /* real back ends: ptoas:MODE@a3|a5, pypto:MODE@a3|a5 */
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
/* The generator's refusal claim (`# expect-refuse: none@a2a3=E-SPLIT-MIXED:check_split
 * ...`): true when variant v must be refused, with the code and the pass that
 * should refuse it ("-" when not named). A claimed variant that compiles is an
 * `escape` (VarResult.claimed): a checker let a negative construct through. */
bool orc_must_refuse(const Src *src, int v, char *code, size_t nc, char *pass, size_t np);
/* Run one kernel through the golden run and every variant. */
void orc_check(const Src *src, const OrcOpts *o, OrcResult *res);
/* Signature: kind|mode|code|op|pass|pattern (no numbers, names or shapes); op is
 * the op's family (load, elementwise, reduce, transfer, ...); pattern is "-"
 * for unsplit variants; a split finding that the unsplit variants show too is
 * signed as theirs (VarResult.same_as). */
void orc_signature(const VarResult *r, char *buf, size_t n);
/* Real back ends (ptoas, PyPTO): a split variant's finding that an unsplit
 * variant of r[0..n) shows too (the same check, kind, code, op and pass) is
 * not a split bug: it takes the unsplit one's mode (same_as), pattern "-". */
void orc_same_as_unsplit(VarResult *r, int n);
bool orc_is_finding(Outcome o);
const char *orc_op_family(int op);              /* an Op's family: load, store, elementwise, ...; NULL when none */
const char *orc_mode_name(int mode);            /* "none", "up_down", "left_right" (odd modes by their axis) */
const char *orc_variant_mode(int variant);      /* the split a variant compiles with */
const char *orc_variant_name(const VarResult *r);   /* none@a2a3 ..., or ptoas:MODE@a3|a5 */
/* Compare every output of s (kernel k) with the golden run g (kernel gk); on a
 * difference fill the mismatch pattern relative to the split axis (axis < 0: "-"). */
bool orc_same_outputs(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, int axis, char *pattern, size_t pn);
/* The same with a tolerance and a baseline: with tol > 0 two finite floats agree
 * within tol x the largest magnitude of the golden tensor; with base, only an
 * element that base has right (agrees with g) and s has wrong is a difference
 * (what a PyPTO pass newly broke, whatever torch got wrong before it). */
bool orc_compare_outputs(Sim *g, const Kernel *gk, Sim *s, const Kernel *k, Sim *base, double tol, int axis,
                         char *pattern, size_t pn);

/* ---- real.c: the real toolchain back end (PTOAS + pto-isa CPU simulation) ------- */

/* Where the real tools are. Found from flags, else $PTOAS / $PTO_ISA / $PTO_CXX,
 * else the copy in ../shared/third_party (searched upward from the working
 * directory and from the executable's directory). */
typedef struct {
  char ptoas[512];                              /* the ptoas binary */
  char isa[512];                                /* pto-isa root: the directory holding include/pto/ */
  char cxx[512];                                /* C++ compiler (clang++-19) */
  char lld[512];                                /* ld.lld as cxx finds it, programs link with it
                                                   (-fuse-ld=lld); "": cxx's default linker */
  char cache[512];                              /* the precompiled header and batches live here */
  char version[96];                             /* ptoas's version line, or "unknown" */
  char why[256];                                /* when not found: the reason, one line */
} RealTools;
/* False with t->why set when no usable toolchain is found. */
bool orc_real_find(RealTools *t, const char *ptoas_flag, const char *isa_flag);
/* The real back ends' cache, created if missing: $PTO_REAL_CACHE, else
 * $XDG_CACHE_HOME/ptofuzz, else ~/.cache/ptofuzz, else /tmp/ptofuzz-cache-UID.
 * It holds the harness's headers (support-HASH/), the precompiled header and
 * object (ptofuzz-harness-HASH.pch, .o) and one work directory per check in
 * progress (run-XXXXXX/). False with why set when it cannot be used. */
bool orc_cache_dir(char *out, size_t n, char *why, size_t wn);
/* Removes a directory tree (symbolic links are removed, not followed). */
void orc_rm_rf(const char *path);
/* Stopping without a handler or a flag: a command blocks SIGINT, SIGTERM and
 * SIGHUP (orc_stop_block; *old gets the previous mask) and the kernel keeps the
 * one that arrives pending. orc_stop_pending names it (0: none). The real back
 * end polls it while its tools run: it kills their process groups, starts no
 * other and removes its work directory, so the command, which polls it too,
 * exits 128 + the signal with nothing left behind. */
void orc_stop_block(sigset_t *old);
int orc_stop_pending(void);
/* The file shared/third_party/<rel>, seen from the working directory or the executable. */
bool orc_shared_file(const char *rel, char *out, size_t n);

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
  bool pypto;                                   /* PyPTO's PTO-AS: ptoas with the flags PyPTO passes it
                                                   (--enable-insert-sync --pto-level=level3) */
  bool lane_arg;                                /* the vector function takes its lane index as its last
                                                   argument (PyPTO from 6b426ae45: %__pypto_spmd_subblock_idx) */
  int np;
  RealParam *p;                                 /* the kernel's tensors, in parameter order */
  /* out */
  RealStage st;
  char msg[512];                                /* the tool's diagnostic (first error), or why it failed */
  double t_ptoas, t_cxx, t_run;                 /* milliseconds attributed to this job */
  int cxx_runs;                                 /* compiler runs its C++ was part of */
  char *cpp;                                    /* with RealOpts.ptoas_only: the C++ ptoas wrote
                                                   (malloc'd, the caller frees); else NULL */
} RealJob;

/* What the C++ compiles of earlier orc_real_run calls taught: the shapes of the
 * lines that failed. A caller that runs batch after batch keeps one and passes
 * it in RealOpts.memo, and a unit then seldom holds a job that fails; it
 * changes no outcome. */
typedef struct RealMemo RealMemo;
RealMemo *orc_real_memo_new(void);              /* NULL when out of memory */
void orc_real_memo_free(RealMemo *m);

typedef struct {
  int jobs;                                     /* parallel processes (ptoas, compiles, runs); >= 1 */
  int batch;                                    /* jobs per translation unit; 0: 16 */
  double run_timeout_s;                         /* per program run; 0: 10 */
  bool keep;                                    /* keep the work directory (for debugging) */
  RealMemo *memo;                               /* NULL, or learns from and guides this call */
  int ptoas_group;                              /* most jobs one ptoas run takes, merged (0: 32; 1: each
                                                   job alone) */
  bool ptoas_only;                              /* stop after ptoas: a job it passes ends RS_OK with
                                                   RealJob.cpp set (tests) */
} RealOpts;

/* What a bundle (reports/bundle.c) needs to run one job without ptofuzz: the
 * standalone host program of job j (harness.cpp: the harness every kernel
 * program links, then `#include "cpp"` inside a namespace, j's calls and main;
 * comm: the C++ includes pto/comm/pto_comm_inst.hpp), malloc'd; the compile
 * flags of every kernel program (the precompiled header's -I and -include-pch
 * and the serial parallel.hpp's -I aside); the fixed environment a program
 * runs in (NULL-terminated). */
char *orc_real_harness(const RealJob *j, const char *cpp, bool comm);
const char *const *orc_real_cxx_flags(int *n);
const char *const *orc_real_run_env(void);
enum { ORC_REAL_PTOAS_LIMIT_S = 60, ORC_REAL_RUN_LIMIT_S = 10 };   /* ptoas alone; a program's run */
/* The tools' identities, one line each: ptoas's version line and commit (from a
 * COMMIT file, git, or the README.md table of shared/third_party), pto-isa's
 * commit (likewise), the C++ compiler's version line. */
typedef struct {
  char ptoas[700], isa[700], cxx[700];
  char ptoas_path[512], isa_path[512];
} RealIds;
void orc_real_ids(const RealTools *t, RealIds *id);

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
  int probes;                                   /* probe kernels run after miscompiles (probe.c) */
  int cxx_jobs;                                 /* variants that reached the C++ compiler */
  int cxx_runs;                                 /* compiler runs of those, summed (RealJob.cxx_runs) */
} RealTimes;

/* Every case's variants through ptoc (to PTO-AS), ptoas, the C++ compiler and
 * a run on pto-isa's CPU simulation, in batches; each output compared bit for
 * bit with the golden run and classified (DESIGN section 13). */
void orc_real_check(const RealTools *t, RealCase *cases, int n, const RealOpts *o, RealTimes *tm);
/* "ptoas:up_down@a3" -> the real variant's index for a kernel of target tgt, or -1. */
int orc_real_variant(const char *name);
/* A message's class: its words with numbers, quoted names and paths taken out ("-" when none). */
void orc_msg_class(const char *m, char *out, size_t n);
/* ptoas's "'pto.OPNAME' op MESSAGE": the op name and the class of the message after it. */
void orc_ptoas_msg(const char *m, char *op, size_t on, char *cls, size_t cn);
const char *orc_real_ctype(Dtype d);            /* the C++ element type pto-isa uses */
/* "outputs differ from the golden run in N elements; first T[r,c] expected E (0x..) got A (0x..)" */
void orc_first_diff(Sim *g, const Kernel *gk, Sim *s, char *out, size_t n);
/* The outcome of a real job that ran (or failed on the way): reject, crash, hang,
 * or its outputs (outs: per parameter of the front-end kernel gk, in order, NULL
 * for an unchanged one) compared with the golden run g (inputs g0) within tol
 * (orc_compare_outputs). x's mode must be set; adds to *t_compare. */
void orc_real_classify(const Kernel *gk, Sim *g, Sim *g0, VarResult *x, const RealJob *j, unsigned char *const *outs,
                       double tol, double *t_compare);

/* Run every job: ptoas on each (jobs of one arch merged into one module, each
 * job's C++ as if alone), the C++ of a batch of jobs compiled into one
 * program (with a precompiled pto/pto-inst.hpp), each job run in a process of
 * its own with a time limit. Fills st, msg, the times and RealParam.out. */
void orc_real_run(const RealTools *t, RealJob *jobs, int n, const RealOpts *o);

/* One real variant of a kernel, ready to run (a bundle's, reports/bundle.c):
 * compiled and printed as PTO-AS exactly as orc_real_check does, the job
 * (RealJob: text, arch, functions, lanes, slot buffer, FFTS, the tensors'
 * initial bytes from the golden run's inputs), and per tensor its name, dtype,
 * shape, direction and the golden run's bytes after the run. */
typedef struct {
  const char *name;
  Dtype dt;
  int rows, cols;
  bool out;                                     /* written by the kernel (out or inout) */
  const unsigned char *init, *golden;           /* before and after the golden run */
} OrcTensor;
typedef struct {
  RealJob job;                                  /* zero for variant -1 */
  int nt;
  OrcTensor *t;                                 /* the kernel's tensors, in parameter order */
  char why[300];                                /* when false: why there is no job */
  void *priv;
} OrcRealPrep;
/* variant: orc_real_variant's index, or -1 for the golden run alone. False with why set (the kernel does not parse,
 * its golden run fails, the variant never reaches ptoas); free it either way. */
bool orc_real_prepare(const Src *src, uint64_t seed, uint32_t bugs, int variant, OrcRealPrep *p);
void orc_real_prepare_free(OrcRealPrep *p);

/* ---- probe.c: where a real miscompile starts ---------------------------------------------- */

enum { ORC_PROBE_STORE = -1, ORC_PROBE_MASKED = -2, ORC_MAX_PROBES = 48 };   /* C++ grows with every probe */
typedef struct {
  const char *text;                             /* the probe kernel's source */
  Src src;                                      /* over text */
  int first;                                    /* its first probe parameter (the kernel's own come before) */
  int n;                                        /* probes */
  const char *blame[ORC_MAX_PROBES];            /* per probe: what a first wrong tile there blames */
  char what[ORC_MAX_PROBES][64];                /* per probe: "t3 = relu at 7:8" (line:col of the kernel) */
} OrcProbe;
/* The probe kernel of front (ir_front's kernel of src) for a variant (split,
 * target: CompOpts'), built in A; false when it has no tile to probe or its
 * spaces cannot be inferred. */
bool orc_probe_build(Arena *A, const Src *src, const Kernel *front, int split, int target, OrcProbe *p);
/* pk: the probe kernel's front end, g its golden run, outs its real outputs
 * per parameter: the first probe that differs, ORC_PROBE_STORE when only the
 * kernel's own outputs differ, ORC_PROBE_MASKED when they no longer do. */
int orc_probe_blame(const OrcProbe *p, const Kernel *pk, Sim *g, unsigned char *const *outs);

/* ---- pypto.c: the real PyPTO as a back end (DESIGN section 16) ---------------------------- */

enum { ORC_NPYPTO = 4,                          /* pypto:none@a3 pypto:none@a5 pypto:up_down@T pypto:left_right@T */
       ORC_PYPTO_MAXR = 4 * ORC_NPYPTO,         /* per variant: (a), (b)'s parse-back and torch parts, (c) */
       ORC_PYPTO_MAXB = 8 };                    /* PyPTO builds one command compares */

typedef struct {
  char dir[512];                                /* the PyPTO tree: holds python/pypto/ */
  char python[512];                             /* the interpreter: $PYTHON, else Debian's /usr/bin/python3 */
  char commit[48];                              /* from DIR/COMMIT or DIR/.git, else "unknown" */
  char date[16];                                /* the commit's date (YYYY-MM-DD), "" when unknown */
  unsigned caps;                                /* PY_CAP_* (ir_pypto_caps) */
  bool ptoas;                                   /* check (c) applies: its PTO-AS pairs with ptoas v0.42 */
  char why[256];
} PyptoBuild;
/* The builds of a comma-separated list of directories (NULL or "": $PYPTO, else
 * ../shared/third_party/pypto/b25b25a4a); how many, or -1 with why set. */
int orc_pypto_builds(const char *list, PyptoBuild *b, int max, char *why, size_t n);

/* One long-lived python3 running the driver (oracle/pypto.py) on one build:
 * started at once (NULL with why set when it cannot import PyPTO and torch),
 * restarted after it dies or hangs. timeout_s limits each program (0: 30). */
typedef struct PyDrv PyDrv;
PyDrv *orc_pypto_open(const PyptoBuild *b, double timeout_s, char *why, size_t n);
void orc_pypto_close(PyDrv *d);                 /* kills it, removes its work directory */
const char *orc_pypto_hello(const PyDrv *d);    /* "pypto V torch V python V" */
const PyptoBuild *orc_pypto_build(const PyDrv *d);
/* The directory of the driver's last program: prog.py, out/ (PyPTO's output:
 * passes_dump/, kernels/), log.txt; it lasts until the next request but one. */
const char *orc_pypto_last_dir(const PyDrv *d);

typedef struct {
  /* in */
  const Src *src;
  uint64_t input_seed;
  int only;                                     /* -1: every variant, else one (orc_pypto_variant) */
  /* out */
  bool invalid;                                 /* the kernel itself is wrong */
  Diag why;
  int n;
  VarResult r[ORC_PYPTO_MAXR];                  /* per variant: (a), then (b) and (c) when it compiled */
  bool finding, toolerr;
} PyCase;

typedef struct {
  double translate, pypto, torch, ptoas, cxx, run, compare;   /* milliseconds, summed */
  int checks, ran;                              /* programs PyPTO compiled; jobs run on pto-isa */
  int variants, translated, parsed, compiled;   /* variants tried; translated by ptoc; PyPTO's parse and
                                                   its compile went through */
  int64_t errors;                               /* tool errors */
} PyTimes;

/* Every case's variants: ptoc's translation (ir_emit_pypto) through PyPTO on the
 * driver, its pass dumps parsed back and run on torch, and its PTO-AS through the
 * real toolchain rt (NULL: check (c) is skipped, unsupported E-PYPTO-PTOAS) in
 * one batch of orc_real_run. */
void orc_pypto_check(PyDrv *d, const RealTools *rt, PyCase *cases, int n, const RealOpts *o, PyTimes *tm);
/* "pypto:up_down@a3" -> the variant's index, or -1. */
int orc_pypto_variant(const char *name);

#endif
