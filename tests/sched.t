#!/bin/sh
# sched.t — the machine is determinate: a generated kernel compiled for each
# variant gives the same outputs and the same verdict under round-robin and
# several random schedules. Campaigns rely on this to sample the random
# schedule (docs/decisions.md), so it is tested here over generated kernels.
. "$(dirname "$0")/lib.sh"
N=60
[ -n "$QUICK" ] && N=15   # the sanitizer build (lib.sh)
"$B/bin/ptofuzz" gen --seed=4242 --count=$N --out="$T" > /dev/null
ok $? "sched-0.1 $N kernels generated"
for f in "$T"/k*.ptk; do
  name=$(basename "$f" .ptk)
  bad=""
  for v in "--split=none --target=a2a3" "--split=none --target=a5" "--split=up_down" "--split=left_right"; do
    # shellcheck disable=SC2086
    "$B/bin/ptosim" "$f" $v > "$T/rr" 2>&1
    rc=$?
    for s in 1 2 3; do
      # shellcheck disable=SC2086
      "$B/bin/ptosim" "$f" $v --schedule=random:$s > "$T/rnd" 2>&1
      [ $? = $rc ] && cmp -s "$T/rr" "$T/rnd" || bad="$bad [$v random:$s]"
    done
  done
  [ -z "$bad" ]
  ok $? "sched-$name every schedule gives the round-robin outputs${bad:+ (not:$bad)}"
done
plan
