// A tiny Zipkin collector and the slow "pricing" stub, one process, no
// tracing. node collector.js ZIPKIN_PORT STUB_PORT OUTFILE
//  - POST /api/v2/spans on ZIPKIN_PORT: the body is appended to OUTFILE
//    byte for byte, followed by one '\n' (the exporter's bodies are
//    single-line JSON arrays: one body a line); 202.
//  - GET /quote?ms=N on STUB_PORT: answers after N ms (the app draws N).
// SIGTERM closes both and exits once the file is flushed.
'use strict';
const http = require('http');
const fs = require('fs');
const [zport, sport, outfile] = process.argv.slice(2);
const fd = fs.openSync(outfile, 'w');
let bodies = 0;
const zipkin = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'POST' && req.url.startsWith('/api/v2/spans')) {
      const body = Buffer.concat(chunks);
      fs.writeSync(fd, body);
      fs.writeSync(fd, '\n');
      bodies++;
      res.writeHead(202); res.end();
    } else { res.writeHead(404); res.end(); }
  });
});
const stub = http.createServer((req, res) => {
  const ms = Number(new URL(req.url, 'http://x').searchParams.get('ms') || 200);
  setTimeout(() => { res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, ms })); }, ms);
});
zipkin.listen(Number(zport), '127.0.0.1');
stub.listen(Number(sport), '127.0.0.1');
process.on('SIGTERM', () => {
  fs.fsyncSync(fd); fs.closeSync(fd);
  console.error(`collector: ${bodies} bodies`);
  process.exit(0);
});
