/**
 * @module knowledge/packed
 * Documents and chunks as they cross between the main thread and a worker. Structured clone of
 * 100k small objects costs the receiving thread hundreds of milliseconds of deserialization in
 * one piece, which on the main thread is a stall of every request. Packed, a list is a few long
 * strings (contents, ids, names, metadata as JSON) with end offsets in typed arrays: copied in
 * milliseconds, and rebuilt on the main thread a slice at a time (`unpackRecords`), yielding to
 * the event loop between slices.
 *
 * Packing is exact or not done: a record with other keys, or metadata JSON would change (a
 * `Date`, `undefined`, `NaN`, -0, a class instance), leaves the list as it is, cloned as before.
 */
import { SLICE_MS, TimeSlicer } from '../util/time-slicer.js';
import type { Metadata } from './types.js';

/** What documents and chunks have in common. */
export interface PackableRecord {
  content: string;
  name?: string | undefined;
  id?: string | undefined;
  meta_data: Metadata;
}

export interface PackedRecords {
  packed: 'records';
  count: number;
  contents: string;
  contentEnds: Uint32Array;
  names: string;
  nameEnds: Uint32Array;
  ids: string;
  idEnds: Uint32Array;
  metas: string;
  metaEnds: Uint32Array;
  /** Per record, two bits each for name (bits 0-1) and id (bits 2-3): 0 no key, 1 a string, 2 the key holding undefined. */
  shape: Uint8Array;
}

export function isPacked(value: unknown): value is PackedRecords {
  return typeof value === 'object' && value !== null && (value as { packed?: unknown }).packed === 'records';
}

/** Whether JSON gives `value` back equal, key order included. */
function jsonSafe(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !jsonSafe(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key of Object.keys(value)) if (!jsonSafe((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

const ORDER = ['content', 'name', 'id', 'meta_data'];

/** Two bits: 0 no key, 1 a string, 2 the key holding undefined; -1 anything else. */
function fieldShape(record: object, key: 'name' | 'id'): number {
  if (!Object.hasOwn(record, key)) return 0;
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'string' ? 1 : value === undefined ? 2 : -1;
}

/** Packs `records`, or answers them as they are when one of them would not come back equal. */
export function packRecords<T extends PackableRecord>(records: readonly T[]): PackedRecords | T[] {
  const count = records.length;
  const [contents, names, ids, metas] = [[] as string[], [] as string[], [] as string[], [] as string[]];
  const [contentEnds, nameEnds, idEnds, metaEnds] = [new Uint32Array(count), new Uint32Array(count), new Uint32Array(count), new Uint32Array(count)];
  const shape = new Uint8Array(count);
  let [c, n, i, m] = [0, 0, 0, 0];
  for (let r = 0; r < count; r++) {
    const record = records[r]!;
    const keys = Object.keys(record);
    let at = 0;
    for (const key of keys) {
      while (at < ORDER.length && ORDER[at] !== key) at++;
      if (at === ORDER.length) return [...records];
    }
    const nameShape = fieldShape(record, 'name');
    const idShape = fieldShape(record, 'id');
    if (typeof record.content !== 'string' || nameShape < 0 || idShape < 0 || !Object.hasOwn(record, 'meta_data') || !jsonSafe(record.meta_data) || Array.isArray(record.meta_data) || record.meta_data === null) {
      return [...records];
    }
    const meta = JSON.stringify(record.meta_data);
    contents.push(record.content);
    if (nameShape === 1) names.push(record.name!);
    if (idShape === 1) ids.push(record.id!);
    metas.push(meta);
    contentEnds[r] = c += record.content.length;
    nameEnds[r] = n += nameShape === 1 ? record.name!.length : 0;
    idEnds[r] = i += idShape === 1 ? record.id!.length : 0;
    metaEnds[r] = m += meta.length;
    shape[r] = nameShape | (idShape << 2);
  }
  return { packed: 'records', count, contents: contents.join(''), contentEnds, names: names.join(''), nameEnds, ids: ids.join(''), idEnds, metas: metas.join(''), metaEnds, shape };
}

function recordAt(p: PackedRecords, r: number): PackableRecord {
  const span = (ends: Uint32Array): [number, number] => [r === 0 ? 0 : ends[r - 1]!, ends[r]!];
  // Keys are set in the order they had: content, name, id, meta_data.
  const record = { content: p.contents.slice(...span(p.contentEnds)) } as PackableRecord;
  const nameShape = p.shape[r]! & 3;
  const idShape = p.shape[r]! >> 2;
  if (nameShape > 0) record.name = nameShape === 1 ? p.names.slice(...span(p.nameEnds)) : undefined;
  if (idShape > 0) record.id = idShape === 1 ? p.ids.slice(...span(p.idEnds)) : undefined;
  record.meta_data = JSON.parse(p.metas.slice(...span(p.metaEnds))) as Metadata;
  return record;
}

/** The records back, at once (in a worker, where nothing else waits). */
export function unpackRecordsNow<T extends PackableRecord>(packed: PackedRecords | T[]): T[] {
  if (!isPacked(packed)) return packed;
  const out: T[] = [];
  for (let r = 0; r < packed.count; r++) out.push(recordAt(packed, r) as T);
  return out;
}

/** The records back, yielding to the event loop whenever a slice of a few ms is used up. */
export async function unpackRecords<T extends PackableRecord>(packed: PackedRecords | T[], signal?: AbortSignal): Promise<T[]> {
  if (!isPacked(packed)) return packed;
  const out: T[] = [];
  const slicer = new TimeSlicer(SLICE_MS, signal);
  for (let r = 0; r < packed.count; r++) {
    if ((r & 127) === 0 && r > 0) await slicer.pause();
    out.push(recordAt(packed, r) as T);
  }
  return out;
}
