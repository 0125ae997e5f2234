/* child.c — a function run in a forked child, for the commands that must
 * survive what they run (a kernel that crashes or hangs the compiler, a real
 * tool that never returns). Consumes a function and its context; produces
 * how the child ended: exited 0, died, ran past its watchdog (hung), or was
 * stopped with the command. What the child hands back it writes to memory
 * shared with the caller (fz_shared), so a child that dies mid-way leaves
 * what it had written.
 *
 * The child dies with its parent (PR_SET_PDEATHSIG), so a command killed
 * outright leaves no worker behind. A command that stops cleanly blocks
 * SIGINT, SIGTERM and SIGHUP (orc_stop_block); the child inherits the mask,
 * so a ^C sent to the terminal's group stays pending in it too. When the
 * parent finds its own pending (orc_stop_pending) it sends the child SIGTERM,
 * which the child's real back end sees in the same way (it kills its tools'
 * process groups and removes its work directory), and kills it once
 * grace_s has passed. */
#include "fz.h"
#include "orc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void *fz_shared(size_t n) {
  void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap: %s", strerror(errno));
  return memset(p, 0, n);
}

void fz_shared_free(void *p, size_t n) { munmap(p, n); }

pid_t fz_fork_piped(int fds[2], pid_t *parent) {
  if (pipe2(fds, O_CLOEXEC)) die("pipe: %s", strerror(errno));
  fflush(NULL);
  *parent = getpid();
  pid_t pid = fork();
  if (pid < 0) die("fork: %s", strerror(errno));
  return pid;
}

bool fz_in_child(void (*fn)(void *ctx), void *ctx, FzChild *c) {
  c->st = 0;
  c->hung = false;
  c->stopped = 0;
  int fds[2];
  pid_t parent, pid = fz_fork_piped(fds, &parent);
  if (!pid) {
    close(fds[0]);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
    signal(SIGPIPE, SIG_DFL);
    fn(ctx);
    _exit(0);
  }
  close(fds[1]);
  /* The write end closes when the child ends: poll for that, up to the
   * watchdog, looking for a stop every 100 ms. */
  double deadline = fz_now() + (c->timeout_s > 0 ? c->timeout_s : 1e9);
  for (;;) {
    int sig = c->stopped ? 0 : orc_stop_pending();
    if (sig) {
      c->stopped = sig;
      deadline = fz_now() + c->grace_s;
      if (c->grace_s > 0) kill(pid, SIGTERM);
    }
    double left = deadline - fz_now();
    if (left <= 0) {
      c->hung = !c->stopped;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    int n = poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) break;
  }
  close(fds[0]);
  while (waitpid(pid, &c->st, 0) < 0 && errno == EINTR) {
  }
  return !c->hung && !c->stopped && WIFEXITED(c->st) && !WEXITSTATUS(c->st);
}
