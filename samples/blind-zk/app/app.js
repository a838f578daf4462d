// samples/blind-zk: a shop service on Sequelize v6 + pg, plain `http`,
// traced by tracing.js (loaded with node -r). Five routes, each one
// managed transaction (sequelize.transaction(async t => ...)):
//   POST /orders/:product          place_order   findOne lock:true (FOR UPDATE), decrement(), Order.create (trigger bumps order_totals 1)
//   POST /pages/:id/hit            hit_page      Counter.increment() twice (page row, then the site row 4)
//   POST /warehouses/:id/reserve   reserve_stock findOne lock:true, a slow HTTP call (stub), update()
//   POST /transfers/:from/:to      transfer      two findOne lock:true in REQUEST order (deadlocks), two update(); 40P01 retried once
//   POST /products/:id/reprice     reprice       REPEATABLE READ: findOne, pause, update(); 40001 retried (3 attempts)
// The app records the truth (client clock, microseconds): per transaction
// attempt its route, pid, trace id, every statement with call/return, the
// row each locks, pauses, outcome and SQLSTATE; and min-RTT clock probes.
// node -r ./tracing.js app.js PGPORT APPPORT STUBPORT TRUTH_JSONL
'use strict';
const http = require('http');
const fs = require('fs');
const { performance } = require('perf_hooks');
const api = require('@opentelemetry/api');
const { Sequelize, DataTypes, Transaction } = require('sequelize');

const [pgport, appport, stubport, truthfile] = process.argv.slice(2);
const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rnd = (a, b) => a + Math.floor(Math.random() * (b - a + 1));
const TRUTH = [];

const sequelize = new Sequelize('shop', 'postgres', '', {
  host: '127.0.0.1', port: Number(pgport), dialect: 'postgres', logging: false,
  pool: { max: 10, min: 0, acquire: 60000, idle: 10000 },
  dialectOptions: { application_name: 'shop-sequelize' },
});
const opts = (table) => ({ sequelize, tableName: table, timestamps: false });
class Product extends Sequelize.Model {}
Product.init({ id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.TEXT,
  stock: DataTypes.INTEGER, price: DataTypes.INTEGER }, opts('products'));
class Order extends Sequelize.Model {}
Order.init({ id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
  product_id: DataTypes.INTEGER, qty: DataTypes.INTEGER, amount: DataTypes.INTEGER },
opts('orders'));
class Counter extends Sequelize.Model {}
Counter.init({ id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.TEXT,
  hits: DataTypes.BIGINT }, opts('counters'));
class Warehouse extends Sequelize.Model {}
Warehouse.init({ id: { type: DataTypes.INTEGER, primaryKey: true }, name: DataTypes.TEXT,
  reserved: DataTypes.INTEGER }, opts('warehouses'));
class Account extends Sequelize.Model {}
Account.init({ id: { type: DataTypes.INTEGER, primaryKey: true }, balance: DataTypes.INTEGER },
  opts('accounts'));

const sqlstate = (e) => (e && ((e.parent && e.parent.code) || (e.original && e.original.code))) || null;

// One statement of attempt A: call/return, the row it locks (rel/key/mode,
// null for a plain read), SQLSTATE if it failed.
async function stmt(A, what, lock, fn) {
  const s = { what, call: now() };
  if (lock) Object.assign(s, { rel: lock[0], key: lock[1], mode: lock[2] });
  A.stmts.push(s);
  try {
    const r = await fn();
    s.ret = now();
    return r;
  } catch (e) {
    s.ret = now();
    s.sqlstate = sqlstate(e);
    if (!A.error_at) A.error_at = s.ret;
    throw e;
  }
}

async function pause(A, what, ms) {
  const p = { what, start: now() };
  A.pauses.push(p);
  await sleep(ms);
  p.end = now();
}

function stubCall(ms) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: Number(stubport), path: `/quote?ms=${ms}` }, (res) => {
      res.resume(); res.on('end', resolve);
    }).on('error', reject);
  });
}

async function attempt(route, req, n, iso, body) {
  const span = api.trace.getActiveSpan();
  const A = { route, req, attempt: n, stmts: [], pauses: [],
    trace_id: span ? span.spanContext().traceId : null, start: now() };
  TRUTH.push(A);
  try {
    await sequelize.transaction(iso ? { isolationLevel: iso } : {}, async (t) => {
      A.pid = t.connection.processID;
      A.begin_ret = now();
      await body(t, A);
      A.commit_call = now();
    });
    A.outcome = 'commit';
  } catch (e) {
    A.outcome = 'rollback';
    A.sqlstate = sqlstate(e) || String(e.message || e);
  }
  A.end = now();
  return A;
}

async function withRetry(route, req, max, retryOn, iso, body) {
  for (let n = 1; ; n++) {
    const A = await attempt(route, req, n, iso, body);
    if (A.outcome === 'commit') return 200;
    if (!retryOn.includes(A.sqlstate) || n >= max) { A.gave_up = true; return 500; }
    A.retried = true;
    await sleep(rnd(5, 20));
  }
}

