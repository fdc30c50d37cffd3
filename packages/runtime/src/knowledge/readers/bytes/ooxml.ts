/**
 * @module knowledge/readers/bytes/ooxml
 * A small, order-preserving view of Office Open XML parts, parsed with fast-xml-parser. Elements
 * are matched by local name (`sp` for `<p:sp>`), since prefixes are only conventions. A part
 * declaring a DTD is refused: OOXML never has one, and a DTD's entities are the classic
 * entity-expansion attack on XML parsers.
 */
import type { X2jOptions } from 'fast-xml-parser';

/** One element in document order: its qualified name, attributes and children. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

const OPTIONS: X2jOptions = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Spaces inside <a:t> runs separate words ("Hello" + " world").
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Numeric character references (&#x2013;) are decoded too.
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
};

type RawNode = Record<string, unknown>;

let parserClass: Promise<typeof import('fast-xml-parser').XMLParser> | undefined;

/** Parses a part; throws (with a reason) on a DTD or malformed XML. */
export async function parseXml(xml: string): Promise<XmlElement> {
  if (/<!DOCTYPE/i.test(xml)) throw new Error('XML with a DTD is not accepted');
  const XMLParser = await (parserClass ??= import('fast-xml-parser').then((m) => m.XMLParser));
  const { XMLValidator } = await import('fast-xml-parser');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`malformed XML at line ${valid.err.line}: ${valid.err.msg}`);
  const raw = new XMLParser(OPTIONS).parse(xml) as RawNode[];
  const root = convert(raw).find((n): n is XmlElement => typeof n !== 'string');
  if (!root) throw new Error('the XML has no root element');
  return root;
}

function convert(nodes: RawNode[]): XmlNode[] {
  const out: XmlNode[] = [];
  for (const node of nodes) {
    for (const [key, value] of Object.entries(node)) {
      if (key === ':@') continue;
      if (key === '#text') {
        out.push(String(value));
        continue;
      }
      const attributes = (node[':@'] ?? {}) as Record<string, string>;
      out.push({ name: key, attributes, children: convert((value ?? []) as RawNode[]) });
    }
  }
  return out;
}

/** `p:sp` -> `sp`. */
export function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

export function elements(node: XmlElement, local?: string): XmlElement[] {
  return node.children.filter((c): c is XmlElement => typeof c !== 'string' && (local === undefined || localName(c.name) === local));
}

export function child(node: XmlElement, local: string): XmlElement | undefined {
  return elements(node, local)[0];
}

/** The first element at the end of a path of local names (`['cSld', 'spTree']`). */
export function path(node: XmlElement, locals: readonly string[]): XmlElement | undefined {
  let current: XmlElement | undefined = node;
  for (const local of locals) current = current && child(current, local);
  return current;
}

/** Every descendant with this local name, in document order (not descending into matches). */
export function descendants(node: XmlElement, local: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (n: XmlElement) => {
    for (const c of elements(n)) {
      if (localName(c.name) === local) out.push(c);
      else visit(c);
    }
  };
  visit(node);
  return out;
}

/** An attribute by local name (`r:id` by `id` only when `prefixed`, to tell it from a plain `id`). */
export function attribute(node: XmlElement, local: string, prefixed = false): string | undefined {
  for (const [key, value] of Object.entries(node.attributes)) {
    const hasPrefix = key.includes(':');
    if (localName(key) === local && hasPrefix === prefixed && !key.startsWith('xmlns')) return value;
  }
  return undefined;
}

/** Relationship id -> target, from a `.rels` part (external targets left out). */
export function relationships(rels: XmlElement | undefined): Map<string, { type: string; target: string }> {
  const map = new Map<string, { type: string; target: string }>();
  for (const rel of rels ? elements(rels, 'Relationship') : []) {
    const id = rel.attributes.Id;
    const target = rel.attributes.Target;
    if (!id || !target || rel.attributes.TargetMode === 'External') continue;
    map.set(id, { type: rel.attributes.Type ?? '', target });
  }
  return map;
}
