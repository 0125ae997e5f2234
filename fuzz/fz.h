/* fz.h — the drivers' header (fuzz/): the ptofuzz command (campaign.c,
 * bench.c, bisect.c, import.c, usage.c, ptofuzz_main.c), libfuzzreplay
 * (replay.c, reduce.c: one kernel's verdict and the minimizer, for ptofuzz and
 * pto-check), pto-check (check.c) and the fuzz targets (target.c). They build
 * on libfuzzgen, the kernel generator, whose header gen/gen.h this one
 * includes. Sectioned by the file that defines each part; exported names
 * carry the prefix fz_. */
#ifndef FZ_H
#define FZ_H


#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli.h"
#include "gen.h"

/* ---- campaign.c: `ptofuzz run` and `bench throughput` ----------------------------- */

typedef struct {
  double seconds;                               /* the budget, when count is 0 */
  int64_t count;                                /* kernels, or 0 */
  uint64_t seed;
  int jobs;
  const char *db, *policy_path, *bugs_text;
  uint32_t bugs;
  int random_every;                             /* OrcOpts.random_every; 0: FZ_RANDOM_EVERY */
  bool quiet;
  int trials;                                   /* bench defects: campaigns per defect */
  const char *engine, *engine_bin;              /* bench defects --engine=libfuzzer|afl, its binary (bench.c) */
  const char *engine_seeds;                     /* bench defects --seeds=DIR: libFuzzer's read-only seed corpus */
  /* the back ends (DESIGN sections 13, 16): FZ_MODEL, FZ_PTOAS, FZ_PYPTO, or a union */
  int backend;
  int real_every;                               /* the real back end checks kernel i when i % real_every == 0 */
  int real_batch;                               /* kernels per real batch; 0: 32 */
  const char *ptoas, *pto_isa;                  /* toolchain flags, or NULL (orc_real_find) */
  int pypto_every;                              /* beside the model: PyPTO checks kernel i when i % pypto_every == 0 */
  int pypto_batch;                              /* kernels per PyPTO batch (check (c) compiles them together); 0: 8 */
  const char *pypto;                            /* --pypto=DIR (one build), or NULL (orc_pypto_builds) */
  double pypto_timeout;                         /* seconds per PyPTO program; 0: 30 */
  bool pypto_ab;                                /* --pypto-checks=ab: PyPTO's checks (a) and (b) only, no ptoas */
  int64_t shard_i, shard_n;                     /* --shard=I/N: kernels i with i mod N = I; shard_n 0: all */
  double reduce_new;                            /* --reduce-new=S: seconds, shared, to reduce the findings new
                                                   to the database after the run; 0: none */
  /* reduces finding id of database db within `seconds` and stores it (0 ok) */
  int (*reduce)(void *ctx, const char *db, int64_t id, double seconds);
  void *reduce_ctx;
  int error_exitcode;                           /* run --error-exitcode=N: the exit status when a finding is new; 0 none */
  const char *artifacts;                        /* run --artifacts=DIR: each new finding's reproducer, or NULL */
} FzRunOpts;
enum { FZ_MODEL = 1, FZ_PTOAS = 2, FZ_PYPTO = 4 };
enum { FZ_RANDOM_EVERY = 8 };                   /* campaigns sample the random schedule 1 in 8 (docs/decisions.md) */

int fz_run(const FzRunOpts *o);                 /* exit status */
int fz_bench_throughput(const FzRunOpts *o);    /* seconds or count, seed, policy, bugs */
uint64_t fz_kernel_seed(uint64_t seed, int64_t i);                  /* kernel i of a campaign */
bool fz_parse_shard(const char *text, int64_t *i, int64_t *n);     /* "I/N", 0 <= I < N */
char *fz_kernel_text(const FzPolicy *p, uint64_t seed, int64_t i, size_t *len);   /* malloc'd */

/* ---- child.c: a function run in a forked child -------------------------------------- */

void *fz_shared(size_t n);                      /* zeroed memory the caller shares with its children */
/* A close-on-exec pipe, then fork (stdio flushed first): 0 in the child, the
 * child's pid in the parent; *parent is the forking process's pid. */
