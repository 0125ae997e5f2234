#!/bin/sh
# dashboard.t — `ptofuzz dashboard -o DIR` over a database of two campaigns,
# loaded in headless Chromium: the rendered DOM lists every finding (linking
# to its report, which exists) and the five charts; a screenshot is the
# right size and not blank, and shows the charts' colours. Chromium is
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
"$F" run --bugs=store-axis-swap --count=300 --jobs=1 --seed=3 --db="$DB" --quiet >/dev/null 2>&1 &&
  "$F" run --count=60 --jobs=1 --seed=5 --db="$DB" --quiet >/dev/null 2>&1
ok $? "dashboard-1.1 two campaigns into one database"
NF=$("$F" db list --db="$DB" | tail -n +2 | wc -l)
"$F" dashboard --db="$DB" -o "$T/dash" >/dev/null && [ -s "$T/dash/index.html" ]
ok $? "dashboard-1.2 dashboard -o DIR writes index.html ($NF findings)"
miss=0
for id in $("$F" db list --db="$DB" | awk 'NR > 1 { print $1 }'); do [ -s "$T/dash/finding-$id.html" ] || miss=$((miss + 1)); done
[ "$NF" -gt 0 ] && [ "$miss" = 0 ]
ok $? "dashboard-1.3 every finding's HTML report is written beside it ($miss missing)"
! grep -Eq '<script|https?://[^"]*\.(js|css)' "$T/dash/index.html"
ok $? "dashboard-1.4 the page loads no script and nothing from the net"

chrome --dump-dom "file://$T/dash/index.html" > "$T/dom.html"
[ "$(grep -o '<tr class="finding">' "$T/dom.html" | wc -l)" = "$NF" ]
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
plan
