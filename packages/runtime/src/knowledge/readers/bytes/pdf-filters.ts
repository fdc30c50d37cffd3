/**
 * @module knowledge/readers/bytes/pdf-filters
 * PDF's expanding stream filters, decoded under a cap so a scan can measure what PDF.js would
 * produce before PDF.js sees the file: FlateDecode (zlib, streamed and counted, stopped past the
 * cap), LZWDecode, RunLengthDecode, and the ASCII encodings that often come before them. Output
 * is kept only when another filter follows; the last one is only counted.
 */
import { createInflate } from 'node:zlib';

export interface Decoded {
  /** Bytes produced (up to the point the cap was passed). */
  size: number;
  /** The cap was passed; decoding stopped there. */
  over: boolean;
  /** The output, when asked for and within the cap. */
  bytes?: Uint8Array;
}

/** The filters decoded here, by their full and abbreviated (inline image) names. */
const NAMES: Record<string, string> = {
  FlateDecode: 'flate', Fl: 'flate',
  LZWDecode: 'lzw', LZW: 'lzw',
  RunLengthDecode: 'runlength', RL: 'runlength',
  ASCIIHexDecode: 'hex', AHx: 'hex',
  ASCII85Decode: 'a85', A85: 'a85',
};

/** The decoder of a filter name, or undefined for one that does not expand here (image codecs, Crypt). */
export function decoderOf(name: string): string | undefined {
  return NAMES[name];
}

/** Output under a cap: kept when asked, counted always. */
class Sink {
  size = 0;
  over = false;
  private readonly chunks: Uint8Array[] = [];
  constructor(
    private readonly cap: number,
    private readonly keep: boolean,
  ) {}
  /** False once the cap is passed. */
  push(bytes: Uint8Array): boolean {
    this.size += bytes.length;
    if (this.size > this.cap) this.over = true;
    else if (this.keep) this.chunks.push(bytes);
    return !this.over;
  }
  result(): Decoded {
    return { size: this.size, over: this.over, ...(this.keep && !this.over ? { bytes: Buffer.concat(this.chunks) } : {}) };
  }
}

/**
 * zlib data as PDF.js reads it (a zlib header is required; it stops at the stream's end, so
 * input may run on past it). Corrupt data ends the count where PDF.js would stop too.
 */
function flate(input: Uint8Array, sink: Sink): Promise<Decoded> {
  const [cmf = 0, flg = 0] = input;
  if (input.length < 2 || (cmf & 0x0f) !== 8 || ((cmf << 8) | flg) % 31 !== 0 || (flg & 0x20) !== 0) return Promise.resolve(sink.result());
  return new Promise((resolve) => {
    const zlib = createInflate();
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      zlib.destroy();
      resolve(sink.result());
    };
    zlib.on('data', (chunk: Buffer) => {
      if (!sink.push(chunk)) done();
    });
    zlib.on('end', done);
    zlib.on('error', done);
    zlib.end(input);
  });
}

/** LZW with 9-12 bit codes, most significant bit first; `earlyChange` as the stream's DecodeParms say (default 1). */
function lzw(input: Uint8Array, sink: Sink, earlyChange: number): Decoded {
  const prefix = new Int32Array(4096);
  const last = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let c = 0; c < 256; c++) {
    last[c] = c;
    first[c] = c;
    length[c] = 1;
  }
  let buffer = 0;
  let bits = 0;
  let at = 0;
  let width = 9;
  let next = 258;
  let previous = -1;
  const emit = (code: number, extra?: number) => {
    const out = new Uint8Array(length[code]! + (extra === undefined ? 0 : 1));
    for (let c = code, i = length[code]! - 1; i >= 0; i--, c = prefix[c]!) out[i] = last[c]!;
    if (extra !== undefined) out[out.length - 1] = extra;
    return sink.push(out);
  };
  for (;;) {
    while (bits < width && at < input.length) {
      buffer = ((buffer << 8) | input[at++]!) & 0xffffff;
      bits += 8;
    }
    if (bits < width) break;
    const code = (buffer >> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    if (code === 257) break;
    if (code === 256) {
      width = 9;
      next = 258;
      previous = -1;
      continue;
    }
    let ok: boolean;
    let head: number;
    if (code < next) {
      head = first[code]!;
      ok = emit(code);
    } else if (code === next && previous >= 0) {
      head = first[previous]!;
      ok = emit(previous, head);
    } else {
      break;
    }
    if (!ok) break;
    if (previous >= 0 && next < 4096) {
      prefix[next] = previous;
      last[next] = head;
      first[next] = first[previous]!;
      length[next] = length[previous]! + 1;
      next++;
    }
    previous = code;
    if (next + earlyChange >= 1 << width && width < 12) width++;
  }
  return sink.result();
}

