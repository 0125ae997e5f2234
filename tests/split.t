#!/bin/sh
# split.t — the real split contracts (DESIGN 14), one accept or reject case
# per file in tests/split/NAME.ptk. Header lines:
#   # expect: ok | CODE          ptoc accepts it, or gives error[CODE] (exit 1)
#   # split: MODE                compile with --split=MODE
#   # message: TEXT              the diagnostic contains TEXT
#   # print: PASS                with `# has:` lines, the output of --print-after=PASS ...
#   # has: REGEX                 ... matches each REGEX (grep -E)
#   # pto: REGEX                 `ptoc --emit=pto` output matches REGEX (grep -E)
#   # diff: clean                `ptofuzz diff` gives verdict=clean
#   # diff-ok: MODE...           ... and each MODE variant ran and matched the reference (outcome=ok)
#   # run: CODE                  the reference run and the machine's (ptosim --reference,
#                                ptosim) fail with error[CODE], exit 1
#   # run-message: TEXT          ... the reference run's diagnostic contains TEXT
# Ids: split-NAME-N.
cd "$(dirname "$0")/.." || exit 1
B=${PTO_BUILD:-build}/bin
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
ok() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
# chk STATUS DESCRIPTION: the next check of this file, as NAME-I
chk() {
  i=$((i + 1))
  ok "$1" "$name-$i $2"
}
hdr() { sed -n "s/^# $1: //p" "$2"; }

for f in tests/split/*.ptk; do
  name=split-$(basename "$f" .ptk)
  i=0
  expect=$(hdr expect "$f")
  mode=$(hdr split "$f")
  flag=${mode:+--split=$mode}
  # shellcheck disable=SC2086
  "$B/ptoc" $flag "$f" > "$T/out" 2> "$T/err"
  st=$?
  if [ "$expect" = ok ]; then
    [ "$st" = 0 ]
    chk $? "ptoc accepts it (exit $st)"
  else
    [ "$st" = 1 ] && head -n 1 "$T/err" | grep -q "error\[$expect\]"
    chk $? "ptoc rejects it with $expect (exit $st)"
  fi
  msg=$(hdr message "$f")
  if [ -n "$msg" ]; then
    grep -qF -- "$msg" "$T/err"
    chk $? "the diagnostic says: $msg"
  fi
  pass=$(hdr print "$f")
  if [ -n "$pass" ]; then
    # shellcheck disable=SC2086
    "$B/ptoc" $flag --print-after="$pass" "$f" > "$T/p" 2>&1
    hdr has "$f" > "$T/has"
    while IFS= read -r re; do
      grep -Eq -- "$re" "$T/p"
      chk $? "after $pass: $re"
    done < "$T/has"
  fi
  hdr pto "$f" > "$T/pto"
  if [ -s "$T/pto" ]; then
    # shellcheck disable=SC2086
    "$B/ptoc" $flag --emit=pto "$f" > "$T/e" 2>&1
    while IFS= read -r re; do
      grep -Eq -- "$re" "$T/e"
      chk $? "PTO-AS: $re"
    done < "$T/pto"
  fi
  run=$(hdr run "$f")
  if [ -n "$run" ]; then
    "$B/ptosim" --reference "$f" > "$T/r" 2>&1
    [ $? = 1 ] && grep -q "error\[$run\]" "$T/r"
    chk $? "the reference run fails with $run"
    rmsg=$(hdr run-message "$f")
    if [ -n "$rmsg" ]; then
      grep -qF -- "$rmsg" "$T/r"
      chk $? "the reference run says: $rmsg"
    fi
    "$B/ptosim" "$f" --split="${mode:-none}" > "$T/r" 2>&1
    [ $? = 1 ] && grep -q "error\[$run\]" "$T/r"
    chk $? "the machine's run fails with $run"
  fi
  if [ "$(hdr diff "$f")" = clean ]; then
    "$B/ptofuzz" diff "$f" > "$T/d" 2>&1
    tail -n 1 "$T/d" | grep -qx 'verdict=clean' && ! grep '^variant=' "$T/d" | grep -qv 'outcome=ok\|outcome=unsupported'
    chk $? "ptofuzz diff: verdict=clean, every variant ok or unsupported"
    for m in $(hdr diff-ok "$f"); do
      ! grep "^variant=$m " "$T/d" | grep -qv 'outcome=ok' && grep -q "^variant=$m .*outcome=ok" "$T/d"
      chk $? "ptofuzz diff: the $m variant is bit-exact with the reference"
    done
  fi
done
[ "$n" -ge 40 ]
ok $? "split-count at least 40 checks ran"
echo "1..$n"
