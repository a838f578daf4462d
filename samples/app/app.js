'use strict';
// lockspan sample application: a small "shop" traced with the OpenTelemetry
// JavaScript SDK, run against a real PostgreSQL 15 (samples/app.sh starts
// everything).  Three code paths update one hot row (inventory id = 1):
//   POST /checkout  checkout.reserve_and_charge  calls payments-api inside
//                   its transaction; sqlcommenter comments on its SQL
//   POST /pay       payments.fast_pay            commits at once, no comment
//   GET  /report    reports.read_then_update     SELECT, render a PDF, then
//                   UPDATE; records the backend pid on its db spans
// A load generator in this process sends the requests from a few concurrent
// workers.  Spans are exported twice, OTLP/HTTP JSON and Zipkin v2, to
// receiver.js; the client-side record of what happened goes to RUNFILE
// (samples/app/make_truth.py turns it into truth.json).
//
// Usage: node app.js --pg-port P --app-port A --payments-port Y
//                    --receiver-port R --run RUNFILE
const fs = require('fs');
const http = require('http');
const { performance } = require('perf_hooks');
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = require('@opentelemetry/semantic-conventions');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { ZipkinExporter } = require('@opentelemetry/exporter-zipkin');
const { Pool } = require('pg');
const pgVersion = require('pg/package.json').version;

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const PG_PORT = Number(args['pg-port']);
const APP_PORT = Number(args['app-port']);
const PAY_PORT = Number(args['payments-port']);
const RCV_PORT = Number(args['receiver-port']);
const RUNFILE = args.run;
const SEED = Number(args.seed || 20261202);

const SERVICE = 'shop';
const CODE_FILE = 'samples/app/app.js';
const SRC = fs.readFileSync(__filename, 'utf8').split('\n');
function lineOf(decl) { // line of a function's declaration in this file
  const i = SRC.findIndex((l) => l.startsWith(decl));
  if (i < 0) throw new Error('no ' + decl);
  return i + 1;
}

// ---------------------------------------------------------------- tracing
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({
    [ATTR_SERVICE_NAME]: SERVICE,
    [ATTR_SERVICE_VERSION]: '1.0.0',
    'deployment.environment.name': 'lockspan-sample',
  }),
  spanProcessors: [
    new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://127.0.0.1:${RCV_PORT}/v1/traces` }),
      { scheduledDelayMillis: 1000, maxExportBatchSize: 64 }),
    new BatchSpanProcessor(new ZipkinExporter({ url: `http://127.0.0.1:${RCV_PORT}/api/v2/spans`, serviceName: SERVICE }),
      { scheduledDelayMillis: 1000, maxExportBatchSize: 64 }),
  ],
});
const tracer = provider.getTracer('lockspan-sample-app', '1.0.0');

// Client clock in integer microseconds since the epoch (the same clock the
// SDK uses: performance.timeOrigin + performance.now()).  Spans get these
// exact times, so truth and spans agree to the microsecond.
// LOCKSPAN_APP_CLOCK_SKEW_MS sets this application's clock that far ahead
// of the host's (and so of the database server's), as on a machine whose
// NTP drifted: spans and the client-side record both use the skewed clock.
const CLOCK_SKEW_US = Math.round(Number(process.env.LOCKSPAN_APP_CLOCK_SKEW_MS || 0) * 1000);
const CHARGE_BY_CUSTOMER = process.env.LOCKSPAN_APP_CHARGE_BY_CUSTOMER === '1';
function nowUs() {
  return Math.round((performance.timeOrigin + performance.now()) * 1000) + CLOCK_SKEW_US;
}
function hr(us) { return [Math.floor(us / 1e6), (us % 1e6) * 1000]; }
function iso(us) {
  return new Date(Math.floor(us / 1000)).toISOString().replace(/\.\d{3}Z$/, '')
    + '.' + String(us % 1e6).padStart(6, '0') + 'Z';
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Run fn inside a new span that starts now and ends when fn settles.
async function inSpan(name, kind, parentCtx, attributes, fn) {
  const start = nowUs();
  const span = tracer.startSpan(name, { kind, attributes, startTime: hr(start) }, parentCtx);
  const ctx = api.trace.setSpan(parentCtx, span);
  const rec = { span_id: span.spanContext().spanId, name, start: null, end: null };
  try {
    return await fn(ctx, span, rec);
  } catch (e) {
    span.recordException(e);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: String(e.message || e) });
    throw e;
  } finally {
    const end = nowUs();
    span.end(hr(end));
    rec.start = start; rec.end = end;
  }
}

