/**
 * File uploads with progress. fetch reports no upload progress, so a file goes through
 * XMLHttpRequest to the same `POST /knowledge/content` the typed client describes, with the
 * same Authorization header; the answer is the typed 202 body or an ApiProblem.
 */
import { authHeaders } from './client';
import { networkProblem, problemOf, type ApiProblem } from './errors';
import type { components } from './schema';

export type Accepted = components['schemas']['KnowledgeContentAccepted'];

export interface UploadOptions {
  knowledgeId: string | undefined;
  file: File;
  fields?: Record<string, string>;
  onProgress(fraction: number): void;
}

export function uploadFile({ knowledgeId, file, fields = {}, onProgress }: UploadOptions): Promise<Accepted> {
  return new Promise((resolve, reject: (problem: ApiProblem) => void) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    form.append('file', file, file.name);
    const query = knowledgeId ? `?knowledge_id=${encodeURIComponent(knowledgeId)}` : '';
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/knowledge/content${query}`);
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(body as Accepted);
      } else reject(problemOf(xhr.status, body));
    });
    xhr.addEventListener('error', () => reject(networkProblem(new Error('the upload was interrupted'))));
    xhr.send(form);
  });
}
