import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from './api.js';

/** What useResource holds: the data, the error of the last load, and whether a load is under way. */
export interface Resource<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load()` when `key` changes, and again every `refreshMs` while the page is visible (the
 * console's lists and open instance refresh by themselves). A refresh keeps the data on screen.
 */
export function useResource<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  options: { refreshMs?: number } = {},
): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  const reload = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    loader.current(abort.signal).then(
      (value) => {
        if (abort.signal.aborted) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setError(failure instanceof Error ? failure : new Error(String(failure)));
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [key, tick]);

  useEffect(() => {
    setData(undefined);
  }, [key]);

  useEffect(() => {
    if (!options.refreshMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, options.refreshMs);
    return () => clearInterval(timer);
  }, [options.refreshMs, reload]);

  return { data, error, loading, reload };
}
