/**
 * @module knowledge/ingest/metadata
 * What a caller may set on content: metadata keys (the same rule as filter keys, so every
 * stored key can be filtered on, and never one the pipeline writes itself) and the owner.
 */
import { badRequest } from '../../errors.js';
import type { Metadata } from '../types.js';

const METADATA_KEY = /^[\p{L}\p{N}_.-]{1,100}$/u;

/**
 * Keys the pipeline writes on every chunk (position, provenance, scores): a caller setting one
 * would overwrite what readers and chunkers recorded, and filters on it would lie.
 */
export const RESERVED_METADATA_KEYS: ReadonlySet<string> = new Set([
  'chunk',
  'chunk_size',
  'content_id',
  'page',
  'page_start',
  'page_end',
  'slide',
  'slide_start',
  'slide_end',
  'row_number',
  'url',
  'linked_to',
  'similarity_score',
  'remote',
]);

export function checkMetadata(metadata: unknown): Metadata {
  if (metadata === undefined) return {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw badRequest('metadata must be an object');
  for (const key of Object.keys(metadata)) {
    if (!METADATA_KEY.test(key)) throw badRequest(`metadata key "${key}" must be 1-100 letters, digits, "_", "." or "-"`);
    if (RESERVED_METADATA_KEYS.has(key)) {
      throw badRequest(`metadata key "${key}" is reserved: the pipeline sets it on every chunk (reserved: ${[...RESERVED_METADATA_KEYS].join(', ')})`);
    }
  }
  return { ...(metadata as Metadata) };
}

/** An owner or searching user: a non-empty string (a JWT `sub`, `sa:<name>`, an SDK caller's id). */
/** A tenant id as the SDK takes it (auth/tenancy.ts allows up to 200 characters). */
export function checkTenantId(tenantId: unknown): void {
  if (tenantId === undefined) return;
  if (typeof tenantId !== 'string' || tenantId.length === 0 || tenantId.length > 256) throw badRequest('tenantId must be a string of 1 to 256 characters');
}

export function checkUserId(userId: unknown): void {
  if (userId === undefined) return;
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > 256) throw badRequest('userId must be a string of 1 to 256 characters');
}
