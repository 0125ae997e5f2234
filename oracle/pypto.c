/* pypto.c — the real PyPTO as a back end (DESIGN section 16). Consumes kernels
 * (text, input seed); produces, per variant pypto:MODE@a3|a5, the outcomes of
 * three checks of ptoc's translation of the kernel (emit_pypto.c) compiled by
 * PyPTO itself:
 *   (a) PyPTO parses and compiles the program: an exception is a finding (crash
 *       or reject, the pass it came from) unless ptoc refuses the variant too;
 *   (b) every pass dump parses back, and on f32 kernels each dump run on torch
 *       (PyPTO's torch_codegen) breaks no element the dump before it had right,
 *       the frontend dump being judged against the golden run: the first pass
 *       that does is the first bad PyPTO pass;
 *   (c) the PTO-AS PyPTO wrote goes through ptoas and pto-isa's CPU simulation
 *       (real.c, with PyPTO's kernel interface) to the golden run's outputs.
 * PyPTO runs in one long-lived python3 per driver (oracle/pypto.py, embedded in
 * the binary), fed programs through a pipe so its import is paid once, each
 * request under a time limit; a driver that dies or hangs is killed and
 * restarted, and the pass it was in is read off the dumps it wrote. */
#include "orc.h"
#include "pypto_driver.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
  HELLO_LIMIT_S = 120,                          /* importing PyPTO and torch */
  MAXPASS = 96,                                 /* pass dumps of one compile */
  MAXTASK = 8,                                  /* kernel launches of one program */
  MAXARG = 260,                                 /* arguments of one launch */
  LINE_MAX_LEN = 4096,
};

/* torch (b) and the real run (c) compare floats within TOL x the largest golden
 * magnitude of the tensor when the kernel has an op whose order of operations
 * or implementation torch or PyPTO's tiling may change (matmul, sums, exp);
 * otherwise bit for bit (docs/pypto.md). */
static const double TOL = 1.0 / 4096;

static const struct {
  int split, target;                            /* target -1: the kernel's own */
  const char *mode;
} pv[ORC_NPYPTO] = {{MODE_NONE, TGT_A2A3, "none"}, {MODE_NONE, TGT_A5, "none"}, {MODE_UD, -1, "up_down"},
                    {MODE_LR, -1, "left_right"}};

static double ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((format(printf, 3, 4))) static bool fmt(char *dst, size_t n, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int k = vsnprintf(dst, n, f, ap);
  va_end(ap);
  return k >= 0 && (size_t)k < n;
}

static void set(char *dst, size_t n, const char *s) { snprintf(dst, n, "%s", s && *s ? s : "-"); }

int orc_pypto_variant(const char *name) {
  if (!name || strncmp(name, "pypto:", 6)) return -1;
  const char *m = name + 6, *at = strchr(m, '@');
  if (!at || (strcmp(at, "@a3") && strcmp(at, "@a5"))) return -1;
  size_t n = (size_t)(at - m);
  if (n == 4 && !strncmp(m, "none", 4)) return strcmp(at, "@a5") ? 0 : 1;
  for (int v = 2; v < ORC_NPYPTO; v++)
    if (strlen(pv[v].mode) == n && !strncmp(m, pv[v].mode, n)) return v;
  return -1;
}

/* ---- finding a build ------------------------------------------------------------------- */

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *slurp(const char *path, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = malloc(max + 1);
  size_t n = b ? fread(b, 1, max, f) : 0;
  fclose(f);
  if (b) b[n] = 0;
  return b;
}

/* The first line of a small file, trimmed, into out. */
static bool first_line(const char *path, char *out, size_t n) {
  char *t = slurp(path, 512);
  if (!t) return false;
  t[strcspn(t, "\r\n")] = 0;
  bool ok = *t && fmt(out, n, "%s", t);
  free(t);
  return ok;
}

/* The commit of a git checkout at dir (HEAD, a branch ref or packed-refs), or false. */
static bool git_head(const char *dir, char *out, size_t n) {
  char p[PATH_MAX], head[256];
  if (!fmt(p, sizeof p, "%s/.git/HEAD", dir) || !first_line(p, head, sizeof head)) return false;
  if (strncmp(head, "ref: ", 5)) return fmt(out, n, "%.40s", head);
  if (fmt(p, sizeof p, "%s/.git/%s", dir, head + 5) && first_line(p, out, n)) return true;
  char *packed = fmt(p, sizeof p, "%s/.git/packed-refs", dir) ? slurp(p, 1 << 20) : NULL;
  bool ok = false;
  for (char *l = packed ? strtok(packed, "\n") : NULL; l && !ok; l = strtok(NULL, "\n")) {
    char *sp = strchr(l, ' ');
    if (sp && !strcmp(sp + 1, head + 5)) ok = fmt(out, n, "%.*s", (int)(sp - l), l);
  }
  free(packed);
  return ok;
}

/* A build is paired with ptoas v0.42 (check (c) applies) when its commit is no
 * newer than the newest one this project has seen v0.42 accept (6b426ae45,
 * 2026-06-29; b25b25a4a was the last whose CI pinned v0.42). A newer build emits
 * syntax v0.42 refuses (e2d0f78ae: `slot_num`), which is a version gap, not a
 * finding; a build of unknown date is assumed paired (docs/pypto.md). */
static const char PAIR_LAST[] = "2026-06-29";

