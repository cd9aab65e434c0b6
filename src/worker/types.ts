/**
 * Types of the external-task worker client.
 *
 * Glossary:
 * - external task: a service task whose work is done outside the engine. The engine parks the token
 *   and offers the task on a topic; a worker fetches and locks it, does the work, and reports back.
 * - topic: the name workers subscribe to (`zeebe:taskDefinition type`, `camunda:topic`).
 * - lock: a fetched task belongs to one worker until its lock expires; other workers cannot fetch or
 *   settle it meanwhile, and after expiry the engine offers it again.
 * - retries: how many more failures the task may have before the engine raises an incident.
 */

/** Process variables by name. The engine stores them as JSON. */
export type Variables = Record<string, unknown>;

/** A task the worker fetched and locked, as handed to a handler. */
export interface ExternalTask<TVariables extends Variables = Variables> {
  id: string;
  topicName: string;
  processInstanceId: string;
  activityId: string;
  /** The variables the engine sent with the task (not validated against `TVariables`). */
  variables: TVariables;
  /** Failures the task may still have before the engine raises an incident. */
  retries: number;
  /** When the lock taken by the fetch expires, by the engine's clock. */
  lockExpiresAt: Date;
  orgId: string;
}

/** What a handler reports when a task failed; see {@link TaskActions.fail}. */
export interface TaskFailure {
  /** Shown on the incident; truncated to 1000 characters. */
  errorMessage: string;
  /** Failures the task may still have; 0 raises an incident. Defaults to `task.retries - 1` (floor 0). */
  retries?: number;
  /** How long the engine waits before offering the task again; defaults to the subscription's. */
  retryTimeoutMs?: number;
}

/**
 * The ways a handler settles its task. At most one of `complete`, `fail`, `bpmnError` and `unlock`
 * may be called, once; `extendLock` any number of times before that. Each returns when the engine
 * has accepted the report, and rejects with an {@link ExternalTaskApiError} (e.g. 409 when the lock
 * was lost) or an {@link ExternalTaskNetworkError}.
 */
export interface TaskActions<TResult extends Variables = Variables> {
  /** Completes the task, optionally setting process variables. */
  complete(variables?: TResult): Promise<void>;
  /** Reports a failure: the engine retries the task later, or raises an incident at 0 retries. */
  fail(failure: TaskFailure): Promise<void>;
  /** Throws a BPMN error, caught by a matching error boundary event (else an incident). */
  bpmnError(errorCode: string, variables?: Variables): Promise<void>;
  /** Sets the lock to expire `ms` from now. */
  extendLock(ms: number): Promise<void>;
  /** Gives the task back unfinished: the engine offers it again at once. */
  unlock(): Promise<void>;
  /**
   * Aborted when the worker gives up on the task: its lock was lost (an extension was refused or
   * could not be made in time), or `stop()` timed out. A long handler should pass it on and give up.
   */
  readonly signal: AbortSignal;
}

/**
 * Does the work of one task. Settle the task with one of `actions`, or return: returning a variables
 * object (or nothing) completes the task with those variables; throwing reports a failure.
 */
export type TaskHandler<TVariables extends Variables = Variables, TResult extends Variables = Variables> = (
  task: ExternalTask<TVariables>,
  actions: TaskActions<TResult>,
) => Promise<TResult | void> | TResult | void;

/** What the retry timeout of a failure is computed from. */
export interface RetryContext {
  task: ExternalTask;
  /** What the handler threw. */
  error: unknown;
  /** The retries the failure will report. */
  retries: number;
}

/** Milliseconds before a failed task is offered again: a constant, or computed per failure. */
export type RetryTimeout = number | ((context: RetryContext) => number);

/** Per-topic settings of {@link ExternalTaskWorker.subscribe}. */
export interface SubscribeOptions {
  /** How long each fetched task stays locked; defaults to the worker's `lockDurationMs`. */
  lockDurationMs?: number;
  /**
   * An upper bound on the retry budget: when a handler throws, the failure reports
   * `min(task.retries, maxRetries) - 1` retries (floor 0). No bound by default.
   */
  maxRetries?: number;
  /** Delay before the engine offers a failed task again; default 10 000 ms. */
  retryTimeoutMs?: RetryTimeout;
}

/**
 * Where the worker writes what it does. The worker never passes variables, tokens or error stacks to
 * it; `fields` hold ids, topic names, counts, durations and error messages.
 */
export interface WorkerLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
