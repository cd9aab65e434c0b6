import { Counter, type Registry } from 'prom-client';

/** Message and signal counters on the workflow service's registry. */
export class EventMetrics {
  private readonly correlated: Counter;
  private readonly started: Counter;
  private readonly unmatched: Counter<'outcome'>;
  private readonly signals: Counter<'event'>;

  constructor(registry: Registry) {
    this.correlated = new Counter({
      name: 'weft_messages_correlated_total',
      help: 'Deliveries of messages to waiting process instances (buffered messages included)',
      registers: [registry],
    });
    this.started = new Counter({
      name: 'weft_messages_started_total',
      help: 'Process instances started by message start events',
      registers: [registry],
    });
    this.unmatched = new Counter({
      name: 'weft_messages_unmatched_total',
      help: 'Messages that matched nothing, by outcome: buffered (kept with a time to live) or dropped',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.signals = new Counter({
      name: 'weft_signals_total',
      help: 'Signal deliveries to waiting instances (delivered) and instances started by signals (started)',
      labelNames: ['event'],
      registers: [registry],
    });
    this.unmatched.inc({ outcome: 'buffered' }, 0);
    this.unmatched.inc({ outcome: 'dropped' }, 0);
  }

  /** A message completed a wait. */
  messageCorrelated(count = 1): void {
    if (count > 0) this.correlated.inc(count);
  }

  /** A message started instances. */
  messageStarted(count: number): void {
    if (count > 0) this.started.inc(count);
  }

  /** A message matched nothing. */
  messageUnmatched(outcome: 'buffered' | 'dropped'): void {
    this.unmatched.inc({ outcome });
  }

  /** A signal was delivered or started instances. */
  signal(event: 'delivered' | 'started', count: number): void {
    if (count > 0) this.signals.inc({ event }, count);
  }
}
