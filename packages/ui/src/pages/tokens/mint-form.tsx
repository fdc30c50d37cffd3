/**
 * Minting a token: a name, its scopes (the CLI's defaults to start with), an expiry, and the
 * explicit consent the runtime asks for privileged scopes. The plaintext token is shown once.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api/client';
import { messageOf, unwrap } from '../../api/errors';
import { CopyButton } from '../../components/copy-button';
import { ErrorText } from '../../components/error-text';

const DEFAULT_SCOPES = 'agents:run\nteams:run\nworkflows:run\nsessions:read\nconfig:read';

export function MintForm({ onMinted }: { onMinted(): void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState(DEFAULT_SCOPES);
  const [days, setDays] = useState('90');
  const [privileged, setPrivileged] = useState(false);
  const [minted, setMinted] = useState<{ name: string; token: string }>();
  const [error, setError] = useState<string>();

  const mint = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMinted(undefined);
    const list = scopes
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((scope) => ({ scope, effect: 'allow' as const }));
    const never = days.trim() === '' || days.trim() === 'never';
    try {
      const created = await unwrap(
        api.POST('/service-accounts', {
          body: { name: name.trim(), scopes: list, never_expires: never, ...(never ? {} : { expires_in_days: Number(days) }), allow_privileged_scopes: privileged },
        }),
      );
      setMinted({ name: created.name, token: created.token });
      setName('');
      onMinted();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };

  return (
    <section aria-labelledby="mint-heading" class="card">
      <h2 id="mint-heading">Mint a token</h2>
      <form onSubmit={mint}>
        <div class="row">
          <div class="field">
            <label for="mint-name">Name</label>
            <input id="mint-name" required pattern="[a-z0-9][a-z0-9_-]{0,62}" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="mint-days">Expires after (days, or never)</label>
            <input id="mint-days" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          </div>
        </div>
        <div class="field">
          <label for="mint-scopes">Scopes (one per line)</label>
          <textarea id="mint-scopes" class="mono" value={scopes} onInput={(e) => setScopes(e.currentTarget.value)} />
        </div>
        <label>
          <input type="checkbox" checked={privileged} onChange={(e) => setPrivileged(e.currentTarget.checked)} /> Allow privileged scopes (write,
          delete, admin, service_accounts)
        </label>
        <div class="actions">
          <button type="submit">Mint</button>
        </div>
      </form>
      <ErrorText message={error} />
      {minted ? (
        <div class="minted" role="status">
          <p>
            <strong>Token for {minted.name}</strong>: copy it now, it is not shown again.
          </p>
          <p class="copyable">
            <code data-testid="minted-token">{minted.token}</code>
            <CopyButton text={minted.token} label={`Copy the token for ${minted.name}`} />
          </p>
          <button type="button" class="secondary" onClick={() => setMinted(undefined)}>
            I have stored it
          </button>
        </div>
      ) : null}
    </section>
  );
}
