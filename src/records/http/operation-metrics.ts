import { Counter, Histogram, type Registry } from 'prom-client';
import type { FastifyRequest } from 'fastify';
import type { HttpServer } from '../../platform/http/http-server.js';

/** The label sets of one (schema, operation), made once and reused by every request. */
interface OperationLabels {
  operation: { schema: string; operation: string };
  success: { schema: string; operation: string; outcome: 'success' };
  rejected: { schema: string; operation: string; outcome: 'rejected' };
  failed: { schema: string; operation: string; outcome: 'failed' };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the record routes: which schema and operation the request is. */
    recordsOperation: OperationLabels | null;
  }
}

const labelSets = new Map<string, OperationLabels>();

/** Marks a request as a record operation, for the operations counter and latency histogram. */
export function markOperation(request: FastifyRequest, schema: string, operation: string): void {
  const key = `${operation} ${schema}`;
  let labels = labelSets.get(key);
  if (labels === undefined) {
    labels = {
      operation: { schema, operation },
      success: { schema, operation, outcome: 'success' },
      rejected: { schema, operation, outcome: 'rejected' },
      failed: { schema, operation, outcome: 'failed' },
    };
    labelSets.set(key, labels);
  }
  request.recordsOperation = labels;
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
  app.decorateRequest('recordsOperation', null);
  app.addHook('onResponse', (request, reply, done) => {
    const marked = request.recordsOperation;
    if (marked !== null) {
      const status = reply.statusCode;
      counter.inc(status < 400 ? marked.success : status < 500 ? marked.rejected : marked.failed);
      duration.observe(marked.operation, reply.elapsedTime / 1000);
    }
    done();
  });
}
