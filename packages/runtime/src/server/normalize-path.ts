/**
 * @module server/normalize-path
 * `/agents/` and `/agents` are the same route, answered directly rather than redirected, so
 * clients that add a slash (and POST bodies, which a redirect would drop) keep working.
 */
import { getPath } from 'hono/utils/url';

export function normalizedPath(request: Request): string {
  const path = getPath(request);
  if (path.length > 1 && path.endsWith('/')) return path.replace(/\/+$/, '') || '/';
  return path;
}
