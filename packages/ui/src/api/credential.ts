/**
 * The credential the panel signs in with (security key, JWT or `svc_pat_` token). Kept in
 * sessionStorage only: it ends with the tab, is never put in a URL and never sent anywhere but
 * this runtime's API, in the Authorization header.
 */
const KEY = 'svc.credential';

export const credential = {
  get(): string | undefined {
    try {
      return sessionStorage.getItem(KEY) ?? undefined;
    } catch {
      return undefined;
    }
  },
  set(token: string): void {
    sessionStorage.setItem(KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};
