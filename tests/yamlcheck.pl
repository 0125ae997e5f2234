#!/usr/bin/perl
# yamlcheck.pl — used by tests/fleet.t: parses the fleet manifests in
# docs/fleet/ (a YAML subset: block mappings and sequences, `- key: value`
# items, `|` block scalars, flow sequences, quoted scalars, comments, `---`
# documents; anything else is an error), checks their structure and prints
# their commands, one per line, as `KIND<TAB>COMMAND` (KIND: run, merge,
# dashboard, gate). With python3 and its yaml module present, the file is
# also parsed by it and the two parses must agree.
#   perl tests/yamlcheck.pl github|k8s FILE
# Exit 0 and the commands; 1 and `error: ...` on a parse or structure error.
use strict;
use warnings;

my ($what, $file) = @ARGV;
die "usage: yamlcheck.pl github|k8s FILE\n" unless $what && $file && $what =~ /^(github|k8s)$/;
open(my $fh, '<', $file) or fail("cannot read $file");
my @docs = ([]);
while (my $l = <$fh>) {
  chomp $l;
  fail("tab in indentation at line $.") if $l =~ /^\s*\t/;
  if ($l =~ /^---\s*$/) { push @docs, []; next; }
  push @{$docs[-1]}, [$., $l];
}
@docs = grep { grep { $_->[1] !~ /^\s*(#.*)?$/ } @$_ } @docs;

sub fail { print "error: $_[0]\n"; exit 1; }

# ---- the parser: lines of one document -> a tree of hashes, arrays and strings
my ($L, $i);
sub skip { $i++ while $i < @$L && $L->[$i][1] =~ /^\s*(#.*)?$/; }
sub ind { $L->[$_[0]][1] =~ /^( *)/; length $1 }
sub scalar_of {
  my ($s, $ln) = @_;
  $s =~ s/\s+#\s.*$// unless $s =~ /^["']/;
  $s =~ s/\s+$//;
  if ($s =~ /^\[(.*)\]$/) { return [map { scalar_of($_, $ln) } grep { length } split /\s*,\s*/, $1]; }
  return $1 if $s =~ /^"(.*)"$/ || $s =~ /^'(.*)'$/;
  fail("unsupported flow mapping at line $ln") if $s =~ /^\{/;
  return $s;
}
sub block_scalar {                              # after `key: |` at indentation $n
  my ($n) = @_;
  my @out;
  my $base;
  while ($i < @$L) {
    my $t = $L->[$i][1];
    if ($t =~ /^\s*$/) { push @out, ''; $i++; next; }
    my $d = ind($i);
    last if $d <= $n;
    $base //= $d;
    push @out, substr($t, $base);
    $i++;
  }
  pop @out while @out && $out[-1] eq '';
  return join("\n", @out) . "\n";
}
sub node {                                      # the block at indentation >= $n
  my ($n) = @_;
  skip();
  return undef if $i >= @$L;
  my $d = ind($i);
  return undef if $d < $n;
  return $L->[$i][1] =~ /^ *- / || $L->[$i][1] =~ /^ *-$/ ? seq($d) : map_($d);
}
sub value {                                     # what follows `key:` or `- ` on line $ln
  my ($rest, $n, $ln) = @_;
  return block_scalar($n) if $rest eq '|' || $rest eq '|-';
  return scalar_of($rest, $ln) if length $rest;
  skip();
  return undef if $i >= @$L;
  my $d = ind($i);
  return node($d) if $d > $n || ($d == $n && $L->[$i][1] =~ /^ *- /);
  return undef;
}
sub map_ {
  my ($n) = @_;
  my %h;
  while (1) {
    skip();
    last if $i >= @$L || ind($i) != $n || $L->[$i][1] =~ /^ *- /;
    my ($ln, $t) = @{$L->[$i]};
    $t =~ /^ *("[^"]*"|[^:#]+?):(?: +(.*))?$/ or fail("not a mapping entry at line $ln: $t");
    my ($k, $rest) = ($1, $2 // '');
    $k =~ s/^"(.*)"$/$1/;
    fail("duplicate key '$k' at line $ln") if exists $h{$k};
    $i++;
    $h{$k} = value($rest, $n, $ln);
  }
  return \%h;
}
sub seq {
  my ($n) = @_;
  my @a;
  while (1) {
    skip();
    last if $i >= @$L || ind($i) != $n || $L->[$i][1] !~ /^ *-( |$)/;
    my ($ln, $t) = @{$L->[$i]};
    $t =~ /^ *-(?: +(.*))?$/;
    my $rest = $1 // '';
    if ($rest =~ /^("[^"]*"|[^:#\["']+?):(?: +(.*))?$/) {   # `- key: value`: a mapping item
      $L->[$i][1] = (' ' x ($n + 2)) . $rest;
      push @a, map_($n + 2);
    } else {
      $i++;
      push @a, value($rest, $n, $ln);
    }
  }
  return \@a;
}
my @trees;
for my $d (@docs) {
  ($L, $i) = ($d, 0);
  my $t = node(0);
  skip();
  fail("unparsed text at line $L->[$i][0]: $L->[$i][1]") if $i < @$L;
  push @trees, $t;
}

# ---- cross-check with python3's yaml, when there is one
sub canon {
  my ($x) = @_;
  return 'null' unless defined $x;
  return '[' . join(',', map { canon($_) } @$x) . ']' if ref $x eq 'ARRAY';
  return '{' . join(',', map { "$_:" . canon($x->{$_}) } sort keys %$x) . '}' if ref $x eq 'HASH';
  (my $s = $x) =~ s/([\\\n,:\[\]{}])/sprintf('\\%02x', ord $1)/ge;
  return $s;
}
if (system('python3 -c "import yaml" > /dev/null 2>&1') == 0) {
  my $py = <<'PY';
import sys, yaml
def c(x):
    if x is None: return 'null'
    if x is True: return 'true'
    if x is False: return 'false'
    if isinstance(x, list): return '[' + ','.join(c(v) for v in x) + ']'
    if isinstance(x, dict):
        k = {('on' if key is True else str(key)): v for key, v in x.items()}
        return '{' + ','.join(key + ':' + c(k[key]) for key in sorted(k)) + '}'
    return ''.join('\\%02x' % ord(ch) if ch in '\\\n,:[]{}' else ch for ch in str(x))
for d in yaml.safe_load_all(open(sys.argv[1])):
    print(c(d))
PY
  require File::Temp;
  my ($tf, $tn) = File::Temp::tempfile(UNLINK => 1);
  print $tf $py;
  close $tf;
  open(my $ph, '-|', 'python3', $tn, $file) or fail("cannot run python3");
  my $out = do { local $/; <$ph> } // '';
  close $ph;
  fail("python3 yaml cannot parse $file") if $?;
  my $mine = join('', map { canon($_) . "\n" } @trees);
  fail("python3's yaml reads $file differently:\n$out---\n$mine") if $out ne $mine;
}

# ---- structure and commands
sub need { my ($c, $m) = @_; fail($m) unless $c; }
sub get {
  my ($t, @path) = @_;
  for my $p (@path) {
    return undef unless defined $t;
    $t = ref $t eq 'ARRAY' ? $t->[$p] : ref $t eq 'HASH' ? $t->{$p} : undef;
  }
  return $t;
}
sub lines_of { grep { /\S/ } map { s/^\s+|\s+$//gr } split /\n/, $_[0] // '' }
my @cmds;
sub out { my ($kind, $c) = @_; push @cmds, "$kind\t$c"; }
sub classify {
  my ($c) = @_;
  return 'run' if $c =~ /\bptofuzz run\b/;
  return 'merge' if $c =~ /\bptofuzz db merge\b/;
  return 'dashboard' if $c =~ /\bptofuzz dashboard\b/;
  return 'gate' if $c =~ /\bpto-check\b/;
  return 'other';
}

if ($what eq 'github') {
  need(@trees == 1, "one document");
  my $w = $trees[0];
  need(defined get($w, 'name'), "a name");
  my $on = get($w, 'on');
  my $cron = get($on, 'schedule', 0, 'cron');
  need(defined $cron && split(' ', $cron) == 5, "on.schedule[0].cron with 5 fields");
  my $shards = get($w, 'env', 'SHARDS');
  need(defined $shards && $shards =~ /^[1-9]\d*$/, "env.SHARDS, a count");
  my $m = get($w, 'jobs', 'fuzz', 'strategy', 'matrix', 'shard');
  need(ref $m eq 'ARRAY' && join(',', @$m) eq join(',', 0 .. $shards - 1), "matrix.shard is 0..SHARDS-1");
  need((get($w, 'jobs', 'fuzz', 'strategy', 'fail-fast') // '') eq 'false', "fail-fast: false");
  my @fr = map { lines_of($_->{run}) } grep { ref $_ eq 'HASH' && $_->{run} } @{get($w, 'jobs', 'fuzz', 'steps') // []};
  my @runs = grep { classify($_) eq 'run' } @fr;
  need(@runs == 1 && $runs[0] =~ m{--shard=\$\{\{ matrix\.shard \}\}/\$SHARDS\b} && $runs[0] =~ /--db=shard-\$\{\{ matrix\.shard \}\}\.db/,
       "the fuzz job runs ptofuzz run --shard=\${{ matrix.shard }}/\$SHARDS into shard-\${{ matrix.shard }}.db");
  my @up = grep { ref $_ eq 'HASH' && ($_->{uses} // '') =~ m{^actions/upload-artifact@} } @{get($w, 'jobs', 'fuzz', 'steps')};
  need(@up == 1 && (get($up[0], 'with', 'path') // '') =~ /^shard-\$\{\{ matrix\.shard \}\}\.db$/, "each shard uploads its database");
  need((get($w, 'jobs', 'merge', 'needs') // '') eq 'fuzz', "the merge job needs the fuzz job");
  my @ms = @{get($w, 'jobs', 'merge', 'steps') // []};
  my @dl = grep { ref $_ eq 'HASH' && ($_->{uses} // '') =~ m{^actions/download-artifact@} } @ms;
  need(@dl == 1 && (get($dl[0], 'with', 'pattern') // '') eq 'shard-*' && (get($dl[0], 'with', 'path') // '') eq 'shards', "the merge job downloads shard-* into shards/");
  my @mr = map { lines_of($_->{run}) } grep { ref $_ eq 'HASH' && $_->{run} } @ms;
  my %k;
  $k{classify($_)}++ for @mr;
  need($k{merge} && $k{dashboard} && $k{gate}, "the merge job merges, writes the dashboard and runs pto-check");
  my @art = grep { ref $_ eq 'HASH' && ($_->{uses} // '') =~ m{^actions/upload-artifact@} } @ms;
  need(@art == 1 && (get($art[0], 'with', 'path') // '') =~ /\bdashboard\b/ && (get($art[0], 'with', 'path') // '') =~ /\bnightly\.db\b/,
       "the dashboard and the merged database are uploaded");
  out('shards', $shards);
  out('matrix', join(' ', @$m));
  out('run', $runs[0]);
  out(classify($_), $_) for grep { classify($_) ne 'other' } @mr;
} else {
  need(@trees == 2, "two documents: the shard Job and the merge Job");
  my ($j, $mj) = @trees;
  need((get($j, 'apiVersion') // '') eq 'batch/v1' && (get($j, 'kind') // '') eq 'Job', "document 1 is a batch/v1 Job");
  need((get($j, 'spec', 'completionMode') // '') eq 'Indexed', "completionMode: Indexed");
  my $n = get($j, 'spec', 'completions');
  need(defined $n && $n =~ /^[1-9]\d*$/ && (get($j, 'spec', 'parallelism') // '') =~ /^[1-9]\d*$/, "completions and parallelism");
  need((get($j, 'spec', 'template', 'spec', 'restartPolicy') // '') eq 'Never', "restartPolicy: Never");
  my $c = get($j, 'spec', 'template', 'spec', 'containers', 0);
  my %env = map { $_->{name} => $_->{value} } @{get($c, 'env') // []};
  need(($env{SHARDS} // '') eq $n, "env SHARDS equals completions");
  need(join(' ', @{get($c, 'command') // []}) eq '/bin/sh -c', "the command is /bin/sh -c");
  my @runs = grep { classify($_) eq 'run' } lines_of(get($c, 'args', 0));
  need(@runs == 1 && $runs[0] =~ m{--shard=\$JOB_COMPLETION_INDEX/\$SHARDS\b} && $runs[0] =~ m{--db=/results/shard-\$JOB_COMPLETION_INDEX\.db},
       "the pod runs ptofuzz run --shard=\$JOB_COMPLETION_INDEX/\$SHARDS into /results/shard-\$JOB_COMPLETION_INDEX.db");
  need((get($c, 'volumeMounts', 0, 'mountPath') // '') eq '/results', "the results volume at /results");
  need((get($mj, 'kind') // '') eq 'Job' && !defined get($mj, 'spec', 'completionMode'), "document 2 is a plain Job");
  my $mc = get($mj, 'spec', 'template', 'spec', 'containers', 0);
  need((get($mc, 'volumeMounts', 0, 'mountPath') // '') eq '/results', "the merge Job mounts /results");
  my @mr = lines_of(get($mc, 'args', 0));
  my %k;
  $k{classify($_)}++ for @mr;
  need($k{merge} && $k{dashboard} && $k{gate}, "the merge Job merges, writes the dashboard and runs pto-check");
  out('shards', $n);
  out('matrix', join(' ', 0 .. $n - 1));
  out('env', "$_=$env{$_}") for sort grep { $_ ne 'SHARDS' } keys %env;
  out('run', $runs[0]);
  out(classify($_), $_) for grep { classify($_) ne 'other' } @mr;
}
print "$_\n" for @cmds;
