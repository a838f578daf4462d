// samples/blind-java: a small shop back end written as a Java team writes one
// without an ORM: plain JDBC (PgJDBC from Debian), a fixed-size connection
// pool of its own (as HikariCP: threads borrow a connection per attempt and
// give it back), autocommit off, PreparedStatements (PgJDBC turns a statement
// used 5 times on a connection into a named server-side one, S_n). Every
// connection has the same application_name, as a pool sets it. No traces.
//
// The application records what it did on its own clock (truth.jsonl): per
// transaction its code path (the Java method), the connection's backend pid,
// each statement's call and return, each row lock it took (the locking
// statement's call and return) and released (COMMIT/ROLLBACK call and
// return), its sleeps, outcome, SQLSTATE and retries; and min-RTT clock
// probes against the server at start and end.
//
//   java -cp postgresql.jar:. Shop JDBC_URL DURATION_S THREADS POOL SEED TRUTH_OUT
import java.io.FileWriter;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;

public final class Shop {
    static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }

    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    // ---- the pool ----------------------------------------------------------
    static final class PooledConn {
        final Connection c;
        final int pid;

        PooledConn(Connection c, int pid) {
            this.c = c;
            this.pid = pid;
        }
    }

    static final class Pool {
        final ArrayBlockingQueue<PooledConn> free;
        final List<PooledConn> all = new ArrayList<>();

        Pool(String url, Properties props, int size) throws SQLException {
            free = new ArrayBlockingQueue<>(size);
            for (int i = 0; i < size; i++) {
                Connection c = DriverManager.getConnection(url, props);
                c.setAutoCommit(false);
                int pid;
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    pid = rs.getInt(1);
                }
                c.commit();
                PooledConn pc = new PooledConn(c, pid);
                all.add(pc);
                free.add(pc);
            }
        }

        PooledConn borrow() throws InterruptedException {
            return free.take();
        }

        void giveBack(PooledConn pc) {
            free.add(pc);
        }

        void close() {
            for (PooledConn pc : all) {
                try {
                    pc.c.close();
                } catch (SQLException e) {
                    // closing at the end: nothing to do
                }
            }
        }
    }

    // ---- one transaction's record -------------------------------------------
    static final class Tx {
        final String path, request, thread;
        final int attempt, pid;
        final long poolWaitUs;
        long start, end;
        String outcome = "commit", sqlstate, isolation = "read committed";
        final List<String> stmts = new ArrayList<>(), locks = new ArrayList<>(),
                sleeps = new ArrayList<>();
        final List<long[]> lockTimes = new ArrayList<>();
        final List<String> lockKeys = new ArrayList<>();

        Tx(String path, String request, int attempt, String thread, int pid, long poolWaitUs) {
            this.path = path;
            this.request = request;
            this.attempt = attempt;
            this.thread = thread;
            this.pid = pid;
            this.poolWaitUs = poolWaitUs;
        }

        void lock(String rel, int row, long call, long ret, String via) {
            lockKeys.add(rel + ":" + row + ":" + via);
            lockTimes.add(new long[] {call, ret});
        }

        String json(long endCall) {
            StringBuilder b = new StringBuilder("{");
            b.append("\"path\":").append(q(path)).append(",\"request\":").append(q(request))
                    .append(",\"attempt\":").append(attempt).append(",\"thread\":").append(q(thread))
                    .append(",\"pid\":").append(pid).append(",\"pool_wait_us\":").append(poolWaitUs)
                    .append(",\"isolation\":").append(q(isolation))
                    .append(",\"start\":").append(start).append(",\"end_call\":").append(endCall)
                    .append(",\"end\":").append(end).append(",\"outcome\":").append(q(outcome))
                    .append(",\"sqlstate\":").append(q(sqlstate)).append(",\"statements\":[")
                    .append(String.join(",", stmts)).append("],\"locks\":[");
            for (int i = 0; i < lockKeys.size(); i++) {
                String[] k = lockKeys.get(i).split(":");
                if (i > 0) b.append(',');
                b.append("{\"relation\":").append(q(k[0])).append(",\"row\":").append(k[1])
                        .append(",\"via\":").append(q(k[2])).append(",\"stmt_call\":")
                        .append(lockTimes.get(i)[0]).append(",\"acquired\":").append(lockTimes.get(i)[1])
                        .append(",\"released_lo\":").append(endCall).append(",\"released\":").append(end)
                        .append('}');
            }
            return b.append("],\"sleeps\":[").append(String.join(",", sleeps)).append("]}").toString();
        }
    }

    static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        final String sqlstate;

        Failed(String sqlstate, String msg) {
            super(msg);
            this.sqlstate = sqlstate;
        }
    }

    final Pool pool;
    final PrintWriter out;
    final long deadline;

    Shop(Pool pool, PrintWriter out, long deadline) {
        this.pool = pool;
        this.out = out;
        this.deadline = deadline;
    }

    synchronized void write(String line) {
        out.println(line);
    }

    // Runs one statement and records it: label, the row it targets, call,
    // return, rows affected, SQLSTATE. Returns the rows affected (or 1 if a
    // query returned a row).
    static int run(Tx tx, Connection c, String label, String rel, int row, String sql, Object... args)
            throws Failed, SQLException {
        long call = now();
        int n;
        String state = null;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) ps.setObject(i + 1, args[i]);
            if (ps.execute()) {
                try (ResultSet rs = ps.getResultSet()) {
                    n = rs.next() ? 1 : 0;
                }
            } else {
                n = ps.getUpdateCount();
            }
        } catch (SQLException e) {
            state = e.getSQLState();
            long ret = now();
            tx.stmts.add(stmtJson(label, rel, row, call, ret, -1, state));
            throw new Failed(state, e.getMessage());
        }
        long ret = now();
        tx.stmts.add(stmtJson(label, rel, row, call, ret, n, null));
        if (rel != null && n > 0) tx.lock(rel, row, call, ret, label);
        return n;
    }

    static String stmtJson(String label, String rel, int row, long call, long ret, int n, String state) {
        return "{\"label\":" + q(label) + ",\"relation\":" + q(rel) + ",\"row\":" + (rel == null ? "null" : row)
                + ",\"call\":" + call + ",\"ret\":" + ret + ",\"rows\":" + n + ",\"sqlstate\":" + q(state) + "}";
    }

    static void sleep(Tx tx, String what, int ms) throws InterruptedException {
        long a = now();
        Thread.sleep(ms);
        tx.sleeps.add("{\"what\":" + q(what) + ",\"start\":" + a + ",\"end\":" + now() + "}");
    }

    interface Body {
        void run(Tx tx, Connection c) throws Failed, SQLException, InterruptedException;
    }

    // One attempt: borrow a connection, run the body, COMMIT (ROLLBACK on a
    // failure), give the connection back, write the record. Returns the
    // SQLSTATE of the failure (null on commit).
    String attempt(String path, String request, int attempt, Body body, boolean repeatableRead)
            throws InterruptedException, SQLException {
        long w0 = now();
        PooledConn pc = pool.borrow();
        Tx tx = new Tx(path, request, attempt, Thread.currentThread().getName(), pc.pid, now() - w0);
        Connection c = pc.c;
        String failed = null;
        long endCall;
        try {
            if (repeatableRead) {
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                tx.isolation = "repeatable read";
            }
            tx.start = now();
            try {
                body.run(tx, c);
                endCall = now();
                try {
                    c.commit();
                } catch (SQLException e) {
                    tx.end = now();
                    tx.outcome = "commit_failed";
                    tx.sqlstate = failed = e.getSQLState();
                    write(tx.json(endCall));
                    return failed;
                }
                tx.end = now();
            } catch (Failed f) {
                endCall = now();
                c.rollback();
                tx.end = now();
                tx.outcome = "rollback";
                tx.sqlstate = failed = f.sqlstate;
            } catch (OptimisticLock o) {
                endCall = now();
                c.rollback();
                tx.end = now();
                tx.outcome = "optimistic_conflict";
                failed = "optimistic";
            }
            write(tx.json(endCall));
        } finally {
            if (repeatableRead) c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            pool.giveBack(pc);
        }
        return failed;
    }

    static final class OptimisticLock extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OptimisticLock() {
            super("row version changed", null, false, false);
        }
    }

    // ---- the code paths ----------------------------------------------------

    // An order: read the product (and its @Version), decrement its stock
    // where the version is unchanged (else the JPA-style OptimisticLock, and
    // the request is retried), insert the order (its AFTER trigger bumps the
    // merchant's order_totals row 1) and its lines in one JDBC batch.
    void placeOrder(Random r, String req) throws InterruptedException, SQLException {
        int product = r.nextInt(100) < 55 ? 1 : 2 + r.nextInt(19);
        int qty = 1 + r.nextInt(3);
        for (int attempt = 1; attempt <= 3; attempt++) {
            String st = attempt(
                    "placeOrder", req, attempt,
                    (tx, c) -> {
                        int version;
                        java.math.BigDecimal price;
                        long call = now();
                        try (PreparedStatement ps = c.prepareStatement(
                                "SELECT stock, price, version FROM products WHERE id = ?")) {
                            ps.setInt(1, product);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                price = rs.getBigDecimal(2);
                                version = rs.getInt(3);
                            }
                        } catch (SQLException e) {
                            tx.stmts.add(stmtJson("select product", null, 0, call, now(), -1, e.getSQLState()));
                            throw new Failed(e.getSQLState(), e.getMessage());
                        }
                        tx.stmts.add(stmtJson("select product", null, 0, call, now(), 1, null));
                        int n = run(tx, c, "update product stock", "products", product,
                                "UPDATE products SET stock = stock - ?, version = version + 1 WHERE id = ? AND version = ?",
                                qty, product, version);
                        if (n == 0) throw new OptimisticLock();
                        long oid;
                        long ocall = now();
                        try (PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO orders (product_id, qty, amount) VALUES (?, ?, ?) RETURNING id")) {
                            ps.setInt(1, product);
                            ps.setInt(2, qty);
                            ps.setBigDecimal(3, price.multiply(java.math.BigDecimal.valueOf(qty)));
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                oid = rs.getLong(1);
                            }
                        } catch (SQLException e) {
                            tx.stmts.add(stmtJson("insert order", "order_totals", 1, ocall, now(), -1, e.getSQLState()));
                            throw new Failed(e.getSQLState(), e.getMessage());
                        }
                        long oret = now();
                        tx.stmts.add(stmtJson("insert order", "order_totals", 1, ocall, oret, 1, null));
                        tx.lock("order_totals", 1, ocall, oret, "insert order");
                        long bcall = now();
                        try (PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO order_lines (order_id, line_no, sku, qty) VALUES (?, ?, ?, ?)")) {
                            for (int line = 1; line <= 3; line++) {
                                ps.setLong(1, oid);
                                ps.setInt(2, line);
                                ps.setString(3, "SKU-" + product + "-" + line);
                                ps.setInt(4, qty);
                                ps.addBatch();
                            }
                            ps.executeBatch();
                        } catch (SQLException e) {
                            tx.stmts.add(stmtJson("insert order lines (batch)", null, 0, bcall, now(), -1, e.getSQLState()));
                            throw new Failed(e.getSQLState(), e.getMessage());
                        }
                        tx.stmts.add(stmtJson("insert order lines (batch)", null, 0, bcall, now(), 3, null));
                    },
                    false);
            if (!"optimistic".equals(st)) return;
        }
    }

    // A shipment: lock the warehouse row (SELECT ... FOR UPDATE), call the
    // carrier's API (a slow partner call, 200-1000 ms) while holding it, then
    // book the reservation.
    void reserveShipment(Random r, String req) throws InterruptedException, SQLException {
        int wh = r.nextInt(100) < 60 ? 1 : 2 + r.nextInt(4);
        int n = 1 + r.nextInt(5);
        int partner = 200 + r.nextInt(801);
        attempt("reserveShipment", req, 1, (tx, c) -> {
            run(tx, c, "select warehouse for update", "warehouses", wh,
                    "SELECT id, reserved FROM warehouses WHERE id = ? FOR UPDATE", wh);
            sleep(tx, "carrier API call", partner);
            run(tx, c, "update warehouse reserved", "warehouses", wh,
                    "UPDATE warehouses SET reserved = reserved + ? WHERE id = ?", n, wh);
        }, false);
    }

    // A credit transfer between two of accounts 1-3, debit first then credit,
    // in the order of the request (so two opposite transfers deadlock); a
    // 30-120 ms fraud check between. A deadlock victim is retried once.
    void transferCredit(Random r, String req) throws InterruptedException, SQLException {
        int from = 1 + r.nextInt(3);
        int to = 1 + (from - 1 + 1 + r.nextInt(2)) % 3;
        int amount = 1 + r.nextInt(50);
        int check = 30 + r.nextInt(91);
        for (int attempt = 1; attempt <= 2; attempt++) {
            String st = attempt("transferCredit", req, attempt, (tx, c) -> {
                run(tx, c, "debit account", "accounts", from,
                        "UPDATE accounts SET balance = balance - ? WHERE id = ?", amount, from);
                sleep(tx, "fraud check", check);
                run(tx, c, "credit account", "accounts", to,
                        "UPDATE accounts SET balance = balance + ? WHERE id = ?", amount, to);
            }, false);
            if (!"40P01".equals(st)) return;
        }
    }

    // A shelf recount: mark the warehouse counted, but never wait long for
    // it (SET LOCAL lock_timeout = '500ms'); a 55P03 is given up, not retried.
    void recountShelf(Random r, String req) throws InterruptedException, SQLException {
        int wh = r.nextInt(100) < 80 ? 1 : 2 + r.nextInt(4);
        attempt("recountShelf", req, 1, (tx, c) -> {
            long call = now();
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL lock_timeout = '500ms'");
            }
            tx.stmts.add(stmtJson("set lock_timeout", null, 0, call, now(), 0, null));
            run(tx, c, "update warehouse counted", "warehouses", wh,
                    "UPDATE warehouses SET last_counted = now() WHERE id = ?", wh);
        }, false);
    }

    // A price update at REPEATABLE READ: a consistent look at all stock,
    // 30-120 ms of pricing, then the product's price and @Version; a 40001
    // (a placeOrder changed the row since the snapshot) is retried, up to 3
    // attempts.
    void repriceProduct(Random r, String req) throws InterruptedException, SQLException {
        int product = r.nextInt(100) < 30 ? 1 : 2 + r.nextInt(19);
        int think = 30 + r.nextInt(91);
        for (int attempt = 1; attempt <= 3; attempt++) {
            String st = attempt("repriceProduct", req, attempt, (tx, c) -> {
                run(tx, c, "sum stock", null, 0, "SELECT sum(stock) FROM products WHERE stock > ?", 0);
                sleep(tx, "pricing", think);
                run(tx, c, "update product price", "products", product,
                        "UPDATE products SET price = price + 0.01, version = version + 1 WHERE id = ?", product);
            }, true);
            if (!"40001".equals(st)) return;
        }
    }

    void worker(int id, long seed) {
        Random r = new Random(seed);
        int n = 0;
        try {
            while (now() < deadline) {
                String req = "t" + id + "-" + (++n);
                int k = r.nextInt(100);
                if (k < 45) placeOrder(r, req);
                else if (k < 57) reserveShipment(r, req);
                else if (k < 66) transferCredit(r, req);
                else if (k < 76) recountShelf(r, req);
                else repriceProduct(r, req);
                Thread.sleep(100 + r.nextInt(301));
            }
        } catch (InterruptedException | SQLException e) {
            System.err.println("worker " + id + ": " + e);
        }
    }

    // Min-RTT clock probes: server clock_timestamp() against the midpoint of
    // the client's send and receive (offset = server - client, microseconds).
    static String probe(Connection c, String when) throws SQLException {
        long best = Long.MAX_VALUE, offset = 0;
        for (int i = 0; i < 50; i++) {
            long t0 = now();
            long server;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                server = rs.getLong(1);
            }
            long t1 = now();
            if (t1 - t0 < best) {
                best = t1 - t0;
                offset = server - (t0 + t1) / 2;
            }
        }
        return "{\"clock_probe\":" + q(when) + ",\"offset_us\":" + offset + ",\"rtt_us\":" + best + "}";
    }

    public static void main(String[] a) throws Exception {
        String url = a[0];
        int duration = Integer.parseInt(a[1]), threads = Integer.parseInt(a[2]), size = Integer.parseInt(a[3]);
        long seed = Long.parseLong(a[4]);
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("ApplicationName", "shop-api");
        Properties probeProps = new Properties();
        probeProps.setProperty("user", "postgres");
        probeProps.setProperty("ApplicationName", "clock-probe");
        probeProps.setProperty("options", "-c log_min_duration_statement=-1");
        try (PrintWriter out = new PrintWriter(new FileWriter(a[5]));
             Connection probeConn = DriverManager.getConnection(url, probeProps)) {
            out.println(probe(probeConn, "start"));
            Pool pool = new Pool(url, props, size);
            StringBuilder pids = new StringBuilder();
            for (PooledConn pc : pool.all) pids.append(pids.length() > 0 ? "," : "").append(pc.pid);
            out.println("{\"pool\":{\"size\":" + size + ",\"threads\":" + threads + ",\"pids\":[" + pids
                    + "],\"application_name\":\"shop-api\",\"duration_s\":" + duration + ",\"seed\":" + seed + "}}");
            long start = now();
            Shop shop = new Shop(pool, out, start + duration * 1_000_000L);
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                final int id = i;
                Thread t = new Thread(() -> shop.worker(id, seed * 1000 + id), "worker-" + i);
                ts.add(t);
                t.start();
            }
            for (Thread t : ts) t.join();
            out.println("{\"load\":{\"start\":" + start + ",\"end\":" + now() + "}}");
            pool.close();
            out.println(probe(probeConn, "end"));
        }
    }
}
