import type { Pool, PoolClient } from '../../platform/database/pool.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import type { Variables } from '../engine/runtime/index.js';
import type { EventMetrics } from './event-metrics.js';
import { isGone } from './message-service.js';
import type { StartTriggers } from './start-triggers.js';
import { findSignalSubscriptions, type Subscription } from '../engine/store/event-subscriptions.js';

/** A signal to broadcast. */
export interface Signal {
  orgId: string;
  signalName: string;
  variables: Variables;
  /**
   * The instance that threw the signal: its own catches got it when it was thrown (in the engine
   * call that threw it), so the broadcast does not deliver it there again.
   */
  thrownBy?: string;
}

/** Instances a signal started, and instances it was delivered to. */
export interface SignalOutcome {
  started: string[];
  delivered: string[];
}

/** Deliveries run at once, so a broadcast to many instances does not take one round trip each. */
const CONCURRENCY = 8;

/**
 * Broadcasts signals: every wait for the signal open in the org when it arrives is completed (each
 * in its own engine write), and each process key whose latest enabled version has a signal start
 * event for it starts an instance. Waits that open later do not see it; nothing is buffered.
 */
export class SignalService {
  constructor(
    private readonly pool: Pool,
    private readonly driver: InstanceDriver,
    private readonly starts: StartTriggers,
    private readonly metrics: EventMetrics,
  ) {}

  /**
   * Broadcasts a signal; a signal nobody waits for is not an error. In the caller's transaction
   * (`db`, a thrown signal's delivery) the deliveries run one after the other on its connection.
   */
  async broadcast(signal: Signal, db: Pool | PoolClient = this.pool): Promise<SignalOutcome> {
    const subscriptions = (await findSignalSubscriptions(db, signal.orgId, signal.signalName)).filter(
      (subscription) => subscription.instanceId !== signal.thrownBy,
    );
    const delivered = new Set<string>();
    let next = 0;
    const worker = async () => {
      for (let item = subscriptions[next++]; item !== undefined; item = subscriptions[next++]) {
        if (await this.deliver(item, signal.variables, db)) delivered.add(item.instanceId);
      }
    };
    const concurrency = db === this.pool ? CONCURRENCY : 1;
    await Promise.all(Array.from({ length: Math.min(concurrency, subscriptions.length) }, worker));
    const started = await this.starts.start(signal.orgId, 'signal', signal.signalName, signal.variables, {
      db,
    });
    this.metrics.signal('delivered', delivered.size);
    this.metrics.signal('started', started.length);
    const order = new Map(subscriptions.map((s, index) => [s.instanceId, index]));
    const deliveredIds = [...delivered].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    return { started, delivered: deliveredIds };
  }

  private async deliver(
    subscription: Subscription,
    variables: Variables,
    db: Pool | PoolClient,
  ): Promise<boolean> {
    try {
      const event = { type: 'complete' as const, waitId: subscription.waitId, variables };
      await this.driver.apply(subscription.instanceId, event, undefined, db);
      return true;
    } catch (error) {
      if (isGone(error)) return false;
      throw error;
    }
  }
}
