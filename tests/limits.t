#!/bin/sh
# limits.t — inputs at and past the front end's limits (docs/language.md
# section 2.1) get E-LIMIT and exit 1, never an abort, a hang or a sanitizer
# report: an endless input (/dev/zero, a pipe), too many parameters or
# statements, a long identifier (its echo is cut); four nested loops of 2^20
# trips compile and run to R-STEPS without an overflow; big kernels run on
# the machine as in the reference (over 2^16 variables, over 256 transfers in
# one body, each popped entry freed); `ptofuzz gen` that
# cannot write says so and exits 1 (no leak); `ptofuzz bench scale` prints its
# lines (the figures are not asserted); a policy file read from /dev/zero
# is refused after 1 MiB.
. "$(dirname "$0")/lib.sh"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86
UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86:halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS UBSAN_OPTIONS
P="$B/bin/ptoc"

# limit FILE ID DESCRIPTION [LOC]: ptoc exits 1 with E-LIMIT (at LOC when given)
limit() {
  timeout 120 "$P" "$1" > /dev/null 2> "$T/err"
  rc=$?
  [ $rc = 1 ] && head -n 1 "$T/err" | grep -q "^$1:${4:-[0-9]*:[0-9]*}: error\[E-LIMIT\]: .* \[user\]$"
  ok $? "$2 $3 (exit $rc: $(head -n 1 "$T/err" | cut -c1-120))"
}

limit /dev/zero limits-1.1 "/dev/zero: refused after 64 MiB, not read to the end" 0:0
head -c 70000000 /dev/zero | tr '\0' ' ' | { timeout 120 "$P" /dev/stdin > /dev/null 2> "$T/err"; echo $? > "$T/rc"; }
[ "$(cat "$T/rc")" = 1 ] && grep -q '^/dev/stdin:0:0: error\[E-LIMIT\]: the input is larger than 67108864 bytes' "$T/err"
ok $? "limits-1.2 a pipe of 70 MB of blanks: E-LIMIT"

awk 'BEGIN { printf "kernel k("; for (i = 0; i <= 131072; i++) printf "P%d: f32[16, 16] in, ", i;
             print "O: f32[16, 16] out) {"; print "  t = load(P0, [0, 0], [16, 16]);"; print "  store(O, [0, 0], t);"; print "}" }' > "$T/params.ptk"
limit "$T/params.ptk" limits-2.1 "131073 parameters (the limit is 2^17)"
awk 'BEGIN { printf "kernel k("; for (i = 0; i < 20000; i++) printf "P%d: f32[16, 16] in, ", i;
             print "O: f32[16, 16] out) {"; print "  t = load(P19999, [0, 0], [16, 16]);"; print "  store(O, [0, 0], t);"; print "}" }' > "$T/p20k.ptk"
timeout 120 "$P" "$T/p20k.ptk" > /dev/null 2> "$T/err"
ok $? "limits-2.2 20000 parameters compile"

awk 'BEGIN { print "kernel k(A: f32[16, 16] in, O: f32[16, 16] out) {"; print "  a = load(A, [0, 0], [16, 16]);";
             for (i = 0; i < 1048576; i++) print "  t = a;"; print "  store(O, [0, 0], t);"; print "}" }' > "$T/stmts.ptk"
limit "$T/stmts.ptk" limits-3.1 "1048578 statements (the limit is 2^20)" 1048578:3

awk 'BEGIN { printf "kernel k(A: f32[16, 16] in, O: f32[16, 16] out) {\n  "; for (i = 0; i < 1048576; i++) printf "x";
             print " = load(A, [0, 0], [16, 16]);"; print "}" }' > "$T/ident.ptk"
limit "$T/ident.ptk" limits-4.1 "a 1 MiB identifier" 2:3
[ "$(wc -c < "$T/err")" -lt 2400 ] && grep -q '^ *x*\.\.\.$' "$T/err" && grep -q '^ *\^$' "$T/err"
ok $? "limits-4.2 its source line is echoed cut to 1024 bytes, with the caret ($(wc -c < "$T/err") bytes)"

cat > "$T/nest.ptk" <<'K'
kernel nest(A: f32[16, 16] in, O: f32[16, 16] out) {
  for i in range(0, 1048576) {
    for j in range(0, 1048576) {
      for k in range(0, 1048576) {
        for l in range(0, 1048576) {
          t = load(A, [0, 0], [16, 16]);
          store(O, [0, 0], t);
        }
      }
    }
  }
}
K
for v in none up_down left_right; do
  timeout 120 "$P" "$T/nest.ptk" --split=$v > /dev/null 2> "$T/err"
  ok $? "limits-5.1.$v four nested loops of 2^20 trips compile (--split=$v), no overflow"
done
timeout 120 "$B/bin/ptosim" "$T/nest.ptk" --reference > /dev/null 2> "$T/err"
rc=$?
[ $rc = 1 ] && grep -q 'error\[R-STEPS\]' "$T/err"
ok $? "limits-5.2 their reference run stops at the step budget (R-STEPS, exit $rc)"

# digest FILE ARGS...: the machine's (or the reference's) output lines
digest() { f=$1; shift; timeout 300 "$B/bin/ptosim" "$f" "$@" 2> "$T/err"; }
awk 'BEGIN { printf "kernel k("; for (i = 0; i < 70000; i++) printf "P%d: f32[1, 1] in, ", i;
             print "A: f32[16, 16] in, W: f32[16, 16] in, O: f32[16, 16] out) {";
             print "  w = load(W, [0, 0], [16, 16], space=mat);"; print "  x = load(A, [0, 0], [16, 16], space=mat);";
             print "  h = matmul(x, w);"; print "  g = relu(h);"; print "  store(O, [0, 0], g);"; print "}" }' > "$T/vars.ptk"
