#!/usr/bin/perl
# samples/blind-pl/app/shop.pl: a shop back end on Perl DBI + DBD::Pg.
#   shop.pl HOST PORT DURATION_S WORKERS OUTDIR
# Forks WORKERS workers, each with one connection (AutoCommit off,
# RaiseError, DBD::Pg server-side prepares with placeholders) for
# DURATION_S seconds. Each worker writes OUTDIR/worker-N.jsonl: one line per
# transaction attempt with its code path (the Perl sub), every statement's
# client start/end (microseconds, client clock), the rows it locks, its
# outcome and SQLSTATE, and whether it was retried. worker-0 also writes the
# measured client-server clock offset (clock.json).
use strict;
use warnings;
use DBI;
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();

my ($host, $port, $duration, $workers, $out) = @ARGV;
die "usage: shop.pl HOST PORT DURATION_S WORKERS OUTDIR\n" unless $out;
my $json = JSON::PP->new->canonical;

sub now_us { return int(time() * 1_000_000) }

sub connect_db {
    my $dbh = DBI->connect("dbi:Pg:dbname=shop;host=$host;port=$port", 'postgres', '',
        { AutoCommit => 0, RaiseError => 1, PrintError => 0, pg_server_prepare => 1 });
    return $dbh;
}

# The measured offset: server clock minus client clock, from the round trip
# with the smallest delay of 50.
sub clock_offset {
    my ($dbh) = @_;
    my $sth = $dbh->prepare('SELECT extract(epoch FROM clock_timestamp())::numeric(20,6)');
    my ($best_rtt, $best_off);
    for (1 .. 50) {
        my $t0 = now_us();
        $sth->execute;
        my ($s) = $sth->fetchrow_array;
        my $t1 = now_us();
        my $rtt = $t1 - $t0;
        my $off = int($s * 1_000_000) - int(($t0 + $t1) / 2);
        ($best_rtt, $best_off) = ($rtt, $off) if !defined $best_rtt || $rtt < $best_rtt;
    }
    $dbh->rollback;
    return { offset_us => $best_off, rtt_us => $best_rtt };
}

# One statement, timed on the client; $lock = [relation, key] for the row
# it locks (FOR UPDATE, UPDATE), and the trigger's row for INSERT INTO orders.
sub run_stmt {
    my ($tx, $sth, $name, $lock, @args) = @_;
    my $st = { name => $name, start_us => now_us() };
    $st->{locks} = $lock if $lock;
    push @{ $tx->{stmts} }, $st;
    $sth->execute(@args);
    $sth->fetchall_arrayref if $sth->{NUM_OF_FIELDS};
    $st->{end_us} = now_us();
    return $st;
}

my %sth;

sub prep {
    my ($dbh) = @_;
    my %q = (
        wh_lock    => 'SELECT stock, reserved FROM warehouses WHERE id = ? FOR UPDATE',
        wh_upd     => 'UPDATE warehouses SET reserved = reserved + 1 WHERE id = ?',
        acc_lock   => 'SELECT balance FROM accounts WHERE id = ? FOR UPDATE',
        acc_upd    => 'UPDATE accounts SET balance = balance + ? WHERE id = ?',
        prod_lock  => 'SELECT price, stock FROM products WHERE id = ? FOR UPDATE',
        prod_upd   => 'UPDATE products SET stock = stock - ? WHERE id = ?',
        order_ins  => 'INSERT INTO orders (product_id, qty) VALUES (?, ?)',
        page_hit   => 'UPDATE pages SET hits = hits + 1 WHERE id = ?',
        rr         => 'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ',
        price_get  => 'SELECT price FROM products WHERE id = ?',
        price_set  => 'UPDATE products SET price = ? WHERE id = ?',
    );
    $sth{$_} = $dbh->prepare($q{$_}) for keys %q;
}

# reserve_stock: holds a warehouse row across a slow call (200-500 ms, 5 %
# 1100-1600 ms).
sub reserve_stock {
    my ($dbh, $tx) = @_;
    my $w = rand() < 0.9 ? 1 : 2 + int(rand(2));
    run_stmt($tx, $sth{wh_lock}, 'wh_lock', ['warehouses', "id=$w"], $w);
    # 200-500 ms; one call in 20 hits the service's slow tail, 1100-1600 ms
    my $ms = rand() < 0.05 ? 1100 + int(rand(501)) : 200 + int(rand(301));
    my $c0 = now_us();
    sleep($ms / 1000);    # the slow call (a pricing service), the row held
    push @{ $tx->{calls} }, { start_us => $c0, end_us => now_us() };
    run_stmt($tx, $sth{wh_upd}, 'wh_upd', ['warehouses', "id=$w"], $w);
}

