import type { Clock } from '../../platform/clock.js';
import type { Pool, PoolClient } from '../../platform/database/pool.js';
import { ServiceError } from '../../platform/http/service-error.js';
import { isGoneOrConflict } from '../engine/driver/driver-errors.js';
import type { EventCondition } from '../engine/driver/driver-types.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { Variables } from '../engine/runtime/index.js';
import { WorkflowErrors } from '../errors.js';
import { bufferMessage } from '../engine/store/buffered-messages.js';
import { claimBufferedMessage } from './buffered-message-claim.js';
import type { EventMetrics } from './event-metrics.js';
import type { StartTriggers } from './start-triggers.js';
import { findMessageSubscriptions, type Subscription } from '../engine/store/event-subscriptions.js';

/** A message to correlate. */
export interface Message {
  orgId: string;
  messageName: string;
  correlationKey: string | null;
  variables: Variables;
  /** Keep the message this long for the first subscription to open, when it matches nothing now. */
  timeToLiveMs?: number;
}

/** What a message did: instances started and instances whose wait it completed; or where it was kept. */
export interface MessageOutcome {
  started: string[];
  correlated: string[];
  buffered: { id: string; expires_at: string } | null;
}

const BATCH = 20;

/**
 * Correlates messages. A message goes to at most one target per process key: the oldest matching
 * open wait of an instance of that key, else a new instance of the key's latest enabled version
 * when it has a matching message start event. Matching nothing, it is buffered when it has a time to
 * live, else it is unmatched. Every delivery is its own engine write, guarded like any other.
 */
export class MessageService {
  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly starts: StartTriggers,
    private readonly clock: Clock,
    private readonly metrics: EventMetrics,
  ) {}

  /**
   * Correlates, starts, or buffers a message; returns what happened (all empty when unmatched).
   * `db` is the caller's transaction when the message was thrown by an instance (its outbox row's
   * delivery); then every write happens in it.
   */
  async publish(message: Message, db: Pool | PoolClient = this.pool): Promise<MessageOutcome> {
    const served = new Set<string>();
    const correlated = await this.correlate(message, served, undefined, db);
    const started = await this.starts.start(
      message.orgId,
      'message',
      message.messageName,
      message.variables,
      {
        skipKeys: served,
        db,
        correlationKey: message.correlationKey,
      },
    );
    this.metrics.messageCorrelated(correlated.length);
    this.metrics.messageStarted(started.length);
    if (correlated.length > 0 || started.length > 0) return { started, correlated, buffered: null };
    if (message.timeToLiveMs === undefined || message.timeToLiveMs <= 0) {
      this.metrics.messageUnmatched('dropped');
      return { started, correlated, buffered: null };
    }
    return this.buffer(message, message.timeToLiveMs, db);
  }

  /**
   * Offers a message buffered inside a transaction to the waits once more after that transaction
   * committed: a wait that opened while it ran looked for buffered messages before this one was
   * visible. Delivers it at most once (the buffered row is claimed); false when nothing took it.
   */
  async offerBuffered(message: Message, bufferedId: string): Promise<boolean> {
    const late = await this.correlate(message, new Set(), claimBufferedMessage(this.pool, bufferedId));
    if (late.length > 0) this.metrics.messageCorrelated(late.length);
    return late.length > 0;
  }

  // One wait per process key, trying the next when a wait was taken by a concurrent message.
  private async correlate(
    message: Message,
    served: Set<string>,
    condition?: EventCondition,
    db: Pool | PoolClient = this.pool,
  ): Promise<string[]> {
    const tried: string[] = [];
    const correlated: string[] = [];
    for (;;) {
      const candidates = await findMessageSubscriptions(db, {
        ...message,
        skipKeys: [...served],
        skipWaits: tried,
        limit: BATCH,
      });
      for (const candidate of candidates) {
        tried.push(candidate.waitId);
        if (served.has(candidate.processKey)) continue;
        if (await this.deliver(candidate, message.variables, condition, db)) {
          served.add(candidate.processKey);
          correlated.push(candidate.instanceId);
          // A buffered message is one delivery, not one per process key.
          if (condition !== undefined) return correlated;
        }
      }
      if (candidates.length < BATCH) return correlated;
    }
  }

  private async deliver(
    subscription: Subscription,
    variables: Variables,
    condition: EventCondition | undefined,
    db: Pool | PoolClient,
  ): Promise<boolean> {
    try {
      await this.driver.apply(
        subscription.instanceId,
        { type: 'complete', waitId: subscription.waitId, variables },
        condition,
        db,
      );
      return true;
    } catch (error) {
      // The wait closed (taken by another message, the instance moved on) since it was read.
      if (isGone(error)) return false;
      throw error;
    }
  }

  // Stored, then offered once more to the waits: one may have opened while this message was
  // matched, before it was stored, and would otherwise never see it. In a caller's transaction (an
  // idempotent request) the caller offers it once more after the commit: see offerBuffered.
  private async buffer(
    message: Message,
    timeToLiveMs: number,
    db: Pool | PoolClient,
  ): Promise<MessageOutcome> {
    const now = this.clock.now();
    const stored = await bufferMessage(db, {
      ...message,
      now,
      expiresAt: new Date(now.getTime() + timeToLiveMs),
    });
    const late = await this.correlate(message, new Set(), claimBufferedMessage(db, stored.id), db);
    if (late.length > 0) {
      this.metrics.messageCorrelated(late.length);
      return { started: [], correlated: late, buffered: null };
    }
    this.metrics.messageUnmatched('buffered');
    return {
      started: [],
      correlated: [],
      buffered: { id: stored.id, expires_at: stored.expiresAt.toISOString() },
    };
  }
}

/** True for the refusals that mean "this wait or message is no longer there". */
export function isGone(error: unknown): boolean {
  return (
    isGoneOrConflict(error) ||
    (error instanceof ServiceError && (error.statusCode === 404 || error.statusCode === 409))
  );
}

/** The 404 of a message that matched nothing and was not buffered. */
export function unmatchedMessage(messageName: string) {
  return WorkflowErrors.notFound(
    `No process instance waits for message '${messageName}' and no process starts with it`,
  );
}
