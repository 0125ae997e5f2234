/* t_db.c — tests of the findings database (reports/db.c): schema creation and
 * version, campaigns, recording (new vs repeat, the test case cap, batches,
 * all-or-nothing failures), the db command's list / show / stats / export
 * output, status and the fixed-kernel callback, merge by signature, reopening,
 * two handles on one file, several writer processes at once, and a writer
 * killed with SIGKILL mid-campaign, and which test cases and summary a merge
 * keeps (kernel index order). Files live in a mkdtemp directory that is
 * removed at the end. */
#include "rep.h"
#include "tap.h"

#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static const char *path(const char *name) {
  static char buf[4][320];
  static int i;
  i = (i + 1) % 4;
  snprintf(buf[i], sizeof buf[i], "%s/%s", dir, name);
  return buf[i];
}

/* Run a db command into a string (malloc'd); *rc gets its exit status. */
static char *capture(Db *d, int which, int64_t id, int *rc) {
  FILE *f = tmpfile();
  if (!f) abort();
  switch (which) {
  case 'l': *rc = db_cmd_list(d, f); break;
  case 's': *rc = db_cmd_show(d, id, f); break;
  case 't': *rc = db_cmd_stats(d, f); break;
  default: *rc = db_cmd_export(d, id, f); break;
  }
  long n = ftell(f);
  char *s = malloc((size_t)n + 1);
  rewind(f);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) abort();
  s[n] = 0;
  fclose(f);
  return s;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static bool has(Tap *t, const char *out, const char *needle, const char *id, const char *what) {
  bool ok = strstr(out, needle) != NULL;
  if (!tap_ok(t, ok, id, "%s", what)) tap_diag("no '%s' in:\n%s", needle, out);
  return ok;
}

static DbFinding finding(const char *sig, const char *kind, const char *summary) {
  return (DbFinding){.signature = sig, .kind = kind, .mode = "up_down", .code = "-", .op = "tadd",
                     .pass = "auto_split", .pattern = "tail", .summary = summary};
}

static DbTestcase testcase(const char *kernel, uint64_t seed) {
  return (DbTestcase){.kernel = kernel, .variant = "up_down", .flags = "--bugs=odd-floor-half", .seed = seed,
                      .statements = 7};
}

/* The hits column of finding id, read from `db list`. */
static long hits_of(Db *d, int64_t id) {
  int rc;
  char *s = capture(d, 'l', 0, &rc), *line = s;
  long h = -1;
  for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    long i, n;
    char st[16];
    if (sscanf(line, "%ld %15s %ld", &i, st, &n) == 3 && i == id) h = n;
  }
  free(s);
  return h;
}

typedef struct {
  int n;
  int64_t finding;
  char text[64];
} FixedSeen;

static void on_fixed(void *ctx, int64_t finding, const char *sig, const char *kernel) {
  FixedSeen *f = ctx;
  (void)sig;
  f->n++;
  f->finding = finding;
  snprintf(f->text, sizeof f->text, "%s", kernel);
}

/* A writer process: n records over 5 signatures, every 4th as a batch of 2. */
static _Noreturn void writer(const char *file, int who, int n) {
  char err[256], sig[32], kernel[64];
  Db *d = db_open(file, err, sizeof err);
  if (!d) {
    fprintf(stderr, "# writer %d: %s\n", who, err);
    _exit(10);
  }
  int64_t c = db_campaign_begin(d, &(DbCampaign){.engine = "prng", .seed = (uint64_t)who});
  if (c < 0) {
    fprintf(stderr, "# writer %d: %s\n", who, db_errmsg(d));
    _exit(11);
  }
  for (int i = 0; i < n;) {
    snprintf(sig, sizeof sig, "miscompile|w|%d", i % 5);
    snprintf(kernel, sizeof kernel, "kernel k%d_%d() {}\n", who, i);
    if (i % 4 == 3 && i + 1 < n) {
      DbRecord r[2] = {{.f = finding(sig, "miscompile", "w"), .t = testcase(kernel, (uint64_t)i)},
                       {.f = finding(sig, "miscompile", "w"), .t = testcase(kernel, (uint64_t)i + 1)}};
      if (!db_record_batch(d, c, r, 2, err, sizeof err)) {
        fprintf(stderr, "# writer %d: %s\n", who, err);
        _exit(12);
      }
      i += 2;
    } else {
      DbFinding f = finding(sig, "miscompile", "w");
      DbTestcase t = testcase(kernel, (uint64_t)i);
      if (db_record(d, c, &f, &t, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "# writer %d: %s\n", who, err);
        _exit(13);
      }
      i++;
    }
  }
  if (!db_campaign_end(d, c, n, 0.5)) _exit(14);
  db_close(d);
  _exit(0);
}

