#!/bin/sh
# db-cli.t — `ptofuzz db ...` from the command line: merge (exit status,
# every file, errors that name their file, foreign / damaged / missing files
# refused, a campaign never merged twice, counts that are the sums), status,
# show and export of unknown ids, list's header, reading commands that never
# create a file, the upgrade of a version 1 file, and an exported reproducer
# that pto-check and ptofuzz diff both take (diff honouring its # flags);
# the cluster keys a campaign stores and `db list --clusters`.
. "$(dirname "$0")/lib.sh"
F="$B/bin/ptofuzz"
q() { sqlite3 "$1" "$2"; }

# three campaigns in three files, with a defect so that they find things
for s in 0 1 2; do
  "$F" run --count=$((20 + 10 * s)) --seed=$((7 + s)) --bugs=odd-floor-half --db="$T/s$s.db" --quiet > /dev/null 2>&1
done
hits() { q "$1" 'select coalesce(sum(hits), 0) from finding'; }
kern() { q "$1" 'select coalesce(sum(kernels), 0) from campaign'; }
sum_h=$(( $(hits "$T/s0.db") + $(hits "$T/s1.db") + $(hits "$T/s2.db") ))
sum_k=$(( $(kern "$T/s0.db") + $(kern "$T/s1.db") + $(kern "$T/s2.db") ))
[ "$sum_h" -gt 0 ]
ok $? "dbcli-1.1 the shards hold findings ($sum_h hits, $sum_k kernels)"

"$F" db merge "$T/s0.db" "$T/s1.db" "$T/s2.db" --db="$T/m.db" > "$T/out" 2> "$T/err"
[ $? = 0 ] && [ "$(grep -c '^merged ' "$T/out")" = 3 ] && [ ! -s "$T/err" ]
ok $? "dbcli-1.2 merge of three files: exit 0, one line per file"
[ "$(hits "$T/m.db")" = "$sum_h" ] && [ "$(kern "$T/m.db")" = "$sum_k" ] && [ "$(q "$T/m.db" 'select count(*) from campaign')" = 3 ]
ok $? "dbcli-1.3 merged hits ($(hits "$T/m.db")) and kernels ($(kern "$T/m.db")) are the sums"
per() { q "$1" "select signature || ' ' || hits from finding order by signature"; }
for s in 0 1 2; do per "$T/s$s.db"; done | awk '{h[$1] += $2} END {for (k in h) print k " " h[k]}' | sort > "$T/want"
per "$T/m.db" | sort > "$T/got"
cmp -s "$T/want" "$T/got"
ok $? "dbcli-1.4 each signature's hits are the sum over the files"
"$F" db merge "$T/s1.db" "$T/s0.db" --db="$T/m.db" > "$T/out" 2>&1
[ $? = 0 ] && [ "$(hits "$T/m.db")" = "$sum_h" ] && [ "$(kern "$T/m.db")" = "$sum_k" ] &&
  grep -q 'campaigns=0 already_present=1 .* hits=0$' "$T/out"
ok $? "dbcli-1.5 merging the same campaigns again changes nothing (exit 0, already_present=1)"
"$F" db merge "$T/s0.db" --db="$T/m2.db" > /dev/null 2>&1 && "$F" db merge "$T/m.db" --db="$T/m2.db" > /dev/null 2>&1
[ $? = 0 ] && [ "$(hits "$T/m2.db")" = "$sum_h" ] && [ "$(q "$T/m2.db" 'select count(*) from campaign')" = 3 ]
ok $? "dbcli-1.6 a campaign reached through a merged file is not merged twice"
[ "$(q "$T/m.db" 'pragma integrity_check; pragma foreign_key_check;')" = ok ]
ok $? "dbcli-1.7 the merged file passes integrity and foreign key checks"

