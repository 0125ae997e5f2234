/* db.c — the findings database (DESIGN section 11). The only code that talks to
 * SQLite: prepared statements, every bind checked, every statement finalized
 * before its function returns, every write one BEGIN IMMEDIATE transaction.
 * The file is in WAL mode, so a writer killed mid-transaction leaves it intact,
 * and several processes may write it at once: each waits up to 10 s for the
 * write lock (busy_timeout) and retries a busy BEGIN or COMMIT a few times.
 * The schema version is PRAGMA user_version; PRAGMA application_id marks the
 * file as ours ('PTOF'). Schema version 3, in full:
 *
 *   CREATE TABLE campaign(
 *     id INTEGER PRIMARY KEY,
 *     engine TEXT,              -- prng, libfuzzer, afl++, ...
 *     seed INTEGER,             -- the uint64 bit pattern
 *     policy TEXT,              -- the generator policy (file name or text)
 *     defects TEXT,             -- --bugs list, "" for none
 *     tool_version TEXT,
 *     started TEXT,             -- ISO-8601 UTC
 *     ended TEXT,               -- NULL while running (or if the run died)
 *     kernels INTEGER,          -- kernels checked
 *     seconds REAL,
 *     uid TEXT);                -- the campaign's identity across files (v2)
 *   CREATE TABLE finding(
 *     id INTEGER PRIMARY KEY,
 *     signature TEXT UNIQUE NOT NULL,   -- kind|mode|code|op|pass|pattern
 *     kind TEXT, mode TEXT, code TEXT, op TEXT, pass TEXT, pattern TEXT,
 *     summary TEXT,             -- one line, from the first hit
 *     first_seen TEXT,          -- ISO-8601 UTC
 *     last_seen TEXT,
 *     hits INTEGER,             -- all hits: the sum of its sightings, and hits outside campaigns
 *     status TEXT CHECK(status IN ('new','triaged','fixed','wontfix')) DEFAULT 'new',
 *     first_bad_pass TEXT);
 *   CREATE TABLE testcase(
 *     id INTEGER PRIMARY KEY,
 *     finding INTEGER REFERENCES finding(id),
 *     campaign INTEGER REFERENCES campaign(id),   -- NULL: recorded outside a campaign
 *     kernel TEXT NOT NULL,     -- the rendered kernel text
 *     reduced TEXT,             -- the reduced kernel, once reduced
 *     seed INTEGER,             -- oracle input seed (uint64 bit pattern)
 *     variant TEXT,             -- none@a2a3, up_down, ...
 *     flags TEXT,               -- e.g. --bugs=odd-floor-half
 *     statements INTEGER,       -- statement count of kernel
 *     kernel_index INTEGER);    -- v3: i of the campaign's kernel i; NULL: none (import, no campaign, older)
 *   CREATE INDEX testcase_finding ON testcase(finding);
 *   CREATE UNIQUE INDEX campaign_uid ON campaign(uid);                      -- v2
 *   CREATE TABLE sighting(                                                   -- v2
 *     finding INTEGER NOT NULL REFERENCES finding(id),
 *     campaign INTEGER NOT NULL REFERENCES campaign(id),
 *     hits INTEGER NOT NULL,    -- the finding's hits in that campaign
 *     PRIMARY KEY(finding, campaign)) WITHOUT ROWID;
 *   CREATE TABLE campaign_variant(      -- v3: per campaign and variant, for the dashboard
 *     campaign INTEGER REFERENCES campaign(id),
 *     variant TEXT NOT NULL,    -- none@a2a3, none@a5, up_down, left_right
 *     valid INTEGER,            -- valid kernels of the campaign
 *     unsupported INTEGER,      -- of them, how many this variant skipped (an unsupported diagnostic)
 *     PRIMARY KEY(campaign, variant));
 *   ALTER TABLE finding ADD COLUMN cluster TEXT;   -- v4: the cluster key (rep_cluster_key), NULL: not computed
 *   CREATE TABLE status_change(         -- v4: every status a finding was given, oldest first
 *     id INTEGER PRIMARY KEY,
 *     finding INTEGER NOT NULL REFERENCES finding(id),
 *     status TEXT NOT NULL,     -- new, triaged, fixed, wontfix
 *     toolchain TEXT,           -- fixed: the build it no longer reproduces on (db recheck); NULL: not said
 *     who TEXT,                 -- $USER, or the command that set it ("db recheck")
 *     at TEXT,                  -- ISO-8601 UTC
 *     evidence TEXT);           -- one line: the replay's outcome
 *   CREATE INDEX status_change_finding ON status_change(finding);
 *   PRAGMA application_id = 1347702598;   -- 0x50544F46, 'PTOF'
 *   PRAGMA user_version = 4;
 *
 * Version 1 had neither campaign.uid nor sighting. Opening a version 1 file
 * upgrades it (the upgrade actions; each adds what the file lacks, whatever
 * version it says): each campaign without a uid gets the uid
 * "v1:ENGINE:SEED:STARTED:N" (N tells apart campaigns equal in those three),
 * which is the same in every copy of the file, so copies merged before the
 * upgrade are still recognised; sightings are rebuilt from the test cases,
 * and the hits they miss (test cases are capped) go to the finding's first
 * campaign. A new campaign's uid is 32 hex digits from /dev/urandom.
 * Version 3 added campaign_variant and testcase.kernel_index (NULL in the
 * test cases of an upgraded file). Version 4 added finding.cluster and
 * status_change (empty for the statuses an upgraded file already held).
 *
 * Merging (db_merge) goes by identity: a campaign whose uid the target
 * already holds is skipped with its sightings, hits and test cases, so the
 * same campaign is never counted twice however files are merged (A into B,
 * then B into C and A into C); finding hits are summed over the campaigns
 * that are new. Hits recorded outside a campaign have no identity and are
 * added by every merge that carries them.
 *
 * Which test cases a finding keeps after a merge (merge_testcases): d's and
 * the other file's new ones (not a duplicate of one d holds) are pooled. When
 * the pool's indexed test cases all come from campaigns of one seed and
 * policy, kernel i is the same kernel in all of them, so the pool is ordered
 * as one campaign over those kernels would have recorded it: a reduced one
 * first (a reduction is never dropped), then by kernel index, NULL last, then
 * by id (d's before the other file's); and when both files have an indexed
 * test case of the finding and the other file's lowest index is lower, its
 * summary replaces d's (a summary is written by the finding's first hit,
 * which a campaign commits in kernel order). Otherwise the pool keeps id
 * order: d's first, then the other file's, as before version 3. Either way the
 * first DB_TESTCASE_CAP stay; in the ordered case they are then copied
 * anew in that order (fresh ids), so the lowest id, the test case a report,
 * an export or a reduction takes first, is the one a single run takes.
 * Shards of one campaign merged in any order thus keep what one run over
 * their kernels keeps, first test case included.

 * At most DB_TESTCASE_CAP test cases are kept per finding (the first ones), to
 * bound the file. Foreign keys are enforced. Timestamps are written, never
 * read back to order or select anything: rows are ordered by id. */
#include "rep.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  BUSY_TIMEOUT_MS = 10000,                      /* wait for another writer's lock */
  BUSY_RETRIES = 4,                             /* then retry BEGIN / COMMIT this often */
  RETRY_MS = 25,                                /* doubling pause between retries */
  APP_ID = 0x50544F46,                          /* 'PTOF' */
};

#define NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* Step 0 creates a version 1 file. */
static const char create_v1[] =
    "CREATE TABLE campaign("
    " id INTEGER PRIMARY KEY, engine TEXT, seed INTEGER, policy TEXT, defects TEXT,"
    " tool_version TEXT, started TEXT, ended TEXT, kernels INTEGER, seconds REAL);"
    "CREATE TABLE finding("
    " id INTEGER PRIMARY KEY, signature TEXT UNIQUE NOT NULL, kind TEXT, mode TEXT,"
    " code TEXT, op TEXT, pass TEXT, pattern TEXT, summary TEXT, first_seen TEXT,"
    " last_seen TEXT, hits INTEGER,"
    " status TEXT CHECK(status IN ('new','triaged','fixed','wontfix')) DEFAULT 'new',"
    " first_bad_pass TEXT);"
    "CREATE TABLE testcase("
    " id INTEGER PRIMARY KEY, finding INTEGER REFERENCES finding(id),"
    " campaign INTEGER REFERENCES campaign(id), kernel TEXT NOT NULL, reduced TEXT,"
    " seed INTEGER, variant TEXT, flags TEXT, statements INTEGER);"
    "CREATE INDEX testcase_finding ON testcase(finding);";

/* The upgrades from version 1, each an action that is taken only when what it
 * adds is missing (a column of a table, or a table), so a file whose version
 * says less than it holds (written by a tool whose numbering of the steps
 * differed) upgrades too: every action is checked on every upgrade, whatever
 * the version it starts from. sql runs when column (of table) or, with no
 * column, table is missing; with neither, always (it must be idempotent). */
