/**
 * @module knowledge/readers/bytes/converter/xml
 * XML as markdown that keeps the element structure readable:
 *
 * - **JATS / NXML** (a root `<article>`, as PubMed Central publishes papers): the title, authors
 *   and abstract, then the body's sections as headings by depth, paragraphs, lists, tables (as
 *   markdown tables, with their captions), figure captions, and the reference list.
 * - **XBRL** (a root `<xbrl>`): every fact as a row of one table, with a readable concept name
 *   (`NetIncomeLoss` -> "Net Income Loss"), its value, the period and entity of its context,
 *   and its unit.
 * - **Any other XML**: an outline. An element holding elements is a heading (by depth, `#` to
 *   `######`, deeper ones in bold), with its attributes; an element holding only text is a
 *   `- name: text` line; an element mixing text and elements (`<p>a <b>b</b></p>`) is a
 *   paragraph of its text.
 *
 * A DOCTYPE is removed before parsing and its entities are never expanded (the classic entity
 * expansion attacks); a reference to one stays as written. Only XML's own entities and
 * character references are decoded.
 */
import { unprocessable } from '../../../../errors.js';
import { localName, parseXml, type XmlElement, type XmlNode } from '../ooxml.js';
import { markdownTable, tidy } from './markdown.js';

export interface XmlResult {
  content: string;
  /** `jats`, `xbrl` or `xml`. */
  dialect: string;
  title?: string;
}

/** Removes `<!DOCTYPE ...>`, internal subset included, honouring quotes and brackets. */
export function stripDoctype(xml: string): string {
  const start = xml.search(/<!DOCTYPE/i);
  if (start < 0) return xml;
  let depth = 0;
  let quote: string | undefined;
  for (let i = start + 9; i < xml.length; i++) {
    const c = xml[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === '>' && depth === 0) return xml.slice(0, start) + xml.slice(i + 1);
  }
  throw new Error('the DOCTYPE declaration is not closed');
}

export async function xmlToMarkdown(text: string, fileName: string): Promise<XmlResult> {
  let root: XmlElement;
  try {
    root = await parseXml(stripDoctype(text));
  } catch (cause) {
    throw unprocessable(`converter reader: "${fileName}" is not well-formed XML (${cause instanceof Error ? cause.message : String(cause)})`, cause);
  }
  const rootName = localName(root.name);
  if (rootName === 'article') return jats(root);
  if (rootName === 'xbrl') return xbrl(root);
  return { content: tidy(outline(root)), dialect: 'xml' };
}

const elementsOf = (node: XmlElement): XmlElement[] => node.children.filter((c): c is XmlElement => typeof c !== 'string');
const named = (node: XmlElement, local: string): XmlElement[] => elementsOf(node).filter((c) => localName(c.name) === local);
const first = (node: XmlElement | undefined, local: string): XmlElement | undefined => (node ? named(node, local)[0] : undefined);

/** Every descendant with this local name, in document order. */
function all(node: XmlElement, local: string): XmlElement[] {
  const out: XmlElement[] = [];
  const stack: XmlElement[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const kids = elementsOf(current);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
    if (current !== node && localName(current.name) === local) out.push(current);
  }
  return out;
}

/** The text of a node and its descendants, whitespace collapsed. */
function textOf(node: XmlNode | undefined): string {
  if (node === undefined) return '';
  const parts: string[] = [];
  const stack: XmlNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (typeof current === 'string') parts.push(current);
    else for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!);
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

function attributesText(node: XmlElement): string {
  const pairs = Object.entries(node.attributes)
    .filter(([k]) => !k.startsWith('xmlns') && !k.startsWith('xsi:'))
    .map(([k, v]) => `${k}=${v}`);
  return pairs.length > 0 ? ` (${pairs.join(', ')})` : '';
}

function outline(root: XmlElement): string {
  const out: string[] = [];
  const visit = (node: XmlElement, depth: number) => {
    const kids = elementsOf(node);
    const hasText = node.children.some((c) => typeof c === 'string' && c.trim() !== '');
    const name = localName(node.name);
    if (kids.length === 0) {
      const text = textOf(node);
      if (text || Object.keys(node.attributes).length > 0) out.push(`- ${name}${attributesText(node)}: ${text}`.trimEnd());
      return;
    }
    if (hasText) {
      out.push('', textOf(node), '');
      return;
    }
    out.push('', depth <= 6 ? `${'#'.repeat(depth)} ${name}${attributesText(node)}` : `**${name}**${attributesText(node)}`, '');
    for (const kid of kids) visit(kid, depth + 1);
  };
  visit(root, 1);
  return out.join('\n');
}

function tableRows(table: XmlElement): string[][] {
  return all(table, 'tr').map((tr) => elementsOf(tr).filter((c) => ['td', 'th'].includes(localName(c.name))).map((c) => textOf(c)));
}

