/**
 * @module knowledge/content/content-store
 * The records of content uploaded through `/knowledge/content`, kept in the runtime's Db (SQLite
 * or PostgreSQL, one SQL text for both). A record's id is the `content_id` of its chunks in the
 * knowledge's vector store; the record tracks what the background ingestion made of it.
 *
 * A record's `user_id` is its owner (NULL: shared). Reads take `visibleTo` (shared records and
 * that user's) and bulk deletion `ownedBy`, applied in the same WHERE as everything else, so
 * counts, pages and deletions see exactly what the caller may.
 */
import type { InsertChoices, InsertResult } from '../options.js';
import type { Metadata } from '../types.js';
import type { SqlClient, SqlValue } from '../../storage/db.js';

export type ContentStatus = 'processing' | 'completed' | 'failed';

export interface ContentRecord {
  id: string;
  knowledge_id: string;
  name: string | null;
  description: string | null;
  metadata: Metadata | null;
  file_type: string | null;
  size: number | null;
  reader_id: string | null;
  chunker: string | null;
  /** What the chunker was built with (chunk_size, chunk_overlap...); null until the content is chunked. */
  chunker_settings: Metadata | null;
  status: ContentStatus;
  status_message: string | null;
  /** SHA-256 (hex) of the bytes the stored chunks were built from; null until completed. */
  content_hash: string | null;
  /** How many chunks the completed content has (a collection: all its children's). */
  chunks: number | null;
  /** The collection (website, prefix, folder) record this child belongs to; null for top-level content. */
  parent_id: string | null;
  /** A child's place in its collection: the page URL, object key or file path. */
  source_key: string | null;
  /** What the source reported changes with a child's bytes (an ETag, a blob sha), if anything. */
  source_version: string | null;
  /** The owner (a JWT `sub`, `sa:<name>`, an SDK caller's user); null for shared content. */
  user_id: string | null;
  /** The tenant it belongs to (auth/tenancy.ts); null without tenancy. A collection's children take their parent's. */
  tenant_id?: string | null;
  /** Epoch milliseconds. */
  created_at: number;
  updated_at: number;
}

/** What a new record is given; the rest starts empty. */
export type NewContent = Omit<ContentRecord, 'created_at' | 'updated_at' | 'content_hash' | 'chunks' | 'parent_id' | 'source_key' | 'source_version' | 'user_id' | 'chunker_settings'> &
  Partial<Pick<ContentRecord, 'parent_id' | 'source_key' | 'user_id' | 'chunker_settings'>>;

export type ContentSortBy = 'created_at' | 'updated_at' | 'name';

export interface ContentListQuery {
  knowledgeId: string;
  /** The children of this collection record; default the top-level records. */
  parentId?: string | undefined;
  limit: number;
  page: number;
  sortBy: ContentSortBy;
  sortOrder: 'asc' | 'desc';
  /** Only shared records and this user's. */
  visibleTo?: string | undefined;
  /** Only this tenant's records (auth/tenancy.ts). */
  tenant?: string | undefined;
  /** Only records in this status. */
  status?: ContentStatus | undefined;
}

/** A page of records, the size of the whole selection and how it stands by status. */
export interface ContentPage {
  data: ContentRecord[];
  total: number;
  /** Over every record the query selects, not only this page's. */
  counts: Record<ContentStatus, number>;
  /** For the page's collections (top-level records with children), how their children stand. */
  children?: Map<string, Record<ContentStatus, number>>;
}