# bad inputs: every file is tried, each error names its file, exit 1
printf 'not a database at all, just some text that is long enough to have a header\n' > "$T/junk.db"
q "$T/foreign.db" 'create table t(x); insert into t values (1);'
cp "$T/s1.db" "$T/broken.db"
sz=$(wc -c < "$T/broken.db")
dd if=/dev/urandom of="$T/broken.db" bs=1024 seek=2 count=$(( sz / 1024 - 2 )) conv=notrunc 2>/dev/null
before=$(hits "$T/m3.db" 2>/dev/null)
"$F" db merge "$T/junk.db" "$T/s0.db" "$T/foreign.db" "$T/missing.db" "$T/broken.db" "$T/s2.db" --db="$T/m3.db" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 1 ]
ok $? "dbcli-2.1 a merge with bad files exits 1 ($rc)"
grep -q "junk.db" "$T/err" && grep -q "foreign.db: not a ptofuzz findings database" "$T/err" &&
  grep -q "missing.db: No such file" "$T/err" && grep -q "broken.db" "$T/err"
ok $? "dbcli-2.2 each error names its file"
grep -q "s0.db" "$T/out" && grep -q "s2.db" "$T/out" && grep -q '4 of 6 files not merged' "$T/err" &&
  [ "$(hits "$T/m3.db")" = $(( $(hits "$T/s0.db") + $(hits "$T/s2.db") )) ]
ok $? "dbcli-2.3 the good files around them are merged"
[ ! -e "$T/missing.db" ] && [ "$(q "$T/foreign.db" 'select count(*) from t')" = 1 ]
ok $? "dbcli-2.4 a missing file is not created, a foreign one not touched"
"$F" db merge --db="$T/m3.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'missing argument' "$T/err"
ok $? "dbcli-2.5 merge without files is a usage error"

# status, show, export, list
"$F" db status 1 triaged --db="$T/m.db" > "$T/out" && grep -q '^finding 1: status triaged$' "$T/out" &&
  [ "$(q "$T/m.db" 'select status from finding where id = 1')" = triaged ]
ok $? "dbcli-3.1 db status ID triaged"
"$F" db status 1 fixed --db="$T/m.db" > /dev/null && "$F" db list --db="$T/m.db" | grep -q '^1 *fixed '
ok $? "dbcli-3.2 db status ID fixed shows in db list"
"$F" db status 1 done --db="$T/m.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q "unknown status 'done'" "$T/err"
ok $? "dbcli-3.3 an unknown status is refused"
"$F" db status 999 new --db="$T/m.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q "no finding 999" "$T/err"
ok $? "dbcli-3.4 status of an unknown finding is refused"
for c in "show 999" "export 999" "show -1" "export 0" "show x"; do
  "$F" db $c --db="$T/m.db" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc = 1 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ] || break
done
[ $rc = 1 ] && [ -s "$T/err" ]
ok $? "dbcli-3.5 show/export of 999, -1, 0, x: a message and exit 1 (last: $c: $(cat "$T/err"))"
"$F" db show 999 --db="$T/m.db" 2>&1 >/dev/null | grep -q 'no finding 999'
ok $? "dbcli-3.6 the message says there is no such finding"
"$F" db show 1 --db="$T/m.db" > "$T/out" && [ "$(grep -c '^campaign [0-9]*: hits ' "$T/out")" -ge 1 ] &&
  n1=$(q "$T/m.db" 'select count(*) from sighting where finding = 1') && [ "$(grep -c '^campaign [0-9]*: hits ' "$T/out")" = "$n1" ]
ok $? "dbcli-3.7 show lists every campaign that saw the finding"
"$F" db list --db="$T/m.db" | head -1 | grep -q '^ID  *STATUS  *HITS  *SIGNATURE  *SUMMARY$'
ok $? "dbcli-3.8 db list starts with a header line"
"$F" db init --db="$T/empty.db" > /dev/null && "$F" db list --db="$T/empty.db" > "$T/out" &&
  [ "$(sed -n 2p "$T/out")" = "(no findings)" ]
ok $? "dbcli-3.9 db list of an empty database says so"
i=0
for c in list stats "show 1" "export 1" "status 1 new"; do
  i=$((i + 1))
  "$F" db $c --db="$T/nothere.db" > /dev/null 2> "$T/err"; rc=$?
  [ $rc = 1 ] && [ ! -e "$T/nothere.db" ] && grep -q 'nothere.db: no such file' "$T/err"
  ok $? "dbcli-4.$i db $c of a missing database: an error, no file created"
