/**
 * @module knowledge/content/versions
 * Versions of a document: records of one knowledge base with the same name and the same owner.
 * An upload under a name already used (edited text, a new chunk size: another content id)
 * becomes that name's newest version, and when it completes it replaces the versions uploaded
 * before it: their chunks leave searches in the store transaction that makes its chunks visible
 * (UpsertOptions.replaces), then their records and jobs are deleted. Until then the old version
 * stays searchable. A crash between the two steps leaves old records whose chunks are gone; the
 * new upload's job is taken over and deletes them when it completes.
 *
 * Order is upload order (`submitted_at`, the creation time until an upload re-queues a record),
 * so an earlier upload that completes after a later one never replaces it: it finds itself
 * superseded and stores nothing. Only single contents are versioned: a collection (a website,
 * a folder) is refreshed by its location, child by child, and is never replaced by name.
 */
import type { SqlClient, SqlValue } from '../../storage/db.js';

/** A version's place in the order: when it was (last) uploaded, then its id. */
interface Version {
  id: string;
  status: string;
  at: number;
}

/** The versions of `name` around one record: those uploaded before it and after it. */
export interface Versions {
  older: string[];
  /** A later upload already completed: this one is out of date before it is read. */
  superseded: boolean;
}

/**
 * Every top-level, non-collection record named `name` of this owner (null: shared) in this tenant
 * (null: none), newest first. The same user id in two tenants is two owners: neither's upload is
 * a version of the other's.
 */
async function named(sql: SqlClient, knowledgeId: string, name: string, owner: string | null, tenant: string | null): Promise<Version[]> {
  const params: SqlValue[] = [knowledgeId, name];
  let ownerSql = 'user_id IS NULL';
  if (owner !== null) {
    params.push(owner);
    ownerSql = `user_id = $${params.length}`;
  }
  if (tenant === null) ownerSql += ' AND tenant_id IS NULL';
  else {
    params.push(tenant);
    ownerSql += ` AND tenant_id = $${params.length}`;
  }
  const rows = await sql.query<{ id: string; status: string; at: number | string }>(
    `SELECT id, status, COALESCE(submitted_at, created_at) AS at FROM svc_knowledge_contents s
     WHERE knowledge_id = $1 AND name = $2 AND parent_id IS NULL AND ${ownerSql}
       AND NOT EXISTS (SELECT 1 FROM svc_knowledge_contents c WHERE c.knowledge_id = s.knowledge_id AND c.parent_id = s.id)`,
    params,
  );
  // PostgreSQL returns BIGINT as a string.
  return rows.map((r) => ({ id: r.id, status: r.status, at: Number(r.at) })).sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
}

/** Whether `a` was uploaded before `b` (ties, within a millisecond, broken by id). */
function before(a: Version, b: Version): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

/** The versions of `name` uploaded before and after record `id`. */
export async function versionsAround(sql: SqlClient, knowledgeId: string, id: string, name: string, owner: string | null, tenant: string | null = null): Promise<Versions> {
  const all = await named(sql, knowledgeId, name, owner, tenant);
  const self = all.find((v) => v.id === id);
  if (!self) return { older: [], superseded: false };
  const others = all.filter((v) => v.id !== id);
  return { older: others.filter((v) => before(v, self)).map((v) => v.id), superseded: others.some((v) => before(self, v) && v.status === 'completed') };
}

/** The newest version of `name` other than `id`, if there is one (what `write_mode` skip keeps). */
export async function latestVersion(sql: SqlClient, knowledgeId: string, name: string, owner: string | null, id: string, tenant: string | null = null): Promise<string | undefined> {
  return (await named(sql, knowledgeId, name, owner, tenant)).find((v) => v.id !== id)?.id;
}

/** Whether a version of `name` was uploaded after record `id`. */
export async function hasNewerVersion(sql: SqlClient, knowledgeId: string, name: string, owner: string | null, id: string, tenant: string | null = null): Promise<boolean> {
  const all = await named(sql, knowledgeId, name, owner, tenant);
  const self = all.find((v) => v.id === id);
  return self !== undefined && all.some((v) => v.id !== id && before(self, v));
}

/** An upload queued record `id` again: it is now the newest version of its name. */
export async function markUploaded(sql: SqlClient, knowledgeId: string, id: string): Promise<void> {
  await sql.execute('UPDATE svc_knowledge_contents SET submitted_at = $1 WHERE knowledge_id = $2 AND id = $3', [Date.now(), knowledgeId, id]);
}
