/**
 * @module knowledge/evals/targets
 * Which content records a labelled query's judged documents are: each document key is matched,
 * among the completed contents of the knowledge base the caller may see, to a record with that
 * id, else to the records with that name (a BEIR corpus id uploaded as the content's name). A
 * key that matches nothing is refused (422) naming the first few: an eval against documents the
 * base does not hold would only measure the gap.
 */
import { unprocessable } from '../../errors.js';
import type { SqlClient, SqlValue } from '../../storage/db.js';
import type { LabelledQuery } from './beir.js';
import type { ResolvedQuery } from './eval-store.js';

/** Keys looked up per statement. */
const BATCH = 500;

async function matches(sql: SqlClient, knowledgeId: string, keys: readonly string[], visibleTo: string | undefined, tenant: string | undefined): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    const params: SqlValue[] = [knowledgeId, ...batch];
    const list = batch.map((_, j) => `$${j + 2}`).join(', ');
    let visible = '';
    if (visibleTo !== undefined) {
      params.push(visibleTo);
      visible = ` AND (user_id IS NULL OR user_id = $${params.length})`;
    }
    if (tenant !== undefined) {
      params.push(tenant);
      visible += ` AND tenant_id = $${params.length}`;
    }
    const rows = await sql.query<{ id: string; name: string | null }>(
      `SELECT id, name FROM svc_knowledge_contents WHERE knowledge_id = $1 AND status = 'completed' AND (id IN (${list}) OR name IN (${list}))${visible} ORDER BY id`,
      params,
    );
    const ids = new Set(rows.map((r) => r.id));
    for (const key of batch) {
      const byId = ids.has(key) ? [key] : rows.filter((r) => r.name === key).map((r) => r.id);
      if (byId.length > 0) found.set(key, byId);
    }
  }
  return found;
}

export async function resolveJudgments(sql: SqlClient, knowledgeId: string, queries: readonly LabelledQuery[], visibleTo: string | undefined, tenant?: string): Promise<ResolvedQuery[]> {
  const keys = [...new Set(queries.flatMap((q) => q.judgments.map((j) => j.document)))];
  const found = await matches(sql, knowledgeId, keys, visibleTo, tenant);
  const unknown = keys.filter((k) => !found.has(k));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 10).map((k) => `"${k}"`).join(', ');
    throw unprocessable(
      `${unknown.length} judged document${unknown.length > 1 ? 's match' : ' matches'} no completed content of knowledge base "${knowledgeId}" by id or name: ${shown}${unknown.length > 10 ? ', ...' : ''}. ` +
        'Upload them first (the corpus id as the content name), or leave them out of the judgments',
    );
  }
  return queries.map((q) => ({ id: q.id, text: q.text, judgments: q.judgments.map((j) => ({ document: j.document, grade: j.grade, content_ids: found.get(j.document)! })) }));
}