function jats(article: XmlElement): XmlResult {
  const out: string[] = [];
  const meta = first(first(article, 'front'), 'article-meta');
  const title = textOf(first(first(meta, 'title-group'), 'article-title')) || undefined;
  if (title) out.push(`# ${title}`, '');
  const authors = meta
    ? all(meta, 'contrib')
        .filter((c) => (c.attributes['contrib-type'] ?? 'author') === 'author')
        .map((c) => {
          const n = first(c, 'name');
          return n ? [textOf(first(n, 'given-names')), textOf(first(n, 'surname'))].filter(Boolean).join(' ') : textOf(first(c, 'collab'));
        })
        .filter(Boolean)
    : [];
  if (authors.length > 0) out.push(`Authors: ${authors.join(', ')}`, '');
  for (const abstract of meta ? named(meta, 'abstract') : []) {
    out.push('## Abstract', '');
    block(abstract, 2, out);
  }
  const body = first(article, 'body');
  if (body) block(body, 1, out);
  const back = first(article, 'back');
  for (const refList of back ? all(back, 'ref-list') : []) {
    out.push('', `## ${textOf(first(refList, 'title')) || 'References'}`, '');
    for (const ref of named(refList, 'ref')) {
      const label = textOf(first(ref, 'label'));
      const citation = elementsOf(ref)
        .filter((c) => localName(c.name) !== 'label')
        .map(textOf)
        .join(' ');
      out.push(`- ${label ? `[${label}] ` : ''}${citation}`);
    }
  }
  return { content: tidy(out.join('\n')), dialect: 'jats', ...(title ? { title } : {}) };
}

/** The blocks of a JATS container (body, sec, abstract...); `depth` is the level of its sections' parent. */
function block(node: XmlElement, depth: number, out: string[]): void {
  for (const child of node.children) {
    if (typeof child === 'string') {
      if (child.trim()) out.push(child.trim(), '');
      continue;
    }
    switch (localName(child.name)) {
      case 'title':
        break;
      case 'sec':
      case 'app':
      case 'boxed-text': {
        const heading = textOf(first(child, 'title'));
        if (heading) out.push('', `${'#'.repeat(Math.min(depth + 1, 6))} ${heading}`, '');
        block(child, depth + 1, out);
        break;
      }
      case 'p':
        out.push(textOf(child), '');
        break;
      case 'list':
        for (const item of named(child, 'list-item')) out.push(`- ${textOf(item)}`);
        out.push('');
        break;
      case 'table-wrap': {
        const caption = [textOf(first(child, 'label')), textOf(first(child, 'caption'))].filter(Boolean).join(' ');
        if (caption) out.push(`Table: ${caption}`, '');
        for (const table of all(child, 'table')) out.push(markdownTable(tableRows(table)), '');
        break;
      }
      case 'fig': {
        const caption = [textOf(first(child, 'label')), textOf(first(child, 'caption'))].filter(Boolean).join(' ');
        if (caption) out.push(`Figure: ${caption}`, '');
        break;
      }
      case 'disp-quote':
        out.push(`> ${textOf(child)}`, '');
        break;
      default:
        if (textOf(child)) out.push(textOf(child), '');
    }
  }
}

/** `us-gaap:NetIncomeLoss` -> `Net Income Loss`. */
function humanise(concept: string): string {
  return localName(concept)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/_/g, ' ');
}

const XBRL_INFRASTRUCTURE = new Set(['context', 'unit', 'schemaRef', 'linkbaseRef', 'roleRef', 'arcroleRef', 'footnoteLink']);

function xbrl(root: XmlElement): XmlResult {
  const periods = new Map<string, { period: string; entity: string }>();
  for (const context of all(root, 'context')) {
    const id = context.attributes.id;
    if (!id) continue;
    const period = first(context, 'period');
    const instant = textOf(first(period, 'instant'));
    const range = [textOf(first(period, 'startDate')), textOf(first(period, 'endDate'))].filter(Boolean).join(' to ');
    const forever = first(period, 'forever') ? 'forever' : '';
    const entity = textOf(first(first(context, 'entity'), 'identifier'));
    periods.set(id, { period: instant || range || forever, entity });
  }
  const units = new Map<string, string>();
  for (const unit of all(root, 'unit')) {
    const id = unit.attributes.id;
    if (id) units.set(id, all(unit, 'measure').map((m) => localName(textOf(m))).join(' / ') || textOf(unit));
  }
  const rows: string[][] = [['Concept', 'Value', 'Period', 'Entity', 'Unit']];
  const visit = (node: XmlElement) => {
    for (const child of elementsOf(node)) {
      if (XBRL_INFRASTRUCTURE.has(localName(child.name))) continue;
      const contextRef = child.attributes.contextRef;
      if (contextRef === undefined) {
        // A tuple groups facts.
        visit(child);
        continue;
      }
      const context = periods.get(contextRef);
      const unit = child.attributes.unitRef ? (units.get(child.attributes.unitRef) ?? child.attributes.unitRef) : '';
      rows.push([`${humanise(child.name)} (${child.name})`, textOf(child), context?.period ?? contextRef, context?.entity ?? '', unit]);
    }
  };
  visit(root);
  if (rows.length === 1) return { content: tidy(outline(root)), dialect: 'xbrl' };
  return { content: `# XBRL facts\n\n${markdownTable(rows)}`, dialect: 'xbrl' };
}
