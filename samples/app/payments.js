'use strict';
// The external "payments-api" the checkout path calls inside its transaction:
// POST /charge (or /customers/N/charge) answers after a 300-600 ms delay
// (deterministic sequence from a seed).  Listens on 127.0.0.1 only.
// Usage: node payments.js PORT [SEED]
const http = require('http');

const port = Number(process.argv[2]);
let state = Number(process.argv[3] || 7) >>> 0;
function rand() { // mulberry32
  state = (state + 0x6D2B79F5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    if (req.method !== 'POST' || !/^\/(customers\/[0-9]+\/)?charge$/.test(req.url)) {
      res.writeHead(404); res.end(); return;
    }
    const delay = 300 + Math.floor(rand() * 300);
    setTimeout(() => {
      const out = JSON.stringify({ status: 'charged', delay_ms: delay,
        traceparent: req.headers.traceparent || null });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(out);
    }, delay);
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write('payments listening on 127.0.0.1:' + port + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