pid_t fz_fork_piped(int fds[2], pid_t *parent);
void fz_shared_free(void *p, size_t n);
typedef struct {
  /* in */
  double timeout_s;                             /* the watchdog; <= 0: none */
  double grace_s;                               /* when the command stops: how long the child may clean
                                                   up after SIGTERM (its real tools); 0: killed at once */
  /* out */
  int st;                                       /* wait status */
  bool hung;                                    /* ran past the watchdog, killed */
  int stopped;                                  /* the command is stopping (orc_stop_pending): the signal */
} FzChild;
/* fn(ctx) in a forked child that dies with its parent; true when it exited 0
 * (not hung, not stopped). */
bool fz_in_child(void (*fn)(void *ctx), void *ctx, FzChild *c);
enum { FZ_STOP_GRACE_S = 1 };                   /* a child with real tools: SIGTERM, then SIGKILL after this */

/* ---- replay.c: one kernel's verdict as a set of signatures ------------------------ */

enum { FZ_SIGLEN = 160, FZ_MAXSIG = 17 };       /* 4 variants x 2 schedules and a lost child; PyPTO: 4 x 4 results */
typedef struct {
  bool invalid;                                 /* the kernel itself is wrong (why says how) */
  bool finding;                                 /* n > 0 */
  char why[400];
  int n;
  char sig[FZ_MAXSIG][FZ_SIGLEN];               /* distinct, in the oracle's order */
  char detail[FZ_MAXSIG][200];                  /* fz_verdict: the oracle's detail of each signature's
                                                   first result (for rep_cluster_key); else "" */
} FzVerdict;
typedef struct {
  const char *name, *text;                      /* name: for diagnostics only */
  size_t len;
  uint32_t bugs;
  uint64_t input_seed, sched_seed;              /* `ptofuzz diff` uses 0 and 1 */
  int random_every;                             /* OrcOpts.random_every: 0 always (replays), campaigns sample */
  bool full_inputs;                             /* OrcOpts.full_inputs (`--inputs=full`) */
  bool quiet;                                   /* fz_replay: the child's stdout and stderr go to /dev/null */
  void (*progress)(void *ctx, int variant, int sched);   /* fz_verdict only */
  void *ctx;
} FzReplay;
/* The oracle in this process (with bisection, as campaigns and diff run it). */
void fz_verdict(const FzReplay *r, FzVerdict *v);
/* The same in a forked child: a crash gives `crash|MODE|SIGNAL|-|-|-`, a child
 * still running after timeout_s seconds (<= 0: no limit) is killed and gives
 * `hang|MODE|watchdog|-|-|-`, MODE being the variant in flight. */
void fz_replay(const FzReplay *r, double timeout_s, FzVerdict *v);
enum { FZ_HANG_SECONDS = 20 };                  /* a worker this long on one kernel is hung */
double fz_now(void);                            /* monotonic wall clock, seconds */
/* A worker pid that ended, or that is busy (on a kernel since `started`) past
 * FZ_HANG_SECONDS and was killed (*hung): true, with its wait status. */
bool fz_reap(pid_t pid, bool busy, double started, int *st, bool *hung);
void fz_verdict_add(FzVerdict *v, const char *sig);          /* unless already there */
bool fz_verdict_has(const FzVerdict *v, const char *sig);
/* Add the crash (or, hung, the hang) signature of a child that ended with
 * wait status `status` while running `variant`. */
void fz_verdict_lost(FzVerdict *v, int variant, bool hung, int status);

/* The real back end (DESIGN section 13): kernels through ptoc, ptoas and a run on
 * pto-isa's CPU simulation, classified against the golden run (orc_real_check),
 * in a forked child. Used by `pto-check --backend=ptoas` and `ptofuzz reduce
 * --backend=ptoas`. */
typedef struct FzReal FzReal;                   /* the toolchain found, and how to run it */
/* The toolchain from the flags (NULL: $PTOAS / $PTO_ISA, else ../shared/third_party;
 * orc_real_find), run with `jobs` parallel processes (<= 0: one per CPU). NULL
 * with why set when none is usable. */
FzReal *fz_real_open(const char *ptoas, const char *isa, int jobs, char *why, size_t n);
void fz_real_free(FzReal *t);
const char *fz_real_version(const FzReal *t);   /* ptoas's version line */
/* The PyPTO back end (DESIGN section 16) through the same interface: the build
 * at dir (NULL: orc_pypto_builds' default), its driver started at once and kept
 * for every replay (in this process: the driver is a child of its own, under
 * time limits); check (c) where the real toolchain (ptoas, isa) is found. */