static const struct {
  int to;                                       /* the version that added it */
  const char *table, *column, *sql;
} upgrade[] = {
    /* 1 -> 2: campaign identity and sightings (see the header comment) */
    {2, "campaign", "uid", "ALTER TABLE campaign ADD COLUMN uid TEXT"},
    {2, NULL, NULL,
     "UPDATE campaign SET uid = printf('v1:%s:%s:%s:%d', coalesce(engine, ''), coalesce(seed, ''),"
     " coalesce(started, ''), (SELECT count(*) FROM campaign c WHERE c.id < campaign.id AND c.engine IS campaign.engine"
     "  AND c.seed IS campaign.seed AND c.started IS campaign.started)) WHERE uid IS NULL;"
     "CREATE UNIQUE INDEX IF NOT EXISTS campaign_uid ON campaign(uid);"},
    {2, "sighting", NULL,
     "CREATE TABLE sighting("
     " finding INTEGER NOT NULL REFERENCES finding(id), campaign INTEGER NOT NULL REFERENCES campaign(id),"
     " hits INTEGER NOT NULL, PRIMARY KEY(finding, campaign)) WITHOUT ROWID;"
     "INSERT INTO sighting(finding, campaign, hits) SELECT finding, campaign, count(*) FROM testcase"
     " WHERE finding IS NOT NULL AND campaign IS NOT NULL GROUP BY finding, campaign;"
     "UPDATE sighting SET hits = hits + max(0, (SELECT coalesce(f.hits, 0) FROM finding f WHERE f.id = sighting.finding)"
     " - (SELECT sum(s.hits) FROM sighting s WHERE s.finding = sighting.finding))"
     " WHERE campaign = (SELECT min(s.campaign) FROM sighting s WHERE s.finding = sighting.finding);"},
    /* 2 -> 3: unsupported counts per campaign and variant, for the dashboard */
    {3, "campaign_variant", NULL,
     "CREATE TABLE campaign_variant(campaign INTEGER REFERENCES campaign(id), variant TEXT NOT NULL,"
     " valid INTEGER, unsupported INTEGER, PRIMARY KEY(campaign, variant))"},
    /* and the campaign kernel index of a test case, for merges (see the header comment) */
    {3, "testcase", "kernel_index", "ALTER TABLE testcase ADD COLUMN kernel_index INTEGER"},
    /* 3 -> 4: clusters and the history of statuses */
    {4, "finding", "cluster", "ALTER TABLE finding ADD COLUMN cluster TEXT"},
    {4, "status_change", NULL,
     "CREATE TABLE status_change(id INTEGER PRIMARY KEY, finding INTEGER NOT NULL REFERENCES finding(id),"
     " status TEXT NOT NULL, toolchain TEXT, who TEXT, at TEXT, evidence TEXT)"},
    {4, NULL, NULL, "CREATE INDEX IF NOT EXISTS status_change_finding ON status_change(finding)"},
};
_Static_assert(DB_SCHEMA_VERSION == 4, "a new schema version needs its upgrade actions");

/* Add a test case unless its finding (?1) already has ?9 of them. */
static const char add_testcase_sql[] =
    "INSERT INTO testcase(finding, campaign, kernel, reduced, seed, variant, flags, statements, kernel_index)"
    " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10"
    " WHERE (SELECT count(*) FROM testcase WHERE finding = ?1) < ?9";

struct Db {
  sqlite3 *h;
  char err[400];                                /* the last error */
};

/* ---- errors ------------------------------------------------------------------ */

/* A broken internal invariant (misuse of SQLite by this file): print, abort. */
static _Noreturn void bug(const char *fmt, ...) {
  va_list ap;
  fputs("ptofuzz: internal error in reports/db.c: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}

static void fail(Db *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Db *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->err, sizeof d->err, fmt, ap);
  va_end(ap);
}

static void sqlfail(Db *d, const char *what) { fail(d, "%s: %s", what, sqlite3_errmsg(d->h)); }

static void give(const Db *d, char *err, size_t errn) {
  if (err && errn) snprintf(err, errn, "%s", d->err);
}

const char *db_errmsg(const Db *d) { return d ? d->err : "no database"; }

/* ---- statements ---------------------------------------------------------------- */

/* A prepared statement, or NULL (message in d). */
static sqlite3_stmt *prep(Db *d, const char *sql) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(d->h, sql, -1, &s, NULL) != SQLITE_OK) {
    sqlfail(d, "preparing a statement");
    sqlite3_finalize(s);
    return NULL;
  }
  if (!s) bug("empty statement: %s", sql);
  return s;
}

static void fin(sqlite3_stmt **s) {
  sqlite3_finalize(*s);                         /* its error, if any, was taken from step */
  *s = NULL;
}

static bool bound(Db *d, int rc) {
  if (rc == SQLITE_OK) return true;
  if (rc == SQLITE_RANGE || rc == SQLITE_MISUSE) bug("bind: %s", sqlite3_errstr(rc));
  fail(d, "binding a value: %s", sqlite3_errstr(rc));
  return false;
}

static bool bind_text(Db *d, sqlite3_stmt *s, int i, const char *v) {
  return bound(d, v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i));
}
static bool bind_int(Db *d, sqlite3_stmt *s, int i, int64_t v) { return bound(d, sqlite3_bind_int64(s, i, v)); }
static bool bind_real(Db *d, sqlite3_stmt *s, int i, double v) { return bound(d, sqlite3_bind_double(s, i, v)); }
static bool bind_null(Db *d, sqlite3_stmt *s, int i) { return bound(d, sqlite3_bind_null(s, i)); }
/* Column c of another statement's current row, type kept (NULL stays NULL). */
static bool bind_col(Db *d, sqlite3_stmt *s, int i, sqlite3_stmt *from, int c) {
  return bound(d, sqlite3_bind_value(s, i, sqlite3_column_value(from, c)));
}

/* SQLITE_ROW or SQLITE_DONE; 0 on an error (message in d, prefixed by what). */
static int step(Db *d, sqlite3_stmt *s, const char *what) {
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
  if (rc == SQLITE_MISUSE) bug("step misuse (%s)", what);
  sqlfail(d, what);
  return 0;
}

static bool done(Db *d, sqlite3_stmt *s, const char *what) { return step(d, s, what) == SQLITE_DONE; }

/* Ready s to run again with new bindings. */
static void rewind_stmt(sqlite3_stmt *s) {
  sqlite3_reset(s);                             /* returns the last step's error, already taken */
  sqlite3_clear_bindings(s);
}

static int64_t col_int(sqlite3_stmt *s, int c) { return sqlite3_column_int64(s, c); }
static const char *col_text(sqlite3_stmt *s, int c) { return (const char *)sqlite3_column_text(s, c); }
static const char *col_dash(sqlite3_stmt *s, int c) {
  const char *t = col_text(s, c);
  return t ? t : "-";
}

/* The uint64 bit pattern as an SQLite integer and back, without overflow. */
static int64_t to_s64(uint64_t v) { return v <= INT64_MAX ? (int64_t)v : -(int64_t)(UINT64_MAX - v) - 1; }
static uint64_t to_u64(int64_t v) { return v >= 0 ? (uint64_t)v : UINT64_MAX - (uint64_t)(-(v + 1)); }

/* One integer from a one-row statement (a PRAGMA or an aggregate). */
static bool query_int(Db *d, const char *sql, int64_t *v) {
  sqlite3_stmt *s = prep(d, sql);
  bool ok = s && step(d, s, sql) == SQLITE_ROW;
  if (ok) *v = col_int(s, 0);
  fin(&s);
  return ok;
}

/* SQL without parameters or result rows (transaction control, schema). */
static bool exec(Db *d, const char *sql, const char *what) {
  if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) == SQLITE_OK) return true;
  sqlfail(d, what);
  return false;
}

/* ---- transactions ------------------------------------------------------------- */

static bool busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

