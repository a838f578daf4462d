// Concurrent HTTP clients for DURATION_S seconds against shop-api.
'use strict';
const http = require('http');
const PORT = Number(process.env.APP_PORT);
const DURATION = Number(process.env.DURATION_S || 25) * 1000;
const CLIENTS = Number(process.env.CLIENTS || 12);
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
  if (r < 0.30) return ['/checkout', { sku: Math.random() < 0.8 ? 'SKU-1' : pick(['SKU-2', 'SKU-3']), merchant: pick([1, 2]) }];
  if (r < 0.60) {
    const [a, b] = pick([[1, 2], [2, 1], [1, 3], [3, 1], [2, 3]]);
    return ['/transfer', { from: a, to: b, amount: 1 }];
  }
  if (r < 0.92) return ['/payments', { merchant: Math.random() < 0.85 ? 1 : 2, amount: 10 }];
  return ['/reprice', { sku: 'SKU-1' }];
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
