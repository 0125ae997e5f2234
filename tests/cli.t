#!/bin/sh
# cli.t — the command lines of every tool (DESIGN section 12): --help (usage
# on stdout, exit 0) and --version (version and git commit) on ptoc, ptosim,
# ptofuzz, pto-check and every ptofuzz subcommand; a usage error exits 1 and
# names the bad argument; --bugs=all is accepted wherever --bugs is. The
# shared conventions (compiler/cli.c): -h and -V; `--opt value` as
# `--opt=value`; --help per tool and subcommand with each option's
# description and default and the exit codes; out-of-range numbers and
# missing output directories are coded user errors (E-USAGE, exit 1); and
# `run`'s NEW lines, --artifacts, --error-exitcode and progress line.
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
# -h and -V: the same as --help and --version, on every tool and subcommand
i=0
for cmd in ptoc ptosim ptofuzz pto-check "ptofuzz run" "ptofuzz db list" "ptofuzz bench defects" "ptofuzz report"; do
  i=$((i + 1))
  set -- $cmd
  tool=$1; shift
  h1=$("$B/bin/$tool" "$@" -h 2>&1); r1=$?
  h2=$("$B/bin/$tool" "$@" --help 2>&1)
  v1=$("$B/bin/$tool" "$@" -V 2>&1); r2=$?
  v2=$("$B/bin/$tool" "$@" --version 2>&1)
  [ $r1 = 0 ] && [ $r2 = 0 ] && [ "$h1" = "$h2" ] && [ "$v1" = "$v2" ] && printf '%s\n' "$v1" | grep -q "^$tool [0-9.]* (commit "
  ok $? "cli-7.$i $cmd: -h is --help, -V is --version"
done

# --help: each option on a line of its own with a description, defaults, the
# exit codes; a subcommand's help is its own (not its parent's)
i=0
for cmd in ptoc ptosim pto-check "ptofuzz diff" "ptofuzz run" "ptofuzz gen" "ptofuzz reduce" "ptofuzz report" \
           "ptofuzz dashboard" "ptofuzz import" "ptofuzz bisect" "ptofuzz bench throughput" "ptofuzz bench defects" \
           "ptofuzz bench scale" "ptofuzz db list" "ptofuzz db export" "ptofuzz db merge" "ptofuzz db recheck"; do
  i=$((i + 1))
  set -- $cmd
  tool=$1; shift
  "$B/bin/$tool" "$@" --help > "$T/help" 2>&1; rc=$?
  nopt=$(grep -c '^  -[-a-z]' "$T/help")
  nbare=$(grep '^  --[a-z]' "$T/help" | grep -vc '^  [^ ]*  *[a-zA-Z(]')   # an option line without a description
  [ $rc = 0 ] && head -1 "$T/help" | grep -q "^usage: $cmd\b" && [ "$nopt" -ge 2 ] && [ "$nbare" = 0 ] &&
    grep -q '(default: ' "$T/help" && grep -q '^exit status:' "$T/help" && grep -q '^  0 ' "$T/help" &&
    grep -q '^  1 .*E-USAGE' "$T/help"
  ok $? "cli-8.$i $cmd --help: $nopt options with descriptions and defaults, and the exit codes"
done
"$F" run --help | grep -q '^  --time=S .*(default: 60' && "$F" run --help | grep -q '^  --count=N .*N >= 1' &&
  "$F" run --help | grep -q '^  --error-exitcode=N .*(default: 0' && "$F" run --help | grep -q '^  N  *--error-exitcode'
ok $? "cli-8.19 run --help: --time's default (60 s), --count at least 1, --error-exitcode's default and exit code"

# `--opt value` is `--opt=value`: the same output either way
same() {                                        # same ID DESC CMD... -- CMD...
  id=$1 desc=$2; shift 2
  a=; while [ "$1" != -- ]; do a="$a $1"; shift; done; shift
  # shellcheck disable=SC2086
  $a > "$T/s1" 2>&1; r1=$?
  "$@" > "$T/s2" 2>&1; r2=$?
  [ $r1 = $r2 ] && [ $r1 != 1 ] && [ -s "$T/s1" ] && cmp -s "$T/s1" "$T/s2"
  ok $? "$id $desc (exit $r1)"
}
same cli-9.1 "ptoc --split up_down --print-after flatten" "$B/bin/ptoc" "$K" --split=up_down --print-after=flatten -- \
  "$B/bin/ptoc" "$K" --split up_down --print-after flatten
