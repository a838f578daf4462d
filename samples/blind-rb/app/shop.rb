# samples/blind-rb: a Rails-style shop back end on ActiveRecord 6.1 (Debian's
# ruby-activerecord + ruby-pg), its own connection pool shared by worker
# threads, prepared statements on (AR's default), no traces, one
# application_name. Records its own truth (one JSON line per transaction
# attempt) for build_truth.py.
#
#   ruby shop.rb HOST PORT DB DURATION_S THREADS POOL SEED TRUTH.jsonl
require "json"
require "net/http"
require "webrick"
require "active_record"

HOST, PORT, DB, SECONDS, NTHREADS, NPOOL, SEED, TRUTH = ARGV
DURATION_S = SECONDS.to_f
THREADS = NTHREADS.to_i
POOL = NPOOL.to_i

def now_us = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)

# ---- the carrier's API: a slow local HTTP stub --------------------------
STUB = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 0, Logger: WEBrick::Log.new(File::NULL),
                               AccessLog: [])
STUB.mount_proc("/reserve") do |req, res|
  sleep(req.query["ms"].to_i / 1000.0)
  res.body = "ok"
end
STUB_PORT = STUB.config[:Port]
Thread.new { STUB.start }

ActiveRecord::Base.establish_connection(
  adapter: "postgresql", host: HOST, port: PORT.to_i, database: DB, username: "postgres",
  pool: POOL, checkout_timeout: 60, application_name: "shop-rails", prepared_statements: true
)

class Product < ActiveRecord::Base; end # lock_version column: optimistic locking
class Order < ActiveRecord::Base; end   # AFTER INSERT trigger bumps order_totals id=1
class Warehouse < ActiveRecord::Base; end
class Account < ActiveRecord::Base; end
class Article < ActiveRecord::Base
  has_many :comments
end
class Comment < ActiveRecord::Base
  belongs_to :article, counter_cache: true
end

# ---- the app's own record of every statement ----------------------------
# The transaction attempt being recorded, per thread.
def rec = Thread.current[:rec]

ActiveSupport::Notifications.subscribe("sql.active_record") do |_n, start, finish, _id, payload|
  r = rec
  next unless r
  exc = payload[:exception_object]
  exc = exc.cause if exc && !exc.is_a?(PG::Error) && exc.cause.is_a?(PG::Error)
  state = exc.is_a?(PG::Error) && exc.result ? exc.result.error_field(PG::Result::PG_DIAG_SQLSTATE) : nil
  r[:stmts] << { sql: payload[:sql], name: payload[:name], call_us: (start.to_r * 1_000_000).to_i,
                 ret_us: (finish.to_r * 1_000_000).to_i, sqlstate: state }
end

OUT = File.open(TRUTH, "w")
OUT_LOCK = Mutex.new

def emit(h)
  OUT_LOCK.synchronize { OUT.puts(JSON.generate(h)) }
end

# lock(relation, id) { statement }: the statement that takes a row lock;
# the lock is held from its return to the transaction's COMMIT/ROLLBACK.
def lock(relation, id)
  c = now_us
  yield
ensure
  rec[:locks] << { relation: relation, row: id, call_us: c, ret_us: now_us, ok: $!.nil? }
end

def pause(kind, ms)
  s = now_us
  sleep(ms / 1000.0)
  rec[:pauses] << { kind: kind, start_us: s, end_us: now_us }
end

# One transaction attempt of a code path (the Ruby method), recorded.
# ActiveRecord 6.1 answers a deadlock or a serialization failure inside a
# transaction by resetting the connection (no ROLLBACK is sent; the backend
# exits and a new one is opened: the `SCHEMA` statements): the pid is taken
# again at each attempt.
def attempt(path, req, n, _pid)
  pid = ActiveRecord::Base.connection.raw_connection.backend_pid
  Thread.current[:rec] = { path: path, req: req, attempt: n, thread: Thread.current[:no], pid: pid,
                           start_us: now_us, stmts: [], locks: [], pauses: [] }
  begin
    yield
    rec[:outcome] = "commit"
  rescue ActiveRecord::StaleObjectError => e
    rec[:outcome] = "stale"
    rec[:error] = e.class.name
    raise
  rescue ActiveRecord::ActiveRecordError => e
    rec[:outcome] = "error"
    rec[:error] = e.class.name
    raise
  ensure
    rec[:end_us] = now_us
    emit(rec)
    Thread.current[:rec] = nil
  end
end

# ---- the code paths -----------------------------------------------------

# Optimistic locking: read, change, save with lock_version; the order's
# INSERT fires the trigger that bumps order_totals id=1. A stale save
# (another order changed the product since the read) is retried.
def place_order(rnd, req, pid)
  product_id = rnd.rand < 0.5 ? 1 : rnd.rand(2..10)
  qty = rnd.rand(1..3)
  (1..4).each do |n|
    begin
      return attempt("place_order", req, n, pid) do
        ActiveRecord::Base.transaction do
          p = Product.find(product_id)
          pause("render", rnd.rand(5..25))
          p.stock -= qty
          lock("products", product_id) { p.save! }
          lock("order_totals", 1) do
            Order.create!(product_id: product_id, quantity: qty, amount: p.price * qty)
          end
          pause("enqueue_mail", rnd.rand(5..30))
        end
      end
    rescue ActiveRecord::StaleObjectError
      next
    end
  end
