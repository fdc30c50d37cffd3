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
