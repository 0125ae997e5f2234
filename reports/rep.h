/* rep.h — the internal header of libreports (the findings database, reports).
 * Sectioned by the file that defines each part. Exported names carry the
 * prefix db_ (database) or rep_ (reports, dashboard); everything else is static. No global mutable state: an open
 * database is a value (Db), one per process or thread that uses it. */
#ifndef REP_H
#define REP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- db.c: the findings database (DESIGN section 11) ------------------------ */

/* One SQLite file (default findings.db) in WAL mode; the schema is written out
 * in the header comment of db.c. Several processes may write the same file,
 * each through its own Db: every write is one BEGIN IMMEDIATE transaction, a
 * busy lock is waited for (10 s) and a busy commit retried. Errors: a function
 * returns false / -1 / NULL (the cmd_ functions: exit status 1) and leaves a
 * message in the caller's buffer, or, where there is none, in db_errmsg(d).
 * Timestamps are ISO-8601 UTC text ("2024-05-01T12:00:00.123Z") and only ever
 * stored, never used to order or select: the same seed gives the same rows,
 * timestamps aside. Seeds are stored as SQLite integers (the uint64 bit
 * pattern, so seeds >= 2^63 read back negative in the sqlite3 shell). */

enum {
  DB_SCHEMA_VERSION = 4,                        /* PRAGMA user_version */
  DB_TESTCASE_CAP = 3,                          /* test cases kept per finding */
};

typedef struct Db Db;
/* Open (creating the file if needed) and create or upgrade the schema. A file
 * written by a newer version, or an SQLite file that is not a findings
 * database, is refused. NULL on error. */
Db *db_open(const char *path, char *err, size_t errn);
/* The same for a file that must exist (reading commands: list, show, stats,
 * export, status): a missing file is an error, never created. */
Db *db_open_existing(const char *path, char *err, size_t errn);
/* For a command that only reads (db list, show, stats, export; report,
 * dashboard; pto-check --db): the existing file opened read-only, so a file
 * this process cannot write (a read-only file, directory or mount; a WAL file
 * whose -shm cannot be made is read immutable) still reads. A file at an
 * older schema version is upgraded first as db_open_existing does, which
 * needs it writable (else an error that says how to upgrade a copy). */
Db *db_open_read(const char *path, char *err, size_t errn);
bool db_readonly(Db *d);                        /* d's file (or its directory) cannot be written by this process */
void db_close(Db *d);                           /* NULL is fine */
const char *db_errmsg(const Db *d);             /* the last error on d, or "" */
int db_schema_version(Db *d);                   /* PRAGMA user_version, -1 on error */
/* PRAGMA integrity_check and foreign_key_check; false with the first problem. */
bool db_check(Db *d, char *err, size_t errn);

typedef struct {
  const char *engine, *policy, *defects, *tool_version;  /* NULL: stored as NULL */
  uint64_t seed;
  const char *uid;                              /* the identity across files; NULL: a fresh random one */
} DbCampaign;
int64_t db_campaign_begin(Db *d, const DbCampaign *c);  /* campaign id, -1 on error */
bool db_campaign_end(Db *d, int64_t id, int64_t kernels, double seconds);
/* A running campaign's kernels and seconds so far (a checkpoint: a campaign
 * killed outright keeps its last one; ended stays NULL). */
bool db_campaign_progress(Db *d, int64_t id, int64_t kernels, double seconds);

typedef struct {
  const char *signature;                        /* required; the deduplication key */
  const char *kind, *mode, *code, *op, *pass, *pattern, *summary;
  const char *first_bad_pass;                   /* NULL if not bisected; filled in later hits */
} DbFinding;
typedef struct {
  const char *kernel;                           /* required: the rendered kernel text */
  const char *reduced, *variant, *flags;        /* NULL: stored as NULL */
  uint64_t seed;
  int statements;
  bool indexed;                                 /* kernel_index holds the campaign's kernel index */
  int64_t kernel_index;                         /* i of kernel i (stored only with a campaign) */
} DbTestcase;

/* One transaction: insert the finding (hits 1, status new) or bump it (hits+1,
 * last_seen; the other columns keep their first values), count the hit in the
 * campaign's sighting, then add the test case unless the finding already has
 * DB_TESTCASE_CAP of them. campaign <= 0: no campaign (and no sighting). Sets
 * *is_new (may be NULL). The finding id, or -1. */