FzReal *fz_pypto_open(const char *dir, const char *ptoas, const char *isa, int jobs, double timeout_s, char *why,
                      size_t n);
const char *fz_pypto_commit(const FzReal *t);  /* the PyPTO build's commit, NULL for ptoas */
enum { FZ_NREAL = 16 };                         /* ORC_NREAL (ptoas:none@a3 ptoas:none@a5 ptoas:up_down@T
                                                   ptoas:left_right@T) and ORC_PYPTO_MAXR (4 results of each) */
typedef struct {
  char name[32];                                /* ptoas:MODE@a3|a5, pypto:MODE@a3|a5 */
  char check;                                   /* PyPTO: 'a', 'b' or 'c'; ptoas: 0 */
  char outcome[16];                             /* orc_outcome_name */
  char code[48];
  char sig[FZ_SIGLEN];                          /* a finding's signature, else "" */
  char detail[200];                             /* the tool's message, ptoc's diagnostic, the first difference */
} FzRealVar;
typedef struct {
  /* in */
  const char *name, *text;                      /* name: for diagnostics only */
  size_t len;
  uint32_t bugs;
  uint64_t input_seed;                          /* `ptofuzz diff --backend=ptoas` uses 0 */
  const char *only;                             /* a variant name (ptoas:up_down@a3, pypto:...): that one alone; NULL: every one */
  /* out */
  FzVerdict v;                                  /* invalid and why; the findings' distinct signatures */
  bool clean;                                   /* valid, and every variant ok or unsupported */
  bool toolerr;                                 /* a variant's tools failed (outcome tool-error): never clean */
  bool lost;                                    /* the check died or hung (v.why says how): never clean */
  int n;                                        /* variants checked */
  FzRealVar var[FZ_NREAL];
} FzRealCase;
/* Every case through the real back end in ONE orc_real_check (it compiles many
 * kernels per translation unit), in a forked child killed after timeout_s
 * seconds (<= 0: no limit). If that child dies or hangs with more than one
 * case, each case is checked again in a child of its own, so only the case
 * at fault is lost. (A killed check leaves its work directory in the cache.) */
void fz_real_replay(const FzReal *t, FzRealCase *c, int n, double timeout_s);

/* ---- bench.c: `ptofuzz bench defects` ---------------------------------------------- */

/* seconds (per trial and for the all-defects campaign), trials, jobs, seed,
 * policy_path. Prints the per-defect lines and the attribution; exit status. */
int fz_bench_defects(const FzRunOpts *o);
/* `bench scale [--sizes=N,...] [--kinds=loads,transfers,params] [--phases=compile,emit,reference]
 * [--limit=S]`: the arguments after `scale`; -1 on a bad argument, else the exit status. */
int fz_bench_scale(int argc, char **argv);

/* ---- bisect.c: a real back end's finding across toolchain builds ------------------ */

/* `ptofuzz bisect ID|FILE --toolchains=A,B,...` and `ptofuzz db recheck
 * --toolchain=X` (the arguments after the command): the exit status, or -1
 * for a usage error (said on stderr; the caller prints the usage). */
int fz_bisect(int argc, char **argv);
int fz_recheck(int argc, char **argv);

/* ---- cache.c: `ptofuzz cache [clean [--all]]` ----------------------------------------- */

int fz_cache(int argc, char **argv);            /* the arguments after `cache`; the exit status */

/* ---- import.c: `ptofuzz import`, engine inputs into findings ---------------------- */

/* The kernel text fuzz/target.c generates from an engine input (default
 * policy, byte choice source). malloc'd. */
char *fz_bytes_kernel(const uint8_t *data, size_t n, size_t *len);
/* An engine input's signatures as `ptofuzz import` records them (the oracle in
 * a forked child with diff's seeds; a crash or hang as a campaign signs it). */
void fz_sign_input(const uint8_t *data, size_t n, uint32_t bugs, FzVerdict *v);
int fz_import(int argc, char **argv);
/* ---- usage.c: the commands' option tables (compiler/cli.h) -------------------------- */
/* The table of command name ("" the top level, "run", "db list", "bench defects"), or NULL. */
const IrCmd *fz_cmd(const char *name);
/* argv with `--opt value` joined into `--opt=value` for the valued options of
 * every command of family ("db": db and each db subcommand); ir_cli_join. */