# transfer: locks two accounts in request order (deadlocks), retried.
sub transfer {
    my ($dbh, $tx) = @_;
    my $a = 1 + int(rand(3));
    my $b = 1 + int(rand(3));
    $b = $b % 3 + 1 if $b == $a;
    my $amt = 1 + int(rand(50));
    run_stmt($tx, $sth{acc_lock}, 'acc_lock', ['accounts', "id=$a"], $a);
    sleep((50 + rand(100)) / 1000);
    run_stmt($tx, $sth{acc_lock}, 'acc_lock', ['accounts', "id=$b"], $b);
    run_stmt($tx, $sth{acc_upd}, 'acc_upd', ['accounts', "id=$a"], -$amt, $a);
    run_stmt($tx, $sth{acc_upd}, 'acc_upd', ['accounts', "id=$b"], $amt, $b);
}

# place_order: product row FOR UPDATE, stock update, INSERT INTO orders
# whose PL/pgSQL trigger bumps order_totals id=1.
sub place_order {
    my ($dbh, $tx) = @_;
    my $p = rand() < 0.5 ? 1 : 2 + int(rand(19));
    my $q = 1 + int(rand(3));
    run_stmt($tx, $sth{prod_lock}, 'prod_lock', ['products', "id=$p"], $p);
    sleep((5 + rand(15)) / 1000);
    run_stmt($tx, $sth{prod_upd}, 'prod_upd', ['products', "id=$p"], $q, $p);
    run_stmt($tx, $sth{order_ins}, 'order_ins', ['order_totals', 'id=1'], $p, $q);
    sleep((5 + rand(10)) / 1000);
}

# hit_page: a counter row, held 10-30 ms.
sub hit_page {
    my ($dbh, $tx) = @_;
    my $pg = rand() < 0.6 ? 1 : 2 + int(rand(9));
    run_stmt($tx, $sth{page_hit}, 'page_hit', ['pages', "id=$pg"], $pg);
    sleep((10 + rand(20)) / 1000);
}

# reprice: REPEATABLE READ read-then-update of products id=1..2 (40001), retried.
sub reprice {
    my ($dbh, $tx) = @_;
    my $p = rand() < 0.9 ? 1 : 2;
    run_stmt($tx, $sth{rr}, 'rr', undef);
    run_stmt($tx, $sth{price_get}, 'price_get', undef, $p);
    sleep((50 + rand(100)) / 1000);
    run_stmt($tx, $sth{price_set}, 'price_set', ['products', "id=$p"], 10 + int(rand(5)), $p);
}

my @paths = (
    [ 'place_order',   20, \&place_order ],
    [ 'hit_page',      15, \&hit_page ],
    [ 'reserve_stock', 30, \&reserve_stock ],
    [ 'transfer',      20, \&transfer ],
    [ 'reprice',       15, \&reprice ],
);

sub pick {
    my $r = rand(100);
    for my $p (@paths) { return $p if ($r -= $p->[1]) < 0 }
    return $paths[-1];
}

sub worker {
    my ($n, $t_end) = @_;
    srand(1000 + $n + $$);
    my $dbh = connect_db();
    my ($pid) = $dbh->selectrow_array('SELECT pg_backend_pid()');
    $dbh->rollback;
    if ($n == 0) {
        open my $c, '>', "$out/clock.json" or die;
        print $c $json->encode(clock_offset($dbh)), "\n";
        close $c;
    }
    prep($dbh);
    open my $fh, '>', "$out/worker-$n.jsonl" or die "$out/worker-$n.jsonl: $!";
    my $req = 0;
    while (time() < $t_end) {
        my $p = pick();
        $req++;
        for my $try (1 .. 5) {
            my $tx = { worker => $n, pid => $pid, path => $p->[0], request => "$n-$req", try => $try,
                       start_us => now_us(), stmts => [] };
            my $ok = eval { $p->[2]->($dbh, $tx); $dbh->commit; 1 };
            $tx->{end_us} = now_us();
            if ($ok) {
                $tx->{outcome} = 'commit';
            } else {
                my $state = $dbh->state // '';
                my $err = $dbh->errstr // "$@";
                eval { $dbh->rollback };
                $tx->{end_us} = now_us();
                $tx->{outcome} = 'error';
                $tx->{sqlstate} = $state;
                $tx->{error} = (split /\n/, $err)[0];
                # the statement that failed has no end
                my $last = $tx->{stmts}[-1];
                if ($last && !$last->{end_us}) { $last->{failed_us} = $tx->{end_us}; }
            }
            my $retry = !$ok && ($tx->{sqlstate} eq '40P01' || $tx->{sqlstate} eq '40001') && $try < 5;
            $tx->{retried} = $retry ? JSON::PP::true : JSON::PP::false;
            print $fh $json->encode($tx), "\n";
            last unless $retry;
            sleep((5 + rand(20)) / 1000);
        }
        sleep((20 + rand(60)) / 1000);
    }
    close $fh;
    $dbh->disconnect;
}

my $t_end = time() + $duration;
my @kids;
for my $n (0 .. $workers - 1) {
    my $k = fork();
    die "fork: $!" unless defined $k;
    if (!$k) { worker($n, $t_end); POSIX::_exit(0); }
    push @kids, $k;
}
my $bad = 0;
for my $k (@kids) { waitpid($k, 0); $bad++ if $? != 0; }
die "shop.pl: $bad workers failed\n" if $bad;