same cli-9.2 "ptosim --seed 7 --schedule random:3" "$B/bin/ptosim" "$K" --split=up_down --seed=7 --schedule=random:3 -- \
  "$B/bin/ptosim" "$K" --split up_down --seed 7 --schedule random:3
same cli-9.3 "ptofuzz gen --seed 3 --count 2" "$F" gen --seed=3 --count=2 -- "$F" gen --seed 3 --count 2
same cli-9.4 "ptofuzz diff --seed 5 --bugs all" "$F" diff "$K" --seed=5 --bugs=all -- "$F" diff "$K" --seed 5 --bugs all
same cli-9.5 "pto-check --backend model" "$B/bin/pto-check" --backend=model corpus/regress/lr-odd-unpadded.ptk -- \
  "$B/bin/pto-check" --backend model corpus/regress/lr-odd-unpadded.ptk
"$F" run --count 3 --seed 1 --bugs all --db "$T/sp.db" --quiet > "$T/sp" 2>&1 &&
  grep -q '^summary: kernels=3 .* seed=1 db=.*sp.db$' "$T/sp" && "$F" db list --db "$T/sp.db" | grep -q '^1 '
ok $? "cli-9.6 ptofuzz run --count 3 --seed 1 --bugs all --db F: the campaign as asked"
same cli-9.7 "ptofuzz db export ID --db F" "$F" db export 1 --db="$T/sp.db" -- "$F" db export 1 --db "$T/sp.db"

# out-of-range numbers and other bad values: coded user errors, exit 1, nothing on stdout
bad() {                                         # bad ID DESC NEEDLE CMD...
  id=$1 desc=$2 needle=$3; shift 3
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc = 1 ] && grep -q 'error\[E-USAGE\]' "$T/err" && grep -qF -- "$needle" "$T/err" && [ ! -s "$T/out" ]
  ok $? "$id $desc (exit $rc)"
}
bad cli-10.1 "gen --count=99999999999999999999" "'--count=99999999999999999999'" "$F" gen --count=99999999999999999999
bad cli-10.2 "gen --count=0" "'--count=0'" "$F" gen --count=0
bad cli-10.3 "run --count=0 (a run is never unbounded)" "'--count=0'" "$F" run --count=0 --db="$T/x.db"
bad cli-10.4 "run --time=0" "'--time=0'" "$F" run --time=0 --db="$T/x.db"
bad cli-10.5 "run --jobs=99999999999" "'--jobs=99999999999'" "$F" run --jobs=99999999999 --db="$T/x.db"
bad cli-10.6 "run --time=1e400" "'--time=1e400'" "$F" run --time=1e400 --db="$T/x.db"
bad cli-10.7 "run --seed=18446744073709551616" "'--seed=18446744073709551616'" "$F" run --seed=18446744073709551616 --db="$T/x.db"
bad cli-10.8 "run --error-exitcode=256" "'--error-exitcode=256'" "$F" run --error-exitcode=256 --db="$T/x.db"
bad cli-10.9 "bench defects --trials=0" "'--trials=0'" "$F" bench defects --trials=0
bad cli-10.10 "ptosim --seed=99999999999999999999" "'--seed=99999999999999999999'" "$B/bin/ptosim" "$K" --reference --seed=99999999999999999999
bad cli-10.11 "pto-check --jobs=0" "'--jobs=0'" "$B/bin/pto-check" --backend=ptoas --jobs=0
bad cli-10.12 "ptoc --frob" "'--frob'" "$B/bin/ptoc" "$K" --frob
bad cli-10.13 "run --artifacts=DIR that does not exist" "$T/no/such" "$F" run --count=1 --artifacts="$T/no/such" --db="$T/x.db"
bad cli-10.14 "report -o in a directory that does not exist" "$T/no/r.md" "$F" report 1 --db="$T/sp.db" --reduce=0 -o "$T/no/r.md"
bad cli-10.15 "dashboard -o under a directory that does not exist" "$T/no/dash" "$F" dashboard --db="$T/sp.db" -o "$T/no/dash"
bad cli-10.16 "gen --out under a directory that does not exist" "$T/no/g" "$F" gen --count=1 --out="$T/no/g"
[ ! -e "$T/x.db" ] && [ ! -e "$T/no" ]
ok $? "cli-10.17 the refused runs created no database and no directory"