ref=$(digest "$T/vars.ptk" --reference)
got=$(digest "$T/vars.ptk" --split=up_down)
[ -n "$ref" ] && [ "$ref" = "$got" ]
ok $? "limits-5.3 70000 tensors and a transfer: the addressed machine (more than 2^16 variables) runs it as the reference"
awk 'BEGIN { print "kernel k(A: f32[16, 16] in, W: f32[16, 16] in, O: f32[16, 16] out) {";
             print "  w = load(W, [0, 0], [16, 16], space=mat);";
             for (i = 0; i < 300; i++) { print "  x" i " = load(A, [0, 0], [16, 16], space=mat);"; print "  h" i " = matmul(x" i ", w);";
                                          print "  g" i " = relu(h" i ");"; print "  store(O, [0, 0], g" i ");" }
             print "}" }' > "$T/xfers.ptk"
ref=$(digest "$T/xfers.ptk" --reference)
for v in none up_down; do
  got=$(digest "$T/xfers.ptk" --split=$v)
  [ -n "$ref" ] && [ "$ref" = "$got" ]
  ok $? "limits-5.4.$v 300 cube-to-vector transfers in one body: every pop gets its tfree, the machine matches the reference ($(head -c 100 "$T/err"))"
done

"$B/bin/ptofuzz" gen --count=2 --out=/dev/full > /dev/null 2> "$T/err"
rc=$?
[ $rc = 1 ] && grep -q 'cannot write /dev/full/k000000.ptk' "$T/err"
ok $? "limits-6.1 gen --out into something that is not a directory: exit $rc with a message, no leak"
if [ -w /dev/full ]; then
  "$B/bin/ptofuzz" gen --count=50 > /dev/full 2> "$T/err"
  rc=$?
  [ $rc = 1 ] && grep -q 'cannot write stdout' "$T/err"
  ok $? "limits-6.2 gen onto a full device: exit $rc with a message"
else
  echo "ok $((n = n + 1)) - limits-6.2 # SKIP /dev/full is not writable"
fi

"$B/bin/ptofuzz" bench scale --sizes=10,30 --kinds=loads,transfers,params > "$T/scale" 2> "$T/err"
rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$T/scale")" = 18 ] &&
  ! grep -vE '^scale kind=(loads|transfers|params) n=(10|30) stmts=[0-9]+ phase=(compile|emit|reference) seconds=[0-9]+\.[0-9]{3} cpu_s=[0-9]+\.[0-9]{3} maxrss_kb=[0-9]+ text_kb=[0-9]+ result=ok$' "$T/scale"
ok $? "limits-7.1 bench scale: one line per kind, size and phase, every result ok (exit $rc)"
"$B/bin/ptofuzz" bench scale --kinds=nope > /dev/null 2>&1
[ $? = 1 ]
ok $? "limits-7.2 bench scale with an unknown kind is a usage error"
"$B/bin/ptofuzz" run --count=1 --policy=/dev/zero --db="$T/pz.db" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 1 ] && grep -q '^ptofuzz: /dev/zero: error\[E-POLICY\]: larger than 1048576 bytes: not a policy file' "$T/err"
ok $? "limits-8.1 a policy read from /dev/zero is refused after 1 MiB (exit $rc: $(head -c 100 "$T/err"))"
(case "$B" in *sanitize*) ;; *) ulimit -v 1000000 ;; esac   # ASan reserves terabytes of address space
 timeout 120 "$B/bin/pto-check" /dev/zero > "$T/out" 2> "$T/err")
rc=$?
[ $rc = 1 ] && grep -q '^/dev/zero:1:1: error\[E-LIMIT\]: larger than 64 MB' "$T/err"
ok $? "limits-8.2 pto-check /dev/zero: E-LIMIT after 64 MB, exit $rc (a 1 GB address-space cap but under ASan)"

# a valid kernel of N statements, each a new tile
long_kernel() {
  awk -v n="$1" 'BEGIN { print "kernel big(X: f32[8,32] in, Y: f32[8,32] out) {"; print "  x0 = load(X, [0, 0], [8, 32]);"
    for (i = 1; i <= n; i++) printf "  x%d = adds(x%d, 1.0);\n", i, i - 1
    printf "  store(Y, [0, 0], x%d);\n}\n", n }'
}
long_kernel 30000 > "$T/k30k.ptk"
"$B/bin/ptofuzz" diff "$T/k30k.ptk" > "$T/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^verdict=clean$' "$T/out" && ! grep -q blowup "$T/out"
ok $? "limits-9.1 diff on a 30,000-statement kernel: clean, no time-based blowup (exit $rc)"
case "$B" in
*sanitize*) n=$((n + 1)); echo "ok $n # SKIP --max-mem is not enforced under AddressSanitizer" ;;
*)
  long_kernel 100000 > "$T/k100k.ptk"
  sub=1
  for cmd in "ptosim --split=left_right" "ptoc --split=up_down" "ptofuzz diff"; do
    sub=$((sub + 1))
    set -- $cmd
    tool=$1; shift
    "$B/bin/$tool" "$@" "$T/k100k.ptk" --max-mem=96 > /dev/null 2> "$T/err"
    rc=$?
    [ $rc = 1 ] && grep -q "error\[E-LIMIT\]: out of memory: .* (--max-mem" "$T/err" && ! grep -qi 'abort\|internal' "$T/err"
    ok $? "limits-9.$sub $cmd --max-mem=96 on a 100,000-statement kernel: E-LIMIT, exit $rc"
  done ;;
esac
plan
