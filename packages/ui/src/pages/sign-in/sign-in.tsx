/**
 * Sign-in with what this runtime accepts (its auth mode, from `GET /info`): the security key,
 * a JWT or a `svc_pat_` token, pasted once. The credential is checked by `GET /auth/whoami`
 * and then kept in this tab's sessionStorage only.
 */
import { useState } from 'preact/hooks';
import { useSession } from '../../auth/session';
import { ErrorText } from '../../components/error-text';

const ACCEPTS: Record<string, string> = {
  security_key: 'the security key (OS_SECURITY_KEY) or a svc_pat_ service-account token',
  jwt: 'a JWT from your identity provider or a svc_pat_ service-account token',
};

export function SignIn() {
  const { info, problem, signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const accepts = ACCEPTS[info?.auth_mode ?? ''] ?? 'a credential';

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!token.trim()) return setError('Paste a credential first.');
    setBusy(true);
    setError(await signIn(token));
    setBusy(false);
  };

  return (
    <main class="sign-in" id="main">
      <h1>Sign in to {info?.name ?? 'the runtime'}</h1>
      <p>
        This runtime requires authentication. Paste {accepts}. It is kept in this browser tab only (sessionStorage) and sent
        to this runtime's API alone.
      </p>
      <ErrorText message={error ?? problem} />
      <form onSubmit={submit}>
        <label for="credential">Credential</label>
        <input
          id="credential"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
