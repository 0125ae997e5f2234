#!/bin/sh
# cli.t — the command lines of every tool (DESIGN section 12): --help (usage
# on stdout, exit 0) and --version (version and git commit) on ptoc, ptosim,
# ptofuzz, pto-check and every ptofuzz subcommand; a usage error exits 1 and
# names the bad argument; --bugs=all is accepted wherever --bugs is.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
K=corpus/seeds/fa_trim_5of16.ptk
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null)

i=0
for tool in ptoc ptosim ptofuzz pto-check; do
  i=$((i + 1))
  out=$("$B/bin/$tool" --help 2>/dev/null); rc=$?
  [ $rc = 0 ] && printf '%s\n' "$out" | grep -q "^usage: $tool"
  ok $? "cli-1.$i $tool --help: usage on stdout, exit 0"
  v=$("$B/bin/$tool" --version 2>/dev/null); rc=$?
  # the commit baked in at build time: one of this repository's (or "unknown"
  # outside a git checkout)
  c=$(printf '%s\n' "$v" | sed -n "s/^$tool [0-9]*\.[0-9]*\.[0-9]* (commit \([0-9a-f]*\)\(-dirty\)\{0,1\})\$/\1/p")
  [ $rc = 0 ] && { [ -z "$COMMIT" ] && printf '%s\n' "$v" | grep -q '(commit unknown)$' ||
                   { [ ${#c} = 12 ] && git cat-file -e "$c^{commit}" 2>/dev/null; }; }
  ok $? "cli-2.$i $tool --version: '$v'"
done

i=0
for sub in diff run gen "bench throughput" "bench defects" db "db list" "db merge" reduce; do
  i=$((i + 1))
  out=$("$F" $sub --help 2>/dev/null); rc=$?
  first=${sub%% *}
  other=diff; [ "$first" = diff ] && other=gen
  [ $rc = 0 ] && printf '%s\n' "$out" | grep -q "^usage: ptofuzz $first" && ! printf '%s\n' "$out" | grep -q "ptofuzz $other"
  ok $? "cli-3.$i ptofuzz $sub --help: its own usage, exit 0"
  "$F" $sub --version 2>/dev/null | grep -q '^ptofuzz [0-9.]* (commit '
  ok $? "cli-4.$i ptofuzz $sub --version"
done

# usage errors name the argument
chk() {                                         # chk ID DESC NEEDLE CMD...
  id=$1 desc=$2 needle=$3; shift 3
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc = 1 ] && grep -qF -- "$needle" "$T/err" && grep -q '^usage: ' "$T/err" && [ ! -s "$T/out" ]
  ok $? "$id $desc (exit $rc)"
}
chk cli-5.1 "ptofuzz run names an unknown option" "'--frob'" "$F" run --frob --db="$T/x.db"
chk cli-5.2 "ptofuzz run names a malformed --seed" "'--seed=12x'" "$F" run --seed=12x --db="$T/x.db"
chk cli-5.3 "ptofuzz gen names an unknown option" "'--nope'" "$F" gen --nope
chk cli-5.4 "ptofuzz diff names a second FILE" "'$K'" "$F" diff "$K" "$K"
chk cli-5.5 "ptofuzz bench names an unknown benchmark" "'speed'" "$F" bench speed
chk cli-5.6 "ptofuzz db names an unknown subcommand" "'drop'" "$F" db drop
chk cli-5.7 "ptofuzz db show names a surplus argument" "'2'" "$F" db show 1 2
chk cli-5.8 "ptofuzz reduce names an unknown option" "'--fast'" "$F" reduce "$K" --fast
chk cli-5.9 "ptoc names an unknown option" "'--opt=3'" "$B/bin/ptoc" "$K" --opt=3
chk cli-5.10 "ptosim names an unknown option" "'--fast'" "$B/bin/ptosim" "$K" --reference --fast
chk cli-5.11 "pto-check names an unknown option" "'--frob'" "$B/bin/pto-check" --frob
chk cli-5.14 "ptofuzz run names an unknown back end" "'--backend=gpu'" "$F" run --backend=gpu --db="$T/x.db"
chk cli-5.15 "ptofuzz bench throughput names --backend=both" "'--backend=both'" "$F" bench throughput --backend=both
"$F" frobnicate > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q "unknown command 'frobnicate'" "$T/err"
ok $? "cli-5.12 ptofuzz names an unknown command"
[ ! -e "$T/x.db" ]
ok $? "cli-5.13 a run with a usage error creates no database"

# --bugs=all wherever --bugs is: accepted (a defect may well change the
# verdict or fail the kernel, so exit 0, 1 or 3), never "unknown defect"
acc() {                                         # acc ID DESC CMD...
  id=$1 desc=$2; shift 2
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  { [ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 3 ]; } && ! grep -q 'unknown defect' "$T/err" && ! grep -q '^usage:' "$T/err"
  ok $? "$id $desc (exit $rc)"
}
acc cli-6.1 "ptoc --bugs=all" "$B/bin/ptoc" "$K" --split=up_down --bugs=all
acc cli-6.2 "ptosim --bugs=all" "$B/bin/ptosim" "$K" --split=up_down --bugs=all
acc cli-6.3 "ptofuzz diff --bugs=all" "$F" diff "$K" --bugs=all
grep -q '^verdict=finding' "$T/out"
ok $? "cli-6.4 ptofuzz diff --bugs=all switches defects on: a finding"
"$F" run --count=3 --seed=1 --bugs=all --db="$T/all.db" --quiet > /dev/null 2>&1 &&
  [ "$(sqlite3 "$T/all.db" 'select length(defects) > 20 from campaign')" = 1 ]
ok $? "cli-6.5 ptofuzz run --bugs=all records every defect in the campaign row"
acc cli-6.6 "ptofuzz bench throughput --bugs=all" "$F" bench throughput --count=2 --bugs=all
acc cli-6.7 "ptofuzz reduce --bugs=all" "$F" reduce "$K" --bugs=all --max-calls=2
acc cli-6.8 "pto-check --bugs=all" "$B/bin/pto-check" corpus/regress/lr-odd-unpadded.ptk --bugs=all
PTOFUZZ_BUGS=all "$F" diff "$K" > "$T/out" 2>&1
grep -q '^verdict=finding' "$T/out"
ok $? "cli-6.9 PTOFUZZ_BUGS=all"
plan
