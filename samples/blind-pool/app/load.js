// Concurrent HTTP clients for DURATION_S seconds against ticket-api.
'use strict';
const http = require('http');
const PORT = Number(process.env.APP_PORT);
const DURATION = Number(process.env.DURATION_S || 25) * 1000;
const CLIENTS = Number(process.env.CLIENTS || 14);
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
const pick = (a) => a[Math.floor(Math.random() * a.length)];

function post(path, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path, method: 'POST',
      agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume(); res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end(JSON.stringify(body));
  });
}

function nextRequest() {
  const r = Math.random();
  const hot = (p) => (Math.random() < p ? 1 : pick([2, 3]));
  if (r < 0.20) return ['/bookings', { event: hot(0.5), seats: pick([1, 1, 2, 4]), customer: `c${Math.floor(Math.random() * 1e6)}` }];
  if (r < 0.45) return ['/checkins', { event: hot(0.85), ticket: `t${Math.floor(Math.random() * 1e6)}` }];
  if (r < 0.78) {
    const [a, b] = pick([[1, 2], [2, 1], [1, 3], [3, 1], [2, 3], [3, 2]]);
    return ['/transfers', { from: a, to: b, amount: 5 }];
  }
  if (r < 0.83) return ['/settlements', { event: 1 }];
  return ['/prices', { event: hot(0.7) }];
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
