#!/usr/bin/perl
# nss_wrapper.pl: add and delete users, groups and group members in the
# passwd and group files that nss_wrapper reads (NSS_WRAPPER_PASSWD,
# NSS_WRAPPER_GROUP): the script test suites name as their "add user
# script" and friends. See nss_wrapper(1), section NSS_WRAPPER.PL.
#
#   --path FILE --type passwd|group --action add|delete|addmember|delmember
#       --name NAME [--member MEMBER] [--passwd_path FILE]
# and Samba's selftest convention:
#   --type passwd --action add|delete --name NAME [--gid GID] --passwd_path FILE
#   --type group  --action add|delete --name NAME --group_path FILE
#   --type member --action add|delete --name GROUP --member USER
#                 --group_path FILE [--passwd_path FILE]
#
# A new user or group gets the lowest id from 1000 up that its file does
# not use, unless --uid (a user) or --gid (a group) gives it; a new user's
# primary group is --gid, else 65534. The file is locked (flock) while it
# is changed and replaced by rename(2): a reader sees the old file or the
# new one, and concurrent calls lose nothing. Exit 0, or 1 with one line
# on stderr. Perl's base modules only.
use strict;
use warnings;
use Fcntl qw(:flock);
use Getopt::Long qw(GetOptionsFromArray);

my $ME = 'nss_wrapper.pl';
my $USAGE =
    "usage: $ME --path FILE --type passwd|group --action "
  . "add|delete|addmember|delmember --name NAME [--member MEMBER] "
  . "[--passwd_path FILE] [--uid UID] [--gid GID]";

sub fail { print STDERR "$ME: $_[0]\n"; exit 1; }

sub options {
	my %o;
	my @warnings;
	local $SIG{__WARN__} = sub { push(@warnings, $_[0]); };
	my $ok = GetOptionsFromArray(\@ARGV, \%o, 'path=s', 'type=s',
		'action=s', 'name=s', 'member=s', 'passwd_path=s',
		'group_path=s', 'uid=s', 'gid=s', 'help');
	if (!$ok) {
		my $w = $warnings[0] // "bad options\n";
		chomp($w);
		fail("$w ($USAGE)");
	}
	@ARGV and fail("unexpected argument '$ARGV[0]' ($USAGE)");
	if ($o{help}) {
		print "$USAGE\n";
		exit 0;
	}
	return %o;
}

# The file a call changes: --path, or Samba's --passwd_path/--group_path.
sub file_of {
	my ($o, $kind) = @_;
	my $own = $o->{"${kind}_path"};
	my $path = $o->{path};
	if (defined $path && defined $own && $path ne $own) {
		fail("--path $path and --${kind}_path $own name different files");
	}
	$path //= $own;
	defined $path or fail("--type $o->{type} needs --path or --${kind}_path");
	return $path;
}

# A name or member that the file format can hold.
sub check_name {
	my ($what, $v) = @_;
	fail("$what is missing ($USAGE)") unless defined $v;
	fail("$what '$v' is empty or holds ':', ',' or a line end")
	    if $v eq '' || $v =~ /[:,\n]/;
}

sub check_id {
	my ($what, $v) = @_;
	return undef unless defined $v;
	$v =~ /^[0-9]{1,10}$/ && $v < 4294967295
	    or fail("$what '$v' is not an id (0 to 4294967294)");
	return $v + 0;
}

# Read FILE under an exclusive lock: a handle that holds the lock on the
# file that the path names now (a writer may have renamed a new one over
# it while we waited), and its lines.
sub lock_and_read {
	my ($path) = @_;
	for (1 .. 100) {
		open(my $fh, '<', $path) or fail("$path: $!");
		flock($fh, LOCK_EX) or fail("$path: cannot lock: $!");
		my @held = stat($fh);
		my @now = stat($path);
		if (@now && $held[0] == $now[0] && $held[1] == $now[1]) {
			my @lines = <$fh>;
			chomp(@lines);
			return ($fh, \@lines, $held[2] & 07777);
		}
		close($fh);
	}
	fail("$path: replaced again and again while waiting for its lock");
}

