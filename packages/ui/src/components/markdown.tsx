/**
 * Markdown from an untrusted author (an agent's answer, which may quote documents): marked turns
 * it into HTML with any raw HTML in it escaped (shown as the text the agent wrote, never parsed
 * as markup), then DOMPurify (the maintained sanitiser) removes what Markdown itself can carry
 * (a javascript: link) before it reaches the DOM; links open in a new tab with rel="noopener
 * noreferrer". The page's CSP forbids inline script as well, as a third wall.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useMemo } from 'preact/hooks';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

const marked = new Marked({ gfm: true, breaks: true, renderer: { html: ({ text }) => escapeHtml(text) } });

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  // No images: an <img> would fetch from wherever the author pointed it, and no styles or forms.
  return purifier().sanitize(html, { FORBID_TAGS: ['img', 'style', 'form', 'input', 'button', 'iframe'], FORBID_ATTR: ['style'] });
}

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