// sqlcommenter (https://google.github.io/sqlcommenter/spec/): keys sorted,
// keys and values URL-encoded, values in single quotes, appended at the end.
function sqlcomment(tags) {
  const parts = Object.keys(tags).sort().map((k) =>
    `${encodeURIComponent(k)}='${encodeURIComponent(tags[k]).replace(/'/g, "\\'")}'`);
  return '/*' + parts.join(',') + '*/';
}

// One SQL statement as a CLIENT span.  opts.conv: 'old' (db.system,
// db.statement, db.name) or 'new' (db.system.name, db.query.text,
// db.namespace); opts.comment: sqlcommenter tags (traceparent added here,
// naming this db span); opts.pid: record the backend pid attribute.
async function query(conn, ctx, sql, opts, req) {
  const op = sql.split(/\s+/)[0].toUpperCase();
  const table = (/\b(?:FROM|UPDATE|INTO)\s+(\w+)/i.exec(sql) || [])[1];
  const name = opts.conv === 'new' ? (table ? `${op} ${table}` : op) : `pg.query:${op} lockspan`;
  const attributes = opts.conv === 'new' ? {
    'db.system.name': 'postgresql', 'db.namespace': 'lockspan', 'db.query.text': sql,
    'db.operation.name': op, 'server.address': '127.0.0.1', 'server.port': PG_PORT,
  } : {
    'db.system': 'postgresql', 'db.name': 'lockspan', 'db.user': 'postgres', 'db.statement': sql,
    'db.operation': op, 'net.peer.name': '127.0.0.1', 'net.peer.port': PG_PORT,
  };
  if (table && opts.conv === 'new') attributes['db.collection.name'] = table;
  if (opts.pid) attributes['db.postgresql.backend_pid'] = conn.lockspanPid;
  return inSpan(name, api.SpanKind.CLIENT, ctx, attributes, async (sctx, span, rec) => {
    let text = sql;
    if (opts.comment) {
      const sc = span.spanContext();
      text = sql + ' ' + sqlcomment({ ...opts.comment, traceparent: `00-${sc.traceId}-${sc.spanId}-01` });
    }
    rec.sql = text;
    rec.kind = 'sql';
    req.spans.push(rec);
    const r = await conn.query(text);
    return r;
  });
}

// ---------------------------------------------------------------- code paths
const CHECKOUT_DB = { conv: 'new' };
async function reserve_and_charge(conn, ctx, req) {
  const tags = { route: '/checkout', controller: 'checkout', framework: 'node-http',
    db_driver: `pg:${pgVersion}` };
  const o = { ...CHECKOUT_DB, comment: tags };
  req.tx_start = nowUs();
  await query(conn, ctx, 'BEGIN', o, req);
  req.update_start = nowUs();
  await query(conn, ctx, 'UPDATE inventory SET qty = qty - 1 WHERE id = 1', o, req);
  req.update_end = nowUs();
  // The external call, inside the transaction, holding the row lock. With
  // LOCKSPAN_APP_CHARGE_BY_CUSTOMER=1 (samples/app-urlids) it names the
  // customer in its URL and in its span's name, as a hand-made client span
  // often does: one call site, three URLs (customers 1-3).
  const chargePath = CHARGE_BY_CUSTOMER ? `/customers/${(req.seq % 3) + 1}/charge` : '/charge';
  await inSpan(`HTTP POST payments-api ${chargePath}`, api.SpanKind.CLIENT, ctx, {
    'http.request.method': 'POST', 'url.full': `http://127.0.0.1:${PAY_PORT}${chargePath}`,
    'server.address': '127.0.0.1', 'server.port': PAY_PORT, 'peer.service': 'payments-api',
  }, async (sctx, span, rec) => {
    rec.kind = 'http';
    req.spans.push(rec);
    const headers = {};
    const sc = span.spanContext();
    headers.traceparent = `00-${sc.traceId}-${sc.spanId}-01`;
    const out = await httpRequest('POST', PAY_PORT, chargePath, { order: req.seq, amount: 42 }, headers);
    span.setAttribute('http.response.status_code', out.status);
    req.payments_delay_ms = JSON.parse(out.body).delay_ms;
  });
  // Un-instrumented work inside the transaction (building the order record):
  // idle in transaction, covered by no span.
  const u0 = nowUs();
  await sleep(40);
  req.spans.push({ kind: 'untraced', name: 'build order record (no span)', start: u0, end: nowUs() });
  await query(conn, ctx, `INSERT INTO orders (item_id, qty, amount, request) VALUES (1, 1, 42.00, ${req.seq})`, o, req);
  await query(conn, ctx, 'COMMIT', o, req);
  req.tx_end = nowUs();
}

