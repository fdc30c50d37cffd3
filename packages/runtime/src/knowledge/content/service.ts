/**
 * @module knowledge/content/service
 * The content service: which knowledge base a request means, and the content records' reads,
 * edits and deletions, each under the caller's ownership rules. Uploads are in upload.ts; the
 * HTTP routes (server/routes/knowledge/) call these and know nothing of the records themselves.
 *
 * Content belongs to the authenticated caller that uploaded it (its user id; none for the
 * security key or an open runtime, which makes it shared), and the owner is part of the content
 * id. A confined caller (a JWT user under user isolation, a service account always; see
 * auth/user-scope.ts) reads shared content and its own, changes only its own (shared content is
 * the admins'), and gets 404 for another user's ids; admins, the security key and open
 * runtimes are not confined.
 */
import type { KnowledgeComponent } from '../../components/component.js';
import { badRequest, RuntimeError } from '../../errors.js';
import type { JobWorker } from '../../jobs/job-worker.js';
import type { Db } from '../../storage/db.js';
import type { Logger } from '../../util/logger.js';
import type { Metadata } from '../types.js';
import { isContentKnowledge, type ContentKnowledge } from './content-knowledge.js';
import { ContentStore, type ContentListQuery, type ContentPage, type ContentRecord, type ContentStatus } from './content-store.js';
import { ingestHandler, ingestKind, ingestRef } from './ingest-job.js';

const INTERRUPTED = 'interrupted: no job is left to finish it';

export interface ContentServiceOptions {
  db: Db;
  jobs: JobWorker;
  /** Every knowledge base the runtime hosts; those that take content are served. */
  knowledge: readonly KnowledgeComponent[];
  log: Logger;
}

/** Who asks: `scope` confines a caller to shared content and its own (undefined: not confined). */
export interface ContentCaller {
  scope: string | undefined;
  /** The owner new content gets (the principal's user id); undefined makes it shared. */
  owner: string | undefined;
  /** Under tenancy, the caller's tenant: it reaches that tenant's content only, and new content is that tenant's. */
  tenant?: string | undefined;
}

export class ContentService {
  readonly db: Db;
  readonly jobs: JobWorker;
  readonly store: ContentStore;
  readonly log: Logger;
  private readonly hosted: readonly KnowledgeComponent[];
  private readonly swept = new Map<string, Promise<void>>();

  constructor(options: ContentServiceOptions) {
    this.db = options.db;
    this.jobs = options.jobs;
    this.store = new ContentStore(options.db);
    this.log = options.log;
    this.hosted = options.knowledge;
  }

  /** Lets this runtime's job worker run the ingestion jobs of every knowledge base it serves. */
  registerJobs(): void {
    for (const knowledge of this.bases) this.jobs.register(ingestKind(knowledge.id), ingestHandler(knowledge, { db: this.db, store: this.store, jobs: this.jobs.store, log: this.log }));
  }

  /** The knowledge bases that take content. */
  get bases(): ContentKnowledge[] {
    return this.hosted.filter(isContentKnowledge);
  }

