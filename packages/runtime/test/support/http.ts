/**
 * Small fetch helpers for end-to-end tests: a request with an optional bearer, answering status,
 * headers and parsed JSON body in one object.
 */
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; authorization?: string; body?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON; keep the text.
  }
  return { status: res.status, headers: res.headers, body };
}
