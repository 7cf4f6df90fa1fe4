# The remote half of SshRuntime: the program the resident helper runs on the SSH host.
# remote-helper.ts says how it is started (sent on stdin to `perl -e BOOTSTRAP`, run by eval), the
# wire format and the invariants it keeps; this file is its only copy, imported as text when Cairn
# is built. Only modules of perl-base are used, so any host that runs sshd can run it.
# The placeholders below (a name between @ signs, single-quoted) are the client's own values,
# filled in by remote-helper.ts (fillInProgram), so the two sides cannot disagree; `perl -c`
# checks this file as it is and as it is sent (remote-helper.test.ts).
use strict;
use warnings;
no warnings 'recursion';
use Cwd ();
use Fcntl qw(O_RDONLY O_WRONLY O_CREAT O_EXCL O_NOFOLLOW O_NONBLOCK S_ISDIR S_ISREG S_ISLNK);
use POSIX ();
use IO::Handle;

binmode STDIN; binmode STDOUT;
STDOUT->autoflush(1);
my $PINNING = ($^O eq 'linux' && -d '/proc/self/fd') ? 1 : 0;
my $TEMP = '.cairn-tmp-';
my %anchors;
# The client refuses a helper whose version is not its own.
my $HELPER_VERSION = '@HELPER_VERSION@';
# A file changed less than this many seconds ago has no version yet (VERSION_SETTLE_MS).
my $VERSION_SETTLE_S = '@VERSION_SETTLE_S@';

