import { ExternalTaskApiClient, serviceRoot } from './api-client.js';
import { backoffDelay } from './backoff.js';
import { logEvent } from './event-log.js';
import {
  resolveWorkerOptions,
  whole,
  type ExternalTaskWorkerOptions,
  type ResolvedWorkerOptions,
} from './options.js';
import { sleep } from './sleep.js';
import { TaskRun } from './task-run.js';
import { fetchTransport, pooledTransport, type Transport } from './transport.js';
import { TypedEvents, type Listener } from './typed-events.js';
import type { ExternalTask, SubscribeOptions, TaskHandler, Variables } from './types.js';
import type { WorkerEvents } from './worker-events.js';

/** What `stop()` found. */
export interface StopResult {
  /** True when handlers were still running at the time limit; they were told to give up. */
  timedOut: boolean;
  /** Handlers still running when `stop()` resolved. */
  unfinished: number;
}

interface Subscription {
  handler: TaskHandler;
  options: SubscribeOptions & { lockDurationMs: number };
}

/**
 * Fetches external tasks of the subscribed topics from the workflow service and runs their handlers,
 * at most `concurrency` at once, keeping their locks alive and reporting each outcome to the engine.
 *
 * ```ts
 * const worker = new ExternalTaskWorker({ baseUrl: 'http://localhost:8080' });
 * worker.subscribe('charge-card', async (task) => ({ charged: true }));
 * worker.start();
 * process.once('SIGTERM', () => void worker.stop());
 * ```
 */
export class ExternalTaskWorker {
  /** The id this worker locks tasks under. */
  readonly workerId: string;
  readonly #options: ResolvedWorkerOptions;
  readonly #api: ExternalTaskApiClient;
  readonly #transport: Transport;
  readonly #events = new TypedEvents<WorkerEvents>();
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #runs = new Map<TaskRun, Promise<void>>();
  readonly #runningIds = new Set<string>();
  #waiters: (() => void)[] = [];
  #loop: { abort: AbortController; done: Promise<void> } | undefined;
  #stopping: Promise<StopResult> | undefined;

  constructor(options: ExternalTaskWorkerOptions) {
    this.#options = resolveWorkerOptions(options);
    this.workerId = this.#options.workerId;
    const root = serviceRoot(this.#options.baseUrl);
    this.#transport =
      this.#options.fetch === undefined ? pooledTransport(root) : fetchTransport(root, this.#options.fetch);
    this.#api = new ExternalTaskApiClient({
      transport: this.#transport,
      workerId: this.workerId,
      ...(this.#options.token === undefined ? {} : { token: this.#options.token }),
      requestTimeoutMs: this.#options.requestTimeoutMs,
    });
  }

  /** Handlers running now. */
  get running(): number {
    return this.#runs.size;
  }

  /** Whether the worker is polling (between `start()` and `stop()`). */
  get started(): boolean {
    return this.#loop !== undefined && this.#stopping === undefined;
  }

  /** Adds a listener of a worker event; returns a function that removes it. */
  on<K extends keyof WorkerEvents>(event: K, listener: Listener<WorkerEvents, K>): () => void {
    return this.#events.on(event, listener);
  }

  /** Removes a listener added with {@link on}. */
  off<K extends keyof WorkerEvents>(event: K, listener: Listener<WorkerEvents, K>): void {
    this.#events.off(event, listener);
  }

