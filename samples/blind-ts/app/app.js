// box-office: a small ticketing API on TypeORM (entity manager, transactions,
// pessimistic locks, repository increment) whose routes contend on hot rows.
// Besides serving, it records the client-side TRUTH of every transaction
// (one JSON line each in TRUTH_OUT): route, request id, attempt, backend pid,
// trace id, when each row lock was taken and let go, and how it ended.
//
// Two clocks. The app runs under libfaketime (its clock is skewed from the
// server's by a fixed offset); app times ('*_app') are the app's clock. The
// exact moment a row lock was taken is the SERVER's clock: either
// clock_timestamp() computed once the row is ours (RETURNING after an UPDATE,
// a SELECT ... FOR UPDATE's column re-evaluated after the wait), or the
// updated_at a BEFORE UPDATE trigger stamps once it has the row. The app
// measures its offset to the server (min-RTT clock_timestamp() probes) at
// start and at the end; build_truth.py converts with it.
'use strict';
require('reflect-metadata');
const http = require('http');
const fs = require('fs');
const { performance } = require('perf_hooks');
const otel = require('@opentelemetry/api');
const { DataSource, EntitySchema } = require('typeorm');

const PORT = Number(process.env.APP_PORT);
const PARTNER = `http://127.0.0.1:${process.env.PARTNER_PORT}/charge`;
const TRUTH_OUT = process.env.TRUTH_OUT;

const Event = new EntitySchema({
  name: 'Event', tableName: 'events',
  columns: { id: { type: Number, primary: true }, venueId: { type: Number, name: 'venue_id' },
    name: { type: String }, seatsLeft: { type: Number, name: 'seats_left' },
    updatedAt: { type: 'timestamptz', name: 'updated_at', nullable: true } },
});
const Booking = new EntitySchema({
  name: 'Booking', tableName: 'bookings',
  columns: { id: { type: 'bigint', primary: true, generated: true },
    eventId: { type: Number, name: 'event_id' }, priceCents: { type: Number, name: 'price_cents' },
    paymentRef: { type: String, name: 'payment_ref', nullable: true } },
});
const VenueTotals = new EntitySchema({
  name: 'VenueTotals', tableName: 'venue_totals',
  columns: { venueId: { type: Number, primary: true, name: 'venue_id' }, sold: { type: Number },
    revenueCents: { type: 'bigint', name: 'revenue_cents' },
    updatedAt: { type: 'timestamptz', name: 'updated_at', nullable: true } },
});
const Seat = new EntitySchema({
  name: 'Seat', tableName: 'seats',
  columns: { id: { type: Number, primary: true }, eventId: { type: Number, name: 'event_id' },
    holder: { type: String, nullable: true }, version: { type: Number },
    updatedAt: { type: 'timestamptz', name: 'updated_at', nullable: true } },
});
const PageCounter = new EntitySchema({
  name: 'PageCounter', tableName: 'page_counters',
  columns: { slug: { type: String, primary: true }, hits: { type: 'bigint' },
    updatedAt: { type: 'timestamptz', name: 'updated_at', nullable: true } },
});

const ds = new DataSource({
  type: 'postgres', host: '127.0.0.1', port: Number(process.env.PGPORT),
  username: 'postgres', database: 'boxoffice', applicationName: 'box-office',
  entities: [Event, Booking, VenueTotals, Seat, PageCounter],
  synchronize: false, logging: false, extra: { max: 20 },
});

// ms since the epoch in the app's (skewed) clock, sub-ms resolution
const wall0 = Date.now(), mono0 = performance.now();
const now = () => wall0 + (performance.now() - mono0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const epochMs = (d) => (d instanceof Date ? d.getTime() : new Date(d).getTime());
const sqlstate = (e) => (e && (e.code || (e.driverError && e.driverError.code))) || null;
let txSeq = 0;

// The app's offset to the server: app clock - server clock, from the probe
// with the shortest round trip.
async function measureOffset(n = 25) {
  let best = null;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const r = await ds.query('SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS t');
    const t1 = now();
    const o = { rtt_ms: t1 - t0, offset_ms: (t0 + t1) / 2 - Number(r[0].t), at_app: t1 };
    if (!best || o.rtt_ms < best.rtt_ms) best = o;
  }
  return best;
}

// The payment provider: slow, outside our control.
function chargeAtPartner(amount) {
  return new Promise((resolve, reject) => {
    const req = http.request(PARTNER, { method: 'POST',
      headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString() || '{}')));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ amount }));
  });
}

