/**
 * The CLI's folder order: which of src/'s folders and top-level files may import which, so the
 * folders depend one way (docs/ARCHITECTURE.md, "CLI folder order"). Type-only and dynamic
 * imports count, and no folder at any level may have an import cycle.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFolderOrder } from '../../../scripts/folder-order.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Each folder or top-level file, and what it may import: only the arrows the code needs. */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  'errors.ts': [],
  'version.ts': [],
  system: [],
  output: ['errors.ts', 'util'],
  'context.ts': ['output'],
  clients: ['errors.ts', 'system', 'util'],
  accounts: ['clients', 'errors.ts', 'util'],
  http: ['accounts', 'errors.ts', 'util', 'version.ts'],
  mcp: ['http', 'util', 'version.ts'],
  discovery: ['clients', 'context.ts', 'errors.ts', 'http', 'output', 'util'],
  credentials: ['context.ts', 'discovery', 'errors.ts', 'http', 'output', 'util'],
  compose: ['errors.ts', 'system'],
  create: ['errors.ts', 'system'],
  commands: ['accounts', 'clients', 'compose', 'context.ts', 'create', 'credentials', 'discovery', 'errors.ts', 'http', 'mcp', 'output', 'util', 'version.ts'],
  'main.ts': ['commands', 'version.ts'],
};

describe('the CLI folder order', () => {
  it('holds: every import follows the table and no folder has an import cycle', () => {
    expect(checkFolderOrder({ root, allowed: ALLOWED })).toEqual([]);
  });

  it('reports an import that points back up the table, and the cycle it closes', () => {
    const problems = checkFolderOrder({ root, allowed: ALLOWED, planted: { 'util/json.ts': "\nimport '../commands/connect/command.js';\n" } });
    expect(problems).toContain('util -> commands: util/json.ts imports commands/connect/command.ts');
    expect(problems.filter((p) => p.startsWith('cycle in .: ')).join()).toMatch(/commands <-> .*util/);
  });

  it('counts dynamic imports', () => {
    const problems = checkFolderOrder({ root, allowed: ALLOWED, planted: { 'clients/registry.ts': "\nconst later = () => import('../discovery/probe.js');\n" } });
    expect(problems).toContain('clients -> discovery: clients/registry.ts imports discovery/probe.ts');
  });

  it('reports a cycle inside a folder, type-only imports included', () => {
    const problems = checkFolderOrder({ root, allowed: ALLOWED, planted: { 'commands/connect/report.ts': "\nimport type { connectCommand } from './command.js';\n" } });
    expect(problems).toEqual([expect.stringMatching(/^cycle in commands\/connect: .*command\.ts <-> .*report\.ts/)]);
  });

  it('reports a command folder that imports the catalog (the catalog loads the folder)', () => {
    const problems = checkFolderOrder({ root, allowed: ALLOWED, planted: { 'commands/status/command.ts': "\nimport { CATALOG } from '../catalog.js';\n" } });
    expect(problems).toEqual(['cycle in commands: catalog.ts <-> status']);
  });
});
