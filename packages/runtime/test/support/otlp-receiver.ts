/**
 * @module test/support/otlp-receiver
 * A loopback OTLP/HTTP traces receiver for tests: a real node:http server that decodes each
 * POSTed ExportTraceServiceRequest from its protobuf bytes, so tests assert on what went over
 * the wire rather than on what the exporter was handed. The decoder is written from the
 * opentelemetry-proto field numbers (collector/trace/v1, trace/v1, common/v1, resource/v1) and
 * knows only what the tests read; unknown fields are skipped by wire type, as protobuf says.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A field as read off the wire: its number and its raw value by wire type. */
interface WireField {
  field: number;
  /** Wire type 0. */
  varint?: bigint;
  /** Wire type 1 (fixed64, little-endian). */
  fixed64?: bigint;
  /** Wire type 2. */
  bytes?: Buffer;
  /** Wire type 5. */
  fixed32?: number;
}

/** The fields of one protobuf message, in order. */
export function readFields(buffer: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buffer.length) throw new Error('protobuf: varint runs past the end');
      const byte = buffer[pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new Error('protobuf: varint longer than 10 bytes');
    }
  };
  while (pos < buffer.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) fields.push({ field, varint: varint() });
    else if (wire === 1) {
      fields.push({ field, fixed64: buffer.readBigUInt64LE(pos) });
      pos += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      if (pos + length > buffer.length) throw new Error('protobuf: length-delimited field runs past the end');
      fields.push({ field, bytes: buffer.subarray(pos, pos + length) });
      pos += length;
    } else if (wire === 5) {
      fields.push({ field, fixed32: buffer.readUInt32LE(pos) });
      pos += 4;
    } else throw new Error(`protobuf: wire type ${wire} (field ${field}) is not one OTLP uses`);
  }
  return fields;
}

const all = (fields: WireField[], n: number): WireField[] => fields.filter((f) => f.field === n);
const one = (fields: WireField[], n: number): WireField | undefined => fields.findLast((f) => f.field === n);
const str = (f: WireField | undefined): string => f?.bytes?.toString('utf8') ?? '';
const hex = (f: WireField | undefined): string => f?.bytes?.toString('hex') ?? '';

/** An AnyValue as JS: string 1, bool 2, int 3 (int64), double 4, array 5, kvlist 6, bytes 7. */
export type AnyValue = string | boolean | number | bigint | Buffer | AnyValue[] | { [key: string]: AnyValue } | undefined;

function anyValue(buffer: Buffer): AnyValue {
  const f = readFields(buffer).at(-1);
  if (!f) return undefined;
  switch (f.field) {
    case 1:
      return str(f);
    case 2:
      return f.varint !== 0n;
    case 3: {
      const n = BigInt.asIntN(64, f.varint ?? 0n);
      return Number.isSafeInteger(Number(n)) ? Number(n) : n;
    }
    case 4: {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(f.fixed64 ?? 0n);
      return b.readDoubleLE(0);
    }
    case 5:
      // ArrayValue.values = 1
      return all(readFields(f.bytes ?? Buffer.alloc(0)), 1).map((v) => anyValue(v.bytes ?? Buffer.alloc(0)));
    case 6:
      // KeyValueList.values = 1
      return keyValues(all(readFields(f.bytes ?? Buffer.alloc(0)), 1));
    case 7:
      return f.bytes;
    default:
      throw new Error(`protobuf: AnyValue field ${f.field} is unknown`);
  }
}

/** Repeated KeyValue (key 1, value 2) as an object. */
function keyValues(fields: WireField[]): Record<string, AnyValue> {
  const out: Record<string, AnyValue> = {};
  for (const kv of fields) {
    const inner = readFields(kv.bytes ?? Buffer.alloc(0));
    const value = one(inner, 2);
    out[str(one(inner, 1))] = value?.bytes ? anyValue(value.bytes) : undefined;
  }
  return out;
}

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** The proto's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AnyValue>;
  /** code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  scope: { name: string; version: string };
  resource: Record<string, AnyValue>;
}

function decodeSpan(buffer: Buffer, scope: DecodedSpan['scope'], resource: DecodedSpan['resource']): DecodedSpan {
  const f = readFields(buffer);
  const status = readFields(one(f, 15)?.bytes ?? Buffer.alloc(0));
  return {
    traceId: hex(one(f, 1)),
    spanId: hex(one(f, 2)),
    parentSpanId: hex(one(f, 4)),
    name: str(one(f, 5)),
    kind: Number(one(f, 6)?.varint ?? 0n),
    startTimeUnixNano: one(f, 7)?.fixed64 ?? 0n,
    endTimeUnixNano: one(f, 8)?.fixed64 ?? 0n,
    attributes: keyValues(all(f, 9)),
    status: { code: Number(one(status, 3)?.varint ?? 0n), message: str(one(status, 2)) },
    scope,
    resource,
  };
}

/** The spans of an ExportTraceServiceRequest, each with its scope and resource. */
export function decodeExportRequest(body: Buffer): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  // ExportTraceServiceRequest.resource_spans = 1
  for (const rs of all(readFields(body), 1)) {
    const rsFields = readFields(rs.bytes ?? Buffer.alloc(0));
    // ResourceSpans.resource = 1 (Resource.attributes = 1), scope_spans = 2
    const resource = keyValues(all(readFields(one(rsFields, 1)?.bytes ?? Buffer.alloc(0)), 1));
    for (const ss of all(rsFields, 2)) {
      const ssFields = readFields(ss.bytes ?? Buffer.alloc(0));
      // ScopeSpans.scope = 1 (InstrumentationScope name 1, version 2), spans = 2
      const scopeFields = readFields(one(ssFields, 1)?.bytes ?? Buffer.alloc(0));
      const scope = { name: str(one(scopeFields, 1)), version: str(one(scopeFields, 2)) };
      for (const span of all(ssFields, 2)) spans.push(decodeSpan(span.bytes ?? Buffer.alloc(0), scope, resource));
    }
  }
  return spans;
}

export interface ReceivedExport {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The status it was answered with. */
  status: number;
  spans: DecodedSpan[];
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedExport[];
  /** The spans of the requests answered 200. */
  accepted(): DecodedSpan[];
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1. `statuses` are the answers to the first requests, in order (a 503 with
 * `Retry-After: 0`, so the exporter retries at once); later ones get 200 and an empty
 * ExportTraceServiceResponse (an empty protobuf message is zero bytes).
 */
export async function startOtlpReceiver(statuses: readonly number[] = []): Promise<OtlpReceiver> {
  const answers = [...statuses];
  const requests: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, status, spans: decodeExportRequest(Buffer.concat(chunks)) });
      res.writeHead(status, { 'content-type': 'application/x-protobuf', ...(status === 503 ? { 'retry-after': '0' } : {}) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    accepted: () => requests.filter((r) => r.status === 200).flatMap((r) => r.spans),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
