/* dashboard.c — a static page over a findings database (DESIGN section 11).
 * Consumes the database's findings, their sightings (hits per campaign) and
 * campaigns (and the per-variant unsupported counts of schema version 2);
 * produces DIR/index.html, one self-contained page (inline CSS, inline SVG
 * charts, a small inline script, nothing loaded from elsewhere), and
 * DIR/finding-ID.html, each finding's triage report (report.c), which the
 * page's tables link to. Charts: findings by status and by kind, new findings
 * per campaign, throughput (kernels/s) per campaign, and each variant's
 * unsupported share per campaign (campaigns recorded before schema version 2
 * have no such counts, campaigns that never ended no throughput: no point).
 * Campaign axes label at most XTICKS campaigns, evenly spaced, so one
 * campaign and hundreds both read. Then the clusters (cluster.c), the
 * findings grouped by cluster, each with its title and a sparkline of its
 * hits per campaign, sortable by a click on a column head and filtered by
 * kind, status, back end and cluster (the script; without it the table is
 * simply all of them, grouped), and the campaigns, those that never ended
 * (killed, or still running) marked with the kernels they checkpointed. */
#include "rep.h"
#include "cli.h"

#include "ptoc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { CW = 560, CH = 220, PADL = 48, PADB = 36, PADT = 28, PADR = 16, XTICKS = 12, BARMAX = 48 };

/* Label i of n on a campaign axis: every step-th, at most XTICKS + 1 in all
 * (so labels never overlap), and always the last, dropping the one before it
 * when that one stands closer than half a step. */
static bool x_tick(int i, int n) {
  int step = (n + XTICKS - 1) / XTICKS;
  if (step < 1) step = 1;
  if (i == n - 1) return true;
  return i % step == 0 && (n - 1 - i) * 2 >= step;
}

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

/* Axes with ticks at 0, max/2, max (counts: max rounded up to an even
 * integer, so the ticks are distinct integers). */