static bool tx_begin(Db *d, const char *what) {
  for (int i = 0;; i++) {
    int rc = sqlite3_exec(d->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return true;
    if (!busy(rc) || i == BUSY_RETRIES) {
      fail(d, "%s: starting a transaction: %s", what, sqlite3_errmsg(d->h));
      return false;
    }
    sqlite3_sleep(RETRY_MS << i);
  }
}

static void rollback(Db *d) {
  if (!sqlite3_get_autocommit(d->h)) sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
}

/* Commit if ok (retrying a busy commit), else roll back. True if committed. */
static bool tx_end(Db *d, bool ok, const char *what) {
  for (int i = 0; ok; i++) {
    int rc = sqlite3_exec(d->h, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return true;
    if (!busy(rc) || i == BUSY_RETRIES) {
      fail(d, "%s: committing: %s", what, sqlite3_errmsg(d->h));
      break;
    }
    sqlite3_sleep(RETRY_MS << i);
  }
  rollback(d);
  return false;
}

/* A read transaction: one snapshot for several statements. */
static bool rd_begin(Db *d) { return exec(d, "BEGIN", "starting a read transaction"); }
static void rd_end(Db *d) { rollback(d); }

/* ---- opening ---------------------------------------------------------------------- */

/* A file without a schema version must be empty, not someone else's. */
static bool no_tables(Db *d) {
  int64_t n;
  if (!query_int(d, "SELECT count(*) FROM sqlite_master", &n)) return false;
  if (n) fail(d, "not a ptofuzz findings database (it has other tables)");
  return !n;
}

/* Is the table (or, with a column, that column of it) there? -1 on an error. */
static int has(Db *d, const char *table, const char *column) {
  sqlite3_stmt *s = prep(d, column ? "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2"
                                   : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
  bool ok = s && bind_text(d, s, 1, table) && (!column || bind_text(d, s, 2, column)) &&
            step(d, s, "reading the schema") == SQLITE_ROW;
  int n = ok ? (int)col_int(s, 0) : -1;
  fin(&s);
  return n < 0 ? -1 : n > 0;
}

/* Create or upgrade the schema from version v, inside a write transaction. */
static bool upgrade_schema(Db *d, int64_t v) {
  if (v == 0 && (!no_tables(d) || !exec(d, create_v1, "creating the schema"))) return false;
  for (size_t i = 0; i < sizeof upgrade / sizeof *upgrade; i++) {
    int there = upgrade[i].table ? has(d, upgrade[i].table, upgrade[i].column) : 0;
    char what[96];
    snprintf(what, sizeof what, "upgrading the schema to version %d", upgrade[i].to);
    if (there < 0 || (!there && !exec(d, upgrade[i].sql, what))) return false;
  }
  char sql[96];
  snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", APP_ID, DB_SCHEMA_VERSION);
  return exec(d, sql, "setting the schema version");
}

/* The schema version of d's file, checked to be one this code can use. */
static bool schema_ok(Db *d, int64_t *version) {
  int64_t app;
  if (!query_int(d, "PRAGMA user_version", version) || !query_int(d, "PRAGMA application_id", &app)) return false;
  if (*version > DB_SCHEMA_VERSION) {
    fail(d, "schema version %" PRId64 " is newer than this tool's (%d)", *version, DB_SCHEMA_VERSION);
    return false;
  }
  if (*version > 0 && app != APP_ID) {
    fail(d, "not a ptofuzz findings database (application_id %" PRId64 ")", app);
    return false;
  }
  return true;
}

static bool set_wal(Db *d) {
  for (int i = 0;; i++) {
    sqlite3_stmt *s = prep(d, "PRAGMA journal_mode = WAL");
    if (!s) return false;
    int rc = sqlite3_step(s);
    bool ok = rc == SQLITE_ROW;
    const char *mode = ok ? col_text(s, 0) : NULL;
    /* an in-memory or temporary database has no WAL: accept its own mode */
    const char *file = sqlite3_db_filename(d->h, "main");
    ok = ok && mode && (!strcmp(mode, "wal") || !file || !*file);
    if (!ok && rc == SQLITE_ROW) fail(d, "cannot switch to WAL mode (journal mode %s)", mode ? mode : "?");
    if (rc != SQLITE_ROW) sqlfail(d, "switching to WAL mode");
    fin(&s);
    if (ok) return true;
    if (!busy(rc) || i == BUSY_RETRIES) return false;
    sqlite3_sleep(RETRY_MS << i);
  }
}

static bool setup(Db *d) {
  int64_t v;
  if (sqlite3_busy_timeout(d->h, BUSY_TIMEOUT_MS) != SQLITE_OK) {
    sqlfail(d, "setting the busy timeout");
    return false;
  }
  if (!exec(d, "PRAGMA foreign_keys = ON", "enabling foreign keys") || !rd_begin(d)) return false;
  /* version and tables from one snapshot: another process may be creating the schema */
  bool ok = schema_ok(d, &v) && (v > 0 || no_tables(d));
  rd_end(d);
  if (!ok || !set_wal(d) || !exec(d, "PRAGMA synchronous = NORMAL", "setting synchronous")) return false;
  if (v == DB_SCHEMA_VERSION) return true;
  /* again under the write lock: another process may be creating it too */
  if (!tx_begin(d, "creating the schema")) return false;
  ok = schema_ok(d, &v) && (v == DB_SCHEMA_VERSION || upgrade_schema(d, v));
  return tx_end(d, ok, "creating the schema");
}

/* Open path (read-only: never create it) into *d; the caller closes d->h. */
static bool open_into(Db *d, const char *path, bool readonly) {
  int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path, &d->h, flags, NULL);
  if (rc != SQLITE_OK) {
    fail(d, "%s", d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
    return false;
  }
  return true;
}

static Db *open_db(const char *path, bool create, char *err, size_t errn) {
  Db *d = calloc(1, sizeof *d);
  if (!d) {
    if (err && errn) snprintf(err, errn, "%s: out of memory", path);
    return NULL;
  }
  int rc = sqlite3_open_v2(path, &d->h, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), NULL);
  if (rc != SQLITE_OK) {
    /* without CREATE, a missing file is SQLITE_CANTOPEN: say so plainly */
    if (!create && access(path, F_OK)) fail(d, "no such file (a database is read, not created, here)");
    else fail(d, "%s", d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
  } else if (setup(d)) {
    return d;
  }
  if (err && errn) snprintf(err, errn, "%s: %s", path, d->err);
  if (sqlite3_close(d->h) != SQLITE_OK) bug("closing %s after an error: a statement is still open", path);
  free(d);
  return NULL;
}

Db *db_open(const char *path, char *err, size_t errn) { return open_db(path, true, err, errn); }
Db *db_open_existing(const char *path, char *err, size_t errn) { return open_db(path, false, err, errn); }

/* path as an SQLite URI that opens it immutable (no locks, no -shm): for a WAL
 * file in a directory this process cannot write, where SQLite cannot make the
 * -shm it reads through. */
static void immutable_uri(const char *path, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++)
    if (isalnum(*p) || strchr("/-._~", *p)) out[k++] = (char)*p;
    else k += (size_t)snprintf(out + k, n - k, "%%%02X", *p);
  snprintf(out + (k < n ? k : n - 1), n - (k < n ? k : n - 1), "?immutable=1");
}

/* A read-only handle on an existing file at the current schema version, or
 * false (message in d): *v is its version when it could be read. */
static bool open_ro(Db *d, const char *name, bool uri, int64_t *v) {
  *v = -1;
  int rc = sqlite3_open_v2(name, &d->h, SQLITE_OPEN_READONLY | (uri ? SQLITE_OPEN_URI : 0), NULL);
  if (rc != SQLITE_OK) {
    fail(d, "%s", d->h ? sqlite3_errmsg(d->h) : sqlite3_errstr(rc));
    return false;
  }
  if (sqlite3_busy_timeout(d->h, BUSY_TIMEOUT_MS) != SQLITE_OK) {
    sqlfail(d, "setting the busy timeout");
    return false;
  }
  if (!rd_begin(d)) return false;
  bool ok = schema_ok(d, v) && (*v > 0 || no_tables(d));
  rd_end(d);
  return ok;
}

static void close_h(Db *d, const char *path) {
  if (d->h && sqlite3_close(d->h) != SQLITE_OK) bug("closing %s: a statement is still open", path);
  d->h = NULL;
}

Db *db_open_read(const char *path, char *err, size_t errn) {
  Db *d = calloc(1, sizeof *d);
  if (!d) {
    if (err && errn) snprintf(err, errn, "%s: out of memory", path);
    return NULL;
  }
  int64_t v;
  bool ok = false;
  if (access(path, F_OK)) fail(d, "no such file (a database is read, not created, here)");
  else if (!(ok = open_ro(d, path, false, &v)) && d->h && sqlite3_errcode(d->h) != SQLITE_NOTADB) {
    /* a WAL file whose -shm cannot be made here: read it immutable, unless a
     * -wal with content holds commits the main file does not have yet */
    char wal[4096], uri[3 * 4096 + 32], first[sizeof d->err];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(first, sizeof first, "%s", d->err);
    if (stat(wal, &sb) || !sb.st_size) {
      close_h(d, path);
      immutable_uri(path, uri, sizeof uri);
      if (!(ok = open_ro(d, uri, true, &v))) fail(d, "%s", first);
    }
  }
  if (ok && v == DB_SCHEMA_VERSION) return d;
  close_h(d, path);
  if (ok) {                                     /* an older schema (or an empty file): upgraded, as a writer would */
    Db *w = open_db(path, false, err, errn);
    if (w || v == 0 || !access(path, W_OK)) {
      free(d);
      return w;                                 /* or NULL, with open_db's reason */
    }
    fail(d, "schema version %" PRId64 " is older than this tool's (%d), and the file cannot be written to upgrade"
            " it: copy it where it can be written and open it once there (ptofuzz db stats --db=COPY)", v,
         DB_SCHEMA_VERSION);
  }
  if (err && errn) snprintf(err, errn, "%s: %s", path, d->err);
  free(d);
  return NULL;
}

bool db_readonly(Db *d) {
  const char *f = sqlite3_db_filename(d->h, "main");
  if (!f || !*f) return false;                  /* in memory */
  if (access(f, W_OK)) return true;
  char dir[4096];
  const char *slash = strrchr(f, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - f) + 1 : 1, slash ? f : ".");
  return access(dir, W_OK) != 0;                /* a writer makes -wal and -shm beside it */
}

void db_close(Db *d) {
  if (!d) return;
  rollback(d);                                  /* only after a failed ROLLBACK */
  if (sqlite3_close(d->h) != SQLITE_OK) bug("db_close: %s (a statement not finalized?)", sqlite3_errmsg(d->h));
  free(d);
}

int db_schema_version(Db *d) {
  int64_t v;
  return query_int(d, "PRAGMA user_version", &v) ? (int)v : -1;
}

bool db_check(Db *d, char *err, size_t errn) {
  sqlite3_stmt *s = prep(d, "PRAGMA integrity_check");
  bool ok = s && step(d, s, "integrity check") == SQLITE_ROW;
  if (ok && strcmp(col_dash(s, 0), "ok")) {
    fail(d, "integrity check: %s", col_dash(s, 0));
    ok = false;
  }
  fin(&s);
  if (ok) {
    int rc = (s = prep(d, "PRAGMA foreign_key_check")) ? step(d, s, "foreign key check") : 0;
    if (rc == SQLITE_ROW)
      fail(d, "foreign key check: row %" PRId64 " of %s refers to a missing row of %s", col_int(s, 1),
           col_dash(s, 0), col_dash(s, 2));
    ok = rc == SQLITE_DONE;
    fin(&s);
  }
  if (!ok) give(d, err, errn);
  return ok;
}

/* ---- campaigns ----------------------------------------------------------------- */

/* A fresh campaign uid: 32 hex digits from /dev/urandom, or, failing that,
 * from the clock, the process id and an address (never reproducible). */
static void fresh_uid(char out[33]) {
  uint64_t w[2] = {0, 0};
  FILE *f = fopen("/dev/urandom", "rb");
  bool got = f && fread(w, sizeof w, 1, f) == 1;
  if (f) fclose(f);
  if (!got) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    w[0] = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
    w[1] = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ts;
  }
  snprintf(out, 33, "%016" PRIx64 "%016" PRIx64, w[0], w[1]);
}

int64_t db_campaign_begin(Db *d, const DbCampaign *c) {
  static const char what[] = "beginning a campaign";
  int64_t id = -1;
  char uid[33];
  fresh_uid(uid);
  if (!tx_begin(d, what)) return -1;
  sqlite3_stmt *s = prep(d, "INSERT INTO campaign(engine, seed, policy, defects, tool_version, started, kernels, seconds,"
                            " uid) VALUES(?1, ?2, ?3, ?4, ?5, " NOW ", 0, 0, ?6)");
  bool ok = s && bind_text(d, s, 1, c->engine) && bind_int(d, s, 2, to_s64(c->seed)) &&
            bind_text(d, s, 3, c->policy) && bind_text(d, s, 4, c->defects) && bind_text(d, s, 5, c->tool_version) &&
            bind_text(d, s, 6, c->uid ? c->uid : uid) && done(d, s, what);
  if (ok) id = sqlite3_last_insert_rowid(d->h);
  fin(&s);
  return tx_end(d, ok, what) ? id : -1;
}

bool db_campaign_end(Db *d, int64_t id, int64_t kernels, double seconds) {
  static const char what[] = "ending a campaign";
  if (!tx_begin(d, what)) return false;
  sqlite3_stmt *s = prep(d, "UPDATE campaign SET ended = " NOW ", kernels = ?2, seconds = ?3 WHERE id = ?1");
  bool ok = s && bind_int(d, s, 1, id) && bind_int(d, s, 2, kernels) && bind_real(d, s, 3, seconds) &&
            done(d, s, what);
  if (ok && sqlite3_changes(d->h) != 1) {
    fail(d, "no campaign %" PRId64, id);
    ok = false;
  }
  fin(&s);
  return tx_end(d, ok, what);
}

