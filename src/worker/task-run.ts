import type { ExternalTaskApiClient } from './api-client.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { isTransientError } from './errors.js';
import { errorMessageOf, nextRetries, retryTimeoutFor, truncateMessage } from './failure-report.js';
import { LockExtender } from './lock-extender.js';
import { sleep } from './sleep.js';
import type {
  ExternalTask,
  SubscribeOptions,
  TaskActions,
  TaskFailure,
  TaskHandler,
  Variables,
} from './types.js';
import type { WorkerErrorPhase, WorkerEvents } from './worker-events.js';

/** What one task run needs from its worker. */
export interface TaskRunDeps {
  task: ExternalTask;
  handler: TaskHandler;
  subscription: SubscribeOptions & { lockDurationMs: number };
  api: ExternalTaskApiClient;
  autoExtendLock: boolean;
  /** Backoff between the attempts of a report the engine could not take (no answer, 5xx). */
  reportBackoff: BackoffOptions;
  emit<K extends keyof WorkerEvents>(event: K, payload: WorkerEvents[K]): void;
}

// A report (complete, failure…) is tried this many times in all when the engine does not answer.
const REPORT_ATTEMPTS = 3;

type SettleKind = Extract<WorkerErrorPhase, 'complete' | 'failure' | 'bpmn-error' | 'unlock'>;

/**
 * One task from fetch to report: runs the handler with its actions, keeps the lock alive meanwhile,
 * and settles the task the way the handler chose, or by its return value or what it threw. `run()`
 * never rejects: whatever goes wrong becomes an event.
 */
export class TaskRun {
  readonly #abort = new AbortController();
  readonly #startedAt = Date.now();
  readonly #extender: LockExtender;
  #settlement: { kind: SettleKind; promise: Promise<void> } | undefined;
  #settledByHandler = false;

  constructor(private readonly deps: TaskRunDeps) {
    const { task, api } = deps;
    this.#extender = new LockExtender(deps.subscription.lockDurationMs, deps.autoExtendLock, {
      extend: (ms) => api.extendLock(task.id, ms),
      onExtended: (ms, automatic) => deps.emit('task:lock-extended', { task, durationMs: ms, automatic }),
      onError: (error) => deps.emit('error', { phase: 'extend-lock', error, task }),
      onLost: () => this.#abort.abort(new Error(`the lock of task ${task.id} was lost`)),
    });
  }

  /** Gives up on the task: aborts the handler's signal and stops extending its lock. */
  abandon(reason: Error): void {
    this.#abort.abort(reason);
    void this.#extender.stop();
  }

  /** Runs the handler and settles the task; resolves when the engine has the report (or refused it). */
  async run(): Promise<void> {
    const { task, handler } = this.deps;
    this.deps.emit('task:started', { task });
    let result: unknown;
    let thrown: { error: unknown } | undefined;
    try {
      result = await handler(task, this.#actions());
    } catch (error) {
      thrown = { error };
    }
    if (this.#settlement === undefined) {
      if (thrown !== undefined) this.#failFromThrow(thrown.error);
      else if (result === undefined || result === null) void this.#complete(undefined);
      else if (isPlainObject(result)) void this.#complete(result);
      else this.#failFromThrow(new TypeError('the handler returned something other than a variables object'));
    }
    const settlement = this.#settlement;
    const actionError = await settlement?.promise.then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (actionError !== undefined && settlement !== undefined) {
      this.deps.emit('error', { phase: settlement.kind, error: actionError.error, task });
    }
    // A handler that threw after settling: the task is settled, but its author should hear of it.
    if (thrown !== undefined && this.#settledByHandler && thrown.error !== actionError?.error) {
      this.deps.emit('error', { phase: 'handler', error: thrown.error, task });
    }
    await this.#extender.stop();
  }

  #actions(): TaskActions {
    const actions: TaskActions = {
      complete: (variables) => this.#byHandler(() => this.#complete(variables)),
      fail: (failure) => this.#byHandler(() => this.#fail(failure)),
      bpmnError: (errorCode, variables) => this.#byHandler(() => this.#bpmnError(errorCode, variables)),
      extendLock: (ms) => this.#extender.extendNow(ms),
      unlock: () => this.#byHandler(() => this.#unlock()),
      signal: this.#abort.signal,
    };
    return Object.freeze(actions);
  }

  #byHandler(settle: () => Promise<void>): Promise<void> {
    const promise = settle();
    if (this.#settlement?.promise === promise) this.#settledByHandler = true;
    return promise;
  }

  #complete(variables: Variables | undefined): Promise<void> {
    const { task, api } = this.deps;
    return this.#settle(
      'complete',
      () => api.complete(task.id, variables),
      () => {
        this.deps.emit('task:completed', { task, durationMs: Date.now() - this.#startedAt });
      },
    );
  }

  #fail(failure: TaskFailure, thrown?: { error: unknown }): Promise<void> {
    const { task, api, subscription } = this.deps;
    const errorMessage = truncateMessage(String(failure.errorMessage));
    const retries = Math.max(0, Math.floor(failure.retries ?? nextRetries(task, subscription.maxRetries)));
    const retryTimeoutMs =
      failure.retryTimeoutMs ?? retryTimeoutFor(subscription, task, thrown?.error, retries);
    return this.#settle(
      'failure',
      () => api.failure(task.id, { errorMessage, retries, retryTimeoutMs }),
      () => {
        const payload = { task, errorMessage, retries, retryTimeoutMs };
        this.deps.emit('task:failed', thrown === undefined ? payload : { ...payload, error: thrown.error });
      },
    );
  }

  #failFromThrow(error: unknown): void {
    void this.#fail({ errorMessage: errorMessageOf(error) }, { error });
  }

  #bpmnError(errorCode: string, variables?: Variables): Promise<void> {
    const { task, api } = this.deps;
    return this.#settle(
      'bpmn-error',
      () => api.bpmnError(task.id, errorCode, variables),
      () => {
        this.deps.emit('task:bpmn-error', { task, errorCode });
      },
    );
  }

  #unlock(): Promise<void> {
    const { task, api } = this.deps;
    return this.#settle(
      'unlock',
      () => api.unlock(task.id),
      () => this.deps.emit('task:unlocked', { task }),
    );
  }

  // Settles the task once: stops the lock extension first, so that no extension reaches the engine
  // after the report, then sends the report, trying again while the engine does not answer.
  #settle(kind: SettleKind, send: () => Promise<void>, onSuccess: () => void): Promise<void> {
    if (this.#settlement !== undefined) {
      return Promise.reject(
        new Error(`task ${this.deps.task.id} is already settled (${this.#settlement.kind})`),
      );
    }
    const promise = (async () => {
      await this.#extender.stop();
      for (let attempt = 1; ; attempt++) {
        try {
          await send();
          break;
        } catch (error) {
          if (attempt >= REPORT_ATTEMPTS || !isTransientError(error)) throw error;
          await sleep(backoffDelay(attempt, this.deps.reportBackoff));
        }
      }
      onSuccess();
    })();
    // Marks the rejection handled: a handler may call an action without awaiting it, and run()
    // reports the outcome either way.
    promise.catch(() => undefined);
    this.#settlement = { kind, promise };
    return promise;
  }
}

function isPlainObject(value: unknown): value is Variables {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
