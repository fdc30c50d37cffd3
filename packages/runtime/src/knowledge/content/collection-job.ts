/**
 * @module knowledge/content/collection-job
 * Ingesting a collection (a website, a bucket prefix, a crawl, a remote folder) as one parent
 * record that owns a child record per page or file. Each child has its own status,
 * status_message, byte digest and chunk count, and its chunks under its own content id, so:
 *   - one bad child fails only itself, and its siblings stay searchable;
 *   - a refresh (the same collection uploaded again, or the job retried after a crash) re-reads
 *     only children whose bytes changed: a child whose source version (ETag) or digest matches
 *     the completed record is kept as it is, which is also what makes a retried job resume
 *     where the killed one stopped without storing anything twice;
 *   - children the collection no longer has are removed, with their chunks;
 *   - deleting the parent deletes its children and all their chunks.
 * The parent is `completed` once every child was tried and at least one is readable, `failed`
 * (with the first failure) when none is; while it runs its status_message reports progress.
 */
import { createHash } from 'node:crypto';
import { RuntimeError, unprocessable } from '../../errors.js';
import type { Logger } from '../../util/logger.js';
import { sha256, uuidFromHash } from '../ingest/identity.js';
import { builtWith, type ContentRecord, type ContentStore, type NewContent } from './content-store.js';
import { failureNote } from '../readers/sources/collection.js';
import type { ChildContent, FailedChild, SourceChild } from '../readers/sources/source-reader.js';
import type { InsertChoices, InsertResult } from '../options.js';

/** What the collection job needs of a knowledge base; Knowledge implements it. */
export interface CollectionKnowledge {
  readonly id: string;
  insertChild(content: ChildContent, options: InsertChoices & { contentId: string; key: string; unlessHash?: string | undefined; signal?: AbortSignal | undefined }): Promise<InsertResult>;
  remove(contentId: string): Promise<boolean>;
}

/** Children read at once: reading and embedding overlap, without flooding the source. */
const CHILD_CONCURRENCY = 4;
/** The parent's progress message is written at most this often. */
const PROGRESS_EVERY_MS = 1000;
const MAX_MESSAGE_CHARS = 2000;

/** A child's content id: stable per parent and place, so a refresh finds the same record. */
export function childContentId(parentId: string, key: string): string {
  return uuidFromHash(sha256(`${parentId}\n${key}`));
}

interface Tally {
  completed: number;
  unchanged: number;
  failed: number;
  chunks: number;
  size: number;
  firstFailure: RuntimeError | undefined;
  /** key -> digest of every readable child, for the parent's own digest. */
  digests: Map<string, string>;
}

export interface CollectionRun {
  knowledge: CollectionKnowledge;
  store: ContentStore;
  parent: ContentRecord;
  choices: InsertChoices;
  /** The collection's children, as its reader yields them. */
  children: AsyncIterable<SourceChild | FailedChild>;
  /** What the reader skipped without making a child (robots.txt, a truncated listing). */
  notes: string[];
  /** What the parent record's file_type shows: the reader of the collection. */
  readerId: string;
  signal: AbortSignal;
  log: Logger;
}