function runLength(input: Uint8Array, sink: Sink): Decoded {
  let at = 0;
  while (at < input.length) {
    const n = input[at++]!;
    if (n === 128) break;
    const ok = n < 128 ? sink.push(input.subarray(at, (at += n + 1))) : at < input.length && sink.push(new Uint8Array(257 - n).fill(input[at++]!));
    if (!ok) break;
  }
  return sink.result();
}

/** Bytes one at a time into the sink, in chunks. */
class Writer {
  private readonly buffer = new Uint8Array(64 * 1024);
  private used = 0;
  constructor(private readonly sink: Sink) {}
  byte(value: number): boolean {
    this.buffer[this.used++] = value;
    return this.used < this.buffer.length || this.flush();
  }
  flush(): boolean {
    const ok = this.sink.push(this.buffer.slice(0, this.used));
    this.used = 0;
    return ok;
  }
}

function asciiHex(input: Uint8Array, sink: Sink): Decoded {
  const out = new Writer(sink);
  let half = -1;
  for (const byte of input) {
    if (byte === 0x3e) break;
    const lower = byte | 0x20;
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
    if (digit < 0) continue;
    if (half < 0) half = digit;
    else if (!out.byte((half << 4) | digit)) return sink.result();
    else half = -1;
  }
  if (half >= 0) out.byte(half << 4);
  out.flush();
  return sink.result();
}

function ascii85(input: Uint8Array, sink: Sink): Decoded {
  const out = new Writer(sink);
  const group: number[] = [];
  const flush = (n: number) => {
    let value = 0;
    for (let i = 0; i < 5; i++) value = value * 85 + (group[i] ?? 84);
    group.length = 0;
    for (let i = 0; i < n - 1; i++) if (!out.byte(Math.floor(value / 256 ** (3 - i)) % 256)) return false;
    return true;
  };
  for (const byte of input) {
    if (byte === 0x7e) break;
    let ok = true;
    if (byte === 0x7a && group.length === 0) ok = out.byte(0) && out.byte(0) && out.byte(0) && out.byte(0);
    else if (byte >= 0x21 && byte <= 0x75) {
      group.push(byte - 0x21);
      if (group.length === 5) ok = flush(5);
    }
    if (!ok) return sink.result();
  }
  if (group.length > 1) flush(group.length);
  out.flush();
  return sink.result();
}

/**
 * One filter's output from `input`, counted against `cap` (bytes kept when `keep`);
 * undefined for a filter not decoded here.
 */
export async function decode(filter: string, input: Uint8Array, cap: number, keep: boolean, earlyChange = 1): Promise<Decoded | undefined> {
  const sink = new Sink(cap, keep);
  switch (decoderOf(filter)) {
    case 'flate':
      return flate(input, sink);
    case 'lzw':
      return lzw(input, sink, earlyChange);
    case 'runlength':
      return runLength(input, sink);
    case 'hex':
      return asciiHex(input, sink);
    case 'a85':
      return ascii85(input, sink);
    default:
      return undefined;
  }
}
