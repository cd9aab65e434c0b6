import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import type { EngineMetrics } from '../engine/driver/engine-metrics.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { EngineEvent, Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import * as tasks from './external-task-repository.js';
import type { TaskNotifier } from './task-notifier.js';

/** A fetch-and-lock request. */
export interface FetchRequest {
  worker_id: string;
  max_tasks: number;
  topics: { topic_name: string; lock_duration_ms: number }[];
  async_response_timeout_ms?: number | undefined;
}

// Retries becoming due and expired locks send no notification: a long poll also re-checks this often.
const pollIntervalMs = 1000;
// Tasks locked here whose instance is remembered, so that their report need not read the task row.
const lockedTasksKept = 10_000;

/** The external task API: workers fetch and lock, complete, fail, throw BPMN errors, extend and unlock. */
export class ExternalTaskService {
  /** The instance of each task this process locked lately (a task never changes instance). */
  private readonly instanceOfLockedTask = new LRUCache<string, string>({ max: lockedTasksKept });

  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly notifier: TaskNotifier,
    private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
  ) {}

  /**
   * Locks tasks of the requested topics for the worker. With `async_response_timeout_ms`, waits
   * until a task exists (woken by LISTEN/NOTIFY) or the timeout passes; `signal` ends the wait
   * early when the client goes away or the service stops.
   */
  async fetchAndLock(request: FetchRequest, signal?: AbortSignal): Promise<tasks.LockedTask[]> {
    const topics = request.topics.map((topic) => ({
      name: topic.topic_name,
      lockMs: topic.lock_duration_ms,
    }));
    const deadline = Date.now() + (request.async_response_timeout_ms ?? 0);
    for (;;) {
      const locked = await tasks.lockTasks(this.pool, {
        workerId: request.worker_id,
        maxTasks: request.max_tasks,
        topics,
        now: this.clock.now(),
      });
      const remaining = deadline - Date.now();
      if (locked.length > 0 || remaining <= 0 || signal?.aborted) {
        for (const task of locked) this.instanceOfLockedTask.set(task.id, task.process_instance_id);
        this.metrics.externalTask('fetched', locked.length);
        return locked;
      }
      await this.notifier.waitFor(
        topics.map((topic) => topic.name),
        Math.min(remaining, pollIntervalMs),
        signal,
      );
    }
  }

  /** Completes a task locked by the worker, moving its instance on. */
  async complete(taskId: string, workerId: string, variables: Variables | undefined): Promise<void> {
    await this.applyAsWorker(taskId, workerId, {
      type: 'complete',
      waitId: taskId,
      variables: variables ?? {},
    });
    this.metrics.externalTask('completed');
    this.metrics.job('external_task', 'completed');
  }

  /**
   * Reports a failed attempt. With retries left the task is fetchable again after the retry
   * timeout; `retries: 0` raises an incident on the instance.
   */
  async fail(
    taskId: string,
    input: { worker_id: string; error_message: string; retries: number; retry_timeout_ms: number },
  ): Promise<void> {
    if (input.retries === 0) {
      await this.applyAsWorker(taskId, input.worker_id, {
        type: 'fail',
        waitId: taskId,
        message: input.error_message,
      });
    } else {
      // Only the task row changes: no engine call, no instance lock.
      await withTransaction(this.pool, async (client) => {
        await this.requireLockHolder(client, taskId, input.worker_id);
        await tasks.scheduleRetry(client, {
          taskId,
          retries: input.retries,
          retryTimeoutMs: input.retry_timeout_ms,
          errorMessage: input.error_message,
          now: this.clock.now(),
        });
      });
    }
    this.metrics.job('external_task', 'failed');
  }

  /** Throws a BPMN error from the task: caught by a matching boundary event, else an incident. */
  async bpmnError(
    taskId: string,
    input: { worker_id: string; error_code: string; variables?: Variables | undefined },
  ): Promise<void> {
    await this.applyAsWorker(taskId, input.worker_id, {
      type: 'bpmnError',
      waitId: taskId,
      errorCode: input.error_code,
      variables: input.variables ?? {},
    });
  }

  /** Extends the worker's lock; 409 when the worker does not hold a live lock. */
  async extendLock(taskId: string, workerId: string, durationMs: number): Promise<void> {
    const extended = await tasks.extendLock(this.pool, {
      taskId,
      workerId,
      durationMs,
      now: this.clock.now(),
    });
    if (extended) return;
    if ((await tasks.taskInstanceId(this.pool, taskId)) === null)
      throw WorkflowErrors.notFound('No such external task');
    throw WorkflowErrors.conflict('The task is not locked by this worker, or its lock has expired');
  }

  /** Releases the lock so any worker can fetch the task again. */
  async unlock(taskId: string): Promise<void> {
    if (!(await tasks.unlock(this.pool, taskId))) throw WorkflowErrors.notFound('No such external task');
  }

  /**
   * Applies a worker's event to the task's instance. The worker must hold a live lock on the task;
   * the engine's write checks that again atomically, so a lock lost meanwhile cannot slip through.
   * A task this process locked, whose instance it wrote last, goes straight to that write (no read):
   * if the lock or the instance is not as remembered, the write changes nothing and the usual path
   * reads both and answers accordingly.
   */
  private async applyAsWorker(taskId: string, workerId: string, event: EngineEvent): Promise<void> {
    const remembered = this.instanceOfLockedTask.get(taskId);
    this.instanceOfLockedTask.delete(taskId);
    const heldTask = { taskId, workerId };
    if (
      remembered !== undefined &&
      (await this.driver.applyToRecent({ instanceId: remembered, event, heldTask }))
    )
      return;
    const read = await tasks.readTaskLockWithInstance(this.pool, taskId);
    let lock = read?.lock ?? null;
    const requireHolder = (now: Date) => {
      if (!lock) throw WorkflowErrors.notFound('No such external task');
      if (lock.worker_id !== workerId || lock.lock_expires_at === null || lock.lock_expires_at <= now) {
        throw WorkflowErrors.conflict('The task is not locked by this worker, or its lock has expired');
      }
      return lock.process_instance_id;
    };
    const instanceId = requireHolder(this.clock.now());
    let firstAttempt = true;
    await this.driver.apply(instanceId, event, {
      initial: read?.instance ?? null,
      check: async (_stored, now) => {
        // The first attempt uses the lock read above; a retried attempt reads it again.
        if (!firstAttempt) lock = await tasks.readTaskLock(this.pool, taskId);
        firstAttempt = false;
        requireHolder(now);
      },
      sql: (param, now) =>
        `EXISTS (SELECT 1 FROM external_tasks WHERE id = ${param(taskId)} AND worker_id = ${param(workerId)}
                 AND lock_expires_at > ${param(now)})`,
    });
  }

  private async requireLockHolder(client: PoolClient, taskId: string, workerId: string): Promise<void> {
    const task = await tasks.lockTaskRow(client, taskId);
    if (!task) throw WorkflowErrors.notFound('No such external task');
    const now = this.clock.now();
    if (task.worker_id !== workerId || task.lock_expires_at === null || task.lock_expires_at <= now) {
      throw WorkflowErrors.conflict('The task is not locked by this worker, or its lock has expired');
    }
  }
}