done
"$F" reduce --finding=1 --db="$T/nothere.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && [ ! -e "$T/nothere.db" ] && grep -q 'nothere.db: no such file' "$T/err"
ok $? "dbcli-4.6 reduce --finding of a missing database: an error, no file created"
"$F" db merge "$T/junk.db" --db="$T/m4.db" 2>&1 | grep -q 'junk.db: not a ptofuzz findings database (not an SQLite file)'
ok $? "dbcli-4.7 merge says a non-SQLite file is not a findings database"

# an export: pto-check's header, and diff honours its flags and seed
id=$(q "$T/m.db" "select id from finding where signature like 'miscompile|up_down|%' order by id limit 1")
"$F" db export "$id" --db="$T/m.db" > "$T/r.ptk"
grep -q '^# expect: clean$' "$T/r.ptk" && grep -q '^# defect: odd-floor-half -> miscompile miscompile|' "$T/r.ptk" &&
  grep -q '^# flags: --bugs=odd-floor-half' "$T/r.ptk"
ok $? "dbcli-5.1 export writes # flags, # seed, # expect and # defect lines"
"$F" diff "$T/r.ptk" > "$T/out" 2> "$T/err"
[ $? = 3 ] && grep -q "sig=$(q "$T/m.db" "select signature from finding where id = $id")" "$T/out" &&
  grep -q 'header: --bugs=odd-floor-half --seed=' "$T/err"
ok $? "dbcli-5.2 diff of the export honours its # flags: the finding again, exit 3"
"$F" diff "$T/r.ptk" --bugs=none > /dev/null 2>&1
ok $? "dbcli-5.3 --bugs on the command line wins over the header (clean, exit 0)"
"$B/bin/pto-check" "$T/r.ptk" > "$T/out" 2>&1 && grep -q '^ok 1 ' "$T/out"
ok $? "dbcli-5.4 pto-check takes the export: clean without the defect"
"$B/bin/pto-check" --bugs=all "$T/r.ptk" > "$T/out" 2>&1 && grep -q '^ok 1 .*--bugs=odd-floor-half gives' "$T/out"
ok $? "dbcli-5.5 pto-check --bugs=all: the export reproduces its defect"
sed 's/^# flags: .*/# flags: --bugs=no-such-defect/' "$T/r.ptk" > "$T/bad.ptk"
"$F" diff "$T/bad.ptk" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'bad.ptk:[0-9]*:[0-9]*: error\[E-FLAGS\]: # flags: unknown defect.* \[user\]$' "$T/err"
ok $? "dbcli-5.6 a bad # flags line is an input error with code E-FLAGS, file, line and column"
sed 's/^# seed: .*/# seed: 12x/' "$T/r.ptk" > "$T/bad2.ptk"
"$F" diff "$T/bad2.ptk" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'bad2.ptk:[0-9]*:[0-9]*: error\[E-FLAGS\]: # seed: .12x. is not a decimal seed \[user\]$' "$T/err"
ok $? "dbcli-5.7 a bad # seed line is E-FLAGS too"
# reduce reads the same header: the export reduces without repeating its defects and seed
"$F" reduce "$T/r.ptk" --max-calls=40 -o "$T/red.ptk" > /dev/null 2> "$T/err"
[ $? = 0 ] && grep -q 'header: --bugs=odd-floor-half --seed=' "$T/err" &&
  grep -q "signature $(q "$T/m.db" "select signature from finding where id = $id")" "$T/err"
ok $? "dbcli-5.8 reduce FILE honours the export's # flags and # seed: the finding's signature, kept"
"$F" reduce "$T/bad.ptk" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'error\[E-FLAGS\]' "$T/err"
ok $? "dbcli-5.9 reduce refuses a bad # flags line as diff does (E-FLAGS)"