char **fz_cmd_args(const char *family, int *argc, char **argv);           /* the subcommand; exit status */
/* A whole file's bytes (malloc'd into *buf, *n of them); false when it cannot be read. */
bool fz_read_bytes(const char *path, uint8_t **buf, size_t *n);

/* ---- reduce.c: the test-case minimizer (`ptofuzz reduce`) ------------------------- */

enum { FZ_MAXSIGS = 16 };                        /* FZ_SIGLEN: replay.c */
typedef struct {
  int n;
  char sig[FZ_MAXSIGS][FZ_SIGLEN];              /* kind|mode|code|op|pass|pattern, first seen first */
} FzSigs;
typedef struct {
  uint32_t bugs;                                /* the oracle's options: defects, */
  uint64_t input_seed, sched_seed;              /* inputs, random schedule; bisection on, random always run */
  double timeout_s;                             /* per check; 0: 20 s (a campaign's hang limit) */
  bool full_inputs;                             /* `--inputs=full` (OrcOpts.full_inputs) */
  double deadline;                              /* fz_keep_sig: no check runs past it (fz_now); 0: none */
} FzCheckOpts;
/* Run the oracle on one kernel text in a forked child. The distinct finding
 * signatures in report order; a child killed by a signal adds
 * `crash|MODE|SIGNAL|-|-|-`, one past the timeout `hang|MODE|watchdog|-|-|-`
 * (MODE: the variant in flight), as a campaign records them. False only when
 * pipe or fork fail. */
bool fz_check_sigs(const char *text, size_t len, const FzCheckOpts *o, FzSigs *out);
typedef struct {
  const char *sig;                              /* the signature to keep */
  FzCheckOpts o;
} FzSigTarget;
/* A reduction predicate (ctx: FzSigTarget): the text still gives the signature. */
bool fz_keep_sig(void *ctx, const char *text, size_t len);

/* The real back end's predicate (ctx: FzRealTarget): the text, checked by
 * fz_real_replay on the one variant `only`, still gives the signature. Prints
 * one progress line per check on stderr unless quiet. */
typedef struct {
  const FzReal *real;
  const char *sig;                              /* kind|ptoas:MODE|code|op|pass|pattern */
  const char *only;                             /* the variant that showed it (ptoas:up_down@a3), or NULL: every one */
  uint32_t bugs;
  uint64_t input_seed;
  double timeout_s;                             /* per check; <= 0: no limit */
  double deadline;                              /* no check runs past it (fz_now); 0: none */
  bool quiet;
  int calls;                                    /* progress: checks made, */
  double t0;                                    /* started at (fz_now) */
} FzRealTarget;
bool fz_keep_real_sig(void *ctx, const char *text, size_t len);

typedef bool (*FzKeepFn)(void *ctx, const char *text, size_t len);
enum { FZ_REDUCE_MAX_CALLS = 2000, FZ_REDUCE_MAX_SECONDS = 300 };
enum { FZ_REDUCE_REAL_MAX_CALLS = 150 };        /* the real back end: 1-3 s a check */
typedef struct {
  int max_calls;                                /* predicate calls; 0: FZ_REDUCE_MAX_CALLS */
  double max_seconds;                           /* wall time; 0: FZ_REDUCE_MAX_SECONDS */
} FzReduceLimits;
typedef struct {
  int stmts_before, stmts_after;                /* fz_count_stmts */
  int calls, cache_hits;                        /* predicate calls made; answers found in the cache */
  bool capped;                                  /* a limit stopped the search */
  int stopped;                                  /* the command is stopping (orc_stop_pending): the signal */
} FzReduceStats;
/* A smaller text for which keep still holds (text is assumed to satisfy it):
 * delta debugging over the body's lines and blocks, then unused parameters,
 * loop trip counts and operands. Deterministic for a deterministic keep while
 * no limit is reached. A pending stop (orc_stop_pending) ends the search as a
 * limit does, with the smallest text so far. malloc'd; never NULL. */
char *fz_reduce_text(const char *text, FzKeepFn keep, void *ctx, const FzReduceLimits *lim, FzReduceStats *st);
/* Statements of a kernel text: body lines that end in `;` or open a block. */
int fz_count_stmts(const char *text);

#endif
