/**
 * @module settings/converter
 * The converter area (transcription service, OCR and archive limits), parsed once when the
 * readers are built, so a malformed value fails at startup with a ConfigurationError naming it:
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
 *
 * `CONVERTER_OCR_MAX_PIXELS` bounds every image the converter decodes: an image file, a PDF's
 * images and a rendered PDF page. The converter also reads the content limits of
 * settings/content-limits (`KNOWLEDGE_MAX_INFLATED_MB`...), as the Office and PDF readers do.
 */
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import { readEnvironment, type Environment } from './environment.js';
import { httpBaseUrl, matching, oneOf, seconds, text, wholeNumber } from './fields.js';
import { isLoopbackHost } from '../util/loopback.js';
import { contentLimitsSchema, DEFAULT_CONTENT_LIMITS, type ContentLimits } from './content-limits.js';

export interface ConvertLimits extends ContentLimits {
  /** Pages without a text layer OCRed per PDF, at most. */
  ocrMaxPages: number;
  /** Pixels of one image (a file, an image in a PDF, or a rendered page) the converter may decode. */
  ocrMaxPixels: number;
  /** Inflated size of a .tar.gz, at most. */
  archiveMaxBytes: number;
  /** Entries of a .tar.gz looked at, at most. */
  archiveMaxMembers: number;
}

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
  ...DEFAULT_CONTENT_LIMITS,
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

function transportProblem(baseUrl: string, apiKey: string | undefined): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && apiKey && !isLoopbackHost(url.hostname)) {
    return `TRANSCRIPTION_BASE_URL is plain http to ${url.hostname}, so TRANSCRIPTION_API_KEY would cross the network unencrypted; use an https URL (plain http is accepted only for loopback hosts)`;
  }
  return undefined;
}

/**
 * Refuses a key that would travel in clear text: plain http is fine to this machine (a local
 * whisper server), not across a network.
 */
export function checkTranscriptionTransport(baseUrl: string, apiKey: string | undefined): void {
  const problem = transportProblem(baseUrl, apiKey);
  if (problem) throw new ConfigurationError(problem);
}

/** With only a key set, the key is OpenAI's. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

// The service and its transport are checked before the other variables, as they always were:
// an intersection parses its left side first, so that side's problem is the one reported.
const endpoint = z
  .object({
    TRANSCRIPTION_API_KEY: text(),
    TRANSCRIPTION_BASE_URL: httpBaseUrl('use TRANSCRIPTION_API_KEY'),
  })
  .transform((env, ctx) => {
    const apiKey = env.TRANSCRIPTION_API_KEY;
    const url = env.TRANSCRIPTION_BASE_URL ?? (apiKey ? OPENAI_BASE_URL : undefined);
    const problem = url ? transportProblem(url, apiKey) : undefined;
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return { TRANSCRIPTION_BASE_URL: url, TRANSCRIPTION_API_KEY: apiKey };
  });

const rest = z.object({
  TRANSCRIPTION_RESPONSE_FORMAT: oneOf(['json', 'verbose_json']),
  TRANSCRIPTION_LANGUAGE: matching(/^[a-z]{2,3}$/i, 'an ISO-639-1 code such as "en"'),
  TRANSCRIPTION_MODEL: text(NO_TRANSCRIPTION.model),
  TRANSCRIPTION_TIMEOUT_SECONDS: seconds({ min: 1, max: 86_400, default: NO_TRANSCRIPTION.timeoutMs / 1000 }),
  TRANSCRIPTION_MAX_BYTES: wholeNumber({ min: 1, max: 2 ** 31, default: NO_TRANSCRIPTION.maxBytes }),
  CONVERTER_OCR_MAX_PAGES: wholeNumber({ min: 0, max: 10_000, default: DEFAULT_LIMITS.ocrMaxPages }),
  CONVERTER_OCR_MAX_PIXELS: wholeNumber({ min: 10_000, max: 400_000_000, default: DEFAULT_LIMITS.ocrMaxPixels }),
  CONVERTER_ARCHIVE_MAX_BYTES: wholeNumber({ min: 1024, max: 2 ** 32, default: DEFAULT_LIMITS.archiveMaxBytes }),
  CONVERTER_ARCHIVE_MAX_MEMBERS: wholeNumber({ min: 1, max: 100_000, default: DEFAULT_LIMITS.archiveMaxMembers }),
});

export const converterSettingsSchema = z.intersection(z.intersection(endpoint, rest), contentLimitsSchema).transform(
  (env): ConverterSettings => ({
    transcription: {
      baseUrl: env.TRANSCRIPTION_BASE_URL,
      apiKey: env.TRANSCRIPTION_API_KEY,
      model: env.TRANSCRIPTION_MODEL,
      language: env.TRANSCRIPTION_LANGUAGE,
      responseFormat: env.TRANSCRIPTION_RESPONSE_FORMAT ?? NO_TRANSCRIPTION.responseFormat,
      timeoutMs: env.TRANSCRIPTION_TIMEOUT_SECONDS,
      maxBytes: env.TRANSCRIPTION_MAX_BYTES,
    },
    limits: {
      maxInflatedBytes: env.maxInflatedBytes,
      maxPartBytes: env.maxPartBytes,
      maxXmlPartBytes: env.maxXmlPartBytes,
      ocrMaxPages: env.CONVERTER_OCR_MAX_PAGES,
      ocrMaxPixels: env.CONVERTER_OCR_MAX_PIXELS,
      archiveMaxBytes: env.CONVERTER_ARCHIVE_MAX_BYTES,
      archiveMaxMembers: env.CONVERTER_ARCHIVE_MAX_MEMBERS,
    },
  }),
);

export function readConverterSettings(env: Environment = process.env): ConverterSettings {
  return readEnvironment(converterSettingsSchema, env);
}
