/**
 * @module budgets/budget-store
 * The budgets created through the API (`svc_budgets`); the ones written in code never touch it.
 */
import type { Db } from '../storage/db.js';
import { isUniqueViolation } from '../storage/sql-errors.js';
import type { Budget, BudgetMetric, BudgetScope, BudgetWindow } from './types.js';

interface Row {
  id: string;
  scope: string;
  subject: string | null;
  metric: string;
  period: string;
  limit_value: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'id, scope, subject, metric, period, limit_value, created_at, updated_at';

function toBudget(row: Row): Budget {
  return {
    id: row.id,
    scope: row.scope as BudgetScope,
    subject: row.subject,
    metric: row.metric as BudgetMetric,
    window: row.period as BudgetWindow,
    limit: Number(row.limit_value),
    source: 'api',
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

export type StoredFields = Pick<Budget, 'scope' | 'subject' | 'metric' | 'window' | 'limit'>;

export class BudgetStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<Budget[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_budgets ORDER BY created_at, id`)).map(toBudget);
  }

  async get(id: string): Promise<Budget | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_budgets WHERE id = $1`, [id]);
    return row ? toBudget(row) : undefined;
  }

  /** Stores a new budget; false when the id is taken. */
  async create(id: string, fields: StoredFields, nowSeconds: number): Promise<boolean> {
    try {
      await this.db.execute(`INSERT INTO svc_budgets (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`, [
        id,
        fields.scope,
        fields.subject,
        fields.metric,
        fields.window,
        fields.limit,
        nowSeconds,
      ]);
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Replaces a budget's fields; false when there is none with this id. */
  async update(id: string, fields: StoredFields, nowSeconds: number): Promise<boolean> {
    const changed = await this.db.execute(
      'UPDATE svc_budgets SET scope = $2, subject = $3, metric = $4, period = $5, limit_value = $6, updated_at = $7 WHERE id = $1',
      [id, fields.scope, fields.subject, fields.metric, fields.window, fields.limit, nowSeconds],
    );
    return changed > 0;
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.execute('DELETE FROM svc_budgets WHERE id = $1', [id])) > 0;
  }
}
