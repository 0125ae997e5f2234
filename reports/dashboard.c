/* dashboard.c — a static page over a findings database (DESIGN section 11).
 * Consumes the database's findings and campaigns (and the per-variant
 * unsupported counts of schema version 2); produces DIR/index.html, one
 * self-contained page (inline CSS, inline SVG charts, no script), and
 * DIR/finding-ID.html, each finding's triage report (report.c), which the
 * page's table links to. Charts: findings by status and by kind, new findings
 * per campaign, throughput (kernels/s) per campaign, and each variant's
 * unsupported share per campaign (campaigns recorded before schema version 2
 * have no such counts: no point). */
#include "rep.h"

#include "ptoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { CW = 560, CH = 220, PADL = 48, PADB = 36, PADT = 28, PADR = 16 };

static const char *const series_colour[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                            "#e377c2", "#7f7f7f"};

static void svg_open(FILE *f, const char *id, const char *title) {
  fprintf(f, "<figure><svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
             " viewBox=\"0 0 %d %d\" role=\"img\"><title>", id, CW, CH, CW, CH);
  rep_html_text(f, title);
  fprintf(f, "</title><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
             "<text x=\"%d\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", CW, CH, PADL);
  rep_html_text(f, title);
  fputs("</text>\n", f);
}

/* Axes with ticks at 0, max/2, max. */
static void axes(FILE *f, double ymax, const char *fmt) {
  int x0 = PADL, y0 = CH - PADB, y1 = PADT;
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", x0, y0, CW - PADR, y0);
  fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", x0, y0, x0, y1);
  for (int t = 0; t <= 2; t++) {
    double v = ymax * t / 2;
    int y = y0 - (int)((y0 - y1) * t / 2.0);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">", x0 - 4, y + 3);
    fprintf(f, fmt, v);
    fprintf(f, "</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n", x0, y, CW - PADR, y);
  }
}

/* Vertical bars, one per label. */
static void bar_chart(FILE *f, const char *id, const char *title, const char *const *label, const double *v, int n,
                      const char *colour, const char *fmt) {
  svg_open(f, id, title);
  double max = 0;
  for (int i = 0; i < n; i++) max = v[i] > max ? v[i] : max;
  if (max <= 0) max = 1;
  axes(f, max, fmt);
  int w = CW - PADL - PADR, h = CH - PADB - PADT;
  double slot = n ? (double)w / n : w;
  for (int i = 0; i < n; i++) {
    int bh = (int)(h * v[i] / max + 0.5);
    double x = PADL + slot * i + slot * 0.15;
    fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", x,
            CH - PADB - bh, slot * 0.7, bh, colour);
    rep_html_text(f, label[i]);
    fprintf(f, ": ");
    fprintf(f, fmt, v[i]);
    fputs("</title></rect>", f);
    if (n <= 24) {
      fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">", x + slot * 0.35, CH - PADB + 12);
      rep_html_text(f, label[i]);
      fputs("</text>", f);
    }
    fputc('\n', f);
  }
  if (!n) fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">no data</text>", PADL + 10, CH / 2);
  fputs("</svg></figure>\n", f);
}

/* One polyline (and dots) per series over the campaigns. */
static void line_chart(FILE *f, const char *id, const char *title, const char *const *xlabel, int n,
                       const char *const *name, const double *const *v, int ns, double ymax, const char *fmt) {
  svg_open(f, id, title);
  if (ymax <= 0) ymax = 1;
  axes(f, ymax, fmt);
  int w = CW - PADL - PADR, h = CH - PADB - PADT;
  for (int s = 0; s < ns; s++) {
    const char *col = series_colour[s % 8];
    fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int i = 0; i < n; i++)
      if (!isnan(v[s][i])) fprintf(f, "%.1f,%.1f ", PADL + (n > 1 ? (double)w * i / (n - 1) : w / 2.0), CH - PADB - h * v[s][i] / ymax);
    fputs("\"/>\n", f);
    for (int i = 0; i < n; i++) {
      if (isnan(v[s][i])) continue;             /* a campaign without the numbers */
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", PADL + (n > 1 ? (double)w * i / (n - 1) : w / 2.0),
              CH - PADB - h * v[s][i] / ymax, col);
      rep_html_text(f, name[s]);
      fprintf(f, " campaign %s: ", xlabel[i]);
      fprintf(f, fmt, v[s][i]);
      fputs("</title></circle>", f);
    }
    /* the series' key, top right */
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"10\">",
            CW - PADR - 110, PADT + 2 + 13 * s, col, CW - PADR - 96, PADT + 11 + 13 * s);
    rep_html_text(f, name[s]);
    fputs("</text>\n", f);
  }
  for (int i = 0; i < n && n <= 24; i++)
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
            PADL + (n > 1 ? (double)w * i / (n - 1) : w / 2.0), CH - PADB + 12, xlabel[i]);
  if (!n) fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">no data</text>", PADL + 10, CH / 2);
  fputs("<text x=\"", f);
  fprintf(f, "%d\" y=\"%d\" font-size=\"10\">campaign</text></svg></figure>\n", CW / 2, CH - 6);
}

