/**
 * Knowledge: pick a base (from `GET /config`), see what it reads and how it searches
 * (`GET /knowledge/config`), add files, URLs and text, watch the records' status, delete them,
 * try searches, see (and start) the base's reindex, and browse and ingest its remote sources. Controls the caller's scopes do not
 * cover are left out.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { unwrap } from '../../api/errors';
import { can } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { AddContent } from './add-content';
import { BaseSummary } from './base-summary';
import { Records } from './records';
import { ReindexStatus } from './reindex-status';
import { SearchPlayground } from './search-playground';
import { SourceBrowser } from './source-browser';

interface Base {
  id: string;
  name: string;
  description?: string | undefined;
}

async function listBases(mayReadConfig: boolean): Promise<Base[]> {
  // Without config:read the page still works on the runtime's default base.
  if (!mayReadConfig) return [];
  const config = await unwrap(api.GET('/config'));
  return config.knowledge.knowledge_instances;
}

export function Knowledge() {
  const { caller } = useSession();
  const bases = useAsync(() => listBases(can(caller, 'config:read')), [caller]);
  // Undefined: no knowledge_id, so the runtime picks its one base that takes content (a
  // read-only base such as the quickstart's docs refuses uploads and is not searched there).
  const [baseId, setBaseId] = useState<string>();
  const [changes, setChanges] = useState(0);
  const list = bases.data ?? [];
  const base = list.find((b) => b.id === baseId);
  // The sources routes name the base in their path: the one picked, else the only one listed.
  const resolvedId = baseId ?? (list.length === 1 ? list[0]?.id : undefined);
  const config = useAsync(() => unwrap(api.GET('/knowledge/config', { params: { query: baseId ? { knowledge_id: baseId } : {} } })), [baseId]);
  const sources = config.data?.remote_content_sources ?? [];

  return (
    <main class="page" id="main">
      <h1>Knowledge</h1>
      <ErrorText message={bases.error} />
      {list.length > 1 ? (
        <div class="field">
          <label for="base">Knowledge base</label>
          <select id="base" value={baseId ?? ''} onChange={(e) => setBaseId(e.currentTarget.value || undefined)}>
            <option value="">The runtime's default (the base that takes uploads)</option>
            {list.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name} ({b.id})
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {base?.description ? <p class="muted">{base.description}</p> : null}
      <ErrorText message={config.error} />
      {config.data ? <BaseSummary config={config.data} /> : null}
      <ReindexStatus key={baseId ?? ''} knowledgeId={baseId} mayStart={can(caller, 'knowledge:write')} />
      <div class="grid-2">
        <div>
          {can(caller, 'knowledge:write') ? (
            <AddContent knowledgeId={baseId} config={config.data} onAdded={() => setChanges((n) => n + 1)} />
          ) : (
            <p class="muted">Adding content needs the knowledge:write scope.</p>
          )}
          <Records knowledgeId={baseId} changes={changes} mayDelete={can(caller, 'knowledge:delete')} />
        </div>
        <SearchPlayground knowledgeId={baseId} config={config.data} />
      </div>
      {sources.length > 0 && resolvedId ? (
        <SourceBrowser key={resolvedId} knowledgeId={resolvedId} sources={sources} mayIngest={can(caller, 'knowledge:write')} onAdded={() => setChanges((n) => n + 1)} />
      ) : sources.length > 0 ? (
        <p class="muted">This base has remote sources: pick it in the list above to browse them.</p>
      ) : null}
    </main>
  );
}