  /** The knowledge base a request names (or the only one that takes content). */
  async select(knowledgeId: string | undefined, dbId: string | undefined): Promise<ContentKnowledge> {
    const hosted = this.bases;
    if (hosted.length === 0) throw new RuntimeError('NOT_FOUND', 'This runtime hosts no knowledge base that accepts content');
    let knowledge: ContentKnowledge | undefined;
    if (knowledgeId !== undefined) {
      knowledge = hosted.find((k) => k.id === knowledgeId);
      if (!knowledge && this.hosted.some((k) => k.id === knowledgeId)) {
        // Hosted, but not a base that takes content (a read-only one, such as bundled docs): "not found" would mislead.
        throw badRequest(`Knowledge base "${knowledgeId}" is read-only: it takes no content and is not searched here. Use ${hosted.map((k) => `"${k.id}"`).join(' or ')}`);
      }
      if (!knowledge) throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledgeId}" not found`);
    } else if (hosted.length > 1) {
      throw badRequest(`knowledge_id is required: this runtime hosts ${hosted.length} knowledge bases that take content (${hosted.map((k) => k.id).join(', ')})`);
    } else {
      knowledge = hosted[0]!;
    }
    if (dbId !== undefined && (knowledge.dbId ?? this.db.id) !== dbId) {
      throw new RuntimeError('NOT_FOUND', `Knowledge base "${knowledge.id}" is not stored in database "${dbId}"`);
    }
    await this.sweep(knowledge.id);
    return knowledge;
  }

  /**
   * Once per knowledge base and runtime: a record `processing` with no job left to finish it
   * (from before ingestion was durable) would never end.
   */
  private sweep(knowledgeId: string): Promise<void> {
    let done = this.swept.get(knowledgeId);
    if (!done) {
      done = this.store
        .failOrphans(knowledgeId, INTERRUPTED)
        .then((n) => {
          if (n > 0) this.log.warn(`knowledge "${knowledgeId}": marked ${n} interrupted upload(s) as failed`);
        })
        .catch((e: unknown) => {
          this.swept.delete(knowledgeId);
          throw e;
        });
      this.swept.set(knowledgeId, done);
    }
    return done;
  }

  /** Another user's content is "not found" to a confined caller, so its ids tell nothing. */
  async get(knowledge: ContentKnowledge, id: string, visibleTo: string | undefined, tenant?: string): Promise<ContentRecord> {
    const record = await this.store.get(knowledge.id, id, visibleTo, tenant);
    if (!record) throw new RuntimeError('NOT_FOUND', `Content with id '${id}' not found`);
    return record;
  }

  /** A page of records (a collection's children with `parentId`), as the caller may see them, top-level collections with their children's counts. */
  async list(knowledge: ContentKnowledge, query: Omit<ContentListQuery, 'knowledgeId' | 'visibleTo'>, caller: ContentCaller): Promise<ContentPage> {
    if (query.parentId !== undefined) {
      await this.get(knowledge, query.parentId, caller.scope, caller.tenant);
      return this.store.list({ ...query, knowledgeId: knowledge.id, visibleTo: caller.scope, tenant: caller.tenant });
    }
    // Top-level rows carry their children's counts, so a client shows a page of collections
    // without asking for each record again.
    const page = await this.store.list({ ...query, knowledgeId: knowledge.id, visibleTo: caller.scope, tenant: caller.tenant });
    const children = await this.store.childCountsOf(knowledge.id, page.data.map((record) => record.id));
    return { ...page, children };
  }

  /** A record, with its children's counts when it is a collection. */
  async describe(knowledge: ContentKnowledge, id: string, caller: ContentCaller): Promise<{ record: ContentRecord; children?: Record<ContentStatus, number> }> {
    const record = await this.get(knowledge, id, caller.scope, caller.tenant);
    const counts = record.parent_id === null ? await this.store.childCounts(knowledge.id, record.id) : undefined;
    const isCollection = counts !== undefined && counts.processing + counts.completed + counts.failed > 0;
    return isCollection ? { record, children: counts } : { record };
  }

  /** Edits a record's name, description or metadata; stored chunks keep the metadata they were indexed with. */
  async update(knowledge: ContentKnowledge, id: string, changes: { name?: string | undefined; description?: string | undefined; metadata?: Metadata | undefined }, caller: ContentCaller): Promise<ContentRecord> {
    mustOwn(await this.get(knowledge, id, caller.scope, caller.tenant), caller.scope);
    if (changes.metadata) knowledge.checkInsert({ metadata: changes.metadata });
    const updated = await this.store.update(knowledge.id, id, changes);
    if (!updated) throw new RuntimeError('NOT_FOUND', `Content with id '${id}' not found`);
    return updated;
  }

  /** Deletes a record the caller may change, with its chunks (a collection with its children). */
  async delete(knowledge: ContentKnowledge, id: string, caller: ContentCaller): Promise<void> {
    mustOwn(await this.get(knowledge, id, caller.scope, caller.tenant), caller.scope);
    await this.remove(knowledge, id, caller.scope);
  }

  /** Deletes every record the caller may change: a confined caller's own, everything for others. */
  async deleteAll(knowledge: ContentKnowledge, caller: ContentCaller): Promise<void> {
    for (const id of await this.store.ids(knowledge.id, { ownedBy: caller.scope, tenant: caller.tenant })) await this.remove(knowledge, id, caller.scope);
  }

  /**
   * Chunks first: a failure then leaves the record, so the delete can be retried. A job still
   * running finds its record gone when it ends and removes what it stored.
   */
  private async remove(knowledge: ContentKnowledge, id: string, ownedBy: string | undefined): Promise<void> {
    // A collection's children go with it (they have its owner), chunks first as for the parent itself.
    for (const child of await this.store.children(knowledge.id, id)) await knowledge.remove(child.id, { userId: ownedBy });
    await knowledge.remove(id, { userId: ownedBy });
    await this.db.transaction(async (tx) => {
      await this.jobs.store.deleteByRef(ingestRef(knowledge.id, id), tx);
      await new ContentStore(tx).delete(knowledge.id, id);
    });
  }
}

/**
 * A confined caller changes only its own content. It reaches no other user's (those are not
 * found), so what remains is shared content: visible to every user, changed by admins only.
 */
function mustOwn(record: ContentRecord, scope: string | undefined): void {
  if (scope !== undefined && record.user_id !== scope) {
    throw new RuntimeError('FORBIDDEN', `Content with id '${record.id}' is shared with every user: only an admin can change or delete it`);
  }
}
