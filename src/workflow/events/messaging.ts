import type { Registry } from 'prom-client';
import type { Clock } from '../../platform/clock.js';
import type { Pool } from '../../platform/database/pool.js';
import type { Logger } from '../../platform/logging/logger.js';
import type { ModelCache } from '../deployments/model-cache.js';
import type { InstanceDriver } from '../engine/driver/instance-driver.js';
import { createEventHooks } from './event-hooks.js';
import { EventMetrics } from './event-metrics.js';
import { MessageService } from './message-service.js';
import { createOutboxDelivery, type OutboxDelivery } from './outbox/outbox-executor.js';
import { OutboxListener } from './outbox/outbox-listener.js';
import { deliverThrownEvent } from './outbox/thrown-delivery.js';
import { SignalService } from './signal-service.js';
import { StartTriggers } from './start-triggers.js';

/** The message and signal services, and the delivery of what instances throw. */
export interface MessagingServices {
  messages: MessageService;
  signals: SignalService;
  /** Delivers `event_outbox` rows; its polling loop runs on every service instance. */
  outbox: OutboxDelivery;
  /** Wakes the outbox loop when another transaction committed rows it could not deliver itself. */
  outboxListener: OutboxListener;
}

/**
 * Builds the message and signal services around the engine's driver and installs the driver's
 * hooks (buffered messages for new waits, delivery of thrown events through the outbox).
 */
export function createMessagingServices(deps: {
  pool: Pool;
  clock: Clock;
  metrics: Registry;
  logger: Logger;
  driver: InstanceDriver;
  models: ModelCache;
  databaseUrl: string;
}): MessagingServices {
  const metrics = new EventMetrics(deps.metrics);
  const logger = deps.logger.child({ area: 'events' });
  const starts = new StartTriggers(deps.pool, deps.models, deps.driver);
  const messages = new MessageService(deps.pool, deps.driver, starts, deps.clock, metrics);
  const signals = new SignalService(deps.pool, deps.driver, starts, metrics);
  const outbox = createOutboxDelivery({
    pool: deps.pool,
    clock: deps.clock,
    logger,
    deliver: (event, client) =>
      deliverThrownEvent({ messages, signals }, event, client).then(() => undefined),
  });
  const outboxListener = new OutboxListener(deps.databaseUrl, () => outbox.nudge(), logger);
  deps.driver.useEventHooks(createEventHooks({ ...deps, outbox, metrics, logger }));
  return { messages, signals, outbox, outboxListener };
}
