/**
 * The panel's static route on a build of its own (a temp folder): files by path, the app's index
 * for any other path under /ui, 404 for a missing asset, the security headers on every answer,
 * and a clear 404 while no build exists.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv, ServerContext } from '../context.js';
import { normalizedPath } from '../normalize-path.js';
import { UI_HEADERS, uiRoutes } from './ui.js';

function appOver(root: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ getPath: normalizedPath });
  for (const route of uiRoutes({} as ServerContext, root)) {
    if (route.kind === 'raw') app.get(route.path, route.handler);
  }
  return app;
}

describe('the /ui route', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-ui-route-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>panel</title>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'export {};');
    writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves files, the index for app paths, and 404 for a missing asset, all with the headers', async () => {
    const app = appOver(dir);
    const cases: [string, number, string][] = [
      ['/ui', 200, 'text/html; charset=utf-8'],
      ['/ui/', 200, 'text/html; charset=utf-8'],
      ['/ui/knowledge', 200, 'text/html; charset=utf-8'],
      ['/ui/runs/some/deep/path', 200, 'text/html; charset=utf-8'],
      ['/ui/assets/index-abc.js', 200, 'text/javascript; charset=utf-8'],
      ['/ui/favicon.svg', 200, 'image/svg+xml'],
      ['/ui/assets/gone.js', 404, 'application/json'],
      ['/ui/robots.txt', 404, 'application/json'],
      ['/ui/assets/../index.html', 200, 'text/html; charset=utf-8'],
    ];
    for (const [path, status, type] of cases) {
      const res = await app.request(path);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, status, type]);
      for (const [name, value] of Object.entries(UI_HEADERS)) expect(res.headers.get(name), `${path} ${name}`).toBe(value);
    }
    const asset = await app.request('/ui/assets/index-abc.js');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await app.request('/ui/knowledge')).headers.get('cache-control')).toBe('no-cache');
  });

  it('says how to build the panel when there is no build', async () => {
    const res = await appOver(join(dir, 'missing')).request('/ui');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toContain('npm run build');
  });
});
