/* real.c — the real toolchain back end: PTOAS (PTO-AS to C++) and pto-isa's CPU
 * simulation. Consumes RealJobs (one kernel variant's PTO-AS text, the cube and
 * vector functions to call, its GM tensors' initial bytes); produces per job the
 * stage it reached (RealStage) with the tool's first diagnostic, the wall-clock
 * time spent in each tool and, when it ran, the tensors' bytes afterwards.
 * ptoas runs once per job; the C++ of up to `batch` jobs is compiled into one
 * program against a precompiled pto/pto-inst.hpp kept in the cache directory;
 * every job runs in a process of its own, because the simulation's pipes keep
 * their state in function-local statics and block forever on a lost push. All
 * tools run as children in their own process groups, under time limits. */
#include "orc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
  PTOAS_LIMIT_S = 60,
  CXX_LIMIT_S = 300,
  PCH_LIMIT_S = 300,
  VERSION_LIMIT_S = 10,
  LOG_MAX = 4 << 20,                            /* how much of a tool's output is read */
  HARNESS_FAIL = 125,                           /* the harness failed, not the kernel */
  HARNESS_OOB = 124,                            /* the kernel wrote outside a tensor (harness_main) */
  MAX_PARAMS = 256,
};
static const size_t MAX_JOB_BYTES = (size_t)1 << 30;

/* The compile flags, shared by the precompiled header and every program: the
 * PCH is only usable with the flags it was built with. pto-isa marks every
 * instruction always_inline (PTO_INLINE); at -O0 that inlines each instruction's
 * whole template body into every call site, and code generation was three
 * quarters of a batch's compile. Defining the plain spelling away (the system
 * headers spell it __always_inline__) leaves each instantiation emitted once:
 * the same program, compiled three times faster (docs/real-backend.md). */
static const char *const cxx_flags[] = {
    "-std=c++20", "-O0", "-w", "-D__CPU_SIM", "-D__DAV_CUBE__", "-D__DAV_VEC__", "-Dalways_inline=",
    "-include", "stdint.h", "-include", "stddef.h", "-Wno-macro-redefined", "-Wno-ignored-attributes",
};
enum { NFLAGS = sizeof cxx_flags / sizeof cxx_flags[0] };

const char *orc_real_stage_name(RealStage s) {
  static const char *const n[RS_N] = {"ok",        "reject",    "ptoas-crash", "cxx-error",
                                      "cxx-crash", "run-crash", "run-hang",    "tool-error"};
  return (unsigned)s < RS_N ? n[s] : "?";
}

/* ---- small helpers -------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* snprintf that reports truncation: a cut path would name another file. */
__attribute__((format(printf, 3, 4))) static bool fmt(char *dst, size_t n, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  int k = vsnprintf(dst, n, f, ap);
  va_end(ap);
  return k >= 0 && (size_t)k < n;
}

static bool copy_str(char *dst, size_t n, const char *src) { return fmt(dst, n, "%s", src); }

typedef struct {
  char *s;
  size_t n, cap;
  int lines;                                    /* newlines so far */
  bool bad;                                     /* out of memory */
} Buf;

__attribute__((format(printf, 2, 3))) static void buf_add(Buf *b, const char *f, ...) {
  if (b->bad) return;
  va_list ap;
  va_start(ap, f);
  int k = vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  if (k < 0) {
    b->bad = true;
    return;
  }
  if (b->n + (size_t)k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + (size_t)k + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->bad = true;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, f);
  vsnprintf(b->s + b->n, (size_t)k + 1, f, ap);
  va_end(ap);
  for (int i = 0; i < k; i++) b->lines += b->s[b->n + i] == '\n';
  b->n += (size_t)k;
}

static bool write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= (size_t)k;
  }
  return true;
}

static bool write_file(const char *path, const void *p, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = write_all(fd, p, n);
  if (close(fd) != 0) ok = false;
  return ok;
}

/* Up to max bytes of a file, from its start or (tail) its last max bytes,
 * NUL-terminated; NULL when it cannot be read. */
static char *read_part(const char *path, size_t max, bool tail, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return NULL;
  }
  size_t size = st.st_size > 0 ? (size_t)st.st_size : 0;
  off_t off = 0;
  if (tail && size > max) off = (off_t)(size - max);
  size_t want = size - (size_t)off < max ? size - (size_t)off : max;
  char *s = malloc(want + 1);
  size_t got = 0;
  while (s && got < want) {
    ssize_t k = pread(fd, s + got, want - got, off + (off_t)got);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      free(s);
      s = NULL;
    }
    if (k <= 0) break;
    got += (size_t)k;
  }
  close(fd);
  if (!s) return NULL;
  s[got] = 0;
  if (len) *len = got;
  return s;
}

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool mkdir_p(const char *path) {
  char p[PATH_MAX];
  if (!copy_str(p, sizeof p, path)) return false;
  for (char *c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return false;
    *c = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST) return false;
  return is_dir(p);
}

static void rm_rf(const char *path, int depth) {
  DIR *d = depth < 16 ? opendir(path) : NULL;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[PATH_MAX];
      if (!fmt(sub, sizeof sub, "%s/%s", path, e->d_name)) continue;
      struct stat st;
      if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) rm_rf(sub, depth + 1);
      else unlink(sub);
    }
    closedir(d);
  }
  rmdir(path);
}

void orc_rm_rf(const char *path) { rm_rf(path, 0); }

/* The first line of s (at most n-1 bytes), trimmed. */
static void line_of(const char *s, char *dst, size_t n) {
  while (*s == ' ' || *s == '\t' || *s == '\r') s++;
  size_t k = strcspn(s, "\r\n");
  while (k && (s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
  if (k >= n) k = n - 1;
  memcpy(dst, s, k);
  dst[k] = 0;
}

/* The start of the first non-blank line of s, or NULL. */
static const char *first_line(const char *s) {
  for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (l[strspn(l, " \t\r")] != '\n' && l[strspn(l, " \t\r")]) return l;
  return NULL;
}

/* The start of the last non-blank line of s, or NULL. */
static const char *last_line(const char *s) {
  const char *last = NULL;
  for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    if (l[strspn(l, " \t\r")] != '\n' && l[strspn(l, " \t\r")]) last = l;
  return last;
}

/* The first line containing needle (case-insensitive when icase), or NULL. */
static const char *line_with(const char *s, const char *needle, bool icase) {
  const char *h = icase ? strcasestr(s, needle) : strstr(s, needle);
  if (!h) return NULL;
  while (h > s && h[-1] != '\n') h--;
  return h;
}

/* Deletes every occurrence of prefix from s: the work and pto-isa directories
 * make messages long and differ from run to run. */
static void strip_all(char *s, const char *prefix) {
  size_t n = strlen(prefix);
  if (!n) return;
  for (char *h; (h = strstr(s, prefix));) memmove(h, h + n, strlen(h + n) + 1);
}

static const char *signame(int sig, char *buf, size_t n) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  const char *a = sigabbrev_np(sig);
  if (a) {
    fmt(buf, n, "SIG%s", a);
    return buf;
  }
#endif
  fmt(buf, n, "signal %d", sig);
  return buf;
}

/* ---- child processes -------------------------------------------------------------- */

typedef struct {
  const char *const *argv;                      /* argv[0]: the path executed */
  const char *out, *err;                        /* files for stdout and stderr (NULL: /dev/null);
                                                   err == out shares one file */
  const char *cwd;                              /* NULL: inherit */
  const char *const *envp;                      /* NULL: inherit */
  double limit_s;
  size_t max_file;                              /* largest file it may write (0: 1 GiB) */
  pid_t parent;                                 /* set by proc_start */
  /* results */
  pid_t pid;
  double t0, ms;
  int status;                                   /* from waitpid */
  int spawn_errno;                              /* nonzero: could not start */
  bool timed_out, done;
} Proc;

/* fd moved to 4 or above: the child's dup2s onto 0-3 must not overwrite the
 * others (a caller with stdin or stdout closed hands out low descriptors). */
static int high_fd(int fd) {
  if (fd < 0 || fd > 3) return fd;
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 4);
  int e = errno;
  close(fd);
  errno = e;
  return h;
}