async function fast_pay(conn, ctx, req) {
  const o = { conv: 'old' };
  req.tx_start = nowUs();
  await query(conn, ctx, 'BEGIN', o, req);
  req.update_start = nowUs();
  await query(conn, ctx, 'UPDATE inventory SET qty = qty - 1 WHERE id = 1', o, req);
  req.update_end = nowUs();
  await query(conn, ctx, 'COMMIT', o, req);
  req.tx_end = nowUs();
}

async function read_then_update(conn, ctx, req) {
  const o = { conv: 'old', pid: true };
  req.tx_start = nowUs();
  await query(conn, ctx, 'BEGIN', o, req);
  await query(conn, ctx, 'SELECT id, qty, reported_at FROM inventory WHERE id = 1', o, req);
  await inSpan('render invoice pdf', api.SpanKind.INTERNAL, ctx, { 'pdf.pages': 3 }, async (sctx, span, rec) => {
    rec.kind = 'render';
    req.spans.push(rec);
    await sleep(200);
  });
  req.update_start = nowUs();
  await query(conn, ctx, 'UPDATE inventory SET reported_at = now() WHERE id = 1', o, req);
  req.update_end = nowUs();
  await query(conn, ctx, 'COMMIT', o, req);
  req.tx_end = nowUs();
}

const ROUTES = {
  'POST /checkout': { route: '/checkout', namespace: 'checkout', fn: reserve_and_charge,
    decl: 'async function reserve_and_charge(', sqlcommenter: true, db_convention: 'new' },
  'POST /pay': { route: '/pay', namespace: 'payments', fn: fast_pay,
    decl: 'async function fast_pay(', sqlcommenter: false, db_convention: 'old' },
  'GET /report': { route: '/report', namespace: 'reports', fn: read_then_update,
    decl: 'async function read_then_update(', sqlcommenter: false, db_convention: 'old',
    pid_attribute: true },
};
for (const r of Object.values(ROUTES)) r.lineno = lineOf(r.decl);

// ---------------------------------------------------------------- app server
const pool = new Pool({ host: '127.0.0.1', port: PG_PORT, user: 'postgres', database: 'lockspan',
  application_name: SERVICE, max: 6 });
const REQUESTS = [];

async function handle(key, seq) {
  const r = ROUTES[key];
  const [method] = key.split(' ');
  const req = { seq, method, route: r.route, function: `${r.namespace}.${r.fn.name}`,
    code_namespace: r.namespace, code_function: r.fn.name, code_filepath: CODE_FILE,
    code_lineno: r.lineno, sqlcommenter: r.sqlcommenter, db_convention: r.db_convention,
    pid_attribute: !!r.pid_attribute, spans: [] };
  REQUESTS.push(req);
  await inSpan(key, api.SpanKind.SERVER, api.ROOT_CONTEXT, {
    'http.request.method': method, 'http.route': r.route, 'url.path': r.route, 'url.scheme': 'http',
    'server.address': '127.0.0.1', 'server.port': APP_PORT,
  }, async (ctx, span, rec) => {
    req.trace_id = span.spanContext().traceId;
    req.server_span_id = rec.span_id;
    req.request = rec;
    const conn = await pool.connect();
    try {
      req.pid = conn.lockspanPid;
      await inSpan(`${r.namespace}.${r.fn.name}`, api.SpanKind.INTERNAL, ctx, {
        'code.function': r.fn.name, 'code.namespace': r.namespace,
        'code.filepath': CODE_FILE, 'code.lineno': r.lineno,
      }, async (fctx, fspan, frec) => {
        req.function_span_id = frec.span_id;
        await r.fn(conn, fctx, req);
      });
    } finally {
      conn.release();
    }
    span.setAttribute('http.response.status_code', 200);
  });
}

const appServer = http.createServer((hreq, hres) => {
  hreq.resume();
  hreq.on('end', async () => {
    const key = `${hreq.method} ${hreq.url.split('?')[0]}`;
    if (!ROUTES[key]) { hres.writeHead(404); hres.end(); return; }
    const seq = Number(hreq.headers['x-request-seq']);
    try {
      await handle(key, seq);
      hres.writeHead(200, { 'content-type': 'application/json' });
      hres.end('{"ok":true}');
    } catch (e) {
      process.stderr.write(`app: ${key} #${seq} failed: ${e.stack}\n`);
      hres.writeHead(500); hres.end();
    }
  });
});

