#!/bin/sh
# real-pto.t — PTO-AS reproducers for the real toolchain (corpus/real/pto/*.pto):
# each file's `// expect-vVERSION: TEXT` lines name what that ptoas version
# says of it (`ok`: it writes C++; otherwise a substring of its error). Runs
# every version found in ../shared/third_party/bin; skips without them.
. "$(dirname "$0")/lib.sh"
BIN=${PTOAS_BIN_DIR:-../shared/third_party/bin}
if ! "$BIN/ptoas-v0.42" --version >/dev/null 2>&1; then
  echo "1..0 # SKIP no runnable ptoas in $BIN (docs/real-backend.md)"
  exit 0
fi
for f in corpus/real/pto/*.pto; do
  name=$(basename "$f" .pto)
  for v in $(grep -o '^// expect-v[0-9.]*:' "$f" | sed 's|// expect-v||; s|:||'); do
    want=$(grep "^// expect-v$v: " "$f" | head -n 1 | sed "s|^// expect-v$v: ||")
    [ -x "$BIN/ptoas-v$v" ] || { echo "ok $((n = n + 1)) - real-pto-$name-v$v # SKIP no ptoas-v$v"; continue; }
    "$BIN/ptoas-v$v" --pto-arch=a3 "$f" -o "$T/out.cpp" > "$T/log" 2>&1
    rc=$?
    if [ "$want" = ok ]; then [ $rc = 0 ]; else [ $rc != 0 ] && grep -qF -- "$want" "$T/log"; fi
    ok $? "real-pto-$name-v$v ptoas v$v: $want"
  done
done
plan
