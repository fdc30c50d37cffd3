import { describe, expect, it } from 'vitest';
import { readMultipart } from './multipart.js';

async function parse(form: FormData): Promise<FormData> {
  const request = new Request('http://x/', { method: 'POST', body: form });
  return readMultipart(request.body, request.headers.get('content-type')!);
}

describe('readMultipart', () => {
  it('reads fields and files as the platform does, the file answering every way it can be read', async () => {
    const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => i % 251);
    const form = new FormData();
    form.append('name', 'Notes ✓');
    form.append('tags', 'a');
    form.append('tags', 'b');
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'report.pdf');
    form.append('small', new Blob(['hello'], { type: 'text/plain' }), 'hi.txt');
    const parsed = await parse(form);
    expect(parsed.get('name')).toBe('Notes ✓');
    expect(parsed.getAll('tags')).toEqual(['a', 'b']);
    const file = parsed.get('file') as File;
    expect(file).toBeInstanceOf(File);
    expect([file.name, file.type, file.size]).toEqual(['report.pdf', 'application/pdf', bytes.length]);
    expect(Buffer.compare(new Uint8Array(await file.arrayBuffer()), bytes)).toBe(0);
    expect(Buffer.compare(await file.bytes(), bytes)).toBe(0);
    expect(Buffer.compare(new Uint8Array(await file.slice(10, 20).arrayBuffer()), bytes.subarray(10, 20))).toBe(0);
    const streamed = await new Response(file.stream()).arrayBuffer();
    expect(streamed.byteLength).toBe(bytes.length);
    const small = parsed.get('small') as File;
    expect([small.name, small.size, await small.text()]).toEqual(['hi.txt', 5, 'hello']);
    expect(new Uint8Array(await small.arrayBuffer())).toEqual(new TextEncoder().encode('hello'));
  });

  it('rejects a body that is not multipart, or has no boundary', async () => {
    const body = new Request('http://x/', { method: 'POST', body: 'not a form' }).body;
    await expect(readMultipart(body, 'multipart/form-data; boundary=xyz')).rejects.toThrow('Unexpected end of form');
    await expect(readMultipart(null, 'multipart/form-data')).rejects.toThrow('Boundary not found');
  });
});
