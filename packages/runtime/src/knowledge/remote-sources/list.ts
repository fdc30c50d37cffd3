/**
 * @module knowledge/remote-sources/list
 * The one list of remote source kinds, one line each.
 *
 * A kind is its file (its class on base.ts, and its `defineRemoteSource(...)`) plus one line
 * here. registry.ts finds kinds by type and alias, and names them in its messages in this
 * list's order. REMOTE_SOURCE_TYPES (remote-source.ts, public) stays a tuple of its own, since
 * the contract cannot import the kinds that implement it without a cycle; the `satisfies`
 * below fails the build unless this list declares exactly those types, in that order.
 */
import { AZURE_BLOB_KIND } from './azure-blob.js';
import { GCS_KIND } from './gcs.js';
import { GITHUB_KIND } from './github.js';
import type { RemoteSourceKinds } from './kind.js';
import type { REMOTE_SOURCE_TYPES } from './remote-source.js';
import { S3_KIND } from './s3.js';
import { SHAREPOINT_KIND } from './sharepoint.js';

export const REMOTE_SOURCE_KINDS = [
  S3_KIND,
  GCS_KIND,
  AZURE_BLOB_KIND,
  SHAREPOINT_KIND,
  GITHUB_KIND,
] as const satisfies RemoteSourceKinds<typeof REMOTE_SOURCE_TYPES>;