bool db_campaign_progress(Db *d, int64_t id, int64_t kernels, double seconds) {
  static const char what[] = "checkpointing a campaign";
  if (!tx_begin(d, what)) return false;
  sqlite3_stmt *s = prep(d, "UPDATE campaign SET kernels = ?2, seconds = ?3 WHERE id = ?1 AND ended IS NULL");
  bool ok = s && bind_int(d, s, 1, id) && bind_int(d, s, 2, kernels) && bind_real(d, s, 3, seconds) &&
            done(d, s, what);
  fin(&s);
  return tx_end(d, ok, what);
}

/* ---- recording ------------------------------------------------------------------ */

static bool record_valid(Db *d, const DbFinding *f, const DbTestcase *t) {
  if (!f || !f->signature || !*f->signature) fail(d, "recording a finding: no signature");
  else if (!t || !t->kernel) fail(d, "recording a finding: no kernel text");
  else return true;
  return false;
}

/* The id of the finding with signature sig: > 0, 0 if none, -1 on error. */
static int64_t find_signature(Db *d, const char *sig) {
  sqlite3_stmt *s = prep(d, "SELECT id FROM finding WHERE signature = ?1");
  int rc = s && bind_text(d, s, 1, sig) ? step(d, s, "looking up a signature") : 0;
  int64_t id = rc == SQLITE_ROW ? col_int(s, 0) : rc == SQLITE_DONE ? 0 : -1;
  fin(&s);
  if (id == 0 && rc == SQLITE_ROW) bug("finding with id 0");
  return id;
}

/* One record inside the caller's transaction: the finding id or -1. */
static int64_t record1(Db *d, int64_t campaign, const DbFinding *f, const DbTestcase *t, bool *is_new) {
  static const char what[] = "recording a finding";
  int64_t id = find_signature(d, f->signature);
  if (id < 0) return -1;
  sqlite3_stmt *s = NULL;
  bool ok, fresh = id == 0;
  if (!fresh) {
    ok = (s = prep(d, "UPDATE finding SET hits = coalesce(hits, 0) + 1, last_seen = " NOW ","
                      " first_bad_pass = coalesce(first_bad_pass, ?2) WHERE id = ?1")) &&
         bind_int(d, s, 1, id) && bind_text(d, s, 2, f->first_bad_pass) && done(d, s, what);
    if (ok && sqlite3_changes(d->h) != 1) bug("finding %" PRId64 " vanished inside a transaction", id);
  } else {
    ok = (s = prep(d, "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, summary,"
                      " first_seen, last_seen, hits, status, first_bad_pass)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " NOW ", " NOW ", 1, 'new', ?9)")) &&
         bind_text(d, s, 1, f->signature) && bind_text(d, s, 2, f->kind) && bind_text(d, s, 3, f->mode) &&
         bind_text(d, s, 4, f->code) && bind_text(d, s, 5, f->op) && bind_text(d, s, 6, f->pass) &&
         bind_text(d, s, 7, f->pattern) && bind_text(d, s, 8, f->summary) && bind_text(d, s, 9, f->first_bad_pass) &&
         done(d, s, what);
    if (ok) id = sqlite3_last_insert_rowid(d->h);
  }
  fin(&s);
  ok = ok && (campaign <= 0 ||
              ((s = prep(d, "INSERT INTO sighting(finding, campaign, hits) VALUES(?1, ?2, 1)"
                            " ON CONFLICT(finding, campaign) DO UPDATE SET hits = hits + 1")) &&
               bind_int(d, s, 1, id) && bind_int(d, s, 2, campaign) && done(d, s, "counting a sighting")));
  fin(&s);
  if (!ok) return -1;
  if (is_new) *is_new = fresh;
  ok = (s = prep(d, add_testcase_sql)) && bind_int(d, s, 1, id) &&
       (campaign > 0 ? bind_int(d, s, 2, campaign) : bind_null(d, s, 2)) && bind_text(d, s, 3, t->kernel) &&
       bind_text(d, s, 4, t->reduced) && bind_int(d, s, 5, to_s64(t->seed)) && bind_text(d, s, 6, t->variant) &&
       bind_text(d, s, 7, t->flags) && bind_int(d, s, 8, t->statements) && bind_int(d, s, 9, DB_TESTCASE_CAP) &&
       (campaign > 0 && t->indexed ? bind_int(d, s, 10, t->kernel_index) : bind_null(d, s, 10)) &&
       done(d, s, "recording a test case");
  fin(&s);
  return ok ? id : -1;
}

int64_t db_record(Db *d, int64_t campaign, const DbFinding *f, const DbTestcase *t, bool *is_new, char *err,
                  size_t errn) {
  int64_t id = -1;
  if (record_valid(d, f, t) && tx_begin(d, "recording a finding")) {
    id = record1(d, campaign, f, t, is_new);
    if (!tx_end(d, id > 0, "recording a finding")) id = -1;
  }
  if (id < 0) give(d, err, errn);
  return id;
}

bool db_record_batch(Db *d, int64_t campaign, DbRecord *r, int n, char *err, size_t errn) {
  bool ok = true;
  for (int i = 0; i < n && ok; i++) ok = record_valid(d, &r[i].f, &r[i].t);
  if (ok && n > 0 && (ok = tx_begin(d, "recording findings"))) {
    for (int i = 0; i < n && ok; i++) ok = (r[i].id = record1(d, campaign, &r[i].f, &r[i].t, &r[i].is_new)) > 0;
    ok = tx_end(d, ok, "recording findings");
  }
  if (!ok) give(d, err, errn);
  return ok;
}

/* ---- status, reduction, regression kernels -------------------------------------- */

bool db_set_status(Db *d, int64_t id, const char *status, const DbStatusNote *note, char *err, size_t errn) {
  static const char what[] = "setting a status";
  static const char *const valid[] = {"new", "triaged", "fixed", "wontfix"};
  bool ok = false;
  for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) ok = ok || (status && !strcmp(status, valid[i]));
  if (!ok) {
    fail(d, "unknown status '%s' (new, triaged, fixed or wontfix)", status ? status : "(null)");
    give(d, err, errn);
    return false;
  }
  const char *who = note && note->who ? note->who : getenv("USER") ? getenv("USER") : getenv("LOGNAME");
  if (!tx_begin(d, what)) {
    give(d, err, errn);
    return false;
  }
  sqlite3_stmt *s = prep(d, "UPDATE finding SET status = ?2 WHERE id = ?1");
  ok = s && bind_int(d, s, 1, id) && bind_text(d, s, 2, status) && done(d, s, what);
  if (ok && sqlite3_changes(d->h) != 1) {
    fail(d, "no finding %" PRId64, id);
    ok = false;
  }
  fin(&s);
  ok = ok && (s = prep(d, "INSERT INTO status_change(finding, status, toolchain, who, at, evidence)"
                          " VALUES(?1, ?2, ?3, ?4, " NOW ", ?5)")) &&
       bind_int(d, s, 1, id) && bind_text(d, s, 2, status) && bind_text(d, s, 3, note ? note->toolchain : NULL) &&
       bind_text(d, s, 4, who && *who ? who : "unknown") && bind_text(d, s, 5, note ? note->evidence : NULL) &&
       done(d, s, what);
  fin(&s);
  ok = tx_end(d, ok, what);
  if (!ok) give(d, err, errn);
  return ok;
}

/* One UPDATE of sql (?1 the finding id, ?2 text) in its own transaction that
 * must change exactly one row; `none` says what is missing when it does not. */
static bool update_one(Db *d, const char *what, const char *sql, int64_t id, const char *text, const char *none,
                       char *err, size_t errn) {
  if (!tx_begin(d, what)) {
    give(d, err, errn);
    return false;
  }
  sqlite3_stmt *s = prep(d, sql);
  bool ok = s && bind_int(d, s, 1, id) && bind_text(d, s, 2, text) && done(d, s, what);
  if (ok && sqlite3_changes(d->h) != 1) {
    fail(d, "no finding %" PRId64 "%s", id, none);
    ok = false;
  }
  fin(&s);
  ok = tx_end(d, ok, what);
  if (!ok) give(d, err, errn);
  return ok;
}

bool db_set_cluster(Db *d, int64_t id, const char *cluster, char *err, size_t errn) {
  return update_one(d, "storing a cluster", "UPDATE finding SET cluster = ?2 WHERE id = ?1", id, cluster, "", err,
                    errn);
}

bool db_set_reduced(Db *d, int64_t id, const char *reduced, char *err, size_t errn) {
  return update_one(d, "storing a reduced kernel",
                    "UPDATE testcase SET reduced = ?2 WHERE id = (SELECT min(id) FROM testcase WHERE finding = ?1)", id,
                    reduced, " with a test case", err, errn);
}

static char *dup_col(sqlite3_stmt *s, int c) {
  const char *t = col_text(s, c);
  char *r = strdup(t ? t : "");
  if (!r) bug("out of memory");
  return r;
}

bool db_first_case(Db *d, int64_t id, DbCase *c, char *err, size_t errn) {
  memset(c, 0, sizeof *c);
  sqlite3_stmt *s = prep(d, "SELECT f.signature, t.kernel, t.flags, t.seed FROM finding f"
                            " LEFT JOIN testcase t ON t.id = (SELECT min(id) FROM testcase WHERE finding = f.id)"
                            " WHERE f.id = ?1");
  int rc = s && bind_int(d, s, 1, id) ? step(d, s, "reading a finding") : 0;
  bool ok = rc == SQLITE_ROW && col_text(s, 1);
  if (rc == SQLITE_DONE) fail(d, "no finding %" PRId64, id);
  else if (rc == SQLITE_ROW && !ok) fail(d, "finding %" PRId64 " has no test case", id);
  if (ok) {
    c->signature = dup_col(s, 0), c->kernel = dup_col(s, 1), c->flags = dup_col(s, 2);
    c->seed = to_u64(col_int(s, 3));
  }
  fin(&s);
  if (!ok) give(d, err, errn);
  return ok;
}

