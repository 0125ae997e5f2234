/* t_realreplay.c — tests of fuzz/replay.c's real back end (fz_real_replay):
 * several kernels in one batch come back with their own verdicts (clean, a
 * finding with its signature, invalid with its diagnostic), `only` checks one
 * variant, the shared-memory verdicts agree with an in-process orc_real_check,
 * and a batch that runs past its watchdog is checked again case by case and
 * every case comes back lost with the reason. Skipped when no real toolchain
 * is found. */
#include "fz.h"
#include "orc.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

static const char *const clean_k =
    "kernel vadd(A: f32[8,32] in, B: f32[8,32] in, O: f32[8,32] out) {\n"
    "  a = load(A, [0, 0], [8, 32]);\n"
    "  b = load(B, [0, 0], [8, 32]);\n"
    "  store(O, [0, 0], add(a, b));\n"
    "}\n";
/* corpus/real/rowsum-few-rows.ptk */
static const char *const rowsum_k =
    "kernel rowsum_few_rows(X: f32[8,32] in, R: f32[8,1] out, A: f16[16,16] in) {\n"
    "  a = load(A, [0, 0], [16, 16], space=mat);\n"
    "  x = load(X, [0, 0], [8, 32]);\n"
    "  r = row_sum(x);\n"
    "  store(R, [0, 0], r);\n"
    "}\n";
static const char *const invalid_k = "kernel broken(A: f32[4,4] in) { x = nope(A); }\n";
static const char *const rowsum_sig =
    "crash|ptoas:up_down|cxx-error|static-assertion-failed-due-to-requirement-Inco|cxx|-";

static FzRealCase mk(const char *name, const char *text) {
  return (FzRealCase){.name = name, .text = text, .len = strlen(text)};
}

int main(void) {
  Tap t = {0};
  char why[300];
  FzReal *none = fz_real_open("/nonexistent/ptoas", NULL, 1, why, sizeof why);
  tap_ok(&t, !none && strstr(why, "/nonexistent/ptoas"), "realreplay-1.1", "a ptoas that is not there: NULL (%s)", why);
  FzReal *r = fz_real_open(NULL, NULL, 0, why, sizeof why);
  if (!r) {
    printf("1..0 # SKIP %s\n", why);
    return 0;
  }
  tap_diag("ptoas %s", fz_real_version(r));

  FzRealCase c[3] = {mk("clean", clean_k), mk("rowsum", rowsum_k), mk("broken", invalid_k)};
  fz_real_replay(r, c, 3, 0);
  tap_ok(&t, c[0].clean && !c[0].v.finding && !c[0].toolerr && !c[0].lost && c[0].n == ORC_NREAL, "realreplay-2.1",
         "a clean kernel: clean, %d variants", c[0].n);
  bool okvars = true;
  for (int i = 0; i < c[0].n; i++) okvars &= !strncmp(c[0].var[i].name, "ptoas:", 6) && !c[0].var[i].sig[0];
  tap_ok(&t, okvars && !strcmp(c[0].var[0].name, "ptoas:none@a3") && !strcmp(c[0].var[1].name, "ptoas:none@a5"),
         "realreplay-2.2", "its variants are named ptoas:MODE@TARGET and carry no signature");
  tap_ok(&t, !c[1].clean && c[1].v.finding && fz_verdict_has(&c[1].v, rowsum_sig) && !c[1].lost, "realreplay-2.3",
         "the rowsum reproducer gives its signature (%s)", c[1].v.n ? c[1].v.sig[0] : "none");
  int ud = -1;
  for (int i = 0; i < c[1].n; i++)
    if (!strcmp(c[1].var[i].sig, rowsum_sig)) ud = i;
  tap_ok(&t, ud >= 0 && !strncmp(c[1].var[ud].name, "ptoas:up_down@", 14) && !strcmp(c[1].var[ud].outcome, "crash") &&
                 !strcmp(c[1].var[ud].code, "cxx-error") && strstr(c[1].var[ud].detail, "TRowSum"),
         "realreplay-2.4", "on ptoas:up_down, outcome crash, code cxx-error, the compiler's message as detail");
  tap_ok(&t, c[2].v.invalid && !c[2].clean && strstr(c[2].v.why, "E-") && c[2].n == 0, "realreplay-2.5",
         "an invalid kernel: invalid (%s)", c[2].v.why);
  tap_ok(&t, c[1].text == rowsum_k && !strcmp(c[1].name, "rowsum"), "realreplay-2.6", "the inputs are left as they were");

  /* the same verdict as orc_real_check in this process */
  RealTools tools;
  orc_real_find(&tools, NULL, NULL);
  Src src = {"rowsum", rowsum_k, strlen(rowsum_k)};
  RealCase rc = {.src = &src, .only = -1};
  orc_real_check(&tools, &rc, 1, &(RealOpts){.jobs = 2}, NULL);
  bool same = rc.n == c[1].n;
  for (int i = 0; same && i < rc.n; i++) {
    char sig[FZ_SIGLEN] = "";
    if (orc_is_finding(rc.r[i].out)) orc_signature(&rc.r[i], sig, sizeof sig);
    same = !strcmp(sig, c[1].var[i].sig) && !strcmp(orc_outcome_name(rc.r[i].out), c[1].var[i].outcome) &&
           !strcmp(orc_variant_name(&rc.r[i]), c[1].var[i].name);
  }
  tap_ok(&t, same, "realreplay-3.1", "the forked batch agrees with orc_real_check in this process");

  FzRealCase one = mk("rowsum", rowsum_k);
  one.only = "ptoas:up_down@a3";
  fz_real_replay(r, &one, 1, 0);
  tap_ok(&t, one.n == 1 && !strcmp(one.var[0].name, "ptoas:up_down@a3") && fz_verdict_has(&one.v, rowsum_sig),
         "realreplay-3.2", "only = ptoas:up_down@a3 checks that variant alone");
  one = mk("clean", clean_k);
  one.only = "ptoas:none@a5";
  fz_real_replay(r, &one, 1, 0);
  tap_ok(&t, one.n == 1 && !strcmp(one.var[0].name, "ptoas:none@a5") && one.clean, "realreplay-3.3",
         "only = ptoas:none@a5 checks that variant alone");

  /* a watchdog far too short: the batch is killed, then each case, each lost. A
   * killed check leaves its work directory behind: a cache of its own, removed here */
  char cache[] = "/tmp/t_realreplay-XXXXXX";
  FzReal *r2 = mkdtemp(cache) && !setenv("PTO_REAL_CACHE", cache, 1) ? fz_real_open(NULL, NULL, 0, why, sizeof why) : NULL;
  FzRealCase w[2] = {mk("clean", clean_k), mk("rowsum", rowsum_k)};
  double t0 = fz_now();
  fz_real_replay(r2 ? r2 : r, w, 2, 0.05);
  fz_real_free(r2);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
  if (system(cmd)) tap_diag("could not remove %s", cache);
  tap_ok(&t, w[0].lost && w[1].lost && !w[0].clean && !w[1].clean && strstr(w[0].v.why, "watchdog") &&
                 strstr(w[1].v.why, "watchdog") && fz_now() - t0 < 30,
         "realreplay-4.1", "past the watchdog: every case lost, with the reason (%s)", w[0].v.why);
  fz_real_free(r);
  return tap_done(&t);
}
