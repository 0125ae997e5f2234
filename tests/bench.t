#!/bin/sh
# bench.t — `ptofuzz bench defects`: one line per defect in defects.def order,
# the all-defects attribution lines and the closing `all:` line (times are
# not asserted); bad arguments exit 1.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
sed -n 's/^BUG([^,]*, *"\([^"]*\)".*/\1/p' compiler/defects.def > "$T/names"
nd=$(wc -l < "$T/names")

"$F" bench defects --time=1 --trials=1 --jobs=2 > "$T/out" 2> "$T/err"
ok $? "bench-1.1 bench defects --time=1 --trials=1 exits 0"
[ "$nd" = 19 ] && [ "$(grep -c '^defect=' "$T/out")" = 19 ]
ok $? "bench-1.2 19 defect= lines"
grep '^defect=' "$T/out" | sed 's/^defect=\([^ ]*\) .*/\1/' | cmp -s - "$T/names"
ok $? "bench-1.3 in defects.def order"
! grep '^defect=' "$T/out" | grep -qv '^defect=[a-z0-9-]* found=[01]/1 median_s=[0-9]*\.[0-9]* max_s=[0-9]*\.[0-9]* signatures=[0-9]* clusters=[0-9]*$'
ok $? "bench-1.4 each is defect=NAME found=K/N median_s=F max_s=F signatures=K clusters=K"
grep '^all defect=' "$T/out" | sed 's/^all defect=\([^ ]*\) signatures=[0-9]* clusters=[0-9]*$/\1/' | cmp -s - "$T/names"
ok $? "bench-1.5 one 'all defect=NAME signatures=K clusters=K' line per defect, in order"
[ "$(grep -c '^all:' "$T/out")" = 1 ] && tail -n 1 "$T/out" | grep -Eq '^all: signatures=[0-9]+ clusters=[0-9]+ unattributed=[0-9]+ shared=(none|[^ ]+:[a-z0-9-]+(\+[a-z0-9-]+)+(,.*)?)$'
ok $? "bench-1.6 the closing all: line"
[ "$(grep -c . "$T/out")" = 39 ]
ok $? "bench-1.7 nothing else on stdout"
! sed -n 's/.* signatures=\([0-9]*\) clusters=\([0-9]*\).*/\1 \2/p' "$T/out" | awk '$2 > $1 || ($1 > 0 && $2 < 1) { bad = 1 } END { exit !bad }'
ok $? "bench-1.9 per line 1 <= clusters <= signatures (0 with no signature)"
"$F" bench defects --time=0.2 --trials=2 --jobs=2 --seed=5 > "$T/out2" 2>/dev/null &&
  [ "$(grep -c '^defect=[^ ]* found=[0-2]/2 ' "$T/out2")" = 19 ]
ok $? "bench-1.8 --trials=2 runs two trials per defect"
"$F" bench defects --trials=0 > /dev/null 2>&1
[ $? = 1 ]
ok $? "bench-2.1 --trials=0 is a usage error"
"$F" bench defects --bugs=odd-floor-half > /dev/null 2>&1
[ $? = 1 ]
ok $? "bench-2.2 --bugs is refused (each trial picks its own defect)"
"$F" bench defects --time=1 --policy="$T/none" > /dev/null 2>&1
[ $? = 1 ]
ok $? "bench-2.3 an unreadable policy exits 1"
plan
