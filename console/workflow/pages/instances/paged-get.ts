import { api } from '../../session.js';

/** One page of a list API: its items, `X-Total-Count` (if sent) and `X-Next-Cursor` (if more). */
export interface ListPage<T> {
  items: T[];
  total: number | null;
  nextCursor: string | null;
}

/** GETs a list with its paging headers (errors and 401 as every ApiClient call). */
export async function getPage<T>(path: string, signal: AbortSignal): Promise<ListPage<T>> {
  const { data, headers } = await api.request<T[]>('GET', path, { signal });
  const total = headers.get('x-total-count');
  return {
    items: data,
    total: total === null ? null : Number(total),
    nextCursor: headers.get('x-next-cursor'),
  };
}
