#!/bin/sh
# report.t — `ptofuzz report ID`: a 1500-kernel campaign against store-axis-swap,
# then the triage report of its first miscompile as markdown (with a valid PNG
# picture beside it that shows the lane boundary), JSON (parsed by JSON::PP,
# with the fields) and HTML (the picture inlined); the reproduce commands it
# prints reproduce the signature; the title names the output and the report
# its cluster; errors are usage errors. The markdown stands alone in an issue
# (no local path or link; a text picture, rendered by cmark), and a transposed
# tile's picture puts the lane boundary on the axis the lanes own.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
BA=$(cd "$B/bin" && pwd)                          # the binaries by absolute path (the checks below change directory)
PS="$B/tests/pngstat"
DB="$T/f.db"

"$F" run --bugs=store-axis-swap --count=1500 --jobs=1 --seed=3 --db="$DB" --quiet >/dev/null 2>&1
ID=$("$F" db list --db="$DB" | awk '$4 ~ /^miscompile\|/ { print $1; exit }')
[ -n "$ID" ]
ok $? "report-1.1 a 1500-kernel store-axis-swap campaign (seed 3) records a miscompile (id ${ID:-none})"
ID=${ID:-1}

"$F" report "$ID" --db="$DB" --format=md -o "$T/r.md" 2>/dev/null && [ -s "$T/r.md" ]
ok $? "report-1.2 report --format=md writes the file"
grep -q "^# ptofuzz finding $ID: Wrong output" "$T/r.md" && grep -q '^## Reproduce' "$T/r.md" &&
  grep -q '^## IR before and after the first bad pass' "$T/r.md" && grep -q '^- tool: ptofuzz .* (commit ' "$T/r.md"
ok $? "report-1.3 markdown has the title in words, the reproduce, IR diff and environment sections"
PNG=$(sed -n 's/^The same as a picture: `\(.*\.png\)`, written beside this report.*/\1/p' "$T/r.md" | head -1)
[ -n "$PNG" ] && [ -s "$T/$PNG" ]
ok $? "report-1.4 the markdown names a PNG written beside it to attach (${PNG:-none})"
[ "$(head -c 8 "$T/$PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
ok $? "report-1.5 the picture has the PNG signature"
# IHDR: width and height, big-endian, at bytes 16..23; pngstat decodes the image
ihdr=$(od -An -tu1 -j16 -N8 "$T/$PNG" | awk '{ print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }')
set -- $("$PS" "$T/$PNG" 0050ff d62728 7b2cbf)
[ "$ihdr" = "$1 $2" ] && [ "$1" -ge 50 ] && [ "$2" -ge 30 ]
ok $? "report-1.6 the PNG decodes with its IHDR size ($ihdr; decoded $1 $2)"
[ "${4:-0}" -gt 0 ]
ok $? "report-1.7 the lane boundary colour (#0050ff) appears (${4:-0} pixels)"
[ "$((${5:-0} + ${6:-0}))" -gt 0 ]
ok $? "report-1.8 differing cells are drawn (red ${5:-0}, purple ${6:-0} pixels)"
grep -q '^| \[[0-9]*, [0-9]*\] | .* | 0x[0-9a-f]* | 0x[0-9a-f]* |$' "$T/r.md"
ok $? "report-1.9 differing elements are listed with index, decimal and hex values"
sed -n '/^```diff/,/^```$/p' "$T/r.md" | grep -q '^@@ -[0-9]*,[0-9]* +[0-9]*,[0-9]* @@'
ok $? "report-1.10 the IR diff has unified hunks"

"$F" report "$ID" --db="$DB" --format=json -o "$T/r.json"
perl -MJSON::PP -e '
  local $/; open my $fh, "<", $ARGV[0] or exit 1; my $j = JSON::PP->new->decode(<$fh>);
  for my $k (qw(id title signature fields kind backend variant schedule first_bad_pass hits first_seen last_seen
                campaigns reproduce kernel outputs ir_diff environment)) { exists $j->{$k} or die "no $k\n" }
  $j->{kind} eq "miscompile" or die "kind\n";
  my @d = grep { $_->{differing} > 0 } @{$j->{outputs}};
  @d && @{$d[0]{first}} && defined $d[0]{first}[0]{expected_hex} && $d[0]{picture_png_base64} && $d[0]{picture_text} =~ /[XME]/ or die "outputs\n";
  $j->{ir_diff}{diff} =~ /^@@ /m or die "diff\n";
  $j->{environment}{commit} ne "" or die "commit\n";
  @{$j->{campaigns}} == 1 or die "campaigns\n";
' "$T/r.json"
ok $? "report-2.1 --format=json parses with JSON::PP and has the fields"

"$F" report "$ID" --db="$DB" --format=html -o "$T/r.html" && grep -q '<img class="tile" alt="[^"]*" src="data:image/png;base64,iVBORw0KGgo' "$T/r.html"
ok $? "report-3.1 --format=html inlines the picture as a data URI"
! grep -q 'src="[^d]' "$T/r.html"
ok $? "report-3.2 the HTML refers to no other file"

# the reproduce commands, run as printed (tools from the build)
(cd "$T" && perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); open my $k, ">", "finding-$j->{id}.ptk" or die;
    print $k $j->{kernel}{text}; print "$_\n" for @{$j->{reproduce}}' < r.json |
  sed "s#^ptofuzz #$BA/ptofuzz #; s#^ptosim #$BA/ptosim #" > cmds && sh -e cmds > repro.out 2>&1)