# run: NEW lines, --artifacts, --error-exitcode
mkdir "$T/art"
"$F" run --count=3 --seed=1 --bugs=all --db="$T/n.db" --artifacts="$T/art" --error-exitcode=7 > "$T/n.out" 2> "$T/n.err"
rc=$?
[ $rc = 7 ]
ok $? "cli-11.1 run --error-exitcode=7 with findings new to the database: exit 7 ($rc)"
sqlite3 "$T/n.db" "select 'NEW finding ' || id || ' ' || signature from finding order by id" > "$T/n.want"
grep '^NEW finding ' "$T/n.err" > "$T/n.got"
[ -s "$T/n.want" ] && cmp -s "$T/n.want" "$T/n.got"
ok $? "cli-11.2 run: one 'NEW finding ID SIGNATURE' line on stderr per new finding ($(wc -l < "$T/n.got"))"
good=0 all=0
for id in $(sqlite3 "$T/n.db" 'select id from finding'); do
  all=$((all + 1))
  "$F" db export "$id" --db="$T/n.db" | cmp -s - "$T/art/finding-$id.ptk" && good=$((good + 1))
done
[ $all -ge 1 ] && [ $good = $all ] && [ "$(ls "$T/art" | wc -l)" = $all ] && grep -q '^# flags: ' "$T/art/finding-1.ptk"
ok $? "cli-11.3 run --artifacts: each new finding's reproducer, as db export writes it ($good of $all)"
"$F" run --count=3 --seed=1 --bugs=all --db="$T/n.db" --error-exitcode=7 > /dev/null 2> "$T/n2.err"
rc=$?
[ $rc = 0 ] && ! grep -q '^NEW ' "$T/n2.err"
ok $? "cli-11.4 the same campaign again: nothing new, no NEW line, exit 0 ($rc)"
"$F" run --count=3 --seed=1 --bugs=all --db="$T/n3.db" > /dev/null 2>&1
rc=$?
[ $rc = 0 ]
ok $? "cli-11.5 without --error-exitcode new findings exit 0 ($rc)"

# the progress line: elapsed, kernels/s, ETA; at most 79 columns; printed once at the end
if command -v script > /dev/null 2>&1; then
  script -qfec "$F run --time=2.5 --seed=3 --db=$T/p.db" /dev/null > "$T/tty" 2>&1
  tr '\r' '\n' < "$T/tty" | sed 's/\x1b\[K//g' | grep ' kernels ' > "$T/lines"
  long=$(awk 'length > 79' "$T/lines" | wc -l)
  [ "$long" = 0 ] && [ "$(wc -l < "$T/lines")" -ge 2 ] && grep -q '^[0-9][0-9hms]* [0-9]* kernels [0-9.]*/s eta [0-9hms]* ' "$T/lines"
  ok $? "cli-12.1 on a terminal: elapsed, kernels, kernels/s and ETA, within 79 columns ($long longer)"
  [ "$(grep -c ' kernels ' "$T/tty")" = 1 ] && [ "$(tail -1 "$T/lines" | grep -o ' kernels ' | wc -l)" = 1 ]
  ok $? "cli-12.2 on a terminal: redrawn in place, one line at the end"
else
  ok 0 "cli-12.1 # SKIP no script(1) to give the run a terminal"
  ok 0 "cli-12.2 # SKIP no script(1) to give the run a terminal"
fi
"$F" run --time=1 --seed=3 --db="$T/p.db" > /dev/null 2> "$T/log"
[ "$(grep -c ' kernels .*/s' "$T/log")" = 1 ] && [ "$(awk 'length > 79' "$T/log" | wc -l)" = 0 ]
ok $? "cli-12.3 into a log: one progress line at the end, within 79 columns"
plan
