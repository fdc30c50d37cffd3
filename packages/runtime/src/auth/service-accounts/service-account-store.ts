/**
 * @module auth/service-accounts/service-account-store
 * Service accounts in the `Db`, written once for SQLite and PostgreSQL. After creation only
 * `last_used_at` and `revoked_at` ever change, and revocation is one-way.
 */
import { randomUUID } from 'node:crypto';
import { RuntimeError } from '../../errors.js';
import type { Db } from '../../storage/db.js';
import { isUniqueViolation } from '../../storage/sql-errors.js';
import type { ServiceAccount } from './types.js';

type Row = Record<string, unknown>;

const COLUMNS = 'id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, last_used_at, revoked_at, created_by, tenant_id';
export const SORTABLE = ['created_at', 'name', 'last_used_at', 'expires_at'] as const;
export type SortColumn = (typeof SORTABLE)[number];

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function parseScopes(value: unknown): string[] {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    // An unreadable row grants nothing rather than failing every request.
    return [];
  }
}

function toAccount(row: Row): ServiceAccount {
  return {
    id: String(row.id),
    name: String(row.name),
    user_id: (row.user_id as string | null) ?? null,
    token_hash: String(row.token_hash),
    token_prefix: String(row.token_prefix),
    scopes: parseScopes(row.scopes),
    created_at: Number(row.created_at),
    expires_at: nullableNumber(row.expires_at),
    last_used_at: nullableNumber(row.last_used_at),
    revoked_at: nullableNumber(row.revoked_at),
    created_by: (row.created_by as string | null) ?? null,
    tenant_id: (row.tenant_id as string | null) ?? null,
  };
}

function duplicate(name: string): RuntimeError {
  return new RuntimeError('CONFLICT', `An active service account named '${name}' already exists. Revoke it first to rotate.`);
}

export interface NewServiceAccount {
  name: string;
  userId: string | null;
  createdBy: string | null;
  tokenHash: string;
  tokenPrefix: string;
  scopes: readonly string[];
  createdAt: number;
  expiresAt: number | null;
  /** The minting tenant (auth/tenancy.ts); null: none. */
  tenantId?: string | null | undefined;
}

export interface ListQuery {
  includeRevoked: boolean;
  limit: number;
  page: number;
  sortBy: SortColumn;
  sortOrder: 'asc' | 'desc';
  /** Only this tenant's accounts (auth/tenancy.ts). */
  tenant?: string | undefined;
}

export class ServiceAccountStore {
  constructor(private readonly db: Db) {}

  async create(input: NewServiceAccount): Promise<ServiceAccount> {
    // The partial unique index is the real guard (it also settles races); this check gives the
    // common case a clean answer without relying on driver error codes.
    const active = await this.db.query<Row>('SELECT id FROM svc_service_accounts WHERE name = $1 AND revoked_at IS NULL', [input.name]);
    if (active.length > 0) throw duplicate(input.name);
    const id = randomUUID();
    try {
      await this.db.execute(
        `INSERT INTO svc_service_accounts (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, $9, $10)`,
        [id, input.name, input.userId, input.tokenHash, input.tokenPrefix, JSON.stringify(input.scopes), input.createdAt, input.expiresAt, input.createdBy, input.tenantId ?? null],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(input.name);
      throw error;
    }
    return (await this.get(id))!;
  }

  async get(id: string): Promise<ServiceAccount | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_service_accounts WHERE id = $1`, [id]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async findByTokenHash(hash: string): Promise<ServiceAccount | undefined> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_service_accounts WHERE token_hash = $1`, [hash]);
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  async list(query: ListQuery): Promise<{ data: ServiceAccount[]; total: number }> {
    const tenant = query.tenant !== undefined ? [query.tenant] : [];
    /** The WHERE with the tenant (when confined) as parameter `at`. */
    const filterAt = (at: number): string => {
      const where = [...(query.includeRevoked ? [] : ['revoked_at IS NULL']), ...tenant.map(() => `tenant_id = $${at}`)];
      return where.length ? `WHERE ${where.join(' AND ')}` : '';
    };
    const total = await this.db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM svc_service_accounts ${filterAt(1)}`, tenant);
    const filter = filterAt(3);
    const params = [query.limit, (query.page - 1) * query.limit, ...tenant];
    // sort_by comes from a closed list, so it is safe in the SQL text. NULLs sort last either way.
    const direction = query.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const order = `CASE WHEN ${query.sortBy} IS NULL THEN 1 ELSE 0 END, ${query.sortBy} ${direction}, id ASC`;
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM svc_service_accounts ${filter} ORDER BY ${order} LIMIT $1 OFFSET $2`, params);
    return { data: rows.map(toAccount), total: Number(total[0]?.n ?? 0) };
  }

  /** Sets `revoked_at` once; a second revocation changes nothing. */
  async revoke(id: string, nowSeconds: number): Promise<ServiceAccount | undefined> {
    await this.db.execute('UPDATE svc_service_accounts SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [nowSeconds, id]);
    return this.get(id);
  }

  async touch(id: string, nowSeconds: number): Promise<void> {
    await this.db.execute('UPDATE svc_service_accounts SET last_used_at = $1 WHERE id = $2', [nowSeconds, id]);
  }
}
