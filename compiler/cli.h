/* cli.h — the command-line conventions every tool shares (ptoc, ptosim,
 * ptofuzz and its subcommands, pto-check; docs/decisions.md, "Command
 * lines"):
 *   - a long option that takes a value takes it as `--opt=value` or as
 *     `--opt value` (ir_cli_join rewrites the second form into the first from
 *     the command's option table, so a parser sees only `--opt=value`);
 *   - `-h` is `--help`, `-V` is `--version`;
 *   - `--help` prints the synopsis, each option with a one-line description
 *     and its default, and the exit codes, from one IrCmd table;
 *   - a number outside its range, and every other usage error, is a coded
 *     user error (`TOOL: error[E-USAGE]: ... [user]`, exit 1). */
#ifndef PTO_CLI_H
#define PTO_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
  const char *name;                             /* "--time", "-o" */
  const char *arg;                              /* the value's name ("S"); NULL: a flag without a value */
  const char *def;                              /* the default in words; NULL: none worth saying */
  const char *help;                             /* one line */
} IrOpt;

typedef struct {
  const char *name;                             /* "ptofuzz run" */
  const char *synopsis;                         /* lines after "usage: ", continuation lines indented */
  const char *about;                            /* what it does, lines; NULL: none */
  const IrOpt *opts;                            /* ends with {NULL} */
  const char *exits;                            /* the exit codes, one "N  meaning" per line */
} IrCmd;

/* The full help of c: usage, about, options (name, value, description,
 * default), exit codes. */
void ir_cli_help(FILE *f, const IrCmd *c);
/* The usage lines of c alone (after a usage error, on stderr). */
void ir_cli_usage(FILE *f, const IrCmd *c);

bool ir_cli_is_help(const char *a);             /* -h, --help */
bool ir_cli_is_version(const char *a);          /* -V, --version */

/* argv (argc entries) with each `--opt value` whose --opt is one of the
 * valued names (NULL-terminated, "--time") joined into `--opt=value`; an
 * argument after `--` is left alone. The result is malloc'd (ir_cli_free);
 * *argc becomes its length. An option that wants a value and is the last
 * argument stays as it is (the parser then names it). */
char **ir_cli_join(int *argc, char **argv, const char *const *valued);
void ir_cli_free(char **argv, int argc);
/* ir_cli_join over the valued options of one table. */
char **ir_cli_args(int *argc, char **argv, const IrOpt *opts);
/* The valued long option names of opts appended to names[*n..cap-1], each
 * once; names stays NULL-terminated. */
void ir_cli_valued(const IrOpt *opts, const char **names, int *n, int cap);

/* The first bad value of a command line: the argument and why. */
typedef struct {
  const char *arg;                              /* NULL: none */
  char why[160];
} IrCliBad;

/* Argument a as option key ("--count=") with a decimal integer value in
 * [lo, hi]: true when a is that option (its value in *out when it is good;
 * otherwise *bad records it, the first bad one only). */
bool ir_cli_int(const char *a, const char *key, int64_t lo, int64_t hi, int64_t *out, IrCliBad *bad);
/* The same for an unsigned 64-bit decimal (a seed: every value, exactly). */
bool ir_cli_u64(const char *a, const char *key, uint64_t *out, IrCliBad *bad);
/* The same for a decimal number (seconds) in [lo, hi]; lo_open: lo itself is refused. */
bool ir_cli_real(const char *a, const char *key, double lo, double hi, bool lo_open, double *out, IrCliBad *bad);
/* `TOOL: error[E-USAGE]: MESSAGE [user]` on stderr; returns 1 (the exit status). */
int ir_cli_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ir_cli_error's line under c's name, then c's usage lines (stderr); returns 1. */
int ir_cli_fail(const IrCmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