function httpRequest(method, port, path, body, headers) {
  return new Promise((resolve, reject) => {
    const data = body ? JSON.stringify(body) : '';
    const rq = http.request({ host: '127.0.0.1', port, path, method, agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers } },
    (res) => {
      let b = '';
      res.on('data', (c) => { b += c; });
      res.on('end', () => resolve({ status: res.statusCode, body: b }));
    });
    rq.on('error', reject);
    rq.end(data);
  });
}

// ---------------------------------------------------------------- load
function mulberry32(a) {
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function setup() {
  const c = await pool.connect();
  try {
    await c.query("SET application_name = 'shop-setup'");
    await c.query('DROP TABLE IF EXISTS orders, inventory');
    await c.query('CREATE TABLE inventory (id int PRIMARY KEY, qty int NOT NULL, reported_at timestamptz)');
    await c.query('CREATE TABLE orders (id serial PRIMARY KEY, item_id int NOT NULL, qty int NOT NULL, '
      + 'amount numeric NOT NULL, request int, created_at timestamptz NOT NULL DEFAULT now())');
    await c.query('INSERT INTO inventory SELECT g, 1000 FROM generate_series(1, 10) g');
    await c.query('VACUUM ANALYZE inventory, orders');
    const r = await c.query('SELECT pg_backend_pid() AS pid');
    return r.rows[0].pid;
  } finally {
    c.release(true); // close: the pool's own connections all say application_name 'shop'
  }
}

async function main() {
  const setupPid = await setup();
  const pids = [];
  pool.on('connect', () => {});
  // One SELECT pg_backend_pid() per new pooled connection.
  const origConnect = pool.connect.bind(pool);
  pool.connect = async () => {
    const c = await origConnect();
    if (!c.lockspanPid) {
      const t0 = nowUs();
      const r = await c.query('SELECT pg_backend_pid() AS pid');
      c.lockspanPid = r.rows[0].pid;
      pids.push({ pid: c.lockspanPid, identified: iso(t0) });
    }
    return c;
  };
  await new Promise((r) => appServer.listen(APP_PORT, '127.0.0.1', r));

  // Workload: 8 checkout, 10 pay, 6 report, shuffled over 5 workers.
  const rand = mulberry32(SEED);
  const jobs = [].concat(Array(8).fill('POST /checkout'), Array(10).fill('POST /pay'),
    Array(6).fill('GET /report'));
  for (let i = jobs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j], jobs[i]];
  }
  const WORKERS = 5;
  const queues = Array.from({ length: WORKERS }, () => []);
  jobs.forEach((k, i) => queues[i % WORKERS].push({ key: k, seq: i + 1 }));
  const pauses = queues.map((q) => q.map(() => 30 + Math.floor(rand() * 170)));
  const t0 = Date.now();
  await Promise.all(queues.map(async (q, w) => {
    await sleep(w * 70);
    for (let i = 0; i < q.length; i++) {
      const [method, path] = q[i].key.split(' ');
      const out = await httpRequest(method, APP_PORT, path, null, { 'x-request-seq': String(q[i].seq) });
      if (out.status !== 200) throw new Error(`request ${q[i].seq} ${q[i].key}: HTTP ${out.status}`);
      const req = REQUESTS.find((x) => x.seq === q[i].seq);
      req.worker = w + 1;
      await sleep(pauses[w][i]);
    }
  }));
  const elapsed = (Date.now() - t0) / 1000;
  await new Promise((r) => appServer.close(r));
  await pool.end();
  await provider.forceFlush();
  await provider.shutdown();

  const out = { service: SERVICE, seed: SEED, pg_driver: `pg ${pgVersion}`, elapsed_s: elapsed,
    setup_pid: setupPid, pool_pids: pids, clock_skew_us: CLOCK_SKEW_US,
    requests: REQUESTS.sort((a, b) => a.seq - b.seq) };
  fs.writeFileSync(RUNFILE, JSON.stringify(out, null, 1) + '\n');
  process.stderr.write(`app: ${REQUESTS.length} requests in ${elapsed.toFixed(1)} s\n`);
}

main().catch((e) => { process.stderr.write(`app: ${e.stack}\n`); process.exit(1); });
