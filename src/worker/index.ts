/**
 * The external-task worker client of weft's workflow service: `import { ExternalTaskWorker } from
 * 'weft/worker'`. It needs Node.js and undici (its connection pool). Guide: docs/workflow/workers.md.
 */
export { ExternalTaskWorker, type StopResult } from './external-task-worker.js';
export type { ExternalTaskWorkerOptions } from './options.js';
export type {
  ExternalTask,
  RetryContext,
  RetryTimeout,
  SubscribeOptions,
  TaskActions,
  TaskFailure,
  TaskHandler,
  Variables,
  WorkerLogger,
} from './types.js';
export type { WorkerErrorPhase, WorkerEvents } from './worker-events.js';
export { ExternalTaskApiError, ExternalTaskNetworkError, isTransientError } from './errors.js';
export { backoffDelay, type BackoffOptions } from './backoff.js';
export { MAX_ERROR_MESSAGE_LENGTH } from './failure-report.js';
