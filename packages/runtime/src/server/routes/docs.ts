/**
 * Interactive API documentation, served entirely from npm packages (swagger-ui-dist, redoc) so
 * it works offline and behind firewalls: no CDN is ever referenced.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context.js';
import { errorResponse } from '../errors.js';
import { publicOrigin } from '../public-origin.js';
import { PUBLIC, rawRoute, type RouteDefinition } from '../route.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/** The only files served from swagger-ui-dist: a fixed list, so no path ever reaches the disk. */
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/**
 * Redoc 2 credits itself in the sidebar with an image from its CDN. The served bundle points it
 * at an empty data: URL instead; the image then fails to decode and Redoc hides it.
 */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const withoutCdnLogo = (bytes: Uint8Array): Uint8Array =>
  new TextEncoder().encode(new TextDecoder().decode(bytes).replaceAll(REDOC_CDN_LOGO, 'data:,'));

const cache = new Map<string, Promise<Uint8Array>>();
function cachedFile(path: string, transform?: (bytes: Uint8Array) => Uint8Array): Promise<Uint8Array> {
  let hit = cache.get(path);
  if (!hit) {
    hit = transform ? readFile(path).then(transform) : readFile(path);
    hit.catch(() => cache.delete(path));
    cache.set(path, hit);
  }
  return hit;
}

async function sendFile(path: string, type: string, transform?: (bytes: Uint8Array) => Uint8Array): Promise<Response> {
  const bytes = await cachedFile(path, transform);
  return new Response(bytes, {
    headers: { 'content-type': type, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * The docs pages may load only what this runtime serves: a browser refuses anything else (a
 * CDN image, web fonts, a validator badge) instead of reaching out. Both UIs inject styles at
 * run time and draw some images as data: URLs; Redoc runs its search in a blob: worker.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
].join('; ');

function html(c: Context<AppEnv>, body: string): Response {
  return c.html(body, 200, { 'cache-control': 'no-cache', 'content-security-policy': DOCS_CSP });
}

function swaggerPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - API docs</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;
}

// Kept in a file rather than inline so a strict Content-Security-Policy can forbid inline scripts.
const SWAGGER_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  oauth2RedirectUrl: window.location.origin + '/docs/oauth2-redirect',
  // BaseLayout shows no validator badge, but a layout that did would send the document's URL
  // to validator.swagger.io by default.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout'
});
`;

function redocPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - API reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="/redoc/redoc.standalone.js"></script>
</body>
</html>`;
}

/** What this module needs to know of the generated document. */
interface OpenApiDocument {
  openapi: string;
  info: object;
}

/**
 * The document as JSON on either side of its `servers`, which depend on the request: built once,
 * so each request only joins three strings. `servers` follows `info`, where readers expect it.
 */
function aroundServers(doc: OpenApiDocument): (servers: unknown) => string {
  const { openapi, info, ...rest } = doc;
  const head = JSON.stringify({ openapi, info }).slice(0, -1);
  const tail = JSON.stringify(rest).slice(1);
  return (servers) => `${head},"servers":${JSON.stringify(servers)}${tail === '}' ? '' : ','}${tail}`;
}

export function docsRoutes(ctx: ServerContext, openApiDocument: () => OpenApiDocument): RouteDefinition[] {
  let withServers: ((servers: unknown) => string) | undefined;
  return [
    rawRoute(PUBLIC, 'GET', '/openapi.json', (c) => {
      withServers ??= aroundServers(openApiDocument());
      // Clients and "Try it out" call the runtime where it was reached, or at its configured public URL.
      return c.body(withServers([{ url: publicOrigin(ctx, c) }]), 200, { 'content-type': 'application/json' });
    }),
    rawRoute(PUBLIC, 'GET', '/docs', (c) => html(c, swaggerPage(ctx.name))),
    rawRoute(PUBLIC, 'GET', '/docs/oauth2-redirect', () =>
      sendFile(join(swaggerDir, 'oauth2-redirect.html'), 'text/html; charset=utf-8'),
    ),
    rawRoute(PUBLIC, 'GET', '/docs/oauth2-redirect.js', () =>
      sendFile(join(swaggerDir, 'oauth2-redirect.js'), 'text/javascript; charset=utf-8'),
    ),
    rawRoute(PUBLIC, 'GET', '/docs/assets/:file', (c) => {
      const file = c.req.param('file') ?? '';
      if (file === 'init.js') return c.body(SWAGGER_INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' });
      // An own property only: `constructor` or `__proto__` must not be found on the prototype.
      const type = Object.hasOwn(SWAGGER_ASSETS, file) ? SWAGGER_ASSETS[file] : undefined;
      if (!type) return errorResponse('NOT_FOUND', 'Not Found');
      return sendFile(join(swaggerDir, file), type);
    }),
    rawRoute(PUBLIC, 'GET', '/redoc', (c) => html(c, redocPage(ctx.name))),
    rawRoute(PUBLIC, 'GET', '/redoc/redoc.standalone.js', () => sendFile(redocBundle, 'text/javascript; charset=utf-8', withoutCdnLogo)),
  ];
}
