/**
 * @module knowledge/readers/bytes/converter/asciidoc
 * AsciiDoc as markdown: Asciidoctor.js (@asciidoctor/core 4, the maintained JavaScript port of
 * the reference implementation) converts it to HTML, and the docx reader's turndown rules write
 * that as markdown (headings as `#`, lists, fenced code blocks with their language, tables one
 * row per line). It runs in `secure` safe mode: `include::` directives are not followed (they
 * become plain links), no file or URL is read, and attributes cannot lift that.
 */
import { unprocessable } from '../../../../errors.js';
import { markdownWriter } from '../docx.js';
import { compactLists, tidy } from './markdown.js';

export interface AsciidocResult {
  content: string;
  title?: string;
}

export async function asciidocToMarkdown(text: string, fileName: string): Promise<AsciidocResult> {
  const [asciidoctor, turndown] = await Promise.all([import('@asciidoctor/core'), markdownWriter()]);
  let html: string;
  let title: string | undefined;
  try {
    const doc = await asciidoctor.load(text, { safe: 'secure', standalone: false, attributes: { showtitle: true, 'allow-uri-read': null } });
    const heading = doc.getDocumentTitle?.();
    title = typeof heading === 'string' && heading.trim() ? heading.replace(/<[^>]*>/g, '').trim() : undefined;
    html = String(await doc.convert());
  } catch (cause) {
    throw unprocessable(`converter reader: "${fileName}" could not be converted from AsciiDoc (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
  const content = compactLists(tidy(turndown.turndown(html)));
  if (!content) throw unprocessable(`converter reader: "${fileName}" has no text (an empty AsciiDoc document)`);
  return { content, ...(title ? { title } : {}) };
}
