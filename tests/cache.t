#!/bin/sh
# cache.t — `ptofuzz cache`: where the real back ends' cache is
# ($PTO_REAL_CACHE, $XDG_CACHE_HOME/ptofuzz, ~/.cache/ptofuzz), what it holds,
# and `cache clean [--all]`: the prebuilt files and old work directories go,
# a work directory modified in the last hour stays unless --all.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
unset PTO_REAL_CACHE

out=$(XDG_CACHE_HOME="$T/xdg" "$F" cache)
[ $? = 0 ] && [ "$(echo "$out" | head -n 1)" = "cache $T/xdg/ptofuzz" ] && [ -d "$T/xdg/ptofuzz" ]
ok $? "cache-1.1 \$XDG_CACHE_HOME/ptofuzz, created ($(echo "$out" | head -n 1))"
out=$(env -u XDG_CACHE_HOME HOME="$T/home" "$F" cache | head -n 1)
[ "$out" = "cache $T/home/.cache/ptofuzz" ]
ok $? "cache-1.2 without it, ~/.cache/ptofuzz ($out)"
out=$(PTO_REAL_CACHE="$T/own" XDG_CACHE_HOME="$T/xdg" "$F" cache | head -n 1)
[ "$out" = "cache $T/own" ]
ok $? "cache-1.3 \$PTO_REAL_CACHE first ($out)"

C="$T/own"
mkdir -p "$C/support-0123456789abcdef/pto/cpu" "$C/run-old" "$C/run-new"
head -c 1000 /dev/zero > "$C/ptofuzz-harness-0123456789abcdef.pch"
head -c 500 /dev/zero > "$C/support-0123456789abcdef/pto/cpu/parallel.hpp"
head -c 300 /dev/zero > "$C/run-old/k.cpp"
head -c 200 /dev/zero > "$C/run-new/k.cpp"
touch -d '2 hours ago' "$C/run-old"
out=$(PTO_REAL_CACHE="$C" "$F" cache)
echo "$out" | grep -q '^prebuilt 2 entries, ' && echo "$out" | grep -q '^work 2 directories, '
ok $? "cache-2.1 counts prebuilt entries and work directories"
out=$(PTO_REAL_CACHE="$C" "$F" cache clean)
rc=$?
[ $rc = 0 ] && [ "$(ls "$C")" = run-new ] && echo "$out" | grep -q 'kept 1 work directories'
ok $? "cache-2.2 clean: prebuilt files and the old work directory gone, the recent one kept (exit $rc: $(ls "$C" | tr '\n' ' '))"
PTO_REAL_CACHE="$C" "$F" cache clean --all > /dev/null
[ $? = 0 ] && [ -z "$(ls "$C")" ] && [ -d "$C" ]
ok $? "cache-2.3 clean --all: the cache is empty"
"$F" cache clear > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'error\[E-USAGE\]' "$T/err"
ok $? "cache-3.1 an unknown argument is E-USAGE, exit 1"
plan
