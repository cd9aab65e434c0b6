import { Counter, Histogram, type Registry } from 'prom-client';

/** Connector requests by outcome, and their durations. Label values are redacted by the caller. */
export class ConnectorMetrics {
  private readonly requests: Counter<'connector' | 'host' | 'outcome'>;
  private readonly duration: Histogram<'connector'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'weft_connector_requests_total',
      help: 'Connector requests by host and outcome: success, failed (will retry), incident',
      labelNames: ['connector', 'host', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'weft_connector_request_duration_seconds',
      help: 'Duration of connector HTTP exchanges',
      labelNames: ['connector'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  /** Counts one outcome. */
  outcome(connector: string, host: string, outcome: 'success' | 'failed' | 'incident'): void {
    this.requests.inc({ connector, host, outcome });
  }

  /** Observes one exchange's duration. */
  observe(connector: string, seconds: number): void {
    this.duration.observe({ connector }, seconds);
  }
}
