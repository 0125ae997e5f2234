/* bundle.c — a finding as a folder the maintainers of the blamed tool can run
 * with only that tool installed (`ptofuzz report ID --bundle DIR`,
 * docs/bundles.md). Consumes a finding of the database (its signature, kind,
 * variant, flags, seed and first test case, as rep_report read them) and the
 * tools ptofuzz finds (real.c, pypto.c); produces DIR holding the kernel
 * (kernel.ptk, with its `# flags:`/`# seed:` header), the tensors (inputs/,
 * expected/ from the golden run, actual/ from the tools at report time,
 * manifest.txt), the blamed tool's input (kernel.pto for ptoas, program.py for
 * PyPTO), for ptoas the C++ it wrote (kernel.cpp) and a host harness of ours
 * (harness.cpp, oracle/real.c's), run.sh and README.md. run.sh exits 1 when
 * the finding reproduces, 0 when it does not, 125 when it cannot check (a tool
 * missing; `git bisect run` skips those). The bundle's run.sh is replayed at
 * report time, and README.md and the caller get "reproduces N of N" and the
 * tools' full first error. */
#include "rep.h"
#include "cli.h"

#include "orc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct {
  Db *db;
  const DbInfo *f;
  const RepBundleOpts *o;
  RepBundle *res;
  const char *kernel;                           /* reduced text if any, else the kernel */
  char kind[24];                                /* how run.sh decides: reject, ptoas-crash, cxx-error, ... */
  char pat[400];                                /* ERE the tool's message must match ("" any) */
  char arch[4];                                 /* ptoas --pto-arch */
  char check;                                   /* PyPTO: 'a', 'b' or 'c' */
  OrcRealPrep prep;
  RealTools t;
  bool have_t;
  PyptoBuild pb;
  bool have_pb;
  char *cmds;                                   /* the commands run.sh runs, for README.md */
  size_t ncmds;
  FILE *cm;
  char note[600];                               /* what README.md says of a bundle that cannot check */
} Bd;

static const char *nz(const char *s) { return s ? s : "-"; }

/* ---- files ---------------------------------------------------------------------------- */

static bool path_in(const Bd *b, const char *rel, char *out, size_t n) {
  int k = snprintf(out, n, "%s/%s", b->o->dir, rel);
  return k > 0 && (size_t)k < n;
}

static bool put_file(const Bd *b, const char *rel, const void *p, size_t n, bool exec) {
  char path[PATH_MAX];
  FILE *f = path_in(b, rel, path, sizeof path) ? fopen(path, "wb") : NULL;
  bool ok = f && fwrite(p, 1, n, f) == n;
  if (f && fclose(f)) ok = false;
  if (ok && exec) ok = chmod(path, 0755) == 0;
  if (!ok) fprintf(stderr, "ptofuzz: report: cannot write %s: %s\n", path, strerror(errno));
  return ok;
}

static bool put_text(const Bd *b, const char *rel, const char *text, bool exec) {
  return put_file(b, rel, text, strlen(text), exec);
}

/* A whole file (at most 64 MiB), malloc'd, *n its length; NULL when unreadable. */
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *t = malloc(cap + 1);
  for (size_t k; t && (k = fread(t + len, 1, cap - len, f)) > 0;) {
    len += k;
    if (len == cap && cap < (64u << 20)) {
      char *u = realloc(t, 2 * cap + 1);
      if (!u) die("out of memory");
      t = u, cap *= 2;
    } else if (len == cap) break;
  }
  fclose(f);
  if (!t) die("out of memory");
  t[len] = 0;
  if (n) *n = len;
  return t;
}

/* Copy DIR/from to DIR/to; false when from is missing. */
static bool copy_in(const Bd *b, const char *from, const char *to) {
  char p[PATH_MAX];
  size_t n;
  char *t = path_in(b, from, p, sizeof p) ? slurp(p, &n) : NULL;
  bool ok = t && put_file(b, to, t, n, false);
  free(t);
  return ok;
}

static bool make_dir(const char *path) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0755) && errno != EEXIST) return false;
      *s = '/';
    }
  return !mkdir(p, 0755) || errno == EEXIST;
}

/* ---- the tensors ----------------------------------------------------------------------- */

static size_t tensor_bytes(const OrcTensor *t) { return (size_t)t->rows * t->cols * (size_t)ir_dtype_bytes(t->dt); }

/* inputs/NAME.bin (every tensor before the run: the inputs, the outputs' canaries),
 * expected/NAME.bin (each output after the golden run), manifest.txt. */
static bool write_tensors(Bd *b) {
  char p[PATH_MAX];
  static const char *const sub[] = {"inputs", "expected", "actual"};
  for (int i = 0; i < 3; i++)
    if (!path_in(b, sub[i], p, sizeof p) || !make_dir(p)) {
      fprintf(stderr, "ptofuzz: report: cannot create %s\n", p);
      return false;
    }
  char *man = NULL;
  size_t ml = 0;
  FILE *m = open_memstream(&man, &ml);
  fputs("# name dtype shape dir bytes (inputs/NAME.bin every tensor before the run, in parameter order;\n"
        "# expected/NAME.bin each output after the golden run; actual/NAME.bin after the real tools at report time)\n", m);
  bool ok = true;
  for (int i = 0; i < b->prep.nt && ok; i++) {
    const OrcTensor *t = &b->prep.t[i];
    size_t n = tensor_bytes(t);
    fprintf(m, "%s %s [%d,%d] %s %zu\n", t->name, ir_dtype_name(t->dt), t->rows, t->cols, t->out ? "out" : "in", n);
    snprintf(p, sizeof p, "inputs/%s.bin", t->name);
    ok = put_file(b, p, t->init, n, false);
    snprintf(p, sizeof p, "expected/%s.bin", t->name);
    if (ok && t->out) ok = put_file(b, p, t->golden, n, false);
  }
  fclose(m);
  ok = ok && put_text(b, "manifest.txt", man, false);
  free(man);
  return ok;
}

/* ---- run.sh ---------------------------------------------------------------------------- */

