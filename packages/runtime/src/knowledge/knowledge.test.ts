/**
 * Content identity and hashes stay what they were now that large inputs are hashed a slice at a
 * time: an id from a digest the upload route computed is the id of the text or bytes, so content
 * uploaded before keeps its id (an upsert finds it), and `insert` reports the same SHA-256.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Sliced } from '../util/utf8-slices.js';
import { Knowledge } from './knowledge.js';
import { SqliteVectorStore } from './vector-stores/sqlite/store.js';

const store = new SqliteVectorStore({ path: ':memory:' });
const knowledge = new Knowledge({ id: 'docs', store, offload: 'inline' });
afterAll(() => store.close());

// Over one slice (1 Mi characters), with pairs and multi-byte characters across the cuts.
const text = 'Slices of text 😀 é\n'.repeat(60_000);

describe('Knowledge content identity', () => {
  it('is the same from a digest as from the text or the bytes it is the digest of', async () => {
    const choices = { name: 'big.txt', chunkSize: 100 };
    const bytes = Buffer.from(text, 'utf8');
    const digest = await sha256Sliced(text);
    expect(digest).toBe(createHash('sha256').update(bytes).digest('hex'));
    const fromText = knowledge.contentIdentity(choices, { text });
    expect(knowledge.contentIdentity(choices, { sha256: digest })).toBe(fromText);
    expect(knowledge.contentIdentity(choices, { bytes })).toBe(fromText);
    expect(knowledge.contentIdentity(choices, { sha256: await sha256Sliced(bytes) })).toBe(fromText);
    // A digest is not a text: the id of another text differs.
    expect(knowledge.contentIdentity(choices, { text: `${text}.` })).not.toBe(fromText);
  });

  it('insert reports the one-shot SHA-256 of a large text, and ids unnamed text by it', async () => {
    const result = await knowledge.insert({ text, name: 'big.txt', chunker: 'FixedSizeChunker', chunkSize: 5000 });
    expect(result.hash).toBe(createHash('sha256').update(text).digest('hex'));
    const unnamed = await knowledge.insert({ text: 'short unnamed text' });
    expect(unnamed.hash).toBe(createHash('sha256').update('short unnamed text').digest('hex'));
  });
});