/* A shard file: one campaign (kernels k) and `hits` records of sig. */
static bool shard(const char *file, uint64_t seed, int64_t kernels, const char *sig, int hits) {
  char err[256];
  Db *d = db_open(file, err, sizeof err);
  int64_t c = d ? db_campaign_begin(d, &(DbCampaign){.engine = "prng", .seed = seed}) : -1;
  bool ok = c > 0;
  for (int i = 0; ok && i < hits; i++) {
    char kernel[64];
    snprintf(kernel, sizeof kernel, "kernel s%llu_%d() {}\n", (unsigned long long)seed, i);
    DbFinding f = finding(sig, "miscompile", "shard");
    DbTestcase tc = testcase(kernel, (uint64_t)i);
    ok = db_record(d, c, &f, &tc, NULL, err, sizeof err) > 0;
  }
  ok = ok && db_campaign_end(d, c, kernels, 1.0);
  if (!ok) tap_diag("shard %s: %s", file, d ? db_errmsg(d) : err);
  db_close(d);
  return ok;
}

/* A file `file` with one campaign (seed, policy "gen.policy") in which finding
 * sig is hit by the kernels in `hits`, in that order: "k3" kernel index 3,
 * "n3" a kernel without an index (kernel text "kernel k3() {}", summary "at
 * k3"). False (diagnosed) on an error. */
static bool order_file(const char *file, const char *sig, uint64_t seed, const char *hits) {
  char err[256] = "";
  Db *d = db_open(path(file), err, sizeof err);
  int64_t c = d ? db_campaign_begin(d, &(DbCampaign){.engine = "prng", .seed = seed, .policy = "gen.policy"}) : -1;
  bool ok = c > 0;
  char copy[128], text[64], summary[32];
  snprintf(copy, sizeof copy, "%s", hits);
  for (char *w = strtok(copy, " "); ok && w; w = strtok(NULL, " ")) {
    snprintf(text, sizeof text, "kernel %s() {}\n", w);
    snprintf(summary, sizeof summary, "at %s", w);
    DbFinding f = finding(sig, "mismatch", summary);
    DbTestcase tc = testcase(text, (uint64_t)atoi(w + 1));
    tc.indexed = w[0] == 'k', tc.kernel_index = atoi(w + 1);
    ok = db_record(d, c, &f, &tc, NULL, err, sizeof err) > 0;
  }
  ok = ok && db_campaign_end(d, c, 10, 0.1);
  if (!ok) tap_diag("%s: %s", file, d ? db_errmsg(d) : err);
  db_close(d);
  return ok;
}