static bool find_one(const char *given, PyptoBuild *b) {
  memset(b, 0, sizeof *b);
  char root[PATH_MAX], init[PATH_MAX];
  if (given && *given) {
    if (!realpath(given, root)) return fmt(b->why, sizeof b->why, "PyPTO %s: %s", given, strerror(errno)), false;
  } else if (orc_shared_file("pypto/b25b25a4a/python/pypto/__init__.py", init, sizeof init)) {
    char *cut = strstr(init, "/python/pypto/__init__.py");
    *cut = 0;
    snprintf(root, sizeof root, "%s", init);
  } else {
    return fmt(b->why, sizeof b->why, "no PyPTO: give --pypto=DIR or PYPTO=DIR (a folder holding python/pypto), "
               "or put ../shared/third_party/pypto/b25b25a4a beside the project"), false;
  }
  if (!fmt(init, sizeof init, "%s/python/pypto/__init__.py", root) || !is_file(init))
    return fmt(b->why, sizeof b->why, "%s holds no python/pypto/__init__.py: not a PyPTO build", root), false;
  fmt(b->dir, sizeof b->dir, "%s", root);
  unsigned caps = 0;
  ir_pypto_caps(root, &caps);
  b->caps = caps;
  /* the commit: DIR/COMMIT ("HASH DATE ...", as third_party stages them), else git */
  char line[256], p[PATH_MAX];
  snprintf(b->commit, sizeof b->commit, "unknown");
  if (fmt(p, sizeof p, "%s/COMMIT", root) && first_line(p, line, sizeof line)) {
    char h[48] = "", d[16] = "";
    if (sscanf(line, "%47s %15s", h, d) >= 1) snprintf(b->commit, sizeof b->commit, "%s", h);
    if (strlen(d) == 10 && d[4] == '-' && d[7] == '-') snprintf(b->date, sizeof b->date, "%s", d);
  } else {
    git_head(root, b->commit, sizeof b->commit);
  }
  b->ptoas = !*b->date || strcmp(b->date, PAIR_LAST) <= 0;
  const char *py = getenv("PYTHON");
  snprintf(b->python, sizeof b->python, "%s", py && *py ? py : access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3");
  return true;
}

int orc_pypto_builds(const char *list, PyptoBuild *b, int max, char *why, size_t n) {
  const char *env = getenv("PYPTO");
  if (!list || !*list) list = env && *env ? env : "";
  int k = 0;
  if (!*list) {
    if (!find_one(NULL, &b[0])) return fmt(why, n, "%s", b[0].why), -1;
    return 1;
  }
  for (const char *p = list; *p && k <= max;) {
    size_t len = strcspn(p, ",");
    if (len) {
      if (k == max) return fmt(why, n, "more than %d PyPTO builds named", max), -1;
      char dir[PATH_MAX];
      if (!fmt(dir, sizeof dir, "%.*s", (int)len, p)) return fmt(why, n, "a PyPTO path is too long"), -1;
      if (!find_one(dir, &b[k])) return fmt(why, n, "%s", b[k].why), -1;
      k++;
    }
    p += len + (p[len] == ',');
  }
  if (!k) return fmt(why, n, "no PyPTO build named"), -1;
  return k;
}

static bool write_all(const char *path, const void *p, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(fd);
      return false;
    }
    c += w, n -= (size_t)w;
  }
  return close(fd) == 0;
}

/* ---- the driver process ------------------------------------------------------------------ */

struct PyDrv {
  PyptoBuild b;
  double timeout_s;
  pid_t pid;                                    /* 0: not running */
  int to, from;                                 /* requests (its stdin), replies (its fd 3) */
  char work[PATH_MAX];
  char hello[200];
  char last[PATH_MAX];                          /* the last request's directory (kept until the next but one) */
  char *buf;                                    /* reply bytes not yet consumed */
  size_t n, cap;
  int req, starts;
};

static void drv_kill(PyDrv *d) {
  if (d->pid > 0) {
    kill(-d->pid, SIGKILL);
    kill(d->pid, SIGKILL);
    while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR) {}
  }
  if (d->to >= 0) close(d->to);
  if (d->from >= 0) close(d->from);
  d->pid = 0, d->to = d->from = -1, d->n = 0;
}

/* One reply line (without its newline) into line, waiting until deadline (ms);
 * 1 a line, 0 end of file, -1 timed out. */
static int drv_line(PyDrv *d, char *line, size_t ln, double deadline) {
  for (;;) {
    char *nl = d->n ? memchr(d->buf, '\n', d->n) : NULL;
    if (nl) {
      size_t k = (size_t)(nl - d->buf);
      snprintf(line, ln, "%.*s", (int)(k < ln ? k : ln - 1), d->buf);
      memmove(d->buf, nl + 1, d->n - k - 1);
      d->n -= k + 1;
      return 1;
    }
    double left = deadline - ms();
    if (left <= 0 || orc_stop_pending()) return -1;   /* stopping: as if it hung, so it is killed */
    struct pollfd pf = {d->from, POLLIN, 0};
    int r = poll(&pf, 1, left > 100 ? 100 : (int)left + 1);
    if (r < 0 && errno != EINTR) return 0;
    if (r <= 0) continue;
    if (d->cap - d->n < LINE_MAX_LEN) {
      size_t cap = d->cap ? 2 * d->cap : 1 << 16;
      char *b = realloc(d->buf, cap);
      if (!b) die("out of memory");
      d->buf = b, d->cap = cap;
    }
    ssize_t got = read(d->from, d->buf + d->n, d->cap - d->n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (d->n) {                               /* a last line without its newline */
        snprintf(line, ln, "%.*s", (int)(d->n < ln ? d->n : ln - 1), d->buf);
        d->n = 0;
        return 1;
      }
      return 0;
    }
    d->n += (size_t)got;
  }
}

/* The environment of the driver: ours, with PyPTO on the path, bytecode and user
 * site-packages off, one thread for torch's and OpenMP's pools. */
static char **drv_env(const PyptoBuild *b, char *pythonpath, size_t pn) {
  size_t n = 0;
  while (environ[n]) n++;
  char **e = calloc(n + 8, sizeof *e);
  if (!e) return NULL;
  size_t k = 0;
  static const char *const drop[] = {"PYTHONPATH=", "PYTHONDONTWRITEBYTECODE=", "PYTHONNOUSERSITE=", "OMP_NUM_THREADS=",
                                     "MKL_NUM_THREADS=", "PYTHONHASHSEED=", NULL};
  for (size_t i = 0; i < n; i++) {
    bool skip = false;
    for (int j = 0; drop[j]; j++) skip |= !strncmp(environ[i], drop[j], strlen(drop[j]));
    if (!skip) e[k++] = environ[i];
  }
  fmt(pythonpath, pn, "PYTHONPATH=%s/python", b->dir);
  e[k++] = pythonpath;
  e[k++] = "PYTHONDONTWRITEBYTECODE=1";
  e[k++] = "PYTHONNOUSERSITE=1";
  e[k++] = "OMP_NUM_THREADS=1";
  e[k++] = "MKL_NUM_THREADS=1";
  e[k++] = "PYTHONHASHSEED=0";
  e[k] = NULL;
  return e;
}

