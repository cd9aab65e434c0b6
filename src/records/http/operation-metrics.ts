import type { FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { HttpServer } from '../../platform/http/http-server.js';

const operations = new WeakMap<FastifyRequest, { schema: string; operation: string }>();

/** Marks a request as a record operation, for the operations counter and latency histogram. */
export function markOperation(request: FastifyRequest, schema: string, operation: string): void {
  operations.set(request, { schema, operation });
}

/**
 * `records_operations_total{schema, operation, outcome}` (outcome: success, rejected for 4xx,
 * failed for 5xx) and `records_operation_duration_seconds{schema, operation}`.
 */
export function instrumentOperations(app: HttpServer, registry: Registry): void {
  const counter = new Counter({
    name: 'records_operations_total',
    help: 'Record operations by schema, operation and outcome',
    labelNames: ['schema', 'operation', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'records_operation_duration_seconds',
    help: 'Latency of record operations by schema and operation',
    labelNames: ['schema', 'operation'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const marked = operations.get(request);
    if (marked) {
      const status = reply.statusCode;
      const outcome = status < 400 ? 'success' : status < 500 ? 'rejected' : 'failed';
      counter.inc({ ...marked, outcome });
      duration.observe(marked, reply.elapsedTime / 1000);
    }
    done();
  });
}
