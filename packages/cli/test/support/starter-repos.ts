/**
 * The nine REAL starters from `templates/` as local bare repositories, built by
 * `templates/test/bare-repos.ts` (`<dir>/runtime-<target>.git`), so `svc create` clones the
 * actual starter contents with a real `git clone` and no network. The CLI clones
 * `<SVC_TEMPLATES_BASE_URL>/runtime-<target>`, which git resolves to the `.git` directory.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** templates/ in this repository: the starters' committed sources. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../../../templates/', import.meta.url));

interface BareRepos {
  TEMPLATE_NAMES: readonly string[];
  buildTemplateRepos(dir: string): Promise<string>;
}

/**
 * Loaded with a computed specifier: the root type-check does not cover templates/ (it has its
 * own tsconfig, with allowJs for the plain-node sync.mjs that bare-repos.ts imports), so the
 * module's shape is restated above instead of being followed into that project.
 */
async function loadBareRepos(): Promise<BareRepos> {
  const specifier = new URL('test/bare-repos.ts', new URL('../../../../templates/', import.meta.url)).href;
  return (await import(specifier)) as BareRepos;
}

export interface StarterRepos {
  /** `file://<dir>`, for SVC_TEMPLATES_BASE_URL. */
  baseUrl: string;
  /** runtime-<target> for every starter, in `svc create`'s menu order. */
  names: readonly string[];
  cleanup(): void;
}

export async function starterRepos(): Promise<StarterRepos> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-starters-'));
  const { buildTemplateRepos, TEMPLATE_NAMES } = await loadBareRepos();
  const baseUrl = await buildTemplateRepos(dir);
  return { baseUrl, names: TEMPLATE_NAMES, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Local build output bare-repos.ts leaves out of a starter repository. */
const NOT_COMMITTED = new Set(['node_modules', 'dist', 'data', '.env']);

/** A starter's files (relative paths, sorted) as its repository holds them. */
export function starterFiles(template: string): string[] {
  return listFiles(join(TEMPLATES_DIR, template), (name) => !NOT_COMMITTED.has(name));
}

/** Every file under `dir` (relative paths, sorted), skipping entries `keep` rejects. */
export function listFiles(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (!keep(entry.name)) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}
