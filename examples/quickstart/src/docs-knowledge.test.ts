import { describe, expect, it } from 'vitest';
import { OpenAIEmbedder } from '@svc/runtime';
import { DocsKnowledge } from './docs-knowledge.js';
import { DOCS_DIR } from './runtime.js';

const options = { id: 'd', name: 'D', description: 'd' };

describe('DocsKnowledge', () => {
  it('indexes the bundled docs by section and finds how to cancel a run by keyword', async () => {
    const docs = DocsKnowledge.fromDirectory(DOCS_DIR, options);
    const [top] = await docs.search('how do I cancel a run');
    expect(top!.name).toBe('runs-and-sessions.md › Cancelling');
    expect(top!.content).toContain('/cancel');
    expect(docs.vectorDb().search_types).toEqual(['keyword']);
  });

  it('honours the limit and finds nothing for unknown terms', async () => {
    const docs = DocsKnowledge.fromDirectory(DOCS_DIR, options);
    expect(await docs.search('quantum chromodynamics')).toEqual([]);
    expect(await docs.search('run session agent', { limit: 2 })).toHaveLength(2);
  });

  it('falls back to keyword search when the embedding server is unreachable', async () => {
    const warnings: string[] = [];
    const embedder = new OpenAIEmbedder({ baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 });
    const docs = DocsKnowledge.fromDirectory(DOCS_DIR, { ...options, embedder, warn: (m) => warnings.push(m) });
    await docs.ready();
    expect(warnings).toEqual([expect.stringContaining('using keyword search')]);
    expect(docs.vectorDb().search_types).toEqual(['keyword']);
    expect((await docs.search('cancel a run'))[0]!.name).toBe('runs-and-sessions.md › Cancelling');
  });
});
