/**
 * @module knowledge/content/ingest-job
 * Content ingestion as a durable job: the upload route records the content and a job in one
 * transaction and answers 202; a job worker (in any runtime hosting the knowledge base) reads,
 * chunks, embeds and stores it, then marks the record completed. A crash mid-job hands the job
 * to the next worker once its lease runs out; chunks are replaced atomically per content, so a
 * retry never duplicates them, and a job that fails for good removes what it stored.
 */
import { RuntimeError } from '../../errors.js';
import type { Job, JobStore } from '../../jobs/job-store.js';
import type { JobHandler } from '../../jobs/job-worker.js';
import type { Db } from '../../storage/db.js';
import type { Logger } from '../../util/logger.js';
import { decodeUtf8Sliced, sha256Sliced } from '../../util/utf8-slices.js';
import { failUnfinishedChildren, ingestCollection, type CollectionKnowledge } from './collection-job.js';
import type { ContentKnowledge } from './content-knowledge.js';
import { builtWith, ContentStore, type ContentRecord } from './content-store.js';
import type { IngestInput, IngestPlan } from '../ingest/plan.js';
import type { InsertChoices } from '../options.js';
import { downloadFile, findSource, isFolder, remoteChildren, type RemoteLocation } from './remote-content.js';
import { versionsAround } from './versions.js';

/** Jobs are per knowledge base, so only runtimes hosting that base claim them. */
export function ingestKind(knowledgeId: string): string {
  return `knowledge.ingest:${knowledgeId}`;
}

/** The job's ref: content ids are per knowledge base. */
export function ingestRef(knowledgeId: string, contentId: string): string {
  return `${knowledgeId}/${contentId}`;
}

export interface IngestPayload {
  content_id: string;
  /** Where the content comes from; file bytes and text travel in the job's data. */
  source: 'file' | 'text' | 'url' | 'topic' | 'remote';
  url?: string;
  /** A file or folder (trailing "/") of one of the knowledge base's remote content sources. */
  remote?: RemoteLocation;
  /** The search query or topic a source reader reads. */
  topic?: string;
  /** The choices the upload made (reader, chunker, sizes, metadata, the name to read as). */
  choices: InsertChoices;
  /** What the upload resolved them to (absent for a remote path, and in jobs queued by older versions). */
  plan?: IngestPlan;
  /** A URL record without a given name takes the page's title. */
  titleFromPage?: boolean;
  /** The name this upload is a version of: it replaces the earlier versions when it completes (versions.ts). */
  version?: string;
}

/** What the ingestion jobs work with: the runtime's database, the records in it, its job queue. */
export interface IngestDeps {
  db: Db;
  store: ContentStore;
  jobs: JobStore;
  log: Logger;
}

const MAX_NOTES_CHARS = 2000;

function noteText(notes: string[]): string {
  const text = `completed; skipped: ${notes.join('; ')}`;
  return text.length <= MAX_NOTES_CHARS ? text : `${text.slice(0, MAX_NOTES_CHARS - 1)}…`;
}

export function ingestHandler(knowledge: ContentKnowledge, deps: IngestDeps): JobHandler {
  const { store, log } = deps;
  return {
    async run(job: Job, signal: AbortSignal): Promise<void> {
      const p = job.payload as unknown as IngestPayload;
      const record = await store.get(knowledge.id, p.content_id);
      // Deleted before its turn came: nothing to do.
      if (!record) return;
      if (p.source === 'remote') {
        await ingestRemote(knowledge, store, record, p, signal, log);
        return;
      }
      const collection = p.source === 'url' ? knowledge.collectionReader?.(p.choices, { url: p.url! }) : undefined;
      if (collection !== undefined && knowledge.children && readsChildren(knowledge)) {
        const notes: string[] = [];
        await ingestCollection({
          knowledge,
          store,
          parent: record,
          choices: p.choices,
          children: knowledge.children(p.choices, { url: p.url! }, signal, notes),
          notes,
          readerId: collection,
          signal,
          log,
        });
        return;
      }
      if ((p.source === 'file' || p.source === 'text') && job.data === null) throw new RuntimeError('INTERNAL_SERVER_ERROR', 'The job lost its content');
      const input: IngestInput =
        p.source === 'url'
          ? { url: p.url! }
          : p.source === 'topic'
            ? { topic: p.topic! }
            : p.source === 'text'
              ? // Decoded a slice at a time: 10 MB in one call held the event loop ~8-20 ms.
                { text: await decodeUtf8Sliced(job.data!, undefined, signal) }
              : { buffer: job.data! };
      // A job queued before uploads carried their plan is planned here, as its upload would have been.
      const plan = p.plan ?? { ...knowledge.plan(p.choices, 'url' in input || 'topic' in input ? input : { sha256: await sha256Sliced('text' in input ? input.text : input.buffer) }), content_id: p.content_id };
      const versions = p.version !== undefined ? await versionsAround(deps.db, knowledge.id, p.content_id, p.version, record.user_id, record.tenant_id ?? null) : undefined;
      if (versions?.superseded) {
        // A later upload of this name completed first: this one is out of date before it is read.
        await knowledge.remove(p.content_id);
        await store.delete(knowledge.id, p.content_id);
        return;
      }
      // A refresh (a URL read again) keeps the stored chunks when the bytes did not change; the
      // earlier versions of its name leave searches in the step its chunks enter them.
      const result = await knowledge.ingest(plan, input, { signal, unlessHash: record.content_hash ?? undefined, replaces: versions?.older });
      const size = result.size ?? ('buffer' in input ? input.buffer.byteLength : 'text' in input ? Buffer.byteLength(input.text) : null);
      await completeVersion(knowledge, deps, p.content_id, versions?.older ?? [], {
        status: 'completed',
        // A source reader's notes (pages it skipped and why) stay readable on the record.
        status_message: result.notes?.length ? noteText(result.notes) : null,
        file_type: result.reader,
        ...builtWith(result, p.choices),
        size,
        content_hash: result.hash,
        ...(result.unchanged ? {} : { chunks: result.chunks }),
        ...(p.titleFromPage && !result.unchanged ? { name: result.name } : {}),
      });
    },
    async failed(job: Job, message: string): Promise<void> {
      const p = job.payload as unknown as IngestPayload;
      // A collection's children that were read stay; the ones in flight end failed with it.
      await failUnfinishedChildren(store, knowledge.id, p.content_id, message).catch((e: unknown) =>
        log.error(`knowledge "${knowledge.id}": could not fail the children of content ${p.content_id}`, e),
      );
      // No chunks of a failed version may stay searchable.
      await knowledge.remove(p.content_id).catch((e: unknown) => log.error(`knowledge "${knowledge.id}": could not remove the chunks of failed content ${p.content_id}`, e));
      await store.update(knowledge.id, p.content_id, { status: 'failed', status_message: message, content_hash: null, chunks: null });
    },
  };
}

