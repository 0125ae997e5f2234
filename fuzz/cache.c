/* cache.c — `ptofuzz cache [clean [--all]]`: what the real back ends keep in
 * their cache directory (orc_cache_dir) and removing it. Consumes the
 * directory's entries; produces, on stdout, the directory and its bytes by
 * kind: prebuilt (the harness's headers, the precompiled header and object,
 * rebuilt on the next real check, about half a minute) and work directories
 * (run-XXXXXX/, one per check in progress; a check killed outright leaves its
 * own behind). `clean` removes the prebuilt files and every work directory
 * not modified in the last hour (a check that runs now writes into its own);
 * `clean --all` removes those too. */
#include "fz.h"
#include "orc.h"

#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { IN_USE_S = 3600 };                       /* a work directory this recent may be in use */

/* Bytes under path (not following symbolic links), at most 16 levels down. */
static long long du(const char *path, int depth) {
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  long long n = st.st_size;
  DIR *d = S_ISDIR(st.st_mode) && depth < 16 ? opendir(path) : NULL;
  if (!d) return n;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char sub[PATH_MAX];
    if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < (int)sizeof sub) n += du(sub, depth + 1);
  }
  closedir(d);
  return n;
}

int fz_cache(int argc, char **argv) {
  bool clean = false, all = false;
  for (int i = 0; i < argc; i++)
    if (!strcmp(argv[i], "clean") && !i) clean = true;
    else if (!strcmp(argv[i], "--all") && clean) all = true;
    else return ir_cli_fail(fz_cmd("cache"), "unexpected argument '%s'", argv[i]);
  char dir[PATH_MAX], why[300];
  if (!orc_cache_dir(dir, sizeof dir, why, sizeof why)) {
    fprintf(stderr, "ptofuzz: cache: %s\n", why);
    return 1;
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "ptofuzz: cache: cannot read %s\n", dir);
    return 1;
  }
  long long bytes[2] = {0, 0}, gone = 0;        /* prebuilt, work */
  int count[2] = {0, 0}, kept = 0, failed = 0;
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || lstat(path, &st) != 0) continue;
    int work = !strncmp(e->d_name, "run-", 4) && S_ISDIR(st.st_mode);
    long long n = du(path, 0);
    bytes[work] += n, count[work]++;
    if (!clean) continue;
    if (work && !all && now - st.st_mtime < IN_USE_S) {
      kept++;
      continue;
    }
    if (S_ISDIR(st.st_mode)) orc_rm_rf(path);
    else unlink(path);
    if (lstat(path, &st) == 0) failed++;
    else gone += n;
  }
  closedir(d);
  printf("cache %s\nprebuilt %d entries, %lld bytes\nwork %d directories, %lld bytes\n", dir, count[0], bytes[0],
         count[1], bytes[1]);
  if (clean)
    printf("removed %lld bytes; kept %d work directories modified in the last hour (--all removes them)\n", gone, kept);
  if (failed) fprintf(stderr, "ptofuzz: cache: %d entries could not be removed\n", failed);
  return failed ? 1 : 0;
}
