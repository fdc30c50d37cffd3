/**
 * @module knowledge/readers/bytes/converter/vtt
 * WebVTT captions as timestamped text, one cue per line:
 *
 * ```
 * [00:00:01.000 --> 00:00:04.000] Alice: Welcome to the quarterly review.
 * ```
 *
 * The `WEBVTT` header, NOTE, STYLE and REGION blocks and cue settings are left out; a cue's
 * voice span (`<v Alice>`) becomes a `Alice:` prefix; other tags (`<c>`, `<b>`, `<i>`, `<u>`,
 * `<ruby>`, inline timestamps) are removed and their text kept; entities are decoded. A cue that
 * repeats the one before (captions that roll up line by line) is written once.
 */
import { unprocessable } from '../../../../errors.js';

export interface VttResult {
  content: string;
  cues: number;
  /** The last cue's end, in seconds. */
  duration: number;
}

const TIMING = /^((?:\d+:)?\d{1,2}:\d{2}[.,]\d{3})\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}[.,]\d{3})/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: ' ', lrm: '', rlm: '', quot: '"', apos: "'" };

function seconds(stamp: string): number {
  const parts = stamp.replace(',', '.').split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

/** `00:01.500` and `0:00:01.500` both as `00:00:01.500`. */
function normalise(stamp: string): string {
  const s = seconds(stamp);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = (s % 60).toFixed(3).padStart(6, '0');
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${rest}`;
}

function payloadText(lines: string[]): string {
  let voice: string | undefined;
  const text = lines
    .join(' ')
    .replace(/<v(?:\.[^\s>]*)?\s+([^>]*)>/g, (_, who: string) => {
      voice ??= who.trim();
      return '';
    })
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
      if (code.startsWith('#x') || code.startsWith('#X')) return String.fromCodePoint(parseInt(code.slice(2), 16));
      if (code.startsWith('#')) return String.fromCodePoint(Number(code.slice(1)));
      return ENTITIES[code.toLowerCase()] ?? whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return voice && text ? `${voice}: ${text}` : text;
}

export function vttToText(text: string, fileName: string): VttResult {
  const lines = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  if (!/^WEBVTT(?=[ \t]|$)/.test(lines[0] ?? '')) throw unprocessable(`converter reader: "${fileName}" is not WebVTT: a captions file starts with "WEBVTT"`);
  const out: string[] = [];
  let duration = 0;
  let previous = '';
  let i = 1;
  // The header may continue until the first blank line.
  while (i < lines.length && lines[i]!.trim() !== '') i++;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.trim() === '') i++;
    const block: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '') block.push(lines[i++]!);
    if (block.length === 0) break;
    if (/^(NOTE|STYLE|REGION)(?=[ \t]|$)/.test(block[0]!)) continue;
    const timingAt = TIMING.test(block[0]!) ? 0 : TIMING.test(block[1] ?? '') ? 1 : -1;
    if (timingAt < 0) continue;
    const [, start, end] = TIMING.exec(block[timingAt]!)!;
    const cue = payloadText(block.slice(timingAt + 1));
    duration = Math.max(duration, seconds(end!));
    if (!cue || cue === previous) continue;
    previous = cue;
    out.push(`[${normalise(start!)} --> ${normalise(end!)}] ${cue}`);
  }
  if (out.length === 0) throw unprocessable(`converter reader: "${fileName}" has no captions with text`);
  return { content: out.join('\n'), cues: out.length, duration: Math.round(duration * 1000) / 1000 };
}
