/**
 * The MCP entry name derived from the runtime's display name ("Customer Support" ->
 * "customer-support"), falling back to `agentos`. The result only ever holds [A-Za-z0-9_-],
 * which every client's config format accepts as a key.
 */
export const FALLBACK_SERVER_NAME = 'agentos';
/**
 * The one entry name older versions of svc wrote for every runtime. Connect renames such an
 * entry to the runtime's own name; disconnect removes it when it points at the runtime.
 */
export const LEGACY_SERVER_NAME = 'svc';
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

export function deriveServerName(name: string | null | undefined): string {
  if (!name) return FALLBACK_SERVER_NAME;
  let slug = '';
  for (const ch of name.toLowerCase()) {
    if (ch === ' ' || ch === '.') slug += '-';
    else if (/[A-Za-z0-9_-]/.test(ch)) slug += ch;
  }
  slug = slug.replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '');
  return slug === '' ? FALLBACK_SERVER_NAME : slug;
}