int64_t db_record(Db *d, int64_t campaign, const DbFinding *f, const DbTestcase *t, bool *is_new,
                  char *err, size_t errn);
/* Several records in one transaction (a worker batches its findings). Fills
 * each id and is_new. All or nothing: true, or false and nothing written. */
typedef struct {
  DbFinding f;
  DbTestcase t;
  int64_t id;                                   /* out: the finding id */
  bool is_new;                                  /* out */
} DbRecord;
bool db_record_batch(Db *d, int64_t campaign, DbRecord *r, int n, char *err, size_t errn);

/* Status: new, triaged, fixed or wontfix, recorded with who set it, when, and
 * (note, may be NULL) the toolchain and the evidence in status_change. who
 * NULL: $USER. False on an unknown id or status. */
typedef struct {
  const char *who;                              /* NULL: $USER (or $LOGNAME) */
  const char *toolchain;                        /* fixed: the build it no longer reproduces on; NULL: none */
  const char *evidence;                         /* one line; NULL: none */
} DbStatusNote;
bool db_set_status(Db *d, int64_t id, const char *status, const DbStatusNote *note, char *err, size_t errn);
/* The finding's cluster key (rep_cluster_key). False on an unknown id. */
bool db_set_cluster(Db *d, int64_t id, const char *cluster, char *err, size_t errn);
/* Store the reduced kernel on the finding's first test case (the one
 * `ptofuzz reduce --finding=ID` works on). False on an unknown id. */
bool db_set_reduced(Db *d, int64_t id, const char *reduced, char *err, size_t errn);
/* The finding's signature and its first test case (the one db_set_reduced
 * writes): kernel text, flags (NULL stored: ""), seed. The strings are
 * malloc'd; db_case_free releases them. False on an unknown id or a finding
 * without a test case. */
typedef struct {
  char *signature, *kernel, *flags;
  uint64_t seed;
} DbCase;
bool db_first_case(Db *d, int64_t id, DbCase *c, char *err, size_t errn);
void db_case_free(DbCase *c);
/* For each finding marked fixed, in id order: each of its test cases that has
 * a reduced text (that text), or when none has, its first test case (the
 * kernel). The callback must not write through d. Calls made, or -1. */
int db_fixed_testcases(Db *d, void (*cb)(void *ctx, int64_t finding, const char *signature, const char *kernel),
                       void *ctx);

/* Fold another findings file into d by signature, in one transaction.
 * Campaigns go by identity (uid): one d already holds is skipped with
 * everything of it (its sightings, hits, test cases), so merging a file twice,
 * or two files that share campaigns, counts each campaign once; the others
 * are copied (renumbered). New signatures are added (keeping their status);
 * known ones get the hits of the new campaigns (and hits recorded outside any
 * campaign) added, first/last seen min/max, a missing first bad pass or
 * summary filled in, and keep their status; test cases are copied, skipping
 * ones d's finding already holds, and the finding keeps DB_TESTCASE_CAP of
 * them: when every indexed one comes from campaigns of one seed and policy,
 * those with the lowest kernel index (and the summary of the lower of the two
 * files' lowest), as one campaign over all those kernels keeps; otherwise the
 * first ones (d's, then the other file's). The other file is
 * only read; it must be a findings database of this schema version that
 * passes PRAGMA quick_check, and not d's own file. Returns the number of
 * findings new to d, or -1; st (may be NULL) gets the counts. */
typedef struct {
  int64_t campaigns;                            /* copied */
  int64_t known;                                /* skipped: d held them already */
  int64_t kernels;                              /* kernels of the copied campaigns */
  int64_t findings_new;                         /* signatures new to d */
  int64_t hits;                                 /* hits added */
} DbMergeStats;
int db_merge(Db *d, const char *other_path, DbMergeStats *st, char *err, size_t errn);

/* `ptofuzz db ...`: print to out; return an exit status, 0 ok, 1 error (an
 * unknown id, a database error: the message is in db_errmsg(d)). */
int db_cmd_list(Db *d, FILE *out);              /* a header, "ID STATUS HITS SIGNATURE SUMMARY" per finding
                                                   (SUMMARY: its title, rep_title),
                                                   "(no findings)" when there is none */
