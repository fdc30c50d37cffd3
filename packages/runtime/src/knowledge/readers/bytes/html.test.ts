import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { LARGE_PAGE_CHARS } from './html-stream.js';
import { HtmlReader } from './html.js';

const PAGE = `<!doctype html>
<html><head><title>Port guide | Example docs</title><style>body { color: red }</style></head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About</a></nav>
  <header>Site banner</header>
  <article>
    <h1>Changing the port</h1>
    <p>Set <strong>PORT=8080</strong> in the environment to change the listening port of the server.
    The runtime reads it once at start, so restart it after the change.</p>
    <h2>In containers</h2>
    <p>Publish the same port with <code>-p 8080:8080</code>; see <a href="https://example.com/docker">the Docker notes</a>.</p>
    <ul><li>first item</li><li>second item</li></ul>
  </article>
  <script>window.tracking = true;</script>
  <footer>Copyright footer</footer>
</body></html>`;

const section = (i: number) => `<h2>Section ${i}</h2><p>${'Words of a very long specification. '.repeat(40)}</p>`;

describe('HtmlReader', () => {
  it("reads a page's main content as markdown, with its title", async () => {
    const [doc, ...rest] = await new HtmlReader().read({ data: new TextEncoder().encode(PAGE), name: 'port.html' });
    expect(rest).toEqual([]);
    expect(doc!.name).toBe('port');
    expect(doc!.meta_data.title).toMatch(/Port guide/);
    expect(doc!.content).toMatch(/^#+ In containers$/m);
    expect(doc!.content).toContain('**PORT=8080**');
    expect(doc!.content).toContain('[the Docker notes](https://example.com/docker)');
    expect(doc!.content).toMatch(/^-\s+first item$/m);
    for (const chrome of ['tracking', 'color: red', 'Site banner', 'Copyright footer', 'About']) expect(doc!.content).not.toContain(chrome);
  });

  it('converts a page without an article whole, minus scripts and chrome', async () => {
    const [doc] = await new HtmlReader().read({ data: '<p>Just one line.</p><script>evil()</script>', name: 'tiny.htm' });
    expect(doc!.content).toBe('Just one line.');
    expect(doc!.meta_data).toEqual({});
  });

  it('refuses a page with no readable text', async () => {
    const error = await new HtmlReader().read({ data: '<html><body><script>x()</script></body></html>', name: 'empty.html' }).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error)).toBe(true);
    expect((error as RuntimeError).code).toBe('VALIDATION_ERROR');
    expect((error as RuntimeError).message).toBe('html reader: "empty.html" has no readable text');
  });

  it('reads a page past LARGE_PAGE_CHARS whole, in one streaming pass, chrome still left out', async () => {
    const page = `<!doctype html><html><head><title>Huge spec</title></head><body><nav>Menu</nav>${Array.from({ length: 1600 }, (_, i) => section(i)).join('')}<script>track()</script></body></html>`;
    expect(page.length).toBeGreaterThan(LARGE_PAGE_CHARS);
    const [doc, ...rest] = await new HtmlReader({ offload: 'inline' }).read({ data: page, name: 'spec.html' });
    expect(rest).toEqual([]);
    expect(doc!.meta_data).toEqual({ title: 'Huge spec' });
    expect(doc!.content.match(/^## Section \d+$/gm)).toHaveLength(1600);
    expect(doc!.content.startsWith('## Section 0\n\nWords of a very long specification.')).toBe(true);
    for (const chrome of ['Menu', 'track()']) expect(doc!.content).not.toContain(chrome);
  });
});