/* Count rows by a key (status or kind), in first-seen order of the keys. */
typedef struct {
  const char *key[64];
  double n[64];
  int k;
} Tally;
static void tally(Tally *t, const char *key) {
  for (int i = 0; i < t->k; i++)
    if (!strcmp(t->key[i], key)) {
      t->n[i]++;
      return;
    }
  if (t->k < 64) t->key[t->k] = key, t->n[t->k++] = 1;
}

static void write_page(FILE *f, const DbFindingRow *fr, int nf, const DbCampaignRow *cr, int nc, const char *db_path,
                       const char *version) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ptofuzz dashboard</title>\n<style>"
        "body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse;font-size:13px}"
        "td,th{border:1px solid #bbb;padding:2px 6px;text-align:left}figure{display:inline-block;margin:6px}"
        ".charts{display:flex;flex-wrap:wrap}code{font-size:12px}</style></head><body>\n<h1>ptofuzz dashboard</h1>\n<p>",
        f);
  rep_html_text(f, db_path);
  int64_t kernels = 0;
  double secs = 0;
  for (int i = 0; i < nc; i++) kernels += cr[i].kernels, secs += cr[i].seconds;
  fprintf(f, ": <span id=\"nfindings\">%d</span> findings, %d campaigns, %lld kernels in %.1f s; ptofuzz %s</p>\n", nf, nc,
          (long long)kernels, secs, version);
  fputs("<div class=\"charts\">\n", f);
  Tally st = {0}, kd = {0};
  static const char *const statuses[] = {"new", "triaged", "fixed", "wontfix"};
  for (int i = 0; i < 4; i++) st.key[i] = statuses[i];
  st.k = 4;
  for (int i = 0; i < nf; i++) {
    for (int s = 0; s < 4; s++) st.n[s] += !strcmp(fr[i].status, statuses[s]);
    tally(&kd, fr[i].kind);
  }
  bar_chart(f, "chart-status", "findings by status", st.key, st.n, st.k, "#4e79a7", "%.0f");
  bar_chart(f, "chart-kind", "findings by kind", kd.key, kd.n, kd.k, "#e15759", "%.0f");
  const char **lab = calloc((size_t)nc + 1, sizeof *lab);
  char (*labbuf)[24] = calloc((size_t)nc + 1, sizeof *labbuf);
  double *nw = calloc((size_t)nc + 1, sizeof *nw), *tp = calloc((size_t)nc + 1, sizeof *tp);
  if (!lab || !labbuf || !nw || !tp) die("out of memory");
  double tmax = 0;
  for (int i = 0; i < nc; i++) {
    snprintf(labbuf[i], sizeof labbuf[i], "%lld", (long long)cr[i].id);
    lab[i] = labbuf[i];
    nw[i] = (double)cr[i].new_findings;
    tp[i] = cr[i].seconds > 0 ? cr[i].kernels / cr[i].seconds : 0;
    tmax = tp[i] > tmax ? tp[i] : tmax;
  }
  bar_chart(f, "chart-new", "new findings per campaign", lab, nw, nc, "#59a14f", "%.0f");
  const double *tps[] = {tp};
  const char *tpn[] = {"kernels/s"};
  line_chart(f, "chart-throughput", "throughput (kernels/s) per campaign", lab, nc, tpn, tps, 1, tmax * 1.1, "%.0f");
  /* unsupported shares: the variants named by any campaign, in first-seen order */
  const char *vn[DB_MAX_VARIANTS];
  int nv = 0;
  for (int i = 0; i < nc; i++)
    for (int v = 0; v < cr[i].nvar; v++) {
      int j = 0;
      while (j < nv && strcmp(vn[j], cr[i].variant[v])) j++;
      if (j == nv && nv < DB_MAX_VARIANTS) vn[nv++] = cr[i].variant[v];
    }
  double *sh[DB_MAX_VARIANTS];
  for (int j = 0; j < nv; j++) {
    if (!(sh[j] = calloc((size_t)nc + 1, sizeof *sh[j]))) die("out of memory");
    for (int i = 0; i < nc; i++) sh[j][i] = NAN;   /* campaigns before schema version 2 have none */
    for (int i = 0; i < nc; i++)
      for (int v = 0; v < cr[i].nvar; v++)
        if (!strcmp(cr[i].variant[v], vn[j]) && cr[i].valid > 0) sh[j][i] = (double)cr[i].unsupported[v] / cr[i].valid;
  }
  line_chart(f, "chart-unsupported", "unsupported share per variant per campaign", lab, nv ? nc : 0, vn,
             (const double *const *)sh, nv, 1.0, "%.2f");
  fputs("</div>\n<h2>Findings</h2>\n<table id=\"findings\"><tr><th>id</th><th>status</th><th>kind</th><th>hits</th>"
        "<th>first campaign</th><th>signature</th><th>summary</th></tr>\n", f);
  for (int i = 0; i < nf; i++) {
    fprintf(f, "<tr class=\"finding\"><td><a href=\"finding-%lld.html\">%lld</a></td><td>", (long long)fr[i].id,
            (long long)fr[i].id);
    rep_html_text(f, fr[i].status);
    fputs("</td><td>", f);
    rep_html_text(f, fr[i].kind);
    fprintf(f, "</td><td>%lld</td><td>%lld</td><td><code>", (long long)fr[i].hits, (long long)fr[i].first_campaign);
    rep_html_text(f, fr[i].signature);
    fputs("</code></td><td>", f);
    rep_html_text(f, fr[i].summary);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n<h2>Campaigns</h2>\n<table id=\"campaigns\"><tr><th>id</th><th>engine</th><th>seed</th><th>defects</th>"
        "<th>kernels</th><th>seconds</th><th>kernels/s</th><th>new findings</th><th>started</th></tr>\n", f);
  for (int i = 0; i < nc; i++) {
    fprintf(f, "<tr><td>%lld</td><td>", (long long)cr[i].id);
    rep_html_text(f, cr[i].engine);
    fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)cr[i].seed);
    rep_html_text(f, *cr[i].defects ? cr[i].defects : "none");
    fprintf(f, "</td><td>%lld</td><td>%.1f</td><td>%.0f</td><td>%lld</td><td>", (long long)cr[i].kernels, cr[i].seconds,
            tp[i], (long long)cr[i].new_findings);
    rep_html_text(f, cr[i].started);
    fputs(cr[i].ended ? "</td></tr>\n" : " (not ended)</td></tr>\n", f);
  }
  fputs("</table>\n</body></html>\n", f);
  for (int j = 0; j < nv; j++) free(sh[j]);
  free(lab), free(labbuf), free(nw), free(tp);
}