static int open_out(const char *path) {
  return high_fd(open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
}

/* Only async-signal-safe calls between fork and exec: the caller may have threads. */
static void child(const Proc *p, int in, int out, int err, int report) {
  /* in a group of its own Ctrl-C does not reach it: die with ptofuzz instead */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) goto fail;
  if (getppid() != p->parent) _exit(127);
  if (setpgid(0, 0) != 0) goto fail;
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) goto fail;
  if (dup3(report, 3, O_CLOEXEC) < 0) goto fail;   /* all of ours are above 3 */
  report = 3;
  /* the caller's other descriptors (databases, pipes of its own children) stay out */
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
    for (int fd = 4; fd < 4096; fd++) close(fd);
  if (p->cwd && chdir(p->cwd) != 0) goto fail;
  struct rlimit core = {0, 0};                  /* a crashing tool must not write core files */
  setrlimit(RLIMIT_CORE, &core);
  /* nor a kernel printing in a loop fill the disk (SIGXFSZ: a crash) */
  rlim_t fsize = p->max_file ? (rlim_t)p->max_file : (rlim_t)1 << 30;
  struct rlimit fs = {fsize, fsize};
  setrlimit(RLIMIT_FSIZE, &fs);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);   /* the caller may ignore SIGPIPE */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (p->envp) execve(p->argv[0], (char *const *)p->argv, (char *const *)p->envp);
  else execv(p->argv[0], (char *const *)p->argv);
fail:;
  int e = errno;
  if (write(report, &e, sizeof e) < 0) _exit(127);
  _exit(127);
}

static void proc_start(Proc *p) {
  p->pid = 0;
  p->done = p->timed_out = false;
  p->spawn_errno = 0;
  p->t0 = now_ms();
  p->parent = getpid();
  int in = high_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  int out = open_out(p->out);
  int err = p->err == p->out ? out : open_out(p->err);
  int pipefd[2] = {-1, -1};
  if (in < 0 || out < 0 || err < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
    p->spawn_errno = errno ? errno : EIO;
    goto out;
  }
  pipefd[0] = high_fd(pipefd[0]);
  pipefd[1] = high_fd(pipefd[1]);
  if (pipefd[0] < 0 || pipefd[1] < 0) {
    p->spawn_errno = errno ? errno : EIO;
    goto out;
  }
  pid_t pid = fork();
  if (pid < 0) {
    p->spawn_errno = errno;
    goto out;
  }
  if (pid == 0) child(p, in, out, err, pipefd[1]);
  setpgid(pid, pid);                            /* both sides, or a kill could miss the group */
  close(pipefd[1]);
  pipefd[1] = -1;
  int e = 0;
  ssize_t k;
  do k = read(pipefd[0], &e, sizeof e);
  while (k < 0 && errno == EINTR);
  if (k == (ssize_t)sizeof e) {                 /* exec failed: the child reported why */
    p->spawn_errno = e ? e : EIO;
    while (waitpid(pid, &p->status, 0) < 0 && errno == EINTR) {}
  } else {
    p->pid = pid;
  }
out:
  if (pipefd[0] >= 0) close(pipefd[0]);
  if (pipefd[1] >= 0) close(pipefd[1]);
  if (in >= 0) close(in);
  if (out >= 0) close(out);
  if (err >= 0 && err != out) close(err);
  if (!p->pid) {
    p->done = true;
    p->ms = now_ms() - p->t0;
  }
}

/* Reaps p if it has ended or kills it if it is past its limit; true when done. */
static bool proc_poll(Proc *p) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  /* WNOWAIT keeps the leader a zombie, so its group id cannot be reused before
   * the group is killed (grandchildren a tool left behind) */
  int r = waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT);
  if (r != 0 && errno == EINTR) return false;
  if (r != 0) {                                 /* ECHILD: someone else reaped it; its pid is not ours */
    p->spawn_errno = errno;
  } else {
    if (si.si_pid != p->pid) {
      if (now_ms() - p->t0 <= p->limit_s * 1e3) return false;
      p->timed_out = true;
    }
    kill(-p->pid, SIGKILL);
    while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR) {}
  }
  p->ms = now_ms() - p->t0;
  p->done = true;
  return true;
}