void db_case_free(DbCase *c) {
  free(c->signature), free(c->kernel), free(c->flags);
  memset(c, 0, sizeof *c);
}

int db_fixed_testcases(Db *d, void (*cb)(void *ctx, int64_t finding, const char *signature, const char *kernel),
                       void *ctx) {
  sqlite3_stmt *s = prep(d, "SELECT f.id, f.signature, coalesce(t.reduced, t.kernel)"
                            " FROM finding f JOIN testcase t ON t.finding = f.id"
                            " WHERE f.status = 'fixed' AND (t.reduced IS NOT NULL OR"
                            "  (t.id = (SELECT min(id) FROM testcase WHERE finding = f.id) AND"
                            "   NOT EXISTS (SELECT 1 FROM testcase WHERE finding = f.id AND reduced IS NOT NULL)))"
                            " ORDER BY f.id, t.id");
  int n = 0, rc = s ? SQLITE_ROW : 0;
  while (s && (rc = step(d, s, "listing fixed findings")) == SQLITE_ROW) {
    cb(ctx, col_int(s, 0), col_dash(s, 1), col_dash(s, 2));
    n++;
  }
  fin(&s);
  return rc == SQLITE_DONE ? n : -1;
}

/* ---- merge ------------------------------------------------------------------------ */

/* Is real (a resolved path) the file d has open? */
static bool same_file(Db *d, const char *real) {
  const char *mine = sqlite3_db_filename(d->h, "main");
  char *b = mine && *mine ? realpath(mine, NULL) : NULL;
  bool same = b && !strcmp(real, b);
  free(b);
  return same;
}

/* A campaign of the other file: its id there, its id in d, whether d held it
 * already (then nothing of it is merged again). Read in id order. */
typedef struct {
  int64_t from, to;
  bool known;
} CampMap;

typedef struct {
  CampMap *v;
  int n, cap;
} CampMaps;

static bool merge_campaign_variants(Db *d, Db *o, const CampMaps *m);

