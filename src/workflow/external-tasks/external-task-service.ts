import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import { withTransaction, type Pool, type PoolClient } from '../../platform/database/pool.js';
import type { EngineMetrics } from '../engine/driver/engine-metrics.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { EngineEvent, Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import * as tasks from '../engine/store/external-tasks.js';
import { readTaskLockWithInstance } from '../engine/store/process-instances.js';
import type { TaskNotifier } from './task-notifier.js';
import { isInScope, type TaskScope } from './task-scope.js';

/** A fetch-and-lock request. */
export interface FetchRequest {
  worker_id: string;
  max_tasks: number;
  topics: { topic_name: string; lock_duration_ms: number; filter?: tasks.TopicFilter | undefined }[];
  async_response_timeout_ms?: number | undefined;
  /** Newest tasks first (the Camunda 7 API's `sorting`); oldest first by default. */
  newest_first?: boolean | undefined;
}

/** Whose tasks a fetch may lock, and when its long poll gives up. */
export interface FetchOptions {
  /** The orgs whose tasks may be locked. */
  scope: TaskScope;
  /**
   * Reads the caller's scope again before each attempt after a wait, so that a revoked key or role
   * stops a long poll at once; it throws (401, 403) to end the poll. Absent: `scope` holds throughout.
   */
  rescope?: (() => Promise<TaskScope>) | undefined;
  /** Ends the wait early when the client goes away or the service stops. */
  signal?: AbortSignal | undefined;
}

/** A task this process locked lately: its instance and org never change. */
interface LockedTaskHome {
  instanceId: string;
  orgId: string;
}

// Retries becoming due and expired locks send no notification: a long poll also re-checks this often.
const pollIntervalMs = 1000;
// Tasks locked here whose instance is remembered, so that their report need not read the task row.
const lockedTasksKept = 10_000;

/** The external task API: workers fetch and lock, complete, fail, throw BPMN errors, extend and unlock. */
export class ExternalTaskService {
  /** The instance and org of each task this process locked lately. */
  private readonly lockedTaskHomes = new LRUCache<string, LockedTaskHome>({ max: lockedTasksKept });

  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly notifier: TaskNotifier,
    private readonly clock: Clock,
    private readonly metrics: EngineMetrics,
  ) {}

  /**
   * Locks tasks of the requested topics, in the scope's orgs, for the worker. With
   * `async_response_timeout_ms`, waits until a task exists (woken by LISTEN/NOTIFY) or the timeout
   * passes.
   */
  async fetchAndLock(request: FetchRequest, options: FetchOptions): Promise<tasks.LockedTask[]> {
    const { signal, rescope } = options;
    const topics = request.topics.map((topic) => ({
      name: topic.topic_name,
      lockMs: topic.lock_duration_ms,
      filter: topic.filter,
    }));
    const deadline = Date.now() + (request.async_response_timeout_ms ?? 0);
    let scope = options.scope;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && rescope) scope = await rescope();
      const locked = await tasks.lockTasks(this.pool, {
        workerId: request.worker_id,
        maxTasks: request.max_tasks,
        topics,
        now: this.clock.now(),
        orgIds: scope === 'all' ? undefined : scope.orgIds,
        newestFirst: request.newest_first,
      });
      const remaining = deadline - Date.now();
      if (locked.length > 0 || remaining <= 0 || signal?.aborted) {
        for (const task of locked)
          this.lockedTaskHomes.set(task.id, { instanceId: task.process_instance_id, orgId: task.org_id });
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
  async complete(
    taskId: string,
    workerId: string,
    variables: Variables | undefined,
    scope: TaskScope,
  ): Promise<void> {
    await this.requireInScope(taskId, scope);
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
    scope: TaskScope,
  ): Promise<void> {
    await this.requireInScope(taskId, scope);
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
        const scheduled = await tasks.scheduleRetry(client, {
          taskId,
          retries: input.retries,
          retryTimeoutMs: input.retry_timeout_ms,
          errorMessage: input.error_message,
          now: this.clock.now(),
        });
        // The lock holder was checked above: only a suspended instance leaves the row unchanged.
        if (!scheduled) throw WorkflowErrors.conflict('The process instance is suspended');
      });
    }
    this.metrics.job('external_task', 'failed');
  }

  /** Throws a BPMN error from the task: caught by a matching boundary event, else an incident. */
  async bpmnError(
    taskId: string,
    input: {
      worker_id: string;
      error_code: string;
      /** The error's message (Camunda's `errorMessage`), for a catch's `camunda:errorMessageVariable`. */
      error_message?: string | undefined;
      variables?: Variables | undefined;
    },
    scope: TaskScope,
  ): Promise<void> {
    await this.requireInScope(taskId, scope);
    await this.applyAsWorker(taskId, input.worker_id, {
      type: 'bpmnError',
      waitId: taskId,
      errorCode: input.error_code,
      ...(input.error_message === undefined ? {} : { message: input.error_message }),
      variables: input.variables ?? {},
    });
  }

  /** Extends the worker's lock; 409 when the worker does not hold a live lock. */
  async extendLock(taskId: string, workerId: string, durationMs: number, scope: TaskScope): Promise<void> {
    await this.requireInScope(taskId, scope);
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
  async unlock(taskId: string, scope: TaskScope): Promise<void> {
    await this.requireInScope(taskId, scope);
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
    const remembered = this.lockedTaskHomes.get(taskId)?.instanceId;
    this.lockedTaskHomes.delete(taskId);
    const heldTask = { taskId, workerId };
    if (
      remembered !== undefined &&
      (await this.driver.applyToRecent({ instanceId: remembered, event, heldTask }))
    )
      return;
    const read = await readTaskLockWithInstance(this.pool, taskId);
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
      sql: (param, now) => tasks.taskHeld(param(taskId), param(workerId), param(now)),
    });
  }

  /**
   * 404 for a task outside the scope, exactly as for a task that does not exist, so a worker cannot
   * learn which ids other orgs' tasks have. A task this process locked is answered from memory.
   */
  private async requireInScope(taskId: string, scope: TaskScope): Promise<void> {
    if (scope === 'all') return;
    const orgId = this.lockedTaskHomes.peek(taskId)?.orgId ?? (await tasks.taskOrgId(this.pool, taskId));
    if (orgId === null || !isInScope(scope, orgId)) throw WorkflowErrors.notFound('No such external task');
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
