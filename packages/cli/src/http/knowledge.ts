/**
 * The runtime's reindex API (POST and GET /knowledge/reindex). Every answer becomes a
 * ReindexStatus or a CliError with a next step; the credential travels only in the
 * Authorization header and never appears in a message.
 */
import { CliError } from '../errors.js';
import { errorDetail } from './service-accounts.js';
import { isObject, parseJson } from '../util/json.js';
import { callRuntime } from './runtime-call.js';

const TIMEOUT_MS = 30_000;

export const KNOWLEDGE_CREDENTIAL_HINT = 'Set SVC_ADMIN_TOKEN (or OS_SECURITY_KEY) to a credential holding the knowledge:write scope (or admin).';

export interface ReindexStatus {
  knowledge_id: string;
  state: 'idle' | 'queued' | 'running' | 'completed' | 'failed';
  embedder: string | null;
  stored_embedder: string | null;
  dimensions: number | null;
  chunks_done: number;
  chunks_total: number;
  job_id: string | null;
  attempts: number;
  error: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

const STATES = new Set(['idle', 'queued', 'running', 'completed', 'failed']);

function parseStatus(body: unknown): ReindexStatus | undefined {
  if (!isObject(body) || typeof body.knowledge_id !== 'string' || typeof body.state !== 'string' || !STATES.has(body.state)) return undefined;
  if (typeof body.chunks_done !== 'number' || typeof body.chunks_total !== 'number') return undefined;
  return {
    knowledge_id: body.knowledge_id,
    state: body.state as ReindexStatus['state'],
    embedder: text(body.embedder),
    stored_embedder: text(body.stored_embedder),
    dimensions: typeof body.dimensions === 'number' ? body.dimensions : null,
    chunks_done: body.chunks_done,
    chunks_total: body.chunks_total,
    job_id: text(body.job_id),
    attempts: typeof body.attempts === 'number' ? body.attempts : 0,
    error: text(body.error),
  };
}

export class KnowledgeClient {
  constructor(
    private readonly base: string,
    private readonly credential: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(query: { knowledgeId?: string | undefined }): Promise<ReindexStatus> {
    return this.call('POST', query, 202);
  }

  status(query: { knowledgeId?: string | undefined }): Promise<ReindexStatus> {
    return this.call('GET', query, 200);
  }

  private async call(method: 'GET' | 'POST', query: { knowledgeId?: string | undefined }, expected: number): Promise<ReindexStatus> {
    const search = query.knowledgeId === undefined ? '' : `?knowledge_id=${encodeURIComponent(query.knowledgeId)}`;
    const res = await callRuntime({
      base: this.base, credential: this.credential, env: this.env, method, path: `/knowledge/reindex${search}`, timeoutMs: TIMEOUT_MS,
      credentialHint: KNOWLEDGE_CREDENTIAL_HINT,
    });
    if (res.status === 404) {
      throw new CliError('NOT_FOUND', errorDetail(res), { hint: 'Check --knowledge-id against the knowledge bases the runtime hosts (GET /knowledge/config).', status: 404 });
    }
    if (res.status !== expected) throw new CliError('API_ERROR', `The runtime refused the reindex: ${errorDetail(res)}`, { status: res.status });
    const status = parseStatus(parseJson(res.body));
    if (!status) throw new CliError('BAD_RESPONSE', `The runtime at ${this.base} gave an unexpected answer to ${method} /knowledge/reindex.`);
    return status;
  }
}
