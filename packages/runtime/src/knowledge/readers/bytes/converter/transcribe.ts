/**
 * @module knowledge/readers/bytes/converter/transcribe
 * Audio and video to text through an OpenAI-compatible speech-to-text API: `POST
 * {TRANSCRIPTION_BASE_URL}/audio/transcriptions`, multipart/form-data with `file` (named with the
 * extension of its real format, which is how such services tell formats apart), `model`,
 * `response_format` and optionally `language`. A `verbose_json` answer's segments
 * (`{start, end, text}` in seconds) become timestamped lines; a `json` answer's `text` is used
 * as is. OpenAI itself accepts flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav and webm, up to 25 MB;
 * self-hosted servers (whisper.cpp, faster-whisper) usually decode anything ffmpeg reads.
 *
 * The request goes through safeFetch (DNS pinning, timeouts, a capped answer, no redirects).
 * The service is the operator's, so its host may be internal. The key is sent only in the
 * `Authorization` header and is cut out of every message; a plain-http base URL to a
 * non-loopback host is refused when there is a key. A 429 or 5xx, or a service that cannot be
 * reached, is SERVICE_UNAVAILABLE (the ingestion job retries); other refusals fail the upload.
 */
import { randomBytes } from 'node:crypto';
import { ConfigurationError, RuntimeError, unprocessable } from '../../../../errors.js';
import { safeFetch } from '../../../../net/safe-fetch.js';
import type { Document } from '../../../types.js';
import { redact } from '../../../../net/redact.js';
import { stem } from '../../reader.js';
import { checkTranscriptionTransport, type TranscriptionSettings } from '../../../../settings/converter.js';
import { VIDEO_FORMATS } from './sniff.js';

const MIME: Record<string, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
};

const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The refusal when no service is configured, naming the settings. */
export function noTranscriptionService(fileName: string, format: string): RuntimeError {
  const what = VIDEO_FORMATS.has(format) ? 'video' : 'audio';
  return unprocessable(
    `converter reader: "${fileName}" is ${what} (${format.toUpperCase()}), and no transcription service is configured: set TRANSCRIPTION_BASE_URL (an OpenAI-compatible API with POST /audio/transcriptions), TRANSCRIPTION_MODEL and, if it needs one, TRANSCRIPTION_API_KEY`,
  );
}

function multipart(fields: Record<string, string>, file: { name: string; type: string; data: Uint8Array }): { body: Uint8Array; type: string } {
  const boundary = `----svc-runtime-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
  parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** `83.5` -> `00:01:23.500`. */
function stamp(seconds: number): string {
  const s = Math.max(0, seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${(s % 60).toFixed(3).padStart(6, '0')}`;
}

function errorDetail(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  const nested = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>).message : undefined;
  const candidate = nested ?? b.error ?? b.message ?? b.detail;
  if (typeof candidate !== 'string' || !candidate.trim()) return undefined;
  const text = candidate.trim().replace(/\s+/g, ' ');
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

export interface TranscribeInput {
  /** The name the file is reported under (a file or an archive member). */
  fileName: string;
  format: string;
  data: Uint8Array;
}

/** Transcribes one audio or video file into one document. */
export async function transcribe(settings: TranscriptionSettings, input: TranscribeInput, signal: AbortSignal | undefined): Promise<Document> {
  const { fileName, format, data } = input;
  if (!settings.baseUrl) throw noTranscriptionService(fileName, format);
  try {
    checkTranscriptionTransport(settings.baseUrl, settings.apiKey);
  } catch (error) {
    throw new RuntimeError('SERVICE_UNAVAILABLE', `converter reader: "${fileName}" was not sent for transcription: ${(error as ConfigurationError).message}`);
  }
  if (data.byteLength > settings.maxBytes) {
    throw unprocessable(`converter reader: "${fileName}" is ${data.byteLength} bytes, more than the ${settings.maxBytes} the transcription service accepts (TRANSCRIPTION_MAX_BYTES); split or compress it and upload the parts`);
  }
  const secrets = [settings.apiKey];
  const base = stem(fileName.split('/').pop() ?? fileName) || 'audio';
  const fields: Record<string, string> = { model: settings.model, response_format: settings.responseFormat };
  if (settings.language) fields.language = settings.language;
  const { body, type } = multipart(fields, { name: `${base}.${format}`, type: MIME[format] ?? 'application/octet-stream', data });
  const url = `${settings.baseUrl}/audio/transcriptions`;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let answer;
  try {
    answer = await safeFetch(url, {
      method: 'POST',
      headers: { 'content-type': type, accept: 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body,
      maxBytes: MAX_ANSWER_BYTES,
      timeoutMs: settings.timeoutMs,
      maxRedirects: 0,
      allowHttpErrors: true,
      allowPrivateHosts: [host],
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new RuntimeError('SERVICE_UNAVAILABLE', redact(`converter reader: "${fileName}" could not be transcribed: the transcription service could not be reached (${reason})`, secrets), { cause: error });
  }
  const textBody = Buffer.from(answer.body).toString('utf8');
  let parsed: unknown;
  try {
    parsed = textBody.trim() ? JSON.parse(textBody) : undefined;
  } catch {
    parsed = undefined;
  }
  if (answer.status < 200 || answer.status > 299) {
    const detail = errorDetail(parsed);
    const hint = answer.status === 401 || answer.status === 403 ? ' (check TRANSCRIPTION_API_KEY)' : '';
    const message = redact(`converter reader: "${fileName}" could not be transcribed: the transcription service answered HTTP ${answer.status}${detail ? `: ${detail}` : ''}${hint}`, secrets);
    throw answer.status === 429 || answer.status >= 500 ? new RuntimeError('SERVICE_UNAVAILABLE', message) : unprocessable(message);
  }
  const result = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  if (!result || typeof result.text !== 'string') {
    throw new RuntimeError('SERVICE_UNAVAILABLE', `converter reader: "${fileName}" could not be transcribed: the transcription service answered without a JSON "text" field`);
  }
  const segments = Array.isArray(result.segments) ? (result.segments as unknown[]) : [];
  const lines = segments
    .map((s) => s as Record<string, unknown>)
    .filter((s) => typeof s.text === 'string' && s.text.trim() && typeof s.start === 'number' && typeof s.end === 'number')
    .map((s) => `[${stamp(s.start as number)} --> ${stamp(s.end as number)}] ${(s.text as string).trim()}`);
  const content = lines.length > 0 ? lines.join('\n') : result.text.trim();
  if (!content) throw unprocessable(`converter reader: "${fileName}" has no speech the transcription service could recognise`);
  const meta: Record<string, unknown> = { transcribed: true };
  if (typeof result.language === 'string') meta.language = result.language;
  if (typeof result.duration === 'number') meta.duration_seconds = result.duration;
  return { content, name: base, id: base, meta_data: meta };
}
