/* t_cluster.c — the cluster key and the one-line title (reports/cluster.c):
 * a table of signatures, first bad passes and details with the exact key
 * each gets (the signatures are ones the injected defects give); the
 * signatures one defect gives share a key; keys are deterministic; titles of
 * new and older rows. */
#include "rep.h"
#include "tap.h"

#include <string.h>

static const struct {
  const char *id, *sig, *pass, *detail, *want;
} cases[] = {
    /* a split bug shows under both split modes: one key */
    {"cluster-1.1", "reject|up_down|E-VERIFY|slice|auto_split|-", NULL,
     "21:21 after auto_split: E-VALID: slice: valid extent on dim 0 ranges over [0, 2], outside 0..1",
     "reject/auto_split/E-VALID/slice"},
    {"cluster-1.2", "reject|left_right|E-VERIFY|slice|auto_split|-", NULL,
     "24:26 after auto_split: E-VALID: slice: valid extent on dim 1 ranges over [0, 3], outside 0..1",
     "reject/auto_split/E-VALID/slice"},
    /* the op that checked a valid extent is the culprit: kept */
    {"cluster-1.3", "reject|up_down|E-VERIFY|load|auto_split|-", NULL,
     "27:36 after auto_split: E-VALID: load: valid extent on dim 0 ranges over [2, 2], outside 0..1",
     "reject/auto_split/E-VALID/load"},
    /* a shape check only notices: the op is dropped, three ops one key */
    {"cluster-1.4", "reject|none|E-VERIFY|load|expand_mixed|-", NULL,
     "17:52 after expand_mixed: E-SHAPE: add: shapes [8,40] and [6,40] differ", "reject/expand_mixed/E-SHAPE"},
    {"cluster-1.5", "reject|none|E-VERIFY|elementwise|expand_mixed|-", NULL,
     "22:20 after expand_mixed: E-SHAPE: min: shapes [4,40] and [8,40] differ", "reject/expand_mixed/E-SHAPE"},
    {"cluster-1.6", "reject|none|E-VERIFY|expand|expand_mixed|-", NULL,
     "17:18 after expand_mixed: E-SHAPE: max: shapes [4,64] and [8,64] differ", "reject/expand_mixed/E-SHAPE"},
    /* no detail: the E-VERIFY code itself */
    {"cluster-1.7", "reject|none|E-VERIFY|load|expand_mixed|-", NULL, NULL, "reject/expand_mixed/E-VERIFY/load"},
    {"cluster-1.8", "reject|none|B-SUBVIEW|slice|verify_backend|-", NULL, "18:14 subview valid 0 outside [1, 16] on dim 0",
     "reject/verify_backend/B-SUBVIEW/slice"},
    {"cluster-1.9", "reject|none|E-CAPACITY|elementwise|memplan|-", NULL, "36:3 aic acc needs 141312 bytes",
     "reject/memplan/E-CAPACITY"},
    /* a wrong half: every pattern but tail, every mode, and R-POISON, one key */
    {"cluster-2.1", "miscompile|up_down|-|-|expand_mixed|lane1", NULL, "O rows 8-15, cols 0-15: 128 of 256 wrong",
     "wrong/expand_mixed"},
    {"cluster-2.2", "miscompile|up_down|-|-|expand_mixed|all", NULL, NULL, "wrong/expand_mixed"},
    {"cluster-2.3", "miscompile|none|-|-|expand_mixed|-", NULL, NULL, "wrong/expand_mixed"},
    {"cluster-2.4", "escape|up_down|R-POISON|store|expand_mixed|-", NULL, NULL, "wrong/expand_mixed"},
    {"cluster-2.5", "miscompile|left_right|-|-|auto_split|tail", NULL, NULL, "tail/auto_split"},
    {"cluster-2.6", "miscompile|up_down|-|-|auto_split|tail", NULL, NULL, "tail/auto_split"},
    /* the first bad pass given beats the signature's */
    {"cluster-2.7", "miscompile|up_down|-|-|-|lane0", "auto_split", NULL, "wrong/auto_split"},
    {"cluster-2.8", "miscompile|up_down|-|-|-|lane0", "-", NULL, "wrong/nopass"},
    /* runtime families */
    {"cluster-3.1", "escape|up_down|R-REPLICA|store|auto_split|-", NULL, NULL, "race/auto_split"},
    {"cluster-3.2", "escape|left_right|R-RACE|store|expand_mixed|-", NULL, NULL, "race/expand_mixed"},
    {"cluster-3.3", "escape|left_right|R-GM-OOB|store|auto_split|-", NULL, NULL, "oob/auto_split"},
    {"cluster-3.4", "escape|none|R-GATHER-RANGE|gather|lower_gather|-", NULL, NULL, "oob/lower_gather"},
    {"cluster-3.5", "escape|none|R-PIPE-SHAPE|transfer|expand_mixed|-", NULL, NULL, "pipe/expand_mixed"},
    {"cluster-3.6", "escape|none|R-NOOP|store|dual_lane|-", NULL, NULL, "escape/dual_lane/R-NOOP"},
    {"cluster-3.7", "hang|left_right|R-DEADLOCK|transfer|expand_mixed|-", NULL, NULL, "hang/expand_mixed/R-DEADLOCK"},
    {"cluster-3.8", "crash|up_down|SIGSEGV|-|-|-", NULL, NULL, "crash/nopass/SIGSEGV"},
    {"cluster-3.9", "blowup|none|unroll|-|unroll|-", NULL, NULL, "blowup/unroll"},
    /* the real back ends keep their own clusters */
    {"cluster-4.1", "miscompile|ptoas:up_down|-|-|-|lane1", NULL, NULL, "ptoas:wrong/nopass"},
    {"cluster-4.2", "reject|pypto:none|E-PYPTO-SPLIT-ODD|slice|-|-", NULL, NULL, "pypto:reject/nopass/E-PYPTO-SPLIT-ODD/slice"},
    /* C++ that does not compile: the pto-isa header names the bug, the mode does not */
    {"cluster-4.3", "crash|ptoas:none|cxx-error|static-assertion-failed-due-to-requirement-Inco|cxx|-", NULL,
     "crash cxx-error under ptoas:none@a3: TRowSum.hpp: error: static assertion failed", "ptoas:crash/cxx/cxx-error/TRowSum.hpp"},
    {"cluster-4.4", "crash|ptoas:up_down|cxx-error|static-assertion-failed-due-to-requirement-Inco|cxx|-", NULL,
     "crash cxx-error under ptoas:up_down@a3: TRowSum.hpp: error: static assertion failed", "ptoas:crash/cxx/cxx-error/TRowSum.hpp"},
    {"cluster-4.5", "crash|ptoas:none|cxx-error|no-matching-function-for-call-to|cxx|-", NULL,
     "crash cxx-error under ptoas:none@a5: pto_instr.hpp: error: no matching function for call to 'TADD'",
     "ptoas:crash/cxx/cxx-error/pto_instr.hpp"},
};

