// Stock OpenTelemetry auto-instrumentation, loaded before the app
// (node -r ./tracing.js app.js): http, pg and the Sequelize
// instrumentation from npm. Spans leave UNTOUCHED through the stock Zipkin
// exporter (@opentelemetry/exporter-zipkin, Zipkin v2 JSON) to
// ZIPKIN_URL (the local collector in collector.js).
'use strict';
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { ZipkinExporter } = require('@opentelemetry/exporter-zipkin');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg');
const { SequelizeInstrumentation } = require('opentelemetry-instrumentation-sequelize');

const sdk = new NodeSDK({
  serviceName: process.env.OTEL_SERVICE_NAME || 'shop-sequelize',
  spanProcessors: [new BatchSpanProcessor(new ZipkinExporter({ url: process.env.ZIPKIN_URL }), {
    maxQueueSize: 200000, maxExportBatchSize: 512, scheduledDelayMillis: 1000,
  })],
  instrumentations: [
    new HttpInstrumentation(),
    new PgInstrumentation(),
    new SequelizeInstrumentation(),
  ],
});
sdk.start();
global.__otelShutdown = () => sdk.shutdown();
