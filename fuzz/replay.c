/* replay.c — one kernel's verdict as a set of signatures. Consumes a kernel's
 * text, the defects switched on and the oracle's seeds; produces an FzVerdict:
 * invalid or not, and the distinct signatures (orc_signature) of its findings,
 * in the order the oracle reports them. fz_verdict runs the oracle in this
 * process (the bench's trial workers, already forked, use it); fz_replay runs
 * it in a forked child with a watchdog, so a crash of the compiler or the
 * simulator becomes a `crash|MODE|SIGNAL|-|-|-` signature and a kernel that
 * runs past the watchdog a `hang|MODE|watchdog|-|-|-` one (the signatures
 * `ptofuzz run` records for a dead or hung worker; MODE is the variant in
 * flight). Used by pto-check, `ptofuzz bench defects` and `reduce`; also the
 * clock and the reaping of hung workers that campaigns and the bench share. */
#include "fz.h"
#include "orc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


void fz_verdict_add(FzVerdict *v, const char *sig) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->sig[i], sig)) return;
  if (v->n < FZ_MAXSIG) snprintf(v->sig[v->n++], sizeof v->sig[0], "%s", sig);
  v->finding = true;
}

bool fz_verdict_has(const FzVerdict *v, const char *sig) {
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->sig[i], sig)) return true;
  return false;
}

void fz_verdict_lost(FzVerdict *v, int variant, bool hung, int status) {
  char sig[FZ_SIGLEN];
  const char *code = hung ? "watchdog" : WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit";
  snprintf(sig, sizeof sig, "%s|%s|%s|-|-|-", hung ? "hang" : "crash", orc_variant_mode(variant), code);
  fz_verdict_add(v, sig);
}

void fz_verdict(const FzReplay *r, FzVerdict *v) {
  memset(v, 0, sizeof *v);
  OrcOpts oo = {.bugs = r->bugs, .input_seed = r->input_seed, .sched_seed = r->sched_seed, .bisect = true,
                .random_every = r->random_every,
                .progress = r->progress, .ctx = r->ctx};
  OrcResult res;
  orc_check(&(Src){r->name ? r->name : "kernel", r->text, r->len}, &oo, &res);
  if (res.invalid) {
    v->invalid = true;
    snprintf(v->why, sizeof v->why, "%s at %d:%d: %s", ir_diag_name(res.why.code), res.why.loc.line, res.why.loc.col,
             res.why.msg);
    return;
  }
  for (int i = 0; i < res.n; i++) {
    if (!orc_is_finding(res.r[i].out)) continue;
    char sig[FZ_SIGLEN];
    orc_signature(&res.r[i], sig, sizeof sig);
    fz_verdict_add(v, sig);
  }
}

/* Shared between fz_replay and its child. */
typedef struct {
  volatile int variant, sched;
  volatile int done;
  FzVerdict v;
} Box;

static void note(void *ctx, int variant, int sched) {
  Box *s = ctx;
  s->variant = variant;
  s->sched = sched;
}

double fz_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool fz_reap(pid_t pid, bool busy, double started, int *st, bool *hung) {
  pid_t r = waitpid(pid, st, WNOHANG);
  *hung = !r && busy && fz_now() - started > FZ_HANG_SECONDS;
  if (*hung) {
    kill(pid, SIGKILL);
    waitpid(pid, st, 0);
    return true;
  }
  return r == pid;
}

void fz_replay(const FzReplay *r, double timeout_s, FzVerdict *v) {
  Box *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) die("mmap: %s", strerror(errno));
  memset(s, 0, sizeof *s);
  int fds[2];
  if (pipe(fds)) die("pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  if (!pid) {                                   /* the child: the oracle, then exit */
    close(fds[0]);
    signal(SIGPIPE, SIG_DFL);
    int null = r->quiet ? open("/dev/null", O_WRONLY) : -1;   /* a candidate's crash message is noise */
    if (null >= 0) dup2(null, 1), dup2(null, 2), close(null);
    FzReplay local = *r;
    local.progress = note;
    local.ctx = s;
    fz_verdict(&local, &s->v);
    s->done = 1;
    _exit(0);
  }
  close(fds[1]);
  /* The write end closes when the child ends: poll for that, up to the watchdog. */
  double deadline = fz_now() + (timeout_s > 0 ? timeout_s : 1e9);
  bool hung = false;
  for (;;) {
    double left = deadline - fz_now();
    if (left <= 0) {
      hung = true;
      break;
    }
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    int n = poll(&p, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) break;
  }
  close(fds[0]);
  int st = 0;
  if (hung) kill(pid, SIGKILL);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!hung && WIFEXITED(st) && !WEXITSTATUS(st) && s->done) {
    *v = s->v;
  } else {
    memset(v, 0, sizeof *v);
    if (s->done) *v = s->v;                     /* died after its verdict: keep what it found */
    fz_verdict_lost(v, s->variant, hung, st);
  }
  munmap(s, sizeof *s);
}
