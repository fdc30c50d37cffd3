/**
 * One piece of hostile content and what must become of it. A case is sent the way a user would
 * send it (a multipart upload, a JSON text body, or a URL the runtime fetches) and ends in a
 * record whose status and message the suite checks; the generators make its bytes in code.
 */
export type HostileClass = 'zip bomb' | 'XML bomb' | 'image bomb' | 'PDF bomb' | 'deep nesting' | 'huge flat' | 'million rows' | 'SSRF';

export type Submission =
  | { kind: 'file'; name: string; bytes: () => Uint8Array | Promise<Uint8Array> }
  | { kind: 'text'; name: string; text: () => string; reader?: string }
  | { kind: 'url'; url: (pages: PageOrigins) => string; reader?: string };

/** Where the suite's page server answers: by the name the runtime may fetch, and by address. */
export interface PageOrigins {
  /** http://pages.hostile.test:<port>, resolved to loopback and allowed internal addresses. */
  allowed: string;
  port: number;
}

export interface Outcome {
  status: 'completed' | 'failed';
  /** What the record's status message must say: for a failure, the limit and its setting; `/^$/` for none. */
  message: RegExp;
}

export interface HostileCase {
  name: string;
  class: HostileClass;
  send: Submission;
  expect: Outcome;
  /** Paths of the page server that must never be asked for (a refused address leading there). */
  neverFetched?: readonly string[];
}