int rep_dashboard(Db *d, const char *dir, const char *db_path, const char *version) {
  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "ptofuzz: dashboard: cannot create %s: %s\n", dir, strerror(errno));
    return 2;
  }
  DbFindingRow *fr;
  DbCampaignRow *cr;
  int nf = db_finding_rows(d, &fr);
  int nc = nf < 0 ? -1 : db_campaign_rows(d, &cr);
  if (nc < 0) {
    fprintf(stderr, "ptofuzz: dashboard: %s\n", db_errmsg(d));
    if (nf >= 0) db_finding_rows_free(fr, nf);
    return 1;
  }
  int rc = 0;
  char path[4096];
  for (int i = 0; i < nf && !rc; i++) {
    snprintf(path, sizeof path, "%s/finding-%lld.html", dir, (long long)fr[i].id);
    int r = rep_report(d, fr[i].id, &(RepOpts){.format = REP_HTML, .out = path, .db_path = db_path, .version = version});
    if (r == 2) rc = 2;                         /* a finding without a test case still gets its row */
  }
  snprintf(path, sizeof path, "%s/index.html", dir);
  FILE *f = rc ? NULL : fopen(path, "w");
  if (!rc && !f) rc = 2;
  if (f) {
    write_page(f, fr, nf, cr, nc, db_path, version);
    if (fclose(f)) rc = 2;
  }
  if (rc) fprintf(stderr, "ptofuzz: dashboard: cannot write %s\n", path);
  else printf("dashboard: %s (%d findings, %d campaigns)\n", path, nf, nc);
  db_finding_rows_free(fr, nf);
  db_campaign_rows_free(cr, nc);
  return rc;
}
