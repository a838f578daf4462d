<?php
// samples/blind-php: one worker of the shop (php-cli, PDO pgsql, one
// connection for its life, server-side prepared statements). Each request
// picks a code path (a PHP function below) and runs it in one transaction;
// what the client saw is written to OUT as JSON lines (the truth).
//
//   php worker.php HOST PORT STUB_PORT DURATION_S WORKER SEED OUT
//
// No application_name is set (the DSN has none, as most PHP apps): every
// connection logs app=[vide]... or an empty %a.
declare(strict_types=1);

[, $host, $port, $stubPort, $duration, $worker, $seed, $out] = $argv;
$worker = (int)$worker;
mt_srand((int)$seed);

function now_us(): int
{
    return (int)round(microtime(true) * 1e6);
}

function rnd_ms(int $lo, int $hi): int
{
    return mt_rand($lo, $hi);
}

// The recorder: one attempt (one transaction) at a time.
final class Rec
{
    public array $a = [];

    public function __construct(private $fh, public int $pid, public int $worker)
    {
    }

    public function line(array $rec): void
    {
        fwrite($this->fh, json_encode($rec, JSON_UNESCAPED_SLASHES) . "\n");
    }

    public function begin(string $path, int $try, array $args): void
    {
        $this->a = ['kind' => 'attempt', 'path' => $path, 'worker' => $this->worker, 'pid' => $this->pid,
            'try' => $try, 'args' => $args, 'start' => now_us(), 'stmts' => [], 'calls' => []];
    }

    // A statement through a prepared statement of its own (prepare +
    // execute, as the app's data layer does): $locks are the rows it is
    // meant to lock, [relation, key].
    public function q(PDO $pdo, string $sql, array $params, array $locks, bool $fetch = false): ?array
    {
        $st = ['sql' => $sql, 'params' => $params, 'locks' => $locks, 'call' => now_us()];
        try {
            $s = $pdo->prepare($sql);
            $s->execute($params);
            $rows = $fetch ? $s->fetchAll(PDO::FETCH_ASSOC) : null;
            $st['ret'] = now_us();
            $this->a['stmts'][] = $st;
            return $rows;
        } catch (PDOException $e) {
            $st['err'] = now_us();
            $st['sqlstate'] = (string)$e->getCode();
            $st['message'] = $e->getMessage();
            $this->a['stmts'][] = $st;
            throw $e;
        }
    }

    // A statement sent as a simple query (PDO::exec).
    public function exec(PDO $pdo, string $sql): void
    {
        $st = ['sql' => $sql, 'params' => [], 'locks' => [], 'call' => now_us(), 'simple' => true];
        $pdo->exec($sql);
        $st['ret'] = now_us();
        $this->a['stmts'][] = $st;
    }

    public function control(PDO $pdo, string $what): void
    {
        $st = ['sql' => $what, 'params' => [], 'locks' => [], 'call' => now_us()];
        if ($what === 'BEGIN') {
            $pdo->beginTransaction();
        } elseif ($what === 'COMMIT') {
            $pdo->commit();
        } else {
            $pdo->rollBack();
        }
        $st['ret'] = now_us();
        $this->a['stmts'][] = $st;
    }

    public function call(string $what, string $url, callable $fn)
    {
        $c = ['what' => $what, 'url' => $url, 'call' => now_us()];
        $r = $fn();
        $c['ret'] = now_us();
        $this->a['calls'][] = $c;
        return $r;
    }

    public function sleep(int $ms): void
    {
        $c = ['what' => 'usleep', 'ms' => $ms, 'call' => now_us()];
        usleep($ms * 1000);
        $c['ret'] = now_us();
        $this->a['calls'][] = $c;
    }

    public function end(string $outcome, ?string $sqlstate, bool $retried): void
    {
        $this->a['end'] = now_us();
        $this->a['outcome'] = $outcome;
        $this->a['sqlstate'] = $sqlstate;
        $this->a['retried'] = $retried;
        $this->line($this->a);
    }
}

// ---- the code paths (one PHP function each) ----

function place_order(Rec $r, PDO $pdo, array $a): void
{
    $r->q($pdo, 'SELECT id, stock, price FROM products WHERE id = ? FOR UPDATE', [$a['product']],
        [['products', $a['product']]], true);
    $r->sleep(rnd_ms(5, 20));
    $r->q($pdo, 'UPDATE products SET stock = stock - ? WHERE id = ?', [$a['qty'], $a['product']],
        [['products', $a['product']]]);
    // the AFTER INSERT trigger bumps order_totals id=1
    $r->q($pdo, 'INSERT INTO orders (product_id, qty, amount) VALUES (?, ?, ?)',
        [$a['product'], $a['qty'], $a['qty'] * 10.5], [['order_totals', 1]]);
    $r->sleep(rnd_ms(5, 15));
}

function hit_page(Rec $r, PDO $pdo, array $a): void
{
    $r->q($pdo, 'UPDATE pages SET hits = hits + 1 WHERE id = ?', [$a['page']], [['pages', $a['page']]]);
    $r->sleep(rnd_ms(10, 30));
}

function reserve_stock(Rec $r, PDO $pdo, array $a): void
{
    global $stubPort;
    $r->q($pdo, 'SELECT id, stock, reserved FROM warehouses WHERE id = ? FOR UPDATE', [$a['warehouse']],
        [['warehouses', $a['warehouse']]], true);
    // the slow pricing service, called with the warehouse row locked
    $url = "http://127.0.0.1:$stubPort/price?warehouse={$a['warehouse']}&ms={$a['stub_ms']}";
    $r->call('http', $url, fn() => file_get_contents($url));
    $r->q($pdo, 'UPDATE warehouses SET reserved = reserved + 1 WHERE id = ?', [$a['warehouse']],
        [['warehouses', $a['warehouse']]]);
}