# Write the lines to a new file beside FILE, with its mode, and rename it
# over FILE (the lock is still held).
sub replace {
	my ($path, $lines, $mode) = @_;
	my $tmp = "$path.$$.tmp";
	open(my $out, '>', $tmp) or fail("$tmp: $!");
	my $ok = print $out map { "$_\n" } @$lines;
	$ok = close($out) && $ok;
	$ok && chmod($mode, $tmp) && rename($tmp, $path) and return;
	my $err = "$!";
	unlink($tmp);
	fail("$path: cannot write its new version: $err");
}

sub field { my @f = split(/:/, $_[0], -1); return $f[$_[1]]; }

sub index_of {
	my ($lines, $name) = @_;
	for my $i (0 .. $#$lines) {
		my $n = field($lines->[$i], 0);
		return $i if defined $n && $n eq $name;
	}
	return undef;
}

sub new_id {
	my ($lines, $given, $path) = @_;
	my %used = map { (field($_, 2) // '') => 1 } @$lines;
	if (defined $given) {
		$used{$given} and fail("id $given is already used in $path");
		return $given;
	}
	my $id = 1000;
	$id++ while $used{$id};
	return $id;
}

sub user_exists {
	my ($path, $user) = @_;
	open(my $fh, '<', $path) or fail("$path: $!");
	my @lines = <$fh>;
	chomp(@lines);
	return defined index_of(\@lines, $user);
}

my %o = options();
my ($type, $action, $name) = @o{qw(type action name)};
defined $type or fail("--type is missing ($USAGE)");
defined $action or fail("--action is missing ($USAGE)");
$type =~ /^(passwd|group|member)$/
    or fail("--type '$type' is not passwd, group or member");
$action =~ /^(add|delete|addmember|delmember)$/
    or fail("--action '$action' is not add, delete, addmember or delmember");
check_name('--name', $name);

# Samba's --type member --action add|delete is --type group's
# addmember|delmember.
if ($type eq 'member') {
	$type = 'group';
	$action = $action =~ /add/ ? 'addmember' : 'delmember';
}
if ($type eq 'passwd' && $action =~ /member/) {
	fail("--action $action needs --type group (members are a group's)");
}
my $uid = check_id('--uid', $o{uid});
my $gid = check_id('--gid', $o{gid});
$type eq 'passwd' || !defined $uid or fail("--uid is for --type passwd");
$action eq 'add' || (!defined $uid && !defined $gid)
    or fail("--uid and --gid are for --action add");
my $path = file_of(\%o, $type);
if ($action =~ /member/) {
	check_name('--member', $o{member});
	if ($action eq 'addmember' && defined $o{passwd_path}
	    && $o{passwd_path} ne $path) {
		user_exists($o{passwd_path}, $o{member})
		    or fail("no user $o{member} in $o{passwd_path}");
	}
} elsif (defined $o{member}) {
	fail("--member is for --action addmember or delmember");
}

my ($lock, $lines, $mode) = lock_and_read($path);
my $idx = index_of($lines, $name);

if ($action eq 'add') {
	defined $idx and fail("$name is already in $path");
	if ($type eq 'passwd') {
		my $id = new_id($lines, $uid, $path);
		my $g = $gid // 65534;
		push(@$lines, "$name:x:$id:$g:$name gecos:/nonexistent:/bin/false");
	} else {
		my $id = new_id($lines, $gid, $path);
		push(@$lines, "$name:x:$id:");
	}
} elsif ($action eq 'delete') {
	defined $idx or fail("no $type entry $name in $path");
	splice(@$lines, $idx, 1);
} else {
	defined $idx or fail("no group $name in $path");
	my @f = split(/:/, $lines->[$idx], -1);
	@f >= 3 or fail("$path: the line of group $name is not name:x:gid:members");
	my @m = grep { $_ ne '' } split(/,/, $f[3] // '');
	my $has = grep { $_ eq $o{member} } @m;
	if ($action eq 'addmember') {
		$has and fail("$o{member} is already a member of $name in $path");
		push(@m, $o{member});
	} else {
		$has or fail("$o{member} is not a member of $name in $path");
		@m = grep { $_ ne $o{member} } @m;
	}
	$f[3] = join(',', @m);
	$lines->[$idx] = join(':', @f);
}
replace($path, $lines, $mode);
close($lock);
exit 0;
