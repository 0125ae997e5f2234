/* pipeline.c — the pass pipeline, in one function: text -> parse and
 * typecheck -> flatten -> infer_space -> auto_split -> check_split -> ...
 * After every transforming pass the IR is typechecked again (a failure there
 * is the compiler's fault: E-VERIFY, internal); the passes that apply only to
 * some kernels are verified when they did something (see `gated`). Prints the IR after a pass on
 * request (after memplan followed by the buffer placement) and stops after a named pass. */
#include "ptoc.h"

#include <stdlib.h>
#include <string.h>

const char *const ir_pass_names[] = {"parse",        "flatten",   "infer_space", "auto_split",
                                     "check_split",  "expand_mixed", "dual_lane", "lower_gather",
                                     "unroll",       "memplan",   "lower",        "verify_backend", NULL};

static bool after(Comp *c, const PipeOpts *o, const Kernel *k, const char *pass) {
  if (o && o->print_after && (!strcmp(o->print_after, pass) || !strcmp(o->print_after, "all"))) {
    FILE *f = o->out ? o->out : stdout;
    if (!strcmp(o->print_after, "all")) fprintf(f, "# after %s\n", pass);
    ir_print(f, k);
    if (!strcmp(pass, "memplan")) ir_print_plan(f, c->A, k);   /* `# mem` comments: not IR */
  }
  return o && o->stop_after && !strcmp(o->stop_after, pass);
}

/* The verifier run after a transform: the IR must typecheck as it stands. */
static void verify(Comp *c, Kernel *k, const char *pass) {
  jmp_buf jb, *outer = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {
    c->jb = outer;
    char msg[sizeof c->diag.msg];
    snprintf(msg, sizeof msg, "after %s: %s: %.200s", pass, ir_diag_name(c->diag.code), c->diag.msg);
    ir_error(c, c->diag.loc, E_VERIFY, "%s", msg);
  }
  for (int i = 0; i < k->nvars; i++)
    if (k->vars[i]->kind == VK_TILE || k->vars[i]->kind == VK_SCALAR) k->vars[i]->typed = false;
  ir_typecheck(c, k);
  c->jb = outer;
}

typedef void PassFn(Comp *c, Kernel *k);
static const struct {
  const char *name;
  PassFn *fn;
  bool transforms;                              /* changes the IR: typecheck it again after */
  /* Applies to some kernels only and, when it applies, always reshapes the
   * statement skeleton (wraps the body in a lane region, replaces a gather or
   * a loop): verified only when ir_fingerprint changed. */
  bool gated;
} passes[] = {
    {"flatten", pass_flatten, true, false},           {"infer_space", pass_infer_space, true, false},
    {"auto_split", pass_auto_split, true, true},      {"check_split", pass_check_split, false, false},
    {"expand_mixed", pass_expand_mixed, true, false}, {"dual_lane", pass_dual_lane, true, true},
    {"lower_gather", pass_lower_gather, true, true},  {"unroll", pass_unroll, true, true},
    {"memplan", pass_memplan, false, false},          {"lower", pass_lower, true, false},
    {"verify_backend", pass_verify_backend, false, false},
};

/* From text (front == NULL), or from a copy of a flattened front-end kernel. */
static Kernel *pipeline(Comp *c, const Kernel *front, const PipeOpts *o) {
  jmp_buf jb;
  jmp_buf *saved = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {
    c->jb = saved;
    return NULL;
  }
  size_t first = front ? 1 : 0;                 /* passes[0] is flatten */
  c->pass = front ? "flatten" : "parse";
  Kernel *k = front ? ir_clone(c->A, front) : ir_parse(c);
  if (c->o.target >= 0) k->target = (Target)c->o.target;   /* before typecheck: a shard's stride is the target's */
  if (!front) ir_typecheck(c, k);
  if (c->o.split >= 0) k->split = (Mode)c->o.split;
  if (!after(c, o, k, c->pass)) {
    for (size_t i = first; i < sizeof passes / sizeof passes[0]; i++) {
      c->pass = passes[i].name;
      uint64_t before = passes[i].gated ? ir_fingerprint(k) : 0;
      passes[i].fn(c, k);
      if (passes[i].transforms && (!passes[i].gated || ir_fingerprint(k) != before)) verify(c, k, passes[i].name);
      if (after(c, o, k, passes[i].name)) break;
    }
  }
  c->jb = saved;
  return k;
}

Kernel *pass_pipeline(Comp *c, const PipeOpts *o) { return pipeline(c, NULL, o); }

Kernel *pass_pipeline_from(Comp *c, const Kernel *front, const PipeOpts *o) {
  ASSERT(front);
  return pipeline(c, front, o);
}

Kernel *ir_front(Comp *c) {
  PipeOpts o = {.stop_after = "flatten"};
  return pass_pipeline(c, &o);
}

bool ir_bugs_option(const char *tool, const char *list, uint32_t *bugs) {
  if (!list) list = getenv("PTOFUZZ_BUGS");
  char err[200];
  if (!list || ir_bugs_parse(list, bugs, err, sizeof err)) return true;
  fprintf(stderr, "%s: %s\n", tool, err);
  return false;
}

bool ir_comp_flag(CompOpts *o, const char *a) {
  if (!strcmp(a, "--split=none")) o->split = MODE_NONE;
  else if (!strcmp(a, "--split=up_down")) o->split = MODE_UD;
  else if (!strcmp(a, "--split=left_right")) o->split = MODE_LR;
  else if (!strcmp(a, "--target=a2a3")) o->target = TGT_A2A3;
  else if (!strcmp(a, "--target=a5")) o->target = TGT_A5;
  else if (!strcmp(a, "--unroll=auto")) o->unroll_off = false;
  else if (!strcmp(a, "--unroll=off")) o->unroll_off = true;
  else if (!strcmp(a, "--allow-mixed-modes")) o->allow_mixed_modes = true;
  else return false;
  return true;
}
