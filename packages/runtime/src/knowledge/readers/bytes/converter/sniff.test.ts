/**
 * @module knowledge/readers/bytes/converter/sniff.test
 * The opening of an HTML page in every case-spelling, behind byte order marks and blanks, is
 * markup: a page starting `<!doctype html>` was refused as "does not start with markup", and
 * UTF-16LE text (byte order mark FF FE) was taken for MP3.
 */
import { describe, expect, it } from 'vitest';
import { detectFormat } from './sniff.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const utf16le = (text: string) => new Uint8Array([0xff, 0xfe, ...new Uint8Array(Buffer.from(text, 'utf16le'))]);
const utf16be = (text: string) => new Uint8Array([0xfe, 0xff, ...new Uint8Array(Buffer.from(text, 'utf16le').swap16())]);

const PAGE = '<html><head><title>Kettles</title></head><body><p>Descale monthly.</p></body></html>';
const DOCTYPES = ['<!doctype html>', '<!DOCTYPE html>', '<!DocType HTML>', '<!dOcTyPe hTmL>', '<!doctype html PUBLIC "-//W3C//DTD HTML 4.01//EN">', '<!DOCTYPE\nhtml>'];
const OPENINGS = ['', '\uFEFF', '  \n\t', '\uFEFF \r\n', ' \n\uFEFF '];

describe('detectFormat: an HTML doctype in any case', () => {
  for (const doctype of DOCTYPES) {
    it.each(OPENINGS.map((opening) => [JSON.stringify(opening), opening]))(`reads ${JSON.stringify(doctype)} after %s as HTML, whatever the name`, async (_, opening) => {
      for (const name of ['page.html', 'page.htm', 'page', 'notes.txt', 'misnamed.xml']) {
        const detected = await detectFormat(utf8(`${opening}${doctype}${PAGE}`), name);
        expect(detected.family, name).toBe('html');
        expect(detected.format, name).toBe('html');
      }
    });
  }

  it('reads UTF-16 pages with their byte order mark the same way (FF FE is text, not an MPEG frame sync)', async () => {
    for (const encode of [utf16le, utf16be]) {
      expect((await detectFormat(encode(`<!doctype html>${PAGE}`), 'page.html')).family).toBe('html');
      expect((await detectFormat(encode(`\n<!DocType html>${PAGE}`), 'page')).family).toBe('html');
      expect(await detectFormat(encode('Descale the kettle monthly.'), 'notes.txt')).toMatchObject({ family: 'text', text: 'Descale the kettle monthly.' });
    }
  });

  it('reads a lowercase doctype after an XML declaration or a comment as XHTML or HTML', async () => {
    expect((await detectFormat(utf8(`<?xml version="1.0"?>\n<!doctype html>${PAGE}`), 'page.xhtml')).format).toBe('xhtml');
    expect((await detectFormat(utf8(`<!-- generated -->\n<!doctype html>${PAGE}`), 'page.html')).format).toBe('html');
    // Any other doctype, in any case, is XML.
    expect((await detectFormat(utf8('<!doctype note><note>Buy tea</note>'), 'note.xml')).family).toBe('xml');
  });

  it('still refuses a file named HTML that does not start with markup', async () => {
    await expect(detectFormat(utf8('doctype html, but not markup'), 'page.html')).rejects.toThrow('converter reader: "page.html" is named as HTML, but it does not start with markup');
    await expect(detectFormat(utf8('\uFEFF<!doctyp html>'), 'page.html')).rejects.toThrow('does not start with markup');
  });
});
