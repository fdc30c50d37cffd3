/**
 * @module server/idempotency
 * The `Idempotency-Key` header on the POSTs that make a run or a record (idempotency/): the
 * first request with a key makes it; a repeat within 24 hours (on any runtime) answers what the
 * first made, with the same status and body shape and `Idempotent-Replayed: true`; the same key
 * with another request is 409 IDEMPOTENCY_KEY_REUSED. Keys are per principal.
 */
import { createHash } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Principal } from '../auth/principal.js';
import { RuntimeError } from '../errors.js';
import { requestFingerprint } from '../idempotency/fingerprint.js';
import type { Claim, IdempotencyStore, KeyRef } from '../idempotency/idempotency-store.js';
import type { AppEnv } from './context.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a repeat waits for the first request to make its record before answering 409. */
const WAIT_FOR_FIRST_MS = 30_000;

/** Printable ASCII, as the IETF draft and Stripe accept; at most 255 characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The key of this request, checked; undefined when it has none. */
export function idempotencyKey(c: Context<AppEnv>): string | undefined {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!KEY.test(key)) throw new RuntimeError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  return key;
}

/** The header that makes a POST idempotent (server/idempotency.ts). */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .openapi({
      description:
        'Up to 255 printable ASCII characters. A repeat within 24 hours (on any runtime) answers what the first request made, with `Idempotent-Replayed: true`; ' +
        'the same key with another request is 409 IDEMPOTENCY_KEY_REUSED. Keys are per caller',
    }),
});

/**
 * A request's fields as they count for sameness: a file (anything with `arrayBuffer`) as its
 * name, type, size and SHA-256, so a large upload is not kept or compared whole.
 */
export async function comparableFields(fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const file = value as { arrayBuffer?: unknown; name?: unknown; type?: unknown; size?: unknown } | null;
    if (file && typeof file === 'object' && typeof file.arrayBuffer === 'function') {
      const bytes = new Uint8Array(await (file.arrayBuffer as () => Promise<ArrayBuffer>)());
      out[name] = { name: file.name, type: file.type, size: file.size, sha256: createHash('sha256').update(bytes).digest('hex') };
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** Whose keys these are: a user (JWT sub, sa:<name>), the security key, or anonymous callers. */
function principalOf(principal: Principal | undefined): string {
  if (principal?.userId) return `user:${principal.userId}`;
  return principal?.kind ?? 'anonymous';
}

export interface IdempotentRequest {
  store: IdempotencyStore;
  key: string;
  /** The request as it counts for sameness (validated fields; a file as its digest). */
  body: unknown;
  /** The id of what the first request makes, when it is chosen before (a run's). */
  resourceId?: string;
  /** Makes the run or record; its response is stored for repeats unless `replay` re-reads. */
  create: () => Promise<Response>;
  /** Answers a repeat from what the first made; absent: the stored response is replayed. */
  replay?: (resourceId: string) => Promise<Response>;
}

/** Answers the request once per key: makes it the first time, replays it after. */
export async function idempotent(c: Context<AppEnv>, request: IdempotentRequest): Promise<Response> {
  const ref: KeyRef = { principal: principalOf(c.get('principal')), key: request.key };
  const fingerprint = requestFingerprint(c.req.method, c.req.path, request.body);
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const claim = await request.store.claim(ref, fingerprint, request.resourceId ?? null);
    if (claim.kind === 'mismatch') {
      throw new RuntimeError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request (a different method, path or body); use a new key');
    }
    if (claim.kind === 'new') return first(request, ref);
    const answer = await waitForFirst(request, ref, claim, deadline);
    if (answer) return replayed(answer);
    // The first request failed and freed the key: this one tries in its place.
  }
}

async function first(request: IdempotentRequest, ref: KeyRef): Promise<Response> {
  let response: Response;
  try {
    response = await request.create();
  } catch (error) {
    // Nothing was made: a retry with this key may try again.
    await request.store.release(ref).catch(() => undefined);
    throw error;
  }
  if (!request.replay) {
    const body = await response.clone().text();
    await request.store.complete(ref, { status: response.status, body });
  }
  return response;
}

/** The repeat's answer once the first request's run or record exists; undefined when the key was freed. */
async function waitForFirst(request: IdempotentRequest, ref: KeyRef, claim: Extract<Claim, { kind: 'repeat' }>, deadline: number): Promise<Response | undefined> {
  let current: Extract<Claim, { kind: 'repeat' }> | undefined = claim;
  for (;;) {
    if (!current) return undefined;
    if (request.replay && current.resourceId) return request.replay(current.resourceId);
    if (!request.replay && current.response) {
      return new Response(current.response.body, { status: current.response.status, headers: { 'content-type': 'application/json' } });
    }
    if (Date.now() >= deadline) {
      throw new RuntimeError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry later');
    }
    await new Promise((r) => setTimeout(r, 100));
    current = await request.store.repeat(ref);
  }
}

function replayed(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set(REPLAYED_HEADER, 'true');
  return new Response(response.body, { status: response.status, headers });
}
