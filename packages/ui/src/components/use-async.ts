/**
 * Loads something and keeps it with its failure: the pattern every page repeats. `reload`
 * fetches again (after an upload, a delete); a stale answer never overwrites a newer one.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api/errors';

export interface AsyncState<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  // The loader changes with its dependencies, which the caller lists.
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    run().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== generation.current) return;
        setError(messageOf(failure));
        setLoading(false);
      },
    );
  }, [run]);
  useEffect(() => {
    reload();
    return () => {
      generation.current++;
    };
  }, [reload]);
  return { data, error, loading, reload };
}