/* The start of every run.sh: its contract, helpers, a fresh work directory. */
static const char sh_head[] =
    "set -u\n"
    "cd \"$(dirname \"$0\")\" || exit 125\n"
    "W=${WORK:-work}\n"
    "rm -rf \"$W\" && mkdir -p \"$W/out\" || exit 125\n"
    "reproduces() { echo \"REPRODUCES: $*\"; exit 1; }\n"
    "fixed() { echo \"does not reproduce: $*\"; exit 0; }\n"
    "cannot() { echo \"run.sh: cannot check: $*\" >&2; exit 125; }\n"
    "show() { printf '+'; printf ' %s' \"$@\"; printf '\\n'; }\n"
    "matches() { [ -z \"$PAT\" ] || grep -qE \"$PAT\" \"$@\"; }\n"
    "# the first error of a log: its line and the lines that continue it (indented, notes)\n"
    "first_error() {\n"
    "  echo \"--- first error ($1)\"\n"
    "  awk 'f && (/^[ \\t]/ || /: note: /) { print; if (++n > 40) exit; next } f { exit } /error[:]/ { f = 1; print }' \"$1\"\n"
    "  echo \"---\"\n"
    "}\n";

/* The outputs split out of the program's one output file, each compared with cmp. */
static const char sh_compare_fn[] =
    "part() { tail -c +$(($2 + 1)) \"$W/out.bin\" | head -c \"$3\" > \"$W/out/$1.bin\"; }\n"
    "bad=0\n"
    "check() {  # NAME ELEMENT_BYTES COLUMNS\n"
    "  cmp -s \"expected/$1.bin\" \"$W/out/$1.bin\" && return\n"
    "  bad=1\n"
    "  b=$(cmp \"expected/$1.bin\" \"$W/out/$1.bin\" 2>&1 | sed -n -E 's/.* (byte|char) ([0-9]+).*/\\2/p' | head -n 1)\n"
    "  if [ -n \"$b\" ]; then\n"
    "    e=$(((b - 1) / $2))\n"
    "    echo \"output $1 differs from expected/$1.bin: first differing byte offset $((b - 1)) (element [$((e / $3)), $((e % $3))])\"\n"
    "  else\n"
    "    echo \"output $1 differs from expected/$1.bin: $(cmp \"expected/$1.bin\" \"$W/out/$1.bin\" 2>&1 | head -n 1)\"\n"
    "  fi\n"
    "}\n";

static const char sh_compare_end[] =
    "[ $bad = 1 ] && reproduces \"outputs differ from expected/ (the program's outputs are in $W/out/)\"\n"
    "fixed \"every output equals expected/\"\n";

/* ptoas's verdict on the file in $PTO; the finding's kind decides what reproduces. */
static const char sh_ptoas_judge[] =
    "rc=$?\n"
    "if [ $rc -eq 124 ] || [ $rc -ge 128 ] || grep -qE 'Assertion|LLVM ERROR|Stack dump' \"$W/ptoas.log\" \"$W/ptoas.out\"; then ptoas=crash\n"
    "elif [ $rc -ne 0 ]; then ptoas=reject\n"
    "elif [ ! -s \"$W/kernel.cpp\" ]; then ptoas=crash\n"
    "else ptoas=ok; fi\n"
    "[ $ptoas = ok ] || first_error \"$W/ptoas.log\"\n"
    "case $KIND in\n"
    "reject)\n"
    "  [ $ptoas = reject ] && matches \"$W/ptoas.log\" && reproduces \"ptoas refuses $PTO with the finding's diagnostic\"\n"
    "  fixed \"ptoas: $ptoas (the finding: a refusal matching /$PAT/)\" ;;\n"
    "ptoas-crash)\n"
    "  [ $ptoas = crash ] && reproduces \"ptoas crashes or times out on $PTO (exit $rc)\"\n"
    "  fixed \"ptoas: $ptoas (the finding: a crash)\" ;;\n"
    "*)\n"
    "  [ $ptoas = ok ] || fixed \"ptoas: $ptoas (exit $rc), before the finding's stage\" ;;\n"
    "esac\n";

static const char sh_cxx_tools[] =
    "[ -n \"${PTO_ISA:-}\" ] || cannot \"set PTO_ISA to the pto-isa root (the directory holding include/pto)\"\n"
    "if [ -f \"$PTO_ISA/include/pto/pto-inst.hpp\" ]; then INC=$PTO_ISA/include\n"
    "elif [ -f \"$PTO_ISA/pto/pto-inst.hpp\" ]; then INC=$PTO_ISA\n"
    "else cannot \"PTO_ISA=$PTO_ISA holds no include/pto/pto-inst.hpp\"; fi\n"
    "if [ -z \"${CXX:-}\" ]; then\n"
    "  if command -v clang++-19 >/dev/null 2>&1; then CXX=clang++-19; else CXX=clang++; fi\n"
    "fi\n"
    "command -v \"$CXX\" >/dev/null 2>&1 || cannot \"no C++ compiler $CXX (set CXX)\"\n";

static const char sh_cxx_judge[] =
    "rc=$?\n"
    "if [ $rc -ge 124 ] || grep -qE 'clang frontend command failed|PLEASE submit a bug report|Stack dump:|internal compiler error' \"$W/cxx.log\"; then cxx=crash\n"
    "elif [ $rc -ne 0 ]; then cxx=error\n"
    "else cxx=ok; fi\n"
    "[ $cxx = ok ] || first_error \"$W/cxx.log\"\n"
    "case $KIND in\n"
    "cxx-error)\n"
    "  [ $cxx = error ] && matches \"$W/cxx.log\" && reproduces \"the C++ does not compile, with the finding's error\"\n"
    "  fixed \"the C++ compiler: $cxx (the finding: an error matching /$PAT/)\" ;;\n"
    "cxx-crash)\n"
    "  [ $cxx = crash ] && reproduces \"the C++ compiler crashes or times out (exit $rc)\"\n"
    "  fixed \"the C++ compiler: $cxx (the finding: a crash)\" ;;\n"
    "*)\n"
    "  [ $cxx = ok ] || fixed \"the C++ compiler: $cxx (exit $rc), before the finding's stage\" ;;\n"
    "esac\n";