/**
 * A remote file is one record, read like an upload of its bytes; a remote folder is a
 * collection with a child per file. A source removed from the configuration since the upload
 * fails the record, naming it.
 */
async function ingestRemote(knowledge: ContentKnowledge, store: ContentStore, record: ContentRecord, p: IngestPayload, signal: AbortSignal, log: Logger): Promise<void> {
  const location = p.remote!;
  if (!readsChildren(knowledge)) throw new RuntimeError('INTERNAL_SERVER_ERROR', `Knowledge base "${knowledge.id}" cannot read remote content`);
  const source = findSource(knowledge.contentSources, location.source_id);
  if (isFolder(location.path)) {
    const notes: string[] = [];
    await ingestCollection({
      knowledge,
      store,
      parent: record,
      choices: p.choices,
      children: remoteChildren(source, location, { name: p.choices.name, maxBytes: knowledge.maxContentBytes, signal, notes }),
      notes,
      readerId: source.type,
      signal,
      log,
    });
    return;
  }
  const name = location.path.slice(location.path.lastIndexOf('/') + 1);
  const file = { path: location.path, name };
  const content = await downloadFile(source, file, location.params, knowledge.maxContentBytes, signal);
  const result = await knowledge.insertChild(content, {
    ...p.choices,
    key: location.path,
    contentId: p.content_id,
    signal,
    ...(record.content_hash ? { unlessHash: record.content_hash } : {}),
  });
  const updated = await store.update(knowledge.id, p.content_id, {
    status: 'completed',
    status_message: result.notes?.length ? noteText(result.notes) : null,
    file_type: result.unchanged ? undefined : result.reader,
    ...builtWith(result, p.choices),
    size: result.size ?? null,
    content_hash: result.hash,
    source_version: content.version ?? null,
    ...(result.unchanged ? {} : { chunks: result.chunks }),
  });
  // Deleted while it was being processed: its chunks must not outlive the record.
  if (!updated) await knowledge.remove(p.content_id);
}

/**
 * Marks a content completed and deletes the earlier versions it replaced (records and jobs) in
 * one transaction; their chunks left searches when its chunks were stored, and are removed here
 * too where they were not (bytes found unchanged, a store that ignores `replaces`). A content
 * deleted while it was read takes its chunks with it.
 */
async function completeVersion(
  knowledge: ContentKnowledge,
  deps: IngestDeps,
  id: string,
  replaced: readonly string[],
  fields: Parameters<ContentStore['update']>[2],
): Promise<ContentRecord | undefined> {
  const updated = await deps.db.transaction(async (tx) => {
    const records = new ContentStore(tx);
    const done = await records.update(knowledge.id, id, fields);
    for (const old of replaced) {
      await deps.jobs.deleteByRef(ingestRef(knowledge.id, old), tx);
      await records.delete(knowledge.id, old);
    }
    return done;
  });
  for (const old of replaced) await knowledge.remove(old);
  // Deleted while it was being processed: its chunks must not outlive the record.
  if (!updated) await knowledge.remove(id);
  return updated;
}

/** Whether a knowledge base can store items read one by one (Knowledge can). */
function readsChildren(knowledge: ContentKnowledge): knowledge is ContentKnowledge & CollectionKnowledge {
  return typeof knowledge.insertChild === 'function';
}
