/**
 * Bad requests for every operation of an OpenAPI document, generated with fast-check from a
 * fixed seed: wrong types, missing and extra fields, NUL characters, path tricks, property
 * names of Object.prototype, huge strings and numbers, deep nesting, malformed bodies.
 */
import fc from 'fast-check';

type Json = Record<string, any>;

export interface BadRequest {
  method: string;
  /** Path and query, already encoded. */
  path: string;
  headers: Record<string, string>;
  body?: string | FormData | undefined;
  /** What was generated, for the failure report. */
  label: string;
}

const TRICKY = [
  '\u0000',
  'a\u0000b',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  '..',
  '../../etc/passwd',
  '%2e%2e%2f',
  '%00',
  '%',
  '%E0%A4%A',
  '\ud800',
  'ä🙂',
  ' ',
  '',
  'null',
  'undefined',
  '-1',
  '1e400',
  '{"a":1}',
  '[]',
  '<script>',
];

/** A string a client should never send, or a harmless-looking one. */
export const badString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

const badNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** JSON text nested `depth` levels (objects under `a`, or arrays), written as text: too deep to build as a value and stringify. */
export function deepJson(depth: number, kind: 'object' | 'array'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** Any JSON value, with an occasional bad string, deep structure or prototype key. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: badString },
  { weight: 2, arbitrary: badNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom({ ['__proto__']: { polluted: true } }, { constructor: { prototype: { polluted: true } } }) },
);

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  jsonBody?: Json | undefined;
  formBody: boolean;
}

export function operations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const content = (op as Json).requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        params: ((op as Json).parameters ?? []) as { name: string; in: string }[],
        jsonBody: content['application/json']?.schema as Json | undefined,
        formBody: content['multipart/form-data'] !== undefined,
      });
    }
  }
  return ops;
}

/** Resolves `$ref`s into the document's components. */
function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema) return undefined;
  if (typeof schema.$ref === 'string') return resolve(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()!] as Json);
  return schema;
}

function propertiesOf(doc: Json, schema: Json | undefined): string[] {
  const s = resolve(doc, schema);
  if (!s) return [];
  const own = Object.keys((s.properties ?? {}) as Json);
  const variants = [...((s.anyOf ?? []) as Json[]), ...((s.oneOf ?? []) as Json[]), ...((s.allOf ?? []) as Json[])];
  return [...new Set([...own, ...variants.flatMap((v) => propertiesOf(doc, v))])];
}

function pathWith(op: Operation, fill: (name: string) => string, query: [string, string][]): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => fill(name));
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/** An arbitrary of bad requests for one operation. */
export function badRequestsFor(doc: Json, op: Operation, authorization: string): fc.Arbitrary<BadRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const fields = propertiesOf(doc, op.jsonBody);
  const encode = fc.oneof(
    badString.map((s) => {
      try {
        return encodeURIComponent(s);
      } catch {
        // A lone surrogate has no UTF-8 form: send the bytes a careless client would.
        return '%ED%A0%80';
      }
    }),
    fc.constantFrom('..', '%2e%2e', '.', '%00', '%2F', 'a%2Fb', '%ZZ', '__proto__', 'constructor'),
  );
  const pathPart = fc.record(Object.fromEntries(pathParams.map((n) => [n, encode]))) as fc.Arbitrary<Record<string, string>>;
  const query = fc.array(fc.tuple(fc.constantFrom(...queryParams, 'unknown', '__proto__'), badString.map(String)), { maxLength: 4 });
  const headers = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ authorization }) },
    { weight: 1, arbitrary: fc.constant({} as Record<string, string>) },
    { weight: 1, arbitrary: fc.constantFrom('Bearer svc_pat_', 'Bearer svc_pat_\u00e4', 'Basic Zm9vOmJhcg==', 'Bearer a.b.c', `Bearer ${'y'.repeat(13_000)}`).map((a) => ({ authorization: a })) },
  );
  const jsonObject = fc.dictionary(fc.oneof(fc.constantFrom(...(fields.length ? fields : ['x'])), badString), badValue, { maxKeys: 6 });
  const bodies: fc.Arbitrary<{ body?: string | FormData; contentType?: string; label: string }> = fc.oneof(
    { weight: 4, arbitrary: jsonObject.map((o) => ({ body: JSON.stringify(o), contentType: 'application/json', label: 'json object' })) },
    { weight: 1, arbitrary: badValue.map((v) => ({ body: JSON.stringify(v) ?? 'null', contentType: 'application/json', label: 'json value' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(fields.length ? fields : ['x'])), fc.constantFrom(100, 10_000), fc.constantFrom('object' as const, 'array' as const))
        .map(([field, depth, shape]) => ({ body: `{${JSON.stringify(field)}:${deepJson(depth, shape)}}`, contentType: 'application/json', label: `${field} nested ${depth} deep` })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"a":', '[1,', 'nul', '{"a":1}}', '\u0000', '').map((b) => ({ body: b, contentType: 'application/json', label: 'malformed json' })),
    },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x').map((t) => ({ body: 'a=b', contentType: t, label: `content-type ${t}` })) },
    {
      weight: op.formBody ? 2 : 0,
      arbitrary: fc.dictionary(fc.constantFrom(...(fields.length ? fields : ['x']), 'file', 'metadata'), badString, { maxKeys: 5 }).map((f) => {
        const form = new FormData();
        for (const [k, v] of Object.entries(f)) form.append(k, k === 'file' ? new Blob([v]) : v);
        return { body: form, label: 'form' };
      }),
    },
  );
  const withBody = op.method !== 'GET' && op.method !== 'DELETE' ? bodies : fc.constant({ label: 'no body' } as { body?: string; contentType?: string; label: string });
  return fc.record({ path: pathPart, query, headers, body: withBody }).map(({ path, query: q, headers: h, body }) => {
    const all: Record<string, string> = { ...h, ...(body.contentType ? { 'content-type': body.contentType } : {}) };
    return {
      method: op.method,
      path: pathWith(op, (name) => path[name] ?? 'x', q),
      headers: all,
      ...(body.body !== undefined ? { body: body.body } : {}),
      label: `${op.method} ${op.path} (${body.label})`,
    };
  });
}