SIG=$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{signature}' < "$T/r.json")
grep -qF "sig=$SIG" "$T/repro.out"
ok $? "report-4.1 the printed reproduce commands show the signature again"

# pasted as an issue's body: no local path, no image link, the text picture, the values
! grep -q -e '--db=' -e '](' -e "$T" "$T/r.md" && grep -q '^```text$' "$T/r.md" &&
  grep -q '^The first 8 of [0-9]* differing elements' "$T/r.md" && grep -q '^# save the kernel below as finding-' "$T/r.md"
ok $? "report-6.1 the markdown stands alone: no local path or link, a text picture, 'first 8 of N'"
if command -v cmark >/dev/null 2>&1 || sh scripts/deps.sh cmark >/dev/null 2>&1; then
  cmark "$T/r.md" > "$T/r.cm.html"
  v=$(sed -n 's/^| \[[0-9]*, [0-9]*\] | [^|]* | [^|]* | \(0x[0-9a-f]*\) |.*/\1/p' "$T/r.md" | head -1)
  grep -q '<pre><code class="language-text">' "$T/r.cm.html" && grep -q '<pre><code class="language-sh"># save the kernel' "$T/r.cm.html" &&
    [ -n "$v" ] && grep -q "$v" "$T/r.cm.html" && ! grep -q -e '<img' -e 'href=' "$T/r.cm.html"
  ok $? "report-6.2 cmark renders the picture, the commands and the values ($v), with no image or link"
else
  echo "ok $((n + 1)) # SKIP no cmark (scripts/deps.sh cmark)"; n=$((n + 1))
fi
# a transposed tile under up_down: the lanes own its columns, and the picture says so
cat > "$T/tr.ptk" <<'EOF2'
kernel tr(A: f32[16,8] in, O: f32[16,16] out, B: f16[16,16] in) split(up_down) {
  a = load(A, [0, 0], [16, 8]);
  store(O, [0, 0], transpose(a));
  c = matmul(load(B, [0, 0], [16, 16]), load(B, [0, 0], [16, 16]));
}
EOF2
"$F" db init --db="$T/tr.db" > /dev/null &&
  sqlite3 "$T/tr.db" "INSERT INTO finding(signature, kind, mode, code, op, pass, pattern, hits, status)
    VALUES('miscompile|up_down|-|-|auto_split|all', 'miscompile', 'up_down', '-', '-', 'auto_split', 'all', 1, 'new');
    INSERT INTO testcase(finding, kernel, seed, variant, flags, statements)
    VALUES(1, CAST(readfile('$T/tr.ptk') AS TEXT), 0, 'up_down', '--bugs=store-axis-swap schedule=rr', 3);" &&
  (cd "$T" && "$BA/ptofuzz" report 1 --db=tr.db --reduce=0 -o tr.md) &&
  grep -q '^ 0 oooooooo|MMMMMMMM$' "$T/tr.md" && grep -q '^15 ........ EEEEEEEE$' "$T/tr.md"
