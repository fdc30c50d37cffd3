/**
 * @module knowledge/readers/sources/collection
 * Reading a whole collection (a site, a prefix, a folder) as one content, for callers that keep
 * no records (the SDK's `knowledge.insert`). Through the HTTP API the same children become child
 * records instead (see knowledge/collection-job.ts).
 */
import { createHash } from 'node:crypto';
import { RuntimeError } from '../../../errors.js';
import { mapSliced } from '../../../util/time-slicer.js';
import { sha256Sliced } from '../../../util/utf8-slices.js';
import type { Reader } from '../reader.js';
import type { ChildContent, FailedChild, SourceChild, SourceContext, SourcePart, SourceResult } from './source-reader.js';

/** Reads a child's content into documents: bytes by the given reader, else the one its file name or type picks. */
export async function readChild(
  content: ChildContent,
  context: Pick<SourceContext, 'readers' | 'signal' | 'limits'> & { reader?: Reader | undefined },
  notes?: string[],
): Promise<SourcePart & { hash: string; size: number | undefined }> {
  if ('documents' in content) return { documents: content.documents, reader: content.reader, hash: content.hash, size: content.size };
  const reader = context.reader ?? context.readers.forFile(content.fileName, content.mimeType);
  const documents = await reader.read({ data: content.bytes, name: content.fileName }, { signal: context.signal, notes, limits: context.limits });
  const meta = content.meta ?? {};
  return {
    reader,
    documents: await mapSliced(documents, (doc, i) => ({
      ...doc,
      ...(content.documentId !== undefined ? { id: documents.length === 1 ? content.documentId : `${content.documentId}#${i + 1}` } : {}),
      meta_data: { ...doc.meta_data, ...meta },
    })),
    hash: await sha256Sliced(content.bytes, undefined, context.signal),
    size: content.bytes.byteLength,
  };
}

/**
 * Every readable child as one SourceResult. A child that fails is a note; the read fails only
 * when none could be read, with the first failure (it says best what is wrong).
 */
export async function readWholeCollection(
  children: AsyncIterable<SourceChild | FailedChild>,
  context: SourceContext,
  notes: string[],
  options: { name?: string | undefined; title?: string | undefined; empty: () => RuntimeError },
): Promise<SourceResult> {
  const parts: SourcePart[] = [];
  const digest = createHash('sha256');
  let size = 0;
  let title = options.title;
  let firstFailure: RuntimeError | undefined;
  for await (const child of children) {
    if ('error' in child) {
      firstFailure ??= child.error;
      notes.push(failureNote(child.key, child.error));
      continue;
    }
    try {
      const read = await readChild(await child.read(), context, notes);
      digest.update(`${child.key}\n${read.hash}\n`);
      size += read.size ?? 0;
      title ??= child.name;
      parts.push({ reader: read.reader, documents: read.documents.map((doc) => ({ ...doc, name: options.name ?? doc.name ?? child.name })) });
    } catch (error) {
      // Only a typed refusal is a child's own failure; cancellation and bugs end the read.
      if (context.signal?.aborted || !RuntimeError.isInstance(error)) throw error;
      firstFailure ??= error;
      notes.push(failureNote(child.key, error));
    }
  }
  if (parts.length === 0) throw firstFailure ?? options.empty();
  return { parts, title, size, hash: digest.digest('hex'), notes };
}

/** "where: why", unless the message already names the place. */
export function failureNote(key: string, error: RuntimeError): string {
  return error.message.includes(key) ? error.message : `${key}: ${error.message}`;
}