static double nice_max(double ymax, const char *fmt) {
  if (strcmp(fmt, "%.0f")) return ymax;
  double m = ceil(ymax);
  return fmod(m, 2) ? m + 1 : m;
}

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
  max = nice_max(max, fmt);
  axes(f, max, fmt);
  int w = CW - PADL - PADR, h = CH - PADB - PADT;
  double slot = n ? (double)w / n : w, bw = slot * 0.7 < BARMAX ? slot * 0.7 : BARMAX;
  for (int i = 0; i < n; i++) {
    int bh = (int)(h * v[i] / max + 0.5);
    double x = PADL + slot * i + (slot - bw) / 2;
    fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", x,
            CH - PADB - bh, bw, bh, colour);
    rep_html_text(f, label[i]);
    fprintf(f, ": ");
    fprintf(f, fmt, v[i]);
    fputs("</title></rect>", f);
    if (x_tick(i, n)) {
      fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">", x + bw / 2,
              CH - PADB + 12);
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
  ymax = nice_max(ymax, fmt);
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
  for (int i = 0; i < n; i++)
    if (x_tick(i, n))
      fprintf(f, "<text class=\"xtick\" x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%s</text>",
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

/* The back end a signature names: the prefix of its mode field. */
static const char *backend_of(const char *sig) {
  const char *m = sig ? strchr(sig, '|') : NULL;
  return m && !strncmp(m + 1, "ptoas:", 6) ? "ptoas" : m && !strncmp(m + 1, "pypto:", 6) ? "pypto" : "model";
}

/* Index of campaign id in cr (ordered by id), or -1. */
static int campaign_at(const DbCampaignRow *cr, int nc, int64_t id) {
  int lo = 0, hi = nc - 1;
  while (lo <= hi) {
    int m = (lo + hi) / 2;
    if (cr[m].id == id) return m;
    if (cr[m].id < id) lo = m + 1;
    else hi = m - 1;
  }
  return -1;
}

/* A finding's hits per campaign, sg[0..n) its sightings: a bar per campaign
 * of the database (id order, an empty slot where it was not seen), at most
 * 160 pixels wide; the tooltip lists the campaigns that saw it. */
static void sparkline(FILE *f, const DbSighting *sg, int n, const DbCampaignRow *cr, int nc) {
  enum { H = 16, W = 160 };
  double bw = nc ? (nc * 4 <= W ? 4.0 : (double)W / nc) : 4;
  int64_t max = 1;
  for (int k = 0; k < n; k++) max = sg[k].hits > max ? sg[k].hits : max;
  fprintf(f, "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\"><title>seen in %d of %d"
             " campaigns", bw * (nc ? nc : 1), H, n, nc);
  for (int k = 0; k < n && k < 20; k++)
    fprintf(f, "%s campaign %lld: %lld", k ? ";" : ":", (long long)sg[k].campaign, (long long)sg[k].hits);
  fputs(n > 20 ? "; ...</title>" : "</title>", f);
  fprintf(f, "<rect width=\"%.1f\" height=\"%d\" fill=\"#f3f3f3\"/>", bw * (nc ? nc : 1), H);
  for (int k = 0; k < n; k++) {
    int at = campaign_at(cr, nc, sg[k].campaign);
    if (at < 0) continue;
    double h = 2 + (H - 2) * (double)sg[k].hits / (double)max;
    fprintf(f, "<rect class=\"sighting\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#4e79a7\"/>", bw * at,
            H - h, bw > 1.5 ? bw - 0.5 : bw, h);
  }
  fputs("</svg>", f);
}

/* A select of the distinct values of one column (in first-seen order). */
static void filter_select(FILE *f, const char *name, const char *const *val, int n) {
  fprintf(f, "<label>%s <select name=\"%s\"><option value=\"\">all</option>", name, name);
  for (int i = 0; i < n; i++) {
    bool dup = false;
    for (int j = 0; j < i && !dup; j++) dup = !strcmp(val[j], val[i]);
    if (dup) continue;
    fputs("<option>", f);
    rep_html_text(f, val[i]);
    fputs("</option>", f);
  }
  fputs("</select></label>", f);
}

/* Sorting on a click on a column head (again: the other way), and the
 * filters, which the page's address keeps (index.html#kind=miscompile&backend=model). */
static const char script[] =
    "(function(){var t=document.getElementById('findings'),b=t.tBodies[0],"
    "rows=[].slice.call(b.querySelectorAll('tr.finding')),sel=[].slice.call(document.querySelectorAll('#filters select'));"
    "function apply(){var n=0;rows.forEach(function(r){var ok=sel.every(function(s){return !s.value||"
    "r.getAttribute('data-'+s.name)===s.value;});r.style.display=ok?'':'none';if(ok)n++;});"
    "document.getElementById('shown').textContent=n;}"
    "location.hash.slice(1).split('&').forEach(function(kv){var p=kv.split('='),v=decodeURIComponent(p[1]||'');"
    "sel.forEach(function(s){if(s.name===p[0])s.value=v;});});"
    "sel.forEach(function(s){s.addEventListener('change',function(){apply();location.hash=sel.filter(function(x){"
    "return x.value;}).map(function(x){return x.name+'='+encodeURIComponent(x.value);}).join('&');});});"
    "[].slice.call(t.querySelectorAll('th[data-sort]')).forEach(function(h){h.addEventListener('click',function(){"
    "var k=h.getAttribute('data-sort'),num=k==='id'||k==='hits'||k==='group',d=h.getAttribute('data-dir')==='asc'?-1:1;"
    "h.setAttribute('data-dir',d>0?'asc':'desc');rows.sort(function(x,y){var a=x.getAttribute('data-'+k),"
    "c=y.getAttribute('data-'+k),r=num?a-c:a<c?-1:a>c?1:0;return d*r||x.getAttribute('data-id')-y.getAttribute('data-id');});"
    "rows.forEach(function(r){b.appendChild(r);});});});apply();})();";

/* The clusters, then the findings grouped by cluster (clusters in the order
 * of their first finding), with the filters and the script. */
static void findings_section(FILE *f, const DbFindingRow *fr, int nf, const DbSighting *sg, int ns,
                             const DbCampaignRow *cr, int nc) {
  char (*key)[128] = calloc((size_t)nf + 1, sizeof *key);
  int *order = calloc((size_t)nf + 1, sizeof *order), *group = calloc((size_t)nf + 1, sizeof *group);
  const char **kinds = calloc((size_t)nf + 1, sizeof *kinds), **sts = calloc((size_t)nf + 1, sizeof *sts);
  const char **bes = calloc((size_t)nf + 1, sizeof *bes), **keys = calloc((size_t)nf + 1, sizeof *keys);
  bool *done = calloc((size_t)nf + 1, sizeof *done);
  if (!key || !order || !group || !kinds || !sts || !bes || !keys || !done) die("out of memory");
  for (int i = 0; i < nf; i++) rep_row_cluster(&fr[i], key[i], sizeof key[i]);
  int no = 0, ng = 0;
  fputs("<h2>Clusters</h2>\n<p>One bug, one cluster: findings whose signatures differ only in what the kernel around the"
        " bug decides (split mode, lane pattern, the op that noticed it).</p>\n<table id=\"clusters\"><tr><th>cluster</th>"
        "<th>signatures</th><th>hits</th><th>findings</th></tr>\n", f);
  for (int i = 0; i < nf; i++) {
    if (done[i]) continue;
    int64_t hits = 0;
    int nsig = 0;
    for (int j = i; j < nf; j++)
      if (!strcmp(key[j], key[i])) hits += fr[j].hits, nsig++;
    fputs("<tr class=\"cluster\"><td><code>", f);
    rep_html_text(f, key[i]);
    fprintf(f, "</code></td><td>%d</td><td>%lld</td><td>", nsig, (long long)hits);
    for (int j = i; j < nf; j++) {
      if (strcmp(key[j], key[i])) continue;
      done[j] = true, group[j] = ng, order[no++] = j;
      fprintf(f, "%s<a href=\"finding-%lld.html\">%lld</a>", j == i ? "" : ", ", (long long)fr[j].id, (long long)fr[j].id);
    }
    fputs("</td></tr>\n", f);
    ng++;
  }
  fputs("</table>\n<h2>Findings</h2>\n<div id=\"filters\">", f);
  for (int i = 0; i < nf; i++) kinds[i] = fr[i].kind, sts[i] = fr[i].status, bes[i] = backend_of(fr[i].signature),
                                keys[i] = key[order[i]];
  filter_select(f, "kind", kinds, nf);
  filter_select(f, "status", sts, nf);
  filter_select(f, "backend", bes, nf);
  filter_select(f, "cluster", keys, nf);
  fprintf(f, " <span id=\"shown\">%d</span> shown; click a column head to sort</div>\n", nf);
  fputs("<table id=\"findings\"><thead><tr><th data-sort=\"id\">id</th><th data-sort=\"status\">status</th>"
        "<th data-sort=\"kind\">kind</th><th data-sort=\"backend\">back end</th><th data-sort=\"group\">cluster</th>"
        "<th data-sort=\"hits\">hits</th><th>hits per campaign</th><th>first campaign</th><th>signature</th><th>title</th>"
        "</tr></thead><tbody>\n", f);
  int at = 0;                                   /* sightings are ordered by finding */
  for (int x = 0; x < nf; x++) {
    int i = order[x];
    const char *be = backend_of(fr[i].signature);
    fprintf(f, "<tr class=\"finding\" data-id=\"%lld\" data-hits=\"%lld\" data-group=\"%d\" data-kind=\"", (long long)fr[i].id,
            (long long)fr[i].hits, group[i]);
    rep_html_text(f, fr[i].kind);
    fputs("\" data-status=\"", f);
    rep_html_text(f, fr[i].status);
    fprintf(f, "\" data-backend=\"%s\" data-cluster=\"", be);
    rep_html_text(f, key[i]);
    fprintf(f, "\"><td><a href=\"finding-%lld.html\">%lld</a></td><td>", (long long)fr[i].id, (long long)fr[i].id);
    rep_html_text(f, fr[i].status);
    fputs("</td><td>", f);
    rep_html_text(f, fr[i].kind);
    fprintf(f, "</td><td>%s</td><td><code>", be);
    rep_html_text(f, key[i]);
    fprintf(f, "</code></td><td>%lld</td><td>", (long long)fr[i].hits);
    while (at > 0 && sg[at - 1].finding >= fr[i].id) at--;
    while (at < ns && sg[at].finding < fr[i].id) at++;
    int e = at;
    while (e < ns && sg[e].finding == fr[i].id) e++;
    sparkline(f, sg + at, e - at, cr, nc);
    fprintf(f, "</td><td>%lld</td><td><code>", (long long)fr[i].first_campaign);
    rep_html_text(f, fr[i].signature);
    fputs("</code></td><td>", f);
    char title[128];
    rep_title(fr[i].signature, fr[i].summary, title, sizeof title);
    rep_html_text(f, title);
    fputs("</td></tr>\n", f);
  }
  fputs("</tbody></table>\n<script>", f);
  fputs(script, f);
  fputs("</script>\n", f);
  free(key), free(order), free(group), free(kinds), free(sts), free(bes), free(keys), free(done);
}

static void write_page(FILE *f, const DbFindingRow *fr, int nf, const DbSighting *sg, int ns, const DbCampaignRow *cr,
                       int nc, const char *db_path, const char *version) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ptofuzz dashboard</title>\n<style>"
        "body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse;font-size:13px}"
        "td,th{border:1px solid #bbb;padding:2px 6px;text-align:left}figure{display:inline-block;margin:6px}"
        ".charts{display:flex;flex-wrap:wrap}code{font-size:12px}th[data-sort]{cursor:pointer}tr.killed{background:#fde8e8}"
        "#filters{margin:6px 0}#filters label{margin-right:12px}svg.spark{vertical-align:middle}</style></head><body>\n<h1>ptofuzz dashboard</h1>\n<p>",
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
    tp[i] = cr[i].ended && cr[i].seconds > 0 ? cr[i].kernels / cr[i].seconds : NAN;   /* killed: no time to divide by */
    if (!isnan(tp[i])) tmax = tp[i] > tmax ? tp[i] : tmax;
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
  fputs("</div>\n", f);
  findings_section(f, fr, nf, sg, ns, cr, nc);
  fputs("<h2>Campaigns</h2>\n<p>A campaign that never ended was killed or is still running; its kernels are those it"
        " last checkpointed.</p>\n<table id=\"campaigns\"><tr><th>id</th><th>engine</th><th>seed</th><th>defects</th>"
        "<th>kernels</th><th>seconds</th><th>kernels/s</th><th>new findings</th><th>started</th><th>state</th></tr>\n", f);
  for (int i = 0; i < nc; i++) {
    fprintf(f, "<tr class=\"%s\"><td>%lld</td><td>", cr[i].ended ? "ended" : "killed", (long long)cr[i].id);
    rep_html_text(f, cr[i].engine);
    fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)cr[i].seed);
    rep_html_text(f, *cr[i].defects ? cr[i].defects : "none");
    fprintf(f, "</td><td>%lld</td><td>%.1f</td><td>", (long long)cr[i].kernels, cr[i].seconds);
    if (isnan(tp[i])) fputs("-", f);
    else fprintf(f, "%.0f", tp[i]);
    fprintf(f, "</td><td>%lld</td><td>", (long long)cr[i].new_findings);
    rep_html_text(f, cr[i].started);
    fputs(cr[i].ended ? "</td><td>ended</td></tr>\n" : "</td><td>never ended (killed or running)</td></tr>\n", f);
  }
  fputs("</table>\n</body></html>\n", f);
  for (int j = 0; j < nv; j++) free(sh[j]);
  free(lab), free(labbuf), free(nw), free(tp);
}