/* Starts python3 with the driver and waits for its hello; false with why set. */
static bool drv_start(PyDrv *d, char *why, size_t wn) {
  if (orc_stop_pending()) return fmt(why, wn, "stopped by a signal"), false;
  int req[2], rep[2];
  if (pipe(req)) return fmt(why, wn, "pipe: %s", strerror(errno)), false;
  if (pipe(rep)) {
    close(req[0]), close(req[1]);
    return fmt(why, wn, "pipe: %s", strerror(errno)), false;
  }
  char logp[PATH_MAX], pp[PATH_MAX + 16], script[PATH_MAX];
  fmt(logp, sizeof logp, "%s/driver.log", d->work);
  /* the driver as a file of the work directory: `ps` shows its path, not its text */
  bool wrote = fmt(script, sizeof script, "%s/pypto_driver.py", d->work) &&
               write_all(script, pypto_driver_py, sizeof pypto_driver_py - 1);
  char **env = drv_env(&d->b, pp, sizeof pp);
  int logfd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (!env || logfd < 0 || !wrote) {
    free(env);
    if (logfd >= 0) close(logfd);
    close(req[0]), close(req[1]), close(rep[0]), close(rep[1]);
    return fmt(why, wn, "cannot set up the driver in %s: %s", d->work, strerror(errno)), false;
  }
  const char *argv[] = {d->b.python, "-u", script, NULL};
  pid_t pid = fork();
  if (pid == 0) {
    /* only async-signal-safe calls here */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int in = req[0] >= 5 ? req[0] : fcntl(req[0], F_DUPFD, 5), out = rep[1] >= 5 ? rep[1] : fcntl(rep[1], F_DUPFD, 5);
    int lg = logfd >= 5 ? logfd : fcntl(logfd, F_DUPFD, 5);
    if (in < 0 || out < 0 || lg < 0 || dup2(in, 0) < 0 || dup2(lg, 1) < 0 || dup2(lg, 2) < 0 || dup2(out, 3) < 0) _exit(126);
    if (chdir(d->work) != 0) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    execve(d->b.python, (char *const *)argv, env);
    execvpe(d->b.python, (char *const *)argv, env);
    _exit(127);
  }
  free(env);
  close(logfd);
  close(req[0]);
  close(rep[1]);
  if (pid < 0) {
    close(req[1]), close(rep[0]);
    return fmt(why, wn, "fork: %s", strerror(errno)), false;
  }
  fcntl(req[1], F_SETFD, FD_CLOEXEC);
  fcntl(rep[0], F_SETFD, FD_CLOEXEC);
  d->pid = pid, d->to = req[1], d->from = rep[0], d->n = 0;
  d->starts++;
  char line[LINE_MAX_LEN];
  int r = drv_line(d, line, sizeof line, ms() + HELLO_LIMIT_S * 1e3);
  if (r == 1 && !strncmp(line, "hello\t", 6)) {
    char v[3][64] = {"", "", ""};
    sscanf(line + 6, "%63[^\t]\t%63[^\t]\t%63s", v[0], v[1], v[2]);
    fmt(d->hello, sizeof d->hello, "pypto %s torch %s python %s", v[0], v[1], v[2]);
    return true;
  }
  if (r == 1 && !strncmp(line, "fatal\t", 6)) {
    char *t = strchr(line + 6, '\t');
    if (t) *t = ' ';
    fmt(why, wn, "%s cannot import PyPTO %s or torch: %s (%s)", d->b.python, d->b.dir, line + 6,
        strstr(line, "torch") ? "install python3-torch: scripts/deps.sh pypto" : "is it built for this python?");
  } else {
    char *log = slurp(logp, 2000);
    char *last = log;
    for (char *p = log; p && *p; p++)
      if (*p == '\n' && p[1]) last = p + 1;
    if (last) last[strcspn(last, "\n")] = 0;
    fmt(why, wn, "%s with the PyPTO driver %s: %s", d->b.python,
        r < 0 ? "gave no answer in time" : "exited before its first answer", last && *last ? last : "no output");
    free(log);
  }
  drv_kill(d);
  return false;
}

PyDrv *orc_pypto_open(const PyptoBuild *b, double timeout_s, char *why, size_t n) {
  PyDrv *d = calloc(1, sizeof *d);
  if (!d) die("out of memory");
  d->b = *b;
  d->timeout_s = timeout_s > 0 ? timeout_s : 30;
  d->to = d->from = -1;
  const char *tmp = getenv("TMPDIR");
  if (!fmt(d->work, sizeof d->work, "%s/ptofuzz-pypto-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp") || !mkdtemp(d->work)) {
    fmt(why, n, "cannot make a work directory: %s", strerror(errno));
    free(d);
    return NULL;
  }
  if (!drv_start(d, why, n)) {
    orc_rm_rf(d->work);
    free(d->buf);
    free(d);
    return NULL;
  }
  return d;
}

void orc_pypto_close(PyDrv *d) {
  if (!d) return;
  drv_kill(d);
  orc_rm_rf(d->work);
  free(d->buf);
  free(d);
}

const char *orc_pypto_hello(const PyDrv *d) { return d ? d->hello : ""; }
const PyptoBuild *orc_pypto_build(const PyDrv *d) { return &d->b; }
const char *orc_pypto_last_dir(const PyDrv *d) { return d->last; }

/* ---- one request ----------------------------------------------------------------------------- */

typedef struct {
  char pass[48];
  bool parsed;
  char cls[48], msg[300];                       /* why it did not parse back */
  int torch;                                    /* 0 not run, 1 ran (t/NN.bin), 2 same as dump `same`, 3 error */
  int nn, same;
  char tcls[48], tmsg[300];
} Dump;

typedef struct {
  char group[64], lanes[48];
  int nargs;
  int arg[MAXARG];                              /* tensor index, or -1 - bytes of a buffer (the GM pipe buffer) */
} Task;

typedef struct {
  bool toolerr;                                 /* the driver could not be run */
  bool raised, died, hung;
  bool in_dumps, in_torch;                      /* died or hung in check (b): parsing back a dump, running one on torch */
  char where[48];                               /* the pass (or parse, codegen) that raised or was running */
  char cls[64], msg[400];
  char names[MAXPASS][48];                      /* the pipeline's passes, in order */
  int nnames;
  Dump *dump;
  int nd;
  char **pto;                                   /* the PTO-AS files (paths) */
  int npto;
  Task task[MAXTASK];
  int ntask;
  bool bad_task;                                /* a launch argument the harness cannot give */
  double t_total, t_torch;
} Reply;

static void reply_free(Reply *r) {
  free(r->dump);
  for (int i = 0; i < r->npto; i++) free(r->pto[i]);
  free(r->pto);
}

/* Splits a tab-separated line in place; returns the field count (at most max). */
static int fields(char *line, char **f, int max) {
  int n = 0;
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *t = strchr(p, '\t');
    if (!t) break;
    *t = 0;
    p = t + 1;
  }
  return n;
}

