import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { looksBinary, normalizePageUrl, pageLinks } from './links.js';

describe('normalizePageUrl', () => {
  it('gives one spelling per page: no fragment, no tracking parameters, sorted query', () => {
    expect(normalizePageUrl('https://Garden.Example:443/soil#drainage')?.href).toBe('https://garden.example/soil');
    expect(normalizePageUrl('https://garden.example/tools?utm_source=news&b=2&a=1&fbclid=x')?.href).toBe('https://garden.example/tools?a=1&b=2');
    expect(normalizePageUrl('https://garden.example/tools?utm_medium=mail')?.href).toBe('https://garden.example/tools');
    expect(normalizePageUrl('/soil/../tools', 'https://garden.example/a/b')?.href).toBe('https://garden.example/tools');
    // Repeated keys keep their order; other keys sort around them.
    expect(normalizePageUrl('https://g.example/?tag=b&tag=a&page=2')?.href).toBe('https://g.example/?page=2&tag=b&tag=a');
  });

  it('refuses what a crawl cannot fetch', () => {
    for (const raw of ['mailto:plots@example.org', 'javascript:void(0)', 'ftp://g.example/x', 'https://user:pw@g.example/', 'http://[bad']) {
      expect(normalizePageUrl(raw, 'https://g.example/'), raw).toBeUndefined();
    }
  });

  it('knows binary files by extension', () => {
    expect(looksBinary(new URL('https://g.example/seeds.PDF'))).toBe(true);
    expect(looksBinary(new URL('https://g.example/photo.jpeg?size=2'))).toBe(true);
    expect(looksBinary(new URL('https://g.example/soil'))).toBe(false);
    expect(looksBinary(new URL('https://g.example/guide.html'))).toBe(false);
  });
});

describe('pageLinks', () => {
  it('keeps same-host page links once each, in document order, honouring <base> and nofollow', () => {
    const { document } = parseHTML(`<html><head><base href="/docs/"></head><body>
      <a href="intro">Intro</a>
      <a href="intro#part-2">Intro again</a>
      <a href="https://g.example/docs/setup?utm_campaign=x">Setup</a>
      <a href="http://g.example/docs/http-link">Scheme change, same host</a>
      <a href="https://other.example/">Elsewhere</a>
      <a href="https://g.example:8443/docs/port">Other port</a>
      <a href="/catalogue.pdf">PDF</a>
      <a href="/login" rel="nofollow">Login</a>
      <a href="mailto:x@g.example">Mail</a>
      <a>No href</a>
    </body></html>`);
    expect(pageLinks(document, 'https://g.example/start').map((u) => u.href)).toEqual([
      'https://g.example/docs/intro',
      'https://g.example/docs/setup',
      'http://g.example/docs/http-link',
    ]);
  });
});