export async function ingestCollection(run: CollectionRun): Promise<void> {
  const { knowledge, store, parent, signal } = run;
  const existing = new Map((await store.children(knowledge.id, parent.id)).map((c) => [c.id, c]));
  const seen = new Set<string>();
  const tally: Tally = { completed: 0, unchanged: 0, failed: 0, chunks: 0, size: 0, firstFailure: undefined, digests: new Map() };
  let lastProgress = Date.now();
  let gone = false;

  const progress = async (): Promise<void> => {
    if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = Date.now();
    const updated = await store.update(knowledge.id, parent.id, { status_message: `processing: ${summary(tally)}` });
    if (!updated) gone = true;
  };

  const one = async (item: SourceChild | FailedChild): Promise<void> => {
    const id = childContentId(parent.id, item.key);
    // A collection that lists a place twice (a crawl reaching a page by two links) has one child for it.
    if (seen.has(id)) return;
    seen.add(id);
    const previous = existing.get(id);
    if ('error' in item) {
      await failChild(run, id, item, previous !== undefined, item.error, tally);
      return;
    }
    if (previous?.status === 'completed' && item.version !== undefined && previous.source_version === item.version && previous.content_hash) {
      count(tally, item.key, previous, true);
      return;
    }
    if (!previous) {
      // Checked first, so a parent deleted meanwhile gets no new children.
      if (!(await store.get(knowledge.id, parent.id))) {
        gone = true;
        return;
      }
      await store.create(childRecord(parent, id, item, 'processing', null));
    }
    let result: InsertResult;
    try {
      const content = await item.read();
      result = await knowledge.insertChild(content, {
        ...run.choices,
        name: item.name,
        key: item.key,
        contentId: id,
        signal,
        ...(previous?.status === 'completed' && previous.content_hash ? { unlessHash: previous.content_hash } : {}),
      });
    } catch (error) {
      // Only a typed refusal is the child's own failure; cancellation and bugs end the job.
      if (signal.aborted || !RuntimeError.isInstance(error)) throw error;
      // The record exists by now: it was there, or was just created above.
      await failChild(run, id, item, true, error, tally);
      return;
    }
    const updated = await store.update(knowledge.id, id, {
      status: 'completed',
      status_message: result.notes?.length ? clip(`completed; skipped: ${result.notes.join('; ')}`) : null,
      file_type: result.unchanged ? undefined : result.reader,
      ...builtWith(result, run.choices),
      size: result.size ?? null,
      content_hash: result.hash,
      source_version: item.version ?? null,
      ...(result.unchanged ? {} : { chunks: result.chunks }),
    });
    // Deleted (with its parent) while it was being read: its chunks must not outlive it.
    if (!updated) {
      await knowledge.remove(id);
      gone = true;
      return;
    }
    count(tally, item.key, updated, result.unchanged === true);
  };

  await eachLimited(run.children, CHILD_CONCURRENCY, async (item) => {
    if (gone) return;
    await one(item);
    await progress();
  }, () => gone || signal.aborted);
  signal.throwIfAborted();

  if (gone || !(await store.get(knowledge.id, parent.id))) {
    // The parent was deleted while its children were read: nothing of it may stay.
    for (const id of seen) await knowledge.remove(id);
    await store.delete(knowledge.id, parent.id);
    return;
  }
  // Children the collection no longer has (a page removed from the site, a deleted object).
  for (const [id] of existing) {
    if (seen.has(id)) continue;
    await knowledge.remove(id);
    await store.delete(knowledge.id, id);
  }
  const readable = tally.completed + tally.unchanged;
  if (readable === 0) {
    throw tally.firstFailure ?? unprocessable(`Nothing to read in "${parent.name ?? parent.id}"${run.notes.length > 0 ? ` (${run.notes[0]})` : ''}`);
  }
  const digest = createHash('sha256');
  for (const [key, hash] of [...tally.digests].toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) digest.update(`${key}\n${hash}\n`);
  const notes = run.notes.length > 0 ? `; skipped: ${run.notes.join('; ')}` : '';
  await store.update(knowledge.id, parent.id, {
    status: 'completed',
    status_message: clip(`completed: ${summary(tally)}${notes}`),
    file_type: run.readerId,
    size: tally.size,
    content_hash: digest.digest('hex'),
    chunks: tally.chunks,
  });
}

/**
 * Marks children a dead or failed collection job left `processing` as failed. Completed
 * children stay: what was read is still true.
 */
export async function failUnfinishedChildren(store: ContentStore, knowledgeId: string, parentId: string, message: string): Promise<void> {
  for (const child of await store.children(knowledgeId, parentId)) {
    if (child.status === 'processing') await store.update(knowledgeId, child.id, { status: 'failed', status_message: message });
  }
}

async function failChild(run: CollectionRun, id: string, child: { key: string; name: string }, recorded: boolean, error: RuntimeError, tally: Tally): Promise<void> {
  const { knowledge, store, parent } = run;
  tally.failed++;
  tally.firstFailure ??= error;
  // No chunks of a version that failed may stay searchable.
  await knowledge.remove(id);
  const message = failureNote(child.key, error);
  if (recorded) {
    await store.update(knowledge.id, id, { status: 'failed', status_message: clip(message), content_hash: null, chunks: null, source_version: null });
    return;
  }
  if (!(await store.get(knowledge.id, parent.id))) return;
  await store.create(childRecord(parent, id, child, 'failed', clip(message)));
}

/** A new child's record: named by its source, read and owned as its parent is. */
function childRecord(parent: ContentRecord, id: string, child: { key: string; name: string }, status: 'processing' | 'failed', message: string | null): NewContent {
  return {
    id,
    knowledge_id: parent.knowledge_id,
    name: child.name,
    description: null,
    metadata: parent.metadata,
    file_type: null,
    size: null,
    reader_id: parent.reader_id,
    chunker: parent.chunker,
    status,
    status_message: message,
    parent_id: parent.id,
    source_key: child.key,
    user_id: parent.user_id,
  };
}

function count(tally: Tally, key: string, record: ContentRecord, unchanged: boolean): void {
  if (unchanged) tally.unchanged++;
  else tally.completed++;
  tally.chunks += record.chunks ?? 0;
  tally.size += record.size ?? 0;
  if (record.content_hash) tally.digests.set(key, record.content_hash);
}

function summary(t: Tally): string {
  const parts = [`${t.completed} read`];
  if (t.unchanged > 0) parts.push(`${t.unchanged} unchanged`);
  if (t.failed > 0) parts.push(`${t.failed} failed`);
  return `${t.completed + t.unchanged + t.failed} item(s): ${parts.join(', ')}`;
}

function clip(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}

/**
 * Runs `fn` over an async iterable with at most `limit` calls in flight, in order of arrival.
 * The first failure stops taking new items and is thrown once the running ones settle.
 */
async function eachLimited<T>(items: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>, stop: () => boolean): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for await (const item of items) {
    if (failure || stop()) break;
    const task: Promise<void> = fn(item)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => running.delete(task));
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
