import type { FastifyRequest } from 'fastify';
import { identityOf } from '../auth/request-identity.js';
import type { RecordWrite } from '../records/write-pipeline.js';
import type { CompiledSchema } from '../schemas/compiled-schema.js';
import { idempotencyOf } from './idempotency-header.js';

/** The write a request asks for on `schema`, its Idempotency-Key read when the write runs. */
export function recordWriteOf(request: FastifyRequest, schema: CompiledSchema): RecordWrite {
  const identity = identityOf(request);
  return {
    identity,
    schema,
    requestId: request.id,
    idempotency: () => idempotencyOf(request, identity, schema),
  };
}
