import type { ExternalTask } from './types.js';

/** Which step of the worker an `error` event comes from. */
export type WorkerErrorPhase =
  'poll' | 'handler' | 'complete' | 'failure' | 'bpmn-error' | 'extend-lock' | 'unlock' | 'listener';

/** The events of {@link ExternalTaskWorker}, by name, with their payloads. */
export interface WorkerEvents {
  /** A fetch-and-lock answered: how many tasks were asked for and how many came. */
  poll: { requested: number; received: number; durationMs: number };
  /** A handler was given a task. */
  'task:started': { task: ExternalTask };
  /** The engine accepted the task's completion. */
  'task:completed': { task: ExternalTask; durationMs: number };
  /**
   * The engine accepted a failure report; `retries: 0` means an incident. `error` is what the
   * handler threw, when the failure was reported for it rather than through `actions.fail`.
   */
  'task:failed': {
    task: ExternalTask;
    errorMessage: string;
    retries: number;
    retryTimeoutMs: number;
    error?: unknown;
  };
  /** The engine accepted a BPMN error. */
  'task:bpmn-error': { task: ExternalTask; errorCode: string };
  /** The task was given back unfinished. */
  'task:unlocked': { task: ExternalTask };
  /** The task's lock was extended, by the handler or automatically. */
  'task:lock-extended': { task: ExternalTask; durationMs: number; automatic: boolean };
  /**
   * Something went wrong that the worker survives: a failed poll (then `retryInMs` says when it
   * polls again), a handler that threw, or a report the engine refused (e.g. 409 when the lock was
   * lost). Without a listener these are dropped, or passed to the `logger`.
   */
  error: { phase: WorkerErrorPhase; error: unknown; task?: ExternalTask; retryInMs?: number };
}
