import { ApiError } from '../../../shared/api.js';
import { session } from '../../session.js';

/** One page of a list API: its items, `X-Total-Count` (if sent) and `X-Next-Cursor` (if more). */
export interface ListPage<T> {
  items: T[];
  total: number | null;
  nextCursor: string | null;
}

/**
 * GETs a list with its paging headers, which ApiClient does not return. Errors and 401 behave as
 * ApiClient's: the API's message as an ApiError, and a 401 returns to the login form.
 */
export async function getPage<T>(path: string, signal: AbortSignal): Promise<ListPage<T>> {
  const response = await fetch(path, {
    headers: { accept: 'application/json', ...session.credentials.get()?.header() },
    signal,
  });
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) {
    if (response.status === 401) {
      session.expired.set(true);
      session.credentials.set(null);
    }
    const record = (body ?? {}) as { message?: string; code?: string; details?: unknown };
    throw new ApiError(
      response.status,
      record.code ?? String(response.status),
      record.message ?? `HTTP ${response.status}`,
      record.details,
    );
  }
  const total = response.headers.get('x-total-count');
  return {
    items: body as T[],
    total: total === null ? null : Number(total),
    nextCursor: response.headers.get('x-next-cursor'),
  };
}