# a version 1 file is upgraded on open and then merges
# the version 1 tables after campaign: finding, testcase and its index
V1_TABLES="CREATE TABLE finding(id INTEGER PRIMARY KEY, signature TEXT UNIQUE NOT NULL, kind TEXT, mode TEXT, code TEXT,
  op TEXT, pass TEXT, pattern TEXT, summary TEXT, first_seen TEXT, last_seen TEXT, hits INTEGER,
  status TEXT CHECK(status IN ('new','triaged','fixed','wontfix')) DEFAULT 'new', first_bad_pass TEXT);
CREATE TABLE testcase(id INTEGER PRIMARY KEY, finding INTEGER REFERENCES finding(id),
  campaign INTEGER REFERENCES campaign(id), kernel TEXT NOT NULL, reduced TEXT, seed INTEGER, variant TEXT,
  flags TEXT, statements INTEGER);
CREATE INDEX testcase_finding ON testcase(finding);"
q "$T/v1.db" "
CREATE TABLE campaign(id INTEGER PRIMARY KEY, engine TEXT, seed INTEGER, policy TEXT, defects TEXT,
  tool_version TEXT, started TEXT, ended TEXT, kernels INTEGER, seconds REAL);
$V1_TABLES
INSERT INTO campaign VALUES (1, 'prng', 5, 'p', '', '0.1.0', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z', 100, 60);
INSERT INTO campaign VALUES (2, 'prng', 6, 'p', '', '0.1.0', '2026-01-02T00:00:00.000Z', '2026-01-02T00:01:00.000Z', 50, 30);
INSERT INTO finding(id, signature, kind, hits) VALUES (1, 'hang|up_down|R-DEADLOCK|tpop|-|-', 'hang', 7);
INSERT INTO testcase(finding, campaign, kernel) VALUES (1, 1, 'kernel a() {}'), (1, 2, 'kernel b() {}');
PRAGMA application_id = 1347702598; PRAGMA user_version = 1;"
cp "$T/v1.db" "$T/v1copy.db"
"$F" db stats --db="$T/v1.db" > /dev/null
[ "$(q "$T/v1.db" 'pragma user_version')" = 4 ] && [ "$(q "$T/v1.db" 'select sum(hits) from sighting')" = 7 ] &&
  [ "$(q "$T/v1.db" 'select count(distinct uid) from campaign')" = 2 ]
ok $? "dbcli-6.1 a version 1 file is upgraded: uids, sightings that hold all 7 hits"
"$F" db merge "$T/v1copy.db" --db="$T/v1.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'older schema version' "$T/err"
ok $? "dbcli-6.2 a version 1 file is not merged before it is upgraded"
"$F" db stats --db="$T/v1copy.db" > /dev/null && "$F" db merge "$T/v1copy.db" --db="$T/v1.db" > "$T/out" 2>&1 &&
  grep -q 'already_present=2' "$T/out" && [ "$(q "$T/v1.db" 'select hits from finding')" = 7 ]
ok $? "dbcli-6.3 two upgraded copies of one file are recognised as the same campaigns"
# older files whose version says less than they hold (steps numbered otherwise
# by the tool that wrote them): a version 1 file that has campaign.uid, a
# version 2 file with campaign_variant and no uid; each upgrades once opened
q "$T/v1uid.db" "
CREATE TABLE campaign(id INTEGER PRIMARY KEY, engine TEXT, seed INTEGER, policy TEXT, defects TEXT,
  tool_version TEXT, started TEXT, ended TEXT, kernels INTEGER, seconds REAL, uid TEXT);
$V1_TABLES
INSERT INTO campaign VALUES (1, 'prng', 5, 'p', '', '0.1.0', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z', 100, 60, 'u-one');
INSERT INTO campaign VALUES (2, 'prng', 6, 'p', '', '0.1.0', '2026-01-02T00:00:00.000Z', '2026-01-02T00:01:00.000Z', 50, 30, NULL);
INSERT INTO finding(id, signature, kind, hits) VALUES (1, 'hang|up_down|R-DEADLOCK|tpop|-|-', 'hang', 7);
INSERT INTO testcase(finding, campaign, kernel) VALUES (1, 1, 'kernel a() {}'), (1, 2, 'kernel b() {}');
PRAGMA application_id = 1347702598; PRAGMA user_version = 1;"
cp "$T/v1uid.db" "$T/v1uid0.db"
"$F" db stats --db="$T/v1uid.db" > "$T/out" 2> "$T/err"
[ $? = 0 ] && [ "$(q "$T/v1uid.db" 'pragma user_version')" = 4 ] && grep -q '^kernels 150$' "$T/out" &&
  [ "$(q "$T/v1uid.db" "select group_concat(uid, ' ') from campaign where uid is not null")" = "u-one v1:prng:6:2026-01-02T00:00:00.000Z:0" ] &&
  [ "$(q "$T/v1uid.db" 'select sum(hits) from sighting')" = 7 ]
ok $? "dbcli-6.4 a version 1 file that already has campaign.uid upgrades (its uid kept, a missing one made)"
"$F" db merge "$T/v1uid.db" --db="$T/v1.db" > "$T/out" 2>&1 && grep -q 'merged .*v1uid.db: campaigns=' "$T/out"
ok $? "dbcli-6.5 the upgraded file merges"
q "$T/v2cv.db" "
CREATE TABLE campaign(id INTEGER PRIMARY KEY, engine TEXT, seed INTEGER, policy TEXT, defects TEXT,
  tool_version TEXT, started TEXT, ended TEXT, kernels INTEGER, seconds REAL);
$V1_TABLES
CREATE TABLE campaign_variant(campaign INTEGER REFERENCES campaign(id), variant TEXT NOT NULL,
  valid INTEGER, unsupported INTEGER, PRIMARY KEY(campaign, variant));
INSERT INTO campaign VALUES (1, 'prng', 5, 'p', '', '0.1.0', '2026-01-01T00:00:00.000Z', NULL, 10, 6);
INSERT INTO campaign_variant VALUES (1, 'up_down', 10, 3);
PRAGMA application_id = 1347702598; PRAGMA user_version = 2;"
"$F" db list --db="$T/v2cv.db" > /dev/null 2> "$T/err" && [ "$(q "$T/v2cv.db" 'pragma user_version')" = 4 ] &&
  [ "$(q "$T/v2cv.db" "select count(*) from pragma_table_info('testcase') where name = 'kernel_index'")" = 1 ] &&
  [ "$(q "$T/v2cv.db" 'select unsupported from campaign_variant')" = 3 ] && "$F" dashboard --db="$T/v2cv.db" -o "$T/dash2" > /dev/null 2>&1
ok $? "dbcli-6.6 a version 2 file that has campaign_variant but no uid upgrades and reads"

# a database this process cannot write: the reading commands read it; status says why it cannot
mkdir -p "$T/ro" "$T/roout" && cp "$T/m.db" "$T/ro/m.db" && cp "$T/v1uid0.db" "$T/ro/old.db"
chmod 444 "$T/ro/m.db" "$T/ro/old.db" && chmod 555 "$T/ro" && chmod 777 "$T/roout"
if [ "$(id -u)" = 0 ]; then
  chmod 711 "$T"                                # root ignores modes: run the commands as nobody
  asro() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
  asro() { "$@"; }
fi
rid=$(q "$T/m.db" 'select min(id) from finding')
asro "$F" db list --db="$T/ro/m.db" > "$T/roout/list" 2> "$T/err" && asro "$F" db stats --db="$T/ro/m.db" > /dev/null 2>&1 &&
  asro "$F" db show "$rid" --db="$T/ro/m.db" > /dev/null 2>&1 && asro "$F" db export "$rid" --db="$T/ro/m.db" > /dev/null 2>&1 &&
  [ "$(grep -c '^[0-9]' "$T/roout/list")" = "$(q "$T/m.db" 'select count(*) from finding')" ]
ok $? "dbcli-8.1 db list, stats, show and export read a read-only database"
asro "$F" report "$rid" --db="$T/ro/m.db" -o "$T/roout/r.md" > /dev/null 2> "$T/err" && [ -s "$T/roout/r.md" ] &&
  grep -q 'read-only: the test case is reported as it was found' "$T/err"
ok $? "dbcli-8.2 report reads a read-only database (its test case as found: nowhere to store a reduction)"
q "$T/m.db" "update finding set status = 'fixed' where id = $rid" && cp "$T/m.db" "$T/roout/fixed.db" && chmod 444 "$T/roout/fixed.db"
asro "$B/bin/pto-check" --allow-empty --db="$T/roout/fixed.db" > "$T/out" 2> "$T/err" ; rc=$?
grep -q "db finding $rid " "$T/out" && ! grep -q 'cannot open' "$T/err"
ok $? "dbcli-8.3 pto-check --db reads a read-only database (rc $rc)"
was=$(q "$T/ro/m.db" "select status from finding where id = $rid")
asro "$F" db status "$rid" wontfix --db="$T/ro/m.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'readonly\|read-only' "$T/err" && [ "$(q "$T/ro/m.db" "select status from finding where id = $rid")" = "$was" ]
ok $? "dbcli-8.4 db status on a read-only database: exit 1, the reason, nothing changed"
asro "$F" db list --db="$T/ro/old.db" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q 'older than this tool.*copy it where it can be written' "$T/err"
ok $? "dbcli-8.5 an older schema that cannot be written: exit 1, how to upgrade a copy"
chmod 755 "$T/ro"
# clusters: two defects, each giving one signature per split mode
C="$T/c.db"
"$F" run --count=150 --seed=7 --bugs=slice-halve-args,subblock-outside-zero --db="$C" --quiet > /dev/null 2>&1
nf=$(q "$C" 'select count(*) from finding')
[ "$nf" -ge 4 ] && [ "$(q "$C" 'select count(*) from finding where cluster is null')" = 0 ]
ok $? "dbcli-7.1 the campaign stores a cluster key with each new finding ($nf findings)"
"$F" db list --clusters --db="$C" > "$T/cl" 2> "$T/err"
[ $? = 0 ] && [ "$(grep -c '^  [0-9]' "$T/cl")" = "$nf" ] &&
  [ "$(grep -c '^cluster ' "$T/cl")" = "$(q "$C" 'select count(distinct cluster) from finding')" ]
ok $? "dbcli-7.2 db list --clusters: a header per cluster, every finding once"
[ "$(sed -n 's/^cluster .* signatures=\([0-9]*\) hits=.*/\1/p' "$T/cl" | paste -sd+ | bc)" = "$nf" ] &&
  [ "$(sed -n 's/^cluster .* hits=\([0-9]*\)$/\1/p' "$T/cl" | paste -sd+ | bc)" = "$(q "$C" 'select sum(hits) from finding')" ]
ok $? "dbcli-7.3 the headers' signature counts and hits add up to the findings'"
grep -q '^cluster reject/auto_split/E-VALID/slice  signatures=2 ' "$T/cl" && grep -q '^cluster race/auto_split  signatures=2 ' "$T/cl"
ok $? "dbcli-7.4 each defect's up_down and left_right signatures share one cluster"
q "$C" 'update finding set cluster = null'
"$F" db list --clusters --db="$C" > "$T/cl2" && cmp -s "$T/cl" "$T/cl2" &&
  [ "$(q "$C" 'select count(*) from finding where cluster is null')" = "$nf" ]
ok $? "dbcli-7.5 keys not stored are computed alike, and db list writes none"
"$F" db show 1 --clusters --db="$C" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q -- "--clusters" "$T/err"
ok $? "dbcli-7.6 --clusters with another subcommand is a usage error"
"$F" db list --db="$C" | awk 'NR > 1 { t = substr($0, index($0, $4 "  ") + length($4) + 2); if (length(t) > 100 || t == "") bad = 1 }
  END { exit bad }'
ok $? "dbcli-7.7 db list's titles are one line of at most 100 characters"
plan
