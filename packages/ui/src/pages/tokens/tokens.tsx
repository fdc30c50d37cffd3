/**
 * Service-account tokens: every account (revoked ones too), minting one (its token is shown
 * once, with a copy button: the runtime keeps only a hash), and revoking one after a
 * confirmation. Needs the service_accounts scopes; what the caller lacks is left out.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import type { components } from '../../api/schema';
import { can } from '../../auth/scopes';
import { useSession } from '../../auth/session';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorText } from '../../components/error-text';
import { useAsync } from '../../components/use-async';
import { MintForm } from './mint-form';

type Account = components['schemas']['ServiceAccount'];

const date = (epoch: number | null): string => (epoch === null ? '' : new Date(epoch * 1000).toISOString().slice(0, 10));

export function Tokens() {
  const { caller } = useSession();
  const [revoking, setRevoking] = useState<Account>();
  const [error, setError] = useState<string>();
  const accounts = useAsync(
    () => unwrap(api.GET('/service-accounts', { params: { query: { include_revoked: 'true', limit: 100, sort_by: 'created_at', sort_order: 'desc' } } })),
    [],
  );

  const revoke = async (account: Account) => {
    setRevoking(undefined);
    setError(undefined);
    try {
      await unwrap(api.DELETE('/service-accounts/{service_account_id}', { params: { path: { service_account_id: account.id } } }));
      accounts.reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <main class="page" id="main">
      <h1>Tokens</h1>
      <p>
        Service accounts hold <code>svc_pat_</code> tokens for scripts, CI and MCP clients. A token is shown once, when it is
        minted; revoking an account stops its token on its next request.
      </p>
      {can(caller, 'service_accounts:write') ? <MintForm onMinted={accounts.reload} /> : <p class="muted">Minting needs the service_accounts:write scope.</p>}
      <h2>Accounts</h2>
      <ErrorText message={accounts.error ?? error} />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Token</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {(accounts.data?.data ?? []).map((account) => (
            <tr key={account.id} data-testid="account">
              <td>{account.name}</td>
              <td>
                <code>{account.token_prefix}…</code>
              </td>
              <td>{account.scopes.join(', ')}</td>
              <td>{date(account.created_at)}</td>
              <td>{account.expires_at === null ? 'never' : date(account.expires_at)}</td>
              <td>{date(account.last_used_at) || 'never'}</td>
              <td>
                {account.revoked_at !== null ? (
                  <span class="badge failed">revoked {date(account.revoked_at)}</span>
                ) : can(caller, 'service_accounts:delete') ? (
                  <button type="button" class="secondary" aria-label={`Revoke ${account.name}`} onClick={() => setRevoking(account)}>
                    Revoke
                  </button>
                ) : (
                  <span class="badge completed">active</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke"
        onConfirm={() => revoking && void revoke(revoking)}
        onCancel={() => setRevoking(undefined)}
      >
        <p>Its token stops working on its next request, everywhere. This cannot be undone.</p>
      </ConfirmDialog>
    </main>
  );
}