ok $? "report-6.3 a transposed store under up_down: the lane boundary between columns, not rows"
# the title names the output and where it is wrong; the cluster line lists the other findings of the cluster
T1=$(sed -n '1s/^# ptofuzz finding [0-9]*: //p' "$T/r.md")
echo "$T1" | grep -Eq '^Wrong output [A-Za-z_][A-Za-z0-9_]* rows? [0-9-]+, cols? [0-9-]+' && [ "${#T1}" -le 100 ]
ok $? "report-7.1 the title names the output, its rows and columns, in at most 100 characters ($T1)"
KEY=$(sqlite3 "$DB" "select cluster from finding where id = $ID")
PEERS=$(sqlite3 "$DB" "select group_concat(id, ', ') from finding where cluster = '$KEY' and id != $ID order by id")
if [ -n "$PEERS" ]; then want="in this cluster: $PEERS |"; else want="no other signature in this cluster |"; fi
grep -qF "| cluster | $KEY; " "$T/r.md" && grep -F "| cluster |" "$T/r.md" | grep -qF "$want"
ok $? "report-7.2 the cluster line: $KEY, and the other findings in it (${PEERS:-none})"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); $j->{cluster} =~ /^\Q$ARGV[0]\E; / or exit 1' "$KEY" < "$T/r.json"
ok $? "report-7.3 the JSON carries the cluster"

RID=$("$F" db list --db="$DB" | awk '$4 ~ /^reject\|/ { print $1; exit }')
"$F" report "${RID:-1}" --db="$DB" > "$T/rej.md" 2>/dev/null && grep -q 'not a miscompile' "$T/rej.md"
ok $? "report-5.1 a reject's report (to stdout) says there is no output comparison"
"$F" report 999999 --db="$DB" >/dev/null 2>&1
[ $? = 1 ]
ok $? "report-5.2 an unknown finding exits 1"
"$F" report "$ID" --db="$DB" --format=pdf >/dev/null 2>&1
[ $? = 1 ]
ok $? "report-5.3 an unknown format is a usage error"

# a full disk: no report, no picture, no temporary file left behind (a tiny
# tmpfs filled up where one can be mounted, else a file size limit of 0)
mkdir -p "$T/full"
if mount -t tmpfs -o size=64k tmpfs "$T/full" 2> /dev/null; then
  head -c 1048576 /dev/zero > "$T/full/filler" 2> /dev/null
  how="a full tmpfs"
  "$F" report "$ID" --db="$DB" --reduce=0 -o "$T/full/r.md" > /dev/null 2> "$T/fullerr"; rc=$?
  left=$(ls "$T/full" | grep -v '^filler$' | tr '\n' ' ')
  umount "$T/full"
else
  how="ulimit -f 0"
  (trap '' XFSZ; ulimit -f 0; "$F" report "$ID" --db="$DB" --reduce=0 -o "$T/full/r.md") > /dev/null 2> "$T/fullerr"; rc=$?
  left=$(ls "$T/full" | tr '\n' ' ')
fi
[ "$rc" = 2 ] && [ -z "$left" ] && grep -q 'cannot write .*full/' "$T/fullerr"
ok $? "report-8.1 report on a full disk ($how): exit 2, the reason, no file left (${left:-none})"
plan