// Run fn(manager, lock) in manager.transaction(); lock(row, how, thunk)
// awaits a locking statement, thunk returns the server time (ms) the row
// was ours. The record is written whatever the outcome; errors rethrown.
async function inTx(route, reqId, attempt, fn) {
  const span = otel.trace.getActiveSpan();
  const rec = {
    tx: ++txSeq, route, req: reqId, attempt, pid: null,
    trace_id: span ? span.spanContext().traceId : null,
    start_app: now(), locks: [], outcome: null, sqlstate: null,
  };
  try {
    await ds.manager.transaction(async (m) => {
      rec.pid = m.queryRunner.databaseConnection.processID;
      const lock = async (row, how, thunk) => {
        const t0 = now();
        try {
          const lockedAt = await thunk();
          rec.locks.push({ row, how, stmt_start_app: t0, acquired_app: now(), locked_at: lockedAt });
        } catch (e) {
          rec.failed_lock = { row, how, stmt_start_app: t0, failed_at_app: now(), sqlstate: sqlstate(e) };
          throw e;
        }
      };
      try {
        await fn(m, lock);
      } catch (e) {
        rec.end_start_app = now();  // TypeORM sends ROLLBACK next
        throw e;
      }
      rec.end_start_app = now();    // TypeORM sends COMMIT next
    });
    rec.end_app = now();
    rec.outcome = 'commit';
  } catch (e) {
    rec.end_app = now();
    rec.outcome = 'rollback';
    rec.sqlstate = sqlstate(e);
    rec.error = String(e.message || e).slice(0, 200);
    throw e;
  } finally {
    fs.appendFileSync(TRUTH_OUT, JSON.stringify(rec) + '\n');
  }
}

// POST /bookings {event}: lock the event row (FOR UPDATE), charge the card at
// the payment provider while holding it, take a seat off, record the booking
// (its trigger adds to the venue's totals row), read the totals back.
async function book(body, reqId) {
  const eventId = body.event;
  let total;
  await inTx('POST /bookings', reqId, 1, async (m, lock) => {
    let ev;
    await lock(`events:${eventId}`, 'for update', async () => {
      const { raw, entities } = await m.getRepository(Event).createQueryBuilder('e')
        .setLock('pessimistic_write')
        .addSelect('extract(epoch FROM clock_timestamp())::float8 * 1000', 'locked_at')
        .where('e.id = :id', { id: eventId })
        .getRawAndEntities();
      ev = entities[0];
      return Number(raw[0].locked_at);
    });
    const charge = await chargeAtPartner(4900);
    await m.getRepository(Event).decrement({ id: ev.id }, 'seatsLeft', 1);
    await lock(`venue_totals:${ev.venueId}`, 'trigger', async () => {
      await m.getRepository(Booking).insert({ eventId: ev.id, priceCents: 4900,
        paymentRef: `ch_${charge.ms}` });
      total = await m.getRepository(VenueTotals).findOneBy({ venueId: ev.venueId });
      return epochMs(total.updatedAt);
    });
  });
  return { ok: true, sold: total.sold };
}

// POST /seats/swap {a, b}: move two seats between holders, locking them in
// the order the request names them (two opposite swaps deadlock); a
// deadlock victim is retried once.
async function swap(body, reqId) {
  const { a, b } = body;
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await inTx('POST /seats/swap', reqId, attempt, async (m, lock) => {
        const move = (id) => lock(`seats:${id}`, 'update', async () => {
          const r = await m.createQueryBuilder().update(Seat)
            .set({ holder: `req-${reqId}`, version: () => 'version + 1' })
            .where('id = :id', { id })
            .returning('updated_at')
            .execute();
          return epochMs(r.raw[0].updated_at);
        });
        await move(a);
        await sleep(15 + Math.random() * 25); // seat map validation
        await move(b);
      });
      return { ok: true, attempt };
    } catch (e) {
      if (sqlstate(e) !== '40P01' || attempt === 2) throw e;
      await sleep(10 + Math.random() * 20);
    }
  }
  return null;
}

// POST /pages/:slug/hit: the page-hit counter, a short hot update.
async function hit(slug, reqId) {
  let row;
  await inTx('POST /pages/hit', reqId, 1, async (m, lock) => {
    await lock(`page_counters:${slug}`, 'increment', async () => {
      await m.getRepository(PageCounter).increment({ slug }, 'hits', 1);
      row = await m.getRepository(PageCounter).findOneBy({ slug });
      return epochMs(row.updatedAt);
    });
  });
  return { hits: Number(row.hits) };
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try { resolve(JSON.parse(Buffer.concat(chunks).toString() || '{}')); } catch { resolve({}); }
    });
  });
}

const server = http.createServer(async (req, res) => {
  const body = await readBody(req);
  const reqId = req.headers['x-request-id'] || null;
  const send = (code, obj) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };
  try {
    let m;
    if (req.method === 'POST' && req.url === '/bookings') send(201, await book(body, reqId));
    else if (req.method === 'POST' && req.url === '/seats/swap') send(200, await swap(body, reqId));
    else if (req.method === 'POST' && (m = req.url.match(/^\/pages\/([a-z]+)\/hit$/))) {
      send(200, await hit(m[1], reqId));
    } else send(404, { error: 'not found' });
  } catch (e) {
    send(sqlstate(e) === '40P01' ? 409 : 500, { error: sqlstate(e) || String(e) });
  }
});

(async () => {
  await ds.initialize();
  const off = await measureOffset();
  fs.appendFileSync(TRUTH_OUT, JSON.stringify({ clock: 'start', ...off }) + '\n');
  server.listen(PORT, '127.0.0.1');
  process.on('SIGUSR2', async () => {
    const end = await measureOffset();
    fs.appendFileSync(TRUTH_OUT, JSON.stringify({ clock: 'end', ...end }) + '\n');
    server.close();
    process.kill(process.pid, 'SIGTERM');
  });
})();
