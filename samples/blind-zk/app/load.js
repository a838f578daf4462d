// The load generator (no tracing): CLIENTS concurrent clients, each sending
// one request after the other for DURATION_S seconds, routes drawn by share.
// node load.js APPPORT CLIENTS DURATION_S
'use strict';
const http = require('http');
const [port, clients, dur] = process.argv.slice(2).map(Number);
const rnd = (a, b) => a + Math.floor(Math.random() * (b - a + 1));
const hot = (p, hotId, lo, hi) => (Math.random() < p ? hotId : rnd(lo, hi));
function pick() {
  const r = Math.random();
  if (r < 0.30) return `/orders/${hot(0.5, 1, 1, 3)}`;
  if (r < 0.55) return `/pages/${hot(0.6, 1, 1, 3)}/hit`;
  if (r < 0.67) return `/warehouses/${hot(0.5, 1, 1, 2)}/reserve`;
  if (r < 0.77) { const a = rnd(1, 4); let b = rnd(1, 3); if (b >= a) b++; return `/transfers/${a}/${b}`; }
  return `/products/${hot(0.4, 1, 1, 3)}/reprice`;
}
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const stats = {};
function send(path) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent }, (res) => {
      res.resume(); res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
async function client(until) {
  while (Date.now() < until) {
    const p = pick();
    const code = await send(p);
    const k = p.split('/')[1] + ' ' + code;
    stats[k] = (stats[k] || 0) + 1;
  }
}
const until = Date.now() + dur * 1000;
Promise.all(Array.from({ length: clients }, () => client(until))).then(() => {
  console.error('load:', JSON.stringify(stats));
  agent.destroy();
});
