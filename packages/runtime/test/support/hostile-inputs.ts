/**
 * @module test/support/hostile-inputs
 * Inputs built to hurt an ingestion pipeline, generated in code (nothing downloaded): deeply
 * nested and very large HTML, a huge or deeply nested JSON document, a million-row CSV, a deck
 * that lists one slide a thousand times; and a loopback server that serves such pages by URL
 * (generated on request, so a 50 MB page costs nothing until it is fetched).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pptxDeck, reorderSlides } from './office-generators.js';

/** `<div>` nested `depth` deep around a few words (2,000 deep: ~22 KB; 100,000 deep: ~1.1 MB). */
export function nestedHtml(depth: number): string {
  return `<!doctype html><html><head><title>Nested</title></head><body>${'<div>'.repeat(depth)}hello world${'</div>'.repeat(depth)}</body></html>`;
}

/** A page of about `bytes` bytes of short sections, each a heading, a paragraph and a link. */
export function flatHtml(bytes: number): string {
  const sections: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const section = `<div class="s"><h2>Section ${i}</h2><p>Paragraph ${i} about kettles, chains and tea, with a <a href="/x${i}">link</a> and <b>bold</b> words.</p></div>\n`;
    sections.push(section);
    size += section.length;
  }
  return `<!doctype html><html><head><title>Flat</title></head><body><article>${sections.join('')}</article></body></html>`;
}

/** A JSON array of `items` small objects. */
export function jsonArray(items: number): string {
  const parts: string[] = [];
  for (let i = 0; i < items; i++) parts.push(`{"id":${i},"name":"item ${i}"}`);
  return `[${parts.join(',')}]`;
}

/** A JSON array nested `depth` deep around one number. */
export function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** A CSV with a header and `rows` data rows of three columns. */
export function csvRows(rows: number): string {
  const lines = ['id,name,value'];
  for (let i = 0; i < rows; i++) lines.push(`${i},row ${i},${i * 7}`);
  return `${lines.join('\n')}\n`;
}

/** A .pptx whose slide list names its one slide `times` times. */
export async function repeatedSlideDeck(times: number): Promise<Uint8Array> {
  const deck = await pptxDeck([{ title: 'The same slide', bullets: ['Listed again and again in the slide list, with words to chunk.'], notes: 'Notes repeated too.' }]);
  return reorderSlides(deck, Array.from({ length: times }, () => 1));
}

export interface Page {
  status?: number;
  /** Default text/html. */
  type?: string;
  headers?: Record<string, string>;
  /** The body, or a function making it when first asked for (so a 50 MB page costs nothing until fetched). */
  body?: string | Uint8Array | (() => string | Uint8Array);
}

export interface PageServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Requests per path, so a test can prove a page was never fetched. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Serves `pages` (path -> page) on loopback, each body sent in 1 MiB writes as a real server
 * streams it. `pages` is read per request, so a test may add a page once it knows the port.
 */
export async function servePages(pages: Record<string, Page>): Promise<PageServer> {
  const hits = new Map<string, number>();
  const made = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const page = pages[path];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    let body = made.get(path);
    if (!body && page.body !== undefined) {
      const value = typeof page.body === 'function' ? page.body() : page.body;
      body = Buffer.from(value);
      made.set(path, body);
    }
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...(body ? { 'content-length': String(body.byteLength) } : {}), ...page.headers });
    if (!body) return void res.end();
    const data = body;
    let offset = 0;
    const write = () => {
      while (offset < data.byteLength) {
        const slice = data.subarray(offset, offset + 1024 * 1024);
        offset += slice.byteLength;
        if (!res.write(slice)) return void res.once('drain', write);
      }
      res.end();
    };
    // A client that stops reading (a refused page) must not leave the write pending.
    res.on('close', () => (offset = data.byteLength));
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