/* Fields, every campaign that saw it (its sightings and the campaigns of its
 * test cases: a "campaigns" line, then "campaign N: hits H, engine ..." each),
 * test cases with their text. */
int db_cmd_show(Db *d, int64_t id, FILE *out);
int db_cmd_stats(Db *d, FILE *out);             /* "key value" lines */
/* A kernel file reproducing finding id: '#' lines (finding, signature,
 * variant, flags, seed; pto-check's `# expect: clean` and, when flags name
 * exactly one defect of the model back end, `# defect: NAME -> KIND SIG`)
 * then its reduced text if any, else its first kernel. */
int db_cmd_export(Db *d, int64_t id, FILE *out);

/* ---- db.c: what reports and the dashboard read ------------------------------- */

/* The per-variant unsupported counts of a campaign (campaign_variant rows,
 * schema version 2): valid kernels, and per variant how many were skipped. */
bool db_campaign_variants(Db *d, int64_t campaign, int64_t valid, const char *const *variant,
                          const int64_t *unsupported, int n);
/* One finding, its first test case and the campaigns of all its test cases.
 * Strings malloc'd (NULL where the column is NULL); db_info_free releases. */
typedef struct {
  int64_t id, hits;
  char *signature, *kind, *mode, *code, *op, *pass, *pattern, *summary, *status, *first_seen, *last_seen,
      *first_bad_pass;
  bool has_case;                                /* the first test case: */
  char *kernel, *reduced, *variant, *flags;
  char *cluster;                                /* NULL: not computed */
  char *fixed_in;                               /* status fixed: the toolchain of its last fixed status_change */
  char *history;                                /* status_change lines "AT STATUS by WHO[ on TC][: EVIDENCE]" */
  uint64_t seed;
  int64_t *campaigns;
  int ncampaigns;
} DbInfo;
bool db_info(Db *d, int64_t id, DbInfo *f, char *err, size_t errn);
void db_info_free(DbInfo *f);
/* Every finding (id order) and every campaign (id order); the count or -1. */
typedef struct {
  int64_t id, hits, first_campaign;             /* first_campaign: of its first test case, 0 none */
  char *status, *kind, *signature, *summary;
  char *cluster;                                /* NULL: not computed */
} DbFindingRow;
int db_finding_rows(Db *d, DbFindingRow **out);
void db_finding_rows_free(DbFindingRow *r, int n);
enum { DB_MAX_VARIANTS = 8 };
typedef struct {
  int64_t id, kernels, new_findings;            /* new: findings whose first test case is from it */
  double seconds;
  uint64_t seed;
  char *engine, *defects, *started;
  bool ended;
  int nvar;                                     /* campaign_variant rows (0 before schema version 2) */
  int64_t valid, unsupported[DB_MAX_VARIANTS];
  char variant[DB_MAX_VARIANTS][24];
} DbCampaignRow;
int db_campaign_rows(Db *d, DbCampaignRow **out);
void db_campaign_rows_free(DbCampaignRow *r, int n);
/* Every sighting (a finding's hits in one campaign), by finding then
 * campaign; malloc'd (free), the count or -1. */
typedef struct {
  int64_t finding, campaign, hits;
} DbSighting;
int db_sightings(Db *d, DbSighting **out);
const char *db_sqlite_version(void);

/* ---- cluster.c: one bug, one cluster; titles ------------------------------------- */

/* The cluster key of a finding: from its signature, its first bad pass (NULL
 * or "-": the signature's pass field) and the oracle's detail of its test
 * case (the diagnostic or mismatch words; may be NULL). Short readable text,
 * "[ptoas:|pypto:]FAMILY/PASS[/CODE[/OP]]" (cluster.c's opening comment
 * gives the rules), deterministic. False (key untouched) on a malformed
 * signature. */
bool rep_cluster_key(const char *signature, const char *first_bad_pass, const char *detail, char *key, size_t n);
/* A finding's title in one line of at most 100 characters: its summary, or
 * for a miscompile recorded before summaries named the output, words from the
 * signature (variant from the summary, pattern, first bad pass). */
