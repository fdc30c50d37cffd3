/**
 * A small knowledge base for the demo: the markdown files in `docs/`, split at headings and
 * searched by BM25 keyword scoring in memory. It needs no embedding model, so the quickstart
 * answers `search_knowledge_base` calls on a fresh machine with no API key.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchableKnowledge } from '@svc/runtime';

export interface Passage {
  name: string;
  content: string;
}

const STOP_WORDS = new Set('a an and are as at be by can do for from how i in is it of on or the to what when which with you your'.split(' '));

export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((t) => t.length > 1 && !STOP_WORDS.has(t));
}

/** Splits markdown at `#`/`##` headings; each passage is named after its file and heading. */
export function splitMarkdown(file: string, markdown: string): Passage[] {
  const passages: Passage[] = [];
  let heading = file;
  let lines: string[] = [];
  const flush = () => {
    const content = lines.join('\n').trim();
    if (content) passages.push({ name: heading, content });
    lines = [];
  };
  for (const line of markdown.split('\n')) {
    const match = /^#{1,2}\s+(.*)$/.exec(line);
    if (match) {
      flush();
      heading = `${file} › ${match[1]!.trim()}`;
    }
    lines.push(line);
  }
  flush();
  return passages;
}

export class DocsKnowledge implements SearchableKnowledge {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  private readonly passages: { passage: Passage; counts: Map<string, number>; length: number }[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(options: { id: string; name: string; description: string; passages: Passage[] }) {
    this.id = options.id;
    this.name = options.name;
    this.description = options.description;
    this.passages = options.passages.map((passage) => {
      const counts = new Map<string, number>();
      const words = terms(`${passage.name} ${passage.content}`);
      for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const w of counts.keys()) this.documentFrequency.set(w, (this.documentFrequency.get(w) ?? 0) + 1);
      return { passage, counts, length: words.length };
    });
    this.averageLength = this.passages.reduce((sum, p) => sum + p.length, 0) / Math.max(1, this.passages.length);
  }

  static fromDirectory(dir: string, options: { id: string; name: string; description: string }): DocsKnowledge {
    const files = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
    const passages = files.flatMap((f) => splitMarkdown(f, readFileSync(join(dir, f), 'utf8')));
    return new DocsKnowledge({ ...options, passages });
  }

  get size(): number {
    return this.passages.length;
  }

  describe(): Record<string, unknown> {
    return { passages: this.passages.length, search: 'bm25 (in memory)' };
  }

  async search(query: string, options: { limit?: number } = {}): Promise<{ content: string; name: string; score: number }[]> {
    const k1 = 1.2;
    const b = 0.75;
    const n = this.passages.length;
    const queryTerms = [...new Set(terms(query))];
    return this.passages
      .map(({ passage, counts, length }) => {
        let score = 0;
        for (const t of queryTerms) {
          const tf = counts.get(t) ?? 0;
          if (tf === 0) continue;
          const df = this.documentFrequency.get(t) ?? 0;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / this.averageLength));
        }
        return { name: passage.name, content: passage.content, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((x, y) => y.score - x.score)
      .slice(0, options.limit ?? 5);
  }
}
