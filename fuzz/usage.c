/* usage.c — the ptofuzz commands' option tables (compiler/cli.h): each
 * command's and subcommand's --help (its options, one line each with the
 * default, and its exit codes), its usage lines after a usage error, and the
 * options that take a value (`--opt value` is `--opt=value`). */
#include "fz.h"

#include <string.h>

#define OPT_DB {"--db", "F", "findings.db", "the findings database"}
#define OPT_BUGS {"--bugs", "LIST|all", "$PTOFUZZ_BUGS, else none", "switch injected defects on (docs/defects.md)"}
#define OPT_POLICY {"--policy", "F", "the built-in policy", "the generator's policy file (gen --print-policy)"}
#define OPT_PTOAS {"--ptoas", "P", "$PTOAS, else ../shared/third_party", "the real ptoas"}
#define OPT_ISA {"--pto-isa", "D", "$PTO_ISA, else ../shared/third_party", "the pto-isa tree"}
#define OPT_PYPTO {"--pypto", "DIR", "$PYPTO, else ../shared/third_party/pypto/b25b25a4a", "the PyPTO build"}
#define OPT_PYTIME {"--pypto-timeout", "S", "30", "seconds per PyPTO program"}
#define OPT_SEED(d) {"--seed", "N", d, "the seed (a decimal uint64)"}
#define OPT_JOBS(d, h) {"--jobs", "J", d, h}
#define OPT_END {NULL, NULL, NULL, NULL}

#define EXIT_DB "0  done\n1  a usage error (E-USAGE), a database that is missing or cannot be read, a bad ID\n"

static const IrOpt o_none[] = {OPT_END};

static const IrOpt o_diff[] = {
    OPT_BUGS, OPT_SEED("FILE's # seed:, else 0"),
    {"--inputs", "full|k16", "FILE's # flags:, else k16", "input values: every element random, or 16 distinct values"},
    {"--backend", "model|ptoas|both|pypto|all", "FILE's # flags:, else model", "the back ends to check"},
    OPT_PTOAS, OPT_ISA,
    {"--pypto", "DIR[,DIR...]", "$PYPTO, else ../shared/third_party/pypto/b25b25a4a", "the PyPTO builds"},
    OPT_PYTIME, OPT_JOBS("2", "parallel tool runs of the real back ends"),
    {"--max-mem", "MB", "2048", "the model's memory (compile and run); beyond it E-LIMIT, exit 1"},
    {"--keep-work", NULL, NULL, "keep the real back ends' work directories"}, OPT_END};

static const IrOpt o_run[] = {
    {"--time", "S", "60, when no --count", "stop after S seconds (S > 0)"},
    {"--count", "N", "none: timed", "stop after N kernels (N >= 1); the last of --time and --count wins"},
    OPT_SEED("a fresh random one, printed"), OPT_JOBS("1", "worker processes"), OPT_DB, OPT_BUGS, OPT_POLICY,
    {"--random-every", "N", "8", "random schedule on 1 kernel in N that round-robin found ok"},
    {"--backend", "model|ptoas|both|pypto", "model", "the back ends to check"},
    {"--real-every", "N", "64 with --backend=both", "one kernel in N through the real back end"},
    {"--real-batch", "N", "32", "kernels per translation unit on the real back end"},
    OPT_PYPTO, {"--pypto-every", "N", "none; 16 when given", "one kernel in N through PyPTO beside the model"},
    {"--pypto-batch", "N", "8", "kernels per PyPTO program (1..256)"}, OPT_PYTIME,
    {"--pypto-checks", "ab|abc", "abc", "PyPTO checks: ab leaves out ptoas and pto-isa"}, OPT_PTOAS, OPT_ISA,
    {"--quiet", NULL, NULL, "no progress line and no NEW lines on stderr"},
    {"--shard", "I/N", "0/1", "this machine checks kernels i with i mod N = I"},
    {"--reduce-new", "S", "0: none", "after the run, S seconds in all to reduce the findings new to the database"},
    {"--error-exitcode", "N", "0: the exit status does not depend on findings",
     "exit N (1..255) when the campaign recorded a finding new to the database"},
    {"--artifacts", "DIR", "none", "write each new finding's reproducer (as db export) to DIR/finding-ID.ptk"},
    OPT_END};

static const IrOpt o_gen[] = {
    OPT_SEED("0"), {"--count", "N", "1", "kernels to generate (N >= 1)"},
    {"--out", "DIR", "none: kernels on stdout", "write kernel i as DIR/kNNNNNN.ptk"},
    {"--bytes-out", "DIR", "none", "write kernel i's choices as fuzzer bytes, DIR/kNNNNNN.bin"},
    {"--stats", NULL, NULL, "print how often each generator feature appeared (no kernels)"},
    {"--coverage", NULL, NULL, "print the share of each language construct (no kernels)"}, OPT_POLICY,
    {"--print-policy", NULL, NULL, "print the policy in force and stop"}, OPT_END};

