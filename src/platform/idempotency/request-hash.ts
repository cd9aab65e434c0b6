import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  return value;
}

/**
 * Hash of a write request that an Idempotency-Key is bound to: method, path, body (keys sorted)
 * and `caller`, what the request was decided under (records: the caller's access, see
 * `records/http/idempotency-header.ts`), so that a stored response is replayed only to a request
 * that would be decided the same way.
 */
export function requestHash(method: string, path: string, body: unknown, caller: unknown = null): string {
  return createHash('sha256')
    .update(
      `${method} ${path}\n${JSON.stringify(canonical(body ?? null))}\n${JSON.stringify(canonical(caller))}`,
    )
    .digest('hex');
}
