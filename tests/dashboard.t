#!/bin/sh
# dashboard.t — `ptofuzz dashboard -o DIR` over a database of two campaigns,
# loaded in headless Chromium: the rendered DOM lists every finding (linking
# to its report, which exists) and the five charts; a screenshot is the
# right size and not blank, and shows the charts' colours. The clusters, the
# filters (set from the page's address), the hits-per-campaign sparklines, a
# campaign that never ended, and campaign axes that stay readable with one
# campaign and with 150. Chromium is
# installed by `scripts/deps.sh chromium` for this test alone; when it cannot
# be installed the test is skipped.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
PS="$B/tests/pngstat"

if ! command -v chromium >/dev/null 2>&1 && ! sh scripts/deps.sh chromium >/dev/null 2>&1; then
  echo "1..0 # SKIP headless chromium is not installed and cannot be (scripts/deps.sh chromium needs root and apt)"
  exit 0
fi
if ! command -v chromium >/dev/null 2>&1; then
  echo "1..0 # SKIP no chromium on PATH after scripts/deps.sh chromium"
  exit 0
fi
chrome() {
  u=$(mktemp -d "$T/profile.XXXXXX")
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$u" "$@" 2>/dev/null
}

DB="$T/f.db"
"$F" run --bugs=store-axis-swap,odd-floor-half --count=300 --jobs=1 --seed=3 --db="$DB" --quiet >/dev/null 2>&1 &&
  "$F" run --count=60 --jobs=1 --seed=5 --db="$DB" --quiet >/dev/null 2>&1
ok $? "dashboard-1.1 two campaigns into one database"
NF=$("$F" db list --db="$DB" | tail -n +2 | wc -l)
"$F" dashboard --db="$DB" -o "$T/dash" >/dev/null && [ -s "$T/dash/index.html" ]
ok $? "dashboard-1.2 dashboard -o DIR writes index.html ($NF findings)"
miss=0
for id in $("$F" db list --db="$DB" | awk 'NR > 1 { print $1 }'); do [ -s "$T/dash/finding-$id.html" ] || miss=$((miss + 1)); done
[ "$NF" -gt 0 ] && [ "$miss" = 0 ]
ok $? "dashboard-1.3 every finding's HTML report is written beside it ($miss missing)"
! grep -Eq '<script[^>]* src=|<link|<iframe|<img[^>]* src="http|https?://[^"]*\.(js|css)' "$T/dash/index.html" &&
  [ "$(grep -c '<script>' "$T/dash/index.html")" = 1 ]
ok $? "dashboard-1.4 the page loads nothing from elsewhere: one inline script"

chrome --dump-dom "file://$T/dash/index.html" > "$T/dom.html"
[ "$(grep -o '<tr class="finding"' "$T/dom.html" | wc -l)" = "$NF" ]
ok $? "dashboard-2.1 the rendered DOM lists every finding ($NF)"
bad=0
for id in $("$F" db list --db="$DB" | awk 'NR > 1 { print $1 }'); do grep -q "<a href=\"finding-$id.html\">$id</a>" "$T/dom.html" || bad=$((bad + 1)); done
[ "$bad" = 0 ]
ok $? "dashboard-2.2 each finding links to its report ($bad without a link)"
nc=0
for c in chart-status chart-kind chart-new chart-throughput chart-unsupported; do grep -q "<svg id=\"$c\" class=\"chart\"" "$T/dom.html" && nc=$((nc + 1)); done
[ "$nc" = 5 ]
ok $? "dashboard-2.3 the DOM holds the five charts ($nc)"
grep -q '<rect class="bar"' "$T/dom.html" && [ "$(grep -o '<polyline class="series"' "$T/dom.html" | wc -l)" -ge 5 ]
ok $? "dashboard-2.4 the charts have bars and lines (throughput, four variants' unsupported shares)"
MID=$("$F" db list --db="$DB" | awk '$4 ~ /^miscompile\|/ { print $1; exit }')
chrome --dump-dom "file://$T/dash/finding-${MID:-1}.html" > "$T/fdom.html"
grep -q '<img class="tile"[^>]*src="data:image/png;base64,' "$T/fdom.html"
ok $? "dashboard-2.5 a miscompile's linked report renders with its inlined picture (finding ${MID:-none})"

chrome --window-size=1280,1000 --screenshot="$T/shot.png" "file://$T/dash/index.html" >/dev/null
set -- $("$PS" "$T/shot.png" 4e79a7 e15759 59a14f 2>/dev/null)
[ "${1:-0}" = 1280 ] && [ "${2:-0}" = 1000 ]
ok $? "dashboard-3.1 the screenshot is a 1280x1000 PNG (${1:-?}x${2:-?})"
[ "${3:-0}" -gt 40000 ]
ok $? "dashboard-3.2 the screenshot is not blank (${3:-0} non-background pixels)"
[ "${4:-0}" -gt 500 ] && [ "${5:-0}" -gt 500 ] && [ "${6:-0}" -gt 500 ]
ok $? "dashboard-3.3 the status, kind and new-findings bars are drawn (${4:-0} ${5:-0} ${6:-0} pixels)"