/* Runs every proc, at most par at once, each under its own limit. */
static void procs_run(Proc *p, int n, int par) {
  int next = 0, running = 0;
  if (par < 1) par = 1;
  while (next < n || running > 0) {
    while (running < par && next < n) {
      proc_start(&p[next]);
      if (p[next].pid) running++;
      next++;
    }
    bool reaped = false;
    for (int i = 0; i < next; i++)
      if (p[i].pid && !p[i].done && proc_poll(&p[i])) {
        running--;
        reaped = true;
      }
    if (!reaped && running > 0) {
      struct timespec ts = {0, 2 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
}

/* Runs argv with stdout and stderr in temporary files under dir; both read back. */
static void run_capture(const char *const *argv, const char *dir, double limit_s, Proc *p, char **out,
                        char **err) {
  char po[PATH_MAX], pe[PATH_MAX];
  *out = *err = NULL;
  memset(p, 0, sizeof *p);
  p->argv = argv;
  p->limit_s = limit_s;
  int fo = -1, fe = -1;
  if (fmt(po, sizeof po, "%s/.capture-XXXXXX", dir)) fo = mkstemp(po);
  if (fmt(pe, sizeof pe, "%s/.capture-XXXXXX", dir)) fe = mkstemp(pe);
  if (fo < 0 || fe < 0) {
    p->spawn_errno = errno ? errno : EIO;
    p->done = true;
  } else {
    p->out = po;
    p->err = pe;
    procs_run(p, 1, 1);
    *out = read_part(po, 64 << 10, false, NULL);
    *err = read_part(pe, 64 << 10, false, NULL);
  }
  if (fo >= 0) {
    close(fo);
    unlink(po);
  }
  if (fe >= 0) {
    close(fe);
    unlink(pe);
  }
}

/* ---- finding the tools --------------------------------------------------------------- */

/* An executable regular file: `given` as a path, or looked up on $PATH. Made
 * absolute but symlinks kept: clang++-19 -> clang picks its driver mode (C++
 * or C) from the name it is run by. */
static bool resolve_exe(const char *given, char *out, size_t n) {
  char abs[PATH_MAX], cwd[PATH_MAX];
  if (!given || !*given) return false;
  if (given[0] == '/') {
    if (!copy_str(abs, sizeof abs, given)) return false;
  } else if (strchr(given, '/')) {
    if (!getcwd(cwd, sizeof cwd) || !fmt(abs, sizeof abs, "%s/%s", cwd, given)) return false;
  } else {
    const char *path = getenv("PATH");
    bool found = false;
    while (path && *path && !found) {
      size_t k = strcspn(path, ":");
      if (k && path[0] == '/' && fmt(abs, sizeof abs, "%.*s/%s", (int)k, path, given) && is_file(abs) &&
          access(abs, X_OK) == 0)
        found = true;
      path += k + (path[k] == ':');
    }
    if (!found) return false;
  }
  return is_file(abs) && access(abs, X_OK) == 0 && copy_str(out, n, abs);
}

/* <dir>/shared/third_party/<rel> for dir = start (absolute) and each of its parents. */
static bool search_up(const char *start, const char *rel, char *out, size_t n) {
  char dir[PATH_MAX];
  if (!copy_str(dir, sizeof dir, start)) return false;
  for (;;) {
    char cand[PATH_MAX];
    if (fmt(cand, sizeof cand, "%s/shared/third_party/%s", strcmp(dir, "/") ? dir : "", rel) && is_file(cand))
      return copy_str(out, n, cand);
    char *slash = strrchr(dir, '/');
    if (!slash || !strcmp(dir, "/")) return false;
    if (slash == dir) slash[1] = 0;
    else *slash = 0;
  }
}

/* The copy in shared/third_party, seen from the working directory or the executable. */
bool orc_shared_file(const char *rel, char *out, size_t n) {
  char dir[PATH_MAX];
  if (getcwd(dir, sizeof dir) && search_up(dir, rel, out, n)) return true;
  ssize_t k = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (k <= 0) return false;
  dir[k] = 0;
  char *slash = strrchr(dir, '/');
  if (!slash) return false;
  *slash = 0;
  return search_up(*dir ? dir : "/", rel, out, n);
}

/* pto-isa's root from a directory that is the root or its include/ directory. */
static bool isa_root(const char *given, char *out, size_t n) {
  char abs[PATH_MAX], cand[PATH_MAX];
  if (!given || !*given || !realpath(given, abs)) return false;
  if (fmt(cand, sizeof cand, "%s/include/pto/pto-inst.hpp", abs) && is_file(cand)) return copy_str(out, n, abs);
  if (!fmt(cand, sizeof cand, "%s/pto/pto-inst.hpp", abs) || !is_file(cand)) return false;
  char *slash = strrchr(abs, '/');
  if (slash && !strcmp(slash, "/include") && slash != abs) {
    *slash = 0;
    return copy_str(out, n, abs);
  }
  return copy_str(out, n, abs);                 /* an include dir by another name: used as is */
}

/* The directory to pass to -I for pto-isa root isa. */
static bool isa_include(const char *isa, char *out, size_t n) {
  char cand[PATH_MAX];
  if (fmt(cand, sizeof cand, "%s/include/pto/pto-inst.hpp", isa) && is_file(cand))
    return fmt(out, n, "%s/include", isa);
  return fmt(cand, sizeof cand, "%s/pto/pto-inst.hpp", isa) && is_file(cand) && copy_str(out, n, isa);
}

static bool cache_dir(char *out, size_t n, char *why, size_t wn) {
  const char *e;
  bool ok;
  if ((e = getenv("PTO_REAL_CACHE")) && *e) ok = copy_str(out, n, e);
  else if ((e = getenv("XDG_CACHE_HOME")) && *e == '/') ok = fmt(out, n, "%s/ptofuzz", e);
  else if ((e = getenv("HOME")) && *e == '/') ok = fmt(out, n, "%s/.cache/ptofuzz", e);
  else ok = fmt(out, n, "/tmp/ptofuzz-cache-%u", (unsigned)getuid());
  if (!ok) {
    fmt(why, wn, "cache directory path too long");
    return false;
  }
  if (!mkdir_p(out) || access(out, W_OK | X_OK) != 0) {
    fmt(why, wn, "cannot use cache directory %s: %s", out, strerror(errno));
    return false;
  }
  struct stat st;
  if (!strncmp(out, "/tmp/", 5) && (stat(out, &st) != 0 || st.st_uid != getuid())) {
    fmt(why, wn, "cache directory %s belongs to another user", out);
    return false;
  }
  return true;
}

/* The major version in `clang version N.`, or 0. */
static int clang_major(const char *text) {
  const char *v = text ? strstr(text, "clang version ") : NULL;
  return v ? atoi(v + 14) : 0;
}

static bool find_cxx(RealTools *t) {
  const char *e = getenv("PTO_CXX");
  if (e && *e) {
    if (!resolve_exe(e, t->cxx, sizeof t->cxx)) {
      fmt(t->why, sizeof t->why, "PTO_CXX=%s is not an executable", e);
      return false;
    }
  } else if (!resolve_exe("clang++-19", t->cxx, sizeof t->cxx) && !resolve_exe("clang++", t->cxx, sizeof t->cxx)) {
    fmt(t->why, sizeof t->why, "no C++ compiler: clang++-19 is not on PATH (set PTO_CXX)");
    return false;
  }
  /* a compiler that does not run would make every job a C++ error: a finding */
  const char *argv[] = {t->cxx, "--version", NULL};
  char *out, *err;
  Proc p;
  run_capture(argv, t->cache, VERSION_LIMIT_S, &p, &out, &err);
  int major = clang_major(out);
  bool runs = !p.spawn_errno && !p.timed_out && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0;
  char line[160] = "";
  const char *l = err ? first_line(err) : NULL;
  line_of(l ? l : "", line, sizeof line);
  free(out);
  free(err);
  if (!runs) {
    fmt(t->why, sizeof t->why, "the C++ compiler %s does not run: %s", t->cxx,
        p.spawn_errno ? strerror(p.spawn_errno) : *line ? line : "--version failed");
    return false;
  }
  /* $PTO_CXX is taken on trust; a plain clang++ must be new enough for pto-isa's C++20 */
  if (!(e && *e) && !strstr(t->cxx, "clang++-19") && major < 19) {
    fmt(t->why, sizeof t->why, "clang++ at %s is version %d, 19 or later needed (or set PTO_CXX)", t->cxx, major);
    return false;
  }
  return true;
}

bool orc_real_find(RealTools *t, const char *ptoas_flag, const char *isa_flag) {
  memset(t, 0, sizeof *t);
  copy_str(t->version, sizeof t->version, "unknown");
  if (!cache_dir(t->cache, sizeof t->cache, t->why, sizeof t->why)) return false;

  const char *e = getenv("PTOAS");
  const char *src = ptoas_flag && *ptoas_flag ? ptoas_flag : e && *e ? e : NULL;
  if (src) {
    if (!resolve_exe(src, t->ptoas, sizeof t->ptoas)) {
      fmt(t->why, sizeof t->why, "ptoas at %s (%s) is missing or not executable", src,
          src == ptoas_flag ? "flag" : "$PTOAS");
      return false;
    }
  } else if (!orc_shared_file("bin/ptoas-v0.42", t->ptoas, sizeof t->ptoas) || access(t->ptoas, X_OK) != 0) {
    fmt(t->why, sizeof t->why, "no ptoas: set $PTOAS or install shared/third_party/bin/ptoas-v0.42");
    return false;
  }

  e = getenv("PTO_ISA");
  src = isa_flag && *isa_flag ? isa_flag : e && *e ? e : NULL;
  if (src) {
    if (!isa_root(src, t->isa, sizeof t->isa)) {
      fmt(t->why, sizeof t->why, "pto-isa at %s (%s) has no include/pto/pto-inst.hpp", src,
          src == isa_flag ? "flag" : "$PTO_ISA");
      return false;
    }
  } else {
    static const char hdr_rel[] = "pto-isa/include/pto/pto-inst.hpp";
    char hdr[PATH_MAX];
    if (!orc_shared_file(hdr_rel, hdr, sizeof hdr)) {
      fmt(t->why, sizeof t->why, "no pto-isa: set $PTO_ISA or install shared/third_party/pto-isa");
      return false;
    }
    hdr[strlen(hdr) - strlen(hdr_rel) + strlen("pto-isa")] = 0;   /* the root */
    if (!isa_root(hdr, t->isa, sizeof t->isa)) {
      fmt(t->why, sizeof t->why, "pto-isa at %s has no include/pto/pto-inst.hpp", hdr);
      return false;
    }
  }

  if (!find_cxx(t)) return false;

  /* ptoas links LLVM 19 and z3 dynamically: a missing library only shows when it runs */
  const char *argv[] = {t->ptoas, "--version", NULL};
  char *out, *err;
  Proc p;
  run_capture(argv, t->cache, VERSION_LIMIT_S, &p, &out, &err);
  char line[200] = "";
  const char *l = err ? first_line(err) : NULL;
  if (!l && out) l = first_line(out);
  if (l) line_of(l, line, sizeof line);
  bool ok = false;
  if (p.spawn_errno) fmt(t->why, sizeof t->why, "ptoas at %s cannot be started: %s", t->ptoas, strerror(p.spawn_errno));
  else if (p.timed_out) fmt(t->why, sizeof t->why, "ptoas at %s does not run: --version timed out", t->ptoas);
  else if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0)
    fmt(t->why, sizeof t->why, "ptoas at %s does not run: %s", t->ptoas, *line ? line : "no output");
  else ok = true;
  if (ok && out && (l = first_line(out))) line_of(l, t->version, sizeof t->version);
  free(out);
  free(err);
  return ok;
}

/* ---- one call: the work directory and the jobs' state ------------------------------ */

typedef struct {
  const RealTools *t;
  RealJob *jobs;
  int n, par, batch;
  double run_limit_s;
  char work[PATH_MAX], inc[PATH_MAX], pch[PATH_MAX];
  bool *live;                                   /* not yet given a final stage */
  int *prog;                                    /* the program that runs job i */
  int nprog;                                    /* programs (compile units) so far */
} Run;

__attribute__((format(printf, 4, 5))) static void job_end(Run *R, int i, RealStage st, const char *f, ...) {
  RealJob *j = &R->jobs[i];
  j->st = st;
  va_list ap;
  va_start(ap, f);
  vsnprintf(j->msg, sizeof j->msg, f, ap);
  va_end(ap);
  j->msg[strcspn(j->msg, "\r\n")] = 0;
  char prefix[PATH_MAX + 1];
  if (*R->work && fmt(prefix, sizeof prefix, "%s/", R->work)) strip_all(j->msg, prefix);
  if (*R->inc && fmt(prefix, sizeof prefix, "%s/", R->inc)) strip_all(j->msg, prefix);
  R->live[i] = false;
}

/* A stage could not allocate its tables: every job still live ends as a tool error. */
static void end_live_oom(Run *R) {
  for (int i = 0; i < R->n; i++)
    if (R->live[i]) job_end(R, i, RS_TOOL_ERROR, "out of memory");
}

static bool jpath(const Run *R, int i, const char *ext, char *out, size_t n) {
  return fmt(out, n, "%s/job%d.%s", R->work, i, ext);
}

static bool ident_char(char c, bool first) {
  return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z') || (!first && c >= '0' && c <= '9');
}

/* Function names are pasted into C++: only identifiers. */
static bool ident(const char *s) {
  if (!s || !*s || strlen(s) > 200) return false;
  for (const char *c = s; *c; c++)
    if (!ident_char(*c, c == s)) return false;
  return true;
}

/* Why job j cannot be run at all, or NULL. */
static const char *job_invalid(const RealJob *j) {
  if (!j->pto) return "no PTO-AS text";
  if (!j->arch || (strcmp(j->arch, "a3") && strcmp(j->arch, "a5"))) return "arch is not a3 or a5";
  if (!j->fn_cube && !j->fn_vec) return "neither a cube nor a vector function";
  if ((j->fn_cube && !ident(j->fn_cube)) || (j->fn_vec && !ident(j->fn_vec))) return "a function name is not an identifier";
  if (j->fn_vec && j->lanes != 1 && j->lanes != 2) return "lanes is not 1 or 2";
  if (j->np < 0 || j->np > MAX_PARAMS || (j->np && !j->p)) return "bad parameter list";
  size_t total = 0;
  for (int k = 0; k < j->np; k++) {
    if (j->p[k].bytes && !j->p[k].init) return "a parameter has no initial contents";
    if (j->p[k].bytes > MAX_JOB_BYTES - total) return "tensors too large";
    total += j->p[k].bytes;
  }
  if (j->slot_bytes > MAX_JOB_BYTES) return "slot buffer too large";
  if ((j->ffts_cube || j->ffts_vec) && !j->slot_bytes) return "an FFTS base without a slot buffer";
  return NULL;
}

/* ---- stage 1: ptoas ------------------------------------------------------------------ */

static void ptoas_all(Run *R) {
  Proc *ps = calloc((size_t)R->n, sizeof *ps);
  char(*paths)[4][PATH_MAX] = calloc((size_t)R->n, sizeof *paths);   /* pto, cpp, out, err */
  char(*arch)[24] = calloc((size_t)R->n, sizeof *arch);
  const char *(*argv)[8] = calloc((size_t)R->n, sizeof *argv);
  int *idx = calloc((size_t)R->n, sizeof *idx);
  int m = 0;
  if (!ps || !paths || !arch || !argv || !idx) {
    end_live_oom(R);
    goto done;
  }
  for (int i = 0; i < R->n; i++) {
    if (!R->live[i]) continue;
    RealJob *j = &R->jobs[i];
    char(*pp)[PATH_MAX] = paths[m];
    if (!jpath(R, i, "pto", pp[0], PATH_MAX) || !jpath(R, i, "cpp", pp[1], PATH_MAX) ||
        !jpath(R, i, "ptoas.out", pp[2], PATH_MAX) || !jpath(R, i, "ptoas.err", pp[3], PATH_MAX) ||
        !write_file(pp[0], j->pto, strlen(j->pto))) {
      job_end(R, i, RS_TOOL_ERROR, "cannot write %s: %s", pp[0], strerror(errno));
      continue;
    }
    fmt(arch[m], sizeof arch[m], "--pto-arch=%s", j->arch);
    const char **a = argv[m];
    a[0] = R->t->ptoas, a[1] = arch[m], a[2] = pp[0], a[3] = "-o", a[4] = pp[1], a[5] = NULL;
    if (j->pypto) a[5] = "--enable-insert-sync", a[6] = "--pto-level=level3", a[7] = NULL;
    ps[m] = (Proc){.argv = a, .out = pp[2], .err = pp[3], .cwd = R->work, .limit_s = PTOAS_LIMIT_S};
    idx[m++] = i;
  }
  procs_run(ps, m, R->par);
  for (int k = 0; k < m; k++) {
    int i = idx[k];
    Proc *p = &ps[k];
    R->jobs[i].t_ptoas = p->ms;
    if (p->spawn_errno) {
      job_end(R, i, RS_TOOL_ERROR, "cannot run ptoas %s: %s", R->t->ptoas, strerror(p->spawn_errno));
      continue;
    }
    if (p->timed_out) {
      job_end(R, i, RS_PTOAS_CRASH, "ptoas timed out after %d s", PTOAS_LIMIT_S);
      continue;
    }
    struct stat st;
    bool exit0 = WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
    if (exit0 && stat(paths[k][1], &st) == 0 && st.st_size > 0) continue;   /* on to the compiler */
    char *err = read_part(paths[k][3], LOG_MAX, false, NULL);
    char *out = read_part(paths[k][2], LOG_MAX, false, NULL);
    const char *e = err ? err : "";
    bool crash = !WIFEXITED(p->status) || WEXITSTATUS(p->status) >= 128 || strstr(e, "Assertion") ||
                 strstr(e, "LLVM ERROR") || strstr(e, "Stack dump") ||
                 (out && (strstr(out, "Assertion") || strstr(out, "LLVM ERROR") || strstr(out, "Stack dump")));
    const char *l = NULL;
    char line[sizeof R->jobs[i].msg], sig[32];
    if (crash) {
      l = line_with(e, "Assertion", false);
      if (!l) l = line_with(e, "LLVM ERROR", false);
    }
    if (!l) l = line_with(e, ": error: ", false);
    if (!l) l = line_with(e, "error", true);
    if (!l) l = first_line(e);
    if (!l && out) l = first_line(out);
    line_of(l ? l : "", line, sizeof line);
    /* MLIR's `loc("FILE":L:C): error: ...`: the location names our file */
    char *at = strstr(line, ": error: ");
    if (at && !crash) memmove(line, at + 2, strlen(at + 2) + 1);
    if (exit0)
      job_end(R, i, RS_PTOAS_CRASH, "ptoas exited 0 but wrote no C++%s%s", *line ? ": " : "", line);
    else if (!WIFEXITED(p->status))
      job_end(R, i, RS_PTOAS_CRASH, "ptoas killed by %s%s%s", signame(WTERMSIG(p->status), sig, sizeof sig),
              *line ? ": " : "", line);
    else if (crash)
      job_end(R, i, RS_PTOAS_CRASH, "ptoas exit %d: %s", WEXITSTATUS(p->status), *line ? line : "no output");
    else
      job_end(R, i, RS_REJECT, "%s", *line ? line : "ptoas failed without a message");
    free(err);
    free(out);
  }
done:
  free(ps);
  free(paths);
  free(arch);
  free(argv);
  free(idx);
}

/* ---- stage 2: the precompiled header ---------------------------------------------------- */

typedef struct {
  uint64_t h;
} Hash;

static void hash_bytes(Hash *h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h->h = (h->h ^ c[i]) * 0x100000001b3ull;
}
static void hash_str(Hash *h, const char *s) { hash_bytes(h, s, strlen(s) + 1); }
static void hash_stat(Hash *h, const struct stat *st) {
  int64_t v[3] = {(int64_t)st->st_size, (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec};
  hash_bytes(h, v, sizeof v);
}

/* Every header's size and time: an edited pto-isa needs a new PCH (clang would refuse the old). */
static void hash_tree(Hash *h, const char *dir, int depth) {
  DIR *d = depth < 16 ? opendir(dir) : NULL;
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub[PATH_MAX];
    struct stat st;
    if (!fmt(sub, sizeof sub, "%s/%s", dir, e->d_name) || stat(sub, &st) != 0) continue;
    hash_str(h, e->d_name);
    if (S_ISDIR(st.st_mode)) hash_tree(h, sub, depth + 1);
    else hash_stat(h, &st);
  }
  closedir(d);
}

/* Sets R->pch to a usable precompiled pto/pto-inst.hpp, building it into the
 * cache if needed; leaves it empty when it cannot be built (compiles still work,
 * only slower). */
static void pch_get(Run *R) {
  R->pch[0] = 0;
  Hash h = {0xcbf29ce484222325ull};
  struct stat st;
  hash_str(&h, R->t->cxx);
  if (stat(R->t->cxx, &st) == 0) hash_stat(&h, &st);
  for (int i = 0; i < NFLAGS; i++) hash_str(&h, cxx_flags[i]);
  hash_str(&h, R->inc);
  char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX], hdr[PATH_MAX];
  if (fmt(dir, sizeof dir, "%s/pto", R->inc)) hash_tree(&h, dir, 0);
  if (!fmt(path, sizeof path, "%s/pto-inst-%016llx.pch", R->t->cache, (unsigned long long)h.h) ||
      !fmt(hdr, sizeof hdr, "%s/pto/pto-inst.hpp", R->inc))
    return;
  if (is_file(path)) {
    copy_str(R->pch, sizeof R->pch, path);
    return;
  }
  /* a private name, renamed into place: ptofuzz processes share the cache */
  if (!fmt(tmp, sizeof tmp, "%s/.pto-inst-%016llx.XXXXXX", R->t->cache, (unsigned long long)h.h)) return;
  int fd = mkstemp(tmp);
  if (fd < 0) return;
  close(fd);
  char log[PATH_MAX];
  if (!fmt(log, sizeof log, "%s/pch.log", R->work)) {
    unlink(tmp);
    return;
  }
  const char *argv[NFLAGS + 10];
  int a = 0;
  argv[a++] = R->t->cxx;
  for (int i = 0; i < NFLAGS; i++) argv[a++] = cxx_flags[i];
  argv[a++] = "-I", argv[a++] = R->inc, argv[a++] = "-x", argv[a++] = "c++-header";
  argv[a++] = hdr, argv[a++] = "-o", argv[a++] = tmp, argv[a] = NULL;
  Proc p = {.argv = argv, .out = log, .err = log, .cwd = R->work, .limit_s = PCH_LIMIT_S};
  procs_run(&p, 1, 1);
  if (!p.spawn_errno && !p.timed_out && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0 && is_file(tmp) &&
      rename(tmp, path) == 0)
    copy_str(R->pch, sizeof R->pch, path);
  else
    unlink(tmp);
}

/* ---- stage 3: compiling batches into programs --------------------------------------------- */

typedef struct {
  int *job;                                     /* global job indices */
  int n;
} Unit;

typedef struct {
  int lo, hi, lo2, hi2;                         /* the harness lines that belong to a job */
} Lines;

typedef struct {
  int id;
  char src[PATH_MAX], bin[PATH_MAX], log[PATH_MAX];
  const char *argv[NFLAGS + 16];
  Lines *lines;
  bool pch;
} UnitRun;

/* A kernel program runs in a fixed environment. Memory that pto-isa's simulation
 * allocates and a wrong kernel reads before writing holds one byte pattern (malloc
 * perturbation, with the per-thread cache that would bypass it switched off), so
 * such a read gives the same wrong answer in every batch and on every machine,
 * not whatever the heap held. */
static const char *const run_env[] = {
    "GLIBC_TUNABLES=glibc.malloc.perturb=165:glibc.malloc.tcache_count=0",
    "PATH=/usr/bin:/bin",
    "LC_ALL=C",
    NULL,
};

static const char harness_main[] =
    "namespace {\n"
    "int pfz_fail(const char *what) {\n"
    "  std::fprintf(stderr, \"ptofuzz harness: %s\\n\", what);\n"
    "  return 125;\n"
    "}\n"
    "void pfz_call(void (*fn)(void **), void **b, uint32_t sub, uint32_t dim) {\n"
    "  pto::cpu_sim::set_execution_context(0, sub, dim);\n"
    "  try {\n"
    "    fn(b);\n"
    "  } catch (const std::exception &e) {\n"
    "    std::fprintf(stderr, \"uncaught exception: %s\\n\", e.what());\n"
    "    std::fflush(stderr);\n"
    "    std::_Exit(3);\n"
    "  } catch (...) {\n"
    "    std::fprintf(stderr, \"uncaught exception\\n\");\n"
    "    std::fflush(stderr);\n"
    "    std::_Exit(3);\n"
    "  }\n"
    "}\n"
    "// A GM tensor ends where an inaccessible page begins; the bytes from the page\n"
    "// before it to the tensor's first byte and from its last byte to the guard are a\n"
    "// canary. An access past the page faults, a write into the canary is found after\n"
    "// the run: either way a write outside a tensor is the same finding every run,\n"
    "// not a heap corruption that glibc may or may not notice.\n"
    "const unsigned char PFZ_CANARY = 0xa5;\n"
    "struct PfzGm {\n"
    "  unsigned char *map = nullptr, *body = nullptr, *p = nullptr;\n"
    "  size_t len = 0, bodylen = 0, n = 0;\n"
    "};\n"
    "void *pfz_alloc(size_t n, PfzGm &g) {\n"
    "  size_t pg = (size_t)sysconf(_SC_PAGESIZE);\n"
    "  size_t r = n ? (n + 511) / 512 * 512 : 512;\n"
    "  g.bodylen = (r + pg - 1) / pg * pg;\n"
    "  g.len = g.bodylen + 2 * pg;\n"
    "  void *m = mmap(nullptr, g.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "  if (m == MAP_FAILED) return nullptr;\n"
    "  g.map = (unsigned char *)m;\n"
    "  g.body = g.map + pg;\n"
    "  if (mprotect(g.map, pg, PROT_NONE) || mprotect(g.body + g.bodylen, pg, PROT_NONE)) return nullptr;\n"
    "  std::memset(g.body, PFZ_CANARY, g.bodylen);\n"
    "  g.p = g.body + g.bodylen - r;\n"
    "  g.n = n;\n"
    "  std::memset(g.p, 0, n);\n"
    "  return g.p;\n"
    "}\n"
    "bool pfz_intact(const PfzGm &g) {\n"
    "  for (unsigned char *q = g.body; q < g.body + g.bodylen; q++)\n"
    "    if ((q < g.p || q >= g.p + g.n) && *q != PFZ_CANARY) return false;\n"
    "  return true;\n"
    "}\n"
    "}  // namespace\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "  if (argc != 4) return pfz_fail(\"usage: PROGRAM INDEX IN OUT\");\n"
    "  const PfzJob *j = nullptr;\n"
    "  for (const PfzJob &c : pfz_jobs)\n"
    "    if (c.index == std::atoi(argv[1])) j = &c;\n"
    "  if (!j) return pfz_fail(\"no such job\");\n"
    "  size_t total = 0;\n"
    "  for (int k = 0; k < j->np; k++) total += j->bytes[k];\n"
    "  std::vector<unsigned char> in(total + 1);\n"
    "  FILE *f = std::fopen(argv[2], \"rb\");\n"
    "  if (!f) return pfz_fail(\"cannot open the input\");\n"
    "  size_t got = std::fread(in.data(), 1, total + 1, f);\n"
    "  std::fclose(f);\n"
    "  if (got != total) return pfz_fail(\"the input has the wrong size\");\n"
    "  std::vector<void *> b(j->np + 2, nullptr);\n"
    "  std::vector<PfzGm> g(j->np + 2);\n"
    "  size_t off = 0;\n"
    "  for (int k = 0; k < j->np; k++) {\n"
    "    if (!(b[k] = pfz_alloc(j->bytes[k], g[k]))) return pfz_fail(\"out of memory\");\n"
    "    if (j->bytes[k]) std::memcpy(b[k], in.data() + off, j->bytes[k]);\n"
    "    off += j->bytes[k];\n"
    "  }\n"
    "  if (j->slot && !(b[j->np] = pfz_alloc(j->slot, g[j->np]))) return pfz_fail(\"out of memory\");\n"
    "  if (j->ffts && !(b[j->np + 1] = pfz_alloc(j->ffts, g[j->np + 1]))) return pfz_fail(\"out of memory\");\n"
    "  pto::NPUMemoryModel::SetDefaultArch(j->a5 ? pto::NPUArch::A5 : pto::NPUArch::A2A3);\n"
    "  std::vector<std::thread> th;\n"
    "  try {\n"
    "    if (j->cube) th.emplace_back(pfz_call, j->cube, b.data(), 0u, 1u);\n"
    "    if (j->vec)\n"
    "      for (int l = 0; l < j->lanes; l++) th.emplace_back(pfz_call, j->vec, b.data(), (uint32_t)l, (uint32_t)j->lanes);\n"
    "  } catch (...) {\n"
    "    std::fprintf(stderr, \"ptofuzz harness: cannot start threads\\n\");\n"
    "    std::fflush(stderr);\n"
    "    std::_Exit(125);\n"
    "  }\n"
    "  for (auto &t : th) t.join();\n"
    "  for (int k = 0; k <= j->np + 1; k++)\n"
    "    if (b[k] && !pfz_intact(g[k])) {\n"
    "      std::fprintf(stderr, \"ptofuzz harness: a write outside %s\\n\",\n"
    "                   k < j->np ? \"a GM tensor\" : k == j->np ? \"the pipe slot buffer\" : \"the FFTS base\");\n"
    "      std::fflush(stderr);\n"
    "      std::_Exit(124);  // HARNESS_OOB\n"
    "    }\n"
    "  FILE *o = std::fopen(argv[3], \"wb\");\n"
    "  if (!o) return pfz_fail(\"cannot create the output\");\n"
    "  bool ok = true;\n"
    "  for (int k = 0; k < j->np; k++)\n"
    "    if (j->bytes[k] && std::fwrite(b[k], 1, j->bytes[k], o) != j->bytes[k]) ok = false;\n"
    "  if (std::fclose(o) != 0 || !ok) return pfz_fail(\"cannot write the output\");\n"
    "  for (PfzGm &m : g)\n"
    "    if (m.map) munmap(m.map, m.len);\n"
    "  return 0;\n"
    "}\n";

/* One call of a job's function with every tensor (and the slot buffer, and
 * the FFTS base when the function takes one), each argument converting to
 * whatever pointer type ptoas declared the parameter as (float*, half* =
 * _Float16*, int32_t*, ...). */
static void emit_call(Buf *b, const char *side, int i, const RealJob *j, const char *fn, bool ffts) {
  buf_add(b, "void pfz_%s_%d(void **b) { pfz_job%d::%s(", side, i, i, fn);
  int nargs = j->np + (j->slot_bytes > 0) + ffts;
  for (int k = 0; k < nargs; k++) buf_add(b, "%sPfzArg{b[%d]}", k ? ", " : "", k);
  buf_add(b, "); }\n");
}

/* Writes the program of unit u: each job's C++ inside a namespace of its own (its
 * #include of pto/pto-inst.hpp is then a no-op: the guard is already defined),
 * the calls, a table of jobs and main. */
static bool unit_write(const Run *R, const Unit *u, UnitRun *ur) {
  Buf b = {0};
  bool comm = false;
  for (int k = 0; k < u->n; k++) {
    char cpp[PATH_MAX];
    char *text = jpath(R, u->job[k], "cpp", cpp, sizeof cpp) ? read_part(cpp, LOG_MAX, false, NULL) : NULL;
    if (text && strstr(text, "pto/comm/pto_comm_inst.hpp")) comm = true;
    free(text);
  }
  buf_add(&b, "// generated by ptofuzz (oracle/real.c)\n#include \"pto/pto-inst.hpp\"\n");
  if (comm) buf_add(&b, "#include \"pto/comm/pto_comm_inst.hpp\"\n");
  buf_add(&b, "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <exception>\n"
              "#include <thread>\n#include <vector>\n#include <sys/mman.h>\n#include <unistd.h>\n\n");
  for (int k = 0; k < u->n; k++) {
    int i = u->job[k];
    char cpp[PATH_MAX];
    jpath(R, i, "cpp", cpp, sizeof cpp);
    ur->lines[k].lo = b.lines + 1;
    /* ptoas's collective-op prologue #defines PIPE_FIX; it must not leak into the next job */
    buf_add(&b, "namespace pfz_job%d {\n#include \"%s\"\n}  // namespace pfz_job%d\n#undef PIPE_FIX\n", i, cpp, i);
    ur->lines[k].hi = b.lines;
  }
  buf_add(&b, "\nnamespace {\n"
              "struct PfzArg {\n"
              "  void *p;\n"
              "  template <class T> operator T *() const { return static_cast<T *>(p); }\n"
              "};\n"
              "struct PfzJob {\n"
              "  int index, np, lanes, a5;\n"
              "  size_t slot, ffts;\n"
              "  const size_t *bytes;\n"
              "  void (*cube)(void **), (*vec)(void **);\n"
              "};\n");
  for (int k = 0; k < u->n; k++) {
    int i = u->job[k];
    const RealJob *j = &R->jobs[i];
    ur->lines[k].lo2 = b.lines + 1;
    buf_add(&b, "const size_t pfz_bytes_%d[] = {", i);
    for (int q = 0; q < j->np; q++) buf_add(&b, "%s%zu", q ? ", " : "", j->p[q].bytes);
    buf_add(&b, "%s};\n", j->np ? "" : "0");
    if (j->fn_cube) emit_call(&b, "cube", i, j, j->fn_cube, j->ffts_cube);
    if (j->fn_vec) emit_call(&b, "vec", i, j, j->fn_vec, j->ffts_vec);
    ur->lines[k].hi2 = b.lines;
  }
  buf_add(&b, "const PfzJob pfz_jobs[] = {\n");
  for (int k = 0; k < u->n; k++) {
    int i = u->job[k];
    const RealJob *j = &R->jobs[i];
    char cube[48] = "nullptr", vec[48] = "nullptr";
    if (j->fn_cube) fmt(cube, sizeof cube, "pfz_cube_%d", i);
    if (j->fn_vec) fmt(vec, sizeof vec, "pfz_vec_%d", i);
    buf_add(&b, "    {%d, %d, %d, %d, %zu, %d, pfz_bytes_%d, %s, %s},\n", i, j->np, j->fn_vec ? j->lanes : 0,
            !strcmp(j->arch, "a5"), j->slot_bytes, j->ffts_cube || j->ffts_vec ? PTO_FFTS_BYTES : 0, i, cube, vec);
  }
  buf_add(&b, "};\n}  // namespace\n\n%s", harness_main);
  bool ok = !b.bad && write_file(ur->src, b.s, b.n);
  free(b.s);
  return ok;
}

/* The job (global index) a diagnostic location belongs to, or -1. */
static int loc_job(const Run *R, const Unit *u, const UnitRun *ur, const char *file, int line) {
  size_t w = strlen(R->work);
  if (!strncmp(file, R->work, w) && file[w] == '/') {
    int i;
    char tail;
    if (sscanf(file + w + 1, "job%d.cp%c", &i, &tail) == 2 && tail == 'p')
      for (int k = 0; k < u->n; k++)
        if (u->job[k] == i) return i;
  }
  if (!strcmp(file, ur->src))
    for (int k = 0; k < u->n; k++) {
      const Lines *l = &ur->lines[k];
      if ((line >= l->lo && line <= l->hi) || (line >= l->lo2 && line <= l->hi2)) return u->job[k];
    }
  return -1;
}

/* Splits clang's "FILE:LINE:COL: KIND: " at kind (which points at ": KIND: "). */
static bool parse_loc(const char *line, const char *kind, char *file, size_t n, int *lineno) {
  const char *e = kind, *c1 = NULL, *c2 = NULL;
  int seg = 0;
  for (const char *q = e - 1; q >= line && seg < 2; q--) {
    if (*q == ':') {
      if (seg == 0) c2 = q;
      else c1 = q;
      seg++;
    } else if (*q < '0' || *q > '9') {
      break;
    }
  }
  if (!c2 || c2 + 1 == e) return false;
  const char *end = c1 && c1 + 1 < c2 ? c1 : c2;   /* FILE:LINE:COL or FILE:LINE */
  if (end == line || (size_t)(end - line) >= n) return false;
  memcpy(file, line, (size_t)(end - line));
  file[end - line] = 0;
  *lineno = atoi(end + 1);
  return true;
}

/* The message a job gets for the error on `line`: "FILE: error: TEXT", FILE
 * being kernel.cpp (ptoas's output), harness.cpp or a pto-isa header. */
static void error_msg(const Run *R, const UnitRun *ur, const char *kind, const char *file, char *msg, size_t n) {
  char text[512];
  line_of(kind + 2, text, sizeof text);
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  size_t w = strlen(R->work);
  if (!strcmp(file, ur->src)) base = "harness.cpp";
  else if (!strncmp(file, R->work, w) && !strncmp(base, "job", 3)) base = "kernel.cpp";
  fmt(msg, n, "%s: %s", base, text);
}

/* Ends the error group of job gjob (-1: unknown). The driver's "linker command
 * failed" only sums up the linker's errors before it. */
static void group_end(Run *R, int gjob, const char *gmsg, int *attributed, bool *unattributed) {
  if (gjob >= 0) {
    if (R->live[gjob]) job_end(R, gjob, RS_CXX_ERROR, "%s", gmsg);
    ++*attributed;
  } else if (!strstr(gmsg, "linker command failed")) {
    *unattributed = true;
  }
}

/* Gives the jobs of a failed unit that clang's errors name their RS_CXX_ERROR;
 * true when some error could not be pinned on a job, or none could (the rest
 * must then be compiled one by one). *first gets the first error line. */
static bool attribute(Run *R, const Unit *u, const UnitRun *ur, const char *log, char *first, size_t fn) {
  bool unattributed = false, in_group = false;
  int attributed = 0;
  int gjob = -1;
  char gmsg[512] = "", file[PATH_MAX];
  *first = 0;
  for (const char *l = log; l && *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    char line[2048];
    if (len >= sizeof line) len = sizeof line - 1;
    memcpy(line, l, len);
    line[len] = 0;
    l = nl ? nl + 1 : NULL;

    const char *ek = strstr(line, ": error: ");
    if (!ek) ek = strstr(line, ": fatal error: ");
    const char *nk = strstr(line, ": note: ");
    const char *wk = strstr(line, ": warning: ");
    int lineno = 0;
    bool located = false;
    if (ek) located = parse_loc(line, ek, file, sizeof file, &lineno);
    if (ek || wk || !strncmp(line, "In file included from", 21) || strstr(line, "undefined reference")) {
      if (in_group) group_end(R, gjob, gmsg, &attributed, &unattributed);   /* its notes are over */
      in_group = false;
    }
    if (ek) {
      in_group = true;
      gjob = located ? loc_job(R, u, ur, file, lineno) : -1;
      if (located) error_msg(R, ur, ek, file, gmsg, sizeof gmsg);
      else line_of(line, gmsg, sizeof gmsg);
      if (!*first) copy_str(first, fn, gmsg);
    } else if (strstr(line, "undefined reference")) {
      /* the linker: `undefined reference to `pfz_jobN::fn(...)'` */
      const char *q = strstr(line, "pfz_job");
      int i = -1;
      if (q && sscanf(q, "pfz_job%d::", &i) == 1)
        for (int k = 0; k < u->n; k++)
          if (u->job[k] == i) gjob = i;
      in_group = true;
      if (!q || gjob != i) gjob = -1;
      const char *t = strstr(line, "undefined reference");
      fmt(gmsg, sizeof gmsg, "link: %s", t);
      if (!*first) copy_str(first, fn, gmsg);
    } else if (nk && in_group && gjob < 0 && parse_loc(line, nk, file, sizeof file, &lineno)) {
      /* an error in a pto-isa template: the instantiation chain leads to the job */
      gjob = loc_job(R, u, ur, file, lineno);
    }
  }
  if (in_group) group_end(R, gjob, gmsg, &attributed, &unattributed);
  if (!*first) {
    const char *l = first_line(log);
    line_of(l ? l : "the C++ compiler failed without a message", first, fn);
  }
  return unattributed || !attributed;
}

static bool unit_add(Unit **v, int *n, const int *job, int k) {
  Unit *nv = realloc(*v, (size_t)(*n + 1) * sizeof **v);
  if (!nv) return false;
  *v = nv;
  int *j = malloc((size_t)k * sizeof *j);
  if (!j) return false;
  memcpy(j, job, (size_t)k * sizeof *j);
  (*v)[(*n)++] = (Unit){j, k};
  return true;
}

/* Queues the jobs of u still live, as one unit or (alone) each on its own. */
static void requeue(Run *R, const Unit *u, bool alone, Unit **next, int *nnext) {
  int *keep = malloc((size_t)u->n * sizeof *keep), m = 0;
  if (!keep) {
    for (int k = 0; k < u->n; k++)
      if (R->live[u->job[k]]) job_end(R, u->job[k], RS_TOOL_ERROR, "out of memory");
    return;
  }
  for (int k = 0; k < u->n; k++)
    if (R->live[u->job[k]]) keep[m++] = u->job[k];
  bool ok = true;
  if (alone)
    for (int k = 0; k < m && ok; k++) ok = unit_add(next, nnext, &keep[k], 1);
  else if (m)
    ok = unit_add(next, nnext, keep, m);
  if (!ok)
    for (int k = 0; k < m; k++)
      if (R->live[keep[k]]) job_end(R, keep[k], RS_TOOL_ERROR, "out of memory");
  free(keep);
}

static bool compiler_crashed(const char *log) {
  return log && (strstr(log, "clang frontend command failed") || strstr(log, "PLEASE submit a bug report") ||
                 strstr(log, "Stack dump:") || strstr(log, "internal compiler error"));
}

/* What became of one unit's compile: final stages, or units for the next round. */
static void unit_done(Run *R, const Unit *u, UnitRun *ur, const Proc *p, Unit **next, int *nnext) {
  for (int k = 0; k < u->n; k++) R->jobs[u->job[k]].t_cxx += p->ms / u->n;
  if (p->spawn_errno) {
    for (int k = 0; k < u->n; k++)
      job_end(R, u->job[k], RS_TOOL_ERROR, "cannot run the C++ compiler %s: %s", R->t->cxx, strerror(p->spawn_errno));
    return;
  }
  char *log = read_part(ur->log, LOG_MAX, false, NULL);
  char sig[32], line[512] = "";
  bool exit0 = !p->timed_out && WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
  if (p->timed_out || (!exit0 && (!WIFEXITED(p->status) || compiler_crashed(log)))) {
    if (u->n > 1) {                             /* which job's code did it? compile each alone */
      requeue(R, u, true, next, nnext);
    } else if (p->timed_out) {
      job_end(R, u->job[0], RS_CXX_CRASH, "the C++ compiler timed out after %d s", CXX_LIMIT_S);
    } else {
      const char *l = log ? line_with(log, "PLEASE submit", false) : NULL;
      if (log && !l) l = line_with(log, "error", true);
      line_of(l ? l : "", line, sizeof line);
      if (!WIFEXITED(p->status))
        job_end(R, u->job[0], RS_CXX_CRASH, "the C++ compiler was killed by %s%s%s",
                signame(WTERMSIG(p->status), sig, sizeof sig), *line ? ": " : "", line);
      else
        job_end(R, u->job[0], RS_CXX_CRASH, "the C++ compiler crashed: %s", line);
    }
  } else if (exit0) {
    if (is_file(ur->bin)) {
      for (int k = 0; k < u->n; k++) R->prog[u->job[k]] = ur->id;
    } else {
      for (int k = 0; k < u->n; k++)
        job_end(R, u->job[k], RS_TOOL_ERROR, "the C++ compiler succeeded but wrote no program");
    }
  } else if (ur->pch && log && (strstr(log, R->pch) || strstr(log, "precompiled header") || strstr(log, "PCH file"))) {
    /* a stale or broken PCH is the toolchain's problem: rebuild next time, go on without */
    unlink(R->pch);
    R->pch[0] = 0;
    requeue(R, u, false, next, nnext);
  } else {
    bool unattributed = attribute(R, u, ur, log ? log : "", line, sizeof line);
    if (u->n == 1 && R->live[u->job[0]]) job_end(R, u->job[0], RS_CXX_ERROR, "%s", line);
    else requeue(R, u, unattributed, next, nnext);
  }
  free(log);
}

static void compile_all(Run *R) {
  Unit *pend = NULL, *next = NULL;
  int npend = 0, nnext = 0;
  int *ok = malloc((size_t)R->n * sizeof *ok), m = 0;
  if (!ok) {
    end_live_oom(R);
    return;
  }
  for (int i = 0; i < R->n; i++)
    if (R->live[i]) ok[m++] = i;
  for (int k = 0; k < m; k += R->batch)
    if (!unit_add(&pend, &npend, ok + k, m - k < R->batch ? m - k : R->batch))
      for (int q = k; q < m && q < k + R->batch; q++) job_end(R, ok[q], RS_TOOL_ERROR, "out of memory");
  free(ok);

  while (npend > 0) {
    Proc *ps = calloc((size_t)npend, sizeof *ps);
    UnitRun *ur = calloc((size_t)npend, sizeof *ur);
    bool *ran = calloc((size_t)npend, sizeof *ran);
    int nrun = 0;
    int *which = calloc((size_t)npend, sizeof *which);
    for (int u = 0; u < npend && ps && ur && ran && which; u++) {
      UnitRun *r = &ur[u];
      r->id = R->nprog++;
      r->pch = R->pch[0] != 0;
      r->lines = calloc((size_t)pend[u].n, sizeof *r->lines);
      if (!r->lines || !fmt(r->src, sizeof r->src, "%s/prog%d.cpp", R->work, r->id) ||
          !fmt(r->bin, sizeof r->bin, "%s/prog%d", R->work, r->id) ||
          !fmt(r->log, sizeof r->log, "%s/prog%d.log", R->work, r->id) || !unit_write(R, &pend[u], r)) {
        for (int k = 0; k < pend[u].n; k++)
          job_end(R, pend[u].job[k], RS_TOOL_ERROR, "cannot write the harness %s", r->src);
        continue;
      }
      int a = 0;
      r->argv[a++] = R->t->cxx;
      for (int i = 0; i < NFLAGS; i++) r->argv[a++] = cxx_flags[i];
      r->argv[a++] = "-I", r->argv[a++] = R->inc;
      if (r->pch) r->argv[a++] = "-include-pch", r->argv[a++] = R->pch;
      r->argv[a++] = "-ferror-limit=0", r->argv[a++] = "-fno-color-diagnostics";
      r->argv[a++] = r->src, r->argv[a++] = "-o", r->argv[a++] = r->bin, r->argv[a++] = "-lpthread";
      r->argv[a] = NULL;
      ps[nrun] = (Proc){.argv = r->argv, .out = r->log, .err = r->log, .cwd = R->work, .limit_s = CXX_LIMIT_S};
      which[nrun++] = u;
      ran[u] = true;
    }
    if (!ps || !ur || !ran || !which) {
      for (int u = 0; u < npend; u++)
        for (int k = 0; k < pend[u].n; k++)
          if (R->live[pend[u].job[k]]) job_end(R, pend[u].job[k], RS_TOOL_ERROR, "out of memory");
    } else {
      procs_run(ps, nrun, R->par);
      for (int k = 0; k < nrun; k++) unit_done(R, &pend[which[k]], &ur[which[k]], &ps[k], &next, &nnext);
    }
    for (int u = 0; u < npend; u++) {
      if (ur) free(ur[u].lines);
      free(pend[u].job);
    }
    free(pend);
    free(ps);
    free(ur);
    free(ran);
    free(which);
    pend = next, npend = nnext;
    next = NULL, nnext = 0;
  }
}

/* ---- stage 4: running -------------------------------------------------------------------- */

static void run_all(Run *R) {
  Proc *ps = calloc((size_t)R->n, sizeof *ps);
  char(*paths)[5][PATH_MAX] = calloc((size_t)R->n, sizeof *paths);   /* bin, in, out, stdout, stderr */
  char(*index)[16] = calloc((size_t)R->n, sizeof *index);
  const char *(*argv)[5] = calloc((size_t)R->n, sizeof *argv);
  int *idx = calloc((size_t)R->n, sizeof *idx), m = 0;
  if (!ps || !paths || !index || !argv || !idx) {
    end_live_oom(R);
    goto done;
  }
  for (int i = 0; i < R->n; i++) {
    if (!R->live[i]) continue;
    RealJob *j = &R->jobs[i];
    char(*pp)[PATH_MAX] = paths[m];
    bool ok = fmt(pp[0], PATH_MAX, "%s/prog%d", R->work, R->prog[i]) && jpath(R, i, "in", pp[1], PATH_MAX) &&
              jpath(R, i, "out", pp[2], PATH_MAX) && jpath(R, i, "run.out", pp[3], PATH_MAX) &&
              jpath(R, i, "run.err", pp[4], PATH_MAX);
    int fd = ok ? open(pp[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    ok = fd >= 0;
    for (int k = 0; k < j->np && ok; k++) ok = !j->p[k].bytes || write_all(fd, j->p[k].init, j->p[k].bytes);
    if (fd >= 0 && close(fd) != 0) ok = false;
    if (!ok) {
      job_end(R, i, RS_TOOL_ERROR, "cannot write the input %s: %s", pp[1], strerror(errno));
      continue;
    }
    fmt(index[m], sizeof index[m], "%d", i);
    const char **a = argv[m];
    a[0] = pp[0], a[1] = index[m], a[2] = pp[1], a[3] = pp[2], a[4] = NULL;
    size_t total = 0;
    for (int k = 0; k < j->np; k++) total += j->p[k].bytes;
    ps[m] = (Proc){.argv = a, .out = pp[3], .err = pp[4], .cwd = R->work, .limit_s = R->run_limit_s,
                   .max_file = total + (64u << 20), .envp = run_env};
    idx[m++] = i;
  }
  procs_run(ps, m, R->par);
  for (int k = 0; k < m; k++) {
    int i = idx[k];
    RealJob *j = &R->jobs[i];
    Proc *p = &ps[k];
    j->t_run = p->ms;
    if (p->spawn_errno) {
      job_end(R, i, RS_TOOL_ERROR, "cannot run %s: %s", paths[k][0], strerror(p->spawn_errno));
      continue;
    }
    if (p->timed_out) {
      job_end(R, i, RS_RUN_HANG, "ran past the %g s limit", R->run_limit_s);
      continue;
    }
    if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0) {
      /* pto-isa's checks are assert()s: the last line says which */
      char *err = read_part(paths[k][4], 64 << 10, true, NULL);
      const char *l = err ? last_line(err) : NULL;
      char line[400] = "", sig[32];
      line_of(l ? l : "", line, sizeof line);
      /* assert() starts with the program's name, which varies by batch */
      const char *prog = strrchr(paths[k][0], '/') + 1;
      size_t pl = strlen(prog);
      if (!strncmp(line, prog, pl) && !strncmp(line + pl, ": ", 2)) memmove(line, line + pl + 2, strlen(line + pl + 2) + 1);
      if (!WIFEXITED(p->status))
        job_end(R, i, RS_RUN_CRASH, "%s%s%s", signame(WTERMSIG(p->status), sig, sizeof sig), *line ? ": " : "", line);
      else if (WEXITSTATUS(p->status) == HARNESS_OOB)   /* the harness's line, without its "ptofuzz harness: " */
        job_end(R, i, RS_RUN_CRASH, "%s", strstr(line, "a write outside") ? strstr(line, "a write outside") : line);
      else if (WEXITSTATUS(p->status) == HARNESS_FAIL)
        job_end(R, i, RS_TOOL_ERROR, "%s", *line ? line : "the harness failed");
      else
        job_end(R, i, RS_RUN_CRASH, "exit %d%s%s", WEXITSTATUS(p->status), *line ? ": " : "", line);
      free(err);
      continue;
    }
    size_t total = 0, len = 0;
    for (int q = 0; q < j->np; q++) total += j->p[q].bytes;
    char *out = read_part(paths[k][2], total + 1, false, &len);
    if (!out || len != total) {
      job_end(R, i, RS_TOOL_ERROR, "the program wrote %zu bytes of output, %zu expected", out ? len : 0, total);
      free(out);
      continue;
    }
    size_t off = 0;
    bool oom = false;
    for (int q = 0; q < j->np; q++) {
      j->p[q].out = malloc(j->p[q].bytes ? j->p[q].bytes : 1);
      if (!j->p[q].out) oom = true;
      else if (j->p[q].bytes) memcpy(j->p[q].out, out + off, j->p[q].bytes);
      off += j->p[q].bytes;
    }
    free(out);
    if (oom) {
      for (int q = 0; q < j->np; q++) {
        free(j->p[q].out);
        j->p[q].out = NULL;
      }
      job_end(R, i, RS_TOOL_ERROR, "out of memory");
      continue;
    }
    job_end(R, i, RS_OK, "%s", "");
  }
done:
  free(ps);
  free(paths);
  free(index);
  free(argv);
  free(idx);
}

void orc_real_run(const RealTools *t, RealJob *jobs, int n, const RealOpts *o) {
  if (!jobs || n <= 0) return;
  Run R;
  memset(&R, 0, sizeof R);
  R.t = t;
  R.jobs = jobs;
  R.n = n;
  R.par = o && o->jobs > 0 ? o->jobs : 1;
  R.batch = o && o->batch > 0 ? o->batch : 16;
  R.run_limit_s = o && o->run_timeout_s > 0 ? o->run_timeout_s : 10;
  R.live = calloc((size_t)n, sizeof *R.live);
  R.prog = calloc((size_t)n, sizeof *R.prog);
  for (int i = 0; i < n; i++) {
    RealJob *j = &jobs[i];
    j->st = RS_TOOL_ERROR;
    fmt(j->msg, sizeof j->msg, "not run");
    j->t_ptoas = j->t_cxx = j->t_run = 0;
    for (int k = 0; j->p && k < j->np && k < MAX_PARAMS; k++) j->p[k].out = NULL;
  }
  if (!R.live || !R.prog) {
    for (int i = 0; i < n; i++) fmt(jobs[i].msg, sizeof jobs[i].msg, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) R.live[i] = true;

  const char *why = NULL;
  if (!t || !*t->ptoas || !*t->cxx || !*t->cache) why = "no toolchain (orc_real_find failed or was not called)";
  else if (!isa_include(t->isa, R.inc, sizeof R.inc)) why = "pto-isa has no pto/pto-inst.hpp";
  if (!why) {
    const char *tmp = getenv("TMPDIR");
    bool made = fmt(R.work, sizeof R.work, "%s/run-XXXXXX", t->cache) && mkdtemp(R.work);
    if (!made)
      made = fmt(R.work, sizeof R.work, "%s/ptofuzz-run-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp") && mkdtemp(R.work);
    if (!made) {
      R.work[0] = 0;
      why = "cannot create a work directory";
    }
  }
  for (int i = 0; i < n; i++) {
    const char *bad = why ? why : job_invalid(&jobs[i]);
    if (bad) job_end(&R, i, RS_TOOL_ERROR, "%s%s", why ? "" : "bad job: ", bad);
  }
  if (why) goto done;

  ptoas_all(&R);
  bool any = false;
  for (int i = 0; i < n; i++) any |= R.live[i];
  if (any) pch_get(&R);
  if (any) compile_all(&R);
  if (any) run_all(&R);

  if (o && o->keep) fprintf(stderr, "real: work directory kept: %s\n", R.work);
  else rm_rf(R.work, 0);
done:
  free(R.live);
  free(R.prog);
}
