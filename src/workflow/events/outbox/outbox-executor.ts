import type { Clock } from '../../../platform/clock.js';
import type { Pool, PoolClient } from '../../../platform/database/pool.js';
import type { Logger } from '../../../platform/logging/logger.js';
import { JobExecutor, type RunResult } from '../../../platform/jobs/job-executor.js';
import {
  claimDueOutboxEvents,
  claimOutboxEvents,
  defaultOutboxBackoff,
  deleteOutboxEvent,
  recordOutboxFailure,
  type OutboxBackoff,
  type OutboxEvent,
} from '../../engine/store/event-outbox.js';

/** What the outbox delivery needs. */
export interface OutboxDeliveryOptions {
  pool: Pool;
  clock: Clock;
  /**
   * Delivers one thrown event inside the claim's transaction (every engine write it causes uses
   * `client`); throwing undoes them all and counts as a failed attempt.
   */
  deliver(event: OutboxEvent, client: PoolClient): Promise<void>;
  logger: Logger;
  backoff?: OutboxBackoff;
  pollIntervalMs?: number;
  batchSize?: number;
}

/** Delivery of `event_outbox` rows: the polling executor, and the thrower's fast path. */
export interface OutboxDelivery {
  /** Delivers the events due now, one batch (tests call it after skipping the fast path). */
  runOnce(): Promise<RunResult>;
  /** Delivers the given events now, unless another executor holds them (right after their commit). */
  deliverNow(ids: readonly string[]): Promise<RunResult>;
  /** Wakes the polling loop (events were committed by a transaction that could not deliver them). */
  nudge(): void;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Builds the delivery of thrown messages and signals. Each event is claimed with FOR UPDATE SKIP
 * LOCKED, delivered and deleted in one transaction, so it is delivered exactly once however many
 * executors run (one per service instance) and whichever of them, or the thrower's fast path, gets
 * it first. A failed delivery is rolled back and retried after a backoff; out of retries, the row is
 * parked with its last error and logged.
 */
export function createOutboxDelivery(options: OutboxDeliveryOptions): OutboxDelivery {
  const backoff = options.backoff ?? defaultOutboxBackoff;
  const executor = (
    name: string,
    fetch: (client: PoolClient, now: Date, limit: number) => Promise<OutboxEvent[]>,
  ) =>
    new JobExecutor<OutboxEvent>({
      name,
      pool: options.pool,
      clock: options.clock,
      logger: options.logger,
      batchSize: options.batchSize,
      pollIntervalMs: options.pollIntervalMs,
      fetch,
      handle: (event, client) => options.deliver(event, client),
      complete: (event, client) => deleteOutboxEvent(client, event.id),
      fail: (event, message, client, now, keepOne) =>
        recordOutboxFailure(client, event.id, message, now, backoff, keepOne),
      onError: (event, error) => {
        // There is no wait to raise an incident on: the thrower may have ended long ago.
        options.logger.error(
          { err: error, outboxId: event.id, instanceId: event.processInstanceId, elementId: event.elementId },
          `a thrown ${event.kind} '${event.name}' could not be delivered and is parked`,
        );
        return Promise.resolve();
      },
    });
  const poller = executor('event-outbox', claimDueOutboxEvents);
  return {
    runOnce: () => poller.runOnce(),
    deliverNow: (ids) =>
      executor('event-outbox-fast-path', (client) => claimOutboxEvents(client, ids)).runOnce(),
    nudge: () => poller.nudge(),
    start: () => poller.start(),
    stop: () => poller.stop(),
  };
}