static const char sh_run_judge[] =
    "rc=$?\n"
    "if [ $rc -eq 124 ] && ! grep -q 'a write outside' \"$W/run.log\"; then run=hang\n"
    "elif [ $rc -eq 125 ] || [ $rc -eq 126 ] || [ $rc -eq 127 ]; then cannot \"the harness failed (exit $rc): $(tail -n 1 \"$W/run.log\")\"\n"
    "elif [ $rc -ne 0 ]; then run=crash\n"
    "else run=ok; fi\n"
    "if [ $run = crash ]; then echo \"--- first error ($W/run.log, its last lines)\"; tail -n 5 \"$W/run.log\"; echo \"---\"; fi\n"
    "case $KIND in\n"
    "run-hang)\n"
    "  [ $run = hang ] && reproduces \"the program runs past its limit\"\n"
    "  fixed \"the program: $run (the finding: a hang)\" ;;\n"
    "run-crash)\n"
    "  [ $run = crash ] && reproduces \"the program crashes (exit $rc): $(tail -n 1 \"$W/run.log\")\"\n"
    "  fixed \"the program: $run (the finding: a crash)\" ;;\n"
    "*)\n"
    "  [ $run = ok ] || fixed \"the program: $run (exit $rc), not the finding's wrong outputs\" ;;\n"
    "esac\n";

/* A word list "a-b-c" (a message's class, orc_msg_class) as an ERE: the words in order. */
static void class_pattern(const char *cls, char *out, size_t n) {
  size_t o = 0;
  out[0] = 0;
  if (!cls || !strcmp(cls, "-")) return;
  for (const char *p = cls; *p && o + 4 < n; p++) {
    if (*p == '-') {
      if (o && o + 3 < n) out[o++] = '.', out[o++] = '*';
      continue;
    }
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) continue;
    out[o++] = *p;
  }
  out[o] = 0;
}

/* `VAR='text'` with the text's single quotes escaped. */
static void sh_assign(FILE *f, const char *var, const char *text) {
  fprintf(f, "%s='", var);
  for (const char *p = text; *p; p++) {
    if (*p == '\'') fputs("'\\''", f);
    else fputc(*p, f);
  }
  fputs("'\n", f);
}

/* One word of a command line: as it is when plain or when it is one of our own
 * quoted expansions ("$W/..."), else in single quotes. */
static void sh_word(FILE *f, const char *w) {
  bool plain = *w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") == strlen(w);
  if (plain || strchr(w, '"')) {
    fputs(w, f);
    return;
  }
  fputc('\'', f);
  for (const char *p = w; *p; p++) fputs(*p == '\'' ? "'\\''" : (char[2]){*p, 0}, f);
  fputc('\'', f);
}

/* One command, both into run.sh (`set -- ...; show "$@"; "$@" > out err`) and
 * into the README's list of commands. */
static void sh_cmd(Bd *b, FILE *f, const char *const *argv, const char *out, const char *err) {
  fputs("set --", f);
  for (int i = 0; argv[i]; i++) fputc(' ', f), sh_word(f, argv[i]);
  fprintf(f, "\nshow \"$@\"\n\"$@\" > %s %s\n", out, err);
  for (int i = 0; argv[i]; i++) fputs(i ? " " : "", b->cm), sh_word(b->cm, argv[i]);
  fputc('\n', b->cm);
}

/* ptoas on $PTO (already set), the flags PyPTO passes it when pypto. */
static void sh_ptoas(Bd *b, FILE *f, bool pypto) {
  fputs("PTOAS=${PTOAS:-ptoas}\n"
        "command -v \"$PTOAS\" >/dev/null 2>&1 || cannot \"no ptoas on PATH (set PTOAS=/path/to/ptoas)\"\n", f);
  char arch[32];
  snprintf(arch, sizeof arch, "--pto-arch=%s", b->arch);
  const char *argv[] = {"timeout", "60", "\"$PTOAS\"", arch, "\"$PTO\"", "-o", "\"$W/kernel.cpp\"",
                        "--enable-insert-sync", "--pto-level=level3", NULL};
  if (!pypto) argv[7] = NULL;                   /* real.c: PyPTO's PTO-AS gets the flags PyPTO passes */
  sh_cmd(b, f, argv, "\"$W/ptoas.out\"", "2> \"$W/ptoas.log\"");
  fputs(sh_ptoas_judge, f);
}

/* The C++ compiler on harness.cpp (which includes kernel.cpp), the program run on
 * inputs/, its outputs compared with expected/. */
