/**
 * @module net/redact
 * The one way secrets are cut out of text that may leave the process (error messages, log
 * lines, content records): each secret of 4 characters or more becomes `[redacted]`, and so does
 * its URL-encoded form, since a key sent in a query string comes back quoted that way.
 * Shorter values are left alone: cutting every "ab" out of a message would destroy it and
 * protect nothing.
 */

const MIN_SECRET_LENGTH = 4;
const MARK = '[redacted]';

export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    out = out.split(secret).join(MARK);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(MARK);
  }
  return out;
}

/** Field names whose values are credentials wherever they appear (headers, tool arguments, settings). */
const CREDENTIAL_KEY = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|client[-_]?secret|password|passwd|credentials?)$/i;
/** A credential written into text: an Authorization header's value, a bearer token, one of our service-account tokens. */
const CREDENTIAL_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}|\bsvc_pat_[A-Za-z0-9]{8,}/g;

/**
 * A JSON value with its credentials cut out, for records kept about what a run did: the value
 * of every credential-named field (at any depth) becomes `[redacted]`, and so does a bearer or
 * basic credential or a service-account token inside any text, and credential fields of JSON
 * written as text (a model's tool-call arguments). Values it does not change are returned as
 * they are (no copy).
 */
export function redactCredentials(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, depth);
  if (typeof value !== 'object' || value === null || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactCredentials(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = CREDENTIAL_KEY.test(key) && v !== null && v !== undefined ? MARK : redactCredentials(v, depth + 1);
  return out;
}

/** JSON text this long or longer is not parsed to look for credential fields (its bearer values still are cut). */
const MAX_JSON_TEXT = 1024 * 1024;

function redactText(text: string, depth: number): string {
  const first = text.trimStart()[0];
  if ((first === '{' || first === '[') && text.length < MAX_JSON_TEXT) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      const redacted = JSON.stringify(redactCredentials(parsed, depth + 1));
      if (redacted !== JSON.stringify(parsed)) return redacted;
    }
  }
  // replace() with a global pattern starts from 0 each call; test() would carry lastIndex over.
  return text.replace(CREDENTIAL_TEXT, (_m, scheme?: string) => (scheme ? `${scheme} ${MARK}` : MARK));
}
