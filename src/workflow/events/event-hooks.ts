import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { WrittenEffects } from '../engine/driver/effects-writer.js';
import type { EventHooks } from '../engine/driver/driver-types.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { InstanceRecord } from '../engine/store/process-instances.js';
import { findBufferedMessages } from '../engine/store/buffered-messages.js';
import { claimBufferedMessage } from './buffered-message-claim.js';
import type { EventMetrics } from './event-metrics.js';
import { isGone } from './message-service.js';
import type { OutboxDelivery } from './outbox/outbox-executor.js';
import { outboxChannel } from './outbox/outbox-listener.js';

/** Buffered messages tried per opened wait before giving up (others took them meanwhile). */
const CANDIDATES = 5;

/**
 * The driver's message and signal hooks: a message wait that opens takes the oldest matching
 * buffered message, and the outbox rows of messages and signals an instance threw are delivered
 * right after the write commits (or, inside a caller's transaction, after that one commits, by the
 * outbox executor it notifies).
 */
export function createEventHooks(deps: {
  pool: Pool;
  driver: InstanceDriver;
  outbox: OutboxDelivery;
  clock: Clock;
  metrics: EventMetrics;
  logger: Logger;
}): EventHooks {
  const { driver, clock, metrics, logger } = deps;

  const offerBuffered = async (db: Pool | PoolClient, instance: InstanceRecord, written: WrittenEffects) => {
    for (const wait of written.messageWaits) {
      const candidates = await findBufferedMessages(db, {
        orgId: instance.org_id,
        messageName: wait.messageName,
        correlationKey: wait.correlationKey,
        now: clock.now(),
        limit: CANDIDATES,
      });
      for (const candidate of candidates) {
        const event = { type: 'complete' as const, waitId: wait.waitId, variables: candidate.variables };
        const delivered = await inSavepoint(db, async () => {
          await driver.apply(instance.id, event, claimBufferedMessage(db, candidate.id), db);
        });
        if (delivered) {
          metrics.messageCorrelated();
          break;
        }
      }
    }
  };

  return {
    messageWaitsOpened: async (db, instance, written) => {
      try {
        await offerBuffered(db, instance, written);
      } catch (error) {
        // The wait stays open and the message buffered: a later subscription or its expiry ends it.
        logger.error({ err: error, instanceId: instance.id }, 'could not deliver a buffered message');
      }
    },
    thrown: async (db, instance, written) => {
      const ids = written.thrown.map((event) => event.id);
      if (db !== deps.pool) {
        // The caller's transaction may still roll back, and the receivers' writes would wait for
        // its locks: the rows are delivered after it commits, woken by this notification.
        await db.query({ name: 'workflow.outbox.notify', text: `SELECT pg_notify('${outboxChannel}', '')` });
        return;
      }
      try {
        await deps.outbox.deliverNow(ids);
      } catch (error) {
        // The rows stay due: the outbox executor of some instance delivers them.
        logger.warn({ err: error, instanceId: instance.id }, 'thrown events left to the outbox executor');
      }
    },
  };
}

/**
 * Runs a delivery; inside the caller's transaction it gets a savepoint, so a failed delivery does
 * not undo the caller's write. Returns false when the wait or the message was gone.
 */
async function inSavepoint(db: Pool | PoolClient, work: () => Promise<void>): Promise<boolean> {
  const nested = 'release' in db;
  if (nested) await db.query('SAVEPOINT buffered_message');
  try {
    await work();
    if (nested) await db.query('RELEASE SAVEPOINT buffered_message');
    return true;
  } catch (error) {
    if (nested) await db.query('ROLLBACK TO SAVEPOINT buffered_message');
    if (isGone(error)) return false;
    throw error;
  }
}