static void sh_cxx_run(Bd *b, FILE *f) {
  fputs("cp harness.cpp \"$W/harness.cpp\" || exit 125\n", f);
  int nf;
  const char *const *fl = orc_real_cxx_flags(&nf);
  const char *argv[64];
  int a = 0;
  argv[a++] = "timeout", argv[a++] = "300", argv[a++] = "\"$CXX\"";
  /* one unit holds the harness, which catches what a kernel throws: with exception handling (as real.c
   * compiles the harness's object); -fignore-exceptions would turn the catch into std::terminate */
  for (int i = 0; i < nf && a < 50; i++)
    if (strcmp(fl[i], "-fignore-exceptions")) argv[a++] = fl[i];
  argv[a++] = "-I", argv[a++] = "\"$INC\"", argv[a++] = "-ferror-limit=0", argv[a++] = "-fno-color-diagnostics";
  argv[a++] = "\"$W/harness.cpp\"", argv[a++] = "-o", argv[a++] = "\"$W/prog\"", argv[a++] = "-lpthread";
  argv[a] = NULL;
  sh_cmd(b, f, argv, "\"$W/cxx.log\"", "2>&1");
  fputs(sh_cxx_judge, f);
  fputs("cat", f);
  fputs("cat", b->cm);
  for (int i = 0; i < b->prep.nt; i++) fprintf(f, " inputs/%s.bin", b->prep.t[i].name), fprintf(b->cm, " inputs/%s.bin", b->prep.t[i].name);
  fputs(" > \"$W/in.bin\" || exit 125\n", f);
  fputs(" > \"$W/in.bin\"\n", b->cm);
  const char *run[16];
  a = 0;
  char lim[16];
  snprintf(lim, sizeof lim, "%d", ORC_REAL_RUN_LIMIT_S);
  run[a++] = "timeout", run[a++] = lim, run[a++] = "env", run[a++] = "-i";
  for (const char *const *e = orc_real_run_env(); *e && a < 12; e++) run[a++] = *e;
  run[a++] = "\"$W/prog\"", run[a++] = "0", run[a++] = "\"$W/in.bin\"", run[a++] = "\"$W/out.bin\"", run[a] = NULL;
  sh_cmd(b, f, run, "\"$W/run.out\"", "2> \"$W/run.log\"");
  fputs(sh_run_judge, f);
  fputs(sh_compare_fn, f);
  size_t off = 0;
  for (int i = 0; i < b->prep.nt; i++) {
    const OrcTensor *t = &b->prep.t[i];
    if (t->out) fprintf(f, "part %s %zu %zu\n", t->name, off, tensor_bytes(t));
    off += tensor_bytes(t);
  }
  for (int i = 0; i < b->prep.nt; i++)
    if (b->prep.t[i].out) fprintf(f, "check %s %d %d\n", b->prep.t[i].name, ir_dtype_bytes(b->prep.t[i].dt), b->prep.t[i].cols);
  fputs(sh_compare_end, f);
}

/* ---- per back end -------------------------------------------------------------------------- */

/* The finding's kind as run.sh decides it, and the pattern its message must match. */
static void ptoas_kind(Bd *b) {
  const DbInfo *f = b->f;
  const char *k = nz(f->kind), *code = nz(f->code);
  char cls[300];
  class_pattern(f->op, cls, sizeof cls);
  if (!strcmp(k, "reject")) {
    snprintf(b->kind, sizeof b->kind, "reject");
    /* ptoas's "'pto.OP' op MESSAGE" (orc_ptoas_msg): the op, then the class's words */
    if (strcmp(code, "ptoas") && strcmp(code, "-")) snprintf(b->pat, sizeof b->pat, "pto\\.%s.*%s", code, cls);
    else snprintf(b->pat, sizeof b->pat, "error.*%s", cls);
  } else if (!strcmp(k, "miscompile")) {
    snprintf(b->kind, sizeof b->kind, "miscompile");
  } else if (!strcmp(k, "hang")) {
    snprintf(b->kind, sizeof b->kind, "run-hang");
  } else {
    snprintf(b->kind, sizeof b->kind, "%s", code);   /* ptoas-crash, cxx-error, cxx-crash, run-crash */
    if (!strcmp(code, "cxx-error")) snprintf(b->pat, sizeof b->pat, "error:.*%s", cls);
  }
}

static bool ptoas_bundle(Bd *b, FILE *f) {
  int v = orc_real_variant(b->f->variant);
  Src src = {"finding", b->kernel, strlen(b->kernel)};
  uint32_t bugs = 0;
  char err[200];
  if (v < 0 || !ir_bugs_parse(b->o->bugs ? b->o->bugs : "", &bugs, err, sizeof err)) {
    fprintf(stderr, "ptofuzz: report: finding %lld: variant '%s' is not a real one\n", (long long)b->f->id,
            nz(b->f->variant));
    return false;
  }
  if (!orc_real_prepare(&src, b->f->seed, bugs, v, &b->prep)) {
    fprintf(stderr, "ptofuzz: report: finding %lld: no bundle: %s\n", (long long)b->f->id, b->prep.why);
    return false;
  }
  snprintf(b->arch, sizeof b->arch, "%s", b->prep.job.arch);
  ptoas_kind(b);
  if (!write_tensors(b) || !put_text(b, "kernel.pto", b->prep.job.pto, false)) return false;
  /* kernel.cpp is included by name; pto/comm is included first when ptoas's C++ uses it (as real.c's units do) */
  char *h = orc_real_harness(&b->prep.job, "kernel.cpp", false);
  bool ok = put_text(b, "harness.cpp", h, false);
  free(h);
  if (strcmp(b->kind, "reject") && strcmp(b->kind, "ptoas-crash")) fputs(sh_cxx_tools, f);   /* every tool first */
  fputs("PTO=kernel.pto\n# ---- ptoas: PTO-AS to C++\n", f);
  sh_ptoas(b, f, false);
  fputs("# ---- the C++ compiler and a run on pto-isa's CPU simulation\n", f);
  if (!strcmp(b->kind, "reject") || !strcmp(b->kind, "ptoas-crash")) fputs(sh_cxx_tools, f);
  sh_cxx_run(b, f);
  return ok;
}

