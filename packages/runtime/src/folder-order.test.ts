/**
 * The runtime's folder order: which top-level folders (and files) may import which, counting
 * type-only and dynamic imports. Shared kits sit at the bottom, features in the middle know
 * nothing of HTTP, `server/` is the edge, and the Runtime assembles it all. docs/ARCHITECTURE.md
 * draws the same table; change both together.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFolderOrder } from '../../../scripts/folder-order.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

const BASE = ['errors.ts', 'util'];
/** Below every feature: nothing here knows a feature, HTTP or the Runtime. */
const KITS = {
  'errors.ts': [],
  'version.ts': [],
  util: ['errors.ts'],
  settings: BASE,
  net: [...BASE, 'settings'],
  workers: [...BASE, 'settings'],
  storage: [...BASE, 'settings'],
  jobs: [...BASE, 'storage'],
};
/** Features, each knowing only what is below it. */
const FEATURES = {
  auth: [...BASE, 'settings', 'storage'],
  components: [],
  model: [...BASE, 'settings', 'net'],
  providers: [...BASE, 'settings', 'net', 'workers', 'model'],
  tools: [...BASE, 'components', 'model'],
  sessions: [...BASE, 'storage', 'model'],
  idempotency: [...BASE, 'storage'],
  budgets: [...BASE, 'settings', 'storage', 'model'],
  run: [...BASE, 'auth', 'components', 'model', 'sessions', 'jobs', 'idempotency', 'budgets'],
  memory: [...BASE, 'storage', 'components', 'model', 'tools', 'sessions', 'run'],
  agent: [...BASE, 'components', 'model', 'run', 'storage', 'tools', 'memory'],
  team: [...BASE, 'components', 'model', 'run', 'storage', 'tools'],
  workflow: [...BASE, 'components', 'run', 'storage'],
  knowledge: [...BASE, 'settings', 'net', 'workers', 'storage', 'jobs', 'components', 'model', 'providers'],
  mcp: [...BASE, 'auth', 'components', 'run', 'sessions', 'memory'],
  traces: [...BASE, 'settings', 'net', 'storage', 'components', 'model'],
  webhooks: [...BASE, 'settings', 'net', 'storage', 'sessions', 'run'],
  schedules: [...BASE, 'storage', 'run', 'webhooks'],
  'mcp-client': [...BASE, 'version.ts', 'net', 'components', 'model', 'tools'],
};
/** The HTTP edge, then the assembly. */
const EDGE = {
  server: [...BASE, 'settings', 'storage', 'jobs', 'auth', 'components', 'sessions', 'idempotency', 'budgets', 'run', 'knowledge', 'mcp', 'traces', 'memory', 'webhooks', 'schedules'],
  'runtime-options.ts': ['auth', 'components', 'settings', 'model', 'storage', 'budgets'],
  'runtime.ts': [...Object.keys(KITS), ...Object.keys(FEATURES), 'server', 'runtime-options.ts'],
  'serve-until-stopped.ts': [...BASE, 'runtime.ts'],
  'index.ts': [...Object.keys(KITS), ...Object.keys(FEATURES), 'server', 'runtime-options.ts', 'runtime.ts', 'serve-until-stopped.ts'],
};
const RUNTIME_FOLDER_ORDER: Record<string, readonly string[]> = { ...KITS, ...FEATURES, ...EDGE };

describe('the runtime folder order', () => {
  it('has every import point down the table, and no import cycle at any folder level', () => {
    expect(checkFolderOrder({ root, allowed: RUNTIME_FOLDER_ORDER })).toEqual([]);
  });

  it('reports a planted back-arrow and the cycle it makes', () => {
    const planted = { 'storage/db.ts': "\nimport type { RouteEntry } from '../server/route.js';\n" };
    const problems = checkFolderOrder({ root, allowed: RUNTIME_FOLDER_ORDER, planted });
    expect(problems).toContain('storage -> server: storage/db.ts imports server/route.ts');
    expect(problems.some((p) => p.startsWith('cycle in .: ') && p.includes('server') && p.includes('storage'))).toBe(true);
  });

  it('reports a dynamic import from a kit into a feature, and a folder the table does not name', () => {
    const planted = { 'net/safe-fetch.ts': "\nconst later = () => import('../knowledge/types.js');\n" };
    expect(checkFolderOrder({ root, allowed: RUNTIME_FOLDER_ORDER, planted })).toContain('net -> knowledge: net/safe-fetch.ts imports knowledge/types.ts');
    const { knowledge: _, ...withoutKnowledge } = RUNTIME_FOLDER_ORDER;
    expect(checkFolderOrder({ root, allowed: withoutKnowledge })).toContain('knowledge: not in the folder-order table');
  });
});
