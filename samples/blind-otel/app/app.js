// shop-api: a small Express + knex service whose routes contend on hot rows.
// Besides serving, it records the client-side TRUTH of every transaction
// (one JSON line each in TRUTH_OUT): route, backend pid, trace id, when each
// row lock was taken and when it was let go, and how it ended (commit, 40P01,
// 40001). The event loop may see a result late (GC, a busy CPU), so times are
// bounds: a locking statement RETURNs the server's clock_timestamp() once it
// has the row (locked_at, exact), and a lock is let go between the moment
// COMMIT/ROLLBACK is sent (end_start) and the moment it returned (end).
'use strict';
const express = require('express');
const http = require('http');
const fs = require('fs');
const { performance } = require('perf_hooks');
const otel = require('@opentelemetry/api');

const PORT = Number(process.env.APP_PORT);
const PARTNER = `http://127.0.0.1:${process.env.PARTNER_PORT}/reserve`;
const TRUTH_OUT = process.env.TRUTH_OUT;

const knex = require('knex')({
  client: 'pg',
  connection: {
    host: '127.0.0.1', port: Number(process.env.PGPORT),
    user: 'postgres', database: 'shop', application_name: 'shop-api',
  },
  pool: { min: 4, max: 24 },
});

const now = () => performance.timeOrigin + performance.now(); // ms since epoch
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let txSeq = 0;

// Call the partner's reservation API (slow, outside our control).
function reserveAtPartner(sku) {
  return new Promise((resolve, reject) => {
    const req = http.request(PARTNER, { method: 'POST',
      headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ sku }));
  });
}

// Run fn(trx, lock) in one transaction on a connection whose backend pid we
// know; lock(row, promise) awaits a locking statement and notes the time it
// returned. Writes the truth record whatever the outcome; rethrows errors.
async function inTx(route, opts, fn) {
  const conn = await knex.client.acquireConnection();
  const span = otel.trace.getActiveSpan();
  const rec = {
    tx: ++txSeq, route, pid: conn.processID,
    trace_id: span ? span.spanContext().traceId : null,
    isolation: opts.isolationLevel || 'read committed',
    start: now(), locks: [], outcome: null, sqlstate: null,
  };
  const lock = async (row, p) => {
    const t0 = now();
    try {
      const r = await p.returning(knex.raw(
        'extract(epoch FROM clock_timestamp())::float8 * 1000 AS locked_at'));
      rec.locks.push({ row, stmt_start: t0, acquired: now(), locked_at: r[0].locked_at });
      return r;
    } catch (e) { // a deadlock or serialization failure while waiting
      rec.failed_lock = { row, stmt_start: t0, failed_at: now(), sqlstate: e.code || null };
      throw e;
    }
  };
  try {
    const trx = await knex.transaction({ ...opts, connection: conn });
    try {
      await fn(trx, lock);
      rec.end_start = now();
      await trx.commit();
      rec.end = now();
      rec.outcome = 'commit';
    } catch (e) {
      rec.end_start = now();
      if (!trx.isCompleted()) await trx.rollback(e).catch(() => {});
      rec.end = now();
      rec.outcome = 'rollback';
      rec.sqlstate = e.code || null;
      rec.error = String(e.message || e).slice(0, 200);
      throw e;
    }
  } finally {
    knex.client.releaseConnection(conn);
    fs.appendFileSync(TRUTH_OUT, JSON.stringify(rec) + '\n');
  }
}

const app = express();
app.use(express.json());

// Checkout: reserve stock, ask the partner, record the order, commit.
// The partner call happens while the inventory row is locked.
async function checkout(req, res) {
  const { sku, merchant } = req.body;
  await inTx('POST /checkout', {}, async (trx, lock) => {
    await lock(`inventory:${sku}`,
      trx('inventory').where({ sku }).decrement('stock', 1));
    await reserveAtPartner(sku);
    await trx('orders').insert({ sku, merchant_id: merchant });
  });
  res.json({ ok: true });
}

// Transfer: debit then credit, in the order the request names the wallets.
async function transfer(req, res) {
  const { from, to, amount } = req.body;
  try {
    await inTx('POST /transfer', {}, async (trx, lock) => {
      await lock(`wallets:${from}`, trx('wallets').where({ id: from })
        .decrement('balance', amount));
      await sleep(15 + Math.random() * 25); // fraud check
      await lock(`wallets:${to}`, trx('wallets').where({ id: to })
        .increment('balance', amount));
    });
    res.json({ ok: true });
  } catch (e) {
    if (e.code === '40P01') return res.status(409).json({ error: 'deadlock' });
    throw e;
  }
}

// Payment: the INSERT fires a trigger that bumps the merchant's totals row.
async function payment(req, res) {
  const { merchant, amount } = req.body;
  await inTx('POST /payments', {}, async (trx, lock) => {
    await lock(`merchant_totals:${merchant}`,
      trx('payments').insert({ merchant_id: merchant, amount }));
    await sleep(10 + Math.random() * 30); // receipt rendering
    await trx('payments').where({ merchant_id: merchant }).count('* as n');
  });
  res.json({ ok: true });
}

// Reprice: read the price, compute, write it back, under REPEATABLE READ;
// a concurrent reprice makes it fail with 40001, and it is retried.
async function reprice(req, res) {
  const { sku } = req.body;
  for (let attempt = 1; attempt <= 4; attempt++) {
    try {
      await inTx('POST /reprice', { isolationLevel: 'repeatable read' },
        async (trx, lock) => {
          const row = await trx('products').where({ sku }).first('price');
          await sleep(20 + Math.random() * 20); // pricing model
          await lock(`products:${sku}`, trx('products').where({ sku })
            .update({ price: Number(row.price) + 1 }));
        });
      return res.json({ ok: true, attempt });
    } catch (e) {
      if (e.code !== '40001' || attempt === 4) throw e;
      await sleep(5);
    }
  }
}

const wrap = (f) => (req, res) => f(req, res).catch((e) => {
  res.status(500).json({ error: e.code || String(e) });
});
app.post('/checkout', wrap(checkout));
app.post('/transfer', wrap(transfer));
app.post('/payments', wrap(payment));
app.post('/reprice', wrap(reprice));

const server = app.listen(PORT, '127.0.0.1');
process.on('SIGUSR2', () => { server.close(); knex.destroy(); });
