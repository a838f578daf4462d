// Concurrent HTTP clients for DURATION_S seconds against box-office. Each
// request carries an x-request-id the app puts into its truth records.
'use strict';
const http = require('http');
const PORT = Number(process.env.APP_PORT);
const DURATION = Number(process.env.DURATION_S || 25) * 1000;
const CLIENTS = Number(process.env.CLIENTS || 12);
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
const pick = (a) => a[Math.floor(Math.random() * a.length)];
let seq = 0;

function post(path, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'x-request-id': String(++seq) } }, (res) => {
      res.resume(); res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(JSON.stringify(body));
  });
}

function nextRequest() {
  const r = Math.random();
  if (r < 0.22) return ['/bookings', { event: Math.random() < 0.75 ? 1 : pick([2, 3]) }];
  if (r < 0.52) {
    const [a, b] = pick([[1, 2], [2, 1], [2, 3], [3, 2], [1, 3], [4, 1]]);
    return ['/seats/swap', { a, b }];
  }
  return [`/pages/${Math.random() < 0.85 ? 'home' : 'events'}/hit`, {}];
}

async function client(stats) {
  const end = Date.now() + DURATION;
  while (Date.now() < end) {
    const [path, body] = nextRequest();
    const code = await post(path, body);
    const k = `${path} ${code}`;
    stats[k] = (stats[k] || 0) + 1;
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
  }
}

(async () => {
  const stats = {};
  await Promise.all(Array.from({ length: CLIENTS }, () => client(stats)));
  console.log(JSON.stringify(stats, null, 1));
  agent.destroy();
})();