void rep_title(const char *signature, const char *summary, char *buf, size_t n);
/* A row's cluster: the stored key, else computed (never written back). */
void rep_row_cluster(const DbFindingRow *r, char *key, size_t n);
/* The ids (at most max) of the other findings whose cluster is key; their
 * count, or -1 on a database error. */
int rep_cluster_peers(Db *d, int64_t id, const char *key, int64_t *ids, int max);
/* `ptofuzz db list --clusters`: per cluster (in the order of its first
 * finding) "cluster KEY  signatures=N hits=H", then its findings as db list
 * prints them. Read-only. Exit status. */
int rep_cmd_list_clusters(Db *d, FILE *out);

/* ---- report.c: the triage report of one finding (DESIGN section 11) ------------ */

typedef enum { REP_MD, REP_HTML, REP_JSON } RepFormat;
typedef struct {
  RepFormat format;
  const char *out;                              /* the file; NULL: stdout (md: pictures in the cwd) */
  const char *db_path;                          /* for the reproduce commands */
  const char *version;                          /* the tool's version */
  const char *pypto;                            /* PyPTO findings: the builds to check (orc_pypto_builds' list) */
  const char *bundle;                           /* NULL, or write the finding's bundle there (bundle.c) */
  int replays;                                  /* the bundle's run.sh replays; 0: its default */
} RepOpts;
/* Write finding id's report: 0 ok, 1 no such finding or a database error
 * (or a --bundle directory that is not empty), 2 a file cannot be written.
 * Messages on stderr. With o->bundle, the finding's bundle too (bundle.c), and
 * a line "bundle DIR: reproduces N of N" on stdout after the report. */
int rep_report(Db *d, int64_t id, const RepOpts *o);
/* A unified diff of two texts by lines (3 lines of context; lines matched
 * with their indentation ignored, a context line shown as in b), headed
 * "--- na" / "+++ nb"; malloc'd. Only the headers when they agree. */
char *rep_line_diff(const char *a, const char *b, const char *na, const char *nb);
/* Text with HTML's special characters escaped. */
void rep_html_text(FILE *f, const char *s);

/* ---- bundle.c: a finding as a folder its tool's maintainers can run ---------------- */

enum { REP_MAX_TOOLS = 4 };
typedef struct {
  const char *dir;                              /* created; it must not exist or be empty */
  int replays;                                  /* run.sh replays at report time; 0: 2 (ptoas), 3 (model, PyPTO) */
  const char *backend;                          /* model, ptoas or pypto */
  const char *bugs, *schedule;                  /* the test case's --bugs list and schedule (rr, random:N) */
  const char *title;                            /* the report's title in words */
  const char *tool;                             /* "ptofuzz VERSION (commit C)", the report's */
  const char *pypto;                            /* PyPTO builds (orc_pypto_builds' list): the first is used */
  const char *program, *program_note;           /* PyPTO: the program ptoc translates the kernel into, or why none */
} RepBundleOpts;
typedef struct {
  int replays, reproduced;                      /* "reproduces N of N" */
  char outcome[400];                            /* the first replay's verdict line */
  char first_status[8];                         /* its exit status */
  char *first_error;                            /* the tools' full first error in the first replay (malloc'd), or NULL */
  char tools[REP_MAX_TOOLS][700];               /* the identities of the tools that matter */
  int ntools;
} RepBundle;
/* Write finding f's bundle (f as db_info read it) and replay its run.sh: 0 ok,
 * 1 a usage error (the directory is not empty), 2 it cannot be written or the
 * finding has no bundle (said on stderr). rep_bundle_free releases res. */
int rep_bundle(Db *d, const DbInfo *f, const RepBundleOpts *o, RepBundle *res);
void rep_bundle_free(RepBundle *res);
/* The identities of the tools a finding of backend (model, ptoas, pypto) blames,
 * one line each ("ptoas: ptoas 0.42, commit ...", "pto-isa: commit ...", "C++
 * compiler: ...", "PyPTO: commit ..."); none for the model. How many. */
int rep_tools(const char *backend, const char *pypto, char (*line)[700], int max);

/* ---- dashboard.c: a static page over the database ------------------------------- */

/* DIR/index.html and DIR/finding-ID.html for each finding; 0 ok, 1 database
 * error, 2 a file cannot be written. */
int rep_dashboard(Db *d, const char *dir, const char *db_path, const char *version);

#endif
