/**
 * @module settings/content-sources
 * The remote content sources area: `KNOWLEDGE_CONTENT_SOURCES`, for runtimes configured by
 * environment, holds a JSON array or the path of a JSON file holding one. This reads the text
 * and the JSON; what each entry says is checked by knowledge/remote-sources/registry, which
 * builds the sources. Secrets are never inline in an entry: it names the variable holding each
 * one (`secret_access_key_env: "DOCS_S3_SECRET"`), read here with `namedVariable`.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { text } from './fields.js';

export const CONTENT_SOURCES_VARIABLE = 'KNOWLEDGE_CONTENT_SOURCES';

export interface ContentSourcesSetting {
  /** The parsed JSON, not yet checked: registry.ts wants an array of entries. */
  entries: unknown;
  /** Where the entries came from, for messages: the variable, or the file it names. */
  origin: string;
}

export const contentSourcesSchema = z.object({ KNOWLEDGE_CONTENT_SOURCES: text() }).transform((env, ctx): ContentSourcesSetting | undefined => {
  const value = env.KNOWLEDGE_CONTENT_SOURCES;
  if (value === undefined) return undefined;
  // Messages name the file when the JSON came from one, so each is given whole.
  const refuse = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  let json = value;
  let origin = CONTENT_SOURCES_VARIABLE;
  if (!value.startsWith('[') && !value.startsWith('{')) {
    try {
      json = readFileSync(value, 'utf8');
    } catch (error) {
      return refuse(`${CONTENT_SOURCES_VARIABLE} is neither JSON nor a readable file (${(error as NodeJS.ErrnoException).code ?? 'error'} for ${value})`);
    }
    origin = value;
  }
  try {
    return { entries: JSON.parse(json) as unknown, origin };
  } catch (error) {
    return refuse(`${origin} is not valid JSON: ${(error as Error).message}`);
  }
});

/** The entries `KNOWLEDGE_CONTENT_SOURCES` holds; undefined when it is unset. */
export function readContentSourcesSetting(env: Readonly<Environment>): ContentSourcesSetting | undefined {
  return readEnvironment(contentSourcesSchema, env);
}

/** The variable an entry names for a secret, trimmed; undefined when unset or blank. */
export function namedVariable(env: Readonly<Environment>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}
