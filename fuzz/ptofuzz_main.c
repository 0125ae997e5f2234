/* ptofuzz_main.c — the ptofuzz command. `diff FILE [--bugs=LIST]`: the
 * oracle's verdict for one kernel, one line per variant and schedule, then
 * `verdict=clean|finding`; exit 0 clean, 3 finding, 1 kernel or usage error.
 * The check runs in a child process so a crash becomes an outcome. */
#include "orc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(void) {
  fputs("usage: ptofuzz diff FILE [--bugs=LIST] [--seed=N]\n", stderr);
  return 1;
}

typedef struct {
  int fd;                                       /* progress to the parent */
  uint64_t sched_seed;
} DiffCtx;

static void sched_name(const DiffCtx *d, int sched, char *buf, size_t n) {
  if (sched) snprintf(buf, n, "random:%llu", (unsigned long long)d->sched_seed);
  else snprintf(buf, n, "rr");
}

static void progress(void *ctx, int v, int sched) {
  DiffCtx *d = ctx;
  unsigned char b[2] = {(unsigned char)v, (unsigned char)sched};
  if (write(d->fd, b, 2) != 2) _exit(2);
}

static void report(void *ctx, const VarResult *r) {
  char sn[32];
  sched_name(ctx, r->sched, sn, sizeof sn);
  printf("variant=%s schedule=%s outcome=%s code=%s", orc_variants[r->variant], sn, orc_outcome_name(r->out), r->code);
  if (r->out != OUT_OK && r->out != OUT_UNSUPPORTED)
    printf(" op=%s pass=%s pattern=%s", r->op, r->pass, r->pattern);
  putchar('\n');
  if (r->out != OUT_OK) printf("  # %s\n", r->detail);
  fflush(stdout);
}

static int diff(int argc, char **argv) {
  const char *file = NULL;
  OrcOpts o = {.bisect = true, .sched_seed = 1};
  for (int i = 0; i < argc; i++) {
    if (!strncmp(argv[i], "--seed=", 7)) o.input_seed = strtoull(argv[i] + 7, NULL, 10);
    else if (!strncmp(argv[i], "--bugs=", 7) && !argv[i][7]) {
    } else if (argv[i][0] == '-' || file) return usage();
    else file = argv[i];
  }
  if (!file) return usage();
  Arena *A = ir_arena_new();
  Src src;
  if (!ir_read_file(A, file, &src)) {
    fprintf(stderr, "%s:0:0: error[E-IO]: cannot read the file [user]\n", file);
    ir_arena_free(A);
    return 1;
  }
  int fds[2];
  if (pipe(fds)) die("pipe failed");
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    close(fds[0]);
    DiffCtx d = {fds[1], o.sched_seed};
    o.progress = progress;
    o.report = report;
    o.ctx = &d;
    OrcResult res;
    orc_check(&src, &o, &res);
    if (res.invalid) {
      fputs("invalid: ", stdout);
      fflush(stdout);
      ir_diag_print(stdout, &src, &res.why);
      _exit(1);
    }
    printf("verdict=%s\n", res.finding ? "finding" : "clean");
    fflush(stdout);
    _exit(res.finding ? 3 : 0);
  }
  close(fds[1]);
  unsigned char cur[2] = {0, 0}, b[2];
  while (read(fds[0], b, 2) == 2) memcpy(cur, b, 2);
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  ir_arena_free(A);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  DiffCtx d = {-1, o.sched_seed};
  char sn[32];
  sched_name(&d, cur[1], sn, sizeof sn);
  printf("variant=%s schedule=%s outcome=crash code=%s\n", orc_variants[cur[0] % ORC_NVARIANT], sn,
         WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "exit");
  printf("verdict=finding\n");
  return 3;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  if (!strcmp(argv[1], "diff")) return diff(argc - 2, argv + 2);
  fprintf(stderr, "ptofuzz: unknown command '%s'\n", argv[1]);
  return usage();
}