int rep_dashboard(Db *d, const char *dir, const char *db_path, const char *version) {
  if (mkdir(dir, 0777) && errno != EEXIST) {
    return ir_cli_error("ptofuzz dashboard", "cannot create %s: %s", dir, strerror(errno));   /* the user's path: exit 1 */
  }
  DbFindingRow *fr;
  DbCampaignRow *cr;
  DbSighting *sg = NULL;
  int nf = db_finding_rows(d, &fr);
  int nc = nf < 0 ? -1 : db_campaign_rows(d, &cr);
  int ns = nc < 0 ? -1 : db_sightings(d, &sg);
  if (ns < 0) {
    fprintf(stderr, "ptofuzz: dashboard: %s\n", db_errmsg(d));
    if (nf >= 0) db_finding_rows_free(fr, nf);
    if (nc >= 0) db_campaign_rows_free(cr, nc);
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
    write_page(f, fr, nf, sg, ns, cr, nc, db_path, version);
    if (fclose(f)) rc = 2;
  }
  if (rc) fprintf(stderr, "ptofuzz: dashboard: cannot write %s\n", path);
  else printf("dashboard: %s (%d findings, %d campaigns)\n", path, nf, nc);
  db_finding_rows_free(fr, nf);
  db_campaign_rows_free(cr, nc);
  free(sg);
  return rc;
}
