#!/bin/sh
# mutants.t — the mutants of tests/mutants/ and scripts/mutants.sh without
# running a campaign: every patch applies to HEAD (--check), --list names
# them all, each is one small hunk in the file its name's area names, headed
# by what bug it plants (# bug:) and which check should find it
# (# found-by:); a stale patch and bad usage exit 1. Skipped without git or
# outside a git repository.
. "$(dirname "$0")/lib.sh"
S=scripts/mutants.sh

if ! command -v git >/dev/null 2>&1; then
  echo "1..0 # SKIP git is not installed"
  exit 0
fi
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo "1..0 # SKIP not in a git repository with a HEAD"
  exit 0
fi

ls tests/mutants/*.patch 2>/dev/null | sed 's|.*/||; s|\.patch$||' > "$T/names"
K=$(wc -l < "$T/names")
[ "$K" -ge 20 ]
ok $? "mutants-1.1 tests/mutants holds the mutants ($K)"

sh $S --check > "$T/check" 2>&1
[ $? = 0 ] && grep -qx "check: $K/$K apply to HEAD" "$T/check"
ok $? "mutants-1.2 --check: every patch applies to HEAD ($(tail -n 1 "$T/check"))"

sh $S --list > "$T/list" 2>&1
[ $? = 0 ] && awk '{ print $1 }' "$T/list" | cmp -s - "$T/names" && ! awk 'NF < 2' "$T/list" | grep -q .
ok $? "mutants-1.3 --list names every patch with its bug"

# each patch: NAME is AREA-WHAT, one file AREA.c, one hunk, at most 3 changed lines, the header
while read -r name; do
  p=tests/mutants/$name.patch
  area=${name%%-*}
  files=$(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$p")
  hunks=$(grep -c '^@@' "$p")
  changed=$(grep -E '^[-+]' "$p" | grep -cvE '^(\+\+\+|---) ')
  bug=$(sed -n 's/^# bug: //p' "$p")
  found=$(sed -n 's/^# found-by: //p' "$p")
  case $files in */"$area".c) one=0 ;; *) one=1 ;; esac
  [ "$one" = 0 ] && [ "$hunks" = 1 ] && [ "$changed" -ge 1 ] && [ "$changed" -le 3 ] && [ -n "$bug" ] && [ -n "$found" ] &&
    [ "$(sed -n '1p' "$p" | cut -c1-7)" = "# bug: " ]
  ok $? "mutants-2.$name one hunk in $files, $changed changed lines, a # bug: and a # found-by: line"
done < "$T/names"

# a patch that no longer applies is named, exit 1
first=$(sed -n 1p "$T/names")
sed '/^- /s|$| // stale|' "tests/mutants/$first.patch" > "$T/$first-stale.patch"
sh $S --check "$T/$first-stale.patch" > "$T/stale" 2>&1
[ $? = 1 ] && grep -q "^stale $first-stale  (patch failed: " "$T/stale"
ok $? "mutants-3.1 --check names a stale patch and exits 1"

sh $S > "$T/u1" 2>&1
r1=$?
sh $S --time=5 --bogus > "$T/u2" 2>&1
r2=$?
sh $S --time=5 no-such-mutant > "$T/u3" 2>&1
r3=$?
sh $S --time=zero > "$T/u4" 2>&1
r4=$?
[ $r1 = 1 ] && [ $r2 = 1 ] && [ $r3 = 1 ] && [ $r4 = 1 ] && grep -q 'usage:' "$T/u1" && grep -q "no patch 'no-such-mutant'" "$T/u3"
ok $? "mutants-3.2 usage errors exit 1 with a message: no --time, an unknown option, an unknown patch, a bad number"
plan
