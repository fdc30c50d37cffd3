/**
 * The signed-in state: the runtime's auth mode (`GET /info`, public), the caller
 * (`GET /auth/whoami` with the stored credential) and sign-in / sign-out. A credential the
 * runtime refuses later (revoked, expired) signs the panel out with the runtime's reason.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { api, onUnauthorized } from '../api/client';
import { messageOf, unwrap } from '../api/errors';
import type { components } from '../api/schema';
import { credential } from '../api/credential';
import type { Caller } from './scopes';

export type Info = components['schemas']['InfoResponse'];

export interface Session {
  info: Info | undefined;
  caller: Caller | undefined;
  /** Why the panel is signed out (a refused credential), or why it cannot start. */
  problem: string | undefined;
  loading: boolean;
  signIn(token: string): Promise<string | undefined>;
  signOut(reason?: string): void;
}

const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

async function whoami(): Promise<Caller> {
  return unwrap(api.GET('/auth/whoami'));
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [info, setInfo] = useState<Info>();
  const [caller, setCaller] = useState<Caller>();
  const [problem, setProblem] = useState<string>();
  const [loading, setLoading] = useState(true);

  const signOut = useCallback((reason?: string) => {
    credential.clear();
    setCaller(undefined);
    setProblem(reason);
  }, []);

  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const found = await unwrap(api.GET('/info'));
        if (!live) return;
        setInfo(found);
        // An open runtime needs no credential; otherwise only a stored one is tried.
        if (found.auth_mode === 'none' || credential.get()) setCaller(await whoami());
      } catch (error) {
        if (live) {
          if (credential.get()) credential.clear();
          setProblem(messageOf(error));
        }
      } finally {
        if (live) setLoading(false);
      }
    })();
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => onUnauthorized((detail) => signOut(`The runtime refused the credential: ${detail}. Sign in again.`)), [signOut]);

  const signIn = useCallback(async (token: string): Promise<string | undefined> => {
    credential.set(token.trim());
    try {
      setCaller(await whoami());
      setProblem(undefined);
      return undefined;
    } catch (error) {
      credential.clear();
      return messageOf(error);
    }
  }, []);

  const value = useMemo(() => ({ info, caller, problem, loading, signIn, signOut }), [info, caller, problem, loading, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
