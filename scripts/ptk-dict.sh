#!/bin/sh
# ptk-dict.sh — print the libFuzzer/AFL++ dictionary of the kernel language
# (fuzz/ptk.dict): every op of compiler/ops.def, the reserved words of
# compiler/parse.c, the keyword arguments of compiler/ir.c and the
# punctuation. tests/fuzz-ptk.t checks that the committed file is its output.
set -eu
cd "$(dirname "$0")/.."
echo "# The .ptk language's words for libFuzzer (-dict=) and AFL++ (-x); written by scripts/ptk-dict.sh."
{
  sed -n 's/^OP(\([a-z_0-9]*\),.*/\1/p' compiler/ops.def
  sed -n '/^static const char \*const reserved\[\]/,/NULL}/p' compiler/parse.c | grep -o '"[a-z_0-9]*"' | tr -d '"'
  sed -n '/^static const char \*const kwnames/,/};/p' compiler/ir.c | grep -o '"[a-z_0-9]*"' | tr -d '"' | sed -n '/./s/$/=/p'
} | LC_ALL=C sort -u | awk '{ printf "kw_%d=\"%s\"\n", NR, $0 }'
n=0
for p in '(' ')' '[' ']' '{' '}' ',' ':' ';' '=' '+' '-' '*' '<' '>' '<=' '>=' '==' '!=' '#'; do
  n=$((n + 1))
  printf 'p_%d="%s"\n' "$n" "$p"
done
