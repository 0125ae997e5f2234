/* t_replay.c — tests of fuzz/replay.c: the in-process verdict and the forked
 * replay agree (clean seeds, and every seed with every defect on), an invalid
 * kernel is invalid with its diagnostic, the watchdog turns a replay that runs
 * too long into a hang signature, a lost child's wait status becomes the crash
 * signature campaigns use, and signature sets are distinct and bounded. */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>

static bool same(const FzVerdict *a, const FzVerdict *b) {
  if (a->invalid != b->invalid || a->finding != b->finding || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->sig[i], b->sig[i])) return false;
  return true;
}

int main(void) {
  Tap t = {0};
  DIR *d = opendir("corpus/seeds");
  if (!d) {
    printf("Bail out! run from the repository root (corpus/seeds)\n");
    return 1;
  }
  int nseeds = 0, clean = 0, agree = 0, agree_bugs = 0, findings_bugs = 0;
  Arena *A = ir_arena_new();
  Src big = {0};
  for (struct dirent *e; (e = readdir(d));) {
    size_t k = strlen(e->d_name);
    if (k < 5 || strcmp(e->d_name + k - 4, ".ptk")) continue;
    char path[512];
    snprintf(path, sizeof path, "corpus/seeds/%s", e->d_name);
    Src src;
    if (!ir_read_file(A, path, &src)) continue;
    if (src.len > big.len) big = src;
    nseeds++;
    FzReplay r = {.name = src.name, .text = src.text, .len = src.len, .sched_seed = 1};
    FzVerdict a, b;
    fz_verdict(&r, &a);
    fz_replay(&r, 60, &b);
    clean += !a.invalid && !a.finding && a.n == 0;
    agree += same(&a, &b);
    r.bugs = (1u << BUG_N) - 1;
    fz_verdict(&r, &a);
    fz_replay(&r, 60, &b);
    agree_bugs += same(&a, &b);
    findings_bugs += b.finding;
  }
  closedir(d);
  tap_ok(&t, nseeds >= 10, "replay-1.1", "the seeds are there (%d)", nseeds);
  tap_ok(&t, clean == nseeds, "replay-1.2", "every seed is clean in-process (%d of %d)", clean, nseeds);
  tap_ok(&t, agree == nseeds, "replay-1.3", "the forked replay agrees on the clean compiler (%d of %d)", agree, nseeds);
  tap_ok(&t, agree_bugs == nseeds, "replay-1.4", "and with every defect on (%d of %d; %d with findings)", agree_bugs,
         nseeds, findings_bugs);

  const char *bad = "kernel k(A: f32[4,4] in, O: f32[4,4] out) {\n  x = nope(A);\n}\n";
  FzVerdict v;
  fz_replay(&(FzReplay){.text = bad, .len = strlen(bad)}, 60, &v);
  tap_ok(&t, v.invalid && !v.finding && !strncmp(v.why, "E-", 2) && strstr(v.why, "2:"), "replay-2.1",
         "an invalid kernel is invalid, with code and location (%s)", v.why);

  fz_replay(&(FzReplay){.text = big.text, .len = big.len, .sched_seed = 1}, 1e-6, &v);
  const char *tail = "|watchdog|-|-|-";
  size_t n = v.n ? strlen(v.sig[0]) : 0, tn = strlen(tail);
  tap_ok(&t, v.n == 1 && !strncmp(v.sig[0], "hang|", 5) && n > tn && !strcmp(v.sig[0] + n - tn, tail),
         "replay-2.2", "a replay past its watchdog is killed: %s", v.n ? v.sig[0] : "(nothing)");

  memset(&v, 0, sizeof v);
  fz_verdict_lost(&v, 2, false, SIGSEGV);       /* a wait status: killed by SIGSEGV */
  fz_verdict_lost(&v, 0, false, SIGABRT);
  fz_verdict_lost(&v, 3, false, 1 << 8);        /* exit(1) */
  char want[FZ_SIGLEN];
  snprintf(want, sizeof want, "crash|up_down|%s|-|-|-", strsignal(SIGSEGV));
  tap_ok(&t, v.n == 3 && v.finding && !strcmp(v.sig[0], want) && !strncmp(v.sig[1], "crash|none|", 11) &&
                 !strcmp(v.sig[2], "crash|left_right|exit|-|-|-"),
         "replay-3.1", "a lost child gives crash|MODE|SIGNAL|-|-|- (%s; %s; %s)", v.n > 0 ? v.sig[0] : "",
         v.n > 1 ? v.sig[1] : "", v.n > 2 ? v.sig[2] : "");

  memset(&v, 0, sizeof v);
  for (int i = 0; i < 40; i++) {
    char s[32];
    snprintf(s, sizeof s, "reject|none|X%d|-|-|-", i % 20);
    fz_verdict_add(&v, s);
  }
  tap_ok(&t, v.n == FZ_MAXSIG && fz_verdict_has(&v, "reject|none|X0|-|-|-") && !fz_verdict_has(&v, "reject|none|X19|-|-|-"),
         "replay-3.2", "signatures are kept distinct, at most FZ_MAXSIG (%d)", v.n);
  ir_arena_free(A);
  return tap_done(&t);
}