static bool model_bundle(Bd *b, FILE *f) {
  Src src = {"finding", b->kernel, strlen(b->kernel)};
  if (!orc_real_prepare(&src, b->f->seed, 0, -1, &b->prep)) {
    fprintf(stderr, "ptofuzz: report: finding %lld: no bundle: %s\n", (long long)b->f->id, b->prep.why);
    return false;
  }
  if (!write_tensors(b)) return false;
  bool mis = !strcmp(nz(b->f->kind), "miscompile");
  snprintf(b->kind, sizeof b->kind, "%s", nz(b->f->kind));
  if (mis) {
    fputs("command -v ptosim >/dev/null 2>&1 || cannot \"no ptosim on PATH\"\n", f);
    const char *v = nz(b->f->variant);
    char split[80], target[80] = "", bugs[420] = "", seed[40], sched[60];
    if (!strncmp(v, "none@", 5)) snprintf(split, sizeof split, "--split=none"), snprintf(target, sizeof target, "--target=%s", v + 5);
    else snprintf(split, sizeof split, "--split=%s", v);
    if (b->o->bugs && *b->o->bugs && strcmp(b->o->bugs, "none")) snprintf(bugs, sizeof bugs, "--bugs=%s", b->o->bugs);
    snprintf(seed, sizeof seed, "--seed=%llu", (unsigned long long)b->f->seed);
    snprintf(sched, sizeof sched, "--schedule=%s", b->o->schedule ? b->o->schedule : "rr");
    const char *argv[10];
    int a = 0;
    argv[a++] = "ptosim", argv[a++] = "kernel.ptk", argv[a++] = split;
    if (*target) argv[a++] = target;
    if (*bugs) argv[a++] = bugs;
    argv[a++] = seed, argv[a++] = sched, argv[a++] = "--out-dir=\"$W/out\"", argv[a] = NULL;
    sh_cmd(b, f, argv, "\"$W/ptosim.out\"", "2> \"$W/ptosim.log\"");
    fputs("rc=$?\n"
          "[ $rc -eq 0 ] || { first_error \"$W/ptosim.log\"; fixed \"ptosim stops (exit $rc), not the finding's wrong outputs\"; }\n"
          "bad=0\n", f);
    fputs(strstr(sh_compare_fn, "bad=0\n") + 6, f);   /* check(), without part(): ptosim wrote each output */
    for (int i = 0; i < b->prep.nt; i++)
      if (b->prep.t[i].out) fprintf(f, "check %s %d %d\n", b->prep.t[i].name, ir_dtype_bytes(b->prep.t[i].dt), b->prep.t[i].cols);
    fputs(sh_compare_end, f);
  } else {
    fputs("command -v ptofuzz >/dev/null 2>&1 || cannot \"no ptofuzz on PATH\"\n", f);
    sh_assign(f, "SIG", nz(b->f->signature));
    const char *argv[] = {"ptofuzz", "diff", "kernel.ptk", "--backend=model", NULL};
    sh_cmd(b, f, argv, "\"$W/diff.out\"", "2> \"$W/diff.log\"");
    fputs("rc=$?\n"
          "grep -qF \"sig=$SIG\" \"$W/diff.out\" && { grep -F -A1 \"sig=$SIG\" \"$W/diff.out\" | head -n 2; "
          "reproduces \"ptofuzz diff shows the finding's signature\"; }\n"
          "fixed \"ptofuzz diff (exit $rc) does not show sig=$SIG\"\n", f);
  }
  return true;
}

/* Which PyPTO check found it (oracle/pypto.c): (c) its PTO-AS through ptoas and
 * pto-isa, (b) its pass dumps on torch, (a) PyPTO's own compile. */
static char pypto_check(const DbInfo *f) {
  const char *pass = nz(f->pass), *code = nz(f->code);
  if (!strcmp(pass, "ptoas") || !strcmp(pass, "cxx") || !strcmp(pass, "run")) return 'c';
  if (!strcmp(nz(f->kind), "miscompile") || !strncmp(code, "parse-back", 10) || !strncmp(code, "torch", 5)) return 'b';
  return 'a';
}

static bool pypto_bundle(Bd *b, FILE *f) {
  Src src = {"finding", b->kernel, strlen(b->kernel)};
  if (!orc_real_prepare(&src, b->f->seed, 0, -1, &b->prep)) {
    fprintf(stderr, "ptofuzz: report: finding %lld: no bundle: %s\n", (long long)b->f->id, b->prep.why);
    return false;
  }
  if (!b->o->program) {
    fprintf(stderr, "ptofuzz: report: finding %lld: no PyPTO program: %s\n", (long long)b->f->id, nz(b->o->program_note));
    return false;
  }
  if (!write_tensors(b) || !put_text(b, "program.py", b->o->program, false)) return false;
  b->check = pypto_check(b->f);
  const char *at = strchr(nz(b->f->variant), '@');
  snprintf(b->arch, sizeof b->arch, "%s", at && !strcmp(at, "@a5") ? "a5" : "a3");
  fputs("[ -n \"${PYPTO:-}\" ] && [ -d \"$PYPTO/python/pypto\" ] || cannot \"set PYPTO to the PyPTO tree holding python/pypto\"\n"
        "PY=${PYTHON:-python3}\n"
        "PYTHONPATH=\"$PYPTO/python${PYTHONPATH:+:$PYTHONPATH}\"\nexport PYTHONPATH\n"
        "\"$PY\" -c 'import pypto' >/dev/null 2>&1 || cannot \"$PY cannot import pypto from $PYPTO/python (is torch installed?)\"\n"
        "# ---- PyPTO: the program compiled (PTO-AS in $W/out/kernels, its passes in $W/out/passes_dump)\n", f);
  const char *argv[] = {"timeout", "600", "\"$PY\"", "program.py", "\"$W/out\"", NULL};
  sh_cmd(b, f, argv, "\"$W/pypto.out\"", "2> \"$W/pypto.log\"");
  fputs("rc=$?\n", f);
  if (b->check == 'a') {
    char cls[300];
    class_pattern(b->f->op, cls, sizeof cls);
    snprintf(b->kind, sizeof b->kind, "pypto-raise");
    snprintf(b->pat, sizeof b->pat, "%s.*%s", nz(b->f->code), cls);
    fputs("if [ $rc -ne 0 ]; then echo \"--- first error ($W/pypto.log, its last lines)\"; tail -n 20 \"$W/pypto.log\"; echo \"---\"; fi\n"
          "[ $rc -ne 0 ] && matches \"$W/pypto.log\" && reproduces \"PyPTO fails on program.py with the finding's error\"\n"
          "fixed \"PyPTO (exit $rc) does not fail with an error matching /$PAT/\"\n", f);
    return true;
  }
  fputs("[ $rc -eq 0 ] || { tail -n 20 \"$W/pypto.log\"; fixed \"PyPTO fails on program.py (exit $rc), before the finding's stage\"; }\n", f);
  ptoas_kind(b);
  bool past = strcmp(b->kind, "reject") && strcmp(b->kind, "ptoas-crash");
  if (b->check == 'b' || past) {
    snprintf(b->note, sizeof b->note, "this bundle checks PyPTO's compile%s only; a check-(%c) finding %s needs ptofuzz "
             "(`ptofuzz diff kernel.ptk --backend=pypto`)", b->check == 'b' ? "" : " and ptoas", b->check,
             b->check == 'b' ? "(pass dumps run on torch)" : "past ptoas (C++, run, outputs)");
    fprintf(f, "cannot \"%s\"\n", "this bundle does not check this finding's stage yet: see README.md");
    return true;
  }
  fputs("PTO=$(find \"$W/out/kernels\" -name '*.pto' 2>/dev/null | sort | head -n 1)\n"
        "[ -n \"$PTO\" ] || fixed \"PyPTO wrote no PTO-AS\"\n"
        "# ---- ptoas on PyPTO's PTO-AS, with the flags PyPTO's back end passes it\n", f);
  sh_ptoas(b, f, true);
  fputs("fixed \"ptoas takes PyPTO's PTO-AS\"\n", f);
  return true;
}

