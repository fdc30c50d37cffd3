/**
 * How a top-level record's children stand, as a button that opens their list. The content list
 * carries each collection's children counts, so the row needs no request of its own; a record
 * that is no collection has no `children` and shows nothing.
 */
import type { components } from '../../api/schema';

type Content = components['schemas']['KnowledgeContent'];

interface Props {
  record: Content;
  open: boolean;
  onToggle(): void;
}

export function CollectionToggle({ record, open, onToggle }: Props) {
  const children = record.children;
  if (!children) return null;
  return (
    <p>
      <button type="button" class="link" aria-expanded={open} onClick={onToggle}>
        {children.completed} completed, {children.processing} processing, {children.failed} failed
      </button>
    </p>
  );
}
