/**
 * @module knowledge/remote-sources/github-rest
 * GitHub's REST API as the GitHub adapter reads it, apart from the class.
 *
 * The names it accepts (a repository "owner/name", a branch as git allows a ref, an object sha),
 * the git tree entries it lists, the message of an error body, and when an answer is throttling
 * (a 403 or 429 with `x-ratelimit-remaining: 0` or a Retry-After) and how long until the limit
 * resets (`x-ratelimit-reset`).
 */
import type { FetchedResource } from '../../net/safe-fetch.js';
import { jsonOf } from './http.js';

export const REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
export const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export interface TreeEntry {
  path: string;
  type: 'blob' | 'tree' | 'commit';
  mode: string;
  sha: string;
  size?: number;
}

export interface Tree {
  sha: string;
  entries: TreeEntry[];
  truncated: boolean;
}

/** `Not Found`, `API rate limit exceeded for ...` from GitHub's error body. */
export function githubErrorText(response: FetchedResource): string | undefined {
  const body = jsonOf(response) as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : undefined;
}

export function rateLimited(response: FetchedResource): boolean {
  return (response.status === 403 || response.status === 429) && (response.headers['x-ratelimit-remaining'] === '0' || response.headers['retry-after'] !== undefined);
}

export function resetDelay(response: FetchedResource): number | undefined {
  const reset = Number(response.headers['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : undefined;
}

/** Why git would refuse a branch name, or undefined. */
export function branchProblem(branch: string): string | undefined {
  if (branch.length === 0 || branch.length > 255) return 'must be 1-255 characters';
  if ([...branch].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) || /[\s~^:?*[\\]/.test(branch)) return 'has a character git refuses in a ref';
  if (branch.includes('..') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.lock') || branch.startsWith('-')) return 'is not a valid ref name';
  return undefined;
}
