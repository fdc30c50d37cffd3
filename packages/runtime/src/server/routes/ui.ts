/**
 * @module server/routes/ui
 * The control panel at `/ui`: the static build of `packages/ui`, shipped inside this package
 * (`ui-dist/`, beside `src/` and `dist/`), served from this process's own files so the panel
 * works offline and loads nothing from off the machine. Every path under `/ui` that names no
 * file is the single-page app's index (its router reads the path); a missing asset is a 404.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerContext } from '../context.js';
import { errorResponse } from '../errors.js';
import { PUBLIC, rawRoute, type RouteDefinition } from '../route.js';

/** `ui-dist/` resolves the same from `src/server/routes/` and `dist/server/routes/`. */
export const DEFAULT_UI_ROOT = fileURLToPath(new URL('../../../ui-dist/', import.meta.url));

/**
 * The panel's policy: its own scripts and styles only (the build has no inline script or
 * style), API calls to this origin, never framed (clickjacking an approval button), and no
 * Referer, so a link an agent wrote learns nothing of the panel's URLs.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const UI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface PanelFile {
  bytes: Uint8Array;
  type: string;
}

/** Every file of the build, read once: the panel is a few small files, and no request path ever reaches the disk. */
async function loadBuild(root: string): Promise<Map<string, PanelFile>> {
  const files = new Map<string, PanelFile>();
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const type = TYPES[extname(entry.name)];
    if (!type) continue;
    files.set(relative(root, path).split(sep).join('/'), { bytes: await readFile(path), type });
  }
  return files;
}

export function uiRoutes(_ctx: ServerContext, root: string = DEFAULT_UI_ROOT): RouteDefinition[] {
  let loaded: Promise<Map<string, PanelFile>> | undefined;
  const files = (): Promise<Map<string, PanelFile>> => {
    if (!loaded) {
      loaded = loadBuild(root);
      // A build made after the runtime started (or a missing one) is looked for again next time.
      loaded.catch(() => (loaded = undefined));
    }
    return loaded;
  };

  const serve = async (path: string): Promise<Response> => {
    let build: Map<string, PanelFile>;
    try {
      build = await files();
    } catch {
      return withHeaders(errorResponse('NOT_FOUND', 'The control panel is not built: run `npm run build` (it builds packages/ui into the runtime)'));
    }
    const file = build.get(path);
    if (file) {
      // Vite names assets by content hash: they never change, so a browser keeps them.
      const cache = path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return withHeaders(new Response(file.bytes, { headers: { 'content-type': file.type, 'cache-control': cache } }));
    }
    // A missing asset is a 404, not the app: a script tag must never receive HTML.
    if (path.startsWith('assets/') || extname(path) !== '') return withHeaders(errorResponse('NOT_FOUND', 'Not Found'));
    const index = build.get('index.html');
    if (!index) return withHeaders(errorResponse('NOT_FOUND', 'The control panel build has no index.html'));
    return withHeaders(new Response(index.bytes, { headers: { 'content-type': index.type, 'cache-control': 'no-cache' } }));
  };

  return [
    rawRoute(PUBLIC, 'GET', '/ui', () => serve('index.html')),
    rawRoute(PUBLIC, 'GET', '/ui/*', (c) => serve(c.req.path.slice('/ui/'.length))),
  ];
}

function withHeaders(response: Response): Response {
  for (const [name, value] of Object.entries(UI_HEADERS)) response.headers.set(name, value);
  return response;
}