static const struct {
  const char *id, *sig, *summary, *want;
} titles[] = {
    {"title-1.1", "miscompile|up_down|-|-|auto_split|lane1",
     "miscompile under up_down: O rows 8-15, cols 0-15: 128 of 256 wrong, pattern lane1",
     "miscompile under up_down: O rows 8-15, cols 0-15: 128 of 256 wrong, pattern lane1"},
    /* an older row: words from the signature */
    {"title-1.2", "miscompile|up_down|-|-|auto_split|lane1", "miscompile - under up_down: outputs differ from the golden run",
     "miscompile under up_down: wrong output in lane 1's half (pattern lane1), first bad pass auto_split"},
    {"title-1.3", "miscompile|left_right|-|-|expand_mixed|tail",
     "miscompile - under left_right: outputs differ from the golden run",
     "miscompile under left_right: wrong output in the odd last row or column (pattern tail), first bad..."},
    /* a real back end's detail is kept */
    {"title-1.4", "miscompile|ptoas:up_down|-|-|-|-", "miscompile - under ptoas:up_down@a3: outputs differ from the golden run in 8 elements",
     "miscompile - under ptoas:up_down@a3: outputs differ from the golden run in 8 elements"},
    {"title-1.5", "reject|none|B-PIPE|transfer|verify_backend|-", "reject B-PIPE under none@a2a3: 17:19 V2C entry\nof 6144 bytes",
     "reject B-PIPE under none@a2a3: 17:19 V2C entry of 6144 bytes"},
    {"title-1.6", "reject|none|B-PIPE|transfer|verify_backend|-", NULL, "reject|none|B-PIPE|transfer|verify_backend|-"},
};

int main(void) {
  Tap t = {0};
  int n = (int)(sizeof cases / sizeof *cases);
  for (int i = 0; i < n; i++) {
    char key[128] = "", again[128] = "";
    bool ok = rep_cluster_key(cases[i].sig, cases[i].pass, cases[i].detail, key, sizeof key);
    rep_cluster_key(cases[i].sig, cases[i].pass, cases[i].detail, again, sizeof again);
    tap_ok(&t, ok && !strcmp(key, cases[i].want) && !strcmp(key, again), cases[i].id, "%s -> %s (got %s)", cases[i].sig,
           cases[i].want, key);
  }
  char key[64] = "untouched";
  tap_ok(&t, !rep_cluster_key("miscompile|up_down|-", NULL, NULL, key, sizeof key) && !strcmp(key, "untouched"),
         "cluster-5.1", "a malformed signature has no key and leaves the buffer");
  char small[8];
  tap_ok(&t, rep_cluster_key("reject|up_down|E-VERIFY|slice|auto_split|-", NULL, NULL, small, sizeof small) &&
                 strlen(small) == 7,
         "cluster-5.2", "a short buffer gets a cut key, terminated (%s)", small);
  for (size_t i = 0; i < sizeof titles / sizeof *titles; i++) {
    char buf[160];
    rep_title(titles[i].sig, titles[i].summary, buf, sizeof buf);
    tap_ok(&t, !strcmp(buf, titles[i].want) && strlen(buf) <= 100, titles[i].id, "title \"%s\"", buf);
  }
  return tap_done(&t);
}
