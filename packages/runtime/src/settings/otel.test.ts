/**
 * @module settings/otel.test
 * When spans are exported (an endpoint set, neither OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER
 * saying no), the batching variables, and the values refused because the exporter could not
 * honour them.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../errors.js';
import { readOtelSettings } from './otel.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

/** Reading `env` over an endpoint, deferred for toThrow. */
function refusal(env: Record<string, string>): () => unknown {
  return () => readOtelSettings({ ...ENDPOINT, ...env });
}

describe('readOtelSettings', () => {
  it('exports nothing without an endpoint, with the SDK defaults for batching', () => {
    expect(readOtelSettings({})).toEqual({
      enabled: false,
      batch: { scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 },
      attributeValueLimit: undefined,
    });
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_SERVICE_NAME: 'svc' }).enabled).toBe(false);
  });

  it('exports when either endpoint is set', () => {
    expect(readOtelSettings(ENDPOINT).enabled).toBe(true);
    expect(readOtelSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces' }).enabled).toBe(true);
  });

  it('stays off when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none', () => {
    expect(readOtelSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }).enabled).toBe(false);
    expect(readOtelSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'false' }).enabled).toBe(true);
    expect(readOtelSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(readOtelSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' }).enabled).toBe(true);
    expect(readOtelSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp,none' }).enabled).toBe(false);
  });

  it('reads the batching variables and the attribute bound (the span-specific one first)', () => {
    const s = readOtelSettings({
      ...ENDPOINT,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_EXPORT_TIMEOUT: '1000',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
    });
    expect(s.batch).toEqual({ scheduledDelayMillis: 200, exportTimeoutMillis: 1000, maxQueueSize: 100, maxExportBatchSize: 10 });
    expect(s.attributeValueLimit).toBe(4096);
    expect(readOtelSettings({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096', OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '1024' }).attributeValueLimit).toBe(1024);
  });

  it('refuses what the exporter could not honour, naming the variable', () => {
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(new ConfigurationError('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL, got "collector:4318"'));
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:pw@collector/v1/traces' })).toThrow(
      new ConfigurationError('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must not contain credentials; put the credentials in OTEL_EXPORTER_OTLP_HEADERS'),
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(new ConfigurationError('OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf, got "grpc"'));
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toThrow(new ConfigurationError('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf, got "http/json"'));
    expect(refusal({ OTEL_SDK_DISABLED: 'yes' })).toThrow(new ConfigurationError('OTEL_SDK_DISABLED must be true or false, got "yes"'));
    expect(refusal({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toThrow(new ConfigurationError('OTEL_TRACES_EXPORTER must be otlp or none, got "zipkin"'));
    expect(refusal({ OTEL_BSP_SCHEDULE_DELAY: '5s' })).toThrow(new ConfigurationError('OTEL_BSP_SCHEDULE_DELAY must be a whole number from 0 to 3600000, got "5s"'));
    expect(refusal({ OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' })).toThrow(
      new ConfigurationError('OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not be larger than OTEL_BSP_MAX_QUEUE_SIZE'),
    );
  });
});
