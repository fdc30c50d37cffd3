/**
 * @module auth/challenge
 * The `WWW-Authenticate` value of a 401 (RFC 6750 §3, RFC 9728 §5.1). A client that sent no
 * credential learns only the scheme and realm (§3.1: no error code); a client whose token was
 * refused gets `error="invalid_token"` and a short reason, so it reports "bad token" rather
 * than starting a sign-in it cannot complete.
 */

export interface Challenge {
  realm: string;
  /** Set when a credential was sent and refused; absent when none was sent. */
  invalidToken?: { description: string } | undefined;
  /** RFC 9728: where an OAuth client finds the protected-resource metadata. */
  resourceMetadata?: string | undefined;
}

const MAX_PARAM_LENGTH = 200;

/**
 * Text safe inside an auth-param quoted-string: RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in
 * `error_description`, i.e. printable ASCII without `"` and `\`. Anything else is dropped.
 */
export function quotable(text: string, fallback: string): string {
  const cleaned = text
    .replace(/[^\x20-\x7e]|["\\]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim()
    .slice(0, MAX_PARAM_LENGTH)
    .trim();
  return cleaned === '' ? fallback : cleaned;
}

/** The realm for a runtime: its name, reduced to what a quoted-string may hold. */
export function realmFor(name: string): string {
  return quotable(name, 'runtime');
}

export function bearerChallenge(challenge: Challenge): string {
  const params = [`realm="${quotable(challenge.realm, 'runtime')}"`];
  if (challenge.invalidToken) {
    params.push('error="invalid_token"', `error_description="${quotable(challenge.invalidToken.description, 'Invalid token')}"`);
  }
  // A serialized URL holds no `"` or `\`; quotable() only guards against a malformed one.
  const metadata = challenge.resourceMetadata && quotable(challenge.resourceMetadata, '');
  if (metadata) params.push(`resource_metadata="${metadata}"`);
  return `Bearer ${params.join(', ')}`;
}
