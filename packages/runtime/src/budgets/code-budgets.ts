/**
 * @module budgets/code-budgets
 * The budgets written in the runtime's options (`budgets: [...]`), as the service reads them:
 * each with its id (`code-<n>`, counting from 1, when it has none), read-only through the API.
 */
import { ConfigurationError } from '../errors.js';
import { budgetDefinitionSchema, type Budget, type BudgetDefinition } from './types.js';

export function codeBudgets(definitions: readonly BudgetDefinition[]): Budget[] {
  const seen = new Set<string>();
  return definitions.map((definition, i) => {
    const parsed = budgetDefinitionSchema.safeParse(definition);
    if (!parsed.success) throw new ConfigurationError(`budgets[${i}]: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const b = parsed.data;
    const id = b.id ?? `code-${i + 1}`;
    if (seen.has(id)) throw new ConfigurationError(`budgets[${i}]: the id ${id} is used twice`);
    seen.add(id);
    return { id, scope: b.scope, subject: b.subject ?? null, metric: b.metric, window: b.window, limit: b.limit, source: 'code', created_at: null, updated_at: null };
  });
}