interface Row {
  id: string;
  knowledge_id: string;
  name: string | null;
  description: string | null;
  metadata: string | null;
  file_type: string | null;
  size: number | string | null;
  reader_id: string | null;
  chunker: string | null;
  chunker_settings: string | null;
  status: string;
  status_message: string | null;
  content_hash: string | null;
  chunks: number | string | null;
  parent_id: string | null;
  source_key: string | null;
  source_version: string | null;
  user_id: string | null;
  tenant_id?: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS =
  'id, knowledge_id, name, description, metadata, file_type, size, reader_id, chunker, status, status_message, content_hash, chunks, parent_id, source_key, source_version, created_at, updated_at, user_id, chunker_settings';

// Whitelisted, because the column name is interpolated into the SQL text.
const SORT_COLUMNS: Record<ContentSortBy, string> = { created_at: 'created_at', updated_at: 'updated_at', name: 'name' };

function toRecord(row: Row): ContentRecord {
  return {
    id: row.id,
    knowledge_id: row.knowledge_id,
    name: row.name,
    description: row.description,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Metadata),
    file_type: row.file_type,
    // PostgreSQL returns BIGINT as a string.
    size: row.size === null ? null : Number(row.size),
    reader_id: row.reader_id,
    chunker: row.chunker,
    chunker_settings: row.chunker_settings === null ? null : (JSON.parse(row.chunker_settings) as Metadata),
    status: row.status as ContentStatus,
    status_message: row.status_message,
    content_hash: row.content_hash,
    chunks: row.chunks === null ? null : Number(row.chunks),
    parent_id: row.parent_id,
    source_key: row.source_key,
    source_version: row.source_version,
    user_id: row.user_id,
    ...(row.tenant_id !== undefined ? { tenant_id: row.tenant_id } : {}),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

export class ContentStore {
  constructor(private readonly sql: SqlClient) {}

  /** `user_id` may be left out: shared content. */
  async create(record: NewContent): Promise<ContentRecord> {
    const now = Date.now();
    const full: ContentRecord = {
      ...record,
      user_id: record.user_id ?? null,
      chunker_settings: record.chunker_settings ?? null,
      content_hash: null,
      chunks: null,
      parent_id: record.parent_id ?? null,
      source_key: record.source_key ?? null,
      source_version: null,
      created_at: now,
      updated_at: now,
    };
    // A child (parent_id set) belongs to its collection's tenant.
    await this.sql.execute(`INSERT INTO svc_knowledge_contents (${COLUMNS}, tenant_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
      COALESCE($21, (SELECT p.tenant_id FROM svc_knowledge_contents p WHERE p.knowledge_id = $2 AND p.id = $14)))`, [
      full.id,
      full.knowledge_id,
      full.name,
      full.description,
      full.metadata === null ? null : JSON.stringify(full.metadata),
      full.file_type,
      full.size,
      full.reader_id,
      full.chunker,
      full.status,
      full.status_message,
      full.content_hash,
      full.chunks,
      full.parent_id,
      full.source_key,
      full.source_version,
      full.created_at,
      full.updated_at,
      full.user_id,
      full.chunker_settings === null ? null : JSON.stringify(full.chunker_settings),
      full.tenant_id ?? null,
    ]);
    return full;
  }

  /** With `visibleTo`, another user's record is not found; with `tenant`, another tenant's. */
  async get(knowledgeId: string, id: string, visibleTo?: string, tenant?: string): Promise<ContentRecord | undefined> {
    const params: SqlValue[] = [knowledgeId, id];
    const where = `knowledge_id = $1 AND id = $2${visibleSql(visibleTo, params)}${tenantSql(tenant, params)}`;
    const [row] = await this.sql.query<Row>(`SELECT ${COLUMNS}, tenant_id FROM svc_knowledge_contents WHERE ${where}`, params);
    return row ? toRecord(row) : undefined;
  }

  async list(q: ContentListQuery): Promise<ContentPage> {
    const params: SqlValue[] = [q.knowledgeId];
    let where = 'knowledge_id = $1';
    if (q.parentId === undefined) where += ' AND parent_id IS NULL';
    else {
      params.push(q.parentId);
      where += ` AND parent_id = $${params.length}`;
    }
    where += visibleSql(q.visibleTo, params) + tenantSql(q.tenant, params);
    if (q.status !== undefined) {
      params.push(q.status);
      where += ` AND status = $${params.length}`;
    }
    // One pass gives the total and the counts, so a client waiting on thousands of uploads
    // polls one URL rather than one status URL each.
    const counts = toCounts(await this.sql.query<{ status: string; n: number | string }>(`SELECT status, COUNT(*) AS n FROM svc_knowledge_contents WHERE ${where} GROUP BY status`, params));
    const order = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
    params.push(q.limit, (q.page - 1) * q.limit);
    // id breaks ties, so pages never overlap or skip rows.
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM svc_knowledge_contents WHERE ${where} ORDER BY ${SORT_COLUMNS[q.sortBy]} ${order}, id ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { data: rows.map(toRecord), total: counts.processing + counts.completed + counts.failed, counts };
  }

  /**
   * The top-level records' ids (a collection's children go with it); with `ownedBy`, only that
   * user's records (not shared ones).
   */
  async ids(knowledgeId: string, options: { ownedBy?: string | undefined; tenant?: string | undefined } = {}): Promise<string[]> {
    const params: SqlValue[] = [knowledgeId];
    let where = 'knowledge_id = $1 AND parent_id IS NULL';
    if (options.ownedBy !== undefined) {
      params.push(options.ownedBy);
      where += ` AND user_id = $${params.length}`;
    }
    where += tenantSql(options.tenant, params);
    const rows = await this.sql.query<{ id: string }>(`SELECT id FROM svc_knowledge_contents WHERE ${where}`, params);
    return rows.map((r) => r.id);
  }

  /** Every child of a collection record. */
  async children(knowledgeId: string, parentId: string): Promise<ContentRecord[]> {
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM svc_knowledge_contents WHERE knowledge_id = $1 AND parent_id = $2 ORDER BY created_at, id`, [knowledgeId, parentId]);
    return rows.map(toRecord);
  }

  /**
   * How the children of each of these records stand, in one query for a whole page; a record
   * with no children (not a collection) is absent from the map.
   */
  async childCountsOf(knowledgeId: string, parentIds: readonly string[]): Promise<Map<string, Record<ContentStatus, number>>> {
    const byParent = new Map<string, Record<ContentStatus, number>>();
    if (parentIds.length === 0) return byParent;
    const params: SqlValue[] = [knowledgeId, ...parentIds];
    const rows = await this.sql.query<{ parent_id: string; status: string; n: number | string }>(
      `SELECT parent_id, status, COUNT(*) AS n FROM svc_knowledge_contents WHERE knowledge_id = $1 AND parent_id IN (${parentIds.map((_, i) => `$${i + 2}`).join(', ')}) GROUP BY parent_id, status`,
      params,
    );
    for (const row of rows) {
      const counts = byParent.get(row.parent_id) ?? { processing: 0, completed: 0, failed: 0 };
      if (row.status in counts) counts[row.status as ContentStatus] = Number(row.n);
      byParent.set(row.parent_id, counts);
    }
    return byParent;
  }

  /** How a collection's children stand, by status. */
  async childCounts(knowledgeId: string, parentId: string): Promise<Record<ContentStatus, number>> {
    return (await this.childCountsOf(knowledgeId, [parentId])).get(parentId) ?? toCounts([]);
  }

  /** Sets the given fields; undefined ones are left as they are. */
  async update(
    knowledgeId: string,
    id: string,
    fields: Partial<
      Pick<
        ContentRecord,
        'name' | 'description' | 'metadata' | 'file_type' | 'size' | 'reader_id' | 'chunker' | 'chunker_settings' | 'status' | 'status_message' | 'content_hash' | 'chunks' | 'source_version'
      >
    >,
  ): Promise<ContentRecord | undefined> {
    const sets: string[] = [];
    const params: SqlValue[] = [];
    for (const [column, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      params.push((column === 'metadata' || column === 'chunker_settings') && value !== null ? JSON.stringify(value) : (value as SqlValue));
      sets.push(`${column} = $${params.length}`);
    }
    params.push(Date.now(), knowledgeId, id);
    const n = params.length;
    await this.sql.execute(`UPDATE svc_knowledge_contents SET ${[...sets, `updated_at = $${n - 2}`].join(', ')} WHERE knowledge_id = $${n - 1} AND id = $${n}`, params);
    return this.get(knowledgeId, id);
  }

  /** Deletes a record and, for a collection, its children. */
  async delete(knowledgeId: string, id: string): Promise<boolean> {
    await this.sql.execute('DELETE FROM svc_knowledge_contents WHERE knowledge_id = $1 AND parent_id = $2', [knowledgeId, id]);
    return (await this.sql.execute('DELETE FROM svc_knowledge_contents WHERE knowledge_id = $1 AND id = $2', [knowledgeId, id])) > 0;
  }

  /**
   * Marks records `processing` that no queued or running job will finish as failed (records
   * from before ingestion became durable jobs, or a job whose failure could not be recorded).
   */
  async failOrphans(knowledgeId: string, message: string): Promise<number> {
    return this.sql.execute(
      // A child is finished by its collection's job.
      `UPDATE svc_knowledge_contents SET status = 'failed', status_message = $1, updated_at = $2
       WHERE knowledge_id = $3 AND status = 'processing' AND NOT EXISTS (
         SELECT 1 FROM svc_jobs j WHERE j.ref = svc_knowledge_contents.knowledge_id || '/' || COALESCE(svc_knowledge_contents.parent_id, svc_knowledge_contents.id)
           AND j.status IN ('queued', 'running'))`,
      [message, Date.now(), knowledgeId],
    );
  }
}

/**
 * What a read left on its record: the reader and chunker the upload asked for, else the ones
 * that built the chunks, and the chunker's settings (defaults included), so a record says how it
 * was made. Nothing when the stored chunks were kept as they were.
 */
export function builtWith(result: InsertResult, asked: Pick<InsertChoices, 'reader' | 'chunker'>): Partial<Pick<ContentRecord, 'reader_id' | 'chunker' | 'chunker_settings'>> {
  if (result.unchanged) return {};
  const reader = typeof asked.reader === 'object' ? asked.reader.id : asked.reader;
  const chunker = typeof asked.chunker === 'object' ? asked.chunker.type : asked.chunker;
  return { reader_id: reader ?? result.reader, chunker: chunker ?? result.chunker, chunker_settings: result.chunker_settings ?? null };
}

function toCounts(rows: readonly { status: string; n: number | string }[]): Record<ContentStatus, number> {
  const counts: Record<ContentStatus, number> = { processing: 0, completed: 0, failed: 0 };
  // PostgreSQL returns COUNT(*) as a string.
  for (const row of rows) if (row.status in counts) counts[row.status as ContentStatus] = Number(row.n);
  return counts;
}

/** `AND` this tenant's records only (auth/tenancy.ts); nothing without a tenant. */
function tenantSql(tenant: string | undefined, params: SqlValue[]): string {
  if (tenant === undefined) return '';
  params.push(tenant);
  return ` AND tenant_id = $${params.length}`;
}

/** `AND` shared records or this user's, with the user as the next parameter; nothing when unscoped. */
function visibleSql(visibleTo: string | undefined, params: SqlValue[]): string {
  if (visibleTo === undefined) return '';
  params.push(visibleTo);
  return ` AND (user_id IS NULL OR user_id = $${params.length})`;
}
