import { ExternalTaskApiError, ExternalTaskNetworkError } from './errors.js';
import type { ExternalTask, Variables } from './types.js';
import type { Transport, TransportAnswer, TransportMethod } from './transport.js';
import { taskFromWire } from './wire-task.js';

/** How the API client reaches the engine. */
export interface ApiClientOptions {
  /** Sends to the workflow service's root (see {@link serviceRoot}). */
  transport: Transport;
  workerId: string;
  /** Sent as `Authorization: Bearer …` when set (an API key or JWT). */
  token?: string;
  /** Time limit of every request but the long poll, which gets its own. */
  requestTimeoutMs: number;
}

/** One fetch-and-lock request. */
export interface FetchAndLockRequest {
  maxTasks: number;
  topics: { topicName: string; lockDurationMs: number }[];
  /** Long-poll this long when no task is ready; 0 answers at once. */
  asyncResponseTimeoutMs: number;
  /** Aborts the request, e.g. when the worker stops. */
  signal?: AbortSignal;
}

// Time the engine gets, beyond the long poll itself, to answer before the client gives up.
const LONG_POLL_GRACE_MS = 10_000;

/**
 * The external-task endpoints of the workflow service, one method each, in the engine's wire format.
 * Non-2xx answers throw {@link ExternalTaskApiError}; no answer throws {@link ExternalTaskNetworkError}.
 */
export class ExternalTaskApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  /** Fetches and locks up to `maxTasks` tasks of the topics. */
  async fetchAndLock(request: FetchAndLockRequest): Promise<ExternalTask[]> {
    const body = {
      worker_id: this.options.workerId,
      max_tasks: request.maxTasks,
      topics: request.topics.map((topic) => ({
        topic_name: topic.topicName,
        lock_duration_ms: topic.lockDurationMs,
      })),
      ...(request.asyncResponseTimeoutMs > 0
        ? { async_response_timeout_ms: request.asyncResponseTimeoutMs }
        : {}),
    };
    const answer = await this.#send('POST', '/fetch-and-lock', body, {
      timeoutMs: request.asyncResponseTimeoutMs + LONG_POLL_GRACE_MS,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!Array.isArray(answer)) throw new TypeError('fetch-and-lock did not answer an array');
    return answer.map(taskFromWire);
  }

  /** Completes a task, optionally setting variables. */
  async complete(taskId: string, variables?: Variables): Promise<void> {
    await this.#send('POST', `/${encodeURIComponent(taskId)}/complete`, {
      worker_id: this.options.workerId,
      ...(variables === undefined ? {} : { variables }),
    });
  }

  /** Reports a failure; `retries: 0` raises an incident. */
  async failure(
    taskId: string,
    failure: { errorMessage: string; retries: number; retryTimeoutMs: number },
  ): Promise<void> {
    await this.#send('POST', `/${encodeURIComponent(taskId)}/failure`, {
      worker_id: this.options.workerId,
      error_message: failure.errorMessage,
      retries: failure.retries,
      retry_timeout_ms: failure.retryTimeoutMs,
    });
  }

  /** Throws a BPMN error on the task's activity. */
  async bpmnError(taskId: string, errorCode: string, variables?: Variables): Promise<void> {
    await this.#send('POST', `/${encodeURIComponent(taskId)}/bpmn-error`, {
      worker_id: this.options.workerId,
      error_code: errorCode,
      ...(variables === undefined ? {} : { variables }),
    });
  }

  /** Sets the task's lock to expire `newDurationMs` from now. */
  async extendLock(taskId: string, newDurationMs: number): Promise<void> {
    await this.#send('PATCH', `/${encodeURIComponent(taskId)}/lock`, {
      worker_id: this.options.workerId,
      new_duration_ms: newDurationMs,
    });
  }

  /** Releases the task's lock. */
  async unlock(taskId: string): Promise<void> {
    await this.#send('DELETE', `/${encodeURIComponent(taskId)}/lock`);
  }

  async #send(
    method: TransportMethod,
    path: string,
    body?: unknown,
    limits: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token !== undefined) headers.authorization = `Bearer ${this.options.token}`;
    let answer: TransportAnswer;
    try {
      answer = await this.options.transport.send({
        method,
        path: `/api/v1/external-tasks${path}`,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(limits.signal === undefined ? {} : { signal: limits.signal }),
        timeoutMs: limits.timeoutMs ?? this.options.requestTimeoutMs,
      });
    } catch (error) {
      // The message names the request only: never the body, which holds variables.
      throw new ExternalTaskNetworkError(`${method} ${path}: ${describe(error)}`, { cause: error });
    }
    if (answer.status < 200 || answer.status > 299) throw apiError(answer);
    return answer.text === '' ? undefined : (JSON.parse(answer.text) as unknown);
  }
}

/** The service root of a worker's `baseUrl`: no trailing slash, and a trailing `/api/v1` removed. */
export function serviceRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

function apiError(answer: TransportAnswer): ExternalTaskApiError {
  let code = `HTTP_${answer.status}`;
  let message = answer.statusText || `HTTP ${answer.status}`;
  let details: unknown;
  try {
    const parsed = JSON.parse(answer.text) as { code?: unknown; message?: unknown; details?: unknown };
    if (typeof parsed.code === 'string') code = parsed.code;
    if (typeof parsed.message === 'string') message = parsed.message;
    details = parsed.details;
  } catch {
    // Not the engine's error body (a proxy's HTML page, say): keep the status line.
  }
  return new ExternalTaskApiError(answer.status, code, message, details, retryAfterMs(answer));
}

function retryAfterMs(answer: TransportAnswer): number | undefined {
  const header = answer.header('retry-after');
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed';
  const code = (error as { code?: unknown }).code;
  if (error.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return 'timed out';
  if (error.name === 'AbortError') return 'aborted';
  // fetch wraps the socket's error in `cause`; undici's pool throws it as it is.
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const socketCode = typeof cause?.code === 'string' ? cause.code : code;
  return typeof socketCode === 'string' ? `${error.message} (${socketCode})` : error.message;
}