/* ---- replays ---------------------------------------------------------------------------- */

/* sh run.sh in the bundle with the tools in its environment; its exit status
 * (-1 when it did not run) and what it printed (malloc'd). */
static int replay(const Bd *b, char **log) {
  char lp[PATH_MAX];
  *log = NULL;
  if (!path_in(b, ".replay.log", lp, sizeof lp)) return -1;
  char env[8][PATH_MAX + 16];
  int ne = 0;
  if (b->have_t) {
    snprintf(env[ne++], sizeof env[0], "PTOAS=%s", b->t.ptoas);
    snprintf(env[ne++], sizeof env[0], "PTO_ISA=%s", b->t.isa);
    snprintf(env[ne++], sizeof env[0], "CXX=%s", b->t.cxx);
  }
  if (b->have_pb) {
    snprintf(env[ne++], sizeof env[0], "PYPTO=%s", b->pb.dir);
    snprintf(env[ne++], sizeof env[0], "PYTHON=%s", b->pb.python);
  }
  if (!strcmp(b->o->backend, "model")) {        /* ptoc, ptosim, ptofuzz: this executable's directory */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = 0;
      char *s = strrchr(self, '/');
      if (s) *s = 0;
      snprintf(env[ne++], sizeof env[0], "PATH=%.*s:/usr/bin:/bin", (int)(sizeof env[0] - 32), self);
    }
  }
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (!pid) {
    FILE *o = freopen(lp, "w", stdout);
    if (!o || dup2(fileno(stdout), 2) < 0 || chdir(b->o->dir)) _exit(126);
    setenv("WORK", "work", 1);
    for (int i = 0; i < ne; i++) putenv(env[i]);
    execle("/bin/sh", "sh", "run.sh", (char *)NULL, environ);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  *log = slurp(lp, NULL);
  unlink(lp);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first .pto file under dir (names in order, depth first), as run.sh's find | sort picks it. */
static bool find_pto(const char *dir, char *out, size_t n, int depth) {
  struct dirent **e;
  int k = depth < 8 ? scandir(dir, &e, NULL, alphasort) : -1;
  bool found = false;
  for (int i = 0; i < k; i++) {
    char p[PATH_MAX];
    const char *nm = e[i]->d_name;
    size_t l = strlen(nm);
    if (!found && nm[0] != '.' && snprintf(p, sizeof p, "%s/%s", dir, nm) < (int)sizeof p) {
      struct stat st;
      if (!stat(p, &st) && S_ISDIR(st.st_mode)) found = find_pto(p, out, n, depth + 1);
      else if (l > 4 && !strcmp(nm + l - 4, ".pto")) found = snprintf(out, n, "%s", p) < (int)n;
    }
    free(e[i]);
  }
  if (k >= 0) free(e);
  return found;
}

/* What the first replay left in work/: the C++ ptoas wrote, PyPTO's PTO-AS, the outputs. */
static void collect(Bd *b) {
  copy_in(b, "work/kernel.cpp", "kernel.cpp");
  char kd[PATH_MAX], pto[PATH_MAX] = "";
  if (b->check && path_in(b, "work/out/kernels", kd, sizeof kd) && find_pto(kd, pto, sizeof pto, 0)) {
    size_t n;                                   /* PyPTO: its PTO-AS, wherever under kernels/ it wrote it */
    char *t = slurp(pto, &n);
    if (t) put_file(b, "kernel.pto", t, n, false);
    free(t);
  }
  for (int i = 0; i < b->prep.nt; i++) {
    if (!b->prep.t[i].out) continue;
    char from[PATH_MAX], to[PATH_MAX];
    snprintf(from, sizeof from, "work/out/%s.bin", b->prep.t[i].name);
    snprintf(to, sizeof to, "actual/%s.bin", b->prep.t[i].name);
    copy_in(b, from, to);
  }
}

/* The block run.sh printed between "--- first error (...)" and "---". */
static char *first_error(const char *log) {
  const char *s = log ? strstr(log, "--- first error (") : NULL;
  if (!s) return NULL;
  const char *e = strstr(s, "\n---\n");
  size_t n = e ? (size_t)(e - s) : strlen(s);
  char *t = malloc(n + 2);
  if (!t) die("out of memory");
  memcpy(t, s, n);
  t[n] = '\n', t[n + 1] = 0;
  return t;
}

/* ---- README.md --------------------------------------------------------------------------- */

static void fence(FILE *f, const char *text) {
  fprintf(f, "````\n%s%s````\n\n", text, *text && text[strlen(text) - 1] != '\n' ? "\n" : "");
}

static const char *kind_words(const Bd *b) {
  static const struct {
    const char *k, *w;
  } t[] = {{"reject", "ptoas refuses kernel.pto with the finding's diagnostic (its message matches the pattern PAT in run.sh)"},
           {"ptoas-crash", "ptoas crashes (a signal, an assertion, LLVM ERROR) or runs past 60 s"},
           {"cxx-error", "the C++ ptoas wrote does not compile, with the finding's error (matching PAT)"},
           {"cxx-crash", "the C++ compiler crashes or runs past 300 s"},
           {"run-crash", "the program crashes: a signal, an assertion, or a write outside a tensor (exit 124 with the harness's message)"},
           {"run-hang", "the program runs past its 10 s limit"},
           {"miscompile", "an output differs from expected/ (cmp, bit for bit); run.sh prints which output and the first differing offset"},
           {"pypto-raise", "PyPTO's compile of program.py fails with the finding's error (matching PAT)"}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (!strcmp(b->kind, t[i].k)) return t[i].w;
  if (!strcmp(b->o->backend, "model")) return "`ptofuzz diff kernel.ptk --backend=model` prints the finding's signature";
  return "the finding's outcome";
}

static bool write_readme(Bd *b) {
  char *text = NULL;
  size_t tl = 0;
  FILE *f = open_memstream(&text, &tl);
  const DbInfo *i = b->f;
  const char *be = b->o->backend;
  fprintf(f, "# ptofuzz finding %lld: %s\n\n", (long long)i->id, nz(b->o->title));
  fprintf(f, "- signature: `%s`\n- variant: `%s`\n- kind: %s\n- summary: %s\n\n", nz(i->signature), nz(i->variant),
          nz(i->kind), nz(i->summary));
  fprintf(f, "**Reproduces %d of %d** (replays of this folder's run.sh when `ptofuzz report --bundle` wrote it).\n\n",
          b->res->reproduced, b->res->replays);
  fputs("## Run it\n\n", f);
  if (!strcmp(be, "ptoas"))
    fputs("```\nPTOAS=/path/to/ptoas PTO_ISA=/path/to/pto-isa sh run.sh   # CXX=clang++-19 by default\n```\n\n"
          "Needs ptoas (`PTOAS`, default: `ptoas` on PATH), pto-isa (`PTO_ISA`: its root, the directory holding\n"
          "`include/pto`; required) and clang++ 19 (`CXX`, default `clang++-19` if on PATH, else `clang++`).\n", f);
  else if (!strcmp(be, "pypto"))
    fprintf(f, "```\nPYPTO=/path/to/pypto%s sh run.sh\n```\n\n"
               "Needs python3 (`PYTHON`) that imports PyPTO from `$PYPTO/python` (and torch, which PyPTO imports)%s.\n",
            b->check == 'c' ? " PTOAS=/path/to/ptoas" : "", b->check == 'c' ? ", and ptoas (`PTOAS`, default: `ptoas` on PATH)" : "");
  else
    fputs("```\nPATH=/path/to/ptofuzz/bin:$PATH sh run.sh\n```\n\nNeeds `ptoc`, `ptosim` and `ptofuzz` on PATH (the model "
          "compiler and simulator are the tools under blame here).\n", f);
  fprintf(f, "\nExit status: **1 when the finding reproduces** (%s), 0 when it does not (it says what happened\n"
             "instead), 125 when it cannot check (a tool missing; `git bisect run sh run.sh` skips such commits).\n"
             "Scratch files go to `$WORK` (default `work/`), removed at the start of each run.\n\n",
          kind_words(b));
  if (b->note[0]) fprintf(f, "Not checked by this bundle: %s.\n\n", b->note);
  fputs("The commands run.sh runs (`$W` is the work directory):\n\n", f);
  fflush(b->cm);
  fence(f, b->cmds ? b->cmds : "");
  if (!strcmp(be, "ptoas"))
    fputs("The compile flags are those of every program ptofuzz compiles (oracle/real.c) but `-fignore-exceptions`:\n"
          "here one unit holds both the kernel and the harness, which catches what a kernel throws (exit 3), as\n"
          "ptofuzz's separately compiled harness does. ptofuzz also adds a precompiled header and a serial stand-in\n"
          "for `pto/cpu/parallel.hpp` (the rows of a tile operation on the calling thread instead of pto-isa's\n"
          "threads: the same tiles) and links with lld; this bundle uses none of them: pto-isa's own headers as\n"
          "shipped and the compiler's default linker. The replays above were made this way.\n\n", f);
  fputs("## Files\n\n", f);
  fputs("- `kernel.ptk`: the kernel (reduced when the finding has a reduced text), with the finding's `# flags:` and `# seed:`\n"
        "- `manifest.txt`: per tensor its name, dtype, shape, in/out and bytes\n"
        "- `inputs/NAME.bin`: every tensor before the run (the inputs; the outputs' canary fill), row-major\n"
        "- `expected/NAME.bin`: each output after the golden run (ptofuzz's reference semantics)\n", f);
  if (strcmp(be, "pypto") || b->check == 'c')
    fputs("- `actual/NAME.bin`: each output as the tools gave it when the bundle was written (empty when the\n"
          "  program did not run); copy it over `expected/NAME.bin` and run.sh exits 0\n", f);
  if (!strcmp(be, "ptoas"))
    fputs("- `kernel.pto`: ptoc's PTO-AS of the variant, exactly what the campaign gave ptoas\n"
          "- `kernel.cpp`: the C++ ptoas wrote from it when the bundle was written (absent when ptoas refused it)\n"
          "- `harness.cpp`: a standalone host program of ours that includes the C++ and calls the cube and vector\n"
          "  functions (one thread each, a thread per vector lane) with every tensor, the GM pipe slot buffer and the\n"
          "  FFTS base as ptofuzz's harness does; `PROGRAM 0 IN OUT` reads and writes every tensor's bytes in order\n", f);
  if (!strcmp(be, "pypto"))
    fputs("- `program.py`: the PyPTO program ptoc translates the kernel into (`ptoc --emit=pypto`), runnable alone\n"
          "- `kernel.pto`: the PTO-AS PyPTO wrote for it when the bundle was written\n", f);
  fputs("- `run.sh`, `README.md`\n\n", f);
  fputs("## Tools\n\n", f);
  for (int k = 0; k < b->res->ntools; k++) fprintf(f, "- %s\n", b->res->tools[k]);
  if (!b->res->ntools)
    fprintf(f, "- ptoc, ptosim, ptofuzz: the build on PATH (`ptofuzz --version`); the bundle was written and replayed "
               "by %s\n", nz(b->o->tool));
  if (b->res->first_error) {
    fputs("\n## The tool's first error (when the bundle was written)\n\n", f);
    fence(f, b->res->first_error);
  } else fputc('\n', f);
  fclose(f);
  bool ok = put_text(b, "README.md", text, false);
  free(text);
  return ok;
}

/* ---- the identities of the tools ---------------------------------------------------------- */

int rep_tools(const char *backend, const char *pypto, char (*line)[700], int max) {
  int n = 0;
  if (!strcmp(backend, "pypto") && n < max) {
    PyptoBuild pb[ORC_PYPTO_MAXB];
    char why[300];
    int nb = orc_pypto_builds(pypto, pb, ORC_PYPTO_MAXB, why, sizeof why);
    if (nb > 0) snprintf(line[n++], 700, "PyPTO: commit %s%s%s%s (%s)", pb[0].commit, *pb[0].date ? " (" : "", pb[0].date,
                         *pb[0].date ? ")" : "", pb[0].dir);
    else snprintf(line[n++], 700, "PyPTO: not found (%s)", why);
  }
  if (strcmp(backend, "ptoas") && strcmp(backend, "pypto")) return n;
  RealTools t;
  if (!orc_real_find(&t, NULL, NULL)) {
    if (n < max) snprintf(line[n++], 700, "real toolchain: not found (%s)", t.why);
    return n;
  }
  RealIds id;
  orc_real_ids(&t, &id);
  if (n < max) snprintf(line[n++], 700, "ptoas: %.300s (%.380s)", id.ptoas, id.ptoas_path);
  if (n < max) snprintf(line[n++], 700, "pto-isa: %.300s (%.380s)", id.isa, id.isa_path);
  if (n < max) snprintf(line[n++], 700, "C++ compiler: %.680s", id.cxx);
  return n;
}

/* ---- the command ---------------------------------------------------------------------------- */

/* path does not exist or is an empty directory (then removed, made again below). */
static bool empty_dir(const char *path) {
  struct stat st;
  if (stat(path, &st)) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return false;
  return rmdir(path) == 0;
}

int rep_bundle(Db *d, const DbInfo *f, const RepBundleOpts *o, RepBundle *res) {
  memset(res, 0, sizeof *res);
  Bd b = {.db = d, .f = f, .o = o, .res = res, .kernel = f->reduced ? f->reduced : f->kernel};
  if (!empty_dir(o->dir)) {
    fprintf(stderr, "ptofuzz: report: --bundle %s exists and is not an empty directory\n", o->dir);
    return 1;
  }
  if (!make_dir(o->dir)) {
    return ir_cli_error("ptofuzz report", "--bundle %s: cannot create it: %s", o->dir, strerror(errno));   /* exit 1 */
  }
  b.cm = open_memstream(&b.cmds, &b.ncmds);
  char *sh = NULL;
  size_t shl = 0;
  FILE *s = open_memstream(&sh, &shl);
  fprintf(s, "#!/bin/sh\n# run.sh: ptofuzz finding %lld, %s (generated by ptofuzz report --bundle).\n"
             "# Exit 1: the finding reproduces; 0: it does not; 125: it cannot be checked here (README.md).\n",
          (long long)f->id, nz(f->signature));
  fputs(sh_head, s);
  bool ok;
  const char *be = o->backend;
  res->ntools = rep_tools(be, o->pypto, res->tools, REP_MAX_TOOLS);
  if (!strcmp(be, "ptoas")) {
    b.have_t = orc_real_find(&b.t, NULL, NULL);
    ok = ptoas_bundle(&b, s);
  } else if (!strcmp(be, "pypto")) {
    b.have_t = orc_real_find(&b.t, NULL, NULL);
    PyptoBuild pb[ORC_PYPTO_MAXB];
    char why[300];
    int nb = orc_pypto_builds(o->pypto, pb, ORC_PYPTO_MAXB, why, sizeof why);
    if ((b.have_pb = nb > 0)) b.pb = pb[0];
    ok = pypto_bundle(&b, s);
  } else {
    ok = model_bundle(&b, s);
  }
  /* the kind and pattern go at the top, after the helpers, before the commands */
  fclose(s);
  char *head = NULL;
  size_t hl = 0;
  FILE *h = open_memstream(&head, &hl);
  const char *cut = strstr(sh, sh_head) + strlen(sh_head);
  fprintf(h, "%.*s", (int)(cut - sh), sh);
  sh_assign(h, "KIND", b.kind);
  sh_assign(h, "PAT", b.pat);
  fputs(cut, h);
  fclose(h);
  free(sh);
  char path[PATH_MAX];
  FILE *kf = ok && path_in(&b, "kernel.ptk", path, sizeof path) ? fopen(path, "w") : NULL;
  if (ok && (!kf || db_cmd_export(d, f->id, kf) != 0)) ok = false;
  if (kf && fclose(kf)) ok = false;
  ok = ok && put_text(&b, "run.sh", head, true);
  free(head);
  if (ok) {
    int n = o->replays > 0 ? o->replays : strcmp(be, "ptoas") ? 3 : 2;
    for (int k = 0; k < n; k++) {
      char *log = NULL;
      int rc = replay(&b, &log);
      res->replays++;
      res->reproduced += rc == 1;
      if (!k) {
        collect(&b);
        res->first_error = first_error(log);
        snprintf(res->first_status, sizeof res->first_status, "%d", rc);
        char *e = log ? strstr(log, rc == 1 ? "REPRODUCES: " : "does not reproduce: ") : NULL;
        if (!e && log) e = strstr(log, "run.sh: cannot check: ");
        if (e) snprintf(res->outcome, sizeof res->outcome, "%.*s", (int)strcspn(e, "\n"), e);
      }
      free(log);
      if (path_in(&b, "work", path, sizeof path)) orc_rm_rf(path);
    }
    ok = write_readme(&b);
  }
  if (!ok && !res->replays) fprintf(stderr, "ptofuzz: report: the bundle in %s is incomplete\n", o->dir);
  fclose(b.cm);
  free(b.cmds);
  orc_real_prepare_free(&b.prep);
  return ok ? 0 : 2;
}

void rep_bundle_free(RepBundle *b) {
  free(b->first_error);
  b->first_error = NULL;
}