static const IrOpt o_throughput[] = {
    {"--time", "S", "10", "seconds to measure (S > 0)"},
    {"--count", "N", "none: timed", "check exactly N kernels (N >= 1) instead"}, OPT_SEED("1"), OPT_POLICY, OPT_BUGS,
    {"--random-every", "N", "8", "random schedule on 1 kernel in N that round-robin found ok"},
    {"--backend", "model|ptoas|pypto", "model", "the back end to measure"},
    OPT_JOBS("2", "parallel tool runs of the real back ends"),
    {"--real-batch", "N", "32", "kernels per translation unit on the real back end"},
    {"--real-every", "N", "1", "one kernel in N through the real back end"}, OPT_PYPTO,
    {"--pypto-every", "N", "1", "one kernel in N through PyPTO"},
    {"--pypto-checks", "ab|abc", "abc", "PyPTO checks: ab leaves out ptoas and pto-isa"},
    {"--pypto-batch", "N", "8", "kernels per PyPTO program (1..256)"}, OPT_PYTIME, OPT_PTOAS, OPT_ISA, OPT_END};

static const IrOpt o_defects[] = {
    {"--time", "S", "10", "seconds per campaign (S > 0)"}, {"--trials", "N", "3", "campaigns per defect (1..1000)"},
    OPT_JOBS("1", "worker processes per campaign"), OPT_SEED("1"), OPT_POLICY,
    {"--engine", "libfuzzer|afl", "none: ptofuzz's own campaigns", "measure a coverage-guided engine instead"},
    {"--engine-bin", "PATH", "build-libfuzzer/ or build-afl/'s target", "the engine's fuzz target"},
    {"--seeds", "DIR", "none", "read-only seed inputs for the engine (libfuzzer)"}, OPT_END};

static const IrOpt o_scale[] = {
    {"--sizes", "N,...", "1000,10000,100000", "kernel sizes (statements), at most 16"},
    {"--kinds", "LIST", "loads,transfers,params", "which kernels grow"},
    {"--phases", "LIST", "compile,emit,reference", "which phases are timed"},
    {"--limit", "S", "600", "seconds per measurement before it is cut"}, OPT_END};

static const IrOpt o_db[] = {OPT_DB, OPT_END};
static const IrOpt o_dblist[] = {OPT_DB, {"--clusters", NULL, NULL, "group the findings by cluster"}, OPT_END};
static const IrOpt o_recheck[] = {
    {"--toolchain", "X", "none: required", "the ptoas or PyPTO build to replay on"}, OPT_DB,
    OPT_JOBS("the tools' own", "parallel replays (1..256)"), OPT_END};

static const IrOpt o_reduce[] = {
    {"--finding", "ID", "none: FILE", "reduce finding ID's first test case, and store the result"},
    {"--signature", "SIG", "FILE's first finding", "the signature to keep"}, OPT_BUGS, OPT_SEED("0"),
    {"-o", "OUT", "stdout", "write the reduced kernel to OUT"},
    {"--max-calls", "N", "2000 (the real back ends: 150)", "oracle calls at most (N >= 2)"},
    {"--time", "S", "300", "seconds at most"},
    {"--backend", "model|ptoas|pypto", "the signature's", "the back end that checks candidates"}, OPT_PTOAS, OPT_ISA,
    OPT_PYPTO, OPT_PYTIME, OPT_JOBS("1", "parallel tool runs of the real back ends"),
    {"--db", "F", "findings.db", "the findings database (with --finding)"},
    {"--quiet", NULL, NULL, "no progress or summary on stderr"}, OPT_END};

static const IrOpt o_report[] = {
    OPT_DB, {"--format", "md|html|json", "md", "the report's format"},
    {"-o", "FILE", "stdout", "write the report (and md's PNG pictures beside it)"},
    {"--pypto", "DIR[,DIR...]", "none", "PyPTO builds to replay a PyPTO finding on"},
    {"--reduce", "S", "60", "reduce a test case not yet reduced, within S seconds first (0: as found)"},
    {"--bundle", "DIR", "none", "a new folder that reproduces the finding with only the blamed tool"},
    {"--replays", "N", "3 (ptoas: 2)", "replays of the bundle's check (1..100)"}, OPT_END};

static const IrOpt o_dashboard[] = {OPT_DB, {"-o", "DIR", "none: required", "the page's folder"}, OPT_END};

static const IrOpt o_import[] = {
    OPT_DB, {"--engine", "libfuzzer|afl", "afl for files named id:*, else libfuzzer", "the engine that wrote them"},
    OPT_BUGS, OPT_END};

