/**
 * @module components/caller
 * Who a run acts for, as the things it uses see it: the authenticated principal's kind, user,
 * scopes and (for a JWT) its verified claims. `auth/` produces it; tool sources read it to
 * reach outside services with that caller's own credentials (an MCP server's `headers(ctx)`).
 * It never holds the caller's credential itself.
 */
export interface RunCaller {
  /** 'jwt', 'service_account', 'security_key' or 'anonymous'. */
  readonly kind: string;
  readonly userId: string | undefined;
  readonly scopes: readonly string[];
  /** The service account's name, for its tokens. */
  readonly serviceAccount?: string | undefined;
  /** The caller's tenant (auth/principal.ts), which budgets count its runs against. */
  readonly tenantId?: string | undefined;
  /** The verified claims of a JWT; absent for other credentials. */
  readonly claims?: Readonly<Record<string, unknown>> | undefined;
}
