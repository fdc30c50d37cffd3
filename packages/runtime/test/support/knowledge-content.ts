/**
 * Helpers for the knowledge content API tests: a multipart upload, and polling an upload's
 * status until its background processing ends.
 */
import { expect } from 'vitest';
import { call, type Reply } from './http.js';

export async function upload(base: string, path: string, fields: Record<string, string | Blob>, fileName?: string, token?: string): Promise<Reply> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value);
    else form.append(key, value, fileName);
  }
  const res = await fetch(`${base}${path}`, { method: 'POST', body: form, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Polls the status until it leaves `processing`; bounded so a stuck record fails the test. */
export async function settled(base: string, id: string, query = ''): Promise<{ status: string; status_message: string | null }> {
  for (let i = 0; i < 200; i++) {
    const r = await call(base, 'GET', `/knowledge/content/${id}/status${query}`);
    expect(r.status).toBe(200);
    if (r.body.status !== 'processing') return r.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`content ${id} is still processing`);
}
