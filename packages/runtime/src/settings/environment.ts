/**
 * @module settings/environment
 * The one parse entry: an environment read against an area's zod schema, its first problem
 * thrown as a ConfigurationError naming the variable, so a bad value stops the start.
 */
import type { z } from 'zod';
import { ConfigurationError } from '../errors.js';

/** Variable name -> value, as `process.env` holds them. */
export type Environment = Record<string, string | undefined>;

/**
 * The typed settings `schema` reads from `env`. Areas name their parsed variables `env` too
 * (`env.PORT`), so a search for a variable's name finds where it is read. A field's message leaves its variable out (the
 * issue's path names it, so `PORT` + `must be a whole number ...`); a problem of the whole area
 * (two variables that do not go together) carries its full message.
 */
export function readEnvironment<T>(schema: z.ZodType<T>, env: Readonly<Environment>): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  // The first problem in the schema's order, as the hand-written readers threw it.
  const issue = result.error.issues[0]!;
  const variable = issue.path.map(String).join('.');
  throw new ConfigurationError(variable ? `${variable} ${issue.message}` : issue.message);
}
