/* dashboard.c — placeholder, filled in the next step. */
#include "rep.h"
int rep_dashboard(Db *d, const char *dir, const char *db_path, const char *version) {
  (void)d, (void)dir, (void)db_path, (void)version;
  return 1;
}
