import type { ExternalTask, WorkerLogger } from './types.js';
import type { WorkerEvents } from './worker-events.js';

/**
 * Writes a worker event to the logger: errors as `error`, failed tasks as `warn`, the rest as
 * `debug`. Only ids, topic names, counts, durations and error messages: never variables or tokens.
 */
export function logEvent<K extends keyof WorkerEvents>(
  logger: WorkerLogger,
  event: K,
  payload: WorkerEvents[K],
): void {
  const all = payload as Partial<WorkerEvents['error'] & WorkerEvents['task:failed'] & WorkerEvents['poll']>;
  const fields: Record<string, unknown> = all.task === undefined ? {} : taskFields(all.task);
  if (event === 'error') {
    const failure = payload as WorkerEvents['error'];
    logger.error(`external task worker: ${failure.phase} failed: ${messageOf(failure.error)}`, {
      ...fields,
      phase: failure.phase,
      ...(failure.retryInMs === undefined ? {} : { retryInMs: failure.retryInMs }),
    });
  } else if (event === 'task:failed') {
    const failed = payload as WorkerEvents['task:failed'];
    logger.warn(`external task failed: ${failed.errorMessage}`, {
      ...fields,
      retries: failed.retries,
      retryTimeoutMs: failed.retryTimeoutMs,
    });
  } else {
    const numbers = Object.entries(payload as Record<string, unknown>).filter(
      ([, value]) => typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string',
    );
    logger.debug?.(`external task worker: ${event}`, { ...fields, ...Object.fromEntries(numbers) });
  }
}

function taskFields(task: ExternalTask): Record<string, unknown> {
  return {
    taskId: task.id,
    topic: task.topicName,
    processInstanceId: task.processInstanceId,
    activityId: task.activityId,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
