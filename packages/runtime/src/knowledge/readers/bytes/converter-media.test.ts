/**
 * Audio and video through an OpenAI-compatible transcription service, faked on loopback in the
 * documented wire format; the settings that name it; and what happens without one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, RuntimeError } from '../../../errors.js';
import { isoMedia, mp3Audio, tarArchive, wavAudio } from '../../../../test/support/converter-fixtures.js';
import { defaultReply, startFakeTranscription, type FakeTranscription } from '../../../../test/support/fake-transcription.js';
import { ConverterReader } from './converter.js';
import { DEFAULT_LIMITS, NO_TRANSCRIPTION, readConverterSettings, type TranscriptionSettings } from '../../../settings/converter.js';

const KEY = 'sk-test-transcription-key-0123456789';
let fake: FakeTranscription;
beforeAll(async () => {
  fake = await startFakeTranscription();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.reply = defaultReply;
});

function reader(transcription: Partial<TranscriptionSettings> = {}): ConverterReader {
  return new ConverterReader({
    offload: 'inline',
    settings: { transcription: { ...NO_TRANSCRIPTION, baseUrl: fake.baseUrl, apiKey: KEY, model: 'whisper-1', ...transcription }, limits: DEFAULT_LIMITS },
  });
}

async function failure(promise: Promise<unknown>): Promise<RuntimeError> {
  try {
    await promise;
  } catch (error) {
    if (RuntimeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('ConverterReader transcription', () => {
  it('sends audio as multipart (file, model, response_format) and writes verbose_json segments as timestamped lines', async () => {
    const [doc, ...rest] = await reader({ language: 'en' }).read({ data: mp3Audio(), name: 'workshop.mp3' });
    expect(rest).toEqual([]);
    expect(doc!.content).toBe('[00:00:00.000 --> 00:00:03.200] Welcome to the samovar restoration workshop.\n[00:00:03.200 --> 00:00:07.500] Today we polish brass fittings.');
    expect(doc!.meta_data).toEqual({ format: 'mp3', transcribed: true, language: 'english', duration_seconds: 7.5 });
    expect(fake.requests).toEqual([
      {
        path: '/v1/audio/transcriptions',
        authorization: `Bearer ${KEY}`,
        model: 'whisper-1',
        responseFormat: 'verbose_json',
        language: 'en',
        fileName: 'workshop.mp3',
        fileType: 'audio/mpeg',
        fileSize: mp3Audio().length,
      },
    ]);
  });

  it('uses the text of a json answer, and names the file by its real format', async () => {
    const [doc] = await reader({ responseFormat: 'json', apiKey: undefined }).read({ data: wavAudio(), name: 'memo.mp3' });
    expect(doc!.content).toBe('Welcome to the samovar restoration workshop. Today we polish brass fittings.');
    expect(doc!.meta_data).toEqual({ format: 'wav', transcribed: true });
    // The name follows the bytes (a WAV named .mp3 is sent as .wav), and no key means no header.
    expect(fake.requests[0]).toMatchObject({ fileName: 'memo.wav', fileType: 'audio/wav', authorization: undefined, responseFormat: 'json' });
  });

  it('sends video containers too: mp4, m4a audio in MP4, QuickTime', async () => {
    for (const [data, name, format, type] of [
      [isoMedia('isom'), 'clip.mp4', 'mp4', 'video/mp4'],
      [isoMedia('M4A '), 'voice.m4a', 'm4a', 'audio/mp4'],
      [isoMedia('qt  '), 'take.mov', 'mov', 'video/quicktime'],
    ] as const) {
      const [doc] = await reader().read({ data, name });
      expect(doc!.meta_data.format).toBe(format);
      expect(fake.requests.at(-1)).toMatchObject({ fileName: name, fileType: type });
    }
  });

  it('without a service, fails naming the settings to set', async () => {
    const unconfigured = new ConverterReader({ offload: 'inline', settings: { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS } });
    const error = await failure(unconfigured.read({ data: mp3Audio(), name: 'talk.mp3' }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toBe(
      'converter reader: "talk.mp3" is audio (MP3), and no transcription service is configured: set TRANSCRIPTION_BASE_URL (an OpenAI-compatible API with POST /audio/transcriptions), TRANSCRIPTION_MODEL and, if it needs one, TRANSCRIPTION_API_KEY',
    );
    expect((await failure(unconfigured.read({ data: isoMedia('isom'), name: 'clip.mp4' }))).message).toContain('"clip.mp4" is video (MP4)');
  });

  it('maps refusals to typed errors and never repeats the key', async () => {
    fake.reply = () => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const refused = await failure(reader().read({ data: mp3Audio(), name: 'talk.mp3' }));
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.message).toBe('converter reader: "talk.mp3" could not be transcribed: the transcription service answered HTTP 401: Incorrect API key provided: [redacted] (check TRANSCRIPTION_API_KEY)');
    fake.reply = () => ({ status: 503, body: { error: { message: 'overloaded' } } });
    const busy = await failure(reader().read({ data: mp3Audio(), name: 'talk.mp3' }));
    expect(busy.code).toBe('SERVICE_UNAVAILABLE');
    fake.reply = () => ({ status: 200, body: { nothing: true } });
    expect((await failure(reader().read({ data: mp3Audio(), name: 'talk.mp3' }))).message).toContain('answered without a JSON "text" field');
    fake.reply = () => ({ status: 200, body: { text: '  ' } });
    expect((await failure(reader().read({ data: mp3Audio(), name: 'talk.mp3' }))).message).toBe('converter reader: "talk.mp3" has no speech the transcription service could recognise');
    // A service that is not there.
    const gone = await failure(reader({ baseUrl: 'http://127.0.0.1:9/v1' }).read({ data: mp3Audio(), name: 'talk.mp3' }));
    expect(gone.code).toBe('SERVICE_UNAVAILABLE');
    expect(gone.message).toContain('the transcription service could not be reached');
    for (const error of [refused, busy, gone]) expect(error.message).not.toContain(KEY);
  });

  it('refuses audio over the size limit before sending it', async () => {
    const error = await failure(reader({ maxBytes: 100 }).read({ data: wavAudio(), name: 'long.wav' }));
    expect(error.message).toBe(`converter reader: "long.wav" is ${wavAudio().length} bytes, more than the 100 the transcription service accepts (TRANSCRIPTION_MAX_BYTES); split or compress it and upload the parts`);
    expect(fake.requests).toEqual([]);
  });

  it('transcribes audio found in an archive, or notes why it could not', async () => {
    const archive = tarArchive([
      { path: 'minutes.md', data: '# Minutes\n\nThe board approved the samovar budget.' },
      { path: 'audio/call.wav', data: wavAudio() },
    ]);
    const notes: string[] = [];
    const docs = await reader().read({ data: archive, name: 'meeting.tar.gz' }, { notes });
    expect(docs.map((d) => [d.meta_data.member, d.meta_data.format])).toEqual([
      ['minutes.md', 'markdown'],
      ['audio/call.wav', 'wav'],
    ]);
    expect(docs[1]!.content).toContain('samovar restoration workshop');
    expect(notes).toEqual([]);
    const unconfigured = new ConverterReader({ offload: 'inline', settings: { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS } });
    const skipped: string[] = [];
    expect((await unconfigured.read({ data: archive, name: 'meeting.tar.gz' }, { notes: skipped })).map((d) => d.meta_data.member)).toEqual(['minutes.md']);
    expect(skipped).toEqual([expect.stringMatching(/^"audio\/call\.wav" is audio \(WAV\), and no transcription service is configured: set TRANSCRIPTION_BASE_URL/)]);
  });
});

describe('transcription settings', () => {
  it('reads the TRANSCRIPTION_* variables', () => {
    expect(readConverterSettings({}).transcription.baseUrl).toBeUndefined();
    const local = readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://127.0.0.1:8000/v1/', TRANSCRIPTION_API_KEY: KEY, TRANSCRIPTION_MODEL: 'large-v3', TRANSCRIPTION_RESPONSE_FORMAT: 'json' }).transcription;
    expect(local).toMatchObject({ baseUrl: 'http://127.0.0.1:8000/v1', apiKey: KEY, model: 'large-v3', responseFormat: 'json', maxBytes: 25 * 1024 * 1024 });
    // A key alone means OpenAI.
    expect(readConverterSettings({ TRANSCRIPTION_API_KEY: KEY }).transcription).toMatchObject({ baseUrl: 'https://api.openai.com/v1', model: 'whisper-1' });
    expect(readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://whisper.lan:9000/v1' }).transcription.baseUrl).toBe('http://whisper.lan:9000/v1');
    expect(readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://localhost:9000/v1', TRANSCRIPTION_API_KEY: KEY }).transcription.baseUrl).toBe('http://localhost:9000/v1');
  });

  it('refuses a key over plain http to another host, and malformed values, at startup', () => {
    expect(() => readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://whisper.lan:9000/v1', TRANSCRIPTION_API_KEY: KEY })).toThrow(ConfigurationError);
    expect(() => readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://whisper.lan:9000/v1', TRANSCRIPTION_API_KEY: KEY })).toThrow(
      'TRANSCRIPTION_BASE_URL is plain http to whisper.lan, so TRANSCRIPTION_API_KEY would cross the network unencrypted; use an https URL (plain http is accepted only for loopback hosts)',
    );
    expect(() => readConverterSettings({ TRANSCRIPTION_BASE_URL: 'https://user:pw@host/v1' })).toThrow('must not contain credentials');
    expect(() => readConverterSettings({ TRANSCRIPTION_RESPONSE_FORMAT: 'srt' })).toThrow('TRANSCRIPTION_RESPONSE_FORMAT must be json or verbose_json');
    expect(() => readConverterSettings({ CONVERTER_OCR_MAX_PAGES: '-1' })).toThrow('CONVERTER_OCR_MAX_PAGES must be a whole number');
    let thrown: Error | undefined;
    try {
      readConverterSettings({ TRANSCRIPTION_BASE_URL: 'http://whisper.lan/v1', TRANSCRIPTION_API_KEY: KEY });
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).not.toContain(KEY);
  });

  it('refuses to send a key over plain http even when settings were built in code', async () => {
    const error = await failure(reader({ baseUrl: 'http://whisper.example:9000/v1' }).read({ data: mp3Audio(), name: 'talk.mp3' }));
    expect(error.message).toContain('was not sent for transcription: TRANSCRIPTION_BASE_URL is plain http to whisper.example');
    expect(fake.requests).toEqual([]);
  });
});
