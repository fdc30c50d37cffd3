/**
 * @module settings/otel
 * The OpenTelemetry export area: whether finished spans also go out over OTLP/HTTP (protobuf),
 * and how they are batched. The standard `OTEL_*` variables are read as the specification
 * names them, so a deployment's existing OpenTelemetry environment works unchanged. The
 * exporter itself (the official SDK's) reads the endpoint, headers, timeout and certificates
 * from the process environment; this area decides only whether to build it, refuses what it
 * could not honour, and reads the batching variables the SDK leaves to whoever builds the
 * processor.
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | none (no export) | the collector's base URL; traces go to `{url}/v1/traces` |
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | none | the full traces URL, instead of the base one |
 * | `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` | `http/protobuf` | only `http/protobuf` is spoken |
 * | `OTEL_SDK_DISABLED` | `false` | `true` turns export off |
 * | `OTEL_TRACES_EXPORTER` | `otlp` | `none` turns export off |
 * | `OTEL_BSP_SCHEDULE_DELAY` | 5000 | ms a finished span may wait for its batch |
 * | `OTEL_BSP_EXPORT_TIMEOUT` | 30000 | ms one batch's export may take, retries included |
 * | `OTEL_BSP_MAX_QUEUE_SIZE` | 2048 | spans held while the collector is slow; more are dropped |
 * | `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` | 512 | spans per request |
 * | `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`, `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` | 16384 (the span store's bound) | the most an exported attribute value keeps, in UTF-8 bytes |
 *
 * Read by the SDK itself: `OTEL_EXPORTER_OTLP[_TRACES]_HEADERS`, `_TIMEOUT`, `_COMPRESSION`,
 * `_CERTIFICATE`, `_CLIENT_KEY`, `_CLIENT_CERTIFICATE`, `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`.
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { httpBaseUrl, list, oneOf, wholeNumber } from './fields.js';

export interface OtelSettings {
  /** Spans are exported: an endpoint is set and neither switch turns export off. */
  enabled: boolean;
  /** The BatchSpanProcessor's options, as the SDK names them. */
  batch: { scheduledDelayMillis: number; exportTimeoutMillis: number; maxQueueSize: number; maxExportBatchSize: number };
  /** The most an attribute value keeps, in UTF-8 bytes; undefined: the span store's bound. */
  attributeValueLimit: number | undefined;
}

// Credentials belong in the headers variable, where the exporter sends them and nothing logs them.
const KEY_HINT = 'put the credentials in OTEL_EXPORTER_OTLP_HEADERS';

// The exporter built is the protobuf one; a gRPC or JSON collector would be sent what it cannot read.
const protocol = oneOf(['http/protobuf']);

const exporters = list(['otlp']).superRefine((names, ctx) => {
  const unknown = names.find((n) => n !== 'otlp' && n !== 'none');
  if (unknown !== undefined) ctx.addIssue({ code: 'custom', message: `must be otlp or none, got "${unknown}"` });
});

export const otelSettingsSchema = z
  .object({
    OTEL_EXPORTER_OTLP_ENDPOINT: httpBaseUrl(KEY_HINT),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpBaseUrl(KEY_HINT),
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
    // The specification's booleans: only "true" (any case) turns the SDK off.
    OTEL_SDK_DISABLED: oneOf(['true', 'false'], { lowercase: true }),
    OTEL_TRACES_EXPORTER: exporters,
    OTEL_BSP_SCHEDULE_DELAY: wholeNumber({ min: 0, max: 3_600_000, default: 5000 }),
    OTEL_BSP_EXPORT_TIMEOUT: wholeNumber({ min: 1, max: 3_600_000, default: 30_000 }),
    OTEL_BSP_MAX_QUEUE_SIZE: wholeNumber({ min: 1, max: 1_000_000, default: 2048 }),
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: wholeNumber({ min: 1, max: 1_000_000, default: 512 }),
    OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: wholeNumber({ min: 64, max: 1_048_576 }),
    OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: wholeNumber({ min: 64, max: 1_048_576 }),
  })
  .superRefine((env, ctx) => {
    if (env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE > env.OTEL_BSP_MAX_QUEUE_SIZE) {
      ctx.addIssue({ code: 'custom', message: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not be larger than OTEL_BSP_MAX_QUEUE_SIZE' });
    }
  })
  .transform(
    (env): OtelSettings => ({
      enabled:
        (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) &&
        env.OTEL_SDK_DISABLED !== 'true' &&
        env.OTEL_TRACES_EXPORTER.includes('otlp') &&
        !env.OTEL_TRACES_EXPORTER.includes('none'),
      batch: {
        scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
        exportTimeoutMillis: env.OTEL_BSP_EXPORT_TIMEOUT,
        maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
        maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      },
      attributeValueLimit: env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT ?? env.OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT,
    }),
  );

/** The export settings `env` holds; a value the exporter could not honour stops the start. */
export function readOtelSettings(env: Readonly<Environment>): OtelSettings {
  return readEnvironment(otelSettingsSchema, env);
}
