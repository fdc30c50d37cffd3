/**
 * @module knowledge/readers/sources/video-site
 * `video_site`: a YouTube video's transcript, from its caption tracks (see providers/youtube).
 * Any usual link form works (`youtube.com/watch?v=ID`, `youtu.be/ID` — which agno misreads —,
 * `/shorts/ID`, `/embed/ID`, `/live/ID`). The transcript is cut into passages of about
 * `window_seconds` (60 by default), one document each, with `start_seconds`, `end_seconds`,
 * `timestamp` (h:mm:ss) and `timestamp_url` (the video at that moment) in its metadata, so a
 * search hit points at the moment it quotes. A video without captions fails with that message.
 *
 * Settings: YOUTUBE_BASE_URL (default https://www.youtube.com) and VIDEO_CAPTION_LANGUAGES
 * (preferred languages, default `en`). SSRF: the caller's URL only names the video; every
 * request goes to YOUTUBE_BASE_URL (the operator's), including the caption track, whose path
 * and query are taken from the page but whose origin is always the configured one.
 */
import { badRequest, unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { extractPlayerResponse, parseTimedText, parseVideoId, pickTrack, playerInfo, type CaptionSegment } from './providers/youtube.js';
import { chunkersWithDefault } from '../reader.js';
import { knownOptions, optionalInt, refuseBytes, type SourceContext, type SourceInput, type SourceReader, type SourceResult } from './source-reader.js';
import type { VideoSettings } from '../../../settings/sources.js';

/** Watch pages are large (about 1 MB); captions far smaller. */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;

export class VideoSiteReader implements SourceReader {
  readonly id = 'video_site';
  readonly name = 'VideoSiteReader';
  readonly description = "Reads a YouTube video's transcript from its caption tracks, in timestamped passages";
  readonly chunkers = chunkersWithDefault('RecursiveChunker');
  readonly contentTypes = ['url', 'youtube'] as const;
  readonly source = 'url';

  constructor(private readonly settings: VideoSettings = { baseUrl: 'https://www.youtube.com', languages: ['en'] }) {}

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { url: string } {
    if (input.url === undefined) throw badRequest('The video_site reader needs the url of a video');
    knownOptions(input.options, this.id, ['language', 'window_seconds']);
    optionalInt(input.options, 'window_seconds', this.id, 10, 3600);
    const language = input.options.language;
    if (language !== undefined && (typeof language !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(language))) {
      throw badRequest('video_site reader: reader_options.language must be a language code such as en or pt-BR');
    }
    const id = parseVideoId(input.url);
    if (!id) throw badRequest(`video_site reader: "${input.url}" is not a YouTube video URL (youtube.com/watch?v=..., youtu.be/..., /shorts/..., /embed/...)`);
    return { url: `https://www.youtube.com/watch?v=${id}` };
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    this.check(input);
    const id = parseVideoId(input.url!)!;
    const windowSeconds = optionalInt(input.options, 'window_seconds', this.id, 10, 3600) ?? 60;
    const languages = typeof input.options.language === 'string' ? [input.options.language, ...this.settings.languages] : this.settings.languages;
    const base = this.settings.baseUrl;
    const page = await context.fetchService(`${base}/watch?v=${id}&hl=en`, { maxBytes: Math.min(context.maxBytes, MAX_PAGE_BYTES), headers: { 'accept-language': 'en-US,en;q=0.9' } });
    const response = extractPlayerResponse(Buffer.from(page.body).toString('utf8'));
    if (response === undefined) throw unprocessable(`video_site reader: the watch page of ${id} has no player data (YouTube may have answered with a consent or sign-in page)`);
    const info = playerInfo(response);
    if (info.playability !== undefined && info.playability !== 'OK') {
      throw badRequest(`video_site reader: video ${id} cannot be played (${info.playability}${info.playabilityReason ? `: ${info.playabilityReason}` : ''})`);
    }
    const track = pickTrack(info.tracks, languages);
    if (!track) throw unprocessable(`video_site reader: video ${id} has no captions, so there is no transcript to read`);
    // Only the path and query come from the page; the origin is always the configured one.
    const trackUrl = new URL(track.baseUrl, `${base}/`);
    const captions = await context.fetchService(`${base}${trackUrl.pathname}${trackUrl.search}`, { maxBytes: Math.min(context.maxBytes, MAX_PAGE_BYTES) });
    const segments = parseTimedText(Buffer.from(captions.body).toString('utf8'));
    if (segments.length === 0) throw unprocessable(`video_site reader: the ${track.languageCode} captions of video ${id} came back empty`);

    const videoUrl = `https://www.youtube.com/watch?v=${id}`;
    const name = input.name ?? info.title ?? `youtube_${id}`;
    const documents: Document[] = passages(segments, windowSeconds).map((passage, i) => {
      const start = Math.floor(passage.start);
      return {
        content: passage.text,
        name,
        id: `youtube_${id}_${i + 1}`,
        meta_data: {
          video_id: id,
          video_url: videoUrl,
          ...(info.title ? { title: info.title } : {}),
          ...(info.author ? { author: info.author } : {}),
          language: track.languageCode,
          captions: track.kind === 'asr' ? 'automatic' : 'manual',
          start_seconds: Math.round(passage.start * 1000) / 1000,
          end_seconds: Math.round(passage.end * 1000) / 1000,
          timestamp: clock(start),
          timestamp_url: `${videoUrl}&t=${start}s`,
        },
      };
    });
    return { parts: [{ documents, reader: this }], title: info.title, notes: [] };
  }
}

/** Consecutive segments grouped into passages of about `windowSeconds` each. */
export function passages(segments: readonly CaptionSegment[], windowSeconds: number): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string[] }[] = [];
  for (const s of segments) {
    const current = out.at(-1);
    if (!current || s.start - current.start >= windowSeconds) out.push({ start: s.start, end: s.start + s.duration, text: [s.text] });
    else {
      current.text.push(s.text);
      current.end = Math.max(current.end, s.start + s.duration);
    }
  }
  return out.map((p) => ({ start: p.start, end: p.end, text: p.text.join(' ') }));
}

/** Seconds as h:mm:ss (or m:ss under an hour), as the site shows times. */
export function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
