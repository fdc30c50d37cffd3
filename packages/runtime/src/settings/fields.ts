/**
 * @module settings/fields
 * The shared zod fields an area's schema is made of, each over one variable's raw text: text,
 * a whole number in a range, seconds kept as ms, a comma list, on/off, one of a few words, an
 * http(s) base URL. A blank value counts as unset. Messages leave the variable's name out:
 * settings/environment puts it in front.
 */
import { z } from 'zod';

/** A field over one variable: its raw text (or undefined) in, the typed value out. */
export type Field<T> = z.ZodType<T, string | undefined>;

const variable = () => z.string().optional();

/** The trimmed value, undefined when unset or blank. */
function trimmed(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/** Text, trimmed; `fallback` (or undefined) when unset. */
export function text(): Field<string | undefined>;
export function text(fallback: string): Field<string>;
export function text(fallback?: string): Field<string | undefined> {
  return variable().transform((value) => trimmed(value) ?? fallback);
}

export interface WholeNumberRange {
  min: number;
  /** None: any number from `min` up. */
  max?: number;
  /**
   * A function when the default depends on the machine (the number of cores); none: the field
   * is undefined when unset (the default is decided further on, as for the embedding limits).
   */
  default?: number | (() => number);
  /**
   * Says "between 1 and max" rather than "from 1 to max": the server area's messages were
   * written that way and start scripts may match them.
   */
  between?: boolean;
}

function rangeText(range: WholeNumberRange): string {
  if (range.max === undefined) return `of at least ${range.min}`;
  return range.between ? `between ${range.min} and ${range.max}` : `from ${range.min} to ${range.max}`;
}

/** Digits only, from `min` to `max`: no sign, fraction or exponent. */
export function wholeNumber(range: WholeNumberRange & Required<Pick<WholeNumberRange, 'default'>>): Field<number>;
export function wholeNumber(range: Omit<WholeNumberRange, 'default'>): Field<number | undefined>;
export function wholeNumber(range: WholeNumberRange): Field<number | undefined> {
  return variable().transform((value, ctx) => {
    const raw = trimmed(value);
    if (raw === undefined) return typeof range.default === 'function' ? range.default() : range.default;
    const n = Number(raw);
    if (/^\d+$/.test(raw) && n >= range.min && (range.max === undefined || n <= range.max)) return n;
    ctx.addIssue({ code: 'custom', message: `must be a whole number ${rangeText(range)}, got "${raw}"` });
    return z.NEVER;
  });
}

/** A whole number of seconds (range and default in seconds), handed on in ms. */
export function seconds(range: WholeNumberRange & Required<Pick<WholeNumberRange, 'default'>>): Field<number> {
  return wholeNumber(range).transform((s) => s * 1000);
}

/** Comma-separated, each item trimmed, empty ones dropped; `fallback` when unset. */
export function list(fallback: readonly string[] = []): Field<string[]> {
  return variable().transform((value) => {
    const raw = trimmed(value);
    if (raw === undefined) return [...fallback];
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  });
}

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/** true/false (or 1/0, yes/no, on/off, any case); anything else is refused. */
export function flag(fallback: boolean): Field<boolean> {
  return variable().transform((value, ctx) => {
    const raw = trimmed(value)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (YES.includes(raw)) return true;
    if (NO.includes(raw)) return false;
    ctx.addIssue({ code: 'custom', message: `must be true or false, got "${raw}"` });
    return z.NEVER;
  });
}

/**
 * On for 1, true, yes or on (any case), off for anything else, never refused: the auth
 * switches have always read this way, and refusing `AUTHORIZATION_ENABLED=enabled` now would
 * stop runtimes that start today.
 */
export function switchedOn(): Field<boolean> {
  return variable().transform((value) => value !== undefined && YES.includes(value.trim().toLowerCase()));
}

/**
 * The other way round, for a protection that is on by default (USER_ISOLATION): off only for
 * 0, false, no or off (any case), on for anything else, never refused, so a misspelt opt-out
 * leaves the protection on rather than stopping the start or quietly dropping it.
 */
export function switchedOff(): Field<boolean> {
  return variable().transform((value) => value === undefined || value.trim() === '' || !NO.includes(value.trim().toLowerCase()));
}

export interface OneOfOptions {
  /** Compares (and reports) the value lowercased. */
  lowercase?: boolean;
  /**
   * How the refusal lists the words: `'list'` (the default) says `must be a, b or c, got "x"`;
   * `'one of'` says `must be one of a, b, c (got "x")`, the wording MODEL_PROVIDER's message
   * has always had (start scripts may match it).
   */
  wording?: 'list' | 'one of';
}

/** `a`, `a or b`, `a, b or c`. */
function listed(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** One of `words`, spelt exactly unless `lowercase`; blank or unset: undefined. */
export function oneOf<const W extends string>(words: readonly W[], options: OneOfOptions = {}): Field<W | undefined> {
  return variable().transform((value, ctx) => {
    const raw = options.lowercase ? trimmed(value)?.toLowerCase() : trimmed(value);
    if (raw === undefined) return undefined;
    if ((words as readonly string[]).includes(raw)) return raw as W;
    const message = options.wording === 'one of' ? `must be one of ${words.join(', ')} (got "${raw}")` : `must be ${listed(words)}, got "${raw}"`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/** Text matching `pattern`, described in the message as `description` ("an ISO-639-1 code"). */
export function matching(pattern: RegExp, description: string): Field<string | undefined> {
  return variable().transform((value, ctx) => {
    const raw = trimmed(value);
    if (raw === undefined || pattern.test(raw)) return raw;
    ctx.addIssue({ code: 'custom', message: `must be ${description}, got "${raw}"` });
    return z.NEVER;
  });
}

/**
 * An http(s) base URL without credentials, query or fragment, trailing slashes dropped. A
 * password in a URL ends up in logs and error messages, so `keyHint` says where the key goes.
 */
export function httpBaseUrl(keyHint: string): Field<string | undefined>;
export function httpBaseUrl(keyHint: string, fallback: string): Field<string>;
export function httpBaseUrl(keyHint: string, fallback?: string): Field<string | undefined> {
  return variable().transform((value, ctx) => {
    const raw = trimmed(value);
    if (raw === undefined) return fallback;
    const refuse = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refuse(`must be an http(s) URL, got "${raw}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(`must be an http(s) URL, got "${raw}"`);
    if (url.username || url.password) return refuse(`must not contain credentials; ${keyHint}`);
    if (url.search || url.hash) return refuse('must be a base URL without query or fragment');
    return url.href.replace(/\/+$/, '');
  });
}
