import type { ExternalTask, SubscribeOptions } from './types.js';

/** The longest error message sent to the engine; longer ones are cut. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;

/** The retry timeout of a failure when the subscription sets none. */
export const DEFAULT_RETRY_TIMEOUT_MS = 10_000;

/** Cuts a message to {@link MAX_ERROR_MESSAGE_LENGTH} characters, marking the cut. */
export function truncateMessage(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…`;
}

/** The message of a thrown value, without its stack: that stays in the worker's process. */
export function errorMessageOf(thrown: unknown): string {
  if (thrown instanceof Error) return truncateMessage(thrown.message || thrown.name);
  if (typeof thrown === 'string') return truncateMessage(thrown);
  return 'the handler threw a value that is not an Error';
}

/** The retries a failure reports when the handler threw: one fewer than the task has, floor 0. */
export function nextRetries(task: ExternalTask, maxRetries?: number): number {
  const budget = maxRetries === undefined ? task.retries : Math.min(task.retries, maxRetries);
  return Math.max(0, Math.floor(budget) - 1);
}

/** The retry timeout of a failure, from the subscription's constant or function. */
export function retryTimeoutFor(
  options: SubscribeOptions,
  task: ExternalTask,
  error: unknown,
  retries: number,
): number {
  const setting = options.retryTimeoutMs ?? DEFAULT_RETRY_TIMEOUT_MS;
  const value = typeof setting === 'number' ? setting : setting({ task, error, retries });
  return Number.isFinite(value) ? Math.max(0, Math.round(value)) : DEFAULT_RETRY_TIMEOUT_MS;
}
