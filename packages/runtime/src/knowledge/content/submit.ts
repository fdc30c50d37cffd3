/**
 * @module knowledge/content/submit
 * Recording content and its ingestion job in one transaction. A content id is a digest of the
 * source and the settings that build it (not metadata), so uploading the same bytes again is the
 * same content: `write_mode` `upsert` (default) leaves completed content as it is and re-reads a
 * URL, topic or remote path, or retries failed content; `skip` never re-reads; `insert` is a
 * conflict. Another content under a name already used is a new version of it (versions.ts).
 */
import { RuntimeError } from '../../errors.js';
import type { StagedData } from '../../jobs/job-store.js';
import type { SqlClient } from '../../storage/db.js';
import { isUniqueViolation } from '../../storage/sql-errors.js';
import type { IngestPlan } from '../ingest/plan.js';
import type { InsertChoices, SourceLocation } from '../options.js';
import type { Metadata } from '../types.js';
import type { ContentKnowledge } from './content-knowledge.js';
import { ContentStore, type ContentRecord } from './content-store.js';
import { ingestKind, ingestRef, type IngestPayload } from './ingest-job.js';
import type { RemoteLocation } from './remote-content.js';
import type { ContentService } from './service.js';
import { hasNewerVersion, latestVersion, markUploaded } from './versions.js';

export const WRITE_MODES = ['upsert', 'insert', 'skip'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

/**
 * What is submitted: bytes or text (stored with the job) or a location or topic, with the plan
 * the upload resolved for it; or a remote path, whose files are planned as they are read.
 */
export type Submission = { plan: IngestPlan } & ({ file: Uint8Array } | { text: string } | SourceLocation) | { remote: RemoteLocation; contentId: string };

/** The record, and whether a job was queued for it (false: it was there and stays as it is). */
export interface Outcome {
  record: ContentRecord;
  queued: boolean;
}

/** The record's own fields, as the upload gave them. */
export interface RecordFields {
  name: string | null;
  description: string | null;
  metadata: Metadata | null;
  file_type: string | null;
  size: number | null;
  reader_id: string | null;
  chunker: string | null;
  /** The uploading caller's tenant under tenancy (auth/tenancy.ts). */
  tenant_id?: string | undefined;
}

/**
 * Records content and its ingestion job in one transaction, or (same content already there)
 * applies the write mode: `insert` refuses, `skip` changes nothing, `upsert` changes nothing
 * for completed bytes but queues a URL (to re-read) or failed content (to retry).
 *
 * `version` is the name this upload is a version of (see versions.ts), when it has one. Under
 * `upsert` it replaces that name's earlier versions when it completes, and bytes already stored
 * are queued again when a later version exists, so the last upload is the one searched; under
 * `skip` a name already used keeps its newest version and uploads nothing; `insert` adds a
 * record beside them and replaces nothing.
 */
export async function submit(
  service: ContentService,
  knowledge: ContentKnowledge,
  mode: WriteMode,
  choices: InsertChoices,
  source: Submission,
  fields: RecordFields,
  version?: string,
): Promise<Outcome> {
  const { db, jobs, store } = service;
  // The owner travels in the choices: it is part of the id, and the job stores chunks under it.
  const owner = choices.userId ?? null;
  const id = 'remote' in source ? source.contentId : source.plan.content_id;
  const versioned = mode === 'upsert' ? version : undefined;
  const payload: IngestPayload = {
    content_id: id,
    source: 'file' in source ? 'file' : 'text' in source ? 'text' : 'url' in source ? 'url' : 'remote' in source ? 'remote' : 'topic',
    choices,
    ...('plan' in source ? { plan: source.plan } : {}),
    ...('remote' in source ? { remote: source.remote } : {}),
    ...('url' in source ? { url: source.url, titleFromPage: choices.name === undefined } : {}),
    ...('topic' in source ? { topic: source.topic, titleFromPage: choices.name === undefined } : {}),
    ...(versioned !== undefined ? { version: versioned } : {}),
  };
  const kind = ingestKind(knowledge.id);
  const ref = ingestRef(knowledge.id, id);
  /** What the upload does with what is there: keep a record as it is, queue one again, or create one. */
  const decide = async (sql: SqlClient): Promise<{ keep: ContentRecord } | { refresh: ContentRecord } | { create: true }> => {
    const records = new ContentStore(sql);
    const existing = await records.get(knowledge.id, id);
    // The same identity uploaded in another tenant (or before tenancy) is not this caller's to
    // replace or keep; it is refused without saying whose it is.
    if (existing && fields.tenant_id !== undefined && existing.tenant_id !== fields.tenant_id) {
      throw new RuntimeError('CONFLICT', 'This content cannot be stored under this name and metadata here; change its name or metadata');
    }
    if (existing) {
      if (mode === 'insert') {
        throw new RuntimeError('CONFLICT', `Content ${id} already exists (status ${existing.status}); send write_mode upsert or skip to keep it`);
      }
      if (mode !== 'upsert' || existing.status === 'processing') return { keep: existing };
      // A url, topic or remote path is read again (the page or the results may have changed);
      // bytes are not, unless a later version of their name was uploaded since: this upload
      // makes them the newest again.
      const reread = 'url' in source || 'topic' in source || 'remote' in source || existing.status === 'failed';
      const older = !reread && versioned !== undefined && (await hasNewerVersion(sql, knowledge.id, versioned, owner, id, fields.tenant_id ?? null));
      return reread || older ? { refresh: existing } : { keep: existing };
    }
    const taken = mode === 'skip' && version !== undefined ? await latestVersion(sql, knowledge.id, version, owner, id, fields.tenant_id ?? null) : undefined;
    const kept = taken === undefined ? undefined : await records.get(knowledge.id, taken);
    return kept ? { keep: kept } : { create: true };
  };
  const record = (data: StagedData | undefined) =>
    db.transaction(async (tx): Promise<Outcome> => {
      const job = { kind, ref, payload: payload as unknown as Record<string, unknown>, data };
      const records = new ContentStore(tx);
      const decision = await decide(tx);
      if ('keep' in decision) return { record: decision.keep, queued: false };
      if ('create' in decision) {
        const created = await records.create({ id, knowledge_id: knowledge.id, ...fields, user_id: owner, status: 'processing', status_message: null });
        await jobs.store.enqueue(job, tx);
        return { record: created, queued: true };
      }
      await markUploaded(tx, knowledge.id, id);
      const updated = await records.update(knowledge.id, id, { status: 'processing', status_message: null, description: fields.description ?? undefined, metadata: fields.metadata ?? undefined });
      await jobs.store.deleteByRef(ref, tx);
      await jobs.store.enqueue(job, tx);
      return { record: updated!, queued: true };
    });
  const data = 'file' in source ? source.file : 'text' in source ? source.text : undefined;
  let outcome: Outcome;
  try {
    if (data === undefined) {
      outcome = await record(undefined);
    } else {
      // Content that is there already and stays as it is needs its bytes stored nowhere.
      const known = await decide(db);
      outcome = 'keep' in known ? { record: known.keep, queued: false } : await jobs.store.withData(data, record);
    }
  } catch (error) {
    // Two identical uploads at once: the other one created it.
    if (!isUniqueViolation(error)) throw error;
    const existing = await store.get(knowledge.id, id);
    if (!existing) throw error;
    outcome = { record: existing, queued: false };
  }
  if (outcome.queued) jobs.wake();
  return outcome;
}
