/**
 * The runtime's retrieval eval API (POST /knowledge/evals with a BEIR folder's queries and
 * qrels as multipart files, GET /knowledge/evals/{id}). Every answer becomes an EvalReport or a
 * CliError with a next step; the credential travels only in the Authorization header.
 */
import { randomBytes } from 'node:crypto';
import { CliError } from '../errors.js';
import { isObject, parseJson } from '../util/json.js';
import { KNOWLEDGE_CREDENTIAL_HINT } from './knowledge.js';
import { callRuntime } from './runtime-call.js';
import { errorDetail } from './service-accounts.js';

const TIMEOUT_MS = 120_000;

export interface EvalScores {
  ndcg: number;
  mrr: number;
  recall: number;
}

export interface EvalReport {
  id: string;
  knowledge_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  error: string | null;
  k: number;
  recall_k: number;
  queries_total: number;
  queries_done: number;
  results: Record<string, EvalScores> | null;
  settings: { embedder: { id: string; dimensions: number | null } | null } | null;
}

const STATES = new Set(['queued', 'running', 'completed', 'failed']);

function parseReport(body: unknown): EvalReport | undefined {
  if (!isObject(body) || typeof body.id !== 'string' || typeof body.status !== 'string' || !STATES.has(body.status)) return undefined;
  if (typeof body.queries_total !== 'number' || typeof body.queries_done !== 'number' || typeof body.k !== 'number' || typeof body.recall_k !== 'number') return undefined;
  return body as unknown as EvalReport;
}

/** The two files of a BEIR folder, as the eval upload sends them. */
export interface EvalFiles {
  queries: string;
  qrels: string;
}

export class EvalClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(files: EvalFiles, options: { knowledgeId?: string | undefined; k?: number | undefined; name?: string | undefined }): Promise<EvalReport> {
    const boundary = `svc-eval-${randomBytes(12).toString('hex')}`;
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n${value}\r\n`;
    let body = part('queries', files.queries, 'queries.jsonl') + part('qrels', files.qrels, 'qrels.tsv');
    if (options.k !== undefined) body += part('k', String(options.k));
    if (options.name !== undefined) body += part('name', options.name);
    body += `--${boundary}--\r\n`;
    return this.call('POST', '/knowledge/evals', options.knowledgeId, 202, { body, type: `multipart/form-data; boundary=${boundary}` });
  }

  get(id: string, knowledgeId: string | undefined): Promise<EvalReport> {
    return this.call('GET', `/knowledge/evals/${encodeURIComponent(id)}`, knowledgeId, 200);
  }

  private async call(method: 'GET' | 'POST', path: string, knowledgeId: string | undefined, expected: number, send?: { body: string; type: string }): Promise<EvalReport> {
    const search = knowledgeId === undefined ? '' : `?knowledge_id=${encodeURIComponent(knowledgeId)}`;
    const res = await callRuntime({
      base: this.base, credential: this.credential, env: this.env, method, path: `${path}${search}`, timeoutMs: TIMEOUT_MS,
      body: send ? { text: send.body, type: send.type } : undefined, credentialHint: KNOWLEDGE_CREDENTIAL_HINT,
    });
    if (res.status === 404) throw new CliError('NOT_FOUND', errorDetail(res), { hint: 'Check --knowledge-id against the knowledge bases the runtime hosts (GET /knowledge/config).', status: 404 });
    if (res.status !== expected) throw new CliError('API_ERROR', `The runtime refused the eval: ${errorDetail(res)}`, { status: res.status });
    const report = parseReport(parseJson(res.body));
    if (!report) throw new CliError('BAD_RESPONSE', `The runtime at ${this.base} gave an unexpected answer to ${method} ${path}.`);
    return report;
  }
}
