#!/bin/sh
# deps.sh — install the Debian packages ptofuzz needs that are missing.
# Quiet when nothing is missing. Needs root and apt to install anything.
# `deps.sh chromium` installs only headless Chromium, which the dashboard test
# (tests/dashboard.t) alone needs; nothing else does. `deps.sh pypto` installs
# Debian's python3 and python3-torch, which the PyPTO back end (DESIGN 16) and
# its tests alone need: PyPTO imports torch (about 230 packages). `deps.sh cmark`
# installs the CommonMark renderer the report test (tests/report.t) renders a
# markdown report with, as an issue tracker would.
set -eu
if [ "${1:-}" = chromium ]; then
  need="chromium"
elif [ "${1:-}" = cmark ]; then
  need="cmark"
elif [ "${1:-}" = pypto ]; then
  need="python3 python3-torch"
else
need="cmake clang libclang-rt-14-dev libsqlite3-dev sqlite3 afl++ perl make gcc libpng-dev"
# The real back end (docs/real-backend.md): the prebuilt ptoas links LLVM 19
# and z3; its C++ output compiles against pto-isa with clang++-19, and links
# with lld-19 (clang-19's -fuse-ld=lld; GNU ld when it is missing).
need="$need libllvm19 libz3-4 clang-19 lld-19"
fi
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "deps.sh: missing packages:$missing (run as root on Debian to install them)" >&2
  exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