/* How many pass dumps the request wrote: the pass after the last one was running. */
static int dumps_written(const char *dir) {
  char p[PATH_MAX];
  if (!fmt(p, sizeof p, "%s/out/passes_dump", dir)) return 0;
  DIR *d = opendir(p);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (isdigit((unsigned char)e->d_name[0]) && isdigit((unsigned char)e->d_name[1]) && strstr(e->d_name, "_after_") &&
        strstr(e->d_name, ".py"))
      n++;
  closedir(d);
  return n;
}

static void push_dump(Reply *r, const char *nn, const char *pass) {
  Dump *v = realloc(r->dump, sizeof *v * (size_t)(r->nd + 1));
  if (!v) die("out of memory");
  r->dump = v;
  Dump *x = &r->dump[r->nd++];
  memset(x, 0, sizeof *x);
  x->nn = atoi(nn);
  set(x->pass, sizeof x->pass, pass);
}

static void parse_task(Reply *r, char **f, int nf) {
  if (r->ntask == MAXTASK) {
    r->bad_task = true;
    return;
  }
  Task *t = &r->task[r->ntask++];
  set(t->group, sizeof t->group, f[1]);
  set(t->lanes, sizeof t->lanes, nf > 2 ? f[2] : "-");
  for (int i = 3; i < nf; i++) {
    if (t->nargs == MAXARG) {
      r->bad_task = true;
      break;
    }
    if (!strncmp(f[i], "ext:", 4)) t->arg[t->nargs++] = atoi(f[i] + 4);
    else if (!strncmp(f[i], "buf:", 4) && atol(f[i] + 4) > 0) t->arg[t->nargs++] = -1 - atoi(f[i] + 4);
    else r->bad_task = true;
  }
}

