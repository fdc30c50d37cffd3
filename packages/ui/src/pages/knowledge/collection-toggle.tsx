/**
 * How a top-level record's children stand, as a button that opens their list. The content
 * list does not carry children counts (only `GET /knowledge/content/{id}` does), so each
 * top-level row asks for its own record, again whenever its status or update time changes;
 * a record that is no collection answers without `children` and shows nothing.
 */
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { useAsync } from '../../components/use-async';

type Content = components['schemas']['KnowledgeContent'];

interface Props {
  record: Content;
  knowledgeId: string | undefined;
  open: boolean;
  onToggle(): void;
}

export function CollectionToggle({ record, knowledgeId, open, onToggle }: Props) {
  const query = knowledgeId ? { knowledge_id: knowledgeId } : {};
  const described = useAsync(
    () => unwrap(api.GET('/knowledge/content/{content_id}', { params: { path: { content_id: record.id }, query } })),
    [record.id, record.status, record.updated_at, knowledgeId],
  );
  const children = described.data?.children ?? record.children;
  if (!children) return null;
  return (
    <p>
      <button type="button" class="link" aria-expanded={open} onClick={onToggle}>
        {children.completed} completed, {children.processing} processing, {children.failed} failed
      </button>
    </p>
  );
}
