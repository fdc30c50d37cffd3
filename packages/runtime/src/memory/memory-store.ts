/**
 * @module memory/memory-store
 * User memories in the `Db`, written once for SQLite and PostgreSQL. Every method takes the
 * user the caller is confined to (`owner`; undefined for admins and unconfined callers) and puts
 * it in the same WHERE as the rest of the statement: another user's memory is never read and
 * then filtered out, it is never read at all. Updates compare the row's version, so of two
 * writers that read the same version only the first one's change lands and the second is told.
 */
import { RuntimeError } from '../errors.js';
import type { Db, SqlValue } from '../storage/db.js';
import { timeOrderedId } from '../util/ids.js';
import { MEMORY_LIMITS, type MemoryPatch, type MemoryQuery, type MemoryRecord, type MemoryTenant, type NewMemory, type StoredMemory } from './types.js';

type Row = Record<string, unknown>;

const COLUMNS = 'memory_id, user_id, memory, topics, agent_id, run_id, version, created_at, updated_at';

export interface Page<T> {
  data: T[];
  total: number;
}

/** Topics as stored: trimmed, lowercased, unique, bounded. */
export function normaliseTopics(topics: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const raw of topics ?? []) {
    const topic = raw.trim().toLowerCase().replace(/\|/g, ' ').slice(0, MEMORY_LIMITS.topicChars);
    if (topic !== '' && !out.includes(topic)) out.push(topic);
    if (out.length === MEMORY_LIMITS.topics) break;
  }
  return out;
}

const topicKeys = (topics: readonly string[]): string => (topics.length ? `|${topics.join('|')}|` : '');