  /**
   * Runs `handler` for each task of `topic`; before or after `start()`. Returns a function that ends
   * the subscription (tasks of the topic fetched after that are unlocked at once). The type
   * parameters declare the variables the handler reads and returns; they are not checked at run time.
   */
  subscribe<TVariables extends Variables = Variables, TResult extends Variables = Variables>(
    topic: string,
    handler: TaskHandler<TVariables, TResult>,
    options: SubscribeOptions = {},
  ): () => void {
    if (topic === '') throw new RangeError('topic must not be empty');
    if (this.#subscriptions.has(topic)) throw new Error(`topic '${topic}' already has a handler`);
    if (options.maxRetries !== undefined) whole('maxRetries', options.maxRetries, 0);
    const subscription: Subscription = {
      handler: handler as unknown as TaskHandler,
      options: {
        ...options,
        lockDurationMs: whole('lockDurationMs', options.lockDurationMs ?? this.#options.lockDurationMs, 1),
      },
    };
    this.#subscriptions.set(topic, subscription);
    this.#notify();
    return () => {
      if (this.#subscriptions.get(topic) === subscription) this.#subscriptions.delete(topic);
    };
  }

  /** Starts polling in the background. Errors never escape: they become `error` events. */
  start(): void {
    if (this.#loop !== undefined) throw new Error('the worker is already started');
    const abort = new AbortController();
    this.#loop = { abort, done: this.#poll(abort.signal) };
  }

  /**
   * Stops fetching (a long poll in progress is abandoned), then waits up to `timeoutMs` (default
   * the `stopTimeoutMs` option) for running handlers to settle their tasks. Handlers still running
   * then have their `actions.signal` aborted and their locks left to expire. Calling it again while
   * stopping returns the same promise.
   */
  stop(options: { timeoutMs?: number } = {}): Promise<StopResult> {
    if (this.#stopping !== undefined) return this.#stopping;
    const loop = this.#loop;
    if (loop === undefined) return Promise.resolve({ timedOut: false, unfinished: this.#runs.size });
    const timeoutMs = options.timeoutMs ?? this.#options.stopTimeoutMs;
    this.#stopping = (async () => {
      loop.abort.abort();
      this.#notify();
      await loop.done;
      const timedOut = await this.#drain(timeoutMs);
      if (timedOut) {
        for (const run of this.#runs.keys()) {
          run.abandon(new Error('the worker stopped before the handler finished'));
        }
      }
      // Abandoned handlers may still report: their connections stay (idle ones do not keep the
      // process alive).
      if (this.#runs.size === 0) await this.#transport.close();
      this.#loop = undefined;
      this.#stopping = undefined;
      return { timedOut, unfinished: this.#runs.size };
    })();
    return this.#stopping;
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const options = this.#options;
    let failures = 0;
    while (!signal.aborted) {
      const free = options.concurrency - this.#runs.size;
      if (free <= 0 || this.#subscriptions.size === 0) {
        await this.#changed();
        continue;
      }
      const requested = Math.min(options.maxTasks, free);
      const startedAt = Date.now();
      let tasks: ExternalTask[];
      try {
        tasks = await this.#api.fetchAndLock({
          maxTasks: requested,
          topics: [...this.#subscriptions].map(([topicName, { options }]) => ({
            topicName,
            lockDurationMs: options.lockDurationMs,
          })),
          asyncResponseTimeoutMs: options.asyncResponseTimeoutMs,
          signal,
        });
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
        const retryInMs = Math.max(
          backoffDelay(failures, options.backoff),
          typeof retryAfterMs === 'number' ? retryAfterMs : 0,
        );
        this.#emit('error', { phase: 'poll', error, retryInMs });
        await sleep(retryInMs, signal);
        continue;
      }
      failures = 0;
      this.#emit('poll', { requested, received: tasks.length, durationMs: Date.now() - startedAt });
      for (const task of tasks) this.#dispatch(task);
      if (tasks.length === 0) await sleep(options.pollIntervalMs - (Date.now() - startedAt), signal);
    }
  }

  #dispatch(task: ExternalTask): void {
    // The lock of a task this worker is still running expired and the poll took it again: the lock
    // is ours once more and the running handler's extensions keep it; a second handler would
    // duplicate the work.
    if (this.#runningIds.has(task.id)) return;
    const subscription = this.#subscriptions.get(task.topicName);
    // A topic unsubscribed during the poll, or more tasks than asked for: give the task back.
    if (subscription === undefined || this.#runs.size >= this.#options.concurrency) {
      this.#api.unlock(task.id).then(
        () => this.#emit('task:unlocked', { task }),
        (error: unknown) => this.#emit('error', { phase: 'unlock', error, task }),
      );
      return;
    }
    const run = new TaskRun({
      task,
      handler: subscription.handler,
      subscription: subscription.options,
      api: this.#api,
      autoExtendLock: this.#options.autoExtendLock,
      reportBackoff: this.#options.backoff,
      emit: (event, payload) => this.#emit(event, payload),
    });
    this.#runningIds.add(task.id);
    this.#runs.set(
      run,
      run.run().finally(() => {
        this.#runs.delete(run);
        this.#runningIds.delete(task.id);
        this.#notify();
      }),
    );
  }

  /** Resolves true when handlers are still running after `timeoutMs`. */
  async #drain(timeoutMs: number): Promise<boolean> {
    const timer = new AbortController();
    const all = Promise.all(this.#runs.values()).then(() => false);
    const timeout = sleep(timeoutMs, timer.signal).then(() => this.#runs.size > 0);
    const timedOut = await Promise.race([all, timeout]);
    timer.abort();
    return timedOut;
  }

  #changed(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #emit<K extends keyof WorkerEvents>(event: K, payload: WorkerEvents[K]): void {
    const logger = this.#options.logger;
    if (logger !== undefined) {
      try {
        logEvent(logger, event, payload);
      } catch {
        // A broken logger must not stop the worker.
      }
    }
    const thrown = this.#events.emit(event, payload);
    if (event === 'error') return; // an `error` listener that throws has nowhere left to report to
    for (const error of thrown) this.#emit('error', { phase: 'listener', error });
  }
}