function transfer(Rec $r, PDO $pdo, array $a): void
{
    // the two accounts locked in request order: deadlocks
    $r->q($pdo, 'SELECT id, balance FROM accounts WHERE id = ? FOR UPDATE', [$a['from']],
        [['accounts', $a['from']]], true);
    $r->sleep($a['think_ms']);
    $r->q($pdo, 'SELECT id, balance FROM accounts WHERE id = ? FOR UPDATE', [$a['to']],
        [['accounts', $a['to']]], true);
    $r->q($pdo, 'UPDATE accounts SET balance = balance - ? WHERE id = ?', [$a['amount'], $a['from']],
        [['accounts', $a['from']]]);
    $r->q($pdo, 'UPDATE accounts SET balance = balance + ? WHERE id = ?', [$a['amount'], $a['to']],
        [['accounts', $a['to']]]);
}

function restock(Rec $r, PDO $pdo, array $a): void
{
    $r->exec($pdo, "SET LOCAL lock_timeout = '150ms'");
    $r->q($pdo, 'UPDATE warehouses SET stock = stock + ? WHERE id = ?', [$a['qty'], $a['warehouse']],
        [['warehouses', $a['warehouse']]]);
}

// [function, weight %, tries, SQLSTATEs retried]
const PATHS = [
    ['place_order', 30, 1, []],
    ['hit_page', 25, 1, []],
    ['reserve_stock', 11, 1, []],
    ['transfer', 9, 2, ['40P01']],
    ['restock', 25, 3, ['55P03']],
];

function pick_path(): array
{
    $x = mt_rand(1, 100);
    foreach (PATHS as $p) {
        if (($x -= $p[1]) <= 0) {
            return $p;
        }
    }
    return PATHS[0];
}

function args_for(string $path): array
{
    switch ($path) {
        case 'place_order':
            return ['product' => mt_rand(1, 100) <= 50 ? 1 : mt_rand(2, 10), 'qty' => mt_rand(1, 3)];
        case 'hit_page':
            return ['page' => mt_rand(1, 100) <= 60 ? 1 : mt_rand(2, 20)];
        case 'reserve_stock':
            return ['warehouse' => mt_rand(1, 100) <= 50 ? 1 : mt_rand(2, 4), 'stub_ms' => mt_rand(200, 500)];
        case 'transfer':
            $from = mt_rand(1, 5);
            do {
                $to = mt_rand(1, 5);
            } while ($to === $from);
            return ['from' => $from, 'to' => $to, 'amount' => mt_rand(1, 50), 'think_ms' => mt_rand(30, 120)];
        default:
            return ['warehouse' => mt_rand(1, 100) <= 70 ? 1 : mt_rand(2, 4), 'qty' => mt_rand(1, 20)];
    }
}

$fh = fopen($out, 'w');
$pdo = new PDO("pgsql:host=$host;port=$port;dbname=shop", 'shop', null, [
    PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
    PDO::ATTR_EMULATE_PREPARES => false,
]);
// the backend pid and the clock offset (server minus client, from the
// round trip with the least time of 5)
$best = null;
for ($i = 0; $i < 5; $i++) {
    $t0 = now_us();
    $row = $pdo->query('SELECT pg_backend_pid() AS pid, extract(epoch FROM clock_timestamp()) AS t')
        ->fetch(PDO::FETCH_ASSOC);
    $t1 = now_us();
    $off = (int)round((float)$row['t'] * 1e6) - intdiv($t0 + $t1, 2);
    if ($best === null || $t1 - $t0 < $best[1]) {
        $best = [$off, $t1 - $t0];
    }
    $pid = (int)$row['pid'];
}
$r = new Rec($fh, $pid, $worker);
$r->line(['kind' => 'connection', 'worker' => $worker, 'pid' => $pid, 'offset_us' => $best[0],
    'rtt_us' => $best[1], 'php' => PHP_VERSION,
    'pdo_pgsql_client' => $pdo->getAttribute(PDO::ATTR_CLIENT_VERSION),
    'server' => $pdo->getAttribute(PDO::ATTR_SERVER_VERSION)]);

$stop = now_us() + (int)$duration * 1000000;
while (now_us() < $stop) {
    [$path, , $tries, $retryOn] = pick_path();
    $args = args_for($path);
    for ($try = 1; ; $try++) {
        $r->begin($path, $try, $args);
        try {
            $r->control($pdo, 'BEGIN');
            $path($r, $pdo, $args);
            $r->control($pdo, 'COMMIT');
            $r->end('commit', null, false);
            break;
        } catch (PDOException $e) {
            $state = (string)$e->getCode();
            if ($pdo->inTransaction()) {
                $r->control($pdo, 'ROLLBACK');
            }
            $retry = in_array($state, $retryOn, true) && $try < $tries;
            $r->end('rollback', $state, $retry);
            if (!$retry) {
                break;
            }
            usleep(mt_rand(50, 100) * 1000);
        }
    }
    usleep(mt_rand(20, 80) * 1000);    // the next request
}
$r->line(['kind' => 'done', 'worker' => $worker, 'pid' => $pid, 'at' => now_us()]);
