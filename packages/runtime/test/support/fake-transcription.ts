/**
 * A loopback OpenAI-compatible speech-to-text service: `POST /v1/audio/transcriptions`,
 * multipart/form-data with `file`, `model`, `response_format` (and `language`), answering as
 * OpenAI documents it: `json` -> `{ text, usage }`, `verbose_json` -> `{ task, language,
 * duration, text, segments: [{ id, seek, start, end, text, ... }] }`. Every request is recorded;
 * `reply` can be replaced to answer errors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TranscriptionRequest {
  path: string;
  authorization: string | undefined;
  model: string | undefined;
  responseFormat: string | undefined;
  language: string | undefined;
  fileName: string | undefined;
  fileType: string | undefined;
  fileSize: number;
}

export interface FakeReply {
  status: number;
  body: unknown;
}

export interface FakeTranscription {
  /** e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  requests: TranscriptionRequest[];
  /** What to answer; default a transcript of two segments. */
  reply: (request: TranscriptionRequest) => FakeReply;
  close(): Promise<void>;
}

export const SEGMENTS = [
  { id: 0, seek: 0, start: 0, end: 3.2, text: ' Welcome to the samovar restoration workshop.', tokens: [1], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 },
  { id: 1, seek: 0, start: 3.2, end: 7.5, text: ' Today we polish brass fittings.', tokens: [2], temperature: 0, avg_logprob: -0.2, compression_ratio: 1.1, no_speech_prob: 0.01 },
];

export function defaultReply(request: TranscriptionRequest): FakeReply {
  const text = SEGMENTS.map((s) => s.text.trim()).join(' ');
  if (request.responseFormat === 'verbose_json') return { status: 200, body: { task: 'transcribe', language: 'english', duration: 7.5, text, segments: SEGMENTS } };
  return { status: 200, body: { text, usage: { type: 'duration', seconds: 8 } } };
}

async function read(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export async function startFakeTranscription(): Promise<FakeTranscription> {
  const fake: Omit<FakeTranscription, 'baseUrl' | 'close'> = { requests: [], reply: defaultReply };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await read(req);
      if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error' } }));
        return;
      }
      // The platform's multipart parser, as a real server would use one.
      const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? '' }, body }).formData();
      const file = form.get('file');
      const request: TranscriptionRequest = {
        path: req.url,
        authorization: req.headers.authorization,
        model: form.get('model')?.toString(),
        responseFormat: form.get('response_format')?.toString(),
        language: form.get('language')?.toString(),
        fileName: file instanceof File ? file.name : undefined,
        fileType: file instanceof File ? file.type : undefined,
        fileSize: file instanceof File ? file.size : 0,
      };
      fake.requests.push(request);
      const { status, body: answer } = fake.reply(request);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as FakeTranscription;
}