static void rm_dir(void) {
  DIR *dp = opendir(dir);
  struct dirent *e;
  while (dp && (e = readdir(dp)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(path(e->d_name));
  if (dp) closedir(dp);
  rmdir(dir);
}

int main(void) {
  Tap t = {0};
  char err[256] = "";
  int rc;
  char *out;
  struct stat st;
  snprintf(dir, sizeof dir, "/tmp/t_db.XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }

  /* ---- 1. open and schema -------------------------------------------------------- */
  Db *a = db_open(path("a.db"), err, sizeof err);
  if (!tap_ok(&t, a != NULL, "db-1.1", "db_open creates a new file")) {
    tap_diag("%s", err);
    rm_dir();
    return tap_done(&t);
  }
  tap_ok(&t, stat(path("a.db"), &st) == 0, "db-1.2", "the file exists");
  tap_ok(&t, db_schema_version(a) == DB_SCHEMA_VERSION, "db-1.3", "user_version is the schema version (%d)",
         db_schema_version(a));
  tap_ok(&t, db_check(a, err, sizeof err), "db-1.4", "a fresh file passes the integrity check");
  FILE *junk = fopen(path("junk.db"), "w");
  fputs("this is not an SQLite database, not even close, but long enough to have a header........\n", junk);
  fclose(junk);
  Db *bad = db_open(path("junk.db"), err, sizeof err);
  tap_ok(&t, bad == NULL && strstr(err, "junk.db"), "db-1.5", "a file that is not a database is refused: %s", err);
  db_close(bad);

  /* ---- 2. campaigns ---------------------------------------------------------------- */
  int64_t c1 = db_campaign_begin(a, &(DbCampaign){.engine = "prng", .policy = "default", .defects = "odd-floor-half",
                                                   .tool_version = "0.1", .seed = 42});
  int64_t c2 = db_campaign_begin(a, &(DbCampaign){.engine = "prng", .seed = 43});
  tap_ok(&t, c1 > 0 && c2 > c1, "db-2.1", "campaign ids %lld %lld", (long long)c1, (long long)c2);
  tap_ok(&t, stat(path("a.db-wal"), &st) == 0, "db-2.2", "the file is in WAL mode (a -wal file beside it)");
  tap_ok(&t, db_campaign_end(a, c1, 60, 1.5) && db_campaign_end(a, c2, 40, 2.0), "db-2.3", "campaigns end");
  tap_ok(&t, !db_campaign_end(a, 999, 1, 1.0) && strstr(db_errmsg(a), "no campaign 999"), "db-2.4",
         "ending an unknown campaign fails: %s", db_errmsg(a));

  /* ---- 3. recording ------------------------------------------------------------------ */
  DbFinding f1 = finding("miscompile|up_down|-|tadd|auto_split|tail", "miscompile", "lane 1 tail rows differ");
  DbTestcase k1 = testcase("kernel one() {}\n", 7), k2 = testcase("kernel two() {}\n", 8);
  bool is_new = false;
  int64_t id1 = db_record(a, c1, &f1, &k1, &is_new, err, sizeof err);
  tap_ok(&t, id1 > 0 && is_new, "db-3.1", "a new signature is a new finding (id %lld)", (long long)id1);
  bool again = true;
  int64_t id1b = db_record(a, c2, &f1, &k2, &again, err, sizeof err);
  tap_ok(&t, id1b == id1 && !again, "db-3.2", "the same signature again is the same finding, not new");
  tap_ok(&t, hits_of(a, id1) == 2, "db-3.3", "hits counts both (%ld)", hits_of(a, id1));
  out = capture(a, 'l', 0, &rc);
  tap_ok(&t, rc == 0 && count(out, "\n") == 2 && count(out, f1.signature) == 1 && !strncmp(out, "ID ", 3), "db-3.4",
         "a header line and one finding row for two hits");
  free(out);
  DbFinding nosig = finding(NULL, "reject", "x");
  tap_ok(&t, db_record(a, c1, &nosig, &k1, NULL, err, sizeof err) == -1 && strstr(err, "signature"), "db-3.5",
         "a record without a signature is refused: %s", err);
  DbFinding f9 = finding("reject|none@a5|B-STORE|tstore|-|-", "reject", "orphan");
  int64_t id9 = db_record(a, 999, &f9, &k1, NULL, err, sizeof err);
  out = capture(a, 'l', 0, &rc);
  tap_ok(&t, id9 == -1 && !strstr(out, "orphan"), "db-3.6",
         "a record naming an unknown campaign fails and writes nothing: %s", err);
  free(out);
  DbRecord batch[3] = {
      {.f = finding("reject|none@a2a3|B-STORE|tstore|-|-", "reject", "element count"), .t = k1},
      {.f = finding("reject|none@a2a3|B-STORE|tstore|-|-", "reject", "element count"), .t = k2},
      {.f = f1, .t = k1},
  };
  bool okb = db_record_batch(a, c2, batch, 3, err, sizeof err);
  tap_ok(&t, okb && batch[0].is_new && !batch[1].is_new && batch[0].id == batch[1].id && !batch[2].is_new &&
                 batch[2].id == id1,
         "db-3.7", "a batch: new, then the same, then an old one");
  int64_t id2 = batch[0].id;
  DbRecord bad2[2] = {{.f = finding("hang|up_down|R-DEADLOCK|tpop|-|-", "hang", "x"), .t = k1},
                      {.f = finding("hang|up_down|R-DEADLOCK|tpop|-|-", "hang", "x"), .t = {.kernel = NULL}}};
  bool okbad = db_record_batch(a, c2, bad2, 2, err, sizeof err);
  out = capture(a, 'l', 0, &rc);
  tap_ok(&t, !okbad && count(out, "\n") == 3 && !strstr(out, "hang"), "db-3.8",
         "a batch with a bad record writes nothing: %s", err);
  free(out);

  /* ---- 4. the test case cap ------------------------------------------------------------ */
  DbTestcase k3 = testcase("kernel three() {}\n", 9), k4 = testcase("kernel four() {}\n", 10);
  db_record(a, c1, &f1, &k3, NULL, err, sizeof err);
  db_record(a, c1, &f1, &k4, NULL, err, sizeof err);
  out = capture(a, 's', id1, &rc);
  tap_ok(&t, rc == 0 && count(out, "\ntestcase ") == DB_TESTCASE_CAP, "db-4.1", "only %d test cases kept (%d)",
         DB_TESTCASE_CAP, count(out, "\ntestcase "));
  tap_ok(&t, strstr(out, "kernel one()") && strstr(out, "kernel two()") && !strstr(out, "kernel four()"), "db-4.2",
         "the first ones are kept");
  tap_ok(&t, hits_of(a, id1) == 5, "db-4.3", "but every hit is counted (%ld)", hits_of(a, id1));

  /* ---- 5. list, show, stats, export ------------------------------------------------------ */
  has(&t, out, "signature       miscompile|up_down|-|tadd|auto_split|tail", "db-5.1", "show has the signature");
  has(&t, out, "campaigns       1 2", "db-5.2", "show has the campaigns of the test cases");
  has(&t, out, "seed 7, variant up_down, flags --bugs=odd-floor-half, 7 statements", "db-5.3",
      "show has a test case's seed, variant, flags and size");
  free(out);
  out = capture(a, 's', 12345, &rc);
  tap_ok(&t, rc == 1 && !*out && strstr(db_errmsg(a), "no finding 12345"), "db-5.4",
         "show of an unknown id returns 1: %s", db_errmsg(a));
  free(out);
  out = capture(a, 'l', 0, &rc);
  has(&t, out, "new         5  miscompile|up_down|-|tadd|auto_split|tail  lane 1 tail rows differ", "db-5.5",
      "list: id, status, hits, signature, summary");
  free(out);
  out = capture(a, 't', 0, &rc);
  tap_ok(&t, rc == 0 && strstr(out, "campaigns 2\nkernels 100\nseconds 3.5\nfindings 2\nhits 7\ntestcases 5\n"),
         "db-5.6", "stats: campaigns, kernels, seconds, findings, hits, test cases");
  has(&t, out, "status new 2\nstatus triaged 0\nstatus fixed 0\nstatus wontfix 0\n", "db-5.7", "stats by status");
  has(&t, out, "kind miscompile 1 findings 5 hits\nkind reject 1 findings 2 hits\n", "db-5.8", "stats by kind");
  free(out);
  DbFinding f3 = finding("escape|up_down|R-RACE|tstore|-|-", "escape", "race");
  DbTestcase big = testcase("kernel big() {}", UINT64_MAX);
  int64_t id3 = db_record(a, 0, &f3, &big, NULL, err, sizeof err);
  out = capture(a, 'e', id3, &rc);
  tap_ok(&t, rc == 0 && !strcmp(out, "# ptofuzz finding 3\n# signature: escape|up_down|R-RACE|tstore|-|-\n"
                                     "# variant: up_down\n# flags: --bugs=odd-floor-half\n"
                                     "# seed: 18446744073709551615\n# expect: clean\n"
                                     "# defect: odd-floor-half -> escape escape|up_down|R-RACE|tstore|-|-\n"
                                     "kernel big() {}\n"),
         "db-5.9", "export: '#' header (a 64-bit seed intact, pto-check's expect and defect) and the kernel");
  if (rc || strncmp(out, "# ptofuzz", 9)) tap_diag("%s", out);
  free(out);
  tap_ok(&t, db_set_reduced(a, id1, "kernel small() {}\n", err, sizeof err), "db-5.10", "store a reduced kernel");
  out = capture(a, 'e', id1, &rc);
  tap_ok(&t, rc == 0 && strstr(out, "# seed: 7\n# expect: clean\n# defect: odd-floor-half -> miscompile ") &&
                 strstr(out, "|tail\nkernel small() {}\n") && !strstr(out, "kernel one"), "db-5.11",
         "export prefers the reduced kernel");
  free(out);
  out = capture(a, 'e', 999, &rc);
  tap_ok(&t, rc == 1 && !*out, "db-5.12", "export of an unknown id returns 1");
  free(out);

  /* ---- 6. status, fixed kernels ---------------------------------------------------------- */
  tap_ok(&t, db_set_status(a, id1, "fixed", NULL, err, sizeof err) && db_set_status(a, id2, "triaged", NULL, err, sizeof err),
         "db-6.1", "set statuses");
  tap_ok(&t, !db_set_status(a, id1, "done", NULL, err, sizeof err) && strstr(err, "unknown status"), "db-6.2",
         "an unknown status is refused: %s", err);
  tap_ok(&t, !db_set_status(a, 777, "fixed", NULL, err, sizeof err) && strstr(err, "no finding 777"), "db-6.3",
         "an unknown id is refused: %s", err);
  FixedSeen fs = {0};
  int nfixed = db_fixed_testcases(a, on_fixed, &fs);
  tap_ok(&t, nfixed == 1 && fs.n == 1 && fs.finding == id1 && !strcmp(fs.text, "kernel small() {}\n"), "db-6.4",
         "the fixed finding's reduced kernel comes back (%d calls)", nfixed);
  db_set_status(a, id3, "fixed", NULL, err, sizeof err);
  fs = (FixedSeen){0};
  nfixed = db_fixed_testcases(a, on_fixed, &fs);
  tap_ok(&t, nfixed == 2 && fs.finding == id3 && !strcmp(fs.text, "kernel big() {}"), "db-6.5",
         "without a reduced kernel, the first one");
  out = capture(a, 'l', 0, &rc);
  tap_ok(&t, strstr(out, "fixed") && strstr(out, "triaged"), "db-6.6", "list shows the statuses");
  free(out);
  DbStatusNote note = {.who = "db recheck", .toolchain = "ptoas-v9", .evidence = "does not reproduce: clean"};
  tap_ok(&t, db_set_status(a, id2, "fixed", &note, err, sizeof err) && db_set_cluster(a, id2, "k1", err, sizeof err) &&
                 !db_set_cluster(a, 777, "k1", err, sizeof err),
         "db-6.7", "a status with its setter and toolchain; a cluster key; an unknown id refused");
  DbInfo inf;
  tap_ok(&t, db_info(a, id2, &inf, err, sizeof err) && inf.cluster && !strcmp(inf.cluster, "k1") && inf.fixed_in &&
                 !strcmp(inf.fixed_in, "ptoas-v9") && inf.history && strstr(inf.history, " triaged by ") &&
                 strstr(inf.history, " fixed by db recheck on ptoas-v9: does not reproduce: clean"),
         "db-6.8", "db_info carries the cluster, the fixing toolchain and the status history: %s",
         inf.history ? inf.history : "(none)");
  db_info_free(&inf);
  out = capture(a, 's', id2, &rc);
  tap_ok(&t, rc == 0 && strstr(out, "\ncluster         k1\n") && strstr(out, "status_change   ") &&
                 strstr(out, " fixed by db recheck on ptoas-v9: does not reproduce"),
         "db-6.9", "show prints the cluster and every status change");
  free(out);

  /* ---- 7. merge ----------------------------------------------------------------------------- */
  Db *b = db_open(path("b.db"), err, sizeof err);
  int64_t cb = db_campaign_begin(b, &(DbCampaign){.engine = "afl++", .seed = 5});
  db_campaign_end(b, cb, 10, 1.0);
  DbFinding fb = finding("hang|left_right|R-DEADLOCK|tpop|-|-", "hang", "both cores wait");
  DbTestcase kb = testcase("kernel fromb() {}\n", 11);
  for (int i = 0; i < 3; i++) db_record(b, cb, &f1, &kb, NULL, err, sizeof err);  /* f1: 3 hits in b */
  db_record(b, cb, &fb, &kb, NULL, err, sizeof err);
  int merged = db_merge(a, path("b.db"), NULL, err, sizeof err);
  if (!tap_ok(&t, merged == 1, "db-7.1", "merge adds the one new signature (%d)", merged)) tap_diag("%s", err);
  out = capture(a, 'l', 0, &rc);
  tap_ok(&t, count(out, "\n") == 5 && count(out, f1.signature) == 1 && count(out, fb.signature) == 1, "db-7.2",
         "the union by signature, no duplicate");
  free(out);
  tap_ok(&t, hits_of(a, id1) == 8, "db-7.3", "hits summed (%ld)", hits_of(a, id1));
  out = capture(a, 's', id1, &rc);
  tap_ok(&t, strstr(out, "status          fixed") && count(out, "\ntestcase ") == DB_TESTCASE_CAP &&
                 !strstr(out, "fromb"),
         "db-7.4", "the existing status is kept, the test case cap holds");
  free(out);
  out = capture(a, 't', 0, &rc);
  has(&t, out, "campaigns 3\nkernels 110\n", "db-7.5", "campaigns copied");
  free(out);
  out = capture(a, 's', 4, &rc);
  tap_ok(&t, rc == 0 && strstr(out, "campaigns       3") && strstr(out, "kernel fromb()"), "db-7.6",
         "a new finding brings its test case, its campaign renumbered");
  free(out);
  tap_ok(&t, db_merge(a, path("a.db"), NULL, err, sizeof err) == -1 && strstr(err, "itself"), "db-7.7",
         "merging a file into itself is refused: %s", err);
  tap_ok(&t, db_merge(a, path("none.db"), NULL, err, sizeof err) == -1 && stat(path("none.db"), &st) != 0, "db-7.8",
         "merging a missing file fails and does not create it: %s", err);
  tap_ok(&t, db_merge(a, path("junk.db"), NULL, err, sizeof err) == -1, "db-7.9", "merging a non-database fails: %s", err);
  err[0] = 0;
  tap_ok(&t, db_check(a, err, sizeof err), "db-7.10", "integrity and foreign keys ok after merge %s", err);
  db_close(b);
  /* a's statuses and cluster into a fresh file, twice: copied once */
  Db *c = db_open(path("status.db"), err, sizeof err);
  bool twice = c && db_merge(c, path("a.db"), NULL, err, sizeof err) >= 0 && db_merge(c, path("a.db"), NULL, err, sizeof err) >= 0;
  out = c ? capture(c, 's', id2, &rc) : NULL;
  tap_ok(&t, twice && out && strstr(out, "\ncluster         k1\n") && count(out, "status_change   ") == 2,
         "db-7.11", "a merge carries the cluster and the status history, once");
  free(out);
  db_close(c);

  /* ---- 8. reopen ------------------------------------------------------------------------------- */
  char *before = capture(a, 'l', 0, &rc);
  db_close(a);
  a = db_open(path("a.db"), err, sizeof err);
  out = a ? capture(a, 'l', 0, &rc) : NULL;
  tap_ok(&t, out && !strcmp(before, out) && db_schema_version(a) == DB_SCHEMA_VERSION, "db-8.1",
         "reopening keeps the data");
  free(out);
  free(before);

  /* ---- 9. two handles on one file ---------------------------------------------------------------- */
  Db *h1 = db_open(path("c.db"), err, sizeof err), *h2 = db_open(path("c.db"), err, sizeof err);
  bool ok9 = h1 && h2;
  int64_t ca = ok9 ? db_campaign_begin(h1, &(DbCampaign){.engine = "prng"}) : -1;
  int64_t cc = ok9 ? db_campaign_begin(h2, &(DbCampaign){.engine = "prng"}) : -1;
  bool n1 = false, n2 = false;
  for (int i = 0; ok9 && i < 6; i++) {
    Db *h = i % 2 ? h2 : h1;
    DbFinding f = finding(i < 4 ? "miscompile|x" : "reject|y", "miscompile", "two");
    ok9 = db_record(h, i % 2 ? cc : ca, &f, &k1, i == 0 ? &n1 : i == 1 ? &n2 : NULL, err, sizeof err) > 0;
  }
  if (!ok9) tap_diag("%s", err);
  tap_ok(&t, ok9 && ca != cc && n1 && !n2 && hits_of(h1, 1) == 4 && hits_of(h2, 2) == 2, "db-9.1",
         "two handles interleave writes and see each other's");
  db_close(h1);
  db_close(h2);

  /* ---- 10. several writer processes ------------------------------------------------------------------- */
  enum { NW = 4, PER = 30 };
  pid_t pid[NW];
  for (int w = 0; w < NW; w++)
    if ((pid[w] = fork()) == 0) writer(path("w.db"), w, PER);
  bool clean = true;
  for (int w = 0; w < NW; w++) {
    int status = 0;
    clean = waitpid(pid[w], &status, 0) == pid[w] && WIFEXITED(status) && !WEXITSTATUS(status) && clean;
  }
  Db *w = db_open(path("w.db"), err, sizeof err);
  long total = 0;
  for (int i = 1; w && i <= 5; i++) total += hits_of(w, i);
  out = w ? capture(w, 't', 0, &rc) : NULL;
  tap_ok(&t, clean && total == NW * PER && out && strstr(out, "campaigns 4\nkernels 120\n") &&
                 strstr(out, "findings 5\n") && strstr(out, "testcases 15\n"),
         "db-10.1", "%d writers at once: every hit counted once (%ld)", NW, total);
  err[0] = 0;
  tap_ok(&t, w && db_check(w, err, sizeof err), "db-10.2", "integrity ok after concurrent writes %s", err);
  free(out);
  db_close(w);

  /* ---- 11. a writer killed with SIGKILL ------------------------------------------------------------------ */
  int pfd[2];
  if (pipe(pfd)) abort();
  pid_t k = fork();
  if (k == 0) {
    close(pfd[0]);
    Db *d = db_open(path("k.db"), err, sizeof err);
    int64_t c = d ? db_campaign_begin(d, &(DbCampaign){.engine = "prng"}) : -1;
    if (c <= 0) _exit(2);
    for (long i = 0;; i++) {
      char sig[32];
      snprintf(sig, sizeof sig, "crash|k|%ld", i % 50);
      DbFinding f = finding(sig, "crash", "killed");
      if (db_record(d, c, &f, &k1, NULL, err, sizeof err) < 0) _exit(3);
      if (i == 20 && write(pfd[1], "x", 1) != 1) _exit(4);
    }
  }
  close(pfd[1]);
  char x;
  bool started = read(pfd[0], &x, 1) == 1;
  close(pfd[0]);
  usleep(50 * 1000);
  kill(k, SIGKILL);
  int status = 0;
  waitpid(k, &status, 0);
  err[0] = 0;
  Db *kd = db_open(path("k.db"), err, sizeof err);
  tap_ok(&t, started && WIFSIGNALED(status) && kd && db_check(kd, err, sizeof err), "db-11.1",
         "integrity ok after a writer is killed mid-campaign %s", err);
  DbFinding fk = finding("crash|k|0", "crash", "killed");
  tap_ok(&t, kd && db_record(kd, 0, &fk, &k1, NULL, err, sizeof err) > 0 && hits_of(kd, 1) >= 2, "db-11.2",
         "and the file takes writes again");
  db_close(kd);

  /* ---- 13. merge by campaign identity ------------------------------------------------------------------ */
  DbMergeStats ms = {0};
  long h1before = hits_of(a, id1);
  int again2 = db_merge(a, path("b.db"), &ms, err, sizeof err);
  out = capture(a, 't', 0, &rc);
  tap_ok(&t, again2 == 0 && ms.known == 1 && ms.campaigns == 0 && ms.hits == 0 && hits_of(a, id1) == h1before &&
                 strstr(out, "campaigns 3\nkernels 110\n"),
         "db-13.1", "merging the same file again adds no campaign, no hit (known %lld, hits %lld)", (long long)ms.known,
         (long long)ms.hits);
  free(out);
  const char *sigm = "miscompile|left_right|-|tmul|auto_split|tail", *sign = "reject|none@a5|B-STORE|tstore|-|-";
  bool okm = shard(path("s1.db"), 101, 50, sigm, 4) && shard(path("s2.db"), 102, 70, sigm, 6) &&
             shard(path("s3.db"), 103, 30, sign, 2);
  Db *m = okm ? db_open(path("m.db"), err, sizeof err) : NULL;
  okm = m && db_merge(m, path("s1.db"), NULL, err, sizeof err) == 1 && db_merge(m, path("s2.db"), &ms, err, sizeof err) == 0 &&
        ms.campaigns == 1 && ms.kernels == 70 && ms.hits == 6 && db_merge(m, path("s3.db"), NULL, err, sizeof err) == 1;
  out = m ? capture(m, 't', 0, &rc) : NULL;
  tap_ok(&t, okm && hits_of(m, 1) == 10 && hits_of(m, 2) == 2 && out && strstr(out, "campaigns 3\nkernels 150\n") &&
                 strstr(out, "hits 12\n"),
         "db-13.2", "three shards merged: hits and kernels are the sums %s", okm ? "" : err);
  free(out);
  /* a diamond: s1 into s2's copy, then that copy and s1 again into m2 */
  Db *m2 = db_open(path("m2.db"), err, sizeof err), *s2 = db_open(path("s2.db"), err, sizeof err);
  bool okd = m2 && s2 && db_merge(s2, path("s1.db"), NULL, err, sizeof err) == 0;
  db_close(s2);
  okd = okd && db_merge(m2, path("s2.db"), NULL, err, sizeof err) == 1 &&
        db_merge(m2, path("s1.db"), &ms, err, sizeof err) == 0 && ms.known == 1 && ms.hits == 0;
  out = m2 ? capture(m2, 't', 0, &rc) : NULL;
  tap_ok(&t, okd && hits_of(m2, 1) == 10 && out && strstr(out, "campaigns 2\nkernels 120\n"), "db-13.3",
         "a campaign reached by two paths is counted once (hits %ld) %s", m2 ? hits_of(m2, 1) : -1L, okd ? "" : err);
  free(out);
  err[0] = 0;
  tap_ok(&t, m && m2 && db_check(m, err, sizeof err) && db_check(m2, err, sizeof err), "db-13.4",
         "integrity and foreign keys ok after the merges %s", err);
  out = m ? capture(m, 's', 1, &rc) : NULL;
  tap_ok(&t, out && rc == 0 && strstr(out, "campaigns       1 2\n") && strstr(out, "campaign 1: hits 4, engine prng, seed 101") &&
                 strstr(out, "campaign 2: hits 6, engine prng, seed 102"),
         "db-13.5", "show lists each campaign of a finding with its hits");
  if (out && !strstr(out, "campaign 2: hits 6")) tap_diag("%s", out);
  free(out);
  db_close(m);
  db_close(m2);

  /* ---- 14. every campaign of a finding, beyond the test case cap ---------------------------------------- */
  Db *e = db_open(path("e.db"), err, sizeof err);
  DbFinding fe = finding("hang|up_down|R-DEADLOCK|tpop|-|-", "hang", "waits");
  bool oke = e != NULL;
  for (int i = 0; oke && i < 5; i++) {
    int64_t c = db_campaign_begin(e, &(DbCampaign){.engine = "prng", .seed = (uint64_t)i});
    DbTestcase tc = testcase("kernel e() {}\n", (uint64_t)i);
    oke = c > 0 && db_record(e, c, &fe, &tc, NULL, err, sizeof err) > 0 && db_campaign_end(e, c, 1, 0.1);
  }
  out = oke ? capture(e, 's', 1, &rc) : NULL;
  tap_ok(&t, out && rc == 0 && strstr(out, "campaigns       1 2 3 4 5\n") && count(out, "\ncampaign ") == 5 &&
                 count(out, "\ntestcase ") == DB_TESTCASE_CAP,
         "db-14.1", "show names all 5 campaigns though only %d test cases are kept", DB_TESTCASE_CAP);
  free(out);
  out = oke ? capture(e, 's', -1, &rc) : NULL;
  tap_ok(&t, out && rc == 1 && !*out && strstr(db_errmsg(e), "no finding -1"), "db-14.2", "show -1: %s", db_errmsg(e));
  free(out);
  db_close(e);
  Db *empty = db_open(path("empty.db"), err, sizeof err);
  out = empty ? capture(empty, 'l', 0, &rc) : NULL;
  tap_ok(&t, out && rc == 0 && strstr(out, "ID ") == out && strstr(out, "\n(no findings)\n"), "db-14.3",
         "list of an empty database: the header and '(no findings)'");
  free(out);
  db_close(empty);
  Db *miss = db_open_existing(path("missing.db"), err, sizeof err);
  tap_ok(&t, !miss && strstr(err, "missing.db") && strstr(err, "no such file") && stat(path("missing.db"), &st) != 0,
         "db-14.4", "db_open_existing of a missing file fails and creates nothing: %s", err);
  db_close(miss);
  Db *ex = db_open_existing(path("e.db"), err, sizeof err);
  tap_ok(&t, ex && db_schema_version(ex) == DB_SCHEMA_VERSION, "db-14.5", "db_open_existing opens an existing file");
  db_close(ex);

  /* ---- 15. which test cases and summary a merge keeps (kernel index order) ------------------------- */
  static const struct {
    const char *id, *into, *from;               /* hits of the target, of the merged file */
    uint64_t into_seed, from_seed;
    const char *kept, *summary;                 /* kernels kept after the merge, the summary */
    bool reduced;                               /* the target's first test case is reduced */
  } ord[] = {
      {"db-15.1", "k1 k3 k5 k7", "k0 k2 k4", 7, 7, "k0 k1 k2", "at k0", false}, /* incoming lower: its cases and summary */
      {"db-15.2", "k0 k2 k4", "k1 k3 k5 k7", 7, 7, "k0 k1 k2", "at k0", false}, /* the other order: the same rows */
      {"db-15.3", "k1 k3 k5", "k0 k2", 7, 8, "k1 k3 k5", "at k1", false},       /* other seed: first ones, target's summary */
      {"db-15.4", "n1 n2", "k6 k4", 7, 7, "k4 k6 n1", "at n1", false},          /* no index sorts last; summary needs both */
      {"db-15.5", "k2 k9", "k1 k2 k5", 7, 7, "k1 k2 k5", "at k1", false},       /* a duplicate (k2) counts once */
      {"db-15.6", "k3 k4 k5", "k0 k1 k2", 7, 7, "k3 k0 k1", "at k0", true}, /* a reduction is kept */
  };
  for (size_t i = 0; i < sizeof ord / sizeof *ord; i++) {
    const char *sig = "mismatch|up_down|-|tadd|auto_split|tail";
    char into[32], from[32];
    snprintf(into, sizeof into, "o%zu.db", i), snprintf(from, sizeof from, "p%zu.db", i);
    bool okm = order_file(into, sig, ord[i].into_seed, ord[i].into) && order_file(from, sig, ord[i].from_seed, ord[i].from);
    Db *o = okm ? db_open(path(into), err, sizeof err) : NULL;
    okm = o && (!ord[i].reduced || db_set_reduced(o, 1, "kernel r() {}\n", err, sizeof err)) &&
          db_merge(o, path(from), NULL, err, sizeof err) == 0;
    out = okm ? capture(o, 's', 1, &rc) : NULL;
    char want[64], kept[64];
    snprintf(want, sizeof want, "summary         %s\n", ord[i].summary);
    bool good = out && rc == 0 && strstr(out, want);
    int nk = 0;
    snprintf(kept, sizeof kept, "%s", ord[i].kept);
    for (char *w = strtok(kept, " "); good && w; w = strtok(NULL, " "), nk++) {
      snprintf(want, sizeof want, "kernel %s() {}", w);
      good = count(out, want) == 1;
    }
    good = good && count(out, "\ntestcase ") == nk && (!ord[i].reduced || strstr(out, "kernel r() {}"));
    if (!tap_ok(&t, good, ord[i].id, "merge of [%s] into [%s] keeps [%s], summary '%s'", ord[i].from, ord[i].into,
                ord[i].kept, ord[i].summary))
      tap_diag("%s", out ? out : err);
    free(out);
    db_close(o);
  }

  db_close(a);
  rm_dir();
  tap_ok(&t, stat(dir, &st) != 0, "db-12.1", "the temporary directory is gone");
  return tap_done(&t);
}
