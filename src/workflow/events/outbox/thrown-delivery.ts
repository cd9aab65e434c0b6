import type { PoolClient } from '../../../platform/database/pool.js';
import type { MessageService } from '../message-service.js';
import type { SignalService } from '../signal-service.js';
import type { OutboxEvent } from '../../engine/store/event-outbox.js';

/**
 * Delivers a thrown event like the API would, inside the outbox claim's transaction: a message to
 * the instances of the thrower's org (one target per process key; never buffered, dropped and
 * counted as unmatched when nothing matches), a signal to every open wait and signal start except
 * the thrower's own waits, which the engine completed when it threw the signal.
 */
export function deliverThrownEvent(
  services: { messages: MessageService; signals: SignalService },
  event: OutboxEvent,
  client: PoolClient,
): Promise<unknown> {
  if (event.kind === 'message') {
    const message = {
      orgId: event.orgId,
      messageName: event.name,
      correlationKey: event.correlationKey,
      variables: event.variables,
    };
    return services.messages.publish(message, client);
  }
  const signal = {
    orgId: event.orgId,
    signalName: event.name,
    variables: event.variables,
    thrownBy: event.processInstanceId,
  };
  return services.signals.broadcast(signal, client);
}
