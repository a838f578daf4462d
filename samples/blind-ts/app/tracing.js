// OpenTelemetry auto-instrumentation, loaded before the app (node -r ./tracing.js).
// Spans leave UNTOUCHED through the stock OTLP/HTTP JSON exporter to
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (a local receiver in stubs.js).
'use strict';
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg');
const { TypeormInstrumentation } = require('opentelemetry-instrumentation-typeorm');

const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME || 'box-office',
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), {
    maxQueueSize: 100000, maxExportBatchSize: 512, scheduledDelayMillis: 1000,
  })],
  instrumentations: [
    new HttpInstrumentation(),
    new PgInstrumentation(),
    new TypeormInstrumentation(),
  ],
});
sdk.start();

async function shutdown() {
  try { await sdk.shutdown(); } catch (e) { console.error('otel shutdown', e); }
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
