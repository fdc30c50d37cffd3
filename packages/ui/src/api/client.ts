/**
 * The one HTTP client of the panel: openapi-fetch over the types generated from the runtime's
 * OpenAPI document (schema.d.ts), so a path, a parameter or a body the runtime does not
 * accept fails the type-check. Every request carries the signed-in credential, read from
 * sessionStorage at the moment it is sent; the panel calls only this origin's public API.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { credential } from './credential';
import type { paths } from './schema';

/** Told when the runtime refuses the credential (401), so the panel can ask for another. */
type Listener = (detail: string) => void;
const unauthorizedListeners = new Set<Listener>();

export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function authHeaders(): Record<string, string> {
  const token = credential.get();
  return token ? { authorization: `Bearer ${token}` } : {};
}

const auth: Middleware = {
  onRequest({ request }) {
    const token = credential.get();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  async onResponse({ response }) {
    if (response.status === 401 && credential.get()) {
      const detail = await response
        .clone()
        .json()
        .then((body: { detail?: unknown }) => (typeof body.detail === 'string' ? body.detail : 'refused'))
        .catch(() => 'refused');
      for (const listener of unauthorizedListeners) listener(detail);
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '' });
api.use(auth);