static const CampMap *camp_find(const CampMaps *m, int64_t from) {
  int lo = 0, hi = m->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (m->v[mid].from == from) return &m->v[mid];
    if (m->v[mid].from < from) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

/* o's campaigns into d: those whose uid d holds are mapped to d's row and
 * marked known, the others copied (new ids). */
static bool merge_campaigns(Db *d, Db *o, CampMaps *m, DbMergeStats *st) {
  sqlite3_stmt *q = prep(o, "SELECT id, engine, seed, policy, defects, tool_version, started, ended, kernels, seconds,"
                            " uid FROM campaign ORDER BY id");
  sqlite3_stmt *look = q ? prep(d, "SELECT id FROM campaign WHERE uid = ?1") : NULL;
  sqlite3_stmt *s = look ? prep(d, "INSERT INTO campaign(engine, seed, policy, defects, tool_version, started, ended,"
                                   " kernels, seconds, uid) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
                         : NULL;
  bool ok = s != NULL;
  int rc = 0;
  while (ok && (rc = step(o, q, "reading campaigns")) == SQLITE_ROW) {
    if (m->n == m->cap && !(m->v = realloc(m->v, (size_t)(m->cap = m->cap ? 2 * m->cap : 16) * sizeof *m->v)))
      bug("out of memory");
    CampMap *c = &m->v[m->n++];
    *c = (CampMap){.from = col_int(q, 0)};
    int lr = SQLITE_DONE;
    if (sqlite3_column_type(q, 10) != SQLITE_NULL) {
      ok = bind_col(d, look, 1, q, 10) && (lr = step(d, look, "looking up a campaign")) != 0;
      if (lr == SQLITE_ROW) c->to = col_int(look, 0), c->known = true;
      rewind_stmt(look);
    }
    if (ok && !c->known) {
      for (int k = 1; k <= 10 && ok; k++) ok = bind_col(d, s, k, q, k);
      ok = ok && done(d, s, "copying a campaign");
      c->to = sqlite3_last_insert_rowid(d->h);
      rewind_stmt(s);
      if (st) st->campaigns++, st->kernels += col_int(q, 8);
    } else if (ok && st) {
      st->known++;
    }
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&q);
  fin(&look);
  fin(&s);
  return ok;
}

/* The hits o's finding `from` brings: those of its sightings in new campaigns,
 * and those outside any campaign (total minus all sightings). */
static bool merge_hits(Db *o, const CampMaps *m, int64_t from, int64_t total, int64_t *add, int *nsight) {
  sqlite3_stmt *q = prep(o, "SELECT campaign, hits FROM sighting WHERE finding = ?1");
  int rc = q && bind_int(o, q, 1, from) ? SQLITE_ROW : 0;
  int64_t all = 0, fresh = 0;
  *nsight = 0;
  while (rc && (rc = step(o, q, "reading sightings")) == SQLITE_ROW) {
    const CampMap *c = camp_find(m, col_int(q, 0));
    all += col_int(q, 1);
    if (c && !c->known) fresh += col_int(q, 1);
    ++*nsight;
  }
  fin(&q);
  *add = fresh + (total > all ? total - all : 0);
  return rc == SQLITE_DONE;
}

/* o's sightings of finding `from` in new campaigns, as d's finding `to`. */
static bool merge_sightings(Db *d, Db *o, const CampMaps *m, int64_t from, int64_t to) {
  sqlite3_stmt *q = prep(o, "SELECT campaign, hits FROM sighting WHERE finding = ?1 ORDER BY campaign");
  sqlite3_stmt *s = q ? prep(d, "INSERT INTO sighting(finding, campaign, hits) VALUES(?1, ?2, ?3)"
                                " ON CONFLICT(finding, campaign) DO UPDATE SET hits = hits + excluded.hits")
                      : NULL;
  int rc = s && bind_int(o, q, 1, from) ? SQLITE_ROW : 0;
  bool ok = rc;
  while (ok && (rc = step(o, q, "reading sightings")) == SQLITE_ROW) {
    const CampMap *c = camp_find(m, col_int(q, 0));
    if (!c || c->known) continue;
    ok = bind_int(d, s, 1, to) && bind_int(d, s, 2, c->to) && bind_col(d, s, 3, q, 1) &&
         done(d, s, "copying a sighting");
    rewind_stmt(s);
  }
  fin(&s);
  fin(&q);
  return ok && rc == SQLITE_DONE;
}

/* The lowest kernel index among finding id's test cases in d: true and *lo,
 * or false when none has one (or on error: *err set). */
static bool min_index(Db *d, int64_t id, int64_t *lo, bool *err) {
  sqlite3_stmt *s = prep(d, "SELECT min(kernel_index) FROM testcase WHERE finding = ?1");
  int rc = s && bind_int(d, s, 1, id) ? step(d, s, "reading test cases") : 0;
  bool has = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL;
  if (has) *lo = col_int(s, 0);
  *err = rc != SQLITE_ROW;
  fin(&s);
  return has;
}

/* Copy o's test cases of finding `from` to d's finding `to`: not those of a
 * known campaign, not one d's finding already holds (same text, seed, variant
 * and flags). Then keep DB_TESTCASE_CAP of the pool, and maybe take o's
 * summary (column 8 of o's finding row fq), as the header comment says. */
static bool merge_testcases(Db *d, Db *o, const CampMaps *m, int64_t from, int64_t to, sqlite3_stmt *fq) {
  int64_t dlo = 0, olo = 0;
  bool bad = false, dhas = min_index(d, to, &dlo, &bad), ohas = false;
  if (bad) return false;
  sqlite3_stmt *q = prep(o, "SELECT kernel, reduced, seed, variant, flags, statements, kernel_index, campaign"
                            " FROM testcase WHERE finding = ?1 ORDER BY id");
  sqlite3_stmt *s = q ? prep(d, "INSERT INTO testcase(finding, campaign, kernel, reduced, seed, variant, flags,"
                                " statements, kernel_index) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9"
                                " WHERE NOT EXISTS (SELECT 1 FROM testcase WHERE finding = ?1 AND kernel = ?3"
                                "  AND seed IS ?5 AND variant IS ?6 AND flags IS ?7)")
                      : NULL;
  int rc = s && bind_int(o, q, 1, from) ? SQLITE_ROW : 0;
  bool ok = rc;
  while (ok && (rc = step(o, q, "reading test cases")) == SQLITE_ROW) {
    const CampMap *c = NULL;
    bool nocamp = sqlite3_column_type(q, 7) == SQLITE_NULL;
    if (!nocamp && (!(c = camp_find(m, col_int(q, 7))) || c->known)) continue;   /* no such campaign: dangling */
    if (sqlite3_column_type(q, 6) != SQLITE_NULL && (!ohas || col_int(q, 6) < olo)) ohas = true, olo = col_int(q, 6);
    ok = bind_int(d, s, 1, to) && (nocamp ? bind_null(d, s, 2) : bind_int(d, s, 2, c->to));
    for (int k = 0; k < 7 && ok; k++) ok = bind_col(d, s, 3 + k, q, k);
    ok = ok && done(d, s, "copying a test case");
    rewind_stmt(s);
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&s);
  fin(&q);
  /* one seed and policy behind every indexed test case of the pool: kernel order applies */
  bool ordered = false;
  if (ok && (ok = (s = prep(d, "SELECT count(*) FROM (SELECT DISTINCT c.seed, c.policy FROM testcase t"
                               " JOIN campaign c ON c.id = t.campaign"
                               " WHERE t.finding = ?1 AND t.kernel_index IS NOT NULL)")) &&
                  bind_int(d, s, 1, to) && step(d, s, "reading test cases") == SQLITE_ROW))
    ordered = col_int(s, 0) == 1;
  fin(&s);
  ok = ok &&
       (s = prep(d, ordered ? "DELETE FROM testcase WHERE finding = ?1 AND id NOT IN (SELECT id FROM testcase"
                              " WHERE finding = ?1 ORDER BY reduced IS NULL, kernel_index IS NULL, kernel_index, id"
                              " LIMIT ?2)"
                            : "DELETE FROM testcase WHERE finding = ?1 AND id NOT IN (SELECT id FROM testcase"
                              " WHERE finding = ?1 ORDER BY id LIMIT ?2)")) &&
       bind_int(d, s, 1, to) && bind_int(d, s, 2, DB_TESTCASE_CAP) && done(d, s, "capping test cases");
  fin(&s);
  if (ok && ordered && dhas && ohas && olo < dlo)
    ok = (s = prep(d, "UPDATE finding SET summary = coalesce(?2, summary) WHERE id = ?1")) && bind_int(d, s, 1, to) &&
         bind_col(d, s, 2, fq, 8) && done(d, s, "updating a summary");
  fin(&s);
  /* ids in kernel order too, so the lowest id (the test case reports, export
   * and reduce take first) is the one a single run takes first */
  int64_t top = 0;
  if (ok && ordered && (ok = (s = prep(d, "SELECT coalesce(max(id), 0) FROM testcase")) &&
                             step(d, s, "reading test cases") == SQLITE_ROW))
    top = col_int(s, 0);
  fin(&s);
  ok = ok && (!ordered ||
              ((s = prep(d, "INSERT INTO testcase(finding, campaign, kernel, reduced, seed, variant, flags, statements,"
                            " kernel_index) SELECT finding, campaign, kernel, reduced, seed, variant, flags, statements,"
                            " kernel_index FROM testcase WHERE finding = ?1"
                            " ORDER BY reduced IS NULL, kernel_index IS NULL, kernel_index, id")) &&
               bind_int(d, s, 1, to) && done(d, s, "ordering test cases")));
  fin(&s);
  ok = ok && (!ordered || ((s = prep(d, "DELETE FROM testcase WHERE finding = ?1 AND id <= ?2")) &&
                           bind_int(d, s, 1, to) && bind_int(d, s, 2, top) && done(d, s, "ordering test cases")));
  fin(&s);
  return ok;
}

/* o's status changes of finding `from` that d's finding `to` does not hold
 * (the same status, time and setter), appended. */
static bool merge_statuses(Db *d, Db *o, int64_t from, int64_t to) {
  sqlite3_stmt *q = prep(o, "SELECT status, toolchain, who, at, evidence FROM status_change WHERE finding = ?1"
                            " ORDER BY id");
  sqlite3_stmt *s = q ? prep(d, "INSERT INTO status_change(finding, status, toolchain, who, at, evidence)"
                                " SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (SELECT 1 FROM status_change"
                                "  WHERE finding = ?1 AND status = ?2 AND who IS ?4 AND at IS ?5)")
                      : NULL;
  int rc = s && bind_int(o, q, 1, from) ? SQLITE_ROW : 0;
  bool ok = rc;
  while (ok && (rc = step(o, q, "reading status changes")) == SQLITE_ROW) {
    ok = bind_int(d, s, 1, to);
    for (int k = 0; k < 5 && ok; k++) ok = bind_col(d, s, 2 + k, q, k);
    ok = ok && done(d, s, "copying a status change");
    rewind_stmt(s);
  }
  fin(&s);
  fin(&q);
  return ok && rc == SQLITE_DONE;
}

/* The merge proper, inside d's write and o's read transaction. */
static bool merge_rows(Db *d, Db *o, DbMergeStats *st) {
  CampMaps m = {0};
  sqlite3_stmt *q = NULL, *s = NULL, *u = NULL;
  bool ok = merge_campaigns(d, o, &m, st) && merge_campaign_variants(d, o, &m) &&
       (q = prep(o, "SELECT id, signature, kind, mode, code, op, pass, pattern, summary, first_seen, last_seen,"
                    " coalesce(hits, 0), coalesce(status, 'new'), first_bad_pass, cluster FROM finding ORDER BY id")) &&
       (s = prep(d, "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, summary, first_seen,"
                    " last_seen, hits, status, first_bad_pass, cluster)"
                    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")) &&
       (u = prep(d, "UPDATE finding SET hits = coalesce(hits, 0) + ?2,"
                    " first_seen = CASE WHEN first_seen IS NULL OR ?3 < first_seen THEN ?3 ELSE first_seen END,"
                    " last_seen = CASE WHEN last_seen IS NULL OR ?4 > last_seen THEN ?4 ELSE last_seen END,"
                    " summary = coalesce(summary, ?5), first_bad_pass = coalesce(first_bad_pass, ?6),"
                    " cluster = coalesce(cluster, ?7) WHERE id = ?1"));
  int rc = ok ? SQLITE_ROW : 0;
  while (ok && (rc = step(o, q, "reading findings")) == SQLITE_ROW) {
    int64_t from = col_int(q, 0), to = find_signature(d, col_dash(q, 1)), add = 0;
    int nsight = 0;
    ok = to >= 0 && merge_hits(o, &m, from, col_int(q, 11), &add, &nsight);
    if (!ok || (!add && nsight)) continue;      /* every hit from campaigns d holds: nothing new */
    if (to == 0) {
      for (int c = 1; c < 15 && ok; c++) ok = c == 11 ? bind_int(d, s, c, add) : bind_col(d, s, c, q, c);
      ok = ok && done(d, s, "adding a finding");
      to = sqlite3_last_insert_rowid(d->h);
      rewind_stmt(s);
      if (st) st->findings_new++;
    } else {
      ok = bind_int(d, u, 1, to) && bind_int(d, u, 2, add) && bind_col(d, u, 3, q, 9) && bind_col(d, u, 4, q, 10) &&
           bind_col(d, u, 5, q, 8) && bind_col(d, u, 6, q, 13) && bind_col(d, u, 7, q, 14) &&
           done(d, u, "updating a finding");
      if (ok && sqlite3_changes(d->h) != 1) bug("finding %" PRId64 " vanished inside a transaction", to);
      rewind_stmt(u);
    }
    if (st) st->hits += add;
    ok = ok && merge_sightings(d, o, &m, from, to) && merge_testcases(d, o, &m, from, to, q) &&
         merge_statuses(d, o, from, to);
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&q);
  fin(&s);
  fin(&u);
  free(m.v);
  return ok;
}

int db_merge(Db *d, const char *other_path, DbMergeStats *st, char *err, size_t errn) {
  Db o = {0};
  int64_t v;
  bool ok = false;
  DbMergeStats tmp = {0};
  char *real = realpath(other_path, NULL);
  if (!real) {
    fail(d, "%s: %s", other_path, strerror(errno));
  } else if (same_file(d, real)) {
    fail(d, "%s: cannot merge a file into itself", other_path);
  } else if (!open_into(&o, other_path, true) || sqlite3_busy_timeout(o.h, BUSY_TIMEOUT_MS) != SQLITE_OK ||
             !schema_ok(&o, &v)) {
    bool notdb = o.h && sqlite3_errcode(o.h) == SQLITE_NOTADB;
    fail(d, "%s: %s", other_path, notdb ? "not a ptofuzz findings database (not an SQLite file)" : o.err);
  } else if (v < DB_SCHEMA_VERSION) {
    fail(d, "%s: %s", other_path,
         v == 0 ? "not a ptofuzz findings database (no schema version)"
                : "an older schema version: open it once with this tool (ptofuzz db stats --db=F) to upgrade it");
  } else if (!rd_begin(&o)) {
    fail(d, "%s: %s", other_path, o.err);
  } else {
    bool bad = false;
    /* a damaged file is refused before anything is copied */
    sqlite3_stmt *c = prep(&o, "PRAGMA quick_check");
    int rc = c ? step(&o, c, "checking the file") : 0;
    if (rc == SQLITE_ROW && strcmp(col_dash(c, 0), "ok")) fail(&o, "damaged (quick_check: %s)", col_dash(c, 0)), bad = true;
    fin(&c);
    if (!rc || bad) {
      fail(d, "%s: %s", other_path, o.err);
    } else if (tx_begin(d, "merging")) {
      o.err[0] = 0;
      ok = merge_rows(d, &o, &tmp);
      if (!ok && o.err[0]) fail(d, "%s: %s", other_path, o.err);
      else if (!ok) {
        char m[sizeof d->err];
        snprintf(m, sizeof m, "%s", d->err);
        fail(d, "%s: %s", other_path, m);
      }
      if (!tx_end(d, ok, "merging")) ok = false;
    }
    rd_end(&o);
  }
  if (o.h && sqlite3_close(o.h) != SQLITE_OK) bug("closing %s: a statement is still open", other_path);
  free(real);
  if (ok && st) *st = tmp;
  if (!ok) give(d, err, errn);
  return ok ? (int)tmp.findings_new : -1;
}

/* ---- the db command ------------------------------------------------------------- */

/* Text on one line: control characters become spaces. */
static void put_line(FILE *out, const char *t) {
  for (; *t; t++) fputc((unsigned char)*t < 0x20 || *t == 0x7f ? ' ' : *t, out);
}

/* A whole text, ending with a newline. */
static void put_text(FILE *out, const char *t) {
  size_t n = strlen(t);
  fputs(t, out);
  if (!n || t[n - 1] != '\n') fputc('\n', out);
}

static void put_seed(FILE *out, sqlite3_stmt *s, int c) {
  if (sqlite3_column_type(s, c) == SQLITE_NULL) fputc('-', out);
  else fprintf(out, "%" PRIu64, to_u64(col_int(s, c)));
}

static int cmd_status(Db *d, FILE *out, bool ok) {
  if (ok && ferror(out)) {
    fail(d, "write error");
    ok = false;
  }
  return ok ? 0 : 1;
}

int db_cmd_list(Db *d, FILE *out) {
  sqlite3_stmt *s = prep(d, "SELECT id, coalesce(status, '-'), coalesce(hits, 0), signature, summary"
                            " FROM finding ORDER BY id");
  int rc = s ? SQLITE_ROW : 0, n = 0;
  fprintf(out, "%-4s %-7s %5s  %s  %s\n", "ID", "STATUS", "HITS", "SIGNATURE", "SUMMARY");
  while (s && (rc = step(d, s, "listing findings")) == SQLITE_ROW) {
    fprintf(out, "%-4" PRId64 " %-7s %5" PRId64 "  %s  ", col_int(s, 0), col_dash(s, 1),
            col_int(s, 2), col_dash(s, 3));
    char title[128];
    rep_title(col_dash(s, 3), col_dash(s, 4), title, sizeof title);
    put_line(out, title);
    fputc('\n', out);
    n++;
  }
  fin(&s);
  if (rc == SQLITE_DONE && !n) fputs("(no findings)\n", out);
  return cmd_status(d, out, rc == SQLITE_DONE);
}

int db_cmd_show(Db *d, int64_t id, FILE *out) {
  static const char *const field[] = {"signature", "kind",       "mode",      "code",  "op",   "pass",
                                      "pattern",   "first_bad_pass", "status", "hits", "first_seen", "last_seen",
                                      "summary",   "cluster"};
  if (!rd_begin(d)) return 1;
  sqlite3_stmt *s = prep(d, "SELECT signature, kind, mode, code, op, pass, pattern, first_bad_pass, status, hits,"
                            " first_seen, last_seen, summary, cluster FROM finding WHERE id = ?1");
  int rc = s && bind_int(d, s, 1, id) ? step(d, s, "reading a finding") : 0;
  bool ok = rc == SQLITE_ROW;
  if (rc == SQLITE_DONE) fail(d, "no finding %" PRId64, id);
  if (ok) {
    fprintf(out, "finding %" PRId64 "\n", id);
    for (int c = 0; c < 14; c++) {
      fprintf(out, "%-15s ", field[c]);
      put_line(out, col_dash(s, c));
      fputc('\n', out);
    }
  }
  fin(&s);
  /* who set each status, when, and on which toolchain */
  ok = ok && (s = prep(d, "SELECT at, status, who, toolchain, evidence FROM status_change WHERE finding = ?1"
                          " ORDER BY id")) && bind_int(d, s, 1, id);
  while (ok && (rc = step(d, s, "reading statuses")) == SQLITE_ROW) {
    fprintf(out, "status_change   ");
    put_line(out, col_dash(s, 0));
    fputc(' ', out);
    put_line(out, col_dash(s, 1));
    fputs(" by ", out);
    put_line(out, col_dash(s, 2));
    if (col_text(s, 3)) fputs(" on ", out), put_line(out, col_text(s, 3));
    if (col_text(s, 4)) fputs(": ", out), put_line(out, col_text(s, 4));
    fputc('\n', out);
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&s);
  /* every campaign that saw it: its sightings, and campaigns of test cases */
  static const char camps[] =
      "SELECT c.id, coalesce(g.hits, 0), c.engine, c.seed, c.defects, c.started, c.ended, c.kernels FROM campaign c"
      " LEFT JOIN sighting g ON g.campaign = c.id AND g.finding = ?1"
      " WHERE g.finding IS NOT NULL OR c.id IN (SELECT campaign FROM testcase WHERE finding = ?1) ORDER BY c.id";
  ok = ok && (s = prep(d, camps)) && bind_int(d, s, 1, id);
  if (ok) {
    fprintf(out, "%-15s", "campaigns");
    int n = 0;
    while ((rc = step(d, s, "reading campaigns")) == SQLITE_ROW) {
      fprintf(out, " %" PRId64, col_int(s, 0));
      n++;
    }
    fputs(n ? "\n" : " -\n", out);
    ok = rc == SQLITE_DONE;
    rewind_stmt(s);
    ok = ok && bind_int(d, s, 1, id);
    while (ok && (rc = step(d, s, "reading campaigns")) == SQLITE_ROW) {
      fprintf(out, "campaign %" PRId64 ": hits %" PRId64 ", engine ", col_int(s, 0), col_int(s, 1));
      put_line(out, col_dash(s, 2));
      fputs(", seed ", out);
      put_seed(out, s, 3);
      fputs(", defects ", out);
      put_line(out, col_text(s, 4) && *col_text(s, 4) ? col_text(s, 4) : "-");
      fputs(", started ", out);
      put_line(out, col_dash(s, 5));
      fputs(", ended ", out);
      put_line(out, col_dash(s, 6));
      fprintf(out, ", kernels %" PRId64 "\n", col_int(s, 7));
    }
    ok = ok && rc == SQLITE_DONE;
  }
  fin(&s);
  ok = ok && (s = prep(d, "SELECT id, campaign, seed, variant, flags, statements, kernel, reduced"
                          " FROM testcase WHERE finding = ?1 ORDER BY id")) &&
       bind_int(d, s, 1, id);
  while (ok && (rc = step(d, s, "reading test cases")) == SQLITE_ROW) {
    fprintf(out, "testcase %" PRId64 ": campaign %s, seed ", col_int(s, 0), col_dash(s, 1));
    put_seed(out, s, 2);
    fputs(", variant ", out);
    put_line(out, col_dash(s, 3));
    fputs(", flags ", out);
    put_line(out, col_dash(s, 4));
    fprintf(out, ", %s statements\n--- kernel\n", col_dash(s, 5));
    put_text(out, col_dash(s, 6));
    if (col_text(s, 7)) {
      fputs("--- reduced\n", out);
      put_text(out, col_text(s, 7));
    }
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&s);
  rd_end(d);
  return cmd_status(d, out, ok);
}

int db_cmd_stats(Db *d, FILE *out) {
  static const char *const status[] = {"new", "triaged", "fixed", "wontfix"};
  if (!rd_begin(d)) return 1;
  sqlite3_stmt *s = prep(d, "SELECT count(*), coalesce(sum(kernels), 0), coalesce(sum(seconds), 0.0),"
                            " (SELECT count(*) FROM finding), (SELECT coalesce(sum(hits), 0) FROM finding),"
                            " (SELECT count(*) FROM testcase) FROM campaign");
  bool ok = s && step(d, s, "counting") == SQLITE_ROW;
  if (ok)
    fprintf(out, "campaigns %" PRId64 "\nkernels %" PRId64 "\nseconds %.1f\nfindings %" PRId64 "\nhits %" PRId64
                 "\ntestcases %" PRId64 "\n",
            col_int(s, 0), col_int(s, 1), sqlite3_column_double(s, 2),
            col_int(s, 3), col_int(s, 4), col_int(s, 5));
  fin(&s);
  ok = ok && (s = prep(d, "SELECT count(*) FROM finding WHERE status = ?1"));
  for (int i = 0; ok && i < 4; i++) {
    ok = bind_text(d, s, 1, status[i]) && step(d, s, "counting by status") == SQLITE_ROW;
    if (ok) fprintf(out, "status %s %" PRId64 "\n", status[i], col_int(s, 0));
    rewind_stmt(s);
  }
  fin(&s);
  int rc = 0;
  ok = ok && (s = prep(d, "SELECT coalesce(kind, '-'), count(*), coalesce(sum(hits), 0) FROM finding"
                          " GROUP BY 1 ORDER BY 1"));
  while (ok && (rc = step(d, s, "counting by kind")) == SQLITE_ROW) {
    fputs("kind ", out);
    put_line(out, col_dash(s, 0));
    fprintf(out, " %" PRId64 " findings %" PRId64 " hits\n", col_int(s, 1), col_int(s, 2));
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&s);
  rd_end(d);
  return cmd_status(d, out, ok);
}

/* The defect of flags "--bugs=NAME ..." when it names exactly one and the
 * model back end (a real back end's finding has no `# defect:` line). */
static bool one_defect(const char *flags, char *name, size_t n) {
  if (!flags || strstr(flags, "--backend=ptoas")) return false;
  const char *b = strstr(flags, "--bugs=");
  if (!b || (b != flags && b[-1] != ' ')) return false;
  b += 7;
  size_t k = strcspn(b, " \t");
  if (!k || k >= n || memchr(b, ',', k) || (k == 4 && !strncmp(b, "none", 4))) return false;
  snprintf(name, n, "%.*s", (int)k, b);
  return true;
}

int db_cmd_export(Db *d, int64_t id, FILE *out) {
  sqlite3_stmt *s = prep(d, "SELECT f.signature, t.variant, t.flags, t.seed, coalesce(t.reduced, t.kernel)"
                            " FROM finding f LEFT JOIN testcase t ON t.id ="
                            "  (SELECT id FROM testcase WHERE finding = f.id ORDER BY reduced IS NULL, id LIMIT 1)"
                            " WHERE f.id = ?1");
  int rc = s && bind_int(d, s, 1, id) ? step(d, s, "reading a finding") : 0;
  bool ok = rc == SQLITE_ROW && col_text(s, 4);
  if (rc == SQLITE_DONE) fail(d, "no finding %" PRId64, id);
  else if (rc == SQLITE_ROW && !ok) fail(d, "finding %" PRId64 " has no test case", id);
  if (ok) {
    static const char *const head[] = {"signature", "variant", "flags"};
    fprintf(out, "# ptofuzz finding %" PRId64 "\n", id);
    for (int c = 0; c < 3; c++) {
      fprintf(out, "# %s: ", head[c]);
      put_line(out, col_dash(s, c));
      fputc('\n', out);
    }
    fputs("# seed: ", out);
    put_seed(out, s, 3);
    /* pto-check's header: fixed means clean; the one defect that gave it */
    fputs("\n# expect: clean\n", out);
    char defect[64];
    if (one_defect(col_text(s, 2), defect, sizeof defect) && strchr(col_dash(s, 0), '|')) {
      const char *sig = col_dash(s, 0);
      fprintf(out, "# defect: %s -> %.*s ", defect, (int)strcspn(sig, "|"), sig);
      put_line(out, sig);
      fputc('\n', out);
    }
    put_text(out, col_text(s, 4));
  }
  fin(&s);
  return cmd_status(d, out, ok);
}

/* ---- triage reports and the dashboard (reports/report.c, reports/dashboard.c) ---- */

/* o's campaign_variant rows into d, for the campaigns d did not hold yet
 * (campaign ids mapped as merge_campaigns mapped them). */
static bool merge_campaign_variants(Db *d, Db *o, const CampMaps *m) {
  sqlite3_stmt *q = prep(o, "SELECT campaign, variant, valid, unsupported FROM campaign_variant"
                            " ORDER BY campaign, variant");
  sqlite3_stmt *s = q ? prep(d, "INSERT OR REPLACE INTO campaign_variant(campaign, variant, valid, unsupported)"
                                " VALUES(?1, ?2, ?3, ?4)") : NULL;
  int rc = s ? SQLITE_ROW : 0;
  bool ok = rc;
  while (ok && (rc = step(o, q, "reading campaign variants")) == SQLITE_ROW) {
    const CampMap *c = camp_find(m, col_int(q, 0));
    if (!c || c->known) continue;
    ok = bind_int(d, s, 1, c->to) && bind_col(d, s, 2, q, 1) && bind_col(d, s, 3, q, 2) &&
         bind_col(d, s, 4, q, 3) && done(d, s, "copying a campaign variant");
    rewind_stmt(s);
  }
  fin(&s);
  fin(&q);
  return ok && rc == SQLITE_DONE;
}

bool db_campaign_variants(Db *d, int64_t campaign, int64_t valid, const char *const *variant,
                          const int64_t *unsupported, int n) {
  static const char what[] = "recording unsupported counts";
  if (!tx_begin(d, what)) return false;
  sqlite3_stmt *s = prep(d, "INSERT OR REPLACE INTO campaign_variant(campaign, variant, valid, unsupported)"
                            " VALUES(?1, ?2, ?3, ?4)");
  bool ok = s;
  for (int i = 0; i < n && ok; i++) {
    ok = bind_int(d, s, 1, campaign) && bind_text(d, s, 2, variant[i]) && bind_int(d, s, 3, valid) &&
         bind_int(d, s, 4, unsupported[i]) && done(d, s, what);
    rewind_stmt(s);
  }
  fin(&s);
  return tx_end(d, ok, what);
}

static char *dup_or_null(sqlite3_stmt *s, int c) { return col_text(s, c) ? dup_col(s, c) : NULL; }

void db_info_free(DbInfo *f) {
  char **str[] = {&f->signature, &f->kind,   &f->mode,     &f->code,     &f->op,     &f->pass,    &f->pattern,
                  &f->summary,   &f->status, &f->first_seen, &f->last_seen, &f->first_bad_pass, &f->kernel,
                  &f->reduced,   &f->variant, &f->flags,   &f->cluster, &f->fixed_in, &f->history};
  for (size_t i = 0; i < sizeof str / sizeof *str; i++) free(*str[i]);
  free(f->campaigns);
  memset(f, 0, sizeof *f);
}

bool db_info(Db *d, int64_t id, DbInfo *f, char *err, size_t errn) {
  memset(f, 0, sizeof *f);
  if (!rd_begin(d)) {
    give(d, err, errn);
    return false;
  }
  sqlite3_stmt *s = prep(d, "SELECT f.signature, f.kind, f.mode, f.code, f.op, f.pass, f.pattern, f.summary,"
                            " f.status, f.first_seen, f.last_seen, f.first_bad_pass, t.kernel, t.reduced, t.variant,"
                            " t.flags, f.cluster, (SELECT toolchain FROM status_change WHERE finding = f.id"
                            "  AND status = 'fixed' AND f.status = 'fixed' ORDER BY id DESC LIMIT 1),"
                            " coalesce(f.hits, 0), t.seed, t.id IS NOT NULL FROM finding f"
                            " LEFT JOIN testcase t ON t.id = (SELECT min(id) FROM testcase WHERE finding = f.id)"
                            " WHERE f.id = ?1");
  int rc = s && bind_int(d, s, 1, id) ? step(d, s, "reading a finding") : 0;
  bool ok = rc == SQLITE_ROW;
  if (rc == SQLITE_DONE) fail(d, "no finding %" PRId64, id);
  if (ok) {
    char **str[] = {&f->signature, &f->kind,   &f->mode,     &f->code,     &f->op,     &f->pass,    &f->pattern,
                    &f->summary,   &f->status, &f->first_seen, &f->last_seen, &f->first_bad_pass, &f->kernel,
                    &f->reduced,   &f->variant, &f->flags,   &f->cluster, &f->fixed_in};
    for (int c = 0; c < 18; c++) *str[c] = dup_or_null(s, c);
    f->id = id;
    f->hits = col_int(s, 18);
    f->seed = to_u64(col_int(s, 19));
    f->has_case = col_int(s, 20) != 0;
  }
  fin(&s);
  ok = ok && (s = prep(d, "SELECT group_concat(printf('%s %s by %s%s%s%s', coalesce(at, '-'), status,"
                          " coalesce(who, 'unknown'), iif(toolchain IS NULL, '', ' on ' || toolchain),"
                          " iif(evidence IS NULL, '', ': '), coalesce(evidence, '')), char(10))"
                          " FROM (SELECT * FROM status_change WHERE finding = ?1 ORDER BY id)")) &&
       bind_int(d, s, 1, id) && step(d, s, "reading statuses") == SQLITE_ROW;
  if (ok) f->history = dup_or_null(s, 0);
  fin(&s);
  ok = ok && (s = prep(d, "SELECT DISTINCT campaign FROM testcase WHERE finding = ?1 AND campaign IS NOT NULL"
                          " ORDER BY campaign")) && bind_int(d, s, 1, id);
  while (ok && (rc = step(d, s, "reading campaigns")) == SQLITE_ROW) {
    int64_t *c = realloc(f->campaigns, (size_t)(f->ncampaigns + 1) * sizeof *c);
    if (!c) bug("out of memory");
    f->campaigns = c;
    c[f->ncampaigns++] = col_int(s, 0);
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&s);
  rd_end(d);
  if (!ok) {
    give(d, err, errn);
    db_info_free(f);
  }
  return ok;
}

int db_finding_rows(Db *d, DbFindingRow **out) {
  *out = NULL;
  sqlite3_stmt *s = prep(d, "SELECT f.id, coalesce(f.hits, 0), coalesce(f.status, 'new'), f.kind, f.signature,"
                            " f.summary, (SELECT min(campaign) FROM testcase WHERE finding = f.id), f.cluster"
                            " FROM finding f ORDER BY f.id");
  int n = 0, rc = s ? SQLITE_ROW : 0;
  while (s && (rc = step(d, s, "listing findings")) == SQLITE_ROW) {
    DbFindingRow *r = realloc(*out, (size_t)(n + 1) * sizeof *r);
    if (!r) bug("out of memory");
    *out = r;
    r += n++;
    r->id = col_int(s, 0), r->hits = col_int(s, 1);
    r->status = dup_col(s, 2), r->kind = dup_col(s, 3), r->signature = dup_col(s, 4), r->summary = dup_col(s, 5);
    r->first_campaign = sqlite3_column_type(s, 6) == SQLITE_NULL ? 0 : col_int(s, 6);
    r->cluster = dup_or_null(s, 7);
  }
  fin(&s);
  if (rc == SQLITE_DONE) return n;
  db_finding_rows_free(*out, n);
  *out = NULL;
  return -1;
}

void db_finding_rows_free(DbFindingRow *r, int n) {
  for (int i = 0; i < n; i++)
    free(r[i].status), free(r[i].kind), free(r[i].signature), free(r[i].summary), free(r[i].cluster);
  free(r);
}

int db_campaign_rows(Db *d, DbCampaignRow **out) {
  *out = NULL;
  if (!rd_begin(d)) return -1;
  sqlite3_stmt *s = prep(d, "SELECT id, coalesce(engine, '-'), seed, coalesce(defects, ''), coalesce(kernels, 0),"
                            " coalesce(seconds, 0), coalesce(started, '-'), ended IS NOT NULL,"
                            " (SELECT count(*) FROM finding f WHERE (SELECT min(campaign) FROM testcase"
                            "   WHERE finding = f.id) = campaign.id)"
                            " FROM campaign ORDER BY id");
  sqlite3_stmt *u = s ? prep(d, "SELECT variant, coalesce(valid, 0), coalesce(unsupported, 0) FROM campaign_variant"
                                " WHERE campaign = ?1 ORDER BY rowid") : NULL;
  int n = 0, rc = u ? SQLITE_ROW : 0;
  bool ok = u;
  while (ok && (rc = step(d, s, "listing campaigns")) == SQLITE_ROW) {
    DbCampaignRow *r = realloc(*out, (size_t)(n + 1) * sizeof *r);
    if (!r) bug("out of memory");
    *out = r;
    r += n++;
    memset(r, 0, sizeof *r);
    r->id = col_int(s, 0), r->engine = dup_col(s, 1), r->seed = to_u64(col_int(s, 2));
    r->defects = dup_col(s, 3), r->kernels = col_int(s, 4), r->seconds = sqlite3_column_double(s, 5);
    r->started = dup_col(s, 6), r->ended = col_int(s, 7) != 0, r->new_findings = col_int(s, 8);
    int rc2 = 0;
    ok = bind_int(d, u, 1, r->id);
    while (ok && (rc2 = step(d, u, "reading campaign variants")) == SQLITE_ROW) {
      if (r->nvar < DB_MAX_VARIANTS) {
        snprintf(r->variant[r->nvar], sizeof r->variant[0], "%s", col_dash(u, 0));
        r->valid = col_int(u, 1);
        r->unsupported[r->nvar++] = col_int(u, 2);
      }
    }
    ok = ok && rc2 == SQLITE_DONE;
    rewind_stmt(u);
  }
  ok = ok && rc == SQLITE_DONE;
  fin(&u);
  fin(&s);
  rd_end(d);
  if (ok) return n;
  db_campaign_rows_free(*out, n);
  *out = NULL;
  return -1;
}

void db_campaign_rows_free(DbCampaignRow *r, int n) {
  for (int i = 0; i < n; i++) free(r[i].engine), free(r[i].defects), free(r[i].started);
  free(r);
}

int db_sightings(Db *d, DbSighting **out) {
  *out = NULL;
  sqlite3_stmt *s = prep(d, "SELECT finding, campaign, hits FROM sighting ORDER BY finding, campaign");
  int n = 0, rc = s ? SQLITE_ROW : 0;
  while (s && (rc = step(d, s, "listing sightings")) == SQLITE_ROW) {
    DbSighting *r = realloc(*out, (size_t)(n + 1) * sizeof *r);
    if (!r) bug("out of memory");
    *out = r;
    r[n++] = (DbSighting){col_int(s, 0), col_int(s, 1), col_int(s, 2)};
  }
  fin(&s);
  if (rc == SQLITE_DONE) return n;
  free(*out);
  *out = NULL;
  return -1;
}

const char *db_sqlite_version(void) { return sqlite3_libversion(); }