end

# with_lock (SELECT ... FOR UPDATE) around the carrier's HTTP call: the row
# is held while the app waits for the network.
def reserve_stock(rnd, req, pid)
  wid = rnd.rand < 0.5 ? 1 : rnd.rand(2..4)
  w = Warehouse.find(wid)
  attempt("reserve_stock", req, 1, pid) do
    ActiveRecord::Base.transaction do
      lock("warehouses", wid) { w.lock! }
      s = now_us
      Net::HTTP.get(URI("http://127.0.0.1:#{STUB_PORT}/reserve?ms=#{rnd.rand(100..400)}"))
      rec[:pauses] << { kind: "http_carrier", start_us: s, end_us: now_us }
      w.reserved += 1
      w.save!
    end
  end
end

# Two accounts locked in request order (lock!): transfers in opposite
# directions deadlock; the victim is retried once.
def transfer(rnd, req, pid)
  from, to = [1, 2, 3, 4].sample(2, random: rnd)
  amt = rnd.rand(1..50)
  (1..2).each do |n|
    begin
      return attempt("transfer", req, n, pid) do
        ActiveRecord::Base.transaction do
          a = Account.find(from)
          lock("accounts", from) { a.lock! }
          pause("fraud_check", rnd.rand(30..120))
          b = Account.find(to)
          lock("accounts", to) { b.lock! }
          a.update!(balance: a.balance - amt)
          b.update!(balance: b.balance + amt)
        end
      end
    rescue ActiveRecord::Deadlocked
      raise if n == 2
    end
  end
rescue ActiveRecord::Deadlocked
  nil
end

# A comment (counter cache: comments_count + 1) and a view (increment!:
# views_count = COALESCE(views_count, 0) + 1) on one article, in one
# transaction with a spam check between.
def comment_article(rnd, req, pid)
  aid = rnd.rand < 0.6 ? 1 : rnd.rand(2..5)
  attempt("comment_article", req, 1, pid) do
    ActiveRecord::Base.transaction do
      a = Article.find(aid)
      lock("articles", aid) { Comment.create!(article: a, body: "nice #{req}") }
      pause("spam_check", rnd.rand(10..40))
      a.increment!(:views_count)
    end
  end
end

# REPEATABLE READ: read the stock, think, reprice; a place_order that
# changed the row since the snapshot makes the UPDATE fail with 40001
# (ActiveRecord::SerializationFailure); retried up to 3 attempts.
def reprice(rnd, req, pid)
  product_id = rnd.rand < 0.4 ? 1 : rnd.rand(2..10)
  (1..3).each do |n|
    begin
      return attempt("reprice", req, n, pid) do
        Product.transaction(isolation: :repeatable_read) do
          p = Product.find(product_id)
          pause("pricing", rnd.rand(30..120))
          p.price = (p.price * 1.001).round(2)
          lock("products", product_id) { p.save! }
        end
      end
    rescue ActiveRecord::SerializationFailure, ActiveRecord::StaleObjectError
      next
    end
  end
end

PATHS = [[:place_order, 35], [:reserve_stock, 12], [:transfer, 8], [:comment_article, 27],
         [:reprice, 18]].freeze

def pick(rnd)
  x = rnd.rand(100)
  PATHS.each { |m, w| return m if (x -= w) < 0 }
end

# ---- clock offset: min-RTT probes ---------------------------------------
def offset_probe
  best = nil
  ActiveRecord::Base.connection_pool.with_connection do |c|
    20.times do
      t0 = now_us
      srv = c.raw_connection.exec("SELECT (extract(epoch FROM clock_timestamp()) * 1e6)::bigint").getvalue(0, 0).to_i
      t1 = now_us
      best = [t1 - t0, srv - (t0 + t1) / 2] if best.nil? || t1 - t0 < best[0]
    end
  end
  { rtt_us: best[0], offset_us: best[1] }
end

start_probe = offset_probe
emit({ probe: "start", **start_probe })
stop_at = now_us + (DURATION_S * 1_000_000).to_i
req_no = 0
req_lock = Mutex.new
workers = (1..THREADS).map do |t|
  Thread.new do
    Thread.current[:no] = t
    rnd = Random.new(SEED.to_i * 100 + t)
    while now_us < stop_at
      req = req_lock.synchronize { req_no += 1 }
      m = pick(rnd)
      w0 = now_us
      ActiveRecord::Base.connection_pool.with_connection do |c|
        Thread.current[:pool_wait_us] = now_us - w0
        send(m, rnd, req, c.raw_connection.backend_pid)
      rescue ActiveRecord::ActiveRecordError => e
        emit({ request_failed: req, path: m, error: e.class.name })
      end
      sleep(rnd.rand(10..60) / 1000.0)
    end
  end
end
workers.each(&:join)
emit({ probe: "end", **offset_probe })
OUT.close
STUB.shutdown