/* Sends one request and reads its replies (dir: the request's directory). */
static void request(PyDrv *d, const char *dir, const char *backend, bool torch, Reply *r) {
  memset(r, 0, sizeof *r);
  char why[300];
  if (!d->pid && !drv_start(d, why, sizeof why)) {
    r->toolerr = true;
    fmt(r->msg, sizeof r->msg, "%s", why);
    return;
  }
  char line[LINE_MAX_LEN];
  int k = snprintf(line, sizeof line, "check\t%s\t%s\t%d\n", dir, backend, torch);
  signal(SIGPIPE, SIG_IGN);
  if (k <= 0 || (size_t)k >= sizeof line || write(d->to, line, (size_t)k) != k) {
    drv_kill(d);                                /* died between requests: once more, fresh */
    if (!drv_start(d, why, sizeof why) || write(d->to, line, (size_t)k) != k) {
      r->toolerr = true;
      fmt(r->msg, sizeof r->msg, "the PyPTO driver does not take requests: %s", why);
      drv_kill(d);
      return;
    }
  }
  double t0 = ms(), deadline = t0 + d->timeout_s * 1e3;
  char stage[16] = "parse", at[48] = "frontend";   /* what the driver is doing: stage, and the dump's pass */
  for (;;) {
    int got = drv_line(d, line, sizeof line, deadline);
    if (got <= 0) {
      /* died (0) or hung (-1): which pass it was in, from the dumps it wrote */
      int st = 0;
      if (got < 0) r->hung = true;
      else {
        kill(-d->pid, SIGKILL);
        while (waitpid(d->pid, &st, 0) < 0 && errno == EINTR) {}
        d->pid = 0;
        r->died = true;
        if (WIFSIGNALED(st)) fmt(r->cls, sizeof r->cls, "signal-%s", sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
        else fmt(r->cls, sizeof r->cls, "exit-%d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      }
      if (!strcmp(stage, "compile")) {
        int nw = dumps_written(dir);
        set(r->where, sizeof r->where, nw < 0 ? "setup" : nw < r->nnames ? r->names[nw] : "codegen");
      } else if (!strcmp(stage, "dump") || !strcmp(stage, "torch")) {
        set(r->where, sizeof r->where, at);
        r->in_dumps = true;
        r->in_torch = !strcmp(stage, "torch");
      } else {
        set(r->where, sizeof r->where, stage);
      }
      fmt(r->msg, sizeof r->msg, "%s %s %s", r->hung ? "no answer within the time limit" : "the interpreter died",
          !strcmp(stage, "compile") ? "in pass" : !strcmp(stage, "dump") ? "parsing back the IR after"
          : !strcmp(stage, "torch") ? "running on torch (torch_codegen) the IR after" : "in PyPTO's", r->where);
      drv_kill(d);
      break;
    }
    char *f[MAXARG + 4];
    int nf = fields(line, f, MAXARG + 4);
    if (!strcmp(f[0], "stage") && nf >= 2) {
      set(stage, sizeof stage, f[1]);
      if (nf >= 4) set(at, sizeof at, f[3]);
      if (!strcmp(f[1], "compile"))
        for (int i = 2; i < nf && r->nnames < MAXPASS; i++) set(r->names[r->nnames++], sizeof r->names[0], f[i]);
    } else if (!strcmp(f[0], "raise") && nf >= 4) {
      r->raised = true;
      set(r->where, sizeof r->where, f[1]);
      set(r->cls, sizeof r->cls, f[2]);
      snprintf(r->msg, sizeof r->msg, "%s", f[3]);
    } else if (!strcmp(f[0], "dump") && nf >= 4) {
      push_dump(r, f[1], f[2]);
      Dump *x = &r->dump[r->nd - 1];
      x->parsed = !strcmp(f[3], "ok");
      if (!x->parsed && nf >= 6) set(x->cls, sizeof x->cls, f[4]), snprintf(x->msg, sizeof x->msg, "%s", f[5]);
    } else if (!strcmp(f[0], "torch") && nf >= 4 && r->nd && r->dump[r->nd - 1].nn == atoi(f[1])) {
      Dump *x = &r->dump[r->nd - 1];
      x->torch = !strcmp(f[3], "ok") ? 1 : !strcmp(f[3], "same") ? 2 : 3;
      if (x->torch == 2 && nf >= 5) x->same = atoi(f[4]);
      if (x->torch == 3 && nf >= 6) set(x->tcls, sizeof x->tcls, f[4]), snprintf(x->tmsg, sizeof x->tmsg, "%s", f[5]);
    } else if (!strcmp(f[0], "pto") && nf >= 2) {
      char **v = realloc(r->pto, sizeof *v * (size_t)(r->npto + 1));
      if (!v || !(v[r->npto] = strdup(f[1]))) die("out of memory");
      r->pto = v;
      r->npto++;
    } else if (!strcmp(f[0], "task") && nf >= 2) {
      parse_task(r, f, nf);
    } else if (!strcmp(f[0], "done")) {
      r->t_total = nf >= 2 ? atof(f[1]) : ms() - t0;
      for (int i = 2; i < nf; i++)
        if (!strncmp(f[i], "torch=", 6)) r->t_torch = atof(f[i] + 6);
      break;
    }
  }
  if (!r->t_total) r->t_total = ms() - t0;
}

/* ---- a case's variants ------------------------------------------------------------------------ */

typedef struct {
  PyCase *c;
  Comp comp;                                    /* the front end, golden run and inputs */
  Kernel *k;
  Sim *g, *g0;
  bool torch;                                   /* check (b) runs the dumps on torch */
  double tol;
} Case;

typedef struct {
  int ci, ri;                                   /* the case and its result for check (c) */
  int *perm;                                    /* job argument i is kernel tensor perm[i] */
  unsigned char **outs;
} JobRef;

static void init_var(VarResult *x, int v, Target own, char check) {
  memset(x, 0, sizeof *x);
  x->variant = v;
  x->backend = 2;
  x->check = check;
  x->mode = pv[v].split;
  int tgt = pv[v].target >= 0 ? pv[v].target : (int)own;
  snprintf(x->vname, sizeof x->vname, "pypto:%s@%s", pv[v].mode, tgt == TGT_A5 ? "a5" : "a3");
  set(x->code, sizeof x->code, "-");
  set(x->op, sizeof x->op, "-");
  set(x->pattern, sizeof x->pattern, "-");
  set(x->pass, sizeof x->pass, "-");
}

static const char *dtname(Dtype d) { return ir_dtype_name(d); }


/* The request's files: the program, the tensors' names, dtypes and shapes, and their bytes. */
static bool write_request(const Case *cs, const char *dir, const char *prog) {
  char p[PATH_MAX];
  mkdir(dir, 0755);
  if (!fmt(p, sizeof p, "%s/prog.py", dir) || !write_all(p, prog, strlen(prog))) return false;
  char *man = NULL, *in = NULL;
  size_t mn = 0, inn = 0;
  FILE *m = open_memstream(&man, &mn), *b = open_memstream(&in, &inn);
  for (int i = 0; i < cs->k->np; i++) {
    const Var *T = cs->k->params[i];
    Gm *gm = sim_gm(cs->g0, T);
    if (T->rank == 1) fprintf(m, "%s %s %d\n", T->name, dtname(T->dt), gm->rows * gm->cols);
    else fprintf(m, "%s %s %d %d\n", T->name, dtname(T->dt), gm->rows, gm->cols);
    fwrite(gm->bytes, 1, (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(T->dt), b);
  }
  fclose(m), fclose(b);
  bool ok = fmt(p, sizeof p, "%s/tensors.txt", dir) && write_all(p, man, mn) && fmt(p, sizeof p, "%s/in.bin", dir) &&
            write_all(p, in, inn);
  free(man), free(in);
  return ok;
}

/* A Sim of the front-end kernel holding the tensors torch wrote for dump nn. */
static Sim *torch_outputs(const Case *cs, const char *dir, int nn) {
  char p[PATH_MAX];
  if (!fmt(p, sizeof p, "%s/t/%02d.bin", dir, nn)) return NULL;
  size_t total = 0;
  for (int i = 0; i < cs->k->np; i++) {
    Gm *gm = sim_gm(cs->g0, cs->k->params[i]);
    total += (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(cs->k->params[i]->dt);
  }
  unsigned char *bytes = (unsigned char *)slurp(p, total + 1);
  if (!bytes) return NULL;
  struct stat st;
  if (stat(p, &st) != 0 || (size_t)st.st_size != total) {
    free(bytes);
    return NULL;
  }
  Sim *s = sim_new(cs->k, &(SimOpts){.inputs = cs->g0});
  size_t off = 0;
  for (int i = 0; i < cs->k->np; i++) {
    Gm *gm = sim_gm(s, cs->k->params[i]);
    size_t n = (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(cs->k->params[i]->dt);
    memcpy(gm->bytes, bytes + off, n);
    off += n;
  }
  free(bytes);
  return s;
}

/* A user-level refusal (the program is wrong in PyPTO's eyes), not an internal error. */
static bool user_exception(const char *cls) {
  static const char *const u[] = {"ValueError", "TypeError", "NotImplementedError", "SyntaxError", "ParserError",
                                  "ParserSyntaxError", "ParserTypeError", "UndefinedVariableError",
                                  "SSAViolationError", "UnsupportedFeatureError", "InvalidOperationError",
                                  "ScopeIsolationError", NULL};
  for (int i = 0; u[i]; i++)
    if (!strcmp(cls, u[i])) return true;
  return false;
}

/* The build's TileView binding refuses None (the driver's binding_gap): the
 * variant's check is unsupported, an environment gap and never a finding. */
static void binding_gap(VarResult *x, const char *where, const char *msg) {
  x->out = OUT_UNSUPPORTED;
  set(x->code, sizeof x->code, "E-PYPTO-BINDING");
  set(x->pass, sizeof x->pass, where);
  fmt(x->detail, sizeof x->detail, "this PyPTO build cannot make a pl.TileView (its binding refuses the None "
           "default of start_offset under nanobind 3.0), so no TileView annotation parses: %.120s", msg);
}

/* Refusals PyPTO documents as limits of its split passes (e2d0f78ae's
 * docs/en/dev/passes/), of kernels ptoc takes: a construct the build does not
 * take, as E-PYPTO-* refusals of the translation are, never a finding. */
static const struct {
  const char *needle, *doc;
} documented[] = {
    {"that swaps the split axis", "21-expand_mixed_kernel.md (a transpose across the split axis, 8f8de9b9c on)"},
    {"split with BOTH a per-lane row extent", "20-lower_auto_vector_split.md (aiv_shard: uneven lanes and a narrow tile)"},
    {"splits the column axis, but this tile's valid column extent", "20-lower_auto_vector_split.md (aiv_shard: partial columns)"},
    {"Vector boundary tile's valid split-axis extent", "20-lower_auto_vector_split.md (aiv_shard: a C2V tile's uneven lanes)"},
};

/* Check (a): what PyPTO's parse and compile did. False when it did not compile. */
static bool judge_compile(const Reply *rp, const Diag *model, VarResult *x) {
  if (!rp->raised && !rp->died && !rp->hung) return true;
  char cls[48];
  orc_msg_class(rp->msg, cls, sizeof cls);
  if (rp->raised && !strcmp(rp->cls, "BindingGap")) {
    binding_gap(x, rp->where, rp->msg);
    return false;
  }
  for (size_t i = 0; rp->raised && user_exception(rp->cls) && i < sizeof documented / sizeof *documented; i++)
    if (strstr(rp->msg, documented[i].needle)) {
      x->out = OUT_UNSUPPORTED;
      set(x->code, sizeof x->code, "E-PYPTO-DOCUMENTED");
      set(x->pass, sizeof x->pass, rp->where);
      fmt(x->detail, sizeof x->detail, "a refusal PyPTO documents (docs/en/dev/passes/%s): %s: %.120s",
               documented[i].doc, rp->cls, rp->msg);
      return false;
    }
  if (rp->raised && model) {                    /* ptoc refuses it too: the two agree */
    x->out = OUT_UNSUPPORTED;
    set(x->code, sizeof x->code, ir_diag_name(model->code));
    set(x->pass, sizeof x->pass, rp->where);
    fmt(x->detail, sizeof x->detail, "ptoc and PyPTO both refuse it: %s: %.150s", rp->cls, rp->msg);
    return false;
  }
  if (rp->in_dumps) x->check = 'b';             /* PyPTO compiled it; its dumps' check died */
  x->out = rp->hung ? OUT_HANG : rp->died || !user_exception(rp->cls) ? OUT_CRASH : OUT_REJECT;
  set(x->code, sizeof x->code, rp->hung ? (rp->in_torch ? "torch-timeout" : "timeout") : rp->cls);
  set(x->op, sizeof x->op, rp->raised ? cls : "-");
  set(x->pass, sizeof x->pass, rp->where);
  fmt(x->detail, sizeof x->detail, "PyPTO %s: %s: %.160s", rp->where, rp->hung ? "timeout" : rp->cls, rp->msg);
  return false;
}

/* Check (b), two results: xp, the first dump that does not parse back; xt, the
 * first dump that newly breaks an element on torch (a dump that does not parse
 * back is skipped there, so a printer bug early on hides no later miscompile). */
static void judge_dumps(Case *cs, const char *dir, const Reply *rp, VarResult *xp, VarResult *xt, double *t_compare) {
  double t0 = ms();
  Sim *prev = NULL;                             /* the outputs of the last dump that ran */
  int axis = xt->mode == MODE_NONE ? -1 : MODE_AXIS(xt->mode);
  bool torch = cs->torch, gap = false;
  const Dump *torch_gap = NULL;                 /* where torch_codegen stopped, when it did */
  char cls[48];
  const Dump *bgap = NULL;                      /* the first dump the binding gap kept from parsing */
  for (int i = 0; i < rp->nd; i++) {
    const Dump *dm = &rp->dump[i];
    if (!dm->parsed && !strcmp(dm->cls, "BindingGap")) {
      if (!bgap) bgap = dm;
      continue;
    }
    if (!dm->parsed) {
      if (xp->out == OUT_OK) {
        xp->out = OUT_CRASH;
        orc_msg_class(dm->msg, cls, sizeof cls);
        set(xp->code, sizeof xp->code, "parse-back");
        set(xp->op, sizeof xp->op, cls);
        set(xp->pass, sizeof xp->pass, dm->pass);
        fmt(xp->detail, sizeof xp->detail, "the IR %s does not parse back: %s: %.150s",
                 dm->nn ? "after this pass" : "of the program as PyPTO parsed it", dm->cls, dm->msg);
      }
      continue;
    }
    if (!torch || xt->out != OUT_OK || dm->torch == 0 || dm->torch == 2) continue;
    if (dm->torch == 3) {
      /* torch_codegen has no handler for an op: its coverage ends here (a gap of
       * PyPTO's debugging tool, not of the pass); so does one that cannot run the
       * program as written at all */
      if (!prev || (strstr(dm->tmsg, "Unsupported op") && strstr(dm->tmsg, "in torch_codegen"))) {
        torch = false;
        torch_gap = dm;
        continue;
      }
      xt->out = OUT_CRASH;
      orc_msg_class(dm->tmsg, cls, sizeof cls);
      set(xt->code, sizeof xt->code, "torch-run");
      set(xt->op, sizeof xt->op, cls);
      set(xt->pass, sizeof xt->pass, dm->pass);
      fmt(xt->detail, sizeof xt->detail, "the IR after this pass does not run on torch: %s: %.150s", dm->tcls,
               dm->tmsg);
      continue;
    }
    Sim *s = torch_outputs(cs, dir, dm->nn);
    if (!s) {
      xt->out = OUT_TOOLERR;
      set(xt->code, sizeof xt->code, "tool-error");
      snprintf(xt->detail, sizeof xt->detail, "torch's outputs of dump %02d are missing", dm->nn);
      continue;
    }
    char pat[12];
    if (!prev) {
      gap = !orc_compare_outputs(cs->g, cs->k, s, cs->k, NULL, cs->tol, axis, pat, sizeof pat);
    } else if (!orc_compare_outputs(cs->g, cs->k, s, cs->k, prev, cs->tol, axis, xt->pattern, sizeof xt->pattern)) {
      xt->out = OUT_MISCOMPILE;
      set(xt->code, sizeof xt->code, "torch");
      set(xt->pass, sizeof xt->pass, dm->pass);
      char d[160];
      orc_first_diff(cs->g, cs->k, s, d, sizeof d);
      fmt(xt->detail, sizeof xt->detail, "on torch the IR after this pass breaks outputs the IR before it had "
               "right; %s", d);
    }
    sim_free(prev);
    prev = s;
  }
  if (xp->out == OUT_OK && bgap) binding_gap(xp, bgap->pass, bgap->msg);
  if (xt->out == OUT_OK && torch_gap) {
    xt->out = OUT_UNSUPPORTED;
    set(xt->code, sizeof xt->code, "E-PYPTO-TORCH");
    set(xt->pass, sizeof xt->pass, torch_gap->pass);
    fmt(xt->detail, sizeof xt->detail, "torch_codegen %s: %s: %.140s",
             torch_gap->nn ? "runs no dump from this pass on" : "cannot run the program as written", torch_gap->tcls,
             torch_gap->tmsg);
  } else if (xt->out == OUT_OK && gap) {
    snprintf(xt->detail, sizeof xt->detail, "torch_codegen's reading of the program differs from the golden run "
             "(not a PyPTO pass: compared pass to pass)");
  } else if (xt->out == OUT_OK && !cs->torch) {
    snprintf(xt->detail, sizeof xt->detail, "not run on torch: the kernel holds a tile or tensor neither f32 nor i32");
  }
  sim_free(prev);
  *t_compare += ms() - t0;
}

/* The functions of one PTO-AS module: the cube's and the vector's, by kernel_kind. */
static void pto_funcs(const char *text, char *cube, char *vec, size_t n) {
  *cube = *vec = 0;
  for (const char *p = text; (p = strstr(p, "func.func @"));) {
    p += 11;
    size_t len = strcspn(p, "( ");
    const char *eol = strchr(p, '\n');
    const char *kind = strstr(p, "kernel_kind<");
    if (!kind || (eol && kind > eol)) continue;
    char *dst = !strncmp(kind + 12, "cube", 4) ? cube : !strncmp(kind + 12, "vector", 6) ? vec : NULL;
    if (dst && len < n) snprintf(dst, n, "%.*s", (int)len, p);
  }
}

/* Check (c): a job for the real toolchain from the PTO-AS and the launch PyPTO's
 * orchestration makes; false (x filled) when the harness cannot run it. */
static bool prepare_job(Case *cs, const Reply *rp, VarResult *x, RealJob *j, JobRef *ref, Arena *A) {
  const char *why = NULL;
  if (rp->bad_task) why = "a launch argument that is neither a tensor of the kernel nor a GM buffer";
  else if (rp->ntask != 1) why = rp->ntask ? "more than one kernel launch" : "no kernel launch";
  const Task *t = &rp->task[0];
  const char *pto_path = NULL;
  for (int i = 0; !why && i < rp->npto; i++) {
    const char *b = strrchr(rp->pto[i], '/');
    b = b ? b + 1 : rp->pto[i];
    if (!strncmp(b, t->group, strlen(t->group)) && !strcmp(b + strlen(t->group), ".pto")) pto_path = rp->pto[i];
  }
  if (!why && !pto_path) why = "no PTO-AS module for the launched kernel";
  int bufs = 0, ext = 0;
  for (int i = 0; !why && i < t->nargs; i++) {
    if (t->arg[i] < 0) bufs++;
    else if (t->arg[i] >= cs->k->np || bufs) why = "a launch argument the harness cannot give";
    else ext++;
  }
  if (!why && bufs > 1) why = "more than one GM buffer";
  char *text = why ? NULL : slurp(pto_path, 64u << 20);
  if (!why && !text) why = "cannot read the PTO-AS";
  char cube[128], vec[128];
  if (!why) {
    pto_funcs(text, cube, vec, sizeof cube);
    if (!*cube && !*vec) why = "no cube or vector function in the PTO-AS";
  }
  if (why) {
    free(text);
    x->out = OUT_UNSUPPORTED;
    set(x->code, sizeof x->code, "E-PYPTO-LAUNCH");
    set(x->pass, sizeof x->pass, "harness");
    snprintf(x->detail, sizeof x->detail, "the pto-isa harness cannot run this launch: %s", why);
    return false;
  }
  j->pto = ir_strndup(A, text, strlen(text));
  free(text);
  j->arch = !strcmp(x->vname + strlen(x->vname) - 2, "a5") ? "a5" : "a3";
  j->fn_cube = *cube ? ir_strndup(A, cube, strlen(cube)) : NULL;
  j->fn_vec = *vec ? ir_strndup(A, vec, strlen(vec)) : NULL;
  /* "AIC,AIV0,AIV1" kernel ids of a MixedKernels launch: a second vector lane when the third is a kernel */
  const char *l2 = strrchr(t->lanes, ',');
  j->lanes = l2 && isdigit((unsigned char)l2[1]) && strchr(t->lanes, ',') != l2 ? 2 : 1;
  j->pypto = true;
  j->lane_arg = strstr(j->pto, "%__pypto_spmd_subblock_idx: i32)") != NULL;
  j->np = ext;
  RealParam *p = ir_alloc(A, sizeof *p * (size_t)(ext ? ext : 1));
  ref->perm = ir_alloc(A, sizeof *ref->perm * (size_t)(ext ? ext : 1));
  for (int i = 0; i < ext; i++) {
    const Var *T = cs->k->params[t->arg[i]];
    Gm *gm = sim_gm(cs->g0, T);
    p[i].ctype = orc_real_ctype(T->dt);
    p[i].bytes = (size_t)gm->rows * gm->cols * (size_t)ir_dtype_bytes(T->dt);
    p[i].init = gm->bytes;
    ref->perm[i] = t->arg[i];
  }
  j->p = p;
  j->slot_bytes = bufs ? (size_t)(-1 - t->arg[t->nargs - 1]) : 0;
  return true;
}

/* The kernel has an op whose order of operations or implementation may differ
 * from the golden run's on torch or after PyPTO's tiling. */
static bool order_sensitive(const Body *b) {
  for (int i = 0; i < b->n; i++) {
    const Stmt *s = b->v[i];
    if (s->k != S_OP) {
      if (order_sensitive(&s->body) || order_sensitive(&s->other)) return true;
      continue;
    }
    if (s->rhs.k != A_CALL) continue;
    Op op = s->rhs.call->op;
    if (op == OP_exp || op == OP_matmul || op == OP_matmul_acc || op == OP_row_sum || op == OP_col_sum) return true;
  }
  return false;
}

/* Check (b) on torch: only kernels whose every value is f32 or i32 (torch 1.13 has no CPU half matmul). */
static bool torch_kernel(const Kernel *k) {
  for (int i = 0; i < k->nvars; i++)
    if ((k->vars[i]->kind == VK_TENSOR || k->vars[i]->kind == VK_TILE) && k->vars[i]->dt != DT_F32 &&
        k->vars[i]->dt != DT_I32)
      return false;
  return true;
}

void orc_pypto_check(PyDrv *d, const RealTools *rt, PyCase *cases, int n, const RealOpts *o, PyTimes *tm) {
  PyTimes local = {0};
  if (!tm) tm = &local;
  Case *cs = calloc((size_t)(n ? n : 1), sizeof *cs);
  RealJob *jobs = calloc((size_t)n * ORC_NPYPTO + 1, sizeof *jobs);
  JobRef *ref = calloc((size_t)n * ORC_NPYPTO + 1, sizeof *ref);
  if (!cs || !jobs || !ref) die("out of memory");
  Arena *A = ir_arena_new();
  int nj = 0;
  const char *backend_arg[2] = {"910B", "950"};
  for (int i = 0; i < n; i++) {
    PyCase *pc = cases + i;
    Case *c = cs + i;
    pc->n = 0, pc->invalid = pc->finding = pc->toolerr = false;
    c->c = pc;
    c->comp = (Comp){.A = ir_arena_new(), .src = *pc->src, .o = {.split = -1, .target = -1}};
    double t0 = ms();
    c->k = ir_front(&c->comp);
    if (!c->k) {
      pc->invalid = true;
      pc->why = c->comp.diag;
      continue;
    }
    c->g0 = sim_new(c->k, &(SimOpts){.seed = pc->input_seed});
    c->g = sim_new(c->k, &(SimOpts){.inputs = c->g0, .origins = true});
    if (!(c->k->expanded ? sim_run_machine(c->g, 0) : sim_run_reference(c->g))) {
      pc->invalid = true;
      pc->why = *sim_diag(c->g);
      continue;
    }
    c->torch = torch_kernel(c->k);
    c->tol = order_sensitive(&c->k->body) ? TOL : 0;
    tm->translate += ms() - t0;
    for (int v = 0; v < ORC_NPYPTO; v++) {
      if (pc->only >= 0 && v != pc->only) continue;
      Target tgt = pv[v].target >= 0 ? (Target)pv[v].target : c->k->target;
      VarResult *xa = &pc->r[pc->n++];
      init_var(xa, v, c->k->target, 'a');
      /* what ptoc itself says of the variant: a refusal both agree on is no finding */
      t0 = ms();
      Comp mc = {.A = ir_arena_new(), .src = c->comp.src, .o = {.split = pv[v].split, .target = tgt}};
      Kernel *mk = pass_pipeline_from(&mc, c->k, &(PipeOpts){0});
      Diag model = mc.diag;
      ir_arena_free(mc.A);
      Comp ec = {.A = A, .src = c->comp.src, .o = {.split = -1, .target = -1}};
      const char *prog = ir_emit_pypto(&ec, c->k, &(PyOpts){.split = pv[v].split, .target = tgt, .caps = d->b.caps});
      tm->translate += ms() - t0;
      tm->variants++;
      tm->translated += prog != NULL;
      if (!prog) {
        xa->out = ir_diag_cat(ec.diag.code) == CAT_USER ? OUT_INVALID : OUT_UNSUPPORTED;
        set(xa->code, sizeof xa->code, ir_diag_name(ec.diag.code));
        set(xa->pass, sizeof xa->pass, "emit_pypto");
        snprintf(xa->detail, sizeof xa->detail, "%d:%d %.180s", ec.diag.loc.line, ec.diag.loc.col, ec.diag.msg);
        continue;
      }
      char dir[PATH_MAX];
      fmt(dir, sizeof dir, "%s/r%d", d->work, d->req++ % 2);
      orc_rm_rf(dir);
      if (!write_request(c, dir, prog)) {
        xa->out = OUT_TOOLERR;
        set(xa->code, sizeof xa->code, "tool-error");
        fmt(xa->detail, sizeof xa->detail, "cannot write the request in %s", dir);
        continue;
      }
      Reply rp;
      snprintf(d->last, sizeof d->last, "%s", dir);
      request(d, dir, backend_arg[tgt == TGT_A5], c->torch, &rp);
      tm->checks++;
      tm->torch += rp.t_torch;
      tm->pypto += rp.t_total - rp.t_torch;
      if (rp.toolerr) {
        xa->out = OUT_TOOLERR;
        set(xa->code, sizeof xa->code, "tool-error");
        snprintf(xa->detail, sizeof xa->detail, "%.190s", rp.msg);
        reply_free(&rp);
        continue;
      }
      bool stopped = rp.raised || ((rp.died || rp.hung) && !rp.in_dumps);   /* in PyPTO's parse or compile */
      tm->parsed += !stopped || strcmp(rp.where, "parse");
      tm->compiled += !stopped;
      if (!judge_compile(&rp, mk ? NULL : &model, xa)) {
        reply_free(&rp);
        continue;
      }
      VarResult *xb = &pc->r[pc->n++], xt;
      init_var(xb, v, c->k->target, 'b');
      init_var(&xt, v, c->k->target, 'b');
      judge_dumps(c, dir, &rp, xb, &xt, &tm->compare);
      /* one line for (b) when both parts agree there is nothing; else each part that says something */
      if (xb->out == OUT_OK) *xb = xt;
      else if (xt.out != OUT_OK) pc->r[pc->n++] = xt;
      VarResult *xc = &pc->r[pc->n++];
      init_var(xc, v, c->k->target, 'c');
      if (!rt || !d->b.ptoas) {
        xc->out = OUT_UNSUPPORTED;
        set(xc->code, sizeof xc->code, "E-PYPTO-PTOAS");
        set(xc->pass, sizeof xc->pass, "ptoas");
        snprintf(xc->detail, sizeof xc->detail, rt ? "PyPTO %s (%s) is newer than the ptoas v0.42 it pairs with"
                 : "no real toolchain (ptoas, pto-isa, clang++-19)", d->b.commit, d->b.date);
      } else if (prepare_job(c, &rp, xc, &jobs[nj], &ref[nj], A)) {
        ref[nj].ci = i, ref[nj].ri = pc->n - 1;
        nj++;
      }
      reply_free(&rp);
    }
  }
  if (nj) {
    orc_real_run(rt, jobs, nj, o);
    tm->ran += nj;
  }
  for (int q = 0; q < nj; q++) {
    Case *c = cs + ref[q].ci;
    VarResult *x = &c->c->r[ref[q].ri];
    tm->ptoas += jobs[q].t_ptoas, tm->cxx += jobs[q].t_cxx, tm->run += jobs[q].t_run;
    unsigned char **outs = calloc((size_t)c->k->np + 1, sizeof *outs);
    if (!outs) die("out of memory");
    for (int i = 0; i < jobs[q].np; i++) outs[ref[q].perm[i]] = jobs[q].p[i].out;
    orc_real_classify(c->k, c->g, c->g0, x, &jobs[q], outs, c->tol, &tm->compare);
    free(outs);
    for (int i = 0; i < jobs[q].np; i++) free(jobs[q].p[i].out);
  }
  for (int i = 0; i < n; i++) {
    PyCase *pc = cases + i;
    orc_same_as_unsplit(pc->r, pc->n);
    for (int v = 0; v < pc->n; v++) {
      pc->finding |= orc_is_finding(pc->r[v].out);
      pc->toolerr |= pc->r[v].out == OUT_TOOLERR;
      tm->errors += pc->r[v].out == OUT_TOOLERR;
    }
    sim_free(cs[i].g);
    sim_free(cs[i].g0);
    ir_arena_free(cs[i].comp.A);
  }
  ir_arena_free(A);
  free(cs);
  free(jobs);
  free(ref);
}
