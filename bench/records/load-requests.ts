import autocannon from 'autocannon';
import { toLoadResult, type LoadResult } from '../support/load.js';

/** One request of a scenario: built per request so bodies and ids can vary. */
export interface RequestShape {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: string;
}

/** Runs autocannon where each request is made by `next()`, after a warm-up run (`warmupSeconds`, default 2; 0 for none). */
export async function loadRequests(
  base: string,
  next: () => RequestShape,
  options: { connections: number; seconds: number; headers: Record<string, string>; warmupSeconds?: number },
): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url: base,
      connections: options.connections,
      duration,
      headers: { ...options.headers, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            const shape = next();
            return {
              ...request,
              method: shape.method,
              path: shape.path,
              ...(shape.body ? { body: shape.body } : {}),
            };
          },
        },
      ],
    });
  const warmup = options.warmupSeconds ?? 2;
  if (warmup > 0) await run(warmup);
  return toLoadResult(await run(options.seconds));
}
