import { collectDefaultMetrics, Registry } from 'prom-client';

/** A Prometheus registry for one service, with Node process metrics. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
