/* sim.h — the internal header of libptosim (golden interpreter, machine
 * model). Sectioned by the file that defines each part; exported names carry
 * the prefix sim_. No global mutable state: a simulation is a value (Sim). */
#ifndef SIM_H
#define SIM_H

#include "../compiler/ptoc.h"

/* ---- f16.c: IEEE binary16 storage ------------------------------------------ */

uint16_t sim_f32_to_f16(float f);               /* round to nearest, ties to even */
float sim_f16_to_f32(uint16_t h);               /* exact */
float sim_round_f16(float f);                   /* f rounded to the nearest f16 value */

/* ---- interp.c: the golden run ------------------------------------------------ */

enum {
  SIM_CANARY_F32 = 0x7FC0DEAD,                  /* quiet NaN, marked payload */
  SIM_CANARY_F16 = 0x7EAD,
  SIM_CANARY_I32 = 0x7EADBEEF,
};

typedef union {
  float f;
  int32_t i;
} Elem;

/* A tile value: physical shape, valid shape, and a defined bit per element. */
typedef struct {
  Dtype dt;
  int R, C, vr, vc;
  Elem *d;
  uint8_t *def;
} Tile;

/* A GM tensor: bytes in its storage dtype, row-major. */
typedef struct {
  const Var *v;
  int rows, cols;
  unsigned char *bytes;
} Gm;

typedef struct {
  uint64_t seed;
  uint64_t max_steps;                           /* element operations; 0: default */
} SimOpts;

typedef struct Sim Sim;
Sim *sim_new(const Kernel *k, const SimOpts *o);
void sim_free(Sim *s);
/* Run the kernel (flat source IR) with the reference semantics. Returns false
 * with sim_diag() set on a runtime error. */
bool sim_run_reference(Sim *s);
const Diag *sim_diag(const Sim *s);
Gm *sim_gm(Sim *s, const Var *tensor);
uint64_t sim_digest(const Gm *g);
void sim_print_outputs(FILE *f, Sim *s, bool dump);
Elem sim_gm_get(const Gm *g, int r, int c);      /* value as stored (f16 widened) */
uint32_t sim_gm_bits(const Gm *g, int r, int c); /* raw storage bits */

/* Deterministic PRNG (splitmix64) used for inputs and schedules. */
uint64_t sim_rand(uint64_t *state);

#endif
