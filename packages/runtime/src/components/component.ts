/**
 * @module components/component
 * What the runtime needs to know about anything it hosts. Agents, teams, workflows and
 * knowledge bases all satisfy this; their own modules add behaviour.
 */

export interface HostedComponent {
  /** Unique among components of the same kind in one runtime; used in routes and scopes. */
  readonly id: string;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** A runnable component's standing webhook: every run started through the API or a schedule is posted there when it ends. */
  readonly webhook?: string | undefined;
  /** Extra fields for `/config` (model, mode, db id...). */
  describe?(): Record<string, unknown>;
}

export interface KnowledgeComponent extends HostedComponent {
  /** Id of the database that stores this knowledge's contents, if any. */
  readonly dbId?: string | undefined;
  /** Table (or collection) name inside that database. */
  readonly table?: string | undefined;
}

export function isHostedComponent(value: unknown): value is HostedComponent {
  if (typeof value !== 'object' || value === null) return false;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id.trim().length > 0;
}

/** A knowledge base an agent can search (its `search_knowledge_base` tool). Knowledge implements it. */
export interface SearchableKnowledge extends KnowledgeComponent {
  /**
   * `userId`: search as that user (shared content and theirs); given under user isolation.
   * `tenantId`: search that tenant's content only; given under tenancy (an implementation must
   * honour it, or it would show one tenant's content to another).
   * `onSearchType`: told which search type ran, for the search's span.
   */
  search(
    query: string,
    options?: { limit?: number; userId?: string; tenantId?: string; onSearchType?: (searchType: string) => void },
  ): Promise<{ content: string; name?: string; score?: number }[]>;
}
