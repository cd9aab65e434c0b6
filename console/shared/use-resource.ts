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
  // Each answer is kept with the key it was loaded for, so that the first render after a key change
  // already shows nothing of the previous key (no flash of stale rows under new filters).
  const [loaded, setLoaded] = useState<{ key: string; value: T } | undefined>(undefined);
  const [failed, setFailed] = useState<{ key: string; error: ApiError | Error } | undefined>(undefined);
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
        setLoaded({ key, value });
        setFailed(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (abort.signal.aborted) return;
        setFailed({ key, error: failure instanceof Error ? failure : new Error(String(failure)) });
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [key, tick]);

  useEffect(() => {
    if (!options.refreshMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, options.refreshMs);
    return () => clearInterval(timer);
  }, [options.refreshMs, reload]);

  const data = loaded?.key === key ? loaded.value : undefined;
  const error = failed?.key === key ? failed.error : undefined;
  const settled = loaded?.key === key || failed?.key === key;
  return { data, error, loading: loading || !settled, reload };
}
