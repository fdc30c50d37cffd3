/**
 * @module knowledge/readers/bytes/converter/settings
 * The converter's environment variables, parsed once when the readers are built, so a malformed
 * value fails at startup with a ConfigurationError naming it:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `TRANSCRIPTION_BASE_URL` | none (`https://api.openai.com/v1` when only a key is set) | an OpenAI-compatible API whose `POST {base}/audio/transcriptions` transcribes audio and video |
 * | `TRANSCRIPTION_API_KEY` | none | sent as `Authorization: Bearer`; refused with a plain-http base URL to a non-loopback host |
 * | `TRANSCRIPTION_MODEL` | `whisper-1` | the `model` form field |
 * | `TRANSCRIPTION_LANGUAGE` | none | ISO-639-1 hint, the `language` form field |
 * | `TRANSCRIPTION_RESPONSE_FORMAT` | `verbose_json` | `verbose_json` (timestamped segments) or `json` (text only) |
 * | `TRANSCRIPTION_TIMEOUT_SECONDS` | 600 | one transcription request |
 * | `TRANSCRIPTION_MAX_BYTES` | 26214400 (25 MiB, OpenAI's limit) | larger audio is refused before sending |
 * | `CONVERTER_OCR_MAX_PAGES` | 50 | scanned PDF pages OCRed per file (the rest are noted as skipped) |
 * | `CONVERTER_OCR_MAX_PIXELS` | 40000000 | pixels of one image or rendered page |
 * | `CONVERTER_ARCHIVE_MAX_BYTES` | 268435456 | inflated size of a .tar.gz |
 * | `CONVERTER_ARCHIVE_MAX_MEMBERS` | 1000 | entries of a .tar.gz looked at |
 */
import { ConfigurationError } from '../../../../errors.js';
import type { ConvertLimits } from './convert.js';

export type ConverterEnvironment = Record<string, string | undefined>;

export interface TranscriptionSettings {
  /** Undefined: no transcription service; audio and video are refused naming the settings. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string;
  language: string | undefined;
  responseFormat: 'json' | 'verbose_json';
  timeoutMs: number;
  maxBytes: number;
}

export interface ConverterSettings {
  transcription: TranscriptionSettings;
  limits: ConvertLimits;
}

export const DEFAULT_LIMITS: ConvertLimits = {
  ocrMaxPages: 50,
  ocrMaxPixels: 40_000_000,
  archiveMaxBytes: 256 * 1024 * 1024,
  archiveMaxMembers: 1000,
};

export const NO_TRANSCRIPTION: TranscriptionSettings = {
  baseUrl: undefined,
  apiKey: undefined,
  model: 'whisper-1',
  language: undefined,
  responseFormat: 'verbose_json',
  timeoutMs: 600_000,
  maxBytes: 25 * 1024 * 1024,
};

function text(env: ConverterEnvironment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function int(env: ConverterEnvironment, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigurationError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

/** True for localhost names and loopback addresses, where plain http never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Refuses a key that would travel in clear text: plain http is fine to this machine (a local
 * whisper server), not across a network.
 */
export function checkTranscriptionTransport(baseUrl: string, apiKey: string | undefined): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && apiKey && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError(`TRANSCRIPTION_BASE_URL is plain http to ${url.hostname}, so TRANSCRIPTION_API_KEY would cross the network unencrypted; use an https URL (plain http is accepted only for loopback hosts)`);
  }
}

function urlSetting(env: ConverterEnvironment, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`${name} must be an http(s) URL, got "${raw}"`);
  if (url.username || url.password) throw new ConfigurationError(`${name} must not contain credentials; use TRANSCRIPTION_API_KEY`);
  if (url.search || url.hash) throw new ConfigurationError(`${name} must be a base URL without query or fragment`);
  return url.href.replace(/\/+$/, '');
}

export function readConverterSettings(env: ConverterEnvironment = process.env): ConverterSettings {
  const apiKey = text(env, 'TRANSCRIPTION_API_KEY');
  const base = urlSetting(env, 'TRANSCRIPTION_BASE_URL') ?? (apiKey ? 'https://api.openai.com/v1' : undefined);
  if (base) checkTranscriptionTransport(base, apiKey);
  const format = text(env, 'TRANSCRIPTION_RESPONSE_FORMAT') ?? 'verbose_json';
  if (format !== 'json' && format !== 'verbose_json') throw new ConfigurationError(`TRANSCRIPTION_RESPONSE_FORMAT must be json or verbose_json, got "${format}"`);
  const language = text(env, 'TRANSCRIPTION_LANGUAGE');
  if (language !== undefined && !/^[a-z]{2,3}$/i.test(language)) throw new ConfigurationError(`TRANSCRIPTION_LANGUAGE must be an ISO-639-1 code such as "en", got "${language}"`);
  return {
    transcription: {
      baseUrl: base,
      apiKey,
      model: text(env, 'TRANSCRIPTION_MODEL') ?? 'whisper-1',
      language,
      responseFormat: format,
      timeoutMs: int(env, 'TRANSCRIPTION_TIMEOUT_SECONDS', 600, 1, 86_400) * 1000,
      maxBytes: int(env, 'TRANSCRIPTION_MAX_BYTES', 25 * 1024 * 1024, 1, 2 ** 31),
    },
    limits: {
      ocrMaxPages: int(env, 'CONVERTER_OCR_MAX_PAGES', DEFAULT_LIMITS.ocrMaxPages, 0, 10_000),
      ocrMaxPixels: int(env, 'CONVERTER_OCR_MAX_PIXELS', DEFAULT_LIMITS.ocrMaxPixels, 10_000, 400_000_000),
      archiveMaxBytes: int(env, 'CONVERTER_ARCHIVE_MAX_BYTES', DEFAULT_LIMITS.archiveMaxBytes, 1024, 2 ** 32),
      archiveMaxMembers: int(env, 'CONVERTER_ARCHIVE_MAX_MEMBERS', DEFAULT_LIMITS.archiveMaxMembers, 1, 100_000),
    },
  };
}
