/* pipeline.c — the pass pipeline, in one function: text -> parse and
 * typecheck -> flatten -> (later passes). Prints the IR after any pass on
 * request and stops after a named pass. */
#include "ptoc.h"

#include <string.h>

const char *const ir_pass_names[] = {"parse", "flatten", NULL};

static bool after(Comp *c, const PipeOpts *o, const Kernel *k, const char *pass) {
  if (o && o->print_after && (!strcmp(o->print_after, pass) || !strcmp(o->print_after, "all"))) {
    FILE *f = o->out ? o->out : stdout;
    if (!strcmp(o->print_after, "all")) fprintf(f, "# after %s\n", pass);
    ir_print(f, k);
  }
  (void)c;
  return o && o->stop_after && !strcmp(o->stop_after, pass);
}

Kernel *pass_pipeline(Comp *c, const PipeOpts *o) {
  jmp_buf jb;
  jmp_buf *saved = c->jb;
  c->jb = &jb;
  if (setjmp(jb)) {
    c->jb = saved;
    return NULL;
  }
  Kernel *k = ir_parse(c);
  ir_typecheck(c, k);
  if (!after(c, o, k, "parse")) {
    pass_flatten(c, k);
    after(c, o, k, "flatten");
  }
  c->jb = saved;
  return k;
}

Kernel *ir_front(Comp *c) {
  PipeOpts o = {.stop_after = "flatten"};
  return pass_pipeline(c, &o);
}