"$F" db init --db="$T/empty.db" >/dev/null && "$F" dashboard --db="$T/empty.db" -o "$T/empty" >/dev/null && grep -q 'no data' "$T/empty/index.html"
ok $? "dashboard-4.1 an empty database gives a page with empty charts"
"$F" dashboard --db="$DB" >/dev/null 2>&1
[ $? = 1 ]
ok $? "dashboard-4.2 dashboard without -o is a usage error"
# clusters, filters, sightings
NCL=$("$F" db list --clusters --db="$DB" | grep -c '^cluster ')
[ "$(grep -o '<tr class="cluster">' "$T/dom.html" | wc -l)" = "$NCL" ] && [ "$NCL" -ge 1 ] && [ "$NCL" -le "$NF" ]
ok $? "dashboard-5.1 the clusters table has a row per cluster ($NCL clusters of $NF findings)"
grep -o '<tr class="finding"[^>]*data-group="[0-9]*"' "$T/dom.html" | sed 's/.*data-group="//; s/"//' |
  awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { exit bad }'
ok $? "dashboard-5.2 the findings come grouped by cluster"
NREJ=$("$F" db list --db="$DB" | awk '$4 ~ /^reject\|/' | wc -l)
chrome --dump-dom "file://$T/dash/index.html#kind=reject" > "$T/fdom2.html"
shown=$(grep -o '<tr class="finding"[^>]*>' "$T/fdom2.html" | grep -vc 'display: none')
[ "$shown" = "$NREJ" ] && grep -q "id=\"shown\">$NREJ<" "$T/fdom2.html" && [ "$NREJ" -lt "$NF" ]
ok $? "dashboard-5.3 #kind=reject filters the findings to the $NREJ rejects ($shown shown)"
KEY=$("$F" db list --clusters --db="$DB" | sed -n '1s/^cluster \([^ ]*\)  signatures=\([0-9]*\).*/\1 \2/p')
chrome --dump-dom "file://$T/dash/index.html#backend=model&cluster=$(echo "${KEY% *}" | sed 's#/#%2F#g')" > "$T/fdom3.html"
[ "$(grep -o '<tr class="finding"[^>]*>' "$T/fdom3.html" | grep -vc 'display: none')" = "${KEY#* }" ]
ok $? "dashboard-5.4 backend and cluster filters together: the ${KEY#* } findings of ${KEY% *}"
[ "$(grep -o '<svg class="spark"' "$T/dom.html" | wc -l)" = "$NF" ] &&
  [ "$(grep -o 'class="sighting"' "$T/dom.html" | wc -l)" = "$(sqlite3 "$DB" 'select count(*) from sighting')" ]
ok $? "dashboard-5.5 each finding has a sparkline with a bar per campaign that saw it"

# a campaign that never ended (killed), and 150 campaigns on the axes
cp "$DB" "$T/k.db"
sqlite3 "$T/k.db" "insert into campaign(engine, seed, started, kernels, uid) values ('model', 1, '2026-01-01T00:00:00Z', 4321, 'killed-1')"
"$F" dashboard --db="$T/k.db" -o "$T/kdash" > /dev/null &&
  grep -q '<tr class="killed"><td>[0-9]*</td><td>model</td><td>1</td><td>none</td><td>4321</td><td>0.0</td><td>-</td>.*never ended' "$T/kdash/index.html"
ok $? "dashboard-6.1 a campaign that never ended is marked, with the kernels it checkpointed"
"$F" db init --db="$T/many.db" > /dev/null
i=0
while [ $i -lt 150 ]; do
  echo "insert into campaign(engine, seed, started, ended, kernels, seconds, uid) values ('model', $i, 's', 'e', $((100 + i)), 1.0, 'u$i');"
  i=$((i + 1))
done | sqlite3 "$T/many.db"
"$F" dashboard --db="$T/many.db" -o "$T/mdash" > /dev/null
xs=$(sed -n '/<svg id="chart-new"/,/<\/svg>/p' "$T/mdash/index.html" | grep -o 'class="xtick" x="[0-9.]*"' | sed 's/.*x="//; s/"//')
nx=$(echo "$xs" | grep -c .)
[ "$nx" -ge 2 ] && [ "$nx" -le 13 ] && echo "$xs" | awk 'NR > 1 && $1 - last < 30 { bad = 1 } { last = $1 } END { exit bad }'
ok $? "dashboard-6.2 150 campaigns: $nx labels on the axis, at least 30 pixels apart"
sed -n '/<svg id="chart-throughput"/,/<\/svg>/p' "$T/mdash/index.html" | grep -q '>150</text>' &&
  sed -n '/<svg id="chart-throughput"/,/<\/svg>/p' "$T/mdash/index.html" | grep -q '>1</text>'
ok $? "dashboard-6.3 the first and the last campaign are labelled"
"$F" db init --db="$T/one.db" > /dev/null
sqlite3 "$T/one.db" "insert into campaign(engine, seed, started, ended, kernels, seconds, uid) values ('model', 1, 's', 'e', 10, 1.0, 'o1')"
"$F" dashboard --db="$T/one.db" -o "$T/odash" > /dev/null
[ "$(sed -n '/<svg id="chart-new"/,/<\/svg>/p' "$T/odash/index.html" | grep -o 'class="xtick"' | wc -l)" = 1 ] &&
  [ "$(sed -n '/<svg id="chart-status"/,/<\/svg>/p' "$T/odash/index.html" | grep -o '<text x="[0-9]*" y="[0-9]*" font-size="10" text-anchor="end">[^<]*' | sed 's/.*>//' | sort | uniq -d | wc -l)" = 0 ]
ok $? "dashboard-6.4 one campaign: one label; a y axis over small counts has distinct ticks"
plan
