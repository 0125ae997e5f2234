#!/bin/sh
# fleet.t — the documented fleet manifests, docs/fleet/github-nightly.yml (a
# GitHub Actions nightly) and docs/fleet/k8s-indexed-job.yaml (a Kubernetes
# Indexed Job): tests/yamlcheck.pl parses each (and python3's yaml agrees when
# present), checks its structure and extracts its commands; they are then run
# here in miniature: every shard's `ptofuzz run` with --time replaced by
# --count=24 (an injected defect from PTOFUZZ_BUGS, so there are findings),
# the merge, the dashboard and the pto-check gate. The merged database must
# hold the findings of one campaign over the same 24 kernels. The merge
# command's glob is run one file at a time and its exit status is not
# asserted (merge's status is being fixed elsewhere); its rows are.
. "$(dirname "$0")/lib.sh"
ROOT=$PWD
BIN="$ROOT/$B/bin"
case "$B" in /*) BIN="$B/bin" ;; esac
export PTOFUZZ_DEFECT=pop-drops-lane1
fields="signature, kind, mode, code, op, pass, pattern, hits, status, first_bad_pass"
has_dashboard() { "$BIN/ptofuzz" dashboard --help > /dev/null 2>&1; }

# mini NAME FILE SEED: run the manifest's commands in $T/NAME, with $SEED as
# the campaign seed; prints nothing, answers with ok lines.
mini() {
  name=$1 file=$2 kind=$3
  W="$T/$name"
  mkdir -p "$W/results" "$W/shards"
  ln -s "$ROOT/corpus" "$W/corpus"
  perl tests/yamlcheck.pl "$kind" "$file" > "$W/cmds"
  ok $? "$name-1.1 $file parses and has the expected structure"
  shards=$(sed -n 's/^shards\t//p' "$W/cmds")
  seed=$(sed -n 's/^env\tSEED=//p' "$W/cmds")
  [ -n "$seed" ] || seed=7
  # a command line of the manifest, made local
  local_cmd() {
    printf '%s\n' "$1" | sed -e "s#build/bin/#$BIN/#g" -e "s#^ptofuzz #$BIN/ptofuzz #" -e "s#^pto-check#$BIN/pto-check#" \
      -e 's#--time=\$FUZZ_SECONDS#--count=24#' -e 's#\${{ github.run_id }}#'"$seed"'#g' \
      -e 's#\${{ matrix.shard }}#$SHARD#g' -e "s#/results/#$W/results/#g"
  }
  runs=0 fails=0
  for s in $(sed -n 's/^matrix\t//p' "$W/cmds"); do
    c=$(local_cmd "$(sed -n 's/^run\t//p' "$W/cmds")")
    (cd "$W" && SHARD=$s JOB_COMPLETION_INDEX=$s SHARDS=$shards SEED=$seed PTOFUZZ_BUGS=$PTOFUZZ_DEFECT sh -c "$c --quiet" > /dev/null 2>&1) ||
      fails=$((fails + 1))
    runs=$((runs + 1))
  done
  [ "$runs" = "$shards" ] && [ "$fails" = 0 ] && [ "$(ls "$W"/shard-*.db "$W"/results/shard-*.db 2>/dev/null | wc -l)" = "$shards" ]
  ok $? "$name-1.2 its $shards shard runs (--count=24) each write their database"
  mv "$W"/shard-*.db "$W/shards/" 2>/dev/null      # GitHub: upload, then download into shards/
  sed -n 's/^merge\t//p' "$W/cmds" > "$W/merge"
  [ "$(wc -l < "$W/merge")" = 1 ]
  ok $? "$name-1.3 one merge command"
  m=$(local_cmd "$(cat "$W/merge")")
  glob=$(printf '%s\n' "$m" | tr ' ' '\n' | grep '\*')
  rest=$(printf '%s\n' "$m" | tr ' ' '\n' | grep -v '\*' | tr '\n' ' ')
  (cd "$W" && for f in $glob; do sh -c "$rest $f" > /dev/null 2>&1; done)
  db=$(printf '%s\n' "$rest" | sed -n 's/.*--db=\([^ ]*\).*/\1/p')
  case "$db" in /*) ;; *) db="$W/$db" ;; esac
  PTOFUZZ_BUGS=$PTOFUZZ_DEFECT "$BIN/ptofuzz" run --count=24 --seed="$seed" --jobs=2 --quiet --db="$W/single.db" > /dev/null 2>&1
  sqlite3 "$W/single.db" "select $fields from finding order by signature;" > "$W/f1"
  sqlite3 "$db" "select $fields from finding order by signature;" > "$W/fm" 2>/dev/null
  [ -s "$W/f1" ] && cmp -s "$W/f1" "$W/fm"
  ok $? "$name-1.4 the merged shards hold one campaign's findings over the same kernels"
  if has_dashboard; then
    d=$(local_cmd "$(sed -n 's/^dashboard\t//p' "$W/cmds")")
    (cd "$W" && sh -c "$d" > /dev/null 2>&1) && out=$(printf '%s\n' "$d" | sed -n 's/.* -o \([^ ]*\).*/\1/p') &&
      (cd "$W" && [ -n "$(ls "$out")" ])
    ok $? "$name-1.5 the dashboard command writes its directory"
  else
    ok 0 "$name-1.5 # SKIP ptofuzz dashboard is not in this build"
  fi
  gfail=0
  while IFS= read -r g; do
    c=$(local_cmd "$g")
    (cd "$W" && env -u PTOFUZZ_BUGS sh -c "$c" > /dev/null 2>&1) || { echo "# gate failed: $g"; gfail=1; }
  done <<EOF
$(sed -n 's/^gate\t//p' "$W/cmds")
EOF
  [ "$gfail" = 0 ]
  ok $? "$name-1.6 the pto-check gate passes"
}

mini github docs/fleet/github-nightly.yml github
mini k8s docs/fleet/k8s-indexed-job.yaml k8s

# The checks can fail: a manifest without its Indexed mode, and one that does not parse.
grep -v 'completionMode' docs/fleet/k8s-indexed-job.yaml > "$T/bad1.yaml"
perl tests/yamlcheck.pl k8s "$T/bad1.yaml" | grep -q '^error: completionMode: Indexed'
ok $? "fleet-2.1 a Job without completionMode: Indexed is refused"
sed 's/^jobs:/jobs: {fuzz: 1}/' docs/fleet/github-nightly.yml > "$T/bad2.yml"
perl tests/yamlcheck.pl github "$T/bad2.yml" | grep -q '^error: '
ok $? "fleet-2.2 text outside the YAML subset is refused"
sed 's#--shard=${{ matrix.shard }}/$SHARDS ##' docs/fleet/github-nightly.yml > "$T/bad3.yml"
perl tests/yamlcheck.pl github "$T/bad3.yml" | grep -q '^error: the fuzz job runs'
ok $? "fleet-2.3 a nightly whose jobs do not shard is refused"
plan