package Fail { sub new { my ($c, $code, $errno, $size, @extra) = @_; return bless { code => $code, errno => $errno // '', size => $size // 0, extra => [@extra] }, $c } }
sub fail { die Fail->new(@_) }
sub errname { my $n = 0 + $!; my %m = (POSIX::ENOENT() => 'ENOENT', POSIX::EEXIST() => 'EEXIST', POSIX::ENOTDIR() => 'ENOTDIR', POSIX::EISDIR() => 'EISDIR', POSIX::EINVAL() => 'EINVAL', POSIX::ENOTEMPTY() => 'ENOTEMPTY', POSIX::EACCES() => 'EACCES', POSIX::EPERM() => 'EPERM', POSIX::ENOSPC() => 'ENOSPC', POSIX::ELOOP() => 'ELOOP', POSIX::EROFS() => 'EROFS', POSIX::EDQUOT() => 'EDQUOT', POSIX::EIO() => 'EIO'); return $m{$n} // "E$n" }
sub os_fail { my $e = errname(); if ($e eq 'ENOENT') { fail('ENOENT') } if ($e eq 'EEXIST' || $e eq 'ENOTEMPTY') { fail('EEXIST') } if ($e eq 'ENOTDIR') { fail('ENOTDIR') } if ($e eq 'EISDIR') { fail('EISDIR') } if ($e eq 'EINVAL') { fail('EINVAL') } fail('IO', $e) }

# Paths may hold newlines: every path pattern anchors with \A and \z (never ^ and $, which match
# around a newline) and lets . match one (/s).
sub inside { my ($c, $p) = @_; return 1 if $c eq $p; my $pre = $p =~ m{/\z} ? $p : "$p/"; return substr($c, 0, length $pre) eq $pre }
sub join_path { my ($base, @segs) = @_; my $p = $base; for my $s (@segs) { $p = $p eq '/' ? "/$s" : "$p/$s" } return $p }
sub dirname_of { my ($p) = @_; return '/' if $p !~ m{/[^/]*\z} || $p =~ m{\A/[^/]*\z}; (my $d = $p) =~ s{/[^/]*\z}{}; return $d }
sub basename_of { my ($p) = @_; (my $b = $p) =~ s{\A.*/}{}s; return $b }

# Realpath of the deepest existing ancestor of $target (itself included) and the missing rest.
sub deepest {
  my ($target, $stop) = @_;
  my @missing; my $cur = $target;
  while (1) {
    if (stat $cur) {
      my $real = Cwd::abs_path($cur);
      return ($real, @missing) if defined $real;
      os_fail();
    }
    my $e = errname();
    fail('ENOTDIR') if $e eq 'ENOTDIR';
    os_fail() if $e ne 'ENOENT';
    my $parent = dirname_of($cur);
    fail('ENOENT') if $cur eq $stop || $parent eq $cur;
    unshift @missing, basename_of($cur);
    $cur = $parent;
  }
}

sub mkdirs { my ($base, @missing) = @_; my $p = $base; for my $m (@missing) { $p = join_path($p, $m); mkdir($p, 0700) or ($! == POSIX::EEXIST() && -d $p) or os_fail() } }

sub anchor_real {
  my ($anchor, $create) = @_;
  return $anchors{$anchor} if exists $anchors{$anchor};
  my $real = (stat $anchor) ? Cwd::abs_path($anchor) : undef;
  if (!defined $real && $create) { my ($r, @m) = deepest($anchor, '/'); mkdirs($r, @m); $real = Cwd::abs_path($anchor) }
  $anchors{$anchor} = $real if defined $real;
  return $real;
}

# isGitDir of src/common/memory/paths.ts.
sub is_git { my ($n) = @_; return $n =~ /\A\.git[. ]*\z/i }
sub unsafe { my ($kind, $where) = @_; fail('UNSAFE_ROOT', $kind, 0, $where) }
# ESCAPE unless $real lies inside $rr, and neither it (below $rr) nor @missing passes through .git.
sub contained {
  my ($real, $rr, @missing) = @_;
  fail('ESCAPE') unless inside($real, $rr);
  my $rest = length($real) > length($rr) ? substr($real, length($rr) + ($rr =~ m{/\z} ? 0 : 1)) : '';
  fail('ESCAPE') if grep { is_git($_) } (split(m{/}, $rest), @missing);
}

# ownership.ts's rule for the remote user: a directory memory comes from belongs to them or root;
# one memory is kept in (private) is moreover writable by nobody else, a group only when it is the
# user's own private group (named as they are, their primary group, no other member). Dies
# UNSAFE_ROOT 'owner' (with the uid and the owner's name) or 'writable' from the stat buffer _.
sub private_group {
  my ($gid) = @_;
  my ($egid) = split / /, $);
  return 0 unless $gid == $egid;
  my @gr = getgrgid($gid);
  return 1 unless @gr;
  my $me = getpwuid($>);
  return 0 unless defined $me && $gr[0] eq $me;
  return !grep { $_ ne '' && $_ ne $me } split(/ /, $gr[3] // '');
}
sub check_own {
  my ($where, $private) = @_;
  my ($mode, $uid, $gid) = (stat _)[2, 4, 5];
  if ($uid != $> && $uid != 0) { my $name = getpwuid($uid); fail('UNSAFE_ROOT', 'owner', $uid, $where, defined $name ? $name : "uid $uid") }
  return unless $private;
  unsafe('writable', $where) if ($mode & 0002) || (($mode & 0020) && !private_group($gid));
}

# The root's real path: the anchor's, with the root's own components below it, each a real
# directory (a link there, which a repository can commit, could lead memory into .git or out of
# the checkout) of the user's own (check_own). undef when missing and !$create; UNSAFE_ROOT with
# the kind and the component.
sub root_real {
  my ($root, $anchor, $create) = @_;
  my $a = anchor_real($anchor, $create);
  return undef unless defined $a;
  stat $a or os_fail();
  check_own('.', 0);
  my $pre = $anchor =~ m{/\z} ? $anchor : "$anchor/";
  unsafe('base', '.') unless length($root) > length($pre) && substr($root, 0, length $pre) eq $pre;
  my @parts = split m{/}, substr($root, length $pre);
  unsafe('base', '.') if !@parts || grep { $_ eq '' || $_ eq '.' || $_ eq '..' } @parts;
  for my $i (0 .. $#parts) { unsafe('git', join('/', @parts[0 .. $i])) if is_git($parts[$i]) }
  my $cur = $a;
  for my $i (0 .. $#parts) {
    $cur = join_path($cur, $parts[$i]);
    my $where = join('/', @parts[0 .. $i]);
    if (!lstat $cur) {
      os_fail() unless $! == POSIX::ENOENT();
      return undef unless $create;
      mkdir($cur, 0700) or $! == POSIX::EEXIST() or os_fail();
      lstat $cur or os_fail();
    }
    unsafe('symlink', $where) if -l _;
    unsafe('notdir', $where) unless -d _;
    check_own($where, 1);
  }
  my $real = Cwd::abs_path($cur);
  unsafe('symlink', join('/', @parts)) unless defined $real && $real eq $cur;
  return $cur;
}

sub target {
  my ($rootreal, $rel, $follow) = @_;
  my @rel = split m{/}, $rel, -1; @rel = () if $rel eq '';
  return $rootreal unless @rel;
  my $full = join_path($rootreal, @rel);
  my $start = $follow ? $full : dirname_of($full);
  my ($r, @m) = deepest($start, $rootreal);
  contained($r, $rootreal, @m, $follow ? () : ($rel[-1]));
  my $resolved = join_path($r, @m);
  return $follow ? $resolved : join_path($resolved, $rel[-1]);
}

sub ensure_dir {
  my ($rootreal, @rel) = @_;
  my ($r, @m) = deepest(join_path($rootreal, @rel), $rootreal);
  contained($r, $rootreal, @m);
  if (@m) { eval { mkdirs($r, @m) }; if (my $err = $@) { fail('ENOTDIR') if ref $err && $err->{code} eq 'EEXIST'; die $err } }
  my $real = Cwd::abs_path(join_path($r, @m));
  fail('ESCAPE') unless defined $real;
  contained($real, $rootreal);
  return $real;
}

# Runs $fn with the directory $rel (created when $create) pinned: a path that cannot be redirected.
sub with_dir {
  my ($rootreal, $relsegs, $create, $fn) = @_;
  my $dir = $create ? ensure_dir($rootreal, @$relsegs) : do { my $t = target($rootreal, join('/', @$relsegs), 1); $t };
  if (!$create) { lstat $dir or os_fail(); fail('ENOTDIR') unless -d _ }
  return $fn->($dir) unless $PINNING;
  opendir(my $dh, $dir) or os_fail();
  my $fd = fileno($dh);
  return $fn->($dir) unless defined $fd;
  my $pinned = "/proc/self/fd/$fd";
  my $now = readlink $pinned;
  fail('ESCAPE') unless defined $now;
  contained($now, $rootreal);
  my @r = $fn->($pinned);
  closedir $dh;
  return @r;
}

sub type_of { my ($mode) = @_; return S_ISREG($mode) ? 'file' : S_ISDIR($mode) ? 'directory' : S_ISLNK($mode) ? 'symlink' : 'other' }
# Sub-second mtimes where Time::HiRes exists (full perl), else whole seconds (perl-base only).
my $HIRES = eval { require Time::HiRes; 1 } ? 1 : 0;
sub mtime_ms { my @st = @_; return sprintf('%.0f', $st[9] * 1000) }
sub mtime_of { my ($what, $follow, @st) = @_; if ($HIRES) { my @h = $follow ? Time::HiRes::stat($what) : Time::HiRes::lstat($what); return sprintf('%.3f', $h[9] * 1000) if @h } return mtime_ms(@st) }

my $CTL = qr/[\x{0000}-\x{001f}\x{007f}-\x{009f}\x{200b}-\x{200f}\x{2028}-\x{202e}\x{2060}-\x{2064}\x{2066}-\x{2069}\x{feff}]/;
sub listed_name {
  my ($name) = @_;
  return 0 if $name =~ /^\./ || $name eq 'node_modules' || length($name) > 255 || length($name) == 0;
  return 1 if $name =~ /\A[A-Za-z0-9_][A-Za-z0-9._ -]{0,254}\z/ && index($name, '.cairn') != 0;
  my $u = $name;
  return 0 unless utf8::decode($u);
  return 0 if $u =~ $CTL || $u =~ /[~\\<>"\/]/ || $u =~ /%(2e|2f|5c)/i;
  return 1;
}

sub read_limited {
  my ($fh, $max) = @_;
  my $buf = ''; my $n;
  while (($n = sysread($fh, $buf, 65536, length $buf))) { fail('TOO_LARGE', '', length $buf) if length($buf) > $max }
  os_fail() unless defined $n;
  return $buf;
}

sub open_resolved {
  my ($path) = @_;
  my $fh;
  sysopen($fh, $path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) and return $fh;
  my $e = errname();
  fail('ESCAPE') if $e eq 'ELOOP';
  os_fail();
}

sub remove_tree {
  my ($p) = @_;
  lstat $p or os_fail();
  if (-d _) {
    opendir(my $dh, $p) or os_fail();
    my @names = grep { $_ ne '.' && $_ ne '..' } readdir $dh;
    closedir $dh;
    remove_tree("$p/$_") for @names;
    rmdir $p or os_fail();
  } else { unlink $p or os_fail() }
}

my %ops;
$ops{hello} = sub { return ('2') };
$ops{stat} = sub {
  my ($root, $anchor, $rel, $follow) = @_;
  my @st = eval {
    my $rr = root_real($root, $anchor, 0);
    return () unless defined $rr;
    my $t = target($rr, $rel, $follow); my @s = lstat($t); @s ? (@s, $t) : ();
  };
  if (my $err = $@) { die $err unless ref $err && ($err->{code} eq 'ENOENT' || $err->{code} eq 'ENOTDIR'); return ('none') }
  return ('none') unless @st;
  my $t = pop @st;
  return ('some', type_of($st[2]), $st[7], mtime_of($t, 0, @st));
};
# A directory read as a file (a view reads first) answers EISDIR with the directory's stat and
# listing (depth and limit as the client asked), which the client's next stat and list take, so
# a view of a directory costs one round trip too.
$ops{read} = sub {
  my ($root, $anchor, $rel, $max, $pdepth, $plimit) = @_;
  my $rr = root_real($root, $anchor, 0); fail('ENOENT') unless defined $rr;
  my $t = target($rr, $rel, 1);
  # A folder that may not be opened is one Cairn cannot read, not a failed read of a file.
  my $fh = eval { open_resolved($t) };
  if (my $err = $@) { die $err unless ref $err && $err->{code} eq 'IO' && ($err->{errno} eq 'EACCES' || $err->{errno} eq 'EPERM') && -d $t; fail('UNREADABLE', $err->{errno}) }
  my @st = stat $fh;
  if (S_ISDIR($st[2])) {
    my @extra;
    if (defined $plimit && $plimit ne '') { @extra = ('some', 'directory', $st[7], mtime_of($t, 1, @st), $ops{list}->($root, $anchor, $rel, $pdepth, $plimit, '0', '0')) }
    fail('EISDIR', '', 0, @extra);
  }
  fail('NOT_FILE') unless S_ISREG($st[2]);
  # A hard link shares its content with a name elsewhere, perhaps outside every root.
  fail('NOT_FILE', 'EMLINK') if $st[3] > 1;
  fail('TOO_LARGE', '', $st[7]) if $st[7] > $max;
  my $data = read_limited($fh, $max);
  return ($data, length $data, mtime_of($fh, 1, @st));
};
$ops{heads} = sub {
  my ($root, $anchor, $bytes, @rels) = @_;
  my $rr = root_real($root, $anchor, 0);
  my @out;
  for my $rel (@rels) {
    my $data = defined $rr ? eval {
      my $fh = open_resolved(target($rr, $rel, 1));
      my @st = stat $fh;
      fail('NOT_FILE') unless @st && S_ISREG($st[2]) && $st[3] <= 1;
      my $b = ''; my $n; while (length($b) < $bytes && ($n = sysread($fh, $b, $bytes - length $b, length $b))) {}
      defined $n ? $b : undef;
    } : undef;
    push @out, defined $data ? ('1', $data) : ('0', '');
  }
  return @out;
};
# A new temp file in $dir (pinned) holding $data, fsynced and closed, mode 0600 or $mode when
# given; the temps a crash left there are removed first. Nothing is left when this fails.
sub write_temp {
  my ($dir, $data, $mode) = @_;
  if (opendir(my $dh, $dir)) { for my $n (readdir $dh) { unlink "$dir/$n" if index($n, $TEMP) == 0 } closedir $dh }
  my $temp = "$dir/$TEMP$$-" . join('', map { sprintf '%02x', int rand 256 } 1 .. 6);
  sysopen(my $fh, $temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or os_fail();
  my $ok = eval {
    my $off = 0;
    while ($off < length $data) { my $w = syswrite($fh, $data, length($data) - $off, $off); os_fail() unless defined $w; $off += $w }
    $fh->sync or os_fail();
    if (defined $mode) { chmod($mode & 07777, $fh) or os_fail() }
    close $fh or os_fail();
    1;
  };
  if (!$ok) { my $err = $@; unlink $temp; die $err }
  return $temp;
}
# Renames $temp over $t, both in $dir; without pinning, only while $dir is still where it was
# (else ESCAPE). The temp is removed when this fails.
sub rename_temp {
  my ($temp, $dir, $t) = @_;
  if (!$PINNING) { my $now = Cwd::abs_path($dir); if (!defined $now || $now ne $dir) { unlink $temp; fail('ESCAPE') } }
  if (!rename($temp, $t)) { my $e = $!; unlink $temp; $! = $e; os_fail() }
}
$ops{write} = sub {
  my ($root, $anchor, $rel, $exclusive, $data) = @_;
  my @rel = split m{/}, $rel; my $name = pop @rel;
  fail('EISDIR') unless defined $name;
  my $rr = root_real($root, $anchor, 1);
  with_dir($rr, \@rel, 1, sub {
    my ($dir) = @_;
    my $t = "$dir/$name";
    if (lstat $t) { fail('EEXIST') if $exclusive eq '1'; fail('EISDIR') if -d _ }
    rename_temp(write_temp($dir, $data), $dir, $t);
    return ();
  });
  return ();
};
# A create with the scope's file cap checked in the same request: 'full' (nothing written) when the
# scope already holds $limit files, EEXIST when something is at the path anyway.
$ops{create} = sub {
  my ($root, $anchor, $rel, $limit, $data) = @_;
  my ($count) = $ops{count}->($root, $anchor, $limit);
  if ($count >= $limit) {
    my $rr = root_real($root, $anchor, 0);
    my $probe = defined $rr ? eval { target($rr, $rel, 0) } : undef;
    fail('EEXIST') if defined $probe && lstat $probe;
    return ('full');
  }
  $ops{write}->($root, $anchor, $rel, '1', $data);
  return ('created');
};
# A write based on content the client already has: written only while the file still holds exactly
# those bytes; otherwise 'changed' and the current bytes, for the client to apply its change to.
$ops{cwrite} = sub {
  my ($root, $anchor, $rel, $max, $expected, $data) = @_;
  my ($current) = $ops{read}->($root, $anchor, $rel, $max);
  return ('changed', $current) unless $current eq $expected;
  $ops{write}->($root, $anchor, $rel, '0', $data);
  return ('ok');
};
# Listings: every entry as [rel, type, size, mtime, version, has, head]. A directory below whose
# entries cannot be read (opendir, or an lstat of a name in it, refused) has type 'unreadable' and
# the OS code in place of a version (the client's ListedEntry.unreadable), in a files-only listing
# too when $withunreadable; the listed directory itself unreadable fails UNREADABLE (never an
# empty listing). A file's version (device,
# inode, size, mtime, ctime) is empty while its last change is too recent to tell from the next
# (the client's ListedEntry.version). Heads are sent for files when asked (the index's listing, one
# trip): 'has' is '1' with the head, or '=' with none when this helper already sent this file's
# head at this very version on this connection (the client keeps what it was sent), '0' for no head.
my %sent;
$ops{list} = sub {
  my ($root, $anchor, $rel, $depth, $limit, $filesonly, $heads, $withunreadable) = @_;
  my $rr = root_real($root, $anchor, 0);
  return ($rel eq '' ? 'some' : 'none') unless defined $rr;
  my $dir = eval { my $d = target($rr, $rel, 1); stat $d or os_fail(); fail('ENOTDIR') unless -d _; $d };
  if (my $err = $@) { die $err unless ref $err && $err->{code} eq 'ENOENT'; return ($rel eq '' ? 'some' : 'none') }
  my $now = $HIRES ? Time::HiRes::time() : time();
  my @out; my $count = 0;
  # Lists $host into @out: the OS code when it (or a name in it) could not be read, else undef.
  my $walk; $walk = sub {
    my ($host, $prefix, $level) = @_;
    my $dh;
    if (!opendir($dh, $host)) { my $e = errname(); return ($e eq 'ENOENT' || $e eq 'ENOTDIR') ? undef : $e }
    my @names = sort grep { $_ ne '.' && $_ ne '..' } readdir $dh;
    closedir $dh;
    my $refused;
    for my $name (@names) {
      return $refused if $count >= $limit;
      next unless listed_name($name);
      my $hp = "$host/$name";
      # A folder that may be read but not searched (r--) names its entries and hides them.
      my @st = lstat $hp;
      if (!@st) { my $e = errname(); $refused //= $e if $e ne 'ENOENT'; next }
      my $linked = 0;
      if (S_ISLNK($st[2])) { my $real = Cwd::abs_path($hp); next unless defined $real && (stat $hp) && eval { contained($real, $rr); 1 }; @st = stat $hp or next; $linked = 1 }
      my $er = $prefix eq '' ? $name : "$prefix/$name";
      if (S_ISDIR($st[2])) {
        my $at;
        if ($filesonly ne '1') { $at = scalar @out; push @out, $er, 'directory', $st[7], mtime_of($hp, 1, @st), '', '0', ''; $count++ }
        # Never through a linked directory: a link to its own parent would list the same files over
        # and over; they are listed where they really are.
        my $code = ($level < $depth && !$linked) ? $walk->($hp, $er, $level + 1) : undef;
        if (defined $code) {
          if (defined $at) { @out[$at + 1, $at + 4] = ('unreadable', $code) }
          elsif (($withunreadable // '0') eq '1' && $count < $limit) { push @out, $er, 'unreadable', $st[7], mtime_of($hp, 1, @st), $code, '0', ''; $count++ }
        }
      } elsif (S_ISREG($st[2])) {
        my $mtime = mtime_of($hp, 1, @st);
        my @h = $HIRES ? Time::HiRes::stat($hp) : ();
        my $ctime = @h ? $h[10] : $st[10];
        my $version = $now - $ctime < $VERSION_SETTLE_S ? '' : join(':', $st[0], $st[1], $st[7], $mtime, $ctime);
        my ($has, $head) = ('0', '');
        if ($heads > 0) {
          my $key = "$root\0$heads\0$er";
          if ($version ne '' && defined $sent{$key} && $sent{$key} eq $version) { $has = '=' }
          else {
            $has = '1';
            if ($st[3] <= 1 && sysopen(my $fh, $hp, O_RDONLY | O_NONBLOCK)) { my $n; while (length($head) < $heads && ($n = sysread($fh, $head, $heads - length $head, length $head))) {} close $fh }
            if ($version ne '') { $sent{$key} = $version } else { delete $sent{$key} }
          }
        }
        push @out, $er, 'file', $st[7], $mtime, $version, $has, $head; $count++;
      }
    }
    return $refused;
  };
  my $code = $walk->($dir, '', 1);
  undef $walk;
  fail('UNREADABLE', $code) if defined $code;
  return ('some', @out);
};
$ops{count} = sub {
  my ($root, $anchor, $limit) = @_;
  my $rr = root_real($root, $anchor, 0);
  return ('0') unless defined $rr;
  my $count = 0;
  my $walk; $walk = sub {
    my ($d) = @_;
    opendir(my $dh, $d) or return;
    for my $n (readdir $dh) {
      return if $count >= $limit;
      next if $n eq '.' || $n eq '..' || index($n, $TEMP) == 0;
      lstat "$d/$n" or next;
      if (-f _) { $count++ } elsif (-d _) { $walk->("$d/$n") }
    }
    closedir $dh;
  };
  $walk->($rr);
  undef $walk;
  return ($count);
};
# The files at $p (a file, or a directory walked without following links, listed names only),
# pushed on @$out as [rel, '1', bytes] or [rel, '0', ''] when not read whole (over $max bytes, a hard
# link): what a remove takes away or a rename moves, for the client's version history. A folder
# in it that cannot be read fails IO with its code: the history could not record what the change
# takes away, so the change is refused (as LocalRuntime's captureFiles).
sub capture_tree {
  my ($p, $rel, $max, $out) = @_;
  my @st = lstat $p or return;
  if (S_ISREG($st[2])) {
    my $data;
    if ($st[3] <= 1 && $st[7] <= $max && sysopen(my $fh, $p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) {
      my $b = ''; my $n;
      while (($n = sysread($fh, $b, 65536, length $b))) { last if length($b) > $max }
      close $fh;
      $data = $b if defined $n && length($b) <= $max;
    }
    push @$out, $rel, defined $data ? ('1', $data) : ('0', '');
    return;
  }
  return unless S_ISDIR($st[2]);
  my $dh;
  if (!opendir($dh, $p)) { my $e = errname(); return if $e eq 'ENOENT'; fail('IO', $e) }
  my @names = sort grep { $_ ne '.' && $_ ne '..' } readdir $dh;
  closedir $dh;
  for my $n (@names) {
    next unless listed_name($n);
    if (!lstat "$p/$n") { my $e = errname(); next if $e eq 'ENOENT'; fail('IO', $e) }
    capture_tree("$p/$n", "$rel/$n", $max, $out);
  }
}
$ops{rename} = sub {
  my ($root, $anchor, $from, $to, $capture) = @_;
  my $rr = root_real($root, $anchor, 0); fail('ENOENT') unless defined $rr;
  my @from = split m{/}, $from; my @to = split m{/}, $to;
  my $probe = eval { target($rr, $to, 0) };
  if (my $err = $@) { die $err unless ref $err && ($err->{code} eq 'ENOENT' || $err->{code} eq 'ENOTDIR') }
  fail('EEXIST') if defined $probe && lstat $probe;
  my $fname = pop @from; my $tname = pop @to;
  return with_dir($rr, \@from, 0, sub {
    my ($sd) = @_;
    lstat "$sd/$fname" or os_fail();
    my @full = (@from, $fname); my @tfull = (@to, $tname);
    if (@full <= @tfull) { my $prefix = 1; for my $i (0 .. $#full) { $prefix = 0 if $full[$i] ne $tfull[$i] } fail('EINVAL') if $prefix }
    return with_dir($rr, \@to, 1, sub {
      my ($dd) = @_;
      fail('EEXIST') if lstat "$dd/$tname";
      my @moved;
      capture_tree("$sd/$fname", $from, $capture, \@moved) if defined $capture && $capture ne '';
      rename("$sd/$fname", "$dd/$tname") or os_fail();
      return @moved;
    });
  });
};
# The files a remove of $rel would take away, or a rename to $to (when given) would move, read as
# capture_tree does, changing nothing: the client records them before it asks for the change. The
# errors come in the rename's order: an existing destination, then a missing source.
$ops{capture} = sub {
  my ($root, $anchor, $rel, $capture, $to) = @_;
  my $rr = root_real($root, $anchor, 0);
  fail('ENOENT') unless defined $rr && $rel ne '';
  if (defined $to && $to ne '') {
    my $probe = eval { target($rr, $to, 0) };
    if (my $err = $@) { die $err unless ref $err && ($err->{code} eq 'ENOENT' || $err->{code} eq 'ENOTDIR') }
    fail('EEXIST') if defined $probe && lstat $probe;
  }
  my @rel = split m{/}, $rel; my $name = pop @rel;
  return with_dir($rr, \@rel, 0, sub {
    my ($d) = @_;
    lstat "$d/$name" or os_fail();
    my @taken;
    capture_tree("$d/$name", $rel, $capture, \@taken);
    return @taken;
  });
};
$ops{remove} = sub {
  my ($root, $anchor, $rel, $capture) = @_;
  my $rr = root_real($root, $anchor, 0);
  fail('ENOENT') unless defined $rr && $rel ne '';
  my @rel = split m{/}, $rel; my $name = pop @rel;
  return with_dir($rr, \@rel, 0, sub {
    my ($d) = @_;
    my @taken;
    capture_tree("$d/$name", $rel, $capture, \@taken) if defined $capture && $capture ne '';
    remove_tree("$d/$name");
    return @taken;
  });
};
$ops{mkdir} = sub {
  my ($root, $anchor, $rel) = @_;
  ensure_dir(root_real($root, $anchor, 1), split(m{/}, $rel));
  return ();
};
# LocalRuntime.removeEmptyDirs: rmdir the directory, then its ancestors, while each is empty
# (rmdir refuses anything else); never the root.
$ops{rmdirs} = sub {
  my ($root, $anchor, $rel) = @_;
  my $rr = root_real($root, $anchor, 0);
  return () unless defined $rr && $rel ne '';
  my @rel = split m{/}, $rel;
  while (@rel) {
    my $name = pop @rel;
    my ($ok) = eval { with_dir($rr, [@rel], 0, sub { my ($d) = @_; return rmdir("$d/$name") ? (1) : (0) }) };
    last unless $ok;
  }
  return ();
};
# The cross-process lock beside the root, the same lock file LocalRuntime takes (<root>.lock,
# created exclusively, fresh by its mtime), so a Cairn on the remote host and one over SSH exclude
# each other. A lock directory left by an older Cairn excludes the same way and is removed like a
# file when stale. Never waits: the client retries, so other requests on this channel are not held up.
sub take_lock { my ($lock) = @_; sysopen(my $fh, $lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600) or return 0; close $fh; return 1 }
# Whether what is at the lock's path is no lock Cairn made (a link, a directory with files, a
# fifo): it would never go stale and go away, so the writer is told at once.
sub foreign_lock { my ($lock) = @_; lstat $lock or return 0; return 0 if -f _; if (-d _) { opendir(my $dh, $lock) or return 1; my @n = grep { $_ ne '.' && $_ ne '..' } readdir $dh; closedir $dh; return @n ? 1 : 0 } return 1 }
sub drop_lock { my ($lock) = @_; unlink($lock) or rmdir($lock) }
$ops{lock} = sub {
  my ($root, $anchor, $stale_ms) = @_;
  root_real($root, $anchor, 1);
  my $lock = "$root.lock";
  return ('ok') if take_lock($lock);
  os_fail() unless $! == POSIX::EEXIST();
  if (foreign_lock($lock)) { my $pre = $anchor =~ m{/\z} ? $anchor : "$anchor/"; unsafe('lock', substr($lock, 0, length $pre) eq $pre ? substr($lock, length $pre) : '.lock') }
  my @st = stat $lock;
  if (@st && (time() - $st[9]) * 1000 > $stale_ms) { drop_lock($lock); return ('ok') if take_lock($lock) }
  fail('BUSY');
};
# Takes the lock and, only once it is held, runs another operation: a write's first request then
# costs no extra round trip for the lock. BUSY means the lock was not taken and nothing ran.
$ops{locked} = sub {
  my ($root, $anchor, $stale_ms, $op, @args) = @_;
  $ops{lock}->($root, $anchor, $stale_ms);
  my $f = $ops{$op} or fail('IO', 'EBADOP');
  return $f->(@args);
};
$ops{touch} = sub { my ($root) = @_; my $t = time(); utime($t, $t, "$root.lock"); return () };
$ops{unlock} = sub { my ($root) = @_; drop_lock("$root.lock"); return () };
# What a checkout is: a directory, its realpath, the git root above it, and the repository facts
# a project id is derived from (origin URL, root commits).
$ops{probe} = sub {
  my ($path) = @_;
  stat $path or return ('missing');
  return ('notdir') unless -d _;
  my $real = Cwd::abs_path($path);
  my $cur = $real; my $git;
  while (1) { if (lstat "$cur/.git") { $git = $cur; last } my $p = dirname_of($cur); last if $p eq $cur; $cur = $p }
  return ('dir', $real, '', '', '') unless defined $git;
  my $gd = "$git/.git";
  if (-f $gd && open(my $fh, '<', $gd)) { my $line = <$fh> // ''; close $fh; if ($line =~ /^gitdir:\s*(.+?)\s*$/) { my $p = $1; $p = "$git/$p" unless $p =~ m{^/}; $gd = $p; if (open(my $c, '<', "$gd/commondir")) { my $cd = <$c> // ''; close $c; $cd =~ s/\s+$//; $gd = $cd =~ m{^/} ? $cd : "$gd/$cd" if $cd ne '' } } }
  my $config = '';
  if (open(my $fh, '<', "$gd/config")) { local $/; $config = <$fh> // ''; close $fh }
  my $roots = '';
  my $pid = open(my $gh, '-|');
  if (defined $pid && $pid == 0) { open(STDERR, '>', '/dev/null'); exec('git', '-C', $git, 'rev-list', '--max-parents=0', 'HEAD'); exit 127 }
  if (defined $pid) { local $/; $roots = <$gh> // ''; close $gh }
  return ('dir', $real, $git, $config, $roots);
};

# ---- Other agents' files in the workspace's checkout (src/main/agent-files) ----
# The checkout is no memory root: its files are reached only through these ops, which take the
# workspace's path and resolve the checkout's own containment root here (af_root: the git root
# above the path's realpath, else that realpath, as the client's findGitRoot does). Every file is
# then checked against that root (af_place): its realpath (links resolved) inside it and out of
# .git, a regular file with one link, within the cap, opened O_NOFOLLOW | O_NONBLOCK and, where
# /proc is, still at that realpath on its descriptor. States are words the client turns into the
# same reasons as locally (envelope.ts); bytes travel only for a file that passed.
my $HAS_SHA = eval { require Digest::SHA; 1 } ? 1 : 0;
# SHA-256 in plain Perl (FIPS 180-4), for hosts whose perl has no Digest::SHA (perl-base only).
sub sha256_pp {
  my ($msg) = @_;
  my @k = (0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2);
  my @h = (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
  my $len = length $msg;
  $msg .= "\x80" . ("\0" x ((55 - $len) % 64)) . pack('NN', int($len / 0x20000000), ($len * 8) & 0xffffffff);
  my $M = 0xffffffff;
  for (my $off = 0; $off < length $msg; $off += 64) {
    my @w = unpack('N16', substr($msg, $off, 64));
    for my $i (16 .. 63) {
      my ($x, $y) = ($w[$i - 15], $w[$i - 2]);
      my $s0 = ((($x >> 7) | ($x << 25)) ^ (($x >> 18) | ($x << 14)) ^ ($x >> 3)) & $M;
      my $s1 = ((($y >> 17) | ($y << 15)) ^ (($y >> 19) | ($y << 13)) ^ ($y >> 10)) & $M;
      $w[$i] = ($w[$i - 16] + $s0 + $w[$i - 7] + $s1) & $M;
    }
    my ($a, $b, $c, $d, $e, $f, $g, $hh) = @h;
    for my $i (0 .. 63) {
      my $S1 = ((($e >> 6) | ($e << 26)) ^ (($e >> 11) | ($e << 21)) ^ (($e >> 25) | ($e << 7))) & $M;
      my $ch = (($e & $f) ^ ((~$e & $M) & $g));
      my $t1 = ($hh + $S1 + $ch + $k[$i] + $w[$i]) & $M;
      my $S0 = ((($a >> 2) | ($a << 30)) ^ (($a >> 13) | ($a << 19)) ^ (($a >> 22) | ($a << 10))) & $M;
      my $maj = (($a & $b) ^ ($a & $c) ^ ($b & $c));
      my $t2 = ($S0 + $maj) & $M;
      ($hh, $g, $f, $e, $d, $c, $b, $a) = ($g, $f, $e, ($d + $t1) & $M, $c, $b, $a, ($t1 + $t2) & $M);
    }
    my @v = ($a, $b, $c, $d, $e, $f, $g, $hh);
    $h[$_] = ($h[$_] + $v[$_]) & $M for 0 .. 7;
  }
  return join('', map { sprintf '%08x', $_ } @h);
}
sub sha256_hex { my ($data) = @_; return $HAS_SHA ? Digest::SHA::sha256_hex($data) : sha256_pp($data) }

# The checkout's containment root for the workspace path $path: undef when it is not a folder.
sub af_root {
  my ($path) = @_;
  stat $path or return undef;
  return undef unless -d _;
  my $real = Cwd::abs_path($path);
  return undef unless defined $real;
  my $cur = $real;
  while (1) { return $cur if lstat "$cur/.git"; my $p = dirname_of($cur); last if $p eq $cur; $cur = $p }
  return $real;
}
# Where a realpath lies for the checkout root $root: inside, outside, or in a .git there.
sub af_place {
  my ($real, $root) = @_;
  return 'outside' unless inside($real, $root);
  my $rest = length($real) > length($root) ? substr($real, length($root) + ($root =~ m{/\z} ? 0 : 1)) : '';
  return (grep { is_git($_) } split(m{/}, $rest)) ? 'git' : 'inside';
}
# Strict UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF), as the
# client's fatal TextDecoder.
sub af_utf8 {
  my ($s) = @_;
  pos($s) = 0;
  while (pos($s) < length $s) {
    $s =~ /\G(?:[\x00-\x7f]+|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2})/gc or return 0;
  }
  return 1;
}
# A name a walk may take (a first cut of the client's isSafeName, which checks every name again).
sub af_name {
  my ($name) = @_;
  return 0 if $name eq '.' || $name eq '..' || $name eq '' || length($name) > 255 || index($name, '.cairn') == 0 || is_git($name);
  return 1 if $name =~ /\A[A-Za-z0-9_][A-Za-z0-9._ -]{0,254}\z/;
  my $u = $name;
  return 0 unless utf8::decode($u);
  return 0 if $u =~ $CTL || $u =~ /[~\\<>"\/]/ || $u =~ /%(2e|2f|5c)/i;
  return 1;
}
# What is at $rel (segments joined by /) below the root: () when nothing is (or a link leads
# nowhere), else (state, size, mtime, mode, bytes, realpath); the realpath stays on this host.
# Where a link on the way of the file leads ('' when none is): relative to the checkout inside
# it, else the host's path (shown to a person only, as locally).
sub af_link_to {
  my ($root, $full, $real) = @_;
  return '' if $real eq $full;
  return $real if af_place($real, $root) eq 'outside';
  return substr($real, length($root) + ($root =~ m{/\z} ? 0 : 1));
}
sub af_inspect {
  my ($root, $rel, $max) = @_;
  my $full = join_path($root, split m{/}, $rel);
  my @l = lstat $full or return ();
  stat $full or return ();
  my $real = Cwd::abs_path($full);
  return () unless defined $real;
  my $link = af_link_to($root, $full, $real);
  my $placed = af_place($real, $root);
  return ($placed, 0, mtime_of($full, 0, @l), 0, '', '', $link) if $placed ne 'inside';
  my @st = stat $real or return ();
  return ('dir', 0, mtime_of($real, 1, @st), 0, '', '', $link) if S_ISDIR($st[2]);
  return ('special', 0, mtime_of($real, 1, @st), 0, '', '', $link) unless S_ISREG($st[2]);
  return ('links', $st[7], mtime_of($real, 1, @st), 0, '', '', $link) if $st[3] > 1;
  return ('large', $st[7], mtime_of($real, 1, @st), 0, '', '', $link) if $st[7] > $max;
  my ($state, @read) = af_read_checked($real, $max, 1);
  return ($state, $st[7], mtime_of($real, 1, @st), 0, '', '', $link) if $state ne 'file';
  my ($data, @f) = @read;
  my $mtime = mtime_of($real, 1, @f);
  return ('utf8', $f[7], $mtime, 0, '', '', $link) unless af_utf8($data);
  return ('nul', $f[7], $mtime, 0, '', '', $link) if index($data, "\0") >= 0;
  return ('file', $f[7], $mtime, $f[2] & 07777, $data, $real, $link);
}
# Opens a resolved path without following a final link or blocking, and checks the descriptor:
# ('file', bytes, fstat...) or a state (loop, open:ERRNO, special, links, large, over, moved).
sub af_read_checked {
  my ($real, $max, $check_place) = @_;
  my $fh;
  if (!sysopen($fh, $real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) { my $e = errname(); return ($e eq 'ELOOP' ? 'loop' : "open:$e") }
  my @f = stat $fh;
  return ('special') unless @f && S_ISREG($f[2]);
  return ('links') if $f[3] > 1;
  return ('large') if $f[7] > $max;
  if ($check_place && $PINNING) { my $now = readlink('/proc/self/fd/' . fileno($fh)); return ('moved') unless defined $now && $now eq $real }
  my $buf = ''; my $n;
  while (($n = sysread($fh, $buf, 65536, length $buf))) { return ('over') if length($buf) > $max }
  return ('open:' . errname()) unless defined $n;
  close $fh;
  return ('file', $buf, @f);
}
# The digest of the regular file at $t now (not following a link): '' when none is there.
sub af_digest {
  my ($t, $max) = @_;
  lstat $t or return '';
  return 'not-a-file' unless -f _;
  my ($state, $data) = af_read_checked($t, $max, 0);
  return $state eq 'file' ? sha256_hex($data) : 'unreadable';
}
sub af_root_or_fail { my ($path) = @_; my $root = af_root($path); fail('ENOENT') unless defined $root; return $root }
# The known files of the checkout in one request: for each pattern [dir, exact|suffix, name,
# recursive], what is there, as [pattern index, rel, state, size, mtime, mode, bytes] each. A
# suffix pattern walks real directories below its folder only (a linked folder there is not
# entered), never .git, at most $depth levels and $cap files (the first by name, byte order).
$ops{afiles} = sub {
  my ($path, $max, $depth, $cap, @pats) = @_;
  my $root = af_root_or_fail($path);
  my @out;
  for (my $i = 0; $i * 4 < @pats; $i++) {
    my ($dir, $kind, $name, $rec) = @pats[$i * 4 .. $i * 4 + 3];
    my @dir = $dir eq '' ? () : split m{/}, $dir;
    my @rels;
    if ($kind eq 'exact') { @rels = (join('/', @dir, $name)) }
    else {
      my $start = Cwd::abs_path(join_path($root, @dir));
      next unless defined $start && af_place($start, $root) eq 'inside' && -d $start;
      my $visit; $visit = sub {
        my ($real, $rel, $level) = @_;
        opendir(my $dh, $real) or return;
        my @names = sort grep { af_name($_) } readdir $dh;
        closedir $dh;
        for my $n (@names) {
          return if @rels >= $cap;
          my @s = lstat "$real/$n" or next;
          if (S_ISDIR($s[2])) { $visit->("$real/$n", "$rel/$n", $level + 1) if $rec eq '1' && $level + 1 < $depth }
          elsif (length($n) > length($name) && substr($n, -length($name)) eq $name) { push @rels, "$rel/$n" }
        }
      };
      $visit->($start, join('/', @dir), 0);
      undef $visit;
      s{\A/}{} for @rels;
    }
    for my $rel (@rels) { my @r = af_inspect($root, $rel, $max); push @out, $i, $rel, @r[0 .. 4], $r[6] if @r }
  }
  return @out;
};
# One known file: 'none', or 'some' and [state, size, mtime, mode, bytes].
$ops{afile} = sub {
  my ($path, $max, $rel) = @_;
  my @r = af_inspect(af_root_or_fail($path), $rel, $max);
  return @r ? ('some', @r[0 .. 4], $r[6]) : ('none');
};
# A conflict-safe save of one known file: written only if its digest is $expected ('' : no file
# may be there), checked first and again right before the rename; atomic (a temp file in the same
# directory, fsynced, its mode set, renamed over the name); missing folders made 0700 inside the
# checkout. Never through a link: 'linked' when the name or a folder on its way is one. Answers [outcome, 'some', state,
# size, mtime, mode, bytes] (or [outcome, 'none']): the file before the save for 'ok' and
# 'unreadable' and 'conflict', the file now for 'meanwhile' (changed between the two looks). An
# existing file keeps its mode; $mode is a new file's.
$ops{afwrite} = sub {
  my ($path, $max, $rel, $expected, $mode, $data) = @_;
  my $root = af_root_or_fail($path);
  my @cur = af_inspect($root, $rel, $max);
  my @before = @cur ? ('some', @cur[0 .. 4]) : ('none');
  return ('unreadable', @before) if @cur && $cur[0] ne 'file';
  my $walk = $root;
  # A link leading out of the checkout or into .git, or nowhere, is refused below, saying so.
  for my $seg (split m{/}, $rel) {
    $walk = join_path($walk, $seg);
    next unless lstat($walk) && -l _;
    my $to = -e $walk ? Cwd::abs_path($walk) : undef;
    return ('linked', @before) if defined $to && af_place($to, $root) eq 'inside';
    last;
  }
  my $now = @cur ? sha256_hex($cur[4]) : '';
  return ('conflict', @before) if $now ne $expected;
  my $target = @cur ? $cur[5] : join_path($root, split m{/}, $rel);
  my @segs = split m{/}, substr($target, length($root) + ($root =~ m{/\z} ? 0 : 1));
  my $name = pop @segs;
  my $meanwhile = sub { my @n = af_inspect($root, $rel, $max); return ('meanwhile', @n ? ('some', @n[0 .. 4]) : ('none')) };
  my @res = with_dir($root, \@segs, 1, sub {
    my ($dir) = @_;
    my $t = "$dir/$name";
    if (lstat $t) { return ('meanwhile') if $expected eq ''; fail('EISDIR') if -d _ }
    my $temp = write_temp($dir, $data, @cur ? $cur[3] : 0 + $mode);
    # The last look: the file must still be what the save was based on.
    if (af_digest($t, $max) ne $expected) { unlink $temp; return ('meanwhile') }
    rename_temp($temp, $dir, $t);
    return ('ok');
  });
  return $meanwhile->() if $res[0] eq 'meanwhile';
  return ('ok', @before);
};

sub read_exact { my ($n) = @_; my $buf = ''; while (length($buf) < $n) { my $r = read(STDIN, $buf, $n - length($buf), length($buf)); return undef unless $r } return $buf }
sub send_fields { my $payload = join '', map { pack('N', length $_) . $_ } @_; print STDOUT pack('N', length $payload), $payload }

send_fields('ready', $HELPER_VERSION);
while (1) {
  my $h = read_exact(4); last unless defined $h;
  my $payload = read_exact(unpack 'N', $h); last unless defined $payload;
  my @fields; my $off = 0;
  while ($off < length $payload) { my $len = unpack 'N', substr($payload, $off, 4); push @fields, substr($payload, $off + 4, $len); $off += 4 + $len }
  my $op = shift @fields // '';
  my @res = eval { my $f = $ops{$op} or fail('IO', 'EBADOP'); ('ok', $f->(@fields)) };
  if (my $err = $@) {
    if (ref $err eq 'Fail') { @res = ($err->{code}, $err->{errno}, $err->{size}, @{ $err->{extra} }) }
    else { print STDERR "cairn helper: $err"; @res = ('IO', 'EHELPER', 0) }
  }
  send_fields(@res);
}
exit 0;
