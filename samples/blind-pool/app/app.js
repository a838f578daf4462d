// ticket-api: a small ticketing service on Sequelize (models, managed
// transactions, bound parameters) whose routes contend on hot rows, talking
// to PostgreSQL THROUGH pgbouncer in transaction pooling mode.
//
// Besides serving, it records the client-side TRUTH of every transaction
// attempt (one JSON line each in TRUTH_OUT): route, trace id, which backend
// pid ran it, when each row lock was taken and let go, and how it ended.
// The event loop may see a result late, so times are exact where the server
// says them and bounds where only the client can: every hot table has a
// BEFORE trigger that stamps locked_at = clock_timestamp() (and locked_pid)
// once the row is locked, which the app reads back (RETURNING *); a lock is
// let go between the moment COMMIT/ROLLBACK was sent (released_lo) and the
// moment it returned (released). A SELECT ... FOR UPDATE has no trigger: its
// lock was taken between sending it and its result (acquired_lo..hi).
'use strict';
const http = require('http');
const fs = require('fs');
const { performance } = require('perf_hooks');
const otel = require('@opentelemetry/api');
const { Sequelize, DataTypes, Transaction, QueryTypes } = require('sequelize');

const PORT = Number(process.env.APP_PORT);
const PARTNER = `http://127.0.0.1:${process.env.PARTNER_PORT}/reserve`;
const TRUTH_OUT = process.env.TRUTH_OUT;
const MAX_ATTEMPTS = 4;                 // 40001 retries of a reprice

const sequelize = new Sequelize('tickets', 'ticket_api', null, {
  host: '127.0.0.1', port: Number(process.env.PGB_PORT), dialect: 'postgres',
  logging: false,
  dialectOptions: { application_name: 'ticket-api' },
  pool: { max: 20, min: 2, acquire: 60000, idle: 10000 },
});

const common = { timestamps: false, underscored: true };
const Event = sequelize.define('Event', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  name: DataTypes.TEXT, seatsLeft: DataTypes.INTEGER,
  lockedAt: DataTypes.DATE, lockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'events' });
const EventTotals = sequelize.define('EventTotals', {
  eventId: { type: DataTypes.INTEGER, primaryKey: true },
  booked: DataTypes.INTEGER, checkedIn: DataTypes.INTEGER, settled: DataTypes.INTEGER,
  lockedAt: DataTypes.DATE, lockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'event_totals' });
const Booking = sequelize.define('Booking', {
  id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
  eventId: DataTypes.INTEGER, customer: DataTypes.TEXT, seats: DataTypes.INTEGER,
  partnerRef: DataTypes.TEXT,
  totalsLockedAt: DataTypes.DATE, totalsLockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'bookings' });
const Checkin = sequelize.define('Checkin', {
  id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
  eventId: DataTypes.INTEGER, ticket: DataTypes.TEXT,
  totalsLockedAt: DataTypes.DATE, totalsLockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'checkins' });
const Account = sequelize.define('Account', {
  id: { type: DataTypes.INTEGER, primaryKey: true },
  owner: DataTypes.TEXT, balance: DataTypes.DECIMAL(12, 2),
  lockedAt: DataTypes.DATE, lockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'accounts' });
const TicketPrice = sequelize.define('TicketPrice', {
  eventId: { type: DataTypes.INTEGER, primaryKey: true },
  price: DataTypes.DECIMAL(10, 2),
  lockedAt: DataTypes.DATE, lockedPid: DataTypes.INTEGER,
}, { ...common, tableName: 'ticket_prices' });

const now = () => performance.timeOrigin + performance.now(); // ms since epoch
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rand = (lo, hi) => lo + Math.random() * (hi - lo);
const truth = fs.createWriteStream(TRUTH_OUT, { flags: 'a' });
let txSeq = 0;

// The Sequelize error's SQLSTATE, or null.
const sqlstate = (e) => (e && (e.parent || e.original || {}).code) || null;

// Call the ticketing partner's reservation API (slow, outside our control).
function reserveAtPartner(event, seats) {
  return new Promise((resolve, reject) => {
    const req = http.request(PARTNER, { method: 'POST',
      headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ event, seats }));
  });
}

// Run fn(t, rec) in one managed Sequelize transaction; rec collects the
// locks (see lockedBy/forUpdate). Writes the truth record whatever the
// outcome; rethrows the error.
async function inTx(route, attempt, opts, fn) {
  const span = otel.trace.getActiveSpan();
  const rec = {
    tx: ++txSeq, route, attempt,
    trace_id: span ? span.spanContext().traceId : null,
    isolation: opts.isolationLevel || 'READ COMMITTED',
    start: now(), pid: null, locks: [], outcome: null, sqlstate: null,
  };
  try {
    await sequelize.transaction(opts, async (t) => {
      try {
        await fn(t, rec);
      } catch (e) {
        rec.released_lo = now();
        throw e;
      }
      rec.released_lo = now();
    });
    rec.outcome = 'commit';
  } catch (e) {
    rec.outcome = 'rollback';
    rec.sqlstate = sqlstate(e);
    rec.error = String(e.message || e).slice(0, 200);
    throw e;
  } finally {
    rec.released = now();
    truth.write(JSON.stringify(rec) + '\n');
  }
}

// Await a statement that locks ROW; its result carries the trigger's
// locked_at/locked_pid (at, pid fields of the returned row). A failure while
// waiting (deadlock) is noted on rec.
async function lockedBy(rec, row, p, pick) {
  const sent = now();
  let r;
  try {
    r = await p;
  } catch (e) {
    rec.failed_lock = { row, sent, failed_at: now(), sqlstate: sqlstate(e) };
    throw e;
  }
  const { at, pid } = pick(r);
  rec.locks.push({ row, kind: 'update', sent, returned: now(), acquired: at.getTime() });
  rec.pid = rec.pid || pid;
  return r;
}

