import type { BackoffOptions } from './backoff.js';
import type { WorkerLogger } from './types.js';
import { defaultWorkerId } from './worker-id.js';

/** Settings of an {@link ExternalTaskWorker}; only `baseUrl` is required. */
export interface ExternalTaskWorkerOptions {
  /** The workflow service's root, e.g. `http://localhost:8080` (a trailing `/api/v1` is accepted). */
  baseUrl: string;
  /** How this worker names itself to the engine; default `hostname-pid-random`. */
  workerId?: string;
  /** An API key or JWT, sent as `Authorization: Bearer …`; never logged. */
  token?: string;
  /** The most tasks one fetch asks for; default 10. */
  maxTasks?: number;
  /** The most handlers running at once; default 5. A fetch asks for no more tasks than free slots. */
  concurrency?: number;
  /** How long a fetch waits on the engine for a task (long polling); default 30 000 ms, 0 turns it off. */
  asyncResponseTimeoutMs?: number;
  /** How long fetched tasks stay locked, unless the subscription says otherwise; default 60 000 ms. */
  lockDurationMs?: number;
  /** Extend the lock of a running handler each time half of it has passed; default true. */
  autoExtendLock?: boolean;
  /** After a fetch that brought no task, the next starts at least this long after it; default 1000 ms. */
  pollIntervalMs?: number;
  /** Backoff after failed fetches (and between attempts of a report); default 1 s doubling to 60 s. */
  backoff?: Partial<BackoffOptions>;
  /** Time limit of each request other than the long poll; default 30 000 ms. */
  requestTimeoutMs?: number;
  /** How long `stop()` waits for running handlers unless told otherwise; default 30 000 ms. */
  stopTimeoutMs?: number;
  /** Where to write what the worker does; nothing is written by default. */
  logger?: WorkerLogger;
  /**
   * Sends every request through this `fetch` (a proxy agent, a test double). By default the worker
   * keeps its own pool of connections to the engine (undici), which costs far less CPU per request.
   */
  fetch?: typeof globalThis.fetch;
}

/** The options with every default filled in. */
export type ResolvedWorkerOptions = Required<
  Omit<ExternalTaskWorkerOptions, 'token' | 'logger' | 'backoff' | 'fetch'>
> &
  Pick<ExternalTaskWorkerOptions, 'token' | 'logger' | 'fetch'> & { backoff: BackoffOptions };

/** Fills in the defaults and refuses impossible values with a RangeError naming the option. */
export function resolveWorkerOptions(options: ExternalTaskWorkerOptions): ResolvedWorkerOptions {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
    throw new RangeError('baseUrl must be an http(s) URL');
  }
  const resolved: ResolvedWorkerOptions = {
    baseUrl: options.baseUrl,
    workerId: options.workerId ?? defaultWorkerId(),
    token: options.token,
    maxTasks: whole('maxTasks', options.maxTasks ?? 10, 1),
    concurrency: whole('concurrency', options.concurrency ?? 5, 1),
    asyncResponseTimeoutMs: whole('asyncResponseTimeoutMs', options.asyncResponseTimeoutMs ?? 30_000, 0),
    lockDurationMs: whole('lockDurationMs', options.lockDurationMs ?? 60_000, 1),
    autoExtendLock: options.autoExtendLock ?? true,
    pollIntervalMs: whole('pollIntervalMs', options.pollIntervalMs ?? 1000, 0),
    backoff: {
      initialMs: whole('backoff.initialMs', options.backoff?.initialMs ?? 1000, 1),
      maxMs: whole('backoff.maxMs', options.backoff?.maxMs ?? 60_000, 1),
    },
    requestTimeoutMs: whole('requestTimeoutMs', options.requestTimeoutMs ?? 30_000, 1),
    stopTimeoutMs: whole('stopTimeoutMs', options.stopTimeoutMs ?? 30_000, 0),
    logger: options.logger,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  if (resolved.workerId === '') throw new RangeError('workerId must not be empty');
  return resolved;
}

/** Checks that a setting is a whole number of at least `min`; returns it. */
export function whole(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be a whole number ≥ ${min}`);
  return value;
}
