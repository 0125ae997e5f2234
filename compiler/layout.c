/* layout.c — the machine's memory layouts and capacities (DESIGN section 4):
 * vec tiles are row-major (cols * elem a multiple of 32 bytes), [R,1] vec
 * tiles column-major (rows * elem a multiple of 32); mat, left and right are
 * fractal NZ with an inner box of 16 x (32 / elem); acc is fractal 16 x 16.
 * Used by memplan (sizes), lower (allocation shapes) and verify_backend. */
#include "ptoc.h"

Layout ir_layout(Space sp, int R, int C) {
  if (sp == SP_VEC) return C == 1 && R > 1 ? LAY_COL : LAY_ROW;
  return LAY_FRACTAL;
}

void ir_box(Space sp, Dtype dt, int *br, int *bc) {
  *br = 16;
  *bc = sp == SP_ACC ? 16 : 32 / ir_dtype_bytes(dt);
}

static int up(int x, int m) { return (x + m - 1) / m * m; }

void ir_padded(Space sp, Dtype dt, int R, int C, int *Rp, int *Cp) {
  int e = ir_dtype_bytes(dt), br, bc;
  *Rp = R;
  *Cp = C;
  switch (ir_layout(sp, R, C)) {
  case LAY_ROW: *Cp = up(C, 32 / e); break;
  case LAY_COL: *Rp = up(R, 32 / e); break;
  case LAY_FRACTAL:
    ir_box(sp, dt, &br, &bc);
    if (R > 1) *Rp = up(R, br);
    *Cp = up(C, bc);
    break;
  }
}

int64_t ir_tile_bytes(Space sp, Dtype dt, int R, int C) {
  int Rp, Cp;
  ir_padded(sp, dt, R, C, &Rp, &Cp);
  return (int64_t)Rp * Cp * ir_dtype_bytes(dt);
}

int64_t ir_capacity(Target t, Space sp) {
  switch (sp) {
  case SP_VEC: return t == TGT_A5 ? 245760 : 188416;
  case SP_MAT: return 524288;
  case SP_LEFT: case SP_RIGHT: return 65536;
  case SP_ACC: return t == TGT_A5 ? 262144 : 131072;
  default: return 0;
  }
}
