import { describe, expect, it } from 'vitest';
import { pageLinks } from '../sources/web/links.js';
import { streamMarkdown } from './html-stream.js';

const CHROME = ['script', 'style', 'nav', 'footer'];

describe('streamMarkdown', () => {
  it('keeps headings, paragraphs, list items, quotes, code and table rows as markdown blocks', () => {
    const page = `<!doctype html><html><head><title> Big
      spec </title><style>p { color: red }</style><meta charset="utf-8"></head><body>
      <nav><a href="/home">Home</a></nav>
      <h1>The spec</h1><p>First <b>bold</b>  paragraph,&nbsp;with   spaces.<br>Next line.</p>
      <h3>Lists</h3><ul><li>one</li><li>two <i>items</i></li></ul>
      <blockquote>Quoted text</blockquote>
      <pre>  indented
    code</pre>
      <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
      <script>var hidden = 1;</script><img src="x.png"><p>After the image &amp; script.</p>
      <footer>Footer text</footer></body></html>`;
    const { markdown, title } = streamMarkdown(page, CHROME);
    expect(title).toBe('Big spec');
    expect(markdown.split('\n\n')).toEqual([
      '# The spec',
      'First bold paragraph, with spaces.',
      'Next line.',
      '### Lists',
      '- one',
      '- two items',
      '> Quoted text',
      '```\n  indented\n    code\n```',
      'a | b',
      '1 | 2',
      'After the image & script.',
    ]);
  });

  it("gathers the page's links for the crawler, <base> honoured, nofollow left out", () => {
    const page = '<html><head><base href="https://docs.test/guide/"></head><body><nav><a href="/">Home</a></nav><a href="intro">Intro</a><a rel="nofollow" href="/ads">Ads</a><a href="https://elsewhere.test/">Away</a></body></html>';
    const { links } = streamMarkdown(page, CHROME);
    expect(pageLinks(links, 'https://docs.test/guide/index.html').map((u) => u.href)).toEqual(['https://docs.test/', 'https://docs.test/guide/intro']);
  });

  it('reads a skipped element with void elements inside without losing the rest of the page', () => {
    const { markdown } = streamMarkdown('<body><nav><img src="a"><br><hr>menu</nav><p>kept</p></body>', CHROME);
    expect(markdown).toBe('kept');
  });
});