/** A LIKE pattern matching `text` literally (its % and _ are not wildcards). */
function literalLike(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function parseList<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

function toRecord(row: Row): MemoryRecord {
  return {
    memory_id: String(row.memory_id),
    user_id: String(row.user_id),
    memory: String(row.memory),
    topics: parseList<string[]>(row.topics, []),
    agent_id: (row.agent_id as string | null) ?? null,
    run_id: (row.run_id as string | null) ?? null,
    version: Number(row.version),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function checkText(memory: string): string {
  const text = memory.trim();
  if (text === '') throw new RuntimeError('VALIDATION_ERROR', 'A memory needs some text');
  if (text.length > MEMORY_LIMITS.textChars) throw new RuntimeError('VALIDATION_ERROR', `A memory holds at most ${MEMORY_LIMITS.textChars} characters`);
  return text;
}

export class MemoryStore {
  /** The last change time handed out, so changes made in one millisecond still come in order. */
  private lastMs = 0;

  constructor(readonly db: Db) {}

  private changedMs(): number {
    const now = Date.now();
    this.lastMs = now > this.lastMs ? now : this.lastMs + 1;
    return this.lastMs;
  }

  /** The WHERE of a statement on one memory: its id, and its owner (and tenant) when the caller is confined. */
  private owned(id: string, owner: string | undefined, params: SqlValue[], tenant?: MemoryTenant): string {
    params.push(id);
    let where = `memory_id = $${params.length}`;
    if (owner !== undefined) {
      params.push(owner);
      where += ` AND user_id = $${params.length}`;
    }
    const held = tenantClause(tenant, params);
    return held ? `${where} AND ${held}` : where;
  }

  async list(query: MemoryQuery, owner: string | undefined, tenant?: MemoryTenant): Promise<Page<MemoryRecord>> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (clause: string, value: SqlValue) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    // A confined caller's own user wins over any user_id it asks for: asking for another's finds nothing.
    if (owner !== undefined) add('user_id = ?', owner);
    if (query.user_id !== undefined && query.user_id !== owner) add('user_id = ?', query.user_id);
    const held = tenantClause(tenant, params);
    if (held) where.push(held);
    if (query.agent_id !== undefined) add('agent_id = ?', query.agent_id);
    if (query.topic !== undefined) add("topic_keys LIKE ? ESCAPE '\\'", `%|${query.topic.trim().toLowerCase().replace(/[\\%_|]/g, (c) => (c === '|' ? ' ' : `\\${c}`))}|%`);
    if (query.text !== undefined && query.text !== '') add("LOWER(memory) LIKE ? ESCAPE '\\'", literalLike(query.text));
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = await this.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM svc_memories ${filter}`, params);
    // sort_by comes from a closed enum, so it is safe in the SQL text.
    const direction = query.sort_order === 'asc' ? 'ASC' : 'DESC';
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM svc_memories ${filter} ORDER BY ${query.sort_by === 'updated_at' ? 'changed_ms' : 'created_at'} ${direction}, memory_id ${direction}
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, query.limit, (query.page - 1) * query.limit],
    );
    return { data: rows.map(toRecord), total: Number(total[0]?.n ?? 0) };
  }

  async get(id: string, owner: string | undefined, tenant?: MemoryTenant): Promise<MemoryRecord | undefined> {
    const params: SqlValue[] = [];
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_memories WHERE ${this.owned(id, owner, params, tenant)}`, params);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** A user's most recently changed memories with their vectors (what recall ranks), at most `limit`. */
  async recent(userId: string, limit: number, tenant?: MemoryTenant): Promise<StoredMemory[]> {
    const params: SqlValue[] = [userId, limit];
    const held = tenantClause(tenant, params);
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS}, embedding, embedder FROM svc_memories WHERE user_id = $1${held ? ` AND ${held}` : ''} ORDER BY changed_ms DESC, memory_id DESC LIMIT $2`,
      params,
    );
    return rows.map((row) => ({ ...toRecord(row), embedding: parseList<number[] | null>(row.embedding, null), embedder: (row.embedder as string | null) ?? null }));
  }

  async create(input: NewMemory): Promise<MemoryRecord> {
    const memory = checkText(input.memory);
    const topics = normaliseTopics(input.topics);
    const now = nowSeconds();
    const id = timeOrderedId();
    await this.db.execute(
      `INSERT INTO svc_memories (memory_id, user_id, memory, topics, topic_keys, agent_id, run_id, embedding, embedder, version, created_at, updated_at, changed_ms, tenant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10, $11, COALESCE($12, (SELECT r.tenant_id FROM svc_runs r WHERE r.run_id = $7)))`,
      [id, input.user_id, memory, JSON.stringify(topics), topicKeys(topics), input.agent_id ?? null, input.run_id ?? null,
        input.embedding ? JSON.stringify(input.embedding.vector) : null, input.embedding?.embedder ?? null, now, this.changedMs(), input.tenant_id ?? null],
    );
    return { memory_id: id, user_id: input.user_id, memory, topics, agent_id: input.agent_id ?? null, run_id: input.run_id ?? null, version: 1, created_at: now, updated_at: now };
  }

  /**
   * Changes a memory in one statement, guarded by its owner and, when `expected_version` is given,
   * its version. NOT_FOUND: no such memory for this caller; CONFLICT: it changed since that version.
   */
  async update(id: string, patch: MemoryPatch, owner: string | undefined, tenant?: MemoryTenant): Promise<MemoryRecord> {
    const sets: string[] = ['version = version + 1'];
    const params: SqlValue[] = [];
    const set = (column: string, value: SqlValue) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.memory !== undefined) {
      set('memory', checkText(patch.memory));
      set('embedding', patch.embedding ? JSON.stringify(patch.embedding.vector) : null);
      set('embedder', patch.embedding?.embedder ?? null);
    }
    if (patch.topics !== undefined) {
      const topics = normaliseTopics(patch.topics);
      set('topics', JSON.stringify(topics));
      set('topic_keys', topicKeys(topics));
    }
    if (patch.run_id !== undefined) set('run_id', patch.run_id);
    set('updated_at', nowSeconds());
    set('changed_ms', this.changedMs());
    let where = this.owned(id, owner, params, tenant);
    if (patch.expected_version !== undefined) {
      params.push(patch.expected_version);
      where += ` AND version = $${params.length}`;
    }
    const changed = await this.db.execute(`UPDATE svc_memories SET ${sets.join(', ')} WHERE ${where}`, params);
    const current = await this.get(id, owner, tenant);
    if (!current) throw new RuntimeError('NOT_FOUND', `Memory '${id}' not found`);
    if (changed === 0) {
      throw new RuntimeError('CONFLICT', `Memory '${id}' changed since version ${patch.expected_version} (it is at version ${current.version}); read it again and retry`);
    }
    return current;
  }

  /** Deletes the caller's memories among `ids`; answers how many there were. */
  async delete(ids: readonly string[], owner: string | undefined, tenant?: MemoryTenant): Promise<number> {
    let deleted = 0;
    for (const id of ids) {
      const params: SqlValue[] = [];
      deleted += await this.db.execute(`DELETE FROM svc_memories WHERE ${this.owned(id, owner, params, tenant)}`, params);
    }
    return deleted;
  }

  /** Every user's memory topics with counts, or one user's. */
  async topics(owner: string | undefined, userId: string | undefined, tenant?: MemoryTenant): Promise<{ topic: string; count: number }[]> {
    const params: SqlValue[] = [];
    const where: string[] = [];
    for (const user of new Set([owner, userId])) {
      if (user === undefined) continue;
      params.push(user);
      where.push(`user_id = $${params.length}`);
    }
    const held = tenantClause(tenant, params);
    if (held) where.push(held);
    const rows = await this.db.query<Row>(`SELECT topics FROM svc_memories ${where.length ? `WHERE ${where.join(' AND ')}` : ''} LIMIT 10000`, params);
    const counts = new Map<string, number>();
    for (const row of rows) for (const t of parseList<string[]>(row.topics, [])) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts].map(([topic, count]) => ({ topic, count })).sort((a, b) => b.count - a.count || a.topic.localeCompare(b.topic));
  }
}

/**
 * The condition holding a statement to a tenant (auth/tenancy.ts), or '' for none. Inside a run
 * the tenant is the run's, NULL included: a run without a tenant reaches memories without one.
 */
function tenantClause(tenant: MemoryTenant | undefined, params: SqlValue[]): string {
  if (tenant === undefined) return '';
  if (typeof tenant === 'string') {
    params.push(tenant);
    return `tenant_id = $${params.length}`;
  }
  params.push(tenant.run);
  return `COALESCE(tenant_id, '') = COALESCE((SELECT r.tenant_id FROM svc_runs r WHERE r.run_id = $${params.length}), '')`;
}
