/**
 * Small purpose-built bare git repositories for the `svc create` cases no real starter has
 * (symlinked example.env, a committed .env, no example.env, a custom --url repo). The real
 * starters come from support/starter-repos.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface TemplateSpec {
  files: Record<string, string>;
  symlinks?: Record<string, string>;
}

function git(args: string[], cwd: string): void {
  execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

export interface TemplateRepos {
  /** A file:// base URL for SVC_TEMPLATES_BASE_URL. */
  baseUrl: string;
  dir: string;
  add(name: string, spec: TemplateSpec): string;
  cleanup(): void;
}

export function templateRepos(): TemplateRepos {
  const dir = mkdtempSync(join(tmpdir(), 'svc-templates-'));
  return {
    dir,
    baseUrl: pathToFileURL(dir).href,
    add(name, spec) {
      const work = join(dir, `${name}-work`);
      mkdirSync(work);
      for (const [path, content] of Object.entries(spec.files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), content);
      }
      for (const [path, target] of Object.entries(spec.symlinks ?? {})) symlinkSync(target, join(work, path));
      git(['init', '-q'], work);
      git(['add', '-A'], work);
      git(['commit', '-q', '-m', 'template'], work);
      git(['clone', '-q', '--bare', work, join(dir, name)], dir);
      rmSync(work, { recursive: true, force: true });
      return pathToFileURL(join(dir, name)).href;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