const ROUTES = [
  [/^\/orders\/(\d+)$/, 'place_order', (req, [p]) => withRetry('place_order', req, 1, [], null,
    async (t, A) => {
      const pr = await stmt(A, 'Product.findOne lock', ['products', p, 'FOR UPDATE'],
        () => Product.findOne({ where: { id: p }, lock: true, transaction: t }));
      await pause(A, 'price check', rnd(5, 20));
      await stmt(A, 'product.decrement', ['products', p, 'FOR NO KEY UPDATE'],
        () => pr.decrement('stock', { transaction: t }));
      await stmt(A, 'Order.create (trigger: order_totals 1)', ['order_totals', 1, 'FOR NO KEY UPDATE'],
        () => Order.create({ product_id: p, qty: 1, amount: pr.price }, { transaction: t }));
      await pause(A, 'receipt', rnd(5, 25));
    })],
  [/^\/pages\/(\d+)\/hit$/, 'hit_page', (req, [id]) => withRetry('hit_page', req, 1, [], null,
    async (t, A) => {
      await stmt(A, 'Counter.increment page', ['counters', id, 'FOR NO KEY UPDATE'],
        () => Counter.increment('hits', { where: { id }, transaction: t }));
      await pause(A, 'render', rnd(10, 40));
      await stmt(A, 'Counter.increment site', ['counters', 4, 'FOR NO KEY UPDATE'],
        () => Counter.increment('hits', { where: { id: 4 }, transaction: t }));
    })],
  [/^\/warehouses\/(\d+)\/reserve$/, 'reserve_stock', (req, [w]) => withRetry('reserve_stock', req, 1, [], null,
    async (t, A) => {
      const wh = await stmt(A, 'Warehouse.findOne lock', ['warehouses', w, 'FOR UPDATE'],
        () => Warehouse.findOne({ where: { id: w }, lock: true, transaction: t }));
      const ms = rnd(200, 500);
      const p = { what: 'GET pricing stub /quote', start: now(), ms };
      A.pauses.push(p);
      await stubCall(ms);
      p.end = now();
      await stmt(A, 'warehouse.update', ['warehouses', w, 'FOR NO KEY UPDATE'],
        () => wh.update({ reserved: wh.reserved + 1 }, { transaction: t }));
    })],
  [/^\/transfers\/(\d+)\/(\d+)$/, 'transfer', (req, [a, b]) => withRetry('transfer', req, 2, ['40P01'], null,
    async (t, A) => {
      const x = await stmt(A, 'Account.findOne lock (from)', ['accounts', a, 'FOR UPDATE'],
        () => Account.findOne({ where: { id: a }, lock: true, transaction: t }));
      await pause(A, 'fraud check', rnd(30, 120));
      const y = await stmt(A, 'Account.findOne lock (to)', ['accounts', b, 'FOR UPDATE'],
        () => Account.findOne({ where: { id: b }, lock: true, transaction: t }));
      await stmt(A, 'from.update', ['accounts', a, 'FOR NO KEY UPDATE'],
        () => x.update({ balance: x.balance - 1 }, { transaction: t }));
      await stmt(A, 'to.update', ['accounts', b, 'FOR NO KEY UPDATE'],
        () => y.update({ balance: y.balance + 1 }, { transaction: t }));
    })],
  [/^\/products\/(\d+)\/reprice$/, 'reprice', (req, [p]) => withRetry('reprice', req, 3, ['40001'],
    Transaction.ISOLATION_LEVELS.REPEATABLE_READ, async (t, A) => {
      const pr = await stmt(A, 'Product.findOne', null,
        () => Product.findOne({ where: { id: p }, transaction: t }));
      await pause(A, 'competitor prices', rnd(30, 100));
      await stmt(A, 'product.update price', ['products', p, 'FOR NO KEY UPDATE'],
        () => pr.update({ price: pr.price + 1 }, { transaction: t }));
    })],
];

let reqSeq = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    const url = req.url.split('?')[0];
    for (const [re, , fn] of ROUTES) {
      const m = re.exec(url);
      if (req.method === 'POST' && m) {
        const params = m.slice(1).map(Number);
        let code = 500;
        try { code = await fn(++reqSeq, params); } catch (e) { console.error(e); }
        res.writeHead(code); res.end();
        return;
      }
    }
    res.writeHead(404); res.end();
  });
});

// Clock offset: min-RTT probes of the server's clock_timestamp().
async function probes(label) {
  const out = [];
  for (let i = 0; i < 25; i++) {
    const t0 = now();
    const [row] = await sequelize.query(
      "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text AS us",
      { type: Sequelize.QueryTypes.SELECT });
    const t1 = now();
    out.push({ label, t0, t1, server_us: Number(row.us) });
  }
  return out;
}

let PROBES = [];
async function main() {
  await sequelize.authenticate();
  PROBES = PROBES.concat(await probes('start'));
  server.listen(Number(appport), '127.0.0.1', () => console.log('ready'));
}

process.on('SIGTERM', async () => {
  server.close();
  try { PROBES = PROBES.concat(await probes('end')); } catch (e) { console.error(e); }
  const lines = [JSON.stringify({ kind: 'probes', probes: PROBES })]
    .concat(TRUTH.map((a) => JSON.stringify(Object.assign({ kind: 'attempt' }, a))));
  fs.writeFileSync(truthfile, lines.join('\n') + '\n');
  try { await global.__otelShutdown(); } catch (e) { console.error('otel shutdown', e); }
  await sequelize.close();
  console.error(`app: ${TRUTH.length} attempts`);
  process.exit(0);
});
main().catch((e) => { console.error(e); process.exit(1); });
