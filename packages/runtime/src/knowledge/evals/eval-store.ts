/**
 * @module knowledge/evals/eval-store
 * Retrieval evaluations kept in the runtime's Db (`svc_knowledge_evals`, one SQL text for SQLite
 * and PostgreSQL): the resolved labelled queries going in, the figures per search type and the
 * per-query scores coming out, and what the knowledge base was built with when it ran. A
 * record's `user_id` is whoever started it (NULL: an unconfined caller); confined callers see
 * only theirs, in the same WHERE as everything else.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient, SqlValue } from '../../storage/db.js';
import type { SearchType } from '../vector-stores/vector-store.js';
import type { QueryScores } from './metrics.js';

export type EvalStatus = 'queued' | 'running' | 'completed' | 'failed';

/** A judged document matched to the content records it names (by id or name). */
export interface ResolvedJudgment {
  document: string;
  grade: number;
  content_ids: string[];
}

export interface ResolvedQuery {
  id: string;
  text: string;
  judgments: ResolvedJudgment[];
}

/** What the knowledge base was built with when the eval ran. */
export interface EvalSettings {
  embedder: { id: string; dimensions: number | null } | null;
  /** Each chunker and its settings, with how many completed contents were chunked so. */
  chunkers: { chunker: string | null; chunker_settings: Record<string, unknown> | null; contents: number }[];
  contents: number;
  chunks: number;
}

export interface EvalQueryDetail {
  id: string;
  query: string;
  relevant: number;
  scores: Partial<Record<SearchType, QueryScores>>;
}

export interface EvalRecord {
  id: string;
  knowledge_id: string;
  name: string | null;
  user_id: string | null;
  status: EvalStatus;
  error: string | null;
  search_types: SearchType[];
  k: number;
  recall_k: number;
  queries_total: number;
  queries_done: number;
  settings: EvalSettings | null;
  /** Mean figures per search type: nDCG@k, MRR@k, Recall@recall_k. */
  results: Partial<Record<SearchType, QueryScores>> | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface NewEval {
  knowledge_id: string;
  name: string | null;
  user_id: string | null;
  /** The tenant of the caller who started it; null without tenancy. */
  tenant_id?: string | null;
  search_types: SearchType[];
  k: number;
  recall_k: number;
  queries: ResolvedQuery[];
}

interface Row {
  id: string;
  knowledge_id: string;
  name: string | null;
  user_id: string | null;
  status: string;
  error: string | null;
  search_types: string;
  k: number | string;
  recall_k: number | string;
  queries_total: number | string;
  queries_done: number | string;
  settings: string | null;
  results: string | null;
  created_at: number | string;
  updated_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
}

const COLUMNS = 'id, knowledge_id, name, user_id, status, error, search_types, k, recall_k, queries_total, queries_done, settings, results, created_at, updated_at, started_at, finished_at';

const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
// PostgreSQL returns BIGINT as a string.
const num = (v: number | string | null) => (v === null ? null : Number(v));

function toRecord(row: Row): EvalRecord {
  return {
    id: row.id,
    knowledge_id: row.knowledge_id,
    name: row.name,
    user_id: row.user_id,
    status: row.status as EvalStatus,
    error: row.error,
    search_types: JSON.parse(row.search_types) as SearchType[],
    k: Number(row.k),
    recall_k: Number(row.recall_k),
    queries_total: Number(row.queries_total),
    queries_done: Number(row.queries_done),
    settings: json<EvalSettings>(row.settings),
    results: json<EvalRecord['results']>(row.results),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    started_at: num(row.started_at),
    finished_at: num(row.finished_at),
  };
}

/** Whose evals a caller reaches: its own (user isolation) and its tenant's (tenancy); absent fields confine nothing. */
export interface EvalScope {
  user?: string | undefined;
  tenant?: string | undefined;
}

/** `AND` this user's and this tenant's evals, as the next parameters; nothing when unscoped. */
function visibleSql(scope: EvalScope | undefined, params: SqlValue[]): string {
  let sql = '';
  if (scope?.user !== undefined) {
    params.push(scope.user);
    sql += ` AND user_id = $${params.length}`;
  }
  if (scope?.tenant !== undefined) {
    params.push(scope.tenant);
    sql += ` AND tenant_id = $${params.length}`;
  }
  return sql;
}

export class EvalStore {
  constructor(private readonly sql: SqlClient) {}