static const IrOpt o_bisect[] = {
    {"--toolchains", "A,B,...", "none: required", "the builds, oldest first"}, OPT_DB,
    OPT_JOBS("the tools' own", "parallel replays (1..256)"), OPT_END};

static const IrOpt o_cache[] = {{"--all", NULL, NULL, "clean: work directories in use too"}, OPT_END};

static const IrCmd cmds[] = {
    {"ptofuzz",
     "ptofuzz diff|run|gen|reduce|report|dashboard|import|bisect [OPTION...]\n"
     "ptofuzz db init|list|stats|show|export|status|merge|recheck [OPTION...]\n"
     "ptofuzz bench throughput|defects|scale [OPTION...]\nptofuzz cache [clean [--all]]",
     "Finds split-mode bugs in tile compilers. `ptofuzz COMMAND --help` describes each command.", o_none,
     "0  success\n1  a usage error (E-USAGE)\n(each command's --help gives its own)"},
    {"ptofuzz diff", "ptofuzz diff FILE [OPTION...]",
     "Checks one kernel with the oracle: every variant under two schedules against the golden\n"
     "run. FILE's `# flags:` and `# seed:` lines (ptofuzz db export) apply unless overridden.",
     o_diff,
     "0  clean\n1  a usage error (E-USAGE) or an invalid kernel\n2  internal, or the real tools failed (E-TOOL)\n"
     "3  a finding\n130  SIGINT (143 SIGTERM, 129 SIGHUP): stopped, its tools and work files gone"},
    {"ptofuzz run", "ptofuzz run [--time=S | --count=N] [OPTION...]",
     "A campaign: generated kernels through the oracle, findings into the database. On stderr\n"
     "a progress line (elapsed, kernels/s, ETA) and `NEW finding ID SIGNATURE` per new finding;\n"
     "the summary on stdout. Without --time and --count it runs 60 seconds; it never runs unbounded.",
     o_run,
     "0    the campaign ended (findings or not, without --error-exitcode)\n"
     "N    --error-exitcode=N and a finding new to the database\n"
     "1    a usage error (E-USAGE): a bad option, a missing --artifacts DIR, a bad policy or database\n"
     "2    internal: a finding the database would not take, the back end's tools unusable (E-TOOL)\n"
     "130  stopped by SIGINT (143: SIGTERM, 129: SIGHUP); the findings so far are kept"},
    {"ptofuzz gen", "ptofuzz gen [OPTION...]", "Generates kernels (to stdout unless --out), or statistics over them.",
     o_gen, "0  done\n1  a usage error (E-USAGE), a bad policy, a file not written"},
    {"ptofuzz bench",
     "ptofuzz bench throughput [OPTION...]\nptofuzz bench defects [OPTION...]\nptofuzz bench scale [OPTION...]",
     "Benchmarks: `ptofuzz bench NAME --help` describes each.", o_none, "0  done\n1  a usage error (E-USAGE)"},
    {"ptofuzz bench throughput", "ptofuzz bench throughput [--time=S | --count=N] [OPTION...]",
     "Checks per second per core, in one process, no database; time by phase.", o_throughput,
     "0  done\n1  a usage error (E-USAGE)\n2  the back end's tools unusable (E-TOOL) or never ran"},
    {"ptofuzz bench defects", "ptofuzz bench defects [OPTION...]",
     "Time to the first finding of each injected defect: --trials campaigns per defect, then one\n"
     "with every defect on.",
     o_defects, "0  done\n1  a usage error (E-USAGE)\n2  internal"},
    {"ptofuzz bench scale", "ptofuzz bench scale [OPTION...]", "How compile time grows with kernel size.", o_scale,
     "0  done\n1  a usage error (E-USAGE)"},
    {"ptofuzz db",
     "ptofuzz db init|list|stats [--db=F]\nptofuzz db list --clusters [--db=F]\nptofuzz db show|export ID [--db=F]\n"
     "ptofuzz db status ID new|triaged|fixed|wontfix [--db=F]\nptofuzz db merge F... [--db=F]\n"
     "ptofuzz db recheck --toolchain=X [--db=F] [--jobs=J]",
     "The findings database: `ptofuzz db SUBCOMMAND --help` describes each.", o_db, EXIT_DB},
    {"ptofuzz db init", "ptofuzz db init [--db=F]", "Creates the database (or upgrades its schema).", o_db, EXIT_DB},
    {"ptofuzz db list", "ptofuzz db list [--clusters] [--db=F]",
     "A header, then one line per finding: id, status, hits, signature, title.", o_dblist, EXIT_DB},
    {"ptofuzz db stats", "ptofuzz db stats [--db=F]", "Counts by kind, variant and status; the campaigns.", o_db,
     EXIT_DB},
    {"ptofuzz db show", "ptofuzz db show ID [--db=F]", "A finding's fields, the campaigns that saw it, its test cases.",
     o_db, EXIT_DB},
    {"ptofuzz db export", "ptofuzz db export ID [--db=F]",
     "A finding's test case as a reproducer (with its # flags: and # seed: lines) on stdout.", o_db, EXIT_DB},
    {"ptofuzz db status", "ptofuzz db status ID new|triaged|fixed|wontfix [--db=F]", "Sets a finding's status.", o_db,
     EXIT_DB},
    {"ptofuzz db merge", "ptofuzz db merge F... [--db=F]",
     "Folds the databases F... into --db, by signature, never counting a campaign twice.", o_db,
     "0  every file merged\n1  a usage error (E-USAGE), a file not merged"},
    {"ptofuzz db recheck", "ptofuzz db recheck --toolchain=X [--db=F] [--jobs=J]",
     "Replays the open ptoas or PyPTO findings on build X; those that no longer reproduce are\n"
     "marked fixed in X.",
     o_recheck, "0  done\n1  a usage error (E-USAGE), a database or build that cannot be used\n130  SIGINT (143 SIGTERM, 129 SIGHUP): stopped, its tools and work files gone"},
    {"ptofuzz reduce", "ptofuzz reduce FILE [OPTION...]\nptofuzz reduce --finding=ID [OPTION...]",
     "Minimizes a kernel while it keeps its signature; prints it (a finding's is also stored).", o_reduce,
     "0  reduced\n1  a usage error (E-USAGE), a kernel that does not give the signature\n"
     "2  internal, or the real tools unusable (E-TOOL)\n130  SIGINT (143 SIGTERM, 129 SIGHUP): stopped, its tools and work files gone,\n     the smallest kernel so far written"},
    {"ptofuzz report", "ptofuzz report ID [OPTION...]",
     "A finding's triage report: title, signature, reproduce commands, the minimized kernel,\n"
     "the wrong outputs' pictures, the IR diff around the first bad pass.",
     o_report,
     "0  written\n1  a usage error (E-USAGE): a bad ID, a missing output directory, a database\n"
     "2  internal: a report that could not be written"},
    {"ptofuzz dashboard", "ptofuzz dashboard [--db=F] -o DIR",
     "A static HTML page over the database (DIR/index.html), each finding's report beside it.", o_dashboard,
     "0  written\n1  a usage error (E-USAGE), DIR's parent missing, a database\n2  internal: a page not written"},
    {"ptofuzz import", "ptofuzz import PATH... [OPTION...]",
     "libFuzzer / AFL++ crash files (a file, or a directory such as crashes/) into findings.", o_import,
     "0  done\n1  a usage error (E-USAGE), an unreadable PATH, a database\n2  a finding that could not be recorded\n"
     "130  SIGINT (143 SIGTERM, 129 SIGHUP): stopped, its rows ended, the findings so far kept"},
    {"ptofuzz cache", "ptofuzz cache [clean [--all]]",
     "The real back ends' cache ($PTO_REAL_CACHE, else $XDG_CACHE_HOME/ptofuzz, else\n"
     "~/.cache/ptofuzz): its bytes; `clean` removes the prebuilt harness (rebuilt on the next\n"
     "real check) and the work directories not modified in the last hour.",
     o_cache, "0  done\n1  a usage error (E-USAGE), a cache that cannot be read or emptied"},
    {"ptofuzz bisect", "ptofuzz bisect ID|FILE --toolchains=A,B,... [--db=F] [--jobs=J]",
     "A ptoas or PyPTO finding on each build, oldest first: where it stops or starts.", o_bisect,
     "0  done\n1  a usage error (E-USAGE), a finding of the model, a build that cannot be used\n130  SIGINT (143 SIGTERM, 129 SIGHUP): stopped, its tools and work files gone"},
};
enum { NCMD = sizeof cmds / sizeof *cmds };

const IrCmd *fz_cmd(const char *name) {
  char full[64];
  snprintf(full, sizeof full, "ptofuzz%s%s", *name ? " " : "", name);
  for (int i = 0; i < NCMD; i++)
    if (!strcmp(cmds[i].name, full)) return &cmds[i];
  return NULL;
}

char **fz_cmd_args(const char *family, int *argc, char **argv) {
  const char *valued[128];
  int n = 0;
  size_t lf = strlen(family);
  valued[0] = NULL;
  for (int i = 0; i < NCMD; i++) {
    const char *c = cmds[i].name + 8;           /* after "ptofuzz " */
    if (strlen(cmds[i].name) > 8 && !strncmp(c, family, lf) && (!c[lf] || c[lf] == ' '))
      ir_cli_valued(cmds[i].opts, valued, &n, 128);
  }
  return ir_cli_join(argc, argv, valued);
}
