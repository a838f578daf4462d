// Two small local services, NOT instrumented:
//  - the slow partner (POST /charge) the booking calls inside its transaction;
//  - an OTLP/HTTP JSON receiver (POST /v1/traces) that appends each request
//    body, as received, as one line of OTLP_OUT.
'use strict';
const http = require('http');
const fs = require('fs');

const PARTNER_PORT = Number(process.env.PARTNER_PORT);
const OTLP_PORT = Number(process.env.OTLP_PORT);
const out = fs.createWriteStream(process.env.OTLP_OUT, { flags: 'a' });

function body(req, cb) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => cb(Buffer.concat(chunks)));
}

http.createServer((req, res) => {
  body(req, () => {
    // the partner's payment API: 80-260 ms
    const ms = 80 + Math.floor(Math.random() * 180);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ charged: true, ms }));
    }, ms);
  });
}).listen(PARTNER_PORT, '127.0.0.1');

http.createServer((req, res) => {
  body(req, (b) => {
    if (req.url === '/v1/traces' && req.method === 'POST') {
      const line = b.toString('utf8').replace(/\n/g, '');
      out.write(line + '\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
}).listen(OTLP_PORT, '127.0.0.1');

process.on('SIGTERM', () => out.end(() => process.exit(0)));
