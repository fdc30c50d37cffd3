/**
 * @module knowledge/readers/sources/providers/youtube
 * YouTube's caption tracks, as its watch page exposes them: the page assigns the player's
 * state to `ytInitialPlayerResponse`, whose `captions.playerCaptionsTracklistRenderer
 * .captionTracks` lists tracks (`baseUrl`, `languageCode`, `kind: "asr"` for automatic ones,
 * `name`); a track's `baseUrl` serves the timedtext in one of three shapes: the classic XML
 * (`<transcript><text start dur>`), format 3 XML (`<timedtext><body><p t d>` in ms, words in
 * `<s>`), or JSON (`fmt=json3`: `events[].tStartMs/dDurationMs/segs[].utf8`). All three parse.
 */
import { XMLParser } from 'fast-xml-parser';

export interface CaptionTrack {
  baseUrl: string;
  languageCode: string;
  /** `asr` for automatic speech recognition; absent for captions someone wrote. */
  kind: string | undefined;
  name: string | undefined;
}

export interface PlayerInfo {
  videoId: string | undefined;
  title: string | undefined;
  author: string | undefined;
  /** `OK`, or why the video cannot be played (`ERROR`, `LOGIN_REQUIRED`, `UNPLAYABLE`...). */
  playability: string | undefined;
  playabilityReason: string | undefined;
  tracks: CaptionTrack[];
}

export interface CaptionSegment {
  /** Seconds from the start. */
  start: number;
  duration: number;
  text: string;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com', 'youtube-nocookie.com', 'www.youtube-nocookie.com']);

/**
 * The 11-character id of a YouTube video URL: `youtube.com/watch?v=ID`, `youtu.be/ID`,
 * `/shorts/ID`, `/embed/ID`, `/live/ID`, `/v/ID` (any of the site's hosts); undefined otherwise.
 */
export function parseVideoId(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.toLowerCase();
  const segments = url.pathname.split('/').filter(Boolean);
  let id: string | undefined;
  if (host === 'youtu.be' || host === 'www.youtu.be') {
    id = segments[0];
  } else if (HOSTS.has(host)) {
    if (segments[0] === 'watch') id = url.searchParams.get('v') ?? undefined;
    else if (segments.length >= 2 && ['shorts', 'embed', 'live', 'v', 'e'].includes(segments[0]!)) id = segments[1];
  }
  return id !== undefined && VIDEO_ID.test(id) ? id : undefined;
}

/** The JSON object assigned to `ytInitialPlayerResponse` in a watch page, if there is one. */
export function extractPlayerResponse(html: string): unknown {
  const marker = /ytInitialPlayerResponse\s*=\s*\{/g;
  for (let m = marker.exec(html); m; m = marker.exec(html)) {
    const start = m.index + m[0].length - 1;
    const end = balancedEnd(html, start);
    if (end === undefined) continue;
    try {
      return JSON.parse(html.slice(start, end + 1));
    } catch {
      // Not JSON after all (a script mentioning the name); try the next one.
    }
  }
  return undefined;
}

/** Index of the `}` closing the object opened at `start`, skipping strings. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return undefined;
}

function displayText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { simpleText?: unknown; runs?: unknown };
  if (typeof v.simpleText === 'string') return v.simpleText;
  if (Array.isArray(v.runs)) return (v.runs as unknown[]).map((r) => str(at(r, 'text')) ?? '').join('');
  return undefined;
}

/** The value at a path of nested objects, or undefined. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function playerInfo(response: unknown): PlayerInfo {
  const tracks = at(response, 'captions', 'playerCaptionsTracklistRenderer', 'captionTracks');
  return {
    videoId: str(at(response, 'videoDetails', 'videoId')),
    title: str(at(response, 'videoDetails', 'title')),
    author: str(at(response, 'videoDetails', 'author')),
    playability: str(at(response, 'playabilityStatus', 'status')),
    playabilityReason: displayText(at(response, 'playabilityStatus', 'reason')),
    tracks: (Array.isArray(tracks) ? (tracks as unknown[]) : []).flatMap((t): CaptionTrack[] => {
      const baseUrl = str(at(t, 'baseUrl'));
      const languageCode = str(at(t, 'languageCode'));
      return baseUrl && languageCode ? [{ baseUrl, languageCode, kind: str(at(t, 'kind')), name: displayText(at(t, 'name')) }] : [];
    }),
  };
}

/**
 * The track to read: the first preferred language with written captions, else with automatic
 * ones; then any written track, then any track.
 */
export function pickTrack(tracks: readonly CaptionTrack[], languages: readonly string[]): CaptionTrack | undefined {
  const matches = (t: CaptionTrack, lang: string) => t.languageCode.toLowerCase() === lang.toLowerCase() || t.languageCode.toLowerCase().startsWith(`${lang.toLowerCase()}-`);
  for (const lang of languages) {
    const found = tracks.find((t) => matches(t, lang) && t.kind !== 'asr') ?? tracks.find((t) => matches(t, lang));
    if (found) return found;
  }
  return tracks.find((t) => t.kind !== 'asr') ?? tracks[0];
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => name === 'text' || name === 'p' || name === 's',
});

/** The segments of a timedtext answer, whichever of the three shapes it is. */
export function parseTimedText(body: string): CaptionSegment[] {
  const trimmed = body.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('{')) return parseJson3(trimmed);
  const doc: unknown = xml.parse(trimmed);
  const classic = at(doc, 'transcript');
  if (classic !== undefined) {
    return list(at(classic, 'text')).map((t) => segment(Number(at(t, 'start') ?? 0), Number(at(t, 'dur') ?? 0), nodeText(t))).filter(usable);
  }
  const paragraphs = list(at(doc, 'timedtext', 'body', 'p'));
  return paragraphs
    .map((p) => {
      const words = list(at(p, 's'));
      return segment(Number(at(p, 't') ?? 0) / 1000, Number(at(p, 'd') ?? 0) / 1000, words.length > 0 ? words.map(nodeText).join('') : nodeText(p));
    })
    .filter(usable);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
}

function segment(start: number, duration: number, raw: string): CaptionSegment {
  return { start, duration: Number.isFinite(duration) ? duration : 0, text: clean(raw) };
}

function usable(s: CaptionSegment): boolean {
  return s.text !== '' && Number.isFinite(s.start);
}

function parseJson3(body: string): CaptionSegment[] {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return [];
  }
  return list(at(doc, 'events'))
    .filter((e) => Array.isArray(at(e, 'segs')))
    .map((e) =>
      segment(
        Number(at(e, 'tStartMs') ?? 0) / 1000,
        Number(at(e, 'dDurationMs') ?? 0) / 1000,
        list(at(e, 'segs'))
          .map((seg) => str(at(seg, 'utf8')) ?? '')
          .join(''),
      ),
    )
    .filter(usable);
}

function nodeText(node: unknown): string {
  if (typeof node === 'string') return node;
  return str(at(node, '#text')) ?? '';
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * Caption text: entities decoded (the classic format escapes twice, so `&amp;#39;` arrives as
 * `&#39;`), markup such as `<font>` dropped, whitespace collapsed.
 */
function clean(raw: string): string {
  let decoded = raw;
  for (let pass = 0; pass < 2; pass++) {
    decoded = decoded.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
      if (body[0] === '#') {
        const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return NAMED[body.toLowerCase()] ?? entity;
    });
  }
  return decoded
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