  async create(e: NewEval, sql: SqlClient = this.sql): Promise<EvalRecord> {
    const id = randomUUID();
    const now = Date.now();
    await sql.execute(
      `INSERT INTO svc_knowledge_evals (id, knowledge_id, name, user_id, status, input, search_types, k, recall_k, queries_total, queries_done, created_at, updated_at, tenant_id)
       VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, 0, $10, $10, $11)`,
      [id, e.knowledge_id, e.name, e.user_id, JSON.stringify(e.queries), JSON.stringify(e.search_types), e.k, e.recall_k, e.queries.length, now, e.tenant_id ?? null],
    );
    return (await this.get(e.knowledge_id, id, undefined, sql))!;
  }

  async get(knowledgeId: string, id: string, visibleTo?: EvalScope, sql: SqlClient = this.sql): Promise<EvalRecord | undefined> {
    const params: SqlValue[] = [knowledgeId, id];
    const [row] = await sql.query<Row>(`SELECT ${COLUMNS} FROM svc_knowledge_evals WHERE knowledge_id = $1 AND id = $2${visibleSql(visibleTo, params)}`, params);
    return row ? toRecord(row) : undefined;
  }

  /** A page of evals, newest first, and how many there are. */
  async list(knowledgeId: string, page: { limit: number; page: number }, visibleTo?: EvalScope): Promise<{ data: EvalRecord[]; total: number }> {
    const params: SqlValue[] = [knowledgeId];
    const where = `WHERE knowledge_id = $1${visibleSql(visibleTo, params)}`;
    const [count] = await this.sql.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM svc_knowledge_evals ${where}`, params);
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM svc_knowledge_evals ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, (page.page - 1) * page.limit],
    );
    return { data: rows.map(toRecord), total: Number(count?.n ?? 0) };
  }

  /** The labelled queries an eval runs. */
  async input(id: string): Promise<ResolvedQuery[] | undefined> {
    const [row] = await this.sql.query<{ input: string }>('SELECT input FROM svc_knowledge_evals WHERE id = $1', [id]);
    return row ? (JSON.parse(row.input) as ResolvedQuery[]) : undefined;
  }

  async details(id: string): Promise<EvalQueryDetail[] | null> {
    const [row] = await this.sql.query<{ details: string | null }>('SELECT details FROM svc_knowledge_evals WHERE id = $1', [id]);
    return json<EvalQueryDetail[]>(row?.details ?? null);
  }

  /** A (new) attempt starts: progress from zero, the base's settings as they are now. */
  async start(id: string, settings: EvalSettings): Promise<void> {
    const now = Date.now();
    await this.sql.execute(
      `UPDATE svc_knowledge_evals SET status = 'running', error = NULL, queries_done = 0, settings = $2, started_at = $3, updated_at = $3 WHERE id = $1 AND status IN ('queued', 'running')`,
      [id, JSON.stringify(settings), now],
    );
  }

  async progress(id: string, done: number): Promise<void> {
    await this.sql.execute(`UPDATE svc_knowledge_evals SET queries_done = $2, updated_at = $3 WHERE id = $1 AND status = 'running'`, [id, done, Date.now()]);
  }

  async complete(id: string, results: EvalRecord['results'], details: EvalQueryDetail[]): Promise<void> {
    const now = Date.now();
    await this.sql.execute(
      `UPDATE svc_knowledge_evals SET status = 'completed', error = NULL, queries_done = queries_total, results = $2, details = $3, finished_at = $4, updated_at = $4 WHERE id = $1`,
      [id, JSON.stringify(results), JSON.stringify(details), now],
    );
  }

  async fail(id: string, error: string): Promise<void> {
    const now = Date.now();
    await this.sql.execute(`UPDATE svc_knowledge_evals SET status = 'failed', error = $2, finished_at = $3, updated_at = $3 WHERE id = $1 AND status <> 'completed'`, [id, error, now]);
  }
}
