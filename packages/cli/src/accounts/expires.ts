/**
 * `--expires`: a number of days ("90", "90d") or "never". Only ASCII digits count, so odd
 * Unicode digits cannot sneak through.
 */
export type Expiry = { neverExpires: true } | { neverExpires: false; days: number };

export const DEFAULT_EXPIRES = '90d';

/** The parsed value, or undefined when the text is not a valid lifetime. */
export function parseExpires(value: string): Expiry | undefined {
  const text = value.trim().toLowerCase();
  if (text === 'never') return { neverExpires: true };
  const digits = text.endsWith('d') ? text.slice(0, -1) : text;
  if (!/^[0-9]+$/.test(digits)) return undefined;
  const days = Number.parseInt(digits, 10);
  return days >= 1 ? { neverExpires: false, days } : undefined;
}
