#!/bin/sh
# bench-engine.t — `ptofuzz bench defects --engine=libfuzzer|afl`: the harness
# around the engine binaries, with a stand-in engine (a shell script that acts
# as libFuzzer does: it writes a crash file under -artifact_prefix and exits
# non-zero, here only for one defect, with a seed input that gives a finding
# under it): one line per defect in defects.def order, the stand-in's crash
# file signed as `ptofuzz import` signs it; a binary that is not built is a
# message and exit 0; a bad engine name exits 1. Real engine runs are not
# part of the suite (docs/fuzzing.md, "Time to first finding through the engines").
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
sed -n 's/^BUG([^,]*, *"\([^"]*\)".*/\1/p' compiler/defects.def > "$T/names"
nd=$(wc -l < "$T/names")

# An input that gives a finding under zero-valid-reject (it is checked below).
cat > "$T/fake" <<EOF
#!/bin/sh
# stand-in for libFuzzer: crash at once under zero-valid-reject, else nothing
[ "\$PTOFUZZ_BUGS" = zero-valid-reject ] || exit 0
for a in "\$@"; do case "\$a" in -artifact_prefix=*) p=\${a#-artifact_prefix=} ;; esac; done
cp "$PWD/corpus/bytes/seed-06-left-right-transpose" "\${p}crash-0001"
echo "==1== ERROR: libFuzzer: deadly signal" >&2
exit 1
EOF
chmod +x "$T/fake"
"$F" import corpus/bytes/seed-06-left-right-transpose --bugs=zero-valid-reject --db="$T/i.db" > "$T/imp" 2>&1
want=$(sed -n 's/^import: [^ ]* signatures=//p' "$T/imp" | tr ',' '\n' | wc -l)
[ "$want" -ge 1 ]
ok $? "bench-engine-1.0 the stand-in's input gives a finding under zero-valid-reject"

"$F" bench defects --engine=libfuzzer --engine-bin="$T/fake" --time=5 --trials=2 > "$T/out" 2> "$T/err"
ok $? "bench-engine-1.1 bench defects --engine=libfuzzer with a stand-in engine exits 0"
[ "$(grep -c '^engine=libfuzzer defect=' "$T/out")" = "$nd" ] &&
  grep '^engine=' "$T/out" | sed 's/^engine=libfuzzer defect=\([^ ]*\) .*/\1/' | cmp -s - "$T/names"
ok $? "bench-engine-1.2 one line per defect, in defects.def order"
! grep '^engine=' "$T/out" | grep -qv '^engine=libfuzzer defect=[a-z0-9-]* found=[0-2]/2 median_s=[0-9]*\.[0-9]* max_s=[0-9]*\.[0-9]* signatures=[0-9]*$'
ok $? "bench-engine-1.3 each is engine=E defect=NAME found=K/N median_s=F max_s=F signatures=K"
grep -q "^engine=libfuzzer defect=zero-valid-reject found=2/2 .* signatures=$want\$" "$T/out" &&
  [ "$(grep -c 'found=0/2 median_s=5.000 max_s=5.000 signatures=0$' "$T/out")" = "$((nd - 1))" ]
ok $? "bench-engine-1.4 the crashing defect is found in both runs with its imported signatures; the others count S"

"$F" bench defects --engine=libfuzzer --engine-bin="$T/none" > "$T/skip" 2>&1
[ $? = 0 ] && grep -q "is not built (make libfuzzer); skipped" "$T/skip"
ok $? "bench-engine-2.1 an engine binary that is not built: a message, exit 0"
"$F" bench defects --engine=honggfuzz > /dev/null 2> "$T/e"
[ $? = 1 ] && grep -q -- '--engine=honggfuzz' "$T/e"
ok $? "bench-engine-2.2 an unknown engine is a usage error naming it"
plan
