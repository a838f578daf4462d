'use strict';
// A tiny trace receiver on 127.0.0.1: what an OpenTelemetry collector with a
// file exporter and a Zipkin server would store.
//   POST /v1/traces    OTLP/HTTP JSON  -> OUTDIR/traces.otlp.jsonl, one
//                      TracesData object per line, re-marshalled the way the
//                      collector's file exporter (pdata JSON) writes it:
//                      int64 as decimal strings, zero values omitted,
//                      fields in proto order, "status":{} kept.
//   POST /api/v2/spans Zipkin v2 JSON  -> OUTDIR/traces.zipkin.json, one
//                      JSON array holding every span received.
// Usage: node receiver.js PORT OUTDIR
const fs = require('fs');
const http = require('http');
const path = require('path');

const port = Number(process.argv[2]);
const outdir = process.argv[3];
const otlpPath = path.join(outdir, 'traces.otlp.jsonl');
const zipkinPath = path.join(outdir, 'traces.zipkin.json');
fs.writeFileSync(otlpPath, '');
const zipkinSpans = [];
fs.writeFileSync(zipkinPath, '[]\n');

function nonEmpty(v) {
  if (v === undefined || v === null) return false;
  if (v === 0 || v === '0' || v === '' || v === false) return false;
  if (Array.isArray(v) && v.length === 0) return false;
  return true;
}
function i64(v) { return typeof v === 'string' ? v : String(v); }

function anyValue(v) {
  if (v === undefined || v === null) return {};
  if ('stringValue' in v) return { stringValue: v.stringValue };
  if ('boolValue' in v) return { boolValue: v.boolValue };
  if ('intValue' in v) return { intValue: i64(v.intValue) };
  if ('doubleValue' in v) return { doubleValue: v.doubleValue };
  if ('bytesValue' in v) return { bytesValue: v.bytesValue };
  if ('arrayValue' in v) {
    return { arrayValue: { values: ((v.arrayValue || {}).values || []).map(anyValue) } };
  }
  if ('kvlistValue' in v) {
    return { kvlistValue: { values: attrs((v.kvlistValue || {}).values || []) } };
  }
  return {};
}
function attrs(list) {
  return (list || []).map((kv) => ({ key: kv.key, value: anyValue(kv.value) }));
}
// Build an object with the given fields in order, skipping zero values.
function pick(pairs) {
  const o = {};
  for (const [k, v] of pairs) if (nonEmpty(v)) o[k] = v;
  return o;
}
function span(s) {
  const o = pick([
    ['traceId', s.traceId], ['spanId', s.spanId], ['traceState', s.traceState],
    ['parentSpanId', s.parentSpanId], ['flags', s.flags], ['name', s.name],
    ['kind', s.kind],
    ['startTimeUnixNano', s.startTimeUnixNano && i64(s.startTimeUnixNano)],
    ['endTimeUnixNano', s.endTimeUnixNano && i64(s.endTimeUnixNano)],
    ['attributes', attrs(s.attributes)],
    ['droppedAttributesCount', s.droppedAttributesCount],
    ['events', (s.events || []).map((e) => pick([
      ['timeUnixNano', e.timeUnixNano && i64(e.timeUnixNano)], ['name', e.name],
      ['attributes', attrs(e.attributes)],
      ['droppedAttributesCount', e.droppedAttributesCount]]))],
    ['droppedEventsCount', s.droppedEventsCount],
    ['links', (s.links || []).map((l) => pick([
      ['traceId', l.traceId], ['spanId', l.spanId], ['traceState', l.traceState],
      ['attributes', attrs(l.attributes)],
      ['droppedAttributesCount', l.droppedAttributesCount], ['flags', l.flags]]))],
    ['droppedLinksCount', s.droppedLinksCount],
  ]);
  const st = s.status || {};
  o.status = pick([['message', st.message], ['code', st.code]]);
  return o;
}
function tracesData(req) {
  return {
    resourceSpans: (req.resourceSpans || []).map((rs) => pick([
      ['resource', pick([['attributes', attrs((rs.resource || {}).attributes)],
        ['droppedAttributesCount', (rs.resource || {}).droppedAttributesCount]])],
      ['scopeSpans', (rs.scopeSpans || []).map((ss) => pick([
        ['scope', pick([['name', (ss.scope || {}).name], ['version', (ss.scope || {}).version],
          ['attributes', attrs((ss.scope || {}).attributes)]])],
        ['spans', (ss.spans || []).map(span)],
        ['schemaUrl', ss.schemaUrl]]))],
      ['schemaUrl', rs.schemaUrl]])),
  };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      res.writeHead(400); res.end(); return;
    }
    if (req.method === 'POST' && req.url === '/v1/traces') {
      fs.appendFileSync(otlpPath, JSON.stringify(tracesData(body)) + '\n');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    } else if (req.method === 'POST' && req.url === '/api/v2/spans') {
      for (const s of body) zipkinSpans.push(s);
      fs.writeFileSync(zipkinPath + '.tmp', JSON.stringify(zipkinSpans) + '\n');
      fs.renameSync(zipkinPath + '.tmp', zipkinPath);
      res.writeHead(202); res.end();
    } else {
      res.writeHead(404); res.end();
    }
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write('receiver listening on 127.0.0.1:' + port + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