// POST /bookings: take seats off the event (the seats counter row), reserve
// at the partner INSIDE the transaction, then insert the booking (whose
// trigger bumps the event's totals row).
async function book({ event, seats, customer }) {
  return inTx('POST /bookings', 1, {}, async (t, rec) => {
    await lockedBy(rec, `events:${event}`,
      Event.decrement('seatsLeft', { by: seats, where: { id: event }, transaction: t }),
      (r) => ({ at: r[0][0][0].locked_at, pid: r[0][0][0].locked_pid }));
    const res = await reserveAtPartner(event, seats);
    await lockedBy(rec, `event_totals:${event}`,
      Booking.create({ eventId: event, customer, seats, partnerRef: String(res.ms) },
        { transaction: t }),
      (b) => ({ at: b.totalsLockedAt, pid: b.totalsLockedPid }));
  });
}

// POST /checkins: scan a ticket at the door (the insert's trigger bumps the
// event's totals row), validate it, done.
async function checkin({ event, ticket }) {
  return inTx('POST /checkins', 1, {}, async (t, rec) => {
    await lockedBy(rec, `event_totals:${event}`,
      Checkin.create({ eventId: event, ticket }, { transaction: t }),
      (c) => ({ at: c.totalsLockedAt, pid: c.totalsLockedPid }));
    await sleep(rand(5, 30));                       // validate the ticket
  });
}

// POST /transfers: move money between two accounts, locking them in request
// order (debit first, a fraud check, then credit): opposite transfers can
// deadlock.
async function transfer({ from, to, amount }) {
  return inTx('POST /transfers', 1, {}, async (t, rec) => {
    await lockedBy(rec, `accounts:${from}`,
      Account.decrement('balance', { by: amount, where: { id: from }, transaction: t }),
      (r) => ({ at: r[0][0][0].locked_at, pid: r[0][0][0].locked_pid }));
    await sleep(rand(20, 60));                      // fraud check
    await lockedBy(rec, `accounts:${to}`,
      Account.increment('balance', { by: amount, where: { id: to }, transaction: t }),
      (r) => ({ at: r[0][0][0].locked_at, pid: r[0][0][0].locked_pid }));
  });
}

// POST /settlements: the nightly-style settlement report, run ad hoc: hold
// the event's totals row FOR UPDATE while summing bookings and rendering.
async function settle({ event }) {
  return inTx('POST /settlements', 1, {}, async (t, rec) => {
    const sent = now();
    await EventTotals.findOne({ where: { eventId: event }, lock: t.LOCK.UPDATE, transaction: t });
    const lock = { row: `event_totals:${event}`, kind: 'for update', sent,
      returned: now(), acquired: null };
    rec.locks.push(lock);
    await sequelize.query(
      'SELECT count(*) AS n, coalesce(sum(seats), 0) AS seats FROM bookings WHERE event_id = $1',
      { bind: [event], type: QueryTypes.SELECT, transaction: t });
    await sleep(rand(150, 300));                    // render the PDF
    const [, rows] = await EventTotals.update({ settled: sequelize.literal('settled + 1') },
      { where: { eventId: event }, returning: true, transaction: t });
    lock.stamped = rows[0].lockedAt.getTime();      // upper bound of acquired
    rec.pid = rows[0].lockedPid;
  });
}

// POST /prices: REPEATABLE READ read-modify-write of an event's price; a
// concurrent reprice makes it fail with 40001, retried up to MAX_ATTEMPTS.
async function reprice({ event }) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTx('POST /prices', attempt,
        { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (t, rec) => {
          const p = await TicketPrice.findByPk(event, { transaction: t });
          await sleep(rand(30, 60));                // demand model
          const price = (Number(p.price) * (0.95 + Math.random() * 0.1)).toFixed(2);
          await lockedBy(rec, `ticket_prices:${event}`,
            TicketPrice.update({ price }, { where: { eventId: event }, returning: true,
              transaction: t }),
            (r) => ({ at: r[1][0].lockedAt, pid: r[1][0].lockedPid }));
        });
    } catch (e) {
      if (sqlstate(e) !== '40001' || attempt >= MAX_ATTEMPTS) throw e;
      await sleep(rand(5, 20));
    }
  }
}

const routes = {
  '/bookings': book, '/checkins': checkin, '/transfers': transfer,
  '/settlements': settle, '/prices': reprice,
};

function reply(res, code, obj) {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

// The server clock minus this host's, from the fastest of N round trips
// through pgbouncer (written to the truth as a {"clock": ...} line).
async function clockOffset(label, n = 15) {
  let best = null;
  for (let i = 0; i < n; i++) {
    const c0 = now();
    const [r] = await sequelize.query(
      'SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS t',
      { type: QueryTypes.SELECT });
    const c1 = now();
    const cand = { rtt: c1 - c0, offset: r.t - (c0 + c1) / 2 };
    if (!best || cand.rtt < best.rtt) best = cand;
  }
  truth.write(JSON.stringify({ clock: label, at: now(), ...best }) + '\n');
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const fn = req.method === 'POST' && routes[req.url];
    if (!fn) return reply(res, 404, { error: 'no such route' });
    try {
      await fn(JSON.parse(Buffer.concat(chunks).toString() || '{}'));
      reply(res, 200, { ok: true });
    } catch (e) {
      const code = sqlstate(e);
      reply(res, code === '40P01' || code === '40001' ? 409 : 500,
        { error: code || String(e.message) });
    }
  });
});

(async () => {
  await sequelize.authenticate();
  await clockOffset('start');
  server.listen(PORT, '127.0.0.1');
})();

process.on('SIGUSR2', () => { clockOffset('end').catch(() => {}); });
